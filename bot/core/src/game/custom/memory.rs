//! The in-memory [`VariantStore`], for tests and the console without a database.

use std::{collections::BTreeMap, sync::Mutex};

use super::{CustomVariant, Definition, Scope, VariantStore};
use crate::store::Result;

/// Players' variants held in memory.
#[derive(Debug, Default)]
pub struct MemoryVariants {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    definitions: BTreeMap<String, String>,
    variants: BTreeMap<(Scope, String), CustomVariant>,
}

impl MemoryVariants {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl VariantStore for MemoryVariants {
    async fn put_definition(&self, def: &Definition) -> Result<()> {
        self.lock()
            .definitions
            .entry(def.hash.clone())
            .or_insert_with(|| def.toml.clone());
        Ok(())
    }

    async fn get_definition(&self, hash: &str) -> Result<Option<Definition>> {
        Ok(self.lock().definitions.get(hash).map(|t| Definition {
            hash: hash.to_string(),
            toml: t.clone(),
        }))
    }

    async fn insert_variant(&self, v: &CustomVariant) -> Result<bool> {
        let mut inner = self.lock();
        let key = (v.scope.clone(), v.name.clone());
        if inner.variants.contains_key(&key) {
            return Ok(false);
        }
        inner.variants.insert(key, v.clone());
        Ok(true)
    }

    async fn list_variants(&self, scope: &Scope) -> Result<Vec<CustomVariant>> {
        Ok(self
            .lock()
            .variants
            .iter()
            .filter(|((s, _), _)| s == scope)
            .map(|(_, v)| v.clone())
            .collect())
    }

    async fn get_variant(&self, scope: &Scope, name: &str) -> Result<Option<CustomVariant>> {
        Ok(self
            .lock()
            .variants
            .get(&(scope.clone(), name.to_string()))
            .cloned())
    }

    async fn remove_variant(&self, scope: &Scope, name: &str) -> Result<bool> {
        Ok(self
            .lock()
            .variants
            .remove(&(scope.clone(), name.to_string()))
            .is_some())
    }
}
