//! Which way is "forward" for each side on each cell.
//!
//! On an ordinary board the first side faces up and the second down, everywhere. Besiege
//! boards split an army into camps that face opposite ways: a White pawn in the lower camp
//! advances up, one in the upper camp advances down (`../shared/rules/fine-points.md` E5, D3).
//! Rather than a rule per variant, the variant file lists, per side, rank ranges and the way
//! forward on them (`[forward]`); every directional atom (`f`, `b`, `l`, `r`, `v`, `s`) and the
//! en-passant victim are read in that frame. The frame is fixed per (side, cell), so it is
//! folded into the precomputed move tables and costs nothing during play.

use crate::{geometry::Geometry, types::Side};

/// A direction "forward" can point on the board, in the first side's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Facing {
    /// Towards higher ranks.
    Up,
    /// Towards lower ranks.
    Down,
    /// Towards lower files.
    Left,
    /// Towards higher files.
    Right,
}

impl Facing {
    /// The (forward, right) unit vectors of this frame in board coordinates.
    pub fn frame(self) -> ((i32, i32), (i32, i32)) {
        match self {
            Facing::Up => ((0, 1), (1, 0)),
            Facing::Down => ((0, -1), (-1, 0)),
            Facing::Left => ((-1, 0), (0, 1)),
            Facing::Right => ((1, 0), (0, -1)),
        }
    }

    /// Reads `up`, `down`, `left` or `right`.
    pub fn parse(text: &str) -> Option<Facing> {
        Some(match text {
            "up" => Facing::Up,
            "down" => Facing::Down,
            "left" => Facing::Left,
            "right" => Facing::Right,
            _ => return None,
        })
    }

    /// The usual facing of a side: the first (and fourth) up, the second (and third) down.
    pub fn default_for(side: Side) -> Facing {
        match side.0 {
            1 | 2 => Facing::Down,
            _ => Facing::Up,
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
    #[error("{0:?} is not a side of this variant: use white or black")]
    UnknownSide(String),
    /// The entry is not `FIRST-LAST DIRECTION`.
    #[error("{0:?}: write a rank range and a direction, e.g. \"1-8 up\" or \"s-z down\"")]
    Syntax(String),
    /// A rank name that the board does not have.
    #[error("{entry:?}: {rank:?} is not a rank of this board")]
    UnknownRank {
        /// The whole entry.
        entry: String,
        /// The rank name.
        rank: String,
    },
    /// A direction word other than up, down, left, right.
    #[error("{entry:?}: {word:?} is not a direction; use up, down, left or right")]
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

    /// The standard orientation overridden by `entries`: for a side (by name), rank ranges
    /// written `FIRST-LAST DIRECTION` with rank names (`"9-16 down"`, `"s-z down"`; a single
    /// rank is `"9 down"`). Later entries win where ranges overlap.
    ///
    /// # Errors
    /// An unknown side, rank or direction, or a malformed entry.
    pub fn from_entries<'a>(
        g: &Geometry,
        sides: u8,
        entries: impl IntoIterator<Item = (&'a str, &'a [String])>,
    ) -> Result<Orientation, OrientationError> {
        let mut o = Orientation::standard(g, sides);
        let names = g.shape().rank_names.clone();
        let rank = |entry: &str, r: &str| {
            names
                .iter()
                .position(|n| n == r)
                .ok_or_else(|| OrientationError::UnknownRank {
                    entry: entry.to_string(),
                    rank: r.to_string(),
                })
        };
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
                let (Some(range), Some(dir), None) = (words.next(), words.next(), words.next())
                else {
                    return Err(OrientationError::Syntax(entry.clone()));
                };
                let (a, b) = range.split_once('-').unwrap_or((range, range));
                let (a, b) = (rank(entry, a)?, rank(entry, b)?);
                let facing =
                    Facing::parse(dir).ok_or_else(|| OrientationError::UnknownDirection {
                        entry: entry.clone(),
                        word: dir.to_string(),
                    })?;
                let (lo, hi) = (a.min(b), a.max(b));
                for c in g.cells() {
                    let r = g.info(c).rank as usize;
                    if (lo..=hi).contains(&r) {
                        o.facing[side as usize][c.index()] = facing;
                    }
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
        assert_eq!(o.facing(Side::WHITE, at("e2")), Facing::Up);
        assert_eq!(o.facing(Side::WHITE, at("e15")), Facing::Down);
        assert_eq!(o.facing(Side::BLACK, at("e7")), Facing::Down);
        assert_eq!(o.facing(Side::BLACK, at("e10")), Facing::Up);
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
        for f in [Facing::Up, Facing::Down, Facing::Left, Facing::Right] {
            let ((fx, fy), (rx, ry)) = f.frame();
            assert_eq!((rx, ry), (fy, -fx), "{f:?}");
        }
    }
}
