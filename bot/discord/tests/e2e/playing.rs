//! A two-player game by slash commands and buttons: challenges, moves and their autocomplete,
//! offers, resignation, promotion, threads, the boards' theme, and playing the bot.

use super::*;

/// A time control comes with `/challenge`'s `clock` option; a malformed one is refused to
/// the challenger alone, saying what is accepted, and nothing is posted.
#[tokio::test]
async fn challenge_with_a_clock_and_a_malformed_one() {
    let bot = start().await;
    let ix = bot
        .fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .string("clock", "10+")
        .send();
    let msg = message(&bot.fake, &ix).await;
    assert!(msg.is_ephemeral(), "{}", msg.content);
    assert!(
        msg.content.contains("seconds added per move"),
        "{}",
        msg.content
    );
    assert!(msg.content.contains("Accepted:"), "{}", msg.content);
    let ix = bot
        .fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .string("clock", "3d+7d")
        .send();
    let msg = message(&bot.fake, &ix).await;
    assert!(!msg.is_ephemeral());
    assert!(msg.content.contains("clock 3d+7d"), "{}", msg.content);
}

#[tokio::test]
async fn full_game_to_fools_mate() {
    let bot = start().await;
    let fake = &bot.fake;
    let accepted = start_game(fake).await;
    assert!(!accepted.is_ephemeral());
    let board = accepted.attachment("board.png").expect("a board picture");
    assert!(board.is_png());
    let (w, h) = decode_png(&board.bytes);
    assert!(w >= 100 && h >= 100, "{w}x{h}");

    let ix = fake.slash("move").string("move", "f3").send();
    // A board is drawn: the command is deferred first (Discord's 3-second limit).
    let cb = fake.wait_callback(&ix).await.unwrap();
    assert_eq!(cb.kind, callback_type::DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE);
    let m = message(fake, &ix).await;
    assert!(m.content.contains("plays f3"), "{}", m.content);
    assert!(
        m.mentioned_users().contains(&ids::BOB),
        "Bob is told it is his turn"
    );
    assert!(m.attachment("board.png").unwrap().is_png());
    play(fake, ids::BOB, "e7e5").await;
    play(fake, ids::ALICE, "g4").await;
    let mate = play(fake, ids::BOB, "Qh4#").await;
    assert!(mate.content.contains("Checkmate"), "{}", mate.content);
    assert!(mate.attachment("board.png").unwrap().is_png());

    // The game is over: a further move is an ephemeral error.
    let ix = fake
        .slash("move")
        .string("move", "e4")
        .by(ids::ALICE)
        .send();
    let err = message(fake, &ix).await;
    assert!(err.is_ephemeral(), "{}", err.content);
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
}

/// `/games` names the players as the announcements do, never by their snowflakes (issue 27:
/// a listing showed raw user ids), and mentions nobody.
#[tokio::test]
async fn games_lists_players_by_name() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    play(fake, ids::ALICE, "e4").await;
    let ix = fake.slash("games").by(ids::ALICE).send();
    let listing = message(fake, &ix).await;
    let text = &listing.content;
    assert!(text.contains("alice vs bob"), "{text}");
    assert!(text.contains("bob to move"), "{text}");
    for id in [ids::ALICE, ids::BOB] {
        assert!(!text.contains(&id.to_string()), "{text}");
    }
    assert!(listing.mentioned_users().is_empty(), "{text}");
}

#[tokio::test]
async fn illegal_move_is_an_ephemeral_error() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    let ix = fake.slash("move").string("move", "e2e5").send();
    let cb = fake.wait_callback(&ix).await.unwrap();
    assert_eq!(cb.kind, callback_type::CHANNEL_MESSAGE_WITH_SOURCE);
    assert!(cb.is_ephemeral());
    assert!(cb.content().unwrap().contains("e2e5"), "{:?}", cb.content());
    // Not Bob's turn: also ephemeral, and specific.
    let ix = fake.slash("move").string("move", "e5").by(ids::BOB).send();
    let cb = fake.wait_callback(&ix).await.unwrap();
    assert!(cb.is_ephemeral());
    assert!(
        cb.content().unwrap().contains("not your turn"),
        "{:?}",
        cb.content()
    );
}

#[tokio::test]
async fn move_autocomplete_is_legal_limited_and_staged() {
    let bot = start().await;
    let fake = &bot.fake;
    // No game: no choices.
    let ix = fake.autocomplete("move").focused_string("move", "").send();
    let cb = fake.wait_callback(&ix).await.unwrap();
    assert_eq!(
        cb.kind,
        callback_type::APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
    );
    assert!(cb.choices().is_empty());

    // Capablanca: more than 25 legal moves at the start.
    let ch = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "capablanca")
        .integer("colour", 0)
        .send();
    let msg = message(fake, &ch).await;
    let accept = msg.custom_ids()[0].clone();
    let click = fake.click(msg.id, &accept).by(ids::BOB).send();
    message(fake, &click).await;

    let ask = |typed: &str| {
        let ix = fake
            .autocomplete("move")
            .focused_string("move", typed)
            .send();
        async move { fake.wait_callback(&ix).await.unwrap().choice_values() }
    };
    let first = ask("").await;
    assert!(!first.is_empty() && first.len() <= 25, "{first:?}");
    assert!(first.contains(&"Nb1".to_string()), "{first:?}");
    assert!(first.contains(&"e2".to_string()), "{first:?}");
    let knight = ask("Nb1").await;
    assert!(!knight.is_empty());
    assert!(knight.iter().all(|m| m.starts_with('N')), "{knight:?}");
    // Checked against the engine: every full move offered is legal in the game's position.
    let catalog = Catalog::builtin();
    let start = rules::Position::start(&catalog.get("capablanca").unwrap());
    for typed in ["Nb1", "e2", "A", "c1", "Nb1c3"] {
        for m in ask(typed).await {
            assert!(
                rules::notation::parse_move(&start, &m).is_ok(),
                "{typed}: {m} is not a legal move"
            );
        }
    }
    assert_eq!(ask("e2").await, ["e2e3", "e2e4"]);
    // Every choice is a legal move or leads to one (a piece or a cell).
    for typed in ["", "N", "Nb1", "e", "e2", "c", "Q", "A", "C"] {
        let got = ask(typed).await;
        assert!(got.len() <= 25, "{typed}: {got:?}");
    }
    // Bob is not to move: no moves offered to him.
    let ix = fake
        .autocomplete("move")
        .focused_string("move", "")
        .by(ids::BOB)
        .send();
    assert!(fake.wait_callback(&ix).await.unwrap().choices().is_empty());
    let ix = fake
        .autocomplete("move")
        .focused_string("move", "e2")
        .by(ids::CAROL)
        .send();
    assert!(
        fake.wait_callback(&ix).await.unwrap().choices().is_empty(),
        "Carol plays no game"
    );

    // `/moves from:` offers the cells whose piece can move.
    let ix = fake
        .autocomplete("moves")
        .focused_string("from", "b")
        .send();
    let cells = fake.wait_callback(&ix).await.unwrap().choice_values();
    assert!(
        cells.contains(&"b1".to_string()) && cells.contains(&"b2".to_string()),
        "{cells:?}"
    );

    // Variant autocomplete.
    let ix = fake
        .autocomplete("challenge")
        .focused_string("variant", "capa")
        .send();
    assert_eq!(
        fake.wait_callback(&ix).await.unwrap().choice_values(),
        ["capablanca"]
    );
    // Every game the bot hosts is offered, Looking-Glass (not a catalogue entry) included.
    let ix = fake
        .autocomplete("challenge")
        .focused_string("variant", "looking")
        .send();
    assert_eq!(
        fake.wait_callback(&ix).await.unwrap().choice_values(),
        ["looking-glass", "looking-glass-no-strikes"]
    );
}

#[tokio::test]
async fn challenge_decline_button() {
    let bot = start().await;
    let fake = &bot.fake;
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .send();
    let msg = message(fake, &ix).await;
    let decline = msg
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:ch:decline:"))
        .unwrap();
    // Carol is not challenged: an ephemeral refusal, the buttons stay.
    let click = fake.click(msg.id, &decline).by(ids::CAROL).send();
    let refused = message(fake, &click).await;
    assert!(refused.is_ephemeral(), "{}", refused.content);
    assert_eq!(fake.message(msg.id).unwrap().custom_ids().len(), 2);
    let click = fake.click(msg.id, &decline).by(ids::BOB).send();
    let answer = message(fake, &click).await;
    assert!(fake.message(msg.id).unwrap().components().is_empty());
    assert!(
        answer.content.to_lowercase().contains("decline"),
        "{}",
        answer.content
    );
    // Nothing to play now.
    let ix = fake.slash("move").string("move", "e4").send();
    assert!(message(fake, &ix).await.is_ephemeral());
}

#[tokio::test]
async fn draw_offer_accepted_with_the_button() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    let ix = fake.slash("draw").send();
    let offer = message(fake, &ix).await;
    let accept = offer
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:draw:accept:"))
        .unwrap_or_else(|| panic!("no Accept button: {:?}", offer.custom_ids()));
    let click = fake.click(offer.id, &accept).by(ids::BOB).send();
    let done = message(fake, &click).await;
    assert!(
        done.content.to_lowercase().contains("draw"),
        "{}",
        done.content
    );
    let ix = fake.slash("move").string("move", "e4").send();
    assert!(message(fake, &ix).await.is_ephemeral(), "the game is over");
}

#[tokio::test]
async fn resign_asks_for_confirmation() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    let ix = fake.slash("resign").send();
    let ask = message(fake, &ix).await;
    assert!(ask.is_ephemeral());
    let keep = ask
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:resign:cancel:"))
        .unwrap();
    let click = fake.click(ask.id, &keep).send();
    let cb = fake.wait_callback(&click).await.unwrap();
    assert_eq!(cb.kind, callback_type::UPDATE_MESSAGE);
    // Still playing: a move works.
    play(fake, ids::ALICE, "e4").await;

    let ix = fake.slash("resign").send();
    let ask = message(fake, &ix).await;
    let confirm = ask
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:resign:confirm:"))
        .unwrap();
    let click = fake.click(ask.id, &confirm).send();
    let cb = fake.wait_callback(&click).await.unwrap();
    assert_eq!(cb.kind, callback_type::UPDATE_MESSAGE);
    assert!(fake.message(ask.id).unwrap().components().is_empty());
    let done = message(fake, &click).await;
    assert!(
        done.content.to_lowercase().contains("resign"),
        "{}",
        done.content
    );
    assert!(!done.is_ephemeral());
}

#[tokio::test]
async fn promotion_select_menu() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    // Race a pawn to the last rank: 1.h4 g5 2.hxg5 Nf6 3.gxf6 Bg7 4.fxg7 Kf8?? (the bishop
    // moved away) — then g7 can promote on f8/g8/h8 with or without capture.
    for (who, mv) in [
        (ids::ALICE, "h4"),
        (ids::BOB, "g5"),
        (ids::ALICE, "hxg5"),
        (ids::BOB, "Nf6"),
        (ids::ALICE, "gxf6"),
        (ids::BOB, "Bg7"),
        (ids::ALICE, "fxg7"),
        (ids::BOB, "a6"),
    ] {
        play(fake, who, mv).await;
    }
    let ix = fake.slash("move").string("move", "g7g8").send();
    let ask = message(fake, &ix).await;
    assert!(ask.is_ephemeral());
    let menu = ask
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:move:"))
        .expect("a promotion menu");
    let select = ask.component(&menu).unwrap();
    let values = select.option_values();
    assert!(
        values.len() >= 4 && values.iter().all(|v| v.starts_with("g7g8")),
        "{values:?}"
    );
    let queen = values
        .iter()
        .find(|v| v.ends_with('q'))
        .unwrap()
        .to_string();
    let sel = fake.select(ask.id, &menu, &[queen.as_ref()]).send();
    let cb = fake.wait_callback(&sel).await.unwrap();
    assert_eq!(cb.kind, callback_type::UPDATE_MESSAGE);
    assert!(
        fake.message(ask.id).unwrap().components().is_empty(),
        "the menu closes"
    );
    let done = message(fake, &sel).await;
    assert!(done.content.contains("g8=Q"), "{}", done.content);
    assert!(!done.is_ephemeral());
    assert!(done.attachment("board.png").unwrap().is_png());
}

#[tokio::test]
async fn takeback_request_accepted_with_the_button() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    play(fake, ids::ALICE, "e4").await;
    let ix = fake.slash("takeback").send();
    let ask = message(fake, &ix).await;
    let accept = ask
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:tb:accept:"))
        .unwrap_or_else(|| panic!("no Accept button: {:?} {}", ask.custom_ids(), ask.content));
    let click = fake.click(ask.id, &accept).by(ids::BOB).send();
    message(fake, &click).await;
    assert!(fake.message(ask.id).unwrap().components().is_empty());
    // e4 is gone: Alice moves again.
    let m = play(fake, ids::ALICE, "d4").await;
    assert!(m.content.contains("plays d4"), "{}", m.content);
}

#[tokio::test]
async fn thread_per_game() {
    let bot = start_with(true).await;
    let fake = &bot.fake;
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .integer("colour", 0)
        .in_channel(ids::GAMES)
        .send();
    let said = message(fake, &ix).await;
    let threads = fake.threads();
    assert_eq!(threads.len(), 1);
    let thread = threads[0].id;
    assert_eq!(threads[0].parent_id, ids::GAMES);
    assert_eq!(threads[0].name, "alice vs bob · chess");
    assert!(
        said.content.contains(&format!("<#{thread}>")),
        "{}",
        said.content
    );
    assert_eq!(said.channel_id, ids::GAMES);

    // The challenge, with its buttons, is in the thread; accepting starts the game there.
    let challenge = fake.wait_message(|m| m.channel_id == thread).await.unwrap();
    let accept = challenge
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:ch:accept:"))
        .unwrap();
    let click = fake.click(challenge.id, &accept).by(ids::BOB).send();
    let game = message(fake, &click).await;
    assert_eq!(game.channel_id, thread);
    assert!(game.attachment("board.png").unwrap().is_png());

    // Moves in the thread find the game; autocomplete too.
    let ix = fake
        .autocomplete("move")
        .focused_string("move", "e2")
        .in_channel(thread)
        .send();
    assert_eq!(
        fake.wait_callback(&ix).await.unwrap().choice_values(),
        ["e2e3", "e2e4"]
    );
    let ix = fake
        .slash("move")
        .string("move", "e4")
        .in_channel(thread)
        .send();
    let m = message(fake, &ix).await;
    assert!(m.content.contains("plays e4"), "{}", m.content);
    assert_eq!(m.channel_id, thread);
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
}

/// The configured `[render] theme` reaches Discord's board pictures: the same game drawn by a
/// bot with the dark theme is another, darker picture than with the default (light) one.
#[tokio::test]
async fn the_configured_theme_colours_the_discord_boards() {
    let light = start().await;
    let dark = start_bot(Registration::Guild(ids::GUILD), |b| {
        b.with_theme(render::Theme::dark())
    })
    .await;
    let mut pictures = Vec::new();
    for bot in [&light, &dark] {
        let game = start_game(&bot.fake).await;
        let png = game.attachment("board.png").expect("a board picture");
        assert!(png.is_png());
        pictures.push(png.bytes.to_vec());
    }
    assert_ne!(pictures[0], pictures[1], "the theme changes the picture");
    assert_eq!(
        decode_png(&pictures[0]),
        decode_png(&pictures[1]),
        "same size"
    );
    let (l, d) = (mean_brightness(&pictures[0]), mean_brightness(&pictures[1]));
    assert!(
        d + 20.0 < l,
        "the dark theme is darker: light {l:.0}, dark {d:.0}"
    );
}

/// Playing the bot: `/play` starts the game at once, the bot's move (searched on its own
/// threads) arrives as a plain message in the game's channel with its board, and
/// `/challenge` naming the bot's own user is a game against it too.
#[tokio::test]
async fn playing_the_bot_by_play_and_by_challenging_its_user() {
    let fake = FakeDiscord::start().await;
    let catalog = Arc::new(Catalog::builtin());
    let service = Arc::new(
        GameService::new(MemoryStore::new(), SystemClock, catalog.clone())
            .with_bot(bot_core::opponent::BotConfig::repeatable(2_000, 5))
            .unwrap(),
    );
    service.start_bot().await.unwrap();
    let bot = Bot::new(
        Arc::new(WithDm(service)),
        catalog,
        Arc::new(render::Renderer::new()),
        320,
    )
    .with_defer_after(Duration::from_millis(1000))
    .with_retry(QUICK);
    let announcer = bot.clone();
    let mut client =
        bot_discord::client(fake.serenity_http(), Registration::Guild(ids::GUILD), bot)
            .await
            .expect("client builds");
    let announcing = tokio::spawn(bot_discord::deliver_announcements(
        announcer,
        client.http.clone(),
    ));
    let task = tokio::spawn(async move {
        if let Err(e) = client.start().await {
            eprintln!("client stopped: {e}");
        }
    });
    fake.wait_guild_commands(ids::GUILD).await.unwrap();
    fake.wait_global_commands().await.unwrap();
    let running = Running { fake, task };
    let fake = &running.fake;

    let ix = fake
        .slash("play")
        .string("variant", "chess")
        .integer("level", 1)
        .integer("colour", 0)
        .send();
    let start = message(fake, &ix).await;
    assert!(
        start.content.contains("against the bot at level 1"),
        "{}",
        start.content
    );
    assert!(start.mentioned_users().contains(&ids::BOT));
    let moved = play(fake, ids::ALICE, "e4").await;
    assert!(moved.content.contains("plays e4"), "{}", moved.content);
    let answer = fake
        .wait_until("the bot's move", Duration::from_secs(30), |r| {
            r.messages()
                .iter()
                .find(|m| m.interaction_id().is_none() && m.content.contains("plays"))
                .cloned()
        })
        .await
        .unwrap();
    assert_eq!(answer.channel_id, start.channel_id, "in the game's channel");
    assert!(answer.attachment("board.png").unwrap().is_png());
    assert!(
        answer.mentioned_users().contains(&ids::ALICE),
        "Alice is told it is her move: {}",
        answer.content
    );

    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOT)
        .string("variant", "toulousain")
        .integer("colour", 0)
        .by(ids::BOB)
        .send();
    let game = message(fake, &ix).await;
    assert!(
        game.content.contains("against the bot at level 3"),
        "{}",
        game.content
    );

    // Four players: Carol takes the green seat (the fourth to move); the bot plays red, blue
    // and yellow, each on its own turn, until it is her move.
    let ix = fake
        .slash("play")
        .string("variant", "dcb-balanced-4p")
        .integer("level", 1)
        .integer("seat", 3)
        .by(ids::CAROL)
        .send();
    let four = message(fake, &ix).await;
    let carol_green = format!("<@{}> (Green)", ids::CAROL);
    assert!(four.content.contains(&carol_green), "{}", four.content);
    assert!(
        four.content
            .contains(&format!("<@{}> (Red) to move", ids::BOT)),
        "{}",
        four.content
    );
    let her_turn = fake
        .wait_until("Carol's turn as green", Duration::from_secs(60), |r| {
            r.messages()
                .iter()
                .find(|m| m.interaction_id().is_none() && m.mentioned_users().contains(&ids::CAROL))
                .cloned()
        })
        .await
        .unwrap();
    assert!(
        her_turn.content.contains("(Yellow) plays")
            && her_turn.content.contains(&format!("{carol_green} to move")),
        "{}",
        her_turn.content
    );
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
    announcing.abort();
}
