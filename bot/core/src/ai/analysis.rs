//! Post-game analysis as the bot keeps and shows it: what an analysis of a finished game
//! holds ([`GameAnalysis`], cached in the store by game), how a game's positions are turned
//! into it ([`analyse_game`], run on the analyst's low-priority thread), and the store's
//! record of an analysis queued, running or done ([`AnalysisRecord`]).
//!
//! The numbers (winning chances, loss, accuracy, mistakes) are the engine's, documented in
//! [`engine::analysis`]; this module adds the game's notation and the pictures' data.

use std::sync::Arc;

use engine::{
    Evaluator,
    analysis::{self as ea, Analyser, Budget, Judgement},
    search::MATE,
};
use engine::{Level, glass::GlassPlayer};
use rules::{
    Move, Position, Side, Variant,
    glass::{Glass, GlassRules, Phase},
    notation,
};

use crate::{
    model::{GameId, Place, PlayerId},
    outbox::Key,
    reply::MovedCells,
};

/// The most positions an analysis takes on (a game of 999 half-moves); a longer game is
/// refused with this number in the answer.
pub const MAX_POSITIONS: usize = 1_000;

/// The most nodes a whole game's analysis may search: a long game gets fewer nodes a
/// position ([`nodes_per_position`]), so that no analysis holds its thread for long.
pub const TOTAL_NODES: u64 = 24_000_000;

/// The fewest nodes a position gets, however long the game.
pub const MIN_NODES: u64 = 10_000;

/// How many mistakes are shown per player.
pub const MISTAKES_SHOWN: usize = 3;

/// A running analysis whose progress was not recorded for this long is taken to be lost (its
/// process stopped): a new `analyse` may start it again.
pub const STALE_AFTER_MS: i64 = 10 * 60 * 1_000;

/// How the analyst works.
#[derive(Debug, Clone)]
pub struct AnalysisConfig {
    /// Nodes a position at most ([`engine::analysis::DEFAULT_NODES`] by default).
    pub nodes: u64,
    /// Threads analyses run on, one analysis each (1: one at a time per process).
    pub threads: usize,
    /// Their nice value, 0 to 19 (19, the lowest priority, as the bot's own searches).
    pub nice: i32,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        AnalysisConfig {
            nodes: ea::DEFAULT_NODES,
            threads: 1,
            nice: crate::opponent::DEFAULT_SEARCH_NICE,
        }
    }
}

/// The nodes each of `positions` positions gets: `nodes`, or less so that the whole game
/// stays within [`TOTAL_NODES`], never below [`MIN_NODES`].
pub fn nodes_per_position(positions: usize, nodes: u64) -> u64 {
    let share = TOTAL_NODES / positions.max(1) as u64;
    nodes.min(share).max(MIN_NODES.min(nodes))
}

/// How bad a move was (see [`engine::analysis::Judgement`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Severity {
    /// At least 5 points of winning chances lost.
    Inaccuracy,
    /// At least 10.
    Mistake,
    /// At least 20.
    Blunder,
}

impl Severity {
    fn of(j: Judgement) -> Severity {
        match j {
            Judgement::Inaccuracy => Severity::Inaccuracy,
            Judgement::Mistake => Severity::Mistake,
            Judgement::Blunder => Severity::Blunder,
        }
    }

    /// Its name ("blunder").
    pub fn name(self) -> &'static str {
        match self {
            Severity::Inaccuracy => "an inaccuracy",
            Severity::Mistake => "a mistake",
            Severity::Blunder => "a blunder",
        }
    }

    /// The annotation sign (`??`).
    pub fn sign(self) -> &'static str {
        match self {
            Severity::Inaccuracy => "?!",
            Severity::Mistake => "?",
            Severity::Blunder => "??",
        }
    }
}

/// One of a player's biggest mistakes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mistake {
    /// The move's index in the game (0 for the first move).
    pub ply: u32,
    /// Its move number as the game counts them (a round of every seat's move); 0 in an
    /// analysis stored before the number was kept, where it follows from `ply`.
    #[serde(default)]
    pub number: u32,
    /// How bad it was.
    pub severity: Severity,
    /// Winning chances lost, in percentage points.
    pub loss: f32,
    /// The mover's winning chances before and after it (0 to 1).
    pub before: f32,
    /// After.
    pub after: f32,
    /// The move played, in the game's notation.
    pub played: String,
    /// The move the engine preferred, in the game's notation.
    pub best: Option<String>,
    /// The preferred move's cells, to mark on the board.
    pub best_cells: Option<MovedCells>,
    /// The position before the move (state text), to draw.
    pub state: String,
}

/// One seat's part of an analysis.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeatReport {
    /// The seat.
    pub seat: u8,
    /// Moves the seat made.
    pub moves: u32,
    /// Its accuracy (0 to 100), if it made a move.
    pub accuracy: Option<f32>,
    /// Its biggest mistakes, the costliest first (at most [`MISTAKES_SHOWN`]).
    pub mistakes: Vec<Mistake>,
}

/// A finished game's analysis: what the store caches and the replies show.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameAnalysis {
    /// The game.
    pub game: GameId,
    /// Its variant's name.
    pub variant: String,
    /// Half-moves analysed (the game's moves when it was analysed).
    pub plies: u32,
    /// Nodes searched per position.
    pub nodes: u64,
    /// The first seat's score in each position, the start first (centipawns, or near
    /// [`engine::search::MATE`] for a mate). With more than two seats, its score against the
    /// table, as in [`GameAnalysis::seat_scores`].
    pub scores: Vec<i32>,
    /// With more than two seats, every seat's score against the table in each position, the
    /// start first, in seat order (empty with two, where `scores` says it all). A seat's
    /// score is measured at its own turns (the search's best), set after each of its moves
    /// (what the move played was worth), held between them, taken from its first turn before
    /// it, and a mate's once the seat is out or has won.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_scores: Vec<Vec<i32>>,
    /// The move number of the move that led to each position (0 for the start), as the game
    /// counts them (a round of every seat's move; Looking-Glass setups are 0, a strike's
    /// repeated order keeps its number); empty in an analysis stored before they were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub numbers: Vec<u32>,
    /// Each seat's accuracy and mistakes, in seat order.
    pub seats: Vec<SeatReport>,
}

impl GameAnalysis {
    /// The first seat's winning chances in each position (0 to 1).
    pub fn chances(&self) -> Vec<f32> {
        chances_of(&self.scores)
    }

    /// Every seat's winning chances (against the table) in each position, in seat order, for
    /// a game of more than two seats; empty for two.
    pub fn seat_chances(&self) -> Vec<Vec<f32>> {
        self.seat_scores.iter().map(|s| chances_of(s)).collect()
    }

    /// The positions analysed (the start and one after each move).
    pub fn positions(&self) -> usize {
        self.plies as usize + 1
    }
}

fn chances_of(scores: &[i32]) -> Vec<f32> {
    scores
        .iter()
        .map(|s| ea::win_chance(*s, Side::WHITE) as f32)
        .collect()
}

/// Why a game cannot be analysed (the service words the answer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalyseError {
    /// Longer than [`MAX_POSITIONS`].
    #[error("the game has {0} positions; analysis covers up to {MAX_POSITIONS}")]
    TooLong(usize),
}

/// Checks that a game of `plies` moves can be analysed (of any variant, two seats or four).
///
/// # Errors
/// [`AnalyseError`] when it cannot.
pub fn check(plies: usize) -> Result<(), AnalyseError> {
    if plies + 1 > MAX_POSITIONS {
        return Err(AnalyseError::TooLong(plies + 1));
    }
    Ok(())
}

/// Analyses a game, then each seat's accuracy and biggest mistakes; `progress(done, total)`
/// is called as positions are done. When it returns `false` the analysis stops and `None`
/// is returned. CPU work of seconds to minutes: run it on the analyst's thread.
///
/// With two seats every position from `start` through `moves` is searched with `nodes`
/// nodes, and a move is judged by the positions before and after it. With more, each move
/// is judged in the position before it, for its mover ([`engine::analysis::TurnEval`]): a
/// move the search would not have made costs a second search, so a four-player analysis
/// takes up to twice the nodes.
pub fn analyse_game(
    game: GameId,
    evaluator: Arc<Evaluator>,
    start: &Position,
    moves: &[Move],
    nodes: u64,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Option<GameAnalysis> {
    let variant = start.variant().clone();
    let budget = Budget { nodes, time: None };
    let mut analyser = Analyser::new(evaluator, 16);
    let (reviews, preferred, scores, seat_scores) = if variant.sides > 2 {
        let total = moves.len() + 1;
        let turns = analyser.evaluate_turns(start, moves, &budget, |d, _| progress(d, total))?;
        let lines = table_lines(start, moves, &turns);
        let preferred: Vec<Option<Move>> = turns.iter().map(|t| t.best).collect();
        (
            ea::review_turns(&turns, moves),
            preferred,
            lines[0].clone(),
            lines,
        )
    } else {
        let evals = analyser.evaluate_game(start, moves, &budget, progress)?;
        let mut movers = Vec::with_capacity(moves.len());
        let mut pos = start.clone();
        for &m in moves {
            movers.push(pos.turn());
            pos.play_unchecked(m);
        }
        (
            ea::review(&evals, moves, &movers),
            evals.iter().map(|e| e.best).collect(),
            evals.iter().map(|e| e.score).collect(),
            Vec::new(),
        )
    };
    // The notation of each move, of the search's preferred one, the move number and the
    // position before it.
    let mut pos = start.clone();
    let mut before = Vec::with_capacity(moves.len());
    for (i, &m) in moves.iter().enumerate() {
        let best = preferred.get(i).copied().flatten().map(|b| {
            let g = &variant.geometry;
            (
                notation::san(&pos, b),
                MovedCells {
                    from: g.name(b.from).to_string(),
                    to: g.name(b.to).to_string(),
                },
            )
        });
        before.push(Before {
            played: notation::san(&pos, m),
            best,
            number: pos.fullmoves(),
            state: rules::fen::write(&pos),
        });
        pos.play_unchecked(m);
    }
    let seats = (0..variant.sides)
        .map(|s| {
            let side = Side(s);
            let mistakes = ea::biggest_mistakes(&reviews, side, MISTAKES_SHOWN)
                .into_iter()
                .filter_map(|r| {
                    let b = &before[r.ply];
                    let (best_text, cells) = match &b.best {
                        Some((t, c)) => (Some(t.clone()), Some(c.clone())),
                        None => (None, None),
                    };
                    Some(Mistake {
                        ply: r.ply as u32,
                        number: b.number,
                        severity: Severity::of(r.judgement()?),
                        loss: r.loss as f32,
                        before: r.before as f32,
                        after: r.after as f32,
                        played: b.played.clone(),
                        best: best_text,
                        best_cells: cells,
                        state: b.state.clone(),
                    })
                })
                .collect();
            SeatReport {
                seat: s,
                moves: reviews.iter().filter(|r| r.side == side).count() as u32,
                accuracy: ea::accuracy(&reviews, side).map(|a| a as f32),
                mistakes,
            }
        })
        .collect();
    Some(GameAnalysis {
        game,
        variant: variant.name.clone(),
        plies: moves.len() as u32,
        nodes,
        scores,
        seat_scores,
        numbers: std::iter::once(0)
            .chain(before.iter().map(|b| b.number))
            .collect(),
        seats,
    })
}

/// What a mistake's report needs of the position before a move.
struct Before {
    played: String,
    best: Option<(String, MovedCells)>,
    number: u32,
    state: String,
}

/// Every seat's score against the table in each position of a game of more than two seats,
/// from its moves' [`ea::TurnEval`]s (see [`GameAnalysis::seat_scores`]).
fn table_lines(start: &Position, moves: &[Move], turns: &[ea::TurnEval]) -> Vec<Vec<i32>> {
    let sides = usize::from(start.variant().sides);
    let positions = moves.len() + 1;
    let mut known: Vec<Vec<Option<i32>>> = vec![vec![None; positions]; sides];
    let mut pos = start.clone();
    for (i, (&m, t)) in moves.iter().zip(turns).enumerate() {
        let mover = usize::from(t.mover.0);
        if t.judged {
            known[mover][i] = Some(t.best_score);
            known[mover][i + 1] = Some(t.played_score);
        }
        pos.play_unchecked(m);
        for (s, line) in known.iter_mut().enumerate() {
            if pos.is_out(Side(s as u8)) {
                line[i + 1] = Some(-MATE);
            }
        }
    }
    if let Some(rules::Outcome::Win { winner, .. }) = pos.outcome() {
        known[usize::from(winner.0)][positions - 1] = Some(MATE);
    }
    let first: Vec<i32> = (0..sides)
        .map(|s| {
            turns
                .iter()
                .find(|t| t.judged && usize::from(t.mover.0) == s)
                .map_or(0, |t| t.best_score)
        })
        .collect();
    held_lines(known, &first)
}

/// Each seat's line from the scores `known` at some positions: held from one to the next,
/// and `first[seat]` before its first (its first turn's score: before it, the seat stands
/// where that turn found it; even if it never had one).
fn held_lines(known: Vec<Vec<Option<i32>>>, first: &[i32]) -> Vec<Vec<i32>> {
    known
        .into_iter()
        .zip(first)
        .map(|(line, &first)| {
            let mut held = first;
            line.into_iter()
                .map(|v| {
                    if let Some(v) = v {
                        held = v;
                    }
                    held
                })
                .collect()
        })
        .collect()
}

/// Analyses a finished Looking-Glass game from its record (the referee's actions, as
/// [`rules::glass::Glass::replay`] takes them): each order judged from what its player knew
/// when he gave it ([`engine::glass::GlassPlayer::judge`] at level 5, its sampled worlds
/// seeded by the game and the action), never from the hidden world as it was. The graph has
/// a line per player, his expected score as he could judge it at his turns and after his
/// orders; the mistakes are drawn on his own view of the moment. `progress(done, total)` as
/// [`analyse_game`]'s; `None` when it stops, or when the record does not replay (it did when
/// the game was loaded).
pub fn analyse_glass(
    game: GameId,
    variant: Arc<Variant>,
    glass_rules: GlassRules,
    actions: &[String],
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Option<GameAnalysis> {
    let positions = actions.len() + 1;
    let mut g = Glass::with_variant(variant.clone(), glass_rules);
    let mut known: Vec<Vec<Option<i32>>> = vec![vec![None; positions]; 2];
    let mut judged: Vec<GlassTurn> = Vec::new();
    let mut number = 1;
    let mut numbers = vec![0];
    for (i, action) in actions.iter().enumerate() {
        let (who, order) = action.split_once(' ')?;
        let side = match who {
            "w" => Side::WHITE,
            "b" => Side::BLACK,
            _ => return None,
        };
        let to_play = g.phase() == Phase::Play
            && g.turn() == side
            && !order.starts_with("setup ")
            && g.is_over().is_none();
        if to_play {
            let knowledge = crate::opponent::glass_knowledge(&g, side).ok()?;
            let seed = (game.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64;
            let j = GlassPlayer::new(variant.clone(), Level::new(5).ok()?, seed)
                .judge(&knowledge, order)
                .ok()?;
            let seat = side.index();
            known[seat][i] = Some(j.best_value);
            known[seat][i + 1] = Some(j.played_value);
            let before = ea::win_chance(j.best_value, Side::WHITE);
            let after = ea::win_chance(j.played_value, Side::WHITE);
            let same = j.best == order;
            judged.push(GlassTurn {
                ply: i,
                side,
                number,
                loss: if same {
                    0.0
                } else {
                    ((before - after) * 100.0).max(0.0)
                },
                before,
                after,
                played: order.to_string(),
                best: (!same).then(|| j.best.clone()),
                state: g.view(side).text(&variant),
            });
        }
        numbers.push(if g.phase() == Phase::Play { number } else { 0 });
        let turn = g.turn();
        // Replayed when the game was loaded: it cannot fail here.
        g.apply_action(action).ok()?;
        if turn == Side::BLACK && g.turn() == Side::WHITE && g.phase() == Phase::Play {
            number += 1;
        }
        if !progress(i + 1, positions) {
            return None;
        }
    }
    if let Some(winner) = g.is_over().and_then(|o| o.winner()) {
        known[winner.index()][positions - 1] = Some(engine::glass::WIN);
        known[1 - winner.index()][positions - 1] = Some(-engine::glass::WIN);
    }
    let first: Vec<i32> = [Side::WHITE, Side::BLACK]
        .iter()
        .map(|s| {
            judged
                .iter()
                .find(|t| t.side == *s)
                .map_or(0, |t| known[s.index()][t.ply].unwrap_or(0))
        })
        .collect();
    let lines = held_lines(known, &first);
    let seats = [Side::WHITE, Side::BLACK]
        .iter()
        .map(|&side| {
            let mine: Vec<&GlassTurn> = judged.iter().filter(|t| t.side == side).collect();
            let accuracy = (!mine.is_empty()).then(|| {
                (mine.iter().map(|t| ea::move_accuracy(t.loss)).sum::<f64>() / mine.len() as f64)
                    as f32
            });
            let mut costly: Vec<&&GlassTurn> =
                mine.iter().filter(|t| t.loss >= ea::INACCURACY).collect();
            costly.sort_by(|a, b| b.loss.total_cmp(&a.loss).then(a.ply.cmp(&b.ply)));
            let mistakes = costly
                .into_iter()
                .take(MISTAKES_SHOWN)
                .filter_map(|t| {
                    Some(Mistake {
                        ply: t.ply as u32,
                        number: t.number,
                        severity: Severity::of(Judgement::of(t.loss)?),
                        loss: t.loss as f32,
                        before: t.before as f32,
                        after: t.after as f32,
                        played: t.played.clone(),
                        best: t.best.clone(),
                        best_cells: None,
                        state: t.state.clone(),
                    })
                })
                .collect();
            SeatReport {
                seat: side.0,
                moves: mine.len() as u32,
                accuracy,
                mistakes,
            }
        })
        .collect();
    Some(GameAnalysis {
        game,
        variant: variant.name.clone(),
        plies: actions.len() as u32,
        nodes: 0,
        scores: lines[0].clone(),
        seat_scores: lines,
        numbers,
        seats,
    })
}

/// One Looking-Glass order judged.
struct GlassTurn {
    ply: usize,
    side: Side,
    number: u32,
    loss: f64,
    before: f64,
    after: f64,
    played: String,
    best: Option<String>,
    state: String,
}

/// Who asked for an analysis and where its progress is shown: kept with the running
/// analysis, so that its answer goes where the question was.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AnalysisRequest {
    /// The room the command was given in.
    pub place: Place,
    /// Who asked.
    pub asked_by: PlayerId,
    /// The outbox key of the progress message, which later progress lines replace.
    pub progress: Option<Key>,
}

/// Where an analysis stands.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum AnalysisState {
    /// Queued or running: `done` of `total` positions searched.
    Running {
        /// Positions searched.
        done: u32,
        /// Positions in all.
        total: u32,
    },
    /// Finished.
    Done(Box<GameAnalysis>),
}

/// A game's analysis as the store keeps it: one per game.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AnalysisRecord {
    /// The game.
    pub game: GameId,
    /// The half-moves it covers (a cached analysis is used only for the same moves).
    pub plies: u32,
    /// The process (`[bot] instance`) that runs or ran it.
    pub owner: String,
    /// Who asked, where.
    pub request: AnalysisRequest,
    /// Where it stands.
    pub state: AnalysisState,
    /// Unix milliseconds when it was started.
    pub started_ms: i64,
    /// Unix milliseconds of its last progress.
    pub updated_ms: i64,
}

/// An analysis to start ([`crate::store::GameStore::begin_analysis`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysisStart {
    /// The game.
    pub game: GameId,
    /// Its half-moves.
    pub plies: u32,
    /// Positions to search (`plies + 1`).
    pub total: u32,
    /// The process that runs it.
    pub owner: String,
    /// Who asked, where.
    pub request: AnalysisRequest,
    /// Unix milliseconds now.
    pub now_ms: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_games_get_fewer_nodes_a_position_but_never_too_few() {
        assert_eq!(nodes_per_position(81, 60_000), 60_000);
        assert_eq!(nodes_per_position(800, 60_000), 30_000);
        assert_eq!(nodes_per_position(999, 60_000), 24_024);
        assert_eq!(nodes_per_position(1_000_000, 60_000), MIN_NODES);
        assert_eq!(nodes_per_position(10, 2_000), 2_000);
    }

    /// Each seat's line: its first turn's score before it, its best at its turns and its
    /// move's worth after them, held between; a mate's once it is out.
    #[test]
    fn four_seats_lines_are_measured_at_their_turns_and_held_between() {
        let four = rules::Catalog::builtin().get("dcb-balanced-4p").unwrap();
        let start = Position::start(&four);
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for _ in 0..3 {
            let m = pos.legal_moves()[0];
            pos.play_unchecked(m);
            moves.push(m);
        }
        let resign = pos.resignation(Side(3)).unwrap();
        moves.push(resign);
        let turn = |mover: u8, best: i32, played: i32| ea::TurnEval {
            mover: Side(mover),
            judged: true,
            best: None,
            best_score: best,
            played_score: played,
            nodes: 1,
        };
        let turns = [
            turn(0, 50, 40),
            turn(1, -20, -20),
            turn(2, 10, -300),
            ea::TurnEval {
                judged: false,
                ..turn(3, 0, 0)
            },
        ];
        let lines = table_lines(&start, &moves, &turns);
        assert_eq!(lines[0], [50, 40, 40, 40, 40]);
        assert_eq!(lines[1], [-20, -20, -20, -20, -20]);
        assert_eq!(lines[2], [10, 10, 10, -300, -300]);
        assert_eq!(lines[3], [0, 0, 0, 0, -MATE], "even until it resigned");
    }

    #[test]
    fn fools_mate_has_white_blunder_and_black_perfect() {
        let chess = rules::Catalog::builtin().get("chess").unwrap();
        let start = Position::start(&chess);
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for m in ["f3", "e5", "g4", "Qh4#"] {
            let mv = notation::parse_move(&pos, m).unwrap();
            pos.play_unchecked(mv);
            moves.push(mv);
        }
        let a = analyse_game(
            GameId(3),
            Arc::new(Evaluator::new(&chess)),
            &start,
            &moves,
            20_000,
            |_, _| true,
        )
        .unwrap();
        assert_eq!(a.scores.len(), 5);
        assert_eq!(a.plies, 4);
        let white = &a.seats[0];
        assert_eq!(white.moves, 2);
        assert_eq!(white.mistakes[0].ply, 2);
        assert_eq!(white.mistakes[0].played, "g4");
        assert_eq!(white.mistakes[0].severity, Severity::Blunder);
        assert!(white.mistakes[0].best.is_some());
        assert!(white.mistakes[0].state.contains(" w "));
        let black = &a.seats[1];
        assert!(black.accuracy.unwrap() > white.accuracy.unwrap());
        assert_eq!(a.chances().last(), Some(&0.0));
        assert!(a.seat_scores.is_empty());
        assert!(check(999).is_ok());
        assert_eq!(check(1_000), Err(AnalyseError::TooLong(1_001)));
    }
}
