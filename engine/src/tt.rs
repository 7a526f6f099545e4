//! The transposition table: one slot per hash bucket, replaced when the new entry is deeper
//! or from a newer search, keyed by [`rules::Position::hash`] (Zobrist over the whole state).

use rules::Move;

/// What a stored score means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The true score is at least this (a beta cut-off).
    Lower,
    /// The true score is at most this (no move raised alpha).
    Upper,
}

#[derive(Copy, Clone, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    pub age: u8,
}

/// A fixed-size table; its size is a power of two so the index is a mask.
#[derive(Debug)]
pub(crate) struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
    age: u8,
}

impl Table {
    /// A table of about `mb` megabytes (at least 1024 entries).
    pub fn new(mb: usize) -> Table {
        let per = std::mem::size_of::<Option<Entry>>().max(1);
        let want = (mb.max(1) * 1024 * 1024 / per).max(1024);
        let n = 1usize << (usize::BITS - 1 - want.leading_zeros());
        Table {
            slots: vec![None; n],
            mask: n - 1,
            age: 0,
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
        self.age = 0;
    }

    /// Marks the start of a new search, so older entries give way.
    pub fn next_age(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[key as usize & self.mask].filter(|e| e.key == key)
    }

    pub fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i16, bound: Bound) {
        let slot = &mut self.slots[key as usize & self.mask];
        let replace = match slot {
            None => true,
            Some(e) => e.age != self.age || e.key == key || depth >= e.depth,
        };
        if replace {
            // Keep the old best move when the new entry has none for the same position.
            let mv = mv.or_else(|| slot.filter(|e| e.key == key).and_then(|e| e.mv));
            *slot = Some(Entry {
                key,
                mv,
                score,
                depth,
                bound,
                age: self.age,
            });
        }
    }
}
