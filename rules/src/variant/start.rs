//! `start`: the start position, and what the tables and rules derive from it (piece counts,
//! the cells where initial-only moves apply).

use super::PieceType;
use crate::{
    fen,
    geometry::Geometry,
    orientation::{Facing, Orientation},
    spec::SpecError,
    types::{Cell, CellSet, MAX_KINDS, MAX_SIDES, Piece, Side},
};

/// The resolved start: its text and what is derived from it.
pub(super) struct Start {
    /// The start position as written, FEN-like.
    pub text: String,
    /// How many of each kind each side has (`[side][kind]`).
    pub counts: Vec<[u8; MAX_KINDS + 1]>,
    /// Per kind and side (`kind * sides + side`): the cells where that piece's initial-only
    /// moves (a Pawn's double step) apply.
    pub initial: Vec<CellSet>,
}

/// Reads and checks the start position.
///
/// # Errors
/// A missing `start`, a board field that does not parse, or a side with more than one royal
/// piece.
pub(super) fn start(
    file: &str,
    text: Option<&String>,
    geometry: &Geometry,
    pieces: &[PieceType],
    sides: u8,
    orientation: &Orientation,
) -> Result<Start, SpecError> {
    let err = |key: &str, problem: String| SpecError::new(file, key, problem);
    let text = text
        .cloned()
        .ok_or_else(|| err("start", "missing; give the start position FEN-like".into()))?;
    let board_field = text.split_whitespace().next().unwrap_or("");
    let start_board = fen::parse_board(geometry, pieces, sides, board_field)
        .map_err(|e| err("start", e.to_string()))?;
    let mut counts = vec![[0u8; MAX_KINDS + 1]; MAX_SIDES];
    let mut initial = vec![CellSet::EMPTY; pieces.len() * sides as usize];
    for (i, code) in start_board.iter().enumerate() {
        if let Some(p) = Piece::from_code(*code) {
            let (s, k) = (p.side.index(), p.kind.index());
            counts[s][k] = counts[s][k].saturating_add(1);
            initial[k * sides as usize + s].insert(Cell(i as u8));
        }
    }
    // A pawn's initial-only moves (the double step) belong to its start row, read in its
    // own frame: the cells level with a start cell across the way forward, where the side
    // faces the same way (Bilateral B12: a Pawn pushed sideways along its 2nd rank may still
    // double-step). For Pawns that advance along files (four-player Blue and Green) the row
    // is a file, so a Pawn that has moved along a rank is never level with it again. Arrays
    // whose Pawns fill their row are unaffected.
    for k in 1..pieces.len() {
        if !pieces[k].pawn {
            continue;
        }
        for s in 0..sides as usize {
            let side = Side(s as u8);
            let set = &mut initial[k * sides as usize + s];
            let rows: Vec<(u8, Facing, i32)> = set
                .iter()
                .map(|c| {
                    let facing = orientation.facing(side, c.index());
                    (geometry.info(c).board, facing, level(geometry, facing, c))
                })
                .collect();
            for c in geometry.cells() {
                let facing = orientation.facing(side, c.index());
                let row = (geometry.info(c).board, facing, level(geometry, facing, c));
                if rows.contains(&row) {
                    set.insert(c);
                }
            }
        }
    }
    for (s, counts) in counts.iter().enumerate().take(sides as usize) {
        let royals: u32 = (1..pieces.len())
            .filter(|k| pieces[*k].royal)
            .map(|k| counts[k] as u32)
            .sum();
        if royals > 1 {
            return Err(err(
                "start",
                format!("side {s} has {royals} royal pieces; at most one is supported"),
            ));
        }
    }
    Ok(Start {
        text,
        counts,
        initial,
    })
}

/// How far forward `cell` is in a frame facing `facing` (the forward component of its board
/// coordinates): cells with the same value are level with each other across that frame.
fn level(geometry: &Geometry, facing: Facing, cell: Cell) -> i32 {
    let i = geometry.info(cell);
    facing.local((i.file as i32, i.rank as i32)).1
}
