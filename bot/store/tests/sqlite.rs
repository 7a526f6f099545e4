//! SQLite specifics: the durability settings, files and directories, reopening.

use bot_core::{
    model::{GameUpdate, NewGame, Place, Platform, PlayerId},
    store::{GameStore, StoreError},
};
use bot_store::{Backend, OpenError, SqlStore};

fn new_game() -> NewGame {
    NewGame {
        variant: "chess".into(),
        options: String::new(),
        start_state: "startpos".into(),
        seats: vec![
            PlayerId::new(Platform::Console, "white"),
            PlayerId::new(Platform::Console, "black"),
        ],
        place: Place::room(Platform::Console, "local"),
        rating_family: None,
        clock: None,
        created_at: 1,
    }
}

#[tokio::test]
async fn file_store_uses_wal_group_commit_and_a_busy_timeout_on_every_connection() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap();
    assert_eq!(store.backend(), Backend::Sqlite);
    // Hold several connections at once so the check covers more than the first one.
    let mut conns = Vec::new();
    for _ in 0..3 {
        conns.push(store.pool().acquire().await.unwrap());
    }
    for conn in &mut conns {
        let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
            .fetch_one(&mut **conn)
            .await
            .unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&mut **conn)
            .await
            .unwrap();
        // NORMAL: the store syncs the log itself after each write (group commit).
        assert_eq!(sync, 1, "synchronous=NORMAL");
        let timeout: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
            .fetch_one(&mut **conn)
            .await
            .unwrap();
        assert_eq!(timeout, 5000);
        let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
            .fetch_one(&mut **conn)
            .await
            .unwrap();
        assert_eq!(fk, 1);
        let pages: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&mut **conn)
            .await
            .unwrap();
        // Above what the store's own checkpoints let the log grow to (see `configure_sqlite`).
        assert_eq!(pages, 2000);
    }
}

#[tokio::test]
async fn data_directory_is_created_and_awkward_paths_work() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("data dir/50% #1?/fairybot é.db");
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    store.create_game(new_game()).await.unwrap();
    store.close().await;
    assert!(path.is_file(), "the database is exactly at {path:?}");
}

#[tokio::test]
async fn reopening_keeps_everything_and_migrations_are_idempotent() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    let game = store.create_game(new_game()).await.unwrap();
    let v = store
        .append_move(game.id, 0, "e2e4", &GameUpdate::active(), 2)
        .await
        .unwrap();
    store.close().await;
    drop(store);

    let store = SqlStore::open_sqlite(&path).await.unwrap();
    let again = store.get_game(game.id).await.unwrap();
    assert_eq!(again.moves, vec!["e2e4"]);
    assert_eq!(again.version, v);
    // A plain `sqlite:` URL to the same file works too.
    let url = format!("sqlite:{}", path.display());
    let by_url = SqlStore::connect(&url).await.unwrap();
    assert_eq!(by_url.get_game(game.id).await.unwrap(), again);
}

#[tokio::test]
async fn unsupported_urls_are_refused_without_echoing_secrets() {
    let err = SqlStore::connect("mysql://root:hunter2@localhost/db")
        .await
        .unwrap_err();
    assert!(matches!(&err, OpenError::UnsupportedUrl(s) if s == "mysql"));
    assert!(!err.to_string().contains("hunter2"));
}

#[tokio::test]
async fn connection_errors_never_show_the_database_password() {
    // Nothing listens on port 1: the connection is refused at once. The password is written
    // raw, percent-encoded, and as a query parameter.
    for (url, secrets) in [
        ("postgres://fb:hunter2@127.0.0.1:1/games", &["hunter2"][..]),
        (
            "postgres://fb:s%40cret%3Aword@127.0.0.1:1/games?connect_timeout=2",
            &["s%40cret%3Aword", "s@cret:word"][..],
        ),
        (
            "postgresql://fb@127.0.0.1:1/games?password=opensesame",
            &["opensesame"][..],
        ),
        // Not even a valid port: the driver's own parse error.
        (
            "postgres://fb:hunter2@127.0.0.1:port/games",
            &["hunter2"][..],
        ),
    ] {
        let err = SqlStore::connect(url).await.unwrap_err();
        let shown = [err.to_string(), format!("{err:?}"), {
            let mut chain = String::new();
            let mut e: Option<&dyn std::error::Error> = Some(&err);
            while let Some(x) = e {
                chain.push_str(&format!("{x} / {x:?}\n"));
                e = x.source();
            }
            chain
        }];
        for text in &shown {
            for s in secrets {
                assert!(!text.contains(s), "{s} shown in {text}");
            }
        }
        assert!(matches!(err, OpenError::Connect { .. }), "{err:?}");
        assert!(shown[0].contains("127.0.0.1"), "{}", shown[0]);
        assert!(shown[0].contains(bot_store::REDACTED), "{}", shown[0]);
    }
}

/// A move is one multi-statement round trip on SQLite (`BEGIN IMMEDIATE; UPDATE; INSERT;
/// COMMIT`). Abandoned at any point (the caller's future dropped, as a timeout does), it must
/// leave no transaction open on a pooled connection and no half-written move: afterwards the
/// game is at one version or the next, its moves agree with it, and the next move goes in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_move_leaves_no_open_transaction_and_no_half_move() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap();
    let game = store.create_game(new_game()).await.unwrap();
    let mut abandoned = 0;
    let active = GameUpdate::active();
    for round in 0..200u64 {
        let before = store.get_game(game.id).await.unwrap();
        let attempt =
            store.append_move(game.id, before.version, "e2e4", &active, 10 + round as i64);
        // Cut it off after 0-99 µs: sometimes before it reaches SQLite, sometimes inside.
        let cut = std::time::Duration::from_micros((round * 37) % 100);
        if tokio::time::timeout(cut, attempt).await.is_err() {
            abandoned += 1;
        }
        // Whatever happened, the store is consistent and takes the next move. (An abandoned
        // write may still land a moment later, as a write whose acknowledgement was lost
        // would: the next move then meets a version conflict and is tried again.)
        let mut tries = 0;
        loop {
            let now = store.get_game(game.id).await.unwrap();
            assert!(
                now.version == before.version || now.version == before.version + 1,
                "round {round}: version {} after {}",
                now.version,
                before.version
            );
            assert_eq!(
                now.moves.len() as i64,
                now.version,
                "round {round}: a move without its version, or the reverse"
            );
            match store
                .append_move(game.id, now.version, "e7e5", &active, 1_000)
                .await
            {
                Ok(_) => break,
                Err(StoreError::Conflict { .. }) if tries < 3 => tries += 1,
                Err(e) => panic!("round {round}: the next move failed: {e}"),
            }
        }
    }
    assert!(abandoned > 0, "no attempt was cut off");
    let (taken, synced) = store.write_turns_synced().await.unwrap();
    assert!(synced <= taken);
}

/// A game is read in one statement with its moves and seats aggregated (`codec::game`): a
/// gap in either, which would silently change the position replayed from the moves, is
/// reported as a corrupt store, never read as a shorter game.
#[tokio::test]
async fn a_gap_in_stored_moves_or_seats_is_corrupt_not_a_shorter_game() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap();
    let active = GameUpdate::active();
    let mut games = Vec::new();
    for _ in 0..2 {
        let game = store.create_game(new_game()).await.unwrap();
        let mut version = 0;
        for (i, mv) in ["e2e4", "e7e5", "g1f3"].into_iter().enumerate() {
            version = store
                .append_move(game.id, version, mv, &active, i as i64)
                .await
                .unwrap();
        }
        let read = store.get_game(game.id).await.unwrap();
        assert_eq!(read.moves, ["e2e4", "e7e5", "g1f3"]);
        assert_eq!(read.seats, new_game().seats);
        games.push(game.id);
    }
    let [moves_gap, seats_gap] = games[..] else {
        unreachable!()
    };
    for (sql, id) in [
        (
            "DELETE FROM moves WHERE game_id = $1 AND ply = 1",
            moves_gap,
        ),
        (
            "DELETE FROM seats WHERE game_id = $1 AND seat = 0",
            seats_gap,
        ),
    ] {
        sqlx::query(sql)
            .bind(id.0)
            .execute(store.pool())
            .await
            .unwrap();
        let err = store.get_game(id).await.unwrap_err();
        assert!(
            matches!(&err, StoreError::Corrupt(what) if what.contains(&format!("game {id}"))),
            "{err:?}"
        );
    }
    let listed = store
        .list_games(&bot_core::store::GameFilter::default())
        .await
        .unwrap_err();
    assert!(matches!(listed, StoreError::Corrupt(_)), "{listed:?}");
}
