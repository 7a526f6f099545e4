//! fairybot's board pictures: a [`BoardView`] (plain data) becomes SVG text, and the SVG
//! becomes a PNG with resvg and an embedded font, so the pixels are the same on every machine.
//!
//! ```
//! use render::{Army, BoardPanel, BoardView, Glyph, Piece, Renderer, Square, Theme};
//!
//! let mut view = BoardView::new(BoardPanel::rect(8, 8));
//! view.put(Square::new(4, 0), Piece::new(Army::White, Glyph::King));
//! view.put(Square::new(4, 7), Piece::new(Army::Black, Glyph::King));
//! let renderer = Renderer::new(); // loads the font once; keep it around
//! let png = renderer.png(&view, &Theme::light(), 640)?;
//! assert_eq!(&png[1..4], b"PNG");
//! # Ok::<(), render::RenderError>(())
//! ```
//!
//! Modules: [`view`] (the data model), `layout` (where things go), `artwork` (our piece
//! drawings), [`theme`] (colours), `svg` (the writer), `raster` (resvg and PNG), and
//! [`diagram`] (movement diagrams for the rules help). See the crate README for the gallery,
//! the measured speed and the design decisions.

#![warn(missing_docs)]

pub mod animation;
mod artwork;
pub mod diagram;
mod graph;
mod layout;
mod raster;
mod svg;
pub mod theme;
pub mod view;

pub use diagram::MoveDiagram;
pub use graph::{EvalGraph, GraphMark, MarkKind, alt_text as graph_alt_text, graph_svg};
pub use raster::{Encoding, FONT, MAX_SIDE, RenderError, Renderer, encode_png, render_png};
pub use svg::render_svg;
pub use theme::{ArmyPaint, Theme};
pub use view::{
    Army, Arrow, ArrowKind, BoardPanel, BoardView, Edge, Glyph, Join, LastMove, LegendEntry, Piece,
    PieceMarks, PlacedPiece, PlayerInfo, Rotation, Shade, Shading, Square, Strikes, Target,
    TargetKind,
};

/// A mistake in a [`BoardView`] found by [`BoardView::validate`]. Rendering never fails on
/// these (the offending item is skipped); validation is for the code that builds views.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// The view has no board.
    #[error("view has no board")]
    NoBoard,
    /// A board has zero width or height.
    #[error("board {board} is empty ({width}x{height})")]
    EmptyBoard {
        /// Board index.
        board: usize,
        /// Width.
        width: u8,
        /// Height.
        height: u8,
    },
    /// The number of file or rank labels does not match the board size.
    #[error("board {board} has {files} file and {ranks} rank labels for a {width}x{height} board")]
    Labels {
        /// Board index.
        board: usize,
        /// File labels given.
        files: usize,
        /// Rank labels given.
        ranks: usize,
        /// Width.
        width: u8,
        /// Height.
        height: u8,
    },
    /// Something refers to a cell that does not exist (outside the board, a hole, or a
    /// board index out of range).
    #[error("{what} refers to missing cell {x},{y} on board {board}")]
    NoSuchCell {
        /// What it was ("piece", "target", "arrow", ...).
        what: &'static str,
        /// Board index.
        board: u8,
        /// File index.
        x: u8,
        /// Rank index.
        y: u8,
    },
}

impl BoardView {
    /// Checks that every board has matching labels and that every piece and mark is on an
    /// existing cell.
    ///
    /// # Errors
    ///
    /// The first [`ViewError`] found.
    pub fn validate(&self) -> Result<(), ViewError> {
        if self.boards.is_empty() {
            return Err(ViewError::NoBoard);
        }
        for (i, b) in self.boards.iter().enumerate() {
            if b.width == 0 || b.height == 0 {
                return Err(ViewError::EmptyBoard {
                    board: i,
                    width: b.width,
                    height: b.height,
                });
            }
            if b.files.len() != usize::from(b.width) || b.ranks.len() != usize::from(b.height) {
                return Err(ViewError::Labels {
                    board: i,
                    files: b.files.len(),
                    ranks: b.ranks.len(),
                    width: b.width,
                    height: b.height,
                });
            }
        }
        let check = |what: &'static str, s: Square| -> Result<(), ViewError> {
            let ok = self
                .boards
                .get(usize::from(s.board))
                .is_some_and(|b| b.has_cell(s.x, s.y));
            if ok {
                Ok(())
            } else {
                Err(ViewError::NoSuchCell {
                    what,
                    board: s.board,
                    x: s.x,
                    y: s.y,
                })
            }
        };
        for p in &self.pieces {
            check("piece", p.square)?;
        }
        if let Some(m) = &self.last_move {
            check("last move", m.to)?;
            for &s in m.from.iter().chain(&m.also) {
                check("last move", s)?;
            }
        }
        for &s in &self.check {
            check("check", s)?;
        }
        if let Some(s) = self.selected {
            check("selected", s)?;
        }
        for t in &self.targets {
            check("target", t.square)?;
        }
        for a in &self.arrows {
            check("arrow", a.from)?;
            check("arrow", a.to)?;
        }
        Ok(())
    }
}

/// The canvas size of `view`'s picture in SVG user units (width, height). A PNG of size `s`
/// is this scaled by `s / max(width, height)`.
#[must_use]
pub fn canvas_size(view: &BoardView) -> (f32, f32) {
    let lay = layout::layout(view);
    (lay.width, lay.height)
}

/// Where `square` is drawn, in SVG user units: `[x, y, width, height]`, or `None` if the
/// cell does not exist. For tests (pixel probes) and for clickable image maps.
#[must_use]
pub fn cell_bounds(view: &BoardView, square: Square) -> Option<[f32; 4]> {
    let board = view.boards.get(usize::from(square.board))?;
    if !board.has_cell(square.x, square.y) {
        return None;
    }
    let lay = layout::layout(view);
    let p = lay.panels.get(usize::from(square.board))?;
    let (x, y) = p.cell_origin(square.x, square.y);
    Some([x, y, layout::CELL, layout::CELL])
}
