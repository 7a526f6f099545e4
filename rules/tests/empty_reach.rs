//! `Variant::empty_board_reach`: movement on an empty board, as the engine's piece values read
//! it, follows the variant's own geometry (edges, wraps, holes).

use rules::{Catalog, Side};

/// Total reach of a kind over every cell of the board, for White.
fn total(variant: &str, letter: char) -> usize {
    let v = Catalog::builtin().get(variant).unwrap();
    let k = v.kind_by_letter(letter).unwrap();
    v.geometry
        .cells()
        .map(|c| v.empty_board_reach(k, Side::WHITE, c).len())
        .sum()
}

#[test]
fn chess_mobility_sums_are_the_known_ones() {
    // Knight 336, Bishop 560, Rook 896, Queen 1456, King 420 over the 64 cells.
    assert_eq!(total("chess", 'N'), 336);
    assert_eq!(total("chess", 'B'), 560);
    assert_eq!(total("chess", 'R'), 896);
    assert_eq!(total("chess", 'Q'), 1456);
    assert_eq!(total("chess", 'K'), 420);
}

#[test]
fn a_cylinder_gives_a_rook_every_file_of_its_rank() {
    // 16x8 with files p and a adjacent: from every cell, 15 cells along the rank and 7 along
    // the file; on the flat Northern board the same Rook has the same counts (a rook's line
    // count does not depend on where it stands), but a Knight gains at the seam.
    let v = Catalog::builtin().get("ecumenical-wraparound").unwrap();
    let r = v.kind_by_letter('R').unwrap();
    for c in v.geometry.cells() {
        assert_eq!(v.empty_board_reach(r, Side::WHITE, c).len(), 15 + 7);
    }
    assert!(total("ecumenical-wraparound", 'N') > total("ecumenical-northern", 'N'));
}

#[test]
fn holes_are_never_reached_and_rides_count_their_blockers() {
    let v = Catalog::builtin().get("dcb-balanced").unwrap();
    for k in v.kinds() {
        for c in v.geometry.cells() {
            for r in v.empty_board_reach(k, Side::WHITE, c) {
                assert!(r.cell.index() < v.geometry.len());
                assert_ne!(r.cell, c, "a piece never reaches its own cell");
                assert!(r.moves || r.captures);
            }
        }
    }
    let chess = Catalog::builtin().get("chess").unwrap();
    let g = &chess.geometry;
    let rook = chess.kind_by_letter('R').unwrap();
    let reach = chess.empty_board_reach(rook, Side::WHITE, g.parse("a1").unwrap());
    let mut on_file: Vec<u8> = reach
        .iter()
        .filter(|r| g.name(r.cell).starts_with('a'))
        .map(|r| r.blockers)
        .collect();
    on_file.sort();
    assert_eq!(on_file, [0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn pawns_reach_forward_and_capture_diagonally() {
    let chess = Catalog::builtin().get("chess").unwrap();
    let g = &chess.geometry;
    let pawn = chess.kind_by_letter('P').unwrap();
    let mut reach = chess.empty_board_reach(pawn, Side::WHITE, g.parse("e2").unwrap());
    reach.sort_by_key(|r| r.cell);
    let names: Vec<(&str, bool, bool)> = reach
        .iter()
        .map(|r| (g.name(r.cell), r.moves, r.captures))
        .collect();
    assert_eq!(
        names,
        [
            ("d3", false, true),
            ("e3", true, false),
            ("f3", false, true),
            ("e4", true, false)
        ]
    );
    let black = chess.empty_board_reach(pawn, Side::BLACK, g.parse("e7").unwrap());
    assert!(black.iter().any(|r| g.name(r.cell) == "e5"));
}
