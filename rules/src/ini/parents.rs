//! The Fairy-Stockfish built-in variants a section may name as its parent, written as the
//! `variants.ini` keys that describe them (facts of those games: board, pieces, array,
//! castling files, promotion). Fairy-Stockfish defines them in its C++ code; a section such
//! as `[gemini:janus]` only makes sense with its parent's rules, so these few are known here.
//! The template (no parent) is Fairy-Stockfish's `fairy`: chess rules with no pieces.

/// The names known as parents.
pub const NAMES: &[&str] = &["fairy", "chess", "capablanca", "janus", "gardner"];

/// The keys of a built-in parent, as ini text (one section), or `None` when not known.
pub fn find(name: &str) -> Option<&'static str> {
    Some(match name {
        "fairy" => "[fairy]\n",
        "chess" => {
            concat!(
                "[chess]\n",
                "pawn = p\nknight = n\nbishop = b\nrook = r\nqueen = q\nking = k\n"
            )
        }
        // 10x8, Archbishop a and Chancellor c; the King castles to i or c.
        "capablanca" => concat!(
            "[capablanca]\n",
            "pawn = p\nknight = n\nbishop = b\nrook = r\nqueen = q\nking = k\n",
            "archbishop = a\nchancellor = c\nmaxFile = 10\n",
            "startFen = rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1\n",
            "castlingKingsideFile = i\ncastlingQueensideFile = c\n",
            "promotionPieceTypes = qcarbn\n"
        ),
        // 10x8 with two Janus (Archbishop) pieces j; the King castles to i or b.
        "janus" => concat!(
            "[janus]\n",
            "pawn = p\nknight = n\nbishop = b\nrook = r\nqueen = q\nking = k\n",
            "archbishop = j\nmaxFile = 10\n",
            "startFen = rjnbkqbnjr/pppppppppp/10/10/10/10/PPPPPPPPPP/RJNBKQBNJR w KQkq - 0 1\n",
            "castlingKingsideFile = i\ncastlingQueensideFile = b\n",
            "promotionPieceTypes = qjrbn\n"
        ),
        // Gardner's 5x5 minichess: no double step, no castling.
        "gardner" => concat!(
            "[gardner]\n",
            "pawn = p\nknight = n\nbishop = b\nrook = r\nqueen = q\nking = k\n",
            "maxRank = 5\nmaxFile = 5\n",
            "startFen = rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1\n",
            "promotionRegionWhite = *5\npromotionRegionBlack = *1\n",
            "doubleStep = false\ncastling = false\n"
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_parent_reads() {
        for name in super::NAMES {
            let text = super::find(name).unwrap();
            assert!(super::super::sections(text).is_ok(), "{name}");
        }
    }
}
