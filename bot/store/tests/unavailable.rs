//! Issue 27: while the database cannot be reached, a command is answered within a few
//! seconds, with an error the service can tell the player about ("the game store is
//! unavailable"), not after a 30-second wait with a generic backend failure.

use std::time::{Duration, Instant};

use bot_core::{
    model::GameId,
    store::{GameStore, StoreError},
};
use bot_store::SqlStore;

#[tokio::test]
async fn a_store_whose_connections_are_all_taken_says_unavailable_within_seconds() {
    // In memory: one connection, held here, as a database that stopped answering would.
    let store = SqlStore::connect("sqlite::memory:").await.unwrap();
    let _held = store.pool().acquire().await.unwrap();
    let t = Instant::now();
    let got = store.get_game(GameId(1)).await;
    let took = t.elapsed();
    assert!(
        matches!(got, Err(StoreError::Unavailable(_))),
        "{got:?} after {took:?}"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
}
