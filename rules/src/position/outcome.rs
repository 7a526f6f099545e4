//! How the game stands: the capture goal, the bare King, checkmate, stalemate, repetition,
//! the 50-move rule and dead positions, checked in that order (the material rules themselves
//! live in `ends.rs`).

use super::Position;
use crate::types::{MoveList, Side};

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A side won.
    Win {
        /// The winner.
        winner: Side,
        /// Why.
        reason: WinReason,
    },
    /// A draw.
    Draw(DrawReason),
}

/// Why a side won.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinReason {
    /// The loser's royal piece is attacked and it has no legal move.
    Checkmate,
    /// The winner has captured every kind the variant's victory rule lists (CoBlaChe).
    Captures,
    /// The last other side left the game by resigning (games of more than two sides; with
    /// two, resignation is no move and the caller records it).
    Resignation,
    /// The loser has no legal move and is not in check, and the variant counts that as a loss
    /// (`[victory] stalemate = "loss"`: Courier).
    Stalemate,
    /// The loser has nothing left but its royal piece and did not, or cannot, bare the
    /// winner's on its next move (`[victory] bare_king = "loses"`: Courier).
    BareKing,
}

/// Why the game is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawReason {
    /// No legal move, not in check.
    Stalemate,
    /// The same position occurred the variant's number of times.
    Repetition,
    /// 100 plies without a capture or a pawn move.
    FiftyMoves,
    /// Neither side can mate.
    InsufficientMaterial,
    /// Both sides are down to their royal piece, the bare side having bared the other at
    /// once (`[victory] bare_king = "loses"`).
    BareKings,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Win { reason, .. } => match reason {
                WinReason::Checkmate => write!(f, "checkmate"),
                WinReason::Captures => write!(f, "the capture of the pieces that win"),
                WinReason::Resignation => write!(f, "resignation"),
                WinReason::Stalemate => write!(f, "stalemate"),
                WinReason::BareKing => write!(f, "the bare King"),
            },
            Outcome::Draw(r) => match r {
                DrawReason::Stalemate => write!(f, "stalemate"),
                DrawReason::Repetition => write!(f, "repetition"),
                DrawReason::FiftyMoves => write!(f, "the fifty-move rule"),
                DrawReason::InsufficientMaterial => write!(f, "insufficient material"),
                DrawReason::BareKings => write!(f, "both Kings bare"),
            },
        }
    }
}

impl Position {
    /// Whether a side has met the capture goal (out of line: only CoBlaChe has one).
    #[cold]
    #[inline(never)]
    pub(super) fn won_by_captures(&self) -> bool {
        self.capture_winner().is_some()
    }

    /// The side that has met the variant's capture goal (captured at least one enemy piece of
    /// each listed kind), if any.
    pub fn capture_winner(&self) -> Option<Side> {
        let goal = &self.variant.capture_goal;
        if goal.is_empty() {
            return None;
        }
        let sides = self.variant.sides;
        (0..sides).map(Side).find(|w| {
            self.enemies(*w)
                .all(|e| goal.iter().all(|k| self.lost[e as usize][k.index()] > 0))
        })
    }

    /// How the game stands: `None` while it goes on. Checked after every move by the caller,
    /// not by [`Position::play`], so that perft and search pay nothing for it.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, DrawReason, Outcome};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let pos = rules::fen::position(&chess, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    /// assert_eq!(pos.outcome(), Some(Outcome::Draw(DrawReason::Stalemate)));
    /// let pos = rules::fen::position(&chess, "4k3/8/8/8/8/8/8/4KB2 w - - 0 1").unwrap();
    /// assert_eq!(pos.outcome(), Some(Outcome::Draw(DrawReason::InsufficientMaterial)));
    /// ```
    pub fn outcome(&self) -> Option<Outcome> {
        let v = &*self.variant;
        if v.sides > 2 {
            return self.outcome_of_many();
        }
        if let Some(winner) = self.capture_winner() {
            return Some(Outcome::Win {
                winner,
                reason: WinReason::Captures,
            });
        }
        // The bare-King rule goes first: a side that stayed bare after its move has lost
        // already, whatever the position now is (as in Fairy-Stockfish).
        let bare = self.bare_king_outcome();
        if let Some(o @ Outcome::Win { winner, .. }) = bare
            && winner == self.turn
        {
            return Some(o);
        }
        let mut buf = MoveList::new();
        if self.count_legal(&mut buf) == 0 {
            let sides = v.sides;
            let other = Side((self.turn.0 + sides - 1) % sides);
            return Some(if self.is_check() {
                Outcome::Win {
                    winner: other,
                    reason: WinReason::Checkmate,
                }
            } else if v.end.stalemate_loses {
                Outcome::Win {
                    winner: other,
                    reason: WinReason::Stalemate,
                }
            } else {
                Outcome::Draw(DrawReason::Stalemate)
            });
        }
        if bare.is_some() {
            return bare;
        }
        if v.draws.repetitions > 0 && self.repetitions() >= v.draws.repetitions as usize {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if v.draws.fifty_moves && self.halfmoves >= 100 {
            return Some(Outcome::Draw(DrawReason::FiftyMoves));
        }
        if v.draws.insufficient_material && self.is_dead() {
            return Some(Outcome::Draw(DrawReason::InsufficientMaterial));
        }
        None
    }

    /// How many times the current position has occurred (this one included), looking back
    /// over the moves played since the last irreversible move.
    pub fn repetitions(&self) -> usize {
        let mut n = 1;
        let back = (self.halfmoves as usize).min(self.history.len());
        for u in self.history.iter().rev().take(back) {
            if u.hash == self.hash {
                n += 1;
            }
        }
        n
    }

    /// How often the current position occurred before, since the last irreversible move,
    /// counted apart: `(at_or_before, after)` ply `root` of the history (a [`Position::plies`]
    /// taken earlier). A search from the position at `root` uses it to tell a repetition on
    /// its own line (which the side that allowed it could repeat again, so a draw) from one
    /// of the game before it (a draw only when the rules' count is reached).
    pub fn earlier_occurrences(&self, root: usize) -> (usize, usize) {
        let (mut before, mut after) = (0, 0);
        let len = self.history.len();
        let back = (self.halfmoves as usize).min(len);
        for (i, u) in self.history.iter().enumerate().skip(len - back) {
            if u.hash == self.hash {
                if i > root {
                    after += 1;
                } else {
                    before += 1;
                }
            }
        }
        (before, after)
    }
}
