//! Delivery reports on SQLite (issue 27's benchmark). A reply the platform took under its
//! entry's key ([`Settled::DeliveredUnderKey`]) is queued and written by the next write that
//! takes the write gate (a move of any game), or on its own shortly after when none comes, or
//! before anything reads the outbox, or when the store closes; never lost by a write that
//! fails. One the platform would show again ([`Settled::Delivered`]) is written before
//! `settle` returns.

use std::time::{Duration, Instant};

use bot_core::{
    model::{GameUpdate, NewGame, Place, Platform, PlayerId},
    outbox::{Claim, Envelope, Key, Keys, Origin, Settled},
    reply::Reply,
    store::{GameStore, StoreError},
};
use bot_store::SqlStore;

const MS: i64 = 1_800_000_000_000;

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

/// Posts one reply claimed by this process, as a command's reply is; returns its key.
async fn posted(store: &SqlStore, keys: &Keys, text: &str) -> Key {
    let envelope = Envelope {
        key: keys.next(),
        place: Place::room(Platform::Console, "local"),
        origin: Origin::Unasked,
        reply: Reply::room(text),
        part: 0,
    };
    let claim = Claim {
        owner: "here".into(),
        until_ms: MS + 120_000,
    };
    store
        .post(std::slice::from_ref(&envelope), Some(&claim), MS)
        .await
        .unwrap();
    envelope.key
}

/// The entry's state and settling time, read straight from the table (no port method, since
/// those write the queue first).
async fn row(store: &SqlStore, key: &Key) -> (String, Option<i64>) {
    let row: (String, Option<i64>) =
        sqlx::query_as("SELECT state, settled_ms FROM outbox WHERE entry_key = $1")
            .bind(key.as_str())
            .fetch_one(store.pool())
            .await
            .unwrap();
    row
}

/// A store on disk whose queued reports are never written on their own during a test.
async fn patient_store(dir: &tempfile::TempDir) -> SqlStore {
    SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap()
        .with_delivery_flush_after(Duration::from_secs(3600))
}

/// A report is written before `settle` returns, whatever the flush delay: a process killed
/// right after reporting a reply must not send it again (a Discord interaction's followup has no
/// key Discord would recognise), and a move after it finds nothing left to carry.
#[tokio::test]
async fn a_report_is_written_before_settle_returns() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = patient_store(&dir).await;
    let keys = Keys::new(11);
    let game = store.create_game(new_game()).await.unwrap();
    let (a, b) = (
        posted(&store, &keys, "a").await,
        posted(&store, &keys, "b").await,
    );
    store.settle(&a, &Settled::Delivered, MS + 5).await.unwrap();
    assert_eq!(store.delivery_reports_queued(), 0);
    assert_eq!(row(&store, &a).await, ("delivered".into(), Some(MS + 5)));
    store.settle(&b, &Settled::Delivered, MS + 7).await.unwrap();
    assert_eq!(
        row(&store, &b).await,
        ("delivered".into(), Some(MS + 7)),
        "each at the time it was reported"
    );
    store
        .append_move(game.id, 0, "e2e4", &GameUpdate::active(), 2)
        .await
        .unwrap();
    assert_eq!(store.delivery_reports_queued(), 0);
}

/// Under its key, a report waits for the next write: a move of any game carries it, at the
/// time it was made, in the move's own transaction.
#[tokio::test]
async fn a_report_under_the_key_rides_on_the_next_move() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = patient_store(&dir).await;
    let keys = Keys::new(16);
    let game = store.create_game(new_game()).await.unwrap();
    let a = posted(&store, &keys, "a").await;
    store
        .settle(&a, &Settled::DeliveredUnderKey, MS + 3)
        .await
        .unwrap();
    assert_eq!(store.delivery_reports_queued(), 1);
    assert_eq!(
        row(&store, &a).await,
        ("waiting".into(), None),
        "not written yet"
    );
    store
        .append_move(game.id, 0, "e2e4", &GameUpdate::active(), 2)
        .await
        .unwrap();
    assert_eq!(store.delivery_reports_queued(), 0);
    assert_eq!(row(&store, &a).await, ("delivered".into(), Some(MS + 3)));
}

#[tokio::test]
async fn a_report_with_no_move_after_it_is_written_on_its_own_soon() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap();
    let keys = Keys::new(12);
    let a = posted(&store, &keys, "a").await;
    store
        .settle(&a, &Settled::DeliveredUnderKey, MS)
        .await
        .unwrap();
    let start = Instant::now();
    while row(&store, &a).await.0 != "delivered" {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the report was never written"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(store.delivery_reports_queued(), 0);
}

#[tokio::test]
async fn reading_or_settling_the_outbox_writes_the_queue_first() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = patient_store(&dir).await;
    let keys = Keys::new(13);
    let (a, b) = (
        posted(&store, &keys, "a").await,
        posted(&store, &keys, "b").await,
    );
    store
        .settle(&a, &Settled::DeliveredUnderKey, MS)
        .await
        .unwrap();
    assert_eq!(store.backlog().await.unwrap().waiting, 1, "only b waits");
    assert_eq!(row(&store, &a).await.0, "delivered");

    // A report then a failure for the same entry: the report came first and wins.
    store
        .settle(&b, &Settled::DeliveredUnderKey, MS)
        .await
        .unwrap();
    store
        .settle(&b, &Settled::GaveUp("room gone".into()), MS)
        .await
        .unwrap();
    assert_eq!(row(&store, &b).await.0, "delivered");

    // A sender's claim never sees an entry whose report waits, even once its claim ran out.
    let c = posted(&store, &keys, "c").await;
    store
        .settle(&c, &Settled::DeliveredUnderKey, MS)
        .await
        .unwrap();
    let claim = Claim {
        owner: "other".into(),
        until_ms: MS + 999_999,
    };
    let due = store
        .claim_due(Platform::Console, &claim, MS + 500_000, 10)
        .await
        .unwrap();
    assert!(due.is_empty(), "{due:?}");
}

#[tokio::test]
async fn queued_reports_are_written_when_the_store_closes() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = patient_store(&dir).await;
    let keys = Keys::new(14);
    let a = posted(&store, &keys, "a").await;
    store
        .settle(&a, &Settled::DeliveredUnderKey, MS)
        .await
        .unwrap();
    store.close().await;
    let again = SqlStore::open_sqlite(dir.path().join("games.db"))
        .await
        .unwrap();
    assert_eq!(row(&again, &a).await.0, "delivered");
    assert_eq!(again.backlog().await.unwrap().waiting, 0);
}

#[tokio::test]
async fn an_unknown_key_is_refused_at_once_and_queues_nothing() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = patient_store(&dir).await;
    let unknown = Keys::new(15).next();
    assert!(matches!(
        store.settle(&unknown, &Settled::Delivered, MS).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.delivery_reports_queued(), 0);
}
