//! A sequential probability ratio test between two engines, for deciding whether a change
//! makes the engine stronger (issue 32).
//!
//! Games are played in pairs from one opening, each engine with each colour once, so the
//! unit of evidence is a pair: its score for the first engine is 0, ½, 1, 1½ or 2 (the
//! *pentanomial* counts), which cancels most of the luck of the opening. The test weighs two
//! hypotheses on the first engine's logistic Elo difference, `H0: elo = elo0` and
//! `H1: elo = elo1`, by the generalised log-likelihood ratio of the pair scores in its normal
//! approximation, `LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)`, where `m` and `v` are the
//! mean and variance of the pair scores (each scaled to 0..1) and `s0`, `s1` the expected
//! scores of the two hypotheses. It stops when the ratio leaves
//! `(ln(β / (1 - α)), ln((1 - β) / α))`: above, H1 is accepted (the change gains at least
//! about `elo1`); below, H0 (it does not gain `elo0`). This is the test the chess-engine
//! testing frameworks run, in its published form (Michel Van den Bergh's notes on the
//! GSPRT); the code is ours.

use crate::elo::elo_of;

/// The pentanomial counts: pairs in which the first engine scored 0, ½, 1, 1½ and 2.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pairs(pub [u32; 5]);

impl Pairs {
    /// Records a pair from the first engine's two game scores (each 0, ½ or 1).
    pub fn add(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[half_points] += 1;
    }

    /// Pairs recorded.
    pub fn count(&self) -> u32 {
        self.0.iter().sum()
    }

    /// Mean and variance of the pair score, scaled to 0..1.
    fn moments(&self) -> Option<(f64, f64)> {
        let n = f64::from(self.count());
        if n == 0.0 {
            return None;
        }
        let score = |i: usize| i as f64 / 4.0;
        let mean = (0..5).map(|i| f64::from(self.0[i]) * score(i)).sum::<f64>() / n;
        let var = (0..5)
            .map(|i| f64::from(self.0[i]) * (score(i) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some((mean, var))
    }

    /// The first engine's Elo difference and its 95 % margin, from the pair scores. The
    /// margin is infinite while every pair scored the same (two identical builds at a fixed
    /// node budget mirror each other's games): no spread, no measure of it.
    pub fn elo(&self) -> (f64, f64) {
        let Some((mean, var)) = self.moments() else {
            return (0.0, f64::INFINITY);
        };
        if var <= 0.0 {
            return (elo_of(mean), f64::INFINITY);
        }
        let se = (var / f64::from(self.count())).sqrt();
        let (lo, hi) = (elo_of(mean - 1.96 * se), elo_of(mean + 1.96 * se));
        (elo_of(mean), (hi - lo) / 2.0)
    }
}

/// The expected score of an Elo difference.
fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The test's settings: the two hypotheses (logistic Elo) and the error rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    /// H0's Elo difference: what a change that does not help scores at most.
    pub elo0: f64,
    /// H1's Elo difference: what a change worth having gains at least.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds (a false pass).
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds (a false fail).
    pub beta: f64,
}

/// Where a test stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Accept H1: the first engine is stronger by about `elo1` or more.
    H1,
    /// Accept H0: it is not stronger by `elo0`.
    H0,
    /// Play on.
    Continue,
}

impl Sprt {
    /// `[elo0, elo1]` with α = β = 0.05, the usual setting.
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        }
    }

    /// The bounds of the log-likelihood ratio: `(lower, upper)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 given the pairs so far (0 before any pair,
    /// or while every pair scored the same, which says nothing of the spread yet).
    pub fn llr(&self, pairs: &Pairs) -> f64 {
        let Some((mean, var)) = pairs.moments() else {
            return 0.0;
        };
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of(self.elo0), score_of(self.elo1));
        f64::from(pairs.count()) * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// Whether to stop, and with which hypothesis.
    pub fn verdict(&self, pairs: &Pairs) -> Verdict {
        let llr = self.llr(pairs);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays pairs between two players `elo` apart (draws one game in three), deterministic.
    fn simulate(elo: f64, sprt: &Sprt, max_pairs: u32, seed: u64) -> (Verdict, u32) {
        let mut state = seed;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let p = score_of(elo);
        // With draws d, a win w and a loss l: w + d/2 = p, d = 1/3.
        let draw = 1.0 / 3.0;
        let win = p - draw / 2.0;
        let mut game = || {
            let r = next();
            if r < win {
                1.0
            } else if r < win + draw {
                0.5
            } else {
                0.0
            }
        };
        let mut pairs = Pairs::default();
        for _ in 0..max_pairs {
            pairs.add(game(), game());
            match sprt.verdict(&pairs) {
                Verdict::Continue => {}
                v => return (v, pairs.count()),
            }
        }
        (Verdict::Continue, pairs.count())
    }

    #[test]
    fn a_clearly_stronger_engine_passes_and_a_weaker_one_fails() {
        let sprt = Sprt::new(0.0, 10.0);
        for seed in 1..=5 {
            assert_eq!(simulate(40.0, &sprt, 50_000, seed).0, Verdict::H1, "{seed}");
            assert_eq!(
                simulate(-30.0, &sprt, 50_000, seed).0,
                Verdict::H0,
                "{seed}"
            );
        }
    }

    #[test]
    fn equal_engines_are_seldom_called_stronger() {
        // α = 0.05 at elo0 = 0: over 40 runs, a handful of false passes at most.
        let sprt = Sprt::new(0.0, 10.0);
        let passed = (1..=40)
            .filter(|&seed| simulate(0.0, &sprt, 50_000, seed).0 == Verdict::H1)
            .count();
        assert!(passed <= 6, "{passed} of 40 equal matches passed");
    }

    #[test]
    fn no_evidence_means_no_verdict() {
        let sprt = Sprt::new(0.0, 5.0);
        assert_eq!(sprt.llr(&Pairs::default()), 0.0);
        let mut pairs = Pairs::default();
        pairs.add(0.5, 0.5);
        pairs.add(0.5, 0.5);
        assert_eq!(sprt.verdict(&pairs), Verdict::Continue);
        assert_eq!(pairs.elo(), (0.0, f64::INFINITY), "no spread, no margin");
        let (lo, hi) = sprt.bounds();
        assert!(
            (lo + 2.944).abs() < 0.01 && (hi - 2.944).abs() < 0.01,
            "{lo} {hi}"
        );
    }

    #[test]
    fn pair_scores_give_the_elo_of_the_score() {
        let mut pairs = Pairs::default();
        for _ in 0..30 {
            pairs.add(1.0, 0.5);
        }
        for _ in 0..10 {
            pairs.add(0.0, 0.5);
        }
        // 30 x 1.5 + 10 x 0.5 = 50 of 80 points: 62.5 %, +88.7 Elo.
        let (elo, margin) = pairs.elo();
        assert!((elo - 88.7).abs() < 0.5, "{elo}");
        assert!(margin > 20.0 && margin < 80.0, "{margin}");
    }
}
