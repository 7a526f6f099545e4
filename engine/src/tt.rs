//! The transposition table: one slot per hash bucket, replaced when the new entry is deeper
//! or from a newer search, keyed by [`rules::Position::hash`] (Zobrist over the whole state).
//!
//! **Shared between threads.** Lazy SMP ([`crate::search::Searcher::set_threads`]) has every
//! thread read and write one table, so a slot is two `AtomicU64` words, written and read
//! without a lock (the workspace has no `unsafe`, and a lock per probe would cost more than
//! the probe). A slot's `data` word packs the move, score and bound; its `check` word is the
//! key XOR `data` with the depth and age in its low 16 bits. A reader recomputes the key from
//! the two words: when another thread wrote one of them in between, the key does not match
//! and the slot reads as empty, which is the lockless hashing of Hyatt and Mann ("A lockless
//! transposition table implementation for parallel search", ICGA Journal 25(1), 2002). A
//! move read from the table is only ever compared with generated moves, never played
//! unchecked, so even a false match (one chance in 2^48) cannot make an illegal move.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use rules::{Cell, Kind, Move, MoveKind};

/// What a stored score means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The true score is at least this (a beta cut-off).
    Lower,
    /// The true score is at most this (no move raised alpha).
    Upper,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub key: u64,
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    pub age: u8,
}

/// One bucket: see the module's comment for what the two words hold.
#[derive(Debug, Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// `data`: bit 63 says the slot is used, bit 62 that it has a move; bits 60-61 the bound;
/// 44-59 the score; 0-43 the move.
const USED: u64 = 1 << 63;
const HAS_MOVE: u64 = 1 << 62;
const BOUND_SHIFT: u32 = 60;
const SCORE_SHIFT: u32 = 44;
/// The bits of `data` that hold the move.
const MOVE_BITS: u64 = (1 << SCORE_SHIFT) - 1;
/// `check`: the low 16 bits are the depth (8 bits) and the age (8 bits), the rest the key
/// XOR `data`.
const META_MASK: u64 = (1 << 16) - 1;

/// Whether a slot's words were written for `key`: only the key's high bits are stored, and
/// the slot's index already agrees on its low ones.
#[inline]
fn holds(check: u64, data: u64, key: u64) -> bool {
    (check ^ data ^ key) & !META_MASK == 0
}

/// The depth a slot's `check` word holds.
#[inline]
fn stored_depth(check: u64) -> i16 {
    i16::from((check >> 8) as u8 as i8)
}

/// A fixed-size table; its size is a power of two so the index is a mask.
#[derive(Debug)]
pub(crate) struct Table {
    slots: Vec<Slot>,
    mask: usize,
    age: AtomicU8,
}

impl Table {
    /// A table of about `mb` megabytes (at least 1024 entries).
    pub fn new(mb: usize) -> Table {
        let per = std::mem::size_of::<Slot>();
        let want = (mb.max(1) * 1024 * 1024 / per).max(1024);
        let n = 1usize << (usize::BITS - 1 - want.leading_zeros());
        Table {
            slots: (0..n).map(|_| Slot::default()).collect(),
            mask: n - 1,
            age: AtomicU8::new(0),
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&self) {
        for s in &self.slots {
            s.data.store(0, Relaxed);
            s.check.store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
    }

    /// Marks the start of a new search, so older entries give way.
    pub fn next_age(&self) {
        self.age
            .store(self.age.load(Relaxed).wrapping_add(1), Relaxed);
    }

    /// The slot of `key`'s two words (`check`, `data`), if it is used, whatever its key.
    #[inline]
    fn words(&self, key: u64) -> Option<(u64, u64)> {
        let slot = &self.slots[key as usize & self.mask];
        let data = slot.data.load(Relaxed);
        let check = slot.check.load(Relaxed);
        (data & USED != 0).then_some((check, data))
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let (check, data) = self.words(key).filter(|&(c, d)| holds(c, d, key))?;
        let bound = match (data >> BOUND_SHIFT) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Entry {
            key,
            mv: (data & HAS_MOVE != 0).then(|| unpack_move(data)),
            score: i32::from((data >> SCORE_SHIFT) as u16 as i16),
            depth: stored_depth(check),
            bound,
            age: check as u8,
        })
    }

    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, depth: i16, bound: Bound) {
        let age = self.age.load(Relaxed);
        let old = self.words(key);
        let same = old.is_some_and(|(c, d)| holds(c, d, key));
        let replace = match old {
            None => true,
            Some((c, _)) => c as u8 != age || same || depth >= stored_depth(c),
        };
        if !replace {
            return;
        }
        // Keep the old best move, as stored, when the new entry has none for the same
        // position.
        let move_bits = match (mv, old) {
            (Some(m), _) => HAS_MOVE | pack_move(m),
            (None, Some((_, d))) if same => d & (HAS_MOVE | MOVE_BITS),
            (None, _) => 0,
        };
        let bound = match bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        let data =
            USED | move_bits | (bound << BOUND_SHIFT) | (u64::from(score as u16) << SCORE_SHIFT);
        let depth = depth.clamp(i16::from(i8::MIN), i16::from(i8::MAX)) as i8;
        let meta = (u64::from(depth as u8) << 8) | u64::from(age);
        let check = ((key ^ data) & !META_MASK) | meta;
        let slot = &self.slots[key as usize & self.mask];
        slot.data.store(data, Relaxed);
        slot.check.store(check, Relaxed);
    }
}

/// A move in 44 bits: from, to, aux and aux2 (8 each), the kind (4), the promotion (8: none,
/// or the kind plus one).
fn pack_move(m: Move) -> u64 {
    u64::from(m.from.0)
        | u64::from(m.to.0) << 8
        | u64::from(m.aux.0) << 16
        | u64::from(m.aux2.0) << 24
        | (m.kind as u64) << 32
        | m.promotion.map_or(0, |k| u64::from(k.0) + 1) << 36
}

fn unpack_move(data: u64) -> Move {
    let byte = |shift: u32| (data >> shift) as u8;
    let kind = match (data >> 32) & 15 {
        0 => MoveKind::Quiet,
        1 => MoveKind::Capture,
        2 => MoveKind::DoubleStep,
        3 => MoveKind::EnPassant,
        4 => MoveKind::Castle,
        5 => MoveKind::Flip,
        6 => MoveKind::Push,
        7 => MoveKind::Freeze,
        8 => MoveKind::Kill,
        9 => MoveKind::Resign,
        _ => MoveKind::Pass,
    };
    let promo = ((data >> 36) & 0xff) as u16;
    Move {
        from: Cell(byte(0)),
        to: Cell(byte(8)),
        kind,
        promotion: (promo != 0).then(|| Kind((promo - 1) as u8)),
        aux: Cell(byte(16)),
        aux2: Cell(byte(24)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds() -> [MoveKind; 11] {
        [
            MoveKind::Quiet,
            MoveKind::Capture,
            MoveKind::DoubleStep,
            MoveKind::EnPassant,
            MoveKind::Castle,
            MoveKind::Flip,
            MoveKind::Push,
            MoveKind::Freeze,
            MoveKind::Kill,
            MoveKind::Resign,
            MoveKind::Pass,
        ]
    }

    #[test]
    fn every_move_shape_round_trips() {
        for (i, kind) in kinds().into_iter().enumerate() {
            for promotion in [None, Some(Kind(0)), Some(Kind(7)), Some(Kind(254))] {
                let m = Move {
                    from: Cell(i as u8 * 23),
                    to: Cell(255 - i as u8),
                    kind,
                    promotion,
                    aux: Cell(200 + i as u8),
                    aux2: Cell(i as u8 * 3),
                };
                assert_eq!(unpack_move(pack_move(m)), m);
            }
        }
    }

    #[test]
    fn an_entry_reads_back_as_written() {
        let t = Table::new(1);
        let step = Move::new(Cell(12), Cell(28), MoveKind::DoubleStep);
        let promote = Move {
            promotion: Some(Kind(u8::MAX - 1)),
            ..Move::new(Cell(52), Cell(61), MoveKind::Capture)
        };
        for (key, m, score, depth, bound) in [
            (
                0x1234_5678_9abc_def0_u64,
                step,
                -31_990,
                0_i16,
                Bound::Upper,
            ),
            (0xfedc_ba98_7654_3210, promote, 31_991, 63, Bound::Lower),
            (0x0000_0000_0000_0001, promote, -1, -3, Bound::Exact),
        ] {
            t.store(key, Some(m), score, depth, bound);
            let e = t.probe(key).expect("stored");
            assert_eq!((e.key, e.mv, e.score), (key, Some(m), score));
            assert_eq!((e.depth, e.bound, e.age), (depth, bound, 0));
            // Another key in the same slot is not this entry.
            assert!(t.probe(key ^ (1 << 40)).is_none());
        }
    }

    #[test]
    fn a_torn_slot_reads_as_empty() {
        let t = Table::new(1);
        let (a, b) = (0x1111_2222_3333_0005_u64, 0x4444_5555_6666_0005_u64);
        t.store(a, None, 10, 4, Bound::Exact);
        let check_a = t.slots[5].check.load(Relaxed);
        t.store(b, None, -20, 6, Bound::Lower);
        // The check word of one write with the data word of another: as if a thread read
        // between two writers.
        t.slots[5].check.store(check_a, Relaxed);
        assert!(t.probe(a).is_none());
        assert!(t.probe(b).is_none());
    }

    #[test]
    fn replacement_prefers_depth_within_a_search_and_newness_across() {
        let t = Table::new(1);
        let (a, b) = (0xaaaa_0000_0000_0007_u64, 0xbbbb_0000_0000_0007_u64);
        t.store(a, None, 1, 8, Bound::Exact);
        t.store(b, None, 2, 3, Bound::Exact);
        assert!(
            t.probe(a).is_some(),
            "a shallower entry does not evict a deeper one"
        );
        t.next_age();
        t.store(b, None, 2, 3, Bound::Exact);
        assert!(
            t.probe(b).is_some(),
            "an entry of an older search gives way"
        );
        let m = Move::new(Cell(1), Cell(2), MoveKind::Quiet);
        t.store(b, Some(m), 2, 3, Bound::Exact);
        t.store(b, None, 5, 4, Bound::Lower);
        assert_eq!(
            t.probe(b).and_then(|e| e.mv),
            Some(m),
            "the old move is kept"
        );
    }
}
