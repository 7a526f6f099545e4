//! Time controls and game clocks (issue 16): what a challenge may ask for, how a clock is
//! charged when a move is stored, when a deadline falls, and when a correspondence player is
//! reminded.
//!
//! Everything here is arithmetic on milliseconds given by the caller (the service's
//! injected [`Clock`](crate::Clock)), so tests run a week of simulated time without sleeping.
//!
//! # Rules
//!
//! - A player's time runs from the moment the previous move was stored (the timestamp the
//!   service takes just before the durable write of that move; for the first move, the
//!   acceptance that created the game) until the moment his own move is about to be stored.
//! - **The flag.** A move stamped at or after its deadline is not played: the player has lost
//!   on time. The deadline is the first millisecond at which the player has no time left, so a
//!   move in the same millisecond as the flag loses: it had 0 ms left.
//! - **Real time** `10+5`: 10 minutes each; 5 seconds are added to the mover's clock after each
//!   of his moves (Fischer increment), also the first.
//! - **Correspondence** `3d`: 3 days for each move; `3d+7d` adds a reserve of 7 days per player
//!   which is drawn on only when a move takes longer than its 3 days, and never refills.
//! - A clock runs in wall time: while the bot is down it keeps running, and a deadline that
//!   passed meanwhile is fired when the bot is back (charged honestly, not paused).

use std::fmt;

/// Milliseconds in a second, minute, hour, day.
pub const SECOND_MS: i64 = 1_000;
/// See [`SECOND_MS`].
pub const MINUTE_MS: i64 = 60 * SECOND_MS;
/// See [`SECOND_MS`].
pub const HOUR_MS: i64 = 60 * MINUTE_MS;
/// See [`SECOND_MS`].
pub const DAY_MS: i64 = 24 * HOUR_MS;

/// Bounds of what a challenge may ask for: long enough for any sane game, small enough that
/// every sum of times stays far inside `i64` milliseconds.
const MAX_MINUTES: i64 = 180;
const MAX_INCREMENT_SECONDS: i64 = 60;
const MAX_DAYS: i64 = 30;
const MAX_RESERVE_DAYS: i64 = 60;

/// What every refusal of a time control ends with: what is accepted instead.
pub const ACCEPTED: &str = "Accepted: `none` (no clock, the default); real time `MINUTES+SECONDS`, \
     e.g. `10+5` (10 minutes each, 5 seconds added after each move; 1-180 minutes, 0-60 \
     seconds); or correspondence `DAYSd`, e.g. `3d` (3 days per move, 1-30), with an optional \
     reserve `3d+7d` (0-60 days, drawn on when a move takes longer).";

/// A game's time control, chosen with the challenge and stored in its options (`clock=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimeControl {
    /// No clock: a game waits for its players forever (every game before issue 16).
    #[default]
    None,
    /// Minutes each plus a Fischer increment per move.
    RealTime {
        /// Each player's time at the start.
        base_ms: i64,
        /// Added to the mover's clock after each of his moves.
        increment_ms: i64,
    },
    /// Days per move, plus a reserve drawn on by slow moves.
    Correspondence {
        /// The time for each move.
        per_move_ms: i64,
        /// Each player's reserve at the start.
        reserve_ms: i64,
    },
}

/// A time control that does not read; each says what was wrong and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// Not any of the forms.
    #[error("{} is not a time control. {ACCEPTED}", crate::quote::quote(.0))]
    Unreadable(String),
    /// `10+`: the increment is missing.
    #[error("{} needs the seconds added per move after the `+`, e.g. `10+5` (or `10+0` for none). {ACCEPTED}", crate::quote::quote(.0))]
    MissingIncrement(String),
    /// `3d+`: the reserve is missing.
    #[error("{} needs the reserve after the `+`, e.g. `3d+7d`, or no `+` at all. {ACCEPTED}", crate::quote::quote(.0))]
    MissingReserve(String),
    /// `-3d`.
    #[error("a time cannot be negative ({}). {ACCEPTED}", crate::quote::quote(.0))]
    Negative(String),
    /// `0+0`, `0d`: no time at all.
    #[error("{} gives no time to think: a clock needs at least 1 minute (real time) or 1 day (correspondence). {ACCEPTED}", crate::quote::quote(.0))]
    NoTime(String),
    /// `999999d`, `500+5`.
    #[error("{} is too long: at most {max}. {ACCEPTED}", crate::quote::quote(.text))]
    TooLong {
        /// What was typed.
        text: String,
        /// The limit it broke, in words.
        max: &'static str,
    },
}

impl TimeControl {
    /// Reads a time control as a player types it (and as options store it).
    ///
    /// # Errors
    /// A [`TimeControlError`] naming what was wrong and what is accepted.
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let t = text.trim().to_ascii_lowercase();
        let shown: String = text.trim().chars().take(40).collect();
        if matches!(t.as_str(), "none" | "off" | "no" | "-") {
            return Ok(TimeControl::None);
        }
        if t.starts_with('-') {
            return Err(TimeControlError::Negative(shown));
        }
        let (first, second) = match t.split_once('+') {
            Some((a, b)) => (a, Some(b)),
            None => (t.as_str(), None),
        };
        if let Some(days) = first.strip_suffix('d') {
            let per_move = number(days, &shown)?;
            if per_move == 0 {
                return Err(TimeControlError::NoTime(shown));
            }
            if per_move > MAX_DAYS {
                return Err(TimeControlError::TooLong {
                    text: shown,
                    max: "30 days per move",
                });
            }
            let reserve = match second {
                None => 0,
                Some("") => return Err(TimeControlError::MissingReserve(shown)),
                Some(r) => {
                    let Some(r) = r.strip_suffix('d') else {
                        return Err(TimeControlError::Unreadable(shown));
                    };
                    let r = number(r, &shown)?;
                    if r > MAX_RESERVE_DAYS {
                        return Err(TimeControlError::TooLong {
                            text: shown,
                            max: "60 days of reserve",
                        });
                    }
                    r
                }
            };
            return Ok(TimeControl::Correspondence {
                per_move_ms: per_move * DAY_MS,
                reserve_ms: reserve * DAY_MS,
            });
        }
        let Some(second) = second else {
            return Err(TimeControlError::Unreadable(shown));
        };
        let minutes = number(first, &shown)?;
        if second.is_empty() {
            return Err(TimeControlError::MissingIncrement(shown));
        }
        let seconds = number(second, &shown)?;
        if minutes == 0 {
            return Err(TimeControlError::NoTime(shown));
        }
        if minutes > MAX_MINUTES {
            return Err(TimeControlError::TooLong {
                text: shown,
                max: "180 minutes each",
            });
        }
        if seconds > MAX_INCREMENT_SECONDS {
            return Err(TimeControlError::TooLong {
                text: shown,
                max: "60 seconds of increment",
            });
        }
        Ok(TimeControl::RealTime {
            base_ms: minutes * MINUTE_MS,
            increment_ms: seconds * SECOND_MS,
        })
    }

    /// Whether the game has a clock at all.
    pub fn is_some(self) -> bool {
        self != TimeControl::None
    }

    /// The clock of a game starting at `now_ms` with `seats` players; `None` without one.
    /// The first player's time runs from `now_ms`.
    pub fn start(self, seats: usize, now_ms: i64) -> Option<ClockState> {
        let each = match self {
            TimeControl::None => return None,
            TimeControl::RealTime { base_ms, .. } => base_ms,
            TimeControl::Correspondence { reserve_ms, .. } => reserve_ms,
        };
        let mut state = ClockState {
            remaining_ms: vec![each; seats],
            turn_started_ms: now_ms,
            deadline_ms: now_ms,
            wake_ms: now_ms,
            reminded: 0,
            last_reminder_ms: None,
        };
        state.deadline_ms = now_ms.saturating_add(self.available(&state, 0));
        state.wake_ms = state.deadline_ms;
        Some(state)
    }

    /// How long seat `seat` has for a whole turn that starts now, with his stored time.
    pub fn available(self, state: &ClockState, seat: usize) -> i64 {
        let stored = state.remaining_ms.get(seat).copied().unwrap_or(0);
        match self {
            TimeControl::None => i64::MAX,
            TimeControl::RealTime { .. } => stored,
            TimeControl::Correspondence { per_move_ms, .. } => per_move_ms.saturating_add(stored),
        }
    }

    /// The clock after seat `mover` moved at `now_ms` (which must be before the deadline:
    /// check [`ClockState::is_flagged`] first), with `next` to move: the mover is charged the
    /// time since his turn started and given his increment, and `next`'s turn starts now.
    /// Reminders start over; the caller sets [`ClockState::wake_ms`] for its policy.
    pub fn after_move(
        self,
        state: &ClockState,
        mover: usize,
        next: usize,
        now_ms: i64,
    ) -> ClockState {
        let mut s = state.clone();
        let elapsed = (now_ms - state.turn_started_ms).max(0);
        if let Some(r) = s.remaining_ms.get_mut(mover) {
            *r = match self {
                TimeControl::None => *r,
                TimeControl::RealTime { increment_ms, .. } => {
                    (*r - elapsed).max(0).saturating_add(increment_ms)
                }
                // Only what a move takes beyond its days comes out of the reserve.
                TimeControl::Correspondence { per_move_ms, .. } => {
                    (*r - (elapsed - per_move_ms).max(0)).max(0)
                }
            };
        }
        s.turn_started_ms = now_ms;
        s.deadline_ms = now_ms.saturating_add(self.available(&s, next));
        s.wake_ms = s.deadline_ms;
        s.reminded = 0;
        s
    }

    /// The clock after the turn passed to `next` without a move of `previous` being kept (a
    /// takeback): `previous` is charged the time since the turn started, as if he had moved
    /// without an increment, and `next`'s time runs from now.
    pub fn after_takeback(
        self,
        state: &ClockState,
        previous: usize,
        next: usize,
        now_ms: i64,
    ) -> ClockState {
        let mut s = self.after_move(state, previous, next, now_ms);
        if let (TimeControl::RealTime { increment_ms, .. }, Some(r)) =
            (self, s.remaining_ms.get_mut(previous))
        {
            *r = (*r - increment_ms).max(0);
        }
        s.deadline_ms = now_ms.saturating_add(self.available(&s, next));
        s.wake_ms = s.deadline_ms;
        s
    }

    /// Each seat's time as players read it at `now_ms`, with `to_move` on the move: the time
    /// left for the whole turn for him, the stored time for the others.
    pub fn left_at(self, state: &ClockState, to_move: usize, now_ms: i64) -> Vec<i64> {
        (0..state.remaining_ms.len())
            .map(|seat| {
                if seat == to_move {
                    (state.deadline_ms - now_ms).max(0)
                } else {
                    match self {
                        TimeControl::Correspondence { .. } => state.remaining_ms[seat],
                        _ => self.available(state, seat),
                    }
                }
            })
            .collect()
    }

    /// One line for a board's caption and text: `Clock 10+5 · White 9:58 · Black 10:00`,
    /// with `names` by seat (the mover's time runs, the others' is what they will have; in
    /// correspondence, the others' reserve).
    pub fn caption(
        self,
        state: &ClockState,
        to_move: usize,
        now_ms: i64,
        names: &[String],
    ) -> String {
        let left = self.left_at(state, to_move, now_ms);
        let mut parts = vec![format!("Clock {self}")];
        for (seat, ms) in left.iter().enumerate() {
            let name = names.get(seat).map_or("?", String::as_str);
            let time = match self {
                TimeControl::Correspondence { .. } if seat == to_move => {
                    format!("{} to move", duration_text(*ms))
                }
                TimeControl::Correspondence { .. } => {
                    format!("reserve {}", duration_text(*ms))
                }
                _ => clock_text(*ms),
            };
            let arrow = if seat == to_move { RUNNING_MARK } else { "" };
            parts.push(format!("{name} {time}{arrow}"));
        }
        parts.join(" · ")
    }
}

fn number(text: &str, shown: &str) -> Result<i64, TimeControlError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        if text.starts_with('-') {
            return Err(TimeControlError::Negative(shown.to_owned()));
        }
        return Err(TimeControlError::Unreadable(shown.to_owned()));
    }
    // More digits than any bound can hold: too long, without overflowing.
    if text.len() > 9 {
        return Err(TimeControlError::TooLong {
            text: shown.to_owned(),
            max: "30 days per move or 180 minutes each",
        });
    }
    text.parse()
        .map_err(|_| TimeControlError::Unreadable(shown.to_owned()))
}

impl fmt::Display for TimeControl {
    /// The canonical spelling, which [`TimeControl::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::None => f.write_str("none"),
            TimeControl::RealTime {
                base_ms,
                increment_ms,
            } => write!(f, "{}+{}", base_ms / MINUTE_MS, increment_ms / SECOND_MS),
            TimeControl::Correspondence {
                per_move_ms,
                reserve_ms: 0,
            } => write!(f, "{}d", per_move_ms / DAY_MS),
            TimeControl::Correspondence {
                per_move_ms,
                reserve_ms,
            } => write!(f, "{}d+{}d", per_move_ms / DAY_MS, reserve_ms / DAY_MS),
        }
    }
}

/// The mark after the clock that is running, in text: an emoji chat clients draw.
const RUNNING_MARK: &str = " ⏳";
/// The same mark in a board picture, whose embedded font has no emoji (a triangle pointing
/// at the running time).
const RUNNING_MARK_DRAWN: &str = " ◀";

/// A clock line (see [`TimeControl::caption`]) as a board picture's caption: the running
/// clock's mark in a glyph the picture's font can draw.
pub fn picture_caption(line: &str) -> String {
    line.replace(RUNNING_MARK, RUNNING_MARK_DRAWN)
}

/// `m:ss` (`h:mm:ss` from an hour), rounded down: a clock never shows time it does not have.
pub fn clock_text(ms: i64) -> String {
    let s = ms.max(0) / SECOND_MS;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// `2d 5h`, `5h 12m`, `12m`, `40s`: a long duration in its two largest units, rounded down.
pub fn duration_text(ms: i64) -> String {
    let ms = ms.max(0);
    let (d, h, m, s) = (
        ms / DAY_MS,
        ms % DAY_MS / HOUR_MS,
        ms % HOUR_MS / MINUTE_MS,
        ms % MINUTE_MS / SECOND_MS,
    );
    if d > 0 {
        format!("{d}d {h}h")
    } else if h > 0 {
        format!("{h}h {m}m")
    } else if m > 0 {
        format!("{m}m")
    } else {
        format!("{s}s")
    }
}

/// A game's clock as stored with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClockState {
    /// Per seat: real time, the time on his clock; correspondence, his reserve left.
    pub remaining_ms: Vec<i64>,
    /// When the current turn started (the previous move was stored; the game created).
    pub turn_started_ms: i64,
    /// The first millisecond at which the player to move has no time left.
    pub deadline_ms: i64,
    /// When the scheduler must look at the game next: the next reminder, else the deadline.
    /// The store indexes it (and forgets it once the game is over).
    pub wake_ms: i64,
    /// How many reminder points of the current turn are done (sent or throttled).
    pub reminded: u8,
    /// When the last reminder of this game went out, for the per-game throttle.
    pub last_reminder_ms: Option<i64>,
}

/// A stored clock that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stored clock {0:?} does not read")]
pub struct ClockTextError(pub String);

impl ClockState {
    /// Whether a move (or the scheduler) at `now_ms` finds the player to move out of time.
    pub fn is_flagged(&self, now_ms: i64) -> bool {
        now_ms >= self.deadline_ms
    }

    /// The stored text: `rem=600000,600000 turn=T deadline=D wake=W reminded=N last=L|-`.
    pub fn to_text(&self) -> String {
        let rem: Vec<String> = self.remaining_ms.iter().map(i64::to_string).collect();
        format!(
            "rem={} turn={} deadline={} wake={} reminded={} last={}",
            rem.join(","),
            self.turn_started_ms,
            self.deadline_ms,
            self.wake_ms,
            self.reminded,
            self.last_reminder_ms
                .map_or_else(|| "-".to_string(), |l| l.to_string())
        )
    }

    /// Reads [`ClockState::to_text`] back.
    ///
    /// # Errors
    /// When a field is missing, repeated, unknown or not a number.
    pub fn parse(text: &str) -> Result<ClockState, ClockTextError> {
        let bad = || ClockTextError(text.chars().take(80).collect());
        let mut fields = std::collections::HashMap::new();
        for word in text.split_whitespace() {
            let (k, v) = word.split_once('=').ok_or_else(bad)?;
            if fields.insert(k, v).is_some() {
                return Err(bad());
            }
        }
        if fields.len() != 6 {
            return Err(bad());
        }
        let int = |k: &str| -> Result<i64, ClockTextError> {
            fields.get(k).and_then(|v| v.parse().ok()).ok_or_else(bad)
        };
        let remaining_ms = fields
            .get("rem")
            .ok_or_else(bad)?
            .split(',')
            .map(|v| v.parse().map_err(|_| bad()))
            .collect::<Result<Vec<i64>, _>>()?;
        let last_reminder_ms = match *fields.get("last").ok_or_else(bad)? {
            "-" => None,
            v => Some(v.parse().map_err(|_| bad())?),
        };
        Ok(ClockState {
            remaining_ms,
            turn_started_ms: int("turn")?,
            deadline_ms: int("deadline")?,
            wake_ms: int("wake")?,
            reminded: u8::try_from(int("reminded")?).map_err(|_| bad())?,
            last_reminder_ms,
        })
    }
}

/// One point of a turn at which a correspondence player is reminded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReminderPoint {
    /// When this share of the turn's time is used, in per mille (500: at half time).
    Used(u16),
    /// When this much time is left.
    Left(i64),
}

/// When and how often correspondence players are reminded that it is their move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReminderPolicy {
    /// The points of a turn, in any order.
    pub points: Vec<ReminderPoint>,
    /// At most one reminder per game in this period (a throttled point is skipped).
    pub per_game_gap_ms: i64,
    /// At most this many reminders per player per UTC day, over all his games.
    pub daily_cap: u32,
}

impl Default for ReminderPolicy {
    /// At half time and with 12 hours left; one per game per 6 hours; 10 per player a day.
    fn default() -> Self {
        ReminderPolicy {
            points: vec![ReminderPoint::Used(500), ReminderPoint::Left(12 * HOUR_MS)],
            per_game_gap_ms: 6 * HOUR_MS,
            daily_cap: 10,
        }
    }
}

impl ReminderPolicy {
    /// Reads one configured point: `half`, `NN%` (share used), or `12h` / `30m` / `2d` left.
    ///
    /// # Errors
    /// A sentence saying what is accepted.
    pub fn parse_point(text: &str) -> Result<ReminderPoint, String> {
        let t = text.trim().to_ascii_lowercase();
        let what = || {
            format!(
                "reminder point {} does not read: use `half`, a share of the turn used such as `75%`, \
                 or the time left such as `12h`, `30m` or `1d`",
                crate::quote::quote(text)
            )
        };
        if t == "half" {
            return Ok(ReminderPoint::Used(500));
        }
        if let Some(p) = t.strip_suffix('%') {
            let p: u16 = p.parse().map_err(|_| what())?;
            if p == 0 || p >= 100 {
                return Err(what());
            }
            return Ok(ReminderPoint::Used(p * 10));
        }
        let unit = match t.chars().last() {
            Some('d') => DAY_MS,
            Some('h') => HOUR_MS,
            Some('m') => MINUTE_MS,
            _ => return Err(what()),
        };
        let n: i64 = t[..t.len() - 1].parse().map_err(|_| what())?;
        if n <= 0 || n > 60 * DAY_MS / unit {
            return Err(what());
        }
        Ok(ReminderPoint::Left(n * unit))
    }

    /// The reminder times of the current turn, ascending, without duplicates and only those
    /// after the turn started and before the deadline: real-time games get none.
    pub fn times(&self, control: TimeControl, state: &ClockState) -> Vec<i64> {
        if !matches!(control, TimeControl::Correspondence { .. }) {
            return Vec::new();
        }
        let (start, end) = (state.turn_started_ms, state.deadline_ms);
        let mut times: Vec<i64> = self
            .points
            .iter()
            .map(|p| match *p {
                ReminderPoint::Used(pm) => start + (end - start) / 1000 * i64::from(pm),
                ReminderPoint::Left(ms) => end - ms,
            })
            .filter(|&t| t > start && t < end)
            .collect();
        times.sort_unstable();
        times.dedup();
        times
    }

    /// The next time the scheduler must look at a game: its next reminder, else its deadline.
    pub fn wake(&self, control: TimeControl, state: &ClockState) -> i64 {
        self.times(control, state)
            .get(usize::from(state.reminded))
            .copied()
            .unwrap_or(state.deadline_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_round_trip() {
        for text in [
            "none", "10+5", "1+0", "180+60", "3d", "3d+7d", "1d+0d", "30d+60d",
        ] {
            let tc = TimeControl::parse(text).unwrap();
            let canonical = tc.to_string();
            assert_eq!(TimeControl::parse(&canonical), Ok(tc), "{text}");
        }
        assert_eq!(TimeControl::parse("1d+0d").unwrap().to_string(), "1d");
        assert_eq!(
            TimeControl::parse(" 10+5 "),
            Ok(TimeControl::RealTime {
                base_ms: 10 * MINUTE_MS,
                increment_ms: 5 * SECOND_MS
            })
        );
        assert_eq!(
            TimeControl::parse("3D+7d"),
            Ok(TimeControl::Correspondence {
                per_move_ms: 3 * DAY_MS,
                reserve_ms: 7 * DAY_MS
            })
        );
    }

    #[test]
    fn malformed_time_controls_say_what_is_wrong_and_what_is_accepted() {
        for (text, says) in [
            ("10+", "seconds added per move"),
            ("3d+", "reserve after the"),
            ("-3d", "cannot be negative"),
            ("10+-5", "cannot be negative"),
            ("999999d", "at most 30 days"),
            ("99999999999999999999d", "too long"),
            ("31d", "at most 30 days"),
            ("3d+61d", "60 days of reserve"),
            ("181+0", "180 minutes"),
            ("10+61", "60 seconds"),
            ("0+0", "no time"),
            ("0+5", "no time"),
            ("0d", "no time"),
            ("blitz", "is not a time control"),
            ("10", "is not a time control"),
            ("3d+7", "is not a time control"),
            ("1.5+0", "is not a time control"),
            ("+5", "is not a time control"),
            ("", "is not a time control"),
        ] {
            let e = TimeControl::parse(text).expect_err(text).to_string();
            assert!(e.contains(says), "{text}: {e}");
            assert!(e.contains("Accepted:"), "{text}: {e}");
        }
    }

    fn rt() -> TimeControl {
        TimeControl::parse("10+5").unwrap()
    }

    #[test]
    fn real_time_charges_the_mover_and_adds_the_increment() {
        let s = rt().start(2, 1_000).unwrap();
        assert_eq!(s.deadline_ms, 1_000 + 10 * MINUTE_MS);
        // White takes 30 s: 9:30 + 5 s.
        let s = rt().after_move(&s, 0, 1, 31_000);
        assert_eq!(s.remaining_ms[0], 10 * MINUTE_MS - 30_000 + 5_000);
        assert_eq!(s.turn_started_ms, 31_000);
        assert_eq!(s.deadline_ms, 31_000 + 10 * MINUTE_MS);
        // Black takes 1 ms short of his whole time: he keeps 1 ms and the increment.
        let s = rt().after_move(&s, 1, 0, 31_000 + 10 * MINUTE_MS - 1);
        assert_eq!(s.remaining_ms[1], 1 + 5_000);
        assert_eq!(
            rt().left_at(&s, 0, s.turn_started_ms + 1_000),
            vec![s.remaining_ms[0] - 1_000, 5_001]
        );
    }

    #[test]
    fn the_flag_falls_at_the_deadline_millisecond() {
        let s = rt().start(2, 0).unwrap();
        assert!(!s.is_flagged(s.deadline_ms - 1));
        assert!(s.is_flagged(s.deadline_ms), "0 ms left is no time left");
        assert!(s.is_flagged(s.deadline_ms + 1));
    }

    #[test]
    fn correspondence_draws_on_the_reserve_only_beyond_the_days_per_move() {
        let tc = TimeControl::parse("3d+7d").unwrap();
        let s = tc.start(2, 0).unwrap();
        assert_eq!(s.deadline_ms, 10 * DAY_MS);
        let s = tc.after_move(&s, 0, 1, 2 * DAY_MS);
        assert_eq!(
            s.remaining_ms[0],
            7 * DAY_MS,
            "2 of 3 days: reserve untouched"
        );
        let s = tc.after_move(&s, 1, 0, 2 * DAY_MS + 5 * DAY_MS);
        assert_eq!(s.remaining_ms[1], 5 * DAY_MS, "5 days: 2 from the reserve");
        assert_eq!(s.deadline_ms, 7 * DAY_MS + 3 * DAY_MS + 7 * DAY_MS);
        let caption = tc.caption(&s, 0, 8 * DAY_MS, &["ann".into(), "bob".into()]);
        assert_eq!(
            caption,
            "Clock 3d+7d · ann 9d 0h to move ⏳ · bob reserve 5d 0h"
        );
    }

    #[test]
    fn a_takeback_charges_the_time_without_an_increment() {
        let s = rt().start(2, 0).unwrap();
        let s = rt().after_takeback(&s, 0, 1, 60_000);
        assert_eq!(s.remaining_ms[0], 9 * MINUTE_MS);
        assert_eq!(s.deadline_ms, 60_000 + 10 * MINUTE_MS);
    }

    #[test]
    fn clock_state_text_round_trips_and_refuses_garbage() {
        let mut s = TimeControl::parse("3d").unwrap().start(2, 12_345).unwrap();
        assert_eq!(ClockState::parse(&s.to_text()), Ok(s.clone()));
        s.reminded = 2;
        s.last_reminder_ms = Some(99);
        assert_eq!(ClockState::parse(&s.to_text()), Ok(s.clone()));
        for bad in [
            "",
            "rem=1,2",
            "rem=1,x turn=0 deadline=0 wake=0 reminded=0 last=-",
            "rem=1 turn=0 deadline=0 wake=0 reminded=300 last=-",
            "rem=1 turn=0 turn=0 deadline=0 wake=0 reminded=0 last=-",
            "rem=1 turn=0 deadline=0 wake=0 reminded=0 last=- extra=1",
        ] {
            assert!(ClockState::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clock_texts() {
        assert_eq!(clock_text(10 * MINUTE_MS), "10:00");
        assert_eq!(clock_text(65_999), "1:05");
        assert_eq!(clock_text(2 * HOUR_MS + 61_000), "2:01:01");
        assert_eq!(clock_text(-5), "0:00");
        assert_eq!(duration_text(2 * DAY_MS + 5 * HOUR_MS + 1), "2d 5h");
        assert_eq!(duration_text(40_000), "40s");
    }

    #[test]
    fn reminders_fall_at_half_time_and_twelve_hours_left() {
        let tc = TimeControl::parse("3d").unwrap();
        let policy = ReminderPolicy::default();
        let s = tc.start(2, 0).unwrap();
        assert_eq!(
            policy.times(tc, &s),
            vec![36 * HOUR_MS, 60 * HOUR_MS],
            "half of 72 h, and 72 - 12 h"
        );
        assert_eq!(policy.wake(tc, &s), 36 * HOUR_MS);
        let later = ClockState {
            reminded: 2,
            ..s.clone()
        };
        assert_eq!(policy.wake(tc, &later), s.deadline_ms);
        // A day per move: 12 h left is half time too, reminded once.
        let one = TimeControl::parse("1d").unwrap();
        assert_eq!(
            policy.times(one, &one.start(2, 0).unwrap()),
            vec![12 * HOUR_MS]
        );
        // Real time: never reminded.
        assert!(policy.times(rt(), &rt().start(2, 0).unwrap()).is_empty());
    }

    #[test]
    fn reminder_points_read_or_say_what_is_accepted() {
        assert_eq!(
            ReminderPolicy::parse_point("half"),
            Ok(ReminderPoint::Used(500))
        );
        assert_eq!(
            ReminderPolicy::parse_point("75%"),
            Ok(ReminderPoint::Used(750))
        );
        assert_eq!(
            ReminderPolicy::parse_point("12h"),
            Ok(ReminderPoint::Left(12 * HOUR_MS))
        );
        for bad in ["", "0%", "100%", "12", "-3h", "0h", "soon"] {
            let e = ReminderPolicy::parse_point(bad).expect_err(bad);
            assert!(e.contains("`half`"), "{e}");
        }
    }
}
