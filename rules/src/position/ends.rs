//! The game ends that depend on the material left: the bare-King rule and dead positions.
//! Both are asked only by [`Position::outcome`] (and the engine), never during generation.

use super::{Outcome, Position};
use crate::{
    types::{Cell, MoveList, Piece, Side},
    variant::dead,
};

/// The bare-King rule's verdict for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bare {
    /// Nobody is bare, or the side to move is bare and may still bare the other side.
    Neither,
    /// The side that just moved is bare and the side to move is not: it had its chance.
    OtherLost,
    /// The side to move is bare and cannot bare the other side with this move.
    MoverLost,
    /// Both sides are bare.
    Both,
}

impl Position {
    /// Whether a side has nothing but royal pieces.
    pub fn is_bare(&self, side: Side) -> bool {
        self.occupied[side.index()].iter().all(|c| {
            self.piece_at(c)
                .is_some_and(|p| self.variant.piece(p.kind).royal)
        })
    }

    /// The bare-King rule (`[victory] bare_king = "loses"`): a side reduced to its royal
    /// piece loses, unless its very next move bares the other side too, which draws. The
    /// loss is declared as soon as it is certain: at once when the bare side, to move, has no
    /// capture that leaves the other side bare; otherwise after its move, if it did not bare
    /// the other side. Two sides only.
    pub(super) fn bare_king(&self) -> Bare {
        let me = self.turn;
        let other = Side(1 - me.0);
        match (self.is_bare(me), self.is_bare(other)) {
            (false, false) => Bare::Neither,
            (true, true) => Bare::Both,
            (false, true) => Bare::OtherLost,
            (true, false) => {
                if self.can_bare(other) {
                    Bare::Neither
                } else {
                    Bare::MoverLost
                }
            }
        }
    }

    /// Whether the side to move has a legal capture of `other`'s only non-royal piece.
    fn can_bare(&self, other: Side) -> bool {
        let v = &*self.variant;
        let mut last = None;
        for c in self.occupied[other.index()].iter() {
            if let Some(p) = self.piece_at(c)
                && !v.piece(p.kind).royal
            {
                if last.is_some() {
                    return false;
                }
                last = Some(c);
            }
        }
        let Some(target) = last else { return false };
        let mut moves = MoveList::new();
        self.legal_moves_into(&mut moves);
        moves
            .iter()
            .any(|m| m.is_capture() && captured_cell(m) == target)
    }

    /// The bare-King rule's outcome for this position, if it ends the game (see
    /// [`Position::outcome`] for the order in which the rules are asked). `None` when the
    /// variant has no such rule.
    pub fn bare_king_outcome(&self) -> Option<Outcome> {
        if !self.variant.end.bare_king || self.variant.sides != 2 {
            return None;
        }
        let mover = self.turn;
        let other = Side(1 - mover.0);
        match self.bare_king() {
            Bare::Neither => None,
            Bare::OtherLost => Some(Outcome::Win {
                winner: mover,
                reason: super::WinReason::BareKing,
            }),
            Bare::MoverLost => Some(Outcome::Win {
                winner: other,
                reason: super::WinReason::BareKing,
            }),
            Bare::Both => Some(Outcome::Draw(super::DrawReason::BareKings)),
        }
    }

    /// Whether the position is dead: no sequence of legal moves can ever checkmate either
    /// King, judged from the material left and what it can do on this board.
    ///
    /// The test is a material test (FIDE's dead-position rule in general needs a search no
    /// referee can afford), derived from each piece's movement rather than from a list, and
    /// conservative: it says "dead" only when mate is impossible, and "alive" whenever it is
    /// unsure. Dead are: Kings alone; one piece that cannot mate a lone King with its own
    /// King's help on this board, found by trying every placement (a Knight, a Bishop, a
    /// Camel); and any set of pieces that can never stand on or attack some King step of the
    /// checked King's every cell, which the other King would then have to cover from a cell
    /// next to it (Bishops all on one colour, with Ferzes and Camels of that colour). Alive,
    /// always: a pawn-like piece (it may promote), a castling right, a piece with a special power, a royal piece
    /// that is not a symmetric leaper (it could give check), and variants with another way to
    /// win (a capture goal, the bare-King rule, stalemate as a loss) or more than two sides.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, fen};
    ///
    /// let capablanca = Catalog::builtin().get("capablanca").unwrap();
    /// let pos = fen::position(&capablanca, "k9/10/10/10/10/10/10/5B3K w - - 0 1").unwrap();
    /// assert!(pos.is_dead());
    /// let pos = fen::position(&capablanca, "k9/10/10/10/10/10/10/5A3K w - - 0 1").unwrap();
    /// assert!(!pos.is_dead()); // the Archbishop mates
    /// ```
    pub fn is_dead(&self) -> bool {
        let v = &*self.variant;
        // Castling moves a partner where its own moves never go: with a right left, the
        // regions below would not be the whole truth.
        if v.sides != 2 || v.unusual || v.end.bare_king || v.end.stalemate_loses || self.rights != 0
        {
            return false;
        }
        let mut pieces: Vec<(Piece, Cell)> = Vec::new();
        for side in v.all_sides() {
            let mut royals = 0;
            for c in self.occupied[side.index()].iter() {
                let Some(p) = self.piece_at(c) else { continue };
                let pt = v.piece(p.kind);
                if pt.royal {
                    royals += 1;
                } else if pt.pawn || pt.powers.any() || pt.crossing.is_some() || pt.shuns != 0 {
                    return false;
                } else {
                    pieces.push((p, c));
                }
            }
            if royals != 1 {
                return false;
            }
        }
        let Some(steps) = v.mating.royal_steps(v) else {
            return false;
        };
        match pieces.as_slice() {
            [] => true,
            [(p, c)] => !v.mating.kind(v, p.kind, p.side).lone_mate[c.index()],
            _ => {
                let (mut region, mut attacks) = Default::default();
                for (p, c) in &pieces {
                    let k = v.mating.kind(v, p.kind, p.side);
                    dead::or(&mut region, &k.region[c.index()]);
                    dead::or(&mut attacks, &k.attacks[c.index()]);
                }
                !dead::mate_possible_outside(v, &region, &attacks, steps)
            }
        }
    }
}

impl Position {
    /// A draw that endgame theory knows and the rules do not end: one side has only its
    /// royal piece, on or next to the one cell where the other side's pawns would promote, a
    /// corner; and none of the other side's pieces can ever attack that corner nor a cell
    /// beside it off the pawns' file. In chess: King, Bishop and Rook's Pawns against a King
    /// in the corner, the Bishop of the wrong colour. The lone King shuttles between the two
    /// cells that nothing but the other King can attack; driven from them he is stalemated,
    /// and the pawns cannot promote past him. [`Position::outcome`] never ends a game for it;
    /// the engine scores it as a draw rather than as the pawns' and pieces' worth.
    ///
    /// Only where the reasoning holds as in chess: two sides, no special rules, stalemate a
    /// draw, royal pieces that step like Kings, pawns that move straight along their file,
    /// pieces without powers.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, fen};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let pos = fen::position(&chess, "k7/8/8/8/P7/8/8/2B1K3 w - - 0 60").unwrap();
    /// assert!(pos.is_wrong_corner_draw()); // the dark Bishop never attacks a8
    /// let pos = fen::position(&chess, "k7/8/8/8/P7/8/8/3BK3 w - - 0 60").unwrap();
    /// assert!(!pos.is_wrong_corner_draw()); // the light one does: a win
    /// ```
    pub fn is_wrong_corner_draw(&self) -> bool {
        let v = &*self.variant;
        if v.sides != 2
            || v.unusual
            || v.special.is_some()
            || v.end.bare_king
            || v.end.stalemate_loses
        {
            return false;
        }
        let Some(steps) = v.mating.royal_steps(v) else {
            return false;
        };
        let Some(lone) = v.all_sides().find(|s| self.occupied[s.index()].len() == 1) else {
            return false;
        };
        let strong = v.all_sides().find(|s| *s != lone).unwrap_or(lone);
        let Some(lone_king) = self.occupied[lone.index()].iter().next() else {
            return false;
        };
        if !self
            .piece_at(lone_king)
            .is_some_and(|p| v.piece(p.kind).royal)
        {
            return false;
        }
        // The strong side: one royal piece, pawns on one file, pieces without powers.
        let (mut royals, mut file) = (0, None);
        let mut pieces: Vec<(Piece, Cell)> = Vec::new();
        for c in self.occupied[strong.index()].iter() {
            let Some(p) = self.piece_at(c) else { continue };
            let pt = v.piece(p.kind);
            if pt.royal {
                royals += 1;
            } else if pt.powers.any() || pt.crossing.is_some() || pt.shuns != 0 {
                return false;
            } else if pt.pawn {
                let at = v.geometry.info(c);
                let here = (at.board, at.file);
                if *file.get_or_insert(here) != here {
                    return false;
                }
                // It moves (without capturing) only along its file.
                let straight = v.empty_board_reach(p.kind, strong, c).iter().all(|r| {
                    let to = v.geometry.info(r.cell);
                    !r.moves || (to.board, to.file) == here
                });
                if !straight {
                    return false;
                }
            } else {
                pieces.push((p, c));
            }
        }
        let Some((board, file)) = file else {
            return false;
        };
        if royals != 1 {
            return false;
        }
        // The pawns' one promotion cell on their file, a corner.
        let on_file = |c: &Cell| {
            let i = v.geometry.info(*c);
            i.board == board && i.file == file
        };
        let promotion = &v.promotion;
        if promotion.optional[strong.index()]
            .iter()
            .any(|c| on_file(&c))
        {
            return false;
        }
        let mut corners = promotion.compulsory[strong.index()].iter().filter(on_file);
        let (Some(corner), None) = (corners.next(), corners.next()) else {
            return false;
        };
        let around = &steps[corner.index()];
        if around.len() > 3 || (lone_king != corner && !around.contains(lone_king)) {
            return false;
        }
        // Nothing but the King can attack the corner, nor a cell beside it off the file.
        let safe = |x: Cell| {
            pieces
                .iter()
                .all(|(p, c)| !v.mating.kind(v, p.kind, strong).region[c.index()].contains(x))
        };
        safe(corner) && around.iter().any(|y| !on_file(&y) && safe(y))
    }
}

/// The cell whose piece a capture removes (the en-passant victim's for en passant).
fn captured_cell(m: &crate::types::Move) -> Cell {
    if m.kind == crate::types::MoveKind::EnPassant {
        m.aux
    } else {
        m.to
    }
}
