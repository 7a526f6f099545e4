//! fairybot's platform-neutral core: the command grammar, the game service, replies with
//! audiences, and the store port. It knows nothing of Discord, Matrix or SQL: adapters turn
//! platform events into `(Actor, Place, Command)` and deliver the [`reply::Reply`]s.

pub mod analysis;
pub mod book;
pub mod chance;
pub mod clocks;
pub mod command;
pub mod custom;
pub mod engine;
pub mod export;
mod memo;
pub mod metrics;
pub mod model;
pub mod opponent;
pub mod options;
pub mod outbox;
pub mod picture;
pub mod quote;
pub mod rating;
pub mod reply;
pub mod scheduler;
pub mod seating;
pub mod secret;
pub mod service;
pub mod store;
pub mod suggest;
pub mod text;
pub mod watch;

pub use chance::{Chance, OsChance, SeededChance};
pub use service::{Actor, Clock, CurrentGame, GameService, Games, SystemClock};
