//! Ratings through the service: a rated result says what it did to both ratings, `profile`
//! and `leaderboard` show them, `unrated` and four-player games stay out, and every bad
//! request gets a reply that says what to do instead.

use std::sync::Arc;

use bot_core::{
    Actor, GameService, SeededChance,
    model::Place,
    reply::{Audience, Reply},
    store::memory::MemoryStore,
};
use rules::Catalog;

mod common;
use common::*;

struct Room {
    svc: GameService<MemoryStore, TestClock>,
    place: Place,
}

impl Room {
    fn new() -> Room {
        Room {
            svc: GameService::new(
                MemoryStore::new(),
                TestClock::default(),
                Arc::new(Catalog::builtin()),
            )
            .with_chance(SeededChance::new(3)),
            place: Place::room(bot_core::model::Platform::Matrix, "!club:example.org"),
        }
    }

    async fn say(&self, who: &Actor, text: &str) -> Vec<Reply> {
        self.svc.handle_text(who, &self.place, text).await
    }

    /// `who` says `text` and gets exactly one reply; its text with names filled in.
    async fn one(&self, who: &Actor, text: &str) -> (Reply, String) {
        let replies = self.say(who, text).await;
        assert_eq!(replies.len(), 1, "{text}: {replies:#?}");
        let r = replies.into_iter().next().unwrap();
        let shown = r.render_text(|p| p.user.clone());
        (r, shown)
    }

    /// Alice (White) challenges Bob to chess with `extra` words, Bob accepts, and White
    /// mates in two moves of each (the fool's mate, reversed); returns the mating reply.
    async fn fools_mate(&self, extra: &str) -> String {
        let (alice, bob) = (actor("alice"), actor("bob"));
        self.say(
            &alice,
            &format!("challenge @bob:example.org chess white {extra}"),
        )
        .await;
        self.say(&bob, "accept").await;
        for (who, mv) in [(&alice, "e4"), (&bob, "f6"), (&alice, "d4"), (&bob, "g5")] {
            self.say(who, mv).await;
        }
        let replies = self.say(&alice, "Qh5#").await;
        let room: Vec<&Reply> = replies
            .iter()
            .filter(|r| r.audience == Audience::Room)
            .collect();
        assert_eq!(room.len(), 1, "{replies:#?}");
        // Each player's private copy of the ending reads as the room's, ratings included.
        for r in replies
            .iter()
            .filter(|r| matches!(r.audience, Audience::Private(_)))
        {
            assert_eq!(r.text, room[0].text, "{replies:#?}");
        }
        room[0].render_text(|p| p.user.clone())
    }
}

#[tokio::test]
async fn a_rated_result_reports_both_ratings_and_shows_in_profiles_and_leaderboards() {
    let room = Room::new();
    let mate = room.fools_mate("").await;
    assert!(mate.contains("Checkmate"), "{mate}");
    assert!(
        mate.contains("Ratings: @alice:example.org 1662 (+162), @bob:example.org 1338 (-162)."),
        "{mate}"
    );

    let (profile, text) = room.one(&actor("alice"), "profile").await;
    assert_eq!(profile.audience, Audience::Actor);
    assert!(
        text.contains("1 rated game: 1 won, 0 drawn, 0 lost."),
        "{text}"
    );
    let table = profile.table.expect("a ratings table");
    assert_eq!(
        table.rows,
        vec![vec![
            "Chess".to_string(),
            "1662?".into(),
            "1".into(),
            "1/0/0".into(),
            "#1".into()
        ]]
    );

    let (_, bob_seen) = room.one(&actor("alice"), "profile @bob:example.org").await;
    assert!(
        bob_seen.starts_with("Profile of @bob:example.org on Matrix."),
        "{bob_seen}"
    );
    assert!(bob_seen.contains("0 won, 0 drawn, 1 lost"), "{bob_seen}");

    let (board, text) = room.one(&actor("bob"), "leaderboard chess").await;
    assert!(
        text.contains("Leaderboard of Chess on Matrix. You are #2 (1338?)."),
        "{text}"
    );
    let rows = board.table.expect("a leaderboard table").rows;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][..3], ["#1", "alice", "1662?"]);
    assert_eq!(rows[1][..3], ["#2", "bob", "1338?"]);
    assert!(board.mentions.is_empty(), "a leaderboard notifies nobody");

    // Chess960 is rated on its own.
    let (_, other) = room.one(&actor("bob"), "leaderboard chess960").await;
    assert!(
        other.starts_with("Nobody has a rating in Chess960 on Matrix yet."),
        "{other}"
    );
}

#[tokio::test]
async fn resignations_are_rated_too() {
    let room = Room::new();
    let (alice, bob) = (actor("alice"), actor("bob"));
    room.say(&alice, "challenge @bob:example.org toulousain white")
        .await;
    room.say(&bob, "accept").await;
    let replies = room.say(&bob, "resign").await;
    let text = replies[0].render_text(|p| p.user.clone());
    assert!(text.contains("resigns"), "{text}");
    assert!(
        text.contains("Ratings: @alice:example.org 1662 (+162)"),
        "{text}"
    );
    let (_, board) = room.one(&alice, "leaderboard toulousain").await;
    assert!(board.contains("You are #1"), "{board}");
}

#[tokio::test]
async fn unrated_games_change_no_rating() {
    let room = Room::new();
    let mate = room.fools_mate("unrated").await;
    assert!(
        mate.contains("Checkmate") && !mate.contains("Ratings"),
        "{mate}"
    );
    let (profile, text) = room.one(&actor("alice"), "profile").await;
    assert!(text.contains("No rated game finished yet."), "{text}");
    assert!(profile.table.is_none());
    let (_, board) = room.one(&actor("alice"), "leaderboard chess").await;
    assert!(board.starts_with("Nobody has a rating in Chess"), "{board}");
}

#[tokio::test]
async fn bad_requests_say_what_to_do() {
    let room = Room::new();
    let alice = actor("alice");
    let cases = [
        (
            "profile @nobody:example.org",
            "`@nobody:example.org` has never played with me on Matrix: there is no profile yet.",
        ),
        (
            "leaderboard chezz",
            "I don't know the variant `chezz`. Did you mean `chess`?",
        ),
        ("leaderboard", "which variant?"),
        (
            "leaderboard dcb-balanced-4p",
            "four-player games are unrated: there is no leaderboard.",
        ),
        ("profile @a @b", "name at most one player"),
    ];
    for (command, expected) in cases {
        let (r, text) = room.one(&alice, command).await;
        assert_eq!(r.audience, Audience::Actor, "{command}");
        assert!(text.contains(expected), "{command}: {text}");
    }
    // Someone who has used the bot but never finished a game has an empty profile.
    room.say(&alice, "variants").await;
    let (_, own) = room.one(&alice, "profile").await;
    assert!(own.contains("No rated game finished yet."), "{own}");
}

#[tokio::test]
async fn current_games_show_whose_move_it_is_in_profiles_and_games() {
    let room = Room::new();
    let (alice, bob) = (actor("alice"), actor("bob"));
    room.say(&alice, "challenge @bob:example.org chess white")
        .await;
    room.say(&bob, "accept").await;
    let (_, text) = room.one(&alice, "profile").await;
    assert!(
        text.contains("Playing now: #1 chess vs @bob:example.org (to move)."),
        "{text}"
    );
    let (_, text) = room.one(&bob, "profile").await;
    assert!(
        text.contains("Playing now: #1 chess vs @alice:example.org."),
        "{text}"
    );
    room.say(&alice, "e4").await;
    let (_, text) = room.one(&alice, "games").await;
    assert!(
        text.contains("#1 chess — alice vs bob (ply 1, bob to move)"),
        "{text}"
    );
}
