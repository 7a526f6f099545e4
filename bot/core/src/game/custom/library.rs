//! A scope's library of players' variants: adding (checked, within quotas), listing, showing,
//! exporting, removing, and resolving a name or a stored hash to a playable variant.

use std::{collections::HashMap, sync::Arc, sync::Mutex};

use rules::{
    Catalog, Variant,
    validate::{Format, Limits, validate},
};

use super::{CustomVariant, Definition, Scope, SourceFormat, VariantStore};
use crate::store::StoreError;

/// How many variants one player, and one scope, may keep.
#[derive(Debug, Clone, Copy)]
pub struct Quotas {
    /// Per player and scope.
    pub per_author: usize,
    /// Per scope (server or room).
    pub per_scope: usize,
}

impl Default for Quotas {
    /// Ten per player, a hundred per server or room.
    fn default() -> Quotas {
        Quotas {
            per_author: 10,
            per_scope: 100,
        }
    }
}

/// Why a library request was refused; each says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum CustomError {
    /// The definition did not pass the checks ([`rules::validate`]).
    #[error("{0}")]
    Refused(String),
    /// The scope already has a variant of that name.
    #[error(
        "this server already has a variant `{0}`: remove it first (`variant remove {0}`) or choose another name"
    )]
    Exists(String),
    /// A quota is full.
    #[error("{0}")]
    Quota(String),
    /// No such variant in the scope.
    #[error("no variant `{name}` here{hint}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// ` (did you mean …?)` or a pointer to `variant list`.
        hint: String,
    },
    /// Only the author or an admin may remove a variant.
    #[error("only the player who added `{0}`, or a server admin, may remove it")]
    NotAllowed(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A variant just added: the library entry and what the check found.
#[derive(Debug, Clone)]
pub struct Added {
    /// The entry.
    pub entry: CustomVariant,
    /// The playable variant (for the start picture).
    pub variant: Arc<Variant>,
    /// Perft 1-3 from the start.
    pub perft: Vec<u64>,
}

/// The library over a [`VariantStore`]; resolved variants are cached by hash.
pub struct Library<S> {
    store: S,
    quotas: Quotas,
    limits: Limits,
    builtin: Vec<String>,
    cache: Mutex<HashMap<String, Arc<Variant>>>,
}

impl<S> std::fmt::Debug for Library<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("quotas", &self.quotas)
            .finish_non_exhaustive()
    }
}

impl<S: VariantStore> Library<S> {
    /// A library with the default quotas and limits.
    pub fn new(store: S) -> Library<S> {
        Library::with(store, Quotas::default(), Limits::default())
    }

    /// A library with the given quotas and limits.
    pub fn with(store: S, quotas: Quotas, limits: Limits) -> Library<S> {
        Library {
            store,
            quotas,
            limits,
            builtin: Catalog::builtin().names(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Checks `text` (format from `file_name` or the text) and adds it to `scope` for
    /// `author`.
    ///
    /// # Errors
    /// The check's refusal, a taken name, a full quota, or the store's failure.
    pub async fn add(
        &self,
        scope: &Scope,
        author: &str,
        file_name: Option<&str>,
        text: &str,
        now_ms: i64,
    ) -> Result<Added, CustomError> {
        let format = Format::guess(file_name, text);
        // The check runs off the async threads: it may take up to its deadline.
        let (limits, builtin, owned) =
            (self.limits.clone(), self.builtin.clone(), text.to_string());
        let checked =
            tokio::task::spawn_blocking(move || validate(&owned, format, &limits, &builtin))
                .await
                .map_err(|e| CustomError::Refused(format!("the check stopped: {e}")))?
                .map_err(|e| CustomError::Refused(e.0))?;
        let name = checked.variant.name.clone();
        let existing = self.store.list_variants(scope).await?;
        if existing.iter().any(|v| v.name == name) {
            return Err(CustomError::Exists(name));
        }
        if existing.len() >= self.quotas.per_scope {
            return Err(CustomError::Quota(format!(
                "this server keeps at most {} variants; remove one first",
                self.quotas.per_scope
            )));
        }
        if existing.iter().filter(|v| v.author == author).count() >= self.quotas.per_author {
            return Err(CustomError::Quota(format!(
                "you keep at most {} variants here; remove one of yours first",
                self.quotas.per_author
            )));
        }
        let def = Definition::of(checked.toml.clone());
        self.store.put_definition(&def).await?;
        let entry = CustomVariant {
            scope: scope.clone(),
            name: name.clone(),
            author: author.to_string(),
            format: match format {
                Format::Ini => SourceFormat::Ini,
                Format::Toml => SourceFormat::Toml,
            },
            source: text.to_string(),
            hash: def.hash.clone(),
            added_ms: now_ms,
        };
        if !self.store.insert_variant(&entry).await? {
            return Err(CustomError::Exists(name));
        }
        let variant = rated_as_its_own(checked.variant, &def.hash, &def.toml)?;
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(def.hash, variant.clone());
        Ok(Added {
            entry,
            variant,
            perft: checked.perft,
        })
    }

    /// The scope's variants, by name.
    ///
    /// # Errors
    /// The store's failure.
    pub async fn list(&self, scope: &Scope) -> Result<Vec<CustomVariant>, CustomError> {
        Ok(self.store.list_variants(scope).await?)
    }

    /// One variant's entry.
    ///
    /// # Errors
    /// An unknown name (with a suggestion), or the store's failure.
    pub async fn entry(&self, scope: &Scope, name: &str) -> Result<CustomVariant, CustomError> {
        if let Some(v) = self.store.get_variant(scope, name).await? {
            return Ok(v);
        }
        let names: Vec<String> = self
            .store
            .list_variants(scope)
            .await?
            .into_iter()
            .map(|v| v.name)
            .collect();
        let hint = match closest(name, &names) {
            Some(s) => format!(" (did you mean `{s}`?)"),
            None => " (`variant list` shows this server's own variants)".to_string(),
        };
        Err(CustomError::Unknown {
            name: rules::quote::visible(name, 40),
            hint,
        })
    }

    /// The text as uploaded, for `variant export`.
    ///
    /// # Errors
    /// As [`Library::entry`].
    pub async fn export(&self, scope: &Scope, name: &str) -> Result<String, CustomError> {
        Ok(self.entry(scope, name).await?.source)
    }

    /// The playable variant a scope's name stands for now, with the hash a new game stores.
    ///
    /// # Errors
    /// As [`Library::entry`], or a definition missing from the store.
    pub async fn resolve(
        &self,
        scope: &Scope,
        name: &str,
    ) -> Result<(String, Arc<Variant>), CustomError> {
        let entry = self.entry(scope, name).await?;
        let v = self.by_hash(&entry.hash).await?;
        Ok((entry.hash, v))
    }

    /// The variant of `hash` if this library has loaded it already (added, resolved or read
    /// by [`Library::by_hash`]): no waiting, for synchronous replay.
    pub fn cached(&self, hash: &str) -> Option<Arc<Variant>> {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(hash)
            .cloned()
    }

    /// The variant a game stored, by its definition's hash: the same rules whatever happened
    /// to the library entry since.
    ///
    /// # Errors
    /// A hash with no stored definition (corrupt store), or the store's failure.
    pub async fn by_hash(&self, hash: &str) -> Result<Arc<Variant>, CustomError> {
        if let Some(v) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(hash)
        {
            return Ok(v.clone());
        }
        let def = self.store.get_definition(hash).await?.ok_or_else(|| {
            CustomError::Store(StoreError::Corrupt(format!("no stored definition {hash}")))
        })?;
        let v = Catalog::check_file("stored variant", &def.toml)
            .map_err(|e| CustomError::Store(StoreError::Corrupt(e.to_string())))?;
        let v = rated_as_its_own(v, hash, &def.toml)?;
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(hash.to_string(), v.clone());
        Ok(v)
    }

    /// Removes a variant from the scope (its author or an admin); games keep its definition.
    ///
    /// # Errors
    /// An unknown name, someone else's variant, or the store's failure.
    pub async fn remove(
        &self,
        scope: &Scope,
        name: &str,
        actor: &str,
        admin: bool,
    ) -> Result<(), CustomError> {
        let entry = self.entry(scope, name).await?;
        if entry.author != actor && !admin {
            return Err(CustomError::NotAllowed(entry.name));
        }
        self.store.remove_variant(scope, &entry.name).await?;
        Ok(())
    }
}

/// `variant` (of the definition `toml`, whose hash is `hash`) rated under its definition:
/// `custom:<hash>`, whatever it calls itself or whatever family its file claims, so that two
/// rooms' variants of one name never share a leaderboard and none feeds a built-in game's.
fn rated_as_its_own(
    variant: Arc<Variant>,
    hash: &str,
    toml: &str,
) -> Result<Arc<Variant>, CustomError> {
    let mut variant = variant;
    if Arc::get_mut(&mut variant).is_none() {
        // Shared with whoever built it: a copy of our own.
        variant = Catalog::check_file("stored variant", toml)
            .map_err(|e| CustomError::Store(StoreError::Corrupt(e.to_string())))?;
    }
    let Some(own) = Arc::get_mut(&mut variant) else {
        return Err(CustomError::Store(StoreError::Corrupt(format!(
            "the variant {hash} could not be given its own rating family"
        ))));
    };
    own.rating_family = format!("{}{hash}", crate::custom::GAME_VARIANT_PREFIX);
    Ok(variant)
}

/// The name closest to `typed` by edit distance, when close enough to be a slip.
fn closest<'a>(typed: &str, names: &'a [String]) -> Option<&'a str> {
    let distance = |a: &str, b: &str| {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            }
            prev = cur;
        }
        prev[b.len()]
    };
    names
        .iter()
        .map(|n| (distance(typed, n), n.as_str()))
        .filter(|(d, n)| *d <= (n.len() / 3).clamp(1, 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::custom::MemoryVariants;

    fn scope(s: &str) -> Scope {
        Scope(s.into())
    }

    const INI: &str = "[centaur-king:chess]\nking = k:KN\n";

    /// Limits with a long deadline: these tests check behaviour, and a loaded test machine
    /// may take longer than the bot's 100 ms (rules/benches/validate.rs measures the time).
    fn relaxed() -> Limits {
        Limits {
            time: std::time::Duration::from_secs(10),
            ..Limits::default()
        }
    }

    #[tokio::test]
    async fn add_list_show_export_remove_and_replay_by_hash() {
        let lib = Library::with(MemoryVariants::default(), Quotas::default(), relaxed());
        let s = scope("discord:1");
        let added = lib
            .add(&s, "alice", Some("mine.ini"), INI, 5)
            .await
            .unwrap();
        assert_eq!(added.entry.name, "centaur-king");
        assert_eq!(added.entry.format, SourceFormat::Ini);
        assert_eq!(added.perft[0], 22);
        assert_eq!(lib.list(&s).await.unwrap().len(), 1);
        assert_eq!(lib.export(&s, "centaur-king").await.unwrap(), INI);
        let (hash, v) = lib.resolve(&s, "centaur-king").await.unwrap();
        assert_eq!(hash, added.entry.hash);
        assert_eq!(rules::Position::start(&v).legal_moves().len(), 22);
        // Another server has its own namespace.
        let other = scope("matrix:!room");
        assert!(matches!(
            lib.resolve(&other, "centaur-king").await,
            Err(CustomError::Unknown { .. })
        ));
        lib.add(&other, "bob", None, INI, 6).await.unwrap();
        // Only the author or an admin removes.
        assert!(matches!(
            lib.remove(&s, "centaur-king", "bob", false).await,
            Err(CustomError::NotAllowed(_))
        ));
        lib.remove(&s, "centaur-king", "alice", false)
            .await
            .unwrap();
        assert!(lib.list(&s).await.unwrap().is_empty());
        // A game that stored the hash still plays the same rules, even from a fresh library
        // over the same store (no cache).
        let fresh = Library::new(MemoryVariants::default());
        assert!(fresh.by_hash(&hash).await.is_err());
        let v = lib.by_hash(&hash).await.unwrap();
        assert_eq!(rules::Position::start(&v).legal_moves().len(), 22);
        lib.cache.lock().unwrap().clear();
        let v = lib.by_hash(&hash).await.unwrap();
        assert_eq!(rules::Position::start(&v).legal_moves().len(), 22);
    }

    #[tokio::test]
    async fn refusals_say_what_to_do() {
        let lib = Library::with(
            MemoryVariants::default(),
            Quotas {
                per_author: 1,
                per_scope: 2,
            },
            relaxed(),
        );
        let s = scope("console");
        let e = lib
            .add(&s, "a", None, "[x:chess]\nflagRegionWhite = *8\n", 0)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        lib.add(&s, "a", None, INI, 0).await.unwrap();
        let e = lib.add(&s, "b", None, INI, 0).await.unwrap_err();
        assert!(matches!(e, CustomError::Exists(_)), "{e}");
        let e = lib
            .add(&s, "a", None, "[other:chess]\nking = k:KA\n", 0)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("at most 1"), "{e}");
        lib.add(&s, "b", None, "[other:chess]\nking = k:KA\n", 0)
            .await
            .unwrap();
        let e = lib
            .add(&s, "c", None, "[third:chess]\nking = k:KD\n", 0)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("this server keeps at most 2"), "{e}");
        let e = lib.export(&s, "centaur-kng").await.unwrap_err();
        assert!(e.to_string().contains("did you mean `centaur-king`"), "{e}");
    }
}
