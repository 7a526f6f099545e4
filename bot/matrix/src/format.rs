//! The core's replies as Matrix messages: a plain body and an HTML body with mention pills,
//! the users to notify (`m.mentions`), and the reactions that answer the reply's questions.
//!
//! Pure functions; the adapter resolves display names before calling them.

use std::collections::HashMap;

use bot_core::{
    command,
    model::PlayerId,
    reply::{Action, Reply},
};

/// The key under which a message's reactions are stored in its event content. Clients ignore
/// unknown keys; the bot reads them back when someone reacts, so reactions keep working after
/// a restart without any state of its own.
pub const REACTIONS_KEY: &str = "org.fairybot.reactions";

/// Reaction keys offered for yes and no.
pub const YES: &str = "👍";
/// See [`YES`].
pub const NO: &str = "👎";

/// A reply, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The plain body (mentions as display names, commands with the prefix).
    pub plain: String,
    /// The HTML body (`org.matrix.custom.html`): pills for mentions, `<code>` for commands.
    pub html: String,
    /// The user ids to notify.
    pub mentions: Vec<String>,
    /// Reaction key → the command it stands for (its text alternative, without prefix).
    pub reactions: Vec<(String, String)>,
}

/// The commands a reply's questions can be answered with: `(yes, no)` per action.
pub fn answers(action: &Action) -> (String, String) {
    match action {
        Action::AnswerChallenge(id) => (format!("accept {id}"), format!("decline {id}")),
        Action::AnswerDraw(g) => (format!("draw accept #{g}"), format!("draw decline #{g}")),
        Action::AnswerTakeback(g) => (
            format!("takeback accept #{g}"),
            format!("takeback decline #{g}"),
        ),
    }
}

/// A reaction key without its emoji presentation selector and skin tone, so that `👍️`
/// (Element's quick reaction) and `👍🏽` count as `👍`.
pub fn normalise_key(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '\u{FE0F}' && !('\u{1F3FB}'..='\u{1F3FF}').contains(c))
        .collect()
}

/// The most characters a message shows. The core's replies are short; a longer one (a bug, or
/// user text the core did not cut) is cut here, with a note, so no event nears Matrix's 64 KiB
/// limit or floods a room. With every character escaped, 4,000 stay under 40 KiB.
pub const MAX_CHARS: usize = 4_000;

/// One piece of a reply's text, read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Ordinary text.
    Text(String),
    /// A code span's content (a command, a move, quoted user text).
    Code(String),
    /// A mentioned player: their user id and display name.
    Mention { user: String, name: String },
}

/// Builds the message for a reply. `names` maps mentioned players to display names (the user
/// id is used for the others); `prefix` is put before every command quoted in the text, so
/// what the bot suggests can be typed as it is.
///
/// The text is read as the core writes it: `{N}` for the N-th mention, and code spans as in
/// CommonMark (delimited by a run of N backticks, closed by the next run of exactly N, so a
/// span may contain shorter runs; a run without its closing run is text). Whatever the text
/// holds, the HTML body is well-formed, its only tags are `<a href>`, `<code>` and `<br>`,
/// and what it shows is exactly the plain body; a message longer than [`MAX_CHARS`] is cut.
/// A reply's table follows: aligned lines in the plain body, a `<table>` of escaped cells in
/// the HTML one.
pub fn message(reply: &Reply, prefix: &str, names: &HashMap<PlayerId, String>) -> Message {
    let name = |p: &PlayerId| names.get(p).cloned().unwrap_or_else(|| p.user.clone());
    let mut segments = Vec::new();
    let mut text = String::new();
    let mut rest = reply.text.as_str();
    let flush = |text: &mut String, segments: &mut Vec<Segment>| {
        if !text.is_empty() {
            segments.push(Segment::Text(std::mem::take(text)));
        }
    };
    while !rest.is_empty() {
        if let Some((index, after)) = placeholder(rest)
            && let Some(p) = reply.mentions.get(index)
        {
            flush(&mut text, &mut segments);
            segments.push(Segment::Mention {
                user: p.user.clone(),
                name: name(p),
            });
            rest = after;
            continue;
        }
        if rest.starts_with('`') {
            let run = rest.len() - rest.trim_start_matches('`').len();
            let after = &rest[run..];
            match closing_run(after, run) {
                Some(end) => {
                    flush(&mut text, &mut segments);
                    let code = code_content(&after[..end]);
                    segments.push(Segment::Code(prefixed(&code, prefix)));
                    rest = &after[end + run..];
                }
                None => {
                    // No closing run: the backticks are text.
                    text.push_str(&rest[..run]);
                    rest = after;
                }
            }
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        text.push(c);
        rest = &rest[c.len_utf8()..];
    }
    flush(&mut text, &mut segments);
    let mut reactions = Vec::new();
    for action in &reply.actions {
        let (yes, no) = answers(action);
        reactions.push((YES.to_string(), yes));
        reactions.push((NO.to_string(), no));
    }
    let hint = (!reactions.is_empty())
        .then(|| Segment::Text(format!("\nReact {YES} to accept or {NO} to decline.")));
    let segments = cut(segments, hint);
    let (mut plain, mut html) = render(&segments);
    if let Some(table) = &reply.table {
        plain.push('\n');
        plain.push_str(&table.aligned());
        html.push_str(&table_html(table));
    }
    let mut mentions: Vec<String> = reply.mentions.iter().map(|p| p.user.clone()).collect();
    mentions.sort();
    mentions.dedup();
    Message {
        plain,
        html,
        mentions,
        reactions,
    }
}

/// Where the run of exactly `n` backticks that closes a code span starts in `s`, if any.
fn closing_run(s: &str, n: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let len = bytes[i..].iter().take_while(|b| **b == b'`').count();
            if len == n {
                return Some(i);
            }
            i += len;
        } else {
            i += 1;
        }
    }
    None
}

/// A code span's content as CommonMark shows it: line breaks as spaces, and one space
/// stripped from each end when both ends have one (so `` `` `a` `` `` shows `` `a` ``).
fn code_content(raw: &str) -> String {
    let flat: String = raw
        .replace("\r\n", " ")
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.len() >= 2 && flat.starts_with(' ') && flat.ends_with(' ') && flat.trim() != "" {
        flat[1..flat.len() - 1].to_string()
    } else {
        flat
    }
}

/// The segments cut to [`MAX_CHARS`] shown characters with a note saying so, then the hint
/// (which is never cut: it says how to answer).
fn cut(segments: Vec<Segment>, hint: Option<Segment>) -> Vec<Segment> {
    let shown = |s: &Segment| match s {
        Segment::Text(t) | Segment::Code(t) => t.chars().count(),
        Segment::Mention { name, .. } => name.chars().count(),
    };
    let total: usize = segments.iter().map(shown).sum();
    let mut out = Vec::with_capacity(segments.len() + 2);
    if total <= MAX_CHARS {
        out = segments;
    } else {
        let note =
            format!(" […] (cut: the reply had {total} characters; I show at most {MAX_CHARS})");
        let mut budget = MAX_CHARS.saturating_sub(note.chars().count());
        for s in segments {
            let n = shown(&s);
            if n <= budget {
                budget -= n;
                out.push(s);
                continue;
            }
            let head = |t: &str| t.chars().take(budget).collect::<String>();
            match &s {
                Segment::Text(t) if budget > 0 => out.push(Segment::Text(head(t))),
                Segment::Code(t) if budget > 0 => out.push(Segment::Code(head(t))),
                _ => {}
            }
            break;
        }
        out.push(Segment::Text(note));
    }
    out.extend(hint);
    out
}

/// One shown character of a message, or a break between lines.
#[derive(Clone, Copy)]
enum Shown {
    Char(char),
    Break,
}

/// The plain and the HTML body of the segments. Characters HTML cannot show as they are
/// become what it shows: `\r\n`, `\r` a line break, a tab a space, other control characters
/// U+FFFD. Every space that HTML would collapse or drop (leading, trailing, or next to another
/// space) is written `&nbsp;`, so the HTML shows exactly the plain body.
fn render(segments: &[Segment]) -> (String, String) {
    // The markup around runs of shown characters: (position in `shown`, tag).
    let mut shown: Vec<Shown> = Vec::new();
    let mut tags: Vec<(usize, String)> = Vec::new();
    let push_text = |t: &str, breaks: bool, shown: &mut Vec<Shown>| {
        let mut chars = t.chars().peekable();
        while let Some(c) = chars.next() {
            shown.push(match c {
                '\r' if chars.peek() == Some(&'\n') => continue,
                '\n' | '\r' | '\u{2028}' | '\u{2029}' if breaks => Shown::Break,
                '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\t' => Shown::Char(' '),
                c if c.is_control() => Shown::Char('\u{FFFD}'),
                c => Shown::Char(c),
            });
        }
    };
    for s in segments {
        match s {
            Segment::Text(t) => push_text(t, true, &mut shown),
            Segment::Code(t) => {
                tags.push((shown.len(), "<code>".into()));
                push_text(t, false, &mut shown);
                tags.push((shown.len(), "</code>".into()));
            }
            Segment::Mention { user, name } => {
                tags.push((
                    shown.len(),
                    format!("<a href=\"https://matrix.to/#/{}\">", escape(user)),
                ));
                push_text(name, false, &mut shown);
                tags.push((shown.len(), "</a>".into()));
            }
        }
    }
    let is_space = |i: Option<&Shown>| !matches!(i, Some(Shown::Char(c)) if *c != ' ');
    let mut plain = String::new();
    let mut html = String::new();
    let mut tag = tags.iter().peekable();
    for (i, s) in shown.iter().enumerate() {
        while let Some((_, t)) = tag.next_if(|(at, _)| *at == i) {
            html.push_str(t);
        }
        match s {
            Shown::Break => {
                plain.push('\n');
                html.push_str("<br>");
            }
            Shown::Char(' ') => {
                plain.push(' ');
                let lone = i > 0 && !is_space(shown.get(i - 1)) && !is_space(shown.get(i + 1));
                html.push_str(if lone { " " } else { "&nbsp;" });
            }
            Shown::Char(c) => {
                plain.push(*c);
                escape_into(*c, &mut html);
            }
        }
    }
    for (_, t) in tag {
        html.push_str(t);
    }
    (plain, html)
}

/// A table as HTML: a header row and a row per row, every cell escaped (names are the
/// players' own).
fn table_html(table: &bot_core::reply::Table) -> String {
    let row = |cells: &[String], tag: &str| {
        let cells: String = cells
            .iter()
            .map(|c| format!("<{tag}>{}</{tag}>", escape(c)))
            .collect();
        format!("<tr>{cells}</tr>")
    };
    let mut html = String::from("<table>");
    html.push_str(&row(&table.columns, "th"));
    for r in &table.rows {
        html.push_str(&row(r, "td"));
    }
    html.push_str("</table>");
    html
}

/// `{N}` at the start of `s`: the index and what follows.
fn placeholder(s: &str) -> Option<(usize, &str)> {
    let inner = s.strip_prefix('{')?;
    let end = inner.find('}')?;
    let index = inner[..end].parse().ok()?;
    Some((index, &inner[end + 1..]))
}

/// A quoted command gets the prefix (`accept 3` → `!fb accept 3`); other code stays.
fn prefixed(code: &str, prefix: &str) -> String {
    let first = code.split_whitespace().next().unwrap_or("");
    if !prefix.is_empty() && command::names().contains(&first) {
        format!("{prefix} {code}")
    } else {
        code.to_string()
    }
}

/// Escapes text for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        escape_into(c, &mut out);
    }
    out
}

fn escape_into(c: char, out: &mut String) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&#39;"),
        c => out.push(c),
    }
}

/// The width and height of a PNG, from its header.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn tables_become_html_tables_with_escaped_cells_and_aligned_plain_lines() {
        let reply = Reply::actor("Leaderboard:").with_table(bot_core::reply::Table {
            columns: vec!["#".into(), "Player".into()],
            rows: vec![vec!["#1".into(), "<b>eve</b> & co".into()]],
        });
        let m = message(&reply, "!fb ", &HashMap::new());
        assert_eq!(m.plain, "Leaderboard:\n#   Player\n#1  <b>eve</b> & co");
        assert!(m.html.ends_with(
            "<table><tr><th>#</th><th>Player</th></tr>\
             <tr><td>#1</td><td>&lt;b&gt;eve&lt;/b&gt; &amp; co</td></tr></table>"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bot_core::model::{GameId, Platform};
    use proptest::prelude::*;

    fn alice() -> PlayerId {
        PlayerId::new(Platform::Matrix, "@alice:example.org")
    }

    fn bob() -> PlayerId {
        PlayerId::new(Platform::Matrix, "@bob:example.org")
    }

    #[test]
    fn mentions_become_pills_and_commands_get_the_prefix() {
        let reply = Reply::room(
            "{0} challenges {1} to Chess (challenge 3). {1}: type `accept 3` or `decline 3`.",
        )
        .mention(alice())
        .mention(bob())
        .with_action(Action::AnswerChallenge(3));
        let names = HashMap::from([(alice(), "Alice <A>".to_string())]);
        let m = message(&reply, "!fb", &names);
        assert_eq!(
            m.plain,
            "Alice <A> challenges @bob:example.org to Chess (challenge 3). @bob:example.org: \
             type !fb accept 3 or !fb decline 3.\nReact 👍 to accept or 👎 to decline."
        );
        assert!(
            m.html.starts_with(
                "<a href=\"https://matrix.to/#/@alice:example.org\">Alice &lt;A&gt;</a> challenges \
                 <a href=\"https://matrix.to/#/@bob:example.org\">@bob:example.org</a>"
            ),
            "{}",
            m.html
        );
        assert!(m.html.contains("<code>!fb accept 3</code>"), "{}", m.html);
        assert!(m.html.ends_with("<br>React 👍 to accept or 👎 to decline."));
        assert_eq!(m.mentions, ["@alice:example.org", "@bob:example.org"]);
        assert_eq!(
            m.reactions,
            [
                ("👍".to_string(), "accept 3".to_string()),
                ("👎".to_string(), "decline 3".to_string())
            ]
        );
    }

    #[test]
    fn other_code_and_lists_stay_readable() {
        let reply = Reply::actor("Variants I play:\n- `chess`: Chess\n  e2e4 <b>");
        let m = message(&reply, "!fb", &HashMap::new());
        assert_eq!(m.plain, "Variants I play:\n- chess: Chess\n  e2e4 <b>");
        assert_eq!(
            m.html,
            "Variants I play:<br>- <code>chess</code>: Chess<br>&nbsp;&nbsp;e2e4 &lt;b&gt;"
        );
        assert!(m.mentions.is_empty() && m.reactions.is_empty());
    }

    #[test]
    fn every_action_has_typed_answers() {
        assert_eq!(
            answers(&Action::AnswerDraw(GameId(7))),
            ("draw accept #7".into(), "draw decline #7".into())
        );
        assert_eq!(
            answers(&Action::AnswerTakeback(GameId(7))).1,
            "takeback decline #7"
        );
        for a in [
            Action::AnswerChallenge(1),
            Action::AnswerDraw(GameId(2)),
            Action::AnswerTakeback(GameId(3)),
        ] {
            let (yes, no) = answers(&a);
            assert!(command::parse(&yes).is_ok() && command::parse(&no).is_ok());
        }
    }

    #[test]
    fn reaction_keys_are_normalised() {
        assert_eq!(normalise_key("👍\u{FE0F}"), YES);
        assert_eq!(normalise_key("👍🏽"), YES);
        assert_eq!(normalise_key("👎"), NO);
    }

    #[test]
    fn png_sizes_are_read_from_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&640u32.to_be_bytes());
        png.extend_from_slice(&480u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((640, 480)));
        assert_eq!(png_size(b"GIF89a"), None);
    }

    /// What an HTML body shows, read as a browser would: only `<a href="https://matrix.to/…">`,
    /// `<code>` and `<br>` are allowed, balanced and not nested in themselves; the only
    /// entities are the five escapes and `&nbsp;`; runs of white space collapse, and white
    /// space at the start and end of a line vanishes. Panics on anything else (an injected
    /// tag, a stray `>` or `&`, an unclosed element).
    fn shown(html: &str) -> String {
        let mut lines = vec![String::new()];
        let mut open: Vec<&str> = Vec::new();
        let mut rest = html;
        let mut pending_space = false;
        while let Some(c) = rest.chars().next() {
            let line = lines.last_mut().unwrap();
            match c {
                '<' => {
                    let end = rest
                        .find('>')
                        .unwrap_or_else(|| panic!("unclosed tag: {html}"));
                    let tag = &rest[..=end];
                    rest = &rest[end + 1..];
                    match tag {
                        "<br>" => {
                            lines.push(String::new());
                            pending_space = false;
                        }
                        "<code>" | "</code>" | "</a>" => {
                            let name = tag.trim_matches(['<', '>', '/']);
                            if tag.starts_with("</") {
                                assert_eq!(open.pop(), Some(name), "unbalanced {tag}: {html}");
                            } else {
                                assert!(!open.contains(&name), "nested {tag}: {html}");
                                open.push(name);
                            }
                        }
                        t if t.starts_with("<a href=\"https://matrix.to/#/") => {
                            let url = &t["<a href=\"".len()..t.len() - 2];
                            assert!(t.ends_with("\">") && !url.contains(['"', '<']), "{t}");
                            assert!(!open.contains(&"a"), "nested link: {html}");
                            open.push("a");
                        }
                        t => panic!("tag {t:?} injected: {html}"),
                    }
                    continue;
                }
                '&' => {
                    let end = rest.find(';').unwrap_or_else(|| panic!("bare &: {html}"));
                    let decoded = match &rest[..=end] {
                        "&amp;" => '&',
                        "&lt;" => '<',
                        "&gt;" => '>',
                        "&quot;" => '"',
                        "&#39;" => '\'',
                        // Shown as a space that does not collapse.
                        "&nbsp;" => ' ',
                        e => panic!("entity {e:?}: {html}"),
                    };
                    if pending_space && !line.is_empty() {
                        line.push(' ');
                    }
                    pending_space = false;
                    line.push(decoded);
                    rest = &rest[end + 1..];
                    continue;
                }
                '>' | '"' => panic!("unescaped {c:?}: {html}"),
                ' ' | '\t' | '\n' | '\r' | '\u{C}' => pending_space = true,
                c => {
                    assert!(!c.is_control(), "control character {c:?}: {html}");
                    if pending_space && !line.is_empty() {
                        line.push(' ');
                    }
                    pending_space = false;
                    line.push(c);
                }
            }
            rest = &rest[c.len_utf8()..];
        }
        assert!(open.is_empty(), "unclosed {open:?}: {html}");
        lines.join("\n")
    }

    /// A code span around `text` as CommonMark writes one (and as the core quotes user text):
    /// a fence longer than any run of backticks inside, and a space on each side when the
    /// text starts or ends with a backtick or a space.
    fn quote(text: &str) -> String {
        let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let fence = "`".repeat(longest + 1);
        let edge = |c: Option<char>| c.is_some_and(|c| c == '`' || c.is_whitespace());
        let pad = if text.chars().all(char::is_whitespace) {
            ""
        } else if edge(text.chars().next()) || edge(text.chars().last()) {
            " "
        } else {
            ""
        };
        format!("{fence}{pad}{text}{pad}{fence}")
    }

    /// Characters that matter to the formatter, often.
    fn tricky() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "`",
            "``",
            "{",
            "}",
            "{0}",
            "{1}",
            "{7}",
            "<",
            ">",
            "&",
            "&amp;",
            "\"",
            "'",
            "*",
            "_",
            "\n",
            "\r\n",
            "\r",
            "\t",
            " ",
            "  ",
            "a",
            "Nf3",
            "board",
            "help",
            "é",
            "👍",
            "\u{0}",
            "\u{1b}[2J",
            "\u{2028}",
            "<b>",
            "</code>",
            "<br>",
            "&nbsp;",
        ]);
        prop_oneof![
            prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat()),
            any::<String>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// Whatever the core's text and the players' names hold, the HTML body is well-formed
        /// with no tag of its own, and shows exactly the plain body.
        #[test]
        fn any_text_gives_balanced_html_that_shows_the_plain_body(
            text in tricky(),
            names in prop::collection::vec(tricky(), 0..3),
            question in any::<bool>(),
        ) {
            let players: Vec<PlayerId> = (0..names.len())
                .map(|i| PlayerId::new(Platform::Matrix, format!("@p{i}\"<x>:example.org")))
                .collect();
            let mut reply = Reply::room(text);
            for p in &players {
                reply = reply.mention(p.clone());
            }
            if question {
                reply = reply.with_action(Action::AnswerChallenge(3));
            }
            let names: HashMap<PlayerId, String> = players.into_iter().zip(names).collect();
            let m = message(&reply, "!fb", &names);
            prop_assert_eq!(shown(&m.html), m.plain.clone(), "html: {}", m.html);
            prop_assert!(m.plain.chars().count() <= MAX_CHARS + 60, "{}", m.plain.len());
        }

        /// User text quoted by the core is one code span, shown as typed (line breaks as
        /// spaces), and the command hint after it keeps its prefix.
        #[test]
        fn quoted_user_text_stays_inside_its_code_span(user in tricky()) {
            prop_assume!(!user.is_empty() && user.chars().count() < 200);
            let text = format!("{} is not a move. Type `help move` to learn how.", quote(&user));
            let m = message(&Reply::actor(text), "!fb", &HashMap::new());
            let typed: String = user
                .replace("\r\n", " ")
                .chars()
                .map(|c| match c {
                    '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => ' ',
                    c if c.is_control() => '\u{FFFD}',
                    c => c,
                })
                .collect();
            // Quoted text that starts with a command's name reads as that command, with the
            // prefix (what the core quotes is something to type).
            let shown_code = prefixed(&typed, "!fb");
            prop_assert!(
                m.plain.starts_with(&format!("{shown_code} is not a move.")),
                "{}",
                m.plain
            );
            prop_assert!(m.plain.ends_with("Type !fb help move to learn how."), "{}", m.plain);
            prop_assert!(
                m.html.ends_with("Type <code>!fb help move</code> to learn how."),
                "{}",
                m.html
            );
            prop_assert_eq!(m.html.matches("<code>").count(), 2, "{}", m.html);
            prop_assert_eq!(shown(&m.html), m.plain);
        }
    }

    #[test]
    fn a_backtick_in_a_move_neither_breaks_the_html_nor_the_hint() {
        let text = format!(
            "{} is not a move. Type `help move` to learn how.",
            quote("Nf3`")
        );
        assert_eq!(
            text,
            "`` Nf3` `` is not a move. Type `help move` to learn how."
        );
        let m = message(&Reply::actor(text), "!fb", &HashMap::new());
        assert_eq!(
            m.plain,
            "Nf3` is not a move. Type !fb help move to learn how."
        );
        assert_eq!(
            m.html,
            "<code>Nf3`</code> is not a move. Type <code>!fb help move</code> to learn how."
        );
        // A lone backtick with no closing run is text, and the span after it still reads.
        let m = message(
            &Reply::actor("Nf3`` x. Type `board`."),
            "!fb",
            &HashMap::new(),
        );
        assert_eq!(m.plain, "Nf3`` x. Type !fb board.");
    }

    #[test]
    fn long_replies_are_cut_with_a_note_and_keep_their_question() {
        let reply = Reply::room(format!("`{}` {}", "x".repeat(5_000), "<&>".repeat(500)))
            .with_action(Action::AnswerChallenge(1));
        let m = message(&reply, "!fb", &HashMap::new());
        let shown_chars = m.plain.chars().count();
        assert!(shown_chars <= MAX_CHARS + 60, "{shown_chars}");
        assert!(
            m.plain.contains("(cut: the reply had 6501 characters"),
            "{}",
            &m.plain[3_900..]
        );
        assert!(m.plain.ends_with("React 👍 to accept or 👎 to decline."));
        assert_eq!(shown(&m.html), m.plain);
        assert!(m.html.len() < 40_000, "{}", m.html.len());
        // Short replies are untouched.
        let m = message(&Reply::room("x".repeat(MAX_CHARS)), "!fb", &HashMap::new());
        assert_eq!(m.plain, "x".repeat(MAX_CHARS));
    }

    #[test]
    fn spaces_html_would_collapse_are_kept() {
        let m = message(&Reply::room("  a  b \n\tc "), "!fb", &HashMap::new());
        assert_eq!(m.plain, "  a  b \n c ");
        assert_eq!(m.html, "&nbsp;&nbsp;a&nbsp;&nbsp;b&nbsp;<br>&nbsp;c&nbsp;");
    }
}
