//! Hand-derived legal move lists for every Toulousain piece type (rules/toulousain.md and the
//! fine points T1-T10 of rules/fine-points.md). Each expected list was worked out by hand from
//! the rule text, not printed from the engine.

use std::collections::BTreeSet;

mod common;

use common::moves_from;
use rules::{Catalog, Position, fen, notation};

fn pos(state: &str) -> Position {
    common::pos("toulousain", state)
}

fn set(from: &str, tos: &str) -> BTreeSet<String> {
    tos.split_whitespace()
        .map(|t| format!("{from}{t}"))
        .collect()
}

#[test]
fn start_position_has_54_moves() {
    // 4 flank Pawns x 2 + 8 centre Pawns x 2 + Corporals c3-b4, j3-k4 + Camels b1-a4, k1-l4
    // + Knights c2 (b4, e1), j2 (k4, h1) + Bishops (c1, e1, h1, j1) + Gryphon 7 + King 3
    // + Queen 3 + Lion 5 = 54.
    let catalog = Catalog::builtin();
    let p = Position::start(&catalog.get("toulousain").unwrap());
    assert_eq!(p.legal_moves().len(), 54);
    assert_eq!(moves_from(&p, "e2"), set("e2", "d1 f1 c1 g1 h1 i1 j1"));
    assert_eq!(moves_from(&p, "h2"), set("h2", "g1 h1 i1 f1 j1"));
    assert_eq!(moves_from(&p, "b1"), set("b1", "a4"));
}

#[test]
fn gryphon_bends_outward_and_stops_on_captures() {
    // Gryphon e5; black Knight d4 (captured on the diagonal, no bend through it), white Pawn
    // b6, black Rook f9.
    let p = pos("11k/12/12/5r6/12/12/1P10/4G7/3n8/12/12/K11 w - - 0 1");
    let expected = set(
        "e5",
        // diagonal cells
        "d4 f4 d6 f6 \
         g4 h4 i4 j4 k4 l4 f3 f2 f1 \
         c6 d7 d8 d9 d10 d11 d12 \
         g6 h6 i6 j6 k6 l6 f7 f8 f9",
    );
    assert_eq!(moves_from(&p, "e5"), expected);
    assert_eq!(expected.len(), 29);
}

#[test]
fn gryphon_on_an_empty_board_has_40_moves() {
    let p = pos("11k/12/12/12/12/12/12/4G7/12/12/12/K11 w - - 0 1");
    assert_eq!(moves_from(&p, "e5").len(), 4 + 6 + 9 + 9 + 12);
}

#[test]
fn corporal_has_two_moves_onto_the_en_passant_cell() {
    // White Corporal just went e3-e5; black Pawn d5 and black Corporal f5 stand beside it.
    let p = pos("5k6/12/12/12/12/12/12/3pOo6/12/12/12/5K6 b - e4 0 1");
    // The Corporal: straight 1 or 2, diagonal quiet steps, and the e.p. capture (T4).
    assert_eq!(moves_from(&p, "f5"), set("f5", "f4 f3 e4 e4ep g4"));
    // The Pawn: straight 1 or 2 from any rank (T3), and the e.p. capture.
    assert_eq!(moves_from(&p, "d5"), set("d5", "d4 d3 e4"));
    // The two f5-e4 moves are different moves with different results.
    let quiet = notation::parse_move(&p, "f5e4").unwrap();
    let ep = notation::parse_move(&p, "f5e4ep").unwrap();
    assert_ne!(quiet, ep);
    assert!(ep.is_capture() && !quiet.is_capture());
    assert_eq!(notation::san(&p, quiet), "Oe4");
    assert_eq!(notation::san(&p, ep), "Oxe4");
}

#[test]
fn castling_slides_three_cells_on_both_wings() {
    let state = "cm8mc/er3k4re/ppoooooooopp/2pppppppp2/12/12/12/12/2PPPPPPPP2/PPOOOOOOOOPP/ER3K4RE/CM8MC w KQkq - 0 1";
    let p = pos(state);
    // King f2: e1 f1 g1 e2 g2, and castling f2-c2 (Rook b2-d2), f2-i2 (Rook k2-h2).
    assert_eq!(moves_from(&p, "f2"), set("f2", "e1 f1 g1 e2 g2 c2 i2"));
    let mut q = p.clone();
    q.play(notation::parse_move(&p, "f2c2").unwrap()).unwrap();
    assert!(fen::write(&q).starts_with(
        "cm8mc/er3k4re/ppoooooooopp/2pppppppp2/12/12/12/12/2PPPPPPPP2/PPOOOOOOOOPP/E1KR6RE/CM8MC b kq"
    ));
    let mut q = p.clone();
    q.play(notation::parse_move(&p, "O-O").unwrap()).unwrap();
    assert!(fen::write(&q).contains("/ER5RK2E/"), "{}", fen::write(&q));
    assert_eq!(
        notation::san(&p, notation::parse_move(&p, "f2c2").unwrap()),
        "O-O-O"
    );
}

#[test]
fn castling_is_refused_through_attacked_cells_and_with_a_near_rook() {
    // A black Rook on d9 attacks d2 (through d3-d8 emptied): no queenside castling.
    let p = pos("5k6/12/12/3r8/12/12/12/12/12/12/ER3K4RE/12 w KQ - 0 1");
    assert_eq!(
        moves_from(&p, "f2"),
        set("f2", "e1 f1 g1 e2 g2 e3 f3 g3 i2")
    );
    // A Rook only three cells away (c2) cannot castle: the King would pass over it (G3).
    let p = pos("5k6/12/12/12/12/12/12/12/12/12/2R2K4RE/12 w KQ - 0 1");
    assert!(!moves_from(&p, "f2").contains("f2c2"));
    assert!(moves_from(&p, "f2").contains("f2i2"));
}

#[test]
fn lion_reaches_all_24_cells_of_its_square() {
    let p = pos("11k/12/12/12/12/12/5L6/12/12/12/12/K11 w - - 0 1");
    assert_eq!(moves_from(&p, "f6").len(), 24);
    // It leaps: surrounded by own Pawns it still reaches the outer ring.
    let p = pos("11k/12/12/12/12/4PPP5/4PLP5/4PPP5/12/12/12/K11 w - - 0 1");
    assert_eq!(
        moves_from(&p, "f6"),
        set("f6", "d4 e4 f4 g4 h4 d5 h5 d6 h6 d7 h7 d8 e8 f8 g8 h8")
    );
}

#[test]
fn cannon_moves_as_a_rook_and_captures_by_hopping() {
    // Cannon e5; white Pawn e7 (screen up), black Bishop e10 (victim), black Knight b5 and
    // black Rook a5 (screen and victim to the left), nothing to the right or below.
    let p = pos("11k/12/4b7/12/12/4P7/12/rn2C7/12/12/12/11K w - - 0 1");
    assert_eq!(
        moves_from(&p, "e5"),
        set("e5", "e6 e10 c5 d5 a5 f5 g5 h5 i5 j5 k5 l5 e4 e3 e2 e1")
    );
    // A Cannon may use a Cannon as screen and capture a Cannon (T7).
    let p = pos("11k/12/12/12/12/12/12/c1c1C7/12/12/12/K11 w - - 0 1");
    assert!(moves_from(&p, "e5").contains("e5a5"));
}

#[test]
fn elephant_leaps_over_an_occupied_first_cell() {
    let p = pos("11k/12/12/12/12/12/3p1P6/4E7/12/12/12/K11 w - - 0 1");
    // d6 (enemy) is captured; c7 beyond it is reached by the leap; f6 is own: g7 still reached.
    assert_eq!(moves_from(&p, "e5"), set("e5", "d6 c7 g7 d4 c3 f4 g3"));
}

#[test]
fn camel_leaps_three_by_one() {
    let p = pos("11k/12/12/12/12/12/5M6/12/12/12/12/K11 w - - 0 1");
    assert_eq!(moves_from(&p, "f6"), set("f6", "g9 e9 g3 e3 i7 i5 c7 c5"));
}

#[test]
fn pawns_double_step_anywhere_and_promote_to_supreme_pieces() {
    // Pawn g6 double-steps from rank 6 (T3); Pawn c10 may step or double-step onto rank 12
    // and promotes to Q, L or G only (T6); the double step onto the last rank promotes too.
    let p = pos("6k5/12/12/12/12/12/6P5/12/12/12/12/K11 w - - 0 1");
    assert_eq!(moves_from(&p, "g6"), set("g6", "g7 g8"));
    let p = pos("6k5/12/2P9/12/12/12/12/12/12/12/12/K11 w - - 0 1");
    assert_eq!(moves_from(&p, "c10"), set("c10", "c11 c12q c12l c12g"));
    // A Corporal's quiet diagonal onto the last rank promotes as well.
    let p = pos("6k5/2O9/12/12/12/12/12/12/12/12/12/K11 w - - 0 1");
    assert_eq!(
        moves_from(&p, "c11"),
        set("c11", "c12q c12l c12g b12q b12l b12g d12q d12l d12g")
    );
}

#[test]
fn a_cannon_check_can_be_parried_by_adding_a_second_screen() {
    // Black Cannon f7, white Knight f5 as screen, white King f1: check.
    let p = pos("5k6/12/12/12/12/5c6/12/5N6/12/12/12/5K6 w - - 0 1");
    assert!(p.is_check());
    let legal: BTreeSet<String> = p
        .legal_moves()
        .into_iter()
        .map(|m| notation::coord(&p, m))
        .collect();
    // The Knight may leave the file (the Cannon loses its screen)...
    assert!(legal.contains("f5g7"));
    // ...the King may step off the file, but not stay on it.
    assert!(legal.contains("f1e1") && !legal.contains("f1f2"));
    let refused = notation::parse_move(&p, "f1f2").unwrap_err();
    assert!(refused.to_string().contains("Cannon on f7"), "{refused}");
}
