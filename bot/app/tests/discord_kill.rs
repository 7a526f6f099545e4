//! The real `fairybot` binary on Discord (our stand-in, `discord-fake`, reached through
//! `DISCORD_API_URL`), killed with SIGKILL at many moments after a `/move`: after the restart
//! the move is either not stored and never announced, or stored and announced (issue 27: a
//! move was stored and its announcement lost). The announcement is stored with the move, in
//! one transaction, with the interaction's handle; the restarted process sends what the killed
//! one had not reported delivered, and an answer Discord shows already (killed between
//! Discord's acceptance and the report) is not given again: exactly once.
#![cfg(feature = "discord")]

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use discord_fake::{FakeDiscord, ids};

const BIN: &str = env!("CARGO_BIN_EXE_fairybot");

fn start_bot(fake: &FakeDiscord, data: &Path) -> Child {
    Command::new(BIN)
        .arg("--data")
        .arg(data)
        .current_dir(data.parent().unwrap())
        .env("DISCORD_TOKEN", fake.token())
        .env("DISCORD_API_URL", fake.rest_url())
        .env("DISCORD_GUILD_ID", fake.guild_id().to_string())
        .env_remove("MATRIX_USER")
        .env_remove("MATRIX_ACCESS_TOKEN")
        .env_remove("FAIRYBOT_DATABASE_URL")
        .env_remove("FAIRYBOT_DATA_DIR")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn kill_9(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Messages anywhere (channel posts, interaction responses and follow-ups) containing
/// `text`, not counting deleted ones.
fn shown(fake: &FakeDiscord, text: &str) -> usize {
    fake.inspect(|r| {
        r.messages()
            .iter()
            .filter(|m| !m.deleted && m.content.contains(text))
            .count()
    })
}

fn announcements(fake: &FakeDiscord) -> usize {
    shown(fake, "plays e4")
}

/// A count read straight from the bot's database file (`sql` is a `SELECT COUNT(*)`).
async fn count(data: &Path, sql: &str) -> usize {
    use sqlx::Connection;
    let url = format!("sqlite://{}", data.join("fairybot.db").display());
    let mut conn = sqlx::sqlite::SqliteConnection::connect(&url).await.unwrap();
    let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    usize::try_from(n).unwrap()
}

async fn stored_moves(data: &Path) -> usize {
    count(data, "SELECT COUNT(*) FROM moves").await
}

/// Outbox entries not yet reported delivered.
async fn waiting_entries(data: &Path) -> usize {
    count(data, "SELECT COUNT(*) FROM outbox WHERE state = 'waiting'").await
}

/// Alice challenges Bob to chess as White and Bob accepts; returns once everything said so
/// far is reported delivered.
async fn start_game(fake: &FakeDiscord, data: &Path) {
    fake.wait_guild_commands(ids::GUILD).await.unwrap();
    fake.slash("challenge")
        .user("opponent", ids::BOB)
        .string("variant", "chess")
        .integer("colour", 0)
        .send();
    fake.wait_until("the challenge", Duration::from_secs(20), |r| {
        r.messages()
            .iter()
            .any(|m| m.content.contains("challenges"))
            .then_some(())
    })
    .await
    .unwrap();
    fake.slash("accept").by(ids::BOB).send();
    fake.wait_until("the start", Duration::from_secs(20), |r| {
        r.messages()
            .iter()
            .any(|m| m.content.contains("starts"))
            .then_some(())
    })
    .await
    .unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    while waiting_entries(data).await > 0 {
        assert!(
            Instant::now() < end,
            "the start's replies were never reported"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_at_any_moment_after_a_move_loses_no_announcement_on_discord() {
    let mut stored_runs = 0;
    let mut recovered = 0;
    for offset_ms in [0u64, 5, 20, 50, 100, 200, 400] {
        let fake = FakeDiscord::start().await;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let mut bot = start_bot(&fake, &data);
        start_game(&fake, &data).await;
        fake.slash("move")
            .string("move", "e4")
            .by(ids::ALICE)
            .send();
        tokio::time::sleep(Duration::from_millis(offset_ms)).await;
        kill_9(&mut bot);
        let before = announcements(&fake);

        let mut bot = start_bot(&fake, &data);
        let stored = stored_moves(&data).await > 0;
        // What the killed process owed is sent by the new one's sender.
        let end = Instant::now() + Duration::from_secs(10);
        while stored && announcements(&fake) == 0 && Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = announcements(&fake);
        kill_9(&mut bot);
        // What was delivered and reported before the kill is never sent again.
        for said in ["challenges", "starts"] {
            let seen: Vec<String> = fake.inspect(|r| {
                r.messages()
                    .iter()
                    .filter(|m| !m.deleted && m.content.contains(said))
                    .map(|m| {
                        format!(
                            "channel {} nonce {:?} interaction {:?}: {}",
                            m.channel_id,
                            m.nonce(),
                            m.interaction_id(),
                            m.content
                        )
                    })
                    .collect()
            });
            assert_eq!(
                seen.len(),
                1,
                "{said:?} shown again after the restart (killed {offset_ms} ms after the move): {seen:#?}"
            );
        }
        if stored {
            stored_runs += 1;
            assert!(
                after >= 1,
                "killed {offset_ms} ms after the move: stored but never announced"
            );
            assert_eq!(
                after, 1,
                "killed {offset_ms} ms after the move: announced {after} times ({before} before the restart)"
            );
            if before == 0 {
                recovered += 1;
            }
        } else {
            assert_eq!(
                after, 0,
                "killed {offset_ms} ms after the move: announced but not stored"
            );
        }
        fake.shutdown().await;
    }
    println!(
        "moves stored in {stored_runs} of 7 runs; announced only after the restart in {recovered}"
    );
    assert!(
        stored_runs >= 3,
        "the kills came too early to test anything"
    );
}

/// The window the offsets above may miss, made to last: Discord carries out the move's
/// answer (the edit of the deferred "thinking…") and answers 500, again on every retry, so the
/// bot never learns that its answer is shown; it is killed then. The restarted process finds
/// the answer shown in the interaction's original (the handle is stored with the reply) and
/// does not give it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_after_discord_showed_the_answer_and_before_the_report_it_is_shown_once() {
    let fake = FakeDiscord::start().await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut bot = start_bot(&fake, &data);
    start_game(&fake, &data).await;
    let edits_original =
        |m: &str, r: &str| m == "PATCH" && r.starts_with("webhooks/") && r.ends_with("/@original");
    fake.fail_after_doing(
        edits_original,
        discord_fake::DiscordError::internal_server_error(),
        None,
    );
    fake.slash("move")
        .string("move", "e4")
        .by(ids::ALICE)
        .send();
    fake.wait_until("the answer, carried out", Duration::from_secs(20), |r| {
        r.requests()
            .iter()
            .any(|q| q.status == 500 && edits_original(&q.method, &q.route))
            .then_some(())
    })
    .await
    .unwrap();
    kill_9(&mut bot);
    assert_eq!(
        announcements(&fake),
        1,
        "shown by the edit Discord carried out"
    );
    assert_eq!(waiting_entries(&data).await, 1, "and never reported");
    fake.clear_failures();

    let mut bot = start_bot(&fake, &data);
    let end = Instant::now() + Duration::from_secs(20);
    while waiting_entries(&data).await > 0 {
        assert!(
            Instant::now() < end,
            "the restarted sender never settled it"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    kill_9(&mut bot);
    assert_eq!(announcements(&fake), 1, "shown once");
    fake.shutdown().await;
}
