//! Reading the console's input safely: lines are read as bytes, with a hard cap.
//!
//! A line that is not UTF-8 is refused (and the console goes on); a line longer than
//! [`MAX_LINE`] bytes is skipped to its end without being kept, so a megabyte line costs no
//! memory and no parsing, and the refusal quotes only a short prefix.
//!
//! Standard input is read on a plain thread of its own, which hands lines over through a
//! channel: a blocking read then never keeps the console from quitting (on a signal, or at
//! the end of `main`, a thread blocked in `read` does not keep the process alive).

use std::io::BufRead;

use tokio::sync::mpsc;

/// The longest line the console accepts, in bytes: the core's limit on a command, so a line
/// is refused by one limit in one message whoever refuses it (issue 27).
pub const MAX_LINE: usize = bot_core::quote::MAX_COMMAND_BYTES;

/// One line of input, or why it was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    /// A line of text, without its line ending.
    Line(String),
    /// Not UTF-8.
    NotText {
        /// Where the first invalid byte is.
        at: usize,
    },
    /// Longer than [`MAX_LINE`].
    TooLong {
        /// Its length in bytes.
        bytes: usize,
        /// Its beginning, as text (as much as the refusal quotes).
        prefix: String,
    },
}

impl Input {
    /// What to tell the player about a refused line; `None` for a line of text.
    pub fn refusal(&self) -> Option<String> {
        match self {
            Input::Line(_) => None,
            Input::NotText { at } => Some(format!(
                "That line is not valid UTF-8 text (byte {} is not), so it was ignored: type \
                 commands as plain text.\n",
                at + 1
            )),
            Input::TooLong { bytes, prefix } => Some(format!(
                "{}\n",
                bot_core::quote::too_long(&bot_core::quote::Oversized {
                    bytes: *bytes,
                    head: prefix.clone(),
                })
            )),
        }
    }
}

/// Reads the next line of at most `cap` bytes from `reader`; `None` at the end of input.
/// The part of a longer line beyond `cap` is read and dropped, never kept.
///
/// # Errors
/// When reading fails.
pub fn next_line(reader: &mut impl BufRead, cap: usize) -> std::io::Result<Option<Input>> {
    let mut kept = Vec::new();
    let mut total = 0usize;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if total == 0 {
                return Ok(None);
            }
            break;
        }
        let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        let room = (cap + 1).saturating_sub(kept.len()).min(chunk.len());
        kept.extend_from_slice(&chunk[..room]);
        total += chunk.len();
        reader.consume(used);
        if done {
            break;
        }
    }
    if kept.last() == Some(&b'\r') && kept.len() == total {
        kept.pop();
        total -= 1;
    }
    if total > cap {
        let prefix = bot_core::quote::Oversized::of(&String::from_utf8_lossy(&kept)).head;
        return Ok(Some(Input::TooLong {
            bytes: total,
            prefix,
        }));
    }
    Ok(Some(match String::from_utf8(kept) {
        Ok(text) => Input::Line(text),
        Err(e) => Input::NotText {
            at: e.utf8_error().valid_up_to(),
        },
    }))
}

/// Lines read ahead of the console, at most.
pub const QUEUED: usize = 8;

/// Reads standard input on a thread of its own and sends each line; the channel closes at
/// the end of input (or on a read error, which is logged).
pub fn spawn_stdin() -> mpsc::Receiver<Input> {
    let (tx, rx) = mpsc::channel(QUEUED);
    let spawned = std::thread::Builder::new()
        .name("console-stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut reader = stdin.lock();
            loop {
                match next_line(&mut reader, MAX_LINE) {
                    Ok(Some(input)) => {
                        if tx.blocking_send(input).is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(e) => {
                        tracing::error!("cannot read standard input: {e}");
                        return;
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the input thread: {e}");
    }
    rx
}

#[cfg(test)]
mod tests {
    use std::io::BufReader;

    use super::*;

    fn all(bytes: &[u8], cap: usize) -> Vec<Input> {
        // A tiny buffer makes lines span many fills.
        let mut r = BufReader::with_capacity(3, bytes);
        let mut out = Vec::new();
        while let Some(i) = next_line(&mut r, cap).unwrap() {
            out.push(i);
        }
        out
    }

    #[test]
    fn lines_bad_bytes_and_long_lines() {
        let got = all(b"e4\r\n\xff\xfeboard\nabcdefghij\nlast", 8);
        assert_eq!(
            got,
            [
                Input::Line("e4".into()),
                Input::NotText { at: 0 },
                Input::TooLong {
                    bytes: 10,
                    prefix: "abcdefghi".into()
                },
                Input::Line("last".into()),
            ]
        );
        assert!(got[1].refusal().unwrap().contains("not valid UTF-8"));
        assert!(got[2].refusal().unwrap().contains("10 bytes long"));
        assert_eq!(all(b"", 8), []);
        assert_eq!(
            all(b"\n\n", 8),
            [Input::Line(String::new()), Input::Line(String::new())]
        );
        // Exactly the cap is fine, with or without a carriage return.
        assert_eq!(all(b"12345678\r\n", 8), [Input::Line("12345678".into())]);
    }

    #[test]
    fn a_megabyte_line_is_refused_with_a_short_quote_and_little_memory() {
        let mut big = vec![b'x'; 1 << 20];
        big.extend_from_slice(b"\nok\n");
        let got = all(&big, MAX_LINE);
        let Input::TooLong { bytes, prefix } = &got[0] else {
            panic!("{got:?}")
        };
        assert_eq!(*bytes, 1 << 20);
        assert_eq!(prefix.len(), bot_core::quote::QUOTE_CHARS + 1);
        assert!(got[0].refusal().unwrap().len() < 200);
        assert_eq!(got[1], Input::Line("ok".into()));
    }

    /// Issue 27: the console had two limits ("at most 500" from the core, "the 4096" from
    /// here); there is one, and one message for it.
    #[test]
    fn the_console_and_the_core_state_one_limit_in_one_message() {
        let line = "x".repeat(5000);
        let got = all(format!("{line}\n").as_bytes(), MAX_LINE);
        let core = bot_core::quote::too_long(&bot_core::quote::Oversized::of(&line));
        assert_eq!(got[0].refusal().unwrap().trim_end(), core);
        // A line between the two old limits is refused by the console in the same words.
        let line = "y".repeat(600);
        let got = all(format!("{line}\n").as_bytes(), MAX_LINE);
        let core = bot_core::quote::too_long(&bot_core::quote::Oversized::of(&line));
        assert_eq!(got[0].refusal().unwrap().trim_end(), core);
    }
}
