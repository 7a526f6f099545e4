//! Finding and rebuilding games: the game a command refers to, its engine replayed from the
//! record (or remembered), and its board as a reply.

use super::*;

/// A game loaded from the store, with the engine its variant plays by, rebuilt from the
/// record's moves. Which engine is decided here once; commands match on it, so none can
/// treat a Looking-Glass game as a board or the other way round.
// Both variants are large and live for one command: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub(super) enum Loaded {
    /// A catalogue variant.
    Board(BoardGame),
    /// Through the Looking-Glass.
    Glass(GlassGame),
}

/// A board game and its position.
pub(super) struct BoardGame {
    pub(super) record: GameRecord,
    pub(super) position: Position,
}

/// A Looking-Glass game and its referee.
pub(super) struct GlassGame {
    pub(super) record: GameRecord,
    pub(super) game: Glass,
}

impl Loaded {
    /// The stored game.
    pub(super) fn record(&self) -> &GameRecord {
        match self {
            Loaded::Board(g) => &g.record,
            Loaded::Glass(g) => &g.record,
        }
    }

    fn engine(&self) -> GameEngine {
        match self {
            Loaded::Board(g) => GameEngine::Board(g.position.clone()),
            Loaded::Glass(g) => GameEngine::Glass(Box::new(g.game.clone())),
        }
    }
}

impl BoardGame {
    /// The fault of a record that no longer replays.
    pub(super) fn replay_error(&self, source: export::ReplayError) -> ServiceError {
        ServiceError::Replay {
            game: self.record.id,
            source,
        }
    }
}

/// The game a move would be played in, for suggestions as the player types (Discord's
/// autocomplete): only board games, whose legal moves are public.
#[derive(Debug, Clone)]
pub struct CurrentGame {
    /// The game's id.
    pub id: GameId,
    /// Its position now.
    pub position: Position,
    /// Whether the asking player is to move.
    pub my_turn: bool,
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// What a variant name stands for, if anything.
    pub fn kind_of(&self, variant: &str) -> Option<GameKind> {
        match GameKind::glass(variant) {
            Some(rules) => Some(GameKind::Glass(rules)),
            None => self
                .catalog
                .get(variant)
                .ok()
                .or_else(|| self.cached_custom(variant))
                .map(GameKind::Board),
        }
    }

    /// A stored game's engine, rebuilt from its record (or remembered at its version): the
    /// one way adapters and the console learn what a record holds.
    ///
    /// # Errors
    /// When the record no longer replays (a corrupt record, or a variant that changed).
    pub fn engine(&self, record: &GameRecord) -> Result<GameEngine, ServiceError> {
        self.rebuild(record.clone()).map(|loaded| loaded.engine())
    }

    /// The actor's active board game here (or the one named) with its position: the game
    /// where it is the actor's turn first. `None` when there is none, or only Looking-Glass
    /// games (whose moves are secret).
    pub async fn current_game(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
    ) -> Option<CurrentGame> {
        let records = match game {
            Some(id) => vec![self.store.get_game(id).await.ok()?],
            None => self
                .store
                .list_games(&active_of_here(actor, place))
                .await
                .ok()?,
        };
        let names: Vec<&str> = records.iter().map(|r| r.variant.as_str()).collect();
        self.warm_custom(&names).await;
        let mut found: Vec<CurrentGame> = records
            .into_iter()
            .filter_map(|r| match self.rebuild(r) {
                Ok(Loaded::Board(g)) => Some(CurrentGame {
                    id: g.record.id,
                    my_turn: g.record.seats.get(g.position.turn().index()) == Some(&actor.id),
                    position: g.position,
                }),
                _ => None,
            })
            .collect();
        // The game waiting for the actor first.
        found.sort_by_key(|g| !g.my_turn);
        found.into_iter().next()
    }

    /// What a variant name typed by a player stands for, or a refusal with a suggestion.
    pub(super) fn game_kind(&self, name: &str) -> Result<GameKind, Failure> {
        self.kind_of(name).ok_or_else(|| {
            let names = GameKind::every_name(&self.catalog);
            let hint = command::closest(name, names.iter().map(String::as_str))
                .map(|s| format!(" Did you mean `{s}`?"))
                .unwrap_or_default();
            Failure::User(format!(
                "I don't know the variant {}.{hint} Type `variants` for the list.",
                crate::quote::quote(name)
            ))
        })
    }

    /// The rating family a game from challenge `c` with these seats counts for: its
    /// variant's, for a rated challenge between two different players; `None` otherwise.
    /// (Both Looking-Glass rule sets share one family: the game is the same.)
    pub(super) fn rating_family(
        &self,
        c: &ChallengeRecord,
        seats: &[PlayerId],
    ) -> Result<Option<String>, Failure> {
        let options = challenge_options(c)?;
        let [first, second] = seats else {
            return Ok(None);
        };
        if !options.rated || first == second {
            return Ok(None);
        }
        Ok(match self.game_kind(&c.variant)? {
            GameKind::Board(v) if v.sides == 2 => Some(v.rating_family.clone()),
            GameKind::Board(_) => None,
            GameKind::Glass(_) => Some(rules::glass::NAME.to_string()),
        })
    }

    /// Rebuilds a record's engine: remembered at the record's version, or replayed.
    pub(super) fn rebuild(&self, record: GameRecord) -> Result<Loaded, ServiceError> {
        tracing::Span::current().record("game", record.id.0);
        let id = record.id;
        let kind =
            match GameKind::glass(&record.variant) {
                Some(rules) => GameKind::Glass(rules),
                None => GameKind::Board(match self.cached_custom(&record.variant) {
                    Some(v) => v,
                    None => self.catalog.get(&record.variant).map_err(|source| {
                        ServiceError::Variant {
                            game: id,
                            variant: record.variant.clone(),
                            source,
                        }
                    })?,
                }),
            };
        let remembered = self.memo.engine(id, record.version);
        let loaded = match (kind, remembered) {
            (GameKind::Board(_), Some(GameEngine::Board(position))) => {
                return Ok(Loaded::Board(BoardGame { record, position }));
            }
            (GameKind::Glass(_), Some(GameEngine::Glass(game))) => {
                return Ok(Loaded::Glass(GlassGame {
                    record,
                    game: *game,
                }));
            }
            (GameKind::Board(variant), _) => {
                let position = replay(&variant, &record)
                    .map_err(|source| ServiceError::Replay { game: id, source })?;
                Loaded::Board(BoardGame { record, position })
            }
            (GameKind::Glass(rules), _) => {
                let game = Glass::replay(self.glass.clone(), rules, &record.moves)
                    // The referee's reason quotes the secret action: not kept.
                    .map_err(|e| ServiceError::GlassReplay {
                        game: id,
                        action: e.index + 1,
                    })?;
                Loaded::Glass(GlassGame { record, game })
            }
        };
        self.memo
            .keep_engine(id, loaded.record().version, loaded.engine());
        Ok(loaded)
    }

    pub(super) async fn load(&self, id: GameId) -> Result<Loaded, Failure> {
        match self.store.get_game(id).await {
            Ok(r) => {
                self.warm_custom(&[r.variant.as_str()]).await;
                Ok(self.rebuild(r)?)
            }
            Err(StoreError::NotFound(_)) => user(format!("There is no game {id}.")),
            Err(e) => Err(e.into()),
        }
    }

    pub(super) async fn actor_games_here(
        &self,
        actor: &Actor,
        place: &Place,
    ) -> Result<Vec<GameRecord>, Failure> {
        let here = self.store.list_games(&active_of_here(actor, place)).await?;
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
            .filter(|g| GameKind::glass(&g.variant).is_some())
            .collect())
    }

    /// The game a command refers to: the one named, or the only candidate in context.
    pub(super) async fn pick_game(
        &self,
        actor: &Actor,
        place: &Place,
        id: Option<GameId>,
        must_play: bool,
    ) -> Result<Loaded, Failure> {
        if let Some(id) = id {
            let g = self.load(id).await?;
            if must_play && g.record().seat_of(&actor.id).is_none() {
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
            [one] => {
                self.warm_custom(&[one.variant.as_str()]).await;
                Ok(self.rebuild(one.clone())?)
            }
            many => user(format!(
                "Which game? {} — add `#ID`, e.g. `board #{}`.",
                many.iter()
                    .map(|g| format!("#{} ({})", g.id, self.variant_label(&g.variant)))
                    .collect::<Vec<_>>()
                    .join(", "),
                many[0].id
            )),
        }
    }

    pub(super) fn board_reply(&self, g: &BoardGame, text: &str, viewer: Option<u8>) -> Reply {
        // The engine's own last move (cells, not text): only when the position went through
        // every stored move, so the history is the record's.
        let last = (g.position.moves_played().count() == g.record.moves.len())
            .then(|| crate::picture::last_move(&g.position))
            .flatten();
        // A player's own variant is drawn by its stored name (`custom:<hash>`), under which
        // the catalog the adapters share knows it; a built-in by its own name.
        let variant = if crate::custom::hash_of_game_variant(&g.record.variant).is_some() {
            g.record.variant.clone()
        } else {
            g.position.variant().name.clone()
        };
        Reply::room(text.to_string()).with_board(BoardPicture {
            game: Some(g.record.id),
            diagram: None,
            engine: EngineKind::Board,
            variant,
            state: rules::fen::write(&g.position),
            last_move: last,
            viewer,
            players: Vec::new(),
            clock: self.clock_caption(g),
        })
    }
}

/// The actor's active games in this place.
fn active_of_here(actor: &Actor, place: &Place) -> GameFilter {
    GameFilter::default()
        .at(place.clone())
        .of(actor.id.clone())
        .active()
}

/// A board game's position after every stored move.
fn replay(variant: &Arc<Variant>, record: &GameRecord) -> Result<Position, export::ReplayError> {
    let mut position = rules::fen::position(variant, &record.start_state)?;
    for (i, m) in record.moves.iter().enumerate() {
        let mv =
            notation::parse_coord(&position, m).map_err(|source| export::ReplayError::Move {
                ply: i + 1,
                text: m.clone(),
                source: Box::new(source),
            })?;
        position.play_unchecked(mv);
    }
    Ok(position)
}

/// A challenge's stored options, read; unreadable ones are the store's fault, named with the
/// challenge.
pub(super) fn challenge_options(c: &ChallengeRecord) -> Result<GameOptions, ServiceError> {
    c.game_options().map_err(|source| ServiceError::Options {
        challenge: c.id,
        source,
    })
}
