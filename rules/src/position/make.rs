//! Make and undo: playing a move updates board, counts, occupancy, rights and hash
//! incrementally and records what undo needs; the bare-board helpers do the same for the
//! scratch boards legality tests play on.

use super::Position;
use crate::types::{Cell, Kind, Move, MoveKind, Piece, Side};

/// What `play` must remember to undo a move.
#[derive(Debug, Clone, Copy)]
pub(super) struct Undo {
    /// The move (read by `moves_played`).
    pub(super) mv: Move,
    moved: u8,
    captured: u8,
    rights: u16,
    ep: Option<(Cell, Cell)>,
    halfmoves: u32,
    /// The hash before the move (read by the repetition count).
    pub(super) hash: u64,
}

impl Undo {
    /// The record of a pass or a resignation: nothing moves, so only the state around the
    /// board is kept (the pieces a resignation removes are in the turnover record).
    pub(super) fn turn_event(mv: Move, pos: &Position) -> Undo {
        Undo {
            mv,
            moved: 0,
            captured: 0,
            rights: pos.rights,
            ep: pos.ep,
            halfmoves: pos.halfmoves,
            hash: pos.hash,
        }
    }
}

impl Position {
    /// Plays a move that must come from [`Position::legal_moves`] of this position.
    /// Cheap, unchecked: use [`Position::play`] for moves from outside. An illegal move may
    /// leave the position inconsistent (counts, hash), which is why perft and search use this
    /// and chat input never does.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, Position};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let mut pos = Position::start(&chess);
    /// let start = pos.clone();
    /// for m in pos.legal_moves() {
    ///     pos.play_unchecked(m);
    ///     pos.undo();
    /// }
    /// assert!(pos == start && pos.hash() == start.hash());
    /// ```
    pub fn play_unchecked(&mut self, m: Move) {
        self.play_with(m, true);
    }

    /// Plays a move on a scratch copy that only tests the mover's King safety and is undone
    /// right after: the special-power part of the hash (the costly part, a walk over the
    /// unmoved pieces and freezes) is left out, as nothing reads this hash before `undo`
    /// restores the saved one.
    pub(crate) fn play_for_test(&mut self, m: Move) {
        self.play_with(m, false);
    }

    #[inline(always)]
    fn play_with(&mut self, m: Move, special_hash: bool) {
        if m.kind >= MoveKind::Resign {
            // Passes and resignations (more than two sides only) move no piece.
            self.play_turn_event(m);
            return;
        }
        let v = self.variant.clone();
        let z = &v.zobrist;
        let us = self.turn;
        let moved = self.board[m.from.index()];
        let mut undo = Undo {
            mv: m,
            moved,
            captured: 0,
            rights: self.rights,
            ep: self.ep,
            halfmoves: self.halfmoves,
            hash: self.hash,
        };
        let mut h = self.hash ^ z.turn[us.index()] ^ self.castling_key(self.rights);
        if let Some((t, _)) = self.ep {
            h ^= z.ep[t.index()];
        }
        let mut reset = v.pieces[Piece::kind_of(moved) as usize].pawn;
        if v.special.is_some() {
            if special_hash {
                h ^= self.special_key();
            }
            self.special_history
                .push((self.unmoved, self.freezes.clone()));
        }
        match m.kind {
            MoveKind::Flip => {
                let kind = m.promotion.unwrap_or(Kind(Piece::kind_of(moved)));
                let placed = Piece { side: us, kind }.code();
                h ^= z.piece(moved, m.from.index()) ^ z.piece(placed, m.from.index());
                self.board[m.from.index()] = placed;
                self.counts[us.index()][Piece::kind_of(moved) as usize] -= 1;
                self.counts[us.index()][kind.index()] += 1;
            }
            MoveKind::Freeze => {}
            MoveKind::Kill => {
                let captured = self.board[m.to.index()];
                h ^= z.piece(captured, m.to.index());
                self.board[m.to.index()] = 0;
                self.counts[Piece::side_of(captured) as usize]
                    [Piece::kind_of(captured) as usize] -= 1;
                self.occupied[Piece::side_of(captured) as usize].remove(m.to);
                undo.captured = captured;
                self.lost[Piece::side_of(captured) as usize][Piece::kind_of(captured) as usize] +=
                    1;
                reset = true;
            }
            MoveKind::Push => {
                let pushed = self.board[m.to.index()];
                let ps = Piece::side_of(pushed) as usize;
                undo.captured = pushed;
                h ^= z.piece(pushed, m.to.index()) ^ z.piece(moved, m.from.index());
                let placed = match m.promotion {
                    Some(k) => {
                        self.counts[ps][Piece::kind_of(pushed) as usize] -= 1;
                        self.counts[ps][k.index()] += 1;
                        Piece {
                            side: Side(ps as u8),
                            kind: k,
                        }
                        .code()
                    }
                    None => pushed,
                };
                self.board[m.aux.index()] = placed;
                self.board[m.to.index()] = moved;
                self.board[m.from.index()] = 0;
                h ^= z.piece(placed, m.aux.index()) ^ z.piece(moved, m.to.index());
                self.occupied[ps].remove(m.to);
                self.occupied[ps].insert(m.aux);
                self.occupied[us.index()].remove(m.from);
                self.occupied[us.index()].insert(m.to);
                if self.royal[ps] == Some(m.to) {
                    self.royal[ps] = Some(m.aux);
                }
                if self.royal[us.index()] == Some(m.from) {
                    self.royal[us.index()] = Some(m.to);
                }
                reset = false;
            }
            MoveKind::Castle => {
                let partner = self.board[m.aux.index()];
                h ^= z.piece(moved, m.from.index()) ^ z.piece(partner, m.aux.index());
                self.board[m.from.index()] = 0;
                self.board[m.aux.index()] = 0;
                self.board[m.to.index()] = moved;
                self.board[m.aux2.index()] = partner;
                h ^= z.piece(moved, m.to.index()) ^ z.piece(partner, m.aux2.index());
                self.royal[us.index()] = Some(m.to);
                let occ = &mut self.occupied[us.index()];
                occ.remove(m.from);
                occ.remove(m.aux);
                occ.insert(m.to);
                occ.insert(m.aux2);
            }
            _ => {
                let victim_cell = if m.kind == MoveKind::EnPassant {
                    m.aux
                } else {
                    m.to
                };
                let captured = self.board[victim_cell.index()];
                if captured != 0 {
                    h ^= z.piece(captured, victim_cell.index());
                    self.board[victim_cell.index()] = 0;
                    self.counts[Piece::side_of(captured) as usize]
                        [Piece::kind_of(captured) as usize] -= 1;
                    self.occupied[Piece::side_of(captured) as usize].remove(victim_cell);
                    undo.captured = captured;
                    self.lost[Piece::side_of(captured) as usize]
                        [Piece::kind_of(captured) as usize] += 1;
                    reset = true;
                }
                h ^= z.piece(moved, m.from.index());
                self.board[m.from.index()] = 0;
                self.occupied[us.index()].remove(m.from);
                self.occupied[us.index()].insert(m.to);
                let placed = match m.promotion {
                    Some(k) => {
                        self.counts[us.index()][Piece::kind_of(moved) as usize] -= 1;
                        self.counts[us.index()][k.index()] += 1;
                        Piece { side: us, kind: k }.code()
                    }
                    None => moved,
                };
                self.board[m.to.index()] = placed;
                h ^= z.piece(placed, m.to.index());
                if self.royal[us.index()] == Some(m.from) {
                    self.royal[us.index()] = Some(m.to);
                }
            }
        }
        if m.kind != MoveKind::Freeze {
            self.rights &= !(self.rights_clear[m.from.index()] | self.rights_clear[m.to.index()]);
        }
        if v.special.is_some() {
            self.special_after(m);
            if special_hash {
                h ^= self.special_key();
            }
        }
        if m.kind == MoveKind::Castle {
            self.rights &= !self.rights_clear[m.aux.index()];
        }
        self.ep = if m.kind == MoveKind::DoubleStep && v.en_passant {
            Some((m.aux, m.to))
        } else {
            None
        };
        self.halfmoves = if reset { 0 } else { self.halfmoves + 1 };
        let sides = v.sides;
        if us.0 == sides - 1 {
            self.fullmoves += 1;
        }
        self.turn = Side((us.0 + 1) % sides);
        h ^= z.turn[self.turn.index()] ^ self.castling_key(self.rights);
        if let Some((t, _)) = self.ep {
            h ^= z.ep[t.index()];
        }
        self.hash = h;
        self.history.push(undo);
        if sides > 2 {
            self.after_move(us);
        }
    }

    /// Hands the turn to the opponent without moving (a "null move", for a search's null-move
    /// pruning; never a move of the game). Two sides only: with more, the turn order and
    /// eliminations are not a simple hand-over. The en-passant right lapses and the halfmove
    /// clock restarts, so no repetition is counted across the pass. [`Position::undo`] takes
    /// it back.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, Position, Side};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let mut pos = Position::start(&chess);
    /// let start = pos.clone();
    /// pos.play_null();
    /// assert_eq!(pos.turn(), Side::BLACK);
    /// assert_ne!(pos.hash(), start.hash());
    /// pos.undo();
    /// assert!(pos == start && pos.hash() == start.hash());
    /// ```
    pub fn play_null(&mut self) {
        assert_eq!(self.variant.sides, 2, "a null move needs two sides");
        self.history.push(Undo::turn_event(
            Move::new(Cell(0), Cell(0), MoveKind::Pass),
            self,
        ));
        let z = &self.variant.zobrist;
        let us = self.turn;
        let them = Side(1 - us.0);
        let mut h = self.hash ^ z.turn[us.index()] ^ z.turn[them.index()];
        if let Some((t, _)) = self.ep.take() {
            h ^= z.ep[t.index()];
        }
        self.halfmoves = 0;
        if us.0 == 1 {
            self.fullmoves += 1;
        }
        self.turn = them;
        self.hash = h;
    }

    /// Takes back the last move played. Returns it, or `None` if nothing was played since the
    /// position was set up (a position read from state text has no history before it).
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, Position, notation};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let mut pos = Position::start(&chess);
    /// let m = notation::parse_move(&pos, "e4").unwrap();
    /// pos.play(m).unwrap();
    /// assert_eq!(pos.undo(), Some(m));
    /// assert_eq!(pos.undo(), None);
    /// ```
    pub fn undo(&mut self) -> Option<Move> {
        let u = self.history.pop()?;
        let m = u.mv;
        let sides = self.variant.sides;
        if sides > 2 {
            // Puts back who went out, the turn and the move number.
            self.undo_turnover();
            if m.kind >= MoveKind::Resign {
                self.rights = u.rights;
                self.ep = u.ep;
                self.halfmoves = u.halfmoves;
                self.hash = u.hash;
                return Some(m);
            }
        } else {
            self.turn = Side((self.turn.0 + sides - 1) % sides);
            if self.turn.0 == sides - 1 {
                self.fullmoves -= 1;
            }
            if m.kind == MoveKind::Pass {
                // A null move (`play_null`): nothing moved.
                self.rights = u.rights;
                self.ep = u.ep;
                self.halfmoves = u.halfmoves;
                self.hash = u.hash;
                return Some(m);
            }
        }
        let us = self.turn;
        if let Some((unmoved, freezes)) = self.special_history.pop() {
            self.unmoved = unmoved;
            self.freezes = freezes;
        }
        match m.kind {
            MoveKind::Flip => {
                if let Some(k) = m.promotion {
                    self.counts[us.index()][k.index()] -= 1;
                    self.counts[us.index()][Piece::kind_of(u.moved) as usize] += 1;
                }
                self.board[m.from.index()] = u.moved;
            }
            MoveKind::Freeze => {}
            MoveKind::Kill => {
                self.board[m.to.index()] = u.captured;
                self.occupied[Piece::side_of(u.captured) as usize].insert(m.to);
                self.counts[Piece::side_of(u.captured) as usize]
                    [Piece::kind_of(u.captured) as usize] += 1;
                self.lost[Piece::side_of(u.captured) as usize]
                    [Piece::kind_of(u.captured) as usize] -= 1;
            }
            MoveKind::Push => {
                let ps = Piece::side_of(u.captured) as usize;
                if let Some(k) = m.promotion {
                    self.counts[ps][k.index()] -= 1;
                    self.counts[ps][Piece::kind_of(u.captured) as usize] += 1;
                }
                self.board[m.aux.index()] = 0;
                self.board[m.to.index()] = u.captured;
                self.board[m.from.index()] = u.moved;
                self.occupied[ps].remove(m.aux);
                self.occupied[ps].insert(m.to);
                self.occupied[us.index()].remove(m.to);
                self.occupied[us.index()].insert(m.from);
                if self.royal[ps] == Some(m.aux) {
                    self.royal[ps] = Some(m.to);
                }
                if self.royal[us.index()] == Some(m.to) {
                    self.royal[us.index()] = Some(m.from);
                }
            }
            MoveKind::Castle => {
                let partner = self.board[m.aux2.index()];
                self.board[m.to.index()] = 0;
                self.board[m.aux2.index()] = 0;
                self.board[m.from.index()] = u.moved;
                self.board[m.aux.index()] = partner;
                self.royal[us.index()] = Some(m.from);
                let occ = &mut self.occupied[us.index()];
                occ.remove(m.to);
                occ.remove(m.aux2);
                occ.insert(m.from);
                occ.insert(m.aux);
            }
            _ => {
                if let Some(k) = m.promotion {
                    self.counts[us.index()][k.index()] -= 1;
                    self.counts[us.index()][Piece::kind_of(u.moved) as usize] += 1;
                }
                self.board[m.to.index()] = 0;
                self.board[m.from.index()] = u.moved;
                self.occupied[us.index()].remove(m.to);
                self.occupied[us.index()].insert(m.from);
                if u.captured != 0 {
                    let cell = if m.kind == MoveKind::EnPassant {
                        m.aux
                    } else {
                        m.to
                    };
                    self.board[cell.index()] = u.captured;
                    self.occupied[Piece::side_of(u.captured) as usize].insert(cell);
                    self.counts[Piece::side_of(u.captured) as usize]
                        [Piece::kind_of(u.captured) as usize] += 1;
                    self.lost[Piece::side_of(u.captured) as usize]
                        [Piece::kind_of(u.captured) as usize] -= 1;
                }
                if self.royal[us.index()] == Some(m.to) {
                    self.royal[us.index()] = Some(m.from);
                }
            }
        }
        self.rights = u.rights;
        self.ep = u.ep;
        self.halfmoves = u.halfmoves;
        self.hash = u.hash;
        Some(m)
    }

    /// Plays a move after checking that it is legal here: the entry point for moves that
    /// come from outside the engine (a stored game, a player's text).
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, DrawReason, Outcome, Position, Side, WinReason, notation};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let mut pos = Position::start(&chess);
    /// for text in ["f3", "e5", "g4", "Qh4"] {
    ///     let m = notation::parse_move(&pos, text).unwrap();
    ///     pos.play(m)?;
    /// }
    /// assert_eq!(
    ///     pos.outcome(),
    ///     Some(Outcome::Win { winner: Side::BLACK, reason: WinReason::Checkmate })
    /// );
    /// # let _ = DrawReason::Stalemate;
    /// # Ok::<_, rules::IllegalMove>(())
    /// ```
    ///
    /// # Errors
    /// [`crate::IllegalMove`] with the reason the move is refused.
    pub fn play(&mut self, m: Move) -> Result<(), crate::IllegalMove> {
        if m.kind == MoveKind::Resign {
            return if self.resignation(Position::resigner(m)) == Some(m) {
                self.play_turn_event(m);
                Ok(())
            } else {
                Err(crate::explain::explain(self, m))
            };
        }
        if self.legal_moves().contains(&m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(crate::explain::explain(self, m))
        }
    }
}

type Saved = [(u8, u8); 4];

pub(super) fn save_cells(board: &[u8], m: Move) -> Saved {
    [m.from.0, m.to.0, m.aux.0, m.aux2.0].map(|c| (c, board[c as usize]))
}

pub(super) fn restore_cells(board: &mut [u8], saved: Saved) {
    for (c, v) in saved.iter().rev() {
        board[*c as usize] = *v;
    }
}

/// Applies a move's effect on occupancy to a bare board (promotion is irrelevant to whether
/// the mover's own King is attacked).
pub(super) fn apply_to_board(board: &mut [u8], m: Move) {
    let moved = board[m.from.index()];
    match m.kind {
        MoveKind::Castle => {
            let partner = board[m.aux.index()];
            board[m.from.index()] = 0;
            board[m.aux.index()] = 0;
            board[m.to.index()] = moved;
            board[m.aux2.index()] = partner;
        }
        MoveKind::EnPassant => {
            board[m.aux.index()] = 0;
            board[m.from.index()] = 0;
            board[m.to.index()] = moved;
        }
        _ => {
            board[m.from.index()] = 0;
            board[m.to.index()] = moved;
        }
    }
}
