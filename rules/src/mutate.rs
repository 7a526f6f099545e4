//! A deterministic text mutator for the fuzz targets of every parser (moves, orders, state
//! text, variant files here; commands in the bot).
//!
//! Coverage-guided fuzzers (cargo-fuzz, AFL) need a nightly compiler or their own toolchain,
//! which a clean CI machine does not have; this one runs inside `cargo test` on stable. It
//! starts from a corpus of valid inputs, applies a few random edits chosen to hit what parsers
//! get wrong (multi-byte and control characters, markup, huge repetitions, splices of two
//! valid inputs, the grammar's own tokens), and keeps an input in the corpus when the target
//! reports a kind of outcome it had not seen: a cheap stand-in for coverage feedback. Every
//! run is reproducible from its seed, which a failing target prints.

use std::time::{Duration, Instant};

/// Edits that exercise what text parsers get wrong.
const TOKENS: &[&str] = &[
    "`",
    "``",
    "*",
    "_",
    "<",
    ">",
    "&",
    "\\",
    "\n",
    "\r\n",
    "\t",
    "\0",
    "\u{1b}[2J",
    "\u{202e}",
    "\u{feff}",
    "é",
    "♞",
    "𝄞",
    " ",
    "  ",
    "-",
    "x",
    "=",
    "+",
    "#",
    ":",
    "/",
    "@",
    "!",
    "?",
    "0",
    "1",
    "9",
    "10",
    "12",
    "16",
    "O-O",
    "O-O-O",
    "0-0",
    "R:",
    "M:",
    "e2e4",
    "Nf3",
    "=Q",
    "ep",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "=",
    "[[",
    "]]",
    "#game",
    "accept",
    "challenge",
    "w",
    "b",
    "KQkq",
    "-",
    "/",
    "8",
    "p",
    "P",
    "~",
    "*",
];

/// The mutator: a seeded generator and a growing corpus.
#[derive(Debug, Clone)]
pub struct Mutator {
    state: u64,
    corpus: Vec<String>,
}

impl Mutator {
    /// A mutator over `corpus` (at least one entry; an empty corpus starts from "").
    pub fn new(seed: u64, corpus: Vec<String>) -> Mutator {
        let corpus = if corpus.is_empty() {
            vec![String::new()]
        } else {
            corpus
        };
        Mutator {
            state: seed ^ 0x9e37_79b9_7f4a_7c15,
            corpus,
        }
    }

    fn next(&mut self) -> u64 {
        // xorshift64*: fast, and good enough to pick edits.
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A char boundary of `s` at or before byte `i`.
    fn boundary(s: &str, mut i: usize) -> usize {
        i = i.min(s.len());
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    /// The next input: a corpus entry with one to four edits.
    pub fn input(&mut self) -> String {
        let pick = self.below(self.corpus.len());
        let mut s = self.corpus[pick].clone();
        for _ in 0..1 + self.below(4) {
            let at = Self::boundary(&s, self.below(s.len() + 1));
            match self.below(9) {
                0 | 1 => {
                    let t = TOKENS[self.below(TOKENS.len())];
                    s.insert_str(at, t);
                }
                2 => {
                    let end = Self::boundary(&s, at + self.below(8));
                    s.replace_range(at..end, "");
                }
                3 => {
                    // Duplicate a piece many times: long inputs find what is not linear.
                    let end = Self::boundary(&s, at + 1 + self.below(16));
                    let piece = s[at..end].to_string();
                    let times = [2, 10, 1000, 50_000][self.below(4)];
                    if !piece.is_empty() && s.len() + piece.len() * times <= 1 << 21 {
                        s.insert_str(end, &piece.repeat(times));
                    }
                }
                4 => {
                    // Splice: the head of this entry and the tail of another.
                    let pick = self.below(self.corpus.len());
                    let other = self.corpus[pick].clone();
                    let cut = Self::boundary(&other, self.below(other.len() + 1));
                    s.truncate(at);
                    s.push_str(&other[cut..]);
                }
                5 => {
                    let end = Self::boundary(&s, at + 4);
                    let flipped: String = s[at..end]
                        .chars()
                        .map(|c| {
                            if c.is_ascii_uppercase() {
                                c.to_ascii_lowercase()
                            } else {
                                c.to_ascii_uppercase()
                            }
                        })
                        .collect();
                    s.replace_range(at..end, &flipped);
                }
                6 => s.truncate(at),
                7 => {
                    // A digit changed: numbers out of range.
                    let digits = ["0", "9", "99", "255", "256", "4294967296", "-1"];
                    let d = digits[self.below(digits.len())];
                    s.insert_str(at, d);
                }
                _ => {
                    let c = char::from_u32(self.below(0x3000) as u32).unwrap_or('?');
                    s.insert(at, c);
                }
            }
        }
        s
    }

    /// Keeps `input` for later mutation (the caller saw it do something new).
    pub fn keep(&mut self, input: String) {
        if self.corpus.len() < 4096 && input.len() <= 4096 {
            self.corpus.push(input);
        }
    }

    /// The corpus size now.
    pub fn corpus_len(&self) -> usize {
        self.corpus.len()
    }
}

/// How long each fuzz target runs: `FUZZ_SECONDS` (the test command sets it for CI), or
/// `default` seconds.
pub fn budget(default: u64) -> Duration {
    Duration::from_secs(
        std::env::var("FUZZ_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default),
    )
}

/// The seed of a run when `FUZZ_SEED` is not set: fixed, so that the test command (and CI)
/// always tries the same inputs first and a red run is never a matter of chance. Set
/// `FUZZ_SEED=time` to explore from a fresh seed, or to a number to replay a run.
pub const DEFAULT_SEED: u64 = 2026;

/// Runs `target` on mutated inputs for `budget`, feeding back inputs whose outcome kind (what
/// `target` returns) is new. Returns the number of inputs tried and of outcome kinds seen.
/// The seed is [`DEFAULT_SEED`], or `FUZZ_SEED` (a number, or `time`).
pub fn run(
    name: &str,
    corpus: Vec<String>,
    budget: Duration,
    mut target: impl FnMut(&str) -> String,
) -> (usize, usize) {
    let seed = match std::env::var("FUZZ_SEED").ok().as_deref() {
        None => DEFAULT_SEED,
        Some("time") => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
        Some(n) => n.parse().unwrap_or(DEFAULT_SEED),
    };
    eprintln!("fuzz {name}: seed {seed} (FUZZ_SEED={seed} replays it)");
    let mut m = Mutator::new(seed, corpus);
    let mut kinds = std::collections::HashSet::new();
    let start = Instant::now();
    let mut tried = 0;
    while start.elapsed() < budget {
        let input = m.input();
        let kind = target(&input);
        tried += 1;
        if kinds.insert(kind) {
            m.keep(input);
        }
    }
    eprintln!(
        "fuzz {name}: {tried} inputs, {} outcome kinds, corpus {}",
        kinds.len(),
        m.corpus_len()
    );
    (tried, kinds.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_reproducible_and_varied() {
        let corpus = vec!["e2e4".to_string(), "Nf3".to_string()];
        let a: Vec<String> = {
            let mut m = Mutator::new(5, corpus.clone());
            (0..200).map(|_| m.input()).collect()
        };
        let b: Vec<String> = {
            let mut m = Mutator::new(5, corpus);
            (0..200).map(|_| m.input()).collect()
        };
        assert_eq!(a, b);
        let distinct: std::collections::HashSet<&String> = a.iter().collect();
        assert!(distinct.len() > 150, "{}", distinct.len());
        assert!(a.iter().any(|s| s.len() > 1000), "no long input");
        assert!(a.iter().any(|s| !s.is_ascii()), "no multi-byte input");
    }
}
