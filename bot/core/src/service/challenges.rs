//! Challenges: opening one, finding the one a command means, accepting it into a game,
//! declining and withdrawing.

use super::*;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) async fn challenge(
        &self,
        actor: &Actor,
        place: &Place,
        opponent: Option<String>,
        variant: &str,
        colour: ColourChoice,
        position: Option<u16>,
    ) -> Outcomes {
        let kind = self.game_kind(variant)?;
        let (vname, display) = (kind.name().to_string(), kind.display_name().to_string());
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
        if let Some(n) = position
            && vname != chess960::VARIANT
        {
            return user(format!(
                "{display} has one start position; only Chess960 starts from a numbered one. \
                 Drop `position {n}`, or play `challenge @someone chess960 position {n}`."
            ));
        }
        let options = GameOptions { colour, position }.to_string();
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
    pub(super) async fn find_challenge(
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
    pub(super) async fn open_game(
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

    pub(super) async fn accept(&self, actor: &Actor, place: &Place, id: Option<i64>) -> Outcomes {
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
        let options = GameOptions::parse(&c.options).map_err(|source| ServiceError::Options {
            challenge: c.id,
            source,
        })?;
        let challenger_first = match options.colour {
            ColourChoice::First => true,
            ColourChoice::Second => false,
            ColourChoice::Random => self.chance.below(2) == 0,
        };
        let seats = if challenger_first {
            vec![c.challenger.clone(), actor.id.clone()]
        } else {
            vec![actor.id.clone(), c.challenger.clone()]
        };
        let v = match self.game_kind(&c.variant)? {
            GameKind::Glass(rules) => return self.glass_start(c, rules, actor, seats, now).await,
            GameKind::Board(v) => v,
        };
        let (start, c, numbered) = chess960::start(&v, c, options, &*self.chance)?;
        let game = self
            .open_game(&c, actor, seats.clone(), rules::fen::write(&start), now)
            .await?;
        let Loaded::Board(loaded) = self.rebuild(game)? else {
            return user("That challenge is for another game; try `accept` again.");
        };
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

    pub(super) async fn close_challenge(
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
