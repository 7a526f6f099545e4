//! Fuzz targets for what users type into the bot: the command parser alone, and whole lines
//! through the service while games are in progress (bare moves, Looking-Glass orders and
//! setups, commands with `#ID`). Inputs are mutated from a corpus of real commands
//! (`rules::mutate`) for `FUZZ_SECONDS` (2 s by default; the test command sets more for CI).
//!
//! What must hold for any line at all: no panic; every reply short; no reply repeats more
//! than a quote's worth of the line; no reply carries a control character the line put there
//! (a terminal escape, a line break inside quoted text) except the line breaks the bot writes
//! itself; and an oversized line is refused without being looked at.

use std::sync::Arc;

use bot_core::{
    Actor, GameService, SeededChance, command,
    model::{Place, Platform, PlayerId},
    quote::{MAX_COMMAND_BYTES, QUOTE_CHARS},
    store::memory::MemoryStore,
};
use rules::{Catalog, mutate};

mod common;
use common::*;

/// The corpus: every command of the grammar, in the forms people type.
fn corpus() -> Vec<String> {
    [
        "challenge @bob:example.org toulousain",
        "challenge @bob:example.org chess black",
        "challenge looking-glass random",
        "challenge @bob:example.org @carol:example.org @dave:example.org dcb-balanced-4p",
        "challenge @carol:example.org @bob:example.org @dave:example.org dcb-kamil-4p random",
        "resign:blue",
        "Green resigns",
        "pass",
        "accept",
        "accept 1",
        "decline 2",
        "cancel",
        "move e4",
        "move #1 Nf3",
        "e2e4",
        "exd5",
        "O-O",
        "e7e8=Q",
        "k10k9",
        "board",
        "board #1",
        "moves e2",
        "resign",
        "draw",
        "draw accept #1",
        "takeback decline",
        "abort",
        "games",
        "history #1",
        "export",
        "replay",
        "replay #2",
        "variants",
        "rules bilateral",
        "piece toulousain gryphon",
        "help move",
        "setup RNBQKBNR",
        "setup 518",
        "setup #2 random",
        "ask",
        "M:d1d7",
        "R:e2e4",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Checks one reply text against the line that caused it.
fn check_reply(line: &str, text: &str) {
    // Lists (`moves`, `variants`, `help`, rules texts) are the longest replies; none is
    // near a chat message's limit.
    assert!(
        text.len() <= 4000,
        "a {}-byte reply to {:?}…",
        text.len(),
        line.chars().take(60).collect::<String>()
    );
    let chars: Vec<char> = line.chars().collect();
    if chars.len() > QUOTE_CHARS + 20 {
        let window: String = chars[..QUOTE_CHARS + 10].iter().collect();
        assert!(
            !text.contains(&window),
            "the reply repeats more than a quote of the line: {text}"
        );
    }
    for c in text.chars() {
        assert!(
            c == '\n' || !(c.is_control() || rules::quote::is_hazard(c)),
            "control character {c:?} in a reply to {line:?}: {text:?}"
        );
    }
}

#[test]
fn fuzz_command_parser() {
    let (tried, _) = mutate::run("commands", corpus(), mutate::budget(2), |line| {
        match command::parse(line) {
            Ok(cmd) => {
                // A parsed command is within the cap, and so is every field of it.
                assert!(
                    line.len() <= MAX_COMMAND_BYTES,
                    "{} bytes parsed",
                    line.len()
                );
                assert!(cmd.oversized().is_none());
                format!(
                    "ok:{}",
                    format!("{cmd:?}")
                        .split(['(', ' ', '{'])
                        .next()
                        .unwrap_or("")
                )
            }
            Err(e) => {
                let text = e.to_string();
                check_reply(line, &text);
                format!(
                    "err:{}",
                    text.split_whitespace()
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            }
        }
    });
    assert!(tried > 100, "only {tried} inputs");
}

#[test]
fn fuzz_lines_through_the_service() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let store = MemoryStore::new();
    let svc = GameService::new(store, TestClock::default(), Arc::new(Catalog::builtin()))
        .with_chance(SeededChance::new(9));
    let room = Place::room(Platform::Matrix, "!room:example.org");
    let dm = Place::direct(Platform::Matrix, "!dm:example.org");
    let player = |name: &str| {
        Actor::new(
            PlayerId::new(Platform::Matrix, format!("@{name}:example.org")),
            name.to_string(),
        )
    };
    let (alice, bob) = (player("alice"), player("bob"));
    // Games in progress for the bare moves and orders to land in: Toulousain in the room,
    // Looking-Glass set up and played from the direct chat.
    runtime.block_on(async {
        for (variant, setups) in [("toulousain", false), ("looking-glass", true)] {
            svc.handle_text(
                &alice,
                &room,
                &format!("challenge @bob:example.org {variant}"),
            )
            .await;
            svc.handle_text(&bob, &room, "accept").await;
            if setups {
                svc.handle_text(&alice, &dm, "setup #2 518").await;
                svc.handle_text(&bob, &dm, "setup #2 0").await;
            }
        }
    });
    let mut turn = 0usize;
    let (tried, _) = mutate::run("service", corpus(), mutate::budget(2), |line| {
        turn += 1;
        let who = if turn.is_multiple_of(2) { &alice } else { &bob };
        let place = if turn.is_multiple_of(3) { &dm } else { &room };
        let replies = runtime.block_on(svc.handle_text(who, place, line));
        assert!(!replies.is_empty(), "no reply to {line:?}");
        let mut kind = String::new();
        for r in &replies {
            let text = r.render_text(|p| p.user.clone());
            check_reply(line, &text);
            kind.push_str(
                &text
                    .split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        kind
    });
    assert!(tried > 50, "only {tried} inputs");
}
