//! fairybot's game-playing engine: a search that plays every variant the `rules` crate can
//! referee, with an evaluation derived from each variant's own geometry and pieces.
//!
//! Pure and synchronous like `rules`: no I/O, no threads (a caller that wants a search to
//! stop early sets [`search::Searcher::stop_flag`] from its own thread).
//!
//! ```
//! use std::sync::Arc;
//! use engine::{Evaluator, Level, Player, search::Limits};
//! use rules::{Catalog, Position};
//!
//! let chess = Catalog::builtin().get("chess").unwrap();
//! let eval = Arc::new(Evaluator::new(&chess));
//! let mut player = Player::new(eval, Level::MAX, 1);
//! let mut pos = rules::fen::position(&chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
//! let m = player.choose(&mut pos, &Limits { depth: Some(3), ..Limits::default() }).unwrap();
//! assert_eq!(rules::notation::san(&pos, m), "Ra8#");
//! ```
//!
//! Four-player variants are searched with Best-Reply Search at levels 4 and 5, and paranoid at
//! levels 1 to 3: see [`search`].

#![deny(missing_docs)]

pub mod analysis;
pub mod book;
pub mod elo;
pub mod eval;
pub mod glass;
pub mod level;
pub mod search;
pub mod sprt;
mod tt;
pub mod tune;
pub mod tuned;
pub mod uci;

pub use eval::{Evaluator, PieceValue, Weights, describe_values, piece_values};
pub use level::{Level, LevelError, Player};
pub use search::{Limits, Score, SearchResult, Searcher};
