//! Glicko-2 ratings, written from Mark Glickman's description of the system ("Example of
//! the Glicko-2 system", Boston University, 2013; the worked example there is a test below).
//!
//! Glicko-2 rates players in *rating periods*. A chat bot has no natural period boundary, so
//! each rated game is a period of its own for both players, as the busiest online servers do;
//! the time between a player's games is then charged as idle periods of [`IDLE_PERIOD_SECS`]
//! each (the paper's step 6 applied once per idle period), so the deviation of a player who
//! has not played for months grows back toward [`START.deviation`](START) and his next games
//! move his rating more.
//!
//! No crate is used: the one on crates.io named after the system has had no release since
//! 2020, and the algorithm is fifty lines with the paper's example as its test.

/// The system constant τ: how much the volatility may change. Glickman suggests 0.3 to 1.2;
/// 0.5 is his example's value and a common choice for games with upsets.
pub const TAU: f64 = 0.5;

/// A new player's rating: the Glicko scale's centre, its largest deviation, and the paper's
/// suggested starting volatility.
pub const START: Rating = Rating {
    rating: 1500.0,
    deviation: 350.0,
    volatility: 0.06,
};

/// A rating whose deviation is above this is provisional: shown with a `?`, and listed after
/// the established ones on a leaderboard. 110 is where a 95% interval is about ±215 points.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// The length of one idle rating period, in seconds (a day).
pub const IDLE_PERIOD_SECS: i64 = 86_400;

/// The Glicko-2 scale factor between the Glicko scale (1500 ± 350) and the internal one.
const SCALE: f64 = 173.7178;

/// Convergence tolerance of the volatility iteration (the paper's ε).
const EPSILON: f64 = 0.000_001;

/// One player's rating in one variant family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// The rating on the Glicko scale (1500 is the starting point).
    pub rating: f64,
    /// The rating deviation (RD): the uncertainty, 350 for a new player.
    pub deviation: f64,
    /// The volatility σ: how erratic the player's results are.
    pub volatility: f64,
}

/// A game's score for the player being rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// He won.
    Win,
    /// Nobody won.
    Draw,
    /// He lost.
    Loss,
}

impl Score {
    fn value(self) -> f64 {
        match self {
            Score::Win => 1.0,
            Score::Draw => 0.5,
            Score::Loss => 0.0,
        }
    }

    /// The same game seen by the opponent.
    pub fn flipped(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        }
    }
}

impl Rating {
    /// Whether the rating is still provisional (see [`PROVISIONAL_DEVIATION`]).
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// The rating as players see it: rounded, with `?` while provisional.
    pub fn shown(&self) -> String {
        let mark = if self.is_provisional() { "?" } else { "" };
        format!("{:.0}{mark}", self.rating)
    }

    /// The rating after `periods` rating periods without a game: the deviation grows as the
    /// paper's step 6 says (φ² + σ² per period), never beyond a new player's.
    pub fn idle(self, periods: u32) -> Rating {
        let phi = self.deviation / SCALE;
        let grown = (phi * phi + f64::from(periods) * self.volatility * self.volatility).sqrt();
        Rating {
            deviation: (grown * SCALE).min(START.deviation),
            ..self
        }
    }

    /// The rating after playing `games` (each an opponent's rating before the period and the
    /// score against him) in one rating period, with system constant `tau`. With no games,
    /// the period is an idle one.
    pub fn after(self, games: &[(Rating, Score)], tau: f64) -> Rating {
        if games.is_empty() {
            return self.idle(1);
        }
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        // Steps 3 and 4: the estimated variance v from the games alone, and the improvement
        // Δ the results suggest.
        let mut inverse_v = 0.0;
        let mut sum = 0.0;
        for (opponent, score) in games {
            let mu_j = (opponent.rating - 1500.0) / SCALE;
            let g = g(opponent.deviation / SCALE);
            let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
            inverse_v += g * g * e * (1.0 - e);
            sum += g * (score.value() - e);
        }
        let v = 1.0 / inverse_v;
        let delta = v * sum;
        // Step 5: the new volatility.
        let sigma = new_volatility(phi, v, delta, self.volatility, tau);
        // Steps 6 and 7: the pre-period deviation, then the new deviation and rating.
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let new_mu = mu + new_phi * new_phi * sum;
        Rating {
            rating: SCALE * new_mu + 1500.0,
            deviation: (SCALE * new_phi).min(START.deviation),
            volatility: sigma,
        }
    }
}

/// Both players' ratings after one game between them, each rated against the other's rating
/// from before the game. `score` is the first player's.
pub fn after_game(first: Rating, second: Rating, score: Score) -> (Rating, Rating) {
    (
        first.after(&[(second, score)], TAU),
        second.after(&[(first, score.flipped())], TAU),
    )
}

/// A player's standing in one rating family: his rating and the tally of his rated games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    /// The rating after his last rated game.
    pub rating: Rating,
    /// Rated games finished.
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// Of which drawn.
    pub draws: u32,
    /// Of which lost.
    pub losses: u32,
    /// Unix seconds of his last rated game (the start of his idle time).
    pub updated_at: i64,
}

impl Standing {
    /// A player's standing before his first rated game in a family.
    pub fn new_player(at: i64) -> Standing {
        Standing {
            rating: START,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            updated_at: at,
        }
    }

    /// The rating as of `now`: the deviation grown by the idle time since the last game.
    pub fn rating_at(&self, now: i64) -> Rating {
        self.rating.idle(idle_periods(self.updated_at, now))
    }

    fn after(self, rating: Rating, score: Score, at: i64) -> Standing {
        Standing {
            rating,
            games: self.games + 1,
            wins: self.wins + u32::from(score == Score::Win),
            draws: self.draws + u32::from(score == Score::Draw),
            losses: self.losses + u32::from(score == Score::Loss),
            updated_at: at,
        }
    }
}

/// Both seats' standings after a rated two-player game finished at `at`: each player's idle
/// time is charged first, then the game is rated as one period. `score` is the first seat's.
/// Every store applies exactly this, in the transaction that finishes the game.
pub fn settle(first: Standing, second: Standing, score: Score, at: i64) -> (Standing, Standing) {
    let (a, b) = after_game(first.rating_at(at), second.rating_at(at), score);
    (
        first.after(a, score, at),
        second.after(b, score.flipped(), at),
    )
}

/// The number of whole idle periods between a player's last rated game and now.
pub fn idle_periods(last_game_at: i64, now: i64) -> u32 {
    let periods = (now - last_game_at).max(0) / IDLE_PERIOD_SECS;
    u32::try_from(periods).unwrap_or(u32::MAX)
}

/// The paper's g(φ): how much an opponent's uncertainty damps what a result says.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// Step 5: the new volatility, the root of the paper's f by the Illinois variant of regula
/// falsi (the paper's procedure; it converges in a handful of steps).
fn new_volatility(phi: f64, v: f64, delta: f64, sigma: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    // The bracket halves at least every other step; the cap only guards against a NaN from
    // absurd stored values looping forever.
    for _ in 0..100 {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    let s = (big_a / 2.0).exp();
    if s.is_finite() { s } else { sigma }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    /// Glickman's worked example: a 1500/200/0.06 player beats a 1400/30 one and loses to a
    /// 1550/100 and a 1700/300 one in one period, τ = 0.5; the paper gets 1464.06, 151.52 and
    /// 0.05999.
    #[test]
    fn the_papers_worked_example() {
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = player.after(
            &[
                (opponent(1400.0, 30.0), Score::Win),
                (opponent(1550.0, 100.0), Score::Loss),
                (opponent(1700.0, 300.0), Score::Loss),
            ],
            0.5,
        );
        assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(close(after.deviation, 151.52, 0.01), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.00001), "{after:?}");
    }

    #[test]
    fn a_win_raises_a_loss_lowers_and_the_sum_is_kept_between_equals() {
        let (w, l) = after_game(START, START, Score::Win);
        assert!(w.rating > 1500.0 && l.rating < 1500.0);
        assert!(close(w.rating - 1500.0, 1500.0 - l.rating, 1e-9));
        assert!(w.deviation < START.deviation && l.deviation < START.deviation);
        let (a, b) = after_game(START, START, Score::Draw);
        assert!(close(a.rating, 1500.0, 1e-9) && close(b.rating, 1500.0, 1e-9));
    }

    #[test]
    fn an_upset_moves_more_than_an_expected_result() {
        let strong = Rating {
            rating: 1900.0,
            deviation: 60.0,
            volatility: 0.06,
        };
        let weak = Rating {
            rating: 1300.0,
            ..strong
        };
        let (expected, _) = after_game(strong, weak, Score::Win);
        let (upset, _) = after_game(strong, weak, Score::Loss);
        assert!(expected.rating - strong.rating < strong.rating - upset.rating);
    }

    #[test]
    fn idle_time_grows_the_deviation_up_to_a_new_players() {
        let settled = Rating {
            rating: 1700.0,
            deviation: 50.0,
            volatility: 0.06,
        };
        assert_eq!(settled.idle(0), settled);
        let month = settled.idle(30);
        assert!(
            month.deviation > 70.0 && month.deviation < 80.0,
            "{month:?}"
        );
        assert_eq!(settled.idle(u32::MAX).deviation, START.deviation);
        assert_eq!(month.rating, 1700.0);
        assert_eq!(idle_periods(0, IDLE_PERIOD_SECS * 3 - 1), 2);
        assert_eq!(idle_periods(100, 0), 0, "a clock set back is no idle time");
    }

    #[test]
    fn settling_charges_idle_time_then_rates_and_tallies() {
        let day = IDLE_PERIOD_SECS;
        let settled = Standing {
            rating: Rating {
                rating: 1600.0,
                deviation: 60.0,
                volatility: 0.06,
            },
            games: 40,
            wins: 20,
            draws: 10,
            losses: 10,
            updated_at: 0,
        };
        let newcomer = Standing::new_player(100 * day);
        let (a, b) = settle(settled, newcomer, Score::Draw, 100 * day);
        assert_eq!((a.games, a.wins, a.draws, a.losses), (41, 20, 11, 10));
        assert_eq!((b.games, b.wins, b.draws, b.losses), (1, 0, 1, 0));
        assert_eq!((a.updated_at, b.updated_at), (100 * day, 100 * day));
        // A draw against a higher-rated player lifts the newcomer a lot and costs the settled
        // player a little; his hundred idle days made his rating less certain first.
        assert!(b.rating.rating > 1500.0 + 20.0, "{b:?}");
        assert!(
            a.rating.rating < 1600.0 && a.rating.rating > 1590.0,
            "{a:?}"
        );
        let (fresh, _) = settle(
            Standing {
                updated_at: 100 * day,
                ..settled
            },
            newcomer,
            Score::Draw,
            100 * day,
        );
        assert!(
            a.rating.deviation > fresh.rating.deviation,
            "idle time counted"
        );
    }

    #[test]
    fn provisional_ratings_are_marked() {
        assert_eq!(START.shown(), "1500?");
        let settled = Rating {
            deviation: 80.0,
            ..START
        };
        assert_eq!(settled.shown(), "1500");
    }

    #[test]
    fn many_games_between_two_players_stay_finite_and_converge() {
        let (mut a, mut b) = (START, START);
        for i in 0..2000 {
            let score = if i % 4 == 0 { Score::Loss } else { Score::Win };
            (a, b) = after_game(a, b, score);
            for r in [a, b] {
                assert!(r.rating.is_finite() && r.deviation.is_finite() && r.volatility > 0.0);
            }
        }
        // Three wins in four is an expected score of 0.75: about 190 points apart.
        assert!(close(a.rating - b.rating, 191.0, 40.0), "{a:?} {b:?}");
    }
}
