//! Post-game analysis time per position at its default budget ([`engine::analysis::Budget`]):
//! one middle-game position per variant (the start position after a fixed line of moves
//! chosen by a seeded generator), searched by a fresh analyser, as the bot's `analyse`
//! searches each position of a finished game. A whole game's time is about this median times
//! its positions (consecutive positions share the table, so a little less).
//!
//! A four-player game is judged move by move instead, in the position before each
//! ([`Analyser::evaluate_turns`]): `analysis-turn/dcb-balanced-4p` measures one move the
//! search would not have made (its two searches, the dearer case); and
//! `analysis-turn/looking-glass` one Looking-Glass order judged from its player's knowledge.
//!
//! Run: `cargo bench -p engine --bench analysis`.

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{
    Evaluator, Level,
    analysis::{Analyser, Budget},
    glass::{GlassPlayer, Knowledge},
};
use rules::{Catalog, Position, glass};

/// The variants measured: the orthodox board, a big one, a cruciform one, a wrapped one.
const VARIANTS: [&str; 4] = [
    "chess",
    "toulousain",
    "dcb-balanced",
    "ecumenical-wraparound",
];

/// A position some moves into a game: `plies` moves picked by a fixed generator.
fn middle_game(v: &Arc<rules::Variant>, plies: usize) -> Position {
    let mut pos = Position::start(v);
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() || pos.outcome().is_some() {
            break;
        }
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        pos.play_unchecked(legal[(seed >> 33) as usize % legal.len()]);
    }
    pos
}

fn per_position(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let mut group = c.benchmark_group("analysis-position");
    group.sample_size(10);
    group.warm_up_time(std::time::Duration::from_millis(500));
    group.measurement_time(std::time::Duration::from_secs(4));
    for name in VARIANTS {
        let v = catalog.get(name).unwrap();
        let eval = Arc::new(Evaluator::new(&v));
        let pos = middle_game(&v, 16);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut analyser = Analyser::new(eval.clone(), 8);
                let mut p = pos.clone();
                analyser.evaluate(&mut p, &Budget::default())
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("analysis-turn");
    group.sample_size(10);
    group.warm_up_time(std::time::Duration::from_millis(500));
    group.measurement_time(std::time::Duration::from_secs(4));
    let v = catalog.get("dcb-balanced-4p").unwrap();
    let eval = Arc::new(Evaluator::new(&v));
    let pos = middle_game(&v, 16);
    let mut first = Analyser::new(eval.clone(), 8);
    let preferred = first
        .evaluate(&mut pos.clone(), &Budget::default())
        .best
        .unwrap();
    let other = *pos
        .legal_moves()
        .iter()
        .rev()
        .find(|m| **m != preferred)
        .unwrap();
    group.bench_function("dcb-balanced-4p", |b| {
        b.iter(|| {
            let mut analyser = Analyser::new(eval.clone(), 8);
            analyser.evaluate_turns(&pos, &[other], &Budget::default(), |_, _| true)
        })
    });
    // A Looking-Glass order judged from its player's knowledge (level 5, 32 sampled
    // worlds), 12 orders into a game between two level-1 players.
    let (knowledge, order) = glass_middle_game();
    group.bench_function("looking-glass", |b| {
        b.iter(|| {
            GlassPlayer::new(glass::variant(), Level::new(5).unwrap(), 7)
                .judge(&knowledge, &order)
                .unwrap()
        })
    });
    group.finish();
}

/// What the side to move knows 12 orders into a Looking-Glass game, and the order its
/// level-5 player ranks last (judged against the best: the dearer case).
fn glass_middle_game() -> (Knowledge, String) {
    let variant = glass::variant();
    let mut g = glass::Glass::with_variant(variant.clone(), glass::GlassRules::default());
    g.choose(rules::Side::WHITE, glass::BackRank::orthodox())
        .unwrap();
    g.choose(rules::Side::BLACK, glass::BackRank::orthodox())
        .unwrap();
    let level = Level::new(1).unwrap();
    let mut players = [
        GlassPlayer::new(variant.clone(), level, 1),
        GlassPlayer::new(variant.clone(), level, 2),
    ];
    let knowledge = |g: &glass::Glass| {
        let side = g.turn();
        Knowledge::for_side(
            side,
            g.view(side),
            g.told(side).to_vec(),
            g.rules(),
            g.setup(side).cloned(),
        )
        .unwrap()
    };
    for _ in 0..12 {
        if g.is_over().is_some() {
            break;
        }
        let side = g.turn();
        let choice = players[side.index()].choose(&knowledge(&g)).unwrap();
        let given = choice
            .ranked
            .iter()
            .find(|o| g.clone().order(side, o).is_ok())
            .unwrap()
            .clone();
        g.order(side, &given).unwrap();
    }
    let k = knowledge(&g);
    let last = GlassPlayer::new(variant, Level::new(5).unwrap(), 7)
        .choose(&k)
        .unwrap()
        .ranked
        .last()
        .unwrap()
        .clone();
    (k, last)
}

criterion_group!(benches, per_position);
criterion_main!(benches);
