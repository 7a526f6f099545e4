//! A command the platform delivers again after a crash (Matrix reads the sync again from the
//! bot's own token) carries keys drawn from its event id ([`CommandKeys`]). The store then
//! tells whether its first run reached the store: its first reply is in the outbox once the
//! move (with its announcement), the refusal or the answer is, and never before.

use bot_core::{Actor, Games, outbox::CommandKeys};

mod common;
use common::*;

fn asking(who: &Actor, event: &str) -> Actor {
    Actor {
        command: Some(CommandKeys::of(event)),
        ..who.clone()
    }
}

#[tokio::test]
async fn a_command_is_known_as_answered_once_its_first_write_is_stored() {
    let (svc, place, alice, bob) = chess_game().await;

    for (who, event, text) in [
        // A move: stored with its announcement in one write.
        (&alice, "$move:example.org", "e4"),
        // A refusal (not her turn) and a question: their answer is their only write.
        (&alice, "$early:example.org", "d4"),
        (&bob, "$board:example.org", "board"),
    ] {
        let keys = CommandKeys::of(event);
        assert!(
            !Games::answered(&svc, &keys).await.unwrap(),
            "{text}: nothing of it before it runs"
        );
        let replies = svc.handle_text(&asking(who, event), &place, text).await;
        assert!(!replies.is_empty());
        for r in &replies {
            let key = r.key.as_ref().expect("every reply is kept");
            assert_eq!(
                key.as_str().split('.').next(),
                keys.first().as_str().split('.').next(),
                "{text}: its replies are keyed by its event"
            );
        }
        assert_eq!(replies[0].key.as_ref(), Some(&keys.first()));
        // Asked again by a restarted process, with keys made afresh from the same event.
        assert!(
            Games::answered(&svc, &CommandKeys::of(event))
                .await
                .unwrap(),
            "{text}: stored, so not to be run again"
        );
    }
    // The move was played once, and is Bob's to answer.
    let g = svc.current_game(&bob, &place, None).await.unwrap();
    assert!(g.my_turn);
}
