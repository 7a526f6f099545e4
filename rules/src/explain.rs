//! Reasons for refused moves, in words a player understands ("that would leave your King
//! attacked by the Cannon on e9", "the Knight on b1 cannot reach b4").

use crate::{
    position::Position,
    types::{Move, MoveList},
};

/// Why a move is not legal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The start cell is empty.
    #[error("there is no piece on {cell}")]
    NoPiece {
        /// The cell.
        cell: String,
    },
    /// The piece belongs to another side.
    #[error("the {piece} on {cell} is {owner}'s, and it is {turn}'s turn")]
    NotYours {
        /// Its name.
        piece: String,
        /// Its cell.
        cell: String,
        /// Its owner.
        owner: String,
        /// The side to move.
        turn: String,
    },
    /// The piece cannot move like that.
    #[error("the {piece} on {from} cannot reach {to}")]
    CannotReach {
        /// Its name.
        piece: String,
        /// Its cell.
        from: String,
        /// The intended destination.
        to: String,
    },
    /// The move would leave (or keep) the mover's royal piece attacked.
    #[error(
        "{}that would leave your {royal} attacked by {}",
        .pinned.as_ref().map(|p| format!("the {p} is pinned: ")).unwrap_or_default(),
        .attackers.join(" and ")
    )]
    ExposesRoyal {
        /// "Knight on d2" when the mover is not royal and the King was not in check: the
        /// piece is pinned.
        pinned: Option<String>,
        /// The royal piece's name.
        royal: String,
        /// "the Cannon on e9", ...
        attackers: Vec<String>,
    },
    /// The move is legal in shape but not with these details (promotion, castling...).
    #[error("{0}")]
    Other(String),
}

/// Explains why `m` (of which only `from` and `to` are trusted) is not legal in `pos`.
pub fn explain(pos: &Position, m: Move) -> IllegalMove {
    let v = &**pos.variant();
    let g = &v.geometry;
    let sides = v.sides as usize;
    let Some(piece) = pos.piece_at(m.from) else {
        return IllegalMove::NoPiece {
            cell: g.name(m.from).to_string(),
        };
    };
    let name = v.piece(piece.kind).name.clone();
    if piece.side != pos.turn() {
        return IllegalMove::NotYours {
            piece: name,
            cell: g.name(m.from).to_string(),
            owner: piece.side.name(sides).to_string(),
            turn: pos.turn().name(sides).to_string(),
        };
    }
    if let Some(reason) = pos.special_reason(m) {
        return IllegalMove::Other(reason);
    }
    if let Some(winner) = pos.capture_winner() {
        return IllegalMove::Other(format!(
            "the game is over: {} has captured every piece that wins",
            winner.name(sides)
        ));
    }
    if let Some(c) = pos.shunned_in_section(piece.kind, m.to) {
        let enemy = pos
            .piece_at(c)
            .map(|p| v.piece(p.kind).name.clone())
            .unwrap_or_default();
        return IllegalMove::Other(format!(
            "the {name} may not move into the river section of {}: the enemy {enemy} on {} is there",
            g.name(m.to),
            g.name(c)
        ));
    }
    let pseudo: MoveList = pos.pseudo_legal_moves();
    let candidates: Vec<Move> = pseudo
        .iter()
        .copied()
        .filter(|p| {
            p.from == m.from
                && (p.to == m.to || (p.kind == crate::MoveKind::Castle && p.aux == m.to))
                && (m.kind == crate::MoveKind::Quiet || p.kind == m.kind)
        })
        .collect();
    let Some(first) = candidates.first().copied() else {
        return IllegalMove::CannotReach {
            piece: name,
            from: g.name(m.from).to_string(),
            to: g.name(m.to).to_string(),
        };
    };
    let legal = pos.legal_moves();
    if candidates.iter().any(|c| legal.contains(c)) {
        return IllegalMove::Other(format!(
            "the {name} on {} can go to {}, but not in the way given (check the promotion piece)",
            g.name(m.from),
            g.name(m.to)
        ));
    }
    let attackers = pos.attackers_after(first);
    let royal = pos
        .royal(pos.turn())
        .and_then(|c| pos.piece_at(c))
        .map(|p| v.piece(p.kind).name.clone())
        .unwrap_or_else(|| "King".into());
    if attackers.is_empty() {
        // Castling that fails its own conditions never reaches the pseudo list, so this is
        // only reached by unusual rules; say what we know.
        return IllegalMove::Other(format!("that move would leave your {royal} attacked"));
    }
    let mover_royal = pos.royal(pos.turn()) == Some(m.from);
    IllegalMove::ExposesRoyal {
        pinned: (!mover_royal && !pos.is_check()).then(|| format!("{name} on {}", g.name(m.from))),
        royal,
        attackers: attackers
            .iter()
            .map(|c| {
                let p = pos
                    .piece_at(*c)
                    .map(|p| v.piece(p.kind).name.clone())
                    .unwrap_or_default();
                format!("the {p} on {}", g.name(*c))
            })
            .collect(),
    }
}
