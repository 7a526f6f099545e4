-- Clocks, deadlines and reminders (issue 16). Keep in step with ../sqlite.
--
-- The clock of a game with a time control, as the core writes it (bot_core::clocks::
-- ClockState::to_text: each seat's time in ms, when the current turn started, the deadline,
-- the reminders done in this turn); NULL for a game without a clock, as every game before.
ALTER TABLE games ADD COLUMN clock TEXT;
-- When the scheduler must next look at the game (its next reminder, else its deadline; Unix
-- ms). Set only while the game is active: the write that finishes a game clears it, so the
-- scheduler's query ("clock_wake <= now") never returns a finished game and the index holds
-- only live clocks.
ALTER TABLE games ADD COLUMN clock_wake BIGINT;
CREATE INDEX games_by_clock_wake ON games (clock_wake) WHERE clock_wake IS NOT NULL;

-- `remind on|off` (1/0, on unless the player switched it off), and the reminders counted
-- for the player on one day (days since the Unix epoch, UTC) against the daily cap.
ALTER TABLE players ADD COLUMN reminders BIGINT NOT NULL DEFAULT 1;
ALTER TABLE players ADD COLUMN reminder_day BIGINT NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN reminder_count BIGINT NOT NULL DEFAULT 0;
