//! Construction and validation: [`Setup`] (what a state text or a caller says) becomes a
//! [`Position`] only through [`Position::from_setup`], which checks everything a position
//! needs to be playable and derives what play keeps incrementally (castling slots, counts,
//! occupancy, the hash).

use std::sync::Arc;

use super::Position;
use crate::{
    types::{Cell, CellSet, MAX_KINDS, MAX_SIDES, Piece, Side},
    variant::{CastlingRule, Variant},
};

/// A position that has not been checked: public fields, structural equality. Turn it into a
/// [`Position`] with [`Position::from_setup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// The piece on each cell.
    pub board: Vec<Option<Piece>>,
    /// The side to move.
    pub turn: Side,
    /// Cells of castling partners that still have their right (the King must not have moved).
    pub castling: Vec<Cell>,
    /// The en-passant target: the cell a pawn just skipped.
    pub ep: Option<Cell>,
    /// Plies since the last capture or pawn move.
    pub halfmoves: u32,
    /// The move number, starting at 1, incremented after the second side moves.
    pub fullmoves: u32,
    /// Cells of pieces with an opening two-step that have not used it (special powers only).
    pub unmoved: Vec<Cell>,
    /// Active freezes as (freezing piece's cell, frozen piece's cell) (special powers only).
    pub freezes: Vec<(Cell, Cell)>,
    /// Pieces captured so far in the game, by their owner and kind (only kept for variants won
    /// by captures: CoBlaChe).
    pub captured: Vec<Piece>,
    /// Sides out of the game (games of more than two sides): they have no pieces and no turn.
    pub out: Vec<Side>,
}

/// Why a setup is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The board does not have one entry per cell.
    #[error("the board has {found} cells, this variant has {expected}")]
    BoardSize {
        /// Cells of the variant.
        expected: usize,
        /// Entries in the setup.
        found: usize,
    },
    /// A side has the wrong number of royal pieces.
    #[error("{side} has {count} royal pieces; it needs exactly one")]
    Royals {
        /// The side's name.
        side: String,
        /// How many it has.
        count: usize,
    },
    /// The side that just moved left its King attacked.
    #[error("the side not to move ({side}) is in check, which cannot happen in a game")]
    OppositeCheck {
        /// The side's name.
        side: String,
    },
    /// A castling right that cannot exist.
    #[error("castling right on {cell}: {problem}")]
    Castling {
        /// The partner cell.
        cell: String,
        /// What is wrong.
        problem: String,
    },
    /// An en-passant cell that cannot exist.
    #[error("en-passant cell {cell}: {problem}")]
    EnPassant {
        /// The cell.
        cell: String,
        /// What is wrong.
        problem: String,
    },
    /// A special-power state entry (unmoved piece, freeze) that cannot exist.
    #[error("{field} {entry}: {problem}")]
    Special {
        /// `unmoved` or `frozen`.
        field: &'static str,
        /// The entry as written.
        entry: String,
        /// What is wrong.
        problem: String,
    },
    /// A side marked out of the game that still has pieces or the turn, or an out mark in a
    /// two-sided game.
    #[error("{side} is out of the game: {problem}")]
    Out {
        /// The side's name.
        side: String,
        /// What is wrong.
        problem: String,
    },
    /// A piece that must have promoted.
    #[error("the {piece} on {cell} stands where it must promote")]
    Unpromoted {
        /// Piece name.
        piece: String,
        /// Its cell.
        cell: String,
    },
}

/// A castling slot: one King and one partner with a right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CastleSlot {
    pub side: Side,
    pub king: Cell,
    pub partner: Cell,
    /// For fixed and sliding castling: what never changes while the right lasts (the King
    /// and partner cannot have moved), so the generator only looks at the board. `None` when
    /// this slot can never castle, or for listed (table) castling.
    pub plan: Option<CastlePlan>,
}

/// The board-independent part of one fixed or sliding castling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CastlePlan {
    pub king_to: Cell,
    pub partner_to: Cell,
    /// Cells that must be empty: both paths but for the King and the partner (Chess960).
    pub empty: CellSet,
    /// The King's route, start excluded, destination included.
    pub route: [Cell; crate::types::MAX_FILES],
    pub route_len: u8,
}

impl CastlePlan {
    /// The plan of castling King `kc` with partner `pc` under a fixed or sliding rule.
    fn new(v: &Variant, kc: Cell, pc: Cell) -> Option<CastlePlan> {
        let g = &v.geometry;
        let (ki, pi) = (g.info(kc), g.info(pc));
        let (board_id, rank) = (ki.board, ki.rank as i32);
        let (kf, pf) = (ki.file as i32, pi.file as i32);
        let dir = if pf > kf { 1 } else { -1 };
        let wing = if dir > 0 { 0 } else { 1 };
        let (kt_file, pt_file) = match v.castling {
            CastlingRule::None | CastlingRule::Table(_) => return None,
            CastlingRule::Fixed {
                king_files,
                partner_files,
            } => (king_files[wing] as i32, partner_files[wing] as i32),
            CastlingRule::Slide { steps } => {
                let steps = steps as i32;
                if (pf - kf).abs() <= steps {
                    return None;
                }
                (kf + dir * steps, kf + dir * (steps - 1))
            }
        };
        let kt = g.at(board_id, kt_file, rank)?;
        let pt = g.at(board_id, pt_file, rank)?;
        // Chess960 emptiness: both paths empty but for the King and the partner.
        let span = |a: i32, b: i32| a.min(b)..=a.max(b);
        let mut empty = CellSet::EMPTY;
        for c in span(kf, kt_file)
            .chain(span(pf, pt_file))
            .filter_map(|f| g.at(board_id, f, rank))
        {
            if c != kc && c != pc {
                empty.insert(c);
            }
        }
        let step = if kt_file >= kf { 1 } else { -1 };
        let mut route = [kc; crate::types::MAX_FILES];
        let mut len = 0;
        for n in 1..=(kt_file - kf).abs() {
            let Some(c) = g.at(board_id, kf + step * n, rank) else {
                break;
            };
            route[len] = c;
            len += 1;
        }
        if (len == 0 && kt != kc) || (len > 0 && route[len - 1] != kt) {
            return None;
        }
        Some(CastlePlan {
            king_to: kt,
            partner_to: pt,
            empty,
            route,
            route_len: len as u8,
        })
    }
}

impl Position {
    /// The variant's start position.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, Position, Side};
    ///
    /// let capablanca = Catalog::builtin().get("capablanca").unwrap();
    /// let pos = Position::start(&capablanca);
    /// assert_eq!(pos.turn(), Side::WHITE);
    /// assert_eq!(pos.legal_moves().len(), 28);
    /// ```
    ///
    /// # Panics
    /// Never for a variant built by [`Variant::from_spec`], which validates its start.
    pub fn start(variant: &Arc<Variant>) -> Position {
        let setup = crate::fen::parse(variant, &variant.start).expect("validated start FEN");
        Position::from_setup(variant, setup).expect("validated start position")
    }

    /// Validates a setup: the only way to a [`Position`], so that generation never has to
    /// guard against a missing King, an impossible castling right or en-passant cell.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, Position, PositionError, fen};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// // White to move while Black's King stands in check: Black's last move was illegal.
    /// let setup = fen::parse(&chess, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
    /// assert!(Position::from_setup(&chess, setup).is_ok());
    /// let setup = fen::parse(&chess, "R3k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    /// assert!(matches!(
    ///     Position::from_setup(&chess, setup),
    ///     Err(PositionError::OppositeCheck { .. })
    /// ));
    /// ```
    ///
    /// # Errors
    /// A [`PositionError`] saying what is impossible about it.
    pub fn from_setup(variant: &Arc<Variant>, setup: Setup) -> Result<Position, PositionError> {
        let g = &variant.geometry;
        if setup.board.len() != g.len() {
            return Err(PositionError::BoardSize {
                expected: g.len(),
                found: setup.board.len(),
            });
        }
        let mut pos = Position {
            variant: variant.clone(),
            board: vec![0; g.len()],
            turn: setup.turn,
            slots: Arc::from(Vec::new()),
            rights_clear: Arc::from(vec![0u16; g.len()]),
            rights: 0,
            ep: None,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
            royal: [None; MAX_SIDES],
            counts: [[0; MAX_KINDS + 1]; MAX_SIDES],
            occupied: [CellSet::EMPTY; MAX_SIDES],
            hash: 0,
            history: Vec::new(),
            unmoved: CellSet::EMPTY,
            freezes: Vec::new(),
            special_history: Vec::new(),
            lost: [[0; MAX_KINDS + 1]; MAX_SIDES],
            out: 0,
            turnovers: Vec::new(),
            checked_at_setup: 0,
        };
        let sides = variant.sides as usize;
        for side in &setup.out {
            let bad = |problem: &str| PositionError::Out {
                side: side.name(sides).to_string(),
                problem: problem.to_string(),
            };
            if sides <= 2 {
                return Err(bad(
                    "only a game of more than two sides goes on without a side",
                ));
            }
            if side.index() >= sides {
                return Err(bad("not a side of this variant"));
            }
            if setup.board.iter().flatten().any(|p| p.side == *side) {
                return Err(bad("it still has pieces on the board"));
            }
            if setup.turn == *side {
                return Err(bad("it cannot have the turn"));
            }
            pos.out |= 1 << side.0;
        }
        if setup.turn.index() >= sides {
            return Err(PositionError::Out {
                side: format!("side {}", setup.turn.0 + 1),
                problem: "the turn belongs to no side of this variant".into(),
            });
        }
        for p in &setup.captured {
            let n = &mut pos.lost[p.side.index().min(MAX_SIDES - 1)][p.kind.index().min(MAX_KINDS)];
            *n = n.saturating_add(1);
        }
        let mut royals = vec![0usize; sides];
        for (i, p) in setup.board.iter().enumerate() {
            if let Some(p) = p {
                let cell = Cell(i as u8);
                pos.board[i] = p.code();
                pos.occupied[p.side.index()].insert(cell);
                pos.counts[p.side.index()][p.kind.index()] += 1;
                if variant.piece(p.kind).royal {
                    royals[p.side.index()] += 1;
                    pos.royal[p.side.index()] = Some(cell);
                }
                let zone = &variant.promotion.compulsory[p.side.index()];
                if variant.piece(p.kind).pawn && zone.contains(cell) {
                    return Err(PositionError::Unpromoted {
                        piece: variant.piece(p.kind).name.clone(),
                        cell: g.name(cell).to_string(),
                    });
                }
            }
        }
        if variant.pieces.iter().any(|p| p.royal) {
            for (s, count) in royals.iter().enumerate() {
                if *count != 1 && !pos.is_out(Side(s as u8)) {
                    return Err(PositionError::Royals {
                        side: Side(s as u8).name(sides).to_string(),
                        count: *count,
                    });
                }
            }
        }
        pos.set_castling(&setup.castling)?;
        pos.set_special(&setup.unmoved, &setup.freezes)?;
        if let Some(ep) = setup.ep {
            pos.ep = Some((ep, pos.ep_victim(ep)?));
        }
        // The side that just moved may not have left its royal piece attacked. (With more
        // than two sides, a side not to move may be in check: it answers on its turn.)
        let prev = Side(((setup.turn.0 as usize + sides - 1) % sides) as u8);
        if sides <= 2
            && let Some(k) = pos.royal[prev.index()]
            && pos.attacked_by_any_enemy(&pos.board, prev, k)
        {
            return Err(PositionError::OppositeCheck {
                side: prev.name(sides).to_string(),
            });
        }
        if sides > 2 {
            for s in variant.all_sides() {
                if pos.in_check(s) {
                    pos.checked_at_setup |= 1 << s.0;
                }
            }
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    fn set_castling(&mut self, partners: &[Cell]) -> Result<(), PositionError> {
        let v = self.variant.clone();
        let g = &v.geometry;
        let mut slots = Vec::new();
        let mut clear = vec![0u16; g.len()];
        for &pc in partners {
            let bad = |problem: &str| PositionError::Castling {
                cell: g.name(pc).to_string(),
                problem: problem.to_string(),
            };
            if v.castling == CastlingRule::None {
                return Err(bad("this variant has no castling"));
            }
            let p =
                Piece::from_code(self.board[pc.index()]).ok_or_else(|| bad("the cell is empty"))?;
            if !v.piece(p.kind).castles {
                return Err(bad("the piece there cannot castle"));
            }
            let k = self.royal[p.side.index()].ok_or_else(|| bad("its side has no King"))?;
            let (ki, pi) = (g.info(k), g.info(pc));
            if ki.board != pi.board || ki.rank != pi.rank {
                return Err(bad("the King is not on the partner's rank"));
            }
            if slots.len() >= 16 {
                return Err(bad("too many castling rights"));
            }
            if slots.iter().any(|s: &CastleSlot| s.partner == pc) {
                continue;
            }
            let bit = 1u16 << slots.len();
            clear[pc.index()] |= bit;
            clear[k.index()] |= bit;
            slots.push(CastleSlot {
                side: p.side,
                king: k,
                partner: pc,
                plan: CastlePlan::new(&v, k, pc),
            });
            self.rights |= bit;
        }
        self.slots = Arc::from(slots);
        self.rights_clear = Arc::from(clear);
        Ok(())
    }

    /// The cell of the pawn that can be taken en passant on `target`.
    fn ep_victim(&self, target: Cell) -> Result<Cell, PositionError> {
        let g = &self.variant.geometry;
        let bad = |problem: &str| PositionError::EnPassant {
            cell: g.name(target).to_string(),
            problem: problem.to_string(),
        };
        if self.board[target.index()] != 0 {
            return Err(bad("it is occupied"));
        }
        let i = g.info(target);
        // The pawn that just stepped twice: with two sides the other side's; with more, any
        // side's but the one to move (passes may have come between).
        for mover in self.variant.all_sides().filter(|s| *s != self.turn) {
            let (fwd, _) = self
                .variant
                .orientation
                .facing(mover, target.index())
                .frame();
            let Some(victim) = g.canon(i.board, i.file as i32 + fwd.0, i.rank as i32 + fwd.1)
            else {
                continue;
            };
            if let Some(p) = Piece::from_code(self.board[victim.index()])
                && p.side == mover
                && self.variant.piece(p.kind).pawn
            {
                return Ok(victim);
            }
        }
        Err(bad("no pawn of the side that just moved stands beyond it"))
    }

    /// The hash key of a set of castling rights: one key per partner cell.
    pub(super) fn castling_key(&self, mask: u16) -> u64 {
        let z = &self.variant.zobrist;
        self.slots
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 != 0)
            .fold(0, |h, (_, s)| h ^ z.castling[s.partner.index()])
    }

    fn compute_hash(&self) -> u64 {
        let z = &self.variant.zobrist;
        let mut h = z.turn[self.turn.index()] ^ self.castling_key(self.rights);
        for (i, c) in self.board.iter().enumerate() {
            if *c != 0 {
                h ^= z.piece(*c, i);
            }
        }
        if let Some((t, _)) = self.ep {
            h ^= z.ep[t.index()];
        }
        h ^ self.special_key()
    }

    /// Turns the position back into a setup.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.iter().map(|c| Piece::from_code(*c)).collect(),
            turn: self.turn,
            castling: self.castling_cells(),
            ep: self.ep.map(|e| e.0),
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
            unmoved: self.unmoved.iter().collect(),
            freezes: self
                .freeze_set()
                .into_iter()
                .map(|(a, b)| (Cell(a), Cell(b)))
                .collect(),
            captured: self.captured_pieces(),
            out: self
                .variant
                .all_sides()
                .filter(|s| self.is_out(*s))
                .collect(),
        }
    }
}
