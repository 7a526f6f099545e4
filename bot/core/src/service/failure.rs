//! How a command fails: a refusal the player can act on, or the bot's own fault.
//!
//! A refusal is a reply to the actor saying what to do instead. A fault keeps its cause as a
//! typed [`ServiceError`] chain; it is logged once with a reference unique to that error (a
//! random per-service prefix and a counter, so two faults in one second, or in two processes,
//! never share one) and the player is told that nothing changed and which reference to quote.

use std::{
    error::Error,
    sync::atomic::{AtomicU64, Ordering},
};

use crate::{
    export::ReplayError,
    model::{ChallengeId, GameId, UnknownName},
    options::OptionsError,
    store::StoreError,
};

/// The bot's own fault while serving a command: never the player's doing.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The store failed.
    #[error("the store failed")]
    Store(#[from] StoreError),
    /// A game names a variant the catalogue cannot give (removed, or its file broke).
    #[error("game {game} names variant {variant:?}, which does not load")]
    Variant {
        /// The game.
        game: GameId,
        /// The stored name.
        variant: String,
        /// Why the catalogue refused it.
        #[source]
        source: rules::SpecError,
    },
    /// A game's record no longer replays.
    #[error("game {game} does not replay")]
    Replay {
        /// The game.
        game: GameId,
        /// Where and why.
        #[source]
        source: ReplayError,
    },
    /// A Looking-Glass record no longer replays. The referee's reason quotes the secret
    /// action itself, so only its position is kept: logs never hold a back rank or an order.
    #[error("Looking-Glass game {game}: stored action {action} does not replay")]
    GlassReplay {
        /// The game.
        game: GameId,
        /// The action's number in the record, from 1.
        action: usize,
    },
    /// Stored options do not read.
    #[error("challenge {challenge}: its options do not read")]
    Options {
        /// The challenge (its game has the same options).
        challenge: ChallengeId,
        /// What is wrong with them.
        #[source]
        source: OptionsError,
    },
    /// A stored name (result, reason) does not read.
    #[error(transparent)]
    Name(#[from] UnknownName),
    /// The search for the bot's move did not return (the engine failed, or the search
    /// threads stopped).
    #[error("game {game}: the bot's search did not return")]
    Search {
        /// The game.
        game: GameId,
    },
    /// The bot could not give a Looking-Glass order or back rank (its knowledge or every
    /// order it ranked was refused). The reason may quote a secret: not for the room.
    #[error("game {game}: the bot could not act ({why})")]
    BotOrder {
        /// The game.
        game: GameId,
        /// Why.
        why: String,
    },
    /// A Chess960 number outside 0..960 reached the start of a game.
    #[error("challenge {challenge}: there is no Chess960 position {number}")]
    Chess960 {
        /// The challenge.
        challenge: ChallengeId,
        /// The number.
        number: u16,
    },
}

/// A command's failure.
#[derive(Debug)]
pub(super) enum Failure {
    /// Refused: the text tells the player what to do instead.
    User(String),
    /// The bot's fault.
    Internal(ServiceError),
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Internal(ServiceError::Store(e))
    }
}

impl From<ServiceError> for Failure {
    fn from(e: ServiceError) -> Self {
        Failure::Internal(e)
    }
}

/// A refusal.
pub(super) fn user<T>(text: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::User(text.into()))
}

/// What the player is told of a fault with `reference`: that the game store is unavailable
/// when it cannot be reached (issue 27), else the general apology. Nothing was changed
/// either way.
pub(super) fn apology(error: &ServiceError, reference: &str) -> String {
    match error {
        ServiceError::Store(StoreError::Unavailable(_)) => format!(
            "The game store is unavailable right now, so I could not do that. Nothing was \
             changed; please try again in a minute (reference {reference})."
        ),
        _ => format!(
            "Sorry, something went wrong on my side (reference {reference}). Nothing was changed; please try again."
        ),
    }
}

/// References for faults: a random prefix per service and a counter; and the numbers of
/// commands, which tie a command's log lines together.
#[derive(Debug)]
pub(super) struct References {
    prefix: u32,
    next: AtomicU64,
    commands: AtomicU64,
}

impl References {
    /// References starting from a random `prefix`.
    pub(super) fn new(prefix: u32) -> Self {
        References {
            prefix,
            next: AtomicU64::new(1),
            commands: AtomicU64::new(1),
        }
    }

    /// The next command's number.
    pub(super) fn command(&self) -> u64 {
        self.commands.fetch_add(1, Ordering::Relaxed)
    }

    /// A reference no other fault of this service has had.
    pub(super) fn next(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{:08x}-{n}", self.prefix)
    }
}

/// An error and its causes on one line, for the log.
pub(crate) fn chain(e: &dyn Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_differ_within_a_second_and_between_services() {
        let a = References::new(0x1234_abcd);
        let b = References::new(0x0bad_cafe);
        let seen: std::collections::HashSet<String> =
            (0..100).flat_map(|_| [a.next(), b.next()]).collect();
        assert_eq!(seen.len(), 200);
    }

    /// Issue 27: an unreachable store is said as such (within the store's few seconds of
    /// waiting), with nothing changed; any other fault keeps the general apology.
    #[test]
    fn an_unreachable_store_is_said_plainly() {
        let down = ServiceError::Store(StoreError::Unavailable("pool timed out".into()));
        let text = apology(&down, "ab-1");
        assert!(text.contains("game store is unavailable"), "{text}");
        assert!(text.contains("Nothing was changed"), "{text}");
        assert!(text.contains("try again"), "{text}");
        assert!(!text.contains("something went wrong"), "{text}");
        let other = ServiceError::Store(StoreError::Corrupt("x".into()));
        assert!(
            apology(&other, "ab-2").contains("something went wrong on my side (reference ab-2)")
        );
    }

    #[test]
    fn the_chain_names_every_cause() {
        let e = ServiceError::Replay {
            game: GameId(7),
            source: ReplayError::Move {
                ply: 3,
                text: "e2e5".into(),
                source: Box::new(rules::notation::MoveTextError::Unknown {
                    text: "e2e5".into(),
                }),
            },
        };
        let line = chain(&e);
        assert!(line.starts_with("game 7 does not replay: stored move 3 (e2e5)"));
    }
}
