//! fairybot's movement notation, a Betza-derived dialect parsed once into move atoms.
//!
//! The dialect is documented with an example for every feature in `rules/variants/README.md`.
//! In short: a piece is a sequence of groups `modifiers atom [range] [> atom [range]]`.
//!
//! * Atoms: `W` (1,0), `F` (1,1), `D` (2,0), `N` (2,1), `A` (2,2), `H` (3,0), `C` (3,1),
//!   `Z` (3,2), `G` (3,3), `(x,y)` any leap; `K` = `WF`, `R` = `WW`, `B` = `FF`, `Q` = `RB`.
//! * Range: a repeated atom letter rides without limit (`WW`, `NN`); digits limit the ride
//!   (`W3`, `R4`).
//! * Modifiers: `m` move only, `c` capture only, `f b l r v s` directions relative to the
//!   side's forward direction (union of the letters given), `i` only from the piece's initial
//!   cells, `n` lame (every cell on the way must be empty), `p` hopper (exactly one piece must
//!   be jumped: a cannon is `mRcpR`).
//! * `X>Y`: a bent path: one `X` step onto an empty cell, then `Y` onward in any direction at an
//!   acute angle to the first step (never back towards the start's file or rank). The Gryphon
//!   is `FF>R`'s cousin: `F` (stop on the diagonal) plus `F>R` (continue as a Rook outward).

use std::fmt;

/// A leap vector in canonical form: `a >= b >= 0`, not both zero.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Leap(pub i8, pub i8);

impl Leap {
    /// All distinct vectors reachable by the board symmetries (rotations and reflections).
    pub fn vectors(self) -> Vec<(i32, i32)> {
        let (a, b) = (self.0 as i32, self.1 as i32);
        let mut out = Vec::with_capacity(8);
        for (x, y) in [(a, b), (b, a)] {
            for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                let v = (x * sx, y * sy);
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    }
}

/// Which of an atom's symmetric directions a piece may use, relative to its forward direction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Directions {
    /// Forward (`f`).
    pub forward: bool,
    /// Backward (`b`).
    pub backward: bool,
    /// Left (`l`).
    pub left: bool,
    /// Right (`r`).
    pub right: bool,
    /// Vertical-ish: more forward/backward than sideways (`v`).
    pub vertical: bool,
    /// Sideways-ish: more sideways than forward/backward (`s`).
    pub sideways: bool,
}

impl Directions {
    /// Whether no direction letter was given (all directions allowed).
    pub fn all(&self) -> bool {
        *self == Directions::default()
    }

    /// Whether the vector `(dx, dy)` in the piece's frame (forward = +y, right = +x) is allowed.
    pub fn allows(&self, dx: i32, dy: i32) -> bool {
        self.all()
            || (self.forward && dy > 0)
            || (self.backward && dy < 0)
            || (self.left && dx < 0)
            || (self.right && dx > 0)
            || (self.vertical && dy.abs() > dx.abs())
            || (self.sideways && dx.abs() > dy.abs())
    }
}

/// One leg of a move atom: a leap repeated up to `range` times (1 = a single leap, 0 = unlimited).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Leg {
    /// The step.
    pub leap: Leap,
    /// How many steps at most: 1 for a leaper, 0 for an unlimited rider.
    pub range: u8,
}

impl Leg {
    /// Whether the leg rides (more than one step).
    pub fn rides(&self) -> bool {
        self.range != 1
    }
}

/// One atom of a piece's movement, with its modifiers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The first (often only) leg.
    pub leg: Leg,
    /// A bent continuation (`X>Y`): after one step of `leg` onto an empty cell, ride or leap on.
    pub then: Option<Leg>,
    /// May move to an empty cell.
    pub moves: bool,
    /// May capture.
    pub captures: bool,
    /// Direction filter, in the piece's own frame.
    pub dirs: Directions,
    /// Only from the piece's initial cells (`i`).
    pub initial: bool,
    /// Lame: the cells on the way must be empty (`n`).
    pub lame: bool,
    /// Hopper: exactly one piece must be jumped (`p`).
    pub hop: bool,
}

/// A parse error in a movement string, with the byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("movement {text:?}, at character {at}: {problem}")]
pub struct BetzaError {
    /// The whole movement string.
    pub text: String,
    /// Byte offset of the problem.
    pub at: usize,
    /// What is wrong and what to write instead.
    pub problem: String,
}

fn atom_leaps(c: char) -> Option<&'static [(Leap, bool)]> {
    // (leap, rides-by-default)
    Some(match c {
        'W' => &[(Leap(1, 0), false)],
        'F' => &[(Leap(1, 1), false)],
        'D' => &[(Leap(2, 0), false)],
        'N' => &[(Leap(2, 1), false)],
        'A' => &[(Leap(2, 2), false)],
        'H' => &[(Leap(3, 0), false)],
        'C' => &[(Leap(3, 1), false)],
        'Z' => &[(Leap(3, 2), false)],
        'G' => &[(Leap(3, 3), false)],
        'K' => &[(Leap(1, 0), false), (Leap(1, 1), false)],
        'R' => &[(Leap(1, 0), true)],
        'B' => &[(Leap(1, 1), true)],
        'Q' => &[(Leap(1, 0), true), (Leap(1, 1), true)],
        _ => return None,
    })
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, problem: impl Into<String>) -> BetzaError {
        BetzaError {
            text: self.text.to_string(),
            at: self.pos,
            problem: problem.into(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.bytes.get(self.pos).map(|b| *b as char)
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        (self.pos > start).then(|| self.text[start..self.pos].parse().ok())?
    }

    /// Parses an atom (letter or `(x,y)`) and its range; returns the legs it stands for.
    fn legs(&mut self) -> Result<Vec<Leg>, BetzaError> {
        let c = self
            .peek()
            .ok_or_else(|| self.err("expected an atom such as W, F, N, R or (3,1)"))?;
        let (leaps, letter): (Vec<(Leap, bool)>, Option<char>) = if c == '(' {
            self.pos += 1;
            let a = self
                .number()
                .ok_or_else(|| self.err("expected a number in (x,y)"))?;
            if self.peek() != Some(',') {
                return Err(self.err("expected ',' in (x,y)"));
            }
            self.pos += 1;
            let b = self
                .number()
                .ok_or_else(|| self.err("expected a number in (x,y)"))?;
            if self.peek() != Some(')') {
                return Err(self.err("expected ')' to close (x,y)"));
            }
            self.pos += 1;
            let (a, b) = (a.max(b), a.min(b));
            if a == 0 || a > 15 {
                return Err(self.err("a leap (x,y) needs 0 < max(x,y) <= 15"));
            }
            (vec![(Leap(a as i8, b as i8), false)], None)
        } else if let Some(l) = atom_leaps(c) {
            self.pos += 1;
            (l.to_vec(), Some(c))
        } else {
            return Err(self.err(format!(
                "unknown atom {c:?}: use W F D N A H C Z G K R B Q or (x,y)"
            )));
        };
        // Range: a repeated letter rides without limit; digits limit the ride.
        let mut range_override = None;
        if letter.is_some() && self.peek() == letter && !matches!(letter, Some('R' | 'B' | 'Q')) {
            self.pos += 1;
            range_override = Some(0);
        } else if let Some(n) = self.number() {
            if n == 0 || n > 255 {
                return Err(self.err("a ride limit must be between 1 and 255"));
            }
            range_override = Some(n as u8);
        }
        Ok(leaps
            .into_iter()
            .map(|(leap, rides)| Leg {
                leap,
                range: range_override.unwrap_or(if rides { 0 } else { 1 }),
            })
            .collect())
    }
}

/// Parses a movement string into atoms.
///
/// # Examples
/// ```
/// let atoms = rules::betza::parse("mRcpR").unwrap(); // the Cannon
/// assert_eq!(atoms.len(), 2);
/// assert!(atoms[1].hop && atoms[1].captures && !atoms[1].moves);
/// ```
///
/// # Errors
/// When the string is not in the dialect; the error names the offset and what was expected.
pub fn parse(text: &str) -> Result<Vec<Atom>, BetzaError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    let mut atoms = Vec::new();
    while p.pos < p.bytes.len() {
        if p.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            p.pos += 1;
            continue;
        }
        let (mut moves, mut captures) = (false, false);
        let mut dirs = Directions::default();
        let (mut initial, mut lame, mut hop) = (false, false, false);
        while let Some(c) = p.peek().filter(|c| c.is_ascii_lowercase()) {
            match c {
                'm' => moves = true,
                'c' => captures = true,
                'f' => dirs.forward = true,
                'b' => dirs.backward = true,
                'l' => dirs.left = true,
                'r' => dirs.right = true,
                'v' => dirs.vertical = true,
                's' => dirs.sideways = true,
                'i' => initial = true,
                'n' => lame = true,
                'p' => hop = true,
                _ => {
                    return Err(p.err(format!("unknown modifier {c:?}: use m c f b l r v s i n p")));
                }
            }
            p.pos += 1;
        }
        if !moves && !captures {
            moves = true;
            captures = true;
        }
        let legs = p.legs()?;
        let then = if p.peek() == Some('>') {
            p.pos += 1;
            let second = p.legs()?;
            if legs.len() != 1 || second.len() != 1 {
                return Err(p.err("a bent path joins two single atoms, e.g. F>R"));
            }
            if legs[0].rides() {
                return Err(p.err("the first leg of a bent path must be a single step"));
            }
            Some(second[0])
        } else {
            None
        };
        if hop && legs.iter().any(|l| !l.rides()) {
            return Err(p.err("a hopper (p) must ride, e.g. pR"));
        }
        for leg in legs {
            atoms.push(Atom {
                leg,
                then,
                moves,
                captures,
                dirs,
                initial,
                lame,
                hop,
            });
        }
    }
    if atoms.is_empty() {
        return Err(BetzaError {
            text: text.to_string(),
            at: 0,
            problem: "a piece needs at least one atom".into(),
        });
    }
    Ok(atoms)
}

impl fmt::Display for Leap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.0, self.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queen_is_two_riders() {
        let a = parse("Q").unwrap();
        assert_eq!(a.len(), 2);
        assert!(a.iter().all(|x| x.leg.range == 0 && x.moves && x.captures));
    }

    #[test]
    fn pawn() {
        let a = parse("mfW cfF imfnD").unwrap();
        assert_eq!(a.len(), 3);
        assert!(a[0].moves && !a[0].captures && a[0].dirs.forward);
        assert!(a[1].captures && !a[1].moves);
        assert!(a[2].initial && a[2].lame && a[2].leg.leap == Leap(2, 0));
    }

    #[test]
    fn riders_and_limits() {
        assert_eq!(parse("NN").unwrap()[0].leg.range, 0);
        assert_eq!(parse("W3").unwrap()[0].leg.range, 3);
        assert_eq!(parse("R4").unwrap()[0].leg.range, 4);
        assert_eq!(parse("(3,1)").unwrap()[0].leg.leap, Leap(3, 1));
        assert_eq!(parse("(1,4)").unwrap()[0].leg.leap, Leap(4, 1));
    }

    #[test]
    fn gryphon_is_bent() {
        let a = parse("F F>R").unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(
            a[1].then,
            Some(Leg {
                leap: Leap(1, 0),
                range: 0
            })
        );
    }

    #[test]
    fn errors_name_the_place() {
        let e = parse("mX").unwrap_err();
        assert_eq!(e.at, 1);
        assert!(e.problem.contains("unknown atom"));
        let e = parse("xW").unwrap_err();
        assert!(e.problem.contains("unknown modifier"));
        assert!(parse("").is_err());
        assert!(parse("pN").is_err());
        assert!(parse("R>F").is_err());
        assert!(parse("(0,0)").is_err());
        assert!(parse("(3,").is_err());
    }

    #[test]
    fn vectors_are_distinct() {
        assert_eq!(Leap(1, 0).vectors().len(), 4);
        assert_eq!(Leap(1, 1).vectors().len(), 4);
        assert_eq!(Leap(2, 1).vectors().len(), 8);
    }
}
