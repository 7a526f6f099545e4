//! The local console: play without any chat platform, on the same service and store.
//!
//! Two local players, `white` and `black`, share the keyboard (each command is given by the
//! player whose turn it is), or `--as NAME` makes every command come from one player, so two
//! terminals on one database can play each other. Boards are printed as text and written as
//! PNG files.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use bot_core::{
    Actor, Clock, GameService,
    command::{Answer, Command},
    model::{GameRecord, Place, Platform, PlayerId},
    reply::{Audience, Reply},
    store::{GameFilter, GameStore},
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What the console needs besides the service.
pub struct Console<S, C> {
    service: Arc<GameService<S, C>>,
    place: Place,
    fixed: Option<String>,
    boards_dir: PathBuf,
    renderer: render::Renderer,
    theme: render::Theme,
    size: u32,
}

const LOCAL: [&str; 2] = ["white", "black"];

fn local(name: &str) -> Actor {
    Actor {
        id: PlayerId::new(Platform::Console, name),
        name: name.to_string(),
    }
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
            renderer: render::Renderer::new(),
            theme,
            size,
        }
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
        if bot_core::service::is_glass(&g.variant) {
            return local(&g.seats[glass_seat(&g, cmd)].user);
        }
        let n = g.seats.len().max(1);
        let mut seat = g.moves.len() % n;
        if let (Some(Command::Draw(a, _) | Command::Takeback(a, _)), Some(offer)) =
            (cmd, g.pending_offer)
            && *a != Answer::Offer
        {
            seat = (offer.by_seat as usize + 1) % n;
        }
        let id = &g.seats[seat];
        local(&id.user)
    }

    /// Handles one line and returns what to print.
    pub async fn line(&self, text: &str) -> String {
        let text = text.trim();
        if text.is_empty() {
            return String::new();
        }
        // `play VARIANT` (or `new VARIANT`) starts a local game at once.
        let words: Vec<&str> = text.split_whitespace().collect();
        if matches!(
            words.first().map(|w| w.to_lowercase()).as_deref(),
            Some("play" | "new")
        ) && words.len() == 2
            && self.fixed.is_none()
        {
            let white = local(LOCAL[0]);
            let black = local(LOCAL[1]);
            let mut out = self
                .render(
                    &self
                        .service
                        .handle_text(
                            &white,
                            &self.place,
                            &format!("challenge @black {}", words[1]),
                        )
                        .await,
                )
                .await;
            if !out.contains("challenges") {
                return out;
            }
            out = self
                .render(
                    &self
                        .service
                        .handle_text(&black, &self.place, "accept")
                        .await,
                )
                .await;
            return out;
        }
        let parsed = bot_core::command::parse(text).ok();
        let actor = self.actor_for(parsed.as_ref()).await;
        let replies = self.service.handle_text(&actor, &self.place, text).await;
        self.render(&replies).await
    }

    async fn render(&self, replies: &[Reply]) -> String {
        let mut out = String::new();
        for r in replies {
            let text = r.render_text(|p| p.user.clone());
            match &r.audience {
                Audience::Private(p) => out.push_str(&format!("[to {} only] {text}\n", p.user)),
                _ => out.push_str(&format!("{text}\n")),
            }
            if let Some(b) = &r.board {
                let catalog = self.service.catalog();
                let glass = bot_core::service::is_glass(&b.variant);
                if glass {
                    if let Some(t) = bot_core::text::glass_board(&b.state) {
                        out.push_str(&t);
                        out.push('\n');
                    }
                } else if let Ok(v) = catalog.get(&b.variant)
                    && let Ok(pos) = rules::fen::position(&v, &b.state)
                {
                    out.push_str(&bot_core::text::board(&pos));
                    out.push('\n');
                }
                match bot_core::picture::png(b, catalog, &self.renderer, &self.theme, self.size) {
                    Ok(png) => {
                        // Looking-Glass: one picture per player's world, and the reveal.
                        let name = match (&r.audience, glass) {
                            (Audience::Private(p), true) => {
                                format!("game-{}-{}.png", b.game, p.user)
                            }
                            _ => format!("game-{}.png", b.game),
                        };
                        let path = self.boards_dir.join(name);
                        let written = tokio::fs::create_dir_all(&self.boards_dir).await.is_ok()
                            && tokio::fs::write(&path, png).await.is_ok();
                        if written {
                            out.push_str(&format!("(board picture: {})\n", path.display()));
                        }
                    }
                    Err(e) => out.push_str(&format!("(no board picture: {e})\n")),
                }
            }
        }
        out
    }

    /// Reads commands until end of input or Ctrl-C.
    pub async fn run(self) -> anyhow::Result<()> {
        let mut stdout = tokio::io::stdout();
        let greeting = match &self.fixed {
            Some(name) => format!(
                "fairybot console — you are {name}. Type `help`; challenge someone with `challenge @NAME VARIANT`.\n"
            ),
            None => "fairybot console — two local players, white and black, share this keyboard.\n\
                     Start with `play chess` or `play toulousain` (`variants` lists them), then type moves \
                     such as `e4` or `e2e4`. `help` lists every command; Ctrl-D or Ctrl-C quits.\n"
                .to_string(),
        };
        stdout.write_all(greeting.as_bytes()).await?;
        if let Some(g) = self.active_game().await {
            stdout
                .write_all(format!("Resuming game {} ({}).\n", g.id, g.variant).as_bytes())
                .await?;
        }
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        loop {
            let prompt = format!("{}> ", self.actor_for(None).await.name);
            stdout.write_all(prompt.as_bytes()).await?;
            stdout.flush().await?;
            let line = tokio::select! {
                l = lines.next_line() => l?,
                _ = tokio::signal::ctrl_c() => None,
            };
            let Some(line) = line else { break };
            if matches!(line.trim(), "quit" | "exit") {
                break;
            }
            let out = self.line(&line).await;
            stdout.write_all(out.as_bytes()).await?;
        }
        stdout.write_all(b"\nbye\n").await?;
        Ok(())
    }
}

/// In hot-seat mode, who gives the next command of a Looking-Glass game: during the setup
/// the player who has not chosen yet (White first), then the referee's player to move.
fn glass_seat(g: &GameRecord, cmd: Option<&Command>) -> usize {
    let chosen = |letter: &str| {
        g.moves
            .iter()
            .any(|m| m.starts_with(&format!("{letter} setup ")))
    };
    if !chosen("w") {
        return 0;
    }
    if !chosen("b") {
        return 1;
    }
    let Some(rules) = bot_core::service::glass_rules(&g.variant) else {
        return 0;
    };
    let turn = rules::glass::Glass::replay(rules::glass::variant(), rules, &g.moves)
        .map_or(0, |game| game.turn().index());
    // Answering an offer is the other player's business.
    match (cmd, g.pending_offer) {
        (Some(Command::Draw(a, _)), Some(offer)) if *a != Answer::Offer => {
            (offer.by_seat as usize + 1) % 2
        }
        _ => turn,
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
        assert!(c.line("draw").await.contains("black offers a draw"));
        assert!(c.line("draw accept").await.contains("drawn by agreement"));
    }

    #[tokio::test]
    async fn hot_seat_looking_glass_labels_each_players_private_messages() {
        let dir = tempfile::tempdir().unwrap();
        let c = console(dir.path(), None, MemoryStore::new());
        let out = c.line("play looking-glass").await;
        assert!(
            out.contains("[to white only]") && out.contains("[to black only]"),
            "{out}"
        );
        assert!(
            c.line("setup 518")
                .await
                .contains("[to white only] Your back rank")
        );
        let out = c.line("setup random").await;
        assert!(out.contains("[to black only] Your back rank"), "{out}");
        assert!(out.contains("the game begins"), "{out}");
        // Each player's world as text: White sees the Real world, the Mirror is veiled.
        assert!(out.contains("Mirror (M:) — unseen"), "{out}");
        let out = c.line("e2e4").await;
        assert!(out.contains("White has moved"), "{out}");
        assert!(out.contains("[to black only]"), "{out}");
        assert!(dir.path().join("boards/game-1-white.png").exists());
        assert!(dir.path().join("boards/game-1-black.png").exists());
        // Black is to move now: the hot seat passes to him.
        let out = c.line("ask").await;
        assert!(out.starts_with("[to black only]"), "{out}");
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
}
