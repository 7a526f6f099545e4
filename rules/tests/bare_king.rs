//! Courier's game ends: the bare King loses (unless it bares the other King at once: drawn),
//! and stalemate loses. Both are `[victory]` rule primitives of the variant file, not
//! Courier code (see `docs/src/rules/courier.md`).

use rules::{Catalog, DrawReason, Outcome, Position, Side, WinReason, fen, notation};

fn at(variant: &str, state: &str) -> Position {
    let v = Catalog::builtin().get(variant).unwrap();
    fen::position(&v, state).unwrap_or_else(|e| panic!("{state}: {e}"))
}

fn after(mut p: Position, moves: &str) -> Position {
    for m in moves.split_whitespace() {
        let mv = notation::parse_move(&p, m).unwrap_or_else(|e| panic!("{m}: {e}"));
        p.play(mv).unwrap();
    }
    p
}

fn win(winner: Side, reason: WinReason) -> Option<Outcome> {
    Some(Outcome::Win { winner, reason })
}

#[test]
fn a_bare_king_that_cannot_bare_the_other_loses_at_once() {
    // Two Rooks: no single capture can bare White.
    let p = at("courier", "k11/12/12/12/12/12/12/2R1R6K b - - 0 1");
    assert_eq!(p.outcome(), win(Side::WHITE, WinReason::BareKing));
    // One Rook out of the bare King's reach: no capture this move, so the chance is gone.
    let p = at("courier", "k11/12/12/12/12/12/12/2R8K b - - 0 1");
    assert_eq!(p.outcome(), win(Side::WHITE, WinReason::BareKing));
}

#[test]
fn a_bare_king_that_bares_the_other_at_once_draws() {
    // The Rook on d7 stands next to the bare King: the game goes on for one move.
    let p = at("courier", "4k7/3R8/12/12/12/12/12/11K b - - 0 1");
    assert_eq!(p.outcome(), None);
    let taken = after(p.clone(), "Kxd7");
    assert_eq!(taken.outcome(), Some(Outcome::Draw(DrawReason::BareKings)));
    // Any other move forfeits the chance.
    let fled = after(p, "Kf8");
    assert_eq!(fled.outcome(), win(Side::WHITE, WinReason::BareKing));
}

#[test]
fn baring_the_king_by_a_capture_ends_the_game_when_no_recapture_bares_back() {
    // White's Rook takes Black's last piece; White keeps a second Rook: Black loses.
    let p = at("courier", "k11/12/12/12/12/12/r11/R3R6K w - - 0 1");
    assert_eq!(p.outcome(), None);
    let p = after(p, "Rxa2");
    assert_eq!(p.outcome(), win(Side::WHITE, WinReason::BareKing));
}

#[test]
fn two_bare_kings_draw() {
    let p = at("courier", "k11/12/12/12/12/12/12/11K w - - 0 1");
    assert_eq!(p.outcome(), Some(Outcome::Draw(DrawReason::BareKings)));
}

#[test]
fn stalemate_loses_in_courier_and_draws_in_chess() {
    // Black: King a8, Pawn a7 blocked by White's Pawn a6; White's King on c7 takes b8 and b7.
    let p = at("courier", "k11/p1K9/P11/12/12/12/12/12 b - - 0 1");
    assert!(!p.is_check());
    assert_eq!(p.legal_moves().len(), 0);
    assert_eq!(p.outcome(), win(Side::WHITE, WinReason::Stalemate));
    let p = at("chess", "k7/p1K5/P7/8/8/8/8/8 b - - 0 1");
    assert_eq!(p.outcome(), Some(Outcome::Draw(DrawReason::Stalemate)));
}

#[test]
fn checkmate_still_wins_as_checkmate() {
    // Rxc8 takes Black's last piece and mates: the reason is checkmate.
    let p = at("courier", "k1f9/12/1K10/12/12/12/12/2R9 w - - 0 1");
    assert_eq!(p.outcome(), None);
    let p = after(p, "Rxc8");
    assert_eq!(p.outcome(), win(Side::WHITE, WinReason::Checkmate));
}

#[test]
fn the_rules_are_data_and_other_variants_keep_theirs() {
    let courier = Catalog::builtin().get("courier").unwrap();
    assert!(courier.end.bare_king && courier.end.stalemate_loses);
    for name in ["chess", "capablanca", "grand", "toulousain"] {
        let v = Catalog::builtin().get(name).unwrap();
        assert!(!v.end.bare_king && !v.end.stalemate_loses, "{name}");
    }
    // K+R v K in chess is no bare-King win.
    let p = at("chess", "k7/8/8/8/8/8/8/2R4K b - - 0 1");
    assert_eq!(p.outcome(), None);
}
