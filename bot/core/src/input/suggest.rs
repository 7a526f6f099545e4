//! Move input helpers: the staged suggestions as a player types a move (Discord's `/move`
//! autocomplete) and the picker for a move typed ambiguously (a promotion without its piece).
//!
//! Discord shows at most 25 autocomplete choices, and a 12x12 board can have far more legal
//! moves. The choices are staged by what the user has typed so far: all moves when they fit,
//! otherwise one choice per piece that can move (`Nb1…`, or the cell for pawns), and once a
//! piece or cell is typed, that piece's moves. The notation follows the user's: coordinates
//! when they type a cell (`e2` → `e2e4`), SAN when they type a piece letter or SAN (`N` →
//! `Nf3`). Everything offered is a legal move of the position, or a prefix that leads to one.

use rules::{Move, Position, notation};

/// How many suggestions a platform shows at most (Discord's limit on autocomplete choices and
/// on select menu options).
pub const MAX_CHOICES: usize = 25;

/// One autocomplete choice: what the user sees and what is filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Shown in the list.
    pub name: String,
    /// The option's value when chosen.
    pub value: String,
}

struct Written {
    from: String,
    group_san: String,
    coord: String,
    san: String,
}

/// Every legal move in both notations. The legal moves are generated once for all of them
/// (`san_among`), not once per spelling: this runs on every keystroke.
fn written(pos: &Position) -> Vec<Written> {
    let v = pos.variant();
    let legal = pos.legal_moves();
    legal
        .iter()
        .map(|m| {
            let from = v.geometry.name(m.from).to_string();
            let san = notation::san_among(pos, *m, &legal);
            let letter = pos
                .piece_at(m.from)
                .map(|p| v.piece(p.kind).letter.to_ascii_uppercase());
            // Pieces are named by their letter in SAN, pawns by their cell.
            let group_san = match letter {
                Some(l) if san.starts_with(l) || san.starts_with("O-O") => format!("{l}{from}"),
                _ => from.clone(),
            };
            Written {
                from,
                group_san,
                coord: notation::coord_among(pos, *m, &legal),
                san,
            }
        })
        .collect()
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '+' | '#' | '!' | '?'))
        .collect()
}

/// The choices for what the user has typed so far in `/move`.
pub fn suggest(pos: &Position, typed: &str) -> Vec<Choice> {
    let all = written(pos);
    let t = squash(typed.trim());
    let coord_mode = !t.is_empty()
        && !t.starts_with(|c: char| c.is_ascii_uppercase())
        && all
            .iter()
            .any(|w| w.coord.starts_with(&t.to_ascii_lowercase()));
    let picked: Vec<&Written> = if t.is_empty() {
        all.iter().collect()
    } else if coord_mode {
        let lower = t.to_ascii_lowercase();
        all.iter().filter(|w| w.coord.starts_with(&lower)).collect()
    } else {
        all.iter()
            .filter(|w| {
                squash(&w.san).starts_with(&t)
                    || w.group_san.starts_with(&t)
                    || (t.len() > w.group_san.len() && t.starts_with(&w.group_san))
                        && squash(&w.san).ends_with(&t[w.group_san.len()..])
            })
            .collect()
    };
    let choice = |w: &Written| {
        if coord_mode {
            Choice {
                name: format!("{} ({})", w.coord, w.san),
                value: w.coord.clone(),
            }
        } else {
            Choice {
                name: format!("{} ({})", w.san, w.coord),
                value: w.san.clone(),
            }
        }
    };
    if picked.len() <= MAX_CHOICES {
        return picked.into_iter().map(choice).collect();
    }
    // Too many: one choice per moving piece, in the notation being typed.
    let mut groups: Vec<(String, usize)> = Vec::new();
    for w in &picked {
        let key = if coord_mode {
            w.from.clone()
        } else {
            w.group_san.clone()
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => groups.push((key, 1)),
        }
    }
    groups
        .into_iter()
        .take(MAX_CHOICES)
        .map(|(key, n)| Choice {
            name: format!("{key}… ({n} move{})", if n == 1 { "" } else { "s" }),
            value: key,
        })
        .collect()
}

/// The cells whose piece can move, for `/moves from:`: those starting with what is typed, at
/// most 25, each shown with its piece and number of moves (`Nb1 (2 moves)` → `b1`).
pub fn origins(pos: &Position, typed: &str) -> Vec<Choice> {
    let t = typed.trim().to_ascii_lowercase();
    let mut out: Vec<(String, String, usize)> = Vec::new();
    for w in written(pos).into_iter().filter(|w| w.from.starts_with(&t)) {
        match out.iter_mut().find(|(from, _, _)| *from == w.from) {
            Some((_, _, n)) => *n += 1,
            None => out.push((w.from, w.group_san, 1)),
        }
    }
    out.into_iter()
        .take(MAX_CHOICES)
        .map(|(from, label, n)| Choice {
            name: format!("{label} ({n} move{})", if n == 1 { "" } else { "s" }),
            value: from,
        })
        .collect()
}

/// When `typed` names a move only up to its promotion (`e7e8`, `e8`, `exd8`), the legal
/// moves it could be, as `(SAN, coordinates)`; empty otherwise.
pub fn promotion_choices(pos: &Position, typed: &str) -> Vec<(String, String)> {
    if notation::parse_move(pos, typed).is_ok() {
        return Vec::new();
    }
    let t = squash(typed.trim());
    let strip_coord = |c: &str| {
        c.trim_end_matches(|ch: char| ch.is_ascii_alphabetic())
            .to_string()
    };
    let strip_san = |s: &str| {
        let s = squash(s);
        match s.find('=') {
            Some(i) => s[..i].to_string(),
            None => s,
        }
    };
    let legal = pos.legal_moves();
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| m.promotion.is_some())
        .filter(|m| {
            let c = notation::coord_among(pos, *m, &legal);
            strip_coord(&c) == t.to_ascii_lowercase()
                || strip_san(&notation::san_among(pos, *m, &legal)) == t
        })
        .collect();
    let same_cells = found
        .windows(2)
        .all(|w| w[0].from == w[1].from && w[0].to == w[1].to);
    if found.len() < 2 || !same_cells {
        return Vec::new();
    }
    found
        .into_iter()
        .take(MAX_CHOICES)
        .map(|m| (notation::san(pos, m), notation::coord(pos, m)))
        .collect()
}

/// When `typed` could be several legal moves, the moves to choose from as `(SAN,
/// coordinates)`, at most 25; empty when it names one move or none. Several moves are: a
/// promotion without its piece, `Nd2` with two Knights able to go there, and a first-stage
/// suggestion submitted as it is (`Nb1` or `e2`, offered by [`suggest`] when the moves did not
/// fit in one list), which stands for that piece's moves.
pub fn move_choices(pos: &Position, typed: &str) -> Vec<(String, String)> {
    let promotions = promotion_choices(pos, typed);
    if !promotions.is_empty() {
        return promotions;
    }
    match notation::parse_move(pos, typed) {
        Ok(_) => Vec::new(),
        Err(notation::MoveTextError::Ambiguous { candidates, .. }) => {
            let legal = pos.legal_moves();
            legal
                .iter()
                .map(|m| {
                    (
                        notation::san_among(pos, *m, &legal),
                        notation::coord_among(pos, *m, &legal),
                    )
                })
                .filter(|(san, _)| candidates.contains(san))
                .take(MAX_CHOICES)
                .collect()
        }
        Err(_) => {
            // A piece (`Nb1`) or a cell (`e2`): the moves of what stands there.
            let t = squash(typed.trim());
            let cell = t.to_ascii_lowercase();
            written(pos)
                .into_iter()
                .filter(|w| w.group_san == t || w.from == cell)
                .take(MAX_CHOICES)
                .map(|w| (w.san, w.coord))
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Catalog;

    fn position(variant: &str, fen: Option<&str>) -> Position {
        let c = Catalog::builtin();
        let v = c.get(variant).unwrap();
        match fen {
            Some(f) => rules::fen::position(&v, f).unwrap(),
            None => Position::start(&v),
        }
    }

    fn legal(pos: &Position, text: &str) -> bool {
        notation::parse_move(pos, text).is_ok()
    }

    #[test]
    fn chess_start_fits_in_one_list() {
        let pos = position("chess", None);
        let all = suggest(&pos, "");
        assert_eq!(all.len(), 20);
        assert!(all.iter().all(|c| legal(&pos, &c.value)));
        assert!(
            all.iter()
                .any(|c| c.value == "Nf3" && c.name == "Nf3 (g1f3)")
        );
    }

    #[test]
    fn staged_by_piece_when_too_many() {
        let pos = position("capablanca", None);
        assert!(pos.legal_moves().len() > MAX_CHOICES);
        let first = suggest(&pos, "");
        assert!(first.len() <= MAX_CHOICES);
        // One choice per movable piece: pieces by letter and cell, pawns by cell.
        assert!(first.iter().any(|c| c.value == "Nb1"), "{first:?}");
        assert!(first.iter().any(|c| c.value == "e2"), "{first:?}");
        // A piece typed in SAN: its moves in SAN.
        let knight = suggest(&pos, "Nb1");
        assert!(!knight.is_empty());
        assert!(
            knight
                .iter()
                .all(|c| c.value.starts_with('N') && legal(&pos, &c.value))
        );
        // A cell typed: that cell's moves in coordinates.
        let e2 = suggest(&pos, "e2");
        assert_eq!(
            e2.iter().map(|c| c.value.as_str()).collect::<Vec<_>>(),
            ["e2e3", "e2e4"]
        );
        // Complete SAN: exactly that move.
        let nc3 = suggest(&pos, "Nc3");
        assert_eq!(nc3.len(), 1);
        assert_eq!(nc3[0].value, "Nc3");
        assert!(suggest(&pos, "Zz9").is_empty());
    }

    #[test]
    fn a_first_stage_choice_submitted_offers_that_pieces_moves() {
        for (variant, fen) in [("capablanca", None), ("toulousain", None)] {
            let pos = position(variant, fen);
            let first = suggest(&pos, "");
            assert!(
                first.iter().any(|c| c.name.contains('…')),
                "{variant}: not staged"
            );
            for choice in first.iter().filter(|c| c.name.contains('…')) {
                let options = move_choices(&pos, &choice.value);
                assert!(
                    !options.is_empty(),
                    "{variant} {}: nothing offered",
                    choice.value
                );
                for (san, coord) in &options {
                    assert!(legal(&pos, san) && legal(&pos, coord), "{san} {coord}");
                    // All from the piece that was picked.
                    let m = notation::parse_move(&pos, coord).unwrap();
                    let from = pos.variant().geometry.name(m.from);
                    assert!(
                        choice.value.ends_with(from),
                        "{variant}: {} offered {coord}",
                        choice.value
                    );
                }
            }
        }
        // A complete move is no choice, and nonsense offers nothing.
        let pos = position("capablanca", None);
        assert!(move_choices(&pos, "Nc3").is_empty());
        assert!(move_choices(&pos, "Zz9").is_empty());
    }

    #[test]
    fn big_board_stays_within_the_limit() {
        let c = Catalog::builtin();
        for name in c.names() {
            let pos = Position::start(&c.get(&name).unwrap());
            for typed in ["", "a", "N", "b", "c1"] {
                let s = suggest(&pos, typed);
                assert!(s.len() <= MAX_CHOICES, "{name} {typed}: {}", s.len());
                for ch in &s {
                    assert!(!ch.name.is_empty() && ch.name.chars().count() <= 100);
                    assert!(!ch.value.is_empty() && ch.value.len() <= 100);
                }
            }
        }
    }

    #[test]
    fn origins_are_cells_with_moves() {
        let pos = position("chess", None);
        let all = origins(&pos, "");
        assert_eq!(all.len(), 10);
        assert!(all.contains(&Choice {
            name: "Ng1 (2 moves)".into(),
            value: "g1".into()
        }));
        assert_eq!(
            origins(&pos, "e")
                .iter()
                .map(|c| c.value.as_str())
                .collect::<Vec<_>>(),
            ["e2"]
        );
        assert!(origins(&pos, "e4").is_empty());
    }

    #[test]
    fn promotion_is_offered_only_when_that_is_the_only_doubt() {
        let pos = position("chess", Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"));
        let by_coord = promotion_choices(&pos, "e7e8");
        assert_eq!(by_coord.len(), 4, "{by_coord:?}");
        assert!(by_coord.iter().all(|(_, c)| legal(&pos, c)));
        assert_eq!(promotion_choices(&pos, "e8").len(), 4);
        assert!(promotion_choices(&pos, "e7e8q").is_empty());
        assert!(promotion_choices(&pos, "Kd1").is_empty());
        assert_eq!(move_choices(&pos, "e7e8").len(), 4);
    }

    #[test]
    fn ambiguous_moves_are_offered() {
        let pos = position("chess", Some("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1"));
        let mut both = move_choices(&pos, "Nd2");
        both.sort();
        assert_eq!(
            both,
            [
                ("Nbd2".to_string(), "b1d2".to_string()),
                ("Nfd2".to_string(), "f3d2".to_string())
            ]
        );
        assert!(move_choices(&pos, "Nbd2").is_empty());
        assert!(move_choices(&pos, "Nd3").is_empty());
    }
}
