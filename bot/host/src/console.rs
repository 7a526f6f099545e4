//! The local console: play without any chat platform, on the same service and store.
//!
//! Two local players, `alice` and `bob`, share the keyboard (each command is given by the
//! player whose turn it is; their names are not colours, which would clash with the sides
//! they play: `alice` takes White in `play chess` and plays the bot on the side she chooses),
//! or `--as NAME` makes every command come from one player, so two
//! terminals on one database can play each other. Boards are printed as text and written as
//! PNG files.
//!
//! Privacy: the shared-keyboard console prints every reply, labelling private ones
//! (`[to bob only] ...`): both players sit at it. A named console prints only what its
//! player may see; what belongs to another player (his private lines and pictures, and the
//! announcements of the shared `console` room) goes to that player's mailbox
//! ([`crate::mailbox`]), which his console prints.
//!
//! Against the bot (`play chess vs bot`, `play dcb-balanced-4p vs bot`): the bot is the
//! console player [`bot_core::opponent::CONSOLE_NAME`], at every seat but the keyboard's in
//! a four-player form; the keyboard never acts for it, and its moves arrive as announcements
//! ([`bot_core::outbox`]), printed (and passed on) as they come, like a command's replies.

use std::{
    io::Write,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use bot_core::{
    Actor, Clock, GameService,
    command::{Answer, Command},
    model::{GameRecord, Place, Platform, PlayerId},
    reply::{Audience, Reply},
    store::{GameFilter, GameStore},
};

use crate::{
    input::{self, Input},
    mailbox::{self, Mailboxes},
    shutdown::Shutdown,
};

/// How often a named console looks for mail while it waits for input.
const MAIL_POLL: Duration = Duration::from_millis(200);

/// What the console needs besides the service.
pub struct Console<S, C> {
    service: Arc<GameService<S, C>>,
    place: Place,
    fixed: Option<String>,
    boards_dir: PathBuf,
    mailboxes: Mailboxes,
    /// What the service says without a command (the bot's moves), when this console drains it.
    announcements: Option<bot_core::outbox::Announcements>,
    renderer: render::Renderer,
    theme: render::Theme,
    size: u32,
}

/// The challenge a `challenge` command opened, from its answer's Accept/Decline action (data,
/// not the reply's English); `None` when it was refused.
fn opened_challenge(replies: &[Reply]) -> Option<i64> {
    replies.iter().find_map(|r| {
        r.actions.iter().find_map(|a| match a {
            bot_core::reply::Action::AnswerChallenge(id) => Some(*id),
            _ => None,
        })
    })
}

/// The two local players of a two-player game at one keyboard; the first also plays the bot.
const LOCAL: [&str; 2] = ["alice", "bob"];

/// The local players of a four-player game at one keyboard, Red, Blue, Yellow and Green.
const LOCAL_FOUR: [&str; 4] = ["red", "blue", "yellow", "green"];

fn local(name: &str) -> Actor {
    Actor::new(PlayerId::new(Platform::Console, name), name)
}

/// A player's name as the console prints it: no control characters (a name is not a
/// terminal escape), no direction overrides (issue 27).
fn shown(name: &str) -> String {
    bot_core::quote::display_name(name).unwrap_or_else(|| "player".into())
}

/// Writes a file readable by its owner only (a player's private picture in the shared data
/// directory), also when it existed before with wider permissions.
async fn write_private(path: &Path, bytes: Vec<u8>) -> std::io::Result<()> {
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&path)?;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        f.write_all(&bytes)
    })
    .await
    .map_err(std::io::Error::other)?
}

/// Where one rendered reply goes.
enum Route {
    /// Printed here.
    Here,
    /// Printed here and put in the mailboxes of these other players.
    HereAndTo(Vec<String>),
    /// Only in this player's mailbox.
    To(String),
}

impl<S: GameStore + 'static, C: Clock + 'static> Console<S, C> {
    /// A console session over a service.
    pub fn new(
        service: Arc<GameService<S, C>>,
        fixed: Option<String>,
        data_dir: &Path,
        theme: render::Theme,
        size: u32,
    ) -> Self {
        Console {
            service,
            place: Place::room(Platform::Console, "console"),
            fixed,
            boards_dir: data_dir.join("boards"),
            mailboxes: Mailboxes::new(data_dir),
            announcements: None,
            renderer: render::Renderer::new(),
            theme,
            size,
        }
    }

    /// The same console printing the service's announcements (the bot's moves) as they come.
    pub fn with_announcements(mut self, announcements: bot_core::outbox::Announcements) -> Self {
        self.announcements = Some(announcements);
        self
    }

    /// An announcement as this console shows it: rendered and routed like a command's
    /// replies (a named console passes the room's part on to the other players' mailboxes).
    pub async fn announcement(&self, a: &bot_core::outbox::Announcement) -> String {
        self.route(&a.replies).await
    }

    async fn active_game(&self) -> Option<GameRecord> {
        let games = self
            .service
            .store()
            .list_games(&GameFilter::default().at(self.place.clone()).active())
            .await
            .ok()?;
        (games.len() == 1).then(|| games[0].clone())
    }

    /// Who gives this command: the fixed player, or in hot-seat mode the player to move (the
    /// other one when answering an offer).
    async fn actor_for(&self, cmd: Option<&Command>) -> Actor {
        if let Some(name) = &self.fixed {
            return local(name);
        }
        let Some(g) = self.active_game().await else {
            return local(LOCAL[0]);
        };
        // The core knows whose turn it is (the side to move, or in a Looking-Glass set-up
        // the player who has not chosen); a record that does not replay falls back on plies.
        let n = g.seats.len().max(1);
        let mut seat = self
            .service
            .engine(&g)
            .map_or(g.moves.len() % n, |e| e.seat_to_act());
        if let (Some(Command::Draw(a, _) | Command::Takeback(a, _)), Some(offer)) =
            (cmd, g.pending_offer)
            && *a != Answer::Offer
        {
            // Answering an offer is the other players' business: the next one after the
            // offerer who has not agreed yet (and, for a draw, is still in the game).
            let in_play = self.service.engine(&g).map(|e| e.seats_in_play()).ok();
            seat = (1..n)
                .map(|k| (offer.by_seat as usize + k) % n)
                .find(|&s| {
                    !offer.agreed.contains(s as u8)
                        && (offer.kind == bot_core::model::OfferKind::Takeback
                            || in_play.as_ref().is_none_or(|p| p.contains(&s)))
                })
                .unwrap_or((offer.by_seat as usize + 1) % n);
        }
        let mut id = &g.seats[seat];
        if id.user == bot_core::opponent::CONSOLE_NAME
            && let Some(person) = g
                .seats
                .iter()
                .find(|p| p.user != bot_core::opponent::CONSOLE_NAME)
        {
            // The bot plays its own moves (every seat but one in a four-player game against
            // it): the keyboard is its opponent's.
            id = person;
        }
        local(&id.user)
    }

    /// Handles one line and returns what to print here (what belongs to other players has
    /// gone to their mailboxes), reporting the replies delivered: for a caller that shows
    /// the text at once (tests). [`Console::run`] reports them after it printed them.
    #[cfg(test)]
    pub async fn line(&self, text: &str) -> String {
        let (out, replies) = self.line_held(text).await;
        self.delivered(&replies).await;
        out
    }

    /// [`Console::line`] without the report: the text, and the replies to report once it is
    /// printed. Killed before that, the replies are printed again when a console of this
    /// instance starts again (they are in the outbox, claimed by it).
    async fn line_held(&self, text: &str) -> (String, Vec<Reply>) {
        let replies = self.respond(text).await;
        (self.route(&replies).await, replies)
    }

    /// Reports replies delivered (printed, or put in their mailboxes).
    async fn delivered(&self, replies: &[Reply]) {
        for key in replies.iter().filter_map(|r| r.key.as_ref()) {
            self.service
                .settle_mail(key, bot_core::outbox::Attempt::Delivered)
                .await;
        }
    }

    /// The service's replies to one line.
    async fn respond(&self, text: &str) -> Vec<Reply> {
        let text = text.trim();
        if text.is_empty() {
            return Vec::new();
        }
        // `play VARIANT [OPTIONS]` (or `new ...`) starts a local game at once, with the
        // challenge's options (`clock 10+5`, `unrated`, `position 3`...); `play VARIANT vs
        // bot` is the service's own command.
        let words: Vec<&str> = text.split_whitespace().collect();
        if matches!(
            words.first().map(|w| w.to_lowercase()).as_deref(),
            Some("play" | "new")
        ) && words.len() >= 2
            && !words.iter().any(|w| {
                // The ways `play` names the bot (`vs bot`, `bot`, `level 3`): its command.
                matches!(
                    w.to_lowercase().as_str(),
                    "vs" | "versus" | "against" | "bot" | "level" | "lvl"
                )
            })
            && self.fixed.is_none()
        {
            let game = words[1..].join(" ");
            let sides = self
                .service
                .catalog()
                .get(&words[1].to_lowercase())
                .map_or(2, |v| v.sides);
            if sides == 4 {
                return self.play_four(&game).await;
            }
            let first = local(LOCAL[0]);
            let second = local(LOCAL[1]);
            let challenged = self
                .service
                .handle_text(
                    &first,
                    &self.place,
                    &format!("challenge @{} {game}", LOCAL[1]),
                )
                .await;
            let Some(id) = opened_challenge(&challenged) else {
                return challenged;
            };
            return self
                .service
                .handle_text(&second, &self.place, &format!("accept {id}"))
                .await;
        }
        // `variant add FILE.ini` (or `.toml`): the console reads the file.
        if let Some((None, path)) = bot_core::command::variant_add_body(text)
            && !path.contains('\n')
            && [".ini", ".toml"]
                .iter()
                .any(|e| path.to_ascii_lowercase().ends_with(e))
        {
            return self.add_variant_file(&path).await;
        }
        let parsed = bot_core::command::parse(text).ok();
        let actor = self.actor_for(parsed.as_ref()).await;
        self.service.handle_text(&actor, &self.place, text).await
    }

    /// `variant add PATH`: the file's text becomes the command's definition (its extension
    /// chooses the format). A file that cannot be read is refused here, as an over-long line
    /// is: the service never sees it.
    async fn add_variant_file(&self, path: &str) -> Vec<Reply> {
        let max = bot_core::command::MAX_DEFINITION_BYTES;
        let read = std::fs::metadata(path).and_then(|m| {
            if m.len() > max as u64 {
                Err(std::io::Error::other(format!(
                    "it has {} bytes; a definition has at most {max}",
                    m.len()
                )))
            } else {
                std::fs::read_to_string(path)
            }
        });
        let text = match read {
            Ok(t) => t,
            Err(e) => {
                return vec![Reply::actor(format!(
                    "I cannot read {}: {e}. Give the path of a .ini or .toml file, or paste the definition after `variant add`.",
                    bot_core::quote::quote(path)
                ))];
            }
        };
        let actor = self.actor_for(None).await;
        let cmd = Command::Variant(bot_core::command::VariantCommand::Add {
            file_name: Some(path.to_string()),
            text,
        });
        self.service.handle(&actor, &self.place, cmd).await
    }

    /// `play VARIANT [OPTIONS]` for a four-player variant: Red challenges Blue, Yellow and
    /// Green, and each of them accepts, so the game starts at once with the four local seats.
    async fn play_four(&self, game: &str) -> Vec<Reply> {
        let [red, others @ ..] = LOCAL_FOUR.map(local);
        let named: Vec<String> = others.iter().map(|a| format!("@{}", a.id.user)).collect();
        let challenged = self
            .service
            .handle_text(
                &red,
                &self.place,
                &format!("challenge {} {game}", named.join(" ")),
            )
            .await;
        let Some(id) = opened_challenge(&challenged) else {
            return challenged;
        };
        let mut last = Vec::new();
        for a in &others {
            last = self
                .service
                .handle_text(a, &self.place, &format!("accept {id}"))
                .await;
        }
        last
    }

    /// Where a reply goes. The shared keyboard prints everything; a named console prints
    /// only what its player may see.
    fn route_of(&self, reply: &Reply) -> Route {
        let Some(me) = &self.fixed else {
            return Route::Here;
        };
        match &reply.audience {
            Audience::Actor => Route::Here,
            Audience::Private(p) if p.platform == Platform::Console && &p.user == me => Route::Here,
            Audience::Private(p) => Route::To(p.user.clone()),
            Audience::Room => {
                let mut others = self.mailboxes.members();
                for p in &reply.mentions {
                    if p.platform == Platform::Console && !others.contains(&p.user) {
                        others.push(p.user.clone());
                    }
                }
                // Nobody reads the bot's mailbox: its moves come from the service itself.
                others.retain(|u| u != me && u != bot_core::opponent::CONSOLE_NAME);
                Route::HereAndTo(others)
            }
        }
    }

    /// Renders replies, prints (returns) what is for here and delivers the rest.
    async fn route(&self, replies: &[Reply]) -> String {
        let mut out = String::new();
        // Several public boards of one game in one batch (an analysis's mistakes) each get a
        // file of their own: `game-7.png`, `game-7-2.png`...
        let mut boards: std::collections::HashMap<Option<bot_core::model::GameId>, usize> =
            Default::default();
        for r in replies {
            if self.copy_of_a_room_line(r, replies) {
                continue;
            }
            let route = self.route_of(r);
            let nth = match (&r.board, &r.audience) {
                (Some(b), Audience::Room | Audience::Actor) => {
                    let n = boards.entry(b.game).or_default();
                    *n += 1;
                    *n
                }
                _ => 1,
            };
            let chunk = self.render(r, nth).await;
            match route {
                Route::Here => out.push_str(&chunk),
                Route::HereAndTo(others) => {
                    out.push_str(&chunk);
                    for user in others {
                        self.post(&user, &chunk, &mut out);
                    }
                }
                Route::To(user) => self.post(&user, &chunk, &mut out),
            }
        }
        out
    }

    /// Whether `r` is a player's private copy of a room line of the same batch that reaches
    /// him here anyway (a result's copy, which a chat player gets in his direct messages):
    /// at the shared keyboard everyone reads the room line; a named console prints it, and
    /// puts it in the mailbox of every player it names. Printed once, not twice or thrice.
    fn copy_of_a_room_line(&self, r: &Reply, batch: &[Reply]) -> bool {
        let Audience::Private(p) = &r.audience else {
            return false;
        };
        r.board.is_none()
            && batch.iter().any(|room| {
                room.audience == Audience::Room
                    && room.text == r.text
                    && room.mentions == r.mentions
                    && (self.fixed.is_none() || room.mentions.contains(p))
            })
    }

    /// Puts `chunk` in `user`'s mailbox; a failure is said here (without the contents).
    fn post(&self, user: &str, chunk: &str, out: &mut String) {
        if let Err(e) = self.mailboxes.deliver(user, chunk) {
            tracing::error!("{e:#}");
            out.push_str(&format!(
                "(could not pass a message on to {}: {e:#})\n",
                shown(user)
            ));
        }
    }

    /// One reply as console text: the line (labelled when private), the board as text, and
    /// the picture file. A private picture is written under its player's name only.
    async fn render(&self, r: &Reply, nth: usize) -> String {
        let mut out = String::new();
        let text = r.render_text(|p| shown(&p.user));
        match &r.audience {
            Audience::Private(p) => out.push_str(&format!("[to {} only] {text}\n", shown(&p.user))),
            _ => out.push_str(&format!("{text}\n")),
        }
        if let Some(g) = &r.graph {
            out.push_str(&self.write_graph(g).await);
        }
        if let Some(replay) = &r.animation {
            out.push_str(&self.write_replay(replay).await);
        }
        let Some(b) = &r.board else {
            return out;
        };
        let catalog = self.service.catalog();
        if let Some(t) = bot_core::picture::text_board(b, catalog) {
            out.push_str(&t);
            out.push('\n');
        }
        match bot_core::picture::png(b, catalog, &self.renderer, &self.theme, self.size) {
            Ok(png) => {
                // Looking-Glass: one picture per player's world, and the reveal.
                let name = match (b.game, &r.audience) {
                    // A variant's own picture (`rules`, `piece`, `variant show`).
                    (None, _) if b.diagram.is_some() => "piece.png".to_string(),
                    (None, _) => "variant.png".to_string(),
                    (Some(game), Audience::Private(p)) => {
                        format!("game-{game}-{}.png", mailbox::file_name(&p.user))
                    }
                    (Some(game), _) if nth > 1 => format!("game-{game}-{nth}.png"),
                    (Some(game), _) => format!("game-{game}.png"),
                };
                let path = self.boards_dir.join(name);
                let written = tokio::fs::create_dir_all(&self.boards_dir).await.is_ok()
                    && match &r.audience {
                        Audience::Private(_) => write_private(&path, png).await.is_ok(),
                        _ => tokio::fs::write(&path, png).await.is_ok(),
                    };
                if written {
                    out.push_str(&format!("(board picture: {})\n", path.display()));
                }
            }
            Err(e) => out.push_str(&format!("(no board picture: {e})\n")),
        }
        out
    }

    /// Writes an analysis's evaluation graph as `game-N-analysis.png` and `.svg` (a graph is
    /// public: it is only made after the game).
    async fn write_graph(&self, g: &bot_core::reply::GraphPicture) -> String {
        let png = match bot_core::picture::graph_png(
            g,
            &self.renderer,
            &self.theme,
            bot_core::picture::GRAPH_WIDTH,
        ) {
            Ok(png) => png,
            Err(e) => return format!("(no graph picture: {e})\n"),
        };
        let svg = bot_core::picture::graph_svg(g, &self.theme);
        let path = self
            .boards_dir
            .join(format!("game-{}-analysis.png", g.game));
        let written = tokio::fs::create_dir_all(&self.boards_dir).await.is_ok()
            && tokio::fs::write(&path, png).await.is_ok()
            && tokio::fs::write(path.with_extension("svg"), svg)
                .await
                .is_ok();
        if written {
            format!("(evaluation graph: {})\n", path.display())
        } else {
            format!(
                "(could not write the graph under {})\n",
                self.boards_dir.display()
            )
        }
    }

    /// Draws a replay (`replay`) into `boards/game-N-replay.gif` and says where it is.
    async fn write_replay(&self, replay: &bot_core::reply::ReplayPicture) -> String {
        // A file has no upload limit; the default budget keeps it easy to share. Drawn here
        // (a second at most for a long game): the console serves one keyboard.
        let options = render::animation::AnimationOptions {
            size: self.size.min(640),
            ..render::animation::AnimationOptions::default()
        };
        let drawn = bot_core::watch::replay_frames(replay, self.service.catalog())
            .map_err(|e| e.to_string())
            .and_then(|frames| {
                let views: Vec<render::BoardView> = frames.into_iter().map(|f| f.view).collect();
                render::animation::gif(&self.renderer, &views, &self.theme, &options)
                    .map_err(|e| e.to_string())
            });
        match drawn {
            Ok(anim) => {
                let path = self
                    .boards_dir
                    .join(format!("game-{}-replay.gif", replay.game));
                let written = tokio::fs::create_dir_all(&self.boards_dir).await.is_ok()
                    && tokio::fs::write(&path, &anim.bytes).await.is_ok();
                if written {
                    format!("(replay: {})\n", path.display())
                } else {
                    format!("(no replay: {} could not be written)\n", path.display())
                }
            }
            Err(e) => format!("(no replay: {e})\n"),
        }
    }

    /// What other consoles left for this player since he last looked (named mode only).
    pub fn mail(&self) -> String {
        let Some(me) = &self.fixed else {
            return String::new();
        };
        self.mailboxes.take(me).unwrap_or_else(|e| {
            tracing::error!("{e:#}");
            String::new()
        })
    }

    /// Reads commands until end of input, `quit`, or a stop request (SIGTERM, SIGINT). A
    /// line being handled when the stop comes is finished and its reply printed, and so is a
    /// line already read from the input but not yet begun (it was typed before the stop); a
    /// console waiting for input quits at once.
    ///
    /// # Errors
    /// When the output cannot be written or the mailbox cannot be created.
    pub async fn run(mut self, stop: Shutdown) -> anyhow::Result<()> {
        let greeting = match &self.fixed {
            Some(name) => format!(
                "fairybot console — you are {}. Type `help`; challenge someone with `challenge @NAME VARIANT`.\n",
                shown(name)
            ),
            None => "fairybot console — two local players, alice and bob, share this keyboard.\n\
                     Start with `play chess` or `play toulousain` (`variants` lists them), then type moves \
                     such as `e4` or `e2e4` (`play dcb-balanced-4p` seats four: red, blue, yellow, green). \
                     `help` lists every command; Ctrl-D or Ctrl-C quits.\n"
                .to_string(),
        };
        if let Some(name) = &self.fixed {
            self.mailboxes.join(name)?;
        }
        let mut stdout = std::io::stdout();
        stdout.write_all(greeting.as_bytes())?;
        if let Some(g) = self.active_game().await {
            stdout.write_all(format!("Resuming game {} ({}).\n", g.id, g.variant).as_bytes())?;
        }
        stdout.write_all(self.mail().as_bytes())?;
        let mut announcements = self.announcements.take();
        // What the outbox still owes this console (a move stored by a process that stopped
        // before printing its announcement) is printed before the first prompt, so that
        // nothing typed now is answered ahead of it.
        if let Some(owed) = announcements.as_mut() {
            while let Some(a) = owed.try_next_held().await {
                let out = self.announcement(&a).await;
                stdout.write_all(out.as_bytes())?;
                stdout.flush()?;
                self.delivered(&a.replies).await;
            }
        }
        let mut lines = input::spawn_stdin();
        let mut poll = tokio::time::interval(MAIL_POLL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut prompt = true;
        let mut answered_after_stop = 0;
        loop {
            if prompt {
                let text = format!("{}> ", shown(&self.actor_for(None).await.name));
                stdout.write_all(text.as_bytes())?;
                stdout.flush()?;
            }
            // Stopping wins over everything: no new work once it is asked for. The handling of
            // a line is outside the select, so it is never cut short.
            let input = tokio::select! {
                biased;
                () = stop.requested() => match lines.try_recv() {
                    // Typed before the stop, read, not yet begun: answered like the others
                    // (as many as were waiting, not an input that keeps coming).
                    Ok(line) if answered_after_stop < input::QUEUED => {
                        answered_after_stop += 1;
                        Some(line)
                    }
                    _ => break,
                },
                Some(a) = next_announcement(&mut announcements) => {
                    let out = self.announcement(&a).await;
                    stdout.write_all(format!("\n{out}").as_bytes())?;
                    stdout.flush()?;
                    self.delivered(&a.replies).await;
                    prompt = true;
                    continue;
                }
                line = lines.recv() => line,
                _ = poll.tick(), if self.fixed.is_some() => {
                    let mail = self.mail();
                    prompt = !mail.is_empty();
                    if prompt {
                        stdout.write_all(format!("\n{mail}").as_bytes())?;
                    }
                    continue;
                }
            };
            let Some(input) = input else { break };
            let (out, replies) = match input {
                Input::Line(line) if matches!(line.trim(), "quit" | "exit") => break,
                Input::Line(line) => self.line_held(&line).await,
                refused => (refused.refusal().unwrap_or_default(), Vec::new()),
            };
            let mail = self.mail();
            stdout.write_all(format!("{out}{mail}").as_bytes())?;
            stdout.flush()?;
            // Printed: only now are the replies delivered.
            self.delivered(&replies).await;
            prompt = true;
        }
        stdout.write_all(b"\nbye\n")?;
        stdout.flush()?;
        Ok(())
    }
}

/// The next announcement, or never when this console has none to drain (or the service
/// stopped sending).
async fn next_announcement(
    announcements: &mut Option<bot_core::outbox::Announcements>,
) -> Option<bot_core::outbox::Announcement> {
    match announcements {
        Some(a) => match a.next_held().await {
            Some(one) => Some(one),
            None => {
                *announcements = None;
                std::future::pending().await
            }
        },
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use bot_core::{SystemClock, store::memory::MemoryStore};

    use super::*;

    fn console(
        dir: &Path,
        fixed: Option<&str>,
        store: MemoryStore,
    ) -> Console<MemoryStore, SystemClock> {
        let service = Arc::new(GameService::new(
            store,
            SystemClock,
            Arc::new(rules::Catalog::builtin()),
        ));
        Console::new(
            service,
            fixed.map(str::to_string),
            dir,
            render::Theme::light(),
            320,
        )
    }

    /// A service on a memory store with a repeatable bot (2,000 nodes a move), not started.
    fn service_with_idle_bot() -> Arc<GameService<MemoryStore, SystemClock>> {
        Arc::new(
            GameService::new(
                MemoryStore::new(),
                SystemClock,
                Arc::new(rules::Catalog::builtin()),
            )
            .with_bot(bot_core::opponent::BotConfig::repeatable(2_000, 3))
            .unwrap(),
        )
    }

    /// [`service_with_idle_bot`], started, and the announcements of its moves.
    async fn service_with_bot() -> (
        Arc<GameService<MemoryStore, SystemClock>>,
        bot_core::outbox::Announcements,
    ) {
        let service = service_with_idle_bot();
        service.start_bot().await.unwrap();
        let announcements =
            bot_core::outbox::Announcements::new(service.clone(), &[Platform::Console]);
        (service, announcements)
    }

    /// `play chess vs bot`: the game starts at once, the keyboard plays the human seat only,
    /// and the bot's moves arrive as announcements that print like replies.
    #[tokio::test]
    async fn playing_the_bot_at_the_console() {
        let dir = tempfile::tempdir().unwrap();
        let (service, mut announcements) = service_with_bot().await;
        let c = Console::new(service, None, dir.path(), render::Theme::light(), 320);
        let out = c.line("play chess vs bot white level 1").await;
        assert!(out.contains("Game 1 starts"), "{out}");
        assert!(out.contains("against the bot at level 1"), "{out}");
        assert!(
            out.contains("alice (White) against fairybot (Black)"),
            "{out}"
        );
        for mv in ["e4", "Nf3"] {
            let out = c.line(mv).await;
            assert!(out.contains(&format!("alice plays {mv}")), "{out}");
            let a = tokio::time::timeout(Duration::from_secs(60), announcements.next())
                .await
                .unwrap()
                .unwrap();
            let out = c.announcement(&a).await;
            assert!(out.contains("fairybot plays"), "{out}");
            assert!(out.contains("alice to move"), "{out}");
            assert!(out.contains("(board picture:"), "{out}");
        }
        assert!(c.line("board").await.contains("(board picture:"));
        assert!(c.line("takeback").await.contains("2 moves taken back"));
    }

    /// Issue 27: the console's players are not named by colours, the side against the bot is
    /// the player's choice, and the result sentences read right: "fairybot (White) against
    /// alice (Black)", "alice (Black) resigns. fairybot (White) wins."
    #[tokio::test]
    async fn names_are_not_colours_and_results_read_right() {
        let dir = tempfile::tempdir().unwrap();
        let (service, _announcements) = service_with_bot().await;
        let c = Console::new(service, None, dir.path(), render::Theme::light(), 320);
        let out = c.line("play chess vs bot black level 1").await;
        assert!(
            out.contains("fairybot (White) against alice (Black)"),
            "{out}"
        );
        let out = c.line("resign").await;
        assert!(
            out.contains("Game 1: alice (Black) resigns. fairybot (White) wins."),
            "{out}"
        );
        assert!(!out.contains("wins. fairybot"), "{out}");
        // Two players at one keyboard: alice and bob.
        let c = console(dir.path(), None, MemoryStore::new());
        let out = c.line("play chess").await;
        assert!(out.contains("alice (White) against bob (Black)"), "{out}");
        c.line("e4").await;
        let out = c.line("resign").await;
        assert!(
            out.contains("Game 1: bob (Black) resigns. alice (White) wins."),
            "{out}"
        );
    }

    /// `play dcb-balanced-4p vs bot`: the keyboard plays Red, the bot's three seats answer
    /// each move in turn, and the keyboard never acts for them, even while they think.
    #[tokio::test]
    async fn playing_the_bot_at_the_console_in_a_four_player_form() {
        let dir = tempfile::tempdir().unwrap();
        let (service, mut announcements) = service_with_bot().await;
        let c = Console::new(
            service.clone(),
            None,
            dir.path(),
            render::Theme::light(),
            320,
        );
        let out = c.line("play dcb-balanced-4p vs bot level 1").await;
        assert!(out.contains("Game 1 starts"), "{out}");
        assert!(out.contains("alice (Red)"), "{out}");
        assert!(out.contains("fairybot (Blue)"), "{out}");
        for _ in 0..2 {
            let g = service
                .store()
                .list_games(&GameFilter::default())
                .await
                .unwrap()
                .remove(0);
            let v = service.catalog().get(&g.variant).unwrap();
            let mut pos = rules::fen::position(&v, &g.start_state).unwrap();
            for m in &g.moves {
                let mv = rules::notation::parse_coord(&pos, m).unwrap();
                pos.play_unchecked(mv);
            }
            let mv = rules::notation::coord(&pos, pos.legal_moves()[0]);
            let out = c.line(&format!("move {mv}")).await;
            assert!(out.contains("alice (Red) plays"), "{out}");
            for colour in ["Blue", "Yellow", "Green"] {
                let a = tokio::time::timeout(Duration::from_secs(60), announcements.next())
                    .await
                    .unwrap()
                    .unwrap();
                let out = c.announcement(&a).await;
                assert!(out.contains(&format!("fairybot ({colour}) plays")), "{out}");
            }
        }
        let out = c.line("resign").await;
        assert!(out.contains("alice (Red) resigns and is out"), "{out}");
        assert!(out.contains("the game ends"), "{out}");

        // While the bot's seat is to move (its turns not started here), a command typed at
        // the keyboard is still the person's: `resign` resigns Red, never the bot's Blue.
        let service = service_with_idle_bot();
        let c = Console::new(service, None, dir.path(), render::Theme::light(), 320);
        // `level` alone names the bot too, as in chat.
        c.line("play dcb-balanced-4p level 1").await;
        let out = c.line("resign").await;
        assert!(out.contains("alice (Red) resigns and is out"), "{out}");
        let out = c.line("play dcb-balanced-4p vs bot second level 1").await;
        assert!(out.contains("alice (Blue)"), "{out}");
        let out = c.line("resign").await;
        assert!(out.contains("alice (Blue) resigns and is out"), "{out}");
    }

    /// `replay` at the console writes the animated replay beside the board pictures, one
    /// frame per position of the four-player game so far.
    #[tokio::test]
    async fn replay_writes_a_gif_of_the_game_so_far() {
        let dir = tempfile::tempdir().unwrap();
        let c = console(dir.path(), None, MemoryStore::new());
        c.line("play dcb-balanced-4p").await;
        let out = c.line("replay").await;
        assert!(out.contains("has no moves yet"), "{out}");
        for _ in 0..4 {
            // The first of each side's legal moves, whatever it is.
            let moves = c.line("moves").await;
            let first = moves
                .split("legal moves:")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or_else(|| panic!("a move in {moves}"))
                .to_string();
            c.line(&first).await;
        }
        let out = c.line("replay").await;
        assert!(out.contains("(replay: "), "{out}");
        let gif = std::fs::read(dir.path().join("boards/game-1-replay.gif")).unwrap();
        assert_eq!(&gif[..6], b"GIF89a");
    }

    /// `play` with a four-player variant seats red, blue, yellow and green at the one
    /// keyboard; each command is given by the player whose turn it is, a draw offer is
    /// answered by each of the others in turn, and resigning takes the player to move out.
    #[tokio::test]
    async fn hot_seat_four_player_game() {
        let dir = tempfile::tempdir().unwrap();
        let c = console(dir.path(), None, MemoryStore::new());
        let out = c.line("play dcb-balanced-4p").await;
        assert!(out.contains("Game 1 starts"), "{out}");
        assert!(
            out.contains("red (Red), blue (Blue), yellow (Yellow), green (Green)"),
            "{out}"
        );
        assert!(out.contains("rK") && out.contains("yQ"), "{out}");
        for (m, next) in [("Ncx", "blue"), ("cw", "yellow"), ("cp", "green")] {
            let out = c.line(m).await;
            assert!(out.contains(&format!("{next} (")), "{m}: {out}");
        }
        // Green offers a draw; the three others answer in turn, the last declines.
        assert!(c.line("draw").await.contains("green offers a draw"));
        assert!(c.line("draw accept").await.contains("red agrees"));
        assert!(c.line("draw accept").await.contains("blue agrees"));
        assert!(c.line("draw decline").await.contains("yellow declines"));
        let out = c.line("resign").await;
        assert!(out.contains("green (Green) resigns and is out"), "{out}");
        assert!(out.contains("Out: Green."), "{out}");
        assert!(dir.path().join("boards/game-1.png").exists());
    }

    /// `analyse` after a game at the console: the progress line at once, then (as
    /// announcements) the graph written as PNG and SVG, and each mistake's board in a file of
    /// its own.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn analysing_a_finished_game_at_the_console() {
        let dir = tempfile::tempdir().unwrap();
        let service = GameService::new(
            MemoryStore::new(),
            SystemClock,
            Arc::new(rules::Catalog::builtin()),
        )
        .with_analysis(bot_core::analysis::AnalysisConfig {
            nodes: 3_000,
            threads: 1,
            nice: 0,
        })
        .unwrap();
        let service = Arc::new(service);
        service.start_analyst();
        let mut announcements =
            bot_core::outbox::Announcements::new(service.clone(), &[Platform::Console]);
        let c = Console::new(service, None, dir.path(), render::Theme::light(), 320);
        let out = c.line("analyse").await;
        assert!(
            out.contains("There is no finished game here to analyse."),
            "{out}"
        );
        c.line("play chess").await;
        for m in ["f3", "e5", "g4"] {
            c.line(m).await;
        }
        let out = c.line("analyse #1").await;
        assert!(out.contains("Game 1 is still being played"), "{out}");
        assert!(c.line("Qh4").await.contains("Checkmate"));
        let out = c.line("analyse").await;
        assert!(
            out.contains("Analysing game 1 at 3,000 nodes a position: ["),
            "{out}"
        );
        let mut printed = String::new();
        while !printed.contains("(evaluation graph:") || !printed.contains("g4??") {
            let a = tokio::time::timeout(Duration::from_secs(60), announcements.next())
                .await
                .expect("the analysis ends within a minute")
                .unwrap();
            printed.push_str(&c.announcement(&a).await);
        }
        assert!(
            printed.contains("Game 1 analysed: 5 positions"),
            "{printed}"
        );
        assert!(printed.contains("accuracy alice (White) "), "{printed}");
        let boards = dir.path().join("boards");
        assert!(boards.join("game-1-analysis.png").exists());
        let svg = std::fs::read_to_string(boards.join("game-1-analysis.svg")).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("alice vs bob"),
            "{svg}"
        );
        assert!(printed.contains("(board picture:"), "{printed}");
    }

    #[tokio::test]
    async fn hot_seat_game_to_mate_with_pictures() {
        let dir = tempfile::tempdir().unwrap();
        let c = console(dir.path(), None, MemoryStore::new());
        let out = c.line("play chess").await;
        assert!(out.contains("Game 1 starts"), "{out}");
        assert!(out.contains("1 R N B Q K B N R"), "{out}");
        for m in ["f3", "e5", "g4"] {
            let out = c.line(m).await;
            assert!(out.contains("plays"), "{out}");
        }
        let out = c.line("Qh4").await;
        assert!(out.contains("Checkmate"), "{out}");
        assert!(dir.path().join("boards/game-1.png").exists());
        // The finished game can still be looked at.
        assert!(c.line("history").await.contains("1. f3 e5 2. g4 Qh4#"));
        assert!(c.line("export").await.contains("[Result \"0-1\"]"));
    }

    #[tokio::test]
    async fn draw_answers_come_from_the_other_player() {
        let dir = tempfile::tempdir().unwrap();
        let c = console(dir.path(), None, MemoryStore::new());
        c.line("play toulousain").await;
        c.line("e4e6").await;
        assert!(c.line("draw").await.contains("bob offers a draw"));
        assert!(c.line("draw accept").await.contains("drawn by agreement"));
    }

    #[tokio::test]
    async fn hot_seat_looking_glass_labels_each_players_private_messages() {
        let dir = tempfile::tempdir().unwrap();
        let c = console(dir.path(), None, MemoryStore::new());
        let out = c.line("play looking-glass").await;
        assert!(
            out.contains("[to alice only]") && out.contains("[to bob only]"),
            "{out}"
        );
        assert!(
            c.line("setup 518")
                .await
                .contains("[to alice only] Your back rank")
        );
        let out = c.line("setup random").await;
        assert!(out.contains("[to bob only] Your back rank"), "{out}");
        assert!(out.contains("the game begins"), "{out}");
        // Each player's world as text: White sees the Real world, the Mirror is veiled.
        assert!(out.contains("Mirror (M:) — unseen"), "{out}");
        let out = c.line("e2e4").await;
        assert!(out.contains("White has moved"), "{out}");
        assert!(out.contains("[to bob only]"), "{out}");
        assert!(dir.path().join("boards/game-1-alice.png").exists());
        assert!(dir.path().join("boards/game-1-bob.png").exists());
        // Black is to move now: the hot seat passes to him.
        let out = c.line("ask").await;
        assert!(out.starts_with("[to bob only]"), "{out}");
        let out = c.line("resign").await;
        assert!(out.contains("revealed"), "{out}");
        assert!(
            out.contains("Real (R:)") && out.contains("Mirror (M:)"),
            "{out}"
        );
    }

    #[tokio::test]
    async fn two_named_players_on_one_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new();
        let alice = console(dir.path(), Some("alice"), store.clone());
        let bob = console(dir.path(), Some("bob"), store);
        assert!(
            alice
                .line("challenge @bob chess")
                .await
                .contains("challenges")
        );
        assert!(bob.line("accept").await.contains("starts"));
        assert!(bob.line("e5").await.contains("not your turn"));
        assert!(alice.line("e4").await.contains("alice plays e4"));
        assert!(bob.line("e5").await.contains("bob plays e5"));
    }

    /// Four named consoles (`--as red` ... `--as green`) on one data directory: the
    /// challenge reaches each invitee's mailbox, each accepts at his own console, and a move
    /// announced with the next player to move reaches everyone's mailbox.
    #[tokio::test]
    async fn four_named_players_on_one_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new();
        let [red, blue, yellow, green] =
            ["red", "blue", "yellow", "green"].map(|n| console(dir.path(), Some(n), store.clone()));
        for c in [&red, &blue, &yellow, &green] {
            c.mailboxes.join(c.fixed.as_deref().unwrap()).unwrap();
        }
        let out = red
            .line("challenge @blue @yellow @green dcb-balanced-4p")
            .await;
        assert!(
            out.contains("red challenges blue, yellow and green"),
            "{out}"
        );
        for c in [&blue, &yellow, &green] {
            assert!(c.mail().contains("red challenges"), "an invitee is told");
        }
        assert!(
            blue.line("accept")
                .await
                .contains("Still waiting for yellow and green")
        );
        assert!(
            yellow
                .line("accept")
                .await
                .contains("Still waiting for green")
        );
        let out = green.line("accept").await;
        assert!(out.contains("Game 1 starts"), "{out}");
        assert!(blue.line("Ncx").await.contains("not your turn"));
        assert!(red.line("Ncx").await.contains("blue (Blue) to move"));
        for c in [&blue, &yellow, &green] {
            assert!(c.mail().contains("red (Red) plays Ncx"));
        }
        let out = green.line("resign").await;
        assert!(out.contains("green (Green) resigns and is out"), "{out}");
        assert!(blue.mail().contains("resigns and is out"));
    }

    /// Issue 27: a name with terminal escapes or right-to-left overrides (`--as
    /// $'ev\e[2Jil'`) is printed, and mailed, without them; private pictures and mailboxes in
    /// the shared data directory are readable by their owner only.
    #[tokio::test]
    async fn names_are_printable_and_private_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new();
        for evil in ["ev\u{1b}[2Jil", "ev\u{202e}li"] {
            let e = console(dir.path(), Some(evil), store.clone());
            let bob = console(dir.path(), Some("bob"), store.clone());
            e.mailboxes.join(evil).unwrap();
            bob.mailboxes.join("bob").unwrap();
            let out = e.line("challenge @bob chess").await;
            assert!(out.contains("challenges"), "{out}");
            let mail = bob.mail();
            assert!(mail.contains("challenges"), "{mail}");
            for text in [&out, &mail] {
                assert!(
                    !text.chars().any(|c| c == '\u{1b}' || c == '\u{202e}'),
                    "{text:?}"
                );
            }
            assert!(bob.line("decline").await.contains("declines"));
        }
        for f in std::fs::read_dir(dir.path().join("console")).unwrap() {
            let f = f.unwrap().path();
            assert_eq!(mode(&f), 0o600, "{}", f.display());
        }
        // A hot-seat Looking-Glass game writes each player's private world.
        let c = console(dir.path(), None, MemoryStore::new());
        c.line("play looking-glass").await;
        c.line("setup 518").await;
        c.line("setup 518").await;
        let private = dir.path().join("boards/game-1-alice.png");
        assert!(private.exists());
        assert_eq!(mode(&private), 0o600);
    }
}

#[cfg(test)]
#[path = "console_glass_tests.rs"]
mod glass_tests;
