//! `perft VARIANT DEPTH [--fen STATE] [--divide] [--file my-variant.toml]`
//! `perft check FILE`
//! `perft walk VARIANT PLIES SEED [--fen STATE]`
//! `perft chess960-start N`
//!
//! Counts perft nodes (bulk counting), printing nodes, time and nodes per second; or checks a
//! variant file and prints its typed errors; or plays a pseudo-random legal game (`walk`) and
//! prints the position it reaches, for reference data made by other programs
//! (`scripts/fsf-perft-played` gives these positions to Fairy-Stockfish); or prints the
//! start state of Chess960 position N (0-959, Scharnagl's numbering).

use std::{process::ExitCode, sync::Arc, time::Instant};

use rules::{Catalog, Position, Variant, fen, perft};

const USAGE: &str = "usage:
  perft VARIANT DEPTH [--fen STATE] [--divide] [--file my-variant.toml|variants.ini]
  perft check FILE   (a .toml file, or a .ini file's last section)
  perft walk VARIANT PLIES SEED [--fen STATE]
  perft chess960-start N
  perft list";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("perft: {e}");
            ExitCode::FAILURE
        }
    }
}

fn load(catalog: &mut Catalog, name: &str, file: Option<&str>) -> Result<Arc<Variant>, String> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        if path.ends_with(".ini") {
            // A Fairy-Stockfish variants.ini: the section named NAME (or the last one for `-`).
            let section = (name != "-").then_some(name);
            let (_, v) = rules::ini::check(&text, section).map_err(|e| format!("{path}: {e}"))?;
            return Ok(v);
        }
        let added = catalog.add(path, &text).map_err(|e| e.to_string())?;
        if name == "-" || name == added {
            return catalog.get(&added).map_err(|e| e.to_string());
        }
    }
    catalog.get(name).map_err(|e| e.to_string())
}

fn run(args: &[String]) -> Result<(), String> {
    let mut catalog = Catalog::builtin();
    match args.first().map(String::as_str) {
        None | Some("-h" | "--help") => {
            println!("{USAGE}");
            return Ok(());
        }
        Some("list") => {
            for n in catalog.names() {
                println!("{n}");
            }
            return Ok(());
        }
        Some("walk") => return walk(&mut catalog, &args[1..]),
        Some("chess960-start") => {
            let n = args.get(1).and_then(|n| n.parse().ok());
            let state = n.and_then(rules::chess960::start_fen).ok_or(
                "chess960-start needs a position number from 0 to 959 (518 is the orthodox array)",
            )?;
            println!("{state}");
            return Ok(());
        }
        Some("check") => {
            let path = args.get(1).ok_or(USAGE)?;
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            let v = if path.ends_with(".ini") {
                rules::ini::check(&text, args.get(2).map(String::as_str))
                    .map_err(|e| format!("{path}: {e}"))?
                    .1
            } else {
                Catalog::check_file(path, &text).map_err(|e| e.to_string())?
            };
            println!(
                "{path}: ok: {} ({} cells, {} piece kinds)",
                v.display_name,
                v.geometry.len(),
                v.pieces.len() - 1
            );
            return Ok(());
        }
        _ => {}
    }
    let name = &args[0];
    let depth: u32 = args
        .get(1)
        .ok_or(USAGE)?
        .parse()
        .map_err(|_| format!("depth {:?} is not a number\n{USAGE}", args[1]))?;
    let mut fen_text = None;
    let mut file = None;
    let mut divide = false;
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--fen" => {
                fen_text = Some(args.get(i + 1).ok_or("--fen needs a state")?.clone());
                i += 1;
            }
            "--file" => {
                file = Some(args.get(i + 1).ok_or("--file needs a path")?.clone());
                i += 1;
            }
            "--divide" => divide = true,
            other => return Err(format!("unknown option {other:?}\n{USAGE}")),
        }
        i += 1;
    }
    let variant = load(&mut catalog, name, file.as_deref())?;
    let mut pos = match &fen_text {
        Some(f) => fen::position(&variant, f).map_err(|e| e.to_string())?,
        None => Position::start(&variant),
    };
    let t = Instant::now();
    let nodes = if divide {
        let parts = perft::divide(&mut pos, depth);
        for (m, n) in &parts {
            println!("{m}: {n}");
        }
        parts.iter().map(|p| p.1).sum()
    } else {
        perft::perft(&mut pos, depth)
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{} depth {depth}: {nodes} nodes in {:.3} s ({:.2} Mnps)",
        variant.name,
        secs,
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

/// `walk VARIANT PLIES SEED [--fen STATE]`: plays up to PLIES pseudo-random legal moves from the
/// start (or STATE), the same ones for the same SEED, never into a finished game (the walk stops
/// before a move that ends it), and prints two lines: the state text reached, and the same
/// in UCI's piece letters (Fairy-Stockfish's and Cute Chess's, see `uci_letter`).
fn walk(catalog: &mut Catalog, args: &[String]) -> Result<(), String> {
    let [name, plies, seed, rest @ ..] = args else {
        return Err(USAGE.into());
    };
    let variant = load(catalog, name, None)?;
    let plies: usize = plies
        .parse()
        .map_err(|_| format!("plies {plies:?} is not a number\n{USAGE}"))?;
    let seed: u64 = seed
        .parse()
        .map_err(|_| format!("seed {seed:?} is not a number\n{USAGE}"))?;
    let mut pos = match rest {
        [] => Position::start(&variant),
        [flag, state] if flag == "--fen" => {
            fen::position(&variant, state).map_err(|e| e.to_string())?
        }
        _ => return Err(format!("unknown options {rest:?}\n{USAGE}")),
    };
    // xorshift64* (a zero seed would stay zero).
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut below = |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    };
    for _ in 0..plies {
        if pos.outcome().is_some() {
            break;
        }
        let moves = pos.legal_moves();
        let m = moves[below(moves.len())];
        pos.play_unchecked(m);
        if pos.outcome().is_some() {
            pos.undo();
            break;
        }
    }
    let ours = fen::write(&pos);
    println!("{ours}");
    println!("{}", to_uci_letters(&variant, &ours));
    Ok(())
}

/// The inverse of [`fen::from_uci_letters`]: the board field in UCI's piece letters.
fn to_uci_letters(variant: &Variant, text: &str) -> String {
    let renamed: Vec<(char, char)> = variant
        .kinds()
        .map(|k| variant.piece(k))
        .filter(|p| p.uci_letter != p.letter)
        .map(|p| (p.letter, p.uci_letter))
        .collect();
    let (board, rest) = text.split_once(' ').unwrap_or((text, ""));
    let board: String = board
        .chars()
        .map(|c| {
            match renamed
                .iter()
                .find(|(own, _)| *own == c.to_ascii_uppercase())
            {
                Some((_, uci)) if c.is_ascii_lowercase() => uci.to_ascii_lowercase(),
                Some((_, uci)) => *uci,
                None => c,
            }
        })
        .collect();
    if rest.is_empty() {
        board
    } else {
        format!("{board} {rest}")
    }
}
