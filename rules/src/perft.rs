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

/// Why [`perft_within`] stopped before the count was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exceeded {
    /// More than this many positions were visited.
    Nodes(u64),
    /// The deadline passed.
    Time,
}

/// Perft that gives up: after visiting more than `max_nodes` positions, or once `deadline`
/// has passed (checked every 16 move generations). For checking a stranger's variant, whose
/// move counts nobody knows, without letting it take the bot's time.
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, perft::{perft_within, Exceeded}};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let mut pos = Position::start(&chess);
/// let far = std::time::Instant::now() + std::time::Duration::from_secs(60);
/// assert_eq!(perft_within(&mut pos, 3, 1_000_000, far), Ok(8_902));
/// assert_eq!(perft_within(&mut pos, 3, 100, far), Err(Exceeded::Nodes(100)));
/// ```
///
/// # Errors
/// [`Exceeded`] when a bound was reached; the position is restored either way.
pub fn perft_within(
    pos: &mut Position,
    depth: u32,
    max_nodes: u64,
    deadline: std::time::Instant,
) -> Result<u64, Exceeded> {
    let mut bufs: Vec<MoveList> = (0..depth.max(1))
        .map(|_| MoveList::with_capacity(128))
        .collect();
    let mut count = Count {
        visited: 0,
        calls: 0,
    };
    within(pos, depth, &mut bufs, &mut count, max_nodes, deadline)
}

/// What [`perft_within`] has done so far: positions counted (bulk counting adds a whole move
/// list at once) and positions generated (one per call, which paces the clock checks).
struct Count {
    visited: u64,
    calls: u64,
}

fn within(
    pos: &mut Position,
    depth: u32,
    bufs: &mut [MoveList],
    count: &mut Count,
    max_nodes: u64,
    deadline: std::time::Instant,
) -> Result<u64, Exceeded> {
    if depth == 0 {
        return Ok(1);
    }
    count.visited += 1;
    count.calls += 1;
    if count.visited > max_nodes {
        return Err(Exceeded::Nodes(max_nodes));
    }
    if count.calls.is_multiple_of(16) && std::time::Instant::now() > deadline {
        return Err(Exceeded::Time);
    }
    let (buf, rest) = bufs.split_first_mut().expect("one buffer per ply");
    if depth == 1 {
        let n = pos.count_legal(buf) as u64;
        count.visited += n;
        if count.visited > max_nodes {
            return Err(Exceeded::Nodes(max_nodes));
        }
        return Ok(n);
    }
    pos.legal_moves_into(buf);
    let mut n = 0;
    for &m in buf.iter() {
        pos.play_unchecked(m);
        let r = within(pos, depth - 1, rest, count, max_nodes, deadline);
        pos.undo();
        n += r?;
    }
    Ok(n)
}
