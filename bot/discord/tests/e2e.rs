//! End to end: the real poise/serenity client of `bot-discord` against `discord-fake`, with a
//! `GameService` over the in-memory store.

use std::{sync::Arc, time::Duration};

use bot_core::{
    Actor, GameService, SystemClock,
    command::Command,
    model::{GameId, Place},
    reply::{Audience, Reply},
    store::memory::MemoryStore,
};
use bot_discord::{Bot, CurrentGame, Games, Registration};
use discord_fake::{FakeDiscord, InteractionRef, SentMessage, callback_type, ids};
use rules::Catalog;

type Service = GameService<MemoryStore, SystemClock>;

/// Retries as in production, but quick: four tries over 140 ms.
const QUICK: bot_discord::Retry = bot_discord::Retry {
    attempts: 4,
    first_delay: Duration::from_millis(20),
    max_delay: Duration::from_millis(80),
};

/// The service, plus one extra for DM tests: `/help dm` also sends the actor a private reply
/// (the built-in variants have no hidden information, so the core sends none by itself).
struct WithDm(Arc<Service>);

impl Games for WithDm {
    fn hold_undelivered<'a>(
        &'a self,
        reply: &'a Reply,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<(), bot_core::store::StoreError>> + Send + 'a>>
    {
        Games::hold_undelivered(&*self.0, reply)
    }

    fn take_undelivered<'a>(
        &'a self,
        player: &'a bot_core::model::PlayerId,
    ) -> std::pin::Pin<Box<dyn Future<Output = Vec<Reply>> + Send + 'a>> {
        Games::take_undelivered(&*self.0, player)
    }

    fn claim_mail(
        &self,
        platform: bot_core::model::Platform,
        limit: u32,
    ) -> bot_core::service::BoxFuture<
        '_,
        Result<Vec<bot_core::outbox::Entry>, bot_core::store::StoreError>,
    > {
        Games::claim_mail(&*self.0, platform, limit)
    }

    fn settle_mail<'a>(
        &'a self,
        key: &'a bot_core::outbox::Key,
        attempt: bot_core::outbox::Attempt,
    ) -> bot_core::service::BoxFuture<'a, ()> {
        Games::settle_mail(&*self.0, key, attempt)
    }

    fn mail_signal(&self) -> Arc<tokio::sync::Notify> {
        Games::mail_signal(&*self.0)
    }

    fn handle<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        cmd: Command,
    ) -> std::pin::Pin<Box<dyn Future<Output = Vec<Reply>> + Send + 'a>> {
        Box::pin(async move {
            if cmd == Command::Help(Some("slow".into())) {
                tokio::time::sleep(Duration::from_millis(1300)).await;
                return vec![Reply::actor("Slow but done.")];
            }
            if cmd == Command::Help(Some("long".into())) {
                let line = "A line of a long listing, as a long game's record would be.\n";
                return vec![Reply::room(line.repeat(90))];
            }
            if cmd == Command::Help(Some("tell carol".into())) {
                let secret = Reply::private(
                    bot_discord::convert::player(ids::CAROL),
                    "Your secret: a rook on h8.",
                );
                return vec![Reply::room("Told carol."), secret];
            }
            if cmd == Command::Help(Some("dm".into())) {
                let mut secret = Reply::room("Your secret hand: {0}, knight and camel.")
                    .mention(actor.id.clone());
                secret.audience = Audience::Private(actor.id.clone());
                return vec![Reply::room("Dealt the hands."), secret];
            }
            Games::handle(&*self.0, actor, place, cmd).await
        })
    }

    fn current_game<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<GameId>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Option<CurrentGame>> + Send + 'a>> {
        Games::current_game(&*self.0, actor, place, game)
    }

    fn game_to_act_on<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<GameId>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Option<GameId>> + Send + 'a>> {
        Games::game_to_act_on(&*self.0, actor, place, game)
    }

    fn handle_text<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        text: &'a str,
    ) -> std::pin::Pin<Box<dyn Future<Output = Vec<Reply>> + Send + 'a>> {
        Games::handle_text(&*self.0, actor, place, text)
    }

    fn set_bot_user(&self, id: bot_core::model::PlayerId, name: &str) {
        Games::set_bot_user(&*self.0, id, name);
    }
}

struct Running {
    fake: FakeDiscord,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn start() -> Running {
    start_with(false).await
}

async fn start_with(threads: bool) -> Running {
    start_registered(threads, Registration::Guild(ids::GUILD)).await
}

async fn start_registered(threads: bool, registration: Registration) -> Running {
    start_bot(registration, |bot| bot.with_thread_per_game(threads)).await
}

/// A bot over a fresh fake, configured by `configure` (beyond a short defer time).
async fn start_bot(registration: Registration, configure: impl FnOnce(Bot) -> Bot) -> Running {
    let fake = FakeDiscord::start().await;
    let catalog = Arc::new(Catalog::builtin());
    // Players' own variants, with a validation time limit that a busy machine keeps.
    let library = bot_core::custom::Library::with(
        bot_core::custom::MemoryVariants::default(),
        bot_core::custom::Quotas::default(),
        rules::validate::Limits {
            time: Duration::from_secs(20),
            ..rules::validate::Limits::default()
        },
    );
    let service = Arc::new(
        GameService::new(MemoryStore::new(), SystemClock, catalog.clone())
            .with_custom_variants(library),
    );
    let bot = Bot::new(
        Arc::new(WithDm(service)),
        catalog,
        Arc::new(render::Renderer::new()),
        320,
    )
    .with_defer_after(Duration::from_millis(1000))
    .with_retry(QUICK);
    let bot = configure(bot);
    let mut client = bot_discord::client(fake.serenity_http(), registration, bot)
        .await
        .expect("client builds");
    let task = tokio::spawn(async move {
        if let Err(e) = client.start().await {
            eprintln!("client stopped: {e}");
        }
    });
    match registration {
        Registration::Guild(g) => {
            fake.wait_guild_commands(g)
                .await
                .expect("commands registered");
            // And what DMs need, globally (registered right after).
            fake.wait_global_commands()
                .await
                .expect("DM commands registered");
        }
        Registration::Global => {
            fake.wait_global_commands()
                .await
                .expect("commands registered");
        }
        Registration::None => {
            fake.wait_ready().await.expect("connected");
        }
    }
    Running { fake, task }
}

/// The finished messages an interaction produced (response and followups), once there are `n`
/// and none is still "thinking".
async fn messages(fake: &FakeDiscord, ix: &InteractionRef, n: usize) -> Vec<SentMessage> {
    let what = format!("{n} messages of interaction {}", ix.id);
    fake.wait_until(&what, Duration::from_secs(20), |r| {
        let mine: Vec<&SentMessage> = r
            .messages()
            .iter()
            .filter(|m| !m.deleted && m.interaction_id() == Some(ix.id))
            .collect();
        (mine.len() >= n && mine.iter().all(|m| !m.is_loading()))
            .then(|| mine.into_iter().cloned().collect())
    })
    .await
    .unwrap()
}

/// The one message an interaction produced.
async fn message(fake: &FakeDiscord, ix: &InteractionRef) -> SentMessage {
    messages(fake, ix, 1).await.remove(0)
}

/// The mean of every colour channel of a PNG (0 black, 255 white).
fn mean_brightness(bytes: &[u8]) -> f64 {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("valid PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("sized")];
    let frame = reader.next_frame(&mut buf).expect("a whole frame");
    let data = &buf[..frame.buffer_size()];
    data.iter().map(|&b| f64::from(b)).sum::<f64>() / data.len() as f64
}

fn decode_png(bytes: &[u8]) -> (u32, u32) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("valid PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("sized")];
    let frame = reader.next_frame(&mut buf).expect("a whole frame");
    (frame.width, frame.height)
}

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

/// Alice challenges Bob to chess as white; Bob accepts with the button. Returns the message
/// of the accepted game (with its board).
async fn start_game(fake: &FakeDiscord) -> SentMessage {
    let ix = fake
        .slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .integer("colour", 0)
        .send();
    let msg = message(fake, &ix).await;
    assert!(!msg.is_ephemeral());
    let mentioned = msg.mentioned_users();
    assert!(
        mentioned.contains(&ids::ALICE) && mentioned.contains(&ids::BOB),
        "{}",
        msg.content
    );
    let accept = msg
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:ch:accept:"))
        .expect("an Accept button");
    assert!(
        msg.custom_ids()
            .iter()
            .any(|c| c.starts_with("fb:ch:decline:"))
    );
    let click = fake.click(msg.id, &accept).by(ids::BOB).send();
    // The challenge is settled: its buttons go (same text), the game follows as a new message.
    let cb = fake.wait_callback(&click).await.unwrap();
    assert_eq!(cb.kind, callback_type::UPDATE_MESSAGE);
    let game = message(fake, &click).await;
    let settled = fake.message(msg.id).unwrap();
    assert!(settled.components().is_empty());
    assert_eq!(settled.content, msg.content);
    game
}

async fn play(fake: &FakeDiscord, who: u64, mv: &str) -> SentMessage {
    let ix = fake.slash("move").string("move", mv).by(who).send();
    message(fake, &ix).await
}

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

/// `/variant` adds a player's definition given as text, lists it, and refuses one with a key
/// fairybot has no rule for by its line and name.
#[tokio::test]
async fn a_players_variant_is_added_and_listed_by_slash_command() {
    let bot = start().await;
    let fake = &bot.fake;
    let ini = "[knightmare:chess]\nknight = -\ncustomPiece1 = n:NN\n";
    let ix = fake
        .slash("variant")
        .integer("action", 0)
        .string("definition", ini)
        .send();
    let added = message(fake, &ix).await;
    assert!(added.content.contains("knightmare"), "{}", added.content);
    let ix = fake.slash("variant").integer("action", 2).send();
    let listed = message(fake, &ix).await;
    assert!(listed.content.contains("knightmare"), "{}", listed.content);
    let ix = fake
        .slash("variant")
        .integer("action", 0)
        .string("definition", "[flags:chess]\nflagPiece = k\n")
        .send();
    let refused = message(fake, &ix).await;
    assert!(
        refused.content.contains("flagPiece") && refused.content.contains("line 2"),
        "{}",
        refused.content
    );
}

/// The description of a message's one embed.
fn embed_description(m: &SentMessage) -> String {
    assert_eq!(m.embeds.len(), 1, "{m:?}");
    m.embeds[0]["description"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[tokio::test]
async fn a_rated_game_shows_in_profiles_and_a_leaderboard_embed() {
    let bot = start().await;
    let fake = &bot.fake;
    start_game(fake).await;
    play(fake, ids::ALICE, "f3").await;
    play(fake, ids::BOB, "e5").await;
    play(fake, ids::ALICE, "g4").await;
    let mate = play(fake, ids::BOB, "Qh4#").await;
    assert!(mate.content.contains("Ratings:"), "{}", mate.content);
    assert!(mate.content.contains("1662 (+162)"), "{}", mate.content);

    let ix = fake.slash("profile").by(ids::ALICE).send();
    let own = message(fake, &ix).await;
    assert!(own.is_ephemeral(), "a profile is shown to its asker");
    assert!(
        own.content.contains("0 won, 0 drawn, 1 lost"),
        "{}",
        own.content
    );
    let table = embed_description(&own);
    assert!(table.starts_with("```\nVariant"), "{table}");
    assert!(table.contains("1338?"), "{table}");

    let ix = fake
        .slash("profile")
        .user("player", ids::BOB)
        .by(ids::ALICE)
        .send();
    let bobs = message(fake, &ix).await;
    assert!(bobs.content.contains("1 won"), "{}", bobs.content);

    let ix = fake
        .slash("leaderboard")
        .string("variant", "chess")
        .by(ids::ALICE)
        .send();
    let board = message(fake, &ix).await;
    assert!(board.content.contains("You are #2"), "{}", board.content);
    let table = embed_description(&board);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "fence, header, two players, fence: {table}");
    assert!(
        lines[2].starts_with("#1") && lines[2].contains("1662?"),
        "{table}"
    );
    assert!(
        lines[3].starts_with("#2") && lines[3].contains("1338?"),
        "{table}"
    );
    assert!(
        board.mentioned_users().is_empty(),
        "a leaderboard pings nobody"
    );

    let ix = fake
        .slash("leaderboard")
        .string("variant", "chezz")
        .by(ids::ALICE)
        .send();
    let err = message(fake, &ix).await;
    assert!(
        err.is_ephemeral() && err.content.contains("Did you mean"),
        "{}",
        err.content
    );
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
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
    for close in [FakeDiscord::close_dms_at_open, FakeDiscord::close_dms] {
        close(fake, ids::CAROL);
        let ix = fake.slash("help").string("command", "tell carol").send();
        let msgs = messages(fake, &ix, 2).await;
        assert_eq!(msgs[0].content, "Told carol.");
        let notice = &msgs[1];
        assert!(!notice.is_ephemeral());
        assert_eq!(notice.mentioned_users(), [ids::CAROL]);
        assert!(notice.content.contains("/board"), "{}", notice.content);
        assert!(
            !notice.content.contains("rook"),
            "nothing private: {}",
            notice.content
        );
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

/// A command given in the bot's DM channel; returns once its interaction is answered.
async fn in_dm(fake: &FakeDiscord, who: u64, command: &str, option: Option<(&str, &str)>) {
    let mut b = fake.slash(command).by(who).in_dm();
    if let Some((name, value)) = option {
        b = b.string(name, value);
    }
    let ix = b.send();
    message(fake, &ix).await;
}

/// The last message the bot sent to a user by DM on its own (not an interaction's answer).
fn last_dm(fake: &FakeDiscord, user: u64) -> SentMessage {
    fake.dm_messages_to(user)
        .into_iter()
        .rev()
        .find(|m| m.interaction_id().is_none())
        .expect("a DM")
}

#[tokio::test]
async fn looking_glass_game_by_direct_messages() {
    let bot = start().await;
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
    // The Queen on the Mirror takes the King, blind.
    in_dm(fake, ids::ALICE, "move", Some(("move", "M:h5e8"))).await;

    let channel = fake.messages_in(ids::GENERAL);
    let reveal = channel
        .iter()
        .position(|m| m.content.contains("revealed"))
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

/// An ephemeral answer to an interaction: its text, with no raw library error in it.
async fn ephemeral_answer(fake: &FakeDiscord, ix: &InteractionRef) -> String {
    let cb = fake.wait_callback(ix).await.unwrap();
    assert_eq!(cb.kind, callback_type::CHANNEL_MESSAGE_WITH_SOURCE);
    assert!(cb.is_ephemeral(), "{:?}", cb.content());
    let text = cb.content().unwrap().to_string();
    for raw in [
        "Internal Server Error",
        "[Serenity]",
        "Bot author",
        "expected User",
        "out of bounds",
        "Error",
    ] {
        assert!(!text.contains(raw), "{raw:?} shown: {text}");
    }
    assert!(text.contains("(Reference "), "{text}");
    text
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

/// A four-player Double Cross Besiege game through the stand-in, from `/challenge` with
/// three opponents to the last checkmate: each invitee accepts with the buttons of the latest
/// question, the player to move is the one autocomplete serves, Green resigns with the
/// confirmation button and the others play on, Blue is checkmated and out, and Red's
/// checkmate of Yellow ends it, announced to all four. The moves are those of
/// `bot/core/tests/data/four_player/complete_game.scenario`.
#[tokio::test]
async fn four_player_game_from_challenge_to_the_last_checkmate() {
    let bot = start().await;
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

/// A Looking-Glass challenge from `white` to `black` in #general, accepted with the button.
async fn glass_game(fake: &FakeDiscord, white: u64, black: u64) {
    let ix = fake
        .slash("challenge")
        .user("opponent", black)
        .string("variant", "looking-glass")
        .integer("colour", 0)
        .by(white)
        .send();
    let msg = message(fake, &ix).await;
    let accept = msg
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:ch:accept:"))
        .unwrap();
    let click = fake.click(msg.id, &accept).by(black).send();
    message(fake, &click).await;
}

/// The resign confirmation the bot answered `ix` with: clicks "Resign" as `who`.
async fn confirm_resignation(fake: &FakeDiscord, ix: &InteractionRef, who: u64) -> InteractionRef {
    let ask = message(fake, ix).await;
    assert!(ask.is_ephemeral(), "{}", ask.content);
    assert!(ask.content.starts_with("Resign game"), "{}", ask.content);
    let confirm = ask
        .custom_ids()
        .into_iter()
        .find(|c| c.starts_with("fb:resign:confirm:"))
        .expect("a confirmation button");
    let click = fake.click(ask.id, &confirm).by(who).send();
    message(fake, &click).await;
    click
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
    assert!(notices(fake).len() >= 2, "{}", notices(fake).len());
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

/// Issue 29 item 3: `/analyse` after a game answers at once with the progress line; the
/// analysis (on its own thread) then edits that answer, through the outbox's sender, up to
/// the line "analysed", and posts the evaluation graph as a picture with each player's accuracy, and White's blunder with
/// the better move on a board. Before the end it is refused, privately.
#[tokio::test]
async fn analysing_a_finished_game_posts_graph_and_mistakes() {
    let fake = FakeDiscord::start().await;
    let catalog = Arc::new(Catalog::builtin());
    let service = Arc::new(
        GameService::new(MemoryStore::new(), SystemClock, catalog.clone())
            .with_analysis(bot_core::analysis::AnalysisConfig {
                nodes: 3_000,
                threads: 1,
                nice: 0,
            })
            .unwrap(),
    );
    service.start_analyst();
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
    let _announcing = tokio::spawn(bot_discord::deliver_announcements(
        announcer,
        client.http.clone(),
    ));
    let task = tokio::spawn(async move {
        if let Err(e) = client.start().await {
            eprintln!("client stopped: {e}");
        }
    });
    fake.wait_guild_commands(ids::GUILD).await.unwrap();
    let running = Running { fake, task };
    let fake = &running.fake;
    start_game(fake).await;
    play(fake, ids::ALICE, "f3").await;
    let ix = fake.slash("analyse").by(ids::ALICE).send();
    let refused = message(fake, &ix).await;
    assert!(refused.is_ephemeral(), "{}", refused.content);
    assert!(
        refused.content.contains("still being played"),
        "{}",
        refused.content
    );
    play(fake, ids::BOB, "e7e5").await;
    play(fake, ids::ALICE, "g4").await;
    let mate = play(fake, ids::BOB, "Qh4#").await;
    assert!(mate.content.contains("Checkmate"), "{}", mate.content);

    let ix = fake.slash("analyse").integer("game", 1).by(ids::BOB).send();
    let progress = message(fake, &ix).await;
    assert!(!progress.is_ephemeral());
    assert!(
        progress
            .content
            .contains("Analysing game 1 at 3,000 nodes a position"),
        "{}",
        progress.content
    );
    let graph = fake
        .wait_until("the graph", Duration::from_secs(60), |r| {
            r.messages()
                .iter()
                .find(|m| m.content.contains("Analysis of game 1: accuracy"))
                .cloned()
        })
        .await
        .unwrap();
    assert_eq!(
        graph.channel_id, progress.channel_id,
        "in the game's channel"
    );
    assert!(graph.attachment("board.png").unwrap().is_png());
    let blunder = fake
        .wait_until("the blunder", Duration::from_secs(30), |r| {
            r.messages()
                .iter()
                .find(|m| m.content.contains("g4??"))
                .cloned()
        })
        .await
        .unwrap();
    assert!(
        blunder.content.contains("Better was"),
        "{}",
        blunder.content
    );
    assert!(blunder.attachment("board.png").unwrap().is_png());
    // The progress lines edit the answer in place: it ends as the line "analysed", and no
    // other message carries a progress line.
    let edited = fake
        .wait_until("the answer edited", Duration::from_secs(30), |r| {
            r.messages()
                .iter()
                .find(|m| m.id == progress.id && m.content.contains("Game 1 analysed"))
                .cloned()
        })
        .await
        .unwrap();
    assert!(!edited.deleted);
    let lines: Vec<String> = fake.inspect(|r| {
        r.messages()
            .iter()
            .filter(|m| {
                !m.deleted
                    && (m.content.contains("Analysing game 1")
                        || m.content.contains("Game 1 analysed"))
            })
            .map(|m| m.content.clone())
            .collect()
    });
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        fake.unhandled_requests().is_empty(),
        "{:?}",
        fake.unhandled_requests()
    );
}
