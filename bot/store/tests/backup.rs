//! A backup of a live SQLite store is consistent and complete: taken while moves are being
//! written, it opens as a store of its own with every game committed before it, each whole.

use bot_core::{
    model::{GameUpdate, NewGame, Place, Platform, PlayerId},
    store::GameStore,
};
use bot_store::{BackupError, SqlStore};

fn new_game(n: i64) -> NewGame {
    NewGame {
        variant: "chess".into(),
        options: String::new(),
        start_state: "startpos".into(),
        seats: vec![
            PlayerId::new(Platform::Console, "alice"),
            PlayerId::new(Platform::Console, "bob"),
        ],
        place: Place::room(Platform::Console, "local"),
        rating_family: None,
        clock: None,
        created_at: n,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_moves_are_written_opens_whole() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = SqlStore::open_sqlite(dir.path().join("fairybot.db"))
        .await
        .unwrap();
    let mut games = Vec::new();
    for n in 0..20 {
        let g = store.create_game(new_game(n)).await.unwrap();
        games.push((g.id, g.version));
    }
    // A writer plays moves in every game while the backup is taken.
    let writer = {
        let store = store.clone();
        let mut games = games.clone();
        tokio::spawn(async move {
            for round in 0..10i64 {
                for (g, version) in &mut games {
                    let mv = if round % 2 == 0 { "g1f3" } else { "g8f6" };
                    *version = store
                        .append_move(*g, *version, mv, &GameUpdate::active(), round)
                        .await
                        .unwrap();
                }
            }
        })
    };
    tokio::task::yield_now().await;
    let dest = dir.path().join("backup.db");
    let size = store.backup_to(&dest).await.unwrap();
    assert!(size > 0);
    writer.await.unwrap();

    let copy = SqlStore::open_sqlite(&dest).await.unwrap();
    let mut lengths = Vec::new();
    for &(g, _) in &games {
        lengths.push(copy.get_game(g).await.unwrap().moves.len());
    }
    // One read transaction: games are in play order, so a later game never has more moves
    // than an earlier one, and none has more than a full round more than another.
    assert!(lengths.windows(2).all(|w| w[0] >= w[1]), "{lengths:?}");
    assert!(lengths[0] - lengths[lengths.len() - 1] <= 1, "{lengths:?}");

    // A backup never overwrites.
    let again = store.backup_to(&dest).await;
    assert!(matches!(again, Err(BackupError::Exists(_))), "{again:?}");
    let msg = again.unwrap_err().to_string();
    assert!(msg.contains("name a new file"), "{msg}");
}
