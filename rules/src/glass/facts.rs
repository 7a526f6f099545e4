//! What the referee tells each player, and what it tells everyone.
//!
//! The referee (`super::Glass`) decides, move by move, which [`Fact`]s each player is told,
//! following what the physical game would reveal (`looking-glass.md`, "Information"). The bot
//! only words them; it never chooses what is secret. [`Public`] facts are what the game's
//! channel may show.

use crate::{Cell, Geometry, Kind, Piece, Side, Variant};

/// One thing one player is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// A move on the world this player sees: he watches all of it.
    Seen {
        /// The moving piece (before promotion).
        piece: Piece,
        /// Where it started.
        from: Cell,
        /// Where it stopped on this world.
        to: Cell,
        /// What it promoted to.
        promotion: Option<Kind>,
    },
    /// The result of an order carried out on the world this player cannot see (his own blind
    /// order, or, under the "no strikes" rule, a move made for his army).
    Carried {
        /// The moving piece (before promotion).
        piece: Piece,
        /// Where it started.
        from: Cell,
        /// The destination ordered.
        ordered: Cell,
        /// Where it stopped (before any transfer); differs from `ordered` when shortened.
        to: Cell,
        /// What it promoted to.
        promotion: Option<Kind>,
    },
    /// The opponent's move on the world this player cannot see ended on `cell`: he was asked
    /// whether the connected square of his world is occupied, so he learns this square.
    Asked {
        /// The square the move ended on (on the unseen world).
        cell: Cell,
    },
    /// A piece passed through the portal: it left `from` and now stands on `to`, the
    /// connected square of the other world. Told to whoever sees either end, or ordered it.
    Transferred {
        /// The piece (after promotion).
        piece: Piece,
        /// Where it stopped.
        from: Cell,
        /// Where it now stands.
        to: Cell,
    },
    /// The connected square was occupied: the piece stays on `cell`. Told to both: one asked
    /// (or saw it), the other answered (or watched).
    Stayed {
        /// Where it stands.
        cell: Cell,
    },
    /// A piece was captured on `cell`. The type is public; the square goes to both players
    /// (the owner is told it, the capturer made it).
    Captured {
        /// The captured piece.
        piece: Piece,
        /// Where it stood.
        cell: Cell,
    },
    /// World-change announcement: the piece that arrived on `at` attacks these pieces of its
    /// opponent (type and square), named by the player who sees that world.
    Attacks {
        /// Where the arriving piece stands.
        at: Cell,
        /// The opponent's pieces it attacks.
        attacked: Vec<(Piece, Cell)>,
    },
    /// For an arriving Pawn: the contents of the square in front of it.
    InFront {
        /// The square in front of the Pawn.
        cell: Cell,
        /// What stands there.
        content: Option<Piece>,
    },
    /// This player's order for the world he cannot see was impossible.
    Impossible {
        /// His strikes now (always 0 under the "no strikes" rule).
        strikes: u8,
        /// The order as he gave it: he knows what he ordered, and what an impossible order
        /// says about the world he cannot see (a Pawn's target was empty, its way held) is
        /// his to use.
        order: String,
    },
    /// The opponent ordered something impossible on the world this player sees (he heard the
    /// order and refused it).
    Refused {
        /// Who gave the order.
        by: Side,
        /// The order as given.
        order: String,
    },
    /// "No strikes" rule: this player now chooses a move for `army`.
    ChooseFor {
        /// The offender's army.
        army: Side,
    },
}

/// What everybody may know: the game's channel shows only these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Public {
    /// A side chose its back rank (which one stays secret).
    SetUp(Side),
    /// Both sides have chosen: the game starts.
    Started,
    /// `army` made a move (chosen by `by`, who differs under the "no strikes" rule).
    Moved {
        /// Whose pieces moved.
        army: Side,
        /// Who gave the order.
        by: Side,
    },
    /// A piece of this type was captured from `owner`.
    Captured {
        /// Whose piece.
        owner: Side,
        /// Its type.
        kind: Kind,
    },
    /// An order of `by` was impossible; `strikes` is his count now (0 with no strikes).
    Impossible {
        /// Who ordered it.
        by: Side,
        /// His strikes now.
        strikes: u8,
    },
    /// "No strikes" rule: `chooser` now moves for `army`.
    Forfeit {
        /// The offender.
        army: Side,
        /// Who chooses the offender's move.
        chooser: Side,
    },
}

impl Fact {
    /// Every square the fact names, so tests can check what a player was shown.
    pub fn cells(&self) -> Vec<Cell> {
        match self {
            Fact::Seen { from, to, .. } => vec![*from, *to],
            Fact::Carried {
                from, ordered, to, ..
            } => vec![*from, *ordered, *to],
            Fact::Asked { cell } | Fact::Stayed { cell } | Fact::Captured { cell, .. } => {
                vec![*cell]
            }
            Fact::Transferred { from, to, .. } => vec![*from, *to],
            Fact::Attacks { at, attacked } => std::iter::once(*at)
                .chain(attacked.iter().map(|(_, c)| *c))
                .collect(),
            Fact::InFront { cell, .. } => vec![*cell],
            Fact::Impossible { .. } | Fact::ChooseFor { .. } | Fact::Refused { .. } => vec![],
        }
    }

    /// Every (piece, square) the fact places, so tests can check what a player was shown.
    pub fn pieces(&self) -> Vec<(Piece, Cell)> {
        match self {
            Fact::Seen {
                piece,
                to,
                promotion,
                ..
            }
            | Fact::Carried {
                piece,
                to,
                promotion,
                ..
            } => vec![(
                Piece {
                    side: piece.side,
                    kind: promotion.unwrap_or(piece.kind),
                },
                *to,
            )],
            Fact::Transferred { piece, to, .. } => vec![(*piece, *to)],
            Fact::Captured { piece, cell } => vec![(*piece, *cell)],
            Fact::Attacks { attacked, .. } => attacked.clone(),
            Fact::InFront {
                cell,
                content: Some(p),
            } => vec![(*p, *cell)],
            _ => vec![],
        }
    }
}

/// "White Knight", "Black Pawn".
pub fn piece_name(v: &Variant, p: Piece) -> String {
    format!("{} {}", p.side.name(2), v.piece(p.kind).name)
}

fn cell(g: &Geometry, c: Cell) -> &str {
    g.name(c)
}

/// Words a fact for the player it is told to (`me`).
pub fn describe(v: &Variant, me: Side, fact: &Fact) -> String {
    let g = &v.geometry;
    let whose = |p: Piece| {
        if p.side == me {
            format!("your {}", v.piece(p.kind).name)
        } else {
            format!("the {}", piece_name(v, p))
        }
    };
    let promoted = |p: &Option<Kind>| {
        p.map(|k| format!(", promoting to {}", v.piece(k).name))
            .unwrap_or_default()
    };
    match fact {
        Fact::Seen {
            piece,
            from,
            to,
            promotion,
        } => format!(
            "On your world, {} moves {} → {}{}.",
            whose(*piece),
            cell(g, *from),
            cell(g, *to),
            promoted(promotion)
        ),
        Fact::Carried {
            piece,
            from,
            ordered,
            to,
            promotion,
        } => {
            if ordered == to {
                format!(
                    "Order carried out: {} {} → {}{}.",
                    whose(*piece),
                    cell(g, *from),
                    cell(g, *to),
                    promoted(promotion)
                )
            } else {
                format!(
                    "Order carried out as far as possible: {} {} → {} stopped on {}.",
                    whose(*piece),
                    cell(g, *from),
                    cell(g, *ordered),
                    cell(g, *to)
                )
            }
        }
        Fact::Asked { cell: c } => format!(
            "Your opponent's move ended on {} (on the world you cannot see).",
            cell(g, *c)
        ),
        Fact::Transferred { piece, from, to } => format!(
            "{} passes through the portal from {} to {}.",
            capitalise(&whose(*piece)),
            cell(g, *from),
            cell(g, *to)
        ),
        Fact::Stayed { cell: c } => format!(
            "The connected square is occupied: the piece stays on {}.",
            cell(g, *c)
        ),
        Fact::Captured { piece, cell: c } => {
            format!(
                "{} on {} is captured.",
                capitalise(&whose(*piece)),
                cell(g, *c)
            )
        }
        Fact::Attacks { at, attacked } => {
            if attacked.is_empty() {
                format!("The piece on {} attacks nothing there.", cell(g, *at))
            } else {
                format!(
                    "The piece on {} attacks: {}.",
                    cell(g, *at),
                    attacked
                        .iter()
                        .map(|(p, c)| format!("{} on {}", whose(*p), cell(g, *c)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        }
        Fact::InFront { cell: c, content } => match content {
            None => format!("In front of the Pawn, {} is empty.", cell(g, *c)),
            Some(p) => format!(
                "In front of the Pawn stands {} on {}.",
                whose(*p),
                cell(g, *c)
            ),
        },
        Fact::Impossible { strikes, .. } => {
            if *strikes == 0 {
                "That order is impossible.".into()
            } else {
                format!("That order is impossible: strike {strikes} of 3.")
            }
        }
        Fact::Refused { by, order } => format!(
            "{} ordered {order} on your world: impossible, refused.",
            by.name(2)
        ),
        Fact::ChooseFor { army } => format!(
            "You now choose a move for {}'s army: give an order as usual, for its pieces.",
            army.name(2)
        ),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Words a public fact for the game's channel.
pub fn describe_public(v: &Variant, fact: &Public) -> String {
    match fact {
        Public::SetUp(s) => format!("{} has chosen a back rank.", s.name(2)),
        Public::Started => "Both back ranks are chosen: the game begins.".into(),
        Public::Moved { army, by } if army == by => format!("{} has moved.", army.name(2)),
        Public::Moved { army, by } => format!("{} has moved for {}.", by.name(2), army.name(2)),
        Public::Captured { owner, kind } => {
            format!("A {} {} is captured.", owner.name(2), v.piece(*kind).name)
        }
        Public::Impossible { by, strikes } => {
            if *strikes == 0 {
                format!("{}'s order was impossible.", by.name(2))
            } else {
                format!(
                    "{}'s order was impossible: strike {strikes} of 3.",
                    by.name(2)
                )
            }
        }
        Public::Forfeit { army, chooser } => format!(
            "{} loses the turn: {} chooses {}'s move.",
            army.name(2),
            chooser.name(2),
            army.name(2)
        ),
    }
}
