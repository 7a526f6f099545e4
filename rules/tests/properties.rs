//! Property tests over random games in every built-in variant:
//! * a move is generated if and only if it is legal (checked against an oracle that uses the
//!   opponent's pseudo-legal captures, not the attack tables);
//! * state text, coordinate and SAN round trips; replaying a move list reproduces the
//!   position; undo restores it exactly; the incremental hash equals a fresh one;
//! * perft is unchanged under colour flip with the board mirrored, and under left-right
//!   mirroring where the rules are symmetric;
//! * the parsers never panic on arbitrary text.

use std::sync::Arc;

use proptest::prelude::*;
use rules::{Catalog, Cell, Piece, Position, Setup, Side, Variant, fen, notation, perft::perft};

const VARIANTS: &[&str] = &[
    "chess",
    "chess960",
    "capablanca",
    "grand",
    "courier",
    "toulousain",
    "bilateral",
    "ecumenical-northern",
    "ecumenical-wraparound",
    "ecumenical-besiege",
    "ecumenical-double-besiege",
    "ecumenical-moebius",
    "ecumenical-quadruple",
    "dcb-balanced",
    "dcb-balanced-circular",
    "dcb-balanced-moebius",
    "dcb-unbalanced",
    "dcb-unbalanced-circular",
    "dcb-unbalanced-moebius",
    "dcb-kamil",
    "dcb-kamil-circular",
    "dcb-kamil-moebius",
    "dcb-wildebeest",
    "dcb-wildebeest-circular",
    "dcb-wildebeest-moebius",
    "dcb-knighted",
    "dcb-knighted-circular",
    "dcb-knighted-moebius",
    "dcb-coblache",
    "dcb-coblache-circular",
    "dcb-coblache-moebius",
];

fn variant(name: &str) -> Arc<Variant> {
    Catalog::builtin().get(name).unwrap()
}

/// Plays the moves chosen by `choices` (each taken modulo the number of legal moves).
fn random_game(v: &Arc<Variant>, choices: &[u16]) -> Position {
    let mut p = Position::start(v);
    for c in choices {
        let legal = p.legal_moves();
        if legal.is_empty() {
            break;
        }
        p.play_unchecked(legal[*c as usize % legal.len()]);
    }
    p
}

/// Whether the side that just moved left its royal piece capturable.
fn exposed(after: &Position, mover: Side) -> bool {
    let Some(k) = after.royal(mover) else {
        return false;
    };
    after
        .pseudo_legal_moves()
        .iter()
        .any(|m| m.is_capture() && (m.to == k))
}

fn check_generation(p: &Position) {
    let legal = p.legal_moves();
    if matches!(
        p.outcome(),
        Some(rules::Outcome::Win { .. } | rules::Outcome::Draw(rules::DrawReason::Stalemate))
    ) {
        // A finished game (checkmate, stalemate, CoBlaChe's captures): nothing more may be
        // played (issue 28, defect 2, for every variant).
        assert!(legal.is_empty(), "{}", fen::write(p));
        assert_eq!(perft(&mut p.clone(), 1), 0, "{}", fen::write(p));
        return;
    }
    let mover = p.turn();
    for m in p.pseudo_legal_moves() {
        let mut after = p.clone();
        after.play_unchecked(m);
        let ok = !exposed(&after, mover);
        assert_eq!(
            legal.contains(&m),
            ok,
            "{} move {} legal={} oracle={}",
            fen::write(p),
            notation::coord(p, m),
            legal.contains(&m),
            ok
        );
    }
    for m in &legal {
        assert!(
            p.pseudo_legal_moves().contains(m),
            "legal but not pseudo-legal: {m:?}"
        );
    }
}

fn check_round_trips(p: &Position) {
    let v = p.variant();
    let text = fen::write(p);
    let again = fen::position(v, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(fen::write(&again), text);
    assert_eq!(
        again.hash(),
        p.hash(),
        "incremental hash differs from a fresh one: {text}"
    );
    for m in p.legal_moves() {
        let c = notation::coord(p, m);
        assert_eq!(notation::parse_move(p, &c), Ok(m), "coord {c} in {text}");
        assert_eq!(
            notation::parse_coord(p, &c),
            Ok(m),
            "fast coord {c} in {text}"
        );
        let s = notation::san(p, m);
        assert_eq!(notation::parse_move(p, &s), Ok(m), "san {s} in {text}");
    }
}

/// Whether the variant's sides face the usual ways everywhere. Besiege boards (one army at
/// both ends, the other in the middle) are not symmetric under the colour flip but under the
/// top-to-bottom mirror with colours kept.
fn standard_facing(v: &Variant) -> bool {
    v.orientation == rules::orientation::Orientation::standard(&v.geometry, v.sides)
}

/// The symmetric image of a position: on ordinary boards the colour flip with the board
/// mirrored top to bottom, on Besiege boards the top-to-bottom mirror with colours kept
/// (`mirror_files` also mirrors left-right).
fn flipped(p: &Position, mirror_files: bool) -> Position {
    let v = p.variant();
    let g = &v.geometry;
    let shape = g.shape();
    let swap = standard_facing(v);
    let map = |c: Cell| -> Cell {
        let i = g.info(c);
        let x = if mirror_files {
            shape.width - 1 - i.file
        } else {
            i.file
        };
        g.at(i.board, x as i32, (shape.height - 1 - i.rank) as i32)
            .unwrap()
    };
    let side = |s: Side| if swap { Side(1 - s.0) } else { s };
    let s = p.to_setup();
    let mut board = vec![None; s.board.len()];
    for c in g.cells() {
        board[map(c).index()] = s.board[c.index()].map(|pc| Piece {
            side: side(pc.side),
            kind: pc.kind,
        });
    }
    let setup = Setup {
        board,
        turn: side(s.turn),
        castling: s.castling.iter().map(|c| map(*c)).collect(),
        ep: s.ep.map(map),
        halfmoves: s.halfmoves,
        fullmoves: s.fullmoves,
        unmoved: s.unmoved.iter().map(|c| map(*c)).collect(),
        freezes: s.freezes.iter().map(|(a, b)| (map(*a), map(*b))).collect(),
        captured: s
            .captured
            .iter()
            .map(|p| Piece {
                side: side(p.side),
                kind: p.kind,
            })
            .collect(),
        out: s.out.iter().map(|x| side(*x)).collect(),
    };
    Position::from_setup(v, setup).unwrap()
}

fn games() -> impl Strategy<Value = (usize, Vec<u16>)> {
    (
        0..VARIANTS.len(),
        prop::collection::vec(any::<u16>(), 0..60),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn generated_iff_legal((vi, choices) in games()) {
        let v = variant(VARIANTS[vi]);
        let mut p = Position::start(&v);
        check_generation(&p);
        for c in &choices {
            let legal = p.legal_moves();
            if legal.is_empty() { break; }
            p.play_unchecked(legal[*c as usize % legal.len()]);
            check_generation(&p);
        }
    }

    #[test]
    fn text_round_trips((vi, choices) in games()) {
        let v = variant(VARIANTS[vi]);
        let p = random_game(&v, &choices);
        check_round_trips(&p);
    }

    #[test]
    fn replay_reproduces_and_undo_restores((vi, choices) in games()) {
        let v = variant(VARIANTS[vi]);
        let mut p = Position::start(&v);
        let mut texts = Vec::new();
        let mut states = vec![fen::write(&p)];
        for c in &choices {
            let legal = p.legal_moves();
            if legal.is_empty() { break; }
            let m = legal[*c as usize % legal.len()];
            texts.push(notation::coord(&p, m));
            p.play_unchecked(m);
            states.push(fen::write(&p));
        }
        // Replaying the coordinate list from the start gives the same position.
        let mut q = Position::start(&v);
        for t in &texts {
            let m = notation::parse_move(&q, t).unwrap();
            q.play(m).unwrap();
        }
        prop_assert_eq!(fen::write(&q), fen::write(&p));
        prop_assert_eq!(q.hash(), p.hash());
        // Undoing every move walks back through the same states.
        for expected in states.iter().rev().skip(1) {
            p.undo().unwrap();
            prop_assert_eq!(&fen::write(&p), expected);
        }
        prop_assert!(p.undo().is_none());
    }

    #[test]
    fn perft_is_symmetric((vi, choices) in (0..VARIANTS.len(), prop::collection::vec(any::<u16>(), 0..16))) {
        let v = variant(VARIANTS[vi]);
        let mut p = random_game(&v, &choices);
        let n = perft(&mut p, 2);
        prop_assert_eq!(perft(&mut flipped(&p, false), 2), n, "colour flip of {}", fen::write(&p));
        // Left-right mirroring keeps the rules where castling is absent or symmetric and the
        // sides face the usual ways (on the Quadruple Besiege torus it would swap the boards;
        // tests/double_cross.rs checks the Double Cross mirrors).
        if standard_facing(&v)
            && matches!(v.castling, rules::CastlingRule::None | rules::CastlingRule::Slide { .. })
        {
            prop_assert_eq!(perft(&mut flipped(&p, true), 2), n, "mirror of {}", fen::write(&p));
        }
    }

    #[test]
    fn parsers_never_panic(text in ".{0,80}", vi in 0..VARIANTS.len()) {
        let v = variant(VARIANTS[vi]);
        let _ = fen::position(&v, &text);
        let _ = rules::betza::parse(&text);
        let _ = Catalog::check_file("fuzz.toml", &text);
        let p = Position::start(&v);
        let _ = notation::parse_move(&p, &text);
    }

    #[test]
    fn fen_like_garbage_never_panics(
        ranks in prop::collection::vec("[pPnNbBrRqQkK1-9*]{0,14}", 0..14),
        tail in "( [wb-]( [KQkqA-H-]{1,4}( [a-l][0-9]{1,2}| -)?)?)?",
        vi in 0..VARIANTS.len(),
    ) {
        let v = variant(VARIANTS[vi]);
        let _ = fen::position(&v, &format!("{}{}", ranks.join("/"), tail));
    }
}

#[test]
fn start_positions_are_symmetric() {
    for name in VARIANTS {
        let v = variant(name);
        let mut p = Position::start(&v);
        let n = perft(&mut p, 3);
        assert_eq!(perft(&mut flipped(&p, false), 3), n, "{name}");
    }
}
