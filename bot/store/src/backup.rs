//! A consistent copy of a live SQLite store, taken while the bot runs.
//!
//! `VACUUM INTO` writes a new database file from one read transaction: every game, move and
//! outbox entry committed before it began, and nothing half-written, whatever the bot does
//! meanwhile (readers never block writers in WAL mode). The copy is an ordinary SQLite file:
//! restoring is stopping the bot and putting the file in place of `fairybot.db`.
//! PostgreSQL has its own tool for this, `pg_dump`, which this module does not replace.

use std::path::{Path, PathBuf};

use crate::{Backend, SqlStore};

/// Why a backup was not taken.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// A backup never overwrites: the file may be an earlier backup someone keeps.
    #[error("{} exists already: name a new file (a backup never overwrites one)", .0.display())]
    Exists(PathBuf),
    /// The store is PostgreSQL.
    #[error(
        "the store is PostgreSQL: take its backup with pg_dump (`pg_dump --format=custom \
         --file=fairybot.dump DATABASE_URL`) while the bot runs, and restore it with pg_restore"
    )]
    Postgres,
    /// The path cannot be given to SQLite.
    #[error("the backup path {0:?} is not valid UTF-8: choose another name")]
    NonUtf8Path(PathBuf),
    /// SQLite could not write the copy.
    #[error("cannot write the backup {}: {source}", path.display())]
    Write {
        /// The file asked for.
        path: PathBuf,
        /// SQLite's reason.
        source: sqlx::Error,
    },
}

impl SqlStore {
    /// Writes a consistent copy of this SQLite store to `dest`, a new file, and returns its
    /// size in bytes.
    ///
    /// # Errors
    /// [`BackupError`]: the file exists, the store is PostgreSQL, or SQLite failed.
    pub async fn backup_to(&self, dest: &Path) -> Result<u64, BackupError> {
        if self.backend() == Backend::Postgres {
            return Err(BackupError::Postgres);
        }
        if dest.exists() {
            return Err(BackupError::Exists(dest.to_path_buf()));
        }
        let name = dest
            .to_str()
            .ok_or_else(|| BackupError::NonUtf8Path(dest.to_path_buf()))?;
        let write = |source| BackupError::Write {
            path: dest.to_path_buf(),
            source,
        };
        sqlx::query("VACUUM INTO ?")
            .bind(name.to_string())
            .execute(self.pool())
            .await
            .map_err(write)?;
        let size = std::fs::metadata(dest)
            .map_err(|e| write(sqlx::Error::Io(e)))?
            .len();
        Ok(size)
    }
}
