//! Players' variants in SQL ([`bot_core::custom::VariantStore`]): the same portable queries on
//! SQLite and PostgreSQL, writes through the store's write turns like every other write.

use bot_core::{
    custom::{CustomVariant, Definition, Scope, SourceFormat, VariantStore},
    store::{Result, StoreError},
};
use sqlx::{AssertSqlSafe, any::AnyRow};

use super::SqlStore;
use crate::codec::{backend, get};

fn entry(row: &AnyRow) -> Result<CustomVariant> {
    let format: String = get(row, "format")?;
    Ok(CustomVariant {
        scope: Scope(get(row, "scope")?),
        name: get(row, "name")?,
        author: get(row, "author")?,
        format: SourceFormat::parse(&format)
            .ok_or_else(|| StoreError::Corrupt(format!("variant format {format:?}")))?,
        source: get(row, "source")?,
        hash: get(row, "hash")?,
        added_ms: get(row, "added_ms")?,
    })
}

const COLUMNS: &str = "scope, name, author, format, source, hash, added_ms";

impl VariantStore for SqlStore {
    async fn put_definition(&self, def: &Definition) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO variant_definitions (hash, definition) VALUES ($1, $2) \
             ON CONFLICT (hash) DO NOTHING",
        )
        .bind(&def.hash)
        .bind(&def.toml)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        tx.commit().await
    }

    async fn get_definition(&self, hash: &str) -> Result<Option<Definition>> {
        let row = sqlx::query("SELECT definition FROM variant_definitions WHERE hash = $1")
            .bind(hash)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?;
        row.map(|r| {
            Ok(Definition {
                hash: hash.to_string(),
                toml: get(&r, "definition")?,
            })
        })
        .transpose()
    }

    async fn insert_variant(&self, v: &CustomVariant) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "INSERT INTO custom_variants (scope, name, author, format, source, hash, added_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, name) DO NOTHING",
        )
        .bind(&v.scope.0)
        .bind(&v.name)
        .bind(&v.author)
        .bind(v.format.as_str())
        .bind(&v.source)
        .bind(&v.hash)
        .bind(v.added_ms)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    async fn list_variants(&self, scope: &Scope) -> Result<Vec<CustomVariant>> {
        let rows = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM custom_variants WHERE scope = $1 ORDER BY name"
        )))
        .bind(&scope.0)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        rows.iter().map(entry).collect()
    }

    async fn get_variant(&self, scope: &Scope, name: &str) -> Result<Option<CustomVariant>> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM custom_variants WHERE scope = $1 AND name = $2"
        )))
        .bind(&scope.0)
        .bind(name)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        row.as_ref().map(entry).transpose()
    }

    async fn remove_variant(&self, scope: &Scope, name: &str) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM custom_variants WHERE scope = $1 AND name = $2")
            .bind(&scope.0)
            .bind(name)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }
}
