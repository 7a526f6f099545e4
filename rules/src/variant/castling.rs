//! `[castling]`: the style (typed by [`CastlingStyle`] when the file is read) and the keys
//! that style needs, with file names resolved to the board's file indices.

use super::{CastleEntry, CastlingRule, PieceType};
use crate::{
    geometry::Geometry,
    spec::{CastlingSpec, CastlingStyle, SpecError},
};

/// The castling rule.
///
/// # Errors
/// A key the chosen style needs that is missing, a file name that is not a file of the
/// board, a table row whose wing is neither `kingside` nor `queenside`, or castling in a
/// variant with no partner (`castles = true`) or no royal piece.
pub(super) fn castling(
    file: &str,
    spec: Option<&CastlingSpec>,
    geometry: &Geometry,
    pieces: &[PieceType],
) -> Result<CastlingRule, SpecError> {
    let rule = match spec {
        None => CastlingRule::None,
        Some(c) => match c.style.unwrap_or_default() {
            CastlingStyle::None => CastlingRule::None,
            CastlingStyle::Fixed => fixed(file, c, geometry)?,
            CastlingStyle::Slide => CastlingRule::Slide {
                steps: c.steps.filter(|s| *s >= 1).ok_or_else(|| {
                    SpecError::new(
                        file,
                        "castling.steps",
                        "missing; `slide` castling needs steps >= 1",
                    )
                })?,
            },
            CastlingStyle::Table => table(file, c, geometry)?,
        },
    };
    if rule != CastlingRule::None {
        if !pieces.iter().any(|p| p.castles) {
            return Err(SpecError::new(
                file,
                "castling",
                "no piece has `castles = true`, so nothing can castle",
            ));
        }
        if !pieces.iter().any(|p| p.royal) {
            return Err(SpecError::new(
                file,
                "castling",
                "castling needs a royal piece",
            ));
        }
    }
    Ok(rule)
}

/// A castling key's file name, as the board's file index.
fn file_index(file: &str, geometry: &Geometry, key: &str, name: &str) -> Result<u8, SpecError> {
    geometry
        .shape()
        .file_names
        .iter()
        .position(|x| x == name)
        .map(|i| i as u8)
        .ok_or_else(|| SpecError::new(file, key, format!("{name:?} is not a file of the board")))
}

/// `fixed`: `king_files` and `partner_files`, kingside then queenside.
fn fixed(file: &str, c: &CastlingSpec, geometry: &Geometry) -> Result<CastlingRule, SpecError> {
    let file_of = |key: &str, f: &Option<[String; 2]>| -> Result<[u8; 2], SpecError> {
        let f = f.as_ref().ok_or_else(|| {
            SpecError::new(
                file,
                key,
                "missing; `fixed` castling needs [kingside, queenside] files",
            )
        })?;
        Ok([
            file_index(file, geometry, key, &f[0])?,
            file_index(file, geometry, key, &f[1])?,
        ])
    };
    Ok(CastlingRule::Fixed {
        king_files: file_of("castling.king_files", &c.king_files)?,
        partner_files: file_of("castling.partner_files", &c.partner_files)?,
    })
}

/// `table`: every listed castling.
fn table(file: &str, c: &CastlingSpec, geometry: &Geometry) -> Result<CastlingRule, SpecError> {
    const KEY: &str = "castling.table";
    let rows = c.table.as_ref().filter(|t| !t.is_empty()).ok_or_else(|| {
        SpecError::new(
            file,
            KEY,
            "missing; `table` castling lists [partner file, \"kingside\" or \"queenside\", King's file, partner's file] rows",
        )
    })?;
    let index = |n: &str| file_index(file, geometry, KEY, n);
    let mut entries = Vec::new();
    for [p, wing, k, t] in rows {
        let kingside = match wing.as_str() {
            "kingside" => true,
            "queenside" => false,
            other => {
                return Err(SpecError::new(
                    file,
                    KEY,
                    format!("{other:?}: write \"kingside\" or \"queenside\""),
                ));
            }
        };
        entries.push(CastleEntry {
            partner_file: index(p)?,
            kingside,
            king_to: index(k)?,
            partner_to: index(t)?,
        });
    }
    Ok(CastlingRule::Table(entries))
}
