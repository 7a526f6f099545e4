//! Crash safety: a child process appends moves to a SQLite store on disk and prints each ply
//! as soon as `append_move` returns (the point where the service would acknowledge it); the
//! parent SIGKILLs it mid-stream, reopens the store, and finds every acknowledged move.
//!
//! The child is this test binary itself, re-run on the `crash_child` test with an environment
//! variable, so no extra binary ships with the crate.

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
};

use bot_core::{
    model::{GameUpdate, NewGame, Place, Platform, PlayerId},
    store::GameStore,
};
use bot_store::SqlStore;

/// Set (to `PATH GAME_ID`) only in the child.
const CHILD_ENV: &str = "FAIRYBOT_STORE_CRASH_CHILD";
/// The parent kills the child after this many acknowledgements.
const KILL_AFTER: usize = 200;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn move_text(ply: i64) -> String {
    format!("m{ply}-{}", ply * 7919 % 1000)
}

/// The child's work; a no-op in a normal test run.
#[test]
fn crash_child() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (path, id) = spec.rsplit_once(' ').expect("PATH GAME_ID");
    let id = bot_core::model::GameId(id.parse().expect("game id"));
    let rt = runtime();
    rt.block_on(async {
        let store = SqlStore::open_sqlite(path).await.unwrap();
        for ply in 0.. {
            store
                .append_move(id, ply, &move_text(ply), &GameUpdate::active(), ply)
                .await
                .unwrap();
            // Rust's stdout is line-buffered: the line leaves the process right here.
            println!("ACK {ply}");
        }
    });
}

#[test]
fn acknowledged_moves_survive_sigkill() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    let rt = runtime();
    let game = rt.block_on(async {
        let store = SqlStore::open_sqlite(&path).await.unwrap();
        let game = store
            .create_game(NewGame {
                variant: "chess".into(),
                options: String::new(),
                start_state: "startpos".into(),
                seats: vec![
                    PlayerId::new(Platform::Console, "a"),
                    PlayerId::new(Platform::Console, "b"),
                ],
                place: Place::room(Platform::Console, "local"),
                rating_family: None,
                clock: None,
                created_at: 0,
            })
            .await
            .unwrap();
        store.close().await;
        game
    });

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, format!("{} {}", path.display(), game.id))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut acked: Vec<i64> = Vec::new();
    let mut killed = false;
    for line in stdout.lines() {
        let line = line.unwrap();
        // libtest may start the line with "test crash_child ... ", so find the marker.
        if let Some((_, ply)) = line.split_once("ACK ") {
            acked.push(ply.parse().unwrap());
        }
        if acked.len() == KILL_AFTER && !killed {
            // SIGKILL: no destructors, no pool shutdown, no WAL checkpoint.
            child.kill().unwrap();
            killed = true;
        }
        // Keep reading: lines already in the pipe were acknowledged before the kill.
    }
    let status = child.wait().unwrap();
    assert!(
        killed,
        "the child stopped by itself after {} moves",
        acked.len()
    );
    assert!(!status.success(), "the child was killed, not finished");
    assert_eq!(
        acked,
        (0..acked.len() as i64).collect::<Vec<_>>(),
        "acks are consecutive plies"
    );

    let reopened = rt.block_on(async {
        let store = SqlStore::open_sqlite(&path).await.unwrap();
        store.get_game(game.id).await.unwrap()
    });
    let last_acked = *acked.last().unwrap();
    assert!(
        reopened.moves.len() as i64 > last_acked,
        "acknowledged {} moves, found {} after the crash",
        acked.len(),
        reopened.moves.len()
    );
    for (ply, mv) in reopened.moves.iter().enumerate() {
        assert_eq!(*mv, move_text(ply as i64), "move at ply {ply}");
    }
    assert_eq!(reopened.version, reopened.moves.len() as i64);
    println!(
        "acknowledged {} moves before SIGKILL; {} found after reopening",
        acked.len(),
        reopened.moves.len()
    );
}

/// Set (to `PATH`) only in the child of the ratings crash test.
const RATED_CHILD_ENV: &str = "FAIRYBOT_STORE_RATED_CRASH_CHILD";

/// The two players of the ratings crash test.
fn rated_players() -> [PlayerId; 2] {
    [
        PlayerId::new(Platform::Console, "ann"),
        PlayerId::new(Platform::Console, "ben"),
    ]
}

/// The ratings crash child: creates rated games and finishes each with a move that wins,
/// printing the game's id once the finishing write returned.
#[test]
fn rated_crash_child() {
    let Ok(path) = std::env::var(RATED_CHILD_ENV) else {
        return;
    };
    let rt = runtime();
    rt.block_on(async {
        let store = SqlStore::open_sqlite(path).await.unwrap();
        for n in 0_i64.. {
            let [a, b] = rated_players();
            let seats = if n % 2 == 0 { vec![a, b] } else { vec![b, a] };
            let game = store
                .create_game(NewGame {
                    variant: "chess".into(),
                    options: String::new(),
                    start_state: "startpos".into(),
                    seats,
                    place: Place::room(Platform::Console, "local"),
                    rating_family: Some("chess".into()),
                    clock: None,
                    created_at: n,
                })
                .await
                .unwrap();
            let win = GameUpdate {
                status: bot_core::model::GameStatus::Finished {
                    result: bot_core::model::GameResult::Win((n % 3 == 0) as u8),
                    reason: bot_core::model::EndReason::parse("checkmate").unwrap(),
                },
                pending_offer: None,
                clock: None,
                tell: Default::default(),
            };
            store
                .append_move(game.id, 0, "mate", &win, n)
                .await
                .unwrap();
            println!("RATED {}", game.id);
        }
    });
}

/// A result and the ratings it changes are one commit: after a SIGKILL in the middle of a
/// stream of rated results, every finished game is rated exactly once, no active game is
/// rated, and each player's tally counts exactly the finished games.
#[test]
fn results_and_ratings_survive_sigkill_together() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    let rt = runtime();
    rt.block_on(async {
        SqlStore::open_sqlite(&path).await.unwrap().close().await;
    });
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "rated_crash_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(RATED_CHILD_ENV, path.display().to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut acked = 0;
    let mut killed = false;
    for line in stdout.lines() {
        if line.unwrap().contains("RATED ") {
            acked += 1;
        }
        if acked == KILL_AFTER / 2 && !killed {
            child.kill().unwrap();
            killed = true;
        }
    }
    child.wait().unwrap();
    assert!(killed, "the child stopped by itself after {acked} games");
    rt.block_on(async {
        let store = SqlStore::open_sqlite(&path).await.unwrap();
        let games = store
            .list_games(&bot_core::store::GameFilter::default())
            .await
            .unwrap();
        let mut finished = 0;
        for g in &games {
            let changes = store.rating_changes(g.id).await.unwrap();
            if g.status.is_active() {
                assert!(changes.is_empty(), "active game {} is rated", g.id);
            } else {
                finished += 1;
                assert_eq!(changes.len(), 2, "finished game {} rated once", g.id);
            }
        }
        assert!(
            finished >= acked,
            "acknowledged {acked} results, found {finished}"
        );
        for p in rated_players() {
            let tally = store.ratings_of(&p).await.unwrap();
            assert_eq!(tally.len(), 1);
            let s = tally[0].standing;
            assert_eq!(s.games as usize, finished, "{p}'s tally");
            assert_eq!((s.wins + s.losses) as usize, finished);
        }
        println!("{acked} results acknowledged before SIGKILL; {finished} found, each rated once");
    });
}
