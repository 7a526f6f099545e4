//! Builders that inject interactions (`INTERACTION_CREATE`) and user messages
//! (`MESSAGE_CREATE`) as Discord sends them.

use serde_json::{Map, Value, json};

use crate::fixtures::{self, InteractionPlace};
use crate::state::{ChannelInfo, InteractionRecord, Recorded};
use crate::view::{Callback, Origin, SentMessage, callback_type};
use crate::{FakeDiscord, ids};

/// An injected interaction: await its callback with [`FakeDiscord::wait_callback`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteractionRef {
    pub id: u64,
    pub token: String,
}

/// Command options (`data.options`), with the `resolved` users they refer to.
#[derive(Clone, Debug, Default)]
pub struct OptionsBuilder {
    options: Vec<Value>,
    users: Vec<u64>,
    /// `data.resolved.attachments` entries, by id.
    attachments: Vec<(String, Value)>,
}

impl OptionsBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    fn push(mut self, name: &str, kind: u64, value: Value, focused: bool) -> Self {
        let mut o = json!({"name": name, "type": kind, "value": value});
        if focused {
            o["focused"] = Value::Bool(true);
        }
        self.options.push(o);
        self
    }

    /// Type 3.
    pub fn string(self, name: &str, value: &str) -> Self {
        self.push(name, 3, Value::from(value), false)
    }
    /// Type 4.
    pub fn integer(self, name: &str, value: i64) -> Self {
        self.push(name, 4, Value::from(value), false)
    }
    /// Type 5.
    pub fn boolean(self, name: &str, value: bool) -> Self {
        self.push(name, 5, Value::from(value), false)
    }
    /// Type 10.
    pub fn number(self, name: &str, value: f64) -> Self {
        self.push(name, 10, Value::from(value), false)
    }
    /// Type 6: the value is the user id; the user (and in a guild, the member) is added to
    /// `data.resolved`.
    pub fn user(mut self, name: &str, user_id: u64) -> Self {
        self.users.push(user_id);
        self.push(name, 6, Value::from(user_id.to_string()), false)
    }
    /// Type 7: a channel id.
    pub fn channel(self, name: &str, channel_id: u64) -> Self {
        self.push(name, 7, Value::from(channel_id.to_string()), false)
    }
    /// The option being typed, for autocomplete: a string with `focused: true`.
    pub fn focused_string(self, name: &str, partial: &str) -> Self {
        self.push(name, 3, Value::from(partial), true)
    }
    /// A focused integer option: Discord sends what the user typed so far as a string.
    pub fn focused_integer(self, name: &str, partial: &str) -> Self {
        self.push(name, 4, Value::from(partial), true)
    }
    /// Any option object, as is.
    pub fn raw(mut self, option: Value) -> Self {
        self.options.push(option);
        self
    }
}

/// Where an injected interaction happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Where {
    Channel(u64),
    Dm,
}

fn place(st: &mut Recorded, user_id: u64, w: Where) -> (InteractionPlace, u64, Option<u64>) {
    let user = st.user_json(user_id);
    let channel_id = match w {
        Where::Channel(c) => c,
        Where::Dm => match st.dm_channels.get(&user_id) {
            Some(c) => *c,
            None => {
                let c = st.new_id();
                st.dm_channels.insert(user_id, c);
                st.channels
                    .insert(c, ChannelInfo::Dm { recipient: user_id });
                c
            }
        },
    };
    let channel = st
        .channel_json(channel_id)
        .unwrap_or_else(|| panic!("discord-fake: unknown channel {channel_id}"));
    match st.channel_guild(channel_id) {
        Some(guild_id) => (
            InteractionPlace::Guild {
                guild_id,
                channel,
                member: fixtures::member(
                    user,
                    Some(
                        &st.member_permissions
                            .get(&user_id)
                            .map_or_else(|| fixtures::PERMISSIONS.to_string(), u64::to_string),
                    ),
                ),
            },
            channel_id,
            Some(guild_id),
        ),
        None => (InteractionPlace::Dm { channel, user }, channel_id, None),
    }
}

/// Registers and dispatches an interaction.
#[allow(clippy::too_many_arguments)]
fn inject(
    fake: &FakeDiscord,
    kind: u64,
    data: Value,
    user_id: u64,
    w: Where,
    message_id: Option<u64>,
) -> InteractionRef {
    let mut st = fake.inner.lock();
    let id = st.new_id();
    let token = format!("aW50ZXJhY3Rpb246{id}");
    let (pl, channel_id, guild_id) = place(&mut st, user_id, w);
    let message = message_id
        .and_then(|m| st.message(m).cloned())
        .map(|m| st.message_json(&m));
    let payload = fixtures::interaction(id, st.app_id, kind, &token, data, &pl, message);
    st.interactions.insert(
        id,
        InteractionRecord {
            id,
            token: token.clone(),
            kind,
            channel_id,
            guild_id,
            user_id,
            message_id,
            // For components, @original is the message the component is on.
            original: message_id,
            responded: false,
            created: std::time::Instant::now(),
            expired: false,
        },
    );
    st.dispatch("INTERACTION_CREATE", payload);
    drop(st);
    fake.inner.changed.notify_waiters();
    InteractionRef { id, token }
}

fn resolved(st: &Recorded, users: &[u64], in_guild: bool) -> Value {
    if users.is_empty() {
        return json!({});
    }
    let mut us = Map::new();
    let mut ms = Map::new();
    for u in users {
        us.insert(u.to_string(), st.user_json(*u));
        let member = st.users.get(u).is_some_and(|x| x.member) || *u == st.bot_id;
        if in_guild && member {
            ms.insert(
                u.to_string(),
                fixtures::resolved_member(fixtures::PERMISSIONS),
            );
        }
    }
    let mut r = json!({"users": us});
    if !ms.is_empty() {
        r["members"] = Value::Object(ms);
    }
    r
}

/// A slash command (type 2) or autocomplete (type 4) interaction.
#[derive(Debug)]
#[must_use = "call .send()"]
pub struct SlashBuilder<'a> {
    fake: &'a FakeDiscord,
    kind: u64,
    name: String,
    options: OptionsBuilder,
    /// `(group, subcommand, options)`.
    sub: Option<(Option<String>, String, OptionsBuilder)>,
    user: u64,
    at: Where,
    checked: bool,
}

/// A command a Discord client would not offer where the test tried to use it (see
/// [`Recorded::offers`]): a guild command in a DM, or a command whose `contexts` leave out
/// the place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotOffered {
    /// The command's name.
    pub command: String,
    /// Whether it was tried in a DM.
    pub in_dm: bool,
}

impl std::fmt::Display for NotOffered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "discord-fake: /{} is not offered {} (registered commands decide where a client \
             shows them; use .unchecked() to send it anyway)",
            self.command,
            if self.in_dm {
                "in DMs"
            } else {
                "in this guild"
            }
        )
    }
}

impl std::error::Error for NotOffered {}

impl<'a> SlashBuilder<'a> {
    pub(crate) fn new(fake: &'a FakeDiscord, kind: u64, name: &str) -> Self {
        SlashBuilder {
            fake,
            kind,
            name: name.to_owned(),
            options: OptionsBuilder::new(),
            sub: None,
            user: ids::ALICE,
            at: Where::Channel(ids::GENERAL),
            checked: true,
        }
    }

    /// Sends it even where no client would offer it (a stale command list).
    pub fn unchecked(mut self) -> Self {
        self.checked = false;
        self
    }

    fn map(mut self, f: impl FnOnce(OptionsBuilder) -> OptionsBuilder) -> Self {
        self.options = f(std::mem::take(&mut self.options));
        self
    }

    pub fn string(self, name: &str, value: &str) -> Self {
        self.map(|o| o.string(name, value))
    }

    /// Type 11: a file the user attaches. Its bytes are kept by the fake and served at the
    /// attachment's `url` (`GET attachments/uploads/ID/NAME`), as Discord's CDN does.
    pub fn attachment(self, name: &str, filename: &str, bytes: &[u8]) -> Self {
        let (id, resolved) = {
            let mut st = self.fake.inner.lock();
            let id = st.new_id();
            st.uploads.insert(id, (filename.to_owned(), bytes.to_vec()));
            let url = format!("{}/attachments/uploads/{id}/{filename}", st.rest_url);
            let resolved = json!({
                "id": id.to_string(),
                "filename": filename,
                "size": bytes.len(),
                "url": url,
                "proxy_url": url,
                "content_type": "text/plain; charset=utf-8",
            });
            (id, resolved)
        };
        self.map(|mut o| {
            o.attachments.push((id.to_string(), resolved));
            o.push(name, 11, Value::from(id.to_string()), false)
        })
    }
    pub fn integer(self, name: &str, value: i64) -> Self {
        self.map(|o| o.integer(name, value))
    }
    pub fn boolean(self, name: &str, value: bool) -> Self {
        self.map(|o| o.boolean(name, value))
    }
    pub fn number(self, name: &str, value: f64) -> Self {
        self.map(|o| o.number(name, value))
    }
    pub fn user(self, name: &str, user_id: u64) -> Self {
        self.map(|o| o.user(name, user_id))
    }
    pub fn channel(self, name: &str, channel_id: u64) -> Self {
        self.map(|o| o.channel(name, channel_id))
    }
    pub fn focused_string(self, name: &str, partial: &str) -> Self {
        self.map(|o| o.focused_string(name, partial))
    }
    pub fn focused_integer(self, name: &str, partial: &str) -> Self {
        self.map(|o| o.focused_integer(name, partial))
    }
    pub fn raw_option(self, option: Value) -> Self {
        self.map(|o| o.raw(option))
    }

    /// Invokes subcommand `name` with these options (`/name sub ...`).
    pub fn subcommand(
        mut self,
        name: &str,
        options: impl FnOnce(OptionsBuilder) -> OptionsBuilder,
    ) -> Self {
        self.sub = Some((None, name.to_owned(), options(OptionsBuilder::new())));
        self
    }

    /// Invokes subcommand `sub` of group `group` (`/name group sub ...`).
    pub fn subcommand_in_group(
        mut self,
        group: &str,
        sub: &str,
        options: impl FnOnce(OptionsBuilder) -> OptionsBuilder,
    ) -> Self {
        self.sub = Some((
            Some(group.to_owned()),
            sub.to_owned(),
            options(OptionsBuilder::new()),
        ));
        self
    }

    /// The invoking user (default alice).
    pub fn by(mut self, user_id: u64) -> Self {
        self.user = user_id;
        self
    }

    /// In a guild channel (default `#general`) or thread.
    pub fn in_channel(mut self, channel_id: u64) -> Self {
        self.at = Where::Channel(channel_id);
        self
    }

    /// In the bot's DM channel with the invoking user.
    pub fn in_dm(mut self) -> Self {
        self.at = Where::Dm;
        self
    }

    /// Dispatches the interaction. Panics where a Discord client would not offer the command
    /// (see [`try_send`](Self::try_send)).
    pub fn send(self) -> InteractionRef {
        self.try_send().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Dispatches the interaction, unless (when checked) a Discord client would not offer the
    /// command there: a guild command in a DM, a global one whose `contexts` leave the place
    /// out. Commands registered nowhere are sent (a client with a stale list).
    ///
    /// # Errors
    /// [`NotOffered`] when the command is registered but not offered there.
    pub fn try_send(self) -> Result<InteractionRef, NotOffered> {
        let guild_of_place = match self.at {
            Where::Dm => None,
            Where::Channel(c) => self.fake.inspect(|r| r.channel_guild(c)),
        };
        let in_guild = guild_of_place.is_some();
        if self.checked
            && self.fake.inspect(|r| r.offers(&self.name, guild_of_place)) == Some(false)
        {
            return Err(NotOffered {
                command: self.name,
                in_dm: self.at == Where::Dm,
            });
        }
        let (mut options, mut users, attachments) = (
            self.options.options,
            self.options.users,
            self.options.attachments,
        );
        if let Some((group, sub, o)) = self.sub {
            users.extend(o.users);
            let sub = json!({"name": sub, "type": 1, "options": o.options});
            let top = match group {
                Some(g) => json!({"name": g, "type": 2, "options": [sub]}),
                None => sub,
            };
            options.insert(0, top);
        }
        let data = {
            let mut st = self.fake.inner.lock();
            let guild = match self.at {
                Where::Channel(c) => st.channel_guild(c),
                Where::Dm => None,
            };
            let id = st.command_id_for(&self.name, guild);
            let mut d = json!({
                "id": id.to_string(),
                "name": self.name,
                "type": 1,
                "options": options,
                "resolved": resolved(&st, &users, in_guild),
            });
            if !attachments.is_empty() {
                d["resolved"]["attachments"] = Value::Object(attachments.into_iter().collect());
            }
            // `data.guild_id` is the guild the invoked command is registered in.
            if let Some(g) = guild.filter(|g| {
                st.guild_commands
                    .get(g)
                    .is_some_and(|cmds| cmds.iter().any(|c| c["name"] == self.name))
            }) {
                d["guild_id"] = Value::from(g.to_string());
            }
            d
        };
        Ok(inject(self.fake, self.kind, data, self.user, self.at, None))
    }
}

/// A component interaction (type 3): a button press or a select menu choice on a message.
#[derive(Debug)]
#[must_use = "call .send()"]
pub struct ComponentBuilder<'a> {
    fake: &'a FakeDiscord,
    message_id: u64,
    custom_id: String,
    component_type: u64,
    values: Vec<String>,
    user: u64,
    checked: bool,
}

impl ComponentBuilder<'_> {
    /// The user who clicks (default alice).
    pub fn by(mut self, user_id: u64) -> Self {
        self.user = user_id;
        self
    }

    /// Skips the check that the message has this component (to test stale custom ids).
    pub fn unchecked(mut self) -> Self {
        self.checked = false;
        self
    }

    /// Dispatches the interaction. Panics if the message does not exist, or (unless
    /// `unchecked`) has no enabled component with this custom id and type, or the select values
    /// are not among its options.
    pub fn send(self) -> InteractionRef {
        let msg = self
            .fake
            .message(self.message_id)
            .unwrap_or_else(|| panic!("discord-fake: no message {}", self.message_id));
        if self.checked {
            let c = msg.component(&self.custom_id).unwrap_or_else(|| {
                panic!(
                    "discord-fake: message {} has no component {:?} (it has {:?})",
                    msg.id,
                    self.custom_id,
                    msg.custom_ids()
                )
            });
            assert_eq!(
                c.kind, self.component_type,
                "discord-fake: component {:?} has type {}",
                self.custom_id, c.kind
            );
            assert!(
                !c.disabled,
                "discord-fake: component {:?} is disabled",
                self.custom_id
            );
            if c.kind == 3 {
                for v in &self.values {
                    assert!(
                        c.options.iter().any(|o| &o.value == v),
                        "discord-fake: select {:?} has no option {v:?}",
                        self.custom_id
                    );
                }
            }
        }
        let mut data = json!({"custom_id": self.custom_id, "component_type": self.component_type});
        if self.component_type != 2 {
            data["values"] = json!(self.values);
        }
        let at = self
            .fake
            .inspect(|r| match r.channel_guild(msg.channel_id) {
                Some(_) => Where::Channel(msg.channel_id),
                None => Where::Dm,
            });
        inject(self.fake, 3, data, self.user, at, Some(msg.id))
    }
}

/// A modal submit interaction (type 5) answering a modal the bot opened (callback type 9).
#[derive(Debug)]
#[must_use = "call .send()"]
pub struct ModalSubmitBuilder<'a> {
    fake: &'a FakeDiscord,
    modal: Callback,
    values: Vec<(String, String)>,
    user: Option<u64>,
}

impl ModalSubmitBuilder<'_> {
    /// The value typed into the text input with this custom id (others are sent empty).
    pub fn field(mut self, custom_id: &str, value: &str) -> Self {
        self.values.push((custom_id.to_owned(), value.to_owned()));
        self
    }

    /// The submitting user (default: the user of the interaction that opened the modal).
    pub fn by(mut self, user_id: u64) -> Self {
        self.user = Some(user_id);
        self
    }

    /// Dispatches the interaction. Panics if the callback is not a modal or a field is not one
    /// of its text inputs.
    pub fn send(self) -> InteractionRef {
        assert_eq!(
            self.modal.kind,
            callback_type::MODAL,
            "discord-fake: not a modal callback"
        );
        let custom_id = self.modal.modal_custom_id().unwrap_or_default().to_owned();
        let inputs = self.modal.components();
        for (id, _) in &self.values {
            assert!(
                inputs.iter().any(|c| c.custom_id.as_deref() == Some(id)),
                "discord-fake: modal {custom_id:?} has no text input {id:?}"
            );
        }
        let rows: Vec<Value> = inputs
            .iter()
            .map(|c| {
                let id = c.custom_id.clone().unwrap_or_default();
                let value = self
                    .values
                    .iter()
                    .find(|(k, _)| *k == id)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                json!({"type": 1, "components": [{"type": 4, "custom_id": id, "value": value}]})
            })
            .collect();
        let data = json!({"custom_id": custom_id, "components": rows});
        let origin = self
            .fake
            .inspect(|r| r.interactions.get(&self.modal.interaction_id).cloned())
            .expect("discord-fake: the modal's interaction is unknown");
        let at = match origin.guild_id {
            Some(_) => Where::Channel(origin.channel_id),
            None => Where::Dm,
        };
        let user = self.user.unwrap_or(origin.user_id);
        // A modal opened from a component carries that component's message.
        inject(self.fake, 5, data, user, at, origin.message_id)
    }
}

/// A user's message in a channel (`MESSAGE_CREATE`), built with [`FakeDiscord::user_message`].
#[derive(Debug)]
#[must_use = "call .send()"]
pub struct MessageBuilder<'a> {
    fake: &'a FakeDiscord,
    channel_id: u64,
    author: u64,
    content: String,
}

impl MessageBuilder<'_> {
    /// The author (default alice).
    pub fn by(mut self, user_id: u64) -> Self {
        self.author = user_id;
        self
    }

    /// Dispatches the message and returns its id.
    pub fn send(self) -> u64 {
        let mut st = self.fake.inner.lock();
        let id = st.new_id();
        let guild_id = st.channel_guild(self.channel_id);
        let msg = SentMessage {
            id,
            channel_id: self.channel_id,
            guild_id,
            author_id: self.author,
            content: self.content,
            flags: 0,
            embeds: Vec::new(),
            component_rows: Vec::new(),
            attachments: Vec::new(),
            origin: Origin::User,
            edits: 0,
            deleted: false,
            reactions: Vec::new(),
            thread_id: None,
            payload: Value::Null,
        };
        let mut payload = st.message_json(&msg);
        if guild_id.is_some() {
            let mut m = fixtures::member(Value::Null, None);
            if let Some(o) = m.as_object_mut() {
                o.remove("user");
            }
            payload["member"] = m;
        }
        st.messages.push(msg);
        st.dispatch("MESSAGE_CREATE", payload);
        drop(st);
        self.fake.inner.changed.notify_waiters();
        id
    }
}

impl FakeDiscord {
    /// A slash command interaction for command `name` (alice in `#general` unless changed).
    pub fn slash(&self, name: &str) -> SlashBuilder<'_> {
        SlashBuilder::new(self, 2, name)
    }

    /// An autocomplete interaction for command `name`: add options with one `focused_*`.
    pub fn autocomplete(&self, name: &str) -> SlashBuilder<'_> {
        SlashBuilder::new(self, 4, name)
    }

    /// A button press on a message (by alice unless changed).
    pub fn click(&self, message_id: u64, custom_id: &str) -> ComponentBuilder<'_> {
        ComponentBuilder {
            fake: self,
            message_id,
            custom_id: custom_id.to_owned(),
            component_type: 2,
            values: Vec::new(),
            user: ids::ALICE,
            checked: true,
        }
    }

    /// A string select menu choice on a message.
    pub fn select(
        &self,
        message_id: u64,
        custom_id: &str,
        values: &[&str],
    ) -> ComponentBuilder<'_> {
        ComponentBuilder {
            fake: self,
            message_id,
            custom_id: custom_id.to_owned(),
            component_type: 3,
            values: values.iter().map(|v| (*v).to_owned()).collect(),
            user: ids::ALICE,
            checked: true,
        }
    }

    /// Submits the modal the bot opened with callback `modal` (type 9).
    pub fn submit_modal(&self, modal: &Callback) -> ModalSubmitBuilder<'_> {
        ModalSubmitBuilder {
            fake: self,
            modal: modal.clone(),
            values: Vec::new(),
            user: None,
        }
    }

    /// A user's message in a channel (`MESSAGE_CREATE`; by alice unless changed).
    pub fn user_message(&self, channel_id: u64, content: &str) -> MessageBuilder<'_> {
        MessageBuilder {
            fake: self,
            channel_id,
            author: ids::ALICE,
            content: content.to_owned(),
        }
    }
}
