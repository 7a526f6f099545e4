//! From a section's entries (parents first) to our TOML schema.
//!
//! Fairy-Stockfish reads keys in order, a later one overriding an earlier one, over a template
//! of chess rules with no pieces; this module does the same into a [`Draft`], then writes the
//! draft as our schema, checking what only the whole shows (the double step's region against
//! where the pawns start, castling files inside the board).

use super::{Entry, IniError, betza, did_you_mean};

/// Every key the importer reads, with what it becomes in fairybot's rules (for the docs and
/// for "did you mean").
pub const SUPPORTED_KEYS: &[(&str, &str)] = &[
    ("maxRank", "board ranks (1-26; Fairy-Stockfish stops at 10)"),
    ("maxFile", "board files, a number or a letter (1-26)"),
    (
        "startFen",
        "the start position; `*` cells become holes; an empty `[]` hand is dropped",
    ),
    (
        "customPiece1 .. customPiece25",
        "a piece by letter and Betza, `x:mRcpR`",
    ),
    ("king", "the royal piece, `k` or `k:KN` (Betza optional)"),
    (
        "pawn, knight, bishop, rook, queen, ...",
        "a named piece by its letter (see the table of named pieces); `-` removes it",
    ),
    ("castling", "castling on or off"),
    (
        "castlingKingsideFile, castlingQueensideFile",
        "where the King lands; the partner lands beside it",
    ),
    ("castlingRookPieces", "the castling partners"),
    ("castlingKingPiece", "must be the royal piece's letter"),
    ("castlingRank", "1 only"),
    ("doubleStep", "the pawn's double step from its start rank"),
    (
        "doubleStepRegionWhite, doubleStepRegionBlack",
        "must be the rank the pawns start on",
    ),
    (
        "promotionRegionWhite, promotionRegionBlack",
        "compulsory promotion zones (ranks `*8`, cells, files `a*`)",
    ),
    (
        "promotionPieceTypes (also ...White, ...Black when equal)",
        "promotion choices",
    ),
    ("mandatoryPawnPromotion", "true only"),
    (
        "pawnTypes, promotionPawnTypes, enPassantTypes, nMoveRuleTypes",
        "the pawn-like pieces (all four the same set)",
    ),
    ("stalemateValue", "draw or loss"),
    ("checkmateValue", "loss only"),
    ("nMoveRule", "50 (the 50-move rule) or 0 (off)"),
    ("nFoldRule", "repetitions that draw (0 = off)"),
    ("nFoldValue", "draw only"),
    (
        "pieceToCharTable, variantTemplate, pocketSize",
        "XBoard display hints: read, no rule effect",
    ),
    (
        "pieceDrops, capturesToHand, chess960, mustCapture, blastOnCapture, flyingGeneral, checkCounting, perpetualCheckIllegal, immobilityIllegal",
        "only `false`, their default",
    ),
    ("checking", "only `true`, its default"),
];

/// Fairy-Stockfish's named pieces: (key, its Betza, our name, our picture). Facts of its
/// documentation; `immobile`, `janggiCannon` and `janggiElephant` are left out on purpose
/// (no movement; a cannon that may not hop cannons; a multi-leg path we do not have).
const NAMED: &[(&str, &str, &str, &str)] = &[
    ("pawn", "fmWfceF", "Pawn", "pawn"),
    ("knight", "N", "Knight", "knight"),
    ("bishop", "B", "Bishop", "bishop"),
    ("rook", "R", "Rook", "rook"),
    ("queen", "Q", "Queen", "queen"),
    ("fers", "F", "Ferz", "ferz"),
    ("alfil", "A", "Alfil", "alfil"),
    ("fersAlfil", "FA", "Ferz-Alfil", "fersalfil"),
    ("silver", "FfW", "Silver General", "silver"),
    ("aiwok", "RNF", "Ai-Wok", "aiwok"),
    ("bers", "RF", "Bers", "bers"),
    ("archbishop", "BN", "Archbishop", "archbishop"),
    ("chancellor", "RN", "Chancellor", "chancellor"),
    ("amazon", "QN", "Amazon", "amazon"),
    ("knibis", "mNcB", "Knibis", "knibis"),
    ("biskni", "mBcN", "Biskni", "biskni"),
    ("kniroo", "mNcR", "Kniroo", "kniroo"),
    ("rookni", "mRcN", "Rookni", "rookni"),
    ("shogiPawn", "fW", "Shogi Pawn", "shogipawn"),
    ("lance", "fR", "Lance", "lance"),
    ("shogiKnight", "fN", "Shogi Knight", "shogiknight"),
    ("gold", "WfF", "Gold General", "gold"),
    ("dragonHorse", "BW", "Dragon Horse", "dragonhorse"),
    ("clobber", "cW", "Clobber", "clobber"),
    ("breakthrough", "fmWfF", "Breakthrough", "breakthrough"),
    ("cannon", "mRcpR", "Cannon", "cannon"),
    ("soldier", "fsW", "Soldier", "soldier"),
    ("horse", "nN", "Horse", "horse"),
    ("elephant", "nA", "Elephant", "elephant"),
    ("banner", "RcpRnN", "Banner", "banner"),
    ("wazir", "W", "Wazir", "wazir"),
    ("commoner", "K", "Commoner", "prince"),
    ("centaur", "KN", "Centaur", "centaur"),
    ("king", "K", "King", "king"),
];

/// Named pieces Fairy-Stockfish has that fairybot cannot play, with the reason.
const REFUSED_PIECES: &[(&str, &str)] = &[
    (
        "immobile",
        "a piece that never moves; fairybot's pieces all move",
    ),
    (
        "janggiCannon",
        "the Janggi cannon may not hop over or capture cannons, a rule fairybot does not have",
    ),
    (
        "janggiElephant",
        "the Janggi elephant's bent, blockable path has no fairybot form",
    ),
];

/// Keys that may be written with their default value only.
const DEFAULT_ONLY: &[(&str, &str)] = &[
    ("pieceDrops", "false"),
    ("capturesToHand", "false"),
    ("chess960", "false"),
    ("mustCapture", "false"),
    ("blastOnCapture", "false"),
    ("flyingGeneral", "false"),
    ("checkCounting", "false"),
    ("perpetualCheckIllegal", "false"),
    ("immobilityIllegal", "false"),
    ("checking", "true"),
    ("mandatoryPawnPromotion", "true"),
    ("checkmateValue", "loss"),
    ("nFoldValue", "draw"),
    ("castlingRank", "1"),
    ("castlingDroppedPiece", "false"),
];

/// Keys read and without effect on the rules.
const DISPLAY_ONLY: &[&str] = &["pieceToCharTable", "variantTemplate", "pocketSize"];

#[derive(Debug, Clone)]
struct PieceDef {
    kind: String,
    letter: char,
    betza: String,
    line: usize,
}

#[derive(Debug, Clone)]
struct Draft {
    ranks: (u32, usize),
    files: (u32, usize),
    pieces: Vec<PieceDef>,
    start: (String, usize),
    castling: (bool, usize),
    kingside: (u32, usize),
    queenside: (u32, usize),
    rook_pieces: Option<(Vec<String>, usize)>,
    king_piece: Option<(char, usize)>,
    double_step: (bool, usize),
    double_region: [Option<(String, usize)>; 2],
    promo_region: [(String, usize); 2],
    promo_types: Option<(Vec<String>, usize)>,
    promo_types_side: [Option<(Vec<String>, usize)>; 2],
    pawn_types: Option<(Vec<String>, usize)>,
    other_pawn_sets: Vec<(String, Vec<String>, usize)>,
    stalemate_loss: bool,
    fifty: bool,
    repetitions: u32,
}

fn line(n: usize) -> Option<usize> {
    (n > 0).then_some(n)
}

fn bool_value(e: &Entry) -> Result<bool, IniError> {
    match e.value.as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        v => Err(IniError::new(
            line(e.line),
            &e.key,
            format!("{}: write `true` or `false`", crate::quote::quote(v)),
        )),
    }
}

fn int_value(e: &Entry, min: u32, max: u32) -> Result<u32, IniError> {
    e.value
        .parse::<u32>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            IniError::new(
                line(e.line),
                &e.key,
                format!(
                    "{}: write a whole number from {min} to {max}",
                    crate::quote::quote(&e.value)
                ),
            )
        })
}

/// A file, as a number (1-based) or a letter.
fn file_value(e: &Entry) -> Result<u32, IniError> {
    let v = e.value.as_str();
    let n = if let Ok(n) = v.parse::<u32>() {
        Some(n)
    } else {
        let mut c = v.chars();
        match (c.next(), c.next()) {
            (Some(l), None) if l.is_ascii_lowercase() => Some(l as u32 - 'a' as u32 + 1),
            _ => None,
        }
    };
    n.filter(|n| (1..=26).contains(n)).ok_or_else(|| {
        IniError::new(
            line(e.line),
            &e.key,
            format!(
                "{}: write a file as a letter (`j`) or a number from 1 to 26",
                crate::quote::quote(v)
            ),
        )
    })
}

fn letter_set(e: &Entry) -> Result<String, IniError> {
    if e.value == "-" {
        return Ok(String::new());
    }
    if e.value.chars().all(|c| c.is_ascii_alphabetic()) && e.value.len() <= 26 {
        Ok(e.value.to_ascii_lowercase())
    } else {
        Err(IniError::new(
            line(e.line),
            &e.key,
            format!(
                "{}: write piece letters (`nbrq`) or `-` for none",
                crate::quote::quote(&e.value)
            ),
        ))
    }
}

/// A set of piece letters read as the piece types holding those letters now, as
/// Fairy-Stockfish reads a `PieceSet` when it meets the key: a later key that gives the type
/// another letter keeps it in the set.
fn kind_set(d: &Draft, e: &Entry) -> Result<Vec<String>, IniError> {
    let mut out = Vec::new();
    for l in letter_set(e)?.chars() {
        let p = d.pieces.iter().find(|p| p.letter == l).ok_or_else(|| {
            IniError::new(
                line(e.line),
                &e.key,
                format!(
                    "`{l}` is not a piece of this variant (its pieces: {})",
                    d.pieces
                        .iter()
                        .map(|p| p.letter.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            )
        })?;
        out.push(p.kind.clone());
    }
    Ok(out)
}

fn all_key_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = vec![
        "maxRank",
        "maxFile",
        "startFen",
        "king",
        "castling",
        "castlingKingsideFile",
        "castlingQueensideFile",
        "castlingRookPieces",
        "castlingKingPiece",
        "castlingRank",
        "doubleStep",
        "doubleStepRegionWhite",
        "doubleStepRegionBlack",
        "promotionRegionWhite",
        "promotionRegionBlack",
        "promotionPieceTypes",
        "promotionPieceTypesWhite",
        "promotionPieceTypesBlack",
        "mandatoryPawnPromotion",
        "pawnTypes",
        "promotionPawnTypes",
        "enPassantTypes",
        "nMoveRuleTypes",
        "stalemateValue",
        "checkmateValue",
        "nMoveRule",
        "nFoldRule",
        "nFoldValue",
    ];
    v.extend(NAMED.iter().map(|n| n.0));
    v.extend(DISPLAY_ONLY);
    v.extend(DEFAULT_ONLY.iter().map(|d| d.0));
    v
}

fn unsupported(e: &Entry) -> IniError {
    let hint = match did_you_mean(&e.key, all_key_names()) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    };
    let what = match e.key.as_str() {
        k if k.starts_with("flag") => " (capture-the-flag wins)",
        k if k.starts_with("extinction") => " (extinction wins)",
        k if k.starts_with("drop") || k.contains("Drop") || k.contains("pocket") => " (drops)",
        k if k.starts_with("mobilityRegion") => " (movement confined to a region)",
        k if k.starts_with("tripleStep") => " (the triple step)",
        k if k.starts_with("connect") => " (connection wins)",
        k if k.starts_with("wall") => " (walls)",
        k if k.starts_with("promotedPieceType") || k.contains("Promotion") => {
            " (shogi-style promotion)"
        }
        _ => "",
    };
    IniError::new(
        line(e.line),
        &e.key,
        format!(
            "fairybot has no rule for this key{what}, so the variant cannot be played as written{hint}"
        ),
    )
}

fn set_piece(
    d: &mut Draft,
    kind: &str,
    e: &Entry,
    allow_betza: bool,
    default_betza: Option<&str>,
) -> Result<(), IniError> {
    d.pieces.retain(|p| p.kind != kind);
    if e.value == "-" {
        return Ok(());
    }
    let (letter_text, betza_text) = match e.value.split_once(':') {
        Some((l, b)) => (l.trim(), Some(b.trim())),
        None => (e.value.as_str(), None),
    };
    let mut chars = letter_text.chars();
    let letter = match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => c.to_ascii_lowercase(),
        _ => {
            return Err(IniError::new(
                line(e.line),
                &e.key,
                format!(
                    "{}: a piece is one letter (`n`), optionally with its Betza (`n:NN`), or `-`",
                    crate::quote::quote(&e.value)
                ),
            ));
        }
    };
    let betza = match (betza_text, default_betza) {
        (Some(b), _) if allow_betza => b.to_string(),
        (Some(_), _) => {
            return Err(IniError::new(
                line(e.line),
                &e.key,
                "a named piece has its own movement; give a Betza only to `king` or a `customPieceN`",
            ));
        }
        (None, Some(b)) => b.to_string(),
        (None, None) => {
            return Err(IniError::new(
                line(e.line),
                &e.key,
                format!(
                    "a custom piece needs its movement: `{letter}:` and a Betza string such as `{letter}:NN`"
                ),
            ));
        }
    };
    d.pieces.retain(|p| p.letter != letter);
    d.pieces.push(PieceDef {
        kind: kind.to_string(),
        letter,
        betza,
        line: e.line,
    });
    Ok(())
}

fn apply(d: &mut Draft, e: &Entry) -> Result<(), IniError> {
    let key = e.key.as_str();
    if let Some(n) = key.strip_prefix("customPiece") {
        if n.parse::<u32>()
            .ok()
            .filter(|n| (1..=25).contains(n))
            .is_none()
        {
            return Err(IniError::new(
                line(e.line),
                key,
                "custom pieces are `customPiece1` to `customPiece25`",
            ));
        }
        return set_piece(d, key, e, true, None);
    }
    if key == "king" {
        return set_piece(d, key, e, true, Some("K"));
    }
    if let Some(named) = NAMED.iter().find(|n| n.0 == key) {
        return set_piece(d, key, e, false, Some(named.1));
    }
    if let Some((_, why)) = REFUSED_PIECES.iter().find(|r| r.0 == key) {
        if e.value == "-" {
            return Ok(());
        }
        return Err(IniError::new(
            line(e.line),
            key,
            format!("not supported: {why}"),
        ));
    }
    if DISPLAY_ONLY.contains(&key) {
        return Ok(());
    }
    if let Some((_, default)) = DEFAULT_ONLY.iter().find(|x| x.0 == key) {
        if e.value == *default {
            return Ok(());
        }
        return Err(IniError::new(
            line(e.line),
            key,
            format!(
                "only `{key} = {default}` (the default) is supported: fairybot has no rule for {}",
                crate::quote::quote(&e.value)
            ),
        ));
    }
    match key {
        "maxRank" => d.ranks = (int_value(e, 1, 26)?, e.line),
        "maxFile" => d.files = (file_value(e)?, e.line),
        "startFen" => d.start = (e.value.clone(), e.line),
        "castling" => d.castling = (bool_value(e)?, e.line),
        "castlingKingsideFile" => d.kingside = (file_value(e)?, e.line),
        "castlingQueensideFile" => d.queenside = (file_value(e)?, e.line),
        "castlingRookPieces" => d.rook_pieces = Some((kind_set(d, e)?, e.line)),
        "castlingKingPiece" => {
            let s = letter_set(e)?;
            let mut c = s.chars();
            match (c.next(), c.next()) {
                (Some(l), None) => d.king_piece = Some((l, e.line)),
                _ => {
                    return Err(IniError::new(
                        line(e.line),
                        key,
                        "one letter: the royal piece's",
                    ));
                }
            }
        }
        "doubleStep" => d.double_step = (bool_value(e)?, e.line),
        "doubleStepRegionWhite" => d.double_region[0] = Some((e.value.clone(), e.line)),
        "doubleStepRegionBlack" => d.double_region[1] = Some((e.value.clone(), e.line)),
        "promotionRegionWhite" => d.promo_region[0] = (e.value.clone(), e.line),
        "promotionRegionBlack" => d.promo_region[1] = (e.value.clone(), e.line),
        "promotionPieceTypes" => d.promo_types = Some((kind_set(d, e)?, e.line)),
        "promotionPieceTypesWhite" => d.promo_types_side[0] = Some((kind_set(d, e)?, e.line)),
        "promotionPieceTypesBlack" => d.promo_types_side[1] = Some((kind_set(d, e)?, e.line)),
        "pawnTypes" => d.pawn_types = Some((kind_set(d, e)?, e.line)),
        "promotionPawnTypes" | "enPassantTypes" | "nMoveRuleTypes" => {
            let set = kind_set(d, e)?;
            d.other_pawn_sets.push((key.to_string(), set, e.line));
        }
        "stalemateValue" => match e.value.as_str() {
            "draw" => d.stalemate_loss = false,
            "loss" => d.stalemate_loss = true,
            v => {
                return Err(IniError::new(
                    line(e.line),
                    key,
                    format!(
                        "{}: fairybot's stalemate is `draw` or `loss` (a stalemate that wins has no rule here)",
                        crate::quote::quote(v)
                    ),
                ));
            }
        },
        "nMoveRule" => match e.value.as_str() {
            "50" => d.fifty = true,
            "0" => d.fifty = false,
            v => {
                return Err(IniError::new(
                    line(e.line),
                    key,
                    format!(
                        "{}: fairybot has the 50-move rule (`50`) or none (`0`)",
                        crate::quote::quote(v)
                    ),
                ));
            }
        },
        "nFoldRule" => d.repetitions = int_value(e, 0, 255)?,
        _ => return Err(unsupported(e)),
    }
    Ok(())
}

/// A region token of Fairy-Stockfish's `Bitboard` values: `*8` (a rank), `a*` (a file), `e4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    Rank(u32),
    File(u32),
    Cell(u32, u32),
}

fn region(text: &str, key: &str, at: usize) -> Result<Vec<Region>, IniError> {
    let mut out = Vec::new();
    for tok in text.split_whitespace() {
        if tok == "-" {
            continue;
        }
        let bad = || {
            IniError::new(
                line(at),
                key,
                format!(
                    "{}: write ranks as `*8`, files as `a*`, cells as `e4`, or `-` for none",
                    crate::quote::quote(tok)
                ),
            )
        };
        let mut chars = tok.chars();
        let first = chars.next().ok_or_else(bad)?;
        let rest: String = chars.collect();
        let file = if first == '*' {
            None
        } else if first.is_ascii_lowercase() {
            Some(first as u32 - 'a' as u32 + 1)
        } else {
            return Err(bad());
        };
        let rank = if rest == "*" {
            None
        } else {
            Some(rest.parse::<u32>().map_err(|_| bad())?)
        };
        out.push(match (file, rank) {
            (None, Some(r)) => Region::Rank(r),
            (Some(f), None) => Region::File(f),
            (Some(f), Some(r)) => Region::Cell(f, r),
            (None, None) => return Err(bad()),
        });
    }
    Ok(out)
}

fn file_name(f: u32) -> String {
    char::from(b'a' + (f - 1) as u8).to_string()
}

/// The start FEN's parts, normalised to our state text, and the holes it shows.
struct Fen {
    text: String,
    holes: Vec<String>,
    /// (letter as written, file, rank), 1-based, for the double-step check.
    pieces: Vec<(char, u32, u32)>,
}

fn read_fen(d: &Draft, files: u32, ranks: u32) -> Result<Fen, IniError> {
    let (text, at) = (&d.start.0, d.start.1);
    let err = |p: String| IniError::new(line(at), "startFen", p);
    let mut fields = text.split_whitespace();
    let mut board = fields.next().unwrap_or("").to_string();
    if let Some(open) = board.find('[') {
        let hand = board[open..].trim_start_matches('[').trim_end_matches(']');
        if !hand.is_empty() && hand != "-" {
            return Err(err(format!(
                "pieces in hand ({}): fairybot has no drops",
                crate::quote::quote(hand)
            )));
        }
        board.truncate(open);
    }
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() as u32 != ranks {
        return Err(err(format!(
            "{} rows, but the board has {ranks} ranks (maxRank)",
            rows.len()
        )));
    }
    let mut holes = Vec::new();
    let mut pieces = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let rank = ranks - i as u32;
        let mut file = 0u32;
        let mut digits = String::new();
        let flush = |digits: &mut String, file: &mut u32| {
            if !digits.is_empty() {
                *file += digits.parse::<u32>().unwrap_or(0);
                digits.clear();
            }
        };
        for c in row.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            flush(&mut digits, &mut file);
            match c {
                '*' => {
                    file += 1;
                    holes.push(format!("{}{rank}", if file <= 26 { file_name(file) } else { "?".into() }));
                }
                '+' => return Err(err("`+` marks a promoted piece (shogi-style promotion), which fairybot does not have".into())),
                '~' => return Err(err("`~` marks a promoted piece, which fairybot does not have".into())),
                c if c.is_ascii_alphabetic() => {
                    file += 1;
                    pieces.push((c, file, rank));
                }
                c => return Err(err(format!("{}: not a piece letter, a digit or `*`", crate::quote::quote(&c.to_string())))),
            }
        }
        flush(&mut digits, &mut file);
        if file != files {
            return Err(err(format!(
                "rank {rank} has {file} cells, but the board has {files} files (maxFile)"
            )));
        }
    }
    let rest: Vec<&str> = fields.collect();
    let side = match rest.first() {
        None => "w",
        Some(&"w") => "w",
        Some(&"b") => "b",
        Some(s) => {
            return Err(err(format!(
                "{}: the side to move is `w` or `b`",
                crate::quote::quote(s)
            )));
        }
    };
    let mut castling = "-".to_string();
    let mut ep = "-".to_string();
    let mut numbers = Vec::new();
    for (i, f) in rest.iter().enumerate().skip(1) {
        if f.contains('+') {
            return Err(err("check counters (`3+3`) belong to check-counting variants, which fairybot does not have".into()));
        }
        if f.chars().all(|c| c.is_ascii_digit()) {
            numbers.push(f.to_string());
        } else if i == 1 {
            castling = f.to_string();
        } else if i == 2 {
            ep = f.to_string();
        } else {
            return Err(err(format!("{}: unexpected field", crate::quote::quote(f))));
        }
    }
    if !d.castling.0 {
        castling = "-".into();
    }
    let half = numbers.first().cloned().unwrap_or_else(|| "0".into());
    let full = numbers.get(1).cloned().unwrap_or_else(|| "1".into());
    Ok(Fen {
        text: format!("{board} {side} {castling} {ep} {half} {full}"),
        holes,
        pieces,
    })
}

fn ini_rank(r: u32) -> String {
    r.to_string()
}

/// Converts the merged entries into our TOML text, and where each of our keys came from.
pub(super) fn convert(
    name: &str,
    entries: &[Entry],
) -> Result<(String, Vec<(String, usize)>), IniError> {
    let mut d = Draft {
        ranks: (8, 0),
        files: (8, 0),
        pieces: Vec::new(),
        start: (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            0,
        ),
        castling: (true, 0),
        kingside: (7, 0),
        queenside: (3, 0),
        rook_pieces: None,
        king_piece: None,
        double_step: (true, 0),
        double_region: [None, None],
        promo_region: [("*8".into(), 0), ("*1".into(), 0)],
        promo_types: None,
        promo_types_side: [None, None],
        pawn_types: None,
        other_pawn_sets: Vec::new(),
        stalemate_loss: false,
        fifty: true,
        repetitions: 3,
    };
    // Fairy-Stockfish reads a variant's pieces before its other keys, whatever their order in
    // the file (so `promotionPieceTypes` may name a piece defined below it); a built-in
    // parent's keys come first, as a finished variant.
    let is_piece_key = |k: &str| {
        k.starts_with("customPiece")
            || k == "king"
            || NAMED.iter().any(|n| n.0 == k)
            || REFUSED_PIECES.iter().any(|n| n.0 == k)
    };
    for group in [
        entries.iter().filter(|e| e.line == 0).collect::<Vec<_>>(),
        entries.iter().filter(|e| e.line > 0).collect(),
    ] {
        for e in group.iter().filter(|e| is_piece_key(&e.key)) {
            apply(&mut d, e)?;
        }
        for e in group.iter().filter(|e| !is_piece_key(&e.key)) {
            apply(&mut d, e)?;
        }
    }
    let (files, ranks) = (d.files.0, d.ranks.0);
    let mut lines: Vec<(String, usize)> = Vec::new();
    let push = |lines: &mut Vec<(String, usize)>, k: &str, l: usize| {
        if l > 0 {
            lines.push((k.to_string(), l));
        }
    };
    push(&mut lines, "board", d.files.1.max(d.ranks.1));
    push(&mut lines, "start", d.start.1);
    let letter_of = |kind: &str| d.pieces.iter().find(|p| p.kind == kind).map(|p| p.letter);

    // Sets of piece types, as the letters those types have at the end (a type removed since
    // is dropped, as Fairy-Stockfish drops it).
    let letters =
        |kinds: &[String]| -> String { kinds.iter().filter_map(|k| letter_of(k)).collect() };
    // Pawn-like pieces: one set for promotion, en passant and the move clock.
    let pawns: String = match &d.pawn_types {
        Some((s, _)) => letters(s),
        None => letter_of("pawn").map(String::from).unwrap_or_default(),
    };
    for (key, set, at) in &d.other_pawn_sets {
        let set = letters(set);
        let mut a: Vec<char> = set.chars().collect();
        let mut b: Vec<char> = pawns.chars().collect();
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            return Err(IniError::new(
                line(*at),
                key,
                format!(
                    "`{set}` differs from the pawn types `{pawns}`: fairybot's pawn-like pieces promote, take en passant and reset the move clock together"
                ),
            ));
        }
    }
    let fen = read_fen(&d, files, ranks)?;

    // The double step belongs to the named pawn, from the rank its side's pawns start on.
    let pawn_letter = letter_of("pawn");
    let mut double = false;
    if d.double_step.0
        && let Some(pl) = pawn_letter
    {
        double = true;
        for (side, default) in [(0usize, 2u32), (1, 7)] {
            let (text, at) = match &d.double_region[side] {
                Some((t, l)) => (t.clone(), *l),
                None => (format!("*{default}"), 0),
            };
            let key = ["doubleStepRegionWhite", "doubleStepRegionBlack"][side];
            let mut region_ranks: Vec<u32> = Vec::new();
            for r in region(&text, key, at)? {
                match r {
                    Region::Rank(r) if r <= ranks => region_ranks.push(r),
                    Region::Rank(_) => {}
                    _ => {
                        return Err(IniError::new(
                            line(at),
                            key,
                            "fairybot's double step belongs to whole ranks: write `*2`",
                        ));
                    }
                }
            }
            let mut start_ranks: Vec<u32> = fen
                .pieces
                .iter()
                .filter(|(c, _, _)| {
                    c.to_ascii_lowercase() == pl && c.is_ascii_uppercase() == (side == 0)
                })
                .map(|(_, _, r)| *r)
                .collect();
            start_ranks.sort_unstable();
            start_ranks.dedup();
            region_ranks.sort_unstable();
            region_ranks.dedup();
            // A rank matters when a double step from it stays on the board, and, for a
            // region rank no pawn starts on, when a pawn can walk there (forward of a start).
            let stays = |r: u32| if side == 0 { r + 2 <= ranks } else { r >= 3 };
            let reachable = |r: u32| {
                start_ranks
                    .iter()
                    .any(|s| if side == 0 { r > *s } else { r < *s })
            };
            let differs = start_ranks
                .iter()
                .any(|s| stays(*s) && !region_ranks.contains(s))
                || region_ranks
                    .iter()
                    .any(|r| !start_ranks.contains(r) && stays(*r) && reachable(*r));
            if !start_ranks.is_empty() && differs {
                let where_ = if at > 0 {
                    Some(at)
                } else {
                    line(d.double_step.1).or(line(d.start.1))
                };
                return Err(IniError::new(
                    where_,
                    key,
                    format!(
                        "the double step is allowed from rank(s) {:?} ({}), but {} pawns start on rank(s) {:?}: fairybot's double step belongs to the rank the pawns start on; set `{key} = {}` or `doubleStep = false`",
                        region_ranks,
                        if at > 0 {
                            "as written"
                        } else {
                            "Fairy-Stockfish's default"
                        },
                        ["White's", "Black's"][side],
                        start_ranks,
                        start_ranks
                            .iter()
                            .map(|r| format!("*{r}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                ));
            }
        }
    }

    // Pieces.
    let rook_set: String = match &d.rook_pieces {
        Some((s, _)) => letters(s),
        None => letter_of("rook").map(String::from).unwrap_or_default(),
    };
    if let Some((k, at)) = d.king_piece
        && Some(k) != letter_of("king")
    {
        return Err(IniError::new(
            line(at),
            "castlingKingPiece",
            format!("`{k}` is not the royal piece (`king`); fairybot castles with the King only"),
        ));
    }
    let mut pieces = toml::Table::new();
    for p in &d.pieces {
        let mut moves = betza::translate(&p.betza).map_err(|b| {
            IniError::new(
                line(p.line),
                &p.kind,
                format!(
                    "`{}` at character {}: {}",
                    crate::quote::visible(&p.betza, 40),
                    b.at + 1,
                    b.problem
                ),
            )
        })?;
        let pawn = pawns.contains(p.letter);
        if double && Some(p.letter) == pawn_letter {
            moves.push_str(" imfnD");
        }
        let (pname, glyph) = match NAMED.iter().find(|n| n.0 == p.kind) {
            Some(n) => (n.2.to_string(), n.3.to_string()),
            None => (
                format!("Piece {}", p.letter.to_ascii_uppercase()),
                format!("piece-{}", p.letter),
            ),
        };
        let mut t = toml::Table::new();
        t.insert("name".into(), pname.into());
        t.insert("moves".into(), moves.into());
        t.insert("glyph".into(), glyph.into());
        if p.kind == "king" {
            t.insert("royal".into(), true.into());
        }
        if pawn {
            t.insert("pawn".into(), true.into());
        }
        if d.castling.0 && rook_set.contains(p.letter) {
            t.insert("castles".into(), true.into());
        }
        let key = p.letter.to_ascii_uppercase().to_string();
        push(&mut lines, &format!("pieces.{key}"), p.line);
        pieces.insert(key, toml::Value::Table(t));
    }
    // En passant: Fairy-Stockfish lets a pawn take en passant only with a move marked `e`
    // (the named pawn's `fceF`). Ours is one switch for the variant: on when every pawn type
    // has such a move, off when none has; a mix cannot be written.
    let takers: Vec<&PieceDef> = d
        .pieces
        .iter()
        .filter(|p| pawns.contains(p.letter))
        .collect();
    let with_e = takers.iter().filter(|p| p.betza.contains('e')).count();
    if with_e != 0 && with_e != takers.len() {
        let p = takers
            .iter()
            .find(|p| !p.betza.contains('e'))
            .unwrap_or(&takers[0]);
        return Err(IniError::new(
            line(p.line),
            &p.kind,
            "some pawn types take en passant (`e` in their Betza) and others do not; fairybot's en passant is one rule for every pawn-like piece",
        ));
    }
    let en_passant = takers.is_empty() || with_e == takers.len();

    // The table.
    let mut root = toml::Table::new();
    if !en_passant {
        root.insert("en_passant".into(), false.into());
    }
    root.insert("name".into(), name.into());
    root.insert("display_name".into(), name.into());
    root.insert(
        "source".into(),
        format!("section {name} of a Fairy-Stockfish variants.ini, imported by fairybot").into(),
    );
    root.insert(
        "description".into(),
        "Imported from Fairy-Stockfish's variants.ini format.".into(),
    );
    root.insert("start".into(), fen.text.clone().into());
    let mut board = toml::Table::new();
    board.insert("files".into(), i64::from(files).into());
    board.insert("ranks".into(), i64::from(ranks).into());
    if !fen.holes.is_empty() {
        board.insert(
            "holes".into(),
            toml::Value::Array(fen.holes.iter().map(|h| h.clone().into()).collect()),
        );
    }
    root.insert("board".into(), board.into());
    root.insert("pieces".into(), pieces.into());

    // Castling: the King lands on the given file, the partner on the cell beside it.
    let mut castling = toml::Table::new();
    if d.castling.0 && letter_of("king").is_some() && !rook_set.is_empty() {
        let (ks, qs) = (d.kingside.0, d.queenside.0);
        let at = d.kingside.1.max(d.queenside.1).max(d.castling.1);
        if ks < 2 || ks > files || qs < 1 || qs + 1 > files {
            return Err(IniError::new(
                line(at),
                "castlingKingsideFile",
                format!(
                    "the King lands on files {} and {}, which leave no cell for the partner beside it on a {files}-file board",
                    file_name(ks.clamp(1, 26)),
                    file_name(qs.clamp(1, 26))
                ),
            ));
        }
        castling.insert("style".into(), "fixed".into());
        castling.insert(
            "king_files".into(),
            toml::Value::Array(vec![file_name(ks).into(), file_name(qs).into()]),
        );
        castling.insert(
            "partner_files".into(),
            toml::Value::Array(vec![file_name(ks - 1).into(), file_name(qs + 1).into()]),
        );
        push(&mut lines, "castling", at);
    } else {
        castling.insert("style".into(), "none".into());
    }
    root.insert("castling".into(), castling.into());

    // Promotion.
    if !pawns.is_empty() {
        let default_types: String = ["knight", "bishop", "rook", "queen"]
            .iter()
            .filter_map(|k| letter_of(k))
            .collect();
        let (types, at) = match &d.promo_types {
            Some((s, at)) => (letters(s), *at),
            None => (default_types, 0),
        };
        for (side, st) in d.promo_types_side.iter().enumerate() {
            if let Some((s, sat)) = st {
                let s = letters(s);
                let (mut a, mut b): (Vec<char>, Vec<char>) =
                    (s.chars().collect(), types.chars().collect());
                a.sort_unstable();
                b.sort_unstable();
                if a != b {
                    return Err(IniError::new(
                        line(*sat),
                        ["promotionPieceTypesWhite", "promotionPieceTypesBlack"][side],
                        "fairybot's promotion choices are the same for both sides: use `promotionPieceTypes`",
                    ));
                }
            }
        }
        let mut choices = Vec::new();
        for l in types.chars() {
            choices.push(toml::Value::from(l.to_ascii_uppercase().to_string()));
        }
        push(&mut lines, "promotion", at);
        let mut by_side = toml::Table::new();
        for (side, sname) in [(0usize, "white"), (1, "black")] {
            let (text, rat) = &d.promo_region[side];
            let key = ["promotionRegionWhite", "promotionRegionBlack"][side];
            let mut zones: Vec<toml::Value> = Vec::new();
            for r in region(text, key, *rat)? {
                let z = match r {
                    Region::Rank(r) if (1..=ranks).contains(&r) => ini_rank(r),
                    Region::File(f) if (1..=files).contains(&f) => {
                        format!("{0}1:{0}{ranks}", file_name(f))
                    }
                    Region::Cell(f, r) if (1..=files).contains(&f) && (1..=ranks).contains(&r) => {
                        format!("{0}{r}:{0}{r}", file_name(f))
                    }
                    _ => continue,
                };
                zones.push(z.into());
            }
            by_side.insert(sname.into(), toml::Value::Array(zones));
        }
        let mut promotion = toml::Table::new();
        promotion.insert("choices".into(), toml::Value::Array(choices));
        promotion.insert("by_side".into(), by_side.into());
        root.insert("promotion".into(), promotion.into());
    }
    if d.stalemate_loss {
        let mut v = toml::Table::new();
        v.insert("stalemate".into(), "loss".into());
        root.insert("victory".into(), v.into());
    }
    let mut draws = toml::Table::new();
    draws.insert("fifty_moves".into(), d.fifty.into());
    draws.insert("repetitions".into(), i64::from(d.repetitions).into());
    root.insert("draws".into(), draws.into());
    let text = toml::to_string(&root)
        .map_err(|e| IniError::new(None, "(file)", format!("could not write the variant: {e}")))?;
    Ok((text, lines))
}

/// The ini key that stands for one of our keys, for errors our resolve step finds.
pub(super) fn ini_key_for(our: &str) -> String {
    let head = our.split([' ', '.']).next().unwrap_or(our);
    match head {
        "start" => "startFen".into(),
        "board" => "maxFile/maxRank".into(),
        "promotion" => "promotionPieceTypes".into(),
        "castling" => "castling".into(),
        "pieces" => our.split('.').nth(1).map_or("piece".into(), |l| {
            format!("piece `{}`", l.to_ascii_lowercase())
        }),
        "draws" => "nFoldRule".into(),
        _ => our.to_string(),
    }
}
