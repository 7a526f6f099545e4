//! Iterative-deepening negamax alpha-beta with principal-variation search.
//!
//! A [`Searcher`] owns its transposition table, killer moves and history, so consecutive
//! searches of one game reuse what earlier ones learnt; [`Searcher::new_game`] forgets it.
//! Limits (depth, nodes, time, an external stop flag) are checked during the search, every
//! 128 nodes for the clock (a node costs 1-50 µs depending on the board, reading the clock
//! about 25 ns), so a search overruns its time by at most a few milliseconds. Nothing random
//! happens here: for a given position, history of searches and node limit the result is
//! always the same.
//!
//! **Pruning** (each measured by matches, see the README's "Engine numbers"): aspiration
//! windows at the root from depth 4 (±30 centipawns, widened on the side that failed);
//! null-move pruning (two sides without special powers, not in check, not twice in a row,
//! only with two pieces or more besides pawns and royals; reduction 3 plus a ply per 4 of depth and a
//! ply per 2 pawns, at most 2, of the static score's surplus over beta);
//! reverse futility and futility pruning near the horizon; late-move pruning (two sides, at
//! depths 1-3 outside the principal variation and check, only the first `3 + depth²` quiet
//! moves are searched); internal iterative reduction (a ply less at depth 4 or more when the
//! table has no move); late-move reductions of quiet moves (a ply more outside the
//! principal variation for one with bad history); in quiescence, the transposition table
//! (probed for cut-offs and its move, stored at depth 0), delta pruning (a capture that
//! cannot lift the score to alpha even with a 2-pawn margin) and skipping a capture that
//! loses material in its exchange. Near the horizon (depths 1-3, outside the principal
//! variation and check) a move that loses more in the exchange on its cell than the depth
//! could win back is not searched either (a pawn a ply for a capture, half a pawn times the
//! square of the depth for a quiet move that leaves its piece to be taken).
//!
//! **Static exchange** ([`rules::Position::exchange`]): what a move wins or loses on its
//! cell if both sides keep capturing there, least valuable piece first, each free to stop.
//! It decides which captures lose (two sides without special powers; elsewhere a capture of
//! a defended piece by a more valuable one is taken to lose).
//!
//! **Ordering**: hash move, captures by most valuable victim / least valuable attacker,
//! killers, then quiet moves by history. A cut-off raises the history of its quiet move and
//! lowers that of the quiet moves tried before it, each update scaled so the scores stay
//! bounded; a capture that loses material ranks with the quiet moves.
//!
//! **Four players: Best-Reply Search** (levels 4 and 5; details in `search/brs.rs`).
//! Best-Reply Search (Schadd and Winands, "Best Reply Search for Multiplayer Games", IEEE
//! TCIAIG 2011) alternates the searching side with a single reply: the strongest move any of
//! the three opponents has against it, while each other opponent takes one of our pieces if
//! that wins material and otherwise passes. The tree stays a two-team alpha-beta tree, and our
//! own moves come every second ply rather than every fourth. Its price is a tree in which only
//! one opponent plans per round. Plain Best-Reply, where the others simply pass, let a piece
//! stand where a second opponent took it and lost nearly every game, hence the captures.
//!
//! It replaced **paranoid** search (the searching side against the three others as one team,
//! every node a max node for us or a min node for them) for every army. Paranoid had been
//! kept for the armies of several Queen-class pieces (Kamil, Knighted, Wildebeest), where it
//! beat Best-Reply at 30,000 nodes a move; but at 30,000 nodes level 3's own depth-3 search is
//! cut short by the limit in most middle-game positions (example `level3_budget`), and at
//! the budgets the bot gives (level 5: up to 3 s and 8 million nodes) paranoid search grows
//! more pessimistic the deeper it looks, as if the three opponents always played together:
//! at 100,000 nodes for every seat it scored 32.5% in Knighted against three level-3 seats,
//! where Best-Reply scored 72.5% (Kamil 80%, Wildebeest 65%), and at one million nodes
//! against level 3's 250,000 it went 1-0-7, where Best-Reply scores 70% (README, Engine
//! numbers). The weaker levels (1-3) still score their root moves with the
//! paranoid tree ([`Searcher::score_root_moves`]): at depth 1 to 3 it is the plain
//! "everyone against me" look a beginner takes.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use rules::{Move, MoveKind, MoveList, Outcome, Position, Side};

use crate::{
    eval::Evaluator,
    tt::{Bound, Entry, Table},
};

mod brs;

/// The score of a mate at the root; a mate `n` plies away scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this (either sign) are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INF: i32 = MATE + 1;
/// The deepest the search goes (nominal depth plus extensions plus quiescence).
pub const MAX_PLY: usize = 128;

/// What may stop a search: any that is set and reached ends it.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// The deepest iteration to start.
    pub depth: Option<u32>,
    /// The most nodes to visit (checked at every node).
    pub nodes: Option<u64>,
    /// The most time to take (checked every 128 nodes).
    pub time: Option<Duration>,
    /// No new iteration starts once this much time has passed. For a clock, where time saved
    /// now is spent on later moves, about half of `time` (an iteration takes a few times
    /// longer than the last, so one started later would rarely finish). `None`: iterate
    /// until `time`, right for a fixed time per move (`go movetime`), where time left
    /// unused is simply lost, and an unfinished iteration still counts when a move it
    /// searched fully beat the previous best.
    pub soft_time: Option<Duration>,
}

/// A score as UCI writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns for the side to move.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    /// Reads an internal score.
    pub fn from_internal(s: i32) -> Score {
        if s > MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s < -MATE_BOUND {
            Score::Mate(-(MATE + s + 1) / 2)
        } else {
            Score::Cp(s)
        }
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// One finished iteration, as `info` reports it.
#[derive(Debug, Clone)]
pub struct Iteration {
    /// Its depth.
    pub depth: u32,
    /// Its score for the side to move.
    pub score: Score,
    /// Nodes so far in this search.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// The move to play; `None` only when there is no legal move.
    pub best: Option<Move>,
    /// Its score (internal units: centipawns, or near [`MATE`]).
    pub score: i32,
    /// The last completed depth.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// A search engine for one variant.
#[derive(Debug)]
pub struct Searcher {
    eval: Arc<Evaluator>,
    tt: Arc<Table>,
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
    nodes: u64,
    start: Instant,
    deadline: Option<Instant>,
    node_limit: u64,
    stop: Arc<AtomicBool>,
    aborted: bool,
    root: Side,
    /// The root position's ply in its game ([`Position::plies`]): repetitions after it are
    /// the search's own, those at or before it the game's (see [`Searcher::is_draw`]).
    root_ply: usize,
    four: bool,
    buffers: Vec<MoveList>,
    scores: Vec<Vec<i32>>,
    pv: Vec<Vec<Move>>,
    /// Per ply: whether the move that led to the node at the next ply was a null move.
    null_at: Vec<bool>,
    /// Null-move pruning is sound here (two sides, no special powers).
    null_ok: bool,
    /// Out of check, quiescence may list only the tactical moves: two sides and no capture
    /// goal (whose win the search sees only as a position without moves).
    tactical_ok: bool,
    /// Only mate or stalemate can end a game here ([`Searcher::tactical_ok`] and no
    /// bare-King rule), so a node may be cut before its moves are listed. Special powers and
    /// river rules change which moves there are, not how a game ends.
    plain_ends: bool,
    /// Lazy SMP: searchers that run beside this one on threads of their own during
    /// [`Searcher::search`], sharing its table (empty: one thread).
    helpers: Vec<Searcher>,
    /// A helper's head start in depth (0 for the main searcher), so that half the helpers
    /// search one ply deeper than the main thread and the threads' trees differ.
    skip: u32,
}

impl Searcher {
    /// A searcher with a transposition table of about `tt_mb` megabytes.
    pub fn new(eval: Arc<Evaluator>, tt_mb: usize) -> Searcher {
        Searcher::with_table(eval, Arc::new(Table::new(tt_mb)))
    }

    fn with_table(eval: Arc<Evaluator>, tt: Arc<Table>) -> Searcher {
        let four = eval.variant().sides > 2;
        let sides = eval.variant().sides as usize;
        let null_ok = !four && eval.variant().special.is_none();
        let tactical_ok = !four && eval.variant().capture_goal.is_empty();
        let plain_ends = tactical_ok && !eval.variant().end.bare_king;
        Searcher {
            eval,
            tt,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; sides * 256 * 256],
            nodes: 0,
            start: Instant::now(),
            deadline: None,
            node_limit: u64::MAX,
            stop: Arc::new(AtomicBool::new(false)),
            aborted: false,
            root: Side::WHITE,
            root_ply: 0,
            four,
            buffers: (0..=MAX_PLY)
                .map(|_| MoveList::with_capacity(128))
                .collect(),
            scores: (0..=MAX_PLY).map(|_| Vec::with_capacity(128)).collect(),
            pv: vec![Vec::new(); MAX_PLY + 1],
            null_at: vec![false; MAX_PLY + 2],
            null_ok,
            tactical_ok,
            plain_ends,
            helpers: Vec::new(),
            skip: 0,
        }
    }

    /// Searches with `n` threads (at least one): Lazy SMP, where every thread runs the same
    /// iterative deepening over the shared transposition table and the main thread's result
    /// is the answer; the others fill the table with what they find. With one thread (the
    /// default) a search is deterministic; with more it is not, and a node limit counts the
    /// main thread's nodes only. Only [`Searcher::search`] uses the extra threads.
    pub fn set_threads(&mut self, n: usize) {
        let n = n.max(1);
        self.helpers.truncate(n - 1);
        while self.helpers.len() < n - 1 {
            let mut h = Searcher::with_table(self.eval.clone(), self.tt.clone());
            h.skip = (self.helpers.len() as u32 + 1) % 2;
            self.helpers.push(h);
        }
    }

    /// How many threads a search uses.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &Arc<Evaluator> {
        &self.eval
    }

    /// A flag that stops the running search when set (from another thread: UCI `stop`).
    /// The search clears it when it starts.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Shares another flag as this searcher's stop flag.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop = flag;
    }

    /// Forgets what earlier searches learnt (a new game).
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.forget_lessons();
        self.helpers.iter_mut().for_each(Searcher::forget_lessons);
    }

    /// Forgets the killers and history (the table is shared, and cleared once).
    fn forget_lessons(&mut self) {
        self.history.iter_mut().for_each(|h| *h = 0);
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
    }

    /// Searches `pos` within `limits`, calling `report` after each completed iteration.
    ///
    /// The position is played on and undone in place; it is unchanged afterwards.
    pub fn search(
        &mut self,
        pos: &mut Position,
        limits: &Limits,
        report: impl FnMut(&Iteration),
    ) -> SearchResult {
        self.begin(pos, limits);
        let mut root_moves = MoveList::new();
        pos.legal_moves_into(&mut root_moves);
        if root_moves.len() <= 1 {
            // Nothing to think about (a forced move, or a four-player pass).
            return SearchResult {
                best: root_moves.first().copied(),
                score: 0,
                depth: 0,
                nodes: 0,
                elapsed: self.start.elapsed(),
                pv: root_moves.clone(),
            };
        }
        if self.helpers.is_empty() {
            return self.deepen(pos, limits, &root_moves, report);
        }
        // Lazy SMP: the helpers search until the main thread is done (or their own clock,
        // the same as its, runs out), whatever its depth or node limit.
        let done = Arc::new(AtomicBool::new(false));
        let helper_limits = Limits {
            time: limits.time,
            ..Limits::default()
        };
        let mut helpers = std::mem::take(&mut self.helpers);
        let mut result = std::thread::scope(|scope| {
            for h in &mut helpers {
                h.stop = done.clone();
                h.reset(pos, &helper_limits);
                let mut own = pos.clone();
                let (moves, limits) = (&root_moves, &helper_limits);
                scope.spawn(move || h.deepen(&mut own, limits, moves, |_| {}));
            }
            let result = self.deepen(pos, limits, &root_moves, report);
            done.store(true, Ordering::Relaxed);
            result
        });
        result.nodes += helpers.iter().map(|h| h.nodes).sum::<u64>();
        self.helpers = helpers;
        result
    }

    /// The score of one move `m` for the side to move in `pos`, searched within `limits` as
    /// if it were the only legal move (even when it is: a forced move still gets its score).
    /// Post-game analysis asks it for the move a player made where the search preferred
    /// another; in a four-player game it is the only way to score a move for its mover, since
    /// the position after it belongs to the next seat.
    ///
    /// `m` must be legal in `pos`; the position is unchanged afterwards.
    pub fn search_move(&mut self, pos: &mut Position, m: Move, limits: &Limits) -> SearchResult {
        self.begin(pos, limits);
        self.deepen(pos, limits, &[m], |_| {})
    }

    /// Iterative deepening over `root_moves` (at least one).
    fn deepen(
        &mut self,
        pos: &mut Position,
        limits: &Limits,
        root_moves: &[Move],
        mut report: impl FnMut(&Iteration),
    ) -> SearchResult {
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: Vec::new(),
        };
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 / 2)
            .clamp(1, MAX_PLY as u32 / 2);
        let mut order: Vec<(Move, i32)> = root_moves.iter().map(|m| (*m, 0)).collect();
        for depth in (1 + self.skip).min(max_depth)..=max_depth {
            // Aspiration: from depth 4 on, search a window around the last score first and
            // widen it on the side that failed.
            let mut delta = 30;
            let asp = depth >= 4 && result.score.abs() < MATE_BOUND;
            let (mut lo, mut hi) = if asp {
                (result.score - delta, result.score + delta)
            } else {
                (-INF, INF)
            };
            let mut failed_high = None;
            let (best, score) = loop {
                let (best, score) = self.root(pos, depth as i32, &mut order, lo, hi);
                if self.aborted {
                    break (best, score);
                }
                if score <= lo && lo > -INF {
                    lo = (lo - delta).max(-INF);
                } else if score >= hi && hi < INF {
                    hi = (hi + delta).min(INF);
                    failed_high = best.map(|b| b.0);
                } else {
                    break (best, score);
                }
                delta *= 2;
                if delta > 500 {
                    delta = INF;
                }
            };
            if self.aborted {
                // A partial iteration counts only when its first move (the previous best) was
                // fully searched and something beat it.
                if let Some((m, s)) = best
                    && Some(m) != result.best
                    && s > result.score
                {
                    result.best = Some(m);
                    result.score = s;
                    result.pv = vec![m];
                } else if let Some(m) = failed_high
                    && Some(m) != result.best
                {
                    // A move that beat the window's top before time ran out.
                    result.best = Some(m);
                    result.pv = vec![m];
                }
                break;
            }
            let Some((m, _)) = best else { break };
            result.best = Some(m);
            result.score = score;
            result.depth = depth;
            result.pv = self.pv[0].clone();
            result.nodes = self.nodes;
            result.elapsed = self.start.elapsed();
            report(&Iteration {
                depth,
                score: Score::from_internal(score),
                nodes: self.nodes,
                elapsed: result.elapsed,
                pv: result.pv.clone(),
            });
            if score.abs() > MATE_BOUND && (MATE - score.abs()) as u32 <= depth {
                break; // a mate found at full width needs no deeper look
            }
            if limits.soft_time.is_some_and(|t| self.start.elapsed() > t) {
                break;
            }
        }
        result.nodes = self.nodes;
        result.elapsed = self.start.elapsed();
        result
    }

    /// Scores every root move with a full window at `depth` (for the weaker levels, which
    /// choose among moves by score): `(move, score for the side to move)`.
    pub fn score_root_moves(
        &mut self,
        pos: &mut Position,
        depth: u32,
        limits: &Limits,
    ) -> Vec<(Move, i32)> {
        self.begin(pos, limits);
        let moves = pos.legal_moves();
        let us = self.team(pos.turn());
        let mut out = Vec::new();
        for m in moves {
            pos.play_unchecked(m);
            let v = self.child(pos, depth as i32 - 1, -INF, INF, 1, true, us);
            pos.undo();
            if self.aborted {
                break;
            }
            out.push((m, v));
        }
        out
    }

    /// Nodes visited by the last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Starts a search: clears the stop flag and ages the table, then [`Searcher::reset`].
    fn begin(&mut self, pos: &Position, limits: &Limits) {
        self.stop.store(false, Ordering::Relaxed);
        self.tt.next_age();
        self.reset(pos, limits);
    }

    /// What every thread of a search does before it starts: counters, clock, root, and the
    /// history scaled down so the last search's lessons weigh less than this one's.
    fn reset(&mut self, pos: &Position, limits: &Limits) {
        self.nodes = 0;
        self.aborted = false;
        self.start = Instant::now();
        self.deadline = limits.time.map(|t| self.start + t);
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.root = pos.turn();
        self.root_ply = pos.plies();
        for h in &mut self.history {
            *h /= 8;
        }
    }

    /// Which team a side plays for: the root side against everyone else (with two sides,
    /// simply the side).
    #[inline]
    fn team(&self, s: Side) -> bool {
        s == self.root
    }

    fn root(
        &mut self,
        pos: &mut Position,
        depth: i32,
        order: &mut [(Move, i32)],
        mut alpha: i32,
        beta: i32,
    ) -> (Option<(Move, i32)>, i32) {
        if self.four {
            return self.brs_root(pos, depth, order, alpha, beta);
        }
        let us = self.team(pos.turn());
        let mut best: Option<(Move, i32)> = None;
        self.pv[0].clear();
        for (i, entry) in order.iter_mut().enumerate() {
            let m = entry.0;
            pos.play_unchecked(m);
            let ext = i32::from(pos.is_check());
            let v = if i == 0 {
                self.child(pos, depth - 1 + ext, alpha, beta, 1, true, us)
            } else {
                let v = self.child(pos, depth - 1 + ext, alpha, alpha + 1, 1, false, us);
                if v > alpha && v < beta && !self.aborted {
                    self.child(pos, depth - 1 + ext, alpha, beta, 1, true, us)
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
        // Best first next time, the others by how they did (stable: ties keep their order).
        order.sort_by_key(|o| std::cmp::Reverse(o.1));
        let score = best.map_or(alpha, |b| b.1);
        (best, score)
    }

    /// Searches the position after a move: `parent` is the team that moved; the window and the
    /// result are in the parent's terms.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child(
        &mut self,
        pos: &mut Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv: bool,
        parent: bool,
    ) -> i32 {
        if self.team(pos.turn()) == parent {
            self.negamax(pos, depth, alpha, beta, ply, pv)
        } else {
            -self.negamax(pos, depth, -beta, -alpha, ply, pv)
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        if let Some(next) = tail.first() {
            line.extend_from_slice(next);
        }
    }

    #[inline]
    fn out_of_budget(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes >= self.node_limit {
            self.aborted = true;
        } else if self.nodes & 127 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            } else if let Some(d) = self.deadline
                && Instant::now() >= d
            {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// Whether the side to move has two pieces or more that are neither pawn-like nor
    /// royal: then passing is rarely its best move, and the null move may stand in for its
    /// real moves. With one such piece, zugzwang is common (Morphy's 1. Ra6! leaves Black's
    /// lone Bishop nothing good to do, and a pass would hide that).
    fn zugzwang_unlikely(&self, pos: &Position) -> bool {
        let v = self.eval.variant();
        let side = pos.turn();
        v.kinds()
            .filter(|&k| {
                let p = v.piece(k);
                !p.pawn && !p.royal
            })
            .map(|k| u32::from(pos.count(side, k)))
            .sum::<u32>()
            >= 2
    }

    /// The static score for the side to move's team.
    fn static_eval(&self, pos: &Position) -> i32 {
        if self.four {
            let s = self.eval.evaluate(pos, self.root);
            if pos.turn() == self.root { s } else { -s }
        } else {
            self.eval.evaluate(pos, pos.turn())
        }
    }

    /// The score of a position with no legal move, or of a finished four-player game, for the
    /// side to move's team; `None` while the game goes on.
    fn terminal(&self, pos: &Position, moves_empty: bool, ply: usize) -> Option<i32> {
        let mated = -(MATE - ply as i32);
        if self.four {
            let mine = self.team(pos.turn());
            let root_score = if pos.is_out(self.root) {
                Some(mated)
            } else if self
                .eval
                .variant()
                .all_sides()
                .all(|s| s == self.root || pos.is_out(s))
            {
                Some(-mated)
            } else if moves_empty {
                Some(0)
            } else {
                None
            };
            return root_score.map(|s| if mine { s } else { -s });
        }
        let v = self.eval.variant();
        // The bare-King rule (Courier) ends games with moves left: a win for whoever the rules
        // name, or a draw when both Kings are bare.
        if v.end.bare_king
            && let Some(o) = pos.bare_king_outcome()
        {
            return Some(match o {
                Outcome::Win { winner, .. } if winner == pos.turn() => -mated,
                Outcome::Win { .. } => mated,
                Outcome::Draw(_) => 0,
            });
        }
        if !moves_empty {
            return None;
        }
        if let Some(w) = pos.capture_winner() {
            return Some(if w == pos.turn() { -mated } else { mated });
        }
        Some(if pos.is_check() || v.end.stalemate_loses {
            mated
        } else {
            0
        })
    }

    /// Lists the legal moves into `moves`; the score if the position has ended
    /// ([`Searcher::terminal`]).
    fn list_moves(&self, pos: &Position, moves: &mut MoveList, ply: usize) -> Option<i32> {
        pos.legal_moves_into(moves);
        self.terminal(pos, moves.is_empty(), ply)
    }

    /// A draw by the rules, or as good as one. A position that already occurred on the
    /// search's own line is a draw: the side that allowed it back could repeat it again. One
    /// that occurred only in the game before the search is a draw only once the rules' count
    /// is reached: a single earlier occurrence is no draw yet, and scoring it as one let the
    /// engine step into a lost position it had seen once before (issue 32).
    fn is_draw(&self, pos: &Position) -> bool {
        let v = self.eval.variant();
        (v.draws.fifty_moves && pos.halfmoves() >= 50 * v.sides as u32)
            || (v.draws.repetitions > 0 && {
                let (before, after) = pos.earlier_occurrences(self.root_ply);
                after > 0 || before + 1 >= usize::from(v.draws.repetitions).max(2)
            })
            || self.is_dead(pos)
            || self.is_wrong_corner(pos)
    }

    /// A lone King in the corner that the other side's pawns and pieces can never take
    /// from him ([`Position::is_wrong_corner_draw`]): a draw that the evaluation would score
    /// as the material's worth. Asked only when one side has nothing but its King.
    fn is_wrong_corner(&self, pos: &Position) -> bool {
        !self.four
            && (pos.pieces_on_board(Side::WHITE) == 1 || pos.pieces_on_board(Side::BLACK) == 1)
            && pos.is_wrong_corner_draw()
    }

    /// A dead position (no mate possible with the material left, [`Position::is_dead`]) is a
    /// draw. Asked only when at most four pieces besides the royal ones are left, none of them
    /// pawn-like, so that the middlegame pays a few counts per node and nothing more.
    fn is_dead(&self, pos: &Position) -> bool {
        let v = self.eval.variant();
        if self.four || !v.draws.insufficient_material {
            return false;
        }
        let mut left = 0;
        for k in v.kinds() {
            let p = v.piece(k);
            if p.royal {
                continue;
            }
            let n = u32::from(pos.count(Side::WHITE, k)) + u32::from(pos.count(Side::BLACK, k));
            if n > 0 && p.pawn {
                return false;
            }
            left += n;
            if left > 4 {
                return false;
            }
        }
        pos.is_dead()
    }

    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        self.pv[ply].clear();
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(pos, alpha, beta, ply, 2);
        }
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        if self.is_draw(pos) {
            return 0;
        }
        let key = pos.hash();
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
        // The moves are listed before the pruning below only where a position may end
        // otherwise than by mate or stalemate ([`Searcher::plain_ends`]). Elsewhere a node
        // that the pruning cuts never lists its moves: the cut needs none, and without check
        // the only end it could miss is a stalemate, which the static score stands in for,
        // as it does in the quiescence search.
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        if !self.plain_ends
            && let Some(s) = self.list_moves(pos, &mut moves, ply)
        {
            self.buffers[ply] = moves;
            return s;
        }
        // Internal iterative reduction: a node deep enough to matter that the table knows no
        // move for is searched a ply shallower (its ordering is poor, and the next visit will
        // have a move). Two sides only, like the other ideas of the strength work below: in
        // the paranoid four-player tree they cost level 5 (Kamil 67.5% -> 40% against three
        // level-3 seats, 20 games; README, Engine numbers).
        let depth = if !self.four && tt_move.is_none() && depth >= 4 {
            depth - 1
        } else {
            depth
        };
        let in_check = !self.four && pos.is_check();
        // Near the horizon, a position already far above beta (or hopelessly below alpha for
        // its quiet moves) is not searched further: the margins are a pawn and a bit per ply,
        // generous against our evaluation's swings, and never applied in check or near mates.
        let shallow = !pv_node && !in_check && depth <= 3 && beta.abs() < MATE_BOUND;
        let stand = if shallow { self.static_eval(pos) } else { 0 };
        if shallow && stand - 120 * depth >= beta {
            self.buffers[ply] = moves;
            return stand;
        }
        // Null move: if passing still leaves us at or above beta after a reduced search, a
        // real move will too (not in check, not right after another pass, and only with two
        // pieces besides pawns and King, where zugzwang is rare).
        if self.null_ok
            && !pv_node
            && !in_check
            && depth >= 2
            && ply >= 1
            && !self.null_at[ply - 1]
            && beta.abs() < MATE_BOUND
            && self.zugzwang_unlikely(pos)
        {
            let stand = if shallow {
                stand
            } else {
                self.static_eval(pos)
            };
            if stand >= beta {
                // Deeper searches and bigger surpluses over beta allow a bigger reduction.
                let r = 3 + depth / 4 + ((stand - beta) / 200).min(2);
                pos.play_null();
                self.null_at[ply] = true;
                let v = -self.negamax(
                    pos,
                    (depth - 1 - r).max(0),
                    -beta,
                    -beta + 1,
                    ply + 1,
                    false,
                );
                self.null_at[ply] = false;
                pos.undo();
                if self.aborted {
                    self.buffers[ply] = moves;
                    return 0;
                }
                if v >= beta {
                    self.buffers[ply] = moves;
                    return if v >= MATE_BOUND { beta } else { v };
                }
            }
        }
        if self.plain_ends
            && let Some(s) = self.list_moves(pos, &mut moves, ply)
        {
            self.buffers[ply] = moves;
            return s;
        }
        let futile = shallow && depth == 1 && stand + 200 <= alpha;
        let mut scores = std::mem::take(&mut self.scores[ply]);
        self.order(pos, &moves, &mut scores, tt_move, ply);
        let us = self.team(pos.turn());
        let side = pos.turn().index();
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        // Late-move pruning: near the horizon, outside the principal variation and check,
        // only the first few quiet moves (by ordering) are searched at all.
        let near_horizon = !pv_node && !in_check && !self.four && depth <= 3;
        let lmp = if near_horizon {
            3 + depth * depth
        } else {
            i32::MAX
        };
        let mut quiets = 0;
        for i in 0..moves.len() {
            pick(&mut moves, &mut scores, i);
            let m = moves[i];
            let quiet = !m.is_capture() && m.promotion.is_none();
            let late = quiet && i > 0 && (futile || (quiets >= lmp && best > -MATE_BOUND));
            // Near the horizon, a move that loses more in the exchange on its cell than the
            // depth left could win back is not searched: a pawn a ply for captures, half a
            // pawn times the square of the depth for quiet moves (a piece left hanging).
            let margin = if quiet {
                50 * depth * depth
            } else {
                100 * depth
            };
            // (A capture that ordering ranked above the killers does not lose material.)
            let losing = !late
                && near_horizon
                && i > 0
                && best > -MATE_BOUND
                && m.promotion.is_none()
                && (quiet || scores[i] < KILLER)
                && pos
                    .exchange(m, |k| self.eval.value(k))
                    .is_some_and(|gain| gain < -margin);
            pos.play_unchecked(m);
            let gives_check = pos.is_check();
            if !gives_check && (late || losing) {
                pos.undo();
                continue;
            }
            if quiet {
                quiets += 1;
            }
            let ext = i32::from(gives_check && ply < 2 * MAX_PLY / 3);
            let d = depth - 1 + ext;
            let v = if i == 0 {
                self.child(pos, d, alpha, beta, ply + 1, pv_node, us)
            } else {
                // Late quiet moves are searched shallower first, then fully if they surprise;
                // a ply more outside the principal variation for one whose history is bad.
                let r = if depth >= 3 && i >= 3 && quiet && !in_check && !gives_check {
                    let r = 1 + i32::from(i >= 8 && depth >= 5);
                    if self.four {
                        r
                    } else {
                        (r + i32::from(!pv_node && scores[i] < 0)).min(d - 1)
                    }
                } else {
                    0
                };
                let mut v = self.child(pos, d - r, alpha, alpha + 1, ply + 1, false, us);
                if v > alpha && r > 0 && !self.aborted {
                    v = self.child(pos, d, alpha, alpha + 1, ply + 1, false, us);
                }
                if v > alpha && v < beta && pv_node && !self.aborted {
                    v = self.child(pos, d, alpha, beta, ply + 1, true, us);
                }
                v
            };
            pos.undo();
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
                            // The cut-off move gains, the quiet moves tried before it lose
                            // (two sides; four keep the plain count of before).
                            if self.four {
                                let h = &mut self.history[hidx(side, m)];
                                *h = (*h + depth * depth).min(1 << 20);
                            } else {
                                let bonus = (16 * depth * depth).min(1600);
                                add_history(&mut self.history[hidx(side, m)], bonus);
                                for &q in &moves[..i] {
                                    if !q.is_capture() && q.promotion.is_none() {
                                        add_history(&mut self.history[hidx(side, q)], -bonus);
                                    }
                                }
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = moves;
        self.scores[ply] = scores;
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

    /// Captures and promotions only, standing pat on the static score; when in check (two
    /// sides) every evasion, `checks` times at most along a line, so a mate in the capture
    /// sequence is seen without letting checks explode.
    fn quiesce(
        &mut self,
        pos: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        checks: u8,
    ) -> i32 {
        self.nodes += 1;
        self.pv[ply].clear();
        if self.out_of_budget() {
            return 0;
        }
        // The table answers here too when it holds a bound that settles the window; a
        // quiescence result is stored at depth 0, never over a deeper entry.
        let key = pos.hash();
        let entry = if self.four { None } else { self.tt.probe(key) };
        if let Some(s) = entry.and_then(|e| settled(&e, ply, alpha, beta)) {
            return s;
        }
        if self.is_dead(pos) || self.is_wrong_corner(pos) {
            return 0;
        }
        let alpha0 = alpha;
        let in_check = !self.four && pos.is_check();
        // Out of check, where [`Searcher::tactical_ok`], only the captures, promotions and
        // pushes are generated: a quiet position is scored by standing pat, so a stalemate
        // there goes unseen, as in most engines, and the generator saves the rest of the
        // moves and their legality tests. In check every move is needed, to see a mate.
        let tactical_only = self.tactical_ok && !in_check;
        // There, unless the bare-King rule may end the game, nothing the moves could tell
        // changes a stand-pat cut, so it is taken before they are listed.
        let early = (self.plain_ends && !in_check).then(|| self.static_eval(pos));
        if let Some(stand) = early
            && (stand >= beta || ply >= MAX_PLY - 1)
        {
            return stand;
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        if tactical_only {
            pos.legal_tactical_into(&mut moves);
        } else {
            pos.legal_moves_into(&mut moves);
        }
        if let Some(s) = self.terminal(pos, !tactical_only && moves.is_empty(), ply) {
            self.buffers[ply] = moves;
            return s;
        }
        let evading = in_check && checks > 0;
        let stand = early.unwrap_or_else(|| self.static_eval(pos));
        if !evading {
            if stand >= beta || ply >= MAX_PLY - 1 {
                self.buffers[ply] = moves;
                return stand;
            }
            alpha = alpha.max(stand);
            moves.retain(|m| m.is_tactical());
        }
        let mut scores = std::mem::take(&mut self.scores[ply]);
        self.order(pos, &moves, &mut scores, entry.and_then(|e| e.mv), ply);
        let us = self.team(pos.turn());
        let mut best = if evading { -INF } else { stand };
        let mut best_move = None;
        let left = if evading { checks - 1 } else { checks };
        let prune = !evading && !self.four && self.eval.variant().capture_goal.is_empty();
        let them = Side(pos.turn().0 ^ 1);
        for i in 0..moves.len() {
            pick(&mut moves, &mut scores, i);
            let m = moves[i];
            if prune && m.promotion.is_none() && m.is_capture() {
                let victim = if m.kind == MoveKind::EnPassant {
                    crate::eval::PAWN
                } else {
                    pos.piece_at(m.to).map_or(0, |p| self.eval.value(p.kind))
                };
                // Delta: even winning the piece and a margin cannot bring the score to alpha.
                if stand + victim + 200 <= alpha {
                    continue;
                }
                // A capture that loses material in the exchange it starts is not worth a look.
                // Ordering has judged every capture but the table's move already.
                let losing = if scores[i] == TT_MOVE {
                    self.losing_capture(pos, m, victim, them)
                } else {
                    scores[i] < KILLER
                };
                if losing {
                    continue;
                }
            }
            pos.play_unchecked(m);
            let v = if self.team(pos.turn()) == us {
                self.quiesce(pos, alpha, beta, ply + 1, left)
            } else {
                -self.quiesce(pos, -beta, -alpha, ply + 1, left)
            };
            pos.undo();
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
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = moves;
        self.scores[ply] = scores;
        if self.aborted {
            return 0;
        }
        if !self.four && entry.is_none_or(|e| e.depth <= 0) {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha0 {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt.store(key, best_move, to_tt(best, ply), 0, bound);
        }
        best
    }

    /// Whether `m`, a capture (not a promotion) worth `victim`, loses material in the
    /// exchange it starts on its cell. Only a capture by a piece worth more than its victim
    /// can (the rest win at least their victim back), so only those are walked: by the
    /// static exchange ([`Position::exchange`]) where the rules can tell, else by the guess
    /// that a defended victim is a loss.
    fn losing_capture(&self, pos: &Position, m: Move, victim: i32, them: Side) -> bool {
        if m.kind != MoveKind::Capture || m.promotion.is_some() {
            return false;
        }
        let attacker = pos.piece_at(m.from).map_or(0, |p| self.eval.value(p.kind));
        if attacker <= victim + 50 {
            return false;
        }
        match pos.exchange(m, |k| self.eval.value(k)) {
            Some(gain) => gain < 0,
            None => pos.is_attacked(m.to, them),
        }
    }

    /// Move-ordering keys: hash move, then captures by most valuable victim / least valuable
    /// attacker and promotions, then killers, then history; with two sides a capture that
    /// loses material ([`Searcher::losing_capture`]) ranks with the quiet moves.
    fn order(
        &self,
        pos: &Position,
        moves: &[Move],
        scores: &mut Vec<i32>,
        tt: Option<Move>,
        ply: usize,
    ) {
        scores.clear();
        let side = pos.turn().index();
        let them = Side(pos.turn().0 ^ 1);
        let two = !self.four;
        let killers = self.killers[ply];
        for m in moves {
            let s = if Some(*m) == tt {
                TT_MOVE
            } else if m.is_capture() || m.promotion.is_some() {
                let victim_cell = if m.kind == MoveKind::EnPassant {
                    m.aux
                } else {
                    m.to
                };
                let victim = if m.is_capture() {
                    pos.piece_at(victim_cell)
                        .map_or(crate::eval::PAWN, |p| self.eval.value(p.kind))
                } else {
                    0
                };
                let attacker = pos.piece_at(m.from).map_or(0, |p| self.eval.value(p.kind));
                let promo = m.promotion.map_or(0, |k| self.eval.value(k));
                if two && self.losing_capture(pos, *m, victim, them) {
                    // Losing material in the exchange: after the killers, level with quiet
                    // moves of no particular history.
                    victim - attacker / 8
                } else {
                    GOOD_CAPTURE + victim * 16 + promo * 8 - attacker / 8
                }
            } else if Some(*m) == killers[0] {
                KILLER + 1
            } else if Some(*m) == killers[1] {
                KILLER
            } else {
                self.history[hidx(side, *m)]
            };
            scores.push(s);
        }
    }
}

/// Ordering keys by band: the table's move, then captures that do not lose material and
/// promotions, then killers; losing captures and quiet moves (by history, within
/// ±[`HISTORY_MAX`]) rank below [`KILLER`].
const TT_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 24;
const KILLER: i32 = 1 << 23;

/// History scores stay within ±`HISTORY_MAX`: each update moves a score towards the bound
/// it pushes at in proportion to the distance left, so old lessons fade as new ones come.
const HISTORY_MAX: i32 = 16_384;

#[inline]
fn add_history(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

#[inline]
fn hidx(side: usize, m: Move) -> usize {
    (side << 16) | (m.from.index() << 8) | m.to.index()
}

/// Selection sort step: brings the best remaining move to `i`.
#[inline]
fn pick(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
}

/// Mate scores are stored relative to the node, so they stay right at another ply.
fn to_tt(s: i32, ply: usize) -> i32 {
    if s > MATE_BOUND {
        s + ply as i32
    } else if s < -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

/// The score a table entry settles for the window `alpha..beta` at `ply`, if its bound does:
/// an exact score always, a lower bound at or above beta, an upper bound at or below alpha.
fn settled(e: &Entry, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let s = from_tt(e.score, ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

fn from_tt(s: i32, ply: usize) -> i32 {
    if s > MATE_BOUND {
        s - ply as i32
    } else if s < -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}
