//! Where this run's messages went, by outbox key, for a later reply that edits one (an
//! analysis's progress line, [`bot_core::reply::Reply::replaces`]).
//!
//! The edit may come while the message it replaces is still on its way: the command's answer
//! is being uploaded with its picture, or waits out a rate limit. So a message being sent is
//! known as such, and an edit waits for it as long as it is on its way (up to a bound), rather
//! than a fixed moment after which it would send a second message. A message not on its way
//! and not sent is waited for only briefly (its send may be about to start). Past that, the
//! outbox is asked ([`SentEvents::edit_of`]): a message whose send failed and waits there for
//! its next attempt holds the edit back until it is sent; one the outbox does not hold as
//! waiting (sent before a restart, as this map is the run's own, or given up) is replaced by
//! the edit sent as a new message, so nothing is lost.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use bot_core::{
    Games,
    outbox::{Key, MailState},
};
use tokio::sync::Notify;

/// Entries remembered at most; the map is cleared past it, as only recent messages get
/// edits.
const KEEP: usize = 10_000;

/// The messages of this run, by the key they were sent under (`E`: the platform's event id).
#[derive(Debug)]
pub(crate) struct SentEvents<E> {
    state: Mutex<State<E>>,
    changed: Notify,
}

#[derive(Debug)]
struct State<E> {
    sent: HashMap<Key, E>,
    /// Keys being sent now, with how many sends of each are under way.
    sending: HashMap<Key, usize>,
}

impl<E> Default for SentEvents<E> {
    fn default() -> Self {
        SentEvents {
            state: Mutex::new(State {
                sent: HashMap::new(),
                sending: HashMap::new(),
            }),
            changed: Notify::new(),
        }
    }
}

/// A send under way (see [`SentEvents::sending`]); dropped when it ended, however.
pub(crate) struct Sending<'a, E> {
    events: &'a SentEvents<E>,
    key: Key,
}

impl<E> Drop for Sending<'_, E> {
    fn drop(&mut self) {
        if let Ok(mut s) = self.events.state.lock()
            && let Some(n) = s.sending.get_mut(&self.key)
        {
            *n -= 1;
            if *n == 0 {
                s.sending.remove(&self.key);
            }
        }
        self.events.changed.notify_waiters();
    }
}

impl<E: Clone> SentEvents<E> {
    /// Marks `key` as being sent until the returned guard is dropped.
    pub(crate) fn sending(&self, key: &Key) -> Sending<'_, E> {
        if let Ok(mut s) = self.state.lock() {
            *s.sending.entry(key.clone()).or_default() += 1;
        }
        Sending {
            events: self,
            key: key.clone(),
        }
    }

    /// Remembers that `key` was sent as `event`.
    pub(crate) fn sent(&self, key: &Key, event: E) {
        if let Ok(mut s) = self.state.lock() {
            if s.sent.len() >= KEEP {
                s.sent.clear();
            }
            s.sent.insert(key.clone(), event);
        }
        self.changed.notify_waiters();
    }

    /// The event `key` was sent as in this run: at once if it was; once it is, if it is being
    /// sent (for at most `bound`); after at most `grace` if it is neither (its send may be
    /// about to start). `None`: not sent in this run.
    pub(crate) async fn find(&self, key: &Key, grace: Duration, bound: Duration) -> Option<E> {
        let began = Instant::now();
        loop {
            // Listen before looking, so that a change between the look and the wait is heard.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let waited = began.elapsed();
            let wait = {
                let s = self.state.lock().ok()?;
                if let Some(e) = s.sent.get(key) {
                    return Some(e.clone());
                }
                let limit = if s.sending.contains_key(key) {
                    bound
                } else {
                    grace
                };
                limit.checked_sub(waited).filter(|w| !w.is_zero())?
            };
            tokio::select! {
                () = &mut changed => {}
                () = tokio::time::sleep(wait) => {}
            }
        }
    }
}

/// What an edit does about the message it replaces.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum EditOf<E> {
    /// Edits this event, the message as sent in this run.
    Edit(E),
    /// Waits: the message is still to be sent (its send failed, and the outbox tries again).
    Wait,
    /// Goes as a new message: the one it replaces is not known here.
    New,
}

impl<E: Clone> SentEvents<E> {
    /// What an edit of the message sent under `replaced` does: [`SentEvents::find`] in this
    /// run, then the outbox's word on it. A store that cannot answer sends anew, as before
    /// (a second message rather than none).
    pub(crate) async fn edit_of(
        &self,
        games: &dyn Games,
        replaced: &Key,
        grace: Duration,
        bound: Duration,
    ) -> EditOf<E> {
        if let Some(event) = self.find(replaced, grace, bound).await {
            return EditOf::Edit(event);
        }
        match games.mail(replaced).await {
            Ok(Some(m)) if m.state == MailState::Waiting => EditOf::Wait,
            Ok(_) => EditOf::New,
            Err(e) => {
                tracing::warn!(%replaced, "the outbox cannot say whether an edit's original is sent: {e}");
                EditOf::New
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bot_core::outbox::Keys;

    use super::*;

    const GRACE: Duration = Duration::from_millis(200);
    const BOUND: Duration = Duration::from_secs(30);

    #[tokio::test]
    async fn a_message_sent_is_found_at_once() {
        let events = SentEvents::default();
        let key = Keys::new(1).next();
        events.sent(&key, "$a".to_string());
        assert_eq!(events.find(&key, GRACE, BOUND).await.as_deref(), Some("$a"));
    }

    #[tokio::test]
    async fn a_message_never_sent_is_given_up_after_the_grace() {
        let events: SentEvents<String> = SentEvents::default();
        let began = Instant::now();
        assert_eq!(events.find(&Keys::new(2).next(), GRACE, BOUND).await, None);
        let took = began.elapsed();
        assert!(took >= GRACE && took < BOUND, "{took:?}");
    }

    /// The case of the fixed wait it replaces: a send that takes longer than the grace (an
    /// upload, a rate limit) is waited for, and its event is found once it is sent.
    #[tokio::test]
    async fn a_message_on_its_way_is_waited_for_past_the_grace() {
        let events = Arc::new(SentEvents::default());
        let key = Keys::new(3).next();
        let sender = {
            let (events, key) = (events.clone(), key.clone());
            tokio::spawn(async move {
                let _sending = events.sending(&key);
                tokio::time::sleep(GRACE * 4).await;
                events.sent(&key, "$slow".to_string());
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            events.find(&key, GRACE, BOUND).await.as_deref(),
            Some("$slow")
        );
        sender.await.unwrap();
    }

    /// A send that failed (its guard dropped without an event) ends the wait after the grace.
    #[tokio::test]
    async fn a_send_that_failed_ends_the_wait() {
        let events: Arc<SentEvents<String>> = Arc::new(SentEvents::default());
        let key = Keys::new(4).next();
        let sending = events.sending(&key);
        let finding = {
            let (events, key) = (events.clone(), key.clone());
            tokio::spawn(async move { events.find(&key, GRACE, BOUND).await })
        };
        tokio::time::sleep(GRACE * 2).await;
        drop(sending);
        let began = Instant::now();
        assert_eq!(finding.await.unwrap(), None);
        assert!(began.elapsed() < BOUND);
    }

    /// Issue 27: an edit whose original failed to send and waits in the outbox waits too,
    /// rather than show a second message; once the original is delivered (in another run:
    /// not in this map) or given up, the edit goes as a new message.
    #[tokio::test]
    async fn an_edit_waits_for_an_original_the_outbox_still_holds() {
        use bot_core::{
            GameService, SystemClock,
            model::{Place, Platform},
            outbox::{Envelope, Settled},
            reply::Reply,
            store::{GameStore, memory::MemoryStore},
        };
        let store = MemoryStore::new();
        let games = GameService::new(
            store.clone(),
            SystemClock,
            Arc::new(rules::Catalog::builtin()),
        );
        let keys = Keys::new(5);
        let original = Envelope::unasked(
            keys.next(),
            &Place::room(Platform::Matrix, "!room:example.org"),
            Reply::room("Analysing game 1…"),
        );
        store
            .post(std::slice::from_ref(&original), None, 1)
            .await
            .unwrap();
        let events: SentEvents<String> = SentEvents::default();
        let key = &original.key;
        assert_eq!(
            events.edit_of(&games, key, GRACE, BOUND).await,
            EditOf::Wait
        );
        store.settle(key, &Settled::Delivered, 2).await.unwrap();
        assert_eq!(events.edit_of(&games, key, GRACE, BOUND).await, EditOf::New);
        // Sent in this run: an edit of it, whatever the outbox says.
        events.sent(key, "$line".to_string());
        assert_eq!(
            events.edit_of(&games, key, GRACE, BOUND).await,
            EditOf::Edit("$line".to_string())
        );
        // Never posted (or long forgotten): new.
        let unknown = keys.next();
        assert_eq!(
            events.edit_of(&games, &unknown, GRACE, BOUND).await,
            EditOf::New
        );
    }
}
