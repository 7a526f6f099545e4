//! `games` with many games at once: a player with dozens of games still gets one short
//! message, the games that wait for him first, and a count of what was left out with the way
//! to reach it. (The fuzz target found a 7,000-byte listing after a run that started many
//! games.)

use std::sync::Arc;

use bot_core::{
    GameService,
    model::{Place, Platform},
    store::{ChallengeFilter, GameFilter, GameStore, memory::MemoryStore},
};
use rules::Catalog;

mod common;
use common::*;

/// The text of the one reply to `games`.
async fn games_text(svc: &GameService<MemoryStore, TestClock>, who: &str, place: &Place) -> String {
    let replies = svc.handle_text(&actor(who), place, "games").await;
    assert_eq!(replies.len(), 1, "{replies:?}");
    replies[0].render_text(|p| p.user.clone())
}

#[tokio::test]
async fn many_games_list_the_waiting_ones_first_and_count_the_rest() {
    let store = MemoryStore::new();
    let svc = GameService::new(
        store.clone(),
        TestClock::default(),
        Arc::new(Catalog::builtin()),
    );
    let room = Place::room(Platform::Matrix, "!room:example.org");
    let lobby = Place::room(Platform::Matrix, "!lobby:example.org");
    // Fourteen games in the room, alice White in each; in the even ones she has moved, so
    // bob is to move there.
    for n in 0..14 {
        svc.handle_text(
            &actor("alice"),
            &room,
            "challenge @bob:example.org chess white",
        )
        .await;
        let pending = store
            .list_challenges(&ChallengeFilter::default().at(room.clone()).pending())
            .await
            .unwrap();
        let id = pending.last().unwrap().id;
        svc.handle_text(&actor("bob"), &room, &format!("accept {id}"))
            .await;
        if n % 2 == 0 {
            let game = store
                .list_games(&GameFilter::default().at(room.clone()).active())
                .await
                .unwrap()
                .into_iter()
                .map(|g| g.id)
                .max()
                .unwrap();
            let replies = svc
                .handle_text(&actor("alice"), &room, &format!("move #{game} e4"))
                .await;
            assert!(
                replies[0].render_text(|p| p.user.clone()).contains("e4"),
                "{replies:?}"
            );
        }
    }
    // Twelve open challenges by carol.
    for _ in 0..12 {
        svc.handle_text(&actor("carol"), &room, "challenge chess")
            .await;
    }

    let text = games_text(&svc, "bob", &room).await;
    let games: Vec<&str> = text.lines().filter(|l| l.starts_with("  #")).collect();
    assert_eq!(games.len(), 10, "{text}");
    // Bob's seven games come first, the newest first.
    assert!(
        games[..7].iter().all(|l| l.contains(", bob to move")),
        "{text}"
    );
    assert!(
        games[7..].iter().all(|l| l.contains(", alice to move")),
        "{text}"
    );
    // Players by the names they chose, never by raw platform ids (a Discord listing showed
    // snowflakes): the listing notifies nobody and reads like the announcements.
    assert!(games.iter().all(|l| l.contains("alice vs bob")), "{text}");
    assert!(!text.contains("example.org"), "{text}");
    let ids: Vec<u64> = games
        .iter()
        .map(|l| l[3..].split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(ids[..7].windows(2).all(|w| w[0] > w[1]), "{ids:?}");
    assert!(text.contains("… and 4 more here"), "{text}");
    assert!(text.contains("`board #ID`"), "{text}");
    assert!(text.contains("… and 2 more open here"), "{text}");
    assert!(text.contains("`accept ID`"), "{text}");
    assert!(
        text.contains("  26 chess by") && !text.contains("  16 chess by"),
        "{text}"
    );
    // One Discord message holds it.
    assert!(text.chars().count() <= 2000, "{} characters", text.len());

    // From elsewhere, alice sees her games in the room as her games elsewhere, hers first.
    let text = games_text(&svc, "alice", &lobby).await;
    assert!(
        text.starts_with("Games here: none\nYour games elsewhere:\n"),
        "{text}"
    );
    let first = text.lines().nth(2).unwrap();
    assert!(first.contains(", alice to move"), "{text}");
    assert!(text.contains("… and 4 more of yours elsewhere"), "{text}");
}
