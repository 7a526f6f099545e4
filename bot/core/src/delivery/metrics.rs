//! What the people who run the bot count: commands and their latency by kind, and the
//! renders the web pages and replays make. A [`Metrics`] value is owned by the binary and
//! handed to whoever counts (the service, the web server); there is no global registry, so
//! two services in one test never mix their numbers.
//!
//! The counts are written out in Prometheus' text exposition format by the web server's
//! `/metrics` (bot-web), together with what it reads from the store at that moment (replies
//! waiting, live games).

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

/// Whether each configured platform is connected, as its adapter sees it (Discord: the
/// gateway's shard is connected; Matrix: the last sync went through), for `/healthz`. The
/// binary makes one and hands clones to each adapter and to the web server; clones share
/// the states. A platform counts as not connected until its adapter says otherwise.
#[derive(Debug, Clone, Default)]
pub struct Health {
    platforms: Arc<Mutex<BTreeMap<String, bool>>>,
}

impl Health {
    /// No platform yet.
    pub fn new() -> Health {
        Health::default()
    }

    /// Says whether `platform` is connected now. Logged when it changes.
    pub fn set(&self, platform: &str, connected: bool) {
        if let Ok(mut p) = self.platforms.lock() {
            let before = p.insert(platform.to_string(), connected);
            if before.is_some_and(|b| b != connected) {
                if connected {
                    tracing::info!("{platform}: connected again");
                } else {
                    tracing::warn!("{platform}: not connected");
                }
            }
        }
    }

    /// Every platform reported so far and its state.
    pub fn platforms(&self) -> BTreeMap<String, bool> {
        self.platforms.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

/// The upper bounds of the latency buckets, in seconds: from a cached board (a millisecond)
/// to a slow database under load (seconds).
pub const BUCKETS: [f64; 11] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

/// A latency histogram with the fixed [`BUCKETS`] (cumulative, as Prometheus wants them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    /// How many observations fell at or under each bound of [`BUCKETS`] (not cumulative).
    pub buckets: [u64; BUCKETS.len()],
    /// All observations, including those over the last bound.
    pub count: u64,
    /// Their sum, in seconds.
    pub sum: f64,
}

impl Histogram {
    /// Adds one observation.
    pub fn observe(&mut self, took: Duration) {
        let s = took.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|b| s <= *b) {
            self.buckets[i] += 1;
        }
        self.count += 1;
        self.sum += s;
    }

    /// The cumulative count at or under each bound, for the `le` series.
    pub fn cumulative(&self) -> [u64; BUCKETS.len()] {
        let mut out = [0; BUCKETS.len()];
        let mut total = 0;
        for (o, b) in out.iter_mut().zip(self.buckets) {
            total += b;
            *o = total;
        }
        out
    }
}

/// Reads a gauge kept elsewhere (the bot's searches running, kept by the service).
type Gauge = Box<dyn Fn() -> u64 + Send + Sync>;

/// The counters of one process.
#[derive(Default)]
pub struct Metrics {
    commands: Mutex<BTreeMap<&'static str, Histogram>>,
    renders: Mutex<BTreeMap<&'static str, u64>>,
    searches: OnceLock<Gauge>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("commands", &self.commands().len())
            .field("renders", &self.renders())
            .field("searches", &self.searches())
            .finish()
    }
}

impl Metrics {
    /// Empty counters.
    pub fn new() -> Metrics {
        Metrics::default()
    }

    /// One command of kind `kind` (its name: `move`, `challenge`, ...) took `took`.
    pub fn command(&self, kind: &'static str, took: Duration) {
        if let Ok(mut m) = self.commands.lock() {
            m.entry(kind).or_default().observe(took);
        }
    }

    /// One picture of kind `kind` (`svg`, `gif`, ...) was drawn.
    pub fn render(&self, kind: &'static str) {
        if let Ok(mut m) = self.renders.lock() {
            *m.entry(kind).or_default() += 1;
        }
    }

    /// Where the number of engine searches running is read (the service counts them:
    /// [`GameService::bot_searches_running`](crate::GameService::bot_searches_running)).
    /// Only the first source given is kept.
    pub fn searches_from(&self, source: impl Fn() -> u64 + Send + Sync + 'static) {
        let _ = self.searches.set(Box::new(source));
    }

    /// The commands counted so far, by kind.
    pub fn commands(&self) -> BTreeMap<&'static str, Histogram> {
        self.commands.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// The pictures drawn so far, by kind.
    pub fn renders(&self) -> BTreeMap<&'static str, u64> {
        self.renders.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// Engine searches running now; `None` when no source was given (no bot player).
    pub fn searches(&self) -> Option<u64> {
        self.searches.get().map(|f| f())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_fall_in_their_bucket_and_accumulate() {
        let mut h = Histogram::default();
        h.observe(Duration::from_micros(500));
        h.observe(Duration::from_millis(30));
        h.observe(Duration::from_secs(9));
        assert_eq!(h.count, 3);
        assert_eq!(h.buckets[0], 1);
        assert_eq!(h.buckets[4], 1, "30 ms is under 50 ms, over 25 ms");
        let c = h.cumulative();
        assert_eq!(c[3], 1);
        assert_eq!(c[4], 2);
        assert_eq!(c[BUCKETS.len() - 1], 2, "9 s is only in +Inf (the count)");
        assert!((h.sum - 9.0305).abs() < 1e-9);
    }

    #[test]
    fn counters_are_per_value_not_global() {
        let a = Metrics::new();
        let b = Metrics::new();
        a.command("move", Duration::from_millis(2));
        a.render("svg");
        let n = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(2));
        let seen = n.clone();
        a.searches_from(move || seen.load(std::sync::atomic::Ordering::Relaxed));
        assert_eq!(a.commands()["move"].count, 1);
        assert!(b.commands().is_empty());
        assert_eq!(a.renders()["svg"], 1);
        assert_eq!((a.searches(), b.searches()), (Some(2), None));
        n.store(0, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(a.searches(), Some(0), "read when asked");
    }
}
