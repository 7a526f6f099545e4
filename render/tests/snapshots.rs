//! SVG snapshot tests: the SVG text of a few representative views must match the committed
//! files in `tests/snapshots/` byte for byte. After an intended change, regenerate them with
//!
//! ```sh
//! UPDATE_SNAPSHOTS=1 cargo test -p render --test snapshots
//! ```
//!
//! and look at the diff (and at the gallery) before committing.

#[path = "../examples/common/mod.rs"]
mod common;

use std::path::PathBuf;

use render::{Army, BoardView, Rotation, Theme, render_svg};

fn check(name: &str, view: &BoardView, theme: &Theme) {
    view.validate().expect("sample views are valid");
    let svg = render_svg(view, theme);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.svg"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &svg).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    if svg != expected {
        let line = svg.lines().zip(expected.lines()).position(|(a, b)| a != b);
        let at = svg
            .bytes()
            .zip(expected.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{name}: SVG differs from {} (first difference at byte {at}, line {line:?}):\n got: {}\nwant: {}\n\
             If the change is intended: UPDATE_SNAPSHOTS=1 cargo test -p render --test snapshots",
            path.display(),
            &svg[at.saturating_sub(60)..(at + 60).min(svg.len())],
            &expected[at.saturating_sub(60)..(at + 60).min(expected.len())],
        );
    }
}

#[test]
fn fide_start() {
    check("fide-start", &common::fide_start(), &Theme::light());
}

#[test]
fn toulousain_start() {
    check(
        "toulousain-start",
        &common::toulousain_start(),
        &Theme::light(),
    );
}

#[test]
fn bilateral_midgame_every_mark_dark_black_view() {
    check(
        "bilateral-midgame-black-dark",
        &common::bilateral_midgame(Army::Black),
        &Theme::dark(),
    );
}

#[test]
fn looking_glass_white_view() {
    check(
        "looking-glass-white",
        &common::looking_glass(Army::White),
        &Theme::light(),
    );
}

#[test]
fn moebius_joins() {
    check(
        "moebius-besiege",
        &common::moebius_besiege(),
        &Theme::light(),
    );
}

#[test]
fn four_player_rotated_colour_blind() {
    check(
        "four-player-blue",
        &common::dcb_four(Army::Blue, Rotation::Clockwise),
        &Theme::colour_blind(),
    );
}

#[test]
fn coblache_rivers() {
    check("coblache", &common::coblache(), &Theme::light());
}

#[test]
fn movement_diagram() {
    let (_, view) = common::diagrams()
        .into_iter()
        .find(|(n, _)| *n == "diagram-wizard")
        .expect("wizard diagram");
    check("diagram-wizard", &view, &Theme::light());
}
