//! Move generation: pseudo-legal moves from the precomputed paths, then legality from one
//! look at the King per node ([`KingSafety`]), castling, promotion and the river rules;
//! and the counting variant perft's last ply uses.

use super::{
    Position,
    attacks::{attacked, attacked_by_others, exposure, xray, xray_others},
    make::{apply_to_board, restore_cells, save_cells},
    setup::CastleSlot,
};
use crate::{
    tables::{F_CAPTURE, F_DOUBLE, F_EP, F_MOVE, HOP, LEAPS, Path, Tables},
    types::{Cell, CellSet, Kind, Move, MoveKind, MoveList, Piece},
    variant::CastlingRule,
};

impl Position {
    /// Every legal move, in generation order (piece by piece, castlings last). Perft and
    /// search should reuse a list with [`Position::legal_moves_into`] instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, Position};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let pos = Position::start(&chess);
    /// let moves = pos.legal_moves();
    /// assert_eq!(moves.len(), 20);
    /// assert!(moves.iter().all(|m| pos.piece_at(m.from).is_some()));
    /// ```
    pub fn legal_moves(&self) -> MoveList {
        let mut out = MoveList::with_capacity(64);
        self.legal_moves_into(&mut out);
        out
    }

    /// Every legal move, written into a reusable list (cleared first).
    ///
    /// Pins and check are found once, before generating: a move then needs the full test
    /// (play it on a scratch board, ask whether the King is attacked) only if it is a King
    /// move, a pinned piece's move, an en-passant capture or a castling, or if the King is in
    /// check; with hoppers also a move onto a cell that can screen an attack. The test runs
    /// on each piece's moves right after they are generated, so the common case (a piece
    /// that shields nothing) costs nothing per move.
    pub fn legal_moves_into(&self, out: &mut MoveList) {
        if self.variant.unusual {
            if self.won_by_captures() {
                // The game is won: nothing more may be played.
                out.clear();
                return;
            }
            if self.variant.special.is_some() {
                self.special_legal(out, false);
                return;
            }
        }
        out.clear();
        if self.variant.sides > 2 && self.one_left() {
            // The last checkmate or resignation has won the game: nothing more is played.
            return;
        }
        out.reserve(256);
        let us = self.turn;
        let Some(king) = self.royal[us.index()] else {
            self.pseudo_moves(out, |_, _, _| {});
            if self.variant.move_rules {
                self.apply_river_rules(out, 0);
            }
            return;
        };
        if self.variant.sides > 2 {
            self.legal_beside::<true, false>(out, king);
        } else {
            self.legal_beside::<false, false>(out, king);
        }
        if self.variant.move_rules {
            self.apply_river_rules(out, 0);
        }
        if out.is_empty() && self.variant.sides > 2 {
            self.pass_if_stuck(out);
        }
    }

    /// The legal moves that capture, promote or push ([`Move::is_tactical`]), in the order
    /// [`Position::legal_moves_into`] lists them: what a quiescence search looks at.
    ///
    /// In the ordinary case (two sides, a royal piece, no special powers, capture goals or
    /// river rules) the other moves are neither written nor tested for legality, which is
    /// most of the generator's work in a quiet position: a slider's empty cells and the
    /// King's steps, each of which needs the full test. With special powers (and no capture
    /// goal) only the tactical pseudo-legal moves get the legality test. Elsewhere it
    /// filters the full list.
    pub fn legal_tactical_into(&self, out: &mut MoveList) {
        let v = &*self.variant;
        if v.special.is_some() && v.capture_goal.is_empty() {
            self.special_legal(out, true);
            return;
        }
        let king = self.royal[self.turn.index()];
        let Some(king) = king.filter(|_| !v.unusual && v.sides == 2) else {
            self.legal_moves_into(out);
            out.retain(|m| m.is_tactical());
            return;
        };
        out.clear();
        self.legal_beside::<false, true>(out, king);
    }

    /// The legal moves of the side to move, whose royal piece stands on `king`, appended to
    /// `out` ([`Position::pseudo_moves_with`] for `MANY` and `TACTICAL`). Pins and check are
    /// found once; a piece's moves get the full test right after they are generated, and
    /// only if the piece is the King or pinned, the King is in check, a hopper's screen may
    /// open, or a capture is en passant. Castlings are always tested: a Chess960 partner may
    /// shield the King.
    #[inline(always)]
    fn legal_beside<const MANY: bool, const TACTICAL: bool>(&self, out: &mut MoveList, king: Cell) {
        let mut ks = KingSafety::new(self, king);
        let (in_check, risky_from, risky_to) = (ks.in_check, ks.risky_from, ks.risky_to);
        let screens = !risky_to.is_empty();
        let ep = self.ep.is_some();
        let mut legal = |m: &Move| ks.allows(m);
        let end = self.pseudo_moves_with::<MANY, TACTICAL>(out, |out, start, from| {
            if in_check || from == king || risky_from.contains(from) {
                retain_from(out, start, &mut legal);
            } else if screens {
                retain_from(out, start, |m| {
                    !(risky_to.contains(m.to) || m.kind == MoveKind::EnPassant) || legal(m)
                });
            } else if ep {
                retain_from(out, start, |m| m.kind != MoveKind::EnPassant || legal(m));
            }
        });
        retain_from(out, end, &mut legal);
    }

    /// Pseudo-legal moves (own-King safety not checked). For tests that check the legal
    /// generator against an independent oracle.
    #[doc(hidden)]
    pub fn pseudo_legal_moves(&self) -> MoveList {
        let mut out = MoveList::new();
        if self.variant.special.is_some() {
            self.special_pseudo(&mut out);
        } else {
            self.pseudo_moves(&mut out, |_, _, _| {});
            if self.variant.move_rules {
                self.apply_river_rules(&mut out, 0);
            }
        }
        out
    }

    /// The number of legal moves (what perft counts at its last ply). `buf` is scratch
    /// space; what it holds afterwards is unspecified.
    ///
    /// The moves of a piece that needs no full legality test (see
    /// [`Position::legal_moves_into`]) and has no promotion or duplicate to sort out are
    /// counted as they are generated, never written to a list.
    pub fn count_legal(&self, buf: &mut MoveList) -> usize {
        if self.variant.sides > 2 {
            if self.one_left() {
                return 0;
            }
            self.count_legal_with::<true>(buf)
        } else {
            self.count_legal_with::<false>(buf)
        }
    }

    /// [`Position::count_legal`] for two sides (`MANY` false) or more.
    #[inline(never)]
    fn count_legal_with<const MANY: bool>(&self, buf: &mut MoveList) -> usize {
        let us = self.turn;
        let king = match self.royal[us.index()] {
            Some(k) if !self.variant.unusual => k,
            _ => {
                self.legal_moves_into(buf);
                return buf.len();
            }
        };
        let v = &*self.variant;
        let t = &v.tables;
        let board = &self.board[..];
        let mut ks = KingSafety::new(self, king);
        let screens = !ks.risky_to.is_empty();
        let mut n = 0;
        for from in self.occupied[us.index()].iter() {
            let code = board[from.index()];
            let slot = t.slot(Piece::kind_of(code) as usize, us.index(), from.index());
            let (a, b) = t.index[slot];
            let paths = &t.paths[a as usize..b as usize];
            let full = ks.in_check || from == king || ks.risky_from.contains(from);
            if full || t.dedupe[slot] || t.promotes[slot] {
                buf.clear();
                for p in paths {
                    gen_path::<MANY>(t, board, us.0, from.0, p, self.ep, buf);
                }
                if t.dedupe[slot] {
                    dedupe(buf, 0);
                }
                if t.promotes[slot] {
                    self.expand_promotions(buf, 0);
                }
                n += buf
                    .iter()
                    .filter(|m| !(full || ks.needs_test(m)) || ks.allows(m))
                    .count();
            } else {
                let mut c = Counter {
                    n: 0,
                    screens,
                    ks: &mut ks,
                };
                for p in paths {
                    gen_path::<MANY>(t, board, us.0, from.0, p, self.ep, &mut c);
                }
                n += c.n;
            }
        }
        if !matches!(v.castling, CastlingRule::None) && self.rights != 0 {
            buf.clear();
            self.castling_moves(buf);
            n += buf.iter().filter(|m| ks.allows(m)).count();
        }
        if n == 0 && v.sides > 2 {
            buf.clear();
            self.pass_if_stuck(buf);
            n = buf.len();
        }
        n
    }

    /// Whether the side to move has at least one legal move: [`Position::count_legal`] that
    /// stops at the first. Games of more than two sides ask it of a side after every move
    /// (is it checkmated, must it pass), so it must cost little: no list is written, and
    /// most often the first piece looked at can move.
    pub(super) fn has_legal_move(&self) -> bool {
        let us = self.turn;
        let king = match self.royal[us.index()] {
            Some(k) if !self.variant.unusual => k,
            _ => {
                let mut buf = MoveList::new();
                self.legal_moves_into(&mut buf);
                return !buf.is_empty();
            }
        };
        let v = &*self.variant;
        let t = &v.tables;
        let board = &self.board[..];
        let mut ks = KingSafety::new(self, king);
        let screens = !ks.risky_to.is_empty();
        for from in self.occupied[us.index()].iter() {
            let slot = t.slot(
                Piece::kind_of(board[from.index()]) as usize,
                us.index(),
                from.index(),
            );
            let (a, b) = t.index[slot];
            let full = ks.in_check || from == king || ks.risky_from.contains(from);
            let mut first = FirstLegal {
                found: false,
                full,
                screens,
                ks: &mut ks,
            };
            for p in &t.paths[a as usize..b as usize] {
                gen_path::<true>(t, board, us.0, from.0, p, self.ep, &mut first);
                if first.found {
                    return true;
                }
            }
        }
        if !matches!(v.castling, CastlingRule::None) && self.rights != 0 {
            let mut buf = MoveList::new();
            self.castling_moves(&mut buf);
            return buf.iter().any(|m| ks.allows(m));
        }
        false
    }

    /// Pseudo-legal moves: every move by the rules of movement, ignoring own-King safety
    /// (castling's own attack conditions are already applied). After each piece's moves,
    /// calls `after_piece(out, first move of the piece, its cell)`. Returns where the
    /// castling moves (generated last) start.
    #[inline(always)]
    pub(crate) fn pseudo_moves(
        &self,
        out: &mut MoveList,
        after_piece: impl FnMut(&mut MoveList, usize, Cell),
    ) -> usize {
        if self.variant.sides > 2 {
            self.pseudo_moves_with::<true, false>(out, after_piece)
        } else {
            self.pseudo_moves_with::<false, false>(out, after_piece)
        }
    }

    /// [`Position::pseudo_moves`] for two sides (`MANY` false) or more; with `TACTICAL`,
    /// only the captures and promotions, and no castling ([`Position::legal_tactical_into`]).
    #[inline(always)]
    fn pseudo_moves_with<const MANY: bool, const TACTICAL: bool>(
        &self,
        out: &mut MoveList,
        mut after_piece: impl FnMut(&mut MoveList, usize, Cell),
    ) -> usize {
        let v = &*self.variant;
        let t = &v.tables;
        let us = self.turn.0;
        let board = &self.board[..];
        let ep = self.ep;
        for from in self.occupied[us as usize].iter() {
            let from = from.index();
            let code = board[from];
            let kind = Piece::kind_of(code) as usize;
            let slot = t.slot(kind, us as usize, from);
            let (a, b) = t.index[slot];
            let paths = &t.paths[a as usize..b as usize];
            let start = out.len();
            if TACTICAL {
                let promotes = t.promotes[slot];
                let mut sink = Tactical {
                    out,
                    zone: promotes.then(|| v.promotion.zone(us as usize)),
                };
                for p in paths {
                    gen_path::<MANY>(t, board, us, from as u8, p, ep, &mut sink);
                }
            } else {
                for p in paths {
                    gen_path::<MANY>(t, board, us, from as u8, p, ep, out);
                }
            }
            if t.dedupe[slot] {
                dedupe(out, start);
            }
            if t.promotes[slot] {
                self.expand_promotions(out, start);
                if TACTICAL {
                    // An optional promotion also leaves the move without one, which is quiet.
                    retain_from(out, start, |m| m.is_tactical());
                }
            }
            after_piece(out, start, Cell(from as u8));
        }
        let castles = out.len();
        if !TACTICAL && !matches!(v.castling, CastlingRule::None) && self.rights != 0 {
            self.castling_moves(out);
        }
        castles
    }

    /// CoBlaChe's river rules on the pseudo-legal moves `out[first..]`: a piece that shuns
    /// some enemy kinds may not move into a section holding one of them, and a one-rank step
    /// across a river promotes a piece that has a crossing rule. Kept out of line so the
    /// ordinary generator stays as it was.
    #[cold]
    #[inline(never)]
    fn apply_river_rules(&self, out: &mut MoveList, first: usize) {
        let v = &*self.variant;
        let us = self.turn.index();
        let g = &v.geometry;
        let kind_of = |m: &Move| Piece::kind_of(self.board[m.from.index()]) as usize;
        // Sections holding an enemy piece, per kind bit (at most 32 sections x 32 kinds is
        // more than any board has; a river board has a handful).
        let mut held = [0u32; 32];
        for e in self.enemies(self.turn) {
            for c in self.occupied[e as usize].iter() {
                held[Piece::kind_of(self.board[c.index()]) as usize] |= 1 << v.sections[c.index()];
            }
        }
        let shunned = |kind: usize| -> u32 {
            let mask = v.pieces[kind].shuns;
            (0..32)
                .filter(|k| mask >> k & 1 != 0)
                .fold(0, |acc, k| acc | held[k])
        };
        let mut i = first;
        while i < out.len() {
            let m = out[i];
            let pt = &v.pieces[kind_of(&m)];
            if pt.shuns != 0 && shunned(kind_of(&m)) >> v.sections[m.to.index()] & 1 != 0 {
                out.remove(i);
                continue;
            }
            let Some(crossing) = &pt.crossing else {
                i += 1;
                continue;
            };
            if m.promotion.is_some() || !crossing.crosses(g.info(m.from).rank, g.info(m.to).rank) {
                i += 1;
                continue;
            }
            let mut expanded: Vec<Move> = Vec::new();
            if crossing.optional {
                expanded.push(m);
            }
            for k in &crossing.choices {
                if crossing.captured_only
                    && self.counts[us][k.index()] >= v.start_counts[us][k.index()]
                {
                    continue;
                }
                let mut pm = m;
                pm.promotion = Some(*k);
                expanded.push(pm);
            }
            if expanded.is_empty() {
                // Nothing to become and no choice to stay: the piece just crosses.
                expanded.push(m);
            }
            let n = expanded.len();
            out.splice(i..i + 1, expanded);
            i += n;
        }
    }

    pub(super) fn expand_promotions(&self, out: &mut MoveList, start: usize) {
        let v = &*self.variant;
        let us = self.turn.index();
        let comp = &v.promotion.compulsory[us];
        let opt = &v.promotion.optional[us];
        let mut i = start;
        while i < out.len() {
            let m = out[i];
            let must = comp.contains(m.to);
            if !must && !opt.contains(m.to) {
                i += 1;
                continue;
            }
            let choices: Vec<Kind> = v
                .promotion
                .choices
                .iter()
                .copied()
                .filter(|k| {
                    !v.promotion.limit_to_start_counts
                        || self.counts[us][k.index()] < v.start_counts[us][k.index()]
                })
                .collect();
            let mut expanded: Vec<Move> = Vec::with_capacity(choices.len() + 1);
            if !must {
                expanded.push(m);
            }
            for k in choices {
                let mut pm = m;
                pm.promotion = Some(k);
                if pm.kind == MoveKind::DoubleStep {
                    // A promoted piece is no pawn: no en-passant right.
                    pm.kind = MoveKind::Quiet;
                }
                expanded.push(pm);
            }
            let n = expanded.len();
            out.splice(i..i + 1, expanded);
            i += n;
        }
    }

    pub(super) fn castling_moves(&self, out: &mut MoveList) {
        let v = &*self.variant;
        let g = &v.geometry;
        let us = self.turn;
        for (i, slot) in self.slots.iter().enumerate() {
            if self.rights >> i & 1 == 0 || slot.side != us {
                continue;
            }
            if let CastlingRule::Table(entries) = &v.castling {
                let pf = g.info(slot.partner).file;
                for e in entries.iter().filter(|e| e.partner_file == pf) {
                    if let Some(m) = self.table_castling(slot, e) {
                        out.push(m);
                    }
                }
                continue;
            }
            let Some(plan) = &slot.plan else {
                continue;
            };
            if plan.empty.iter().any(|c| self.board[c.index()] != 0) {
                continue;
            }
            let (kc, pc, kt, pt) = (slot.king, slot.partner, plan.king_to, plan.partner_to);
            if !self.castling_route_safe(kc, pc, &plan.route[..plan.route_len as usize]) {
                continue;
            }
            out.push(Move {
                from: kc,
                to: kt,
                kind: MoveKind::Castle,
                promotion: None,
                aux: pc,
                aux2: pt,
            });
        }
    }

    /// One listed castling (fine point E2): every cell from the King to the partner in the
    /// entry's direction (around the wrap) empty, the destinations empty but for the two, and
    /// the King's start and whole route unattacked.
    fn table_castling(&self, slot: &CastleSlot, e: &crate::variant::CastleEntry) -> Option<Move> {
        let g = &self.variant.geometry;
        let t = &self.variant.tables;
        let (kc, pc) = (slot.king, slot.partner);
        let ki = g.info(kc);
        let ray = &t.rank_rays[if e.kingside { 0 } else { 1 }][kc.index()];
        let reach = ray.iter().position(|c| *c == pc.0)?;
        let between = &ray[..reach];
        if between.iter().any(|c| self.board[*c as usize] != 0) {
            return None;
        }
        let kt = g.at(ki.board, e.king_to as i32, ki.rank as i32)?;
        let pt = g.at(ki.board, e.partner_to as i32, ki.rank as i32)?;
        for c in [kt, pt] {
            if c != kc && c != pc && self.board[c.index()] != 0 {
                return None;
            }
        }
        let steps = ray.iter().position(|c| *c == kt.0)?;
        let mut route = [kc; crate::types::MAX_FILES];
        for (r, c) in route.iter_mut().zip(&ray[..=steps]) {
            *r = Cell(*c);
        }
        if !self.castling_route_safe(kc, pc, &route[..=steps]) {
            return None;
        }
        Some(Move {
            from: kc,
            to: kt,
            kind: MoveKind::Castle,
            promotion: None,
            aux: pc,
            aux2: pt,
        })
    }

    /// Not out of, through or into check (G2): the King's start with the board as it is, then
    /// each route cell with the King standing on it (start vacated, partner in place unless
    /// the King stands on its cell).
    fn castling_route_safe(&self, kc: Cell, pc: Cell, route: &[Cell]) -> bool {
        let us = self.turn;
        let mut scratch = [0u8; crate::types::MAX_CELLS];
        scratch[..self.board.len()].copy_from_slice(&self.board);
        let scratch = &mut scratch[..self.board.len()];
        let king_code = scratch[kc.index()];
        let partner_code = scratch[pc.index()];
        if self.attacked_by_any_enemy(scratch, us, kc) {
            return false;
        }
        scratch[kc.index()] = 0;
        for &r in route {
            let old = scratch[r.index()];
            if r == pc {
                scratch[pc.index()] = 0;
            }
            scratch[r.index()] = king_code;
            let attacked = self
                .enemies(us)
                .any(|e| self.attacked_on(scratch, e, r.index()));
            scratch[r.index()] = old;
            scratch[pc.index()] = partner_code;
            if attacked {
                return false;
            }
        }
        true
    }

    /// Whether a castling move goes kingside (towards higher files; for listed castlings, as
    /// its table entry says, since on a cylinder the partner may lie either way round).
    pub fn castles_kingside(&self, m: Move) -> bool {
        let v = &*self.variant;
        let g = &v.geometry;
        let (kf, pf, tf) = (g.info(m.from).file, g.info(m.aux).file, g.info(m.to).file);
        if let CastlingRule::Table(entries) = &v.castling
            && let Some(e) = entries
                .iter()
                .find(|e| e.partner_file == pf && e.king_to == tf)
        {
            return e.kingside;
        }
        pf > kf
    }

    /// For a piece of `kind` that shuns some enemy kinds (CoBlaChe's Queen and Prince): the
    /// cell of an enemy piece it shuns in the river section of `to`, if there is one.
    pub(crate) fn shunned_in_section(&self, kind: Kind, to: Cell) -> Option<Cell> {
        let v = &*self.variant;
        let mask = v.piece(kind).shuns;
        if mask == 0 {
            return None;
        }
        self.enemies(self.turn)
            .flat_map(|e| self.occupied[e as usize].iter())
            .find(|c| {
                mask >> Piece::kind_of(self.board[c.index()]) & 1 != 0
                    && v.sections[c.index()] == v.sections[to.index()]
            })
    }
}

/// Where generated moves go: a move list, or a counter of legal moves.
pub(super) trait Sink {
    fn push(&mut self, m: Move);
}

impl Sink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
}

/// Keeps the captures of one piece, and its moves onto cells where it may promote (which
/// [`Position::expand_promotions`] then turns into promotions): the tactical generator's sink.
struct Tactical<'o> {
    out: &'o mut MoveList,
    /// The promotion cells (compulsory or optional), for a piece that can promote.
    zone: Option<CellSet>,
}

impl Sink for Tactical<'_> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        let keep = m.is_capture() || self.zone.is_some_and(|z| z.contains(m.to));
        if keep {
            self.out.push(m);
        }
    }
}

/// Counts the moves of a piece that needs no full legality test: only its en-passant
/// captures and, with hoppers, its moves onto screen cells are tested.
struct Counter<'k, 'p> {
    n: usize,
    /// Whether some cell is in `ks.risky_to` (kept here so the common case reads no memory).
    screens: bool,
    ks: &'k mut KingSafety<'p>,
}

impl Sink for Counter<'_, '_> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        let test =
            m.kind == MoveKind::EnPassant || (self.screens && self.ks.risky_to.contains(m.to));
        if !test || self.ks.allows(&m) {
            self.n += 1;
        }
    }
}

/// Notes whether any generated move is legal, testing only the moves that need it.
struct FirstLegal<'k, 'p> {
    found: bool,
    /// Every move of this piece needs the full test (in check, the King, a pinned piece).
    full: bool,
    /// Some cell is in `ks.risky_to`.
    screens: bool,
    ks: &'k mut KingSafety<'p>,
}

impl Sink for FirstLegal<'_, '_> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        if self.found {
            return;
        }
        let test = self.full
            || m.kind == MoveKind::EnPassant
            || (self.screens && self.ks.risky_to.contains(m.to));
        if !test || self.ks.allows(&m) {
            self.found = true;
        }
    }
}

/// What the legal generator knows about the mover's King safety in one position: whether
/// it is in check, which moves may expose it, and a scratch board to test those on.
struct KingSafety<'p> {
    pos: &'p Position,
    king: Cell,
    in_check: bool,
    /// Pieces whose every move is tested (pinned ones; with hoppers, also lone screens).
    risky_from: CellSet,
    /// Cells a move onto is tested (with hoppers: where a new screen may open an attack).
    risky_to: CellSet,
    scratch: [u8; crate::types::MAX_CELLS],
    copied: bool,
}

impl<'p> KingSafety<'p> {
    /// Finds check and the risky cells: in check every move is tested; otherwise moves of
    /// the King and of pieces whose leaving may expose it (pinned pieces; with hoppers also
    /// pieces whose leaving makes a lone screen), and moves onto cells where a new screen
    /// would.
    fn new(pos: &'p Position, king: Cell) -> Self {
        let t = &pos.variant.tables;
        let us = pos.turn;
        let mut in_check = false;
        let mut risky_from = CellSet::EMPTY;
        let mut risky_to = CellSet::EMPTY;
        if let Some(crowd) = &t.crowd
            && !t.has_hoppers
        {
            // More than two sides: every enemy in one walk of the merged trie.
            if pos.others_may_attack(crowd, us, king) {
                in_check = xray_others(crowd, &pos.board, us.0, king.index(), &mut risky_from);
            }
            return KingSafety {
                pos,
                king,
                in_check,
                risky_from,
                risky_to,
                scratch: [0; crate::types::MAX_CELLS],
                copied: false,
            };
        }
        for e in pos.enemies(us) {
            // Most often no enemy piece is even aligned with the King: nothing to walk.
            if !t.may_attack(
                &pos.board,
                &pos.occupied[e as usize],
                e as usize,
                king.index(),
            ) {
                continue;
            }
            in_check |= if t.has_hoppers {
                exposure(
                    t,
                    &pos.board,
                    e,
                    us.0,
                    king.index(),
                    &mut risky_from,
                    &mut risky_to,
                )
            } else {
                xray(t, &pos.board, e, us.0, king.index(), &mut risky_from)
            };
        }
        KingSafety {
            pos,
            king,
            in_check,
            risky_from,
            risky_to,
            scratch: [0; crate::types::MAX_CELLS],
            copied: false,
        }
    }

    /// Whether a move of a piece that is not itself risky needs the full test.
    #[inline(always)]
    fn needs_test(&self, m: &Move) -> bool {
        m.kind == MoveKind::EnPassant || self.risky_to.contains(m.to)
    }

    /// The full test: whether the mover's King is safe after `m`.
    fn allows(&mut self, m: &Move) -> bool {
        let pos = self.pos;
        let t = &pos.variant.tables;
        if !self.copied {
            self.scratch[..pos.board.len()].copy_from_slice(&pos.board);
            self.copied = true;
        }
        let saved = save_cells(&self.scratch, *m);
        apply_to_board(&mut self.scratch, *m);
        let k = if m.from == self.king { m.to } else { self.king };
        let ok = match &t.crowd {
            Some(crowd) => !attacked_by_others(crowd, &self.scratch, pos.turn.0, k.index()),
            None => !pos
                .enemies(pos.turn)
                .any(|e| attacked(t, &self.scratch, e, k.index())),
        };
        restore_cells(&mut self.scratch, saved);
        ok
    }
}

/// Generates the moves along one path.
///
/// `MANY` is whether the variant has more than two sides: then Kings are never captured
/// (`t.uncapturable`). A parameter known when compiling, so two-player generation does not
/// even test it.
#[inline(always)]
pub(super) fn gen_path<const MANY: bool>(
    t: &Tables,
    board: &[u8],
    us: u8,
    from: u8,
    p: &Path,
    ep: Option<(Cell, Cell)>,
    out: &mut impl Sink,
) {
    let s = p.start as usize;
    let pre = &t.cells[s..s + p.pre as usize];
    if pre.iter().any(|c| board[*c as usize] != 0) {
        return;
    }
    let land = &t.cells[s + p.pre as usize..s + p.pre as usize + p.len as usize];
    let can_move = p.flags & F_MOVE != 0;
    let can_capture = p.flags & F_CAPTURE != 0;
    let from = Cell(from);
    let enemy = |code: u8| {
        code != 0
            && Piece::side_of(code) != us
            && (!MANY || t.uncapturable >> Piece::kind_of(code) & 1 == 0)
    };
    match p.kind {
        LEAPS => {
            for &c in land {
                let code = board[c as usize];
                if code == 0 {
                    if can_move {
                        if p.flags & F_DOUBLE != 0 {
                            let mut m = Move::new(from, Cell(c), MoveKind::DoubleStep);
                            m.aux = Cell(pre[pre.len() - 1]);
                            out.push(m);
                        } else {
                            out.push(Move::new(from, Cell(c), MoveKind::Quiet));
                        }
                    }
                    if can_capture && p.flags & F_EP != 0 {
                        push_ep(from, c, ep, out);
                    }
                } else if can_capture && enemy(code) {
                    out.push(Move::new(from, Cell(c), MoveKind::Capture));
                }
            }
        }
        HOP => {
            let mut screened = false;
            for &c in land {
                let code = board[c as usize];
                if !screened {
                    if code != 0 {
                        screened = true;
                    }
                    continue;
                }
                if code == 0 {
                    if can_move {
                        out.push(Move::new(from, Cell(c), MoveKind::Quiet));
                    }
                } else {
                    if can_capture && enemy(code) {
                        out.push(Move::new(from, Cell(c), MoveKind::Capture));
                    }
                    break;
                }
            }
        }
        _ => {
            for &c in land {
                let code = board[c as usize];
                if code == 0 {
                    if can_move {
                        out.push(Move::new(from, Cell(c), MoveKind::Quiet));
                    }
                    if can_capture && p.flags & F_EP != 0 {
                        push_ep(from, c, ep, out);
                    }
                } else {
                    if can_capture && enemy(code) {
                        out.push(Move::new(from, Cell(c), MoveKind::Capture));
                    }
                    break;
                }
            }
        }
    }
}

#[inline]
fn push_ep(from: Cell, c: u8, ep: Option<(Cell, Cell)>, out: &mut impl Sink) {
    if let Some((target, victim)) = ep
        && target.0 == c
    {
        let mut m = Move::new(from, target, MoveKind::EnPassant);
        m.aux = victim;
        out.push(m);
    }
}

/// Keeps the moves of `out[start..]` that satisfy `keep`, in order.
#[inline]
fn retain_from(out: &mut MoveList, start: usize, mut keep: impl FnMut(&Move) -> bool) {
    let mut w = start;
    for r in start..out.len() {
        let m = out[r];
        if keep(&m) {
            out[w] = m;
            w += 1;
        }
    }
    out.truncate(w);
}

/// Removes moves from `out[start..]` that repeat an earlier one (same destination, kind and
/// auxiliary cell): on looped boards two paths can reach one cell, and that is one move.
pub(super) fn dedupe(out: &mut MoveList, start: usize) {
    let mut i = start;
    while i < out.len() {
        if out[start..i].contains(&out[i]) {
            out.remove(i);
        } else {
            i += 1;
        }
    }
}
