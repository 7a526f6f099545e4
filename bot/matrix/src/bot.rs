//! The bot: its own `sync_once` loop, the events it reads, and the commands it runs.
//!
//! matrix-sdk's `Client::sync` waits a second after every sync that returned within a second,
//! which adds up to a second to every answer in an active room; the loop here syncs again at
//! once (and backs off only on errors). Each sync's events are handled before the next sync:
//! rooms in parallel, the events of one room in order. See [`crate::ledger`] for what happens
//! to commands sent while the bot was offline.

use std::{
    collections::HashSet,
    future::Future,
    sync::Arc,
    time::{Duration, Instant},
};

use bot_core::{
    Actor,
    model::{Place, Platform, PlayerId},
    outbox::CommandKeys,
};
use matrix_sdk::{
    Client, Room, RoomState,
    config::SyncSettings,
    room::MessagesOptions,
    ruma::{
        EventId, MilliSecondsSinceUnixEpoch, OwnedEventId, OwnedRoomId, OwnedUserId, UInt, UserId,
        api::{
            client::{filter::FilterDefinition, sync::sync_events::v3::Filter},
            error::ErrorKind,
        },
        events::{
            AnySyncMessageLikeEvent, AnySyncStateEvent, AnySyncTimelineEvent, SyncMessageLikeEvent,
            SyncStateEvent,
            reaction::OriginalSyncReactionEvent,
            room::{
                member::MembershipChange,
                message::{
                    FileMessageEventContent, MessageFormat, MessageType,
                    OriginalSyncRoomMessageEvent, Relation,
                },
            },
        },
    },
    sync::SyncResponse,
};
use rules::Catalog;

use crate::{
    Games, MatrixConfig, MatrixError,
    format::{self, REACTIONS_KEY},
    invocation::Invocation,
    ledger::Ledger,
    undecrypted::Undecrypted,
};

/// Events per room a sync returns at most; more (a long time offline in a busy room) leaves a
/// gap, which the bot fills by paginating the room's history back to its last sync.
const TIMELINE_LIMIT: u32 = 100;
/// Events fetched per page when filling such a gap.
const BACKFILL_PAGE: u32 = 100;
/// Events read back at most per room and gap; older commands than that are logged as lost
/// (a week of a busy room, not an outage of a few hours).
const BACKFILL_MAX: usize = 5_000;

/// How often a page of the read-back is tried before the commands in it are given up, and
/// the wait after the first failure (doubling after each): about 7.5 s in all, for a
/// homeserver restarting with the bot (both down at once, as after a host's reboot) or a
/// proxy's passing 502.
const BACKFILL_TRIES: u32 = 5;
const BACKFILL_FIRST_WAIT: Duration = Duration::from_millis(500);

/// Runs `read` until it succeeds or has failed `tries` times (at least once), waiting `first`
/// after the first failure and twice as long after each next one; the last error if none
/// succeeded.
async fn with_retries<T, E, F, Fut>(
    tries: u32,
    first: std::time::Duration,
    mut read: F,
) -> Result<T, E>
where
    E: std::fmt::Display,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut wait = first;
    let mut n = 1;
    loop {
        match read().await {
            Ok(t) => return Ok(t),
            Err(e) if n >= tries => return Err(e),
            Err(e) => {
                tracing::info!("a read failed ({e}), try {n} of {tries}; again in {wait:?}");
                tokio::time::sleep(wait).await;
                wait = wait.saturating_mul(2);
                n += 1;
            }
        }
    }
}
/// How long the server may hold a sync open when nothing happens.
const SYNC_TIMEOUT: Duration = Duration::from_secs(30);
/// Back-off after a failed sync: from the first to the last value, doubling.
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MAX: Duration = Duration::from_secs(30);
/// Joining an invited room: attempts and the first delay (doubling).
const JOIN_ATTEMPTS: u32 = 8;
const JOIN_FIRST_DELAY: Duration = Duration::from_millis(250);
/// A command begun before a restart and never stored is run again if it was sent this
/// recently: the store forgets settled replies after seven days, and past that it could not
/// tell a stored command from one never stored.
const RUN_AGAIN_WITHIN: Duration = Duration::from_secs(6 * 24 * 3600);

/// The platform's name in [`bot_core::metrics::Health`].
const HEALTH_NAME: &str = "matrix";

/// A command as the homeserver delivered it: who sent it, its event, and when.
struct Asked<'a> {
    sender: &'a UserId,
    event: &'a EventId,
    sent: MilliSecondsSinceUnixEpoch,
}

/// The Matrix bot over a logged-in client.
pub struct MatrixBot {
    pub(crate) client: Client,
    pub(crate) me: OwnedUserId,
    pub(crate) games: Arc<dyn Games>,
    pub(crate) pictures: bot_core::picture::Painter,
    pub(crate) invocation: Invocation,
    pub(crate) ledger: tokio::sync::Mutex<Ledger>,
    /// Where the bot says whether its syncs go through (`/healthz`).
    health: bot_core::metrics::Health,
    /// Each player's direct room, once found or created. Each player's entry has a lock of its
    /// own, held while the room is checked or created (so two private replies at once never
    /// create two rooms), which never makes another player's reply wait.
    pub(crate) direct: crate::locks::KeyedLocks<OwnedUserId, Option<OwnedRoomId>>,
    /// Senders told, per room, that a message of theirs could not be decrypted.
    pub(crate) told_undecrypted: std::sync::Mutex<HashSet<(OwnedRoomId, OwnedUserId)>>,
    /// Players told that their private messages are held, per game (its number, or the
    /// room when the message names none): told once, until they have read them.

    /// The event each outbox entry was sent as, in this run, and the ones being sent: a later
    /// reply that replaces an entry ([`bot_core::reply::Reply::replaces`], an analysis's
    /// progress line) is sent as an `m.replace` edit of it (see [`crate::sent`]).
    pub(crate) sent_events: crate::sent::SentEvents<OwnedEventId>,
}

impl std::fmt::Debug for MatrixBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatrixBot")
            .field("me", &self.me)
            .field("prefix", &self.invocation.prefix)
            .finish_non_exhaustive()
    }
}

/// One event of a sync, read.
enum Incoming {
    Message(Box<OriginalSyncRoomMessageEvent>),
    Reaction(Box<OriginalSyncReactionEvent>),
    /// An encrypted message the bot has no key for (yet).
    Undecryptable(OwnedEventId, OwnedUserId),
    OwnJoin,
    Other,
}

impl MatrixBot {
    /// Logs in (or restores the saved session) and prepares the bot.
    ///
    /// # Errors
    /// See [`crate::session::connect`]; also when the ledger cannot be opened.
    pub async fn connect(
        config: &MatrixConfig,
        games: Arc<dyn Games>,
        catalog: Arc<Catalog>,
        renderer: Arc<render::Renderer>,
    ) -> Result<MatrixBot, MatrixError> {
        let client = crate::session::connect(config).await?;
        Self::with_client(client, config, games, catalog, renderer).await
    }

    /// A bot over an already logged-in client (tests, custom wiring).
    ///
    /// # Errors
    /// When the client is not logged in or the ledger cannot be opened.
    pub async fn with_client(
        client: Client,
        config: &MatrixConfig,
        games: Arc<dyn Games>,
        catalog: Arc<Catalog>,
        renderer: Arc<render::Renderer>,
    ) -> Result<MatrixBot, MatrixError> {
        let me = client
            .user_id()
            .ok_or_else(|| MatrixError::Login("the client is not logged in".into()))?
            .to_owned();
        std::fs::create_dir_all(&config.state_dir)
            .map_err(|e| MatrixError::Config(format!("{}: {e}", config.state_dir.display())))?;
        // Opening compacts the file and fsyncs it: on a blocking thread.
        let path = config.state_dir.join("ledger");
        let ledger = tokio::task::spawn_blocking(move || Ledger::open(&path))
            .await
            .map_err(|e| MatrixError::Config(format!("cannot open the ledger: {e}")))??;
        let mut names = Vec::new();
        match client.account().get_display_name().await {
            Ok(Some(n)) if !n.trim().is_empty() => names.push(n),
            Ok(_) => {}
            Err(e) => tracing::warn!("cannot read the bot's display name: {e}"),
        }
        names.push(me.localpart().to_string());
        // Who the bot is here: `challenge @fairybot:server` is a game against it.
        games.set_bot_user(PlayerId::new(Platform::Matrix, me.as_str()), &names[0]);
        Ok(MatrixBot {
            invocation: Invocation {
                prefix: config.prefix.clone(),
                bot: me.to_string(),
                names,
            },
            client,
            me,
            games,
            pictures: bot_core::picture::Painter {
                catalog,
                renderer,
                theme: render::Theme::light(),
                size: config.board_size,
            },
            ledger: tokio::sync::Mutex::new(ledger),
            health: bot_core::metrics::Health::new(),
            direct: crate::locks::KeyedLocks::default(),
            told_undecrypted: std::sync::Mutex::new(HashSet::new()),
            sent_events: crate::sent::SentEvents::default(),
        })
    }

    /// Draws boards with this theme.
    pub fn with_theme(mut self, theme: render::Theme) -> MatrixBot {
        self.pictures.theme = theme;
        self
    }

    /// Reports the connection to `health` as `matrix`: connected while syncs go through, not
    /// connected from a failed sync until the next one succeeds (and before the first).
    pub fn with_health(mut self, health: bot_core::metrics::Health) -> MatrixBot {
        health.set(HEALTH_NAME, false);
        self.health = health;
        self
    }

    /// The logged-in client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The bot's user id.
    pub fn user_id(&self) -> &UserId {
        &self.me
    }

    /// [`MatrixBot::run`], delivering the core's announcements (the bot's moves) meanwhile.
    ///
    /// # Errors
    /// As [`MatrixBot::run`].
    pub async fn run_with_announcements(
        &self,
        stop: impl Future<Output = ()>,
    ) -> Result<(), MatrixError> {
        let deliver = async {
            self.deliver_announcements().await;
            // The core stopped announcing: the commands go on.
            std::future::pending::<()>().await;
        };
        tokio::select! {
            r = self.run(stop) => r,
            () = deliver => Ok(()),
        }
    }

    /// Syncs and answers until `stop` completes (a batch being handled is finished first) or
    /// the session ends.
    ///
    /// On the very first start the existing history is skipped: only what arrives after it is
    /// a command. On later starts the bot resumes from its ledger, so commands sent while it
    /// was offline are answered once, in order.
    ///
    /// # Errors
    /// When the access token is revoked or the ledger cannot be written (the bot cannot
    /// promise "never twice" then, so it stops).
    pub async fn run(&self, stop: impl Future<Output = ()>) -> Result<(), MatrixError> {
        tokio::pin!(stop);
        // A restart: the first sync reads again what the last run left unhandled. (On the
        // very first start there is nothing before.)
        let mut catching_up = self.ledger.lock().await.token().is_some();
        tokio::select! {
            () = &mut stop => return Ok(()),
            r = self.first_sync() => r?,
        }
        let filter = sync_filter();
        let mut token = self
            .ledger
            .lock()
            .await
            .token()
            .map(str::to_string)
            .ok_or_else(|| MatrixError::Sync("no sync token after the first sync".into()))?;
        for room in self.client.invited_rooms() {
            self.spawn_join(room);
        }
        tracing::info!("Matrix bot {} is listening", self.me);
        let mut retry = RETRY_FIRST;
        let mut undecrypted = Vec::new();
        let mut first = true;
        loop {
            let settings = SyncSettings::default()
                .filter(filter.clone())
                .token(token.clone())
                .timeout(if first {
                    // Answered at once: what came while the bot was away, and the first
                    // sign that the homeserver answers (`/healthz`).
                    Duration::ZERO
                } else if undecrypted.is_empty() {
                    SYNC_TIMEOUT
                } else {
                    crate::undecrypted::TICK
                });
            let result = tokio::select! {
                () = &mut stop => return Ok(()),
                r = self.client.sync_once(settings) => r,
            };
            match result {
                Ok(response) => {
                    self.health.set(HEALTH_NAME, true);
                    retry = RETRY_FIRST;
                    undecrypted.extend(self.handle_sync(&response, &token, catching_up).await?);
                    (catching_up, first) = (false, false);
                    self.ledger
                        .lock()
                        .await
                        .advance(&response.next_batch)
                        .await?;
                    token = response.next_batch;
                    self.retry_undecrypted(&mut undecrypted).await?;
                }
                Err(e) => {
                    if matches!(e.client_api_error_kind(), Some(ErrorKind::UnknownToken(_))) {
                        return Err(MatrixError::Login(format!(
                            "the homeserver revoked the bot's access token ({e}); restart to \
                             log in again"
                        )));
                    }
                    self.health.set(HEALTH_NAME, false);
                    tracing::warn!("sync failed, retrying in {retry:?}: {e}");
                    tokio::select! {
                        () = &mut stop => return Ok(()),
                        () = tokio::time::sleep(retry) => {}
                    }
                    retry = (retry * 2).min(RETRY_MAX);
                }
            }
        }
    }

    /// On the very first start (an empty ledger), syncs once and records everything so far as
    /// history, which is never answered; later starts do nothing here. [`MatrixBot::run`]
    /// calls it; call it before to know when the bot listens.
    ///
    /// # Errors
    /// When the sync fails or the ledger cannot be written.
    pub async fn first_sync(&self) -> Result<(), MatrixError> {
        if self.ledger.lock().await.token().is_some() {
            return Ok(());
        }
        let first = self
            .client
            .sync_once(SyncSettings::default().filter(sync_filter()))
            .await
            .map_err(|e| MatrixError::Sync(e.to_string()))?;
        tracing::info!("first sync done; earlier messages are history, not commands");
        self.ledger.lock().await.advance(&first.next_batch).await?;
        Ok(())
    }

    /// Handles one sync from the token `since`: joins invites, then the new events of every
    /// joined room, with the events a limited timeline left out read back first.
    ///
    /// Returns the messages that could not be decrypted, to be tried again.
    async fn handle_sync(
        &self,
        response: &SyncResponse,
        since: &str,
        catching_up: bool,
    ) -> Result<Vec<Undecrypted>, MatrixError> {
        let mut undecrypted = Vec::new();
        if catching_up && response.rooms.joined.is_empty() && response.next_batch != since {
            undecrypted = self
                .read_back_lost_batch(&response.next_batch, since)
                .await?;
        }
        for room_id in response.rooms.invited.keys() {
            if let Some(room) = self.client.get_room(room_id) {
                self.spawn_join(room);
            }
        }
        let mut work = Vec::new();
        let mut opened = Vec::new();
        for (room_id, update) in &response.rooms.joined {
            let Some(room) = self.client.get_room(room_id) else {
                continue;
            };
            let mut events: Vec<Incoming> = update
                .timeline
                .events
                .iter()
                .map(|e| self.read(e.raw().deserialize()))
                .collect();
            let joined_now = events.iter().any(|e| matches!(e, Incoming::OwnJoin));
            if joined_now {
                opened.push(room.clone());
            }
            if update.timeline.limited && !joined_now {
                // A gap between the last sync and this batch: read it back, oldest first.
                let mut gap = match &update.timeline.prev_batch {
                    Some(from) => self.backfill(&room, from, since).await,
                    None => Vec::new(),
                };
                gap.append(&mut events);
                events = gap;
            }
            // In a room the bot has just joined, what came before the join was not said to it.
            let start = events
                .iter()
                .rposition(|e| matches!(e, Incoming::OwnJoin))
                .map_or(0, |i| i + 1);
            let events: Vec<Incoming> = events.into_iter().skip(start).collect();
            if may_hold_commands(&events) {
                work.push(self.handle_room(room, events));
            }
        }
        for result in futures_util::future::join_all(work).await {
            undecrypted.extend(result?);
        }
        for room in opened {
            self.welcome(&room).await;
        }
        Ok(undecrypted)
    }

    /// The first sync of a restart, when matrix-sdk handed back nothing: it had stored the
    /// token of the batch the last run was handling when it stopped, and a response ending
    /// at a token it has seen is dropped as a repeat (`receive_sync_response`), so the events
    /// of that batch would never come again. Each joined room's events between the bot's own
    /// token and now are read back with `/messages` and handled as a sync's would be (those
    /// handled before are skipped by the ledger). A sync that is empty for a good reason
    /// (nothing happened) costs one request a room, once a start.
    async fn read_back_lost_batch(
        &self,
        now: &str,
        since: &str,
    ) -> Result<Vec<Undecrypted>, MatrixError> {
        let mut work = Vec::new();
        for room in self.client.joined_rooms() {
            let events = self.backfill(&room, now, since).await;
            if may_hold_commands(&events) {
                work.push(self.handle_room(room, events));
            }
        }
        let mut undecrypted = Vec::new();
        for result in futures_util::future::join_all(work).await {
            undecrypted.extend(result?);
        }
        Ok(undecrypted)
    }

    /// A room the bot has just joined: if it is private to a player (he opened it with the
    /// bot alone, encrypted), what was held for him because he had left his direct room goes
    /// there now, without waiting for his next command.
    async fn welcome(&self, room: &Room) {
        let Some(player) = crate::privacy::private_to(room).await else {
            return;
        };
        {
            // His direct room from now on, unless he has one in use: what follows finds it
            // here instead of looking through every joined room again.
            let mut known = self.direct.lock(&player).await;
            if known.is_none() {
                *known = Some(room.room_id().to_owned());
            }
        }
        let actor = Actor::new(
            PlayerId::new(Platform::Matrix, player.as_str()),
            display_name(room, &player).await,
        );
        self.deliver_kept(&actor).await;
    }

    /// The events of `room` between the sync token `to` (where the bot's last sync ended) and
    /// `from` (where this sync's limited timeline begins), oldest first, read back with
    /// `/messages`. At most [`BACKFILL_MAX`]; a page is tried [`BACKFILL_TRIES`] times; a
    /// failure past those or a longer gap is logged, and the commands in the part not read
    /// are not answered.
    async fn backfill(&self, room: &Room, from: &str, to: &str) -> Vec<Incoming> {
        let mut newest_first = Vec::new();
        let mut from = from.to_string();
        loop {
            let read = || {
                let mut options = MessagesOptions::backward().from(from.as_str());
                options.to = Some(to.to_string());
                options.limit = UInt::from(BACKFILL_PAGE);
                room.messages(options)
            };
            let page = match with_retries(BACKFILL_TRIES, BACKFILL_FIRST_WAIT, read).await {
                Ok(page) => page,
                Err(e) => {
                    tracing::warn!(
                        "cannot read back the events of {} missed while offline ({e}, \
                         {BACKFILL_TRIES} tries): commands among them are not answered",
                        room.room_id()
                    );
                    break;
                }
            };
            newest_first.extend(page.chunk.iter().map(|e| self.read(e.raw().deserialize())));
            match page.end {
                Some(end) if !page.chunk.is_empty() && end != from => from = end,
                _ => break,
            }
            if newest_first.len() >= BACKFILL_MAX {
                tracing::warn!(
                    "more than {BACKFILL_MAX} events in {} since the last sync: commands among \
                     the older ones are not answered",
                    room.room_id()
                );
                break;
            }
        }
        tracing::info!(
            "read back {} events of {} missed while offline",
            newest_first.len(),
            room.room_id()
        );
        newest_first.reverse();
        newest_first
    }

    fn read(&self, event: serde_json::Result<AnySyncTimelineEvent>) -> Incoming {
        match event {
            Ok(AnySyncTimelineEvent::MessageLike(AnySyncMessageLikeEvent::RoomMessage(
                SyncMessageLikeEvent::Original(m),
            ))) if m.sender != self.me => Incoming::Message(Box::new(m)),
            Ok(AnySyncTimelineEvent::MessageLike(AnySyncMessageLikeEvent::Reaction(
                SyncMessageLikeEvent::Original(r),
            ))) if r.sender != self.me => Incoming::Reaction(Box::new(r)),
            Ok(AnySyncTimelineEvent::MessageLike(AnySyncMessageLikeEvent::RoomEncrypted(
                SyncMessageLikeEvent::Original(e),
            ))) if e.sender != self.me => Incoming::Undecryptable(e.event_id, e.sender),
            Ok(AnySyncTimelineEvent::State(AnySyncStateEvent::RoomMember(
                SyncStateEvent::Original(m),
            ))) if m.state_key == self.me
                && matches!(
                    m.membership_change(),
                    MembershipChange::Joined | MembershipChange::InvitationAccepted
                ) =>
            {
                Incoming::OwnJoin
            }
            Ok(_) => Incoming::Other,
            Err(e) => {
                tracing::debug!("an event that does not read: {e}");
                Incoming::Other
            }
        }
    }

    /// The events of one room, in order. Returns the messages it could not decrypt.
    async fn handle_room(
        &self,
        room: Room,
        events: Vec<Incoming>,
    ) -> Result<Vec<Undecrypted>, MatrixError> {
        let mut undecrypted = Vec::new();
        for event in events {
            match event {
                Incoming::Message(m) => self.on_message(&room, &m).await?,
                Incoming::Reaction(r) => self.on_reaction(&room, &r).await?,
                Incoming::Undecryptable(event, sender) => undecrypted.push(Undecrypted {
                    room: room.clone(),
                    event,
                    sender,
                    since: Instant::now(),
                }),
                Incoming::OwnJoin | Incoming::Other => {}
            }
        }
        Ok(undecrypted)
    }

    pub(crate) async fn on_message(
        &self,
        room: &Room,
        m: &OriginalSyncRoomMessageEvent,
    ) -> Result<(), MatrixError> {
        // An edit is not a new command (the original was answered already).
        if matches!(m.content.relates_to, Some(Relation::Replacement(_))) {
            return Ok(());
        }
        if let MessageType::File(f) = &m.content.msgtype {
            return self.on_file(room, m, f).await;
        }
        let MessageType::Text(t) = &m.content.msgtype else {
            return Ok(());
        };
        let html = t
            .formatted
            .as_ref()
            .filter(|f| f.format == MessageFormat::Html)
            .map(|f| f.body.as_str());
        // One rule, by members, for both "no prefix needed" and "secrets may be typed here":
        // the `m.direct` flag says nothing about who reads a room (and is missing on many
        // private rooms), so it decides neither.
        let private = self.is_private(room, &m.sender).await;
        let Some(text) = self.invocation.command(&t.body, html, private) else {
            return Ok(());
        };
        let thread = match &m.content.relates_to {
            Some(Relation::Thread(th)) => Some(th.event_id.clone()),
            _ => None,
        };
        let place = place_of(room, private, thread.as_deref());
        let asked = Asked {
            sender: &m.sender,
            event: &m.event_id,
            sent: m.origin_server_ts,
        };
        self.run_command(room, place, &asked, &m.event_id, &text)
            .await
    }

    /// A file: a variant definition (`.ini` or `.toml`) sent with the caption `variant add`
    /// (with the bot's prefix where one is needed), or without a caption in the player's
    /// private room, is added as if pasted after `variant add`. Any other file is not a
    /// command. A file over the definition's size limit is refused without being fetched.
    async fn on_file(
        &self,
        room: &Room,
        m: &OriginalSyncRoomMessageEvent,
        f: &FileMessageEventContent,
    ) -> Result<(), MatrixError> {
        let name = f.filename().to_string();
        let lower = name.to_ascii_lowercase();
        let tag = if lower.ends_with(".ini") {
            "ini"
        } else if lower.ends_with(".toml") {
            "toml"
        } else {
            return Ok(());
        };
        let private = self.is_private(room, &m.sender).await;
        let asked = match f.caption() {
            // Exactly `variant add`, with nothing after it: the file is the definition.
            Some(caption) => self
                .invocation
                .command(caption, None, private)
                .and_then(|c| bot_core::command::variant_add_body(&c))
                .is_some_and(|(_, body)| body.is_empty()),
            None => private,
        };
        if !asked {
            return Ok(());
        }
        // Handled before (a sync read again): not fetched again. One begun before a restart
        // is fetched again, and [`Self::run_command`] asks the store whether it was stored.
        if self.ledger.lock().await.is_handled(m.event_id.as_str()) {
            return Ok(());
        }
        let thread = match &m.content.relates_to {
            Some(Relation::Thread(th)) => Some(th.event_id.clone()),
            _ => None,
        };
        let place = place_of(room, private, thread.as_deref());
        match self.fetch_definition(room, f, &name).await {
            Ok(definition) => {
                let text = format!("variant add ```{tag}\n{definition}\n```");
                let asked = Asked {
                    sender: &m.sender,
                    event: &m.event_id,
                    sent: m.origin_server_ts,
                };
                self.run_command(room, place, &asked, &m.event_id, &text)
                    .await
            }
            Err(refusal) => {
                {
                    // A refusal changes nothing: once is enough, even if a restart cut it off.
                    let mut ledger = self.ledger.lock().await;
                    if ledger.was_begun(m.event_id.as_str()) {
                        return Ok(());
                    }
                    ledger.mark(m.event_id.as_str()).await?;
                }
                let actor = Actor::new(
                    PlayerId::new(Platform::Matrix, m.sender.as_str()),
                    display_name(room, &m.sender).await,
                );
                let reply = bot_core::reply::Reply::actor(refusal);
                self.deliver(room, &place, &actor, &m.event_id, vec![reply])
                    .await;
                Ok(())
            }
        }
    }

    /// A variant file's text, or what to tell the player instead: too large (refused before
    /// it is fetched when its size is announced), not text, or not fetched.
    async fn fetch_definition(
        &self,
        room: &Room,
        f: &FileMessageEventContent,
        name: &str,
    ) -> Result<String, String> {
        let max = bot_core::command::MAX_DEFINITION_BYTES;
        let too_large = |n: u64| {
            format!(
                "{} has {n} bytes; a variant definition has at most {max}. Send a smaller file.",
                bot_core::quote::quote(name)
            )
        };
        if let Some(n) = f.info.as_ref().and_then(|i| i.size).map(u64::from)
            && n > max as u64
        {
            return Err(too_large(n));
        }
        match self.client.media().get_file(f, false).await {
            Ok(Some(bytes)) if bytes.len() > max => Err(too_large(bytes.len() as u64)),
            Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| {
                format!(
                    "{} is not text (UTF-8); a variant definition is a .ini or .toml text file.",
                    bot_core::quote::quote(name)
                )
            }),
            Ok(None) | Err(_) => {
                tracing::warn!("a variant file in {} could not be fetched", room.room_id());
                Err(format!(
                    "I could not fetch {} from the homeserver; send it again in a moment.",
                    bot_core::quote::quote(name)
                ))
            }
        }
    }

    /// A 👍 or 👎 on one of the bot's questions runs the command it stands for.
    async fn on_reaction(
        &self,
        room: &Room,
        r: &OriginalSyncReactionEvent,
    ) -> Result<(), MatrixError> {
        let key = format::normalise_key(&r.content.relates_to.key);
        if key != format::YES && key != format::NO {
            return Ok(());
        }
        if self.ledger.lock().await.is_handled(r.event_id.as_str()) {
            return Ok(());
        }
        let target = &r.content.relates_to.event_id;
        let event = match room.event(target, None).await {
            Ok(e) => e,
            Err(e) => {
                tracing::debug!("reaction to {target} that cannot be fetched: {e}");
                return Ok(());
            }
        };
        let Ok(value) = event.raw().deserialize_as::<serde_json::Value>() else {
            return Ok(());
        };
        if value["sender"].as_str() != Some(self.me.as_str()) {
            return Ok(());
        }
        let Some(command) = value["content"][REACTIONS_KEY][&key].as_str() else {
            return Ok(());
        };
        let relation = &value["content"]["m.relates_to"];
        let thread = (relation["rel_type"].as_str() == Some("m.thread"))
            .then(|| relation["event_id"].as_str())
            .flatten()
            .and_then(|id| EventId::parse(id).ok());
        let private = self.is_private(room, &r.sender).await;
        let place = place_of(room, private, thread.as_deref());
        let asked = Asked {
            sender: &r.sender,
            event: &r.event_id,
            sent: r.origin_server_ts,
        };
        self.run_command(room, place, &asked, target, command).await
    }

    /// Runs a command once: recorded in the ledger first, then given to the core, then its
    /// replies delivered. One begun before a restart (see [`crate::ledger`]) runs again only
    /// if the store has nothing of it; its replies are keyed by its event id either way.
    async fn run_command(
        &self,
        room: &Room,
        place: Place,
        asked: &Asked<'_>,
        reply_to: &EventId,
        text: &str,
    ) -> Result<(), MatrixError> {
        let (sender, event) = (asked.sender, asked.event);
        let keys = CommandKeys::of(event.as_str());
        {
            let mut ledger = self.ledger.lock().await;
            if ledger.is_handled(event.as_str()) {
                return Ok(());
            }
            if ledger.was_begun(event.as_str()) && !self.run_again(asked, &keys).await {
                return Ok(());
            }
            ledger.mark(event.as_str()).await?;
        }
        let actor = Actor {
            id: PlayerId::new(Platform::Matrix, sender.as_str()),
            name: display_name(room, sender).await,
            command: Some(keys),
            answer: None,
            admin: is_moderator(room, sender).await,
            // A Matrix room stands alone: its variants are its own.
            server: None,
        };
        // Only the command's first word: the rest may be a Looking-Glass back rank or order,
        // which no log may hold.
        tracing::debug!(
            "{} in {}: `{}` ({} bytes)",
            sender,
            room.room_id(),
            crate::first_word(text),
            text.len()
        );
        let replies = match refuse_room_mention(text) {
            Some(refusal) => vec![refusal],
            None => self.games.handle_text(&actor, &place, text).await,
        };
        self.deliver(room, &place, &actor, reply_to, replies).await;
        self.deliver_kept(&actor).await;
        Ok(())
    }

    /// Whether a command begun before a restart is to run again: only if the store has none
    /// of its replies (its first run never reached the store) and it is recent enough that
    /// the store would still know them (settled replies are forgotten after a week). When the
    /// store cannot say, it is not run: twice is worse than a command the player sees
    /// unanswered and types again.
    async fn run_again(&self, asked: &Asked<'_>, keys: &CommandKeys) -> bool {
        let age = asked
            .sent
            .to_system_time()
            .and_then(|t| std::time::SystemTime::now().duration_since(t).ok())
            .unwrap_or_default();
        if age > RUN_AGAIN_WITHIN {
            tracing::info!(
                "{} begun before a restart {age:?} ago: not run again",
                asked.event
            );
            return false;
        }
        match self.games.answered(keys).await {
            Ok(true) => {
                tracing::info!(
                    "{} was stored before the restart: its replies are in the outbox",
                    asked.event
                );
                false
            }
            Ok(false) => {
                tracing::info!("{} was cut off by the restart: run again", asked.event);
                true
            }
            Err(e) => {
                tracing::warn!(
                    "{} was begun before the restart, and the store cannot say how far: {e}",
                    asked.event
                );
                false
            }
        }
    }

    /// Whether `sender` may type secrets in `room` now: its members, read from the state
    /// store when the command arrives (they change), are the bot and `sender` alone. The
    /// `m.direct` flag does not count: anyone can set it on a room with a third person.
    async fn is_private(&self, room: &Room, sender: &UserId) -> bool {
        let started = Instant::now();
        let private = crate::privacy::is_private_channel(room, sender).await;
        tracing::debug!(
            "{} is {}private for {sender} (read in {:.2} ms)",
            room.room_id(),
            if private { "" } else { "not " },
            started.elapsed().as_secs_f64() * 1e3
        );
        private
    }

    /// Joins an invited room in the background, retrying with back-off (an invite can arrive
    /// before the room is joinable over federation).
    fn spawn_join(&self, room: Room) {
        if room.state() != RoomState::Invited {
            return;
        }
        tokio::spawn(async move {
            let mut delay = JOIN_FIRST_DELAY;
            for attempt in 1..=JOIN_ATTEMPTS {
                match room.join().await {
                    Ok(()) => {
                        tracing::info!("joined {}", room.room_id());
                        return;
                    }
                    Err(e) if attempt == JOIN_ATTEMPTS => {
                        tracing::warn!(
                            "giving up joining {} after {attempt} attempts: {e}",
                            room.room_id()
                        );
                    }
                    Err(e) => {
                        tracing::debug!("joining {} failed ({e}); retrying", room.room_id());
                        tokio::time::sleep(delay).await;
                        delay *= 2;
                    }
                }
            }
        });
    }
}

/// `@room` is Matrix's "notify everyone here", not a player: a command naming it (`challenge
/// @room chess` would open a challenge to a user `@room:server`, that is to nobody) is refused
/// with what to type instead. Not kept in the outbox: it changes nothing, and a lost refusal
/// is the same command typed again.
fn refuse_room_mention(text: &str) -> Option<bot_core::reply::Reply> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    let names_room = words.any(|w| {
        let w = w.trim_end_matches([',', '.', ':', ';']);
        w.eq_ignore_ascii_case("@room")
            || w.split_once(':')
                .is_some_and(|(local, _)| local.eq_ignore_ascii_case("@room"))
    });
    names_room.then(|| {
        bot_core::reply::Reply::actor(format!(
            "`@room` is everyone in this room, not a player: `{first}` needs one player. Name \
             them (`{first} @alice:example.org chess`, or pick them from the room's members)."
        ))
    })
}

/// The filter of every sync: more timeline events per room than the server's default, so a
/// bot that was offline a while still sees the commands it missed.
/// Whether any of `events` may be a command (a message, a reaction, or one not decrypted).
fn may_hold_commands(events: &[Incoming]) -> bool {
    events.iter().any(|e| {
        matches!(
            e,
            Incoming::Message(_) | Incoming::Reaction(_) | Incoming::Undecryptable(..)
        )
    })
}

fn sync_filter() -> Filter {
    let mut definition = FilterDefinition::default();
    definition.room.timeline.limit = Some(UInt::from(TIMELINE_LIMIT));
    Filter::FilterDefinition(definition)
}

/// Where a command was given: the room (marked private when only the bot and the player read
/// it, see [`crate::privacy`]: the core takes secret input only there), narrowed to its thread.
fn place_of(room: &Room, private: bool, thread: Option<&EventId>) -> Place {
    let place = if private {
        Place::direct(Platform::Matrix, room.room_id().as_str())
    } else {
        Place::room(Platform::Matrix, room.room_id().as_str())
    };
    match thread {
        Some(t) => place.in_thread(t.as_str()),
        None => place,
    }
}

/// Whether `user` moderates `room` (a power level of 50 or more, or a room creator's in room
/// versions that make them all-powerful): [`bot_core::Actor::admin`].
async fn is_moderator(room: &Room, user: &UserId) -> bool {
    use matrix_sdk::ruma::events::room::power_levels::UserPowerLevel;
    match room.get_member_no_sync(user).await {
        Ok(Some(m)) => match m.power_level() {
            UserPowerLevel::Int(level) => i64::from(level) >= 50,
            UserPowerLevel::Infinite => true,
            // A kind this version does not know: no more rights than a player.
            _ => false,
        },
        _ => false,
    }
}

/// A member's display name in a room, or the localpart of their id.
pub(crate) async fn display_name(room: &Room, user: &UserId) -> String {
    match room.get_member_no_sync(user).await {
        Ok(Some(m)) => m
            .display_name()
            .map(str::to_string)
            .unwrap_or_else(|| user.localpart().to_string()),
        _ => user.localpart().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::refuse_room_mention;

    /// Issue 27: a read-back that fails while the homeserver comes back is tried again, with
    /// waits that double, and gives up with the last error after the last try.
    #[tokio::test]
    async fn a_read_back_is_tried_again_until_it_succeeds_or_the_tries_run_out() {
        use std::{cell::Cell, time::Duration};

        use super::with_retries;

        let first = Duration::from_millis(20);
        let calls = Cell::new(0);
        let began = std::time::Instant::now();
        let read = || {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move {
                if n < 3 {
                    Err(format!("502 #{n}"))
                } else {
                    Ok(n)
                }
            }
        };
        assert_eq!(with_retries(5, first, read).await, Ok(3));
        // Waited 20 ms, then 40 ms: never less.
        assert!(
            began.elapsed() >= Duration::from_millis(60),
            "{:?}",
            began.elapsed()
        );

        calls.set(0);
        let never = || {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move { Err::<(), _>(format!("502 #{n}")) }
        };
        assert_eq!(
            with_retries(5, first, never).await,
            Err("502 #5".to_string())
        );
        assert_eq!(calls.get(), 5);
        // At least one try, whatever the count.
        calls.set(0);
        assert!(with_retries(0, first, never).await.is_err());
        assert_eq!(calls.get(), 1);
    }

    /// Issue 27: `challenge @room chess` opened a challenge to nobody.
    #[test]
    fn a_command_naming_at_room_is_refused_with_what_to_do() {
        for text in [
            "challenge @room chess",
            "challenge @room:example.org chess",
            "challenge @ROOM, chess",
        ] {
            let refusal = refuse_room_mention(text).expect(text);
            assert!(refusal.text.contains("not a player"), "{}", refusal.text);
            assert_eq!(refusal.audience, bot_core::reply::Audience::Actor);
        }
        assert!(refuse_room_mention("challenge @roomba:example.org chess").is_none());
        assert!(refuse_room_mention("challenge @alice:example.org chess").is_none());
        assert!(refuse_room_mention("board").is_none());
    }
}
