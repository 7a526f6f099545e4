//! The UCI session: every built-in variant offered, bad input answered with `info string`,
//! and no input at all makes the parser or the session panic.

use engine::uci::{Command, Flow, Go, Session, parse};
use proptest::prelude::*;

fn session() -> Session {
    Session::new(Box::new(|path: &str| {
        match path {
        "mine.toml" => Ok("name = \"mine\"\nextends = \"chess\"\n[pieces.N]\nvalue = 4.0\n".into()),
        "broken.toml" => Ok("name = \"broken\"\ncolour = 3\n".into()),
        "trial.toml" => Ok(include_str!("data/tuning-trial.toml").into()),
        "trial-tuned.toml" => Ok(include_str!("data/tuning-trial.tuned.toml").into()),
        "fsf.ini" => Ok(
            "[centaurking:chess]\nking = k:KN\n\n[flaggy:chess]\nflagRegionWhite = *8\n\n[minis:chess]\nmaxFile = 5\nmaxRank = 5\ncastling = false\ndoubleStep = false\npromotionRegionWhite = *5\nstartFen = rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1\n"
                .into(),
        ),
        _ => Err("no such file".into()),
    }
    }))
}

fn run(s: &mut Session, lines: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        s.handle_line(l, &mut |x| out.push(x));
    }
    out
}

#[test]
fn uci_lists_every_built_in_variant() {
    let out = run(&mut session(), &["uci"]);
    let opt = out
        .iter()
        .find(|l| l.starts_with("option name UCI_Variant"))
        .unwrap();
    for name in rules::Catalog::builtin().names() {
        assert!(
            opt.contains(&format!(" var {name}")),
            "{name} missing from {opt}"
        );
    }
    assert_eq!(out.last().unwrap(), "uciok");
}

#[test]
fn go_reports_info_and_a_legal_bestmove() {
    let mut s = session();
    let out = run(
        &mut s,
        &[
            "setoption name UCI_Variant value toulousain",
            "position startpos moves e4e6",
            "go depth 3",
        ],
    );
    let info = out.iter().find(|l| l.starts_with("info depth 3")).unwrap();
    for word in ["score cp", "nodes", "nps", "pv"] {
        assert!(info.contains(word), "{info}");
    }
    let best = out.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(
        rules::notation::parse_coord(s.position(), best).is_ok(),
        "{best}"
    );
    let out = run(
        &mut s,
        &["go nodes 2000", "go wtime 1000 btime 1000 winc 10 binc 10"],
    );
    assert_eq!(out.iter().filter(|l| l.starts_with("bestmove")).count(), 2);
    // Two threads (Lazy SMP) play as well, and a new level keeps them.
    let out = run(
        &mut s,
        &[
            "setoption name Threads value 2",
            "setoption name Level value 5",
            "go depth 4",
        ],
    );
    assert!(out.last().unwrap().starts_with("bestmove "), "{out:?}");
}

/// Grand in Fairy-Stockfish's letters: its Chancellor `c` is our Marshal, in a FEN, in the
/// moves we are given and in the move we answer. (Before `uci_letter`, a promotion to it was
/// refused as illegal and ours was sent as `m`, which Fairy-Stockfish does not know.)
#[test]
fn grand_speaks_fairy_stockfish_letters() {
    let mut s = session();
    // White has lost his Chancellor and his j-pawn is one step from the last rank; Black
    // has taken everything else.
    let out = run(
        &mut s,
        &[
            "setoption name UCI_Variant value grand",
            "position fen 4k5/9P/10/10/10/10/10/10/10/4KC4 w - - 0 1",
            "go depth 1",
        ],
    );
    assert!(!out.iter().any(|l| l.starts_with("info string")), "{out:?}");
    let out = run(
        &mut s,
        &[
            "position fen 4k5/10/9P/10/10/10/10/10/10/4K5 w - - 0 1 moves j8j9c e10d10",
            "go depth 1",
        ],
    );
    assert!(!out.iter().any(|l| l.starts_with("info string")), "{out:?}");
    let state = rules::fen::write(s.position());
    assert!(state.contains('M'), "j8j9c made a Marshal: {state}");
}

#[test]
fn bad_input_is_answered_with_info_string() {
    let mut s = session();
    for (line, says) in [
        (
            "setoption name UCI_Variant value no-such-game",
            "unknown variant",
        ),
        ("position fen this is not a fen", "bad fen"),
        ("position startpos moves e2e4 e2e4", "move 2"),
        ("go movetime soon", "not a number"),
        (
            "setoption name VariantPath value missing.toml",
            "cannot read",
        ),
        ("setoption name VariantPath value broken.toml", "colour"),
        ("setoption name Level value 9", "Level"),
        ("setoption name Threads value 0", "give 1 to 64"),
        ("setoption name Threads value many", "Threads"),
        ("setoption name Move Overhead value lots", "Move Overhead"),
        ("setoption name Move Overhead value 9000", "0 to 5000"),
        ("frobnicate", "unknown command"),
        ("position", "startpos or fen"),
    ] {
        let out = run(&mut s, &[line]);
        assert!(
            out.len() == 1 && out[0].starts_with("info string") && out[0].contains(says),
            "{line}: {out:?}"
        );
    }
    // The illegal move left the position after e2e4.
    assert_eq!(s.position().moves_played().count(), 1);
    // A user's file loads and becomes the variant.
    let out = run(
        &mut s,
        &["setoption name VariantPath value mine.toml", "go depth 1"],
    );
    assert!(out[0].contains("loaded variant mine"), "{out:?}");
    assert_eq!(s.position().variant().name, "mine");
    assert_eq!(run(&mut s, &["quit"]), Vec::<String>::new());
    assert_eq!(s.handle_line("quit", &mut |_| {}), Flow::Quit);
}

#[test]
fn tuned_weights_are_loaded_for_their_variant_only() {
    let mut s = session();
    // A tuning of another variant is refused, and says why.
    let out = run(&mut s, &["setoption name TunedPath value trial-tuned.toml"]);
    assert!(
        out.len() == 1 && out[0].contains("not for chess"),
        "{out:?}"
    );
    let out = run(
        &mut s,
        &[
            "setoption name VariantPath value trial.toml",
            "setoption name TunedPath value trial-tuned.toml",
        ],
    );
    assert_eq!(
        out[1], "info string evaluation of tuning-trial: tuned",
        "{out:?}"
    );
    let out = run(
        &mut s,
        &["setoption name TunedPath value derived", "go depth 2"],
    );
    assert_eq!(out[0], "info string evaluation of tuning-trial: derived");
    assert!(out.last().unwrap().starts_with("bestmove "), "{out:?}");
    let out = run(&mut s, &["setoption name TunedPath value missing.toml"]);
    assert!(out[0].contains("cannot read"), "{out:?}");
}

#[test]
fn the_parser_reads_the_usual_forms() {
    assert_eq!(
        parse("setoption name Skill Level value 5").unwrap(),
        Command::SetOption {
            name: "Skill Level".into(),
            value: Some("5".into())
        }
    );
    assert_eq!(
        parse("go wtime 1000 btime -5 winc 0 binc 0 movestogo 3").unwrap(),
        Command::Go(Go {
            wtime: Some(1000),
            btime: Some(0),
            winc: Some(0),
            binc: Some(0),
            movestogo: Some(3),
            ..Go::default()
        })
    );
    assert_eq!(
        parse("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 moves a1a2").unwrap(),
        Command::Position {
            fen: Some("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()),
            moves: vec!["a1a2".into()]
        }
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any line at all: the parser answers, and the session survives it.
    #[test]
    fn no_line_panics(line in "\\PC{0,80}") {
        let _ = parse(&line);
        let mut s = session();
        let mut out = Vec::new();
        s.handle_line(&line, &mut |x| out.push(x));
    }

    /// Lines made of UCI words in any order, with numbers and moves: still no panic, and a
    /// `go` always ends with a bestmove.
    #[test]
    fn uci_word_salad_never_panics(words in prop::collection::vec(prop::sample::select(vec![
        "uci", "isready", "position", "startpos", "fen", "moves", "go", "depth", "nodes",
        "movetime", "wtime", "btime", "setoption", "name", "value", "UCI_Variant", "toulousain",
        "dcb-balanced-4p", "e2e4", "e7e5", "1", "2", "-3", "99999999999999999999", "stop", "Level",
        "8/8/8/8/8/8/8/K1k5", "w", "-", "0",
    ]), 0..12)) {
        let mut line = words.join(" ");
        if line.starts_with("go") {
            line.push_str(" nodes 200");
        }
        let mut s = session();
        let mut out = Vec::new();
        s.handle_line(&line, &mut |x| out.push(x));
        if matches!(parse(&line), Ok(Command::Go(_))) {
            prop_assert!(out.last().is_some_and(|l| l.starts_with("bestmove")), "{:?}", out);
        }
    }
}

#[test]
fn variant_path_reads_a_fairy_stockfish_ini() {
    let mut s = session();
    let out = run(&mut s, &["setoption name VariantPath value fsf.ini"]);
    assert!(
        out.iter().any(|l| l.contains("loaded variant centaurking")),
        "{out:?}"
    );
    // A section with a key fairybot has no rule for is named with its line and key.
    assert!(
        out.iter().any(|l| l.contains("[flaggy]")
            && l.contains("line 5")
            && l.contains("flagRegionWhite")),
        "{out:?}"
    );
    assert_eq!(s.position().variant().name, "minis");
    let out = run(
        &mut s,
        &[
            "setoption name UCI_Variant value centaurking",
            "position startpos",
            "go depth 1",
        ],
    );
    assert!(out.iter().any(|l| l.starts_with("bestmove")), "{out:?}");
    assert_eq!(s.position().variant().name, "centaurking");
    assert_eq!(s.position().legal_moves().len(), 22);
}
