//! The fake's state: the request log, messages, callbacks, commands, channels, and the gateway
//! session. One `std::sync::Mutex` guards all of it; it is never held across an `.await`.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;

use crate::fixtures::{self, MessageParts};
use crate::view::{
    Attachment, Callback, FilePart, GatewayStats, Origin, RecordedRequest, RegisteredCommand,
    SentMessage, Thread,
};
use crate::{DiscordError, FailureRule, FakeUser, RateLimitRule, RetryAfterIn};

/// Extra response headers (lower-case names).
pub(crate) type Headers = Vec<(String, String)>;

/// A frame or action for the live websocket connection.
#[derive(Debug)]
pub(crate) enum Out {
    Text(String),
    Close(u16),
    Abort,
}

/// The gateway session (survives reconnects until the next Identify).
#[derive(Debug, Default)]
pub(crate) struct Session {
    pub id: Option<String>,
    pub seq: u64,
    /// Dispatches of this session: `(seq, frame)`, replayed on resume.
    pub log: Vec<(u64, String)>,
    /// Highest seq written to a live connection.
    pub delivered: u64,
    pub current: Option<(u64, UnboundedSender<Out>)>,
    /// Events injected before the first READY: sent right after it.
    pub pending: Vec<(String, Value)>,
    pub sessions_started: u64,
    pub next_conn: u64,
}

/// An interaction the test injected.
#[derive(Debug, Clone)]
pub(crate) struct InteractionRecord {
    pub id: u64,
    pub token: String,
    pub kind: u64,
    pub channel_id: u64,
    pub guild_id: Option<u64>,
    pub user_id: u64,
    /// The message a component was on.
    pub message_id: Option<u64>,
    /// The message `@original` refers to.
    pub original: Option<u64>,
    pub responded: bool,
    /// When the test injected it (the 3-second clock of [`crate::FakeConfig::interaction_deadline`]).
    pub created: std::time::Instant,
    /// Set by [`crate::FakeDiscord::expire_interaction`].
    pub expired: bool,
}

/// How a closed DM fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DmFailure {
    OnSend,
    OnOpen,
}

/// Channel kinds the fake knows.
#[derive(Debug, Clone)]
pub(crate) enum ChannelInfo {
    Text {
        guild_id: u64,
        name: String,
        position: u64,
    },
    Dm {
        recipient: u64,
    },
    Thread(Thread, u64),
}

/// Everything the fake recorded. Passed to the closures of [`crate::FakeDiscord::wait_until`]
/// and [`crate::FakeDiscord::inspect`].
#[derive(Debug, Default)]
pub struct Recorded {
    pub(crate) requests: Vec<RecordedRequest>,
    pub(crate) messages: Vec<SentMessage>,
    pub(crate) callbacks: Vec<Callback>,
    pub(crate) global_commands: Vec<Value>,
    pub(crate) guild_commands: BTreeMap<u64, Vec<Value>>,
    pub(crate) command_ids: HashMap<(Option<u64>, String), u64>,
    pub(crate) interactions: HashMap<u64, InteractionRecord>,
    pub(crate) channels: BTreeMap<u64, ChannelInfo>,
    pub(crate) dm_channels: BTreeMap<u64, u64>,
    pub(crate) threads: Vec<Thread>,
    pub(crate) users: BTreeMap<u64, FakeUser>,
    pub(crate) gateway: GatewayStats,
    pub(crate) session: Session,
    pub(crate) failures: Vec<FailureRule>,
    pub(crate) rate_limits: Vec<RateLimitRule>,
    pub(crate) closed_dms: HashMap<u64, DmFailure>,
    pub(crate) resumable: bool,
    /// New gateway connections are closed as soon as they are made (Discord's gateway down).
    pub(crate) gateway_down: bool,
    /// Members' permissions in guild channels where not the default
    /// ([`fixtures::PERMISSIONS`]), as bits.
    pub(crate) member_permissions: HashMap<u64, u64>,
    /// Files users attached to slash commands (`SlashBuilder::attachment`): name and bytes.
    pub(crate) uploads: HashMap<u64, (String, Vec<u8>)>,
    pub(crate) next_id: u64,
    // Copied from the fake at start, so that state methods can build payloads alone.
    pub(crate) app_id: u64,
    pub(crate) bot_id: u64,
    pub(crate) bot_name: String,
    pub(crate) rest_url: String,
    pub(crate) gateway_url: String,
    /// Channel messages not created again because their nonce was seen (`enforce_nonce`).
    pub(crate) nonce_repeats: usize,
}

impl Recorded {
    /// How many channel messages were not created again because their nonce had been seen
    /// (`enforce_nonce: true`): sends the bot repeated.
    pub fn nonce_repeats(&self) -> usize {
        self.nonce_repeats
    }

    /// Every REST request, in order.
    pub fn requests(&self) -> &[RecordedRequest] {
        &self.requests
    }

    /// Requests matching `method` and a route pattern (`*` = one segment), e.g.
    /// `("POST", "channels/*/messages")`.
    pub fn requests_matching(&self, method: &str, pattern: &str) -> Vec<&RecordedRequest> {
        self.requests
            .iter()
            .filter(|r| r.matches(method, pattern))
            .collect()
    }

    /// Requests the fake does not implement (answered 404 with code 0).
    pub fn unhandled_requests(&self) -> Vec<&RecordedRequest> {
        self.requests
            .iter()
            .filter(|r| r.status == 404 && r.error_code == Some(0))
            .collect()
    }

    /// Every message (bot's and injected users'), current state, deleted ones included.
    pub fn messages(&self) -> &[SentMessage] {
        &self.messages
    }

    /// The message with this id.
    pub fn message(&self, id: u64) -> Option<&SentMessage> {
        self.messages.iter().find(|m| m.id == id)
    }

    /// Messages in a channel (not deleted), oldest first; includes interaction responses.
    pub fn messages_in(&self, channel_id: u64) -> Vec<&SentMessage> {
        self.messages
            .iter()
            .filter(|m| m.channel_id == channel_id && !m.deleted)
            .collect()
    }

    /// Every interaction callback, in order.
    pub fn callbacks(&self) -> &[Callback] {
        &self.callbacks
    }

    /// Callbacks for one interaction (normally one; a second one is answered with 40060).
    pub fn callbacks_for(&self, interaction_id: u64) -> Vec<&Callback> {
        self.callbacks
            .iter()
            .filter(|c| c.interaction_id == interaction_id)
            .collect()
    }

    /// The message `@original` of an interaction refers to (for a component interaction, the
    /// message the component is on), unless deleted.
    pub fn original_response(&self, interaction_id: u64) -> Option<&SentMessage> {
        let id = self.interactions.get(&interaction_id)?.original?;
        self.message(id).filter(|m| !m.deleted)
    }

    /// Followup messages of an interaction (not deleted).
    pub fn followups(&self, interaction_id: u64) -> Vec<&SentMessage> {
        self.messages
            .iter()
            .filter(|m| m.origin == Origin::Followup { interaction_id } && !m.deleted)
            .collect()
    }

    /// Global commands as last registered.
    pub fn registered_commands(&self) -> Vec<RegisteredCommand> {
        self.global_commands
            .iter()
            .map(RegisteredCommand::from_json)
            .collect()
    }

    /// Guild commands of one guild as last registered.
    pub fn guild_commands(&self, guild_id: u64) -> Vec<RegisteredCommand> {
        self.guild_commands
            .get(&guild_id)
            .map(|v| v.iter().map(RegisteredCommand::from_json).collect())
            .unwrap_or_default()
    }

    /// Whether a Discord client would offer the command `name` to a user in guild `guild`
    /// (`None`: in the bot's DM): in a guild, that guild's commands and the global commands
    /// whose `contexts` include 0 (GUILD) or are unset; in a DM, only global commands whose
    /// `contexts` include 1 (BOT_DM), or are unset with `dm_permission` not `false`. Guild
    /// commands are never offered in DMs. `None` when no such command is registered at all
    /// (a test injecting commands without a bot, or a client with a stale list).
    pub fn offers(&self, name: &str, guild: Option<u64>) -> Option<bool> {
        let in_context = |c: &Value, context: u64| match c["contexts"].as_array() {
            Some(list) => list.iter().any(|x| x.as_u64() == Some(context)),
            None => context == 0 || c["dm_permission"] != Value::Bool(false),
        };
        let global = self.global_commands.iter().find(|c| c["name"] == name);
        let in_guild = guild.and_then(|g| {
            self.guild_commands
                .get(&g)
                .and_then(|l| l.iter().find(|c| c["name"] == name))
        });
        let anywhere = global.is_some()
            || self
                .guild_commands
                .values()
                .any(|l| l.iter().any(|c| c["name"] == name));
        if !anywhere {
            return None;
        }
        Some(match guild {
            Some(_) => in_guild.is_some() || global.is_some_and(|c| in_context(c, 0)),
            None => global.is_some_and(|c| in_context(c, 1)),
        })
    }

    /// The DM channel the bot opened with a user.
    pub fn dm_channel_of(&self, user_id: u64) -> Option<u64> {
        self.dm_channels.get(&user_id).copied()
    }

    /// Messages the bot sent in its DM channel with a user.
    pub fn dm_messages_to(&self, user_id: u64) -> Vec<&SentMessage> {
        match self.dm_channel_of(user_id) {
            Some(c) => self.messages_in(c),
            None => Vec::new(),
        }
    }

    /// Threads the bot created.
    pub fn threads(&self) -> &[Thread] {
        &self.threads
    }

    /// Gateway statistics.
    pub fn gateway(&self) -> &GatewayStats {
        &self.gateway
    }

    // ----- internal -----

    pub(crate) fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub(crate) fn user_json(&self, id: u64) -> Value {
        if id == self.bot_id {
            return fixtures::user(id, &self.bot_name, true);
        }
        match self.users.get(&id) {
            Some(u) => fixtures::user(id, &u.name, false),
            None => fixtures::user(id, &format!("user{id}"), false),
        }
    }

    pub(crate) fn channel_guild(&self, channel_id: u64) -> Option<u64> {
        match self.channels.get(&channel_id)? {
            ChannelInfo::Text { guild_id, .. } => Some(*guild_id),
            ChannelInfo::Thread(_, guild_id) => Some(*guild_id),
            ChannelInfo::Dm { .. } => None,
        }
    }

    pub(crate) fn channel_json(&self, channel_id: u64) -> Option<Value> {
        Some(match self.channels.get(&channel_id)? {
            ChannelInfo::Text {
                guild_id,
                name,
                position,
            } => fixtures::text_channel(channel_id, *guild_id, name, *position),
            ChannelInfo::Dm { recipient } => {
                fixtures::dm_channel(channel_id, self.user_json(*recipient))
            }
            ChannelInfo::Thread(t, guild_id) => fixtures::thread_channel(
                t.id,
                *guild_id,
                t.parent_id,
                self.bot_id,
                &t.name,
                t.kind,
                1440,
            ),
        })
    }

    pub(crate) fn attachment_url(&self, channel_id: u64, a: &Attachment) -> String {
        format!(
            "{}/attachments/{channel_id}/{}/{}",
            self.rest_url, a.id, a.filename
        )
    }

    /// The message object Discord would return for this message.
    pub(crate) fn message_json(&self, m: &SentMessage) -> Value {
        let attachments = m
            .attachments
            .iter()
            .map(|a| {
                fixtures::attachment(
                    a.id,
                    &a.filename,
                    a.bytes.len(),
                    a.content_type.as_deref(),
                    a.description.as_deref(),
                    &self.attachment_url(m.channel_id, a),
                )
            })
            .collect();
        let interaction = m.interaction_id().and_then(|iid| {
            self.interactions
                .get(&iid)
                .map(|i| (iid, i.kind, self.user_json(i.user_id)))
        });
        let interacted_message = m
            .interaction_id()
            .and_then(|iid| self.interactions.get(&iid))
            .and_then(|i| i.message_id);
        let webhook_id = m.interaction_id().map(|_| self.app_id);
        let thread = m.thread_id.and_then(|t| self.channel_json(t));
        fixtures::message(
            m.id,
            m.channel_id,
            self.user_json(m.author_id),
            &m.content,
            MessageParts {
                guild_id: m.guild_id,
                flags: m.flags,
                embeds: m.embeds.clone(),
                components: m.component_rows.clone(),
                attachments,
                edited: m.edits > 0,
                webhook_id,
                interaction,
                interacted_message,
                mentions: Vec::new(),
                reactions: m
                    .reactions
                    .iter()
                    .map(|e| fixtures::reaction(e, 1, true))
                    .collect(),
                thread,
            },
        )
    }

    /// Builds the attachments of a create/edit payload from its files.
    fn new_attachments(&mut self, payload: &Value, files: &[FilePart]) -> Vec<Attachment> {
        let mut out = Vec::new();
        for f in files {
            let index = f
                .field
                .strip_prefix("files[")
                .and_then(|s| s.strip_suffix(']'))
                .map(str::to_owned);
            let meta = payload["attachments"].as_array().and_then(|a| {
                a.iter().find(|x| {
                    index.as_deref().is_some_and(|i| {
                        x["id"].as_str() == Some(i)
                            || x["id"].as_u64().map(|n| n.to_string()).as_deref() == Some(i)
                    })
                })
            });
            let filename = meta
                .and_then(|m| m["filename"].as_str())
                .or(f.filename.as_deref())
                .unwrap_or("file")
                .to_owned();
            out.push(Attachment {
                id: self.new_id(),
                filename,
                content_type: f.content_type.clone(),
                description: meta
                    .and_then(|m| m["description"].as_str())
                    .map(str::to_owned),
                bytes: f.bytes.clone(),
            });
        }
        out
    }

    /// Creates a bot message from a message payload (content, embeds, components, flags, files).
    pub(crate) fn create_message(
        &mut self,
        channel_id: u64,
        payload: &Value,
        files: &[FilePart],
        origin: Origin,
        extra_flags: u64,
    ) -> u64 {
        let id = self.new_id();
        let attachments = self.new_attachments(payload, files);
        let msg = SentMessage {
            id,
            channel_id,
            guild_id: self.channel_guild(channel_id),
            author_id: self.bot_id,
            content: payload["content"].as_str().unwrap_or_default().to_owned(),
            flags: payload["flags"].as_u64().unwrap_or(0) | extra_flags,
            embeds: payload["embeds"].as_array().cloned().unwrap_or_default(),
            component_rows: payload["components"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
            attachments,
            origin,
            edits: 0,
            deleted: false,
            reactions: Vec::new(),
            thread_id: None,
            payload: payload.clone(),
        };
        self.messages.push(msg);
        id
    }

    /// Applies an edit payload to a message: fields present replace, `attachments` keeps the
    /// listed existing ones, files are added. Clears the "loading" flag of deferred responses.
    pub(crate) fn edit_message(&mut self, id: u64, payload: &Value, files: &[FilePart]) -> bool {
        let new = self.new_attachments(payload, files);
        let Some(m) = self.messages.iter_mut().find(|m| m.id == id && !m.deleted) else {
            return false;
        };
        if let Some(c) = payload.get("content") {
            m.content = c.as_str().unwrap_or_default().to_owned();
        }
        if let Some(e) = payload.get("embeds") {
            m.embeds = e.as_array().cloned().unwrap_or_default();
        }
        if let Some(c) = payload.get("components") {
            m.component_rows = c.as_array().cloned().unwrap_or_default();
        }
        if let Some(list) = payload.get("attachments").and_then(Value::as_array) {
            let keep: Vec<u64> = list
                .iter()
                .filter_map(|a| {
                    a["id"]
                        .as_str()
                        .and_then(|s| s.parse().ok())
                        .or(a["id"].as_u64())
                })
                .collect();
            m.attachments.retain(|a| keep.contains(&a.id));
        }
        m.attachments.extend(new);
        m.flags &= !fixtures::LOADING;
        m.edits += 1;
        m.payload = payload.clone();
        true
    }

    /// Registers (or re-registers) a command and returns the echoed object.
    pub(crate) fn register_command(&mut self, sent: &Value, guild_id: Option<u64>) -> Value {
        let name = sent["name"].as_str().unwrap_or_default().to_owned();
        let key = (guild_id, name);
        let id = match self.command_ids.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.new_id();
                self.command_ids.insert(key, id);
                id
            }
        };
        fixtures::registered_command(sent, id, self.app_id, guild_id)
    }

    /// The id to put in `data.id` of a command interaction: the registered one if any.
    pub(crate) fn command_id_for(&mut self, name: &str, guild_id: Option<u64>) -> u64 {
        if let Some(id) = self
            .command_ids
            .get(&(guild_id, name.to_owned()))
            .or_else(|| self.command_ids.get(&(None, name.to_owned())))
        {
            return *id;
        }
        let id = self.new_id();
        self.command_ids.insert((None, name.to_owned()), id);
        id
    }

    /// Takes the first failure rule matching this request.
    pub(crate) fn take_failure(
        &mut self,
        method: &str,
        route: &str,
    ) -> Option<(DiscordError, bool)> {
        let pos = self
            .failures
            .iter()
            .position(|r| (r.matcher)(method, route))?;
        let rule = &mut self.failures[pos];
        let err = (rule.error.clone(), rule.after);
        match &mut rule.remaining {
            Some(1) => {
                self.failures.remove(pos);
            }
            Some(n) => *n -= 1,
            None => {}
        }
        Some(err)
    }

    /// Counts a request against the first rate limit matching it. `None`: no limit applies.
    /// `Some(Ok(headers))`: allowed, with the bucket's headers; `Some(Err((body, headers)))`:
    /// over the limit, answered 429.
    pub(crate) fn rate_limited(
        &mut self,
        method: &str,
        route: &str,
    ) -> Option<Result<Headers, (Value, Headers)>> {
        let rule = self
            .rate_limits
            .iter_mut()
            .find(|r| (r.matcher)(method, route))?;
        let now = std::time::Instant::now();
        let window = rule.limit.window;
        let start = match rule.window_start {
            Some(s) if now.duration_since(s) < window => s,
            _ => {
                rule.used = 0;
                rule.window_start = Some(now);
                now
            }
        };
        let left = window.saturating_sub(now.duration_since(start));
        let reset_after = format!("{:.3}", left.as_secs_f64());
        let reset_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            + left;
        let over = rule.used >= rule.limit.limit;
        if !over {
            rule.used += 1;
        }
        let mut headers: Headers = vec![
            ("x-ratelimit-limit".into(), rule.limit.limit.to_string()),
            (
                "x-ratelimit-remaining".into(),
                (rule.limit.limit - rule.used).to_string(),
            ),
            (
                "x-ratelimit-reset".into(),
                format!("{:.3}", reset_at.as_secs_f64()),
            ),
            ("x-ratelimit-reset-after".into(), reset_after.clone()),
            ("x-ratelimit-bucket".into(), rule.limit.bucket.clone()),
        ];
        if !over {
            return Some(Ok(headers));
        }
        let mut body = json!({
            "message": "You are being rate limited.",
            "retry_after": left.as_secs_f64(),
            "global": rule.limit.global,
        });
        if rule.limit.form == RetryAfterIn::HeaderOnly
            && let Some(o) = body.as_object_mut()
        {
            o.remove("retry_after");
        }
        match rule.limit.form {
            RetryAfterIn::Header | RetryAfterIn::HeaderOnly => {
                headers.push(("retry-after".into(), reset_after));
                headers.push((
                    "x-ratelimit-scope".into(),
                    if rule.limit.global { "global" } else { "user" }.into(),
                ));
                if rule.limit.global {
                    headers.push(("x-ratelimit-global".into(), "true".into()));
                }
            }
            RetryAfterIn::Body => headers.clear(),
        }
        Some(Err((body, headers)))
    }

    // ----- gateway -----

    /// Queues a dispatch: sent now on a live connection, kept for resume otherwise, or held until
    /// the first READY.
    pub(crate) fn dispatch(&mut self, t: &str, d: Value) {
        if self.session.id.is_none() {
            self.session.pending.push((t.to_owned(), d));
            return;
        }
        self.session.seq += 1;
        let seq = self.session.seq;
        let frame = fixtures::dispatch(seq, t, d).to_string();
        self.session.log.push((seq, frame.clone()));
        self.send_live(seq, frame);
    }

    fn send_live(&mut self, seq: u64, frame: String) {
        if let Some((_, tx)) = &self.session.current
            && tx.send(Out::Text(frame)).is_ok()
        {
            self.session.delivered = self.session.delivered.max(seq);
            self.gateway.dispatches_sent += 1;
        }
    }

    /// A connection identified: new session, READY, GUILD_CREATEs, then held events.
    pub(crate) fn start_session(
        &mut self,
        conn: u64,
        tx: UnboundedSender<Out>,
        identify: Value,
        guilds: &[(u64, Value)],
    ) {
        // Events logged but never delivered (the connection dropped before a resume) go out
        // again in the new session, so that tests do not lose them to a re-identify.
        let undelivered: Vec<(String, Value)> = self
            .session
            .log
            .iter()
            .filter(|(s, _)| *s > self.session.delivered)
            .filter_map(|(_, f)| {
                let v: Value = serde_json::from_str(f).ok()?;
                Some((v["t"].as_str()?.to_owned(), v["d"].clone()))
            })
            .filter(|(t, _)| t != "READY" && t != "GUILD_CREATE" && t != "RESUMED")
            .collect();
        self.session.sessions_started += 1;
        let sid = format!("fake-session-{}", self.session.sessions_started);
        self.session.id = Some(sid.clone());
        self.session.seq = 0;
        self.session.delivered = 0;
        self.session.log.clear();
        self.session.current = Some((conn, tx));
        self.gateway.identifies.push(identify);
        self.gateway.connected = true;
        let guild_ids: Vec<u64> = guilds.iter().map(|(id, _)| *id).collect();
        let bot = fixtures::current_user(self.bot_id, &self.bot_name);
        let ready = fixtures::ready(bot, &guild_ids, &sid, &self.gateway_url, self.app_id);
        self.dispatch("READY", ready);
        self.gateway.readies += 1;
        for (_, g) in guilds {
            self.dispatch("GUILD_CREATE", g.clone());
        }
        let mut held = std::mem::take(&mut self.session.pending);
        held.splice(0..0, undelivered);
        for (t, d) in held {
            self.dispatch(&t, d);
        }
    }

    /// A connection sent Resume: replay and RESUMED, or op 9 if the session is unknown.
    pub(crate) fn resume_session(&mut self, conn: u64, tx: UnboundedSender<Out>, resume: Value) {
        self.gateway.resumes.push(resume.clone());
        let sid_ok = self.session.id.is_some()
            && resume["session_id"].as_str() == self.session.id.as_deref();
        if !(self.resumable && sid_ok) {
            let _ = tx.send(Out::Text(fixtures::invalid_session(false).to_string()));
            return;
        }
        let from = resume["seq"].as_u64().unwrap_or(0);
        self.session.current = Some((conn, tx));
        self.gateway.connected = true;
        let replay: Vec<(u64, String)> = self
            .session
            .log
            .iter()
            .filter(|(s, _)| *s > from)
            .cloned()
            .collect();
        for (seq, frame) in replay {
            self.send_live(seq, frame);
        }
        self.dispatch("RESUMED", json!({"_trace": ["fake-discord-gateway"]}));
        self.gateway.resumed += 1;
    }

    /// A connection ended.
    pub(crate) fn connection_closed(&mut self, conn: u64) {
        if self
            .session
            .current
            .as_ref()
            .is_some_and(|(c, _)| *c == conn)
        {
            self.session.current = None;
            self.gateway.connected = false;
        }
    }
}
