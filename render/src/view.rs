//! The view model: plain data describing one picture.
//!
//! `render` deliberately does not depend on the `rules` crate. The bot converts an engine
//! position into a [`BoardView`] (what is on which cell, what to highlight, who plays), and
//! everything here is drawing vocabulary only: no move legality, no topology maths. That keeps
//! the renderer stable while the engine's API moves, and lets the rules help draw diagrams that
//! are not positions at all.
//!
//! Coordinates are *board* coordinates: `x` is the file index from the left of White's (the
//! first player's) usual picture, `y` the rank index from the bottom, both starting at 0. The
//! [`Rotation`] of the whole view decides how that picture is turned for the viewer; the
//! view itself never changes with the side to move.

/// One of the six army colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Army {
    /// The first player of a two-player game.
    White,
    /// The second player of a two-player game.
    Black,
    /// Four-player games: the first army.
    Red,
    /// Four-player games.
    Blue,
    /// Four-player games.
    Yellow,
    /// Four-player games.
    Green,
}

impl Army {
    /// All armies, in declaration order.
    pub const ALL: [Army; 6] = [
        Army::White,
        Army::Black,
        Army::Red,
        Army::Blue,
        Army::Yellow,
        Army::Green,
    ];

    /// Index into [`Army::ALL`] (used for per-army theme tables).
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The army's name as shown in the picture ("White", "Red", ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Army::White => "White",
            Army::Black => "Black",
            Army::Red => "Red",
            Army::Blue => "Blue",
            Army::Yellow => "Yellow",
            Army::Green => "Green",
        }
    }
}

/// Which drawing a piece gets. Closed on purpose: every glyph has hand-made artwork; anything
/// else (a user-defined variant's piece) falls back to [`Glyph::Letter`], a letter in a disc.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Glyph {
    /// King (royal).
    King,
    /// Queen.
    Queen,
    /// Rook.
    Rook,
    /// Bishop.
    Bishop,
    /// Knight.
    Knight,
    /// Pawn.
    Pawn,
    /// Toulousain's Corporal (a Pawn with a diagonal step): a Pawn with chevrons.
    Corporal,
    /// Lion (Toulousain's 5x5 leaper and Bilateral's Lion share the artwork).
    Lion,
    /// Gryphon (diagonal step then outward Rook).
    Gryphon,
    /// Camel, the (3,1) leaper.
    Camel,
    /// Xiangqi-style cannon (Toulousain).
    Cannon,
    /// Bilateral's Can(n)on in its orthogonal (Pao) state.
    Pao,
    /// Bilateral's Can(n)on in its diagonal (Vao) state.
    Vao,
    /// Toulousain's Elephant (Ferz + Alfil).
    Elephant,
    /// Bilateral's pushing Elephant.
    BilateralElephant,
    /// Bilateral's Wizard.
    Wizard,
    /// Marshal (Rook + Knight).
    Marshal,
    /// Cardinal (Bishop + Knight).
    Cardinal,
    /// Gnu / Wildebeest (Knight + Camel).
    Gnu,
    /// Canvasser (Rook + Camel).
    Canvasser,
    /// Caliph (Bishop + Camel).
    Caliph,
    /// Frog (Ferz + Threeleaper).
    Frog,
    /// Prince (non-royal King).
    Prince,
    /// Wazir (one orthogonal step).
    Wazir,
    /// Fallback for pieces without artwork: this (ASCII, upper-case) letter in a disc.
    Letter(char),
}

impl Glyph {
    /// Every glyph with its own artwork, in a stable order (gallery and tests use it).
    pub const ALL: [Glyph; 24] = [
        Glyph::King,
        Glyph::Queen,
        Glyph::Rook,
        Glyph::Bishop,
        Glyph::Knight,
        Glyph::Pawn,
        Glyph::Corporal,
        Glyph::Lion,
        Glyph::Gryphon,
        Glyph::Camel,
        Glyph::Cannon,
        Glyph::Pao,
        Glyph::Vao,
        Glyph::Elephant,
        Glyph::BilateralElephant,
        Glyph::Wizard,
        Glyph::Marshal,
        Glyph::Cardinal,
        Glyph::Gnu,
        Glyph::Canvasser,
        Glyph::Caliph,
        Glyph::Frog,
        Glyph::Prince,
        Glyph::Wazir,
    ];

    /// The English name, for legends and alt text.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Glyph::Letter(c) => format!("Piece {c}"),
            Glyph::BilateralElephant => "Elephant".to_owned(),
            Glyph::Pao => "Can(n)on (Pao)".to_owned(),
            Glyph::Vao => "Can(n)on (Vao)".to_owned(),
            g => format!("{g:?}"),
        }
    }
}

/// A piece: what it is and whose it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The drawing.
    pub glyph: Glyph,
    /// The owner; decides the colours.
    pub army: Army,
}

impl Piece {
    /// A piece of `army` drawn as `glyph`.
    #[must_use]
    pub const fn new(army: Army, glyph: Glyph) -> Self {
        Piece { glyph, army }
    }
}

/// State drawn on top of a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PieceMarks {
    /// Frozen (paralysed by a Bilateral Wizard): an ice badge and a cold tint.
    pub frozen: bool,
    /// Drawn half transparent: a piece whose place is remembered rather than seen, or a
    /// context piece in a movement diagram.
    pub faded: bool,
}

/// A cell of one of the view's boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// Index into [`BoardView::boards`].
    pub board: u8,
    /// File index from the left of the first player's picture, from 0.
    pub x: u8,
    /// Rank index from the bottom of the first player's picture, from 0.
    pub y: u8,
}

impl Square {
    /// A cell of the first (often the only) board.
    #[must_use]
    pub const fn new(x: u8, y: u8) -> Self {
        Square { board: 0, x, y }
    }

    /// A cell of board number `board`.
    #[must_use]
    pub const fn on(board: u8, x: u8, y: u8) -> Self {
        Square { board, x, y }
    }
}

/// A piece standing on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlacedPiece {
    /// Where.
    pub square: Square,
    /// What.
    pub piece: Piece,
    /// Extra state to draw.
    pub marks: PieceMarks,
}

/// Light or dark square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shade {
    /// Light square.
    Light,
    /// Dark square.
    Dark,
}

/// How a board's squares are coloured.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Shading {
    /// Checkered by parity: cell (0, 0) is dark, as a1 in FIDE chess. Parity is that of the
    /// covering plane (`geometry-and-pieces.md` §2.3), which is the cell's own `x + y`.
    #[default]
    Parity,
    /// Checkered the other way round: cell (0, 0) is light.
    ParityFlipped,
    /// One shade per cell, row by row from the bottom (`y * width + x`); the caller knows
    /// better (a board whose colouring is not a checkerboard).
    Explicit(Vec<Shade>),
}

/// A side of a board, in board coordinates (before rotation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Edge {
    /// Beyond the last rank (`y = height - 1`).
    Top,
    /// Below the first rank (`y = 0`).
    Bottom,
    /// Left of the first file (`x = 0`).
    Left,
    /// Right of the last file (`x = width - 1`).
    Right,
}

/// A glued edge: lines leaving the board there come back elsewhere (cylinder, Moebius strip,
/// torus, or another panel). The renderer draws a marker strip along the edge and, in it, the
/// name of the cell each line continues into, so a player can follow a Rook around the loop.
/// The caller computes the pairing (it knows the topology); the renderer only draws it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Join {
    /// Which side of the board is glued.
    pub edge: Edge,
    /// True when the join reverses direction (Moebius): drawn with a twist symbol.
    pub twisted: bool,
    /// For each cell along the edge (index `x` for top/bottom, `y` for left/right), the name of
    /// the cell the line continues into, or `None` where this part of the edge is not glued (or
    /// the edge cell is a hole). Shorter than the edge is fine: the rest is `None`.
    pub partners: Vec<Option<String>>,
}

/// One board of the picture.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BoardPanel {
    /// Shown above the board ("Real", "Mirror", "Lower board").
    pub title: Option<String>,
    /// Number of files.
    pub width: u8,
    /// Number of ranks.
    pub height: u8,
    /// Cells that do not exist (not drawn at all), e.g. the Double Cross board's corners.
    pub holes: Vec<(u8, u8)>,
    /// File labels from left to right (`width` strings): "a".."l", or "y", "z", "a".."j".
    pub files: Vec<String>,
    /// Rank labels from bottom to top (`height` strings): "1".."12", or "k".."z".
    pub ranks: Vec<String>,
    /// Square colours.
    pub shading: Shading,
    /// Rivers: a river is drawn between rank `y` and rank `y + 1` for each `y` listed.
    pub rivers: Vec<u8>,
    /// Seams: where two boards were put back to back to make this one (Besiege boards), a
    /// bold line in the frame colour between rank `y` and rank `y + 1` for each `y` listed.
    pub seams: Vec<u8>,
    /// Seams between file `x` and file `x + 1` (two boards side by side: Twin-board
    /// Ecumenical's halves).
    pub file_seams: Vec<u8>,
    /// Glued edges.
    pub joins: Vec<Join>,
    /// The viewer cannot see this board (Looking-Glass): the board is veiled, and only the
    /// pieces the caller still lists (typically the viewer's own) are drawn, faded.
    pub veiled: bool,
}

impl BoardPanel {
    /// A plain `width` x `height` rectangle with files a, b, c... and ranks 1, 2, 3...
    ///
    /// # Panics
    ///
    /// Panics if `width` is more than 26 (there are no letters for it); use
    /// [`BoardPanel::with_labels`] for wider boards.
    #[must_use]
    pub fn rect(width: u8, height: u8) -> Self {
        assert!(width <= 26, "rect: at most 26 files have letter names");
        let files = (0..width)
            .map(|i| char::from(b'a' + i).to_string())
            .collect();
        let ranks = (1..=u32::from(height)).map(|r| r.to_string()).collect();
        Self::with_labels(files, ranks)
    }

    /// A rectangle sized by its labels (files left to right, ranks bottom to top).
    ///
    /// # Panics
    ///
    /// Panics if there are more than 255 files or ranks.
    #[must_use]
    pub fn with_labels(files: Vec<String>, ranks: Vec<String>) -> Self {
        BoardPanel {
            title: None,
            width: u8::try_from(files.len()).expect("at most 255 files"),
            height: u8::try_from(ranks.len()).expect("at most 255 ranks"),
            holes: Vec::new(),
            files,
            ranks,
            shading: Shading::Parity,
            rivers: Vec::new(),
            seams: Vec::new(),
            file_seams: Vec::new(),
            joins: Vec::new(),
            veiled: false,
        }
    }

    /// Builder: set the title.
    #[must_use]
    pub fn titled(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Does cell `(x, y)` exist (inside the rectangle and not a hole)?
    #[must_use]
    pub fn has_cell(&self, x: u8, y: u8) -> bool {
        x < self.width && y < self.height && !self.holes.contains(&(x, y))
    }

    /// The shade of cell `(x, y)`.
    #[must_use]
    pub fn shade(&self, x: u8, y: u8) -> Shade {
        let even = (u32::from(x) + u32::from(y)) % 2 == 0;
        match &self.shading {
            Shading::Parity => {
                if even {
                    Shade::Dark
                } else {
                    Shade::Light
                }
            }
            Shading::ParityFlipped => {
                if even {
                    Shade::Light
                } else {
                    Shade::Dark
                }
            }
            Shading::Explicit(v) => v
                .get(usize::from(y) * usize::from(self.width) + usize::from(x))
                .copied()
                .unwrap_or(Shade::Light),
        }
    }
}

/// How a highlighted target cell is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetKind {
    /// A move without capture: a dot.
    Quiet,
    /// A capture: a ring around the cell.
    Capture,
    /// Either (movement diagrams: moves or captures there): dot and ring.
    MoveOrCapture,
    /// A special power (freeze, kill, push, flip, ...): a diamond.
    Power,
}

/// A marked target cell (legal moves of a selected piece, or a movement diagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// Where.
    pub square: Square,
    /// How.
    pub kind: TargetKind,
}

/// What an arrow means, and so its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrowKind {
    /// A move (suggestion, analysis, path of a bent rider).
    Move,
    /// A capture or threat.
    Capture,
    /// A special power: a Wizard's freeze link, a push, a Looking-Glass transfer.
    Power,
}

/// An arrow from one cell to another on the same board (from and to on different boards are
/// not drawn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Arrow {
    /// Start cell.
    pub from: Square,
    /// End cell (arrowhead).
    pub to: Square,
    /// Colour and meaning.
    pub kind: ArrowKind,
}

/// The last move, highlighted on the board.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LastMove {
    /// Where it came from (`None` for a drop, or if the viewer may not know).
    pub from: Option<Square>,
    /// Where it went.
    pub to: Square,
    /// Other cells the move changed (castling partner, pushed piece, killed piece).
    pub also: Vec<Square>,
}

/// Strikes against a player (Looking-Glass): `count` out of `limit` (the player loses on the
/// `limit`th).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Strikes {
    /// Strikes so far.
    pub count: u8,
    /// Strikes that lose the game.
    pub limit: u8,
}

/// Who plays an army and what they have taken.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlayerInfo {
    /// The army.
    pub army: Army,
    /// The player's display name (default: the army's name).
    pub name: Option<String>,
    /// Pieces this army has captured (drawn small, in their own colours).
    pub captured: Vec<Piece>,
    /// Strikes, for games that count them.
    pub strikes: Option<Strikes>,
    /// The player is out (four-player games): drawn struck through.
    pub eliminated: bool,
}

impl PlayerInfo {
    /// A player with only an army and a name.
    #[must_use]
    pub fn new(army: Army, name: impl Into<String>) -> Self {
        PlayerInfo {
            army,
            name: Some(name.into()),
            captured: Vec::new(),
            strikes: None,
            eliminated: false,
        }
    }
}

/// How the standard picture (first player at the bottom, file `x = 0` on the left) is turned
/// for the viewer. Chosen per viewer, never per move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rotation {
    /// As is: White (or the first player) at the bottom.
    #[default]
    None,
    /// A quarter turn clockwise: the bottom edge goes to the left (useful to show a tall 8x16
    /// board in landscape, and for the army whose camp is on the right edge).
    Clockwise,
    /// Upside down: Black's view of a two-player board.
    Half,
    /// A quarter turn anticlockwise: the bottom edge goes to the right.
    Anticlockwise,
}

impl Rotation {
    /// The usual rotation for a two-player game seen by `army` (Black: upside down).
    #[must_use]
    pub const fn for_two_player(army: Army) -> Self {
        match army {
            Army::Black => Rotation::Half,
            _ => Rotation::None,
        }
    }

    /// Turns a value by quarter turns: 0 for `None`, 1 clockwise, 2, 3.
    #[must_use]
    pub const fn quarter_turns(self) -> u8 {
        match self {
            Rotation::None => 0,
            Rotation::Clockwise => 1,
            Rotation::Half => 2,
            Rotation::Anticlockwise => 3,
        }
    }
}

/// A legend line under the board (movement diagrams): a target symbol and what it means.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LegendEntry {
    /// The symbol.
    pub kind: TargetKind,
    /// Its meaning ("moves", "captures", "freezes").
    pub text: String,
}

/// Everything one picture shows. Build it field by field; [`BoardView::new`] gives an empty
/// view with one board.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct BoardView {
    /// One or more boards, drawn side by side in this order (after rotation).
    pub boards: Vec<BoardPanel>,
    /// The pieces on every board.
    pub pieces: Vec<PlacedPiece>,
    /// Highlighted last move.
    pub last_move: Option<LastMove>,
    /// Royal pieces in check (several in four-player games).
    pub check: Vec<Square>,
    /// The selected piece, whose targets are shown.
    pub selected: Option<Square>,
    /// Marked target cells.
    pub targets: Vec<Target>,
    /// Arrows.
    pub arrows: Vec<Arrow>,
    /// Players, in turn order.
    pub players: Vec<PlayerInfo>,
    /// The army whose turn it is (marked next to its player).
    pub side_to_move: Option<Army>,
    /// The army of the person looking: its player row goes at the bottom.
    pub viewer: Option<Army>,
    /// Move number, shown in the header.
    pub move_number: Option<u32>,
    /// Header title ("Toulousain Chess").
    pub title: Option<String>,
    /// A line under the board ("White to move: a strike was given").
    pub caption: Option<String>,
    /// Legend lines (movement diagrams).
    pub legend: Vec<LegendEntry>,
    /// How the picture is turned for the viewer.
    pub rotation: Rotation,
}

impl BoardView {
    /// An empty view of one board.
    #[must_use]
    pub fn new(board: BoardPanel) -> Self {
        BoardView {
            boards: vec![board],
            ..Default::default()
        }
    }

    /// Puts a piece on a square (builder style).
    pub fn put(&mut self, square: Square, piece: Piece) -> &mut Self {
        self.pieces.push(PlacedPiece {
            square,
            piece,
            marks: PieceMarks::default(),
        });
        self
    }

    /// The piece on `square`, if any (the last one listed wins).
    #[must_use]
    pub fn piece_at(&self, square: Square) -> Option<&PlacedPiece> {
        self.pieces.iter().rev().find(|p| p.square == square)
    }
}
