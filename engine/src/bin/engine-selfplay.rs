//! `engine-selfplay`: the engine's benchmark of record for legality and time.
//!
//! ```text
//! engine-selfplay [--games N] [--nodes N | --movetime MS] [--max-plies P] [VARIANT...]
//! engine-selfplay values [VARIANT...]     # the derived piece values
//! ```
//!
//! Plays N games per variant (all built-ins by default, four-player forms included), level 5
//! against level 5 and level 1 alternately, every move checked by the rules crate
//! (`Position::play`); any illegal move stops the run with an error. With `--movetime` it
//! reports how long each search took against its budget (median, p99, max overrun).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::bail;
use engine::{Evaluator, Level, Player, describe_values, search::Limits};
use rules::{Catalog, Position};

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let catalog = Catalog::builtin();
    if args.first().map(String::as_str) == Some("values") {
        let mut names: Vec<String> = args[1..].to_vec();
        if names.is_empty() {
            names = catalog.names();
        }
        for n in names {
            let v = catalog.get(&n)?;
            println!("{n}:");
            for l in describe_values(&v) {
                println!("  {l}");
            }
        }
        return Ok(());
    }
    let mut games = 4u32;
    let mut limits = Limits {
        nodes: Some(2_000),
        ..Limits::default()
    };
    let mut max_plies = 200u32;
    let mut names = Vec::new();
    while !args.is_empty() {
        let a = args.remove(0);
        let mut val = || -> anyhow::Result<String> {
            if args.is_empty() {
                bail!("{a} needs a value");
            }
            Ok(args.remove(0))
        };
        match a.as_str() {
            "--games" => games = val()?.parse()?,
            "--nodes" => {
                limits = Limits {
                    nodes: Some(val()?.parse()?),
                    ..Limits::default()
                }
            }
            "--movetime" => {
                limits = Limits {
                    time: Some(Duration::from_millis(val()?.parse()?)),
                    ..Limits::default()
                }
            }
            "--max-plies" => max_plies = val()?.parse()?,
            "--help" | "-h" => {
                println!(
                    "engine-selfplay [--games N] [--nodes N | --movetime MS] [--max-plies P] [VARIANT...]\n\
                     engine-selfplay values [VARIANT...]"
                );
                return Ok(());
            }
            _ if a.starts_with("--") => bail!("unknown option {a} (try --help)"),
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names = catalog.names();
        names.sort();
    }
    let mut times: Vec<f64> = Vec::new();
    let (mut total_games, mut total_plies) = (0u64, 0u64);
    let t0 = Instant::now();
    for (vi, name) in names.iter().enumerate() {
        let v = catalog.get(name)?;
        let eval = Arc::new(Evaluator::new(&v));
        let mut plies_here = 0u64;
        for g in 0..games {
            let seed = (vi as u64) << 20 | g as u64;
            let weak = if g % 2 == 0 {
                Level::MAX
            } else {
                Level::new(1)?
            };
            let mut players = [
                Player::new(eval.clone(), Level::MAX, seed),
                Player::new(eval.clone(), weak, seed ^ 0x55),
            ];
            let mut pos = Position::start(&v);
            for ply in 0..max_plies {
                if pos.outcome().is_some() {
                    break;
                }
                let p = &mut players[(ply as usize + g as usize) % 2];
                let start = Instant::now();
                let Some(m) = p.choose(&mut pos.clone(), &limits) else {
                    bail!(
                        "{name}: no move while the game goes on: {}",
                        rules::fen::write(&pos)
                    );
                };
                times.push(start.elapsed().as_secs_f64() * 1000.0);
                if let Err(e) = pos.play(m) {
                    bail!(
                        "{name}: illegal move {m:?} ({e}) in {}",
                        rules::fen::write(&pos)
                    );
                }
                plies_here += 1;
            }
            total_games += 1;
        }
        total_plies += plies_here;
        println!("{name}: {games} games, {plies_here} plies, all legal");
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let q = |x: f64| times[((times.len() - 1) as f64 * x) as usize];
    println!(
        "{total_games} games, {total_plies} plies, no illegal move, {:.0} s",
        t0.elapsed().as_secs_f64()
    );
    if !times.is_empty() {
        println!(
            "search time per move: median {:.1} ms, p99 {:.1} ms, max {:.1} ms{}",
            q(0.5),
            q(0.99),
            q(1.0),
            limits
                .time
                .map_or(String::new(), |t| format!(" (budget {} ms)", t.as_millis()))
        );
    }
    Ok(())
}
