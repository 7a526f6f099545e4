//! Precomputed move paths and attack tries.
//!
//! Move generation never looks at the topology: for every (kind, side, cell) the table lists
//! *paths*, each a run of cells that must be empty (`pre`, e.g. a Gryphon's first diagonal
//! cell or a lame leap's midpoint) followed by landing cells that are either independent
//! (leaps), consecutive (rides) or consecutive past exactly one screen (hops).
//!
//! Attack detection is the exact inverse: for every (attacking side, target cell) a trie lists
//! which cells must be empty or occupied for which origins to attack the target. It is built
//! from the very same paths, so generation and check detection cannot disagree, on any board.

use crate::{
    betza::{Atom, Leg},
    geometry::Geometry,
    orientation::{Facing, Orientation},
    types::{Cell, CellSet, MAX_KINDS, Piece, Side},
    variant::{PieceType, Reach},
};

/// Landing cells are independent leaps.
pub(crate) const LEAPS: u8 = 0;
/// Landing cells are consecutive; the first occupied one ends the ride.
pub(crate) const RIDE: u8 = 1;
/// Landing cells are consecutive; the first occupied one is a screen, the next occupied one
/// beyond it may be captured.
pub(crate) const HOP: u8 = 2;

/// May move to an empty cell.
pub(crate) const F_MOVE: u8 = 1;
/// May capture.
pub(crate) const F_CAPTURE: u8 = 2;
/// A pawn's multi-step: gives an en-passant right on the skipped cell (the last `pre` cell).
pub(crate) const F_DOUBLE: u8 = 4;
/// A pawn's capture: may capture en passant.
pub(crate) const F_EP: u8 = 8;

/// One path of a piece from one cell.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Path {
    /// Offset of the path's cells in [`Tables::cells`]: `pre` required-empty cells, then
    /// `len` landing cells.
    pub start: u32,
    pub pre: u8,
    pub len: u8,
    /// [`LEAPS`], [`RIDE`] or [`HOP`].
    pub kind: u8,
    /// `F_*` bits.
    pub flags: u8,
}

/// Attack-trie operation tags.
pub(crate) const OP_ORIGIN: u8 = 0;
pub(crate) const OP_NEED_EMPTY: u8 = 1;
pub(crate) const OP_NEED_OCCUPIED: u8 = 2;

/// One operation of a flattened attack trie.
///
/// `OP_ORIGIN`: the target is attacked if `cell` holds a piece of the attacking side whose kind
/// bit is in `mask`. `OP_NEED_*`: if `cell` is not in the required state, skip the next `skip`
/// operations (the subtree that depends on it).
#[derive(Copy, Clone, Debug)]
pub(crate) struct AttackOp {
    pub tag: u8,
    pub cell: u8,
    pub skip: u16,
    pub mask: u32,
}

/// What a walk reads of an attack-trie operation: the same for the per-side tries and the
/// merged ones ([`CrowdTries`]), which differ only in how an origin's mask names the pieces
/// that attack from there.
pub(crate) trait TrieOp: Copy {
    /// [`OP_ORIGIN`], [`OP_NEED_EMPTY`] or [`OP_NEED_OCCUPIED`].
    fn tag(self) -> u8;
    /// The cell tested.
    fn cell(self) -> u8;
    /// How many operations to skip when a requirement fails (its subtree).
    fn skip(self) -> u16;
}

/// Both kinds of operation read their fields the same way.
macro_rules! trie_op {
    ($($op:ty),*) => {$(
        impl TrieOp for $op {
            #[inline(always)]
            fn tag(self) -> u8 {
                self.tag
            }
            #[inline(always)]
            fn cell(self) -> u8 {
                self.cell
            }
            #[inline(always)]
            fn skip(self) -> u16 {
                self.skip
            }
        }
    )*};
}
trie_op!(AttackOp, CrowdOp);

/// All precomputed tables of a variant.
#[derive(Debug, Clone)]
pub(crate) struct Tables {
    pub ncells: usize,
    pub sides: usize,
    pub cells: Vec<u8>,
    pub paths: Vec<Path>,
    /// Per (kind, side, cell): `(first path, end)` in `paths`.
    pub index: Vec<(u32, u32)>,
    /// Per (kind, side, cell): whether two paths can land on the same cell (looped boards).
    pub dedupe: Vec<bool>,
    /// Per (kind, side, cell): whether a pawn-like piece there has a path landing in its
    /// side's promotion zone, so that the generator only expands promotions where they can
    /// happen (set by [`Tables::mark_promotions`]).
    pub promotes: Vec<bool>,
    /// Attack-trie operations of all (side, cell) tries.
    pub ops: Vec<AttackOp>,
    /// Per (attacking side, target cell): `(first op, end)` in `ops`.
    pub op_index: Vec<(u32, u32)>,
    /// Per (attacking side, target cell): every cell from which some piece of that side can
    /// attack the target, whatever stands between.
    pub reach: Vec<CellSet>,
    /// Per (attacking side, target cell, kind): the same for one kind, at
    /// `(side * ncells + target) * nkinds + kind`.
    pub reach_kind: Vec<CellSet>,
    pub nkinds: usize,
    /// Whether some capture hops (so a move *to* a cell can create an attack).
    pub has_hoppers: bool,
    /// Kinds that are never captured (bit per kind): with more than two sides, the royal
    /// ones, since a King in check answers it on its own turn (rulebook 4.6; with two sides
    /// the side to move never finds the enemy King attacked, so nothing is needed).
    pub uncapturable: u32,
    /// For each rank direction (+1, -1) and cell: the cells along the rank, in order, used by
    /// castling (wraps on cylinders).
    pub rank_rays: [Vec<Vec<u8>>; 2],
    /// With more than two sides: one attack trie per target for all sides together (see
    /// [`CrowdTries`]); `None` with two.
    pub crowd: Option<CrowdTries>,
}

/// Attack tries of every side merged into one per target cell, for games of more than two
/// sides: "is this King attacked by anyone?" and "which of its pieces are pinned?" then take
/// one walk instead of one per enemy. An origin's mask has a bit per piece byte (side << 5 |
/// kind), so the walk tests a piece with one shift, and leaves out the side asking.
#[derive(Debug, Clone, Default)]
pub(crate) struct CrowdTries {
    /// The operations of all tries.
    pub ops: Vec<CrowdOp>,
    /// Per target cell: `(first op, end)` in `ops`.
    pub index: Vec<(u32, u32)>,
    /// Per target cell: every cell from which some piece of some side can attack it.
    pub reach: Vec<CellSet>,
}

/// One operation of a merged attack trie: like [`AttackOp`], with a mask over piece bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CrowdOp {
    pub tag: u8,
    pub cell: u8,
    pub skip: u16,
    /// Origins: bit `side << 5 | kind` for each piece that attacks the target from `cell`.
    pub mask: u128,
}

impl CrowdTries {
    /// The merged trie of `target`.
    #[inline]
    pub fn trie(&self, target: usize) -> &[CrowdOp] {
        let (a, b) = self.index[target];
        &self.ops[a as usize..b as usize]
    }
}

impl Tables {
    #[inline]
    pub fn slot(&self, kind: usize, side: usize, cell: usize) -> usize {
        (kind * self.sides + side) * self.ncells + cell
    }

    /// Whether a piece of `side` stands where it could attack `target` were nothing in the
    /// way: when not, its attack trie on `target` cannot find anything and need not be walked.
    #[inline]
    pub fn may_attack(&self, board: &[u8], occupied: &CellSet, side: usize, target: usize) -> bool {
        let at = side * self.ncells + target;
        let near = &self.reach[at];
        let cand = CellSet(std::array::from_fn(|i| occupied.0[i] & near.0[i]));
        if cand.is_empty() {
            return false;
        }
        let kinds = &self.reach_kind[at * self.nkinds..(at + 1) * self.nkinds];
        cand.iter().any(|c| {
            kinds
                .get(Piece::kind_of(board[c.index()]) as usize)
                .is_some_and(|r| r.contains(c))
        })
    }

    /// The attack trie of `side` on `cell`.
    #[inline]
    pub fn trie(&self, side: usize, cell: usize) -> &[AttackOp] {
        let (a, b) = self.op_index[side * self.ncells + cell];
        &self.ops[a as usize..b as usize]
    }

    pub fn build(
        geometry: &Geometry,
        pieces: &[PieceType],
        sides: u8,
        initial: &[CellSet],
        orientation: &Orientation,
        confined: &[CellSet],
    ) -> Tables {
        let ncells = geometry.len();
        let sides = sides as usize;
        let mut t = Tables {
            ncells,
            sides,
            cells: Vec::new(),
            paths: Vec::new(),
            index: vec![(0, 0); pieces.len() * sides * ncells],
            dedupe: vec![false; pieces.len() * sides * ncells],
            promotes: vec![false; pieces.len() * sides * ncells],
            ops: Vec::new(),
            op_index: vec![(0, 0); sides * ncells],
            reach: vec![CellSet::EMPTY; sides * ncells],
            reach_kind: vec![CellSet::EMPTY; sides * ncells * pieces.len()],
            nkinds: pieces.len(),
            has_hoppers: false,
            crowd: None,
            uncapturable: if sides > 2 {
                pieces
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.royal)
                    .fold(0, |m, (k, _)| m | 1 << k)
            } else {
                0
            },
            rank_rays: [Vec::new(), Vec::new()],
        };
        for (k, piece) in pieces.iter().enumerate().skip(1) {
            for side in 0..sides {
                let init = initial[k * sides + side];
                for cell in geometry.cells() {
                    let first = t.paths.len() as u32;
                    for atom in &piece.atoms {
                        if atom.initial && !init.contains(cell) {
                            continue;
                        }
                        let facing = orientation.facing(Side(side as u8), cell.index());
                        let allowed = confined[k * sides + side];
                        t.add_atom(geometry, piece, facing, allowed, cell, atom);
                    }
                    let slot = t.slot(k, side, cell.index());
                    t.index[slot] = (first, t.paths.len() as u32);
                    t.dedupe[slot] = t.may_duplicate(first as usize, t.paths.len());
                }
            }
        }
        t.has_hoppers = t
            .paths
            .iter()
            .any(|p| p.kind == HOP && p.flags & F_CAPTURE != 0);
        t.build_tries(pieces.len());
        for (i, dx) in [1i32, -1].into_iter().enumerate() {
            t.rank_rays[i] = geometry
                .cells()
                .map(|c| {
                    let info = geometry.info(c);
                    walk(
                        geometry,
                        info.board,
                        info.file as i32,
                        info.rank as i32,
                        (dx, 0),
                        0,
                        &[c.0],
                    )
                })
                .collect();
        }
        t
    }

    /// The cells a piece reaches from `cell` on an empty board (see
    /// [`crate::Variant::empty_board_reach`]); several paths onto one cell merge.
    pub fn empty_board_reach(&self, kind: usize, side: usize, cell: usize) -> Vec<Reach> {
        let mut out: Vec<Reach> = Vec::new();
        if kind == 0 || kind >= self.nkinds || side >= self.sides || cell >= self.ncells {
            return out;
        }
        let (a, b) = self.index[self.slot(kind, side, cell)];
        for p in &self.paths[a as usize..b as usize] {
            let s = p.start as usize + p.pre as usize;
            for (i, c) in self.cells[s..s + p.len as usize].iter().enumerate() {
                let blockers = p.pre + if p.kind == LEAPS { 0 } else { i as u8 };
                let hop = p.kind == HOP;
                let r = Reach {
                    cell: Cell(*c),
                    blockers,
                    moves: p.flags & F_MOVE != 0 && !hop,
                    captures: p.flags & F_CAPTURE != 0,
                    hop: hop && p.flags & F_CAPTURE != 0,
                };
                match out.iter_mut().find(|o| o.cell == r.cell) {
                    Some(o) => {
                        o.blockers = o.blockers.min(r.blockers);
                        o.moves |= r.moves;
                        // Captured only by hopping if no path onto it captures plainly.
                        o.hop = (o.hop || !o.captures) && (r.hop || !r.captures);
                        o.captures |= r.captures;
                        o.hop &= o.captures;
                    }
                    None => out.push(r),
                }
            }
        }
        out
    }

    /// Marks the slots of pawn-like pieces with a path landing in `zones[side]` (the union
    /// of the side's compulsory and optional promotion cells).
    pub fn mark_promotions(&mut self, pieces: &[PieceType], zones: &[CellSet]) {
        for (k, piece) in pieces.iter().enumerate().skip(1) {
            if !piece.pawn {
                continue;
            }
            for (side, zone) in zones.iter().enumerate().take(self.sides) {
                for cell in 0..self.ncells {
                    let slot = self.slot(k, side, cell);
                    let (a, b) = self.index[slot];
                    self.promotes[slot] = self.paths[a as usize..b as usize].iter().any(|p| {
                        let s = p.start as usize + p.pre as usize;
                        self.cells[s..s + p.len as usize]
                            .iter()
                            .any(|c| zone.contains(Cell(*c)))
                    });
                }
            }
        }
    }

    /// Whether paths `a..b` can land on one cell twice.
    fn may_duplicate(&self, a: usize, b: usize) -> bool {
        let mut seen = CellSet::EMPTY;
        for p in &self.paths[a..b] {
            let s = p.start as usize + p.pre as usize;
            for c in &self.cells[s..s + p.len as usize] {
                if seen.contains(Cell(*c)) {
                    return true;
                }
                seen.insert(Cell(*c));
            }
        }
        false
    }

    fn push_path(&mut self, pre: &[u8], land: &[u8], kind: u8, flags: u8) {
        if land.is_empty() {
            return;
        }
        let start = self.cells.len() as u32;
        self.cells.extend_from_slice(pre);
        self.cells.extend_from_slice(land);
        self.paths.push(Path {
            start,
            pre: pre.len() as u8,
            len: land.len() as u8,
            kind,
            flags,
        });
    }

    /// Adds the paths of one atom of `piece` from `cell`, in the frame its side faces there,
    /// landing only on `allowed` cells (a confined piece's own files).
    fn add_atom(
        &mut self,
        g: &Geometry,
        piece: &PieceType,
        facing: Facing,
        allowed: CellSet,
        cell: Cell,
        atom: &Atom,
    ) {
        let (fwd, right) = facing.frame();
        let diagonal = facing.forward.0 != 0 && facing.forward.1 != 0;
        let info = g.info(cell);
        let (b, x, y) = (info.board, info.file as i32, info.rank as i32);
        let mut flags = 0;
        if atom.moves {
            flags |= F_MOVE;
        }
        if atom.captures {
            flags |= F_CAPTURE;
        }
        if piece.pawn && atom.captures {
            flags |= F_EP;
        }
        let mut leaps = Vec::new();
        for (dx, dy) in atom.leg.leap.vectors() {
            // An orthogonal frame maps the piece's own vectors onto the board; a diagonal one
            // (a pawn on a long diagonal) reads each board vector in its frame instead.
            let (v, local) = if diagonal {
                ((dx, dy), facing.local((dx, dy)))
            } else {
                (
                    (dx * right.0 + dy * fwd.0, dx * right.1 + dy * fwd.1),
                    (dx, dy),
                )
            };
            if !atom.dirs.allows(local.0, local.1) {
                continue;
            }
            if let Some(second) = atom.then {
                // Bent path: one step onto an empty cell, then onward at an acute angle.
                if !g.solid(b, x, y, v.0, v.1) {
                    continue;
                }
                let Some(c1) = g.canon(b, x + v.0, y + v.1) else {
                    continue;
                };
                if !allowed.contains(c1) {
                    continue;
                }
                for w in second.leap.vectors() {
                    let dot = v.0 * w.0 + v.1 * w.1;
                    let parallel = v.0 * w.1 == v.1 * w.0;
                    if dot <= 0 || parallel {
                        continue;
                    }
                    let land = walk(
                        g,
                        b,
                        x + v.0,
                        y + v.1,
                        w,
                        second_range(second),
                        &[cell.0, c1.0],
                    );
                    self.push_path(&[c1.0], &confine(land, allowed), RIDE, flags);
                }
                continue;
            }
            if atom.leg.rides() {
                let land = confine(walk(g, b, x, y, v, atom.leg.range, &[cell.0]), allowed);
                self.push_path(&[], &land, if atom.hop { HOP } else { RIDE }, flags);
                continue;
            }
            // A single leap.
            if !g.solid(b, x, y, v.0, v.1) {
                continue;
            }
            let Some(target) = g.canon(b, x + v.0, y + v.1) else {
                continue;
            };
            if target == cell || !allowed.contains(target) {
                continue;
            }
            if atom.lame {
                let Some(pre) = lame_cells(g, b, x, y, v) else {
                    continue;
                };
                let mut f = flags;
                if piece.pawn && atom.moves && !atom.captures && !pre.is_empty() {
                    f |= F_DOUBLE;
                }
                self.push_path(&pre, &[target.0], LEAPS, f);
            } else if !leaps.contains(&target.0) {
                leaps.push(target.0);
            }
        }
        self.push_path(&[], &leaps, LEAPS, flags);
    }

    fn build_tries(&mut self, nkinds: usize) {
        #[derive(Default)]
        struct Node {
            cell: u8,
            occupied: bool,
            origins: Vec<(u8, u128)>,
            children: Vec<usize>,
        }
        let mut reach = std::mem::take(&mut self.reach);
        let mut reach_kind = std::mem::take(&mut self.reach_kind);
        // With more than two sides, one more round builds the merged tries (`side ==
        // self.sides` stands for "every side"), with masks over piece bytes.
        let rounds = if self.sides > 2 {
            self.sides + 1
        } else {
            self.sides
        };
        let mut crowd = CrowdTries {
            reach: vec![CellSet::EMPTY; self.ncells],
            ..CrowdTries::default()
        };
        for round in 0..rounds {
            let merged = round == self.sides;
            // One trie per target cell; node 0 of each is the root.
            let mut tries: Vec<Vec<Node>> =
                (0..self.ncells).map(|_| vec![Node::default()]).collect();
            let mut insert = |target: u8, reqs: &[(u8, bool)], origin: u8, bit: u128| {
                let trie = &mut tries[target as usize];
                let mut at = 0;
                for &(cell, occupied) in reqs {
                    let found = trie[at]
                        .children
                        .iter()
                        .copied()
                        .find(|&c| trie[c].cell == cell && trie[c].occupied == occupied);
                    at = match found {
                        Some(c) => c,
                        None => {
                            trie.push(Node {
                                cell,
                                occupied,
                                ..Node::default()
                            });
                            let n = trie.len() - 1;
                            trie[at].children.push(n);
                            n
                        }
                    };
                }
                match trie[at].origins.iter_mut().find(|o| o.0 == origin) {
                    Some(o) => o.1 |= bit,
                    None => trie[at].origins.push((origin, bit)),
                }
            };
            let sides: Vec<usize> = if merged {
                (0..self.sides).collect()
            } else {
                vec![round]
            };
            for (side, k) in sides
                .iter()
                .flat_map(|s| (1..nkinds.min(MAX_KINDS + 1)).map(move |k| (*s, k)))
            {
                let bit = if merged {
                    1u128 << (side << 5 | k)
                } else {
                    1u128 << k
                };
                for origin in 0..self.ncells {
                    let (a, b) = self.index[self.slot(k, side, origin)];
                    for p in &self.paths[a as usize..b as usize] {
                        if p.flags & F_CAPTURE == 0 {
                            continue;
                        }
                        let s = p.start as usize;
                        let pre = &self.cells[s..s + p.pre as usize];
                        let land =
                            &self.cells[s + p.pre as usize..s + p.pre as usize + p.len as usize];
                        // Requirements are listed from the target back towards the origin.
                        let pre_rev: Vec<(u8, bool)> =
                            pre.iter().rev().map(|c| (*c, false)).collect();
                        let targets: &[u8] = if p.kind == HOP && !land.is_empty() {
                            &land[1..]
                        } else {
                            land
                        };
                        for &t in targets {
                            if merged {
                                crowd.reach[t as usize].insert(Cell(origin as u8));
                                continue;
                            }
                            let at = side * self.ncells + t as usize;
                            reach[at].insert(Cell(origin as u8));
                            reach_kind[at * self.nkinds + k].insert(Cell(origin as u8));
                        }
                        match p.kind {
                            LEAPS => {
                                for t in land {
                                    insert(*t, &pre_rev, origin as u8, bit);
                                }
                            }
                            RIDE => {
                                for i in 0..land.len() {
                                    let mut reqs: Vec<(u8, bool)> =
                                        land[..i].iter().rev().map(|c| (*c, false)).collect();
                                    reqs.extend_from_slice(&pre_rev);
                                    insert(land[i], &reqs, origin as u8, bit);
                                }
                            }
                            _ => {
                                for i in 0..land.len() {
                                    for screen in 0..i {
                                        let mut reqs: Vec<(u8, bool)> = Vec::new();
                                        for j in (0..i).rev() {
                                            reqs.push((land[j], j == screen));
                                        }
                                        reqs.extend_from_slice(&pre_rev);
                                        insert(land[i], &reqs, origin as u8, bit);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            // Flatten each trie depth-first: a node's origins, then its children's subtrees.
            fn emit(trie: &[Node], n: usize, out: &mut Vec<CrowdOp>) {
                for &(cell, mask) in &trie[n].origins {
                    out.push(CrowdOp {
                        tag: OP_ORIGIN,
                        cell,
                        skip: 0,
                        mask,
                    });
                }
                for &c in &trie[n].children {
                    let at = out.len();
                    out.push(CrowdOp {
                        tag: if trie[c].occupied {
                            OP_NEED_OCCUPIED
                        } else {
                            OP_NEED_EMPTY
                        },
                        cell: trie[c].cell,
                        skip: 0,
                        mask: 0,
                    });
                    emit(trie, c, out);
                    out[at].skip = (out.len() - at) as u16;
                }
            }
            for (target, trie) in tries.iter().enumerate() {
                // Leap origins first: they are the cheapest to test and the most common.
                let mut ops = Vec::new();
                emit(trie, 0, &mut ops);
                if merged {
                    let first = crowd.ops.len() as u32;
                    crowd.ops.extend(ops);
                    crowd.index.push((first, crowd.ops.len() as u32));
                    continue;
                }
                let first = self.ops.len() as u32;
                self.ops.extend(ops.into_iter().map(|o| AttackOp {
                    tag: o.tag,
                    cell: o.cell,
                    skip: o.skip,
                    mask: o.mask as u32,
                }));
                let slot = round * self.ncells + target;
                self.op_index[slot] = (first, self.ops.len() as u32);
            }
        }
        self.reach = reach;
        self.reach_kind = reach_kind;
        if self.sides > 2 {
            self.crowd = Some(crowd);
        }
    }
}

fn second_range(leg: Leg) -> u8 {
    leg.range
}

/// A ride cut short before the first cell its piece may not enter (a confined piece treats
/// such cells as the edge of its board).
fn confine(mut land: Vec<u8>, allowed: CellSet) -> Vec<u8> {
    if let Some(i) = land.iter().position(|c| !allowed.contains(Cell(*c))) {
        land.truncate(i);
    }
    land
}

/// The cells a rider passes from cover point `(x, y)` along `v`: it stops at the edge, at a
/// hole, before any cell already visited (so a slider never makes a null move on a looped
/// board), and after `range` steps (0 = unlimited).
fn walk(g: &Geometry, b: u8, x: i32, y: i32, v: (i32, i32), range: u8, visited: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let (mut px, mut py) = (x, y);
    loop {
        if range != 0 && out.len() >= range as usize {
            break;
        }
        if !g.solid(b, px, py, v.0, v.1) {
            break;
        }
        let (nx, ny) = (px + v.0, py + v.1);
        let Some(c) = g.canon(b, nx, ny) else {
            break;
        };
        if visited.contains(&c.0) || out.contains(&c.0) {
            break;
        }
        out.push(c.0);
        (px, py) = (nx, ny);
    }
    out
}

/// The cells a lame leap passes: the straight cells between for (n,0) and (n,n) leaps, the
/// orthogonal-first path for oblique leaps. `None` if one of them does not exist.
fn lame_cells(g: &Geometry, b: u8, x: i32, y: i32, v: (i32, i32)) -> Option<Vec<u8>> {
    let (ax, ay) = (v.0.abs(), v.1.abs());
    let (sx, sy) = (v.0.signum(), v.1.signum());
    let mut out = Vec::new();
    if ax == 0 || ay == 0 || ax == ay {
        let n = ax.max(ay);
        for i in 1..n {
            out.push(g.canon(b, x + sx * i, y + sy * i)?.0);
        }
    } else {
        // Oblique: step orthogonally along the longer axis first, then diagonally.
        let (long, short) = if ax > ay { (ax, ay) } else { (ay, ax) };
        let mut px = x;
        let mut py = y;
        for i in 1..long {
            if i <= long - short {
                if ax > ay {
                    px += sx;
                } else {
                    py += sy;
                }
            } else {
                px += sx;
                py += sy;
            }
            out.push(g.canon(b, px, py)?.0);
        }
    }
    Some(out)
}
