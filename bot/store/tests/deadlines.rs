//! Deadlines fired by several schedulers over one database (issue 16): 1,000 games whose
//! clocks ran out at the same moment, two services on two connection pools (and, on
//! PostgreSQL, two operating-system processes), and each game ends on time exactly once,
//! announced exactly once.

mod common;

use std::{collections::BTreeSet, sync::Arc};

use bot_core::{
    Clock, GameService,
    model::{EndReason, GameId, GameStatus, NewGame, Place, Platform, PlayerId},
    outbox::Announcements,
    reply::Audience,
    store::{GameFilter, GameStore},
    time_control::TimeControl,
};
use bot_store::SqlStore;

/// When every deadline falls, and when the schedulers look.
const DEADLINE: i64 = 1_900_000_000_000;

/// The environment variable that makes this test binary a child scheduler process.
const CHILD_ENV: &str = "FAIRYBOT_DEADLINE_CHILD_URL";

/// A clock standing at the moment every deadline has come.
struct AtDeadline;

impl Clock for AtDeadline {
    fn now_ms(&self) -> i64 {
        DEADLINE
    }
}

/// `n` two-player chess games with a 1+0 clock that ran out at [`DEADLINE`], White to move.
async fn seed(store: &SqlStore, n: usize) -> BTreeSet<GameId> {
    let control = TimeControl::parse("1+0").unwrap();
    let mut tasks = Vec::new();
    // A few writers at once: seeding is not what is measured.
    for chunk in 0..4 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in (chunk..n).step_by(4) {
                let game = store
                    .create_game(NewGame {
                        variant: "chess".into(),
                        options: format!("colour=first clock={control}"),
                        start_state: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
                            .into(),
                        seats: vec![
                            PlayerId::new(Platform::Discord, format!("{i}1")),
                            PlayerId::new(Platform::Discord, format!("{i}2")),
                        ],
                        place: Place::room(Platform::Discord, format!("{}", 1000 + i)),
                        rating_family: None,
                        clock: control.start(2, DEADLINE - 60_000),
                        created_at: DEADLINE / 1000 - 60,
                    })
                    .await
                    .unwrap();
                ids.push(game.id);
            }
            ids
        }));
    }
    let mut all = BTreeSet::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    assert_eq!(all.len(), n);
    all
}

/// One scheduler: passes until nothing is due any more (its announcements are in the
/// store's outbox, which every process shares).
async fn schedule(store: SqlStore) {
    let service = GameService::new(
        store.clone(),
        AtDeadline,
        Arc::new(rules::Catalog::builtin()),
    );
    loop {
        service.fire_due(DEADLINE).await.unwrap();
        if store.due_games(DEADLINE, 1).await.unwrap().is_empty() {
            break;
        }
    }
}

/// The games whose flag the outbox announced, read from the room message "Game N: ...",
/// once every scheduler is done: each entry as a sender takes it, once.
async fn announced(store: &SqlStore) -> Vec<GameId> {
    let service = Arc::new(GameService::new(
        store.clone(),
        AtDeadline,
        Arc::new(rules::Catalog::builtin()),
    ));
    let mut news = Announcements::new(service, &[]);
    let mut all = Vec::new();
    while let Some(a) = news.try_next().await {
        all.extend(
            a.replies
                .into_iter()
                .filter(|r| r.audience == Audience::Room),
        );
    }
    all.into_iter()
        .map(|r| {
            let text = &r.text;
            assert!(text.contains("ran out of time"), "{text}");
            let id = text
                .strip_prefix("Game ")
                .and_then(|t| t.split(':').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no game number in {text}"));
            GameId(id)
        })
        .collect()
}

/// Every game is finished on time by one write (version 1), announced once in all.
async fn check_exactly_once(store: &SqlStore, seeded: &BTreeSet<GameId>, announced: Vec<GameId>) {
    let mut seen = BTreeSet::new();
    for id in &announced {
        assert!(seen.insert(*id), "game {id} was announced twice");
    }
    assert_eq!(&seen, seeded, "every game announced");
    let games = store.list_games(&GameFilter::default()).await.unwrap();
    assert_eq!(games.len(), seeded.len());
    for g in games {
        assert!(
            matches!(
                g.status,
                GameStatus::Finished {
                    reason: EndReason::Timeout,
                    ..
                }
            ),
            "game {} is {:?}",
            g.id,
            g.status
        );
        assert_eq!(g.version, 1, "game {} was written more than once", g.id);
    }
}

/// Two services on two pools over one database: the deployment of two bot processes.
async fn two_pools(url: &str, n: usize) {
    let first = SqlStore::connect(url).await.unwrap();
    let seeded = seed(&first, n).await;
    let second = SqlStore::connect(url).await.unwrap();
    let (a, b) = tokio::join!(
        tokio::spawn(schedule(first.clone())),
        tokio::spawn(schedule(second.clone()))
    );
    a.unwrap();
    b.unwrap();
    check_exactly_once(&first, &seeded, announced(&first).await).await;
    first.close().await;
    second.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_schedulers_fire_a_thousand_deadlines_once_each() {
    let Some(url) =
        common::postgres_url("postgres_two_schedulers_fire_a_thousand_deadlines_once_each")
    else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    let (_, url) = schemas.empty().await;
    let result = tokio::spawn(async move { two_pools(&url, 1_000).await }).await;
    schemas.drop_all().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_two_schedulers_on_one_file_fire_each_deadline_once() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    // Created (and migrated) once, then opened by URL like any deployment's processes.
    SqlStore::open_sqlite(&path).await.unwrap().close().await;
    two_pools(&format!("sqlite:{}", path.display()), 300).await;
}

/// Two operating-system processes (this test binary, started twice as a child scheduler)
/// over one PostgreSQL schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_processes_fire_a_thousand_deadlines_once_each() {
    let Some(url) =
        common::postgres_url("postgres_two_processes_fire_a_thousand_deadlines_once_each")
    else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    let (_, url) = schemas.empty().await;
    let result = tokio::spawn(async move {
        let store = SqlStore::connect(&url).await.unwrap();
        let seeded = seed(&store, 1_000).await;
        let exe = std::env::current_exe().unwrap();
        let children: Vec<_> = (0..2)
            .map(|_| {
                std::process::Command::new(&exe)
                    .args(["--exact", "child_scheduler_process", "--nocapture"])
                    .env(CHILD_ENV, &url)
                    .stdout(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            // Both children were started before either is waited for.
            let out = tokio::task::spawn_blocking(move || child.wait_with_output())
                .await
                .unwrap()
                .unwrap();
            assert!(out.status.success(), "a child scheduler failed");
        }
        check_exactly_once(&store, &seeded, announced(&store).await).await;
        store.close().await;
    })
    .await;
    schemas.drop_all().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// Not a check of its own: the child half of
/// `postgres_two_processes_fire_a_thousand_deadlines_once_each`, which starts this binary
/// with [`CHILD_ENV`] set. Without it (an ordinary test run) there is nothing to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_scheduler_process() {
    let Ok(url) = std::env::var(CHILD_ENV) else {
        return;
    };
    let store = SqlStore::connect(&url).await.unwrap();
    schedule(store.clone()).await;
    store.close().await;
}
