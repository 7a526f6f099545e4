//! Positions: an unvalidated [`Setup`] and a validated, playable [`Position`].
//!
//! The type and its accessors live here; each idea has its own module: [`setup`]
//! (construction and validation), [`movegen`] (move generation), [`attacks`], [`make`] (make
//! and undo), [`outcome`] (game end) and [`special`] (special powers, off the fast path).

use std::sync::Arc;

mod attacks;
mod ends;
mod exchange;
mod make;
mod movegen;
mod outcome;
mod players;
mod setup;
mod special;

use make::Undo;
pub use outcome::{DrawReason, Outcome, WinReason};
use setup::CastleSlot;
pub use setup::{PositionError, Setup};

use crate::{
    types::{Cell, CellSet, Kind, MAX_KINDS, MAX_SIDES, Move, Piece, Side},
    variant::Variant,
};

/// A legal position of a variant, ready to generate and play moves.
///
/// Built only by [`Position::start`] or [`Position::from_setup`] (or [`crate::fen::position`]),
/// so it is always valid; it keeps what generation needs incrementally (occupancy per side,
/// counts, the hash) and plays and undoes moves in place, which is what makes perft fast.
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, notation, perft::perft};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let mut pos = Position::start(&chess);
/// let m = notation::parse_move(&pos, "e4").unwrap();
/// pos.play(m).unwrap();
/// assert_eq!(notation::san(&pos, notation::parse_move(&pos, "e7e5").unwrap()), "e5");
/// assert_eq!(perft(&mut pos, 2), 600);
/// ```
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
    /// Sides out of the game (bit per side; games of more than two sides only).
    out: u8,
    /// Per move, who went out and whose turn it was (games of more than two sides only).
    turnovers: Vec<players::Turnover>,
    /// The sides in check when the position was set up (bit per side; more than two sides).
    checked_at_setup: u8,
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
            && self.out == other.out
    }
}

impl Position {
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

    /// How many pieces a side has on the board (its royal pieces included).
    pub fn pieces_on_board(&self, side: Side) -> usize {
        self.occupied[side.index()].len()
    }

    /// The cells holding a side's pieces: an evaluation walks these rather than the board.
    pub fn occupied(&self, side: Side) -> CellSet {
        self.occupied[side.index()]
    }

    /// How many moves have been played since this position was set up (the length of its
    /// history, as [`Position::moves_played`] lists it).
    pub fn plies(&self) -> usize {
        self.history.len()
    }

    /// The moves played since this position was set up, oldest first.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }
}
