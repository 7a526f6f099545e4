//! What the bot has handled, kept on disk so that a restart neither repeats nor skips a
//! command.
//!
//! matrix-sdk saves its own sync token *before* the bot has looked at the events of that
//! sync, so after a crash mid-batch it would resume past commands nobody answered. The bot
//! therefore keeps its own token: the `next_batch` of the last sync whose events were all
//! handled, and the ids of the commands handled since then. On start the bot syncs from that
//! token, so every command sent while it was offline arrives again, in order (a gap longer
//! than one sync returns is read back from the room's history); the ones in the set are
//! skipped.
//!
//! A command's id is written (and fsynced) *before* the command runs. If the bot dies
//! after that, the ledger alone cannot tell whether the command got as far as the store: the
//! ids read back at start are only *begun* ([`Ledger::was_begun`]). The store decides: a
//! command's replies are keyed by its event id (`bot_core::outbox::CommandKeys`), so if its
//! first reply is in the outbox the first run was stored (its move with its announcement, or
//! its answer), and the outbox's sender delivers what it left; if not, it is run again. So a
//! command killed anywhere on its path is answered once, neither skipped nor run twice.
//!
//! The file is a log of lines `t TOKEN` and `e EVENT_ID`; it is compacted on open.
//!
//! Each write and its fsync run on tokio's blocking threads ([`Ledger::mark`] and
//! [`Ledger::advance`] are async): an fsync takes milliseconds, and on the async threads it
//! would stall every other player's command meanwhile. The methods return only once the line
//! is on disk, so the guarantee is unchanged: the entry is durable before the command runs,
//! and so before its reply.

use std::{
    collections::HashSet,
    fs::{File, OpenOptions},
    io::{self, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

/// The bot's durable record of handled syncs and commands.
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    /// Shared with the blocking task that appends to it.
    file: Arc<File>,
    token: Option<String>,
    /// Commands begun by this process since the token.
    handled: HashSet<String>,
    /// Commands begun before the last restart since the token: their fate is the store's to
    /// tell.
    begun: HashSet<String>,
}

/// The ledger file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("the Matrix ledger {path}: {source}")]
pub struct LedgerError {
    path: PathBuf,
    #[source]
    source: io::Error,
}

impl Ledger {
    /// Opens (or creates) the ledger at `path` and compacts it.
    ///
    /// # Errors
    /// When the file cannot be read, rewritten or opened for appending.
    pub fn open(path: &Path) -> Result<Ledger, LedgerError> {
        let err = |source| LedgerError {
            path: path.to_path_buf(),
            source,
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(err(e)),
        };
        let (token, handled) = Self::replay(&text);
        // Compact: the last token and the commands handled after it.
        let tmp = path.with_extension("tmp");
        {
            let mut f = File::create(&tmp).map_err(err)?;
            let mut out = String::new();
            if let Some(t) = &token {
                out.push_str(&format!("t {t}\n"));
            }
            for e in &handled {
                out.push_str(&format!("e {e}\n"));
            }
            f.write_all(out.as_bytes()).map_err(err)?;
            f.sync_all().map_err(err)?;
        }
        std::fs::rename(&tmp, path).map_err(err)?;
        let file = OpenOptions::new().append(true).open(path).map_err(err)?;
        if !handled.is_empty() {
            tracing::info!(
                "{} commands were begun before the restart: the store tells which to run again",
                handled.len()
            );
        }
        Ok(Ledger {
            path: path.to_path_buf(),
            file: Arc::new(file),
            token,
            handled: HashSet::new(),
            begun: handled,
        })
    }

    /// Reads a log: the last token and the events after it. A torn last line (a crash while
    /// writing it) has no newline and is ignored.
    fn replay(text: &str) -> (Option<String>, HashSet<String>) {
        let mut token = None;
        let mut handled = HashSet::new();
        for line in text.split_inclusive('\n') {
            let Some(line) = line.strip_suffix('\n') else {
                break;
            };
            if let Some(t) = line.strip_prefix("t ") {
                token = Some(t.to_string());
                handled.clear();
            } else if let Some(e) = line.strip_prefix("e ") {
                handled.insert(e.to_string());
            }
        }
        (token, handled)
    }

    /// The sync token up to which everything is handled; `None` before the first sync.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Whether this process has handled (or begun) the command with this event id.
    pub fn is_handled(&self, event_id: &str) -> bool {
        self.handled.contains(event_id)
    }

    /// Whether the command with this event id was begun before the last restart, and may or
    /// may not have been stored then (see the module's documentation).
    pub fn was_begun(&self, event_id: &str) -> bool {
        self.begun.contains(event_id)
    }

    /// Records, durably, that a command is being handled. Call before running it: it returns
    /// once the record is fsynced.
    ///
    /// # Errors
    /// When the write or the fsync fails (the command must then not run).
    pub async fn mark(&mut self, event_id: &str) -> Result<(), LedgerError> {
        self.append(format!("e {event_id}\n")).await?;
        self.handled.insert(event_id.to_string());
        Ok(())
    }

    /// Records, durably, that every event up to `token` is handled: it returns once the
    /// record is fsynced.
    ///
    /// # Errors
    /// When the write or the fsync fails.
    pub async fn advance(&mut self, token: &str) -> Result<(), LedgerError> {
        self.append(format!("t {token}\n")).await?;
        self.token = Some(token.to_string());
        self.handled.clear();
        self.begun.clear();
        Ok(())
    }

    /// Appends a line and fsyncs it on a blocking thread. `&mut self` keeps the appends in
    /// order (one at a time); if the caller stops waiting, the blocking task still finishes its
    /// line, so the file never holds half of one that a later line follows.
    async fn append(&mut self, line: String) -> Result<(), LedgerError> {
        let file = Arc::clone(&self.file);
        let r = tokio::task::spawn_blocking(move || {
            (&*file).write_all(line.as_bytes())?;
            file.sync_data()
        })
        .await
        .unwrap_or_else(|e| Err(io::Error::other(format!("the ledger write failed: {e}"))));
        r.map_err(|source| LedgerError {
            path: self.path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tokens_and_commands_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger");
        {
            let mut l = Ledger::open(&path).unwrap();
            assert_eq!(l.token(), None);
            l.mark("$a").await.unwrap();
            l.advance("s1").await.unwrap();
            l.mark("$b").await.unwrap();
            l.mark("$c").await.unwrap();
            assert!(l.is_handled("$b") && !l.is_handled("$a"));
            // On disk as soon as the call returns, before the ledger is dropped or closed.
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                "e $a\nt s1\ne $b\ne $c\n"
            );
        }
        let mut l = Ledger::open(&path).unwrap();
        assert_eq!(l.token(), Some("s1"));
        // Begun before the restart, not handled by this process: the store decides.
        assert!(l.was_begun("$b") && l.was_begun("$c") && !l.was_begun("$a"));
        assert!(!l.is_handled("$b"));
        l.mark("$b").await.unwrap();
        assert!(l.is_handled("$b"));
        drop(l);
        // A second restart before the next token still knows what the first one began.
        let mut l = Ledger::open(&path).unwrap();
        assert!(l.was_begun("$b") && l.was_begun("$c"));
        l.advance("s2").await.unwrap();
        assert!(!l.was_begun("$b"));
        drop(l);
        let l = Ledger::open(&path).unwrap();
        assert_eq!(l.token(), Some("s2"));
        assert!(!l.is_handled("$b") && !l.was_begun("$b"));
        // Compacted: one token line left.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "t s2\n");
    }

    /// The fsync runs on a blocking thread: a current-thread runtime (one async thread) keeps
    /// serving other tasks while a mark is being written.
    #[tokio::test(flavor = "current_thread")]
    async fn marking_runs_off_the_async_thread() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = Ledger::open(&dir.path().join("ledger")).unwrap();
        // While marks are written, a ticker on the only async thread keeps running (with the
        // fsync on that thread it would not run at all until the loop ends).
        let ticks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let ticker = {
            let ticks = Arc::clone(&ticks);
            tokio::spawn(async move {
                loop {
                    ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tokio::task::yield_now().await;
                }
            })
        };
        for i in 0..20 {
            l.mark(&format!("$e{i}")).await.unwrap();
        }
        ticker.abort();
        assert!(
            ticks.load(std::sync::atomic::Ordering::Relaxed) >= 20,
            "the async thread was free while the ledger fsynced"
        );
        assert!(l.is_handled("$e19"));
    }

    #[test]
    fn a_torn_last_line_is_ignored() {
        let (token, handled) = Ledger::replay("t s1\ne $a\ne $b");
        assert_eq!(token.as_deref(), Some("s1"));
        assert_eq!(handled, HashSet::from(["$a".to_string()]));
        let (token, handled) = Ledger::replay("t s1\ne $a\nt s");
        assert_eq!(token.as_deref(), Some("s1"));
        assert!(handled.contains("$a"));
    }
}
