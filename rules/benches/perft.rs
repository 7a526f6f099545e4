//! Perft speed (single thread, bulk counting) on every variant with published numbers, plus
//! Toulousain and one form each of the looped-board families (Ecumenical Wraparound and
//! Moebius, Double Cross Moebius). Criterion reports the time per perft call; nodes per second = leaves / time
//! (the leaf counts are printed once at start). Run: `cargo bench -p rules --bench perft`.

use criterion::{Criterion, criterion_group, criterion_main};
use rules::{Catalog, Position, perft::perft};

const CASES: &[(&str, u32)] = &[
    ("chess", 4),
    ("capablanca", 3),
    ("grand", 3),
    ("courier", 3),
    ("toulousain", 3),
    ("ecumenical-wraparound", 3),
    ("ecumenical-moebius", 3),
    ("dcb-balanced-moebius", 4),
];

fn bench(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let mut group = c.benchmark_group("perft");
    group.sample_size(20);
    for &(name, depth) in CASES {
        let v = catalog.get(name).unwrap();
        let mut pos = Position::start(&v);
        let leaves = perft(&mut pos, depth);
        println!("{name} depth {depth}: {leaves} leaves");
        group.throughput(criterion::Throughput::Elements(leaves));
        group.bench_function(format!("{name}/d{depth}"), |b| {
            b.iter(|| perft(&mut pos, depth))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
