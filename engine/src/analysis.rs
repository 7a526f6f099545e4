//! Post-game analysis: every position of a finished game searched at a fixed budget, each
//! move's loss of winning chances, each player's biggest mistakes and an accuracy figure.
//!
//! Pure and synchronous like the rest of the crate: the caller decides where it runs (the
//! bot queues it on its low-priority search threads) and learns of progress through a
//! callback. With a node budget and no time limit the result is the same on every machine.
//!
//! # The numbers
//!
//! - **Evaluation.** Each position is searched with [`Budget::nodes`] nodes; its score is
//!   turned to the first side's point of view (White, Red). A finished position scores what
//!   its outcome says (a win as a mate, a draw as 0) without a search.
//! - **Winning chances.** A score of `cp` centipawns for a side is worth
//!   `W(cp) = 1 / (1 + 10^(-cp / 400))` to it: the logistic curve of the Elo scale, on which
//!   a pawn up is about 64%, a Rook up about 90%, and a found mate 100%.
//! - **Loss.** A move's loss is what its mover's chances were before it minus what they are
//!   after it, in percentage points, never below 0. The move the search itself preferred
//!   loses nothing by definition: any difference is the search's own noise between two
//!   neighbouring positions.
//! - **Move accuracy.** `100 × e^(-loss / 22)`: a perfect move is 100, a move that gives
//!   away 5 points of winning chances about 80, 10 points about 63, 20 points about 40,
//!   50 points about 10. The shape follows the exponential curve lichess publishes for its
//!   accuracy figure (lichess.org/page/accuracy), simplified to a pure exponential whose
//!   scale gives about the same values.
//! - **Player accuracy.** The average of the player's move accuracies.
//! - **Mistakes.** A move losing at least [`INACCURACY`] points is an inaccuracy, at least
//!   [`MISTAKE`] a mistake, at least [`BLUNDER`] a blunder; a player's biggest mistakes are
//!   his moves with the largest losses from [`INACCURACY`] up.

use std::{sync::Arc, time::Duration};

use rules::{Move, Outcome, Position, Side};

use crate::{
    Evaluator,
    search::{Limits, MATE, MATE_BOUND, Searcher},
};

/// Nodes per position when nothing else is asked: enough for a few plies of tactics on
/// every board, few enough that a 100-move game takes well under a minute of one core
/// (measured by `cargo bench -p engine --bench analysis`).
pub const DEFAULT_NODES: u64 = 60_000;

/// Loss (percentage points of winning chances) from which a move is an inaccuracy.
pub const INACCURACY: f64 = 5.0;
/// Loss from which a move is a mistake.
pub const MISTAKE: f64 = 10.0;
/// Loss from which a move is a blunder.
pub const BLUNDER: f64 = 20.0;

/// How much search each position gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The most nodes per position (the search stops at this count).
    pub nodes: u64,
    /// An optional wall-clock cap per position (on a machine so busy that the node count
    /// would take too long); `None` keeps the analysis repeatable.
    pub time: Option<Duration>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            nodes: DEFAULT_NODES,
            time: None,
        }
    }
}

impl Budget {
    fn limits(&self) -> Limits {
        Limits {
            depth: None,
            nodes: Some(self.nodes),
            time: self.time,
            soft_time: None,
        }
    }
}

/// One position's evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionEval {
    /// The score from the first side's point of view, in the search's units (centipawns,
    /// or near [`MATE`] for a mate).
    pub score: i32,
    /// The move the search prefers; `None` in a finished position.
    pub best: Option<Move>,
    /// Nodes searched (0 for a finished position).
    pub nodes: u64,
}

/// Searches positions one by one with one transposition table, so consecutive positions of
/// a game reuse what the previous searches learnt.
#[derive(Debug)]
pub struct Analyser {
    searcher: Searcher,
}

impl Analyser {
    /// An analyser for the evaluator's variant, with a table of `hash_mb` megabytes.
    pub fn new(eval: Arc<Evaluator>, hash_mb: usize) -> Analyser {
        Analyser {
            searcher: Searcher::new(eval, hash_mb),
        }
    }

    /// Evaluates one position (unchanged afterwards).
    pub fn evaluate(&mut self, pos: &mut Position, budget: &Budget) -> PositionEval {
        if let Some(outcome) = pos.outcome() {
            let score = match outcome {
                Outcome::Win { winner, .. } if winner == Side::WHITE => MATE,
                Outcome::Win { .. } => -MATE,
                Outcome::Draw(_) => 0,
            };
            return PositionEval {
                score,
                best: None,
                nodes: 0,
            };
        }
        let result = self.searcher.search(pos, &budget.limits(), |_| {});
        let score = if pos.turn() == Side::WHITE {
            result.score
        } else {
            -result.score
        };
        PositionEval {
            score,
            best: result.best,
            nodes: result.nodes,
        }
    }

    /// Evaluates the start position and the position after each of `moves` (so
    /// `moves.len() + 1` evaluations), calling `progress(done, total)` after each. When
    /// `progress` returns `false` the analysis stops and `None` is returned.
    ///
    /// The moves must be legal in turn (the game's own record, already replayed).
    pub fn evaluate_game(
        &mut self,
        start: &Position,
        moves: &[Move],
        budget: &Budget,
        mut progress: impl FnMut(usize, usize) -> bool,
    ) -> Option<Vec<PositionEval>> {
        let total = moves.len() + 1;
        let mut pos = start.clone();
        let mut out = Vec::with_capacity(total);
        for i in 0..total {
            out.push(self.evaluate(&mut pos, budget));
            if !progress(i + 1, total) {
                return None;
            }
            if let Some(&m) = moves.get(i) {
                pos.play_unchecked(m);
            }
        }
        Some(out)
    }
}

/// What a score is worth to `side` (0 to 1): see the module docs.
pub fn win_chance(white_score: i32, side: Side) -> f64 {
    let s = if side == Side::WHITE {
        white_score
    } else {
        -white_score
    };
    if s > MATE_BOUND {
        return 1.0;
    }
    if s < -MATE_BOUND {
        return 0.0;
    }
    1.0 / (1.0 + 10f64.powf(-f64::from(s) / 400.0))
}

/// A move's accuracy (0 to 100) from its loss in percentage points: see the module docs.
pub fn move_accuracy(loss: f64) -> f64 {
    100.0 * (-loss.max(0.0) / 22.0).exp()
}

/// How bad a move was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Judgement {
    /// Lost at least [`INACCURACY`] points.
    Inaccuracy,
    /// Lost at least [`MISTAKE`] points.
    Mistake,
    /// Lost at least [`BLUNDER`] points.
    Blunder,
}

impl Judgement {
    /// The judgement of a loss, if it is one.
    pub fn of(loss: f64) -> Option<Judgement> {
        if loss >= BLUNDER {
            Some(Judgement::Blunder)
        } else if loss >= MISTAKE {
            Some(Judgement::Mistake)
        } else if loss >= INACCURACY {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    /// Its name, lowercase.
    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }
}

/// One move looked at after the game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveReview {
    /// Its index in the game (0 for the first move).
    pub ply: usize,
    /// Who played it.
    pub side: Side,
    /// The move played.
    pub played: Move,
    /// The move the search preferred in the position before it.
    pub best: Option<Move>,
    /// The mover's winning chances before the move (0 to 1).
    pub before: f64,
    /// His winning chances after it (0 to 1).
    pub after: f64,
    /// What the move cost him, in percentage points (0 to 100).
    pub loss: f64,
}

impl MoveReview {
    /// Its accuracy (0 to 100).
    pub fn accuracy(&self) -> f64 {
        move_accuracy(self.loss)
    }

    /// Whether it was an inaccuracy, a mistake or a blunder.
    pub fn judgement(&self) -> Option<Judgement> {
        Judgement::of(self.loss)
    }
}

/// Reviews every move of a game from its positions' evaluations (`evals[i]` before move
/// `i`, as [`Analyser::evaluate_game`] returns them) and the side that made each move.
pub fn review(evals: &[PositionEval], moves: &[Move], movers: &[Side]) -> Vec<MoveReview> {
    moves
        .iter()
        .zip(movers)
        .enumerate()
        .filter_map(|(ply, (&played, &side))| {
            let (before, after) = (evals.get(ply)?, evals.get(ply + 1)?);
            let (b, a) = (
                win_chance(before.score, side),
                win_chance(after.score, side),
            );
            let loss = if before.best == Some(played) {
                0.0
            } else {
                ((b - a) * 100.0).max(0.0)
            };
            Some(MoveReview {
                ply,
                side,
                played,
                best: before.best,
                before: b,
                after: a,
                loss,
            })
        })
        .collect()
}

/// `side`'s accuracy over its moves (0 to 100), or `None` if it made none.
pub fn accuracy(reviews: &[MoveReview], side: Side) -> Option<f64> {
    let mine: Vec<f64> = reviews
        .iter()
        .filter(|r| r.side == side)
        .map(MoveReview::accuracy)
        .collect();
    (!mine.is_empty()).then(|| mine.iter().sum::<f64>() / mine.len() as f64)
}

/// `side`'s `n` costliest moves from [`INACCURACY`] up, the costliest first (the earlier
/// first among equals).
pub fn biggest_mistakes(reviews: &[MoveReview], side: Side, n: usize) -> Vec<MoveReview> {
    let mut mine: Vec<MoveReview> = reviews
        .iter()
        .filter(|r| r.side == side && r.loss >= INACCURACY)
        .copied()
        .collect();
    mine.sort_by(|a, b| b.loss.total_cmp(&a.loss).then(a.ply.cmp(&b.ply)));
    mine.truncate(n);
    mine
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::{Catalog, notation};

    fn line(v: &Arc<rules::Variant>, fen: Option<&str>, moves: &[&str]) -> (Position, Vec<Move>) {
        let start = match fen {
            Some(f) => rules::fen::position(v, f).unwrap(),
            None => Position::start(v),
        };
        let mut pos = start.clone();
        let mut out = Vec::new();
        for m in moves {
            let mv = notation::parse_move(&pos, m).unwrap();
            pos.play_unchecked(mv);
            out.push(mv);
        }
        (start, out)
    }

    #[test]
    fn chances_are_symmetric_and_bounded() {
        assert!((win_chance(0, Side::WHITE) - 0.5).abs() < 1e-9);
        let up = win_chance(100, Side::WHITE);
        assert!((0.63..0.65).contains(&up), "{up}");
        assert!((win_chance(100, Side::BLACK) - (1.0 - up)).abs() < 1e-9);
        assert_eq!(win_chance(MATE - 3, Side::WHITE), 1.0);
        assert_eq!(win_chance(MATE - 3, Side::BLACK), 0.0);
        assert_eq!(move_accuracy(0.0), 100.0);
        assert!((move_accuracy(10.0) - 63.5).abs() < 1.0);
        assert!(move_accuracy(50.0) < 11.0);
        assert_eq!(Judgement::of(4.9), None);
        assert_eq!(Judgement::of(25.0), Some(Judgement::Blunder));
    }

    /// Fool's mate: White's 2.g4 hands Black a mate in one; it is White's biggest mistake,
    /// the mate is Black's best move, and the finished position needs no search.
    #[test]
    fn a_blunder_into_mate_is_found_and_the_mate_is_best() {
        let chess = Catalog::builtin().get("chess").unwrap();
        let (start, moves) = line(&chess, None, &["f3", "e5", "g4", "Qh4#"]);
        let eval = Arc::new(Evaluator::new(&chess));
        let mut analyser = Analyser::new(eval, 2);
        let mut calls = Vec::new();
        let evals = analyser
            .evaluate_game(&start, &moves, &Budget::default(), |d, t| {
                calls.push((d, t));
                true
            })
            .unwrap();
        assert_eq!(evals.len(), 5);
        assert_eq!(calls.last(), Some(&(5, 5)));
        assert_eq!(evals[4].score, -MATE);
        assert_eq!(evals[4].nodes, 0);
        assert!(
            evals[3].score < -MATE_BOUND,
            "mate in one seen: {:?}",
            evals[3]
        );
        assert_eq!(evals[3].best, Some(moves[3]));
        let movers = [Side::WHITE, Side::BLACK, Side::WHITE, Side::BLACK];
        let reviews = review(&evals, &moves, &movers);
        assert_eq!(reviews.len(), 4);
        let white = biggest_mistakes(&reviews, Side::WHITE, 3);
        assert_eq!(white[0].ply, 2, "{reviews:?}");
        assert_eq!(white[0].judgement(), Some(Judgement::Blunder));
        assert_eq!(reviews[3].loss, 0.0);
        let (w, b) = (
            accuracy(&reviews, Side::WHITE).unwrap(),
            accuracy(&reviews, Side::BLACK).unwrap(),
        );
        assert!(w < b, "white {w} black {b}");
        assert!(biggest_mistakes(&reviews, Side::BLACK, 3).len() <= 1);
    }

    #[test]
    fn a_progress_callback_can_stop_the_analysis() {
        let chess = Catalog::builtin().get("chess").unwrap();
        let (start, moves) = line(&chess, None, &["e4", "e5", "Nf3"]);
        let mut analyser = Analyser::new(Arc::new(Evaluator::new(&chess)), 1);
        let budget = Budget {
            nodes: 2_000,
            time: None,
        };
        let mut seen = 0;
        let stopped = analyser.evaluate_game(&start, &moves, &budget, |d, _| {
            seen = d;
            d < 2
        });
        assert!(stopped.is_none());
        assert_eq!(seen, 2);
    }

    #[test]
    fn no_moves_means_no_accuracy() {
        assert_eq!(accuracy(&[], Side::WHITE), None);
        assert!(biggest_mistakes(&[], Side::BLACK, 3).is_empty());
    }
}
