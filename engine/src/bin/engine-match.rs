//! `engine-match`: N games between two engines with the rules crate as referee.
//!
//! ```text
//! engine-match --variant chess --games 50 --movetime 100 \
//!     --a level:5 --b uci:/usr/games/stockfish --b-opt UCI_LimitStrength=true --b-opt UCI_Elo=1350
//! ```
//!
//! An engine is `level:N` (the built-in engine at level 1-5, with the tuned weights it
//! carries for the variant if any; `level:N:derived` with the derived evaluation,
//! `level:N:tuned=FILE` with an `engine-tune` file; `:threads=N` after any of these searches
//! with N threads, Lazy SMP) or `uci:PATH` (any UCI engine;
//! `--a-opt` / `--b-opt NAME=VALUE` set its options, and `UCI_Variant` is set for any variant
//! but chess). Games come in pairs from one opening, each engine playing each colour once;
//! pair `k` starts from opening `k` of the variant's book (`engine::book`: the stored book of
//! the variant compiled in, or `--book FILE`, counted from `--seed`), or with `--book random`
//! (and for a variant without a book) from a few plies chosen at random (seeded) among moves
//! within 50 centipawns of the best by a shallow search, as every match did before the books
//! (2026-11-29). Every move is checked by the rules
//! crate; an illegal or missing move loses the game. Prints each result, then wins, draws,
//! losses of A and the Elo difference with its 95% margin. `--log FILE` appends each game's
//! result, last position (FEN) and moves, to replay a game or examine a refused move.
//!
//! `--variant-file FILE` plays a variant file (a player's own) instead of `--variant`; a UCI
//! engine must know it too.
//!
//! `--sprt ELO0,ELO1` turns the match into a sequential test (see `engine::sprt`): after each
//! pair of games it prints the pentanomial counts and the log-likelihood ratio, and it stops
//! as soon as H1 (A is stronger by about ELO1) or H0 (A is not stronger by ELO0) is accepted,
//! `--games` being the most it plays. `scripts/sprt` runs it between two builds.
//!
//! In a variant of more than two sides (the four-player Double Cross forms) A holds one seat
//! and B every other, A's seat going round the table from game to game (see `many_sided`).

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU32, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use engine::{
    Evaluator, Level, Player, Searcher,
    book::{self, Book},
    elo::Tally,
    search::Limits,
    sprt::{Pairs, Sprt, Verdict},
};
use rules::{Catalog, Move, Outcome, Position, Side, Variant, notation};

struct Args {
    variant: String,
    games: u32,
    movetime: Option<u64>,
    nodes: Option<u64>,
    /// Node budgets of A and B alone (default `nodes`): to play each level at its own budget,
    /// as the bot gives them.
    a_nodes: Option<u64>,
    b_nodes: Option<u64>,
    a: String,
    b: String,
    a_opts: Vec<(String, String)>,
    b_opts: Vec<(String, String)>,
    seed: u64,
    opening_plies: u32,
    /// `--book`: a book file, `random`, or (`None`) the variant's compiled-in book if any.
    book: Option<String>,
    max_plies: u32,
    times: bool,
    /// Where to append each finished game: its result, moves and final position.
    log: Option<std::path::PathBuf>,
    /// A variant file to play instead of a built-in variant (`--variant-file`).
    variant_file: Option<std::path::PathBuf>,
    /// A sequential test (`--sprt ELO0,ELO1`): `--games` is then the most to play, and the
    /// match stops as soon as the test decides (see `engine::sprt`).
    sprt: Option<Sprt>,
    /// Games played at once (`--concurrency N`, default 1), each pair by one worker with its
    /// own two engines.
    concurrency: u32,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut a = Args {
        variant: "chess".into(),
        games: 10,
        movetime: None,
        nodes: None,
        a_nodes: None,
        b_nodes: None,
        a: "level:5".into(),
        b: "level:3".into(),
        a_opts: Vec::new(),
        b_opts: Vec::new(),
        seed: 1,
        opening_plies: 4,
        book: None,
        max_plies: 400,
        times: false,
        log: None,
        variant_file: None,
        sprt: None,
        concurrency: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut val = || it.next().with_context(|| format!("{k} needs a value"));
        match k.as_str() {
            "--variant" => a.variant = val()?,
            "--games" => a.games = val()?.parse()?,
            "--movetime" => a.movetime = Some(val()?.parse()?),
            "--nodes" => a.nodes = Some(val()?.parse()?),
            "--a-nodes" => a.a_nodes = Some(val()?.parse()?),
            "--b-nodes" => a.b_nodes = Some(val()?.parse()?),
            "--a" => a.a = val()?,
            "--b" => a.b = val()?,
            "--a-opt" | "--b-opt" => {
                let v = val()?;
                let (n, x) = v.split_once('=').context("options are NAME=VALUE")?;
                let o = (n.to_string(), x.to_string());
                if k == "--a-opt" {
                    a.a_opts.push(o)
                } else {
                    a.b_opts.push(o)
                }
            }
            "--seed" => a.seed = val()?.parse()?,
            "--opening-plies" => a.opening_plies = val()?.parse()?,
            "--book" => a.book = Some(val()?),
            "--max-plies" => a.max_plies = val()?.parse()?,
            "--times" => a.times = true,
            "--log" => a.log = Some(val()?.into()),
            "--variant-file" => a.variant_file = Some(val()?.into()),
            "--concurrency" => {
                a.concurrency = val()?.parse()?;
                if a.concurrency == 0 {
                    bail!("--concurrency 0: at least one game must be played at a time");
                }
            }
            "--sprt" => {
                let v = val()?;
                let (lo, hi) = v
                    .split_once(',')
                    .context("--sprt takes ELO0,ELO1, for example 0,5")?;
                let (elo0, elo1): (f64, f64) = (lo.trim().parse()?, hi.trim().parse()?);
                if elo1 <= elo0 {
                    bail!("--sprt {v}: ELO1 must be above ELO0");
                }
                a.sprt = Some(Sprt::new(elo0, elo1));
            }
            "--help" | "-h" => {
                println!(
                    "engine-match --variant V --games N (--movetime MS | --nodes N) --a ENGINE --b ENGINE \
                     [--a-nodes N] [--b-nodes N] [--a-opt K=V] [--b-opt K=V] [--seed S] [--book FILE|random] [--opening-plies P] [--max-plies M] [--times] [--log FILE] [--variant-file FILE] [--sprt ELO0,ELO1] [--concurrency N]\n\
                     ENGINE: level:1..5 or uci:PATH"
                );
                std::process::exit(0);
            }
            _ => bail!("unknown argument {k} (try --help)"),
        }
    }
    if a.movetime.is_none() && a.nodes.is_none() && a.a_nodes.is_none() && a.b_nodes.is_none() {
        a.movetime = Some(100);
    }
    Ok(a)
}

impl Args {
    /// The node budget of A (`true`) or B.
    fn nodes_of(&self, a: bool) -> Option<u64> {
        if a { self.a_nodes } else { self.b_nodes }.or(self.nodes)
    }

    /// The budget as the match's first line says it.
    fn budget(&self) -> String {
        match (self.nodes_of(true), self.nodes_of(false), self.movetime) {
            (Some(a), Some(b), _) if a == b => format!("{a} nodes per move"),
            (Some(a), Some(b), _) => format!("A {a}, B {b} nodes per move"),
            (_, _, Some(t)) => format!("{t} ms per move"),
            _ => String::new(),
        }
    }
}

/// A UCI engine in a child process; its stdout is read by a thread so waits can time out.
struct Uci {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    name: String,
}

impl Uci {
    fn start(path: &str, variant: &str, opts: &[(String, String)]) -> anyhow::Result<Uci> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {path}"))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut u = Uci {
            child,
            stdin,
            lines: rx,
            name: path.to_string(),
        };
        u.send("uci")?;
        while let Some(l) = u.wait(Duration::from_secs(10))? {
            if let Some(n) = l.strip_prefix("id name ") {
                u.name = n.to_string();
            }
            if l == "uciok" {
                break;
            }
        }
        if variant != "chess" {
            u.send(&format!("setoption name UCI_Variant value {variant}"))?;
        }
        for (k, v) in opts {
            u.send(&format!("setoption name {k} value {v}"))?;
        }
        u.ready()?;
        Ok(u)
    }

    fn send(&mut self, s: &str) -> anyhow::Result<()> {
        writeln!(self.stdin, "{s}")?;
        self.stdin.flush()?;
        Ok(())
    }

    fn wait(&mut self, t: Duration) -> anyhow::Result<Option<String>> {
        match self.lines.recv_timeout(t) {
            Ok(l) => Ok(Some(l)),
            Err(mpsc::RecvTimeoutError::Timeout) => bail!("{} did not answer in {t:?}", self.name),
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("{} exited", self.name),
        }
    }

    fn ready(&mut self) -> anyhow::Result<()> {
        self.send("isready")?;
        loop {
            let l = self.wait(Duration::from_secs(30))?;
            if let Some(l) = l {
                if l.starts_with("info string") && l.contains("ERROR") {
                    bail!("{}: {l}", self.name);
                }
                if l == "readyok" {
                    return Ok(());
                }
            }
        }
    }

    fn best(&mut self, moves: &[String], go: &str, limit: Duration) -> anyhow::Result<String> {
        let pos = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        self.send(&pos)?;
        self.send(go)?;
        loop {
            if let Some(l) = self.wait(limit)?
                && let Some(rest) = l.strip_prefix("bestmove ")
            {
                return Ok(rest.split_whitespace().next().unwrap_or("").to_string());
            }
        }
    }
}

impl Drop for Uci {
    fn drop(&mut self) {
        let _ = self.send("quit");
        std::thread::sleep(Duration::from_millis(20));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

enum Engine {
    Internal(Box<Player>),
    External(Box<Uci>),
}

impl Engine {
    fn make(
        spec: &str,
        variant: &Arc<Variant>,
        eval: &Arc<Evaluator>,
        opts: &[(String, String)],
        seed: u64,
    ) -> anyhow::Result<Engine> {
        if let Some(rest) = spec.strip_prefix("level:") {
            let mut parts = rest.split(':');
            let level = Level::new(parts.next().unwrap_or("").parse()?)?;
            // The evaluation the engine carries (tuned weights compiled in, else derived)
            // unless a part says otherwise.
            let mut evaluation = Arc::new(Evaluator::new(variant));
            let mut threads = 1;
            for part in parts {
                if part == "derived" {
                    evaluation = eval.clone();
                } else if let Some(path) = part.strip_prefix("tuned=") {
                    let text = std::fs::read_to_string(path)
                        .with_context(|| format!("engine {spec:?}: reading {path}"))?;
                    let w = engine::tuned::parse(variant, &text)
                        .with_context(|| format!("engine {spec:?}"))?;
                    evaluation = Arc::new(Evaluator::with_weights(variant, &w));
                } else if let Some(n) = part.strip_prefix("threads=") {
                    threads = match n.parse::<usize>() {
                        Ok(n) if (1..=engine::uci::MAX_THREADS).contains(&n) => n,
                        _ => bail!(
                            "engine {spec:?}: threads={n} is not a count of threads (1 to {})",
                            engine::uci::MAX_THREADS
                        ),
                    };
                } else {
                    bail!(
                        "engine {spec:?}: after level:N write :derived, :tuned=FILE or \
                         :threads=N, not {part:?}"
                    )
                }
            }
            let mut player = Player::new(evaluation, level, seed);
            player.searcher().set_threads(threads);
            return Ok(Engine::Internal(Box::new(player)));
        }
        if let Some(p) = spec.strip_prefix("uci:") {
            return Ok(Engine::External(Box::new(Uci::start(
                p,
                &variant.name,
                opts,
            )?)));
        }
        bail!("engine {spec:?}: write level:N or uci:PATH")
    }

    fn new_game(&mut self) -> anyhow::Result<()> {
        match self {
            Engine::Internal(p) => p.new_game(),
            Engine::External(u) => {
                u.send("ucinewgame")?;
                u.ready()?;
            }
        }
        Ok(())
    }

    /// The engine's move, or why it has none (an illegal move, a crash, a timeout).
    fn play(
        &mut self,
        pos: &mut Position,
        texts: &[String],
        args: &Args,
        nodes: Option<u64>,
    ) -> Result<Move, String> {
        match self {
            Engine::Internal(p) => {
                let limits = Limits {
                    nodes,
                    time: args.movetime.map(Duration::from_millis),
                    ..Limits::default()
                };
                p.choose(pos, &limits).ok_or_else(|| "no move".to_string())
            }
            Engine::External(u) => {
                let go = match (args.movetime, nodes) {
                    (_, Some(n)) => format!("go nodes {n}"),
                    (Some(t), None) => format!("go movetime {t}"),
                    (None, None) => "go movetime 100".into(),
                };
                let limit = Duration::from_millis(args.movetime.unwrap_or(1000) * 20 + 10_000);
                let text = u.best(texts, &go, limit).map_err(|e| e.to_string())?;
                notation::parse_uci(pos, &text).map_err(|e| format!("illegal move {text:?}: {e}"))
            }
        }
    }
}

/// Where the pairs' openings come from.
enum Openings {
    /// A book: pair `k` plays opening `seed * 7919 + k`, counted round the book.
    Book(Book),
    /// Made up for each pair from the seed ([`book::random_opening`]), `plies` long.
    Random { plies: u32 },
}

impl Openings {
    /// The openings `args` asks for: `--book FILE`, `--book random`, or the variant's own
    /// book when it has one.
    fn choose(args: &Args, variant: &Arc<Variant>) -> anyhow::Result<(Openings, String)> {
        let random = || {
            (
                Openings::Random {
                    plies: args.opening_plies,
                },
                format!("random openings of {} plies", args.opening_plies),
            )
        };
        Ok(match args.book.as_deref() {
            Some("random") => random(),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("reading the book {path}"))?;
                let b = Book::parse(variant, &text).with_context(|| format!("the book {path}"))?;
                let said = format!("{} openings from {path}", b.len());
                (Openings::Book(b), said)
            }
            None => match book::builtin(variant) {
                Some(b) => {
                    let said = format!("{} openings from the book of {}", b.len(), variant.name);
                    (Openings::Book(b), said)
                }
                None => random(),
            },
        })
    }

    /// Pair `pair`'s opening.
    fn of_pair(
        &self,
        variant: &Arc<Variant>,
        eval: &Arc<Evaluator>,
        seed: u64,
        pair: u32,
    ) -> Vec<Move> {
        let k = seed.wrapping_mul(7919).wrapping_add(u64::from(pair));
        match self {
            Openings::Book(b) => b.opening(k).to_vec(),
            Openings::Random { plies } => {
                let mut s = Searcher::new(eval.clone(), 1);
                book::random_opening(&mut s, variant, *plies, 2, k)
            }
        }
    }
}

/// One game as a worker played it, for the main thread to count and print.
struct Played {
    /// The game's number (0-based): games `2k` and `2k + 1` are pair `k`.
    g: u32,
    a_white: bool,
    winner: Option<Side>,
    why: String,
    texts: Vec<String>,
    /// The last position (before a refused move, the position it was refused in).
    fen: String,
    /// Our engine's move times (ms), when A is the built-in engine.
    think: Vec<f64>,
}

/// Plays game `g` (A White in even games) from its pair's opening, every move checked by the
/// rules crate: an illegal or missing move loses.
fn play_game(
    args: &Args,
    variant: &Arc<Variant>,
    eval: &Arc<Evaluator>,
    openings: &Openings,
    a: &mut Engine,
    b: &mut Engine,
    g: u32,
) -> anyhow::Result<Played> {
    let pair = g / 2;
    let a_white = g.is_multiple_of(2);
    let book = openings.of_pair(variant, eval, args.seed, pair);
    a.new_game()?;
    b.new_game()?;
    let mut pos = Position::start(variant);
    let mut texts = Vec::new();
    let mut think = Vec::new();
    for m in &book {
        texts.push(notation::uci(&pos, *m));
        pos.play_unchecked(*m);
    }
    let mut result: Option<(Option<Side>, String)> = None;
    while result.is_none() {
        if let Some(o) = pos.outcome() {
            result = Some(match o {
                Outcome::Win { winner, .. } => (Some(winner), o.to_string()),
                Outcome::Draw(_) => (None, o.to_string()),
            });
            break;
        }
        if texts.len() as u32 >= args.max_plies {
            result = Some((None, format!("adjudicated after {} plies", args.max_plies)));
            break;
        }
        let mover = pos.turn();
        let a_moves = (mover == Side::WHITE) == a_white;
        let engine = if a_moves { &mut *a } else { &mut *b };
        let started = Instant::now();
        match engine.play(&mut pos, &texts, args, args.nodes_of(a_moves)) {
            Ok(m) => {
                if a_moves && matches!(engine, Engine::Internal(_)) {
                    think.push(started.elapsed().as_secs_f64() * 1000.0);
                }
                texts.push(notation::uci(&pos, m));
                if let Err(e) = pos.play(m) {
                    result = Some((Some(Side(1 - mover.0)), format!("illegal move: {e}")));
                }
            }
            Err(e) => {
                result = Some((
                    Some(Side(1 - mover.0)),
                    format!("{} forfeits: {e}", if a_moves { "A" } else { "B" }),
                ));
            }
        }
    }
    let (winner, why) = result.unwrap_or((None, "?".into()));
    Ok(Played {
        g,
        a_white,
        winner,
        why,
        fen: rules::fen::write(&pos),
        texts,
        think,
    })
}

fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    let mut catalog = Catalog::builtin();
    let name = match &args.variant_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            catalog.add(&path.display().to_string(), &text)?
        }
        None => args.variant.clone(),
    };
    let variant = catalog.get(&name)?;
    // The openings and `level:N:derived`: the derived evaluation, the same whatever tuned
    // weights the engine carries, so that a book of openings stays the same.
    let eval = Arc::new(Evaluator::derived(&variant));
    if variant.sides != 2 {
        if let Some(b) = &args.book {
            bail!(
                "--book {b}: {} has {} sides, and its games start from the start position (books are for two sides)",
                variant.name,
                variant.sides
            );
        }
        return many_sided(&args, &variant, &eval);
    }
    let (openings, said) = Openings::choose(&args, &variant)?;
    let mut tally = Tally::default();
    let mut pairs = Pairs::default();
    let mut think: Vec<f64> = Vec::new();
    if let Some(s) = &args.sprt {
        println!(
            "SPRT elo0 {} elo1 {} alpha {} beta {}: stops when the LLR leaves ({:.2}, {:.2}), \
             or after {} games",
            s.elo0,
            s.elo1,
            s.alpha,
            s.beta,
            s.bounds().0,
            s.bounds().1,
            args.games
        );
    }
    println!(
        "{} games of {}: A = {} {:?} vs B = {} {:?}, {}, {} at a time, {said}",
        args.games,
        variant.name,
        args.a,
        args.a_opts,
        args.b,
        args.b_opts,
        args.budget(),
        args.concurrency
    );
    let t0 = Instant::now();
    // Pairs are handed out one at a time to `--concurrency` workers, each with its own two
    // engines; results are counted here as they come, so the SPRT can stop the match at once.
    let next_pair = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let pair_count = args.games.div_ceil(2);
    let (tx, rx) = mpsc::channel::<anyhow::Result<Played>>();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for worker in 0..args.concurrency {
            let (tx, args, variant, eval, openings) =
                (tx.clone(), &args, &variant, &eval, &openings);
            let (next_pair, stop) = (&next_pair, &stop);
            scope.spawn(move || {
                let engines = Engine::make(&args.a, variant, eval, &args.a_opts, args.seed)
                    .and_then(|a| {
                        Engine::make(&args.b, variant, eval, &args.b_opts, args.seed ^ 0xB)
                            .map(|b| (a, b))
                    });
                let (mut a, mut b) = match engines {
                    Ok(ab) => ab,
                    Err(e) => {
                        let _ = tx.send(Err(e.context(format!("worker {worker}"))));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let pair = next_pair.fetch_add(1, Ordering::Relaxed);
                    if pair >= pair_count {
                        return;
                    }
                    for g in [2 * pair, 2 * pair + 1] {
                        if g < args.games
                            && tx
                                .send(play_game(args, variant, eval, openings, &mut a, &mut b, g))
                                .is_err()
                        {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        // A's score in the first game of each pair, until its second comes.
        let mut first_of_pair: std::collections::HashMap<u32, f64> = Default::default();
        for game in rx {
            let game = match game {
                Ok(g) => g,
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            };
            think.extend(&game.think);
            let a_side = if game.a_white {
                Side::WHITE
            } else {
                Side::BLACK
            };
            let (text, a_score) = match game.winner {
                None => {
                    tally.draws += 1;
                    ("1/2-1/2", 0.5)
                }
                Some(w) if w == a_side => {
                    tally.wins += 1;
                    (if game.a_white { "1-0" } else { "0-1" }, 1.0)
                }
                Some(_) => {
                    tally.losses += 1;
                    (if game.a_white { "0-1" } else { "1-0" }, 0.0)
                }
            };
            println!(
                "game {:>3}: A {} {text} ({}, {} plies) | A {}-{}-{}",
                game.g + 1,
                if game.a_white { "white" } else { "black" },
                game.why,
                game.texts.len(),
                tally.wins,
                tally.draws,
                tally.losses
            );
            if let Some(path) = &args.log {
                // The moves from the start and the last position, so any game can be replayed
                // and examined.
                let line = format!(
                    "game {}: {text} ({})\nfen {}\nmoves {}\n",
                    game.g + 1,
                    game.why,
                    game.fen,
                    game.texts.join(" ")
                );
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .and_then(|mut f| f.write_all(line.as_bytes()))
                    .map_err(|e| anyhow::anyhow!("cannot write the log {}: {e}", path.display()))?;
            }
            let pair = game.g / 2;
            let Some(first) = first_of_pair.remove(&pair) else {
                first_of_pair.insert(pair, a_score);
                continue;
            };
            pairs.add(first, a_score);
            if let Some(s) = &args.sprt {
                let verdict = s.verdict(&pairs);
                println!(
                    "pair {:>4}: pentanomial {:?} LLR {:.2}{}",
                    pairs.count(),
                    pairs.0,
                    s.llr(&pairs),
                    match verdict {
                        Verdict::H1 => " -> H1 accepted",
                        Verdict::H0 => " -> H0 accepted",
                        Verdict::Continue => "",
                    }
                );
                if verdict != Verdict::Continue {
                    // The workers finish the games they are in; those are not counted.
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        Ok(())
    })?;
    print_summary(&tally, t0);
    if pairs.count() > 0 {
        let (elo, margin) = pairs.elo();
        println!(
            "pairs {} pentanomial {:?}: Elo {elo:+.1} +/- {margin:.1} (95%, from the pairs)",
            pairs.count(),
            pairs.0
        );
    }
    if let Some(s) = &args.sprt {
        let verdict = match s.verdict(&pairs) {
            Verdict::H1 => "H1 accepted (A is stronger)",
            Verdict::H0 => "H0 accepted (A is not stronger)",
            Verdict::Continue => "no decision within the games allowed",
        };
        println!(
            "SPRT [{}, {}]: LLR {:.2} ({:.2}, {:.2}): {verdict}",
            s.elo0,
            s.elo1,
            s.llr(&pairs),
            s.bounds().0,
            s.bounds().1
        );
    }
    if args.times {
        print_times(&mut think);
    }
    Ok(())
}

/// A match in a variant of more than two sides: A holds one seat, B every other one (each
/// seat its own player, so the Bs do not share a search), and A's seat moves round the table
/// from game to game. A game is won by the last player left; one cut off at `--max-plies`
/// (or drawn by rule) is a draw, except for a player already eliminated, who has lost. A's
/// score counts a win 1 and a draw 1/2; its Elo is computed as in a two-player match, so it
/// says how A fares against the field, not against one opponent (a seat of equals would
/// score 1/sides). Internal levels only: UCI has no four-player protocol.
fn many_sided(args: &Args, variant: &Arc<Variant>, eval: &Arc<Evaluator>) -> anyhow::Result<()> {
    let sides = usize::from(variant.sides);
    for spec in [&args.a, &args.b] {
        if !spec.starts_with("level:") {
            bail!(
                "{}: with {sides} sides both engines must be levels (level:1..5), not {spec}",
                variant.name
            );
        }
    }
    println!(
        "{} games of {}: A = {} in one seat vs B = {} in the other {}, {}",
        args.games,
        variant.name,
        args.a,
        args.b,
        sides - 1,
        args.budget()
    );
    let mut tally = Tally::default();
    let mut think: Vec<f64> = Vec::new();
    // Games A lost before it had moved.
    let mut unplayed = 0;
    let t0 = Instant::now();
    for g in 0..args.games {
        let a_seat = g as usize % sides;
        let mut seats = Vec::with_capacity(sides);
        for s in 0..sides {
            let spec = if s == a_seat { &args.a } else { &args.b };
            let seed = args.seed ^ (u64::from(g) << 8 | s as u64);
            seats.push(Engine::make(spec, variant, eval, &[], seed)?);
        }
        let mut pos = Position::start(variant);
        let mut texts = Vec::new();
        // Who was eliminated, and after how many plies (for the log).
        let mut out: Vec<(usize, usize)> = Vec::new();
        // Whether A has made a move: a seat can be checkmated before its first one (in
        // Wildebeest the Camel smothers the next King from the start).
        let mut a_moved = false;
        let (winner, mut why) = loop {
            if let Some(o) = pos.outcome() {
                break match o {
                    Outcome::Win { winner, .. } => (Some(winner), o.to_string()),
                    Outcome::Draw(_) => (None, o.to_string()),
                };
            }
            if texts.len() as u32 >= args.max_plies {
                break (None, format!("adjudicated after {} plies", args.max_plies));
            }
            let mover = pos.turn();
            let started = Instant::now();
            let nodes = args.nodes_of(mover.index() == a_seat);
            let m = match seats[mover.index()].play(&mut pos, &texts, args, nodes) {
                Ok(m) => m,
                Err(e) => bail!("seat {} has no move: {e}", mover.index()),
            };
            if mover.index() == a_seat {
                think.push(started.elapsed().as_secs_f64() * 1000.0);
                a_moved = true;
            }
            texts.push(notation::uci(&pos, m));
            if let Err(e) = pos.play(m) {
                bail!("seat {} played an illegal move: {e}", mover.index());
            }
            for s in 0..sides {
                if pos.is_out(Side(s as u8)) && !out.iter().any(|o: &(usize, usize)| o.0 == s) {
                    out.push((s, texts.len()));
                }
            }
        };
        if !a_moved && pos.is_out(Side(a_seat as u8)) {
            unplayed += 1;
            why.push_str(", A out before its first move");
        }
        let text = match winner {
            // A draw among the others after A was eliminated is A's loss: A is out.
            None if pos.is_out(Side(a_seat as u8)) => {
                tally.losses += 1;
                "A loses (out before the draw)"
            }
            None => {
                tally.draws += 1;
                "draw"
            }
            Some(w) if w.index() == a_seat => {
                tally.wins += 1;
                "A wins"
            }
            Some(_) => {
                tally.losses += 1;
                "A loses"
            }
        };
        println!(
            "game {:>3}: A in seat {a_seat}, {text} ({why}, {} plies) | A {}-{}-{}",
            g + 1,
            texts.len(),
            tally.wins,
            tally.draws,
            tally.losses
        );
        if let Some(path) = &args.log {
            let outs: Vec<String> = out
                .iter()
                .map(|(s, ply)| format!("seat {s} out after ply {ply}"))
                .collect();
            let line = format!(
                "game {}: A in seat {a_seat}, {text} ({why}); {}\nfen {}\nmoves {}\n",
                g + 1,
                outs.join(", "),
                rules::fen::write(&pos),
                texts.join(" ")
            );
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(line.as_bytes()))
                .map_err(|e| anyhow::anyhow!("cannot write the log {}: {e}", path.display()))?;
        }
    }
    if unplayed > 0 {
        println!("A was checkmated before its first move in {unplayed} of the losses");
    }
    print_summary(&tally, t0);
    if args.times {
        print_times(&mut think);
    }
    Ok(())
}

/// With `--times`: how long A took per move (median, 99th percentile, longest).
fn print_times(think: &mut [f64]) {
    if think.is_empty() {
        return;
    }
    think.sort_by(|x, y| x.total_cmp(y));
    let p = |q: f64| think[((think.len() - 1) as f64 * q) as usize];
    println!(
        "A's move times over {} moves: median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        think.len(),
        p(0.5),
        p(0.99),
        p(1.0)
    );
}

/// The match's last line: A's wins, draws and losses, score, and Elo difference with its 95%
/// margin (what `scripts/engine-seeds` and `scripts/engine-match` read).
fn print_summary(tally: &Tally, t0: Instant) {
    let (elo, margin) = tally.elo();
    println!(
        "A vs B: +{} ={} -{} of {} games, score {:.1}%, Elo difference {:+.0} +/- {:.0} (95%), {:.0} s",
        tally.wins,
        tally.draws,
        tally.losses,
        tally.games(),
        100.0 * tally.score(),
        elo,
        margin,
        t0.elapsed().as_secs_f64()
    );
}
