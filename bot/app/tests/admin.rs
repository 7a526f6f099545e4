//! The binary's commands for the people who run it, as they would type them: a backup taken
//! of a database a console is playing on, restored by putting the file in place, and the
//! Discord invitation link.

use std::{
    path::Path,
    process::{Command, Output, Stdio},
};

const BIN: &str = env!("CARGO_BIN_EXE_fairybot");

fn fairybot(data: &Path, args: &[&str], env: &[(&str, &str)], input: &str) -> Output {
    let mut c = Command::new(BIN);
    c.arg("--data")
        .arg(data)
        .args(args)
        .current_dir(data.parent().unwrap())
        .env_remove("DISCORD_TOKEN")
        .env_remove("MATRIX_USER")
        .env_remove("MATRIX_ACCESS_TOKEN")
        .env_remove("FAIRYBOT_DATABASE_URL")
        .env_remove("FAIRYBOT_DATA_DIR")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_backup_restores_the_games_it_was_taken_with() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let played = fairybot(&data, &[], &[], "play chess\ne4\ne5\n");
    assert!(played.status.success(), "{}", text(&played));

    let backup = dir.path().join("saved.db");
    let out = fairybot(&data, &["backup", backup.to_str().unwrap()], &[], "");
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("a consistent copy"), "{}", text(&out));
    // Never over an existing file.
    let again = fairybot(&data, &["backup", backup.to_str().unwrap()], &[], "");
    assert!(!again.status.success());
    assert!(text(&again).contains("exists already"), "{}", text(&again));

    // More play after the backup, then the restore: the game is back as it was saved.
    let more = fairybot(&data, &[], &[], "Nf3\n");
    assert!(text(&more).contains("plays Nf3"), "{}", text(&more));
    std::fs::remove_dir_all(&data).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(&backup, data.join("fairybot.db")).unwrap();
    let history = fairybot(&data, &[], &[], "history\n");
    let h = text(&history);
    assert!(h.contains("1. e4 e5"), "{h}");
    assert!(!h.contains("Nf3"), "{h}");
}

#[test]
fn invite_url_prints_the_link_of_the_configured_application() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB";
    let out = fairybot(&data, &["invite-url"], &[("DISCORD_TOKEN", token)], "");
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("https://discord.com/oauth2/authorize?client_id=123456789012345678&"),
        "{t}"
    );
    assert!(!t.contains(token), "the token is never printed: {t}");
    // No application configured: what to set.
    let out = fairybot(&data, &["invite-url"], &[], "");
    assert!(!out.status.success());
    assert!(text(&out).contains("set DISCORD_TOKEN"), "{}", text(&out));
}
