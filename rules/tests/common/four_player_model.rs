//! A second, deliberately simple move generator for the four-player Double Cross Besiege
//! forms, written from the rulebook (double-cross-besiege.md 4.1-4.3 and 4.6,
//! geometry-and-pieces.md 2.3, fine-points.md G1), not from the engine: no tables, no attack
//! tries, no pins; every move is tried on a copy of a bare board of 128 cover cells and
//! kept if no other player's piece could then take the mover's King. The readings it
//! implements are the ones written down in `docs/src/rules/four-player-readings.md`.
//!
//! It shares nothing with the engine but the start position it is given (the arrays are
//! data) and the spelling of a move (`cl-cm`, `bo-ao=Q`, `pass`).

use std::collections::BTreeSet;

/// The ranks' letters, bottom (y = 0) to top.
const RANKS: &[u8; 16] = b"klmnopqrstuvwxyz";

/// A piece on the bare board: (side 0-3 in turn order Red, Blue, Yellow, Green; letter).
pub type Man = (u8, u8);

/// One move of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RMove {
    pub from: u8,
    pub to: u8,
    pub promotion: Option<u8>,
    /// An en-passant capture: the cell of the Pawn taken.
    pub ep_victim: Option<u8>,
    /// A double step: the cell passed over.
    pub passed: Option<u8>,
    pub pass: bool,
}

/// A four-player position on the bare board.
#[derive(Clone, Debug)]
pub struct Model {
    /// Quadruple besiege: ranks wrap (z next to k) and each cruciform board's side edges join
    /// the other's (cover (x, y) is (x + 8, y + 8)).
    pub quadruple: bool,
    /// `board[x + 8 * y]`.
    pub board: [Option<Man>; 128],
    pub turn: u8,
    /// Sides out (bit per side).
    pub out: u8,
    /// The en-passant right of the next move: (cell passed over, Pawn that passed).
    pub ep: Option<(u8, u8)>,
    /// What a Pawn may become: every non-royal, non-Pawn letter of the array.
    pub promotions: Vec<u8>,
    /// The sides the last move took out.
    pub mated: u8,
    /// Take checkmated players out one at a time (the reading this model does not follow;
    /// kept to find positions where the two differ).
    pub sequential: bool,
}

/// Whether cell (x, y) of the 8 x 16 rectangle exists: ranks m-p and u-x are 8 wide, the
/// others only files c-f (4.1).
fn exists(x: i32, y: i32) -> bool {
    (0..8).contains(&x)
        && (0..16).contains(&y)
        && (matches!(y, 2..=5 | 10..=13) || (2..=5).contains(&x))
}

pub fn name(c: u8) -> String {
    format!(
        "{}{}",
        (b'a' + c % 8) as char,
        RANKS[(c / 8) as usize] as char
    )
}

pub fn parse(name: &str) -> u8 {
    let b = name.as_bytes();
    let x = b[0] - b'a';
    let y = RANKS.iter().position(|r| *r == b[1]).unwrap() as u8;
    x + 8 * y
}

fn xy(c: u8) -> (i32, i32) {
    ((c % 8) as i32, (c / 8) as i32)
}

const ORTH: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const CAMEL: [(i32, i32); 8] = [
    (1, 3),
    (3, 1),
    (3, -1),
    (1, -3),
    (-1, -3),
    (-3, -1),
    (-3, 1),
    (-1, 3),
];

impl Model {
    /// The real cell at cover point (x, y), if any (4.2's identifications).
    fn canon(&self, mut x: i32, mut y: i32) -> Option<u8> {
        if self.quadruple {
            while x < 0 {
                x += 8;
                y += 8;
            }
            while x >= 8 {
                x -= 8;
                y -= 8;
            }
            y = y.rem_euclid(16);
        }
        exists(x, y).then(|| (x + 8 * y) as u8)
    }

    /// A diagonal step from cover point p keeps to a solid 2x2 block (2.3).
    fn diagonal_ok(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        self.canon(p.0 + d.0, p.1).is_some() && self.canon(p.0, p.1 + d.1).is_some()
    }

    /// A Knight leap from cover point p stays within a solid 2x3 block (2.3).
    fn knight_ok(&self, p: (i32, i32), d: (i32, i32)) -> bool {
        let (x0, x1) = (p.0.min(p.0 + d.0), p.0.max(p.0 + d.0));
        let (y0, y1) = (p.1.min(p.1 + d.1), p.1.max(p.1 + d.1));
        (x0..=x1).all(|x| (y0..=y1).all(|y| self.canon(x, y).is_some()))
    }

    /// Which way `side`'s Pawns advance on the half of the board holding cell `c` (4.6).
    fn forward(side: u8, c: u8) -> (i32, i32) {
        let lower = c / 8 < 8;
        match (side, lower) {
            (0, true) | (2, false) => (0, 1),
            (0, false) | (2, true) => (0, -1),
            (1, true) | (3, false) => (-1, 0),
            (1, false) | (3, true) => (1, 0),
            _ => unreachable!(),
        }
    }

    /// A Pawn may never enter the camp of a colour next to its own in turn order (4.3):
    /// Red and Yellow keep off the side arms, Blue and Green off the end arms.
    fn pawn_may_enter(side: u8, c: u8) -> bool {
        let (x, y) = xy(c);
        if side.is_multiple_of(2) {
            (2..=5).contains(&x)
        } else {
            matches!(y, 2..=5 | 10..=13)
        }
    }

    /// The Pawn lines of the start (4.6): where the optional initial double step is taken.
    fn pawn_start(side: u8, c: u8) -> bool {
        let (x, y) = xy(c);
        match side {
            0 => (y == 1 || y == 14) && (2..=5).contains(&x),
            1 => (x == 6 && (2..=5).contains(&y)) || (x == 1 && (10..=13).contains(&y)),
            2 => (y == 6 || y == 9) && (2..=5).contains(&x),
            _ => (x == 1 && (2..=5).contains(&y)) || (x == 6 && (10..=13).contains(&y)),
        }
    }

    /// The enemy non-Pawn lines where each camp's Pawns promote (4.6).
    fn promotes(side: u8, c: u8) -> bool {
        let (x, y) = xy(c);
        match side {
            0 => y == 7 || y == 8,
            1 => (x == 0 && (2..=5).contains(&y)) || (x == 7 && (10..=13).contains(&y)),
            2 => y == 0 || y == 15,
            _ => (x == 7 && (2..=5).contains(&y)) || (x == 0 && (10..=13).contains(&y)),
        }
    }

    fn atoms(letter: u8) -> (bool, bool, bool, bool, bool) {
        // (orthogonal rider, diagonal rider, knight, camel, king steps)
        match letter {
            b'K' => (false, false, false, false, true),
            b'Q' => (true, true, false, false, false),
            b'R' => (true, false, false, false, false),
            b'B' => (false, true, false, false, false),
            b'N' => (false, false, true, false, false),
            b'C' => (false, false, false, true, false),
            b'G' => (false, false, true, true, false),
            b'M' => (true, false, true, false, false),
            b'A' => (false, true, true, false, false),
            other => panic!("no piece {}", other as char),
        }
    }

    /// The cells the piece on `from` could move or capture to, ignoring its own King's
    /// safety. `attacks`: only the cells it attacks (captures, a King included, so this
    /// answers "is that King attacked"); otherwise its moves, never onto a King.
    fn targets(&self, from: u8, attacks: bool, out: &mut Vec<RMove>) {
        let (side, letter) = self.board[from as usize].unwrap();
        let p = xy(from);
        let push = |out: &mut Vec<RMove>, to: u8| {
            let ok = match self.board[to as usize] {
                None => !attacks,
                Some((s, l)) => s != side && (attacks || l != b'K'),
            };
            if ok {
                out.push(RMove {
                    from,
                    to,
                    promotion: None,
                    ep_victim: None,
                    passed: None,
                    pass: false,
                });
            }
        };
        if letter == b'P' {
            self.pawn(from, side, attacks, out);
            return;
        }
        let (orth, diag, knight, camel, king) = Self::atoms(letter);
        let mut rides: Vec<(i32, i32)> = Vec::new();
        if orth {
            rides.extend(ORTH);
        }
        if diag {
            rides.extend(DIAG);
        }
        for d in rides {
            // A rider stops before it would enter a cell already on its path (2.3).
            let mut seen = vec![from];
            let mut q = p;
            loop {
                if d.0 != 0 && d.1 != 0 && !self.diagonal_ok(q, d) {
                    break;
                }
                q = (q.0 + d.0, q.1 + d.1);
                let Some(c) = self.canon(q.0, q.1) else {
                    break;
                };
                if seen.contains(&c) {
                    break;
                }
                seen.push(c);
                push(out, c);
                if self.board[c as usize].is_some() {
                    break;
                }
            }
        }
        if knight {
            for d in KNIGHT {
                if self.knight_ok(p, d)
                    && let Some(c) = self.canon(p.0 + d.0, p.1 + d.1)
                {
                    push(out, c);
                }
            }
        }
        if camel {
            for d in CAMEL {
                if let Some(c) = self.canon(p.0 + d.0, p.1 + d.1) {
                    push(out, c);
                }
            }
        }
        if king {
            for d in ORTH.into_iter().chain(DIAG) {
                if (d.0 == 0 || d.1 == 0 || self.diagonal_ok(p, d))
                    && let Some(c) = self.canon(p.0 + d.0, p.1 + d.1)
                {
                    push(out, c);
                }
            }
        }
    }

    fn pawn(&self, from: u8, side: u8, attacks: bool, out: &mut Vec<RMove>) {
        let p = xy(from);
        let f = Self::forward(side, from);
        let across = (f.1, f.0);
        let add = |out: &mut Vec<RMove>, m: RMove| {
            if Self::promotes(side, m.to) && !attacks {
                for &l in &self.promotions {
                    out.push(RMove {
                        promotion: Some(l),
                        ..m
                    });
                }
            } else {
                out.push(m);
            }
        };
        let plain = |to: u8| RMove {
            from,
            to,
            promotion: None,
            ep_victim: None,
            passed: None,
            pass: false,
        };
        // Captures: one step diagonally forward, in a solid block, never into a
        // neighbour's camp; en passant on the cell a Pawn just passed over.
        for s in [1, -1] {
            let d = (f.0 + s * across.0, f.1 + s * across.1);
            if !self.diagonal_ok(p, d) {
                continue;
            }
            let Some(c) = self.canon(p.0 + d.0, p.1 + d.1) else {
                continue;
            };
            if !Self::pawn_may_enter(side, c) {
                continue;
            }
            match self.board[c as usize] {
                Some((s2, l)) if s2 != side && (attacks || l != b'K') => add(out, plain(c)),
                None if !attacks => {
                    if let Some((target, victim)) = self.ep
                        && target == c
                        && self.board[victim as usize].is_some_and(|(s2, _)| s2 != side)
                    {
                        add(
                            out,
                            RMove {
                                ep_victim: Some(victim),
                                ..plain(c)
                            },
                        );
                    }
                }
                _ => {}
            }
        }
        if attacks {
            return;
        }
        // Steps: one forward onto an empty cell; from the start line, two.
        let Some(one) = self.canon(p.0 + f.0, p.1 + f.1) else {
            return;
        };
        if self.board[one as usize].is_some() || !Self::pawn_may_enter(side, one) {
            return;
        }
        add(out, plain(one));
        if Self::pawn_start(side, from)
            && let Some(two) = self.canon(p.0 + 2 * f.0, p.1 + 2 * f.1)
            && self.board[two as usize].is_none()
            && Self::pawn_may_enter(side, two)
        {
            add(
                out,
                RMove {
                    passed: Some(one),
                    ..plain(two)
                },
            );
        }
    }

    /// The Pawn that has just double-stepped over `target` (for a position read from
    /// state text, which names only the cell passed over): the neighbour of `target` holding
    /// a Pawn whose way forward leads from `target` to it.
    pub fn ep_victim(&self, target: u8) -> Option<u8> {
        let t = xy(target);
        ORTH.into_iter().find_map(|d| {
            let c = self.canon(t.0 + d.0, t.1 + d.1)?;
            match self.board[c as usize] {
                Some((s, b'P')) if Self::forward(s, c) == d => Some(c),
                _ => None,
            }
        })
    }

    fn king_of(&self, side: u8) -> Option<u8> {
        (0..128u8).find(|c| self.board[*c as usize] == Some((side, b'K')))
    }

    /// Whether any piece of another side could take `side`'s King.
    pub fn in_check(&self, side: u8) -> bool {
        let Some(k) = self.king_of(side) else {
            return false;
        };
        let mut buf = Vec::new();
        (0..128u8).any(|c| {
            matches!(self.board[c as usize], Some((s, _)) if s != side) && {
                buf.clear();
                self.targets(c, true, &mut buf);
                buf.iter().any(|m| m.to == k)
            }
        })
    }

    /// The pieces move (no turn change, no checkmates).
    fn apply(&mut self, m: &RMove) {
        let man = self.board[m.from as usize].take().unwrap();
        if let Some(v) = m.ep_victim {
            self.board[v as usize] = None;
        }
        self.board[m.to as usize] = Some(match m.promotion {
            Some(l) => (man.0, l),
            None => man,
        });
    }

    /// `side`'s legal moves if it were to move now, with the en-passant right or without.
    fn moves_of(&self, side: u8, with_ep: bool) -> Vec<RMove> {
        let mut probe = self.clone();
        probe.turn = side;
        if !with_ep {
            probe.ep = None;
        }
        let mut pseudo = Vec::new();
        for c in 0..128u8 {
            if matches!(probe.board[c as usize], Some((s, _)) if s == side) {
                probe.targets(c, false, &mut pseudo);
            }
        }
        let mut legal = Vec::new();
        for m in pseudo {
            let mut after = probe.clone();
            after.apply(&m);
            if !after.in_check(side) && !legal.contains(&m) {
                legal.push(m);
            }
        }
        legal
    }

    pub fn remaining(&self) -> Vec<u8> {
        (0..4).filter(|s| self.out >> s & 1 == 0).collect()
    }

    /// The legal moves of the side to move: none once one player is left; the pass when it
    /// has none and some other remaining player could move.
    pub fn legal(&self) -> Vec<RMove> {
        if self.remaining().len() < 2 {
            return Vec::new();
        }
        let moves = self.moves_of(self.turn, true);
        if !moves.is_empty() {
            return moves;
        }
        // Whether anyone else could move is asked without the en-passant right (the
        // engine's reading; open: after a pass the right would still be the next mover's).
        let others = self
            .remaining()
            .into_iter()
            .any(|s| s != self.turn && !self.moves_of(s, false).is_empty());
        if others {
            vec![RMove {
                from: 0,
                to: 0,
                promotion: None,
                ep_victim: None,
                passed: None,
                pass: true,
            }]
        } else {
            Vec::new()
        }
    }

    /// The first remaining side from `first` on, in turn order.
    fn next_from(&self, first: u8) -> u8 {
        (0..4)
            .map(|i| (first + i) % 4)
            .find(|s| self.out >> s & 1 == 0)
            .unwrap_or(first % 4)
    }

    fn take_out(&mut self, side: u8) {
        for c in 0..128 {
            if matches!(self.board[c], Some((s, _)) if s == side) {
                self.board[c] = None;
            }
        }
        if let Some((_, victim)) = self.ep
            && self.board[victim as usize].is_none()
        {
            self.ep = None;
        }
        self.out |= 1 << side;
    }

    /// Rulebook 4.6: after a move, every other remaining player now in check with no legal
    /// move is checkmated (all at once); their pieces leave, which may open lines, so this
    /// repeats. Only the player who makes the next move may use the en-passant right.
    fn checkmates(&mut self, exempt: Option<u8>, first: u8) {
        loop {
            if self.remaining().len() < 2 {
                return;
            }
            let next = self.next_from(first);
            let mated: Vec<u8> = (0..4)
                .map(|i| (first + i) % 4)
                .filter(|s| self.out >> s & 1 == 0 && Some(*s) != exempt)
                .filter(|s| self.in_check(*s) && self.moves_of(*s, *s == next).is_empty())
                .collect();
            if mated.is_empty() {
                return;
            }
            if self.sequential {
                // The other reading: one at a time in turn order, looking again after each.
                self.mated |= 1 << mated[0];
                self.take_out(mated[0]);
                continue;
            }
            for s in mated {
                // The last King is never taken out: the player credited wins.
                if self.remaining().len() >= 2 {
                    self.mated |= 1 << s;
                    self.take_out(s);
                }
            }
        }
    }

    pub fn play(&mut self, m: &RMove) {
        let mover = self.turn;
        self.mated = 0;
        if !m.pass {
            self.apply(m);
            self.ep = m.passed.map(|p| (p, m.to));
        }
        // A pass is no move: the en-passant right waits for the next real move.
        self.checkmates(Some(mover), mover + 1);
        self.turn = self.next_from(mover + 1);
    }

    /// `side` resigns: out like a checkmate; the side to move keeps the turn unless it is
    /// the one resigning.
    pub fn resign(&mut self, side: u8) {
        self.mated = 0;
        self.take_out(side);
        let first = if self.turn == side {
            side + 1
        } else {
            self.turn
        };
        self.checkmates(None, first);
        self.turn = self.next_from(first);
    }

    pub fn coord(&self, m: &RMove) -> String {
        if m.pass {
            return "pass".into();
        }
        let mut s = format!("{}-{}", name(m.from), name(m.to));
        if let Some(l) = m.promotion {
            s.push('=');
            s.push(l as char);
        }
        s
    }

    pub fn legal_coords(&self) -> BTreeSet<String> {
        self.legal().iter().map(|m| self.coord(m)).collect()
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| {
                let mut q = self.clone();
                q.play(m);
                q.perft(depth - 1)
            })
            .sum()
    }
}
