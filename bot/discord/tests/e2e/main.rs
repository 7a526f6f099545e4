//! End to end: the real poise/serenity client of `bot-discord` against `discord-fake`, with a
//! `GameService` over the in-memory store. This file holds the harness (starting the client,
//! reading what the stand-in received, playing a move); the tests are in one module per
//! feature:
//!
//! - `setup`: registration, the API address, reconnects, stops, deferrals, long input;
//! - `playing`: a two-player game by slash commands and buttons, and playing the bot;
//! - `private`: DMs, closed DMs and Looking-Glass by direct messages;
//! - `four_players`: four-player games;
//! - `after_the_game`: ratings, players' own variants, analysis.

mod after_the_game;
mod four_players;
mod playing;
mod private;
mod setup;

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
    ) -> std::pin::Pin<
        Box<dyn Future<Output = Result<bool, bot_core::store::StoreError>> + Send + 'a>,
    > {
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

    fn mail<'a>(
        &'a self,
        key: &'a bot_core::outbox::Key,
    ) -> bot_core::service::BoxFuture<
        'a,
        Result<Option<bot_core::outbox::Mail>, bot_core::store::StoreError>,
    > {
        Games::mail(&*self.0, key)
    }

    fn custom_names<'a>(
        &'a self,
        place: &'a Place,
        server: Option<&'a str>,
    ) -> bot_core::service::BoxFuture<'a, Vec<String>> {
        Games::custom_names(&*self.0, place, server)
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
    start_service(registration, None, configure).await
}

/// A bot that analyses finished games (3,000 nodes a position, on the analyst's thread) and
/// posts what nobody asked for (the analysis's graph and mistakes) through the outbox's
/// sender.
async fn start_analysing() -> Running {
    let analysis = bot_core::analysis::AnalysisConfig {
        nodes: 3_000,
        threads: 1,
        nice: 0,
    };
    start_service(Registration::Guild(ids::GUILD), Some(analysis), |bot| bot).await
}

async fn start_service(
    registration: Registration,
    analysis: Option<bot_core::analysis::AnalysisConfig>,
    configure: impl FnOnce(Bot) -> Bot,
) -> Running {
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
    let analysing = analysis.is_some();
    let mut service = GameService::new(MemoryStore::new(), SystemClock, catalog.clone())
        .with_custom_variants(library);
    if let Some(analysis) = analysis {
        service = service
            .with_analysis(analysis)
            .expect("analysis configured");
    }
    let service = Arc::new(service);
    if analysing {
        service.start_analyst();
    }
    let bot = Bot::new(
        Arc::new(WithDm(service)),
        catalog,
        Arc::new(render::Renderer::new()),
        320,
    )
    .with_defer_after(Duration::from_millis(1000))
    .with_retry(QUICK);
    let bot = configure(bot);
    let announcer = bot.clone();
    let mut client = bot_discord::client(fake.serenity_http(), registration, bot)
        .await
        .expect("client builds");
    if analysing {
        tokio::spawn(bot_discord::deliver_announcements(
            announcer,
            client.http.clone(),
        ));
    }
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

/// What `/analyse` of a finished game posted.
struct Analysed {
    /// The answer: the progress line, edited in place into the line "analysed".
    progress: SentMessage,
    /// The graph, a picture.
    graph: SentMessage,
    /// The mistakes posted by the time the one awaited had come, each on a board.
    mistakes: Vec<SentMessage>,
}

/// `/analyse` of the finished game `game` by `who` in the game's channel: the answer is its
/// progress line, in public, edited in place into the line "analysed"; the graph and the
/// mistakes follow in the same channel, each a picture. With `awaiting`, waits for a mistake
/// whose text contains it.
async fn analysed(fake: &FakeDiscord, who: u64, game: u64, awaiting: Option<&str>) -> Analysed {
    let ix = fake
        .slash("analyse")
        .integer("game", game as i64)
        .by(who)
        .send();
    let progress = message(fake, &ix).await;
    assert!(!progress.is_ephemeral(), "{}", progress.content);
    assert!(
        progress.content.contains(&format!("Analysing game {game}")),
        "{}",
        progress.content
    );
    let done = format!("Game {game} analysed");
    let edited = fake
        .wait_until("the answer edited", Duration::from_secs(120), |r| {
            r.messages()
                .iter()
                .find(|m| m.id == progress.id && m.content.contains(&done))
                .cloned()
        })
        .await
        .unwrap();
    assert!(!edited.deleted);
    let title = format!("Analysis of game {game}: accuracy");
    let graph = fake
        .wait_until("the graph", Duration::from_secs(30), |r| {
            r.messages()
                .iter()
                .find(|m| m.content.contains(&title))
                .cloned()
        })
        .await
        .unwrap();
    assert_eq!(
        graph.channel_id, progress.channel_id,
        "in the game's channel"
    );
    assert!(graph.attachment("board.png").unwrap().is_png());
    let prefix = format!("Game {game}, ");
    let is_mistake =
        |m: &SentMessage| m.content.starts_with(&prefix) && m.content.contains("winning chances");
    if let Some(text) = awaiting {
        fake.wait_until("the mistake", Duration::from_secs(30), |r| {
            r.messages()
                .iter()
                .find(|m| is_mistake(m) && m.content.contains(text))
                .cloned()
        })
        .await
        .unwrap();
    }
    let mistakes: Vec<SentMessage> = fake.inspect(|r| {
        r.messages()
            .iter()
            .filter(|m| is_mistake(m))
            .cloned()
            .collect()
    });
    for m in &mistakes {
        assert_eq!(m.channel_id, progress.channel_id, "{}", m.content);
        assert!(m.attachment("board.png").unwrap().is_png(), "{}", m.content);
    }
    Analysed {
        progress,
        graph,
        mistakes,
    }
}

/// `/analyse` by `who` of a game still being played: refused, privately.
async fn analysis_refused(fake: &FakeDiscord, who: u64) -> SentMessage {
    let ix = fake.slash("analyse").by(who).send();
    let refused = message(fake, &ix).await;
    assert!(refused.is_ephemeral(), "{}", refused.content);
    assert!(
        refused.content.contains("still being played"),
        "{}",
        refused.content
    );
    refused
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

/// The description of a message's one embed.
fn embed_description(m: &SentMessage) -> String {
    assert_eq!(m.embeds.len(), 1, "{m:?}");
    m.embeds[0]["description"]
        .as_str()
        .unwrap_or("")
        .to_string()
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
