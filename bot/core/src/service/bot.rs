//! Games against the bot: starting one, the bot's turns, and its answers to offers.
//!
//! **A turn.** When a move is stored and the bot is to move, the service wakes the bot for
//! that game ([`GameService::wake_bot`]). At most one turn per game is in flight: a wake for
//! a game already being thought about only asks the turn to look again when it ends. A turn
//! reads the game, queues one search on the [`SearchPool`] (FIFO across games), and when the
//! search ends appends the move through the same [`GameService::commit`] as a human move,
//! with the version it searched as the expected one: if the game changed meanwhile (a
//! resignation, a takeback, an abort, a draw) the store refuses and the result is dropped,
//! never applied; the turn then looks at the game again. Only a stored move is announced,
//! through the [`crate::outbox`].
//!
//! **Where the bot sits.** The bot is always the challenged player and its game's options
//! hold its level and the colour drawn for the challenger (see [`GameOptions::level`]), so
//! after a restart [`GameService::start_bot`] finds every active game where the bot is to
//! move from the store alone, before any platform has said who the bot is there.
//!
//! **Four players.** In a four-player form the person takes one seat (stored as
//! [`GameOptions::seat`]) and the bot every other one, each searched for on its own turn by
//! the same engine as in the two-player games (the engine plays the many-sided forms). A
//! turn that stores a move looks at the game again, so when the next seat to move is the
//! bot's too it moves again: each move stored and announced on its own, like a person's. At
//! level 5 a hopeless seat resigns alone, by the engine's resignation move (as a person's
//! four-player resignation is stored); the bot's other seats play on. When the person is
//! out (resigned or checkmated) nobody is left to play against, so the game ends at once,
//! won by the bot ([`bot_only_result`]): three engines playing on among themselves would
//! keep the pool busy for nobody. The bot declines draws there (it cannot agree for three
//! seats whose interests differ) and takebacks are not offered: the person's last move is
//! followed at once by three of the bot's, which a takeback of one move would not undo.

use std::{
    collections::HashMap,
    sync::{
        Mutex, OnceLock, Weak,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
};

use engine::{Level, search::MATE_BOUND};

use super::moves::Committed;
use super::*;
use crate::opponent::{self, BotConfig, Evaluators, SearchPool};

/// At level 5 the bot resigns after this many of its moves in a row whose search scores
/// below [`RESIGN_BELOW`] (or at once when it finds it is mated by force).
pub const RESIGN_AFTER: u8 = 3;
/// The score (centipawns, for the bot) below which a position counts as hopeless: about a
/// Rook and a half down with nothing in return.
pub const RESIGN_BELOW: i32 = -800;
/// A draw offer is accepted when a full-strength search scores the position within this many
/// centipawns of equal.
pub const DRAW_MARGIN: i32 = 30;
/// The most a draw judgement may search (it runs while the player waits for an answer).
const DRAW_NODES: u64 = 200_000;
const DRAW_TIME: std::time::Duration = std::time::Duration::from_millis(500);

tokio::task_local! {
    /// The games whose bot turn the running command asked for, woken once its replies are
    /// posted ([`GameService::waking_after`]).
    static WAKE_AFTER_POSTING: std::cell::RefCell<Vec<GameId>>;
}

/// Starts a turn task for a game (set by [`GameService::start_bot`], which has the service
/// behind an `Arc`).
struct Waker(Box<dyn Fn(GameId) + Send + Sync>);

impl std::fmt::Debug for Waker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Waker")
    }
}

/// The bot's side of the service.
#[derive(Debug)]
pub(super) struct Bot {
    config: BotConfig,
    pool: SearchPool,
    evaluators: Evaluators,
    /// Games with a turn in flight; `true`: look at the game again when it ends.
    busy: Mutex<HashMap<GameId, bool>>,
    /// Level 5: how many moves in a row each game's search found hopeless, per bot seat.
    hopeless: Mutex<HashMap<(GameId, u8), u8>>,
    waker: OnceLock<Waker>,
    /// Searches running on the pool now.
    searching: Arc<AtomicUsize>,
    /// Results dropped because their game changed during the search.
    dropped: AtomicU64,
    /// The bot's user and display name per platform (the console's is fixed).
    users: Mutex<HashMap<crate::model::Platform, (PlayerId, String)>>,
}

impl Bot {
    pub(super) fn new(config: BotConfig) -> Result<Bot, opponent::PoolError> {
        let pool = SearchPool::new(config.threads, config.nice)?;
        let console = PlayerId::new(crate::model::Platform::Console, opponent::CONSOLE_NAME);
        Ok(Bot {
            config,
            pool,
            evaluators: Evaluators::default(),
            busy: Mutex::default(),
            hopeless: Mutex::default(),
            waker: OnceLock::new(),
            searching: Arc::default(),
            dropped: AtomicU64::new(0),
            users: Mutex::new(HashMap::from([(
                crate::model::Platform::Console,
                (console, opponent::CONSOLE_NAME.to_string()),
            )])),
        })
    }
}

impl Bot {
    /// Counts a level-5 search's verdict for the bot's `seat`: mated by force, or hopeless
    /// [`RESIGN_AFTER`] times in a row. Counted per seat, so that in a four-player game one
    /// seat's hopeless moves are not made up for by another seat's good ones.
    fn gives_up(&self, id: GameId, seat: u8, score: i32) -> bool {
        if score < -MATE_BOUND {
            return true;
        }
        let Ok(mut hopeless) = self.hopeless.lock() else {
            return false;
        };
        let count = hopeless.entry((id, seat)).or_insert(0);
        *count = if score < RESIGN_BELOW { *count + 1 } else { 0 };
        *count >= RESIGN_AFTER
    }
}

/// Where the bot sits in a game it plays: every seat but the person's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct BotSeats {
    /// The bot's level, the same at every seat it holds.
    pub(super) level: Level,
    /// The person's seat.
    pub(super) person: u8,
    /// How many seats the game has.
    pub(super) seats: u8,
}

impl BotSeats {
    /// Whether the bot plays `seat`.
    pub(super) fn plays(&self, seat: u8) -> bool {
        seat < self.seats && seat != self.person
    }

    /// The bot's seat in a two-player game (the first of its seats in a larger one).
    pub(super) fn first(&self) -> u8 {
        u8::from(self.person == 0)
    }
}

/// The bot's seats and level in a game, if the bot plays in it: from the stored options
/// alone (see the module's doc).
pub(super) fn bot_seats(record: &GameRecord) -> Option<BotSeats> {
    let options = record.game_options().ok()?;
    let level = options.level?;
    let seats = u8::try_from(record.seats.len()).ok()?;
    // The bot is the challenged player; the challenger's colour (or seat, with more than
    // two) was settled before storing.
    let person = match (options.seat, options.colour) {
        (Some(seat), _) => seat,
        (None, ColourChoice::First) => 0,
        (None, ColourChoice::Second) => 1,
        (None, ColourChoice::Random) => return None,
    };
    (person < seats).then_some(BotSeats {
        level,
        person,
        seats,
    })
}

/// The bot's seat and level in a game, if the bot plays in it (its first seat in a game of
/// more; see [`bot_seats`]).
pub(super) fn bot_seat(record: &GameRecord) -> Option<(u8, Level)> {
    bot_seats(record).map(|b| (b.first(), b.level))
}

/// The end of a game against the bot of more than two seats once the person is out of
/// `after` (resigned, or checkmated by one of the bot's seats): won by the bot's first seat
/// still in, in seat order, since the bot is the one player left whatever seats it holds.
/// `None` while the person plays on, and in any other game.
pub(super) fn bot_only_result(
    record: &GameRecord,
    after: &Position,
    mated: &[Side],
) -> Option<GameStatus> {
    let b = bot_seats(record)?;
    if b.seats <= 2 || !after.is_out(Side(b.person)) {
        return None;
    }
    let winner = after
        .remaining()
        .into_iter()
        .map(|s| s.0)
        .filter(|&s| b.plays(s))
        .min()?;
    let reason = if mated.contains(&Side(b.person)) {
        EndReason::Checkmate
    } else {
        EndReason::Resignation
    };
    Some(GameStatus::Finished {
        result: GameResult::Win(winner),
        reason,
    })
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// The same service playing games against people with `config` (its own search
    /// threads). Call [`GameService::start_bot`] once the service is shared.
    ///
    /// # Errors
    /// When the search threads cannot start.
    pub fn with_bot(mut self, config: BotConfig) -> Result<Self, opponent::PoolError> {
        self.bot = Some(Bot::new(config)?);
        Ok(self)
    }

    /// Tells the service who the bot is on a platform (its own user there, once the adapter
    /// has logged in) and its display name, so `challenge @bot` and its seat work.
    pub fn set_bot_user(&self, id: PlayerId, name: &str) {
        if let Some(bot) = &self.bot
            && let Ok(mut users) = bot.users.lock()
        {
            users.insert(id.platform, (id, name.to_string()));
        }
    }

    /// The bot's user on a platform, if known.
    pub fn bot_user(&self, platform: crate::model::Platform) -> Option<PlayerId> {
        let bot = self.bot.as_ref()?;
        let users = bot.users.lock().ok()?;
        users.get(&platform).map(|(id, _)| id.clone())
    }

    /// Games whose turn is in flight (tests and the benchmark wait for zero).
    pub fn bot_turns_in_flight(&self) -> usize {
        self.bot
            .as_ref()
            .and_then(|b| b.busy.lock().ok().map(|b| b.len()))
            .unwrap_or(0)
    }

    /// Searches for the bot's moves running now (tests wait for one to be under way).
    pub fn bot_searches_running(&self) -> usize {
        self.bot
            .as_ref()
            .map_or(0, |b| b.searching.load(Ordering::SeqCst))
    }

    /// How many of the bot's results were dropped because the game changed while it
    /// searched (a resignation, a takeback, an abort).
    pub fn bot_results_dropped(&self) -> u64 {
        self.bot
            .as_ref()
            .map_or(0, |b| b.dropped.load(Ordering::SeqCst))
    }

    /// Asks the bot to look at game `id`: if it is the bot's move there, a search is queued
    /// (unless one for that game is in flight, which then looks again when it ends).
    pub(super) fn wake_bot(&self, id: GameId) {
        let Some(bot) = &self.bot else { return };
        // Inside a command the wake waits for its replies to be posted (issue 27).
        if WAKE_AFTER_POSTING
            .try_with(|w| w.borrow_mut().push(id))
            .is_ok()
        {
            return;
        }
        {
            let Ok(mut busy) = bot.busy.lock() else {
                return;
            };
            if let Some(again) = busy.get_mut(&id) {
                *again = true;
                return;
            }
            busy.insert(id, false);
        }
        match bot.waker.get() {
            Some(w) => (w.0)(id),
            None => {
                tracing::warn!(game = id.0, "the bot is not started; its move waits");
                if let Ok(mut busy) = bot.busy.lock() {
                    busy.remove(&id);
                }
            }
        }
    }

    /// Runs a command (`handled`: its handling and the posting of its replies) with every
    /// wake of the bot it asks for held until the end, so that what the bot then says is
    /// posted after the command's own replies: "Game N starts" before the bot's first move
    /// (issue 27).
    pub(super) async fn waking_after<T>(&self, handled: impl Future<Output = T>) -> T {
        let (out, woken) = WAKE_AFTER_POSTING
            .scope(std::cell::RefCell::new(Vec::new()), async {
                let out = handled.await;
                (out, WAKE_AFTER_POSTING.with(|w| w.take()))
            })
            .await;
        for id in woken {
            self.wake_bot(id);
        }
        out
    }

    /// Wakes the bot if it plays in this game.
    pub(super) fn wake_bot_for(&self, record: &GameRecord) {
        if record.status.is_active() && bot_seats(record).is_some() {
            self.wake_bot(record.id);
        }
    }

    /// `play VARIANT vs bot [level N]`: a game against the bot, started at once. `seat`:
    /// the four-player seat the player named by its colour, if any.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn play_bot(
        &self,
        actor: &Actor,
        place: &Place,
        variant: &str,
        level: Option<u8>,
        colour: ColourChoice,
        position: Option<u16>,
        seat: Option<u8>,
    ) -> Outcomes {
        if self.bot.is_none() {
            return user(
                "Playing the bot is switched off here; challenge a person with `challenge @someone VARIANT`.",
            );
        }
        let level = match Level::new(level.unwrap_or(opponent::DEFAULT_LEVEL)) {
            Ok(l) => l,
            Err(e) => return user(format!("The bot's {e}, e.g. `play {variant} level 3`.")),
        };
        let typed = self.typed_variant(actor, place, variant).await;
        let variant = typed.as_str();
        let kind = self.game_kind(variant)?;
        let sides = match &kind {
            GameKind::Board(v) => v.sides,
            GameKind::Glass(_) => 2,
        };
        if let Some(s) = seat
            && (sides <= 2 || s >= sides)
        {
            return user(format!(
                "{} is a two-player game: a seat colour like `{}` is for the four-player forms. Choose `white` or `black`.",
                kind.display_name(),
                Side(s).name(4).to_lowercase()
            ));
        }
        let v = match kind {
            GameKind::Glass(rules) => {
                if let Some(n) = position {
                    return user(format!(
                        "Through the Looking-Glass has no numbered start: each player chooses a back rank in secret. Drop `position {n}`."
                    ));
                }
                let (c, seats, bot_actor) = self
                    .bot_challenge(
                        actor,
                        place,
                        GameKind::Glass(rules).name(),
                        2,
                        level,
                        colour,
                        None,
                        None,
                    )
                    .await?;
                // The game is stored and the bot woken to choose its back rank there.
                return self
                    .glass_start(c, rules, &bot_actor, seats, self.clock.now_ms())
                    .await;
            }
            GameKind::Board(v) => v,
        };
        if let Some(n) = position
            && v.name != chess960::VARIANT
        {
            return user(format!(
                "{} has one start position; only Chess960 starts from a numbered one. Drop `position {n}`.",
                v.display_name
            ));
        }
        let stored = super::custom::stored_name(&v.name, variant);
        let (c, seats, bot_actor) = self
            .bot_challenge(
                actor, place, &stored, v.sides, level, colour, position, seat,
            )
            .await?;
        let options = super::games::challenge_options(&c)?;
        let now = self.clock.now_secs();
        let (start, c, numbered) = chess960::start(&v, c, options, &*self.chance)?;
        let game = self
            .open_game(&c, &bot_actor, seats, rules::fen::write(&start), now)
            .await?;
        let id = game.id;
        let title = if v.sides > 2 {
            format!(
                "{} against the bot at level {}, which plays every other seat",
                v.display_name,
                level.number()
            )
        } else {
            format!(
                "{} against the bot at level {}",
                numbered.unwrap_or_else(|| v.display_name.clone()),
                level.number()
            )
        };
        let replies = self.game_starts(game.clone(), title).await?;
        // Stored: the bot may think now; the wake waits until this reply is posted
        // (`waking_after`), so its move is announced after it.
        self.wake_bot_for(&game);
        tracing::debug!(
            game = id.0,
            level = level.number(),
            "a game against the bot"
        );
        Ok(replies)
    }

    /// The challenge of a game of `sides` seats against the bot, stored and addressed to the
    /// bot (it accepts at once): the colour drawn for the challenger, the seats, and the bot
    /// as the actor that accepts.
    ///
    /// With more than two seats the challenger sits at the seat he named by its colour
    /// (`seat`), else Red (first) unless he said `second` (`black`), which seats him Blue;
    /// `random` is not drawn there, since against the bot at every other seat the one thing
    /// a seat changes is when he moves. The bot holds every other seat.
    #[allow(clippy::too_many_arguments)]
    async fn bot_challenge(
        &self,
        actor: &Actor,
        place: &Place,
        variant: &str,
        sides: u8,
        level: Level,
        colour: ColourChoice,
        position: Option<u16>,
        seat: Option<u8>,
    ) -> Result<(crate::model::ChallengeRecord, Vec<PlayerId>, Actor), Failure> {
        let Some((bot_id, bot_name)) = self.bot.as_ref().and_then(|bot| {
            bot.users
                .lock()
                .ok()
                .and_then(|u| u.get(&place.platform).cloned())
        }) else {
            return user(
                "I am still connecting here and do not know my own name yet; try again in a minute.",
            );
        };
        if bot_id == actor.id {
            return user("I cannot play against myself.");
        }
        let (colour, seat) = if sides > 2 {
            let seat = seat.unwrap_or(u8::from(colour == ColourChoice::Second));
            (ColourChoice::First, Some(seat))
        } else {
            let colour = match colour {
                ColourChoice::Random if self.chance.below(2) == 0 => ColourChoice::First,
                ColourChoice::Random => ColourChoice::Second,
                chosen => chosen,
            };
            (colour, None)
        };
        // Games against the bot are unrated: see the README's ratings section.
        let options = GameOptions {
            colour,
            position,
            level: Some(level),
            rated: false,
            seat,
            ..GameOptions::default()
        };
        let now = self.clock.now_secs();
        self.store.upsert_player(&bot_id, &bot_name, now).await?;
        let c = self
            .store
            .create_challenge(NewChallenge {
                challenger: actor.id.clone(),
                challenged: Some(bot_id.clone()),
                more_invited: Vec::new(),
                variant: variant.to_string(),
                options: options.to_string(),
                place: place.clone(),
                created_at: now,
            })
            .await?;
        let seats = match seat {
            Some(person) => (0..sides.max(2))
                .map(|s| {
                    if s == person {
                        actor.id.clone()
                    } else {
                        bot_id.clone()
                    }
                })
                .collect(),
            None if colour == ColourChoice::First => vec![actor.id.clone(), bot_id.clone()],
            None => vec![bot_id.clone(), actor.id.clone()],
        };
        Ok((c, seats, Actor::new(bot_id, bot_name)))
    }

    /// A draw offered to the bot: accepted when a full-strength search scores the position
    /// within [`DRAW_MARGIN`] of equal, declined otherwise. Nothing is stored on a decline.
    pub(super) async fn bot_answers_draw(&self, g: &BoardGame, actor: &Actor) -> Outcomes {
        let Some(bot) = &self.bot else {
            return user("Playing the bot is switched off here.");
        };
        let id = g.record.id;
        let mut limits = bot.config.limits(Level::MAX);
        limits.nodes = limits.nodes.map(|n| n.min(DRAW_NODES));
        limits.time = limits.time.map(|t| t.min(DRAW_TIME));
        let evaluators = bot.evaluators.clone();
        let pos = g.position.clone();
        let result = bot
            .pool
            .run(move || opponent::search(&evaluators, pos, Level::MAX, &limits, 0))
            .await
            .map_err(|_| ServiceError::Search { game: id })?;
        let drawn = result.score.abs() <= DRAW_MARGIN;
        let bot_player =
            bot_seat(&g.record).and_then(|(s, _)| g.record.seats.get(usize::from(s)).cloned());
        if !drawn {
            let mut r = announce(
                &g.record,
                format!(
                    "Game {id}: {{0}} offers a draw; {{1}} declines: it does not judge the position drawn. Play on, or `resign`."
                ),
            )
            .mention(actor.id.clone());
            r.mentions.extend(bot_player);
            return Ok(vec![r]);
        }
        let loaded = Loaded::Board(BoardGame {
            record: g.record.clone(),
            position: g.position.clone(),
        });
        self.versioned(
            &loaded,
            &GameUpdate::finished(GameResult::Draw, EndReason::Agreement),
        )
        .await?;
        Ok(self
            .ending(
                &loaded,
                format!("Game {id}: {{0}} offers a draw and the bot accepts: drawn by agreement."),
                Some(&actor.id),
            )
            .await)
    }
}

impl<S: GameStore + 'static, C: Clock + 'static> GameService<S, C> {
    /// Starts the bot on a shared service: from now on its turns run, and every active game
    /// where it is to move (after a restart) is queued. Returns how many games were queued.
    /// Call it once, inside the tokio runtime; a service without [`GameService::with_bot`]
    /// queues nothing.
    ///
    /// # Errors
    /// When the store cannot list the active games.
    pub async fn start_bot(self: &Arc<Self>) -> Result<usize, ServiceError> {
        let Some(bot) = &self.bot else { return Ok(0) };
        let weak: Weak<Self> = Arc::downgrade(self);
        let runtime = tokio::runtime::Handle::current();
        let _ = bot.waker.set(Waker(Box::new(move |id| {
            if let Some(this) = weak.upgrade() {
                runtime.spawn(async move { this.bot_turns(id).await });
            }
        })));
        let mut queued = 0;
        for record in self
            .store
            .list_games(&GameFilter::default().active())
            .await?
        {
            let Some(bot_seats) = bot_seats(&record) else {
                continue;
            };
            let seat = bot_seats.first();
            self.warm_custom(&[record.variant.as_str()]).await;
            // Whose turn it is comes from the position (a game may start with Black to move).
            let to_move = match self.rebuild(record.clone()) {
                Ok(Loaded::Board(g)) if bot_seats.plays(g.position.turn().0) => seat,
                Ok(Loaded::Board(_)) => continue,
                Ok(Loaded::Glass(g)) => match g.game.phase() {
                    // Its back rank is still to choose.
                    rules::glass::Phase::Setup(chosen) if !chosen[usize::from(seat.min(1))] => seat,
                    rules::glass::Phase::Play => g.game.turn().0,
                    _ => continue,
                },
                Err(e) => {
                    tracing::error!(
                        game = record.id.0,
                        "a game against the bot does not replay: {e}"
                    );
                    continue;
                }
            };
            if to_move == seat {
                self.wake_bot(record.id);
                queued += 1;
            }
        }
        if queued > 0 {
            tracing::info!(queued, "resumed the bot's turns after a restart");
        }
        Ok(queued)
    }

    /// The bot's turns in one game, until it is not the bot's move there.
    async fn bot_turns(self: Arc<Self>, id: GameId) {
        let Some(bot) = &self.bot else { return };
        loop {
            let span = tracing::debug_span!("bot", game = id.0);
            let again = match self.bot_move(bot, id).instrument(span).await {
                Ok(again) => again,
                Err(Failure::User(why)) => {
                    tracing::debug!(game = id.0, "the bot does not move: {why}");
                    false
                }
                Err(Failure::Internal(error)) => {
                    let reference = self.references.next();
                    tracing::error!(
                        reference,
                        game = id.0,
                        "the bot's turn failed: {}",
                        failure::chain(&error)
                    );
                    false
                }
            };
            if again {
                continue;
            }
            let Ok(mut busy) = bot.busy.lock() else {
                return;
            };
            match busy.get_mut(&id) {
                Some(look_again) if *look_again => *look_again = false,
                _ => {
                    busy.remove(&id);
                    return;
                }
            }
        }
    }

    /// One turn: `Ok(true)` when the game changed (the bot moved or resigned, or its result
    /// was stale) and should be looked at again.
    async fn bot_move(&self, bot: &Bot, id: GameId) -> Result<bool, Failure> {
        let g = match self.load(id).await? {
            Loaded::Board(g) => g,
            Loaded::Glass(g) => return self.bot_glass_turn(bot, g).await,
        };
        if !g.record.status.is_active() {
            if let Ok(mut h) = bot.hopeless.lock() {
                h.retain(|(game, _), _| *game != id);
            }
            return Ok(false);
        }
        let Some(seats) = bot_seats(&g.record) else {
            return Ok(false);
        };
        // In a four-player game, whichever of the bot's seats is to move.
        let (seat, level) = (g.position.turn().0, seats.level);
        if !seats.plays(seat) {
            return Ok(false);
        }
        let limits = bot.config.limits(level);
        let seed = bot.config.seed
            ^ (id.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ g.record.moves.len() as u64;
        let evaluators = bot.evaluators.clone();
        let pos = g.position.clone();
        let searching = bot.searching.clone();
        let result = bot
            .pool
            .run(move || {
                searching.fetch_add(1, Ordering::SeqCst);
                let r = opponent::search(&evaluators, pos, level, &limits, seed);
                searching.fetch_sub(1, Ordering::SeqCst);
                r
            })
            .await
            .map_err(|_| ServiceError::Search { game: id })?;
        let Some(mv) = result.best else {
            return Ok(false);
        };
        tracing::debug!(
            nodes = result.nodes,
            depth = result.depth,
            score = result.score,
            ms = result.elapsed.as_millis() as u64,
            "the bot's search ended"
        );
        if level == Level::MAX && bot.gives_up(id, seat, result.score) {
            return self.bot_resigns(g, seat).await;
        }
        let san = notation::san(&g.position, mv);
        // The move and its announcement are stored together.
        let names = self.seat_names(&g.record).await;
        let say = |done: &Committed| {
            let mut reply = self.after_move(done, &san, seat);
            if let Some(b) = reply.board.as_mut() {
                b.players = names;
            }
            let mut replies = vec![reply];
            tell_each_player(&done.game.record, &done.out(), &mut replies);
            replies
        };
        let telling = Telling::unasked(&g.record.place);
        match self
            .commit(&g, mv, self.clock.now_ms(), &telling, say)
            .await
        {
            Ok(_) => Ok(true),
            Err(Failure::User(_)) => {
                tracing::debug!("the game changed while the bot thought: its move is dropped");
                bot.dropped.fetch_add(1, Ordering::SeqCst);
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    /// The bot's turn in a Looking-Glass game: its secret back rank, or an order chosen
    /// from what its side has been told ([`engine::glass::Knowledge`]: its view and facts,
    /// never the referee's state). The decision runs on the search pool like any search;
    /// the order is applied and stored like a person's, against the version decided on, and
    /// announced through the outbox (the bot's own private reports are dropped, the
    /// person's go to him privately).
    async fn bot_glass_turn(&self, bot: &Bot, g: GlassGame) -> Result<bool, Failure> {
        use rules::glass::Phase;
        let id = g.record.id;
        if !g.record.status.is_active() {
            return Ok(false);
        }
        let Some((seat, level)) = bot_seat(&g.record) else {
            return Ok(false);
        };
        let side = Side(seat);
        let seed = bot.config.seed
            ^ (id.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ g.record.moves.len() as u64;
        let variant = self.glass.clone();
        let mut game = g.game.clone();
        let report = match game.phase() {
            Phase::Setup(chosen) if !chosen[side.index()] => {
                // Drawn as a person's `setup random` is, from the service's chance (the
                // operating system's entropy in production), not from the search seed: the
                // seed mixes the game's number and move count, which the opponent knows.
                let rank = rules::glass::BackRank::from_number(self.chance.below(960))
                    .unwrap_or_else(|_| rules::glass::BackRank::orthodox());
                // The refusal would quote the secret row: not for the logs.
                game.choose(side, rank)
                    .map_err(|_| ServiceError::BotOrder {
                        game: id,
                        why: "its back rank was refused".into(),
                    })?
            }
            Phase::Play if game.turn() == side => {
                let knowledge = crate::opponent::glass_knowledge(&game, side).map_err(|e| {
                    ServiceError::BotOrder {
                        game: id,
                        why: e.to_string(),
                    }
                })?;
                // The answer to `ask`, the free query a person may make on his turn; the
                // player sees it only if it decides to ask.
                let answer = game.has_move_on(knowledge.army(), 1 - rules::glass::world_of(side));
                let searching = bot.searching.clone();
                let choice = bot
                    .pool
                    .run(move || {
                        searching.fetch_add(1, Ordering::SeqCst);
                        let mut player = engine::glass::GlassPlayer::new(variant, level, seed);
                        let knowledge = if player.wants_ask(&knowledge) {
                            knowledge.with_answer(answer)
                        } else {
                            knowledge
                        };
                        let r = player.choose(&knowledge);
                        searching.fetch_sub(1, Ordering::SeqCst);
                        r
                    })
                    .await
                    .map_err(|_| ServiceError::Search { game: id })?
                    .map_err(|e| ServiceError::BotOrder {
                        game: id,
                        why: e.to_string(),
                    })?;
                let mut applied = None;
                for text in &choice.ranked {
                    let mut trial = game.clone();
                    match trial.order(side, text) {
                        Ok(report) => {
                            applied = Some((trial, report));
                            break;
                        }
                        Err(_) => {
                            // Never expected (see the engine's tests): logged without the
                            // order (a secret), and the next order is tried.
                            tracing::warn!(game = id.0, "the bot's order was refused");
                        }
                    }
                }
                let Some((trial, report)) = applied else {
                    return Err(ServiceError::BotOrder {
                        game: id,
                        why: "every order refused".into(),
                    }
                    .into());
                };
                tracing::debug!(
                    risk = choice.risk,
                    score = choice.score,
                    samples = choice.samples,
                    "the bot's Looking-Glass order"
                );
                game = trial;
                report
            }
            _ => return Ok(false),
        };
        match self
            .glass_store(&g, &game, &report, self.clock.now_ms())
            .await?
        {
            Some(replies) => {
                self.announce_unasked(&g.record.place, replies).await;
                Ok(true)
            }
            None => {
                tracing::debug!("the game changed while the bot thought: its order is dropped");
                bot.dropped.fetch_add(1, Ordering::SeqCst);
                Ok(true)
            }
        }
    }

    async fn bot_resigns(&self, g: BoardGame, seat: u8) -> Result<bool, Failure> {
        let id = g.record.id;
        if crate::seating::is_multi(&g.position) {
            // One seat of several resigns, as a person's does: by the engine's resignation
            // move; the bot's other seats play on.
            let n = g.record.seats.len();
            let Some(mv) = g.position.resignation(Side(seat)) else {
                return Ok(false);
            };
            let names = self.seat_names(&g.record).await;
            let say = |done: &Committed| {
                let head = format!(
                    "Game {id}: {{0}} ({}) resigns and is out: it sees no way to hold that seat.",
                    Side(seat).name(n)
                );
                let mut reply = self.announce_after(done, head, seat);
                if let Some(b) = reply.board.as_mut() {
                    b.players = names;
                }
                let mut replies = vec![reply];
                tell_each_player(&done.game.record, &done.out(), &mut replies);
                replies
            };
            let telling = Telling::unasked(&g.record.place);
            return match self
                .commit(&g, mv, self.clock.now_ms(), &telling, say)
                .await
            {
                Ok(_) => Ok(true),
                Err(Failure::User(_)) => {
                    if let Some(bot) = &self.bot {
                        bot.dropped.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(true)
                }
                Err(e) => Err(e),
            };
        }
        let bot_player = g.record.seats.get(usize::from(seat)).cloned();
        let loaded = Loaded::Board(g);
        let update = GameUpdate::finished(GameResult::Win(1 - seat.min(1)), EndReason::Resignation);
        match self.versioned(&loaded, &update).await {
            Ok(()) => {}
            Err(Failure::User(_)) => {
                if let Some(bot) = &self.bot {
                    bot.dropped.fetch_add(1, Ordering::SeqCst);
                }
                return Ok(true);
            }
            Err(e) => return Err(e),
        }
        let text = format!(
            "Game {id}: {{0}} resigns: it sees no way to hold the game. {} wins.",
            Side(1 - seat.min(1)).name(2)
        );
        let replies = self.ending(&loaded, text, bot_player.as_ref()).await;
        self.announce_unasked(&loaded.record().place, replies).await;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Place, Platform};

    fn record(options: &str, seats: usize) -> GameRecord {
        GameRecord {
            id: GameId(1),
            variant: "dcb-balanced-4p".into(),
            options: options.into(),
            start_state: String::new(),
            moves: Vec::new(),
            seats: (0..seats)
                .map(|i| PlayerId::new(Platform::Console, format!("p{i}")))
                .collect(),
            place: Place::room(Platform::Console, "console"),
            status: GameStatus::Active,
            pending_offer: None,
            clock: None,
            version: 0,
            rating_family: None,
            created_at: 0,
            updated_at: 0,
        }
    }

    /// Issue 27: the start of a game against the bot is posted before the bot is woken, so
    /// its first move can never be announced before "Game N starts". The waker here records
    /// how many replies were in the outbox when it was called.
    #[tokio::test]
    async fn the_bot_is_woken_after_the_commands_replies_are_posted() {
        use std::{
            future::Future,
            sync::Arc,
            task::{Context, Poll},
        };
        let store = crate::store::memory::MemoryStore::new();
        let svc = Arc::new(
            GameService::new(
                store.clone(),
                crate::SystemClock,
                Arc::new(rules::Catalog::builtin()),
            )
            .with_bot(BotConfig::repeatable(1_000, 1))
            .unwrap(),
        );
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (log, s) = (seen.clone(), store.clone());
        let waker = Waker(Box::new(move |_| {
            let mut f = std::pin::pin!(s.backlog());
            let Poll::Ready(Ok(b)) = f
                .as_mut()
                .poll(&mut Context::from_waker(std::task::Waker::noop()))
            else {
                panic!("the memory store answers at once")
            };
            log.lock().unwrap().push(b.waiting);
        }));
        assert!(svc.bot.as_ref().unwrap().waker.set(waker).is_ok());
        let alice = crate::Actor::new(PlayerId::new(Platform::Console, "alice"), "alice");
        let place = Place::room(Platform::Console, "console");
        let r = svc
            .handle_text(&alice, &place, "play chess vs bot black level 1")
            .await;
        assert!(r[0].text.contains("starts"), "{r:?}");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 1, "woken once");
        assert!(seen[0] >= 1, "woken before the start was posted");
    }

    #[test]
    fn hopelessness_is_counted_per_seat() {
        let bot = Bot::new(BotConfig::repeatable(1_000, 1)).unwrap();
        let (game, bad, fine) = (GameId(1), RESIGN_BELOW - 1, 0);
        for _ in 1..RESIGN_AFTER {
            // Blue hopeless, Yellow fine, in turn: neither gives up yet.
            assert!(!bot.gives_up(game, 1, bad));
            assert!(!bot.gives_up(game, 2, fine));
        }
        assert!(
            bot.gives_up(game, 1, bad),
            "Blue's third hopeless move in a row"
        );
        assert!(!bot.gives_up(game, 2, bad), "Yellow's first");
        assert!(
            !bot.gives_up(GameId(2), 1, bad),
            "another game counts apart"
        );
        assert!(
            bot.gives_up(game, 3, -MATE_BOUND - 1),
            "mated by force: at once"
        );
    }

    #[test]
    fn the_bots_seats_come_from_the_stored_options_alone() {
        let four = bot_seats(&record("colour=first rated=no level=2 seat=1", 4)).unwrap();
        assert_eq!((four.person, four.level.number()), (1, 2));
        assert_eq!(
            (0..4).filter(|&s| four.plays(s)).collect::<Vec<_>>(),
            vec![0, 2, 3]
        );
        // Two players, as stored before seats: the colour says the person's seat.
        assert_eq!(
            bot_seat(&record("colour=first level=3", 2)).map(|(s, _)| s),
            Some(1)
        );
        assert_eq!(
            bot_seat(&record("colour=second level=3", 2)).map(|(s, _)| s),
            Some(0)
        );
        // Not a game against the bot, or a seat the game does not have.
        assert_eq!(bot_seats(&record("colour=first", 4)), None);
        assert_eq!(bot_seats(&record("colour=first level=1 seat=3", 2)), None);
    }

    #[test]
    fn the_person_out_of_a_four_player_game_ends_it_for_the_bot() {
        let catalog = rules::Catalog::builtin();
        let v = catalog.get("dcb-balanced-4p").unwrap();
        let start = Position::start(&v);
        let r = record("colour=first rated=no level=1 seat=0", 4);
        assert_eq!(
            bot_only_result(&r, &start, &[]),
            None,
            "the person plays on"
        );
        // The bot's own seat out: the person still has opponents.
        let mut blue_out = start.clone();
        blue_out.play_unchecked(start.resignation(Side(1)).unwrap());
        assert_eq!(bot_only_result(&r, &blue_out, &[]), None);
        let mut red_out = start.clone();
        red_out.play_unchecked(start.resignation(Side(0)).unwrap());
        let won = |winner, reason| {
            Some(GameStatus::Finished {
                result: GameResult::Win(winner),
                reason,
            })
        };
        assert_eq!(
            bot_only_result(&r, &red_out, &[]),
            won(1, EndReason::Resignation)
        );
        assert_eq!(
            bot_only_result(&r, &red_out, &[Side(0)]),
            won(1, EndReason::Checkmate)
        );
        // Seated Blue, out after Red: the bot's first seat still in is Yellow.
        let r = record("colour=first rated=no level=1 seat=1", 4);
        let mut both = blue_out.clone();
        both.play_unchecked(blue_out.resignation(Side(0)).unwrap());
        assert_eq!(
            bot_only_result(&r, &both, &[]),
            won(2, EndReason::Resignation)
        );
        // A game of people only never ends this way.
        let people = record("colour=first", 4);
        assert_eq!(bot_only_result(&people, &red_out, &[]), None);
    }
}
