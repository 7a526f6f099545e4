//! `replay`: an animated picture of the game so far, through the outbox like a board; a
//! clear answer for a game with no moves, an unknown game, and a Looking-Glass game in play.

use std::sync::Arc;

use bot_core::{
    GameService,
    model::{Place, Platform},
    picture::Painter,
    reply::Audience,
    store::{GameFilter, GameStore, memory::MemoryStore},
};
use rules::Catalog;

mod common;
use common::*;

fn service() -> (MemoryStore, GameService<MemoryStore, TestClock>) {
    let store = MemoryStore::new();
    let svc = GameService::new(
        store.clone(),
        TestClock::default(),
        Arc::new(Catalog::builtin()),
    );
    (store, svc)
}

fn room() -> Place {
    Place::room(Platform::Matrix, "!room:example.org")
}

fn painter() -> Painter {
    Painter {
        catalog: Arc::new(Catalog::builtin()),
        renderer: Arc::new(render::Renderer::new()),
        theme: render::Theme::light(),
        size: 640,
    }
}

#[tokio::test]
async fn a_replay_is_a_room_reply_with_every_move_and_draws_within_the_budget() {
    let (store, svc) = service();
    let (a, b) = (actor("alice"), actor("bob"));
    svc.handle_text(&a, &room(), "challenge @bob:example.org chess")
        .await;
    svc.handle_text(&b, &room(), "accept").await;
    let g = store
        .list_games(&GameFilter::default())
        .await
        .unwrap()
        .pop()
        .unwrap();
    let r = svc.handle_text(&a, &room(), "replay").await;
    assert!(r[0].text.contains("has no moves yet"), "{}", r[0].text);
    assert!(r[0].animation.is_none());
    let white = if g.seats[0] == a.id { &a } else { &b };
    let black = if g.seats[0] == a.id { &b } else { &a };
    for (who, mv) in [(white, "e4"), (black, "e5"), (white, "Nf3")] {
        svc.handle_text(who, &room(), mv).await;
    }
    let r = svc
        .handle_text(&b, &room(), &format!("replay #{}", g.id.0))
        .await;
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].audience, Audience::Room);
    assert!(r[0].key.is_some(), "posted to the outbox");
    assert!(
        r[0].text.contains("a replay of its 3 moves"),
        "{}",
        r[0].text
    );
    let anim = r[0].animation.as_ref().expect("a replay");
    assert_eq!(anim.moves, ["e2e4", "e7e5", "g1f3"]);
    assert_eq!(anim.from_ply, 0);
    let gif = painter().replay_gif(anim, 10 << 20).await.unwrap();
    assert_eq!(&gif.bytes[..6], b"GIF89a");
    assert_eq!((gif.frames, gif.left_out), (4, 0));
    // A budget too small for the whole game: fewer frames or a smaller board, never a failure.
    let tight = painter()
        .replay_gif(anim, gif.bytes.len() * 2 / 3)
        .await
        .unwrap();
    assert!(tight.bytes.len() <= gif.bytes.len() * 2 / 3);
    assert!(tight.size < 640 || tight.left_out > 0);
    let r = svc.handle_text(&a, &room(), "replay #999").await;
    assert!(r[0].animation.is_none());
    assert!(r[0].text.contains("999"), "{}", r[0].text);
}

#[tokio::test]
async fn a_looking_glass_game_is_replayed_only_after_its_end() {
    let (store, svc) = service();
    let (a, b) = (actor("alice"), actor("bob"));
    svc.handle_text(&a, &room(), "challenge @bob:example.org looking-glass")
        .await;
    svc.handle_text(&b, &room(), "accept").await;
    let g = store
        .list_games(&GameFilter::default())
        .await
        .unwrap()
        .pop()
        .unwrap();
    let r = svc
        .handle_text(&a, &room(), &format!("replay #{}", g.id.0))
        .await;
    assert!(r.iter().all(|r| r.animation.is_none()));
    assert!(
        r[0].text.contains("shown to everybody when it ends"),
        "{}",
        r[0].text
    );
    for p in [&a, &b] {
        let dm = Place::direct(Platform::Matrix, format!("!{}-dm:example.org", p.name));
        svc.handle_text(p, &dm, "setup 518").await;
    }
    let r = svc
        .handle_text(&a, &room(), &format!("replay #{}", g.id.0))
        .await;
    assert!(r[0].animation.is_none(), "still hidden after the set-ups");
    svc.handle_text(&a, &room(), &format!("resign #{}", g.id.0))
        .await;
    let r = svc
        .handle_text(&a, &room(), &format!("replay #{}", g.id.0))
        .await;
    let anim = r[0]
        .animation
        .as_ref()
        .unwrap_or_else(|| panic!("{}", r[0].text));
    let gif = painter().replay_gif(anim, 10 << 20).await.unwrap();
    assert_eq!(
        gif.frames,
        anim.moves.len() + 1,
        "the start, and the reveal after each action"
    );
}

#[tokio::test]
async fn with_a_public_address_new_games_and_results_link_to_their_page() {
    let store = MemoryStore::new();
    let svc = GameService::new(
        store.clone(),
        TestClock::default(),
        Arc::new(Catalog::builtin()),
    )
    .with_public_url("https://chess.example.org/");
    let (a, b) = (actor("alice"), actor("bob"));
    svc.handle_text(&a, &room(), "challenge @bob:example.org chess")
        .await;
    let r = svc.handle_text(&b, &room(), "accept").await;
    let g = store
        .list_games(&GameFilter::default())
        .await
        .unwrap()
        .pop()
        .unwrap();
    let link = format!("https://chess.example.org/game/{}", g.id.0);
    assert!(
        r[0].text.contains("starts") && r[0].text.contains(&link),
        "{}",
        r[0].text
    );
    // The page as data too, for platforms that show a link button.
    assert_eq!(r[0].page.as_deref(), Some(link.as_str()));
    let r = svc.handle_text(&a, &room(), "resign").await;
    let result = r.iter().find(|r| r.audience == Audience::Room).unwrap();
    assert!(result.text.contains(&link), "{}", result.text);
    assert_eq!(result.page.as_deref(), Some(link.as_str()));
    // Without an address, no link.
    let (_, plain) = service();
    plain
        .handle_text(&a, &room(), "challenge @bob:example.org chess")
        .await;
    let r = plain.handle_text(&b, &room(), "accept").await;
    assert!(!r[0].text.contains("http"), "{}", r[0].text);
    assert_eq!(r[0].page, None);
}
