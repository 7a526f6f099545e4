//! Where the service's random choices come from: a Looking-Glass `setup random` back rank
//! and a `random` colour. Production draws from the operating system, because a secret
//! back rank derived from anything a player can see (the clock, the game number) could be
//! recomputed by his opponent; tests inject a seeded source so every run is the same.

use std::{
    fmt::Debug,
    hash::{BuildHasher, Hasher},
    sync::atomic::{AtomicU64, Ordering},
};

/// A source of uniform random numbers.
pub trait Chance: Send + Sync + Debug {
    /// A number in `0..n`; `n` must be at least 1.
    fn below(&self, n: u32) -> u32;
}

/// The operating system's entropy (`getrandom`).
#[derive(Debug, Clone, Copy, Default)]
pub struct OsChance;

impl Chance for OsChance {
    fn below(&self, n: u32) -> u32 {
        // 64 random bits reduced modulo a small n: the bias is below 2^-50.
        let bits = getrandom::u64().unwrap_or_else(|_| {
            // No entropy source at all (never seen on Linux): the standard library's
            // per-process random hash keys are still unknown to other players.
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0),
            );
            h.finish()
        });
        (bits % u64::from(n.max(1))) as u32
    }
}

/// A reproducible sequence (SplitMix64) for tests and benchmarks.
#[derive(Debug, Default)]
pub struct SeededChance(AtomicU64);

impl SeededChance {
    /// The sequence that starts from `seed`.
    pub fn new(seed: u64) -> Self {
        SeededChance(AtomicU64::new(seed))
    }
}

impl Chance for SeededChance {
    fn below(&self, n: u32) -> u32 {
        let mut z = self
            .0
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % u64::from(n.max(1))) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_sequences_repeat_and_cover_the_range() {
        let (a, b) = (SeededChance::new(7), SeededChance::new(7));
        let xs: Vec<u32> = (0..200).map(|_| a.below(960)).collect();
        let ys: Vec<u32> = (0..200).map(|_| b.below(960)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|x| *x < 960));
        let c = SeededChance::new(8);
        assert_ne!(xs, (0..200).map(|_| c.below(960)).collect::<Vec<_>>());
        let mut seen = [false; 2];
        for _ in 0..64 {
            seen[a.below(2) as usize] = true;
        }
        assert_eq!(seen, [true, true]);
    }

    #[test]
    fn the_system_source_stays_in_range_and_varies() {
        let xs: Vec<u32> = (0..64).map(|_| OsChance.below(960)).collect();
        assert!(xs.iter().all(|x| *x < 960));
        assert!(xs.iter().any(|x| *x != xs[0]), "64 equal draws: {xs:?}");
    }
}
