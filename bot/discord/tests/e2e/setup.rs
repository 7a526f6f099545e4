//! Registration of the commands, the API address, reconnects, stops, deferrals, outdated
//! commands and long input: the client's life around the games.

use super::*;

#[tokio::test]
async fn registration_payload() {
    let bot = start().await;
    let cmds = bot.fake.guild_commands(ids::GUILD);
    let mut names: Vec<String> = cmds.iter().map(|c| c.name.clone()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "abort",
            "accept",
            "analyse",
            "ask",
            "board",
            "cancel",
            "challenge",
            "decline",
            "draw",
            "export",
            "games",
            "help",
            "history",
            "leaderboard",
            "move",
            "moves",
            "piece",
            "play",
            "profile",
            "remind",
            "replay",
            "resign",
            "rules",
            "setup",
            "takeback",
            "variant",
            "variants"
        ]
    );
    let challenge_rated = cmds.iter().find(|c| c.name == "challenge").unwrap();
    assert_eq!(challenge_rated.option("rated").unwrap()["type"], 5);
    let leaderboard = cmds.iter().find(|c| c.name == "leaderboard").unwrap();
    assert_eq!(leaderboard.option("variant").unwrap()["autocomplete"], true);
    // `/play`'s seat of the four-player forms: optional, one choice per colour.
    let seat = cmds
        .iter()
        .find(|c| c.name == "play")
        .unwrap()
        .option("seat")
        .unwrap();
    assert_eq!(seat["required"], false);
    assert_eq!(seat["choices"].as_array().unwrap().len(), 4);
    let profile = cmds.iter().find(|c| c.name == "profile").unwrap();
    assert_eq!(profile.option("player").unwrap()["required"], false);
    let challenge = cmds.iter().find(|c| c.name == "challenge").unwrap();
    assert_eq!(challenge.option("opponent").unwrap()["type"], 6);
    assert_eq!(challenge.option("variant").unwrap()["autocomplete"], true);
    let colour = challenge.option("colour").unwrap();
    assert_eq!(colour["required"], false);
    assert_eq!(colour["choices"].as_array().unwrap().len(), 3);
    // Four-player games: two more opponents, optional users.
    for extra in ["opponent2", "opponent3"] {
        let o = challenge.option(extra).unwrap();
        assert_eq!(
            (o["type"].as_u64(), o["required"].as_bool()),
            (Some(6), Some(false))
        );
    }
    // The time control: an optional string (issue 16).
    let clock = challenge.option("clock").unwrap();
    assert_eq!(
        (clock["type"].as_u64(), clock["required"].as_bool()),
        (Some(3), Some(false))
    );
    let mv = cmds.iter().find(|c| c.name == "move").unwrap();
    assert_eq!(mv.option("move").unwrap()["autocomplete"], true);
    assert_eq!(mv.option("game").unwrap()["type"], 4);
    assert!(cmds.iter().all(|c| !c.description.is_empty()));
    assert!(
        bot.fake.unhandled_requests().is_empty(),
        "{:?}",
        bot.fake.unhandled_requests()
    );
}

#[tokio::test]
async fn commands_work_after_a_reconnect() {
    let bot = start().await;
    let fake = &bot.fake;
    fake.disconnect(discord_fake::Disconnect::Close(4000));
    // Sent while the bot is away: replayed when it resumes.
    let ix = fake.slash("variants").send();
    let m = message(fake, &ix).await;
    assert!(m.content.contains("chess"), "{}", m.content);
    assert!(fake.gateway_stats().resumed >= 1);
}

#[tokio::test]
async fn slow_work_is_deferred() {
    let bot = start().await;
    let fake = &bot.fake;
    let ix = fake.slash("help").string("command", "slow").send();
    let cb = fake.wait_callback(&ix).await.unwrap();
    assert_eq!(cb.kind, callback_type::DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE);
    let m = message(fake, &ix).await;
    assert_eq!(m.content, "Slow but done.");
}

#[tokio::test]
async fn global_registration() {
    let bot = start_registered(false, Registration::Global).await;
    let fake = &bot.fake;
    let global = fake.registered_commands();
    assert_eq!(global.len(), 27);
    assert!(fake.guild_commands(ids::GUILD).is_empty());
    for c in &global {
        assert_eq!(
            c.raw["integration_types"],
            serde_json::json!([0]),
            "{}",
            c.name
        );
        let contexts = if c.name == "challenge" || c.name == "accept" {
            serde_json::json!([0])
        } else if c.name == "move" || c.name == "board" {
            serde_json::json!([0, 1])
        } else {
            continue;
        };
        assert_eq!(c.raw["contexts"], contexts, "{}", c.name);
    }
    // What a player's Discord offers where.
    assert!(fake.slash("challenge").in_dm().try_send().is_err());
    assert!(fake.slash("move").in_dm().try_send().is_ok());
    assert!(fake.slash("challenge").try_send().is_ok());
}

/// Issue 18 item 7: with the commands registered in one server, Discord offers none of them
/// in DMs, so the ones DMs need are also registered globally, for the bot's DM only: a
/// Looking-Glass player can send his setup and orders there, the server lists each command
/// once, and challenges stay in servers.
#[tokio::test]
async fn guild_registration_still_offers_dm_play() {
    let bot = start().await;
    let fake = &bot.fake;
    assert_eq!(fake.guild_commands(ids::GUILD).len(), 27);
    let global = fake.registered_commands();
    let mut names: Vec<&str> = global.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "abort",
            "analyse",
            "ask",
            "board",
            "draw",
            "export",
            "games",
            "help",
            "history",
            "leaderboard",
            "move",
            "moves",
            "piece",
            "play",
            "profile",
            "remind",
            "replay",
            "resign",
            "rules",
            "setup",
            "takeback",
            "variant",
            "variants"
        ]
    );
    assert!(
        global
            .iter()
            .all(|c| c.raw["contexts"] == serde_json::json!([1])),
        "DM only: the server shows its own copy"
    );
    // `play` too: a game against the bot may live in one's DM with it.
    for name in ["setup", "move", "ask", "board", "resign", "play"] {
        assert!(fake.slash(name).in_dm().try_send().is_ok(), "{name}");
    }
    let err = fake.slash("challenge").in_dm().try_send().unwrap_err();
    assert!(err.in_dm);
    // And the DM command works.
    let ix = fake.slash("variants").in_dm().send();
    let m = message(fake, &ix).await;
    assert!(m.content.contains("chess"), "{}", m.content);
}

/// A stop while an interaction is being handled: a new one is refused with a notice, the one
/// in flight is answered, and only then does `serve` return.
#[tokio::test]
async fn a_stop_answers_the_interactions_in_flight_and_refuses_new_ones() {
    let fake = FakeDiscord::start().await;
    let catalog = Arc::new(Catalog::builtin());
    let service = Arc::new(GameService::new(
        MemoryStore::new(),
        SystemClock,
        catalog.clone(),
    ));
    let bot = Bot::new(
        Arc::new(WithDm(service)),
        catalog,
        Arc::new(render::Renderer::new()),
        320,
    )
    .with_defer_after(Duration::from_millis(300));
    let drain = bot.drain();
    let client = bot_discord::client(fake.serenity_http(), Registration::Guild(ids::GUILD), bot)
        .await
        .expect("client builds");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(bot_discord::serve(
        client,
        drain.clone(),
        async move {
            let _ = stopped.await;
        },
        Duration::from_secs(10),
    ));
    fake.wait_guild_commands(ids::GUILD)
        .await
        .expect("commands registered");

    // The slow command is deferred after 300 ms and answered after 1.3 s: in flight between.
    let slow = fake.slash("help").string("command", "slow").send();
    let cb = fake.wait_callback(&slow).await.unwrap();
    assert_eq!(cb.kind, callback_type::DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE);
    assert_eq!(drain.in_flight(), 1);
    stop.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;

    let late = fake.slash("help").send();
    let refused = fake.wait_callback(&late).await.unwrap();
    assert!(refused.is_ephemeral());
    assert!(
        refused.content().unwrap().contains("restarting"),
        "{:?}",
        refused.content()
    );

    tokio::time::timeout(Duration::from_secs(15), serving)
        .await
        .expect("serve returns")
        .unwrap()
        .unwrap();
    // By the time `serve` returned, the slow answer had been given.
    let answered = fake
        .wait_until("the slow answer", Duration::from_millis(1), |r| {
            r.messages()
                .iter()
                .find(|m| m.interaction_id() == Some(slow.id) && !m.is_loading())
                .map(|m| m.content.clone())
        })
        .await
        .expect("answered before serve returned");
    assert_eq!(answered, "Slow but done.");
    assert_eq!(drain.in_flight(), 0);
}

/// Options that do not fit the registered command (a client with an outdated command list)
/// and commands the bot no longer has are answered, ephemerally, with what to do: reload
/// Discord. Never silence, never the framework's text.
#[tokio::test]
async fn outdated_and_unknown_commands_are_told_to_reload() {
    let bot = start().await;
    let fake = &bot.fake;
    // `opponent` is a user option; an old schema sent text.
    let ix = fake
        .slash("challenge")
        .string("opponent", "bob")
        .string("variant", "chess")
        .send();
    let text = ephemeral_answer(fake, &ix).await;
    assert!(
        text.contains("/challenge has changed") && text.contains("Reload"),
        "{text}"
    );
    // An out-of-range choice index, as a stale client could send.
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .integer("colour", 9)
        .send();
    let text = ephemeral_answer(fake, &ix).await;
    assert!(text.contains("Reload"), "{text}");
    // A command that is not the bot's (any more).
    let ix = fake.slash("offerdraw").send();
    let text = ephemeral_answer(fake, &ix).await;
    assert!(text.contains("/offerdraw has changed"), "{text}");
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
}

/// The API address of the configuration (`[discord] api_url`, `DISCORD_API_URL`) points the
/// production client at any stand-in: here the fake, which is asked for the gateway, gets the
/// connection and sees the commands registered.
#[tokio::test]
async fn the_configured_api_url_points_the_bot_at_a_stand_in() {
    let fake = FakeDiscord::start().await;
    let config = bot_discord::DiscordConfig {
        token: discord_fake::TOKEN.into(),
        registration: Registration::Guild(ids::GUILD),
        board_size: 320,
        thread_per_game: false,
        theme: render::Theme::light(),
        api_url: Some(fake.rest_url()),
    };
    let catalog = Arc::new(Catalog::builtin());
    let service = Arc::new(GameService::new(
        MemoryStore::new(),
        SystemClock,
        catalog.clone(),
    ));
    let bot = Bot::new(service, catalog, Arc::new(render::Renderer::new()), 320);
    let mut client = bot_discord::client(bot_discord::http(&config), config.registration, bot)
        .await
        .expect("client builds");
    let task = tokio::spawn(async move {
        if let Err(e) = client.start().await {
            eprintln!("client stopped: {e}");
        }
    });
    fake.wait_guild_commands(ids::GUILD)
        .await
        .expect("the commands reach the configured address");
    task.abort();
}

/// Issue 18 item 3: every interaction gets an answer within Discord's 3 seconds, also a
/// command the bot no longer has, options of an outdated schema, and a button of an older
/// version: an ephemeral "this command changed, reload" rather than silence.
#[tokio::test]
async fn every_interaction_is_answered_in_time_even_when_outdated() {
    let bot = start().await;
    let fake = &bot.fake;
    let game = start_game(fake).await;
    let started = std::time::Instant::now();
    let mut answered = Vec::new();
    let gone = fake.slash("offerdraw").send();
    let stale = fake
        .slash("move")
        .integer("move", 5)
        .string("game", "one")
        .send();
    let old_button = fake.click(game.id, "fb:oldstyle:accept").unchecked().send();
    let empty_menu = fake.click(game.id, "fb:move:1").unchecked().send();
    for ix in [&gone, &stale, &old_button, &empty_menu] {
        let cb = fake.wait_callback(ix).await.unwrap();
        assert!(cb.is_ephemeral(), "{:?}", cb.content());
        answered.push(cb.content().unwrap_or_default().to_string());
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(
        answered[0].contains("/offerdraw has changed"),
        "{}",
        answered[0]
    );
    assert!(answered[1].contains("/move has changed"), "{}", answered[1]);
    for old in &answered[2..] {
        assert!(old.contains("older version"), "{old}");
    }
    let requests = fake.requests();
    let callbacks: Vec<_> = requests
        .iter()
        .filter(|q| q.matches("POST", "interactions/*/*/callback"))
        .collect();
    assert!(callbacks.iter().all(|q| q.status == 204), "{callbacks:?}");
}

/// Issue 18 item 4: a 5,000-character move is refused with a short quoted prefix, its
/// autocomplete stays within Discord's limits, and a reply longer than 2,000 characters is
/// split on purpose into messages that each fit.
#[tokio::test]
async fn long_input_and_long_replies_fit_discord() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    let long = format!("e2e4{}", "x".repeat(4996));
    let ix = fake.slash("move").string("move", &long).send();
    let cb = fake.wait_callback(&ix).await.unwrap();
    let text = cb.content().unwrap_or_default();
    assert!(cb.is_ephemeral(), "{text}");
    assert!(text.chars().count() < 300, "{text}");
    assert!(text.contains("`e2e4xxx"), "a quoted prefix: {text}");
    assert!(!text.contains("too large"), "{text}");
    let ix = fake
        .autocomplete("move")
        .focused_string("move", &long)
        .send();
    let cb = fake.wait_callback(&ix).await.unwrap();
    let choices = cb.choices();
    assert!(choices.len() <= 25);
    assert!(choices.iter().all(|c| c.name.chars().count() <= 100));

    let ix = fake.slash("help").string("command", "long").send();
    let parts = messages(fake, &ix, 3).await;
    assert_eq!(parts.len(), 3);
    for p in &parts {
        assert!(p.content.chars().count() <= bot_discord::MAX_CONTENT);
        assert!(
            p.content.trim_end().ends_with("record would be."),
            "cut at a line end"
        );
    }
    let whole: usize = parts.iter().map(|p| p.content.lines().count()).sum();
    assert_eq!(whole, 90, "nothing lost");
}

#[tokio::test]
async fn the_gateway_connection_is_reported_for_healthz() {
    let health = bot_core::metrics::Health::new();
    let reported = health.clone();
    let up = move || reported.platforms().get("discord").copied();
    let before = health.clone();
    let bot = start_bot(Registration::Guild(ids::GUILD), move |b| {
        let b = b.with_health(before.clone());
        assert_eq!(
            before.platforms().get("discord"),
            Some(&false),
            "not before READY"
        );
        b
    })
    .await;
    let fake = &bot.fake;
    let until = |want: bool| {
        let up = up.clone();
        async move {
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while up() != Some(want) {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the connection never showed as {want}"
                );
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    };
    until(true).await;
    // The gateway goes down: not connected, and it stays so while Discord is away.
    fake.set_gateway_down(true);
    fake.disconnect(discord_fake::Disconnect::Abort);
    until(false).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(up(), Some(false), "connected while the gateway is down");
    // Back: connected again, and commands work.
    fake.set_gateway_down(false);
    until(true).await;
    let ix = fake.slash("variants").send();
    let m = message(fake, &ix).await;
    assert!(m.content.contains("chess"), "{}", m.content);
}
