//! How a game ends besides checkmate and stalemate: `[draws]` and `[victory]`.

use super::{Draws, EndRules, PieceType, pieces::kinds_of};
use crate::{
    spec::{BareKingRule, DrawSpec, InsufficientMaterial, SpecError, StalemateRule, VictorySpec},
    types::Kind,
};

/// The draw rules; every key has a default (50 moves on, threefold repetition, the material
/// rule derived from the pieces), so this cannot fail: an unknown material rule was refused
/// when the file was read.
pub(super) fn draws(spec: Option<&DrawSpec>) -> Draws {
    let spec = spec.cloned().unwrap_or_default();
    Draws {
        fifty_moves: spec.fifty_moves.unwrap_or(true),
        repetitions: spec.repetitions.unwrap_or(3),
        insufficient_material: spec.insufficient_material.unwrap_or_default()
            != InsufficientMaterial::None,
    }
}

/// How stalemate and a bare King end the game (`[victory]`); both default to the orthodox
/// reading (stalemate draws, a bare King plays on).
pub(super) fn end_rules(spec: Option<&VictorySpec>) -> EndRules {
    EndRules {
        stalemate_loses: spec.and_then(|v| v.stalemate).unwrap_or_default() == StalemateRule::Loss,
        bare_king: spec.and_then(|v| v.bare_king).unwrap_or_default() == BareKingRule::Loses,
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
