//! Command → reply round trips against a real Synapse, text replies and board images apart.
//!
//! ```sh
//! export FAIRYBOT_TEST_SYNAPSE_URL="$(scripts/synapse-test.sh start)"
//! cargo bench -p bot-matrix --bench roundtrip
//! ```
//!
//! The bot (the production adapter over the SQLite game store, boards at the default size)
//! runs on a runtime of its own, as in its own process; two players are matrix-sdk clients on
//! another. The clock starts before a player's client sends the command and stops when that
//! client's own sync delivers the bot's reply. `FAIRYBOT_BENCH_SAMPLES` (default 60) sets the
//! samples per kind, `FAIRYBOT_BENCH_ENCRYPTED=1` plays in an encrypted room.

#[path = "../tests/common/mod.rs"]
mod common;

use bot_matrix::{Login, MatrixConfig};
use common::*;

fn main() {
    let Ok(hs) = std::env::var("FAIRYBOT_TEST_SYNAPSE_URL") else {
        eprintln!(
            "roundtrip: set FAIRYBOT_TEST_SYNAPSE_URL (scripts/synapse-test.sh start) to run it"
        );
        return;
    };
    // RUST_LOG=bot_matrix=debug shows where a round trip's time goes (privacy check, core,
    // drawing, upload) on the bot's side.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let samples: usize = std::env::var("FAIRYBOT_BENCH_SAMPLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    let encrypted = std::env::var("FAIRYBOT_BENCH_ENCRYPTED").as_deref() == Ok("1");
    let bot_runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("bot")
        .build()
        .unwrap();
    let players = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("players")
        .build()
        .unwrap();
    let setup = players.block_on(BotSetup::new(&hs));
    let login = Login::Password {
        user: setup.user.clone(),
        password: setup.password.clone().into(),
    };
    let size = MatrixConfig::new(&hs, login.clone(), &setup.state)
        .unwrap()
        .board_size;
    let running = bot_runtime.block_on(start_bot_sized(&hs, login, &setup.state, &setup.db, size));
    let latency = players.block_on(async {
        let bot = running.id();
        let Table {
            mut alice,
            mut bob,
            room,
        } = table(&hs, &bot, encrypted).await;
        let (cmd, _) = alice
            .say(&room, &format!("!fb challenge {} chess", bob.id()))
            .await;
        bob.reply_to(&bot, &cmd).await;
        let (cmd, _) = bob.say(&room, "!fb accept").await;
        bob.reply_to(&bot, &cmd).await;
        let (cmd, _) = alice.say(&room, "!fb e4").await;
        alice.reply_to(&bot, &cmd).await;
        let texts = [
            "!fb games",
            "!fb history",
            // Text answers only (`rules` answers with a picture of the start since issue 30).
            "!fb help",
            "!fb moves e7",
        ];
        let mut latency = Latency::default();
        for i in 0..samples + 5 {
            for text in [texts[i % texts.len()], "!fb board #1"] {
                let (cmd, sent) = alice.say(&room, text).await;
                let reply = alice.reply_to(&bot, &cmd).await;
                let image = reply.msgtype() == "m.image";
                assert_eq!(image, text.contains("board"), "{text}: {}", reply.body());
                // The first rounds warm the caches (fonts, piece drawings, the SQLite pages).
                if i >= 5 {
                    latency.add(sent, &reply);
                }
            }
        }
        latency
    });
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "roundtrip: {} room, boards {size} px, load average {}",
        if encrypted {
            "encrypted"
        } else {
            "unencrypted"
        },
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    for (kind, v) in [
        ("text reply ", &latency.text),
        ("board image", &latency.image),
    ] {
        println!(
            "roundtrip {kind}: n={} median={:.0} ms p95={:.0} ms max={:.0} ms",
            v.len(),
            Latency::quantile(v, 0.5),
            Latency::quantile(v, 0.95),
            Latency::quantile(v, 1.0),
        );
    }
    let (stop, _) = (running.stop(), ());
    bot_runtime.block_on(stop);
}
