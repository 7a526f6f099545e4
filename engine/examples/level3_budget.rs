//! Does level 3 finish its search within a node budget? Plays a game of the named variant
//! with level 3 in every seat (each move at `full` nodes, enough to finish) and, every fourth
//! ply, lets level 3 search the position again at `budget` nodes and counts the searches the
//! limit stopped, that is, that scored only part of their moves. The README's four-player
//! numbers explain with it why 30,000 nodes a move flattered level 5.
//!
//! `cargo run --release -p engine --example level3_budget -- dcb-knighted-4p 30000 [full] [plies]`

use std::sync::Arc;

use anyhow::Context;
use engine::{Evaluator, Level, Player, search::Limits};
use rules::{Catalog, Position};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().context("name a variant")?;
    let budget: u64 = args.get(1).map_or(Ok(30_000), |a| a.parse())?;
    let full: u64 = args.get(2).map_or(Ok(2_000_000), |a| a.parse())?;
    let plies: usize = args.get(3).map_or(Ok(160), |a| a.parse())?;
    let catalog = Catalog::builtin();
    let variant = catalog.get(name)?;
    let eval = Arc::new(Evaluator::new(&variant));
    let level = Level::new(3)?;
    let mut players: Vec<Player> = (0..variant.sides)
        .map(|s| Player::new(eval.clone(), level, u64::from(s) + 1))
        .collect();
    let mut probe = Player::new(eval, level, 99);
    let at = |nodes| Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut pos = Position::start(&variant);
    let (mut stopped, mut probed) = (0, 0);
    for ply in 0..plies {
        if pos.outcome().is_some() {
            break;
        }
        if ply % 4 == 0 {
            let r = probe.choose_with_result(&mut pos.clone(), &at(budget));
            probed += 1;
            if r.nodes >= budget {
                stopped += 1;
            }
        }
        let seat = pos.turn().index();
        let m = players[seat]
            .choose(&mut pos, &at(full))
            .context("no legal move")?;
        pos.play(m)?;
    }
    println!(
        "{name}: level 3 at {budget} nodes stopped by the limit in {stopped} of {probed} positions"
    );
    Ok(())
}
