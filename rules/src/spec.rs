//! The variant file schema: what a `variants/*.toml` file may say, and how `extends` merges a
//! file over its parent.
//!
//! Every field is optional in a single file so that a child can override one key of its
//! parent; the resolve step ([`crate::Variant::from_spec`]) then says which required keys the
//! merged result still lacks. Unknown keys are rejected with the file and key named, because a
//! misspelt key that is silently ignored changes the rules without anyone noticing.

use std::collections::BTreeMap;

use serde::Deserialize;

/// A variant as written in a TOML file (after `extends` merging, the whole variant).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    /// The short name players type (`toulousain`).
    pub name: Option<String>,
    /// The parent variant whose keys this file overrides.
    pub extends: Option<String>,
    /// The name shown to players (`Toulousain Chess`).
    pub display_name: Option<String>,
    /// Where the rules come from (a page, a book, our rulebook section).
    pub source: Option<String>,
    /// A short description for the rules help.
    pub description: Option<String>,
    /// What is reconstructed or decided by us rather than given by the source.
    pub reconstructed: Option<String>,
    /// The ratings this variant's games count for, when several variants share one (the six
    /// Ecumenical forms); by default the variant's own name.
    pub rating_family: Option<String>,
    /// The number of sides: 2 (the default) or 4. Four sides are Red, Blue, Yellow and Green,
    /// moving in that order; their pieces are written with a colour letter (`rK`, `bQ`).
    pub sides: Option<u8>,
    /// The board.
    pub board: Option<BoardSpec>,
    /// The pieces, keyed by their letter (uppercase; the second side writes it lowercase).
    pub pieces: Option<BTreeMap<String, PieceSpec>>,
    /// The start position, FEN-like.
    pub start: Option<String>,
    /// Castling, if the variant has it.
    pub castling: Option<CastlingSpec>,
    /// Promotion rules for pawn-like pieces (`pawn = true`); a river crossing has its own
    /// rule per piece (`crossing`).
    pub promotion: Option<PromotionSpec>,
    /// Which draws apply.
    pub draws: Option<DrawSpec>,
    /// Where "forward" points, per side (`white`, `black`): rank ranges with a direction
    /// (`["1-8 up", "9-16 down"]`) or rectangles facing their nearest edge (`"a1:h8 outward"`,
    /// `"i1:p8 inward"`). Sides not listed, and cells not covered, keep the usual direction.
    pub forward: Option<BTreeMap<String, Vec<String>>>,
    /// How a game is won besides checkmate.
    pub victory: Option<VictorySpec>,
    /// Whether a pawn's double step may be taken en passant (default true). Off for variants
    /// imported from Fairy-Stockfish whose pawns have no `e` in their movement.
    pub en_passant: Option<bool>,
}

/// The board's shape and topology.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSpec {
    /// Number of files.
    pub files: Option<u8>,
    /// Number of ranks.
    pub ranks: Option<u8>,
    /// File names left to right (default `a`, `b`, ...).
    pub file_names: Option<Vec<String>>,
    /// Rank names bottom to top (default `1`, `2`, ...).
    pub rank_names: Option<Vec<String>>,
    /// Cells that do not exist, by name.
    pub holes: Option<Vec<String>>,
    /// How the left and right edges are glued.
    pub wrap_files: Option<JoinSpec>,
    /// How the bottom and top edges are glued.
    pub wrap_ranks: Option<JoinSpec>,
    /// Diagonal steps and Knight leaps must stay inside solid blocks of cells.
    pub solid_blocks: Option<bool>,
    /// Several boards of this shape, each with a name prefix (`["R:", "M:"]`).
    pub boards: Option<Vec<String>>,
    /// Rank names above which two boards meet back to back (`["8"]` on a Besiege board): the
    /// picture draws a seam there.
    pub seams: Option<Vec<String>>,
    /// File names right of which two boards meet side by side (`["h"]` on the 16-file
    /// Ecumenical boards): the picture draws a seam there.
    pub file_seams: Option<Vec<String>>,
    /// Rank names above which a river runs (`["n", "r", "v"]`).
    pub rivers: Option<Vec<String>>,
}

/// One glued pair of edges.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinSpec {
    /// Offset along the other axis when crossing (skewed torus).
    #[serde(default)]
    pub shift: i32,
    /// Reflect the other axis when crossing (Moebius).
    #[serde(default)]
    pub mirror: bool,
}

/// One piece kind.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceSpec {
    /// Its name (`Gryphon`).
    pub name: Option<String>,
    /// Its movement in fairybot's Betza dialect (see `variants/README.md`).
    pub moves: Option<String>,
    /// Losing it (checkmate) loses the game; it may not move into check.
    #[serde(default)]
    pub royal: bool,
    /// Pawn-like: may be taken and may take en passant, resets the 50-move clock, promotes.
    #[serde(default)]
    pub pawn: bool,
    /// May be a castling partner.
    #[serde(default)]
    pub castles: bool,
    /// Value in pawns for the engine, overriding the one it derives from the piece's movement
    /// on the variant's board (for powers movement does not show, or a deliberate choice).
    pub value: Option<f32>,
    /// The picture the renderer draws (defaults to the name).
    pub glyph: Option<String>,
    /// The letter SAN uses for it when it differs from its state-text letter (Bilateral:
    /// the Pao is `C` in state text, `P` in the page's notation).
    pub san_letter: Option<String>,
    /// The letter UCI move texts use for it when it differs from its state-text letter, to
    /// speak the convention of Fairy-Stockfish and Cute Chess (Grand: the Marshal is their
    /// Chancellor, `C`).
    pub uci_letter: Option<String>,
    /// Flip partner: the letter of the kind this piece may turn into at the end of any of its
    /// moves, or in place as a whole move (Bilateral Can(n)on: `P`-state `C` <-> `V`).
    pub flip: Option<String>,
    /// Pushes instead of capturing: on a one-cell non-leaping step onto an enemy piece, the
    /// enemy moves one cell further in the same direction (Bilateral Elephant).
    #[serde(default)]
    pub pushes: bool,
    /// Letters of the only kinds that may capture (or kill) this piece (Bilateral Elephant:
    /// `["K", "P"]`). Absent: anything may.
    pub capturable_by: Option<Vec<String>>,
    /// Only hoppers of its own side may use it as a screen; for enemy hoppers it blocks.
    #[serde(default)]
    pub screen_own_only: bool,
    /// Whether a pushing piece may push it (default true).
    pub pushable: Option<bool>,
    /// Whether a freezing piece may freeze it (default true).
    pub freezable: Option<bool>,
    /// While it has not moved (state text `unmoved:`), it may instead make two of its
    /// non-capturing one-cell steps (the first cell and the end empty).
    #[serde(default)]
    pub opening_double: bool,
    /// Its step is the Ferz step of the folded board (fold between the two middle files):
    /// change two of (file-in-half, rank, layer) by one.
    #[serde(default)]
    pub fold_step: bool,
    /// Instead of moving, freezes an enemy piece on a fold-orthogonal neighbour.
    #[serde(default)]
    pub freezes: bool,
    /// Instead of moving, kills an enemy piece a Camel's leap away along the zigzag of three
    /// diagonal steps (both intermediate cells empty), staying in place.
    #[serde(default)]
    pub kills: bool,
    /// The only files it may ever stand on (Double Cross pawns: `["c", "d", "e", "f"]`); it
    /// neither moves nor captures onto another file, and rides stop before one.
    pub files: Option<Vec<String>>,
    /// Per side (by name), cells this piece may never enter: rank names or rectangles such as
    /// `"am:bp"` (four-player Double Cross: a Pawn stays out of the camps of the colours
    /// next to it in turn order). Like `files`, it neither moves nor captures there.
    pub keep_out: Option<BTreeMap<String, Vec<String>>>,
    /// Promotion on a one-rank step across one of these rivers (CoBlaChe: a Pawn crossing an
    /// outer river becomes a Wazir; a Wazir crossing the middle one may become a captured piece).
    pub crossing: Option<CrossingSpec>,
    /// Letters of enemy kinds whose river section this piece may not move into, not even to
    /// capture (CoBlaChe's Queen and Prince: `["Q", "I"]`).
    pub shuns: Option<Vec<String>>,
}

/// Promotion on crossing a river.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrossingSpec {
    /// The rivers, by the name of the rank each runs above (`board.rivers`).
    pub rivers: Vec<String>,
    /// Letters of the kinds it may become.
    pub choices: Vec<String>,
    /// Whether it may also stay as it is (default: compulsory).
    #[serde(default)]
    pub optional: bool,
    /// Only kinds its side has fewer of than at the start (captured and not yet restored).
    #[serde(default)]
    pub captured_only: bool,
}

/// How a game is won besides checkmate.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VictorySpec {
    /// A side wins once it has captured, over the whole game, at least one enemy piece of each
    /// of these kinds (CoBlaChe: `["Q", "I", "M", "B", "F"]`).
    pub capture_one_of_each: Option<Vec<String>>,
    /// What a stalemate is: `draw` (the default) or `loss` for the stalemated side (Courier,
    /// Shatranj).
    pub stalemate: Option<StalemateRule>,
    /// The bare-King rule: `none` (the default) or `loses` (a side left with nothing but its
    /// royal piece loses, unless its very next move bares the other side too: then drawn).
    pub bare_king: Option<BareKingRule>,
}

/// The spellings of `victory.stalemate`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StalemateRule {
    /// `draw`: a stalemate draws (the default).
    #[default]
    Draw,
    /// `loss`: the stalemated side loses.
    Loss,
}

/// The spellings of `victory.bare_king`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BareKingRule {
    /// `none`: a bare King plays on (the default).
    #[default]
    None,
    /// `loses`: a side with only its royal piece left loses, unless its very next move leaves
    /// the other side with only its royal piece too (then the game is drawn).
    Loses,
}

/// How castling works.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CastlingSpec {
    /// Which kind of castling; absent means [`CastlingStyle::None`]. The other keys of this
    /// table belong to one style each, as their docs say.
    pub style: Option<CastlingStyle>,
    /// `fixed`: the King's destination files, kingside then queenside.
    pub king_files: Option<[String; 2]>,
    /// `fixed`: the partner's destination files, kingside then queenside.
    pub partner_files: Option<[String; 2]>,
    /// `slide`: how far the King moves.
    pub steps: Option<u8>,
    /// `table`: every castling the source lists, as `[partner's file, "kingside" or
    /// "queenside", King's destination file, partner's destination file]`. Kingside runs
    /// towards higher files, around the wrap on a cylinder.
    pub table: Option<Vec<[String; 4]>>,
}

/// Promotion.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromotionSpec {
    /// Ranks (counted from the promoting side's own first rank, 1-based) where promotion is
    /// compulsory.
    pub ranks: Option<Vec<u8>>,
    /// Ranks where a piece may promote or stay as it is (Grand Chess).
    pub optional_ranks: Option<Vec<u8>>,
    /// Letters of the pieces a promoting piece may become.
    pub choices: Option<Vec<String>>,
    /// A piece may only be chosen while its side has fewer of it than the start position
    /// (Grand Chess: only captured pieces come back).
    pub limit_to_start_counts: Option<bool>,
    /// Compulsory promotion zones per side, when the sides' zones are not mirror images: rank
    /// *names* (Besiege: `{ white = ["8", "9"], black = ["1", "16"] }`) or rectangles of cells
    /// (Quadruple Besiege: `{ white = ["k3:n6"], black = ["c3:f6"] }`).
    pub by_side: Option<BTreeMap<String, Vec<String>>>,
}

/// Which draws apply.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawSpec {
    /// The 50-move rule (100 plies without a capture or a pawn move). Default on.
    pub fifty_moves: Option<bool>,
    /// How many times a position must occur to draw. Default 3; 0 turns it off.
    pub repetitions: Option<u8>,
    /// Whether material that can never checkmate draws; absent means
    /// [`InsufficientMaterial::Derived`].
    pub insufficient_material: Option<InsufficientMaterial>,
}

/// The spellings of `castling.style`. An enum rather than a string so that a misspelt style
/// is refused while the file is read, with the accepted spellings listed, instead of being
/// matched by hand later.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CastlingStyle {
    /// `fixed`: the King and partner go to fixed files, `king_files` and `partner_files`
    /// (FIDE, Chess960, Capablanca).
    Fixed,
    /// `slide`: the King moves `steps` cells towards the partner, which lands on the last
    /// cell the King crossed (Toulousain, Northern Ecumenical).
    Slide,
    /// `table`: exactly the castlings listed in `table` (Wraparound Ecumenical, Besiege).
    Table,
    /// `none`: no castling (the default).
    #[default]
    None,
}

/// The spellings of `draws.insufficient_material`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InsufficientMaterial {
    /// `derived` (the default): a position draws when the pieces left can never checkmate,
    /// judged from what each piece's movement reaches on this board (colour-bound pieces, a
    /// lone piece that cannot mate with its King's help); see `Position::is_dead`. On FIDE's
    /// pieces it gives FIDE's material rule.
    #[default]
    Derived,
    /// `fide`: the same rule as `derived` (the name variant files used before it was derived).
    Fide,
    /// `none`: material never draws by itself (Through the Looking-Glass, which has no check).
    None,
}

/// The longest problem text of a [`SpecError`], in characters (the list of known variants
/// in an "unknown variant" error is the longest one meant).
const MAX_PROBLEM_CHARS: usize = 800;

/// The largest variant file read, in bytes.
pub const MAX_FILE_BYTES: usize = 64 * 1024;

/// An error in a variant file: which file, which key, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {key}: {problem}")]
pub struct SpecError {
    /// The file (or built-in variant) the error is in.
    pub file: String,
    /// The key, as a dotted path (`pieces.G.moves`), or `(file)` for the file as a whole.
    pub key: String,
    /// What is wrong and what to do instead.
    pub problem: String,
}

impl SpecError {
    /// An error about `key` of `file`. The key and the problem are cut to a bounded length
    /// and made printable here, once for every error: both quote what the file holds (a
    /// key's name, a value, a variant a file extends), and a file may hold anything.
    pub(crate) fn new(file: &str, key: impl Into<String>, problem: impl Into<String>) -> Self {
        SpecError {
            file: crate::quote::visible(file, 80),
            key: crate::quote::visible(&key.into(), 80),
            problem: crate::quote::visible(&problem.into(), MAX_PROBLEM_CHARS),
        }
    }
}

/// Parses one file's text, checking every key and type, and returns it as a TOML table for
/// merging.
///
/// # Errors
/// On TOML syntax errors, unknown keys and wrong types, naming the file and the key.
pub fn parse_file(file: &str, text: &str) -> Result<toml::Table, SpecError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(SpecError::new(
            file,
            "(file)",
            format!(
                "{} bytes; a variant file is at most {MAX_FILE_BYTES} (the largest built-in one is about 3 KB)",
                text.len()
            ),
        ));
    }
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| SpecError::new(file, key_at(text, &e), e.message()))?;
    // Deserialising the text (not the table) keeps spans, so the error can point at the key.
    toml::from_str::<VariantSpec>(text)
        .map_err(|e| SpecError::new(file, key_at(text, &e), e.message()))?;
    Ok(table)
}

/// Where a parse error is, for [`SpecError::key`]: the dotted key when the error is about a
/// value (`castling.style (line 5)` for a misspelt style, so the message names the key
/// and serde's "expected one of" names the accepted values), else what the span covers.
fn key_at(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(span) => {
            if let Some(key) = value_key(text, span.start) {
                let line = text
                    .get(..span.start)
                    .unwrap_or(text)
                    .lines()
                    .count()
                    .max(1);
                return format!("{key} (line {line})");
            }
            let snippet = crate::quote::visible(text.get(span.clone()).unwrap_or("").trim(), 41);
            let line = text
                .get(..span.start)
                .unwrap_or(text)
                .lines()
                .count()
                .max(1);
            if snippet.is_empty() || snippet.chars().count() > 40 || snippet.contains('\u{240a}') {
                format!("line {line}")
            } else {
                format!("{snippet} (line {line})")
            }
        }
        None => "(file)".to_string(),
    }
}

/// The dotted key whose value starts at byte `at`, when that value follows `key =` on its own
/// line (`style = "fixd"` under `[castling]`: `castling.style`). `None` for anything else
/// (a key itself, an inline table, a value continued over several lines): the caller then
/// quotes the span.
fn value_key(text: &str, at: usize) -> Option<String> {
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let before = text.get(line_start..at)?.trim_end().strip_suffix('=')?;
    let is_key = |k: &str| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    let key = before.trim();
    if !is_key(key) {
        return None;
    }
    // The nearest table header above (`[castling]`, `[[x]]`); array rows spread over lines
    // hold quotes or commas, so they are not mistaken for one.
    let header = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        let inner = l.strip_prefix('[')?.strip_suffix(']')?;
        let inner = inner.trim_start_matches('[').trim_end_matches(']').trim();
        is_key(inner).then_some(inner)
    });
    Some(match header {
        Some(h) => format!("{h}.{key}"),
        None => key.to_string(),
    })
}

/// Merges `child` over `parent`: tables merge key by key, everything else is replaced.
pub fn merge(parent: &mut toml::Table, child: toml::Table) {
    for (key, value) in child {
        match (parent.get_mut(&key), value) {
            (Some(toml::Value::Table(p)), toml::Value::Table(c)) => merge(p, c),
            (_, v) => {
                parent.insert(key, v);
            }
        }
    }
}

/// Turns a merged table into a spec.
///
/// # Errors
/// When the merged table does not fit the schema (cannot happen for tables that each passed
/// [`parse_file`], but the error is kept typed rather than unwrapped).
pub fn from_table(file: &str, table: toml::Table) -> Result<VariantSpec, SpecError> {
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| SpecError::new(file, "(merged)", e.message().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named() {
        let e = parse_file("x.toml", "name = \"x\"\ncolour = 3\n").unwrap_err();
        assert_eq!(e.file, "x.toml");
        assert!(e.key.contains("colour"), "{e}");
        assert!(e.problem.contains("unknown field"), "{e}");
    }

    #[test]
    fn nested_unknown_keys_are_named() {
        let e = parse_file("x.toml", "[board]\nfiles = 8\nwidth = 8\n").unwrap_err();
        assert!(e.key.contains("width"), "{e}");
    }

    #[test]
    fn wrong_types_are_named() {
        let e = parse_file("x.toml", "[board]\nfiles = \"eight\"\n").unwrap_err();
        assert!(e.to_string().contains("x.toml"), "{e}");
        assert!(e.key.contains("eight") || e.key.contains("line 2"), "{e}");
    }

    #[test]
    fn unknown_values_name_the_key_and_the_accepted_values() {
        let e = parse_file("x.toml", "name = \"x\"\n[castling]\nstyle = \"fixd\"\n").unwrap_err();
        assert_eq!(e.key, "castling.style (line 3)", "{e}");
        assert!(
            e.problem.contains("`fixed`, `slide`, `table`, `none`"),
            "{e}"
        );
        let e = parse_file("x.toml", "[draws]\ninsufficient_material = \"FIDE\"\n").unwrap_err();
        assert_eq!(e.key, "draws.insufficient_material (line 2)", "{e}");
        assert!(
            e.problem
                .contains("expected one of `derived`, `fide`, `none`"),
            "{e}"
        );
    }

    #[test]
    fn syntax_errors_are_typed() {
        assert!(parse_file("x.toml", "name = ").is_err());
    }

    #[test]
    fn merge_overrides_keys_and_merges_tables() {
        let mut parent = parse_file("p", "name = \"p\"\n[board]\nfiles = 8\nranks = 8\n").unwrap();
        let child = parse_file("c", "name = \"c\"\n[board]\nfiles = 10\n").unwrap();
        merge(&mut parent, child);
        let spec = from_table("c", parent).unwrap();
        assert_eq!(spec.name.as_deref(), Some("c"));
        let board = spec.board.unwrap();
        assert_eq!((board.files, board.ranks), (Some(10), Some(8)));
    }
}
