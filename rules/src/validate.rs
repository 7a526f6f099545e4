//! Checking a player's own variant before anyone plays it.
//!
//! A definition from a stranger must not hurt the bot and must not surprise the players: it is
//! read (our TOML or a Fairy-Stockfish `variants.ini` section), held to size caps, resolved,
//! and then played a little: the start position must be a game (each side has its royal
//! piece, the side not to move is not in check) and perft 1 to 3 must finish within a node and
//! time budget. The answer is the playable variant, its canonical TOML (what a game stores)
//! and the perft counts; or one error that says what to change.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use crate::{Catalog, Position, Variant, ini, perft};

/// Which format a definition is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// fairybot's TOML schema (`rules/variants/*.toml`).
    Toml,
    /// A Fairy-Stockfish `variants.ini` section.
    Ini,
}

impl Format {
    /// Guesses the format from a file name or, failing that, from the text: a line that is a
    /// `[name]` header followed by camelCase keys reads as ini, anything else as TOML.
    pub fn guess(file_name: Option<&str>, text: &str) -> Format {
        match file_name
            .and_then(|f| f.rsplit_once('.'))
            .map(|(_, e)| e.to_ascii_lowercase())
        {
            Some(e) if e == "ini" => return Format::Ini,
            Some(e) if e == "toml" => return Format::Toml,
            _ => {}
        }
        let ini_keys = [
            "startFen",
            "maxRank",
            "maxFile",
            "customPiece",
            "pieceToCharTable",
        ];
        let toml_keys = ["name =", "extends =", "[pieces.", "[board]", "start ="];
        let ini_score = ini_keys.iter().filter(|k| text.contains(*k)).count();
        let toml_score = toml_keys.iter().filter(|k| text.contains(*k)).count();
        let header_with_parent = text.lines().any(|l| {
            let l = l.trim();
            l.starts_with('[') && l.ends_with(']') && l.contains(':')
        });
        if ini_score > toml_score || (header_with_parent && toml_score == 0) {
            Format::Ini
        } else {
            Format::Toml
        }
    }
}

/// The caps a definition is held to.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The longest text, in bytes.
    pub max_bytes: usize,
    /// The most cells.
    pub max_cells: usize,
    /// The most piece kinds.
    pub max_kinds: usize,
    /// The most positions perft 1-3 may visit.
    pub max_nodes: u64,
    /// How long the whole check may take.
    pub time: Duration,
}

impl Default for Limits {
    /// 16 KB, 256 cells, 20 piece kinds, two million positions, 80 ms (so that a refusal
    /// for time, with the last move generation and the answer, comes within 100 ms).
    fn default() -> Limits {
        Limits {
            max_bytes: 16 * 1024,
            max_cells: 256,
            max_kinds: 20,
            max_nodes: 2_000_000,
            time: Duration::from_millis(80),
        }
    }
}

/// A definition that passed every check.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The playable variant.
    pub variant: Arc<Variant>,
    /// The definition in our TOML schema (for an ini section: the import), self-contained
    /// (no `extends` left to a built-in that a later release might change).
    pub toml: String,
    /// Perft 1, 2 and 3 from the start.
    pub perft: Vec<u64>,
}

/// Why a definition was refused: one message that says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

/// Checks a definition. `builtin_names` are names it may not take (built-in variants).
///
/// # Examples
///
/// ```
/// use rules::validate::{validate, Format, Limits};
///
/// let ok = validate("[centaur-king:chess]\nking = k:KN\n", Format::Ini, &Limits::default(), &[]).unwrap();
/// assert_eq!(ok.perft[0], 22);
/// let e = validate("[x:chess]\nstartFen = 8/8/8/8/8/8/8/4K3 w - - 0 1\n", Format::Ini, &Limits::default(), &[]).unwrap_err();
/// assert!(e.0.contains("royal"), "{e}");
/// ```
///
/// # Errors
/// A [`Refusal`] naming the line, the key and what would be valid.
pub fn validate(
    text: &str,
    format: Format,
    limits: &Limits,
    builtin_names: &[String],
) -> Result<Checked, Refusal> {
    let started = Instant::now();
    if text.len() > limits.max_bytes {
        return Err(Refusal(format!(
            "the definition has {} bytes; the most accepted is {} (one variant takes 1-3 KB)",
            text.len(),
            limits.max_bytes
        )));
    }
    let toml = match format {
        Format::Ini => {
            ini::import(text, None)
                .map_err(|e| Refusal(e.to_string()))?
                .toml
        }
        Format::Toml => text.to_string(),
    };
    let mut catalog = Catalog::builtin();
    let builtin = catalog.names();
    let name = catalog
        .add("your variant", &toml)
        .map_err(|e| Refusal(format!("{}: {}", e.key, e.problem)))?;
    if builtin.contains(&name) || builtin_names.contains(&name) {
        return Err(Refusal(format!(
            "`{name}` is the name of a built-in variant; choose another name (for example `{name}-mine`)"
        )));
    }
    let variant = catalog.get(&name).map_err(|e| {
        let mut problem = e.problem.clone();
        if format == Format::Ini
            && let Ok(imported) = ini::import(text, None)
            && let Some(l) = imported.line_of(&e.key)
        {
            problem = format!("line {l}: {problem}");
        }
        Refusal(format!("{}: {problem}", e.key))
    })?;
    check_text_fields(&variant)?;
    if variant.geometry.len() > limits.max_cells {
        return Err(Refusal(format!(
            "the board has {} cells; the most accepted is {}",
            variant.geometry.len(),
            limits.max_cells
        )));
    }
    if variant.pieces.len() - 1 > limits.max_kinds {
        return Err(Refusal(format!(
            "{} piece kinds; the most accepted is {}",
            variant.pieces.len() - 1,
            limits.max_kinds
        )));
    }
    let mut pos = Position::start(&variant);
    for side in variant.all_sides() {
        if pos.royal(side).is_none() {
            return Err(Refusal(format!(
                "start: {} has no royal piece (a King: `royal = true`, or `king = k` in a variants.ini); fairybot's games end by checkmate",
                side.name(variant.sides as usize)
            )));
        }
    }
    let deadline = started + limits.time;
    let mut counts = Vec::new();
    for depth in 1..=3 {
        match perft::perft_within(&mut pos, depth, limits.max_nodes, deadline) {
            Ok(n) => counts.push(n),
            Err(perft::Exceeded::Nodes(n)) => {
                return Err(Refusal(format!(
                    "too many moves: {depth} plies from the start reach more than {n} positions; make the board smaller or the pieces shorter-ranged"
                )));
            }
            Err(perft::Exceeded::Time) => {
                return Err(Refusal(format!(
                    "too slow: counting the moves {depth} plies deep took more than {} ms; make the board smaller or the pieces shorter-ranged",
                    limits.time.as_millis()
                )));
            }
        }
    }
    if counts[0] == 0 {
        return Err(Refusal(
            "start: the side to move has no legal move; the game would be over before it begins"
                .into(),
        ));
    }
    let toml = canonical(&catalog, &name)?;
    Ok(Checked {
        variant,
        toml,
        perft: counts,
    })
}

/// The definition with its `extends` chain merged in, so that a stored game keeps the exact
/// rules even if a built-in parent changes in a later release.
fn canonical(catalog: &Catalog, name: &str) -> Result<String, Refusal> {
    let table = catalog
        .merged_table(name)
        .map_err(|e| Refusal(format!("{}: {}", e.key, e.problem)))?;
    toml::to_string(&table).map_err(|e| Refusal(format!("could not write the definition: {e}")))
}

/// Names and texts that are shown to players carry no markup: no mention, link, formatting or
/// control character can be smuggled into a chat through a variant.
fn check_text_fields(v: &Variant) -> Result<(), Refusal> {
    let fields = [
        ("display_name", v.display_name.as_str(), 60),
        ("description", v.description.as_str(), 500),
        ("source", v.source.as_str(), 300),
    ];
    for (key, text, max) in fields {
        if text.chars().count() > max {
            return Err(Refusal(format!("{key}: at most {max} characters")));
        }
        if let Some(c) = text
            .chars()
            .find(|c| c.is_control() || crate::quote::is_hazard(*c) || "<>@`*_~|[]#\\".contains(*c))
        {
            return Err(Refusal(format!(
                "{key}: {:?} is not allowed in names and texts shown in chat (no markup, mentions or links); use letters, digits and plain punctuation",
                c
            )));
        }
    }
    for k in v.kinds() {
        let p = v.piece(k);
        if let Some(c) = p
            .name
            .chars()
            .find(|c| !(c.is_alphanumeric() || " -'".contains(*c)))
        {
            return Err(Refusal(format!(
                "pieces.{}.name: {c:?} is not allowed in a piece's name; use letters, digits, spaces and '-'",
                p.letter
            )));
        }
    }
    Ok(())
}
