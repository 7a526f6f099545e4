//! A healthy bot's log is quiet: a short game against a real Synapse, from the first login to
//! a restart, logged at the application's default level, has no WARN or ERROR line.
//!
//! Its own test binary, because it installs the process's tracing subscriber (writing to a
//! buffer) and would catch the warnings other tests provoke on purpose.

mod common;

use std::{
    io::Write,
    sync::{Arc, Mutex},
};

use common::*;

/// The filter `fairybot` logs with when `RUST_LOG` is not set (bot/app/src/main.rs).
const APP_DEFAULT: &str = "warn,fairybot=info,bot_discord=info,bot_matrix=info";

/// Everything logged, as text.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Buffer {
    type Writer = Buffer;
    fn make_writer(&'a self) -> Buffer {
        self.clone()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_healthy_bot_logs_no_warning_and_no_error_at_the_default_level() {
    let log = Buffer::default();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(format!(
            "{APP_DEFAULT},{}",
            bot_matrix::QUIET_SDK_LOGS
        )))
        .with_writer(log.clone())
        .with_ansi(false)
        .init();
    let Some(hs) = homeserver() else { return };

    // First start: a new device; an encrypted game room; a short game with boards, and a
    // private board in a new encrypted direct room.
    let setup = BotSetup::new(&hs).await;
    let running = setup.start().await;
    let bot = running.id();
    let Table {
        mut alice,
        mut bob,
        room,
    } = table(&hs, &bot, true).await;
    let (cmd, _) = alice
        .say(&room, &format!("!fb challenge {} chess", bob.id()))
        .await;
    bob.reply_to(&bot, &cmd).await;
    let (cmd, _) = bob.say(&room, "!fb accept").await;
    bob.reply_to(&bot, &cmd).await;
    for (by_alice, mv) in [(true, "f3"), (false, "e5"), (true, "g4")] {
        let player = if by_alice { &mut alice } else { &mut bob };
        let (cmd, _) = player.say(&room, &format!("!fb {mv}")).await;
        player.reply_to(&bot, &cmd).await;
    }
    let (cmd, _) = alice.say(&room, "!fb board").await;
    alice.reply_to(&bot, &cmd).await;
    alice
        .expect("the private board", |s| s.sender() == bot && s.room != room)
        .await;
    running.stop().await;

    // Second start on the same state: the session is restored, the game goes on.
    let running = setup.start().await;
    let (cmd, _) = bob.say(&room, "!fb Qh4#").await;
    let mate = bob.reply_to(&bot, &cmd).await;
    assert!(mate.body().contains("Checkmate"), "{}", mate.body());
    // Whatever the bot logs about the game's end is logged before it answers a later command.
    bob.settle(&room, &bot).await;
    running.stop().await;

    let text = String::from_utf8_lossy(&log.0.lock().unwrap()).into_owned();
    let loud: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .collect();
    assert!(
        text.contains("is listening"),
        "the log was not captured:\n{text}"
    );
    assert!(
        loud.is_empty(),
        "{} loud lines:\n{}",
        loud.len(),
        loud.join("\n")
    );
}
