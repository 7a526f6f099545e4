//! `perft VARIANT DEPTH [--fen STATE] [--divide] [--file my-variant.toml]`
//! `perft check FILE`
//!
//! Counts perft nodes (bulk counting), printing nodes, time and nodes per second; or checks a
//! variant file and prints its typed errors.

use std::{process::ExitCode, sync::Arc, time::Instant};

use rules::{Catalog, Position, Variant, fen, perft};

const USAGE: &str = "usage:
  perft VARIANT DEPTH [--fen STATE] [--divide] [--file my-variant.toml|variants.ini]
  perft check FILE   (a .toml file, or a .ini file's last section)
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
