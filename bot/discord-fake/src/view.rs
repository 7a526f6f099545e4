//! Typed views of what the bot sent: recorded requests, messages, interaction callbacks,
//! registered commands, threads, gateway sessions.

use std::fmt;

use bytes::Bytes;
use serde_json::Value;

use crate::fixtures::{EPHEMERAL, LOADING};

/// Interaction callback types (`POST /interactions/{id}/{token}/callback`, field `type`).
pub mod callback_type {
    pub const PONG: u64 = 1;
    pub const CHANNEL_MESSAGE_WITH_SOURCE: u64 = 4;
    pub const DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: u64 = 5;
    pub const DEFERRED_UPDATE_MESSAGE: u64 = 6;
    pub const UPDATE_MESSAGE: u64 = 7;
    pub const APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: u64 = 8;
    pub const MODAL: u64 = 9;
}

/// One part of a `multipart/form-data` body other than `payload_json`.
#[derive(Clone, Debug, PartialEq)]
pub struct FilePart {
    /// Form field name, e.g. `files[0]`.
    pub field: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub bytes: Bytes,
}

/// One HTTP request the bot made to the fake REST API, with the fake's answer status.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// Position in the request log, from 0.
    pub index: usize,
    pub method: String,
    /// Full path, e.g. `/api/v10/channels/1/messages`.
    pub path: String,
    /// Path without the `/api/v10/` prefix, e.g. `channels/1/messages`.
    pub route: String,
    pub query: Option<String>,
    /// Header names are lower case.
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
    /// The JSON body, or for a multipart body its `payload_json` part.
    pub json: Option<Value>,
    /// For a multipart body: every part except `payload_json` that has a filename.
    pub files: Vec<FilePart>,
    /// For a multipart body: text parts other than `payload_json`.
    pub form_fields: Vec<(String, String)>,
    /// Status the fake answered with.
    pub status: u16,
    /// Discord error `code` of the fake's answer, for an error answer (0 = no such endpoint).
    pub error_code: Option<u64>,
}

impl RecordedRequest {
    /// First header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `Content-Type` header.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }

    /// True for a `multipart/form-data` body.
    pub fn is_multipart(&self) -> bool {
        self.content_type()
            .is_some_and(|c| c.starts_with("multipart/form-data"))
    }

    /// Route split on `/`.
    pub fn segments(&self) -> Vec<&str> {
        self.route.split('/').collect()
    }

    /// `method` matches and the route matches `pattern`, where `*` in the pattern matches one
    /// segment: `req.matches("POST", "channels/*/messages")`.
    pub fn matches(&self, method: &str, pattern: &str) -> bool {
        if !self.method.eq_ignore_ascii_case(method) {
            return false;
        }
        let p: Vec<&str> = pattern.trim_matches('/').split('/').collect();
        let r = self.segments();
        p.len() == r.len() && p.iter().zip(&r).all(|(p, r)| *p == "*" || p == r)
    }
}

impl fmt::Display for RecordedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.path)?;
        if let Some(q) = &self.query {
            write!(f, "?{q}")?;
        }
        write!(f, " -> {}", self.status)
    }
}

/// A file attached to a message, with its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    pub id: u64,
    pub filename: String,
    pub content_type: Option<String>,
    pub description: Option<String>,
    pub bytes: Bytes,
}

impl Attachment {
    /// True if the bytes start with the PNG signature.
    pub fn is_png(&self) -> bool {
        self.bytes.starts_with(b"\x89PNG\r\n\x1a\n")
    }
}

/// One option of a string select menu.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectOption {
    pub label: String,
    pub value: String,
    pub description: Option<String>,
    pub default: bool,
}

/// A message component (button, select menu, text input), flattened out of its action row.
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    /// 2 button, 3 string select, 4 text input, 5 user select, 6 role, 7 mentionable, 8 channel.
    pub kind: u64,
    pub custom_id: Option<String>,
    pub label: Option<String>,
    /// Button style (1 primary … 5 link) or text input style (1 short, 2 paragraph).
    pub style: Option<u64>,
    pub disabled: bool,
    pub url: Option<String>,
    pub placeholder: Option<String>,
    pub options: Vec<SelectOption>,
    pub min_values: Option<u64>,
    pub max_values: Option<u64>,
    pub raw: Value,
}

impl Component {
    pub fn is_button(&self) -> bool {
        self.kind == 2
    }
    pub fn is_select(&self) -> bool {
        matches!(self.kind, 3 | 5..=8)
    }
    /// The `value`s of a string select's options.
    pub fn option_values(&self) -> Vec<&str> {
        self.options.iter().map(|o| o.value.as_str()).collect()
    }

    fn from_json(v: &Value) -> Self {
        let str_of = |k: &str| v[k].as_str().map(str::to_owned);
        Component {
            kind: v["type"].as_u64().unwrap_or(0),
            custom_id: str_of("custom_id"),
            label: str_of("label"),
            style: v["style"].as_u64(),
            disabled: v["disabled"].as_bool().unwrap_or(false),
            url: str_of("url"),
            placeholder: str_of("placeholder"),
            options: v["options"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|o| SelectOption {
                            label: o["label"].as_str().unwrap_or_default().to_owned(),
                            value: o["value"].as_str().unwrap_or_default().to_owned(),
                            description: o["description"].as_str().map(str::to_owned),
                            default: o["default"].as_bool().unwrap_or(false),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            min_values: v["min_values"].as_u64(),
            max_values: v["max_values"].as_u64(),
            raw: v.clone(),
        }
    }
}

/// Flattens action rows (`[{type: 1, components: [...]}]`) into their components.
pub fn flatten_components(rows: &[Value]) -> Vec<Component> {
    let mut out = Vec::new();
    for row in rows {
        match row["components"].as_array() {
            Some(inner) => out.extend(inner.iter().map(Component::from_json)),
            None => out.push(Component::from_json(row)),
        }
    }
    out
}

/// Users mentioned in a text (`<@id>` or `<@!id>`), in order.
pub fn mentioned_users(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<@") {
        rest = &rest[start + 2..];
        let body = rest.strip_prefix('!').unwrap_or(rest);
        if let Some(end) = body.find('>')
            && let Ok(id) = body[..end].parse()
        {
            out.push(id);
        }
    }
    out
}

/// How a message came to exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `POST /channels/{id}/messages` by the bot.
    Channel,
    /// The response to an interaction (callback type 4, or 5 then an edit).
    InteractionResponse { interaction_id: u64 },
    /// `POST /webhooks/{app}/{token}` after a response.
    Followup { interaction_id: u64 },
    /// Injected by the test as a user's message (`MESSAGE_CREATE`).
    User,
}

/// The current state of one message in the fake (after any edits).
#[derive(Clone, Debug)]
pub struct SentMessage {
    pub id: u64,
    pub channel_id: u64,
    pub guild_id: Option<u64>,
    pub author_id: u64,
    pub content: String,
    pub flags: u64,
    pub embeds: Vec<Value>,
    /// Action rows as sent.
    pub component_rows: Vec<Value>,
    pub attachments: Vec<Attachment>,
    pub origin: Origin,
    /// How many times it was edited.
    pub edits: u32,
    pub deleted: bool,
    /// Unicode emoji (or `name:id`) the bot reacted with.
    pub reactions: Vec<String>,
    /// Thread started from this message, if any.
    pub thread_id: Option<u64>,
    /// The last JSON payload that created or edited it.
    pub payload: Value,
}

impl SentMessage {
    /// Flag 64.
    pub fn is_ephemeral(&self) -> bool {
        self.flags & EPHEMERAL != 0
    }
    /// Flag 128: a deferred response not edited yet.
    pub fn is_loading(&self) -> bool {
        self.flags & LOADING != 0
    }
    /// The nonce the message was sent with (the bot's outbox key), if any.
    pub fn nonce(&self) -> Option<String> {
        let n = &self.payload["nonce"];
        n.as_str()
            .map(str::to_owned)
            .or_else(|| n.as_u64().map(|v| v.to_string()))
    }
    /// Buttons and selects, flattened.
    pub fn components(&self) -> Vec<Component> {
        flatten_components(&self.component_rows)
    }
    /// Custom ids of all components.
    pub fn custom_ids(&self) -> Vec<String> {
        self.components()
            .into_iter()
            .filter_map(|c| c.custom_id)
            .collect()
    }
    /// The component with this custom id.
    pub fn component(&self, custom_id: &str) -> Option<Component> {
        self.components()
            .into_iter()
            .find(|c| c.custom_id.as_deref() == Some(custom_id))
    }
    /// The attachment with this filename.
    pub fn attachment(&self, filename: &str) -> Option<&Attachment> {
        self.attachments.iter().find(|a| a.filename == filename)
    }
    /// Users mentioned in the content (`<@id>` or `<@!id>`), in order.
    pub fn mentioned_users(&self) -> Vec<u64> {
        mentioned_users(&self.content)
    }
    /// Interaction id for responses and followups.
    pub fn interaction_id(&self) -> Option<u64> {
        match self.origin {
            Origin::InteractionResponse { interaction_id }
            | Origin::Followup { interaction_id } => Some(interaction_id),
            _ => None,
        }
    }
}

/// One autocomplete choice.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub name: String,
    /// String, integer or number, as sent.
    pub value: Value,
}

/// One interaction callback (`POST /interactions/{id}/{token}/callback`).
#[derive(Clone, Debug)]
pub struct Callback {
    pub interaction_id: u64,
    pub token: String,
    /// See [`callback_type`].
    pub kind: u64,
    /// The callback's `data` (`Value::Null` when absent).
    pub data: Value,
    /// Files of a multipart callback (type 4 or 7).
    pub attachments: Vec<Attachment>,
    /// The message created (type 4, 5) or updated (type 7).
    pub message_id: Option<u64>,
    /// Index of the request in the log.
    pub request_index: usize,
}

impl Callback {
    /// `data.content`.
    pub fn content(&self) -> Option<&str> {
        self.data["content"].as_str()
    }
    /// `data.flags` (0 when absent).
    pub fn flags(&self) -> u64 {
        self.data["flags"].as_u64().unwrap_or(0)
    }
    /// Flag 64 in `data.flags`.
    pub fn is_ephemeral(&self) -> bool {
        self.flags() & EPHEMERAL != 0
    }
    /// `data.components`, flattened (message components, or a modal's text inputs).
    pub fn components(&self) -> Vec<Component> {
        flatten_components(
            self.data["components"]
                .as_array()
                .map_or(&[][..], Vec::as_slice),
        )
    }
    /// Users mentioned in `data.content`.
    pub fn mentioned_users(&self) -> Vec<u64> {
        mentioned_users(self.content().unwrap_or_default())
    }
    /// `data.embeds`.
    pub fn embeds(&self) -> Vec<Value> {
        self.data["embeds"].as_array().cloned().unwrap_or_default()
    }
    /// Autocomplete choices (type 8).
    pub fn choices(&self) -> Vec<Choice> {
        self.data["choices"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| Choice {
                        name: c["name"].as_str().unwrap_or_default().to_owned(),
                        value: c["value"].clone(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    /// Values of the autocomplete choices as strings (numbers formatted).
    pub fn choice_values(&self) -> Vec<String> {
        self.choices()
            .into_iter()
            .map(|c| match c.value {
                Value::String(s) => s,
                other => other.to_string(),
            })
            .collect()
    }
    /// A modal's `custom_id` (type 9).
    pub fn modal_custom_id(&self) -> Option<&str> {
        self.data["custom_id"].as_str()
    }
    /// A modal's `title` (type 9).
    pub fn modal_title(&self) -> Option<&str> {
        self.data["title"].as_str()
    }
}

/// A command as registered (Discord's echo, with its id).
#[derive(Clone, Debug)]
pub struct RegisteredCommand {
    pub id: u64,
    pub name: String,
    pub description: String,
    /// 1 slash, 2 user, 3 message.
    pub kind: u64,
    /// `None` for a global command.
    pub guild_id: Option<u64>,
    /// Options as sent by the bot.
    pub options: Vec<Value>,
    /// The full echoed object.
    pub raw: Value,
}

impl RegisteredCommand {
    pub(crate) fn from_json(v: &Value) -> Self {
        RegisteredCommand {
            id: v["id"].as_str().and_then(|s| s.parse().ok()).unwrap_or(0),
            name: v["name"].as_str().unwrap_or_default().to_owned(),
            description: v["description"].as_str().unwrap_or_default().to_owned(),
            kind: v["type"].as_u64().unwrap_or(1),
            guild_id: v["guild_id"].as_str().and_then(|s| s.parse().ok()),
            options: v["options"].as_array().cloned().unwrap_or_default(),
            raw: v.clone(),
        }
    }

    /// The option (or subcommand) with this name.
    pub fn option(&self, name: &str) -> Option<&Value> {
        self.options.iter().find(|o| o["name"] == name)
    }
}

/// A thread the bot created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub id: u64,
    pub parent_id: u64,
    pub name: String,
    /// 11 public, 12 private.
    pub kind: u64,
    /// For a thread started from a message.
    pub message_id: Option<u64>,
}

/// What the gateway saw, for reconnect tests.
#[derive(Clone, Debug, Default)]
pub struct GatewayStats {
    /// Websocket connections accepted.
    pub connections: usize,
    /// Identify payloads (op 2) received.
    pub identifies: Vec<Value>,
    /// Resume payloads (op 6) received.
    pub resumes: Vec<Value>,
    /// READY dispatches sent.
    pub readies: usize,
    /// RESUMED dispatches sent.
    pub resumed: usize,
    /// Heartbeats (op 1) received (each answered with op 11).
    pub heartbeats: usize,
    /// Dispatches sent (including READY, GUILD_CREATE, RESUMED and replays).
    pub dispatches_sent: usize,
    /// Other opcodes received (presence update, request guild members...).
    pub other_ops: Vec<Value>,
    /// True while a connection is identified or resumed and open.
    pub connected: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(method: &str, route: &str) -> RecordedRequest {
        RecordedRequest {
            index: 0,
            method: method.into(),
            path: format!("/api/v10/{route}"),
            route: route.into(),
            query: None,
            headers: vec![(
                "content-type".into(),
                "multipart/form-data; boundary=x".into(),
            )],
            body: Bytes::new(),
            json: None,
            files: Vec::new(),
            form_fields: Vec::new(),
            status: 200,
            error_code: None,
        }
    }

    #[test]
    fn route_patterns() {
        let r = req("POST", "channels/12/messages");
        assert!(r.matches("post", "channels/*/messages"));
        assert!(r.matches("POST", "/channels/12/messages/"));
        assert!(!r.matches("POST", "channels/*"));
        assert!(!r.matches("GET", "channels/*/messages"));
        assert!(r.is_multipart());
        assert_eq!(r.header("Content-Type"), r.content_type());
        assert_eq!(r.to_string(), "POST /api/v10/channels/12/messages -> 200");
    }

    #[test]
    fn mentions() {
        assert_eq!(
            mentioned_users("<@1> to move, <@!22> waits, <@&3> role, <#4>"),
            [1, 22]
        );
        assert!(mentioned_users("no <@ mention").is_empty());
    }

    #[test]
    fn components_are_flattened() {
        let rows = [
            json!({"type": 1, "components": [
                {"type": 2, "custom_id": "a", "label": "A", "style": 1},
                {"type": 2, "url": "https://example.invalid", "label": "L", "style": 5},
            ]}),
            json!({"type": 1, "components": [{"type": 3, "custom_id": "s", "options": [
                {"label": "Queen", "value": "q", "default": true},
            ], "min_values": 1, "max_values": 1}]}),
        ];
        let c = flatten_components(&rows);
        assert_eq!(c.len(), 3);
        assert!(c[0].is_button() && c[2].is_select());
        assert_eq!(c[1].custom_id, None);
        assert_eq!(c[2].option_values(), ["q"]);
        assert!(c[2].options[0].default);
    }
}
