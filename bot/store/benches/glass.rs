//! The command path of a Looking-Glass order, as a player's private message travels it: the
//! actor's game is found from his private channel, loaded from SQLite on disk and replayed by
//! the referee from its record, the order is carried out, appended (one fsync), and the replies
//! are built: the public line for the game's room, each player's reports, and both private
//! boards turned into the renderer's views (what every adapter needs before any pixel).
//!
//! One table plays pseudo-random games (legal orders on either world, one in eight a wild
//! blind order, so strikes and partial slides happen) of up to 120 actions, fixed seed.
//! Reported: median and p99 latency per order, and orders per second.
//!
//! Run: `cargo bench -p bot-store --bench glass`.

use std::time::{Duration, Instant};

use bot_core::{
    Actor, GameService, SystemClock,
    model::{Place, Platform, PlayerId},
    picture,
    store::{GameFilter, GameStore},
};
use bot_store::SqlStore;
use rules::{
    Catalog,
    glass::{self, Glass, GlassRules},
};

const ORDERS: usize = 1_000;
const GAME_LENGTH: usize = 120;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let catalog = Catalog::builtin();
    rt.block_on(async {
        let store = SqlStore::open_sqlite(dir.path().join("glass.db"))
            .await
            .unwrap();
        let svc = GameService::new(store.clone(), SystemClock, std::sync::Arc::new(Catalog::builtin()));
        let actor = |name: &str| Actor::new(PlayerId::new(Platform::Matrix, format!("@{name}:bench.example")), name);
        let players = [actor("white"), actor("black")];
        let room = Place::room(Platform::Matrix, "!table:bench.example");
        let dms = [
            Place::direct(Platform::Matrix, "!white-dm:bench.example"),
            Place::direct(Platform::Matrix, "!black-dm:bench.example"),
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut samples = Vec::with_capacity(ORDERS);
        let start = Instant::now();
        let mut measured = Duration::ZERO;
        while samples.len() < ORDERS {
            svc.handle_text(&players[0], &room, "challenge @black:bench.example looking-glass")
                .await;
            svc.handle_text(&players[1], &room, "accept").await;
            svc.handle_text(&players[0], &dms[0], &format!("setup {}", rng.below(960)))
                .await;
            svc.handle_text(&players[1], &dms[1], &format!("setup {}", rng.below(960)))
                .await;
            loop {
                let record = store
                    .list_games(&GameFilter::default().active())
                    .await
                    .unwrap()
                    .pop()
                    .expect("the game");
                if record.moves.len() >= GAME_LENGTH || samples.len() == ORDERS {
                    svc.handle_text(&players[0], &room, "resign").await;
                    break;
                }
                // The bench picks its order from the referee's state (not measured).
                let game =
                    Glass::replay(glass::variant(), GlassRules::default(), &record.moves).unwrap();
                let side = game.turn();
                let moves = game.moves_on(side, (rng.below(2)) as u8);
                let text = if moves.is_empty() || rng.below(8) == 0 {
                    let f = ["a", "b", "c", "d", "e", "f", "g", "h"];
                    format!(
                        "{}:{}{}{}{}",
                        if rng.below(2) == 0 { "R" } else { "M" },
                        f[rng.below(8)],
                        1 + rng.below(8),
                        f[rng.below(8)],
                        1 + rng.below(8)
                    )
                } else {
                    moves[rng.below(moves.len())].clone()
                };
                let who = side.index();
                let t = Instant::now();
                let replies = svc.handle_text(&players[who], &dms[who], &text).await;
                for r in &replies {
                    if let Some(b) = &r.board {
                        std::hint::black_box(picture::board_view(b, &catalog).unwrap());
                    }
                }
                let took = t.elapsed();
                measured += took;
                samples.push(took);
                if replies.iter().any(|r| r.text.contains("revealed")) {
                    break;
                }
            }
        }
        let wall = start.elapsed();
        samples.sort();
        let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
        println!(
            "looking-glass order, private views, 1 table   median {:.2} ms   p99 {:.2} ms   max {:.2} ms   {:.0} orders/s (measured time; wall {:.1} s with the bench's own replays)",
            at(0.5).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
            samples.last().unwrap().as_secs_f64() * 1e3,
            samples.len() as f64 / measured.as_secs_f64(),
            wall.as_secs_f64()
        );
        store.close().await;
    });
}
