//! Through the Looking-Glass: what one order costs the referee. The bot replays a game's
//! record for every command (the record is the truth), so the replay of a long game is the
//! number that matters. Run: `cargo bench -p rules --bench glass`.

use criterion::{Criterion, criterion_group, criterion_main};
use rules::{
    Side,
    glass::{BackRank, Glass, GlassRules, other},
};

/// A deterministic pseudo-random game of about `plies` actions (legal moves on either world,
/// with a few impossible blind orders).
fn game(plies: usize) -> Glass {
    let mut seed = 42u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed >> 33
    };
    let mut g = Glass::new(GlassRules::default());
    g.choose(Side::WHITE, BackRank::orthodox()).unwrap();
    g.choose(Side::BLACK, BackRank::from_number(0).unwrap())
        .unwrap();
    while g.record().len() < plies && g.is_over().is_none() {
        let side = g.turn();
        let army = if g.is_forced() { other(side) } else { side };
        let moves = g.moves_on(army, (next() % 2) as u8);
        if moves.is_empty() {
            continue;
        }
        let m = moves[(next() as usize) % moves.len()].clone();
        let _ = g.order(side, &m);
    }
    g
}

fn bench(c: &mut Criterion) {
    let variant = rules::glass::variant();
    let mut group = c.benchmark_group("glass");
    for plies in [40, 200] {
        let g = game(plies);
        let record = g.record().to_vec();
        println!("replay: {} actions, over: {:?}", record.len(), g.is_over());
        group.bench_function(format!("replay/{}", record.len()), |b| {
            b.iter(|| Glass::replay(variant.clone(), GlassRules::default(), &record).unwrap())
        });
    }
    let g = game(60);
    let side = g.turn();
    let m = g.moves_on(side, rules::glass::world_of(side))[0].clone();
    group.bench_function("clone+order", |b| {
        b.iter(|| {
            let mut x = g.clone();
            x.order(side, &m).unwrap()
        })
    });
    group.bench_function("variant tables", |b| b.iter(rules::glass::variant));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
