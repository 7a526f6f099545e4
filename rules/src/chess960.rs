//! Chess960 start positions by number (0..960, Scharnagl's numbering; 518 is the orthodox
//! array), for variants whose players or bot pick a random back rank.

/// The back rank of position `n` (uppercase letters, a-file first), or `None` if `n >= 960`.
///
/// # Examples
/// ```
/// assert_eq!(rules::chess960::back_rank(518).unwrap(), "RNBQKBNR");
/// assert_eq!(rules::chess960::back_rank(0).unwrap(), "BBQNNRKR");
/// ```
pub fn back_rank(n: u16) -> Option<String> {
    if n >= 960 {
        return None;
    }
    let mut n = n as usize;
    let mut rank = [' '; 8];
    rank[2 * (n % 4) + 1] = 'B';
    n /= 4;
    rank[2 * (n % 4)] = 'B';
    n /= 4;
    let place_nth_empty = |rank: &mut [char; 8], k: usize, piece: char| {
        let i = (0..8)
            .filter(|i| rank[*i] == ' ')
            .nth(k)
            .expect("enough empty files");
        rank[i] = piece;
    };
    place_nth_empty(&mut rank, n % 6, 'Q');
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n];
    // Place the second first so the first's index among the empties is unchanged.
    place_nth_empty(&mut rank, b, 'N');
    place_nth_empty(&mut rank, a, 'N');
    for piece in ['R', 'K', 'R'] {
        place_nth_empty(&mut rank, 0, piece);
    }
    Some(rank.iter().collect())
}

/// The full start state of position `n` on the 8x8 board, with castling rights.
pub fn start_fen(n: u16) -> Option<String> {
    let r = back_rank(n)?;
    Some(format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{r} w KQkq - 0 1",
        r.to_lowercase()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_960_are_distinct_and_legal() {
        let catalog = crate::Catalog::builtin();
        let v = catalog.get("chess960").unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for n in 0..960 {
            let r = back_rank(n).unwrap();
            let b: Vec<usize> = r.match_indices('B').map(|m| m.0).collect();
            assert_ne!(b[0] % 2, b[1] % 2, "{n}: bishops on opposite colours");
            let (r1, k, r2) = (
                r.find('R').unwrap(),
                r.find('K').unwrap(),
                r.rfind('R').unwrap(),
            );
            assert!(r1 < k && k < r2, "{n}: king between the rooks");
            assert!(seen.insert(r.clone()));
            let p = crate::fen::position(&v, &start_fen(n).unwrap()).unwrap();
            assert_eq!(p.castling_cells().len(), 4);
        }
        assert_eq!(back_rank(960), None);
    }
}
