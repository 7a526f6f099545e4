//! Sending to Discord: every message of the bot goes through here, so that each one fits
//! Discord's 2,000 characters (split at line ends, or cut with a note, on purpose rather than
//! refused with "Message too large") and a server error or a rate limit is retried a bounded
//! number of times instead of losing the reply.
//!
//! Why the adapter retries itself: serenity's own rate limiter waits out a 429 only when it
//! carries a `Retry-After` header, and it is off when the API address is configured (it
//! would send to discord.com); a 5xx is never retried by serenity. serenity's error keeps
//! neither the headers nor a body it cannot decode (Discord's 429 body has no `code`), so the
//! messages are sent by `rest.rs`, which reads both: a retry waits the backoff or what Discord
//! asked for, whichever is longer, and a wait longer than [`MAX_INLINE_WAIT`] is left to the
//! outbox's sender.

use std::{future::Future, time::Duration};

use bot_core::outbox::Key;
use poise::serenity_prelude as serenity;
use serde_json::{Value, json};

use crate::{
    convert,
    rest::{Body, Rest},
};

/// Discord's limit on a message's content, in characters.
pub const MAX_CONTENT: usize = 2000;

/// How many messages one reply may become: enough for a long game's record, and a bound on
/// what one command can post.
pub const MAX_PARTS: usize = 4;

/// The note that ends a reply cut short.
const CUT: &str = "\n… (cut here: too long for Discord)";

/// Discord's error code for "Cannot send messages to this user" (closed DMs, a block).
pub const CANNOT_DM: isize = 50007;

/// Discord's error code for a second answer to an interaction.
const ALREADY_ACKNOWLEDGED: isize = 40060;

/// Splits a text into messages of at most [`MAX_CONTENT`] characters: at the last line end
/// that fits, else at the last space, else anywhere (on a character boundary). Past
/// [`MAX_PARTS`] messages the text is cut and says so. An empty text stays one empty part.
pub fn fit(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = text;
    while rest.chars().count() > MAX_CONTENT {
        if parts.len() + 1 == MAX_PARTS {
            let keep = MAX_CONTENT - CUT.chars().count();
            let end = split_at(rest, keep);
            parts.push(format!("{}{CUT}", rest[..end].trim_end()));
            return parts;
        }
        let end = split_at(rest, MAX_CONTENT);
        parts.push(rest[..end].trim_end().to_string());
        rest = rest[end..].trim_start_matches('\n');
    }
    parts.push(rest.to_string());
    parts
}

/// The byte index to cut `text` at so the head has at most `max` characters: after the last
/// line end, else the last space, in the head; else exactly `max` characters.
fn split_at(text: &str, max: usize) -> usize {
    let limit = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..limit];
    // A break in the first half would waste a message: only breaks past it count.
    let good = |i: usize| i > limit / 2;
    if let Some(i) = head.rfind('\n').filter(|i| good(*i)) {
        return i + 1;
    }
    if let Some(i) = head.rfind(' ').filter(|i| good(*i)) {
        return i + 1;
    }
    limit
}

/// How often and how long a failing send is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Tries in all (at least 1).
    pub attempts: u32,
    /// The wait before the second try; each later wait doubles, up to `max_delay`.
    pub first_delay: Duration,
    /// The longest wait between two tries.
    pub max_delay: Duration,
}

impl Default for Retry {
    /// Four tries over 3.5 s (0.5, 1, 2 s): Discord's route limits reset within a second or
    /// two, and a followup's token lasts 15 minutes, but a player waits for his answer.
    fn default() -> Self {
        Retry {
            attempts: 4,
            first_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(2),
        }
    }
}

impl Retry {
    /// The wait after failed try number `n` (from 1).
    fn delay(&self, n: u32) -> Duration {
        let factor = 2u32.saturating_pow(n.saturating_sub(1));
        self.first_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// Why one request to Discord failed.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Discord (or the API proxy) answered with an error status.
    #[error("Discord answered {status} (code {code}): {message}")]
    Discord {
        /// The HTTP status.
        status: u16,
        /// Discord's JSON error code (0 when the body has none, as in a 429).
        code: isize,
        /// Discord's message.
        message: String,
        /// How long Discord asked to wait (a 429's `Retry-After` header or body
        /// `retry_after`, the longer of the two).
        retry_after: Option<Duration>,
        /// A 429 of the global limit (`X-RateLimit-Global` or the body's `global`).
        global: bool,
    },
    /// A request serenity made failed (its error keeps neither headers nor a 429's body).
    #[error(transparent)]
    Serenity(Box<serenity::Error>),
    /// No answer: the connection failed or timed out (the request may have been done).
    #[error("no answer from Discord: {0}")]
    Network(String),
}

impl From<serenity::Error> for Failure {
    fn from(e: serenity::Error) -> Self {
        match &e {
            serenity::Error::Http(serenity::HttpError::UnsuccessfulRequest(r)) => {
                Failure::Discord {
                    status: r.status_code.as_u16(),
                    code: r.error.code,
                    message: r.error.message.clone(),
                    retry_after: None,
                    global: false,
                }
            }
            _ => Failure::Serenity(Box::new(e)),
        }
    }
}

impl Failure {
    /// The HTTP status and Discord code.
    pub fn status(&self) -> Option<(u16, isize)> {
        match self {
            Failure::Discord { status, code, .. } => Some((*status, *code)),
            _ => None,
        }
    }

    /// How long Discord asked to wait, if it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Discord { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Whether the request may have been carried out although it failed: a server error
    /// (Discord's edge may answer 5xx for work done) or no answer at all. A 429 was not.
    pub fn may_have_been_done(&self) -> bool {
        match self {
            Failure::Discord { status, .. } => (500..600).contains(status),
            Failure::Network(_) => true,
            Failure::Serenity(_) => false,
        }
    }

    /// Whether trying again may help: a server error (5xx), a rate limit (429), no answer.
    pub fn transient(&self) -> bool {
        match self {
            Failure::Discord { status, .. } => *status == 429 || (500..600).contains(status),
            Failure::Network(_) => true,
            Failure::Serenity(_) => false,
        }
    }
}

/// Why a message could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// Discord will not deliver to this user privately: his DMs are closed (403 / 50007, when
    /// the DM channel is opened or when the message is sent).
    #[error("user {user} does not accept direct messages")]
    ClosedDm {
        /// The user.
        user: u64,
    },
    /// Discord kept answering a server error or a rate limit (or asked for a wait longer than
    /// a player should be kept waiting): the outbox's sender tries again after `wait`.
    #[error("Discord still failing after {attempts} tries: {source}")]
    GaveUp {
        /// How many tries were made.
        attempts: u32,
        /// How long to wait before the next try: what Discord asked for, at least the backoff.
        wait: Duration,
        /// The last error.
        source: Box<Failure>,
    },
    /// Discord refused the message for good (permissions, an unknown channel, a dead token...).
    #[error(transparent)]
    Refused(Box<Failure>),
}

impl SendError {
    /// Whether a later attempt may succeed.
    pub fn transient(&self) -> bool {
        matches!(self, SendError::GaveUp { .. })
    }

    /// How long the sender should wait before trying again.
    pub fn wait(&self) -> Duration {
        match self {
            SendError::GaveUp { wait, .. } => *wait,
            _ => Duration::from_secs(1),
        }
    }
}

/// The longest wait a send waits itself, with a player waiting for his answer; a longer
/// `Retry-After` ends the tries at once and the outbox's sender waits it out instead.
pub const MAX_INLINE_WAIT: Duration = Duration::from_secs(5);

/// Runs `op` until it succeeds, fails for good, or has been tried `policy.attempts` times,
/// waiting between tries the backoff or what Discord asked for (`Retry-After`, the body's
/// `retry_after`), whichever is longer: never less than Discord asked. A retried interaction
/// answer that Discord says was given already (40060: the failed try reached Discord after
/// all) counts as sent.
pub(crate) async fn retrying<T, E, F, Fut>(
    policy: Retry,
    what: &str,
    mut op: F,
) -> Result<Option<T>, SendError>
where
    E: Into<Failure>,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let attempts = policy.attempts.max(1);
    let mut n = 0;
    loop {
        n += 1;
        let e: Failure = match op().await {
            Ok(t) => return Ok(Some(t)),
            Err(e) => e.into(),
        };
        if n > 1 && e.status().is_some_and(|(_, c)| c == ALREADY_ACKNOWLEDGED) {
            tracing::info!("{what}: answered by an earlier try after all");
            return Ok(None);
        }
        if !e.transient() {
            return Err(SendError::Refused(Box::new(e)));
        }
        let asked = e.retry_after().unwrap_or_default();
        let wait = policy.delay(n).max(asked);
        if n >= attempts || asked > MAX_INLINE_WAIT {
            return Err(SendError::GaveUp {
                attempts: n,
                wait: wait.max(Duration::from_secs(1)),
                source: Box::new(e),
            });
        }
        tracing::warn!("{what}: try {n} of {attempts} failed ({e}); again in {wait:?}");
        tokio::time::sleep(wait).await;
    }
}

/// One message to send, platform-shaped, before it is fitted to Discord's limits.
#[derive(Debug, Default, Clone)]
pub(crate) struct Outgoing {
    pub content: String,
    pub ephemeral: bool,
    pub png: Option<Vec<u8>>,
    pub components: Vec<serenity::CreateActionRow>,
    /// The users this message may notify (nobody else: no `@everyone`, no roles).
    pub mentions: Vec<u64>,
    /// A table, shown under the text (on the last part).
    pub embed: Option<serenity::CreateEmbed>,
}

/// One Discord message of an [`Outgoing`].
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub content: String,
    pub png: Option<Vec<u8>>,
    pub components: Vec<serenity::CreateActionRow>,
    pub embeds: Vec<serenity::CreateEmbed>,
}

impl Outgoing {
    /// The messages it becomes: the text fitted, the picture and the buttons on the last one
    /// (under the text they belong to).
    pub(crate) fn parts(&self) -> Vec<Part> {
        let texts = fit(&self.content);
        let n = texts.len();
        texts
            .into_iter()
            .enumerate()
            .map(|(i, content)| Part {
                content,
                png: if i + 1 == n { self.png.clone() } else { None },
                components: if i + 1 == n {
                    self.components.clone()
                } else {
                    Vec::new()
                },
                embeds: if i + 1 == n {
                    self.embed.iter().cloned().collect()
                } else {
                    Vec::new()
                },
            })
            .collect()
    }

    /// The JSON payload of one part (`flags` 64 when ephemeral; the picture as attachment 0)
    /// and its files.
    pub(crate) fn payload(&self, part: &Part) -> (Value, Vec<(String, Vec<u8>)>) {
        let mut v = json!({
            "content": part.content,
            "allowed_mentions": convert::users_allowed(self.mentions.clone()),
            "components": part.components,
            "embeds": part.embeds,
            "flags": if self.ephemeral { EPHEMERAL } else { 0 },
        });
        // The picture is a board (PNG) or a replay (GIF, `replay`): named by what it is.
        let name = |b: &[u8]| {
            if b.starts_with(b"GIF8") {
                "replay.gif"
            } else {
                "board.png"
            }
        };
        let files: Vec<(String, Vec<u8>)> = part
            .png
            .iter()
            .map(|b| (name(b).to_owned(), b.clone()))
            .collect();
        if let Some((filename, _)) = files.first() {
            v["attachments"] = json!([{"id": 0, "filename": filename}]);
        }
        (v, files)
    }

    /// The request body of one part, with `extra` fields merged into its payload.
    pub(crate) fn body(&self, part: &Part, extra: Value) -> Body {
        let (mut payload, files) = self.payload(part);
        if let (Some(p), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                p.insert(k.clone(), v.clone());
            }
        }
        if files.is_empty() {
            Body::Json(payload)
        } else {
            Body::Multipart { payload, files }
        }
    }
}

/// Discord's message flag for "only the user who acted sees it".
pub(crate) const EPHEMERAL: u64 = 64;

/// The nonce of a message's part: the outbox key (with `enforce_nonce`, Discord creates a
/// message once per nonce, so a send repeated after a crash or a lost answer shows once);
/// parts after the first add their number while the nonce stays within Discord's 25
/// characters.
fn nonce(key: Option<&Key>, part: usize) -> Value {
    match key {
        Some(k) if part == 0 => json!({"nonce": k.as_str(), "enforce_nonce": true}),
        Some(k) if k.as_str().len() + 3 <= Key::MAX_LEN => {
            json!({"nonce": format!("{k}/{part}"), "enforce_nonce": true})
        }
        _ => json!({}),
    }
}

/// Posts a message in a channel (the game's channel or thread, a DM channel), every part
/// retried under `policy`, with the outbox key as its nonce.
///
/// # Errors
/// [`SendError::ClosedDm`] for a DM channel whose user refuses DMs, [`SendError::GaveUp`]
/// when Discord kept failing, [`SendError::Refused`] otherwise.
pub(crate) async fn post_message(
    http: &serenity::Http,
    policy: Retry,
    channel: serenity::ChannelId,
    out: &Outgoing,
    dm_user: Option<u64>,
    key: Option<&Key>,
) -> Result<(), SendError> {
    post_message_id(http, policy, channel, out, dm_user, key)
        .await
        .map(|_| ())
}

/// [`post_message`], returning the id of the message of its last part (the one a later
/// edit changes), when Discord said it.
pub(crate) async fn post_message_id(
    http: &serenity::Http,
    policy: Retry,
    channel: serenity::ChannelId,
    out: &Outgoing,
    dm_user: Option<u64>,
    key: Option<&Key>,
) -> Result<Option<u64>, SendError> {
    post_parts_from(http, policy, channel, out, 0, dm_user, key).await
}

/// [`post_message_id`] from part `from` on (the parts before it are shown already); each
/// part keeps its own nonce.
pub(crate) async fn post_parts_from(
    http: &serenity::Http,
    policy: Retry,
    channel: serenity::ChannelId,
    out: &Outgoing,
    from: usize,
    dm_user: Option<u64>,
    key: Option<&Key>,
) -> Result<Option<u64>, SendError> {
    let rest = Rest::of(http);
    let path = format!("channels/{channel}/messages");
    let mut last = None;
    for (i, part) in out.parts().iter().enumerate().skip(from) {
        let body = out.body(part, nonce(key, i));
        let sent = retrying(policy, "a channel message", || {
            rest.call(reqwest::Method::POST, &path, &body)
        })
        .await;
        match (sent, dm_user) {
            (Err(SendError::Refused(e)), Some(user))
                if e.status().is_some_and(|(_, c)| c == CANNOT_DM) =>
            {
                return Err(SendError::ClosedDm { user });
            }
            (r, _) => {
                last = message_id(r?.as_ref());
            }
        }
    }
    Ok(last)
}

/// The id of the message Discord answered with.
pub(crate) fn message_id(message: Option<&serde_json::Value>) -> Option<u64> {
    message?["id"].as_str()?.parse().ok()
}

/// Sends a message to a user privately: opens (or finds) the DM channel, then posts there,
/// each step retried under `policy`.
///
/// # Errors
/// As [`post_message`]; [`SendError::ClosedDm`] also when Discord refuses to open the DM.
pub(crate) async fn direct_message(
    http: &serenity::Http,
    policy: Retry,
    user: u64,
    out: &Outgoing,
    key: Option<&Key>,
) -> Result<(), SendError> {
    let rest = Rest::of(http);
    let body = Body::Json(json!({"recipient_id": user.to_string()}));
    let opened = retrying(policy, "opening a DM", || {
        rest.call(reqwest::Method::POST, "users/@me/channels", &body)
    })
    .await;
    let channel = match opened {
        Ok(Some(c)) => c["id"]
            .as_str()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|c| *c != 0),
        Ok(None) => None,
        Err(SendError::Refused(e)) if e.status().is_some_and(|(_, c)| c == CANNOT_DM) => {
            return Err(SendError::ClosedDm { user });
        }
        Err(e) => return Err(e),
    };
    let Some(channel) = channel else {
        return Err(SendError::Refused(Box::new(Failure::Network(
            "Discord opened a DM channel without an id".into(),
        ))));
    };
    post_message(
        http,
        policy,
        serenity::ChannelId::new(channel),
        out,
        Some(user),
        key,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_stay_whole() {
        assert_eq!(fit("hello"), ["hello"]);
        assert_eq!(fit(""), [""]);
        let exact = "x".repeat(MAX_CONTENT);
        assert_eq!(fit(&exact), vec![exact]);
    }

    #[test]
    fn long_texts_split_at_line_ends_within_the_limit() {
        let line = format!("{}\n", "a".repeat(99));
        let text = line.repeat(50); // 5,000 characters
        let parts = fit(&text);
        assert_eq!(parts.len(), 3);
        for p in &parts {
            assert!(p.chars().count() <= MAX_CONTENT, "{}", p.len());
            assert!(p.split('\n').all(|l| l.len() == 99 || l.is_empty()));
        }
        assert_eq!(
            parts.concat().replace('\n', "").len(),
            99 * 50,
            "nothing lost"
        );
    }

    #[test]
    fn a_text_without_breaks_is_cut_on_character_boundaries() {
        let text = "é".repeat(4500);
        let parts = fit(&text);
        assert_eq!(parts.len(), 3);
        assert!(parts.iter().all(|p| p.chars().count() <= MAX_CONTENT));
        assert_eq!(parts.concat(), text);
    }

    #[test]
    fn past_the_last_part_the_text_is_cut_and_says_so() {
        let text = "word ".repeat(3000); // 15,000 characters
        let parts = fit(&text);
        assert_eq!(parts.len(), MAX_PARTS);
        assert!(parts.iter().all(|p| p.chars().count() <= MAX_CONTENT));
        assert!(parts.last().unwrap().ends_with("too long for Discord)"));
    }

    #[test]
    fn backoff_doubles_up_to_its_bound() {
        let r = Retry::default();
        assert_eq!(r.delay(1), Duration::from_millis(500));
        assert_eq!(r.delay(2), Duration::from_secs(1));
        assert_eq!(r.delay(3), Duration::from_secs(2));
        assert_eq!(r.delay(9), Duration::from_secs(2));
    }

    /// A real serenity error: what serenity makes of the stand-in's answer `status`/`code`
    /// (code -1: Discord's 429 body, which has no code).
    async fn discord_error(status: u16, code: isize) -> serenity::Error {
        let fake = discord_fake::FakeDiscord::start().await;
        if code == -1 {
            fake.rate_limit(
                |_, _| true,
                discord_fake::RateLimit {
                    bucket: "all".into(),
                    limit: 0,
                    window: Duration::from_secs(60),
                    form: discord_fake::RetryAfterIn::Body,
                    global: false,
                },
            );
        } else {
            let code = u64::try_from(code).unwrap_or(0);
            fake.fail_requests(
                |_, _| true,
                discord_fake::DiscordError::new(status, code, "refused"),
                None,
            );
        }
        fake.serenity_http().get_current_user().await.unwrap_err()
    }

    #[tokio::test]
    async fn server_errors_and_rate_limits_are_transient_others_not() {
        let transient = |e: serenity::Error| Failure::from(e).transient();
        let closed = |e: serenity::Error| Failure::from(e).status() == Some((403, CANNOT_DM));
        assert!(transient(discord_error(500, 0).await));
        assert!(transient(discord_error(503, 0).await));
        assert!(transient(discord_error(429, -1).await));
        assert!(!transient(discord_error(403, 50013).await));
        assert!(!transient(discord_error(400, 50035).await));
        assert!(closed(discord_error(403, 50007).await));
        assert!(!closed(discord_error(403, 50013).await));
    }

    #[tokio::test]
    async fn retries_are_bounded() {
        let quick = Retry {
            attempts: 3,
            first_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
        };
        let bad_gateway = discord_error(502, 0).await;
        let rate_limited = discord_error(429, -1).await;
        let forbidden = discord_error(403, 50013).await;
        let copy = |e: &serenity::Error| -> serenity::Error {
            match e {
                serenity::Error::Http(serenity::HttpError::UnsuccessfulRequest(r)) => {
                    serenity::Error::Http(serenity::HttpError::UnsuccessfulRequest(r.clone()))
                }
                _ => unreachable!("a Discord error"),
            }
        };
        let mut tries = 0;
        let r: Result<Option<()>, _> = retrying(quick, "test", || {
            tries += 1;
            let e = copy(&bad_gateway);
            async { Err(e) }
        })
        .await;
        assert!(matches!(r, Err(SendError::GaveUp { attempts: 3, .. })));
        assert_eq!(tries, 3);
        let mut tries = 0;
        let r = retrying(quick, "test", || {
            tries += 1;
            let t = tries;
            let e = copy(&rate_limited);
            async move { if t < 2 { Err(e) } else { Ok(t) } }
        })
        .await;
        assert_eq!(r.unwrap(), Some(2));
        let mut tries = 0;
        let r: Result<Option<()>, _> = retrying(quick, "test", || {
            tries += 1;
            let e = copy(&forbidden);
            async { Err(e) }
        })
        .await;
        assert!(matches!(r, Err(SendError::Refused(_))));
        assert_eq!(tries, 1, "a refusal is not retried");
    }
}
