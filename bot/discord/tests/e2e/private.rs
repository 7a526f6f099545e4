//! Private replies by DM, closed DMs, and Looking-Glass games refereed by direct messages.

use super::*;

#[tokio::test]
async fn private_reply_by_dm_and_closed_dms() {
    let bot = start().await;
    let fake = &bot.fake;
    let ix = fake.slash("help").string("command", "dm").send();
    let public = message(fake, &ix).await;
    assert_eq!(public.content, "Dealt the hands.");
    let dm = fake.wait_dm(ids::ALICE, 1).await.unwrap();
    assert!(dm.content.contains("secret hand"), "{}", dm.content);

    // Bob's DMs are closed and he is right here: his secret is shown to him alone.
    fake.close_dms(ids::BOB);
    let ix = fake
        .slash("help")
        .string("command", "dm")
        .by(ids::BOB)
        .send();
    let msgs = messages(fake, &ix, 2).await;
    assert!(!msgs[0].is_ephemeral());
    let own = &msgs[1];
    assert!(own.is_ephemeral());
    assert!(own.content.contains("secret hand"), "{}", own.content);
    assert!(
        own.content.contains("direct messages are closed"),
        "{}",
        own.content
    );
    assert!(fake.dm_messages_to(ids::BOB).is_empty());
}

/// Issue 18 item 5: a private message for another player whose DMs are closed (when the DM is
/// opened, or when it is sent) is kept; the channel is told, mentioning him, without the
/// private content; his next command shows it to him alone.
#[tokio::test]
async fn a_closed_dm_is_announced_in_the_channel_and_kept_for_its_player() {
    let bot = start().await;
    let fake = &bot.fake;
    let notices = |fake: &FakeDiscord| {
        fake.messages_in(ids::GENERAL)
            .into_iter()
            .filter(|m| !m.is_ephemeral() && m.mentioned_users() == [ids::CAROL])
            .count()
    };
    for (i, close) in [FakeDiscord::close_dms_at_open, FakeDiscord::close_dms]
        .into_iter()
        .enumerate()
    {
        close(fake, ids::CAROL);
        let ix = fake.slash("help").string("command", "tell carol").send();
        // The channel is told once, not once per message kept, until she reads them.
        let msgs = messages(fake, &ix, if i == 0 { 2 } else { 1 }).await;
        assert_eq!(msgs[0].content, "Told carol.");
        if i == 0 {
            let notice = &msgs[1];
            assert!(!notice.is_ephemeral());
            assert_eq!(notice.mentioned_users(), [ids::CAROL]);
            assert!(notice.content.contains("/board"), "{}", notice.content);
            assert!(
                !notice.content.contains("rook"),
                "nothing private: {}",
                notice.content
            );
        }
        assert!(fake.dm_messages_to(ids::CAROL).is_empty());
    }
    // Carol asks: both kept reports, to her alone.
    let ix = fake.slash("board").by(ids::CAROL).send();
    let msgs = messages(fake, &ix, 3).await;
    let kept: Vec<&SentMessage> = msgs
        .iter()
        .filter(|m| m.content.contains("Kept for you"))
        .collect();
    assert_eq!(kept.len(), 2, "{msgs:?}");
    assert!(
        kept.iter()
            .all(|m| m.is_ephemeral() && m.content.contains("rook"))
    );
    // Taken once.
    let ix = fake.slash("board").by(ids::CAROL).send();
    let msgs = messages(fake, &ix, 1).await;
    assert!(msgs.iter().all(|m| !m.content.contains("Kept")));
    assert_eq!(notices(fake), 1, "one notice for the two kept messages");
    // Read: the next message kept is news again.
    let ix = fake.slash("help").string("command", "tell carol").send();
    let msgs = messages(fake, &ix, 2).await;
    assert_eq!(msgs[1].mentioned_users(), [ids::CAROL]);
    assert_eq!(notices(fake), 2);
}

#[tokio::test]
async fn looking_glass_game_by_direct_messages() {
    let bot = start_analysing().await;
    let fake = &bot.fake;
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "looking-glass")
        .integer("colour", 0)
        .send();
    let msg = message(fake, &ix).await;
    let accept = msg
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:ch:accept:"))
        .unwrap();
    let click = fake.click(msg.id, &accept).by(ids::BOB).send();
    let started = message(fake, &click).await;
    assert!(
        started.content.contains("Looking-Glass"),
        "{}",
        started.content
    );
    // Both are invited privately to choose their back rank.
    for user in [ids::ALICE, ids::BOB] {
        let dm = fake.wait_dm(user, 1).await.unwrap();
        assert!(dm.content.contains("setup 518"), "{}", dm.content);
    }
    in_dm(fake, ids::BOB, "setup", Some(("choice", "518"))).await;
    in_dm(fake, ids::ALICE, "setup", Some(("choice", "RNBQKBNR"))).await;
    // The game begins: each gets his own world as a picture.
    for user in [ids::ALICE, ids::BOB] {
        let dms = fake.dm_messages_to(user);
        let board = dms
            .iter()
            .rev()
            .find_map(|m| m.attachment("board.png"))
            .expect("a private board");
        assert!(board.is_png());
        assert!(decode_png(&board.bytes).0 > 0);
    }

    // White's Pawn falls through to the Mirror: Black hears where it arrived.
    in_dm(fake, ids::ALICE, "move", Some(("move", "e2e3"))).await;
    let to_bob = last_dm(fake, ids::BOB);
    assert!(to_bob.content.contains("R:e3"), "{}", to_bob.content);
    assert!(to_bob.attachment("board.png").is_some());
    in_dm(fake, ids::BOB, "move", Some(("move", "f7f6"))).await;
    // A blind order that cannot be carried out: a strike, announced in the channel.
    in_dm(fake, ids::ALICE, "move", Some(("move", "M:a1a2"))).await;
    let to_bob = last_dm(fake, ids::BOB);
    assert!(to_bob.content.contains("M:a1a2"), "{}", to_bob.content);
    let to_alice = last_dm(fake, ids::ALICE);
    assert!(
        to_alice.content.contains("strike 1 of 3"),
        "{}",
        to_alice.content
    );
    in_dm(fake, ids::ALICE, "ask", None).await;
    let answer = last_dm(fake, ids::ALICE);
    assert!(answer.content.contains("yes"), "{}", answer.content);
    in_dm(fake, ids::ALICE, "move", Some(("move", "d1h5"))).await;
    let to_alice = last_dm(fake, ids::ALICE);
    assert!(to_alice.content.contains("M:h5"), "{}", to_alice.content);
    in_dm(fake, ids::BOB, "move", Some(("move", "a7a6"))).await;
    // An analysis before the end is refused, and the refusal tells nothing about the game.
    let refused = analysis_refused(fake, ids::BOB).await;
    assert!(
        !rules::glass::names_a_square(&refused.content),
        "{}",
        refused.content
    );
    assert!(refused.attachments.is_empty());
    // The Queen on the Mirror takes the King, blind.
    in_dm(fake, ids::ALICE, "move", Some(("move", "M:h5e8"))).await;

    let channel = fake.messages_in(ids::GENERAL);
    let reveal = channel
        .iter()
        .position(|m| !m.is_ephemeral() && m.content.contains("revealed"))
        .expect("the reveal in the game's channel");
    assert!(channel[reveal].content.contains("w R:e2e3"));
    assert!(channel[reveal].attachment("board.png").unwrap().is_png());
    assert!(
        channel
            .iter()
            .any(|m| m.content.contains("The King is captured — White wins")),
        "{:?}",
        channel.iter().map(|m| &m.content).collect::<Vec<_>>()
    );
    assert!(channel.iter().any(|m| m.content.contains("strike 1 of 3")));
    // Before the reveal, the channel carried no square, no setup and no picture.
    for m in &channel[..reveal] {
        assert!(!rules::glass::names_a_square(&m.content), "{}", m.content);
        assert!(!m.content.contains("RNBQKBNR"), "{}", m.content);
        assert!(m.attachments.is_empty(), "{}", m.content);
    }
    // Every private message went to its player only.
    for m in fake.dm_messages_to(ids::BOB) {
        assert!(!m.content.contains("Carried"), "{}", m.content);
    }
    assert!(fake.dm_messages_to(ids::CAROL).is_empty());

    // Issue 29: after the end the game is analysed in its channel, each order judged from
    // what its player knew then.
    let Analysed {
        graph, mistakes, ..
    } = analysed(fake, ids::BOB, 1, None).await;
    assert!(
        graph.content.contains("from what he knew"),
        "{}",
        graph.content
    );
    for m in &mistakes {
        assert!(m.content.contains("knew then"), "{}", m.content);
    }
}

/// Issue 18's "must show": a Looking-Glass game on Discord in which the opponent's DMs are
/// closed, and one resigned from a DM, both ending with the result in the channel and told
/// to both players. Closed DMs never put a notice in the acting player's DM nor anything
/// private in the channel; the reports Bob could not receive are shown to him alone when he
/// asks with /board in the channel.
#[tokio::test]
async fn looking_glass_with_closed_dms_and_a_resignation_from_a_dm() {
    let bot = start().await;
    let fake = &bot.fake;

    // Game 1: Bob's DMs are closed from the start.
    fake.close_dms_at_open(ids::BOB);
    glass_game(fake, ids::ALICE, ids::BOB).await;
    let notices = |fake: &FakeDiscord| {
        fake.messages_in(ids::GENERAL)
            .into_iter()
            .filter(|m| !m.is_ephemeral() && m.content.contains("direct messages are closed"))
            .collect::<Vec<_>>()
    };
    // Bob accepted, so his invitation is shown to him alone right there.
    let own = fake
        .wait_message(|m| m.content.contains("direct messages are closed"))
        .await
        .unwrap();
    assert!(
        own.is_ephemeral() && own.content.contains("setup 518"),
        "{}",
        own.content
    );
    // Bob can still give his setup in his DM: its answer is the interaction's own.
    in_dm(fake, ids::BOB, "setup", Some(("choice", "518"))).await;
    in_dm(fake, ids::ALICE, "setup", Some(("choice", "518"))).await;
    in_dm(fake, ids::ALICE, "move", Some(("move", "e2e3"))).await;
    // Bob's reports (the game begins, the Pawn arriving on R:e3) could not reach him: the
    // channel says so, mentioning him; Alice's DM never carries a word about it.
    // Once for the game, not once per report (two so far).
    assert_eq!(notices(fake).len(), 1, "{:#?}", notices(fake));
    for m in notices(fake) {
        assert_eq!(m.mentioned_users(), [ids::BOB]);
        assert!(!rules::glass::names_a_square(&m.content), "{}", m.content);
    }
    for m in fake.dm_messages_to(ids::ALICE) {
        assert!(!m.content.contains("closed"), "{}", m.content);
        assert!(!m.mentioned_users().contains(&ids::BOB), "{}", m.content);
    }
    assert!(
        fake.dm_channel_of(ids::BOB).is_none()
            || fake
                .dm_messages_to(ids::BOB)
                .iter()
                .all(|m| m.interaction_id().is_some())
    );
    // Bob asks in the channel: what he missed and his world, to him alone.
    let ix = fake.slash("board").by(ids::BOB).send();
    let msgs = messages(fake, &ix, 3).await;
    let private: Vec<&SentMessage> = msgs.iter().filter(|m| m.is_ephemeral()).collect();
    assert!(
        private.iter().any(|m| m.content.contains("R:e3")),
        "the kept report: {:?}",
        msgs.iter().map(|m| &m.content).collect::<Vec<_>>()
    );
    assert!(private.iter().any(|m| m.attachment("board.png").is_some()));
    for m in msgs.iter().filter(|m| !m.is_ephemeral()) {
        assert!(!rules::glass::names_a_square(&m.content), "{}", m.content);
        assert!(m.attachments.is_empty(), "{}", m.content);
    }
    // Bob resigns in the channel: the result there, by DM to Alice, and to Bob alone here.
    let ix = fake.slash("resign").by(ids::BOB).send();
    let click = confirm_resignation(fake, &ix, ids::BOB).await;
    let result = fake
        .wait_message(|m| m.channel_id == ids::GENERAL && m.content.contains("resigns"))
        .await
        .unwrap();
    let mut told = result.mentioned_users();
    told.sort_unstable();
    told.dedup(); // the rating line names both again
    assert_eq!(told, [ids::ALICE, ids::BOB]);
    assert!(result.content.contains("Ratings:"), "{}", result.content);
    let to_alice = fake
        .wait_until("the result by DM to Alice", Duration::from_secs(5), |r| {
            r.dm_messages_to(ids::ALICE)
                .into_iter()
                .find(|m| m.content.contains("resigns"))
                .cloned()
        })
        .await
        .unwrap();
    assert!(
        to_alice.content.contains("(White) wins"),
        "{}",
        to_alice.content
    );
    let to_bob = messages(fake, &click, 2).await;
    assert!(
        to_bob
            .iter()
            .any(|m| m.is_ephemeral() && m.content.contains("resigns")),
        "{:?}",
        to_bob.iter().map(|m| &m.content).collect::<Vec<_>>()
    );
    assert!(
        fake.messages_in(ids::GENERAL)
            .iter()
            .any(|m| m.content.contains("revealed")),
        "both worlds revealed in the channel"
    );

    // Game 2: Alice against Carol; Alice resigns from her DM, with a confirmation there.
    glass_game(fake, ids::ALICE, ids::CAROL).await;
    in_dm(fake, ids::CAROL, "setup", Some(("choice", "518"))).await;
    in_dm(fake, ids::ALICE, "setup", Some(("choice", "RNBQKBNR"))).await;
    let before = fake
        .messages_in(ids::GENERAL)
        .iter()
        .filter(|m| m.content.contains("resigns"))
        .count();
    let ix = fake.slash("resign").by(ids::ALICE).in_dm().send();
    confirm_resignation(fake, &ix, ids::ALICE).await;
    let result = fake
        .wait_until(
            "the second result in the channel",
            Duration::from_secs(5),
            |r| {
                r.messages_in(ids::GENERAL)
                    .into_iter()
                    .filter(|m| m.content.contains("resigns"))
                    .nth(before)
                    .cloned()
            },
        )
        .await
        .unwrap();
    assert!(
        result.content.contains("(Black) wins"),
        "{}",
        result.content
    );
    let mut told = result.mentioned_users();
    told.sort_unstable();
    told.dedup(); // the rating line names both again
    assert_eq!(told, [ids::ALICE, ids::CAROL]);
    for user in [ids::ALICE, ids::CAROL] {
        fake.wait_until("the result by DM", Duration::from_secs(5), |r| {
            r.dm_messages_to(user)
                .into_iter()
                .find(|m| m.content.contains("resigns") && m.content.contains("(Black) wins"))
                .cloned()
        })
        .await
        .unwrap();
    }
}
