//! The tuning pipeline: the evaluation's weights fitted to a variant from its own games.
//!
//! 1. **Games** ([`self_play`]): the engine plays the variant against itself at a small node
//!    budget, each game from a few random opening moves (seeded by the game's number, so the
//!    games are the same on every machine and however many threads play them). A game that
//!    reaches the ply cap is adjudicated by the derived evaluation (a side 3 pawns up wins,
//!    anything closer is a draw).
//! 2. **Positions**: every position after the opening in which the side to move is not in
//!    check and the engine's move is not a capture or a promotion (a quiet position, whose
//!    static evaluation means something), labelled with the game's result for the first
//!    side (1, ½ or 0), or with a blend of it and the engine's search score of the position
//!    on the Elo curve ([`PlayOptions::result_weight`]). Each becomes its [`Features`]
//!    difference: the material balance of every kind (split between the middlegame and the
//!    endgame by the material left), each positional term at scale 1, and each kind's share
//!    of the centralisation term.
//! 3. **Fit** ([`fit`]): Texel's method. The evaluation is linear in its weights (each kind's
//!    two values, each term's scale and each kind's centralisation factor: [`Weights::theta`]),
//!    so the predicted score of position *i* is
//!    `W(K · θ·xᵢ)`, with `W` the Elo curve `1 / (1 + 10^(-cp/400))`. `K` is fitted first with
//!    the prior weights (it absorbs the scale of the engine's centipawns against the games'
//!    results), then θ minimises the mean squared error between predictions and results plus
//!    a pull toward the prior (`prior_pull · Σ((θ - θ₀) / s)²`, `s` a pawn's worth or the
//!    value for a kind, 1 for a scale): where the games say little, the derived value
//!    stays. Adam, full batch, a fixed number of steps: the same numbers on every machine.
//!
//! Two-sided variants only: a four-player position has no single result to fit.
//! `engine-tune` runs the pipeline and writes the file [`crate::tuned`] reads.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicU32, Ordering},
};

use rules::{Outcome, Position, Side, Variant};

use crate::{
    eval::{Evaluator, TERMS, Term, Weights},
    level::{Level, Player, Rng},
    search::Limits,
};

/// One labelled position: its feature difference and the game's result for the first side.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// [`crate::eval::Features::difference`].
    pub x: Vec<f64>,
    /// 1 (first side won), 0.5 or 0.
    pub result: f64,
}

/// How the games are played.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// Games to play.
    pub games: u32,
    /// Nodes per move.
    pub nodes: u64,
    /// Random moves at the start of each game.
    pub opening_plies: u32,
    /// A game longer than this is adjudicated.
    pub max_plies: u32,
    /// Seeds the openings and the players.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
    /// How much of a position's label is the game's result; the rest is the engine's own
    /// search score of it, on the Elo curve (1: results only). On a large board a game at a
    /// small budget is decided by a late blunder more than by the position, and the search's
    /// score says more of the position itself.
    pub result_weight: f64,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            games: 400,
            nodes: 3_000,
            opening_plies: 8,
            max_plies: 300,
            seed: 1,
            threads: 1,
            result_weight: 1.0,
        }
    }
}

/// What the games gave.
#[derive(Debug, Clone, Default)]
pub struct Games {
    /// The labelled positions, game by game.
    pub samples: Vec<Sample>,
    /// First side's wins, draws, losses.
    pub results: [u32; 3],
    /// Games adjudicated at the ply cap.
    pub adjudicated: u32,
}

/// Why the pipeline cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TuneError {
    /// More than two sides.
    #[error("{0} has {1} sides: tuning fits two-sided variants (one result per position)")]
    Sides(String, u8),
    /// No game gave a quiet position.
    #[error("the games gave no position to fit (play more games)")]
    NoSamples,
}

/// One game's part: its number, its quiet positions' features, its result for the first
/// side, and whether it was adjudicated.
struct Played {
    game: u32,
    /// Each quiet position's features and the search's score of it on the Elo curve.
    xs: Vec<(Vec<f64>, f64)>,
    result: f64,
    capped: bool,
}

/// A pawn lead at which a capped game counts as won.
const ADJUDICATE_CP: i32 = 300;

/// Plays the games of step 1 with `eval` and labels their quiet positions (step 2).
///
/// # Errors
/// [`TuneError::Sides`] for a variant of more than two sides.
pub fn self_play(eval: &Arc<Evaluator>, opts: &PlayOptions) -> Result<Games, TuneError> {
    self_play_reporting(eval, opts, &|_| {})
}

/// [`self_play`], calling `finished(n)` as the `n`th game ends (from the playing threads).
///
/// # Errors
/// [`TuneError::Sides`] for a variant of more than two sides.
pub fn self_play_reporting(
    eval: &Arc<Evaluator>,
    opts: &PlayOptions,
    finished: &(dyn Fn(u32) + Sync),
) -> Result<Games, TuneError> {
    let variant = eval.variant().clone();
    if variant.sides != 2 {
        return Err(TuneError::Sides(variant.name.clone(), variant.sides));
    }
    let derived = Evaluator::derived(&variant);
    let next = AtomicU32::new(0);
    let done: Mutex<Vec<Played>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..opts.threads.max(1) {
            scope.spawn(|| {
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= opts.games {
                        return;
                    }
                    let (xs, result, capped) = one_game(eval, &derived, &variant, opts, g);
                    let mut done = done.lock().unwrap_or_else(|e| e.into_inner());
                    finished(done.len() as u32 + 1);
                    done.push(Played {
                        game: g,
                        xs,
                        result,
                        capped,
                    });
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|d| d.game);
    let mut out = Games::default();
    for Played {
        xs, result, capped, ..
    } in done
    {
        out.results[match result {
            r if r > 0.75 => 0,
            r if r < 0.25 => 2,
            _ => 1,
        }] += 1;
        out.adjudicated += u32::from(capped);
        let w = opts.result_weight.clamp(0.0, 1.0);
        out.samples
            .extend(xs.into_iter().map(|(x, searched)| Sample {
                x,
                result: w * result + (1.0 - w) * searched,
            }));
    }
    Ok(out)
}

/// Game `g`: its quiet positions' features, its result for the first side, whether capped.
fn one_game(
    eval: &Arc<Evaluator>,
    derived: &Evaluator,
    variant: &Arc<Variant>,
    opts: &PlayOptions,
    g: u32,
) -> (Vec<(Vec<f64>, f64)>, f64, bool) {
    let seed = opts.seed ^ u64::from(g).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng::new(seed);
    let mut player = Player::with_hash(eval.clone(), Level::MAX, seed, 2);
    let limits = Limits {
        nodes: Some(opts.nodes),
        ..Limits::default()
    };
    let mut pos = Position::start(variant);
    let mut xs = Vec::new();
    for ply in 0..opts.max_plies {
        if let Some(o) = pos.outcome() {
            return (xs, result_of(&o), false);
        }
        let m = if ply < opts.opening_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            moves[rng.below(moves.len() as u64) as usize]
        } else {
            let found = player.choose_with_result(&mut pos, &limits);
            let Some(m) = found.best else {
                break;
            };
            if !pos.in_check(pos.turn()) && !m.is_capture() && m.promotion.is_none() {
                let mine = found.score.clamp(-2_000, 2_000);
                let white = if pos.turn() == Side::WHITE {
                    mine
                } else {
                    -mine
                };
                xs.push((
                    derived.features(&pos).difference(),
                    curve(1.0, f64::from(white)),
                ));
            }
            m
        };
        pos.play_unchecked(m);
    }
    if let Some(o) = pos.outcome() {
        return (xs, result_of(&o), false);
    }
    let cp = derived.evaluate(&pos, Side::WHITE);
    let r = if cp >= ADJUDICATE_CP {
        1.0
    } else if cp <= -ADJUDICATE_CP {
        0.0
    } else {
        0.5
    };
    (xs, r, true)
}

/// The first side's points for a finished game (also the opening books' judge).
pub(crate) fn result_of(o: &Outcome) -> f64 {
    match o {
        Outcome::Win { winner, .. } if *winner == Side::WHITE => 1.0,
        Outcome::Win { .. } => 0.0,
        Outcome::Draw(_) => 0.5,
    }
}

/// How the fit runs.
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// Adam steps over the whole set.
    pub steps: usize,
    /// The pull toward the prior (see the module docs).
    pub prior_pull: f64,
    /// Adam's step size, in units of each parameter's scale.
    pub rate: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            steps: 2_000,
            prior_pull: 1e-4,
            rate: 0.01,
        }
    }
}

/// A fit's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The fitted weights.
    pub weights: Weights,
    /// The scale fitted with the prior: `W(K · cp)`.
    pub k: f64,
    /// Mean squared error of the prior weights.
    pub error_prior: f64,
    /// Mean squared error of the fitted weights.
    pub error: f64,
}

/// The Elo curve at `k · cp`.
fn curve(k: f64, cp: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * cp / 400.0))
}

fn mse(samples: &[Sample], theta: &[f64], k: f64) -> f64 {
    samples
        .iter()
        .map(|s| {
            let e: f64 = s.x.iter().zip(theta).map(|(x, t)| x * t).sum();
            (s.result - curve(k, e)).powi(2)
        })
        .sum::<f64>()
        / samples.len().max(1) as f64
}

/// What a coefficient of [`Weights::theta`] is.
#[derive(Clone, Copy)]
enum Param {
    /// A kind's value (middlegame or endgame).
    Value(usize),
    /// A term family's scale.
    Scale(usize),
    /// A kind's centralisation coefficient.
    Central(usize),
}

/// Fits `variant`'s weights to `samples`, starting from and pulled toward `prior`
/// (step 3).
///
/// # Errors
/// [`TuneError::NoSamples`] without samples.
pub fn fit(
    variant: &Variant,
    prior: &Weights,
    samples: &[Sample],
    opts: &FitOptions,
) -> Result<Fit, TuneError> {
    if samples.is_empty() {
        return Err(TuneError::NoSamples);
    }
    let nk = prior.value.len();
    let theta0 = prior.theta();
    let n = theta0.len();
    // The coefficients' kinds, in the order of `Weights::theta`.
    let param = |j: usize| {
        if j < 2 * nk {
            Param::Value(j % nk)
        } else if j < 2 * nk + TERMS {
            Param::Scale(j - 2 * nk)
        } else {
            Param::Central(j - 2 * nk - TERMS)
        }
    };
    // What may move: the values of kinds that have one (not royal, not a value-less marker
    // kind), every scale but the centralisation family's (its kinds' coefficients carry
    // it), and the centralisation of kinds that are not royal.
    let free: Vec<bool> = (0..n)
        .map(|j| match param(j) {
            Param::Value(k) => !variant.pieces[k].royal && theta0[j] > 0.0,
            Param::Scale(t) => t != Term::Central as usize,
            Param::Central(k) => !variant.pieces[k].royal,
        })
        .collect();
    let unit: Vec<f64> = (0..n)
        .map(|j| match param(j) {
            Param::Value(_) => theta0[j].abs().max(100.0),
            _ => 1.0,
        })
        .collect();
    // K: a golden-section search of the prior's error on (0.05, 4).
    let (mut lo, mut hi) = (0.05f64, 4.0f64);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (a, b) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
        if mse(samples, &theta0, a) < mse(samples, &theta0, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    let k = (lo + hi) / 2.0;
    let error_prior = mse(samples, &theta0, k);
    // Adam over u, with θ = θ₀ + unit ∘ u.
    let mut u = vec![0f64; n];
    let (mut m1, mut m2) = (vec![0f64; n], vec![0f64; n]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12f64);
    let c = k * std::f64::consts::LN_10 / 400.0;
    let inv = 1.0 / samples.len() as f64;
    let mut theta = theta0.clone();
    for step in 1..=opts.steps {
        let mut grad = vec![0f64; n];
        for s in samples {
            let e: f64 = s.x.iter().zip(&theta).map(|(x, t)| x * t).sum();
            let p = curve(k, e);
            let g = 2.0 * (p - s.result) * p * (1.0 - p) * c * inv;
            for (gj, xj) in grad.iter_mut().zip(&s.x) {
                *gj += g * xj;
            }
        }
        for j in 0..n {
            if !free[j] {
                continue;
            }
            let gj = grad[j] * unit[j] + 2.0 * opts.prior_pull * u[j];
            m1[j] = b1 * m1[j] + (1.0 - b1) * gj;
            m2[j] = b2 * m2[j] + (1.0 - b2) * gj * gj;
            let mh = m1[j] / (1.0 - b1.powi(step as i32));
            let vh = m2[j] / (1.0 - b2.powi(step as i32));
            u[j] -= opts.rate * mh / (vh.sqrt() + eps);
            // Values stay above a tenth of a pawn, scales between 0 and 8.
            let (min, max) = match param(j) {
                Param::Value(_) => (10.0, 100_000.0),
                _ => (0.0, 8.0),
            };
            theta[j] = (theta0[j] + unit[j] * u[j]).clamp(min, max);
            u[j] = (theta[j] - theta0[j]) / unit[j];
        }
    }
    let error = mse(samples, &theta, k);
    let fixed: Vec<f64> = (0..n)
        .map(|j| if free[j] { theta[j] } else { theta0[j] })
        .collect();
    let weights = prior.with_theta(&fixed);
    Ok(Fit {
        weights,
        k,
        error_prior,
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fit recovers weights that generated the results: samples labelled by the Elo curve
    /// of a known θ (a Knight worth 450 with the board full and 250 in the endgame, the
    /// passed term doubled, the Knight's centralisation tripled) move the fit from the prior
    /// toward them.
    #[test]
    fn the_fit_moves_toward_the_weights_that_made_the_results() {
        let chess = rules::Catalog::builtin().get("chess").unwrap();
        let prior = Weights::prior(&chess);
        let knight = chess.pieces.iter().position(|p| p.letter == 'N').unwrap();
        let king = chess.pieces.iter().position(|p| p.royal).unwrap();
        let passed = Term::Passed as usize;
        let mut truth = prior.clone();
        truth.value[knight] = 450;
        truth.endgame[knight] = 250;
        truth.scale[passed] = 2.0;
        truth.central[knight] = 3.0;
        let theta = truth.theta();
        let nk = prior.value.len();
        let mut rng = Rng::new(7);
        let mut samples = Vec::new();
        for _ in 0..6000 {
            let middlegame = rng.below(1001) as f64 / 1000.0;
            let mut x = vec![0f64; theta.len()];
            for k in 0..nk {
                let count = rng.below(7) as f64 - 3.0;
                x[k] = count * middlegame;
                x[nk + k] = count * (1.0 - middlegame);
                if k != king {
                    x[2 * nk + TERMS + k] = rng.below(241) as f64 - 120.0;
                }
            }
            for t in Term::ALL {
                if t != Term::Central {
                    x[2 * nk + t as usize] = rng.below(241) as f64 - 120.0;
                }
            }
            let p = curve(1.0, x.iter().zip(&theta).map(|(a, b)| a * b).sum());
            // The expected result itself: a noiseless label.
            samples.push(Sample { x, result: p });
        }
        let f = fit(
            &chess,
            &prior,
            &samples,
            &FitOptions {
                steps: 2000,
                prior_pull: 0.0,
                rate: 0.02,
            },
        )
        .unwrap();
        assert!(f.error < f.error_prior / 10.0, "{f:?}");
        // K was fitted with the prior: the weights found are the truth over K.
        let k = f.k;
        let knight_cp = k * f64::from(f.weights.value[knight]);
        assert!(
            (knight_cp - 450.0).abs() < 40.0,
            "Knight {knight_cp} ({f:?})"
        );
        let knight_late = k * f64::from(f.weights.endgame[knight]);
        assert!(
            (knight_late - 250.0).abs() < 40.0,
            "Knight in the endgame {knight_late} ({f:?})"
        );
        let passed_scale = k * f64::from(f.weights.scale[passed]);
        assert!((passed_scale - 2.0).abs() < 0.3, "passed {passed_scale}");
        let central = k * f64::from(f.weights.central[knight]);
        assert!((central - 3.0).abs() < 0.3, "Knight's centre {central}");
        assert_eq!(f.weights.value[king], prior.value[king], "royal kinds stay");
        assert_eq!(f.weights.endgame[king], prior.endgame[king]);
        assert_eq!(f.weights.central[king], prior.central[king]);
        assert_eq!(
            f.weights.scale[Term::Central as usize],
            prior.scale[Term::Central as usize],
            "the family's scale stays; its kinds' factors move"
        );
    }

    #[test]
    fn four_sides_and_no_samples_are_refused() {
        let catalog = rules::Catalog::builtin();
        let four = catalog
            .names()
            .into_iter()
            .map(|n| catalog.get(&n).unwrap())
            .find(|v| v.sides == 4)
            .unwrap();
        let e = Arc::new(Evaluator::derived(&four));
        assert!(matches!(
            self_play(&e, &PlayOptions::default()),
            Err(TuneError::Sides(_, 4))
        ));
        let chess = catalog.get("chess").unwrap();
        assert_eq!(
            fit(&chess, &Weights::prior(&chess), &[], &FitOptions::default()),
            Err(TuneError::NoSamples)
        );
    }
}
