//! Clocks in the service: starting and charging them with the moves, the flag (on a move that
//! comes too late, and by the scheduler), reminders, and `remind on|off`.
//!
//! # One scheduler, several processes
//!
//! [`GameService::fire_due`] asks the store which games want attention and acts on each with
//! the same versioned write every command makes: the flag is the write of the finished
//! status, a reminder the write that counts it. Two processes over one database therefore
//! both read the same due games, but for each only one write matches the version they read;
//! the other gets a conflict and leaves the game alone. The write is the claim, so a crash
//! after it leaves a game finished (never flagged twice) and a crash before it leaves the
//! deadline due for the next pass. What is said after the write can be lost with a crash;
//! what happened never is.

use super::{glass, *};
use crate::time_control::{ClockState, DAY_MS, TimeControl};

/// What one pass of the scheduler did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FireReport {
    /// Games that ended on time.
    pub flagged: usize,
    /// Reminders sent.
    pub reminded: usize,
    /// Reminder points passed without a message: the game's throttle, the player's `remind
    /// off`, his daily cap, or messages held for him (he was unreachable, and has not been
    /// back since).
    pub skipped_reminders: usize,
    /// Games another writer (a move, another process's scheduler) changed first: left to it.
    pub lost_races: usize,
}

/// How many due games one pass looks at; the next pass takes the rest.
const FIRE_BATCH: u32 = 500;

/// What became of one due game.
enum Fired {
    Flagged(Vec<Reply>),
    Reminded(Option<Box<Reply>>),
    Nothing,
    LostRace,
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// A new game's clock (`None` without a time control): the first player's time runs from
    /// `now_ms`.
    pub(super) fn start_clock(
        &self,
        control: TimeControl,
        seats: usize,
        now_ms: i64,
    ) -> Option<ClockState> {
        let mut s = control.start(seats, now_ms)?;
        s.wake_ms = self.reminders.wake(control, &s);
        Some(s)
    }

    /// A game's time control and clock, if it has both.
    pub(super) fn clock_of(record: &GameRecord) -> Option<(TimeControl, &ClockState)> {
        let state = record.clock.as_ref()?;
        let control = record.game_options().ok()?.clock;
        control.is_some().then_some((control, state))
    }

    /// The clock after seat `mover` moved at `now_ms` and `next` is to move.
    pub(super) fn clock_after(
        &self,
        record: &GameRecord,
        mover: usize,
        next: usize,
        now_ms: i64,
    ) -> Option<ClockState> {
        self.next_clock(record, |control, state| {
            control.after_move(state, mover, next, now_ms)
        })
    }

    /// The clock after a takeback at `now_ms` passed the turn from `previous` to `next`.
    pub(super) fn clock_after_takeback(
        &self,
        record: &GameRecord,
        previous: usize,
        next: usize,
        now_ms: i64,
    ) -> Option<ClockState> {
        self.next_clock(record, |control, state| {
            control.after_takeback(state, previous, next, now_ms)
        })
    }

    /// The game's clock moved on by `step`, with its next wake (deadline or reminder) set
    /// by this service's reminder policy; `None` for a game without a clock.
    fn next_clock(
        &self,
        record: &GameRecord,
        step: impl FnOnce(TimeControl, &ClockState) -> ClockState,
    ) -> Option<ClockState> {
        let (control, state) = Self::clock_of(record)?;
        let mut s = step(control, state);
        s.wake_ms = self.reminders.wake(control, &s);
        Some(s)
    }

    /// The clock line of a board at this moment (`Clock 10+5 · White 9:58 ⏳ · Black 10:00`),
    /// by colour, so a picture is the same whoever's names are known.
    pub(super) fn clock_caption(&self, g: &BoardGame) -> Option<String> {
        self.clock_line(&g.record, g.position.turn().index())
    }

    /// [`GameService::clock_caption`] of a record whose player to move is `to_move`.
    pub(super) fn clock_line(&self, record: &GameRecord, to_move: usize) -> Option<String> {
        let (control, state) = Self::clock_of(record)?;
        let n = record.seats.len();
        let names: Vec<String> = (0..n).map(|i| Side(i as u8).name(n).to_string()).collect();
        // A finished game's clock stands where it stopped: at the flag for a game lost on
        // time, else at the last move.
        let now = match &record.status {
            GameStatus::Active => self.clock.now_ms(),
            GameStatus::Finished {
                reason: EndReason::Timeout,
                ..
            } => state.deadline_ms,
            _ => state.turn_started_ms,
        };
        Some(control.caption(state, to_move, now, &names))
    }

    /// If the player to move in `g` has no time left at `now_ms`, ends the game on time and
    /// returns what to say; `None` when he is in time (or the game has no clock).
    pub(super) async fn flag_if_due(
        &self,
        g: &BoardGame,
        now_ms: i64,
    ) -> Result<Option<Vec<Reply>>, Failure> {
        match Self::clock_of(&g.record) {
            Some((_, state)) if g.record.status.is_active() && state.is_flagged(now_ms) => {}
            _ => return Ok(None),
        }
        match self.flag(g, now_ms).await? {
            Some(replies) => Ok(Some(replies)),
            None => user("The game changed just now; look at the board and try again."),
        }
    }

    /// Ends `g` on time for the player to move: a loss, or a draw when his opponent has
    /// nothing but royal pieces left and so could never mate. Written with the version it
    /// was read at; `None` when another write came first (nothing written).
    async fn flag(&self, g: &BoardGame, now_ms: i64) -> Result<Option<Vec<Reply>>, Failure> {
        let n = g.record.seats.len();
        let loser = g.position.turn().index();
        // With more than two players the one out of time leaves and the others play on; when
        // one opponent is left, he wins on time as in a two-player game.
        let others: Vec<usize> = g
            .position
            .remaining()
            .into_iter()
            .map(Side::index)
            .filter(|s| *s != loser)
            .collect();
        let winner = match others.as_slice() {
            [one] => *one,
            [] => (loser + 1) % n,
            _ => return self.flag_out(g, loser, now_ms).await,
        };
        let draw = only_royal_pieces(&g.position, Side(winner as u8));
        let result = if draw {
            GameResult::Draw
        } else {
            GameResult::Win(winner as u8)
        };
        let Some(record) = self.write_flag(&g.record, loser, result, now_ms).await? else {
            return Ok(None);
        };
        tracing::info!(game = record.id.0, draw, "flag fell");
        let done = BoardGame {
            record,
            position: g.position.clone(),
        };
        let mut replies = self.flag_replies(&done, loser, winner, draw);
        if let Some(room) = replies.first_mut() {
            self.note_ratings(done.record.id, room).await;
        }
        Ok(Some(replies))
    }

    /// Writes the end of a game on time for seat `loser`, at the version it was read (a
    /// real-time clock shows his time at zero): the game as written, or `None` when another
    /// write came first (nothing written).
    async fn write_flag(
        &self,
        record: &GameRecord,
        loser: usize,
        result: GameResult,
        now_ms: i64,
    ) -> Result<Option<GameRecord>, Failure> {
        let mut clock = record.clock.clone();
        if let (Some((TimeControl::RealTime { .. }, _)), Some(c)) =
            (Self::clock_of(record), clock.as_mut())
            && let Some(r) = c.remaining_ms.get_mut(loser)
        {
            *r = 0;
        }
        let update = GameUpdate {
            status: GameStatus::Finished {
                result,
                reason: EndReason::Timeout,
            },
            pending_offer: None,
            clock,
            tell: Default::default(),
        };
        match self
            .store
            .update_game(record.id, record.version, &update, now_ms.div_euclid(1000))
            .await
        {
            Ok(version) => {
                let mut record = record.clone();
                record.status = update.status;
                record.clock = update.clock;
                record.version = version;
                Ok(Some(record))
            }
            Err(StoreError::Conflict { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// What the loser and the winner of a game lost on time are told privately (one message
    /// when one person held both seats).
    fn time_notes(record: &GameRecord, loser: usize, winner: usize, draw: bool) -> Vec<Reply> {
        let id = record.id;
        let (to_loser, to_winner) = if draw {
            (
                format!(
                    "Game {id}: your time ran out; your opponent could not mate, so it is a draw."
                ),
                format!(
                    "Game {id}: your opponent's time ran out; with only your King left it is a draw."
                ),
            )
        } else {
            (
                format!("Game {id}: your time ran out; you lose on time."),
                format!("Game {id}: your opponent's time ran out; you win on time."),
            )
        };
        let mut notes =
            vec![Reply::private(record.seats[loser].clone(), to_loser).about(record.id)];
        if record.seats[winner] != record.seats[loser] {
            notes.push(Reply::private(record.seats[winner].clone(), to_winner).about(record.id));
        }
        notes
    }

    /// A flag in a game of more than two players with two or more opponents left: the player
    /// whose time ran out is out, as if he had resigned (the engine's resignation move,
    /// stored like one, so replay, export and takeback need nothing new), and the others play
    /// on, the next one's time running from now. `None` when another write came first.
    async fn flag_out(
        &self,
        g: &BoardGame,
        loser: usize,
        now_ms: i64,
    ) -> Result<Option<Vec<Reply>>, Failure> {
        let n = g.record.seats.len();
        let side = Side(loser as u8);
        let Some(mv) = g.position.resignation(side) else {
            return Ok(None);
        };
        // Said by the caller: a command's answer, or the scheduler's announcement.
        let silent = Telling::unasked(&g.record.place);
        let done = match self.commit(g, mv, now_ms, &silent, |_| Vec::new()).await {
            Ok((done, _)) => done,
            Err(Failure::User(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        tracing::info!(game = g.record.id.0, seat = loser, "flag fell: out on time");
        let head = format!(
            "Game {}: {{0}} ({}) ran out of time and is out.",
            done.game.record.id,
            side.name(n)
        );
        let room = self
            .announce_after(&done, head, loser as u8)
            .in_place(g.record.place.clone());
        let mut replies = vec![room];
        replies.push(
            Reply::private(
                g.record.seats[loser].clone(),
                format!(
                    "Game {}: your time ran out; you are out of the game.",
                    g.record.id
                ),
            )
            .about(g.record.id),
        );
        Ok(Some(replies))
    }

    /// The room's announcement of a flag (with the board) and a private word to each player.
    fn flag_replies(&self, g: &BoardGame, loser: usize, winner: usize, draw: bool) -> Vec<Reply> {
        let n = g.record.seats.len();
        let id = g.record.id;
        let (lc, wc) = (Side(loser as u8).name(n), Side(winner as u8).name(n));
        let text = if draw {
            format!(
                "Game {id}: {{0}} ({lc}) ran out of time, but {{1}} ({wc}) has only the King \
                 left and could never mate: draw."
            )
        } else {
            format!("Game {id}: {{0}} ({lc}) ran out of time. Time — {{1}} ({wc}) wins.")
        };
        let mut text = text;
        let page = self.link(id, &mut text);
        let mut room = self
            .board_reply(g, &text, Some(winner as u8))
            .in_place(g.record.place.clone());
        room.page = page;
        room.mentions = vec![
            g.record.seats[loser].clone(),
            g.record.seats[winner].clone(),
        ];
        let room = room.notify_all(&g.record.seats);
        let mut replies = vec![room];
        replies.extend(Self::time_notes(&g.record, loser, winner, draw));
        replies
    }

    /// Ends a Looking-Glass game on time for the player whose clock ran out (there is no
    /// mate to be unable to give in this game, so it is always a loss), with the reveal:
    /// the game is over, so both worlds are shown to everyone. `None` when another write came
    /// first (nothing written).
    pub(super) async fn glass_flag(
        &self,
        g: &GlassGame,
        now_ms: i64,
    ) -> Result<Option<Vec<Reply>>, Failure> {
        let loser = glass::clock_runner(&g.game);
        let winner = 1 - loser;
        let result = GameResult::Win(winner as u8);
        let Some(record) = self.write_flag(&g.record, loser, result, now_ms).await? else {
            return Ok(None);
        };
        tracing::info!(game = record.id.0, "flag fell (Looking-Glass)");
        let id = record.id;
        let (lc, wc) = (Side(loser as u8).name(2), Side(winner as u8).name(2));
        let mut room = Reply::room(format!(
            "Game {id}: {{0}} ({lc}) ran out of time. Time — {{1}} ({wc}) wins."
        ))
        .in_place(record.place.clone());
        room.mentions = vec![record.seats[loser].clone(), record.seats[winner].clone()];
        let mut room = room.notify_all(&record.seats);
        self.note_ratings(id, &mut room).await;
        let mut replies = vec![room];
        replies.extend(Self::time_notes(&record, loser, winner, false));
        replies.push(self.glass_reveal(&record, &g.game));
        Ok(Some(replies))
    }

    /// One pass of the scheduler at `now_ms`: every game whose deadline has come ends on
    /// time, every due reminder goes out (or is skipped by its throttle), each announced
    /// through the outbox. Safe to run in several processes at once (see the module
    /// documentation): each game is acted on by exactly one of them.
    ///
    /// # Errors
    /// When the store fails; what was done before is done and announced.
    pub async fn fire_due(&self, now_ms: i64) -> Result<FireReport, ServiceError> {
        let mut report = FireReport::default();
        let mut due = self.store.due_games(now_ms, FIRE_BATCH).await?;
        // Processes reading the same list start at different places in it, so that they
        // mostly work on different games instead of racing for each one in turn.
        if due.len() > 1 {
            let start = self.chance.below(due.len() as u32) as usize;
            due.rotate_left(start);
        }
        for id in due {
            let record = match self.store.get_game(id).await {
                Ok(r) => r,
                Err(StoreError::NotFound(_)) => continue,
                Err(e) => return Err(e.into()),
            };
            let place = record.place.clone();
            match self.fire_one(record, now_ms).await {
                Ok(Fired::Flagged(replies)) => {
                    report.flagged += 1;
                    let replies = self.named(replies).await;
                    self.announce_unasked(&place, replies).await;
                }
                Ok(Fired::Reminded(Some(reply))) => {
                    report.reminded += 1;
                    let replies = self.named(vec![*reply]).await;
                    self.announce_unasked(&place, replies).await;
                }
                Ok(Fired::Reminded(None)) => report.skipped_reminders += 1,
                Ok(Fired::Nothing) => {}
                Ok(Fired::LostRace) => report.lost_races += 1,
                Err(Failure::User(_)) => report.lost_races += 1,
                Err(Failure::Internal(e)) => {
                    // One game that does not replay must not stop the others' deadlines.
                    let reference = self.references.next();
                    tracing::error!(reference, game = id.0, "{}", failure::chain(&e));
                }
            }
        }
        Ok(report)
    }

    /// [`GameService::fire_due`] at the service's own clock: what the scheduler runs.
    ///
    /// # Errors
    /// When the store fails.
    pub async fn fire_due_now(&self) -> Result<FireReport, ServiceError> {
        self.fire_due(self.clock.now_ms()).await
    }

    /// Player names on the boards of unasked replies, as a command's replies get them.
    async fn named(&self, mut replies: Vec<Reply>) -> Vec<Reply> {
        self.name_players(&mut replies).await;
        replies
    }

    async fn fire_one(&self, record: GameRecord, now_ms: i64) -> Result<Fired, Failure> {
        if !record.status.is_active() {
            return Ok(Fired::Nothing);
        }
        self.warm_custom(&[record.variant.as_str()]).await;
        let loaded = self.rebuild(record)?;
        let record = loaded.record();
        let Some((control, state)) = Self::clock_of(record) else {
            return Ok(Fired::Nothing);
        };
        if state.is_flagged(now_ms) {
            let flagged = match &loaded {
                Loaded::Board(g) => self.flag(g, now_ms).await?,
                Loaded::Glass(g) => self.glass_flag(g, now_ms).await?,
            };
            return Ok(match flagged {
                Some(replies) => Fired::Flagged(replies),
                None => Fired::LostRace,
            });
        }
        let times = self.reminders.times(control, state);
        let Some(&due) = times.get(usize::from(state.reminded)) else {
            // Woken early (the policy changed since the wake was stored): look again at the
            // right time.
            let mut s = state.clone();
            s.wake_ms = self.reminders.wake(control, &s);
            return Ok(match self.write_clock(record, s, now_ms).await? {
                true => Fired::Nothing,
                false => Fired::LostRace,
            });
        };
        if due > now_ms {
            return Ok(Fired::Nothing);
        }
        // Claim the point first: whatever happens next, it is never sent twice.
        let throttled = state
            .last_reminder_ms
            .is_some_and(|last| now_ms - last < self.reminders.per_game_gap_ms);
        let mut s = state.clone();
        s.reminded = s.reminded.saturating_add(1);
        if !throttled {
            s.last_reminder_ms = Some(now_ms);
        }
        s.wake_ms = self.reminders.wake(control, &s);
        if !self.write_clock(record, s, now_ms).await? {
            return Ok(Fired::LostRace);
        }
        if throttled {
            return Ok(Fired::Reminded(None));
        }
        let to_move = match &loaded {
            Loaded::Board(g) => g.position.turn().index(),
            Loaded::Glass(g) => glass::clock_runner(&g.game),
        };
        let player = record.seats[to_move].clone();
        let wants = match self.store.get_player(&player).await {
            Ok(p) => p.reminders,
            Err(StoreError::NotFound(_)) => true,
            Err(e) => return Err(e.into()),
        };
        // Messages held for him mean his platform would not deliver the last one (direct
        // messages closed, he left the server or the direct room): he is unreachable until
        // his next command takes them. Another reminder would only be refused and held in
        // turn, point after point, game after game, and use up his daily cap for nothing; and
        // what is held already tells him what he missed. His next command (any) takes them,
        // and the next point reminds him again.
        if !wants
            || self.store.has_held(&player).await?
            || !self
                .store
                .count_reminder(&player, now_ms.div_euclid(DAY_MS), self.reminders.daily_cap)
                .await
                .or_else(|e| match e {
                    StoreError::NotFound(_) => Ok(true),
                    e => Err(e),
                })?
        {
            return Ok(Fired::Reminded(None));
        }
        let left = crate::time_control::duration_text(state.deadline_ms - now_ms);
        let text = format!(
            "Game {}: it is your move, and {left} are left (until the deadline, then the game is lost on time). `remind off` stops these reminders.",
            record.id
        );
        // His own view: in Looking-Glass his world only.
        let mut reply = match &loaded {
            Loaded::Board(g) => self.board_reply(g, &text, Some(to_move as u8)),
            Loaded::Glass(g) => {
                self.glass_private_board(record, &g.game, Side(to_move as u8), &text)
            }
        };
        reply.audience = crate::reply::Audience::Private(player);
        reply.place = None;
        Ok(Fired::Reminded(Some(Box::new(reply))))
    }

    /// Writes a new clock on an active game at its version: `false` when another write came
    /// first.
    async fn write_clock(
        &self,
        record: &GameRecord,
        clock: ClockState,
        now_ms: i64,
    ) -> Result<bool, Failure> {
        let update = GameUpdate {
            status: GameStatus::Active,
            pending_offer: record.pending_offer,
            clock: Some(clock),
            tell: Default::default(),
        };
        match self
            .store
            .update_game(record.id, record.version, &update, now_ms.div_euclid(1000))
            .await
        {
            Ok(_) => Ok(true),
            Err(StoreError::Conflict { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// `remind on|off`.
    pub(super) async fn remind_setting(&self, actor: &Actor, on: bool) -> Outcomes {
        self.store
            .set_reminders(&actor.id, on, self.clock.now_secs())
            .await?;
        Ok(vec![Reply::actor(if on {
            "Reminders on: when a correspondence game waits for your move, I remind you privately (at half time and when the deadline nears)."
        } else {
            "Reminders off: I will not remind you of your correspondence moves. `remind on` brings them back."
        })])
    }
}

/// Whether `side` has nothing but royal pieces: the conservative reading of "cannot possibly
/// mate" that works in every variant (the rules have a dead-position test only for FIDE's
/// pieces, and for the whole board). A side with any other piece might still mate, so its
/// opponent's flag is a loss.
fn only_royal_pieces(pos: &Position, side: Side) -> bool {
    let v = pos.variant();
    v.geometry.cells().all(|cell| match pos.piece_at(cell) {
        Some(p) if p.side == side => v.piece(p.kind).royal,
        _ => true,
    })
}
