//! Derived piece values: sensible on chess, following the geometry, overridable by file.

use std::sync::Arc;

use engine::{Evaluator, describe_values, piece_values};
use rules::{Catalog, Position, Side};

fn value(variant: &str, letter: char) -> f32 {
    let v = Catalog::builtin().get(variant).unwrap();
    let pv = piece_values(&v);
    pv.iter().find(|p| p.letter == letter).unwrap().derived
}

#[test]
fn chess_values_come_out_in_the_usual_order() {
    let (q, r, b, n, p) = (
        value("chess", 'Q'),
        value("chess", 'R'),
        value("chess", 'B'),
        value("chess", 'N'),
        value("chess", 'P'),
    );
    assert!(
        q > r && r > b && b > n && n > 2.0 * p,
        "{q} {r} {b} {n} {p}"
    );
    assert!((8.0..11.0).contains(&q), "{q}");
    assert!((2.5..4.0).contains(&n), "{n}");
    let chess = Catalog::builtin().get("chess").unwrap();
    let k = piece_values(&chess)
        .into_iter()
        .find(|p| p.letter == 'K')
        .unwrap();
    assert!(k.royal && k.value == 0.0);
}

#[test]
fn values_follow_the_geometry() {
    // A Knight gains on a cylinder (no edge on two sides).
    assert!(value("ecumenical-wraparound", 'N') > value("ecumenical-northern", 'N'));
    // Every built-in variant gets a positive value for every non-royal kind, and text to show.
    let catalog = Catalog::builtin();
    for name in catalog.names() {
        let v = catalog.get(&name).unwrap();
        for pv in piece_values(&v) {
            assert!(
                pv.royal || pv.value > 0.0 || pv.mobility == 0.0,
                "{name} {pv:?}"
            );
        }
        assert_eq!(describe_values(&v).len(), v.pieces.len() - 1);
    }
    // A variant tuned with values early and late shows both (engine/tuned/toulousain.toml).
    let toulousain = describe_values(&catalog.get("toulousain").unwrap());
    let queen = toulousain.iter().find(|l| l.starts_with("Q ")).unwrap();
    assert!(
        queen.contains("; tuned 12.36, 14.65 in the endgame"),
        "{queen}"
    );
}

#[test]
fn a_value_key_overrides_the_derived_value() {
    let mut catalog = Catalog::builtin();
    catalog
        .add(
            "mine.toml",
            "name = \"mine\"\nextends = \"chess\"\n[pieces.N]\nvalue = 4.5\n",
        )
        .unwrap();
    let v = catalog.get("mine").unwrap();
    let n = piece_values(&v)
        .into_iter()
        .find(|p| p.letter == 'N')
        .unwrap();
    assert!(n.overridden && n.value == 4.5 && n.derived != 4.5);
    assert!(
        describe_values(&v)
            .iter()
            .any(|l| l.contains("set by the variant file"))
    );
}

#[test]
fn the_start_position_is_balanced_and_material_counts() {
    let catalog = Catalog::builtin();
    for name in ["chess", "toulousain", "dcb-balanced", "bilateral"] {
        let v = catalog.get(name).unwrap();
        let e = Evaluator::new(&v);
        let pos = Position::start(&v);
        let (w, b) = (e.evaluate(&pos, Side::WHITE), e.evaluate(&pos, Side::BLACK));
        assert_eq!(w, -b, "{name}");
        // Double Cross armies stand differently on the board (a King on the edge against one
        // near the middle), so only the mirror-symmetric starts are level.
        if !name.starts_with("dcb") {
            assert!(w.abs() < 60, "{name}: {w}");
        }
    }
    let chess = catalog.get("chess").unwrap();
    let e = Arc::new(Evaluator::new(&chess));
    let up_a_queen = rules::fen::position(&chess, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
    assert!(e.evaluate(&up_a_queen, Side::WHITE) > 700);
}
