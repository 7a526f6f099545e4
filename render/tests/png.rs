//! PNG tests: decode the bytes and probe pixels where a piece, a mark and a label must be.

#[path = "../examples/common/mod.rs"]
mod common;

use render::{
    Army, BoardPanel, BoardView, Glyph, LastMove, Piece, Renderer, Rotation, Square, Target,
    TargetKind, Theme, canvas_size, cell_bounds,
};

const SIZE: u32 = 640;

struct Image {
    w: u32,
    h: u32,
    rgb: Vec<u8>,
    scale: f32,
}

impl Image {
    fn decode(png: &[u8], view: &BoardView) -> Image {
        let dec = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = dec.read_info().expect("png header");
        let mut buf = vec![0; reader.output_buffer_size().expect("image fits in memory")];
        let info = reader.next_frame(&mut buf).expect("png data");
        assert_eq!(info.color_type, png::ColorType::Rgb, "opaque RGB");
        buf.truncate(info.buffer_size());
        let (cw, ch) = canvas_size(view);
        Image {
            w: info.width,
            h: info.height,
            rgb: buf,
            scale: SIZE as f32 / cw.max(ch),
        }
    }

    fn px(&self, x: f32, y: f32) -> [u8; 3] {
        let (x, y) = ((x * self.scale) as u32, (y * self.scale) as u32);
        assert!(
            x < self.w && y < self.h,
            "probe {x},{y} outside {}x{}",
            self.w,
            self.h
        );
        let i = ((y * self.w + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// How many probes on a grid inside the box (user units) are farther than `tol` from
    /// `colour`.
    fn count_unlike(&self, b: [f32; 4], colour: [u8; 3], tol: i32) -> usize {
        let mut n = 0;
        for i in 1..20 {
            for j in 1..20 {
                let p = self.px(b[0] + b[2] * i as f32 / 20.0, b[1] + b[3] * j as f32 / 20.0);
                if dist(p, colour) > tol {
                    n += 1;
                }
            }
        }
        n
    }
}

fn hex(s: &str) -> [u8; 3] {
    let v = u32::from_str_radix(s.trim_start_matches('#'), 16).expect("theme colours are #rrggbb");
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

fn dist(a: [u8; 3], b: [u8; 3]) -> i32 {
    (0..3)
        .map(|k| (i32::from(a[k]) - i32::from(b[k])).abs())
        .max()
        .unwrap_or(0)
}

fn square_colour(theme: &Theme, view: &BoardView, s: Square) -> [u8; 3] {
    match view.boards[usize::from(s.board)].shade(s.x, s.y) {
        render::Shade::Light => hex(&theme.light),
        render::Shade::Dark => hex(&theme.dark),
    }
}

fn small_view() -> BoardView {
    let mut v = BoardView::new(BoardPanel::rect(8, 8));
    v.put(Square::new(4, 0), Piece::new(Army::White, Glyph::King));
    v.put(Square::new(4, 7), Piece::new(Army::Black, Glyph::King));
    v.last_move = Some(LastMove {
        from: Some(Square::new(4, 6)),
        to: Square::new(4, 7),
        also: vec![],
    });
    v.targets.push(Target {
        square: Square::new(2, 3),
        kind: TargetKind::Quiet,
    });
    v
}

#[test]
fn a_piece_is_drawn_on_its_cell_and_nowhere_else() {
    let theme = Theme::light();
    let view = small_view();
    let img = Image::decode(&Renderer::new().png(&view, &theme, SIZE).unwrap(), &view);
    let king = Square::new(4, 0);
    let b = cell_bounds(&view, king).unwrap();
    let busy = img.count_unlike(b, square_colour(&theme, &view, king), 12);
    assert!(
        busy > 60,
        "the White King's cell e1 should be mostly piece, got {busy}/361 probes"
    );
    // The piece body is white-ish: some probe matches the White fill.
    let white = hex(&theme.army(Army::White).fill);
    let body = (1..20).any(|j| {
        dist(
            img.px(b[0] + b[2] / 2.0, b[1] + b[3] * j as f32 / 20.0),
            white,
        ) < 16
    });
    assert!(body, "no White piece fill on e1's centre line");
    // An empty cell is only its square colour.
    let empty = Square::new(0, 3);
    let e = cell_bounds(&view, empty).unwrap();
    assert_eq!(
        img.count_unlike(e, square_colour(&theme, &view, empty), 6),
        0,
        "a4 should be empty"
    );
}

#[test]
fn marks_are_drawn_where_they_belong() {
    let theme = Theme::light();
    let view = small_view();
    let img = Image::decode(&Renderer::new().png(&view, &theme, SIZE).unwrap(), &view);
    // Last move: e7 (from) is tinted, a cell corner that no piece covers.
    let from = Square::new(4, 6);
    let b = cell_bounds(&view, from).unwrap();
    let corner = img.px(b[0] + 6.0, b[1] + 6.0);
    let plain = square_colour(&theme, &view, from);
    assert!(
        dist(corner, plain) > 20,
        "e7 corner {corner:?} should be tinted, plain is {plain:?}"
    );
    let tint = hex(&theme.last_move);
    assert!(
        dist(corner, tint) < dist(plain, tint),
        "tint goes towards the last-move colour"
    );
    // Quiet target: a dot in the middle of c4, not at its corner.
    let t = Square::new(2, 3);
    let b = cell_bounds(&view, t).unwrap();
    let plain = square_colour(&theme, &view, t);
    assert!(
        dist(img.px(b[0] + 50.0, b[1] + 50.0), plain) > 30,
        "target dot at c4's centre"
    );
    assert!(
        dist(img.px(b[0] + 8.0, b[1] + 8.0), plain) < 6,
        "c4's corner is untouched"
    );
}

#[test]
fn black_sees_his_side_at_the_bottom() {
    let theme = Theme::light();
    let mut view = small_view();
    view.rotation = Rotation::Half;
    let img = Image::decode(&Renderer::new().png(&view, &theme, SIZE).unwrap(), &view);
    let (_, ch) = canvas_size(&view);
    let b = cell_bounds(&view, Square::new(4, 7)).unwrap();
    assert!(b[1] > ch / 2.0, "e8 is in the lower half for Black");
    let busy = img.count_unlike(b, square_colour(&theme, &view, Square::new(4, 7)), 12);
    assert!(busy > 60, "the Black King is drawn on e8 at the bottom");
}

#[test]
fn text_is_drawn_with_the_embedded_font() {
    // resvg silently drops text whose font is missing; coordinates must have ink.
    let theme = Theme::light();
    let view = small_view();
    let img = Image::decode(&Renderer::new().png(&view, &theme, SIZE).unwrap(), &view);
    let a1 = cell_bounds(&view, Square::new(0, 0)).unwrap();
    // The file label "a" sits in the band under a1; the rank label "1" left of it.
    let under = [a1[0] + 25.0, a1[1] + a1[3] + 8.0, 50.0, 36.0];
    let left = [a1[0] - 44.0, a1[1] + 25.0, 36.0, 50.0];
    let bg = hex(&theme.background);
    for (name, area) in [("file label a", under), ("rank label 1", left)] {
        let ink = img.count_unlike(area, bg, 60);
        assert!(
            ink >= 8,
            "{name}: only {ink} text pixels; is the font loaded?"
        );
    }
    // And a bigger text: the title. A view without title has no ink there.
    let mut titled = view.clone();
    titled.title = Some("Toulousain Chess".into());
    let img2 = Image::decode(
        &Renderer::new().png(&titled, &theme, SIZE).unwrap(),
        &titled,
    );
    let ink = img2.count_unlike([30.0, 30.0, 250.0, 40.0], bg, 60);
    assert!(ink >= 20, "title has only {ink} text pixels");
}

#[test]
fn same_view_same_bytes_warm_or_cold_cache() {
    let theme = Theme::dark();
    let view = common::bilateral_midgame(Army::White);
    let r = Renderer::new();
    let first = r.png(&view, &theme, SIZE).unwrap();
    let second = r.png(&view, &theme, SIZE).unwrap(); // board layer and sprites cached
    assert!(first == second, "two renders differ");
    let fresh = Renderer::new().png(&view, &theme, SIZE).unwrap();
    assert!(first == fresh, "a fresh renderer gives other bytes");
    r.clear_cache();
    assert!(
        r.png(&view, &theme, SIZE).unwrap() == first,
        "after clear_cache the bytes differ"
    );
}

#[test]
fn every_gallery_view_renders_and_fits_a_phone() {
    let r = Renderer::new();
    for view in [
        common::toulousain_start(),
        common::bilateral_start(),
        common::looking_glass(Army::Black),
        common::wraparound(),
        common::moebius_besiege(),
        common::dcb_four(Army::Red, Rotation::None),
        common::coblache(),
    ] {
        view.validate().unwrap();
        let png = r.png(&view, &Theme::light(), SIZE).unwrap();
        let img = Image::decode(&png, &view);
        let aspect = img.h as f32 / img.w as f32;
        assert!(
            (0.45..=1.45).contains(&aspect),
            "{:?}: aspect {aspect}",
            view.title
        );
        assert_eq!(img.w.max(img.h), SIZE);
    }
}

#[test]
fn bad_sizes_are_errors() {
    let r = Renderer::new();
    let view = small_view();
    assert!(matches!(
        r.png(&view, &Theme::light(), 0),
        Err(render::RenderError::Size { .. })
    ));
    assert!(r.png(&view, &Theme::light(), render::MAX_SIDE + 1).is_err());
}

#[test]
fn validate_finds_pieces_on_holes() {
    let mut view = common::dcb_balanced();
    assert_eq!(view.validate(), Ok(()));
    view.put(Square::new(0, 0), Piece::new(Army::White, Glyph::Pawn));
    assert!(matches!(
        view.validate(),
        Err(render::ViewError::NoSuchCell { x: 0, y: 0, .. })
    ));
}
