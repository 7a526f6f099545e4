//! The referee's full state and the execution of orders.

use std::{
    collections::HashMap,
    hash::{DefaultHasher, Hash, Hasher},
    sync::Arc,
};

use super::{
    back_rank::BackRank,
    facts::{Fact, Public},
    order::{Order, OrderTextError},
};
use crate::{
    Cell, Kind, Piece, Side, Variant,
    tables::{F_CAPTURE, F_DOUBLE, F_MOVE, LEAPS, RIDE},
};

/// Strikes that lose the game.
pub const STRIKE_LIMIT: u8 = 3;

/// The two worlds: Real (board 0) is White's, Mirror (board 1) is Black's.
pub const REAL: u8 = 0;
/// See [`REAL`].
pub const MIRROR: u8 = 1;

/// The world `side` sees (and set up on).
pub const fn world_of(side: Side) -> u8 {
    side.0
}

/// The game's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GlassRules {
    /// The optional "no strikes" rule: an impossible blind order forfeits the turn, and the
    /// opponent chooses the offender's move.
    pub no_strikes: bool,
}

/// How a Looking-Glass game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlassOutcome {
    /// `winner` captured the opponent's King.
    KingCaptured {
        /// Who won.
        winner: Side,
    },
    /// The loser's third strike.
    Strikes {
        /// Who won.
        winner: Side,
    },
    /// The player to move has no move on either world.
    Stalemate,
    /// The same full state (both worlds, side to move, rights) a third time.
    Repetition,
    /// 100 plies without a capture or a Pawn move.
    FiftyMoves,
}

impl GlassOutcome {
    /// The winner, if any.
    pub fn winner(self) -> Option<Side> {
        match self {
            GlassOutcome::KingCaptured { winner } | GlassOutcome::Strikes { winner } => {
                Some(winner)
            }
            _ => None,
        }
    }

    /// Why, in a few words.
    pub fn reason(self) -> &'static str {
        match self {
            GlassOutcome::KingCaptured { .. } => "King captured",
            GlassOutcome::Strikes { .. } => "third strike",
            GlassOutcome::Stalemate => "stalemate",
            GlassOutcome::Repetition => "repetition",
            GlassOutcome::FiftyMoves => "the fifty-move rule",
        }
    }
}

/// A Looking-Glass text (a state, a view, a recorded action) that does not read. Its message
/// may quote the text, which can be a secret back rank or order: not for logs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GlassTextError(String);

/// A record that does not replay: the first action that fails, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("action {} does not replay: {error}", .index + 1)]
pub struct ReplayError {
    /// The action's index in the record, from 0.
    pub index: usize,
    /// Why (quoting the action: not for logs).
    #[source]
    pub error: GlassTextError,
}

/// An order refused without consequence (nothing changes, no strike).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The text is not an order.
    #[error(transparent)]
    Text(#[from] OrderTextError),
    /// Not this player's turn, or the game is not in play.
    #[error("{0}")]
    NotNow(String),
    /// An illegal move on the world the player sees (validated normally, no strike).
    #[error("{0}")]
    Illegal(String),
}

/// What one action did: the facts for each player and for everyone, and the text the game's
/// record keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The record's text of the action (`w R:e2e4`, `b setup RNBQKBNR`).
    pub action: String,
    /// What each player is told, by side index.
    pub told: [Vec<Fact>; 2],
    /// What everybody may know.
    pub public: Vec<Public>,
    /// The end of the game, when this action ended it.
    pub outcome: Option<GlassOutcome>,
}

/// The en-passant right after a full two-step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct EnPassant {
    /// The side whose Pawn made the two-step.
    side: Side,
    /// The skipped square, on the world where the two-step was made.
    skipped: Cell,
    /// Where the Pawn stands now (after a transfer, on the other world).
    victim: Cell,
}

/// Everything a player sees: his world and his own pieces on the other one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerView {
    /// The player.
    pub side: Side,
    /// Every piece on his world (both colours).
    pub world: Vec<(Cell, Piece)>,
    /// His own pieces on the other world, as last reported to him.
    pub elsewhere: Vec<(Cell, Piece)>,
    /// Strikes of White and Black (public).
    pub strikes: [u8; 2],
    /// Pieces each side has captured (public), by capturer.
    pub captured: [Vec<Kind>; 2],
    /// Whose order is awaited, if the game is in play.
    pub to_move: Option<Side>,
}

impl PlayerView {
    /// The view as text, the only thing a private board picture carries (so a picture can
    /// never hold more than its viewer may see): `view w | R:<board> | M:<board> | strikes
    /// 0,1 | captured QN,P | turn b`, where the unseen world lists only the viewer's pieces
    /// and `captured` lists what White, then Black, has taken.
    pub fn text(&self, v: &Variant) -> String {
        let piece_at = |c: Cell| {
            self.world
                .iter()
                .chain(&self.elsewhere)
                .find(|(x, _)| *x == c)
                .map(|(_, p)| *p)
        };
        let board = crate::fen::write_board(v, piece_at);
        let (r, m) = board.split_once('|').unwrap_or((&board, ""));
        let taken = |side: usize| -> String {
            let s: String = self.captured[side]
                .iter()
                .map(|k| v.piece(*k).letter)
                .collect();
            if s.is_empty() { "-".into() } else { s }
        };
        format!(
            "view {} | R:{r} | M:{m} | strikes {},{} | captured {},{} | turn {}",
            letter(self.side),
            self.strikes[0],
            self.strikes[1],
            taken(0),
            taken(1),
            self.to_move.map_or('-', letter)
        )
    }

    /// Reads [`PlayerView::text`] back.
    ///
    /// # Errors
    /// [`GlassTextError`], saying what is wrong with the text.
    pub fn parse(v: &Variant, text: &str) -> Result<PlayerView, GlassTextError> {
        Self::parse_text(v, text).map_err(GlassTextError)
    }

    fn parse_text(v: &Variant, text: &str) -> Result<PlayerView, String> {
        let f: Vec<&str> = text.split('|').map(str::trim).collect();
        let [side, r, m, strikes, captured, turn] = f.as_slice() else {
            return Err(format!("{text:?}: not a player's view"));
        };
        let side_of = |t: &str| match t {
            "w" => Ok(Side::WHITE),
            "b" => Ok(Side::BLACK),
            _ => Err(format!("{t:?}: w or b")),
        };
        let side = side_of(side.strip_prefix("view ").ok_or("view w|b")?)?;
        let boards = format!(
            "{}|{}",
            r.strip_prefix("R:").ok_or("R:<board>")?,
            m.strip_prefix("M:").ok_or("M:<board>")?
        );
        let codes = crate::fen::parse_board(&v.geometry, &v.pieces, v.sides, &boards)
            .map_err(|e| e.to_string())?;
        let mut world = Vec::new();
        let mut elsewhere = Vec::new();
        for (i, code) in codes.into_iter().enumerate() {
            let c = Cell(i as u8);
            if let Some(p) = Piece::from_code(code) {
                if v.geometry.info(c).board == world_of(side) {
                    world.push((c, p));
                } else if p.side == side {
                    elsewhere.push((c, p));
                } else {
                    return Err(format!(
                        "{}: an opponent's piece on the unseen world",
                        v.geometry.name(c)
                    ));
                }
            }
        }
        let (sw, sb) = strikes
            .strip_prefix("strikes ")
            .and_then(|s| s.split_once(','))
            .ok_or("strikes W,B")?;
        let (cw, cb) = captured
            .strip_prefix("captured ")
            .and_then(|s| s.split_once(','))
            .ok_or("captured W,B")?;
        let kinds =
            |t: &str| -> Vec<Kind> { t.chars().filter_map(|c| v.kind_by_letter(c)).collect() };
        Ok(PlayerView {
            side,
            world,
            elsewhere,
            strikes: [
                sw.parse().map_err(|_| "strikes W,B")?,
                sb.parse().map_err(|_| "strikes W,B")?,
            ],
            captured: [kinds(cw), kinds(cb)],
            to_move: match turn.strip_prefix("turn ") {
                Some("-") => None,
                Some(t) => Some(side_of(t)?),
                None => return Err("turn w|b|-".into()),
            },
        })
    }
}

/// Where the game is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Waiting for back ranks: which sides have chosen.
    Setup([bool; 2]),
    /// In play.
    Play,
    /// Over.
    Over(GlassOutcome),
}

/// A piece's move after execution, before the facts are told.
struct Done {
    giver: Side,
    piece: Piece,
    from: Cell,
    ordered: Cell,
    stop: Cell,
    promotion: Option<Kind>,
    capture: Option<(Piece, Cell)>,
}

/// The referee's full state of a Looking-Glass game. Only the referee sees it; players get
/// [`Glass::view`] and the facts of each [`Report`].
///
/// A separate type from [`crate::Position`] because the game's mechanics (pieces falling
/// between worlds, orders carried out as far as possible, strikes, no check) are not rule
/// primitives of ordinary variants; it reuses the engine's geometry and movement tables.
///
/// # Examples
///
/// ```
/// use rules::{Side, glass::{BackRank, Glass, GlassRules, Refusal}};
///
/// let mut game = Glass::new(GlassRules::default());
/// // Orders wait until both players have chosen their secret back ranks.
/// assert!(matches!(game.order(Side::WHITE, "e2e4"), Err(Refusal::NotNow(_))));
/// game.choose(Side::WHITE, BackRank::orthodox())?;
/// game.choose(Side::BLACK, BackRank::orthodox())?;
/// let report = game.order(Side::WHITE, "e2e4")?;
/// assert!(!report.told[0].is_empty()); // White is told what happened
/// assert_eq!(game.turn(), Side::BLACK);
/// // The state text restores the whole game, secrets included.
/// let again = Glass::from_state(GlassRules::default(), &game.state_text()).unwrap();
/// assert_eq!(again.state_text(), game.state_text());
/// # Ok::<_, Refusal>(())
/// ```
#[derive(Debug, Clone)]
pub struct Glass {
    variant: Arc<Variant>,
    rules: GlassRules,
    board: Vec<Option<Piece>>,
    setups: [Option<BackRank>; 2],
    turn: Side,
    /// "No strikes" rule: `turn` is choosing a move for the other side's army.
    forced: bool,
    /// King start cells while the King has not moved.
    kings: [Option<Cell>; 2],
    /// Rook start cells with a castling right.
    rooks: Vec<Cell>,
    ep: Option<EnPassant>,
    strikes: [u8; 2],
    captured: [Vec<Kind>; 2],
    halfmoves: u32,
    fullmoves: u32,
    phase: Phase,
    repetitions: HashMap<u64, u8>,
    told: [Vec<Fact>; 2],
    record: Vec<String>,
}

fn letter(side: Side) -> char {
    if side == Side::WHITE { 'w' } else { 'b' }
}

impl Glass {
    /// A new game waiting for both back ranks.
    pub fn new(rules: GlassRules) -> Glass {
        Glass::with_variant(super::variant(), rules)
    }

    /// A new game over a variant already built by [`super::variant`] (saves rebuilding its
    /// tables for every game a service replays).
    pub fn with_variant(variant: Arc<Variant>, rules: GlassRules) -> Glass {
        let n = variant.geometry.len();
        Glass {
            variant,
            rules,
            board: vec![None; n],
            setups: [None, None],
            turn: Side::WHITE,
            forced: false,
            kings: [None, None],
            rooks: Vec::new(),
            ep: None,
            strikes: [0, 0],
            captured: [Vec::new(), Vec::new()],
            halfmoves: 0,
            fullmoves: 1,
            phase: Phase::Setup([false, false]),
            repetitions: HashMap::new(),
            told: [Vec::new(), Vec::new()],
            record: Vec::new(),
        }
    }

    /// Rebuilds a game from its record (the texts of [`Report::action`], in order).
    ///
    /// # Errors
    /// [`ReplayError`]: the first action that does not replay, with its index.
    pub fn replay(
        variant: Arc<Variant>,
        rules: GlassRules,
        record: &[String],
    ) -> Result<Glass, ReplayError> {
        let mut g = Glass::with_variant(variant, rules);
        for (i, a) in record.iter().enumerate() {
            g.apply_action(a)
                .map_err(|error| ReplayError { index: i, error })?;
        }
        Ok(g)
    }

    /// Applies one recorded action.
    ///
    /// # Errors
    /// [`GlassTextError`] when the text is not a valid action here.
    pub fn apply_action(&mut self, action: &str) -> Result<Report, GlassTextError> {
        self.apply_action_text(action).map_err(GlassTextError)
    }

    fn apply_action_text(&mut self, action: &str) -> Result<Report, String> {
        let (who, rest) = action
            .split_once(' ')
            .ok_or_else(|| format!("{action:?}: no side"))?;
        let side = match who {
            "w" => Side::WHITE,
            "b" => Side::BLACK,
            _ => return Err(format!("{action:?}: no side")),
        };
        if let Some(rank) = rest.strip_prefix("setup ") {
            let r = BackRank::parse(rank).map_err(|e| e.to_string())?;
            self.choose(side, r).map_err(|e| e.to_string())
        } else {
            self.order(side, rest).map_err(|e| e.to_string())
        }
    }

    /// The variant (geometry, piece names) of the game.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The options.
    pub fn rules(&self) -> GlassRules {
        self.rules
    }

    /// Where the game is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whose order is awaited (under the "no strikes" rule, possibly a move for the other army).
    pub fn turn(&self) -> Side {
        self.turn
    }

    /// Whether the player to move is choosing a move for the opponent's army.
    pub fn is_forced(&self) -> bool {
        self.forced
    }

    /// Strikes of White and Black.
    pub fn strikes(&self) -> [u8; 2] {
        self.strikes
    }

    /// The back rank a side chose (secret until the end).
    pub fn setup(&self, side: Side) -> Option<&BackRank> {
        self.setups[side.index()].as_ref()
    }

    /// The record so far: every action in order.
    pub fn record(&self) -> &[String] {
        &self.record
    }

    /// Everything `side` has been told, in order.
    pub fn told(&self, side: Side) -> &[Fact] {
        &self.told[side.index()]
    }

    /// The piece on a cell (the referee's knowledge).
    pub fn piece_at(&self, cell: Cell) -> Option<Piece> {
        self.board[cell.index()]
    }

    /// The other world's cell connected to `cell`.
    pub fn portal(&self, cell: Cell) -> Cell {
        let g = &self.variant.geometry;
        let i = g.info(cell);
        g.at(1 - i.board, i.file as i32, i.rank as i32)
            .expect("both worlds have every square")
    }

    /// Which world a cell is on.
    pub fn world(&self, cell: Cell) -> u8 {
        self.variant.geometry.info(cell).board
    }

    /// Exactly what `side` sees.
    pub fn view(&self, side: Side) -> PlayerView {
        let mine = world_of(side);
        let mut world = Vec::new();
        let mut elsewhere = Vec::new();
        for c in self.variant.geometry.cells() {
            if let Some(p) = self.board[c.index()] {
                if self.world(c) == mine {
                    world.push((c, p));
                } else if p.side == side {
                    elsewhere.push((c, p));
                }
            }
        }
        PlayerView {
            side,
            world,
            elsewhere,
            strikes: self.strikes,
            captured: self.captured.clone(),
            to_move: matches!(self.phase, Phase::Play).then_some(self.turn),
        }
    }

    /// The full state as text, for the final reveal and for tests:
    /// `R:<board> | M:<board> | w | strikes 0,1 | castle R:a1,R:h1` (castling: the Rook
    /// squares that still have their right; `-` for none).
    pub fn state_text(&self) -> String {
        let v = &self.variant;
        let board = crate::fen::write_board(v, |c| self.board[c.index()]);
        let (r, m) = board.split_once('|').unwrap_or((&board, ""));
        let castle: Vec<&str> = self
            .rooks
            .iter()
            .filter(|c| {
                self.kings
                    .iter()
                    .flatten()
                    .any(|k| self.world(*k) == self.world(**c))
            })
            .map(|c| v.geometry.name(*c))
            .collect();
        format!(
            "R:{r} | M:{m} | {} | strikes {},{} | castle {}",
            letter(self.turn),
            self.strikes[0],
            self.strikes[1],
            if castle.is_empty() {
                "-".to_string()
            } else {
                castle.join(",")
            }
        )
    }

    /// A game in play from a state text in the form of [`Glass::state_text`] (for tests and
    /// puzzles; a played game is always rebuilt from its record). A King on its home row of
    /// its home world keeps the castling rights listed.
    ///
    /// # Errors
    /// [`GlassTextError`], saying what is wrong with the text.
    pub fn from_state(rules: GlassRules, text: &str) -> Result<Glass, GlassTextError> {
        Self::from_state_text(rules, text).map_err(GlassTextError)
    }

    fn from_state_text(rules: GlassRules, text: &str) -> Result<Glass, String> {
        let mut g = Glass::new(rules);
        let fields: Vec<&str> = text.split('|').map(str::trim).collect();
        let [r, m, turn, strikes, rest @ ..] = fields.as_slice() else {
            return Err(
                "expected R:<board> | M:<board> | w|b | strikes W,B [| castle LIST]".into(),
            );
        };
        let boards = format!(
            "{}|{}",
            r.strip_prefix("R:")
                .ok_or("the first board starts with R:")?,
            m.strip_prefix("M:")
                .ok_or("the second board starts with M:")?
        );
        let v = g.variant.clone();
        let codes = crate::fen::parse_board(&v.geometry, &v.pieces, v.sides, &boards)
            .map_err(|e| e.to_string())?;
        g.board = codes.into_iter().map(Piece::from_code).collect();
        g.turn = match *turn {
            "w" => Side::WHITE,
            "b" => Side::BLACK,
            t => return Err(format!("side to move {t:?}: w or b")),
        };
        let (sw, sb) = strikes
            .strip_prefix("strikes ")
            .and_then(|s| s.split_once(','))
            .ok_or("strikes W,B")?;
        g.strikes = [
            sw.trim().parse().map_err(|_| "strikes W,B")?,
            sb.trim().parse().map_err(|_| "strikes W,B")?,
        ];
        if let Some(list) = rest.first().and_then(|c| c.strip_prefix("castle ")) {
            for name in list.split(',').filter(|n| *n != "-") {
                let cell = v
                    .geometry
                    .parse(name.trim())
                    .ok_or_else(|| format!("castle: no square {name}"))?;
                g.rooks.push(cell);
            }
        }
        g.find_kings();
        g.phase = Phase::Play;
        let key = g.key();
        g.repetitions.insert(key, 1);
        Ok(g)
    }

    /// A game in play from pieces already resolved to cells: what [`Glass::from_state`] does
    /// without the text, for callers that build many games (an engine trying hidden worlds it
    /// imagines builds one per sample and per decision). `castle` lists the Rook squares that
    /// keep a castling right; a King on its home row of its home world keeps its right.
    pub fn from_pieces(
        variant: Arc<Variant>,
        rules: GlassRules,
        pieces: &[(Cell, Piece)],
        turn: Side,
        strikes: [u8; 2],
        castle: &[Cell],
    ) -> Glass {
        let mut g = Glass::with_variant(variant, rules);
        for (c, p) in pieces {
            if let Some(slot) = g.board.get_mut(c.index()) {
                *slot = Some(*p);
            }
        }
        g.turn = turn;
        g.strikes = strikes;
        g.rooks = castle.to_vec();
        g.find_kings();
        g.phase = Phase::Play;
        let key = g.key();
        g.repetitions.insert(key, 1);
        g
    }

    /// Each side's King start cell: a King on its home row of its home world.
    fn find_kings(&mut self) {
        let v = self.variant.clone();
        for side in [Side::WHITE, Side::BLACK] {
            let home = if side == Side::WHITE { 0 } else { 7 };
            self.kings[side.index()] = v.geometry.cells().find(|c| {
                let i = v.geometry.info(*c);
                i.board == world_of(side)
                    && i.rank == home
                    && self.board[c.index()]
                        .is_some_and(|p| p.side == side && v.piece(p.kind).royal)
            });
        }
    }

    // ----- setup -------------------------------------------------------------------------

    /// A player's secret back rank. The game starts when both have chosen.
    ///
    /// # Errors
    /// When the game is past its setup, or this side has chosen already.
    pub fn choose(&mut self, side: Side, rank: BackRank) -> Result<Report, Refusal> {
        let Phase::Setup(mut chosen) = self.phase else {
            return Err(Refusal::NotNow(
                "The back ranks are chosen already; the game is under way.".into(),
            ));
        };
        if chosen[side.index()] {
            return Err(Refusal::NotNow(format!(
                "You chose {} already; wait for your opponent.",
                self.setups[side.index()]
                    .as_ref()
                    .map(BackRank::letters)
                    .unwrap_or("")
            )));
        }
        chosen[side.index()] = true;
        let variant = self.variant.clone();
        let g = &variant.geometry;
        let world = world_of(side);
        let (back, pawns) = if side == Side::WHITE { (0, 1) } else { (7, 6) };
        for (file, l) in rank.letters().chars().enumerate() {
            let kind = self
                .variant
                .kind_by_letter(l)
                .expect("back ranks use K Q R B N");
            let cell = g.at(world, file as i32, back).expect("8 files");
            self.board[cell.index()] = Some(Piece { side, kind });
            if l == 'K' {
                self.kings[side.index()] = Some(cell);
            } else if l == 'R' {
                self.rooks.push(cell);
            }
            let pawn = self.variant.kind_by_letter('P').expect("pawn");
            let pc = g.at(world, file as i32, pawns).expect("8 files");
            self.board[pc.index()] = Some(Piece { side, kind: pawn });
        }
        let action = format!("{} setup {}", letter(side), rank.letters());
        self.setups[side.index()] = Some(rank);
        self.record.push(action.clone());
        let mut public = vec![Public::SetUp(side)];
        if chosen == [true, true] {
            self.phase = Phase::Play;
            let key = self.key();
            self.repetitions.insert(key, 1);
            public.push(Public::Started);
        } else {
            self.phase = Phase::Setup(chosen);
        }
        Ok(Report {
            action,
            told: [Vec::new(), Vec::new()],
            public,
            outcome: None,
        })
    }

    // ----- orders ------------------------------------------------------------------------

    /// An order given by `by` (text as typed). Moves on the world `by` sees are validated
    /// normally; orders for the world he cannot see are carried out as far as possible, and
    /// an impossible one is a strike (or, with "no strikes", forfeits the turn).
    ///
    /// # Errors
    /// A [`Refusal`] when nothing happened (not his turn, unreadable, illegal on his world).
    pub fn order(&mut self, by: Side, text: &str) -> Result<Report, Refusal> {
        match self.phase {
            Phase::Setup(_) => {
                return Err(Refusal::NotNow(
                    "The game has not started: both players choose a back rank first.".into(),
                ));
            }
            Phase::Over(o) => {
                return Err(Refusal::NotNow(format!(
                    "The game is over ({}).",
                    o.reason()
                )));
            }
            Phase::Play => {}
        }
        if by != self.turn {
            return Err(Refusal::NotNow(format!(
                "It is not your turn; {} is to move.",
                self.turn.name(2)
            )));
        }
        let order = Order::parse(&self.variant.geometry, world_of(by), text)?;
        let army = if self.forced { other(by) } else { by };
        let action = format!("{} {}", letter(by), order.text(&self.variant.geometry));
        match self.execute(by, army, order) {
            Ok(mut report) => {
                report.action = action.clone();
                self.record.push(action);
                self.finish_turn(army, &mut report);
                for s in 0..2 {
                    self.told[s].extend(report.told[s].iter().cloned());
                }
                Ok(report)
            }
            // `execute` checks everything before it changes anything.
            Err(Failed::Refused(why)) => Err(Refusal::Illegal(why)),
            Err(Failed::Impossible) => {
                let report = self.impossible(by, army, &order, action);
                for s in 0..2 {
                    self.told[s].extend(report.told[s].iter().cloned());
                }
                Ok(report)
            }
        }
    }

    /// Whether `side` has a complete legal move on `world` (the free "ask" query).
    pub fn has_move_on(&self, side: Side, world: u8) -> bool {
        let mut any = false;
        self.each_move(side, world, |_, _| {
            any = true;
            false
        });
        any || (world == world_of(side)
            && [false, true]
                .into_iter()
                .any(|long| self.castling_cells(side, long).is_some()))
    }

    /// Every complete legal move of `side`'s pieces on `world`, as order texts (`R:e2e4`,
    /// `O-O`). Partial executions are not listed: this is the referee's list.
    pub fn moves_on(&self, side: Side, world: u8) -> Vec<String> {
        let g = &self.variant.geometry;
        let pawn = self.variant.kind_by_letter('P');
        let mut out = Vec::new();
        self.each_move(side, world, |from, to| {
            let base = format!("{}{}", g.name(from), &g.name(to)[2..]);
            let promotes =
                self.board[from.index()].map(|p| p.kind) == pawn && self.last_rank(side, to);
            if promotes {
                out.extend(['q', 'r', 'b', 'n'].map(|l| format!("{base}{l}")));
            } else {
                out.push(base);
            }
            true
        });
        if world == world_of(side) {
            for long in [false, true] {
                if self.castling_cells(side, long).is_some() {
                    out.push(if long { "O-O-O" } else { "O-O" }.into());
                }
            }
        }
        out
    }

    /// Calls `f(from, to)` for every complete move (castling aside) of `side` on `world`
    /// until it returns false.
    fn each_move(&self, side: Side, world: u8, mut f: impl FnMut(Cell, Cell) -> bool) {
        let t = &self.variant.tables;
        let pawn = self.variant.kind_by_letter('P');
        for from in self.variant.geometry.cells() {
            let Some(p) = self.board[from.index()] else {
                continue;
            };
            if p.side != side || self.world(from) != world {
                continue;
            }
            let (a, b) = t.index[t.slot(p.kind.index(), side.index(), from.index())];
            for path in &t.paths[a as usize..b as usize] {
                let cells = &t.cells[path.start as usize
                    ..(path.start + path.pre as u32 + path.len as u32) as usize];
                let (pre, land) = cells.split_at(path.pre as usize);
                if pre.iter().any(|c| self.board[*c as usize].is_some()) {
                    continue;
                }
                for &to in land {
                    let target = self.board[to as usize];
                    let ok = match target {
                        None => {
                            path.flags & F_MOVE != 0
                                || self.ep.is_some_and(|e| {
                                    e.side != side && e.skipped == Cell(to) && Some(p.kind) == pawn
                                })
                        }
                        Some(q) => q.side != side && path.flags & F_CAPTURE != 0,
                    };
                    if ok && !f(from, Cell(to)) {
                        return;
                    }
                    if path.kind == RIDE && target.is_some() {
                        break;
                    }
                }
            }
        }
    }

    fn last_rank(&self, side: Side, cell: Cell) -> bool {
        let rank = self.variant.geometry.info(cell).rank;
        rank == if side == Side::WHITE { 7 } else { 0 }
    }

    /// King start, King target, Rook start, Rook target of a castling, if it is possible now.
    fn castling_cells(&self, side: Side, long: bool) -> Option<(Cell, Cell, Cell, Cell)> {
        let g = &self.variant.geometry;
        let king = self.kings[side.index()]?;
        let k = self.board[king.index()]?;
        if k.side != side || self.variant.kind_by_letter('K') != Some(k.kind) {
            return None;
        }
        let ki = g.info(king);
        let rook = self.rooks.iter().copied().find(|r| {
            let ri = g.info(*r);
            ri.board == ki.board
                && ri.rank == ki.rank
                && ((ri.file < ki.file) == long)
                && self.board[r.index()].is_some_and(|p| p.side == side)
        })?;
        let (kf, rf) = if long { (2, 3) } else { (6, 5) };
        let kt = g.at(ki.board, kf, ki.rank as i32)?;
        let rt = g.at(ki.board, rf, ki.rank as i32)?;
        let span = |a: u8, b: u8| a.min(b)..=a.max(b);
        let rfile = g.info(rook).file;
        let mut files: Vec<u8> = span(ki.file, kf as u8)
            .chain(span(rfile, rf as u8))
            .collect();
        files.dedup();
        for f in files {
            let c = g.at(ki.board, f as i32, ki.rank as i32)?;
            if c != king && c != rook && self.board[c.index()].is_some() {
                return None;
            }
        }
        Some((king, kt, rook, rt))
    }

    fn execute(&mut self, giver: Side, army: Side, order: Order) -> Result<Report, Failed> {
        let mut report = Report {
            action: String::new(),
            told: [Vec::new(), Vec::new()],
            public: vec![Public::Moved { army, by: giver }],
            outcome: None,
        };
        let variant = self.variant.clone();
        let g = &variant.geometry;
        let (from, to, promotion) = match order {
            Order::Castle { long } => {
                let world = world_of(army);
                let seen = world == world_of(giver);
                let Some((k, kt, r, rt)) = self.castling_cells(army, long) else {
                    return Err(if seen {
                        Failed::Refused(format!(
                            "{} cannot castle {} now: the King and that Rook must not have moved, and the squares between them and their targets must be empty.",
                            if army == giver {
                                "You".to_string()
                            } else {
                                army.name(2).to_string()
                            },
                            if long { "long (O-O-O)" } else { "short (O-O)" }
                        ))
                    } else {
                        Failed::Impossible
                    });
                };
                let king = self.board[k.index()].take().expect("king");
                let rook = self.board[r.index()].take().expect("rook");
                self.board[kt.index()] = Some(king);
                self.board[rt.index()] = Some(rook);
                self.kings[army.index()] = None;
                let home = g.info(k).rank;
                self.rooks
                    .retain(|c| g.info(*c).board != world || g.info(*c).rank != home);
                self.ep = None;
                self.halfmoves += 1;
                for (piece, from, to) in [(king, k, kt), (rook, r, rt)] {
                    self.tell_move(
                        &mut report,
                        Done {
                            giver,
                            piece,
                            from,
                            ordered: to,
                            stop: to,
                            promotion: None,
                            capture: None,
                        },
                    );
                }
                for (piece, at) in [(king, kt), (rook, rt)] {
                    self.transfer(&mut report, piece, at);
                }
                return Ok(report);
            }
            Order::Move {
                from,
                to,
                promotion,
            } => (from, to, promotion),
        };
        let world = self.world(from);
        let seen = world == world_of(giver);
        let refuse = |why: String| {
            if seen {
                Failed::Refused(why)
            } else {
                Failed::Impossible
            }
        };
        let Some(piece) = self.board[from.index()].filter(|p| p.side == army) else {
            return Err(refuse(if army == giver {
                format!("There is no piece of yours on {}.", g.name(from))
            } else {
                format!("There is no {} piece on {}.", army.name(2), g.name(from))
            }));
        };
        let pawn = self.variant.kind_by_letter('P') == Some(piece.kind);
        let promoting = pawn && self.last_rank(army, to);
        let promotion = match (promoting, promotion) {
            (true, Some(l)) => self.variant.kind_by_letter(l),
            (true, None) if giver == army => {
                return Err(Failed::Refused(format!(
                    "Name the piece the Pawn becomes: {}q (or r, b, n).",
                    Order::Move {
                        from,
                        to,
                        promotion: None
                    }
                    .text(g)
                )));
            }
            (true, None) => self.variant.kind_by_letter('Q'),
            (false, Some(_)) if seen => {
                return Err(Failed::Refused(
                    "Only a Pawn reaching the last rank promotes; leave out the letter.".into(),
                ));
            }
            (false, _) => None,
        };
        // The chooser of a forfeited turn (no strikes) moves the opponent's army.
        let name = format!(
            "{} {}",
            if army == giver {
                "Your".to_string()
            } else {
                format!("{}'s", army.name(2))
            },
            self.variant.piece(piece.kind).name
        );
        let (stop, capture_cell, double) = self.trace(army, piece, from, to).map_err(|why| {
            refuse(format!(
                "{name} on {} cannot go to {}: {why}.",
                g.name(from),
                g.name(to)
            ))
        })?;
        if seen && stop != to {
            return Err(Failed::Refused(format!(
                "{name} on {} cannot reach {}: the way is blocked.",
                g.name(from),
                g.name(to)
            )));
        }
        // Execute: capture, move, promote.
        let capture = capture_cell.map(|c| {
            let victim = self.board[c.index()].take().expect("a piece to capture");
            (victim, c)
        });
        self.board[from.index()] = None;
        let landed = Piece {
            side: army,
            kind: if stop == to {
                promotion.unwrap_or(piece.kind)
            } else {
                piece.kind
            },
        };
        self.board[stop.index()] = Some(landed);
        // Rights.
        if self.kings[army.index()] == Some(from) {
            self.kings[army.index()] = None;
        }
        self.rooks
            .retain(|c| *c != from && Some(*c) != capture.map(|(_, x)| x));
        if capture.is_some() || pawn {
            self.halfmoves = 0;
        } else {
            self.halfmoves += 1;
        }
        let done = Done {
            giver,
            piece,
            from,
            ordered: to,
            stop,
            promotion: if stop == to { promotion } else { None },
            capture,
        };
        self.tell_move(&mut report, done);
        if let Some((victim, _)) = capture {
            self.captured[army.index()].push(victim.kind);
            report.public.push(Public::Captured {
                owner: victim.side,
                kind: victim.kind,
            });
            if self.variant.piece(victim.kind).royal {
                self.phase = Phase::Over(GlassOutcome::KingCaptured { winner: army });
            }
        }
        let now = self.transfer(&mut report, landed, stop);
        self.ep = double.filter(|_| stop == to).map(|skipped| EnPassant {
            side: army,
            skipped,
            victim: now,
        });
        Ok(report)
    }

    /// Follows an order on the board: where the piece stops, the square of what it captures
    /// (elsewhere for en passant), and the skipped square of a full two-step.
    fn trace(
        &self,
        side: Side,
        piece: Piece,
        from: Cell,
        to: Cell,
    ) -> Result<(Cell, Option<Cell>, Option<Cell>), &'static str> {
        let t = &self.variant.tables;
        let (a, b) = t.index[t.slot(piece.kind.index(), side.index(), from.index())];
        let at = |c: Cell| self.board[c.index()];
        for path in &t.paths[a as usize..b as usize] {
            let cells: Vec<Cell> = t.cells
                [path.start as usize..(path.start + path.pre as u32 + path.len as u32) as usize]
                .iter()
                .map(|c| Cell(*c))
                .collect();
            let (pre, land) = cells.split_at(path.pre as usize);
            let Some(i) = land.iter().position(|c| *c == to) else {
                continue;
            };
            if path.kind == RIDE {
                for (j, c) in land[..=i].iter().enumerate() {
                    match at(*c) {
                        None => {}
                        Some(p) if p.side != side => return Ok((*c, Some(*c), None)),
                        Some(_) if j == 0 => return Err("a piece of yours stands in the way"),
                        Some(_) => return Ok((land[j - 1], None, None)),
                    }
                }
                return Ok((to, None, None));
            }
            debug_assert_eq!(path.kind, LEAPS);
            if path.flags & F_DOUBLE != 0 {
                let skipped = pre[0];
                if at(skipped).is_some() {
                    return Err("the square in front of the Pawn is occupied");
                }
                if at(to).is_some() {
                    // A two-step whose second square is held becomes a one-step.
                    return Ok((skipped, None, None));
                }
                return Ok((to, None, Some(skipped)));
            }
            let moves = path.flags & F_MOVE != 0;
            let captures = path.flags & F_CAPTURE != 0;
            return match at(to) {
                None if moves => Ok((to, None, None)),
                None => match self.ep {
                    Some(e) if e.side != side && e.skipped == to => Ok((to, Some(e.victim), None)),
                    _ => Err("a Pawn captures only onto an enemy piece (or en passant)"),
                },
                Some(p) if p.side != side && captures => Ok((to, Some(to), None)),
                Some(p) if p.side != side => Err("a Pawn cannot capture straight ahead"),
                Some(_) => Err("a piece of yours stands there"),
            };
        }
        Err("it does not move that way")
    }

    /// Tells both players a move that has been made on the board (before any transfer).
    fn tell_move(&self, report: &mut Report, d: Done) {
        let world = self.world(d.from);
        let viewer = Side(world);
        let blind = other(viewer);
        report.told[viewer.index()].push(Fact::Seen {
            piece: d.piece,
            from: d.from,
            to: d.stop,
            promotion: d.promotion,
        });
        if blind == d.giver || blind == d.piece.side {
            report.told[blind.index()].push(Fact::Carried {
                piece: d.piece,
                from: d.from,
                ordered: d.ordered,
                to: d.stop,
                promotion: d.promotion,
            });
        } else {
            report.told[blind.index()].push(Fact::Asked { cell: d.stop });
        }
        if let Some((victim, cell)) = d.capture {
            for s in 0..2 {
                report.told[s].push(Fact::Captured {
                    piece: victim,
                    cell,
                });
            }
        }
    }

    /// The transfer check for the piece that stopped on `at`; returns where it stands now.
    fn transfer(&mut self, report: &mut Report, piece: Piece, at: Cell) -> Cell {
        let there = self.portal(at);
        let here_viewer = Side(self.world(at));
        if self.board[there.index()].is_some() {
            // Both know: the mover asked (or, ordering blind, sees the occupied square
            // himself), and the other answered (or watches the piece stay on his world).
            for s in 0..2 {
                report.told[s].push(Fact::Stayed { cell: at });
            }
            return at;
        }
        self.board[at.index()] = None;
        self.board[there.index()] = Some(piece);
        for s in 0..2 {
            report.told[s].push(Fact::Transferred {
                piece,
                from: at,
                to: there,
            });
        }
        // The world-change announcement goes to the player who cannot see the arrival.
        report.told[here_viewer.index()].push(Fact::Attacks {
            at: there,
            attacked: self.attacked_by(piece, there),
        });
        if self.variant.kind_by_letter('P') == Some(piece.kind) {
            let g = &self.variant.geometry;
            let i = g.info(there);
            let dy = if piece.side == Side::WHITE { 1 } else { -1 };
            if let Some(front) = g.at(i.board, i.file as i32, i.rank as i32 + dy) {
                report.told[here_viewer.index()].push(Fact::InFront {
                    cell: front,
                    content: self.board[front.index()],
                });
            }
        }
        there
    }

    /// The opponent's pieces the piece on `at` could capture next move (board blocking, no
    /// transfer, no en passant).
    fn attacked_by(&self, piece: Piece, at: Cell) -> Vec<(Piece, Cell)> {
        let t = &self.variant.tables;
        let (a, b) = t.index[t.slot(piece.kind.index(), piece.side.index(), at.index())];
        let mut out = Vec::new();
        for path in &t.paths[a as usize..b as usize] {
            if path.flags & F_CAPTURE == 0 {
                continue;
            }
            let cells = &t.cells
                [path.start as usize..(path.start + path.pre as u32 + path.len as u32) as usize];
            let (pre, land) = cells.split_at(path.pre as usize);
            if pre.iter().any(|c| self.board[*c as usize].is_some()) {
                continue;
            }
            for &c in land {
                if let Some(p) = self.board[c as usize] {
                    if p.side != piece.side && !out.contains(&(p, Cell(c))) {
                        out.push((p, Cell(c)));
                    }
                    if path.kind == RIDE {
                        break;
                    }
                }
            }
        }
        out.sort_by_key(|(_, c)| *c);
        out
    }

    /// An impossible order: a strike, or under "no strikes" the turn passes to the chooser.
    fn impossible(&mut self, by: Side, army: Side, order: &Order, action: String) -> Report {
        let g = &self.variant.geometry;
        let world = match order {
            Order::Move { from, .. } => self.world(*from),
            Order::Castle { .. } => world_of(army),
        };
        let executor = Side(world);
        let mut report = Report {
            action: action.clone(),
            told: [Vec::new(), Vec::new()],
            public: Vec::new(),
            outcome: None,
        };
        self.record.push(action);
        report.told[executor.index()].push(Fact::Refused {
            by,
            order: order.text(g),
        });
        if self.rules.no_strikes {
            report.told[by.index()].push(Fact::Impossible {
                strikes: 0,
                order: order.text(g),
            });
            report.public.push(Public::Impossible { by, strikes: 0 });
            if self.forced {
                // The chooser failed too: the offender tries again.
                self.forced = false;
                self.turn = army;
            } else {
                self.forced = true;
                self.turn = other(by);
                report.public.push(Public::Forfeit {
                    army: by,
                    chooser: other(by),
                });
                report.told[other(by).index()].push(Fact::ChooseFor { army: by });
            }
        } else {
            self.strikes[by.index()] += 1;
            let n = self.strikes[by.index()];
            report.told[by.index()].push(Fact::Impossible {
                strikes: n,
                order: order.text(g),
            });
            report.public.push(Public::Impossible { by, strikes: n });
            if n >= STRIKE_LIMIT {
                let o = GlassOutcome::Strikes { winner: other(by) };
                self.phase = Phase::Over(o);
                report.outcome = Some(o);
            }
        }
        report
    }

    /// After a completed move of `army`: the turn passes, and the end of the game is checked.
    fn finish_turn(&mut self, army: Side, report: &mut Report) {
        if army == Side::BLACK {
            self.fullmoves += 1;
        }
        self.forced = false;
        self.turn = other(army);
        if let Phase::Over(o) = self.phase {
            report.outcome = Some(o);
            return;
        }
        let key = self.key();
        let n = self.repetitions.entry(key).or_insert(0);
        *n += 1;
        let outcome = if *n >= 3 {
            Some(GlassOutcome::Repetition)
        } else if self.halfmoves >= 100 {
            Some(GlassOutcome::FiftyMoves)
        } else if !self.has_move_on(self.turn, REAL) && !self.has_move_on(self.turn, MIRROR) {
            Some(GlassOutcome::Stalemate)
        } else {
            None
        };
        if let Some(o) = outcome {
            self.phase = Phase::Over(o);
            report.outcome = Some(o);
        }
    }

    fn key(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.board.hash(&mut h);
        self.turn.hash(&mut h);
        self.forced.hash(&mut h);
        self.kings.hash(&mut h);
        self.rooks.hash(&mut h);
        self.ep.hash(&mut h);
        h.finish()
    }

    /// Ends the game from outside the rules (resignation, agreement are the bot's).
    pub fn is_over(&self) -> Option<GlassOutcome> {
        match self.phase {
            Phase::Over(o) => Some(o),
            _ => None,
        }
    }
}

enum Failed {
    /// Refused on the giver's own world: no consequence.
    Refused(String),
    /// Impossible on the unseen world: a strike.
    Impossible,
}

/// The opponent in a two-player game.
pub const fn other(side: Side) -> Side {
    Side(1 - side.0)
}
