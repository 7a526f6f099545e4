//! The evaluation graph of an analysed game: the first side's winning chances after every
//! move, as a filled curve with the players' mistakes marked, in the board pictures' font
//! and theme colours.
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
/// The plot area's margins.
const LEFT: f32 = 90.0;
const RIGHT: f32 = 30.0;
const TOP: f32 = 110.0;
const BOTTOM: f32 = 60.0;

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
    /// The legend: each player's caption (name, accuracy) and army, the first side first.
    pub players: Vec<(String, Army)>,
    /// Moves to mark.
    pub marks: Vec<GraphMark>,
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
    let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let last = graph.chances.len().saturating_sub(1).max(1) as f32;
    let x = |i: usize| LEFT + pw * i as f32 / last;
    let y = |c: f32| TOP + ph * (1.0 - c.clamp(0.0, 1.0));
    let first = graph.players.first().map_or(Army::White, |p| p.1);
    let second = graph.players.get(1).map_or(Army::Black, |p| p.1);
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}" font-weight="bold" role="img">"#,
        w = n(WIDTH),
        h = n(HEIGHT)
    );
    let _ = write!(o, "<title>{}</title>", esc(&alt_text(graph)));
    let _ = write!(
        o,
        r#"<rect width="{}" height="{}" fill="{}"/>"#,
        n(WIDTH),
        n(HEIGHT),
        theme.background
    );
    let _ = write!(
        o,
        r#"<text x="{}" y="46" font-size="32" fill="{}">{}</text>"#,
        n(LEFT),
        theme.text,
        esc(&graph.title)
    );
    // The legend: a swatch and a caption per player.
    let mut lx = LEFT;
    for (caption, army) in &graph.players {
        let paint = theme.army(*army);
        let _ = write!(
            o,
            r#"<rect x="{}" y="66" width="24" height="24" rx="4" fill="{}" stroke="{}" stroke-width="2"/><text x="{}" y="87" font-size="24" fill="{}">{}</text>"#,
            n(lx),
            paint.fill,
            paint.outline,
            n(lx + 32.0),
            theme.text,
            esc(caption)
        );
        lx += 32.0 + caption.chars().count() as f32 * 24.0 * 0.62 + 40.0;
    }
    // The second side's area is the whole plot; the first side's is under the curve.
    let _ = write!(
        o,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
        n(LEFT),
        n(TOP),
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
    let _ = write!(
        o,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="3"/>"#,
        n(LEFT),
        n(TOP),
        n(pw),
        n(ph),
        theme.frame
    );
    // The first side's chances on the left.
    for (c, label) in [(1.0, "100%"), (0.5, "50%"), (0.0, "0%")] {
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="22" text-anchor="end" fill="{}">{label}</text>"#,
            n(LEFT - 12.0),
            n(y(c) + 8.0),
            theme.label
        );
    }
    // Move numbers along the bottom: about ten ticks, on round numbers.
    let plies = graph.chances.len().saturating_sub(1);
    let moves = plies.div_ceil(2).max(1);
    let step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500]
        .into_iter()
        .find(|s| moves / s <= 10)
        .unwrap_or(1000);
    let mut m = step;
    while m <= moves {
        let ply = (2 * m - 1).min(plies);
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="22" text-anchor="middle" fill="{}">{m}</text>"#,
            n(x(ply)),
            n(TOP + ph + 32.0),
            theme.label
        );
        m += step;
    }
    // The marks: a ring in the mover's colour with the sign above it.
    for mark in &graph.marks {
        let Some(c) = graph.chances.get(mark.position) else {
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
        let ty = if cy - 22.0 < TOP + 10.0 {
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

/// A text alternative for the picture (the SVG's title; adapters may use it as alt text).
pub fn alt_text(graph: &EvalGraph) -> String {
    let first = graph.players.first().map_or("", |p| p.0.as_str());
    let end = graph.chances.last().map_or(50.0, |c| (c * 100.0).round());
    format!(
        "{}: evaluation graph over {} positions, {} marked moves; {first}'s winning chances end at {end}%.",
        graph.title,
        graph.chances.len(),
        graph.marks.len()
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
            marks: vec![GraphMark {
                position: 2,
                army: Army::Black,
                kind: MarkKind::Blunder,
            }],
        }
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
