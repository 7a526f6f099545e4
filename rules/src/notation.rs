//! Move notation: coordinates (`e2e4`, `a10a12`, `dl-cm`, `e7e8q`) and SAN-like text
//! (`Nf3`, `exd5`, `Gxe9`, `O-O`, `e8=Q+`) on every board: multi-digit ranks, letter ranks,
//! board prefixes and fairy letters.
//!
//! Text is never parsed against a grammar of its own. Every legal move of the position is
//! written in every accepted form, and the input is matched against those forms after both
//! are normalised. Round trips are exact by construction, and a notation works on any board
//! the geometry can name.

use crate::{
    explain::IllegalMove,
    position::Position,
    types::{Move, MoveKind, Side},
    variant::Variant,
};

/// Why text does not name a legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// Nothing usable was typed.
    #[error("type a move, such as e2e4 or Nf3")]
    Empty,
    /// The text fits several legal moves.
    #[error("{} could be {}; say which", crate::quote::quote(.text), .candidates.join(" or "))]
    Ambiguous {
        /// What was typed.
        text: String,
        /// The moves it could mean, in SAN.
        candidates: Vec<String>,
    },
    /// The text names cells, but the move is not legal; the reason says why.
    #[error("{}: {reason}", crate::quote::quote(.text))]
    Illegal {
        /// What was typed.
        text: String,
        /// Why it is refused.
        reason: IllegalMove,
    },
    /// A move onto a promotion square without the piece it becomes: the choices, in SAN.
    #[error("{}: which piece should it become? Type {}", crate::quote::quote(.text), either(.choices))]
    Promotion {
        /// What was typed.
        text: String,
        /// The moves it could mean, one per piece.
        choices: Vec<String>,
    },
    /// The text is not a move of this position at all.
    #[error("{} is not a legal move here", crate::quote::quote(.text))]
    Unknown {
        /// What was typed.
        text: String,
    },
    /// The text is longer than any spelling of any move ([`MAX_MOVE_BYTES`]); it is not
    /// looked at further, so parsing stays linear in the input whatever is typed.
    #[error("a move is at most {MAX_MOVE_BYTES} characters; this text has {bytes}")]
    TooLong {
        /// Its length in bytes.
        bytes: usize,
    },
}

/// The longest text [`parse_move`] reads, in bytes. The longest spelling of any move on any
/// built-in board (`R:e10-R:e12=Q+`-like, with a two-letter piece) is under half of it.
pub const MAX_MOVE_BYTES: usize = 40;

/// "a", "a or b", "a, b or c".
fn either(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Whether every cell name is letters followed by digits, so `from` and `to` can be written
/// together unambiguously (`a10a12`).
fn compact_names(v: &Variant) -> bool {
    let g = &v.geometry;
    g.boards() == 1
        && g.cells().all(|c| {
            let n = g.name(c);
            let letters = n.chars().take_while(|c| c.is_ascii_lowercase()).count();
            letters > 0 && letters < n.len() && n[letters..].chars().all(|c| c.is_ascii_digit())
        })
}

/// The canonical coordinate text of a legal move of `pos`: what the store keeps.
///
/// Castling is written as the King's move when no other legal move has the same cells, and as
/// King-to-partner otherwise (Chess960 with the King moving one cell). An en-passant capture
/// gets `ep` when a quiet move shares its cells (Toulousain's Corporal).
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, notation};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let pos = Position::start(&chess);
/// let m = notation::parse_move(&pos, "Nf3").unwrap();
/// assert_eq!(notation::coord(&pos, m), "g1f3");
/// ```
pub fn coord(pos: &Position, m: Move) -> String {
    let legal = pos.legal_moves();
    coord_among(pos, m, &legal)
}

/// [`coord`] with the legal moves of `pos` already at hand (see [`san_among`]). `legal`
/// must be `pos.legal_moves()`.
pub fn coord_among(pos: &Position, m: Move, legal: &[Move]) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    if m.kind == MoveKind::Resign {
        return resignation_text(pos, m);
    }
    if m.kind == MoveKind::Pass {
        return "pass".to_string();
    }
    let compact = compact_names(v);
    let sep = if compact { "" } else { "-" };
    let mut to = m.to;
    if m.kind == MoveKind::Castle
        && legal
            .iter()
            .any(|o| o.from == m.from && o.to == m.to && o.kind != MoveKind::Castle)
    {
        to = m.aux;
    }
    let mut s = format!("{}{sep}{}", g.name(m.from), g.name(to));
    if let Some(k) = m.promotion {
        let l = v.piece(k).letter;
        if compact {
            s.push(l.to_ascii_lowercase());
        } else {
            s.push('=');
            s.push(l);
        }
    }
    if m.kind == MoveKind::EnPassant
        && legal.iter().any(|o| {
            o.from == m.from
                && o.to == m.to
                && o.kind != MoveKind::EnPassant
                && o.promotion == m.promotion
        })
    {
        s.push_str("ep");
    }
    s
}

/// A legal move of `pos` as UCI writes it: [`coord`], with a promotion's letter in the
/// convention of Fairy-Stockfish and Cute Chess where the variant file sets one
/// (`uci_letter`: in Grand the Marshal promotes as `c`, their Chancellor). Engines and GUIs
/// that speak UCI for a variant use their letters; ours differ only where a file says so.
pub fn uci(pos: &Position, m: Move) -> String {
    let mut s = coord(pos, m);
    if let Some(k) = m.promotion {
        let p = pos.variant().piece(k);
        if p.uci_letter != p.letter && s.ends_with(p.letter.to_ascii_lowercase()) {
            s.pop();
            s.push(p.uci_letter.to_ascii_lowercase());
        }
    }
    s
}

/// A UCI move text (see [`uci`]) of a legal move of `pos`. A promotion letter in the UCI
/// convention is read as the piece it names there; our own letter is accepted too, where it
/// names no other piece in that convention.
///
/// ```
/// use rules::{Catalog, Position, fen, notation};
///
/// let grand = Catalog::builtin().get("grand").unwrap();
/// // White has lost his Marshal and has a pawn on j8.
/// let text = "r8r/1nbqkmabn1/9P/10/10/10/10/10/1NBQK1ABN1/R8R w - - 0 1";
/// let pos = Position::from_setup(&grand, fen::parse(&grand, text).unwrap()).unwrap();
/// let m = notation::parse_uci(&pos, "j8j9c").unwrap();
/// assert_eq!(pos.variant().piece(m.promotion.unwrap()).name, "Marshal");
/// assert_eq!(notation::uci(&pos, m), "j8j9c");
/// assert_eq!(notation::coord(&pos, m), "j8j9m");
/// ```
///
/// # Errors
/// [`MoveTextError::Unknown`] when no legal move has that text.
pub fn parse_uci(pos: &Position, text: &str) -> Result<Move, MoveTextError> {
    let v = pos.variant();
    if let Some(last) = text.chars().last().filter(char::is_ascii_lowercase)
        && text.len() > 4
        && let Some(k) = v
            .kinds()
            .find(|&k| v.piece(k).uci_letter.to_ascii_lowercase() == last)
    {
        let own = v.piece(k).letter.to_ascii_lowercase();
        if own != last {
            let mut ours = text[..text.len() - 1].to_string();
            ours.push(own);
            if let Ok(m) = parse_coord(pos, &ours) {
                return Ok(m);
            }
        }
    }
    parse_coord(pos, text)
}

/// The SAN-like text of a legal move of `pos`, with `+` for check and `#` for mate: what
/// players read, disambiguated only as far as the other legal moves require.
///
/// # Examples
///
/// ```
/// use rules::{Catalog, notation};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let pos = rules::fen::position(&chess, "k7/8/1K6/8/8/8/8/7R w - - 0 1").unwrap();
/// let m = notation::parse_move(&pos, "h1h8").unwrap();
/// assert_eq!(notation::san(&pos, m), "Rh8#");
/// ```
pub fn san(pos: &Position, m: Move) -> String {
    san_among(pos, m, &pos.legal_moves())
}

/// [`san`] with the legal moves of `pos` already at hand. Writing every move of a position
/// (a move list, autocomplete) with [`san`] would generate them once per move; this
/// generates them once in all. `legal` must be `pos.legal_moves()`.
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, notation};
///
/// let pos = Position::start(&Catalog::builtin().get("chess").unwrap());
/// let legal = pos.legal_moves();
/// let all: Vec<String> = legal.iter().map(|m| notation::san_among(&pos, *m, &legal)).collect();
/// assert!(all.contains(&"Nf3".to_string()) && all.len() == 20);
/// ```
pub fn san_among(pos: &Position, m: Move, legal: &[Move]) -> String {
    if m.kind == MoveKind::Resign {
        let side = Position::resigner(m);
        return format!("{} resigns", side.name(pos.variant().sides as usize));
    }
    if m.kind == MoveKind::Pass {
        return format!("{} passes", pos.turn().name(pos.variant().sides as usize));
    }
    let mut s = san_plain(pos, m, legal);
    let mut after = pos.clone();
    after.play_unchecked(m);
    if pos.variant().sides > 2 {
        // `#` when the move checkmates somebody (who is then out), `+` when it leaves
        // another side in check.
        let mover = pos.turn();
        if !after.eliminated_by_last_move().is_empty() {
            s.push('#');
        } else if after
            .remaining()
            .into_iter()
            .any(|side| side != mover && after.in_check(side))
        {
            s.push('+');
        }
        return s;
    }
    if after.is_check() {
        s.push(if after.legal_moves().is_empty() {
            '#'
        } else {
            '+'
        });
    }
    s
}

/// SAN without the check suffix.
fn san_plain(pos: &Position, m: Move, legal: &[Move]) -> String {
    let v = &**pos.variant();
    let g = &v.geometry;
    if m.kind == MoveKind::Castle {
        let kingside = pos.castles_kingside(m);
        let base = if kingside { "O-O" } else { "O-O-O" };
        let same_wing = legal
            .iter()
            .filter(|o| o.kind == MoveKind::Castle && pos.castles_kingside(**o) == kingside)
            .count();
        return if same_wing > 1 {
            format!("{base}({})", g.name(m.aux))
        } else {
            base.to_string()
        };
    }
    let piece = pos
        .piece_at(m.from)
        .expect("a legal move starts on a piece");
    let pt = v.piece(piece.kind);
    let capture = m.is_capture();
    let mut s = String::new();
    if pt.letter == 'P' {
        // Pawns that advance in different directions (Besiege camps, Quadruple Besiege) can
        // reach one cell from two cells of a file: then the whole start cell is named.
        let rivals: Vec<&Move> = legal
            .iter()
            .filter(|o| {
                o.to == m.to
                    && o.from != m.from
                    && o.promotion == m.promotion
                    && o.is_capture() == capture
                    && pos.piece_at(o.from).map(|p| p.kind) == Some(piece.kind)
            })
            .collect();
        let fi = g.info(m.from).file;
        if rivals.iter().any(|o| !capture || g.info(o.from).file == fi) {
            s.push_str(g.name(m.from));
        } else if capture {
            s.push_str(&g.shape().file_names[fi as usize]);
            if g.boards() > 1 {
                s = format!("{}{s}", g.prefixes()[g.info(m.from).board as usize]);
            }
        }
    } else {
        s.push(pt.san_letter);
        // Disambiguate among same-kind moves to the same cell.
        let rivals: Vec<&Move> = legal
            .iter()
            .filter(|o| {
                o.to == m.to
                    && o.from != m.from
                    && o.kind != MoveKind::Castle
                    && pos.piece_at(o.from).map(|p| p.kind) == Some(piece.kind)
            })
            .collect();
        if !rivals.is_empty() {
            let (fi, ri) = (g.info(m.from).file, g.info(m.from).rank);
            if g.boards() == 1 && rivals.iter().all(|o| g.info(o.from).file != fi) {
                s.push_str(&g.shape().file_names[fi as usize]);
            } else if g.boards() == 1 && rivals.iter().all(|o| g.info(o.from).rank != ri) {
                s.push_str(&g.shape().rank_names[ri as usize]);
            } else {
                s.push_str(g.name(m.from));
            }
        }
    }
    // A spell cast in place names its caster's file while two casters of that kind live
    // (Bilateral `Wyxd6`).
    if matches!(m.kind, MoveKind::Freeze | MoveKind::Kill)
        && pos.count(piece.side, piece.kind) >= 2
        && s.len() == 1
    {
        s.push_str(&g.shape().file_names[g.info(m.from).file as usize]);
    }
    if capture || matches!(m.kind, MoveKind::Push | MoveKind::Freeze) {
        s.push('x');
    }
    s.push_str(g.name(m.to));
    if let Some(k) = m.promotion {
        if is_flip(pos, m) {
            s.push('/');
        } else {
            s.push('=');
            s.push(v.piece(k).letter);
        }
    }
    s
}

/// Whether the move ends with the moving piece turning into its flip partner.
fn is_flip(pos: &Position, m: Move) -> bool {
    let v = &**pos.variant();
    m.kind != MoveKind::Push
        && m.promotion.is_some()
        && pos
            .piece_at(m.from)
            .is_some_and(|p| v.piece(p.kind).powers.flip == m.promotion)
}

/// A move written without disambiguation (`Rd1`, `Rxd1`, a Pawn capture by file), for the
/// ambiguity message.
fn bare_san(pos: &Position, m: Move) -> Vec<String> {
    let v = &**pos.variant();
    let g = &v.geometry;
    let Some(p) = pos.piece_at(m.from) else {
        return Vec::new();
    };
    let letter = v.piece(p.kind).letter;
    if m.kind == MoveKind::Castle || (letter == 'P' && !m.is_capture()) {
        return Vec::new();
    }
    let to = g.name(m.to);
    let promo = m
        .promotion
        .map(|k| format!("={}", v.piece(k).letter))
        .unwrap_or_default();
    if letter == 'P' {
        // A Pawn capture by file alone (`jxi4` when Pawns on j3 and j5 both take i4).
        let file = &g.shape().file_names[g.info(m.from).file as usize];
        return vec![format!("{file}x{to}{promo}")];
    }
    vec![
        format!("{letter}{to}{promo}"),
        format!("{letter}x{to}{promo}"),
    ]
}

/// Drops what never distinguishes moves: separators, check marks, annotations. With
/// `fold_case`, also lowercases (SAN's `Axb4` and `axb4` differ, so case is tried first).
fn normalise(text: &str, fold_case: bool) -> String {
    let s: String = text
        .chars()
        .filter(|c| {
            !matches!(
                c,
                '-' | '=' | ' ' | '+' | '#' | '!' | '?' | '(' | ')' | '.' | ':'
            )
        })
        .collect();
    if fold_case { s.to_lowercase() } else { s }
}

/// Every accepted spelling of a legal move.
fn spellings(pos: &Position, m: Move, legal: &[Move], fold_case: bool) -> Vec<String> {
    let v = &**pos.variant();
    let g = &v.geometry;
    let c = coord_among(pos, m, legal);
    let san = san_plain(pos, m, legal);
    let mut out = vec![c.clone(), san.clone()];
    // Coordinates with an x for captures, and with the King's own destination or the
    // partner's cell for castling.
    let from = g.name(m.from);
    let promo = m
        .promotion
        .map(|k| v.piece(k).letter.to_string())
        .unwrap_or_default();
    if m.is_capture() {
        out.push(format!("{from}x{}{promo}", g.name(m.to)));
    }
    if m.kind == MoveKind::Castle {
        out.push(format!("{from}{}", g.name(m.aux)));
        let plain_king_move = legal
            .iter()
            .any(|o| o.from == m.from && o.to == m.to && o.kind != MoveKind::Castle);
        if !plain_king_move {
            out.push(format!("{from}{}", g.name(m.to)));
        }
        out.push(san.replace('O', "0"));
        out.push(san.replace('O', "o"));
    }
    if m.kind == MoveKind::EnPassant {
        out.push(format!("{from}{}ep", g.name(m.to)));
        out.push(format!("{san}ep"));
    }
    // A spell without its caster's file when that is unambiguous (`Wxd6` for `Wyxd6`).
    if matches!(m.kind, MoveKind::Freeze | MoveKind::Kill) {
        let letter = pos
            .piece_at(m.from)
            .map(|p| v.piece(p.kind).san_letter)
            .unwrap_or('?');
        out.push(format!("{letter}x{}", g.name(m.to)));
    }
    // SAN with the capture mark left out.
    if m.is_capture() && m.kind != MoveKind::EnPassant {
        out.push(san.replacen('x', "", 1));
    }
    // Promotion letters in either case: e7e8q, e7e8Q, e8=q.
    if let Some(k) = m.promotion
        && !is_flip(pos, m)
    {
        let l = v.piece(k).letter;
        out.push(format!("{from}{}{}", g.name(m.to), l.to_ascii_uppercase()));
        out.push(format!("{from}{}{}", g.name(m.to), l.to_ascii_lowercase()));
        out.push(format!(
            "{}{}",
            &san[..san.len() - 1],
            l.to_ascii_lowercase()
        ));
    }
    out.iter().map(|s| normalise(s, fold_case)).collect()
}

/// Finds the legal move a text names, in coordinates or SAN.
///
/// # Errors
/// [`MoveTextError`] when the text is empty, ambiguous, illegal (with the reason) or unknown.
///
/// # Examples
/// ```
/// let catalog = rules::Catalog::builtin();
/// let chess = catalog.get("chess").unwrap();
/// let pos = rules::Position::start(&chess);
/// let m = rules::notation::parse_move(&pos, "e2-e4").unwrap();
/// assert_eq!(rules::notation::san(&pos, m), "e4");
/// assert_eq!(rules::notation::parse_move(&pos, "Nf3").unwrap(),
///            rules::notation::parse_move(&pos, "g1f3").unwrap());
/// ```
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveTextError> {
    let text = text.trim();
    if text.len() > MAX_MOVE_BYTES {
        return Err(MoveTextError::TooLong { bytes: text.len() });
    }
    if normalise(text.trim(), true).is_empty() {
        return Err(MoveTextError::Empty);
    }
    if let Some(m) = parse_resignation(pos, text) {
        return Ok(m);
    }
    let legal = pos.legal_moves();
    // The canonical coordinates name one move by construction. On boards with letter ranks a
    // Pawn capture's SAN can read like another piece's coordinates with the dash left out
    // (Double Cross: `exdv`, the e-Pawn takes dv, and `ex-dv`, the Gnu on ex goes to dv), so
    // exact canonical coordinates come first, then an exact SAN, then the other spellings.
    if let Some(m) = legal
        .iter()
        .copied()
        .find(|m| coord_among(pos, *m, &legal) == text.trim())
    {
        return Ok(m);
    }
    // Exact canonical coordinates of a move the rules refuse name that move, not another
    // move whose forgiving spelling happens to read the same (`cx-dw`, a pinned Pawn's
    // capture, against `cxdw`, another Pawn's SAN; found in four-player Double Cross).
    let pseudo = pos.pseudo_legal_moves();
    // Likewise the exact SAN of a refused move, unless a legal move has that SAN: on boards
    // with letter ranks `dxeu` is both a Pawn's capture and the Gnu's `dx-eu` without its
    // dash, and a player who wrote proper SAN must not see the other move played.
    let exact_san = |m: &Move, among: &[Move]| san_plain(pos, *m, among) == text.trim();
    if let Some(m) = pseudo.iter().copied().find(|m| {
        !legal.contains(m)
            && (coord_among(pos, *m, &pseudo) == text.trim()
                || (exact_san(m, &pseudo) && !legal.iter().any(|l| exact_san(l, &legal))))
    }) {
        return Err(MoveTextError::Illegal {
            text: text.trim().to_string(),
            reason: crate::explain::explain(pos, m),
        });
    }
    let matching = |fold_case: bool| -> Vec<Move> {
        let wanted = normalise(text.trim(), fold_case);
        let mut found: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| spellings(pos, *m, &legal, fold_case).contains(&wanted))
            .collect();
        found.dedup();
        if found.len() > 1 {
            let by_san: Vec<Move> = found
                .iter()
                .copied()
                .filter(|m| normalise(&san_plain(pos, *m, &legal), fold_case) == wanted)
                .collect();
            if by_san.len() == 1 {
                return by_san;
            }
        }
        found
    };
    let mut exact = matching(false);
    if exact.is_empty() {
        exact = matching(true);
    }
    if exact.is_empty() {
        // A promotion typed without its piece (`b8`, `b7b8`, `Exe2`): the only choice, or
        // a question listing them.
        let wanted = normalise(text.trim(), true);
        let promotions: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| m.promotion.is_some() && !is_flip(pos, *m))
            .filter(|m| unpromoted(pos, *m, &legal).contains(&wanted))
            .collect();
        match promotions.as_slice() {
            [] => {}
            [one] => return Ok(*one),
            many => {
                return Err(MoveTextError::Promotion {
                    text: text.trim().to_string(),
                    choices: many.iter().map(|m| san_plain(pos, *m, &legal)).collect(),
                });
            }
        }
    }
    if exact.is_empty() {
        // SAN that leaves out a needed disambiguation: name every move it could mean.
        let wanted = normalise(text.trim(), false);
        exact = legal
            .iter()
            .copied()
            .filter(|m| {
                bare_san(pos, *m)
                    .iter()
                    .any(|b| normalise(b, false) == wanted)
            })
            .collect();
        if exact.len() == 1 {
            exact.clear();
        }
    }
    match exact.len() {
        1 => return Ok(exact[0]),
        0 => {}
        _ => {
            return Err(MoveTextError::Ambiguous {
                text: text.trim().to_string(),
                candidates: exact.iter().map(|m| san(pos, *m)).collect(),
            });
        }
    }
    // Not legal. Text that names a move the pieces could make but the rules refuse (a
    // pinned piece, a King walking into check) gets the reason, in SAN as in coordinates.
    if let Some(reason) = refused(pos, &legal, text.trim()) {
        return Err(MoveTextError::Illegal {
            text: text.trim().to_string(),
            reason,
        });
    }
    // If it names two cells, explain why that move is refused.
    if let Some((from, to)) = split_cells(pos, text.trim()) {
        let m = Move::new(from, to, MoveKind::Quiet);
        return Err(MoveTextError::Illegal {
            text: text.trim().to_string(),
            reason: crate::explain::explain(pos, m),
        });
    }
    Err(MoveTextError::Unknown {
        text: text.trim().to_string(),
    })
}

/// The spellings of a promotion without its piece, case folded: coordinates (`b7b8`) and
/// SAN (`b8`, `bxa8`, `Exe2`).
fn unpromoted(pos: &Position, m: Move, legal: &[Move]) -> Vec<String> {
    let g = &pos.variant().geometry;
    let san = san_plain(pos, m, legal);
    let base = san.rsplit_once('=').map_or(san.as_str(), |(b, _)| b);
    let (from, to) = (g.name(m.from), g.name(m.to));
    [
        format!("{from}{to}"),
        format!("{from}x{to}"),
        base.to_string(),
    ]
    .iter()
    .map(|s| normalise(s, true))
    .collect()
}

/// Why a move named in SAN or coordinates is refused, when the pieces could make it but the
/// rules do not allow it (the piece is pinned, the King would stand attacked), or when it is
/// castling that is not possible now.
fn refused(pos: &Position, legal: &[Move], text: &str) -> Option<IllegalMove> {
    let pseudo = pos.pseudo_legal_moves();
    for fold in [false, true] {
        let wanted = normalise(text, fold);
        let found = pseudo.iter().copied().find(|m| {
            !legal.contains(m)
                && (spellings(pos, *m, &pseudo, fold).contains(&wanted)
                    || bare_san(pos, *m)
                        .iter()
                        .any(|b| normalise(b, fold) == wanted))
        });
        if let Some(m) = found {
            return Some(crate::explain::explain(pos, m));
        }
    }
    let v = &**pos.variant();
    let wing = match normalise(text, true).replace('0', "o").as_str() {
        "oo" => "kingside",
        "ooo" => "queenside",
        _ => return None,
    };
    Some(IllegalMove::Other(match v.castling {
        crate::CastlingRule::None => format!("there is no castling in {}", v.display_name),
        _ => format!(
            "you cannot castle {wing} now: the King and its partner must not have moved, the squares between them must be empty, and the King may not be in check or pass through or land on an attacked square"
        ),
    }))
}

/// Finds the legal move whose canonical coordinate text ([`coord`]) is exactly `text`: the
/// fast path for replaying stored games (no spellings are built).
///
/// # Examples
///
/// ```
/// use rules::{Catalog, Position, notation};
///
/// let chess = Catalog::builtin().get("chess").unwrap();
/// let pos = Position::start(&chess);
/// assert!(notation::parse_coord(&pos, "e2e4").is_ok());
/// assert!(notation::parse_coord(&pos, "e4").is_err()); // SAN is for parse_move
/// ```
///
/// # Errors
/// [`MoveTextError::Unknown`] when no legal move has that text.
pub fn parse_coord(pos: &Position, text: &str) -> Result<Move, MoveTextError> {
    let unknown = || MoveTextError::Unknown {
        text: text.to_string(),
    };
    if let Some(m) = parse_resignation(pos, text) {
        return Ok(m);
    }
    let legal = pos.legal_moves();
    let (from, to) = split_cells(pos, text).ok_or_else(unknown)?;
    let found = legal
        .iter()
        .copied()
        .filter(|m| m.from == from && (m.to == to || (m.kind == MoveKind::Castle && m.aux == to)))
        .find(|m| coord_among(pos, *m, &legal) == text);
    found.ok_or_else(unknown)
}

/// How a resignation is stored (`resign:blue`): a colour rather than cells, since nothing
/// moves.
fn resignation_text(pos: &Position, m: Move) -> String {
    let side = Position::resigner(m);
    format!(
        "resign:{}",
        side.name(pos.variant().sides as usize).to_ascii_lowercase()
    )
}

/// A resignation written as stored (`resign:blue`) or as read (`Blue resigns`), or a pass
/// (`pass`, `Blue passes`), if it is one that `pos` allows.
fn parse_resignation(pos: &Position, text: &str) -> Option<Move> {
    let sides = pos.variant().sides as usize;
    if sides <= 2 {
        return None;
    }
    let text = text.trim();
    if text.eq_ignore_ascii_case("pass")
        || text
            .split_once(' ')
            .is_some_and(|(_, verb)| verb.trim().eq_ignore_ascii_case("passes"))
    {
        let pass = Move::new(crate::Cell(0), crate::Cell(0), MoveKind::Pass);
        return pos.legal_moves().contains(&pass).then_some(pass);
    }
    let name = text.strip_prefix("resign:").or_else(|| {
        let (name, verb) = text.split_once(' ')?;
        verb.trim().eq_ignore_ascii_case("resigns").then_some(name)
    })?;
    pos.resignation(Side::from_name(name.trim(), sides)?)
}

/// Splits coordinate-looking text into two cells, if it can.
fn split_cells(pos: &Position, text: &str) -> Option<(crate::Cell, crate::Cell)> {
    let g = &pos.variant().geometry;
    let t: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '+' | '#'))
        .collect::<String>()
        .to_lowercase();
    // An `ep` suffix marks an en-passant capture, but `ep` is also a Double Cross cell name
    // (file e, rank p): the text as it stands is tried first.
    if let Some((a, b)) = t.split_once('-') {
        let b = b.split('=').next()?;
        let to = g.parse(b).or_else(|| g.parse(b.strip_suffix("ep")?))?;
        return Some((g.parse(a)?, to));
    }
    let split = |t: &str| {
        t.char_indices().skip(1).find_map(|(i, _)| {
            let (a, b) = t.split_at(i);
            let a = g.parse(a)?;
            // The second cell may be followed by a promotion letter.
            let b = g.parse(b).or_else(|| {
                let cut = b.char_indices().last()?.0;
                g.parse(&b[..cut])
            })?;
            Some((a, b))
        })
    };
    split(&t).or_else(|| split(t.strip_suffix("ep")?))
}
