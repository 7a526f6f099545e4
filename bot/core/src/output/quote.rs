//! Limits on what users type, and how it is shown back: commands are capped in length, user
//! text is quoted through [`rules::quote`] (a code span that cannot change the markup around
//! it), and display names are made printable.

pub use rules::quote::{QUOTE_CHARS, quote, visible};

/// The longest command the bot reads, in bytes. Nothing the grammar accepts comes close
/// (the longest real command, a challenge with a Matrix id and options, is under 200), and
/// everything downstream is linear in the length up to this cap.
pub const MAX_COMMAND_BYTES: usize = 500;

/// The longest display name kept, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// A display name as players will see it: control characters removed, runs of white space
/// folded to one space, trimmed, at most [`MAX_NAME_CHARS`] characters. `None` when nothing
/// printable is left (the caller falls back to the platform's user id).
pub fn display_name(raw: &str) -> Option<String> {
    let mut out = String::new();
    let mut space = false;
    for c in raw.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if rules::quote::is_hazard(c) {
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
        if out.chars().count() >= MAX_NAME_CHARS {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A text too long to be a command: its length and only as much of it as a refusal quotes,
/// so an error value never holds the megabyte it refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Oversized {
    /// The length in bytes.
    pub bytes: usize,
    /// The first [`QUOTE_CHARS`] characters and one more (so the quote shows the cut).
    pub head: String,
}

impl Oversized {
    /// Measures `text` and keeps its beginning.
    pub fn of(text: &str) -> Oversized {
        let cut = text
            .char_indices()
            .nth(QUOTE_CHARS + 1)
            .map_or(text.len(), |(i, _)| i);
        Oversized {
            bytes: text.len(),
            head: text[..cut].to_string(),
        }
    }
}

/// The refusal for a text over [`MAX_COMMAND_BYTES`]: how long, what it began with, and what
/// to do.
pub fn too_long(o: &Oversized) -> String {
    format!(
        "That message is {} bytes long; a command is at most {MAX_COMMAND_BYTES}. It began {}. \
         Type `help` for the commands.",
        o.bytes,
        quote(&o.head)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_a_long_text_is_short() {
        let long = "x".repeat(1_000_000);
        let refusal = too_long(&Oversized::of(&long));
        assert!(refusal.len() < 200, "{refusal}");
        assert!(refusal.contains("1000000 bytes"), "{refusal}");
    }

    #[test]
    fn names_are_printable_and_short() {
        assert_eq!(
            display_name("  alice \n smith "),
            Some("alice smith".into())
        );
        assert_eq!(display_name("\u{1b}[31mred"), Some("[31mred".into()));
        assert_eq!(display_name("\n\t "), None);
        assert_eq!(display_name(""), None);
        assert_eq!(
            display_name(&"n".repeat(500)).unwrap().chars().count(),
            MAX_NAME_CHARS
        );
    }
}
