//! Writes the gallery: every variant's start position, a mid-game position with every mark,
//! each theme, movement diagrams and the piece sheet.
//!
//! ```sh
//! cargo run --release -p render --example gallery            # into docs/src/gallery/
//! cargo run --release -p render --example gallery -- out/    # somewhere else
//! cargo run --release -p render --example gallery -- out/ --svg   # also write the SVGs
//! ```

mod common;

use std::{error::Error, fs, path::PathBuf};

use common::*;
use render::{Army, BoardView, Encoding, Renderer, Rotation, Theme};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "docs/src/gallery".into()));
    let write_svg = std::env::args().any(|a| a == "--svg");
    fs::create_dir_all(&dir)?;
    // The gallery is committed: spend the time on the smaller encoding.
    let renderer = Renderer::new().with_encoding(Encoding::Small);
    let light = Theme::light();
    let mut items: Vec<(String, BoardView, Theme)> = vec![
        ("toulousain".into(), toulousain_start(), light.clone()),
        ("bilateral".into(), bilateral_start(), light.clone()),
        ("capablanca".into(), capablanca_start(), light.clone()),
        ("fide".into(), fide_start(), light.clone()),
        (
            "lookingglass-white".into(),
            looking_glass(Army::White),
            light.clone(),
        ),
        (
            "lookingglass-black".into(),
            looking_glass(Army::Black),
            light.clone(),
        ),
        ("wraparound".into(), wraparound(), light.clone()),
        ("moebius-besiege".into(), moebius_besiege(), light.clone()),
        ("double-cross".into(), dcb_balanced(), light.clone()),
        ("coblache".into(), coblache(), light.clone()),
        (
            "four-player-red".into(),
            dcb_four(Army::Red, Rotation::None),
            light.clone(),
        ),
        (
            "four-player-blue".into(),
            dcb_four(Army::Blue, Rotation::Clockwise),
            Theme::colour_blind(),
        ),
        (
            "pieces".into(),
            piece_sheet(&[Army::White, Army::Black]),
            light.clone(),
        ),
        (
            "pieces-four".into(),
            piece_sheet(&[Army::Red, Army::Blue, Army::Yellow, Army::Green]),
            light.clone(),
        ),
        (
            "midgame-black".into(),
            bilateral_midgame(Army::Black),
            light.clone(),
        ),
    ];
    for theme in Theme::all() {
        items.push((
            format!("midgame-{}", theme.name),
            bilateral_midgame(Army::White),
            theme,
        ));
    }
    for (name, view) in diagrams() {
        items.push((name.into(), view, light.clone()));
    }
    for (name, view, theme) in &items {
        view.validate().map_err(|e| format!("{name}: {e}"))?;
        let png = renderer.png(view, theme, SIZE)?;
        fs::write(dir.join(format!("{name}.png")), &png)?;
        if write_svg {
            fs::write(dir.join(format!("{name}.svg")), renderer.svg(view, theme))?;
        }
        println!("{name}.png  {} KB", png.len() / 1024);
    }
    Ok(())
}
