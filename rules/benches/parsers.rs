//! The worst case of every parser of the engine, by input length: text that is no move, no
//! order, no state text and no variant file, from a few bytes to a megabyte. Each parser
//! reads at most its cap (`notation::MAX_MOVE_BYTES`, `fen::MAX_STATE_BYTES`,
//! `spec::MAX_FILE_BYTES`) and refuses the rest unread, so time is flat past the cap and
//! linear below it. Run: `cargo bench -p rules --bench parsers`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rules::{
    Catalog, Position, Side, fen,
    glass::{BackRank, Glass, GlassRules},
    notation,
};

/// Unparseable text of `len` bytes that keeps a parser busy as long as it can: cell-like
/// fragments, so every split point looks like the start of a cell name.
fn garbage(len: usize) -> String {
    "k10k9a".chars().cycle().take(len).collect()
}

const SIZES: [usize; 6] = [8, 32, 512, 8 * 1024, 100 * 1024, 1024 * 1024];

fn bench(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let toulousain = catalog.get("toulousain").unwrap();
    let pos = Position::start(&toulousain);
    let mut group = c.benchmark_group("parse_move");
    for n in SIZES {
        let text = garbage(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| notation::parse_move(&pos, t).is_err())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("glass_order");
    let mut g = Glass::new(GlassRules::default());
    g.choose(Side::WHITE, BackRank::orthodox()).unwrap();
    g.choose(Side::BLACK, BackRank::orthodox()).unwrap();
    for n in SIZES {
        let text = garbage(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| g.clone().order(Side::WHITE, t).is_err())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("state_text");
    for n in SIZES {
        // A board field of `n` bytes: ranks of digits and letters, never the right count.
        let text: String = "p1P2/".chars().cycle().take(n).collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| fen::position(&toulousain, t).is_err())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("variant_file");
    group.sample_size(20);
    for n in SIZES {
        // A file of `n` bytes: keys that are not in the schema.
        let text: String = "name = \"x\"\nwhat = 1\n".chars().cycle().take(n).collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| rules::spec::parse_file("bench.toml", t).is_err())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
