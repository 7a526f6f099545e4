//! The game service: one command in, replies out. It loads, applies the rules, saves with
//! optimistic concurrency (a lost race is retried against the fresh game, never applied
//! twice) and returns replies with their audiences. Nothing is acknowledged before the store
//! has made it durable.

use std::sync::Arc;

use rules::{Catalog, Outcome, Position, Side, Variant, notation};

mod challenges;
pub(crate) mod chess960;
mod games;
mod glass;
mod listings;
mod moves;
mod offers;

pub use challenges::parse_mention;

use crate::{
    chance::{Chance, OsChance},
    command::{self, Answer, ColourChoice, Command},
    export,
    memo::Memo,
    model::{
        ChallengeId, ChallengeRecord, ChallengeResolution, ChallengeStatus, GameId, GameRecord,
        GameStatus, GameUpdate, NewChallenge, NewGame, Offer, OfferKind, Place, PlayerId,
    },
    reply::{Action, BoardPicture, Reply},
    store::{ChallengeFilter, GameFilter, GameStore, StoreError},
    text,
};

/// Whether a stored variant name is a Looking-Glass game (played by `rules::glass`, not by a
/// catalogue variant).
pub fn is_glass(variant: &str) -> bool {
    glass::rules_of(variant).is_some()
}

/// The Looking-Glass rules of a stored variant name (the "no strikes" option is part of it).
pub fn glass_rules(variant: &str) -> Option<rules::glass::GlassRules> {
    glass::rules_of(variant)
}

/// The time source, so tests are deterministic.
pub trait Clock: Send + Sync {
    /// Unix seconds now.
    fn now(&self) -> i64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
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
}

/// A game loaded from the store with its position rebuilt from the move list.
struct Loaded {
    record: GameRecord,
    variant: Arc<Variant>,
    position: Position,
}

/// A user-facing refusal (becomes a reply to the actor) or an internal failure.
enum Failure {
    User(String),
    Internal(String),
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Internal(e.to_string())
    }
}

type Outcomes = Result<Vec<Reply>, Failure>;

fn user<T>(text: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::User(text.into()))
}

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
        match command::parse(text) {
            Ok(cmd) => self.handle(actor, place, cmd).await,
            Err(e) => {
                // A bare move? Only if the actor has a game here.
                if let command::ParseError::Unknown { .. } = e
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
                } = e
                    && looks_like_a_move(text)
                {
                    return vec![Reply::actor(
                        "You have no game in progress here. Start one with `challenge @someone VARIANT`, or see `games`.",
                    )];
                }
                vec![Reply::actor(e.to_string())]
            }
        }
    }

    /// Handles one command.
    pub async fn handle(&self, actor: &Actor, place: &Place, cmd: Command) -> Vec<Reply> {
        // Commands built from a platform's typed options (Discord) skip the text parser and
        // its cap: their free-text fields are held to the same limit here.
        if let Some(long) = cmd.oversized() {
            return vec![Reply::actor(crate::quote::too_long(&long))];
        }
        let result = match self.seen(actor).await {
            Ok(()) => self.dispatch(actor, place, cmd).await,
            Err(f) => Err(f),
        };
        answered_here(actor, place, self.respond(result).await)
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
                .upsert_player(&actor.id, &name, self.clock.now())
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
            Err(Failure::User(text)) => vec![Reply::actor(text)],
            Err(Failure::Internal(detail)) => {
                let reference = format!("{:x}", self.clock.now() ^ 0x5eed);
                tracing_like_log(&reference, &detail);
                vec![Reply::actor(format!(
                    "Sorry, something went wrong on my side (reference {reference}). Nothing was changed; please try again."
                ))]
            }
        }
    }

    async fn dispatch(&self, actor: &Actor, place: &Place, cmd: Command) -> Outcomes {
        match cmd {
            Command::Challenge {
                opponent,
                variant,
                colour,
                position,
            } => {
                self.challenge(actor, place, opponent, &variant, colour, position)
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
            Command::Board(game) => {
                let g = self.pick_game(actor, place, game, false).await?;
                if glass::rules_of(&g.record.variant).is_some() {
                    return self.glass_board(actor, &g);
                }
                Ok(vec![self.board_reply(&g, "", g.record.seat_of(&actor.id))])
            }
            Command::Setup { game, choice } => {
                let g = self.pick_game(actor, place, game, true).await?;
                if glass::rules_of(&g.record.variant).is_none() {
                    return user(format!(
                        "Game {} has its start position already; `setup` is for Through the Looking-Glass.",
                        g.record.id
                    ));
                }
                if let Some(refusal) =
                    glass::secret_said_in_public(&g, place, "back rank and orders")
                {
                    return refusal;
                }
                self.glass_setup(actor, g, &choice).await
            }
            Command::Ask(game) => {
                let g = self.pick_game(actor, place, game, true).await?;
                if glass::rules_of(&g.record.variant).is_none() {
                    return user(
                        "`ask` is for Through the Looking-Glass; in this game, `moves` lists every legal move.",
                    );
                }
                self.glass_ask(actor, &g)
            }
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
            Command::History(game) => {
                let g = self.pick_game(actor, place, game, false).await?;
                if glass::rules_of(&g.record.variant).is_some() {
                    return self.glass_history(&g);
                }
                Ok(vec![Reply::actor(
                    export::history(&g.variant, &g.record).map_err(Failure::Internal)?,
                )])
            }
            Command::Export(game) => {
                let g = self.pick_game(actor, place, game, false).await?;
                if glass::rules_of(&g.record.variant).is_some() {
                    return self.glass_history(&g);
                }
                let names = self.seat_names(&g.record).await;
                Ok(vec![Reply::actor(
                    export::pgn(&g.variant, &g.record, &names).map_err(Failure::Internal)?,
                )])
            }
            Command::Variants => Ok(vec![Reply::actor(self.variants_text())]),
            Command::Rules(v) if glass::rules_of(&v).is_some() => {
                Ok(vec![Reply::actor(glass::rules_text(&v))])
            }
            Command::Rules(v) => Ok(vec![Reply::actor(text::rules(&*self.variant(&v)?))]),
            Command::Piece { variant, piece } => {
                let is_glass = glass::rules_of(&variant).is_some();
                let v = match is_glass {
                    true => self.glass.clone(),
                    false => self.variant(&variant)?,
                };
                Ok(vec![Reply::actor(
                    text::piece(&v, &piece, is_glass).map_err(Failure::User)?,
                )])
            }
            Command::Help(topic) => Ok(vec![Reply::actor(text::help(topic.as_deref()))]),
        }
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

fn tracing_like_log(reference: &str, detail: &str) {
    // The core has no logger dependency; adapters capture stderr with their logs.
    eprintln!("fairybot internal error {reference}: {detail}");
}
