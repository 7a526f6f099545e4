//! Sending to Discord: every message of the bot goes through here, so that each one fits
//! Discord's 2,000 characters (split at line ends, or cut with a note, on purpose rather than
//! refused with "Message too large") and a server error or a rate limit is retried a bounded
//! number of times instead of losing the reply.
//!
//! Why the adapter retries itself: serenity's own rate limiter waits out a 429 only when it
//! carries a `Retry-After` header, and it is off when the API address is configured (it
//! would send to discord.com); a 5xx is never retried by serenity. serenity's error keeps
//! neither the headers nor a body it cannot decode (Discord's 429 body has no `code`, so it
//! arrives as code -1 "[Serenity] Could not decode json…"), so the wait is this module's own
//! bounded backoff, long enough for Discord's per-route limits (a few hundred milliseconds).

use std::{future::Future, time::Duration};

use poise::serenity_prelude as serenity;

use crate::convert;

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
    /// Discord kept answering a server error or a rate limit.
    #[error("Discord still failing after {attempts} tries: {source}")]
    GaveUp {
        /// How many tries were made.
        attempts: u32,
        /// The last error.
        source: Box<serenity::Error>,
    },
    /// Discord refused the message for good (permissions, an unknown channel...).
    #[error(transparent)]
    Refused(Box<serenity::Error>),
}

/// The HTTP status and Discord code of a refused request.
fn status(e: &serenity::Error) -> Option<(u16, isize)> {
    match e {
        serenity::Error::Http(serenity::HttpError::UnsuccessfulRequest(r)) => {
            Some((r.status_code.as_u16(), r.error.code))
        }
        _ => None,
    }
}

/// Whether trying again may help: a server error (5xx) or a rate limit (429, in whichever
/// form: the status is what counts, since serenity cannot decode Discord's 429 body).
pub fn transient(e: &serenity::Error) -> bool {
    status(e).is_some_and(|(s, _)| s == 429 || (500..600).contains(&s))
}

/// Whether a serenity error is Discord refusing a DM (403 / 50007).
pub fn is_closed_dm(e: &serenity::Error) -> bool {
    status(e).is_some_and(|(_, code)| code == CANNOT_DM)
}

/// Runs `op` until it succeeds, fails for good, or has been tried `policy.attempts` times,
/// waiting the backoff between tries. A retried interaction answer that Discord says was
/// given already (40060: the failed try reached Discord after all) counts as sent.
pub(crate) async fn retrying<T, F, Fut>(
    policy: Retry,
    what: &str,
    mut op: F,
) -> Result<Option<T>, SendError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, serenity::Error>>,
{
    let attempts = policy.attempts.max(1);
    let mut n = 0;
    loop {
        n += 1;
        match op().await {
            Ok(t) => return Ok(Some(t)),
            Err(e) if n > 1 && status(&e).is_some_and(|(_, c)| c == ALREADY_ACKNOWLEDGED) => {
                tracing::info!("{what}: answered by an earlier try after all");
                return Ok(None);
            }
            Err(e) if transient(&e) && n < attempts => {
                let wait = policy.delay(n);
                tracing::warn!("{what}: try {n} of {attempts} failed ({e}); again in {wait:?}");
                tokio::time::sleep(wait).await;
            }
            Err(e) if transient(&e) => {
                return Err(SendError::GaveUp {
                    attempts: n,
                    source: Box::new(e),
                });
            }
            Err(e) => return Err(SendError::Refused(Box::new(e))),
        }
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

    /// The serenity message of one part.
    fn message(&self, part: &Part) -> serenity::CreateMessage {
        let mut m = serenity::CreateMessage::new()
            .allowed_mentions(convert::users_allowed(self.mentions.clone()))
            .content(part.content.clone())
            .components(part.components.clone())
            .embeds(part.embeds.clone());
        if let Some(b) = &part.png {
            m = m.add_file(serenity::CreateAttachment::bytes(b.clone(), "board.png"));
        }
        m
    }
}

/// Posts a message in a channel (the game's channel or thread, a DM channel), every part
/// retried under `policy`.
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
) -> Result<(), SendError> {
    for part in out.parts() {
        let sent = retrying(policy, "a channel message", || {
            channel.send_message(http, out.message(&part))
        })
        .await;
        match (sent, dm_user) {
            (Err(SendError::Refused(e)), Some(user)) if is_closed_dm(&e) => {
                return Err(SendError::ClosedDm { user });
            }
            (r, _) => {
                r?;
            }
        }
    }
    Ok(())
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
) -> Result<(), SendError> {
    let uid = serenity::UserId::new(user);
    let channel = match retrying(policy, "opening a DM", || uid.create_dm_channel(http)).await {
        Ok(Some(c)) => c.id,
        Ok(None) => return Err(SendError::ClosedDm { user }),
        Err(SendError::Refused(e)) if is_closed_dm(&e) => {
            return Err(SendError::ClosedDm { user });
        }
        Err(e) => return Err(e),
    };
    post_message(http, policy, channel, out, Some(user)).await
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
        assert!(transient(&discord_error(500, 0).await));
        assert!(transient(&discord_error(503, 0).await));
        let limited = discord_error(429, -1).await;
        assert!(transient(&limited), "{limited}");
        assert!(!transient(&discord_error(403, 50013).await));
        assert!(!transient(&discord_error(400, 50035).await));
        assert!(is_closed_dm(&discord_error(403, 50007).await));
        assert!(!is_closed_dm(&discord_error(403, 50013).await));
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
