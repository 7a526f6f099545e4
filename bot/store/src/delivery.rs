//! Delivery reports written together (SQLite).
//!
//! After every reply the adapter reports it delivered ([`GameStore::settle`] with
//! [`Settled::Delivered`]). Written at once, that report is a second write after the move's, and
//! SQLite has one writer at a time: at eight busy tables the reports took a third of the write
//! gate's turns and cost a third of the moves per second (the command path's benchmark). The
//! report need not be synced when it returns (lost in a power cut, an entry is only sent again
//! with its key), but it must be written: reports made together share one write.
//!
//! Here a report is queued in memory, and how soon it is written depends on whether the
//! platform would recognise the reply if it were sent again:
//!
//! - [`Settled::DeliveredUnderKey`] (a Matrix transaction id, a Discord message nonce that
//!   Discord enforces): the next move that takes the write gate carries every queued report in
//!   its own transaction (one more statement in the same round trip, see [`crate::batch`]),
//!   and a flush task writes what no move carried after
//!   [`FLUSH_AFTER`]. A process killed in between sends those replies again after its
//!   restart, under the same keys, and the platform shows each once (Discord keeps a nonce
//!   for a few minutes, far longer than [`FLUSH_AFTER`] and a restart; a Discord interaction's
//!   public answers are looked for by the sender before it answers again). This is the
//!   command path of Matrix, of Discord's channel messages and of a slash command's public
//!   answers: no write of its own per reply.
//! - [`Settled::Delivered`] (a Discord interaction's ephemeral followup, a line printed at a
//!   console):
//!   written before `settle` returns, in one statement with every report queued meanwhile, or
//!   carried by a move that took the queue first. Left queued, a kill -9 would show the
//!   answer twice (our own kill test did, `bot/app/tests/discord_kill.rs`).
//!
//! Either way, a write that fails leaves the queue for the flush task, and every reading of
//! the outbox's state through the port (a claim, the backlog, another settlement, a release)
//! flushes first, so what the port shows is as if the report had been written when it was
//! made.
//!
//! A report's key is checked when it is made (an unknown key is refused, as the port says):
//! by the [`Posted`] keys, those this store itself stored and has not seen settled (a
//! command's replies, almost always), else by a read, which takes no write turn either.
//!
//! A batch taken for a write that then fails, or is abandoned, goes back to the queue (see
//! [`Batch`]). A power cut loses at most reports written but not yet synced: their entries are
//! sent again, with their keys.
//!
//! [`GameStore::settle`]: bot_core::store::GameStore::settle
//! [`Settled::Delivered`]: bot_core::outbox::Settled::Delivered
//! [`Settled::DeliveredUnderKey`]: bot_core::outbox::Settled::DeliveredUnderKey

use std::{
    collections::{BTreeMap, HashSet},
    sync::{Arc, Mutex, MutexGuard},
    time::{Duration, Instant},
};

use bot_core::outbox::Key;

/// How long a queued report waits for a move to carry it before it is written on its own: long
/// against the time between two writes of a busy store (milliseconds, tens under load: a flush
/// then would only add a turn at the gate), short against a claim's lease (two minutes).
pub(crate) const FLUSH_AFTER: Duration = Duration::from_millis(100);

/// The queued reports of one store (shared by its clones).
#[derive(Debug)]
pub(crate) struct Reports {
    queued: Mutex<Queue>,
    /// How long a report may wait for a move before a flush writes it ([`FLUSH_AFTER`]; tests
    /// lengthen it to see what carries the reports).
    pub(crate) flush_after: Duration,
}

/// The reports themselves, and the flush's state.
#[derive(Debug, Default)]
struct Queue {
    /// Each key with the time it was reported delivered (Unix milliseconds).
    reports: BTreeMap<Key, i64>,
    /// Since when the oldest queued report waits.
    since: Option<Instant>,
    /// Whether a flush task is watching the queue: one at a time, however many reports.
    armed: bool,
}

/// What the flush task is to do next (see [`Reports::next_flush`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Flush {
    /// Nothing waits: the task ends (the next report arms a new one).
    Done,
    /// Look again after this long: the oldest report is younger than the delay.
    Wait(Duration),
    /// Write the queue now.
    Now,
}

impl Default for Reports {
    fn default() -> Self {
        Reports::new(FLUSH_AFTER)
    }
}

impl Reports {
    pub(crate) fn new(flush_after: Duration) -> Self {
        Reports {
            queued: Mutex::default(),
            flush_after,
        }
    }

    fn queue_lock(&self) -> MutexGuard<'_, Queue> {
        // A panic while the lock is held cannot leave the queue half-changed (each change is
        // one call), so a poisoned lock's data is still good.
        self.queued.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a report. Returns whether the caller must start a flush task (none is watching
    /// the queue). A key reported twice keeps its first time.
    pub(crate) fn queue(&self, key: Key, at_ms: i64) -> bool {
        let mut q = self.queue_lock();
        q.reports.entry(key).or_insert(at_ms);
        q.since.get_or_insert_with(Instant::now);
        !std::mem::replace(&mut q.armed, true)
    }

    /// For the flush task: write now, wait, or end (then the queue is disarmed, so the next
    /// report starts a new task). Under load every move carries the queue before a report is
    /// [`Reports::flush_after`] old, and the task only wakes to look.
    pub(crate) fn next_flush(&self) -> Flush {
        let mut q = self.queue_lock();
        match q.since {
            None => {
                q.armed = false;
                Flush::Done
            }
            Some(since) => match self.flush_after.checked_sub(since.elapsed()) {
                Some(left) if !left.is_zero() => Flush::Wait(left),
                _ => Flush::Now,
            },
        }
    }

    /// The flush task ends without emptying the queue (the store is closed).
    pub(crate) fn disarm(&self) {
        self.queue_lock().armed = false;
    }

    /// Takes every queued report, for a write that is about to run (call it inside the write
    /// turn, so the batch holds everything reported while the write waited for its turn).
    pub(crate) fn take(self: &Arc<Self>) -> Batch {
        let mut q = self.queue_lock();
        q.since = None;
        Batch {
            reports: std::mem::take(&mut q.reports),
            home: Arc::clone(self),
        }
    }

    /// Whether no report waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.queue_lock().reports.is_empty()
    }

    /// How many reports wait.
    pub(crate) fn len(&self) -> usize {
        self.queue_lock().reports.len()
    }
}

/// Reports taken for one write. Unless [`Batch::written`] is called (the write committed), they
/// go back to the queue when the batch is dropped: a failed or abandoned write loses none.
#[derive(Debug)]
pub(crate) struct Batch {
    reports: BTreeMap<Key, i64>,
    home: Arc<Reports>,
}

impl Batch {
    pub(crate) fn is_empty(&self) -> bool {
        self.reports.is_empty()
    }

    /// The batch as the SQL statements take it: a JSON object from each key to its time, read
    /// with `json_each` (one bind, whatever the batch's size, so the statement stays cached).
    pub(crate) fn json(&self) -> String {
        let object: serde_json::Map<String, serde_json::Value> = self
            .reports
            .iter()
            .map(|(key, at)| (key.as_str().to_owned(), serde_json::Value::from(*at)))
            .collect();
        serde_json::Value::Object(object).to_string()
    }

    /// The write that carried the batch committed: nothing goes back.
    pub(crate) fn written(mut self) {
        self.reports.clear();
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        if self.reports.is_empty() {
            return;
        }
        let mut q = self.home.queue_lock();
        for (key, at) in std::mem::take(&mut self.reports) {
            q.reports.entry(key).or_insert(at);
        }
        // They wait again from now: the flush task, if one watches, writes them in time.
        q.since.get_or_insert_with(Instant::now);
    }
}

/// The keys of the entries this store has posted (committed) and not yet seen settled: a
/// report for one of them needs no read to know its entry exists. Entries settled elsewhere
/// (by another process's sender) would stay here, so past [`Posted::MAX`] keys the set starts
/// again empty, and the keys it forgot are checked by a read. An entry is removed from the
/// table only seven days after it was settled, so a key found here names an entry.
#[derive(Debug, Default)]
pub(crate) struct Posted {
    keys: Mutex<HashSet<Key>>,
}

impl Posted {
    /// More keys than a process has replies in flight by far.
    const MAX: usize = 10_000;

    fn lock(&self) -> MutexGuard<'_, HashSet<Key>> {
        self.keys.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Entries with these keys were committed.
    pub(crate) fn add<'k>(&self, keys: impl IntoIterator<Item = &'k Key>) {
        let mut set = self.lock();
        for key in keys {
            if set.len() >= Self::MAX {
                set.clear();
            }
            set.insert(key.clone());
        }
    }

    /// Whether `key` was posted here and not settled since; it is forgotten either way (the
    /// caller is settling it).
    pub(crate) fn take(&self, key: &Key) -> bool {
        self.lock().remove(key)
    }
}

/// Marks a batch (see [`Batch::json`]) bound at `$1` delivered: each waiting entry among its
/// keys, at its own time. Entries already settled are left alone, as by a report written at
/// once. A batch of moves binds it at its own last placeholder (see [`crate::batch`]).
pub(crate) const MARK_DELIVERED: &str = "UPDATE outbox SET state = 'delivered', settled_ms = \
     (SELECT r.value FROM json_each($1) AS r WHERE r.key = outbox.entry_key), \
     claim_owner = NULL, claim_until_ms = NULL \
     WHERE entry_key IN (SELECT r.key FROM json_each($1) AS r) AND state = 'waiting'";

#[cfg(test)]
mod tests {
    use super::*;
    use bot_core::outbox::Keys;

    #[test]
    fn a_batch_not_written_goes_back_to_the_queue() {
        let reports = Arc::new(Reports::default());
        let keys = Keys::new(9);
        let (a, b) = (keys.next(), keys.next());
        assert!(
            reports.queue(a.clone(), 5),
            "the first report starts a flush task"
        );
        assert!(!reports.queue(b.clone(), 6), "later ones ride on it");
        let batch = reports.take();
        assert_eq!(reports.len(), 0);
        assert!(!batch.is_empty());
        drop(batch);
        assert_eq!(reports.len(), 2, "a failed write loses no report");
        reports.take().written();
        assert_eq!(reports.len(), 0, "a committed one is gone");
        assert!(reports.take().is_empty());
    }

    #[test]
    fn one_flush_task_waits_for_the_oldest_report_and_ends_on_an_empty_queue() {
        let reports = Arc::new(Reports::new(Duration::from_secs(3600)));
        let keys = Keys::new(12);
        assert_eq!(reports.next_flush(), Flush::Done);
        assert!(reports.queue(keys.next(), 1));
        assert!(matches!(reports.next_flush(), Flush::Wait(d) if d > Duration::from_secs(3000)));
        reports.take().written();
        assert!(
            !reports.queue(keys.next(), 2),
            "still armed: the task is watching"
        );
        reports.take().written();
        assert_eq!(
            reports.next_flush(),
            Flush::Done,
            "emptied by a move: the task ends"
        );
        assert!(
            reports.queue(keys.next(), 3),
            "and the next report starts a new one"
        );
        let soon = Arc::new(Reports::new(Duration::ZERO));
        soon.queue(keys.next(), 4);
        assert_eq!(soon.next_flush(), Flush::Now);
    }

    #[test]
    fn posted_keys_are_known_once_and_the_set_stays_bounded() {
        let posted = Posted::default();
        let keys = Keys::new(11);
        let a = keys.next();
        posted.add([&a]);
        assert!(posted.take(&a));
        assert!(
            !posted.take(&a),
            "settled: a second report is checked by a read"
        );
        let many: Vec<Key> = (0..=Posted::MAX).map(|_| keys.next()).collect();
        posted.add(&many);
        assert!(posted.lock().len() <= Posted::MAX);
        assert!(posted.take(many.last().unwrap()));
    }

    #[test]
    fn a_report_made_twice_keeps_its_first_time_and_the_json_names_each_key_once() {
        let reports = Arc::new(Reports::default());
        let keys = Keys::new(10);
        let a = keys.next();
        reports.queue(a.clone(), 5);
        reports.queue(a.clone(), 9);
        let batch = reports.take();
        let json: serde_json::Value = serde_json::from_str(&batch.json()).unwrap();
        assert_eq!(json, serde_json::json!({ a.as_str(): 5 }));
        batch.written();
    }
}
