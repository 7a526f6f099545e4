//! Writers' turns and group commit for SQLite on disk.
//!
//! SQLite allows one writer at a time, so this process's writers take turns at a gate (see
//! [`WriteGate`]). What makes a write durable is an fsync of the write-ahead log, about half a
//! millisecond on this class of disk; with `synchronous=FULL` SQLite does it inside every
//! commit, while the writer still holds the write lock, so concurrent moves queue behind each
//! other's fsyncs and each pays a whole one.
//!
//! Here the connections run with `synchronous=NORMAL` (SQLite syncs the log only around
//! checkpoints) and the store does the commit-time sync itself, after the turn: a writer
//! commits, lets the next writer in, and then waits until an fsync of the log that *started
//! after its commit* has finished. Writers that commit while one fsync is running share the
//! next one. This is group commit: the guarantee is unchanged (a write method returns `Ok` only
//! once its changes are on disk), but the disk's flush is no longer inside the write lock.
//!
//! What changes: another connection can read a committed write during the moment before its
//! fsync ends, before the writer is acknowledged. A reader acting on it (a player moving after
//! seeing that board) writes after it, and his own write's sync covers the whole log.
//!
//! The log is opened by path for each sync, never kept open: when every connection closes,
//! SQLite checkpoints the log into the database (syncing both) and deletes it, and a later
//! connection creates a new file; a handle kept from before would sync a deleted file. A log
//! that is missing at the sync has been checkpointed, which already made it durable.

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
};

/// Write turns between two checkpoints run beside the writers: about 1,300 log pages at five
/// pages a move, below SQLite's own threshold ([`crate::open::WAL_AUTOCHECKPOINT_PAGES`]),
/// which stays as the backstop should these fall behind. Each checkpoint slows the move or
/// two written beside it (it copies pages and syncs the database on the same two cores and
/// disk); at 128 turns those were 12 of the 2,000 moves of the command path's benchmark at
/// one table, enough to be its p99: at 256 the p99 is 0.93x, the moves per second the same
/// (issue 27, `docs/src/measurements.md`).
pub(crate) const CHECKPOINT_EVERY: u64 = 256;

use bot_core::store::{Result, StoreError};
use tokio::sync::{Mutex, OwnedMutexGuard};

/// Group commit for one SQLite database file: how many turns have committed, and how many of
/// them are known to be on disk.
#[derive(Debug)]
pub(crate) struct LogSync {
    /// The write-ahead log, `<database>-wal`.
    log: PathBuf,
    /// Turns ended so far (each one's number is its position in commit order).
    committed: AtomicU64,
    /// The highest turn number an fsync has covered. Held during the fsync, so writers waiting
    /// for a sync queue here and most find their turn covered when they get the lock.
    synced: Mutex<u64>,
    /// Turns taken, for the store's tests: every turn taken must be ended.
    taken: AtomicU64,
    /// Whether a checkpoint started by [`LogSync::checkpoint_due`] is running.
    checkpointing: AtomicBool,
}

impl LogSync {
    pub(crate) fn new(database: PathBuf) -> Self {
        let mut log = database.into_os_string();
        log.push("-wal");
        LogSync {
            log: log.into(),
            committed: AtomicU64::new(0),
            synced: Mutex::new(0),
            taken: AtomicU64::new(0),
            checkpointing: AtomicBool::new(false),
        }
    }

    /// Whether the caller should start a checkpoint now (and then call
    /// [`LogSync::checkpoint_done`]): every [`CHECKPOINT_EVERY`] turns, one at a time. The
    /// checkpoint runs beside the writers (see `SqlStore::checkpoint_soon`), so that no
    /// writer copies the log into the database inside its commit.
    pub(crate) fn checkpoint_due(&self) -> bool {
        let taken = self.taken.load(Ordering::Acquire);
        taken.is_multiple_of(CHECKPOINT_EVERY)
            && taken > 0
            && !self.checkpointing.swap(true, Ordering::AcqRel)
    }

    /// The checkpoint started for [`LogSync::checkpoint_due`] has ended.
    pub(crate) fn checkpoint_done(&self) {
        self.checkpointing.store(false, Ordering::Release);
    }

    /// Returns once an fsync of the log that started after turn `turn` committed has ended.
    async fn sync_through(&self, turn: u64) -> Result<()> {
        let mut synced = self.synced.lock().await;
        if *synced >= turn {
            return Ok(());
        }
        // Every turn numbered up to here has committed (numbers are taken after the commit),
        // so this fsync covers them all.
        let covers = self.committed.load(Ordering::Acquire);
        self.sync_now().await.map_err(|e| {
            StoreError::Backend(
                format!("the write was committed but the log could not be synced to disk: {e}")
                    .into(),
            )
        })?;
        *synced = covers;
        Ok(())
    }

    /// One fsync of the log now (on a blocking thread: it waits for the disk).
    pub(crate) async fn sync_now(&self) -> std::io::Result<()> {
        let log = self.log.clone();
        tokio::task::spawn_blocking(move || sync_file(&log))
            .await
            .map_err(std::io::Error::other)?
    }

    /// Turns taken and turns whose sync has ended (equal whenever no write is running).
    pub(crate) async fn counts(&self) -> (u64, u64) {
        (
            self.taken.load(Ordering::Acquire),
            *self.synced.lock().await,
        )
    }
}

/// fsync the file at `path` (data only: its size is part of the data, so a grown log is
/// covered), or nothing if it is gone.
fn sync_file(path: &std::path::Path) -> std::io::Result<()> {
    match std::fs::File::open(path) {
        Ok(file) => file.sync_data(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// This process's writers, one at a time (SQLite only). A connection that finds SQLite's write
/// lock taken polls for it with growing sleeps (up to 100 ms each), which shows up as long
/// latency tails under concurrent moves; writers of this process therefore queue here, in
/// order, and reach SQLite one at a time. `busy_timeout` still covers other processes.
#[derive(Debug, Clone, Default)]
pub(crate) struct WriteGate {
    gate: Arc<Mutex<()>>,
    /// For a database on disk; `None` in memory, where nothing is durable.
    log: Option<Arc<LogSync>>,
}

impl WriteGate {
    pub(crate) fn on_disk(log: LogSync) -> Self {
        WriteGate {
            gate: Arc::default(),
            log: Some(Arc::new(log)),
        }
    }

    /// Waits for this writer's turn.
    pub(crate) async fn turn(&self) -> WriteTurn {
        let guard = self.gate.clone().lock_owned().await;
        if let Some(log) = &self.log {
            log.taken.fetch_add(1, Ordering::AcqRel);
        }
        WriteTurn {
            guard: Some(guard),
            log: self.log.clone(),
        }
    }

    /// Waits for this writer's turn, for a write that need not be on disk when it returns
    /// (see `SqlStore::begin_write_unsynced`): not counted among the durable turns, and its
    /// end does not wait for an fsync.
    pub(crate) async fn turn_unsynced(&self) -> WriteTurn {
        WriteTurn {
            guard: Some(self.gate.clone().lock_owned().await),
            log: None,
        }
    }

    pub(crate) fn log(&self) -> Option<&LogSync> {
        self.log.as_deref()
    }

    pub(crate) fn log_arc(&self) -> Option<Arc<LogSync>> {
        self.log.clone()
    }
}

/// One writer's turn. End it with [`WriteTurn::end`] once its statements have committed (or
/// failed): that lets the next writer in and returns when the writes are durable. A turn
/// dropped without `end` (an error, a cancelled future) lets the next writer in and makes no
/// promise, which is right for a write that was never acknowledged.
#[must_use = "end the turn, so the write is synced before it is acknowledged"]
pub(crate) struct WriteTurn {
    guard: Option<OwnedMutexGuard<()>>,
    log: Option<Arc<LogSync>>,
}

impl WriteTurn {
    /// No turn: PostgreSQL, whose row locks queue writers and whose commits are durable.
    pub(crate) fn none() -> Self {
        WriteTurn {
            guard: None,
            log: None,
        }
    }

    /// Ends the turn: the next writer may start, and this returns once everything this
    /// process committed up to now is on disk.
    pub(crate) async fn end(mut self) -> Result<()> {
        let Some(log) = self.log.take() else {
            return Ok(());
        };
        let turn = log.committed.fetch_add(1, Ordering::AcqRel) + 1;
        drop(self.guard.take());
        log.sync_through(turn).await
    }
}
