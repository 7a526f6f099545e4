//! The two migration folders must describe the same schema: same tables, same columns with
//! the same type family and nullability, same secondary indexes.

mod common;

use std::collections::BTreeSet;

use bot_store::SqlStore;
use sqlx::Row;

/// (table, column, type family, not null)
type Column = (String, String, &'static str, bool);

fn family(declared: &str) -> &'static str {
    match declared.to_ascii_lowercase().as_str() {
        "integer" | "bigint" => "int",
        "text" => "text",
        // Glicko-2 ratings: SQLite's REAL and PostgreSQL's DOUBLE PRECISION are both f64.
        "real" | "double precision" => "float",
        other => panic!("unexpected column type {other}: add it to the portable set or avoid it"),
    }
}

async fn sqlite_schema() -> (BTreeSet<Column>, BTreeSet<String>) {
    let store = SqlStore::connect("sqlite::memory:").await.unwrap();
    let rows = sqlx::query(
        "SELECT m.name AS tbl, p.name AS col, p.type AS ty, p.\"notnull\" AS nn, p.pk AS pk \
         FROM sqlite_master m JOIN pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%' AND m.name NOT LIKE '\\_sqlx%' ESCAPE '\\'",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    let columns = rows
        .iter()
        .map(|r| {
            let ty: String = r.get("ty");
            let not_null = r.get::<i64, _>("nn") == 1 || r.get::<i64, _>("pk") > 0;
            (r.get("tbl"), r.get("col"), family(&ty), not_null)
        })
        .collect();
    let indexes = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
    .into_iter()
    .collect();
    (columns, indexes)
}

#[tokio::test]
async fn sqlite_schema_has_the_expected_tables() {
    let (columns, indexes) = sqlite_schema().await;
    let tables: BTreeSet<&str> = columns.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        tables,
        BTreeSet::from([
            "analyses",
            "challenge_invitees",
            "challenges",
            "custom_variants",
            "games",
            "held_messages",
            "moves",
            "outbox",
            "players",
            "rating_changes",
            "ratings",
            "seats",
            "variant_definitions"
        ])
    );
    assert!(columns.contains(&("ratings".into(), "rating".into(), "float", true)));
    assert!(columns.contains(&("games".into(), "rating_family".into(), "text", false)));
    assert!(columns.contains(&("moves".into(), "ply".into(), "int", true)));
    assert!(columns.contains(&("games".into(), "offer_agreed".into(), "int", true)));
    assert!(columns.contains(&(
        "challenge_invitees".into(),
        "accepted_at".into(),
        "int",
        false
    )));
    assert!(indexes.contains("seats_by_player"));
    assert!(columns.contains(&("held_messages".into(), "game_id".into(), "int", false)));
    assert!(indexes.contains("held_messages_by_player"));
    assert!(indexes.contains("challenge_invitees_by_player"));
    assert!(indexes.contains("ratings_by_family"));
    assert!(indexes.contains("outbox_by_key"));
    assert!(indexes.contains("outbox_waiting"));
    assert!(columns.contains(&("outbox".into(), "claim_until_ms".into(), "int", false)));
    assert!(columns.contains(&("analyses".into(), "result".into(), "text", false)));
    assert!(columns.contains(&("analyses".into(), "updated_ms".into(), "int", true)));
}

#[tokio::test]
async fn sqlite_and_postgres_migrations_agree() {
    let Some(url) = common::postgres_url("sqlite_and_postgres_migrations_agree") else {
        return;
    };
    let schemas = common::PgSchemas::new(&url).await;
    let pg = schemas.store().await;
    let rows = sqlx::query(
        "SELECT table_name::text AS tbl, column_name::text AS col, data_type::text AS ty, \
         is_nullable::text AS nullable FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name NOT LIKE '\\_sqlx%'",
    )
    .fetch_all(pg.pool())
    .await
    .unwrap();
    let pg_columns: BTreeSet<Column> = rows
        .iter()
        .map(|r| {
            let ty: String = r.get("ty");
            let nullable: String = r.get("nullable");
            (r.get("tbl"), r.get("col"), family(&ty), nullable == "NO")
        })
        .collect();
    let pg_indexes: BTreeSet<String> = sqlx::query_scalar(
        "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() \
         AND indexname NOT LIKE '%\\_pkey'",
    )
    .fetch_all(pg.pool())
    .await
    .unwrap()
    .into_iter()
    .collect();
    pg.close().await;
    schemas.drop_all().await;

    let (sqlite_columns, sqlite_indexes) = sqlite_schema().await;
    assert_eq!(
        sqlite_columns, pg_columns,
        "columns differ between the backends"
    );
    assert_eq!(
        sqlite_indexes, pg_indexes,
        "indexes differ between the backends"
    );
}
