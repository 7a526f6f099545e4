//! Hostile definitions: each is refused with a message that says what is wrong, and quickly
//! (the check's own deadline is 80 ms, for an answer within 100 ms; the bound here is loose because the machine is shared,
//! and the time itself is measured by `benches/parsers.rs`'s `validate` group).

use std::time::{Duration, Instant};

use rules::validate::{Format, Limits, validate};

fn refused(text: &str, format: Format, expect: &str) {
    let t = Instant::now();
    let e = validate(text, format, &Limits::default(), &[]).expect_err(expect);
    let took = t.elapsed();
    assert!(
        e.0.contains(expect),
        "expected a refusal about {expect:?}, got: {e}"
    );
    assert!(e.0.len() < 700, "a long refusal: {e}");
    assert!(took < Duration::from_secs(2), "took {took:?}: {e}");
}

#[test]
fn a_huge_board_is_refused() {
    refused(
        "[huge:chess]\nmaxFile = 26\nmaxRank = 26\nstartFen = 26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/26/4K21 w - - 0 1\n",
        Format::Ini,
        "cells",
    );
    refused(
        "name = \"huge\"\nextends = \"chess\"\nstart = \"k/K w - - 0 1\"\n[board]\nfiles = 200\nranks = 200\n",
        Format::Toml,
        "files",
    );
}

#[test]
fn thousands_of_piece_types_are_refused() {
    let mut text = String::from("name = \"many\"\nextends = \"chess\"\n");
    for i in 0..3000 {
        text.push_str(&format!("[pieces.P{i}]\nname = \"x\"\nmoves = \"W\"\n"));
    }
    refused(&text, Format::Toml, "bytes");
    let mut ini = String::from("[many:chess]\n");
    for i in 1..=40 {
        ini.push_str(&format!("customPiece{i} = a:W\n"));
    }
    refused(&ini, Format::Ini, "are `customPiece1` to `customPiece25`");
}

#[test]
fn an_unlimited_rider_on_a_wrapping_board_is_held_to_the_budget() {
    // Queen-Nightriders on a 16-file cylinder: every ride is long but finite (a slider stops
    // before revisiting its start); perft 3 goes past the node budget or the deadline. Rows
    // of Wazirs keep the Kings out of check at the start.
    let back = "qqqqqqqkqqqqqqqq";
    let mut text = format!(
        "name = \"cylinder\"\nstart = \"{back}/wwwwwwwwwwwwwwww/16/16/16/16/16/16/16/16/WWWWWWWWWWWWWWWW/{} w - - 0 1\"\n",
        back.to_uppercase()
    );
    text.push_str("[board]\nfiles = 16\nranks = 12\nwrap_files = {}\n");
    text.push_str("[pieces.K]\nname = \"King\"\nmoves = \"K\"\nroyal = true\n");
    text.push_str("[pieces.W]\nname = \"Wazir\"\nmoves = \"W\"\n");
    text.push_str("[pieces.Q]\nname = \"Rider\"\nmoves = \"QNN\"\n");
    let e = validate(&text, Format::Toml, &Limits::default(), &[]).unwrap_err();
    assert!(
        e.0.contains("too many moves") || e.0.contains("too slow"),
        "{e}"
    );
}

#[test]
fn a_start_with_no_king_is_refused() {
    refused(
        "[kingless:chess]\nstartFen = 8/pppppppp/8/8/8/8/PPPPPPPP/8 w - - 0 1\n",
        Format::Ini,
        "royal",
    );
}

#[test]
fn markup_in_names_is_refused() {
    refused(
        "name = \"mine\"\nextends = \"chess\"\ndisplay_name = \"<@everyone> **free**\"\n",
        Format::Toml,
        "not allowed",
    );
    refused(
        "name = \"Mine Now\"\nextends = \"chess\"\n",
        Format::Toml,
        "lowercase",
    );
    refused("[chess:chess]\n", Format::Ini, "built-in");
}

#[test]
fn errors_teach_with_line_key_and_suggestion() {
    let e = validate(
        "[x:chess]\n\nstartfen = 8/8 w\n",
        Format::Ini,
        &Limits::default(),
        &[],
    )
    .unwrap_err();
    assert!(e.0.contains("line 3"), "{e}");
    assert!(e.0.contains("did you mean `startFen`"), "{e}");
    let e = validate(
        "[x:chess]\ncustomPiece1 = a:WQX\n",
        Format::Ini,
        &Limits::default(),
        &[],
    )
    .unwrap_err();
    assert!(e.0.contains("line 2") && e.0.contains("`X`"), "{e}");
    let e = validate(
        "[x:chess]\nflagRegionWhite = *8\n",
        Format::Ini,
        &Limits::default(),
        &[],
    )
    .unwrap_err();
    assert!(e.0.contains("capture-the-flag"), "{e}");
    let e = validate(
        "name = \"x\"\nextends = \"chess\"\n[pieces.N]\nname = \"Knight\"\nmoves = \"Nx\"\n",
        Format::Toml,
        &Limits::default(),
        &[],
    )
    .unwrap_err();
    assert!(e.0.contains("pieces.N.moves"), "{e}");
}

#[test]
fn a_good_definition_passes_with_its_perft() {
    // Acceptance is what this test checks, not time: a loaded test machine may take longer
    // than the 100 ms the bot allows (benches/validate.rs measures that).
    let relaxed = Limits {
        time: Duration::from_secs(10),
        ..Limits::default()
    };
    let ok = validate(
        "[knightriders:chess]\nknight = -\ncustomPiece1 = n:NN\n",
        Format::Ini,
        &relaxed,
        &[],
    )
    .unwrap();
    assert_eq!(ok.variant.name, "knightriders");
    assert_eq!(ok.perft.len(), 3);
    // The stored text is self-contained and reads back to the same variant.
    assert!(!ok.toml.contains("extends"));
    let again = validate(&ok.toml, Format::Toml, &relaxed, &[]).unwrap();
    assert_eq!(again.perft, ok.perft);
    assert_eq!(Format::guess(Some("x.ini"), ""), Format::Ini);
    assert_eq!(Format::guess(None, "[a:chess]\nking = k:KN\n"), Format::Ini);
    assert_eq!(Format::guess(None, &ok.toml), Format::Toml);
}
