//! Piece-movement diagrams for the rules help: one piece alone on a small board, with the cells
//! it can move to, capture on, or use a special power on.
//!
//! The caller (the rules help, which asks the engine) says which cell is which; this module
//! only turns that into a [`BoardView`] with a legend, so a diagram looks like every other
//! board the bot draws.

use crate::view::{
    Army, Arrow, ArrowKind, BoardPanel, BoardView, LegendEntry, Piece, PieceMarks, PlacedPiece,
    Square, Target, TargetKind,
};

/// A movement diagram under construction.
///
/// ```
/// use render::{Army, Glyph, MoveDiagram, TargetKind};
/// let view = MoveDiagram::new(Glyph::Camel, Army::White, 7, 7, (3, 3))
///     .mark(&[(4, 6), (6, 4), (2, 0)], TargetKind::MoveOrCapture)
///     .titled("Camel: (3,1) leaper")
///     .into_view();
/// assert_eq!(view.targets.len(), 3);
/// ```
#[derive(Debug, Clone)]
pub struct MoveDiagram {
    view: BoardView,
    kinds: Vec<(TargetKind, String)>,
}

impl MoveDiagram {
    /// `glyph` of `army` alone at `at` on a `width` x `height` board (files a.., ranks 1..).
    ///
    /// # Panics
    ///
    /// Panics if `width` is more than 26.
    #[must_use]
    pub fn new(glyph: crate::view::Glyph, army: Army, width: u8, height: u8, at: (u8, u8)) -> Self {
        let mut view = BoardView::new(BoardPanel::rect(width, height));
        view.pieces.push(PlacedPiece {
            square: Square::new(at.0, at.1),
            piece: Piece::new(army, glyph),
            marks: PieceMarks::default(),
        });
        view.selected = Some(Square::new(at.0, at.1));
        MoveDiagram {
            view,
            kinds: Vec::new(),
        }
    }

    /// Marks `cells` with `kind` (moves, captures, either, or a special power).
    #[must_use]
    pub fn mark(mut self, cells: &[(u8, u8)], kind: TargetKind) -> Self {
        for &(x, y) in cells {
            self.view.targets.push(Target {
                square: Square::new(x, y),
                kind,
            });
        }
        let default = match kind {
            TargetKind::Quiet => "moves",
            TargetKind::Capture => "captures",
            TargetKind::MoveOrCapture => "moves or captures",
            TargetKind::Power => "special power",
        };
        if !self.kinds.iter().any(|(k, _)| *k == kind) {
            self.kinds.push((kind, default.to_owned()));
        }
        self
    }

    /// Sets the legend text for a kind of mark ("freezes", "kills (stays put)").
    #[must_use]
    pub fn explain(mut self, kind: TargetKind, text: impl Into<String>) -> Self {
        let text = text.into();
        match self.kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some(e) => e.1 = text,
            None => self.kinds.push((kind, text)),
        }
        self
    }

    /// Adds a context piece (a screen for a cannon, a piece to push), drawn faded.
    #[must_use]
    pub fn with_piece(mut self, at: (u8, u8), piece: Piece) -> Self {
        self.view.pieces.push(PlacedPiece {
            square: Square::new(at.0, at.1),
            piece,
            marks: PieceMarks {
                faded: true,
                ..PieceMarks::default()
            },
        });
        self
    }

    /// Adds an arrow (a bent path such as the Gryphon's, or a push).
    #[must_use]
    pub fn arrow(mut self, from: (u8, u8), to: (u8, u8), kind: ArrowKind) -> Self {
        self.view.arrows.push(Arrow {
            from: Square::new(from.0, from.1),
            to: Square::new(to.0, to.1),
            kind,
        });
        self
    }

    /// Sets the title.
    #[must_use]
    pub fn titled(mut self, title: impl Into<String>) -> Self {
        self.view.title = Some(title.into());
        self
    }

    /// Sets the caption under the board.
    #[must_use]
    pub fn caption(mut self, caption: impl Into<String>) -> Self {
        self.view.caption = Some(caption.into());
        self
    }

    /// Changes the board (labels, holes, joins) while keeping the marks: for diagrams on a
    /// special board.
    #[must_use]
    pub fn on_board(mut self, board: BoardPanel) -> Self {
        self.view.boards = vec![board];
        self
    }

    /// The finished view.
    #[must_use]
    pub fn into_view(mut self) -> BoardView {
        self.view.legend = self
            .kinds
            .into_iter()
            .map(|(kind, text)| LegendEntry { kind, text })
            .collect();
        self.view
    }
}
