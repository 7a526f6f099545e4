//! The web pages against a game played through the service: live updates, replay positions,
//! downloads, every bad request's answer, health and metrics.

use std::time::{Duration, Instant};

use bot_core::{model::GameUpdate, store::GameStore};

mod common;
use common::*;

/// The player's name in the tests (`@alice:example.org` is alice).
fn name(p: &bot_core::model::PlayerId) -> String {
    p.user
        .trim_start_matches('@')
        .split(':')
        .next()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_move_appears_on_an_open_page_within_200_ms_of_the_reply() {
    let s = Server::start().await;
    let g = s.start_game("chess").await;
    let (white, black) = (name(&g.seats[0]), name(&g.seats[1]));
    let mut ev = Events::open(&s.url(&format!("/game/{}/events", g.id))).await;
    let first = ev
        .next(Duration::from_secs(2))
        .await
        .expect("the state at once");
    assert!(first.contains("\"last\":0"), "{first}");
    for (who, mv, san) in [
        (&white, "e4", "e4"),
        (&black, "e5", "e5"),
        (&white, "Nf3", "Nf3"),
    ] {
        let r = s.say(who, mv).await;
        let replied = Instant::now();
        assert!(r[0].board.is_some(), "{mv} played: {:?}", r[0].text);
        let u = ev.next(Duration::from_millis(200)).await;
        let took = replied.elapsed();
        let u = u.unwrap_or_else(|| panic!("no update within 200 ms of the reply to {mv}"));
        assert!(u.contains(&format!(">{san}<")), "{u}");
        assert!(u.contains("<svg"), "the new board");
        assert!(took < Duration::from_millis(200), "{took:?}");
    }
}

/// Property over a whole game: a watcher kept up by edits holds, after every move, exactly
/// what a watcher opening the page then is shown whole; and the edits are small.
#[tokio::test]
async fn a_watcher_kept_up_by_edits_holds_what_a_new_watcher_is_shown_after_every_move() {
    let s = Server::start().await;
    let g = s.start_game("toulousain").await;
    let (white, black) = (name(&g.seats[0]), name(&g.seats[1]));
    let variant = rules::Catalog::builtin().get("toulousain").unwrap();
    let mut pos = rules::Position::start(&variant);
    let url = s.url(&format!("/game/{}/events", g.id));
    let mut kept = Events::open(&url).await;
    kept.next(Duration::from_secs(2)).await.unwrap();
    let mut seed = 32u64;
    let (mut whole_bytes, mut edit_bytes) = (0usize, 0usize);
    for ply in 0..60 {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.outcome().is_some() {
            break;
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = moves[(seed >> 33) as usize % moves.len()];
        let san = rules::notation::san(&pos, m);
        pos.play_unchecked(m);
        let who = if ply % 2 == 0 { &white } else { &black };
        let r = s.say(who, &san).await;
        assert!(r[0].board.is_some(), "{san}: {}", r[0].text);
        let state = kept
            .next(Duration::from_secs(2))
            .await
            .unwrap_or_else(|| panic!("no update after {san}"));
        let mut fresh = Events::open(&url).await;
        let shown = fresh.next(Duration::from_secs(2)).await.unwrap();
        assert_eq!(state, shown, "after {san} (ply {ply})");
        edit_bytes += kept.sent.last().unwrap().len();
        whole_bytes += fresh.sent[0].len();
    }
    // The end (live false, the result) reaches the kept watcher too.
    s.say(&white, "resign").await;
    let end = kept.next(Duration::from_secs(2)).await.unwrap();
    let shown = Events::open(&url)
        .await
        .next(Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(end, shown);
    assert!(end.contains("\"live\":false"), "{end}");
    assert!(
        kept.sent[1..].iter().all(|u| !u.contains("<svg")),
        "every move was sent as an edit"
    );
    println!("60 Toulousain moves: edits {edit_bytes} bytes, the same states whole {whole_bytes}");
    assert!(
        edit_bytes * 20 < whole_bytes,
        "edits {edit_bytes} bytes against {whole_bytes} whole"
    );
}

#[tokio::test]
async fn a_move_made_by_another_process_appears_by_the_poll() {
    let s = Server::start().await;
    let g = s.start_game("chess").await;
    let mut ev = Events::open(&s.url(&format!("/game/{}/events", g.id))).await;
    ev.next(Duration::from_secs(2)).await.unwrap();
    // Written past the notices, as another process sharing the database would.
    s.store
        .inner()
        .append_move(g.id, g.version, "e2e4", &GameUpdate::active(), 1)
        .await
        .unwrap();
    let u = ev
        .next(Duration::from_millis(1500))
        .await
        .expect("seen by the poll");
    assert!(u.contains(">e4<"), "{u}");
}

#[tokio::test]
async fn replay_positions_downloads_and_bad_requests() {
    let s = Server::start().await;
    let g = s.start_game("chess").await;
    let (white, black) = (name(&g.seats[0]), name(&g.seats[1]));
    for (who, mv) in [
        (&white, "e4"),
        (&black, "e5"),
        (&white, "Qh5"),
        (&black, "Nc6"),
    ] {
        s.say(who, mv).await;
    }
    let page = |q: &str| s.url(&format!("/game/{}{q}", g.id));
    let (st, ct, html) = get(&page("")).await;
    assert_eq!(st, 200);
    assert!(ct.starts_with("text/html"));
    assert!(
        html.contains("data-ply=\"4\" data-last=\"4\""),
        "the last position by default"
    );
    assert!(
        html.contains("<svg"),
        "the board inline, without JavaScript"
    );
    assert!(html.contains("aria-current=\"step\">Nc6<"), "{html}");
    assert!(html.contains("aria-label=\"Position after move 4 (Nc6)"));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "nothing from another host"
    );
    let (_, _, at2) = get(&page("?ply=2")).await;
    assert!(at2.contains("data-ply=\"2\" data-last=\"4\""));
    assert!(at2.contains("aria-current=\"step\">e5<"));
    // The board at a position is the board of that position.
    let (_, _, svg2) = get(&page("/board.svg?ply=2")).await;
    let (_, _, svg4) = get(&page("/board.svg")).await;
    assert!(svg2.starts_with("<svg") && svg2 != svg4);
    assert!(
        at2.contains(&svg2),
        "the page at ?ply=2 draws the same board"
    );
    // Out of range, not a number, no such game, no such page: each says what to ask.
    let (st, _, body) = get(&page("?ply=9")).await;
    assert_eq!(st, 404);
    assert!(
        body.contains("positions 0 to 4; there is no position 9"),
        "{body}"
    );
    let (st, _, body) = get(&page("?ply=x")).await;
    assert_eq!(st, 400);
    assert!(body.contains("from 0 (the start) to 4"), "{body}");
    let (st, _, body) = get(&s.url("/game/999")).await;
    assert_eq!(st, 404);
    assert!(body.contains("There is no game 999"), "{body}");
    let (st, _, body) = get(&s.url("/game/abc")).await;
    assert_eq!(st, 404);
    assert!(body.contains("not a game number"), "{body}");
    let (st, _, _) = get(&s.url("/nowhere")).await;
    assert_eq!(st, 404);
    // Downloads.
    let (st, _, text) = get(&page("/export.txt")).await;
    assert_eq!(st, 200);
    assert!(
        text.contains("[Variant \"chess\"]") && text.contains("Qh5"),
        "{text}"
    );
    let (st, gif) = get_bytes(&page("/replay.gif")).await;
    assert_eq!(st, 200);
    assert_eq!(&gif[..6], b"GIF89a");
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut d = opts.read_info(gif.as_slice()).unwrap();
    let mut frames = 0;
    while d.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    assert_eq!(frames, 5, "the start and one frame per move");
}

#[tokio::test]
async fn the_index_lists_live_and_finished_games_and_filters_by_variant() {
    let s = Server::start().await;
    let chess = s.start_game("chess").await;
    let (_, _, all) = get(&s.url("/")).await;
    assert!(all.contains(&format!("href=\"/game/{}\"", chess.id)));
    let (_, _, only) = get(&s.url("/?variant=chess")).await;
    assert!(only.contains(&format!("href=\"/game/{}\"", chess.id)));
    let (_, _, other) = get(&s.url("/?variant=xiangqi")).await;
    assert!(!other.contains(&format!("href=\"/game/{}\"", chess.id)));
    s.say(&name(&chess.seats[0]), "resign").await;
    let (_, _, after) = get(&s.url("/")).await;
    let finished = after.split("<h2>Finished</h2>").nth(1).unwrap();
    assert!(
        finished.contains(&format!("href=\"/game/{}\"", chess.id)),
        "{after}"
    );
}

#[tokio::test]
async fn health_and_metrics() {
    let s = Server::start().await;
    let g = s.start_game("chess").await;
    s.say(&name(&g.seats[0]), "e4").await;
    let (st, _, body) = get(&s.url("/healthz")).await;
    assert_eq!((st, body.as_str()), (200, "store: ok\n"));
    s.health.set("discord", false);
    s.health.set("matrix", true);
    let (st, _, body) = get(&s.url("/healthz")).await;
    assert_eq!(st, 503);
    assert!(
        body.contains("discord: not connected") && body.contains("matrix: connected"),
        "{body}"
    );
    s.health.set("discord", true);
    assert_eq!(get(&s.url("/healthz")).await.0, 200);
    let (_, _, page) = get(&s.url(&format!("/game/{}", g.id))).await;
    assert!(page.contains("<svg"));
    s.metrics.searches_from(|| 3);
    let (st, ct, m) = get(&s.url("/metrics")).await;
    assert_eq!(st, 200);
    assert!(ct.starts_with("text/plain; version=0.0.4"));
    for line in [
        "fairybot_commands_total{kind=\"challenge\"} 1",
        "fairybot_commands_total{kind=\"accept\"} 1",
        "fairybot_commands_total{kind=\"move\"} 1",
        "fairybot_command_duration_seconds_count{kind=\"move\"} 1",
        "fairybot_command_duration_seconds_bucket{kind=\"move\",le=\"+Inf\"} 1",
        "fairybot_live_games 1",
        "fairybot_store_up 1",
        "fairybot_platform_connected{platform=\"discord\"} 1",
        "fairybot_renders_total{kind=\"svg\"} 1",
        "fairybot_engine_searches 3",
    ] {
        assert!(m.lines().any(|l| l == line), "{line} missing in\n{m}");
    }
    assert!(m.contains("# TYPE fairybot_command_duration_seconds histogram"));
    assert!(m.lines().any(|l| l.starts_with("fairybot_outbox_waiting ")));
}

/// A finished game's analysis shows its evaluation graph under the board, the same graph as
/// in chat; a game without one (or still played) shows none.
#[tokio::test]
async fn an_analysed_game_shows_its_evaluation_graph_under_the_board() {
    use bot_core::analysis::{AnalysisRequest, AnalysisStart, GameAnalysis, SeatReport};
    let s = Server::start().await;
    let g = s.start_game("chess").await;
    let (white, black) = (name(&g.seats[0]), name(&g.seats[1]));
    s.say(&white, "e4").await;
    let page = |s: &Server| s.url(&format!("/game/{}", g.id));
    let (_, _, html) = get(&page(&s)).await;
    assert!(
        !html.contains("id=\"evaluation\""),
        "a game in play has no graph"
    );
    s.say(&black, "resign").await;
    let (_, _, html) = get(&page(&s)).await;
    assert!(!html.contains("id=\"evaluation\""), "not analysed yet");

    let store = s.store.inner();
    let start = AnalysisStart {
        game: g.id,
        plies: 1,
        total: 2,
        owner: "main".into(),
        request: AnalysisRequest {
            place: g.place.clone(),
            asked_by: g.seats[0].clone(),
            progress: None,
        },
        now_ms: 1,
    };
    assert!(store.begin_analysis(&start, 0).await.unwrap());
    let seat = |seat| SeatReport {
        seat,
        moves: u32::from(seat == 0),
        accuracy: (seat == 0).then_some(97.0),
        mistakes: Vec::new(),
    };
    let done = GameAnalysis {
        game: g.id,
        variant: "chess".into(),
        plies: 1,
        nodes: 10_000,
        scores: vec![20, 35],
        seat_scores: Vec::new(),
        numbers: Vec::new(),
        seats: vec![seat(0), seat(1)],
    };
    assert!(store.finish_analysis(&done, "main", 2).await.unwrap());
    let (status, _, html) = get(&page(&s)).await;
    assert_eq!(status, 200);
    let figure = &html[html.find("id=\"evaluation\"").expect("the graph")..];
    assert!(figure.contains("<svg"), "{figure}");
    assert!(figure.contains("97%"), "the accuracy caption: {figure}");
}

/// The page of a game of a player's own variant draws its board, even from a catalogue that
/// had never loaded the variant (a web server started after the game was played).
#[tokio::test]
async fn a_players_variant_game_page_draws_its_board() {
    let s = Server::start_with_players_variants().await;
    let added = s
        .say(
            "alice",
            "variant add ```ini\n[centaur-king:chess]\nking = k:KN\n```",
        )
        .await;
    assert!(
        added[0].text.contains("Added `centaur-king`"),
        "{}",
        added[0].text
    );
    let g = s.start_game("centaur-king").await;
    assert!(g.variant.starts_with("custom:"), "{}", g.variant);
    // Listed by its name (its filter link keeps the exact stored variant), before any page
    // of the game was asked for.
    let (status, _, list) = get(&s.url("/")).await;
    assert_eq!(status, 200, "{list}");
    assert!(list.contains(">centaur-king</a>"), "{list}");
    let (status, _, body) = get(&s.url(&format!("/game/{}", g.id))).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<svg"), "{body}");
    let (status, _, svg) = get(&s.url(&format!("/game/{}/board.svg", g.id))).await;
    assert_eq!(status, 200, "{svg}");
}
