//! Bilateral Chess: every example of the original page, hand-derived move lists, refused moves
//! with their reasons, and state text round trips.

use std::{collections::BTreeSet, sync::Arc};

use rules::{Catalog, Move, MoveKind, Position, Variant, fen, notation, perft::perft};

const FILES: &str = "yzabcdefghij";

fn variant() -> Arc<Variant> {
    Catalog::builtin().get("bilateral").unwrap()
}

/// Builds state text from `(cell, letter)` placements.
fn board(pieces: &[(&str, char)]) -> String {
    let mut grid = [['.'; 12]; 8];
    for (cell, l) in pieces {
        let f = FILES.find(&cell[..1]).unwrap();
        let r: usize = cell[1..].parse().unwrap();
        grid[r - 1][f] = *l;
    }
    let mut ranks = Vec::new();
    for r in (0..8).rev() {
        let mut s = String::new();
        let mut run = 0;
        for &c in &grid[r] {
            if c == '.' {
                run += 1;
            } else {
                if run > 0 {
                    s.push_str(&run.to_string());
                    run = 0;
                }
                s.push(c);
            }
        }
        if run > 0 {
            s.push_str(&run.to_string());
        }
        ranks.push(s);
    }
    ranks.join("/")
}

fn pos(pieces: &[(&str, char)], rest: &str) -> Position {
    let text = format!("{} {rest}", board(pieces));
    fen::position(&variant(), &text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn cell(p: &Position, name: &str) -> rules::Cell {
    p.variant().geometry.parse(name).unwrap()
}

/// The legal moves from one cell as coordinate texts.
fn moves_from(p: &Position, from: &str) -> BTreeSet<String> {
    let c = cell(p, from);
    p.legal_moves()
        .into_iter()
        .filter(|m| m.from == c)
        .map(|m| notation::coord(p, m))
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn kinds_from(p: &Position, from: &str, kind: MoveKind) -> BTreeSet<String> {
    let c = cell(p, from);
    let g = &p.variant().geometry;
    p.legal_moves()
        .into_iter()
        .filter(|m| m.from == c && m.kind == kind)
        .map(|m| g.name(m.to).to_string())
        .collect()
}

// ----- the page's examples ------------------------------------------------------------------

/// "A Wizard in a5 can walk to z4, z6, b4, b6, g5, h4, h6 and i5"; it may freeze on z5, a4,
/// a6, b5 and h5; it can kill in z8 only if z6 and a7 are empty.
fn a5_wizard(extra: &[(&str, char)]) -> Position {
    let mut pieces = vec![
        ("a5", 'W'),
        ("z5", 'n'),
        ("a4", 'n'),
        ("a6", 'n'),
        ("b5", 'n'),
        ("h5", 'n'),
        ("z8", 'r'),
        ("j1", 'K'),
        ("j8", 'k'),
    ];
    pieces.extend_from_slice(extra);
    pos(&pieces, "w - - 0 1")
}

#[test]
fn page_a5_wizard_steps_freezes_and_kill() {
    let p = a5_wizard(&[]);
    assert_eq!(
        kinds_from(&p, "a5", MoveKind::Quiet),
        set(&["z4", "z6", "b4", "b6", "g5", "h4", "h6", "i5"])
    );
    assert_eq!(
        kinds_from(&p, "a5", MoveKind::Freeze),
        set(&["z5", "a4", "a6", "b5", "h5"])
    );
    assert_eq!(kinds_from(&p, "a5", MoveKind::Kill), set(&["z8"]));
    let kill = notation::parse_move(&p, "Wxz8").unwrap();
    assert_eq!(kill.kind, MoveKind::Kill);
    assert_eq!(notation::san(&p, kill), "Wxz8");
    let mut after = p.clone();
    after.play(kill).unwrap();
    assert!(after.piece_at(cell(&p, "z8")).is_none());
    assert!(after.piece_at(cell(&p, "a5")).is_some(), "the Wizard stays");
    let freeze = notation::parse_move(&p, "Wxh5").unwrap();
    assert_eq!(freeze.kind, MoveKind::Freeze);
}

#[test]
fn page_a5_kill_needs_z6_and_a7_empty() {
    for blocker in ["z6", "a7"] {
        let p = a5_wizard(&[(blocker, 'p')]);
        assert!(kinds_from(&p, "a5", MoveKind::Kill).is_empty(), "{blocker}");
        let err = notation::parse_move(&p, "a5z8").unwrap_err().to_string();
        assert!(
            err.contains("kill path") && err.contains(blocker),
            "{blocker}: {err}"
        );
    }
}

#[test]
fn page_y2_first_moves() {
    let p = Position::start(&variant());
    assert_eq!(
        moves_from(&p, "y2"),
        set(&["y2z3", "y2j3", "y2y4", "y2a4", "y2i4", "y2h3"])
    );
    // Once moved, a Wizard has only its single steps.
    let mut q = p.clone();
    q.play(notation::parse_move(&q, "y2z3").unwrap()).unwrap();
    q.play(notation::parse_move(&q, "a7a6").unwrap()).unwrap();
    assert_eq!(
        moves_from(&q, "z3"),
        set(&["z3y2", "z3y4", "z3a4", "z3i4", "z3h3", "z3j3", "z3a6"])
    );
    // z3a6 is a kill of the Pawn that just moved (z3-a4-z5 zigzag free).
    assert_eq!(
        notation::parse_move(&q, "z3a6").unwrap().kind,
        MoveKind::Kill
    );
}

#[test]
fn page_pz1_flip() {
    let mut p = Position::start(&variant());
    let m = notation::parse_move(&p, "Pz1/").unwrap();
    assert_eq!(m.kind, MoveKind::Flip);
    assert_eq!(notation::san(&p, m), "Pz1/");
    assert_eq!(notation::coord(&p, m), "z1z1v");
    p.play(m).unwrap();
    assert!(
        fen::write(&p).ends_with("/LVRNBQKBNRCL b KQkq - 1 1 unmoved:y2,z2,i2,j2,y7,z7,i7,j7"),
        "{}",
        fen::write(&p)
    );
}

#[test]
fn page_vxe5_with_and_without_flip() {
    let p = pos(
        &[
            ("b2", 'V'),
            ("c3", 'n'),
            ("e5", 'r'),
            ("j1", 'K'),
            ("j8", 'k'),
        ],
        "w - - 0 1",
    );
    let keep = notation::parse_move(&p, "Vxe5").unwrap();
    let flip = notation::parse_move(&p, "Vxe5/").unwrap();
    assert_ne!(keep, flip);
    assert_eq!(notation::san(&p, keep), "Vxe5");
    assert_eq!(notation::san(&p, flip), "Vxe5/");
    let mut q = p.clone();
    q.play(flip).unwrap();
    assert!(
        fen::write(&q).starts_with("11k/12/12/6C5/"),
        "{}",
        fen::write(&q)
    );
}

#[test]
fn page_exg3_push() {
    let mut p = pos(
        &[("g2", 'E'), ("g3", 'n'), ("j1", 'K'), ("j8", 'k')],
        "w - - 0 1",
    );
    let m = notation::parse_move(&p, "Exg3").unwrap();
    assert_eq!(m.kind, MoveKind::Push);
    assert_eq!(notation::san(&p, m), "Exg3");
    p.play(m).unwrap();
    assert_eq!(
        p.piece_at(cell(&p, "g4")).map(|x| x.kind),
        p.variant().kind_by_letter('N')
    );
    assert_eq!(
        p.piece_at(cell(&p, "g3")).map(|x| x.kind),
        p.variant().kind_by_letter('E')
    );
}

#[test]
fn page_push_promotion_is_chosen_by_the_pusher() {
    let p = pos(
        &[("e3", 'E'), ("e2", 'p'), ("y3", 'K'), ("j8", 'k')],
        "w - - 0 1",
    );
    let pushes: Vec<Move> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.kind == MoveKind::Push)
        .collect();
    assert_eq!(pushes.len(), 9, "{pushes:?}");
    let m = notation::parse_move(&p, "Exe2=E").unwrap();
    let mut q = p.clone();
    q.play(m).unwrap();
    let e1 = q.piece_at(cell(&q, "e1")).unwrap();
    assert_eq!(
        e1.side,
        rules::Side::BLACK,
        "the promoted piece keeps the Pawn's colour"
    );
    assert_eq!(Some(e1.kind), q.variant().kind_by_letter('E'));
    // B11: with the pusher's King on y1, a black Queen or Rook on e1 would check it: those
    // two choices are missing.
    let r = pos(
        &[("e3", 'E'), ("e2", 'p'), ("y1", 'K'), ("j8", 'k')],
        "w - - 0 1",
    );
    let n = r
        .legal_moves()
        .into_iter()
        .filter(|m| m.kind == MoveKind::Push)
        .count();
    assert_eq!(n, 7);
}

#[test]
fn page_black_cannon_cannot_hop_a_white_elephant() {
    let with_elephant = pos(
        &[
            ("e8", 'c'),
            ("e5", 'E'),
            ("e2", 'R'),
            ("j1", 'K'),
            ("y8", 'k'),
        ],
        "b - - 0 1",
    );
    assert!(kinds_from(&with_elephant, "e8", MoveKind::Capture).is_empty());
    assert_eq!(
        kinds_from(&with_elephant, "e8", MoveKind::Quiet),
        set(&[
            "e7", "e6", "f8", "g8", "h8", "i8", "j8", "d8", "c8", "b8", "a8", "z8"
        ])
    );
    let with_knight = pos(
        &[
            ("e8", 'c'),
            ("e5", 'N'),
            ("e2", 'R'),
            ("j1", 'K'),
            ("y8", 'k'),
        ],
        "b - - 0 1",
    );
    assert_eq!(
        kinds_from(&with_knight, "e8", MoveKind::Capture),
        set(&["e2"])
    );
    // Its own Elephant is a screen for it.
    let own = pos(
        &[
            ("e8", 'c'),
            ("e5", 'e'),
            ("e2", 'R'),
            ("j1", 'K'),
            ("y8", 'k'),
        ],
        "b - - 0 1",
    );
    assert_eq!(kinds_from(&own, "e8", MoveKind::Capture), set(&["e2"]));
}

#[test]
fn page_flip_in_place_refused_in_check() {
    let p = pos(
        &[("z1", 'C'), ("e1", 'K'), ("e8", 'r'), ("y8", 'k')],
        "w - - 0 1",
    );
    assert!(p.is_check());
    let err = notation::parse_move(&p, "z1z1v").unwrap_err().to_string();
    assert!(err.contains("attacked by the Rook on e8"), "{err}");
    // Not in check (even pinned): the flip is legal.
    let pinned = pos(
        &[("e3", 'C'), ("e1", 'K'), ("e8", 'r'), ("y8", 'k')],
        "w - - 0 1",
    );
    assert!(notation::parse_move(&pinned, "Pe3/").is_ok());
}

// ----- hand-derived move lists --------------------------------------------------------------

#[test]
fn lion_moves_by_hand() {
    // Lion d4: D/A leaps to empty cells; King-step captures only; never an Elephant.
    let p = pos(
        &[
            ("d4", 'L'),
            ("d6", 'P'),
            ("c5", 'n'),
            ("e4", 'e'),
            ("d3", 'p'),
            ("j1", 'K'),
            ("j8", 'k'),
        ],
        "w - - 0 1",
    );
    assert_eq!(
        moves_from(&p, "d4"),
        set(&[
            "d4b4", "d4f4", "d4d2", "d4b6", "d4f6", "d4b2", "d4f2", "d4xc5", "d4xd3"
        ])
        .into_iter()
        .map(|s| s.replace('x', ""))
        .collect()
    );
}

#[test]
fn elephant_moves_by_hand() {
    // Unmoved Elephant z2 on an open board: steps, two-steps, a push, no capture.
    let p = pos(
        &[
            ("z2", 'E'),
            ("a2", 'n'),
            ("z3", 'e'),
            ("j1", 'K'),
            ("j8", 'k'),
        ],
        "w - - 0 1 unmoved:z2",
    );
    // z3 holds an enemy Elephant (not pushable): blocked. a2 Knight: pushed to b2.
    assert_eq!(
        moves_from(&p, "z2"),
        set(&["z2y2", "z2z1", "z2y1", "z2y3", "z2a2", "z2a1"])
    );
    let push = notation::parse_move(&p, "Exa2").unwrap();
    assert_eq!(
        (push.kind, notation::coord(&p, push)),
        (MoveKind::Push, "z2a2".into())
    );
    let err = notation::parse_move(&p, "z2z3").unwrap_err().to_string();
    assert!(err.contains("cannot push"), "{err}");
}

#[test]
fn wizard_moves_by_hand() {
    // d5 (next to the seam): c4, c6, e4, e6, f5 (B1).
    let p = pos(&[("d5", 'W'), ("j1", 'K'), ("j8", 'k')], "w - - 0 1");
    assert_eq!(
        kinds_from(&p, "d5", MoveKind::Quiet),
        set(&["c4", "c6", "e4", "e6", "f5"])
    );
    // B2: from a4, unmoved, on an empty board it reaches 24 cells.
    let q = pos(
        &[("a4", 'W'), ("j1", 'K'), ("y8", 'k')],
        "w - - 0 1 unmoved:a4",
    );
    assert_eq!(kinds_from(&q, "a4", MoveKind::Quiet).len(), 24);
}

#[test]
fn cannon_moves_by_hand() {
    // Pao c3 with a screen on c5 and a target on c7; every move also with the flip.
    let p = pos(
        &[
            ("c3", 'C'),
            ("c5", 'P'),
            ("c7", 'n'),
            ("c1", 'n'),
            ("j1", 'K'),
            ("j8", 'k'),
        ],
        "w - - 0 1",
    );
    let mut want = BTreeSet::new();
    for to in [
        "c4", "c2", "b3", "a3", "z3", "y3", "d3", "e3", "f3", "g3", "h3", "i3", "j3",
    ] {
        want.insert(format!("c3{to}"));
        want.insert(format!("c3{to}v"));
    }
    want.insert("c3c7".into());
    want.insert("c3c7v".into());
    want.insert("c3c3v".into());
    assert_eq!(moves_from(&p, "c3"), want);
}

// ----- freezes ------------------------------------------------------------------------------

#[test]
fn freeze_rules() {
    let p = pos(
        &[("d8", 'W'), ("e8", 'k'), ("y1", 'K'), ("d7", 'e')],
        "w - - 0 1",
    );
    // Freezing the Elephant: refused with a reason.
    let err = notation::parse_move(&p, "d8d7").unwrap_err().to_string();
    assert!(err.contains("cannot be frozen"), "{err}");
    let mut q = p.clone();
    q.play(notation::parse_move(&q, "Wxe8").unwrap()).unwrap();
    assert!(
        fen::write(&q).ends_with("frozen:d8>e8"),
        "{}",
        fen::write(&q)
    );
    // The frozen King cannot move.
    assert!(moves_from(&q, "e8").is_empty());
    // Round trip of the state text.
    let text = fen::write(&q);
    assert_eq!(
        fen::write(&fen::position(q.variant(), &text).unwrap()),
        text
    );
    q.play(notation::parse_move(&q, "d7d6").unwrap()).unwrap();
    // B5: re-freezing is not a move; B6: stepping to e7 keeps the freeze.
    assert!(notation::parse_move(&q, "d8e8").is_err());
    q.play(notation::parse_move(&q, "d8e7").unwrap()).unwrap();
    assert!(
        fen::write(&q).ends_with("frozen:e7>e8"),
        "{}",
        fen::write(&q)
    );
}

#[test]
fn malformed_state_text_is_refused_with_a_reason() {
    let v = variant();
    for (text, want) in [
        (
            "12/12/12/12/12/12/12/12 w - - 0 1 frozen:y2",
            "freezer>frozen",
        ),
        (
            "k11/12/12/12/12/12/12/K11 w - - 0 1 unmoved:z9",
            "not a cell",
        ),
        (
            "k11/12/12/12/12/12/12/K11 w - - 0 1 unmoved:y1",
            "opening two-step",
        ),
        ("k11/12/12/12/12/12/12/K11 w - - 0 1 frozen:y1>y8", "freeze"),
        ("k11/12/12/12/12/12/12/K11 w - - 0 1 bogus", "unexpected"),
    ] {
        let e = fen::position(&v, text).unwrap_err().to_string();
        assert!(e.contains(want), "{text}: {e}");
    }
}

// ----- perft --------------------------------------------------------------------------------

#[test]
fn start_perft_small() {
    let mut p = Position::start(&variant());
    assert_eq!(perft(&mut p, 1), 46);
}

/// The state text with colours swapped and the board turned top to bottom.
fn colour_flipped(text: &str) -> String {
    let mut fields: Vec<String> = text.split_whitespace().map(String::from).collect();
    let swap = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect()
    };
    let flip_cell = |c: &str| -> String {
        let r: u32 = c[1..].parse().unwrap();
        format!("{}{}", &c[..1], 9 - r)
    };
    let ranks: Vec<String> = fields[0].split('/').rev().map(swap).collect();
    fields[0] = ranks.join("/");
    fields[1] = if fields[1] == "w" {
        "b".into()
    } else {
        "w".into()
    };
    if fields[2] != "-" {
        fields[2] = swap(&fields[2]);
    }
    if fields[3] != "-" {
        fields[3] = flip_cell(&fields[3]);
    }
    for f in fields.iter_mut().skip(6) {
        let (key, list) = f.split_once(':').unwrap();
        let items: Vec<String> = list
            .split(',')
            .map(|item| item.split('>').map(flip_cell).collect::<Vec<_>>().join(">"))
            .collect();
        *f = format!("{key}:{}", items.join(","));
    }
    fields.join(" ")
}

#[test]
fn perft_unchanged_under_colour_flip() {
    let v = variant();
    let data = include_str!("data/bilateral.perft");
    let epds: Vec<&str> = data
        .lines()
        .filter_map(|l| l.strip_prefix("epd "))
        .collect();
    assert_eq!(epds.len(), 6);
    for epd in epds {
        let flipped = colour_flipped(epd);
        let mut a = fen::position(&v, epd).unwrap();
        let mut b = fen::position(&v, &flipped).unwrap_or_else(|e| panic!("{flipped}: {e}"));
        assert_eq!(perft(&mut a, 3), perft(&mut b, 3), "{epd} vs {flipped}");
    }
}

// ----- more hand-derived lists: every piece type in at least three positions -----------------

#[test]
fn lion_more_positions() {
    // At the start: only the two leaps over its own pieces.
    let s = Position::start(&variant());
    assert_eq!(moves_from(&s, "y1"), set(&["y1y3", "y1a3"]));
    assert_eq!(moves_from(&s, "j1"), set(&["j1j3", "j1h3"]));
    // e5: leaps only to empty cells (e7 own Pawn, g3 enemy Knight: no leap captures), King
    // step captures only, and never of the Elephant on d5.
    let p = pos(
        &[
            ("e5", 'L'),
            ("e7", 'P'),
            ("g3", 'n'),
            ("d5", 'e'),
            ("f6", 'p'),
            ("j1", 'K'),
            ("y8", 'k'),
        ],
        "w - - 0 1",
    );
    assert_eq!(
        moves_from(&p, "e5"),
        set(&["e5e3", "e5c5", "e5g5", "e5c7", "e5g7", "e5c3", "e5f6"])
    );
    assert_eq!(
        notation::san(&p, notation::parse_move(&p, "e5f6").unwrap()),
        "Lxf6"
    );
}

#[test]
fn elephant_more_positions() {
    let s = Position::start(&variant());
    assert_eq!(moves_from(&s, "z2"), set(&["z2z3", "z2y3", "z2a3", "z2z4"]));
    // e4 (moved): e5 Pawn pushable to e6; e3 enemy Elephant not pushable; f4 Knight not
    // pushable because g4 is occupied; d4 own Rook.
    let p = pos(
        &[
            ("e4", 'E'),
            ("e5", 'p'),
            ("e3", 'e'),
            ("f4", 'n'),
            ("g4", 'p'),
            ("d4", 'R'),
            ("j1", 'K'),
            ("y8", 'k'),
        ],
        "w - - 0 1",
    );
    assert_eq!(moves_from(&p, "e4"), set(&["e4e5"]));
    let err = notation::parse_move(&p, "e4f4").unwrap_err().to_string();
    assert!(err.contains("g4 is occupied"), "{err}");
    let err = notation::parse_move(&p, "e4e3").unwrap_err().to_string();
    assert!(err.contains("cannot push"), "{err}");
}

#[test]
fn cannon_more_positions() {
    let s = Position::start(&variant());
    assert_eq!(moves_from(&s, "z1"), set(&["z1z1v"]));
    // Vao d4: f6 own Pawn is a screen (captures h8 beyond g7); the enemy Elephant on c3
    // blocks the a1 Knight; every move exists with and without the flip.
    let p = pos(
        &[
            ("d4", 'V'),
            ("f6", 'P'),
            ("h8", 'r'),
            ("c3", 'e'),
            ("a1", 'n'),
            ("j1", 'K'),
            ("y8", 'k'),
        ],
        "w - - 0 1",
    );
    let mut want = BTreeSet::new();
    for to in ["e5", "c5", "b6", "a7", "z8", "e3", "f2", "g1", "h8"] {
        want.insert(format!("d4{to}"));
        want.insert(format!("d4{to}c"));
    }
    want.insert("d4d4c".into());
    assert_eq!(moves_from(&p, "d4"), want);
    let m = notation::parse_move(&p, "Vxh8/").unwrap();
    assert_eq!(
        (m.kind, notation::coord(&p, m)),
        (MoveKind::Capture, "d4h8c".into())
    );
}

// ----- freezes, immunity and check ------------------------------------------------------------

#[test]
fn frozen_pieces_give_no_check() {
    let p = pos(
        &[("e1", 'K'), ("d8", 'W'), ("e8", 'r'), ("y8", 'k')],
        "w - - 0 1 frozen:d8>e8",
    );
    assert!(!p.is_check());
    assert!(moves_from(&p, "e1").contains("e1e2"));
}

#[test]
fn a_king_may_step_next_to_a_frozen_king() {
    let mut p = pos(
        &[("e6", 'K'), ("d8", 'W'), ("e8", 'k')],
        "w - - 0 1 frozen:d8>e8",
    );
    assert!(moves_from(&p, "e6").contains("e6e7"));
    p.play(notation::parse_move(&p, "Ke7").unwrap()).unwrap();
    assert!(p.is_check());
    assert_eq!(
        p.outcome(),
        Some(rules::Outcome::Win {
            winner: rules::Side::WHITE,
            reason: rules::WinReason::Checkmate
        })
    );
}

#[test]
fn freezing_the_checking_piece_parries_check() {
    let p = pos(
        &[("e1", 'K'), ("d7", 'W'), ("e7", 'r'), ("y8", 'k')],
        "w - - 0 1",
    );
    assert!(p.is_check());
    let m = notation::parse_move(&p, "Wxe7").unwrap();
    assert_eq!(m.kind, MoveKind::Freeze);
}

#[test]
fn freezing_a_wizard_cancels_its_freezes() {
    let mut p = pos(
        &[
            ("j1", 'K'),
            ("e6", 'W'),
            ("f5", 'N'),
            ("f6", 'w'),
            ("y8", 'k'),
        ],
        "w - - 0 1 frozen:f6>f5",
    );
    assert!(moves_from(&p, "f5").is_empty());
    p.play(notation::parse_move(&p, "Wxf6").unwrap()).unwrap();
    assert!(
        fen::write(&p).ends_with(" frozen:e6>f6"),
        "{}",
        fen::write(&p)
    );
}

#[test]
fn a_pushed_wizard_loses_its_freezes() {
    let mut p = pos(
        &[
            ("j1", 'K'),
            ("d5", 'E'),
            ("e4", 'N'),
            ("e5", 'w'),
            ("y8", 'k'),
        ],
        "w - - 0 1 frozen:e5>e4",
    );
    p.play(notation::parse_move(&p, "Exe5").unwrap()).unwrap();
    assert!(!fen::write(&p).contains("frozen"), "{}", fen::write(&p));
    assert!(p.frozen_cells().is_empty());
}

#[test]
fn castling_is_blocked_by_a_frozen_king() {
    let free = pos(
        &[("e1", 'K'), ("h1", 'R'), ("e3", 'w'), ("y8", 'k')],
        "w K - 0 1",
    );
    assert!(notation::parse_move(&free, "O-O").is_ok());
    let frozen = pos(
        &[("e1", 'K'), ("h1", 'R'), ("e2", 'w'), ("y8", 'k')],
        "w K - 0 1 frozen:e2>e1",
    );
    assert!(notation::parse_move(&frozen, "O-O").is_err());
    assert!(moves_from(&frozen, "e1").is_empty());
}

#[test]
fn elephants_are_captured_only_by_king_or_pawn() {
    let p = pos(
        &[
            ("d1", 'Q'),
            ("c4", 'P'),
            ("c6", 'K'),
            ("d5", 'e'),
            ("y8", 'k'),
        ],
        "w - - 0 1",
    );
    let d5 = cell(&p, "d5");
    let takers: BTreeSet<String> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.to == d5 && m.is_capture())
        .map(|m| notation::coord(&p, m))
        .collect();
    assert_eq!(takers, set(&["c4d5", "c6d5"]));
    let err = notation::parse_move(&p, "d1d5").unwrap_err().to_string();
    assert!(
        err.contains("can only be captured by a King or a Pawn"),
        "{err}"
    );
}

#[test]
fn a_kill_threat_is_check_and_elephants_never_check() {
    let p = pos(&[("e1", 'K'), ("d4", 'w'), ("y8", 'k')], "w - - 0 1");
    assert!(p.is_check());
    let blocked = pos(
        &[("e1", 'K'), ("d4", 'w'), ("d2", 'P'), ("y8", 'k')],
        "w - - 0 1",
    );
    assert!(!blocked.is_check());
    let elephant = pos(&[("e1", 'K'), ("e2", 'e'), ("y8", 'k')], "w - - 0 1");
    assert!(!elephant.is_check());
}

#[test]
fn push_off_the_board_is_refused_with_a_reason() {
    let p = pos(
        &[("e7", 'E'), ("e8", 'n'), ("j1", 'K'), ("y8", 'k')],
        "w - - 0 1",
    );
    let err = notation::parse_move(&p, "e7e8").unwrap_err().to_string();
    assert!(err.contains("no cell beyond"), "{err}");
    assert!(notation::parse_move(&p, "Exe8").is_err());
}

/// Every legal move of every recorded position (and one ply deeper) round-trips through
/// coordinates and SAN, and the incremental hash equals a fresh one.
#[test]
fn notation_and_state_round_trips() {
    let v = variant();
    let data = include_str!("data/bilateral.perft");
    for epd in data.lines().filter_map(|l| l.strip_prefix("epd ")) {
        let p = fen::position(&v, epd).unwrap();
        for m in p.legal_moves() {
            let c = notation::coord(&p, m);
            assert_eq!(notation::parse_coord(&p, &c), Ok(m), "{c} in {epd}");
            assert_eq!(notation::parse_move(&p, &c), Ok(m), "{c} in {epd}");
            let s = notation::san(&p, m);
            assert_eq!(notation::parse_move(&p, &s), Ok(m), "{s} in {epd}");
            let mut q = p.clone();
            q.play_unchecked(m);
            let text = fen::write(&q);
            let again = fen::position(&v, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(fen::write(&again), text);
            assert_eq!(again.hash(), q.hash(), "{text}");
            q.undo();
            assert_eq!(fen::write(&q), fen::write(&p));
            assert_eq!(q.hash(), p.hash());
        }
    }
}

/// The legality oracle of the property tests, on long pseudo-random games from every
/// recorded position (where pushes, freezes and kills are frequent): a pseudo-legal move is
/// legal exactly when afterwards no enemy move captures or kills the mover's King.
#[test]
fn legality_oracle_on_long_games() {
    let v = variant();
    let data = include_str!("data/bilateral.perft");
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut kinds_seen = BTreeSet::new();
    for epd in data.lines().filter_map(|l| l.strip_prefix("epd ")) {
        for _game in 0..6 {
            let mut p = fen::position(&v, epd).unwrap();
            for _ply in 0..80 {
                let legal = p.legal_moves();
                let mover = p.turn();
                for m in p.pseudo_legal_moves() {
                    let mut after = p.clone();
                    after.play_unchecked(m);
                    let k = after.royal(mover).unwrap();
                    let exposed = after
                        .pseudo_legal_moves()
                        .iter()
                        .any(|o| o.is_capture() && o.to == k);
                    assert_eq!(
                        legal.contains(&m),
                        !exposed,
                        "{} move {}",
                        fen::write(&p),
                        notation::coord(&p, m)
                    );
                }
                if legal.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let m = legal[(seed % legal.len() as u64) as usize];
                kinds_seen.insert(format!("{:?}", m.kind));
                p.play(m).unwrap();
            }
        }
    }
    for k in ["Push", "Freeze", "Kill", "Flip"] {
        assert!(kinds_seen.contains(k), "no {k} played: {kinds_seen:?}");
    }
}

#[test]
fn attackers_respect_freezes_and_kills() {
    let p = pos(
        &[
            ("e1", 'K'),
            ("d4", 'w'),
            ("e8", 'r'),
            ("d8", 'W'),
            ("y8", 'k'),
        ],
        "w - - 0 1 frozen:d8>e8",
    );
    let e1 = cell(&p, "e1");
    let names: Vec<&str> = p
        .attackers(e1, rules::Side::BLACK)
        .into_iter()
        .map(|c| p.variant().geometry.name(c))
        .collect();
    assert_eq!(names, vec!["d4"]);
}
