//! What players are shown, through the service: the marked last move on boards with two-digit
//! ranks, Chess960 start positions, piece help, notation forgiveness and the wording of
//! refusals (issue 13, items 9-12).

use std::sync::{
    Arc,
    atomic::{AtomicI64, Ordering},
};

use bot_core::{
    Actor, Clock, GameService,
    chance::SeededChance,
    model::{Place, Platform, PlayerId},
    reply::{Audience, MovedCells, Reply},
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::Catalog;

#[derive(Clone, Default)]
struct TestClock(Arc<AtomicI64>);

impl Clock for TestClock {
    fn now(&self) -> i64 {
        1_800_000_000 + self.0.fetch_add(1, Ordering::Relaxed)
    }
}

fn actor(name: &str) -> Actor {
    Actor {
        id: PlayerId::new(Platform::Matrix, format!("@{name}:example.org")),
        name: name.to_string(),
    }
}

struct Table {
    svc: GameService<MemoryStore, TestClock>,
    place: Place,
    alice: Actor,
    bob: Actor,
}

impl Table {
    fn seeded(seed: u64) -> Table {
        Table::on(MemoryStore::new(), seed)
    }

    fn on(store: MemoryStore, seed: u64) -> Table {
        Table {
            svc: GameService::new(store, TestClock::default(), Arc::new(Catalog::builtin()))
                .with_chance(SeededChance::new(seed)),
            place: Place::room(Platform::Matrix, "!room:example.org"),
            alice: actor("alice"),
            bob: actor("bob"),
        }
    }

    async fn say(&self, who: &Actor, text: &str) -> Vec<Reply> {
        self.svc.handle_text(who, &self.place, text).await
    }

    async fn text(&self, who: &Actor, text: &str) -> String {
        let r = self.say(who, text).await;
        assert!(!r.is_empty(), "no reply to {text:?}");
        r[0].text.clone()
    }

    /// Alice challenges Bob (with `extra` words), Bob accepts; the start announcement.
    async fn start(&self, variant: &str) -> Reply {
        let r = self
            .say(
                &self.alice,
                &format!("challenge @bob:example.org {variant}"),
            )
            .await;
        assert_eq!(r[0].audience, Audience::Room, "{:?}", r[0]);
        let r = self.say(&self.bob, "accept").await;
        assert!(r[0].text.contains("starts"), "{:?}", r[0]);
        r[0].clone()
    }

    /// Plays the moves alternately, Alice first; the replies to the last one.
    async fn play(&self, moves: &str) -> Vec<Reply> {
        let mut last = Vec::new();
        for (i, m) in moves.split_whitespace().enumerate() {
            let who = if i % 2 == 0 { &self.alice } else { &self.bob };
            last = self.say(who, m).await;
            assert_eq!(last[0].audience, Audience::Room, "{m}: {}", last[0].text);
        }
        last
    }
}

fn cells(from: &str, to: &str) -> Option<MovedCells> {
    Some(MovedCells {
        from: from.into(),
        to: to.into(),
    })
}

#[tokio::test]
async fn the_board_marks_two_digit_ranks_exactly() {
    // Toulousain `k10k9` marked k1 and k10; Grand `a10b10` marked a1.
    let t = Table::seeded(1);
    t.start("toulousain").await;
    let r = t.play("c4c5 k10k9").await;
    let board = r[0].board.as_ref().unwrap();
    assert_eq!(board.last_move, cells("k10", "k9"));
    let t = Table::seeded(1);
    t.start("grand").await;
    let r = t.play("a3a4 a10b10").await;
    assert_eq!(r[0].board.as_ref().unwrap().last_move, cells("a10", "b10"));
    // The same mark on `board`, after the game was read back from the store.
    let r = t.say(&t.alice, "board").await;
    assert_eq!(r[0].board.as_ref().unwrap().last_move, cells("a10", "b10"));
}
