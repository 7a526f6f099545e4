//! Static exchange evaluation: what a move wins or loses in material on its destination if
//! both sides then keep capturing there, each with its least valuable attacker and each free
//! to stop when going on would cost it.
//!
//! A search orders and prunes captures by it (a Rook that takes a Knight defended by a pawn
//! loses two pawns' worth; one that takes a Bishop defended only by a Queen it can answer
//! wins the Bishop). The walk recomputes the attackers on a scratch board after every
//! capture over the same attack tries as [`Position::is_attacked`], so pieces lined up
//! behind each other, hoppers that need a screen, wrapped and twisted boards all come out
//! right without a rule of their own.

use super::{Position, attacks::each_attacker};
use crate::{
    tables::Tables,
    types::{Cell, Kind, MAX_CELLS, Move, MoveKind, Piece, Side},
};

/// The longest exchange followed; a real one on any board ends far sooner.
const MAX_DEPTH: usize = 64;

impl Position {
    /// The material the side to move expects from `m` and the exchange it starts on `m.to`,
    /// in the units of `value` (each kind's worth): positive wins, negative loses, zero is
    /// even or quiet and safe.
    ///
    /// `None` where the walk would not be exact enough to trust: games of more than two
    /// sides, special powers (flips, pushes, freezes and kills change the board otherwise),
    /// and moves other than a step, a double step, a capture or a promotion. Pins, checks
    /// and promotions by a recapturing pawn are not seen, as in every chess engine's version.
    ///
    /// # Examples
    ///
    /// ```
    /// use rules::{Catalog, fen, notation};
    ///
    /// let chess = Catalog::builtin().get("chess").unwrap();
    /// let worth = |k: rules::Kind| match chess.piece(k).letter {
    ///     'P' => 100, 'N' | 'B' => 300, 'R' => 500, 'Q' => 900, _ => 0,
    /// };
    /// // The Knight on d5 is defended by the pawn on e6: the Rook gains 300 and loses 500.
    /// let pos = fen::position(&chess, "4k3/8/4p3/3n4/8/8/8/3RK3 w - - 0 1").unwrap();
    /// let m = notation::parse_move(&pos, "Rxd5").unwrap();
    /// assert_eq!(pos.exchange(m, worth), Some(-200));
    /// ```
    pub fn exchange(&self, m: Move, value: impl Fn(Kind) -> i32) -> Option<i32> {
        let v = &*self.variant;
        if v.sides != 2
            || v.special.is_some()
            || !matches!(
                m.kind,
                MoveKind::Quiet | MoveKind::Capture | MoveKind::DoubleStep
            )
        {
            return None;
        }
        let cells = self.board.len();
        let mut scratch = [0u8; MAX_CELLS];
        let board = &mut scratch[..cells];
        board.copy_from_slice(&self.board);
        let target = m.to.index();
        let mover = Piece::from_code(board[m.from.index()])?;
        let mut royal = self.royal;
        // gain[d]: what the side making the d-th capture has won so far if it stops there.
        let mut gain = [0i32; MAX_DEPTH];
        gain[0] = if m.kind == MoveKind::Capture {
            Piece::from_code(board[target]).map_or(0, |p| value(p.kind))
        } else {
            0
        };
        let mut standing = match m.promotion {
            Some(k) => {
                gain[0] += value(k) - value(mover.kind);
                Piece {
                    side: mover.side,
                    kind: k,
                }
            }
            None => mover,
        };
        board[m.from.index()] = 0;
        board[target] = standing.code();
        if royal[mover.side.index()] == Some(m.from) {
            royal[mover.side.index()] = Some(m.to);
        }
        let mut side = Side(mover.side.0 ^ 1);
        let mut d = 0;
        while d + 1 < MAX_DEPTH {
            let Some(from) = least_valuable(&v.tables, board, side, target, royal, &value) else {
                break;
            };
            let taker = Piece::from_code(board[from])?;
            board[from] = 0;
            board[target] = taker.code();
            // A royal piece may take only where the other side cannot take it back.
            if royal[side.index()] == Some(Cell(from as u8))
                && super::attacks::attacked(&v.tables, board, side.0 ^ 1, target)
            {
                break;
            }
            d += 1;
            gain[d] = value(standing.kind) - gain[d - 1];
            // Neither side can do better by going on: the result is settled.
            if (-gain[d - 1]).max(gain[d]) < 0 {
                break;
            }
            standing = taker;
            side = Side(side.0 ^ 1);
        }
        while d > 0 {
            gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
            d -= 1;
        }
        Some(gain[0])
    }
}

/// The cell of `by`'s least valuable piece that attacks `target` on `board`, a royal piece
/// counted last (it may only take when nothing takes back).
fn least_valuable(
    t: &Tables,
    board: &[u8],
    by: Side,
    target: usize,
    royal: [Option<Cell>; crate::types::MAX_SIDES],
    value: &impl Fn(Kind) -> i32,
) -> Option<usize> {
    let king = royal[by.index()].map(|c| c.index());
    let mut best: Option<(i32, usize)> = None;
    each_attacker(t, board, by.0, target, |cell, p| {
        let worth = if king == Some(cell) {
            i32::MAX
        } else {
            value(Kind(Piece::kind_of(p)))
        };
        if best.is_none_or(|(w, _)| worth < w) {
            best = Some((worth, cell));
        }
    });
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use crate::{Catalog, Kind, Variant, fen, notation};

    fn worth(v: &Variant) -> impl Fn(Kind) -> i32 + '_ {
        move |k| match v.piece(k).letter.to_ascii_uppercase() {
            'P' => 100,
            'N' | 'B' => 300,
            'R' => 500,
            'Q' => 900,
            'C' => 450,
            _ => 0,
        }
    }

    fn see(variant: &str, fen_text: &str, mv: &str) -> Option<i32> {
        let v = Catalog::builtin().get(variant).unwrap();
        let pos = fen::position(&v, fen_text).unwrap();
        let m = notation::parse_move(&pos, mv).unwrap();
        pos.exchange(m, worth(&v))
    }

    #[test]
    fn free_and_defended_pieces() {
        // An undefended Knight is won outright.
        assert_eq!(
            see("chess", "4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1", "Rxd5"),
            Some(300)
        );
        // A pawn defends it: the Rook is lost for the Knight.
        assert_eq!(
            see("chess", "4k3/8/4p3/3n4/8/8/8/3RK3 w - - 0 1", "Rxd5"),
            Some(-200)
        );
        // Pawn takes Knight whatever defends it.
        assert_eq!(
            see("chess", "4k3/8/4p3/3n4/4P3/8/8/4K3 w - - 0 1", "exd5"),
            Some(300 - 100)
        );
    }

    #[test]
    fn the_defender_may_decline() {
        // Rook takes a Bishop defended only by the Queen; a pawn would take the Queen back,
        // so Black does better not to recapture.
        assert_eq!(
            see("chess", "3qk3/8/8/3b4/4P3/8/8/3RK3 w - - 0 1", "Rxd5"),
            Some(300)
        );
    }

    #[test]
    fn pieces_behind_pieces_join_in() {
        // Two Rooks on the d-file against a Rook and a Queen behind it: the second Rook
        // joins once the first has gone (an x-ray), and Black's Queen behind its Rook too.
        // Rxd5 Rxd5 Rxd5 Qxd5: White gives two Rooks for a Knight and a Rook.
        assert_eq!(
            see("chess", "3qk3/3r4/8/3n4/8/8/3R4/3RK3 w - - 0 1", "Rxd5"),
            Some(300 - 500 + 500 - 500)
        );
        // Without the Black Queen the second Rook wins the exchange back and more.
        assert_eq!(
            see("chess", "4k3/3r4/8/3n4/8/8/3R4/3RK3 w - - 0 1", "Rxd5"),
            Some(300)
        );
    }

    #[test]
    fn the_least_valuable_piece_takes_first() {
        // Black may take back on d5 with the pawn or the Queen; the pawn goes first, so the
        // Bishop's recapture wins only a pawn: Rook for Knight and pawn.
        assert_eq!(
            see("chess", "4k3/8/4p3/3n3q/8/1B6/8/3RK3 w - - 0 1", "Rxd5"),
            Some(300 - 500 + 100)
        );
        // The King comes last even though it is worth nothing here: the pawn takes first.
        assert_eq!(
            see("chess", "8/8/2p1k3/3n4/8/1B6/8/3RK3 w - - 0 1", "Rxd5"),
            Some(300 - 500 + 100)
        );
    }

    #[test]
    fn a_king_takes_only_where_nothing_takes_back() {
        // The King may take the Rook on e2: nothing guards it.
        assert_eq!(
            see("chess", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "Kxe2"),
            Some(500)
        );
        // Rxd2 is answered by Kxd2 unless something guards d2: the Rook is lost for a pawn.
        assert_eq!(
            see("chess", "3rk3/8/8/8/8/8/3P4/4K3 b - - 0 1", "Rxd2"),
            Some(100 - 500)
        );
        // A Black Bishop on g5 guards d2, so the King may not take back.
        assert_eq!(
            see("chess", "3rk3/8/8/6b1/8/8/3P4/4K3 b - - 0 1", "Rxd2"),
            Some(100)
        );
    }

    #[test]
    fn a_step_onto_an_attacked_cell() {
        // The Queen steps where a pawn takes it.
        assert_eq!(
            see("chess", "4k3/8/8/4p3/8/8/8/3QK3 w - - 0 1", "Qd4"),
            Some(-900)
        );
        // A safe square.
        assert_eq!(
            see("chess", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "Qd4"),
            Some(0)
        );
    }

    #[test]
    fn promotion_counts_the_new_piece() {
        assert_eq!(
            see("chess", "3r3k/2P5/8/8/8/8/8/4K3 w - - 0 1", "cxd8=Q+"),
            Some(500 + 800)
        );
        // Promotion on a guarded square: the Queen is taken back.
        assert_eq!(
            see("chess", "3rk3/2P5/8/8/8/8/8/4K3 w - - 0 1", "cxd8=Q+"),
            Some(500 + 800 - 900)
        );
    }

    #[test]
    fn hoppers_need_their_screen() {
        // Toulousain's Cannon takes by hopping exactly one piece. White's Cannon takes the
        // Rook on d8 over the pawn on d4; Black's Cannon on d12 can take back only with a
        // screen between it and d8.
        let no_screen = "k2c8/12/12/12/3r8/12/12/12/3p8/12/12/3C7K w - - 0 1";
        assert_eq!(see("toulousain", no_screen, "Cxd8"), Some(500));
        let screen = "k2c8/12/3p8/12/3r8/12/12/12/3p8/12/12/3C7K w - - 0 1";
        assert_eq!(see("toulousain", screen, "Cxd8"), Some(500 - 450));
    }
}
