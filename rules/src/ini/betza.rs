//! Fairy-Stockfish's Betza strings read into fairybot's dialect.
//!
//! The two dialects share atoms and most modifiers but not the meaning of direction letters:
//! Fairy-Stockfish pairs two letters into one direction (`fl` is one forward-left diagonal, `ff`
//! the two narrow forward Knight leaps, a lone `f` means `ff`), while in fairybot's dialect the
//! letters add up (`fl` is everything forward or left). So a direction set is translated through
//! the vectors it stands for: each Fairy-Stockfish atom becomes the set of leaps it allows,
//! and that set is written back as one or more of our groups whose unions give exactly the same
//! leaps. A set our letters cannot build (a single diagonal) is refused, never approximated.

use crate::betza::Directions;

/// One direction of an atom as Fairy-Stockfish's parser tags it: the eight symmetric
/// images of a leap `(a, b)` (`a` along the way forward, `b` sideways), each with the
/// two-letter direction tags that select it. The tags are facts of its notation: a lone
/// letter is doubled (`f` = `ff`), `v` covers both vertical halves, `s` both sideways halves,
/// `h` selects a chiral half.
fn images(a: i32, b: i32) -> [((i32, i32), &'static [&'static str]); 8] {
    // (dx, dy) with dy forward and dx to the right, in the piece's own frame.
    [
        ((b, a), &["ff", "vv", "rf", "rv", "fh", "rh", "hr"]),
        ((-b, -a), &["bb", "vv", "lb", "lv", "bh", "lh", "hr"]),
        ((a, -b), &["rr", "ss", "br", "bs", "bh", "rh", "hr"]),
        ((-a, b), &["ll", "ss", "fl", "fs", "fh", "lh", "hr"]),
        ((a, b), &["rr", "ss", "fr", "fs", "fh", "rh", "hl"]),
        ((-a, -b), &["ll", "ss", "bl", "bs", "bh", "lh", "hl"]),
        ((b, -a), &["bb", "vv", "rb", "rv", "bh", "rh", "hl"]),
        ((-b, a), &["ff", "vv", "lf", "lv", "fh", "lh", "hl"]),
    ]
}

/// The leaps of one Fairy-Stockfish atom letter, and whether it rides by default.
fn atom(c: char) -> Option<(&'static [(i32, i32)], bool)> {
    Some(match c {
        'W' => (&[(1, 0)], false),
        'F' => (&[(1, 1)], false),
        'D' => (&[(2, 0)], false),
        'N' => (&[(2, 1)], false),
        'A' => (&[(2, 2)], false),
        'H' => (&[(3, 0)], false),
        'L' | 'C' => (&[(3, 1)], false),
        'J' | 'Z' => (&[(3, 2)], false),
        'G' => (&[(3, 3)], false),
        'K' => (&[(1, 0), (1, 1)], false),
        'R' => (&[(1, 0)], true),
        'B' => (&[(1, 1)], true),
        'Q' => (&[(1, 0), (1, 1)], true),
        _ => return None,
    })
}

/// Our atom letter for a leap `(a, b)`, `a >= b`.
fn our_letter(a: i32, b: i32) -> Option<char> {
    Some(match (a, b) {
        (1, 0) => 'W',
        (1, 1) => 'F',
        (2, 0) => 'D',
        (2, 1) => 'N',
        (2, 2) => 'A',
        (3, 0) => 'H',
        (3, 1) => 'C',
        (3, 2) => 'Z',
        (3, 3) => 'G',
        _ => return None,
    })
}

/// Every combination of our direction letters (empty: all directions), shortest first.
fn our_direction_sets() -> Vec<(String, Directions)> {
    let letters = ['f', 'b', 'l', 'r', 'v', 's'];
    let mut out: Vec<(String, Directions)> = (0u32..64)
        .map(|mask| {
            let mut d = Directions::default();
            let mut text = String::new();
            for (i, l) in letters.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    text.push(*l);
                    match l {
                        'f' => d.forward = true,
                        'b' => d.backward = true,
                        'l' => d.left = true,
                        'r' => d.right = true,
                        'v' => d.vertical = true,
                        _ => d.sideways = true,
                    }
                }
            }
            (text, d)
        })
        .collect();
    out.sort_by_key(|(t, _)| t.len());
    out
}

/// Writes the vector set `want` (a subset of `all`, the leap's symmetric images) as our
/// direction prefixes whose union is exactly `want`; `None` when no union of our sets gives it.
fn cover(all: &[(i32, i32)], want: &[(i32, i32)]) -> Option<Vec<String>> {
    if want.len() == all.len() {
        return Some(vec![String::new()]);
    }
    let candidates: Vec<(String, Vec<(i32, i32)>)> = our_direction_sets()
        .into_iter()
        .filter(|(t, _)| !t.is_empty())
        .map(|(t, d)| {
            let set: Vec<(i32, i32)> = all
                .iter()
                .copied()
                .filter(|(x, y)| d.allows(*x, *y))
                .collect();
            (t, set)
        })
        .filter(|(_, set)| !set.is_empty() && set.iter().all(|v| want.contains(v)))
        .collect();
    let mut left: Vec<(i32, i32)> = want.to_vec();
    let mut chosen = Vec::new();
    while !left.is_empty() {
        let best = candidates
            .iter()
            .max_by_key(|(t, set)| {
                (
                    set.iter().filter(|v| left.contains(v)).count(),
                    usize::MAX - t.len(),
                )
            })
            .filter(|(_, set)| set.iter().any(|v| left.contains(v)))?;
        left.retain(|v| !best.1.contains(v));
        chosen.push(best.0.clone());
    }
    Some(chosen)
}

/// A translation problem: where in the string (character offset) and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BetzaProblem {
    /// Character offset in the Fairy-Stockfish string.
    pub at: usize,
    /// What is wrong and what would be valid.
    pub problem: String,
}

/// Translates a Fairy-Stockfish Betza string into fairybot's dialect (groups separated by
/// spaces). `e` (en passant) is accepted and dropped: en passant belongs to the piece being a
/// pawn type, which the importer sets.
pub fn translate(text: &str) -> Result<String, BetzaProblem> {
    let chars: Vec<char> = text.chars().collect();
    let err = |at: usize, problem: String| BetzaProblem { at, problem };
    if chars.is_empty() {
        return Err(err(
            0,
            "an empty movement: the piece could never move (fairybot has no immobile pieces)"
                .into(),
        ));
    }
    let verticals = ['f', 'b', 'v', 'h'];
    let horizontals = ['r', 'l', 's', 'h'];
    let mut groups: Vec<String> = Vec::new();
    let (mut quiet, mut capture) = (false, false);
    let (mut hop, mut lame, mut initial) = (false, false, false);
    let mut dirs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            'm' => quiet = true,
            'c' => capture = true,
            'p' => hop = true,
            'n' => lame = true,
            'i' => initial = true,
            'e' => {}
            'g' => {
                return Err(err(
                    i,
                    "`g` (grasshopper: lands just beyond the hurdle) has no fairybot equivalent; `p` (hop, then ride on) is supported".into(),
                ));
            }
            _ if verticals.contains(&c) || horizontals.contains(&c) => {
                if let Some(&c2) = chars.get(i + 1) {
                    let pairs = c2 == c
                        || (verticals.contains(&c) && horizontals.contains(&c2))
                        || (horizontals.contains(&c) && verticals.contains(&c2));
                    if pairs {
                        dirs.push([c, c2].iter().collect());
                        i += 2;
                        continue;
                    }
                }
                dirs.push([c, c].iter().collect());
            }
            _ if atom(c).is_some() => {
                let (leaps, rides_default) = atom(c).unwrap_or((&[], false));
                let mut range: Option<u32> = if rides_default { Some(0) } else { None };
                if let Some(&next) = chars.get(i + 1) {
                    if let Some(d) = next.to_digit(10) {
                        range = Some(d);
                        i += 1;
                    } else if next == c {
                        range = Some(0);
                        i += 1;
                    }
                }
                if range == Some(0) && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit()) {
                    return Err(err(
                        i + 1,
                        "a ride limit is one digit after the atom, as in `R4`".into(),
                    ));
                }
                if hop && range.is_none() {
                    return Err(err(
                        i,
                        format!(
                            "`p{c}`: a hopper must ride (pR, pB, pQ); fairybot has no hopping leapers"
                        ),
                    ));
                }
                if lame && (range.is_some() || !matches!(c, 'N' | 'A' | 'D')) {
                    return Err(err(
                        i,
                        format!(
                            "`n{c}`: fairybot's lame leapers are nN (the Xiangqi Horse), nA (the Elephant) and nD"
                        ),
                    ));
                }
                if quiet && capture {
                    // `mc` is both, as no modality at all.
                    (quiet, capture) = (false, false);
                }
                for &(a, b) in leaps {
                    // Orthogonal single atoms split mixed pairs into their two halves
                    // (`fsW` is forward plus sideways), as Fairy-Stockfish reads them.
                    let split: Vec<String> = dirs
                        .iter()
                        .flat_map(|s| {
                            let v: Vec<char> = s.chars().collect();
                            if leaps.len() == 1 && b == 0 && v[0] != v[1] {
                                vec![[v[0], v[0]].iter().collect(), [v[1], v[1]].iter().collect()]
                            } else {
                                vec![s.clone()]
                            }
                        })
                        .collect();
                    let mut all: Vec<(i32, i32)> = Vec::new();
                    let mut want: Vec<(i32, i32)> = Vec::new();
                    for (v, tags) in images(a, b) {
                        if !all.contains(&v) {
                            all.push(v);
                        }
                        if (split.is_empty() || split.iter().any(|s| tags.contains(&s.as_str())))
                            && !want.contains(&v)
                        {
                            want.push(v);
                        }
                    }
                    if want.is_empty() {
                        return Err(err(
                            i,
                            format!("the directions before `{c}` select none of its moves"),
                        ));
                    }
                    let prefixes = cover(&all, &want).ok_or_else(|| {
                        err(
                            i,
                            format!(
                                "the direction set `{}` of `{c}` ({} of its {} moves) cannot be written in fairybot's dialect, whose direction letters add up (f, b, l, r, v, s); use a symmetric set such as `f{c}` or `s{c}`",
                                dirs.concat(),
                                want.len(),
                                all.len()
                            ),
                        )
                    })?;
                    let letter =
                        our_letter(a, b).ok_or_else(|| err(i, format!("no atom for ({a},{b})")))?;
                    let range_text = match range {
                        None => String::new(),
                        Some(0) => letter.to_string(),
                        Some(n) => n.to_string(),
                    };
                    for p in prefixes {
                        let mut g = String::new();
                        if quiet {
                            g.push('m');
                        }
                        if capture {
                            g.push('c');
                        }
                        if initial {
                            g.push('i');
                        }
                        if lame {
                            g.push('n');
                        }
                        if hop {
                            g.push('p');
                        }
                        g.push_str(&p);
                        g.push(letter);
                        g.push_str(&range_text);
                        if !groups.contains(&g) {
                            groups.push(g);
                        }
                    }
                }
                (quiet, capture, hop, lame, initial) = (false, false, false, false, false);
                dirs.clear();
            }
            _ => {
                return Err(err(
                    i,
                    format!(
                        "`{c}` is not part of the Betza that fairybot reads: atoms W F D N A H C Z G K R B Q (L = C, J = Z), modifiers m c f b l r v s h n p i e"
                    ),
                ));
            }
        }
        i += 1;
    }
    if quiet || capture || hop || lame || initial || !dirs.is_empty() {
        return Err(err(
            chars.len(),
            "modifiers at the end with no atom after them".into(),
        ));
    }
    Ok(groups.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orthodox_pieces_read_as_ours() {
        assert_eq!(translate("fmWfceF").unwrap(), "mfW cfF");
        assert_eq!(translate("N").unwrap(), "N");
        assert_eq!(translate("Q").unwrap(), "WW FF");
        assert_eq!(translate("mRcpR").unwrap(), "mWW cpWW");
        assert_eq!(translate("R4").unwrap(), "W4");
        assert_eq!(translate("NN").unwrap(), "NN");
    }

    #[test]
    fn paired_letters_are_one_direction() {
        // Soldier: forward and both sideways steps (orthogonal pairs split).
        assert_eq!(translate("fsW").unwrap(), "fsW");
        // All four forward Knight leaps are our `f`; the two narrow ones (`fN`, the shogi
        // Knight) are an intersection our additive letters cannot build.
        assert_eq!(translate("fhN").unwrap(), "fN");
        assert!(translate("fN").is_err());
        // Gold: the Wazir plus the forward diagonals.
        assert_eq!(translate("WfF").unwrap(), "W fF");
        // One forward-left diagonal cannot be written: refused with the reason.
        let e = translate("flF").unwrap_err();
        assert!(e.problem.contains("cannot be written"), "{e:?}");
    }

    #[test]
    fn lame_and_initial() {
        assert_eq!(translate("nN").unwrap(), "nN");
        assert_eq!(translate("ifmnD").unwrap(), "minfD");
        assert!(translate("nZ").is_err());
    }

    #[test]
    fn unknown_letters_are_named() {
        let e = translate("gQ").unwrap_err();
        assert!(e.problem.contains("grasshopper"), "{e:?}");
        let e = translate("WX").unwrap_err();
        assert_eq!(e.at, 1);
        assert!(e.problem.contains("`X`"), "{e:?}");
        assert!(translate("").is_err());
        assert!(translate("fm").is_err());
    }
}
