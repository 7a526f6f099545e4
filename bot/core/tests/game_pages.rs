//! The book's game pages are what the catalogue gives today: a change to a variant file fails
//! this test until `cargo run -p bot-core --bin game-pages` has written them again.

use std::path::Path;

use bot_core::book::{GAMES_DIR, game_pages, with_game_lines};

#[test]
fn the_generated_game_pages_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join(GAMES_DIR);
    let (files, lines) = game_pages(&rules::Catalog::builtin());
    let mut stale = Vec::new();
    for f in &files {
        match std::fs::read_to_string(dir.join(&f.path)) {
            Ok(text) if text == f.text => {}
            Ok(_) => stale.push(format!("{} differs", f.path)),
            Err(_) => stale.push(format!("{} is missing", f.path)),
        }
    }
    // Nothing generated is left over from a variant or piece that is gone.
    let pictures = std::fs::read_dir(dir.join("pictures")).map_or(Vec::new(), |d| {
        d.map(|e| format!("pictures/{}", e.unwrap().file_name().to_string_lossy()))
            .collect()
    });
    for p in pictures {
        if !files.iter().any(|f| f.path == p) {
            stale.push(format!("{p} is left over"));
        }
    }
    let summary = std::fs::read_to_string(root.join("docs/src/SUMMARY.md")).unwrap();
    if with_game_lines(&summary, &lines).as_deref() != Ok(summary.as_str()) {
        stale.push("SUMMARY.md's game lines differ".into());
    }
    assert!(
        stale.is_empty(),
        "the game pages are out of date; run `cargo run -p bot-core --bin game-pages`:\n{}",
        stale.join("\n")
    );
}
