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
//! A command's id is written (and fsynced) *before* the command runs: if the bot dies between
//! the two, the command is not run again. That is the "never twice" side of the trade; the
//! command may then have no answer, but nothing acknowledged is lost (the core makes a move
//! durable before it replies, and an unanswered command was never acknowledged).
//!
//! The file is a log of lines `t TOKEN` and `e EVENT_ID`; it is compacted on open.

use std::{
    collections::HashSet,
    fs::{File, OpenOptions},
    io::{self, Write},
    path::{Path, PathBuf},
};

/// The bot's durable record of handled syncs and commands.
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    file: File,
    token: Option<String>,
    handled: HashSet<String>,
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
        Ok(Ledger {
            path: path.to_path_buf(),
            file,
            token,
            handled,
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

    /// Whether the command with this event id was handled (or begun) already.
    pub fn is_handled(&self, event_id: &str) -> bool {
        self.handled.contains(event_id)
    }

    /// Records, durably, that a command is being handled. Call before running it.
    ///
    /// # Errors
    /// When the write or the fsync fails (the command must then not run).
    pub fn mark(&mut self, event_id: &str) -> Result<(), LedgerError> {
        self.append(&format!("e {event_id}\n"))?;
        self.handled.insert(event_id.to_string());
        Ok(())
    }

    /// Records, durably, that every event up to `token` is handled.
    ///
    /// # Errors
    /// When the write or the fsync fails.
    pub fn advance(&mut self, token: &str) -> Result<(), LedgerError> {
        self.append(&format!("t {token}\n"))?;
        self.token = Some(token.to_string());
        self.handled.clear();
        Ok(())
    }

    fn append(&mut self, line: &str) -> Result<(), LedgerError> {
        let r = self
            .file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data());
        r.map_err(|source| LedgerError {
            path: self.path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_commands_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger");
        {
            let mut l = Ledger::open(&path).unwrap();
            assert_eq!(l.token(), None);
            l.mark("$a").unwrap();
            l.advance("s1").unwrap();
            l.mark("$b").unwrap();
            l.mark("$c").unwrap();
            assert!(l.is_handled("$b") && !l.is_handled("$a"));
        }
        let mut l = Ledger::open(&path).unwrap();
        assert_eq!(l.token(), Some("s1"));
        assert!(l.is_handled("$b") && l.is_handled("$c") && !l.is_handled("$a"));
        l.advance("s2").unwrap();
        drop(l);
        let l = Ledger::open(&path).unwrap();
        assert_eq!(l.token(), Some("s2"));
        assert!(!l.is_handled("$b"));
        // Compacted: one token line left.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "t s2\n");
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
