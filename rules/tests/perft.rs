//! Data-driven perft: every `tests/data/*.perft` file (`variant`, then `id` / `epd` /
//! `perft DEPTH NODES` blocks; sources in each file's header).
//!
//! A node limit keeps CI fast: depths whose expected count exceeds `PERFT_LIMIT` (default
//! 10,000,000) are skipped and reported. `PERFT_LIMIT=0` runs every depth (the long mode).

mod common;
use common::{PerftCase, PerftTally, perft_cases};

use rules::{Catalog, fen};

#[test]
fn perft_tables() {
    let limit: u64 = std::env::var("PERFT_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let catalog = Catalog::builtin();
    let cases = perft_cases("data");
    assert!(cases.len() >= 10, "the perft tables went missing");
    let mut tally = PerftTally::new(limit);
    for case in &cases {
        let variant = catalog.get(&case.variant).unwrap();
        let mut pos = fen::position(&variant, &case.epd)
            .unwrap_or_else(|e| panic!("{} {}: {e}", case.file, case.id));
        assert!(
            !case.depths.is_empty(),
            "{} {} has no perft lines",
            case.file,
            case.id
        );
        for &(depth, expected) in &case.depths {
            tally.check(&mut pos, depth, expected, |got| {
                format!(
                    "{} {} depth {depth}: expected {expected}, got {got}",
                    case.file, case.id
                )
            });
        }
    }
    tally.finish("perft");
}

/// The Courier endgames recorded from Fairy-Stockfish by `scripts/fsf-perft` (their counts
/// are checked by [`perft_tables`] with the other files): they must stay positions where its
/// bare-King rule cannot cut its move lists within the depth, three or more pieces besides the
/// King on each side, so that its counts are pure move generation like ours.
#[test]
fn courier_endgames_from_fairy_stockfish_are_where_the_rules_agree() {
    let catalog = Catalog::builtin();
    let courier = catalog.get("courier").unwrap();
    let cases: Vec<PerftCase> = perft_cases("data")
        .into_iter()
        .filter(|c| c.file == "courier-endgames.perft")
        .collect();
    assert!(cases.len() >= 8, "courier-endgames.perft went missing");
    for case in &cases {
        assert_eq!(case.variant, "courier");
        let pos = fen::position(&courier, &case.epd).unwrap();
        let deepest = case.depths.iter().map(|d| d.0).max().unwrap();
        assert!(deepest <= 4, "{}: depth {deepest}", case.id);
        for side in courier.all_sides() {
            let pieces: u32 = courier
                .kinds()
                .filter(|k| !courier.piece(*k).royal)
                .map(|k| u32::from(pos.count(side, k)))
                .sum();
            // At most two of them can be taken in four plies.
            assert!(pieces >= 3, "{}: {side:?} has {pieces} pieces", case.id);
        }
    }
}
