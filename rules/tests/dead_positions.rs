//! Dead positions: material that can never checkmate draws, in every variant, judged from what
//! the remaining pieces can do on the variant's own board (see `docs/src/rules/dead-positions.md`).

use rules::{Catalog, DrawReason, Outcome, Position, fen, notation};

fn at(variant: &str, state: &str) -> Position {
    let v = Catalog::builtin().get(variant).unwrap();
    fen::position(&v, state).unwrap_or_else(|e| panic!("{variant} {state}: {e}"))
}

const DEAD: Option<Outcome> = Some(Outcome::Draw(DrawReason::InsufficientMaterial));

fn dead(variant: &str, state: &str) {
    assert_eq!(at(variant, state).outcome(), DEAD, "{variant} {state}");
}

fn alive(variant: &str, state: &str) {
    assert_eq!(at(variant, state).outcome(), None, "{variant} {state}");
}

#[test]
fn fide_material_in_chess_is_unchanged() {
    dead("chess", "7k/8/8/8/8/8/8/7K w - - 0 1");
    dead("chess", "7k/8/8/8/8/8/8/6NK w - - 0 1");
    dead("chess", "7k/8/8/8/8/8/8/5B1K w - - 0 1");
    // Bishops all on one colour, on both sides.
    dead("chess", "b6k/8/8/8/8/8/8/5B1K w - - 0 1");
    dead("chess", "7k/8/8/8/8/8/6B1/5B1K w - - 0 1");
    // Bishops on both colours, two Knights, Knight against Bishop, a Pawn, a Rook: mate is
    // possible (with help), so the game goes on.
    alive("chess", "7k/8/8/8/8/8/8/4BB1K w - - 0 1");
    alive("chess", "7k/8/8/8/8/8/8/5NNK w - - 0 1");
    alive("chess", "6nk/8/8/8/8/8/8/5B1K w - - 0 1");
    alive("chess", "7k/8/8/8/8/8/P7/7K w - - 0 1");
    alive("chess", "7k/8/8/8/8/8/8/6RK w - - 0 1");
}

#[test]
fn capablanca_king_and_bishop_against_king_is_drawn() {
    // The game of the issue: King and Bishop against a lone King on 10x8.
    dead("capablanca", "k9/10/10/10/10/10/10/5B3K w - - 0 1");
    dead("capablanca", "k9/10/10/10/10/10/10/5N3K w - - 0 1");
    dead("capablanca", "k9/10/10/10/10/7b2/10/5B3K w - - 0 1");
    // Bishops of both colours, the Archbishop, the Chancellor, two Knights: not dead.
    alive("capablanca", "k9/10/10/10/10/6b3/10/5B3K w - - 0 1");
    alive("capablanca", "k9/10/10/10/10/10/10/5A3K w - - 0 1");
    alive("capablanca", "k9/10/10/10/10/10/10/5C3K w - - 0 1");
    alive("capablanca", "k9/10/10/10/10/10/10/4NN3K w - - 0 1");
    // Reached by play: the capture of the last Rook leaves King and Bishop against King.
    let v = Catalog::builtin().get("capablanca").unwrap();
    let mut p = fen::position(&v, "k9/10/10/10/10/10/10/r4B3K b - - 0 1").unwrap();
    assert_eq!(p.outcome(), None);
    p.play(notation::parse_move(&p, "Ra6").unwrap()).unwrap();
    p.play(notation::parse_move(&p, "Bxa6").unwrap()).unwrap();
    assert_eq!(p.outcome(), DEAD);
}

#[test]
fn the_rule_is_derived_from_movement_not_from_letters() {
    // Ecumenical's Camel (C, a (3,1) leaper) keeps to one colour; so does the BC compound (L).
    dead(
        "ecumenical-northern",
        "k15/16/16/16/16/16/16/5C9K w - - 0 1",
    );
    dead(
        "ecumenical-northern",
        "k15/16/16/16/16/16/16/5L9K w - - 0 1",
    );
    // A Camel and a Bishop on the same colour cannot mate; on different colours they can.
    dead(
        "ecumenical-northern",
        "k15/16/16/16/16/16/8B7/5C9K w - - 0 1",
    );
    alive(
        "ecumenical-northern",
        "k15/16/16/16/16/16/5B10/5C9K w - - 0 1",
    );
    // Toulousain's Knight alone cannot mate on 12x12 either; its Rook can.
    dead(
        "toulousain",
        "11k/12/12/12/12/12/12/12/12/12/12/10NK w - - 0 1",
    );
    alive(
        "toulousain",
        "11k/12/12/12/12/12/12/12/12/12/12/10RK w - - 0 1",
    );
    // Grand chess: King and Bishop against King.
    dead("grand", "k9/10/10/10/10/10/10/10/10/5B3K w - - 0 1");
}

#[test]
fn the_board_decides_which_pieces_are_colour_bound() {
    // Two Bishops on squares of one colour: dead on the Single Besiege board (8x16)...
    let two_bishops = "8/8/8/8/8/8/8/8/4k3/8/8/8/8/8/8/2B1B2K w - - 0 1";
    dead("ecumenical-besiege", two_bishops);
    // ...but on the Moebius board a Bishop changes colour across the twisted join, so the
    // two Bishops may end on both colours and mate is possible.
    alive("ecumenical-moebius", two_bishops);
}

#[test]
fn rules_with_other_goals_are_not_judged_by_mating_material() {
    // Courier: King and Ferz against King is a bare-King win, not a dead position.
    let p = at("courier", "k11/12/12/12/12/12/12/5F5K b - - 0 1");
    assert_ne!(p.outcome(), DEAD);
}

#[test]
fn old_pieces_judged_by_trying_every_placement() {
    // A variant of our own with the medieval short-range pieces and no bare-King rule.
    let text = r#"
name = "short-range"
extends = "chess"
start = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
[pieces.F]
name = "Ferz"
moves = "F"
[pieces.A]
name = "Alfil"
moves = "A"
[pieces.M]
name = "Man"
moves = "K"
"#;
    let mut catalog = Catalog::builtin();
    let name = catalog.add("short-range.toml", text).unwrap();
    let v = catalog.get(&name).unwrap();
    let outcome = |s: &str| fen::position(&v, s).unwrap().outcome();
    // A Ferz or an Alfil with its King cannot mate a lone King anywhere on 8x8; a Man can.
    assert_eq!(outcome("7k/8/8/8/8/8/8/5F1K w - - 0 1"), DEAD);
    assert_eq!(outcome("7k/8/8/8/8/8/8/5A1K w - - 0 1"), DEAD);
    assert_eq!(outcome("7k/8/8/8/8/8/8/5M1K w - - 0 1"), None);
    // Ferz and Bishop of one colour: dead; Ferz and Alfil of one colour too.
    assert_eq!(outcome("7k/8/8/8/8/8/6B1/5F1K w - - 0 1"), DEAD);
    assert_eq!(outcome("7k/8/8/8/8/8/8/3A1F1K w - - 0 1"), DEAD);
    // Two Ferzes on different colours: alive (they may mate with help).
    assert_eq!(outcome("7k/8/8/8/8/8/5F2/5F1K w - - 0 1"), None);
}

#[test]
fn a_castling_right_keeps_the_position_alive() {
    // King and Rook's partner rights with a Bishop: not judged while a right is left. (A
    // Rook is alive anyway; the right alone is what this checks, with Bishops that castle.)
    let text = r#"
name = "bishop-castles"
extends = "chess"
start = "4k3/8/8/8/8/8/8/B3K3 w Q - 0 1"
[pieces.B]
name = "Bishop"
moves = "B"
castles = true
"#;
    let mut catalog = Catalog::builtin();
    let name = catalog.add("bishop-castles.toml", text).unwrap();
    let v = catalog.get(&name).unwrap();
    let with_right = fen::position(&v, "4k3/8/8/8/8/8/8/B3K3 w Q - 0 1").unwrap();
    assert_eq!(with_right.outcome(), None);
    let without = fen::position(&v, "4k3/8/8/8/8/8/8/B3K3 w - - 0 1").unwrap();
    assert_eq!(without.outcome(), DEAD);
}
