//! Colour themes.
//!
//! A theme is only colours (SVG colour strings): geometry and artwork are the same in every
//! theme, so a player's preference never changes what is where. The colour-blind-safe theme
//! never relies on red against green: marks differ in shape as well as colour (dot, ring,
//! diamond), and its palette is built from the Okabe-Ito colours, which stay distinct under
//! the common colour-vision deficiencies.

use crate::view::Army;

/// Colours of one army's pieces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArmyPaint {
    /// Body of the piece.
    pub fill: String,
    /// Inner detail lines (eyes, bands, crosses), contrasting with `fill`.
    pub detail: String,
    /// Outline around the silhouette; dark for every army so pieces stand out on any square.
    pub outline: String,
}

impl ArmyPaint {
    fn new(fill: &str, detail: &str, outline: &str) -> Self {
        ArmyPaint {
            fill: fill.into(),
            detail: detail.into(),
            outline: outline.into(),
        }
    }
}

/// Every colour the renderer uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// Short name ("light", "dark", "colour-blind").
    pub name: String,
    /// Picture background (opaque: the PNG is written without alpha).
    pub background: String,
    /// Light squares.
    pub light: String,
    /// Dark squares.
    pub dark: String,
    /// The frame drawn around each board's cells.
    pub frame: String,
    /// Coordinates and other secondary text.
    pub label: String,
    /// Titles, player names.
    pub text: String,
    /// Dimmed text (eliminated players, legends).
    pub muted: String,
    /// Last move overlay (drawn with `last_move_opacity`).
    pub last_move: String,
    /// Opacity of the last move overlay.
    pub last_move_opacity: f32,
    /// Selected piece overlay.
    pub selected: String,
    /// Quiet target dots.
    pub target: String,
    /// Capture target rings.
    pub capture: String,
    /// Special power diamonds.
    pub power: String,
    /// Check glow.
    pub check: String,
    /// Arrows: move, capture, power.
    pub arrow_move: String,
    /// Capture arrows.
    pub arrow_capture: String,
    /// Power arrows (freeze links, pushes).
    pub arrow_power: String,
    /// Frozen badge.
    pub frozen: String,
    /// Rivers.
    pub river: String,
    /// Highlight of the river's middle line.
    pub river_light: String,
    /// Wrap/join marker strips.
    pub join: String,
    /// Text inside join strips.
    pub join_text: String,
    /// Veil over a board the viewer cannot see.
    pub veil: String,
    /// Side-to-move marker.
    pub to_move: String,
    /// Strike crosses.
    pub strike: String,
    /// Piece colours, indexed by [`Army::index`].
    pub armies: [ArmyPaint; 6],
}

impl Theme {
    /// Warm wood on paper: the default.
    #[must_use]
    pub fn light() -> Self {
        Theme {
            name: "light".into(),
            background: "#f6f1e7".into(),
            light: "#efdfc2".into(),
            dark: "#b88c62".into(),
            frame: "#5a4232".into(),
            label: "#4b3a2c".into(),
            text: "#2b211a".into(),
            muted: "#8a7b6c".into(),
            last_move: "#d9c62a".into(),
            last_move_opacity: 0.55,
            selected: "#3d8fd1".into(),
            target: "#2c5d87".into(),
            capture: "#c2331f".into(),
            power: "#7b3fb0".into(),
            check: "#e0301e".into(),
            arrow_move: "#2f7d32".into(),
            arrow_capture: "#c2331f".into(),
            arrow_power: "#7b3fb0".into(),
            frozen: "#3aa6dd".into(),
            river: "#3f86c4".into(),
            river_light: "#a9d3f2".into(),
            join: "#6b5a9e".into(),
            join_text: "#ffffff".into(),
            veil: "#7d7468".into(),
            to_move: "#2f7d32".into(),
            strike: "#c2331f".into(),
            armies: standard_armies(),
        }
    }

    /// Slate and charcoal for dark-mode chat clients.
    #[must_use]
    pub fn dark() -> Self {
        Theme {
            name: "dark".into(),
            background: "#1f2228".into(),
            light: "#9aabb5".into(),
            dark: "#5b7282".into(),
            frame: "#0f1115".into(),
            label: "#c9d1d9".into(),
            text: "#eef1f4".into(),
            muted: "#8b949e".into(),
            last_move: "#e8d44d".into(),
            last_move_opacity: 0.5,
            selected: "#58a6ff".into(),
            target: "#17324d".into(),
            capture: "#ff6a4d".into(),
            power: "#c08cff".into(),
            check: "#ff4533".into(),
            arrow_move: "#56d364".into(),
            arrow_capture: "#ff6a4d".into(),
            arrow_power: "#c08cff".into(),
            frozen: "#6cd3ff".into(),
            river: "#3b82c4".into(),
            river_light: "#9fd0f5".into(),
            join: "#8b7fd0".into(),
            join_text: "#ffffff".into(),
            veil: "#2b2f36".into(),
            to_move: "#56d364".into(),
            strike: "#ff6a4d".into(),
            armies: standard_armies(),
        }
    }

    /// Okabe-Ito palette: marks and armies stay apart for red-green and blue-yellow colour
    /// blindness. Last move is blue (not yellow-green), captures orange (not red), and the
    /// four armies are vermillion, blue, yellow and bluish green, which differ in lightness too.
    #[must_use]
    pub fn colour_blind() -> Self {
        let mut armies = standard_armies();
        armies[Army::Red.index()] = ArmyPaint::new("#d55e00", "#fff3e6", "#2a1400");
        armies[Army::Blue.index()] = ArmyPaint::new("#0072b2", "#e6f4ff", "#00131f");
        armies[Army::Yellow.index()] = ArmyPaint::new("#f0e442", "#3d3700", "#2b2600");
        armies[Army::Green.index()] = ArmyPaint::new("#009e73", "#e6fff7", "#002219");
        Theme {
            name: "colour-blind".into(),
            background: "#f4f4f2".into(),
            light: "#e3e6e8".into(),
            dark: "#9aa5ad".into(),
            frame: "#3b4248".into(),
            label: "#30363b".into(),
            text: "#15191c".into(),
            muted: "#6e777e".into(),
            last_move: "#56b4e9".into(),
            last_move_opacity: 0.6,
            selected: "#0072b2".into(),
            target: "#0b3c5d".into(),
            capture: "#e69f00".into(),
            power: "#cc79a7".into(),
            check: "#e69f00".into(),
            arrow_move: "#0072b2".into(),
            arrow_capture: "#e69f00".into(),
            arrow_power: "#cc79a7".into(),
            frozen: "#56b4e9".into(),
            river: "#0072b2".into(),
            river_light: "#9fd5f2".into(),
            join: "#cc79a7".into(),
            join_text: "#15191c".into(),
            veil: "#7b858c".into(),
            to_move: "#0072b2".into(),
            strike: "#d55e00".into(),
            armies,
        }
    }

    /// All built-in themes.
    #[must_use]
    pub fn all() -> [Theme; 3] {
        [Theme::light(), Theme::dark(), Theme::colour_blind()]
    }

    /// A built-in theme by name ("light", "dark", "colour-blind"/"colorblind").
    #[must_use]
    pub fn by_name(name: &str) -> Option<Theme> {
        match name.to_ascii_lowercase().as_str() {
            "light" => Some(Theme::light()),
            "dark" => Some(Theme::dark()),
            "colour-blind" | "color-blind" | "colourblind" | "colorblind" => {
                Some(Theme::colour_blind())
            }
            _ => None,
        }
    }

    /// The paint of `army`.
    #[must_use]
    pub fn army(&self, army: Army) -> &ArmyPaint {
        &self.armies[army.index()]
    }
}

impl Default for Theme {
    fn default() -> Self {
        Theme::light()
    }
}

fn standard_armies() -> [ArmyPaint; 6] {
    [
        ArmyPaint::new("#fbf8f1", "#3a3128", "#1d1712"),
        ArmyPaint::new("#2d2a28", "#e9e2d6", "#0b0a09"),
        ArmyPaint::new("#d8402f", "#ffe9e3", "#2b0a06"),
        ArmyPaint::new("#3070d0", "#e3efff", "#08152b"),
        ArmyPaint::new("#f2c230", "#4a3600", "#2e2200"),
        ArmyPaint::new("#2f9a4f", "#e3f7e9", "#06200f"),
    ]
}
