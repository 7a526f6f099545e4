//! Finding and rebuilding games: the game a command refers to, its engine replayed from the
//! record (or remembered), and its board as a reply.

use super::*;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) fn rebuild(&self, record: GameRecord) -> Result<Loaded, Failure> {
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

    pub(super) async fn load(&self, id: GameId) -> Result<Loaded, Failure> {
        match self.store.get_game(id).await {
            Ok(r) => self.rebuild(r),
            Err(StoreError::NotFound(_)) => user(format!("There is no game {id}.")),
            Err(e) => Err(e.into()),
        }
    }

    pub(super) async fn actor_games_here(
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
    pub(super) async fn pick_game(
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

    pub(super) fn board_reply(&self, g: &Loaded, text: &str, viewer: Option<u8>) -> Reply {
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

    pub(super) fn seat_to_move(g: &Loaded) -> u8 {
        g.position.turn().0
    }
}
