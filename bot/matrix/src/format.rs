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

/// Builds the message for a reply. `names` maps mentioned players to display names (the user
/// id is used for the others); `prefix` is put before every command quoted in the text, so
/// what the bot suggests can be typed as it is.
pub fn message(reply: &Reply, prefix: &str, names: &HashMap<PlayerId, String>) -> Message {
    let name = |p: &PlayerId| names.get(p).cloned().unwrap_or_else(|| p.user.clone());
    let mut plain = String::new();
    let mut html = String::new();
    let mut rest = reply.text.as_str();
    // Walk the text: `{N}` placeholders, `code` spans, and ordinary text.
    while !rest.is_empty() {
        if let Some((index, after)) = placeholder(rest)
            && let Some(p) = reply.mentions.get(index)
        {
            let n = name(p);
            plain.push_str(&n);
            html.push_str(&format!(
                "<a href=\"https://matrix.to/#/{}\">{}</a>",
                escape(&p.user),
                escape(&n)
            ));
            rest = after;
            continue;
        }
        if let Some(inner) = rest.strip_prefix('`')
            && let Some(end) = inner.find('`')
        {
            let code = prefixed(&inner[..end], prefix);
            plain.push('`');
            plain.push_str(&code);
            plain.push('`');
            html.push_str("<code>");
            html.push_str(&escape(&code));
            html.push_str("</code>");
            rest = &inner[end + 1..];
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        plain.push(c);
        html.push_str(&escape(&c.to_string()));
        rest = &rest[c.len_utf8()..];
    }
    let mut reactions = Vec::new();
    for action in &reply.actions {
        let (yes, no) = answers(action);
        reactions.push((YES.to_string(), yes));
        reactions.push((NO.to_string(), no));
    }
    if !reactions.is_empty() {
        let hint = format!("\nReact {YES} to accept or {NO} to decline.");
        plain.push_str(&hint);
        html.push_str(&escape(&hint));
    }
    let mut mentions: Vec<String> = reply.mentions.iter().map(|p| p.user.clone()).collect();
    mentions.sort();
    mentions.dedup();
    Message {
        plain,
        html: lines_to_html(&html),
        mentions,
        reactions,
    }
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

/// Line breaks as `<br>`, leading spaces kept (lists are indented).
fn lines_to_html(html: &str) -> String {
    html.split('\n')
        .map(|line| {
            let trimmed = line.trim_start_matches(' ');
            let indent = line.len() - trimmed.len();
            format!("{}{trimmed}", "&nbsp;".repeat(indent))
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// Escapes text for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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
mod tests {
    use super::*;
    use bot_core::model::{GameId, Platform};

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
             type `!fb accept 3` or `!fb decline 3`.\nReact 👍 to accept or 👎 to decline."
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
        assert_eq!(m.plain, "Variants I play:\n- `chess`: Chess\n  e2e4 <b>");
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
}
