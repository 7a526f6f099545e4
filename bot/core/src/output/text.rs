//! Help, rules and piece texts, and a plain-text board for the console and as a fallback.

use rules::{Position, Variant};

use crate::command;

pub mod describe;

/// `text` as a sentence: a full stop added unless it ends with its own mark already (a
/// question such as "which move?" must not become "which move?.").
pub fn sentence(text: &str) -> String {
    let t = text.trim_end();
    if t.ends_with(['.', '?', '!']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

/// The help text, in general or for one command.
pub fn help(topic: Option<&str>) -> String {
    if let Some(t) = topic {
        return match command::usage(t) {
            Some(u) => u.to_string(),
            None => format!(
                "There is no command {}. Type `help` for the list.",
                crate::quote::quote(t)
            ),
        };
    }
    let mut s = String::from("fairybot plays chess variants. Commands:\n");
    for n in command::names().iter().chain(command::aliases()) {
        if let Some(u) = command::usage(n) {
            s.push_str(&format!("  {u}\n"));
        }
    }
    s.push_str("Moves may be SAN (Nf3, exd5, O-O) or coordinates (e2e4, e2-e4, a10a12).");
    s
}

/// How a variant is played: description, source, reconstruction notes and the pieces.
pub fn rules(v: &Variant) -> String {
    let g = &v.geometry;
    let shape = g.shape();
    let mut s = format!("{} — {}\n", v.display_name, v.description);
    s.push_str(&format!(
        "Board: {} files x {} ranks ({} cells{}).\n",
        shape.width,
        shape.height,
        g.len(),
        if g.boards() > 1 {
            format!(", {} boards", g.boards())
        } else {
            String::new()
        }
    ));
    s.push_str("Pieces:\n");
    for k in v.kinds() {
        let p = v.piece(k);
        let mut line = describe::movement(&p.atoms);
        if describe::is_special(p) {
            let what = if line.is_empty() {
                "Its moves and special powers"
            } else {
                " Its special powers"
            };
            line.push_str(&format!("{what}: `piece {} {}`.", v.name, p.letter));
        }
        s.push_str(&format!("  {} {}: {}\n", p.letter, p.name, line));
    }
    match &v.castling {
        rules::CastlingRule::None => s.push_str("No castling.\n"),
        rules::CastlingRule::Fixed { .. } => s.push_str("Castling as in chess.\n"),
        rules::CastlingRule::Slide { steps } => s.push_str(&format!(
            "Castling: the King slides {steps} cells towards its Rook, which lands on the last cell the King crossed.\n"
        )),
        rules::CastlingRule::Table(entries) => {
            let file = |f: u8| shape.file_names[f as usize].as_str();
            let list: Vec<String> = entries
                .iter()
                .map(|e| {
                    format!(
                        "{} with the piece on the {}-file (King to {}, partner to {})",
                        if e.kingside { "O-O" } else { "O-O-O" },
                        file(e.partner_file),
                        file(e.king_to),
                        file(e.partner_to)
                    )
                })
                .collect();
            s.push_str(&format!(
                "Castling, only these (King and partner unmoved, every cell between them that way round empty, the King's path unattacked): {}.\n",
                list.join("; ")
            ));
        }
    }
    if !v.promotion.choices.is_empty() {
        let names: Vec<&str> = v
            .promotion
            .choices
            .iter()
            .map(|k| v.piece(*k).name.as_str())
            .collect();
        s.push_str(&format!("Pawns promote to: {}.\n", names.join(", ")));
    }
    if v.end.stalemate_loses {
        s.push_str("Stalemate: the player with no legal move loses.\n");
    }
    if v.end.bare_king {
        s.push_str(
            "Bare King: a player left with his King alone loses, unless his very next move takes the other side's last piece besides the King (two bare Kings: a draw).\n",
        );
    }
    if v.name == crate::service::chess960::VARIANT {
        s.push_str(
            "Start: one of the 960 positions, drawn at random for each game and named when it starts; choose one with `challenge @someone chess960 position N` (0-959; 518 is the usual chess array).\n",
        );
    }
    if let Some(r) = &v.reconstructed {
        s.push_str(&format!("Reconstructed: {r}\n"));
    }
    s.push_str(&format!("Source: {}", v.source));
    s
}

/// One piece of a variant, found by letter or name. `glass`: the variant is Through the
/// Looking-Glass's (no check; pieces fall between the worlds).
///
/// # Errors
/// [`UnknownPiece`], whose text names the variant's pieces, when none matches.
pub fn piece(v: &Variant, query: &str, glass: bool) -> Result<String, UnknownPiece> {
    match piece_kind(v, query) {
        Some(k) => {
            let p = v.piece(k);
            let mut s = format!(
                "{} ({}) in {}: {}",
                p.name,
                p.letter,
                v.display_name,
                describe::piece(v, k, glass)
            );
            if !p.moves.is_empty() {
                s.push_str(&format!(" (movement code: {})", p.moves));
            }
            Ok(s)
        }
        None => Err(UnknownPiece(format!(
            "{} has no piece {}; its pieces are {}.",
            v.display_name,
            crate::quote::quote(query),
            v.kinds()
                .map(|k| v.piece(k).name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The piece a player names by its name or letter (any case), as `piece` reads it.
pub fn piece_kind(v: &Variant, query: &str) -> Option<rules::Kind> {
    let q = query.trim().to_lowercase();
    v.kinds().find(|k| {
        let p = v.piece(*k);
        p.name.to_lowercase() == q
            || (q.chars().count() == 1 && p.letter.to_ascii_lowercase().to_string() == q)
    })
}

/// A piece asked about that the variant does not have; its text is the reply, naming the
/// variant's pieces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownPiece(String);

/// The board as text, top rank first, with coordinates; `.` empty, ` ` holes. Pieces are
/// written as in state text ([`rules::Variant::token`]): a letter with two armies, a colour
/// initial and a letter with more (`rK` Red's King), since case tells only two apart; then,
/// with more than two, who is out.
pub fn board(pos: &Position) -> String {
    let v = pos.variant();
    let g = &v.geometry;
    let shape = g.shape();
    let sides = usize::from(v.sides);
    let cw = if sides > 2 { 2 } else { 1 };
    let width = shape.rank_names.iter().map(|r| r.len()).max().unwrap_or(1);
    let mut s = String::new();
    for b in 0..g.boards() as u8 {
        if g.boards() > 1 {
            s.push_str(&format!("{}\n", g.prefixes()[b as usize]));
        }
        for y in (0..shape.height as i32).rev() {
            s.push_str(&format!("{:>width$} ", shape.rank_names[y as usize]));
            for x in 0..shape.width as i32 {
                let cell = match g.at(b, x, y) {
                    None => String::new(),
                    Some(cell) => match pos.piece_at(cell) {
                        Some(p) => v.token(p.side, p.kind),
                        None => ".".to_string(),
                    },
                };
                s.push_str(&format!("{cell:>cw$} "));
            }
            s.push('\n');
        }
        s.push_str(&format!("{:>width$} ", ""));
        for f in &shape.file_names {
            s.push_str(&format!("{f:>cw$} "));
        }
        s.push('\n');
    }
    let out: Vec<&str> = v
        .all_sides()
        .filter(|side| pos.is_out(*side))
        .map(|side| side.name(sides))
        .collect();
    if !out.is_empty() {
        s.push_str(&format!("Out: {}.\n", out.join(", ")));
    }
    s.trim_end().to_string()
}

/// A Looking-Glass picture as text: a player's view (his world, then the other world with
/// only his own pieces, `?` elsewhere) or, for the reveal, both worlds. `None` when the
/// state is not a Looking-Glass picture.
pub fn glass_board(state: &str) -> Option<String> {
    let p = crate::picture::GlassPicture::parse(state).ok()?;
    let first = p.viewer.map_or(0, |s| s.0);
    let mut s = String::new();
    for b in [first, 1 - first] {
        let veiled = p.viewer.is_some_and(|side| side.0 != b);
        s.push_str(if b == 0 { "Real (R:)" } else { "Mirror (M:)" });
        s.push_str(if veiled {
            " — unseen: only your pieces, as last reported\n"
        } else {
            "\n"
        });
        for y in (0..8u8).rev() {
            s.push_str(&format!("{} ", y + 1));
            for x in 0..8u8 {
                let c = match p.pieces.iter().find(|q| (q.0, q.1, q.2) == (b, x, y)) {
                    Some(q) => q.3,
                    None if veiled => '?',
                    None => '.',
                };
                s.push(c);
                s.push(' ');
            }
            s.push('\n');
        }
        s.push_str("  a b c d e f g h\n");
    }
    Some(s.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use rules::Catalog;

    #[test]
    fn the_rules_text_tells_courier_s_end_rules_and_only_there() {
        let courier = super::rules(&Catalog::builtin().get("courier").unwrap());
        assert!(courier.contains("Stalemate: the player with no legal move loses."));
        assert!(courier.contains("Bare King: "), "{courier}");
        let chess = super::rules(&Catalog::builtin().get("chess").unwrap());
        assert!(!chess.contains("Stalemate:") && !chess.contains("Bare King"));
    }
}
