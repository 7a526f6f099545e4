//! Pieces in words a player uses: how each one moves and captures, and every special power it
//! has, made from the variant's own data (the movement atoms, the powers, promotion, rivers),
//! so a new variant file gets its help without anyone writing it, and the help cannot
//! disagree with the rules the engine plays.

use rules::{
    Cell, Kind, Side, Variant,
    betza::{Atom, Leap, Leg},
};

fn number(n: i32) -> String {
    match n {
        1 => "one".into(),
        2 => "two".into(),
        3 => "three".into(),
        4 => "four".into(),
        5 => "five".into(),
        n => n.to_string(),
    }
}

fn squares(n: i32) -> String {
    if n == 1 {
        "one square".into()
    } else {
        format!("{} squares", number(n))
    }
}

/// "King", "King or Pawn", "Queen, Prince or Marshal".
fn either(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// "a King", "an Elephant": the article for the first word of `name`.
fn a(name: &str) -> String {
    let vowel = name
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c));
    format!("{} {name}", if vowel { "an" } else { "a" })
}

fn kinds_in(v: &Variant, mask: u32) -> Vec<String> {
    v.kinds()
        .filter(|k| mask & (1 << k.0) != 0)
        .map(|k| v.piece(k).name.clone())
        .collect()
}

/// Which ways of a leap an atom allows, as "forward", "backward", "sideways" (in the piece's
/// own frame, where forward is its side's forward); empty when every way is allowed.
fn ways(atom: &Atom) -> String {
    let mut all = [false; 3];
    let mut allowed = [false; 3];
    for (dx, dy) in atom.leg.leap.vectors() {
        let i = match dy.signum() {
            1 => 0,
            -1 => 1,
            _ => 2,
        };
        all[i] = true;
        if atom.dirs.allows(dx, dy) {
            allowed[i] = true;
        }
    }
    if allowed == all {
        return String::new();
    }
    let names: Vec<String> = ["forward", "backward", "sideways"]
        .iter()
        .zip(allowed)
        .filter(|(_, a)| *a)
        .map(|(n, _)| n.to_string())
        .collect();
    either(&names)
}

/// The shape of one leg: "one square straight", "any number of squares diagonally", "a
/// Knight's jump (two squares straight, then one to the side)".
fn leg_shape(leg: Leg, way: &str) -> String {
    let Leap(x, y) = leg.leap;
    let (x, y) = (x as i32, y as i32);
    let way = if way.is_empty() {
        String::new()
    } else {
        format!(" {way}")
    };
    let line = if y == 0 {
        "straight"
    } else if x == y {
        "diagonally"
    } else {
        ""
    };
    if !line.is_empty() {
        let count = match leg.range {
            1 => squares(x),
            0 if x == 1 => "any number of squares".into(),
            0 => format!("any number of {}-square jumps", number(x)),
            r if x == 1 => format!("up to {} squares", number(r as i32)),
            r => format!("up to {} jumps of {}", number(r as i32), squares(x)),
        };
        return format!("{count} {line}{way}");
    }
    let jump = match (x, y) {
        (2, 1) => "with a Knight's jump (two squares straight, then one to the side)".to_string(),
        (3, 1) => "with a Camel's jump (three squares straight, then one to the side)".to_string(),
        (3, 2) => "with a Zebra's jump (three squares straight, then two to the side)".to_string(),
        _ => format!(
            "with a jump of {} straight, then {} to the side",
            squares(x),
            number(y)
        ),
    };
    let jump = format!("{jump}{way}");
    match leg.range {
        1 => jump,
        0 => format!("{jump}, repeated any number of times in one line"),
        r => format!(
            "{jump}, repeated up to {} times in one line",
            number(r as i32)
        ),
    }
}

/// One atom as a phrase, without saying whether it moves or captures.
fn atom_phrase(atom: &Atom) -> String {
    let Leap(x, _) = atom.leg.leap;
    let mut s = leg_shape(atom.leg, &ways(atom));
    if let Some(then) = atom.then {
        s = format!(
            "{s}, and then, if that square is empty, onward from there {}, away from the file and rank it started on",
            leg_shape(then, "")
        );
    }
    // Straight or diagonal leaps of more than one square jump (D, A, H).
    let y = atom.leg.leap.1;
    let jumps = x >= 2 && atom.leg.range == 1 && (y == 0 || y == x);
    if atom.lame {
        s.push_str(if x >= 2 {
            ", only if the squares it passes are empty"
        } else {
            ", only through empty squares"
        });
    } else if jumps {
        s.push_str(", jumping over anything between");
    }
    if atom.hop {
        let line = if atom.leg.leap.1 == 0 {
            "a rank or file"
        } else {
            "a diagonal"
        };
        s = format!(
            "by jumping along {line} over exactly one piece (either side's) and taking the first piece beyond it"
        );
    }
    if atom.initial {
        s.push_str(", from its starting square");
    }
    s
}

/// What the usual all-round combinations are called ("like a Queen"), with the leaps they
/// cover.
fn named_moves(leaps: &[(Leap, u8)]) -> Option<(&'static str, &'static [(Leap, u8)])> {
    const LION: &[(Leap, u8)] = &[
        (Leap(1, 0), 1),
        (Leap(1, 1), 1),
        (Leap(2, 1), 1),
        (Leap(2, 2), 1),
        (Leap(2, 0), 1),
    ];
    const QUEEN: &[(Leap, u8)] = &[(Leap(1, 0), 0), (Leap(1, 1), 0)];
    const KING: &[(Leap, u8)] = &[(Leap(1, 0), 1), (Leap(1, 1), 1)];
    let has = |set: &[(Leap, u8)]| set.iter().all(|l| leaps.contains(l));
    if has(LION) {
        return Some((
            "to any square up to two squares away in any direction, jumping over anything between (one square like a King, a Knight's jump, or exactly two squares straight or diagonally)",
            LION,
        ));
    }
    if has(QUEEN) {
        return Some((
            "any number of squares straight or diagonally, like a Queen",
            QUEEN,
        ));
    }
    if has(KING) {
        return Some(("one square in any direction, like a King", KING));
    }
    None
}

/// The phrases of one group of atoms that share a mode (moves and captures, moves only, or
/// captures only): the usual all-round combinations by name, then each other atom.
fn phrases(atoms: &[&Atom]) -> Vec<String> {
    let simple = |a: &Atom| a.dirs.all() && !a.initial && !a.lame && !a.hop && a.then.is_none();
    let mut out = Vec::new();
    let mut leaps: Vec<(Leap, u8)> = atoms
        .iter()
        .filter(|a| simple(a))
        .map(|a| (a.leg.leap, a.leg.range))
        .collect();
    if let Some((name, covered)) = named_moves(&leaps) {
        out.push(name.to_string());
        leaps.retain(|l| !covered.contains(l));
    }
    for (leap, range) in leaps {
        out.push(match (leap, range) {
            (Leap(1, 0), 0) => {
                "any number of squares straight (along its rank or file), like a Rook".into()
            }
            (Leap(1, 1), 0) => "any number of squares diagonally, like a Bishop".into(),
            (Leap(2, 1), 1) => "like a Knight: two squares straight, then one to the side, jumping over anything between".into(),
            _ => {
                let a = atoms
                    .iter()
                    .find(|a| simple(a) && a.leg.leap == leap && a.leg.range == range)
                    .expect("the leap came from an atom");
                atom_phrase(a)
            }
        });
    }
    out.extend(atoms.iter().filter(|a| !simple(a)).map(|a| atom_phrase(a)));
    out
}

/// How the piece moves and captures, as sentences. Empty when it has no movement atoms
/// (the Wizard, whose step is a power).
pub fn movement(atoms: &[Atom]) -> String {
    let mut sentences = Vec::new();
    for (moves, captures, lead) in [
        (true, true, "Moves and captures"),
        (true, false, "Moves without capturing"),
        (false, true, "Captures"),
    ] {
        let group: Vec<&Atom> = atoms
            .iter()
            .filter(|a| a.moves == moves && a.captures == captures)
            .collect();
        if !group.is_empty() {
            sentences.push(format!("{lead} {}.", phrases(&group).join("; or ")));
        }
    }
    sentences.join(" ")
}

/// The cell of the board to use in examples: the third file, middle rank, if it exists.
fn example_cell(v: &Variant) -> Option<Cell> {
    let g = &v.geometry;
    let h = g.shape().height as i32;
    g.at(0, 2, h / 2).or_else(|| g.cells().next())
}

/// "y and j, z and i, ..." for the files that touch when the board is folded down the middle.
fn fold_pairs(v: &Variant) -> String {
    let files = &v.geometry.shape().file_names;
    let n = files.len();
    (0..n / 2)
        .map(|i| format!("{}-{}", files[i], files[n - 1 - i]))
        .collect::<Vec<_>>()
        .join(", ")
}

fn names(v: &Variant, cells: impl Iterator<Item = u8>) -> String {
    let g = &v.geometry;
    let list: Vec<String> = cells.map(|c| g.name(Cell(c)).to_string()).collect();
    either(&list).replace(" or ", " and ")
}

/// Where the promotion zone of `side` lies, by rank names ("rank 8", "ranks 9 and 10").
fn zone(v: &Variant, side: Side, optional: bool) -> Option<String> {
    let set = if optional {
        v.promotion.optional.get(side.index())?
    } else {
        v.promotion.compulsory.get(side.index())?
    };
    if set.is_empty() {
        return None;
    }
    let g = &v.geometry;
    let mut ranks: Vec<u8> = set.iter().map(|c| g.info(c).rank).collect();
    ranks.sort_unstable();
    ranks.dedup();
    let whole_ranks = g
        .cells()
        .filter(|c| ranks.contains(&g.info(*c).rank))
        .all(|c| set.contains(c));
    if !whole_ranks {
        // Areas, not whole ranks (Quadruple Besiege: the enemy block; four-player Double
        // Cross: a file's end on each board): each rectangle by its corners.
        let parts: Vec<String> = rectangles(g, set)
            .into_iter()
            .map(|(a, b)| {
                if a == b {
                    g.name(a).to_string()
                } else {
                    format!("from {} to {}", g.name(a), g.name(b))
                }
            })
            .collect();
        return Some(format!(
            "the squares {}",
            either(&parts).replace(" or ", " and ")
        ));
    }
    let names: Vec<String> = ranks
        .iter()
        .map(|r| g.shape().rank_names[*r as usize].clone())
        .collect();
    Some(if names.len() == 1 {
        format!("rank {}", names[0])
    } else {
        format!("ranks {}", either(&names).replace(" or ", " and "))
    })
}

/// A set of cells as rectangles (lowest and highest corner), in board, file and rank order:
/// each file's runs of consecutive ranks, joined across neighbouring files with the same run.
fn rectangles(g: &rules::Geometry, set: &rules::CellSet) -> Vec<(rules::Cell, rules::Cell)> {
    // (board, first file, last file, first rank, last rank)
    let mut runs: Vec<(u8, u8, u8, u8, u8)> = Vec::new();
    let mut cells: Vec<(u8, u8, u8)> = set
        .iter()
        .map(|c| {
            let i = g.info(c);
            (i.board, i.file, i.rank)
        })
        .collect();
    cells.sort_unstable();
    for (b, f, r) in cells {
        match runs.last_mut() {
            Some(last) if last.0 == b && last.1 == f && last.2 == f && last.4 + 1 == r => {
                last.4 = r;
            }
            _ => runs.push((b, f, f, r, r)),
        }
    }
    let mut merged: Vec<(u8, u8, u8, u8, u8)> = Vec::new();
    for run in runs {
        match merged
            .iter_mut()
            .find(|m| m.0 == run.0 && m.2 + 1 == run.1 && m.3 == run.3 && m.4 == run.4)
        {
            Some(m) => m.2 = run.2,
            None => merged.push(run),
        }
    }
    merged
        .into_iter()
        .filter_map(|(b, f0, f1, r0, r1)| {
            Some((
                g.at(b, f0 as i32, r0 as i32)?,
                g.at(b, f1 as i32, r1 as i32)?,
            ))
        })
        .collect()
}

/// The special powers and rules of one piece, as sentences. `glass`: the piece of Through the
/// Looking-Glass, where there is no check and pieces fall between the worlds.
pub fn powers(v: &Variant, k: Kind, glass: bool) -> Vec<String> {
    let p = v.piece(k);
    let pw = &p.powers;
    let mut out = Vec::new();
    let example = example_cell(v);
    let special = v.special.as_deref();
    if pw.fold_step {
        let mut s = format!(
            "Moves one square diagonally, never capturing, on the board folded down the middle like a book, so that each square also touches its mirror square (files {}): besides its four diagonal neighbours it may go to the squares beside its mirror square on the same rank, and to the squares just above and below its mirror square.",
            fold_pairs(v)
        );
        if let (Some(c), Some(t)) = (example, special) {
            s.push_str(&format!(
                " For example, from {} it may step to {}.",
                v.geometry.name(c),
                names(v, t.fold_steps[c.index()].iter().copied())
            ));
        }
        out.push(s);
    }
    if pw.opening_double {
        out.push(
            "On its first move it may make two such one-square steps instead, in any directions, if the square between and the square it ends on are empty (it may not end where it started)."
                .into(),
        );
    }
    if pw.pushes {
        out.push(format!(
            "It never captures. Instead, when it steps one square straight onto an enemy piece, it pushes that piece one square further the same way; that square must be on the board and empty. It does not push during a two-square first move. An enemy Pawn pushed onto its last rank promotes, and you choose the new piece. Written like a capture: `{}x` and the square it steps to.",
            p.san_letter
        ));
    }
    if pw.freezes {
        let immune: Vec<String> = v
            .kinds()
            .filter(|o| !v.piece(*o).powers.freezable)
            .map(|o| v.piece(o).name.clone())
            .collect();
        let mut s = format!(
            "Instead of moving, it may freeze an enemy piece on a square next to it in a straight line, or on its mirror square. A frozen piece cannot move, capture, push, freeze, kill or give check until this {} is captured, frozen or pushed, or they are no longer next to each other; it still blocks lines. Written like a capture: `{}x` and the frozen piece's square.",
            p.name, p.san_letter
        );
        if let (Some(c), Some(t)) = (example, special) {
            s.push_str(&format!(
                " From {} it may freeze on {}.",
                v.geometry.name(c),
                names(v, t.fold_orth[c.index()].iter().copied())
            ));
        }
        if !immune.is_empty() {
            s.push_str(&format!(" {} cannot be frozen.", cap(&a(&either(&immune)))));
        }
        out.push(s);
    }
    if pw.kills {
        let mut s = format!(
            "Instead of moving, it may kill an enemy piece a Camel's jump away (three squares straight, then one to the side) when the two squares of the zigzag between them are empty; it stays where it is. A kill it could make on the King is check. Written like a capture: `{}x` and the victim's square.",
            p.san_letter
        );
        if let (Some(c), Some(t)) = (example, special)
            && let Some((target, a, b)) = t.kills[c.index()].first()
        {
            let g = &v.geometry;
            s.push_str(&format!(
                " For example, from {} it kills on {} when {} and {} are empty.",
                g.name(c),
                g.name(Cell(*target)),
                g.name(Cell(*a)),
                g.name(Cell(*b))
            ));
        }
        out.push(s);
    }
    if let Some(f) = pw.flip {
        let other = v.piece(f);
        out.push(format!(
            "At the end of any of its moves, or instead of moving (using the whole turn), it may turn into {} ({}) and later back. Write `/` after the move to turn, e.g. `{}e5/`; a turn in place is its own square and `/`. As {}: {}",
            a(&other.name),
            other.letter,
            p.san_letter,
            a(&other.name),
            movement(&other.atoms),
        ));
    }
    if pw.screen_own_only {
        let hoppers: Vec<String> = v
            .kinds()
            .filter(|o| v.piece(*o).atoms.iter().any(|a| a.hop))
            .map(|o| v.piece(o).name.clone())
            .collect();
        out.push(format!(
            "Only {} of its own side may jump over it: for the opponent's it blocks the line.",
            a(&either(&hoppers))
        ));
    }
    if pw.capturable_by != u32::MAX {
        out.push(format!(
            "Only {} can capture it.",
            a(&either(&kinds_in(v, pw.capturable_by)))
        ));
    }
    if !pw.pushable && v.kinds().any(|o| v.piece(o).powers.pushes) {
        out.push("It cannot be pushed.".into());
    }
    if !pw.freezable && v.kinds().any(|o| v.piece(o).powers.freezes) {
        out.push("It cannot be frozen.".into());
    }
    if !p.files.is_empty() {
        out.push(format!(
            "It keeps to the files {}: it never moves or captures onto another file.",
            either(&p.files).replace(" or ", " and ")
        ));
    }
    let sides = v.sides as usize;
    let mut groups: Vec<(Vec<String>, &Vec<String>)> = Vec::new();
    for (s, zones) in p.keep_out.iter().enumerate().filter(|(_, z)| !z.is_empty()) {
        let name = rules::Side(s as u8).name(sides).to_string();
        match groups.iter_mut().find(|(_, z)| *z == zones) {
            Some((names, _)) => names.push(name),
            None => groups.push((vec![name], zones)),
        }
    }
    for (names, zones) in groups {
        let many = names.len() > 1;
        out.push(format!(
            "{}'s {} never {} {} (ranks by name, rectangles corner to corner), neither moving nor capturing there: those are the camps of the colours next to {} own in turn order.",
            either(&names).replace(" or ", "'s and "),
            if many { format!("{}s", p.name) } else { p.name.clone() },
            if many { "enter" } else { "enters" },
            zones.join(", "),
            if many { "their" } else { "its" },
        ));
    }
    if let Some(c) = &p.crossing {
        let g = &v.geometry;
        let rivers: Vec<String> = c
            .rivers
            .iter()
            .map(|r| {
                let n = &g.shape().rank_names;
                format!(
                    "the river between ranks {} and {}",
                    n[*r as usize],
                    n.get(*r as usize + 1).map(String::as_str).unwrap_or("?")
                )
            })
            .collect();
        let into: Vec<String> = c.choices.iter().map(|k| v.piece(*k).name.clone()).collect();
        out.push(format!(
            "When it steps one rank across {}, it {} {}{}.",
            either(&rivers),
            if c.optional { "may become" } else { "becomes" },
            a(&either(&into)),
            if c.captured_only {
                " that its side has lost"
            } else {
                ""
            }
        ));
    }
    if p.shuns != 0 {
        out.push(format!(
            "It may not move into a section between rivers that holds the enemy {}, not even to capture.",
            either(&kinds_in(v, p.shuns))
        ));
    }
    if p.pawn {
        out.push(pawn_rules(v, p));
    }
    if p.castles {
        out.push("It can castle with the King (see `rules`).".into());
    }
    if glass {
        out.push(
            "It moves on the world where it stands; after its move it falls to the same square of the other world if that square is empty."
                .into(),
        );
        if p.royal {
            out.push("There is no check: it may stand attacked, and capturing it wins.".into());
        }
    } else if p.royal {
        out.push(
            "Royal: it may not move into check, and it is checkmated when it is attacked and no move saves it, which loses the game."
                .into(),
        );
    }
    if v.capture_goal.contains(&k) {
        let goal: Vec<String> = v
            .capture_goal
            .iter()
            .map(|k| v.piece(*k).name.clone())
            .collect();
        out.push(format!(
            "Capturing it counts towards victory: a side wins once it has captured at least one enemy {}.",
            either(&goal).replace(" or ", " and ")
        ));
    }
    out
}

fn pawn_rules(v: &Variant, p: &rules::PieceType) -> String {
    let mut s = String::new();
    if p.atoms.iter().any(|a| a.lame && a.leg.leap.0 >= 2) {
        s.push_str(
            "After a two-square step it may be taken en passant, and it takes en passant itself. ",
        );
    }
    let choices: Vec<String> = v
        .promotion
        .choices
        .iter()
        .map(|k| v.piece(*k).name.clone())
        .collect();
    let sides = v.sides as usize;
    let zones: Vec<String> = (0..v.sides)
        .filter_map(|s| {
            let z = zone(v, Side(s), false)?;
            Some(format!("{} on {z}", Side(s).name(sides)))
        })
        .collect();
    if !choices.is_empty() && !zones.is_empty() {
        let optional: Vec<String> = (0..v.sides)
            .filter_map(|s| {
                let z = zone(v, Side(s), true)?;
                Some(format!("{} on {z}", Side(s).name(sides)))
            })
            .collect();
        s.push_str(&format!(
            "It promotes to {} ({}){}{}.",
            a(&either(&choices)),
            zones.join(", "),
            if optional.is_empty() {
                String::new()
            } else {
                format!(
                    "; it may promote or stay a Pawn earlier ({})",
                    optional.join(", ")
                )
            },
            if v.promotion.limit_to_start_counts {
                "; only to a piece its side has lost"
            } else {
                ""
            }
        ));
    }
    s.trim_end().to_string()
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Whether a piece has powers beyond moving and capturing (which `rules` only points to).
pub fn is_special(p: &rules::PieceType) -> bool {
    let pw = &p.powers;
    pw.flip.is_some()
        || pw.pushes
        || pw.capturable_by != u32::MAX
        || pw.screen_own_only
        || pw.opening_double
        || pw.fold_step
        || pw.freezes
        || pw.kills
        || p.crossing.is_some()
        || p.shuns != 0
        || !p.files.is_empty()
        || p.keep_out.iter().any(|z| !z.is_empty())
}

/// The whole description of a piece: how it moves, then its powers. `glass` as for
/// [`powers`].
pub fn piece(v: &Variant, k: Kind, glass: bool) -> String {
    let p = v.piece(k);
    let mut parts = Vec::new();
    let m = movement(&p.atoms);
    if !m.is_empty() {
        parts.push(m);
    }
    parts.extend(powers(v, k, glass));
    parts.retain(|s| !s.is_empty());
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The generated phrases players did not understand, and stray punctuation.
    const JARGON: &[&str] = &[
        "orthogonal",
        "limited",
        "leap (",
        "atom",
        "rides",
        "Betza",
        "()",
        "  ",
        "..",
        " .",
        ",.",
        ";.",
        "?.",
        "!.",
        "a E",
        "a A",
        "a I",
        "a O",
    ];

    fn every_variant() -> Vec<Arc<Variant>> {
        let catalog = rules::Catalog::builtin();
        let mut all: Vec<Arc<Variant>> = catalog
            .names()
            .iter()
            .map(|n| catalog.get(n).unwrap())
            .collect();
        all.push(rules::glass::variant());
        all
    }

    /// Item 11 of issue 13: the Bilateral Wizard's help was empty, the Elephant's push and the
    /// Pao/Vao flip were missing. Every piece of every variant (Looking-Glass, Ecumenical,
    /// Double Cross and CoBlaChe included) says how it moves and names each of its powers.
    #[test]
    fn every_piece_of_every_variant_is_described_with_all_its_powers() {
        for v in every_variant() {
            for k in v.kinds() {
                let p = v.piece(k);
                let glass = v.name == rules::glass::variant().name;
                let d = piece(&v, k, glass);
                let who = format!("{} {}", v.name, p.name);
                assert!(d.len() > 30, "{who}: {d:?}");
                assert!(d.ends_with('.'), "{who}: {d:?}");
                for j in JARGON {
                    assert!(!d.contains(j), "{who}: {j:?} in {d:?}");
                }
                let pw = &p.powers;
                let musts = [
                    (!p.atoms.is_empty() || pw.fold_step, "Moves"),
                    (pw.pushes, "pushes"),
                    (pw.flip.is_some(), "turn into"),
                    (pw.freezes, "freeze"),
                    (pw.kills, "kill"),
                    (pw.fold_step, "folded"),
                    (pw.opening_double, "first move"),
                    (pw.capturable_by != u32::MAX, "can capture it"),
                    (pw.screen_own_only, "jump over it"),
                    (!pw.pushable, "cannot be pushed"),
                    (!pw.freezable, "cannot be frozen"),
                    (p.crossing.is_some(), "river"),
                    (p.shuns != 0, "section"),
                    (!p.files.is_empty(), "keeps to the files"),
                    (p.keep_out.iter().any(|z| !z.is_empty()), "never enter"),
                    (p.royal && !glass, "checkmated"),
                    (p.royal && glass, "capturing it wins"),
                    (glass, "falls to the same square of the other world"),
                    (p.pawn && !v.promotion.choices.is_empty(), "promotes"),
                    (p.castles, "castle"),
                    (v.capture_goal.contains(&k), "victory"),
                ];
                for (has, word) in musts {
                    if has {
                        assert!(d.contains(word), "{who}: no {word:?} in {d:?}");
                    }
                }
            }
        }
    }

    fn of(variant: &str, letter: char) -> String {
        let catalog = rules::Catalog::builtin();
        let v = catalog.get(variant).unwrap();
        piece(&v, v.kind_by_letter(letter).unwrap(), false)
    }

    #[test]
    fn bilateral_powers_read_as_the_rulebook_says() {
        let w = of("bilateral", 'W');
        // The page's a5 example: steps, freezes (with the mirror h5) and the kill on z8.
        assert!(
            w.contains("from a5 it may step to")
                && ["z4", "z6", "b4", "b6", "g5", "i5", "h4", "h6"]
                    .iter()
                    .all(|c| w.contains(c)),
            "{w}"
        );
        assert!(
            w.contains("From a5 it may freeze on") && w.contains("h5"),
            "{w}"
        );
        assert!(w.contains("An Elephant cannot be frozen"), "{w}");
        let e = of("bilateral", 'E');
        assert!(e.contains("it pushes that piece one square further"), "{e}");
        assert!(e.contains("Only a King or Pawn can capture it"), "{e}");
        let c = of("bilateral", 'C');
        assert!(c.contains("turn into a Vao (V)"), "{c}");
        assert!(c.contains("`Pe5/`"), "{c}");
        assert!(of("bilateral", 'V').contains("turn into a Pao (C)"));
    }

    #[test]
    fn pawns_and_others_in_plain_words() {
        let p = of("chess", 'P');
        assert!(
            p.starts_with("Moves without capturing one square straight forward; or two squares straight forward"),
            "{p}"
        );
        assert!(p.contains("Captures one square diagonally forward."), "{p}");
        assert!(p.contains("en passant"), "{p}");
        assert!(p.contains("White on rank 8, Black on rank 1"), "{p}");
        assert!(of("chess", 'Q').contains("like a Queen"));
        assert!(of("toulousain", 'C').contains("over exactly one piece"));
        let lion = of("bilateral", 'L');
        assert!(
            lion.contains("Moves without capturing two squares straight")
                && lion.contains("Captures one square in any direction, like a King"),
            "{lion}"
        );
        let pawn = of("dcb-coblache", 'P');
        assert!(pawn.contains("keeps to the files c, d, e and f"), "{pawn}");
        assert!(pawn.contains("it becomes a Wazir"), "{pawn}");
    }
}
