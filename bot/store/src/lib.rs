//! fairybot's SQL game store: the [`GameStore`](bot_core::store::GameStore) port over
//! `sqlx::AnyPool`, so one set of portable queries serves SQLite (the default, a file under the
//! data directory) and PostgreSQL (when one machine is not enough).
//!
//! Why `Any` rather than two typed pools: the store is small, and one query text per operation
//! keeps both backends identical by construction; the schema is the only part written twice
//! (`migrations/sqlite`, `migrations/postgres`), and a test compares the two. Consequences of
//! `Any` (see the design notes): no `bool` (flags are integers), no chrono/json (times are unix
//! seconds, enums are text), and `$n` placeholders everywhere.
//!
//! Durability: on SQLite every write is committed in WAL mode and the log is fsynced before the
//! write's future resolves `Ok` (group commit: concurrent writers share an fsync, see
//! [`durable`]), so an acknowledged write survives a crash of the process or the machine; on
//! PostgreSQL the server's own settings govern
//! (`synchronous_commit=on` by default gives the same guarantee).

mod analyses;
mod backup;
mod batch;
mod codec;
mod delivery;
mod durable;
mod open;
mod outbox;
mod ratings;
mod redact;
mod store;

pub use backup::BackupError;
pub use open::{Backend, OpenError, SqlStore};
pub use redact::{DbError, REDACTED, redact_url};
