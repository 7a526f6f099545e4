//! The outbox: everything the bot says is stored before it is said.
//!
//! A chat bot's only output is its messages, so they are kept as durably as the moves they
//! report. Every reply, announcement, private report and notice becomes an [`Envelope`] in
//! the store's outbox:
//!
//! - **in the same transaction as the change it reports** where there is one (a move, a
//!   resignation, a flag, the bot's move: [`Tell`] rides on the store's versioned game
//!   writes), so a crash leaves both the move and its announcement or neither;
//! - otherwise (a listing, a refusal, a challenge) right after the command, before the
//!   adapter sends anything.
//!
//! # Who sends what
//!
//! A command's replies are posted **claimed** by the process that ran it ([`Claim`]): its
//! adapter sends them at once through the platform's own answer to the command (a Discord
//! interaction response, a Matrix reply) and reports each one by its [`Key`]
//! ([`crate::Games::settle_mail`], with how the attempt went). What the
//! service says unasked (the bot's move, a flag, a reminder) is posted unclaimed. Each
//! platform then runs one **sender** ([`crate::Games::claim_mail`] in a loop): it takes the
//! entries that are due (unclaimed, released after a failure, or whose claim ran out because
//! the process holding them died) and delivers them to the game's room or the player's
//! private channel, until each is delivered. So an entry is tried until it is delivered,
//! however the process, the platform or the network fail; a process that restarts first
//! takes back what it held before ([`crate::store::GameStore::release_claims`]).
//!
//! # Exactly once
//!
//! A store can promise "at least once": an entry stays due until it is reported delivered.
//! The gap between "the platform took it" and "the store heard so" is closed by the
//! platforms where they can: the [`Key`] is the Matrix transaction id and the Discord
//! message nonce (with `enforce_nonce`), so a send repeated after a crash in that gap is
//! recognised by the platform and shown once. Several processes on one PostgreSQL share one
//! outbox: a claim is taken by one of them, atomically, so each entry is sent by one.

use std::{
    fmt,
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use crate::{
    model::{Place, Platform, PlayerId},
    reply::{Audience, Reply},
};

/// An outbox entry's key: unique across processes and restarts (a random per-process
/// prefix and a counter), at most 25 ASCII characters (Discord's nonce limit), so it can be
/// the platform's idempotency key as it is.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Key(String);

impl Key {
    /// The longest key: Discord's limit for a message nonce.
    pub const MAX_LEN: usize = 25;

    /// A key read back from a store. `None` if it is not a key's shape (empty, too long, not
    /// plain ASCII letters, digits, `.`, `-` or `_`).
    pub fn parse(s: &str) -> Option<Key> {
        let ok = !s.is_empty()
            && s.len() <= Key::MAX_LEN
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
        ok.then(|| Key(s.to_owned()))
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Makes the keys of one process: a random prefix drawn at start, then a counter.
#[derive(Debug)]
pub struct Keys {
    prefix: String,
    next: AtomicU64,
}

impl Keys {
    /// Keys with a 44-bit prefix drawn from `random` (two processes, or one restarted, draw
    /// apart: the chance that two of a deployment's processes share one is 2⁻⁴⁴ a pair).
    pub fn new(random: u64) -> Keys {
        Keys {
            prefix: format!("{:011x}", random & 0xfff_ffff_ffff),
            next: AtomicU64::new(1),
        }
    }

    /// The next key (`prefix.counter`; the counter in base 36 keeps it under 25 characters).
    /// The counter is padded to eight digits, so that one process's keys sort in the order
    /// they were made: a store's index on the keys then grows at its end, one page per write,
    /// instead of inserting among older keys (`"10"` sorts before `"2"`).
    pub fn next(&self) -> Key {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        Key(format!("{}.{:0>8}", self.prefix, base36(n)))
    }
}

/// The keys of one command's replies, drawn from the platform's id of the message that
/// carried it rather than from the process: a command run again after a crash (Matrix
/// delivers it again, see `bot-matrix`'s ledger) gets the same keys, so the store can tell
/// whether its first run got as far as its first write ([`CommandKeys::first`] posted), and a
/// second run repeats nothing that the first one stored.
///
/// The prefix is 64 bits of the id's SHA-256 in hex, five characters longer than a process's
/// prefix, so the two kinds never meet; two commands share one with a chance of 2⁻⁶⁴ a pair.
#[derive(Debug, Clone)]
pub struct CommandKeys(std::sync::Arc<Keys>);

impl CommandKeys {
    /// The keys of the command carried by the platform's message `id`.
    pub fn of(id: &str) -> CommandKeys {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(id.as_bytes());
        let mut prefix = String::with_capacity(16);
        for b in &digest[..8] {
            prefix.push_str(&format!("{b:02x}"));
        }
        CommandKeys(std::sync::Arc::new(Keys {
            prefix,
            next: AtomicU64::new(1),
        }))
    }

    /// The next key of this command's replies.
    pub fn next(&self) -> Key {
        self.0.next()
    }

    /// The key of the command's first reply: in the store once the command's first write
    /// (its move, with the move's announcement, or its answer) is.
    pub fn first(&self) -> Key {
        Keys {
            prefix: self.0.prefix.clone(),
            next: AtomicU64::new(1),
        }
        .next()
    }
}

/// Two are equal when they are one command's (whatever each has handed out so far).
impl PartialEq for CommandKeys {
    fn eq(&self, other: &Self) -> bool {
        self.0.prefix == other.0.prefix
    }
}

impl Eq for CommandKeys {}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// How the platform lets the bot answer a command itself for a while (a Discord
/// interaction's token, good for 15 minutes). Kept with a command's entries from the start
/// (`Actor::answer`), so that a sender, in this process after a failed attempt or in one
/// started after a crash, can still answer the interaction (and see whether its answer is
/// shown already) before the deadline; past it the entry goes to the room or to the
/// player's private channel.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Handle {
    /// The platform's handle (for Discord `application_id:interaction_token`). A credential
    /// for a few minutes: never logged ([`fmt::Debug`] hides it).
    pub token: String,
    /// Unix milliseconds after which the handle is no use.
    pub until_ms: i64,
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("token", &"…")
            .field("until_ms", &self.until_ms)
            .finish()
    }
}

/// What an entry answers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Origin {
    /// Nothing: the service speaks on its own (the bot's move, a flag, a reminder).
    Unasked,
    /// A command of `actor`: his [`Audience::Actor`] replies are for him alone.
    Command {
        /// Who gave the command.
        actor: PlayerId,
        /// How to answer the command itself (see [`Handle`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        handle: Option<Handle>,
    },
}

/// One reply with its address: what the outbox keeps.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Envelope {
    /// Its key: unique, and the platform's idempotency key.
    pub key: Key,
    /// The room of the command, or the game's room for what is said unasked: where a
    /// [`Audience::Room`] reply without a place of its own goes.
    pub place: Place,
    /// What it answers.
    pub origin: Origin,
    /// What to say, to whom.
    pub reply: Reply,
    /// Its place among the envelopes posted together (0 for the first): what was said at
    /// once, a room's line and each player's private part, is shown together.
    #[serde(default, skip_serializing_if = "is_first")]
    pub part: u16,
}

/// Whether a part is the first (left out of the stored JSON, as it is most often).
fn is_first(part: &u16) -> bool {
    *part == 0
}

impl Envelope {
    /// One reply said unasked in `place` (the bot's move, an analysis's line), under `key`.
    pub fn unasked(key: Key, place: &Place, reply: Reply) -> Envelope {
        Envelope {
            key,
            place: place.clone(),
            origin: Origin::Unasked,
            reply,
            part: 0,
        }
    }

    /// The platform that delivers it: the room's.
    pub fn platform(&self) -> Platform {
        self.place.platform
    }

    /// The room a room reply goes to: its own place, else the envelope's.
    pub fn room(&self) -> &Place {
        self.reply.place.as_ref().unwrap_or(&self.place)
    }

    /// The player an [`Audience::Actor`] reply is for, when it answers a command.
    pub fn actor(&self) -> Option<&PlayerId> {
        match &self.origin {
            Origin::Command { actor, .. } => Some(actor),
            Origin::Unasked => None,
        }
    }

    /// The reply as the sender delivers it without the command at hand: an
    /// [`Audience::Actor`] reply of a command goes to its actor privately (it never carries a
    /// secret, but it is his); one said unasked (there is no actor) goes to the room.
    pub fn as_sent_later(&self) -> Reply {
        let mut reply = self.reply.clone();
        if reply.audience == Audience::Actor {
            reply.audience = match self.actor() {
                Some(actor) => Audience::Private(actor.clone()),
                None => Audience::Room,
            };
        }
        reply.key = Some(self.key.clone());
        reply
    }
}

/// A stored envelope as a sender takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The envelope.
    pub envelope: Envelope,
    /// How many attempts failed before.
    pub attempts: u32,
    /// Unix milliseconds when it was posted.
    pub posted_ms: i64,
}

/// Who holds an entry, and until when: a process sending it. Past `until_ms` the claim has
/// run out (the process died, or hangs) and any sender may take the entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The process (see `[bot] instance`): unique among the processes sharing a store.
    pub owner: String,
    /// Unix milliseconds.
    pub until_ms: i64,
}

/// Envelopes to post with a store write, in its transaction ([`crate::model::GameUpdate`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tell {
    /// What to post.
    pub envelopes: Vec<Envelope>,
    /// Posted claimed by this process (a command's replies, which its adapter sends at
    /// once), or `None`: due at once for the platform's sender.
    pub claim: Option<Claim>,
    /// When they were said (Unix milliseconds): the entries' `posted_ms`.
    pub posted_ms: i64,
}

impl Tell {
    /// Nothing to post.
    pub fn is_empty(&self) -> bool {
        self.envelopes.is_empty()
    }
}

/// How an attempt to deliver an entry ended, as the store records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The platform took it, and would show it again were it sent again (a Discord
    /// interaction's followup, a line printed at a console): never sent again, and the store
    /// records so before `settle` returns, so that a crash right after cannot repeat it.
    Delivered,
    /// The platform took it under the entry's key (a Matrix transaction id, a Discord message
    /// nonce it enforces), or a repeat can be recognised otherwise (a Discord interaction's
    /// original answer, which the sender reads before answering again): never sent again, and
    /// the store may record so with its next write instead (a crash in between sends it once
    /// more, and it is shown once).
    DeliveredUnderKey,
    /// Not now: due again at `not_before_ms` (a 5xx, a 429's wait, a time-out), with the
    /// command's handle if the adapter has one to keep.
    Later {
        /// Unix milliseconds.
        not_before_ms: i64,
        /// See [`Handle`].
        handle: Option<Handle>,
    },
    /// Never deliverable (the room is gone, the entry cannot be read back): kept in the
    /// store with the reason, never sent, logged by the caller.
    GaveUp(String),
}

/// Where one outbox entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailState {
    /// Not delivered yet: due now or after a failed attempt's wait, maybe claimed.
    Waiting,
    /// Delivered (reported so; a report still queued counts).
    Delivered,
    /// Given up for good.
    GivenUp,
}

/// One outbox entry as the store has it: where it stands, and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    /// Waiting, delivered or given up.
    pub state: MailState,
    /// The entry itself (an edit after a restart finds its original by what it said).
    pub envelope: Envelope,
}

/// What is waiting in the outbox (for `/metrics`, health checks and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Entries not yet delivered (nor given up).
    pub waiting: u64,
    /// When the oldest of them was posted (Unix milliseconds).
    pub oldest_ms: Option<i64>,
}

/// How long a sender waits before the next attempt after `attempts` failures, when the
/// platform did not say: 1 s doubling to at most 5 minutes. A platform's own wait
/// (`Retry-After`) is used instead when it gives one, and never shortened.
pub fn backoff(attempts: u32) -> Duration {
    Duration::from_secs(1u64 << attempts.min(9)).min(Duration::from_secs(300))
}

/// After how many failed attempts an entry is given up: with [`backoff`] about a day.
pub const MAX_ATTEMPTS: u32 = 300;

/// How one attempt to deliver an entry ended, as an adapter reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    /// The platform took it (see [`Settled::Delivered`]).
    Delivered,
    /// The platform took it under the entry's key, and would recognise a repeat (see
    /// [`Settled::DeliveredUnderKey`]).
    DeliveredUnderKey,
    /// Try again after `wait` (what the platform asked for, or [`backoff`]).
    Later {
        /// How long to wait at least.
        wait: Duration,
        /// The command's handle, to keep for the sender (see [`Handle`]).
        handle: Option<Handle>,
    },
    /// It can never be delivered (the room is gone); the reason is kept and logged.
    Failed(String),
}

impl Attempt {
    /// Whether the platform took it, under the entry's key or not.
    pub fn is_delivered(&self) -> bool {
        matches!(self, Attempt::Delivered | Attempt::DeliveredUnderKey)
    }
}

/// What a sender delivers for one entry, in the shape the adapters deliver announcements:
/// the room and the reply as sent without the command ([`Envelope::as_sent_later`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// The room where its [`Audience::Room`] reply goes, unless the reply names another.
    pub place: Place,
    /// What to say (one reply; a `Vec` for the adapters' delivery code).
    pub replies: Vec<Reply>,
}

impl Entry {
    /// The entry as its sender delivers it.
    pub fn announcement(&self) -> Announcement {
        Announcement {
            place: self.envelope.place.clone(),
            replies: vec![self.envelope.as_sent_later()],
        }
    }
}

/// Due entries as a stream of announcements, each reported delivered as it is taken: the
/// sender of a platform whose delivery cannot fail once the process holds the text (tests;
/// a console, which prints). Others use [`run_sender`], which reports each attempt.
pub struct Announcements {
    games: std::sync::Arc<dyn crate::Games>,
    platforms: Vec<Platform>,
    pending: std::collections::VecDeque<Entry>,
}

impl fmt::Debug for Announcements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Announcements")
            .field("platforms", &self.platforms)
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl Announcements {
    /// The announcements of `platforms` (every platform when empty).
    pub fn new(games: std::sync::Arc<dyn crate::Games>, platforms: &[Platform]) -> Announcements {
        Announcements {
            games,
            platforms: if platforms.is_empty() {
                Platform::ALL.to_vec()
            } else {
                platforms.to_vec()
            },
            pending: std::collections::VecDeque::new(),
        }
    }

    /// The next announcement, waiting for one; reported delivered as it is taken.
    pub async fn next(&mut self) -> Option<Announcement> {
        let a = self.next_held().await?;
        self.delivered(&a).await;
        Some(a)
    }

    /// The next announcement, waiting for one, still claimed: report it with
    /// [`Announcements::delivered`] once it is shown (a console, after it printed it). Not
    /// reported, it is shown again when this process starts again or its claim runs out.
    pub async fn next_held(&mut self) -> Option<Announcement> {
        let signal = self.games.mail_signal();
        loop {
            let notified = signal.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(a) = self.try_next_held().await {
                return Some(a);
            }
            tokio::select! {
                () = &mut notified => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// The next announcement if one is due now, reported delivered as it is taken.
    pub async fn try_next(&mut self) -> Option<Announcement> {
        let a = self.try_next_held().await?;
        self.delivered(&a).await;
        Some(a)
    }

    /// Reports every reply of an announcement delivered.
    pub async fn delivered(&self, a: &Announcement) {
        for key in a.replies.iter().filter_map(|r| r.key.as_ref()) {
            self.games.settle_mail(key, Attempt::Delivered).await;
        }
    }

    /// The next announcement if one is due now, still claimed: the entries posted together
    /// (at one moment, for one room), as they were said.
    pub async fn try_next_held(&mut self) -> Option<Announcement> {
        if self.pending.is_empty() {
            for &p in &self.platforms {
                match self.games.claim_mail(p, BATCH).await {
                    Ok(entries) => self.pending.extend(entries),
                    Err(e) => tracing::warn!("outbox: cannot claim: {e}"),
                }
            }
        }
        let first = self.pending.pop_front()?;
        let mut announcement = first.announcement();
        while let Some(e) = self.pending.front()
            && e.envelope.part > 0
            && e.envelope.place == first.envelope.place
        {
            announcement.replies.push(e.envelope.as_sent_later());
            self.pending.pop_front();
        }
        Some(announcement)
    }
}

/// How many entries a sender claims at a time.
const BATCH: u32 = 16;

/// How often a sender looks for due entries when nothing wakes it: later attempts fall due
/// and claims run out without a signal.
const POLL: Duration = Duration::from_millis(500);

/// One platform's sender, until its task is stopped: claims what is due for `platform` and
/// hands each entry to `deliver`, then records how the attempt ended. An entry still
/// failing after [`MAX_ATTEMPTS`] is given up (and logged). Stopping it mid-delivery loses
/// nothing: the entry stays claimed, and is sent again when this process starts again
/// ([`crate::GameService::take_back_claims`]) or when the claim runs out.
pub async fn run_sender<G, F, Fut>(games: &G, platform: Platform, mut deliver: F)
where
    G: crate::Games + ?Sized,
    F: FnMut(Entry) -> Fut,
    Fut: std::future::Future<Output = Attempt>,
{
    let signal = games.mail_signal();
    loop {
        // Listen before looking, so that a post between the look and the wait is not missed.
        let notified = signal.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        match games.claim_mail(platform, BATCH).await {
            Ok(entries) if !entries.is_empty() => {
                for entry in entries {
                    let key = entry.envelope.key.clone();
                    let attempts = entry.attempts;
                    let mut attempt = deliver(entry).await;
                    if matches!(attempt, Attempt::Later { .. }) && attempts + 1 >= MAX_ATTEMPTS {
                        attempt =
                            Attempt::Failed(format!("still failing after {MAX_ATTEMPTS} attempts"));
                    }
                    if let Attempt::Failed(why) = &attempt {
                        tracing::error!(%key, platform = platform.as_str(), "outbox: given up: {why}");
                    }
                    games.settle_mail(&key, attempt).await;
                }
                continue;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(platform = platform.as_str(), "outbox: cannot claim: {e}"),
        }
        tokio::select! {
            () = &mut notified => {}
            () = tokio::time::sleep(POLL) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_short_and_readable_back() {
        let keys = Keys::new(u64::MAX);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            let k = keys.next();
            assert!(k.as_str().len() <= Key::MAX_LEN, "{k}");
            assert_eq!(Key::parse(k.as_str()), Some(k.clone()));
            assert!(seen.insert(k));
        }
        let far = Keys {
            prefix: "fffffffffff".into(),
            next: AtomicU64::new(u64::MAX),
        };
        assert!(far.next().as_str().len() <= Key::MAX_LEN);
        assert_ne!(Keys::new(1).next(), Keys::new(2).next());
    }

    #[test]
    fn a_command_gets_the_same_keys_each_time_it_runs_and_never_a_process_key() {
        let once = CommandKeys::of("$event-one:example.org");
        let again = CommandKeys::of("$event-one:example.org");
        let first = once.next();
        assert_eq!(first, once.first());
        assert_eq!(first, again.next());
        assert_eq!(once.next(), again.next());
        assert_ne!(first, CommandKeys::of("$event-two:example.org").first());
        assert_eq!(first.as_str().len(), Key::MAX_LEN);
        assert_eq!(Key::parse(first.as_str()), Some(first.clone()));
        let process = Keys::new(u64::MAX).next();
        assert_ne!(
            first.as_str().split('.').next().map(str::len),
            process.as_str().split('.').next().map(str::len)
        );
    }

    #[test]
    fn one_process_keys_sort_in_the_order_they_were_made() {
        let keys = Keys::new(42);
        let made: Vec<Key> = (0..5_000).map(|_| keys.next()).collect();
        let mut sorted = made.clone();
        sorted.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        assert_eq!(made, sorted);
    }

    #[test]
    fn only_key_shaped_text_is_a_key() {
        for bad in ["", "a b", "é", "x".repeat(26).as_str(), "a\nb"] {
            assert_eq!(Key::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_actor_reply_sent_later_goes_to_him_privately_and_unasked_ones_to_the_room() {
        let alice = PlayerId::new(Platform::Console, "alice");
        let asked = Envelope {
            key: Keys::new(7).next(),
            place: Place::room(Platform::Console, "room"),
            origin: Origin::Command {
                actor: alice.clone(),
                handle: None,
            },
            reply: Reply::actor("It is not your turn."),
            part: 0,
        };
        let later = asked.as_sent_later();
        assert_eq!(later.audience, Audience::Private(alice));
        assert_eq!(later.key, Some(asked.key.clone()));
        let unasked = Envelope {
            origin: Origin::Unasked,
            ..asked
        };
        assert_eq!(unasked.as_sent_later().audience, Audience::Room);
    }

    #[test]
    fn handles_never_show_their_token() {
        let h = Handle {
            token: "secret-token".into(),
            until_ms: 5,
        };
        assert!(!format!("{h:?}").contains("secret"));
    }

    #[test]
    fn backoff_doubles_to_five_minutes() {
        assert_eq!(backoff(0), Duration::from_secs(1));
        assert_eq!(backoff(3), Duration::from_secs(8));
        assert_eq!(backoff(40), Duration::from_secs(300));
    }
}
