//! Listings and lookups: variants, the games and challenges here, player names on boards.

use super::*;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) fn variants_text(&self) -> String {
        let mut s = String::from("Variants I play:\n");
        for n in self.catalog.names() {
            if let Ok(display) = self.catalog.display_name(&n) {
                s.push_str(&format!("- `{n}`: {display}\n"));
            }
        }
        for no_strikes in [false, true] {
            let kind = GameKind::Glass(rules::glass::GlassRules { no_strikes });
            s.push_str(&format!("- `{}`: {}\n", kind.name(), kind.display_name()));
        }
        s.push_str("Start one with `challenge @someone VARIANT`.");
        s
    }

    /// Fills in player names on boards that lack them.
    pub(super) async fn name_players(&self, replies: &mut [Reply]) {
        for r in replies.iter_mut() {
            if let Some(b) = r.board.as_mut()
                && b.players.is_empty()
                && let Ok(g) = self.store.get_game(b.game).await
            {
                b.players = self.seat_names(&g).await;
            }
        }
    }

    pub(super) async fn seat_names(&self, g: &GameRecord) -> Vec<String> {
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

    /// The seat whose turn it is in an active game, from its engine (a Looking-Glass game
    /// only once both setups are in); `None` when the record does not replay.
    pub(super) fn seat_to_move(&self, g: &GameRecord) -> Option<usize> {
        if !g.status.is_active() {
            return None;
        }
        match self.rebuild(g.clone()).ok()? {
            Loaded::Board(b) => Some(b.position.turn().index()),
            Loaded::Glass(glass) => {
                (glass.game.phase() == rules::glass::Phase::Play).then(|| glass.game.turn().index())
            }
        }
    }

    pub(super) async fn games(&self, actor: &Actor, place: &Place) -> Outcomes {
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
            let to_move = self.seat_to_move(g);
            let turn = to_move
                .and_then(|seat| g.seats.get(seat))
                .map(|p| format!(", {} to move", p.user))
                .unwrap_or_default();
            let clock = to_move
                .and_then(|seat| self.clock_line(g, seat))
                .map(|c| format!(" — {c}"))
                .unwrap_or_default();
            format!(
                "#{} {} — {} (ply {}{turn}){clock}",
                g.id,
                g.variant,
                g.seats
                    .iter()
                    .map(|p| p.user.as_str())
                    .collect::<Vec<_>>()
                    .join(" vs "),
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
