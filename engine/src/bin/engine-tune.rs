//! `engine-tune`: the evaluation's weights fitted to a variant from its own games (issue 32;
//! the method is in `engine::tune`).
//!
//! ```text
//! engine-tune VARIANT | FILE.toml [--games N] [--nodes N] [--seed S] [--threads N]
//!             [--opening-plies P] [--max-plies M] [--result-weight W] [--steps N] [--prior-pull X]
//!             [--from TUNED.toml] [--out FILE]
//! ```
//!
//! A built-in variant by name, or any variant file (a player's own). Plays `--games` games
//! of the engine against itself at `--nodes` nodes a move (`--threads` at a time, default
//! the machine's cores), fits the weights, prints the prior and fitted values side by side
//! with the fit's error, and writes the tuned file (default `target/tune/NAME.toml`). Copy
//! it to `engine/tuned/` and name it in `engine::tuned` to compile it in; or give it to
//! `engine-match` (`level:N:tuned=FILE`) to measure it first. `--from` starts the games and
//! the fit from an earlier tuned file (a second round).

use std::{path::PathBuf, sync::Arc, time::Instant};

use anyhow::{Context, bail};
use engine::{
    Evaluator,
    eval::{TERMS, Term},
    tune::{self, FitOptions, PlayOptions},
    tuned,
};
use rules::Catalog;

fn main() -> anyhow::Result<()> {
    let mut it = std::env::args().skip(1);
    let mut target: Option<String> = None;
    let mut play = PlayOptions {
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..PlayOptions::default()
    };
    let mut fit = FitOptions::default();
    let mut out: Option<PathBuf> = None;
    let mut from: Option<PathBuf> = None;
    while let Some(k) = it.next() {
        let mut val = || it.next().with_context(|| format!("{k} needs a value"));
        match k.as_str() {
            "--games" => play.games = val()?.parse()?,
            "--nodes" => play.nodes = val()?.parse()?,
            "--seed" => play.seed = val()?.parse()?,
            "--threads" => play.threads = val()?.parse::<usize>()?.max(1),
            "--opening-plies" => play.opening_plies = val()?.parse()?,
            "--max-plies" => play.max_plies = val()?.parse()?,
            "--result-weight" => play.result_weight = val()?.parse()?,
            "--steps" => fit.steps = val()?.parse()?,
            "--prior-pull" => fit.prior_pull = val()?.parse()?,
            "--out" => out = Some(val()?.into()),
            "--from" => from = Some(val()?.into()),
            "--help" | "-h" => {
                println!(
                    "engine-tune VARIANT|FILE.toml [--games N] [--nodes N] [--seed S] [--threads N] \
                     [--opening-plies P] [--max-plies M] [--result-weight W] [--steps N] [--prior-pull X] [--from TUNED.toml] [--out FILE]"
                );
                return Ok(());
            }
            _ if !k.starts_with("--") && target.is_none() => target = Some(k),
            _ => bail!("unknown argument {k:?} (see --help)"),
        }
    }
    let target = target.context("name a variant or a variant file (see --help)")?;
    let variant = if target.ends_with(".toml") {
        let text = std::fs::read_to_string(&target).with_context(|| format!("reading {target}"))?;
        Catalog::check_file(&target, &text)?
    } else {
        Catalog::builtin().get(&target)?
    };
    let start_weights = match &from {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            tuned::parse(&variant, &text)?
        }
        None => engine::Weights::prior(&variant),
    };
    let eval = Arc::new(Evaluator::with_weights(&variant, &start_weights));
    println!(
        "{}: {} games at {} nodes a move, {} at a time, seed {}, labels {:.0}% the result",
        variant.name,
        play.games,
        play.nodes,
        play.threads,
        play.seed,
        100.0 * play.result_weight
    );
    let t0 = Instant::now();
    let tenth = (play.games / 10).max(1);
    let games = tune::self_play_reporting(&eval, &play, &|n| {
        if n % tenth == 0 {
            println!(
                "  {n} of {} games, {:.0} s",
                play.games,
                t0.elapsed().as_secs_f64()
            );
        }
    })?;
    println!(
        "played in {:.1} s: first side {}-{}-{} (wins, draws, losses), {} adjudicated at {} plies; {} quiet positions",
        t0.elapsed().as_secs_f64(),
        games.results[0],
        games.results[1],
        games.results[2],
        games.adjudicated,
        play.max_plies,
        games.samples.len()
    );
    let t1 = Instant::now();
    let f = tune::fit(&variant, &start_weights, &games.samples, &fit)?;
    println!(
        "fitted in {:.1} s: K {:.3}, mean squared error {:.5} -> {:.5}",
        t1.elapsed().as_secs_f64(),
        f.k,
        f.error_prior,
        f.error
    );
    println!("  kind               value (full board -> endgame)     centralisation");
    for (i, p) in variant.pieces.iter().enumerate() {
        if !p.royal && start_weights.value[i] > 0 {
            let (w0, w) = (&start_weights, &f.weights);
            println!(
                "  {} {:<12} {:>6} -> {:>6} / {:>6} -> {:>6}   {:>5.2} -> {:>5.2}",
                p.letter,
                p.name,
                w0.value[i],
                w.value[i],
                w0.endgame[i],
                w.endgame[i],
                w0.central[i],
                w.central[i]
            );
        }
    }
    for t in Term::ALL {
        println!(
            "  {:<14} {:>6.3} -> {:>6.3}",
            t.name(),
            start_weights.scale[t as usize],
            f.weights.scale[t as usize]
        );
    }
    debug_assert_eq!(Term::ALL.len(), TERMS);
    let note = format!(
        "Tuned by engine-tune ({}): {} games at {} nodes a move, seed {}, {} quiet positions,\n\
         labels {:.0}% the game's result and {:.0}% the search's score;\n\
         K {:.3}, mean squared error {:.5} (prior) -> {:.5}. Method: engine/src/tune.rs.",
        from.as_ref()
            .map_or("from the derived values".to_string(), |p| format!(
                "from {}",
                p.display()
            )),
        play.games,
        play.nodes,
        play.seed,
        games.samples.len(),
        100.0 * play.result_weight,
        100.0 * (1.0 - play.result_weight),
        f.k,
        f.error_prior,
        f.error
    );
    let text = tuned::write(&variant, &f.weights, &note);
    let path = out.unwrap_or_else(|| PathBuf::from(format!("target/tune/{}.toml", variant.name)));
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!("written to {}", path.display());
    Ok(())
}
