//! A player's secret back rank: chosen by Chess960 number, by text, or at random.

use std::fmt;

use crate::chess960;

/// A back rank under the Chess960 rules (Bishops on opposite colours, the King between the
/// Rooks), written a-file first in uppercase: `RNBQKBNR`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BackRank(String);

/// Why a back rank is refused; each message says what to type instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackRankError {
    /// A number outside 0..960.
    #[error("{0} is not a Chess960 number; give one from 0 to 959 (518 is the orthodox row)")]
    Number(u32),
    /// Not eight pieces K, Q, R, R, B, B, N, N.
    #[error(
        "{} is not a back rank: give eight letters with one K, one Q, two R, two B and two N, such as RNBQKBNR",
        crate::quote::quote(.0)
    )]
    Pieces(String),
    /// Both Bishops on squares of one colour.
    #[error(
        "{} puts both Bishops on squares of one colour; they must stand on opposite colours",
        crate::quote::quote(.0)
    )]
    Bishops(String),
    /// The King is not between the Rooks.
    #[error("{} does not put the King between the two Rooks", crate::quote::quote(.0))]
    King(String),
}

impl BackRank {
    /// The orthodox row, Chess960 number 518.
    pub fn orthodox() -> BackRank {
        BackRank("RNBQKBNR".into())
    }

    /// The back rank with Chess960 number `n` (Scharnagl's numbering).
    ///
    /// # Errors
    /// When `n` is 960 or more.
    pub fn from_number(n: u32) -> Result<BackRank, BackRankError> {
        u16::try_from(n)
            .ok()
            .and_then(chess960::back_rank)
            .map(BackRank)
            .ok_or(BackRankError::Number(n))
    }

    /// Reads a player's choice: a number (`518`) or eight letters (`rnbqkbnr`, any case).
    ///
    /// # Errors
    /// A [`BackRankError`] saying what is wrong and what to type.
    pub fn parse(text: &str) -> Result<BackRank, BackRankError> {
        let t = text.trim();
        if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
            return BackRank::from_number(t.parse().unwrap_or(u32::MAX));
        }
        let up = t.to_ascii_uppercase();
        let mut letters: Vec<char> = up.chars().collect();
        letters.sort_unstable();
        if letters != ['B', 'B', 'K', 'N', 'N', 'Q', 'R', 'R'] {
            return Err(BackRankError::Pieces(t.to_string()));
        }
        let at = |p: char| {
            up.char_indices()
                .filter(move |(_, c)| *c == p)
                .map(|(i, _)| i)
        };
        let bishops: Vec<usize> = at('B').collect();
        if bishops[0] % 2 == bishops[1] % 2 {
            return Err(BackRankError::Bishops(t.to_string()));
        }
        let rooks: Vec<usize> = at('R').collect();
        let king = at('K').next().unwrap_or(0);
        if !(rooks[0] < king && king < rooks[1]) {
            return Err(BackRankError::King(t.to_string()));
        }
        Ok(BackRank(up))
    }

    /// The letters, a-file first.
    pub fn letters(&self) -> &str {
        &self.0
    }

    /// Its Chess960 number.
    pub fn number(&self) -> u32 {
        (0..960u16)
            .find(|n| chess960::back_rank(*n).as_deref() == Some(self.0.as_str()))
            .map_or(0, u32::from)
    }
}

impl fmt::Display for BackRank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_agree() {
        assert_eq!(BackRank::parse("518").unwrap(), BackRank::orthodox());
        assert_eq!(BackRank::parse(" rnbqkbnr ").unwrap(), BackRank::orthodox());
        assert_eq!(BackRank::orthodox().number(), 518);
        assert_eq!(BackRank::parse("0").unwrap().letters(), "BBQNNRKR");
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        assert_eq!(BackRank::parse("960"), Err(BackRankError::Number(960)));
        assert!(matches!(
            BackRank::parse("RNBQKBN"),
            Err(BackRankError::Pieces(_))
        ));
        assert!(matches!(
            BackRank::parse("RNBKQNBR"),
            Err(BackRankError::Bishops(_))
        ));
        assert!(matches!(
            BackRank::parse("KRBQNBNR"),
            Err(BackRankError::King(_))
        ));
        assert!(
            BackRank::parse("xyz")
                .unwrap_err()
                .to_string()
                .contains("RNBQKBNR")
        );
    }
}
