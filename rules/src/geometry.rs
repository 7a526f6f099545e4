//! Board geometry: one model for rectangles, holes, cylinders, Moebius twists, skewed tori and
//! several boards.
//!
//! Every board is a rectangle of `width x height` cells, possibly with holes, whose edges may be
//! glued to each other. Moves are computed in unbounded *cover* coordinates and [`Geometry::canon`]
//! maps a cover point to a real cell, or to nothing. Directions therefore stay straight across
//! every join, Moebius twists included, and move generation never needs to know which topology it
//! runs on: the tables built from this module already contain the answer (see
//! `../shared/rules/geometry-and-pieces.md` §2.3).

use std::collections::HashMap;

use crate::types::{Cell, MAX_CELLS};

/// How one pair of opposite edges is glued.
///
/// For the x edges: `(x, y) ≡ (x + width, y + shift)`, and with `mirror` the rank is reflected
/// instead of shifted: `(x, y) ≡ (x + width, height - 1 - y)`. The y edges likewise:
/// `(x, y) ≡ (x + shift, y + height)` or, mirrored, `(width - 1 - x, y + height)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Join {
    /// The offset along the other axis when crossing the join (a skewed torus).
    pub shift: i32,
    /// Whether crossing the join reflects the other axis (a Moebius twist).
    pub mirror: bool,
}

/// The shape of one board (all copies of a multi-board variant share it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Number of files.
    pub width: u8,
    /// Number of ranks.
    pub height: u8,
    /// File names, left to right from the first player's side.
    pub file_names: Vec<String>,
    /// Rank names, bottom to top from the first player's side.
    pub rank_names: Vec<String>,
    /// `present[y][x]`: whether the cell exists (false = a hole).
    pub present: Vec<Vec<bool>>,
    /// How the left and right edges are glued, if at all.
    pub wrap_x: Option<Join>,
    /// How the bottom and top edges are glued, if at all.
    pub wrap_y: Option<Join>,
    /// The Double Cross rule: diagonal steps and Knight leaps must stay inside a solid block of
    /// existing cells.
    pub solid_blocks: bool,
    /// Ranks (indices) above which two boards meet back to back (Besiege boards): drawn as a
    /// seam, no rule attached.
    pub seams: Vec<u8>,
    /// Files (indices) right of which two boards meet side by side: drawn, no rule.
    pub file_seams: Vec<u8>,
    /// Ranks (indices) above which a river runs.
    pub rivers: Vec<u8>,
}

/// Where a cell is: which board, which file and rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellInfo {
    /// The board (0 for single-board variants).
    pub board: u8,
    /// File index, 0 = leftmost from the first player's side.
    pub file: u8,
    /// Rank index, 0 = bottom from the first player's side.
    pub rank: u8,
    /// The printable name, e.g. `e4`, `a10`, `dl` or `R:e4`.
    pub name: String,
}

/// The resolved geometry of a variant: the cells of all its boards, their names and topology.
#[derive(Clone, Debug)]
pub struct Geometry {
    shape: Shape,
    prefixes: Vec<String>,
    cells: Vec<CellInfo>,
    /// `grid[board][y * width + x]`: the cell at canonical coordinates, if it exists.
    grid: Vec<Vec<Option<Cell>>>,
    by_name: HashMap<String, Cell>,
}

/// Why a board description cannot be turned into a geometry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// The board has no cells, or too many.
    #[error("a board must have between 1 and {MAX_CELLS} cells in all, this one has {0}")]
    CellCount(usize),
    /// Names do not match the board size.
    #[error("{what}: expected {expected} names, found {found}")]
    NameCount {
        /// Which list.
        what: &'static str,
        /// The board size along that axis.
        expected: usize,
        /// How many names were given.
        found: usize,
    },
    /// Two cells would print the same.
    #[error("two cells are both named {0:?}; file and rank names must make every cell name unique")]
    DuplicateName(String),
    /// A join with both a shift and a mirror.
    #[error("a join may shift or mirror, not both")]
    ShiftAndMirror,
    /// The hole list names something that is not a cell.
    #[error("hole {0:?} is not a cell of the board")]
    UnknownHole(String),
}

impl Geometry {
    /// Builds the geometry of `copies.len()` boards of one shape; each copy's cell names start
    /// with its prefix (`""` for a single board, `"R:"` and `"M:"` for Looking-Glass).
    ///
    /// # Errors
    /// When the names do not fit the size, names collide, or there are too many cells.
    pub fn new(shape: Shape, copies: &[String]) -> Result<Geometry, GeometryError> {
        let (w, h) = (shape.width as usize, shape.height as usize);
        if shape.file_names.len() != w {
            return Err(GeometryError::NameCount {
                what: "file names",
                expected: w,
                found: shape.file_names.len(),
            });
        }
        if shape.rank_names.len() != h {
            return Err(GeometryError::NameCount {
                what: "rank names",
                expected: h,
                found: shape.rank_names.len(),
            });
        }
        for join in [shape.wrap_x, shape.wrap_y].into_iter().flatten() {
            if join.shift != 0 && join.mirror {
                return Err(GeometryError::ShiftAndMirror);
            }
        }
        let per_board = shape.present.iter().flatten().filter(|p| **p).count();
        let total = per_board * copies.len().max(1);
        if total == 0 || total > MAX_CELLS {
            return Err(GeometryError::CellCount(total));
        }
        let prefixes: Vec<String> = if copies.is_empty() {
            vec![String::new()]
        } else {
            copies.to_vec()
        };
        let mut cells = Vec::with_capacity(total);
        let mut grid = Vec::new();
        let mut by_name = HashMap::new();
        for (b, prefix) in prefixes.iter().enumerate() {
            let mut g = vec![None; w * h];
            for y in 0..h {
                for x in 0..w {
                    if !shape.present[y][x] {
                        continue;
                    }
                    let cell = Cell(cells.len() as u8);
                    let name = format!("{prefix}{}{}", shape.file_names[x], shape.rank_names[y]);
                    if by_name.insert(name.clone(), cell).is_some() {
                        return Err(GeometryError::DuplicateName(name));
                    }
                    g[y * w + x] = Some(cell);
                    cells.push(CellInfo {
                        board: b as u8,
                        file: x as u8,
                        rank: y as u8,
                        name,
                    });
                }
            }
            grid.push(g);
        }
        Ok(Geometry {
            shape,
            prefixes,
            cells,
            grid,
            by_name,
        })
    }

    /// A plain rectangle with the usual names (files `a`.., ranks `1`..).
    pub fn rectangle(width: u8, height: u8) -> Geometry {
        Geometry::new(Shape::rectangle(width, height), &[]).expect("a plain rectangle is valid")
    }

    /// The board shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The number of boards.
    pub fn boards(&self) -> usize {
        self.prefixes.len()
    }

    /// The name prefix of each board.
    pub fn prefixes(&self) -> &[String] {
        &self.prefixes
    }

    /// The number of cells on all boards.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the geometry has no cells (never true for a built geometry).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Every cell, in index order (board by board, rank by rank from the bottom, file by file).
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.cells.len()).map(|i| Cell(i as u8))
    }

    /// Where a cell is.
    pub fn info(&self, cell: Cell) -> &CellInfo {
        &self.cells[cell.index()]
    }

    /// The printable name of a cell.
    pub fn name(&self, cell: Cell) -> &str {
        &self.cells[cell.index()].name
    }

    /// The cell with this exact name.
    pub fn parse(&self, name: &str) -> Option<Cell> {
        self.by_name.get(name).copied()
    }

    /// The cell at canonical coordinates of a board, if it exists.
    pub fn at(&self, board: u8, file: i32, rank: i32) -> Option<Cell> {
        let (w, h) = (self.shape.width as i32, self.shape.height as i32);
        if !(0..w).contains(&file) || !(0..h).contains(&rank) {
            return None;
        }
        self.grid
            .get(board as usize)?
            .get((rank * w + file) as usize)
            .copied()
            .flatten()
    }

    /// Maps a point of the covering plane of `board` to the real cell it stands for.
    ///
    /// Points beyond an unglued edge, and holes, map to `None`.
    pub fn canon(&self, board: u8, x: i32, y: i32) -> Option<Cell> {
        let (x, y) = self.shape.reduce(x, y)?;
        self.at(board, x, y)
    }

    /// The colour of a cell's square: 0 dark, 1 light (a1 is dark). On Moebius boards the
    /// colour of the *cover* point changes across the twist; this is the canonical colour.
    pub fn colour(&self, cell: Cell) -> u8 {
        let i = self.info(cell);
        (i.file + i.rank) & 1
    }

    /// Whether a step from the canonical point of `from` by `(dx, dy)` stays inside a solid
    /// block of cells, as the Double Cross board requires of diagonal steps and Knight leaps.
    /// Always true on boards without the rule, and for moves the rule does not cover.
    pub fn solid(&self, board: u8, x: i32, y: i32, dx: i32, dy: i32) -> bool {
        if !self.shape.solid_blocks {
            return true;
        }
        let (ax, ay) = (dx.abs(), dy.abs());
        let covered = matches!((ax, ay), (1, 1) | (2, 1) | (1, 2));
        if !covered {
            return true;
        }
        let (sx, sy) = (dx.signum(), dy.signum());
        (0..=ax).all(|i| (0..=ay).all(|j| self.canon(board, x + sx * i, y + sy * j).is_some()))
    }
}

impl Shape {
    /// A plain rectangle with files `a`.. and ranks `1`...
    pub fn rectangle(width: u8, height: u8) -> Shape {
        Shape {
            width,
            height,
            file_names: (0..width)
                .map(|i| ((b'a' + i) as char).to_string())
                .collect(),
            rank_names: (1..=height).map(|i| i.to_string()).collect(),
            present: vec![vec![true; width as usize]; height as usize],
            wrap_x: None,
            wrap_y: None,
            solid_blocks: false,
            seams: Vec::new(),
            file_seams: Vec::new(),
            rivers: Vec::new(),
        }
    }

    /// Brings a cover point into the fundamental rectangle through the joins, or `None` when
    /// it lies beyond an edge that is not glued.
    fn reduce(&self, mut x: i32, mut y: i32) -> Option<(i32, i32)> {
        let (w, h) = (self.width as i32, self.height as i32);
        // Each join moves the point by a whole period along its own axis and possibly along the
        // other; alternating the two reductions reaches the rectangle in a few rounds for every
        // lattice we use (both periods are at least the board size).
        for _ in 0..8 {
            if !(0..h).contains(&y) {
                let join = self.wrap_y?;
                let k = y.div_euclid(h);
                y -= k * h;
                if join.mirror {
                    if k & 1 != 0 {
                        x = w - 1 - x;
                    }
                } else {
                    x -= k * join.shift;
                }
            }
            if !(0..w).contains(&x) {
                let join = self.wrap_x?;
                let k = x.div_euclid(w);
                x -= k * w;
                if join.mirror {
                    if k & 1 != 0 {
                        y = h - 1 - y;
                    }
                } else {
                    y -= k * join.shift;
                }
            }
            if (0..w).contains(&x) && (0..h).contains(&y) {
                return Some((x, y));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 96-cell Double Cross board: ranks k..z, files a..h, camp ranks only c..f.
    fn double_cross(wrap_y: Option<Join>) -> Geometry {
        let mut shape = Shape::rectangle(8, 16);
        shape.rank_names = ('k'..='z').map(|c| c.to_string()).collect();
        for y in 0..16 {
            for x in 0..8 {
                shape.present[y][x] =
                    [2, 3, 4, 5, 10, 11, 12, 13].contains(&y) || (2..=5).contains(&x);
            }
        }
        shape.solid_blocks = true;
        shape.wrap_y = wrap_y;
        Geometry::new(shape, &[]).unwrap()
    }

    fn xy(g: &Geometry, name: &str) -> (i32, i32) {
        let i = g.info(g.parse(name).unwrap());
        (i.file as i32, i.rank as i32)
    }

    #[test]
    fn double_cross_has_96_cells_and_letter_ranks() {
        let g = double_cross(None);
        assert_eq!(g.len(), 96);
        assert!(g.parse("dl").is_some());
        assert!(g.parse("bl").is_none(), "b-l is a hole");
        assert!(g.parse("am").is_some());
        assert_eq!(g.name(g.parse("cz").unwrap()), "cz");
    }

    #[test]
    fn double_cross_solid_block_diagonals() {
        let g = double_cross(None);
        // dl-cm-bn is legal: each diagonal step stays in a solid 2x2 block.
        let (x, y) = xy(&g, "dl");
        assert!(g.solid(0, x, y, -1, 1));
        let (x, y) = xy(&g, "cm");
        assert!(g.solid(0, x, y, -1, 1));
        // cl-bm is not: b-l does not exist.
        let (x, y) = xy(&g, "cl");
        assert!(g.canon(0, x - 1, y + 1).is_some(), "bm exists");
        assert!(!g.solid(0, x, y, -1, 1));
    }

    #[test]
    fn double_cross_knight_blocks() {
        let g = double_cross(None);
        // A Knight on fk reaches em but not gm (g-k, g-l missing from its 2x3 block).
        let (x, y) = xy(&g, "fk");
        assert!(g.solid(0, x, y, -1, 2));
        assert!(g.canon(0, x + 1, y + 2).is_some());
        assert!(!g.solid(0, x, y, 1, 2));
        // A Knight on bm cannot reach ck or dl.
        let (x, y) = xy(&g, "bm");
        assert!(!g.solid(0, x, y, 1, -2));
        assert!(!g.solid(0, x, y, 2, -1));
    }

    #[test]
    fn moebius_joins() {
        let g = double_cross(Some(Join {
            shift: 0,
            mirror: true,
        }));
        // cz-fk, dz-ek, ez-dk, fz-ck: one step up from rank z lands on rank k, mirrored.
        for (top, bottom) in [("cz", "fk"), ("dz", "ek"), ("ez", "dk"), ("fz", "ck")] {
            let (x, y) = xy(&g, top);
            assert_eq!(g.canon(0, x, y + 1), g.parse(bottom), "{top} -> {bottom}");
        }
        // A file loop is 32 cells long: 32 steps up return to the start, 16 do not.
        let (x, y) = xy(&g, "dm");
        assert_eq!(g.canon(0, x, y + 32), g.parse("dm"));
        assert_eq!(g.canon(0, x, y + 16), g.parse("em"));
    }

    #[test]
    fn circular_join_is_a_cylinder() {
        let g = double_cross(Some(Join::default()));
        let (x, y) = xy(&g, "cz");
        assert_eq!(g.canon(0, x, y + 1), g.parse("ck"));
        assert_eq!(g.canon(0, x, y + 16), g.parse("cz"));
    }

    #[test]
    fn wraparound_cylinder_16_files() {
        let mut shape = Shape::rectangle(16, 8);
        shape.wrap_x = Some(Join::default());
        let g = Geometry::new(shape, &[]).unwrap();
        let (x, y) = xy(&g, "p1");
        assert_eq!(g.canon(0, x + 1, y), g.parse("a1"));
        assert_eq!(g.canon(0, x, y - 1), None, "ranks do not wrap");
        // A rank is a loop of 16.
        assert_eq!(g.canon(0, x + 16, y), g.parse("p1"));
    }

    #[test]
    fn quadruple_besiege_torus() {
        // Two 8x8 boards side by side: (x, y) ≡ (x + 16, y) ≡ (x + 8, y + 8).
        let mut shape = Shape::rectangle(16, 8);
        shape.wrap_x = Some(Join::default());
        shape.wrap_y = Some(Join {
            shift: 8,
            mirror: false,
        });
        let g = Geometry::new(shape, &[]).unwrap();
        // Up off rank 8 of the left board lands on rank 1 of the right board, same file.
        let (x, y) = xy(&g, "c8");
        assert_eq!(g.canon(0, x, y + 1), g.parse("k1"));
        // Orthogonal lines loop after 16 steps, and not before.
        for (dx, dy) in [(1, 0), (0, 1), (-1, 0), (0, -1)] {
            let (x, y) = xy(&g, "e4");
            let start = g.parse("e4");
            let first_return = (1..=64)
                .find(|k| g.canon(0, x + k * dx, y + k * dy) == start)
                .unwrap();
            assert_eq!(first_return, 16, "orthogonal ({dx},{dy})");
        }
        // Diagonals loop after 8.
        for (dx, dy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let (x, y) = xy(&g, "b3");
            let start = g.parse("b3");
            let first_return = (1..=64)
                .find(|k| g.canon(0, x + k * dx, y + k * dy) == start)
                .unwrap();
            assert_eq!(first_return, 8, "diagonal ({dx},{dy})");
        }
        // The Camel's (3,1) leap coincides with (7,5), (9,5), (11,7), (13,1) and (15,3) leaps
        // (each up to the symmetries of the torus).
        let (x, y) = xy(&g, "d4");
        let camel = g.canon(0, x + 3, y + 1);
        for (dx, dy) in [(-5, -7), (-5, 9), (11, -7), (-13, 1), (3, -15)] {
            assert_eq!(g.canon(0, x + dx, y + dy), camel, "({dx},{dy})");
        }
    }

    #[test]
    fn two_boards_with_prefixes() {
        let g = Geometry::new(
            Shape::rectangle(8, 8),
            &["R:".to_string(), "M:".to_string()],
        )
        .unwrap();
        assert_eq!(g.len(), 128);
        let r = g.parse("R:e4").unwrap();
        let m = g.parse("M:e4").unwrap();
        assert_ne!(r, m);
        assert_eq!(g.info(m).board, 1);
        assert_eq!(g.canon(1, 4, 3), Some(m));
    }

    #[test]
    fn bad_shapes_are_typed_errors() {
        let mut s = Shape::rectangle(8, 8);
        s.file_names.pop();
        assert!(matches!(
            Geometry::new(s, &[]),
            Err(GeometryError::NameCount { .. })
        ));
        let s = Shape::rectangle(17, 16);
        assert!(matches!(
            Geometry::new(s, &[]),
            Err(GeometryError::CellCount(272))
        ));
    }
}
