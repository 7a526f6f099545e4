//! Edits in place: a reply that replaces an earlier one ([`Reply::replaces`], an analysis's
//! progress line) edits the message Discord shows for that one, instead of adding a message.
//!
//! The bot remembers, by outbox key, where it sent its recent messages: a channel message by
//! channel and id, an interaction's answer by the interaction's webhook (valid for the
//! token's 15 minutes). After a restart that memory is gone: the outbox still has the
//! original's entry, and the bot's own message saying exactly its text among the channel's
//! latest is taken for it ([`sent_before`]). A replacing reply with only text edits that
//! message; one with a picture, one whose original is not found, or one whose edit Discord
//! refuses is sent as a new message, so nothing is lost. An edit sent twice shows the same
//! text: it is reported delivered under its key.

use std::{
    collections::{HashMap, VecDeque},
    sync::Mutex,
};

use bot_core::{
    outbox::{Attempt, Key, MailState, Origin},
    reply::Reply,
};
use poise::serenity_prelude as serenity;
use serde_json::json;

use crate::{
    Bot,
    deliver::now_ms,
    rest::{Body, Rest},
    send,
};

/// Where a message the bot sent can be edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sent {
    /// A message in a channel (or a DM channel).
    Channel { channel: u64, message: u64 },
    /// An interaction's answer (`@original`) or follow-up, through its webhook while the
    /// interaction's token works.
    Webhook {
        app: u64,
        token: String,
        message: String,
        until_ms: i64,
    },
}

/// Recent messages by key; the oldest are forgotten past [`SentMessages::KEEP`].
#[derive(Debug, Default)]
pub(crate) struct SentMessages {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    by_key: HashMap<Key, Sent>,
    order: VecDeque<Key>,
}

impl SentMessages {
    /// Far more than the replies an analysis edits while it runs.
    const KEEP: usize = 2_000;

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn remember(&self, key: &Key, sent: Sent) {
        let mut inner = self.lock();
        if inner.by_key.insert(key.clone(), sent).is_none() {
            inner.order.push_back(key.clone());
        }
        while inner.order.len() > Self::KEEP {
            if let Some(old) = inner.order.pop_front() {
                inner.by_key.remove(&old);
            }
        }
    }

    fn find(&self, key: &Key) -> Option<Sent> {
        self.lock().by_key.get(key).cloned()
    }
}

/// Edits the message `reply` replaces, if it can (see the module's note): the attempt to
/// report, or `None` when the reply is to be sent as a new message.
pub(crate) async fn edit_in_place(
    bot: &Bot,
    http: &serenity::Http,
    reply: &Reply,
) -> Option<Attempt> {
    let replaced = reply.replaces.as_ref()?;
    if reply.board.is_some() || reply.graph.is_some() || reply.animation.is_some() {
        return None;
    }
    let target = match bot.sent.find(replaced) {
        Some(t) => t,
        None => sent_before(bot, http, replaced).await?,
    };
    let path = match &target {
        Sent::Channel { channel, message } => format!("channels/{channel}/messages/{message}"),
        Sent::Webhook {
            app,
            token,
            message,
            until_ms,
        } => {
            if *until_ms <= now_ms() {
                return None;
            }
            format!("webhooks/{app}/{token}/messages/{message}")
        }
    };
    let body = Body::Json(json!({
        "content": crate::convert::text(reply),
        "allowed_mentions": {"parse": []},
    }));
    let rest = Rest::of(http);
    match send::retrying(bot.retry, "an edit", || {
        rest.call(reqwest::Method::PATCH, &path, &body)
    })
    .await
    {
        Ok(_) => {
            // A later replacement of this one edits the same message.
            if let Some(key) = &reply.key {
                bot.sent.remember(key, target);
            }
            Some(Attempt::DeliveredUnderKey)
        }
        Err(e) => {
            tracing::info!(%replaced, "an edit was refused ({e}): sent as a new message");
            None
        }
    }
}

/// How many of a channel's messages are read at a time (Discord's most) to find one sent
/// before a restart, and how many pages back at most: an analysis's progress line is edited
/// within minutes of being sent, but a busy channel may have said a lot meanwhile.
const PAGE: u32 = 100;
const PAGES: u32 = 10;

/// Where the message of the delivered entry `replaced` is, when this process did not send it
/// (it was sent before a restart): the bot's own message among its channel's latest
/// [`PAGES`] × [`PAGE`] whose text is the entry's, read a page at a time from the newest
/// until it is found. An interaction's answer is edited through its webhook while the
/// entry's handle lasts, any other message in its channel. `None` (sent anew) when the entry
/// is unknown or not delivered, or no such message is found.
async fn sent_before(bot: &Bot, http: &serenity::Http, replaced: &Key) -> Option<Sent> {
    let mail = match bot.games.mail(replaced).await {
        Ok(Some(m)) if m.state == MailState::Delivered => m,
        Ok(_) => return None,
        Err(e) => {
            tracing::info!(%replaced, "the outbox cannot say what an edit replaces: {e}");
            return None;
        }
    };
    let env = &mail.envelope;
    let channel = crate::deliver::channel_of(env.room())?;
    let text = send::fit(&crate::convert::text(&env.reply))
        .into_iter()
        .next()?;
    let app = http.application_id().map(|a| a.get().to_string());
    let rest = Rest::of(http);
    let ours = |m: &serde_json::Value| {
        m["author"]["bot"].as_bool() == Some(true)
            && app.as_deref().is_none_or(|a| {
                [&m["author"]["id"], &m["application_id"], &m["webhook_id"]]
                    .iter()
                    .any(|v| v.as_str() == Some(a))
            })
    };
    let mut before: Option<String> = None;
    let mut found = None;
    for _ in 0..PAGES {
        let mut path = format!("channels/{channel}/messages?limit={PAGE}");
        if let Some(b) = &before {
            path.push_str(&format!("&before={b}"));
        }
        let page = match rest.call(reqwest::Method::GET, &path, &Body::Empty).await {
            Ok(p) => p,
            Err(e) => {
                tracing::info!("cannot look for an earlier message in {channel}: {e}");
                return None;
            }
        };
        let page = page.as_array()?;
        found = page
            .iter()
            .find(|m| ours(m) && m["content"].as_str() == Some(text.as_str()))
            .cloned();
        if found.is_some() || page.len() < PAGE as usize {
            break;
        }
        // The oldest of the page: the next page starts before it.
        before = page
            .last()
            .and_then(|m| m["id"].as_str())
            .map(str::to_string);
        if before.is_none() {
            break;
        }
    }
    let found = found?;
    let message = send::message_id(Some(&found))?;
    let handle = match &env.origin {
        Origin::Command {
            handle: Some(h), ..
        } if h.until_ms > now_ms() && found.get("interaction_metadata").is_some() => Some(h),
        _ => None,
    };
    Some(
        match handle.and_then(|h| crate::followup::Hook::of(h, None)) {
            Some(hook) => Sent::Webhook {
                app: hook.app.parse().ok()?,
                token: hook.token.to_string(),
                message: message.to_string(),
                until_ms: handle.map_or(0, |h| h.until_ms),
            },
            None => Sent::Channel { channel, message },
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bot_core::outbox::Keys;

    #[test]
    fn the_oldest_messages_are_forgotten_first() {
        let sent = SentMessages::default();
        let keys = Keys::new(5);
        let first = keys.next();
        sent.remember(
            &first,
            Sent::Channel {
                channel: 1,
                message: 1,
            },
        );
        for i in 0..SentMessages::KEEP as u64 {
            sent.remember(
                &keys.next(),
                Sent::Channel {
                    channel: 1,
                    message: i + 2,
                },
            );
        }
        assert_eq!(sent.find(&first), None);
        assert_eq!(sent.lock().by_key.len(), SentMessages::KEEP);
    }
}
