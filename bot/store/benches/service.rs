//! The whole command path of a move, as a chat message travels it: the text is parsed, the game
//! is loaded from SQLite on disk, the move is validated by the rules engine, appended (fsynced
//! before the reply: WAL with group commit), the reply is built, and the board picture is rebuilt
//! from the stored state into the renderer's view.
//!
//! Three depths of "render" are measured, because the adapters differ in what they need:
//! - `view`: the renderer's board view (what every adapter needs before any pixel);
//! - `svg`: plus the SVG scene text;
//! - `raster`: plus rasterizing at Discord's 640 px (everything except PNG encoding).
//!
//! Each line is one or eight players' tables playing pseudo-random legal games (chess and
//! Toulousain, moves in SAN as people type them), fixed seed, so reruns play the same moves.
//! Reported: median and p99 latency per move command, and moves per second sustained over the
//! run (wall clock, all tables together).
//!
//! `busy` lines (issue 15): the same command path (chess, `view`, one table) on a service whose
//! bot plays four games at level 5 (timed, up to 3 s a move; each bot move answered at once
//! by a random legal move, so four searches are always queued or running on its pool),
//! measured idle and busy in one run, with the pool at its default size (cores minus one)
//! and at four threads (four searches at once, more threads than this machine has cores).
//!
//! Since the outbox (issue 27) a move's reply is stored with the move and reported delivered
//! after the picture is made, as an adapter does once the platform took it: both are inside
//! the timed path. The tables' rooms are Matrix rooms, whose messages are sent under their
//! entry's key, so the report is queued and written by the next move's transaction
//! (`bot/store/src/delivery.rs`); `FAIRYBOT_BENCH_REPORT=now` reports as a Discord
//! interaction's ephemeral followup or a console line is reported, written before the report
//! returns (its public answers are reported as a keyed message is, see
//! `bot/discord/src/deliver.rs`).
//! `scripts/bench-alternate` runs two builds of this bench alternately to compare them
//! (docs/src/measurements.md).
//!
//! Run: `cargo bench -p bot-store --bench service` (`-- busy` for the bot lines only). The
//! database lives under cargo's target tmp dir, on the same disk as the build, never on a
//! tmpfs where fsync is free.
//!
//! Clocks (issue 16): with `FAIRYBOT_BENCH_CLOCKED_GAMES=10000` the store first holds that
//! many live correspondence games (`clock 3d`, none due during the run), every table plays
//! with `clock 10+5` (each move charges it), and the scheduler runs beside the tables with its
//! production interval of one second.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use bot_core::{
    Actor, GameService, SystemClock,
    model::{Place, Platform, PlayerId},
    picture,
};
use bot_store::SqlStore;
use rules::{Catalog, Position};
use tokio::runtime::Runtime;

/// Moves measured per line.
const MOVES: usize = 2_000;
/// Plies per game at most; a game that ends earlier is replaced by a new one.
const GAME_LENGTH: usize = 80;

#[derive(Clone, Copy, PartialEq)]
enum Depth {
    View,
    Svg,
    Raster,
}

impl Depth {
    fn name(self) -> &'static str {
        match self {
            Depth::View => "view",
            Depth::Svg => "view+svg",
            Depth::Raster => "view+svg+raster",
        }
    }
}

/// A small deterministic generator (xorshift64*), so every run plays the same games.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// A pseudo-random legal game in SAN, stopping before the game ends (so every move in the list
/// is accepted) or at [`GAME_LENGTH`].
fn random_game(catalog: &Catalog, variant: &str, rng: &mut Rng) -> Vec<String> {
    let v = catalog.get(variant).expect("built-in variant");
    let mut pos = Position::start(&v);
    let mut out = Vec::new();
    while out.len() < GAME_LENGTH && pos.outcome().is_none() {
        let moves = pos.legal_moves();
        let m = moves[rng.below(moves.len())];
        out.push(rules::notation::san(&pos, m));
        pos.play_unchecked(m);
    }
    if pos.outcome().is_some() {
        out.pop();
    }
    out
}

struct Table {
    place: Place,
    players: [Actor; 2],
}

fn table(n: usize) -> Table {
    let actor = |name: String| {
        Actor::new(
            PlayerId::new(Platform::Matrix, format!("@{name}:bench.example")),
            name,
        )
    };
    Table {
        place: Place::room(Platform::Matrix, format!("!table{n}:bench.example")),
        players: [actor(format!("white{n}")), actor(format!("black{n}"))],
    }
}

type Service = GameService<SqlStore, SystemClock>;

/// The time control the tables play with, when the run is about clocks.
fn table_clock() -> &'static str {
    if clocked_games() > 0 {
        " clock 10+5"
    } else {
        ""
    }
}

/// How many live clocked games the store holds before the run (`FAIRYBOT_BENCH_CLOCKED_GAMES`).
fn clocked_games() -> usize {
    std::env::var("FAIRYBOT_BENCH_CLOCKED_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// `n` live correspondence games between other players in other rooms, each with a clock
/// whose deadline is days away (not measured).
async fn seed_clocked_games(store: &SqlStore, n: usize) {
    use bot_core::{Clock, model::NewGame, store::GameStore, time_control::TimeControl};
    let control = TimeControl::parse("3d").unwrap();
    let now = SystemClock.now_ms();
    let start = rules::fen::write(&Position::start(
        &Catalog::builtin().get("chess").expect("chess"),
    ));
    for i in 0..n {
        store
            .create_game(NewGame {
                variant: "chess".into(),
                options: format!("colour=first clock={control}"),
                start_state: start.clone(),
                seats: vec![
                    PlayerId::new(Platform::Discord, format!("{}", 2 * i + 1)),
                    PlayerId::new(Platform::Discord, format!("{}", 2 * i + 2)),
                ],
                place: Place::room(Platform::Discord, format!("{}", 9_000_000 + i)),
                rating_family: None,
                clock: control.start(2, now),
                created_at: now / 1000,
            })
            .await
            .unwrap();
    }
}

/// Challenge and accept (not measured): a fresh game at the table.
async fn start_game(svc: &Service, t: &Table, variant: &str) {
    let [w, b] = &t.players;
    // The challenger plays first (white).
    let text = format!("challenge {} {variant}{}", b.id.user, table_clock());
    svc.handle_text(w, &t.place, &text).await;
    let r = svc.handle_text(b, &t.place, "accept").await;
    assert!(
        r.iter().any(|r| r.board.is_some()),
        "the game did not start: {:?}",
        r.first().map(|r| &r.text)
    );
}

/// One move command, timed from the text to the finished picture at the given depth.
async fn one_move(
    svc: &Service,
    catalog: &Catalog,
    renderer: &render::Renderer,
    depth: Depth,
    who: &Actor,
    place: &Place,
    text: &str,
) -> Duration {
    let t = Instant::now();
    let replies = svc.handle_text(who, place, text).await;
    let board = replies
        .iter()
        .find_map(|r| r.board.as_ref())
        .unwrap_or_else(|| panic!("{text} was refused: {:?}", replies[0].text));
    let view = picture::board_view(board, catalog).expect("stored state reads");
    let theme = render::Theme::light();
    match depth {
        Depth::View => {
            std::hint::black_box(&view);
        }
        Depth::Svg => {
            std::hint::black_box(renderer.svg(&view, &theme));
        }
        Depth::Raster => {
            std::hint::black_box(renderer.pixmap(&view, &theme, 640).expect("raster"));
        }
    }
    // The adapter reports each reply delivered once the platform took it (the outbox).
    let delivered = report_attempt();
    for key in replies.iter().filter_map(|r| r.key.as_ref()) {
        svc.settle_mail(key, delivered.clone()).await;
    }
    t.elapsed()
}

/// How the benchmark's adapter reports a reply it delivered: as the Matrix adapter does (the
/// tables' rooms are Matrix rooms), under the entry's key, which the store writes with its next
/// write; with `FAIRYBOT_BENCH_REPORT=now`, as a Discord interaction's ephemeral followup is
/// reported, written before the report returns.
fn report_attempt() -> bot_core::outbox::Attempt {
    match std::env::var("FAIRYBOT_BENCH_REPORT").as_deref() {
        Ok("now") => bot_core::outbox::Attempt::Delivered,
        _ => bot_core::outbox::Attempt::DeliveredUnderKey,
    }
}

/// Plays `moves` move commands at one table, returning each one's latency.
async fn play_table(
    svc: Arc<Service>,
    catalog: Arc<Catalog>,
    renderer: Arc<render::Renderer>,
    depth: Depth,
    variant: &'static str,
    n: usize,
    moves: usize,
) -> Vec<Duration> {
    let t = table(n);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (n as u64 + 1));
    let mut samples = Vec::with_capacity(moves);
    while samples.len() < moves {
        let game = random_game(&catalog, variant, &mut rng);
        if game.is_empty() {
            continue;
        }
        start_game(&svc, &t, variant).await;
        for (ply, san) in game.iter().enumerate() {
            if samples.len() == moves {
                break;
            }
            let who = &t.players[ply % 2];
            samples.push(one_move(&svc, &catalog, &renderer, depth, who, &t.place, san).await);
        }
        // Whatever is left of the game is resigned, so the table has no active game.
        svc.handle_text(&t.players[0], &t.place, "resign").await;
    }
    samples
}

fn report(name: &str, mut samples: Vec<Duration>, wall: Duration) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    println!(
        "{name:<42} median {:>6.2} ms   p99 {:>6.2} ms   max {:>6.2} ms   {:>6.0} moves/s",
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3,
        samples.len() as f64 / wall.as_secs_f64()
    );
    (at(0.5), at(0.99))
}

/// Answers each of the bot's moves in the four busy games at once with a random legal move
/// (and starts a new game when one ends), until the announcements stop.
async fn keep_bot_busy(
    svc: Arc<Service>,
    mut announcements: bot_core::outbox::Announcements,
    players: Vec<(Actor, Place)>,
) {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    while let Some(a) = announcements.next().await {
        let Some((who, place)) = players.iter().find(|(_, p)| *p == a.place) else {
            continue;
        };
        match svc.current_game(who, place, None).await {
            Some(g) if g.my_turn => {
                let moves = g.position.legal_moves();
                let mv = rules::notation::coord(&g.position, moves[rng.below(moves.len())]);
                let cmd = bot_core::command::Command::Move {
                    game: Some(g.id),
                    text: mv,
                };
                svc.handle(who, place, cmd).await;
            }
            Some(_) => {}
            None => {
                svc.handle_text(who, place, "play chess vs bot black level 5")
                    .await;
            }
        }
    }
}

/// The command path idle, then with four bot games searching, on one service whose pool has
/// `threads` threads; prints both and their ratios.
fn run_busy(rt: &Runtime, threads: usize) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let catalog = Arc::new(Catalog::builtin());
    let renderer = Arc::new(render::Renderer::new());
    rt.block_on(async {
        let store = SqlStore::open_sqlite(dir.path().join("bench.db"))
            .await
            .unwrap();
        let bot = bot_core::opponent::BotConfig {
            threads,
            seed: 1,
            ..bot_core::opponent::BotConfig::default()
        };
        let svc = Arc::new(
            GameService::new(store.clone(), SystemClock, catalog.clone())
                .with_bot(bot)
                .unwrap(),
        );
        svc.start_bot().await.unwrap();
        let announcements = bot_core::outbox::Announcements::new(svc.clone(), &[Platform::Matrix]);
        svc.set_bot_user(
            PlayerId::new(Platform::Matrix, "@fairybot:bench.example"),
            "fairybot",
        );
        let line = |what: &str| format!("chess view, 1 table, {what} ({threads} search thr.)");
        let start = Instant::now();
        let idle = play_table(
            svc.clone(),
            catalog.clone(),
            renderer.clone(),
            Depth::View,
            "chess",
            0,
            MOVES,
        )
        .await;
        let idle = report(&line("bot idle"), idle, start.elapsed());
        let players: Vec<(Actor, Place)> = (0..4)
            .map(|i| {
                let t = table(100 + i);
                (t.players[0].clone(), t.place)
            })
            .collect();
        for (who, place) in &players {
            let r = svc
                .handle_text(who, place, "play chess vs bot black level 5")
                .await;
            assert!(r[0].text.contains("starts"), "{}", r[0].text);
        }
        let busy_task = tokio::spawn(keep_bot_busy(svc.clone(), announcements, players));
        while svc.bot_searches_running() < threads.min(4) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let start = Instant::now();
        let busy = play_table(
            svc.clone(),
            catalog.clone(),
            renderer.clone(),
            Depth::View,
            "chess",
            1,
            MOVES,
        )
        .await;
        let running = svc.bot_searches_running();
        let busy = report(&line("4 bot games busy"), busy, start.elapsed());
        println!(
            "{:<42} median x{:.2}   p99 x{:.2}   (searches running at the end: {running})",
            "  busy / idle",
            busy.0.as_secs_f64() / idle.0.as_secs_f64(),
            busy.1.as_secs_f64() / idle.1.as_secs_f64()
        );
        busy_task.abort();
        // The searches already queued run to their end on the pool's threads: wait for them,
        // so that they do not spill into the next line's idle measurement.
        let drained = Instant::now();
        while drained.elapsed() < Duration::from_secs(30) {
            if svc.bot_searches_running() == 0 {
                tokio::time::sleep(Duration::from_millis(300)).await;
                if svc.bot_searches_running() == 0 {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        store.close().await;
    });
}

fn run(rt: &Runtime, variant: &'static str, depth: Depth, tables: usize) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let catalog = Arc::new(Catalog::builtin());
    let renderer = Arc::new(render::Renderer::new());
    rt.block_on(async {
        let store = SqlStore::open_sqlite(dir.path().join("bench.db"))
            .await
            .unwrap();
        let svc = Arc::new(GameService::new(
            store.clone(),
            SystemClock,
            catalog.clone(),
        ));
        let clocked = clocked_games();
        if clocked > 0 {
            let t = Instant::now();
            seed_clocked_games(&store, clocked).await;
            println!(
                "  ({clocked} live clocked games stored in {:.1} s)",
                t.elapsed().as_secs_f64()
            );
            // A store that holds these games has long since written them out: the
            // measurement starts from that steady state, not in the wake of 10,000 fsynced
            // inserts (their WAL checkpointed into the database and the disk's write-back
            // drained), which would charge the seeding to the first moves measured.
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(store.pool())
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
        let (stop_scheduler, stopped) = tokio::sync::oneshot::channel::<()>();
        let scheduler = (clocked > 0).then(|| {
            tokio::spawn(bot_core::scheduler::run(
                svc.clone(),
                bot_core::scheduler::DEFAULT_INTERVAL,
                async {
                    let _ = stopped.await;
                },
            ))
        });
        let start = Instant::now();
        let tasks: Vec<_> = (0..tables)
            .map(|n| {
                tokio::spawn(play_table(
                    svc.clone(),
                    catalog.clone(),
                    renderer.clone(),
                    depth,
                    variant,
                    n,
                    MOVES / tables,
                ))
            })
            .collect();
        let mut samples = Vec::with_capacity(MOVES);
        for task in tasks {
            samples.extend(task.await.unwrap());
        }
        let wall = start.elapsed();
        let _ = stop_scheduler.send(());
        if let Some(s) = scheduler {
            s.await.unwrap();
        }
        report(
            &format!("{variant} {}, {tables} table(s)", depth.name()),
            samples,
            wall,
        );
        store.close().await;
    });
}

fn main() {
    // `cargo bench` passes `--bench`; a name filter may follow, as for criterion benches.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "move command path on SQLite on disk (WAL, group commit), {MOVES} moves a line, \
         {} cores, {} live clocked games, delivery reports {}{}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        clocked_games(),
        match report_attempt() {
            bot_core::outbox::Attempt::Delivered => "written at once",
            _ => "under the entry's key",
        },
        if clocked_games() > 0 {
            ", tables on clock 10+5, scheduler every second"
        } else {
            ""
        }
    );
    for threads in [bot_core::opponent::default_threads(), 4] {
        if filter.as_deref().is_some_and(|f| !"busy".contains(f)) {
            continue;
        }
        run_busy(&rt, threads);
    }
    for variant in ["chess", "toulousain"] {
        for depth in [Depth::View, Depth::Svg, Depth::Raster] {
            for tables in [1, 8] {
                let name = format!("{variant} {} {tables}", depth.name());
                if filter.as_deref().is_some_and(|f| !name.contains(f)) {
                    continue;
                }
                run(&rt, variant, depth, tables);
            }
        }
    }
}
