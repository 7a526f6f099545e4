//! Seats in games of more than two players: who is still in, who plays next, who must agree
//! to an offer, and how seats are dealt. The rules engine says who is out and whose turn it
//! is; this module turns that into seat indices for the service, in one place, so that no
//! command counts plies modulo the number of seats (a player who is out, or resigns out of
//! turn, breaks that arithmetic).

use rules::Position;

use crate::{chance::Chance, model::PlayerId};

/// Plays the passes of the players who have no move, for them, until a player who can
/// move is to move (or the game is over): in a game of more than two players a player with
/// no legal move, not in check, passes (rulebook 4.6), and that is nobody's decision. Returns
/// the sides that passed, in order; the position has played their passes.
pub(crate) fn auto_passes(pos: &mut Position) -> Vec<rules::Side> {
    let mut passed = Vec::new();
    while is_multi(pos) && pos.outcome().is_none() && passed.len() < 8 {
        let legal = pos.legal_moves();
        match legal.as_slice() {
            [only] if only.kind == rules::MoveKind::Pass => {
                passed.push(pos.turn());
                pos.play_unchecked(*only);
            }
            _ => break,
        }
    }
    passed
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
    fn who_must_agree_to_what() {
        use crate::model::OfferKind::{Draw, Takeback};
        let catalog = rules::Catalog::builtin();
        let chess = Position::start(&catalog.get("chess").unwrap());
        assert_eq!(must_agree(&chess, 2, Draw, 0), vec![1]);
        assert_eq!(must_agree(&chess, 2, Takeback, 1), vec![0]);
        let mut four = Position::start(&catalog.get("dcb-balanced-4p").unwrap());
        assert_eq!(must_agree(&four, 4, Draw, 0), vec![1, 2, 3]);
        // Green resigns: a draw is for the three still in, a takeback for all four.
        let resign = four.resignation(rules::Side(3)).unwrap();
        four.play(resign).unwrap();
        assert_eq!(remaining_seats(&four), vec![0, 1, 2]);
        assert_eq!(must_agree(&four, 4, Draw, 1), vec![0, 2]);
        assert_eq!(must_agree(&four, 4, Takeback, 1), vec![0, 2, 3]);
        // Nobody is stuck at the start: no pass is played.
        assert!(auto_passes(&mut four).is_empty());
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
