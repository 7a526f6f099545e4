//! Helpers shared by the integration tests: PostgreSQL test schemas.
#![allow(dead_code)] // each test binary uses a different subset

use std::{
    sync::atomic::{AtomicU32, Ordering},
    time::{SystemTime, UNIX_EPOCH},
};

use bot_store::SqlStore;
use sqlx::AssertSqlSafe;

/// The environment variable naming a PostgreSQL database the tests may create schemas in;
/// `scripts/postgres-test.sh url` prints a suitable value.
pub const POSTGRES_ENV: &str = "TEST_POSTGRES_URL";

/// The PostgreSQL URL to test against, or `None` after printing a skip line.
pub fn postgres_url(test: &str) -> Option<String> {
    match std::env::var(POSTGRES_ENV) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            // scripts/test (and so CI) sets this after starting a cluster: a skip there would
            // hide a broken setup behind green tests.
            assert!(
                std::env::var_os("FAIRYBOT_REQUIRE_POSTGRES").is_none(),
                "{test}: FAIRYBOT_REQUIRE_POSTGRES is set but {POSTGRES_ENV} is not"
            );
            println!(
                "SKIP {test}: {POSTGRES_ENV} is not set (start one with \
                 `scripts/postgres-test.sh start` and export the URL it prints)"
            );
            None
        }
    }
}

/// Fresh, uniquely named schemas inside the test database, one per store, so runs and checks
/// never see each other's rows; dropped again by [`PgSchemas::drop_all`].
#[derive(Debug)]
pub struct PgSchemas {
    url: String,
    prefix: String,
    next: AtomicU32,
    admin: sqlx::AnyPool,
}

impl PgSchemas {
    pub async fn new(url: &str) -> Self {
        sqlx::any::install_default_drivers();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let admin = sqlx::any::AnyPoolOptions::new()
            .max_connections(1)
            .connect(url)
            .await
            .expect("connect to TEST_POSTGRES_URL");
        PgSchemas {
            url: url.to_owned(),
            prefix: format!(
                "fbtest_{}_{}",
                std::process::id(),
                nanos % 1_000_000_000_000
            ),
            next: AtomicU32::new(0),
            admin,
        }
    }

    /// A new empty schema: its name and a URL whose connections use it.
    pub async fn empty(&self) -> (String, String) {
        let schema = format!(
            "{}_{}",
            self.prefix,
            self.next.fetch_add(1, Ordering::Relaxed)
        );
        sqlx::query(AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
            .execute(&self.admin)
            .await
            .expect("create test schema");
        let sep = if self.url.contains('?') { '&' } else { '?' };
        let url = format!("{}{sep}options[search_path]={schema}", self.url);
        (schema, url)
    }

    /// A new empty schema and a migrated store whose connections use it.
    pub async fn store(&self) -> SqlStore {
        let (_, url) = self.empty().await;
        SqlStore::connect(&url)
            .await
            .expect("open PostgreSQL store")
    }

    /// Drop every schema this instance created.
    pub async fn drop_all(&self) {
        let schemas: Vec<String> = sqlx::query_scalar(
            "SELECT schema_name::text FROM information_schema.schemata WHERE schema_name LIKE $1",
        )
        .bind(format!("{}\\_%", self.prefix))
        .fetch_all(&self.admin)
        .await
        .expect("list test schemas");
        for schema in schemas {
            sqlx::query(AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
                .execute(&self.admin)
                .await
                .expect("drop test schema");
        }
    }
}
