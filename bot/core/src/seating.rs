//! Seats in games of more than two players: who is still in, who plays next, who must agree
//! to an offer, and how seats are dealt. The rules engine says who is out and whose turn it
//! is; this module turns that into seat indices for the service, in one place, so that no
//! command counts plies modulo the number of seats (a player who is out, or resigns out of
//! turn, breaks that arithmetic).

use rules::{Position, Side};

use crate::{chance::Chance, model::PlayerId};

/// Bridge to the engine's N-side API (issue 14) until it lands on this branch: the same names
/// as `Position`'s inherent methods, which take precedence once they exist, so this trait
/// and its two-player defaults can then simply be deleted.
pub(crate) trait EngineSeats {
    /// Whether `side` is out of the game (checkmated or resigned).
    fn is_out(&self, side: Side) -> bool;
    /// The sides still playing, in turn order.
    fn remaining(&self) -> Vec<Side>;
    /// The sides checkmated and removed by the last move played.
    fn eliminated_by_last_move(&self) -> Vec<Side>;
    /// The move by which `side` resigns, in a game of more than two sides.
    fn resignation(&self, side: Side) -> Option<rules::Move>;
}

impl EngineSeats for Position {
    fn is_out(&self, _side: Side) -> bool {
        false
    }

    fn remaining(&self) -> Vec<Side> {
        self.variant().all_sides().collect()
    }

    fn eliminated_by_last_move(&self) -> Vec<Side> {
        Vec::new()
    }

    fn resignation(&self, _side: Side) -> Option<rules::Move> {
        None
    }
}

/// Whether a position's game has more than two seats (the rules of agreement differ).
pub(crate) fn is_multi(pos: &Position) -> bool {
    pos.variant().sides > 2
}

/// The seats still in the game, in turn order.
pub(crate) fn remaining_seats(pos: &Position) -> Vec<u8> {
    pos.remaining().into_iter().map(|s| s.0).collect()
}

/// The seats whose agreement an offer by `by` needs besides his own: in a two-player game the
/// opponent; with more players, for a draw every other remaining player, for a takeback every
/// other player (a takeback can bring back a player who is out, so he has a say).
pub(crate) fn must_agree(
    pos: &Position,
    seats: usize,
    kind: crate::model::OfferKind,
    by: u8,
) -> Vec<u8> {
    let all = (0..seats).filter_map(|s| u8::try_from(s).ok());
    match kind {
        crate::model::OfferKind::Draw if is_multi(pos) => remaining_seats(pos)
            .into_iter()
            .filter(|&s| s != by)
            .collect(),
        _ => all.filter(|&s| s != by).collect(),
    }
}

/// The seats of a new game: the challenger, then the invitees in the order named, or the
/// same players shuffled (Fisher-Yates from `chance`) when the challenge asked for `random`.
pub fn deal(
    challenger: &PlayerId,
    invitees: &[PlayerId],
    shuffle: bool,
    chance: &dyn Chance,
) -> Vec<PlayerId> {
    let mut seats: Vec<PlayerId> = std::iter::once(challenger.clone())
        .chain(invitees.iter().cloned())
        .collect();
    if shuffle {
        for i in (1..seats.len()).rev() {
            let j = chance.below(u32::try_from(i + 1).unwrap_or(u32::MAX)) as usize;
            seats.swap(i, j.min(i));
        }
    }
    seats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SeededChance, model::Platform};

    fn p(name: &str) -> PlayerId {
        PlayerId::new(Platform::Console, name)
    }

    #[test]
    fn seats_follow_the_order_named_unless_shuffled() {
        let chance = SeededChance::new(7);
        let named = [p("b"), p("c"), p("d")];
        assert_eq!(
            deal(&p("a"), &named, false, &chance),
            vec![p("a"), p("b"), p("c"), p("d")]
        );
        // Shuffled: always the same four, and over a few deals every seat is reached by the
        // challenger (the shuffle really moves him).
        let mut challenger_seats = std::collections::BTreeSet::new();
        for _ in 0..64 {
            let seats = deal(&p("a"), &named, true, &chance);
            let mut sorted = seats.clone();
            sorted.sort();
            assert_eq!(sorted, vec![p("a"), p("b"), p("c"), p("d")]);
            challenger_seats.insert(seats.iter().position(|s| *s == p("a")));
        }
        assert_eq!(challenger_seats.len(), 4);
    }
}
