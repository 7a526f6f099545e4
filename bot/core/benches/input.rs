//! The worst case of what a user can type, by length: a line that is no command, and a
//! "bare move" that is no move, through the command parser alone and through the whole
//! service (store in memory, a Toulousain game in progress), from a few bytes to a megabyte.
//! Lines over `quote::MAX_COMMAND_BYTES` are refused unread, so time is flat past the cap.
//! Run: `cargo bench -p bot-core --bench input`.

use std::sync::Arc;

use bot_core::{
    Actor, GameService, SystemClock, command,
    model::{Place, Platform, PlayerId},
    store::memory::MemoryStore,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const SIZES: [usize; 6] = [8, 64, 500, 8 * 1024, 100 * 1024, 1024 * 1024];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("command_parse");
    for n in SIZES {
        // An unknown first word as long as the line: the "did you mean" distance's worst case.
        let line: String = "chalenge".chars().cycle().take(n).collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &line, |b, l| {
            b.iter(|| command::parse(l).is_err())
        });
    }
    group.finish();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let svc = GameService::new(
        MemoryStore::new(),
        SystemClock,
        Arc::new(rules::Catalog::builtin()),
    );
    let room = Place::room(Platform::Matrix, "!room:example.org");
    let player = |name: &str| {
        Actor::new(
            PlayerId::new(Platform::Matrix, format!("@{name}:example.org")),
            name.to_string(),
        )
    };
    let (alice, bob) = (player("alice"), player("bob"));
    runtime.block_on(async {
        svc.handle_text(&alice, &room, "challenge @bob:example.org toulousain")
            .await;
        svc.handle_text(&bob, &room, "accept").await;
    });
    let mut group = c.benchmark_group("service_bare_move");
    for n in SIZES {
        // Cell-like fragments: what made the old move parser quadratic.
        let line: String = "k10k9a".chars().cycle().take(n).collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &line, |b, l| {
            b.iter(|| runtime.block_on(svc.handle_text(&alice, &room, l)).len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
