//! What the core's integration tests share: a deterministic clock, players, and a seeded
//! generator for random games. Each test binary uses part of it.
#![allow(dead_code)]

use std::sync::{
    Arc,
    atomic::{AtomicI64, Ordering},
};

use bot_core::{
    Actor, Clock, GameService,
    model::{Place, Platform, PlayerId},
    store::memory::MemoryStore,
};

/// A clock that ticks one second per reading, from a fixed start (in milliseconds since
/// issue 16; the start and the tick are the seconds they were).
#[derive(Clone, Default)]
pub struct TestClock(pub Arc<AtomicI64>);

impl Clock for TestClock {
    fn now_ms(&self) -> i64 {
        (1_800_000_000 + self.0.fetch_add(1, Ordering::Relaxed)) * 1000
    }
}

/// A clock that stands still until a test moves it: time passes only when the test says, to
/// the millisecond.
#[derive(Clone, Debug)]
pub struct ManualClock(pub Arc<AtomicI64>);

impl ManualClock {
    /// A clock standing at `ms`.
    pub fn at(ms: i64) -> Self {
        ManualClock(Arc::new(AtomicI64::new(ms)))
    }

    /// Moves the clock `ms` forward.
    pub fn advance(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }

    /// Sets the clock to `ms`.
    pub fn set(&self, ms: i64) {
        self.0.store(ms, Ordering::SeqCst);
    }

    /// The time it shows.
    pub fn get(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// A Matrix player `@name:example.org` called `name`.
pub fn actor(name: &str) -> Actor {
    Actor::new(
        PlayerId::new(Platform::Matrix, format!("@{name}:example.org")),
        name.to_string(),
    )
}

/// A seeded linear congruential generator: the same games on every run.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next 31 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A chess game under way in a Matrix room between alice (White) and bob: the service over an
/// in-memory store, the room, and the two players.
pub async fn chess_game() -> (GameService<MemoryStore, TestClock>, Place, Actor, Actor) {
    let svc = GameService::new(
        MemoryStore::new(),
        TestClock::default(),
        Arc::new(rules::Catalog::builtin()),
    );
    let place = Place::room(Platform::Matrix, "!club:example.org");
    let (alice, bob) = (actor("alice"), actor("bob"));
    svc.handle_text(&alice, &place, "challenge @bob:example.org chess white")
        .await;
    svc.handle_text(&bob, &place, "accept").await;
    (svc, place, alice, bob)
}
