//! Which messages are commands, and the command text inside them.
//!
//! Matrix has no slash commands, so a message is a command when it starts with the prefix
//! (`!fb board`), when it starts by mentioning the bot (`fairybot: board`, or a mention pill,
//! which Element sends as a link to `https://matrix.to/#/@bot:server`), or when it is sent in a
//! direct room with the bot, where everything is addressed to it. Everything else is chatter
//! and is ignored, so a game room stays a normal room.
//!
//! Mention pills of other users become their user ids, so `!fb challenge Alice chess` with
//! "Alice" as a pill reaches the core as `challenge @alice:example.org chess`. A bare
//! `@alice` is completed with the bot's own server name.

/// How the bot recognises messages addressed to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The command prefix, for example `!fb` (compared case-insensitively).
    pub prefix: String,
    /// The bot's user id (`@fairybot:example.org`).
    pub bot: String,
    /// Names the bot answers to before a `:` or `,` (its display name, its localpart).
    pub names: Vec<String>,
}

impl Invocation {
    /// The command text of a message, or `None` when the message is not addressed to the bot.
    ///
    /// The command is read from `body`, the plain text every client shows: the formatted
    /// body may show something else entirely (a message showing "just chatting" whose plain
    /// body resigned a game, text hidden in a `<script>`), and a command must be what the
    /// players read. `html` (the `org.matrix.custom.html` formatted body, if any) only names
    /// the users its mention pills stand for: where the body shows a pill's display name,
    /// the command gets the user id. `private` whether the room is the sender's private
    /// channel with the bot (by its members, see [`crate::privacy`]): no prefix needed there.
    pub fn command(&self, body: &str, html: Option<&str>, private: bool) -> Option<String> {
        let mut text = strip_reply_fallback(body).to_string();
        if let Some(h) = html {
            text = replace_pills(&text, &pills(h));
        }
        let text = text.trim();
        let rest = self
            .strip_prefix(text)
            .or_else(|| self.strip_address(text))
            .or_else(|| private.then_some(text))?;
        let rest = rest.trim();
        if rest.is_empty() {
            // A bare prefix or mention: show help rather than staying silent.
            return Some("help".into());
        }
        Some(self.complete_user_ids(rest))
    }

    fn strip_prefix<'t>(&self, text: &'t str) -> Option<&'t str> {
        if self.prefix.is_empty() {
            return None;
        }
        let head = text.get(..self.prefix.len())?;
        let rest = &text[self.prefix.len()..];
        (head.eq_ignore_ascii_case(&self.prefix)
            && (rest.is_empty() || rest.starts_with(char::is_whitespace)))
        .then_some(rest)
    }

    /// `@bot:server …`, `@bot:server: …`, `Name: …`, `Name, …`.
    fn strip_address<'t>(&self, text: &'t str) -> Option<&'t str> {
        if let Some(rest) = text.strip_prefix(self.bot.as_str()) {
            let rest = rest.strip_prefix([':', ',']).unwrap_or(rest);
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                return Some(rest);
            }
        }
        for name in &self.names {
            if name.is_empty() {
                continue;
            }
            let Some(head) = text.get(..name.len()) else {
                continue;
            };
            let rest = &text[name.len()..];
            if head.eq_ignore_ascii_case(name)
                && let Some(rest) = rest.strip_prefix([':', ','])
            {
                return Some(rest);
            }
        }
        None
    }

    /// `@alice` → `@alice:server` (the bot's server), so people can type short names.
    fn complete_user_ids(&self, text: &str) -> String {
        let server = self.bot.split_once(':').map(|(_, s)| s).unwrap_or("");
        text.split(' ')
            .map(|w| {
                if server.is_empty() || !w.starts_with('@') || w.len() < 2 || w.contains(':') {
                    w.to_string()
                } else {
                    format!("{w}:{server}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The mention pills of a formatted body: (display text, user id), longest text first, the
/// reply fallback's left out.
fn pills(html: &str) -> Vec<(String, String)> {
    let mut rest = html;
    if let Some(start) = rest.find("<mx-reply>")
        && let Some(end) = rest.find("</mx-reply>")
        && end > start
    {
        rest = &rest[end + "</mx-reply>".len()..];
    }
    let mut out = Vec::new();
    while let Some(lt) = rest.find("<a") {
        rest = &rest[lt + 2..];
        let Some(gt) = rest.find('>') else { break };
        let tag = &rest[..gt];
        rest = &rest[gt + 1..];
        let Some(user) = pill_target(tag) else {
            continue;
        };
        let Some(end) = rest.to_ascii_lowercase().find("</a>") else {
            break;
        };
        let shown = html_to_text(&rest[..end]).trim().to_string();
        rest = &rest[end + 4..];
        if !shown.is_empty() {
            out.push((shown, user));
        }
    }
    out.sort_by_key(|(shown, _)| std::cmp::Reverse(shown.len()));
    out
}

/// The body with each pill's display text, where it stands as whole words, replaced by its
/// user id (`Alice` → `@alice:server`). Each occurrence is replaced once, left to right.
fn replace_pills(body: &str, pills: &[(String, String)]) -> String {
    if pills.is_empty() {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    'outer: while i < body.len() {
        let at_word_start = i == 0 || !body[..i].ends_with(char::is_alphanumeric);
        if at_word_start {
            for (shown, user) in pills {
                if body[i..].starts_with(shown.as_str()) {
                    let after = &body[i + shown.len()..];
                    if !after.starts_with(char::is_alphanumeric) {
                        out.push_str(user);
                        i += shown.len();
                        continue 'outer;
                    }
                }
            }
        }
        let c = body[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Removes a legacy reply fallback (`> <@a:b> quoted` lines and the blank line after them)
/// from a plain body.
fn strip_reply_fallback(body: &str) -> &str {
    if !body.starts_with("> ") {
        return body;
    }
    let mut rest = body;
    while let Some(line_end) = rest.find('\n') {
        let line = &rest[..line_end];
        if line.starts_with('>') {
            rest = &rest[line_end + 1..];
        } else {
            break;
        }
    }
    rest.trim_start_matches('\n')
}

/// The text of a formatted body: mention pills (`<a href="https://matrix.to/#/@u:s">Name</a>`)
/// become the user id, the reply fallback (`<mx-reply>`) is dropped, `<br>` and block ends
/// become line breaks, other tags vanish and entities are decoded.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    // Drop the reply fallback entirely.
    if let Some(start) = rest.find("<mx-reply>")
        && let Some(end) = rest.find("</mx-reply>")
        && end > start
    {
        out.push_str(&decode_entities(&rest[..start]));
        rest = &rest[end + "</mx-reply>".len()..];
    }
    while let Some(lt) = rest.find('<') {
        out.push_str(&decode_entities(&rest[..lt]));
        let Some(gt) = rest[lt..].find('>') else {
            // A lone `<`: keep it as text.
            out.push_str(&decode_entities(&rest[lt..]));
            rest = "";
            break;
        };
        let tag = &rest[lt + 1..lt + gt];
        rest = &rest[lt + gt + 1..];
        let name = tag
            .trim_start_matches('/')
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if name == "a"
            && !tag.starts_with('/')
            && let Some(user) = pill_target(tag)
        {
            // Replace the whole link (its text is the display name) by the user id.
            match rest.to_ascii_lowercase().find("</a>") {
                Some(end) => rest = &rest[end + 4..],
                None => rest = "",
            }
            out.push_str(&user);
            continue;
        }
        match name.as_str() {
            "br" | "p" | "div" | "li" | "tr" if tag.starts_with('/') || name == "br" => {
                out.push('\n')
            }
            _ => {}
        }
    }
    out.push_str(&decode_entities(rest));
    out.trim_end().to_string()
}

/// The user id a `matrix.to` (or `matrix:u/`) link points at, from the inside of an `<a …>`
/// tag; `None` for other links (rooms, events, the web).
fn pill_target(tag: &str) -> Option<String> {
    let at = tag.find("href=")?;
    let value = &tag[at + 5..];
    let value = match value.chars().next()? {
        q @ ('"' | '\'') => {
            let v = &value[1..];
            &v[..v.find(q)?]
        }
        _ => value.split_whitespace().next()?,
    };
    let user = if let Some(t) = value.strip_prefix("https://matrix.to/#/") {
        percent_decode(t.split(['?', '/']).next()?)
    } else if let Some(u) = value.strip_prefix("matrix:u/") {
        format!("@{}", percent_decode(u.split(['?', '#']).next()?))
    } else {
        return None;
    };
    (user.starts_with('@') && user.contains(':')).then_some(user)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest[..rest.len().min(10)].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" | "#39" => Some('\''),
            "nbsp" => Some(' '),
            e if e.starts_with("#x") || e.starts_with("#X") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32),
            e if e.starts_with('#') => e[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv() -> Invocation {
        Invocation {
            prefix: "!fb".into(),
            bot: "@fairybot:example.org".into(),
            names: vec!["fairybot".into(), "Fairy Bot".into()],
        }
    }

    #[test]
    fn the_prefix_starts_a_command() {
        let i = inv();
        assert_eq!(
            i.command("!fb board", None, false).as_deref(),
            Some("board")
        );
        assert_eq!(i.command("  !FB   e4 ", None, false).as_deref(), Some("e4"));
        assert_eq!(i.command("!fb", None, false).as_deref(), Some("help"));
        assert_eq!(i.command("!fbx board", None, false), None);
        assert_eq!(i.command("hello !fb board", None, false), None);
        assert_eq!(i.command("good game everyone", None, false), None);
    }

    #[test]
    fn mentioning_the_bot_starts_a_command() {
        let i = inv();
        assert_eq!(
            i.command("fairybot: board", None, false).as_deref(),
            Some("board")
        );
        assert_eq!(
            i.command("Fairy Bot, moves e2", None, false).as_deref(),
            Some("moves e2")
        );
        assert_eq!(
            i.command("@fairybot:example.org: games", None, false)
                .as_deref(),
            Some("games")
        );
        assert_eq!(i.command("fairybot is nice", None, false), None);
        // The pill Element sends: the body has the display name, the HTML the link.
        assert_eq!(
            i.command(
                "Fairy Bot: accept 3",
                Some(
                    r#"<a href="https://matrix.to/#/@fairybot:example.org">Fairy Bot</a>: accept 3"#
                ),
                false
            )
            .as_deref(),
            Some("accept 3")
        );
    }

    #[test]
    fn direct_rooms_need_no_prefix() {
        let i = inv();
        assert_eq!(i.command("board", None, true).as_deref(), Some("board"));
        assert_eq!(i.command("!fb board", None, true).as_deref(), Some("board"));
    }

    #[test]
    fn pills_become_user_ids_and_short_names_get_the_server() {
        let i = inv();
        assert_eq!(
            i.command(
                "!fb challenge Alice chess",
                Some(r#"!fb challenge <a href="https://matrix.to/#/%40alice%3Aother.org">Alice</a> chess"#),
                false
            )
            .as_deref(),
            Some("challenge @alice:other.org chess")
        );
        assert_eq!(
            i.command("!fb challenge @bob toulousain", None, false)
                .as_deref(),
            Some("challenge @bob:example.org toulousain")
        );
    }

    /// Issue 27: the command is what the players read, the plain body; the formatted body
    /// can show something else, or hide text in markup clients never show.
    #[test]
    fn the_command_is_read_from_the_body_not_the_formatted_body() {
        let i = inv();
        assert_eq!(
            i.command("just chatting", Some("!fb resign"), false),
            None,
            "a message showing `just chatting` is no command"
        );
        assert_eq!(
            i.command(
                "!fb board",
                Some("just chatting<script>!fb resign</script>"),
                false
            )
            .as_deref(),
            Some("board")
        );
        assert_eq!(
            i.command("hello", Some("<script>!fb resign</script>hello"), false),
            None
        );
        // A pill's text in the formatted body decides nothing: only who it names.
        assert_eq!(
            i.command(
                "!fb challenge Alice chess",
                Some(r#"!fb resign <a href="https://matrix.to/#/@alice:other.org">Alice</a>"#),
                false
            )
            .as_deref(),
            Some("challenge @alice:other.org chess")
        );
        assert_eq!(
            i.command(
                "!fb challenge Alicia chess",
                Some(r#"<a href="https://matrix.to/#/@alice:other.org">Alice</a>"#),
                false
            )
            .as_deref(),
            Some("challenge Alicia chess"),
            "only whole words are a pill's text"
        );
    }

    #[test]
    fn reply_fallbacks_are_ignored() {
        let i = inv();
        assert_eq!(
            i.command(
                "> <@bob:x> !fb board\n> more\n\n!fb draw accept",
                None,
                false
            )
            .as_deref(),
            Some("draw accept")
        );
        assert_eq!(
            i.command(
                "> <@bob:x> !fb board\n\n!fb resign",
                Some("<mx-reply><blockquote>!fb board</blockquote></mx-reply>!fb resign"),
                false
            )
            .as_deref(),
            Some("resign")
        );
    }

    #[test]
    fn html_becomes_text() {
        assert_eq!(
            html_to_text("a &lt;b&gt; &amp; &#x263A;<br/>c"),
            "a <b> & ☺\nc"
        );
        assert_eq!(html_to_text("<p>one</p><p>two</p>"), "one\ntwo");
        assert_eq!(html_to_text("<code>e4</code>"), "e4");
        assert_eq!(html_to_text("x < y"), "x < y");
        assert_eq!(
            html_to_text(r#"<a href='matrix:u/carol:example.org?action=chat'>C</a>"#),
            "@carol:example.org"
        );
        assert_eq!(
            html_to_text(r#"<a href="https://example.org">link</a>"#),
            "link"
        );
    }
}
