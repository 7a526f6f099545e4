//! Endings and offers: resigning, draw and takeback offers and their answers, aborting, and
//! the replies that end a game.

use super::*;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) async fn resign(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
    ) -> Outcomes {
        let g = self.pick_game(actor, place, game, true).await?;
        if !g.record().status.is_active() {
            return user(format!("Game {} is already over.", g.record().id));
        }
        if let Some(flagged) = self.flagged_now(&g).await? {
            return Ok(flagged);
        }
        let seat = g.record().seat_of(&actor.id).unwrap_or(0);
        if let Loaded::Board(board) = &g
            && crate::seating::is_multi(&board.position)
        {
            return self.resign_seat(board, seat).await;
        }
        // Two seats: the other one wins.
        let (lost, won) = (seat.min(1), 1 - seat.min(1));
        let update = GameUpdate::finished(GameResult::Win(won), EndReason::Resignation);
        self.versioned(&g, &update).await?;
        // Each player named with his side, the winner too (issue 27: "white resigns. White
        // wins. fairybot"). `ending` mentions the actor first and then the other seat, so
        // the winner is `{1}`, unless one player held both seats.
        let id = g.record().id;
        let (lost_side, won_side) = (Side(lost).name(2), Side(won).name(2));
        let text = if g.record().seats.get(usize::from(won)) != Some(&actor.id) {
            format!("Game {id}: {{0}} ({lost_side}) resigns. {{1}} ({won_side}) wins.")
        } else {
            format!("Game {id}: {{0}} resigns for {lost_side}. {won_side} wins.")
        };
        Ok(self.ending(&g, text, Some(&actor.id)).await)
    }

    /// Resigning in a game of more than two players: the engine's resignation move takes
    /// the player out (his pieces leave the board) and the others play on, unless he was the
    /// last opponent, which the engine's outcome says. A move like any other, so it is
    /// stored, replayed, exported and taken back like one.
    pub(super) async fn resign_seat(&self, g: &BoardGame, seat: u8) -> Outcomes {
        let n = g.record.seats.len();
        let side = Side(seat);
        if g.position.is_out(side) {
            return user(format!(
                "You are out of game {} already ({} is off the board); the others play on.",
                g.record.id,
                side.name(n)
            ));
        }
        let Some(mv) = g.position.resignation(side) else {
            return user(format!(
                "Game {} cannot take a resignation now; look at the board and try again.",
                g.record.id
            ));
        };
        // Said by the command's answer, which is posted when the command returns.
        let silent = Telling::unasked(&g.record.place);
        let (done, _) = self
            .commit(g, mv, self.clock.now_ms(), &silent, |_| Vec::new())
            .await?;
        let head = format!(
            "Game {}: {{0}} ({}) resigns and is out.",
            done.game.record.id,
            side.name(n)
        );
        let mut reply = self.announce_after(&done, head, seat);
        if let Some(b) = reply.board.as_mut() {
            b.players = self.seat_names(&done.game.record).await;
        }
        Ok(vec![reply])
    }

    /// The game ended on time now if its player to move has no time left (see
    /// [`GameService::flag_if_due`]).
    async fn flagged_now(&self, g: &Loaded) -> Result<Option<Vec<Reply>>, Failure> {
        let now_ms = self.clock.now_ms();
        match g {
            Loaded::Board(b) => self.flag_if_due(b, now_ms).await,
            Loaded::Glass(g) => {
                if !Self::clock_of(&g.record).is_some_and(|(_, c)| c.is_flagged(now_ms)) {
                    return Ok(None);
                }
                match self.glass_flag(g, now_ms).await? {
                    Some(replies) => Ok(Some(replies)),
                    None => user("The game changed just now; look at the board and try again."),
                }
            }
        }
    }

    pub(super) async fn versioned(&self, g: &Loaded, update: &GameUpdate) -> Result<(), Failure> {
        match self
            .store
            .update_game(
                g.record().id,
                g.record().version,
                update,
                self.clock.now_secs(),
            )
            .await
        {
            Ok(_) => Ok(()),
            Err(StoreError::Conflict { .. }) => {
                user("The game changed just now; look at the board and try again.")
            }
            Err(e) => Err(e.into()),
        }
    }

    pub(super) async fn offer(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
        kind: OfferKind,
        answer: Answer,
    ) -> Outcomes {
        let g = self.pick_game(actor, place, game, true).await?;
        if !g.record().status.is_active() {
            return user(format!("Game {} is over.", g.record().id));
        }
        // After the deadline the game is lost on time, whatever was offered or answered.
        if let Some(flagged) = self.flagged_now(&g).await? {
            return Ok(flagged);
        }
        let seat = g.record().seat_of(&actor.id).unwrap_or(0);
        let what = match kind {
            OfferKind::Draw => "a draw",
            OfferKind::Takeback => "a takeback",
        };
        let id = g.record().id;
        let n = g.record().seats.len();
        let board = match &g {
            Loaded::Board(b) => Some(&b.position),
            Loaded::Glass(_) => None,
        };
        let multi = board.is_some_and(crate::seating::is_multi);
        // Who must agree to an offer by `by`: the opponent, or in a game of more players every
        // other one still in (a draw) or every other one (a takeback).
        let needed = |by: u8| -> Vec<u8> {
            match board {
                Some(pos) => crate::seating::must_agree(pos, n, kind, by),
                None => (0..n as u8).filter(|&s| s != by).collect(),
            }
        };
        if multi
            && kind == OfferKind::Draw
            && board.is_some_and(|pos| !crate::seating::remaining_seats(pos).contains(&seat))
        {
            return user(format!(
                "You are out of game {id}; a draw is for the players still in it to agree."
            ));
        }
        let pending = g.record().pending_offer.filter(|o| o.kind == kind);
        let cmd = match kind {
            OfferKind::Draw => "draw",
            OfferKind::Takeback => "takeback",
        };
        let action = match kind {
            OfferKind::Draw => Action::AnswerDraw(id),
            OfferKind::Takeback => Action::AnswerTakeback(id),
        };
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
                if multi && bot::bot_seats(g.record()).is_some() {
                    // Four players against the bot: see the `bot` module's doc.
                    return user(match kind {
                        OfferKind::Draw => format!(
                            "Game {id}: the bot plays games of more seats to the end and declines draws; play on, or `resign` (the bot then wins)."
                        ),
                        OfferKind::Takeback => format!(
                            "Game {id}: no takebacks against the bot in a game of more seats: its seats have answered your move already. Play on, or `resign`."
                        ),
                    });
                }
                if let Loaded::Board(b) = &g
                    && bot::bot_seat(&b.record).is_some()
                {
                    // The bot answers at once: a draw by its judgement, a takeback always.
                    return match kind {
                        OfferKind::Draw => self.bot_answers_draw(b, actor).await,
                        OfferKind::Takeback => {
                            let replies = self.take_back(&g, seat).await?;
                            self.wake_bot(id);
                            Ok(replies)
                        }
                    };
                }
                if let Loaded::Glass(gg) = &g
                    && kind == OfferKind::Draw
                    && bot::bot_seat(&gg.record).is_some()
                {
                    // The bot cannot judge a position half of which it cannot see, and
                    // judging it from the referee's state would be reading the hidden world.
                    return user(format!(
                        "Game {id}: the bot plays Through the Looking-Glass to the end and declines draws; play on, or `resign`."
                    ));
                }
                if kind == OfferKind::Takeback && matches!(g, Loaded::Glass(_)) {
                    return user(
                        "There are no takebacks in Through the Looking-Glass: your opponent has already been told what happened.",
                    );
                }
                let has_move = if multi {
                    // Four players: the last move is taken back, whoever played it.
                    !g.record().moves.is_empty()
                } else {
                    g.record()
                        .moves
                        .iter()
                        .enumerate()
                        .any(|(i, _)| i % n == seat as usize)
                };
                if kind == OfferKind::Takeback && !has_move {
                    return user(if multi {
                        "No move has been played yet: there is nothing to take back."
                    } else {
                        "You have no move to take back yet."
                    });
                }
                self.versioned(
                    &g,
                    &GameUpdate {
                        status: GameStatus::Active,
                        pending_offer: Some(Offer::new(kind, seat)),
                        clock: None,
                        tell: Default::default(),
                    },
                )
                .await?;
                let others: Vec<PlayerId> = needed(seat)
                    .into_iter()
                    .filter_map(|s| g.record().seats.get(usize::from(s)).cloned())
                    .collect();
                let slots: Vec<String> = (1..=others.len()).map(|i| format!("{{{i}}}")).collect();
                let text = if multi {
                    format!(
                        "Game {id}: {{0}} offers {what}. {}: each `{cmd} accept` or `{cmd} decline`; it takes all of you.",
                        slots.join(", ")
                    )
                } else {
                    format!(
                        "Game {id}: {{0}} offers {what}. {}: `{cmd} accept` or `{cmd} decline`.",
                        slots.join(", ")
                    )
                };
                let mut reply = announce(g.record(), text).mention(actor.id.clone());
                reply.mentions.extend(others);
                Ok(vec![reply.with_action(action)])
            }
            Answer::Decline | Answer::Accept => {
                let Some(o) = pending else {
                    return user(format!("Nobody has offered {what} in game {id}."));
                };
                if o.by_seat == seat {
                    return user(format!("You cannot answer your own offer of {what}."));
                }
                let needed = needed(o.by_seat);
                if !needed.contains(&seat) {
                    return user(format!(
                        "The offer of {what} in game {id} is not yours to answer: you are out."
                    ));
                }
                if answer == Answer::Decline {
                    self.versioned(&g, &GameUpdate::active()).await?;
                    let by = g.record().seats.get(o.by_seat as usize).cloned();
                    let mut reply =
                        announce(g.record(), format!("Game {id}: {{0}} declines {what}."))
                            .mention(actor.id.clone());
                    reply.mentions.extend(by);
                    return Ok(vec![reply]);
                }
                if o.agreed.contains(seat) {
                    return user(format!(
                        "You have agreed to {what} already; it waits for the others."
                    ));
                }
                let agreed = o.agreed.with(seat);
                let waiting: Vec<PlayerId> = needed
                    .iter()
                    .filter(|&&s| !agreed.contains(s))
                    .filter_map(|&s| g.record().seats.get(usize::from(s)).cloned())
                    .collect();
                if !waiting.is_empty() {
                    self.versioned(
                        &g,
                        &GameUpdate {
                            status: GameStatus::Active,
                            pending_offer: Some(Offer { agreed, ..o }),
                            clock: None,
                            tell: Default::default(),
                        },
                    )
                    .await?;
                    let slots: Vec<String> =
                        (1..=waiting.len()).map(|i| format!("{{{i}}}")).collect();
                    let mut reply = announce(
                        g.record(),
                        format!(
                            "Game {id}: {{0}} agrees to {what}. Still waiting for {}: `{cmd} accept` or `{cmd} decline`.",
                            slots.join(", ")
                        ),
                    )
                    .mention(actor.id.clone());
                    reply.mentions.extend(waiting);
                    return Ok(vec![reply.with_action(action)]);
                }
                match kind {
                    OfferKind::Draw => {
                        self.versioned(
                            &g,
                            &GameUpdate::finished(GameResult::Draw, EndReason::Agreement),
                        )
                        .await?;
                        Ok(self
                            .ending(&g, format!("Game {id} is drawn by agreement."), None)
                            .await)
                    }
                    OfferKind::Takeback => self.take_back(&g, o.by_seat).await,
                }
            }
        }
    }

    /// Undoes the requester's last move (and the opponent's reply after it, if any); in a
    /// game of more players, the last move played, whoever played it (a resignation too,
    /// which brings that player back).
    pub(super) async fn take_back(&self, g: &Loaded, requester: u8) -> Outcomes {
        let n = g.record().seats.len();
        let ply = g.record().moves.len();
        let multi = matches!(g, Loaded::Board(b) if crate::seating::is_multi(&b.position));
        // The requester's last move is the last ply index i with i % n == requester.
        let last = if multi {
            // The last move played, with the passes that followed it (the bot played them
            // for the players who had no move; they go with the move that caused them).
            (0..ply).rev().find(|&i| g.record().moves[i] != "pass")
        } else {
            (0..ply).rev().find(|i| i % n == requester as usize)
        };
        let Some(last) = last else {
            return user("There is no move to take back.");
        };
        // The player whose time was running is charged until now; the player to move after
        // the takeback (two seats: the one who played move `last`) runs from now.
        let now_ms = self.clock.now_ms();
        let clock = self.clock_after_takeback(g.record(), ply % n, last % n, now_ms);
        match self
            .store
            .truncate_moves(
                g.record().id,
                g.record().version,
                last,
                &GameUpdate::active().with_clock(clock),
                now_ms.div_euclid(1000),
            )
            .await
        {
            Ok(_) => {}
            Err(StoreError::Conflict { .. }) => {
                return user("The game changed just now; look at the board and try again.");
            }
            Err(e) => return Err(e.into()),
        }
        let Loaded::Board(reloaded) = self.load(g.record().id).await? else {
            return user("There are no takebacks in Through the Looking-Glass.");
        };
        let undone = ply - last;
        let text = format!(
            "Game {}: {} move{} taken back. {{0}} to move.",
            g.record().id,
            undone,
            if undone == 1 { "" } else { "s" }
        );
        let next = reloaded.position.turn().0;
        let mut r = self
            .board_reply(&reloaded, &text, Some(next))
            .in_place(reloaded.record.place.clone());
        r.mentions = vec![reloaded.record.seats[next as usize].clone()];
        if multi {
            // Everyone agreed; everyone hears where the game stands.
            r = r.notify_all(&reloaded.record.seats);
        }
        Ok(vec![r])
    }

    /// The replies that end a game by a command (resignation, agreement, abort): the result
    /// in the game's room, wherever the command was typed, mentioning every player (`first`,
    /// when given, as `{0}`); in Looking-Glass also a private word to each player, whose
    /// conversation with the bot is in his direct chat, and the reveal in the game's room.
    pub(super) async fn ending(
        &self,
        g: &Loaded,
        text: String,
        first: Option<&PlayerId>,
    ) -> Vec<Reply> {
        let mut text = text;
        let page = self.link(g.record().id, &mut text);
        let mut room = announce(g.record(), text);
        room.page = page;
        room.mentions.extend(first.cloned());
        self.note_ratings(g.record().id, &mut room).await;
        let room = room.notify_all(&g.record().seats);
        let mut replies = vec![room.clone()];
        if let Loaded::Glass(glass) = g {
            for p in &g.record().seats {
                let mut private = room.clone();
                private.audience = crate::reply::Audience::Private(p.clone());
                private.place = None;
                private.about = Some(g.record().id);
                private
                    .text
                    .push_str(" Both worlds are revealed in the game's room.");
                replies.push(private);
            }
            replies.push(self.glass_reveal(&glass.record, &glass.game));
        }
        let mut record = g.record().clone();
        if record.status.is_active() {
            // Written already by the caller; the record in hand may be the one before.
            record.status = GameStatus::Aborted;
        }
        tell_each_player(&record, &[], &mut replies);
        replies
    }

    pub(super) async fn abort(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
    ) -> Outcomes {
        let g = self.pick_game(actor, place, game, true).await?;
        if !g.record().status.is_active() {
            return user(format!("Game {} is already over.", g.record().id));
        }
        if let Some(flagged) = self.flagged_now(&g).await? {
            return Ok(flagged);
        }
        // A Looking-Glass record also holds the secret setups: only moves count here.
        let moves = match &g {
            Loaded::Glass(glass) => glass
                .record
                .moves
                .iter()
                .filter(|m| !crate::rules_engine::is_setup_action(m))
                .count(),
            Loaded::Board(board) => board.record.moves.len(),
        };
        let multi = matches!(&g, Loaded::Board(b) if crate::seating::is_multi(&b.position));
        if multi && moves > 0 {
            // Four players: once Red has moved the game has begun for everyone.
            return user(format!(
                "Game {} can no longer be aborted: it has begun (Red has moved, or someone resigned). You can `resign` (the others play on) or offer a `draw`.",
                g.record().id
            ));
        }
        if moves >= g.record().seats.len() {
            return user(format!(
                "Game {} can no longer be aborted: both sides have moved. You can `resign` or offer a `draw`.",
                g.record().id
            ));
        }
        self.versioned(&g, &GameUpdate::ended(GameStatus::Aborted))
            .await?;
        let text = format!("Game {} is aborted by {{0}}.", g.record().id);
        Ok(self.ending(&g, text, Some(&actor.id)).await)
    }
}
