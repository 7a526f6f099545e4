//! User text inside messages: quoted so that it cannot change the markup around it, and
//! short, so that a megabyte typed is not a megabyte echoed.
//!
//! Every message of this crate and of the bot is plain text with Markdown-style code spans
//! (`` `e2e4` ``), which the bot's adapters turn into Discord markdown, Matrix HTML or console
//! text. Anything a user typed is shown only through [`quote`]: a code span whose fence is
//! longer than any run of backticks inside it (CommonMark's rule, which Discord and the Matrix
//! formatter follow), with control characters made visible, so a backtick, an asterisk, a
//! newline or a terminal escape in a move cannot close the span, start a heading, or repaint
//! a console.

/// At most this many characters of user text are quoted back; the rest is cut with `…`.
pub const QUOTE_CHARS: usize = 40;

/// `text` as an inline code span for a reply, cut to [`QUOTE_CHARS`] characters.
///
/// ```
/// use rules::quote::quote;
/// assert_eq!(quote("e4"), "`e4`");
/// assert_eq!(quote("Nf3`"), "`` Nf3` ``");
/// assert_eq!(quote("a\nb"), "`a\u{240a}b`");
/// ```
pub fn quote(text: &str) -> String {
    let shown = visible(text, QUOTE_CHARS);
    let longest_run = shown.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    if shown.is_empty() {
        return "`\"\"`".into();
    }
    // CommonMark strips one space from each end of a span that begins and ends with one (and
    // is not all spaces), and needs a space between the fence and a backtick inside: pad
    // with one space exactly when either would otherwise change what is shown.
    let all_spaces = shown.chars().all(|c| c == ' ');
    let pad = shown.starts_with('`')
        || shown.ends_with('`')
        || (shown.starts_with(' ') && shown.ends_with(' ') && !all_spaces);
    if pad {
        format!("{fence} {shown} {fence}")
    } else {
        format!("{fence}{shown}{fence}")
    }
}

/// `text` cut to `max` characters (with `…`), its control and invisible formatting
/// characters replaced by visible stand-ins: line breaks by `␊`, tabs by a space, other
/// control characters (ESC, BEL, NUL…) and bidirectional overrides by `�`.
pub fn visible(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max * 4));
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        out.push(match c {
            '\n' | '\r' => '\u{240a}',
            '\t' => ' ',
            c if is_hazard(c) => '\u{fffd}',
            c => c,
        });
    }
    out
}

/// Characters that must never reach a terminal or a chat client as they are: C0 and C1
/// controls, and the Unicode formatting characters that reorder or hide text.
pub fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses the first code span of `s` as CommonMark does: a run of N backticks, then
    /// everything up to the next run of exactly N backticks. Returns the content and the text
    /// after the span.
    fn first_span(s: &str) -> Option<(String, &str)> {
        let start = s.find('`')?;
        let rest = &s[start..];
        let n = rest.chars().take_while(|c| *c == '`').count();
        let body = &rest[n..];
        let mut i = 0;
        let bytes = body.as_bytes();
        while i < bytes.len() {
            if bytes[i] == b'`' {
                let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
                if run == n {
                    let mut content = body[..i].to_string();
                    if content.starts_with(' ')
                        && content.ends_with(' ')
                        && !content.chars().all(|c| c == ' ')
                    {
                        content = content[1..content.len() - 1].to_string();
                    }
                    return Some((content, &body[i + run..]));
                }
                i += run;
            } else {
                i += 1;
            }
        }
        None
    }

    #[test]
    fn a_quote_is_one_span_whatever_the_text() {
        let cases = [
            "Nf3`",
            "`",
            "``",
            "a``b`",
            "`x`",
            "*bold* _it_",
            "<b>&amp;",
            "e4\n# heading",
            "",
            " ",
            "\u{1b}[2J",
            "x\u{202e}y",
        ];
        for t in cases {
            let q = quote(t);
            let (content, after) = first_span(&q).unwrap_or_else(|| panic!("{t:?} -> {q:?}"));
            assert_eq!(after, "", "{t:?} -> {q:?}: text after the span");
            if !t.is_empty() {
                assert_eq!(content, visible(t, QUOTE_CHARS), "{t:?} -> {q:?}");
            }
            assert!(!q.contains('\n') && !q.contains('\u{1b}'), "{q:?}");
        }
    }

    #[test]
    fn random_texts_quote_to_one_closed_span() {
        // A cheap generator over the characters that matter: backticks, spaces, markup.
        let alphabet = ['`', '`', ' ', 'a', '*', '\n', '<', '\\', 'é'];
        let mut x: u64 = 7;
        for _ in 0..5000 {
            let mut t = String::new();
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            for k in 0..(x >> 60) {
                t.push(alphabet[((x >> (k * 4)) % alphabet.len() as u64) as usize]);
            }
            let q = quote(&t);
            let (content, after) = first_span(&q).unwrap();
            assert_eq!(after, "", "{t:?} -> {q:?}");
            if !t.is_empty() {
                assert_eq!(content, visible(&t, QUOTE_CHARS), "{t:?} -> {q:?}");
            }
        }
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(1_000_000);
        let q = quote(&long);
        assert!(q.chars().count() < QUOTE_CHARS + 4, "{}", q.len());
        assert!(q.ends_with("…`"));
    }
}
