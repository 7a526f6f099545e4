//! Replies are intent, not markup: text, mentions, an optional board, and an audience. The
//! adapters decide how each looks on their platform (a Discord embed, a Matrix message, a
//! console line) and deliver privately what is private.

use crate::{
    model::{GameId, Place, PlayerId},
    rules_engine::EngineKind,
};

/// Who may see a reply.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Audience {
    /// Everyone in the room where the command was given (or the game's room).
    Room,
    /// Only the person who gave the command (Discord: ephemeral; Matrix: the room, with a
    /// mention; console: the prompt). Used for errors and personal lists. Never carries secrets.
    Actor,
    /// One player privately (Discord DM, Matrix direct room). Hidden information goes only here.
    Private(PlayerId),
}

/// A picture of a board for the adapters to render (the core does not draw): a game's
/// position, or a variant's own (its start, or one piece's movement diagram) for `rules`,
/// `piece` and a player's `variant add` / `variant show`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BoardPicture {
    /// The game; `None` for a variant's picture, which belongs to no game.
    #[serde(default)]
    pub game: Option<GameId>,
    /// Instead of the position: the movement diagram of the piece with this letter
    /// (`picture::piece_diagram`), White's piece alone on the variant's board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<char>,
    /// Which engine's state text `state` is (one board, or a Looking-Glass view).
    pub engine: EngineKind,
    /// The variant's name.
    pub variant: String,
    /// The state text of the position to draw.
    pub state: String,
    /// The cells the last move went from and to, to mark them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<MovedCells>,
    /// The seat the picture is oriented for (its side at the bottom); `None` = first seat.
    pub viewer: Option<u8>,
    /// Player names by seat, for the captions.
    pub players: Vec<String>,
    /// The clock line under the board (`Clock 10+5 · White 9:58 ⏳ · Black 10:00`), in a
    /// game with a time control: the times at the moment of the reply, so a picture is a
    /// function of the stored game and the service's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

/// A game's positions for the adapters to draw as an animated replay ([`crate::watch`]):
/// made by the service only for what the room may see (never a Looking-Glass game in play).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReplayPicture {
    /// The game.
    pub game: GameId,
    /// The variant's stored name.
    pub variant: String,
    /// The start state.
    pub start_state: String,
    /// The moves (coordinate notation, or Looking-Glass actions), all of them.
    pub moves: Vec<String>,
    /// The first position drawn: 0, or later for a game too long to draw whole.
    pub from_ply: usize,
    /// Player names by seat, for the captions.
    pub players: Vec<String>,
}

/// The two cells of a move, by the geometry's exact cell names: resolved by the engine from the
/// move itself (see [`crate::picture::last_move`]), never guessed from the move's text, whose
/// cell names can be prefixes of one another (`k1` and `k10`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MovedCells {
    /// Where the moving piece (the King, when castling; the caster of a spell) stood.
    pub from: String,
    /// Where it went (a spell's target; the cell itself for a flip in place).
    pub to: String,
}

/// A move marked on an evaluation graph.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GraphMark {
    /// The position the move led to (index into [`GraphPicture::chances`]).
    pub position: u32,
    /// The seat that made it.
    pub seat: u8,
    /// How bad it was.
    pub severity: crate::analysis::Severity,
}

/// An analysed game's evaluation graph for the adapters to render
/// ([`crate::picture::graph_png`], or [`crate::picture::graph_svg`] for a web page).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GraphPicture {
    /// The game.
    pub game: GameId,
    /// The line above the graph.
    pub title: String,
    /// The first seat's winning chances in each position, the start first, in tenths of a
    /// percent (0 to 1000: whole numbers keep replies comparable and their text short).
    pub chances: Vec<u16>,
    /// With more than two seats, the other seats' chances (against the table) likewise, in
    /// seat order from the second; the graph then draws a line per seat. Empty with two.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<Vec<u16>>,
    /// The move number of the move that led to each position (0 for the start), for the
    /// ticks; empty in a reply stored before numbers were kept (one per seat is assumed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub numbers: Vec<u32>,
    /// Each seat's legend caption (name, side, accuracy), in seat order.
    pub captions: Vec<String>,
    /// The moves to mark.
    pub marks: Vec<GraphMark>,
}

/// Buttons a platform with components may show (Discord); others show the text alternative.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Action {
    /// Accept or decline a challenge.
    AnswerChallenge(i64),
    /// Accept or decline a draw offer.
    AnswerDraw(GameId),
    /// Accept or decline a takeback request.
    AnswerTakeback(GameId),
}

/// One reply. Stored as JSON in the outbox and with held messages: empty fields are left out
/// (a move's announcement is written with every move, so its size is on the command path)
/// and read back as empty.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reply {
    /// Who sees it.
    pub audience: Audience,
    /// The text (plain, with `{0}`, `{1}`... standing for the mentions in order).
    pub text: String,
    /// Players to mention (notify).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<PlayerId>,
    /// A board to attach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardPicture>,
    /// An animated replay to attach (`replay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animation: Option<ReplayPicture>,
    /// Buttons to offer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action>,
    /// For [`Audience::Room`]: the game's room when it is not where the command was given
    /// (a Looking-Glass player gives his orders in his private channel, and the game's room
    /// is told the public part). `None`: the room of the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<Place>,
    /// A table to show under the text (a profile, a leaderboard): Matrix renders it as an
    /// HTML table, Discord as an embed, plain renderings as aligned columns
    /// ([`Reply::render_text`] includes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Table>,
    /// An evaluation graph to attach (a post-game analysis), drawn by the adapters like a
    /// board ([`crate::picture::graph_png`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphPicture>,
    /// The outbox key of an earlier reply this one replaces (an analysis's progress line):
    /// an adapter that can edit the message it sent for that key edits it (Discord: the
    /// message; Matrix: an `m.replace` edit); one that cannot, or no longer knows the
    /// message (a restart), sends this reply as a new message, so nothing is lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<crate::outbox::Key>,
    /// The game it is about, for a reply about one that carries no board (a private copy
    /// of a result, a flag's note): a private message held for a player who cannot be
    /// reached counts with its game's, so his game's room is told once per game
    /// ([`Reply::game`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<GameId>,
    /// The game's web page (`[web] public_url`), for a reply that announces a game or its
    /// result. The text says it too ("Watch or replay it: …"); a platform with link buttons
    /// (Discord) also shows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    /// Its entry in the store's outbox once posted ([`crate::outbox`]): the adapter that
    /// delivers the reply reports it delivered, or to be tried again, by this key. `None`: not
    /// posted (a reply being built, or one the store could not take), nothing to report.
    #[serde(skip)]
    pub key: Option<crate::outbox::Key>,
}

/// Rows of plain cells under a header. Cells are plain text (names players chose, numbers):
/// every adapter escapes them for its markup.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// The column headers.
    pub columns: Vec<String>,
    /// The rows, each as many cells as there are columns.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as monospace text: one line per row, columns padded to their widest cell,
    /// numbers right-aligned (a column whose every cell starts with a digit, a sign or `#`).
    pub fn aligned(&self) -> String {
        let width = |i: usize| {
            std::iter::once(&self.columns[i])
                .chain(self.rows.iter().filter_map(|r| r.get(i)))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        };
        let numeric = |i: usize| {
            !self.rows.is_empty()
                && self.rows.iter().all(|r| {
                    r.get(i)
                        .and_then(|c| c.chars().next())
                        .is_some_and(|c| c.is_ascii_digit() || c == '+' || c == '-' || c == '#')
                })
        };
        let widths: Vec<usize> = (0..self.columns.len()).map(width).collect();
        let line = |cells: &[String], header: bool| {
            let mut out = String::new();
            for (i, w) in widths.iter().enumerate() {
                let cell = cells.get(i).map_or("", String::as_str);
                let pad = " ".repeat(w - cell.chars().count().min(*w));
                if i > 0 {
                    out.push_str("  ");
                }
                if numeric(i) && !header {
                    out.push_str(&pad);
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    out.push_str(&pad);
                }
            }
            out.trim_end().to_string()
        };
        let mut lines = vec![line(&self.columns, true)];
        lines.extend(self.rows.iter().map(|r| line(r, false)));
        lines.join("\n")
    }
}

impl Reply {
    /// A reply to the room.
    pub fn room(text: impl Into<String>) -> Reply {
        Reply {
            audience: Audience::Room,
            text: text.into(),
            mentions: Vec::new(),
            board: None,
            animation: None,
            actions: Vec::new(),
            place: None,
            table: None,
            graph: None,
            replaces: None,
            about: None,
            page: None,
            key: None,
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

    /// Says which game the reply is about (see [`Reply::about`]).
    pub fn about(mut self, game: GameId) -> Reply {
        self.about = Some(game);
        self
    }

    /// The game the reply is about: the one it names, else its board's.
    pub fn game(&self) -> Option<GameId> {
        self.about.or(self.board.as_ref().and_then(|b| b.game))
    }

    /// Shows a table under the text.
    pub fn with_table(mut self, table: Table) -> Reply {
        self.table = Some(table);
        self
    }

    /// Attaches an evaluation graph.
    pub fn with_graph(mut self, graph: GraphPicture) -> Reply {
        self.graph = Some(graph);
        self
    }

    /// Makes this reply the new content of the one posted under `key`.
    pub fn replacing(mut self, key: crate::outbox::Key) -> Reply {
        self.replaces = Some(key);
        self
    }

    /// Adds buttons.
    pub fn with_action(mut self, action: Action) -> Reply {
        self.actions.push(action);
        self
    }

    /// The text with mentions replaced by a function of each player, and the table, if any,
    /// as aligned lines under it (for plain renderings).
    pub fn render_text(&self, name: impl Fn(&PlayerId) -> String) -> String {
        let mut t = self.text.clone();
        for (i, p) in self.mentions.iter().enumerate() {
            t = t.replace(&format!("{{{i}}}"), &name(p));
        }
        if let Some(table) = &self.table {
            t.push('\n');
            t.push_str(&table.aligned());
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_text_left_and_numbers_right() {
        let t = Table {
            columns: vec!["#".into(), "Player".into(), "Rating".into()],
            rows: vec![
                vec!["1".into(), "Zoë".into(), "1712".into()],
                vec!["10".into(), "bob".into(), "988?".into()],
            ],
        };
        assert_eq!(
            t.aligned(),
            "#   Player  Rating\n 1  Zoë       1712\n10  bob       988?"
        );
        let r = Reply::actor("Top:").with_table(t);
        assert!(
            r.render_text(|p| p.user.clone())
                .starts_with("Top:\n#   Player")
        );
    }

    #[test]
    fn an_empty_table_is_its_header() {
        let t = Table {
            columns: vec!["Family".into(), "Rating".into()],
            rows: Vec::new(),
        };
        assert_eq!(t.aligned(), "Family  Rating");
    }
}
