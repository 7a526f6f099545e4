//! The game service: one command in, replies out. It loads, applies the rules, saves with
//! optimistic concurrency (a lost race is retried against the fresh game, never applied
//! twice) and returns replies with their audiences. Nothing is acknowledged before the store
//! has made it durable.

use std::sync::Arc;

use rules::{Catalog, Outcome, Position, Side, Variant, notation};

pub(crate) mod chess960;
mod glass;

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

    fn variant(&self, name: &str) -> Result<Arc<Variant>, Failure> {
        self.catalog.get(name).map_err(|_| {
            let names = self.catalog.names();
            let hint = command::closest(name, names.iter().map(String::as_str))
                .map(|s| format!(" Did you mean `{s}`?"))
                .unwrap_or_default();
            Failure::User(format!(
                "I don't know the variant {}.{hint} Type `variants` for the list.",
                crate::quote::quote(name)
            ))
        })
    }

    fn variants_text(&self) -> String {
        let mut s = String::from("Variants I play:\n");
        for n in self.catalog.names() {
            if let Ok(display) = self.catalog.display_name(&n) {
                s.push_str(&format!("- `{n}`: {display}\n"));
            }
        }
        for n in [rules::glass::NAME, rules::glass::NAME_NO_STRIKES] {
            s.push_str(&format!("- `{n}`: {}\n", glass::display_name(n)));
        }
        s.push_str("Start one with `challenge @someone VARIANT`.");
        s
    }

    /// Fills in player names on boards that lack them.
    async fn name_players(&self, replies: &mut [Reply]) {
        for r in replies.iter_mut() {
            if let Some(b) = r.board.as_mut()
                && b.players.is_empty()
                && let Ok(g) = self.store.get_game(b.game).await
            {
                b.players = self.seat_names(&g).await;
            }
        }
    }

    async fn seat_names(&self, g: &GameRecord) -> Vec<String> {
        let mut names = Vec::new();
        for p in &g.seats {
            if let Some(name) = self.memo.name(p) {
                names.push(name);
                continue;
            }
            names.push(match self.store.get_player(p).await {
                Ok(r) => {
                    self.memo.keep_name(p, &r.display_name);
                    r.display_name
                }
                Err(_) => p.user.clone(),
            });
        }
        names
    }

    // ----- challenges ------------------------------------------------------------------

    async fn challenge(
        &self,
        actor: &Actor,
        place: &Place,
        opponent: Option<String>,
        variant: &str,
        colour: ColourChoice,
        position: Option<u16>,
    ) -> Outcomes {
        let (vname, display) = match glass::rules_of(variant) {
            Some(_) => (
                variant.to_string(),
                glass::display_name(variant).to_string(),
            ),
            None => {
                let v = self.variant(variant)?;
                (v.name.clone(), v.display_name.clone())
            }
        };
        let challenged = opponent.map(|o| parse_mention(place, &o));
        if let Some(p) = &challenged
            && crate::quote::display_name(&p.user).as_deref() != Some(p.user.as_str())
        {
            return user(format!(
                "{} is not a player I can challenge: mention someone (`challenge @name VARIANT`).",
                crate::quote::quote(&p.user)
            ));
        }
        if challenged.as_ref() == Some(&actor.id)
            && place.platform != crate::model::Platform::Console
        {
            return user(
                "You cannot challenge yourself; challenge someone else, or open a challenge with `challenge VARIANT`.",
            );
        }
        let mut options = match colour {
            ColourChoice::First => "colour=first",
            ColourChoice::Second => "colour=second",
            ColourChoice::Random => "colour=random",
        }
        .to_string();
        if let Some(n) = position {
            if vname != chess960::VARIANT {
                return user(format!(
                    "{display} has one start position; only Chess960 starts from a numbered one. \
                     Drop `position {n}`, or play `challenge @someone chess960 position {n}`."
                ));
            }
            options.push_str(&format!(" {}{n}", chess960::OPTION));
        }
        let rec = self
            .store
            .create_challenge(NewChallenge {
                challenger: actor.id.clone(),
                challenged: challenged.clone(),
                variant: vname,
                options,
                place: place.clone(),
                created_at: self.clock.now(),
            })
            .await?;
        let mut reply = match &challenged {
            Some(p) => Reply::room(format!(
                "{{0}} challenges {{1}} to {} (challenge {}). {{1}}: type `accept {}` or `decline {}`.",
                display, rec.id, rec.id, rec.id
            ))
            .mention(actor.id.clone())
            .mention(p.clone()),
            None => Reply::room(format!(
                "{{0}} opens a challenge to {} (challenge {}). Anyone here may `accept {}`.",
                display, rec.id, rec.id
            ))
            .mention(actor.id.clone()),
        };
        reply = reply.with_action(Action::AnswerChallenge(rec.id.0));
        Ok(vec![reply])
    }

    /// The pending challenge an `accept`/`decline`/`cancel` refers to.
    async fn find_challenge(
        &self,
        actor: &Actor,
        place: &Place,
        id: Option<i64>,
        mine: bool,
    ) -> Result<ChallengeRecord, Failure> {
        if let Some(id) = id {
            let c = match self.store.get_challenge(ChallengeId(id)).await {
                Ok(c) => c,
                Err(StoreError::NotFound(_)) => {
                    return user(format!("There is no challenge {id}."));
                }
                Err(e) => return Err(e.into()),
            };
            if c.status != ChallengeStatus::Pending {
                return user(format!("Challenge {id} is already {}.", c.status));
            }
            return Ok(c);
        }
        let pending = self
            .store
            .list_challenges(&ChallengeFilter::default().at(place.clone()).pending())
            .await?;
        let relevant: Vec<ChallengeRecord> = pending
            .into_iter()
            .filter(|c| {
                if mine {
                    c.challenger == actor.id
                } else {
                    c.challenged.as_ref() == Some(&actor.id)
                        || (c.challenged.is_none() && c.challenger != actor.id)
                }
            })
            .collect();
        match relevant.as_slice() {
            [] => user(if mine {
                "You have no open challenge here."
            } else {
                "No challenge here is waiting for you. Start one with `challenge @someone VARIANT`."
            }),
            [one] => Ok(one.clone()),
            many => user(format!(
                "Several challenges are waiting: {}. Say which, e.g. `accept {}`.",
                many.iter()
                    .map(|c| format!("{} ({})", c.id, c.variant))
                    .collect::<Vec<_>>()
                    .join(", "),
                many[0].id
            )),
        }
    }

    /// Accepts a challenge into a new game with its start state; a challenge answered
    /// meanwhile (a race, or a second click) is a user error naming its status.
    async fn open_game(
        &self,
        c: &ChallengeRecord,
        actor: &Actor,
        seats: Vec<PlayerId>,
        start_state: String,
        now: i64,
    ) -> Result<GameRecord, Failure> {
        let accepted = self
            .store
            .accept_challenge(
                c.id,
                &actor.id,
                NewGame {
                    variant: c.variant.clone(),
                    options: c.options.clone(),
                    start_state,
                    seats,
                    place: c.place.clone(),
                    created_at: now,
                },
            )
            .await;
        match accepted {
            Ok((_, game)) => Ok(game),
            Err(StoreError::ChallengeClosed { id, status }) => {
                user(format!("Challenge {id} is already {status}."))
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn accept(&self, actor: &Actor, place: &Place, id: Option<i64>) -> Outcomes {
        let c = self.find_challenge(actor, place, id, false).await?;
        if c.challenger == actor.id && place.platform != crate::model::Platform::Console {
            return user(
                "That is your own challenge; wait for someone to accept it, or `cancel` it.",
            );
        }
        if let Some(p) = &c.challenged
            && p != &actor.id
        {
            return user(format!("Challenge {} is not addressed to you.", c.id));
        }
        let now = self.clock.now();
        let colour = c
            .options
            .split_whitespace()
            .find(|o| o.starts_with("colour="));
        let challenger_first = match colour {
            Some("colour=second") => false,
            Some("colour=random") => self.chance.below(2) == 0,
            _ => true,
        };
        let seats = if challenger_first {
            vec![c.challenger.clone(), actor.id.clone()]
        } else {
            vec![actor.id.clone(), c.challenger.clone()]
        };
        if glass::rules_of(&c.variant).is_some() {
            return self.glass_start(c, actor, seats, now).await;
        }
        let v = self.variant(&c.variant)?;
        let (start, c, numbered) = chess960::start(&v, c, &*self.chance)?;
        let game = self
            .open_game(&c, actor, seats.clone(), rules::fen::write(&start), now)
            .await?;
        let loaded = self.rebuild(game)?;
        let names = self.seat_names(&loaded.record).await;
        let text = format!(
            "Game {} starts: {} — {{0}} ({}) against {{1}} ({}). {{0}} to move.",
            loaded.record.id,
            numbered.unwrap_or_else(|| v.display_name.clone()),
            Side(0).name(2),
            Side(1).name(2)
        );
        let mut r = self
            .board_reply(&loaded, &text, Some(0))
            .in_place(loaded.record.place.clone());
        r.mentions = seats;
        if let Some(b) = r.board.as_mut() {
            b.players = names;
        }
        Ok(vec![r])
    }

    async fn close_challenge(
        &self,
        actor: &Actor,
        place: &Place,
        id: Option<i64>,
        how: ChallengeResolution,
    ) -> Outcomes {
        let mine = how == ChallengeResolution::Cancelled;
        let c = self.find_challenge(actor, place, id, mine).await?;
        if mine && c.challenger != actor.id {
            return user(format!("Challenge {} is not yours to cancel.", c.id));
        }
        if !mine && c.challenged.as_ref() != Some(&actor.id) {
            return user(format!(
                "Challenge {} is not addressed to you; only its challenger can `cancel` it.",
                c.id
            ));
        }
        match self
            .store
            .resolve_challenge(c.id, how, self.clock.now())
            .await
        {
            Ok(_) => {}
            Err(StoreError::ChallengeClosed { id, status }) => {
                return user(format!("Challenge {id} is already {status}."));
            }
            Err(e) => return Err(e.into()),
        }
        let verb = if mine { "withdraws" } else { "declines" };
        let mut reply = Reply::room(format!("{{0}} {verb} challenge {} ({}).", c.id, c.variant))
            .in_place(c.place.clone())
            .mention(actor.id.clone());
        let other = if mine {
            c.challenged.clone()
        } else {
            Some(c.challenger.clone())
        };
        reply.mentions.extend(other);
        Ok(vec![reply])
    }

    // ----- games -----------------------------------------------------------------------

    fn rebuild(&self, record: GameRecord) -> Result<Loaded, Failure> {
        if glass::rules_of(&record.variant).is_some() {
            // Looking-Glass games are replayed by their own referee (`glass::glass_game`)
            // where a command needs them; the generic commands (resign, draw, abort) only
            // read the record, and the position here is the worlds' example start.
            return Ok(Loaded {
                record,
                variant: self.glass.clone(),
                position: Position::start(&self.glass),
            });
        }
        let variant = self
            .catalog
            .get(&record.variant)
            .map_err(|e| Failure::Internal(format!("game {}: {e}", record.id)))?;
        if let Some(position) = self.memo.position(record.id, record.version) {
            return Ok(Loaded {
                record,
                variant,
                position,
            });
        }
        let mut position = rules::fen::position(&variant, &record.start_state)
            .map_err(|e| Failure::Internal(format!("game {} start: {e}", record.id)))?;
        for (i, m) in record.moves.iter().enumerate() {
            let mv = notation::parse_coord(&position, m)
                .map_err(|e| Failure::Internal(format!("game {} ply {}: {e}", record.id, i + 1)))?;
            position.play_unchecked(mv);
        }
        self.memo
            .keep_position(record.id, record.version, &position);
        Ok(Loaded {
            record,
            variant,
            position,
        })
    }

    async fn load(&self, id: GameId) -> Result<Loaded, Failure> {
        match self.store.get_game(id).await {
            Ok(r) => self.rebuild(r),
            Err(StoreError::NotFound(_)) => user(format!("There is no game {id}.")),
            Err(e) => Err(e.into()),
        }
    }

    async fn actor_games_here(
        &self,
        actor: &Actor,
        place: &Place,
    ) -> Result<Vec<GameRecord>, Failure> {
        let here = self
            .store
            .list_games(
                &GameFilter::default()
                    .at(place.clone())
                    .of(actor.id.clone())
                    .active(),
            )
            .await?;
        if !here.is_empty() {
            return Ok(here);
        }
        // Looking-Glass players give their orders in their private channel with the bot,
        // where no game lives: their Looking-Glass games anywhere count as here.
        Ok(self
            .store
            .list_games(&GameFilter::default().of(actor.id.clone()).active())
            .await?
            .into_iter()
            .filter(|g| glass::rules_of(&g.variant).is_some())
            .collect())
    }

    /// The game a command refers to: the one named, or the only candidate in context.
    async fn pick_game(
        &self,
        actor: &Actor,
        place: &Place,
        id: Option<GameId>,
        must_play: bool,
    ) -> Result<Loaded, Failure> {
        if let Some(id) = id {
            let g = self.load(id).await?;
            if must_play && g.record.seat_of(&actor.id).is_none() {
                return user(format!("You are not playing in game {id}."));
            }
            return Ok(g);
        }
        let mine = self.actor_games_here(actor, place).await?;
        let mut candidates = if mine.is_empty() && !must_play {
            self.store
                .list_games(&GameFilter::default().at(place.clone()).active())
                .await?
        } else {
            mine
        };
        if candidates.is_empty() && !must_play {
            // Looking at a finished game: the most recent one here.
            candidates = self
                .store
                .list_games(&GameFilter::default().at(place.clone()).limit(1))
                .await?;
        }
        match candidates.as_slice() {
            [] => user(if must_play {
                "You have no game here. Start one with `challenge @someone VARIANT`."
            } else {
                "There is no game here. Start one with `challenge @someone VARIANT`."
            }),
            [one] => self.rebuild(one.clone()),
            many => user(format!(
                "Which game? {} — add `#ID`, e.g. `board #{}`.",
                many.iter()
                    .map(|g| format!("#{} ({})", g.id, g.variant))
                    .collect::<Vec<_>>()
                    .join(", "),
                many[0].id
            )),
        }
    }

    fn board_reply(&self, g: &Loaded, text: &str, viewer: Option<u8>) -> Reply {
        // The engine's own last move (cells, not text): only when the position went through
        // every stored move, so the history is the record's.
        let last = (g.position.moves_played().count() == g.record.moves.len())
            .then(|| crate::picture::last_move(&g.position))
            .flatten();
        Reply::room(text.to_string()).with_board(BoardPicture {
            game: g.record.id,
            variant: g.variant.name.clone(),
            state: rules::fen::write(&g.position),
            last_move: last,
            viewer,
            players: Vec::new(),
        })
    }

    fn seat_to_move(g: &Loaded) -> u8 {
        g.position.turn().0
    }

    async fn play(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
        text: &str,
        mut loaded: Option<Loaded>,
    ) -> Outcomes {
        let mut attempt = 0;
        loop {
            // After a lost race the game is read afresh.
            let g = match loaded.take() {
                Some(g) => g,
                None => self.pick_game(actor, place, game, true).await?,
            };
            if !g.record.status.is_active() {
                return user(format!("Game {} is over.", g.record.id));
            }
            if glass::rules_of(&g.record.variant).is_some() {
                if let Some(refusal) = glass::secret_said_in_public(&g, place, "orders") {
                    return refusal;
                }
                return self.glass_order(actor, g, text).await;
            }
            let seat = g.record.seat_of(&actor.id);
            let to_move = Self::seat_to_move(&g);
            let my_turn = g.record.seats.get(to_move as usize) == Some(&actor.id);
            if !my_turn {
                return user(match seat {
                    Some(_) => format!(
                        "It is not your turn in game {}; {} is to move.",
                        g.record.id,
                        Side(to_move).name(g.record.seats.len())
                    ),
                    None => format!("You are not playing in game {}.", g.record.id),
                });
            }
            let mv = match notation::parse_move(&g.position, text) {
                Ok(m) => m,
                Err(e) => return user(move_error(&g.position, text, e)),
            };
            let coord = notation::coord(&g.position, mv);
            let san = notation::san(&g.position, mv);
            let mut after = g.position.clone();
            after.play_unchecked(mv);
            let outcome = after.outcome();
            let status = match outcome {
                Some(o) => finished(o),
                None => GameStatus::Active,
            };
            let update = GameUpdate {
                status: status.clone(),
                pending_offer: None,
            };
            match self
                .store
                .append_move(
                    g.record.id,
                    g.record.version,
                    &coord,
                    &update,
                    self.clock.now(),
                )
                .await
            {
                Ok(version) => self.memo.keep_position(g.record.id, version, &after),
                Err(StoreError::Conflict { .. }) if attempt < RACE_RETRIES => {
                    // Someone else changed the game meanwhile: re-read and re-validate.
                    attempt += 1;
                    continue;
                }
                Err(StoreError::Conflict { .. }) => {
                    return user(
                        "The game changed while your move was being saved; look at the board and try again.",
                    );
                }
                Err(e) => return Err(e.into()),
            }
            // Durable: now describe it.
            let mut record = g.record.clone();
            record.moves.push(coord);
            record.status = status;
            let loaded = Loaded {
                record,
                variant: g.variant.clone(),
                position: after,
            };
            let mut reply = self.after_move(&loaded, &san, outcome);
            if let Some(b) = reply.board.as_mut() {
                // The record is at hand: no reload in `name_players`.
                b.players = self.seat_names(&loaded.record).await;
            }
            return Ok(vec![reply]);
        }
    }

    fn after_move(&self, g: &Loaded, san: &str, outcome: Option<Outcome>) -> Reply {
        let n = g.record.seats.len();
        let mover = (g.record.moves.len() + n - 1) % n;
        let next = g.position.turn().0 as usize;
        let mut text = format!("Game {}: {{0}} plays {san}.", g.record.id);
        let mut mentions = vec![g.record.seats[mover].clone()];
        match outcome {
            Some(Outcome::Win { winner, reason }) => {
                // The mover wins (mate and the capture goal are given by the move itself);
                // the side now to move is the one beaten. Both are named.
                let how = match reason {
                    rules::WinReason::Checkmate => "Checkmate",
                    rules::WinReason::Captures => "Every piece that wins is captured",
                };
                text.push_str(&format!(
                    " {how} — {{0}} ({}) beats {{1}} ({}).",
                    winner.name(n),
                    Side(next as u8).name(n)
                ));
                mentions.push(g.record.seats[next].clone());
            }
            Some(Outcome::Draw(r)) => {
                text.push_str(&format!(" Draw by {}.", Outcome::Draw(r)));
            }
            None => {
                if g.position.is_check() {
                    text.push_str(" Check!");
                }
                text.push_str(" {1} to move.");
                mentions.push(g.record.seats[next].clone());
            }
        }
        let mut r = self
            .board_reply(g, &text, Some(next as u8))
            .in_place(g.record.place.clone());
        r.mentions = mentions;
        if outcome.is_some() {
            r = r.notify_all(&g.record.seats);
        }
        r
    }

    async fn list_moves(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
        from: Option<String>,
    ) -> Outcomes {
        let g = self.pick_game(actor, place, game, false).await?;
        if glass::rules_of(&g.record.variant).is_some() {
            return self.glass_moves(actor, &g);
        }
        let geo = &g.variant.geometry;
        let from_cell = match &from {
            Some(c) => match geo.parse(c) {
                Some(cell) => Some(cell),
                None => {
                    return user(format!(
                        "{} is not a cell of this board.",
                        crate::quote::quote(c)
                    ));
                }
            },
            None => None,
        };
        let moves: Vec<String> = g
            .position
            .legal_moves()
            .into_iter()
            .filter(|m| from_cell.is_none_or(|c| m.from == c))
            .map(|m| notation::san(&g.position, m))
            .collect();
        if moves.is_empty() {
            return Ok(vec![Reply::actor(match from {
                Some(c) => format!("No legal move from {c}."),
                None => "No legal move: the game is over.".into(),
            })]);
        }
        Ok(vec![Reply::actor(format!(
            "{} legal move{}{}: {}",
            moves.len(),
            if moves.len() == 1 { "" } else { "s" },
            from.map(|c| format!(" from {c}")).unwrap_or_default(),
            moves.join(" ")
        ))])
    }

    async fn resign(&self, actor: &Actor, place: &Place, game: Option<GameId>) -> Outcomes {
        let g = self.pick_game(actor, place, game, true).await?;
        if !g.record.status.is_active() {
            return user(format!("Game {} is already over.", g.record.id));
        }
        let seat = g.record.seat_of(&actor.id).unwrap_or(0);
        let result = if seat == 0 { "0-1" } else { "1-0" };
        let update = GameUpdate {
            status: GameStatus::Finished {
                result: result.into(),
                reason: "resignation".into(),
            },
            pending_offer: None,
        };
        self.versioned(&g, &update).await?;
        let text = format!(
            "Game {}: {{0}} resigns. {} wins.",
            g.record.id,
            Side(1 - seat.min(1)).name(2)
        );
        Ok(self.ending(&g, text, Some(&actor.id)))
    }

    async fn versioned(&self, g: &Loaded, update: &GameUpdate) -> Result<(), Failure> {
        match self
            .store
            .update_game(g.record.id, g.record.version, update, self.clock.now())
            .await
        {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { .. }) => {
                user("The game changed just now; look at the board and try again.")
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn offer(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
        kind: OfferKind,
        answer: Answer,
    ) -> Outcomes {
        let g = self.pick_game(actor, place, game, true).await?;
        if !g.record.status.is_active() {
            return user(format!("Game {} is over.", g.record.id));
        }
        let seat = g.record.seat_of(&actor.id).unwrap_or(0);
        let what = match kind {
            OfferKind::Draw => "a draw",
            OfferKind::Takeback => "a takeback",
        };
        let id = g.record.id;
        let pending = g.record.pending_offer.filter(|o| o.kind == kind);
        match answer {
            Answer::Offer => {
                if let Some(o) = pending {
                    if o.by_seat == seat {
                        return user(format!("You already offered {what}; wait for an answer."));
                    }
                    // Offering what the other side offered is accepting it.
                    return Box::pin(self.offer(actor, place, Some(id), kind, Answer::Accept))
                        .await;
                }
                if kind == OfferKind::Takeback && glass::rules_of(&g.record.variant).is_some() {
                    return user(
                        "There are no takebacks in Through the Looking-Glass: your opponent has already been told what happened.",
                    );
                }
                if kind == OfferKind::Takeback
                    && !g
                        .record
                        .moves
                        .iter()
                        .enumerate()
                        .any(|(i, _)| i % g.record.seats.len() == seat as usize)
                {
                    return user("You have no move to take back yet.");
                }
                self.versioned(
                    &g,
                    &GameUpdate {
                        status: GameStatus::Active,
                        pending_offer: Some(Offer {
                            kind,
                            by_seat: seat,
                        }),
                    },
                )
                .await?;
                let other = g.record.seats[(seat as usize + 1) % g.record.seats.len()].clone();
                let cmd = match kind {
                    OfferKind::Draw => "draw",
                    OfferKind::Takeback => "takeback",
                };
                let action = match kind {
                    OfferKind::Draw => Action::AnswerDraw(id),
                    OfferKind::Takeback => Action::AnswerTakeback(id),
                };
                Ok(vec![
                    announce(
                        &g.record,
                        format!(
                            "Game {id}: {{0}} offers {what}. {{1}}: `{cmd} accept` or `{cmd} decline`."
                        ),
                    )
                    .mention(actor.id.clone())
                    .mention(other)
                    .with_action(action),
                ])
            }
            Answer::Decline | Answer::Accept => {
                let Some(o) = pending else {
                    return user(format!("Nobody has offered {what} in game {id}."));
                };
                if o.by_seat == seat {
                    return user(format!("You cannot answer your own offer of {what}."));
                }
                if answer == Answer::Decline {
                    self.versioned(&g, &GameUpdate::active()).await?;
                    let by = g.record.seats.get(o.by_seat as usize).cloned();
                    let mut reply =
                        announce(&g.record, format!("Game {id}: {{0}} declines {what}."))
                            .mention(actor.id.clone());
                    reply.mentions.extend(by);
                    return Ok(vec![reply]);
                }
                match kind {
                    OfferKind::Draw => {
                        self.versioned(
                            &g,
                            &GameUpdate {
                                status: GameStatus::Finished {
                                    result: "1/2-1/2".into(),
                                    reason: "agreement".into(),
                                },
                                pending_offer: None,
                            },
                        )
                        .await?;
                        Ok(self.ending(&g, format!("Game {id} is drawn by agreement."), None))
                    }
                    OfferKind::Takeback => self.take_back(&g, o.by_seat).await,
                }
            }
        }
    }

    /// Undoes the requester's last move (and the opponent's reply after it, if any).
    async fn take_back(&self, g: &Loaded, requester: u8) -> Outcomes {
        let n = g.record.seats.len();
        let ply = g.record.moves.len();
        // The requester's last move is the last ply index i with i % n == requester.
        let Some(last) = (0..ply).rev().find(|i| i % n == requester as usize) else {
            return user("There is no move to take back.");
        };
        match self
            .store
            .truncate_moves(
                g.record.id,
                g.record.version,
                last,
                &GameUpdate::active(),
                self.clock.now(),
            )
            .await
        {
            Ok(_) => {}
            Err(StoreError::Conflict { .. }) => {
                return user("The game changed just now; look at the board and try again.");
            }
            Err(e) => return Err(e.into()),
        }
        let reloaded = self.load(g.record.id).await?;
        let undone = ply - last;
        let text = format!(
            "Game {}: {} move{} taken back. {{0}} to move.",
            g.record.id,
            undone,
            if undone == 1 { "" } else { "s" }
        );
        let next = reloaded.position.turn().0;
        let mut r = self
            .board_reply(&reloaded, &text, Some(next))
            .in_place(reloaded.record.place.clone());
        r.mentions = vec![reloaded.record.seats[next as usize].clone()];
        Ok(vec![r])
    }

    /// The replies that end a game by a command (resignation, agreement, abort): the result
    /// in the game's room, wherever the command was typed, mentioning every player (`first`,
    /// when given, as `{0}`); in Looking-Glass also a private word to each player, whose
    /// conversation with the bot is in his direct chat, and the reveal in the game's room.
    fn ending(&self, g: &Loaded, text: String, first: Option<&PlayerId>) -> Vec<Reply> {
        let mut room = announce(&g.record, text);
        room.mentions.extend(first.cloned());
        let room = room.notify_all(&g.record.seats);
        let mut replies = vec![room.clone()];
        if glass::rules_of(&g.record.variant).is_some() {
            for p in &g.record.seats {
                let mut private = room.clone();
                private.audience = crate::reply::Audience::Private(p.clone());
                private.place = None;
                private
                    .text
                    .push_str(" Both worlds are revealed in the game's room.");
                replies.push(private);
            }
            if let Ok(game) = self.glass_game(&g.record) {
                replies.push(self.glass_reveal(&g.record, &game));
            }
        }
        replies
    }

    async fn abort(&self, actor: &Actor, place: &Place, game: Option<GameId>) -> Outcomes {
        let g = self.pick_game(actor, place, game, true).await?;
        if !g.record.status.is_active() {
            return user(format!("Game {} is already over.", g.record.id));
        }
        // A Looking-Glass record also holds the secret setups: only moves count here.
        let moves = if glass::rules_of(&g.record.variant).is_some() {
            g.record
                .moves
                .iter()
                .filter(|m| !glass::is_setup_action(m))
                .count()
        } else {
            g.record.moves.len()
        };
        if moves >= g.record.seats.len() {
            return user(format!(
                "Game {} can no longer be aborted: both sides have moved. You can `resign` or offer a `draw`.",
                g.record.id
            ));
        }
        self.versioned(
            &g,
            &GameUpdate {
                status: GameStatus::Aborted,
                pending_offer: None,
            },
        )
        .await?;
        let text = format!("Game {} is aborted by {{0}}.", g.record.id);
        Ok(self.ending(&g, text, Some(&actor.id)))
    }

    async fn games(&self, actor: &Actor, place: &Place) -> Outcomes {
        let here = self
            .store
            .list_games(&GameFilter::default().at(place.clone()).active())
            .await?;
        let mine = self
            .store
            .list_games(&GameFilter::default().of(actor.id.clone()).active())
            .await?;
        let challenges = self
            .store
            .list_challenges(&ChallengeFilter::default().at(place.clone()).pending())
            .await?;
        let mut s = String::new();
        let line = |g: &GameRecord| {
            format!(
                "#{} {} — {} vs {} (ply {})",
                g.id,
                g.variant,
                g.seats.first().map(|p| p.user.as_str()).unwrap_or("?"),
                g.seats.get(1).map(|p| p.user.as_str()).unwrap_or("?"),
                g.moves.len()
            )
        };
        s.push_str(&format!(
            "Games here: {}\n",
            if here.is_empty() {
                "none".into()
            } else {
                String::new()
            }
        ));
        for g in &here {
            s.push_str(&format!("  {}\n", line(g)));
        }
        let elsewhere: Vec<&GameRecord> = mine
            .iter()
            .filter(|g| !here.iter().any(|h| h.id == g.id))
            .collect();
        if !elsewhere.is_empty() {
            s.push_str("Your games elsewhere:\n");
            for g in elsewhere {
                s.push_str(&format!("  {}\n", line(g)));
            }
        }
        if !challenges.is_empty() {
            s.push_str("Open challenges here:\n");
            for c in &challenges {
                s.push_str(&format!(
                    "  {} {} by {}{}\n",
                    c.id,
                    c.variant,
                    c.challenger.user,
                    c.challenged
                        .as_ref()
                        .map(|p| format!(" to {}", p.user))
                        .unwrap_or_default()
                ));
            }
        }
        Ok(vec![Reply::actor(s.trim_end().to_string())])
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

fn finished(o: Outcome) -> GameStatus {
    match o {
        Outcome::Win { winner, reason } => GameStatus::Finished {
            result: if winner == Side::WHITE { "1-0" } else { "0-1" }.into(),
            reason: match reason {
                rules::WinReason::Checkmate => "checkmate".into(),
                rules::WinReason::Captures => "captures".into(),
            },
        },
        Outcome::Draw(r) => GameStatus::Finished {
            result: "1/2-1/2".into(),
            reason: Outcome::Draw(r).to_string(),
        },
    }
}

/// A refusal for a move text, with "did you mean" for near misses.
fn move_error(pos: &Position, text: &str, e: notation::MoveTextError) -> String {
    use notation::MoveTextError as E;
    match e {
        E::Unknown { .. } => {
            let legal = pos.legal_moves();
            let sans: Vec<String> = legal.iter().map(|m| notation::san(pos, *m)).collect();
            let coords: Vec<String> = legal.iter().map(|m| notation::coord(pos, *m)).collect();
            let guess = command::closest(
                text.trim(),
                sans.iter().chain(coords.iter()).map(String::as_str),
            );
            let text = crate::quote::quote(text.trim());
            match guess {
                Some(g) => format!(
                    "{text} is not a legal move here. Did you mean `{g}`? Type `moves` to list them."
                ),
                None => format!(
                    "{text} is not a legal move here. Type `moves` to list them, or `moves e2` for one piece."
                ),
            }
        }
        // The engine's refusals quote what was typed themselves (`rules::quote`).
        other => crate::text::sentence(&other.to_string()),
    }
}

/// Turns a typed opponent into a player id on the same platform (`@alice` → `alice`,
/// `<@123>` → `123`, `@bob:example.org` stays a Matrix id).
pub fn parse_mention(place: &Place, text: &str) -> PlayerId {
    let t = text.trim();
    let user = if let Some(inner) = t.strip_prefix("<@").and_then(|s| s.strip_suffix('>')) {
        inner.trim_start_matches('!').to_string()
    } else if place.platform == crate::model::Platform::Matrix {
        t.to_string()
    } else {
        t.trim_start_matches('@').to_string()
    };
    PlayerId::new(place.platform, user)
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
