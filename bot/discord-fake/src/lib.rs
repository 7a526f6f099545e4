//! A local stand-in for Discord's REST API and gateway, for end-to-end tests of a serenity/poise
//! bot. Test-only code: see `README.md` for what it fakes and what it does not.
//!
//! ```no_run
//! # async fn demo() {
//! use discord_fake::{FakeDiscord, ids};
//! let fake = FakeDiscord::start().await;
//! let http = fake.serenity_http(); // HttpBuilder::new(token).proxy(rest_url).ratelimiter_disabled(true)
//! // ... build a poise framework and `serenity::ClientBuilder::new_with_http(http, intents)` ...
//! let ix = fake.slash("play").string("variant", "capablanca").by(ids::ALICE).send();
//! let cb = fake.wait_callback(&ix).await.unwrap();
//! assert_eq!(cb.kind, discord_fake::callback_type::CHANNEL_MESSAGE_WITH_SOURCE);
//! # }
//! ```

#![recursion_limit = "256"]

pub mod fixtures;
mod gateway;
mod interactions;
mod rest;
mod state;
mod view;

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

pub use interactions::{
    ComponentBuilder, InteractionRef, MessageBuilder, ModalSubmitBuilder, NotOffered,
    OptionsBuilder, SlashBuilder,
};
pub use state::Recorded;
pub use view::{
    Attachment, Callback, Choice, Component, FilePart, GatewayStats, Origin, RecordedRequest,
    RegisteredCommand, SelectOption, SentMessage, Thread, callback_type, flatten_components,
    mentioned_users,
};

use state::{ChannelInfo, DmFailure, Out};

/// The ids of the fake's world. Every fake uses the same ones (there is no global state: two
/// fakes in one process are independent servers that happen to use the same ids).
pub mod ids {
    /// The application, and the bot user (equal, as for every application created since 2019).
    pub const APPLICATION: u64 = 1_000_000_000_000_000_001;
    pub const BOT: u64 = APPLICATION;
    /// The test guild, sent in READY and GUILD_CREATE.
    pub const GUILD: u64 = 1_100_000_000_000_000_001;
    /// Text channel `#general` of the test guild.
    pub const GENERAL: u64 = 1_100_000_000_000_000_002;
    /// Text channel `#games` of the test guild.
    pub const GAMES: u64 = 1_100_000_000_000_000_003;
    /// Guild members. Alice owns the guild.
    pub const ALICE: u64 = 2_000_000_000_000_000_001;
    pub const BOB: u64 = 2_000_000_000_000_000_002;
    pub const CAROL: u64 = 2_000_000_000_000_000_003;
    /// A user who is not in the guild (DMs only).
    pub const DAVE: u64 = 2_000_000_000_000_000_004;
}

/// Default timeout of the `wait_*` helpers without a timeout argument.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

/// The bot token the fake hands out (serenity does not validate tokens; neither does the fake).
pub const TOKEN: &str = "fake-token";

/// A user of the fake world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FakeUser {
    pub id: u64,
    pub name: String,
    /// Member of the test guild.
    pub member: bool,
}

impl FakeUser {
    pub fn new(id: u64, name: &str, member: bool) -> Self {
        FakeUser {
            id,
            name: name.to_owned(),
            member,
        }
    }
}

/// Configuration of a fake. `FakeConfig::default()` is what [`FakeDiscord::start`] uses.
#[derive(Clone, Debug)]
pub struct FakeConfig {
    /// Heartbeat interval announced in Hello (Discord's is 41250 ms).
    pub heartbeat_interval_ms: u64,
    pub bot_name: String,
    pub guild_name: String,
    /// Users: alice, bob, carol (members) and dave (not a member) by default.
    pub users: Vec<FakeUser>,
    /// Send the test guild in READY and GUILD_CREATE (default true).
    pub with_guild: bool,
    /// Accept Resume (op 6); if false the fake answers op 9 and serenity re-identifies.
    pub resumable: bool,
    /// Like Discord's 3 s limit: an initial callback later than this after the test injected
    /// the interaction gets 404 / 10062 "Unknown interaction". `None` (default): no limit, so
    /// that slow debug builds do not make tests flaky.
    pub interaction_deadline: Option<Duration>,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            heartbeat_interval_ms: 41_250,
            bot_name: "fairybot".to_owned(),
            guild_name: "Fairy Chess Club".to_owned(),
            users: vec![
                FakeUser::new(ids::ALICE, "alice", true),
                FakeUser::new(ids::BOB, "bob", true),
                FakeUser::new(ids::CAROL, "carol", true),
                FakeUser::new(ids::DAVE, "dave", false),
            ],
            with_guild: true,
            resumable: true,
            interaction_deadline: None,
        }
    }
}

/// A Discord error answer: HTTP status plus JSON `{code, message}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscordError {
    pub status: u16,
    pub code: u64,
    pub message: String,
}

impl DiscordError {
    pub fn new(status: u16, code: u64, message: &str) -> Self {
        DiscordError {
            status,
            code,
            message: message.to_owned(),
        }
    }
    /// 403 / 50007: the user has closed DMs or blocked the bot.
    pub fn cannot_send_messages_to_user() -> Self {
        Self::new(403, 50007, "Cannot send messages to this user")
    }
    /// 403 / 50001.
    pub fn missing_access() -> Self {
        Self::new(403, 50001, "Missing Access")
    }
    /// 403 / 50013.
    pub fn missing_permissions() -> Self {
        Self::new(403, 50013, "Missing Permissions")
    }
    /// 404 / 10003.
    pub fn unknown_channel() -> Self {
        Self::new(404, 10003, "Unknown Channel")
    }
    /// 404 / 10008.
    pub fn unknown_message() -> Self {
        Self::new(404, 10008, "Unknown Message")
    }
    /// 404 / 10062: the interaction expired (3 s) or does not exist.
    pub fn unknown_interaction() -> Self {
        Self::new(404, 10062, "Unknown interaction")
    }
    /// 400 / 40060.
    pub fn already_acknowledged() -> Self {
        Self::new(400, 40060, "Interaction has already been acknowledged.")
    }
    /// 500.
    pub fn internal_server_error() -> Self {
        Self::new(500, 0, "500: Internal Server Error")
    }
    /// 502, as Discord's edge answers when the API behind it is down.
    pub fn bad_gateway() -> Self {
        Self::new(502, 0, "502: Bad Gateway")
    }
    /// 503.
    pub fn service_unavailable() -> Self {
        Self::new(503, 0, "503: Service Unavailable")
    }
}

/// Where a 429 says how long to wait. Discord documents both: the `Retry-After` header
/// (with the `X-RateLimit-*` headers of the bucket) and the JSON body's `retry_after`; proxies
/// and the global limit may give only the body, which is what serenity's own limiter misses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryAfterIn {
    /// `Retry-After` and `X-RateLimit-*` headers, and Discord's body.
    Header,
    /// Only the JSON body: `{"message", "retry_after", "global"}`, no rate-limit header.
    Body,
    /// Only the headers (`Retry-After`, `X-RateLimit-*`, `X-RateLimit-Global` when global):
    /// the body says `{"message", "global"}` without `retry_after`.
    HeaderOnly,
}

/// A rate limit on the routes a matcher selects: at most `limit` requests per `window`
/// (a fixed window from the first request in it), counted per bucket as Discord does. Every
/// answer in the bucket carries `X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket`; a
/// request over the limit gets 429 with the time left in the window, in the chosen form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// The bucket's name (`X-RateLimit-Bucket`).
    pub bucket: String,
    pub limit: u32,
    pub window: Duration,
    pub form: RetryAfterIn,
    /// The 429 says `"global": true` (and `X-RateLimit-Global` in the header form).
    pub global: bool,
}

/// A rate limit and its current window.
pub(crate) struct RateLimitRule {
    pub matcher: Matcher,
    pub limit: RateLimit,
    pub window_start: Option<std::time::Instant>,
    pub used: u32,
}

impl fmt::Debug for RateLimitRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimitRule")
            .field("limit", &self.limit)
            .field("used", &self.used)
            .finish()
    }
}

type Matcher = Box<dyn Fn(&str, &str) -> bool + Send + Sync>;

/// An injected failure: requests matching `matcher(method, route)` get `error`.
pub(crate) struct FailureRule {
    pub matcher: Matcher,
    pub error: DiscordError,
    /// `None`: forever.
    pub remaining: Option<usize>,
    /// The request is carried out first, then answered with `error` (a deferral Discord
    /// recorded although its answer was a 500).
    pub after: bool,
}

impl fmt::Debug for FailureRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FailureRule")
            .field("error", &self.error)
            .field("remaining", &self.remaining)
            .finish()
    }
}

/// How [`FakeDiscord::disconnect`] drops the live gateway connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disconnect {
    /// A close frame with this code (4000 "unknown error" is resumable; serenity resumes).
    Close(u16),
    /// Opcode 7 Reconnect (serenity resumes on a new connection).
    Reconnect,
    /// Opcode 9 Invalid Session with `d: resumable`.
    InvalidSession { resumable: bool },
    /// Drop the TCP connection without a close frame.
    Abort,
}

/// A `wait_*` helper ran out of time. Its `Display` lists what the fake saw.
#[derive(Clone, Debug)]
pub struct WaitTimeout {
    pub waited_for: String,
    pub timeout: Duration,
    pub requests: Vec<String>,
    pub gateway: String,
}

impl fmt::Display for WaitTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "timed out after {:?} waiting for {}",
            self.timeout, self.waited_for
        )?;
        writeln!(f, "gateway: {}", self.gateway)?;
        writeln!(f, "REST requests seen ({}):", self.requests.len())?;
        for r in &self.requests {
            writeln!(f, "  {r}")?;
        }
        Ok(())
    }
}

impl std::error::Error for WaitTimeout {}

#[derive(Debug)]
pub(crate) struct Inner {
    pub state: Mutex<Recorded>,
    pub changed: Notify,
    pub config: FakeConfig,
    pub rest_url: String,
    pub gateway_url: String,
}

impl Inner {
    pub fn lock(&self) -> MutexGuard<'_, Recorded> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// GUILD_CREATE payloads of the configured guilds.
    pub fn guilds(&self) -> Vec<(u64, Value)> {
        if !self.config.with_guild {
            return Vec::new();
        }
        let st = self.lock();
        let channels = st
            .channels
            .iter()
            .filter_map(|(id, c)| match c {
                ChannelInfo::Text { guild_id, .. } if *guild_id == ids::GUILD => {
                    st.channel_json(*id)
                }
                _ => None,
            })
            .collect();
        let mut members = vec![fixtures::member(st.user_json(st.bot_id), None)];
        members.extend(
            self.config
                .users
                .iter()
                .filter(|u| u.member)
                .map(|u| fixtures::member(st.user_json(u.id), None)),
        );
        vec![(
            ids::GUILD,
            fixtures::guild_create(
                ids::GUILD,
                &self.config.guild_name,
                ids::ALICE,
                channels,
                members,
            ),
        )]
    }
}

/// The running fake: a REST server and a gateway server on 127.0.0.1 ephemeral ports.
/// Dropping it stops both.
#[derive(Debug)]
pub struct FakeDiscord {
    pub(crate) inner: Arc<Inner>,
    rest_addr: SocketAddr,
    gateway_addr: SocketAddr,
    stop_rest: Option<oneshot::Sender<()>>,
    tasks: Vec<JoinHandle<()>>,
}

impl FakeDiscord {
    /// Starts a fake with [`FakeConfig::default`].
    pub async fn start() -> FakeDiscord {
        Self::start_with(FakeConfig::default()).await
    }

    /// Starts a fake. Panics if it cannot bind 127.0.0.1 (a test-setup failure).
    pub async fn start_with(config: FakeConfig) -> FakeDiscord {
        let rest_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind fake REST listener");
        let gw_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind fake gateway listener");
        let rest_addr = rest_listener.local_addr().expect("REST address");
        let gateway_addr = gw_listener.local_addr().expect("gateway address");
        let rest_url = format!("http://{rest_addr}");
        let gateway_url = format!("ws://{gateway_addr}");

        let mut st = Recorded {
            resumable: config.resumable,
            next_id: 1_400_000_000_000_000_000,
            app_id: ids::APPLICATION,
            bot_id: ids::BOT,
            bot_name: config.bot_name.clone(),
            rest_url: rest_url.clone(),
            gateway_url: gateway_url.clone(),
            ..Recorded::default()
        };
        for u in &config.users {
            st.users.insert(u.id, u.clone());
        }
        if config.with_guild {
            st.channels.insert(
                ids::GENERAL,
                ChannelInfo::Text {
                    guild_id: ids::GUILD,
                    name: "general".into(),
                    position: 0,
                },
            );
            st.channels.insert(
                ids::GAMES,
                ChannelInfo::Text {
                    guild_id: ids::GUILD,
                    name: "games".into(),
                    position: 1,
                },
            );
        }
        let inner = Arc::new(Inner {
            state: Mutex::new(st),
            changed: Notify::new(),
            config,
            rest_url,
            gateway_url,
        });

        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let rest_task = tokio::spawn(rest::serve(rest_listener, Arc::clone(&inner), stop_rx));
        let gw_task = tokio::spawn(gateway::serve(gw_listener, Arc::clone(&inner)));
        FakeDiscord {
            inner,
            rest_addr,
            gateway_addr,
            stop_rest: Some(stop_tx),
            tasks: vec![rest_task, gw_task],
        }
    }

    /// Base URL for `HttpBuilder::proxy`, e.g. `http://127.0.0.1:41234` (serenity rewrites
    /// `https://discord.com` to it, so requests arrive as `/api/v10/...`).
    pub fn rest_url(&self) -> String {
        self.inner.rest_url.clone()
    }

    /// The websocket URL `GET /gateway` returns, e.g. `ws://127.0.0.1:41235`.
    pub fn gateway_url(&self) -> String {
        self.inner.gateway_url.clone()
    }

    pub fn rest_addr(&self) -> SocketAddr {
        self.rest_addr
    }

    pub fn gateway_addr(&self) -> SocketAddr {
        self.gateway_addr
    }

    pub fn application_id(&self) -> u64 {
        ids::APPLICATION
    }

    pub fn bot_user_id(&self) -> u64 {
        ids::BOT
    }

    pub fn guild_id(&self) -> u64 {
        ids::GUILD
    }

    /// The token to give serenity (`"Bot "` is added by serenity if missing).
    pub fn token(&self) -> &'static str {
        TOKEN
    }

    /// A serenity `Http` pointed at the fake, rate limiter off, application id set, and a
    /// reqwest client that ignores `HTTP_PROXY`/`HTTPS_PROXY` (reqwest honours them by default,
    /// even for 127.0.0.1).
    pub fn serenity_http(&self) -> serenity::http::Http {
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("reqwest client for the fake");
        serenity::http::HttpBuilder::new(TOKEN)
            .client(client)
            .proxy(self.rest_url())
            .ratelimiter_disabled(true)
            .application_id(serenity::model::id::ApplicationId::new(ids::APPLICATION))
            .build()
    }

    /// Stops both servers and ends every gateway connection (also done on drop).
    pub async fn shutdown(mut self) {
        self.stop();
        for t in std::mem::take(&mut self.tasks) {
            let _ = t.await;
        }
    }

    fn stop(&mut self) {
        if let Some(tx) = self.stop_rest.take() {
            let _ = tx.send(());
        }
        for t in &self.tasks {
            t.abort();
        }
        // End the live connection, so that the bot sees the gateway go away.
        let mut st = self.inner.lock();
        if let Some((_, tx)) = st.session.current.take() {
            let _ = tx.send(Out::Abort);
        }
    }

    // ----- reading what was recorded -----

    /// Runs `f` on the recorded state (under the lock: do not block in it).
    pub fn inspect<T>(&self, f: impl FnOnce(&Recorded) -> T) -> T {
        f(&self.inner.lock())
    }

    /// Every REST request so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.inspect(|r| r.requests.clone())
    }

    /// Requests matching a method and route pattern (`*` = one segment).
    pub fn requests_matching(&self, method: &str, pattern: &str) -> Vec<RecordedRequest> {
        self.inspect(|r| {
            r.requests_matching(method, pattern)
                .into_iter()
                .cloned()
                .collect()
        })
    }

    /// Requests to endpoints the fake does not implement.
    pub fn unhandled_requests(&self) -> Vec<RecordedRequest> {
        self.inspect(|r| r.unhandled_requests().into_iter().cloned().collect())
    }

    /// Messages in a channel (current state, deleted ones left out).
    pub fn messages_in(&self, channel_id: u64) -> Vec<SentMessage> {
        self.inspect(|r| r.messages_in(channel_id).into_iter().cloned().collect())
    }

    /// A message by id.
    pub fn message(&self, id: u64) -> Option<SentMessage> {
        self.inspect(|r| r.message(id).cloned())
    }

    /// Callbacks for an interaction.
    pub fn callbacks_for(&self, interaction_id: u64) -> Vec<Callback> {
        self.inspect(|r| {
            r.callbacks_for(interaction_id)
                .into_iter()
                .cloned()
                .collect()
        })
    }

    /// The message `@original` of an interaction refers to.
    pub fn original_response(&self, interaction_id: u64) -> Option<SentMessage> {
        self.inspect(|r| r.original_response(interaction_id).cloned())
    }

    /// Followups of an interaction.
    pub fn followups(&self, interaction_id: u64) -> Vec<SentMessage> {
        self.inspect(|r| r.followups(interaction_id).into_iter().cloned().collect())
    }

    /// Global commands as last registered.
    pub fn registered_commands(&self) -> Vec<RegisteredCommand> {
        self.inspect(Recorded::registered_commands)
    }

    /// Guild commands as last registered.
    pub fn guild_commands(&self, guild_id: u64) -> Vec<RegisteredCommand> {
        self.inspect(|r| r.guild_commands(guild_id))
    }

    /// DM channel opened with a user.
    pub fn dm_channel_of(&self, user_id: u64) -> Option<u64> {
        self.inspect(|r| r.dm_channel_of(user_id))
    }

    /// Messages the bot sent to a user by DM.
    pub fn dm_messages_to(&self, user_id: u64) -> Vec<SentMessage> {
        self.inspect(|r| r.dm_messages_to(user_id).into_iter().cloned().collect())
    }

    /// Threads the bot created.
    pub fn threads(&self) -> Vec<Thread> {
        self.inspect(|r| r.threads.clone())
    }

    /// Gateway statistics.
    pub fn gateway_stats(&self) -> GatewayStats {
        self.inspect(|r| r.gateway.clone())
    }

    // ----- waiting -----

    /// Waits until `f` returns `Some`, re-checking whenever the fake records something. Returns
    /// a [`WaitTimeout`] listing every request seen if `timeout` passes first.
    pub async fn wait_until<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut f: impl FnMut(&Recorded) -> Option<T>,
    ) -> Result<T, WaitTimeout> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.inner.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(t) = f(&self.inner.lock()) {
                return Ok(t);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(self.inspect(|r| WaitTimeout {
                    waited_for: what.to_owned(),
                    timeout,
                    requests: r.requests.iter().map(ToString::to_string).collect(),
                    gateway: format!("{:?}", r.gateway),
                }));
            }
        }
    }

    /// Waits for the first request matching `predicate` (among all requests so far and later).
    pub async fn wait_for(
        &self,
        predicate: impl Fn(&RecordedRequest) -> bool,
        timeout: Duration,
    ) -> Result<RecordedRequest, WaitTimeout> {
        self.wait_until("a matching request", timeout, |r| {
            r.requests.iter().find(|q| predicate(q)).cloned()
        })
        .await
    }

    /// Waits for a request with this method and route pattern (`*` = one segment).
    pub async fn wait_request(
        &self,
        method: &str,
        pattern: &str,
    ) -> Result<RecordedRequest, WaitTimeout> {
        let what = format!("{method} {pattern}");
        self.wait_until(&what, DEFAULT_TIMEOUT, |r| {
            r.requests
                .iter()
                .find(|q| q.matches(method, pattern))
                .cloned()
        })
        .await
    }

    /// Waits for the first callback of an interaction.
    pub async fn wait_callback(&self, ix: &InteractionRef) -> Result<Callback, WaitTimeout> {
        self.wait_callback_n(ix.id, 1)
            .await
            .map(|mut v| v.remove(0))
    }

    /// Waits until an interaction has `n` callbacks (a second callback is an error in Discord:
    /// the fake answers it with 40060, but records it).
    pub async fn wait_callback_n(
        &self,
        interaction_id: u64,
        n: usize,
    ) -> Result<Vec<Callback>, WaitTimeout> {
        let what = format!("{n} callback(s) for interaction {interaction_id}");
        self.wait_until(&what, DEFAULT_TIMEOUT, |r| {
            let cbs = r.callbacks_for(interaction_id);
            (cbs.len() >= n).then(|| cbs.into_iter().cloned().collect())
        })
        .await
    }

    /// Waits for a message (current state) matching `predicate`.
    pub async fn wait_message(
        &self,
        predicate: impl Fn(&SentMessage) -> bool,
    ) -> Result<SentMessage, WaitTimeout> {
        self.wait_until("a matching message", DEFAULT_TIMEOUT, |r| {
            r.messages
                .iter()
                .find(|m| !m.deleted && predicate(m))
                .cloned()
        })
        .await
    }

    /// Waits for the `n`-th (from 1) message the bot sent to a user by DM.
    pub async fn wait_dm(&self, user_id: u64, n: usize) -> Result<SentMessage, WaitTimeout> {
        let what = format!("DM #{n} to user {user_id}");
        self.wait_until(&what, DEFAULT_TIMEOUT, |r| {
            r.dm_messages_to(user_id).get(n - 1).map(|m| (*m).clone())
        })
        .await
    }

    /// Waits until global commands were registered (`PUT applications/{id}/commands`).
    pub async fn wait_global_commands(&self) -> Result<Vec<RegisteredCommand>, WaitTimeout> {
        self.wait_until("global command registration", DEFAULT_TIMEOUT, |r| {
            (!r.requests_matching("PUT", "applications/*/commands")
                .is_empty())
            .then(|| r.registered_commands())
        })
        .await
    }

    /// Waits until guild commands were registered for a guild.
    pub async fn wait_guild_commands(
        &self,
        guild_id: u64,
    ) -> Result<Vec<RegisteredCommand>, WaitTimeout> {
        let pattern = format!("applications/*/guilds/{guild_id}/commands");
        self.wait_until("guild command registration", DEFAULT_TIMEOUT, |r| {
            (!r.requests_matching("PUT", &pattern).is_empty()).then(|| r.guild_commands(guild_id))
        })
        .await
    }

    /// Waits until the gateway statistics satisfy `predicate`.
    pub async fn wait_gateway(
        &self,
        predicate: impl Fn(&GatewayStats) -> bool,
    ) -> Result<GatewayStats, WaitTimeout> {
        self.wait_until("a gateway state", DEFAULT_TIMEOUT, |r| {
            predicate(&r.gateway).then(|| r.gateway.clone())
        })
        .await
    }

    /// Waits until the bot identified and got READY (and the guild).
    pub async fn wait_ready(&self) -> Result<GatewayStats, WaitTimeout> {
        self.wait_gateway(|g| g.readies >= 1).await
    }

    // ----- failures -----

    /// From now on, messages the bot sends to this user's DM channel fail with 403 / 50007
    /// "Cannot send messages to this user" (what Discord answers for closed DMs). Opening the DM
    /// channel still works, as on Discord.
    pub fn close_dms(&self, user_id: u64) {
        self.inner
            .lock()
            .closed_dms
            .insert(user_id, DmFailure::OnSend);
        self.inner.changed.notify_waiters();
    }

    /// Like [`close_dms`](Self::close_dms), but already `POST /users/@me/channels` fails
    /// (403 / 50007).
    pub fn close_dms_at_open(&self, user_id: u64) {
        self.inner
            .lock()
            .closed_dms
            .insert(user_id, DmFailure::OnOpen);
    }

    /// Opens a user's DMs again.
    pub fn open_dms(&self, user_id: u64) {
        self.inner.lock().closed_dms.remove(&user_id);
    }

    /// Requests for which `matcher(method, route)` is true (route without `/api/v10/`, e.g.
    /// `channels/1/messages`) are answered with `error`, `times` times (`None`: always).
    pub fn fail_requests(
        &self,
        matcher: impl Fn(&str, &str) -> bool + Send + Sync + 'static,
        error: DiscordError,
        times: Option<usize>,
    ) {
        self.inner.lock().failures.push(FailureRule {
            matcher: Box::new(matcher),
            error,
            remaining: times,
            after: false,
        });
    }

    /// Like [`fail_requests`](Self::fail_requests), but each matching request is carried out
    /// first and only its answer is the error: what the bot sees when Discord recorded a
    /// deferral (or a message) and its edge answered 500. A retry then meets the consequence
    /// (400 / 40060 "already acknowledged" for an interaction callback).
    pub fn fail_after_doing(
        &self,
        matcher: impl Fn(&str, &str) -> bool + Send + Sync + 'static,
        error: DiscordError,
        times: Option<usize>,
    ) {
        self.inner.lock().failures.push(FailureRule {
            matcher: Box::new(matcher),
            error,
            remaining: times,
            after: true,
        });
    }

    /// Messages the bot sent (in any channel, DM, response or followup) that still show
    /// "thinking…": a deferred answer never given.
    pub fn thinking(&self) -> Vec<SentMessage> {
        self.inspect(|r| {
            r.messages
                .iter()
                .filter(|m| !m.deleted && m.is_loading())
                .cloned()
                .collect()
        })
    }

    /// Removes every rule added with [`fail_requests`](Self::fail_requests) and
    /// [`rate_limit`](Self::rate_limit).
    pub fn clear_failures(&self) {
        let mut st = self.inner.lock();
        st.failures.clear();
        st.rate_limits.clear();
    }

    /// Rate-limits the requests for which `matcher(method, route)` is true: see [`RateLimit`].
    /// A request answered 429 is recorded (status 429) and does nothing; it does not count
    /// against the window, as on Discord.
    pub fn rate_limit(
        &self,
        matcher: impl Fn(&str, &str) -> bool + Send + Sync + 'static,
        limit: RateLimit,
    ) {
        self.inner.lock().rate_limits.push(RateLimitRule {
            matcher: Box::new(matcher),
            limit,
            window_start: None,
            used: 0,
        });
    }

    // ----- gateway control -----

    /// Sends a raw dispatch (`op 0`) with event name `t` and data `d`. Held until READY if the
    /// bot has not identified yet; kept for replay if the bot is reconnecting.
    pub fn dispatch(&self, t: &str, d: Value) {
        self.inner.lock().dispatch(t, d);
        self.inner.changed.notify_waiters();
    }

    /// Drops the live gateway connection in the given way. Events dispatched until the bot
    /// resumes are replayed on resume.
    pub fn disconnect(&self, how: Disconnect) {
        let mut st = self.inner.lock();
        if let Some((_, tx)) = st.session.current.take() {
            let out = match how {
                Disconnect::Close(code) => Out::Close(code),
                Disconnect::Reconnect => Out::Text(fixtures::reconnect().to_string()),
                Disconnect::InvalidSession { resumable } => {
                    Out::Text(fixtures::invalid_session(resumable).to_string())
                }
                Disconnect::Abort => Out::Abort,
            };
            let _ = tx.send(out);
            st.gateway.connected = false;
        }
        drop(st);
        self.inner.changed.notify_waiters();
    }

    /// From now on `user_id`'s interactions in guild channels carry these permission bits
    /// (Discord's `member.permissions`), e.g. `0x20` Manage Server, instead of the default.
    pub fn set_member_permissions(&self, user_id: u64, bits: u64) {
        self.inner.lock().member_permissions.insert(user_id, bits);
    }

    /// While `down`, the gateway closes every new connection at once, as a gateway outage
    /// looks to a bot; the live one is not touched (drop it with [`FakeDiscord::disconnect`]).
    pub fn set_gateway_down(&self, down: bool) {
        self.inner.lock().gateway_down = down;
    }

    /// Whether Resume (op 6) is accepted from now on.
    pub fn set_resumable(&self, resumable: bool) {
        self.inner.lock().resumable = resumable;
    }

    /// From now on the interaction's initial callback fails with 404 / 10062, as when a bot
    /// answers after Discord's 3 s limit.
    pub fn expire_interaction(&self, ix: &InteractionRef) {
        if let Some(r) = self.inner.lock().interactions.get_mut(&ix.id) {
            r.expired = true;
        }
    }

    /// Adds a user to the world (not a guild member), e.g. for DMs.
    pub fn add_user(&self, id: u64, name: &str) {
        self.inner
            .lock()
            .users
            .insert(id, FakeUser::new(id, name, false));
    }
}

impl Drop for FakeDiscord {
    fn drop(&mut self) {
        self.stop();
    }
}
