//! Times the whole pipeline (SVG build + parse + rasterise + PNG encode) of a 12x12
//! Toulousain start position at chat size, N runs in one process, and prints the median and
//! p95 of each step and of the total. Also compares the PNG encoders.
//!
//! ```sh
//! cargo run --release -p render --example timing            # 200 runs
//! cargo run --release -p render --example timing -- 1000
//! ```

mod common;

use std::time::{Duration, Instant};

use render::{Encoding, Renderer, Theme, encode_png, render_svg};

fn stats(name: &str, v: &mut [Duration]) {
    v.sort();
    let pct = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{name:<28} median {:>7.2} ms   p95 {:>7.2} ms   min {:>7.2} ms",
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.95).as_secs_f64() * 1e3,
        v[0].as_secs_f64() * 1e3,
    );
}

fn main() -> Result<(), render::RenderError> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let t0 = Instant::now();
    let renderer = Renderer::new();
    println!(
        "font database built in {:.2} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let view = common::toulousain_start();
    let theme = Theme::light();
    let size = common::SIZE;
    // Warm up.
    for _ in 0..10 {
        renderer.png(&view, &theme, size)?;
    }
    let (mut build, mut pix, mut fast, mut total, mut cold, mut parse, mut raster, mut small) = (
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
    );
    let (mut fast_len, mut small_len, mut svg_len, mut dims) = (0, 0, 0, (0, 0));
    for i in 0..n {
        // What the bot does: one Renderer, many pictures (board layer and sprites cached).
        let t = Instant::now();
        let png = renderer.png(&view, &theme, size)?;
        total.push(t.elapsed());
        fast_len = png.len();

        // The same, step by step.
        let t = Instant::now();
        let svg = render_svg(&view, &theme);
        build.push(t.elapsed());
        svg_len = svg.len();
        let t = Instant::now();
        let pixmap = renderer.pixmap(&view, &theme, size)?;
        pix.push(t.elapsed());
        dims = (pixmap.width(), pixmap.height());
        let t = Instant::now();
        encode_png(&pixmap, Encoding::Fast)?;
        fast.push(t.elapsed());

        // Slower paths, on a quarter of the runs: a cold cache (first picture of a variant,
        // theme and size), the whole SVG through resvg in one go, the small encoder.
        if i % 4 == 0 {
            renderer.clear_cache();
            let t = Instant::now();
            renderer.png(&view, &theme, size)?;
            cold.push(t.elapsed());
            let t = Instant::now();
            let tree = renderer.parse(&svg)?;
            parse.push(t.elapsed());
            let t = Instant::now();
            renderer.rasterize(&tree, size)?;
            raster.push(t.elapsed());
            let t = Instant::now();
            small_len = encode_png(&pixmap, Encoding::Small)?.len();
            small.push(t.elapsed());
        }
    }
    println!(
        "12x12 Toulousain start, {}x{} px, SVG {} KB, {n} runs ({} for the slow paths)",
        dims.0,
        dims.1,
        svg_len / 1024,
        cold.len()
    );
    stats("TOTAL Renderer::png (warm)", &mut total);
    stats("  svg build (render_svg)", &mut build);
    stats("  pixmap from cached layers", &mut pix);
    stats("  png encode, Fast (RGB)", &mut fast);
    stats("TOTAL cold cache", &mut cold);
    stats("whole SVG: parse (usvg)", &mut parse);
    stats("whole SVG: rasterise (resvg)", &mut raster);
    stats("png encode, Small (RGB best)", &mut small);
    // The issue's "default encoder": tiny-skia's own encode_png (RGBA, png's default level).
    let pixmap = renderer.pixmap(&view, &theme, size)?;
    let mut default = Vec::new();
    let mut len = 0;
    for _ in 0..(n / 4).max(5) {
        let t = Instant::now();
        len = pixmap.encode_png().map(|v| v.len()).unwrap_or(0);
        default.push(t.elapsed());
    }
    stats("png encode, tiny-skia default", &mut default);
    println!(
        "sizes: Fast {} KB, Small {} KB, tiny-skia default {} KB",
        fast_len / 1024,
        small_len / 1024,
        len / 1024
    );
    Ok(())
}
