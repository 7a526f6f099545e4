//! The REST side alone, driven through serenity's `Http` (so every answer is also parsed by
//! serenity's model types): interaction rules, messages, edits, threads, reactions, commands,
//! injected failures.

use discord_fake::{DiscordError, FakeDiscord, Origin, ids};
use serde_json::json;
use serenity::all::{ChannelId, CommandId, CreateAttachment, GuildId, InteractionId, ReactionType};

/// `(HTTP status, Discord error code)` of a failed call.
fn discord_error<T: std::fmt::Debug>(r: serenity::Result<T>) -> (u16, isize) {
    match r {
        Err(serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(e))) => {
            (e.status_code.as_u16(), e.error.code)
        }
        other => panic!("expected a Discord error, got {other:?}"),
    }
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot really";

#[tokio::test]
async fn interaction_response_rules() {
    let fake = FakeDiscord::start().await;
    let http = fake.serenity_http();
    // No bot is connected: the interaction is registered and held for READY.
    let ix = fake.slash("play").send();
    let id = InteractionId::new(ix.id);

    let early = http
        .create_followup_message(&ix.token, &json!({"content": "early"}), vec![])
        .await;
    assert_eq!(discord_error(early), (404, 10015));
    let unknown = http
        .create_interaction_response(InteractionId::new(1), "nope", &json!({"type": 4}), vec![])
        .await;
    assert_eq!(discord_error(unknown), (404, 10062));

    let response = json!({"type": 4, "data": {"content": "board",
        "attachments": [{"id": 0, "filename": "board.png", "description": "the board"}]}});
    let file = CreateAttachment::bytes(PNG.to_vec(), "board.png");
    http.create_interaction_response(id, &ix.token, &response, vec![file])
        .await
        .unwrap();
    let again = http
        .create_interaction_response(id, &ix.token, &json!({"type": 4}), vec![])
        .await;
    assert_eq!(discord_error(again), (400, 40060));
    assert_eq!(
        fake.callbacks_for(ix.id).len(),
        2,
        "the refused callback is recorded too"
    );

    let original = http
        .get_original_interaction_response(&ix.token)
        .await
        .unwrap();
    assert_eq!(original.content, "board");
    assert_eq!(
        original.attachments[0].description.as_deref(),
        Some("the board")
    );
    // The attachment URL is served by the fake. (serenity's `Attachment::download` uses a
    // reqwest client of its own, which would follow HTTP_PROXY: fetch without proxies here.)
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let got = client
        .get(&original.attachments[0].url)
        .send()
        .await
        .unwrap();
    assert_eq!(got.headers()["content-type"], "image/png");
    assert_eq!(got.bytes().await.unwrap(), PNG);

    // Edit: keep the attachment, change the content.
    let keep = original.attachments[0].id;
    let edited = http
        .edit_original_interaction_response(
            &ix.token,
            &json!({"content": "board (edited)", "attachments": [{"id": keep.to_string()}]}),
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(edited.content, "board (edited)");
    assert_eq!(edited.attachments.len(), 1);
    assert!(edited.edited_timestamp.is_some());

    let f = http
        .create_followup_message(&ix.token, &json!({"content": "psst", "flags": 64}), vec![])
        .await
        .unwrap();
    let stored = fake.message(f.id.get()).unwrap();
    assert_eq!(
        stored.origin,
        Origin::Followup {
            interaction_id: ix.id
        }
    );
    assert!(stored.is_ephemeral());
    http.delete_followup_message(&ix.token, f.id).await.unwrap();
    assert!(fake.followups(ix.id).is_empty());
    http.delete_original_interaction_response(&ix.token)
        .await
        .unwrap();
    assert!(fake.original_response(ix.id).is_none());
}

#[tokio::test]
async fn channel_messages_threads_and_reactions() {
    let fake = FakeDiscord::start().await;
    let http = fake.serenity_http();
    let general = ChannelId::new(ids::GENERAL);

    let empty = http
        .send_message(general, vec![], &json!({"content": ""}))
        .await;
    assert_eq!(discord_error(empty), (400, 50006));
    let nowhere = http
        .send_message(ChannelId::new(5), vec![], &json!({"content": "x"}))
        .await;
    assert_eq!(discord_error(nowhere), (404, 10003));

    let m = http
        .send_message(general, vec![], &json!({"content": "hello"}))
        .await
        .unwrap();
    assert_eq!(m.author.id.get(), ids::BOT);
    let m2 = http
        .edit_message(general, m.id, &json!({"content": "hello again"}), vec![])
        .await
        .unwrap();
    assert_eq!(m2.content, "hello again");
    assert_eq!(
        http.get_message(general, m.id).await.unwrap().content,
        "hello again"
    );
    let list = http.get_messages(general, None, Some(10)).await.unwrap();
    assert_eq!(list.len(), 1);

    http.create_reaction(general, m.id, &ReactionType::Unicode("♞".into()))
        .await
        .unwrap();
    assert_eq!(fake.message(m.id.get()).unwrap().reactions, ["♞"]);
    let with_reaction = http.get_message(general, m.id).await.unwrap();
    assert_eq!(with_reaction.reactions.len(), 1);

    let thread = http
        .create_thread_from_message(general, m.id, &json!({"name": "game 7"}), None)
        .await
        .unwrap();
    assert_eq!(
        thread.id.get(),
        m.id.get(),
        "a message thread has the message's id"
    );
    assert_eq!(thread.parent_id, Some(general));
    let twice = http
        .create_thread_from_message(general, m.id, &json!({"name": "x"}), None)
        .await;
    assert_eq!(discord_error(twice), (400, 160004));
    http.send_message(thread.id, vec![], &json!({"content": "in the thread"}))
        .await
        .unwrap();
    assert_eq!(fake.messages_in(thread.id.get()).len(), 1);
    // Discord tells the bot about the thread over the gateway too (held here until READY).
    let channel = http.get_channel(thread.id).await.unwrap();
    assert!(channel.guild().is_some());

    http.delete_message(general, m.id, None).await.unwrap();
    assert_eq!(
        discord_error(http.get_message(general, m.id).await),
        (404, 10008)
    );
}

#[tokio::test]
async fn commands_and_injected_failures() {
    let fake = FakeDiscord::start().await;
    let http = fake.serenity_http();

    let c = http
        .create_global_command(&json!({"name": "rules", "description": "Rules of a variant"}))
        .await
        .unwrap();
    let again = http
        .create_global_command(&json!({"name": "rules", "description": "changed"}))
        .await
        .unwrap();
    assert_eq!(c.id, again.id, "upsert by name keeps the id");
    assert_eq!(http.get_global_commands().await.unwrap().len(), 1);
    http.delete_global_command(c.id).await.unwrap();
    assert!(http.get_global_commands().await.unwrap().is_empty());
    assert_eq!(
        discord_error(http.delete_global_command(CommandId::new(3)).await),
        (404, 10063)
    );

    // Fail the next message send only.
    fake.fail_requests(
        |m, route| m == "POST" && route.ends_with("/messages"),
        DiscordError::missing_permissions(),
        Some(1),
    );
    let general = ChannelId::new(ids::GENERAL);
    let r = http
        .send_message(general, vec![], &json!({"content": "a"}))
        .await;
    assert_eq!(discord_error(r), (403, 50013));
    http.send_message(general, vec![], &json!({"content": "b"}))
        .await
        .unwrap();

    // Endpoints the fake does not know are answered 404 and listed.
    let r = http.get_guild_roles(GuildId::new(ids::GUILD)).await;
    assert_eq!(discord_error(r), (404, 0));
    let unhandled = fake.unhandled_requests();
    assert_eq!(unhandled.len(), 1);
    assert_eq!(unhandled[0].route, format!("guilds/{}/roles", ids::GUILD));

    // DM channel: open twice gives the same channel; unknown users are refused.
    let dm = http
        .create_private_channel(&json!({"recipient_id": ids::DAVE.to_string()}))
        .await
        .unwrap();
    let dm2 = http
        .create_private_channel(&json!({"recipient_id": ids::DAVE.to_string()}))
        .await
        .unwrap();
    assert_eq!(dm.id, dm2.id);
    assert_eq!(dm.recipient.id.get(), ids::DAVE);
    let r = http
        .create_private_channel(&json!({"recipient_id": "123"}))
        .await;
    assert_eq!(discord_error(r), (400, 50033));
}

#[tokio::test]
async fn expired_interactions_are_unknown() {
    let fake = FakeDiscord::start_with(discord_fake::FakeConfig {
        interaction_deadline: Some(std::time::Duration::from_millis(500)),
        ..Default::default()
    })
    .await;
    let http = fake.serenity_http();
    let reply = json!({"type": 4, "data": {"content": "late"}});

    let ix = fake.slash("play").send();
    fake.expire_interaction(&ix);
    let r = http
        .create_interaction_response(InteractionId::new(ix.id), &ix.token, &reply, vec![])
        .await;
    assert_eq!(discord_error(r), (404, 10062));

    let ix = fake.slash("play").send();
    http.create_interaction_response(InteractionId::new(ix.id), &ix.token, &reply, vec![])
        .await
        .unwrap();

    let ix = fake.slash("play").send();
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let r = http
        .create_interaction_response(InteractionId::new(ix.id), &ix.token, &reply, vec![])
        .await;
    assert_eq!(discord_error(r), (404, 10062));
}
