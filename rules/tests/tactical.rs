//! `Position::legal_tactical_into` (the quiescence search's generator) against the full
//! generator, which the perft tables prove: at every node of the perft tables' positions two
//! plies deep, in every variant they cover, the tactical moves must be exactly the legal
//! moves that capture, promote or push, in the same order.

mod common;
use common::perft_cases;

use rules::{Catalog, MoveList, Position, fen, notation};

/// Nodes visited per perft position at most (the wide boards' second ply is large).
const NODES_PER_CASE: usize = 200;

fn check(p: &Position, what: &str, all: &mut MoveList, tactical: &mut MoveList) -> usize {
    p.legal_moves_into(all);
    p.legal_tactical_into(tactical);
    let expected: Vec<String> = all
        .iter()
        .filter(|m| m.is_tactical())
        .map(|m| notation::coord(p, *m))
        .collect();
    let got: Vec<String> = tactical.iter().map(|m| notation::coord(p, *m)).collect();
    assert_eq!(got, expected, "{what}: {}", fen::write(p));
    tactical.len()
}

#[test]
fn tactical_moves_are_the_legal_captures_promotions_and_pushes() {
    let catalog = Catalog::builtin();
    let (mut all, mut tactical) = (MoveList::new(), MoveList::new());
    let (mut nodes, mut found) = (0, 0);
    let mut variants = std::collections::BTreeSet::new();
    for case in perft_cases("data") {
        let variant = catalog.get(&case.variant).unwrap();
        let what = format!("{} {}", case.file, case.id);
        let mut p = fen::position(&variant, &case.epd).unwrap();
        variants.insert(case.variant.clone());
        let mut visited = 0;
        found += check(&p, &what, &mut all, &mut tactical);
        'first: for m in p.legal_moves() {
            p.play_unchecked(m);
            found += check(&p, &what, &mut all, &mut tactical);
            for r in p.legal_moves() {
                p.play_unchecked(r);
                found += check(&p, &what, &mut all, &mut tactical);
                p.undo();
                visited += 1;
                if visited >= NODES_PER_CASE {
                    p.undo();
                    break 'first;
                }
            }
            p.undo();
        }
        nodes += visited;
    }
    // The check must have had something to compare: many positions, many variants, and
    // tactical moves by the tens of thousands (captures, en passant, promotions).
    assert!(nodes > 10_000, "only {nodes} positions");
    assert!(variants.len() >= 8, "only {variants:?}");
    // Bilateral's special powers have a generator of their own, which filters before its
    // legality tests.
    assert!(
        variants.contains("bilateral"),
        "no Bilateral in {variants:?}"
    );
    assert!(found > 50_000, "only {found} tactical moves");
}

/// The cases the generator treats apart, each in one position: a quiet promotion (kept, in
/// every choice), a capturing one, en passant that would expose the King (dropped), a pinned
/// capturer, and check (only the captures that parry it).
#[test]
fn the_hard_cases_of_chess() {
    let v = Catalog::builtin().get("chess").unwrap();
    let cases = [
        // White's b7 pawn promotes by stepping to b8 and by taking the a8 Rook (four
        // choices each); the Knight on e5 takes on d7 or f7.
        ("r3k3/1P1p1p2/8/4N3/8/8/8/4K3 w - - 0 1", 10),
        // En passant on d6 would open the fifth rank between the h5 Rook and the King on
        // a5: no legal tactical move.
        ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", 0),
        // The e2 Bishop is pinned by the e8 Rook: its capture on d3 is illegal, the a8
        // Queen's capture of the Rook is not.
        ("Q3r2k/8/8/8/8/3p4/4B3/4K3 w - - 0 1", 1),
        // In check from the Knight on d3: only taking it helps (the Queen can).
        ("4k3/8/8/8/8/3n4/8/3QK3 w - - 0 1", 1),
    ];
    let (mut all, mut tactical) = (MoveList::new(), MoveList::new());
    for (state, n) in cases {
        let p = fen::position(&v, state).unwrap();
        assert_eq!(check(&p, state, &mut all, &mut tactical), n, "{state}");
    }
}
