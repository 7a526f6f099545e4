//! Zobrist keys for repetition detection: one key per (piece code, cell), per side to move,
//! per castling slot and per en-passant cell, from a fixed seed so hashes are reproducible.

use crate::types::MAX_CELLS;

/// The keys of one variant.
#[derive(Debug, Clone)]
pub(crate) struct Zobrist {
    ncells: usize,
    pieces: Vec<u64>,
    pub turn: [u64; 4],
    /// Per partner cell, so the key does not depend on the order castling slots were made.
    pub castling: Vec<u64>,
    pub ep: Vec<u64>,
}

/// SplitMix64: small, fast, and good enough for hashing keys.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Zobrist {
    pub fn new(ncells: usize, sides: usize) -> Zobrist {
        let mut s = 0x00F4_1EB0_7C0D_E5EEu64;
        debug_assert!(ncells <= MAX_CELLS);
        let codes = 32 * sides.max(2);
        let pieces = (0..codes * ncells).map(|_| next(&mut s)).collect();
        let mut turn = [0; 4];
        for t in turn.iter_mut().skip(1) {
            *t = next(&mut s);
        }
        let castling = (0..ncells).map(|_| next(&mut s)).collect();
        let ep = (0..ncells).map(|_| next(&mut s)).collect();
        Zobrist {
            ncells,
            pieces,
            turn,
            castling,
            ep,
        }
    }

    /// The key of a packed piece on a cell.
    #[inline]
    pub fn piece(&self, code: u8, cell: usize) -> u64 {
        self.pieces[code as usize * self.ncells + cell]
    }
}
