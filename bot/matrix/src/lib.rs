//! fairybot on Matrix: the chat grammar as text commands (`!fb board`, or by mentioning the
//! bot), boards as images, 👍/👎 reactions for yes/no questions, and private information in
//! encrypted direct rooms.
//!
//! The adapter is thin: a message becomes `(Actor, Place, text)`, the core answers with
//! replies and audiences, and those become Matrix events. What is Matrix's own lives here:
//! login and device persistence ([`session`]), the sync loop and its durable ledger
//! ([`bot`], [`ledger`]), which messages are commands ([`invocation`]), and how replies look
//! ([`format`]).
//!
//! Production: [`run`]. Tests and custom wiring: [`MatrixBot::with_client`].

pub mod config;
pub mod format;
pub mod invocation;
pub mod ledger;
pub mod privacy;
mod sent;
pub mod session;

mod bot;
mod deliver;
mod locks;
mod undecrypted;

use std::sync::Arc;

use rules::Catalog;

pub use bot::MatrixBot;
pub use bot_core::Games;
pub use config::{Login, MatrixConfig};

/// Why the Matrix adapter stopped or could not start. Each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    /// The configuration or the local state is not usable.
    #[error("Matrix configuration: {0}")]
    Config(String),
    /// The homeserver refused the login or the token.
    #[error("Matrix login: {0}")]
    Login(String),
    /// The homeserver could not be reached.
    #[error("Matrix connection: {0}")]
    Connect(String),
    /// Syncing failed for good.
    #[error("Matrix sync: {0}")]
    Sync(String),
    /// The ledger of handled commands cannot be written.
    #[error(transparent)]
    Ledger(#[from] ledger::LedgerError),
}

/// Log directives to add to the application's filter (`RUST_LOG` syntax, comma-separated): the
/// conditions matrix-sdk reports at WARN or ERROR that are normal for this bot.
///
/// - Key backup is off on purpose: the bot's room keys live in its own store
///   (`STATE_DIR/sdk`), and a server-side backup whose recovery key sits in that same store
///   would restore nothing the store does not already hold. matrix-sdk 0.18 still tries to
///   upload keys after every sync and warns each time that there is no backup key
///   (`matrix_sdk_crypto::backups`, once per sync: hundreds an hour).
/// - matrix-sdk logs every failed request at ERROR (`matrix_sdk::http_client`), also the
///   expected ones: a 404 for account data not created yet (at every start), or for the
///   encryption state of an unencrypted room. Every failure is also returned to the code that
///   made the request, and the bot logs those that matter, with what to do.
/// - A new device's first key query can come back before its own keys were uploaded, and the
///   SDK then warns that "our own device might have been deleted"
///   (`matrix_sdk_crypto::identities::manager`). A device really deleted is signed out: the
///   bot's next request fails with an unknown token, which it reports (and at the next start
///   it logs in as a new device).
pub const QUIET_SDK_LOGS: &str = "matrix_sdk_crypto::backups=error,matrix_sdk::http_client=off,\
                                  matrix_sdk_crypto::identities::manager=error";

/// The first word of a command, cut to 20 characters: what a log may say of what a player
/// typed (the rest can be a secret Looking-Glass back rank or order).
pub(crate) fn first_word(text: &str) -> String {
    let word = text.split_whitespace().next().unwrap_or("");
    if bot_core::command::is_command_word(word) {
        word.chars().take(20).collect()
    } else {
        "(not a command word)".into()
    }
}

/// Logs in (or restores the saved session) and answers until `stop` completes.
///
/// Boxed, with a boxed `stop`, so that the adapter's code is compiled in this crate (an
/// `async fn` or a generic one is compiled where it is awaited: in the binary, after
/// everything else).
///
/// # Errors
/// See [`MatrixError`].
pub fn run(
    config: MatrixConfig,
    games: Arc<dyn Games>,
    catalog: Arc<Catalog>,
    renderer: Arc<render::Renderer>,
    theme: render::Theme,
    health: bot_core::metrics::Health,
    stop: bot_core::service::BoxFuture<'static, ()>,
) -> bot_core::service::BoxFuture<'static, Result<(), MatrixError>> {
    Box::pin(async move {
        let bot = MatrixBot::connect(&config, games, catalog, renderer)
            .await?
            .with_theme(theme)
            .with_health(health);
        bot.run_with_announcements(stop).await
    })
}
