//! Game records as text: a numbered move history, and a PGN-like export with `Variant` and
//! `FEN` tags that imports back.

use rules::{Position, SpecError, Variant, fen::FenError, notation, notation::MoveTextError};

use crate::{
    model::{GameRecord, GameStatus},
    options::OptionsError,
    service::chess960,
};

/// A stored game that no longer replays: its record is corrupt, or the rules changed under it.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The start state does not read.
    #[error("the start state does not read")]
    Start(#[from] FenError),
    /// A stored move is not legal where it stands.
    #[error("stored move {ply} ({text}) does not replay")]
    Move {
        /// The move's number in the record, from 1.
        ply: usize,
        /// The stored text.
        text: String,
        /// Why the engine refused it (boxed: the error is large, and rare).
        #[source]
        source: Box<MoveTextError>,
    },
    /// The game's options do not read.
    #[error("the game's options do not read")]
    Options(#[from] OptionsError),
}

/// Why PGN-like text could not be imported; each says what to fix in the text.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// There is no `[Variant "..."]` tag.
    #[error("the text has no [Variant] tag")]
    NoVariant,
    /// The variant tag names no variant.
    #[error(transparent)]
    Variant(#[from] SpecError),
    /// The FEN tag does not read.
    #[error("the [FEN] tag does not read: {0}")]
    Start(#[from] FenError),
    /// A move is not legal where it stands.
    #[error("move {number}: {source}")]
    Move {
        /// The move's number in the text, from 1.
        number: usize,
        /// Why the engine refused it (boxed: the error is large).
        source: Box<MoveTextError>,
    },
}

/// The moves so far in SAN, numbered.
///
/// # Errors
/// When a stored move no longer replays (a corrupt record).
pub fn history(v: &std::sync::Arc<Variant>, g: &GameRecord) -> Result<String, ReplayError> {
    let sans = sans(v, &g.start_state, &g.moves)?;
    if sans.is_empty() {
        return Ok(format!("Game {}: no moves yet.", g.id));
    }
    Ok(format!("Game {}: {}", g.id, numbered(&sans)))
}

/// The moves of a record in SAN, grouped into numbered rounds: a new round starts whenever
/// the side to move comes round again to the first seat or before (two seats: pairs, as in
/// PGN; four: Red, Blue, Yellow, Green, with players who are out skipped). A move whose SAN
/// has a space (a four-player resignation, `Blue resigns`) is written in coordinates
/// (`resign:blue`), which reads back as one token.
fn sans(
    v: &std::sync::Arc<Variant>,
    start: &str,
    moves: &[String],
) -> Result<Vec<Vec<String>>, ReplayError> {
    let mut p = rules::fen::position(v, start)?;
    let mut rounds: Vec<Vec<String>> = Vec::new();
    let mut last_side: Option<u8> = None;
    for (i, m) in moves.iter().enumerate() {
        let mv = notation::parse_coord(&p, m).map_err(|source| ReplayError::Move {
            ply: i + 1,
            text: m.clone(),
            source: Box::new(source),
        })?;
        let san = notation::san(&p, mv);
        let text = if san.contains(' ') {
            notation::coord(&p, mv)
        } else {
            san
        };
        let side = p.turn().0;
        if rounds.is_empty() || last_side.is_some_and(|l| side <= l) {
            rounds.push(Vec::new());
        }
        last_side = Some(side);
        if let Some(r) = rounds.last_mut() {
            r.push(text);
        }
        p.play_unchecked(mv);
    }
    Ok(rounds)
}

fn numbered(rounds: &[Vec<String>]) -> String {
    rounds
        .iter()
        .enumerate()
        .map(|(i, round)| format!("{}. {}", i + 1, round.join(" ")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The game as PGN-like text.
///
/// # Errors
/// When a stored move no longer replays.
pub fn pgn(
    v: &std::sync::Arc<Variant>,
    g: &GameRecord,
    names: &[String],
) -> Result<String, ReplayError> {
    let sans = sans(v, &g.start_state, &g.moves)?;
    let (result, reason) = match &g.status {
        GameStatus::Active => ("*".to_string(), ""),
        // PGN's `1-0` names two players; beyond two the winner is named by colour.
        GameStatus::Finished {
            result: crate::model::GameResult::Win(seat),
            reason,
        } if v.sides > 2 => (
            format!("{} wins", rules::Side(*seat).name(usize::from(v.sides))),
            reason.describe(),
        ),
        GameStatus::Finished { result, reason } => (result.as_text(), reason.describe()),
        GameStatus::Aborted => ("*".to_string(), "aborted"),
    };
    let mut s = String::new();
    s.push_str(&format!("[Event \"fairybot game {}\"]\n", g.id));
    s.push_str(&format!("[Variant \"{}\"]\n", v.name));
    // One tag per seat, named by its colour: White and Black, or Red, Blue, Yellow, Green.
    for seat in 0..usize::from(v.sides).max(g.seats.len()) {
        let colour = rules::Side(seat as u8).name(usize::from(v.sides));
        s.push_str(&format!(
            "[{colour} \"{}\"]\n",
            names.get(seat).map(String::as_str).unwrap_or("?")
        ));
    }
    s.push_str(&format!("[Result \"{result}\"]\n"));
    if !reason.is_empty() {
        s.push_str(&format!("[Termination \"{reason}\"]\n"));
    }
    if v.name == chess960::VARIANT {
        // Games stored before the number was kept started from the variant's own start.
        let n = g.game_options()?.position.unwrap_or(chess960::ORTHODOX);
        s.push_str(&format!("[StartPosition \"Chess960 position {n}\"]\n"));
    }
    if g.start_state != v.start {
        s.push_str("[SetUp \"1\"]\n");
    }
    s.push_str(&format!("[FEN \"{}\"]\n\n", g.start_state));
    s.push_str(&numbered(&sans));
    if !sans.is_empty() {
        s.push(' ');
    }
    s.push_str(&result);
    Ok(s)
}

/// A game read back from [`pgn`] text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The variant's name.
    pub variant: String,
    /// The start state.
    pub start: String,
    /// The moves in canonical coordinates.
    pub moves: Vec<String>,
    /// The result tag.
    pub result: String,
}

/// Reads PGN-like text back (tags, then SAN or coordinate moves with move numbers).
///
/// # Errors
/// When a tag is missing, the variant is unknown, or a move is not legal (naming it).
pub fn import(catalog: &rules::Catalog, text: &str) -> Result<Imported, ImportError> {
    let tag = |name: &str| {
        text.lines().find_map(|l| {
            let l = l.trim();
            let inner = l.strip_prefix('[')?.strip_suffix(']')?;
            let (k, v) = inner.split_once(' ')?;
            (k == name).then(|| v.trim().trim_matches('"').to_string())
        })
    };
    let variant = tag("Variant").ok_or(ImportError::NoVariant)?;
    let v = catalog.get(&variant)?;
    let start = tag("FEN").unwrap_or_else(|| v.start.clone());
    let result = tag("Result").unwrap_or_else(|| "*".into());
    let mut p: Position = rules::fen::position(&v, &start)?;
    let body: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    // The result closes the body; beyond two seats it is words (`seat 2 wins`).
    let body = body.trim_end();
    let body = body.strip_suffix(result.as_str()).unwrap_or(body);
    let mut moves = Vec::new();
    for tok in body.split_whitespace() {
        if tok.ends_with('.')
            && tok
                .trim_end_matches('.')
                .chars()
                .all(|c| c.is_ascii_digit())
            || ["1-0", "0-1", "1/2-1/2", "*"].contains(&tok)
        {
            continue;
        }
        let m = notation::parse_move(&p, tok).map_err(|source| ImportError::Move {
            number: moves.len() + 1,
            source: Box::new(source),
        })?;
        moves.push(notation::coord(&p, m));
        p.play_unchecked(m);
    }
    Ok(Imported {
        variant: v.name.clone(),
        start,
        moves,
        result,
    })
}
