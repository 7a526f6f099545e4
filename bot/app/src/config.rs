//! Configuration: a TOML file (every key documented in `config.example.toml`) plus
//! environment variables for secrets and for the database URL.
//!
//! This module is the only reader of the environment: [`ENV_VARS`] are read once, by
//! [`Config::load`], and each bad value is an error at start-up naming the variable. Secrets
//! (tokens, passwords, the passphrase) are [`Secret`]s, which `Debug` shows as `<redacted>`,
//! and a database URL's password is cut out of its `Debug` too.

use std::{
    ops::RangeInclusive,
    path::{Path, PathBuf},
};

use anyhow::bail;
use bot_core::secret::Secret;
use serde::Deserialize;

/// At most 60 characters of a configured value, for an error message.
fn cut(value: &str) -> String {
    value.chars().take(60).collect()
}

/// The board picture sizes accepted, in pixels (the longer side). Below 160 px the squares of
/// the largest boards (16 files) are too small to tell pieces apart; above 2048 px a picture
/// takes long to draw and exceeds what chat clients show anyway.
pub const BOARD_SIZES: RangeInclusive<u32> = 160..=2048;
/// The board picture size when none is configured.
pub const DEFAULT_SIZE: u32 = 768;

/// Every environment variable fairybot reads, all of them here. An empty value counts as
/// unset.
pub const ENV_VARS: &[&str] = &[
    "FAIRYBOT_DATABASE_URL",
    "FAIRYBOT_DATA_DIR",
    "DISCORD_TOKEN",
    "DISCORD_GUILD_ID",
    "DISCORD_BOARD_SIZE",
    "DISCORD_THREAD_PER_GAME",
    "DISCORD_API_URL",
    "MATRIX_HOMESERVER",
    "MATRIX_USER",
    "MATRIX_PASSWORD",
    "MATRIX_ACCESS_TOKEN",
    "MATRIX_STORE_PASSPHRASE",
    "RUST_LOG",
];

/// The checked settings the frontends use directly.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The board theme.
    pub theme: render::Theme,
    /// The board picture size in pixels.
    pub size: u32,
    /// How often this process fires due deadlines and reminders.
    pub scheduler_interval: std::time::Duration,
    /// When correspondence players are reminded of their move.
    pub reminders: bot_core::time_control::ReminderPolicy,
    /// Threads for the bot's searches.
    pub engine_threads: usize,
    /// Their nice value.
    pub engine_nice: i32,
    /// This process's name among those sharing the store (its outbox claims).
    pub instance: String,
    /// The web server, when `[web] listen` is set.
    pub web: Option<bot_web::WebConfig>,
}

/// The whole configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The log filter (`RUST_LOG` syntax), from the environment only.
    #[serde(skip)]
    pub log_filter: Option<String>,
    /// Where games are kept.
    #[serde(default)]
    pub store: StoreConfig,
    /// How boards are drawn.
    #[serde(default)]
    pub render: RenderConfig,
    /// Discord.
    #[serde(default)]
    pub discord: DiscordConfig,
    /// Matrix.
    #[serde(default)]
    pub matrix: MatrixConfig,
    /// The bot as a player.
    #[serde(default)]
    pub bot: BotConfig,
    /// Clocks: the scheduler and reminders.
    #[serde(default)]
    pub clocks: ClocksConfig,
    /// The web pages (off unless `listen` is set).
    #[serde(default)]
    pub web: WebConfig,
    /// Post-game analysis (`analyse`).
    #[serde(default)]
    pub analysis: AnalysisSection,
}

/// Post-game analysis (`analyse`): on by default, one analysis at a time at the lowest
/// priority.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisSection {
    /// Whether `analyse` runs analyses (default true).
    pub enabled: Option<bool>,
    /// Nodes searched per position (10,000 to 10,000,000; default 60,000).
    pub nodes: Option<u64>,
    /// Analyses at once, each on a thread of its own (1 to 8; default 1).
    pub threads: Option<usize>,
}

impl AnalysisSection {
    /// The analyst's settings, `None` when analysis is off; the nice value is the bot's.
    ///
    /// # Errors
    /// A setting out of range, named with what to write instead.
    pub fn settings(
        &self,
        nice: i32,
    ) -> anyhow::Result<Option<bot_core::analysis::AnalysisConfig>> {
        if self.enabled == Some(false) {
            return Ok(None);
        }
        let default = bot_core::analysis::AnalysisConfig::default();
        let nodes = self.nodes.unwrap_or(default.nodes);
        if !(10_000..=10_000_000).contains(&nodes) {
            bail!(
                "[analysis] nodes = {nodes} is out of range: 10000 to 10000000 positions searched \
                 per position of the game (default {})",
                default.nodes
            );
        }
        let threads = self.threads.unwrap_or(1);
        if !(1..=8).contains(&threads) {
            bail!(
                "[analysis] threads = {threads} is out of range: 1 to 8 analyses at once \
                 (default 1)"
            );
        }
        Ok(Some(bot_core::analysis::AnalysisConfig {
            nodes,
            threads,
            nice,
        }))
    }
}

/// The web pages: live games, replays, `/healthz` and `/metrics` (bot-web).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// The address to listen on (`127.0.0.1:8080`); no web server without it.
    pub listen: Option<String>,
    /// The address people reach the pages at (`https://chess.example.org`), for the links in
    /// chat announcements.
    pub public_url: Option<String>,
    /// How often, in milliseconds, the games being watched are read again for moves made by
    /// other processes on the same database (50 to 60000; default 500).
    pub poll_ms: Option<u64>,
    /// The server's threads (1 to 16; default 2).
    pub threads: Option<usize>,
    /// Their nice value, 0 (the commands' priority) to 19 (default 10).
    pub nice: Option<i32>,
    /// Over how many milliseconds a move is sent to the pages watching its game, in waves, so
    /// that many watchers do not take every core at once (0 to 200; default 32; 0: at once).
    pub spread_ms: Option<u64>,
}

/// Clocks: how often deadlines are checked, and when players are reminded.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClocksConfig {
    /// Seconds between two passes of the scheduler (1 to 3600; default 1).
    pub scheduler_interval_seconds: Option<u64>,
    /// The reminder points of a correspondence turn (`half`, `75%`, `12h`; default half
    /// time and 12 hours left); empty: no reminders.
    pub reminders: Option<Vec<String>>,
    /// At most one reminder per game in this many hours (default 6).
    pub reminder_gap_hours: Option<u32>,
    /// At most this many reminders per player per day (default 10).
    pub reminders_per_day: Option<u32>,
}

/// The bot as a player.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotConfig {
    /// Threads for its searches; default one per core minus one, at least one.
    pub engine_threads: Option<usize>,
    /// Their nice value, 0 to 19; default 19.
    pub engine_nice: Option<i32>,
    /// This process's name among the processes sharing one database (default `main`): what
    /// it claimed in the outbox and had not sent when it stopped is sent again when a
    /// process of the same name starts. Give each of several processes its own.
    pub instance: Option<String>,
}

/// The most search threads accepted: more than any machine we run on has cores, and each
/// thread holds a transposition table of up to 16 MB while it searches.
const MAX_ENGINE_THREADS: usize = 64;

/// The store.
#[derive(Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// `sqlite:PATH` or `postgres://...`; default: SQLite in the data directory.
    pub url: Option<String>,
    /// The data directory (database, board pictures); default `data`.
    pub data_dir: Option<PathBuf>,
}

impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreConfig")
            .field("url", &self.url.as_deref().map(bot_store::redact_url))
            .field("data_dir", &self.data_dir)
            .finish()
    }
}

/// Board pictures.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderConfig {
    /// `light`, `dark` or `colour-blind`.
    pub theme: Option<String>,
    /// The longer side of a board picture in pixels.
    pub size: Option<u32>,
}

/// Discord.
#[derive(Clone, Default, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct DiscordConfig {
    /// The bot token (prefer the `DISCORD_TOKEN` environment variable).
    pub token: Option<Secret>,
    /// Register commands in this guild only (instant, for testing); default: globally.
    pub guild: Option<u64>,
    /// The application's id, for `fairybot invite-url`; default: read from the token.
    pub application_id: Option<u64>,
    /// Play every challenge made in a server channel in a thread of its own.
    #[serde(default)]
    pub thread_per_game: bool,
    /// Board picture size on Discord; default: `[render] size`.
    pub board_size: Option<u32>,
    /// Where Discord's REST API is (`https://discord.com` when unset): for a test stand-in
    /// or a proxy. The gateway's address is asked of it.
    pub api_url: Option<String>,
}

/// Matrix. (Read in every build, so one configuration file serves them all; a build without
/// Matrix refuses to start when a login is set.)
#[derive(Clone, Default, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[cfg_attr(not(feature = "matrix"), allow(dead_code))]
pub struct MatrixConfig {
    /// The homeserver URL (or `MATRIX_HOMESERVER`).
    pub homeserver: Option<String>,
    /// The bot's user id (or `MATRIX_USER`).
    pub user: Option<String>,
    /// The password (prefer `MATRIX_PASSWORD`).
    pub password: Option<Secret>,
    /// An access token instead of a password (prefer `MATRIX_ACCESS_TOKEN`).
    pub access_token: Option<Secret>,
    /// The command prefix, default `!fb`.
    pub prefix: Option<String>,
    /// Where the session, encryption keys and ledger are kept; default `<data_dir>/matrix`.
    pub state_dir: Option<PathBuf>,
    /// Encrypts the Matrix store with this passphrase (prefer `MATRIX_STORE_PASSPHRASE`).
    pub store_passphrase: Option<Secret>,
    /// Board picture size on Matrix; default: `[render] size`.
    pub board_size: Option<u32>,
}

impl Config {
    /// Reads a file if given (or `fairybot.toml` if it exists), then applies the environment
    /// (the process's: the one place it is read).
    ///
    /// # Errors
    /// When the named file cannot be read or does not fit the schema, or a variable does not
    /// read.
    pub fn load(path: Option<&Path>) -> anyhow::Result<Config> {
        Self::load_with(path, process_env)
    }

    /// [`Config::load`] with the environment given as a lookup (tests).
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn load_with(
        path: Option<&Path>,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<Config> {
        let default = Path::new("fairybot.toml");
        let path = path.or_else(|| default.exists().then_some(default));
        let mut config = match path {
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
            }
            None => Config::default(),
        };
        config.apply_env(env)?;
        Ok(config)
    }

    /// Environment variables override the file (secrets belong there). `get` is asked only
    /// for the names in [`ENV_VARS`]; an empty value counts as unset.
    ///
    /// # Errors
    /// When a number or flag in a variable does not read as one (it is never ignored).
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
        let get = |k: &str| {
            debug_assert!(ENV_VARS.contains(&k), "{k} is missing from ENV_VARS");
            get(k).filter(|v| !v.is_empty())
        };
        if let Some(v) = get("RUST_LOG") {
            // Checked here, so that a typo is an error rather than the default filter.
            tracing_subscriber::EnvFilter::try_new(&v)
                .map_err(|e| anyhow::anyhow!("RUST_LOG={v:?} is not a log filter: {e}"))?;
            self.log_filter = Some(v);
        }
        if let Some(v) = get("FAIRYBOT_DATABASE_URL") {
            self.store.url = Some(v);
        }
        if let Some(v) = get("FAIRYBOT_DATA_DIR") {
            self.store.data_dir = Some(v.into());
        }
        if let Some(v) = get("DISCORD_TOKEN") {
            self.discord.token = Some(v.into());
        }
        if let Some(v) = get("DISCORD_GUILD_ID") {
            self.discord.guild = Some(v.trim().parse().map_err(|_| {
                anyhow::anyhow!(
                    "DISCORD_GUILD_ID={v:?} is not a server id: copy the number from Discord \
                     (Developer Mode, right-click the server, Copy Server ID)"
                )
            })?);
        }
        if let Some(v) = get("DISCORD_BOARD_SIZE") {
            self.discord.board_size = Some(v.trim().parse().map_err(|_| {
                anyhow::anyhow!(
                    "DISCORD_BOARD_SIZE={v:?} is not a number of pixels: use {}..={}",
                    BOARD_SIZES.start(),
                    BOARD_SIZES.end()
                )
            })?);
        }
        if let Some(v) = get("DISCORD_THREAD_PER_GAME") {
            self.discord.thread_per_game = match v.trim().to_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                _ => bail!("DISCORD_THREAD_PER_GAME={v:?} is not a yes/no value: use 1 or 0"),
            };
        }
        if let Some(v) = get("DISCORD_API_URL") {
            self.discord.api_url = Some(v);
        }
        if let Some(v) = get("MATRIX_HOMESERVER") {
            self.matrix.homeserver = Some(v);
        }
        if let Some(v) = get("MATRIX_USER") {
            self.matrix.user = Some(v);
        }
        if let Some(v) = get("MATRIX_STORE_PASSPHRASE") {
            self.matrix.store_passphrase = Some(v.into());
        }
        if let Some(v) = get("MATRIX_PASSWORD") {
            self.matrix.password = Some(v.into());
        }
        if let Some(v) = get("MATRIX_ACCESS_TOKEN") {
            self.matrix.access_token = Some(v.into());
        }
        Ok(())
    }

    /// Checks every value that would only fail later, or do something silly, and says which
    /// key is wrong and what it may be.
    ///
    /// # Errors
    /// The first bad value, named by its key.
    pub fn validate(&self) -> anyhow::Result<Settings> {
        let size_ok = |key: &str, size: Option<u32>| -> anyhow::Result<()> {
            match size {
                Some(s) if !BOARD_SIZES.contains(&s) => bail!(
                    "{key} = {s} is out of range: a board picture is {} to {} pixels \
                     (default {DEFAULT_SIZE})",
                    BOARD_SIZES.start(),
                    BOARD_SIZES.end()
                ),
                _ => Ok(()),
            }
        };
        size_ok("[render] size", self.render.size)?;
        size_ok(
            "[discord] board_size (or DISCORD_BOARD_SIZE)",
            self.discord.board_size,
        )?;
        size_ok("[matrix] board_size", self.matrix.board_size)?;
        if let Some(n) = self.bot.engine_threads
            && !(1..=MAX_ENGINE_THREADS).contains(&n)
        {
            bail!(
                "[bot] engine_threads = {n} is out of range: 1 to {MAX_ENGINE_THREADS} \
                 (leave it out for one per core minus one, here {})",
                bot_core::opponent::default_threads()
            );
        }
        if let Some(n) = self.bot.engine_nice
            && !(0..=19).contains(&n)
        {
            bail!(
                "[bot] engine_nice = {n} is out of range: 0 (the commands' priority) to 19 (the \
                 lowest, the default)"
            );
        }
        if let Some(name) = &self.bot.instance
            && (name.is_empty()
                || name.len() > 64
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')))
        {
            bail!(
                "[bot] instance = {name:?} is not a usable name: 1 to 64 letters, digits, '-',                  '_' or '.' (leave it out for \"main\" when one process uses the database)"
            );
        }
        let theme_name = self.render.theme.as_deref().unwrap_or("light");
        let Some(theme) = render::Theme::by_name(theme_name.trim()) else {
            bail!("[render] theme = {theme_name:?} is unknown: use light, dark or colour-blind");
        };
        if let Some(d) = &self.store.data_dir
            && d.as_os_str().is_empty()
        {
            bail!("[store] data_dir (or FAIRYBOT_DATA_DIR / --data) is empty: name a directory");
        }
        if let Some(url) = &self.store.url
            && !(url.starts_with("sqlite:")
                || url.starts_with("postgres://")
                || url.starts_with("postgresql://"))
        {
            // Only the scheme is shown: URLs carry passwords.
            let scheme = url.split(':').next().unwrap_or_default();
            bail!(
                "[store] url (or FAIRYBOT_DATABASE_URL) has the scheme {scheme:?}: use \
                 sqlite:PATH or postgres://USER:PASSWORD@HOST/DB"
            );
        }
        if let Some(t) = &self.discord.token
            && t.expose()
                .trim()
                .trim_start_matches("Bot ")
                .trim()
                .is_empty()
        {
            bail!("[discord] token (or DISCORD_TOKEN) is empty: paste the bot's token");
        }
        if let Some(url) = &self.discord.api_url {
            let url = url.trim();
            let host = url
                .strip_prefix("https://")
                .or_else(|| url.strip_prefix("http://"))
                .unwrap_or_default();
            if host.is_empty() || host.starts_with('/') || host.contains(char::is_whitespace) {
                bail!(
                    "[discord] api_url (or DISCORD_API_URL) = {:?} is not an http(s) address: \
                     use e.g. http://127.0.0.1:8080, or leave it out for discord.com",
                    crate::config::cut(url)
                );
            }
        }
        let access_token = self.matrix.access_token.as_ref().map(Secret::expose);
        for (key, value) in [
            ("[matrix] homeserver", self.matrix.homeserver.as_ref()),
            ("[matrix] user", self.matrix.user.as_ref()),
            ("[matrix] access_token", access_token),
        ] {
            if value.is_some_and(|v| v.trim().is_empty()) {
                bail!("{key} is empty: set it or leave the key out");
            }
        }
        let interval = self.clocks.scheduler_interval_seconds.unwrap_or(1);
        if !(1..=3600).contains(&interval) {
            bail!(
                "[clocks] scheduler_interval_seconds = {interval} is out of range: 1 to 3600 \
                 (default 1; a real-time flag falls at most this late)"
            );
        }
        let mut reminders = bot_core::time_control::ReminderPolicy::default();
        if let Some(points) = &self.clocks.reminders {
            reminders.points = points
                .iter()
                .map(|p| {
                    bot_core::time_control::ReminderPolicy::parse_point(p)
                        .map_err(|e| anyhow::anyhow!("[clocks] reminders: {e}"))
                })
                .collect::<anyhow::Result<_>>()?;
        }
        if let Some(h) = self.clocks.reminder_gap_hours {
            if h > 24 * 30 {
                bail!("[clocks] reminder_gap_hours = {h} is out of range: 0 to 720 (default 6)");
            }
            reminders.per_game_gap_ms = i64::from(h) * bot_core::time_control::HOUR_MS;
        }
        if let Some(n) = self.clocks.reminders_per_day {
            reminders.daily_cap = n;
        }
        Ok(Settings {
            theme,
            size: self.render.size.unwrap_or(DEFAULT_SIZE),
            scheduler_interval: std::time::Duration::from_secs(interval),
            reminders,
            engine_threads: self
                .bot
                .engine_threads
                .unwrap_or_else(bot_core::opponent::default_threads),
            engine_nice: self
                .bot
                .engine_nice
                .unwrap_or(bot_core::opponent::DEFAULT_SEARCH_NICE),
            instance: self.bot.instance.clone().unwrap_or_else(|| "main".into()),
            web: self.web_settings()?,
        })
    }

    /// The checked `[web]` section: `None` when no `listen` address is set.
    fn web_settings(&self) -> anyhow::Result<Option<bot_web::WebConfig>> {
        let w = &self.web;
        let Some(listen) = w.listen.as_deref().map(str::trim) else {
            if w.public_url.is_some() {
                bail!(
                    "[web] public_url is set but not [web] listen: links would lead nowhere; \
                     set listen = \"127.0.0.1:8080\" (or remove public_url)"
                );
            }
            return Ok(None);
        };
        let Ok(addr) = listen.parse::<std::net::SocketAddr>() else {
            bail!(
                "[web] listen = {listen:?} is not an address with a port: use e.g. \
                 \"127.0.0.1:8080\" (or \"[::1]:8080\")"
            );
        };
        let mut config = bot_web::WebConfig::new(addr);
        if let Some(url) = &w.public_url {
            let url = url.trim().trim_end_matches('/');
            let host = url
                .strip_prefix("https://")
                .or_else(|| url.strip_prefix("http://"))
                .unwrap_or_default();
            if host.is_empty() || host.contains(char::is_whitespace) {
                bail!(
                    "[web] public_url = {:?} is not an http(s) address: use e.g. \
                     \"https://chess.example.org\"",
                    cut(url)
                );
            }
            config.public_url = Some(url.to_string());
        }
        if let Some(ms) = w.poll_ms {
            if !(50..=60_000).contains(&ms) {
                bail!("[web] poll_ms = {ms} is out of range: 50 to 60000 (default 500)");
            }
            config.poll = std::time::Duration::from_millis(ms);
        }
        if let Some(n) = w.threads {
            if !(1..=16).contains(&n) {
                bail!("[web] threads = {n} is out of range: 1 to 16 (default 2)");
            }
            config.priority.threads = n;
        }
        if let Some(n) = w.nice {
            if !(0..=19).contains(&n) {
                bail!(
                    "[web] nice = {n} is out of range: 0 (the commands' priority) to 19 (the \
                     lowest; default {})",
                    bot_web::apart::DEFAULT_NICE
                );
            }
            config.priority.nice = n;
        }
        if let Some(ms) = w.spread_ms {
            if ms > 200 {
                bail!(
                    "[web] spread_ms = {ms} is out of range: 0 (every watcher at once) to 200 \
                     (default {})",
                    bot_web::DEFAULT_SPREAD.as_millis()
                );
            }
            config.spread = std::time::Duration::from_millis(ms);
        }
        Ok(Some(config))
    }

    /// The data directory.
    pub fn data_dir(&self) -> PathBuf {
        self.store
            .data_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("data"))
    }

    /// The Discord application's id: configured, or read from the bot token.
    pub fn discord_application(&self) -> Result<u64, crate::admin::InviteError> {
        if let Some(id) = self.discord.application_id {
            return Ok(id);
        }
        match &self.discord.token {
            Some(token) => crate::admin::application_id(token.expose()),
            None => Err(crate::admin::InviteError::NoApplication),
        }
    }

    /// Whether a Discord token is configured (a build without Discord refuses to start then).
    #[cfg(any(test, not(feature = "discord")))]
    pub fn has_discord(&self) -> bool {
        self.discord.token.is_some()
    }

    /// The Discord adapter's settings, when a token is configured: boards in the configured
    /// theme, at `[discord] board_size` or else the settings' size.
    #[cfg(feature = "discord")]
    pub fn discord_adapter(&self, settings: &Settings) -> Option<bot_discord::DiscordConfig> {
        let token = self.discord.token.as_ref()?.expose().trim();
        Some(bot_discord::DiscordConfig {
            token: token.trim_start_matches("Bot ").into(),
            registration: match self.discord.guild {
                Some(g) => bot_discord::Registration::Guild(g),
                None => bot_discord::Registration::Global,
            },
            board_size: self.discord.board_size.unwrap_or(settings.size),
            thread_per_game: self.discord.thread_per_game,
            theme: settings.theme.clone(),
            api_url: self
                .discord
                .api_url
                .as_deref()
                .map(|u| u.trim().trim_end_matches('/').to_string()),
        })
    }

    /// The log filter: `RUST_LOG`, or the default (quiet for a healthy bot: matrix-sdk's
    /// expected conditions are turned down by `bot_matrix::QUIET_SDK_LOGS`).
    pub fn log_filter(&self) -> String {
        #[cfg(feature = "matrix")]
        let quiet = bot_matrix::QUIET_SDK_LOGS;
        #[cfg(not(feature = "matrix"))]
        let quiet = "";
        self.log_filter.clone().unwrap_or_else(|| {
            format!("warn,fairybot=info,bot_discord=info,bot_matrix=info,{quiet}")
                .trim_end_matches(',')
                .to_string()
        })
    }

    /// Whether a Matrix login is configured.
    pub fn has_matrix(&self) -> bool {
        self.matrix.access_token.is_some()
            || (self.matrix.user.is_some() && self.matrix.password.is_some())
    }

    /// The Matrix adapter's settings, when a login is configured.
    ///
    /// # Errors
    /// When the login is configured but the homeserver is missing or a value is unusable.
    #[cfg(feature = "matrix")]
    pub fn matrix_adapter(
        &self,
        board_size: u32,
    ) -> anyhow::Result<Option<bot_matrix::MatrixConfig>> {
        if !self.has_matrix() {
            return Ok(None);
        }
        let m = &self.matrix;
        let homeserver = m.homeserver.as_deref().ok_or_else(|| {
            anyhow::anyhow!(
                "a Matrix login is configured but no homeserver: set [matrix] homeserver or \
                 MATRIX_HOMESERVER (for example https://matrix.example.org)"
            )
        })?;
        let login = match (&m.access_token, &m.user, &m.password) {
            (Some(token), _, _) => bot_matrix::Login::AccessToken(token.expose().trim().into()),
            (None, Some(user), Some(password)) => bot_matrix::Login::Password {
                user: user.trim().to_string(),
                password: password.clone(),
            },
            _ => unreachable!("has_matrix checked the login"),
        };
        let state_dir = m
            .state_dir
            .clone()
            .unwrap_or_else(|| self.data_dir().join("matrix"));
        let mut config = bot_matrix::MatrixConfig::new(homeserver, login, state_dir)?;
        if let Some(p) = &m.prefix {
            config = config.with_prefix(p)?;
        }
        config.store_passphrase = m.store_passphrase.clone();
        config.board_size = m.board_size.unwrap_or(board_size);
        Ok(Some(config))
    }
}

/// The process environment (read only through [`Config::load`]).
fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analysis_is_on_by_default_and_its_settings_are_checked() {
        let c = parse("");
        let a = c.analysis.settings(19).unwrap().unwrap();
        assert_eq!((a.nodes, a.threads, a.nice), (60_000, 1, 19));
        let c = parse("[analysis]\nenabled = false");
        assert!(c.analysis.settings(19).unwrap().is_none());
        let c = parse("[analysis]\nnodes = 5");
        let e = c.analysis.settings(19).unwrap_err().to_string();
        assert!(e.contains("[analysis] nodes = 5 is out of range"), "{e}");
        let c = parse("[analysis]\nthreads = 0");
        assert!(c.analysis.settings(0).is_err());
        assert!(toml::from_str::<Config>("[analysis]\nspeed = 3").is_err());
    }

    #[test]
    fn clock_settings_read_or_name_the_key_that_is_wrong() {
        let s = parse(
            "[clocks]\nscheduler_interval_seconds = 5\nreminders = [\"75%\", \"1d\"]\n\
             reminder_gap_hours = 2\nreminders_per_day = 3\n",
        )
        .validate()
        .unwrap();
        assert_eq!(s.scheduler_interval, std::time::Duration::from_secs(5));
        assert_eq!(
            s.reminders.points,
            vec![
                bot_core::time_control::ReminderPoint::Used(750),
                bot_core::time_control::ReminderPoint::Left(bot_core::time_control::DAY_MS)
            ]
        );
        assert_eq!(
            s.reminders.per_game_gap_ms,
            2 * bot_core::time_control::HOUR_MS
        );
        assert_eq!(s.reminders.daily_cap, 3);
        for (text, says) in [
            (
                "scheduler_interval_seconds = 0",
                "scheduler_interval_seconds = 0 is out of range",
            ),
            (
                "reminders = [\"soon\"]",
                "[clocks] reminders: reminder point",
            ),
            (
                "reminder_gap_hours = 9999",
                "reminder_gap_hours = 9999 is out of range",
            ),
        ] {
            let e = parse(&format!("[clocks]\n{text}\n"))
                .validate()
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn the_example_config_parses_and_documents_every_section() {
        let text = include_str!("../../../config.example.toml");
        let c: Config = toml::from_str(text).unwrap();
        assert!(
            !c.has_discord() && !c.has_matrix(),
            "the example must not carry secrets"
        );
        for section in ["[store]", "[render]", "[discord]", "[matrix]", "[clocks]"] {
            assert!(text.contains(section), "{section}");
        }
    }

    #[cfg(feature = "discord")]
    #[test]
    fn environment_overrides_and_unknown_keys_fail() {
        let mut c = Config::default();
        c.apply_env(|k| match k {
            "DISCORD_TOKEN" => Some("Bot t0k".to_string()),
            "DISCORD_GUILD_ID" => Some("42".to_string()),
            "DISCORD_THREAD_PER_GAME" => Some("yes".to_string()),
            _ => None,
        })
        .unwrap();
        let settings = Settings {
            theme: render::Theme::light(),
            size: 512,
            scheduler_interval: std::time::Duration::from_secs(1),
            reminders: Default::default(),
            engine_threads: 1,
            engine_nice: 0,
            instance: "main".into(),
            web: None,
        };
        let d = c
            .discord_adapter(&settings)
            .expect("a token configures Discord");
        assert_eq!(d.token.expose(), "t0k");
        assert_eq!(d.registration, bot_discord::Registration::Guild(42));
        assert!(d.thread_per_game);
        assert_eq!(d.board_size, 512);
        assert!(!c.has_matrix());
        assert!(toml::from_str::<Config>("[store]\nurll = \"x\"").is_err());
    }

    #[cfg(feature = "matrix")]
    #[test]
    fn a_matrix_login_needs_a_homeserver_and_takes_the_environment() {
        let mut c = Config::default();
        c.apply_env(|k| match k {
            "MATRIX_USER" => Some("@bot:example.org".to_string()),
            "MATRIX_PASSWORD" => Some("pw".to_string()),
            _ => None,
        })
        .unwrap();
        assert!(c.has_matrix());
        let e = c.matrix_adapter(640).unwrap_err().to_string();
        assert!(e.contains("MATRIX_HOMESERVER"), "{e}");
        c.apply_env(|k| (k == "MATRIX_HOMESERVER").then(|| "https://m.example.org".to_string()))
            .unwrap();
        c.matrix.prefix = Some("?fb".into());
        let m = c.matrix_adapter(512).unwrap().expect("configured");
        assert_eq!(m.homeserver, "https://m.example.org");
        assert_eq!(m.prefix, "?fb");
        assert_eq!(m.board_size, 512);
        assert_eq!(m.state_dir, PathBuf::from("data").join("matrix"));
        assert!(matches!(m.login, bot_matrix::Login::Password { .. }));
        c.apply_env(|k| (k == "MATRIX_ACCESS_TOKEN").then(|| "syt_x".to_string()))
            .unwrap();
        let m = c.matrix_adapter(512).unwrap().unwrap();
        assert_eq!(m.login, bot_matrix::Login::AccessToken("syt_x".into()));
    }

    fn parse(text: &str) -> Config {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn the_web_server_is_off_by_default_and_each_bad_value_names_its_key() {
        assert!(Config::default().validate().unwrap().web.is_none());
        let w = parse("[web]\nlisten = \"127.0.0.1:8080\"\npublic_url = \"https://chess.example.org/\"\npoll_ms = 200\nthreads = 1\nnice = 0\nspread_ms = 0")
            .validate()
            .unwrap()
            .web
            .unwrap();
        assert_eq!(w.listen.port(), 8080);
        assert_eq!(w.public_url.as_deref(), Some("https://chess.example.org"));
        assert_eq!(w.poll, std::time::Duration::from_millis(200));
        assert_eq!(w.spread, std::time::Duration::ZERO);
        assert_eq!(
            w.priority,
            bot_web::Priority {
                threads: 1,
                nice: 0
            }
        );
        for (text, says) in [
            (
                "listen = \"8080\"",
                "[web] listen = \"8080\" is not an address with a port",
            ),
            (
                "listen = \"127.0.0.1:1\"\npublic_url = \"chess.example.org\"",
                "[web] public_url",
            ),
            (
                "listen = \"127.0.0.1:1\"\npoll_ms = 10",
                "[web] poll_ms = 10 is out of range",
            ),
            ("public_url = \"https://x.org\"", "set listen"),
            (
                "listen = \"127.0.0.1:1\"\nthreads = 0",
                "[web] threads = 0 is out of range",
            ),
            (
                "listen = \"127.0.0.1:1\"\nnice = 20",
                "[web] nice = 20 is out of range",
            ),
            (
                "listen = \"127.0.0.1:1\"\nspread_ms = 201",
                "[web] spread_ms = 201 is out of range",
            ),
        ] {
            let e = parse(&format!("[web]\n{text}"))
                .validate()
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn engine_settings_have_defaults_and_bad_values_are_refused_naming_the_key() {
        let s = Config::default().validate().unwrap();
        assert_eq!(s.engine_threads, bot_core::opponent::default_threads());
        assert!(s.engine_threads >= 1);
        assert_eq!(s.engine_nice, 19);
        let s = parse("[bot]\nengine_threads = 3\nengine_nice = 0")
            .validate()
            .unwrap();
        assert_eq!((s.engine_threads, s.engine_nice), (3, 0));
        for (key, bad) in [
            ("engine_threads", "0"),
            ("engine_threads", "65"),
            ("engine_threads", "1000"),
            ("engine_nice", "-1"),
            ("engine_nice", "20"),
        ] {
            let e = parse(&format!("[bot]\n{key} = {bad}"))
                .validate()
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("[bot] {key} = {bad} is out of range")),
                "{e}"
            );
        }
        assert!(toml::from_str::<Config>("[bot]\nthreads = 2").is_err());
    }

    #[test]
    fn board_sizes_out_of_range_are_refused_naming_the_key_and_the_range() {
        for (text, key) in [
            ("[render]\nsize = 0", "[render] size = 0"),
            ("[render]\nsize = 5000", "[render] size = 5000"),
            ("[render]\nsize = 159", "[render] size = 159"),
            ("[discord]\nboard_size = 4", "[discord] board_size"),
            ("[matrix]\nboard_size = 100000", "[matrix] board_size"),
        ] {
            let e = parse(text).validate().unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
            assert!(e.contains("160 to 2048"), "{text}: {e}");
        }
        for ok in [160, 768, 2048] {
            let s = parse(&format!("[render]\nsize = {ok}")).validate().unwrap();
            assert_eq!(s.size, ok);
        }
        assert_eq!(Config::default().validate().unwrap().size, DEFAULT_SIZE);
        // The example's value is inside the range.
        let example: Config = toml::from_str(include_str!("../../../config.example.toml")).unwrap();
        example.validate().unwrap();
    }

    #[test]
    fn other_nonsense_is_refused_at_start_naming_the_key() {
        for (text, key) in [
            ("[render]\ntheme = \"neon\"", "[render] theme"),
            ("[store]\ndata_dir = \"\"", "[store] data_dir"),
            (
                "[store]\nurl = \"mysql://root:hunter2@db/x\"",
                "[store] url",
            ),
            ("[discord]\ntoken = \"  \"", "[discord] token"),
            ("[matrix]\nhomeserver = \"\"", "[matrix] homeserver"),
        ] {
            let e = parse(text).validate().unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
            assert!(!e.contains("hunter2"), "{e}");
        }
        // A negative size does not even parse, and toml names the key.
        let e = toml::from_str::<Config>("[render]\nsize = -1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("size"), "{e}");
        // Environment values that do not read are refused, not ignored.
        for (var, value) in [
            ("DISCORD_BOARD_SIZE", "big"),
            ("DISCORD_GUILD_ID", "my-server"),
            ("DISCORD_THREAD_PER_GAME", "sometimes"),
        ] {
            let e = Config::default()
                .apply_env(|k| (k == var).then(|| value.to_string()))
                .unwrap_err()
                .to_string();
            assert!(e.contains(var), "{e}");
        }
        let mut c = Config::default();
        c.apply_env(|k| (k == "DISCORD_BOARD_SIZE").then(|| "9000".to_string()))
            .unwrap();
        assert!(
            c.validate()
                .unwrap_err()
                .to_string()
                .contains("DISCORD_BOARD_SIZE")
        );
    }

    /// An environment given as pairs, recording every name asked for.
    #[cfg(any(feature = "discord", feature = "matrix"))]
    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[cfg(any(feature = "discord", feature = "matrix"))]
    const SECRETS: &[(&str, &str)] = &[
        ("DISCORD_TOKEN", "Bot disc0rd-t0ken-s3cret"),
        ("MATRIX_USER", "@bot:example.org"),
        ("MATRIX_PASSWORD", "matrix-pa55word"),
        ("MATRIX_ACCESS_TOKEN", "syt_matrix-acc3ss"),
        ("MATRIX_STORE_PASSPHRASE", "st0re-pa55phrase"),
        (
            "FAIRYBOT_DATABASE_URL",
            "postgres://fb:db-pa55word@db.example.org/games",
        ),
    ];
    #[cfg(feature = "matrix")]
    const SECRET_TEXTS: &[&str] = &[
        "disc0rd-t0ken-s3cret",
        "matrix-pa55word",
        "syt_matrix-acc3ss",
        "st0re-pa55phrase",
        "db-pa55word",
    ];

    #[cfg(feature = "matrix")]
    fn assert_no_secret(text: &str) {
        for s in SECRET_TEXTS {
            assert!(!text.contains(s), "{s} shown in {text}");
        }
    }

    #[cfg(all(feature = "discord", feature = "matrix"))]
    #[test]
    fn secrets_are_absent_from_the_debug_of_every_config() {
        let mut c = Config::default();
        c.apply_env(env(SECRETS)).unwrap();
        c.matrix.homeserver = Some("https://m.example.org".into());
        let shown = format!("{c:?}");
        assert_no_secret(&shown);
        assert!(shown.contains("<redacted>"), "{shown}");
        // What is not secret is still there to debug with.
        assert!(shown.contains("db.example.org"), "{shown}");
        assert!(shown.contains("@bot:example.org"), "{shown}");
        for part in [
            format!("{:?}", c.store),
            format!("{:?}", c.discord),
            format!("{:#?}", c.matrix),
        ] {
            assert_no_secret(&part);
        }
        // The adapters' own configurations.
        let settings = c.validate().unwrap();
        let d = c.discord_adapter(&settings).unwrap();
        assert_eq!(d.token.expose(), "disc0rd-t0ken-s3cret");
        assert_no_secret(&format!("{d:?}"));
        let mut m = c.matrix_adapter(640).unwrap().unwrap();
        assert_no_secret(&format!("{m:?}"));
        m.login = bot_matrix::Login::Password {
            user: "@bot:example.org".into(),
            password: "matrix-pa55word".into(),
        };
        assert_no_secret(&format!("{m:?}"));
    }

    #[cfg(feature = "matrix")]
    #[test]
    fn secrets_are_absent_from_configuration_errors() {
        // A database URL of an unknown scheme, an empty token, a missing homeserver: each
        // error names the key, never the secret next to it.
        let mut c = Config::default();
        c.apply_env(env(SECRETS)).unwrap();
        c.store.url = Some("mysql://fb:db-pa55word@db/games".into());
        let e = c.validate().unwrap_err();
        assert!(e.to_string().contains("[store] url"), "{e}");
        assert_no_secret(&format!("{e:#} {e:?}"));
        c.store.url = None;
        let e = c.matrix_adapter(640).unwrap_err();
        assert!(e.to_string().contains("MATRIX_HOMESERVER"), "{e}");
        assert_no_secret(&format!("{e:#} {e:?}"));
        c.matrix.homeserver = Some("matrix.example.org".into());
        let e = c.matrix_adapter(640).unwrap_err();
        assert_no_secret(&format!("{e:#} {e:?}"));
        // A bad variable next to secrets: only the bad one is quoted.
        let e = Config::load_with(None, |k| match k {
            "DISCORD_GUILD_ID" => Some("my-server".into()),
            k => env(SECRETS)(k),
        })
        .unwrap_err();
        assert!(e.to_string().contains("DISCORD_GUILD_ID"), "{e}");
        assert_no_secret(&format!("{e:#} {e:?}"));
    }

    #[test]
    fn every_variable_is_read_here_once_and_only_the_known_ones() {
        let asked = std::sync::Mutex::new(Vec::new());
        Config::load_with(None, |k| {
            asked.lock().unwrap().push(k.to_string());
            None
        })
        .unwrap();
        let mut asked = asked.into_inner().unwrap();
        asked.sort();
        let mut known: Vec<String> = ENV_VARS.iter().map(|s| s.to_string()).collect();
        known.sort();
        assert_eq!(asked, known, "each variable asked for exactly once");
    }

    #[cfg(feature = "discord")]
    #[test]
    fn a_bad_guild_id_is_an_error_at_start_whatever_else_is_set() {
        for value in ["my-server", "12ab", "-5", "1.5", "99999999999999999999999"] {
            for extra in [&[][..], SECRETS] {
                let e = Config::load_with(None, |k| {
                    if k == "DISCORD_GUILD_ID" {
                        Some(value.to_string())
                    } else {
                        env(extra)(k)
                    }
                })
                .unwrap_err()
                .to_string();
                assert!(e.contains("DISCORD_GUILD_ID"), "{value}: {e}");
                assert!(e.contains("Copy Server ID"), "{value}: {e}");
            }
        }
        // A number, with spaces around it, is a guild.
        let c = Config::load_with(
            None,
            env(&[("DISCORD_TOKEN", "t"), ("DISCORD_GUILD_ID", " 123 ")]),
        )
        .unwrap();
        let d = c.discord_adapter(&c.validate().unwrap()).unwrap();
        assert_eq!(d.registration, bot_discord::Registration::Guild(123));
    }

    #[cfg(feature = "discord")]
    #[test]
    fn the_discord_api_url_reaches_the_adapter_and_a_bad_one_is_refused() {
        let c = Config::load_with(
            None,
            env(&[
                ("DISCORD_TOKEN", "t"),
                ("DISCORD_API_URL", "http://127.0.0.1:4000/"),
            ]),
        )
        .unwrap();
        let d = c.discord_adapter(&c.validate().unwrap()).unwrap();
        assert_eq!(d.api_url.as_deref(), Some("http://127.0.0.1:4000"));
        let c = Config::load_with(None, env(&[("DISCORD_TOKEN", "t")])).unwrap();
        let d = c.discord_adapter(&c.validate().unwrap()).unwrap();
        assert_eq!(d.api_url, None);
        for bad in ["discord.com", "ftp://x", "http://", "https:// spaced"] {
            let c = Config::load_with(None, |k| (k == "DISCORD_API_URL").then(|| bad.to_string()))
                .unwrap();
            let e = c.validate().unwrap_err().to_string();
            assert!(e.contains("DISCORD_API_URL"), "{bad}: {e}");
        }
    }

    #[cfg(feature = "discord")]
    #[test]
    fn environment_values_read_the_same_way_everywhere() {
        // Empty means unset (no token: no Discord, no guild: global).
        let c = Config::load_with(
            None,
            env(&[("DISCORD_TOKEN", ""), ("DISCORD_GUILD_ID", "")]),
        )
        .unwrap();
        assert!(c.discord_adapter(&c.validate().unwrap()).is_none());
        assert_eq!(c.discord.guild, None);
        // Flags: the same words on and off, anything else refused.
        for (v, on) in [
            ("1", true),
            ("TRUE", true),
            ("on", true),
            ("no", false),
            ("0", false),
        ] {
            let c = Config::load_with(None, |k| {
                (k == "DISCORD_THREAD_PER_GAME").then(|| v.to_string())
            })
            .unwrap();
            assert_eq!(c.discord.thread_per_game, on, "{v}");
        }
        // The board size reads as a number and is then range-checked.
        let c = Config::load_with(
            None,
            env(&[("DISCORD_TOKEN", "t"), ("DISCORD_BOARD_SIZE", "480")]),
        )
        .unwrap();
        assert_eq!(
            c.discord_adapter(&c.validate().unwrap())
                .unwrap()
                .board_size,
            480
        );
        // The environment overrides the file.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fairybot.toml");
        std::fs::write(&path, "[discord]\nguild = 7\ntoken = \"file\"\n").unwrap();
        let c = Config::load_with(Some(&path), env(&[("DISCORD_GUILD_ID", "8")])).unwrap();
        assert_eq!(c.discord.guild, Some(8));
        assert_eq!(
            c.discord.token.as_ref().map(|t| t.expose().as_str()),
            Some("file")
        );
        // The log filter comes from RUST_LOG, checked; a typo is refused, not ignored.
        let c = Config::load_with(None, env(&[("RUST_LOG", "debug,bot_matrix=trace")])).unwrap();
        assert_eq!(c.log_filter(), "debug,bot_matrix=trace");
        assert!(
            Config::default()
                .log_filter()
                .starts_with("warn,fairybot=info")
        );
        let e = Config::load_with(None, env(&[("RUST_LOG", "bot_matrix=loud")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("RUST_LOG"), "{e}");
    }

    #[cfg(feature = "discord")]
    #[test]
    fn the_render_theme_reaches_discord() {
        let c = parse("[render]\ntheme = \"dark\"\nsize = 400\n[discord]\ntoken = \"t\"");
        let d = c.discord_adapter(&c.validate().unwrap()).unwrap();
        assert_eq!(d.theme, render::Theme::dark());
        assert_eq!(d.board_size, 400);
        let c = parse("[discord]\ntoken = \"t\"");
        let d = c.discord_adapter(&c.validate().unwrap()).unwrap();
        assert_eq!(d.theme, render::Theme::light());
    }
}
