//! `[pieces]`: the kinds, their movement and the rules attached to single pieces (special
//! powers, files they are confined to, river crossings and sections they shun).
//!
//! Kinds are resolved first, in letter order, so that every later key that names a piece by
//! its letter (a flip partner, a promotion choice, a capture goal) can be checked against
//! the whole set.

use std::collections::BTreeMap;

use super::{Crossing, PieceType, Powers};
use crate::{
    betza,
    geometry::Geometry,
    spec::{PieceSpec, SpecError},
    types::{CellSet, Kind, MAX_KINDS, Side},
};

/// The piece specs of a variant, keyed by letter (the file's `[pieces]` table).
pub(super) type Specs = BTreeMap<String, PieceSpec>;

/// The kind a letter names (either case), if the variant has it.
pub(super) fn letter_kind(pieces: &[PieceType], l: &str) -> Option<Kind> {
    let mut cs = l.chars();
    let c = cs.next()?;
    if cs.next().is_some() {
        return None;
    }
    (1..pieces.len())
        .find(|i| pieces[*i].letter == c.to_ascii_uppercase())
        .map(|i| Kind(i as u8))
}

/// The kinds a list of letters names.
///
/// # Errors
/// The first letter that names no piece of the variant, under `key`.
pub(super) fn kinds_of(
    file: &str,
    pieces: &[PieceType],
    key: &str,
    letters: &[String],
) -> Result<Vec<Kind>, SpecError> {
    letters
        .iter()
        .map(|l| {
            letter_kind(pieces, l).ok_or_else(|| {
                SpecError::new(file, key, format!("{l:?} is not a piece of this variant"))
            })
        })
        .collect()
}

/// The `[pieces]` table, which every variant needs.
///
/// # Errors
/// A missing table or more kinds than a board byte can hold.
pub(super) fn specs<'s>(file: &str, specs: Option<&'s Specs>) -> Result<&'s Specs, SpecError> {
    let specs = specs.ok_or_else(|| {
        SpecError::new(
            file,
            "pieces",
            "missing; a variant needs at least a [pieces] table",
        )
    })?;
    if specs.len() > MAX_KINDS {
        return Err(SpecError::new(
            file,
            "pieces",
            format!("{} kinds: at most {MAX_KINDS}", specs.len()),
        ));
    }
    Ok(specs)
}

/// The piece kinds, index 0 a placeholder so that kinds start at 1 (a board byte of 0 is an
/// empty cell). Powers, files and river rules are filled in by the later resolvers.
///
/// # Errors
/// A letter that is not one uppercase character, missing or unreadable `moves`, a
/// `san_letter` or `uci_letter` that is not one uppercase letter.
pub(super) fn kinds(file: &str, specs: &Specs) -> Result<Vec<PieceType>, SpecError> {
    let err = |key: &str, problem: String| SpecError::new(file, key, problem);
    let mut pieces = vec![PieceType {
        letter: '?',
        name: String::new(),
        moves: String::new(),
        atoms: Vec::new(),
        royal: false,
        pawn: false,
        castles: false,
        value: None,
        glyph: String::new(),
        san_letter: '?',
        uci_letter: '?',
        powers: Powers::ordinary(),
        crossing: None,
        shuns: 0,
        files: Vec::new(),
        keep_out: Vec::new(),
    }];
    for (letter, p) in specs {
        let key = format!("pieces.{letter}");
        let mut chars = letter.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return Err(err(&key, "a piece letter is one character".into()));
        };
        if !c.is_ascii_uppercase() {
            return Err(err(
                &key,
                "write piece letters in uppercase; the second side uses the lowercase".into(),
            ));
        }
        let moves = p
            .moves
            .clone()
            .ok_or_else(|| err(&format!("{key}.moves"), "missing".into()))?;
        // A piece whose whole movement is a special power (the folded-board step) may
        // leave `moves` empty.
        let atoms = if moves.trim().is_empty() && p.fold_step {
            Vec::new()
        } else {
            betza::parse(&moves).map_err(|e| err(&format!("{key}.moves"), e.to_string()))?
        };
        let pname = p.name.clone().unwrap_or_else(|| c.to_string());
        pieces.push(PieceType {
            letter: c,
            glyph: p.glyph.clone().unwrap_or_else(|| pname.to_lowercase()),
            name: pname,
            moves,
            atoms,
            royal: p.royal,
            pawn: p.pawn,
            castles: p.castles,
            value: p.value,
            san_letter: other_letter(file, &key, "san_letter", c, p.san_letter.as_deref())?,
            uci_letter: other_letter(file, &key, "uci_letter", c, p.uci_letter.as_deref())?,
            powers: Powers::ordinary(),
            crossing: None,
            shuns: 0,
            files: Vec::new(),
            keep_out: Vec::new(),
        });
    }
    Ok(pieces)
}

/// The letter a notation uses (`san_letter`, `uci_letter`): the piece's own unless the file
/// says otherwise.
fn other_letter(
    file: &str,
    key: &str,
    field: &str,
    own: char,
    given: Option<&str>,
) -> Result<char, SpecError> {
    match given.map(|l| l.chars().collect::<Vec<_>>()) {
        None => Ok(own),
        Some(l) if l.len() == 1 && l[0].is_ascii_uppercase() => Ok(l[0]),
        Some(_) => Err(SpecError::new(
            file,
            format!("{key}.{field}"),
            "one uppercase letter",
        )),
    }
}

/// Fills in each piece's special powers (resolved once all letters are known: a flip
/// partner or a capturer is named by letter). Returns whether any piece has one, which
/// switches the generator off its fast path.
///
/// # Errors
/// A `flip` or `capturable_by` letter that names no piece, or powers on a variant of several
/// boards (their tables are built for one).
pub(super) fn powers(
    file: &str,
    specs: &Specs,
    pieces: &mut [PieceType],
    geometry: &Geometry,
) -> Result<bool, SpecError> {
    let err = |key: &str, problem: String| SpecError::new(file, key, problem);
    let mut all_powers = Vec::new();
    for (letter, p) in specs {
        let key = format!("pieces.{letter}");
        let mut pw = Powers::ordinary();
        if let Some(f) = &p.flip {
            let k = letter_kind(pieces, f).ok_or_else(|| {
                err(
                    &format!("{key}.flip"),
                    format!("{f:?} is not a piece of this variant"),
                )
            })?;
            pw.flip = Some(k);
        }
        if let Some(by) = &p.capturable_by {
            let mut mask = 0u32;
            for k in kinds_of(file, pieces, &format!("{key}.capturable_by"), by)? {
                mask |= 1 << k.0;
            }
            pw.capturable_by = mask;
        }
        pw.pushes = p.pushes;
        pw.screen_own_only = p.screen_own_only;
        pw.pushable = p.pushable.unwrap_or(true);
        pw.freezable = p.freezable.unwrap_or(true);
        pw.opening_double = p.opening_double;
        pw.fold_step = p.fold_step;
        pw.freezes = p.freezes;
        pw.kills = p.kills;
        all_powers.push(pw);
    }
    for (i, pw) in all_powers.into_iter().enumerate() {
        pieces[i + 1].powers = pw;
    }
    let special_on = pieces.iter().any(|p| p.powers.any());
    if special_on && geometry.boards() != 1 {
        return Err(err("pieces", "special powers need a single board".into()));
    }
    Ok(special_on)
}

/// The cells each kind may land on, per side (`kind * sides + side`): `pieces.X.files` keeps
/// a kind on some files (Double Cross Pawns), `pieces.X.keep_out` keeps one side's pieces of
/// a kind out of some zones (four-player Double Cross Pawns and the camps next to them);
/// every other kind may go anywhere. Records both on the piece for the rules help.
///
/// # Errors
/// A file name that is not a file of the board, a side that is not one of the variant's, or a
/// zone that is neither a rank name nor a rectangle of cells.
pub(super) fn confinement(
    file: &str,
    specs: &Specs,
    pieces: &mut [PieceType],
    geometry: &Geometry,
    sides: u8,
) -> Result<Vec<CellSet>, SpecError> {
    let n = sides as usize;
    let mut everywhere = CellSet::EMPTY;
    for c in geometry.cells() {
        everywhere.insert(c);
    }
    let mut confined = vec![everywhere; pieces.len() * n];
    for (i, p) in specs.values().enumerate() {
        let k = i + 1;
        if let Some(files) = &p.files {
            let key = format!("pieces.{}.files", pieces[k].letter);
            let mut keep = CellSet::EMPTY;
            for f in files {
                let x = geometry
                    .shape()
                    .file_names
                    .iter()
                    .position(|n| n == f)
                    .ok_or_else(|| {
                        SpecError::new(file, &key, format!("{f:?} is not a file of the board"))
                    })?;
                for c in geometry.cells() {
                    if geometry.info(c).file as usize == x {
                        keep.insert(c);
                    }
                }
            }
            for s in 0..n {
                confined[k * n + s] = keep;
            }
            pieces[k].files = files.clone();
        }
        if let Some(by_side) = &p.keep_out {
            let key = format!("pieces.{}.keep_out", pieces[k].letter);
            pieces[k].keep_out = vec![Vec::new(); n];
            for (side_name, zones) in by_side {
                let side = Side::from_name(side_name, n).ok_or_else(|| {
                    SpecError::new(
                        file,
                        &key,
                        format!(
                            "{side_name:?} is not a side of this variant: use {}",
                            (0..sides)
                                .map(|s| Side(s).name(n).to_ascii_lowercase())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
                for z in zones {
                    let cells = super::promotion::zone(geometry, z).ok_or_else(|| {
                        SpecError::new(
                            file,
                            &key,
                            format!(
                                "{z:?} is neither a rank name nor a rectangle of cells such as \"am:bp\""
                            ),
                        )
                    })?;
                    for c in cells {
                        confined[k * n + side.index()].remove(c);
                    }
                }
                pieces[k].keep_out[side.index()] = zones.clone();
            }
        }
    }
    Ok(confined)
}

/// River rules on pieces (CoBlaChe): promotion on crossing a river, and the enemy kinds
/// whose river section a piece shuns.
///
/// # Errors
/// A river that is not listed in `board.rivers`, crossing choices that are empty, royal or
/// unknown, or `shuns` on a board without rivers.
pub(super) fn river_rules(
    file: &str,
    specs: &Specs,
    pieces: &mut [PieceType],
    geometry: &Geometry,
) -> Result<(), SpecError> {
    let err = |key: &str, problem: String| SpecError::new(file, key, problem);
    let rank_of = |key: &str, n: &str| {
        geometry
            .shape()
            .rank_names
            .iter()
            .position(|r| r == n)
            .map(|y| y as u8)
            .filter(|y| geometry.shape().rivers.contains(y))
            .ok_or_else(|| {
                err(
                    key,
                    format!("{n:?} is not the rank a river runs above (list it in board.rivers)"),
                )
            })
    };
    for (i, p) in specs.values().enumerate() {
        let letter = pieces[i + 1].letter;
        if let Some(c) = &p.crossing {
            let key = format!("pieces.{letter}.crossing");
            let rivers = c
                .rivers
                .iter()
                .map(|n| rank_of(&key, n))
                .collect::<Result<Vec<u8>, SpecError>>()?;
            let choices = kinds_of(file, pieces, &key, &c.choices)?;
            if choices.is_empty() || choices.iter().any(|k| pieces[k.index()].royal) {
                return Err(err(&key, "list the non-royal kinds it may become".into()));
            }
            pieces[i + 1].crossing = Some(Crossing {
                rivers,
                choices,
                optional: c.optional,
                captured_only: c.captured_only,
            });
        }
        if let Some(list) = &p.shuns {
            let key = format!("pieces.{letter}.shuns");
            if geometry.shape().rivers.is_empty() {
                return Err(err(&key, "sections need board.rivers".into()));
            }
            for k in kinds_of(file, pieces, &key, list)? {
                pieces[i + 1].shuns |= 1 << k.0;
            }
        }
    }
    Ok(())
}
