//! fairybot's rules engine: pure, synchronous, no I/O.
//!
//! Variants are data (TOML files, embedded) over a small set of rule primitives written once
//! here: a general geometry (holes, wraps, twists, several boards), piece movement in a
//! Betza-derived notation parsed into precomputed paths, and positions with legal move
//! generation, check, outcomes, repetition keys and notation.
//!
//! ```
//! use rules::{Catalog, Position, notation};
//!
//! let catalog = Catalog::builtin();
//! let toulousain = catalog.get("toulousain").unwrap();
//! let mut pos = Position::start(&toulousain);
//! let m = notation::parse_move(&pos, "e4e6").unwrap(); // a fast Pawn's double step
//! pos.play(m).unwrap();
//! assert_eq!(pos.legal_moves().len(), rules::perft::perft(&mut pos, 1) as usize);
//! ```

#![deny(missing_docs)]

pub mod betza;
mod catalog;
pub mod chess960;
mod explain;
pub mod fen;
pub mod geometry;
pub mod glass;
pub mod ini;
pub mod mutate;
pub mod notation;
pub mod orientation;
pub mod perft;
mod position;
pub mod quote;
pub mod spec;
mod tables;
mod types;
pub mod validate;
mod variant;
mod zobrist;

pub use catalog::Catalog;
pub use explain::IllegalMove;
pub use geometry::{Geometry, GeometryError};
pub use position::{DrawReason, Outcome, Position, PositionError, Setup, WinReason};
pub use spec::SpecError;
pub use types::{Cell, CellSet, Kind, Move, MoveKind, MoveList, Piece, Side};
pub use variant::{
    CastleEntry, CastlingRule, Draws, EndRules, PieceType, Promotion, Reach, Variant,
};
