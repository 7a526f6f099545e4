//! `engine-book`: writes an opening book for a variant (see `engine::book`).
//!
//! ```text
//! engine-book VARIANT | FILE.toml [--count N] [--plies P] [--pick-depth D] [--margins CP[,CP]]
//!             [--check-nodes N] [--max-score CP] [--seed S] [--judge-games G] [--judge-nodes N]
//!             [--judge-max-plies P] [--threads T] [--out FILE]
//! ```
//!
//! A built-in variant by name, or any variant file (a player's own). Writes `--count`
//! openings (default 250), picking each one's plies (`--plies`, default 8) among the moves
//! within 50 centipawns of the best at `--pick-depth` (default 3; `--margins FIRST,SECOND`
//! widens the margin for one side, for a variant whose start favours it beyond what 8 plies
//! of good moves can level),
//! checks the position reached with a search of `--check-nodes` (default 50,000) and keeps it
//! if its score is within `--max-score` centipawns (default 60) and no earlier opening
//! reached it. With `--judge-games G` (default none) each opening that passes is also played
//! out G times by the engine against itself (`--judge-nodes`, default 3,000 nodes a move in
//! the first game and a quarter more in each next one; a draw after `--judge-max-plies`,
//! default 400) on `--threads` threads, and kept only if neither side took more than three
//! quarters of the points: for a variant whose array favours one colour, since a score is
//! one search's opinion and a match counts games. The derived evaluation judges, so the book
//! does not follow a tuning. Writes
//! the book (default `target/books/NAME.txt`) with a header saying how it was made;
//! `engine-match --book FILE` plays from it, and a file copied to `engine/books/` and named
//! in `engine::book` is compiled in as the variant's default.

use std::{path::PathBuf, sync::Arc, time::Instant};

use anyhow::{Context, bail};
use engine::{
    Evaluator,
    book::{self, BookSpec, Judge},
};
use rules::Catalog;

fn main() -> anyhow::Result<()> {
    let mut it = std::env::args().skip(1);
    let mut target: Option<String> = None;
    let mut spec = BookSpec::default();
    let mut out: Option<PathBuf> = None;
    let mut judge = Judge::default();
    let mut judged = false;
    while let Some(k) = it.next() {
        let mut val = || it.next().with_context(|| format!("{k} needs a value"));
        match k.as_str() {
            "--count" => spec.count = val()?.parse()?,
            "--plies" => spec.plies = val()?.parse()?,
            "--pick-depth" => spec.pick_depth = val()?.parse()?,
            "--margins" => spec.margins = margins(&val()?)?,
            "--check-nodes" => spec.check_nodes = val()?.parse()?,
            "--max-score" => spec.max_score = val()?.parse()?,
            "--seed" => spec.seed = val()?.parse()?,
            "--judge-games" => {
                judge.games = val()?.parse()?;
                judged = judge.games > 0;
            }
            "--judge-nodes" => judge.nodes = val()?.parse()?,
            "--judge-max-plies" => judge.max_plies = val()?.parse()?,
            "--threads" => spec.threads = val()?.parse()?,
            "--out" => out = Some(val()?.into()),
            "--help" | "-h" => {
                println!(
                    "engine-book VARIANT|FILE.toml [--count N] [--plies P] [--pick-depth D] \
                     [--margins CP[,CP]] [--check-nodes N] [--max-score CP] [--seed S] [--judge-games G] \
                     [--judge-nodes N] [--judge-max-plies P] [--threads T] [--out FILE]"
                );
                return Ok(());
            }
            _ if !k.starts_with("--") && target.is_none() => target = Some(k),
            _ => bail!("unknown argument {k:?} (see --help)"),
        }
    }
    let target = target.context("name a variant or a variant file (see --help)")?;
    if judged {
        if judge.nodes == 0 {
            bail!("--judge-nodes 0: a judging game needs at least one node a move");
        }
        spec.judge = Some(judge);
    }
    if spec.count == 0 {
        bail!("--count 0: a book needs at least one opening");
    }
    let variant = if target.ends_with(".toml") {
        let text = std::fs::read_to_string(&target).with_context(|| format!("reading {target}"))?;
        Catalog::check_file(&target, &text)?
    } else {
        Catalog::builtin().get(&target)?
    };
    if variant.sides != 2 {
        bail!(
            "{} has {} sides: books are for two-sided matches (a four-player match starts from the start position)",
            variant.name,
            variant.sides
        );
    }
    let eval = Arc::new(Evaluator::derived(&variant));
    let t0 = Instant::now();
    let (book, stats) = book::generate(&eval, &spec);
    let mut header = vec![
        format!(
            "{} openings of {} plies for {}, written by engine-book (engine/src/bin/engine-book.rs):",
            book.len(),
            spec.plies,
            variant.name
        ),
        match spec.margins {
            [a, b] if a == b => format!(
                "each ply among the moves within {a} centipawns of the best at depth {}, seed {};",
                spec.pick_depth, spec.seed
            ),
            [a, b] => format!(
                "each ply among the moves within {a} centipawns of the best for the first side and {b} for the second, at depth {}, seed {};",
                spec.pick_depth, spec.seed
            ),
        },
        format!(
            "kept when a {}-node search of the derived evaluation scores the position within {} centipawns",
            spec.check_nodes, spec.max_score
        ),
        format!(
            "and no earlier opening reached it ({} tried: {} unbalanced, {} repeated, {} ended the game).",
            stats.tried, stats.unbalanced, stats.repeated, stats.over
        ),
    ];
    if let Some(j) = spec.judge {
        let (halves, games) = stats.kept_halves;
        header.push(format!(
            "Each also played out {} times against itself ({} nodes a move, a quarter more each next game, a draw after {} plies)",
            j.games, j.nodes, j.max_plies
        ));
        header.push(format!(
            "and kept when neither side took more than three quarters of the points: {} left out; the first side took {:.1} of {} points in the openings kept.",
            stats.lopsided,
            f64::from(halves) / 2.0,
            games
        ));
    }
    if book.is_empty() {
        bail!(
            "{}: none of {} tries was kept ({} scored beyond {} centipawns, {} lopsided in play): \
             raise --max-score, lower --plies, or widen the favoured side's --margins",
            variant.name,
            stats.tried,
            stats.unbalanced,
            spec.max_score,
            stats.lopsided
        );
    }
    let text = book.write(&variant, &header);
    let path = out.unwrap_or_else(|| PathBuf::from(format!("target/books/{}.txt", variant.name)));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!(
        "{}: {} openings in {:.1} s ({} tried: {} unbalanced, {} repeated, {} ended the game, {} lopsided in play) -> {}",
        variant.name,
        book.len(),
        t0.elapsed().as_secs_f64(),
        stats.tried,
        stats.unbalanced,
        stats.repeated,
        stats.over,
        stats.lopsided,
        path.display()
    );
    if book.len() < spec.count {
        println!(
            "fewer than the {} asked: raise --max-score or --plies, or lower --count",
            spec.count
        );
    }
    Ok(())
}

/// `--margins`: one margin for both sides, or the first side's and the second's.
fn margins(text: &str) -> anyhow::Result<[i32; 2]> {
    let parse = |t: &str| -> anyhow::Result<i32> {
        let v: i32 = t
            .trim()
            .parse()
            .with_context(|| format!("--margins {text:?}: give centipawns, as 50 or 50,400"))?;
        if v < 0 {
            bail!("--margins {text:?}: a margin is how far below the best, 0 or more");
        }
        Ok(v)
    };
    match text.split_once(',') {
        None => {
            let v = parse(text)?;
            Ok([v, v])
        }
        Some((a, b)) => Ok([parse(a)?, parse(b)?]),
    }
}
