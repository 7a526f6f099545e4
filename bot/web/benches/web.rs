//! The web server under load, and the replay GIF (issue 29's "must show"):
//!
//! 1. the command path's latency (a move through the service, 2,000 moves over 100 live
//!    games) without the web server being watched, while a twin of the watched game moves
//!    at its pace (the same commands, nobody watching them);
//! 2. the same while 1,000 event streams are open on one game, game pages are fetched
//!    continuously, and moves are made in the watched game one after another: the moves'
//!    p99 against (1). (1) and (2) alternate, [`ROUNDS`] times each, so both see the same
//!    machine; the medians of the rounds' p99s are compared;
//! 3. the fan-out: from the start of each move's command in the watched game to its update
//!    reaching each of the 1,000 streams (p50, p95, max);
//! 4. page response times (game pages of 100 live games) under that load;
//! 5. the animated replay of a 100-move Toulousain game at the default size: time and bytes.
//!
//! The server runs as the service runs it ([`bot_web::Web::serve_apart`]: threads of its
//! own, below the commands' priority). The watchers (streams and page fetches) stand for
//! other machines: they run on threads of their own at the lowest priority, so that on this
//! machine they take only what the server and the commands leave.
//!
//! The store is SQLite in a file under cargo's target tmp dir (the service's default, a move
//! fsynced before its reply), or the in-memory one with `FAIRYBOT_BENCH_STORE=memory`.
//!
//! `cargo bench -p bot-web --bench web` (release, one run; medians and percentiles printed).
//!
//! To find where the time goes (docs/src/web.md, "Measured"): `FAIRYBOT_BENCH_WEB=same`
//! serves on the commands' runtime as before `serve_apart`; `FAIRYBOT_BENCH_WEB_NICE` and
//! `FAIRYBOT_BENCH_WEB_THREADS` set the server's [`bot_web::Priority`];
//! `FAIRYBOT_BENCH_WATCHER_THREADS` the watchers' threads; `FAIRYBOT_BENCH_STREAMS` how many
//! streams are opened; `FAIRYBOT_BENCH_PAGES=0` and `FAIRYBOT_BENCH_FAN=0` leave out the page
//! fetches or the watched game's moves; `FAIRYBOT_BENCH_TWIN=0` the twin's moves in (1);
//! `FAIRYBOT_BENCH_PIN=1` keeps the server's and the watchers' threads to core 1 (a list
//! such as `1,2` for several), `FAIRYBOT_BENCH_PIN_COMMANDS=0` the commands' threads (and the
//! store's, which they start) to core 0. `FAIRYBOT_BENCH_SPREAD=MS` sends each change to
//! the streams in waves over MS milliseconds instead of the service's default
//! ([`bot_web::WebConfig::spread`]; 0: all at once, as before 2026-11-29).

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
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
/// Rounds of (1) and (2), alternating.
const ROUNDS: usize = 5;
/// The watched game's pause between two moves (a move's fan-out done).
const FAN_PAUSE: Duration = Duration::from_millis(100);

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

async fn new_games<S: GameStore>(store: &S, catalog: &Catalog, n: usize) -> Vec<GameId> {
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
async fn play_rounds<S: GameStore + Clone + Send + Sync + 'static>(
    svc: &GameService<S, SystemClock>,
    games: &[GameId],
) -> Vec<f64> {
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

/// The next index below `len` from a linear congruential generator at `seed` (a fixed
/// seed gives the same games every run).
fn pick(seed: &mut u64, len: usize) -> usize {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*seed >> 33) as usize % len
}

/// A pseudo-random legal chess game of `plies` moves that does not end (fixed seed), in SAN:
/// the watched game's moves.
fn watched_line(catalog: &Catalog, plies: usize) -> Vec<String> {
    let variant = catalog.get("chess").unwrap();
    let mut seed = 29u64;
    'game: loop {
        let mut pos = Position::start(&variant);
        let mut line = Vec::with_capacity(plies);
        while line.len() < plies {
            let moves = pos.legal_moves();
            let Some(&m) = moves.get(pick(&mut seed, moves.len().max(1))) else {
                continue 'game;
            };
            line.push(rules::notation::san(&pos, m));
            pos.play_unchecked(m);
            if pos.outcome().is_some() {
                continue 'game;
            }
        }
        return line;
    }
}

/// One raw event-stream client: sends `Instant`s of each update it reads after the first,
/// and counts the bytes of those reads in `bytes`.
async fn stream_client(
    addr: std::net::SocketAddr,
    game: GameId,
    ready: tokio::sync::mpsc::Sender<()>,
    seen: tokio::sync::mpsc::UnboundedSender<Instant>,
    bytes: Arc<AtomicUsize>,
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
        if !first {
            bytes.fetch_add(n, Ordering::Relaxed);
        }
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

/// Plays a game's line move after move, as its players would, until told to stop: each move
/// a command on the service's runtime, then (for the watched game) the wait until every
/// stream has seen it, then [`FAN_PAUSE`]. Counting what the streams saw is the watchers'
/// work, so it runs on their runtime.
struct Mover<S: GameStore + Clone + Send + Sync + 'static> {
    svc: Arc<GameService<Watched<S>, SystemClock>>,
    commands: tokio::runtime::Handle,
    line: Arc<Vec<String>>,
    game: GameId,
    /// The next ply of the line to play.
    ply: Arc<AtomicUsize>,
    /// Where the streams report each update they read, and how many streams there are.
    seen: Option<(
        Arc<tokio::sync::Mutex<tokio::sync::mpsc::UnboundedReceiver<Instant>>>,
        usize,
    )>,
}

impl<S: GameStore + Clone + Send + Sync + 'static> Mover<S> {
    /// Starts it on `runtime`; returns the fan-out latencies it saw.
    fn spawn(
        self,
        runtime: &tokio::runtime::Handle,
        moving: Arc<AtomicBool>,
    ) -> tokio::task::JoinHandle<Vec<f64>> {
        runtime.spawn(async move {
            let (white, black) = (player("alice"), player("bob"));
            let place = Place::room(Platform::Matrix, "!room:example.org");
            let mut lat = Vec::new();
            while moving.load(Ordering::Relaxed) {
                let ply = self.ply.fetch_add(1, Ordering::Relaxed);
                let Some(mv) = self.line.get(ply).cloned() else {
                    eprintln!("the line of game {} ran out at ply {ply}", self.game);
                    break;
                };
                let who = if ply.is_multiple_of(2) {
                    white.clone()
                } else {
                    black.clone()
                };
                let t = Instant::now();
                let (svc, place, game) = (self.svc.clone(), place.clone(), self.game);
                self.commands
                    .spawn(async move {
                        let r = svc
                            .handle_text(&who, &place, &format!("move #{} {mv}", game.0))
                            .await;
                        assert!(r[0].board.is_some(), "{mv}: {}", r[0].text);
                    })
                    .await
                    .unwrap();
                if let Some((seen, streams)) = &self.seen {
                    let mut seen = seen.lock().await;
                    for _ in 0..*streams {
                        let at = tokio::time::timeout(Duration::from_secs(10), seen.recv())
                            .await
                            .expect("every stream sees the move")
                            .unwrap();
                        lat.push(ms(at.saturating_duration_since(t)));
                    }
                }
                tokio::time::sleep(FAN_PAUSE).await;
            }
            lat
        })
    }
}

/// The cores listed in the environment variable `name` (`1` or `0,1`), if it is set.
fn cores(name: &str) -> Option<Vec<usize>> {
    let list = std::env::var(name).ok()?;
    Some(list.split(',').map(|c| c.trim().parse().unwrap()).collect())
}

/// Keeps the thread `tid` (the calling one for `None`) to `cpus`. A thread started later by
/// it inherits the set, as SQLite's connection threads do from the command that opens them.
fn keep_to(tid: Option<rustix::thread::Pid>, cpus: &[usize]) {
    let mut set = rustix::thread::CpuSet::new();
    for &cpu in cpus {
        set.set(cpu);
    }
    rustix::thread::sched_setaffinity(tid, &set).unwrap();
}

/// Keeps this process's threads named `name` to `cpus`.
fn keep_named_to(name: &str, cpus: &[usize]) {
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = task.unwrap().path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim() == name {
            let tid = dir.file_name().unwrap().to_str().unwrap().parse().unwrap();
            keep_to(rustix::thread::Pid::from_raw(tid), cpus);
        }
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .on_thread_start(|| {
            if let Some(cpus) = cores("FAIRYBOT_BENCH_PIN_COMMANDS") {
                keep_to(None, &cpus);
            }
        })
        .enable_all()
        .build()
        .unwrap();
    // The watchers stand for other machines: their own threads, at the lowest priority, so
    // that on this machine's two cores they take what the server leaves.
    let watchers = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(
            std::env::var("FAIRYBOT_BENCH_WATCHER_THREADS").map_or(2, |n| n.parse().unwrap()),
        )
        .thread_name("watchers")
        .on_thread_start(|| {
            bot_core::opponent::yield_to_commands(19);
            if let Some(cpus) = cores("FAIRYBOT_BENCH_PIN") {
                keep_to(None, &cpus);
            }
        })
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    rt.block_on(async {
        let changes = GameChanges::new();
        if std::env::var("FAIRYBOT_BENCH_STORE").as_deref() == Ok("memory") {
            println!("store: in memory");
            let store = Watched::new(MemoryStore::new(), changes.clone());
            run(store, changes, watchers.handle().clone()).await;
        } else {
            println!("store: SQLite in {}", dir.path().display());
            let sql = bot_store::SqlStore::open_sqlite(dir.path().join("bench.db"))
                .await
                .unwrap();
            let store = Watched::new(sql.clone(), changes.clone());
            run(store, changes, watchers.handle().clone()).await;
            sql.close().await;
        }
    });
    watchers.shutdown_background();
    gif_bench();
}

/// The server's configuration: the service's default, or with `FAIRYBOT_BENCH_SPREAD` (ms)
/// the time a change is spread over.
fn config() -> WebConfig {
    let mut config = WebConfig::new("127.0.0.1:0".parse().unwrap());
    if let Ok(ms) = std::env::var("FAIRYBOT_BENCH_SPREAD") {
        config.spread = Duration::from_millis(ms.parse().unwrap());
    }
    config
}

async fn run<S: GameStore + Clone + Send + Sync + 'static>(
    store: Watched<S>,
    changes: GameChanges,
    watchers: tokio::runtime::Handle,
) {
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
        config(),
    );
    // As the service runs it (`bot-host`): on threads of its own, below the commands.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut priority = bot_web::Priority::default();
    if let Ok(n) = std::env::var("FAIRYBOT_BENCH_WEB_NICE") {
        priority.nice = n.parse().unwrap();
    }
    if let Ok(n) = std::env::var("FAIRYBOT_BENCH_WEB_THREADS") {
        priority.threads = n.parse().unwrap();
    }
    let same = std::env::var("FAIRYBOT_BENCH_WEB").as_deref() == Ok("same");
    let server = if same {
        listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        tokio::spawn(web.clone().serve(listener, std::future::pending()));
        None
    } else {
        let apart = web
            .clone()
            .serve_apart(listener, std::future::pending(), priority)
            .unwrap();
        if let Some(cpus) = cores("FAIRYBOT_BENCH_PIN") {
            keep_named_to("web", &cpus);
        }
        Some(apart)
    };

    // The 100 live games whose pages are fetched, the watched game and its 1,000 streams.
    let live = new_games(&store, &catalog, GAMES).await;
    let watched = new_games(&store, &catalog, 1).await[0];
    let streams: usize =
        std::env::var("FAIRYBOT_BENCH_STREAMS").map_or(STREAMS, |n| n.parse().unwrap());
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(streams.max(1));
    let (seen_tx, seen_rx) = tokio::sync::mpsc::unbounded_channel();
    let streamed = Arc::new(AtomicUsize::new(0));
    for _ in 0..streams {
        watchers.spawn(stream_client(
            addr,
            watched,
            ready_tx.clone(),
            seen_tx.clone(),
            streamed.clone(),
        ));
    }
    for _ in 0..streams {
        ready_rx.recv().await.unwrap();
    }
    println!("{streams} event streams open on game {watched}");

    // Pages fetched while `fetching` says so.
    let fetching = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let pages = {
        let (fetching, done) = (fetching.clone(), done.clone());
        watchers.spawn(async move {
            let client = reqwest::Client::new();
            let mut times = Vec::new();
            let mut i = 0;
            while !done.load(Ordering::Relaxed) {
                if !fetching.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                let g = live[i % live.len()];
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

    let line = Arc::new(watched_line(&catalog, 400));
    let twin = new_games(&store, &catalog, 1).await[0];
    let (watched_ply, twin_ply) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let seen_rx = Arc::new(tokio::sync::Mutex::new(seen_rx));
    let commands = tokio::runtime::Handle::current();
    let (mut alone_p99, mut loaded_p99) = (Vec::new(), Vec::new());
    let (mut alone_all, mut loaded_all, mut fan_all) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        // 1. The command path, nobody watching; another game moving as the watched one does
        // below (the same commands, without a page open on it).
        let quiet = new_games(&store, &catalog, GAMES).await;
        let twin_moving = Arc::new(AtomicBool::new(
            std::env::var("FAIRYBOT_BENCH_TWIN").as_deref() != Ok("0"),
        ));
        let twin_moves = Mover {
            svc: svc.clone(),
            commands: commands.clone(),
            line: line.clone(),
            game: twin,
            ply: twin_ply.clone(),
            seen: None,
        }
        .spawn(&watchers, twin_moving.clone());
        let mut alone = play_rounds(&svc, &quiet).await;
        twin_moving.store(false, Ordering::Relaxed);
        twin_moves.await.unwrap();
        // 2. The same, with pages fetched and the watched game's moves fanned out.
        let busy = new_games(&store, &catalog, GAMES).await;
        let off = |what: &str| std::env::var(what).as_deref() == Ok("0");
        fetching.store(!off("FAIRYBOT_BENCH_PAGES"), Ordering::Relaxed);
        let fanning = Arc::new(AtomicBool::new(!off("FAIRYBOT_BENCH_FAN")));
        let fan = Mover {
            svc: svc.clone(),
            commands: commands.clone(),
            line: line.clone(),
            game: watched,
            ply: watched_ply.clone(),
            seen: Some((seen_rx.clone(), streams)),
        }
        .spawn(&watchers, fanning.clone());
        let mut loaded = play_rounds(&svc, &busy).await;
        fanning.store(false, Ordering::Relaxed);
        fetching.store(false, Ordering::Relaxed);
        fan_all.extend(fan.await.unwrap());
        let (a, b) = (percentile(&mut alone, 0.99), percentile(&mut loaded, 0.99));
        println!(
            "round {round}: command p99 alone {a:.3} ms, watched {b:.3} ms (x{:.2}); p50 {:.3} / {:.3} ms",
            b / a,
            percentile(&mut alone, 0.5),
            percentile(&mut loaded, 0.5)
        );
        alone_p99.push(a);
        loaded_p99.push(b);
        alone_all.extend(alone);
        loaded_all.extend(loaded);
    }
    done.store(true, Ordering::Relaxed);
    let mut pages = pages.await.unwrap();
    if let Some(server) = server {
        server.stop();
    }

    let (a, b) = (
        percentile(&mut alone_p99, 0.5),
        percentile(&mut loaded_p99, 0.5),
    );
    println!(
        "command path (a move), {} moves over {GAMES} games a round, {ROUNDS} rounds: median of the rounds' p99 \
         alone {a:.3} ms, with {STREAMS} streams, pages and fan-out {b:.3} ms (p99 ratio {:.2}); \
         all moves: p99 {:.3} / {:.3} ms, p50 {:.3} / {:.3} ms",
        GAMES * LINE.len(),
        b / a,
        percentile(&mut alone_all, 0.99),
        percentile(&mut loaded_all, 0.99),
        percentile(&mut alone_all, 0.5),
        percentile(&mut loaded_all, 0.5),
    );
    println!(
        "fan-out to {STREAMS} streams, {} deliveries (from the move's command start): p50 {:.1} ms p95 {:.1} ms max {:.1} ms",
        fan_all.len(),
        percentile(&mut fan_all, 0.5),
        percentile(&mut fan_all, 0.95),
        percentile(&mut fan_all, 1.0)
    );
    println!(
        "bytes read by a stream per move: {:.0} (after its first update; {} bytes in all)",
        streamed.load(Ordering::Relaxed) as f64 / fan_all.len().max(1) as f64,
        streamed.load(Ordering::Relaxed)
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
        let m = moves[pick(&mut seed, moves.len())];
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
