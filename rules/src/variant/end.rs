//! How a game ends besides checkmate and stalemate: `[draws]` and `[victory]`.

use super::{Draws, PieceType, pieces::kinds_of};
use crate::{
    spec::{DrawSpec, InsufficientMaterial, SpecError, VictorySpec},
    types::Kind,
};

/// The draw rules; every key has a default (50 moves on, threefold repetition, no material
/// rule), so this cannot fail: an unknown material rule was refused when the file was read.
pub(super) fn draws(spec: Option<&DrawSpec>) -> Draws {
    let spec = spec.cloned().unwrap_or_default();
    Draws {
        fifty_moves: spec.fifty_moves.unwrap_or(true),
        repetitions: spec.repetitions.unwrap_or(3),
        fide_insufficient_material: spec.insufficient_material.unwrap_or_default()
            == InsufficientMaterial::Fide,
    }
}

/// The kinds a side must capture one of each to win (CoBlaChe); empty: no such victory.
///
/// # Errors
/// A letter that names no piece of the variant.
pub(super) fn capture_goal(
    file: &str,
    spec: Option<&VictorySpec>,
    pieces: &[PieceType],
) -> Result<Vec<Kind>, SpecError> {
    match spec.and_then(|v| v.capture_one_of_each.as_ref()) {
        Some(list) => kinds_of(file, pieces, "victory.capture_one_of_each", list),
        None => Ok(Vec::new()),
    }
}
