//! Match statistics: score, Elo difference and its 95% error margin.
//!
//! The Elo difference of a score fraction `p` is `-400 log10(1/p - 1)`; the margin comes from
//! the standard error of the per-game score (wins 1, draws 1/2, losses 0), mapped through the
//! same curve, as match runners commonly report it.

/// Wins, draws and losses of the first engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the first engine lost.
    pub losses: u32,
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The first engine's score fraction (0.5 with no game).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
    }

    /// The Elo difference and its 95% margin: `(elo, margin)`. Infinite scores (all wins or
    /// all losses) are clamped to 0.1%-99.9%.
    ///
    /// # Examples
    /// ```
    /// let t = engine::elo::Tally { wins: 60, draws: 20, losses: 20 };
    /// let (elo, margin) = t.elo();
    /// assert!((elo - 147.2).abs() < 0.5, "{elo}");
    /// assert!(margin > 50.0 && margin < 90.0, "{margin}");
    /// ```
    pub fn elo(&self) -> (f64, f64) {
        let n = self.games() as f64;
        let p = self.score();
        if n == 0.0 {
            return (0.0, f64::INFINITY);
        }
        let var = (self.wins as f64 * (1.0 - p).powi(2)
            + self.draws as f64 * (0.5 - p).powi(2)
            + self.losses as f64 * p.powi(2))
            / n;
        let se = (var / n).sqrt();
        let lo = elo_of(p - 1.96 * se);
        let hi = elo_of(p + 1.96 * se);
        (elo_of(p), (hi - lo) / 2.0)
    }
}

/// The Elo difference of a score fraction.
pub fn elo_of(p: f64) -> f64 {
    let p = p.clamp(0.001, 0.999);
    -400.0 * (1.0 / p - 1.0).log10()
}
