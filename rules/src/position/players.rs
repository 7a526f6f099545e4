//! Games of more than two sides (four-player Double Cross Besiege, rulebook 4.6): who is out,
//! whose turn it is, and resignation.
//!
//! With two sides a move simply hands the turn over, and a side with no move has lost or
//! drawn. With four, our reading of "the last checkmate wins" is:
//! - after every move, each *other* remaining side that is in check and has no legal move is
//!   checkmated and out (credited to the mover), and its pieces leave the board; since a
//!   removed piece may have blocked a line to another King, the test repeats until nobody
//!   more is out;
//! - the turn then goes to the next remaining side in turn order that has a legal move: a
//!   side with none (not in check, or it would be out) passes; if no remaining side can move,
//!   the game is drawn ([`crate::DrawReason::Stalemate`]);
//! - Kings are never captured: a King in check answers it on its own turn, and no other
//!   side may take it meanwhile (the tables leave royal pieces out of captures);
//! - resigning takes a side out the same way ([`Position::resignation`]), as a recorded
//!   move, so that replay, takeback and history see it like any other;
//! - the en-passant right belongs to the next move of the game, by whoever makes it.
//!
//! Everything here runs only when the variant has more than two sides: two-player play never
//! reaches it.

use super::Position;
use crate::types::{Cell, Move, MoveKind, MoveList, Piece, Side};

/// What a move did to the seats besides moving pieces, so that undo can put it back.
#[derive(Debug, Clone)]
pub(super) struct Turnover {
    /// The side whose turn it was before the move.
    turn: Side,
    /// The move number before it.
    fullmoves: u32,
    /// The sides out before it (bit per side).
    out: u8,
    /// The sides this move checkmated (bit per side).
    pub(super) mated: u8,
    /// The pieces removed from the board with the sides taken out: (cell, piece byte).
    removed: Vec<(u8, u8)>,
}

impl Position {
    /// Whether `side` is out of the game (checkmated or resigned; only in games of more than
    /// two sides).
    pub fn is_out(&self, side: Side) -> bool {
        self.out >> side.0 & 1 != 0
    }

    /// The sides still playing, in turn order.
    pub fn remaining(&self) -> Vec<Side> {
        self.variant
            .all_sides()
            .filter(|s| !self.is_out(*s))
            .collect()
    }

    /// The sides the last move checkmated and took out, in turn order (empty with two sides,
    /// where checkmate ends the game instead).
    pub fn eliminated_by_last_move(&self) -> Vec<Side> {
        let mated = self.turnovers.last().map_or(0, |t| t.mated);
        self.variant
            .all_sides()
            .filter(|s| mated >> s.0 & 1 != 0)
            .collect()
    }

    /// The move by which `side` resigns, in a game of more than two sides that is still going
    /// on: `None` with two sides (where resigning ends the game and is no move), for a side
    /// already out, or when the game is over. Playing it takes `side` out like a checkmate:
    /// its pieces leave the board and the others play on.
    pub fn resignation(&self, side: Side) -> Option<Move> {
        if self.variant.sides <= 2
            || side.0 >= self.variant.sides
            || self.is_out(side)
            || self.remaining().len() < 2
        {
            return None;
        }
        let mut m = Move::new(Cell(0), Cell(0), MoveKind::Resign);
        m.aux = Cell(side.0);
        Some(m)
    }

    /// The side a resignation move takes out.
    pub(crate) fn resigner(m: Move) -> Side {
        Side(m.aux.0)
    }

    /// Plays a resignation (already checked by [`Position::play`]): it is recorded like a
    /// move, so that replay and takeback need nothing special, but moves no piece and keeps
    /// the en-passant right for the next real move.
    pub(super) fn play_resignation(&mut self, m: Move) {
        let side = Position::resigner(m);
        self.history.push(super::make::Undo::resignation(m, self));
        let mut record = self.turnover();
        self.halfmoves = 0;
        self.take_out(side, &mut record);
        // The side to move keeps the turn unless it is the one resigning.
        let first = if self.turn == side {
            self.next_after(side)
        } else {
            self.turn
        };
        self.settle(None, first, record);
    }

    /// After a move by `mover` in a game of more than two sides: checkmates, then the turn.
    /// `play` has already handed the turn to the next side by number; this corrects it.
    #[cold]
    #[inline(never)]
    pub(super) fn after_move(&mut self, mover: Side) {
        let z = &self.variant.zobrist;
        // Undo play's provisional hand-over (next side by number, move count).
        self.hash ^= z.turn[self.turn.index()] ^ z.turn[mover.index()];
        if mover.0 == self.variant.sides - 1 {
            self.fullmoves -= 1;
        }
        self.turn = mover;
        let record = self.turnover();
        let first = self.next_after(mover);
        self.settle(Some(mover), first, record);
    }

    /// What undo needs, taken before anything changes.
    fn turnover(&self) -> Turnover {
        Turnover {
            turn: self.turn,
            fullmoves: self.fullmoves,
            out: self.out,
            mated: 0,
            removed: Vec::new(),
        }
    }

    /// Takes out every remaining side but `exempt` that is in check with no legal move (until
    /// none is), then gives the turn to the first side from `first` on, in turn order, that
    /// has a legal move, and records what changed. `self.turn` is the side that moved (or
    /// the side to move, for a resignation) when this is called.
    fn settle(&mut self, exempt: Option<Side>, first: Side, mut record: Turnover) {
        let sides = self.variant.sides;
        let mut buf = MoveList::new();
        loop {
            let mut changed = false;
            for i in 0..sides {
                let s = Side((first.0 + i) % sides);
                if Some(s) == exempt || self.is_out(s) || self.remaining().len() < 2 {
                    continue;
                }
                let checked = self.royal[s.index()]
                    .is_some_and(|k| self.attacked_by_any_enemy(&self.board, s, k));
                // The en-passant right is the next mover's only.
                if checked && !self.can_move(s, s == self.first_remaining(first), &mut buf) {
                    record.mated |= 1 << s.0;
                    self.take_out(s, &mut record);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let before = self.turn;
        let mut next = self.first_remaining(first);
        for i in 0..sides {
            let s = Side((first.0 + i) % sides);
            if !self.is_out(s) && self.can_move(s, true, &mut buf) {
                next = s;
                break;
            }
        }
        // A new round begins each time the turn passes Green (the last side) on the way.
        let wrapped = if next.0 > before.0 {
            false
        } else {
            next != before || exempt.is_some()
        };
        if wrapped {
            self.fullmoves += 1;
        }
        let z = &self.variant.zobrist;
        self.hash ^= z.turn[before.index()] ^ z.turn[next.index()];
        self.turn = next;
        self.turnovers.push(record);
    }

    /// The first remaining side from `first` on, in turn order (`first` itself if nobody
    /// remains, which cannot happen while a game goes on).
    fn first_remaining(&self, first: Side) -> Side {
        let sides = self.variant.sides;
        (0..sides)
            .map(|i| Side((first.0 + i) % sides))
            .find(|s| !self.is_out(*s))
            .unwrap_or(first)
    }

    /// The side after `side` by number.
    fn next_after(&self, side: Side) -> Side {
        Side((side.0 + 1) % self.variant.sides)
    }

    /// Whether `side` would have a legal move if it were its turn now (with the en-passant
    /// right only if `keep_ep`).
    fn can_move(&mut self, side: Side, keep_ep: bool, buf: &mut MoveList) -> bool {
        let (turn, ep) = (self.turn, self.ep);
        self.turn = side;
        if !keep_ep {
            self.ep = None;
        }
        self.legal_moves_into(buf);
        self.turn = turn;
        self.ep = ep;
        !buf.is_empty()
    }

    /// Removes every piece of `side` from the board and marks it out.
    fn take_out(&mut self, side: Side, record: &mut Turnover) {
        let z = &self.variant.zobrist;
        for c in self.occupied[side.index()].iter() {
            let code = self.board[c.index()];
            record.removed.push((c.0, code));
            self.hash ^= z.piece(code, c.index());
            self.board[c.index()] = 0;
            self.counts[side.index()][Piece::kind_of(code) as usize] -= 1;
        }
        self.occupied[side.index()] = crate::types::CellSet::EMPTY;
        self.royal[side.index()] = None;
        self.out |= 1 << side.0;
        self.halfmoves = 0;
    }

    /// Undoes what [`Position::settle`] did for the last move: pieces back, sides back in,
    /// turn and move number back. The caller undoes the move itself.
    pub(super) fn undo_turnover(&mut self) {
        let Some(t) = self.turnovers.pop() else {
            return;
        };
        for &(c, code) in t.removed.iter().rev() {
            let p = Piece::from_code(code).expect("removed cells held pieces");
            self.board[c as usize] = code;
            self.occupied[p.side.index()].insert(Cell(c));
            self.counts[p.side.index()][p.kind.index()] += 1;
            if self.variant.piece(p.kind).royal {
                self.royal[p.side.index()] = Some(Cell(c));
            }
        }
        self.out = t.out;
        self.turn = t.turn;
        self.fullmoves = t.fullmoves;
    }

    /// The outcome of a game of more than two sides (see [`Position::outcome`]): won when one
    /// side is left (by checkmate, or by resignation if the last one out resigned), drawn
    /// when nobody left can move, by repetition, or after 50 moves of each remaining side
    /// without a capture, a pawn move or a side going out.
    pub(super) fn outcome_of_many(&self) -> Option<super::Outcome> {
        use super::{DrawReason, Outcome, WinReason};
        let v = &*self.variant;
        let remaining = self.remaining();
        if let [winner] = remaining[..] {
            let resigned = self
                .history
                .last()
                .is_some_and(|u| u.mv.kind == MoveKind::Resign);
            return Some(Outcome::Win {
                winner,
                reason: if resigned {
                    WinReason::Resignation
                } else {
                    WinReason::Checkmate
                },
            });
        }
        if self.legal_moves().is_empty() {
            return Some(Outcome::Draw(DrawReason::Stalemate));
        }
        if v.draws.repetitions > 0 && self.repetitions() >= v.draws.repetitions as usize {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if v.draws.fifty_moves && self.halfmoves >= 50 * remaining.len() as u32 {
            return Some(Outcome::Draw(DrawReason::FiftyMoves));
        }
        None
    }
}
