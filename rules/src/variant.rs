//! A resolved, validated variant: geometry, piece kinds, rules, and the precomputed tables
//! that move generation runs on.

use std::collections::BTreeMap;

use crate::{
    betza::{self, Atom},
    fen,
    geometry::{Geometry, Join, Shape},
    orientation::Orientation,
    spec::{SpecError, VariantSpec},
    tables::Tables,
    types::{Cell, CellSet, Kind, MAX_KINDS, MAX_SIDES, Side},
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
    /// Value in pawns.
    pub value: f32,
    /// The renderer's picture name.
    pub glyph: String,
    /// The letter SAN uses (usually `letter`).
    pub san_letter: char,
    /// Special powers (flip, push, immunity, freeze, kill...); all off for ordinary pieces.
    pub powers: Powers,
    /// Promotion on a one-rank step across a river (CoBlaChe).
    pub crossing: Option<Crossing>,
    /// Bit set of enemy kinds whose river section it may not move into (CoBlaChe).
    pub shuns: u32,
    /// The only files it may stand on, by name (Double Cross Pawns); empty: every file.
    pub files: Vec<String>,
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

    fn any(&self) -> bool {
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

/// Which draws apply.
#[derive(Debug, Clone)]
pub struct Draws {
    /// 100 plies without a capture or a pawn move draw.
    pub fifty_moves: bool,
    /// This many occurrences of a position draw (0 = off).
    pub repetitions: u8,
    /// The FIDE dead-position material rule.
    pub fide_insufficient_material: bool,
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

    /// The letter of a piece as written in FEN (uppercase for the first side).
    pub fn letter(&self, side: Side, kind: Kind) -> char {
        let l = self.pieces[kind.index()].letter;
        if side == Side::WHITE {
            l
        } else {
            l.to_ascii_lowercase()
        }
    }

    /// Resolves a merged spec into a variant, validating everything and building the tables.
    ///
    /// # Errors
    /// A [`SpecError`] naming `file`, the key and the problem.
    pub fn from_spec(file: &str, spec: VariantSpec) -> Result<Variant, SpecError> {
        let err = |key: &str, problem: String| SpecError::new(file, key, problem);
        let name = spec
            .name
            .clone()
            .ok_or_else(|| err("name", "missing; every variant needs a short name".into()))?;
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(err(
                "name",
                format!("{name:?}: use lowercase letters, digits and '-' only"),
            ));
        }
        let sides = spec.sides.unwrap_or(2);
        if sides != 2 {
            return Err(err(
                "sides",
                format!("{sides}: only 2-sided variants are supported so far"),
            ));
        }
        let geometry = build_geometry(file, spec.board.as_ref())?;

        // Pieces.
        let piece_specs = spec.pieces.as_ref().ok_or_else(|| {
            err(
                "pieces",
                "missing; a variant needs at least a [pieces] table".into(),
            )
        })?;
        if piece_specs.len() > MAX_KINDS {
            return Err(err(
                "pieces",
                format!("{} kinds: at most {MAX_KINDS}", piece_specs.len()),
            ));
        }
        let mut pieces = vec![PieceType {
            letter: '?',
            name: String::new(),
            moves: String::new(),
            atoms: Vec::new(),
            royal: false,
            pawn: false,
            castles: false,
            value: 0.0,
            glyph: String::new(),
            san_letter: '?',
            powers: Powers::ordinary(),
            crossing: None,
            shuns: 0,
            files: Vec::new(),
        }];
        for (letter, p) in piece_specs {
            let key = format!("pieces.{letter}");
            let mut chars = letter.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return Err(err(&key, "a piece letter is one character".into()));
            };
            if !c.is_ascii_uppercase() {
                return Err(err(
                    &key,
                    "write piece letters in uppercase; the second side uses the lowercase".into(),
                ));
            }
            let moves = p
                .moves
                .clone()
                .ok_or_else(|| err(&format!("{key}.moves"), "missing".into()))?;
            // A piece whose whole movement is a special power (the folded-board step) may
            // leave `moves` empty.
            let atoms = if moves.trim().is_empty() && p.fold_step {
                Vec::new()
            } else {
                betza::parse(&moves).map_err(|e| err(&format!("{key}.moves"), e.to_string()))?
            };
            let pname = p.name.clone().unwrap_or_else(|| c.to_string());
            pieces.push(PieceType {
                letter: c,
                glyph: p.glyph.clone().unwrap_or_else(|| pname.to_lowercase()),
                name: pname,
                moves,
                atoms,
                royal: p.royal,
                pawn: p.pawn,
                castles: p.castles,
                value: p.value.unwrap_or(0.0),
                san_letter: match p
                    .san_letter
                    .as_deref()
                    .map(|l| l.chars().collect::<Vec<_>>())
                {
                    None => c,
                    Some(l) if l.len() == 1 && l[0].is_ascii_uppercase() => l[0],
                    Some(_) => {
                        return Err(err(
                            &format!("{key}.san_letter"),
                            "one uppercase letter".into(),
                        ));
                    }
                },
                powers: Powers::ordinary(),
                crossing: None,
                shuns: 0,
                files: Vec::new(),
            });
        }
        let letters: Vec<char> = pieces.iter().map(|p| p.letter).collect();
        let letter_kind = |l: &str| -> Option<Kind> {
            let mut cs = l.chars();
            let c = cs.next()?;
            if cs.next().is_some() {
                return None;
            }
            (1..letters.len())
                .find(|i| letters[*i] == c.to_ascii_uppercase())
                .map(|i| Kind(i as u8))
        };

        // Special powers (resolved after all letters are known).
        let mut all_powers = Vec::new();
        for (letter, p) in piece_specs.iter() {
            let key = format!("pieces.{letter}");
            let mut pw = Powers::ordinary();
            if let Some(f) = &p.flip {
                let k = letter_kind(f).ok_or_else(|| {
                    err(
                        &format!("{key}.flip"),
                        format!("{f:?} is not a piece of this variant"),
                    )
                })?;
                pw.flip = Some(k);
            }
            if let Some(by) = &p.capturable_by {
                let mut mask = 0u32;
                for l in by {
                    let k = letter_kind(l).ok_or_else(|| {
                        err(
                            &format!("{key}.capturable_by"),
                            format!("{l:?} is not a piece of this variant"),
                        )
                    })?;
                    mask |= 1 << k.0;
                }
                pw.capturable_by = mask;
            }
            pw.pushes = p.pushes;
            pw.screen_own_only = p.screen_own_only;
            pw.pushable = p.pushable.unwrap_or(true);
            pw.freezable = p.freezable.unwrap_or(true);
            pw.opening_double = p.opening_double;
            pw.fold_step = p.fold_step;
            pw.freezes = p.freezes;
            pw.kills = p.kills;
            all_powers.push(pw);
        }
        for (i, pw) in all_powers.into_iter().enumerate() {
            pieces[i + 1].powers = pw;
        }
        let special_on = pieces.iter().any(|p| p.powers.any());
        if special_on && geometry.boards() != 1 {
            return Err(err("pieces", "special powers need a single board".into()));
        }

        // Start position.
        let start = spec
            .start
            .clone()
            .ok_or_else(|| err("start", "missing; give the start position FEN-like".into()))?;
        let board_field = start.split_whitespace().next().unwrap_or("");
        let start_board = fen::parse_board(&geometry, &pieces, board_field)
            .map_err(|e| err("start", e.to_string()))?;
        let mut start_counts = vec![[0u8; MAX_KINDS + 1]; MAX_SIDES];
        let mut initial = vec![CellSet::EMPTY; pieces.len() * sides as usize];
        for (i, code) in start_board.iter().enumerate() {
            if *code != 0 {
                let (s, k) = ((code >> 5) as usize, (code & 31) as usize);
                start_counts[s][k] = start_counts[s][k].saturating_add(1);
                initial[k * sides as usize + s].insert(Cell(i as u8));
            }
        }
        // A pawn's initial-only moves (the double step) belong to its whole start rank, not
        // just the start cells (Bilateral B12: a Pawn pushed sideways along its 2nd rank may
        // still double-step). Arrays whose Pawns fill their rank are unaffected.
        for k in 1..pieces.len() {
            if !pieces[k].pawn {
                continue;
            }
            for s in 0..sides as usize {
                let set = &mut initial[k * sides as usize + s];
                let rows: Vec<(u8, u8)> = set
                    .iter()
                    .map(|c| (geometry.info(c).board, geometry.info(c).rank))
                    .collect();
                for c in geometry.cells() {
                    let i = geometry.info(c);
                    if rows.contains(&(i.board, i.rank)) {
                        set.insert(c);
                    }
                }
            }
        }
        for (s, counts) in start_counts.iter().enumerate().take(sides as usize) {
            let royals: u32 = (1..pieces.len())
                .filter(|k| pieces[*k].royal)
                .map(|k| counts[k] as u32)
                .sum();
            if royals > 1 {
                return Err(err(
                    "start",
                    format!("side {s} has {royals} royal pieces; at most one is supported"),
                ));
            }
        }

        // Castling.
        // A castling key's file name, as the board's file index.
        let file_index = |key: &str, name: &str| -> Result<u8, SpecError> {
            geometry
                .shape()
                .file_names
                .iter()
                .position(|x| x == name)
                .map(|i| i as u8)
                .ok_or_else(|| err(key, format!("{name:?} is not a file of the board")))
        };
        let castling = match &spec.castling {
            None => CastlingRule::None,
            Some(c) => match c.style.as_deref().unwrap_or("none") {
                "none" => CastlingRule::None,
                "fixed" => {
                    let file_of =
                        |key: &str, f: &Option<[String; 2]>| -> Result<[u8; 2], SpecError> {
                            let f = f.as_ref().ok_or_else(|| {
                                err(
                                    key,
                                    "missing; `fixed` castling needs [kingside, queenside] files"
                                        .into(),
                                )
                            })?;
                            Ok([file_index(key, &f[0])?, file_index(key, &f[1])?])
                        };
                    CastlingRule::Fixed {
                        king_files: file_of("castling.king_files", &c.king_files)?,
                        partner_files: file_of("castling.partner_files", &c.partner_files)?,
                    }
                }
                "slide" => CastlingRule::Slide {
                    steps: c.steps.filter(|s| *s >= 1).ok_or_else(|| {
                        err(
                            "castling.steps",
                            "missing; `slide` castling needs steps >= 1".into(),
                        )
                    })?,
                },
                "table" => {
                    let rows = c.table.as_ref().filter(|t| !t.is_empty()).ok_or_else(|| {
                        err(
                            "castling.table",
                            "missing; `table` castling lists [partner file, \"kingside\" or \"queenside\", King's file, partner's file] rows".into(),
                        )
                    })?;
                    let file = |n: &str| file_index("castling.table", n);
                    let mut entries = Vec::new();
                    for [p, wing, k, t] in rows {
                        let kingside = match wing.as_str() {
                            "kingside" => true,
                            "queenside" => false,
                            other => {
                                return Err(err(
                                    "castling.table",
                                    format!("{other:?}: write \"kingside\" or \"queenside\""),
                                ));
                            }
                        };
                        entries.push(CastleEntry {
                            partner_file: file(p)?,
                            kingside,
                            king_to: file(k)?,
                            partner_to: file(t)?,
                        });
                    }
                    CastlingRule::Table(entries)
                }
                other => {
                    return Err(err(
                        "castling.style",
                        format!("{other:?}: use \"fixed\", \"slide\", \"table\" or \"none\""),
                    ));
                }
            },
        };
        if castling != CastlingRule::None {
            if !pieces.iter().any(|p| p.castles) {
                return Err(err(
                    "castling",
                    "no piece has `castles = true`, so nothing can castle".into(),
                ));
            }
            if !pieces.iter().any(|p| p.royal) {
                return Err(err("castling", "castling needs a royal piece".into()));
            }
        }

        // Promotion.
        let h = geometry.shape().height;
        let mut promotion = Promotion {
            compulsory: vec![CellSet::EMPTY; sides as usize],
            optional: vec![CellSet::EMPTY; sides as usize],
            ..Promotion::default()
        };
        if let Some(p) = &spec.promotion {
            for l in p.choices.as_deref().unwrap_or(&[]) {
                let k = letter_kind(l).ok_or_else(|| {
                    err(
                        "promotion.choices",
                        format!("{l:?} is not a piece of this variant"),
                    )
                })?;
                if pieces[k.index()].royal {
                    return Err(err(
                        "promotion.choices",
                        format!("{l:?} is royal; a pawn cannot promote to it"),
                    ));
                }
                promotion.choices.push(k);
            }
            promotion.limit_to_start_counts = p.limit_to_start_counts.unwrap_or(false);
            for (key, ranks, sets) in [
                ("promotion.ranks", &p.ranks, &mut promotion.compulsory),
                (
                    "promotion.optional_ranks",
                    &p.optional_ranks,
                    &mut promotion.optional,
                ),
            ] {
                for r in ranks.as_deref().unwrap_or(&[]) {
                    if *r == 0 || *r > h {
                        return Err(err(key, format!("rank {r} is not between 1 and {h}")));
                    }
                    for cell in geometry.cells() {
                        let rank = geometry.info(cell).rank;
                        if rank + 1 == *r {
                            sets[0].insert(cell);
                        }
                        if h - rank == *r {
                            sets[1].insert(cell);
                        }
                    }
                }
            }
        }
        if let Some(by_side) = spec.promotion.as_ref().and_then(|p| p.by_side.as_ref()) {
            for (side_name, ranks) in by_side {
                let side = (0..sides)
                    .find(|s| {
                        Side(*s)
                            .name(sides as usize)
                            .eq_ignore_ascii_case(side_name)
                    })
                    .ok_or_else(|| {
                        err(
                            "promotion.by_side",
                            format!(
                                "{side_name:?} is not a side of this variant: use white or black"
                            ),
                        )
                    })?;
                for r in ranks {
                    let zone = promotion_zone(&geometry, r).ok_or_else(|| {
                        err(
                            "promotion.by_side",
                            format!(
                                "{r:?} is neither a rank name nor a rectangle of cells such as \"k3:n6\""
                            ),
                        )
                    })?;
                    for cell in zone {
                        promotion.compulsory[side as usize].insert(cell);
                    }
                }
            }
        }
        if piece_specs.values().any(|p| p.pawn && p.crossing.is_none())
            && promotion.choices.is_empty()
        {
            return Err(err(
                "promotion.choices",
                "missing; pawn-like pieces need promotion choices".into(),
            ));
        }

        let draws_spec = spec.draws.clone().unwrap_or_default();
        let fide = match draws_spec
            .insufficient_material
            .as_deref()
            .unwrap_or("none")
        {
            "none" => false,
            "fide" => true,
            other => {
                return Err(err(
                    "draws.insufficient_material",
                    format!("{other:?}: use \"fide\" or \"none\""),
                ));
            }
        };
        let draws = Draws {
            fifty_moves: draws_spec.fifty_moves.unwrap_or(true),
            repetitions: draws_spec.repetitions.unwrap_or(3),
            fide_insufficient_material: fide,
        };

        let orientation = Orientation::from_entries(
            &geometry,
            sides,
            spec.forward
                .iter()
                .flatten()
                .map(|(side, list)| (side.as_str(), list.as_slice())),
        )
        .map_err(|e| err("forward", e.to_string()))?;
        // Pieces confined to some files (`pieces.X.files`) may land only there; the others
        // anywhere.
        let mut everywhere = CellSet::EMPTY;
        for c in geometry.cells() {
            everywhere.insert(c);
        }
        let mut confined = vec![everywhere; pieces.len()];
        for (i, p) in piece_specs.values().enumerate() {
            let Some(files) = &p.files else { continue };
            let key = format!("pieces.{}.files", pieces[i + 1].letter);
            let mut keep = CellSet::EMPTY;
            for f in files {
                let x = geometry
                    .shape()
                    .file_names
                    .iter()
                    .position(|n| n == f)
                    .ok_or_else(|| err(&key, format!("{f:?} is not a file of the board")))?;
                for c in geometry.cells() {
                    if geometry.info(c).file as usize == x {
                        keep.insert(c);
                    }
                }
            }
            confined[i + 1] = keep;
            pieces[i + 1].files = files.clone();
        }
        // River rules: crossing promotions, sections some pieces shun, the capture goal.
        let rank_of = |key: &str, n: &str| {
            geometry
                .shape()
                .rank_names
                .iter()
                .position(|r| r == n)
                .map(|y| y as u8)
                .filter(|y| geometry.shape().rivers.contains(y))
                .ok_or_else(|| {
                    err(
                        key,
                        format!(
                            "{n:?} is not the rank a river runs above (list it in board.rivers)"
                        ),
                    )
                })
        };
        let kinds_of = |key: &str, letters: &[String]| -> Result<Vec<Kind>, SpecError> {
            letters
                .iter()
                .map(|l| {
                    letter_kind(l)
                        .ok_or_else(|| err(key, format!("{l:?} is not a piece of this variant")))
                })
                .collect()
        };
        for (i, p) in piece_specs.values().enumerate() {
            let letter = pieces[i + 1].letter;
            if let Some(c) = &p.crossing {
                let key = format!("pieces.{letter}.crossing");
                let rivers = c
                    .rivers
                    .iter()
                    .map(|n| rank_of(&key, n))
                    .collect::<Result<Vec<u8>, SpecError>>()?;
                let choices = kinds_of(&key, &c.choices)?;
                if choices.is_empty() || choices.iter().any(|k| pieces[k.index()].royal) {
                    return Err(err(&key, "list the non-royal kinds it may become".into()));
                }
                pieces[i + 1].crossing = Some(Crossing {
                    rivers,
                    choices,
                    optional: c.optional,
                    captured_only: c.captured_only,
                });
            }
            if let Some(list) = &p.shuns {
                let key = format!("pieces.{letter}.shuns");
                if geometry.shape().rivers.is_empty() {
                    return Err(err(&key, "sections need board.rivers".into()));
                }
                for k in kinds_of(&key, list)? {
                    pieces[i + 1].shuns |= 1 << k.0;
                }
            }
        }
        let sections = geometry
            .cells()
            .map(|c| {
                let r = geometry.info(c).rank;
                geometry.shape().rivers.iter().filter(|y| r > **y).count() as u8
            })
            .collect();
        let capture_goal = match spec
            .victory
            .as_ref()
            .and_then(|v| v.capture_one_of_each.as_ref())
        {
            Some(list) => kinds_of("victory.capture_one_of_each", list)?,
            None => Vec::new(),
        };
        let move_rules = pieces.iter().any(|p| p.crossing.is_some() || p.shuns != 0);
        if move_rules && special_on {
            return Err(err(
                "pieces",
                "river rules (crossing, shuns) and special powers cannot be combined yet".into(),
            ));
        }
        let mut tables =
            Tables::build(&geometry, &pieces, sides, &initial, &orientation, &confined);
        let zones: Vec<CellSet> = (0..sides as usize)
            .map(|s| {
                let (c, o) = (&promotion.compulsory[s], &promotion.optional[s]);
                CellSet(std::array::from_fn(|i| c.0[i] | o.0[i]))
            })
            .collect();
        tables.mark_promotions(&pieces, &zones);
        let zobrist = Zobrist::new(geometry.len(), sides as usize);
        let special = special_on.then(|| Box::new(build_special(&geometry)));
        Ok(Variant {
            display_name: spec.display_name.clone().unwrap_or_else(|| name.clone()),
            name,
            source: spec.source.clone().unwrap_or_default(),
            description: spec.description.clone().unwrap_or_default(),
            reconstructed: spec.reconstructed.clone(),
            geometry,
            sides,
            pieces,
            start,
            castling,
            promotion,
            draws,
            start_counts,
            tables,
            zobrist,
            special,
            orientation,
            sections,
            unusual: special_on || move_rules || !capture_goal.is_empty(),
            capture_goal,
            move_rules,
        })
    }
}

/// The cells of a promotion zone entry: a whole rank by name (`"8"`, `"s"`), or a rectangle
/// between two cells of one board (`"k3:n6"`, Quadruple Besiege's enemy piece block).
fn promotion_zone(g: &Geometry, entry: &str) -> Option<Vec<Cell>> {
    if let Some((a, b)) = entry.split_once(':') {
        let (a, b) = (g.info(g.parse(a)?), g.info(g.parse(b)?));
        if a.board != b.board {
            return None;
        }
        let (xs, ys) = (
            a.file.min(b.file)..=a.file.max(b.file),
            a.rank.min(b.rank)..=a.rank.max(b.rank),
        );
        return Some(
            g.cells()
                .filter(|c| {
                    let i = g.info(*c);
                    i.board == a.board && xs.contains(&i.file) && ys.contains(&i.rank)
                })
                .collect(),
        );
    }
    let y = g.shape().rank_names.iter().position(|n| n == entry)?;
    Some(
        g.cells()
            .filter(|c| g.info(*c).rank as usize == y)
            .collect(),
    )
}

/// Builds the per-cell tables of the special powers on a single rectangular board (with
/// holes). The fold maps file `i` to `width - 1 - i` (B1): a cell is the 3-D point
/// `(u, r, layer)` with `u = min(i, w-1-i)` and `layer` 0 on the left half, 1 on the right.
fn build_special(g: &Geometry) -> SpecialTables {
    let n = g.len();
    let w = g.shape().width as i32;
    let mut st = SpecialTables {
        fold_steps: vec![Vec::new(); n],
        fold_orth: vec![Vec::new(); n],
        kills: vec![Vec::new(); n],
        killed_from: vec![Vec::new(); n],
        wazir: vec![Vec::new(); n],
        beyond: vec![[255; 4]; n],
    };
    let to3 = |f: i32, r: i32| -> (i32, i32, i32) {
        if f < w - 1 - f {
            (f, r, 0)
        } else {
            (w - 1 - f, r, 1)
        }
    };
    let half = w / 2;
    let from3 = |u: i32, r: i32, l: i32| -> Option<Cell> {
        if u < 0 || u >= (w + 1) / 2 || !(0..=1).contains(&l) {
            return None;
        }
        let f = if l == 0 { u } else { w - 1 - u };
        if l == 1 && f < half && w % 2 == 1 {
            return None;
        }
        g.at(0, f, r)
    };
    const WAZ: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    for cell in g.cells() {
        let info = g.info(cell);
        let (f, r) = (info.file as i32, info.rank as i32);
        let (u, rr, l) = to3(f, r);
        let mut steps = Vec::new();
        let mut orth = Vec::new();
        for du in -1..=1 {
            for dr in -1..=1 {
                for dl in -1..=1 {
                    let changed = (du != 0) as u8 + (dr != 0) as u8 + (dl != 0) as u8;
                    if changed == 0 || changed == 3 {
                        continue;
                    }
                    if let Some(c) = from3(u + du, rr + dr, l + dl)
                        && c != cell
                    {
                        let list = if changed == 2 { &mut steps } else { &mut orth };
                        if !list.contains(&c.0) {
                            list.push(c.0);
                        }
                    }
                }
            }
        }
        steps.sort_unstable();
        orth.sort_unstable();
        st.fold_steps[cell.index()] = steps;
        st.fold_orth[cell.index()] = orth;
        for (d, (dx, dy)) in WAZ.iter().enumerate() {
            if let Some(c) = g.at(0, f + dx, r + dy) {
                st.wazir[cell.index()].push((d as u8, c.0));
                if let Some(b) = g.at(0, f + 2 * dx, r + 2 * dy) {
                    st.beyond[cell.index()][d] = b.0;
                }
            }
        }
        // Camel kills along the alternating zigzag (B9): vertical (i+s, r+3L) via (i+s, r+L),
        // (i, r+2L); horizontal (i+3L, r+s) via (i+L, r+s), (i+2L, r).
        for s in [-1, 1] {
            for lz in [-1, 1] {
                let vertical = (
                    g.at(0, f + s, r + 3 * lz),
                    g.at(0, f + s, r + lz),
                    g.at(0, f, r + 2 * lz),
                );
                let horizontal = (
                    g.at(0, f + 3 * lz, r + s),
                    g.at(0, f + lz, r + s),
                    g.at(0, f + 2 * lz, r),
                );
                for (t, a, b) in [vertical, horizontal] {
                    if let (Some(t), Some(a), Some(b)) = (t, a, b) {
                        st.kills[cell.index()].push((t.0, a.0, b.0));
                        st.killed_from[t.index()].push((cell.0, a.0, b.0));
                    }
                }
            }
        }
    }
    st
}

fn build_geometry(
    file: &str,
    board: Option<&crate::spec::BoardSpec>,
) -> Result<Geometry, SpecError> {
    let err = |key: &str, problem: String| SpecError::new(file, key, problem);
    let b = board.ok_or_else(|| {
        err(
            "board",
            "missing; a variant needs [board] files and ranks".into(),
        )
    })?;
    let files = b
        .files
        .ok_or_else(|| err("board.files", "missing".into()))?;
    let ranks = b
        .ranks
        .ok_or_else(|| err("board.ranks", "missing".into()))?;
    let max = crate::types::MAX_FILES as u8;
    if files == 0 || ranks == 0 || files > max || ranks > max {
        return Err(err(
            "board",
            format!("{files}x{ranks}: files and ranks must each be between 1 and 26"),
        ));
    }
    let mut shape = Shape::rectangle(files, ranks);
    if let Some(n) = &b.file_names {
        shape.file_names = n.clone();
    }
    if let Some(n) = &b.rank_names {
        shape.rank_names = n.clone();
    }
    let join = |j: &Option<crate::spec::JoinSpec>| {
        j.map(|j| Join {
            shift: j.shift,
            mirror: j.mirror,
        })
    };
    shape.wrap_x = join(&b.wrap_files);
    shape.wrap_y = join(&b.wrap_ranks);
    shape.solid_blocks = b.solid_blocks.unwrap_or(false);
    for (key, names, out) in [
        ("board.seams", &b.seams, &mut shape.seams),
        ("board.rivers", &b.rivers, &mut shape.rivers),
    ] {
        for n in names.iter().flatten() {
            let y = shape
                .rank_names
                .iter()
                .position(|r| r == n)
                .filter(|y| y + 1 < ranks as usize)
                .ok_or_else(|| {
                    err(
                        key,
                        format!("{n:?} is not a rank below the top rank; name the rank the line runs above"),
                    )
                })?;
            out.push(y as u8);
        }
    }
    for n in b.file_seams.iter().flatten() {
        let x = shape
            .file_names
            .iter()
            .position(|f| f == n)
            .filter(|x| x + 1 < files as usize)
            .ok_or_else(|| {
                err(
                    "board.file_seams",
                    format!(
                        "{n:?} is not a file left of the last; name the file the seam runs right of"
                    ),
                )
            })?;
        shape.file_seams.push(x as u8);
    }
    // Holes are named with the plain file+rank names of the shape (before board prefixes).
    if let Some(holes) = &b.holes {
        let names: BTreeMap<String, (usize, usize)> = (0..ranks as usize)
            .flat_map(|y| (0..files as usize).map(move |x| (x, y)))
            .filter(|(x, y)| *x < shape.file_names.len() && *y < shape.rank_names.len())
            .map(|(x, y)| {
                (
                    format!("{}{}", shape.file_names[x], shape.rank_names[y]),
                    (x, y),
                )
            })
            .collect();
        for h in holes {
            let (x, y) = names
                .get(h)
                .ok_or_else(|| err("board.holes", format!("{h:?} is not a cell of the board")))?;
            shape.present[*y][*x] = false;
        }
    }
    let copies = b.boards.clone().unwrap_or_default();
    Geometry::new(shape, &copies).map_err(|e| err("board", e.to_string()))
}
