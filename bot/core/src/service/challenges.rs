//! Challenges: opening one, finding the one a command means, accepting it into a game,
//! declining and withdrawing.

use super::*;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) async fn challenge(
        &self,
        actor: &Actor,
        place: &Place,
        opponents: Vec<String>,
        variant: &str,
        asked: GameOptions,
    ) -> Outcomes {
        let GameOptions {
            colour,
            position,
            clock,
            ..
        } = asked;
        let typed = self.typed_variant(actor, place, variant).await;
        let variant = typed.as_str();
        let kind = self.game_kind(variant)?;
        let (vname, display) = (
            super::custom::stored_name(kind.name(), variant),
            kind.display_name().to_string(),
        );
        let seats = match &kind {
            GameKind::Board(v) => usize::from(v.sides),
            GameKind::Glass(_) => 2,
        };
        let invited: Vec<PlayerId> = opponents.iter().map(|o| parse_mention(place, o)).collect();
        for p in &invited {
            if crate::quote::display_name(&p.user).as_deref() != Some(p.user.as_str()) {
                return user(format!(
                    "{} is not a player I can challenge: mention someone (`challenge @name VARIANT`).",
                    crate::quote::quote(&p.user)
                ));
            }
        }
        // Challenging the bot's own user is playing the bot (at the default level).
        if let [one] = invited.as_slice()
            && self.bot_user(place.platform).as_ref() == Some(one)
        {
            return self
                .play_bot(actor, place, variant, None, colour, position, None)
                .await;
        }
        // The bot plays only against one person, holding every other seat: a challenge
        // naming it among people would wait for it forever (issue 27).
        if invited.len() > 1
            && let Some(bot) = self.bot_user(place.platform)
            && invited.contains(&bot)
        {
            return user(format!(
                "The bot cannot take a seat in a game with other people: it plays one person, \
                 holding every other seat. Type `play {vname} vs bot` to play it, or challenge \
                 the people without naming the bot."
            ));
        }
        if let Some(refusal) = seat_count_error(&display, &vname, seats, invited.len()) {
            return user(refusal);
        }
        for (i, p) in invited.iter().enumerate() {
            if invited[..i].contains(p) {
                return user(format!(
                    "You named {} twice; a four-player game needs three different opponents.",
                    crate::quote::quote(&opponents[i])
                ));
            }
        }
        // On the console one keyboard may play both sides of a two-player game; a game of
        // more seats has its own local names for them (`play` seats four).
        if invited.contains(&actor.id)
            && (seats > 2 || place.platform != crate::model::Platform::Console)
        {
            return user(if seats > 2 {
                "You cannot be your own opponent: you take the first seat; name three other players."
            } else {
                "You cannot challenge yourself; challenge someone else, or open a challenge with `challenge VARIANT`."
            });
        }
        if seats > 2 && colour == ColourChoice::Second {
            return user(format!(
                "In {display} the seats go Red, Blue, Yellow, Green in the order named, you first; \
                 name the players in the order you want, or add `random` to shuffle the seats."
            ));
        }
        if let Some(n) = position
            && vname != chess960::VARIANT
        {
            return user(format!(
                "{display} has one start position; only Chess960 starts from a numbered one. \
                 Drop `position {n}`, or play `challenge @someone chess960 position {n}`."
            ));
        }
        let options = asked.to_string();
        let mut invited = invited.into_iter();
        let challenged = invited.next();
        let more_invited: Vec<PlayerId> = invited.collect();
        let rec = self
            .store
            .create_challenge(NewChallenge {
                challenger: actor.id.clone(),
                challenged: challenged.clone(),
                more_invited: more_invited.clone(),
                variant: vname,
                options,
                place: place.clone(),
                created_at: self.clock.now_secs(),
            })
            .await?;
        let timed = match clock {
            TimeControl::None => String::new(),
            c => format!(", clock {c}"),
        };
        let mut reply = match &challenged {
            Some(_) if !more_invited.is_empty() => {
                let names: Vec<String> = (1..=rec.invitees().count())
                    .map(|i| format!("{{{i}}}"))
                    .collect();
                let seating = if colour == ColourChoice::Random {
                    "seats drawn at random when the game starts".to_string()
                } else {
                    let sides = (0..=rec.invitees().count())
                        .map(|i| {
                            format!(
                                "{{{i}}} {}",
                                Side(i as u8).name(rec.invitees().count() + 1)
                            )
                        })
                        .collect::<Vec<_>>();
                    sides.join(", ")
                };
                let mut r = Reply::room(format!(
                    "{{0}} challenges {} to {} (challenge {}{timed}; {seating}). Each of you: type `accept {}` or `decline {}`; the game starts when all have accepted.",
                    list_and(&names),
                    display,
                    rec.id,
                    rec.id,
                    rec.id
                ))
                .mention(actor.id.clone());
                r.mentions.extend(rec.invitees().cloned());
                r
            }
            Some(p) => Reply::room(format!(
                "{{0}} challenges {{1}} to {} (challenge {}{timed}). {{1}}: type `accept {}` or `decline {}`.",
                display, rec.id, rec.id, rec.id
            ))
            .mention(actor.id.clone())
            .mention(p.clone()),
            None => Reply::room(format!(
                "{{0}} opens a challenge to {} (challenge {}{timed}). Anyone here may `accept {}`.",
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
                    (c.is_invited(&actor.id) && !c.accepted.contains(&actor.id))
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
                    .map(|c| format!("{} ({})", c.id, self.variant_label(&c.variant)))
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
        now_ms: i64,
    ) -> Result<GameRecord, Failure> {
        let options = super::games::challenge_options(c)?;
        let clock = self.start_clock(options.clock, seats.len(), now_ms);
        let accepted = self
            .store
            .accept_challenge(
                c.id,
                &actor.id,
                NewGame {
                    variant: c.variant.clone(),
                    options: c.options.clone(),
                    start_state,
                    rating_family: self.rating_family(c, &seats)?,
                    seats,
                    place: c.place.clone(),
                    clock,
                    created_at: now_ms.div_euclid(1000),
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
        if c.challenger == actor.id
            && (place.platform != crate::model::Platform::Console || !c.more_invited.is_empty())
        {
            return user(
                "That is your own challenge; wait for someone to accept it, or `cancel` it.",
            );
        }
        if c.challenged.is_some() && !c.is_invited(&actor.id) {
            return user(format!("Challenge {} is not addressed to you.", c.id));
        }
        if !c.more_invited.is_empty() {
            return self.accept_seat(c, actor).await;
        }
        let now_ms = self.clock.now_ms();
        let options = super::games::challenge_options(&c)?;
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
            GameKind::Glass(rules) => {
                return self.glass_start(c, rules, actor, seats, now_ms).await;
            }
            GameKind::Board(v) => v,
        };
        let (start, c, numbered) = chess960::start(&v, c, options, &*self.chance)?;
        let game = self
            .open_game(&c, actor, seats.clone(), rules::fen::write(&start), now_ms)
            .await?;
        self.game_starts(game, numbered.unwrap_or_else(|| v.display_name.clone()))
            .await
    }

    /// One invitee of a challenge to several players accepts: the game starts if he was the
    /// last one, otherwise the room hears who is still awaited.
    async fn accept_seat(&self, c: ChallengeRecord, actor: &Actor) -> Outcomes {
        if c.accepted.contains(&actor.id) {
            return user(format!(
                "You have accepted challenge {} already; the game starts when the others have too.",
                c.id
            ));
        }
        let now = self.clock.now_secs();
        let options = super::games::challenge_options(&c)?;
        let GameKind::Board(v) = self.game_kind(&c.variant)? else {
            return user("Through the Looking-Glass is for two players.");
        };
        let invitees: Vec<PlayerId> = c.invitees().cloned().collect();
        // Dealt at every acceptance, used at the last: the store keeps the game of the one
        // that completes the table.
        let seats = crate::seating::deal(
            &c.challenger,
            &invitees,
            options.colour == ColourChoice::Random,
            &*self.chance,
        );
        let start = Position::start(&v);
        let accepted = self
            .store
            .accept_invitation(
                c.id,
                &actor.id,
                NewGame {
                    variant: c.variant.clone(),
                    options: c.options.clone(),
                    start_state: rules::fen::write(&start),
                    // Four-player games are unrated: see the README's ratings section.
                    rating_family: None,
                    seats,
                    place: c.place.clone(),
                    // The first player's time runs from the last acceptance, which makes
                    // this game (only that acceptance's game is kept).
                    clock: self.start_clock(options.clock, invitees.len() + 1, self.clock.now_ms()),
                    created_at: now,
                },
            )
            .await;
        match accepted {
            Ok((_, Some(game))) => self.game_starts(game, v.display_name.clone()).await,
            Ok((after, None)) => {
                let waiting = after.waiting_for();
                let slots: Vec<String> = (1..=waiting.len()).map(|i| format!("{{{i}}}")).collect();
                let mut r = announce_challenge(
                    &after,
                    format!(
                        "{{0}} accepts challenge {} ({}). Still waiting for {}: `accept {}` or `decline {}`.",
                        after.id,
                        v.display_name,
                        list_and(&slots),
                        after.id,
                        after.id
                    ),
                )
                .mention(actor.id.clone());
                r.mentions.extend(waiting);
                Ok(vec![r.with_action(Action::AnswerChallenge(after.id.0))])
            }
            Err(StoreError::ChallengeClosed { id, status }) => {
                user(format!("Challenge {id} is already {status}."))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The announcement that a game starts: every player with his colour, and the first to
    /// move, with the board.
    pub(super) async fn game_starts(&self, game: GameRecord, title: String) -> Outcomes {
        let Loaded::Board(loaded) = self.rebuild(game)? else {
            return user("That challenge is for another game; try `accept` again.");
        };
        let names = self.seat_names(&loaded.record).await;
        let n = loaded.record.seats.len();
        let text = if n == 2 {
            format!(
                "Game {} starts: {} — {{0}} ({}) against {{1}} ({}). {{0}} to move.",
                loaded.record.id,
                title,
                Side(0).name(2),
                Side(1).name(2)
            )
        } else {
            let seated: Vec<String> = (0..n)
                .map(|i| format!("{{{i}}} ({})", Side(i as u8).name(n)))
                .collect();
            format!(
                "Game {} starts: {} — {}. {{0}} ({}) to move.",
                loaded.record.id,
                title,
                seated.join(", "),
                Side(0).name(n)
            )
        };
        let mut text = text;
        let page = self.link(loaded.record.id, &mut text);
        let mut r = self
            .board_reply(&loaded, &text, Some(0))
            .in_place(loaded.record.place.clone());
        r.mentions = loaded.record.seats.clone();
        r.page = page;
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
        if !mine && !c.is_invited(&actor.id) {
            return user(format!(
                "Challenge {} is not addressed to you; only its challenger can `cancel` it.",
                c.id
            ));
        }
        match self
            .store
            .resolve_challenge(c.id, how, self.clock.now_secs())
            .await
        {
            Ok(_) => {}
            Err(StoreError::ChallengeClosed { id, status }) => {
                return user(format!("Challenge {id} is already {status}."));
            }
            Err(e) => return Err(e.into()),
        }
        let verb = if mine { "withdraws" } else { "declines" };
        let mut text = format!(
            "{{0}} {verb} challenge {} ({}).",
            c.id,
            self.variant_label(&c.variant)
        );
        if !c.more_invited.is_empty() {
            // One refusal cancels the table for everyone: say so to each of them.
            text.push_str(" It is cancelled for everyone:");
        }
        let mut reply = announce_challenge(&c, text).mention(actor.id.clone());
        let everyone = std::iter::once(&c.challenger).chain(c.invitees());
        reply
            .mentions
            .extend(everyone.filter(|p| **p != actor.id).cloned());
        if !c.more_invited.is_empty() {
            reply = reply.notify_all(&[]);
        }
        Ok(vec![reply])
    }
}

/// A challenge's announcement, in the challenge's room wherever the command came from.
fn announce_challenge(c: &ChallengeRecord, text: String) -> Reply {
    Reply::room(text).in_place(c.place.clone())
}

/// `a`, `a and b`, `a, b and c`.
fn list_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What is wrong with naming `named` opponents for a game of `seats`, in words that say what
/// to type instead; `None` when the number fits (none, an open challenge, or one, for two
/// seats; exactly the other seats for more).
fn seat_count_error(display: &str, name: &str, seats: usize, named: usize) -> Option<String> {
    let others = seats.saturating_sub(1);
    if seats <= 2 {
        return (named > 1).then(|| {
            format!(
                "{display} is a two-player game: name one opponent (`challenge @name {name}`). \
                 For four players pick a four-player form, e.g. `challenge @a @b @c dcb-balanced-4p`."
            )
        });
    }
    (named != others).then(|| {
        format!(
            "{display} is for {seats} players: name {others} opponents, e.g. \
             `challenge @a @b @c {name}` (you named {named}). Seats go Red, Blue, Yellow, Green in \
             that order, you first; add `random` to shuffle them."
        )
    })
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
