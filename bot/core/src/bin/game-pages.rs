//! Writes the book's game pages from the catalogue (`bot_core::book`):
//!
//! ```text
//! cargo run -p bot-core --bin game-pages            # from the repository's root
//! ```
//!
//! Every file under `docs/src/games/` that the catalogue no longer gives is removed, except
//! `index.md` (written by hand), and the summary's generated lines are replaced.

use std::path::Path;

use bot_core::book::{GAMES_DIR, game_pages, with_game_lines};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join(GAMES_DIR);
    let (files, lines) = game_pages(&rules::Catalog::builtin());
    // Old generated files go: pictures/ entirely, and every page but the hand-written index.
    let pictures = dir.join("pictures");
    if pictures.exists() {
        std::fs::remove_dir_all(&pictures)?;
    }
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("index.md") {
            std::fs::remove_file(path)?;
        }
    }
    std::fs::create_dir_all(&pictures)?;
    for f in &files {
        std::fs::write(dir.join(&f.path), &f.text)?;
    }
    let summary_path = root.join("docs/src/SUMMARY.md");
    let summary = std::fs::read_to_string(&summary_path)?;
    std::fs::write(&summary_path, with_game_lines(&summary, &lines)?)?;
    println!("{} files written under {GAMES_DIR}", files.len());
    Ok(())
}
