//! Looking-Glass privacy on the web: random games played through the service, and every
//! byte the web server sends a bystander (the index, the page, the board, the export, the
//! replay, the event stream) checked while the game is played.
//!
//! The property is non-interference: while a Looking-Glass game is played, nothing a
//! bystander can fetch changes at all, whatever the players choose and order, so nothing
//! can reveal a square, a piece, an order, or when it was given. The event stream stays
//! silent until the game ends, then sends the reveal. A second, independent check looks for
//! the traces a leak would leave (square names, set-ups, drawn pieces).

use std::time::Duration;

use bot_core::model::GameRecord;
use rules::glass::{self, Glass, GlassRules};

mod common;
use common::*;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Everything a bystander can fetch about game `g`, but the event stream.
async fn fetch_all(s: &Server, g: &GameRecord) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for path in [
        "/".to_string(),
        format!("/?variant={}", g.variant),
        format!("/game/{}", g.id),
        format!("/game/{}?ply=0", g.id),
        format!("/game/{}?ply=1", g.id),
        format!("/game/{}?theme=colour-blind", g.id),
        format!("/game/{}/board.svg", g.id),
        format!("/game/{}/board.svg?ply=0", g.id),
        format!("/game/{}/export.txt", g.id),
        format!("/game/{}/replay.gif", g.id),
    ] {
        let (status, bytes) = get_bytes(&s.url(&path)).await;
        // Bytes as text (lossy for the GIF, which a hidden game never sends: 403).
        out.push((
            path,
            format!("{status} {}", String::from_utf8_lossy(&bytes)),
        ));
    }
    out
}

/// Fails on the first path whose answer changed since `before`.
fn same(now: &[(String, String)], before: &[(String, String)], after: &str) {
    for ((path, a), (_, b)) in now.iter().zip(before) {
        assert!(
            a == b,
            "{path} changed after {after:?}:\nbefore: {b}\nnow: {a}"
        );
    }
}

/// Traces of hidden information in text a bystander received.
fn traces(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let b = text.as_bytes();
    for i in 0..b.len().saturating_sub(3) {
        if (b[i] == b'R' || b[i] == b'M')
            && b[i + 1] == b':'
            && (b'a'..=b'h').contains(&b[i + 2])
            && (b'1'..=b'8').contains(&b[i + 3])
        {
            bad.push(format!("a square: {}", &text[i..i + 4]));
        }
    }
    for secret in ["setup ", "RNBQKBNR", "<svg", "<use"] {
        if text.contains(secret) {
            bad.push(format!("{secret:?}"));
        }
    }
    bad
}

#[tokio::test]
async fn a_bystander_learns_nothing_of_a_looking_glass_game_until_it_ends() {
    let s = Server::start().await;
    let mut rng = Lcg(29);
    let mut checked = 0usize;
    let mut ended = 0usize;
    for game_no in 0..8 {
        let variant = if game_no % 3 == 2 {
            glass::NAME_NO_STRIKES
        } else {
            glass::NAME
        };
        let rules = GlassRules {
            no_strikes: game_no % 3 == 2,
        };
        let g = s.start_game(variant).await;
        let seat_name = |seat: usize| {
            g.seats[seat]
                .user
                .trim_start_matches('@')
                .split(':')
                .next()
                .unwrap()
                .to_string()
        };
        let before = fetch_all(&s, &g).await;
        for (path, text) in &before {
            let bad = traces(text);
            assert!(bad.is_empty(), "{path}: {bad:?}\n{text}");
        }
        let mut events = Events::open(&s.url(&format!("/game/{}/events", g.id))).await;
        let first = events.next(Duration::from_secs(2)).await.unwrap();
        assert!(traces(&first).is_empty(), "{first}");
        for seat in [1usize, 0] {
            let choice = match rng.next() % 3 {
                0 => "random".to_string(),
                1 => (rng.next() % 960).to_string(),
                _ => rules::chess960::back_rank((rng.next() % 960) as u16).unwrap(),
            };
            s.dm(&seat_name(seat), &format!("setup {choice}")).await;
            same(&fetch_all(&s, &g).await, &before, "a set-up");
            checked += 1;
        }
        let mut over = false;
        for step in 0..80u32 {
            let rec = s.record(g.id).await;
            if !rec.status.is_active() {
                over = true;
                break;
            }
            let game = Glass::replay(glass::variant(), rules, &rec.moves).unwrap();
            let side = game.turn();
            let army = if game.is_forced() {
                glass::other(side)
            } else {
                side
            };
            let world = (rng.next() % 2) as u8;
            let moves = game.moves_on(army, world);
            let order = if moves.is_empty() || rng.next().is_multiple_of(6) {
                // An impossible order: a strike, or a refusal.
                let f = b"abcdefgh";
                format!(
                    "{}:{}{}{}{}",
                    if world == 0 { 'R' } else { 'M' },
                    f[(rng.next() % 8) as usize] as char,
                    1 + rng.next() % 8,
                    f[(rng.next() % 8) as usize] as char,
                    1 + rng.next() % 8
                )
            } else {
                moves[(rng.next() as usize) % moves.len()].clone()
            };
            s.dm(&seat_name(side.index()), &order).await;
            if !s.record(g.id).await.status.is_active() {
                over = true;
                break;
            }
            // Everything fetched is the same as before the first set-up (every few steps:
            // fetching the replay is the slow part).
            if step.is_multiple_of(4) {
                same(&fetch_all(&s, &g).await, &before, &order);
                checked += 1;
            }
        }
        if !over {
            // A long game: ended by resignation, which reveals it too.
            s.say(&seat_name(0), "resign").await;
        }
        ended += 1;
        // The stream said nothing while the game was played; now it sends the reveal.
        let reveal = events
            .next(Duration::from_secs(2))
            .await
            .expect("the reveal");
        assert!(
            reveal.contains("<svg"),
            "the boards after the end: {reveal}"
        );
        assert_eq!(
            events.updates, 2,
            "the state on opening, then the reveal:\n{}",
            events.raw
        );
        // Every byte before the reveal's frame (the update as sent, whole or an edit).
        let before_reveal = events.raw.split(events.sent[1].as_str()).next().unwrap();
        assert!(before_reveal.len() < events.raw.len(), "the reveal found");
        assert!(traces(before_reveal).is_empty(), "{before_reveal}");
        let (st, _, page) = get(&s.url(&format!("/game/{}", g.id))).await;
        assert_eq!(st, 200);
        assert!(page.contains("<svg"), "the reveal is shown");
        if game_no < 2 {
            // (Drawing a replay takes a while in a debug build: two suffice.)
            assert_eq!(
                get_bytes(&s.url(&format!("/game/{}/replay.gif", g.id)))
                    .await
                    .0,
                200
            );
        }
    }
    assert_eq!(ended, 8);
    assert!(checked > 40, "only {checked} checks");
}

#[tokio::test]
async fn a_looking_glass_game_in_play_answers_each_request_with_why_and_when() {
    let s = Server::start().await;
    let g = s.start_game(glass::NAME).await;
    for path in ["board.svg", "export.txt", "replay.gif"] {
        let (st, _, body) = get(&s.url(&format!("/game/{}/{path}", g.id))).await;
        assert_eq!(st, 403, "{path}");
        assert!(
            body.contains("shown to everybody when it ends"),
            "{path}: {body}"
        );
    }
    let (st, _, page) = get(&s.url(&format!("/game/{}", g.id))).await;
    assert_eq!(st, 200);
    assert!(page.contains("secret until it ends"));
}

#[test]
fn the_trace_check_can_fail() {
    assert!(!traces("White's Knight on R:f3").is_empty());
    assert!(!traces("<svg><use href=\"#k\"/></svg>").is_empty());
    assert!(traces("Game 3 · Through the Looking-Glass · in play").is_empty());
}
