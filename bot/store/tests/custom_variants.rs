//! Players' variants (bot_core::custom) on every SQL backend: the core's conformance suite,
//! and a definition that outlives its library entry across a reopen (a finished game replays).

mod common;

use bot_core::custom::{
    Definition, Library, MemoryVariants, Quotas, Scope, VariantStore, conformance,
};
use bot_store::SqlStore;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_in_memory_passes_the_variant_conformance_suite() {
    conformance::run(&SqlStore::connect("sqlite::memory:").await.unwrap()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_passes_the_variant_conformance_suite() {
    let Some(url) = common::postgres_url("postgres_passes_the_variant_conformance_suite") else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    let schemas = std::sync::Arc::new(schemas);
    let inner = schemas.clone();
    let result = tokio::spawn(async move { conformance::run(&inner.store().await).await }).await;
    schemas.drop_all().await;
    if let Err(e) = result {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// A long deadline: this checks storage, not time (rules/benches/validate.rs measures that).
fn relaxed() -> rules::validate::Limits {
    rules::validate::Limits {
        time: std::time::Duration::from_secs(10),
        ..rules::validate::Limits::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_variant_still_replays_after_a_reopen() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    let scope = Scope("discord:42".into());
    let hash = {
        let lib = Library::with(
            SqlStore::open_sqlite(&path).await.unwrap(),
            Quotas::default(),
            relaxed(),
        );
        let added = lib
            .add(
                &scope,
                "alice",
                Some("v.ini"),
                "[centaur-king:chess]\nking = k:KN\n",
                1,
            )
            .await
            .unwrap();
        lib.remove(&scope, "centaur-king", "alice", false)
            .await
            .unwrap();
        added.entry.hash
    };
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    assert!(store.list_variants(&scope).await.unwrap().is_empty());
    let def: Definition = store.get_definition(&hash).await.unwrap().unwrap();
    assert_eq!(
        Definition::of(def.toml.clone()).hash,
        hash,
        "stored under its own hash"
    );
    let v = Library::new(store).by_hash(&hash).await.unwrap();
    assert_eq!(rules::Position::start(&v).legal_moves().len(), 22);
    // The memory store agrees on the hash of the same upload.
    let mem = Library::with(MemoryVariants::default(), Quotas::default(), relaxed());
    let again = mem
        .add(
            &scope,
            "bob",
            None,
            "[centaur-king:chess]\nking = k:KN\n",
            2,
        )
        .await
        .unwrap();
    assert_eq!(again.entry.hash, hash);
}
