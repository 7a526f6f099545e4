//! Positions: an unvalidated [`Setup`] and a validated, playable [`Position`].

use std::sync::Arc;

mod special;

use crate::{
    tables::{
        F_CAPTURE, F_DOUBLE, F_EP, F_MOVE, HOP, LEAPS, OP_NEED_EMPTY, OP_ORIGIN, Path, Tables,
    },
    types::{Cell, CellSet, Kind, MAX_KINDS, MAX_SIDES, Move, MoveKind, MoveList, Piece, Side},
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

/// What `play` must remember to undo a move.
#[derive(Debug, Clone, Copy)]
struct Undo {
    mv: Move,
    moved: u8,
    captured: u8,
    rights: u16,
    ep: Option<(Cell, Cell)>,
    halfmoves: u32,
    hash: u64,
}

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
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Win { reason, .. } => match reason {
                WinReason::Checkmate => write!(f, "checkmate"),
                WinReason::Captures => write!(f, "the capture of the pieces that win"),
            },
            Outcome::Draw(r) => match r {
                DrawReason::Stalemate => write!(f, "stalemate"),
                DrawReason::Repetition => write!(f, "repetition"),
                DrawReason::FiftyMoves => write!(f, "the fifty-move rule"),
                DrawReason::InsufficientMaterial => write!(f, "insufficient material"),
            },
        }
    }
}

/// A legal position of a variant, ready to generate and play moves.
#[derive(Debug, Clone)]
pub struct Position {
    variant: Arc<Variant>,
    board: Vec<u8>,
    turn: Side,
    slots: Arc<[CastleSlot]>,
    rights_clear: Arc<[u16]>,
    rights: u16,
    ep: Option<(Cell, Cell)>,
    halfmoves: u32,
    fullmoves: u32,
    royal: [Option<Cell>; MAX_SIDES],
    counts: [[u8; MAX_KINDS + 1]; MAX_SIDES],
    /// The cells of each side's pieces, so generation visits pieces rather than cells.
    occupied: [CellSet; MAX_SIDES],
    hash: u64,
    history: Vec<Undo>,
    /// Special powers: pieces that still have their opening two-step.
    unmoved: CellSet,
    /// Special powers: active freezes (freezer's cell, frozen cell).
    freezes: Vec<(u8, u8)>,
    /// Special powers: the state before each move, for undo.
    special_history: Vec<(CellSet, Vec<(u8, u8)>)>,
    /// Pieces each side has lost by capture over the game (`[side][kind]`).
    lost: [[u8; MAX_KINDS + 1]; MAX_SIDES],
}

impl PartialEq for Position {
    /// Positions are equal when they are the same for the repetition rule: same pieces on the
    /// same cells, same side to move, same castling rights and en-passant right.
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
            && self.turn == other.turn
            && self.castling_cells() == other.castling_cells()
            && self.ep == other.ep
            && self.unmoved == other.unmoved
            && self.freeze_set() == other.freeze_set()
            && self.lost == other.lost
    }
}

impl Position {
    /// The variant's start position.
    ///
    /// # Panics
    /// Never for a variant built by [`Variant::from_spec`], which validates its start.
    pub fn start(variant: &Arc<Variant>) -> Position {
        let setup = crate::fen::parse(variant, &variant.start).expect("validated start FEN");
        Position::from_setup(variant, setup).expect("validated start position")
    }

    /// Validates a setup.
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
        };
        for p in &setup.captured {
            let n = &mut pos.lost[p.side.index().min(MAX_SIDES - 1)][p.kind.index().min(MAX_KINDS)];
            *n = n.saturating_add(1);
        }
        let sides = variant.sides as usize;
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
                if *count != 1 {
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
        // The side that just moved may not have left its royal piece attacked.
        let prev = Side(((setup.turn.0 as usize + sides - 1) % sides) as u8);
        if let Some(k) = pos.royal[prev.index()]
            && pos.attacked_by_any_enemy(&pos.board, prev, k)
        {
            return Err(PositionError::OppositeCheck {
                side: prev.name(sides).to_string(),
            });
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
        let sides = self.variant.sides as usize;
        let mover = Side(((self.turn.0 as usize + sides - 1) % sides) as u8);
        let (fwd, _) = self
            .variant
            .orientation
            .facing(mover, target.index())
            .frame();
        let i = g.info(target);
        let victim = g
            .canon(i.board, i.file as i32 + fwd.0, i.rank as i32 + fwd.1)
            .ok_or_else(|| bad("there is no cell beyond it"))?;
        match Piece::from_code(self.board[victim.index()]) {
            Some(p) if p.side == mover && self.variant.piece(p.kind).pawn => Ok(victim),
            _ => Err(bad("no pawn of the side that just moved stands beyond it")),
        }
    }

    /// The hash key of a set of castling rights: one key per partner cell.
    fn castling_key(&self, mask: u16) -> u64 {
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
        }
    }

    /// Every piece captured so far (as far as this position knows: the state text carries it
    /// for variants won by captures), White's first, kinds in order.
    pub fn captured_pieces(&self) -> Vec<Piece> {
        let mut out = Vec::new();
        for (s, kinds) in self
            .lost
            .iter()
            .enumerate()
            .take(self.variant.sides as usize)
        {
            for (k, n) in kinds.iter().enumerate().skip(1) {
                for _ in 0..*n {
                    out.push(Piece {
                        side: Side(s as u8),
                        kind: Kind(k as u8),
                    });
                }
            }
        }
        out
    }

    /// For a piece of `kind` that shuns some enemy kinds (CoBlaChe's Queen and Prince): the
    /// cell of an enemy piece it shuns in the river section of `to`, if there is one.
    pub(crate) fn shunned_in_section(&self, kind: Kind, to: Cell) -> Option<Cell> {
        let v = &*self.variant;
        let mask = v.piece(kind).shuns;
        if mask == 0 {
            return None;
        }
        self.enemies(self.turn)
            .flat_map(|e| self.occupied[e as usize].iter())
            .find(|c| {
                mask >> (self.board[c.index()] & 31) & 1 != 0
                    && v.sections[c.index()] == v.sections[to.index()]
            })
    }

    /// Whether a side has met the capture goal (out of line: only CoBlaChe has one).
    #[cold]
    #[inline(never)]
    fn won_by_captures(&self) -> bool {
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

    /// The variant.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The piece on a cell.
    pub fn piece_at(&self, cell: Cell) -> Option<Piece> {
        Piece::from_code(self.board[cell.index()])
    }

    /// The side to move.
    pub fn turn(&self) -> Side {
        self.turn
    }

    /// Plies since the last capture or pawn move.
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number.
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The en-passant target cell, if the last move was a pawn's multi-step.
    pub fn ep_target(&self) -> Option<Cell> {
        self.ep.map(|e| e.0)
    }

    /// The partner cells that still have a castling right, in increasing order.
    pub fn castling_cells(&self) -> Vec<Cell> {
        let mut v: Vec<Cell> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(i, _)| self.rights >> i & 1 != 0)
            .map(|(_, s)| s.partner)
            .collect();
        v.sort();
        v
    }

    /// The royal piece's cell of a side.
    pub fn royal(&self, side: Side) -> Option<Cell> {
        self.royal[side.index()]
    }

    /// The repetition key (Zobrist hash of the whole state).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// How many pieces of a kind a side has.
    pub fn count(&self, side: Side, kind: Kind) -> u8 {
        self.counts[side.index()][kind.index()]
    }

    /// The moves played since this position was set up, oldest first.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }

    /// The sides other than `side`.
    fn enemies(&self, side: Side) -> impl Iterator<Item = u8> {
        let sides = self.variant.sides;
        (0..sides).filter(move |s| *s != side.0)
    }

    fn attacked_by_any_enemy(&self, board: &[u8], side: Side, cell: Cell) -> bool {
        self.enemies(side)
            .any(|e| self.attacked_on(board, e, cell.index()))
    }

    /// Whether `target` is attacked by `by` on `board` (a variant of this position's board);
    /// with special powers, freezes, screens and kills count.
    #[inline]
    fn attacked_on(&self, board: &[u8], by: u8, target: usize) -> bool {
        if self.variant.special.is_some() {
            self.special_attacked(board, by, target)
        } else {
            attacked(&self.variant.tables, board, by, target)
        }
    }

    /// Whether the side to move's royal piece is attacked.
    pub fn is_check(&self) -> bool {
        match self.royal[self.turn.index()] {
            Some(k) => self.attacked_by_any_enemy(&self.board, self.turn, k),
            None => false,
        }
    }

    /// Whether `cell` is attacked by `by` in this position.
    pub fn is_attacked(&self, cell: Cell, by: Side) -> bool {
        self.attacked_on(&self.board, by.0, cell.index())
    }

    /// The cells of `by`'s pieces that attack `cell`.
    pub fn attackers(&self, cell: Cell, by: Side) -> Vec<Cell> {
        if self.variant.special.is_some() {
            return self.special_attackers(&self.board, by.0, cell.index());
        }
        attackers_on(&self.variant.tables, &self.board, by.0, cell.index())
    }

    /// The cells of enemy pieces that would attack the mover's royal piece after `m`
    /// (empty if the move does not expose it). Used to explain refused moves.
    pub fn attackers_after(&self, m: Move) -> Vec<Cell> {
        let Some(mut king) = self.royal[self.turn.index()] else {
            return Vec::new();
        };
        if self.variant.special.is_some() {
            let mut s = self.clone();
            s.play_unchecked(m);
            let Some(k) = s.royal[self.turn.index()] else {
                return Vec::new();
            };
            return self
                .enemies(self.turn)
                .flat_map(|e| s.special_attackers(&s.board, e, k.index()))
                .collect();
        }
        let mut scratch = self.board.clone();
        apply_to_board(&mut scratch, m);
        if m.from == king {
            king = m.to;
        }
        self.enemies(self.turn)
            .flat_map(|e| attackers_on(&self.variant.tables, &scratch, e, king.index()))
            .collect()
    }

    // ----- move generation -------------------------------------------------------------

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut out = MoveList::with_capacity(64);
        self.legal_moves_into(&mut out);
        out
    }

    /// Every legal move, written into a reusable list (cleared first).
    ///
    /// Pins and check are found once, before generating: a move then needs the full test
    /// (play it on a scratch board, ask whether the King is attacked) only if it is a King
    /// move, a pinned piece's move, an en-passant capture or a castling, or if the King is in
    /// check; with hoppers also a move onto a cell that can screen an attack. The test runs
    /// on each piece's moves right after they are generated, so the common case (a piece
    /// that shields nothing) costs nothing per move.
    pub fn legal_moves_into(&self, out: &mut MoveList) {
        if self.variant.unusual {
            if self.won_by_captures() {
                // The game is won: nothing more may be played.
                out.clear();
                return;
            }
            if self.variant.special.is_some() {
                self.special_legal(out);
                return;
            }
        }
        out.clear();
        out.reserve(256);
        let us = self.turn;
        let Some(king) = self.royal[us.index()] else {
            self.pseudo_moves(out, |_, _, _| {});
            if self.variant.move_rules {
                self.apply_river_rules(out, 0);
            }
            return;
        };
        let mut ks = KingSafety::new(self, king);
        let (in_check, risky_from, risky_to) = (ks.in_check, ks.risky_from, ks.risky_to);
        let screens = !risky_to.is_empty();
        let ep = self.ep.is_some();
        let mut legal = |m: &Move| ks.allows(m);
        let end = self.pseudo_moves(out, |out, start, from| {
            if in_check || from == king || risky_from.contains(from) {
                retain_from(out, start, &mut legal);
            } else if screens {
                retain_from(out, start, |m| {
                    !(risky_to.contains(m.to) || m.kind == MoveKind::EnPassant) || legal(m)
                });
            } else if ep {
                retain_from(out, start, |m| m.kind != MoveKind::EnPassant || legal(m));
            }
        });
        // Castlings (after `end`) are always tested: a Chess960 partner may shield the King.
        retain_from(out, end, &mut legal);
        if self.variant.move_rules {
            self.apply_river_rules(out, 0);
        }
    }

    /// Pseudo-legal moves (own-King safety not checked). For tests that check the legal
    /// generator against an independent oracle.
    #[doc(hidden)]
    pub fn pseudo_legal_moves(&self) -> MoveList {
        let mut out = MoveList::new();
        if self.variant.special.is_some() {
            self.special_pseudo(&mut out);
        } else {
            self.pseudo_moves(&mut out, |_, _, _| {});
            if self.variant.move_rules {
                self.apply_river_rules(&mut out, 0);
            }
        }
        out
    }

    /// The number of legal moves (what perft counts at its last ply). `buf` is scratch
    /// space; what it holds afterwards is unspecified.
    ///
    /// The moves of a piece that needs no full legality test (see
    /// [`Position::legal_moves_into`]) and has no promotion or duplicate to sort out are
    /// counted as they are generated, never written to a list.
    pub fn count_legal(&self, buf: &mut MoveList) -> usize {
        let us = self.turn;
        let king = match self.royal[us.index()] {
            Some(k) if !self.variant.unusual => k,
            _ => {
                self.legal_moves_into(buf);
                return buf.len();
            }
        };
        let v = &*self.variant;
        let t = &v.tables;
        let board = &self.board[..];
        let mut ks = KingSafety::new(self, king);
        let screens = !ks.risky_to.is_empty();
        let mut n = 0;
        for from in self.occupied[us.index()].iter() {
            let code = board[from.index()];
            let slot = t.slot((code & 31) as usize, us.index(), from.index());
            let (a, b) = t.index[slot];
            let paths = &t.paths[a as usize..b as usize];
            let full = ks.in_check || from == king || ks.risky_from.contains(from);
            if full || t.dedupe[slot] || t.promotes[slot] {
                buf.clear();
                for p in paths {
                    gen_path(t, board, us.0, from.0, p, self.ep, buf);
                }
                if t.dedupe[slot] {
                    dedupe(buf, 0);
                }
                if t.promotes[slot] {
                    self.expand_promotions(buf, 0);
                }
                n += buf
                    .iter()
                    .filter(|m| !(full || ks.needs_test(m)) || ks.allows(m))
                    .count();
            } else {
                let mut c = Counter {
                    n: 0,
                    screens,
                    ks: &mut ks,
                };
                for p in paths {
                    gen_path(t, board, us.0, from.0, p, self.ep, &mut c);
                }
                n += c.n;
            }
        }
        if !matches!(v.castling, CastlingRule::None) && self.rights != 0 {
            buf.clear();
            self.castling_moves(buf);
            n += buf.iter().filter(|m| ks.allows(m)).count();
        }
        n
    }

    /// Pseudo-legal moves: every move by the rules of movement, ignoring own-King safety
    /// (castling's own attack conditions are already applied). After each piece's moves,
    /// calls `after_piece(out, first move of the piece, its cell)`. Returns where the
    /// castling moves (generated last) start.
    #[inline(always)]
    pub(crate) fn pseudo_moves(
        &self,
        out: &mut MoveList,
        mut after_piece: impl FnMut(&mut MoveList, usize, Cell),
    ) -> usize {
        let v = &*self.variant;
        let t = &v.tables;
        let us = self.turn.0;
        let board = &self.board[..];
        let ep = self.ep;
        for from in self.occupied[us as usize].iter() {
            let from = from.index();
            let code = board[from];
            let kind = (code & 31) as usize;
            let slot = t.slot(kind, us as usize, from);
            let (a, b) = t.index[slot];
            let paths = &t.paths[a as usize..b as usize];
            let start = out.len();
            for p in paths {
                gen_path(t, board, us, from as u8, p, ep, out);
            }
            if t.dedupe[slot] {
                dedupe(out, start);
            }
            if t.promotes[slot] {
                self.expand_promotions(out, start);
            }
            after_piece(out, start, Cell(from as u8));
        }
        let castles = out.len();
        if !matches!(v.castling, CastlingRule::None) && self.rights != 0 {
            self.castling_moves(out);
        }
        castles
    }

    /// CoBlaChe's river rules on the pseudo-legal moves `out[first..]`: a piece that shuns
    /// some enemy kinds may not move into a section holding one of them, and a one-rank step
    /// across a river promotes a piece that has a crossing rule. Kept out of line so the
    /// ordinary generator stays as it was.
    #[cold]
    #[inline(never)]
    fn apply_river_rules(&self, out: &mut MoveList, first: usize) {
        let v = &*self.variant;
        let us = self.turn.index();
        let g = &v.geometry;
        let kind_of = |m: &Move| (self.board[m.from.index()] & 31) as usize;
        // Sections holding an enemy piece, per kind bit (at most 32 sections x 32 kinds is
        // more than any board has; a river board has a handful).
        let mut held = [0u32; 32];
        for e in self.enemies(self.turn) {
            for c in self.occupied[e as usize].iter() {
                held[(self.board[c.index()] & 31) as usize] |= 1 << v.sections[c.index()];
            }
        }
        let shunned = |kind: usize| -> u32 {
            let mask = v.pieces[kind].shuns;
            (0..32)
                .filter(|k| mask >> k & 1 != 0)
                .fold(0, |acc, k| acc | held[k])
        };
        let mut i = first;
        while i < out.len() {
            let m = out[i];
            let pt = &v.pieces[kind_of(&m)];
            if pt.shuns != 0 && shunned(kind_of(&m)) >> v.sections[m.to.index()] & 1 != 0 {
                out.remove(i);
                continue;
            }
            let Some(crossing) = &pt.crossing else {
                i += 1;
                continue;
            };
            if m.promotion.is_some() || !crossing.crosses(g.info(m.from).rank, g.info(m.to).rank) {
                i += 1;
                continue;
            }
            let mut expanded: Vec<Move> = Vec::new();
            if crossing.optional {
                expanded.push(m);
            }
            for k in &crossing.choices {
                if crossing.captured_only
                    && self.counts[us][k.index()] >= v.start_counts[us][k.index()]
                {
                    continue;
                }
                let mut pm = m;
                pm.promotion = Some(*k);
                expanded.push(pm);
            }
            if expanded.is_empty() {
                // Nothing to become and no choice to stay: the piece just crosses.
                expanded.push(m);
            }
            let n = expanded.len();
            out.splice(i..i + 1, expanded);
            i += n;
        }
    }

    fn expand_promotions(&self, out: &mut MoveList, start: usize) {
        let v = &*self.variant;
        let us = self.turn.index();
        let comp = &v.promotion.compulsory[us];
        let opt = &v.promotion.optional[us];
        let mut i = start;
        while i < out.len() {
            let m = out[i];
            let must = comp.contains(m.to);
            if !must && !opt.contains(m.to) {
                i += 1;
                continue;
            }
            let choices: Vec<Kind> = v
                .promotion
                .choices
                .iter()
                .copied()
                .filter(|k| {
                    !v.promotion.limit_to_start_counts
                        || self.counts[us][k.index()] < v.start_counts[us][k.index()]
                })
                .collect();
            let mut expanded: Vec<Move> = Vec::with_capacity(choices.len() + 1);
            if !must {
                expanded.push(m);
            }
            for k in choices {
                let mut pm = m;
                pm.promotion = Some(k);
                if pm.kind == MoveKind::DoubleStep {
                    // A promoted piece is no pawn: no en-passant right.
                    pm.kind = MoveKind::Quiet;
                }
                expanded.push(pm);
            }
            let n = expanded.len();
            out.splice(i..i + 1, expanded);
            i += n;
        }
    }

    fn castling_moves(&self, out: &mut MoveList) {
        let v = &*self.variant;
        let g = &v.geometry;
        let us = self.turn;
        for (i, slot) in self.slots.iter().enumerate() {
            if self.rights >> i & 1 == 0 || slot.side != us {
                continue;
            }
            if let CastlingRule::Table(entries) = &v.castling {
                let pf = g.info(slot.partner).file;
                for e in entries.iter().filter(|e| e.partner_file == pf) {
                    if let Some(m) = self.table_castling(slot, e) {
                        out.push(m);
                    }
                }
                continue;
            }
            let Some(plan) = &slot.plan else {
                continue;
            };
            if plan.empty.iter().any(|c| self.board[c.index()] != 0) {
                continue;
            }
            let (kc, pc, kt, pt) = (slot.king, slot.partner, plan.king_to, plan.partner_to);
            if !self.castling_route_safe(kc, pc, &plan.route[..plan.route_len as usize]) {
                continue;
            }
            out.push(Move {
                from: kc,
                to: kt,
                kind: MoveKind::Castle,
                promotion: None,
                aux: pc,
                aux2: pt,
            });
        }
    }

    /// One listed castling (fine point E2): every cell from the King to the partner in the
    /// entry's direction (around the wrap) empty, the destinations empty but for the two, and
    /// the King's start and whole route unattacked.
    fn table_castling(&self, slot: &CastleSlot, e: &crate::variant::CastleEntry) -> Option<Move> {
        let g = &self.variant.geometry;
        let t = &self.variant.tables;
        let (kc, pc) = (slot.king, slot.partner);
        let ki = g.info(kc);
        let ray = &t.rank_rays[if e.kingside { 0 } else { 1 }][kc.index()];
        let reach = ray.iter().position(|c| *c == pc.0)?;
        let between = &ray[..reach];
        if between.iter().any(|c| self.board[*c as usize] != 0) {
            return None;
        }
        let kt = g.at(ki.board, e.king_to as i32, ki.rank as i32)?;
        let pt = g.at(ki.board, e.partner_to as i32, ki.rank as i32)?;
        for c in [kt, pt] {
            if c != kc && c != pc && self.board[c.index()] != 0 {
                return None;
            }
        }
        let steps = ray.iter().position(|c| *c == kt.0)?;
        let mut route = [kc; crate::types::MAX_FILES];
        for (r, c) in route.iter_mut().zip(&ray[..=steps]) {
            *r = Cell(*c);
        }
        if !self.castling_route_safe(kc, pc, &route[..=steps]) {
            return None;
        }
        Some(Move {
            from: kc,
            to: kt,
            kind: MoveKind::Castle,
            promotion: None,
            aux: pc,
            aux2: pt,
        })
    }

    /// Not out of, through or into check (G2): the King's start with the board as it is, then
    /// each route cell with the King standing on it (start vacated, partner in place unless
    /// the King stands on its cell).
    fn castling_route_safe(&self, kc: Cell, pc: Cell, route: &[Cell]) -> bool {
        let us = self.turn;
        let mut scratch = [0u8; crate::types::MAX_CELLS];
        scratch[..self.board.len()].copy_from_slice(&self.board);
        let scratch = &mut scratch[..self.board.len()];
        let king_code = scratch[kc.index()];
        let partner_code = scratch[pc.index()];
        if self.attacked_by_any_enemy(scratch, us, kc) {
            return false;
        }
        scratch[kc.index()] = 0;
        for &r in route {
            let old = scratch[r.index()];
            if r == pc {
                scratch[pc.index()] = 0;
            }
            scratch[r.index()] = king_code;
            let attacked = self
                .enemies(us)
                .any(|e| self.attacked_on(scratch, e, r.index()));
            scratch[r.index()] = old;
            scratch[pc.index()] = partner_code;
            if attacked {
                return false;
            }
        }
        true
    }

    /// Whether a castling move goes kingside (towards higher files; for listed castlings, as
    /// its table entry says, since on a cylinder the partner may lie either way round).
    pub fn castles_kingside(&self, m: Move) -> bool {
        let v = &*self.variant;
        let g = &v.geometry;
        let (kf, pf, tf) = (g.info(m.from).file, g.info(m.aux).file, g.info(m.to).file);
        if let CastlingRule::Table(entries) = &v.castling
            && let Some(e) = entries
                .iter()
                .find(|e| e.partner_file == pf && e.king_to == tf)
        {
            return e.kingside;
        }
        pf > kf
    }

    // ----- playing moves ---------------------------------------------------------------

    /// Plays a move that must come from [`Position::legal_moves`] of this position.
    /// Cheap, unchecked: use [`Position::play`] for moves from outside.
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
        let mut reset = v.pieces[(moved & 31) as usize].pawn;
        if v.special.is_some() {
            if special_hash {
                h ^= self.special_key();
            }
            self.special_history
                .push((self.unmoved, self.freezes.clone()));
        }
        match m.kind {
            MoveKind::Flip => {
                let k = m.promotion.map_or(moved & 31, |k| k.0);
                let placed = (us.0 << 5) | k;
                h ^= z.piece(moved, m.from.index()) ^ z.piece(placed, m.from.index());
                self.board[m.from.index()] = placed;
                self.counts[us.index()][(moved & 31) as usize] -= 1;
                self.counts[us.index()][k as usize] += 1;
            }
            MoveKind::Freeze => {}
            MoveKind::Kill => {
                let captured = self.board[m.to.index()];
                h ^= z.piece(captured, m.to.index());
                self.board[m.to.index()] = 0;
                self.counts[(captured >> 5) as usize][(captured & 31) as usize] -= 1;
                self.occupied[(captured >> 5) as usize].remove(m.to);
                undo.captured = captured;
                self.lost[(captured >> 5) as usize][(captured & 31) as usize] += 1;
                reset = true;
            }
            MoveKind::Push => {
                let pushed = self.board[m.to.index()];
                let ps = (pushed >> 5) as usize;
                undo.captured = pushed;
                h ^= z.piece(pushed, m.to.index()) ^ z.piece(moved, m.from.index());
                let placed = match m.promotion {
                    Some(k) => {
                        self.counts[ps][(pushed & 31) as usize] -= 1;
                        self.counts[ps][k.index()] += 1;
                        ((ps as u8) << 5) | k.0
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
                    self.counts[(captured >> 5) as usize][(captured & 31) as usize] -= 1;
                    self.occupied[(captured >> 5) as usize].remove(victim_cell);
                    undo.captured = captured;
                    self.lost[(captured >> 5) as usize][(captured & 31) as usize] += 1;
                    reset = true;
                }
                h ^= z.piece(moved, m.from.index());
                self.board[m.from.index()] = 0;
                self.occupied[us.index()].remove(m.from);
                self.occupied[us.index()].insert(m.to);
                let placed = match m.promotion {
                    Some(k) => {
                        self.counts[us.index()][(moved & 31) as usize] -= 1;
                        self.counts[us.index()][k.index()] += 1;
                        (us.0 << 5) | k.0
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
        self.ep = if m.kind == MoveKind::DoubleStep {
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
    }

    /// Takes back the last move played. Returns it, or `None` if nothing was played since the
    /// position was set up.
    pub fn undo(&mut self) -> Option<Move> {
        let u = self.history.pop()?;
        let m = u.mv;
        let sides = self.variant.sides;
        self.turn = Side((self.turn.0 + sides - 1) % sides);
        let us = self.turn;
        if us.0 == sides - 1 {
            self.fullmoves -= 1;
        }
        if let Some((unmoved, freezes)) = self.special_history.pop() {
            self.unmoved = unmoved;
            self.freezes = freezes;
        }
        match m.kind {
            MoveKind::Flip => {
                if let Some(k) = m.promotion {
                    self.counts[us.index()][k.index()] -= 1;
                    self.counts[us.index()][(u.moved & 31) as usize] += 1;
                }
                self.board[m.from.index()] = u.moved;
            }
            MoveKind::Freeze => {}
            MoveKind::Kill => {
                self.board[m.to.index()] = u.captured;
                self.occupied[(u.captured >> 5) as usize].insert(m.to);
                self.counts[(u.captured >> 5) as usize][(u.captured & 31) as usize] += 1;
                self.lost[(u.captured >> 5) as usize][(u.captured & 31) as usize] -= 1;
            }
            MoveKind::Push => {
                let ps = (u.captured >> 5) as usize;
                if let Some(k) = m.promotion {
                    self.counts[ps][k.index()] -= 1;
                    self.counts[ps][(u.captured & 31) as usize] += 1;
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
                    self.counts[us.index()][(u.moved & 31) as usize] += 1;
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
                    self.occupied[(u.captured >> 5) as usize].insert(cell);
                    self.counts[(u.captured >> 5) as usize][(u.captured & 31) as usize] += 1;
                    self.lost[(u.captured >> 5) as usize][(u.captured & 31) as usize] -= 1;
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

    /// Plays a move after checking that it is legal here.
    ///
    /// # Errors
    /// [`crate::IllegalMove`] with the reason the move is refused.
    pub fn play(&mut self, m: Move) -> Result<(), crate::IllegalMove> {
        if self.legal_moves().contains(&m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(crate::explain::explain(self, m))
        }
    }

    // ----- game end --------------------------------------------------------------------

    /// How the game stands: `None` while it goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        let v = &*self.variant;
        if let Some(winner) = self.capture_winner() {
            return Some(Outcome::Win {
                winner,
                reason: WinReason::Captures,
            });
        }
        let mut buf = MoveList::new();
        if self.count_legal(&mut buf) == 0 {
            return Some(if self.is_check() {
                let sides = v.sides;
                Outcome::Win {
                    winner: Side((self.turn.0 + sides - 1) % sides),
                    reason: WinReason::Checkmate,
                }
            } else {
                Outcome::Draw(DrawReason::Stalemate)
            });
        }
        if v.draws.repetitions > 0 && self.repetitions() >= v.draws.repetitions as usize {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if v.draws.fifty_moves && self.halfmoves >= 100 {
            return Some(Outcome::Draw(DrawReason::FiftyMoves));
        }
        if v.draws.fide_insufficient_material && self.fide_insufficient() {
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

    /// FIDE's dead positions: only Kings, plus at most one minor piece, or bishops that all
    /// stand on one colour.
    fn fide_insufficient(&self) -> bool {
        let v = &*self.variant;
        let g = &v.geometry;
        let mut minors = 0;
        let mut bishop_colours = [false; 2];
        let mut only_bishops = true;
        for (i, c) in self.board.iter().enumerate() {
            let Some(p) = Piece::from_code(*c) else {
                continue;
            };
            let pt = v.piece(p.kind);
            if pt.royal {
                continue;
            }
            match pt.letter {
                'N' => {
                    minors += 1;
                    only_bishops = false;
                }
                'B' => {
                    minors += 1;
                    bishop_colours[g.colour(Cell(i as u8)) as usize] = true;
                }
                _ => return false,
            }
        }
        minors <= 1 || (only_bishops && !(bishop_colours[0] && bishop_colours[1]))
    }
}

/// Whether `target` is attacked by a piece of side `by` on `board`.
#[inline]
pub(crate) fn attacked(t: &Tables, board: &[u8], by: u8, target: usize) -> bool {
    let ops = t.trie(by as usize, target);
    let mut i = 0;
    while i < ops.len() {
        let op = ops[i];
        let p = board[op.cell as usize];
        if op.tag == OP_ORIGIN {
            if p != 0 && p >> 5 == by && (op.mask >> (p & 31)) & 1 != 0 {
                return true;
            }
            i += 1;
        } else if (p != 0) == (op.tag != OP_NEED_EMPTY) {
            i += 1;
        } else {
            i += op.skip as usize;
        }
    }
    false
}

/// Every origin of `by` that attacks `target`.
fn attackers_on(t: &Tables, board: &[u8], by: u8, target: usize) -> Vec<Cell> {
    let ops = t.trie(by as usize, target);
    let mut out = Vec::new();
    let mut i = 0;
    while i < ops.len() {
        let op = ops[i];
        let p = board[op.cell as usize];
        if op.tag == OP_ORIGIN {
            if p != 0
                && p >> 5 == by
                && (op.mask >> (p & 31)) & 1 != 0
                && !out.contains(&Cell(op.cell))
            {
                out.push(Cell(op.cell));
            }
            i += 1;
        } else if (p != 0) == (op.tag != OP_NEED_EMPTY) {
            i += 1;
        } else {
            i += op.skip as usize;
        }
    }
    out
}

/// Traverses `by`'s attack trie on the King's cell allowing one of `us`'s pieces to be looked
/// through: an attack with no piece in the way is a check; an attack through exactly one of
/// our pieces pins that piece. Exact for variants without hoppers (a move can then only
/// expose the King by vacating a cell), and cheaper there than [`exposure`].
fn xray(t: &Tables, board: &[u8], by: u8, us: u8, target: usize, pinned: &mut CellSet) -> bool {
    let ops = t.trie(by as usize, target);
    let mut check = false;
    let mut blocker: Option<(u8, usize)> = None;
    let mut i = 0;
    while i < ops.len() {
        if let Some((_, end)) = blocker
            && i >= end
        {
            blocker = None;
        }
        let op = ops[i];
        let p = board[op.cell as usize];
        if op.tag == OP_ORIGIN {
            if p != 0 && p >> 5 == by && (op.mask >> (p & 31)) & 1 != 0 {
                match blocker {
                    None => check = true,
                    Some((b, _)) => pinned.insert(Cell(b)),
                }
            }
            i += 1;
        } else if (p != 0) == (op.tag != OP_NEED_EMPTY) {
            i += 1;
        } else if op.tag == OP_NEED_EMPTY && blocker.is_none() && p >> 5 == us {
            blocker = Some((op.cell, i + op.skip as usize));
            i += 1;
        } else {
            i += op.skip as usize;
        }
    }
    check
}

/// Where one move of `us` could expose the King on `target` to `by`, found by one traversal
/// of `by`'s attack trie that tolerates up to two unmet requirements a single move can
/// change: a cell that must be empty but holds one of our pieces (the move vacates it), and
/// a cell that must be occupied but is empty (the move lands there, making a hopper's screen).
///
/// A move other than a King move, an en-passant capture or a castling only vacates its
/// `from` cell and fills its `to` cell, so an attack it creates is a trie path that fails now
/// only at those cells. Such a path fails at our piece `a` alone (then every move from `a`
/// is marked in `from`), at an empty `b` alone (every move to `b` is marked in `to`), or at
/// both (then moves from `a` are marked, more than needed but sound). Without hoppers no cell
/// must be occupied and `from` is just the pinned pieces.
///
/// Returns whether the King is attacked now (a path with every requirement met).
#[inline(never)]
fn exposure(
    t: &Tables,
    board: &[u8],
    by: u8,
    us: u8,
    target: usize,
    from: &mut CellSet,
    to: &mut CellSet,
) -> bool {
    // An unmet requirement on the way down: its cell, whether it is a vacating one (our piece
    // where the path needs an empty cell), and the end of its subtree.
    #[derive(Clone, Copy)]
    struct Miss {
        cell: u8,
        vacate: bool,
        end: usize,
    }
    let ops = t.trie(by as usize, target);
    let mut check = false;
    let mut misses: [Miss; 2] = [Miss {
        cell: 0,
        vacate: false,
        end: 0,
    }; 2];
    let mut n = 0;
    let mut i = 0;
    while i < ops.len() {
        // Misses are nested subtrees: the innermost ends first.
        while n > 0 && i >= misses[n - 1].end {
            n -= 1;
        }
        let op = ops[i];
        let p = board[op.cell as usize];
        if op.tag == OP_ORIGIN {
            if p != 0 && p >> 5 == by && (op.mask >> (p & 31)) & 1 != 0 {
                match n {
                    0 => check = true,
                    1 if !misses[0].vacate => to.insert(Cell(misses[0].cell)),
                    _ => {
                        let m = if misses[0].vacate {
                            misses[0]
                        } else {
                            misses[1]
                        };
                        from.insert(Cell(m.cell));
                    }
                }
            }
            i += 1;
        } else if (p != 0) == (op.tag != OP_NEED_EMPTY) {
            i += 1;
        } else {
            let vacate = op.tag == OP_NEED_EMPTY;
            let fixable = if vacate { p >> 5 == us } else { p == 0 };
            // A second miss must be of the other sort: one move vacates one cell and fills one.
            if fixable && (n == 0 || (n == 1 && misses[0].vacate != vacate)) {
                misses[n] = Miss {
                    cell: op.cell,
                    vacate,
                    end: i + op.skip as usize,
                };
                n += 1;
                i += 1;
            } else {
                i += op.skip as usize;
            }
        }
    }
    check
}

/// Where generated moves go: a move list, or a counter of legal moves.
trait Sink {
    fn push(&mut self, m: Move);
}

impl Sink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
}

/// Counts the moves of a piece that needs no full legality test: only its en-passant
/// captures and, with hoppers, its moves onto screen cells are tested.
struct Counter<'k, 'p> {
    n: usize,
    /// Whether some cell is in `ks.risky_to` (kept here so the common case reads no memory).
    screens: bool,
    ks: &'k mut KingSafety<'p>,
}

impl Sink for Counter<'_, '_> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        let test =
            m.kind == MoveKind::EnPassant || (self.screens && self.ks.risky_to.contains(m.to));
        if !test || self.ks.allows(&m) {
            self.n += 1;
        }
    }
}

/// What the legal generator knows about the mover's King safety in one position: whether
/// it is in check, which moves may expose it, and a scratch board to test those on.
struct KingSafety<'p> {
    pos: &'p Position,
    king: Cell,
    in_check: bool,
    /// Pieces whose every move is tested (pinned ones; with hoppers, also lone screens).
    risky_from: CellSet,
    /// Cells a move onto is tested (with hoppers: where a new screen may open an attack).
    risky_to: CellSet,
    scratch: [u8; crate::types::MAX_CELLS],
    copied: bool,
}

impl<'p> KingSafety<'p> {
    /// Finds check and the risky cells: in check every move is tested; otherwise moves of
    /// the King and of pieces whose leaving may expose it (pinned pieces; with hoppers also
    /// pieces whose leaving makes a lone screen), and moves onto cells where a new screen
    /// would.
    fn new(pos: &'p Position, king: Cell) -> Self {
        let t = &pos.variant.tables;
        let us = pos.turn;
        let mut in_check = false;
        let mut risky_from = CellSet::EMPTY;
        let mut risky_to = CellSet::EMPTY;
        for e in pos.enemies(us) {
            // Most often no enemy piece is even aligned with the King: nothing to walk.
            if !t.may_attack(
                &pos.board,
                &pos.occupied[e as usize],
                e as usize,
                king.index(),
            ) {
                continue;
            }
            in_check |= if t.has_hoppers {
                exposure(
                    t,
                    &pos.board,
                    e,
                    us.0,
                    king.index(),
                    &mut risky_from,
                    &mut risky_to,
                )
            } else {
                xray(t, &pos.board, e, us.0, king.index(), &mut risky_from)
            };
        }
        KingSafety {
            pos,
            king,
            in_check,
            risky_from,
            risky_to,
            scratch: [0; crate::types::MAX_CELLS],
            copied: false,
        }
    }

    /// Whether a move of a piece that is not itself risky needs the full test.
    #[inline(always)]
    fn needs_test(&self, m: &Move) -> bool {
        m.kind == MoveKind::EnPassant || self.risky_to.contains(m.to)
    }

    /// The full test: whether the mover's King is safe after `m`.
    fn allows(&mut self, m: &Move) -> bool {
        let pos = self.pos;
        let t = &pos.variant.tables;
        if !self.copied {
            self.scratch[..pos.board.len()].copy_from_slice(&pos.board);
            self.copied = true;
        }
        let saved = save_cells(&self.scratch, *m);
        apply_to_board(&mut self.scratch, *m);
        let k = if m.from == self.king { m.to } else { self.king };
        let ok = !pos
            .enemies(pos.turn)
            .any(|e| attacked(t, &self.scratch, e, k.index()));
        restore_cells(&mut self.scratch, saved);
        ok
    }
}

/// Generates the moves along one path.
#[inline(always)]
fn gen_path(
    t: &Tables,
    board: &[u8],
    us: u8,
    from: u8,
    p: &Path,
    ep: Option<(Cell, Cell)>,
    out: &mut impl Sink,
) {
    let s = p.start as usize;
    let pre = &t.cells[s..s + p.pre as usize];
    if pre.iter().any(|c| board[*c as usize] != 0) {
        return;
    }
    let land = &t.cells[s + p.pre as usize..s + p.pre as usize + p.len as usize];
    let can_move = p.flags & F_MOVE != 0;
    let can_capture = p.flags & F_CAPTURE != 0;
    let from = Cell(from);
    let enemy = |code: u8| code != 0 && code >> 5 != us;
    match p.kind {
        LEAPS => {
            for &c in land {
                let code = board[c as usize];
                if code == 0 {
                    if can_move {
                        if p.flags & F_DOUBLE != 0 {
                            let mut m = Move::new(from, Cell(c), MoveKind::DoubleStep);
                            m.aux = Cell(pre[pre.len() - 1]);
                            out.push(m);
                        } else {
                            out.push(Move::new(from, Cell(c), MoveKind::Quiet));
                        }
                    }
                    if can_capture && p.flags & F_EP != 0 {
                        push_ep(from, c, ep, out);
                    }
                } else if can_capture && enemy(code) {
                    out.push(Move::new(from, Cell(c), MoveKind::Capture));
                }
            }
        }
        HOP => {
            let mut screened = false;
            for &c in land {
                let code = board[c as usize];
                if !screened {
                    if code != 0 {
                        screened = true;
                    }
                    continue;
                }
                if code == 0 {
                    if can_move {
                        out.push(Move::new(from, Cell(c), MoveKind::Quiet));
                    }
                } else {
                    if can_capture && enemy(code) {
                        out.push(Move::new(from, Cell(c), MoveKind::Capture));
                    }
                    break;
                }
            }
        }
        _ => {
            for &c in land {
                let code = board[c as usize];
                if code == 0 {
                    if can_move {
                        out.push(Move::new(from, Cell(c), MoveKind::Quiet));
                    }
                    if can_capture && p.flags & F_EP != 0 {
                        push_ep(from, c, ep, out);
                    }
                } else {
                    if can_capture && enemy(code) {
                        out.push(Move::new(from, Cell(c), MoveKind::Capture));
                    }
                    break;
                }
            }
        }
    }
}

#[inline]
fn push_ep(from: Cell, c: u8, ep: Option<(Cell, Cell)>, out: &mut impl Sink) {
    if let Some((target, victim)) = ep
        && target.0 == c
    {
        let mut m = Move::new(from, target, MoveKind::EnPassant);
        m.aux = victim;
        out.push(m);
    }
}

/// Keeps the moves of `out[start..]` that satisfy `keep`, in order.
#[inline]
fn retain_from(out: &mut MoveList, start: usize, mut keep: impl FnMut(&Move) -> bool) {
    let mut w = start;
    for r in start..out.len() {
        let m = out[r];
        if keep(&m) {
            out[w] = m;
            w += 1;
        }
    }
    out.truncate(w);
}

/// Removes moves from `out[start..]` that repeat an earlier one (same destination, kind and
/// auxiliary cell): on looped boards two paths can reach one cell, and that is one move.
fn dedupe(out: &mut MoveList, start: usize) {
    let mut i = start;
    while i < out.len() {
        if out[start..i].contains(&out[i]) {
            out.remove(i);
        } else {
            i += 1;
        }
    }
}

type Saved = [(u8, u8); 4];

fn save_cells(board: &[u8], m: Move) -> Saved {
    [m.from.0, m.to.0, m.aux.0, m.aux2.0].map(|c| (c, board[c as usize]))
}

fn restore_cells(board: &mut [u8], saved: Saved) {
    for (c, v) in saved.iter().rev() {
        board[*c as usize] = *v;
    }
}

/// Applies a move's effect on occupancy to a bare board (promotion is irrelevant to whether
/// the mover's own King is attacked).
fn apply_to_board(board: &mut [u8], m: Move) {
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
