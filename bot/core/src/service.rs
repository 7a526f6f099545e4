//! The game service: one command in, replies out. It loads, applies the rules, saves with
//! optimistic concurrency (a lost race is retried against the fresh game, never applied
//! twice) and returns replies with their audiences. Nothing is acknowledged before the store
//! has made it durable.

use std::sync::Arc;

use tracing::Instrument;

use rules::{Catalog, Outcome, Position, Side, Variant, glass::Glass, notation};

mod bot;
mod challenges;
pub(crate) mod chess960;
mod clocks;
mod failure;
mod games;
mod glass;
mod held;
mod listings;
mod moves;
mod offers;
mod ratings;

pub use bot::{DRAW_MARGIN, RESIGN_AFTER, RESIGN_BELOW};
pub use challenges::parse_mention;
pub use clocks::FireReport;
pub use failure::ServiceError;
pub(crate) use failure::chain as error_chain;
pub use games::CurrentGame;

use crate::{
    chance::{Chance, OsChance},
    clocks::TimeControl,
    command::{self, Answer, ColourChoice, Command},
    engine::{EngineKind, GameEngine, GameKind},
    export,
    memo::Memo,
    model::{
        ChallengeId, ChallengeRecord, ChallengeResolution, ChallengeStatus, EndReason, GameId,
        GameRecord, GameResult, GameStatus, GameUpdate, NewChallenge, NewGame, Offer, OfferKind,
        Place, PlayerId,
    },
    options::GameOptions,
    reply::{Action, BoardPicture, Reply},
    store::{ChallengeFilter, GameFilter, GameStore, StoreError},
    text,
};
use failure::{Failure, References, user};
use games::{BoardGame, GlassGame, Loaded};

/// The time source, so tests are deterministic. Milliseconds, because a real-time clock is
/// decided by them (a move in the same second as the flag may still be in time); the store's
/// record times (`created_at`, `updated_at`) stay in seconds ([`Clock::now_secs`]).
pub trait Clock: Send + Sync {
    /// Unix milliseconds now.
    fn now_ms(&self) -> i64;

    /// Unix seconds now (rounded down), for the store's record times.
    fn now_secs(&self) -> i64 {
        self.now_ms().div_euclid(1000)
    }
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

/// Who gave a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// Their id.
    pub id: PlayerId,
    /// Their display name now.
    pub name: String,
}

/// How many times a move is retried after losing a race before the player is told.
const RACE_RETRIES: usize = 3;

/// The platform-neutral game service.
#[derive(Debug)]
pub struct GameService<S, C = SystemClock> {
    store: S,
    clock: C,
    /// Random choices players must not be able to predict.
    chance: Arc<dyn Chance>,
    catalog: Arc<Catalog>,
    memo: Memo,
    /// The two worlds of Through the Looking-Glass (its own engine, not a catalogue variant).
    glass: Arc<Variant>,
    /// References for the faults players are told about.
    references: References,
    /// Where announcements go (the bot's moves, fired deadlines); `None`: nobody listens,
    /// and announcements are dropped with a log line.
    outbox: Option<crate::outbox::Outbox>,
    /// When correspondence players are reminded of their move.
    reminders: crate::clocks::ReminderPolicy,
    /// The bot as a player (its search threads), when it plays; see `service/bot.rs`.
    bot: Option<bot::Bot>,
}

type Outcomes = Result<Vec<Reply>, Failure>;

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// A service over a store, a clock and the variants it offers.
    pub fn new(store: S, clock: C, catalog: Arc<Catalog>) -> Self {
        GameService {
            store,
            clock,
            chance: Arc::new(OsChance),
            catalog,
            memo: Memo::default(),
            glass: rules::glass::variant(),
            references: References::new(OsChance.below(u32::MAX)),
            outbox: None,
            reminders: crate::clocks::ReminderPolicy::default(),
            bot: None,
        }
    }

    /// The same service reminding correspondence players by `policy` (the default: at half
    /// time and with 12 hours left).
    pub fn with_reminders(mut self, policy: crate::clocks::ReminderPolicy) -> Self {
        self.reminders = policy;
        self
    }

    /// The same service sending announcements (what it says without a command) to `outbox`;
    /// the adapter delivers the other half (see [`crate::outbox`]).
    pub fn with_outbox(mut self, outbox: crate::outbox::Outbox) -> Self {
        self.outbox = Some(outbox);
        self
    }

    /// Says `replies` in the game room `place` and privately, without a command. Durable
    /// state must be stored before: an announcement that cannot be delivered is only logged.
    pub fn announce_unasked(&self, place: &Place, replies: Vec<Reply>) {
        let delivered = self
            .outbox
            .as_ref()
            .is_some_and(|o| o.send(place.clone(), replies));
        if !delivered {
            tracing::debug!(room = %place.room, "announcement dropped: no adapter listens");
        }
    }

    /// The same service drawing its random choices from `chance` (tests use a seeded one).
    pub fn with_chance(mut self, chance: impl Chance + 'static) -> Self {
        self.chance = Arc::new(chance);
        self
    }

    /// The store (for adapters that list games, and for tests).
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The variants.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Handles a line of text: a command, or a bare move in a room where the actor plays.
    pub async fn handle_text(&self, actor: &Actor, place: &Place, text: &str) -> Vec<Reply> {
        let cmd = match command::parse(text) {
            Ok(cmd) => return self.handle(actor, place, cmd).await,
            Err(e) => e,
        };
        // A bare move? Only if the actor has a game here.
        let span = self.span("move", place);
        async {
            if let command::ParseError::Unknown { .. } = cmd
                && let Ok(games) = self.actor_games_here(actor, place).await
                && !games.is_empty()
            {
                // The only game is loaded already: play on it without a second lookup.
                let loaded = match games.as_slice() {
                    [one] => self.rebuild(one.clone()).ok(),
                    _ => None,
                };
                let result = match self.seen(actor).await {
                    Ok(()) => self.play(actor, place, None, text.trim(), loaded).await,
                    Err(f) => Err(f),
                };
                return answered_here(actor, place, self.respond(result).await);
            }
            if let command::ParseError::Unknown {
                suggestion: None, ..
            } = cmd
                && looks_like_a_move(text)
            {
                return vec![Reply::actor(
                    "You have no game in progress here. Start one with `challenge @someone VARIANT`, or see `games`.",
                )];
            }
            vec![Reply::actor(cmd.to_string())]
        }
        .instrument(span)
        .await
    }

    /// Handles one command.
    pub async fn handle(&self, actor: &Actor, place: &Place, cmd: Command) -> Vec<Reply> {
        // Commands built from a platform's typed options (Discord) skip the text parser and
        // its cap: their free-text fields are held to the same limit here.
        if let Some(long) = cmd.oversized() {
            return vec![Reply::actor(crate::quote::too_long(&long))];
        }
        let span = self.span(cmd.name(), place);
        async {
            let result = match self.seen(actor).await {
                Ok(()) => self.dispatch(actor, place, cmd).await,
                Err(f) => Err(f),
            };
            answered_here(actor, place, self.respond(result).await)
        }
        .instrument(span)
        .await
    }

    /// The span of one command: its number in this service, its name and platform, and the
    /// game once known (never its arguments, which may be a secret back rank or order).
    fn span(&self, name: &'static str, place: &Place) -> tracing::Span {
        tracing::debug_span!(
            "command",
            id = self.references.command(),
            name,
            platform = place.platform.as_str(),
            game = tracing::field::Empty,
        )
    }

    /// Records the actor's current name (a write only when it changed).
    async fn seen(&self, actor: &Actor) -> Result<(), Failure> {
        // A name is shown to other players and on pictures: no control characters, no line
        // breaks, not empty, not endless.
        let name = crate::quote::display_name(&actor.name)
            .or_else(|| crate::quote::display_name(&actor.id.user))
            .unwrap_or_else(|| "player".into());
        if !self.memo.knows_name(&actor.id, &name) {
            let record = self
                .store
                .upsert_player(&actor.id, &name, self.clock.now_secs())
                .await?;
            self.memo.keep_name(&actor.id, &record.display_name);
        }
        Ok(())
    }

    /// Turns a command's outcome into replies: names on boards, failures as private text.
    async fn respond(&self, result: Outcomes) -> Vec<Reply> {
        match result {
            Ok(mut replies) => {
                self.name_players(&mut replies).await;
                replies
            }
            Err(Failure::User(text)) => {
                tracing::debug!("refused");
                vec![Reply::actor(text)]
            }
            Err(Failure::Internal(error)) => {
                let reference = self.references.next();
                tracing::error!(reference, "{}", failure::chain(&error));
                vec![Reply::actor(format!(
                    "Sorry, something went wrong on my side (reference {reference}). Nothing was changed; please try again."
                ))]
            }
        }
    }

    async fn dispatch(&self, actor: &Actor, place: &Place, cmd: Command) -> Outcomes {
        match cmd {
            Command::Challenge {
                opponents,
                variant,
                colour,
                position,
                clock,
                rated,
            } => {
                let asked = GameOptions {
                    colour,
                    position,
                    clock,
                    rated,
                    level: None,
                    seat: None,
                };
                self.challenge(actor, place, opponents, &variant, asked)
                    .await
            }
            Command::Remind(on) => self.remind_setting(actor, on).await,
            Command::PlayBot {
                variant,
                level,
                colour,
                position,
                seat,
            } => {
                self.play_bot(actor, place, &variant, level, colour, position, seat)
                    .await
            }
            Command::Accept(id) => self.accept(actor, place, id).await,
            Command::Decline(id) => {
                self.close_challenge(actor, place, id, ChallengeResolution::Declined)
                    .await
            }
            Command::Cancel(id) => {
                self.close_challenge(actor, place, id, ChallengeResolution::Cancelled)
                    .await
            }
            Command::Move { game, text } => self.play(actor, place, game, &text, None).await,
            Command::Board(game) => match self.pick_game(actor, place, game, false).await? {
                Loaded::Glass(g) => self.glass_board(actor, &g),
                Loaded::Board(g) => Ok(vec![self.board_reply(&g, "", g.record.seat_of(&actor.id))]),
            },
            Command::Setup { game, choice } => {
                match self.pick_game(actor, place, game, true).await? {
                    Loaded::Board(g) => user(format!(
                        "Game {} has its start position already; `setup` is for Through the Looking-Glass.",
                        g.record.id
                    )),
                    Loaded::Glass(g) => {
                        if let Some(refusal) =
                            glass::secret_said_in_public(&g.record, place, "back rank and orders")
                        {
                            return refusal;
                        }
                        self.glass_setup(actor, g, &choice).await
                    }
                }
            }
            Command::Ask(game) => match self.pick_game(actor, place, game, true).await? {
                Loaded::Board(_) => user(
                    "`ask` is for Through the Looking-Glass; in this game, `moves` lists every legal move.",
                ),
                Loaded::Glass(g) => self.glass_ask(actor, &g),
            },
            Command::Moves { game, from } => self.list_moves(actor, place, game, from).await,
            Command::Resign(game) => self.resign(actor, place, game).await,
            Command::Draw(answer, game) => {
                self.offer(actor, place, game, OfferKind::Draw, answer)
                    .await
            }
            Command::Takeback(answer, game) => {
                self.offer(actor, place, game, OfferKind::Takeback, answer)
                    .await
            }
            Command::Abort(game) => self.abort(actor, place, game).await,
            Command::Games => self.games(actor, place).await,
            Command::Profile(who) => self.profile(actor, place, who).await,
            Command::Leaderboard(variant) => self.leaderboard(actor, place, &variant).await,
            Command::History(game) => match self.pick_game(actor, place, game, false).await? {
                Loaded::Glass(g) => self.glass_history(&g),
                Loaded::Board(g) => {
                    let text = export::history(g.position.variant(), &g.record)
                        .map_err(|source| g.replay_error(source))?;
                    Ok(vec![Reply::actor(text)])
                }
            },
            Command::Export(game) => match self.pick_game(actor, place, game, false).await? {
                Loaded::Glass(g) => self.glass_history(&g),
                Loaded::Board(g) => {
                    let names = self.seat_names(&g.record).await;
                    let text = export::pgn(g.position.variant(), &g.record, &names)
                        .map_err(|source| g.replay_error(source))?;
                    Ok(vec![Reply::actor(text)])
                }
            },
            Command::Variants => Ok(vec![Reply::actor(self.variants_text())]),
            Command::Rules(v) => Ok(vec![Reply::actor(match self.game_kind(&v)? {
                GameKind::Glass(rules) => glass::rules_text(rules),
                GameKind::Board(v) => text::rules(&v),
            })]),
            Command::Piece { variant, piece } => {
                let (v, is_glass) = match self.game_kind(&variant)? {
                    GameKind::Glass(_) => (self.glass.clone(), true),
                    GameKind::Board(v) => (v, false),
                };
                Ok(vec![Reply::actor(
                    text::piece(&v, &piece, is_glass).map_err(|e| Failure::User(e.to_string()))?,
                )])
            }
            Command::Help(topic) => Ok(vec![Reply::actor(text::help(topic.as_deref()))]),
        }
    }
}

/// A boxed future, for the object-safe [`Games`].
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The game service as the adapters hold it: without its type parameters (poise commands and
/// Matrix handlers are not generic), and wrappable by tests. Implemented for every
/// [`GameService`]; one trait for every platform, so no adapter rebuilds games itself.
pub trait Games: Send + Sync + 'static {
    /// Handles one command.
    fn handle<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        cmd: Command,
    ) -> BoxFuture<'a, Vec<Reply>>;

    /// Handles one line of text (a command or a bare move).
    fn handle_text<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        text: &'a str,
    ) -> BoxFuture<'a, Vec<Reply>>;

    /// The actor's board game here (or the one named), where it is his turn first; see
    /// [`GameService::current_game`].
    fn current_game<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<GameId>,
    ) -> BoxFuture<'a, Option<CurrentGame>>;

    /// The active game a command of the actor here would act on: the one named, or his only
    /// one here (in his direct chat, his Looking-Glass game elsewhere). For an adapter that
    /// asks for confirmation before acting (Discord's resign button) and must name the game.
    /// The default knows only [`Games::current_game`]'s board games.
    fn game_to_act_on<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<GameId>,
    ) -> BoxFuture<'a, Option<GameId>> {
        Box::pin(async move { self.current_game(actor, place, game).await.map(|g| g.id) })
    }

    /// Holds a private reply the adapter could not deliver, for its player to be shown at
    /// his next command ([`GameService::hold_undelivered`]). No default: a wrapper that
    /// forgot it would lose what a player was owed without a word.
    fn hold_undelivered<'a>(&'a self, reply: &'a Reply) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Takes the private replies held for a player, oldest first
    /// ([`GameService::take_undelivered`]).
    fn take_undelivered<'a>(&'a self, player: &'a PlayerId) -> BoxFuture<'a, Vec<Reply>>;

    /// Tells the service who the bot is on a platform (the adapter learns it at login), so
    /// players can `challenge` the bot's own user. The default ignores it (test doubles).
    fn set_bot_user(&self, _id: PlayerId, _name: &str) {}
}

impl<S: GameStore + 'static, C: Clock + 'static> Games for GameService<S, C> {
    fn hold_undelivered<'a>(&'a self, reply: &'a Reply) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(GameService::hold_undelivered(self, reply))
    }

    fn take_undelivered<'a>(&'a self, player: &'a PlayerId) -> BoxFuture<'a, Vec<Reply>> {
        Box::pin(GameService::take_undelivered(self, player))
    }

    fn handle<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        cmd: Command,
    ) -> BoxFuture<'a, Vec<Reply>> {
        Box::pin(GameService::handle(self, actor, place, cmd))
    }

    fn handle_text<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        text: &'a str,
    ) -> BoxFuture<'a, Vec<Reply>> {
        Box::pin(GameService::handle_text(self, actor, place, text))
    }

    fn current_game<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<GameId>,
    ) -> BoxFuture<'a, Option<CurrentGame>> {
        Box::pin(GameService::current_game(self, actor, place, game))
    }

    fn game_to_act_on<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<GameId>,
    ) -> BoxFuture<'a, Option<GameId>> {
        Box::pin(async move {
            let g = self.pick_game(actor, place, game, true).await.ok()?;
            let r = g.record();
            r.status.is_active().then_some(r.id)
        })
    }

    fn set_bot_user(&self, id: PlayerId, name: &str) {
        GameService::set_bot_user(self, id, name);
    }
}

/// A game's announcement: to the game's own room, wherever the command came from (a player
/// may give a command for a game elsewhere, or his Looking-Glass orders in his direct chat).
fn announce(record: &GameRecord, text: impl Into<String>) -> Reply {
    Reply::room(text).in_place(record.place.clone())
}

/// Makes sure the actor hears back where he typed: when every reply goes elsewhere (the
/// game's room, another player's private chat), he gets the public part here too, so a
/// command typed in a direct chat is never met with silence.
fn answered_here(actor: &Actor, place: &Place, mut replies: Vec<Reply>) -> Vec<Reply> {
    use crate::reply::Audience;
    let reaches = |r: &Reply| match &r.audience {
        Audience::Actor => true,
        Audience::Private(p) => *p == actor.id,
        Audience::Room => r.place.as_ref().is_none_or(|p| p.same_room(place)),
    };
    if replies.is_empty() || replies.iter().any(reaches) {
        return replies;
    }
    if let Some(public) = replies.iter().find(|r| r.audience == Audience::Room) {
        let mut here = public.clone();
        here.audience = Audience::Actor;
        here.place = None;
        here.board = None;
        here.actions.clear();
        here.text = format!("Done; the game's room is told: {}", here.text);
        replies.push(here);
    }
    replies
}

/// Short text with a digit or castling letters: probably a move, not a command.
fn looks_like_a_move(text: &str) -> bool {
    let t = text.trim();
    !t.contains(' ')
        && t.len() <= 12
        && (t.chars().any(|c| c.is_ascii_digit()) || t.to_uppercase().starts_with("O-O"))
}
