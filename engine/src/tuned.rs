//! Tuned weights as data: one small TOML file per variant, written by `engine-tune` (see
//! [`crate::tune`]) and read back here.
//!
//! ```toml
//! variant = "toulousain"
//! cells = 144
//! kinds = "PNBRQKF…"        # every kind's letter, in the variant's order
//! [values]                  # centipawns with the board full; royal kinds have none
//! N = 318
//! [endgame]                 # centipawns with no piece but pawns and royals left
//! N = 287                   # (a kind not listed: its [values] value)
//! [scales]                  # each positional term family's factor (1: as derived)
//! central = 1.21
//! [central]                 # each kind's factor on the `central` scale (1 if not listed)
//! N = 1.6
//! ```
//!
//! Files written before `[endgame]` and `[central]` existed read as they always did: the
//! same value early and late, the same centralisation for every kind.
//!
//! A file fits a variant only if the name, the number of cells and the kinds' letters are
//! the variant's: a player's variant that happens to share a name is never evaluated with
//! another game's weights. Files for built-in variants live in `engine/tuned/` and are
//! compiled in ([`builtin`]); any other file is read with [`parse`].

use std::fmt::Write as _;

use rules::Variant;

use crate::eval::{TERMS, Term, Weights};

/// The tuned files compiled in, by variant name.
/// Each landed with an SPRT against the derived evaluation (`engine/tuned/README.md`).
const BUILTIN: &[(&str, &str)] = &[
    ("bilateral", include_str!("../tuned/bilateral.toml")),
    ("chess", include_str!("../tuned/chess.toml")),
    ("toulousain", include_str!("../tuned/toulousain.toml")),
];

/// Why a tuned file does not apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TunedError {
    /// Not TOML.
    #[error("the tuned file is not TOML: {0}")]
    Toml(String),
    /// A key is missing or of the wrong type.
    #[error("the tuned file has no valid `{0}`")]
    Missing(&'static str),
    /// Written for another variant.
    #[error(
        "the tuned file is for {file}, not for {variant} (name, cells and kinds must all match)"
    )]
    OtherVariant {
        /// What the file says.
        file: String,
        /// The variant it was applied to.
        variant: String,
    },
    /// A value or scale out of range.
    #[error(
        "the tuned file's {0} is out of range (values 0 to 100000 centipawns, scales and factors 0 to 8)"
    )]
    OutOfRange(String),
}

/// The letters of a variant's kinds, in order: what a file must name to fit it.
fn letters(v: &Variant) -> String {
    v.pieces.iter().map(|p| p.letter).collect()
}

/// The weights compiled in for `v`, if any fit it.
pub fn builtin(v: &Variant) -> Option<Weights> {
    BUILTIN
        .iter()
        .find(|(name, _)| *name == v.name)
        .and_then(|(_, text)| parse(v, text).ok())
}

/// Reads a tuned file for `v`. Kinds the file gives no value keep their prior value; terms it
/// gives no scale keep 1.
///
/// # Errors
/// [`TunedError`] when the file is not for `v` or says something out of range.
pub fn parse(v: &Variant, text: &str) -> Result<Weights, TunedError> {
    let t: toml::Table = text.parse().map_err(|e| TunedError::Toml(format!("{e}")))?;
    let name = t
        .get("variant")
        .and_then(|x| x.as_str())
        .ok_or(TunedError::Missing("variant"))?;
    let cells = t
        .get("cells")
        .and_then(|x| x.as_integer())
        .ok_or(TunedError::Missing("cells"))?;
    let kinds = t
        .get("kinds")
        .and_then(|x| x.as_str())
        .ok_or(TunedError::Missing("kinds"))?;
    if name != v.name || cells != v.geometry.len() as i64 || kinds != letters(v) {
        return Err(TunedError::OtherVariant {
            file: format!("{name} ({cells} cells, kinds {kinds})"),
            variant: format!(
                "{} ({} cells, kinds {})",
                v.name,
                v.geometry.len(),
                letters(v)
            ),
        });
    }
    let mut w = Weights::prior(v);
    let letter = |kind: usize| v.pieces[kind].letter;
    for (kind, x) in kind_table(v, &t, "values")? {
        w.value[kind] = centipawns(x, || format!("value of {}", letter(kind)))?;
    }
    // An endgame value not given is the value given.
    w.endgame = w.value.clone();
    for (kind, x) in kind_table(v, &t, "endgame")? {
        w.endgame[kind] = centipawns(x, || format!("endgame value of {}", letter(kind)))?;
    }
    if let Some(scales) = t.get("scales") {
        let scales = scales.as_table().ok_or(TunedError::Missing("scales"))?;
        for (name, x) in scales {
            let term =
                Term::named(name).ok_or_else(|| TunedError::OutOfRange(format!("scale {name}")))?;
            w.scale[term as usize] = factor(x, || format!("scale {name}"))?;
        }
    }
    for (kind, x) in kind_table(v, &t, "central")? {
        w.central[kind] = factor(x, || format!("central factor of {}", letter(kind)))?;
    }
    Ok(w)
}

/// The entries of the table `name` (absent: none), by the index of the non-royal kind each
/// key names.
fn kind_table<'t>(
    v: &Variant,
    t: &'t toml::Table,
    name: &'static str,
) -> Result<Vec<(usize, &'t toml::Value)>, TunedError> {
    let Some(table) = t.get(name) else {
        return Ok(Vec::new());
    };
    let table = table.as_table().ok_or(TunedError::Missing(name))?;
    table
        .iter()
        .map(|(letter, x)| {
            v.pieces
                .iter()
                .position(|p| p.letter.to_string() == *letter && !p.royal)
                .map(|kind| (kind, x))
                .ok_or_else(|| TunedError::OutOfRange(format!("{name} of {letter}")))
        })
        .collect()
}

/// A value in centipawns, 0 to 100,000; `what` names it in the error.
fn centipawns(x: &toml::Value, what: impl Fn() -> String) -> Result<i32, TunedError> {
    let x = x
        .as_integer()
        .ok_or_else(|| TunedError::OutOfRange(what()))?;
    if !(0..=100_000).contains(&x) {
        return Err(TunedError::OutOfRange(what()));
    }
    Ok(x as i32)
}

/// A scale or factor, 0 to 8 (an integer is taken as a float); `what` names it in the error.
fn factor(x: &toml::Value, what: impl Fn() -> String) -> Result<f32, TunedError> {
    let x = x
        .as_float()
        .or_else(|| x.as_integer().map(|i| i as f64))
        .ok_or_else(|| TunedError::OutOfRange(what()))?;
    if !(0.0..=8.0).contains(&x) {
        return Err(TunedError::OutOfRange(what()));
    }
    Ok(x as f32)
}

/// `w` as a tuned file for `v`, with `note` (how it was made) as comment lines at the top.
pub fn write(v: &Variant, w: &Weights, note: &str) -> String {
    let mut o = String::new();
    for line in note.lines() {
        let _ = writeln!(o, "# {line}");
    }
    let _ = writeln!(o, "variant = \"{}\"", v.name);
    let _ = writeln!(o, "cells = {}", v.geometry.len());
    let _ = writeln!(o, "kinds = \"{}\"", letters(v));
    o.push_str("\n[values]\n");
    for (i, p) in v.pieces.iter().enumerate() {
        if !p.royal {
            let _ = writeln!(o, "{} = {}", toml_key(p.letter), w.value[i]);
        }
    }
    o.push_str("\n[endgame]\n");
    for (i, p) in v.pieces.iter().enumerate() {
        if !p.royal {
            let _ = writeln!(o, "{} = {}", toml_key(p.letter), w.endgame[i]);
        }
    }
    o.push_str("\n[scales]\n");
    for t in Term::ALL {
        let _ = writeln!(o, "{} = {:.3}", t.name(), w.scale[t as usize]);
    }
    debug_assert_eq!(Term::ALL.len(), TERMS);
    o.push_str("\n[central]\n");
    for (i, p) in v.pieces.iter().enumerate() {
        if !p.royal {
            let _ = writeln!(o, "{} = {:.3}", toml_key(p.letter), w.central[i]);
        }
    }
    o
}

/// A piece letter as a TOML key (quoted unless a bare key may be that letter).
fn toml_key(c: char) -> String {
    if c.is_ascii_alphanumeric() {
        c.to_string()
    } else {
        format!("\"{c}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_reads_back_and_fits_only_its_variant() {
        let catalog = rules::Catalog::builtin();
        let chess = catalog.get("chess").unwrap();
        let mut w = Weights::prior(&chess);
        w.value[1] += 17;
        w.endgame[1] -= 23;
        w.scale[Term::Passed as usize] = 1.5;
        w.central[1] = 2.25;
        let text = write(&chess, &w, "a test\nof two lines");
        assert!(text.starts_with("# a test\n# of two lines\n"), "{text}");
        assert_eq!(parse(&chess, &text), Ok(w));
        let capa = catalog.get("capablanca").unwrap();
        assert!(matches!(
            parse(&capa, &text),
            Err(TunedError::OtherVariant { .. })
        ));
        let bad = text.replace("passed = 1.500", "passed = 9.0");
        assert_eq!(
            parse(&chess, &bad),
            Err(TunedError::OutOfRange("scale passed".into()))
        );
        assert!(matches!(
            parse(&chess, "variant = "),
            Err(TunedError::Toml(_))
        ));
        let bad = text.replace("B = 2.250", "B = -1");
        assert_eq!(
            parse(&chess, &bad),
            Err(TunedError::OutOfRange("central factor of B".into()))
        );
        let bad = text.replace("[endgame]\n", "[endgame]\nK = 5\n");
        assert_eq!(
            parse(&chess, &bad),
            Err(TunedError::OutOfRange("endgame of K".into())),
            "a royal kind has no value"
        );
    }

    /// A file of the first format (values and scales only) reads as it always did: each
    /// value early and late alike, every kind's centralisation the family's.
    #[test]
    fn a_file_without_endgame_or_central_tables_keeps_its_meaning() {
        let chess = rules::Catalog::builtin().get("chess").unwrap();
        let text = "variant = \"chess\"\ncells = 64\nkinds = \"?BKNPQR\"\n\
                    [values]\nN = 350\n[scales]\ncentral = 0.5\n";
        let w = parse(&chess, text).unwrap();
        let knight = chess.pieces.iter().position(|p| p.letter == 'N').unwrap();
        assert_eq!((w.value[knight], w.endgame[knight]), (350, 350));
        assert!(w.central.iter().all(|f| *f == 1.0));
        assert_eq!(w.scale[Term::Central as usize], 0.5);
    }

    /// [`builtin`] drops a file that does not parse, so that a variant's evaluation never
    /// fails: this is where such a file is caught instead, and where a compiled-in file is
    /// seen to change the evaluation it is for and no other.
    #[test]
    fn every_compiled_in_file_fits_its_variant_and_changes_its_evaluation() {
        let catalog = rules::Catalog::builtin();
        for (name, text) in BUILTIN {
            let v = catalog.get(name).unwrap();
            let w = parse(&v, text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_ne!(w, Weights::prior(&v), "{name}: the derived weights");
            assert_eq!(builtin(&v), Some(w), "{name}");
        }
        for v in catalog.names().iter().filter_map(|n| catalog.get(n).ok()) {
            if !BUILTIN.iter().any(|(name, _)| *name == v.name) {
                assert_eq!(builtin(&v), None, "{}", v.name);
            }
        }
    }
}
