//! The bot as a player: how long each level thinks, and the pool of threads its searches
//! run on.
//!
//! A search is CPU work of up to a few seconds; on tokio's worker threads it would stall
//! every command behind it, and on tokio's blocking pool it would be unbounded (four games
//! against the bot would take four cores from the commands). So searches get a pool of their
//! own, of a fixed number of threads ([`BotConfig::threads`], by default one per core minus
//! one, at least one), fed from one first-in-first-out queue: games are served in the order
//! their turns came, and the service queues at most one search per game at a time (see
//! `service/bot.rs`), so one game cannot crowd out the others.

use std::{
    collections::{HashMap, VecDeque},
    panic::AssertUnwindSafe,
    sync::{Arc, Condvar, Mutex},
    time::Duration,
};

use engine::{Evaluator, Level, Limits, Player, SearchResult};
use rules::{Position, Variant};
use tokio::sync::oneshot;

/// The level a game against the bot has when the player names none: strong enough to be a
/// game, weak enough to be won (it makes mistakes, see [`engine::level`]), and fast.
pub const DEFAULT_LEVEL: u8 = 3;

/// The bot's name at the console, where it has no platform user of its own.
pub const CONSOLE_NAME: &str = "fairybot";

/// How long a level may think for one move: a person playing level 1 wants an answer at
/// once, level 5 is worth a short wait. The search checks the time during the search and
/// overruns it by a few milliseconds at most.
pub fn time_limit(level: Level) -> Duration {
    Duration::from_millis(match level.number() {
        1 => 50,
        2 => 100,
        3 => 300,
        4 => 1_000,
        _ => 3_000,
    })
}

/// The most positions a level may visit for one move, whatever the time: a bound on the
/// work even on a machine so slow that the clock would allow more, and (without a time
/// limit, [`BotConfig::timed`] off) what makes a search repeatable in tests.
pub fn node_limit(level: Level) -> u64 {
    match level.number() {
        1 => 20_000,
        2 => 60_000,
        3 => 250_000,
        4 => 2_000_000,
        _ => 8_000_000,
    }
}

/// How the bot plays: its threads, and its limits.
#[derive(Debug, Clone)]
pub struct BotConfig {
    /// Search threads (at least one).
    pub threads: usize,
    /// The search threads' nice value, 0 to 19 ([`DEFAULT_SEARCH_NICE`]).
    pub nice: i32,
    /// Whether searches stop at their level's [`time_limit`]. Off, a search stops only at
    /// its node limit, so the same game gives the same moves on any machine (tests).
    pub timed: bool,
    /// A node limit below each level's own [`node_limit`] (tests keep games short).
    pub max_nodes: Option<u64>,
    /// Mixed into every search's seed (the weaker levels' mistakes are seeded): fixed in
    /// tests, drawn at start in production so two games from one position differ.
    pub seed: u64,
}

impl Default for BotConfig {
    fn default() -> Self {
        BotConfig {
            threads: default_threads(),
            nice: DEFAULT_SEARCH_NICE,
            timed: true,
            max_nodes: None,
            seed: 0,
        }
    }
}

impl BotConfig {
    /// Repeatable play for tests: one thread, no clock, at most `nodes` per search, at the
    /// normal priority (a test waits for the bot's moves; at nice 19 a machine busy with other
    /// work would hold them back without bound).
    pub fn repeatable(nodes: u64, seed: u64) -> BotConfig {
        BotConfig {
            threads: 1,
            nice: 0,
            timed: false,
            max_nodes: Some(nodes),
            seed,
        }
    }

    /// The limits of one search at `level`.
    pub fn limits(&self, level: Level) -> Limits {
        let nodes = node_limit(level).min(self.max_nodes.unwrap_or(u64::MAX));
        let time = self.timed.then(|| time_limit(level));
        Limits {
            depth: None,
            nodes: Some(nodes),
            time,
            // In chat the player waits for the answer and the pool's threads are shared: no
            // iteration starts after half the level's time, so most answers come sooner.
            soft_time: time.map(|t| t / 2),
        }
    }
}

/// One search thread per core, minus one for the commands, at least one.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .max(1)
}

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: Mutex<(VecDeque<Job>, bool)>,
    ready: Condvar,
}

/// A fixed set of threads running jobs in the order they were queued.
pub struct SearchPool {
    queue: Arc<Queue>,
    threads: usize,
}

impl std::fmt::Debug for SearchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchPool")
            .field("threads", &self.threads)
            .field("queued", &self.queued())
            .finish()
    }
}

/// The pool could not start its threads.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the bot's search threads: {0}")]
pub struct PoolError(#[from] std::io::Error);

impl SearchPool {
    /// A pool of `threads` threads (at least one) at nice value `nice` (0 to 19: see
    /// [`DEFAULT_SEARCH_NICE`]).
    ///
    /// # Errors
    /// When the operating system refuses a thread.
    pub fn new(threads: usize, nice: i32) -> Result<SearchPool, PoolError> {
        let threads = threads.max(1);
        let queue = Arc::new(Queue::default());
        for i in 0..threads {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("fairybot-search-{i}"))
                .spawn(move || {
                    yield_to_commands(nice);
                    work(&queue)
                })?;
        }
        Ok(SearchPool { queue, threads })
    }

    /// The number of threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Jobs waiting for a thread.
    pub fn queued(&self) -> usize {
        self.queue.jobs.lock().map_or(0, |j| j.0.len())
    }

    /// Queues `job`; its result arrives on the receiver. The receiver reports an error if
    /// the job never ran (the pool was dropped) or failed (a panic in the engine, which is
    /// caught so the thread lives on).
    pub fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> oneshot::Receiver<T> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            if let Ok(value) = std::panic::catch_unwind(AssertUnwindSafe(job)) {
                // The asker may have stopped waiting: nothing to do then.
                let _ = tx.send(value);
            } else {
                tracing::error!("a search failed (the engine panicked); its game is not moved");
            }
        });
        if let Ok(mut jobs) = self.queue.jobs.lock() {
            jobs.0.push_back(job);
            self.queue.ready.notify_one();
        }
        rx
    }
}

impl Drop for SearchPool {
    /// The threads finish the search they are in and end; queued searches are dropped
    /// (their games are resumed at the next start, see `GameService::start_bot`).
    fn drop(&mut self) {
        if let Ok(mut jobs) = self.queue.jobs.lock() {
            jobs.0.clear();
            jobs.1 = true;
        }
        self.queue.ready.notify_all();
    }
}

/// The search threads' nice value unless `[bot] engine_nice` says otherwise: the lowest
/// priority there is. A search is CPU-bound for its whole time, a command wants a few
/// milliseconds at once; at nice 19 a woken command thread gets the core it shares with a
/// search at once, so with the default pool (a core left for the commands) their p99 stays
/// where it is while searches run (the README's "The command path while the bot thinks"). A
/// search slowed by a burst of commands still stops at its time limit: it sees fewer nodes,
/// it is never late. The price: the search yields to every
/// other thread of its scheduling group (its process group under a terminal session's
/// autogroup, its cgroup under systemd or a container), so beside another CPU-bound program
/// of the same group it gets about 1% of a core and level 5 plays on its time limit with a
/// fraction of its nodes; `[bot] engine_nice = 0` gives it a full share again. `SCHED_IDLE`,
/// tried too, made the commands' p99 worse (about 4 ms instead of 0.7 with one search
/// thread): a search thread holding a lock the runtime needs (the pool's queue) then waits
/// behind everything else.
pub const DEFAULT_SEARCH_NICE: i32 = 19;

/// Lowers the calling thread's scheduling priority to nice value `nice`: for the threads of
/// work that may wait while a command is answered (searches, analyses, the web pages). On
/// Linux the nice value belongs to a thread, not to the process, and threads it starts
/// inherit it. Elsewhere, and if the system refuses, the thread keeps its priority (the work
/// still runs, only the commands wait longer behind it).
pub fn yield_to_commands(nice: i32) {
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
    #[cfg(target_os = "linux")]
    if nice != 0
        && let Err(e) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), nice)
    {
        tracing::warn!("a background thread keeps its priority: {e}");
    }
}

fn work(queue: &Queue) {
    loop {
        let job = {
            let Ok(mut jobs) = queue.jobs.lock() else {
                return;
            };
            loop {
                if jobs.1 {
                    return;
                }
                if let Some(job) = jobs.0.pop_front() {
                    break job;
                }
                jobs = match queue.ready.wait(jobs) {
                    Ok(j) => j,
                    Err(_) => return,
                };
            }
        };
        job();
    }
}

/// Each variant's evaluator, derived once (it walks every piece over every cell) and shared
/// by every search of that variant.
#[derive(Debug, Default, Clone)]
pub struct Evaluators(Arc<Mutex<HashMap<String, Arc<Evaluator>>>>);

impl Evaluators {
    /// The evaluator of `variant`, derived on first use. Call it on a search thread.
    pub fn get(&self, variant: &Arc<Variant>) -> Arc<Evaluator> {
        if let Ok(map) = self.0.lock()
            && let Some(e) = map.get(&variant.name)
        {
            return e.clone();
        }
        let e = Arc::new(Evaluator::new(variant));
        if let Ok(mut map) = self.0.lock() {
            map.insert(variant.name.clone(), e.clone());
        }
        e
    }
}

/// One search for the bot's move: run it on a pool thread.
pub fn search(
    evaluators: &Evaluators,
    mut position: Position,
    level: Level,
    limits: &Limits,
    seed: u64,
) -> SearchResult {
    let eval = evaluators.get(position.variant());
    // A table of its own per search (no memory shared between games): a few megabytes,
    // more at the levels that search deep.
    let hash_mb = if level.number() >= 4 { 16 } else { 2 };
    let mut player = Player::with_hash(eval, level, seed, hash_mb);
    player.choose_with_result(&mut position, limits)
}

/// What `side` of a Looking-Glass game knows now, as the engine's player takes it: his view,
/// what the referee told him, the options and his own back rank (never the referee's state).
/// For the bot's own turns and for judging a player's orders after the game.
///
/// # Errors
/// When the view is not `side`'s (it always is: the game gives it).
pub(crate) fn glass_knowledge(
    game: &rules::glass::Glass,
    side: rules::Side,
) -> Result<engine::glass::Knowledge, engine::glass::KnowledgeError> {
    engine::glass::Knowledge::for_side(
        side,
        game.view(side),
        game.told(side).to_vec(),
        game.rules(),
        game.setup(side).cloned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's nice value, where the system says (Linux).
    fn thread_nice() -> Option<i32> {
        #[cfg(target_os = "linux")]
        return rustix::process::getpriority_process(Some(rustix::thread::gettid())).ok();
        #[cfg(not(target_os = "linux"))]
        None
    }

    #[tokio::test]
    async fn jobs_run_in_the_order_queued_on_a_bounded_pool() {
        let pool = SearchPool::new(1, 0).unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let receivers: Vec<_> = (0..5)
            .map(|i| {
                let order = order.clone();
                pool.run(move || {
                    order.lock().unwrap().push(i);
                    i * 10
                })
            })
            .collect();
        let mut results = Vec::new();
        for r in receivers {
            results.push(r.await.unwrap());
        }
        assert_eq!(results, vec![0, 10, 20, 30, 40]);
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4]);
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn searches_run_at_the_lowest_priority_and_the_caller_keeps_his() {
        let before = thread_nice().unwrap();
        let pool = SearchPool::new(2, DEFAULT_SEARCH_NICE).unwrap();
        for _ in 0..2 {
            assert_eq!(
                pool.run(thread_nice).await.unwrap(),
                Some(DEFAULT_SEARCH_NICE)
            );
        }
        let pool = SearchPool::new(1, 5).unwrap();
        assert_eq!(pool.run(thread_nice).await.unwrap(), Some(5));
        assert_eq!(thread_nice(), Some(before));
    }

    #[tokio::test]
    async fn a_panicking_job_reports_an_error_and_the_thread_lives_on() {
        let pool = SearchPool::new(1, 0).unwrap();
        let failed = pool.run(|| -> u8 { panic!("engine bug") });
        assert!(failed.await.is_err());
        assert_eq!(pool.run(|| 7).await.unwrap(), 7);
    }

    #[test]
    fn levels_think_longer_as_they_rise_and_level_five_within_seconds() {
        let levels: Vec<Level> = (1..=5).map(|n| Level::new(n).unwrap()).collect();
        for w in levels.windows(2) {
            assert!(time_limit(w[0]) < time_limit(w[1]));
            assert!(node_limit(w[0]) < node_limit(w[1]));
        }
        assert!(time_limit(Level::MAX) <= Duration::from_secs(3));
        let test = BotConfig::repeatable(500, 1).limits(Level::MAX);
        assert_eq!((test.nodes, test.time), (Some(500), None));
        assert!(default_threads() >= 1);
    }

    #[test]
    fn a_repeatable_search_gives_the_same_move_twice() {
        let chess = rules::Catalog::builtin().get("chess").unwrap();
        let evaluators = Evaluators::default();
        let limits = BotConfig::repeatable(3_000, 9).limits(Level::new(1).unwrap());
        let pick = || {
            search(
                &evaluators,
                Position::start(&chess),
                Level::new(1).unwrap(),
                &limits,
                42,
            )
            .best
        };
        let first = pick();
        assert!(first.is_some());
        assert_eq!(first, pick());
    }
}
