//! The outbox shared by several bot processes on one PostgreSQL database (issue 27): 1,000
//! moves are played while two sender processes (this test binary started twice as a child)
//! deliver their announcements; one sender is killed with SIGKILL midway. Every entry is
//! delivered, by exactly one process except the few the killed one had sent and not yet
//! recorded, which the survivor sends again with the same key (what a platform with
//! idempotency keys, Matrix transaction ids and Discord nonces, shows once).

mod common;

use std::{sync::Arc, time::Duration};

use bot_core::{
    Actor, GameService, SystemClock,
    model::{Place, Platform, PlayerId},
    outbox::{self, Attempt},
    store::GameStore,
};
use bot_store::SqlStore;
use sqlx::Row;

/// Makes this test binary a child sender process: the database URL.
const CHILD_ENV: &str = "FAIRYBOT_OUTBOX_CHILD_URL";
/// The child's instance name.
const NAME_ENV: &str = "FAIRYBOT_OUTBOX_CHILD_NAME";

const MOVES: usize = 1_000;
const TABLES: usize = 10;

fn actor(name: &str) -> Actor {
    Actor::new(
        PlayerId::new(Platform::Matrix, format!("@{name}:example.org")),
        name,
    )
}

/// Plays `MOVES` moves over `TABLES` hot-seat chess games (a new game when one ends), each
/// move's reply posted claimed by a service that never reports it, with a claim so short that
/// the senders take it at once.
async fn play(store: SqlStore) {
    let svc = Arc::new(
        GameService::new(store, SystemClock, Arc::new(rules::Catalog::builtin()))
            .with_instance("players")
            .with_lease(Duration::from_millis(1)),
    );
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut played = 0;
    while played < MOVES {
        for t in 0..TABLES {
            let place = Place::room(Platform::Matrix, format!("!table{t}:example.org"));
            let (w, b) = (actor(&format!("w{t}")), actor(&format!("b{t}")));
            let game = match svc.current_game(&w, &place, None).await {
                Some(g) => g,
                None => {
                    svc.handle_text(&w, &place, &format!("challenge {} chess", b.id.user))
                        .await;
                    svc.handle_text(&b, &place, "accept").await;
                    continue;
                }
            };
            let who = if game.my_turn { &w } else { &b };
            let moves = game.position.legal_moves();
            if moves.is_empty() || game.position.outcome().is_some() {
                svc.handle_text(&w, &place, "resign").await;
                continue;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mv = rules::notation::coord(&game.position, moves[(rng as usize) % moves.len()]);
            let r = svc.handle_text(who, &place, &mv).await;
            assert!(r.iter().any(|r| r.key.is_some()), "{:?}", r[0].text);
            played += 1;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_sender_processes_deliver_a_thousand_moves_once_with_one_killed() {
    let Some(url) = common::postgres_url(
        "postgres_two_sender_processes_deliver_a_thousand_moves_once_with_one_killed",
    ) else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    let (_, url) = schemas.empty().await;
    let result = tokio::spawn(async move {
        let store = SqlStore::connect(&url).await.unwrap();
        // The platform: every send is a row, with the sender's name.
        for sql in [
            "CREATE TABLE platform_log (entry_key TEXT NOT NULL, sender TEXT NOT NULL)",
            "CREATE TABLE test_done (done BIGINT NOT NULL)",
        ] {
            sqlx::query(sql).execute(store.pool()).await.unwrap();
        }
        let exe = std::env::current_exe().unwrap();
        let spawn = |name: &str| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "child_sender_process",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, &url)
                .env(NAME_ENV, name)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        let mut doomed = spawn("a");
        let survivor = spawn("b");
        let players = tokio::spawn(play(store.clone()));
        // Midway: once the doomed sender has sent a few hundred, SIGKILL.
        loop {
            let sent: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM platform_log WHERE sender = 'a'")
                    .fetch_one(store.pool())
                    .await
                    .unwrap();
            if sent >= 150 {
                break;
            }
            assert!(
                doomed.try_wait().unwrap().is_none(),
                "the first sender ended early"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        doomed.kill().unwrap();
        doomed.wait().unwrap();
        players.await.unwrap();
        sqlx::query("INSERT INTO test_done (done) VALUES (1)")
            .execute(store.pool())
            .await
            .unwrap();
        let out = tokio::task::spawn_blocking(move || survivor.wait_with_output())
            .await
            .unwrap()
            .unwrap();
        assert!(out.status.success(), "the surviving sender failed");

        assert_eq!(store.backlog().await.unwrap().waiting, 0, "all delivered");
        let entries: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outbox")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert!(entries as usize >= MOVES, "{entries} entries");
        let missing: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM outbox o WHERE NOT EXISTS \
             (SELECT 1 FROM platform_log l WHERE l.entry_key = o.entry_key)",
        )
        .fetch_one(store.pool())
        .await
        .unwrap();
        assert_eq!(missing, 0, "an entry never reached the platform");
        let twice = sqlx::query(
            "SELECT entry_key, COUNT(*) AS n, MIN(sender) AS first, MAX(sender) AS last \
             FROM platform_log GROUP BY entry_key HAVING COUNT(*) > 1",
        )
        .fetch_all(store.pool())
        .await
        .unwrap();
        for row in &twice {
            let (n, first, last): (i64, String, String) =
                (row.get("n"), row.get("first"), row.get("last"));
            assert_eq!(
                (n, first.as_str(), last.as_str()),
                (2, "a", "b"),
                "sent twice other than by the killed sender then the survivor"
            );
        }
        println!(
            "{entries} entries, all delivered; {} sent again after the kill (same key)",
            twice.len()
        );
        assert!(
            twice.len() <= 16,
            "more sent twice ({}) than one claimed batch of the killed sender",
            twice.len()
        );
        store.close().await;
    })
    .await;
    schemas.drop_all().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// Not a check of its own: the child half of the test above, started with [`CHILD_ENV`].
/// A sender of Matrix entries that records each send in `platform_log`, until the players
/// are done and nothing waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_sender_process() {
    let Ok(url) = std::env::var(CHILD_ENV) else {
        return;
    };
    let name = std::env::var(NAME_ENV).unwrap();
    let store = SqlStore::connect(&url).await.unwrap();
    let svc = Arc::new(
        GameService::new(
            store.clone(),
            SystemClock,
            Arc::new(rules::Catalog::builtin()),
        )
        .with_instance(name.clone())
        .with_lease(Duration::from_secs(2)),
    );
    let sender = {
        let (svc, store, name) = (svc.clone(), store.clone(), name.clone());
        async move {
            outbox::run_sender(&*svc, Platform::Matrix, |entry| {
                let (store, name) = (store.clone(), name.clone());
                async move {
                    sqlx::query("INSERT INTO platform_log (entry_key, sender) VALUES ($1, $2)")
                        .bind(entry.envelope.key.as_str().to_owned())
                        .bind(name)
                        .execute(store.pool())
                        .await
                        .unwrap();
                    Attempt::Delivered
                }
            })
            .await;
        }
    };
    let finished = async {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let done: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM test_done")
                .fetch_one(store.pool())
                .await
                .unwrap();
            if done > 0 && store.backlog().await.unwrap().waiting == 0 {
                break;
            }
        }
    };
    tokio::select! {
        () = sender => {}
        () = finished => {}
    }
    store.close().await;
}
