//! Database URLs carry passwords: they are shown only with the password replaced, and errors
//! from the driver are shown only with every trace of the URL's secrets removed.

use std::fmt;

/// What replaces a secret in every message.
pub const REDACTED: &str = "<redacted>";

/// `url` with its password (`user:PASSWORD@host`, and any `password=` query parameter)
/// replaced by `<redacted>`; anything else is kept, so the URL still says where it points.
///
/// ```
/// assert_eq!(
///     bot_store::redact_url("postgres://fb:hunter2@db.example.org/games"),
///     "postgres://fb:<redacted>@db.example.org/games"
/// );
/// assert_eq!(bot_store::redact_url("sqlite:data/fairybot.db"), "sqlite:data/fairybot.db");
/// ```
pub fn redact_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut at = 0;
    for span in secret_spans(url) {
        out.push_str(&url[at..span.start]);
        out.push_str(REDACTED);
        at = span.end;
    }
    out.push_str(&url[at..]);
    out
}

/// Where the secrets of a URL are, in order: the password of the user information (up to the
/// authority's last `@`, since a password may hold one) and the values of query parameters
/// named like a password (PostgreSQL takes `?password=` and `?sslpassword=`).
fn secret_spans(url: &str) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return spans;
    };
    let authority_end = url[scheme_end..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| scheme_end + i);
    let authority = &url[scheme_end..authority_end];
    if let Some(at) = authority.rfind('@')
        && let Some(colon) = authority[..at].find(':')
    {
        spans.push(scheme_end + colon + 1..scheme_end + at);
    }
    if let Some(q) = url[authority_end..]
        .find('?')
        .map(|i| authority_end + i + 1)
    {
        let query_end = url[q..].find('#').map_or(url.len(), |i| q + i);
        let mut start = q;
        for pair in url[q..query_end].split('&') {
            if let Some((key, _)) = pair.split_once('=')
                && key.to_ascii_lowercase().contains("password")
            {
                spans.push(start + key.len() + 1..start + pair.len());
            }
            start += pair.len() + 1;
        }
    }
    spans.retain(|s| !s.is_empty());
    spans
}

/// The secrets of a URL as they may appear in a driver's message: as written and
/// percent-decoded, longest first (so that replacing one never leaves part of another).
fn secrets(url: &str) -> Vec<String> {
    let mut found = Vec::new();
    for span in secret_spans(url) {
        let secret = &url[span];
        let decoded = percent_decode(secret);
        if decoded != secret && !decoded.is_empty() {
            found.push(decoded);
        }
        found.push(secret.to_string());
    }
    found.sort_by_key(|s| std::cmp::Reverse(s.len()));
    found
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with every secret of `url` replaced (the whole URL by its redacted form).
pub(crate) fn scrub(text: &str, url: &str) -> String {
    let redacted = redact_url(url);
    let mut out = text.replace(url, &redacted);
    for secret in secrets(url) {
        out = out.replace(&secret, REDACTED);
    }
    out
}

/// A database driver's error, shown (by `Display` and `Debug`) without the secrets of the URL
/// it was opening. The error itself is kept for code: [`DbError::inner`].
pub struct DbError {
    inner: sqlx::Error,
    url: String,
}

impl DbError {
    pub(crate) fn new(inner: sqlx::Error, url: &str) -> DbError {
        DbError {
            inner,
            url: url.to_string(),
        }
    }

    /// The driver's error (its own text may carry secrets: do not print it).
    pub fn inner(&self) -> &sqlx::Error {
        &self.inner
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&scrub(&self.inner.to_string(), &self.url))
    }
}

impl fmt::Debug for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&scrub(&format!("{:?}", self.inner), &self.url))
    }
}

/// The driver's own causes are not exposed: their text is not scrubbed. Everything they say
/// is already in this error's message.
impl std::error::Error for DbError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_replaced_and_the_rest_kept() {
        for (url, want) in [
            (
                "postgres://fb:hunter2@db:5432/games",
                "postgres://fb:<redacted>@db:5432/games",
            ),
            (
                "postgresql://fb:p%40ss@w@db/games?sslmode=require",
                "postgresql://fb:<redacted>@db/games?sslmode=require",
            ),
            ("postgres://fb@db/games", "postgres://fb@db/games"),
            (
                "postgres://db/games?user=fb&password=hunter2&sslpassword=x#f",
                "postgres://db/games?user=fb&password=<redacted>&sslpassword=<redacted>#f",
            ),
            ("sqlite:data/x.db?mode=rwc", "sqlite:data/x.db?mode=rwc"),
            ("sqlite::memory:", "sqlite::memory:"),
            ("not a url", "not a url"),
        ] {
            assert_eq!(redact_url(url), want, "{url}");
        }
    }

    #[test]
    fn scrubbing_removes_the_password_in_every_spelling() {
        let url = "postgres://fb:p%40ss%3Aword@db/games?password=other";
        let text = format!("failed: {url} / p%40ss%3Aword / p@ss:word / other");
        let s = scrub(&text, url);
        for secret in ["p%40ss%3Aword", "p@ss:word", "other"] {
            assert!(!s.contains(secret), "{secret} in {s}");
        }
        assert!(s.contains("postgres://fb:<redacted>@db/games"), "{s}");
    }
}
