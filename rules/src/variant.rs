//! A resolved, validated variant: geometry, piece kinds, rules, and the precomputed tables
//! that move generation runs on.

mod board;
mod castling;
pub(crate) mod dead;
mod end;
mod pieces;
mod promotion;
mod special;
mod start;

use crate::{
    betza::Atom,
    geometry::Geometry,
    orientation::Orientation,
    spec::{SpecError, VariantSpec},
    tables::Tables,
    types::{Cell, CellSet, Kind, MAX_KINDS, Side},
    zobrist::Zobrist,
};

/// One piece kind of a variant.
#[derive(Debug, Clone)]
pub struct PieceType {
    /// Its letter (uppercase).
    pub letter: char,
    /// Its name.
    pub name: String,
    /// Its movement string, as written in the variant file.
    pub moves: String,
    /// The parsed movement.
    pub atoms: Vec<Atom>,
    /// Checkmating it wins; it may not move into check.
    pub royal: bool,
    /// Pawn-like (en passant, 50-move clock, promotion).
    pub pawn: bool,
    /// May be a castling partner.
    pub castles: bool,
    /// Its value in pawns as the variant file sets it (`value`), overriding the value the
    /// engine derives from its movement on this board; `None`: derived.
    pub value: Option<f32>,
    /// The renderer's picture name.
    pub glyph: String,
    /// The letter SAN uses (usually `letter`).
    pub san_letter: char,
    /// The letter UCI move texts use (usually `letter`; see `notation::uci`).
    pub uci_letter: char,
    /// Special powers (flip, push, immunity, freeze, kill...); all off for ordinary pieces.
    pub powers: Powers,
    /// Promotion on a one-rank step across a river (CoBlaChe).
    pub crossing: Option<Crossing>,
    /// Bit set of enemy kinds whose river section it may not move into (CoBlaChe).
    pub shuns: u32,
    /// The only files it may stand on, by name (Double Cross Pawns); empty: every file.
    pub files: Vec<String>,
    /// Per side, the zones (rank names or rectangles, as written) it may never enter; empty:
    /// none (four-player Double Cross Pawns stay out of adjacent colours' camps).
    pub keep_out: Vec<Vec<String>>,
}

/// Promotion on crossing a river: a one-rank step between rank `y` and `y + 1` for a listed
/// `y` (wherever the river runs; a step across a wrap join is no crossing).
#[derive(Debug, Clone, Default)]
pub struct Crossing {
    /// The ranks the rivers run above.
    pub rivers: Vec<u8>,
    /// What it may become.
    pub choices: Vec<Kind>,
    /// May stay as it is.
    pub optional: bool,
    /// Only kinds its side has fewer of than at the start.
    pub captured_only: bool,
}

impl Crossing {
    /// Whether a step from rank `a` to rank `b` crosses one of the rivers.
    pub fn crosses(&self, a: u8, b: u8) -> bool {
        a.abs_diff(b) == 1 && self.rivers.contains(&a.min(b))
    }
}

/// Rule primitives beyond movement, switched on per piece by the variant file. A variant whose
/// pieces have none of them pays nothing for them (see [`Variant::special`]).
#[derive(Debug, Clone, Default)]
pub struct Powers {
    /// The kind it may turn into (end of a move, or in place as a whole move).
    pub flip: Option<Kind>,
    /// Pushes enemy pieces on one-cell steps instead of capturing.
    pub pushes: bool,
    /// Bit set of the kinds that may capture it (`u32::MAX`: all).
    pub capturable_by: u32,
    /// Blocks enemy hoppers instead of screening them.
    pub screen_own_only: bool,
    /// May be pushed.
    pub pushable: bool,
    /// May be frozen.
    pub freezable: bool,
    /// Two steps while unmoved.
    pub opening_double: bool,
    /// Moves by the folded-board Ferz step.
    pub fold_step: bool,
    /// Freezes fold-orthogonal neighbours.
    pub freezes: bool,
    /// Kills at a Camel's distance along the zigzag.
    pub kills: bool,
}

impl Powers {
    fn ordinary() -> Powers {
        Powers {
            capturable_by: u32::MAX,
            pushable: true,
            freezable: true,
            ..Powers::default()
        }
    }

    pub(crate) fn any(&self) -> bool {
        self.flip.is_some()
            || self.pushes
            || self.capturable_by != u32::MAX
            || self.screen_own_only
            || self.opening_double
            || self.fold_step
            || self.freezes
            || self.kills
    }
}

/// Per-cell tables of the special powers (only built when some piece has one).
#[derive(Debug, Clone, Default)]
pub struct SpecialTables {
    /// Folded-board Ferz steps from each cell.
    pub fold_steps: Vec<Vec<u8>>,
    /// Folded-board orthogonal neighbours of each cell.
    pub fold_orth: Vec<Vec<u8>>,
    /// Kills from each cell: (target, first path cell, second path cell).
    pub kills: Vec<Vec<(u8, u8, u8)>>,
    /// Kills onto each cell: (killer's cell, first path cell, second path cell).
    pub killed_from: Vec<Vec<(u8, u8, u8)>>,
    /// Orthogonal one-cell steps from each cell: (direction index, cell).
    pub wazir: Vec<Vec<(u8, u8)>>,
    /// The cell one further in a Wazir direction: `beyond[cell][dir]` (255: none).
    pub beyond: Vec<[u8; 4]>,
}

/// One cell a piece reaches on an empty board: see [`Variant::empty_board_reach`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// The cell reached.
    pub cell: Cell,
    /// How many cells on the way must be empty (0 for a leap or a first step; a ride's
    /// fourth cell needs three): the fewest over the paths that reach it.
    pub blockers: u8,
    /// It may move there quietly.
    pub moves: bool,
    /// It may capture there.
    pub captures: bool,
    /// It captures there only by hopping over a screen (a Cannon's capture), which an empty
    /// board never offers.
    pub hop: bool,
}

/// How castling moves the King and its partner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastlingRule {
    /// No castling.
    None,
    /// King and partner go to fixed files, kingside then queenside (FIDE, Chess960, Capablanca).
    Fixed {
        /// The King's destination files.
        king_files: [u8; 2],
        /// The partner's destination files.
        partner_files: [u8; 2],
    },
    /// The King moves `steps` cells towards the partner; the partner lands on the last cell the
    /// King crossed (Toulousain: 3). The partner must stand more than `steps` cells away.
    Slide {
        /// How far the King moves.
        steps: u8,
    },
    /// Exactly the castlings a source lists (Wraparound Ecumenical: eight, with five partners,
    /// some around the wrap). Every cell from the King to the partner in the entry's direction
    /// must be empty but for the two, and every cell the King crosses or lands on unattacked.
    Table(Vec<CastleEntry>),
}

/// One listed castling of [`CastlingRule::Table`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CastleEntry {
    /// The partner's file (it must have its castling right there).
    pub partner_file: u8,
    /// Towards higher files (around the wrap on a cylinder), or lower.
    pub kingside: bool,
    /// Where the King lands.
    pub king_to: u8,
    /// Where the partner lands.
    pub partner_to: u8,
}

/// Promotion rules.
#[derive(Debug, Clone, Default)]
pub struct Promotion {
    /// Per side: cells where a promoting piece must promote.
    pub compulsory: Vec<CellSet>,
    /// Per side: cells where it may promote or stay.
    pub optional: Vec<CellSet>,
    /// The kinds it may become.
    pub choices: Vec<Kind>,
    /// Only while the side has fewer of that kind than at the start.
    pub limit_to_start_counts: bool,
}

impl Promotion {
    /// A side's promotion cells, compulsory and optional together (none for a side the
    /// variant does not have).
    pub fn zone(&self, side: usize) -> CellSet {
        let of = |sets: &[CellSet]| sets.get(side).copied().unwrap_or(CellSet::EMPTY);
        of(&self.compulsory).union(&of(&self.optional))
    }
}

/// Which draws apply.
#[derive(Debug, Clone)]
pub struct Draws {
    /// 100 plies without a capture or a pawn move draw.
    pub fifty_moves: bool,
    /// This many occurrences of a position draw (0 = off).
    pub repetitions: u8,
    /// Material that can never checkmate draws ([`crate::Position::is_dead`]).
    pub insufficient_material: bool,
}

/// How a game ends besides checkmate and the draws (`[victory]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EndRules {
    /// A stalemate is a loss for the stalemated side (Courier), not a draw.
    pub stalemate_loses: bool,
    /// A side left with only its royal piece loses, unless its very next move leaves the other
    /// side with only its royal piece too: then the game is drawn (Courier, Shatranj).
    pub bare_king: bool,
}

/// A playable variant. Build one with [`crate::Catalog`] or [`Variant::from_spec`]; share it
/// behind an `Arc` between positions.
#[derive(Debug)]
pub struct Variant {
    /// Short name (`toulousain`).
    pub name: String,
    /// Display name (`Toulousain Chess`).
    pub display_name: String,
    /// Where the rules come from.
    pub source: String,
    /// A short description.
    pub description: String,
    /// What is reconstructed or decided by us (shown in the rules help).
    pub reconstructed: Option<String>,
    /// The family of variants whose games share one rating (`ecumenical` for its six forms);
    /// the variant's own name unless its file says `rating_family`.
    pub rating_family: String,
    /// The board(s).
    pub geometry: Geometry,
    /// Number of sides.
    pub sides: u8,
    /// Piece kinds; index 0 is unused so that kinds start at 1.
    pub pieces: Vec<PieceType>,
    /// The start position, FEN-like.
    pub start: String,
    /// Castling.
    pub castling: CastlingRule,
    /// Promotion.
    pub promotion: Promotion,
    /// Draw rules.
    pub draws: Draws,
    /// Stalemate and bare-King rules.
    pub end: EndRules,
    /// Whether a double step may be taken en passant (`en_passant`, default true).
    pub en_passant: bool,
    /// How many of each kind each side has at the start (`[side][kind]`).
    pub start_counts: Vec<[u8; MAX_KINDS + 1]>,
    pub(crate) tables: Tables,
    pub(crate) zobrist: Zobrist,
    /// Tables of the special powers; `None` when no piece has one (the fast, ordinary path).
    pub special: Option<Box<SpecialTables>>,
    /// Which way is forward for each side on each cell (`[forward]`).
    pub orientation: Orientation,
    /// The river section of each cell (0 below the first river), for `shuns`.
    pub sections: Vec<u8>,
    /// A side wins once it has captured at least one enemy piece of each of these kinds
    /// (CoBlaChe); empty: no such victory.
    pub capture_goal: Vec<Kind>,
    /// Some piece has a crossing promotion or shuns sections: the generator applies them.
    pub move_rules: bool,
    /// Special powers, river rules or a capture goal: the legal generator leaves its fast path.
    pub unusual: bool,
    /// What each piece kind can reach and whether it can mate alone, for the dead-position
    /// rule: built on first use, per kind and side.
    pub(crate) mating: dead::Mating,
}

impl Variant {
    /// The kind with this letter (either case).
    pub fn kind_by_letter(&self, letter: char) -> Option<Kind> {
        let up = letter.to_ascii_uppercase();
        (1..self.pieces.len())
            .find(|i| self.pieces[*i].letter == up)
            .map(|i| Kind(i as u8))
    }

    /// A piece kind's description.
    pub fn piece(&self, kind: Kind) -> &PieceType {
        &self.pieces[kind.index()]
    }

    /// The kinds, in letter order of the variant file.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        (1..self.pieces.len()).map(|i| Kind(i as u8))
    }

    /// All sides in turn order.
    pub fn all_sides(&self) -> impl Iterator<Item = Side> {
        (0..self.sides).map(Side)
    }

    /// The letter of a piece as written in FEN (uppercase for the first side). Four-sided
    /// variants write a colour letter too: see [`Variant::token`].
    pub fn letter(&self, side: Side, kind: Kind) -> char {
        let l = self.pieces[kind.index()].letter;
        if side == Side::WHITE {
            l
        } else {
            l.to_ascii_lowercase()
        }
    }

    /// A piece as written in state text: its [`Variant::letter`] with two sides; with four,
    /// the side's colour letter and the uppercase piece letter (`rK`, `bP`), since case can
    /// tell only two sides apart.
    pub fn token(&self, side: Side, kind: Kind) -> String {
        if self.sides <= 2 {
            self.letter(side, kind).to_string()
        } else {
            let l = self.pieces[kind.index()].letter;
            format!("{}{l}", side.letter(self.sides as usize))
        }
    }

    /// Every cell a piece of `kind` and `side` standing on `from` reaches on an otherwise empty
    /// board, one entry per cell, in table order.
    ///
    /// This is movement as the variant's own geometry shapes it (holes, wraps, twists,
    /// confinement, forward frames and first-move steps from start cells included), which is
    /// what an engine needs to derive piece values and centralisation without per-variant
    /// tuning. Special powers that are not movement (freeze, kill, push, flip in place) are
    /// not listed: they are not paths.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, Side};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let g = &chess.geometry;
    /// let knight = chess.kind_by_letter('N').unwrap();
    /// let queen = chess.kind_by_letter('Q').unwrap();
    /// assert_eq!(chess.empty_board_reach(knight, Side::WHITE, g.parse("a1").unwrap()).len(), 2);
    /// let from_d4 = chess.empty_board_reach(queen, Side::WHITE, g.parse("d4").unwrap());
    /// assert_eq!(from_d4.len(), 27);
    /// // d8 is the fourth cell of the ride: three cells on the way must be empty.
    /// let d8 = from_d4.iter().find(|r| g.name(r.cell) == "d8").unwrap();
    /// assert_eq!(d8.blockers, 3);
    /// ```
    pub fn empty_board_reach(&self, kind: Kind, side: Side, from: Cell) -> Vec<Reach> {
        self.tables
            .empty_board_reach(kind.index(), side.index(), from.index())
    }

    /// Resolves a merged spec into a variant, validating everything and building the tables.
    ///
    /// Each part of the file has its own resolver (board, pieces and their powers, start,
    /// castling, promotion, end conditions), run in this order because later parts name
    /// earlier ones: a promotion choice names a piece, a castling file names a file of the
    /// board. The first problem found is the one reported.
    ///
    /// # Errors
    /// A [`SpecError`] naming `file`, the key and the problem.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Variant, spec};
    ///
    /// let text = r#"
    /// name = "kings"
    /// start = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    /// [board]
    /// files = 8
    /// ranks = 8
    /// [pieces]
    /// K = { name = "King", moves = "K", royal = true }
    /// "#;
    /// let table = spec::parse_file("kings.toml", text)?;
    /// let v = Variant::from_spec("kings.toml", spec::from_table("kings.toml", table)?)?;
    /// assert_eq!(v.pieces.len(), 2); // index 0 is unused
    ///
    /// // A misspelt castling style is refused with the key and the accepted values.
    /// let e = spec::parse_file("bad.toml", "[castling]\nstyle = \"fixd\"\n").unwrap_err();
    /// assert!(e.key.starts_with("castling.style"), "{e}");
    /// assert!(e.problem.contains("`fixed`, `slide`, `table`, `none`"), "{e}");
    /// # Ok::<_, rules::SpecError>(())
    /// ```
    pub fn from_spec(file: &str, spec: VariantSpec) -> Result<Variant, SpecError> {
        let name = resolve_name(file, spec.name.as_deref())?;
        let sides = resolve_sides(file, spec.sides)?;
        let geometry = board::geometry(file, spec.board.as_ref())?;
        let piece_specs = pieces::specs(file, spec.pieces.as_ref())?;
        let mut pieces = pieces::kinds(file, piece_specs)?;
        let special_on = pieces::powers(file, piece_specs, &mut pieces, &geometry)?;
        let orientation = Orientation::from_entries(
            &geometry,
            sides,
            spec.forward
                .iter()
                .flatten()
                .map(|(side, list)| (side.as_str(), list.as_slice())),
        )
        .map_err(|e| SpecError::new(file, "forward", e.to_string()))?;
        let start = start::start(
            file,
            spec.start.as_ref(),
            &geometry,
            &pieces,
            sides,
            &orientation,
        )?;
        let castling = castling::castling(file, spec.castling.as_ref(), &geometry, &pieces)?;
        let promotion = promotion::promotion(
            file,
            spec.promotion.as_ref(),
            piece_specs,
            &geometry,
            &pieces,
            sides,
        )?;
        let draws = end::draws(spec.draws.as_ref());
        let end = end::end_rules(spec.victory.as_ref());
        let confined = pieces::confinement(file, piece_specs, &mut pieces, &geometry, sides)?;
        pieces::river_rules(file, piece_specs, &mut pieces, &geometry)?;
        let sections = board::sections(&geometry);
        let capture_goal = end::capture_goal(file, spec.victory.as_ref(), &pieces)?;
        let move_rules = pieces.iter().any(|p| p.crossing.is_some() || p.shuns != 0);
        if sides > 2 && (special_on || move_rules || !capture_goal.is_empty()) {
            return Err(SpecError::new(
                file,
                "sides",
                "four sides play with ordinary pieces only: special powers, river rules and capture goals are two-player rules so far",
            ));
        }
        if move_rules && special_on {
            return Err(SpecError::new(
                file,
                "pieces",
                "river rules (crossing, shuns) and special powers cannot be combined yet",
            ));
        }
        let mut tables = Tables::build(
            &geometry,
            &pieces,
            sides,
            &start.initial,
            &orientation,
            &confined,
        );
        let zones: Vec<CellSet> = (0..sides as usize).map(|s| promotion.zone(s)).collect();
        tables.mark_promotions(&pieces, &zones);
        let zobrist = Zobrist::new(geometry.len(), sides as usize);
        let pieces_len = pieces.len();
        let special = special_on.then(|| Box::new(special::tables(&geometry)));
        Ok(Variant {
            display_name: spec.display_name.clone().unwrap_or_else(|| name.clone()),
            rating_family: spec.rating_family.clone().unwrap_or_else(|| name.clone()),
            name,
            source: spec.source.clone().unwrap_or_default(),
            description: spec.description.clone().unwrap_or_default(),
            reconstructed: spec.reconstructed.clone(),
            geometry,
            sides,
            pieces,
            start: start.text,
            castling,
            promotion,
            draws,
            end,
            en_passant: spec.en_passant.unwrap_or(true),
            start_counts: start.counts,
            tables,
            zobrist,
            special,
            orientation,
            sections,
            unusual: special_on || move_rules || !capture_goal.is_empty(),
            capture_goal,
            move_rules,
            mating: dead::Mating::new(pieces_len, sides),
        })
    }
}

/// The short name: required, and spelt so that players can type it.
fn resolve_name(file: &str, name: Option<&str>) -> Result<String, SpecError> {
    let name = name
        .ok_or_else(|| SpecError::new(file, "name", "missing; every variant needs a short name"))?;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(SpecError::new(
            file,
            "name",
            format!("{name:?}: use lowercase letters, digits and '-' only"),
        ));
    }
    Ok(name.to_string())
}

/// The number of sides: 2 (the default) or 4 (Red, Blue, Yellow, Green). Three would need
/// names, colours and a seat order nobody has asked for yet.
fn resolve_sides(file: &str, sides: Option<u8>) -> Result<u8, SpecError> {
    let sides = sides.unwrap_or(2);
    if sides != 2 && sides != 4 {
        return Err(SpecError::new(
            file,
            "sides",
            format!("{sides}: a variant has 2 or 4 sides"),
        ));
    }
    Ok(sides)
}
