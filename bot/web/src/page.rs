//! The HTML of the pages, written by hand (a handful of small templates do not need a
//! template engine). Every text that comes from a player or a record is escaped.
//!
//! The game page works without JavaScript: the board is inline SVG, the moves are links to
//! `?ply=N`, the controls are links. `app.js` makes it live (server-sent events) and steps
//! through positions in place (arrow keys, clicks), keeping `?ply=N` in the address bar.

use std::fmt::Write;

use bot_core::{
    model::{GameId, GameRecord, GameResult, GameStatus},
    rules_engine::GameKind,
    watch::{self, WatchError},
};
use render::{BoardView, Theme};
use rules::{Catalog, Side};

use crate::update::Live;

/// `text` with `& < > " '` escaped, for HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A board as standalone SVG. The renderer's SVG names its font family; the page's style
/// sheet supplies no font file, so browsers fall back to their sans-serif (the PNGs embed
/// the font; the SVG stays light and fetches nothing).
pub fn board_svg(view: &BoardView, theme: &Theme) -> String {
    render::render_svg(view, theme)
}

/// A game's status in words: `in play`, `1-0 (checkmate)`, `aborted`.
pub fn status_text(record: &GameRecord) -> String {
    let n = record.seats.len();
    match &record.status {
        GameStatus::Active if watch::is_hidden(record) => {
            "in play — a hidden-information game: its boards and moves are shown when it ends"
                .into()
        }
        GameStatus::Active => "in play".into(),
        GameStatus::Aborted => "aborted".into(),
        GameStatus::Finished { result, reason } => {
            let who = match result {
                GameResult::Draw => "draw".to_string(),
                GameResult::Win(s) => format!("{} wins", Side(*s).name(n)),
            };
            format!(
                "{} — {who} ({})",
                result.as_text(),
                reason.as_str().replace('-', " ")
            )
        }
    }
}

/// One row of the index.
#[derive(Debug, Clone)]
pub struct IndexRow {
    /// The game.
    pub id: GameId,
    /// Its variant as players read it.
    pub variant: String,
    /// Its variant as stored (the filter's value).
    pub variant_key: String,
    /// Its players by seat.
    pub players: Vec<String>,
    /// [`status_text`].
    pub status: String,
    /// Still being played.
    pub active: bool,
}

/// The page around `main`.
fn layout(title: &str, main: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"/assets/style.css\">\n\
         <link rel=\"icon\" href=\"data:,\">\n\
         <script src=\"/assets/app.js\" defer></script>\n</head>\n<body>\n\
         <header><a href=\"/\">fairybot</a></header>\n<main>\n{main}</main>\n</body>\n</html>\n",
        escape(title)
    )
}

/// A short page with `message` (HTML).
pub fn error(message: &str) -> String {
    layout(
        "fairybot",
        &format!("<p class=\"error\" role=\"alert\">{message}</p>\n"),
    )
}

/// The index: live games first, then the latest finished ones.
pub fn index(rows: &[IndexRow], variant: Option<&str>) -> String {
    let mut main = String::from("<h1>Games</h1>\n");
    let _ = writeln!(
        main,
        "<form method=\"get\" action=\"/\"><label>Variant <input name=\"variant\" value=\"{}\"></label> <button>Filter</button></form>",
        escape(variant.unwrap_or(""))
    );
    for (heading, live) in [("Being played", true), ("Finished", false)] {
        let _ = writeln!(main, "<h2>{heading}</h2>");
        let list: Vec<&IndexRow> = rows.iter().filter(|r| r.active == live).collect();
        if list.is_empty() {
            main.push_str("<p>None.</p>\n");
            continue;
        }
        main.push_str("<ul class=\"games\">\n");
        for r in list {
            let _ = writeln!(
                main,
                "<li><a href=\"/game/{id}\">Game {id}</a> · <a href=\"/?variant={key}\">{variant}</a> · {players} · {status}</li>",
                id = r.id.0,
                key = escape(&r.variant_key),
                variant = escape(&r.variant),
                players = escape(&r.players.join(" – ")),
                status = escape(&r.status),
            );
        }
        main.push_str("</ul>\n");
    }
    layout("fairybot games", &main)
}

/// One game's page at one position, ready to write out as HTML or as a live event.
#[derive(Debug, Clone)]
pub struct GamePage {
    id: GameId,
    title: String,
    players: Vec<(String, String)>,
    status: String,
    hidden: bool,
    active: bool,
    /// The position shown.
    ply: usize,
    /// The last position (the number of moves shown; 0 while hidden).
    last: usize,
    moves: Vec<String>,
    board: Option<String>,
    describe: String,
    clocks: Option<(Vec<i64>, Option<usize>)>,
    /// The post-game analysis's evaluation graph as SVG, when the game has one.
    graph: Option<String>,
}

impl GamePage {
    /// The same page with the evaluation graph of the game's analysis under the board.
    pub fn with_graph(mut self, svg: Option<String>) -> GamePage {
        self.graph = svg;
        self
    }

    /// The page of `record` at position `ply` (the last when `None`).
    ///
    /// # Errors
    /// When the record does not replay, or `ply` is past its end.
    pub fn build(
        record: &GameRecord,
        names: &[String],
        catalog: &Catalog,
        ply: Option<usize>,
        theme: &Theme,
        now_ms: i64,
    ) -> Result<GamePage, WatchError> {
        let n = record.seats.len();
        let players = names
            .iter()
            .enumerate()
            .map(|(s, name)| (Side(s as u8).name(n).to_string(), name.clone()))
            .collect();
        let mut page = GamePage {
            id: record.id,
            title: watch::variant_name(record, catalog),
            players,
            status: status_text(record),
            hidden: watch::is_hidden(record),
            active: record.status.is_active(),
            ply: 0,
            last: 0,
            moves: Vec::new(),
            board: None,
            describe: String::new(),
            clocks: None,
            graph: None,
        };
        if page.hidden {
            return Ok(page);
        }
        // Every move's text, and the position asked for.
        let frames = watch::frames(record, catalog, names, None)?;
        page.last = frames.len() - 1;
        page.ply = ply.unwrap_or(page.last);
        let Some(shown) = frames.get(page.ply) else {
            return Err(WatchError::NoSuchPly {
                game: record.id,
                asked: page.ply,
                last: page.last,
            });
        };
        page.moves = frames.iter().filter_map(|f| f.played.clone()).collect();
        page.board = Some(board_svg(&shown.view, theme));
        page.describe = describe(&shown.view, page.ply, shown.played.as_deref());
        let to_move = shown
            .view
            .side_to_move
            .and_then(|a| shown.view.players.iter().position(|p| p.army == a))
            .unwrap_or(0);
        if GameKind::glass(&record.variant).is_none() {
            page.clocks = watch::clocks(record, to_move, now_ms);
        }
        Ok(page)
    }

    /// The whole page. `public_url` makes the share link absolute.
    pub fn html(&self, public_url: Option<&str>) -> String {
        let mut main = String::new();
        let _ = writeln!(
            main,
            "<article id=\"game\" data-game=\"{}\" data-ply=\"{}\" data-last=\"{}\" data-live=\"{}\">",
            self.id.0,
            self.ply,
            self.last,
            u8::from(self.active)
        );
        let _ = writeln!(
            main,
            "<h1>Game {} · {}</h1>",
            self.id.0,
            escape(&self.title)
        );
        main.push_str("<ul class=\"players\">");
        for (side, name) in &self.players {
            let _ = write!(
                main,
                "<li><span class=\"side\">{}</span> {}</li>",
                escape(side),
                escape(name)
            );
        }
        main.push_str("</ul>\n");
        let _ = writeln!(
            main,
            "<p id=\"status\" aria-live=\"polite\">{}</p>",
            self.status_html()
        );
        let _ = writeln!(main, "<div id=\"clocks\">{}</div>", self.clocks_html());
        let _ = writeln!(main, "<div id=\"board-area\">{}</div>", self.board_html());
        let _ = writeln!(
            main,
            "<nav id=\"controls\" aria-label=\"replay\">{}</nav>",
            self.controls_html()
        );
        let _ = writeln!(
            main,
            "<ol id=\"moves\" aria-label=\"moves\">{}</ol>",
            self.moves_html()
        );
        // The post-game analysis's evaluation graph (only finished games have one).
        if let Some(graph) = &self.graph {
            let _ = writeln!(
                main,
                "<figure id=\"evaluation\">{graph}<figcaption>Evaluation after each move \
                 (post-game analysis)</figcaption></figure>"
            );
        }
        if !self.hidden {
            let _ = writeln!(
                main,
                "<p class=\"downloads\"><a href=\"/game/{id}/export.txt\">Export (PGN-like text)</a> · <a href=\"/game/{id}/replay.gif\">Animated replay (GIF)</a></p>",
                id = self.id.0
            );
        }
        let link = match public_url {
            Some(u) => crate::game_link(u, self.id),
            None => format!("/game/{}", self.id.0),
        };
        let _ = writeln!(
            main,
            "<p class=\"share\">Link to this game: <a href=\"{l}\">{l}</a> · Themes: <a href=\"?theme=light\">light</a>, <a href=\"?theme=dark\">dark</a>, <a href=\"?theme=colour-blind\">colour-blind</a></p>\n</article>",
            l = escape(&link)
        );
        layout(&format!("Game {} · {}", self.id.0, self.title), &main)
    }

    /// The live page's state at the last position: the parts that change. Built from the same
    /// parts as the page, so it never says more than the page would.
    pub fn live(&self) -> Live {
        Live {
            last: self.last,
            live: self.active,
            parts: [
                self.status_html(),
                self.clocks_html(),
                self.board_html(),
                self.moves_html(),
                self.controls_html(),
            ],
        }
    }

    fn status_html(&self) -> String {
        escape(&self.status)
    }

    fn clocks_html(&self) -> String {
        let Some((left, running)) = &self.clocks else {
            return String::new();
        };
        let mut out = String::new();
        for (seat, ms) in left.iter().enumerate() {
            let side = self.players.get(seat).map_or("?", |p| p.0.as_str());
            let _ = write!(
                out,
                "<span class=\"clock{}\" data-ms=\"{}\" data-running=\"{}\">{}: <time>{}</time></span> ",
                if Some(seat) == *running {
                    " running"
                } else {
                    ""
                },
                ms,
                u8::from(Some(seat) == *running),
                escape(side),
                escape(&bot_core::time_control::clock_text(*ms)),
            );
        }
        out
    }

    fn board_html(&self) -> String {
        match &self.board {
            None => {
                "<p class=\"hidden-board\">The boards of this game are secret until it ends.</p>"
                    .into()
            }
            Some(svg) => format!(
                "<figure id=\"board\" role=\"img\" aria-label=\"{d}\">{svg}<figcaption>{d}</figcaption></figure>",
                d = escape(&self.describe)
            ),
        }
    }

    fn controls_html(&self) -> String {
        if self.hidden {
            return String::new();
        }
        let link = |label: &str, key: &str, to: usize| {
            format!(
                "<a id=\"{key}\" href=\"?ply={to}\" data-ply=\"{to}\" aria-label=\"{label}\">{label}</a>"
            )
        };
        [
            link("First", "first", 0),
            link("Previous", "prev", self.ply.saturating_sub(1)),
            link("Next", "next", (self.ply + 1).min(self.last)),
            link("Last", "last", self.last),
        ]
        .join(" ")
    }

    fn moves_html(&self) -> String {
        let mut out = String::new();
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + 1;
            let _ = write!(
                out,
                "<li><a href=\"?ply={ply}\" data-ply=\"{ply}\"{cur}>{}</a></li>",
                escape(m),
                cur = if ply == self.ply {
                    " aria-current=\"step\""
                } else {
                    ""
                }
            );
        }
        out
    }
}

/// The text alternative of a position: which one, the move that led to it, who is to move.
fn describe(view: &BoardView, ply: usize, played: Option<&str>) -> String {
    let mut d = if ply == 0 {
        "The start position".to_string()
    } else {
        format!("Position after move {ply}")
    };
    if let Some(m) = played {
        let _ = write!(d, " ({m})");
    }
    if let Some(a) = view.side_to_move
        && let Some(name) = view
            .players
            .iter()
            .find(|p| p.army == a)
            .and_then(|p| p.name.as_ref())
    {
        let _ = write!(d, "; {name} to move");
    }
    d.push('.');
    d
}

/// A finished Looking-Glass game as text: its players and every action, as revealed.
pub fn glass_export(record: &GameRecord, names: &[String]) -> String {
    let mut out = format!("[Variant \"{}\"]\n", record.variant);
    for (s, name) in names.iter().enumerate() {
        let _ = writeln!(
            out,
            "[{} \"{}\"]",
            Side(s as u8).name(2),
            name.replace('"', "'")
        );
    }
    if let GameStatus::Finished { result, .. } = &record.status {
        let _ = writeln!(out, "[Result \"{}\"]", result.as_text());
    }
    out.push('\n');
    for (i, a) in record.moves.iter().enumerate() {
        let _ = writeln!(out, "{}. {a}", i + 1);
    }
    out
}
