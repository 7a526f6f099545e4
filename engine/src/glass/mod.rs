//! Through the Looking-Glass without cheating: a player that decides from what its side has
//! been told, never from the referee's full state.
//!
//! **What it may read.** Every decision takes a [`Knowledge`]: the side's
//! [`rules::glass::PlayerView`], the [`rules::glass::Fact`]s the referee told it, its own back
//! rank, the options, and the answer to `ask` if it asked. A `Knowledge` holds no
//! [`rules::glass::Glass`] and cannot reach one, and no public entry point of this module
//! takes a `Glass`: the type system is the guarantee. The tests add a behavioural check:
//! games that differ only in the hidden world give the same decisions for the same seed.
//!
//! **Belief and samples.** The hidden part of the game is the opponent's pieces on his own
//! world. A sample replays the facts from a random Chess960 back rank for him, choosing at
//! random where the facts leave a choice (which piece reached the square he moved to) and
//! repairing itself where a fact contradicts it; it ends with the counts that are certain
//! now (see `belief.rs`). Each sample becomes a full imagined [`rules::glass::Glass`] in
//! which the referee's own code carries out each candidate order.
//!
//! **Choosing.** Every candidate order is tried in every sample and scored by a static
//! evaluation of both worlds; the order with the best mean wins. An order impossible in a
//! share of the samples is charged that share of a strike's cost (or, with no strikes, of
//! a lost turn); `ask` is asked only when the samples disagree on its answer; the back rank
//! is uniformly random. Levels 1-5 differ in the number of samples, noise, random orders
//! and the capture look-ahead; level 5 also weighs which world each King stands on, its
//! attacks on his King (above all those he cannot see), and avoids repetition when ahead
//! (see [`GlassPlayer`]).

mod belief;
mod knowledge;
mod player;

pub use knowledge::{Knowledge, KnowledgeError};
pub use player::{Choice, ChooseError, GlassPlayer, Judged, WIN, value as fide_value};

#[cfg(test)]
mod tests;
