//! Game ends and refusal reasons.

use rules::{Catalog, DrawReason, Outcome, Position, Side, WinReason, fen, notation};

fn play(variant: &str, start: Option<&str>, moves: &str) -> Position {
    let v = Catalog::builtin().get(variant).unwrap();
    let mut p = match start {
        Some(s) => fen::position(&v, s).unwrap(),
        None => Position::start(&v),
    };
    for m in moves.split_whitespace() {
        let mv = notation::parse_move(&p, m).unwrap_or_else(|e| panic!("{m}: {e}"));
        p.play(mv).unwrap();
    }
    p
}

#[test]
fn fools_mate_is_checkmate() {
    let p = play("chess", None, "f3 e5 g4 Qh4");
    assert_eq!(
        p.outcome(),
        Some(Outcome::Win {
            winner: Side::BLACK,
            reason: WinReason::Checkmate
        })
    );
}

#[test]
fn stalemate_draws() {
    let p = play("chess", Some("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), "");
    assert_eq!(p.outcome(), Some(Outcome::Draw(DrawReason::Stalemate)));
}

#[test]
fn threefold_repetition_draws() {
    let p = play("chess", None, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    assert_eq!(p.outcome(), None, "the start has occurred twice only");
    let p = play("chess", None, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(p.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

/// Earlier occurrences split at a ply: the engine's search tells a repetition on its own line
/// (after the ply it started from) from one of the game before it.
#[test]
fn earlier_occurrences_are_split_at_a_ply() {
    let p = play("chess", None, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(p.plies(), 4);
    assert_eq!(p.earlier_occurrences(0), (1, 0), "the start, at ply 0");
    let p = play("chess", None, "Nf3 Nf6 Ng1 Ng8 Nf3");
    assert_eq!(p.earlier_occurrences(0), (0, 1), "after Nf3, at ply 1");
    assert_eq!(p.earlier_occurrences(1), (1, 0));
    let p = play("chess", None, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(p.earlier_occurrences(4), (2, 0));
    assert_eq!(p.earlier_occurrences(3), (1, 1));
    // The position after 3. e3 e6, at ply 6, comes back at ply 10.
    let p = play("chess", None, "Nf3 Nf6 Ng1 Ng8 e3 e6 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(p.earlier_occurrences(0), (0, 1));
    assert_eq!(p.earlier_occurrences(6), (1, 0));
    assert_eq!(p.repetitions(), 2);
}

#[test]
fn fifty_moves_draw() {
    let p = play("chess", Some("7k/8/8/8/8/8/8/R6K w - - 99 80"), "Ra2");
    assert_eq!(p.outcome(), Some(Outcome::Draw(DrawReason::FiftyMoves)));
    // A pawn move resets the clock.
    let p = play("chess", Some("7k/8/8/8/8/8/P7/R6K w - - 99 80"), "a3");
    assert_eq!(p.outcome(), None);
}

#[test]
fn insufficient_material_where_it_applies() {
    let p = play("chess", Some("7k/8/8/8/8/8/8/6NK w - - 0 1"), "");
    assert_eq!(
        p.outcome(),
        Some(Outcome::Draw(DrawReason::InsufficientMaterial))
    );
    let p = play("chess", Some("7k/8/8/8/8/8/8/6RK w - - 0 1"), "");
    assert_eq!(p.outcome(), None);
    // Every variant has the material rule, derived from its pieces on its board
    // (`tests/dead_positions.rs`): a lone Knight cannot mate on Toulousain's 12x12 either,
    // and a Camel with a Pawn is alive (the Pawn may promote).
    let p = play(
        "toulousain",
        Some("11k/12/12/12/12/12/12/12/12/12/12/10NK w - - 0 1"),
        "",
    );
    assert_eq!(
        p.outcome(),
        Some(Outcome::Draw(DrawReason::InsufficientMaterial))
    );
    let p = play(
        "toulousain",
        Some("11k/12/12/12/12/12/12/12/12/12/P11/10MK w - - 0 1"),
        "",
    );
    assert_eq!(p.outcome(), None);
}

#[test]
fn refusals_say_why() {
    let p = play("chess", None, "");
    let e = notation::parse_move(&p, "b1b4").unwrap_err().to_string();
    assert!(e.contains("the Knight on b1 cannot reach b4"), "{e}");
    let e = notation::parse_move(&p, "e3e4").unwrap_err().to_string();
    assert!(e.contains("there is no piece on e3"), "{e}");
    let e = notation::parse_move(&p, "e7e5").unwrap_err().to_string();
    assert!(e.contains("Black's"), "{e}");
    let p = play("chess", None, "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7");
    assert!(p.outcome().is_some());
    let p = play("chess", Some("4k3/8/8/8/8/8/4r3/R3K3 w Q - 0 1"), "");
    let e = notation::parse_move(&p, "a1a5").unwrap_err().to_string();
    assert!(
        e.contains("leave your King attacked by the Rook on e2"),
        "{e}"
    );
    let e = notation::parse_move(&p, "zz").unwrap_err().to_string();
    assert!(e.contains("not a legal move"), "{e}");
    let e = notation::parse_move(&p, "").unwrap_err().to_string();
    assert!(e.contains("type a move"), "{e}");
}

#[test]
fn ambiguous_text_lists_candidates() {
    let p = play("chess", Some("4k3/8/8/8/8/8/4K3/R6R w - - 0 1"), "");
    let e = notation::parse_move(&p, "Rd1").unwrap_err().to_string();
    assert!(e.contains("Rad1") && e.contains("Rhd1"), "{e}");
}
