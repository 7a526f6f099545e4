//! Double Cross Besiege, two players: the cruciform board with holes, the solid-block rule, the
//! circular and Moebius joins, confined Pawns that face the enemy camp their own camp faces,
//! the depth-1 counts of the perft table's positions, and CoBlaChe's rivers, sections and
//! victory (rulebook `double-cross-besiege.md` 4.1-4.5, 4.7, decision 6, fine points D1-D5).
//! Every expected list was worked out by hand.
//!
//! The "random-3" positions of `tests/data/double-cross.perft` come from the pseudo-random play
//! described in `tests/ecumenical.rs` (30 plies, seed 3); a test checks one still matches.

use std::collections::BTreeSet;

mod common;

use common::{moves_from, pos, random_position, start};
use rules::{Catalog, Position, fen, notation, perft::perft};

fn set(from: &str, tos: &str) -> BTreeSet<String> {
    tos.split_whitespace()
        .map(|t| format!("{from}-{t}"))
        .collect()
}

const FORMS: [&str; 3] = ["", "-circular", "-moebius"];

#[test]
fn random_positions_of_the_perft_table_are_reproducible() {
    assert_eq!(
        fen::write(&random_position("dcb-balanced", 30, 3)),
        "**R1BR**/**4**/2N1PP2/2PPn3/3pp3/2p2p2/**1b2**/**rr2**/**2kn**/**2p1**/8/2p2b2/2N5/3q4/**1Q1P**/**B1K1** w - - 2 16"
    );
}

#[test]
fn the_board_has_96_cells_and_letter_ranks() {
    let v = Catalog::builtin().get("dcb-balanced").unwrap();
    let g = &v.geometry;
    assert_eq!(g.len(), 96);
    for hole in ["ak", "bl", "gq", "hr", "as", "bt", "gy", "hz"] {
        assert!(g.parse(hole).is_none(), "{hole} is a hole");
    }
    for cell in ["ck", "fz", "am", "hp", "au", "hx", "dl", "es"] {
        assert!(g.parse(cell).is_some(), "{cell} exists");
    }
    // A piece on a hole is refused, with the fix.
    let e = fen::position(
        &v,
        "R***/**4**/8/8/8/8/**4**/**4**/**4**/**4**/8/8/8/8/**4**/**K1k1** w",
    )
    .unwrap_err();
    assert!(e.to_string().contains("hole"), "{e}");
}

#[test]
fn balanced_start_has_19_moves_in_every_form() {
    // Knight fk: em (dl is its own Pawn; gm's 2x3 block lacks gk and gl). Knight dz: cx ex.
    // 8 Pawns x 2 (l up, y down). The joins add nothing: everything across them is White's
    // own (fk to ey/dz circular, dy/ez Moebius; dz to cl/el or the mirrored cells).
    for form in FORMS {
        let p = start(&format!("dcb-balanced{form}"));
        let mut expected = set("fk", "em");
        expected.extend(set("dz", "cx ex"));
        for f in ["c", "d", "e", "f"] {
            expected.extend(set(&format!("{f}l"), &format!("{f}m {f}n")));
            expected.extend(set(&format!("{f}y"), &format!("{f}x {f}w")));
        }
        let got: BTreeSet<String> = p
            .legal_moves()
            .into_iter()
            .map(|m| notation::coord(&p, m))
            .collect();
        assert_eq!(got, expected, "dcb-balanced{form}");
    }
}

#[test]
fn queen_lines_keep_to_solid_blocks() {
    // Queen dl, King hp, black King au: up the d-file 14, dk, cl, el fl; dl-cm-bn-ao (each step
    // in a solid 2x2 block); em fn go (hp is her own King); ck; ek. 26 in all.
    let p = pos(
        "dcb-balanced",
        "**4**/**4**/8/8/8/k7/**4**/**4**/**4**/**4**/7K/8/8/8/**1Q2**/**4** w - - 0 1",
    );
    let want = set(
        "dl",
        "dm dn do dp dq dr ds dt du dv dw dx dy dz dk cl el fl cm bn ao em fn go ck ek",
    );
    assert_eq!(moves_from(&p, "dl"), want);
    assert_eq!(want.len(), 26);
}

#[test]
fn king_diagonals_keep_to_solid_blocks() {
    // King cl: ck dk dl dm cm; not bm, although it exists (cl-bm needs bl, a hole: D2).
    let p = pos(
        "dcb-balanced",
        "**4**/**4**/8/8/8/k7/**4**/**4**/**4**/**4**/8/8/8/8/**K3**/**4** w - - 0 1",
    );
    assert_eq!(moves_from(&p, "cl"), set("cl", "ck dk dl dm cm"));
}

#[test]
fn gnu_across_the_joins() {
    // Wildebeest Gnu on fk, King hp, black King au. Knight leaps need a solid 2x3 block, Camel
    // leaps do not (they fly over the holes).
    let state = "**4**/**4**/8/8/8/k7/**4**/**4**/**4**/**4**/7K/8/8/8/**4**/**3G** w - - 0 1";
    // Single: Knight em dl (gm lacks gk, gl); Camel en gn cl.
    let p = pos("dcb-wildebeest", state);
    assert_eq!(moves_from(&p, "fk"), set("fk", "em dl en gn cl"));
    // Circular: below fk lies fz, so also Knight ey dz (D1) and Camel ex gx cz.
    let p = pos("dcb-wildebeest-circular", state);
    assert_eq!(
        moves_from(&p, "fk"),
        set("fk", "em dl en gn cl ey dz ex gx cz")
    );
    // Moebius: below fk lies cz, mirrored: Knight dy ez (D1) and Camel dx bx fz.
    let p = pos("dcb-wildebeest-moebius", state);
    assert_eq!(
        moves_from(&p, "fk"),
        set("fk", "em dl en gn cl dy ez dx bx fz")
    );
}

#[test]
fn file_loops_and_dead_ends() {
    // Rook dm: single 14 up the d-file (dn..dz) and dl dk, plus 7 on rank m.
    let state = "**4**/**4**/8/8/8/k7/**4**/**4**/**4**/**4**/7K/8/8/3R4/**4**/**4** w - - 0 1";
    let count = |v: &str| moves_from(&pos(v, state), "dm").len();
    assert_eq!(count("dcb-balanced"), 15 + 7);
    // Circular: the d-file is a loop of 16 (15 steps, G1: one move per cell).
    assert_eq!(count("dcb-balanced-circular"), 15 + 7);
    // Moebius: d and e make one loop of 32 (31 steps); em is on the loop and on the rank.
    assert_eq!(count("dcb-balanced-moebius"), 31 + 7 - 1);
    // A Rook on am: the a-file ends at the holes aq and al.
    let p = pos(
        "dcb-balanced-moebius",
        "**4**/**4**/8/8/8/k7/**4**/**4**/**4**/**4**/7K/8/8/R7/**4**/**4** w - - 0 1",
    );
    assert_eq!(
        moves_from(&p, "am"),
        set("am", "an ao ap bm cm dm em fm gm hm")
    );
}

#[test]
fn pawns_keep_to_files_c_to_f() {
    // White Pawn cn (moving up): co, and the capture on do; not the Knight on bo (file b).
    let p = pos(
        "dcb-balanced",
        "**4**/**4**/8/8/8/k7/**4**/**4**/**4**/**4**/8/1n1r4/2P5/8/**4**/**2K1** w - - 0 1",
    );
    assert_eq!(moves_from(&p, "cn"), set("cn", "co do"));
}

/// Position "promotions" of the perft table: Pawns cq (White, up) and ft (White, down) one step
/// from promotion, el (Black, down) and dy (Black, up) likewise.
const PROMOTIONS: &str =
    "**4**/**1p2**/6B1/7r/3k4/7q/**3P**/**4**/**4**/**P3**/Q7/1n6/2R5/4K3/**2p1**/**4** w - - 0 1";

#[test]
fn pawns_promote_where_they_meet_the_enemy_piece_rank() {
    let p = pos("dcb-balanced", PROMOTIONS);
    // White: cq up to cr, ft down to fs; four choices each (Q R B N: D3).
    assert_eq!(moves_from(&p, "cq"), set("cq", "cr=Q cr=R cr=B cr=N"));
    assert_eq!(moves_from(&p, "ft"), set("ft", "fs=Q fs=R fs=B fs=N"));
    let p = pos("dcb-balanced", &PROMOTIONS.replace(" w ", " b "));
    assert_eq!(moves_from(&p, "el").len(), 4);
    assert!(moves_from(&p, "el").contains("el-ek=Q"));
    assert!(moves_from(&p, "dy").contains("dy-dz=N"));
    // The Kamil army promotes to its own pieces (Q M A R B), not to a Knight.
    let v = Catalog::builtin().get("dcb-kamil").unwrap();
    let letters: String = v
        .promotion
        .choices
        .iter()
        .map(|k| v.piece(*k).letter)
        .collect();
    assert_eq!(letters, "QMARB");
}

/// Position "en-passant" of the perft table: Black just played dq-do; White's eo may take it.
const EN_PASSANT: &str =
    "**B2R**/**4**/8/8/8/8/**4**/**r2b**/**2k1**/**4**/6n1/3pP3/8/1N6/**P2P**/**2K1** w - dp 0 1";

#[test]
fn en_passant_position_by_hand() {
    // Single: King ek (dk fk dl el), Pawn eo (ep, x dp e.p.), Pawns cl (cm cn), fl (fm fn),
    // Knight bm (co ao dn; dl's block lacks bl), Bishop cz (dy ex fw gv hu), Rook fz (fy..ft,
    // x fs, ez dz): 4 + 2 + 2 + 2 + 3 + 5 + 9 = 27.
    let p = pos("dcb-balanced", EN_PASSANT);
    assert_eq!(moves_from(&p, "eo"), set("eo", "ep dp"));
    assert_eq!(moves_from(&p, "bm"), set("bm", "co ao dn"));
    assert_eq!(moves_from(&p, "cz"), set("cz", "dy ex fw gv hu"));
    assert_eq!(p.legal_moves().len(), 27);
    let ep = notation::parse_move(&p, "eo-dp").unwrap();
    assert_eq!(ep.kind, rules::MoveKind::EnPassant);
    // `ep` is also a cell (file e, rank p): "eo-ep" is the quiet step there, in both parsers.
    let step = notation::parse_coord(&p, "eo-ep").unwrap();
    assert_eq!(p.variant().geometry.name(step.to), "ep");
    assert_eq!(notation::parse_move(&p, "eoep"), Ok(step));
    // Circular: King also ez dz, Bishop cz up through the join dk el fm gn ho, Rook fk: 35.
    let p = pos("dcb-balanced-circular", EN_PASSANT);
    assert_eq!(moves_from(&p, "ek"), set("ek", "dk fk dl el ez dz"));
    assert_eq!(
        moves_from(&p, "cz"),
        set("cz", "dy ex fw gv hu dk el fm gn ho")
    );
    assert_eq!(p.legal_moves().len(), 35);
    // Moebius: King dz ez (cz is its own Bishop), Rook fz up to ck (cl is its own Pawn), and
    // the Bishop's way up runs into its own King: 30.
    let p = pos("dcb-balanced-moebius", EN_PASSANT);
    assert_eq!(moves_from(&p, "ek"), set("ek", "dk fk dl el dz ez"));
    assert!(moves_from(&p, "fz").contains("fz-ck"));
    assert_eq!(moves_from(&p, "cz"), set("cz", "dy ex fw gv hu"));
    assert_eq!(p.legal_moves().len(), 30);
}

// ----- symmetry ---------------------------------------------------------------------------

/// The position mirrored top to bottom and/or left to right, colours kept: both are symmetries
/// of every 2-player Double Cross form (no castling; the Moebius join commutes with both).
fn mirrored(p: &Position, ranks: bool, files: bool) -> Position {
    let v = p.variant();
    let g = &v.geometry;
    let (w, h) = (g.shape().width as i32, g.shape().height as i32);
    let map = |c: rules::Cell| {
        let i = g.info(c);
        let x = if files {
            w - 1 - i.file as i32
        } else {
            i.file as i32
        };
        let y = if ranks {
            h - 1 - i.rank as i32
        } else {
            i.rank as i32
        };
        g.at(i.board, x, y).unwrap()
    };
    let s = p.to_setup();
    let mut board = vec![None; s.board.len()];
    for c in g.cells() {
        board[map(c).index()] = s.board[c.index()];
    }
    let setup = rules::Setup {
        board,
        ep: s.ep.map(map),
        ..s
    };
    Position::from_setup(v, setup).unwrap()
}

#[test]
fn every_form_is_symmetric_under_both_mirrors() {
    for army in [
        "balanced",
        "unbalanced",
        "kamil",
        "wildebeest",
        "knighted",
        "coblache",
    ] {
        for form in FORMS {
            let v = format!("dcb-{army}{form}");
            for (plies, seed) in [(0, 0), (16, 5), (30, 3)] {
                let mut p = random_position(&v, plies, seed);
                let n = perft(&mut p, 2);
                for (r, f) in [(true, false), (false, true), (true, true)] {
                    let mut q = mirrored(&p, r, f);
                    assert_eq!(perft(&mut q, 2), n, "{v} {} mirror {r} {f}", fen::write(&p));
                }
            }
        }
    }
    for form in FORMS {
        let mut p = pos(&format!("dcb-balanced{form}"), EN_PASSANT);
        let mut q = mirrored(&p, true, true);
        assert_eq!(perft(&mut q, 3), perft(&mut p, 3), "en-passant {form}");
    }
}

#[test]
fn pawn_san_and_coordinates_with_letter_ranks() {
    // With letter ranks, the Pawn ew (upper half, facing down) taking dv is "exdv" and the Gnu
    // on ex going to dv is "ex-dv": exact canonical coordinates and exact SAN each name their
    // own move.
    let p = pos(
        "dcb-wildebeest",
        "**4**/**4**/4G3/4P3/3p4/8/**4**/**4**/**k3**/**4**/8/8/8/8/**4**/**3K** w - - 0 1",
    );
    let pawn = notation::parse_move(&p, "exdv").unwrap();
    let gnu = notation::parse_move(&p, "ex-dv").unwrap();
    assert_ne!(pawn, gnu);
    assert_eq!(p.variant().geometry.name(pawn.from), "ew");
    assert_eq!(notation::san(&p, pawn), "exdv");
    assert_eq!(notation::san(&p, gnu), "Gxdv");
    assert_eq!(notation::coord(&p, gnu), "ex-dv");
}

// ----- CoBlaChe ----------------------------------------------------------------------------

#[test]
fn coblache_start_has_12_moves() {
    // No King. Pawns step once (no double step): cl..fl up, cy..fy down (8). Marshal ck: only
    // the Knight leap dm (bm's block lacks bk). Frog fk: the Threeleaper leap fn (el is its own
    // Pawn, gl a hole). Marshal cz: dx. Frog dz: dw. Queen, Prince and Bishops are boxed in.
    let p = start("dcb-coblache");
    let mut expected = set("ck", "dm");
    expected.extend(set("fk", "fn"));
    expected.extend(set("cz", "dx"));
    expected.extend(set("dz", "dw"));
    for f in ["c", "d", "e", "f"] {
        expected.extend(set(&format!("{f}l"), &format!("{f}m")));
        expected.extend(set(&format!("{f}y"), &format!("{f}x")));
    }
    let got: BTreeSet<String> = p
        .legal_moves()
        .into_iter()
        .map(|m| notation::coord(&p, m))
        .collect();
    assert_eq!(got, expected);
    assert!(!p.is_check() && p.royal(rules::Side::WHITE).is_none());
}

/// Black Queen dx and Prince dv (sections 3 and 2), White Queen dk and Prince ek (section 0),
/// White Pawn cn before the n|o river, White Wazir er before the middle river; White has one
/// Marshal (hm), one Frog (fm) and no Bishop on the board.
const RIVERS: &str =
    "**m3**/**4**/f2q4/8/3i4/8/**4**/**3b**/**2W1**/**4**/8/8/2P5/5F1M/**4**/**1QI1** w - - 0 1";

#[test]
fn coblache_river_promotions() {
    let p = pos("dcb-coblache", RIVERS);
    // Crossing an outer river, a Pawn becomes a Wazir at once.
    assert_eq!(moves_from(&p, "cn"), set("cn", "co=W"));
    // Crossing the middle river, a Wazir may stay, or become a kind White has fewer of than at
    // the start (Marshal, Bishop, Frog; not the Queen or Prince, both still on the board).
    // Its other steps cross nothing.
    assert_eq!(
        moves_from(&p, "er"),
        set("er", "es es=M es=B es=F dr fr eq")
    );
}

#[test]
fn coblache_queen_and_prince_shun_the_enemy_royal_sections() {
    let p = pos("dcb-coblache", RIVERS);
    // The d-file is open to dv (the black Prince), but ds..dv lie in its section: the Queen
    // stops on dr, and may not capture the Prince. Diagonally dk-el-fm is her own Frog; dk-cl.
    assert_eq!(
        moves_from(&p, "dk"),
        set("dk", "ck dl dm dn do dp dq dr el cl")
    );
    assert_eq!(moves_from(&p, "ek"), set("ek", "fk el fl dl"));
    // Once the Prince has left for dw (section 3), the Queen may go up to dv.
    let moved = RIVERS.replace("8/3i4/8/**4**", "3i4/8/8/**4**");
    let p = pos("dcb-coblache", &moved);
    assert!(moves_from(&p, "dk").contains("dk-dv"));
    assert!(!moves_from(&p, "dk").contains("dk-dw"));
    // A refused move says why.
    let p = pos("dcb-coblache", RIVERS);
    let e = notation::parse_move(&p, "dk-ds").unwrap_err();
    assert!(e.to_string().contains("section"), "{e}");
}

#[test]
fn coblache_is_won_by_capturing_one_of_each() {
    // Black has already lost its Prince, a Marshal, a Bishop and a Frog; the White Bishop takes
    // the Queen on dq (the White Queen may not: dq's section holds her). That wins at once.
    let state = "**4**/**4**/8/8/8/8/**4**/**4**/**4**/**1q2**/8/5B2/8/4p3/**4**/**1QI1** w - - 0 1 captured:bfim";
    let mut p = pos("dcb-coblache", state);
    assert_eq!(p.outcome(), None);
    assert!(!moves_from(&p, "dk").iter().any(|m| m.ends_with("do")));
    p.play(notation::parse_move(&p, "Bxdq").unwrap()).unwrap();
    assert_eq!(
        p.outcome(),
        Some(rules::Outcome::Win {
            winner: rules::Side::WHITE,
            reason: rules::WinReason::Captures
        })
    );
    assert!(
        p.legal_moves().is_empty(),
        "nothing is played after the win"
    );
    let text = fen::write(&p);
    assert!(text.ends_with("captured:bfimq"), "{text}");
    // Cumulative: the captures stand even if Black has a Queen again (re-promoted).
    let again = pos(
        "dcb-coblache",
        &text.replace("**4**/**4**/8", "**4**/**q3**/8"),
    );
    assert!(matches!(again.outcome(), Some(rules::Outcome::Win { .. })));
    // Undo takes the capture back.
    p.undo().unwrap();
    assert_eq!(p.outcome(), None);
    assert_eq!(fen::write(&p), state);
}
