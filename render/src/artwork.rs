//! Our own piece artwork, drawn for this project as SVG paths in a 100 x 100 box (one cell).
//!
//! One family: every piece stands on the same pedestal, has a thick dark outline and a few
//! inner detail lines in a contrasting colour, so the set reads as one design at 30 px and
//! still looks crafted at 100 px. Compound pieces are literally their components: the two
//! silhouettes, each at 4/5 size, overlap on one wide pedestal (Marshal = Rook behind a Knight,
//! Caliph = Bishop behind a Camel, ...). The Can(n)on shows its state by the barrel: upright
//! with a `+` on the wheel (Pao, orthogonal) or tilted with an `x` (Vao, diagonal).
//!
//! Nothing here is copied from an existing piece set; the shapes are hand-written below.

use std::fmt::Write as _;

use crate::{theme::ArmyPaint, view::Glyph};

/// Outline width in glyph units (a cell is 100).
const OUTLINE: f32 = 3.6;
/// Detail line width in glyph units.
const DETAIL: f32 = 3.0;
/// Thick detail line width (emblems that carry meaning: chevrons, the Can(n)on's cross).
const BOLD: f32 = 5.0;

/// The pedestal every piece stands on.
const BASE: &str = "M20 90 L80 90 Q81 83 76 80 L24 80 Q19 83 20 90 Z";
/// The wider pedestal of compound pieces.
const WIDE_BASE: &str = "M11 90 L89 90 Q90 83 85 80 L15 80 Q10 83 11 90 Z";

/// How one part of a glyph is painted.
#[derive(Clone, Copy)]
enum Ink {
    /// Body colour with the outline.
    Body,
    /// Detail colour, stroked, no fill.
    Line,
    /// Detail colour, stroked thick, no fill (marks that must survive small sizes).
    Bold,
    /// Detail colour, filled, no stroke.
    Dot,
    /// Outline colour, filled, no stroke (small dark accents).
    Dark,
}

/// A path with its ink.
type Part = (Ink, &'static str);

const KING: &[Part] = &[
    (
        Ink::Body,
        "M45 6 H55 V14 H63 V23 H55 V31 H45 V23 H37 V14 H45 Z",
    ),
    (
        Ink::Body,
        "M31 52 C22 44 22 30 33 27 C40 25 46 29 50 34 C54 29 60 25 67 27 C78 30 78 44 69 52 Z",
    ),
    (
        Ink::Body,
        "M33 80 C35 70 38 62 40 57 L60 57 C62 62 65 70 67 80 Z",
    ),
    (Ink::Body, "M30 58 L70 58 L68 50 L32 50 Z"),
    (Ink::Line, "M40 69 H60"),
];

const QUEEN: &[Part] = &[
    (
        Ink::Body,
        "M30 52 L20 25 L36 37 L38 17 L48 35 L50 12 L52 35 L62 17 L64 37 L80 25 L70 52 Z",
    ),
    (Ink::Body, "M20 25 m-5 0 a5 5 0 1 0 10 0 a5 5 0 1 0 -10 0"),
    (Ink::Body, "M80 25 m-5 0 a5 5 0 1 0 10 0 a5 5 0 1 0 -10 0"),
    (Ink::Body, "M38 17 m-5 0 a5 5 0 1 0 10 0 a5 5 0 1 0 -10 0"),
    (Ink::Body, "M62 17 m-5 0 a5 5 0 1 0 10 0 a5 5 0 1 0 -10 0"),
    (
        Ink::Body,
        "M50 11 m-5.5 0 a5.5 5.5 0 1 0 11 0 a5.5 5.5 0 1 0 -11 0",
    ),
    (
        Ink::Body,
        "M33 80 C35 70 38 62 40 57 L60 57 C62 62 65 70 67 80 Z",
    ),
    (Ink::Body, "M30 58 L70 58 L68 50 L32 50 Z"),
    (Ink::Line, "M40 69 H60"),
];

const ROOK: &[Part] = &[
    (Ink::Body, "M31 80 L35 45 L65 45 L69 80 Z"),
    (
        Ink::Body,
        "M27 46 L27 20 L38 20 L38 28 L45 28 L45 20 L55 20 L55 28 L62 28 L62 20 L73 20 L73 46 Z",
    ),
    (Ink::Line, "M37 60 H63 M50 60 V70"),
];

const BISHOP: &[Part] = &[
    (Ink::Body, "M50 12 m-6 0 a6 6 0 1 0 12 0 a6 6 0 1 0 -12 0"),
    (
        Ink::Body,
        "M50 18 C63 27 70 37 68 45 C66 52 59 55 50 55 C41 55 34 52 32 45 C30 37 37 27 50 18 Z",
    ),
    (
        Ink::Body,
        "M34 80 C36 71 40 64 42 59 L58 59 C60 64 64 71 66 80 Z",
    ),
    (Ink::Body, "M33 60 L67 60 L65 53 L35 53 Z"),
    (Ink::Line, "M58 29 L47 42"),
];

const KNIGHT_BODY: &str = "M33 80 L69 80 C72 64 74 50 69 37 C64 24 55 17 46 15 L43 7 L37 16 \
     C29 21 22 30 18 40 C16 46 19 51 24 52 C29 53 33 49 37 47 C41 46 45 47 46 50 \
     C39 58 33 67 33 80 Z";
const KNIGHT: &[Part] = &[
    (Ink::Body, KNIGHT_BODY),
    (
        Ink::Dot,
        "M39 30 m-3.5 0 a3.5 3.5 0 1 0 7 0 a3.5 3.5 0 1 0 -7 0",
    ),
    (Ink::Line, "M58 22 C66 34 67 52 63 70"),
    (Ink::Dark, "M21 43 m-2 0 a2 2 0 1 0 4 0 a2 2 0 1 0 -4 0"),
];

const PAWN_BODY: &[Part] = &[
    (
        Ink::Body,
        "M33 80 C35 70 40 62 43 57 L57 57 C60 62 65 70 67 80 Z",
    ),
    (Ink::Body, "M36 58 L64 58 L62 51 L38 51 Z"),
];
const PAWN_HEAD: Part = (
    Ink::Body,
    "M50 38 m-13 0 a13 13 0 1 0 26 0 a13 13 0 1 0 -26 0",
);

/// Corporal's chevrons, on the head where they stay visible at chat size.
const CORPORAL_STRIPES: &[Part] = &[(Ink::Bold, "M42 31 L50 37 L58 31 M42 40 L50 46 L58 40")];

const PRINCE_HEAD: &[Part] = &[
    (
        Ink::Body,
        "M36 52 L31 27 L42 37 L50 21 L58 37 L69 27 L64 52 Z",
    ),
    (
        Ink::Body,
        "M50 17 m-4.5 0 a4.5 4.5 0 1 0 9 0 a4.5 4.5 0 1 0 -9 0",
    ),
];

const WAZIR_HEAD: &[Part] = &[
    (
        Ink::Body,
        "M30 52 C22 38 34 28 44 22 C48 19 49 15 50 10 C51 15 52 19 56 22 C66 28 78 38 70 52 Z",
    ),
    (Ink::Bold, "M50 27 V45 M41 36 H59"),
];

const FROG: &[Part] = &[
    (
        Ink::Body,
        "M20 81 C16 66 25 52 35 47 C31 39 35 29 42 30 C46 31 47 36 47 41 L53 41 C53 36 54 31 58 30 \
         C65 29 69 39 65 47 C75 52 84 66 80 81 Z",
    ),
    (Ink::Body, "M26 81 C22 76 24 70 30 69 L36 76 Z"),
    (Ink::Body, "M74 81 C78 76 76 70 70 69 L64 76 Z"),
    (
        Ink::Dot,
        "M42 37 m-3.5 0 a3.5 3.5 0 1 0 7 0 a3.5 3.5 0 1 0 -7 0",
    ),
    (
        Ink::Dot,
        "M58 37 m-3.5 0 a3.5 3.5 0 1 0 7 0 a3.5 3.5 0 1 0 -7 0",
    ),
    (Ink::Line, "M37 54 Q50 62 63 54"),
];

const GRYPHON: &[Part] = &[
    (Ink::Body, "M56 56 C60 40 70 26 88 14 C88 30 84 44 76 56 Z"),
    (
        Ink::Body,
        "M34 80 L68 80 C72 66 72 50 66 38 C60 26 50 20 40 21 C31 22 24 28 19 36 \
         C16 41 17 47 21 48 C22 45 25 43 28 44 C30 49 35 53 41 55 C37 63 34 71 34 80 Z",
    ),
    (Ink::Body, "M40 21 L45 11 L49 21 Z"),
    (
        Ink::Dot,
        "M37 33 m-3.5 0 a3.5 3.5 0 1 0 7 0 a3.5 3.5 0 1 0 -7 0",
    ),
    (Ink::Line, "M28 44 C33 40 38 40 42 43"),
    (Ink::Line, "M71 36 L80 26 M75 45 L83 38"),
];

const CAMEL_BODY: &str = "M27 80 L29 62 C25 58 23 50 21 42 L20 33 C17 32 12 31 11 28 \
     C10 23 15 20 20 20 L25 20 C30 22 31 28 31 34 C33 42 36 46 42 45 C46 33 53 27 60 27 \
     C68 27 74 37 77 46 C82 49 86 55 86 62 L86 80 L78 80 L77 66 L70 66 L70 80 L62 80 \
     L61 65 L42 65 L37 80 Z";
const CAMEL: &[Part] = &[
    (Ink::Body, CAMEL_BODY),
    (
        Ink::Dot,
        "M20 25 m-2.8 0 a2.8 2.8 0 1 0 5.6 0 a2.8 2.8 0 1 0 -5.6 0",
    ),
    (Ink::Line, "M48 53 C56 56 68 56 76 52"),
];

const ELEPHANT_HEAD: &[Part] = &[
    (
        Ink::Body,
        "M42 80 L42 62 C37 60 34 56 33 52 C31 58 29 66 27 72 C25 79 15 80 14 73 C13 69 17 68 19 70 \
         C21 62 20 52 21 44 C22 29 33 17 49 16 C65 15 78 26 78 42 C78 56 71 66 71 80 Z",
    ),
    (
        Ink::Body,
        "M51 29 C64 23 75 31 73 47 C71 60 61 65 53 59 C49 51 48 38 51 29 Z",
    ),
    (
        Ink::Dot,
        "M37 32 m-3.5 0 a3.5 3.5 0 1 0 7 0 a3.5 3.5 0 1 0 -7 0",
    ),
    (
        Ink::Dot,
        "M32 50 C35 58 42 62 50 58 L48 54 C42 57 37 55 36 49 Z",
    ),
];
const ELEPHANT: &[Part] = ELEPHANT_HEAD;
/// Bilateral's Elephant pushes: a war elephant, with a little tower on its back.
const ELEPHANT_PUSHER: &[Part] = &[
    (
        Ink::Body,
        "M55 22 L55 5 L62 5 L62 10 L67 10 L67 5 L74 5 L74 10 L79 10 L79 5 L86 5 L86 34 Z",
    ),
    ELEPHANT_HEAD[0],
    ELEPHANT_HEAD[1],
    ELEPHANT_HEAD[2],
    ELEPHANT_HEAD[3],
];

const WIZARD: &[Part] = &[
    (
        Ink::Body,
        "M31 80 C35 68 40 60 42 54 L58 54 C60 60 65 68 69 80 Z",
    ),
    (Ink::Body, "M37 53 C41 38 48 22 64 6 C58 22 61 38 64 53 Z"),
    (Ink::Body, "M22 55 C34 47 66 47 78 55 C66 61 34 61 22 55 Z"),
    (
        Ink::Dot,
        "M52 27 L54.5 33 L61 33.4 L56 37.5 L57.7 44 L52 40.4 L46.3 44 L48 37.5 L43 33.4 L49.5 33 Z",
    ),
    (Ink::Line, "M43 66 H57"),
];

const CANNON_WHEEL: &[Part] = &[
    (
        Ink::Body,
        "M50 61 m-19 0 a19 19 0 1 0 38 0 a19 19 0 1 0 -38 0",
    ),
    (Ink::Dot, "M50 61 m-5 0 a5 5 0 1 0 10 0 a5 5 0 1 0 -10 0"),
];
const CANNON_BARREL: &[Part] = &[
    (
        Ink::Body,
        "M39 60 L38 21 L35 21 L35 9 L65 9 L65 21 L62 21 L61 60 C61 72 39 72 39 60 Z",
    ),
    (Ink::Line, "M39 29 H61"),
];
const CANNON_SPOKES_PLUS: Part = (Ink::Bold, "M50 45 V77 M34 61 H66");
const CANNON_SPOKES_CROSS: Part = (Ink::Bold, "M39 50 L61 72 M61 50 L39 72");
const CANNON_SPOKES_PLAIN: Part = (
    Ink::Line,
    "M50 46 V76 M35 61 H65 M40 51 L60 71 M60 51 L40 71",
);

/// Writes the SVG for `glyph` in the 100 x 100 box with `paint`'s colours. The fragment is
/// self-contained (no references), so it can live in `<defs>` and be reused with `<use>`.
pub(crate) fn glyph_svg(out: &mut String, glyph: Glyph, paint: &ArmyPaint) {
    let _ = write!(
        out,
        r#"<g fill="{f}" stroke="{o}" stroke-width="{OUTLINE}" stroke-linejoin="round" stroke-linecap="round">"#,
        f = paint.fill,
        o = paint.outline,
    );
    match glyph {
        Glyph::Marshal => compound(out, paint, ROOK_C, KNIGHT_C),
        Glyph::Cardinal => compound(out, paint, BISHOP_C, KNIGHT_C),
        Glyph::Gnu => compound(out, paint, CAMEL_C, KNIGHT_C),
        Glyph::Canvasser => compound(out, paint, ROOK_C, CAMEL_C),
        Glyph::Caliph => compound(out, paint, BISHOP_C, CAMEL_C),
        Glyph::Letter(c) => letter(out, paint, c),
        g => {
            parts(out, paint, &[(Ink::Body, BASE)]);
            simple(out, paint, g);
        }
    }
    out.push_str("</g>");
}

/// Component pieces for compounds.
#[derive(Clone, Copy)]
enum Component {
    Rook,
    Bishop,
    Knight,
    Camel,
}
const ROOK_C: Component = Component::Rook;
const BISHOP_C: Component = Component::Bishop;
const KNIGHT_C: Component = Component::Knight;
const CAMEL_C: Component = Component::Camel;

fn compound(out: &mut String, paint: &ArmyPaint, back: Component, front: Component) {
    parts(out, paint, &[(Ink::Body, WIDE_BASE)]);
    // Each component at 4/5 size, standing on the pedestal's top (y = 80), shifted apart.
    // The front one is drawn last so its outline cuts cleanly into the back one.
    for (c, dx) in [(back, -16.0_f32), (front, 16.0)] {
        // scale(s) about the point (50, 80): translate(50 - 50 s + dx, 80 - 80 s).
        let _ = write!(
            out,
            r#"<g transform="translate({} 16) scale(0.8)">"#,
            10.0 + dx
        );
        let p: &[Part] = match c {
            Component::Rook => ROOK,
            Component::Bishop => BISHOP,
            Component::Knight => KNIGHT,
            Component::Camel => CAMEL,
        };
        parts(out, paint, p);
        out.push_str("</g>");
    }
}

fn simple(out: &mut String, paint: &ArmyPaint, glyph: Glyph) {
    match glyph {
        Glyph::King => parts(out, paint, KING),
        Glyph::Queen => parts(out, paint, QUEEN),
        Glyph::Rook => parts(out, paint, ROOK),
        Glyph::Bishop => parts(out, paint, BISHOP),
        Glyph::Knight => parts(out, paint, KNIGHT),
        Glyph::Pawn => {
            parts(out, paint, PAWN_BODY);
            parts(out, paint, &[PAWN_HEAD]);
        }
        Glyph::Corporal => {
            parts(out, paint, PAWN_BODY);
            parts(out, paint, &[PAWN_HEAD]);
            parts(out, paint, CORPORAL_STRIPES);
        }
        Glyph::Prince => {
            parts(out, paint, PAWN_BODY);
            parts(out, paint, PRINCE_HEAD);
        }
        Glyph::Wazir => {
            parts(out, paint, PAWN_BODY);
            parts(out, paint, WAZIR_HEAD);
        }
        Glyph::Lion => lion(out, paint),
        Glyph::Gryphon => parts(out, paint, GRYPHON),
        Glyph::Camel => parts(out, paint, CAMEL),
        Glyph::Cannon => cannon(out, paint, false, CANNON_SPOKES_PLAIN),
        Glyph::Pao => cannon(out, paint, false, CANNON_SPOKES_PLUS),
        Glyph::Vao => cannon(out, paint, true, CANNON_SPOKES_CROSS),
        Glyph::Elephant => parts(out, paint, ELEPHANT),
        Glyph::BilateralElephant => parts(out, paint, ELEPHANT_PUSHER),
        Glyph::Wizard => parts(out, paint, WIZARD),
        Glyph::Frog => parts(out, paint, FROG),
        // Compounds and letters are handled by the caller.
        Glyph::Marshal
        | Glyph::Cardinal
        | Glyph::Gnu
        | Glyph::Canvasser
        | Glyph::Caliph
        | Glyph::Letter(_) => {}
    }
}

fn cannon(out: &mut String, paint: &ArmyPaint, tilted: bool, spokes: Part) {
    if tilted {
        out.push_str(r#"<g transform="rotate(40 50 61)">"#);
        parts(out, paint, CANNON_BARREL);
        out.push_str("</g>");
    } else {
        parts(out, paint, CANNON_BARREL);
    }
    parts(out, paint, &CANNON_WHEEL[..1]);
    parts(out, paint, &[spokes]);
    parts(out, paint, &CANNON_WHEEL[1..]);
}

fn lion(out: &mut String, paint: &ArmyPaint) {
    parts(
        out,
        paint,
        &[(
            Ink::Body,
            "M34 80 C36 72 39 66 41 62 L59 62 C61 66 64 72 66 80 Z",
        )],
    );
    // The mane: a 16-point sun around the face.
    let (cx, cy) = (50.0_f32, 40.0_f32);
    let mut d = String::new();
    for i in 0..32 {
        let r = if i % 2 == 0 { 31.0 } else { 22.0 };
        let a = std::f32::consts::PI * 2.0 * (i as f32) / 32.0;
        let _ = write!(
            d,
            "{}{:.1} {:.1} ",
            if i == 0 { "M" } else { "L" },
            cx + r * a.sin(),
            cy - r * a.cos()
        );
    }
    d.push('Z');
    let _ = write!(out, r#"<path d="{d}"/>"#);
    parts(
        out,
        paint,
        &[
            (
                Ink::Body,
                "M50 40 m-15 0 a15 15 0 1 0 30 0 a15 15 0 1 0 -30 0",
            ),
            (Ink::Dot, "M44 37 m-3 0 a3 3 0 1 0 6 0 a3 3 0 1 0 -6 0"),
            (Ink::Dot, "M56 37 m-3 0 a3 3 0 1 0 6 0 a3 3 0 1 0 -6 0"),
            (Ink::Dark, "M45 44 L55 44 L50 49 Z"),
            (Ink::Line, "M50 49 V52 M45 53 Q50 56 55 53"),
        ],
    );
}

fn letter(out: &mut String, paint: &ArmyPaint, c: char) {
    parts(
        out,
        paint,
        &[(
            Ink::Body,
            "M50 50 m-36 0 a36 36 0 1 0 72 0 a36 36 0 1 0 -72 0",
        )],
    );
    let c = if c.is_ascii_alphanumeric() {
        c.to_ascii_uppercase()
    } else {
        '?'
    };
    let _ = write!(
        out,
        r#"<text x="50" y="64" font-size="42" text-anchor="middle" stroke="none" fill="{}">{c}</text>"#,
        paint.detail
    );
}

fn parts(out: &mut String, paint: &ArmyPaint, parts: &[Part]) {
    for &(ink, d) in parts {
        match ink {
            Ink::Body => {
                let _ = write!(out, r#"<path d="{d}"/>"#);
            }
            Ink::Line => {
                let _ = write!(
                    out,
                    r#"<path d="{d}" fill="none" stroke="{}" stroke-width="{DETAIL}"/>"#,
                    paint.detail
                );
            }
            Ink::Bold => {
                let _ = write!(
                    out,
                    r#"<path d="{d}" fill="none" stroke="{}" stroke-width="{BOLD}"/>"#,
                    paint.detail
                );
            }
            Ink::Dot => {
                let _ = write!(
                    out,
                    r#"<path d="{d}" fill="{}" stroke="none"/>"#,
                    paint.detail
                );
            }
            Ink::Dark => {
                let _ = write!(
                    out,
                    r#"<path d="{d}" fill="{}" stroke="none"/>"#,
                    paint.outline
                );
            }
        }
    }
}

/// A short id for a (glyph, army) definition in `<defs>`.
pub(crate) fn glyph_id(glyph: Glyph, army_index: usize) -> String {
    match glyph {
        Glyph::Letter(c) => format!("p{army_index}L{:x}", u32::from(c)),
        g => {
            let i = Glyph::ALL.iter().position(|&x| x == g).unwrap_or(0);
            format!("p{army_index}g{i}")
        }
    }
}
