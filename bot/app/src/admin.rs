//! The binary's commands for the people who run it: `fairybot invite-url` and
//! `fairybot backup FILE`.

use std::fmt::Write as _;

/// Discord's permission bits the bot needs in a server (Discord's documented values):
/// read and write in channels and threads, boards as files, leaderboards as embeds, replies
/// to earlier messages, and its own thread per game when configured.
const PERMISSIONS: [(&str, u64); 7] = [
    ("View Channels", 1 << 10),
    ("Send Messages", 1 << 11),
    ("Embed Links", 1 << 14),
    ("Attach Files", 1 << 15),
    ("Read Message History", 1 << 16),
    ("Create Public Threads", 1 << 35),
    ("Send Messages in Threads", 1 << 38),
];

/// Why an invitation link could not be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InviteError {
    /// No token and no application id.
    #[error(
        "no Discord application configured: set DISCORD_TOKEN (or [discord] token) to the bot's \
         token, or [discord] application_id to its application id"
    )]
    NoApplication,
    /// The token's first part is not an id.
    #[error(
        "the Discord token does not start with the bot's id: copy the token again from the \
         Bot page of the application, or set [discord] application_id"
    )]
    BadToken,
}

/// The application id a bot token carries: its first part is the bot user's id in base64,
/// and a bot user's id is its application's id.
pub fn application_id(token: &str) -> Result<u64, InviteError> {
    let token = token.trim().trim_start_matches("Bot ");
    let first = token.split('.').next().unwrap_or("");
    let bytes = base64_decode(first).ok_or(InviteError::BadToken)?;
    let text = String::from_utf8(bytes).map_err(|_| InviteError::BadToken)?;
    text.parse().map_err(|_| InviteError::BadToken)
}

/// The link that adds the bot to a server with the commands and the permissions it needs.
pub fn invite_url(application_id: u64) -> String {
    let permissions: u64 = PERMISSIONS.iter().map(|(_, bit)| bit).sum();
    format!(
        "https://discord.com/oauth2/authorize?client_id={application_id}\
         &scope=bot%20applications.commands&permissions={permissions}"
    )
}

/// What `fairybot invite-url` prints: the link, and what it asks for in words.
pub fn invite_text(application_id: u64) -> String {
    let mut s = format!(
        "Open this link to add the bot to a server you manage:\n{}\n\nIt asks for the \
         scopes bot and applications.commands, and these permissions:\n",
        invite_url(application_id)
    );
    for (name, _) in PERMISSIONS {
        let _ = writeln!(s, "  - {name}");
    }
    s
}

/// Standard or URL-safe base64, padded or not; `None` for anything else.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let digits = text.trim_end_matches('=').as_bytes();
    if digits.is_empty() || digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_names_its_application() {
        // "123456789012345678" in base64, then the token's two other parts.
        let token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB";
        assert_eq!(application_id(token), Ok(123_456_789_012_345_678));
        assert_eq!(
            application_id(&format!("Bot {token}")),
            Ok(123_456_789_012_345_678)
        );
        assert_eq!(application_id("not a token"), Err(InviteError::BadToken));
        assert_eq!(application_id("aGVsbG8.x.y"), Err(InviteError::BadToken));
    }

    #[test]
    fn base64_of_every_length() {
        assert_eq!(base64_decode("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGk").unwrap(), b"hi");
        assert_eq!(base64_decode("YQ").unwrap(), b"a");
        assert_eq!(base64_decode("YWJj").unwrap(), b"abc");
        assert!(base64_decode("Y").is_none());
        assert!(base64_decode("a*b").is_none());
    }

    #[test]
    fn the_link_asks_for_the_commands_and_the_documented_permissions() {
        let url = invite_url(42);
        assert!(url.starts_with("https://discord.com/oauth2/authorize?client_id=42&"));
        assert!(url.contains("scope=bot%20applications.commands"));
        // 1024 + 2048 + 16384 + 32768 + 65536 + 2^35 + 2^38.
        assert!(url.ends_with("&permissions=309237763072"), "{url}");
        let text = invite_text(42);
        assert!(text.contains("Send Messages in Threads"), "{text}");
    }
}
