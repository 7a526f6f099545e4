//! `glass-match`: Through the Looking-Glass games between two levels of the engine's
//! Looking-Glass player, refereed by the rules crate, scored, with every refusal counted.
//!
//! ```text
//! glass-match [--a LEVEL] [--b LEVEL] [--games N] [--max-plies P] [--no-strikes] [--seed S]
//!             [--verbose]
//! ```
//!
//! Plays N games, A and B alternating colours, each player deciding only from its
//! `Knowledge` (its view and the facts it was told). An order the referee refuses (an
//! illegal move on the player's own world) is counted and the next ranked order is tried;
//! an impossible blind order (a strike, or a lost turn with no strikes) is counted per
//! player. A game still going at the ply cap is adjudicated by material (a lead of 300
//! centipawns or more wins, else a draw) and counted as adjudicated. Prints A's wins, draws
//! and losses, the Elo difference with its 95% margin, the refusals and strike risks taken,
//! and the time per decision (all, then each player's). `--verbose` also prints each game's ending: who A played,
//! how it ended, the last actions and the final state.

use std::time::Instant;

use anyhow::bail;
use engine::{
    Level,
    elo::Tally,
    glass::{GlassPlayer, Knowledge},
};
use rules::{
    Side,
    glass::{Fact, Glass, GlassRules, Refusal, world_of},
};

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let (mut a, mut b, mut games, mut max_plies, mut seed) = (5u8, 1u8, 20u32, 300u32, 1u64);
    let mut verbose = false;
    let mut rules = GlassRules::default();
    while !args.is_empty() {
        let opt = args.remove(0);
        let mut val = || -> anyhow::Result<String> {
            if args.is_empty() {
                bail!("{opt} needs a value");
            }
            Ok(args.remove(0))
        };
        match opt.as_str() {
            "--a" => a = val()?.parse()?,
            "--b" => b = val()?.parse()?,
            "--games" => games = val()?.parse()?,
            "--max-plies" => max_plies = val()?.parse()?,
            "--seed" => seed = val()?.parse()?,
            "--no-strikes" => rules.no_strikes = true,
            "--verbose" => verbose = true,
            "--help" | "-h" => {
                println!(
                    "glass-match [--a LEVEL] [--b LEVEL] [--games N] [--max-plies P] [--seed S] \
                     [--no-strikes] [--verbose]   (levels 1-5; defaults 5, 1, 20 games, 300 plies, seed 1)"
                );
                return Ok(());
            }
            _ => bail!("unknown option {opt} (try --help)"),
        }
    }
    let levels = [Level::new(a)?, Level::new(b)?];
    let variant = rules::glass::variant();
    let mut tally = Tally::default();
    let (mut refused, mut impossible, mut adjudicated, mut decisions) =
        (0u64, [0u64; 2], 0u32, 0u64);
    let mut reasons: std::collections::BTreeMap<&'static str, u32> = Default::default();
    let mut times: Vec<f64> = Vec::new();
    let mut by_player: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let t0 = Instant::now();
    for n in 0..games {
        // Player index 0 is A; A has White in even games.
        let a_side = if n % 2 == 0 { Side::WHITE } else { Side::BLACK };
        let game_seed = seed.wrapping_mul(1_000_003) ^ u64::from(n) << 16;
        let mut players: Vec<GlassPlayer> = (0..2)
            .map(|i| GlassPlayer::new(variant.clone(), levels[i], game_seed ^ i as u64))
            .collect();
        let player_of = |side: Side| if side == a_side { 0 } else { 1 };
        let mut g = Glass::with_variant(variant.clone(), rules);
        for side in [Side::WHITE, Side::BLACK] {
            let r = players[player_of(side)].back_rank();
            g.choose(side, r)?;
        }
        let mut plies = 0;
        while g.is_over().is_none() && plies < max_plies {
            let side = g.turn();
            let who = player_of(side);
            let mut k = Knowledge::new(
                g.view(side),
                g.told(side).to_vec(),
                g.rules(),
                g.setup(side).cloned(),
            );
            let start = Instant::now();
            if players[who].wants_ask(&k) {
                let answer = g.has_move_on(k.army(), 1 - world_of(side));
                k = k.with_answer(answer);
            }
            let choice = players[who].choose(&k)?;
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            times.push(ms);
            by_player[who].push(ms);
            decisions += 1;
            let mut done = false;
            for text in &choice.ranked {
                match g.order(side, text) {
                    Ok(report) => {
                        if report.told[side.index()]
                            .iter()
                            .any(|f| matches!(f, Fact::Impossible { .. }))
                        {
                            impossible[who] += 1;
                        }
                        done = true;
                        break;
                    }
                    Err(Refusal::Illegal(_)) => refused += 1,
                    Err(e) => bail!("game {n}: {text}: {e}"),
                }
            }
            if !done {
                bail!("game {n}: every order refused");
            }
            plies += 1;
        }
        let winner = match g.is_over() {
            Some(o) => {
                *reasons.entry(o.reason()).or_default() += 1;
                o.winner()
            }
            None => {
                adjudicated += 1;
                let m = material(&g);
                if m >= 300 {
                    Some(Side::WHITE)
                } else if m <= -300 {
                    Some(Side::BLACK)
                } else {
                    None
                }
            }
        };
        if verbose {
            let rec = g.record();
            let tail = &rec[rec.len().saturating_sub(8)..];
            println!(
                "game {n}: A ({a}) is {}, {} after {plies} plies; last: {}; {}",
                a_side.name(2),
                g.is_over().map_or("ply cap", |o| o.reason()),
                tail.join(", "),
                g.state_text()
            );
        }
        match winner {
            Some(w) if w == a_side => tally.wins += 1,
            Some(_) => tally.losses += 1,
            None => tally.draws += 1,
        }
    }
    let (elo, margin) = tally.elo();
    times.sort_by(f64::total_cmp);
    for t in &mut by_player {
        t.sort_by(f64::total_cmp);
    }
    let pct_of = |times: &[f64], p: f64| {
        times
            .get(((times.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let pct = |p: f64| pct_of(&times, p);
    println!(
        "{} level {a} vs level {b}: {} games, +{} ={} -{} (score {:.1}%), Elo {:+.0} ± {:.0}",
        if rules.no_strikes {
            "looking-glass-no-strikes"
        } else {
            "looking-glass"
        },
        tally.games(),
        tally.wins,
        tally.draws,
        tally.losses,
        100.0 * tally.score(),
        elo,
        margin
    );
    println!(
        "endings: {reasons:?}, adjudicated at {max_plies} plies: {adjudicated}; orders refused by the referee: {refused}; impossible blind orders: level {a} {}, level {b} {}",
        impossible[0], impossible[1]
    );
    println!(
        "{decisions} decisions, ms per decision: median {:.1}, p99 {:.1}, max {:.1}; total {:.1}s",
        pct(0.5),
        pct(0.99),
        pct(1.0),
        t0.elapsed().as_secs_f64()
    );
    for (i, level) in [a, b].into_iter().enumerate() {
        let t = &by_player[i];
        println!(
            "level {level}: {} decisions, ms median {:.1}, p99 {:.1}, max {:.1}",
            t.len(),
            pct_of(t, 0.5),
            pct_of(t, 0.99),
            pct_of(t, 1.0)
        );
    }
    if refused > 0 {
        bail!("{refused} orders refused");
    }
    Ok(())
}

/// White's material lead over Black in centipawns (both worlds), for adjudication.
fn material(g: &Glass) -> i32 {
    let v = g.variant();
    v.geometry
        .cells()
        .filter_map(|c| g.piece_at(c))
        .map(|p| {
            let value = engine::glass::fide_value(v.piece(p.kind).letter.to_ascii_uppercase());
            if p.side == Side::WHITE { value } else { -value }
        })
        .sum()
}
