//! The book's game pages, generated from the catalogue: one page per variant with its rules
//! in words (the same text as the `rules` command), its start position and a movement diagram
//! of every piece, drawn by the bot's own renderer.
//!
//! Generated rather than written so that a page cannot disagree with the variant file it
//! describes: `cargo run -p bot-core --bin game-pages` writes them, and the test
//! `bot/core/tests/game_pages.rs` fails while a written page differs from what the catalogue
//! gives today.

use std::sync::Arc;

use rules::{Catalog, Position, Variant};

use crate::{picture, text};

/// Where the pages live, relative to the repository's root.
pub const GAMES_DIR: &str = "docs/src/games";

/// The lines of `docs/src/SUMMARY.md` between these markers list the generated pages.
pub const SUMMARY_BEGIN: &str = "<!-- generated game pages: begin -->";
/// See [`SUMMARY_BEGIN`].
pub const SUMMARY_END: &str = "<!-- generated game pages: end -->";

/// One generated file: its path under [`GAMES_DIR`] and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// The path under [`GAMES_DIR`], with `/` separators.
    pub path: String,
    /// The text (Markdown or SVG).
    pub text: String,
}

/// Every generated file of the catalogue, in a stable order, and the summary lines that list
/// the pages (to go between [`SUMMARY_BEGIN`] and [`SUMMARY_END`]).
pub fn game_pages(catalog: &Catalog) -> (Vec<File>, String) {
    let mut files = Vec::new();
    let mut summary = String::new();
    for name in catalog.names() {
        let Ok(v) = catalog.get(&name) else { continue };
        summary.push_str(&format!(
            "  - [{}](games/{name}.md)\n",
            v.display_name.replace(['[', ']'], "")
        ));
        files.extend(variant_files(&name, &v));
    }
    (files, summary)
}

/// The page of one variant and its pictures.
fn variant_files(name: &str, v: &Arc<Variant>) -> Vec<File> {
    let theme = render::Theme::light();
    let mut files = Vec::new();
    let mut page = format!("# {}\n\n", v.display_name);
    page.push_str(&format!(
        "Its name in commands: `{name}` (`challenge @friend {name}`, `play {name} vs bot`, \
         `rules {name}`).\n\n"
    ));
    page.push_str("## Rules\n\n");
    // The `rules` command's text: plain lines, each kept a line of its own.
    for line in text::rules(v).lines() {
        if line.trim().is_empty() {
            continue;
        }
        page.push_str(line.trim_end());
        page.push_str("  \n");
    }
    page.push_str("\n## The start\n\n");
    let start = Position::start(v);
    let start_view = picture::view(&start, None, None, &[]);
    let start_svg = format!("pictures/{name}.svg");
    page.push_str(&format!(
        "![{} at the start]({start_svg})\n\n",
        v.display_name
    ));
    files.push(File {
        path: start_svg,
        text: render::render_svg(&start_view, &theme),
    });
    page.push_str("## The pieces\n\n");
    for kind in v.kinds() {
        let pt = v.piece(kind);
        page.push_str(&format!("### {} ({})\n\n", pt.name, pt.letter));
        page.push_str(&text::sentence(&crate::text::describe::piece(
            v, kind, false,
        )));
        page.push_str("\n\n");
        let file = format!(
            "pictures/{name}-{}.svg",
            pt.name
                .to_lowercase()
                .replace(|c: char| !c.is_alphanumeric(), "-")
        );
        let diagram = picture::piece_diagram(v, kind);
        page.push_str(&format!(
            "![How the {} moves, on an empty board]({file})\n\n",
            pt.name
        ));
        files.push(File {
            path: file,
            text: render::render_svg(&diagram, &theme),
        });
    }
    files.push(File {
        path: format!("{name}.md"),
        text: page,
    });
    files
}

/// `summary` (the text of `SUMMARY.md`) with the generated lines put between the markers.
///
/// # Errors
/// When the markers are missing or out of order: the summary's text, to say where they go.
pub fn with_game_lines(summary: &str, lines: &str) -> Result<String, String> {
    let (Some(begin), Some(end)) = (summary.find(SUMMARY_BEGIN), summary.find(SUMMARY_END)) else {
        return Err(format!(
            "SUMMARY.md needs the lines {SUMMARY_BEGIN} and {SUMMARY_END} under the games"
        ));
    };
    if end < begin {
        return Err(format!("{SUMMARY_END} comes before {SUMMARY_BEGIN}"));
    }
    let head = &summary[..begin + SUMMARY_BEGIN.len()];
    let tail = &summary[end..];
    Ok(format!("{head}\n{lines}{tail}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_has_its_rules_start_and_every_piece() {
        let catalog = Catalog::builtin();
        let v = catalog.get("chess").unwrap();
        let files = variant_files("chess", &v);
        let page = &files.iter().find(|f| f.path == "chess.md").unwrap().text;
        assert!(page.starts_with("# Chess\n"), "{page}");
        for piece in ["King", "Queen", "Rook", "Bishop", "Knight", "Pawn"] {
            assert!(page.contains(&format!("### {piece} (")), "{piece}: {page}");
        }
        assert_eq!(files.len(), 1 + 1 + 6);
        assert!(
            files
                .iter()
                .all(|f| f.path.ends_with(".md") || f.text.starts_with("<svg"))
        );
    }

    #[test]
    fn summary_lines_go_between_the_markers() {
        let summary = format!("# Summary\n- [a](a.md)\n{SUMMARY_BEGIN}\nold\n{SUMMARY_END}\n");
        let new = with_game_lines(&summary, "  - [x](games/x.md)\n").unwrap();
        assert!(new.contains(&format!(
            "{SUMMARY_BEGIN}\n  - [x](games/x.md)\n{SUMMARY_END}"
        )));
        assert!(!new.contains("old"));
        assert!(with_game_lines("# Summary\n", "").is_err());
    }
}
