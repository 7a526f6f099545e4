//! Upgrading a database: a store created by the migrations before issue 14 (two-seat
//! challenges, offers without agreements), with a challenge, a game and an offer in it, is
//! opened by this version. The new migration must leave every old row reading as it did, and
//! the upgraded database must take challenges to several players. And games of players'
//! variants rated under the family their file claimed (before issue 30 rated them by
//! definition) count for their definition once upgraded, if still being played. On SQLite
//! always, on PostgreSQL when `TEST_POSTGRES_URL` is set.

mod common;

use std::path::{Path, PathBuf};

use bot_core::{
    model::{
        ChallengeStatus, GameStatus, NewChallenge, NewGame, Offer, OfferKind, Place, Platform,
        PlayerId,
    },
    store::GameStore,
};
use bot_store::SqlStore;
use sqlx::{AnyPool, migrate::Migrator};

/// The migrations issue 14 found: the schema every database had before it.
const BEFORE: &[&str] = &[
    "20260101000000_initial.sql",
    "20261125000000_drop_preferences.sql",
];

/// The first migration that rates games of players' variants by their definition.
const RATED_BY_DEFINITION: &str = "20261203000000_custom_games_rated_by_definition.sql";

/// A folder with only the migrations of `BEFORE` for `backend`.
fn old_migrations(backend: &str) -> tempfile::TempDir {
    migrations_where(backend, |name| BEFORE.contains(&name))
}

/// A folder with `backend`'s migrations that `keep` keeps.
fn migrations_where(backend: &str, keep: impl Fn(&str) -> bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(backend);
    for entry in std::fs::read_dir(&from).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if keep(&name) {
            std::fs::copy(from.join(&name), dir.path().join(&name)).unwrap();
        }
    }
    dir
}

/// Three games as the version before [`RATED_BY_DEFINITION`] left them: a player's variant
/// claiming chess's family, being played and finished, and a game of chess.
async fn custom_games_rated_by_claim(pool: &AnyPool) {
    for (variant, status, result, reason) in [
        ("custom:ab12", "active", "NULL", "NULL"),
        ("custom:ab12", "finished", "'1-0'", "'resignation'"),
        ("chess", "active", "NULL", "NULL"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO games (variant, options, start_state, platform, room, thread, status, \
             result, reason, version, created_at, updated_at, rating_family) VALUES \
             ('{variant}', '', 'x', 'console', 'room', NULL, '{status}', {result}, {reason}, 1, \
             1, 1, 'chess')"
        )))
        .execute(pool)
        .await
        .unwrap();
    }
}

/// After the upgrade: the game being played counts for its definition, the others as before.
async fn check_rated_by_definition(store: &SqlStore) {
    let mut games = store.list_games(&Default::default()).await.unwrap();
    games.sort_by_key(|g| g.id.0);
    let families: Vec<_> = games
        .iter()
        .map(|g| (g.variant.as_str(), g.rating_family.as_deref()))
        .collect();
    assert_eq!(
        families,
        vec![
            ("custom:ab12", Some("custom:ab12")),
            ("custom:ab12", Some("chess")),
            ("chess", Some("chess")),
        ]
    );
}

/// Rows as the old version wrote them: a pending two-player challenge and a game with a
/// move and a pending draw offer by seat 1.
async fn old_rows(pool: &AnyPool) {
    for sql in [
        "INSERT INTO players (platform, user_id, display_name, created_at, updated_at) \
         VALUES ('console', 'alice', 'Alice', 1, 1), ('console', 'bob', 'Bob', 1, 1)",
        "INSERT INTO challenges (challenger_platform, challenger_user, challenged_platform, \
         challenged_user, variant, options, platform, room, thread, status, created_at, \
         updated_at) VALUES ('console', 'alice', 'console', 'bob', 'chess', '', 'console', \
         'room', NULL, 'pending', 5, 5)",
        "INSERT INTO games (variant, options, start_state, platform, room, thread, status, \
         offer_kind, offer_seat, version, created_at, updated_at) VALUES ('chess', '', \
         'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'console', 'room', NULL, \
         'active', 'draw', 1, 3, 6, 7)",
        "INSERT INTO seats (game_id, seat, platform, user_id) VALUES (1, 0, 'console', 'alice'), \
         (1, 1, 'console', 'bob')",
        "INSERT INTO moves (game_id, ply, mv, created_at) VALUES (1, 0, 'e2e4', 7)",
    ] {
        sqlx::query(sql).execute(pool).await.unwrap();
    }
}

fn console(name: &str) -> PlayerId {
    PlayerId::new(Platform::Console, name)
}

/// What the upgraded store must read, and that it takes a four-player challenge.
async fn check_upgraded(store: &SqlStore) {
    let challenges = store.list_challenges(&Default::default()).await.unwrap();
    assert_eq!(challenges.len(), 1);
    let old = &challenges[0];
    assert_eq!(old.challenger, console("alice"));
    assert_eq!(old.challenged, Some(console("bob")));
    assert!(old.more_invited.is_empty() && old.accepted.is_empty());
    assert_eq!(old.status, ChallengeStatus::Pending);
    assert_eq!((old.created_at, old.updated_at), (5, 5));

    let game = store
        .list_games(&Default::default())
        .await
        .unwrap()
        .remove(0);
    assert_eq!(game.seats, vec![console("alice"), console("bob")]);
    assert_eq!(game.moves, vec!["e2e4"]);
    assert_eq!(game.status, GameStatus::Active);
    assert_eq!(game.version, 3);
    assert_eq!(
        game.pending_offer,
        Some(Offer::new(OfferKind::Draw, 1)),
        "an old offer reads with nobody's agreement"
    );

    // The old two-player challenge is accepted the old way.
    let place = Place::room(Platform::Console, "room");
    let (accepted, g) = store
        .accept_invitation(
            old.id,
            &console("bob"),
            NewGame {
                variant: "chess".into(),
                options: String::new(),
                start_state: "x".into(),
                seats: vec![console("alice"), console("bob")],
                place: place.clone(),
                rating_family: None,
                clock: None,
                created_at: 9,
            },
        )
        .await
        .unwrap();
    assert!(
        matches!(accepted.status, ChallengeStatus::Accepted(id) if Some(id) == g.map(|g| g.id))
    );

    // And a challenge to three players is kept whole.
    let four = store
        .create_challenge(NewChallenge {
            challenger: console("alice"),
            challenged: Some(console("bob")),
            more_invited: vec![console("carol"), console("dave")],
            variant: "dcb-balanced-4p".into(),
            options: String::new(),
            place,
            created_at: 10,
        })
        .await
        .unwrap();
    assert_eq!(store.get_challenge(four.id).await.unwrap(), four);
    assert_eq!(four.more_invited, vec![console("carol"), console("dave")]);
}

/// A database at `url` as an older version left it: the migrations in `folder` run, the pool
/// open for that version's rows.
async fn old_database(url: &str, folder: &Path) -> AnyPool {
    let pool = AnyPool::connect(url).await.unwrap();
    Migrator::new(folder)
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    pool
}

/// A fresh SQLite file in `dir` and its URL.
fn sqlite_file(dir: &Path) -> (PathBuf, String) {
    sqlx::any::install_default_drivers();
    let path = dir.join("old.db");
    let url = format!("sqlite:{}?mode=rwc", path.display());
    (path, url)
}

#[tokio::test]
async fn an_old_sqlite_database_is_upgraded_with_its_rows_untouched() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let (path, url) = sqlite_file(dir.path());
    let migrations = old_migrations("sqlite");
    let pool = old_database(&url, migrations.path()).await;
    old_rows(&pool).await;
    pool.close().await;

    let store = SqlStore::open_sqlite(&path).await.unwrap();
    check_upgraded(&store).await;
    store.close().await;
}

#[tokio::test]
async fn an_old_postgres_database_is_upgraded_with_its_rows_untouched() {
    let Some(url) = common::postgres_url("an_old_postgres_database_is_upgraded") else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    let (_, schema_url) = schemas.empty().await;
    let migrations = old_migrations("postgres");
    let pool = old_database(&schema_url, migrations.path()).await;
    old_rows(&pool).await;
    pool.close().await;

    let store = SqlStore::connect(&schema_url).await.unwrap();
    check_upgraded(&store).await;
    store.close().await;
    schemas.drop_all().await;
}

#[tokio::test]
async fn a_player_variant_game_still_being_played_counts_for_its_definition_once_upgraded() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let (path, url) = sqlite_file(dir.path());
    let migrations = migrations_where("sqlite", |name| name < RATED_BY_DEFINITION);
    let pool = old_database(&url, migrations.path()).await;
    custom_games_rated_by_claim(&pool).await;
    pool.close().await;
    let store = SqlStore::open_sqlite(&path).await.unwrap();
    check_rated_by_definition(&store).await;
    store.close().await;
}

#[tokio::test]
async fn a_player_variant_game_on_postgres_counts_for_its_definition_once_upgraded() {
    let Some(url) = common::postgres_url("a_player_variant_game_on_postgres") else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    let (_, schema_url) = schemas.empty().await;
    let migrations = migrations_where("postgres", |name| name < RATED_BY_DEFINITION);
    let pool = old_database(&schema_url, migrations.path()).await;
    custom_games_rated_by_claim(&pool).await;
    pool.close().await;
    let store = SqlStore::connect(&schema_url).await.unwrap();
    check_rated_by_definition(&store).await;
    store.close().await;
    schemas.drop_all().await;
}
