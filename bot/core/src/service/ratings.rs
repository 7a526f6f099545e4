//! Ratings as players see them: `profile`, `leaderboard`, and the rating line of a result.
//!
//! The ratings themselves are written by the store, in the transaction that finishes a rated
//! game (see the store port's ratings section); this module only reads and shows them.

use super::*;
use crate::{
    model::{Platform, RatingRecord},
    reply::Table,
};

/// How many players a leaderboard lists.
const LEADERBOARD_SIZE: u32 = 10;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) async fn profile(
        &self,
        actor: &Actor,
        place: &Place,
        who: Option<String>,
    ) -> Outcomes {
        let target = match &who {
            None => actor.id.clone(),
            Some(text) => {
                let p = parse_mention(place, text);
                if crate::quote::display_name(&p.user).as_deref() != Some(p.user.as_str()) {
                    return user(format!(
                        "{} is not a player: mention someone (`profile @name`), or type `profile` for yours.",
                        crate::quote::quote(text)
                    ));
                }
                p
            }
        };
        let ratings = self.store.ratings_of(&target).await?;
        let games = self
            .store
            .list_games(&GameFilter::default().of(target.clone()).active())
            .await?;
        let name = match self.store.get_player(&target).await {
            Ok(p) => Some(p.display_name),
            Err(StoreError::NotFound(_)) => None,
            Err(e) => return Err(e.into()),
        };
        if name.is_none() && ratings.is_empty() && games.is_empty() {
            return user(format!(
                "{} has never played with me on {}: there is no profile yet. Challenge them with `challenge @name VARIANT`.",
                crate::quote::quote(who.as_deref().unwrap_or(&target.user)),
                platform_name(place.platform)
            ));
        }
        let now = self.clock.now_secs();
        let (games_rated, wins, draws, losses) = ratings.iter().fold((0, 0, 0, 0), |t, r| {
            let s = &r.standing;
            (t.0 + s.games, t.1 + s.wins, t.2 + s.draws, t.3 + s.losses)
        });
        let mut text = format!("Profile of {{0}} on {}.", platform_name(place.platform));
        if games_rated == 0 {
            text.push_str(" No rated game finished yet.");
        } else {
            text.push_str(&format!(
                " {games_rated} rated game{}: {wins} won, {draws} drawn, {losses} lost.",
                plural(games_rated)
            ));
        }
        let mut reply = Reply::actor(String::new()).mention(target.clone());
        if !games.is_empty() {
            text.push_str(&format!(
                " Playing now: {}.",
                self.current_games(&target, &games, &mut reply.mentions)
                    .await
            ));
        }
        reply.text = text;
        if ratings.is_empty() {
            return Ok(vec![reply]);
        }
        // Players' variants are named from their definitions, loaded first.
        let families: Vec<&str> = ratings.iter().map(|r| r.family.as_str()).collect();
        self.warm_custom(&families).await;
        let mut rows = Vec::with_capacity(ratings.len());
        for r in &ratings {
            let place = self.store.leaderboard_place(&r.player, &r.family).await?;
            rows.push(vec![
                self.family_label(&r.family),
                r.standing.rating_at(now).shown(),
                r.standing.games.to_string(),
                format!(
                    "{}/{}/{}",
                    r.standing.wins, r.standing.draws, r.standing.losses
                ),
                place.map_or_else(|| "-".into(), |n| format!("#{n}")),
            ]);
        }
        Ok(vec![
            reply.with_table(Table {
                columns: ["Variant", "Rating", "Games", "W/D/L", "Place"]
                    .map(String::from)
                    .to_vec(),
                rows,
            }),
        ])
    }

    /// The player's active games, as `#12 chess vs {1} (your move)`, naming his opponents
    /// by mention slots added to `mentions`.
    async fn current_games(
        &self,
        player: &PlayerId,
        games: &[GameRecord],
        mentions: &mut Vec<PlayerId>,
    ) -> String {
        let mut listed = Vec::with_capacity(games.len());
        for g in games {
            let opponents: Vec<String> = g
                .seats
                .iter()
                .filter(|p| *p != player)
                .map(|p| {
                    let i = mentions.iter().position(|m| m == p).unwrap_or_else(|| {
                        mentions.push(p.clone());
                        mentions.len() - 1
                    });
                    format!("{{{i}}}")
                })
                .collect();
            let turn = match self.seat_to_move(g).and_then(|seat| g.seats.get(seat)) {
                Some(p) if p == player => " (to move)",
                _ => "",
            };
            let versus = if opponents.is_empty() {
                " (against himself)".to_string()
            } else {
                format!(" vs {}", opponents.join(", "))
            };
            listed.push(format!(
                "#{} {}{versus}{turn}",
                g.id,
                self.variant_label(&g.variant)
            ));
        }
        listed.join("; ")
    }

    pub(super) async fn leaderboard(
        &self,
        actor: &Actor,
        place: &Place,
        variant: &str,
    ) -> Outcomes {
        // A room's own variant by its name, too.
        let kind = self.typed_kind(actor, place, variant).await?;
        let family = match &kind {
            GameKind::Board(v) if v.sides == 2 => v.rating_family.clone(),
            GameKind::Board(v) => {
                return user(format!(
                    "{} is a four-player game, and four-player games are unrated: there is no leaderboard. Try a two-player variant, e.g. `leaderboard dcb-balanced`.",
                    v.display_name
                ));
            }
            GameKind::Glass(_) => rules::glass::NAME.to_string(),
        };
        let label = self.family_label(&family);
        let board = self
            .store
            .leaderboard(place.platform, &family, LEADERBOARD_SIZE)
            .await?;
        if board.is_empty() {
            return Ok(vec![Reply::actor(format!(
                "Nobody has a rating in {label} on {} yet. Finish a rated game to be the first: `challenge @someone {}`.",
                platform_name(place.platform),
                kind.name()
            ))]);
        }
        let now = self.clock.now_secs();
        let rows = board
            .iter()
            .enumerate()
            .map(|(i, r)| leaderboard_row(i + 1, r, now))
            .collect();
        let mut text = format!(
            "Leaderboard of {label} on {}{}.",
            platform_name(place.platform),
            shared_note(&kind, &family)
        );
        if actor.id.platform == place.platform {
            match self.store.leaderboard_place(&actor.id, &family).await? {
                Some(n) => {
                    let mine = self
                        .store
                        .ratings_of(&actor.id)
                        .await?
                        .into_iter()
                        .find(|r| r.family == family);
                    let shown = mine
                        .map(|r| r.standing.rating_at(now).shown())
                        .unwrap_or_default();
                    text.push_str(&format!(" You are #{n} ({shown})."));
                }
                None => text.push_str(" You have no rating here yet."),
            }
        }
        Ok(vec![
            Reply::actor(text).with_table(Table {
                columns: ["#", "Player", "Rating", "Games", "W/D/L"]
                    .map(String::from)
                    .to_vec(),
                rows,
            }),
        ])
    }

    /// A rating family as players know it: the variant's name, or the family's own for one
    /// that several variants share.
    fn family_label(&self, family: &str) -> String {
        let custom = crate::custom::hash_of_game_variant(family).is_some();
        match self.kind_of(family) {
            // Known by the name its room gave it (its display name may be its parent's).
            Some(kind) if custom => kind.name().to_string(),
            Some(kind) => kind.display_name().to_string(),
            None if custom => "a player's variant (no longer loaded)".to_string(),
            None => format!("{family} (all forms)"),
        }
    }

    /// Adds to a result's room reply what the game did to the players' ratings (nothing for
    /// an unrated game). The result is stored already: failing to read the ratings only
    /// leaves the line out.
    pub(super) async fn note_ratings(&self, game: GameId, reply: &mut Reply) {
        let changes = match self.store.rating_changes(game).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(game = game.0, error = %e, "rating changes unreadable");
                return;
            }
        };
        if changes.is_empty() {
            return;
        }
        let parts: Vec<String> = changes
            .iter()
            .map(|c| {
                let i = reply
                    .mentions
                    .iter()
                    .position(|m| *m == c.player)
                    .unwrap_or_else(|| {
                        reply.mentions.push(c.player.clone());
                        reply.mentions.len() - 1
                    });
                format!("{{{i}}} {:.0} ({:+.0})", c.after, c.after - c.before)
            })
            .collect();
        reply
            .text
            .push_str(&format!(" Ratings: {}.", parts.join(", ")));
    }
}

/// One leaderboard line. Names are the players' own display names, not mentions: a
/// leaderboard must not notify ten people.
fn leaderboard_row(place: usize, r: &RatingRecord, now: i64) -> Vec<String> {
    let name = crate::quote::display_name(&r.name).unwrap_or_else(|| r.player.user.clone());
    vec![
        format!("#{place}"),
        name,
        r.standing.rating_at(now).shown(),
        r.standing.games.to_string(),
        format!(
            "{}/{}/{}",
            r.standing.wins, r.standing.draws, r.standing.losses
        ),
    ]
}

/// Says so when the variant asked for shares its ratings with other forms.
fn shared_note(kind: &GameKind, family: &str) -> String {
    // A player's variant is rated by its definition (`custom:<hash>`): its own family.
    if kind.name() == family || crate::custom::hash_of_game_variant(family).is_some() {
        String::new()
    } else {
        format!(" (every form of {family} shares one rating)")
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A platform's name as players know it (ratings are per platform: see the README).
fn platform_name(platform: Platform) -> &'static str {
    match platform {
        Platform::Discord => "Discord",
        Platform::Matrix => "Matrix",
        Platform::Console => "the console",
    }
}
