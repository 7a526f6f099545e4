//! Opening a store: choosing the backend, configuring SQLite for durability, migrating.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use sqlx::{
    AnyPool,
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

/// Why a store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The URL names no supported backend. Only the scheme is kept: URLs carry passwords.
    #[error("unsupported database URL scheme {0:?}: expected sqlite: or postgres://")]
    UnsupportedUrl(String),
    /// The SQLite path is not valid UTF-8, which the sqlx URL cannot carry.
    #[error("the database path {0:?} is not valid UTF-8")]
    NonUtf8Path(PathBuf),
    /// The directory for the SQLite file could not be created.
    #[error("cannot create the data directory {path:?}")]
    DataDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Connecting or configuring the connection failed.
    #[error("cannot open the {backend:?} database")]
    Connect {
        /// The backend being opened.
        backend: Backend,
        /// Why.
        #[source]
        source: sqlx::Error,
    },
    /// The schema migrations failed (for example a database migrated by a newer fairybot).
    #[error("cannot migrate the database schema")]
    Migrate(#[source] MigrateError),
}

/// The SQL game store. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct SqlStore {
    pub(crate) pool: AnyPool,
    pub(crate) backend: Backend,
    /// SQLite allows one writer at a time, and a connection that finds the write lock taken
    /// polls for it with growing sleeps (up to 100 ms each), which shows up as long latency
    /// tails under concurrent moves. Writers of this process therefore queue here, in order,
    /// and reach SQLite one at a time; `busy_timeout` still covers other processes.
    /// Unused for PostgreSQL, whose row locks queue writers themselves.
    pub(crate) write_gate: Arc<tokio::sync::Mutex<()>>,
}

impl SqlStore {
    /// Open (creating if needed) the SQLite database file at `path`, creating its directory,
    /// and migrate it. The file is put in WAL mode and every connection uses
    /// `synchronous=FULL`, so each acknowledged write survives a crash.
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
        let text = path
            .to_str()
            .ok_or_else(|| OpenError::NonUtf8Path(path.clone()))?;
        Self::connect(&format!("sqlite://{}?mode=rwc", url_encode_path(text))).await
    }

    /// Connect to `url` and migrate: `sqlite:FILE?mode=rwc`, `sqlite::memory:` (one connection,
    /// since each `:memory:` connection is its own database), or `postgres://…`.
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
        let connect_error = |source| OpenError::Connect { backend, source };

        let mut options = AnyPoolOptions::new();
        options = match backend {
            // An in-memory database lives exactly as long as its only connection: never let
            // the pool close it for being idle or old.
            Backend::Sqlite if in_memory => options
                .max_connections(1)
                .idle_timeout(None)
                .max_lifetime(None),
            // One writer at a time anyway; a few more connections let reads proceed under WAL.
            Backend::Sqlite => options.max_connections(4),
            Backend::Postgres => options.max_connections(8),
        };
        if backend == Backend::Sqlite {
            options = options.after_connect(|conn, _meta| {
                Box::pin(async move {
                    // Per-connection settings (sqlx's defaults are the same today, but the
                    // durability promise should not rest on a library default).
                    sqlx::query("PRAGMA synchronous = FULL")
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("PRAGMA foreign_keys = ON")
                        .execute(&mut *conn)
                        .await?;
                    // Write transactions start with BEGIN IMMEDIATE, which waits up to 5 s for
                    // another connection's write lock instead of failing at once; writes take
                    // milliseconds, so waiting longer would mean something is stuck.
                    sqlx::query("PRAGMA busy_timeout = 5000")
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            });
        }
        let pool = options
            .acquire_timeout(Duration::from_secs(30))
            .connect(url)
            .await
            .map_err(connect_error)?;

        if backend == Backend::Sqlite && !in_memory {
            // WAL is a property of the file, set once; readers then never block the writer.
            let mode: String = sqlx::query_scalar("PRAGMA journal_mode = WAL")
                .fetch_one(&pool)
                .await
                .map_err(connect_error)?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(connect_error(sqlx::Error::Configuration(
                    format!("SQLite refused WAL mode (journal_mode is {mode})").into(),
                )));
            }
        }

        let migrator = match backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator.run(&pool).await.map_err(OpenError::Migrate)?;
        Ok(SqlStore {
            pool,
            backend,
            write_gate: Arc::default(),
        })
    }

    /// Which backend this store uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The underlying pool, for administration and tests (schema checks, pragmas). The game
    /// service should only use the [`GameStore`](bot_core::store::GameStore) methods.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Close every connection, waiting for them to finish. Not needed for durability (every
    /// acknowledged write is already committed), but it checkpoints the WAL cleanly.
    pub async fn close(&self) {
        self.pool.close().await;
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
    use super::url_encode_path;

    #[test]
    fn paths_are_percent_encoded() {
        assert_eq!(url_encode_path("/data/games.db"), "/data/games.db");
        assert_eq!(
            url_encode_path("/my data/50%?#é.db"),
            "/my%20data/50%25%3F%23%C3%A9.db"
        );
    }
}
