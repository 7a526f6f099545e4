//! The evaluation graph of an analysed game: the first side's winning chances after every
//! move, as a filled curve with the players' mistakes marked, in the board pictures' font
//! and theme colours. A game of more than two players has a line per player instead (each
//! in its army's colour and a dash of its own, so the lines differ without colour).
//!
//! Plain data in ([`EvalGraph`]), SVG text out ([`graph_svg`]); [`Renderer::graph_png`]
//! rasterises it like a board. The SVG is complete on its own (a web page can inline it).
//!
//! ```
//! use render::{Army, EvalGraph, GraphMark, MarkKind, Renderer, Theme};
//!
//! let graph = EvalGraph {
//!     title: "Game 7 · Chess".into(),
//!     chances: vec![0.5, 0.55, 0.52, 0.2, 0.25],
//!     others: vec![],
//!     numbers: vec![],
//!     players: vec![("alice".into(), Army::White), ("bob".into(), Army::Black)],
//!     marks: vec![GraphMark { position: 3, army: Army::White, kind: MarkKind::Blunder }],
//! };
//! let svg = render::graph_svg(&graph, &Theme::light());
//! assert!(svg.starts_with("<svg") && svg.contains("alice"));
//! let png = Renderer::new().graph_png(&graph, &Theme::light(), 800)?;
//! assert_eq!(&png[1..4], b"PNG");
//! # Ok::<(), render::RenderError>(())
//! ```

use std::fmt::Write;

use crate::{
    Renderer,
    raster::{RenderError, encode_png},
    svg::{FONT_FAMILY, esc},
    theme::Theme,
    view::Army,
};

/// The picture's size in SVG units (rasterised to any width).
const WIDTH: f32 = 1200.0;
const HEIGHT: f32 = 520.0;
/// The plot area's margins (the top one with one row of legend; each more row adds
/// [`LEGEND_ROW`]).
const LEFT: f32 = 90.0;
const RIGHT: f32 = 30.0;
const TOP: f32 = 110.0;
const BOTTOM: f32 = 60.0;
const LEGEND_ROW: f32 = 34.0;
/// The most characters of the title the width holds (about 0.6 em a character at 32 units):
/// a longer one (four players' names) is cut with an ellipsis; the alt text keeps it whole.
const TITLE_CHARS: usize = 56;
/// The dash of each player's line with more than two players (the first solid).
const DASHES: [&str; 4] = ["", "22 10", "6 8", "22 8 6 8"];

/// How bad a marked move was: drawn with its sign (`?!`, `?`, `??`) as well as its colour,
/// so the marks differ without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkKind {
    /// A small loss.
    Inaccuracy,
    /// A real loss.
    Mistake,
    /// A decisive loss.
    Blunder,
}

impl MarkKind {
    /// The annotation sign chess players know.
    pub fn sign(self) -> &'static str {
        match self {
            MarkKind::Inaccuracy => "?!",
            MarkKind::Mistake => "?",
            MarkKind::Blunder => "??",
        }
    }
}

/// A move marked on the curve.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GraphMark {
    /// The position the move led to (index into [`EvalGraph::chances`]).
    pub position: usize,
    /// Whose move it was (its colour).
    pub army: Army,
    /// How bad it was.
    pub kind: MarkKind,
}

/// An analysed game's evaluation graph.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalGraph {
    /// The line above the plot ("Game 12 · Chess").
    pub title: String,
    /// The first side's winning chances (0 to 1) in each position, the start first.
    pub chances: Vec<f32>,
    /// With more than two players, the others' chances (against the table) likewise, in
    /// the order of `players` from the second: the graph then draws a line per player.
    /// Empty with two, where the first side's curve says it all.
    pub others: Vec<Vec<f32>>,
    /// The legend: each player's caption (name, accuracy) and army, the first side first.
    pub players: Vec<(String, Army)>,
    /// Moves to mark.
    pub marks: Vec<GraphMark>,
    /// The move number of the move that led to each position (0 for the start), as the
    /// game counts them, for the ticks along the bottom; empty to count a move per player
    /// from the first (right for a game without setup actions, strikes or players out).
    pub numbers: Vec<u32>,
}

/// `text` cut to `max` characters, the last one an ellipsis when it was longer.
fn fit(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Formats a coordinate with at most one decimal.
fn n(v: f32) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// The graph as SVG text.
pub fn graph_svg(graph: &EvalGraph, theme: &Theme) -> String {
    let several = !graph.others.is_empty();
    // The legend's items (a swatch and a caption each), in as many rows as they need.
    let mut legend = Vec::with_capacity(graph.players.len());
    let (mut lx, mut row) = (LEFT, 0usize);
    for (caption, army) in &graph.players {
        let width = 32.0 + caption.chars().count() as f32 * 24.0 * 0.62;
        if lx > LEFT && lx + width > WIDTH - RIGHT {
            (lx, row) = (LEFT, row + 1);
        }
        legend.push((lx, row, caption, *army));
        lx += width + 40.0;
    }
    let top = TOP + LEGEND_ROW * row as f32;
    let height = HEIGHT + LEGEND_ROW * row as f32;
    let (pw, ph) = (WIDTH - LEFT - RIGHT, height - top - BOTTOM);
    let last = graph.chances.len().saturating_sub(1).max(1) as f32;
    let x = |i: usize| LEFT + pw * i as f32 / last;
    let y = |c: f32| top + ph * (1.0 - c.clamp(0.0, 1.0));
    let first = graph.players.first().map_or(Army::White, |p| p.1);
    let second = graph.players.get(1).map_or(Army::Black, |p| p.1);
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}" font-weight="bold" role="img">"#,
        w = n(WIDTH),
        h = n(height)
    );
    let _ = write!(o, "<title>{}</title>", esc(&alt_text(graph)));
    let _ = write!(
        o,
        r#"<rect width="{}" height="{}" fill="{}"/>"#,
        n(WIDTH),
        n(height),
        theme.background
    );
    let _ = write!(
        o,
        r#"<text x="{}" y="46" font-size="32" fill="{}">{}</text>"#,
        n(LEFT),
        theme.text,
        esc(&fit(&graph.title, TITLE_CHARS))
    );
    for (i, (lx, row, caption, army)) in legend.iter().enumerate() {
        let paint = theme.army(*army);
        let dy = LEGEND_ROW * *row as f32;
        if several {
            // A piece of the player's line.
            let d = format!(
                "M{} {} L{} {}",
                n(*lx),
                n(78.0 + dy),
                n(lx + 24.0),
                n(78.0 + dy)
            );
            o.push_str(&line_path(&d, paint, DASHES[i % DASHES.len()]));
        } else {
            let _ = write!(
                o,
                r#"<rect x="{}" y="{}" width="24" height="24" rx="4" fill="{}" stroke="{}" stroke-width="2"/>"#,
                n(*lx),
                n(66.0 + dy),
                paint.fill,
                paint.outline,
            );
        }
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="24" fill="{}">{}</text>"#,
            n(lx + 32.0),
            n(87.0 + dy),
            theme.text,
            esc(caption)
        );
    }
    if !several {
        // The second side's area is the whole plot; the first side's is under the curve.
        // (With more players, nobody's: a line each over the page's background.)
        let _ = write!(
            o,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            n(LEFT),
            n(top),
            n(pw),
            n(ph),
            theme.army(second).fill
        );
        if !graph.chances.is_empty() {
            let mut d = format!("M{} {}", n(x(0)), n(y(0.0)));
            for (i, c) in graph.chances.iter().enumerate() {
                let _ = write!(d, " L{} {}", n(x(i)), n(y(*c)));
            }
            if graph.chances.len() == 1 {
                let _ = write!(d, " L{} {}", n(x(1)), n(y(graph.chances[0])));
                let _ = write!(d, " L{} {}", n(x(1)), n(y(0.0)));
            } else {
                let _ = write!(d, " L{} {}", n(x(graph.chances.len() - 1)), n(y(0.0)));
            }
            d.push_str(" Z");
            let _ = write!(
                o,
                r#"<path d="{d}" fill="{}" stroke="{}" stroke-width="3" stroke-linejoin="round"/>"#,
                theme.army(first).fill,
                theme.frame
            );
        }
    }
    // The even line and the frame.
    let _ = write!(
        o,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2" stroke-dasharray="10 8"/>"#,
        n(LEFT),
        n(y(0.5)),
        n(LEFT + pw),
        n(y(0.5)),
        theme.muted
    );
    let lines = graph.lines();
    if several {
        // The players' lines, the first on top.
        for (i, line) in lines.iter().enumerate().rev() {
            let Some(army) = graph.players.get(i).map(|p| p.1) else {
                continue;
            };
            let mut d = String::new();
            for (j, c) in line.iter().enumerate() {
                let _ = write!(
                    d,
                    "{}{} {}",
                    if j == 0 { "M" } else { " L" },
                    n(x(j)),
                    n(y(*c))
                );
            }
            if line.len() == 1 {
                let _ = write!(d, " L{} {}", n(x(1)), n(y(line[0])));
            }
            if !d.is_empty() {
                o.push_str(&line_path(&d, theme.army(army), DASHES[i % DASHES.len()]));
            }
        }
    }
    let _ = write!(
        o,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="3"/>"#,
        n(LEFT),
        n(top),
        n(pw),
        n(ph),
        theme.frame
    );
    // The chances on the left.
    for (c, label) in [(1.0, "100%"), (0.5, "50%"), (0.0, "0%")] {
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="22" text-anchor="end" fill="{}">{label}</text>"#,
            n(LEFT - 12.0),
            n(y(c) + 8.0),
            theme.label
        );
    }
    // Move numbers along the bottom: about ten ticks, on round numbers (a move being a
    // round of every player's turn), each at the position after the first move of its
    // round.
    let seats = graph.players.len().max(2);
    let plies = graph.chances.len().saturating_sub(1);
    let numbered = graph.numbers.len() == graph.chances.len() && plies > 0;
    let moves = if numbered {
        graph.numbers.iter().copied().max().unwrap_or(0) as usize
    } else {
        plies.div_ceil(seats)
    }
    .max(1);
    let step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500]
        .into_iter()
        .find(|s| moves / s <= 10)
        .unwrap_or(1000);
    let mut m = step;
    while m <= moves {
        let ply = if numbered {
            match graph.numbers.iter().position(|&k| k as usize == m) {
                Some(i) => i,
                None => {
                    m += step;
                    continue;
                }
            }
        } else {
            (seats * (m - 1) + 1).min(plies)
        };
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="22" text-anchor="middle" fill="{}">{m}</text>"#,
            n(x(ply)),
            n(top + ph + 32.0),
            theme.label
        );
        m += step;
    }
    // The marks: a ring in the mover's colour with the sign above it, on the mover's line.
    for mark in &graph.marks {
        let line = graph
            .players
            .iter()
            .position(|p| p.1 == mark.army)
            .filter(|_| several)
            .and_then(|i| lines.get(i).copied())
            .unwrap_or(&graph.chances);
        let Some(c) = line.get(mark.position) else {
            continue;
        };
        let paint = theme.army(mark.army);
        let (cx, cy) = (x(mark.position), y(*c));
        let colour = match mark.kind {
            MarkKind::Blunder => &theme.check,
            MarkKind::Mistake => &theme.capture,
            MarkKind::Inaccuracy => &theme.last_move,
        };
        let _ = write!(
            o,
            r#"<circle cx="{}" cy="{}" r="11" fill="{}" stroke="{colour}" stroke-width="5"/>"#,
            n(cx),
            n(cy),
            paint.fill
        );
        let ty = if cy - 22.0 < top + 10.0 {
            cy + 44.0
        } else {
            cy - 20.0
        };
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="24" text-anchor="middle" fill="{}" stroke="{}" stroke-width="4" paint-order="stroke">{}</text>"#,
            n(cx),
            n(ty),
            theme.text,
            theme.background,
            mark.kind.sign()
        );
    }
    o.push_str("</svg>");
    o
}

impl EvalGraph {
    /// Every player's line: the first side's chances, then the others'.
    fn lines(&self) -> Vec<&Vec<f32>> {
        std::iter::once(&self.chances).chain(&self.others).collect()
    }
}

/// A player's line: its outline wide and solid under its colour, dashed, so that a light
/// army shows on a light page and the dashes show in the outline's colour.
fn line_path(d: &str, paint: &crate::theme::ArmyPaint, dash: &str) -> String {
    let dash = if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    };
    format!(
        r#"<path d="{d}" fill="none" stroke="{}" stroke-width="9" stroke-linejoin="round" stroke-linecap="round"/><path d="{d}" fill="none" stroke="{}" stroke-width="5" stroke-linejoin="round"{dash}/>"#,
        paint.outline, paint.fill
    )
}

/// A text alternative for the picture (the SVG's title; adapters may use it as alt text).
pub fn alt_text(graph: &EvalGraph) -> String {
    let head = format!(
        "{}: evaluation graph over {} positions, {} marked moves",
        graph.title,
        graph.chances.len(),
        graph.marks.len()
    );
    let end = |line: &[f32]| line.last().map_or(50.0, |c| (c * 100.0).round());
    if graph.others.is_empty() {
        let first = graph.players.first().map_or("", |p| p.0.as_str());
        return format!(
            "{head}; {first}'s winning chances end at {}%.",
            end(&graph.chances)
        );
    }
    let ends: Vec<String> = graph
        .lines()
        .into_iter()
        .zip(&graph.players)
        .map(|(line, p)| format!("{} {}%", p.0, end(line)))
        .collect();
    format!(
        "{head}; each player's chances against the table end at: {}.",
        ends.join(", ")
    )
}

impl Renderer {
    /// The graph as a PNG `width` pixels wide.
    ///
    /// # Errors
    ///
    /// [`RenderError::Size`] if `width` is 0 or above [`crate::MAX_SIDE`].
    pub fn graph_png(
        &self,
        graph: &EvalGraph,
        theme: &Theme,
        width: u32,
    ) -> Result<Vec<u8>, RenderError> {
        let pixmap = self.rasterize_svg(&graph_svg(graph, theme), width)?;
        encode_png(&pixmap, self.encoding())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(chances: Vec<f32>) -> EvalGraph {
        EvalGraph {
            title: "Game 1 · Chess".into(),
            chances,
            players: vec![
                ("alice <b> 91%".into(), Army::White),
                ("bob 40%".into(), Army::Black),
            ],
            others: vec![],
            numbers: vec![],
            marks: vec![GraphMark {
                position: 2,
                army: Army::Black,
                kind: MarkKind::Blunder,
            }],
        }
    }

    /// Four players: a line each (two paths: outline and dashed colour), the legend on two
    /// rows when it does not fit one, each mark on its mover's line, and an alt text that
    /// names every player's end.
    #[test]
    fn four_players_get_a_line_each_and_marks_on_their_own() {
        let armies = [Army::Red, Army::Blue, Army::Yellow, Army::Green];
        let names = [
            "alice (Red) 91%",
            "bob (Blue) 40%",
            "carol (Yellow) 77%",
            "dave (Green) 12%",
        ];
        let g = EvalGraph {
            title: "Game 9 · DCB".into(),
            chances: vec![0.6, 0.6, 0.7, 0.7, 1.0],
            others: vec![
                vec![0.5, 0.2, 0.2, 0.2, 0.0],
                vec![0.4, 0.4, 0.4, 0.45, 0.0],
                vec![0.5, 0.5, 0.5, 0.5, 0.0],
            ],
            // Move 2 begins at the third half-move (a player was out).
            numbers: vec![0, 1, 1, 2, 2],
            players: names
                .iter()
                .zip(armies)
                .map(|(n, a)| (n.to_string(), a))
                .collect(),
            marks: vec![GraphMark {
                position: 1,
                army: Army::Blue,
                kind: MarkKind::Blunder,
            }],
        };
        let theme = Theme::light();
        let svg = graph_svg(&g, &theme);
        assert!(Renderer::new().parse(&svg).is_ok());
        for a in armies {
            let fill = &theme.army(a).fill;
            assert!(
                svg.contains(&format!("fill=\"none\" stroke=\"{fill}\"")),
                "{a:?}'s line"
            );
        }
        assert_eq!(
            svg.matches("stroke-dasharray=\"22 10\"").count(),
            2,
            "line and legend"
        );
        // Blue's blunder sits on Blue's line at 20%, not on Red's at 60%.
        let ring = svg.split("<circle").nth(1).unwrap();
        let (top, ph) = (
            TOP + LEGEND_ROW,
            HEIGHT + LEGEND_ROW - (TOP + LEGEND_ROW) - BOTTOM,
        );
        assert!(
            ring.contains(&format!("cy=\"{}\"", n(top + ph * 0.8))),
            "{ring}"
        );
        assert!(
            svg.contains(&format!("height=\"{}\"", n(HEIGHT + LEGEND_ROW))),
            "two legend rows"
        );
        assert!(
            svg.contains(&format!(
                r#"<text x="{}" y="{}" font-size="22" text-anchor="middle" fill="{}">2</text>"#,
                n(LEFT + (WIDTH - LEFT - RIGHT) * 0.75),
                n(top + ph + 32.0),
                theme.label
            )),
            "move 2's tick where the game's numbers put it"
        );
        let alt = alt_text(&g);
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abcd", 4), "abcd");
        assert!(
            alt.contains("alice (Red) 91% 100%") && alt.contains("dave (Green) 12% 0%"),
            "{alt}"
        );
        let png = Renderer::new()
            .graph_png(&g, &Theme::colour_blind(), 600)
            .unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }

    #[test]
    fn the_curve_has_a_point_per_position_and_names_are_escaped() {
        let svg = graph_svg(&graph(vec![0.5, 0.6, 0.9, 1.0]), &Theme::light());
        let path = svg.split("<path d=\"").nth(1).unwrap();
        let d = &path[..path.find('"').unwrap()];
        // The start on the axis, one point per position, back to the axis.
        assert_eq!(d.matches('L').count(), 4 + 1, "{d}");
        assert!(svg.contains("alice &lt;b&gt; 91%"));
        assert!(!svg.contains("<b>"));
        assert!(svg.contains(">??</text>"));
        assert!(Renderer::new().parse(&svg).is_ok());
    }

    #[test]
    fn every_theme_rasterises_even_a_game_without_moves() {
        let r = Renderer::new();
        for theme in Theme::all() {
            for chances in [vec![], vec![0.5], vec![0.5, 0.1]] {
                let png = r.graph_png(&graph(chances), &theme, 600).unwrap();
                assert_eq!(&png[1..4], b"PNG");
            }
        }
        assert!(r.graph_png(&graph(vec![0.5]), &Theme::dark(), 0).is_err());
    }

    #[test]
    fn ticks_stay_about_ten_for_long_games() {
        let long = graph((0..=601).map(|i| (i % 7) as f32 / 7.0).collect());
        let svg = graph_svg(&long, &Theme::light());
        let ticks = svg
            .matches(r#"font-size="22" text-anchor="middle""#)
            .count();
        assert!((5..=11).contains(&ticks), "{ticks}");
    }
}
