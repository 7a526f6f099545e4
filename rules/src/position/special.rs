//! Special powers (flip, push, capture immunity, own-side-only screens, opening two-steps,
//! folded-board steps, freezes and kills), switched on per piece by the variant file.
//!
//! Variants whose pieces have none of them never reach this module: [`Position`] checks
//! `variant.special` once per call and keeps its fast path otherwise. Here legality is tested
//! by playing each pseudo-legal move on a scratch copy and asking whether the mover's royal
//! piece is attacked, with attacks that respect freezes, Elephant-like screens, immunity and
//! kills.

use super::{
    Position,
    movegen::{dedupe, gen_path},
    setup::PositionError,
};
use crate::{
    tables::{F_CAPTURE, F_MOVE, HOP, LEAPS, OP_NEED_EMPTY, OP_ORIGIN, Path},
    types::{Cell, CellSet, Move, MoveKind, MoveList, Piece},
    variant::SpecialTables,
};

/// The cells one step of a piece's own kind away from `cell` (folded Ferz steps or Wazir
/// steps), without allocating: the opening two-step walks them at every node.
fn own_steps(st: &SpecialTables, fold: bool, cell: usize) -> impl Iterator<Item = u8> + '_ {
    let (folded, wazir): (&[u8], &[(u8, u8)]) = if fold {
        (&st.fold_steps[cell], &[])
    } else {
        (&[], &st.wazir[cell])
    };
    folded.iter().copied().chain(wazir.iter().map(|x| x.1))
}

impl Position {
    fn special_tables(&self) -> &SpecialTables {
        self.variant
            .special
            .as_deref()
            .expect("special powers are on for this variant")
    }

    /// The hash contribution of the unmoved set and the freezes.
    #[inline(never)]
    pub(super) fn special_key(&self) -> u64 {
        if self.variant.special.is_none() {
            return 0;
        }
        let z = &self.variant.zobrist;
        let mut h = 0u64;
        for c in self.unmoved.iter() {
            h ^= z.piece(0, c.index()).rotate_left(29);
        }
        for &(w, t) in &self.freezes {
            h ^= z
                .piece(0, w as usize)
                .rotate_left(7)
                .wrapping_add(z.piece(0, t as usize))
                .rotate_left(41)
                ^ 0x5bd1_e995_9e37_79b9;
        }
        h
    }

    /// The active freezes, sorted.
    pub(super) fn freeze_set(&self) -> Vec<(u8, u8)> {
        let mut v = self.freezes.clone();
        v.sort_unstable();
        v
    }

    /// The cells of frozen pieces.
    pub fn frozen_cells(&self) -> CellSet {
        let mut s = CellSet::EMPTY;
        for &(_, t) in &self.freezes {
            s.insert(Cell(t));
        }
        s
    }

    /// The cells of pieces that still have their opening two-step.
    pub fn unmoved_cells(&self) -> CellSet {
        self.unmoved
    }

    /// The active freezes as (freezing piece, frozen piece), sorted.
    pub fn freezes(&self) -> Vec<(Cell, Cell)> {
        self.freeze_set()
            .into_iter()
            .map(|(a, b)| (Cell(a), Cell(b)))
            .collect()
    }

    #[inline]
    fn is_frozen(&self, cell: usize) -> bool {
        self.freezes.iter().any(|p| p.1 as usize == cell)
    }

    /// Validates and installs the special state of a setup.
    pub(super) fn set_special(
        &mut self,
        unmoved: &[Cell],
        freezes: &[(Cell, Cell)],
    ) -> Result<(), PositionError> {
        let v = self.variant.clone();
        let g = &v.geometry;
        if v.special.is_none() {
            if let Some(c) = unmoved.first() {
                return Err(PositionError::Special {
                    field: "unmoved",
                    entry: g.name(*c).to_string(),
                    problem: "this variant has no opening two-steps".into(),
                });
            }
            if let Some((a, b)) = freezes.first() {
                return Err(PositionError::Special {
                    field: "frozen",
                    entry: format!("{}>{}", g.name(*a), g.name(*b)),
                    problem: "this variant has no freezes".into(),
                });
            }
            return Ok(());
        }
        for &c in unmoved {
            let ok = self
                .piece_at(c)
                .is_some_and(|p| v.piece(p.kind).powers.opening_double);
            if !ok {
                return Err(PositionError::Special {
                    field: "unmoved",
                    entry: g.name(c).to_string(),
                    problem: "no piece with an opening two-step stands there".into(),
                });
            }
            self.unmoved.insert(c);
        }
        for &(w, t) in freezes {
            let bad = |problem: &str| PositionError::Special {
                field: "frozen",
                entry: format!("{}>{}", g.name(w), g.name(t)),
                problem: problem.to_string(),
            };
            let wp = self
                .piece_at(w)
                .ok_or_else(|| bad("no piece on the freezing cell"))?;
            if !v.piece(wp.kind).powers.freezes {
                return Err(bad("the piece on the freezing cell cannot freeze"));
            }
            let tp = self
                .piece_at(t)
                .ok_or_else(|| bad("no piece on the frozen cell"))?;
            if tp.side == wp.side {
                return Err(bad("a piece cannot freeze a piece of its own side"));
            }
            if !v.piece(tp.kind).powers.freezable {
                return Err(bad(&format!(
                    "a {} cannot be frozen",
                    v.piece(tp.kind).name
                )));
            }
            if !self.special_tables().fold_orth[w.index()].contains(&t.0) {
                return Err(bad("the two cells are not freeze neighbours"));
            }
            if self.freezes.contains(&(w.0, t.0)) {
                return Err(bad("listed twice"));
            }
            self.freezes.push((w.0, t.0));
        }
        for &(w, _) in &self.freezes {
            if self.is_frozen(w as usize) {
                return Err(PositionError::Special {
                    field: "frozen",
                    entry: g.name(Cell(w)).to_string(),
                    problem: "a frozen piece holds no freezes".into(),
                });
            }
        }
        Ok(())
    }

    /// Updates the unmoved set and the freezes after `m` was applied to the board.
    #[inline(never)]
    pub(super) fn special_after(&mut self, m: Move) {
        let (from, to) = (m.from.0, m.to.0);
        match m.kind {
            MoveKind::Flip => {}
            MoveKind::Freeze => {
                // Freezing a freezer cancels its own freezes (B7).
                self.freezes.retain(|p| p.0 != to);
                self.freezes.push((from, to));
            }
            MoveKind::Kill => {
                self.unmoved.remove(m.to);
                self.freezes.retain(|p| p.0 != to && p.1 != to);
            }
            MoveKind::Castle => {
                self.unmoved.remove(m.from);
                self.unmoved.remove(m.aux);
                let (a, b) = (from, m.aux.0);
                self.freezes
                    .retain(|p| p.0 != a && p.1 != a && p.0 != b && p.1 != b);
            }
            _ => {
                self.unmoved.remove(m.from);
                self.unmoved.remove(m.to);
                // A captured or pushed piece loses its freezes and is released (B6).
                let victim = if m.kind == MoveKind::EnPassant {
                    m.aux.0
                } else {
                    to
                };
                self.freezes.retain(|p| p.0 != victim && p.1 != victim);
                // A moving freezer keeps the freezes that stay neighbours (B6).
                if self.freezes.iter().any(|p| p.0 == from) {
                    let st = self.variant.special.as_deref().expect("special on");
                    let orth = &st.fold_orth[to as usize];
                    self.freezes.retain_mut(|p| {
                        if p.0 != from {
                            return true;
                        }
                        p.0 = to;
                        orth.contains(&p.1)
                    });
                }
            }
        }
    }

    /// Whether `target` is attacked by side `by` on `board` (this position's board or a
    /// variation of it), with freezes, own-side-only screens, immunity and kills.
    #[inline(never)]
    pub(super) fn special_attacked(&self, board: &[u8], by: u8, target: usize) -> bool {
        let v = &*self.variant;
        let t = &v.tables;
        let tcode = board[target];
        let tmask = if tcode == 0 {
            u32::MAX
        } else {
            v.pieces[Piece::kind_of(tcode) as usize]
                .powers
                .capturable_by
        };
        // The attack trie gives candidate origins; each is then checked against freezes,
        // immunity and own-side-only screens.
        let ops = t.trie(by as usize, target);
        let mut i = 0;
        while i < ops.len() {
            let op = ops[i];
            let p = board[op.cell as usize];
            if op.tag == OP_ORIGIN {
                if p != 0 && Piece::side_of(p) == by && (op.mask >> Piece::kind_of(p)) & 1 != 0 {
                    let kind = Piece::kind_of(p) as usize;
                    if tmask >> kind & 1 != 0
                        && !self.is_frozen(op.cell as usize)
                        && self.verify_attack(board, by, kind, op.cell as usize, target)
                    {
                        return true;
                    }
                }
                i += 1;
            } else if (p != 0) == (op.tag != OP_NEED_EMPTY) {
                i += 1;
            } else {
                i += op.skip as usize;
            }
        }
        self.special_tables().killed_from[target]
            .iter()
            .any(|&path| self.kill_threat(board, by, tmask, path))
    }

    /// Whether the piece at the start of a kill path (`w`, through the empty `a` and `b`) is
    /// `by`'s unfrozen killer of a target that `tmask`'s kinds may capture.
    fn kill_threat(&self, board: &[u8], by: u8, tmask: u32, (w, a, b): (u8, u8, u8)) -> bool {
        let code = board[w as usize];
        code != 0
            && Piece::side_of(code) == by
            && self.variant.pieces[Piece::kind_of(code) as usize]
                .powers
                .kills
            && tmask >> Piece::kind_of(code) & 1 != 0
            && board[a as usize] == 0
            && board[b as usize] == 0
            && !self.is_frozen(w as usize)
    }

    /// The cells of `by`'s pieces that attack `target` on `board` (special rules).
    pub(super) fn special_attackers(&self, board: &[u8], by: u8, target: usize) -> Vec<Cell> {
        let v = &*self.variant;
        let tcode = board[target];
        let tmask = if tcode == 0 {
            u32::MAX
        } else {
            v.pieces[Piece::kind_of(tcode) as usize]
                .powers
                .capturable_by
        };
        let mut out: Vec<Cell> = super::attacks::attackers_on(&v.tables, board, by, target)
            .into_iter()
            .filter(|o| {
                let kind = Piece::kind_of(board[o.index()]) as usize;
                !self.is_frozen(o.index())
                    && tmask >> kind & 1 != 0
                    && self.verify_attack(board, by, kind, o.index(), target)
            })
            .collect();
        for &path in &self.special_tables().killed_from[target] {
            if self.kill_threat(board, by, tmask, path) {
                out.push(Cell(path.0));
            }
        }
        out
    }

    /// A precise reason why a move of a piece with special rules (or onto one) is refused,
    /// when the special rules are what refuses it.
    pub(crate) fn special_reason(&self, m: Move) -> Option<String> {
        let v = &*self.variant;
        let st = v.special.as_deref()?;
        let g = &v.geometry;
        let mover = self.piece_at(m.from)?;
        if mover.side != self.turn {
            return None;
        }
        let legal = self.legal_moves();
        if legal.iter().any(|l| l.from == m.from && l.to == m.to) {
            return None;
        }
        let pt = v.piece(mover.kind);
        let pw = &pt.powers;
        let name = |c: Cell| {
            self.piece_at(c)
                .map(|p| v.piece(p.kind).name.clone())
                .unwrap_or_default()
        };
        let (from, to) = (g.name(m.from), g.name(m.to));
        if let Some(&(w, _)) = self.freezes.iter().find(|p| p.1 == m.from.0) {
            return Some(format!(
                "the {} on {from} is frozen by the {} on {}",
                pt.name,
                name(Cell(w)),
                g.name(Cell(w))
            ));
        }
        let target = self.piece_at(m.to).filter(|p| p.side != mover.side);
        if let Some(tp) = target {
            let tname = &v.piece(tp.kind).name;
            let tpw = &v.piece(tp.kind).powers;
            if pw.freezes && st.fold_orth[m.from.index()].contains(&m.to.0) {
                if !tpw.freezable {
                    return Some(format!("a {tname} cannot be frozen ({to})"));
                }
                if self.freezes.contains(&(m.from.0, m.to.0)) {
                    return Some(format!(
                        "the {tname} on {to} is already frozen by this {}",
                        pt.name
                    ));
                }
            }
            if pw.kills
                && let Some(&(_, a, b)) = st.kills[m.from.index()].iter().find(|k| k.0 == m.to.0)
            {
                if !self.capturable(self.board[m.to.index()], mover.kind.index()) {
                    return Some(format!("a {} cannot kill a {tname}", pt.name));
                }
                let blocked: Vec<&str> = [a, b]
                    .iter()
                    .filter(|c| self.board[**c as usize] != 0)
                    .map(|c| g.name(Cell(*c)))
                    .collect();
                if !blocked.is_empty() {
                    return Some(format!(
                        "the kill path from {from} to {to} runs through {} and {}; {} is occupied",
                        g.name(Cell(a)),
                        g.name(Cell(b)),
                        blocked.join(" and ")
                    ));
                }
            }
            if pw.pushes
                && let Some(&(d, _)) = st.wazir[m.from.index()].iter().find(|x| x.1 == m.to.0)
            {
                if !tpw.pushable {
                    return Some(format!("a {} cannot push a {tname}", pt.name));
                }
                let beyond = st.beyond[m.from.index()][d as usize];
                if beyond == 255 {
                    return Some(format!(
                        "the {tname} on {to} cannot be pushed: there is no cell beyond it"
                    ));
                }
                if self.board[beyond as usize] != 0 {
                    return Some(format!(
                        "the {tname} on {to} cannot be pushed: {} is occupied",
                        g.name(Cell(beyond))
                    ));
                }
            }
            if tpw.capturable_by != u32::MAX
                && !self.capturable(self.board[m.to.index()], mover.kind.index())
            {
                let by: Vec<String> = v
                    .kinds()
                    .filter(|k| tpw.capturable_by >> k.0 & 1 != 0)
                    .map(|k| v.piece(k).name.clone())
                    .collect();
                return Some(format!(
                    "the {tname} on {to} can only be captured by a {}",
                    by.join(" or a ")
                ));
            }
        }
        None
    }

    /// Whether the piece of `kind` and side `by` on `o` captures on `target` by one of its
    /// paths, with screens that only their own side's hoppers may use.
    fn verify_attack(&self, board: &[u8], by: u8, kind: usize, o: usize, target: usize) -> bool {
        let v = &*self.variant;
        let t = &v.tables;
        let (a, b) = t.index[t.slot(kind, by as usize, o)];
        for p in &t.paths[a as usize..b as usize] {
            if p.flags & F_CAPTURE == 0 {
                continue;
            }
            let s = p.start as usize;
            let pre = &t.cells[s..s + p.pre as usize];
            if pre.iter().any(|c| board[*c as usize] != 0) {
                continue;
            }
            let land = &t.cells[s + p.pre as usize..s + p.pre as usize + p.len as usize];
            match p.kind {
                LEAPS => {
                    if land.iter().any(|c| *c as usize == target) {
                        return true;
                    }
                }
                HOP => {
                    let mut screened = false;
                    for &c in land {
                        let code = board[c as usize];
                        if !screened {
                            if c as usize == target {
                                break;
                            }
                            if code != 0 {
                                if self.blocks_hopper(code, by) {
                                    break;
                                }
                                screened = true;
                            }
                        } else {
                            if c as usize == target {
                                return true;
                            }
                            if code != 0 {
                                break;
                            }
                        }
                    }
                }
                _ => {
                    for &c in land {
                        if c as usize == target {
                            return true;
                        }
                        if board[c as usize] != 0 {
                            break;
                        }
                    }
                }
            }
        }
        false
    }

    #[inline]
    fn blocks_hopper(&self, screen: u8, hopper_side: u8) -> bool {
        Piece::side_of(screen) != hopper_side
            && self.variant.pieces[Piece::kind_of(screen) as usize]
                .powers
                .screen_own_only
    }

    #[inline]
    fn capturable(&self, victim: u8, by_kind: usize) -> bool {
        self.variant.pieces[Piece::kind_of(victim) as usize]
            .powers
            .capturable_by
            >> by_kind
            & 1
            != 0
    }

    /// Generates the moves along one path with capture immunity and own-side-only screens.
    fn special_path(&self, kind: usize, from: u8, p: &Path, out: &mut MoveList) {
        let v = &*self.variant;
        let t = &v.tables;
        let board = &self.board[..];
        let us = self.turn.0;
        let s = p.start as usize;
        let pre = &t.cells[s..s + p.pre as usize];
        if pre.iter().any(|c| board[*c as usize] != 0) {
            return;
        }
        let land = &t.cells[s + p.pre as usize..s + p.pre as usize + p.len as usize];
        let can_move = p.flags & F_MOVE != 0;
        let can_capture = p.flags & F_CAPTURE != 0;
        let fromc = Cell(from);
        let takes =
            |code: u8| code != 0 && Piece::side_of(code) != us && self.capturable(code, kind);
        match p.kind {
            HOP => {}
            _ => {
                // Leaps and rides: delegate to the ordinary generator, then drop captures of
                // immune pieces.
                let start = out.len();
                gen_path::<false>(t, board, us, from, p, self.ep, out);
                let mut i = start;
                while i < out.len() {
                    let m = out[i];
                    if m.kind == MoveKind::Capture && !takes(board[m.to.index()]) {
                        out.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
        }
        if p.kind == HOP {
            {
                let mut screened = false;
                for &c in land {
                    let code = board[c as usize];
                    if !screened {
                        if code != 0 {
                            if self.blocks_hopper(code, us) {
                                break;
                            }
                            screened = true;
                        }
                        continue;
                    }
                    if code == 0 {
                        if can_move {
                            out.push(Move::new(fromc, Cell(c), MoveKind::Quiet));
                        }
                    } else {
                        if can_capture && takes(code) {
                            out.push(Move::new(fromc, Cell(c), MoveKind::Capture));
                        }
                        break;
                    }
                }
            }
        }
    }

    /// Pseudo-legal moves of a variant with special powers.
    #[inline(never)]
    pub(super) fn special_pseudo(&self, out: &mut MoveList) {
        let v = &*self.variant;
        let t = &v.tables;
        let st = self.special_tables();
        let us = self.turn.0;
        let board = &self.board[..];
        let frozen = self.frozen_cells();
        for fromc in self.occupied[us as usize].iter() {
            if frozen.contains(fromc) {
                continue;
            }
            let from = fromc.index();
            let kind = Piece::kind_of(board[from]) as usize;
            let pt = &v.pieces[kind];
            let pw = &pt.powers;
            let start = out.len();
            let slot = t.slot(kind, us as usize, from);
            let (a, b) = t.index[slot];
            for p in &t.paths[a as usize..b as usize] {
                self.special_path(kind, from as u8, p, out);
            }
            let mut needs_dedupe = t.dedupe[slot];
            let unmoved = pw.opening_double && self.unmoved.contains(fromc);
            if pw.fold_step {
                for &c in &st.fold_steps[from] {
                    if board[c as usize] == 0 {
                        out.push(Move::new(fromc, Cell(c), MoveKind::Quiet));
                    }
                }
            }
            if unmoved {
                // Two steps of its own kind of step (B2, B13): the first cell and the end
                // empty, the end not the start; one move per end cell (G1).
                for c1 in own_steps(st, pw.fold_step, from) {
                    if board[c1 as usize] != 0 {
                        continue;
                    }
                    for c2 in own_steps(st, pw.fold_step, c1 as usize) {
                        if c2 as usize != from && board[c2 as usize] == 0 {
                            out.push(Move::new(fromc, Cell(c2), MoveKind::Quiet));
                        }
                    }
                }
                needs_dedupe = true;
            }
            if needs_dedupe {
                dedupe(out, start);
            }
            if pw.pushes {
                for &(d, c) in &st.wazir[from] {
                    let code = board[c as usize];
                    let Some(victim) = Piece::from_code(code) else {
                        continue;
                    };
                    if victim.side.0 == us || !v.piece(victim.kind).powers.pushable {
                        continue;
                    }
                    let beyond = st.beyond[from][d as usize];
                    if beyond == 255 || board[beyond as usize] != 0 {
                        continue;
                    }
                    let mut m = Move::new(fromc, Cell(c), MoveKind::Push);
                    m.aux = Cell(beyond);
                    let promotes = v.piece(victim.kind).pawn
                        && v.promotion.compulsory[victim.side.index()].contains(Cell(beyond));
                    if promotes {
                        for &k in &v.promotion.choices {
                            let mut pm = m;
                            pm.promotion = Some(k);
                            out.push(pm);
                        }
                    } else {
                        out.push(m);
                    }
                }
            }
            if pt.pawn {
                self.expand_promotions(out, start);
            }
            if let Some(f) = pw.flip {
                let end = out.len();
                for i in start..end {
                    let mut m = out[i];
                    m.promotion = Some(f);
                    out.push(m);
                }
                let mut m = Move::new(fromc, fromc, MoveKind::Flip);
                m.promotion = Some(f);
                out.push(m);
            }
            if pw.freezes {
                for &c in &st.fold_orth[from] {
                    let code = board[c as usize];
                    if code != 0
                        && Piece::side_of(code) != us
                        && v.pieces[Piece::kind_of(code) as usize].powers.freezable
                        && !self.freezes.contains(&(from as u8, c))
                    {
                        out.push(Move::new(fromc, Cell(c), MoveKind::Freeze));
                    }
                }
            }
            if pw.kills {
                for &(c, p1, p2) in &st.kills[from] {
                    let code = board[c as usize];
                    if code != 0
                        && Piece::side_of(code) != us
                        && self.capturable(code, kind)
                        && board[p1 as usize] == 0
                        && board[p2 as usize] == 0
                    {
                        out.push(Move::new(fromc, Cell(c), MoveKind::Kill));
                    }
                }
            }
        }
        if !matches!(v.castling, crate::variant::CastlingRule::None) && self.rights != 0 {
            let start = out.len();
            self.castling_moves(out);
            let mut i = start;
            while i < out.len() {
                if frozen.contains(out[i].from) || frozen.contains(out[i].aux) {
                    out.remove(i);
                } else {
                    i += 1;
                }
            }
        }
    }

    /// A copy for trying moves: same state, no history.
    fn scratch_copy(&self) -> Position {
        Position {
            variant: self.variant.clone(),
            board: self.board.clone(),
            turn: self.turn,
            slots: self.slots.clone(),
            rights_clear: self.rights_clear.clone(),
            rights: self.rights,
            ep: self.ep,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
            royal: self.royal,
            counts: self.counts,
            occupied: self.occupied,
            hash: self.hash,
            history: Vec::with_capacity(1),
            unmoved: self.unmoved,
            freezes: self.freezes.clone(),
            special_history: Vec::with_capacity(1),
            lost: self.lost,
            out: self.out,
            turnovers: Vec::new(),
            checked_at_setup: self.checked_at_setup,
        }
    }

    /// Legal moves of a variant with special powers: each pseudo-legal move is played on a
    /// scratch copy and kept when the mover's royal piece is not attacked afterwards. With
    /// `tactical`, only the moves that capture, promote or push ([`Move::is_tactical`]) are
    /// kept, before the legality tests, which are most of the work: the quiescence search
    /// asks for those alone at every node.
    #[inline(never)]
    pub(super) fn special_legal(&self, out: &mut MoveList, tactical: bool) {
        out.clear();
        self.special_pseudo(out);
        if tactical {
            out.retain(|m| m.is_tactical());
        }
        let us = self.turn;
        if self.royal[us.index()].is_none() {
            return;
        }
        let king = self.royal[us.index()].expect("checked above");
        let in_check = self.attacked_by_any_enemy(&self.board, us, king);
        // Cells whose change can expose the King, from one traversal of each enemy attack
        // trie (see `exposure`): freezes, immunity and own-side-only screens only take attacks
        // away, so a move that vacates and fills cells the trie marks as harmless cannot make
        // one. Kills onto the King need their two path cells empty: vacating one may open one.
        let mut risky_from = CellSet::EMPTY;
        let mut risky_to = CellSet::EMPTY;
        if !in_check {
            let t = &self.variant.tables;
            for e in self.enemies(us) {
                if !t.may_attack(
                    &self.board,
                    &self.occupied[e as usize],
                    e as usize,
                    king.index(),
                ) {
                    continue;
                }
                super::attacks::exposure(
                    t,
                    &self.board,
                    e,
                    us.0,
                    king.index(),
                    &mut risky_from,
                    &mut risky_to,
                );
            }
            for &(_, a, b) in &self.special_tables().killed_from[king.index()] {
                risky_from.insert(Cell(a));
                risky_from.insert(Cell(b));
            }
        }
        let mut s = self.scratch_copy();
        out.retain(|m| {
            let needs_test = in_check
                || m.from == king
                || match m.kind {
                    // Neither changes what attacks the King (a freeze only removes attackers).
                    MoveKind::Flip | MoveKind::Freeze => false,
                    // These empty a cell other than `from` (a kill an enemy's cell, which
                    // the trie traversal takes as fixed).
                    MoveKind::EnPassant | MoveKind::Castle | MoveKind::Push | MoveKind::Kill => {
                        true
                    }
                    _ => {
                        risky_from.contains(m.from)
                            || risky_to.contains(m.to)
                            // A freezer that moves may release enemy pieces.
                            || self.freezes.iter().any(|p| p.0 == m.from.0)
                    }
                };
            if !needs_test {
                return true;
            }
            s.play_for_test(*m);
            let ok = match s.royal[us.index()] {
                Some(k) => !s.attacked_by_any_enemy(&s.board, us, k),
                None => true,
            };
            s.undo();
            ok
        });
    }
}
