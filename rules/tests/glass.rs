//! Through the Looking-Glass: one test per mechanism of `looking-glass.md` (transfers,
//! partial execution, every cause of a strike, castling, en passant, promotion, stalemate,
//! the "no strikes" rule) and what each player is told.

use rules::{
    Cell, Piece, Side,
    glass::{BackRank, Fact, Glass, GlassOutcome, GlassRules, MIRROR, Public, REAL, Refusal},
};

const W: Side = Side::WHITE;
const B: Side = Side::BLACK;

fn state(r: &str, m: &str, turn: &str) -> Glass {
    Glass::from_state(
        GlassRules::default(),
        &format!("R:{r} | M:{m} | {turn} | strikes 0,0"),
    )
    .unwrap()
}

fn cell(g: &Glass, name: &str) -> Cell {
    g.variant().geometry.parse(name).unwrap()
}

/// The letter on a square (uppercase White), or '.'.
fn at(g: &Glass, name: &str) -> char {
    match g.piece_at(cell(g, name)) {
        Some(p) => g.variant().letter(p.side, p.kind),
        None => '.',
    }
}

fn piece(g: &Glass, side: Side, letter: char) -> Piece {
    Piece {
        side,
        kind: g.variant().kind_by_letter(letter).unwrap(),
    }
}

fn orthodox() -> Glass {
    let mut g = Glass::new(GlassRules::default());
    g.choose(W, BackRank::orthodox()).unwrap();
    g.choose(B, BackRank::orthodox()).unwrap();
    g
}

#[test]
fn setup_is_secret_and_starts_when_both_chose() {
    let mut g = Glass::new(GlassRules::default());
    assert!(matches!(g.order(W, "e2e4"), Err(Refusal::NotNow(_))));
    let r = g.choose(B, BackRank::parse("0").unwrap()).unwrap();
    assert_eq!(r.public, vec![Public::SetUp(B)]);
    assert!(r.told.iter().all(Vec::is_empty));
    assert!(
        g.choose(B, BackRank::orthodox()).is_err(),
        "one choice each"
    );
    let r = g.choose(W, BackRank::orthodox()).unwrap();
    assert_eq!(r.public, vec![Public::SetUp(W), Public::Started]);
    assert_eq!(at(&g, "M:a8"), 'b');
    assert_eq!(at(&g, "M:g8"), 'k');
    assert_eq!(at(&g, "R:e1"), 'K');
    assert_eq!(at(&g, "M:h7"), 'p');
    assert_eq!(at(&g, "R:a8"), '.', "the other halves start empty");
    assert_eq!(g.turn(), W);
}

#[test]
fn a_move_transfers_when_the_connected_square_is_empty() {
    let mut g = orthodox();
    let r = g.order(W, "e2e4").unwrap();
    assert_eq!(at(&g, "R:e4"), '.');
    assert_eq!(at(&g, "M:e4"), 'P');
    let (e2, e4, me4, me5) = (
        cell(&g, "R:e2"),
        cell(&g, "R:e4"),
        cell(&g, "M:e4"),
        cell(&g, "M:e5"),
    );
    let pawn = piece(&g, W, 'P');
    // White watched his move, learns it went through, and hears what it attacks there.
    assert_eq!(
        r.told[0],
        vec![
            Fact::Seen {
                piece: pawn,
                from: e2,
                to: e4,
                promotion: None
            },
            Fact::Transferred {
                piece: pawn,
                from: e4,
                to: me4
            },
            Fact::Attacks {
                at: me4,
                attacked: vec![]
            },
            Fact::InFront {
                cell: me5,
                content: None
            },
        ]
    );
    // Black only learns the arrival square (the question) and sees the Pawn arrive.
    assert_eq!(
        r.told[1],
        vec![
            Fact::Asked { cell: e4 },
            Fact::Transferred {
                piece: pawn,
                from: e4,
                to: me4
            }
        ]
    );
    assert_eq!(r.public, vec![Public::Moved { army: W, by: W }]);
    assert_eq!(r.action, "w R:e2e4");
}

#[test]
fn a_move_stays_when_the_connected_square_is_occupied() {
    let mut g = state("8/8/8/8/8/8/8/4K1N1", "4k3/8/8/8/8/5p2/8/8", "w");
    let r = g.order(W, "g1f3").unwrap();
    assert_eq!(at(&g, "R:f3"), 'N');
    let f3 = cell(&g, "R:f3");
    assert!(r.told[0].contains(&Fact::Stayed { cell: f3 }));
    assert_eq!(
        r.told[1],
        vec![Fact::Asked { cell: f3 }, Fact::Stayed { cell: f3 }],
        "Black answered 'occupied'"
    );
    // A blind order whose piece stays: the mover sees the occupied square on his world.
    let mut g = state("8/8/8/8/8/8/3P4/4K3", "4k3/8/8/8/8/8/8/3R4", "w");
    let r = g.order(W, "M:d1d2").unwrap();
    assert_eq!(at(&g, "M:d2"), 'R');
    let d2 = cell(&g, "M:d2");
    assert!(r.told[0].contains(&Fact::Stayed { cell: d2 }));
    assert!(r.told[1].contains(&Fact::Stayed { cell: d2 }));
}

#[test]
fn arrival_announcement_names_the_attacked_pieces_and_the_square_in_front() {
    // White's Pawn arrives on M:e4 next to Black's pieces on d5 and f5, with a Knight ahead.
    let mut g = state("8/8/8/8/8/8/4P3/4K3", "4k3/8/8/3b1r2/4n3/8/8/8", "w");
    let r = g.order(W, "e2e3").unwrap();
    assert_eq!(at(&g, "M:e3"), 'P');
    let attacks = r.told[0]
        .iter()
        .find(|f| matches!(f, Fact::Attacks { .. }))
        .unwrap();
    // A Pawn on e3 attacks d4 and f4: both empty.
    assert_eq!(
        attacks,
        &Fact::Attacks {
            at: cell(&g, "M:e3"),
            attacked: vec![]
        }
    );
    assert!(r.told[0].contains(&Fact::InFront {
        cell: cell(&g, "M:e4"),
        content: Some(piece(&g, B, 'N'))
    }));
    // A friendly piece coming back to White's world: Black is told what it attacks.
    let mut g = state("8/8/8/3n4/8/8/8/4K3", "4k3/8/8/8/8/8/8/3R4", "w");
    let r = g.order(W, "M:d1d3").unwrap();
    assert_eq!(at(&g, "R:d3"), 'R');
    assert!(r.told[1].contains(&Fact::Attacks {
        at: cell(&g, "R:d3"),
        attacked: vec![(piece(&g, B, 'N'), cell(&g, "R:d5"))]
    }));
    assert!(
        !r.told[0].iter().any(|f| matches!(f, Fact::Attacks { .. })),
        "White sees his own world"
    );
}

#[test]
fn a_blind_slide_stops_on_the_first_capture() {
    let mut g = state("8/8/8/8/8/8/8/4K3", "k7/8/8/8/3n4/8/8/3R4", "w");
    let r = g.order(W, "M:d1d7").unwrap();
    assert_eq!(at(&g, "M:d4"), '.');
    assert_eq!(at(&g, "R:d4"), 'R', "captured on M:d4, then transferred");
    let (d1, d4, d7) = (cell(&g, "M:d1"), cell(&g, "M:d4"), cell(&g, "M:d7"));
    assert!(r.told[0].contains(&Fact::Carried {
        piece: piece(&g, W, 'R'),
        from: d1,
        ordered: d7,
        to: d4,
        promotion: None
    }));
    let captured = Fact::Captured {
        piece: piece(&g, B, 'N'),
        cell: d4,
    };
    assert!(r.told[0].contains(&captured) && r.told[1].contains(&captured));
    assert!(r.public.contains(&Public::Captured {
        owner: B,
        kind: piece(&g, B, 'N').kind
    }));
}

#[test]
fn a_blind_slide_stops_before_a_friendly_piece() {
    let mut g = state("8/8/8/3N4/8/8/8/4K3", "k7/8/8/3P4/8/8/8/3R4", "w");
    g.order(W, "M:d1d7").unwrap();
    assert_eq!(at(&g, "M:d4"), '.');
    assert_eq!(at(&g, "R:d4"), 'R', "stopped on M:d4, then transferred");
    // On the world he sees, the same order is simply refused.
    let mut g = state("8/8/8/3P4/8/8/8/3RK3", "k7/8/8/8/8/8/8/8", "w");
    assert!(matches!(g.order(W, "d1d7"), Err(Refusal::Illegal(_))));
    assert_eq!(g.strikes(), [0, 0]);
    assert_eq!(at(&g, "R:d1"), 'R');
}

#[test]
fn a_two_step_into_a_held_square_becomes_a_one_step() {
    // An unmoved Pawn stands on its own world, so only a move chosen for it by the opponent
    // ("no strikes" rule) is a blind two-step.
    let rules = GlassRules { no_strikes: true };
    let mut g = Glass::from_state(
        rules,
        "R:8/8/8/8/4n3/8/4P3/4K3 | M:4k3/8/8/8/8/8/8/3R4 | w | strikes 0,0",
    )
    .unwrap();
    g.order(W, "M:d1e2").unwrap();
    let r = g.order(B, "R:e2e4").unwrap();
    assert_eq!(at(&g, "R:e2"), '.');
    assert_eq!(at(&g, "M:e3"), 'P', "stopped on R:e3, then transferred");
    assert!(r.told[1].contains(&Fact::Carried {
        piece: piece(&g, W, 'P'),
        from: cell(&g, "R:e2"),
        ordered: cell(&g, "R:e4"),
        to: cell(&g, "R:e3"),
        promotion: None
    }));
    // On one's own world the same two-step is refused.
    let mut g = state("8/8/8/8/4n3/8/4P3/4K3", "4k3/8/8/8/8/8/8/8", "w");
    assert!(matches!(g.order(W, "e2e4"), Err(Refusal::Illegal(_))));
}

#[test]
fn a_chooser_is_refused_in_the_owners_name() {
    // "No strikes": White's blind order fails, so Black chooses White's move. On the Mirror,
    // which Black sees, an illegal choice is refused, naming the piece as White's, not his.
    let rules = GlassRules { no_strikes: true };
    let mut g = Glass::from_state(
        rules,
        "R:8/8/8/8/8/8/8/4K3 | M:4k3/8/8/8/8/8/8/3R4 | w | strikes 0,0",
    )
    .unwrap();
    g.order(W, "M:d1e2").unwrap();
    assert!(g.is_forced());
    let Err(Refusal::Illegal(why)) = g.order(B, "M:d1e2") else {
        panic!("a Rook does not go diagonally, even when chosen by the opponent");
    };
    assert!(
        why.starts_with("White's Rook on M:d1 cannot go to M:e2"),
        "{why}"
    );
    assert_eq!(at(&g, "M:d1"), 'R');
}

#[test]
fn every_cause_of_a_strike() {
    // White: K R:e1. On the Mirror: White Rook d1, Knight c1, Pawn g4 (Black Pawn g5), Pawn
    // c4; Black Knight f3 and King a8.
    let base = ("8/8/8/8/8/8/8/4K3", "k7/8/8/6p1/2P3P1/5n2/8/2NR4");
    let cases = [
        ("M:a3a4", "no piece of his on the start square"),
        ("M:f3e1", "the opponent's piece on the start square"),
        ("M:d1e2", "a Rook cannot go diagonally"),
        ("M:c1d2x", "unreadable is not a strike"),
        ("M:g4g5", "a Pawn pushing into an occupied square"),
        ("M:c4d5", "a Pawn capturing onto an empty square"),
        ("M:c1c3", "a Knight does not go there"),
        ("M:d1a1", "the first square holds a friendly piece (slide)"),
    ];
    for (order, why) in cases {
        let mut g = state(base.0, base.1, "w");
        let before = g.state_text();
        match g.order(W, order) {
            Ok(r) => {
                assert_eq!(g.strikes(), [1, 0], "{order}: {why}");
                assert!(
                    matches!(r.told[0].as_slice(), [Fact::Impossible { strikes: 1, .. }]),
                    "{order}"
                );
                assert!(
                    matches!(r.told[1][0], Fact::Refused { by: W, .. }),
                    "{order}"
                );
                assert_eq!(r.public, vec![Public::Impossible { by: W, strikes: 1 }]);
                assert_eq!(g.turn(), W, "{order}: he tries again");
                assert_eq!(
                    g.state_text().replace("strikes 1,0", "strikes 0,0"),
                    before,
                    "{order}: nothing moved"
                );
            }
            Err(e) => assert!(why.starts_with("unreadable"), "{order}: {e}"),
        }
    }
    // A Knight onto its own piece, and the third strike loses.
    let mut g = Glass::from_state(
        GlassRules::default(),
        "R:8/8/8/8/8/8/8/4K3 | M:k7/8/8/8/8/8/3P4/1N6 | w | strikes 2,0",
    )
    .unwrap();
    let r = g.order(W, "M:b1d2").unwrap();
    assert_eq!(r.outcome, Some(GlassOutcome::Strikes { winner: B }));
    assert!(g.order(B, "M:a8a7").is_err(), "the game is over");
}

#[test]
fn illegal_moves_on_the_own_world_are_refused_without_a_strike() {
    let mut g = orthodox();
    for order in ["e2e5", "a1a3", "b1d2", "e1e2", "e3e4", "R:e7e5"] {
        let e = g.order(W, order).unwrap_err();
        assert!(matches!(e, Refusal::Illegal(_)), "{order}: {e:?}");
        assert!(!e.to_string().is_empty());
    }
    assert_eq!(g.strikes(), [0, 0]);
    assert!(matches!(g.order(B, "e7e5"), Err(Refusal::NotNow(_))));
}

#[test]
fn castling_transfers_king_and_rook_independently() {
    // The Knight on M:f1 holds the Rook's portal; M:g1 is free for the King. A Black Rook
    // attacks g1 and f1: without check, castling is still allowed.
    let mut g = Glass::from_state(
        GlassRules::default(),
        "R:6r1/8/8/8/8/8/8/R3K2R | M:4k3/8/8/8/8/8/8/5n2 | w | strikes 0,0 | castle R:a1,R:h1",
    )
    .unwrap();
    let r = g.order(W, "O-O").unwrap();
    assert_eq!(at(&g, "M:g1"), 'K', "the King fell through");
    assert_eq!(at(&g, "R:g1"), '.');
    assert_eq!(at(&g, "R:f1"), 'R', "the Rook stayed");
    assert!(r.told[1].contains(&Fact::Asked {
        cell: cell(&g, "R:g1")
    }));
    assert!(r.told[1].contains(&Fact::Asked {
        cell: cell(&g, "R:f1")
    }));
    assert!(r.told[0].contains(&Fact::Stayed {
        cell: cell(&g, "R:f1")
    }));
    // Castling rights are gone after the King moved.
    assert!(g.state_text().ends_with("castle -"), "{}", g.state_text());
}

#[test]
fn chess960_castling_geometry() {
    // King b1, Rooks a1 and h1 (a legal 960 row has K between Rs): O-O-O puts K c1, R d1.
    let mut g = Glass::from_state(
        GlassRules::default(),
        "R:8/8/8/8/8/8/8/RK5R | M:3nkn2/8/8/8/8/8/8/2nn4 | w | strikes 0,0 | castle R:a1,R:h1",
    )
    .unwrap();
    assert!(g.moves_on(W, REAL).contains(&"O-O-O".to_string()));
    g.order(W, "O-O-O").unwrap();
    assert_eq!(at(&g, "R:c1"), 'K', "M:c1 was held");
    assert_eq!(at(&g, "R:d1"), 'R', "M:d1 was held");
    // A blocked path is refused on one's own world.
    let mut g = Glass::from_state(
        GlassRules::default(),
        "R:8/8/8/8/8/8/8/RK4NR | M:4k3/8/8/8/8/8/8/8 | w | strikes 0,0 | castle R:a1,R:h1",
    )
    .unwrap();
    assert!(matches!(g.order(W, "O-O"), Err(Refusal::Illegal(_))));
}

#[test]
fn en_passant_on_the_world_of_the_two_step_even_after_a_transfer() {
    let mut g = state("8/8/8/8/3p4/8/4P3/4K3", "4k3/8/8/8/8/8/8/8", "w");
    g.order(W, "e2e4").unwrap();
    assert_eq!(at(&g, "M:e4"), 'P', "the two-step Pawn fell through");
    let r = g.order(B, "R:d4e3").unwrap();
    assert_eq!(at(&g, "M:e4"), '.', "taken as it passed");
    assert_eq!(at(&g, "R:d4"), '.');
    assert_eq!(at(&g, "M:e3"), 'p', "landed on R:e3, then transferred");
    let taken = Fact::Captured {
        piece: piece(&g, W, 'P'),
        cell: cell(&g, "M:e4"),
    };
    assert!(r.told[0].contains(&taken) && r.told[1].contains(&taken));
    // Not on the other world: a Black Pawn on M:d4 could not take it.
    let mut g3 = state("8/8/8/8/8/8/4P3/4K3", "4k3/8/8/8/3p4/8/8/8", "w");
    g3.order(W, "e2e4").unwrap();
    assert!(matches!(g3.order(B, "d4e3"), Err(Refusal::Illegal(_))));
}

#[test]
fn promotion_then_transfer() {
    let mut g = state("8/4P3/8/8/8/8/8/4K3", "k7/8/8/8/8/8/8/8", "w");
    assert!(matches!(g.order(W, "e7e8"), Err(Refusal::Illegal(_))));
    let r = g.order(W, "e7e8n").unwrap();
    assert_eq!(at(&g, "M:e8"), 'N');
    assert!(r.told[1].contains(&Fact::Transferred {
        piece: piece(&g, W, 'N'),
        from: cell(&g, "R:e8"),
        to: cell(&g, "M:e8")
    }));
}

#[test]
fn stalemate_when_no_move_on_either_world() {
    // White's pieces on the Real world are all locked; he has nothing on the Mirror.
    let mut g = state("8/8/8/8/p1p5/P1Pp4/RB1P4/KRB5", "4k3/8/8/8/8/8/8/8", "b");
    assert!(g.has_move_on(B, MIRROR));
    let r = g.order(B, "e8d8").unwrap();
    assert_eq!(r.outcome, Some(GlassOutcome::Stalemate));
    assert!(!g.has_move_on(W, REAL) && !g.has_move_on(W, MIRROR));
}

#[test]
fn capturing_the_king_wins() {
    let mut g = state("8/8/8/8/8/8/8/4K3", "4k3/8/8/8/8/8/8/4R3", "w");
    let r = g.order(W, "M:e1e8").unwrap();
    assert_eq!(r.outcome, Some(GlassOutcome::KingCaptured { winner: W }));
}

#[test]
fn no_strikes_rule_the_opponent_moves_for_the_offender() {
    let rules = GlassRules { no_strikes: true };
    let mut g = Glass::from_state(
        rules,
        "R:8/8/8/8/8/8/4P3/4K3 | M:4k3/8/8/8/8/8/8/3R4 | w | strikes 0,0",
    )
    .unwrap();
    let r = g.order(W, "M:d1e2").unwrap();
    assert_eq!(g.strikes(), [0, 0]);
    assert!(r.public.contains(&Public::Forfeit {
        army: W,
        chooser: B
    }));
    assert!(r.told[1].contains(&Fact::ChooseFor { army: W }));
    assert_eq!(g.turn(), B);
    assert!(g.is_forced());
    // Black moves White's Rook on his own world (he sees it) for White.
    let r = g.order(B, "d1d5").unwrap();
    assert_eq!(at(&g, "R:d5"), 'R');
    assert!(r.public.contains(&Public::Moved { army: W, by: B }));
    assert!(
        r.told[0].iter().any(|f| matches!(f, Fact::Carried { .. })),
        "the owner learns where his piece went"
    );
    assert_eq!(
        g.turn(),
        B,
        "the forced move was White's turn; now Black's own"
    );
    assert!(!g.is_forced());

    // When the chooser's own order is impossible too, the offender tries again.
    let mut g = Glass::from_state(
        rules,
        "R:8/8/8/8/8/8/4P3/4K3 | M:4k3/8/8/8/8/8/8/3R4 | w | strikes 0,0",
    )
    .unwrap();
    g.order(W, "M:d1e2").unwrap();
    let r = g.order(B, "R:a2a3").unwrap();
    assert!(
        r.told[1]
            .iter()
            .any(|f| matches!(f, Fact::Impossible { strikes: 0, .. }))
    );
    assert_eq!(g.turn(), W);
    assert!(!g.is_forced());
}

#[test]
fn views_show_one_world_and_own_pieces_elsewhere() {
    let mut g = orthodox();
    g.order(W, "e2e4").unwrap();
    let v = g.view(W);
    let geo = &g.variant().geometry;
    assert!(v.world.iter().all(|(c, _)| geo.info(*c).board == REAL));
    assert_eq!(v.elsewhere.len(), 1);
    assert_eq!(geo.name(v.elsewhere[0].0), "M:e4");
    let v = g.view(B);
    assert!(v.world.iter().all(|(c, _)| geo.info(*c).board == MIRROR));
    assert!(
        v.world.iter().any(|(_, p)| p.side == W),
        "Black sees the Pawn"
    );
    assert!(v.elsewhere.is_empty());
    assert!(g.has_move_on(B, MIRROR));
    assert!(!g.has_move_on(B, REAL));
}

#[test]
fn replaying_the_record_rebuilds_state_and_what_was_told() {
    let mut g = orthodox();
    for (side, order) in [
        (W, "e2e4"),
        (B, "e7e5"),
        (W, "M:e4e5"),
        (W, "g1f3"),
        (B, "R:e5e4"),
    ] {
        let _ = g.order(side, order);
    }
    let again = Glass::replay(rules::glass::variant(), GlassRules::default(), g.record()).unwrap();
    assert_eq!(again.state_text(), g.state_text());
    assert_eq!(again.told(W), g.told(W));
    assert_eq!(again.told(B), g.told(B));
    assert_eq!(again.record(), g.record());
}

/// A small deterministic generator for random games.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn random_games_keep_their_invariants() {
    let mut rng = Lcg(7);
    for game in 0..40 {
        let mut g = Glass::new(GlassRules {
            no_strikes: game % 4 == 3,
        });
        g.choose(W, BackRank::from_number((rng.next() % 960) as u32).unwrap())
            .unwrap();
        g.choose(B, BackRank::from_number((rng.next() % 960) as u32).unwrap())
            .unwrap();
        for _ in 0..300 {
            if g.is_over().is_some() {
                break;
            }
            let side = g.turn();
            let army = if g.is_forced() {
                rules::glass::other(side)
            } else {
                side
            };
            let world = (rng.next() % 2) as u8;
            let moves = g.moves_on(army, world);
            // Mostly legal moves, sometimes a wild order (strikes, partial slides).
            let order = if moves.is_empty() || rng.next().is_multiple_of(6) {
                let files = "abcdefgh".as_bytes();
                format!(
                    "{}:{}{}{}{}",
                    if world == 0 { 'R' } else { 'M' },
                    files[(rng.next() % 8) as usize] as char,
                    1 + rng.next() % 8,
                    files[(rng.next() % 8) as usize] as char,
                    1 + rng.next() % 8
                )
            } else {
                moves[(rng.next() as usize) % moves.len()].clone()
            };
            let _ = g.order(side, &order);
            // Views never show the opponent's pieces on the unseen world.
            for s in [W, B] {
                let v = g.view(s);
                for (c, p) in &v.elsewhere {
                    assert_eq!(p.side, s);
                    assert_ne!(g.world(*c), rules::glass::world_of(s));
                }
                for (c, _) in &v.world {
                    assert_eq!(g.world(*c), rules::glass::world_of(s));
                }
            }
            assert!(g.strikes().iter().all(|n| *n <= 3));
        }
        let again = Glass::replay(rules::glass::variant(), g.rules(), g.record()).unwrap();
        assert_eq!(again.state_text(), g.state_text(), "game {game}");
        assert_eq!(again.told(W), g.told(W));
    }
}

#[test]
fn a_view_text_round_trips_and_never_holds_the_opponents_secrets() {
    let mut g = state("8/8/8/8/8/8/8/4K3", "4k3/8/8/3p4/4P3/8/8/1P6", "w");
    g.order(W, "M:e4d5").unwrap();
    let v = g.variant().clone();
    for side in [W, B] {
        let view = g.view(side);
        let text = view.text(&v);
        assert_eq!(rules::glass::PlayerView::parse(&v, &text).unwrap(), view);
    }
    // White captured on the Mirror (and fell back to his world); his Pawn on M:b1 is listed.
    let text = g.view(W).text(&v);
    assert!(text.contains("captured P,-"), "{text}");
    assert!(text.contains("| M:8/8/8/8/8/8/8/1P6 |"), "{text}");
    let white = rules::glass::PlayerView::parse(&v, &text).unwrap();
    assert!(white.elsewhere.iter().all(|(_, p)| p.side == W));
    // A text that claims an opponent's piece on the unseen world is refused.
    let forged = text.replacen("| M:8/", "| M:r7/", 1);
    let e = rules::glass::PlayerView::parse(&v, &forged).unwrap_err();
    assert!(e.to_string().contains("opponent's piece"), "{e}");
}
