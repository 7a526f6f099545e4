//! Can a player be checkmated before his first move? For each four-player form named on the
//! command line, walks every combination of first moves (each seat's first move after every
//! combination of the earlier seats') and counts, per seat, the positions where the seat to
//! move has a move that takes another player out at once. The README's note on the
//! Wildebeest arrays quotes these counts.
//!
//! `cargo run --release -p engine --example first_round -- dcb-wildebeest-4p dcb-kamil-4p`

use rules::{Catalog, Position};

/// Visits the positions of the first round below `pos`; `seen` and `hits` count, per seat to
/// move, the positions visited and those with a checkmate available.
fn walk(pos: &mut Position, depth: usize, hits: &mut [u64; 4], seen: &mut [u64; 4]) {
    let seat = pos.turn().index();
    seen[seat] += 1;
    let mut hit = false;
    for m in pos.legal_moves() {
        pos.play_unchecked(m);
        if !pos.eliminated_by_last_move().is_empty() {
            hit = true;
        } else if depth > 1 {
            walk(pos, depth - 1, hits, seen);
        }
        pos.undo();
    }
    if hit {
        hits[seat] += 1;
    }
}

fn main() -> anyhow::Result<()> {
    let catalog = Catalog::builtin();
    for name in std::env::args().skip(1) {
        let variant = catalog.get(&name)?;
        let mut pos = Position::start(&variant);
        let (mut hits, mut seen) = ([0u64; 4], [0u64; 4]);
        walk(&mut pos, usize::from(variant.sides), &mut hits, &mut seen);
        println!("{name}: positions with a checkmate available to the seat to move, by seat");
        for (seat, (h, n)) in hits.iter().zip(&seen).enumerate() {
            println!("  seat {seat}: {h} of {n}");
        }
    }
    Ok(())
}
