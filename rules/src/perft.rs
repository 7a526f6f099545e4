//! Perft: the number of leaf positions after every legal move sequence of a given length,
//! the standard yardstick of move-generator correctness and speed. The last ply counts moves
//! instead of playing them ("bulk counting").

use crate::{position::Position, types::MoveList};

/// Counts the leaves at `depth` plies.
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

/// Perft split by first move: `(move in coordinates, leaves)`, in generation order.
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
