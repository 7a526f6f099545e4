//! Which way is "forward" for each side on each cell.
//!
//! On an ordinary board the first side faces up and the second down, everywhere. Besiege
//! boards split an army into camps that face opposite ways: a White pawn in the lower camp
//! advances up, one in the upper camp advances down (`../shared/rules/fine-points.md` E5, D3).
//! Quadruple Besiege pawns head for the nearest edge of their own board and, on the enemy's
//! board, away from it; on a long diagonal they face diagonally (both orthogonal steps are
//! "forward", and only the diagonal capture along it).
//!
//! Rather than a rule per variant, the variant file lists, per side, regions and the way
//! forward on them (`[forward]`): rank ranges with a direction, or rectangles of cells facing
//! `outward` (towards their nearest edge) or `inward`. Every directional atom (`f`, `b`, `l`,
//! `r`, `v`, `s`) and the en-passant victim are read in that frame. The frame is fixed per
//! (side, cell), so it is folded into the precomputed move tables and costs nothing in play.

use crate::{geometry::Geometry, types::Side};

/// A direction "forward" can point on the board, in the first side's view: one of the four
/// orthogonals, or a diagonal (a Quadruple Besiege pawn on a long diagonal).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Facing {
    /// The forward vector: each component -1, 0 or 1, not both 0.
    pub forward: (i8, i8),
}

impl Facing {
    /// Towards higher ranks.
    pub const UP: Facing = Facing { forward: (0, 1) };
    /// Towards lower ranks.
    pub const DOWN: Facing = Facing { forward: (0, -1) };
    /// Towards lower files.
    pub const LEFT: Facing = Facing { forward: (-1, 0) };
    /// Towards higher files.
    pub const RIGHT: Facing = Facing { forward: (1, 0) };

    /// The (forward, right) vectors of this frame in board coordinates; right is forward
    /// turned clockwise. Diagonal frames have vectors of length sqrt 2, which keeps every
    /// comparison of their components exact.
    pub fn frame(self) -> ((i32, i32), (i32, i32)) {
        let (fx, fy) = (self.forward.0 as i32, self.forward.1 as i32);
        ((fx, fy), (fy, -fx))
    }

    /// How a board vector reads in this frame: (sideways, forward) components, right and
    /// forward positive.
    pub fn local(self, v: (i32, i32)) -> (i32, i32) {
        let (f, r) = self.frame();
        (v.0 * r.0 + v.1 * r.1, v.0 * f.0 + v.1 * f.1)
    }

    /// Reads `up`, `down`, `left` or `right`.
    pub fn parse(text: &str) -> Option<Facing> {
        Some(match text {
            "up" => Facing::UP,
            "down" => Facing::DOWN,
            "left" => Facing::LEFT,
            "right" => Facing::RIGHT,
            _ => return None,
        })
    }

    /// The usual facing of a side: the first (and fourth) up, the second (and third) down.
    pub fn default_for(side: Side) -> Facing {
        match side.0 {
            1 | 2 => Facing::DOWN,
            _ => Facing::UP,
        }
    }
}

/// The facing of every side on every cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orientation {
    /// `facing[side][cell]`.
    facing: Vec<Vec<Facing>>,
}

/// Why a `[forward]` entry cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrientationError {
    /// The side name is not one of the variant's sides.
    #[error(
        "{0:?} is not a side of this variant: use white or black (red, blue, yellow or green with four sides)"
    )]
    UnknownSide(String),
    /// The entry is not `FIRST-LAST DIRECTION` or `CELL:CELL outward|inward`.
    #[error(
        "{0:?}: write a rank range and a direction (\"1-8 up\", \"s-z down\") or a rectangle of cells facing outward or inward (\"a1:h8 outward\")"
    )]
    Syntax(String),
    /// A cell name that the board does not have.
    #[error("{entry:?}: {cell:?} is not a cell of this board")]
    UnknownCell {
        /// The whole entry.
        entry: String,
        /// The cell name.
        cell: String,
    },
    /// A rank name that the board does not have.
    #[error("{entry:?}: {rank:?} is not a rank of this board")]
    UnknownRank {
        /// The whole entry.
        entry: String,
        /// The rank name.
        rank: String,
    },
    /// A direction word other than up, down, left, right (or outward, inward for rectangles).
    #[error(
        "{entry:?}: {word:?} is not a direction; use up, down, left or right for ranks, outward or inward for a rectangle"
    )]
    UnknownDirection {
        /// The whole entry.
        entry: String,
        /// The word.
        word: String,
    },
}

impl Orientation {
    /// Every side faces its usual way on every cell.
    pub fn standard(g: &Geometry, sides: u8) -> Orientation {
        Orientation {
            facing: (0..sides)
                .map(|s| vec![Facing::default_for(Side(s)); g.len()])
                .collect(),
        }
    }

    /// The standard orientation overridden by `entries`, for a side (by name) each: rank
    /// ranges written `FIRST-LAST DIRECTION` with rank names (`"9-16 down"`, `"s-z down"`, a
    /// single rank `"9 down"`), or rectangles `CORNER:CORNER outward|inward` whose cells face
    /// towards (or away from) the nearest edge of the rectangle, diagonally where two edges are
    /// equally near (`"a1:h8 outward"`). Later entries win where regions overlap.
    ///
    /// # Errors
    /// An unknown side, rank, cell or direction, or a malformed entry.
    pub fn from_entries<'a>(
        g: &Geometry,
        sides: u8,
        entries: impl IntoIterator<Item = (&'a str, &'a [String])>,
    ) -> Result<Orientation, OrientationError> {
        let mut o = Orientation::standard(g, sides);
        for (side_name, list) in entries {
            let side = (0..sides)
                .find(|s| {
                    Side(*s)
                        .name(sides as usize)
                        .eq_ignore_ascii_case(side_name)
                })
                .ok_or_else(|| OrientationError::UnknownSide(side_name.to_string()))?;
            for entry in list {
                let mut words = entry.split_whitespace();
                let (Some(region), Some(dir), None) = (words.next(), words.next(), words.next())
                else {
                    return Err(OrientationError::Syntax(entry.clone()));
                };
                let facings = &mut o.facing[side as usize];
                match region.split_once(':') {
                    Some((a, b)) => radial(g, entry, a, b, dir, facings)?,
                    None => ranks(g, entry, region, dir, facings)?,
                }
            }
        }
        Ok(o)
    }

    /// The facing of `side` on the cell with index `cell`.
    #[inline]
    pub fn facing(&self, side: Side, cell: usize) -> Facing {
        self.facing[side.index()][cell]
    }
}

/// `FIRST-LAST DIRECTION`: every cell of those ranks faces one way.
fn ranks(
    g: &Geometry,
    entry: &str,
    range: &str,
    dir: &str,
    facings: &mut [Facing],
) -> Result<(), OrientationError> {
    let names = &g.shape().rank_names;
    let rank = |r: &str| {
        names
            .iter()
            .position(|n| n == r)
            .ok_or_else(|| OrientationError::UnknownRank {
                entry: entry.to_string(),
                rank: r.to_string(),
            })
    };
    let (a, b) = range.split_once('-').unwrap_or((range, range));
    let (a, b) = (rank(a)?, rank(b)?);
    let facing = Facing::parse(dir).ok_or_else(|| OrientationError::UnknownDirection {
        entry: entry.to_string(),
        word: dir.to_string(),
    })?;
    let (lo, hi) = (a.min(b), a.max(b));
    for c in g.cells() {
        if (lo..=hi).contains(&(g.info(c).rank as usize)) {
            facings[c.index()] = facing;
        }
    }
    Ok(())
}

/// `CORNER:CORNER outward|inward`: every cell of the rectangle faces the nearest of its edges
/// (the sum of the directions to all equally near edges), or away from it.
fn radial(
    g: &Geometry,
    entry: &str,
    a: &str,
    b: &str,
    dir: &str,
    facings: &mut [Facing],
) -> Result<(), OrientationError> {
    let cell = |n: &str| {
        g.parse(n).ok_or_else(|| OrientationError::UnknownCell {
            entry: entry.to_string(),
            cell: n.to_string(),
        })
    };
    let (a, b) = (g.info(cell(a)?), g.info(cell(b)?));
    let sign = match dir {
        "outward" => 1,
        "inward" => -1,
        _ => {
            return Err(OrientationError::UnknownDirection {
                entry: entry.to_string(),
                word: dir.to_string(),
            });
        }
    };
    let (x0, x1) = (a.file.min(b.file) as i32, a.file.max(b.file) as i32);
    let (y0, y1) = (a.rank.min(b.rank) as i32, a.rank.max(b.rank) as i32);
    for c in g.cells() {
        let i = g.info(c);
        let (x, y) = (i.file as i32, i.rank as i32);
        if i.board != a.board || !(x0..=x1).contains(&x) || !(y0..=y1).contains(&y) {
            continue;
        }
        // Distance to each edge, and the unit vector towards it.
        let edges = [
            (x - x0, (-1, 0)),
            (x1 - x, (1, 0)),
            (y - y0, (0, -1)),
            (y1 - y, (0, 1)),
        ];
        let near = edges.iter().map(|e| e.0).min().unwrap_or(0);
        let (fx, fy): (i32, i32) = edges
            .iter()
            .filter(|e| e.0 == near)
            .fold((0, 0), |acc, e| (acc.0 + e.1.0, acc.1 + e.1.1));
        if (fx, fy) != (0, 0) {
            facings[c.index()] = Facing {
                forward: ((sign * fx.signum()) as i8, (sign * fy.signum()) as i8),
            };
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn besiege_camps_face_each_other() {
        let g = Geometry::rectangle(8, 16);
        let white = ["1-8 up".to_string(), "9-16 down".to_string()];
        let black = ["1-8 down".to_string(), "16-9 up".to_string()];
        let o = Orientation::from_entries(&g, 2, [("white", &white[..]), ("black", &black[..])])
            .unwrap();
        let at = |n: &str| g.parse(n).unwrap().index();
        assert_eq!(o.facing(Side::WHITE, at("e2")), Facing::UP);
        assert_eq!(o.facing(Side::WHITE, at("e15")), Facing::DOWN);
        assert_eq!(o.facing(Side::BLACK, at("e7")), Facing::DOWN);
        assert_eq!(o.facing(Side::BLACK, at("e10")), Facing::UP);
    }

    #[test]
    fn bad_entries_say_what_to_write() {
        let g = Geometry::rectangle(8, 8);
        let one = |side: &str, e: &str| {
            let list = [e.to_string()];
            Orientation::from_entries(&g, 2, [(side, &list[..])]).unwrap_err()
        };
        assert!(matches!(
            one("red", "1-8 up"),
            OrientationError::UnknownSide(_)
        ));
        assert!(matches!(one("white", "1-8"), OrientationError::Syntax(_)));
        assert!(matches!(
            one("white", "1-9 up"),
            OrientationError::UnknownRank { .. }
        ));
        assert!(matches!(
            one("white", "1-8 north"),
            OrientationError::UnknownDirection { .. }
        ));
    }

    #[test]
    fn frames_are_right_handed() {
        // Right is forward turned clockwise, in every facing.
        for f in [Facing::UP, Facing::DOWN, Facing::LEFT, Facing::RIGHT] {
            let ((fx, fy), (rx, ry)) = f.frame();
            assert_eq!((rx, ry), (fy, -fx), "{f:?}");
        }
        // Facing up, the board's right is the frame's right; facing down, its left.
        assert_eq!(Facing::UP.local((1, 0)), (1, 0));
        assert_eq!(Facing::DOWN.local((1, 0)), (-1, 0));
        // Facing diagonally up-right, both the up and the right steps are forward, and of the
        // four diagonal steps only up-right is.
        let d = Facing { forward: (1, 1) };
        assert!(d.local((0, 1)).1 > 0 && d.local((1, 0)).1 > 0);
        assert_eq!(d.local((-1, 1)).1, 0);
        assert_eq!(d.local((1, -1)).1, 0);
        assert!(d.local((1, 1)).1 > 0);
    }

    #[test]
    fn rectangles_face_their_nearest_edge() {
        let g = Geometry::rectangle(16, 8);
        let white = ["a1:h8 outward".to_string(), "i1:p8 inward".to_string()];
        let o = Orientation::from_entries(&g, 2, [("white", &white[..])]).unwrap();
        let at = |n: &str| o.facing(Side::WHITE, g.parse(n).unwrap().index()).forward;
        // Own board: triangles face out, the long diagonals diagonally out.
        assert_eq!(at("c7"), (0, 1));
        assert_eq!(at("b4"), (-1, 0));
        assert_eq!(at("g5"), (1, 0));
        assert_eq!(at("e2"), (0, -1));
        assert_eq!(at("b2"), (-1, -1));
        assert_eq!(at("g7"), (1, 1));
        // The other board: away from the nearest edge.
        assert_eq!(at("k1"), (0, 1));
        assert_eq!(at("j2"), (1, 1));
        assert_eq!(at("p4"), (-1, 0));
        let bad = ["a1:z9 outward".to_string()];
        assert!(matches!(
            Orientation::from_entries(&g, 2, [("white", &bad[..])]),
            Err(OrientationError::UnknownCell { .. })
        ));
    }
}
