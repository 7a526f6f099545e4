//! Games of more than two sides (four-player Double Cross Besiege, rulebook 4.6): who is out,
//! whose turn it is, and resignation.
//!
//! With two sides a move simply hands the turn over, and a side with no move has lost or
//! drawn. With four, our reading of "the last checkmate wins" is:
//! - after every move, each *other* remaining side that is in check and has no legal move is
//!   checkmated and out (credited to the mover), all of them at once, judged on the board as
//!   the move left it, and their pieces leave the board; since a removed piece may have
//!   blocked a line to another King, the test repeats until nobody more is out;
//! - the turn then goes to the next remaining side in turn order; a side with no legal move
//!   has one move, the pass ([`MoveKind::Pass`]), which the caller plays like any other (the
//!   bot plays it for him and says so; perft counts it); if no remaining side can move, there
//!   is no pass and the game is drawn ([`crate::DrawReason::Stalemate`]);
//! - Kings are never captured: a King in check answers it on its own turn, and no other
//!   side may take it meanwhile (the tables leave royal pieces out of captures);
//! - resigning takes a side out the same way ([`Position::resignation`]), as a recorded
//!   move, so that replay, takeback and history see it like any other;
//! - the en-passant right belongs to the next move of the game, by whoever makes it.
//!
//! Everything here runs only when the variant has more than two sides: two-player play never
//! reaches it.

use super::Position;
use crate::types::{Cell, CellSet, Move, MoveKind, Piece, Side};

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
    /// The sides in check after the move (bit per side).
    checked: u8,
    /// The sides whose check must be looked at after the move (bit per side): all of them
    /// after a resignation, otherwise those the move's cells can matter to (see
    /// [`Position::after_move`]).
    suspects: u8,
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
            || self.remaining_count() < 2
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

    /// Plays a pass or a resignation (already checked by [`Position::play`]): recorded like a
    /// move, so that replay and takeback need nothing special, but no piece moves and the
    /// en-passant right stays for the next real move.
    pub(super) fn play_turn_event(&mut self, m: Move) {
        self.history.push(super::make::Undo::turn_event(m, self));
        let mut record = self.turnover();
        if m.kind == MoveKind::Pass {
            let mover = self.turn;
            self.halfmoves += 1;
            let first = self.next_after(mover);
            self.settle(Some(mover), first, record);
            return;
        }
        let side = Position::resigner(m);
        self.halfmoves = 0;
        self.take_out(side, &mut record);
        record.suspects = u8::MAX;
        // The side to move keeps the turn unless it is the one resigning.
        let first = if self.turn == side {
            self.next_after(side)
        } else {
            self.turn
        };
        self.settle(None, first, record);
    }

    /// The pass, when `out` (the legal moves just generated) is empty in a game of more than
    /// two sides that goes on and some other remaining side could move.
    #[cold]
    #[inline(never)]
    pub(super) fn pass_if_stuck(&self, out: &mut crate::types::MoveList) {
        if self.remaining_count() < 2 {
            return;
        }
        let mut probe = self.clone();
        let others: Vec<Side> = self
            .remaining()
            .into_iter()
            .filter(|s| *s != self.turn)
            .collect();
        if others.into_iter().any(|s| probe.can_move(s, false)) {
            out.push(Move::new(Cell(0), Cell(0), MoveKind::Pass));
        }
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
        let mut record = self.turnover();
        record.suspects = self.suspects(mover);
        let first = self.next_after(mover);
        self.settle(Some(mover), first, record);
    }

    /// The sides whose check the last move (by `mover`) may have changed, or that were in
    /// check before it (bit per side). A move can attack a King, or open or close a line to
    /// it, only through a cell from which some piece could attack that King (the tables'
    /// reach); a King already in check may have lost its way out. Asked of every other side
    /// after every move, so it is a few bit tests rather than attack walks.
    fn suspects(&self, mover: Side) -> u8 {
        let Some(last) = self.history.last() else {
            return u8::MAX;
        };
        let m = last.mv;
        let before = self
            .turnovers
            .last()
            .map_or(self.checked_at_setup, |t| t.checked);
        let mut mask = before;
        for s in self.variant.all_sides() {
            if s == mover || self.is_out(s) {
                continue;
            }
            let Some(k) = self.royal[s.index()] else {
                continue;
            };
            // The auxiliary cells mean something only for these kinds (elsewhere they are
            // cell 0, which would make every King near it a suspect).
            let aux = matches!(
                m.kind,
                MoveKind::EnPassant | MoveKind::Castle | MoveKind::Push
            );
            let near = |reach: &CellSet| {
                reach.contains(m.from)
                    || reach.contains(m.to)
                    || (aux && (reach.contains(m.aux) || reach.contains(m.aux2)))
            };
            if near(&self.crowd().reach[k.index()]) {
                mask |= 1 << s.0;
            }
        }
        mask & !(1 << mover.0)
    }

    /// What undo needs, taken before anything changes.
    fn turnover(&self) -> Turnover {
        Turnover {
            turn: self.turn,
            fullmoves: self.fullmoves,
            out: self.out,
            mated: 0,
            checked: 0,
            suspects: 0,
            removed: Vec::new(),
        }
    }

    /// Takes out every remaining side but `exempt` that is in check with no legal move (until
    /// none is), then gives the turn to the first remaining side from `first` on, in turn
    /// order, and records what changed. `self.turn` is the side that moved (or
    /// the side to move, for a resignation) when this is called.
    fn settle(&mut self, exempt: Option<Side>, first: Side, mut record: Turnover) {
        let sides = self.variant.sides;
        let before = self
            .turnovers
            .last()
            .map_or(self.checked_at_setup, |t| t.checked);
        // Who is in check: the sides looked at are tested, the others are as they were, and
        // the mover, whose move was legal, is not (unless removed pieces open a line to him,
        // after which everyone is looked at).
        let checked = loop {
            let mut checked = 0u8;
            for s in self.variant.all_sides() {
                let in_check = if self.is_out(s) {
                    false
                } else if record.suspects >> s.0 & 1 != 0 {
                    self.checked(s)
                } else {
                    Some(s) != exempt && before >> s.0 & 1 != 0
                };
                checked |= u8::from(in_check) << s.0;
            }
            // Everyone checkmated by the position as it now stands is out at once (rulebook
            // 4.6: each other player now in check with no legal move), not one by one: a
            // player's pieces still count against another's King while both are judged.
            // The en-passant right is the next mover's only.
            let judged = checked & !exempt.map_or(0, |e| 1 << e.0);
            if judged == 0 {
                break checked;
            }
            let next = self.first_remaining(first);
            let mut mated = 0u8;
            for i in 0..sides {
                let s = Side((first.0 + i) % sides);
                if judged >> s.0 & 1 != 0 && !self.can_move(s, s == next) {
                    mated |= 1 << s.0;
                }
            }
            if mated == 0 {
                break checked;
            }
            let mut removed = false;
            for i in 0..sides {
                let s = Side((first.0 + i) % sides);
                if mated >> s.0 & 1 != 0 && self.remaining_count() >= 2 {
                    record.mated |= 1 << s.0;
                    self.take_out(s, &mut record);
                    removed = true;
                }
            }
            if !removed {
                break checked;
            }
            // Removed pieces may open lines anywhere: look at everyone again.
            record.suspects = u8::MAX;
        };
        record.checked = checked;
        let before = self.turn;
        let next = self.first_remaining(first);
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
    fn can_move(&mut self, side: Side, keep_ep: bool) -> bool {
        let (turn, ep) = (self.turn, self.ep);
        self.turn = side;
        if !keep_ep {
            self.ep = None;
        }
        let can = self.has_legal_move();
        self.turn = turn;
        self.ep = ep;
        can
    }

    /// Whether one side is left (the game is won, so it has no moves).
    pub(super) fn one_left(&self) -> bool {
        self.remaining_count() < 2
    }

    /// How many sides are still playing.
    fn remaining_count(&self) -> u32 {
        self.variant.sides as u32 - self.out.count_ones()
    }

    /// Whether `side`'s King is attacked by anyone: [`Position::in_check`] with the tables'
    /// quick "can anything there reach it" test before each walk, since it is asked of every
    /// other side after every move.
    fn checked(&self, side: Side) -> bool {
        let Some(k) = self.royal[side.index()] else {
            return false;
        };
        let crowd = self.crowd();
        self.others_may_attack(crowd, side, k)
            && crate::position::attacks::attacked_by_others(crowd, &self.board, side.0, k.index())
    }

    /// The merged attack tries, which the tables build whenever there are more than two
    /// sides (the only case in which this module runs).
    fn crowd(&self) -> &crate::tables::CrowdTries {
        self.variant
            .tables
            .crowd
            .as_ref()
            .expect("the tables of a variant of more than two sides have merged tries")
    }

    /// Removes every piece of `side` from the board and marks it out.
    fn take_out(&mut self, side: Side, record: &mut Turnover) {
        let z = &self.variant.zobrist;
        // An en-passant right against a Pawn that leaves goes with it.
        if let Some((target, victim)) = self.ep
            && self.occupied[side.index()].contains(victim)
        {
            self.hash ^= z.ep[target.index()];
            self.ep = None;
        }
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
