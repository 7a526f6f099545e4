//! Listings and lookups: variants, the games and challenges here, player names on boards.

use super::*;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) fn variants_text(&self) -> String {
        let mut s = String::from("Variants I play:\n");
        for game in GameKind::every(&self.catalog) {
            s.push_str(&format!("- `{}`: {}\n", game.name, game.display_name));
        }
        s.push_str("Start one with `challenge @someone VARIANT`.");
        s
    }

    /// Fills in player names on boards that lack them.
    pub(super) async fn name_players(&self, replies: &mut [Reply]) {
        for r in replies.iter_mut() {
            if let Some(b) = r.board.as_mut()
                && b.players.is_empty()
                && let Some(game) = b.game
                && let Ok(g) = self.store.get_game(game).await
            {
                b.players = self.seat_names(&g).await;
            }
        }
    }

    pub(super) async fn seat_names(&self, g: &GameRecord) -> Vec<String> {
        let mut names = Vec::new();
        for p in &g.seats {
            names.push(self.player_name(p).await);
        }
        names
    }

    /// The name a player chose (remembered, else read from the store), or his platform id
    /// when the store does not know him: what listings show, without notifying anyone.
    pub(super) async fn player_name(&self, p: &PlayerId) -> String {
        if let Some(name) = self.memo.name(p) {
            return name;
        }
        match self.store.get_player(p).await {
            Ok(r) => {
                self.memo.keep_name(p, &r.display_name);
                r.display_name
            }
            Err(_) => p.user.clone(),
        }
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
        s.push_str(if here.is_empty() {
            "Games here: none\n"
        } else {
            "Games here:\n"
        });
        let here_lines = self.game_lines(actor, here.iter()).await;
        push_listed(&mut s, here_lines, "here", BOARD_HINT);
        let elsewhere = mine.iter().filter(|g| !here.iter().any(|h| h.id == g.id));
        let elsewhere = self.game_lines(actor, elsewhere).await;
        if !elsewhere.is_empty() {
            s.push_str("Your games elsewhere:\n");
            push_listed(&mut s, elsewhere, "of yours elsewhere", BOARD_HINT);
        }
        if !challenges.is_empty() {
            s.push_str("Open challenges here:\n");
            let mut challenges: Vec<_> = challenges.iter().collect();
            challenges.sort_by_key(|c| std::cmp::Reverse(c.id));
            let mut newest_first = Vec::new();
            for c in challenges {
                let by = self.player_name(&c.challenger).await;
                let to = match &c.challenged {
                    Some(p) => format!(" to {}", self.player_name(p).await),
                    None => String::new(),
                };
                newest_first.push(format!(
                    "{} {} by {by}{to}",
                    c.id,
                    self.variant_label(&c.variant)
                ));
            }
            push_listed(
                &mut s,
                newest_first,
                "open here",
                "`accept ID` takes any of them by its number",
            );
        }
        Ok(vec![Reply::actor(s.trim_end().to_string())])
    }

    /// One line per game: those that wait for `actor` first, then the newest. (Replaying a
    /// record to find whose turn it is is the costly part: once per game.)
    async fn game_lines<'g>(
        &self,
        actor: &Actor,
        games: impl Iterator<Item = &'g GameRecord>,
    ) -> Vec<String> {
        let mut lines: Vec<(bool, std::cmp::Reverse<GameId>, String)> = Vec::new();
        for g in games {
            let to_move = self.seat_to_move(g);
            let waits = to_move.and_then(|seat| g.seats.get(seat)) == Some(&actor.id);
            let names = self.seat_names(g).await;
            lines.push((
                !waits,
                std::cmp::Reverse(g.id),
                self.game_line(g, &names, to_move),
            ));
        }
        lines.sort();
        lines.into_iter().map(|(_, _, text)| text).collect()
    }

    /// A game as `games` lists it: number, variant, players by the names they chose (never
    /// a raw platform id, never a mention: a listing notifies nobody), ply, whose turn, his
    /// clock.
    fn game_line(&self, g: &GameRecord, names: &[String], to_move: Option<usize>) -> String {
        let turn = to_move
            .and_then(|seat| names.get(seat))
            .map(|name| format!(", {name} to move"))
            .unwrap_or_default();
        let clock = to_move
            .and_then(|seat| self.clock_line(g, seat))
            .map(|c| format!(" — {c}"))
            .unwrap_or_default();
        let players = names.join(" vs ");
        format!(
            "#{} {} — {players} (ply {}{turn}){clock}",
            g.id,
            self.variant_label(&g.variant),
            g.moves.len()
        )
    }
}

/// How many entries one section of `games` lists: a chat message stays readable, and a
/// player with many games still sees the ones waiting for him first.
pub(super) const LISTED: usize = 10;

/// How to reach a game `games` left out.
const BOARD_HINT: &str = "`board #ID` shows any game by its number";

/// Appends at most [`LISTED`] entries, indented, and a count of the rest with `hint`.
fn push_listed(s: &mut String, entries: Vec<String>, what: &str, hint: &str) {
    let total = entries.len();
    for entry in entries.into_iter().take(LISTED) {
        s.push_str(&format!("  {entry}\n"));
    }
    if total > LISTED {
        s.push_str(&format!(
            "  … and {} more {what}, older ones: {hint}\n",
            total - LISTED
        ));
    }
}
