//! The adapter's settings.

use std::path::PathBuf;

use bot_core::secret::Secret;

use crate::MatrixError;

/// How the bot logs in. Its `Debug` shows no secret.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Login {
    /// A user id (or localpart) and password: the bot logs in once and keeps its device.
    Password {
        /// `@fairybot:example.org` or `fairybot`.
        user: String,
        /// The password.
        password: Secret,
    },
    /// An access token of an existing device (for example from Element's settings).
    AccessToken(Secret),
}

/// Everything the Matrix adapter needs to run. Its `Debug` shows no secret (the password,
/// the access token and the store passphrase are [`Secret`]s).
#[derive(Clone, Debug)]
pub struct MatrixConfig {
    /// The homeserver's client-server API URL (`https://matrix.example.org`).
    pub homeserver: String,
    /// How to log in.
    pub login: Login,
    /// The command prefix (`!fb`).
    pub prefix: String,
    /// Where the session, matrix-sdk's store (rooms, encryption keys) and the ledger live.
    pub state_dir: PathBuf,
    /// Encrypts matrix-sdk's store with this passphrase, if given.
    pub store_passphrase: Option<Secret>,
    /// Board picture width in pixels.
    pub board_size: u32,
    /// The name of the bot's device, shown in users' device lists.
    pub device_name: String,
}

impl MatrixConfig {
    /// A configuration with the defaults: prefix `!fb`, boards 640 px, device "fairybot".
    ///
    /// # Errors
    /// When the homeserver is not an http(s) URL or the login is incomplete.
    pub fn new(
        homeserver: impl Into<String>,
        login: Login,
        state_dir: impl Into<PathBuf>,
    ) -> Result<MatrixConfig, MatrixError> {
        let homeserver = homeserver.into().trim().trim_end_matches('/').to_string();
        if !(homeserver.starts_with("https://") || homeserver.starts_with("http://")) {
            return Err(MatrixError::Config(format!(
                "the homeserver {homeserver:?} is not a URL: write it like \
                 https://matrix.example.org (the client API's address, see \
                 https://example.org/.well-known/matrix/client)"
            )));
        }
        match &login {
            Login::Password { user, password }
                if user.trim().is_empty() || password.expose().is_empty() =>
            {
                return Err(MatrixError::Config(
                    "a Matrix password login needs both the user (@bot:example.org) and the \
                     password (MATRIX_PASSWORD)"
                        .into(),
                ));
            }
            Login::AccessToken(t) if t.expose().trim().is_empty() => {
                return Err(MatrixError::Config("MATRIX_ACCESS_TOKEN is empty".into()));
            }
            _ => {}
        }
        Ok(MatrixConfig {
            homeserver,
            login,
            prefix: "!fb".into(),
            state_dir: state_dir.into(),
            store_passphrase: None,
            board_size: 640,
            device_name: "fairybot".into(),
        })
    }

    /// Sets the command prefix (an empty prefix is refused: commands then need a mention).
    ///
    /// # Errors
    /// When the prefix contains whitespace.
    pub fn with_prefix(mut self, prefix: &str) -> Result<MatrixConfig, MatrixError> {
        let p = prefix.trim();
        if p.contains(char::is_whitespace) {
            return Err(MatrixError::Config(format!(
                "the command prefix {prefix:?} contains a space; use one word such as !fb"
            )));
        }
        self.prefix = p.to_string();
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_say_what_to_write() {
        let pw = Login::Password {
            user: "@bot:x".into(),
            password: "pw".into(),
        };
        let e = MatrixConfig::new("matrix.org", pw.clone(), "s").unwrap_err();
        assert!(e.to_string().contains("https://"), "{e}");
        let c = MatrixConfig::new("https://m.example.org/", pw.clone(), "s").unwrap();
        assert_eq!(c.homeserver, "https://m.example.org");
        assert_eq!(c.prefix, "!fb");
        assert!(c.clone().with_prefix("! fb").is_err());
        assert_eq!(c.with_prefix("?chess").unwrap().prefix, "?chess");
        let empty = Login::Password {
            user: "@bot:x".into(),
            password: String::new().into(),
        };
        assert!(MatrixConfig::new("https://x", empty, "s").is_err());
        assert_eq!(
            format!("{pw:?}"),
            "Password { user: \"@bot:x\", password: <redacted> }"
        );
    }

    #[test]
    fn secrets_are_absent_from_debug_and_errors() {
        let password = Login::Password {
            user: "@bot:x".into(),
            password: "hunter2-pw".into(),
        };
        let token = Login::AccessToken("syt_s3cret-token".into());
        for login in [password, token] {
            let mut c = MatrixConfig::new("https://m.example.org", login.clone(), "s").unwrap();
            c.store_passphrase = Some("st0re-phrase".into());
            // A homeserver that is not a URL: the error names it, not the login.
            let e = MatrixConfig::new("m.example.org", login, "s").unwrap_err();
            for shown in [
                format!("{c:?}"),
                format!("{c:#?}"),
                e.to_string(),
                format!("{e:?}"),
            ] {
                for secret in ["hunter2-pw", "syt_s3cret-token", "st0re-phrase"] {
                    assert!(!shown.contains(secret), "{secret} in {shown}");
                }
            }
            assert!(format!("{c:?}").contains("<redacted>"));
            assert!(format!("{c:?}").contains("m.example.org"));
        }
    }
}
