//! Logging in once and staying the same device.
//!
//! Encrypted rooms are only readable by the device that holds their keys, so the bot must
//! come back as the same device after a restart: matrix-sdk's SQLite store keeps the crypto
//! state and the rooms (`STATE_DIR/sdk`), and `STATE_DIR/session.json` (mode 0600) keeps the
//! access token and device id that match it. A password login happens only when there is no
//! saved session, or when the saved token was revoked (then it logs in again *as the same
//! device*, so the keys stay valid). An access token from the configuration is used as it is;
//! its device comes from `whoami`.

use std::path::{Path, PathBuf};

use matrix_sdk::{
    Client, SessionMeta,
    authentication::{SessionTokens, matrix::MatrixSession},
    ruma::{OwnedDeviceId, OwnedUserId, api::error::ErrorKind},
};
use serde::{Deserialize, Serialize};

use crate::{MatrixConfig, MatrixError, config::Login};

/// What `session.json` holds.
#[derive(Clone, Serialize, Deserialize)]
struct Saved {
    homeserver: String,
    user_id: OwnedUserId,
    device_id: OwnedDeviceId,
    access_token: String,
}

/// The access token is never printed.
impl std::fmt::Debug for Saved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Saved")
            .field("homeserver", &self.homeserver)
            .field("user_id", &self.user_id)
            .field("device_id", &self.device_id)
            .field("access_token", &"<redacted>")
            .finish()
    }
}

fn session_path(config: &MatrixConfig) -> PathBuf {
    config.state_dir.join("session.json")
}

/// Builds the client on the persistent store and logs in (or restores the saved session).
///
/// # Errors
/// A bad homeserver URL, an unreadable store, refused credentials, a store that belongs to
/// another account — each with what to do about it.
pub async fn connect(config: &MatrixConfig) -> Result<Client, MatrixError> {
    std::fs::create_dir_all(&config.state_dir).map_err(|e| {
        MatrixError::Config(format!(
            "cannot create the Matrix state directory {}: {e}",
            config.state_dir.display()
        ))
    })?;
    let client = build(config).await?;
    let path = session_path(config);
    let saved = read_saved(&path)?.filter(|s| s.homeserver == config.homeserver);
    match (&config.login, saved) {
        (Login::Password { user, .. }, Some(s)) if !same_user(user, &s.user_id) => {
            Err(MatrixError::Config(format!(
                "the Matrix state in {} belongs to {}, not {user}: point matrix.state_dir \
                 elsewhere (or move that directory away) to log in as {user}",
                config.state_dir.display(),
                s.user_id
            )))
        }
        (Login::Password { user, password }, Some(s)) => {
            restore(&client, &s, config).await?;
            match client.whoami().await {
                Ok(_) => Ok(client),
                Err(e) if is_unknown_token(&e) => {
                    // Signed out elsewhere: the homeserver deleted the device and its keys. The
                    // same device id logged in again would keep the old crypto store, which
                    // believes its keys are published, so nobody could encrypt to the bot.
                    // Start over as a new device with a new store; the old one is kept aside.
                    tracing::warn!(
                        "the saved Matrix session (device {}) was signed out; logging in as a \
                         new device",
                        s.device_id
                    );
                    drop(client);
                    set_aside_store(config, &s.device_id)?;
                    let client = build(config).await?;
                    login(&client, config, user, password.expose(), None).await?;
                    Ok(client)
                }
                Err(e) => Err(MatrixError::Connect(e.to_string())),
            }
        }
        (Login::Password { user, password }, None) => {
            login(&client, config, user, password.expose(), None).await?;
            Ok(client)
        }
        (Login::AccessToken(token), saved) => {
            let (user_id, device_id) = whoami(config, token.expose()).await?;
            if let Some(s) = saved
                && (s.user_id != user_id || s.device_id != device_id)
            {
                return Err(MatrixError::Config(format!(
                    "the Matrix state in {} belongs to {} (device {}), but the access token is \
                     for {user_id} (device {device_id}): the encryption keys would not match. \
                     Point matrix.state_dir elsewhere or move that directory away.",
                    config.state_dir.display(),
                    s.user_id,
                    s.device_id
                )));
            }
            let s = Saved {
                homeserver: config.homeserver.clone(),
                user_id,
                device_id,
                access_token: token.expose().clone(),
            };
            restore(&client, &s, config).await?;
            write_saved(&path, &s)?;
            Ok(client)
        }
    }
}

async fn build(config: &MatrixConfig) -> Result<Client, MatrixError> {
    Client::builder()
        .homeserver_url(&config.homeserver)
        .sqlite_store(
            config.state_dir.join("sdk"),
            config
                .store_passphrase
                .as_ref()
                .map(|p| p.expose().as_str()),
        )
        .build()
        .await
        .map_err(|e| {
            MatrixError::Config(format!(
                "cannot set up the Matrix client for {} with its store in {}: {e}",
                config.homeserver,
                config.state_dir.join("sdk").display()
            ))
        })
}

/// Moves the SDK store of a signed-out device to `sdk.signed-out-DEVICE` (replacing an older
/// one of that name), so the next client starts a fresh store.
fn set_aside_store(config: &MatrixConfig, device: &OwnedDeviceId) -> Result<(), MatrixError> {
    let store = config.state_dir.join("sdk");
    let aside = config.state_dir.join(format!("sdk.signed-out-{device}"));
    let err = |e: std::io::Error| {
        MatrixError::Config(format!(
            "cannot move the signed-out device's store {} to {}: {e}; move it away by hand",
            store.display(),
            aside.display()
        ))
    };
    if aside.exists() {
        std::fs::remove_dir_all(&aside).map_err(err)?;
    }
    match std::fs::rename(&store, &aside) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(err(e)),
        _ => Ok(()),
    }
}

fn same_user(configured: &str, id: &OwnedUserId) -> bool {
    configured == id.as_str() || configured.trim_start_matches('@') == id.localpart()
}

async fn restore(client: &Client, s: &Saved, config: &MatrixConfig) -> Result<(), MatrixError> {
    let session = MatrixSession {
        meta: SessionMeta {
            user_id: s.user_id.clone(),
            device_id: s.device_id.clone(),
        },
        tokens: SessionTokens {
            access_token: s.access_token.clone(),
            refresh_token: None,
        },
    };
    client.restore_session(session).await.map_err(|e| {
        MatrixError::Config(format!(
            "cannot restore the Matrix session of {} (device {}) from {}: {e}. If the store \
             belongs to another device, move {} away to start over as a new device.",
            s.user_id,
            s.device_id,
            config.state_dir.display(),
            config.state_dir.display()
        ))
    })
}

async fn login(
    client: &Client,
    config: &MatrixConfig,
    user: &str,
    password: &str,
    device: Option<&str>,
) -> Result<(), MatrixError> {
    let mut builder = client
        .matrix_auth()
        .login_username(user, password)
        .initial_device_display_name(&config.device_name);
    if let Some(d) = device {
        builder = builder.device_id(d);
    }
    let response = builder.send().await.map_err(|e| {
        MatrixError::Login(format!(
            "{user} could not log in to {}: {e}. Check MATRIX_PASSWORD (or [matrix] password) \
             and the user id.",
            config.homeserver
        ))
    })?;
    let saved = Saved {
        homeserver: config.homeserver.clone(),
        user_id: response.user_id,
        device_id: response.device_id,
        access_token: response.access_token,
    };
    write_saved(&session_path(config), &saved)
}

/// The user and device of an access token, asked with a client that has no store.
async fn whoami(
    config: &MatrixConfig,
    token: &str,
) -> Result<(OwnedUserId, OwnedDeviceId), MatrixError> {
    let probe = Client::builder()
        .homeserver_url(&config.homeserver)
        .build()
        .await
        .map_err(|e| MatrixError::Config(format!("homeserver {}: {e}", config.homeserver)))?;
    // The session's ids are placeholders: only the token is sent.
    let placeholder = MatrixSession {
        meta: SessionMeta {
            user_id: "@whoami:invalid".try_into().expect("a valid user id"),
            device_id: "WHOAMI".into(),
        },
        tokens: SessionTokens {
            access_token: token.to_string(),
            refresh_token: None,
        },
    };
    probe
        .restore_session(placeholder)
        .await
        .map_err(|e| MatrixError::Login(e.to_string()))?;
    let me = probe.whoami().await.map_err(|e| {
        MatrixError::Login(format!(
            "the access token was refused by {}: {e}. Check MATRIX_ACCESS_TOKEN.",
            config.homeserver
        ))
    })?;
    let device = me.device_id.ok_or_else(|| {
        MatrixError::Login(format!(
            "the access token of {} has no device, so the bot could not read encrypted rooms; \
             log in with a password instead, or create a token by logging in a device",
            me.user_id
        ))
    })?;
    Ok((me.user_id, device))
}

fn is_unknown_token(e: &matrix_sdk::HttpError) -> bool {
    matches!(e.client_api_error_kind(), Some(ErrorKind::UnknownToken(_)))
}

fn read_saved(path: &Path) -> Result<Option<Saved>, MatrixError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            MatrixError::Config(format!(
                "{} is damaged ({e}); delete it to log in again",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(MatrixError::Config(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Writes the session atomically, readable by the owner only (it holds the access token).
fn write_saved(path: &Path, s: &Saved) -> Result<(), MatrixError> {
    use std::io::Write;
    let err =
        |e: std::io::Error| MatrixError::Config(format!("cannot write {}: {e}", path.display()));
    let tmp = path.with_extension("json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(&tmp).map_err(err)?;
    let text = serde_json::to_string_pretty(s).map_err(|e| err(std::io::Error::other(e)))?;
    f.write_all(text.as_bytes()).map_err(err)?;
    f.sync_all().map_err(err)?;
    std::fs::rename(&tmp, path).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_access_token_is_absent_from_debug() {
        let s = Saved {
            homeserver: "https://m.example.org".into(),
            user_id: "@bot:example.org".try_into().unwrap(),
            device_id: "DEVICE".into(),
            access_token: "syt_saved-s3cret".into(),
        };
        let shown = format!("{s:?}");
        assert!(!shown.contains("syt_saved-s3cret"), "{shown}");
        assert!(
            shown.contains("DEVICE") && shown.contains("<redacted>"),
            "{shown}"
        );
    }
}
