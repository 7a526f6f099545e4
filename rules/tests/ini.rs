//! The `variants.ini` importer against Fairy-Stockfish itself: every section of
//! `tests/data/ini/variants.ini` (twenty published variants, written from their facts) must
//! import and resolve, and its perft must equal the counts Fairy-Stockfish gave for the same
//! section (`tests/data/ini/perft.data`, written by `scripts/fsf-ini-perft`; the tests read only
//! that file and never run Fairy-Stockfish). Two references: `perft` lines from the current
//! Fairy-Stockfish (PyPI's pyffish), all checked; `debian` lines from Debian's build (11.1),
//! checked too except for the sections in [`DEBIAN_PREDATES`], which use keys that build reads
//! otherwise or not at all.
//!
//! A node limit keeps CI fast: counts above `PERFT_LIMIT` (default 2,000,000) are skipped and
//! reported; `PERFT_LIMIT=0` checks every one.

mod common;
use common::PerftTally;

use std::{collections::BTreeMap, fs, path::Path, sync::Arc};

use rules::{Variant, fen, ini};

fn data(name: &str) -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/ini")
            .join(name),
    )
    .unwrap()
}

fn variants() -> BTreeMap<String, Arc<Variant>> {
    let text = data("variants.ini");
    let mut out = BTreeMap::new();
    for s in ini::sections(&text).unwrap() {
        let (imported, v) =
            ini::check(&text, Some(&s.name)).unwrap_or_else(|e| panic!("[{}]: {e}", s.name));
        assert_eq!(imported.name, s.name.to_ascii_lowercase());
        out.insert(s.name.clone(), v);
    }
    out
}

/// Sections whose published keys Debian's Fairy-Stockfish 11.1 predates, with what it does
/// instead: its counts differ from the current Fairy-Stockfish's (and ours) there.
const DEBIAN_PREDATES: &[(&str, &str)] = &[
    (
        "centaurking",
        "ignores a Betza given to `king` (its King stays a plain King)",
    ),
    (
        "allwayspawns",
        "has no custom pawn types (`pawnTypes`, `i` in Betza)",
    ),
    (
        "dragon-chess",
        "has no custom pawn types (`pawnTypes`, `i` in Betza)",
    ),
    ("argess", "has no custom pawn types (`pawnTypes`)"),
    (
        "1d-chess",
        "keeps the Knight when a custom piece takes its letter",
    ),
    (
        "4x6chess",
        "puts Black's promotion zone `*1` on rank 2 of a 6-rank board",
    ),
    (
        "5x6chess",
        "puts Black's promotion zone `*1` on rank 2 of a 6-rank board",
    ),
    (
        "petty",
        "puts Black's promotion zone `*1` on rank 2 of a 6-rank board",
    ),
    (
        "haynie",
        "puts Black's promotion zone `*1` on rank 2 of a 6-rank board",
    ),
];

struct Case {
    variant: String,
    id: String,
    epd: String,
    depths: Vec<(u32, u64)>,
    debian: Vec<(u32, u64)>,
}

fn cases() -> Vec<Case> {
    let mut variant = String::new();
    let mut out: Vec<Case> = Vec::new();
    for (n, line) in data("perft.data").lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "variant" => variant = rest.trim().to_string(),
            "id" => out.push(Case {
                variant: variant.clone(),
                id: rest.trim().to_string(),
                epd: String::new(),
                depths: Vec::new(),
                debian: Vec::new(),
            }),
            "epd" => out.last_mut().unwrap().epd = rest.trim().to_string(),
            "perft" | "debian" => {
                let mut it = rest.split_whitespace();
                let d = it.next().unwrap().parse().unwrap();
                let nodes = it.next().unwrap().parse().unwrap();
                let case = out.last_mut().unwrap();
                if key == "perft" {
                    case.depths.push((d, nodes));
                } else {
                    case.debian.push((d, nodes));
                }
            }
            other => panic!("perft.data:{}: unknown key {other:?}", n + 1),
        }
    }
    out
}

#[test]
fn twenty_published_variants_import() {
    let v = variants();
    assert!(v.len() >= 20, "only {} sections", v.len());
}

#[test]
fn perft_equals_fairy_stockfish() {
    let limit: u64 = std::env::var("PERFT_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let variants = variants();
    let cases = cases();
    let mut covered: Vec<&str> = cases.iter().map(|c| c.variant.as_str()).collect();
    covered.dedup();
    for name in variants.keys() {
        assert!(
            covered.contains(&name.as_str()),
            "{name} has no perft from Fairy-Stockfish: run scripts/fsf-ini-perft"
        );
    }
    let mut tally = PerftTally::new(limit);
    for case in &cases {
        let v = variants
            .get(&case.variant)
            .unwrap_or_else(|| panic!("perft.data names {}, not in variants.ini", case.variant));
        let mut pos = fen::position(v, &case.epd)
            .unwrap_or_else(|e| panic!("{} {}: {}: {e}", case.variant, case.id, case.epd));
        assert!(
            !case.depths.is_empty(),
            "{} {}: no perft lines",
            case.variant,
            case.id
        );
        let predates = DEBIAN_PREDATES.iter().any(|(n, _)| *n == case.variant);
        let debian = case.debian.iter().filter(|_| !predates);
        for (reference, &(depth, expected)) in case
            .depths
            .iter()
            .map(|d| ("fairy-stockfish (current)", d))
            .chain(debian.map(|d| ("fairy-stockfish (debian)", d)))
        {
            tally.check(&mut pos, depth, expected, |got| {
                format!(
                    "{} {} depth {depth}: {reference} {expected}, ours {got}",
                    case.variant, case.id
                )
            });
        }
    }
    // Debian's build must really differ where it is said to predate a key: otherwise the
    // exemption hides nothing and should go.
    for (name, why) in DEBIAN_PREDATES {
        let differs = cases
            .iter()
            .filter(|c| c.variant == *name)
            .any(|c| c.debian.iter().zip(&c.depths).any(|(a, b)| a != b));
        assert!(
            differs,
            "{name}: Debian's counts agree now ({why} no longer holds)"
        );
    }
    assert!(tally.run >= 100, "only {} counts checked", tally.run);
    tally.finish("ini perft");
}
