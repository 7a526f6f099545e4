//! The named consoles' mailboxes: how two terminals on one data directory tell each other
//! what the other player must see, without either printing the other's secrets.
//!
//! Each player named with `--as` has an append-only file `<data>/console/<NAME>.mailbox`.
//! A console that produces a line for another player (his private report, a room announcement
//! of the shared `console` room) appends it there, as one write, and fsyncs it: a line once
//! handed over is not lost by a crash. The owner's console prints what is new before each
//! prompt and while it waits for input, and remembers how far it has read in
//! `<NAME>.read` (so lines that arrive while it is not running are printed at its next start,
//! once).
//!
//! The players of the room are those who have a mailbox: a console creates its own when it
//! starts, and a private line creates its addressee's.

use std::{
    fs::OpenOptions,
    io::{Read, Seek, SeekFrom, Write},
    os::unix::fs::{OpenOptionsExt, PermissionsExt},
    path::{Path, PathBuf},
};

/// A player's mailbox and read mark are his alone: readable and writable by their owner only
/// (issue 27), also a file created before with wider permissions.
fn private(file: &std::fs::File) -> std::io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
}

/// Mail as it is printed: no control characters but line ends, no direction overrides, so
/// no line another console wrote can drive this terminal.
fn printable(text: &str) -> String {
    text.chars()
        .filter(|&c| c == '\n' || !rules::quote::is_hazard(c))
        .collect()
}

/// The mailbox directory of a data directory.
#[derive(Debug, Clone)]
pub struct Mailboxes {
    dir: PathBuf,
}

/// A problem with a mailbox file: the file and what the system said.
pub type MailboxError = anyhow::Error;

impl Mailboxes {
    /// The mailboxes under `data_dir/console`.
    pub fn new(data_dir: &Path) -> Mailboxes {
        Mailboxes {
            dir: data_dir.join("console"),
        }
    }

    fn path(&self, user: &str, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", file_name(user)))
    }

    fn failed(path: &Path) -> impl FnOnce(std::io::Error) -> MailboxError + '_ {
        move |source| anyhow::anyhow!("console mailbox {}: {source}", path.display())
    }

    /// Makes `user` a player of the room: creates his mailbox if he has none.
    ///
    /// # Errors
    /// When the directory or the file cannot be created.
    pub fn join(&self, user: &str) -> Result<(), MailboxError> {
        std::fs::create_dir_all(&self.dir).map_err(Self::failed(&self.dir))?;
        let path = self.path(user, "mailbox");
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .map_err(Self::failed(&path))?;
        private(&file).map_err(Self::failed(&path))
    }

    /// Everyone with a mailbox.
    pub fn members(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut users: Vec<String> = entries
            .filter_map(|e| {
                let name = e.ok()?.file_name();
                let stem = name.to_str()?.strip_suffix(".mailbox")?.to_owned();
                user_name(&stem)
            })
            .collect();
        users.sort();
        users
    }

    /// Appends `text` (whole lines) to `user`'s mailbox, durably.
    ///
    /// # Errors
    /// When the mailbox cannot be written.
    pub fn deliver(&self, user: &str, text: &str) -> Result<(), MailboxError> {
        if text.is_empty() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(Self::failed(&self.dir))?;
        let path = self.path(user, "mailbox");
        let mut record = text.to_owned();
        if !record.ends_with('\n') {
            record.push('\n');
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .map_err(Self::failed(&path))?;
        private(&file).map_err(Self::failed(&path))?;
        // One write of an O_APPEND file: records of two consoles never interleave.
        file.write_all(record.as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(Self::failed(&path))
    }

    /// What arrived for `user` since he last read: whole lines only (a record being written
    /// right now is taken at the next call).
    ///
    /// # Errors
    /// When the mailbox or the read mark cannot be read or written.
    pub fn take(&self, user: &str) -> Result<String, MailboxError> {
        let path = self.path(user, "mailbox");
        let mark = self.path(user, "read");
        let mut file = match OpenOptions::new().read(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
            Err(e) => return Err(Self::failed(&path)(e)),
        };
        let read: u64 = std::fs::read_to_string(&mark)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let len = file.metadata().map_err(Self::failed(&path))?.len();
        if len <= read {
            return Ok(String::new());
        }
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(read))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(Self::failed(&path))?;
        let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
            return Ok(String::new());
        };
        bytes.truncate(end + 1);
        let next = read + bytes.len() as u64;
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&mark)
            .and_then(|mut f| {
                private(&f)?;
                f.write_all(next.to_string().as_bytes())
            })
            .map_err(Self::failed(&mark))?;
        Ok(printable(&String::from_utf8_lossy(&bytes)))
    }
}

/// A player name as a file name: letters, digits, `-` and `_` as they are, every other byte
/// as `%XX`, so that no name can reach outside the directory (`../x`, `/`) and the mapping
/// can be read back.
pub fn file_name(user: &str) -> String {
    let mut out = String::with_capacity(user.len());
    for b in user.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The player name of a file name made by [`file_name`].
fn user_name(file: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(file.len());
    let mut rest = file.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_safe_file_names_and_back() {
        for name in ["alice", "../etc/passwd", "a b", "ünï", "x%41"] {
            let f = file_name(name);
            assert!(!f.contains('/') && !f.contains('.'), "{f}");
            assert_eq!(user_name(&f).as_deref(), Some(name));
        }
    }

    #[test]
    fn lines_are_delivered_once_in_order_and_only_whole() {
        let dir = tempfile::tempdir().unwrap();
        let m = Mailboxes::new(dir.path());
        assert_eq!(m.take("bob").unwrap(), "");
        m.join("alice").unwrap();
        m.deliver("bob", "one").unwrap();
        m.deliver("bob", "two\nthree\n").unwrap();
        assert_eq!(m.members(), ["alice", "bob"]);
        assert_eq!(m.take("bob").unwrap(), "one\ntwo\nthree\n");
        assert_eq!(m.take("bob").unwrap(), "");
        // A record half written is left for later.
        let path = m.path("bob", "mailbox");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"four\nfi").unwrap();
        assert_eq!(m.take("bob").unwrap(), "four\n");
        f.write_all(b"ve\n").unwrap();
        assert_eq!(m.take("bob").unwrap(), "five\n");
        // Another console (a restart) reads on from the mark.
        m.deliver("bob", "six").unwrap();
        assert_eq!(Mailboxes::new(dir.path()).take("bob").unwrap(), "six\n");
        assert_eq!(m.take("alice").unwrap(), "");
    }
}
