//! What the dead-position rule knows about the pieces, derived from their movement on this
//! board and built on first use: where a piece can ever stand and what it can ever attack
//! (a Bishop keeps to one colour, an Alfil to an eighth of the board, a Bishop on a Moebius
//! board to none), and whether one piece with its King can checkmate a lone King at all.
//!
//! Nothing here runs during move generation or perft: only [`crate::Position::is_dead`] asks.

use std::sync::OnceLock;

use super::Variant;
use crate::types::{Cell, CellSet, Kind, Side};

/// The per-variant cache: one entry per kind and side, and the royal pieces' steps.
#[derive(Debug)]
pub(crate) struct Mating {
    sides: usize,
    kinds: Vec<OnceLock<KindReach>>,
    royal: OnceLock<Option<Vec<CellSet>>>,
}

/// What a piece of one kind and side can do from each cell, over any number of moves.
#[derive(Debug)]
pub(crate) struct KindReach {
    /// Per cell: every cell a piece starting there can ever stand on or attack.
    pub(crate) region: Vec<CellSet>,
    /// Per cell: every cell it can ever attack.
    pub(crate) attacks: Vec<CellSet>,
    /// Per cell: whether some position with this piece (anywhere it can get to) and its King
    /// checkmates a lone King.
    pub(crate) lone_mate: Vec<bool>,
}

impl Mating {
    pub(crate) fn new(kinds: usize, sides: u8) -> Mating {
        let sides = sides as usize;
        Mating {
            sides,
            kinds: (0..kinds * sides).map(|_| OnceLock::new()).collect(),
            royal: OnceLock::new(),
        }
    }

    /// The royal piece's steps from each cell, when the rule can reason about the royal
    /// pieces: every royal kind of every side is the same leaper (no ride, no hop, moves and
    /// captures alike) whose steps are symmetric (a King next to a King attacks it back, so
    /// a royal piece can never give check). `None`: the rule stays off.
    pub(crate) fn royal_steps<'a>(&'a self, v: &Variant) -> Option<&'a [CellSet]> {
        self.royal.get_or_init(|| royal_steps(v)).as_deref()
    }

    /// What a piece of `kind` and `side` can do (built on first use).
    pub(crate) fn kind<'a>(&'a self, v: &Variant, kind: Kind, side: Side) -> &'a KindReach {
        self.kinds[kind.index() * self.sides + side.index()]
            .get_or_init(|| kind_reach(v, kind, side, self.royal_steps(v)))
    }
}

/// One step set per cell, from the variant's tables: (where it moves or captures, where it
/// captures).
fn steps(v: &Variant, kind: Kind, side: Side) -> Vec<(CellSet, CellSet)> {
    v.geometry
        .cells()
        .map(|c| {
            let (mut to, mut att) = (CellSet::EMPTY, CellSet::EMPTY);
            for r in v.empty_board_reach(kind, side, c) {
                to.insert(r.cell);
                if r.captures {
                    att.insert(r.cell);
                }
            }
            (to, att)
        })
        .collect()
}

fn royal_steps(v: &Variant) -> Option<Vec<CellSet>> {
    let mut found: Option<Vec<CellSet>> = None;
    for kind in v.kinds().filter(|k| v.piece(*k).royal) {
        for side in v.all_sides() {
            let mut per_cell = Vec::with_capacity(v.geometry.len());
            for c in v.geometry.cells() {
                let mut set = CellSet::EMPTY;
                for r in v.empty_board_reach(kind, side, c) {
                    if r.blockers > 0 || r.hop || !r.moves || !r.captures {
                        return None;
                    }
                    set.insert(r.cell);
                }
                per_cell.push(set);
            }
            match &found {
                Some(f) if *f != per_cell => return None,
                Some(_) => {}
                None => found = Some(per_cell),
            }
        }
    }
    let steps = found?;
    let symmetric = v.geometry.cells().all(|c| {
        steps[c.index()]
            .iter()
            .all(|f| steps[f.index()].contains(c))
    });
    symmetric.then_some(steps)
}

fn kind_reach(v: &Variant, kind: Kind, side: Side, royal: Option<&[CellSet]>) -> KindReach {
    let direct = steps(v, kind, side);
    let n = direct.len();
    // Whether a mate exists with the piece standing on each cell: asked once per cell, so
    // that a piece whose reach differs from cell to cell (a forward-only piece) costs no more.
    let mate_at: Vec<bool> = v
        .geometry
        .cells()
        .map(|x| match royal {
            Some(steps) => mate_with_piece_on(v, x, &direct[x.index()].1, steps),
            None => true,
        })
        .collect();
    let mut region = Vec::with_capacity(n);
    let mut attacks = Vec::with_capacity(n);
    let mut lone_mate = Vec::with_capacity(n);
    for start in v.geometry.cells() {
        // Every cell the piece can ever stand on, from `start`.
        let mut seen = CellSet::EMPTY;
        seen.insert(start);
        let mut todo = vec![start];
        while let Some(c) = todo.pop() {
            for t in direct[c.index()].0.iter() {
                if !seen.contains(t) {
                    seen.insert(t);
                    todo.push(t);
                }
            }
        }
        let mut att = CellSet::EMPTY;
        for c in seen.iter() {
            or(&mut att, &direct[c.index()].1);
        }
        let mut reg = seen;
        or(&mut reg, &att);
        region.push(reg);
        attacks.push(att);
        lone_mate.push(seen.iter().any(|x| mate_at[x.index()]));
    }
    KindReach {
        region,
        attacks,
        lone_mate,
    }
}

pub(crate) fn or(a: &mut CellSet, b: &CellSet) {
    for (x, y) in a.0.iter_mut().zip(b.0) {
        *x |= y;
    }
}

/// Whether a King and one piece standing on `x` (attacking `att` from there) can checkmate a
/// lone King: the piece attacks the lone King's cell, and every step of the lone King is
/// attacked by the piece or the other King, or is the piece itself guarded by the other King.
/// The piece's attacks are taken from the empty board, as if nothing ever blocked them (the
/// King moving away along a line stays attacked, and a line the other King would block only
/// makes this say "possible" where it is not), so the answer errs only towards "possible".
fn mate_with_piece_on(v: &Variant, x: Cell, att: &CellSet, steps: &[CellSet]) -> bool {
    for d in att.iter().filter(|d| *d != x) {
        let flights = &steps[d.index()];
        for k in v.geometry.cells() {
            if k == d || k == x || flights.contains(k) {
                continue;
            }
            let guard = &steps[k.index()];
            let covered = |f: Cell| {
                if f == x {
                    guard.contains(x)
                } else {
                    att.contains(f) || guard.contains(f)
                }
            };
            if flights.iter().all(covered) {
                return true;
            }
        }
    }
    false
}

/// Whether pieces that can only ever stand on or attack `region`, and attack only `attacks`,
/// could checkmate a King (either side's) with the other King's help: the checked King's
/// steps outside `region` can be neither blocked nor attacked by any piece, so the other
/// King must attack all of them without standing next to the checked King. Steps inside
/// `region` count as covered, so the answer errs only towards "possible".
pub(crate) fn mate_possible_outside(
    v: &Variant,
    region: &CellSet,
    attacks: &CellSet,
    steps: &[CellSet],
) -> bool {
    attacks.iter().any(|d| {
        let outside: Vec<Cell> = steps[d.index()]
            .iter()
            .filter(|f| !region.contains(*f))
            .collect();
        outside.is_empty()
            || v.geometry.cells().any(|k| {
                k != d
                    && !steps[d.index()].contains(k)
                    && outside.iter().all(|f| steps[k.index()].contains(*f))
            })
    })
}
