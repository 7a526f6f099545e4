//! The UCI protocol: a parser for the commands a GUI sends, and a [`Session`] that answers
//! them, so the `fairybot-engine` binary is only a loop around stdin and stdout.
//!
//! The parser is lenient the way UCI asks: unknown tokens inside a command are skipped, words
//! are separated by any whitespace, and only a malformed number or a missing value is an
//! error. Every problem (an unknown variant, a malformed FEN, an illegal move in
//! `position ... moves`, an unreadable variant file) is answered with `info string ...` and
//! the session goes on: a GUI never sees the engine die on input.

use std::{
    sync::{Arc, atomic::AtomicBool},
    time::Duration,
};

use rules::{Catalog, Position, Variant, notation};
use thiserror::Error;

use crate::{
    eval::Evaluator,
    level::{Level, Player},
    search::{Limits, Score},
};

/// One command from the GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`
    Uci,
    /// `isready`
    IsReady,
    /// `ucinewgame`
    NewGame,
    /// `setoption name N [value V]` (names may have spaces).
    SetOption {
        /// The option's name.
        name: String,
        /// Its value, if given.
        value: Option<String>,
    },
    /// `position startpos|fen F [moves M...]`
    Position {
        /// The FEN, or `None` for the variant's start position.
        fen: Option<String>,
        /// The moves after it, in coordinates.
        moves: Vec<String>,
    },
    /// `go ...`
    Go(Go),
    /// `stop`
    Stop,
    /// `quit`
    Quit,
    /// `debug`, `ponderhit`, `register`: accepted and ignored.
    Ignored,
}

/// The limits of a `go` command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Go {
    /// `depth N`
    pub depth: Option<u32>,
    /// `nodes N`
    pub nodes: Option<u64>,
    /// `movetime MS`
    pub movetime: Option<u64>,
    /// `wtime MS`
    pub wtime: Option<u64>,
    /// `btime MS`
    pub btime: Option<u64>,
    /// `winc MS`
    pub winc: Option<u64>,
    /// `binc MS`
    pub binc: Option<u64>,
    /// `movestogo N`
    pub movestogo: Option<u64>,
    /// `infinite`
    pub infinite: bool,
}

/// Why a line is not a command.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    /// An empty line.
    #[error("empty line")]
    Empty,
    /// The first word is no UCI command.
    #[error("unknown command {0:?}")]
    Unknown(String),
    /// A keyword without its value.
    #[error("{0} needs a value")]
    MissingValue(&'static str),
    /// A value that is not a number.
    #[error("{key}: {text:?} is not a number")]
    BadNumber {
        /// The keyword.
        key: &'static str,
        /// What followed it.
        text: String,
    },
    /// `position` without `startpos` or `fen`.
    #[error("position needs startpos or fen")]
    NoPosition,
}

/// Reads one line.
///
/// # Errors
/// [`ParseError`] for an empty line, an unknown command, a missing value or a bad number.
///
/// # Examples
/// ```
/// use engine::uci::{Command, parse};
///
/// let c = parse("position startpos moves e2e4 e7e5").unwrap();
/// assert_eq!(c, Command::Position { fen: None, moves: vec!["e2e4".into(), "e7e5".into()] });
/// assert!(parse("go movetime soon").is_err());
/// ```
pub fn parse(line: &str) -> Result<Command, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(first) = words.first() else {
        return Err(ParseError::Empty);
    };
    Ok(match *first {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::NewGame,
        "stop" => Command::Stop,
        "quit" => Command::Quit,
        "debug" | "ponderhit" | "register" => Command::Ignored,
        "setoption" => {
            let rest = &words[1..];
            let name_at = rest.iter().position(|w| *w == "name");
            let value_at = rest.iter().position(|w| *w == "value");
            let Some(n) = name_at else {
                return Err(ParseError::MissingValue("setoption name"));
            };
            let name_end = value_at.filter(|v| *v > n).unwrap_or(rest.len());
            let name = rest[n + 1..name_end].join(" ");
            if name.is_empty() {
                return Err(ParseError::MissingValue("setoption name"));
            }
            let value = value_at.filter(|v| *v > n).map(|v| rest[v + 1..].join(" "));
            Command::SetOption { name, value }
        }
        "position" => {
            let rest = &words[1..];
            let moves_at = rest
                .iter()
                .position(|w| *w == "moves")
                .unwrap_or(rest.len());
            let moves = rest
                .get(moves_at + 1..)
                .unwrap_or(&[])
                .iter()
                .map(|s| s.to_string())
                .collect();
            let fen = match rest.first() {
                Some(&"startpos") => None,
                Some(&"fen") => {
                    let f = rest[1..moves_at].join(" ");
                    if f.is_empty() {
                        return Err(ParseError::MissingValue("fen"));
                    }
                    Some(f)
                }
                _ => return Err(ParseError::NoPosition),
            };
            Command::Position { fen, moves }
        }
        "go" => {
            let mut go = Go::default();
            let mut i = 1;
            while i < words.len() {
                let key = words[i];
                let slot: Option<(&'static str, &mut Option<u64>)> = match key {
                    "nodes" => Some(("nodes", &mut go.nodes)),
                    "movetime" => Some(("movetime", &mut go.movetime)),
                    "wtime" => Some(("wtime", &mut go.wtime)),
                    "btime" => Some(("btime", &mut go.btime)),
                    "winc" => Some(("winc", &mut go.winc)),
                    "binc" => Some(("binc", &mut go.binc)),
                    "movestogo" => Some(("movestogo", &mut go.movestogo)),
                    _ => None,
                };
                if let Some((name, slot)) = slot {
                    *slot = Some(number(name, words.get(i + 1))?);
                    i += 2;
                    continue;
                }
                match key {
                    "depth" => {
                        let d = number("depth", words.get(i + 1))?;
                        go.depth = Some(d.min(u32::MAX as u64) as u32);
                        i += 2;
                    }
                    "infinite" => {
                        go.infinite = true;
                        i += 1;
                    }
                    _ => i += 1, // ponder, searchmoves, mate: not supported, skipped
                }
            }
            Command::Go(go)
        }
        other => return Err(ParseError::Unknown(other.chars().take(40).collect())),
    })
}

fn number(key: &'static str, word: Option<&&str>) -> Result<u64, ParseError> {
    let w = word.ok_or(ParseError::MissingValue(key))?;
    // Clocks may go negative in some GUIs: read them as zero.
    if let Some(neg) = w.strip_prefix('-')
        && neg.parse::<u64>().is_ok()
    {
        return Ok(0);
    }
    w.parse().map_err(|_| ParseError::BadNumber {
        key,
        text: w.chars().take(40).collect(),
    })
}

/// Reads a variant file for `VariantPath` (the binary's file system; a test's map).
pub type Loader = Box<dyn Fn(&str) -> Result<String, String> + Send>;

/// An engine session: the current variant, position and search state.
pub struct Session {
    catalog: Catalog,
    variant: Arc<Variant>,
    pos: Position,
    player: Player,
    level: Level,
    seed: u64,
    hash_mb: usize,
    /// Search threads (`Threads`): Lazy SMP beyond one.
    threads: usize,
    loader: Loader,
    /// Time kept back from every move's budget for the answer to reach the GUI (`Move
    /// Overhead`, [`DEFAULT_OVERHEAD_MS`] unless set).
    overhead: Duration,
}

/// The default `Move Overhead` in milliseconds: what a search may overrun its deadline by
/// (the clock is read every 128 nodes) plus the answer's way through a pipe, with room for a
/// loaded machine's scheduling. Measured with `engine-match --times` (the Engine numbers
/// page): at `movetime 100` the answer arrives after a median of about 98 ms.
pub const DEFAULT_OVERHEAD_MS: u64 = 3;

/// The most search threads `Threads` accepts (Lazy SMP gains little beyond a few cores).
pub const MAX_THREADS: usize = 64;

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("variant", &self.variant.name)
            .finish_non_exhaustive()
    }
}

/// Whether the session goes on after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was read.
    Quit,
}

impl Session {
    /// A session on orthodox chess, reading variant files with `loader`.
    pub fn new(loader: Loader) -> Session {
        let catalog = Catalog::builtin();
        let variant = catalog.get("chess").expect("chess is built in");
        let pos = Position::start(&variant);
        let player = Player::new(Arc::new(Evaluator::new(&variant)), Level::MAX, 1);
        Session {
            catalog,
            variant,
            pos,
            player,
            level: Level::MAX,
            seed: 1,
            hash_mb: 16,
            threads: 1,
            loader,
            overhead: Duration::from_millis(DEFAULT_OVERHEAD_MS),
        }
    }

    /// The flag that stops a running `go` (set it from the thread reading stdin on `stop`).
    pub fn stop_flag(&mut self) -> Arc<AtomicBool> {
        self.player.searcher().stop_flag()
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Answers one line; every output line goes to `out`.
    pub fn handle_line(&mut self, line: &str, out: &mut dyn FnMut(String)) -> Flow {
        match parse(line) {
            Ok(c) => self.handle(c, out),
            Err(ParseError::Empty) => Flow::Continue,
            Err(e) => {
                out(format!("info string {e}"));
                Flow::Continue
            }
        }
    }

    /// Answers one command.
    pub fn handle(&mut self, c: Command, out: &mut dyn FnMut(String)) -> Flow {
        match c {
            Command::Uci => {
                out(format!(
                    "id name fairybot-engine {}",
                    env!("CARGO_PKG_VERSION")
                ));
                out("id author the fairybot authors".into());
                let mut names = self.catalog.names();
                names.sort();
                let vars: String = names.iter().map(|n| format!(" var {n}")).collect();
                out(format!(
                    "option name UCI_Variant type combo default chess{vars}"
                ));
                out("option name VariantPath type string default <empty>".into());
                out("option name TunedPath type string default <empty>".into());
                out("option name Hash type spin default 16 min 1 max 1024".into());
                out(format!(
                    "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
                ));
                out("option name Level type spin default 5 min 1 max 5".into());
                out("option name Seed type spin default 1 min 0 max 2147483647".into());
                out(format!(
                    "option name Move Overhead type spin default {DEFAULT_OVERHEAD_MS} min 0 max 5000"
                ));
                out("uciok".into());
            }
            Command::IsReady => out("readyok".into()),
            Command::NewGame => {
                self.player.new_game();
                self.pos = Position::start(&self.variant);
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref(), out),
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves, out),
            Command::Go(go) => self.go(&go, out),
            Command::Stop | Command::Ignored => {}
            Command::Quit => return Flow::Quit,
        }
        Flow::Continue
    }

    /// A new variant: new evaluation tables, a new player, the start position.
    fn rebuild(&mut self) {
        self.new_player(Arc::new(Evaluator::new(&self.variant)));
        self.pos = Position::start(&self.variant);
    }

    /// The same variant with a new level, seed or table size. The stop flag is carried
    /// over, since the stdin thread holds it.
    fn replace_player(&mut self) {
        let eval = self.player.searcher().evaluator().clone();
        self.new_player(eval);
    }

    /// A player with this evaluation and the session's level, seed, table size and threads,
    /// keeping the stop flag (the stdin thread holds it).
    fn new_player(&mut self, eval: Arc<Evaluator>) {
        let stop = self.player.searcher().stop_flag();
        self.player = Player::with_hash(eval, self.level, self.seed, self.hash_mb);
        self.player.searcher().set_stop_flag(stop);
        self.player.searcher().set_threads(self.threads);
    }

    fn set_option(&mut self, name: &str, value: Option<&str>, out: &mut dyn FnMut(String)) {
        let value = value.unwrap_or("").trim();
        match name.to_ascii_lowercase().as_str() {
            "uci_variant" => match self.catalog.get(value) {
                Ok(v) => {
                    self.variant = v;
                    self.rebuild();
                }
                Err(e) => out(format!("info string unknown variant {value:?}: {e}")),
            },
            "variantpath" => {
                if value.is_empty() || value == "<empty>" {
                    return;
                }
                match (self.loader)(value) {
                    Err(e) => out(format!("info string cannot read {value}: {e}")),
                    Ok(text) if value.to_ascii_lowercase().ends_with(".ini") => {
                        self.load_ini(value, &text, out);
                    }
                    Ok(text) => match self
                        .catalog
                        .add(value, &text)
                        .and_then(|n| self.catalog.get(&n).map(|v| (n, v)))
                    {
                        Ok((n, v)) => {
                            self.variant = v;
                            self.rebuild();
                            out(format!("info string loaded variant {n}"));
                        }
                        Err(e) => out(format!("info string {e}")),
                    },
                }
            }
            // Weights from `engine-tune` for the current variant (set it after
            // `UCI_Variant`); `<empty>` goes back to the engine's own evaluation, `derived` to
            // the derived one.
            "tunedpath" => {
                let eval = if value.is_empty() || value == "<empty>" {
                    Evaluator::new(&self.variant)
                } else if value == "derived" {
                    Evaluator::derived(&self.variant)
                } else {
                    let w = (self.loader)(value)
                        .map_err(|e| format!("cannot read {value}: {e}"))
                        .and_then(|text| {
                            crate::tuned::parse(&self.variant, &text)
                                .map_err(|e| format!("{value}: {e}"))
                        });
                    match w {
                        Ok(w) => Evaluator::with_weights(&self.variant, &w),
                        Err(e) => {
                            out(format!("info string {e}"));
                            return;
                        }
                    }
                };
                self.new_player(Arc::new(eval));
                out(format!(
                    "info string evaluation of {}: {}",
                    self.variant.name,
                    if self.player.searcher().evaluator().is_tuned() {
                        "tuned"
                    } else {
                        "derived"
                    }
                ));
            }
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=1024).contains(&mb) => {
                    self.hash_mb = mb;
                    self.replace_player();
                }
                _ => out(format!("info string Hash {value:?}: give 1 to 1024 (MB)")),
            },
            "threads" => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_THREADS).contains(&n) => {
                    self.threads = n;
                    self.player.searcher().set_threads(n);
                }
                _ => out(format!(
                    "info string Threads {value:?}: give 1 to {MAX_THREADS}"
                )),
            },
            "level" => match value
                .parse::<u8>()
                .map_err(|_| ())
                .and_then(|n| Level::new(n).map_err(|_| ()))
            {
                Ok(l) => {
                    self.level = l;
                    self.replace_player();
                }
                Err(()) => out(format!("info string Level {value:?}: give 1 to 5")),
            },
            "move overhead" => match value.parse::<u64>() {
                Ok(ms) if ms <= 5000 => self.overhead = Duration::from_millis(ms),
                _ => out(format!(
                    "info string Move Overhead {value:?}: give 0 to 5000 (milliseconds)"
                )),
            },
            "seed" => match value.parse::<u64>() {
                Ok(s) => {
                    self.seed = s;
                    self.replace_player();
                }
                Err(_) => out(format!("info string Seed {value:?} is not a number")),
            },
            _ => out(format!("info string unknown option {name:?}")),
        }
    }

    /// Loads every section of a Fairy-Stockfish `variants.ini` that imports (as Fairy-Stockfish
    /// loads a whole file for `VariantPath`), naming each section that does not with its line
    /// and key; the last loaded section becomes the variant, and `UCI_Variant` picks another.
    fn load_ini(&mut self, path: &str, text: &str, out: &mut dyn FnMut(String)) {
        let sections = match rules::ini::sections(text) {
            Ok(s) => s,
            Err(e) => {
                out(format!("info string {path}: {e}"));
                return;
            }
        };
        let mut last = None;
        for s in &sections {
            let loaded = rules::ini::import(text, Some(&s.name))
                .map_err(|e| e.to_string())
                .and_then(|i| {
                    self.catalog
                        .add(&format!("{path} [{}]", s.name), &i.toml)
                        .and_then(|n| self.catalog.get(&n).map(|v| (n, v)))
                        .map_err(|e| e.to_string())
                });
            match loaded {
                Ok((n, v)) => {
                    out(format!("info string loaded variant {n}"));
                    last = Some(v);
                }
                Err(e) => out(format!("info string {path} [{}]: {e}", s.name)),
            }
        }
        if let Some(v) = last {
            self.variant = v;
            self.rebuild();
        }
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String], out: &mut dyn FnMut(String)) {
        let mut pos = match fen {
            None => Position::start(&self.variant),
            Some(f) => match rules::fen::position(
                &self.variant,
                &rules::fen::from_uci_letters(&self.variant, f),
            ) {
                Ok(p) => p,
                Err(e) => {
                    out(format!(
                        "info string bad fen for {}: {e}",
                        self.variant.name
                    ));
                    return;
                }
            },
        };
        for (i, text) in moves.iter().enumerate() {
            match notation::parse_uci(&pos, text) {
                Ok(m) => pos.play_unchecked(m),
                Err(e) => {
                    out(format!(
                        "info string move {} {text:?} is not legal here ({e}); position kept up to the move before",
                        i + 1
                    ));
                    break;
                }
            }
        }
        self.pos = pos;
    }

    fn limits(&self, go: &Go) -> Limits {
        let mut l = Limits {
            depth: go.depth,
            nodes: go.nodes,
            ..Limits::default()
        };
        if let Some(mt) = go.movetime {
            let ms = mt.saturating_sub(self.overhead.as_millis() as u64).max(1);
            l.time = Some(Duration::from_millis(ms));
        } else if !go.infinite {
            let white = self.pos.turn().0 == 0;
            let (t, inc) = if white {
                (go.wtime, go.winc)
            } else {
                (go.btime, go.binc)
            };
            if let Some(t) = t {
                let inc = inc.unwrap_or(0);
                let togo = go.movestogo.unwrap_or(30).clamp(1, 60);
                let budget = (t / togo + inc * 3 / 4)
                    .min(t / 3)
                    .saturating_sub(self.overhead.as_millis() as u64);
                let budget = Duration::from_millis(budget.max(1));
                l.time = Some(budget);
                // Time saved on this move is spent on later ones.
                l.soft_time = Some(budget / 2);
            }
        }
        l
    }

    fn go(&mut self, go: &Go, out: &mut dyn FnMut(String)) {
        let limits = self.limits(go);
        let mut pos = self.pos.clone();
        let best = if self.level == Level::MAX {
            let r = self.player.searcher().search(&mut pos, &limits, |it| {
                let nps = (it.nodes as f64 / it.elapsed.as_secs_f64().max(1e-3)) as u64;
                let pv = pv_text(&self.pos, &it.pv);
                out(format!(
                    "info depth {} score {} nodes {} nps {} time {} pv {}",
                    it.depth,
                    it.score,
                    it.nodes,
                    nps,
                    it.elapsed.as_millis(),
                    pv
                ));
            });
            r.best
        } else {
            let r = self.player.choose_with_result(&mut pos, &limits);
            out(format!(
                "info depth {} score {} nodes {}",
                r.depth,
                Score::from_internal(r.score),
                r.nodes
            ));
            r.best
        };
        match best {
            Some(m) => out(format!("bestmove {}", notation::uci(&self.pos, m))),
            None => out("bestmove (none)".into()),
        }
    }
}

/// A principal variation in coordinates, played out on a copy of `pos`.
fn pv_text(pos: &Position, pv: &[rules::Move]) -> String {
    let mut p = pos.clone();
    let mut words = Vec::new();
    for m in pv {
        if !p.legal_moves().contains(m) {
            break;
        }
        words.push(notation::uci(&p, *m));
        p.play_unchecked(*m);
    }
    words.join(" ")
}
