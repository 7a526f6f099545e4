//! Evaluation with no per-variant tuning: everything is derived from the variant's own
//! geometry and pieces.
//!
//! - **Piece values** come from each kind's mobility on the variant's board: the average,
//!   over every cell, of the cells it reaches on an empty board ([`rules::Variant::empty_board_reach`],
//!   so holes, wraps and twists count), where a cell `k` steps down a ride counts `(1 - q)^k`
//!   with `q` the chance that a cell on the way is occupied, estimated from the variant's own
//!   start position (60% of its density, as a middlegame thins out). Moves that only move or
//!   only capture count half; a hopper's captures count a quarter. The value is
//!   `VALUE_SCALE * mobility ^ VALUE_POWER`, two constants fitted once on orthodox chess
//!   (they give Knight 3.2, Bishop 3.7, Rook 5.2, Queen 9.5) and used unchanged everywhere.
//!   Pawn-like kinds are the unit (1.0). Royal kinds have no material value: losing them is
//!   the search's business. A `value` key in the variant file overrides the derived value.
//! - **Centralisation**: a piece is worth a little more on cells where it reaches more than
//!   its average, in proportion to its value (the same mobility tables, per cell).
//! - **Pawn advance**: pawn-like pieces gain as their distance (in their own moves) to the
//!   side's promotion zone shrinks.
//! - **Passed pawns**: a pawn-like piece with no enemy pawn-like piece on its way forward
//!   (the cells its quiet moves reach, repeatedly) or where it could be taken there gains a
//!   bonus that grows as it nears promotion.
//! - **King placement**: a royal piece's reach per cell on the empty board, relative to
//!   its average, counts for it as pieces leave the board (the King comes to the centre in
//!   the endgame) and against it, at up to half weight, while most of them remain.
//! - **King safety**: enemy pieces within two royal steps of a royal piece cost in
//!   proportion to their value; own pieces next to it help a little.
//! - **Capture goals** (CoBlaChe): each goal kind already taken from the enemy is a bonus
//!   that grows as the goal nears, and the last goal pieces a side still has are worth more.

use std::sync::Arc;

use rules::{Cell, CellSet, Kind, Position, Side, Variant};

/// Fitted once on orthodox chess (see the module docs); the same for every variant.
const VALUE_SCALE: f32 = 0.51;
/// Fitted once on orthodox chess; slightly above 1, so long-range pieces gain a little more
/// than their mobility.
const VALUE_POWER: f32 = 1.1;
/// Centipawns per pawn.
pub const PAWN: i32 = 100;

/// One piece kind's value as the engine sees it, for display (`rules VARIANT`) and tests.
#[derive(Debug, Clone, PartialEq)]
pub struct PieceValue {
    /// The kind.
    pub kind: Kind,
    /// Its letter.
    pub letter: char,
    /// Its name.
    pub name: String,
    /// Average weighted mobility over the board's cells (see the module docs).
    pub mobility: f32,
    /// The value derived from the mobility, in pawns (pawn-like kinds: 1.0).
    pub derived: f32,
    /// The value the engine uses, in pawns: the variant file's `value` if set, else `derived`.
    pub value: f32,
    /// Whether the variant file's `value` overrides the derived value.
    pub overridden: bool,
    /// Royal: no material value (losing it is checkmate).
    pub royal: bool,
}

/// The value of every piece kind of a variant, in the variant file's order.
///
/// # Examples
///
/// ```
/// let chess = rules::Catalog::builtin().get("chess").unwrap();
/// let values = engine::eval::piece_values(&chess);
/// let queen = values.iter().find(|v| v.letter == 'Q').unwrap();
/// let knight = values.iter().find(|v| v.letter == 'N').unwrap();
/// assert!(queen.derived > 2.5 * knight.derived);
/// ```
pub fn piece_values(v: &Variant) -> Vec<PieceValue> {
    let q = occupancy(v);
    v.kinds()
        .map(|k| {
            let p = v.piece(k);
            let mobility = average_mobility(v, k, q);
            let derived = if p.royal {
                0.0
            } else if p.pawn {
                1.0
            } else {
                VALUE_SCALE * mobility.powf(VALUE_POWER)
            };
            let derived = (derived * 100.0).round() / 100.0;
            PieceValue {
                kind: k,
                letter: p.letter,
                name: p.name.clone(),
                mobility,
                derived,
                value: p.value.unwrap_or(derived),
                overridden: p.value.is_some(),
                royal: p.royal,
            }
        })
        .collect()
}

/// The values as lines a player can read: `Q Queen 9.54 (mobility 14.0)`.
pub fn describe_values(v: &Variant) -> Vec<String> {
    let tuned = crate::tuned::builtin(v);
    piece_values(v)
        .iter()
        .map(|pv| {
            let before = if pv.royal {
                format!(
                    "{} {}: royal (mobility {:.1})",
                    pv.letter, pv.name, pv.mobility
                )
            } else if pv.overridden {
                format!(
                    "{} {}: {:.2} (set by the variant file; derived {:.2})",
                    pv.letter, pv.name, pv.value, pv.derived
                )
            } else {
                format!(
                    "{} {}: {:.2} (mobility {:.1})",
                    pv.letter, pv.name, pv.value, pv.mobility
                )
            };
            let k = pv.kind.index();
            let pawns = |cp: i32| cp as f32 / PAWN as f32;
            match &tuned {
                Some(w) if !pv.royal && w.value[k] > 0 && w.endgame[k] != w.value[k] => format!(
                    "{before}; tuned {:.2}, {:.2} in the endgame",
                    pawns(w.value[k]),
                    pawns(w.endgame[k])
                ),
                Some(w) if !pv.royal && w.value[k] > 0 => {
                    format!("{before}; tuned {:.2}", pawns(w.value[k]))
                }
                _ => before,
            }
        })
        .collect()
}

/// The chance that a cell on a piece's way is occupied: 60% of the start position's density.
fn occupancy(v: &Variant) -> f32 {
    let pieces: u32 = v
        .start_counts
        .iter()
        .flat_map(|c| c.iter())
        .map(|n| *n as u32)
        .sum();
    let cells = v.geometry.len().max(1) as f32;
    (0.6 * pieces as f32 / cells).clamp(0.05, 0.6)
}

/// Weighted reach of one kind (White's frame) from one cell.
fn cell_mobility(v: &Variant, k: Kind, side: Side, c: Cell, q: f32) -> f32 {
    v.empty_board_reach(k, side, c)
        .iter()
        .map(|r| {
            let open = (1.0 - q).powi(r.blockers as i32);
            let w = if r.hop {
                0.25 + if r.moves { 0.5 } else { 0.0 }
            } else {
                match (r.moves, r.captures) {
                    (true, true) => 1.0,
                    _ => 0.5,
                }
            };
            w * open
        })
        .sum()
}

fn average_mobility(v: &Variant, k: Kind, q: f32) -> f32 {
    let n = v.geometry.len().max(1) as f32;
    let total: f32 = v
        .geometry
        .cells()
        .map(|c| cell_mobility(v, k, Side::WHITE, c, q))
        .sum();
    total / n
}

/// The families of positional terms. A tuned evaluation ([`Weights`]) scales each family by
/// one factor; the derived evaluation has every factor 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// A piece on a cell where it reaches more than its average.
    Central = 0,
    /// A pawn-like piece nearer its promotion zone.
    Advance,
    /// A passed pawn-like piece.
    Passed,
    /// The royal piece's placement (centre in the endgame, edge before).
    KingPlace,
    /// Enemy pieces within two royal steps of the royal piece (a cost).
    KingAttack,
    /// Own pieces next to the royal piece.
    KingShelter,
    /// Capture goals taken and guarded (CoBlaChe).
    Goal,
}

/// How many [`Term`] families there are.
pub const TERMS: usize = 7;

impl Term {
    /// Every family, in index order.
    pub const ALL: [Term; TERMS] = [
        Term::Central,
        Term::Advance,
        Term::Passed,
        Term::KingPlace,
        Term::KingAttack,
        Term::KingShelter,
        Term::Goal,
    ];

    /// Its name in a tuned-weights file.
    pub fn name(self) -> &'static str {
        match self {
            Term::Central => "central",
            Term::Advance => "advance",
            Term::Passed => "passed",
            Term::KingPlace => "king_place",
            Term::KingAttack => "king_attack",
            Term::KingShelter => "king_shelter",
            Term::Goal => "goal",
        }
    }

    /// The family named `name`.
    pub fn named(name: &str) -> Option<Term> {
        Term::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The parameters a tuning fits: each kind's material value with the board full and with
/// it emptied of pieces (the evaluation slides from one to the other as pieces leave, a
/// "tapered" evaluation), each term family's scale, and each kind's own share of the
/// centralisation term (a Knight may care about the centre more than a Rook).
/// `Weights::prior` of a variant gives the derived evaluation exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// Centipawns per kind, by kind index (royal kinds: 0), with every piece on the board.
    pub value: Vec<i32>,
    /// Centipawns per kind with no piece but pawns and royals left (the prior: `value`).
    pub endgame: Vec<i32>,
    /// Each [`Term`]'s scale, by index (1.0: as derived).
    pub scale: [f32; TERMS],
    /// Per kind, a factor on [`Term::Central`]'s scale for pieces of that kind (1.0: the
    /// family's scale alone).
    pub central: Vec<f32>,
}

impl Weights {
    /// The derived evaluation's parameters: the values of [`piece_values`] (a variant file's
    /// `value` included) in the middlegame and the endgame alike, and every scale 1.
    pub fn prior(v: &Variant) -> Weights {
        let mut value = vec![0; v.pieces.len()];
        for pv in piece_values(v) {
            value[pv.kind.index()] = (pv.value * PAWN as f32).round() as i32;
        }
        Weights {
            endgame: value.clone(),
            central: vec![1.0; value.len()],
            value,
            scale: [1.0; TERMS],
        }
    }

    /// The weights as the linear model's coefficients, in the order of
    /// [`Features::difference`]: values, endgame values, term scales, then each kind's
    /// centralisation coefficient (the family's scale times the kind's factor).
    pub fn theta(&self) -> Vec<f64> {
        let central = f64::from(self.scale[Term::Central as usize]);
        self.value
            .iter()
            .chain(&self.endgame)
            .map(|v| f64::from(*v))
            .chain(self.scale.iter().map(|s| f64::from(*s)))
            .chain(self.central.iter().map(|f| central * f64::from(*f)))
            .collect()
    }

    /// The weights of coefficients `theta` (as [`Weights::theta`] orders them): values
    /// rounded to the centipawn, scales and factors to a thousandth. The centralisation
    /// family's scale stays this one's; each kind's factor takes its coefficient.
    pub fn with_theta(&self, theta: &[f64]) -> Weights {
        let nk = self.value.len();
        let mut scale = self.scale;
        for (t, s) in scale.iter_mut().enumerate() {
            if t != Term::Central as usize {
                *s = thousandths(theta[2 * nk + t]);
            }
        }
        // A family scale of 0 would leave no factor to carry the coefficients: it becomes 1.
        let central = &mut scale[Term::Central as usize];
        if *central <= 0.0 {
            *central = 1.0;
        }
        let family = f64::from(*central);
        Weights {
            value: theta[..nk].iter().map(|v| v.round() as i32).collect(),
            endgame: theta[nk..2 * nk].iter().map(|v| v.round() as i32).collect(),
            scale,
            central: theta[2 * nk + TERMS..]
                .iter()
                .map(|c| thousandths(c / family))
                .collect(),
        }
    }
}

/// `x` rounded to a thousandth, as a tuned file keeps it.
fn thousandths(x: f64) -> f32 {
    ((x * 1000.0).round() / 1000.0) as f32
}

/// Fixed-point scale: a term's scale times this, so that a scale of 1 adds the term exactly.
const SCALE_ONE: i64 = 1024;

/// `unit` times a fixed-point `scale`, rounded to the nearest centipawn (exact at scale 1).
#[inline]
fn scaled(unit: i32, scale: i64) -> i32 {
    ((i64::from(unit) * scale + SCALE_ONE / 2) >> 10) as i32
}

/// Everything the evaluation needs about one variant, computed once (a few milliseconds even
/// on the largest boards) and shared between searches.
#[derive(Debug)]
pub struct Evaluator {
    variant: Arc<Variant>,
    ncells: usize,
    sides: usize,
    /// Centipawns per kind: the material the evaluation counts (tuned, or the prior), with
    /// every piece on the board.
    value: Vec<i32>,
    /// Per kind: the endgame value minus `value` (zero unless tuned so).
    endgame_gain: Vec<i32>,
    /// Per kind: its factor on the centralisation family's scale.
    central_factor: Vec<f32>,
    /// Centipawns per kind as derived (or set by the variant file): what the positional
    /// terms are measured in, so that each stays one linear feature when values are tuned.
    prior: Vec<i32>,
    /// `(side * nkinds + kind) * ncells + cell`: centralisation, centipawns at scale 1.
    central: Vec<i32>,
    /// Same index: pawn advance, centipawns at scale 1.
    advance: Vec<i32>,
    /// Same index: `central` and `advance` with their scales, added: what a search reads.
    square: Vec<i32>,
    nkinds: usize,
    /// Per cell: the cells within two royal steps (the King's zone).
    zone: Vec<CellSet>,
    /// Per cell: the cells one royal step away.
    near: Vec<CellSet>,
    royal_kinds: u32,
    goal: Vec<Kind>,
    /// Two sides only, same index as `square`, pawn-like kinds only: the cells an enemy
    /// pawn-like piece on which stops this one from being passed (see [`passed_spans`]).
    span: Vec<CellSet>,
    /// Same index: the passed-pawn bonus, centipawns at scale 1.
    passed: Vec<i32>,
    /// Pawn-like kinds (bit per kind).
    pawn_kinds: u32,
    /// `side * ncells + cell`: the royal piece's centralisation, centipawns (endgame sign).
    king_square: Vec<i32>,
    /// Both sides' pieces other than pawns and royals at the start, centipawns (prior).
    start_material: i32,
    /// Each term's scale in 1/[`SCALE_ONE`].
    scale: [i64; TERMS],
    /// Built from tuned weights rather than derived.
    tuned: bool,
}

/// Where [`Evaluator::accumulate`] puts what it finds: the search's scores, or a tuning's
/// features. One walk over the board serves both, so the two cannot disagree.
trait Sink {
    /// A piece of `kind` of side `s`; `i` indexes the per-side, per-kind, per-cell tables.
    fn piece(&mut self, e: &Evaluator, s: usize, kind: usize, i: usize);
    /// `unit` centipawns of `term` for side `s`, at scale 1.
    fn term(&mut self, e: &Evaluator, s: usize, term: Term, unit: i32);
    /// How much of the game's middlegame is left, in 1/[`SCALE_ONE`]: [`SCALE_ONE`] with all
    /// the pieces (other than pawns and royals) of the start on the board, 0 with none.
    /// Called once, after every piece.
    fn phase(&mut self, e: &Evaluator, middlegame: i64);
}

/// The search's sink: each side's total with the evaluator's weights, and what its pieces
/// gain in the endgame (counted in as the middlegame wanes).
struct Scores {
    total: [i32; 4],
    endgame_gain: [i32; 4],
}

impl Sink for Scores {
    #[inline]
    fn piece(&mut self, e: &Evaluator, s: usize, kind: usize, i: usize) {
        self.total[s] += e.value[kind] + e.square[i];
        self.endgame_gain[s] += e.endgame_gain[kind];
    }

    #[inline]
    fn term(&mut self, e: &Evaluator, s: usize, term: Term, unit: i32) {
        self.total[s] += scaled(unit, e.scale[term as usize]);
    }

    #[inline]
    fn phase(&mut self, _: &Evaluator, middlegame: i64) {
        for (t, g) in self.total.iter_mut().zip(self.endgame_gain) {
            *t += scaled(g, SCALE_ONE - middlegame);
        }
    }
}

/// A tuning's sink: per side, how many pieces of each kind, each term at scale 1, and each
/// kind's share of the centralisation term.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// `[side][kind]`: pieces on the board.
    pub pieces: Vec<Vec<i32>>,
    /// `[side][term]`: the term's centipawns at scale 1.
    pub terms: Vec<[i32; TERMS]>,
    /// `[side][kind]`: the centralisation of that kind's pieces, centipawns at scale 1 (the
    /// parts of `terms`' [`Term::Central`]).
    pub central: Vec<Vec<i32>>,
    /// How much of the middlegame is left: 1 with every piece of the start, 0 with none
    /// (see [`Weights::endgame`]).
    pub middlegame: f64,
}

impl Sink for Features {
    fn piece(&mut self, e: &Evaluator, s: usize, kind: usize, i: usize) {
        self.pieces[s][kind] += 1;
        self.terms[s][Term::Central as usize] += e.central[i];
        self.central[s][kind] += e.central[i];
        self.terms[s][Term::Advance as usize] += e.advance[i];
    }

    fn term(&mut self, _: &Evaluator, s: usize, term: Term, unit: i32) {
        self.terms[s][term as usize] += unit;
    }

    fn phase(&mut self, _: &Evaluator, middlegame: i64) {
        self.middlegame = middlegame as f64 / SCALE_ONE as f64;
    }
}

impl Features {
    /// The first side's view of a two-sided position: its features minus the second's, as
    /// one vector in the order of [`Weights::theta`]. The dot product of the two is the
    /// evaluation (to rounding):
    ///
    /// - per kind, the balance of pieces times the middlegame left (against the values);
    /// - per kind, the balance times the endgame reached (against the endgame values);
    /// - per term, the balance at scale 1 (against the scales), but 0 for
    ///   [`Term::Central`], whose parts follow:
    /// - per kind, the balance of its centralisation (against its coefficient).
    pub fn difference(&self) -> Vec<f64> {
        let count = |k: usize| f64::from(self.pieces[0][k] - self.pieces[1][k]);
        let nk = self.pieces[0].len();
        let mut out: Vec<f64> = (0..nk).map(|k| count(k) * self.middlegame).collect();
        out.extend((0..nk).map(|k| count(k) * (1.0 - self.middlegame)));
        out.extend(Term::ALL.iter().map(|&t| {
            if t == Term::Central {
                0.0
            } else {
                f64::from(self.terms[0][t as usize] - self.terms[1][t as usize])
            }
        }));
        out.extend((0..nk).map(|k| f64::from(self.central[0][k] - self.central[1][k])));
        out
    }
}

impl Evaluator {
    /// The evaluation of a variant: tuned when the engine carries weights fitted for it
    /// ([`crate::tuned::builtin`]), derived otherwise.
    pub fn new(variant: &Arc<Variant>) -> Evaluator {
        match crate::tuned::builtin(variant) {
            Some(w) => Evaluator::with_weights(variant, &w),
            None => Evaluator::derived(variant),
        }
    }

    /// The derived evaluation (no tuned weights), the prior of every tuning.
    pub fn derived(variant: &Arc<Variant>) -> Evaluator {
        let mut e = Evaluator::with_weights(variant, &Weights::prior(variant));
        e.tuned = false;
        e
    }

    /// The evaluation with `weights` (a [`Weights::prior`] of this variant, changed by a
    /// tuning). A value list of another length than the variant's kinds is ignored.
    pub fn with_weights(variant: &Arc<Variant>, weights: &Weights) -> Evaluator {
        let v = &**variant;
        let ncells = v.geometry.len();
        let sides = v.sides as usize;
        let nkinds = v.pieces.len();
        let q = occupancy(v);
        let values = piece_values(v);
        // The positional terms are measured in the prior values; only the material counted
        // is the weights' own.
        let mut prior = vec![0; nkinds];
        for pv in &values {
            prior[pv.kind.index()] = (pv.value * PAWN as f32).round() as i32;
        }
        let mut value = prior.clone();
        let mut endgame_gain = vec![0; nkinds];
        let mut central_factor = vec![1.0f32; nkinds];
        if weights.value.len() == nkinds {
            for pv in &values {
                let k = pv.kind.index();
                if !pv.royal {
                    value[k] = weights.value[k];
                    if let Some(e) = weights.endgame.get(k) {
                        endgame_gain[k] = e - value[k];
                    }
                }
                if let Some(f) = weights.central.get(k) {
                    central_factor[k] = *f;
                }
            }
        }
        let scale = weights
            .scale
            .map(|w| (f64::from(w) * SCALE_ONE as f64).round() as i64);
        let mut central = vec![0; sides * nkinds * ncells];
        let mut advance = vec![0; sides * nkinds * ncells];
        let two = sides == 2;
        let mut king_square = vec![0; sides * ncells];
        let start_material: i32 = (0..sides)
            .map(|s| {
                values
                    .iter()
                    .filter(|p| !p.royal && !v.piece(p.kind).pawn)
                    .map(|p| prior[p.kind.index()] * v.start_counts[s][p.kind.index()] as i32)
                    .sum::<i32>()
            })
            .sum();
        let mut span = vec![CellSet::EMPTY; if two { sides * nkinds * ncells } else { 0 }];
        let mut passed = vec![0; if two { sides * nkinds * ncells } else { 0 }];
        for s in 0..sides {
            let side = Side(s as u8);
            let zone = v.promotion.zone(s);
            for pv in &values {
                let k = pv.kind;
                let base = (s * nkinds + k.index()) * ncells;
                if pv.royal {
                    // The King: central cells in the endgame, out of the way before it.
                    let per: Vec<f32> = v
                        .geometry
                        .cells()
                        .map(|c| cell_mobility(v, k, side, c, 0.0))
                        .collect();
                    let avg = per.iter().sum::<f32>() / ncells.max(1) as f32;
                    for (c, m) in per.iter().enumerate() {
                        let rel = if avg > 0.0 { (m - avg) / avg } else { 0.0 };
                        king_square[s * ncells + c] = (rel * 100.0).clamp(-50.0, 50.0) as i32;
                    }
                    continue;
                }
                let per: Vec<f32> = v
                    .geometry
                    .cells()
                    .map(|c| cell_mobility(v, k, side, c, q))
                    .collect();
                let avg = per.iter().sum::<f32>() / ncells.max(1) as f32;
                let weight = if v.piece(k).pawn { 0.1 } else { 0.12 };
                for (c, m) in per.iter().enumerate() {
                    let rel = if avg > 0.0 { (m - avg) / avg } else { 0.0 };
                    central[base + c] =
                        (rel.clamp(-1.0, 1.0) * weight * prior[k.index()] as f32).round() as i32;
                }
                if v.piece(k).pawn && !zone.is_empty() {
                    let dist = promotion_distance(v, k, side, &zone);
                    let far = dist
                        .iter()
                        .filter(|d| **d < u8::MAX)
                        .max()
                        .copied()
                        .unwrap_or(0);
                    for (c, d) in dist.iter().enumerate() {
                        if *d == u8::MAX || far == 0 {
                            continue;
                        }
                        let gained = 1.0 - *d as f32 / far as f32;
                        advance[base + c] = (90.0 * gained * gained) as i32;
                        if two {
                            passed[base + c] = (10.0 + 110.0 * gained * gained) as i32;
                        }
                    }
                    if two {
                        let spans = passed_spans(v, k, side);
                        span[base..base + ncells].copy_from_slice(&spans);
                    }
                }
            }
        }
        let royal_kinds = values
            .iter()
            .filter(|p| p.royal)
            .fold(0, |m, p| m | 1 << p.kind.0);
        let royal = values.iter().find(|p| p.royal).map(|p| p.kind);
        let mut near = vec![CellSet::EMPTY; ncells];
        let mut zone = vec![CellSet::EMPTY; ncells];
        if let Some(k) = royal {
            for c in v.geometry.cells() {
                for r in v.empty_board_reach(k, Side::WHITE, c) {
                    near[c.index()].insert(r.cell);
                }
            }
            for c in 0..ncells {
                let mut z = near[c];
                for n in near[c].iter() {
                    for m in near[n.index()].iter() {
                        z.insert(m);
                    }
                }
                z.remove(Cell(c as u8));
                zone[c] = z;
            }
        }
        // Each kind's centralisation scale: the family's times the kind's factor.
        let central_scale: Vec<i64> = central_factor
            .iter()
            .map(|f| {
                (f64::from(weights.scale[Term::Central as usize])
                    * f64::from(*f)
                    * SCALE_ONE as f64)
                    .round() as i64
            })
            .collect();
        let square = central
            .iter()
            .zip(&advance)
            .enumerate()
            .map(|(i, (c, a))| {
                let kind = i / ncells % nkinds;
                scaled(*c, central_scale[kind]) + scaled(*a, scale[Term::Advance as usize])
            })
            .collect();
        Evaluator {
            variant: variant.clone(),
            ncells,
            sides,
            value,
            endgame_gain,
            central_factor,
            prior,
            central,
            advance,
            square,
            scale,
            tuned: true,
            nkinds,
            zone,
            near,
            royal_kinds,
            goal: v.capture_goal.clone(),
            span,
            passed,
            king_square,
            start_material,
            pawn_kinds: values
                .iter()
                .filter(|p| v.piece(p.kind).pawn)
                .fold(0, |m, p| m | 1 << p.kind.0),
        }
    }

    /// The variant this evaluator was built for.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// A kind's value in centipawns (0 for royal kinds).
    #[inline]
    pub fn value(&self, kind: Kind) -> i32 {
        self.value[kind.index()]
    }

    /// The static score of `pos` for `side`, in centipawns: positive is good for `side`.
    ///
    /// With four sides it is `side`'s own total against the mean of the others still in the
    /// game (the two-team view of the weaker levels' paranoid search: see [`crate::search`];
    /// Best-Reply Search weighs the leading opponent in too, from [`Evaluator::side_scores`]).
    pub fn evaluate(&self, pos: &Position, side: Side) -> i32 {
        let score = self.side_scores(pos);
        let me = side.index();
        if self.sides == 2 {
            return score[me] - score[1 - me];
        }
        let others: Vec<usize> = (0..self.sides)
            .filter(|s| *s != me && !pos.is_out(Side(*s as u8)))
            .collect();
        if others.is_empty() {
            return score[me];
        }
        score[me] - others.iter().map(|s| score[*s]).sum::<i32>() / others.len() as i32
    }

    /// Each side's own total (material, placement, King safety), centipawns, by side index.
    pub fn side_scores(&self, pos: &Position) -> [i32; 4] {
        let mut scores = Scores {
            total: [0; 4],
            endgame_gain: [0; 4],
        };
        self.accumulate(pos, &mut scores);
        scores.total
    }

    /// What a tuning fits against: each side's pieces and each term at scale 1 (see
    /// [`Features::difference`]). Meaningful for any evaluator of the variant: the terms are
    /// measured in the prior's values, whatever the weights.
    pub fn features(&self, pos: &Position) -> Features {
        let mut f = Features {
            pieces: vec![vec![0; self.nkinds]; self.sides],
            terms: vec![[0; TERMS]; self.sides],
            central: vec![vec![0; self.nkinds]; self.sides],
            middlegame: 1.0,
        };
        self.accumulate(pos, &mut f);
        f
    }

    /// Whether this evaluation uses tuned weights.
    pub fn is_tuned(&self) -> bool {
        self.tuned
    }

    /// The weights in use (for a tuning's starting point and for display).
    pub fn weights(&self) -> Weights {
        Weights {
            value: self.value.clone(),
            endgame: self
                .value
                .iter()
                .zip(&self.endgame_gain)
                .map(|(v, g)| v + g)
                .collect(),
            scale: self.scale.map(|s| s as f32 / SCALE_ONE as f32),
            central: self.central_factor.clone(),
        }
    }

    /// One walk over the board: every piece and every term, into `sink`.
    #[inline]
    fn accumulate<S: Sink>(&self, pos: &Position, sink: &mut S) {
        let mut royal_at = [None; 4];
        let mut pawns = [CellSet::EMPTY; 2];
        let mut material = 0;
        let mut occupied = CellSet::EMPTY;
        for s in 0..self.sides {
            let cells = pos.occupied(Side(s as u8));
            occupied = occupied.union(&cells);
            for c in cells.iter() {
                let Some(p) = pos.piece_at(c) else { continue };
                let k = p.kind.index();
                sink.piece(self, s, k, (s * self.nkinds + k) * self.ncells + c.index());
                if self.royal_kinds >> p.kind.0 & 1 != 0 {
                    royal_at[s] = Some(c);
                }
                if self.pawn_kinds >> p.kind.0 & 1 != 0 {
                    if s < 2 {
                        pawns[s].insert(c);
                    }
                } else {
                    material += self.prior[k];
                }
            }
        }
        // The middlegame left: what remains of the start's pieces (pawns and royals aside).
        let middlegame = if self.start_material > 0 {
            (i64::from(material) * SCALE_ONE / i64::from(self.start_material)).min(SCALE_ONE)
        } else {
            SCALE_ONE
        };
        sink.phase(self, middlegame);
        // The King comes to the centre as pieces leave the board (full weight when none are
        // left, none at two thirds), and keeps to the edge (up to half weight) before that.
        if self.start_material > 0 {
            let left = material as f32 / self.start_material as f32;
            let w = 1.0 - 1.5 * left.min(1.0);
            for (s, at) in royal_at.iter().enumerate().take(self.sides) {
                if let Some(k) = *at {
                    let sq = self.king_square[s * self.ncells + k.index()] as f32;
                    sink.term(self, s, Term::KingPlace, (sq * w.max(-0.5)) as i32);
                }
            }
        }
        // Passed pawns: no enemy pawn-like piece on the cells ahead that could stop them.
        if !self.span.is_empty() {
            for s in 0..2 {
                let enemy = &pawns[1 - s].0;
                for c in pawns[s].iter() {
                    let Some(p) = pos.piece_at(c) else { continue };
                    let i = (s * self.nkinds + p.kind.index()) * self.ncells + c.index();
                    let span = &self.span[i].0;
                    if (0..4).all(|w| span[w] & enemy[w] == 0) {
                        sink.term(self, s, Term::Passed, self.passed[i]);
                    }
                }
            }
        }
        // King safety: attackers near each royal piece, shelter right next to it. Only the
        // occupied cells of the zone are visited, a few look-ups per King.
        for (s, at) in royal_at.iter().enumerate().take(self.sides) {
            let Some(k) = *at else { continue };
            let near = &self.near[k.index()];
            for c in self.zone[k.index()].intersection(&occupied).iter() {
                let Some(p) = pos.piece_at(c) else { continue };
                if self.royal_kinds >> p.kind.0 & 1 != 0 {
                    continue;
                }
                if p.side.index() == s {
                    if near.contains(c) {
                        sink.term(self, s, Term::KingShelter, 6);
                    }
                } else {
                    sink.term(
                        self,
                        s,
                        Term::KingAttack,
                        -(4 + self.prior[p.kind.index()] / 12),
                    );
                }
            }
        }
        if !self.goal.is_empty() && self.sides == 2 {
            for s in 0..2 {
                let enemy = Side(1 - s as u8);
                let v = &*self.variant;
                let taken = self
                    .goal
                    .iter()
                    .filter(|k| pos.count(enemy, **k) < v.start_counts[enemy.index()][k.index()])
                    .count() as i32;
                let mut goal = 30 * taken * taken;
                // The last pieces of a goal kind guard the game itself.
                for k in &self.goal {
                    if pos.count(Side(s as u8), *k) == 1 {
                        goal += 40 + 10 * taken;
                    }
                }
                sink.term(self, s, Term::Goal, goal);
            }
        }
    }
}

/// Per cell, for a pawn-like kind of `side`: the cells of its way forward (every cell its
/// quiet moves reach, repeatedly, on an empty board) and the cells it could capture on from
/// there. An enemy pawn-like piece on any of them can block or take it; with none there the
/// piece is passed. In orthodox chess this is the file ahead and the two files beside it.
fn passed_spans(v: &Variant, k: Kind, side: Side) -> Vec<CellSet> {
    let n = v.geometry.len();
    let reach: Vec<Vec<rules::Reach>> = v
        .geometry
        .cells()
        .map(|c| v.empty_board_reach(k, side, c))
        .collect();
    (0..n)
        .map(|start| {
            let mut path = CellSet::EMPTY;
            let mut todo = vec![start];
            let mut span = CellSet::EMPTY;
            while let Some(c) = todo.pop() {
                for r in &reach[c] {
                    if r.captures {
                        span.insert(r.cell);
                    }
                    if r.moves && !path.contains(r.cell) && r.cell.index() != start {
                        path.insert(r.cell);
                        todo.push(r.cell.index());
                    }
                }
            }
            for c in path.iter() {
                span.insert(c);
            }
            span.remove(Cell(start as u8));
            span
        })
        .collect()
}

/// Per cell, how many of its own moves a pawn-like piece needs to reach `zone` on an empty
/// board (`u8::MAX`: never).
fn promotion_distance(v: &Variant, k: Kind, side: Side, zone: &CellSet) -> Vec<u8> {
    let n = v.geometry.len();
    let reach: Vec<Vec<Cell>> = v
        .geometry
        .cells()
        .map(|c| {
            v.empty_board_reach(k, side, c)
                .iter()
                .map(|r| r.cell)
                .collect()
        })
        .collect();
    let mut dist = vec![u8::MAX; n];
    for c in zone.iter() {
        dist[c.index()] = 0;
    }
    loop {
        let mut changed = false;
        for c in 0..n {
            let best = reach[c]
                .iter()
                .map(|r| dist[r.index()])
                .min()
                .unwrap_or(u8::MAX);
            if best < u8::MAX && best + 1 < dist[c] {
                dist[c] = best + 1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    dist
}
