//! Opening a store when things are not as they should be: a file that is not a database, one
//! that cannot be written, a directory that cannot be created (each refused at once, naming the
//! file), and several processes starting together on one new database (all must succeed).
//!
//! The concurrent start uses real processes: this test binary runs itself again with
//! `--ignored --exact child_opens_the_store_named_in_the_environment`, and that child opens the
//! store named by `FAIRYBOT_CHILD_DB` and exits 0 only if the store opened.

mod common;

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use bot_store::{OpenError, SqlStore};

/// Well under a second: the old behaviour was 30 s of pool retries.
const PROMPT: Duration = Duration::from_millis(1000);

#[tokio::test]
async fn a_garbage_file_is_refused_at_once_by_name() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("fairybot.db");
    std::fs::write(
        &path,
        b"this is not a database, it is a shopping list\n".repeat(200),
    )
    .unwrap();
    let started = Instant::now();
    let err = SqlStore::open_sqlite(&path).await.unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, OpenError::NotADatabase { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("not a SQLite database"), "{text}");
    assert!(took < PROMPT, "took {took:?}");
    // Nothing was written to it.
    assert!(std::fs::read(&path).unwrap().starts_with(b"this is not"));
}

#[tokio::test]
async fn a_garbage_file_behind_a_url_is_refused_at_once_too() {
    // The header check is in `open_sqlite`; a `sqlite:` URL goes straight to SQLite, whose
    // "not a database" code must give the same error, promptly.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("junk.db");
    std::fs::write(&path, vec![0xA5u8; 8192]).unwrap();
    let started = Instant::now();
    let err = SqlStore::connect(&format!("sqlite:{}", path.display()))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, OpenError::NotADatabase { path: p } if p == &path),
        "{err:?}"
    );
    assert!(started.elapsed() < PROMPT, "took {:?}", started.elapsed());
}

#[tokio::test]
async fn a_data_directory_under_a_regular_file_is_refused_by_name() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let started = Instant::now();
    let err = SqlStore::open_sqlite(file.join("data").join("fairybot.db"))
        .await
        .unwrap_err();
    assert!(matches!(err, OpenError::DataDir { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("plain-file"), "{text}");
    assert!(text.contains("cannot create the data directory"), "{text}");
    assert!(started.elapsed() < PROMPT);
}

#[tokio::test]
async fn a_directory_where_the_file_should_be_is_refused() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("fairybot.db");
    std::fs::create_dir(&path).unwrap();
    let err = SqlStore::open_sqlite(&path).await.unwrap_err();
    assert!(err.to_string().contains("is a directory"), "{err}");
}

/// A read-only database. The tests run as root, for whom permission bits do not stop writes, so
/// the file is made immutable (`chattr +i`), which stops root too; a read-only open (`mode=ro`)
/// covers SQLite's own read-only report.
#[tokio::test]
async fn a_read_only_database_is_refused_at_once_by_name() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("fairybot.db");
    SqlStore::open_sqlite(&path).await.unwrap().close().await;

    // SQLite's read-only code, through a URL that opens the file read-only.
    let started = Instant::now();
    let err = SqlStore::connect(&format!("sqlite:{}?mode=ro", path.display()))
        .await
        .unwrap_err();
    assert!(matches!(err, OpenError::ReadOnly { .. }), "{err:?}");
    assert!(err.to_string().contains("read-only"), "{err}");
    assert!(started.elapsed() < PROMPT);

    // The file itself unwritable, even for root.
    let immutable = Command::new("chattr").arg("+i").arg(&path).status();
    if !matches!(immutable, Ok(s) if s.success()) {
        panic!(
            "chattr +i failed ({immutable:?}): this test needs a file system with immutable \
             files (ext4, xfs, btrfs) and CAP_LINUX_IMMUTABLE"
        );
    }
    let started = Instant::now();
    let result = SqlStore::open_sqlite(&path).await;
    let took = started.elapsed();
    let _ = Command::new("chattr").arg("-i").arg(&path).status();
    let err = result.unwrap_err();
    assert!(matches!(err, OpenError::ReadOnly { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("read-only") && text.contains(&path.display().to_string()),
        "{text}"
    );
    assert!(took < PROMPT, "took {took:?}");
}

/// How many processes start at once, and how many times.
const PROCESSES: usize = 6;
const ROUNDS: usize = 5;
const CHILD: &str = "child_opens_the_store_named_in_the_environment";

/// Starts [`PROCESSES`] copies of this test binary at once, each opening `target`, and
/// returns the failures (status and output).
fn start_together(target: &str) -> Vec<String> {
    let exe = std::env::current_exe().unwrap();
    // Every child waits for the same moment before it opens the store, so that they collide
    // rather than start one after another as they are spawned.
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        + 500;
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--ignored",
                    "--exact",
                    CHILD,
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("FAIRYBOT_CHILD_DB", target)
                .env("FAIRYBOT_CHILD_AT", at.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .filter_map(|c| {
            let out = c.wait_with_output().unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            (!out.status.success() || !text.contains("1 passed"))
                .then(|| format!("{}: {text}", out.status))
        })
        .collect()
}

/// Not a test of its own: the process [`start_together`] starts. Ignored in normal runs.
#[tokio::test]
#[ignore = "run by start_together as a child process"]
async fn child_opens_the_store_named_in_the_environment() {
    let target = std::env::var("FAIRYBOT_CHILD_DB").expect("FAIRYBOT_CHILD_DB");
    let at: u128 = std::env::var("FAIRYBOT_CHILD_AT")
        .expect("FAIRYBOT_CHILD_AT")
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    tokio::time::sleep(Duration::from_millis(
        u64::try_from(at.saturating_sub(now)).unwrap_or(0),
    ))
    .await;
    let opened = if target.starts_with("postgres") {
        SqlStore::connect(&target).await
    } else {
        SqlStore::open_sqlite(Path::new(&target)).await
    };
    let store = opened.unwrap_or_else(|e| panic!("open failed: {e}"));
    store.close().await;
}

#[test]
fn processes_starting_together_on_one_new_sqlite_file_all_succeed() {
    for round in 0..ROUNDS {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let path = dir.path().join("data").join("fairybot.db");
        let failures = start_together(path.to_str().unwrap());
        assert!(
            failures.is_empty(),
            "round {round}: {} of {PROCESSES} failed:\n{}",
            failures.len(),
            failures.join("\n---\n")
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn processes_starting_together_on_one_new_postgres_schema_all_succeed() {
    let Some(url) = common::postgres_url("concurrent PostgreSQL start-up") else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    for round in 0..ROUNDS {
        let (schema, schema_url) = schemas.empty().await;
        let failures = tokio::task::spawn_blocking(move || start_together(&schema_url))
            .await
            .unwrap();
        assert!(
            failures.is_empty(),
            "round {round} ({schema}): {} of {PROCESSES} failed:\n{}",
            failures.len(),
            failures.join("\n---\n")
        );
    }
    schemas.drop_all().await;
}
