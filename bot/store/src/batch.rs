//! Moves written together (SQLite).
//!
//! SQLite has one writer at a time, so this process's writers take turns at the write gate
//! (see [`crate::durable`]), and a move's turn is a whole transaction: the game's versioned
//! update, the move, its announcement in the outbox, the delivery reports waiting, and the
//! commit, which appends every page it changed to the write-ahead log. Since the outbox a move
//! changes about five pages instead of two, and at eight busy tables the turns queued behind
//! each other cost a fifth of the moves per second (issue 27's benchmark).
//!
//! Here the moves that arrive while another is being written wait in a queue, and the next
//! turn writes all of them in one transaction: the pages they share (the outbox's last page
//! and its two indexes, the moves table's last page) are logged once for the batch, and the
//! batch shares one commit and one fsync. Nothing else changes for a move:
//!
//! - each move keeps its own versioned update, so two moves of one game in one batch behave
//!   as if written one after the other (the second finds the version moved on, and nothing
//!   of it is written);
//! - a move's caller learns its result only once the batch's fsync has ended (a move is
//!   acknowledged only when durable, as before);
//! - if the batch's transaction fails, it is rolled back whole and each move is then written
//!   alone, so one bad move cannot fail the others;
//! - the batch is written by a task of its own, not by a caller's future, so a caller that
//!   stops waiting (a cancelled command) cannot abandon the other moves half-written.
//!
//! One move alone (an idle store, one table) is written exactly as before: a batch of one.

use std::sync::{Mutex, MutexGuard};

use bot_core::{
    model::{GameId, GameUpdate},
    store::{Result, StoreError},
};
use sqlx::{Any, AssertSqlSafe, any::AnyArguments, query::Query};
use tokio::sync::oneshot;

use crate::{
    codec::{self, backend, get},
    durable::WriteTurn,
    open::SqlStore,
    outbox,
    store::MOVE_STATEMENTS,
};

/// At most this many moves in one transaction: far more than wait at once on two cores, and
/// a bound on the statement's size.
const MAX_BATCH: usize = 32;

/// Placeholders per move in [`MOVE_STATEMENTS`].
const BINDS_PER_MOVE: usize = 18;

/// One move to write, with everything bound to its statements made beforehand (outside the
/// write turn): owned, so that whichever task writes the batch can bind it.
#[derive(Debug)]
pub(crate) struct MoveRow {
    id: i64,
    expected: i64,
    status: &'static str,
    result: Option<String>,
    reason: Option<&'static str>,
    offer_kind: Option<&'static str>,
    offer_seat: Option<i64>,
    offer_agreed: i64,
    at: i64,
    clock: Option<String>,
    clock_wake: Option<i64>,
    mv: String,
    told: Option<Told>,
}

/// A move's announcement, as the outbox stores it.
#[derive(Debug)]
struct Told {
    key: String,
    platform: &'static str,
    body: String,
    posted_ms: i64,
    claim_owner: Option<String>,
    claim_until_ms: Option<i64>,
}

impl MoveRow {
    /// The row of a move that does not finish the game, with one announcement at most.
    pub(crate) fn new(
        id: GameId,
        expected: i64,
        mv: &str,
        update: &GameUpdate,
        at: i64,
    ) -> Result<MoveRow> {
        let (status, result, reason) = codec::game_status_columns(&update.status);
        let (offer_kind, offer_seat, offer_agreed) = codec::offer_columns(update.pending_offer);
        let told = match update.tell.envelopes.as_slice() {
            [] => None,
            [one] => {
                let claim = update.tell.claim.as_ref();
                Some(Told {
                    key: one.key.as_str().to_owned(),
                    platform: one.platform().as_str(),
                    body: outbox::encode(one)?,
                    posted_ms: update.tell.posted_ms,
                    claim_owner: claim.map(|c| c.owner.clone()),
                    claim_until_ms: claim.map(|c| c.until_ms),
                })
            }
            _ => {
                return Err(StoreError::Invalid(
                    "a move written with others takes one envelope at most".into(),
                ));
            }
        };
        Ok(MoveRow {
            id: id.0,
            expected,
            status,
            result,
            reason,
            offer_kind,
            offer_seat,
            offer_agreed,
            at,
            clock: update.clock.as_ref().map(|c| c.to_text()),
            clock_wake: update.clock.as_ref().map(|c| c.wake_ms),
            mv: mv.to_owned(),
            told,
        })
    }

    /// Binds the row's eighteen values in [`MOVE_STATEMENTS`]' order (the update's as
    /// `bind_update` binds them).
    fn bind<'q>(&'q self, query: Query<'q, Any, AnyArguments>) -> Query<'q, Any, AnyArguments> {
        let told = self.told.as_ref();
        query
            .bind(self.status)
            .bind(self.result.as_deref())
            .bind(self.reason)
            .bind(self.offer_kind)
            .bind(self.offer_seat)
            .bind(self.at)
            .bind(self.id)
            .bind(self.expected)
            .bind(self.offer_agreed)
            .bind(self.clock.as_deref())
            .bind(self.clock_wake)
            .bind(self.mv.as_str())
            .bind(told.map(|t| t.key.as_str()))
            .bind(told.map(|t| t.platform))
            .bind(told.map(|t| t.body.as_str()))
            .bind(told.map(|t| t.posted_ms))
            .bind(told.and_then(|t| t.claim_owner.as_deref()))
            .bind(told.and_then(|t| t.claim_until_ms))
    }
}

/// What a move's caller is told: the new version, or `None` if the game was not at the
/// expected version (nothing of the move was written).
type Outcome = Result<Option<i64>>;

/// A move waiting for its batch, and where its outcome goes.
type Job = (MoveRow, oneshot::Sender<Outcome>);

/// The moves waiting to be written, and whether a task is writing them.
#[derive(Debug, Default)]
pub(crate) struct Moves {
    queue: Mutex<Queue>,
}

#[derive(Debug, Default)]
struct Queue {
    jobs: Vec<Job>,
    /// A task is writing batches, and will look at the queue again before it stops.
    writing: bool,
}

impl Moves {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Each change is one call: a poisoned lock's data is still whole.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// When nothing waits and nothing is being written: marks the queue as being written,
    /// for a caller that writes its own move (see [`Alone`]).
    fn write_alone(&self, store: &SqlStore) -> Option<Alone> {
        let mut q = self.lock();
        if q.writing || !q.jobs.is_empty() {
            return None;
        }
        q.writing = true;
        Some(Alone {
            store: store.clone(),
        })
    }

    /// Queues a move. Returns whether the caller must start the writing task.
    fn push(&self, job: Job) -> bool {
        let mut q = self.lock();
        q.jobs.push(job);
        !std::mem::replace(&mut q.writing, true)
    }

    /// Whether no move waits.
    fn is_idle(&self) -> bool {
        self.lock().jobs.is_empty()
    }

    /// The next batch, or `None` (the task stops, and the next move starts a new one).
    fn next_batch(&self) -> Option<Vec<Job>> {
        let mut q = self.lock();
        if q.jobs.is_empty() {
            q.writing = false;
            return None;
        }
        let n = q.jobs.len().min(MAX_BATCH);
        Some(q.jobs.drain(..n).collect())
    }
}

/// The statements of a batch of `n` moves: each move's statements numbered on from the last,
/// then the delivery reports (the last placeholder), in one transaction.
fn batch_sql(n: usize) -> String {
    let mut sql = String::from("BEGIN IMMEDIATE; ");
    for job in 0..n {
        let statements = MOVE_STATEMENTS.replace("{job}", &job.to_string());
        sql.push_str(&renumber(&statements, job * BINDS_PER_MOVE));
    }
    sql.push_str(&renumber(
        crate::delivery::MARK_DELIVERED,
        n * BINDS_PER_MOVE,
    ));
    sql.push_str("; COMMIT");
    sql
}

/// `sql` with every placeholder `$k` made `$(k + offset)`.
fn renumber(sql: &str, offset: usize) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - at - 1);
        match rest[at + 1..at + 1 + digits].parse::<usize>() {
            Ok(k) => {
                out.push('$');
                out.push_str(&(k + offset).to_string());
            }
            Err(_) => out.push('$'),
        }
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    out
}

impl SqlStore {
    /// Writes a move that does not finish the game with the moves waiting beside it (see the
    /// module's note): the new version once it is durable, or `None` if the game was not at
    /// `expected` (then nothing was written).
    pub(crate) async fn append_move_batched(&self, row: MoveRow) -> Outcome {
        if let Some(alone) = self.moves.write_alone(self) {
            // Nothing else waits or is being written: this move is a batch of one, written
            // by its own caller (no task to hand it to, no wake-up on another thread). Moves
            // that arrive meanwhile queue, and the writing task is started for them when this
            // one has committed (or was abandoned: see `Alone`).
            let turn = self.write_turn().await;
            let written = self.write_batch(std::slice::from_ref(&row)).await;
            drop(alone);
            let synced = turn.end().await;
            let outcome = written.and_then(|mut one| one.pop().unwrap_or(Ok(None)));
            return match (synced, outcome) {
                (Err(e), Ok(_)) => Err(e),
                (_, outcome) => outcome,
            };
        }
        let (tx, rx) = oneshot::channel();
        if self.moves.push((row, tx)) {
            let store = self.clone();
            tokio::spawn(async move { store.write_batches().await });
        }
        rx.await.unwrap_or_else(|_| {
            Err(StoreError::Backend(
                "the task writing the move stopped before it said how the write went".into(),
            ))
        })
    }

    /// The writing task: batch after batch until the queue is empty. Each batch takes a
    /// write turn; when more moves wait, its fsync is awaited by a task of its own, so that
    /// the next batch is written meanwhile (group commit, as for every other write).
    async fn write_batches(self) {
        while let Some(jobs) = self.moves.next_batch() {
            let turn = self.write_turn().await;
            let (rows, senders): (Vec<MoveRow>, Vec<oneshot::Sender<Outcome>>) =
                jobs.into_iter().unzip();
            let mut outcomes = self.write_batch(&rows).await;
            if rows.len() > 1
                && let Err(e) = &outcomes
            {
                // Rolled back whole: each move alone, so one cannot fail the others.
                tracing::warn!(
                    "a batch of {} moves failed ({e}); each is written alone",
                    rows.len()
                );
                let mut alone = Vec::with_capacity(rows.len());
                for row in &rows {
                    alone.push(match self.write_batch(std::slice::from_ref(row)).await {
                        Ok(mut one) => one.pop().unwrap_or(Ok(None)),
                        Err(e) => Err(e),
                    });
                }
                outcomes = Ok(alone);
            }
            if self.moves.is_idle() {
                // Nothing waits to be written meanwhile: no task for the fsync.
                acknowledge(turn, senders, outcomes).await;
            } else {
                tokio::spawn(acknowledge(turn, senders, outcomes));
            }
        }
    }

    /// One transaction for `rows`, inside the caller's write turn, carrying the delivery
    /// reports queued so far. On success, each row's outcome in order; on failure the
    /// transaction is rolled back (the reports go back to the queue) and the error returned.
    async fn write_batch(&self, rows: &[MoveRow]) -> Result<Vec<Outcome>> {
        let sql = batch_sql(rows.len());
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for row in rows {
            query = row.bind(query);
        }
        let mut conn = ClosedUnlessReturned(Some(self.pool.acquire().await.map_err(backend)?));
        // Taken in the turn: every report made while the batch waited for it rides along.
        let reports = self.deliveries.take();
        let written = query
            .bind(reports.json())
            .fetch_all(&mut **conn.get())
            .await;
        let returned = match written {
            Ok(returned) => {
                reports.written();
                returned
            }
            Err(e) => {
                // The reports go back to the queue with the batch.
                drop(reports);
                sqlx::query("ROLLBACK")
                    .execute(&mut **conn.get())
                    .await
                    .map_err(backend)?;
                conn.give_back();
                return Err(backend(e));
            }
        };
        conn.give_back();
        let mut outcomes: Vec<Outcome> = rows.iter().map(|_| Ok(None)).collect();
        for row in &returned {
            let job: i64 = get(row, "job")?;
            let version: i64 = get(row, "version")?;
            if let Some(slot) = usize::try_from(job).ok().and_then(|j| outcomes.get_mut(j)) {
                *slot = Ok(Some(version));
            }
        }
        Ok(outcomes)
    }
}

/// A caller writing its own move alone. Dropped (the move written, or the caller's future
/// abandoned), it hands the queue over: the writing task is started if moves queued
/// meanwhile, else the queue is marked idle.
pub(crate) struct Alone {
    store: SqlStore,
}

impl Drop for Alone {
    fn drop(&mut self) {
        let mut q = self.store.moves.lock();
        if q.jobs.is_empty() {
            q.writing = false;
            return;
        }
        drop(q);
        let store = self.store.clone();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move { store.write_batches().await });
            }
            // No runtime left to write them: their callers are gone with it.
            Err(_) => store.moves.lock().writing = false,
        }
    }
}

/// Ends a batch's turn and tells each move's caller its outcome once the batch is durable
/// (or the fsync's failure, for a move that was written).
async fn acknowledge(
    turn: WriteTurn,
    senders: Vec<oneshot::Sender<Outcome>>,
    outcomes: Result<Vec<Outcome>>,
) {
    let synced = turn.end().await;
    let outcomes = match outcomes {
        Ok(each) => each,
        Err(e) => {
            let why = e.to_string();
            (0..senders.len())
                .map(|_| Err(StoreError::Backend(why.clone().into())))
                .collect()
        }
    };
    for (sender, outcome) in senders.into_iter().zip(outcomes) {
        let outcome = match (&synced, outcome) {
            (Err(e), Ok(_)) => Err(StoreError::Backend(e.to_string().into())),
            (_, outcome) => outcome,
        };
        // A caller that stopped waiting is not told.
        let _ = sender.send(outcome);
    }
}

/// A pooled connection that goes back to the pool only through [`Self::give_back`]: dropped
/// any other way (an error returned early, a cancelled future) it is closed, so a transaction
/// left open on it never reaches another user of the pool.
pub(crate) struct ClosedUnlessReturned(pub(crate) Option<sqlx::pool::PoolConnection<Any>>);

impl ClosedUnlessReturned {
    pub(crate) fn get(&mut self) -> &mut sqlx::pool::PoolConnection<Any> {
        self.0
            .as_mut()
            .expect("the connection is held until given back")
    }

    pub(crate) fn give_back(mut self) {
        drop(self.0.take());
    }
}

impl Drop for ClosedUnlessReturned {
    fn drop(&mut self) {
        if let Some(mut conn) = self.0.take() {
            conn.close_on_drop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_on_and_nothing_else_changes() {
        assert_eq!(
            renumber("a = $1 AND b = $12, c", 18),
            "a = $19 AND b = $30, c"
        );
        assert_eq!(renumber("x $ y $", 5), "x $ y $");
        let sql = batch_sql(2);
        assert!(sql.contains("RETURNING version, 0 AS job"), "{sql}");
        assert!(sql.contains("RETURNING version, 1 AS job"), "{sql}");
        assert!(sql.contains("version = $26"), "the second move's $8: {sql}");
        assert!(
            sql.contains("json_each($37)"),
            "the reports after both: {sql}"
        );
        assert!(!sql.contains("$38"), "{sql}");
    }

    #[test]
    fn one_task_writes_and_stops_on_an_empty_queue() {
        let moves = Moves::default();
        assert!(moves.next_batch().is_none());
        let row = || MoveRow::new(GameId(1), 0, "e2e4", &GameUpdate::active(), 1).unwrap();
        let (a, _ra) = oneshot::channel();
        let (b, _rb) = oneshot::channel();
        assert!(moves.push((row(), a)), "the first move starts the task");
        assert!(!moves.push((row(), b)), "the next one waits for it");
        assert_eq!(moves.next_batch().map(|b| b.len()), Some(2));
        assert!(moves.next_batch().is_none(), "emptied: the task stops");
        let (c, _rc) = oneshot::channel();
        assert!(moves.push((row(), c)), "and the next move starts a new one");
    }
}
