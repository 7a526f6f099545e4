//! Through the Looking-Glass (Paolo, 2016): two worlds, each player sees one, pieces fall
//! between them, orders for the unseen world are carried out as far as possible, and an
//! impossible order is a strike (three lose).
//!
//! The engine is the referee. [`Glass`] holds the full state of both worlds; every action
//! returns a [`Report`] with the [`Fact`]s each player is told and the [`Public`] facts
//! everybody may know, and [`Glass::view`] is exactly what one player sees. Callers never
//! decide what is secret. The rules followed are `looking-glass.md` and decision 5 of the
//! rulebook.
//!
//! The two worlds, the piece letters and the movement tables are the engine's own: an 8x8
//! geometry with two boards named `R:` and `M:` ([`variant`]), so paths, cell names and
//! promotion letters are the same code as every other game; only the game's own mechanics
//! (transfers, partial execution, strikes, no check) live here.
//!
//! ```
//! use rules::glass::{BackRank, Glass, GlassRules};
//! use rules::Side;
//!
//! let mut game = Glass::new(GlassRules::default());
//! game.choose(Side::WHITE, BackRank::orthodox()).unwrap();
//! game.choose(Side::BLACK, BackRank::parse("518").unwrap()).unwrap();
//! let report = game.order(Side::WHITE, "e2e4").unwrap(); // R:e2-e4, falls to M:e4
//! assert!(game.piece_at(game.variant().geometry.parse("M:e4").unwrap()).is_some());
//! assert!(!report.told[1].is_empty()); // Black sees the Pawn arrive
//! ```

use std::sync::Arc;

mod back_rank;
mod facts;
mod game;
mod order;

pub use back_rank::{BackRank, BackRankError};
pub use facts::{Fact, Public, describe, describe_public, piece_name};
pub use game::{
    Glass, GlassOutcome, GlassRules, GlassTextError, MIRROR, Phase, PlayerView, REAL, Refusal,
    ReplayError, Report, STRIKE_LIMIT, other, world_of,
};
pub use order::{Order, OrderTextError};

use crate::{Catalog, Variant};

/// The variant file of the two worlds (geometry, pieces, movement).
const FILE: &str = include_str!("looking-glass.toml");

/// The name players type.
pub const NAME: &str = "looking-glass";
/// The name of the form with the optional "no strikes" rule.
pub const NAME_NO_STRIKES: &str = "looking-glass-no-strikes";

/// Whether a text names a square of either world (`R:e4`, `M:a8`). Nothing said to a game's
/// room during play may: the adapters' end-to-end tests check every public message with it.
pub fn names_a_square(text: &str) -> bool {
    text.as_bytes().windows(4).any(|w| {
        (w[0] == b'R' || w[0] == b'M')
            && w[1] == b':'
            && (b'a'..=b'h').contains(&w[2])
            && (b'1'..=b'8').contains(&w[3])
    })
}

/// The two worlds as an engine variant: cell names `R:e4` / `M:e4`, FIDE movement tables.
///
/// # Panics
/// Never: the embedded file is checked by the tests.
pub fn variant() -> Arc<Variant> {
    let mut c = Catalog::default();
    c.add("looking-glass.toml", FILE)
        .expect("the embedded Looking-Glass file is valid");
    c.get(NAME)
        .expect("the embedded Looking-Glass file resolves")
}

#[cfg(test)]
mod tests {
    #[test]
    fn square_names_are_found_in_text() {
        for yes in ["R:e4", "a Knight on M:a8.", "(M:h1)", "xR:b2"] {
            assert!(super::names_a_square(yes), "{yes}");
        }
        for no in [
            "",
            "R:",
            "R:i4",
            "M:a9",
            "Rook e4",
            "r:e4",
            "Game 4: White has moved.",
        ] {
            assert!(!super::names_a_square(no), "{no}");
        }
    }
}
