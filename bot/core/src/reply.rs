//! Replies are intent, not markup: text, mentions, an optional board, and an audience. The
//! adapters decide how each looks on their platform (a Discord embed, a Matrix message, a
//! console line) and deliver privately what is private.

use crate::{
    engine::EngineKind,
    model::{GameId, Place, PlayerId},
};

/// Who may see a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// Everyone in the room where the command was given (or the game's room).
    Room,
    /// Only the person who gave the command (Discord: ephemeral; Matrix: the room, with a
    /// mention; console: the prompt). Used for errors and personal lists. Never carries secrets.
    Actor,
    /// One player privately (Discord DM, Matrix direct room). Hidden information goes only here.
    Private(PlayerId),
}

/// A picture of a game's board for the adapters to render (the core does not draw).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPicture {
    /// The game.
    pub game: GameId,
    /// Which engine's state text `state` is (one board, or a Looking-Glass view).
    pub engine: EngineKind,
    /// The variant's name.
    pub variant: String,
    /// The state text of the position to draw.
    pub state: String,
    /// The cells the last move went from and to, to mark them.
    pub last_move: Option<MovedCells>,
    /// The seat the picture is oriented for (its side at the bottom); `None` = first seat.
    pub viewer: Option<u8>,
    /// Player names by seat, for the captions.
    pub players: Vec<String>,
    /// The clock line under the board (`Clock 10+5 · White 9:58 ⏳ · Black 10:00`), in a
    /// game with a time control: the times at the moment of the reply, so a picture is a
    /// function of the stored game and the service's clock.
    pub clock: Option<String>,
}

/// The two cells of a move, by the geometry's exact cell names: resolved by the engine from the
/// move itself (see [`crate::picture::last_move`]), never guessed from the move's text, whose
/// cell names can be prefixes of one another (`k1` and `k10`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedCells {
    /// Where the moving piece (the King, when castling; the caster of a spell) stood.
    pub from: String,
    /// Where it went (a spell's target; the cell itself for a flip in place).
    pub to: String,
}

/// Buttons a platform with components may show (Discord); others show the text alternative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Accept or decline a challenge.
    AnswerChallenge(i64),
    /// Accept or decline a draw offer.
    AnswerDraw(GameId),
    /// Accept or decline a takeback request.
    AnswerTakeback(GameId),
}

/// One reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Who sees it.
    pub audience: Audience,
    /// The text (plain, with `{0}`, `{1}`... standing for the mentions in order).
    pub text: String,
    /// Players to mention (notify).
    pub mentions: Vec<PlayerId>,
    /// A board to attach.
    pub board: Option<BoardPicture>,
    /// Buttons to offer.
    pub actions: Vec<Action>,
    /// For [`Audience::Room`]: the game's room when it is not where the command was given
    /// (a Looking-Glass player gives his orders in his private channel, and the game's room
    /// is told the public part). `None`: the room of the command.
    pub place: Option<Place>,
}

impl Reply {
    /// A reply to the room.
    pub fn room(text: impl Into<String>) -> Reply {
        Reply {
            audience: Audience::Room,
            text: text.into(),
            mentions: Vec::new(),
            board: None,
            actions: Vec::new(),
            place: None,
        }
    }

    /// A reply to one player privately (Discord DM, Matrix direct room, a labelled console
    /// line).
    pub fn private(who: PlayerId, text: impl Into<String>) -> Reply {
        Reply {
            audience: Audience::Private(who),
            ..Reply::room(text)
        }
    }

    /// Sends a room reply to the game's room `place` rather than the command's.
    pub fn in_place(mut self, place: Place) -> Reply {
        self.place = Some(place);
        self
    }

    /// A reply to the actor only.
    pub fn actor(text: impl Into<String>) -> Reply {
        Reply {
            audience: Audience::Actor,
            ..Reply::room(text)
        }
    }

    /// Adds a mention.
    pub fn mention(mut self, who: PlayerId) -> Reply {
        self.mentions.push(who);
        self
    }

    /// Mentions every one of `players` (those not mentioned yet are added, and named at the
    /// end of the text), so that a result reaches each player's notifications on every
    /// platform, not only where the text happens to name him.
    pub fn notify_all(mut self, players: &[PlayerId]) -> Reply {
        for p in players {
            if !self.mentions.contains(p) {
                self.mentions.push(p.clone());
            }
        }
        let missing: Vec<String> = (0..self.mentions.len())
            .map(|i| format!("{{{i}}}"))
            .filter(|slot| !self.text.contains(slot.as_str()))
            .collect();
        if !missing.is_empty() {
            self.text.push(' ');
            self.text.push_str(&missing.join(" "));
        }
        self
    }

    /// Attaches a board.
    pub fn with_board(mut self, board: BoardPicture) -> Reply {
        self.board = Some(board);
        self
    }

    /// Adds buttons.
    pub fn with_action(mut self, action: Action) -> Reply {
        self.actions.push(action);
        self
    }

    /// The text with mentions replaced by a function of each player (for plain renderings).
    pub fn render_text(&self, name: impl Fn(&PlayerId) -> String) -> String {
        let mut t = self.text.clone();
        for (i, p) in self.mentions.iter().enumerate() {
            t = t.replace(&format!("{{{i}}}"), &name(p));
        }
        t
    }
}
