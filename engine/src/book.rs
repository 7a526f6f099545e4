//! Opening books: the positions a match starts its pairs of games from, kept as files.
//!
//! A match plays each opening twice, each engine once with each colour, so that neither gains
//! from a lucky start. Openings made up on the spot from a seed (as `engine-match` does with
//! `--book random`) depend on the evaluation that picked them: change the evaluation and a
//! match with the same seed starts from other positions, so two measurements a month apart do
//! not compare. A book written once to a file and kept in the repository does not move.
//!
//! [`generate`] writes one: each opening is a few plies chosen at random (seeded) among the
//! moves within 50 centipawns of the best at a shallow depth, as before, and then checked by a
//! deeper search from the resulting position; an opening whose score is beyond
//! [`BookSpec::max_score`] for either side is left out, as is one that reaches a position
//! already in the book (by another order of the same moves). So every pair starts from a
//! position that is playable for both sides, and no two pairs from the same one.
//!
//! A variant whose array favours one side needs more. In Single Besiege Ecumenical (Black's
//! two camps stand back to back, White's are fourteen ranks apart) the search scores the
//! start -530 for White and Black wins nine games in ten, so no opening of good moves is
//! level, and a match from such openings has its pairs split by colour and says little of
//! the engines. [`BookSpec::margins`] lets the favoured side's plies be chosen among worse
//! moves, so that some openings give back what the array gave; and since a score is one
//! search's opinion while a match counts games, [`BookSpec::judge`] also plays each opening
//! out a few times against itself at a small node budget ([`Judge`]) and keeps it only when
//! neither side took more than three quarters of the points.
//!
//! The file is text, one opening a line, its moves in UCI notation from the variant's start
//! (the notation every engine speaks, Fairy-Stockfish included):
//!
//! ```text
//! # any comment
//! variant chess
//! e2e4 c7c5 g1f3 d7d6
//! d2d4 g8f6 c2c4 e7e6
//! ```
//!
//! [`Book::parse`] checks every move against the rules, and says which line and which move
//! is wrong. The books of the built-in variants the matches measure are compiled in
//! ([`builtin`], files in `engine/books/`).

use std::{collections::HashSet, sync::Arc};

use rules::{Move, Position, Variant, notation};

use crate::{Evaluator, Searcher, level::Rng, search::Limits, tune};

/// The books compiled in, by variant name (written by `engine-book`, see `engine/books/`).
const BUILTIN: &[(&str, &str)] = &[
    ("bilateral", include_str!("../books/bilateral.txt")),
    ("capablanca", include_str!("../books/capablanca.txt")),
    ("chess", include_str!("../books/chess.txt")),
    ("dcb-balanced", include_str!("../books/dcb-balanced.txt")),
    (
        "ecumenical-besiege",
        include_str!("../books/ecumenical-besiege.txt"),
    ),
    (
        "ecumenical-wraparound",
        include_str!("../books/ecumenical-wraparound.txt"),
    ),
    ("grand", include_str!("../books/grand.txt")),
    ("toulousain", include_str!("../books/toulousain.txt")),
];

/// Openings for one variant, each a list of legal moves from its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Book {
    variant: String,
    openings: Vec<Vec<Move>>,
}

/// Why a book's text cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// No `variant NAME` line before the first opening.
    #[error("the book does not say its variant: put a line `variant NAME` before the openings")]
    NoVariant,
    /// The book is for another variant.
    #[error("the book is for {found}, not {wanted}: use a book written for {wanted}")]
    OtherVariant {
        /// The variant the book names.
        found: String,
        /// The variant being played.
        wanted: String,
    },
    /// A move is not legal where it stands.
    #[error(
        "line {line}, move {ply} ({text}): {why}; every move must be legal in UCI notation from the start"
    )]
    Move {
        /// The line's number, from 1.
        line: usize,
        /// The move's number in its opening, from 1.
        ply: usize,
        /// The move as written.
        text: String,
        /// What the rules say of it.
        why: String,
    },
    /// An opening that ends the game.
    #[error(
        "line {line}: the game is over after this opening; a book's openings must leave a game to play"
    )]
    Over {
        /// The line's number, from 1.
        line: usize,
    },
    /// Not one opening.
    #[error("the book has no openings: one a line, moves in UCI notation")]
    Empty,
}

impl Book {
    /// Reads a book for `variant`, checking every move.
    ///
    /// # Errors
    /// [`BookError`] naming the first thing wrong: no variant line, another variant, an
    /// illegal or unreadable move (with its line and number), an opening that ends the game,
    /// or no openings at all.
    pub fn parse(variant: &Arc<Variant>, text: &str) -> Result<Book, BookError> {
        let mut named = false;
        let mut openings = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if let Some(name) = line.strip_prefix("variant ") {
                let name = name.trim();
                if name != variant.name {
                    return Err(BookError::OtherVariant {
                        found: name.to_string(),
                        wanted: variant.name.clone(),
                    });
                }
                named = true;
                continue;
            }
            if !named {
                return Err(BookError::NoVariant);
            }
            let mut pos = Position::start(variant);
            let mut moves = Vec::new();
            for (ply, text) in line.split_whitespace().enumerate() {
                let m = notation::parse_uci(&pos, text).map_err(|e| BookError::Move {
                    line: i + 1,
                    ply: ply + 1,
                    text: text.to_string(),
                    why: e.to_string(),
                })?;
                pos.play_unchecked(m);
                moves.push(m);
            }
            if pos.outcome().is_some() {
                return Err(BookError::Over { line: i + 1 });
            }
            openings.push(moves);
        }
        if !named {
            return Err(BookError::NoVariant);
        }
        if openings.is_empty() {
            return Err(BookError::Empty);
        }
        Ok(Book {
            variant: variant.name.clone(),
            openings,
        })
    }

    /// The variant's name.
    pub fn variant(&self) -> &str {
        &self.variant
    }

    /// How many openings.
    pub fn len(&self) -> usize {
        self.openings.len()
    }

    /// Whether the book has no openings: never for a parsed one; a generated one is empty
    /// when no try was level enough ([`BookSpec::max_score`]).
    pub fn is_empty(&self) -> bool {
        self.openings.is_empty()
    }

    /// Opening `k`, counting round the book (pair `k` of a match plays opening `k`); no
    /// moves for an empty book.
    pub fn opening(&self, k: u64) -> &[Move] {
        match self.openings.len() as u64 {
            0 => &[],
            n => &self.openings[(k % n) as usize],
        }
    }

    /// The book as text for [`Book::parse`], after the comment lines in `header`.
    pub fn write(&self, variant: &Arc<Variant>, header: &[String]) -> String {
        let mut out = String::new();
        for h in header {
            out.push_str("# ");
            out.push_str(h);
            out.push('\n');
        }
        out.push_str("variant ");
        out.push_str(&variant.name);
        out.push('\n');
        for moves in &self.openings {
            let mut pos = Position::start(variant);
            let texts: Vec<String> = moves
                .iter()
                .map(|&m| {
                    let t = notation::uci(&pos, m);
                    pos.play_unchecked(m);
                    t
                })
                .collect();
            out.push_str(&texts.join(" "));
            out.push('\n');
        }
        out
    }
}

/// The compiled-in book for `variant`, if it has one.
pub fn builtin(variant: &Arc<Variant>) -> Option<Book> {
    BUILTIN
        .iter()
        .find(|(name, _)| *name == variant.name)
        .and_then(|(_, text)| Book::parse(variant, text).ok())
}

/// What [`generate`] makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookSpec {
    /// How many openings.
    pub count: usize,
    /// Plies in each.
    pub plies: u32,
    /// Depth of the search that picks each ply's candidates (those within
    /// [`BookSpec::margins`] of its best).
    pub pick_depth: u32,
    /// How far below the best (centipawns, at `pick_depth`) a move may be and still be
    /// chosen: for the first side and for the second. 50 for both, unless the variant's
    /// start favours one side so far that no opening of good moves is level (Single Besiege
    /// Ecumenical: -530 for White at the start); a wider margin for the stronger side then
    /// lets some openings give back what the array gave, and the score and the games keep
    /// those that did.
    pub margins: [i32; 2],
    /// Nodes of the search that checks the position an opening reaches.
    pub check_nodes: u64,
    /// The largest score (centipawns, either side) an opening may leave.
    pub max_score: i32,
    /// Seeds the choice among candidates: the same spec gives the same book.
    pub seed: u64,
    /// Also play each opening out ([`Judge`]); `None` trusts the score alone.
    pub judge: Option<Judge>,
    /// Threads that play the judging games (the book does not depend on it).
    pub threads: usize,
}

/// How [`generate`] judges an opening by play: `games` games of the engine against itself
/// from the opening's position, the `k`th at `nodes × (4 + k) / 4` nodes a move (so that a
/// deterministic search plays a different game each time), each adjudicated a draw after
/// `max_plies` plies. The opening is kept when the first side's share of the points is
/// between a quarter and three quarters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judge {
    /// Games from each opening.
    pub games: u32,
    /// Nodes a move in the first game.
    pub nodes: u64,
    /// A game still going after this many plies (the opening's included) counts as a draw.
    pub max_plies: u32,
}

impl Default for Judge {
    fn default() -> Self {
        Judge {
            games: 2,
            nodes: 3_000,
            max_plies: 400,
        }
    }
}

impl Default for BookSpec {
    fn default() -> Self {
        BookSpec {
            count: 250,
            plies: 8,
            pick_depth: 3,
            margins: [50, 50],
            check_nodes: 50_000,
            max_score: 60,
            seed: 1,
            judge: None,
            threads: 1,
        }
    }
}

/// What [`generate`] did besides the book: how many tries it left out and why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BookStats {
    /// Openings tried.
    pub tried: usize,
    /// Left out for a score beyond the limit.
    pub unbalanced: usize,
    /// Left out for reaching a position already in the book.
    pub repeated: usize,
    /// Left out for ending the game.
    pub over: usize,
    /// Left out because one side took more than three quarters of the judging games' points
    /// ([`BookSpec::judge`]).
    pub lopsided: usize,
    /// The first side's half-points and the games played, over the judging games of the
    /// openings kept.
    pub kept_halves: (u32, u32),
}

/// Writes a book of `spec.count` openings for `eval`'s variant (see the module's notes), or
/// fewer if twenty tries an opening do not find that many.
pub fn generate(eval: &Arc<Evaluator>, spec: &BookSpec) -> (Book, BookStats) {
    match spec.judge {
        None => generate_in_order(eval, spec),
        Some(judge) => generate_judged(eval, spec, &judge),
    }
}

/// The books written before [`Judge`]: one try after another on one searcher, whose table
/// carries from try to try (so these books are the ones they always were).
fn generate_in_order(eval: &Arc<Evaluator>, spec: &BookSpec) -> (Book, BookStats) {
    let variant = eval.variant().clone();
    let mut searcher = Searcher::new(eval.clone(), 16);
    let mut seen = HashSet::new();
    let mut openings = Vec::new();
    let mut stats = BookStats::default();
    let check = Limits {
        nodes: Some(spec.check_nodes),
        ..Limits::default()
    };
    while openings.len() < spec.count && stats.tried < spec.count * 20 {
        let seed = try_seed(spec, stats.tried);
        stats.tried += 1;
        let moves = random_opening_within(
            &mut searcher,
            &variant,
            spec.plies,
            spec.pick_depth,
            spec.margins,
            seed,
        );
        let mut pos = after(&variant, &moves);
        if pos.outcome().is_some() {
            stats.over += 1;
            continue;
        }
        if seen.contains(&pos.hash()) {
            stats.repeated += 1;
            continue;
        }
        searcher.new_game();
        let score = searcher.search(&mut pos, &check, |_| {}).score;
        if score.abs() > spec.max_score {
            stats.unbalanced += 1;
            continue;
        }
        seen.insert(pos.hash());
        openings.push(moves);
    }
    let book = Book {
        variant: variant.name.clone(),
        openings,
    };
    (book, stats)
}

/// The seed of try `n`.
fn try_seed(spec: &BookSpec, n: usize) -> u64 {
    spec.seed.wrapping_mul(0x9E37_79B9).wrapping_add(n as u64)
}

/// What became of one try when openings are judged by play.
enum Verdict {
    Over,
    Unbalanced,
    Lopsided,
    /// Level by score and by play: its moves, the position's hash and the first side's
    /// half-points in the judging games.
    Level(Vec<Move>, u64, u32),
}

/// The books judged by play: each try starts from a cleared table, so that it is the same on
/// whichever thread plays it, and the tries run on `spec.threads` threads in batches; their
/// verdicts are taken in order, so the book is the same on any number of threads.
fn generate_judged(eval: &Arc<Evaluator>, spec: &BookSpec, judge: &Judge) -> (Book, BookStats) {
    let variant = eval.variant().clone();
    let threads = spec.threads.max(1);
    let mut searchers: Vec<Searcher> = (0..threads)
        .map(|_| Searcher::new(eval.clone(), 16))
        .collect();
    let mut seen = HashSet::new();
    let mut openings = Vec::new();
    let mut stats = BookStats::default();
    let tries = spec.count * 20;
    while openings.len() < spec.count && stats.tried < tries {
        let first = stats.tried;
        let n = (threads * 4).min(tries - first);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let verdicts = std::sync::Mutex::new((0..n).map(|_| None).collect::<Vec<_>>());
        std::thread::scope(|scope| {
            for searcher in &mut searchers {
                let (next, verdicts, variant) = (&next, &verdicts, &variant);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= n {
                            return;
                        }
                        let seed = try_seed(spec, first + i);
                        let v = judge_try(searcher, variant, spec, judge, seed);
                        verdicts.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(v);
                    }
                });
            }
        });
        let verdicts = verdicts.into_inner().unwrap_or_else(|e| e.into_inner());
        for verdict in verdicts.into_iter().flatten() {
            if openings.len() >= spec.count {
                break;
            }
            stats.tried += 1;
            match verdict {
                Verdict::Over => stats.over += 1,
                Verdict::Unbalanced => stats.unbalanced += 1,
                Verdict::Lopsided => stats.lopsided += 1,
                Verdict::Level(_, hash, _) if seen.contains(&hash) => stats.repeated += 1,
                Verdict::Level(moves, hash, halves) => {
                    seen.insert(hash);
                    openings.push(moves);
                    stats.kept_halves.0 += halves;
                    stats.kept_halves.1 += judge.games;
                }
            }
        }
    }
    let book = Book {
        variant: variant.name.clone(),
        openings,
    };
    (book, stats)
}

/// One try of [`generate_judged`]: the opening of `seed`, its score, and its games.
fn judge_try(
    searcher: &mut Searcher,
    variant: &Arc<Variant>,
    spec: &BookSpec,
    judge: &Judge,
    seed: u64,
) -> Verdict {
    searcher.new_game();
    let moves = random_opening_within(
        searcher,
        variant,
        spec.plies,
        spec.pick_depth,
        spec.margins,
        seed,
    );
    let mut pos = after(variant, &moves);
    if pos.outcome().is_some() {
        return Verdict::Over;
    }
    searcher.new_game();
    let check = Limits {
        nodes: Some(spec.check_nodes),
        ..Limits::default()
    };
    if searcher.search(&mut pos, &check, |_| {}).score.abs() > spec.max_score {
        return Verdict::Unbalanced;
    }
    let budget = judge.max_plies.saturating_sub(moves.len() as u32);
    let points: f64 = (0..judge.games)
        .map(|k| {
            let nodes = judge.nodes * (4 + u64::from(k)) / 4;
            play_out(searcher, pos.clone(), nodes, budget)
        })
        .sum();
    let share = points / f64::from(judge.games.max(1));
    if !(0.25..=0.75).contains(&share) {
        return Verdict::Lopsided;
    }
    Verdict::Level(moves, pos.hash(), (points * 2.0).round() as u32)
}

/// Plays `pos` out with `searcher` on both sides at `nodes` a move: the first side's points
/// (a game still going after `max_plies` plies is a draw).
pub fn play_out(searcher: &mut Searcher, mut pos: Position, nodes: u64, max_plies: u32) -> f64 {
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    searcher.new_game();
    for _ in 0..max_plies {
        if let Some(outcome) = pos.outcome() {
            return tune::result_of(&outcome);
        }
        let Some(m) = searcher.search(&mut pos, &limits, |_| {}).best else {
            break;
        };
        pos.play_unchecked(m);
    }
    pos.outcome().map_or(0.5, |o| tune::result_of(&o))
}

/// The position after `moves` from the start.
fn after(variant: &Arc<Variant>, moves: &[Move]) -> Position {
    let mut pos = Position::start(variant);
    for &m in moves {
        pos.play_unchecked(m);
    }
    pos
}

/// A random opening of `plies` moves, each uniform among those within 50 centipawns of the
/// best at `depth` (fewer moves if the game ends first).
pub fn random_opening(
    searcher: &mut Searcher,
    variant: &Arc<Variant>,
    plies: u32,
    depth: u32,
    seed: u64,
) -> Vec<Move> {
    random_opening_within(searcher, variant, plies, depth, [50, 50], seed)
}

/// [`random_opening`] with each side's margin: the first side's plies are chosen among the
/// moves within `margins[0]` centipawns of the best, the second side's within `margins[1]`.
pub fn random_opening_within(
    searcher: &mut Searcher,
    variant: &Arc<Variant>,
    plies: u32,
    depth: u32,
    margins: [i32; 2],
    seed: u64,
) -> Vec<Move> {
    let mut rng = Rng::new(seed);
    let mut pos = Position::start(variant);
    let mut out = Vec::new();
    for _ in 0..plies {
        if pos.outcome().is_some() {
            break;
        }
        let scored = searcher.score_root_moves(&mut pos, depth, &Limits::default());
        let Some(best) = scored.iter().map(|x| x.1).max() else {
            break;
        };
        let margin = margins[pos.turn().index().min(1)];
        let ok: Vec<Move> = scored
            .iter()
            .filter(|x| x.1 >= best.saturating_sub(margin))
            .map(|x| x.0)
            .collect();
        let m = ok[rng.below(ok.len() as u64) as usize];
        pos.play_unchecked(m);
        out.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Catalog;

    fn chess() -> Arc<Variant> {
        Catalog::builtin().get("chess").unwrap()
    }

    #[test]
    fn a_generated_book_reads_back_the_same() {
        let v = chess();
        let eval = Arc::new(Evaluator::derived(&v));
        let spec = BookSpec {
            count: 6,
            plies: 4,
            check_nodes: 2_000,
            max_score: 80,
            ..BookSpec::default()
        };
        let (book, stats) = generate(&eval, &spec);
        assert_eq!(book.len(), 6);
        assert!(stats.tried >= 6);
        let text = book.write(&v, &["a test".to_string()]);
        assert!(text.starts_with("# a test\nvariant chess\n"), "{text}");
        assert_eq!(Book::parse(&v, &text).unwrap(), book);
        // The same spec gives the same book.
        assert_eq!(generate(&eval, &spec).0, book);
        // No two openings reach the same position.
        let ends: HashSet<u64> = (0..book.len() as u64)
            .map(|k| after(&v, book.opening(k)).hash())
            .collect();
        assert_eq!(ends.len(), book.len());
    }

    #[test]
    fn an_unbalanced_opening_is_left_out() {
        let v = chess();
        let eval = Arc::new(Evaluator::derived(&v));
        // A limit of 0 centipawns leaves out every opening not scored exactly level.
        let spec = BookSpec {
            count: 4,
            plies: 3,
            check_nodes: 2_000,
            max_score: 0,
            ..BookSpec::default()
        };
        let (book, stats) = generate(&eval, &spec);
        assert!(stats.unbalanced > 0, "{stats:?}");
        assert_eq!(
            book.len() + stats.unbalanced + stats.repeated + stats.over,
            stats.tried
        );
        // A limit no score meets leaves the book empty after its tries, and an empty book
        // gives no moves rather than a panic.
        let spec = BookSpec {
            count: 2,
            max_score: -1,
            ..spec
        };
        let (book, stats) = generate(&eval, &spec);
        assert!(book.is_empty());
        assert_eq!(stats.tried, 40);
        assert_eq!(book.opening(3), &[] as &[Move]);
    }

    /// The position after `moves` (UCI) from chess's start.
    fn chess_after(v: &Arc<Variant>, moves: &str) -> Position {
        let mut pos = Position::start(v);
        for t in moves.split_whitespace() {
            let m = notation::parse_uci(&pos, t).unwrap();
            pos.play_unchecked(m);
        }
        pos
    }

    #[test]
    fn a_game_played_out_scores_for_the_first_side() {
        let v = chess();
        let mut searcher = Searcher::new(Arc::new(Evaluator::derived(&v)), 1);
        // White mates at once (Qxf7), Black at once (Qh4); a game cut before its end is a draw.
        let white = chess_after(&v, "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6");
        let black = chess_after(&v, "f2f3 e7e5 g2g4");
        assert_eq!(play_out(&mut searcher, white.clone(), 500, 10), 1.0);
        assert_eq!(play_out(&mut searcher, black, 500, 10), 0.0);
        assert_eq!(play_out(&mut searcher, white, 500, 0), 0.5);
    }

    #[test]
    fn judged_openings_are_level_by_play_and_the_same_on_any_number_of_threads() {
        let v = chess();
        let eval = Arc::new(Evaluator::derived(&v));
        let spec = BookSpec {
            count: 6,
            plies: 4,
            check_nodes: 1_000,
            // Every score passes: only the games judge.
            max_score: 100_000,
            judge: Some(Judge {
                games: 2,
                nodes: 300,
                max_plies: 60,
            }),
            threads: 1,
            ..BookSpec::default()
        };
        let (book, stats) = generate(&eval, &spec);
        assert_eq!(
            book.len() + stats.unbalanced + stats.repeated + stats.over + stats.lopsided,
            stats.tried,
            "{stats:?}"
        );
        assert_eq!(stats.kept_halves.1, 2 * book.len() as u32);
        // Every opening kept is one whose games, played again, share the points.
        let mut searcher = Searcher::new(eval.clone(), 16);
        for k in 0..book.len() as u64 {
            let pos = after(&v, book.opening(k));
            let p = play_out(&mut searcher, pos.clone(), 300, 56)
                + play_out(&mut searcher, pos, 375, 56);
            assert!((0.5..=1.5).contains(&p), "opening {k}: {p}");
        }
        let two = BookSpec { threads: 2, ..spec };
        assert_eq!(generate(&eval, &two), (book, stats));
    }

    #[test]
    fn an_opening_one_colour_wins_in_play_is_left_out() {
        // Single Besiege Ecumenical scores level and Black wins most games: its array.
        let v = Catalog::builtin().get("ecumenical-besiege").unwrap();
        let eval = Arc::new(Evaluator::derived(&v));
        let spec = BookSpec {
            count: 2,
            plies: 4,
            check_nodes: 500,
            max_score: 100_000,
            judge: Some(Judge {
                games: 2,
                nodes: 200,
                max_plies: 160,
            }),
            threads: 2,
            ..BookSpec::default()
        };
        let (book, stats) = generate(&eval, &spec);
        assert!(stats.lopsided > 0, "{stats:?}");
        assert_eq!(book.len() + stats.lopsided, stats.tried, "{stats:?}");
    }

    #[test]
    fn a_wider_margin_lets_one_side_choose_among_worse_moves() {
        let v = chess();
        let eval = Arc::new(Evaluator::derived(&v));
        // Each side's first move over 40 seeds, with a fresh searcher for each set.
        let moves = |margins: [i32; 2]| -> (HashSet<Move>, HashSet<Move>) {
            let mut s = Searcher::new(eval.clone(), 1);
            let openings: Vec<Vec<Move>> = (0..40)
                .map(|seed| random_opening_within(&mut s, &v, 2, 2, margins, seed))
                .collect();
            (
                openings.iter().map(|o| o[0]).collect(),
                openings.iter().map(|o| o[1]).collect(),
            )
        };
        let (white, black) = moves([50, 0]);
        let (white_again, black_wide) = moves([50, 10_000]);
        // The first side's choices are the same; the second's many more: any move, not only
        // those as good as the best.
        assert_eq!(white, white_again);
        assert!(
            black_wide.len() >= black.len() + 5,
            "{} against {}",
            black_wide.len(),
            black.len()
        );
        // A margin of nothing leaves only moves as good as the best.
        let (white_best, _) = moves([0, 50]);
        assert!(white_best.len() < white.len(), "{white_best:?} {white:?}");
    }

    #[test]
    fn openings_count_round_the_book() {
        let v = chess();
        let book = Book::parse(&v, "variant chess\ne2e4 e7e5\nd2d4\n").unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book.opening(0).len(), 2);
        assert_eq!(book.opening(1).len(), 1);
        assert_eq!(book.opening(2), book.opening(0));
    }

    #[test]
    fn a_bad_book_says_what_is_wrong_and_where() {
        let v = chess();
        let cases: &[(&str, BookError)] = &[
            ("e2e4\n", BookError::NoVariant),
            ("# nothing\n", BookError::NoVariant),
            ("variant chess\n# none\n", BookError::Empty),
            (
                "variant grand\ne2e4\n",
                BookError::OtherVariant {
                    found: "grand".into(),
                    wanted: "chess".into(),
                },
            ),
            (
                "variant chess\ne2e4 e7e5\ng1f3 e2e4\n",
                BookError::Move {
                    line: 3,
                    ply: 2,
                    text: "e2e4".into(),
                    why: String::new(),
                },
            ),
            (
                "variant chess\nf2f3 e7e5 g2g4 d8h4\n",
                BookError::Over { line: 2 },
            ),
        ];
        for (text, want) in cases {
            let got = Book::parse(&v, text).unwrap_err();
            match (&got, want) {
                (
                    BookError::Move {
                        line,
                        ply,
                        text,
                        why,
                    },
                    BookError::Move {
                        line: l,
                        ply: p,
                        text: t,
                        ..
                    },
                ) => {
                    assert_eq!((line, ply, text), (l, p, t));
                    assert!(!why.is_empty());
                    assert!(got.to_string().contains("line 3, move 2 (e2e4)"), "{got}");
                }
                _ => assert_eq!(&got, want, "{text}"),
            }
        }
    }

    #[test]
    fn every_builtin_book_is_legal_and_for_its_variant() {
        let catalog = Catalog::builtin();
        for (name, text) in BUILTIN {
            let v = catalog.get(name).unwrap();
            let book = Book::parse(&v, text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(book.len() >= 100, "{name}: {} openings", book.len());
            assert_eq!(builtin(&v), Some(book), "{name}");
        }
        assert_eq!(builtin(&catalog.get("courier").unwrap()), None);
    }
}
