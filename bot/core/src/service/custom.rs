//! The `variant` commands: a room's library of players' own variants ([`crate::custom`]).
//! The service holds the library behind [`CustomLibrary`]; without one, the commands say that
//! this bot does not keep players' variants.

use super::*;
use crate::{
    command::VariantCommand,
    custom::{CustomError, CustomLibrary, CustomVariant, Library, Scope, VariantStore},
};

impl From<CustomError> for Failure {
    fn from(e: CustomError) -> Self {
        match e {
            CustomError::Store(e) => Failure::from(e),
            other => Failure::User(other.to_string()),
        }
    }
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// The same service keeping players' own variants in `library` (`variant add` and the
    /// others; `play NAME` for a room's variant). Without it those commands are refused.
    pub fn with_custom_variants<V: VariantStore + std::fmt::Debug + 'static>(
        mut self,
        library: Library<V>,
    ) -> Self {
        self.custom = Some(Arc::new(library));
        self
    }

    /// The players' variants this service keeps, for the web pages of their games (which
    /// draw from the same catalogue once a definition is loaded, see `GameService::warm_custom`).
    pub fn custom_library(&self) -> Option<Arc<dyn CustomLibrary>> {
        self.custom.clone()
    }

    /// The library, or the refusal for a bot without one.
    fn library(&self) -> Result<&Arc<dyn CustomLibrary>, Failure> {
        self.custom.as_ref().ok_or_else(|| {
            Failure::User(
                "This bot does not keep players' own variants; `variants` lists the ones it plays."
                    .into(),
            )
        })
    }

    /// `variant add|show|list|remove|export`.
    pub(super) async fn variant_command(
        &self,
        actor: &Actor,
        place: &Place,
        cmd: VariantCommand,
    ) -> Outcomes {
        let library = self.library()?;
        let scopes = Scope::search(place, actor.server.as_deref());
        match cmd {
            VariantCommand::Add { file_name, text } => {
                let added = library
                    .add(
                        &scopes[0],
                        &actor.id.user,
                        file_name.as_deref(),
                        &text,
                        self.clock.now_ms(),
                    )
                    .await?;
                let v = &added.variant;
                let perft = added
                    .perft
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                Ok(vec![Reply::actor(format!(
                    "Added `{}` ({}, {}): {} moves from the start (perft 1-{}: {perft}). Play it with `play {} @someone` or `play {} vs bot`.",
                    added.entry.name,
                    v.display_name,
                    added.entry.format.as_str(),
                    added.perft.first().copied().unwrap_or(0),
                    added.perft.len(),
                    added.entry.name,
                    added.entry.name,
                ))
                .with_board(self.drawn(&added.entry.hash, v))])
            }
            VariantCommand::Show(name) => {
                let entry = entry_in(&**library, &scopes, &name).await?;
                let v = library.by_hash(&entry.hash).await?;
                Ok(vec![
                    Reply::actor(format!(
                        "`{}`, added by {} ({}):\n{}",
                        entry.name,
                        self.player_name(&PlayerId::new(place.platform, entry.author.clone()))
                            .await,
                        entry.format.as_str(),
                        text::rules(&v),
                    ))
                    .with_board(self.drawn(&entry.hash, &v)),
                ])
            }
            VariantCommand::List => {
                let list = list_in(&**library, &scopes).await?;
                if list.is_empty() {
                    return Ok(vec![Reply::actor(
                        "No variants of your own here yet. Add one with `variant add` and a definition (see `help variant`).",
                    )]);
                }
                let here = if scopes.len() > 1 { "server" } else { "room" };
                let mut out = format!("This {here}'s own variants ({}):", list.len());
                for e in &list {
                    let display = library
                        .by_hash(&e.hash)
                        .await
                        .map(|v| v.display_name.clone())
                        .unwrap_or_default();
                    let display = if display == e.name {
                        String::new()
                    } else {
                        format!(" {display}")
                    };
                    out.push_str(&format!(
                        "\n- `{}`{} ({}, by {})",
                        e.name,
                        display,
                        e.format.as_str(),
                        self.player_name(&PlayerId::new(place.platform, e.author.clone()))
                            .await
                    ));
                }
                Ok(vec![Reply::actor(out)])
            }
            VariantCommand::Remove(name) => {
                let entry = entry_in(&**library, &scopes, &name).await?;
                library
                    .remove(&entry.scope, &name, &actor.id.user, actor.admin)
                    .await?;
                Ok(vec![Reply::actor(format!(
                    "Removed `{}`. Games already played or under way keep their rules.",
                    rules::quote::visible(&name, 40)
                ))])
            }
            VariantCommand::Export(name) => {
                let entry = entry_in(&**library, &scopes, &name).await?;
                let lang = entry.format.as_str();
                Ok(vec![Reply::actor(format!(
                    "```{lang}\n{}\n```",
                    entry.source.trim_end()
                ))])
            }
        }
    }
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// The start picture of a player's variant: named `custom:<hash>` and made known to the
    /// catalogue the adapters draw from, as a game of it is.
    fn drawn(&self, hash: &str, v: &Arc<Variant>) -> crate::reply::BoardPicture {
        let name = format!("{}{hash}", crate::custom::GAME_VARIANT_PREFIX);
        self.catalog.register(&name, v.clone());
        picture::start_picture(&name, v)
    }

    /// The variant a stored game or challenge names as `custom:<hash>`, when the library has
    /// it loaded ([`GameService::warm_custom`]): the service replays synchronously.
    pub(super) fn cached_custom(&self, stored: &str) -> Option<Arc<Variant>> {
        let hash = crate::custom::hash_of_game_variant(stored)?;
        let v = self.custom.as_ref()?.cached(hash)?;
        // The adapters draw boards from the catalog they share with the service.
        self.catalog.register(stored, v.clone());
        Some(v)
    }

    /// Loads the definitions of the custom variants these records play (by hash, whatever
    /// happened to the library entries since), so that replaying them finds their rules.
    /// A definition that cannot be loaded is left to the replay's own error.
    pub(super) async fn warm_custom(&self, names: &[&str]) {
        let Some(library) = &self.custom else { return };
        for name in names.iter().copied() {
            let Some(hash) = crate::custom::hash_of_game_variant(name) else {
                continue;
            };
            match library.by_hash(hash).await {
                // Found by the board pictures too (see `cached_custom`).
                Ok(v) => {
                    self.catalog.register(name, v);
                }
                Err(e) => tracing::warn!(error = %e, "a stored custom variant did not load"),
            }
        }
    }

    /// The names of the variants players added where a command in `place` (of `server`, see
    /// [`Actor::server`]) finds them, by name (none without a library; a store failure is
    /// logged and lists none).
    pub async fn custom_names(&self, place: &Place, server: Option<&str>) -> Vec<String> {
        let Some(library) = &self.custom else {
            return Vec::new();
        };
        match list_in(&**library, &Scope::search(place, server)).await {
            Ok(entries) => entries.into_iter().map(|e| e.name).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "players' variants could not be listed");
                Vec::new()
            }
        }
    }

    /// What a variant name typed in `challenge` or `play` is stored as: itself for a built-in
    /// (or an unknown name, refused later with a suggestion), `custom:<hash>` for one of this
    /// room's own variants, so the game keeps the exact definition it started with.
    pub(super) async fn typed_variant(&self, actor: &Actor, place: &Place, typed: &str) -> String {
        if self.kind_of(typed).is_some() {
            return typed.to_string();
        }
        let Some(library) = &self.custom else {
            return typed.to_string();
        };
        let scopes = Scope::search(place, actor.server.as_deref());
        match entry_in(&**library, &scopes, typed).await {
            Ok(entry) => match library.by_hash(&entry.hash).await {
                Ok(_) => format!("{}{}", crate::custom::GAME_VARIANT_PREFIX, entry.hash),
                Err(e) => {
                    tracing::warn!(error = %e, "a custom variant's definition did not load");
                    typed.to_string()
                }
            },
            Err(_) => typed.to_string(),
        }
    }
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// A stored variant name as players read it: a room's own variant by its name (when its
    /// definition is loaded), not `custom:<hash>`; any other name as it is.
    pub(super) fn variant_label(&self, stored: &str) -> String {
        self.cached_custom(stored)
            .map_or_else(|| stored.to_string(), |v| v.name.clone())
    }
}

impl<S: GameStore, C: Clock> GameService<S, C> {
    /// What a name typed in `rules` or `piece` stands for, a room's own variant included.
    /// Boxed, so the command dispatcher's future does not grow by the library's.
    pub(super) fn typed_kind<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        typed: &'a str,
    ) -> BoxFuture<'a, Result<GameKind, Failure>> {
        Box::pin(async move { Ok(self.typed_kind_drawn(actor, place, typed).await?.1) })
    }

    /// [`GameService::typed_kind`], with the name the shared catalogue draws the variant by
    /// (`custom:<hash>` for a room's own, the variant's own name for a built-in), for a
    /// picture of it.
    pub(super) fn typed_kind_drawn<'a>(
        &'a self,
        actor: &'a Actor,
        place: &'a Place,
        typed: &'a str,
    ) -> BoxFuture<'a, Result<(String, GameKind), Failure>> {
        Box::pin(async move {
            let stored = self.typed_variant(actor, place, typed).await;
            let kind = self.game_kind(&stored)?;
            let drawn = match &kind {
                GameKind::Board(v) if crate::custom::hash_of_game_variant(&stored).is_none() => {
                    v.name.clone()
                }
                _ => stored,
            };
            Ok((drawn, kind))
        })
    }
}

/// The entry named `name` in the first of `scopes` that has one; if none has, the first
/// scope's refusal (with its suggestions).
async fn entry_in(
    library: &dyn CustomLibrary,
    scopes: &[Scope],
    name: &str,
) -> Result<CustomVariant, CustomError> {
    let mut first = None;
    for scope in scopes {
        match library.entry(scope, name).await {
            Ok(e) => return Ok(e),
            Err(e @ CustomError::Unknown { .. }) => {
                first.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    Err(first.unwrap_or_else(|| CustomError::Unknown {
        name: name.to_string(),
        hint: String::new(),
    }))
}

/// Every entry of `scopes`, a name of an earlier scope hiding the same name in a later one.
async fn list_in(
    library: &dyn CustomLibrary,
    scopes: &[Scope],
) -> Result<Vec<CustomVariant>, CustomError> {
    let mut all: Vec<CustomVariant> = Vec::new();
    for scope in scopes {
        for e in library.list(scope).await? {
            if !all.iter().any(|a| a.name == e.name) {
                all.push(e);
            }
        }
    }
    Ok(all)
}

/// The name a challenge or game stores: the typed `custom:<hash>` for a room's own variant
/// (the variant's own name is only its name in one room), else the variant's name.
pub(super) fn stored_name(kind_name: &str, typed: &str) -> String {
    if crate::custom::hash_of_game_variant(typed).is_some() {
        typed.to_string()
    } else {
        kind_name.to_string()
    }
}
