//! Moves on a board game: playing one (durable before it is announced), the announcement,
//! and listing the legal moves.

use super::*;

impl<S: GameStore, C: Clock> GameService<S, C> {
    pub(super) async fn play(
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
            if !g.record().status.is_active() {
                return user(format!("Game {} is over.", g.record().id));
            }
            let g = match g {
                Loaded::Glass(g) => {
                    if let Some(refusal) = glass::secret_said_in_public(&g.record, place, "orders")
                    {
                        return refusal;
                    }
                    return self.glass_order(actor, g, text).await;
                }
                Loaded::Board(g) => g,
            };
            // The move's time: taken once, before anything else, so the flag and the clock
            // charge agree on it.
            let now_ms = self.clock.now_ms();
            let seat = g.record.seat_of(&actor.id);
            let to_move = g.position.turn().0;
            let my_turn = g.record.seats.get(to_move as usize) == Some(&actor.id);
            if !my_turn {
                if seat.is_some() && bot::bot_seats(&g.record).is_some_and(|b| b.plays(to_move)) {
                    // A turn lost (it should not be) is found again by asking.
                    self.wake_bot(g.record.id);
                    return user(format!(
                        "It is the bot's move in game {}; it is thinking. Type `board` to see the position.",
                        g.record.id
                    ));
                }
                return user(match seat {
                    // Out is out: not a turn to wait for (issue 27).
                    Some(s) if g.position.is_out(Side(s)) => format!(
                        "You are out of game {} ({} resigned or was taken out); the others play on. \
                         Type `board` to watch.",
                        g.record.id,
                        Side(s).name(g.record.seats.len())
                    ),
                    Some(_) => format!(
                        "It is not your turn in game {}; {} is to move.",
                        g.record.id,
                        Side(to_move).name(g.record.seats.len())
                    ),
                    None => format!("You are not playing in game {}.", g.record.id),
                });
            }
            // A move at or after the deadline is not played: the player has lost on time.
            match self.flag_if_due(&g, now_ms).await {
                Ok(Some(replies)) => return Ok(replies),
                Ok(None) => {}
                Err(Failure::User(_)) if attempt < RACE_RETRIES => {
                    attempt += 1;
                    continue;
                }
                Err(e) => return Err(e),
            }
            let mv = match notation::parse_move(&g.position, text) {
                Ok(m) => m,
                Err(e) => return user(move_error(&g.position, text, e)),
            };
            if mv.kind == rules::MoveKind::Resign {
                // A resignation typed as a move (`Blue resigns`, `resign:blue`): one's own
                // is `resign`; nobody resigns for another.
                if g.position.resignation(Side(to_move)) == Some(mv) {
                    return self.resign_seat(&g, to_move).await;
                }
                return user("You can resign only for yourself: type `resign`.");
            }
            let san = notation::san(&g.position, mv);
            // The announcement is written with the move (see `commit`), so its board's
            // names are read first.
            let names = self.seat_names(&g.record).await;
            let telling = Telling::answer(actor, place);
            let say = |done: &Committed| {
                let mut reply = self.after_move(done, &san, to_move);
                if let Some(b) = reply.board.as_mut() {
                    b.players = names;
                }
                let mut replies = vec![reply];
                tell_each_player(&done.game.record, &done.out(), &mut replies);
                replies
            };
            match self.commit(&g, mv, now_ms, &telling, say).await {
                Ok((done, mut told)) => {
                    // Durable: the bot may answer (announced after this reply).
                    self.wake_bot_for(&done.game.record);
                    if !done.game.record.status.is_active() {
                        self.amend_with_ratings(&telling, &mut told, done.game.record.id)
                            .await;
                    }
                    return Ok(told.into_iter().map(|e| e.reply).collect());
                }
                Err(Failure::User(_)) if attempt < RACE_RETRIES => {
                    // Someone else changed the game meanwhile: re-read and re-validate.
                    attempt += 1;
                    continue;
                }
                Err(Failure::User(_)) => {
                    return user(
                        "The game changed while your move was being saved; look at the board and try again.",
                    );
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The announcement of a stored move: who played what, and check, the result, or who is
    /// to move next.
    pub(super) fn after_move(&self, done: &Committed, san: &str, mover: u8) -> Reply {
        let g = &done.game;
        let n = g.record.seats.len();
        let head = if n > 2 {
            format!(
                "Game {}: {{0}} ({}) plays {san}.",
                g.record.id,
                Side(mover).name(n)
            )
        } else {
            format!("Game {}: {{0}} plays {san}.", g.record.id)
        };
        self.announce_after(done, head, mover)
    }

    /// Stores move `mv` on game `g` and then the passes of the players it leaves without a
    /// move, each appended after the other on the version the last one made, so that
    /// nothing is acknowledged that is not durable. What `say` makes of the stored game is
    /// posted to the outbox as `telling` says, in the transaction of the last write (the
    /// move's, when nobody passes): the move and its announcement are stored both or
    /// neither. Returns the game and the posted envelopes. A lost race on the move itself is
    /// a [`Failure::User`] the caller may retry on the game read afresh.
    pub(super) async fn commit(
        &self,
        g: &BoardGame,
        mv: rules::Move,
        now_ms: i64,
        telling: &Telling,
        say: impl FnOnce(&Committed) -> Vec<Reply>,
    ) -> Result<(Committed, Vec<Envelope>), Failure> {
        let mut after = g.position.clone();
        let mut texts = vec![notation::coord(&after, mv)];
        after.play_unchecked(mv);
        let mated = after.eliminated_by_last_move();
        let passed = crate::seating::auto_passes(&mut after);
        texts.extend(passed.iter().map(|_| "pass".to_string()));
        // Against the bot, a person out of a game of more seats ends it (see `bot`).
        let status = after.outcome().map_or_else(
            || bot::bot_only_result(&g.record, &after, &mated).unwrap_or(GameStatus::Active),
            finished,
        );
        // The player whose time ran is charged until now and the next player's time runs
        // from now; a player who passes has no time to be charged. When the turn stays (a
        // four-player resignation by someone not to move) the clock is left alone.
        let (runner, next) = (g.position.turn().index(), after.turn().index());
        let clock = if runner != next || status != GameStatus::Active {
            self.clock_after(&g.record, runner, next, now_ms)
        } else {
            None
        };
        // The game as it will be once stored: what the announcement is made of.
        let mut record = g.record.clone();
        record.moves.extend(texts.iter().cloned());
        record.status = status.clone();
        record.version = g.record.version + texts.len() as i64;
        if clock.is_some() {
            record.clock = clock.clone();
        }
        let done = Committed {
            game: BoardGame {
                record,
                position: after,
            },
            mated,
            passed,
        };
        let mut replies = say(&done);
        let tell = self.tell(telling, &mut replies);
        let told = tell.envelopes.clone();
        let mut last = Some(GameUpdate {
            status,
            pending_offer: None,
            clock,
            tell,
        });
        let mut version = g.record.version;
        for (i, text) in texts.iter().enumerate() {
            let update = if i + 1 == texts.len() {
                last.take().unwrap_or_else(GameUpdate::active)
            } else {
                GameUpdate::active()
            };
            version = match self
                .store
                .append_move(g.record.id, version, text, &update, now_ms.div_euclid(1000))
                .await
            {
                Ok(v) => v,
                Err(StoreError::Conflict { .. }) => {
                    return user("The game changed just now; look at the board and try again.");
                }
                Err(e) => return Err(e.into()),
            };
        }
        debug_assert_eq!(version, done.game.record.version);
        self.memo.keep_engine(
            g.record.id,
            version,
            GameEngine::Board(done.game.position.clone()),
        );
        if telling.origin == Origin::Unasked && !told.is_empty() {
            self.mail.signal.notify_waiters();
        }
        Ok((done, told))
    }

    /// What follows a stored move or resignation (`head`, whose `{0}` is the seat `mover`):
    /// the players it put out, then the result, or check and who is to move next; with the
    /// board, in the game's room, mentioning everyone named.
    pub(super) fn announce_after(&self, done: &Committed, head: String, mover: u8) -> Reply {
        let g = &done.game;
        let n = g.record.seats.len();
        let next = g.position.turn().0 as usize;
        let mut text = head;
        let mut mentions = vec![g.record.seats[usize::from(mover)].clone()];
        // The slot of a seat's player in the text, mentioning him once.
        let slot = |seat: usize, mentions: &mut Vec<PlayerId>| -> String {
            let p = &g.record.seats[seat];
            let i = mentions.iter().position(|m| m == p).unwrap_or_else(|| {
                mentions.push(p.clone());
                mentions.len() - 1
            });
            format!("{{{i}}}")
        };
        // The players this move put out, each with his colour.
        let mut mated = Vec::new();
        if n > 2 {
            for &side in &done.mated {
                if side.0 == mover || side.index() >= n {
                    continue;
                }
                let who = slot(side.index(), &mut mentions);
                mated.push(format!("{who} ({})", side.name(n)));
            }
        }
        if g.record.status.is_active() {
            for m in &mated {
                text.push_str(&format!(" {m} is checkmated and out."));
            }
            for &side in &done.passed {
                let who = slot(side.index(), &mut mentions);
                text.push_str(&format!(
                    " {who} ({}) has no move and passes.",
                    side.name(n)
                ));
            }
        }
        match &g.record.status {
            GameStatus::Finished {
                result: GameResult::Win(winner),
                reason,
            } if n > 2 => {
                // The last checkmate (or the last opponent's resignation) ends the game.
                let who = slot(usize::from(*winner), &mut mentions);
                let beaten = if mated.is_empty() {
                    String::new()
                } else {
                    format!(" checkmates {} and", mated.join(" and "))
                };
                let left = if g.position.remaining().len() > 1 {
                    // The person is out of a game against the bot (`bot::bot_only_result`).
                    "the bot holds every seat still in, so the game ends"
                } else {
                    "the last player left"
                };
                text.push_str(&format!(
                    " {} — {who} ({}){beaten} wins, {left}.",
                    reason.headline(),
                    Side(*winner).name(n)
                ));
            }
            GameStatus::Finished {
                result: GameResult::Win(winner),
                reason,
            } => {
                // The mover usually wins (mate, stalemate as a loss, the capture goal, baring
                // the other King are given by the move itself) and the side now to move is
                // beaten; but a bare King that did not bare the other loses by its own move,
                // and then the side to move wins. Both are named.
                let winner = usize::from(*winner);
                let loser = if winner == next {
                    usize::from(mover)
                } else {
                    next
                };
                let who = slot(winner, &mut mentions);
                let beaten = slot(loser, &mut mentions);
                text.push_str(&format!(
                    " {} — {who} ({}) beats {beaten} ({}).",
                    reason.headline(),
                    Side(winner as u8).name(n),
                    Side(loser as u8).name(n)
                ));
            }
            GameStatus::Finished {
                result: GameResult::Draw,
                reason,
            } => {
                text.push_str(&format!(" Draw by {}.", reason.describe()));
            }
            GameStatus::Active | GameStatus::Aborted => {
                if g.position.is_check() {
                    text.push_str(" Check!");
                }
                let who = slot(next, &mut mentions);
                if n > 2 {
                    text.push_str(&format!(" {who} ({}) to move.", Side(next as u8).name(n)));
                } else {
                    text.push_str(&format!(" {who} to move."));
                }
            }
        }
        let page = if g.record.status.is_active() {
            None
        } else {
            self.link(g.record.id, &mut text)
        };
        let mut r = self
            .board_reply(g, &text, Some(next as u8))
            .in_place(g.record.place.clone());
        r.mentions = mentions;
        r.page = page;
        if !g.record.status.is_active() {
            r = r.notify_all(&g.record.seats);
        }
        r
    }

    pub(super) async fn list_moves(
        &self,
        actor: &Actor,
        place: &Place,
        game: Option<GameId>,
        from: Option<String>,
    ) -> Outcomes {
        let g = match self.pick_game(actor, place, game, false).await? {
            Loaded::Glass(g) => return self.glass_moves(actor, &g, from.as_deref()),
            Loaded::Board(g) => g,
        };
        let geo = &g.position.variant().geometry;
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
        let legal = g.position.legal_moves();
        let moves: Vec<String> = legal
            .iter()
            .filter(|m| from_cell.is_none_or(|c| m.from == c))
            .map(|m| notation::san_among(&g.position, *m, &legal))
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
}

/// A move stored with the passes that followed it: the game as it now stands, who the move
/// checkmated (and put out), and who then passed.
pub(super) struct Committed {
    /// The game after the move and the passes.
    pub(super) game: BoardGame,
    /// The sides the move checkmated.
    pub(super) mated: Vec<Side>,
    /// The sides that had no move and passed, in order.
    pub(super) passed: Vec<Side>,
}

impl Committed {
    /// The players the move put out (checkmated in a game of more than two).
    pub(super) fn out(&self) -> Vec<PlayerId> {
        let seats = &self.game.record.seats;
        self.mated
            .iter()
            .filter_map(|s| seats.get(s.index()).cloned())
            .collect()
    }
}

/// The status a board engine's outcome gives the game.
pub(super) fn finished(o: Outcome) -> GameStatus {
    use rules::{DrawReason, WinReason};
    let (result, reason) = match o {
        Outcome::Win { winner, reason } => (
            GameResult::Win(winner.0),
            match reason {
                WinReason::Checkmate => EndReason::Checkmate,
                WinReason::Captures => EndReason::Captures,
                // The last opponent of a four-player game resigned (his resignation move).
                WinReason::Resignation => EndReason::Resignation,
                // Courier: the stalemated side loses, and so does a bare King.
                WinReason::Stalemate => EndReason::Stalemate,
                WinReason::BareKing => EndReason::BareKing,
            },
        ),
        Outcome::Draw(r) => (
            GameResult::Draw,
            match r {
                DrawReason::Stalemate => EndReason::Stalemate,
                DrawReason::Repetition => EndReason::Repetition,
                DrawReason::FiftyMoves => EndReason::FiftyMoves,
                DrawReason::InsufficientMaterial => EndReason::InsufficientMaterial,
                DrawReason::BareKings => EndReason::BareKing,
            },
        ),
    };
    GameStatus::Finished { result, reason }
}

/// A refusal for a move text, with "did you mean" for near misses.
fn move_error(pos: &Position, text: &str, e: notation::MoveTextError) -> String {
    use notation::MoveTextError as E;
    match e {
        E::Unknown { .. } => {
            let legal = pos.legal_moves();
            let sans: Vec<String> = legal
                .iter()
                .map(|m| notation::san_among(pos, *m, &legal))
                .collect();
            let coords: Vec<String> = legal
                .iter()
                .map(|m| notation::coord_among(pos, *m, &legal))
                .collect();
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

#[cfg(test)]
mod tests {
    use rules::{DrawReason, Outcome, Side, WinReason};

    use super::finished;
    use crate::model::{EndReason, GameResult, GameStatus};

    #[test]
    fn every_rules_outcome_has_its_end_reason() {
        let win = |reason| Outcome::Win {
            winner: Side(1),
            reason,
        };
        for (o, result, reason) in [
            (
                win(WinReason::Checkmate),
                GameResult::Win(1),
                EndReason::Checkmate,
            ),
            (
                win(WinReason::Stalemate),
                GameResult::Win(1),
                EndReason::Stalemate,
            ),
            (
                win(WinReason::BareKing),
                GameResult::Win(1),
                EndReason::BareKing,
            ),
            (
                Outcome::Draw(DrawReason::BareKings),
                GameResult::Draw,
                EndReason::BareKing,
            ),
            (
                Outcome::Draw(DrawReason::InsufficientMaterial),
                GameResult::Draw,
                EndReason::InsufficientMaterial,
            ),
        ] {
            assert_eq!(
                finished(o),
                GameStatus::Finished { result, reason },
                "{o:?}"
            );
        }
        assert_eq!(EndReason::BareKing.as_str(), "bare-king");
        assert_eq!(
            format!("Draw by {}.", EndReason::BareKing.describe()),
            "Draw by the bare King rule."
        );
    }
}
