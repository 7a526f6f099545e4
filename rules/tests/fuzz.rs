//! Fuzz targets for every parser of the engine: moves, Looking-Glass orders and back ranks,
//! state text and variant files. Each runs mutated inputs (`rules::mutate`) for
//! `FUZZ_SECONDS` (2 s by default; the test command sets more for CI) and checks what must
//! hold for any input at all: no panic, an accepted input means what it says (it round-trips),
//! a refusal is short and quotes at most a short prefix of the input.
//!
//! A failure prints the seed: `FUZZ_SEED=N cargo test -p rules --test fuzz TARGET` replays it.

mod common;

use rules::{
    Catalog, Position, Side, fen,
    glass::{self, BackRank, Glass, GlassRules},
    mutate, notation,
    quote::QUOTE_CHARS,
};

/// The longest refusal any parser may give (a list of ambiguous candidates included).
const MAX_ERROR: usize = 600;

/// Checks that `message` does not echo more of `input` than a quote shows.
fn echoes_little(input: &str, message: &str) {
    assert!(
        message.len() <= MAX_ERROR,
        "a {}-byte refusal for a {}-byte input: {}…",
        message.len(),
        input.len(),
        &message[..message
            .char_indices()
            .nth(200)
            .map_or(message.len(), |(i, _)| i)]
    );
    let chars: Vec<char> = input.chars().collect();
    if chars.len() > QUOTE_CHARS + 20 {
        let window: String = chars[..QUOTE_CHARS + 10].iter().collect();
        assert!(
            !message.contains(&window),
            "the refusal repeats more than {QUOTE_CHARS} characters of the input: {message}"
        );
    }
}

/// A kind for the mutator's feedback: the error's first words.
fn kind(prefix: &str, message: &str) -> String {
    let words: Vec<&str> = message.split_whitespace().take(3).collect();
    format!("{prefix}:{}", words.join(" "))
}

fn sample_positions() -> Vec<Position> {
    let catalog = Catalog::builtin();
    let mut out = Vec::new();
    for (i, name) in catalog.names().iter().enumerate() {
        for plies in [0, 7, 30] {
            out.push(common::random_position(
                name,
                plies,
                i as u64 * 31 + plies as u64,
            ));
        }
    }
    out
}

#[test]
fn fuzz_moves() {
    let positions = sample_positions();
    let mut corpus = Vec::new();
    for p in &positions {
        for m in p.legal_moves().into_iter().take(6) {
            corpus.push(notation::san(p, m));
            corpus.push(notation::coord(p, m));
        }
    }
    let mut turn = 0usize;
    let (tried, _) = mutate::run("moves", corpus, mutate::budget(2), |input| {
        turn += 1;
        let pos = &positions[turn % positions.len()];
        match notation::parse_move(pos, input) {
            Ok(m) => {
                assert!(
                    pos.legal_moves().contains(&m),
                    "{input:?} parsed to an illegal move"
                );
                // What is accepted means one move: its own SAN reads back as it.
                let san = notation::san(pos, m);
                assert_eq!(notation::parse_move(pos, &san), Ok(m), "{input:?} -> {san}");
                "ok".into()
            }
            Err(e) => {
                let message = e.to_string();
                echoes_little(input, &message);
                kind("err", &message)
            }
        }
    });
    assert!(tried > 100, "only {tried} inputs");
}

#[test]
fn fuzz_state_text() {
    let positions = sample_positions();
    let corpus: Vec<String> = positions.iter().map(fen::write).collect();
    let mut turn = 0usize;
    let (tried, _) = mutate::run("state text", corpus, mutate::budget(2), |input| {
        turn += 1;
        let v = positions[turn % positions.len()].variant().clone();
        match fen::position(&v, input) {
            Ok(pos) => {
                let text = fen::write(&pos);
                let again = fen::position(&v, &text).unwrap_or_else(|e| {
                    panic!("{input:?} read, but its own text {text:?} not: {e}")
                });
                assert_eq!(fen::write(&again), text, "{input:?}");
                "ok".into()
            }
            Err(e) => {
                // State text errors name the field; they may quote it, but not a megabyte.
                let message = e.to_string();
                assert!(
                    message.len() <= 2 * fen::MAX_STATE_BYTES,
                    "{}",
                    message.len()
                );
                kind("err", &message)
            }
        }
    });
    assert!(tried > 100, "only {tried} inputs");
}

#[test]
fn fuzz_variant_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("variants");
    let mut corpus = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            corpus.push(std::fs::read_to_string(path).unwrap());
        }
    }
    assert!(corpus.len() > 10);
    let (tried, _) = mutate::run("variant files", corpus, mutate::budget(2), |input| {
        match Catalog::check_file("fuzzed.toml", input) {
            Ok(v) => {
                // A variant that resolves can be played: its start has legal moves or an
                // outcome, and its state text reads back.
                let start = Position::start(&v);
                let text = fen::write(&start);
                fen::position(&v, &text)
                    .unwrap_or_else(|e| panic!("start of a fuzzed variant: {text:?}: {e}"));
                "ok".into()
            }
            Err(e) => {
                let message = e.to_string();
                // Cut by characters (`quote::visible`): a bound on what a player reads.
                assert!(message.chars().count() <= 1000, "{message}");
                kind(e.key.split(['.', ' ']).next().unwrap_or(""), &e.problem)
            }
        }
    });
    assert!(tried > 10, "only {tried} inputs");
}

/// The Fairy-Stockfish `variants.ini` importer and the whole check a player's variant goes
/// through (`validate`): any text either becomes a playable variant whose start reads back,
/// or a short refusal that echoes little of it.
#[test]
fn fuzz_ini_files() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ini/variants.ini"),
    )
    .unwrap();
    // One section per input, with its parent's text when the parent is in the file.
    let sections = rules::ini::sections(&text).unwrap();
    let corpus: Vec<String> = sections
        .iter()
        .map(|s| {
            let mut out = format!(
                "[{}{}]\n",
                s.name,
                s.parent
                    .as_deref()
                    .map(|p| format!(":{p}"))
                    .unwrap_or_default()
            );
            for e in &s.entries {
                out.push_str(&format!("{} = {}\n", e.key, e.value));
            }
            out
        })
        .collect();
    assert!(corpus.len() >= 20);
    let limits = rules::validate::Limits::default();
    let (tried, _) =
        mutate::run(
            "ini files",
            corpus,
            mutate::budget(2),
            |input| match rules::validate::validate(
                input,
                rules::validate::Format::Ini,
                &limits,
                &[],
            ) {
                Ok(checked) => {
                    let start = Position::start(&checked.variant);
                    let text = fen::write(&start);
                    fen::position(&checked.variant, &text)
                        .unwrap_or_else(|e| panic!("start of a fuzzed ini variant: {text:?}: {e}"));
                    "ok".into()
                }
                Err(e) => {
                    let message = e.to_string();
                    assert!(message.chars().count() <= 1000, "{message}");
                    kind("ini", &message)
                }
            },
        );
    assert!(tried > 10, "only {tried} inputs");
}

#[test]
fn fuzz_glass_orders_and_back_ranks() {
    let mut games = Vec::new();
    for seed in 0..6u64 {
        let mut g = Glass::new(GlassRules {
            no_strikes: seed % 2 == 1,
        });
        g.choose(
            Side::WHITE,
            BackRank::from_number((seed * 97 % 960) as u32).unwrap(),
        )
        .unwrap();
        g.choose(Side::BLACK, BackRank::orthodox()).unwrap();
        let mut x = seed;
        for _ in 0..(seed * 5) {
            let side = g.turn();
            let army = if g.is_forced() {
                glass::other(side)
            } else {
                side
            };
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            let moves = g.moves_on(army, (x >> 40) as u8 % 2);
            if moves.is_empty() || g.is_over().is_some() {
                break;
            }
            let _ = g.order(side, &moves[(x >> 33) as usize % moves.len()]);
        }
        games.push(g);
    }
    let corpus = vec![
        "e2e4".to_string(),
        "M:d1d7".into(),
        "R:e7e8q".into(),
        "O-O".into(),
        "RNBQKBNR".into(),
        "518".into(),
        "random".into(),
    ];
    let mut turn = 0usize;
    let (tried, _) = mutate::run("glass orders", corpus, mutate::budget(2), |input| {
        turn += 1;
        let back = match BackRank::parse(input) {
            Ok(r) => {
                assert_eq!(BackRank::parse(r.letters()).unwrap(), r, "{input:?}");
                "rank".to_string()
            }
            Err(e) => {
                echoes_little(input, &e.to_string());
                kind("rank", &e.to_string())
            }
        };
        let mut g = games[turn % games.len()].clone();
        let side = g.turn();
        let order = match g.order(side, input) {
            Ok(_) => "order".to_string(),
            Err(e) => {
                echoes_little(input, &e.to_string());
                kind("order", &e.to_string())
            }
        };
        format!("{back}/{order}")
    });
    assert!(tried > 100, "only {tried} inputs");
}
