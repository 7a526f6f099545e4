//! What one side of a Looking-Glass game knows, and nothing more.
//!
//! [`Knowledge`] is the only input of the Looking-Glass player's decisions. It is built from
//! the referee's [`PlayerView`] for that side, the [`Fact`]s the referee told that side, the
//! side's own secret back rank, the game's options and (optionally) the answer to the free
//! `ask` query. It holds no [`rules::glass::Glass`] and no reference to one, and none of its
//! parts can reach one (a view and facts are plain cells and pieces), so a player that takes
//! only a `Knowledge` cannot read the opponent's hidden world: the types forbid it.

use rules::{
    Cell, Side, Variant,
    glass::{BackRank, Fact, GlassRules, PlayerView, other, world_of},
};

/// Why a [`Knowledge`] cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnowledgeError {
    /// The view belongs to the other side.
    #[error("the view is {view}'s, not {side}'s")]
    WrongSide {
        /// The side the knowledge was asked for.
        side: &'static str,
        /// The side of the view given.
        view: &'static str,
    },
}

/// Everything one side of a Looking-Glass game has been told: its view (its own world, its
/// own pieces on the other one, strikes, captures, whose turn), every fact the referee told
/// it, its own back rank, the options, and the last answer to `ask` if it asked this turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knowledge {
    view: PlayerView,
    told: Vec<Fact>,
    rules: GlassRules,
    setup: Option<BackRank>,
    answer: Option<bool>,
}

impl Knowledge {
    /// The knowledge of `view.side`: its view, the facts it was told (in order), the game's
    /// options, and the back rank it chose itself (for its castling rights).
    pub fn new(
        view: PlayerView,
        told: Vec<Fact>,
        rules: GlassRules,
        setup: Option<BackRank>,
    ) -> Knowledge {
        Knowledge {
            view,
            told,
            rules,
            setup,
            answer: None,
        }
    }

    /// [`Knowledge::new`], checking that the view is `side`'s.
    ///
    /// # Errors
    /// [`KnowledgeError::WrongSide`] when it is the other side's view.
    pub fn for_side(
        side: Side,
        view: PlayerView,
        told: Vec<Fact>,
        rules: GlassRules,
        setup: Option<BackRank>,
    ) -> Result<Knowledge, KnowledgeError> {
        if view.side != side {
            return Err(KnowledgeError::WrongSide {
                side: side.name(2),
                view: view.side.name(2),
            });
        }
        Ok(Knowledge::new(view, told, rules, setup))
    }

    /// The same knowledge plus the referee's answer to `ask` this turn: whether the army to
    /// move has a complete legal move on the world this side cannot see.
    pub fn with_answer(mut self, has_move_elsewhere: bool) -> Knowledge {
        self.answer = Some(has_move_elsewhere);
        self
    }

    /// The side this knowledge is of.
    pub fn side(&self) -> Side {
        self.view.side
    }

    /// The side's view.
    pub fn view(&self) -> &PlayerView {
        &self.view
    }

    /// The facts told, in order.
    pub fn told(&self) -> &[Fact] {
        &self.told
    }

    /// The options.
    pub fn rules(&self) -> GlassRules {
        self.rules
    }

    /// The answer to `ask`, if given.
    pub fn answer(&self) -> Option<bool> {
        self.answer
    }

    /// Whether this side is to give an order now.
    pub fn to_act(&self) -> bool {
        self.view.to_move == Some(self.view.side)
    }

    /// "No strikes" rule: whether this side is choosing a move for the opponent's army now
    /// (the referee's last word to it was [`Fact::ChooseFor`]; any later fact would be the
    /// result of that choice).
    pub fn forced(&self) -> bool {
        self.to_act() && matches!(self.told.last(), Some(Fact::ChooseFor { .. }))
    }

    /// The army whose piece the next order moves.
    pub fn army(&self) -> Side {
        if self.forced() {
            other(self.side())
        } else {
            self.side()
        }
    }

    /// The world this side sees.
    pub fn world(&self) -> u8 {
        world_of(self.side())
    }

    /// The Rook squares that still give this side a castling right: its King and that Rook
    /// stand where its back rank put them and no fact shows either leaving or being captured
    /// there (every move on its own world is told to it as [`Fact::Seen`], every capture as
    /// [`Fact::Captured`]).
    pub fn castling_rooks(&self, v: &Variant) -> Vec<Cell> {
        let Some(setup) = &self.setup else {
            return Vec::new();
        };
        let side = self.side();
        let g = &v.geometry;
        let home = if side == Side::WHITE { 0 } else { 7 };
        let cell_of = |file: usize| g.at(self.world(), file as i32, home);
        let moved_from = |c: Cell| {
            self.told.iter().any(|f| match f {
                Fact::Seen { from, .. } | Fact::Carried { from, .. } => *from == c,
                Fact::Captured { cell, .. } => *cell == c,
                Fact::Transferred { from, .. } => *from == c,
                _ => false,
            })
        };
        let letters: Vec<char> = setup.letters().chars().collect();
        let Some(king) = letters.iter().position(|l| *l == 'K').and_then(cell_of) else {
            return Vec::new();
        };
        if moved_from(king) {
            return Vec::new();
        }
        letters
            .iter()
            .enumerate()
            .filter(|(_, l)| **l == 'R')
            .filter_map(|(f, _)| cell_of(f))
            .filter(|c| !moved_from(*c))
            .filter(|c| {
                self.view
                    .world
                    .iter()
                    .any(|(x, p)| x == c && p.side == side && v.piece(p.kind).letter == 'R')
            })
            .collect()
    }
}
