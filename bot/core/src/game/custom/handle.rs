//! The library as the game service holds it: without its store's type parameter, so that
//! adding players' variants to a service does not change the service's type (every adapter
//! names `GameService<S, C>`).

use std::sync::Arc;

use rules::Variant;

use super::{Added, CustomError, CustomVariant, Library, Scope, VariantStore};
use crate::service::BoxFuture;

/// A [`Library`] behind a trait object ([`crate::GameService::with_custom_variants`]).
pub trait CustomLibrary: Send + Sync + std::fmt::Debug + 'static {
    /// [`Library::add`].
    fn add<'a>(
        &'a self,
        scope: &'a Scope,
        author: &'a str,
        file_name: Option<&'a str>,
        text: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Added, CustomError>>;
    /// [`Library::list`].
    fn list<'a>(
        &'a self,
        scope: &'a Scope,
    ) -> BoxFuture<'a, Result<Vec<CustomVariant>, CustomError>>;
    /// [`Library::entry`].
    fn entry<'a>(
        &'a self,
        scope: &'a Scope,
        name: &'a str,
    ) -> BoxFuture<'a, Result<CustomVariant, CustomError>>;
    /// [`Library::remove`].
    fn remove<'a>(
        &'a self,
        scope: &'a Scope,
        name: &'a str,
        actor: &'a str,
        admin: bool,
    ) -> BoxFuture<'a, Result<(), CustomError>>;
    /// [`Library::by_hash`].
    fn by_hash<'a>(&'a self, hash: &'a str) -> BoxFuture<'a, Result<Arc<Variant>, CustomError>>;
    /// The variant of a hash already loaded by [`CustomLibrary::by_hash`] (or added), without
    /// waiting: for the service's synchronous replay.
    fn cached(&self, hash: &str) -> Option<Arc<Variant>>;
}

impl<S: VariantStore + std::fmt::Debug + 'static> CustomLibrary for Library<S> {
    fn add<'a>(
        &'a self,
        scope: &'a Scope,
        author: &'a str,
        file_name: Option<&'a str>,
        text: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Added, CustomError>> {
        Box::pin(Library::add(self, scope, author, file_name, text, now_ms))
    }

    fn list<'a>(
        &'a self,
        scope: &'a Scope,
    ) -> BoxFuture<'a, Result<Vec<CustomVariant>, CustomError>> {
        Box::pin(Library::list(self, scope))
    }

    fn entry<'a>(
        &'a self,
        scope: &'a Scope,
        name: &'a str,
    ) -> BoxFuture<'a, Result<CustomVariant, CustomError>> {
        Box::pin(Library::entry(self, scope, name))
    }

    fn remove<'a>(
        &'a self,
        scope: &'a Scope,
        name: &'a str,
        actor: &'a str,
        admin: bool,
    ) -> BoxFuture<'a, Result<(), CustomError>> {
        Box::pin(Library::remove(self, scope, name, actor, admin))
    }

    fn by_hash<'a>(&'a self, hash: &'a str) -> BoxFuture<'a, Result<Arc<Variant>, CustomError>> {
        Box::pin(Library::by_hash(self, hash))
    }

    fn cached(&self, hash: &str) -> Option<Arc<Variant>> {
        Library::cached(self, hash)
    }
}
