//! Orders: what a player types for one of his pieces, on either world.
//!
//! A player names squares, never pieces (he may not see the piece): `R:e2e4`, `M:g8-f6`,
//! `e7e8q`, `O-O`. Without a world prefix the square is on the world the player sees.

use crate::{Cell, Geometry};

/// One order, resolved to cells of the two-world geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Move the piece on `from` towards `to` (same world); a Pawn reaching the last rank
    /// becomes `promotion` (a letter of Q, R, B, N).
    Move {
        /// The start square.
        from: Cell,
        /// The destination square as ordered.
        to: Cell,
        /// The promotion letter, uppercase.
        promotion: Option<char>,
    },
    /// Castling on the home world: King to the g-file (`long` = false) or the c-file.
    Castle {
        /// Queenside (`O-O-O`).
        long: bool,
    },
}

/// Why an order's text cannot be read. These are never strikes: nothing was ordered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderTextError {
    /// Nothing usable.
    #[error(
        "type an order as two squares, such as e2e4 (on your world; put R: or M: in front to name a world), or O-O"
    )]
    Empty,
    /// The squares are not both cells of one world.
    #[error(
        "{} is not an order: name the start and destination squares on one world, such as e2e4 (put R: or M: in front to name a world)",
        crate::quote::quote(.0)
    )]
    Unreadable(String),
    /// A promotion letter that no piece has.
    #[error("{}: a Pawn promotes to q, r, b or n (e7e8q)", crate::quote::quote(.0))]
    Promotion(String),
}

impl Order {
    /// Reads an order; squares without a world prefix are on `default_board` (0 Real, 1 Mirror).
    ///
    /// # Errors
    /// An [`OrderTextError`] saying what to type instead.
    pub fn parse(
        geometry: &Geometry,
        default_board: u8,
        text: &str,
    ) -> Result<Order, OrderTextError> {
        // No order is longer than a move (`R:e7-R:e8=q`): the rest is refused unread, so the
        // cost is bounded whatever is typed.
        if text.trim().len() > crate::notation::MAX_MOVE_BYTES {
            let head = text
                .trim()
                .chars()
                .take(crate::quote::QUOTE_CHARS + 1)
                .collect();
            return Err(OrderTextError::Unreadable(head));
        }
        let t: String = text
            .trim()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase()
            .replace('0', "o");
        if t.is_empty() {
            return Err(OrderTextError::Empty);
        }
        match t.trim_end_matches(['+', '#']) {
            "o-o" => return Ok(Order::Castle { long: false }),
            "o-o-o" => return Ok(Order::Castle { long: true }),
            _ => {}
        }
        let bad = || OrderTextError::Unreadable(text.trim().to_string());
        let mut rest = t.as_str();
        let mut squares = Vec::new();
        let mut board = None;
        while squares.len() < 2 {
            rest = rest.trim_start_matches(['-', 'x', ':']);
            if let Some(r) = rest.strip_prefix("r:") {
                board = Some(0);
                rest = r;
            } else if let Some(r) = rest.strip_prefix("m:") {
                board = Some(1);
                rest = r;
            }
            let mut chars = rest.chars();
            let (Some(f), Some(r)) = (chars.next(), chars.next()) else {
                return Err(bad());
            };
            if !('a'..='h').contains(&f) || !('1'..='8').contains(&r) {
                return Err(bad());
            }
            squares.push((f as i32 - 'a' as i32, r as i32 - '1' as i32, board));
            rest = &rest[2..];
        }
        // The second square takes the first's world unless it names its own, which must match.
        let b = squares[0].2.or(squares[1].2).unwrap_or(default_board);
        if squares.iter().any(|s| s.2.is_some_and(|x| x != b)) {
            return Err(bad());
        }
        let promo = rest.trim_start_matches('=');
        let promotion = match promo {
            "" => None,
            p if p.len() == 1 && "qrbn".contains(p) => {
                p.chars().next().map(|c| c.to_ascii_uppercase())
            }
            _ => return Err(OrderTextError::Promotion(text.trim().to_string())),
        };
        let cell = |(f, r, _): (i32, i32, Option<u8>)| geometry.at(b, f, r).ok_or_else(bad);
        let from = cell(squares[0])?;
        let to = cell(squares[1])?;
        if from == to {
            return Err(bad());
        }
        Ok(Order::Move {
            from,
            to,
            promotion,
        })
    }

    /// The canonical text (what the game's record keeps): `R:e2e4`, `M:e7e8q`, `O-O`.
    pub fn text(&self, geometry: &Geometry) -> String {
        match self {
            Order::Castle { long: false } => "O-O".into(),
            Order::Castle { long: true } => "O-O-O".into(),
            Order::Move {
                from,
                to,
                promotion,
            } => {
                let to_name = geometry.name(*to);
                let plain = to_name.split(':').next_back().unwrap_or(to_name);
                let mut s = format!("{}{}", geometry.name(*from), plain);
                if let Some(p) = promotion {
                    s.push(p.to_ascii_lowercase());
                }
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry() -> Geometry {
        crate::glass::variant().geometry.clone()
    }

    #[test]
    fn forms_of_one_order() {
        let g = geometry();
        let want = Order::parse(&g, 1, "M:e2e4").unwrap();
        for text in ["e2e4", "e2-e4", "M:e2-M:e4", "m:e2 e4", "M:e2xe4"] {
            assert_eq!(Order::parse(&g, 1, text).unwrap(), want, "{text}");
        }
        assert_eq!(want.text(&g), "M:e2e4");
        assert_ne!(Order::parse(&g, 0, "e2e4").unwrap(), want);
        let p = Order::parse(&g, 0, "e7e8=Q").unwrap();
        assert_eq!(p.text(&g), "R:e7e8q");
        assert_eq!(
            Order::parse(&g, 0, "0-0-0").unwrap(),
            Order::Castle { long: true }
        );
    }

    #[test]
    fn unreadable_orders_say_what_to_type() {
        let g = geometry();
        for text in ["", "e2", "e2e9", "R:e2M:e4", "e4e4", "Nf3"] {
            let e = Order::parse(&g, 0, text).unwrap_err();
            assert!(e.to_string().contains("e2e4"), "{text}: {e}");
        }
        assert!(matches!(
            Order::parse(&g, 0, "e7e8k"),
            Err(OrderTextError::Promotion(_))
        ));
    }
}
