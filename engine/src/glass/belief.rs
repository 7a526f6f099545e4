//! The belief about the world a side cannot see, and sampling hidden worlds from it.
//!
//! What is hidden from a side is exactly the opponent's pieces on the opponent's world (the
//! side sees its own world whole and is told where its own pieces are on the other). The
//! referee's facts pin down most of it: every arrival of an opponent piece there is told
//! ([`Fact::Asked`] for his moves on his world, [`Fact::Transferred`] for falls through the
//! portal), captures are told, and a transfer of our piece there names what it attacks. What
//! stays unknown is his back rank, and which piece left which square each time he moved.
//!
//! So a sample is a particle replayed through the facts: it starts from his pawns and a
//! random Chess960 back rank, and at each fact it makes a random choice where the facts
//! leave one (which of his pieces could have reached the square he moved to) and repairs
//! itself where a fact contradicts it (a square seen empty, a piece of a known type seen on
//! a square). After the last fact it is made to agree with what is certain now: the number
//! of his pieces there (sixteen, minus what we captured, minus what we see on our world),
//! his King (there exactly when we do not see it), and the answer to `ask` if we asked. A
//! sample is therefore always consistent with the latest facts and with the counts, though
//! not necessarily with every fact of the past (a full Bayesian filter would be; see the
//! README's "what is missing").

use std::collections::BTreeSet;

use rules::{
    Cell, Kind, Piece, Side, Variant,
    glass::{BackRank, Fact, Glass, other, world_of},
};

use super::knowledge::Knowledge;
use crate::level::Rng;

/// One of the opponent's pieces as a sample imagines it.
#[derive(Debug, Clone, Copy)]
struct Ghost {
    cell: Cell,
    kind: Kind,
    /// Whether a fact named its type (otherwise it is a guess).
    sure: bool,
    /// The index of the last fact that placed or confirmed it (0: never).
    touched: usize,
}

/// The piece letters of the FIDE army, for counting what the opponent still has.
const ARMY: [(char, usize); 6] = [('K', 1), ('Q', 1), ('R', 2), ('B', 2), ('N', 2), ('P', 8)];

/// How many tries a sample gets to agree with the answer to `ask` before it is kept anyway.
const ASK_TRIES: usize = 8;

/// Samples hidden worlds for one side's knowledge.
pub(crate) struct Sampler<'a> {
    k: &'a Knowledge,
    v: &'a Variant,
    me: Side,
    opp: Side,
    /// The world `me` cannot see.
    hidden: u8,
}

impl<'a> Sampler<'a> {
    pub(crate) fn new(k: &'a Knowledge, v: &'a Variant) -> Sampler<'a> {
        let me = k.side();
        Sampler {
            k,
            v,
            me,
            opp: other(me),
            hidden: world_of(other(me)),
        }
    }

    fn on_hidden(&self, c: Cell) -> bool {
        self.v.geometry.info(c).board == self.hidden
    }

    fn letter(&self, kind: Kind) -> char {
        self.v.piece(kind).letter.to_ascii_uppercase()
    }

    fn kind(&self, l: char) -> Kind {
        self.v.kind_by_letter(l).expect("the FIDE pieces exist")
    }

    fn portal(&self, c: Cell) -> Cell {
        let i = self.v.geometry.info(c);
        self.v
            .geometry
            .at(1 - i.board, i.file as i32, i.rank as i32)
            .expect("both worlds have every square")
    }

    /// `n` full games as this side imagines them, the opponent's hidden pieces drawn with
    /// `rng`, ready for the army to move to give its order (`turn`).
    pub(crate) fn games(
        &self,
        n: usize,
        rng: &mut Rng,
        arc: &std::sync::Arc<Variant>,
    ) -> Vec<Glass> {
        let castle = self.k.castling_rooks(self.v);
        let turn = self.k.view().to_move.unwrap_or(self.me);
        (0..n)
            .map(|_| {
                let mut tries = 0;
                loop {
                    let ghosts = self.sample(rng);
                    let g = self.build(arc, &ghosts, turn, &castle);
                    tries += 1;
                    match self.k.answer() {
                        Some(a)
                            if tries < ASK_TRIES
                                && g.has_move_on(self.k.army(), self.hidden) != a =>
                        {
                            continue;
                        }
                        _ => break g,
                    }
                }
            })
            .collect()
    }

    fn build(
        &self,
        arc: &std::sync::Arc<Variant>,
        ghosts: &[Ghost],
        turn: Side,
        castle: &[Cell],
    ) -> Glass {
        let view = self.k.view();
        let mut pieces: Vec<(Cell, Piece)> = view.world.clone();
        pieces.extend(view.elsewhere.iter().copied());
        pieces.extend(ghosts.iter().map(|g| {
            (
                g.cell,
                Piece {
                    side: self.opp,
                    kind: g.kind,
                },
            )
        }));
        Glass::from_pieces(
            arc.clone(),
            self.k.rules(),
            &pieces,
            turn,
            view.strikes,
            castle,
        )
    }

    /// One hidden world: the opponent's pieces on the world `me` cannot see.
    fn sample(&self, rng: &mut Rng) -> Vec<Ghost> {
        let g = &self.v.geometry;
        let (pawn_rank, back_rank) = if self.opp == Side::WHITE {
            (1, 0)
        } else {
            (6, 7)
        };
        let rank =
            BackRank::from_number(rng.below(960) as u32).unwrap_or_else(|_| BackRank::orthodox());
        let mut ghosts: Vec<Ghost> = Vec::new();
        for (file, l) in rank.letters().chars().enumerate() {
            for (r, letter) in [(back_rank, l), (pawn_rank, 'P')] {
                if let Some(cell) = g.at(self.hidden, file as i32, r) {
                    ghosts.push(Ghost {
                        cell,
                        kind: self.kind(letter),
                        sure: letter == 'P',
                        touched: 0,
                    });
                }
            }
        }
        let mut empty: BTreeSet<Cell> = BTreeSet::new();
        let told = self.k.told();
        for (i, fact) in told.iter().enumerate() {
            let i = i + 1;
            match fact {
                Fact::Asked { cell } if self.on_hidden(*cell) => {
                    self.moved_to(&mut ghosts, &mut empty, *cell, i, rng);
                }
                Fact::Transferred { piece, from, to } => {
                    if self.on_hidden(*from) {
                        ghosts.retain(|x| x.cell != *from);
                    }
                    if self.on_hidden(*to) {
                        self.displace(&mut ghosts, &empty, *to, rng);
                        empty.remove(to);
                        if piece.side == self.opp {
                            ghosts.push(Ghost {
                                cell: *to,
                                kind: piece.kind,
                                sure: true,
                                touched: i,
                            });
                        }
                    }
                }
                Fact::Stayed { cell } if !self.on_hidden(*cell) => {
                    // The connected square on the hidden world is occupied: by one of ours
                    // (we know where they are now), or by one of his.
                    let there = self.portal(*cell);
                    let ours = self.k.view().elsewhere.iter().any(|(c, _)| *c == there);
                    if !ours {
                        self.observe(&mut ghosts, &mut empty, there, None, i, rng);
                    }
                }
                Fact::Attacks { at, attacked } if self.on_hidden(*at) => {
                    for (p, c) in attacked {
                        if p.side == self.opp {
                            self.observe(&mut ghosts, &mut empty, *c, Some(p.kind), i, rng);
                        }
                    }
                }
                Fact::InFront { cell, content } if self.on_hidden(*cell) => match content {
                    Some(p) if p.side == self.opp => {
                        self.observe(&mut ghosts, &mut empty, *cell, Some(p.kind), i, rng);
                    }
                    _ => self.seen_empty(&mut ghosts, &mut empty, *cell, rng),
                },
                Fact::Captured { piece, cell }
                    if self.on_hidden(*cell) && piece.side == self.opp =>
                {
                    if let Some(at) = ghosts.iter().position(|x| x.cell == *cell) {
                        ghosts.remove(at);
                    } else if let Some(at) = self.least_touched(&ghosts, Some(piece.kind)) {
                        ghosts.remove(at);
                    }
                }
                Fact::Carried {
                    piece, from, to, ..
                } if self.on_hidden(*from) && piece.side == self.me => {
                    // Our blind order went through every square before `to`, and ended on an
                    // empty `to` unless it captured there (told next).
                    for c in self.between(*from, *to) {
                        self.seen_empty(&mut ghosts, &mut empty, c, rng);
                    }
                    let captured_there = told[i..]
                        .iter()
                        .take(2)
                        .any(|f| matches!(f, Fact::Captured { cell, .. } if cell == to));
                    if !captured_there {
                        self.seen_empty(&mut ghosts, &mut empty, *to, rng);
                    }
                }
                Fact::Impossible { order, .. } => {
                    if let Some((front, capture)) = self.pawn_order(order) {
                        match capture {
                            // A Pawn's capture was impossible: nothing of his stood there.
                            true => self.seen_empty(&mut ghosts, &mut empty, front, rng),
                            // A Pawn's push was impossible: its first square was held.
                            false => {
                                let ours = self.k.view().elsewhere.iter().any(|(c, _)| *c == front);
                                if !ours {
                                    self.observe(&mut ghosts, &mut empty, front, None, i, rng);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.reconcile(ghosts, &empty, rng)
    }

    /// He moved a piece on his world to `cell`: one of the ghosts that could get there did.
    fn moved_to(
        &self,
        ghosts: &mut [Ghost],
        empty: &mut BTreeSet<Cell>,
        cell: Cell,
        i: usize,
        rng: &mut Rng,
    ) {
        empty.remove(&cell);
        let occupied = |c: Cell| {
            ghosts.iter().any(|x| x.cell == c)
                || self.k.view().elsewhere.iter().any(|(x, _)| *x == c)
        };
        let could: Vec<usize> = (0..ghosts.len())
            .filter(|&j| ghosts[j].cell != cell)
            .filter(|&j| self.reaches(ghosts[j].kind, ghosts[j].cell, cell, &occupied))
            .collect();
        let pick = if could.is_empty() {
            // No imagined piece could: the sample was wrong somewhere; the least-confirmed
            // piece moved.
            self.least_touched(ghosts, None)
        } else {
            Some(could[rng.below(could.len() as u64) as usize])
        };
        // A piece we imagined on that square was never there (he cannot move onto his own).
        if let Some(at) = ghosts.iter().position(|x| x.cell == cell)
            && Some(at) != pick
            && let Some(f) = self.free_cell(ghosts, empty, rng, ghosts[at].kind)
        {
            ghosts[at].cell = f;
        }
        if let Some(j) = pick {
            ghosts[j].cell = cell;
            ghosts[j].touched = i;
        }
    }

    /// A fact says an opponent piece (of `kind`, if named) stands on `cell`.
    fn observe(
        &self,
        ghosts: &mut [Ghost],
        empty: &mut BTreeSet<Cell>,
        cell: Cell,
        kind: Option<Kind>,
        i: usize,
        rng: &mut Rng,
    ) {
        empty.remove(&cell);
        let j = match ghosts.iter().position(|x| x.cell == cell) {
            Some(j) => j,
            None => {
                // Move the piece least confirmed (of that type if possible) there.
                let Some(j) = self
                    .least_touched_unsure(ghosts, kind, i, rng)
                    .or_else(|| self.least_touched(ghosts, None))
                else {
                    return;
                };
                ghosts[j].cell = cell;
                j
            }
        };
        ghosts[j].touched = i;
        if let Some(k) = kind {
            if ghosts[j].kind != k {
                // Keep the army's make-up: the ghost that was guessed to be `k` takes the old
                // type.
                let old = ghosts[j].kind;
                if let Some(o) =
                    (0..ghosts.len()).find(|&o| o != j && ghosts[o].kind == k && !ghosts[o].sure)
                {
                    ghosts[o].kind = old;
                }
                ghosts[j].kind = k;
            }
            ghosts[j].sure = true;
        }
    }

    /// A fact says `cell` is empty: an imagined piece there goes elsewhere.
    fn seen_empty(
        &self,
        ghosts: &mut [Ghost],
        empty: &mut BTreeSet<Cell>,
        cell: Cell,
        rng: &mut Rng,
    ) {
        empty.insert(cell);
        if let Some(j) = ghosts.iter().position(|x| x.cell == cell) {
            match self.free_cell(ghosts, empty, rng, ghosts[j].kind) {
                Some(f) => ghosts[j].cell = f,
                None => ghosts[j].cell = cell,
            }
        }
    }

    /// A piece imagined on `cell` moves away (something else arrives there).
    fn displace(&self, ghosts: &mut [Ghost], empty: &BTreeSet<Cell>, cell: Cell, rng: &mut Rng) {
        if let Some(j) = ghosts.iter().position(|x| x.cell == cell)
            && let Some(f) = self.free_cell(ghosts, empty, rng, ghosts[j].kind)
        {
            ghosts[j].cell = f;
        }
    }

    fn least_touched(&self, ghosts: &[Ghost], kind: Option<Kind>) -> Option<usize> {
        (0..ghosts.len())
            .filter(|&j| kind.is_none_or(|k| ghosts[j].kind == k))
            .filter(|&j| self.letter(ghosts[j].kind) != 'K' || kind.is_some())
            .min_by_key(|&j| ghosts[j].touched)
    }

    /// A ghost to place where a fact saw one: of the type seen if any is unconfirmed since
    /// before this fact, else any unconfirmed one, chosen at random among the oldest.
    fn least_touched_unsure(
        &self,
        ghosts: &[Ghost],
        kind: Option<Kind>,
        i: usize,
        rng: &mut Rng,
    ) -> Option<usize> {
        let pool: Vec<usize> = (0..ghosts.len())
            .filter(|&j| ghosts[j].touched < i)
            .filter(|&j| kind.is_none_or(|k| ghosts[j].kind == k || !ghosts[j].sure))
            .collect();
        let oldest = pool.iter().map(|&j| ghosts[j].touched).min()?;
        let firsts: Vec<usize> = pool
            .into_iter()
            .filter(|&j| ghosts[j].touched == oldest)
            .collect();
        Some(firsts[rng.below(firsts.len() as u64) as usize])
    }

    /// A random square of the hidden world with nothing on it and not seen empty, on the
    /// opponent's half first (where his pieces mostly are); no Pawn on a first or last rank.
    fn free_cell(
        &self,
        ghosts: &[Ghost],
        empty: &BTreeSet<Cell>,
        rng: &mut Rng,
        kind: Kind,
    ) -> Option<Cell> {
        let g = &self.v.geometry;
        let pawn = self.letter(kind) == 'P';
        let mine = &self.k.view().elsewhere;
        let ok = |c: Cell| {
            let r = g.info(c).rank;
            g.info(c).board == self.hidden
                && !empty.contains(&c)
                && !ghosts.iter().any(|x| x.cell == c)
                && !mine.iter().any(|(x, _)| *x == c)
                && !(pawn && (r == 0 || r == 7))
        };
        let half = |c: Cell| {
            let r = g.info(c).rank;
            if self.opp == Side::WHITE {
                r < 4
            } else {
                r >= 4
            }
        };
        let near: Vec<Cell> = g.cells().filter(|c| ok(*c) && half(*c)).collect();
        let all: Vec<Cell> = if near.is_empty() {
            g.cells().filter(|c| ok(*c)).collect()
        } else {
            near
        };
        (!all.is_empty()).then(|| all[rng.below(all.len() as u64) as usize])
    }

    /// Makes a replayed sample agree with what is certain now.
    fn reconcile(
        &self,
        mut ghosts: Vec<Ghost>,
        empty: &BTreeSet<Cell>,
        rng: &mut Rng,
    ) -> Vec<Ghost> {
        let view = self.k.view();
        // Our own pieces stand where we are told.
        for (c, _) in &view.elsewhere {
            if ghosts.iter().any(|x| x.cell == *c) {
                self.displace(&mut ghosts, empty, *c, rng);
                ghosts.retain(|x| x.cell != *c);
            }
        }
        // What he still has there: his army, minus what we took, minus what we see of his.
        let mut missing: Vec<char> = Vec::new();
        for (l, n) in ARMY {
            let taken = view.captured[self.me.index()]
                .iter()
                .filter(|k| self.letter(**k) == l)
                .count();
            let seen = view
                .world
                .iter()
                .filter(|(_, p)| p.side == self.opp && self.letter(p.kind) == l)
                .count();
            let have = ghosts.iter().filter(|x| self.letter(x.kind) == l).count();
            let want = n.saturating_sub(taken + seen);
            for _ in want..have {
                // Too many of this type: the least confirmed goes (he cannot have it).
                if let Some(j) = self.least_touched(&ghosts, Some(self.kind(l))) {
                    ghosts.remove(j);
                }
            }
            for _ in have..want {
                missing.push(l);
            }
        }
        // Promotions and lost track leave the total off: fill the gaps with the missing
        // types, or drop the least confirmed pieces.
        let total = 16usize
            .saturating_sub(view.captured[self.me.index()].len())
            .saturating_sub(
                view.world
                    .iter()
                    .filter(|(_, p)| p.side == self.opp)
                    .count(),
            );
        for l in missing {
            if ghosts.len() >= total {
                break;
            }
            let kind = self.kind(l);
            if let Some(c) = self.free_cell(&ghosts, empty, rng, kind) {
                ghosts.push(Ghost {
                    cell: c,
                    kind,
                    sure: false,
                    touched: 0,
                });
            }
        }
        while ghosts.len() > total {
            match self.least_touched(&ghosts, None) {
                Some(j) => {
                    ghosts.remove(j);
                }
                None => break,
            }
        }
        // A Pawn imagined on his last rank has promoted.
        let last = if self.opp == Side::WHITE { 7 } else { 0 };
        for x in &mut ghosts {
            if self.letter(x.kind) == 'P' && self.v.geometry.info(x.cell).rank == last {
                x.kind = self.kind('Q');
            }
        }
        ghosts
    }

    /// An impossible blind order of ours that can only have been a Pawn's (every other
    /// piece is stopped only by our own pieces, which we see): the square it says something
    /// about, and whether it was a capture (that square was empty) or a push (the square in
    /// front was held).
    fn pawn_order(&self, text: &str) -> Option<(Cell, bool)> {
        let g = &self.v.geometry;
        let Ok(rules::glass::Order::Move { from, to, .. }) =
            rules::glass::Order::parse(g, world_of(self.me), text)
        else {
            return None;
        };
        if !self.on_hidden(from) {
            return None;
        }
        let (a, b) = (g.info(from), g.info(to));
        let dir = if self.me == Side::WHITE { 1 } else { -1 };
        let (dx, dy) = (b.file as i32 - a.file as i32, b.rank as i32 - a.rank as i32);
        if dx.abs() == 1 && dy == dir {
            return Some((to, true));
        }
        if dx == 0 && (dy == dir || dy == 2 * dir) {
            return g
                .at(a.board, a.file as i32, a.rank as i32 + dir)
                .map(|c| (c, false));
        }
        None
    }

    /// The squares strictly between two squares on a line (none for a leap).
    fn between(&self, a: Cell, b: Cell) -> Vec<Cell> {
        let g = &self.v.geometry;
        let (ia, ib) = (g.info(a), g.info(b));
        let (dx, dy) = (
            ib.file as i32 - ia.file as i32,
            ib.rank as i32 - ia.rank as i32,
        );
        if !(dx == 0 || dy == 0 || dx.abs() == dy.abs()) {
            return Vec::new();
        }
        let n = dx.abs().max(dy.abs());
        (1..n)
            .filter_map(|s| {
                g.at(
                    ia.board,
                    ia.file as i32 + s * dx.signum(),
                    ia.rank as i32 + s * dy.signum(),
                )
            })
            .collect()
    }

    /// Whether an opponent piece of `kind` on `from` could move to `to` (same world), the
    /// way blocked by what the sample and our own pieces hold.
    fn reaches(&self, kind: Kind, from: Cell, to: Cell, occupied: &dyn Fn(Cell) -> bool) -> bool {
        let g = &self.v.geometry;
        let (a, b) = (g.info(from), g.info(to));
        if a.board != b.board {
            return false;
        }
        let (dx, dy) = (b.file as i32 - a.file as i32, b.rank as i32 - a.rank as i32);
        let clear = || self.between(from, to).into_iter().all(|c| !occupied(c));
        match self.letter(kind) {
            'N' => (dx.abs(), dy.abs()) == (1, 2) || (dx.abs(), dy.abs()) == (2, 1),
            // Castling moves the King two or more files: allowed along the home row.
            'K' => dx.abs().max(dy.abs()) == 1 || (dy == 0 && dx.abs() >= 2),
            'R' => (dx == 0 || dy == 0) && clear(),
            'B' => dx.abs() == dy.abs() && clear(),
            'Q' => (dx == 0 || dy == 0 || dx.abs() == dy.abs()) && clear(),
            'P' => {
                let dir = if self.opp == Side::WHITE { 1 } else { -1 };
                let start = if self.opp == Side::WHITE { 1 } else { 6 };
                (dy == dir && dx.abs() <= 1)
                    || (dx == 0 && dy == 2 * dir && a.rank as i32 == start && clear())
            }
            _ => false,
        }
    }
}
