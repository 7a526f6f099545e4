//! Best-Reply Search for games of more than two sides (Schadd and Winands, "Best Reply Search
//! for Multiplayer Games", IEEE TCIAIG 3(1), 2011): how levels 4 and 5 search every
//! four-player form (why not paranoid: see the parent module).
//!
//! The tree alternates two kinds of layer: a *max* layer, where the searching side (the root
//! side) plays each of its moves, and a *min* layer, where every remaining opponent's moves
//! are pooled and only the single best one for the opponents is played, the other opponents
//! passing. So the root side sees one of its own moves every second ply instead of every
//! fourth, and the tree stays a two-team alpha-beta tree (negamax with the sign flipping at
//! every layer) that keeps all of alpha-beta's pruning. What it gives up: positions in which
//! only one opponent moved between two of ours never happen in play, and opponents' moves
//! against each other are not searched (they only make our relative score better).
//!
//! The rules crate plays a move for the side whose turn it is, so an opponent later in turn
//! order replies after the opponents before it pass ([`MoveKind::Pass`], which the rules
//! accept from any side in a game of more than two sides), and the opponents after it pass
//! until the turn is back with the root side. Checkmates and eliminations happen inside
//! these moves exactly as in play. An opponent in check may not pass: when it is not the
//! best reply it plays the evasion its ordering likes best, and the other opponents' replies
//! stay in the pool. (Letting only opponents in check reply, as before, made every check a
//! way to silence the others for a layer: level 5 chased a weak opponent's King with checks
//! while a strong one's new Queen went unseen, and lost its own Queen and the game. Dropping
//! that rule took Unbalanced from 50% to 70% and Balanced from 67.5% to 77.5% against
//! three level-3 seats.) Quiescence still lets only opponents in check reply.

use rules::{Move, MoveKind, MoveList, Position, Side};

use super::{INF, MATE, MAX_PLY, Searcher, hidx, settled, to_tt};
use crate::tt::Bound;

/// Keeps max-layer and min-layer entries, and those of searches for different root sides,
/// apart in the transposition table (the scores are from one team's point of view).
const LAYER_SALT: u64 = 0x5bd1_e995_2f0d_3a47;
const ROOT_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// What taking a player out is worth to the searching side, per opponent out, centipawns.
/// Without it the evaluation saw nothing gained by a checkmate that takes a player out (the
/// opponents' mean and strongest hardly move when one of three full armies leaves), and at
/// 100,000 nodes level 5 as Red in Wildebeest Quadruple passed up `dz-ex`, which takes Green
/// out at once, for a pawn move that lost by force. With it, against three level-3 seats at
/// 100,000 nodes: Wildebeest Quadruple 55.0% -> 72.5%, Unbalanced 62.5% -> 75.0% (README).
const ELIMINATION_BONUS: i32 = 500;

/// A reply in a min layer: the move, how many opponents pass before its mover's turn, and
/// its ordering key.
#[derive(Clone, Copy)]
struct Reply {
    mv: Move,
    passes: u8,
    key: i32,
}

fn pass() -> Move {
    Move::new(rules::Cell(0), rules::Cell(0), MoveKind::Pass)
}

impl Searcher {
    /// The root of one Best-Reply iteration: like [`Searcher::root`], for more than two sides.
    pub(super) fn brs_root(
        &mut self,
        pos: &mut Position,
        depth: i32,
        order: &mut [(Move, i32)],
        mut alpha: i32,
        beta: i32,
    ) -> (Option<(Move, i32)>, i32) {
        let mut best: Option<(Move, i32)> = None;
        self.pv[0].clear();
        for (i, entry) in order.iter_mut().enumerate() {
            let m = entry.0;
            pos.play_unchecked(m);
            let v = if i == 0 {
                -self.brs(pos, depth - 1, -beta, -alpha, 1, false, true)
            } else {
                let v = -self.brs(pos, depth - 1, -alpha - 1, -alpha, 1, false, false);
                if v > alpha && v < beta && !self.aborted {
                    -self.brs(pos, depth - 1, -beta, -alpha, 1, false, true)
                } else {
                    v
                }
            };
            pos.undo();
            if self.aborted {
                break;
            }
            entry.1 = if v > alpha { v } else { -INF + i as i32 };
            if v > alpha {
                alpha = v;
                best = Some((m, v));
                self.update_pv(0, m);
                if v >= beta {
                    break;
                }
            }
        }
        order.sort_by_key(|o| std::cmp::Reverse(o.1));
        let score = best.map_or(alpha, |b| b.1);
        (best, score)
    }

    /// The root side's score of a finished game (or of one whose root side is out), for
    /// the team moving at this layer.
    fn brs_terminal(&self, pos: &Position, ply: usize, max: bool) -> Option<i32> {
        let won = MATE - ply as i32;
        let s = if pos.is_out(self.root) {
            -won
        } else if self
            .eval
            .variant()
            .all_sides()
            .all(|s| s == self.root || pos.is_out(s))
        {
            won
        } else {
            return None;
        };
        Some(if max { s } else { -s })
    }

    /// The static score for the team moving at this layer: the root side's own total less the
    /// average of two figures for the opponents still in, their mean and their best.
    ///
    /// The plain mean ([`crate::Evaluator::evaluate`], which paranoid search keeps) does not
    /// care which opponent grows: level 5 let the strongest one run away (take material,
    /// promote) while bare Kings kept the mean low, and lost the last duel. Weighing the
    /// leader in took Unbalanced from 70% to 90% against three level-3 seats; the leader
    /// alone (no mean) gave 65%.
    fn brs_eval(&self, pos: &Position, max: bool) -> i32 {
        let score = self.eval.side_scores(pos);
        let (mut sum, mut n, mut top) = (0, 0, i32::MIN);
        for o in self.eval.variant().all_sides() {
            if o != self.root && !pos.is_out(o) {
                sum += score[o.index()];
                n += 1;
                top = top.max(score[o.index()]);
            }
        }
        let me = score[self.root.index()];
        let out = i32::from(self.eval.variant().sides) - 1 - n;
        let s = if n == 0 { me } else { me - (sum / n + top) / 2 } + ELIMINATION_BONUS * out;
        if max { s } else { -s }
    }

    /// Lets the opponents move until the root side is to move (or is out, or the game
    /// ends), each playing its [`Searcher::threat`]; returns how many moves were played.
    fn others_to_root(&mut self, pos: &mut Position, ply: usize, greedy: bool) -> usize {
        let sides = self.eval.variant().sides as usize;
        let mut n = 0;
        while pos.turn() != self.root
            && !pos.is_out(self.root)
            && pos.remaining().len() >= 2
            && n < sides
        {
            let m = if greedy {
                let mut buf = std::mem::take(&mut self.buffers[ply]);
                pos.legal_moves_into(&mut buf);
                let m = self.action(pos, &buf, ply);
                self.buffers[ply] = buf;
                m
            } else {
                pass()
            };
            pos.play_unchecked(m);
            n += 1;
        }
        n
    }

    /// What an opponent that is not the best reply does in the main search: in check, the
    /// evasion its reply ordering likes best (it may not pass, and a check must not silence
    /// the other opponents: see [`Searcher::replies`]); otherwise its [`Searcher::threat`].
    fn action(&self, pos: &Position, moves: &[Move], ply: usize) -> Move {
        if !pos.is_check() {
            return self.threat(pos, moves);
        }
        let side = pos.turn();
        moves
            .iter()
            .filter(|m| m.kind != MoveKind::Pass)
            .max_by_key(|m| {
                let victim = if m.is_capture() && m.kind != MoveKind::EnPassant {
                    pos.piece_at(m.to)
                } else {
                    None
                };
                self.reply_key(pos, **m, side, victim, ply)
            })
            .copied()
            .unwrap_or_else(pass)
    }

    /// What an opponent that is not the best reply does: its most profitable capture of one
    /// of our pieces (the victim's value, less the capturer's if we defend the cell), when
    /// that wins something; otherwise it passes.
    fn threat(&self, pos: &Position, moves: &[Move]) -> Move {
        let mut best = (0, pass());
        for m in moves {
            if m.kind != MoveKind::Capture {
                continue;
            }
            let Some(victim) = pos.piece_at(m.to) else {
                continue;
            };
            if victim.side != self.root {
                continue;
            }
            let mut gain = self.eval.value(victim.kind);
            if pos.is_attacked(m.to, self.root) {
                gain -= pos.piece_at(m.from).map_or(0, |p| self.eval.value(p.kind));
            }
            if gain > best.0 {
                best = (gain, *m);
            }
        }
        best.1
    }

    /// Every remaining opponent's moves from this min-layer position (the opponent to move
    /// first), each with how many opponents act before it; `captures_only` keeps captures of
    /// the root side's pieces and promotions. With `greedy` (the main search) the opponents
    /// before a reply play their [`Searcher::action`] rather than pass; those actions come
    /// back too, in turn order. Without it (quiescence), opponents in check crowd out the
    /// others, since a side in check would otherwise pass.
    fn replies(
        &mut self,
        pos: &mut Position,
        captures_only: bool,
        greedy: bool,
        ply: usize,
    ) -> (Vec<Reply>, Vec<Move>) {
        let mut out = Vec::new();
        let mut before = Vec::new();
        let mut checked_only = false;
        let mut buf = std::mem::take(&mut self.buffers[ply]);
        let mut passes = 0u8;
        let sides = self.eval.variant().sides;
        while pos.turn() != self.root && !pos.is_out(self.root) && passes < sides {
            let side = pos.turn();
            let check = pos.is_check();
            if check && !checked_only && !greedy {
                // Only sides in check may reply from now on.
                out.clear();
                checked_only = true;
            }
            pos.legal_moves_into(&mut buf);
            if check || !checked_only {
                for m in buf.iter() {
                    if m.kind == MoveKind::Pass {
                        continue;
                    }
                    let victim = if m.is_capture() {
                        let cell = if m.kind == MoveKind::EnPassant {
                            m.aux
                        } else {
                            m.to
                        };
                        pos.piece_at(cell)
                    } else {
                        None
                    };
                    let hits_root = victim.is_some_and(|p| p.side == self.root);
                    if captures_only && !hits_root && m.promotion.is_none() && !check {
                        continue;
                    }
                    let key = self.reply_key(pos, *m, side, victim, ply);
                    out.push(Reply {
                        mv: *m,
                        passes,
                        key,
                    });
                }
            }
            let act = if greedy {
                self.action(pos, &buf, ply)
            } else {
                pass()
            };
            before.push(act);
            pos.play_unchecked(act);
            passes += 1;
        }
        for _ in 0..passes {
            pos.undo();
        }
        self.buffers[ply] = buf;
        (out, before)
    }

    /// Ordering key of an opponent's move: captures of our pieces by victim and attacker,
    /// then promotions, killers, history; captures of another opponent's pieces last among
    /// the captures (they help us).
    fn reply_key(
        &self,
        pos: &Position,
        m: Move,
        side: Side,
        victim: Option<rules::Piece>,
        ply: usize,
    ) -> i32 {
        let attacker = pos.piece_at(m.from).map_or(0, |p| self.eval.value(p.kind));
        let promo = m.promotion.map_or(0, |k| self.eval.value(k));
        match victim {
            Some(p) if p.side == self.root => {
                (1 << 24) + self.eval.value(p.kind).max(crate::eval::PAWN) * 16 + promo * 8
                    - attacker / 8
            }
            _ if promo > 0 => (1 << 24) + promo * 8,
            _ => {
                let killers = self.killers[ply];
                if Some(m) == killers[0] {
                    (1 << 23) + 1
                } else if Some(m) == killers[1] {
                    1 << 23
                } else {
                    self.history[hidx(side.index(), m)]
                }
            }
        }
    }

    /// Plays a reply with the other opponents' actions around it (`before`: those of the
    /// opponents before it, from [`Searcher::replies`]); returns how many moves to undo.
    fn play_reply(
        &mut self,
        pos: &mut Position,
        r: Reply,
        before: &[Move],
        ply: usize,
        greedy: bool,
    ) -> usize {
        for m in &before[..r.passes as usize] {
            pos.play_unchecked(*m);
        }
        pos.play_unchecked(r.mv);
        r.passes as usize + 1 + self.others_to_root(pos, ply, greedy)
    }

    /// One Best-Reply node: `max` when the root side is to move, otherwise the opponents'
    /// pooled layer. The window and the result are for the team moving here.
    #[allow(clippy::too_many_arguments)]
    fn brs(
        &mut self,
        pos: &mut Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        max: bool,
        pv_node: bool,
    ) -> i32 {
        self.pv[ply].clear();
        if let Some(s) = self.brs_terminal(pos, ply, max) {
            return s;
        }
        if depth <= 0 || ply >= MAX_PLY - 8 {
            return self.brs_quiesce(pos, alpha, beta, ply, max);
        }
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        if max && self.is_draw(pos) {
            return 0;
        }
        let key = pos.hash()
            ^ if max { 0 } else { LAYER_SALT }
            ^ ROOT_SALT.wrapping_mul(u64::from(self.root.0) + 1);
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.mv;
            if !pv_node
                && e.depth as i32 >= depth
                && let Some(s) = settled(&e, ply, alpha, beta)
            {
                return s;
            }
        }
        // The moves of this layer, best first.
        let mut before = Vec::new();
        let mut moves: Vec<Reply> = if max {
            let mut list = std::mem::take(&mut self.buffers[ply]);
            pos.legal_moves_into(&mut list);
            let mut scores = std::mem::take(&mut self.scores[ply]);
            self.order(pos, &list, &mut scores, tt_move, ply);
            let v = list
                .iter()
                .zip(scores.iter())
                .map(|(m, k)| Reply {
                    mv: *m,
                    passes: 0,
                    key: *k,
                })
                .collect();
            self.buffers[ply] = list;
            self.scores[ply] = scores;
            v
        } else {
            let (mut v, acts) = self.replies(pos, false, true, ply);
            before = acts;
            for r in &mut v {
                if Some(r.mv) == tt_move {
                    r.key = 1 << 30;
                }
            }
            v
        };
        if moves.is_empty() {
            if max {
                // Nobody can move: the game is drawn.
                return 0;
            }
            // No opponent can move: they all pass.
            let n = self.others_to_root(pos, ply, false);
            let v = -self.brs(pos, depth - 1, -beta, -alpha, ply + 1, true, pv_node);
            for _ in 0..n {
                pos.undo();
            }
            return v;
        }
        moves.sort_by_key(|r| std::cmp::Reverse(r.key));
        let in_check = max && pos.is_check();
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for (i, r) in moves.iter().enumerate() {
            let m = r.mv;
            let quiet = !m.is_capture() && m.promotion.is_none();
            let mover = if max {
                self.root
            } else {
                self.side_after(pos, &before[..r.passes as usize])
            };
            let undo = if max {
                pos.play_unchecked(m);
                1
            } else {
                self.play_reply(pos, *r, &before, ply, true)
            };
            let d = depth - 1;
            let v = if i == 0 {
                -self.brs(pos, d, -beta, -alpha, ply + 1, !max, pv_node)
            } else {
                // Late quiet moves are searched shallower first, then fully if they surprise.
                let late = if max { 3 } else { 6 };
                let reduce = depth >= 3 && i >= late && quiet && !in_check && r.key < (1 << 23);
                let red = i32::from(reduce);
                let mut v = -self.brs(pos, d - red, -alpha - 1, -alpha, ply + 1, !max, false);
                if v > alpha && red > 0 && !self.aborted {
                    v = -self.brs(pos, d, -alpha - 1, -alpha, ply + 1, !max, false);
                }
                if v > alpha && v < beta && pv_node && !self.aborted {
                    v = -self.brs(pos, d, -beta, -alpha, ply + 1, !max, true);
                }
                v
            };
            for _ in 0..undo {
                pos.undo();
            }
            if self.aborted {
                break;
            }
            if v > best {
                best = v;
                best_move = Some(m);
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, m);
                    if alpha >= beta {
                        if quiet {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            let h = &mut self.history[hidx(mover.index(), m)];
                            *h = (*h + depth * depth).min(1 << 20);
                        }
                        break;
                    }
                }
            }
        }
        if self.aborted {
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, to_tt(best, ply), depth as i16, bound);
        best
    }

    /// The side to move after `moves` from here.
    fn side_after(&self, pos: &mut Position, moves: &[Move]) -> Side {
        for m in moves {
            pos.play_unchecked(*m);
        }
        let s = pos.turn();
        for _ in moves {
            pos.undo();
        }
        s
    }

    /// Quiescence in Best-Reply layers: the root side's captures and promotions, then the
    /// opponents' captures of our pieces and promotions, standing pat on the static score.
    fn brs_quiesce(
        &mut self,
        pos: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        max: bool,
    ) -> i32 {
        self.nodes += 1;
        self.pv[ply].clear();
        if self.out_of_budget() {
            return 0;
        }
        if let Some(s) = self.brs_terminal(pos, ply, max) {
            return s;
        }
        let stand = self.brs_eval(pos, max);
        if stand >= beta || ply >= MAX_PLY - 2 {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut before = Vec::new();
        let mut moves: Vec<Reply> = if max {
            let mut list: MoveList = std::mem::take(&mut self.buffers[ply]);
            pos.legal_moves_into(&mut list);
            list.retain(|m| m.is_capture() || m.promotion.is_some());
            let mut scores = std::mem::take(&mut self.scores[ply]);
            self.order(pos, &list, &mut scores, None, ply);
            let v = list
                .iter()
                .zip(scores.iter())
                .map(|(m, k)| Reply {
                    mv: *m,
                    passes: 0,
                    key: *k,
                })
                .collect();
            self.buffers[ply] = list;
            self.scores[ply] = scores;
            v
        } else {
            let (v, acts) = self.replies(pos, true, false, ply);
            before = acts;
            v
        };
        moves.sort_by_key(|r| std::cmp::Reverse(r.key));
        let mut best = stand;
        for r in moves {
            let undo = if max {
                pos.play_unchecked(r.mv);
                1
            } else {
                self.play_reply(pos, r, &before, ply, false)
            };
            let v = -self.brs_quiesce(pos, -beta, -alpha, ply + 1, !max);
            for _ in 0..undo {
                pos.undo();
            }
            if self.aborted {
                break;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, r.mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if self.aborted { 0 } else { best }
    }
}
