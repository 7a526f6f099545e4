//! The web server under load, and the replay GIF (issue 29's "must show"):
//!
//! 1. the command path's latency (a move through the service, 2,000 moves over 100 live
//!    games) without the web server being watched;
//! 2. the same while 1,000 event streams are open on one game, a page is fetched
//!    continuously, and moves are made in the watched game: the moves' p99 against (1);
//! 3. the fan-out: from the start of each move's command in the watched game to its update
//!    reaching each of the 1,000 streams (p50, p95, max);
//! 4. page response times (game pages of the 100 live games) under that load;
//! 5. the animated replay of a 100-move Toulousain game at the default size: time and bytes.
//!
//! `cargo bench -p bot-web --bench web` (release, one run; medians and percentiles printed).
//! The store is the in-memory one: this measures the web server, not the database.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use bot_core::{
    Actor, GameService, SystemClock,
    metrics::Metrics,
    model::{GameId, NewGame, Place, Platform, PlayerId},
    store::{
        GameStore,
        memory::MemoryStore,
        watched::{GameChanges, Watched},
    },
};
use bot_web::{Health, Web, WebConfig};
use rules::{Catalog, Position};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const LINE: [&str; 20] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Na5", "Bc2", "c5",
];
const GAMES: usize = 100;
const STREAMS: usize = 1000;

type Store = Watched<MemoryStore>;

fn player(name: &str) -> Actor {
    Actor::new(
        PlayerId::new(Platform::Matrix, format!("@{name}:example.org")),
        name,
    )
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

async fn new_games(store: &Store, catalog: &Catalog, n: usize) -> Vec<GameId> {
    let start = rules::fen::write(&Position::start(&catalog.get("chess").unwrap()));
    let mut ids = Vec::new();
    for _ in 0..n {
        let g = store
            .create_game(NewGame {
                variant: "chess".into(),
                options: String::new(),
                start_state: start.clone(),
                seats: vec![player("alice").id, player("bob").id],
                place: Place::room(Platform::Matrix, "!room:example.org"),
                rating_family: None,
                clock: None,
                created_at: 0,
            })
            .await
            .unwrap();
        ids.push(g.id);
    }
    ids
}

/// Plays the line in every game, a move in each game in turn; the latency of each move.
async fn play_rounds(svc: &GameService<Store, SystemClock>, games: &[GameId]) -> Vec<f64> {
    let (white, black) = (player("alice"), player("bob"));
    let place = Place::room(Platform::Matrix, "!room:example.org");
    let mut out = Vec::new();
    for (i, mv) in LINE.iter().enumerate() {
        let who = if i % 2 == 0 { &white } else { &black };
        for g in games {
            let t = Instant::now();
            let r = svc
                .handle_text(who, &place, &format!("move #{} {mv}", g.0))
                .await;
            out.push(ms(t.elapsed()));
            assert!(r[0].board.is_some(), "{mv} in game {g}: {}", r[0].text);
        }
    }
    out
}

/// One raw event-stream client: sends `Instant`s of each update it reads after the first.
async fn stream_client(
    addr: std::net::SocketAddr,
    game: GameId,
    ready: tokio::sync::mpsc::Sender<()>,
    seen: tokio::sync::mpsc::UnboundedSender<Instant>,
) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!(
            "GET /game/{}/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n",
            game.0
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut first = true;
    // The tail of the previous read, in case the tag is split between two reads.
    let mut tail: Vec<u8> = Vec::new();
    const TAG: &[u8] = b"event: update";
    loop {
        let n = match s.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let now = Instant::now();
        let mut window = std::mem::take(&mut tail);
        window.extend_from_slice(&buf[..n]);
        let updates = window.windows(TAG.len()).filter(|w| *w == TAG).count();
        tail = window[window.len().saturating_sub(TAG.len() - 1)..].to_vec();
        for _ in 0..updates {
            if first {
                first = false;
                let _ = ready.send(()).await;
            } else {
                let _ = seen.send(now);
            }
        }
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
    gif_bench();
}

async fn run() {
    let changes = GameChanges::new();
    let store = Watched::new(MemoryStore::new(), changes.clone());
    let catalog = Arc::new(Catalog::builtin());
    let metrics = Arc::new(Metrics::new());
    let svc = Arc::new(GameService::new(
        store.clone(),
        SystemClock,
        catalog.clone(),
    ));
    let web = Web::new(
        store.clone(),
        catalog.clone(),
        metrics,
        Health::new(),
        changes,
        WebConfig::new("127.0.0.1:0".parse().unwrap()),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(web.clone().serve(listener, std::future::pending()));

    // 1. The command path alone.
    let quiet = new_games(&store, &catalog, GAMES).await;
    let mut alone = play_rounds(&svc, &quiet).await;

    // The watched game and its 1,000 streams.
    let busy = new_games(&store, &catalog, GAMES).await;
    let watched = new_games(&store, &catalog, 1).await[0];
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(STREAMS);
    let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..STREAMS {
        tokio::spawn(stream_client(
            addr,
            watched,
            ready_tx.clone(),
            seen_tx.clone(),
        ));
    }
    for _ in 0..STREAMS {
        ready_rx.recv().await.unwrap();
    }
    println!("{STREAMS} event streams open on game {watched}");

    // Pages fetched continuously while the moves are made.
    let client = reqwest::Client::new();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let pages = {
        let (client, stop, busy) = (client.clone(), stop.clone(), busy.clone());
        tokio::spawn(async move {
            let mut times = Vec::new();
            let mut i = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let g = busy[i % busy.len()];
                i += 1;
                let t = Instant::now();
                let r = client
                    .get(format!("http://{addr}/game/{}", g.0))
                    .send()
                    .await
                    .unwrap();
                assert!(r.status().is_success());
                let _ = r.bytes().await.unwrap();
                times.push(ms(t.elapsed()));
            }
            times
        })
    };
    // 3. Moves in the watched game, each fanned out to every stream.
    let fan = {
        let svc = svc.clone();
        tokio::spawn(async move {
            let (white, black) = (player("alice"), player("bob"));
            let place = Place::room(Platform::Matrix, "!room:example.org");
            let mut lat = Vec::new();
            for (i, mv) in LINE.iter().enumerate() {
                let who = if i % 2 == 0 { &white } else { &black };
                let t = Instant::now();
                svc.handle_text(who, &place, &format!("move #{} {mv}", watched.0))
                    .await;
                for _ in 0..STREAMS {
                    let at = tokio::time::timeout(Duration::from_secs(10), seen_rx.recv())
                        .await
                        .expect("every stream sees the move")
                        .unwrap();
                    lat.push(ms(at.saturating_duration_since(t)));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            lat
        })
    };
    // 2. The command path under that load.
    let mut loaded = play_rounds(&svc, &busy).await;
    let mut fan = fan.await.unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut pages = pages.await.unwrap();

    let a99 = percentile(&mut alone, 0.99);
    let b99 = percentile(&mut loaded, 0.99);
    println!(
        "command path (a move), {} moves over {GAMES} games: alone p50 {:.2} ms p99 {:.2} ms; \
         with {STREAMS} streams, pages and fan-out: p50 {:.2} ms p99 {:.2} ms (p99 ratio {:.2})",
        alone.len(),
        percentile(&mut alone, 0.5),
        a99,
        percentile(&mut loaded, 0.5),
        b99,
        b99 / a99
    );
    println!(
        "fan-out to {STREAMS} streams, {} deliveries (from the move's command start): p50 {:.1} ms p95 {:.1} ms max {:.1} ms",
        fan.len(),
        percentile(&mut fan, 0.5),
        percentile(&mut fan, 0.95),
        percentile(&mut fan, 1.0)
    );
    println!(
        "game pages of {GAMES} live games under load, {} requests: p50 {:.2} ms p95 {:.2} ms",
        pages.len(),
        percentile(&mut pages, 0.5),
        percentile(&mut pages, 0.95)
    );
}

/// 5. A 100-move Toulousain game's replay at the default size and budget.
fn gif_bench() {
    let catalog = Catalog::builtin();
    let v = catalog.get("toulousain").expect("toulousain");
    let mut seed = 29u64;
    let mut pos = Position::start(&v);
    let mut views = vec![bot_core::picture::view(&pos, None, None, &[])];
    while views.len() < 101 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            pos = Position::start(&v);
            views.truncate(1);
            continue;
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = moves[(seed >> 33) as usize % moves.len()];
        pos.play_unchecked(m);
        views.push(bot_core::picture::view(
            &pos,
            bot_core::picture::last_move(&pos).as_ref(),
            None,
            &[],
        ));
    }
    let renderer = render::Renderer::new();
    let theme = render::Theme::light();
    let options = render::animation::AnimationOptions::default();
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        let a = render::animation::gif(&renderer, &views, &theme, &options).unwrap();
        times.push(ms(t.elapsed()));
        last = Some(a);
    }
    let a = last.unwrap();
    let update = bot_web::page::board_svg(views.last().unwrap(), &theme).len();
    println!("a Toulousain board as SVG: {update} bytes");
    println!(
        "replay GIF, Toulousain, 100 moves ({} frames at {} px, {} left out): median {:.0} ms of 3, {} bytes ({:.2} MiB)",
        a.frames,
        a.size,
        a.left_out,
        percentile(&mut times, 0.5),
        a.bytes.len(),
        a.bytes.len() as f64 / (1 << 20) as f64
    );
}
