//! Perft: the number of leaf positions after every legal move sequence of a given length,
//! the standard yardstick of move-generator correctness and speed. The last ply counts moves
//! instead of playing them ("bulk counting").

use crate::{position::Position, types::MoveList};

/// Counts the leaves at `depth` plies. The position is played and undone in place (no
/// copies), and comes back as it was.
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, perft::perft};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let mut pos = Position::start(&chess);
/// assert_eq!(perft(&mut pos, 3), 8_902);
/// ```
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let mut bufs: Vec<MoveList> = (0..depth.max(1))
        .map(|_| MoveList::with_capacity(128))
        .collect();
    perft_with(pos, depth, &mut bufs)
}

fn perft_with(pos: &mut Position, depth: u32, bufs: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (buf, rest) = bufs.split_first_mut().expect("one buffer per ply");
    if depth == 1 {
        return pos.count_legal(buf) as u64;
    }
    pos.legal_moves_into(buf);
    let mut n = 0;
    for &m in buf.iter() {
        pos.play_unchecked(m);
        n += perft_with(pos, depth - 1, rest);
        pos.undo();
    }
    n
}

/// Perft split by first move: `(move in coordinates, leaves)`, in generation order. Comparing
/// two engines' divides finds the first move where their generators disagree.
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, perft::divide};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let mut pos = Position::start(&chess);
/// let split = divide(&mut pos, 2);
/// assert_eq!(split.len(), 20);
/// assert!(split.contains(&("e2e4".to_string(), 20)));
/// ```
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(String, u64)> {
    let moves = pos.legal_moves();
    moves
        .into_iter()
        .map(|m| {
            let text = crate::notation::coord(pos, m);
            pos.play_unchecked(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.undo();
            (text, n)
        })
        .collect()
}
