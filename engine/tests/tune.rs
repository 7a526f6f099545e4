//! The tuning pipeline end to end on a variant nobody tuned (a file written for this test):
//! games, positions, fit, the tuned file, and an evaluator built from it. A smoke test with
//! few games and small budgets (the strength claim is an SPRT: docs/src/measurements.md).

use std::sync::Arc;

use engine::{
    Evaluator, Weights,
    tune::{self, FitOptions, PlayOptions},
    tuned,
};
use rules::{Catalog, Position, Side};

fn trial() -> Arc<rules::Variant> {
    let text = include_str!("data/tuning-trial.toml");
    Catalog::check_file("tuning-trial.toml", text).expect("the test variant loads")
}

fn options(threads: usize) -> PlayOptions {
    PlayOptions {
        games: 6,
        nodes: 300,
        opening_plies: 6,
        max_plies: 120,
        seed: 3,
        threads,
        result_weight: 0.5,
    }
}

#[test]
fn a_variant_nobody_tuned_is_tuned_from_its_own_games() {
    let v = trial();
    assert!(tuned::builtin(&v).is_none(), "nobody tuned it");
    let prior = Weights::prior(&v);
    let eval = Arc::new(Evaluator::derived(&v));
    let games = tune::self_play(&eval, &options(2)).unwrap();
    assert_eq!(games.results.iter().sum::<u32>(), 6);
    assert!(
        games.samples.len() > 100,
        "{} positions",
        games.samples.len()
    );
    // The same games whatever the number of threads that played them.
    let alone = tune::self_play(&eval, &options(1)).unwrap();
    assert_eq!(alone.samples, games.samples);
    // Labels half the result, half the search's score: between the two. By results
    // alone, every label is a result.
    assert!(
        games
            .samples
            .iter()
            .any(|s| ![0.0, 0.5, 1.0].contains(&s.result))
    );
    let results_only = tune::self_play(
        &eval,
        &PlayOptions {
            result_weight: 1.0,
            ..options(2)
        },
    )
    .unwrap();
    assert!(
        results_only
            .samples
            .iter()
            .all(|s| [0.0, 0.5, 1.0].contains(&s.result))
    );
    assert_eq!(results_only.samples.len(), games.samples.len());
    let fit = tune::fit(
        &v,
        &prior,
        &games.samples,
        &FitOptions {
            steps: 300,
            ..FitOptions::default()
        },
    )
    .unwrap();
    assert!(fit.error <= fit.error_prior, "{fit:?}");
    assert_ne!(fit.weights, prior, "the fit moved");
    // The file reads back, fits this variant only, and makes an evaluator.
    let text = tuned::write(&v, &fit.weights, "test");
    assert_eq!(tuned::parse(&v, &text).unwrap(), fit.weights);
    let chess = Catalog::builtin().get("chess").unwrap();
    assert!(tuned::parse(&chess, &text).is_err());
    let e = Evaluator::with_weights(&v, &fit.weights);
    assert!(e.is_tuned());
    assert_eq!(e.weights().value, fit.weights.value);
    // The start is symmetric: even.
    assert_eq!(e.evaluate(&Position::start(&v), Side::WHITE), 0);
}

/// The evaluation a search reads is the fitted linear model: for tuned weights, on positions
/// of random games, the score equals the weights times the features (to rounding).
#[test]
fn the_search_evaluates_what_the_fit_fitted() {
    let v = trial();
    let mut w = Weights::prior(&v);
    for (i, x) in w.value.iter_mut().enumerate() {
        if *x > 0 {
            *x += 13 * i as i32;
        }
    }
    for (i, x) in w.endgame.iter_mut().enumerate() {
        if *x > 0 {
            *x -= 17 * i as i32;
        }
    }
    for (i, f) in w.central.iter_mut().enumerate() {
        *f = 0.5 + 0.25 * i as f32;
    }
    w.scale = [1.3, 0.7, 2.0, 0.5, 1.1, 0.0, 1.0];
    let e = Evaluator::with_weights(&v, &w);
    let theta = w.theta();
    let mut seed = 11u64;
    let mut checked = 0;
    for _ in 0..10 {
        let mut pos = Position::start(&v);
        for _ in 0..60 {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.outcome().is_some() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            pos.play_unchecked(moves[(seed >> 33) as usize % moves.len()]);
            let model: f64 = e
                .features(&pos)
                .difference()
                .iter()
                .zip(&theta)
                .map(|(x, t)| x * t)
                .sum();
            let score = f64::from(e.evaluate(&pos, Side::WHITE));
            // Each term is rounded down once per side.
            assert!((score - model).abs() <= 16.0, "{score} against {model}");
            checked += 1;
        }
    }
    assert!(checked > 300);
}

/// The file the measured SPRT played (docs/src/measurements/engine.md) still fits the
/// variant it was tuned for.
#[test]
fn the_measured_tuning_of_the_trial_variant_reads_back() {
    let v = trial();
    let w = tuned::parse(&v, include_str!("data/tuning-trial.tuned.toml")).unwrap();
    assert_ne!(w, Weights::prior(&v));
}
