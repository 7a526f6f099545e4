//! Helpers shared by the hand-derived rule tests: positions from state text, the legal moves
//! of one piece in coordinates, and the seeded pseudo-random play that made the "random"
//! positions of the perft tables (so a test can check they are still reproduced).

// Each test binary uses its own subset of these.
#![allow(dead_code)]

use std::collections::BTreeSet;

use rules::{Catalog, Position, fen, notation};

/// A built-in variant's position from its state text.
pub fn pos(variant: &str, state: &str) -> Position {
    let v = Catalog::builtin().get(variant).unwrap();
    fen::position(&v, state).unwrap_or_else(|e| panic!("{state}: {e}"))
}

/// A built-in variant's start position.
pub fn start(variant: &str) -> Position {
    Position::start(&Catalog::builtin().get(variant).unwrap())
}

/// The legal moves of the piece on `from`, in coordinate notation.
pub fn moves_from(p: &Position, from: &str) -> BTreeSet<String> {
    let g = &p.variant().geometry;
    let from = g.parse(from).unwrap();
    p.legal_moves()
        .into_iter()
        .filter(|m| m.from == from)
        .map(|m| notation::coord(p, m))
        .collect()
}

/// `plies` pseudo-random legal moves from the start (a 64-bit LCG seeded with `seed`).
pub fn random_position(variant: &str, plies: usize, mut seed: u64) -> Position {
    let mut p = start(variant);
    for _ in 0..plies {
        let legal = p.legal_moves();
        if legal.is_empty() {
            break;
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        p.play_unchecked(legal[(seed >> 33) as usize % legal.len()]);
    }
    p
}

/// Perft counts checked against recorded ones, those above a node limit skipped (0: none),
/// with every disagreement kept for one report at the end.
pub struct PerftTally {
    limit: u64,
    /// Counts checked.
    pub run: usize,
    /// Counts skipped above the limit.
    pub skipped: usize,
    /// One line per disagreement.
    pub failures: Vec<String>,
}

impl PerftTally {
    /// A tally skipping recorded counts above `limit` nodes (0: none skipped).
    pub fn new(limit: u64) -> Self {
        PerftTally {
            limit,
            run: 0,
            skipped: 0,
            failures: Vec::new(),
        }
    }

    /// Checks `expected` at `depth` from `pos`; `what(got)` words a disagreement.
    pub fn check(
        &mut self,
        pos: &mut Position,
        depth: u32,
        expected: u64,
        what: impl FnOnce(u64) -> String,
    ) {
        if self.limit != 0 && expected > self.limit {
            self.skipped += 1;
            return;
        }
        self.run += 1;
        let got = rules::perft::perft(pos, depth);
        if got != expected {
            self.failures.push(what(got));
        }
    }

    /// Prints what was checked under `name`, and fails with every disagreement.
    pub fn finish(&self, name: &str) {
        println!(
            "{name}: {} counts checked, {} skipped above {} nodes",
            self.run, self.skipped, self.limit
        );
        assert!(self.failures.is_empty(), "{}", self.failures.join("\n"));
    }
}
