//! The store's share of the command path, on SQLite on disk with the production settings (WAL,
//! group commit: every acknowledged move fsynced, concurrent ones sharing an fsync).
//!
//! First a latency report (criterion reports means, not tails): sequential `append_move`,
//! the service's load + append cycle, and the same cycle from 8 concurrent tasks, each with
//! median, p99 and moves per second. Then criterion groups for the same operations.
//!
//! Run: `cargo bench -p bot-store --bench store`. The database lives under cargo's target
//! tmp dir, on the same disk as the build, never on a tmpfs where fsync is free.

use std::time::{Duration, Instant};

use bot_core::{
    model::{GameId, GameRecord, GameUpdate, NewGame, Place, Platform, PlayerId},
    store::GameStore,
};
use bot_store::SqlStore;
use criterion::Criterion;
use tokio::runtime::Runtime;

/// Games are replaced after this many plies, so loads stay at realistic game lengths.
const GAME_LENGTH: usize = 100;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn open(dir: &tempfile::TempDir) -> SqlStore {
    SqlStore::open_sqlite(dir.path().join("bench.db"))
        .await
        .unwrap()
}

async fn new_game(store: &SqlStore, n: usize) -> GameRecord {
    store
        .create_game(NewGame {
            variant: "chess".into(),
            options: "rated = false\n".into(),
            start_state: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            seats: vec![
                PlayerId::new(Platform::Discord, format!("1000{n}")),
                PlayerId::new(Platform::Discord, format!("2000{n}")),
            ],
            place: Place::room(Platform::Discord, "424242"),
            rating_family: None,
            clock: None,
            created_at: 1_780_000_000,
        })
        .await
        .unwrap()
}

fn mv(ply: usize) -> String {
    format!("e{}e{}", ply % 8 + 1, (ply + 3) % 8 + 1)
}

/// One load + append, as the service does it for every move command.
async fn load_and_append(store: &SqlStore, id: GameId) -> usize {
    let game = store.get_game(id).await.unwrap();
    let ply = game.moves.len();
    store
        .append_move(
            id,
            game.version,
            &mv(ply),
            &GameUpdate::active(),
            1_780_000_001,
        )
        .await
        .unwrap();
    ply + 1
}

struct Stats {
    median: Duration,
    p99: Duration,
    max: Duration,
    per_second: f64,
}

fn stats(mut samples: Vec<Duration>, wall: Duration) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    Stats {
        median: at(0.5),
        p99: at(0.99),
        max: *samples.last().unwrap(),
        per_second: samples.len() as f64 / wall.as_secs_f64(),
    }
}

fn report(name: &str, s: &Stats) {
    println!(
        "{name:<34} median {:>7.2} ms   p99 {:>7.2} ms   max {:>7.2} ms   {:>7.0} moves/s",
        s.median.as_secs_f64() * 1e3,
        s.p99.as_secs_f64() * 1e3,
        s.max.as_secs_f64() * 1e3,
        s.per_second
    );
}

fn latency_report(rt: &Runtime) {
    const MOVES: usize = 2_000;
    const TASKS: usize = 8;
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    println!("store latency report: SQLite on disk (WAL, group commit), {MOVES} moves each");
    rt.block_on(async {
        let store = open(&dir).await;

        // Sequential appends; the version is known, as right after a load.
        let mut samples = Vec::with_capacity(MOVES);
        let mut game = new_game(&store, 0).await;
        let start = Instant::now();
        for i in 0..MOVES {
            if i % GAME_LENGTH == 0 && i > 0 {
                game = new_game(&store, i).await;
            }
            let ply = i % GAME_LENGTH;
            let t = Instant::now();
            store
                .append_move(game.id, ply as i64, &mv(ply), &GameUpdate::active(), 1)
                .await
                .unwrap();
            samples.push(t.elapsed());
        }
        report("append_move", &stats(samples, start.elapsed()));

        // Load + append, one player after another.
        let mut samples = Vec::with_capacity(MOVES);
        let mut id = new_game(&store, 1).await.id;
        let start = Instant::now();
        for i in 0..MOVES {
            let t = Instant::now();
            if load_and_append(&store, id).await >= GAME_LENGTH {
                id = new_game(&store, i).await.id;
            }
            samples.push(t.elapsed());
        }
        report("get_game + append_move", &stats(samples, start.elapsed()));

        // Load + append from concurrent tasks, each on its own game (different channels).
        let start = Instant::now();
        let tasks: Vec<_> = (0..TASKS)
            .map(|t| {
                let store = store.clone();
                tokio::spawn(async move {
                    let mut id = new_game(&store, 100 + t).await.id;
                    let mut samples = Vec::with_capacity(MOVES / TASKS);
                    for i in 0..MOVES / TASKS {
                        let t0 = Instant::now();
                        if load_and_append(&store, id).await >= GAME_LENGTH {
                            id = new_game(&store, 1000 * t + i).await.id;
                        }
                        samples.push(t0.elapsed());
                    }
                    samples
                })
            })
            .collect();
        let mut samples = Vec::with_capacity(MOVES);
        for task in tasks {
            samples.extend(task.await.unwrap());
        }
        report(
            &format!("get_game + append_move, {TASKS} tasks"),
            &stats(samples, start.elapsed()),
        );
        store.close().await;
    });
}

fn criterion_benches(c: &mut Criterion, rt: &Runtime) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = rt.block_on(open(&dir));
    let mut group = c.benchmark_group("sqlite_disk");
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(8));

    group.bench_function("append_move", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut game = new_game(&store, 0).await;
                let mut ply = 0;
                let start = Instant::now();
                for i in 0..iters {
                    if ply == GAME_LENGTH {
                        // Replacing the game is part of the measured time, once per 100.
                        game = new_game(&store, i as usize).await;
                        ply = 0;
                    }
                    store
                        .append_move(game.id, ply as i64, &mv(ply), &GameUpdate::active(), 1)
                        .await
                        .unwrap();
                    ply += 1;
                }
                start.elapsed()
            })
        });
    });

    group.bench_function("get_game_then_append_move", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut id = new_game(&store, 0).await.id;
                let start = Instant::now();
                for i in 0..iters {
                    if load_and_append(&store, id).await >= GAME_LENGTH {
                        id = new_game(&store, i as usize).await.id;
                    }
                }
                start.elapsed()
            })
        });
    });

    group.bench_function("get_game_60_plies", |b| {
        let id = rt.block_on(async {
            let id = new_game(&store, 7).await.id;
            for _ in 0..60 {
                load_and_append(&store, id).await;
            }
            id
        });
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(store.get_game(id).await.unwrap());
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    rt.block_on(store.close());
}

fn main() {
    let rt = runtime();
    let mut criterion = Criterion::default().configure_from_args();
    // `cargo test --benches` runs benches in test mode: skip the long report there.
    if !std::env::args().any(|a| a == "--test" || a == "--list") {
        latency_report(&rt);
    }
    criterion_benches(&mut criterion, &rt);
    criterion.final_summary();
}
