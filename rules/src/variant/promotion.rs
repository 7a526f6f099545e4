//! `[promotion]`: what pawn-like pieces may become and where, as per-side cell sets (the
//! generator asks "is this cell in the zone", never "which rank is this").

use super::{PieceType, Promotion, pieces::Specs, pieces::letter_kind};
use crate::{
    geometry::Geometry,
    spec::{PromotionSpec, SpecError},
    types::{Cell, CellSet, Side},
};

/// The promotion rule.
///
/// # Errors
/// A choice that names no piece or a royal one, a rank outside the board, a `by_side` side
/// or zone that does not exist, or pawn-like pieces (without a crossing rule) and no choices.
pub(super) fn promotion(
    file: &str,
    spec: Option<&PromotionSpec>,
    specs: &Specs,
    geometry: &Geometry,
    pieces: &[PieceType],
    sides: u8,
) -> Result<Promotion, SpecError> {
    let err = |key: &str, problem: String| SpecError::new(file, key, problem);
    let h = geometry.shape().height;
    let mut promotion = Promotion {
        compulsory: vec![CellSet::EMPTY; sides as usize],
        optional: vec![CellSet::EMPTY; sides as usize],
        ..Promotion::default()
    };
    if let Some(p) = spec {
        for l in p.choices.as_deref().unwrap_or(&[]) {
            let k = letter_kind(pieces, l).ok_or_else(|| {
                err(
                    "promotion.choices",
                    format!("{l:?} is not a piece of this variant"),
                )
            })?;
            if pieces[k.index()].royal {
                return Err(err(
                    "promotion.choices",
                    format!("{l:?} is royal; a pawn cannot promote to it"),
                ));
            }
            promotion.choices.push(k);
        }
        promotion.limit_to_start_counts = p.limit_to_start_counts.unwrap_or(false);
        for (key, ranks, sets) in [
            ("promotion.ranks", &p.ranks, &mut promotion.compulsory),
            (
                "promotion.optional_ranks",
                &p.optional_ranks,
                &mut promotion.optional,
            ),
        ] {
            for r in ranks.as_deref().unwrap_or(&[]) {
                if *r == 0 || *r > h {
                    return Err(err(key, format!("rank {r} is not between 1 and {h}")));
                }
                // Ranks count from each side's own first rank: the second side's are mirrored.
                for cell in geometry.cells() {
                    let rank = geometry.info(cell).rank;
                    if rank + 1 == *r {
                        sets[0].insert(cell);
                    }
                    if h - rank == *r {
                        sets[1].insert(cell);
                    }
                }
            }
        }
    }
    if let Some(by_side) = spec.and_then(|p| p.by_side.as_ref()) {
        for (side_name, ranks) in by_side {
            let side = (0..sides)
                .find(|s| {
                    Side(*s)
                        .name(sides as usize)
                        .eq_ignore_ascii_case(side_name)
                })
                .ok_or_else(|| {
                    err(
                        "promotion.by_side",
                        format!("{side_name:?} is not a side of this variant: use white or black"),
                    )
                })?;
            for r in ranks {
                let zone = zone(geometry, r).ok_or_else(|| {
                    err(
                        "promotion.by_side",
                        format!(
                            "{r:?} is neither a rank name nor a rectangle of cells such as \"k3:n6\""
                        ),
                    )
                })?;
                for cell in zone {
                    promotion.compulsory[side as usize].insert(cell);
                }
            }
        }
    }
    if specs.values().any(|p| p.pawn && p.crossing.is_none()) && promotion.choices.is_empty() {
        return Err(err(
            "promotion.choices",
            "missing; pawn-like pieces need promotion choices".into(),
        ));
    }
    Ok(promotion)
}

/// The cells of a promotion zone entry: a whole rank by name (`"8"`, `"s"`), or a rectangle
/// between two cells of one board (`"k3:n6"`, Quadruple Besiege's enemy piece block).
pub(super) fn zone(g: &Geometry, entry: &str) -> Option<Vec<Cell>> {
    if let Some((a, b)) = entry.split_once(':') {
        let (a, b) = (g.info(g.parse(a)?), g.info(g.parse(b)?));
        if a.board != b.board {
            return None;
        }
        let (xs, ys) = (
            a.file.min(b.file)..=a.file.max(b.file),
            a.rank.min(b.rank)..=a.rank.max(b.rank),
        );
        return Some(
            g.cells()
                .filter(|c| {
                    let i = g.info(*c);
                    i.board == a.board && xs.contains(&i.file) && ys.contains(&i.rank)
                })
                .collect(),
        );
    }
    let y = g.shape().rank_names.iter().position(|n| n == entry)?;
    Some(
        g.cells()
            .filter(|c| g.info(*c).rank as usize == y)
            .collect(),
    )
}
