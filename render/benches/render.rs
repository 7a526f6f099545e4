//! Criterion benchmark of a 12x12 Toulousain start position at chat size: each step and the
//! total. `cargo bench -p render`; for median and p95 in one process see
//! `cargo run --release -p render --example timing`.

#[path = "../examples/common/mod.rs"]
mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use render::{Encoding, Renderer, Theme, encode_png, render_svg};

fn bench(c: &mut Criterion) {
    let renderer = Renderer::new();
    let view = common::toulousain_start();
    let theme = Theme::light();
    let size = common::SIZE;
    let svg = render_svg(&view, &theme);
    let tree = renderer.parse(&svg).expect("our svg parses");
    let pixmap = renderer.rasterize(&tree, size).expect("size is valid");

    let mut g = c.benchmark_group("toulousain_12x12");
    // The bot's pipeline: SVG layers, pixels from cached layers, PNG encode, and all of it.
    g.bench_function("svg_build", |b| {
        b.iter(|| render_svg(black_box(&view), &theme))
    });
    g.bench_function("rasterise_cached_layers", |b| {
        b.iter(|| renderer.pixmap(black_box(&view), &theme, size).unwrap())
    });
    g.bench_function("png_encode_fast", |b| {
        b.iter(|| encode_png(black_box(&pixmap), Encoding::Fast).unwrap())
    });
    g.bench_function("total", |b| {
        b.iter(|| renderer.png(black_box(&view), &theme, size).unwrap())
    });
    // For comparison: the first picture of a variant (cold cache) and the whole SVG through
    // resvg in one go.
    g.bench_function("total_cold_cache", |b| {
        b.iter(|| {
            renderer.clear_cache();
            renderer.png(black_box(&view), &theme, size).unwrap()
        })
    });
    g.bench_function("whole_svg_parse", |b| {
        b.iter(|| renderer.parse(black_box(&svg)).unwrap())
    });
    g.bench_function("whole_svg_rasterise", |b| {
        b.iter(|| renderer.rasterize(black_box(&tree), size).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50);
    targets = bench
}
criterion_main!(benches);
