//! Issue 27 on Matrix: the bot killed (`kill -9`) at any moment around a move loses nothing
//! and says nothing twice. The bot runs as a separate OS process (this test binary started
//! again, running `child_bot_process`), over a SQLite store and a state directory that
//! survive it; the players are clients in this process.
mod common;

use std::{
    io::BufRead,
    process::{Child, Command, Stdio},
    sync::Arc,
    time::Duration,
};

use bot_core::{
    Actor, GameService, SystemClock,
    model::{Place, PlayerId},
    outbox::{Attempt, Key},
    reply::Reply,
    service::BoxFuture,
};
use bot_matrix::{Games, Login, MatrixBot, MatrixConfig};
use common::{BotSetup, Player, homeserver, table};
use tokio::sync::mpsc;

/// Set in the child: what it runs (`HS USER PASSWORD STATE DB MODE`, tab-separated).
const CHILD_ENV: &str = "FAIRYBOT_KILL_TEST_CHILD";

/// Where the parent kills the child.
#[derive(Debug, Clone, Copy)]
enum Kill {
    /// This long after the player's move was accepted by the homeserver.
    After(u64),
    /// After the bot has recorded the command in its ledger, before the core sees it (the
    /// child waits there): after the restart the store has nothing of it, so it must run.
    BeforeCommit,
    /// Right after the move and its replies are committed to the store, before anything is
    /// sent (the child waits there).
    AfterCommit,
    /// After the homeserver took the move's answer, before the store heard so (the child
    /// waits there): the send repeated after the restart must be recognised by its
    /// transaction id.
    AfterSend,
}

impl Kill {
    fn mode(self) -> &'static str {
        match self {
            Kill::After(_) => "run",
            Kill::BeforeCommit => "received",
            Kill::AfterCommit => "commit",
            Kill::AfterSend => "send",
        }
    }
}

/// The bot as a separate process, with what it prints.
struct BotProcess {
    child: Child,
    lines: mpsc::UnboundedReceiver<String>,
}

impl BotProcess {
    fn start(setup: &BotSetup, mode: &str) -> BotProcess {
        let spec = [
            setup.hs.as_str(),
            setup.user.as_str(),
            setup.password.as_str(),
            setup.state.to_str().unwrap(),
            setup.db.to_str().unwrap(),
            mode,
        ]
        .join("\t");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_bot_process",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, spec)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        BotProcess { child, lines }
    }

    /// Waits until the child prints `what` (the test harness may have begun the line).
    async fn until(&mut self, what: &str) {
        let deadline = tokio::time::Instant::now() + common::WAIT;
        loop {
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(line)) if line.contains(what) => return,
                Ok(Some(_)) => {}
                _ => panic!("the bot process never printed {what}"),
            }
        }
    }

    /// SIGKILL, and reap it.
    fn kill(self) {
        drop(self);
    }
}

/// A failing test leaves no bot running.
impl Drop for BotProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move's announcement as the players see it.
fn announces(body: &str, mv: &str) -> bool {
    body.contains(&format!("plays {mv}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_killed_around_a_move_announces_it_exactly_once_after_the_restart() {
    let Some(hs) = homeserver() else { return };
    let setup = BotSetup::new(&hs).await;
    let mut bot = BotProcess::start(&setup, "run");
    bot.until("LISTENING").await;
    let bot_id = setup.user.clone();
    let mut t = table(&hs, &bot_id, false).await;
    let (cmd, _) = t
        .alice
        .say(
            &t.room,
            &format!("!fb challenge {} chess white", t.bob.id()),
        )
        .await;
    t.bob.reply_to(&bot_id, &cmd).await;
    let (cmd, _) = t.bob.say(&t.room, "!fb accept").await;
    t.bob.reply_to(&bot_id, &cmd).await;

    let cases = [
        ("e4", Kill::After(0)),
        ("e5", Kill::After(30)),
        ("Nf3", Kill::After(100)),
        ("Nc6", Kill::After(300)),
        ("Bc4", Kill::AfterCommit),
        ("Bc5", Kill::AfterSend),
        ("c3", Kill::BeforeCommit),
    ];
    for (i, (mv, kill)) in cases.iter().enumerate() {
        if !matches!(kill, Kill::After(_)) {
            // The child that waits at the moment to kill it.
            bot.kill();
            bot = BotProcess::start(&setup, kill.mode());
            bot.until("LISTENING").await;
        }
        let player: &mut Player = if i % 2 == 0 { &mut t.alice } else { &mut t.bob };
        let mark = player.mark();
        player.say(&t.room, &format!("!fb {mv}")).await;
        match kill {
            Kill::After(ms) => tokio::time::sleep(Duration::from_millis(*ms)).await,
            Kill::BeforeCommit => bot.until("RECEIVED").await,
            Kill::AfterCommit => bot.until("COMMITTED").await,
            Kill::AfterSend => bot.until("SENT").await,
        }
        bot.kill();
        bot = BotProcess::start(&setup, "run");
        bot.until("LISTENING").await;
        let seen = player
            .expect_since(mark, &format!("the announcement of {mv}"), |s| {
                s.room == t.room && s.sender() == bot_id && announces(s.body(), mv)
            })
            .await;
        eprintln!("{mv} ({kill:?}): announced");
        drop(seen);
    }
    // Nothing can be sent twice later: the outbox has nothing left waiting (every entry is
    // delivered or given up), and the answer to a sentinel command comes after everything
    // the bot sent before it.
    let store = bot_store::SqlStore::open_sqlite(setup.db.to_str().unwrap())
        .await
        .unwrap();
    common::quiet(&store).await;
    t.alice.settle(&t.room, &bot_id).await;
    for (mv, kill) in cases {
        let n = t
            .alice
            .drain()
            .iter()
            .filter(|s| s.room == t.room && s.sender() == bot_id && announces(s.body(), mv))
            .count();
        assert_eq!(n, 1, "{mv}, killed {kill:?}: announced {n} times");
    }
    bot.kill();
}

/// Not a check of its own: the bot process of
/// `a_bot_killed_around_a_move_announces_it_exactly_once_after_the_restart`, which starts
/// this binary with [`CHILD_ENV`] set. Without it there is nothing to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_bot_process() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let [hs, user, password, state, db, mode]: [&str; 6] =
        spec.split('\t').collect::<Vec<_>>().try_into().unwrap();
    let store = bot_store::SqlStore::open_sqlite(db).await.unwrap();
    let catalog = Arc::new(rules::Catalog::builtin());
    // As the app starts: one instance name across restarts, its claims taken back first.
    let service = GameService::new(store, SystemClock, catalog.clone()).with_instance("kill-test");
    service.take_back_claims().await.unwrap();
    let games = Marks {
        inner: service,
        mode: mode.to_string(),
        waiting: std::sync::atomic::AtomicBool::new(false),
    };
    let config = MatrixConfig::new(
        hs,
        Login::Password {
            user: user.into(),
            password: password.into(),
        },
        std::path::Path::new(state),
    )
    .unwrap();
    let bot = MatrixBot::connect(
        &config,
        Arc::new(games),
        catalog,
        Arc::new(render::Renderer::new()),
    )
    .await
    .unwrap();
    bot.first_sync().await.unwrap();
    println!("LISTENING");
    bot.run_with_announcements(std::future::pending())
        .await
        .unwrap();
}

/// The service, printing when a command reaches it (`RECEIVED`), when a move is committed
/// (`COMMITTED`) and when a message was taken by the homeserver (`SENT`), and waiting there
/// for the kill in the matching mode.
struct Marks<G> {
    inner: G,
    mode: String,
    waiting: std::sync::atomic::AtomicBool,
}

impl<G> Marks<G> {
    async fn wait_for_the_kill(&self, mode: &str, mark: &str) {
        println!("{mark}");
        if self.mode == mode && !self.waiting.swap(true, std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
    }
}

impl<G: Games> Games for Marks<G> {
    fn handle<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        cmd: bot_core::command::Command,
    ) -> BoxFuture<'a, Vec<Reply>> {
        self.inner.handle(actor, place, cmd)
    }

    fn handle_text<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        text: &'a str,
    ) -> BoxFuture<'a, Vec<Reply>> {
        Box::pin(async move {
            self.wait_for_the_kill("received", "RECEIVED").await;
            let replies = self.inner.handle_text(actor, place, text).await;
            self.wait_for_the_kill("commit", "COMMITTED").await;
            replies
        })
    }

    fn current_game<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        game: Option<bot_core::model::GameId>,
    ) -> BoxFuture<'a, Option<bot_core::CurrentGame>> {
        self.inner.current_game(actor, place, game)
    }

    fn hold_undelivered<'a>(
        &'a self,
        reply: &'a Reply,
    ) -> BoxFuture<'a, Result<bool, bot_core::store::StoreError>> {
        self.inner.hold_undelivered(reply)
    }

    fn take_undelivered<'a>(&'a self, player: &'a PlayerId) -> BoxFuture<'a, Vec<Reply>> {
        self.inner.take_undelivered(player)
    }

    fn set_bot_user(&self, id: PlayerId, name: &str) {
        self.inner.set_bot_user(id, name);
    }

    fn claim_mail(
        &self,
        platform: bot_core::model::Platform,
        limit: u32,
    ) -> BoxFuture<'_, Result<Vec<bot_core::outbox::Entry>, bot_core::store::StoreError>> {
        self.inner.claim_mail(platform, limit)
    }

    fn settle_mail<'a>(&'a self, key: &'a Key, attempt: Attempt) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if attempt.is_delivered() {
                self.wait_for_the_kill("send", "SENT").await;
            }
            self.inner.settle_mail(key, attempt).await;
        })
    }

    fn mail_signal(&self) -> Arc<tokio::sync::Notify> {
        self.inner.mail_signal()
    }

    fn mail<'a>(
        &'a self,
        key: &'a bot_core::outbox::Key,
    ) -> bot_core::service::BoxFuture<
        'a,
        Result<Option<bot_core::outbox::Mail>, bot_core::store::StoreError>,
    > {
        self.inner.mail(key)
    }
}
