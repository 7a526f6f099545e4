//! Twin-board Ecumenical Chess: hand-derived move lists for every new piece on looped boards,
//! the topologies (cylinder, Moebius, the Quadruple Besiege torus), the Wraparound castling
//! table, Besiege and Quadruple Besiege Pawns, and the depth-1 counts of the start positions
//! (rulebook `ecumenical.md` 3.0-3.6, fine points E1-E7).
//! Every expected list was worked out by hand from the rule text, not printed from the engine.
//!
//! The "random-N" positions of `tests/data/ecumenical.perft` were made by playing, from the
//! start, the move `legal[(seed >> 33) % len]` with `seed = seed * 6364136223846793005 +
//! 1442695040888963407` (wrapping) before each ply, seed starting at N: [`random_position`]
//! reproduces them, and a test checks that it still does.

use std::collections::BTreeSet;

mod common;

use common::{moves_from, pos, random_position, start};
use rules::{Catalog, Position, fen, notation, perft::perft};

fn set(from: &str, tos: &str) -> BTreeSet<String> {
    tos.split_whitespace()
        .map(|t| format!("{from}{t}"))
        .collect()
}

/// The pseudo-random game of the perft tables' "random-N" positions.

#[test]
fn random_positions_of_the_perft_table_are_reproducible() {
    let p = random_position("ecumenical-northern", 24, 11);
    assert_eq!(
        fen::write(&p),
        "rnbc1v1qk1gl1bn1/p1ppppppGppppp1r/lp8a3p1/8p2c3p/3L9C2/8A2BPL2/PP1PPPPPPPPP1PPP/RNBC1VMQK5NR w KQq - 0 13"
    );
}

// ----- start positions ------------------------------------------------------------------

/// Every Pawn of a rank with its single and double step in direction `dir` (+1 up, -1 down).
fn pawn_steps(files: &str, rank: i32, dir: i32) -> BTreeSet<String> {
    files
        .chars()
        .flat_map(|f| [1, 2].map(move |n| format!("{f}{rank}{f}{}", rank + dir * n)))
        .collect()
}

fn pieces_and_pawns(p: &Position) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut pieces = BTreeSet::new();
    let mut pawns = BTreeSet::new();
    for m in p.legal_moves() {
        let is_pawn = p.piece_at(m.from).unwrap().kind == p.variant().kind_by_letter('P').unwrap();
        let c = notation::coord(p, m);
        if is_pawn {
            pawns.insert(c);
        } else {
            pieces.insert(c);
        }
    }
    (pieces, pawns)
}

#[test]
fn northern_start_has_54_moves() {
    // Knights b1 (a3 c3), o1 (n3 p3); Camels d1 (c4 e4), m1 (l4 n4); Caliphs e1 (d4 f4),
    // l1 (k4 m4) by their Camel leaps; Canvasser f1 (e4 g4); Marshal g1 (f3 h3); Cardinal
    // j1 (i3 k3); Gnu k1 (j3 l3 j4 l4); 16 Pawns x 2.
    let p = start("ecumenical-northern");
    let (pieces, pawns) = pieces_and_pawns(&p);
    let expected: BTreeSet<String> = "b1a3 b1c3 o1n3 o1p3 d1c4 d1e4 m1l4 m1n4 e1d4 e1f4 l1k4 l1m4 \
        f1e4 f1g4 g1f3 g1h3 j1i3 j1k3 k1j3 k1l3 k1j4 k1l4"
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(pieces, expected);
    assert_eq!(pawns, pawn_steps("abcdefghijklmnop", 2, 1));
    assert_eq!(p.legal_moves().len(), 54);
}

#[test]
fn wraparound_start_has_54_moves_two_across_the_seam() {
    // Cardinal a1 (b3, p3 across the seam), Marshal p1 (o3, a3 across the seam), Knights b1
    // (a3 c3), j1 (i3 k3), Gnu d1 (c3 e3 c4 e4), Caliphs e1 (d4 f4), l1 (k4 m4), Camels f1
    // (e4 g4), o1 (n4 p4), Canvasser m1 (l4 n4); 16 Pawns x 2.
    let p = start("ecumenical-wraparound");
    let (pieces, pawns) = pieces_and_pawns(&p);
    let expected: BTreeSet<String> = "a1b3 a1p3 p1o3 p1a3 b1a3 b1c3 j1i3 j1k3 d1c3 d1e3 d1c4 d1e4 \
        e1d4 e1f4 l1k4 l1m4 f1e4 f1g4 o1n4 o1p4 m1l4 m1n4"
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(pieces, expected);
    assert_eq!(pawns, pawn_steps("abcdefghijklmnop", 2, 1));
}

#[test]
fn besiege_starts_by_hand() {
    // White moves first with both camps: Pawns of rank 2 go up, of rank 15 down (E5).
    // Rank 1 (G C L Q K L C V): Gnu a1 (b3 b4), Camel b1 (a4 c4), Caliphs c1 (b4 d4) and
    // f1 (e4 g4), Camel g1 (f4 h4), Canvasser h1 (g4). Rank 16 (R N B M A B N R): Knights b16
    // (a14 c14), g16 (f14 h14), Marshal d16 (c14 e14), Cardinal e16 (d14 f14).
    let single = "a1b3 a1b4 b1a4 b1c4 c1b4 c1d4 f1e4 f1g4 g1f4 g1h4 h1g4 \
        b16a14 b16c14 g16f14 g16h14 d16c14 d16e14 e16d14 e16f14";
    let mut pawns = pawn_steps("abcdefgh", 2, 1);
    pawns.extend(pawn_steps("abcdefgh", 15, -1));
    let p = start("ecumenical-besiege");
    let (pieces, got_pawns) = pieces_and_pawns(&p);
    let want: BTreeSet<String> = single.split_whitespace().map(String::from).collect();
    assert_eq!(pieces, want);
    assert_eq!(got_pawns, pawns);
    assert_eq!(p.legal_moves().len(), 51);

    // Double Besiege: rank 16 touches rank 1, so the rank-1 leapers also land three ranks
    // "below" it, on rank 14: Gnu a1 b14, Camel b1 a14 c14, Caliphs c1 b14 d14 and f1 e14
    // g14, Camel g1 f14 h14, Canvasser h1 g14. Everything else runs into White's own camp.
    let double = "a1b14 b1a14 b1c14 c1b14 c1d14 f1e14 f1g14 g1f14 g1h14 h1g14";
    let p = start("ecumenical-double-besiege");
    let (pieces, _) = pieces_and_pawns(&p);
    let mut want2 = want.clone();
    want2.extend(double.split_whitespace().map(String::from));
    assert_eq!(pieces, want2);
    assert_eq!(p.legal_moves().len(), 61);

    // Moebius: the same leaps land on the mirrored file, (x, y) = (7-x, y+16): a1-b(-3)
    // becomes g14, b1's a14/c14 become h14/f14, and so on.
    let moebius = "a1g14 b1h14 b1f14 c1g14 c1e14 f1d14 f1b14 g1c14 g1a14 h1b14";
    let p = start("ecumenical-moebius");
    let (pieces, _) = pieces_and_pawns(&p);
    let mut want3 = want;
    want3.extend(moebius.split_whitespace().map(String::from));
    assert_eq!(pieces, want3);
    assert_eq!(p.legal_moves().len(), 61);
}

// ----- the new pieces on the Wraparound cylinder ------------------------------------------

/// A White piece on b5 of an otherwise empty cylinder (Kings i1, i8).
fn on_b5(letter: char) -> Position {
    pos(
        "ecumenical-wraparound",
        &format!("8k7/16/16/1{letter}14/16/16/16/8K7 w - - 0 1"),
    )
}

const CAMEL_B5: &str = "a2 a8 c2 c8 e4 e6 o4 o6";
const KNIGHT_B5: &str = "a3 c3 a7 c7 d4 d6 p4 p6";
/// Rank 5 all the way round (15 cells, never b5 itself) and the b-file.
const ROOK_B5: &str = "a5 c5 d5 e5 f5 g5 h5 i5 j5 k5 l5 m5 n5 o5 p5 b1 b2 b3 b4 b6 b7 b8";
/// The four diagonals, crossing the a/p seam: up-right c6 d7 e8, up-left a6 p7 o8, down-right
/// c4 d3 e2 f1, down-left a4 p3 o2 n1.
const BISHOP_B5: &str = "c6 d7 e8 a6 p7 o8 c4 d3 e2 f1 a4 p3 o2 n1";

#[test]
fn camel_on_the_cylinder() {
    assert_eq!(moves_from(&on_b5('C'), "b5"), set("b5", CAMEL_B5));
}

#[test]
fn gnu_on_the_cylinder() {
    let want = set("b5", &format!("{KNIGHT_B5} {CAMEL_B5}"));
    assert_eq!(want.len(), 16);
    assert_eq!(moves_from(&on_b5('G'), "b5"), want);
}

#[test]
fn canvasser_on_the_cylinder() {
    let want = set("b5", &format!("{ROOK_B5} {CAMEL_B5}"));
    assert_eq!(want.len(), 30);
    assert_eq!(moves_from(&on_b5('V'), "b5"), want);
}

#[test]
fn caliph_on_the_cylinder() {
    let want = set("b5", &format!("{BISHOP_B5} {CAMEL_B5}"));
    assert_eq!(want.len(), 22);
    assert_eq!(moves_from(&on_b5('L'), "b5"), want);
}

#[test]
fn marshal_on_the_cylinder() {
    let want = set("b5", &format!("{ROOK_B5} {KNIGHT_B5}"));
    assert_eq!(want.len(), 30);
    assert_eq!(moves_from(&on_b5('M'), "b5"), want);
}

#[test]
fn cardinal_on_the_cylinder() {
    let want = set("b5", &format!("{BISHOP_B5} {KNIGHT_B5}"));
    assert_eq!(want.len(), 22);
    assert_eq!(moves_from(&on_b5('A'), "b5"), want);
}

#[test]
fn a_rank_loop_of_16_gives_15_steps_and_one_move_per_cell() {
    // The Rook reaches every other cell of its rank both ways round; each is one move (G1),
    // and it never "moves" back onto b5 (no null move): 15, not 16, and not 30.
    let p = on_b5('R');
    let rank: Vec<String> = moves_from(&p, "b5")
        .into_iter()
        .filter(|m| m.ends_with('5'))
        .collect();
    assert_eq!(rank.len(), 15);
    // A blocker on f5 is reached from both sides: still one capture.
    let p = pos(
        "ecumenical-wraparound",
        "8k7/16/16/1R3n10/16/16/16/8K7 w - - 0 1",
    );
    let captures = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.is_capture())
        .count();
    assert_eq!(captures, 1);
    assert_eq!(moves_from(&p, "b5").len(), 3 + 1 + 11 + 7);
}

// ----- Besiege boards: the join, the twist and the loop lengths ----------------------------

/// A Bishop on c15, Kings e6 and e9: the twist sends the diagonal back along the files.
const BISHOP_C15: &str = "8/2B5/8/8/8/8/8/4k3/8/8/4K3/8/8/8/8/8 w - - 0 1";

#[test]
fn bishop_crossing_the_joins() {
    // Single: the diagonals end at rank 16: d16, b16, and down d14 e13 f12 g11 h10, b14 a13.
    let lower = "d14 e13 f12 g11 h10 b14 a13";
    let p = pos("ecumenical-besiege", BISHOP_C15);
    assert_eq!(
        moves_from(&p, "c15"),
        set("c15", &format!("d16 b16 {lower}"))
    );
    // Double (cylinder along the files): up-right d16 e1 f2 g3 h4; up-left b16 a1.
    let p = pos("ecumenical-double-besiege", BISHOP_C15);
    assert_eq!(
        moves_from(&p, "c15"),
        set("c15", &format!("d16 e1 f2 g3 h4 b16 a1 {lower}"))
    );
    // Moebius, (x, y) = (7-x, y+16): up-right d16, then (4,16) = d1, c2, b3, a4: the file
    // direction reverses; up-left b16 then (0,16) = h1.
    let p = pos("ecumenical-moebius", BISHOP_C15);
    assert_eq!(
        moves_from(&p, "c15"),
        set("c15", &format!("d16 d1 c2 b3 a4 b16 h1 {lower}"))
    );
}

#[test]
fn crossing_the_moebius_join_changes_the_square_colour() {
    let v = Catalog::builtin().get("ecumenical-moebius").unwrap();
    let g = &v.geometry;
    let colour = |n: &str| g.colour(g.parse(n).unwrap());
    // A Camel keeps its colour on a plain board: c12, e12, a16, g16, a14, g14 are all the
    // colour of d15. Across the twist it lands on f2 and d2, the other colour.
    let p = pos(
        "ecumenical-moebius",
        "8/3C4/8/8/8/8/8/4k3/8/8/4K3/8/8/8/8/8 w - - 0 1",
    );
    assert_eq!(
        moves_from(&p, "d15"),
        set("d15", "c12 e12 a16 g16 a14 g14 f2 d2")
    );
    for same in ["c12", "e12", "a16", "g16", "a14", "g14"] {
        assert_eq!(colour(same), colour("d15"), "{same}");
    }
    for other in ["f2", "d2"] {
        assert_ne!(colour(other), colour("d15"), "{other}");
    }
    // The same Camel on the untwisted Double Besiege cylinder lands on c2 and e2: same colour.
    let p = pos(
        "ecumenical-double-besiege",
        "8/3C4/8/8/8/8/8/4k3/8/8/4K3/8/8/8/8/8 w - - 0 1",
    );
    assert_eq!(
        moves_from(&p, "d15"),
        set("d15", "c12 e12 a16 g16 a14 g14 c2 e2")
    );
    assert_eq!(colour("c2"), colour("d15"));
}

#[test]
fn file_loops_are_15_and_31_steps() {
    // A Rook on d12 with Kings b3 and g3: Single 15 file cells, Double 15 (the loop of 16),
    // Moebius 31 (d and e files joined into one loop of 32), plus 7 along rank 12. On the
    // Moebius board e12 lies both on the rank and on the loop: one move (G1), so 31 + 7 - 1.
    let state = "8/8/8/8/3R4/8/8/8/8/8/8/8/8/1K4k1/8/8 w - - 0 1";
    let count = |v: &str| moves_from(&pos(v, state), "d12").len();
    assert_eq!(count("ecumenical-besiege"), 15 + 7);
    assert_eq!(count("ecumenical-double-besiege"), 15 + 7);
    assert_eq!(count("ecumenical-moebius"), 31 + 7 - 1);
    let p = pos("ecumenical-moebius", state);
    let m = moves_from(&p, "d12");
    assert!(m.contains("d12e1") && m.contains("d12e16") && m.contains("d12d11"));
}

// ----- Besiege Pawns: direction by half, promotion where they meet the enemy ----------------

/// White Pawns c7 (up, promotes on c8) and f10 (down, promotes on f9); Black Pawns b2 (down,
/// promotes on b1) and g15 (up, promotes on g16); Kings e1/e8 with their Canvassers.
const PROMOTION: &str = "8/6p1/8/8/8/8/5P2/8/4k2v/2P5/8/8/8/8/1p6/4K2V w Kk - 0 1";

#[test]
fn besiege_pawns_promote_where_they_meet_the_enemy() {
    let p = pos("ecumenical-besiege", PROMOTION);
    // Ten choices each (E1), never staying a Pawn.
    let choices = "q m a g v l c r n b";
    let c7: BTreeSet<String> = choices.split(' ').map(|k| format!("c7c8{k}")).collect();
    let f10: BTreeSet<String> = choices.split(' ').map(|k| format!("f10f9{k}")).collect();
    assert_eq!(moves_from(&p, "c7"), c7);
    assert_eq!(moves_from(&p, "f10"), f10);
    // King e1 (d1 f1 d2 e2 f2 and O-O), Canvasser h1 (h2-h7, xh8, g1 f1, Camel g4 e2):
    // 5 + 1 + 11 + 10 + 10 = 37.
    assert_eq!(moves_from(&p, "e1"), set("e1", "d1 f1 d2 e2 f2 g1"));
    assert_eq!(
        moves_from(&p, "h1"),
        set("h1", "h2 h3 h4 h5 h6 h7 h8 g1 f1 g4 e2")
    );
    assert_eq!(p.legal_moves().len(), 37);
    assert_eq!(
        notation::san(&p, notation::parse_move(&p, "e1g1").unwrap()),
        "O-O"
    );

    // Black: b2 goes down and promotes on b1, g15 goes up and promotes on g16.
    let p = pos(
        "ecumenical-besiege",
        "8/6p1/8/8/8/8/5P2/8/4k2v/2P5/8/8/8/8/1p6/4K2V b Kk - 0 1",
    );
    assert_eq!(moves_from(&p, "b2").len(), 10);
    assert!(moves_from(&p, "b2").contains("b2b1q"));
    assert!(moves_from(&p, "g15").contains("g15g16n"));
    // A Pawn standing on its promotion rank is refused with a reason.
    let v = Catalog::builtin().get("ecumenical-besiege").unwrap();
    let e = fen::position(&v, "8/8/8/8/8/8/8/4P3/8/8/8/8/8/4k3/8/4K3 w - - 0 1").unwrap_err();
    assert!(e.to_string().contains("must promote"), "{e}");
}

#[test]
fn besiege_double_steps_and_en_passant_in_both_camps() {
    // White's upper Pawn e15 double-steps down to e13; Black's d13 takes it en passant on e14.
    let p = pos(
        "ecumenical-besiege",
        "8/4P3/8/3p4/8/8/8/8/4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    );
    assert_eq!(moves_from(&p, "e15"), set("e15", "e14 e13"));
    let mut p = p;
    p.play(notation::parse_move(&p, "e15e13").unwrap()).unwrap();
    assert_eq!(fen::write(&p).split(' ').nth(3), Some("e14"));
    // Black's d13 is in the upper half: it moves up (d14) and captures e14 en passant.
    assert_eq!(moves_from(&p, "d13"), set("d13", "d14 e14"));
    let ep = notation::parse_move(&p, "d13e14").unwrap();
    assert_eq!(ep.kind, rules::MoveKind::EnPassant);
}

// ----- Wraparound castling: the page's table ----------------------------------------------

/// Rank 1 with only the King on i1 and one partner; the Black King on i8.
fn castling_with(rank1: &str, partner: &str) -> Position {
    pos(
        "ecumenical-wraparound",
        &format!("8k7/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/{rank1} w {partner} - 0 1"),
    )
}

fn castlings(p: &Position) -> BTreeSet<String> {
    p.legal_moves()
        .into_iter()
        .filter(|m| m.kind == rules::MoveKind::Castle)
        .map(|m| {
            let g = &p.variant().geometry;
            format!(
                "{} K{} {}{}",
                notation::san(p, m),
                g.name(m.to),
                g.name(m.aux),
                g.name(m.aux2)
            )
        })
        .collect()
}

fn listed(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn wraparound_castling_table() {
    // Canvasser m1: Kingside K k1 V j1 (d = 4); Queenside around the wrap K c1 V d1 (d = 12).
    let p = castling_with("8K3V3", "m1");
    assert_eq!(castlings(&p), listed(&["O-O Kk1 m1j1", "O-O-O Kc1 m1d1"]));
    // Marshal p1: Kingside K m1 M l1; Queenside around the wrap K d1 M e1.
    let p = castling_with("8K6M", "p1");
    assert_eq!(castlings(&p), listed(&["O-O Km1 p1l1", "O-O-O Kd1 p1e1"]));
    // c-Rook: Kingside around the wrap K n1 R m1; Queenside K f1 R g1.
    let p = castling_with("2R5K7", "c1");
    assert_eq!(castlings(&p), listed(&["O-O Kn1 c1m1", "O-O-O Kf1 c1g1"]));
    // k-Rook: Queenside only (around the wrap, K b1 R c1); Kingside (d = 2) is not listed.
    let p = castling_with("8K1R5", "k1");
    assert_eq!(castlings(&p), listed(&["O-O-O Kb1 k1c1"]));
    // Queen h1: Kingside only, the long way round, K a1 Q p1; Queenside (d = 1) not listed.
    let p = castling_with("7QK7", "h1");
    assert_eq!(castlings(&p), listed(&["O-O Ka1 h1p1"]));
}

#[test]
fn wraparound_castling_needs_the_whole_way_empty_and_safe() {
    // With the c-Rook and the Canvasser both present, each blocks the other's wrapping
    // castlings: only c1 Queenside (f1) and m1 Kingside (k1) remain.
    let p = castling_with("2R5K3V3", "c1,m1");
    assert_eq!(castlings(&p), listed(&["O-O Kk1 m1j1", "O-O-O Kf1 c1g1"]));
    // Canvasser and Marshal: the Canvasser blocks the Marshal's Kingside castling and the
    // Marshal the Canvasser's Queenside one (the partners on one wing lie on one ray, so at
    // most one castling per wing is ever possible).
    let p = castling_with("8K3V2M", "m1,p1");
    assert_eq!(castlings(&p), listed(&["O-O Kk1 m1j1", "O-O-O Kd1 p1e1"]));
    // The Queen's castling crosses eight cells (j1 .. p1, a1); a Rook on n8 eyeing n1 stops it,
    // though neither the King's start nor its destination is attacked.
    let p = pos(
        "ecumenical-wraparound",
        "8k4r2/16/16/16/16/16/PPPPPPPPPPPPP1PP/7QK7 w h1 - 0 1",
    );
    assert!(castlings(&p).is_empty());
    let p = pos(
        "ecumenical-wraparound",
        "8k4r2/16/16/16/16/16/PPPPPPPPPPPPPPPP/7QK7 w h1 - 0 1",
    );
    assert_eq!(castlings(&p), listed(&["O-O Ka1 h1p1"]));
}

#[test]
fn wraparound_castling_plays_and_notates() {
    let mut p = castling_with("2R5K7", "c1");
    let m = notation::parse_move(&p, "O-O").unwrap();
    assert_eq!(notation::coord(&p, m), "i1n1");
    p.play(m).unwrap();
    assert!(
        fen::write(&p).starts_with("8k7/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/12RK2 b")
    );
    // No right is left.
    assert_eq!(fen::write(&p).split(' ').nth(2), Some("-"));
}

// ----- symmetry ---------------------------------------------------------------------------

/// The position mirrored top to bottom *without* swapping colours: Besiege boards are
/// symmetric that way (White's two camps trade places, so do Black's), not under the usual
/// colour flip.
fn ranks_mirrored(p: &Position) -> Position {
    let v = p.variant();
    let g = &v.geometry;
    let h = g.shape().height as i32;
    let map = |c: rules::Cell| {
        let i = g.info(c);
        g.at(i.board, i.file as i32, h - 1 - i.rank as i32).unwrap()
    };
    let s = p.to_setup();
    let mut board = vec![None; s.board.len()];
    for c in g.cells() {
        board[map(c).index()] = s.board[c.index()];
    }
    let setup = rules::Setup {
        board,
        castling: s.castling.iter().map(|c| map(*c)).collect(),
        ep: s.ep.map(map),
        ..s
    };
    Position::from_setup(v, setup).unwrap()
}

#[test]
fn besiege_forms_are_symmetric_top_to_bottom() {
    for v in [
        "ecumenical-besiege",
        "ecumenical-double-besiege",
        "ecumenical-moebius",
    ] {
        for (plies, seed) in [(0, 0), (12, 3), (20, 9)] {
            let mut p = random_position(v, plies, seed);
            let mut q = ranks_mirrored(&p);
            assert_eq!(perft(&mut q, 2), perft(&mut p, 2), "{v} {}", fen::write(&p));
        }
        let mut p = pos(v, PROMOTION);
        let mut q = ranks_mirrored(&p);
        assert_eq!(perft(&mut q, 2), perft(&mut p, 2), "{v} promotion");
    }
}

// ----- Quadruple Besiege: the torus, radial Pawns, the 7-step Bishop ----------------------

#[test]
fn quadruple_start_by_hand() {
    // Pawns step towards the nearest join: c7-f7 up, c2-f2 down, b3-b6 left, g3-g6 right (16).
    // Bishop c6 runs b7 a8 and on across the join to h1 g2 (the diagonal loops after 8).
    // Knight d3: b2 c1 e1. Camels f3: i2 i4 (across the side seam) and m8 o8 (down through the
    // join onto the other board's top rank); f4: g7 e1 g1 i3 i5. Gnu c4: Knight a3 a5 b2, Camel
    // b1 b7 d1 p3 p5. Caliph c5 (Camel b2 b8 d8 p4 p6), f5 (Camel e8 g8 g2 i4 i6), Canvasser d6
    // (Camel a5 a7 g7 k1 m1), Knight e6 (d8 f8 g7). 16 + 4 + 3 + 4 + 5 + 8 + 5 + 5 + 5 + 3 = 58.
    let p = start("ecumenical-quadruple");
    assert_eq!(moves_from(&p, "c6"), set("c6", "b7 a8 h1 g2"));
    assert_eq!(moves_from(&p, "f3"), set("f3", "i2 i4 m8 o8"));
    assert_eq!(moves_from(&p, "c4"), set("c4", "a3 a5 b2 b1 b7 d1 p3 p5"));
    assert_eq!(moves_from(&p, "d6"), set("d6", "a5 a7 g7 k1 m1"));
    for (cell, to) in [("c7", "c8"), ("e2", "e1"), ("b4", "a4"), ("g5", "h5")] {
        assert_eq!(moves_from(&p, cell), set(cell, to), "no double step");
    }
    assert_eq!(p.legal_moves().len(), 58);
}

#[test]
fn quadruple_loops_are_16_and_8() {
    // Rook d4: rank 4 round both boards (15) and the d-file, which continues on the other
    // board's l-file (15); l4 lies on both loops: one move (G1). 29 + King h2's 8.
    let p = pos(
        "ecumenical-quadruple",
        "16/16/13k2/16/3R12/16/7K8/16 w - - 0 1",
    );
    assert_eq!(moves_from(&p, "d4").len(), 15 + 15 - 1);
    assert!(moves_from(&p, "d4").contains("d4l1"));
    // Bishop d4: the a1-h8 diagonal loops onto itself (7 cells), the other runs e3 f2 g1, over
    // the corner to p8, a7 b6 c5 (7): at most 7 steps, as the page says.
    let p = pos(
        "ecumenical-quadruple",
        "16/16/13k2/16/3B12/16/7K8/16 w - - 0 1",
    );
    assert_eq!(
        moves_from(&p, "d4"),
        set("d4", "e5 f6 g7 h8 a1 b2 c3 e3 f2 g1 p8 a7 b6 c5")
    );
}

#[test]
fn quadruple_pawns_on_long_diagonals() {
    // White Pawn b2 stands on its own board's long diagonal (never reached in play): it faces
    // diagonally outward, stepping a2 or b1. White Pawn j2, on the enemy board's long diagonal,
    // faces inward: quiet steps j3 and k2, and the only capture is up the diagonal onto k3,
    // which enters the enemy block and promotes (ten choices); i3 is not attacked.
    let p = pos(
        "ecumenical-quadruple",
        "15k/16/7K8/16/16/8p1p5/1P7P6/16 w - - 0 1",
    );
    assert_eq!(moves_from(&p, "b2"), set("b2", "a2 b1"));
    let mut want = set("j2", "j3 k2");
    want.extend("q m a g v l c r n b".split(' ').map(|k| format!("j2k3{k}")));
    assert_eq!(moves_from(&p, "j2"), want);
    assert_eq!(p.legal_moves().len(), 22);
    // The black Pawn k3 faces down-left: it attacks j2 only; i3 faces left: h2 and h4.
    let g = &p.variant().geometry;
    let cell = |n: &str| g.parse(n).unwrap();
    assert!(p.is_attacked(cell("j2"), rules::Side::BLACK));
    assert!(!p.is_attacked(cell("l2"), rules::Side::BLACK));
    assert!(p.is_attacked(cell("h4"), rules::Side::BLACK));
}

#[test]
fn quadruple_pawn_captures_from_one_file_name_their_cell() {
    // Black's Pawns j3 and j5 both face left (towards the nearest join of their own board) and
    // both attack the Knight on i4: "jxi4" would be ambiguous, so SAN names the whole cell.
    let p = pos(
        "ecumenical-quadruple",
        "7K8/16/16/9p6/8N7/9p6/16/3k12 b - - 0 1",
    );
    let sans: BTreeSet<String> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.is_capture())
        .map(|m| notation::san(&p, m))
        .collect();
    assert!(sans.contains("j3xi4") && sans.contains("j5xi4"), "{sans:?}");
    for s in ["j3xi4", "j5xi4"] {
        let m = notation::parse_move(&p, s).unwrap();
        assert_eq!(notation::san(&p, m), s);
    }
    assert!(matches!(
        notation::parse_move(&p, "jxi4"),
        Err(notation::MoveTextError::Ambiguous { .. })
    ));
}
