//! Notation forgiveness over every built-in variant (issue 13, item 12): castling with zeros,
//! the same reason for a refused SAN move as for its coordinates, and a promotion typed without
//! its piece answered with the choices.

use rules::{Catalog, Move, MoveKind, Position, notation, notation::MoveTextError};

fn next(seed: &mut u64) -> usize {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 33) as usize
}

/// Positions of seeded random games in every built-in variant, with the variant's name.
fn positions(games: u64, plies: usize) -> Vec<(String, Position)> {
    let catalog = Catalog::builtin();
    let mut out = Vec::new();
    for name in catalog.names() {
        let v = catalog.get(&name).unwrap();
        for game in 0..games {
            let mut seed = game * 104_729 + name.len() as u64;
            let mut pos = Position::start(&v);
            for _ in 0..plies {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                // Castling and promotions are rare in random play: prefer them when offered.
                let rare: Vec<Move> = legal
                    .iter()
                    .copied()
                    .filter(|m| m.kind == MoveKind::Castle || m.promotion.is_some())
                    .collect();
                let m = if !rare.is_empty() && next(&mut seed).is_multiple_of(3) {
                    rare[next(&mut seed) % rare.len()]
                } else {
                    legal[next(&mut seed) % legal.len()]
                };
                out.push((name.clone(), pos.clone()));
                pos.play_unchecked(m);
            }
        }
    }
    out
}

#[test]
fn castling_with_zeros_or_letters_in_every_variant() {
    let mut castles = 0;
    for (name, pos) in positions(10, 80) {
        let legal = pos.legal_moves();
        for m in legal.iter().filter(|m| m.kind == MoveKind::Castle) {
            castles += 1;
            let san = notation::san(&pos, *m);
            for typed in [san.replace('O', "0"), san.replace('O', "o"), san.clone()] {
                assert_eq!(
                    notation::parse_move(&pos, &typed),
                    Ok(*m),
                    "{name}: {typed} in {}",
                    rules::fen::write(&pos)
                );
            }
            // The wing alone: that move when it is the only one, otherwise a question.
            let wing = if pos.castles_kingside(*m) {
                "0-0"
            } else {
                "0-0-0"
            };
            let same_wing = legal
                .iter()
                .filter(|o| {
                    o.kind == MoveKind::Castle
                        && pos.castles_kingside(**o) == pos.castles_kingside(*m)
                })
                .count();
            match notation::parse_move(&pos, wing) {
                Ok(found) => assert!(same_wing == 1 && found == *m, "{name}: {wing}"),
                Err(MoveTextError::Ambiguous { candidates, .. }) => {
                    assert!(same_wing > 1, "{name}: {wing}");
                    assert!(candidates.contains(&san), "{name}: {candidates:?}");
                }
                Err(e) => panic!("{name}: {wing}: {e} in {}", rules::fen::write(&pos)),
            }
        }
    }
    assert!(castles > 50, "only {castles} castlings tried");
}

/// The SAN of a move without check marks.
fn plain_san(pos: &Position, m: Move) -> String {
    notation::san(pos, m)
        .trim_end_matches(['+', '#'])
        .to_string()
}

#[test]
fn a_pinned_knight_is_refused_with_the_same_reason_in_san_and_coordinates() {
    let catalog = Catalog::builtin();
    let chess = catalog.get("chess").unwrap();
    let pos = rules::fen::position(&chess, "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1").unwrap();
    let want =
        "the Knight on d2 is pinned: that would leave your King attacked by the Bishop on b4";
    for typed in ["Nb3", "d2b3", "d2-b3", "nb3"] {
        let e = notation::parse_move(&pos, typed).unwrap_err().to_string();
        assert_eq!(e, format!("`{typed}`: {want}"));
    }
    // A King walking into check is not "pinned".
    let pos = rules::fen::position(&chess, "4k3/8/8/8/1b6/8/8/4K3 w - - 0 1").unwrap();
    let e = notation::parse_move(&pos, "Kd2").unwrap_err().to_string();
    assert_eq!(
        e,
        "`Kd2`: that would leave your King attacked by the Bishop on b4"
    );
    let e = notation::parse_move(&pos, "O-O").unwrap_err().to_string();
    assert!(e.contains("cannot castle kingside now"), "{e}");
}

#[test]
fn refused_san_gets_the_reason_its_coordinates_get_in_every_variant() {
    let mut tried = 0;
    for (name, pos) in positions(2, 50) {
        let legal = pos.legal_moves();
        let pseudo = pos.pseudo_legal_moves();
        let refused: Vec<Move> = pseudo
            .iter()
            .copied()
            .filter(|m| !legal.contains(m) && m.kind != MoveKind::Castle)
            .collect();
        for m in &refused {
            let san = plain_san(&pos, *m);
            // One refused move of that spelling: both texts must give its reason.
            let same: Vec<&Move> = refused
                .iter()
                .filter(|o| plain_san(&pos, **o) == san)
                .collect();
            if same.len() != 1 {
                continue;
            }
            tried += 1;
            let by_san = notation::parse_move(&pos, &san);
            let by_coord = notation::parse_move(&pos, &notation::coord(&pos, *m));
            let reason = |r: Result<Move, MoveTextError>| match r {
                Err(MoveTextError::Illegal { reason, .. }) => reason,
                other => panic!("{name} {san}: {other:?} in {}", rules::fen::write(&pos)),
            };
            assert_eq!(reason(by_san), reason(by_coord), "{name} {san}");
        }
    }
    assert!(tried > 100, "only {tried} refused moves tried");
}

#[test]
fn a_promotion_without_its_piece_asks_which_in_every_variant() {
    let catalog = Catalog::builtin();
    let chess = catalog.get("chess").unwrap();
    let pos = rules::fen::position(&chess, "1n6/P7/8/8/8/8/8/k6K w - - 0 1").unwrap();
    for typed in ["a8", "a7a8", "a7-a8"] {
        let e = notation::parse_move(&pos, typed).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("`{typed}`: which piece should it become? Type a8=Q, a8=R, a8=B or a8=N")
        );
    }
    let e = notation::parse_move(&pos, "axb8").unwrap_err().to_string();
    assert!(e.contains("axb8=Q, axb8=R, axb8=B or axb8=N"), "{e}");
    let mut asked = 0;
    for (name, pos) in positions(10, 80) {
        let legal = pos.legal_moves();
        for m in legal.iter().filter(|m| m.promotion.is_some()) {
            let san = plain_san(&pos, *m);
            let Some((base, _)) = san.rsplit_once('=') else {
                continue; // a flip (`Pz1/`) or a crossing written as a plain move
            };
            let choices: Vec<String> = legal
                .iter()
                .filter(|o| o.from == m.from && o.to == m.to && o.kind == m.kind)
                .map(|o| plain_san(&pos, *o))
                .collect();
            if choices.iter().any(|c| !c.contains('=')) {
                continue; // may also stay unpromoted: the bare text is that move
            }
            match notation::parse_move(&pos, base) {
                Ok(found) => assert!(choices.len() == 1 && found == *m, "{name} {base}"),
                Err(MoveTextError::Promotion { choices: said, .. }) => {
                    asked += 1;
                    assert!(said.contains(&san), "{name} {base}: {said:?}");
                    assert_eq!(said.len(), choices.len(), "{name} {base}: {said:?}");
                }
                Err(e) => panic!("{name} {base}: {e} in {}", rules::fen::write(&pos)),
            }
        }
    }
    assert!(asked > 20, "only {asked} promotions asked");
}
