//! Four-player games: from the challenge to the last checkmate, in a thread, and the refusals.

use super::*;

/// A four-player Double Cross Besiege game through the stand-in, from `/challenge` with
/// three opponents to the last checkmate: each invitee accepts with the buttons of the latest
/// question, the player to move is the one autocomplete serves, Green resigns with the
/// confirmation button and the others play on, Blue is checkmated and out, and Red's
/// checkmate of Yellow ends it, announced to all four. The moves are those of
/// `bot/core/tests/data/four_player/complete_game.scenario`.
#[tokio::test]
async fn four_player_game_from_challenge_to_the_last_checkmate() {
    let bot = start_analysing().await;
    let fake = &bot.fake;
    let all = [ids::ALICE, ids::BOB, ids::CAROL, ids::DAVE];
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "dcb-balanced-4p")
        .user("opponent2", ids::CAROL)
        .user("opponent3", ids::DAVE)
        .send();
    let mut question = message(fake, &ix).await;
    assert!(!question.is_ephemeral());
    for p in all {
        assert!(
            question.mentioned_users().contains(&p),
            "{}",
            question.content
        );
    }
    // Each invitee answers the latest question's Accept button; the last one starts it.
    let mut started = None;
    for (i, who) in [ids::BOB, ids::CAROL, ids::DAVE].into_iter().enumerate() {
        let accept = question
            .custom_ids()
            .into_iter()
            .find(|c| c.starts_with("fb:ch:accept:"))
            .expect("an Accept button");
        let click = fake.click(question.id, &accept).by(who).send();
        let cb = fake.wait_callback(&click).await.unwrap();
        assert_eq!(cb.kind, callback_type::UPDATE_MESSAGE);
        let next = message(fake, &click).await;
        assert!(
            fake.message(question.id).unwrap().components().is_empty(),
            "the answered question keeps no buttons"
        );
        if i < 2 {
            assert!(
                next.content.contains("Still waiting for"),
                "{}",
                next.content
            );
            question = next;
        } else {
            started = Some(next);
        }
    }
    let started = started.unwrap();
    assert!(
        started.content.contains("Game 1 starts"),
        "{}",
        started.content
    );
    assert!(started.attachment("board.png").unwrap().is_png());
    for p in all {
        assert!(started.mentioned_users().contains(&p));
    }

    // Autocomplete serves the player to move, and only him.
    let offered = |who: u64| {
        let ix = fake
            .autocomplete("move")
            .focused_string("move", "")
            .by(who)
            .send();
        async move { fake.wait_callback(&ix).await.unwrap().choice_values() }
    };
    assert!(!offered(ids::ALICE).await.is_empty());
    assert!(offered(ids::BOB).await.is_empty());

    let script = [
        (ids::ALICE, "Ncx"),
        (ids::BOB, "cw"),
        (ids::CAROL, "cp"),
        (ids::DAVE, "resign"),
        (ids::ALICE, "dw"),
        (ids::BOB, "Kbw"),
        (ids::CAROL, "co"),
        (ids::ALICE, "Ndv"),
        (ids::CAROL, "cn"),
        (ids::ALICE, "em"),
        (ids::CAROL, "Kcq"),
        (ids::ALICE, "Qho"),
        (ids::CAROL, "Qdr"),
        (ids::ALICE, "Qco"),
    ];
    let mut last = None;
    for (who, mv) in script {
        let msg = if mv == "resign" {
            let ix = fake.slash("resign").by(who).send();
            let ask = message(fake, &ix).await;
            assert!(ask.is_ephemeral());
            let confirm = ask
                .custom_ids()
                .into_iter()
                .find(|c| c.starts_with("fb:resign:confirm:"))
                .unwrap();
            let click = fake.click(ask.id, &confirm).by(who).send();
            fake.wait_callback(&click).await.unwrap();
            let done = message(fake, &click).await;
            assert!(
                done.content.contains("(Green) resigns and is out"),
                "{}",
                done.content
            );
            done
        } else {
            play(fake, who, mv).await
        };
        assert!(!msg.is_ephemeral(), "{mv}: {}", msg.content);
        assert!(msg.attachment("board.png").unwrap().is_png(), "{mv}");
        if mv == "Ndv" {
            assert!(
                msg.content.contains("(Blue) is checkmated and out"),
                "{}",
                msg.content
            );
            assert!(msg.mentioned_users().contains(&ids::BOB));
        }
        last = Some(msg);
    }
    let end = last.unwrap();
    assert!(
        end.content.contains("Checkmate") && end.content.contains("the last player left"),
        "{}",
        end.content
    );
    for p in all {
        assert!(end.mentioned_users().contains(&p), "{}", end.content);
    }
    // Over: nobody is offered a move.
    assert!(offered(ids::ALICE).await.is_empty());

    // Issue 29: the finished game is analysed, each move judged for its mover against the
    // table, a line per player on the graph, and the mistakes shown on boards.
    let Analysed {
        graph, mistakes, ..
    } = analysed(fake, ids::CAROL, 1, Some("Better was")).await;
    assert!(
        graph
            .content
            .contains("each player's chances against the table"),
        "{}",
        graph.content
    );
    for name in ["Red", "Blue", "Yellow", "Green"] {
        assert!(graph.content.contains(name), "{name}: {}", graph.content);
    }
    assert!(
        mistakes.iter().all(|m| m.content.contains("Better was")),
        "{:#?}",
        mistakes.iter().map(|m| &m.content).collect::<Vec<_>>()
    );
}

/// The slash command refuses a two-player variant with three opponents, privately, saying
/// what to do.
#[tokio::test]
async fn three_opponents_for_a_two_player_variant_are_refused() {
    let bot = start().await;
    let fake = &bot.fake;
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .user("opponent2", ids::CAROL)
        .user("opponent3", ids::DAVE)
        .send();
    let msg = message(fake, &ix).await;
    assert!(msg.is_ephemeral());
    assert!(
        msg.content.contains("two-player game: name one opponent"),
        "{}",
        msg.content
    );
}

/// A four-player challenge with a thread per game: the thread is named after all four, the
/// challenge in it mentions them, and one invitee's Decline button cancels it for everyone
/// (the others' Accept then says so, privately).
#[tokio::test]
async fn four_player_challenge_in_a_thread_declined_by_one() {
    let bot = start_with(true).await;
    let fake = &bot.fake;
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "dcb-kamil-4p")
        .user("opponent2", ids::CAROL)
        .user("opponent3", ids::DAVE)
        .in_channel(ids::GAMES)
        .send();
    let said = message(fake, &ix).await;
    let threads = fake.threads();
    assert_eq!(threads.len(), 1);
    let thread = threads[0].id;
    assert_eq!(
        threads[0].name,
        "alice vs bob vs carol vs dave · dcb-kamil-4p"
    );
    for p in [ids::BOB, ids::CAROL, ids::DAVE] {
        assert!(said.mentioned_users().contains(&p), "{}", said.content);
    }
    let challenge = fake.wait_message(|m| m.channel_id == thread).await.unwrap();
    let button = |prefix: &str| {
        challenge
            .custom_ids()
            .into_iter()
            .find(|c| c.starts_with(prefix))
            .unwrap()
    };
    let click = fake
        .click(challenge.id, &button("fb:ch:decline:"))
        .by(ids::CAROL)
        .send();
    let declined = message(fake, &click).await;
    assert!(
        declined.content.contains("cancelled for everyone"),
        "{}",
        declined.content
    );
    for p in [ids::ALICE, ids::BOB, ids::DAVE] {
        assert!(
            declined.mentioned_users().contains(&p),
            "{}",
            declined.content
        );
    }
    assert!(fake.message(challenge.id).unwrap().components().is_empty());
    let ix = fake.slash("accept").by(ids::DAVE).in_channel(thread).send();
    let refused = message(fake, &ix).await;
    assert!(refused.is_ephemeral(), "{}", refused.content);
}
