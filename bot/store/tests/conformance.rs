//! The core's store conformance suite on every SQL backend.

mod common;

use bot_core::store::conformance::run_all;
use bot_store::SqlStore;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_in_memory_passes_the_conformance_suite() {
    run_all(|| async { SqlStore::connect("sqlite::memory:").await.unwrap() }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_file_passes_the_conformance_suite() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut n = 0;
    let opened = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    run_all(|| {
        n += 1;
        let path = dir.path().join(format!("check{n}/games.db"));
        let opened = opened.clone();
        async move {
            let store = SqlStore::open_sqlite(&path).await.unwrap();
            opened.lock().unwrap().push(store.clone());
            store
        }
    })
    .await;
    // Group commit: every write the suite made, through every method, was synced to disk
    // before it returned.
    let stores = opened.lock().unwrap().clone();
    let mut turns = 0;
    for store in stores {
        let (taken, synced) = store.write_turns_synced().await.expect("a file store");
        assert_eq!(taken, synced, "a write returned before its fsync");
        turns += taken;
    }
    assert!(turns > 100, "the suite writes ({turns} turns)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_passes_the_conformance_suite() {
    let Some(url) = common::postgres_url("postgres_passes_the_conformance_suite") else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    // Run in a task so the schemas are dropped even when a check panics.
    let outcome = {
        let schemas = std::sync::Arc::new(schemas);
        let inner = schemas.clone();
        let result = tokio::spawn(async move { run_all(|| inner.store()).await }).await;
        schemas.drop_all().await;
        result
    };
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
}
