//! Through the Looking-Glass in the service: secret setups, orders, reports by private
//! message, the free "ask", and the reveal at the end.
//!
//! The rules engine (`rules::glass`) is the referee and decides every secret: the game's
//! room gets only [`rules::glass::Public`] facts, each player privately gets exactly the
//! [`rules::glass::Fact`]s the engine told him and a picture of his
//! [`rules::glass::PlayerView`]. The store keeps the game as every other: the record's move
//! list holds the actions (`w setup RNBQKBNR`, `w R:e2e4`, strikes included), and the game is
//! replayed from it, so a restart loses nothing.

use rules::glass::{
    self, BackRank, Glass, GlassOutcome, GlassRules, Phase, Refusal, Report, describe,
    describe_public, world_of,
};

use super::{Failure, GameService, GlassGame, Loaded, Outcomes, RACE_RETRIES, user};
use crate::{
    model::{GameRecord, GameStatus, GameUpdate, Place, PlayerId},
    reply::{BoardPicture, Reply},
    rules_engine::{EngineKind, GameEngine, GameKind},
    service::{Actor, Clock},
    store::{GameStore, StoreError},
};
use rules::Side;

/// A refusal when a player types secret input (his back rank, his orders) in a room other than
/// his direct chat with the bot, on a platform where everyone in a room reads commands: the
/// game's room, where acting on it would confirm to the opponent what he just read, or any
/// other room, where the opponent or his friends may be reading. Nothing is stored; the player
/// is told where to send it.
pub(crate) fn secret_said_in_public(
    record: &GameRecord,
    place: &Place,
    what: &str,
) -> Option<Outcomes> {
    let public = place.platform.commands_are_public() && !place.private;
    public.then(|| {
        user(format!(
            "Game {}: your {what} are secret in Through the Looking-Glass, and everyone in this \
             room reads what you type here. I did nothing with it: send it to me in our direct \
             chat instead (no prefix needed there).",
            record.id
        ))
    })
}

/// The rules help of the game.
pub(crate) fn rules_text(rules: GlassRules) -> String {
    format!(
        "{} — two 8x8 worlds: White sees only the Real world (R:), Black only the Mirror (M:). \
         Each player secretly chooses a Chess960 back rank (`setup 518`, `setup RNBQKBNR` or \
         `setup random`, in a private message to me). Pieces move as in chess on the world where \
         they stand; after a move, a piece falls to the same square of the other world if it is \
         empty. Give orders as squares: `e2e4` on your world, `M:e2e4` / `R:e2e4` on a named \
         world. Orders for the world you cannot see are carried out as far as possible (a slide \
         stops on its first capture or before your own piece; a blocked two-step becomes one \
         step); an impossible one is a strike{}. There is no check: capturing the King wins; \
         no move on either world is stalemate. `ask` tells you privately whether you have a \
         move on the other world. Everything secret comes to you by private message; the room \
         sees only whose turn it is, strikes, captures and the result. Source: \
         https://www.chessvariants.com/rules/through-the-looking-glass (Paolo, 2016); our \
         readings are in the rulebook (looking-glass.md).",
        GameKind::Glass(rules).display_name(),
        if rules.no_strikes {
            " — no: under this form an impossible order loses your turn, and your opponent \
             chooses your move (`move` as usual, for your army)"
        } else {
            " (the third loses)"
        }
    )
}

/// The world a seat sees, by name.
fn world_name(side: Side) -> &'static str {
    if world_of(side) == glass::REAL {
        "the Real world (R:)"
    } else {
        "the Mirror world (M:)"
    }
}

/// The seat whose clock runs: in the setup, White until he has chosen his back rank, then
/// Black until he has (the two choose at once, but a clock runs for one player: so each is
/// charged for his own choice, as if they chose in turn); in play, the player who must act
/// (in the no-strikes form, the one choosing a move for the other army). A strike or an
/// `ask` does not pass the turn, so his clock runs on.
pub(super) fn clock_runner(game: &Glass) -> usize {
    match game.phase() {
        Phase::Setup(chosen) => usize::from(chosen[0]),
        Phase::Play | Phase::Over(_) => game.turn().index(),
    }
}

/// The status a Looking-Glass outcome gives the game.
fn result_of(o: GlassOutcome) -> GameStatus {
    use crate::model::{EndReason, GameResult};
    let (result, reason) = match o {
        GlassOutcome::KingCaptured { winner } => {
            (GameResult::Win(winner.0), EndReason::KingCaptured)
        }
        GlassOutcome::Strikes { winner } => (GameResult::Win(winner.0), EndReason::ThirdStrike),
        GlassOutcome::Stalemate => (GameResult::Draw, EndReason::Stalemate),
        GlassOutcome::Repetition => (GameResult::Draw, EndReason::Repetition),
        GlassOutcome::FiftyMoves => (GameResult::Draw, EndReason::FiftyMoves),
    };
    GameStatus::Finished { result, reason }
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// The game's creation on acceptance, and the invitations to choose a back rank.
    pub(super) async fn glass_start(
        &self,
        challenge: crate::model::ChallengeRecord,
        rules: GlassRules,
        actor: &Actor,
        seats: Vec<PlayerId>,
        now_ms: i64,
    ) -> Outcomes {
        let name = GameKind::Glass(rules).display_name().to_string();
        let start = Glass::with_variant(self.glass.clone(), rules).state_text();
        let game = self
            .open_game(&challenge, actor, seats.clone(), start, now_ms)
            .await?;
        // Stored: a bot seated here chooses its back rank (announced after these replies).
        self.wake_bot_for(&game);
        let id = game.id;
        let mut starts = format!(
            "Game {id} starts: {} — {{0}} (White, sees the Real world) against {{1}} (Black, sees the Mirror world). Each of you now chooses a back rank in secret: I have written to you privately.",
            name
        );
        let page = self.link(id, &mut starts);
        let mut start = Reply::room(starts)
            .mention(seats[0].clone())
            .mention(seats[1].clone());
        start.page = page;
        let mut replies = vec![start];
        for (i, p) in seats.iter().enumerate() {
            let side = Side(i as u8);
            replies.push(Reply::private(
                p.clone(),
                format!(
                    "Game {id}, {}: you play {} and see {}. Choose your back rank here: `setup 518` (a Chess960 number, 518 is the orthodox row), `setup RNBQKBNR` (Bishops on opposite colours, King between the Rooks), or `setup random`. Your opponent will not see it.",
                    name,
                    side.name(2),
                    world_name(side),
                ),
            )
            .about(id));
        }
        Ok(self.not_to_the_bot(replies))
    }

    /// Drops the private replies addressed to the bot itself: its board and reports are
    /// its own, nobody is to read them (and a platform cannot deliver a message from the
    /// bot to itself). The bot learns what it was told from the referee, as a person does
    /// from these messages.
    fn not_to_the_bot(&self, mut replies: Vec<Reply>) -> Vec<Reply> {
        replies.retain(|r| match &r.audience {
            crate::reply::Audience::Private(p) => self.bot_user(p.platform) != Some(p.clone()),
            _ => true,
        });
        replies
    }

    /// `setup CHOICE`: a player's secret back rank.
    pub(super) async fn glass_setup(&self, actor: &Actor, g: GlassGame, choice: &str) -> Outcomes {
        let Some(seat) = g.record.seat_of(&actor.id) else {
            return user(format!("You are not playing in game {}.", g.record.id));
        };
        let side = Side(seat);
        let rank = if choice.eq_ignore_ascii_case("random") {
            BackRank::from_number(self.chance.below(960)).unwrap_or_else(|_| BackRank::orthodox())
        } else {
            match BackRank::parse(choice) {
                Ok(r) => r,
                Err(e) => {
                    return Ok(vec![Reply::private(
                        actor.id.clone(),
                        format!("{e}. Or type `setup random`."),
                    )]);
                }
            }
        };
        if g.game.phase() == Phase::Play {
            // Refused before anything else: a refusal confirms nothing (issue 27).
            return Ok(vec![Reply::private(
                actor.id.clone(),
                format!(
                    "Game {}: the back ranks are chosen already and the game is under way, so I \
                     changed nothing. Give orders instead, such as `{}` (`board` shows your world).",
                    g.record.id,
                    if side == Side::WHITE { "e2e4" } else { "e7e5" }
                ),
            )]);
        }
        let confirm = format!(
            "Your back rank is {} (Chess960 number {}). Only you know it.",
            rank.letters(),
            rank.number()
        );
        self.glass_act(actor, g, Some(confirm), move |game| {
            game.choose(side, rank.clone())
        })
        .await
    }

    /// An order (a move text) in a Looking-Glass game.
    pub(super) async fn glass_order(&self, actor: &Actor, g: GlassGame, text: &str) -> Outcomes {
        let Some(seat) = g.record.seat_of(&actor.id) else {
            return user(format!("You are not playing in game {}.", g.record.id));
        };
        let side = Side(seat);
        let text = text.to_string();
        self.glass_act(actor, g, None, move |game| game.order(side, &text))
            .await
    }

    /// Applies one action, stores it (durable before any reply), and words the reports,
    /// after `confirm` (a private line to the actor) when the action was stored: a refused
    /// action confirms nothing.
    async fn glass_act(
        &self,
        actor: &Actor,
        mut g: GlassGame,
        confirm: Option<String>,
        act: impl Fn(&mut Glass) -> Result<Report, Refusal>,
    ) -> Outcomes {
        let mut attempt = 0;
        loop {
            if !g.record.status.is_active() {
                return user(format!("Game {} is over.", g.record.id));
            }
            // The action's time, taken once: the flag and the clock's charge agree on it.
            let now_ms = self.clock.now_ms();
            if Self::clock_of(&g.record).is_some_and(|(_, c)| c.is_flagged(now_ms)) {
                // Whoever acts, the player whose time ran out has lost on time first.
                if let Some(replies) = self.glass_flag(&g, now_ms).await? {
                    return Ok(replies);
                }
                g = match self.load(g.record.id).await? {
                    Loaded::Glass(g) => g,
                    Loaded::Board(_) => return user("The game changed just now; try again."),
                };
                continue;
            }
            let mut game = g.game.clone();
            let report = match act(&mut game) {
                Ok(r) => r,
                // Refusals can concern the player's own world: privately.
                Err(e) => {
                    return Ok(vec![Reply::private(
                        actor.id.clone(),
                        format!("Game {}: {e}", g.record.id),
                    )]);
                }
            };
            match self.glass_store(&g, &game, &report, now_ms).await? {
                Some(mut replies) => {
                    if let Some(line) = confirm {
                        replies.insert(0, Reply::private(actor.id.clone(), line));
                    }
                    return Ok(replies);
                }
                None if attempt < RACE_RETRIES => {
                    attempt += 1;
                    g = match self.load(g.record.id).await? {
                        Loaded::Glass(g) => g,
                        Loaded::Board(_) => {
                            return user(
                                "The game changed while your order was being saved; try again.",
                            );
                        }
                    };
                }
                None => {
                    return user("The game changed while your order was being saved; try again.");
                }
            }
        }
    }

    /// Stores one action applied to `game` (the game `g` as loaded, plus that action) at
    /// `now_ms` (its clock charged if the turn passed), with `g`'s version as the expected
    /// one, durable before any reply; then words the reports
    /// and wakes the bot if it plays here. `Ok(None)` when the game changed meanwhile (the
    /// caller decides whether to apply its action again or drop it).
    pub(super) async fn glass_store(
        &self,
        g: &GlassGame,
        game: &Glass,
        report: &Report,
        now_ms: i64,
    ) -> Result<Option<Vec<Reply>>, Failure> {
        let status = match report.outcome {
            Some(o) => result_of(o),
            None => GameStatus::Active,
        };
        // The clock moves on only when the turn passes to the other player.
        let (runner, next) = (clock_runner(&g.game), clock_runner(game));
        let clock = (report.outcome.is_none() && runner != next)
            .then(|| self.clock_after(&g.record, runner, next, now_ms))
            .flatten();
        let update = GameUpdate {
            status: status.clone(),
            pending_offer: None,
            clock: clock.clone(),
            tell: Default::default(),
        };
        match self
            .store
            .append_move(
                g.record.id,
                g.record.version,
                &report.action,
                &update,
                now_ms.div_euclid(1000),
            )
            .await
        {
            Ok(version) => self.memo.keep_engine(
                g.record.id,
                version,
                GameEngine::Glass(Box::new(game.clone())),
            ),
            Err(StoreError::Conflict { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let mut record = g.record.clone();
        record.moves.push(report.action.clone());
        record.status = status;
        if clock.is_some() {
            record.clock = clock;
        }
        let mut replies = self.glass_replies(&record, game, report);
        if report.outcome.is_some()
            && let Some(room) = replies.first_mut()
        {
            self.note_ratings(record.id, room).await;
        }
        // Durable: the bot may answer (announced after these replies).
        self.wake_bot_for(&record);
        Ok(Some(replies))
    }

    /// The replies to one action: the public part to the game's room, each player's facts
    /// and board privately, and the reveal when the game ended.
    fn glass_replies(&self, record: &GameRecord, game: &Glass, report: &Report) -> Vec<Reply> {
        let v = game.variant();
        let id = record.id;
        let mut replies = Vec::new();
        let mut public: Vec<String> = report
            .public
            .iter()
            .map(|f| describe_public(v, f))
            .collect();
        let mut mentions = Vec::new();
        match (game.phase(), report.outcome) {
            (_, Some(o)) => public.push(self.glass_result_line(o)),
            (Phase::Play, None) => {
                public.push("{0} to move.".into());
                mentions.push(record.seats[game.turn().index()].clone());
            }
            _ => {}
        }
        let mut room =
            Reply::room(format!("Game {id}: {}", public.join(" "))).in_place(record.place.clone());
        room.mentions = mentions;
        if report.outcome.is_some() {
            // The result concerns both players, wherever the deciding order was typed.
            room = room.notify_all(&record.seats);
        }
        replies.push(room);
        let started = report.public.contains(&glass::Public::Started);
        for i in 0..record.seats.len().min(2) {
            let side = Side(i as u8);
            let facts = &report.told[i];
            if facts.is_empty() && !started && report.outcome.is_none() {
                continue;
            }
            let mut lines: Vec<String> = facts.iter().map(|f| describe(v, side, f)).collect();
            if started {
                lines.push(format!(
                    "The game begins. You see {}; put {} in front of the squares of an order for the other world.",
                    world_name(side),
                    if world_of(side) == glass::REAL { "M:" } else { "R:" }
                ));
            }
            if let Some(o) = report.outcome {
                // Every ending reaches each player's private channel too, as a resignation,
                // a draw, an abort and a flag do (`ending`): he may read only that.
                lines.push(format!(
                    "{} Both worlds are revealed in the game's room.",
                    self.glass_result_line(o)
                ));
            } else if game.phase() == Phase::Play {
                lines.push(if game.turn() == side {
                    if game.is_forced() {
                        format!(
                            "Your turn: choose a move for {}'s army.",
                            glass::other(side).name(2)
                        )
                    } else {
                        "Your turn.".to_string()
                    }
                } else {
                    "Your opponent's turn.".to_string()
                });
            }
            replies.push(self.glass_private_board(record, game, side, &lines.join("\n")));
        }
        if report.outcome.is_some() {
            replies.push(self.glass_reveal(record, game));
        }
        self.not_to_the_bot(replies)
    }

    fn glass_result_line(&self, o: GlassOutcome) -> String {
        match o {
            GlassOutcome::KingCaptured { winner } => {
                format!("The King is captured — {} wins.", winner.name(2))
            }
            GlassOutcome::Strikes { winner } => format!("Third strike — {} wins.", winner.name(2)),
            other => format!("Draw by {}.", other.reason()),
        }
    }

    /// One player's private board: his world, his pieces elsewhere, strikes and captures.
    pub(super) fn glass_private_board(
        &self,
        record: &GameRecord,
        game: &Glass,
        side: Side,
        text: &str,
    ) -> Reply {
        let view = game.view(side);
        Reply::private(
            record.seats[side.index()].clone(),
            format!("Game {} (you see {}):\n{text}", record.id, world_name(side)),
        )
        .with_board(BoardPicture {
            game: Some(record.id),
            diagram: None,
            engine: EngineKind::Glass,
            variant: record.variant.clone(),
            state: view.text(game.variant()),
            last_move: None,
            viewer: Some(side.0),
            players: Vec::new(),
            clock: self.clock_line(record, clock_runner(game)),
        })
    }

    /// The whole game for everybody: both worlds, both back ranks, every action.
    pub(super) fn glass_reveal(&self, record: &GameRecord, game: &Glass) -> Reply {
        let mut s = format!(
            "Game {} is over — both worlds revealed. White's back rank: {}; Black's: {}.\nEvery action:",
            record.id,
            game.setup(Side::WHITE)
                .map_or("-".into(), |r| r.to_string()),
            game.setup(Side::BLACK)
                .map_or("-".into(), |r| r.to_string()),
        );
        for (i, a) in record.moves.iter().enumerate() {
            s.push_str(&format!("\n{}. {a}", i + 1));
        }
        let mut page = None;
        if self.public_url.is_some() {
            s.push('\n');
            page = self.link(record.id, &mut s);
        }
        let mut reply = Reply::room(s);
        reply.page = page;
        reply
            .in_place(record.place.clone())
            .with_board(BoardPicture {
                game: Some(record.id),
                diagram: None,
                engine: EngineKind::Glass,
                variant: record.variant.clone(),
                state: game.state_text(),
                last_move: None,
                viewer: None,
                players: Vec::new(),
                clock: None,
            })
    }

    /// `board`: a player gets his own view privately; anyone else the public status.
    pub(super) fn glass_board(&self, actor: &Actor, g: &GlassGame) -> Outcomes {
        let game = &g.game;
        if !g.record.status.is_active() {
            return Ok(vec![self.glass_reveal(&g.record, game)]);
        }
        match g.record.seat_of(&actor.id) {
            Some(seat) => Ok(vec![self.glass_private_board(
                &g.record,
                game,
                Side(seat),
                &self.glass_status(game),
            )]),
            None => Ok(vec![Reply::room(format!(
                "Game {}: {}",
                g.record.id,
                self.glass_status(game)
            ))]),
        }
    }

    /// Public status: phase, whose turn, strikes, captures.
    fn glass_status(&self, game: &Glass) -> String {
        let v = game.variant();
        let view = game.view(Side::WHITE);
        let taken = |s: usize| {
            if view.captured[s].is_empty() {
                "nothing".to_string()
            } else {
                view.captured[s]
                    .iter()
                    .map(|k| v.piece(*k).name.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        let phase = match game.phase() {
            Phase::Setup(chosen) => format!(
                "choosing back ranks (White {}, Black {}).",
                if chosen[0] {
                    "has chosen"
                } else {
                    "has not chosen"
                },
                if chosen[1] {
                    "has chosen"
                } else {
                    "has not chosen"
                }
            ),
            Phase::Play if game.is_forced() => format!(
                "{} chooses {}'s move.",
                game.turn().name(2),
                glass::other(game.turn()).name(2)
            ),
            Phase::Play => format!("{} to move.", game.turn().name(2)),
            Phase::Over(o) => format!("over ({}).", o.reason()),
        };
        format!(
            "{phase} Strikes: White {}, Black {}. White has captured {}; Black has captured {}.",
            game.strikes()[0],
            game.strikes()[1],
            taken(0),
            taken(1)
        )
    }

    /// `ask`: is there a legal move on the world the player cannot see? Yes or no, privately.
    pub(super) fn glass_ask(&self, actor: &Actor, g: &GlassGame) -> Outcomes {
        let Some(seat) = g.record.seat_of(&actor.id) else {
            return user(format!("You are not playing in game {}.", g.record.id));
        };
        let game = &g.game;
        if game.phase() != Phase::Play {
            return user(format!("Game {} is not in play.", g.record.id));
        }
        let side = Side(seat);
        let army = if game.is_forced() && game.turn() == side {
            glass::other(side)
        } else {
            side
        };
        let other_world = 1 - world_of(side);
        let yes = game.has_move_on(army, other_world);
        let who = if army == side {
            "you have".to_string()
        } else {
            format!("{}'s army has", army.name(2))
        };
        Ok(vec![Reply::private(
            actor.id.clone(),
            format!(
                "Game {}: {} — {who} {} legal move on the world you cannot see.",
                g.record.id,
                if yes { "yes" } else { "no" },
                if yes { "a" } else { "no" },
            ),
        )])
    }

    /// `moves [SQUARE]`: the legal moves on the player's own world, privately; with a
    /// square (of his world, `e2` or with its world's letter), that square's only.
    pub(super) fn glass_moves(&self, actor: &Actor, g: &GlassGame, from: Option<&str>) -> Outcomes {
        let Some(seat) = g.record.seat_of(&actor.id) else {
            return user("The moves of a Looking-Glass game are secret to its players.");
        };
        let game = &g.game;
        let id = g.record.id;
        let side = Side(seat);
        let army = if game.is_forced() && game.turn() == side {
            glass::other(side)
        } else {
            side
        };
        let mine = world_of(side);
        let mut moves = game.moves_on(army, mine);
        let mut whence = "on your world".to_string();
        if let Some(from) = from {
            let letter = if mine == glass::REAL { "R" } else { "M" };
            let name = match from.split_once(':') {
                Some((w, sq)) => format!("{}:{}", w.to_ascii_uppercase(), sq.to_ascii_lowercase()),
                None => format!("{letter}:{}", from.to_ascii_lowercase()),
            };
            let geo = &game.variant().geometry;
            let Some(cell) = geo.parse(&name) else {
                return Ok(vec![Reply::private(
                    actor.id.clone(),
                    format!(
                        "Game {id}: {} is not a square. Type `moves` for every move on your \
                         world, or `moves e2` for one square's.",
                        rules::quote::quote(from)
                    ),
                )]);
            };
            if game.world(cell) != mine {
                return Ok(vec![Reply::private(
                    actor.id.clone(),
                    format!(
                        "Game {id}: {name} is on the world you cannot see, so I cannot list its \
                         moves. `moves` lists those on your world ({letter}:); `ask` tells you \
                         whether you have a move on the other one."
                    ),
                )]);
            }
            let king = game.variant().kind_by_letter('K');
            let is_king = game
                .piece_at(cell)
                .is_some_and(|p| p.side == army && Some(p.kind) == king);
            moves.retain(|m| m.starts_with(&name) || (is_king && m.starts_with("O-O")));
            whence = format!("from {name}");
        }
        Ok(vec![Reply::private(
            actor.id.clone(),
            if moves.is_empty() {
                format!("Game {id}: no legal move {whence} (try `ask` for the other world).")
            } else {
                format!(
                    "Game {id}: {} legal move{} {whence}: {}",
                    moves.len(),
                    if moves.len() == 1 { "" } else { "s" },
                    moves.join(" ")
                )
            },
        )])
    }

    /// `history` / `export`: the whole game once it is over; secret before.
    pub(super) fn glass_history(&self, g: &GlassGame) -> Outcomes {
        if g.record.status.is_active() {
            return user(format!(
                "Game {} is a hidden-information game: its moves are revealed to everybody when it ends. Your own reports came by private message; `board` shows your world.",
                g.record.id
            ));
        }
        let game = &g.game;
        let mut r = self.glass_reveal(&g.record, game);
        r.board = None;
        r.place = None;
        r.audience = crate::reply::Audience::Actor;
        Ok(vec![r])
    }
}
