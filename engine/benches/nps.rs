//! Search speed per variant: a fixed-node search from the start position (nodes per second
//! is the node count over the measured time).

use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::{Evaluator, Searcher, search::Limits};
use rules::{Catalog, Position};

const NODES: u64 = 20_000;

fn nps(c: &mut Criterion) {
    let catalog = Catalog::builtin();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.warm_up_time(std::time::Duration::from_millis(500));
    group.measurement_time(std::time::Duration::from_secs(2));
    group.throughput(Throughput::Elements(NODES));
    let mut names = catalog.names();
    names.sort();
    for name in names {
        let v = catalog.get(&name).unwrap();
        let eval = Arc::new(Evaluator::new(&v));
        let start = Position::start(&v);
        group.bench_function(&name, |b| {
            b.iter(|| {
                let mut s = Searcher::new(eval.clone(), 4);
                let mut pos = start.clone();
                s.search(
                    &mut pos,
                    &Limits {
                        nodes: Some(NODES),
                        ..Limits::default()
                    },
                    |_| {},
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, nps);
criterion_main!(benches);
