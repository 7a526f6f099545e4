//! Opening a store: choosing the backend, configuring SQLite for durability, migrating.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use crate::{
    batch::Moves,
    delivery::{Posted, Reports},
    durable::{LogSync, WriteGate},
    redact::{DbError, redact_url},
};
use sqlx::{
    AnyConnection, AnyPool, AssertSqlSafe, Connection,
    any::{AnyPoolOptions, install_default_drivers},
    migrate::{MigrateError, Migrator},
};

/// Migrations embedded at compile time, one folder per backend because the DDL differs
/// (`INTEGER PRIMARY KEY` vs identity columns, `WITHOUT ROWID`).
static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("migrations/postgres");

/// Which database a [`SqlStore`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// SQLite, a file (or an in-memory database for tests).
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// Why a store could not be opened. Each message names the file or backend and what to do.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The URL names no supported backend. Only the scheme is kept: URLs carry passwords.
    #[error("unsupported database URL scheme {0:?}: expected sqlite: or postgres://")]
    UnsupportedUrl(String),
    /// The SQLite path is not valid UTF-8, which the sqlx URL cannot carry.
    #[error("the database path {0:?} is not valid UTF-8")]
    NonUtf8Path(PathBuf),
    /// The directory for the SQLite file could not be created.
    #[error("cannot create the data directory {}: {source}", path.display())]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The SQLite file exists but is something else (garbage, another format, an encrypted
    /// database). Nothing is written to it: it may be someone's data.
    #[error(
        "{} is not a SQLite database: move it away or point --data / [store] at another \
         directory",
        path.display()
    )]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The SQLite file (or its directory) cannot be written: every move is a write.
    #[error(
        "the database {} is read-only ({reason}): make it and its directory writable for this \
         user",
        path.display()
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
    /// The SQLite file cannot be opened or created for another reason.
    #[error("cannot open the database {}: {reason}", path.display())]
    File {
        /// The file (or directory entry) in question.
        path: PathBuf,
        /// What the system or SQLite said.
        reason: String,
    },
    /// Connecting or configuring the connection failed. Neither the URL nor the driver's
    /// message is shown with a password in it.
    #[error("cannot open the {backend:?} database {url}: {source}")]
    Connect {
        /// The backend being opened.
        backend: Backend,
        /// The URL, with its password replaced by `<redacted>`.
        url: String,
        /// Why (the driver's error, shown without the URL's secrets).
        source: DbError,
    },
    /// The schema migrations failed (for example a database migrated by a newer fairybot).
    #[error("cannot migrate the database schema: {0}")]
    Migrate(MigrateError),
}

impl OpenError {
    /// Whether SQLite said the database is locked by another connection (SQLITE_BUSY or
    /// SQLITE_LOCKED): worth another try, unlike every other error here.
    pub fn is_busy(&self) -> bool {
        let source = match self {
            OpenError::Connect { source, .. } => source.inner(),
            OpenError::Migrate(MigrateError::Execute(source)) => source,
            _ => return false,
        };
        matches!(
            source,
            sqlx::Error::Database(db)
                if db.code().and_then(|c| c.parse::<i32>().ok()).is_some_and(|c| matches!(c & 0xff, 5 | 6))
        )
    }
}

/// The SQL game store. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct SqlStore {
    pub(crate) pool: AnyPool,
    pub(crate) backend: Backend,
    /// SQLite's writers of this process, one at a time, and their group commit (see
    /// [`crate::durable`]). Unused for PostgreSQL, whose row locks queue writers themselves.
    pub(crate) write_gate: WriteGate,
    /// Delivery reports waiting for the next write (SQLite only, see [`crate::delivery`]).
    pub(crate) deliveries: Arc<Reports>,
    /// Keys of entries posted here and not seen settled (SQLite only, see [`crate::delivery`]).
    pub(crate) posted: Arc<Posted>,
    /// Moves waiting to be written together (SQLite only, see [`crate::batch`]).
    pub(crate) moves: Arc<Moves>,
}

/// The first bytes of every SQLite 3 database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// How long a request waits for a connection before the store reports itself unavailable.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

impl SqlStore {
    /// Open (creating if needed) the SQLite database file at `path`, creating its directory,
    /// and migrate it. The file is put in WAL mode, and every write is synced to disk before
    /// its method returns (group commit, see [`crate::durable`]), so each acknowledged write
    /// survives a crash of the process or the machine.
    ///
    /// A file that is not a database, or that cannot be written, is refused at once with an
    /// error naming it (before any pool is built: a pool would retry for its whole time-out).
    pub async fn open_sqlite(path: impl AsRef<Path>) -> Result<Self, OpenError> {
        let path = std::path::absolute(path.as_ref()).map_err(|source| OpenError::DataDir {
            path: path.as_ref().to_owned(),
            source,
        })?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| OpenError::DataDir {
                path: dir.to_owned(),
                source,
            })?;
        }
        check_sqlite_file(&path)?;
        let text = path
            .to_str()
            .ok_or_else(|| OpenError::NonUtf8Path(path.clone()))?;
        Self::connect(&format!("sqlite://{}?mode=rwc", url_encode_path(text))).await
    }

    /// Connect to `url` and migrate: `sqlite:FILE?mode=rwc`, `sqlite::memory:` (one connection,
    /// since each `:memory:` connection is its own database), or `postgres://…`.
    ///
    /// Several processes may open one new database at the same time: the schema is migrated
    /// under a lock (SQLite: an exclusive transaction around the whole migration, in which the
    /// applied migrations are read again; PostgreSQL: sqlx's advisory lock, taken before the
    /// migrations table is created), so exactly one of them migrates and the others find the
    /// work done.
    pub async fn connect(url: &str) -> Result<Self, OpenError> {
        install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            let scheme = url.split(':').next().unwrap_or_default();
            return Err(OpenError::UnsupportedUrl(scheme.to_owned()));
        };
        let in_memory =
            backend == Backend::Sqlite && (url.contains(":memory:") || url.contains("mode=memory"));
        let connect_error = |source| classify(backend, url, source);

        // One connection of our own first: it reports a bad file or server at once (a pool
        // retries until its acquire time-out), and it is the one that migrates, under a lock.
        // An in-memory database is private to its connection, so the pool migrates it instead.
        let mut write_gate = WriteGate::default();
        if !in_memory {
            // Processes starting together on a new file meet SQLite's locks where its busy
            // handler does not wait (switching the file to WAL, opening while another
            // process holds the exclusive migration transaction): SQLITE_BUSY is retried
            // from a fresh connection for a bounded time, and every other error is final.
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            let mut pause = Duration::from_millis(10);
            let file = loop {
                let attempt = match AnyConnection::connect(url).await {
                    Ok(mut conn) => {
                        let migrated = prepare_and_migrate(&mut conn, backend, url).await;
                        let _ = conn.close().await;
                        migrated
                    }
                    Err(e) => Err(connect_error(e)),
                };
                match attempt {
                    Err(e) if e.is_busy() && std::time::Instant::now() < deadline => {
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_millis(200));
                    }
                    other => break other?,
                }
            };
            if let Some(file) = file {
                write_gate = WriteGate::on_disk(LogSync::new(file));
            }
        }

        let mut options = AnyPoolOptions::new();
        options = match backend {
            // An in-memory database lives exactly as long as its only connection: never let
            // the pool close it for being idle or old.
            Backend::Sqlite if in_memory => options
                .max_connections(1)
                .idle_timeout(None)
                .max_lifetime(None),
            // One writer at a time anyway; a few more connections let reads proceed under WAL.
            // No test before each acquisition: a file's connection does not go stale, and the
            // test is a round trip to the connection's thread before every statement (sqlx
            // still tests each connection when it comes back to the pool).
            Backend::Sqlite => options.max_connections(4).test_before_acquire(false),
            Backend::Postgres => options.max_connections(8),
        };
        if backend == Backend::Sqlite {
            options = options
                .after_connect(|conn, _meta| Box::pin(async move { configure_sqlite(conn).await }));
        }
        let pool = options
            // A few seconds: a player waiting for an unreachable database is told so soon
            // (issue 27); a connection free within this is the normal case by far.
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect(url)
            .await
            .map_err(connect_error)?;
        if in_memory {
            SQLITE_MIGRATIONS
                .run(&pool)
                .await
                .map_err(OpenError::Migrate)?;
        }
        Ok(SqlStore {
            pool,
            backend,
            write_gate,
            deliveries: Arc::default(),
            posted: Arc::default(),
            moves: Arc::default(),
        })
    }

    /// Which backend this store uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// For tests of durability, on SQLite on disk: how many write turns this store has taken,
    /// and how many of them an fsync of the log has covered. With no write running the two
    /// are equal: every write was synced before it returned.
    #[doc(hidden)]
    pub async fn write_turns_synced(&self) -> Option<(u64, u64)> {
        match self.write_gate.log() {
            Some(log) => Some(log.counts().await),
            None => None,
        }
    }

    /// For tests of the delivery reports (see `crate::delivery`): the same store, whose
    /// queued reports are written on their own only after `after` (other writes and reads of
    /// the outbox still carry them at once), and how many wait.
    #[doc(hidden)]
    pub fn with_delivery_flush_after(mut self, after: Duration) -> Self {
        self.deliveries = Arc::new(Reports::new(after));
        self
    }

    /// See [`SqlStore::with_delivery_flush_after`].
    #[doc(hidden)]
    pub fn delivery_reports_queued(&self) -> usize {
        self.deliveries.len()
    }

    /// The underlying pool, for administration and tests (schema checks, pragmas). The game
    /// service should only use the [`GameStore`](bot_core::store::GameStore) methods.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Close every connection, waiting for them to finish. Not needed for durability (every
    /// acknowledged write is already committed), but it checkpoints the WAL cleanly.
    pub async fn close(&self) {
        // The delivery reports still queued are written first (lost, their entries would only
        // be sent again, with their keys, when this process starts again).
        if let Err(e) = self.flush_deliveries().await {
            tracing::warn!("outbox: delivery reports not written before closing: {e}");
        }
        self.pool.close().await;
    }
}

/// Log pages between automatic checkpoints (see `configure_sqlite`): above what
/// [`crate::durable::CHECKPOINT_EVERY`] turns write, so that SQLite's own checkpoint, inside a
/// commit, is only the backstop.
pub(crate) const WAL_AUTOCHECKPOINT_PAGES: u32 = 2_000;

/// Per-connection SQLite settings. `synchronous=NORMAL`: in WAL mode SQLite then syncs only
/// around checkpoints, and the store syncs the log after each write's turn, so that concurrent
/// writers share one fsync (see [`crate::durable`]).
async fn configure_sqlite(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    sqlx::query("PRAGMA synchronous = NORMAL")
        .execute(&mut *conn)
        .await?;
    sqlx::query("PRAGMA foreign_keys = ON")
        .execute(&mut *conn)
        .await?;
    // A checkpoint (copying the log into the database, two fsyncs) runs inside the commit
    // that makes the log pass this many pages, while that writer holds the write gate; the
    // store's own checkpoints beside the writers come first (`durable::CHECKPOINT_EVERY`).
    // A much longer log is not cheaper: every read and write looks pages up in the log's
    // index, which grows with it. Measured on the command path's benchmark (issue 27), 1,000
    // pages moved 1.11x the moves per second of 4,000 at one table and the same at eight
    // (checkpoints then all inside commits); with no checkpoint at all during the run, 0.91x
    // and 0.95x; checkpoints beside the writers every 256 turns with this at 2,000, the same
    // moves per second as every 128 with 1,000, and 0.93x the p99 at one table.
    sqlx::query(AssertSqlSafe(format!(
        "PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}"
    )))
    .execute(&mut *conn)
    .await?;
    // Write transactions start with BEGIN IMMEDIATE, which waits up to 5 s for another
    // connection's write lock instead of failing at once; writes take milliseconds, so
    // waiting longer would mean something is stuck.
    sqlx::query("PRAGMA busy_timeout = 5000")
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// On the opening connection: SQLite settings and WAL, then the migrations under a lock.
/// Returns the SQLite database's file, whose log the store syncs (see [`crate::durable`]).
async fn prepare_and_migrate(
    conn: &mut AnyConnection,
    backend: Backend,
    url: &str,
) -> Result<Option<PathBuf>, OpenError> {
    let failed = |source| classify(backend, url, source);
    match backend {
        Backend::Sqlite => {
            configure_sqlite(conn).await.map_err(failed)?;
            // WAL is a property of the file, set once; readers then never block the writer.
            let mode: String = sqlx::query_scalar("PRAGMA journal_mode = WAL")
                .fetch_one(&mut *conn)
                .await
                .map_err(failed)?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(failed(sqlx::Error::Configuration(
                    format!("SQLite refused WAL mode (journal_mode is {mode})").into(),
                )));
            }
            // sqlx's SQLite migrator takes no lock: two processes would both find a migration
            // missing and both run it ("table players already exists"). An exclusive
            // transaction (waiting up to busy_timeout for another process's) makes the
            // whole check-and-apply one step; each migration runs in a savepoint inside it.
            let mut tx = conn.begin_with("BEGIN EXCLUSIVE").await.map_err(failed)?;
            // `run_direct` on the connection: `run` goes through `Acquire`, whose future is
            // not `Send` for every lifetime, and the store is opened inside spawned tasks.
            SQLITE_MIGRATIONS
                .run_direct(None, &mut *tx, false)
                .await
                .map_err(OpenError::Migrate)?;
            // A database that is already migrated needs no write above; prove now that it
            // can be written (a read-only file or connection fails here, not at the first
            // move): rewriting the header's user version is a write that changes nothing.
            let version: i64 = sqlx::query_scalar("PRAGMA user_version")
                .fetch_one(&mut *tx)
                .await
                .map_err(failed)?;
            sqlx::query(AssertSqlSafe(format!("PRAGMA user_version = {version}")))
                .execute(&mut *tx)
                .await
                .map_err(failed)?;
            tx.commit().await.map_err(failed)?;
            let file: String =
                sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(failed)?;
            let file = PathBuf::from(file);
            // The migration's commit, like every write, is on disk before the store is used.
            LogSync::new(file.clone())
                .sync_now()
                .await
                .map_err(|e| failed(sqlx::Error::Io(e)))?;
            Ok(Some(file))
        }
        // sqlx's PostgreSQL migrator holds `pg_advisory_lock` (keyed by the database name)
        // from before it creates `_sqlx_migrations` until it is done.
        Backend::Postgres => {
            POSTGRES_MIGRATIONS
                .run_direct(None, conn, false)
                .await
                .map_err(OpenError::Migrate)?;
            Ok(None)
        }
    }
}

/// Refuses, before SQLite sees it, a file that is not a database or cannot be written, and a
/// file that cannot be created: SQLite would report these only on first use, and vaguely.
fn check_sqlite_file(path: &Path) -> Result<(), OpenError> {
    use std::io::{ErrorKind, Read};
    let file_error = |e: std::io::Error| match e.kind() {
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => OpenError::ReadOnly {
            path: path.to_owned(),
            reason: e.to_string(),
        },
        _ => OpenError::File {
            path: path.to_owned(),
            reason: e.to_string(),
        },
    };
    if path.is_dir() {
        return Err(OpenError::File {
            path: path.to_owned(),
            reason: "it is a directory, not a file".into(),
        });
    }
    // Opening for writing (creating if missing, which SQLite would do anyway: an empty file is
    // a new database) is what every move will need.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(file_error)?;
    let mut header = Vec::with_capacity(SQLITE_HEADER.len());
    (&mut file)
        .take(SQLITE_HEADER.len() as u64)
        .read_to_end(&mut header)
        .map_err(file_error)?;
    if !header.is_empty() && header.as_slice() != SQLITE_HEADER {
        return Err(OpenError::NotADatabase {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// The SQLite file named by a `sqlite:` URL, for messages.
fn sqlite_path(url: &str) -> PathBuf {
    let rest = url.trim_start_matches("sqlite:").trim_start_matches("//");
    let encoded = rest.split('?').next().unwrap_or(rest).as_bytes();
    let mut bytes = Vec::with_capacity(encoded.len());
    let mut i = 0;
    while i < encoded.len() {
        let hex = encoded
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (encoded[i], hex) {
            (b'%', Some(b)) => {
                bytes.push(b);
                i += 3;
            }
            (b, _) => {
                bytes.push(b);
                i += 1;
            }
        }
    }
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// Turns a connection error into one that says what is wrong with which file. SQLite's result
/// codes (the primary code is the low byte of the extended one) tell the cases apart.
fn classify(backend: Backend, url: &str, source: sqlx::Error) -> OpenError {
    if backend == Backend::Sqlite
        && let sqlx::Error::Database(db) = &source
        && let Some(code) = db.code().and_then(|c| c.parse::<i32>().ok())
    {
        let path = sqlite_path(url);
        let reason = db.message().to_owned();
        match code & 0xff {
            // SQLITE_NOTADB
            26 => return OpenError::NotADatabase { path },
            // SQLITE_READONLY, SQLITE_PERM
            8 | 3 => return OpenError::ReadOnly { path, reason },
            // SQLITE_CANTOPEN, SQLITE_AUTH
            14 | 23 => return OpenError::File { path, reason },
            _ => {}
        }
    }
    OpenError::Connect {
        backend,
        url: redact_url(url),
        source: DbError::new(source, url),
    }
}

/// Percent-encode a file path for a `sqlite://` URL: sqlx decodes the path, so `%`, `?`, `#`
/// and spaces in directory names must not be taken literally.
fn url_encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'.' | b'-' | b'_' | b'~' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{sqlite_path, url_encode_path};

    #[test]
    fn paths_are_percent_encoded() {
        let odd = "/my data/50%?#é.db";
        assert_eq!(
            sqlite_path(&format!("sqlite://{}?mode=rwc", url_encode_path(odd))),
            std::path::PathBuf::from(odd)
        );
        assert_eq!(url_encode_path("/data/games.db"), "/data/games.db");
        assert_eq!(
            url_encode_path("/my data/50%?#é.db"),
            "/my%20data/50%25%3F%23%C3%A9.db"
        );
    }
}
