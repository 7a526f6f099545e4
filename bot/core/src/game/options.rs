//! A challenge's options, stored with it and with the game it becomes: the colour the
//! challenger asked for, for Chess960 the number of the start position, the time control
//! (`clock=10+5`, `clock=3d+7d`; absent for a game without a clock), whether the game is
//! rated (`rated=no`; absent for a rated one), in a game against the bot the bot's level
//! (`level=3`), and in a four-player game against the bot the person's seat (`seat=2`), so
//! games stored before read as they did.
//!
//! The store keeps them as text (`colour=second position=123`), opaque to it; this is the one
//! place that writes and reads that text, and an option it does not know is an error, never a
//! silent default.

use std::fmt;

use crate::{command::ColourChoice, time_control::TimeControl};

/// What a challenge asked for beyond the variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameOptions {
    /// Which side the challenger takes.
    pub colour: ColourChoice,
    /// The Chess960 start position's number, once chosen (by the challenger, or drawn when
    /// the challenge is accepted).
    pub position: Option<u16>,
    /// The bot's playing level, in a game against the bot (`level=3`), `None` otherwise.
    /// The bot always holds the challenged seat, and a game against it is stored with the
    /// colour already drawn (`first` or `second`, never `random`), so the level and the
    /// colour together say which seat the bot plays after a restart, whatever the bot's
    /// user id on the platform is.
    pub level: Option<engine::Level>,
    /// In a game against the bot of more than two seats, the challenger's seat (0 is the
    /// first, Red); the bot holds every other one. `None` in every other game, where the
    /// colour says the seat. Stored so that a restart finds the bot's seats from the store
    /// alone, as [`GameOptions::level`] does for two players.
    pub seat: Option<u8>,
    /// The time control ([`TimeControl::None`] unless the challenge chose one).
    pub clock: TimeControl,
    /// Whether the game counts for the players' ratings (the challenger's `unrated` makes it
    /// not). Stored only when off, so the options of every rated game read as before.
    pub rated: bool,
}

impl crate::model::GameRecord {
    /// The game's options, read from their stored text.
    ///
    /// # Errors
    /// Stored text that does not read (see [`GameOptions::parse`]).
    pub fn game_options(&self) -> Result<GameOptions, OptionsError> {
        GameOptions::parse(&self.options)
    }
}

impl crate::model::ChallengeRecord {
    /// The challenge's options, read from their stored text.
    ///
    /// # Errors
    /// Stored text that does not read (see [`GameOptions::parse`]).
    pub fn game_options(&self) -> Result<GameOptions, OptionsError> {
        GameOptions::parse(&self.options)
    }
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            colour: ColourChoice::default(),
            position: None,
            clock: TimeControl::None,
            rated: true,
            level: None,
            seat: None,
        }
    }
}

/// Stored options that do not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A word that is no option.
    #[error("unknown option {0:?}")]
    Unknown(String),
    /// A known option with a value it cannot take.
    #[error("option {key} cannot be {value:?}")]
    Value {
        /// The option.
        key: &'static str,
        /// The value found.
        value: String,
    },
    /// The same option twice.
    #[error("option {0} is given twice")]
    Repeated(&'static str),
}

const COLOUR: &str = "colour";
const POSITION: &str = "position";
const CLOCK: &str = "clock";
const RATED: &str = "rated";
const LEVEL: &str = "level";
const SEAT: &str = "seat";
/// The most seats a game has (four-player forms): a stored seat beyond is an error.
const MAX_SEATS: u8 = 4;

impl GameOptions {
    /// Reads stored options (empty text is the defaults: a game stored before options).
    ///
    /// # Errors
    /// An unknown option, a bad value, or an option given twice.
    pub fn parse(text: &str) -> Result<GameOptions, OptionsError> {
        let mut options = GameOptions::default();
        let (mut colour, mut position, mut clock, mut rated, mut level, mut seat) =
            (false, false, false, false, false, false);
        let cut = |s: &str| s.chars().take(40).collect::<String>();
        for word in text.split_whitespace() {
            let Some((key, value)) = word.split_once('=') else {
                return Err(OptionsError::Unknown(cut(word)));
            };
            let bad = || OptionsError::Value {
                key: match key {
                    COLOUR => COLOUR,
                    CLOCK => CLOCK,
                    RATED => RATED,
                    LEVEL => LEVEL,
                    SEAT => SEAT,
                    _ => POSITION,
                },
                value: cut(value),
            };
            match key {
                COLOUR if colour => return Err(OptionsError::Repeated(COLOUR)),
                COLOUR => {
                    colour = true;
                    options.colour = match value {
                        "first" => ColourChoice::First,
                        "second" => ColourChoice::Second,
                        "random" => ColourChoice::Random,
                        _ => return Err(bad()),
                    };
                }
                POSITION if position => return Err(OptionsError::Repeated(POSITION)),
                POSITION => {
                    position = true;
                    let n: u16 = value.parse().map_err(|_| bad())?;
                    if n >= 960 {
                        return Err(bad());
                    }
                    options.position = Some(n);
                }
                CLOCK if clock => return Err(OptionsError::Repeated(CLOCK)),
                CLOCK => {
                    clock = true;
                    options.clock = TimeControl::parse(value).map_err(|_| bad())?;
                }
                RATED if rated => return Err(OptionsError::Repeated(RATED)),
                RATED => {
                    rated = true;
                    options.rated = match value {
                        "yes" => true,
                        "no" => false,
                        _ => return Err(bad()),
                    };
                }
                LEVEL if level => return Err(OptionsError::Repeated(LEVEL)),
                LEVEL => {
                    level = true;
                    let n: u8 = value.parse().map_err(|_| bad())?;
                    options.level = Some(engine::Level::new(n).map_err(|_| bad())?);
                }
                SEAT if seat => return Err(OptionsError::Repeated(SEAT)),
                SEAT => {
                    seat = true;
                    let n: u8 = value.parse().map_err(|_| bad())?;
                    if n >= MAX_SEATS {
                        return Err(bad());
                    }
                    options.seat = Some(n);
                }
                _ => return Err(OptionsError::Unknown(cut(word))),
            }
        }
        Ok(options)
    }
}

impl fmt::Display for GameOptions {
    /// The stored text, which [`GameOptions::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let colour = match self.colour {
            ColourChoice::First => "first",
            ColourChoice::Second => "second",
            ColourChoice::Random => "random",
        };
        write!(f, "{COLOUR}={colour}")?;
        if let Some(n) = self.position {
            write!(f, " {POSITION}={n}")?;
        }
        if self.clock.is_some() {
            write!(f, " {CLOCK}={}", self.clock)?;
        }
        if !self.rated {
            write!(f, " {RATED}=no")?;
        }
        if let Some(level) = self.level {
            write!(f, " {LEVEL}={}", level.number())?;
        }
        if let Some(n) = self.seat {
            write!(f, " {SEAT}={n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_round_trip() {
        for colour in [
            ColourChoice::First,
            ColourChoice::Second,
            ColourChoice::Random,
        ] {
            for position in [None, Some(0), Some(518), Some(959)] {
                for clock in ["none", "10+5", "1+0", "3d", "3d+7d"] {
                    for rated in [true, false] {
                        for level in [None, Some(1), Some(3), Some(5)] {
                            for seat in [None, Some(0), Some(3)] {
                                let clock = TimeControl::parse(clock).unwrap();
                                let level = level.map(|n| engine::Level::new(n).unwrap());
                                let o = GameOptions {
                                    colour,
                                    position,
                                    clock,
                                    rated,
                                    level,
                                    seat,
                                };
                                assert_eq!(GameOptions::parse(&o.to_string()), Ok(o));
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(GameOptions::parse(""), Ok(GameOptions::default()));
        // Without a clock, rated: nothing more is written; options stored before are unchanged.
        assert_eq!(GameOptions::default().to_string(), "colour=first");
        assert_eq!(
            GameOptions::parse("colour=second clock=10+5")
                .unwrap()
                .clock
                .to_string(),
            "10+5"
        );
        assert!(
            GameOptions::parse("").unwrap().rated,
            "games before ratings read as rated"
        );
    }

    #[test]
    fn the_level_reads_in_any_order_and_says_what_is_wrong() {
        let o = GameOptions::parse("level=2 colour=second").unwrap();
        assert_eq!(o.level.map(engine::Level::number), Some(2));
        assert_eq!(o.colour, ColourChoice::Second);
        assert_eq!(o.to_string(), "colour=second level=2");
        assert_eq!(
            GameOptions::parse("level=9"),
            Err(OptionsError::Value {
                key: "level",
                value: "9".into()
            })
        );
        assert_eq!(
            GameOptions::parse("colour=first level=1 level=2"),
            Err(OptionsError::Repeated("level"))
        );
    }

    #[test]
    fn unknown_or_bad_options_are_errors() {
        for bad in [
            "colour=blue",
            "color=first",
            "colour=first colour=second",
            "position=960",
            "position=-1",
            "position=x",
            "clock=5+",
            "clock=-3d",
            "clock=fast",
            "clock=3d clock=3d",
            "first",
            "rated=maybe",
            "rated=no rated=no",
            "level=0",
            "level=6",
            "level=x",
            "level=",
            "level=3 level=3",
            "level=-1",
            "seat=4",
            "seat=-1",
            "seat=red",
            "seat=1 seat=1",
        ] {
            assert!(GameOptions::parse(bad).is_err(), "{bad}");
        }
    }
}
