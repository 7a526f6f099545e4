//! Our perft against Fairy-Stockfish's, recorded as data by `scripts/fsf-perft-played` (issue
//! 28): every built-in variant Fairy-Stockfish can express (chess, chess960, capablanca, grand,
//! courier), from the start and from positions reached by pseudo-random play. The test reads
//! `tests/data/fsf/*.perft` only (same format as the other perft files) and never runs
//! Fairy-Stockfish.
//!
//! Counts above `FSF_PERFT_LIMIT` nodes (default 2,000,000: every count the script records
//! by default, under a second since `rules` is optimised in test builds) are skipped and
//! reported; `FSF_PERFT_LIMIT=0` checks every recorded depth.

mod common;
use common::{PerftCase, PerftTally, perft_cases};

use rules::{Catalog, fen};

/// Every variant Fairy-Stockfish can express has its file, with the start position and
/// positions reached by play, each checked at depth 2 at least.
#[test]
fn every_expressible_variant_is_recorded_from_the_start_and_from_play() {
    let cases = perft_cases("data/fsf");
    for variant in ["chess", "chess960", "capablanca", "grand", "courier"] {
        let mine: Vec<&PerftCase> = cases.iter().filter(|c| c.variant == variant).collect();
        assert!(
            mine.iter().all(|c| c.file == format!("{variant}.perft")),
            "{variant}: cases outside its own file"
        );
        let played = mine.iter().filter(|c| c.id.contains("walk")).count();
        assert!(
            played >= 6,
            "{variant}: {played} positions reached by play, want 6 or more"
        );
        for c in &mine {
            assert!(
                c.depths.iter().any(|&(d, _)| d >= 2),
                "{variant} {}: recorded below depth 2 only",
                c.id
            );
        }
    }
}

#[test]
fn our_perft_equals_fairy_stockfish_on_starts_and_played_positions() {
    let limit: u64 = std::env::var("FSF_PERFT_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let catalog = Catalog::builtin();
    let mut tally = PerftTally::new(limit);
    for case in perft_cases("data/fsf") {
        let variant = catalog.get(&case.variant).unwrap();
        let mut pos = fen::position(&variant, &case.epd)
            .unwrap_or_else(|e| panic!("{} {}: {e}", case.file, case.id));
        for &(depth, expected) in &case.depths {
            tally.check(&mut pos, depth, expected, |got| {
                format!(
                    "{} {} depth {depth}: Fairy-Stockfish {expected}, ours {got}",
                    case.file, case.id
                )
            });
        }
    }
    assert!(tally.run >= 100, "only {} counts checked", tally.run);
    tally.finish("fsf perft");
}
