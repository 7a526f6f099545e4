//! The rules engine behind a game, decided once from its variant name.
//!
//! A stored game names its variant as text. Most names are catalogue variants played on one
//! board by [`rules::Position`]; Through the Looking-Glass (two hidden worlds, with its own
//! referee) is played by [`rules::glass::Glass`]. The service resolves the name once, into a
//! [`GameKind`] for a challenge and a [`GameEngine`] for a game rebuilt from its record, so no
//! command, adapter or picture has to compare names to know which engine it holds.

use std::sync::Arc;

use rules::{
    Position, Variant,
    glass::{Glass, GlassRules, Phase},
};

/// One game the bot hosts, as listings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The name typed in commands and stored with games.
    pub name: String,
    /// The name shown to players.
    pub display_name: String,
}

/// What a variant name stands for, before any game exists (challenges, `rules`, `piece`).
#[derive(Debug, Clone)]
pub enum GameKind {
    /// A catalogue variant, played on one board.
    Board(Arc<Variant>),
    /// Through the Looking-Glass, with its rules option.
    Glass(GlassRules),
}

impl GameKind {
    /// Every game the bot hosts, in the order it lists them: the catalogue's variants, then
    /// the two forms of Through the Looking-Glass (two hidden worlds with a referee of their
    /// own, so not catalogue entries). The one list behind `variants`, the suggestions for a
    /// mistyped name, and every platform's autocomplete. Cheap: no variant is built.
    pub fn every(catalog: &rules::Catalog) -> Vec<Listed> {
        let mut all: Vec<Listed> = catalog
            .names()
            .into_iter()
            .filter_map(|name| {
                let display_name = catalog.display_name(&name).ok()?;
                Some(Listed { name, display_name })
            })
            .collect();
        all.extend([false, true].map(|no_strikes| {
            let kind = GameKind::Glass(GlassRules { no_strikes });
            Listed {
                name: kind.name().to_string(),
                display_name: kind.display_name().to_string(),
            }
        }));
        all
    }

    /// The names of [`GameKind::every`].
    pub fn every_name(catalog: &rules::Catalog) -> Vec<String> {
        Self::every(catalog).into_iter().map(|l| l.name).collect()
    }

    /// The Looking-Glass game a stored name means, if it means one (the "no strikes" form is a
    /// name of its own).
    pub fn glass(name: &str) -> Option<GlassRules> {
        match name {
            rules::glass::NAME => Some(GlassRules { no_strikes: false }),
            rules::glass::NAME_NO_STRIKES => Some(GlassRules { no_strikes: true }),
            _ => None,
        }
    }

    /// The name games of this kind are stored under.
    pub fn name(&self) -> &str {
        match self {
            GameKind::Board(v) => &v.name,
            GameKind::Glass(r) if r.no_strikes => rules::glass::NAME_NO_STRIKES,
            GameKind::Glass(_) => rules::glass::NAME,
        }
    }

    /// The name shown to players.
    pub fn display_name(&self) -> &str {
        match self {
            GameKind::Board(v) => &v.display_name,
            GameKind::Glass(r) if r.no_strikes => "Through the Looking-Glass (no strikes)",
            GameKind::Glass(_) => "Through the Looking-Glass",
        }
    }

    /// Which engine plays it.
    pub fn engine(&self) -> EngineKind {
        match self {
            GameKind::Board(_) => EngineKind::Board,
            GameKind::Glass(_) => EngineKind::Glass,
        }
    }
}

/// Which engine a game, or a picture of it, belongs to: it says how its state text reads.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum EngineKind {
    /// One board; state text in the engine's FEN ([`rules::fen`]).
    #[default]
    Board,
    /// Two 8x8 worlds; state text by [`rules::glass`] (a player's view, or the whole game).
    Glass,
}

/// A game's engine in its current state, rebuilt from the record's moves.
// The board is the common, hot case: boxing it would cost an allocation per command.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum GameEngine {
    /// A catalogue variant's position.
    Board(Position),
    /// A Looking-Glass game's referee, holding both secret worlds: never shown as it is.
    Glass(Box<Glass>),
}

impl GameEngine {
    /// Which engine this is.
    pub fn kind(&self) -> EngineKind {
        match self {
            GameEngine::Board(_) => EngineKind::Board,
            GameEngine::Glass(_) => EngineKind::Glass,
        }
    }

    /// The variant whose pieces and geometry the game uses (for Looking-Glass, its worlds).
    pub fn variant(&self) -> &Arc<Variant> {
        match self {
            GameEngine::Board(p) => p.variant(),
            GameEngine::Glass(g) => g.variant(),
        }
    }

    /// The seat expected to act next: the side to move; in the Looking-Glass set-up, the
    /// first player who has not chosen a back rank yet. A shared-keyboard console plays for
    /// this seat.
    pub fn seat_to_act(&self) -> usize {
        match self {
            GameEngine::Board(p) => p.turn().index(),
            GameEngine::Glass(g) => match g.phase() {
                Phase::Setup(chosen) => chosen.iter().position(|c| !c).unwrap_or(0),
                _ => g.turn().index(),
            },
        }
    }
}

impl GameEngine {
    /// The seats still in the game, in turn order: every seat but those the rules put out
    /// (checkmated or resigned in a four-player game). A console at one keyboard asks this to
    /// know who may still answer a draw offer.
    pub fn seats_in_play(&self) -> Vec<usize> {
        match self {
            GameEngine::Board(p) => p.remaining().into_iter().map(|s| s.index()).collect(),
            GameEngine::Glass(_) => vec![0, 1],
        }
    }
}

/// Whether a stored Looking-Glass action is a secret set-up (`w setup RNBQKBNR`) rather than
/// an order.
pub(crate) fn is_setup_action(action: &str) -> bool {
    action.split_whitespace().nth(1) == Some("setup")
}

#[cfg(test)]
mod tests {
    use rules::Side;

    use super::*;

    #[test]
    fn names_resolve_both_ways() {
        for rules in [
            GlassRules { no_strikes: false },
            GlassRules { no_strikes: true },
        ] {
            let kind = GameKind::Glass(rules);
            assert_eq!(GameKind::glass(kind.name()), Some(rules));
            assert_eq!(kind.engine(), EngineKind::Glass);
        }
        assert_eq!(GameKind::glass("chess"), None);
    }

    #[test]
    fn the_setup_seat_is_the_first_who_has_not_chosen() {
        let glass = Glass::with_variant(rules::glass::variant(), GlassRules::default());
        let mut engine = GameEngine::Glass(Box::new(glass));
        assert_eq!(engine.seat_to_act(), 0);
        if let GameEngine::Glass(g) = &mut engine {
            g.choose(Side::WHITE, rules::glass::BackRank::orthodox())
                .unwrap();
        }
        assert_eq!(engine.seat_to_act(), 1);
    }
}
