//! fairybot's platform-neutral core: the command grammar, the game service, replies with
//! audiences, and the store port. It knows nothing of Discord, Matrix or SQL: adapters turn
//! platform events into `(Actor, Place, Command)` and deliver the [`reply::Reply`]s.
//!
//! The modules are arranged by what they do: [`game`] (what a game is, no I/O), [`input`]
//! (what players type), [`service`] (the game lifecycle over the [`store`] port),
//! [`output`] (what the bot says), [`delivery`] (getting it to the players) and [`ai`] (the
//! engine at work for the bot). Each module is also re-exported here under its own name
//! (`bot_core::reply`, `bot_core::model`), the path the adapters use.

pub mod ai;
pub mod delivery;
pub mod game;
pub mod input;
pub mod output;
pub mod secret;
pub mod service;
pub mod store;

pub use ai::{analysis, opponent};
pub use delivery::{metrics, outbox, scheduler};
pub use game::{chance, custom, model, options, rating, rules_engine, seating, time_control};
pub use input::{command, suggest};
pub use output::{book, export, picture, quote, reply, text, watch};

pub use chance::{Chance, OsChance, SeededChance};
pub use service::{Actor, Clock, CurrentGame, GameService, Games, SystemClock};
