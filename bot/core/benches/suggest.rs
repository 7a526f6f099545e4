//! What one keystroke in Discord's `/move` autocomplete costs on a 12x12 middlegame: finding
//! the player's game and its position (`GameService::current_game`, remembered by version),
//! then the suggestions for what is typed so far (`suggest::suggest`), for every prefix of a
//! move as it is typed. The aim is at most 2 ms per keystroke.
//!
//! `spellings` compares the two ways of writing every legal move in both notations: one
//! legal-move generation per spelling (`notation::san`/`coord`, as the autocomplete did) and
//! one for all of them (`san_among`/`coord_among`, as it does now).
//!
//! Run: `cargo bench -p bot-core --bench suggest`.

use std::sync::Arc;

use bot_core::{
    Actor, GameService, SystemClock,
    model::{Place, Platform, PlayerId},
    store::memory::MemoryStore,
    suggest,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rules::{Position, notation};

/// A reproducible Toulousain middlegame: 40 plies chosen by a fixed generator, captures first.
fn middlegame_moves() -> Vec<String> {
    let v = rules::Catalog::builtin().get("toulousain").unwrap();
    let mut pos = Position::start(&v);
    let mut seed = 2026u64;
    let mut moves = Vec::new();
    for _ in 0..40 {
        let legal = pos.legal_moves();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = legal[(seed >> 33) as usize % legal.len()];
        moves.push(notation::coord(&pos, m));
        pos.play_unchecked(m);
        if pos.outcome().is_some() {
            break;
        }
    }
    moves
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let svc = GameService::new(
        MemoryStore::new(),
        SystemClock,
        Arc::new(rules::Catalog::builtin()),
    );
    let room = Place::room(Platform::Discord, "1");
    let player = |name: &str| Actor::new(PlayerId::new(Platform::Discord, name), name);
    let players = [player("10"), player("20")];
    let moves = middlegame_moves();
    runtime.block_on(async {
        svc.handle_text(&players[0], &room, "challenge <@20> toulousain")
            .await;
        svc.handle_text(&players[1], &room, "accept").await;
        for (i, m) in moves.iter().enumerate() {
            svc.handle_text(&players[i % 2], &room, m).await;
        }
    });
    let me = &players[moves.len() % 2];
    let game = runtime
        .block_on(svc.current_game(me, &room, None))
        .expect("the game");
    assert!(game.my_turn);
    let pos = game.position;
    let legal = pos.legal_moves();
    // Type the SAN of a piece move, one keystroke at a time.
    let target = legal
        .iter()
        .map(|m| notation::san(&pos, *m))
        .find(|s| s.starts_with(|c: char| c.is_ascii_uppercase()) && !s.starts_with('O'))
        .unwrap_or_else(|| notation::san(&pos, legal[0]));
    eprintln!(
        "suggest: Toulousain after {} plies, {} legal moves, typing {target}",
        moves.len(),
        legal.len()
    );

    let mut group = c.benchmark_group("keystroke");
    for n in 0..=target.len() {
        let typed = &target[..n];
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}:{typed}")),
            typed,
            |b, typed| {
                b.iter(|| {
                    runtime.block_on(async {
                        let g = svc.current_game(me, &room, None).await.unwrap();
                        suggest::suggest(&g.position, typed).len()
                    })
                })
            },
        );
    }
    group.finish();

    let mut group = c.benchmark_group("spellings");
    group.bench_function("generation_per_spelling", |b| {
        b.iter(|| {
            pos.legal_moves()
                .iter()
                .map(|m| notation::san(&pos, *m).len() + notation::coord(&pos, *m).len())
                .sum::<usize>()
        })
    });
    group.bench_function("one_generation", |b| {
        b.iter(|| {
            let legal = pos.legal_moves();
            legal
                .iter()
                .map(|m| {
                    notation::san_among(&pos, *m, &legal).len()
                        + notation::coord_among(&pos, *m, &legal).len()
                })
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
