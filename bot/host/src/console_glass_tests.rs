//! The Looking-Glass privacy property through the console's named mode: random games played
//! by two named consoles (`--as alice`, `--as bob`) on one store and one data directory.
//! Nothing printed on one player's console may carry the other's secrets (his private lines,
//! his back rank, his orders, his private pictures), and every private line of a player
//! reaches his own console, directly or through his mailbox.

use std::sync::Arc;

use bot_core::{
    GameService, SeededChance, SystemClock,
    model::{GameRecord, Platform},
    reply::Audience,
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::glass::{self, Glass, GlassRules};

use super::Console;

const NAMES: [&str; 2] = ["alice", "bob"];

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Two named consoles as two processes would have them: each its own service (its own chance)
/// over one store, one data directory.
struct Table {
    store: MemoryStore,
    consoles: [Console<MemoryStore, SystemClock>; 2],
    /// Everything each console printed.
    printed: [String; 2],
    /// What each printed while the game was still active (the reveal shows everything).
    printed_in_play: [String; 2],
    /// Every private line the service addressed to each player, as the console labels it.
    private: [Vec<String>; 2],
    /// What each player typed.
    typed: [Vec<String>; 2],
    /// Private lines produced by the other player's command: they can only arrive by mail.
    via_mail: usize,
}

impl Table {
    fn new(dir: &std::path::Path, seed: u64) -> Table {
        let store = MemoryStore::new();
        let console = |name: &str, seed: u64| {
            let service = GameService::new(
                store.clone(),
                SystemClock,
                Arc::new(rules::Catalog::builtin()),
            )
            .with_chance(SeededChance::new(seed));
            let c = Console::new(
                Arc::new(service),
                Some(name.to_string()),
                dir,
                render::Theme::light(),
                200,
            );
            c.mailboxes.join(name).unwrap();
            c
        };
        Table {
            consoles: [console(NAMES[0], seed), console(NAMES[1], seed + 1)],
            store,
            printed: Default::default(),
            printed_in_play: Default::default(),
            private: Default::default(),
            typed: Default::default(),
            via_mail: 0,
        }
    }

    async fn record(&self) -> Option<GameRecord> {
        let games = self.store.list_games(&GameFilter::default()).await.unwrap();
        games.last().cloned()
    }

    /// `who` types `text`; both consoles then print what they show (the other one at its
    /// next poll of the mailbox).
    async fn say(&mut self, who: usize, text: &str) {
        let active = self.record().await.is_some_and(|r| r.status.is_active());
        let replies = self.consoles[who].respond(text).await;
        for r in &replies {
            if let Audience::Private(p) = &r.audience {
                assert_eq!(p.platform, Platform::Console);
                let owner = NAMES.iter().position(|n| *n == p.user).unwrap();
                let line = format!("[to {} only] {}", p.user, r.render_text(|p| p.user.clone()));
                self.private[owner].push(line);
                if owner != who {
                    self.via_mail += 1;
                }
            }
        }
        let mut shown = [String::new(), String::new()];
        shown[who] = self.consoles[who].route(&replies).await;
        for (i, c) in self.consoles.iter().enumerate() {
            shown[i].push_str(&c.mail());
        }
        let still_active = self.record().await.is_some_and(|r| r.status.is_active());
        for (i, text) in shown.iter().enumerate() {
            self.printed[i].push_str(text);
            if active && still_active {
                self.printed_in_play[i].push_str(text);
            }
        }
        self.typed[who].push(text.to_string());
    }

    /// Checks the property so far.
    fn check(&self, back_ranks: &[Option<String>; 2], game: u64) {
        for me in 0..2 {
            let other = 1 - me;
            let mine = &self.printed[me];
            let label = format!("[to {} only]", NAMES[other]);
            assert!(!mine.contains(&label), "{} saw {label}:\n{mine}", NAMES[me]);
            let picture = format!("game-{game}-{}.png", NAMES[other]);
            assert!(!mine.contains(&picture), "{} saw {picture}", NAMES[me]);
            for line in &self.private[other] {
                assert!(!mine.contains(line.as_str()), "{} saw {line:?}", NAMES[me]);
            }
            // Every private line of mine reached me.
            for line in &self.private[me] {
                assert!(
                    mine.contains(line.as_str()),
                    "{} never saw {line:?}:\n{mine}",
                    NAMES[me]
                );
            }
            let in_play = &self.printed_in_play[me];
            if let (Some(theirs), ours) = (&back_ranks[other], &back_ranks[me])
                && ours.as_ref() != Some(theirs)
            {
                assert!(
                    !in_play.contains(theirs.as_str()),
                    "{} saw {}'s back rank {theirs}",
                    NAMES[me],
                    NAMES[other]
                );
            }
            for order in &self.typed[other] {
                // An order names its world ("R:e2e4"); the out-of-turn "e2e4" is refused and
                // no secret.
                let is_order = order.contains(':');
                if is_order && !self.typed[me].contains(order) {
                    assert!(
                        !in_play.contains(order.as_str()),
                        "{} saw {}'s order {order}",
                        NAMES[me],
                        NAMES[other]
                    );
                }
            }
        }
    }
}

fn back_ranks(rec: &GameRecord) -> [Option<String>; 2] {
    let rank = |letter: &str| {
        rec.moves.iter().find_map(|m| {
            m.strip_prefix(&format!("{letter} setup "))
                .map(|r| r.split_whitespace().next().unwrap_or(r).to_string())
        })
    };
    [rank("w"), rank("b")]
}

#[tokio::test]
async fn named_consoles_never_print_the_other_players_secrets_and_deliver_his_own() {
    let mut rng = Lcg(17);
    let mut private_lines = 0;
    let mut delivered_by_mail = 0;
    for game_no in 0..6u64 {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Table::new(dir.path(), 40 + game_no);
        let (variant, rules) = if game_no % 3 == 2 {
            ("looking-glass-no-strikes", GlassRules { no_strikes: true })
        } else {
            ("looking-glass", GlassRules::default())
        };
        t.say(0, &format!("challenge @bob {variant}")).await;
        t.say(1, "accept").await;
        let rec = t.record().await.expect("a game");
        assert!(rec.status.is_active(), "{:?}", t.printed);
        let id = rec.id;
        for side in [1usize, 0] {
            let choice = match rng.next() % 3 {
                0 => "random".to_string(),
                1 => (rng.next() % 960).to_string(),
                _ => rules::chess960::back_rank((rng.next() % 960) as u16).unwrap(),
            };
            t.say(side, &format!("setup {choice}")).await;
        }
        for _ in 0..60 {
            let rec = t.record().await.unwrap();
            if !rec.status.is_active() {
                break;
            }
            let game = Glass::replay(glass::variant(), rules, &rec.moves).unwrap();
            let side = game.turn().index();
            let army = if game.is_forced() {
                glass::other(game.turn())
            } else {
                game.turn()
            };
            let moves = game.moves_on(army, (rng.next() % 2) as u8);
            let (who, text) = match rng.next() % 20 {
                0 => (side, "ask".to_string()),
                1 => (side, "board".to_string()),
                2 => (side, "moves".to_string()),
                3 => (1 - side, "e2e4".to_string()),
                _ if moves.is_empty() => (side, "board".to_string()),
                _ => (side, moves[(rng.next() as usize) % moves.len()].clone()),
            };
            t.say(who, &text).await;
            t.check(&back_ranks(&t.record().await.unwrap()), id.0 as u64);
        }
        if t.record().await.unwrap().status.is_active() {
            t.say((rng.next() % 2) as usize, "resign").await;
        }
        t.check(&back_ranks(&t.record().await.unwrap()), id.0 as u64);
        for (me, name) in NAMES.iter().enumerate() {
            assert!(
                t.printed[me].contains("Your back rank"),
                "{name} never saw his back rank"
            );
            assert!(
                dir.path()
                    .join(format!("boards/game-{}-{name}.png", id.0))
                    .exists()
            );
            private_lines += t.private[me].len();
        }
        delivered_by_mail += t.via_mail;
    }
    assert!(private_lines > 100, "only {private_lines} private lines");
    assert!(delivered_by_mail > 10, "{delivered_by_mail}");
}
