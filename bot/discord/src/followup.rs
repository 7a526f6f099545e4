//! Followups (the second and later messages answering one interaction), shown once.
//!
//! Discord takes no nonce on a followup, so a followup that Discord carried out but answered
//! with a 5xx (or whose answer never came back) would show twice if it were simply sent
//! again, and so would one sent by a process killed before it could report it. A public
//! followup is a message of its channel that names its interaction
//! (`interaction_metadata.id`): before a try that may repeat an earlier one, the channel's
//! latest messages are read, and a message of the same interaction with the same text is
//! that followup, shown already.
//!
//! What this cannot cover: an ephemeral followup is listed nowhere, so after such a failure
//! it is sent again and may show twice, to its actor alone; and a bot that may not read the
//! channel's history sends again as before (logged).

use std::sync::atomic::{AtomicBool, Ordering};

use bot_core::outbox::Handle;
use serde_json::Value;

use crate::{
    rest::{Body, Rest},
    send::{self, Failure, Retry, SendError},
};

/// How many of the channel's latest messages are read to find a followup shown already:
/// Discord's largest page. A followup is looked for seconds (at most minutes, by a restarted
/// sender) after it was sent, within which even a busy channel takes fewer messages.
const LOOK_BACK: u32 = 100;

/// An interaction's webhook, as its followups need it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hook<'a> {
    /// The application's id.
    pub app: &'a str,
    /// The interaction's token.
    pub token: &'a str,
    /// The interaction's id, by which its messages are recognised (unknown for a handle
    /// stored by an older version: then nothing is looked for).
    pub interaction: Option<u64>,
    /// The channel the interaction came from, where its public followups show.
    pub channel: Option<u64>,
}

impl<'a> Hook<'a> {
    /// The hook of a stored handle: `application:token`, then `:interaction` when known.
    pub(crate) fn of(h: &'a Handle, channel: Option<u64>) -> Option<Hook<'a>> {
        let mut parts = h.token.splitn(3, ':');
        let app = parts.next().filter(|a| !a.is_empty())?;
        let token = parts.next().filter(|t| !t.is_empty())?;
        let interaction = parts.next().and_then(|i| i.parse().ok());
        Some(Hook {
            app,
            token,
            interaction,
            channel,
        })
    }

    /// The handle's token for this hook (see [`Hook::of`]).
    pub(crate) fn token_of(app: u64, token: &str, interaction: u64) -> String {
        format!("{app}:{token}:{interaction}")
    }
}

/// One followup message: what it says, how it goes, and which earlier messages of the same
/// interaction are known to be others (parts or replies sent before it, which may say the
/// same).
pub(crate) struct Followup<'a> {
    pub body: &'a Body,
    pub content: &'a str,
    pub ephemeral: bool,
    pub known: &'a [u64],
}

/// Posts a followup, tried under `policy`. With `look_first` (a sender that cannot know
/// whether a process before it sent this already), and before every try after one that may
/// have been carried out, the channel is read first: a followup found there is returned as
/// if it had just been posted. Returns the message Discord gave back.
///
/// # Errors
/// As [`send::retrying`].
pub(crate) async fn post(
    rest: &Rest,
    policy: Retry,
    hook: Hook<'_>,
    message: Followup<'_>,
    look_first: bool,
) -> Result<Option<Value>, SendError> {
    let path = format!("webhooks/{}/{}?wait=true", hook.app, hook.token);
    let findable = !message.ephemeral && hook.interaction.is_some() && hook.channel.is_some();
    let can_look = AtomicBool::new(findable);
    let look = AtomicBool::new(findable && look_first);
    let (path, can_look, look, message) = (&path, &can_look, &look, &message);
    send::retrying(policy, "a followup", move || async move {
        if look.load(Ordering::Relaxed) {
            match shown(rest, hook, message).await {
                Ok(Some(found)) => {
                    tracing::info!("a followup was shown by an earlier try: not sent again");
                    return Ok(found);
                }
                Ok(None) => {}
                // Not known yet: a try that counts, rather than a second message.
                Err(e) if e.transient() => return Err(e),
                Err(e) => {
                    tracing::warn!("cannot read the channel to find a followup ({e}): sent again");
                    can_look.store(false, Ordering::Relaxed);
                }
            }
        }
        let result = rest.call(reqwest::Method::POST, path, message.body).await;
        if let Err(e) = &result {
            look.store(
                can_look.load(Ordering::Relaxed) && e.may_have_been_done(),
                Ordering::Relaxed,
            );
        }
        result
    })
    .await
}

/// The followup of `hook`'s interaction showing `message` in its channel, if there is one
/// that is not among the known others.
async fn shown(
    rest: &Rest,
    hook: Hook<'_>,
    message: &Followup<'_>,
) -> Result<Option<Value>, Failure> {
    Ok(interaction_messages(rest, hook)
        .await?
        .into_iter()
        .find(|m| {
            m["content"].as_str() == Some(message.content)
                && send::message_id(Some(m)).is_some_and(|id| !message.known.contains(&id))
        }))
}

/// The messages `hook`'s interaction shows among its channel's latest (its public original
/// answer and followups), oldest first; none when the hook does not name its interaction and
/// channel.
async fn interaction_messages(rest: &Rest, hook: Hook<'_>) -> Result<Vec<Value>, Failure> {
    let (Some(interaction), Some(channel)) = (hook.interaction, hook.channel) else {
        return Ok(Vec::new());
    };
    let latest = rest
        .call(
            reqwest::Method::GET,
            &format!("channels/{channel}/messages?limit={LOOK_BACK}"),
            &Body::Empty,
        )
        .await?;
    let interaction = interaction.to_string();
    let mut found: Vec<Value> = latest
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["interaction_metadata"]["id"].as_str() == Some(interaction.as_str()))
        .cloned()
        .collect();
    // Discord lists the newest first.
    found.reverse();
    Ok(found)
}

/// How many of a public answer's leading `parts` (their texts, in order) `hook`'s interaction
/// shows already in its channel: for the sender past the interaction's token, which posts
/// in the channel what the interaction did not show, so that an answer shown before its
/// report was written (a kill -9 in between, a 5xx on every try that Discord carried out) is
/// not posted a second time. A channel the bot may not read counts as showing nothing (the
/// answer is posted, and may show twice: logged).
///
/// # Errors
/// A failure that may pass (a 5xx, a rate limit, the network): not known yet, so the sender
/// tries again later rather than risk a second message.
pub(crate) async fn parts_shown(
    rest: &Rest,
    hook: Hook<'_>,
    parts: &[&str],
) -> Result<usize, Failure> {
    let messages = match interaction_messages(rest, hook).await {
        Ok(m) => m,
        Err(e) if e.transient() => return Err(e),
        Err(e) => {
            tracing::warn!(
                "cannot read the channel to find an answer shown before ({e}): sent again"
            );
            return Ok(0);
        }
    };
    let mut texts = messages
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default());
    // The parts were sent in order: each is looked for after the one before.
    Ok(parts
        .iter()
        .take_while(|part| texts.any(|t| t == **part))
        .count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handle(token: &str) -> Handle {
        Handle {
            token: token.into(),
            until_ms: 0,
        }
    }

    #[test]
    fn a_handle_names_its_interaction_when_it_was_stored_with_it() {
        let h = handle(&Hook::token_of(7, "tok", 99));
        let hook = Hook::of(&h, Some(5)).unwrap();
        assert_eq!(
            (hook.app, hook.token, hook.interaction),
            ("7", "tok", Some(99))
        );
        // Stored by an older version: answered still, nothing looked for.
        let old = handle("7:tok");
        let hook = Hook::of(&old, Some(5)).unwrap();
        assert_eq!((hook.app, hook.token, hook.interaction), ("7", "tok", None));
        for bad in ["", ":tok", "7:", "7"] {
            assert!(Hook::of(&handle(bad), None).is_none(), "{bad:?}");
        }
    }
}

#[cfg(test)]
mod against_the_fake {
    //! The followup path against `discord-fake`, its faults injected.

    use std::time::Duration;

    use discord_fake::{DiscordError, FakeDiscord, ids};
    use serde_json::json;

    use super::*;

    const QUICK: Retry = Retry {
        attempts: 4,
        first_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(20),
    };

    fn posts_followup(method: &str, route: &str) -> bool {
        method == "POST" && route.starts_with("webhooks/") && route.split('/').count() == 3
    }

    /// A fake Discord, a client of it, and a `/help` in #general answered with a first public
    /// message (its interaction's id and token).
    struct Answered {
        fake: FakeDiscord,
        rest: Rest,
        ix: (u64, String),
    }

    impl Answered {
        async fn start() -> Answered {
            let fake = FakeDiscord::start().await;
            let rest = Rest::of(&fake.serenity_http());
            let ix = Answered::answer(&fake, &rest).await;
            Answered { fake, rest, ix }
        }

        /// Another `/help`, answered: its interaction's id and token.
        async fn answer(fake: &FakeDiscord, rest: &Rest) -> (u64, String) {
            let ix = fake.slash("help").by(ids::ALICE).send();
            let first = Body::Json(json!({"type": 4, "data": {"content": "first"}}));
            rest.call(
                reqwest::Method::POST,
                &format!("interactions/{}/{}/callback", ix.id, ix.token),
                &first,
            )
            .await
            .unwrap();
            (ix.id, ix.token)
        }

        /// Posts a public followup of `ix` saying `content`, the messages in `known` taken
        /// for others; returns the id of the message it shows as.
        async fn post(
            &self,
            ix: &(u64, String),
            content: &str,
            look_first: bool,
            known: &[u64],
        ) -> Option<u64> {
            let app = ids::APPLICATION.to_string();
            let hook = hook_of(&app, ix);
            let body = Body::Json(json!({"content": content, "flags": 0}));
            let message = Followup {
                body: &body,
                content,
                ephemeral: false,
                known,
            };
            let sent = post(&self.rest, QUICK, hook, message, look_first)
                .await
                .unwrap();
            send::message_id(sent.as_ref())
        }

        /// How many followups of `ix` say `content`.
        fn shown(&self, ix: u64, content: &str) -> usize {
            self.fake.inspect(|r| {
                r.followups(ix)
                    .iter()
                    .filter(|m| m.content == content)
                    .count()
            })
        }

        /// How many requests `what` matches.
        fn requests(&self, what: impl Fn(&str, &str) -> bool) -> usize {
            self.fake.inspect(|r| {
                r.requests()
                    .iter()
                    .filter(|q| what(&q.method, &q.route))
                    .count()
            })
        }
    }

    #[tokio::test]
    async fn a_followup_carried_out_but_answered_500_shows_once() {
        let a = Answered::start().await;
        a.fake.fail_after_doing(
            posts_followup,
            DiscordError::internal_server_error(),
            Some(1),
        );
        let id = a.post(&a.ix, "second", false, &[]).await;
        assert_eq!(a.shown(a.ix.0, "second"), 1);
        // The one shown is the one returned (its id is kept for edits).
        assert_eq!(id, a.fake.inspect(|r| r.followups(a.ix.0)[0].id).into());
        assert_eq!(a.requests(posts_followup), 1, "found, not posted again");
    }

    #[tokio::test]
    async fn a_followup_whose_answer_never_came_shows_once() {
        let a = Answered::start().await;
        // A 502 from a proxy in front of Discord: the same doubt as no answer at all.
        a.fake.fail_after_doing(
            posts_followup,
            DiscordError::new(502, 0, "Bad Gateway"),
            Some(2),
        );
        a.post(&a.ix, "second", false, &[]).await;
        assert_eq!(a.shown(a.ix.0, "second"), 1);
    }

    #[tokio::test]
    async fn a_429_is_not_taken_for_a_followup_done_and_nothing_is_read() {
        let a = Answered::start().await;
        a.fake.fail_requests(
            posts_followup,
            DiscordError::new(429, 0, "You are being rate limited."),
            Some(1),
        );
        a.post(&a.ix, "second", false, &[]).await;
        assert_eq!(a.shown(a.ix.0, "second"), 1);
        let reads = a.requests(|m, r| m == "GET" && r.ends_with("/messages"));
        assert_eq!(reads, 0);
    }

    #[tokio::test]
    async fn a_restarted_sender_finds_the_followup_a_killed_process_sent() {
        let a = Answered::start().await;
        a.post(&a.ix, "second", false, &[]).await;
        // The process is killed here, before its report: the next one looks first.
        a.post(&a.ix, "second", true, &[]).await;
        assert_eq!(a.shown(a.ix.0, "second"), 1);
        // The same text from another interaction is not taken for it.
        let other = Answered::answer(&a.fake, &a.rest).await;
        a.post(&other, "second", true, &[]).await;
        assert_eq!(a.shown(other.0, "second"), 1);
    }

    #[tokio::test]
    async fn a_known_earlier_followup_with_the_same_text_is_not_taken_for_a_new_one() {
        let a = Answered::start().await;
        let earlier = a.post(&a.ix, "same", false, &[]).await.unwrap();
        a.post(&a.ix, "same", true, &[earlier]).await;
        assert_eq!(a.shown(a.ix.0, "same"), 2);
    }

    #[tokio::test]
    async fn a_channel_that_cannot_be_read_leaves_the_followup_sent_as_before() {
        let a = Answered::start().await;
        a.fake.fail_requests(
            |m, r| m == "GET" && r.ends_with("/messages"),
            DiscordError::missing_access(),
            None,
        );
        a.post(&a.ix, "second", true, &[]).await;
        assert_eq!(a.shown(a.ix.0, "second"), 1);
    }

    /// The hook of interaction `ix` (its id and token) in #general.
    fn hook_of<'a>(app: &'a str, ix: &'a (u64, String)) -> Hook<'a> {
        Hook {
            app,
            token: &ix.1,
            interaction: Some(ix.0),
            channel: Some(ids::GENERAL),
        }
    }

    /// [`parts_shown`] for `ix`'s answer made of `parts`.
    async fn parts_of(a: &Answered, ix: &(u64, String), parts: &[&str]) -> Result<usize, Failure> {
        let app = ids::APPLICATION.to_string();
        parts_shown(&a.rest, hook_of(&app, ix), parts).await
    }

    #[tokio::test]
    async fn past_the_token_the_parts_an_interaction_showed_are_counted_in_order() {
        let a = Answered::start().await;
        // The original says "first"; nothing else shows yet.
        assert_eq!(parts_of(&a, &a.ix, &["first", "second"]).await.unwrap(), 1);
        assert_eq!(parts_of(&a, &a.ix, &["second"]).await.unwrap(), 0);
        a.post(&a.ix, "second", false, &[]).await;
        assert_eq!(parts_of(&a, &a.ix, &["first", "second"]).await.unwrap(), 2);
        // Counted in the order they were sent: a later part shown alone does not count.
        assert_eq!(parts_of(&a, &a.ix, &["zeroth", "first"]).await.unwrap(), 0);
        // Another interaction's messages are not this one's.
        let other = Answered::answer(&a.fake, &a.rest).await;
        assert_eq!(parts_of(&a, &other, &["first", "second"]).await.unwrap(), 1);
    }

    #[tokio::test]
    async fn a_channel_that_cannot_be_read_shows_nothing_and_a_5xx_is_not_known_yet() {
        let a = Answered::start().await;
        let reads = |m: &str, r: &str| m == "GET" && r.ends_with("/messages");
        a.fake
            .fail_requests(reads, DiscordError::missing_access(), Some(1));
        assert_eq!(parts_of(&a, &a.ix, &["first"]).await.unwrap(), 0);
        a.fake
            .fail_requests(reads, DiscordError::internal_server_error(), Some(1));
        let e = parts_of(&a, &a.ix, &["first"]).await.unwrap_err();
        assert!(e.transient(), "{e}");
        assert_eq!(parts_of(&a, &a.ix, &["first"]).await.unwrap(), 1);
    }
}
