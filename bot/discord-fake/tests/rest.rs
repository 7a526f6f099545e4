//! The REST side alone, driven through serenity's `Http` (so every answer is also parsed by
//! serenity's model types): interaction rules, messages, edits, threads, reactions, commands,
//! injected failures.

use std::time::Duration;

use discord_fake::{DiscordError, FakeDiscord, Origin, RateLimit, RetryAfterIn, ids};
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

/// A raw POST of a channel message, to read the fake's status, headers and body as Discord
/// would send them (serenity's error keeps neither the headers nor an undecodable body).
async fn raw_post(fake: &FakeDiscord, route: &str) -> reqwest::Response {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .post(format!("{}/api/v10/{route}", fake.rest_url()))
        .header("Authorization", format!("Bot {}", discord_fake::TOKEN))
        .header("Content-Type", "application/json")
        .body(json!({"content": "hello"}).to_string())
        .send()
        .await
        .unwrap()
}

/// The rate limiter: answers in the bucket carry its headers, the request over the limit is
/// refused with 429 and does nothing, and the window's end lets requests through again; the
/// header form sends `Retry-After`, the body form only the JSON `retry_after`.
#[tokio::test]
async fn rate_limits_in_header_and_body_form() {
    for form in [RetryAfterIn::Header, RetryAfterIn::Body] {
        let fake = FakeDiscord::start().await;
        let route = format!("channels/{}/messages", ids::GENERAL);
        let limited = route.clone();
        fake.rate_limit(
            move |m, r| m == "POST" && r == limited,
            RateLimit {
                bucket: "general-messages".into(),
                limit: 2,
                window: Duration::from_millis(300),
                form,
                global: false,
            },
        );
        let first = raw_post(&fake, &route).await;
        assert_eq!(first.status(), 200);
        assert_eq!(first.headers()["x-ratelimit-remaining"], "1");
        assert_eq!(first.headers()["x-ratelimit-bucket"], "general-messages");
        assert_eq!(raw_post(&fake, &route).await.status(), 200);
        let refused = raw_post(&fake, &route).await;
        assert_eq!(refused.status(), 429);
        let retry_header = refused
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().parse::<f64>().unwrap());
        let body: serde_json::Value =
            serde_json::from_slice(&refused.bytes().await.unwrap()).unwrap();
        let retry_after = body["retry_after"].as_f64().unwrap();
        assert!(retry_after > 0.0 && retry_after <= 0.3, "{body}");
        assert_eq!(body["global"], false);
        match form {
            RetryAfterIn::Header => assert!(retry_header.is_some_and(|s| s > 0.0 && s <= 0.3)),
            RetryAfterIn::Body => assert_eq!(retry_header, None, "only the body says when"),
            RetryAfterIn::HeaderOnly => unreachable!("not among the forms tested here"),
        }
        assert_eq!(
            fake.messages_in(ids::GENERAL).len(),
            2,
            "the 429 did nothing"
        );
        // Through serenity: status 429, and Discord's body (no `code`) does not decode.
        let http = fake.serenity_http();
        let r = http
            .send_message(
                ChannelId::new(ids::GENERAL),
                vec![],
                &json!({"content": "x"}),
            )
            .await;
        assert_eq!(discord_error(r), (429, -1));
        tokio::time::sleep(Duration::from_millis(320)).await;
        assert_eq!(raw_post(&fake, &route).await.status(), 200, "a new window");
        assert_eq!(
            fake.requests_matching("POST", "channels/*/messages")
                .iter()
                .filter(|q| q.status == 429)
                .count(),
            2
        );
    }
}

/// Any route can be made to answer a server error, a given number of times.
#[tokio::test]
async fn server_errors_on_any_route() {
    let fake = FakeDiscord::start().await;
    let http = fake.serenity_http();
    fake.fail_requests(|_, _| true, DiscordError::bad_gateway(), Some(3));
    assert_eq!(discord_error(http.get_current_user().await), (502, 0));
    let dm = http
        .create_private_channel(&json!({"recipient_id": ids::BOB.to_string()}))
        .await;
    assert_eq!(discord_error(dm), (502, 0));
    fake.fail_requests(
        |m, _| m == "POST",
        DiscordError::service_unavailable(),
        None,
    );
    let r = http
        .send_message(
            ChannelId::new(ids::GENERAL),
            vec![],
            &json!({"content": "x"}),
        )
        .await;
    assert_eq!(discord_error(r), (502, 0), "the first rule first");
    let r = http
        .send_message(
            ChannelId::new(ids::GENERAL),
            vec![],
            &json!({"content": "x"}),
        )
        .await;
    assert_eq!(discord_error(r), (503, 0));
    assert!(http.get_current_user().await.is_ok(), "GET is not matched");
    fake.clear_failures();
    assert!(
        http.send_message(
            ChannelId::new(ids::GENERAL),
            vec![],
            &json!({"content": "x"})
        )
        .await
        .is_ok()
    );
}

/// Closed DMs: 403 / 50007 when the DM channel is opened, or when a message is sent to it.
#[tokio::test]
async fn closed_dms_at_open_and_at_send() {
    let fake = FakeDiscord::start().await;
    let http = fake.serenity_http();
    let open = |user: u64| json!({"recipient_id": user.to_string()});
    fake.close_dms_at_open(ids::BOB);
    assert_eq!(
        discord_error(http.create_private_channel(&open(ids::BOB)).await),
        (403, 50007)
    );
    fake.close_dms(ids::CAROL);
    let dm = http
        .create_private_channel(&open(ids::CAROL))
        .await
        .unwrap();
    let r = http
        .send_message(dm.id, vec![], &json!({"content": "secret"}))
        .await;
    assert_eq!(discord_error(r), (403, 50007));
    assert!(fake.dm_messages_to(ids::CAROL).is_empty());
    fake.open_dms(ids::CAROL);
    http.send_message(dm.id, vec![], &json!({"content": "now"}))
        .await
        .unwrap();
    assert_eq!(fake.dm_messages_to(ids::CAROL).len(), 1);
}

/// A guild command is not offered in DMs, nor a global one whose `contexts` leave DMs out;
/// a global one for BOT_DM (or without `contexts`) is.
#[tokio::test]
async fn guild_commands_are_hidden_in_dms() {
    let fake = FakeDiscord::start().await;
    let http = fake.serenity_http();
    http.create_guild_command(
        GuildId::new(ids::GUILD),
        &json!({"name": "move", "description": "m"}),
    )
    .await
    .unwrap();
    let err = fake.slash("move").in_dm().try_send().unwrap_err();
    assert!(err.in_dm && err.to_string().contains("/move"), "{err}");
    assert!(
        fake.slash("move").try_send().is_ok(),
        "offered in its guild"
    );
    assert!(fake.slash("move").in_dm().unchecked().try_send().is_ok());
    assert!(
        fake.slash("never-registered").in_dm().try_send().is_ok(),
        "a stale client's command is sent"
    );

    http.create_global_command(&json!({"name": "challenge", "description": "c", "contexts": [0]}))
        .await
        .unwrap();
    assert!(fake.autocomplete("challenge").in_dm().try_send().is_err());
    assert!(fake.slash("challenge").try_send().is_ok());
    http.create_global_command(&json!({"name": "board", "description": "b", "contexts": [1]}))
        .await
        .unwrap();
    assert!(fake.slash("board").in_dm().try_send().is_ok());
    assert!(fake.slash("board").try_send().is_err(), "DM only");
    http.create_global_command(&json!({"name": "help", "description": "h"}))
        .await
        .unwrap();
    assert!(
        fake.slash("help").in_dm().try_send().is_ok(),
        "every context"
    );
}
