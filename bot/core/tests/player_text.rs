//! What players are shown, through the service: the marked last move on boards with two-digit
//! ranks, Chess960 start positions, piece help, notation forgiveness and the wording of
//! refusals (issue 13, items 9-12).

use std::sync::Arc;

use bot_core::{
    Actor, GameService,
    chance::SeededChance,
    model::{Place, Platform},
    reply::{Audience, MovedCells, Reply},
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::Catalog;

mod common;
use common::*;

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

/// The back rank (White's, a-file first) of a state text.
fn white_back_rank(state: &str) -> String {
    state
        .split_whitespace()
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string()
}

/// Starts a Chess960 game and returns the announced position number and the start state.
async fn chess960_start(t: &Table, words: &str) -> (u16, String) {
    let r = t.start(&format!("chess960 {words}")).await;
    let n: u16 = r.text.split("Chess960 position ").nth(1).unwrap()[..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (n, r.board.unwrap().state)
}

#[tokio::test]
async fn chess960_draws_its_start_position_and_names_it() {
    // Item 10 of issue 13: every game started from position 518.
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..8 {
        let t = Table::seeded(seed);
        let (n, state) = chess960_start(&t, "").await;
        assert_eq!(
            white_back_rank(&state),
            rules::chess960::back_rank(n).unwrap(),
            "seed {seed}"
        );
        // The same seed draws the same position.
        let again = Table::seeded(seed);
        assert_eq!(chess960_start(&again, "").await.0, n);
        seen.insert(n);
    }
    assert!(seen.len() >= 6, "{seen:?}");
}

#[tokio::test]
async fn chess960_by_number_replays_after_a_restart_and_exports() {
    let store = MemoryStore::new();
    let t = Table::on(store.clone(), 3);
    let (n, state) = chess960_start(&t, "position 0").await;
    assert_eq!(n, 0);
    assert_eq!(white_back_rank(&state), "BBQNNRKR");
    assert!(state.starts_with("bbqnnrkr/pppppppp/"), "{state}");
    t.play("g2g3 g7g6 Ng2").await;
    let before = t.say(&t.alice, "board").await[0].board.clone().unwrap();
    // A new service on the same store: the game replays from its own start.
    let restarted = Table::on(store, 99);
    let after = restarted.say(&restarted.bob, "board").await[0]
        .board
        .clone()
        .unwrap();
    assert_eq!(after.state, before.state);
    let pgn = restarted.text(&restarted.alice, "export").await;
    assert!(
        pgn.contains("[StartPosition \"Chess960 position 0\"]"),
        "{pgn}"
    );
    assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
    assert!(
        pgn.contains("[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w"),
        "{pgn}"
    );
    let imported = bot_core::export::import(&Catalog::builtin(), &pgn).unwrap();
    assert_eq!(imported.moves.len(), 3);
}

#[tokio::test]
async fn a_chess960_game_stored_without_a_number_is_position_518() {
    use bot_core::model::{NewChallenge, NewGame};
    let store = MemoryStore::new();
    let t = Table::on(store.clone(), 1);
    let chess960 = Catalog::builtin().get("chess960").unwrap();
    let c = store
        .create_challenge(NewChallenge {
            challenger: t.alice.id.clone(),
            challenged: Some(t.bob.id.clone()),
            more_invited: Vec::new(),
            variant: "chess960".into(),
            options: "colour=first".into(),
            place: t.place.clone(),
            created_at: 1,
        })
        .await
        .unwrap();
    store
        .accept_challenge(
            c.id,
            &t.bob.id,
            NewGame {
                variant: "chess960".into(),
                options: "colour=first".into(),
                start_state: chess960.start.clone(),
                seats: vec![t.alice.id.clone(), t.bob.id.clone()],
                place: t.place.clone(),
                rating_family: None,
                clock: None,
                created_at: 2,
            },
        )
        .await
        .unwrap();
    t.play("e4 e5 Nf3").await;
    let pgn = t.text(&t.alice, "export").await;
    assert!(pgn.contains("Chess960 position 518"), "{pgn}");
    let games = store.list_games(&GameFilter::default()).await.unwrap();
    assert_eq!(games[0].moves.len(), 3);
}

#[tokio::test]
async fn only_chess960_takes_a_position_number() {
    let t = Table::seeded(1);
    let rules = t.text(&t.alice, "rules chess960").await;
    assert!(
        rules.contains("drawn at random") && rules.contains("position N"),
        "{rules}"
    );
    let e = t
        .text(&t.alice, "challenge @bob:example.org chess position 12")
        .await;
    assert!(
        e.contains("only Chess960 starts from a numbered one"),
        "{e}"
    );
    let e = t
        .text(&t.alice, "challenge @bob:example.org chess960 position 960")
        .await;
    assert!(e.contains("from 0 to 959"), "{e}");
}

#[tokio::test]
async fn zeros_castle_like_letters() {
    let t = Table::seeded(1);
    t.start("chess").await;
    let r = t.play("e4 e5 Nf3 Nc6 Bc4 Bc5 0-0").await;
    assert!(r[0].text.contains("plays O-O."), "{}", r[0].text);
    let t = Table::seeded(1);
    t.start("chess").await;
    let r = t.play("d4 d5 Nc3 Nc6 Bf4 Bf5 Qd2 Qd7 0-0-0 0-0-0").await;
    assert!(r[0].text.contains("plays O-O-O."), "{}", r[0].text);
    for line in ["move 0-0", "0-0", "0-0+", "o-o"] {
        let t = Table::seeded(1);
        t.start("chess").await;
        t.play("e4 e5 Nf3 Nc6 Bc4 Bc5").await;
        let r = t.say(&t.alice, line).await;
        assert!(r[0].text.contains("plays O-O."), "{line}: {}", r[0].text);
    }
}

#[tokio::test]
async fn a_refused_san_move_says_why() {
    let t = Table::seeded(1);
    t.start("chess").await;
    // 1. d4 e5 2. Nd2 Bb4: the Knight on d2 is pinned.
    t.play("d4 e5 Nd2 Bb4").await;
    let e = t.text(&t.alice, "Nb3").await;
    assert_eq!(
        e,
        "`Nb3`: the Knight on d2 is pinned: that would leave your King attacked by the Bishop on b4."
    );
    assert_eq!(t.text(&t.alice, "d2b3").await, e.replace("Nb3", "d2b3"));
}

#[tokio::test]
async fn a_promotion_without_its_piece_asks_which() {
    let t = Table::seeded(1);
    t.start("chess").await;
    t.play("b4 a5 bxa5 b6 axb6 Ra3 b7 Rb3").await;
    for typed in ["bxc8", "b7c8"] {
        let e = t.text(&t.alice, typed).await;
        assert_eq!(
            e,
            format!(
                "`{typed}`: which piece should it become? Type bxc8=Q, bxc8=R, bxc8=B or bxc8=N."
            )
        );
    }
    let r = t.play("bxc8=N").await;
    assert!(r[0].text.contains("plays bxc8=N"), "{}", r[0].text);
}

#[tokio::test]
async fn checkmate_names_the_winner_and_the_mated_player() {
    let t = Table::seeded(1);
    t.start("chess").await;
    let r = t.play("f3 e5 g4 Qh4").await;
    assert_eq!(
        r[0].text,
        "Game 1: {0} plays Qh4#. Checkmate — {0} (Black) beats {1} (White). \
         Ratings: {1} 1338 (-162), {0} 1662 (+162)."
    );
    assert_eq!(r[0].mentions, vec![t.bob.id.clone(), t.alice.id.clone()]);
}

#[tokio::test]
async fn play_has_help_of_its_own_and_help_lists_it() {
    let t = Table::seeded(1);
    let play = t.text(&t.alice, "help play").await;
    assert!(play.starts_with("play VARIANT"), "{play}");
    let all = t.text(&t.alice, "help").await;
    assert!(all.contains(&play), "{all}");
}

/// Marks that never follow each other in a well-made sentence.
const STRAY: &[&str] = &[
    "?.", "!.", "..", ".,", ",.", ";.", ":.", " .", " ,", ".;", "?;",
];

#[tokio::test]
async fn refusals_have_no_stray_punctuation() {
    let t = Table::seeded(1);
    let mut texts = Vec::new();
    for line in [
        "move",
        "challenge",
        "challenge @bob:example.org",
        "accept x",
        "accept 99",
        "decline",
        "cancel",
        "draw maybe",
        "takeback now",
        "board #99",
        "moves",
        "e4",
        "flarp",
        "chalenge chess",
        "rules nowhere",
        "piece chess dragon",
        "help nowhere",
        "setup",
        "ask now",
        "challenge @bob:example.org chess position 3",
        "challenge @bob:example.org chess960 position 1000",
        "resign",
        "games",
        "history",
    ] {
        for r in t.say(&t.alice, line).await {
            texts.push((line.to_string(), r.text));
        }
    }
    t.start("chess").await;
    for line in [
        "move",
        "e5",
        "Nb5",
        "e2e5",
        "zz",
        "O-O",
        "0-0-0",
        "e7e5",
        "Ke2",
        "moves z9",
        "b8",
        "draw decline",
        "takeback accept",
        "setup 518",
        "ask",
    ] {
        for r in t.say(&t.alice, line).await {
            texts.push((line.to_string(), r.text));
        }
    }
    t.play("b4 a5 bxa5 b6 axb6 Ra3 b7 Rb3").await;
    for line in ["b8", "bxc8", "a8", "Nb5", "move #7 e4"] {
        for r in t.say(&t.alice, line).await {
            texts.push((line.to_string(), r.text));
        }
    }
    for (line, text) in &texts {
        for bad in STRAY {
            assert!(!text.contains(bad), "{line:?} -> {text:?} has {bad:?}");
        }
    }
    assert!(
        texts
            .iter()
            .any(|(l, t)| l == "move" && t.contains("which move?"))
    );
}
