//! Chess960 games in the service. The start position is the challenger's number or drawn from
//! the service's [`Chance`] when the challenge is accepted; the game keeps it twice: as its
//! start state (which replays the game) and as `position=N` in its options (which names it).
//! A game stored before numbers were kept has no option: it started from the variant's own
//! start, position 518, and its start state still says so.

use std::sync::Arc;

use rules::{Position, Variant};

use super::{Failure, ServiceError};
use crate::{chance::Chance, model::ChallengeRecord, options::GameOptions};

/// The variant whose games start from a numbered back rank.
pub(crate) const VARIANT: &str = "chess960";

/// The start position written in the variant file: the usual chess array.
pub(crate) const ORTHODOX: u16 = 518;

/// The start of a new game of `v` from challenge `c`: for Chess960, the challenger's number or
/// one drawn now, written into the options the game will keep, and the name to announce
/// ("Chess960 position 123"); for other variants their own start.
pub(super) fn start(
    v: &Arc<Variant>,
    c: ChallengeRecord,
    options: GameOptions,
    chance: &dyn Chance,
) -> Result<(Position, ChallengeRecord, Option<String>), Failure> {
    if v.name != VARIANT {
        return Ok((Position::start(v), c, None));
    }
    let mut c = c;
    let n = match options.position {
        Some(n) => n,
        None => {
            let n = chance.below(960) as u16;
            c.options = GameOptions {
                position: Some(n),
                ..options
            }
            .to_string();
            n
        }
    };
    let bad = || ServiceError::Chess960 {
        challenge: c.id,
        number: n,
    };
    let fen = rules::chess960::start_fen(n).ok_or_else(bad)?;
    let pos = rules::fen::position(v, &fen).map_err(|_| bad())?;
    Ok((pos, c, Some(format!("{} position {n}", v.display_name))))
}
