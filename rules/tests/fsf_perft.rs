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
use common::PerftTally;

use std::{fs, path::Path};

use rules::{Catalog, fen};

struct Case {
    file: String,
    variant: String,
    id: String,
    epd: String,
    depths: Vec<(u32, u64)>,
}

fn load() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fsf");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    files.sort();
    let mut cases: Vec<Case> = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let mut variant = String::new();
        for (n, line) in fs::read_to_string(&path).unwrap().lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            let at = || format!("{file}:{}", n + 1);
            match key {
                "variant" => variant = rest.trim().to_string(),
                "id" => cases.push(Case {
                    file: file.clone(),
                    variant: variant.clone(),
                    id: rest.trim().to_string(),
                    epd: String::new(),
                    depths: Vec::new(),
                }),
                "epd" => cases.last_mut().unwrap().epd = rest.trim().to_string(),
                "perft" => {
                    let mut it = rest.split_whitespace();
                    let d = it.next().and_then(|d| d.parse().ok());
                    let nodes = it.next().and_then(|n| n.parse().ok());
                    let (Some(d), Some(nodes)) = (d, nodes) else {
                        panic!("{}: `perft DEPTH NODES` expected", at());
                    };
                    cases.last_mut().unwrap().depths.push((d, nodes));
                }
                other => panic!("{}: unknown key {other:?}", at()),
            }
        }
    }
    cases
}

/// Every variant Fairy-Stockfish can express has its file, with the start position and
/// positions reached by play, each checked at depth 2 at least.
#[test]
fn every_expressible_variant_is_recorded_from_the_start_and_from_play() {
    let cases = load();
    for variant in ["chess", "chess960", "capablanca", "grand", "courier"] {
        let mine: Vec<&Case> = cases.iter().filter(|c| c.variant == variant).collect();
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
    for case in load() {
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
