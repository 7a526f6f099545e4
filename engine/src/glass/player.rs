//! The Looking-Glass player: sample hidden worlds, try every order in each, pick the order
//! that does best across them.

use std::sync::Arc;

use rules::{
    Cell, Side, Variant,
    glass::{BackRank, Fact, Glass, Order, STRIKE_LIMIT, other, world_of},
};

use super::{belief::Sampler, knowledge::Knowledge};
use crate::level::{Level, Rng};

/// A score for a won game (our King capture, his third strike), in centipawns.
pub const WIN: i32 = 100_000;

/// What the opponent capturing our King next move is worth to him: less than a won game
/// (he may not see it: the King may stand on a world he cannot see) but more than any
/// material, so the player keeps its King out of reach above all.
const KING_THREAT: i32 = 4_000;

/// A strike's cost when the player has `strikes` already: the first two cost little more
/// than the information they give away, the third loses ([`WIN`]).
fn strike_cost(strikes: u8) -> i32 {
    match strikes + 1 {
        n if n >= STRIKE_LIMIT => WIN,
        1 => 120,
        _ => 450,
    }
}

/// "No strikes" rule: an impossible order loses the turn and the opponent moves our army
/// for us (he picks our worst move on his world): about a pawn and a half plus the tempo.
const NO_STRIKE_COST: i32 = 250;

/// "No strikes" rule, choosing the opponent's move: an impossible order for his army lets
/// him choose his move himself.
const FORCED_MISS_COST: i32 = 150;

/// How one level plays: samples, noise, chance of a random order, whether it looks at
/// the opponent's reply, and (level 5) whether it weighs the Kings' worlds and King attacks
/// and steers away from repetition when ahead.
#[derive(Debug, Clone, Copy)]
struct Style {
    samples: usize,
    noise: i32,
    random_in_1000: u64,
    reply: bool,
    /// Level 5: the King terms ([`KING_EXPOSED`], [`KING_HIT_SILENT`], [`KING_HIT_SEEN`])
    /// and the repetition cost ([`UNDO_COST`]).
    sharp: bool,
}

/// Level 5: our King standing on the opponent's world (where he sees it and his hidden
/// pieces can reach it) costs this much; his King on ours is worth as much to us.
const KING_EXPOSED: i32 = 150;

/// Level 5: our piece able to capture his King next move, on our world (he cannot see our
/// pieces there, so he may well not know): worth most of a King capture.
const KING_HIT_SILENT: i32 = 1_500;

/// Level 5: the same on his world, where he sees the attacker and will usually step away.
const KING_HIT_SEEN: i32 = 200;

/// Level 5, a mean score above this: a lead worth keeping, so moving the piece just moved
/// back where it came from (the way to a draw by repetition) costs [`UNDO_COST`].
const AHEAD: i32 = 150;

/// See [`AHEAD`].
const UNDO_COST: i32 = 40;

fn style(level: Level) -> Style {
    let sharp = level.number() >= 5;
    let (samples, noise, random_in_1000, reply) = match level.number() {
        1 => (2, 250, 200, false),
        2 => (4, 120, 60, true),
        3 => (8, 40, 0, true),
        4 => (16, 0, 0, true),
        _ => (32, 0, 0, true),
    };
    Style {
        samples,
        noise,
        random_in_1000,
        reply,
        sharp,
    }
}

/// One decision: every order considered, best first, with what the samples said of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// Order texts (`R:e2e4`, `O-O`), best first; the first is the choice. The rest are
    /// there for a caller whose first order is refused (it never is on the player's own
    /// world, whose moves are generated from what it sees; see the tests).
    pub ranked: Vec<String>,
    /// The share of samples in which the chosen order was impossible (a strike risk).
    pub risk: f64,
    /// The chosen order's mean score over the samples, in centipawns for the player.
    pub score: i32,
    /// How many hidden worlds were sampled.
    pub samples: usize,
}

impl Choice {
    /// The chosen order.
    pub fn order(&self) -> &str {
        &self.ranked[0]
    }
}

/// An order judged after the game ([`GlassPlayer::judge`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// The order the player would have given.
    pub best: String,
    /// Its value over the samples, in centipawns for the player ([`WIN`] for a won game).
    pub best_value: i32,
    /// The value of the order given, likewise (`best_value` when it is the same order).
    pub played_value: i32,
}

/// Orders valued: (text, value, share of samples where it was impossible).
struct Values {
    ranked: Vec<(String, f64, f64)>,
    samples: usize,
}

/// Why no order can be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChooseError {
    /// The knowledge says it is not this side's turn (or the game is not in play).
    #[error("it is not {0}'s turn")]
    NotToAct(&'static str),
    /// The army to move has no piece at all.
    #[error("{0}'s army has no piece to order")]
    NoPiece(&'static str),
}

/// A Looking-Glass player at a level. Every decision takes only a [`Knowledge`]; see the
/// module documentation of [`crate::glass`] for how it decides.
#[derive(Debug)]
pub struct GlassPlayer {
    variant: Arc<Variant>,
    level: Level,
    rng: Rng,
}

impl GlassPlayer {
    /// A player over the Looking-Glass variant (from [`rules::glass::variant`]), deterministic
    /// for a seed.
    pub fn new(variant: Arc<Variant>, level: Level, seed: u64) -> GlassPlayer {
        GlassPlayer {
            variant,
            level,
            rng: Rng::new(seed),
        }
    }

    /// The level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The secret back rank, uniformly at random among the 960 at every level: the setup
    /// is the opponent's first unknown, and any preference (a favourite row, one "better"
    /// row) would make it guessable, which is worth more to him than the small differences
    /// between rows are worth to us in a game without check. Drawn from the player's seed,
    /// which suits matches and tests; a caller whose seed an opponent could know (the bot
    /// mixes in the game's number) draws the row from fresh entropy instead.
    pub fn back_rank(&mut self) -> BackRank {
        BackRank::from_number(self.rng.below(960) as u32).unwrap_or_else(|_| BackRank::orthodox())
    }

    /// Whether the free `ask` ("have I a legal move on the world I cannot see?") is worth
    /// asking before choosing: only when the samples disagree on the answer, so that the
    /// answer would rule some of them out. When every sample agrees the answer teaches
    /// nothing the belief does not already hold. Pass the referee's answer with
    /// [`Knowledge::with_answer`].
    pub fn wants_ask(&mut self, k: &Knowledge) -> bool {
        if k.answer().is_some() || !k.to_act() {
            return false;
        }
        let army = k.army();
        let hidden = 1 - k.world();
        let has_there = if army == k.side() {
            !k.view().elsewhere.is_empty()
        } else {
            true
        };
        if !has_there {
            return false;
        }
        let n = style(self.level).samples.min(8);
        let games = Sampler::new(k, &self.variant).games(n, &mut self.rng, &self.variant);
        let yes = games.iter().filter(|g| g.has_move_on(army, hidden)).count();
        yes != 0 && yes != games.len()
    }

    /// The order to give now.
    ///
    /// Each sampled world is a full [`Glass`] built from the knowledge and the sample, so the
    /// referee's own code carries out every candidate order in it: transfers, partial
    /// execution and strikes come out exactly as the rules say, for that world. Each result
    /// is scored by a static evaluation of both worlds from the player's side: material,
    /// mobility, Pawn advance, and (from level 2) the opponent's best capture next move
    /// (his King capture of ours counting almost as a loss). Level 5 adds the Kings' worlds
    /// (our King on his world, where he sees it, is a liability; his on ours an asset) and
    /// our attacks on his King (worth most of a win on our world, where he cannot see the
    /// attacker; little on his, where he can), and when its mean score is a clear lead it
    /// avoids moving the piece it just moved back where it came from, the road to a draw by
    /// repetition. That is a one-ply search per sample with a capture look-ahead, not the
    /// alpha-beta [`crate::Searcher`]: the searcher works on [`rules::Position`], which has
    /// no portals, partial orders or strikes, and in a game where the opponent's replies are
    /// themselves blind a deeper tree over imagined worlds buys little for its cost.
    ///
    /// An order impossible in a sample scores the best order that was never impossible,
    /// minus the strike's cost (after a strike the player orders again), so risk is taken
    /// only where it pays. With two strikes, blind Pawn orders (the only ones a hidden
    /// piece can make impossible) are left out altogether.
    ///
    /// # Errors
    /// [`ChooseError`] when it is not this side's turn or it has nothing to order.
    pub fn choose(&mut self, k: &Knowledge) -> Result<Choice, ChooseError> {
        let st = style(self.level);
        let Values {
            mut ranked,
            samples,
        } = self.values(k, None)?;
        for r in &mut ranked {
            if st.noise > 0 {
                r.1 +=
                    (self.rng.below(2 * st.noise as u64 + 1) as i64 - i64::from(st.noise)) as f64;
            }
        }
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        if st.random_in_1000 > 0 && self.rng.below(1000) < st.random_in_1000 {
            let safe: Vec<usize> = (0..ranked.len()).filter(|&i| ranked[i].2 == 0.0).collect();
            if !safe.is_empty() {
                let pick = safe[self.rng.below(safe.len() as u64) as usize];
                let chosen = ranked.remove(pick);
                ranked.insert(0, chosen);
            }
        }
        Ok(Choice {
            risk: ranked[0].2,
            score: ranked[0].1.round() as i32,
            samples,
            ranked: ranked.into_iter().map(|r| r.0).collect(),
        })
    }

    /// Judges an order given after the game (post-game analysis): the order this player
    /// would have given, and what it and `played` were worth, from the same knowledge and
    /// the same sampled worlds, without the level's noise or random orders. So it judges a
    /// decision from what the player knew then, never from the hidden world as it was: an
    /// order that happened to work is not praised, nor a sound one that met bad luck blamed.
    ///
    /// # Errors
    /// [`ChooseError`] when it was not this side's turn or it had nothing to order.
    pub fn judge(&mut self, k: &Knowledge, played: &str) -> Result<Judged, ChooseError> {
        let Values { mut ranked, .. } = self.values(k, Some(played))?;
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let best = &ranked[0];
        let played_value = ranked
            .iter()
            .find(|r| r.0 == played)
            .map_or(best.1, |r| r.1);
        Ok(Judged {
            best: best.0.clone(),
            best_value: best.1.round() as i32,
            played_value: played_value.round() as i32,
        })
    }

    /// Every order worth trying (and `also`, if given), valued over the samples without
    /// noise, in the candidates' order (`choose` adds its noise in that order, so that a
    /// seed plays as it always has).
    fn values(&mut self, k: &Knowledge, also: Option<&str>) -> Result<Values, ChooseError> {
        let me = k.side();
        if !k.to_act() {
            return Err(ChooseError::NotToAct(me.name(2)));
        }
        let army = k.army();
        let st = style(self.level);
        let games = Sampler::new(k, &self.variant).games(st.samples, &mut self.rng, &self.variant);
        let mut candidates = self.candidates(k, &games);
        if candidates.is_empty() {
            return Err(ChooseError::NoPiece(army.name(2)));
        }
        if let Some(text) = also
            && !candidates.iter().any(|c| c == text)
        {
            candidates.push(text.to_string());
        }
        let forced = army != me;
        // The side that gives the order in the imagined game: under a forced turn the
        // imagined game has the opponent to move, ordering for his own army.
        let actor = if forced { other(me) } else { me };
        let now: f64 = games
            .iter()
            .map(|g| f64::from(self.evaluate(g, me, st)))
            .sum::<f64>()
            / games.len() as f64;
        let mut scored: Vec<(String, f64, Option<f64>, bool)> = Vec::new();
        for c in &candidates {
            let mut ok = Vec::new();
            for g in &games {
                let mut g = g.clone();
                if forced {
                    g = Glass::from_pieces(
                        self.variant.clone(),
                        k.rules(),
                        &pieces(&g),
                        actor,
                        k.view().strikes,
                        &[],
                    );
                }
                let done = match g.order(actor, c) {
                    Ok(report) => !report.told[actor.index()]
                        .iter()
                        .any(|f| matches!(f, Fact::Impossible { .. })),
                    Err(_) => false,
                };
                if done {
                    ok.push(f64::from(self.evaluate(&g, me, st)));
                }
            }
            let risk = 1.0 - ok.len() as f64 / games.len() as f64;
            let mean = (!ok.is_empty()).then(|| ok.iter().sum::<f64>() / ok.len() as f64);
            scored.push((c.clone(), risk, mean, self.blind_pawn(k, c)));
        }
        let safe = scored
            .iter()
            .filter(|s| s.1 == 0.0)
            .filter_map(|s| s.2)
            .fold(f64::NEG_INFINITY, f64::max);
        let fallback = if safe.is_finite() { safe } else { now };
        let cost = if forced {
            // An impossible order for his army hands the choice back to him: he then plays
            // his own best move instead of the bad one we would have chosen.
            f64::from(FORCED_MISS_COST)
        } else if k.rules().no_strikes {
            f64::from(NO_STRIKE_COST)
        } else {
            f64::from(strike_cost(k.view().strikes[me.index()]))
        };
        let last_strike =
            !forced && !k.rules().no_strikes && k.view().strikes[me.index()] + 1 >= STRIKE_LIMIT;
        let undo = if st.sharp && !forced && now > f64::from(AHEAD) {
            self.last_move(k)
        } else {
            None
        };
        let mut ranked: Vec<(String, f64, f64)> = scored
            .into_iter()
            .filter(|s| Some(s.0.as_str()) == also || !(last_strike && (s.1 > 0.0 || s.3)))
            .map(|(text, risk, mean, _)| {
                let mut value = match mean {
                    Some(m) => (1.0 - risk) * m + risk * (fallback - cost),
                    None => fallback - cost,
                };
                if let Some((back, now_at)) = undo
                    && self.goes_back(k, &text, back, now_at)
                {
                    value -= f64::from(UNDO_COST);
                }
                (text, value, risk)
            })
            .collect();
        if ranked.is_empty() {
            // Every order risks the third strike: the least risky one.
            ranked = candidates
                .iter()
                .map(|c| (c.clone(), -WIN as f64, 1.0))
                .collect();
        }
        Ok(Values {
            ranked,
            samples: games.len(),
        })
    }

    /// Every order worth trying: the army's complete moves on the player's own world (the
    /// same in every sample: it sees that world whole), and for its pieces on the other world
    /// every square their movement could aim at, blocked only by its own pieces (a blind
    /// order may be shortened or impossible: that is what the samples measure). When the
    /// player moves the opponent's army (no strikes), his pieces on the other world are
    /// unknown: the moves they have in the samples are tried.
    fn candidates(&self, k: &Knowledge, games: &[Glass]) -> Vec<String> {
        let g = &self.variant.geometry;
        let army = k.army();
        let mine = k.world();
        let hidden = 1 - mine;
        let mut out: Vec<String> = Vec::new();
        let mut push = |t: String| {
            if !out.contains(&t) {
                out.push(t);
            }
        };
        let mut first_world_empty = true;
        if let Some(first) = games.first() {
            for t in first.moves_on(army, mine) {
                first_world_empty = false;
                push(t);
            }
        }
        if army == k.side() {
            for t in blind_orders(&self.variant, army, &k.view().elsewhere) {
                push(t);
            }
        } else {
            let mut any = false;
            for game in games.iter().take(4) {
                for t in game.moves_on(army, hidden) {
                    any = true;
                    push(t);
                }
            }
            if !any
                && first_world_empty
                && let Some(game) = games.first()
            {
                // The samples have him without a move, which the referee says is not so
                // (he would be stalemated): aim his imagined pieces anyway; an impossible
                // order only hands the choice back to him.
                let his: Vec<(Cell, rules::Piece)> = g
                    .cells()
                    .filter(|c| g.info(*c).board == hidden)
                    .filter_map(|c| game.piece_at(c).map(|p| (c, p)))
                    .filter(|(_, p)| p.side == army)
                    .collect();
                for t in blind_orders(&self.variant, army, &his) {
                    push(t);
                }
            }
        }
        out
    }

    /// The player's own last move: the square it came from and where the piece stands now.
    fn last_move(&self, k: &Knowledge) -> Option<(Cell, Cell)> {
        let me = k.side();
        let told = k.told();
        let i = told.iter().rposition(|f| {
            matches!(f, Fact::Seen { piece, .. } | Fact::Carried { piece, .. } if piece.side == me)
        })?;
        let (from, mut at) = match &told[i] {
            Fact::Seen { from, to, .. } | Fact::Carried { from, to, .. } => (*from, *to),
            _ => return None,
        };
        for f in &told[i + 1..] {
            match f {
                Fact::Transferred { from: a, to: b, .. } if *a == at => at = *b,
                Fact::Seen { .. } | Fact::Carried { .. } | Fact::Asked { .. } => break,
                _ => {}
            }
        }
        Some((from, at))
    }

    /// Whether `text` moves the piece now on `now_at` back to the square (either world) it
    /// came from, `back`.
    fn goes_back(&self, k: &Knowledge, text: &str, back: Cell, now_at: Cell) -> bool {
        let g = &self.variant.geometry;
        let Ok(Order::Move { from, to, .. }) = Order::parse(g, k.world(), text) else {
            return false;
        };
        let (a, b) = (g.info(to), g.info(back));
        from == now_at && a.file == b.file && a.rank == b.rank
    }

    /// Whether an order is for a Pawn on the world the player cannot see.
    fn blind_pawn(&self, k: &Knowledge, text: &str) -> bool {
        let g = &self.variant.geometry;
        let Ok(Order::Move { from, .. }) = Order::parse(g, k.world(), text) else {
            return false;
        };
        k.view().elsewhere.iter().any(|(c, p)| {
            *c == from && self.variant.piece(p.kind).letter.eq_ignore_ascii_case(&'P')
        })
    }

    /// A static score of an imagined game for `me`, in centipawns: see [`GlassPlayer::choose`].
    fn evaluate(&self, game: &Glass, me: Side, st: Style) -> i32 {
        let reply = st.reply;
        if let Some(o) = game.is_over() {
            return match o.winner() {
                Some(w) if w == me => WIN,
                Some(_) => -WIN,
                None => 0,
            };
        }
        let v = &self.variant;
        let g = &v.geometry;
        let mut score = 0;
        for c in g.cells() {
            let Some(p) = game.piece_at(c) else { continue };
            let letter = v.piece(p.kind).letter.to_ascii_uppercase();
            let mut s = value(letter);
            if letter == 'P' {
                let r = i32::from(g.info(c).rank);
                s += 6 * if p.side == Side::WHITE { r - 1 } else { 6 - r };
            }
            score += if p.side == me { s } else { -s };
        }
        let moves_of = |side: Side| -> Vec<(u8, String)> {
            [0u8, 1]
                .into_iter()
                .flat_map(|w| game.moves_on(side, w).into_iter().map(move |t| (w, t)))
                .collect()
        };
        let mine = moves_of(me);
        score += 3 * mine.len() as i32;
        if st.sharp {
            let home = world_of(me);
            // His King's squares as order texts name them (`e8`), to find captures of it.
            let mut his_king: Vec<(u8, String)> = Vec::new();
            for c in g.cells() {
                let Some(p) = game.piece_at(c).filter(|p| v.piece(p.kind).royal) else {
                    continue;
                };
                let on_home = g.info(c).board == home;
                if p.side == me && !on_home {
                    score -= KING_EXPOSED;
                } else if p.side != me && on_home {
                    score += KING_EXPOSED;
                }
                if p.side != me {
                    his_king.push((g.info(c).board, g.name(c)[2..].to_string()));
                }
            }
            if game.turn() != me {
                let mut hit = 0;
                for (w, text) in &mine {
                    if !his_king
                        .iter()
                        .any(|(b, sq)| b == w && text.get(4..).is_some_and(|t| t.starts_with(sq)))
                    {
                        continue;
                    }
                    let Ok(Order::Move { to, .. }) = Order::parse(g, *w, text) else {
                        continue;
                    };
                    if game
                        .piece_at(to)
                        .is_some_and(|p| p.side != me && v.piece(p.kind).royal)
                    {
                        hit = hit.max(if *w == home {
                            KING_HIT_SILENT
                        } else {
                            KING_HIT_SEEN
                        });
                    }
                }
                score += hit;
            }
        }
        if reply {
            // The opponent's best capture next move: in full on his own world, where he
            // sees it; at half weight on ours, where he orders blind.
            let to_move = game.turn();
            let his = if to_move == me {
                Vec::new()
            } else {
                moves_of(to_move)
            };
            let mut threat = 0;
            for (w, t) in &his {
                let Ok(Order::Move { to, .. }) = Order::parse(g, *w, t) else {
                    continue;
                };
                let Some(victim) = game.piece_at(to).filter(|p| p.side == me) else {
                    continue;
                };
                let letter = v.piece(victim.kind).letter.to_ascii_uppercase();
                let worth = if letter == 'K' {
                    KING_THREAT
                } else {
                    value(letter) * 4 / 5
                };
                let seen = *w == world_of(to_move);
                threat = threat.max(if seen { worth } else { worth / 2 });
            }
            score -= threat;
        }
        score
    }
}

/// Every piece on the board of an imagined game.
fn pieces(game: &Glass) -> Vec<(Cell, rules::Piece)> {
    game.variant()
        .geometry
        .cells()
        .filter_map(|c| game.piece_at(c).map(|p| (c, p)))
        .collect()
}

/// The orders aiming each of `pieces` (an army's pieces on one world, as its player knows or
/// imagines them) at every square its movement reaches, blocked only by those same pieces; a
/// Pawn reaching the last rank promotes to a Queen.
fn blind_orders(v: &Variant, army: Side, pieces: &[(Cell, rules::Piece)]) -> Vec<String> {
    let g = &v.geometry;
    let cells: Vec<Cell> = pieces.iter().map(|(c, _)| *c).collect();
    let mut out = Vec::new();
    for (from, piece) in pieces {
        let letter = v.piece(piece.kind).letter.to_ascii_uppercase();
        for to in aims(v, army, letter, *from, &cells) {
            let last = g.info(to).rank == if army == Side::WHITE { 7 } else { 0 };
            let order = Order::Move {
                from: *from,
                to,
                promotion: (letter == 'P' && last).then_some('Q'),
            };
            out.push(order.text(g));
        }
    }
    out
}

/// Material values of the FIDE pieces in centipawns (the King's worth is in [`WIN`] and
/// [`KING_THREAT`]).
pub fn value(letter: char) -> i32 {
    match letter {
        'P' => 100,
        'N' => 300,
        'B' => 320,
        'R' => 500,
        'Q' => 900,
        _ => 0,
    }
}

/// The squares a piece of `side` on `from` could be ordered to on its world, blocked only by
/// the cells in `own` (its army's pieces there, which are known; the opponent's are not).
fn aims(v: &Variant, side: Side, letter: char, from: Cell, own: &[Cell]) -> Vec<Cell> {
    let g = &v.geometry;
    let i = g.info(from);
    let at = |dx: i32, dy: i32| g.at(i.board, i.file as i32 + dx, i.rank as i32 + dy);
    let free = |c: &Cell| !own.contains(c);
    let mut out = Vec::new();
    let rays = |dirs: &[(i32, i32)], out: &mut Vec<Cell>| {
        for &(dx, dy) in dirs {
            let mut s = 1;
            while let Some(c) = at(dx * s, dy * s) {
                if !free(&c) {
                    break;
                }
                out.push(c);
                s += 1;
            }
        }
    };
    const ORTHO: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    match letter {
        'R' => rays(&ORTHO, &mut out),
        'B' => rays(&DIAG, &mut out),
        'Q' => {
            rays(&ORTHO, &mut out);
            rays(&DIAG, &mut out);
        }
        'N' => {
            for (dx, dy) in [
                (1, 2),
                (2, 1),
                (-1, 2),
                (-2, 1),
                (1, -2),
                (2, -1),
                (-1, -2),
                (-2, -1),
            ] {
                out.extend(at(dx, dy).filter(free));
            }
        }
        'K' => {
            for (dx, dy) in ORTHO.iter().chain(&DIAG) {
                out.extend(at(*dx, *dy).filter(free));
            }
        }
        'P' => {
            let dir = if side == Side::WHITE { 1 } else { -1 };
            let start = if side == Side::WHITE { 1 } else { 6 };
            if let Some(one) = at(0, dir).filter(free) {
                out.push(one);
                if i.rank == start {
                    out.extend(at(0, 2 * dir).filter(free));
                }
            }
            for dx in [-1, 1] {
                out.extend(at(dx, dir).filter(free));
            }
        }
        _ => {}
    }
    out
}
