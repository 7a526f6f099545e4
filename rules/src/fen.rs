//! FEN-like state text: `board turn castling ep halfmoves fullmoves`.
//!
//! The board lists the top rank first; uppercase letters are the first side, lowercase the
//! second (four-sided variants write a colour letter before the uppercase piece letter: `rK`
//! is Red's King, `gP` Green's Pawn; the side to move is `r`, `b`, `y` or `g`, and
//! `out:bg` lists the sides that are out of the game); digits (several digits for long runs: `12`) count empty cells; `*` marks a hole and
//! must stand exactly where the board has one. Castling is `KQkq` (the outermost partner on
//! that wing), Shredder-style file letters (`HAha`), a comma-separated list of partner cells
//! (`b2,k2,b11,k11`), or `-`. Every field after the board is optional. Variants won by captures
//! (CoBlaChe) add `captured:QMb`, the pieces taken so far (uppercase: White's losses).

use std::sync::Arc;

use crate::{
    geometry::Geometry,
    position::{Position, Setup},
    types::{Cell, Kind, Piece, Side},
    variant::{PieceType, Variant},
};

/// The longest state text read, in bytes: a 256-cell board with a two-letter piece on every
/// cell, a freeze and an unmoved mark on each, and every optional field, is under half of it.
pub const MAX_STATE_BYTES: usize = 8 * 1024;

/// Why a state text cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The board field is malformed.
    #[error("board: {0}")]
    Board(String),
    /// The side-to-move field is not a side's letter (`w`, `b`; or `r`, `b`, `y`, `g`).
    #[error("side to move {0:?}: write {1}")]
    Turn(String, &'static str),
    /// The castling field is malformed.
    #[error("castling {0:?}: {1}")]
    Castling(String, String),
    /// The en-passant field is not a cell.
    #[error("en passant {0:?}: not a cell of this board (write a cell name or -)")]
    EnPassant(String),
    /// A move counter is not a number.
    #[error("{0} {1:?}: not a number")]
    Counter(&'static str, String),
    /// An `unmoved:` or `frozen:` field is malformed.
    #[error("{0} {1:?}: {2}")]
    Special(&'static str, String, String),
    /// Too many fields.
    #[error("unexpected text {0:?} after the move counters")]
    Trailing(String),
    /// Longer than any state text of any board ([`MAX_STATE_BYTES`]); not read further.
    #[error("a state text is at most {MAX_STATE_BYTES} bytes; this one has {0}")]
    TooLong(usize),
    /// The state text is readable but not a legal position.
    #[error(transparent)]
    Position(#[from] crate::position::PositionError),
}

/// Reads a board field into packed piece codes, one per cell.
pub(crate) fn parse_board(
    g: &Geometry,
    pieces: &[PieceType],
    sides: u8,
    text: &str,
) -> Result<Vec<u8>, FenError> {
    let bad = |m: String| FenError::Board(m);
    let shape = g.shape();
    let (w, h) = (shape.width as usize, shape.height as usize);
    let boards: Vec<&str> = text.split('|').collect();
    if boards.len() != g.boards() {
        return Err(bad(format!(
            "{} boards given, the variant has {} (separate boards with |)",
            boards.len(),
            g.boards()
        )));
    }
    let mut out = vec![0u8; g.len()];
    for (b, board) in boards.iter().enumerate() {
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != h {
            return Err(bad(format!(
                "{} ranks given, the board has {h}",
                ranks.len()
            )));
        }
        for (i, rank_text) in ranks.iter().enumerate() {
            let y = h - 1 - i;
            let rank_name = &shape.rank_names[y];
            let mut x = 0usize;
            let chars: Vec<char> = rank_text.chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                if c.is_ascii_digit() {
                    let mut n = 0usize;
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        // Saturating: a run longer than the rank is refused just below, and
                        // twenty digits must not overflow (found by the state-text fuzz target).
                        n = n
                            .saturating_mul(10)
                            .saturating_add(chars[j].to_digit(10).unwrap_or(0) as usize);
                        j += 1;
                    }
                    if n == 0 {
                        return Err(bad(format!("rank {rank_name}: a run of 0 empty cells")));
                    }
                    for _ in 0..n {
                        if x >= w {
                            return Err(bad(format!("rank {rank_name} is longer than {w} cells")));
                        }
                        if g.at(b as u8, x as i32, y as i32).is_none() {
                            return Err(bad(format!(
                                "rank {rank_name}: file {} is a hole; write * for it",
                                shape.file_names[x]
                            )));
                        }
                        x += 1;
                    }
                    continue;
                }
                if x >= w {
                    return Err(bad(format!("rank {rank_name} is longer than {w} cells")));
                }
                let cell = g.at(b as u8, x as i32, y as i32);
                if c == '*' {
                    if cell.is_some() {
                        return Err(bad(format!(
                            "rank {rank_name}: file {} exists; * marks only holes",
                            shape.file_names[x]
                        )));
                    }
                } else {
                    let cell = cell.ok_or_else(|| {
                        bad(format!(
                            "rank {rank_name}: file {} is a hole; write * for it",
                            shape.file_names[x]
                        ))
                    })?;
                    let (side, letter) = if sides > 2 {
                        // A colour letter, then the piece letter in uppercase.
                        let side = Side::from_letter(c, sides as usize).ok_or_else(|| {
                            bad(format!(
                                "rank {rank_name}: {c:?} is not a colour; write r, b, y or g before each piece letter (rK, gP)"
                            ))
                        })?;
                        j += 1;
                        let l = chars.get(j).copied().filter(char::is_ascii_uppercase).ok_or_else(|| {
                            bad(format!(
                                "rank {rank_name}: the colour {c:?} is not followed by an uppercase piece letter"
                            ))
                        })?;
                        (side, l)
                    } else if c.is_ascii_uppercase() {
                        (Side::WHITE, c)
                    } else {
                        (Side::BLACK, c.to_ascii_uppercase())
                    };
                    let kind = (1..pieces.len())
                        .find(|k| pieces[*k].letter == letter)
                        .ok_or_else(|| {
                            bad(format!("{letter:?} is not a piece letter of this variant"))
                        })?;
                    out[cell.index()] = Piece {
                        side,
                        kind: Kind(kind as u8),
                    }
                    .code();
                }
                x += 1;
                j += 1;
            }
            if x != w {
                return Err(bad(format!(
                    "rank {rank_name} has {x} cells, the board has {w}"
                )));
            }
        }
    }
    Ok(out)
}

/// Reads state text into an unvalidated setup: the text is read, not judged, so a caller
/// can inspect or repair a setup before [`Position::from_setup`] validates it.
///
/// # Examples
///
/// ```
/// let chess = rules::Catalog::builtin().get("chess").unwrap();
/// let setup = rules::fen::parse(&chess, "4k3/8/8/8/8/8/8/4K3 b - - 3 40")?;
/// assert_eq!(setup.turn, rules::Side::BLACK);
/// assert_eq!(setup.fullmoves, 40);
/// # Ok::<_, rules::fen::FenError>(())
/// ```
///
/// # Errors
/// A [`FenError`] naming the field and what is wrong with it.
pub fn parse(variant: &Variant, text: &str) -> Result<Setup, FenError> {
    if text.len() > MAX_STATE_BYTES {
        return Err(FenError::TooLong(text.len()));
    }
    let g = &variant.geometry;
    let mut fields = text.split_whitespace();
    let board_text = fields
        .next()
        .ok_or_else(|| FenError::Board("empty".into()))?;
    let sides = variant.sides as usize;
    let codes = parse_board(g, &variant.pieces, variant.sides, board_text)?;
    let board: Vec<Option<Piece>> = codes.iter().map(|c| Piece::from_code(*c)).collect();
    let turn = match fields.next() {
        None => Side::WHITE,
        Some(t) => {
            let mut chars = t.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Side::from_letter(c, sides),
                _ => None,
            }
            .ok_or_else(|| {
                FenError::Turn(
                    t.to_string(),
                    if sides > 2 { "r, b, y or g" } else { "w or b" },
                )
            })?
        }
    };
    let castling = match fields.next() {
        None | Some("-") => Vec::new(),
        Some(c) => parse_castling(variant, &board, c)?,
    };
    let ep = match fields.next() {
        None | Some("-") => None,
        Some(e) => Some(
            g.parse(e)
                .ok_or_else(|| FenError::EnPassant(e.to_string()))?,
        ),
    }
    // A variant without en passant has no en-passant cell, whatever the text says.
    .filter(|_| variant.en_passant);
    let halfmoves = match fields.next() {
        None => 0,
        Some(n) => n
            .parse()
            .map_err(|_| FenError::Counter("halfmove clock", n.to_string()))?,
    };
    let fullmoves = match fields.next() {
        None => 1,
        Some(n) => n
            .parse()
            .map_err(|_| FenError::Counter("move number", n.to_string()))?,
    };
    let mut unmoved = Vec::new();
    let mut freezes = Vec::new();
    let mut captured = Vec::new();
    let mut out = Vec::new();
    for rest in fields {
        if let Some(list) = rest.strip_prefix("out:")
            && sides > 2
        {
            for c in list.chars() {
                let side = Side::from_letter(c, sides).ok_or_else(|| {
                    FenError::Special(
                        "out",
                        c.to_string(),
                        "not a colour letter (r, b, y or g)".into(),
                    )
                })?;
                if !out.contains(&side) {
                    out.push(side);
                }
            }
            continue;
        }
        if let Some(list) = rest.strip_prefix("captured:") {
            for c in list.chars() {
                let kind = variant.kind_by_letter(c).ok_or_else(|| {
                    FenError::Special(
                        "captured",
                        c.to_string(),
                        "not a piece letter of this variant (uppercase: White's lost pieces)"
                            .into(),
                    )
                })?;
                let side = if c.is_ascii_uppercase() {
                    Side::WHITE
                } else {
                    Side::BLACK
                };
                captured.push(Piece { side, kind });
            }
            continue;
        }
        if let Some(list) = rest.strip_prefix("unmoved:") {
            for name in list.split(',').filter(|n| !n.is_empty()) {
                let c = g.parse(name).ok_or_else(|| {
                    FenError::Special(
                        "unmoved",
                        name.to_string(),
                        "not a cell of this board".into(),
                    )
                })?;
                unmoved.push(c);
            }
        } else if let Some(list) = rest.strip_prefix("frozen:") {
            for pair in list.split(',').filter(|n| !n.is_empty()) {
                let (a, b) = pair.split_once('>').ok_or_else(|| {
                    FenError::Special(
                        "frozen",
                        pair.to_string(),
                        "write freezer>frozen, e.g. y2>z2".into(),
                    )
                })?;
                let cell = |n: &str| {
                    g.parse(n).ok_or_else(|| {
                        FenError::Special(
                            "frozen",
                            pair.to_string(),
                            format!("{n:?} is not a cell of this board"),
                        )
                    })
                };
                freezes.push((cell(a)?, cell(b)?));
            }
        } else {
            return Err(FenError::Trailing(rest.to_string()));
        }
    }
    Ok(Setup {
        board,
        turn,
        castling,
        ep,
        halfmoves,
        fullmoves,
        unmoved,
        freezes,
        captured,
        out,
    })
}

/// State text in the letters of UCI's convention (Fairy-Stockfish, Cute Chess) turned into
/// ours: in the board field, each piece whose variant file sets a `uci_letter` is written
/// with its own letter (Grand: their Chancellor `c`/`C` is our Marshal `m`/`M`). The other
/// fields, and text in our own letters, pass unchanged.
///
/// ```
/// let grand = rules::Catalog::builtin().get("grand").unwrap();
/// let theirs = "r8r/1nbqkcabn1/pppppppppp/10/10/10/10/PPPPPPPPPP/1NBQKCABN1/R8R w - - 0 1";
/// let ours = rules::fen::from_uci_letters(&grand, theirs);
/// assert_eq!(ours, "r8r/1nbqkmabn1/pppppppppp/10/10/10/10/PPPPPPPPPP/1NBQKMABN1/R8R w - - 0 1");
/// assert!(rules::fen::position(&grand, &ours).is_ok());
/// ```
pub fn from_uci_letters(variant: &Variant, text: &str) -> String {
    let renamed: Vec<(char, char)> = variant
        .kinds()
        .map(|k| variant.piece(k))
        .filter(|p| p.uci_letter != p.letter && variant.kind_by_letter(p.uci_letter).is_none())
        .map(|p| (p.uci_letter, p.letter))
        .collect();
    if renamed.is_empty() {
        return text.to_string();
    }
    let (board, rest) = text.split_once(' ').unwrap_or((text, ""));
    let mut out: String = board
        .chars()
        .map(|c| {
            match renamed
                .iter()
                .find(|(uci, _)| *uci == c.to_ascii_uppercase())
            {
                Some((_, own)) if c.is_ascii_lowercase() => own.to_ascii_lowercase(),
                Some((_, own)) => *own,
                None => c,
            }
        })
        .collect();
    if !rest.is_empty() || text.contains(' ') {
        out.push(' ');
        out.push_str(rest);
    }
    out
}

/// Reads state text into a validated position.
///
/// # Examples
///
/// ```
/// let chess = rules::Catalog::builtin().get("chess").unwrap();
/// let pos = rules::fen::position(&chess, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")?;
/// assert!(pos.legal_moves().is_empty()); // stalemate
/// assert!(rules::fen::position(&chess, "8/8/8/8/8/8/8/8 w - - 0 1").is_err()); // no Kings
/// # Ok::<_, rules::fen::FenError>(())
/// ```
///
/// # Errors
/// A [`FenError`] for unreadable text or an impossible position.
pub fn position(variant: &Arc<Variant>, text: &str) -> Result<Position, FenError> {
    let setup = parse(variant, text)?;
    Ok(Position::from_setup(variant, setup)?)
}

/// The castling partners of `side` on its King's rank, in file order.
fn partners_on_king_rank(
    variant: &Variant,
    board: &[Option<Piece>],
    side: Side,
) -> (Option<Cell>, Vec<Cell>) {
    let g = &variant.geometry;
    let king = g
        .cells()
        .find(|c| board[c.index()].is_some_and(|p| p.side == side && variant.piece(p.kind).royal));
    let Some(king) = king else {
        return (None, Vec::new());
    };
    let ki = g.info(king);
    let mut partners: Vec<Cell> = g
        .cells()
        .filter(|c| {
            let i = g.info(*c);
            i.board == ki.board
                && i.rank == ki.rank
                && board[c.index()].is_some_and(|p| p.side == side && variant.piece(p.kind).castles)
        })
        .collect();
    partners.sort_by_key(|c| g.info(*c).file);
    (Some(king), partners)
}

fn parse_castling(
    variant: &Variant,
    board: &[Option<Piece>],
    text: &str,
) -> Result<Vec<Cell>, FenError> {
    let g = &variant.geometry;
    let bad = |m: &str| FenError::Castling(text.to_string(), m.to_string());
    if text.contains(',') || g.parse(text).is_some() {
        return text
            .split(',')
            .map(|n| {
                g.parse(n)
                    .ok_or_else(|| bad(&format!("{n:?} is not a cell")))
            })
            .collect();
    }
    let mut out = Vec::new();
    for c in text.chars() {
        let side = if c.is_ascii_uppercase() {
            Side::WHITE
        } else {
            Side::BLACK
        };
        let (king, partners) = partners_on_king_rank(variant, board, side);
        let king = king.ok_or_else(|| bad("a side with castling rights has no King"))?;
        let kf = g.info(king).file;
        let cell = match c.to_ascii_uppercase() {
            'K' => partners
                .iter()
                .rev()
                .find(|p| g.info(**p).file > kf)
                .copied()
                .ok_or_else(|| bad(&format!("{c}: no partner on the kingside")))?,
            'Q' => partners
                .iter()
                .find(|p| g.info(**p).file < kf)
                .copied()
                .ok_or_else(|| bad(&format!("{c}: no partner on the queenside")))?,
            f => {
                let file = g
                    .shape()
                    .file_names
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(&f.to_string()))
                    .ok_or_else(|| bad(&format!("{c}: not K, Q or a file letter")))?;
                partners
                    .iter()
                    .find(|p| g.info(**p).file as usize == file)
                    .copied()
                    .ok_or_else(|| bad(&format!("{c}: no castling partner on that file")))?
            }
        };
        out.push(cell);
    }
    Ok(out)
}

/// Writes a board field.
pub(crate) fn write_board(variant: &Variant, piece_at: impl Fn(Cell) -> Option<Piece>) -> String {
    let g = &variant.geometry;
    let shape = g.shape();
    let mut boards = Vec::new();
    for b in 0..g.boards() as u8 {
        let mut ranks = Vec::new();
        for y in (0..shape.height as i32).rev() {
            let mut s = String::new();
            let mut run = 0;
            for x in 0..shape.width as i32 {
                let cell = g.at(b, x, y);
                let piece = cell.and_then(&piece_at);
                if cell.is_some() && piece.is_none() {
                    run += 1;
                    continue;
                }
                if run > 0 {
                    s.push_str(&run.to_string());
                    run = 0;
                }
                match piece {
                    Some(p) => s.push_str(&variant.token(p.side, p.kind)),
                    None => s.push('*'),
                }
            }
            if run > 0 {
                s.push_str(&run.to_string());
            }
            ranks.push(s);
        }
        boards.push(ranks.join("/"));
    }
    boards.join("|")
}

/// Writes a position's state text, which [`position`] reads back to an equal position (the
/// store keeps games as this text plus the moves).
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, fen};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let pos = Position::start(&chess);
/// let text = fen::write(&pos);
/// assert_eq!(text, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
/// assert!(fen::position(&chess, &text).unwrap() == pos);
/// ```
pub fn write(pos: &Position) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    let board = write_board(v, |c| pos.piece_at(c));
    let turn = pos.turn().letter(v.sides as usize);
    let castling = write_castling(pos);
    let ep = pos
        .ep_target()
        .map(|c| g.name(c).to_string())
        .unwrap_or_else(|| "-".into());
    let mut text = format!(
        "{board} {turn} {castling} {ep} {} {}",
        pos.halfmoves(),
        pos.fullmoves()
    );
    let unmoved = pos.unmoved_cells();
    if !unmoved.is_empty() {
        let names: Vec<&str> = unmoved.iter().map(|c| g.name(c)).collect();
        text.push_str(&format!(" unmoved:{}", names.join(",")));
    }
    if !v.capture_goal.is_empty() {
        let captured: String = pos
            .captured_pieces()
            .iter()
            .map(|p| v.letter(p.side, p.kind))
            .collect();
        if !captured.is_empty() {
            text.push_str(&format!(" captured:{captured}"));
        }
    }
    let out: String = v
        .all_sides()
        .filter(|s| pos.is_out(*s))
        .map(|s| s.letter(v.sides as usize))
        .collect();
    if !out.is_empty() {
        text.push_str(&format!(" out:{out}"));
    }
    let freezes = pos.freezes();
    if !freezes.is_empty() {
        let pairs: Vec<String> = freezes
            .iter()
            .map(|(a, b)| format!("{}>{}", g.name(*a), g.name(*b)))
            .collect();
        text.push_str(&format!(" frozen:{}", pairs.join(",")));
    }
    text
}

fn write_castling(pos: &Position) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    let cells = pos.castling_cells();
    if cells.is_empty() {
        return "-".into();
    }
    if v.sides > 2 {
        // KQkq letters name two sides only: four-sided games list the partner cells.
        return cells
            .iter()
            .map(|c| g.name(*c).to_string())
            .collect::<Vec<_>>()
            .join(",");
    }
    let setup_board: Vec<Option<Piece>> = g.cells().map(|c| pos.piece_at(c)).collect();
    let mut letters = String::new();
    for side in [Side::WHITE, Side::BLACK] {
        let (king, partners) = partners_on_king_rank(v, &setup_board, side);
        let Some(king) = king else { continue };
        let kf = g.info(king).file;
        let mut mine: Vec<Cell> = cells
            .iter()
            .copied()
            .filter(|c| pos.piece_at(*c).is_some_and(|p| p.side == side))
            .collect();
        // Kingside first, as in KQkq.
        mine.sort_by_key(|c| std::cmp::Reverse(g.info(*c).file));
        for c in mine {
            let f = g.info(c).file;
            let outer_k = partners.iter().rev().find(|p| g.info(**p).file > kf) == Some(&c);
            let outer_q = partners.iter().find(|p| g.info(**p).file < kf) == Some(&c);
            let letter = if f > kf && outer_k {
                'K'
            } else if f < kf && outer_q {
                'Q'
            } else {
                let name = &g.shape().file_names[f as usize];
                let mut chars = name.chars();
                match (chars.next(), chars.next()) {
                    (Some(ch), None) if !"kq".contains(ch.to_ascii_lowercase()) => {
                        ch.to_ascii_uppercase()
                    }
                    // Not expressible as one letter: fall back to the cell list.
                    _ => {
                        return cells
                            .iter()
                            .map(|c| g.name(*c).to_string())
                            .collect::<Vec<_>>()
                            .join(",");
                    }
                }
            };
            letters.push(if side == Side::WHITE {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
        }
    }
    letters
}
