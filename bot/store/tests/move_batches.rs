//! Moves written together on SQLite (`bot/store/src/batch.rs`): moves of many games arriving at
//! once share transactions, and each one still behaves as if written alone: its own versioned
//! update, its announcement stored exactly when the move is, acknowledged only once durable.

use std::sync::Arc;

use bot_core::{
    model::{GameUpdate, NewGame, Place, Platform, PlayerId},
    outbox::{Envelope, Keys, Origin, Tell},
    reply::Reply,
    store::{GameStore, StoreError},
};
use bot_store::SqlStore;

const GAMES: usize = 16;
const MOVES: i64 = 20;

fn new_game(i: usize) -> NewGame {
    NewGame {
        variant: "chess".into(),
        options: String::new(),
        start_state: "startpos".into(),
        seats: vec![
            PlayerId::new(Platform::Console, format!("white{i}")),
            PlayerId::new(Platform::Console, format!("black{i}")),
        ],
        place: Place::room(Platform::Console, format!("table{i}")),
        rating_family: None,
        clock: None,
        created_at: 1,
    }
}

/// A move's update with its announcement, as the command path makes it.
fn told(keys: &Keys, text: String) -> GameUpdate {
    let mut update = GameUpdate::active();
    update.tell = Tell {
        envelopes: vec![Envelope {
            key: keys.next(),
            place: Place::room(Platform::Console, "local"),
            origin: Origin::Unasked,
            reply: Reply::room(text),
            part: 0,
        }],
        claim: None,
        posted_ms: 5,
    };
    update
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_of_many_games_share_transactions_and_each_is_written_as_if_alone() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap();
    let keys = Arc::new(Keys::new(77));
    let mut games = Vec::new();
    for i in 0..GAMES {
        games.push(store.create_game(new_game(i)).await.unwrap().id);
    }
    let (turns_before, _) = store.write_turns_synced().await.unwrap();

    let mut tasks = Vec::new();
    for (i, &game) in games.iter().enumerate() {
        // Each table plays its moves one after the other; a second writer of the same game
        // always comes with a version already gone, and must write nothing.
        let (store, keys) = (store.clone(), keys.clone());
        tasks.push(tokio::spawn(async move {
            for ply in 0..MOVES {
                let update = told(&keys, format!("game {i} move {ply}"));
                let version = store
                    .append_move(game, ply, &format!("m{ply}"), &update, 10 + ply)
                    .await
                    .unwrap();
                assert_eq!(version, ply + 1);
                let stale = told(&keys, format!("game {i} stale {ply}"));
                match store.append_move(game, ply, "stale", &stale, 10).await {
                    Err(StoreError::Conflict {
                        expected, actual, ..
                    }) => assert_eq!((expected, actual), (ply, ply + 1)),
                    other => panic!("a stale move was not refused: {other:?}"),
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }

    for (i, &game) in games.iter().enumerate() {
        let record = store.get_game(game).await.unwrap();
        let expected: Vec<String> = (0..MOVES).map(|p| format!("m{p}")).collect();
        assert_eq!(record.moves, expected, "game {i}");
        assert_eq!(record.version, MOVES);
    }
    // Every move's announcement, and none of the refused moves'.
    let bodies: Vec<String> = sqlx::query_scalar("SELECT body FROM outbox")
        .fetch_all(store.pool())
        .await
        .unwrap();
    assert_eq!(bodies.len(), GAMES * MOVES as usize);
    assert!(bodies.iter().all(|b| !b.contains("stale")));

    // Written together: fewer turns than moves, and every turn synced before it was
    // acknowledged.
    let (turns, synced) = store.write_turns_synced().await.unwrap();
    assert_eq!(turns, synced);
    let moves = (GAMES as u64) * (MOVES as u64) * 2;
    assert!(
        turns - turns_before < moves,
        "{} turns for {moves} moves: none were batched",
        turns - turns_before
    );
    eprintln!("{} write turns for {moves} moves", turns - turns_before);
}

/// A move that cannot be written (its announcement's key is taken) fails alone: the moves
/// written in the same batch are written, and nothing of the failed one is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_that_cannot_be_written_fails_alone() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap();
    let keys = Arc::new(Keys::new(78));
    let mut games = Vec::new();
    for i in 0..GAMES {
        games.push(store.create_game(new_game(i)).await.unwrap().id);
    }
    // An entry already holds the key the bad move's announcement will bring.
    let bad = told(&keys, "the bad move".into());
    store.post(&bad.tell.envelopes, None, 1).await.unwrap();

    let barrier = Arc::new(tokio::sync::Barrier::new(GAMES));
    let mut tasks = Vec::new();
    for (i, &game) in games.iter().enumerate() {
        let (store, barrier) = (store.clone(), barrier.clone());
        let update = if i == 3 {
            bad.clone()
        } else {
            told(&keys, format!("game {i}"))
        };
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store.append_move(game, 0, "e2e4", &update, 10).await
        }));
    }
    for (i, task) in tasks.into_iter().enumerate() {
        let result = task.await.unwrap();
        let record = store.get_game(games[i]).await.unwrap();
        if i == 3 {
            assert!(matches!(result, Err(StoreError::Backend(_))), "{result:?}");
            assert!(record.moves.is_empty(), "nothing of it was written");
        } else {
            assert_eq!(result.unwrap(), 1, "game {i}");
            assert_eq!(record.moves, vec!["e2e4".to_string()]);
        }
    }
    let entries: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outbox")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(
        entries, GAMES as i64,
        "the fifteen moves' and the one posted before"
    );
}

/// Set (to the database's path) only in the child of the kill test.
const KILL_CHILD_ENV: &str = "FAIRYBOT_BATCH_KILL_CHILD";

/// The kill test's child: every game plays on at once (so moves are written in batches),
/// and each move is printed (`ACK game ply`) as soon as `append_move` returned, where the
/// service would acknowledge it; a ticker prints the write turns taken (`TURNS n`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_kill_child() {
    let Ok(path) = std::env::var(KILL_CHILD_ENV) else {
        return;
    };
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    let keys = Arc::new(Keys::new(std::process::id().into()));
    let ticker = {
        let store = store.clone();
        tokio::spawn(async move {
            loop {
                let (turns, _) = store.write_turns_synced().await.unwrap();
                println!("TURNS {turns}");
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        })
    };
    let mut tasks = Vec::new();
    for i in 0..GAMES {
        let (store, keys) = (store.clone(), keys.clone());
        tasks.push(tokio::spawn(async move {
            let game = bot_core::model::GameId(i as i64 + 1);
            for ply in 0.. {
                let update = told(&keys, format!("game {i} move {ply}"));
                store
                    .append_move(game, ply, &format!("m{ply}"), &update, 10 + ply)
                    .await
                    .unwrap();
                println!("ACK {i} {ply}");
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    ticker.abort();
}

/// SIGKILL while many games' moves are being written in shared transactions: after the
/// restart every acknowledged move is there, each game's moves are whole and in order, and
/// each stored move has its announcement exactly once, and no other move has one (a batch is
/// all or nothing, and a move and its announcement are one write).
#[test]
fn a_kill_in_the_middle_of_batched_moves_keeps_each_move_with_its_announcement() {
    use std::io::BufRead;
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = SqlStore::open_sqlite(&path).await.unwrap();
        for i in 0..GAMES {
            let id = store.create_game(new_game(i)).await.unwrap().id;
            assert_eq!(id.0, i as i64 + 1);
        }
        store.close().await;
    });
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "batch_kill_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(KILL_CHILD_ENV, path.display().to_string())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut acked = [-1_i64; GAMES];
    let (mut acks, mut turns_at_kill, mut killed) = (0, 0, false);
    let mut turns = 0;
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some((_, rest)) = line.split_once("ACK ") {
            let (i, ply) = rest.split_once(' ').unwrap();
            acked[i.parse::<usize>().unwrap()] = ply.trim().parse().unwrap();
            acks += 1;
        } else if let Some((_, n)) = line.split_once("TURNS ") {
            turns = n.trim().parse().unwrap();
        }
        if acks >= 400 && !killed {
            child.kill().unwrap();
            (killed, turns_at_kill) = (true, turns);
        }
    }
    child.wait().unwrap();
    assert!(killed, "the child stopped by itself");
    assert!(
        turns_at_kill < 400,
        "{turns_at_kill} write turns for 400 moves: none were written together"
    );
    rt.block_on(async {
        let store = SqlStore::open_sqlite(&path).await.unwrap();
        let bodies: Vec<String> = sqlx::query_scalar("SELECT body FROM outbox")
            .fetch_all(store.pool())
            .await
            .unwrap();
        for (i, &last) in acked.iter().enumerate() {
            let record = store.get_game(bot_core::model::GameId(i as i64 + 1)).await.unwrap();
            let stored = record.moves.len() as i64;
            assert!(stored > last, "game {i}: acknowledged ply {last}, {stored} stored");
            let expected: Vec<String> = (0..stored).map(|p| format!("m{p}")).collect();
            assert_eq!(record.moves, expected, "game {i}");
            assert_eq!(record.version, stored);
            for ply in 0..stored + 1 {
                let text = format!("\"game {i} move {ply}\"");
                let n = bodies.iter().filter(|b| b.contains(&text)).count();
                let want = usize::from(ply < stored);
                assert_eq!(n, want, "game {i} ply {ply}: {n} announcements");
            }
        }
        eprintln!(
            "{acks} moves acknowledged in {turns_at_kill} write turns before the kill; {} announcements after",
            bodies.len()
        );
    });
}
