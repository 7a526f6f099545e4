//! Attacks: whether a cell is attacked and by whom, walked over the attack tries the tables
//! derive from the move paths; and the pin and exposure walks legal generation starts from.

use super::{Position, make::apply_to_board};
use crate::{
    tables::{CrowdTries, OP_NEED_EMPTY, OP_ORIGIN, Tables, TrieOp},
    types::{Cell, CellSet, Move, Piece, Side},
};

impl Position {
    /// The sides other than `side`.
    pub(super) fn enemies(&self, side: Side) -> impl Iterator<Item = u8> {
        let sides = self.variant.sides;
        (0..sides).filter(move |s| *s != side.0)
    }

    pub(super) fn attacked_by_any_enemy(&self, board: &[u8], side: Side, cell: Cell) -> bool {
        if let Some(crowd) = &self.variant.tables.crowd
            && self.variant.special.is_none()
        {
            return attacked_by_others(crowd, board, side.0, cell.index());
        }
        self.enemies(side)
            .any(|e| self.attacked_on(board, e, cell.index()))
    }

    /// Whether a piece of some side but `side` stands where it could attack `cell` were
    /// nothing in the way ([`Tables::may_attack`] for the merged tries): when none does, the
    /// trie need not be walked.
    #[inline]
    pub(super) fn others_may_attack(&self, crowd: &CrowdTries, side: Side, cell: Cell) -> bool {
        let near = &crowd.reach[cell.index()];
        self.enemies(side).any(|e| {
            let o = &self.occupied[e as usize];
            o.0.iter().zip(near.0.iter()).any(|(a, b)| a & b != 0)
        })
    }

    /// Whether `target` is attacked by `by` on `board` (a variant of this position's board);
    /// with special powers, freezes, screens and kills count.
    #[inline]
    pub(super) fn attacked_on(&self, board: &[u8], by: u8, target: usize) -> bool {
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

    /// Whether `side`'s royal piece is attacked by any other side (whoever is to move: with
    /// more than two sides, a side may be in check while another moves).
    pub fn in_check(&self, side: Side) -> bool {
        match self.royal.get(side.index()).copied().flatten() {
            Some(k) => self.attacked_by_any_enemy(&self.board, side, k),
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
}

/// Walks an attack trie: whether some origin holds a piece that `hits` says attacks (the
/// per-side and the merged tries differ only there).
#[inline(always)]
fn any_origin<T: TrieOp>(ops: &[T], board: &[u8], hits: impl Fn(T, u8) -> bool) -> bool {
    let mut i = 0;
    while i < ops.len() {
        let op = ops[i];
        let p = board[op.cell() as usize];
        if op.tag() == OP_ORIGIN {
            if p != 0 && hits(op, p) {
                return true;
            }
            i += 1;
        } else if (p != 0) == (op.tag() != OP_NEED_EMPTY) {
            i += 1;
        } else {
            i += op.skip() as usize;
        }
    }
    false
}

/// Walks an attack trie on the King's cell allowing one of `us`'s pieces to be looked
/// through: an attack with no piece in the way is a check (returned); an attack through
/// exactly one of our pieces pins that piece (added to `pinned`).
#[inline(always)]
fn pins<T: TrieOp>(
    ops: &[T],
    board: &[u8],
    us: u8,
    hits: impl Fn(T, u8) -> bool,
    pinned: &mut CellSet,
) -> bool {
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
        let p = board[op.cell() as usize];
        if op.tag() == OP_ORIGIN {
            if p != 0 && hits(op, p) {
                match blocker {
                    None => check = true,
                    Some((b, _)) => pinned.insert(Cell(b)),
                }
            }
            i += 1;
        } else if (p != 0) == (op.tag() != OP_NEED_EMPTY) {
            i += 1;
        } else if op.tag() == OP_NEED_EMPTY && blocker.is_none() && Piece::side_of(p) == us {
            blocker = Some((op.cell(), i + op.skip() as usize));
            i += 1;
        } else {
            i += op.skip() as usize;
        }
    }
    check
}

/// Whether `target` is attacked by a piece of side `by` on `board`.
#[inline]
pub(crate) fn attacked(t: &Tables, board: &[u8], by: u8, target: usize) -> bool {
    any_origin(t.trie(by as usize, target), board, |op, p| {
        Piece::side_of(p) == by && (op.mask >> Piece::kind_of(p)) & 1 != 0
    })
}

/// Whether `target` is attacked by a piece of any side but `us`: one walk of the merged trie
/// (games of more than two sides), where a piece byte indexes the origin's mask directly.
#[inline]
pub(crate) fn attacked_by_others(c: &CrowdTries, board: &[u8], us: u8, target: usize) -> bool {
    any_origin(c.trie(target), board, |op, p| {
        Piece::side_of(p) != us && (op.mask >> p) & 1 != 0
    })
}

/// [`xray`] over the merged trie: whether any side but `us` attacks `target`, and which of
/// `us`'s pieces stand alone between an attacker and it (pinned).
pub(super) fn xray_others(
    c: &CrowdTries,
    board: &[u8],
    us: u8,
    target: usize,
    pinned: &mut CellSet,
) -> bool {
    pins(
        c.trie(target),
        board,
        us,
        |op, p| Piece::side_of(p) != us && (op.mask >> p) & 1 != 0,
        pinned,
    )
}

/// Calls `visit` with the cell and piece byte of each origin of `by` whose piece attacks
/// `target` on `board` (a cell once per path that reaches it).
#[inline]
pub(super) fn each_attacker(
    t: &Tables,
    board: &[u8],
    by: u8,
    target: usize,
    mut visit: impl FnMut(usize, u8),
) {
    let ops = t.trie(by as usize, target);
    let mut i = 0;
    while i < ops.len() {
        let op = ops[i];
        let p = board[op.cell as usize];
        if op.tag == OP_ORIGIN {
            if p != 0 && Piece::side_of(p) == by && (op.mask >> Piece::kind_of(p)) & 1 != 0 {
                visit(op.cell as usize, p);
            }
            i += 1;
        } else if (p != 0) == (op.tag != OP_NEED_EMPTY) {
            i += 1;
        } else {
            i += op.skip as usize;
        }
    }
}

/// Every origin of `by` that attacks `target`.
pub(super) fn attackers_on(t: &Tables, board: &[u8], by: u8, target: usize) -> Vec<Cell> {
    let mut out = Vec::new();
    each_attacker(t, board, by, target, |cell, _| {
        if !out.contains(&Cell(cell as u8)) {
            out.push(Cell(cell as u8));
        }
    });
    out
}

/// Traverses `by`'s attack trie on the King's cell allowing one of `us`'s pieces to be looked
/// through: an attack with no piece in the way is a check; an attack through exactly one of
/// our pieces pins that piece. Exact for variants without hoppers (a move can then only
/// expose the King by vacating a cell), and cheaper there than [`exposure`].
pub(super) fn xray(
    t: &Tables,
    board: &[u8],
    by: u8,
    us: u8,
    target: usize,
    pinned: &mut CellSet,
) -> bool {
    pins(
        t.trie(by as usize, target),
        board,
        us,
        |op, p| Piece::side_of(p) == by && (op.mask >> Piece::kind_of(p)) & 1 != 0,
        pinned,
    )
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
pub(super) fn exposure(
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
            if p != 0 && Piece::side_of(p) == by && (op.mask >> Piece::kind_of(p)) & 1 != 0 {
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
            let fixable = if vacate {
                Piece::side_of(p) == us
            } else {
                p == 0
            };
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
