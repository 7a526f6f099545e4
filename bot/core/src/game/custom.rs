//! Players' own variants (issue 30): a server's or room's library of variants its players
//! uploaded, in fairybot's TOML or as a Fairy-Stockfish `variants.ini` section.
//!
//! Three ideas shape it:
//! - **A variant belongs to a scope** (a Discord server, a Matrix room, the console), so two
//!   servers may each have their own `knightmare`.
//! - **A definition is kept by its content hash.** What a game plays is the self-contained TOML
//!   that [`rules::validate`] writes (no `extends` left to a built-in a release could change),
//!   stored once under its SHA-256. A game keeps the hash, so editing or removing the variant
//!   never changes a game in progress or a finished game's replay: the definition stays.
//! - **A stranger's definition is checked before anyone sees it** ([`rules::validate`]: caps,
//!   royal pieces, perft within a budget, no markup), and quotas bound what one player and one
//!   scope may keep.
//!
//! The store is a port ([`VariantStore`]) with an in-memory implementation and a conformance
//! suite every backend runs.

mod handle;
mod library;
mod memory;

pub use handle::CustomLibrary;
pub use library::{Added, CustomError, Library, Quotas};
pub use memory::MemoryVariants;

use std::future::Future;

use sha2::{Digest, Sha256};

use crate::store::Result;

/// Where a custom variant lives: `discord:GUILD`, `matrix:ROOM`, `console`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Scope(pub String);

impl Scope {
    /// The scope of a room: its platform and room (`matrix:!room`, `discord:CHANNEL`,
    /// `console:ROOM`); threads share their room's library.
    pub fn of(place: &crate::model::Place) -> Scope {
        Scope(format!("{}:{}", place.platform.as_str(), place.room))
    }

    /// The libraries a command's variant names are looked up in, the first the one `variant
    /// add` adds to. Where the platform groups rooms into a server (a Discord guild,
    /// [`Actor::server`](crate::Actor::server)) the server's library comes first, so a variant
    /// added in one channel is played in every channel of the server; then the room's, which
    /// keeps the variants added in a channel before they belonged to servers.
    pub fn search(place: &crate::model::Place, server: Option<&str>) -> Vec<Scope> {
        let room = Scope::of(place);
        match server {
            Some(s) => vec![
                Scope(format!("{}:server:{s}", place.platform.as_str())),
                room,
            ],
            None => vec![room],
        }
    }
}

/// What a game's record stores as its variant when it plays a custom one: this prefix and
/// the definition's hash, so the record names the exact rules it started with.
pub const GAME_VARIANT_PREFIX: &str = "custom:";

/// The definition hash a game's `variant` field names, if it is a custom variant's.
pub fn hash_of_game_variant(variant: &str) -> Option<&str> {
    variant
        .strip_prefix(GAME_VARIANT_PREFIX)
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The format a variant was uploaded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    /// fairybot's TOML schema.
    Toml,
    /// A Fairy-Stockfish `variants.ini` section.
    Ini,
}

impl SourceFormat {
    /// The name stored and shown (`toml`, `ini`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceFormat::Toml => "toml",
            SourceFormat::Ini => "ini",
        }
    }

    /// Reads a stored name back.
    pub fn parse(s: &str) -> Option<SourceFormat> {
        match s {
            "toml" => Some(SourceFormat::Toml),
            "ini" => Some(SourceFormat::Ini),
            _ => None,
        }
    }
}

/// A definition as games play it: the self-contained TOML and its SHA-256 (hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// SHA-256 of `toml`, lowercase hex.
    pub hash: String,
    /// The variant in fairybot's schema, `extends` merged in.
    pub toml: String,
}

impl Definition {
    /// A definition of this text, with its hash.
    pub fn of(toml: String) -> Definition {
        let hash = Sha256::digest(toml.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Definition { hash, toml }
    }
}

/// One variant of a scope's library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomVariant {
    /// Where it was added.
    pub scope: Scope,
    /// Its short name (unique in the scope).
    pub name: String,
    /// Who added it (the platform's user id): they may remove it, as may an admin.
    pub author: String,
    /// The format it was uploaded in.
    pub format: SourceFormat,
    /// The text as uploaded (what `variant export` gives back).
    pub source: String,
    /// The hash of the definition games play ([`Definition::hash`]).
    pub hash: String,
    /// When it was added (the service's clock, ms).
    pub added_ms: i64,
}

/// The store port for players' variants. Definitions are content-addressed and never
/// deleted (finished games replay from them); library entries name a definition per scope.
pub trait VariantStore: Send + Sync {
    /// Stores a definition under its hash; storing the same one again is no change.
    fn put_definition(&self, def: &Definition) -> impl Future<Output = Result<()>> + Send;
    /// The definition with this hash, if stored.
    fn get_definition(&self, hash: &str)
    -> impl Future<Output = Result<Option<Definition>>> + Send;
    /// Adds a library entry; `false` (and no change) when the scope already has the name.
    fn insert_variant(&self, v: &CustomVariant) -> impl Future<Output = Result<bool>> + Send;
    /// A scope's entries, by name.
    fn list_variants(
        &self,
        scope: &Scope,
    ) -> impl Future<Output = Result<Vec<CustomVariant>>> + Send;
    /// One entry.
    fn get_variant(
        &self,
        scope: &Scope,
        name: &str,
    ) -> impl Future<Output = Result<Option<CustomVariant>>> + Send;
    /// Removes an entry (not its definition); `false` when there was none.
    fn remove_variant(
        &self,
        scope: &Scope,
        name: &str,
    ) -> impl Future<Output = Result<bool>> + Send;
}

/// The conformance suite every [`VariantStore`] runs (the in-memory one in this crate's tests;
/// a SQL backend in its own).
#[cfg(any(test, feature = "conformance"))]
pub mod conformance {
    use super::*;

    fn entry(scope: &str, name: &str, hash: &str) -> CustomVariant {
        CustomVariant {
            scope: Scope(scope.into()),
            name: name.into(),
            author: "alice".into(),
            format: SourceFormat::Ini,
            source: "[x:chess]\n".into(),
            hash: hash.into(),
            added_ms: 7,
        }
    }

    /// Runs every check against `store`, which must start empty.
    ///
    /// # Panics
    /// On the first check that fails, naming it.
    pub async fn run<S: VariantStore>(store: &S) {
        let def = Definition::of("name = \"x\"\n".into());
        assert_eq!(store.get_definition(&def.hash).await.unwrap(), None);
        store.put_definition(&def).await.unwrap();
        store.put_definition(&def).await.unwrap();
        assert_eq!(
            store.get_definition(&def.hash).await.unwrap(),
            Some(def.clone())
        );

        let a = entry("discord:1", "mine", &def.hash);
        assert!(store.insert_variant(&a).await.unwrap());
        assert!(
            !store.insert_variant(&a).await.unwrap(),
            "a name is unique in its scope"
        );
        // The same name in another scope is another variant.
        let b = entry("matrix:!room", "mine", &def.hash);
        assert!(store.insert_variant(&b).await.unwrap());
        assert_eq!(
            store.list_variants(&a.scope).await.unwrap(),
            vec![a.clone()]
        );
        assert_eq!(
            store.get_variant(&b.scope, "mine").await.unwrap(),
            Some(b.clone())
        );
        let c = entry("discord:1", "another", &def.hash);
        assert!(store.insert_variant(&c).await.unwrap());
        let names: Vec<String> = store
            .list_variants(&a.scope)
            .await
            .unwrap()
            .into_iter()
            .map(|v| v.name)
            .collect();
        assert_eq!(names, ["another", "mine"], "listed by name");
        assert!(store.remove_variant(&a.scope, "mine").await.unwrap());
        assert!(!store.remove_variant(&a.scope, "mine").await.unwrap());
        assert_eq!(store.get_variant(&a.scope, "mine").await.unwrap(), None);
        assert!(store.get_variant(&b.scope, "mine").await.unwrap().is_some());
        // Removing an entry keeps its definition: games replay from it.
        assert_eq!(store.get_definition(&def.hash).await.unwrap(), Some(def));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_sha256_of_the_text() {
        // SHA-256 of the empty string, a published test vector.
        assert_eq!(
            Definition::of(String::new()).hash,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(
            Definition::of("a".into()).hash,
            Definition::of("b".into()).hash
        );
    }

    #[tokio::test]
    async fn memory_store_conforms() {
        conformance::run(&MemoryVariants::default()).await;
    }
}
