//! The game service: one command in, replies out. It loads, applies the rules, saves with
//! optimistic concurrency (a lost race is retried against the fresh game, never applied
//! twice) and returns replies with their audiences. Nothing is acknowledged before the store
//! has made it durable.

use std::sync::Arc;

use tracing::Instrument;

use rules::{Catalog, Outcome, Position, Side, Variant, glass::Glass, notation};

mod analyse;
mod memo;
pub use analyse::evaluation_graph;
mod bot;
mod challenges;
pub(crate) mod chess960;
mod clocks;
mod custom;
mod failure;
mod games;
mod glass;
mod held;
mod listings;
mod moves;
mod offers;
mod ratings;
mod replay;

pub use bot::{DRAW_MARGIN, RESIGN_AFTER, RESIGN_BELOW};
pub use challenges::parse_mention;
pub use clocks::FireReport;
pub use failure::ServiceError;
pub(crate) use failure::chain as error_chain;
pub use games::CurrentGame;
pub use replay::MAX_REPLAY_PLIES;

use crate::{
    chance::{Chance, OsChance},
    command::{self, Answer, ColourChoice, Command},
    export,
    model::{
        ChallengeId, ChallengeRecord, ChallengeResolution, ChallengeStatus, EndReason, GameId,
        GameRecord, GameResult, GameStatus, GameUpdate, NewChallenge, NewGame, Offer, OfferKind,
        Place, PlayerId,
    },
    options::GameOptions,
    outbox::{
        Attempt, Claim, CommandKeys, Entry, Envelope, Handle, Key, Keys, Origin, Settled, Tell,
    },
    picture,
    reply::{Action, BoardPicture, Reply},
    rules_engine::{EngineKind, GameEngine, GameKind},
    service::memo::Memo,
    store::{ChallengeFilter, GameFilter, GameStore, StoreError},
    text,
    time_control::TimeControl,
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
    /// The keys of this command's replies, when the platform may deliver the command again
    /// after a crash (a Matrix event, read again from the sync): see [`CommandKeys`]. `None`
    /// draws them from the process.
    pub command: Option<CommandKeys>,
    /// How the platform lets the bot answer this command itself for a while (a Discord
    /// interaction's token): kept with the command's replies from the start, so that a
    /// process started after a crash can still answer the interaction, and see whether its
    /// answer was shown already.
    pub answer: Option<Handle>,
    /// Whether he may manage the room the command is given in (Discord: Administrator,
    /// Manage Server or Manage Channels; Matrix: a power level of 50 or more, a moderator's):
    /// he may then remove any player's variant there.
    pub admin: bool,
    /// The server the command is given in, where the platform groups rooms into servers
    /// (a Discord guild's id; `None` in a DM and on Matrix, whose rooms stand alone). Players'
    /// variants belong to it ([`crate::custom::Scope::search`]).
    pub server: Option<String>,
}

impl Actor {
    /// A player giving a command the platform delivers once.
    pub fn new(id: PlayerId, name: impl Into<String>) -> Actor {
        Actor {
            id,
            name: name.into(),
            command: None,
            answer: None,
            admin: false,
            server: None,
        }
    }
}

/// The outbox as one service uses it ([`crate::outbox`]).
#[derive(Debug)]
struct Mail {
    /// This process's keys.
    keys: Keys,
    /// This process's name among those sharing the store (`[bot] instance`).
    owner: String,
    /// How long a claim of this process holds (a command's replies while its adapter sends
    /// them; a sender's batch).
    lease_ms: i64,
    /// Wakes the platforms' senders when something unasked was posted.
    signal: Arc<tokio::sync::Notify>,
}

/// How replies are posted: to which room, answering what, and whether this process sends
/// them at once (a command's answer) or leaves them to the platform's sender.
#[derive(Debug, Clone)]
pub(crate) struct Telling {
    place: Place,
    origin: Origin,
    claimed: bool,
    /// The command's own keys, if it has them ([`Actor::command`]).
    keys: Option<CommandKeys>,
}

impl Telling {
    /// A command's answer: its room, its actor, sent at once by the adapter.
    pub(crate) fn answer(actor: &Actor, place: &Place) -> Telling {
        Telling {
            place: place.clone(),
            origin: Origin::Command {
                actor: actor.id.clone(),
                handle: actor.answer.clone(),
            },
            claimed: true,
            keys: actor.command.clone(),
        }
    }

    /// Said unasked in a game's room, by the platform's sender.
    pub(crate) fn unasked(place: &Place) -> Telling {
        Telling {
            place: place.clone(),
            origin: Origin::Unasked,
            claimed: false,
            keys: None,
        }
    }
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
    /// The outbox as this process uses it: keys, its claims, the senders' wake-up.
    mail: Mail,
    /// When correspondence players are reminded of their move.
    reminders: crate::time_control::ReminderPolicy,
    /// The bot as a player (its search threads), when it plays; see `service/bot.rs`.
    bot: Option<bot::Bot>,
    /// Post-game analyses (their threads), when they are on; see `service/analyse.rs`.
    analyst: Option<analyse::Analyst>,
    /// Where commands are counted and timed (`/metrics`), when someone reads them.
    metrics: Option<Arc<crate::metrics::Metrics>>,
    /// The web pages' public address (`[web] public_url`): new games and results link there.
    public_url: Option<String>,
    /// Players' own variants, when this bot keeps them ([`GameService::with_custom_variants`]).
    custom: Option<Arc<dyn crate::custom::CustomLibrary>>,
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
            mail: Mail {
                keys: Keys::new(
                    (u64::from(OsChance.below(u32::MAX)) << 32)
                        | u64::from(OsChance.below(u32::MAX)),
                ),
                owner: "main".into(),
                lease_ms: 120_000,
                signal: Arc::new(tokio::sync::Notify::new()),
            },
            reminders: crate::time_control::ReminderPolicy::default(),
            bot: None,
            custom: None,
            analyst: None,
            metrics: None,
            public_url: None,
        }
    }

    /// The same service linking each new game's and each result's announcement to the game's
    /// web page under `public_url` (`https://chess.example.org` gives
    /// `https://chess.example.org/game/42`).
    pub fn with_public_url(mut self, public_url: impl Into<String>) -> Self {
        let url: String = public_url.into();
        self.public_url = Some(url.trim_end_matches('/').to_string());
        self
    }

    /// Appends the game's page link to an announcement, when the pages are public.
    pub(crate) fn link(&self, game: GameId, text: &mut String) -> Option<String> {
        let url = self.public_url.as_ref()?;
        let page = format!("{url}/game/{}", game.0);
        text.push_str(&format!(" Watch or replay it: {page}"));
        Some(page)
    }

    /// The same service counting its commands and their latency by kind in `metrics`.
    pub fn with_metrics(mut self, metrics: Arc<crate::metrics::Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Counts one command of kind `kind`, begun at `began`.
    fn count(&self, kind: &'static str, began: std::time::Instant) {
        if let Some(m) = &self.metrics {
            m.command(kind, began.elapsed());
        }
    }

    /// The same service reminding correspondence players by `policy` (the default: at half
    /// time and with 12 hours left).
    pub fn with_reminders(mut self, policy: crate::time_control::ReminderPolicy) -> Self {
        self.reminders = policy;
        self
    }

    /// The same service named `owner` among the processes that share its store (`[bot]
    /// instance`): its claims on the outbox are its own, and it takes them back when it
    /// starts ([`GameService::take_back_claims`]). Two live processes must not share a name.
    pub fn with_instance(mut self, owner: impl Into<String>) -> Self {
        self.mail.owner = owner.into();
        self
    }

    /// The same service holding its outbox claims for `lease` (default 2 minutes): how long
    /// another process waits before it sends what this one claimed and did not report.
    pub fn with_lease(mut self, lease: std::time::Duration) -> Self {
        self.mail.lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
        self
    }

    /// Takes back what this process (by its instance name) had claimed when it stopped, so
    /// that its sender sends it now rather than when the claims run out. Call at start,
    /// before any command. Returns how many entries were released.
    pub async fn take_back_claims(&self) -> Result<u64, StoreError> {
        let n = self
            .store
            .release_claims(&self.mail.owner, self.clock.now_ms())
            .await?;
        if n > 0 {
            tracing::info!(
                entries = n,
                "outbox: took back what was held before a restart"
            );
            self.mail.signal.notify_waiters();
        }
        Ok(n)
    }

    /// Whether the command with these keys was run before as far as its first write (a
    /// move with its announcement, or its answer): then its replies are in the outbox, to be
    /// sent by whoever holds them, and running it again would act twice. A command the
    /// platform delivers again after a crash ([`Actor::command`]) is run again only if not.
    pub async fn answered(&self, command: &CommandKeys) -> Result<bool, StoreError> {
        Ok(self.store.mail(&command.first()).await?.is_some())
    }

    /// An outbox entry and where it stands ([`GameStore::mail`]).
    pub async fn mail(&self, key: &Key) -> Result<Option<crate::outbox::Mail>, StoreError> {
        self.store.mail(key).await
    }

    /// A claim of this process from now.
    fn claim(&self) -> Claim {
        Claim {
            owner: self.mail.owner.clone(),
            until_ms: self.clock.now_ms().saturating_add(self.mail.lease_ms),
        }
    }

    /// Addresses replies as `telling` says: each gets a key (its own if it has one) and
    /// becomes an envelope, to post with a store write.
    pub(crate) fn tell(&self, telling: &Telling, replies: &mut [Reply]) -> Tell {
        let envelopes = replies
            .iter_mut()
            .enumerate()
            .map(|(i, r)| {
                let key = r
                    .key
                    .get_or_insert_with(|| match &telling.keys {
                        Some(keys) => keys.next(),
                        None => self.mail.keys.next(),
                    })
                    .clone();
                let mut reply = r.clone();
                // Its own room when it is the envelope's says nothing more: not stored twice.
                if reply.place.as_ref() == Some(&telling.place) {
                    reply.place = None;
                }
                Envelope {
                    key,
                    place: telling.place.clone(),
                    origin: telling.origin.clone(),
                    reply,
                    part: u16::try_from(i).unwrap_or(u16::MAX),
                }
            })
            .collect();
        Tell {
            envelopes,
            claim: telling.claimed.then(|| self.claim()),
            posted_ms: self.clock.now_ms(),
        }
    }

    /// Posts the replies that have no key yet, as `telling` says, in one transaction. If the
    /// store fails they are still returned, without keys (told once, not kept: the state
    /// they report is durable already, and silence would be worse).
    pub(crate) async fn post(&self, telling: &Telling, replies: &mut [Reply]) {
        let fresh: Vec<usize> = (0..replies.len())
            .filter(|&i| replies[i].key.is_none())
            .collect();
        if fresh.is_empty() {
            return;
        }
        let mut batch: Vec<Reply> = fresh.iter().map(|&i| replies[i].clone()).collect();
        let tell = self.tell(telling, &mut batch);
        match self
            .store
            .post(&tell.envelopes, tell.claim.as_ref(), self.clock.now_ms())
            .await
        {
            Ok(()) => {
                for (&i, r) in fresh.iter().zip(batch) {
                    replies[i].key = r.key;
                }
                if !telling.claimed {
                    self.mail.signal.notify_waiters();
                }
            }
            Err(e) => {
                let reference = self.references.next();
                tracing::error!(reference, "outbox: replies not kept: {e}");
            }
        }
    }

    /// Completes the room replies posted with the write that finished game `game`, and each
    /// player's private copy of them, with the rating line (read after the write, which rated
    /// it): what changed is posted again under
    /// the same keys, before anything is sent. Should the process die in between, the
    /// envelopes go out as first posted, without the line.
    pub(crate) async fn amend_with_ratings(
        &self,
        telling: &Telling,
        told: &mut [Envelope],
        game: GameId,
    ) {
        let mut changed = Vec::new();
        let mut amended: Vec<(String, String)> = Vec::new();
        for e in told.iter_mut() {
            if e.reply.audience != crate::reply::Audience::Room {
                continue;
            }
            let before = e.reply.text.clone();
            self.note_ratings(game, &mut e.reply).await;
            if e.reply.text != before {
                amended.push((before, e.reply.text.clone()));
                changed.push(e.clone());
            }
        }
        // Each player's private copy of the ending (see `tell_each_player`) reads the same.
        for e in told.iter_mut() {
            if let crate::reply::Audience::Private(_) = e.reply.audience
                && let Some((_, after)) = amended.iter().find(|(before, _)| *before == e.reply.text)
            {
                e.reply.text = after.clone();
                changed.push(e.clone());
            }
        }
        if changed.is_empty() {
            return;
        }
        let claim = telling.claimed.then(|| self.claim());
        if let Err(e) = self
            .store
            .post(&changed, claim.as_ref(), self.clock.now_ms())
            .await
        {
            tracing::warn!("outbox: a completed reply not kept (sent as first posted): {e}");
        }
    }

    /// Says `replies` in the game room `place` and privately, without a command: posted for
    /// the platform's sender. Durable state must be stored before.
    pub async fn announce_unasked(&self, place: &Place, mut replies: Vec<Reply>) {
        self.post(&Telling::unasked(place), &mut replies).await;
    }

    /// Claims what is due for `platform`'s sender (see [`crate::outbox`]).
    pub async fn claim_mail(
        &self,
        platform: crate::model::Platform,
        limit: u32,
    ) -> Result<Vec<Entry>, StoreError> {
        let now = self.clock.now_ms();
        self.store
            .claim_due(platform, &self.claim(), now, limit)
            .await
    }

    /// Records how an attempt to deliver the entry `key` ended. A store failure is logged:
    /// the entry stays claimed and is tried again when the claim runs out.
    pub async fn settle_mail(&self, key: &Key, attempt: Attempt) {
        let now = self.clock.now_ms();
        let settled = match attempt {
            Attempt::Delivered => Settled::Delivered,
            Attempt::DeliveredUnderKey => Settled::DeliveredUnderKey,
            Attempt::Later { wait, handle } => Settled::Later {
                not_before_ms: now
                    .saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX)),
                handle,
            },
            Attempt::Failed(why) => Settled::GaveUp(why),
        };
        if let Err(e) = self.store.settle(key, &settled, now).await {
            tracing::warn!(%key, "outbox: an attempt's end not recorded: {e}");
        }
        if matches!(settled, Settled::Later { .. }) {
            self.mail.signal.notify_waiters();
        }
    }

    /// What wakes the platforms' senders.
    pub fn mail_signal(&self) -> Arc<tokio::sync::Notify> {
        self.mail.signal.clone()
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
    /// The replies are in the outbox, claimed by this process, when they are returned: the
    /// adapter reports each one by its key ([`GameService::settle_mail`]).
    pub async fn handle_text(&self, actor: &Actor, place: &Place, text: &str) -> Vec<Reply> {
        let began = std::time::Instant::now();
        let replies = self
            .waking_after(async {
                let mut replies = self.handle_text_unposted(actor, place, text).await;
                self.post(&Telling::answer(actor, place), &mut replies)
                    .await;
                replies
            })
            .await;
        if self.metrics.is_some() {
            // A line that is no command is a bare move (or a mistake, counted with them).
            let kind = command::parse(text).map_or("move", |c| c.name());
            self.count(kind, began);
        }
        replies
    }

    async fn handle_text_unposted(&self, actor: &Actor, place: &Place, text: &str) -> Vec<Reply> {
        let cmd = match command::parse(text) {
            Ok(cmd) => return self.handle_unposted(actor, place, cmd).await,
            Err(e) => e,
        };
        // A bare move? Only if the actor has a game here.
        let span = self.span("move", place);
        async {
            if let command::ParseError::Unknown { .. } = cmd
                && let Ok(games) = self.actor_games_here(actor, place).await
                && !games.is_empty()
            {
                let names: Vec<&str> = games.iter().map(|g| g.variant.as_str()).collect();
        self.warm_custom(&names).await;
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

    /// Handles one command; its replies are posted as [`GameService::handle_text`]'s are.
    pub async fn handle(&self, actor: &Actor, place: &Place, cmd: Command) -> Vec<Reply> {
        let (began, kind) = (std::time::Instant::now(), cmd.name());
        let replies = self
            .waking_after(async {
                let mut replies = self.handle_unposted(actor, place, cmd).await;
                self.post(&Telling::answer(actor, place), &mut replies)
                    .await;
                replies
            })
            .await;
        self.count(kind, began);
        replies
    }

    async fn handle_unposted(&self, actor: &Actor, place: &Place, cmd: Command) -> Vec<Reply> {
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
                vec![Reply::actor(failure::apology(&error, &reference))]
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
            Command::Analyse(game) => self.analyse(actor, place, game).await,
            Command::Replay(game) => self.replay(actor, place, game).await,
            Command::Variants => Ok(vec![Reply::actor(self.variants_text())]),
            Command::Rules(v) => Ok(vec![match self.typed_kind_drawn(actor, place, &v).await? {
                (_, GameKind::Glass(rules)) => Reply::actor(glass::rules_text(rules)),
                (drawn, GameKind::Board(v)) => {
                    Reply::actor(text::rules(&v)).with_board(picture::start_picture(&drawn, &v))
                }
            }]),
            Command::Piece { variant, piece } => {
                let (drawn, kind) = self.typed_kind_drawn(actor, place, &variant).await?;
                let (v, is_glass) = match kind {
                    GameKind::Glass(_) => (self.glass.clone(), true),
                    GameKind::Board(v) => (v, false),
                };
                let text =
                    text::piece(&v, &piece, is_glass).map_err(|e| Failure::User(e.to_string()))?;
                let reply = Reply::actor(text);
                // Looking-Glass pieces move as in chess, on boards the picture does not show.
                Ok(vec![match text::piece_kind(&v, &piece) {
                    Some(kind) if !is_glass => {
                        reply.with_board(picture::diagram_picture(&drawn, &v, kind))
                    }
                    _ => reply,
                }])
            }
            Command::Help(topic) => Ok(vec![Reply::actor(text::help(topic.as_deref()))]),
            Command::Variant(v) => self.variant_command(actor, place, v).await,
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
    /// his next command ([`GameService::hold_undelivered`]); whether it is the first held for
    /// him from its game (then, and only then, the game's room is told he cannot be
    /// reached). No default: a wrapper that forgot it would lose what a player was owed
    /// without a word.
    fn hold_undelivered<'a>(&'a self, reply: &'a Reply) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Takes the private replies held for a player, oldest first
    /// ([`GameService::take_undelivered`]).
    fn take_undelivered<'a>(&'a self, player: &'a PlayerId) -> BoxFuture<'a, Vec<Reply>>;

    /// Tells the service who the bot is on a platform (the adapter learns it at login), so
    /// players can `challenge` the bot's own user. The default ignores it (test doubles).
    fn set_bot_user(&self, _id: PlayerId, _name: &str) {}

    /// Claims what is due for a platform's sender ([`GameService::claim_mail`]).
    fn claim_mail(
        &self,
        platform: crate::model::Platform,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>>;

    /// Records how an attempt to deliver an outbox entry ended
    /// ([`GameService::settle_mail`]). Every reply with a key is reported, once it was sent or
    /// could not be: one never reported is sent again by the sender when its claim runs out.
    fn settle_mail<'a>(&'a self, key: &'a Key, attempt: Attempt) -> BoxFuture<'a, ()>;

    /// What wakes the senders ([`GameService::mail_signal`]).
    fn mail_signal(&self) -> Arc<tokio::sync::Notify>;

    /// An outbox entry and where it stands ([`GameService::mail`]). No default: a wrapper
    /// that answered wrongly would run a redelivered move twice or leave it unanswered
    /// ([`Games::answered`]), or let an edit overtake the message it replaces.
    fn mail<'a>(
        &'a self,
        key: &'a Key,
    ) -> BoxFuture<'a, Result<Option<crate::outbox::Mail>, StoreError>>;

    /// Whether a command delivered again after a crash was stored by its first run
    /// ([`GameService::answered`]): its first reply's key is in the outbox.
    fn answered<'a>(&'a self, command: &'a CommandKeys) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { Ok(self.mail(&command.first()).await?.is_some()) })
    }

    /// The names of the variants players added here ([`GameService::custom_names`]), for a
    /// platform's autocomplete. The default knows none (test doubles).
    fn custom_names<'a>(
        &'a self,
        _place: &'a Place,
        _server: Option<&'a str>,
    ) -> BoxFuture<'a, Vec<String>> {
        Box::pin(async { Vec::new() })
    }
}

impl<S: GameStore + 'static, C: Clock + 'static> Games for GameService<S, C> {
    fn hold_undelivered<'a>(&'a self, reply: &'a Reply) -> BoxFuture<'a, Result<bool, StoreError>> {
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

    fn claim_mail(
        &self,
        platform: crate::model::Platform,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        Box::pin(GameService::claim_mail(self, platform, limit))
    }

    fn settle_mail<'a>(&'a self, key: &'a Key, attempt: Attempt) -> BoxFuture<'a, ()> {
        Box::pin(GameService::settle_mail(self, key, attempt))
    }

    fn mail_signal(&self) -> Arc<tokio::sync::Notify> {
        GameService::mail_signal(self)
    }

    fn mail<'a>(
        &'a self,
        key: &'a Key,
    ) -> BoxFuture<'a, Result<Option<crate::outbox::Mail>, StoreError>> {
        Box::pin(GameService::mail(self, key))
    }

    fn custom_names<'a>(
        &'a self,
        place: &'a Place,
        server: Option<&'a str>,
    ) -> BoxFuture<'a, Vec<String>> {
        Box::pin(GameService::custom_names(self, place, server))
    }
}

/// Every ending reaches each player privately as well as the game's room: his direct channel
/// may be all he reads (a Looking-Glass player gives his orders there). For each seat of
/// `record`, when the game is over, and for each player in `out` (put out of a four-player
/// game that goes on), who is not told privately among `replies` already, a private copy of
/// the room's line without the board is added. The bot's own seats are skipped.
pub(crate) fn tell_each_player(record: &GameRecord, out: &[PlayerId], replies: &mut Vec<Reply>) {
    use crate::reply::Audience;
    let over = !record.status.is_active();
    let Some(room) = replies
        .iter()
        .find(|r| r.audience == Audience::Room)
        .cloned()
    else {
        return;
    };
    let bot = bot::bot_seats(record);
    let mut told: Vec<PlayerId> = Vec::new();
    for (seat, p) in record.seats.iter().enumerate() {
        let concerned = over || out.contains(p);
        let is_bot = bot.as_ref().is_some_and(|b| b.plays(seat as u8));
        let already = told.contains(p)
            || replies
                .iter()
                .any(|r| r.audience == Audience::Private(p.clone()));
        if !concerned || is_bot || already {
            continue;
        }
        told.push(p.clone());
        let mut private = room.clone();
        private.audience = Audience::Private(p.clone());
        private.place = None;
        private.board = None;
        private.about = Some(record.id);
        private.actions.clear();
        private.key = None;
        replies.push(private);
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
