//! The SVG writer: [`BoardView`] + [`Theme`] -> SVG text.
//!
//! Output is plain SVG 1.1 that resvg understands fully: no CSS, no filters (they are slow and
//! differ between renderers), no external references. Geometry is written with at most one
//! decimal, so the text is stable and diffable (the snapshot tests compare it byte for byte).
//! Drawing order: background, header, frames and squares, rivers, cell highlights, join strips,
//! coordinates, pieces, piece badges, targets, arrows, player rows, footer.

use std::{collections::BTreeSet, fmt::Write as _};

use crate::{
    artwork,
    layout::{
        self, CELL, FOOTER_LINE, FRAME, InfoPlace, JOIN_BAND, LABEL_BAND, Layout, PAD, PLAYER_ROW,
        PanelLayout, SIDEBAR, TITLE_BAND,
    },
    theme::Theme,
    view::{ArrowKind, BoardPanel, BoardView, Edge, Glyph, Piece, PlayerInfo, Square, TargetKind},
};

/// Font family named in the SVG; the renderer's font database maps it to the embedded font.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans";

/// Formats a coordinate with at most one decimal and no trailing ".0".
struct N(f32);

impl std::fmt::Display for N {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = (self.0 * 10.0).round() / 10.0;
        if v == v.trunc() {
            write!(f, "{}", v as i64)
        } else {
            write!(f, "{v:.1}")
        }
    }
}

/// What stands for a character the embedded font cannot draw (a white square, which it can).
const MISSING_GLYPH: char = '□';

/// Escapes text for SVG, with every character the embedded font cannot draw replaced by
/// [`MISSING_GLYPH`]: no system font is ever used (pictures must be the same on every
/// machine), so such a character would otherwise vanish from the picture, with a warning in
/// the log at every drawing (an emoji in a player's name, a symbol in a caption).
pub(crate) fn esc(s: &str) -> String {
    use skrifa::MetadataProvider;
    let font = skrifa::FontRef::new(crate::raster::FONT).ok();
    let charmap = font.as_ref().map(|f| f.charmap());
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c if c.is_control() => {}
            ' ' => o.push(' '),
            c if charmap.as_ref().is_some_and(|m| m.map(c).is_none()) => o.push(MISSING_GLYPH),
            c => o.push(c),
        }
    }
    o
}

/// Rough advance width of DejaVu Sans Bold text (we lay out before shaping; an estimate is
/// enough to place the captured-pieces row after a name).
fn text_width(s: &str, size: f32) -> f32 {
    s.chars().count() as f32 * size * 0.62
}

/// Shortens a display name to `max` characters with an ellipsis.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A piece drawing placed on the canvas: a `<use>` in the SVG, a cached sprite in the PNG.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sprite {
    /// What to draw.
    pub piece: Piece,
    /// Top-left corner.
    pub x: f32,
    /// Top-left corner.
    pub y: f32,
    /// Width and height in user units (a cell is [`CELL`]).
    pub size: f32,
    /// Group opacity, if not opaque.
    pub opacity: Option<f32>,
}

/// The picture in layers, bottom to top. The SVG is their concatenation; the PNG path caches
/// the `board` layer and the piece sprites, which are most of the work (see `raster`).
#[derive(Debug, Clone)]
pub(crate) struct Scene {
    /// Canvas width in user units.
    pub width: f32,
    /// Canvas height in user units.
    pub height: f32,
    /// Depends only on the boards, the rotation, the layout and the theme: background, board
    /// titles, frames, squares, rivers, join strips, coordinates, veils.
    pub board: String,
    /// Under the pieces: header, highlights, player rows, footer.
    pub under: String,
    /// The pieces (board pieces, player chips, captured pieces), in drawing order.
    pub sprites: Vec<Sprite>,
    /// Over the pieces: frozen badges, targets, arrows.
    pub over: String,
}

impl Scene {
    /// The `<svg>` start tag (same for every layer, so the layers line up).
    pub fn open_tag(&self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}" font-weight="bold">"#,
            w = N(self.width),
            h = N(self.height),
        )
    }

    /// One layer as a standalone SVG document.
    pub fn layer_svg(&self, body: &str) -> String {
        let mut o = self.open_tag();
        o.push_str(body);
        o.push_str("</svg>\n");
        o
    }

    /// The whole picture as one SVG document, pieces as `<use>` of glyphs in `<defs>`.
    pub fn to_svg(&self, theme: &Theme) -> String {
        let mut o = self.open_tag();
        o.push_str("<defs>");
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for s in &self.sprites {
            let id = artwork::glyph_id(s.piece.glyph, s.piece.army.index());
            if seen.insert(id.clone()) {
                let _ = write!(o, r#"<g id="{id}">"#);
                artwork::glyph_svg(&mut o, s.piece.glyph, theme.army(s.piece.army));
                o.push_str("</g>");
            }
        }
        o.push_str("</defs>");
        o.push_str(&self.board);
        o.push_str(&self.under);
        for s in &self.sprites {
            let id = artwork::glyph_id(s.piece.glyph, s.piece.army.index());
            let op = s
                .opacity
                .map(|a| format!(r#" opacity="{a}""#))
                .unwrap_or_default();
            if (s.size - CELL).abs() < 0.01 {
                let _ = write!(
                    o,
                    r##"<use xlink:href="#{id}" transform="translate({} {})"{op}/>"##,
                    N(s.x),
                    N(s.y)
                );
            } else {
                let _ = write!(
                    o,
                    r##"<use xlink:href="#{id}" transform="translate({} {}) scale({})"{op}/>"##,
                    N(s.x),
                    N(s.y),
                    s.size / CELL
                );
            }
        }
        o.push_str(&self.over);
        o.push_str("</svg>\n");
        o
    }
}

/// Builds the SVG text for `view` in `theme`. Never fails: pieces and marks on cells that do
/// not exist are skipped (use [`BoardView::validate`](crate::BoardView::validate) to find such
/// mistakes in tests).
#[must_use]
pub fn render_svg(view: &BoardView, theme: &Theme) -> String {
    scene(view, theme).to_svg(theme)
}

/// Lays out `view` and writes its layers.
pub(crate) fn scene(view: &BoardView, theme: &Theme) -> Scene {
    let lay = layout::layout(view);
    let mut sc = Scene {
        width: lay.width,
        height: lay.height,
        board: String::with_capacity(16 * 1024),
        under: String::with_capacity(4 * 1024),
        sprites: Vec::with_capacity(view.pieces.len() + 8),
        over: String::new(),
    };
    let _ = write!(
        sc.board,
        r#"<rect width="{}" height="{}" fill="{}"/>"#,
        N(lay.width),
        N(lay.height),
        theme.background
    );
    if !view.check.is_empty() {
        let _ = write!(
            sc.under,
            r#"<defs><radialGradient id="check"><stop offset="0" stop-color="{c}" stop-opacity="1"/><stop offset="0.45" stop-color="{c}" stop-opacity="0.8"/><stop offset="1" stop-color="{c}" stop-opacity="0"/></radialGradient></defs>"#,
            c = theme.check
        );
    }
    header(&mut sc.under, view, theme, &lay);
    for p in &lay.panels {
        panel(&mut sc, view, theme, p);
    }
    players(&mut sc, view, theme, &lay);
    footer(&mut sc.under, view, theme, &lay);
    sc
}

fn header(o: &mut String, view: &BoardView, theme: &Theme, lay: &Layout) {
    let Some((y, h)) = lay.header else { return };
    let base = y + h * 0.62;
    if let Some(t) = &view.title {
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="38" fill="{}">{}</text>"#,
            N(PAD + 6.0),
            N(base),
            theme.text,
            esc(&clip(t, 40))
        );
    }
    if let Some(n) = view.move_number {
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="30" text-anchor="end" fill="{}">Move {n}</text>"#,
            N(lay.width - PAD - 6.0),
            N(base),
            theme.muted
        );
    }
}

/// Squares of `view` that are on panel `p` and exist.
fn on_panel(view: &BoardView, p: &PanelLayout, s: Square) -> bool {
    usize::from(s.board) == p.index && view.boards[p.index].has_cell(s.x, s.y)
}

fn rect_path(d: &mut String, x: f32, y: f32, w: f32, h: f32) {
    let _ = write!(d, "M{} {}h{}v{}h{}z", N(x), N(y), N(w), N(h), N(-w));
}

fn panel(sc: &mut Scene, view: &BoardView, theme: &Theme, p: &PanelLayout) {
    let b = &view.boards[p.index];
    let o = &mut sc.board;
    // Title.
    if let Some(t) = &b.title {
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="34" text-anchor="middle" fill="{}">{}</text>"#,
            N(p.block_x + p.block_w / 2.0),
            N(p.block_y + TITLE_BAND * 0.7),
            theme.text,
            esc(&clip(t, 30))
        );
    }
    // Frame, light squares, dark squares: three paths, one subpath per cell. A frame is the
    // union of every cell grown by FRAME, so holes get a frame that follows the shape.
    let (mut frame, mut light, mut dark) = (String::new(), String::new(), String::new());
    for y in 0..b.height {
        for x in 0..b.width {
            if !b.has_cell(x, y) {
                continue;
            }
            let (cx, cy) = p.cell_origin(x, y);
            rect_path(
                &mut frame,
                cx - FRAME,
                cy - FRAME,
                CELL + 2.0 * FRAME,
                CELL + 2.0 * FRAME,
            );
            let d = match b.shade(x, y) {
                crate::view::Shade::Light => &mut light,
                crate::view::Shade::Dark => &mut dark,
            };
            rect_path(d, cx, cy, CELL, CELL);
        }
    }
    let _ = write!(o, r#"<path d="{frame}" fill="{}"/>"#, theme.frame);
    let _ = write!(o, r#"<path d="{light}" fill="{}"/>"#, theme.light);
    let _ = write!(o, r#"<path d="{dark}" fill="{}"/>"#, theme.dark);

    rivers(o, b, theme, p);
    seams(o, b, theme, p);
    joins(o, b, theme, p);
    labels(o, b, theme, p);
    if b.veiled {
        let mut d = String::new();
        for y in 0..b.height {
            for x in 0..b.width {
                if b.has_cell(x, y) {
                    let (cx, cy) = p.cell_origin(x, y);
                    rect_path(&mut d, cx, cy, CELL, CELL);
                }
            }
        }
        let _ = write!(o, r#"<path d="{d}" fill="{}" opacity="0.62"/>"#, theme.veil);
    }
    highlights(&mut sc.under, view, theme, p);
    pieces(sc, view, theme, p, b.veiled);
    targets(&mut sc.over, view, theme, p);
    arrows(&mut sc.over, view, theme, p);
}

/// The screen segments of the edges between rank `y` and `y + 1` for each listed `y`, where
/// at least one of the two cells exists.
fn rank_boundaries(b: &BoardPanel, p: &PanelLayout, ys: &[u8]) -> String {
    let mut d = String::new();
    for &ry in ys {
        if ry + 1 >= b.height {
            continue;
        }
        for x in 0..b.width {
            if !(b.has_cell(x, ry) || b.has_cell(x, ry + 1)) {
                continue;
            }
            // The shared edge of (x, ry) and (x, ry + 1) on screen.
            let (ax, ay) = p.cell_centre(x, ry);
            let (bx, by) = p.cell_centre(x, ry + 1);
            let (mx, my) = ((ax + bx) / 2.0, (ay + by) / 2.0);
            let (hx, hy) = if (ax - bx).abs() < 1.0 {
                (CELL / 2.0, 0.0)
            } else {
                (0.0, CELL / 2.0)
            };
            let _ = write!(
                d,
                "M{} {}L{} {}",
                N(mx - hx),
                N(my - hy),
                N(mx + hx),
                N(my + hy)
            );
        }
    }
    d
}

fn rivers(o: &mut String, b: &BoardPanel, theme: &Theme, p: &PanelLayout) {
    if b.rivers.is_empty() {
        return;
    }
    let d = rank_boundaries(b, p, &b.rivers);
    let _ = write!(
        o,
        r#"<path d="{d}" fill="none" stroke="{}" stroke-width="18" stroke-linecap="round"/><path d="{d}" fill="none" stroke="{}" stroke-width="4" stroke-dasharray="16 12"/>"#,
        theme.river, theme.river_light
    );
}

/// Where two boards meet back to back: a bold line in the frame colour, so the two halves of
/// a Besiege board read as two boards.
fn seams(o: &mut String, b: &BoardPanel, theme: &Theme, p: &PanelLayout) {
    if b.seams.is_empty() && b.file_seams.is_empty() {
        return;
    }
    let mut d = rank_boundaries(b, p, &b.seams);
    for &fx in &b.file_seams {
        if fx + 1 >= b.width {
            continue;
        }
        for y in 0..b.height {
            if !(b.has_cell(fx, y) || b.has_cell(fx + 1, y)) {
                continue;
            }
            // The shared edge of (fx, y) and (fx + 1, y) on screen.
            let (ax, ay) = p.cell_centre(fx, y);
            let (bx, by) = p.cell_centre(fx + 1, y);
            let (mx, my) = ((ax + bx) / 2.0, (ay + by) / 2.0);
            let (hx, hy) = if (ay - by).abs() < 1.0 {
                (0.0, CELL / 2.0)
            } else {
                (CELL / 2.0, 0.0)
            };
            let _ = write!(
                d,
                "M{} {}L{} {}",
                N(mx - hx),
                N(my - hy),
                N(mx + hx),
                N(my + hy)
            );
        }
    }
    let _ = write!(
        o,
        r#"<path d="{d}" fill="none" stroke="{}" stroke-width="8" stroke-linecap="square"/>"#,
        theme.frame
    );
}

fn highlights(o: &mut String, view: &BoardView, theme: &Theme, p: &PanelLayout) {
    let cell_rect = |o: &mut String, s: Square, fill: &str, opacity: f32| {
        let (x, y) = p.cell_origin(s.x, s.y);
        let _ = write!(
            o,
            r#"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="{fill}" opacity="{}"/>"#,
            N(x),
            N(y),
            opacity
        );
    };
    if let Some(m) = &view.last_move {
        for s in m.from.iter().chain(m.also.iter()) {
            if on_panel(view, p, *s) {
                cell_rect(o, *s, &theme.last_move, theme.last_move_opacity * 0.75);
            }
        }
        if on_panel(view, p, m.to) {
            cell_rect(o, m.to, &theme.last_move, theme.last_move_opacity);
        }
    }
    if let Some(s) = view.selected
        && on_panel(view, p, s)
    {
        cell_rect(o, s, &theme.selected, 0.45);
    }
    for &s in &view.check {
        if on_panel(view, p, s) {
            let (cx, cy) = p.cell_centre(s.x, s.y);
            let _ = write!(
                o,
                r#"<circle cx="{}" cy="{}" r="{}" fill="url(#check)"/>"#,
                N(cx),
                N(cy),
                N(CELL * 0.62)
            );
        }
    }
    for pp in &view.pieces {
        if pp.marks.frozen && on_panel(view, p, pp.square) {
            cell_rect(o, pp.square, &theme.frozen, 0.35);
        }
    }
}

fn joins(o: &mut String, b: &BoardPanel, theme: &Theme, p: &PanelLayout) {
    for j in &b.joins {
        let side = p.screen_edge(j.edge);
        for (i, partner) in j.partners.iter().enumerate() {
            let Some(name) = partner else { continue };
            let Ok(i) = u8::try_from(i) else { continue };
            let (x, y) = match j.edge {
                Edge::Top => (i, b.height.saturating_sub(1)),
                Edge::Bottom => (i, 0),
                Edge::Left => (0, i),
                Edge::Right => (b.width.saturating_sub(1), i),
            };
            if !b.has_cell(x, y) {
                continue;
            }
            let (cx, cy) = p.cell_origin(x, y);
            let g = 6.0; // gap between neighbouring strips
            let t = JOIN_BAND - 8.0;
            let (rx, ry, rw, rh) = match side {
                Edge::Top => (cx + g / 2.0, cy - FRAME - t - 2.0, CELL - g, t),
                Edge::Bottom => (cx + g / 2.0, cy + CELL + FRAME + 2.0, CELL - g, t),
                Edge::Left => (cx - FRAME - t - 2.0, cy + g / 2.0, t, CELL - g),
                Edge::Right => (cx + CELL + FRAME + 2.0, cy + g / 2.0, t, CELL - g),
            };
            let _ = write!(
                o,
                r#"<rect x="{}" y="{}" width="{}" height="{}" rx="7" fill="{}"/>"#,
                N(rx),
                N(ry),
                N(rw),
                N(rh),
                theme.join
            );
            // Vertical strips are narrow: write their labels smaller.
            let size = if rw < rh && name.chars().count() > 1 {
                19.0
            } else {
                25.0
            };
            let _ = write!(
                o,
                r#"<text x="{}" y="{}" font-size="{size}" text-anchor="middle" fill="{}">{}</text>"#,
                N(rx + rw / 2.0),
                N(ry + rh / 2.0 + size * 0.36),
                theme.join_text,
                esc(&clip(name, 4))
            );
        }
    }
}

fn labels(o: &mut String, b: &BoardPanel, theme: &Theme, p: &PanelLayout) {
    let _ = write!(
        o,
        r#"<g font-size="30" fill="{}" text-anchor="middle">"#,
        theme.label
    );
    let off = LABEL_BAND / 2.0 + FRAME / 2.0;
    // Columns: labels on the bounding box's top and bottom lines, like any board. Rows hug the
    // shape instead (next to the first and last existing cell), so on a cruciform board a
    // rank label is never two holes away from its cells; the two never collide because
    // column labels stay outside the bounding box.
    for c in 0..p.cols {
        let Some(r0) = (0..p.rows).find(|&r| {
            let (x, y) = p.to_board(c, r);
            b.has_cell(x, y)
        }) else {
            continue;
        };
        let (x, y) = p.to_board(c, r0);
        let text = if p.columns_are_files() {
            &b.files
        } else {
            &b.ranks
        };
        let idx = if p.columns_are_files() { x } else { y };
        let Some(t) = text.get(usize::from(idx)) else {
            continue;
        };
        let cx = p.ox + (f32::from(c) + 0.5) * CELL;
        let top = p.oy - off - p.join_pad[0];
        let bottom = p.oy + f32::from(p.rows) * CELL + off + p.join_pad[2];
        let t = esc(&clip(t, 3));
        let _ = write!(o, r#"<text x="{}" y="{}">{t}</text>"#, N(cx), N(top + 10.5));
        let _ = write!(
            o,
            r#"<text x="{}" y="{}">{t}</text>"#,
            N(cx),
            N(bottom + 10.5)
        );
    }
    // Rows: label left of the first existing cell and right of the last one.
    for r in 0..p.rows {
        let present: Vec<u8> = (0..p.cols)
            .filter(|&c| {
                let (x, y) = p.to_board(c, r);
                b.has_cell(x, y)
            })
            .collect();
        let (Some(&c0), Some(&c1)) = (present.first(), present.last()) else {
            continue;
        };
        let (x, y) = p.to_board(c0, r);
        let text = if p.columns_are_files() {
            &b.ranks
        } else {
            &b.files
        };
        let idx = if p.columns_are_files() { y } else { x };
        let Some(t) = text.get(usize::from(idx)) else {
            continue;
        };
        let cy = p.oy + (f32::from(r) + 0.5) * CELL + 10.5;
        let left = p.ox + f32::from(c0) * CELL - off - p.join_pad[3];
        let right = p.ox + f32::from(c1 + 1) * CELL + off + p.join_pad[1];
        let t = esc(&clip(t, 3));
        let _ = write!(o, r#"<text x="{}" y="{}">{t}</text>"#, N(left), N(cy));
        let _ = write!(o, r#"<text x="{}" y="{}">{t}</text>"#, N(right), N(cy));
    }
    o.push_str("</g>");
}

/// Places a piece drawing with its top-left at (x, y), `size` units wide.
fn use_glyph(
    sprites: &mut Vec<Sprite>,
    piece: Piece,
    x: f32,
    y: f32,
    size: f32,
    opacity: Option<f32>,
) {
    sprites.push(Sprite {
        piece,
        x,
        y,
        size,
        opacity,
    });
}

fn pieces(sc: &mut Scene, view: &BoardView, theme: &Theme, p: &PanelLayout, veiled: bool) {
    for pp in &view.pieces {
        if !on_panel(view, p, pp.square) {
            continue;
        }
        let (x, y) = p.cell_origin(pp.square.x, pp.square.y);
        let faded = pp.marks.faded || veiled;
        use_glyph(&mut sc.sprites, pp.piece, x, y, CELL, faded.then_some(0.5));
        if pp.marks.frozen {
            frozen_badge(&mut sc.over, theme, x + CELL - 22.0, y + 22.0);
        }
    }
}

/// A snowflake in a disc: six spokes with small barbs.
fn frozen_badge(o: &mut String, theme: &Theme, cx: f32, cy: f32) {
    let _ = write!(
        o,
        r#"<circle cx="{}" cy="{}" r="17" fill="{}" stroke="{}" stroke-width="3"/>"#,
        N(cx),
        N(cy),
        theme.frozen,
        theme.frame
    );
    let mut d = String::new();
    for k in 0..3 {
        let a = std::f32::consts::PI / 3.0 * k as f32;
        let (s, c) = a.sin_cos();
        let _ = write!(
            d,
            "M{} {}L{} {}",
            N(cx - 11.0 * s),
            N(cy - 11.0 * c),
            N(cx + 11.0 * s),
            N(cy + 11.0 * c)
        );
    }
    let _ = write!(
        o,
        r##"<path d="{d}" stroke="#ffffff" stroke-width="3.5" stroke-linecap="round"/>"##
    );
}

fn targets(o: &mut String, view: &BoardView, theme: &Theme, p: &PanelLayout) {
    for t in &view.targets {
        if !on_panel(view, p, t.square) {
            continue;
        }
        let (cx, cy) = p.cell_centre(t.square.x, t.square.y);
        let occupied = view.piece_at(t.square).is_some();
        let dot = |o: &mut String| {
            let _ = write!(
                o,
                r#"<circle cx="{}" cy="{}" r="16" fill="{}" opacity="0.6"/>"#,
                N(cx),
                N(cy),
                theme.target
            );
        };
        let ring = |o: &mut String| {
            let _ = write!(
                o,
                r#"<circle cx="{}" cy="{}" r="42" fill="none" stroke="{}" stroke-width="8" opacity="0.85"/>"#,
                N(cx),
                N(cy),
                theme.capture
            );
        };
        match t.kind {
            TargetKind::Quiet => dot(o),
            TargetKind::Capture => ring(o),
            TargetKind::MoveOrCapture => {
                // A lighter ring than a capture's, around a dot: "either".
                if !occupied {
                    dot(o);
                }
                let _ = write!(
                    o,
                    r#"<circle cx="{}" cy="{}" r="34" fill="none" stroke="{}" stroke-width="5" opacity="0.8"/>"#,
                    N(cx),
                    N(cy),
                    theme.capture
                );
            }
            TargetKind::Power => {
                let r = if occupied { 44.0 } else { 20.0 };
                let fill = if occupied {
                    "none"
                } else {
                    theme.power.as_str()
                };
                let _ = write!(
                    o,
                    r#"<path d="M{} {}L{} {}L{} {}L{} {}Z" fill="{fill}" stroke="{}" stroke-width="6" stroke-linejoin="round" opacity="0.9"/>"#,
                    N(cx),
                    N(cy - r),
                    N(cx + r),
                    N(cy),
                    N(cx),
                    N(cy + r),
                    N(cx - r),
                    N(cy),
                    theme.power
                );
            }
        }
    }
}

fn arrows(o: &mut String, view: &BoardView, theme: &Theme, p: &PanelLayout) {
    for a in &view.arrows {
        if !(on_panel(view, p, a.from) && on_panel(view, p, a.to)) || a.from == a.to {
            continue;
        }
        let colour = match a.kind {
            ArrowKind::Move => &theme.arrow_move,
            ArrowKind::Capture => &theme.arrow_capture,
            ArrowKind::Power => &theme.arrow_power,
        };
        let (x0, y0) = p.cell_centre(a.from.x, a.from.y);
        let (x1, y1) = p.cell_centre(a.to.x, a.to.y);
        let (dx, dy) = (x1 - x0, y1 - y0);
        let len = (dx * dx + dy * dy).sqrt();
        let (ux, uy) = (dx / len, dy / len);
        let (nx, ny) = (-uy, ux);
        let (sx, sy) = (x0 + ux * 22.0, y0 + uy * 22.0);
        let (tx, ty) = (x1 - ux * 14.0, y1 - uy * 14.0);
        let head = 38.0;
        let (bx, by) = (tx - ux * head, ty - uy * head);
        let (sw, hw) = (8.0, 22.0);
        let _ = write!(
            o,
            r#"<path d="M{} {}L{} {}L{} {}L{} {}L{} {}L{} {}L{} {}Z" fill="{colour}" opacity="0.8"/>"#,
            N(sx + nx * sw),
            N(sy + ny * sw),
            N(bx + nx * sw),
            N(by + ny * sw),
            N(bx + nx * hw),
            N(by + ny * hw),
            N(tx),
            N(ty),
            N(bx - nx * hw),
            N(by - ny * hw),
            N(bx - nx * sw),
            N(by - ny * sw),
            N(sx - nx * sw),
            N(sy - ny * sw),
        );
    }
}

/// One player row: side-to-move marker, army chip, name, strikes, captured pieces.
fn player_row(
    sc: &mut Scene,
    view: &BoardView,
    theme: &Theme,
    pl: &PlayerInfo,
    x: f32,
    y: f32,
    w: f32,
) {
    let o = &mut sc.under;
    let mid = y + PLAYER_ROW / 2.0;
    let to_move = view.side_to_move == Some(pl.army) && !pl.eliminated;
    if to_move {
        let _ = write!(
            o,
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="12" fill="{}" opacity="0.16"/><path d="M{} {}l18 14l-18 14z" fill="{}"/>"#,
            N(x),
            N(y + 5.0),
            N(w),
            N(PLAYER_ROW - 10.0),
            theme.to_move,
            N(x + 8.0),
            N(mid - 14.0),
            theme.to_move
        );
    }
    // The chip: a small King of the army, so the colour is shown with the real artwork.
    use_glyph(
        &mut sc.sprites,
        Piece::new(pl.army, Glyph::King),
        x + 28.0,
        mid - 34.0,
        68.0,
        pl.eliminated.then_some(0.4),
    );
    let name = pl.name.clone().unwrap_or_else(|| pl.army.name().to_owned());
    let name = clip(&name, 18);
    let fill = if pl.eliminated {
        &theme.muted
    } else {
        &theme.text
    };
    let nx = x + 98.0;
    let _ = write!(
        o,
        r#"<text x="{}" y="{}" font-size="30" fill="{fill}">{}</text>"#,
        N(nx),
        N(mid + 10.5),
        esc(&name)
    );
    let mut cx = nx + text_width(&name, 30.0) + 16.0;
    if pl.eliminated {
        let _ = write!(
            o,
            r#"<path d="M{} {}H{}" stroke="{}" stroke-width="4"/>"#,
            N(nx - 4.0),
            N(mid),
            N(cx - 10.0),
            theme.muted
        );
    }
    if let Some(s) = pl.strikes {
        for k in 0..s.limit {
            let bx = cx + f32::from(k) * 30.0;
            let _ = write!(
                o,
                r#"<rect x="{}" y="{}" width="24" height="24" rx="5" fill="none" stroke="{}" stroke-width="3"/>"#,
                N(bx),
                N(mid - 12.0),
                theme.muted
            );
            if k < s.count {
                let _ = write!(
                    o,
                    r#"<path d="M{} {}l14 14m0 -14l-14 14" stroke="{}" stroke-width="5" stroke-linecap="round"/>"#,
                    N(bx + 5.0),
                    N(mid - 7.0),
                    theme.strike
                );
            }
        }
        cx += f32::from(s.limit) * 30.0 + 12.0;
    }
    // Captured pieces, small, as many as fit; then "+n".
    let icon = 48.0;
    let step = 32.0;
    let room = x + w - cx - 40.0;
    let fit = if room > icon {
        ((room - icon) / step) as usize + 1
    } else {
        0
    };
    let n = pl.captured.len();
    let shown = if n > fit { fit.saturating_sub(1) } else { n };
    if shown > 0 {
        // A tray in the light-square colour: black pieces stay visible on a dark background.
        let _ = write!(
            o,
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="10" fill="{}"/>"#,
            N(cx - 6.0),
            N(mid - icon / 2.0 - 2.0),
            N((shown - 1) as f32 * step + icon + 12.0),
            N(icon + 4.0),
            theme.light
        );
    }
    for (k, piece) in pl.captured.iter().take(shown).enumerate() {
        use_glyph(
            &mut sc.sprites,
            *piece,
            cx + k as f32 * step,
            mid - icon / 2.0,
            icon,
            None,
        );
    }
    if shown < n {
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="24" fill="{}">+{}</text>"#,
            N(cx + shown as f32 * step + 8.0),
            N(mid + 8.0),
            theme.muted,
            n - shown
        );
    }
}

fn players(sc: &mut Scene, view: &BoardView, theme: &Theme, lay: &Layout) {
    match lay.info {
        InfoPlace::Strips => {
            let avail = lay.width - 2.0 * PAD;
            for (list, y) in [&lay.top_players, &lay.bottom_players] {
                if list.is_empty() {
                    continue;
                }
                let w = avail / list.len() as f32;
                for (k, &i) in list.iter().enumerate() {
                    player_row(
                        sc,
                        view,
                        theme,
                        &view.players[i],
                        PAD + k as f32 * w,
                        *y,
                        w - 8.0,
                    );
                }
            }
        }
        InfoPlace::Sidebar => {
            let (list, y) = &lay.bottom_players;
            for (k, &i) in list.iter().enumerate() {
                let yy = y + k as f32 * (PLAYER_ROW + 10.0);
                player_row(
                    sc,
                    view,
                    theme,
                    &view.players[i],
                    lay.sidebar_x,
                    yy,
                    SIDEBAR - 10.0,
                );
            }
        }
    }
}

fn footer(o: &mut String, view: &BoardView, theme: &Theme, lay: &Layout) {
    let mut y = lay.footer_y;
    if let Some(c) = &view.caption {
        let _ = write!(
            o,
            r#"<text x="{}" y="{}" font-size="28" text-anchor="middle" fill="{}">{}</text>"#,
            N(lay.content_cx),
            N(y + FOOTER_LINE * 0.62),
            theme.text,
            esc(&clip(c, 70))
        );
        y += FOOTER_LINE;
    }
    if !view.legend.is_empty() {
        // Estimate the total width to centre the line.
        let entry_w: Vec<f32> = view
            .legend
            .iter()
            .map(|e| 44.0 + text_width(&e.text, 26.0) + 30.0)
            .collect();
        let total: f32 = entry_w.iter().sum();
        // Too wide for the picture: shrink the whole line rather than crop it.
        let scale = ((lay.width - 2.0 * PAD) / total).min(1.0);
        let mid = y + FOOTER_LINE / 2.0;
        let mut x = ((lay.content_cx - total * scale / 2.0) / scale).max(PAD);
        if scale < 1.0 {
            let _ = write!(o, r#"<g transform="scale({scale:.3})">"#);
        }
        let mid = if scale < 1.0 { mid / scale } else { mid };
        for (e, w) in view.legend.iter().zip(entry_w) {
            let cx = x + 18.0;
            match e.kind {
                TargetKind::Quiet => {
                    let _ = write!(
                        o,
                        r#"<circle cx="{}" cy="{}" r="11" fill="{}"/>"#,
                        N(cx),
                        N(mid),
                        theme.target
                    );
                }
                TargetKind::Capture => {
                    let _ = write!(
                        o,
                        r#"<circle cx="{}" cy="{}" r="13" fill="none" stroke="{}" stroke-width="5"/>"#,
                        N(cx),
                        N(mid),
                        theme.capture
                    );
                }
                TargetKind::MoveOrCapture => {
                    let _ = write!(
                        o,
                        r#"<circle cx="{}" cy="{}" r="7" fill="{}"/><circle cx="{}" cy="{}" r="14" fill="none" stroke="{}" stroke-width="5"/>"#,
                        N(cx),
                        N(mid),
                        theme.target,
                        N(cx),
                        N(mid),
                        theme.capture
                    );
                }
                TargetKind::Power => {
                    let _ = write!(
                        o,
                        r#"<path d="M{} {}l14 14l-14 14l-14 -14z" fill="{}"/>"#,
                        N(cx),
                        N(mid - 14.0),
                        theme.power
                    );
                }
            }
            let _ = write!(
                o,
                r#"<text x="{}" y="{}" font-size="26" fill="{}">{}</text>"#,
                N(x + 40.0),
                N(mid + 9.0),
                theme.text,
                esc(&clip(&e.text, 30))
            );
            x += w;
        }
        if scale < 1.0 {
            o.push_str("</g>");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn characters_the_embedded_font_lacks_are_drawn_as_a_square() {
        assert_eq!(
            super::esc("Ann ⏳ <b> 漢 ◀ é & \u{7}"),
            "Ann □ &lt;b&gt; □ ◀ é &amp; "
        );
    }
}
