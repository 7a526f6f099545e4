//! The small vocabulary types every other module speaks: cells, sides, piece kinds, moves.

use std::fmt;

/// A cell of a variant's board, an index into its geometry (at most 256 cells).
///
/// Cells are dense indices rather than coordinates so that boards with holes, several boards
/// and glued edges all share one representation; [`crate::Geometry`] knows each cell's board,
/// file, rank and printable name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(pub u8);

impl Cell {
    /// The cell as an index into per-cell arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A side (army). Two-player variants use [`Side::WHITE`] and [`Side::BLACK`]; four-player
/// variants use indices 0..4 in turn order. Colours are indices, never a bool.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side(pub u8);

impl Side {
    /// The first player.
    pub const WHITE: Side = Side(0);
    /// The second player.
    pub const BLACK: Side = Side(1);

    /// The side as an index into per-side arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// A human name for the side in a two- or four-player game.
    pub fn name(self, sides: usize) -> &'static str {
        if sides <= 2 {
            ["White", "Black"][self.index().min(1)]
        } else {
            ["Red", "Blue", "Yellow", "Green"][self.index().min(3)]
        }
    }

    /// The side's one-letter name in state text: `w`, `b` with two sides; `r`, `b`, `y`, `g`
    /// with four.
    pub fn letter(self, sides: usize) -> char {
        if sides <= 2 {
            ['w', 'b'][self.index().min(1)]
        } else {
            ['r', 'b', 'y', 'g'][self.index().min(3)]
        }
    }

    /// The side written `letter` in state text (see [`Side::letter`]).
    pub fn from_letter(letter: char, sides: usize) -> Option<Side> {
        (0..sides.min(MAX_SIDES) as u8)
            .map(Side)
            .find(|s| s.letter(sides) == letter)
    }

    /// The side called `name` (any case), as [`Side::name`] spells it.
    pub fn from_name(name: &str, sides: usize) -> Option<Side> {
        (0..sides.min(MAX_SIDES) as u8)
            .map(Side)
            .find(|s| s.name(sides).eq_ignore_ascii_case(name))
    }
}

/// A piece kind: an index (1..=31) into the variant's piece table. Zero is never a kind, so a
/// packed [`Piece`] can use zero for "empty".
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind(pub u8);

impl Kind {
    /// The kind as an index into per-kind arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The largest number of piece kinds a variant may define.
pub const MAX_KINDS: usize = 31;
/// The largest number of sides a variant may have.
pub const MAX_SIDES: usize = 4;
/// The largest number of cells a variant's board (all boards together) may have.
pub const MAX_CELLS: usize = 256;
/// The largest number of files (or ranks) a board may have: one letter each.
pub const MAX_FILES: usize = 26;

/// A piece on the board: a side and a kind, packed in one byte (`side << 5 | kind`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its owner.
    pub side: Side,
    /// Its kind, an index into the variant's piece table.
    pub kind: Kind,
}

impl Piece {
    /// The packed byte: never zero, because kinds start at one.
    #[inline]
    pub const fn code(self) -> u8 {
        (self.side.0 << 5) | self.kind.0
    }

    /// Unpacks a board byte; zero means an empty cell.
    #[inline]
    pub const fn from_code(code: u8) -> Option<Piece> {
        if code == 0 {
            None
        } else {
            Some(Piece {
                side: Side(code >> 5),
                kind: Kind(code & 31),
            })
        }
    }

    /// The kind number in a board byte, 0 for an empty cell.
    ///
    /// For the hot loops that index tables by kind straight from the board without building
    /// a `Piece`. Written through [`Piece::from_code`] so the packing is spelt in one place;
    /// it still compiles to one mask, since an empty cell's byte gives 0 either way.
    #[inline(always)]
    pub(crate) const fn kind_of(code: u8) -> u8 {
        match Piece::from_code(code) {
            Some(p) => p.kind.0,
            None => 0,
        }
    }

    /// The side number in a board byte, 0 for an empty cell (so test emptiness first where
    /// it matters). Like [`Piece::kind_of`], one shift once compiled.
    #[inline(always)]
    pub(crate) const fn side_of(code: u8) -> u8 {
        match Piece::from_code(code) {
            Some(p) => p.side.0,
            None => 0,
        }
    }
}

/// What a move does besides moving a piece from one cell to another.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum MoveKind {
    /// A move to an empty cell.
    Quiet = 0,
    /// A capture of the piece on the destination.
    Capture = 1,
    /// A multi-step move that gives the opponent an en-passant right; `aux` is the skipped cell.
    DoubleStep = 2,
    /// An en-passant capture; `aux` is the cell of the captured piece.
    EnPassant = 3,
    /// Castling: `from`/`to` are the King's cells, `aux`/`aux2` the partner's.
    Castle = 4,
    /// A flip in place (the whole move): `from == to`, `promotion` is the new kind.
    Flip = 5,
    /// A push: the mover steps onto an enemy piece, which goes on to `aux`; `promotion` is
    /// what a pushed pawn becomes there (chosen by the pusher).
    Push = 6,
    /// A freeze: the piece on `from` freezes the enemy on `to`; nothing moves.
    Freeze = 7,
    /// A kill in place: the enemy on `to` is removed; the killer stays on `from`.
    Kill = 8,
    /// A resignation in a game of more than two sides (the others play on): `aux` holds the
    /// resigning side's number; `from` and `to` mean nothing. Never generated: see
    /// [`crate::Position::resignation`].
    Resign = 9,
    /// A pass in a game of more than two sides: the only move of a side that has no other
    /// (our reading of rulebook 4.6); nothing moves. `from` and `to` mean nothing.
    Pass = 10,
}

/// One move. Small and `Copy` (6 bytes) because move lists are the engine's hottest data.
///
/// A move means something only together with the position it was generated in; notation
/// (see [`crate::notation`]) turns text into a `Move` against a position and back.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Move {
    /// The cell the moving piece starts on.
    pub from: Cell,
    /// The cell it ends on.
    pub to: Cell,
    /// What kind of move it is.
    pub kind: MoveKind,
    /// The kind it promotes to, if any.
    pub promotion: Option<Kind>,
    /// En passant: the captured piece's cell. Double step: the skipped cell. Castling: the
    /// partner's start cell.
    pub aux: Cell,
    /// Castling: the partner's destination cell.
    pub aux2: Cell,
}

impl Move {
    /// A plain move of the given kind with no auxiliary cells.
    #[inline]
    pub const fn new(from: Cell, to: Cell, kind: MoveKind) -> Move {
        Move {
            from,
            to,
            kind,
            promotion: None,
            aux: Cell(0),
            aux2: Cell(0),
        }
    }

    /// Whether the move removes an enemy piece.
    #[inline]
    pub fn is_capture(self) -> bool {
        matches!(
            self.kind,
            MoveKind::Capture | MoveKind::EnPassant | MoveKind::Kill
        )
    }

    /// Whether the move changes the material: a capture, a promotion or a push (which may
    /// promote the pushed pawn). These are what a quiescence search looks at, and what
    /// [`crate::Position::legal_tactical_into`] generates.
    #[inline]
    pub fn is_tactical(self) -> bool {
        self.is_capture() || self.promotion.is_some() || self.kind == MoveKind::Push
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({}->{} {:?}", self.from.0, self.to.0, self.kind)?;
        if let Some(p) = self.promotion {
            write!(f, " ={}", p.0)?;
        }
        write!(f, ")")
    }
}

/// A reusable list of moves.
pub type MoveList = Vec<Move>;

/// A set of cells, one bit per cell.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct CellSet(pub [u64; 4]);

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet([0; 4]);

    /// Whether `cell` is in the set.
    #[inline]
    pub fn contains(&self, cell: Cell) -> bool {
        (self.0[cell.index() >> 6] >> (cell.index() & 63)) & 1 != 0
    }

    /// Adds `cell`.
    #[inline]
    pub fn insert(&mut self, cell: Cell) {
        self.0[cell.index() >> 6] |= 1 << (cell.index() & 63);
    }

    /// Removes `cell`.
    #[inline]
    pub fn remove(&mut self, cell: Cell) {
        self.0[cell.index() >> 6] &= !(1 << (cell.index() & 63));
    }

    /// The cells in both sets.
    #[inline]
    pub fn intersection(&self, other: &CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    /// The cells in either set.
    #[inline]
    pub fn union(&self, other: &CellSet) -> CellSet {
        CellSet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The number of cells in the set.
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The cells in increasing order.
    #[inline]
    pub fn iter(&self) -> CellSetIter {
        CellSetIter {
            words: self.0,
            word: 0,
        }
    }
}

/// The cells of a [`CellSet`], in increasing order.
#[derive(Debug, Clone)]
pub struct CellSetIter {
    words: [u64; 4],
    word: usize,
}

impl Iterator for CellSetIter {
    type Item = Cell;

    #[inline]
    fn next(&mut self) -> Option<Cell> {
        while self.word < 4 {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some(Cell((self.word * 64 + w.trailing_zeros() as usize) as u8));
            }
            self.word += 1;
        }
        None
    }
}

impl fmt::Debug for CellSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|c| c.0)).finish()
    }
}
