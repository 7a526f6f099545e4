//! A Looking-Glass game on SQLite on disk survives a restart: the secret back ranks, every
//! order and every strike are in the stored record, and the worlds replay exactly.

use std::sync::Arc;

use bot_core::{
    Actor, GameService, SystemClock,
    model::{Place, Platform, PlayerId},
    reply::{Audience, Reply},
    store::{GameFilter, GameStore},
};
use bot_store::SqlStore;
use rules::{
    Catalog, Side,
    glass::{self, Glass, GlassRules},
};

fn actor(name: &str) -> Actor {
    Actor::new(PlayerId::new(Platform::Console, name), name)
}

async fn service(path: &std::path::Path) -> GameService<SqlStore, SystemClock> {
    GameService::new(
        SqlStore::open_sqlite(path).await.unwrap(),
        SystemClock,
        Arc::new(Catalog::builtin()),
    )
}

fn private_text(replies: &[Reply], who: &Actor) -> String {
    replies
        .iter()
        .filter(|r| r.audience == Audience::Private(who.id.clone()))
        .map(|r| r.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn a_looking_glass_game_survives_a_restart() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    let room = Place::room(Platform::Console, "table");
    let (white, black) = (actor("white"), actor("black"));
    let dm = |a: &Actor| Place::room(Platform::Console, format!("dm-{}", a.name));
    {
        let svc = service(&path).await;
        svc.handle_text(&white, &room, "challenge @black looking-glass")
            .await;
        svc.handle_text(&black, &room, "accept").await;
        svc.handle_text(&white, &dm(&white), "setup 0").await;
        svc.handle_text(&black, &dm(&black), "setup RNBQKBNR").await;
        svc.handle_text(&white, &dm(&white), "e2e4").await;
        // Black's blind order for the Real world: a strike, acknowledged and durable.
        let r = svc.handle_text(&black, &dm(&black), "R:a1a2").await;
        assert!(private_text(&r, &black).contains("strike 1 of 3"));
        svc.store().close().await;
    }
    let svc = service(&path).await;
    let game = svc
        .store()
        .list_games(&GameFilter::default())
        .await
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(
        game.moves,
        [
            "w setup BBQNNRKR",
            "b setup RNBQKBNR",
            "w R:e2e4",
            "b R:a1a2"
        ]
    );
    let replayed = Glass::replay(glass::variant(), GlassRules::default(), &game.moves).unwrap();
    assert_eq!(replayed.strikes(), [0, 1]);
    assert_eq!(
        replayed.turn(),
        Side::BLACK,
        "Black tries again after the strike"
    );
    // Play goes on after the restart, checked against the stored worlds.
    let r = svc.handle_text(&black, &dm(&black), "ask").await;
    assert!(private_text(&r, &black).contains("no"), "{r:?}");
    // On his own world an order for the opponent's piece is refused, without a strike.
    let r = svc.handle_text(&black, &dm(&black), "M:e4e3").await;
    assert!(
        private_text(&r, &black).contains("no piece of yours on M:e4"),
        "{r:?}"
    );
    let r = svc.handle_text(&black, &dm(&black), "d7d5").await;
    assert!(private_text(&r, &white).contains("R:d5") || private_text(&r, &white).contains("M:d5"));
    assert_eq!(svc.store().get_game(game.id).await.unwrap().moves.len(), 5);
}

/// Issue 18 item 5: a private report its platform could not deliver (closed DMs) is held in
/// the store, so it outlives a restart; shown once, to its player, with his own world drawn
/// as it is when he asks (never the other world).
#[tokio::test]
async fn a_report_held_for_its_player_survives_a_restart() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("games.db");
    let room = Place::room(Platform::Console, "table");
    let (white, black) = (actor("white"), actor("black"));
    let dm = |a: &Actor| Place::room(Platform::Console, format!("dm-{}", a.name));
    let report = {
        let svc = service(&path).await;
        svc.handle_text(&white, &room, "challenge @black looking-glass")
            .await;
        svc.handle_text(&black, &room, "accept").await;
        svc.handle_text(&white, &dm(&white), "setup 518").await;
        svc.handle_text(&black, &dm(&black), "setup 518").await;
        let replies = svc.handle_text(&white, &dm(&white), "e2e4").await;
        // What Black is told of White's order: the Pawn arriving in his world.
        let report = replies
            .into_iter()
            .find(|r| r.audience == Audience::Private(black.id.clone()))
            .expect("a report for Black");
        assert!(report.board.is_some(), "{report:?}");
        // Black's DMs are closed: the adapter holds it.
        svc.hold_undelivered(&report).await.unwrap();
        // A room reply is never held.
        assert!(svc.hold_undelivered(&Reply::room("x")).await.is_err());
        svc.store().close().await;
        report
    };
    let svc = service(&path).await;
    assert_eq!(svc.take_undelivered(&white.id).await, vec![], "not White's");
    let held = svc.take_undelivered(&black.id).await;
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0].text, report.text);
    assert_eq!(held[0].audience, Audience::Private(black.id.clone()));
    let board = held[0].board.as_ref().expect("his world, drawn anew");
    let own = svc.handle_text(&black, &dm(&black), "board").await;
    let own = own
        .iter()
        .find_map(|r| r.board.as_ref())
        .expect("Black's board");
    assert_eq!(board, own, "the held report shows Black's own world");
    assert_eq!(board.viewer, Some(1));
    assert!(
        svc.take_undelivered(&black.id).await.is_empty(),
        "shown once"
    );
}
