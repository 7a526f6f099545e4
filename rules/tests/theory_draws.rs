//! Draws that endgame theory knows and the rules do not end ([`Position::is_wrong_corner_draw`]):
//! a lone King in the corner where Rook's Pawns would promote, which the other side's pieces
//! can never attack. Each case names what makes it a draw or not.

use rules::{Catalog, Position, fen};

fn pos(variant: &str, text: &str) -> Position {
    let v = Catalog::builtin().get(variant).unwrap();
    fen::position(&v, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn corner_draw(variant: &str, text: &str) -> bool {
    let p = pos(variant, text);
    let draw = p.is_wrong_corner_draw();
    if draw {
        assert_eq!(p.outcome(), None, "{text}: the rules do not end it");
    }
    draw
}

#[test]
fn the_wrong_bishop_and_a_rooks_pawn_draw_in_chess() {
    // a8 is light, the Bishop on c1 dark: it never attacks a8 nor b7.
    assert!(corner_draw("chess", "k7/8/8/8/P7/8/8/2B1K3 w - - 0 60"));
    assert!(
        corner_draw("chess", "1k6/8/8/8/P7/8/8/2B1K3 b - - 0 60"),
        "on b8"
    );
    assert!(
        corner_draw("chess", "8/1k6/8/8/P7/8/8/2B1K3 w - - 0 60"),
        "on b7"
    );
    assert!(
        corner_draw("chess", "k7/8/P7/P7/P7/8/8/2B1K3 w - - 0 60"),
        "three pawns"
    );
    assert!(
        corner_draw("chess", "k7/8/8/8/P7/8/8/4K3 w - - 0 60"),
        "no Bishop at all"
    );
    assert!(
        corner_draw("chess", "k7/8/8/8/P7/8/8/B1B1K3 w - - 0 60"),
        "two dark Bishops"
    );
    // The h-file's corner h8 is dark: the light Bishop is the wrong one there.
    assert!(corner_draw("chess", "7k/8/8/8/7P/8/8/3BK3 w - - 0 60"));
    // Black's a-pawn promotes on a1 (dark): his light Bishop is the wrong one.
    assert!(corner_draw("chess", "2b1k3/8/8/8/p7/8/8/K7 b - - 0 60"));
}

#[test]
fn what_is_not_the_wrong_corner() {
    // The right Bishop attacks the corner.
    assert!(!corner_draw("chess", "k7/8/8/8/P7/8/8/3BK3 w - - 0 60"));
    // The King is too far from the corner.
    assert!(!corner_draw("chess", "8/8/2k5/8/P7/8/8/2B1K3 w - - 0 60"));
    // A Knight can attack every cell.
    assert!(!corner_draw("chess", "k7/8/8/8/P7/8/8/1NB1K3 w - - 0 60"));
    // A pawn on the b-file promotes on b8, which is no corner.
    assert!(!corner_draw("chess", "1k6/8/8/8/1P6/8/8/2B1K3 w - - 0 60"));
    // Pawns on two files.
    assert!(!corner_draw("chess", "k7/8/8/8/PP6/8/8/2B1K3 w - - 0 60"));
    // The lone side has more than its King.
    assert!(!corner_draw("chess", "kb6/8/8/8/P7/8/8/2B1K3 w - - 0 60"));
}

#[test]
fn other_boards_and_rules() {
    // Capablanca, 10x8: j8 is dark (a1 is dark, and j8 lies nine files and seven ranks
    // away), so the light Bishop (d1) is the wrong one for a j-pawn, the dark one (here a3) not.
    assert!(corner_draw(
        "capablanca",
        "9k/10/10/10/9P/10/10/3BK5 w - - 0 60"
    ));
    assert!(!corner_draw(
        "capablanca",
        "9k/10/10/10/9P/B9/10/4K5 w - - 0 60"
    ));
    // Courier: a bare King loses, so the lone King's corner is no refuge.
    let p = pos("courier", "k11/12/12/12/P11/12/12/4K7 w - - 0 60");
    assert!(!p.is_wrong_corner_draw());
}
