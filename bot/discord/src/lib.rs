//! fairybot on Discord: poise slash commands for the whole command grammar, a legal-move
//! autocomplete, buttons and select menus answered by one global handler, board pictures as
//! attachments, and private replies by DM.
//!
//! Production: [`run`]. Tests and custom wiring: [`Bot::new`] and [`client`] with any
//! serenity `Http` (for example the one of `discord-fake`).

pub mod convert;
/// Move suggestions (autocomplete, pickers) live in the core, for every platform.
pub use bot_core::suggest as moves;

mod commands;
mod deliver;
mod drain;
mod edits;
mod errors;
mod followup;
mod rest;
mod send;

use std::sync::Arc;

use poise::serenity_prelude as serenity;
use rules::Catalog;

pub use bot_core::{CurrentGame, Games};
pub use convert::ComponentId;
pub use drain::{Drain, GRACE, serve};
pub use errors::new_reference;
pub use send::{MAX_CONTENT, Retry, SendError, fit};

/// How long Discord accepts answers through an interaction's token.
pub const INTERACTION_TOKEN_LIFE: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// The error type of commands and handlers.
pub type Error = Box<dyn std::error::Error + Send + Sync>;
/// A poise context of this bot.
pub type Ctx<'a> = poise::Context<'a, Bot, Error>;

/// Why the Discord adapter stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum DiscordError {
    /// The configuration is incomplete.
    #[error("configuration: {0}")]
    Config(String),
    /// serenity failed (gateway, HTTP, invalid token...).
    #[error(transparent)]
    Serenity(Box<serenity::Error>),
}

impl From<serenity::Error> for DiscordError {
    fn from(e: serenity::Error) -> Self {
        DiscordError::Serenity(Box::new(e))
    }
}

/// Where slash commands are registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registration {
    /// Globally: every server, and the bot's DM for all but the challenge commands.
    Global,
    /// Every command in one server (changes show at once: for testing), and, since Discord
    /// never offers a server's commands in DMs, the commands DMs need globally, offered in
    /// the bot's DM only (so the server does not list them twice).
    Guild(u64),
    /// Not at all (they are registered already).
    None,
}

/// The adapter's settings. The application reads them from its configuration file and the
/// environment (this crate reads no environment variable).
/// Its `Debug` shows no token: the token is a [`Secret`](bot_core::secret::Secret).
#[derive(Clone, Debug)]
pub struct DiscordConfig {
    /// The bot token (without the `Bot ` prefix).
    pub token: bot_core::secret::Secret,
    /// Where to register the slash commands.
    pub registration: Registration,
    /// Width of board pictures in pixels.
    pub board_size: u32,
    /// Give every challenge made in a server channel its own thread, where the game is played.
    pub thread_per_game: bool,
    /// The colours of board pictures.
    pub theme: render::Theme,
    /// Discord's REST API address, when not `https://discord.com` (a test stand-in, a proxy).
    pub api_url: Option<String>,
}

/// The bot's shared state (poise's user data). A clone shares everything (the game service,
/// whose store holds the reports kept for closed DMs), so the announcement task delivers as
/// commands do.
#[derive(Clone)]
pub struct Bot {
    games: Arc<dyn Games>,
    catalog: Arc<Catalog>,
    renderer: Arc<render::Renderer>,
    theme: render::Theme,
    board_size: u32,
    threads: bool,
    defer_after: std::time::Duration,
    drain: Drain,
    retry: Retry,
    handle_life: std::time::Duration,
    /// Where recent messages went, by outbox key, for replies that edit them
    /// ([`edits`]).
    sent: Arc<edits::SentMessages>,
    /// Where the bot says whether its gateway connection is up (`/healthz`).
    health: bot_core::metrics::Health,
}

/// The platform's name in [`bot_core::metrics::Health`].
const HEALTH_NAME: &str = "discord";

impl std::fmt::Debug for Bot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bot")
            .field("board_size", &self.board_size)
            .field("theme", &self.theme.name)
            .finish_non_exhaustive()
    }
}

impl Bot {
    /// The bot over a game service, the variants it offers and a renderer.
    pub fn new(
        games: Arc<dyn Games>,
        catalog: Arc<Catalog>,
        renderer: Arc<render::Renderer>,
        board_size: u32,
    ) -> Bot {
        Bot {
            games,
            catalog,
            renderer,
            theme: render::Theme::light(),
            board_size,
            threads: false,
            defer_after: std::time::Duration::from_secs(2),
            drain: Drain::default(),
            retry: Retry::default(),
            handle_life: INTERACTION_TOKEN_LIFE,
            sent: Arc::default(),
            health: bot_core::metrics::Health::new(),
        }
    }

    /// Reports the gateway connection to `health` as `discord` (see `watch_gateway`):
    /// not connected until the shard is.
    pub fn with_health(mut self, health: bot_core::metrics::Health) -> Bot {
        health.set(HEALTH_NAME, false);
        self.health = health;
        self
    }

    /// How long after an interaction the outbox's sender still answers it through its token
    /// (default [`INTERACTION_TOKEN_LIFE`], Discord's 15 minutes); later it posts in the
    /// channel or sends a DM. Tests shorten it.
    pub fn with_handle_life(mut self, life: std::time::Duration) -> Bot {
        self.handle_life = life;
        self
    }

    pub(crate) fn handle_life_ms(&self) -> i64 {
        i64::try_from(self.handle_life.as_millis()).unwrap_or(i64::MAX)
    }

    /// How a send that meets a server error or a rate limit is tried again (default: four
    /// tries, waiting 0.5, 1 and 2 s).
    pub fn with_retry(mut self, retry: Retry) -> Bot {
        self.retry = retry;
        self
    }

    /// The count of interactions being handled by clients made from this bot, for
    /// [`serve`] to wait on at shutdown.
    pub fn drain(&self) -> Drain {
        self.drain.clone()
    }

    /// How long the core may take before the interaction is deferred (Discord wants an answer
    /// within 3 seconds; default 2 s).
    pub fn with_defer_after(mut self, after: std::time::Duration) -> Bot {
        self.defer_after = after;
        self
    }

    /// Draws board pictures in this theme (default: light).
    pub fn with_theme(mut self, theme: render::Theme) -> Bot {
        self.theme = theme;
        self
    }

    /// Plays each game challenged in a server channel in a thread of its own.
    pub fn with_thread_per_game(mut self, on: bool) -> Bot {
        self.threads = on;
        self
    }
}

/// Every slash command of the bot (what is registered).
pub fn commands() -> Vec<poise::Command<Bot, Error>> {
    commands::all()
}

/// The gateway intents the bot asks for: only `GUILDS` (channels and threads in the cache);
/// interactions arrive without any intent, and no privileged intent is needed.
pub fn intents() -> serenity::GatewayIntents {
    serenity::GatewayIntents::GUILDS
}

/// A serenity client for the bot over any `Http` (production: [`run`]; tests: a fake's).
///
/// # Errors
/// When serenity cannot build the client.
pub async fn client(
    http: serenity::Http,
    registration: Registration,
    bot: Bot,
) -> Result<serenity::Client, DiscordError> {
    let drain = bot.drain();
    let health = bot.health.clone();
    let framework = poise::Framework::builder()
        .options(poise::FrameworkOptions {
            commands: commands(),
            event_handler: |fw, event| Box::pin(deliver::on_event(fw, event)),
            // Every error becomes a clear ephemeral reply and a log line with a reference,
            // never the default handler's raw error text.
            on_error: |error| Box::pin(errors::on_error(error)),
            initialize_owners: false,
            ..Default::default()
        })
        .setup(move |ctx, ready, framework| {
            // Who the bot is here: `/challenge opponent:@fairybot` is a game against it.
            bot.games
                .set_bot_user(convert::player(ready.user.id.get()), &ready.user.name);
            Box::pin(async move {
                let cmds = &framework.options().commands;
                match registration {
                    Registration::Global => poise::builtins::register_globally(ctx, cmds).await?,
                    Registration::Guild(g) => {
                        poise::builtins::register_in_guild(ctx, cmds, serenity::GuildId::new(g))
                            .await?;
                        poise::builtins::register_globally(ctx, &commands::for_dms()).await?;
                    }
                    Registration::None => {}
                }
                Ok(bot)
            })
        })
        .build();
    let client = serenity::ClientBuilder::new_with_http(http, intents())
        .framework(drain::Tracked::new(framework, drain))
        .await?;
    tokio::spawn(watch_gateway(client.shard_manager.clone(), health));
    Ok(client)
}

/// How often the gateway's state is read for `/healthz`.
const GATEWAY_WATCH: std::time::Duration = std::time::Duration::from_millis(500);

/// Reports the gateway's connection to `health` twice a second, from serenity's shard
/// manager: connected while every shard runs and is in the connected stage. (serenity tells
/// stage changes only to its own event handlers, and not at all while a shard that lost its
/// connection is being started again, so the state is read rather than heard.) Ends when the
/// client is gone.
async fn watch_gateway(manager: Arc<serenity::ShardManager>, health: bot_core::metrics::Health) {
    while Arc::strong_count(&manager) > 1 {
        let up = {
            let runners = manager.runners.lock().await;
            !runners.is_empty()
                && runners
                    .values()
                    .all(|r| r.stage == serenity::ConnectionStage::Connected)
        };
        health.set(HEALTH_NAME, up);
        tokio::time::sleep(GATEWAY_WATCH).await;
    }
}

/// The REST client for `config`: its token, and its API address when one is set (serenity
/// then sends every request there, and asks it for the gateway's address too).
///
/// serenity's own rate limiter sends to discord.com whatever the address, so with an address
/// set it is off and the address is expected to keep Discord's limits itself, as an API proxy
/// does (and a test stand-in need not).
pub fn http(config: &DiscordConfig) -> serenity::Http {
    let builder = serenity::HttpBuilder::new(config.token.expose());
    match &config.api_url {
        Some(url) => builder.proxy(url.as_str()).ratelimiter_disabled(true),
        None => builder,
    }
    .build()
}

/// Runs fairybot on Discord until `stop` completes or the connection ends for good. On `stop`
/// new interactions are refused with a short notice, the ones being handled are finished and
/// answered (waiting at most [`GRACE`]), then the gateway is closed.
///
/// Boxed, with a boxed `stop`, so that the adapter's code is compiled in this crate (an
/// `async fn` or a generic one is compiled where it is awaited: in the binary, after
/// everything else).
///
/// # Errors
/// When the client cannot start (bad token, network) or stops with an error.
pub fn run(
    config: DiscordConfig,
    games: Arc<dyn Games>,
    catalog: Arc<Catalog>,
    renderer: Arc<render::Renderer>,
    health: bot_core::metrics::Health,
    stop: bot_core::service::BoxFuture<'static, ()>,
) -> bot_core::service::BoxFuture<'static, Result<(), DiscordError>> {
    Box::pin(async move {
        let http = http(&config);
        let bot = Bot::new(games, catalog, renderer, config.board_size)
            .with_theme(config.theme)
            .with_thread_per_game(config.thread_per_game)
            .with_health(health);
        let drain = bot.drain();
        let announcer = bot.clone();
        let client = client(http, config.registration, bot).await?;
        let announcing = tokio::spawn(deliver_announcements(announcer, client.http.clone()));
        let result = serve(client, drain, stop, GRACE).await;
        announcing.abort();
        result
    })
}

/// Discord's outbox sender, until its task is stopped: delivers what the core said unasked
/// (the bot's moves, flags, reminders) and the command replies Discord did not take at once,
/// reporting each attempt. Room replies go to the game's channel or thread (the outbox key is
/// the nonce, with `enforce_nonce`, so a repeated send shows once), private ones by DM with
/// the same fallbacks as a command's; a command's reply whose interaction token still lives
/// answers the interaction (see `deliver::send_entry`). Run it next to the client, with the
/// client's `Http` and a clone of its [`Bot`].
pub async fn deliver_announcements(bot: Bot, http: Arc<serenity::Http>) {
    let games = bot.games.clone();
    bot_core::outbox::run_sender(&*games, bot_core::model::Platform::Discord, |entry| {
        let (bot, http) = (&bot, &http);
        async move { deliver::send_entry(bot, http, entry).await }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_url_is_where_requests_go() {
        let mut c = DiscordConfig {
            token: "t".into(),
            registration: Registration::None,
            board_size: 480,
            thread_per_game: false,
            theme: render::Theme::light(),
            api_url: Some("http://127.0.0.1:4000".into()),
        };
        assert_eq!(http(&c).proxy.as_deref(), Some("http://127.0.0.1:4000"));
        c.api_url = None;
        assert_eq!(http(&c).proxy, None, "discord.com itself");
    }

    #[test]
    fn the_token_is_absent_from_debug() {
        let c = DiscordConfig {
            token: "MTIz.secret-token".into(),
            registration: Registration::Guild(42),
            board_size: 480,
            thread_per_game: true,
            theme: render::Theme::dark(),
            api_url: Some("http://127.0.0.1:9".into()),
        };
        let shown = format!("{c:?} {c:#?}");
        assert!(!shown.contains("secret-token"), "{shown}");
        assert!(
            shown.contains("<redacted>") && shown.contains("Guild(42)"),
            "{shown}"
        );
    }
}
