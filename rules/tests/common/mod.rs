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

/// One position of a perft table file (`tests/data/**/*.perft`): its variant, its state and
/// the recorded count at each depth.
pub struct PerftCase {
    /// The file it was read from.
    pub file: String,
    /// The variant.
    pub variant: String,
    /// Its name in the file.
    pub id: String,
    /// Its state text.
    pub epd: String,
    /// (depth, nodes), as recorded.
    pub depths: Vec<(u32, u64)>,
}

/// Every case of the `.perft` files in `tests/DIR`, files in name order.
pub fn perft_cases(dir: &str) -> Vec<PerftCase> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    files.sort();
    let mut cases: Vec<PerftCase> = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let mut variant = String::new();
        for (n, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            let at = || format!("{file}:{}", n + 1);
            match key {
                "variant" => variant = rest.trim().to_string(),
                "id" => cases.push(PerftCase {
                    file: file.clone(),
                    variant: variant.clone(),
                    id: rest.trim().to_string(),
                    epd: String::new(),
                    depths: Vec::new(),
                }),
                "epd" => cases.last_mut().unwrap().epd = rest.trim().to_string(),
                "perft" => {
                    let mut it = rest.split_whitespace();
                    let d = it.next().and_then(|d| d.parse().ok());
                    let nodes = it.next().and_then(|n| n.parse().ok());
                    let (Some(d), Some(nodes)) = (d, nodes) else {
                        panic!("{}: `perft DEPTH NODES` expected", at());
                    };
                    cases.last_mut().unwrap().depths.push((d, nodes));
                }
                other => panic!("{}: unknown key {other:?}", at()),
            }
        }
    }
    cases
}
