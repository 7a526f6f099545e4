//! Tokens, passwords and passphrases as a type that cannot be printed by mistake.
//!
//! A configuration struct that derives `Debug` shows a [`Secret`] as `<redacted>`, so a new
//! field holding a token is safe the day it is added, not the day someone remembers to write
//! a manual `Debug`. There is no `Display` and no `Serialize`: the only way to the value is
//! [`Secret::expose`], which names what it does where it is used.

use std::fmt;

/// What a secret shows instead of itself.
pub const REDACTED: &str = "<redacted>";

/// A value that never appears in `Debug` output.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret<T = String>(T);

impl<T> Secret<T> {
    /// Wraps `value`.
    pub fn new(value: T) -> Self {
        Secret(value)
    }

    /// The value, for the one place that must hand it over (a login, a request header).
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_owned())
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Secret<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Secret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Config {
        #[allow(dead_code)]
        name: String,
        token: Secret,
        password: Option<Secret>,
    }

    #[test]
    fn a_derived_debug_never_shows_a_secret() {
        let c: Config =
            toml::from_str("name = \"bot\"\ntoken = \"tok-123\"\npassword = \"hunter2\"").unwrap();
        let shown = format!("{c:?} {c:#?}");
        assert!(
            !shown.contains("tok-123") && !shown.contains("hunter2"),
            "{shown}"
        );
        assert!(shown.contains(REDACTED), "{shown}");
        assert_eq!(c.token.expose(), "tok-123");
        assert_eq!(c.password.unwrap().expose(), "hunter2");
    }
}
