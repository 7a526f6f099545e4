//! Playing levels 1 (beginner) to 5 (full strength), for people who want a game they can win.
//!
//! Levels 1 to 3 score every legal move with a shallow full-window search and pick the best
//! after adding seeded noise, sometimes simply a random move: mistakes a beginner can punish,
//! not random nonsense on every move. Level 4 searches at most 6 plies (with Best-Reply
//! Search, in the four-player forms, 6 layers: three moves of ours, three replies), level 5
//! as deep as the limits allow. All randomness comes from the seed, so a game replays exactly.

use std::sync::Arc;

use rules::{Move, Position};
use thiserror::Error;

use crate::{
    eval::Evaluator,
    search::{Limits, SearchResult, Searcher},
};

/// A level outside 1..=5.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("level {0} does not exist: choose 1 (beginner) to 5 (full strength)")]
pub struct LevelError(pub u8);

/// How strongly the engine plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Level(u8);

impl Level {
    /// Full strength.
    pub const MAX: Level = Level(5);

    /// Level `n` (1..=5).
    ///
    /// # Errors
    /// [`LevelError`] outside 1..=5.
    ///
    /// # Examples
    /// ```
    /// assert!(engine::Level::new(3).is_ok());
    /// assert!(engine::Level::new(6).is_err());
    /// ```
    pub fn new(n: u8) -> Result<Level, LevelError> {
        if (1..=5).contains(&n) {
            Ok(Level(n))
        } else {
            Err(LevelError(n))
        }
    }

    /// The level's number.
    pub fn number(self) -> u8 {
        self.0
    }

    /// (depth of the scoring search, noise in centipawns, chance in 1000 of a random move)
    /// for the levels that choose by noisy score.
    fn weakness(self) -> Option<(u32, i32, u32)> {
        match self.0 {
            1 => Some((1, 250, 200)),
            2 => Some((2, 120, 60)),
            3 => Some((3, 40, 0)),
            _ => None,
        }
    }
}

/// A small seeded generator (xorshift64*), so levels are reproducible without a dependency.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; 0 is mapped to a fixed odd constant).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// An engine that plays at a level: a [`Searcher`] plus the level's choice rule.
#[derive(Debug)]
pub struct Player {
    level: Level,
    searcher: Searcher,
    rng: Rng,
}

impl Player {
    /// A player for one variant.
    pub fn new(eval: Arc<Evaluator>, level: Level, seed: u64) -> Player {
        Player::with_hash(eval, level, seed, 16)
    }

    /// A player with a transposition table of about `hash_mb` megabytes.
    pub fn with_hash(eval: Arc<Evaluator>, level: Level, seed: u64, hash_mb: usize) -> Player {
        Player {
            level,
            searcher: Searcher::new(eval, hash_mb),
            rng: Rng::new(seed),
        }
    }

    /// The searcher (for its stop flag, or to search directly).
    pub fn searcher(&mut self) -> &mut Searcher {
        &mut self.searcher
    }

    /// Forgets the last game.
    pub fn new_game(&mut self) {
        self.searcher.new_game();
    }

    /// The move to play in `pos` within `limits` (`None` only without a legal move).
    pub fn choose(&mut self, pos: &mut Position, limits: &Limits) -> Option<Move> {
        self.choose_with_result(pos, limits).best
    }

    /// [`Player::choose`], with what the search found.
    pub fn choose_with_result(&mut self, pos: &mut Position, limits: &Limits) -> SearchResult {
        match self.level.weakness() {
            None => {
                let mut l = limits.clone();
                if self.level.0 == 4 {
                    l.depth = Some(l.depth.map_or(6, |d| d.min(6)));
                }
                self.searcher.search(pos, &l, |_| {})
            }
            Some((depth, noise, random)) => {
                let moves = pos.legal_moves();
                let mut result = SearchResult {
                    best: moves.first().copied(),
                    score: 0,
                    depth,
                    nodes: 0,
                    elapsed: std::time::Duration::ZERO,
                    pv: Vec::new(),
                };
                if moves.len() <= 1 {
                    return result;
                }
                if self.rng.below(1000) < random as u64 {
                    result.best = Some(moves[self.rng.below(moves.len() as u64) as usize]);
                    return result;
                }
                let scored = self.searcher.score_root_moves(pos, depth, limits);
                let mut best: Option<(Move, i32)> = None;
                for (m, s) in scored {
                    let jitter = self.rng.below(2 * noise as u64 + 1) as i32 - noise;
                    let v = s.saturating_add(jitter);
                    if best.is_none_or(|b| v > b.1) {
                        best = Some((m, v));
                    }
                }
                if let Some((m, s)) = best {
                    result.best = Some(m);
                    result.score = s;
                }
                result.nodes = self.searcher.nodes();
                result
            }
        }
    }
}
