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

use rules::{Move, MoveKind, Outcome, Position, Side};

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

/// One move of a game judged from its mover's point of view, for games of any number of
/// seats ([`Analyser::evaluate_turns`]).
///
/// With two seats the position after a move tells the mover's chances too (the next side's
/// score, negated). With four it does not: the next seat's score is that seat's against the
/// table, not the mover's. So each move is judged in the position before it, twice: what
/// the search expects with its preferred move, and what the move played is worth when it is
/// searched alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnEval {
    /// Who made the move (for a resignation, the seat that resigned).
    pub mover: Side,
    /// Whether the move was a decision to judge: `false` for a pass (the only move of a seat
    /// with no other) and a resignation, whose scores are then 0 and mean nothing.
    pub judged: bool,
    /// The move the search prefers.
    pub best: Option<Move>,
    /// The mover's score with it (centipawns, or near [`MATE`] for a mate).
    pub best_score: i32,
    /// The mover's score with the move played (`best_score` when it is the preferred one).
    pub played_score: i32,
    /// Nodes searched for this move (one or two searches).
    pub nodes: u64,
}

impl Analyser {
    /// Judges every move of a game in the position before it ([`TurnEval`]), calling
    /// `progress(done, moves.len())` after each. When `progress` returns `false` the analysis
    /// stops and `None` is returned. A move that is not the search's choice costs a second
    /// search of `budget`.
    ///
    /// The moves must be legal in turn (the game's own record, already replayed).
    pub fn evaluate_turns(
        &mut self,
        start: &Position,
        moves: &[Move],
        budget: &Budget,
        mut progress: impl FnMut(usize, usize) -> bool,
    ) -> Option<Vec<TurnEval>> {
        let mut pos = start.clone();
        let mut out = Vec::with_capacity(moves.len());
        for (i, &m) in moves.iter().enumerate() {
            out.push(self.evaluate_turn(&mut pos, m, budget));
            if !progress(i + 1, moves.len()) {
                return None;
            }
            pos.play_unchecked(m);
        }
        Some(out)
    }

    fn evaluate_turn(&mut self, pos: &mut Position, played: Move, budget: &Budget) -> TurnEval {
        let limits = budget.limits();
        if matches!(played.kind, MoveKind::Pass | MoveKind::Resign) {
            let mover = if played.kind == MoveKind::Resign {
                Side(played.aux.0)
            } else {
                pos.turn()
            };
            return TurnEval {
                mover,
                judged: false,
                best: None,
                best_score: 0,
                played_score: 0,
                nodes: 0,
            };
        }
        let mover = pos.turn();
        let forced = pos.legal_moves().len() <= 1;
        let first = if forced {
            self.searcher.search_move(pos, played, &limits)
        } else {
            self.searcher.search(pos, &limits, |_| {})
        };
        let (played_score, more) = if first.best == Some(played) {
            (first.score, 0)
        } else {
            let alone = self.searcher.search_move(pos, played, &limits);
            (alone.score, alone.nodes)
        };
        TurnEval {
            mover,
            judged: true,
            best: first.best,
            best_score: first.score,
            played_score,
            nodes: first.nodes + more,
        }
    }
}

/// Reviews every judged move from [`Analyser::evaluate_turns`]: its mover's chances with the
/// search's move and with his own. Passes and resignations are left out.
pub fn review_turns(turns: &[TurnEval], moves: &[Move]) -> Vec<MoveReview> {
    turns
        .iter()
        .zip(moves)
        .enumerate()
        .filter(|(_, (t, _))| t.judged)
        .map(|(ply, (t, &played))| {
            let before = win_chance(t.best_score, Side::WHITE);
            let after = win_chance(t.played_score, Side::WHITE);
            let loss = if t.best == Some(played) {
                0.0
            } else {
                ((before - after) * 100.0).max(0.0)
            };
            MoveReview {
                ply,
                side: t.mover,
                played,
                best: t.best,
                before,
                after,
                loss,
            }
        })
        .collect()
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

    /// Judged in the position before it, 2.g4 is still the blunder of fool's mate: the
    /// search prefers another move, and g4 alone is worth a mate against White.
    #[test]
    fn turns_judge_each_move_before_it() {
        let chess = Catalog::builtin().get("chess").unwrap();
        let (start, moves) = line(&chess, None, &["f3", "e5", "g4", "Qh4#"]);
        let mut analyser = Analyser::new(Arc::new(Evaluator::new(&chess)), 2);
        let mut calls = Vec::new();
        let turns = analyser
            .evaluate_turns(&start, &moves, &Budget::default(), |d, t| {
                calls.push((d, t));
                true
            })
            .unwrap();
        assert_eq!(calls, [(1, 4), (2, 4), (3, 4), (4, 4)]);
        let movers: Vec<Side> = turns.iter().map(|t| t.mover).collect();
        assert_eq!(movers, [Side::WHITE, Side::BLACK, Side::WHITE, Side::BLACK]);
        assert!(turns.iter().all(|t| t.judged));
        assert_ne!(turns[2].best, Some(moves[2]));
        assert!(turns[2].played_score < -MATE_BOUND, "{:?}", turns[2]);
        assert_eq!(turns[3].best, Some(moves[3]));
        assert_eq!(turns[3].played_score, turns[3].best_score);
        let reviews = review_turns(&turns, &moves);
        let white = biggest_mistakes(&reviews, Side::WHITE, 3);
        assert_eq!(white[0].ply, 2);
        assert_eq!(white[0].judgement(), Some(Judgement::Blunder));
        assert_eq!(reviews[3].loss, 0.0);
    }

    /// In a four-player game every seat's moves are judged for that seat, a resignation is
    /// the resigner's and judged by nobody, and the moves the search chose lose nothing.
    #[test]
    fn four_player_turns_belong_to_their_movers() {
        let four = Catalog::builtin().get("dcb-balanced-4p").unwrap();
        let mut pos = Position::start(&four);
        let mut moves = Vec::new();
        let mut seed = 7u64;
        for _ in 0..10 {
            let legal = pos.legal_moves();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = legal[(seed >> 33) as usize % legal.len()];
            pos.play_unchecked(m);
            moves.push(m);
        }
        let resigner = Side(2);
        let resign = pos.resignation(resigner).unwrap();
        pos.play_unchecked(resign);
        moves.push(resign);
        let start = Position::start(&four);
        let mut analyser = Analyser::new(Arc::new(Evaluator::new(&four)), 2);
        let budget = Budget {
            nodes: 3_000,
            time: None,
        };
        let turns = analyser
            .evaluate_turns(&start, &moves, &budget, |_, _| true)
            .unwrap();
        assert_eq!(turns.len(), moves.len());
        let movers: Vec<u8> = turns[..10].iter().map(|t| t.mover.0).collect();
        assert_eq!(movers, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
        let last = turns.last().unwrap();
        assert_eq!((last.mover, last.judged), (resigner, false));
        let reviews = review_turns(&turns, &moves);
        assert_eq!(reviews.len(), 10);
        for (r, t) in reviews.iter().zip(&turns) {
            assert!(r.loss >= 0.0 && r.loss <= 100.0, "{r:?}");
            assert!(t.nodes > 0, "{t:?}");
            if t.best == Some(r.played) {
                assert_eq!(r.loss, 0.0);
                assert_eq!(t.played_score, t.best_score);
            }
        }
        // Random moves against a searching engine: some of them cost something.
        assert!(reviews.iter().any(|r| r.loss > 0.0), "{reviews:?}");
    }
}
