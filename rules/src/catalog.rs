//! The variants fairybot knows: the built-in files embedded in the binary, plus any file a
//! user loads. Resolving a variant merges its `extends` chain, validates it and builds its
//! tables; the result is cached in the catalog (a value, not a global).

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
};

use crate::{
    spec::{self, SpecError},
    variant::Variant,
};

/// The built-in variant files, embedded at compile time.
const BUILTIN: &[(&str, &str)] = &[
    ("chess.toml", include_str!("../variants/chess.toml")),
    ("chess960.toml", include_str!("../variants/chess960.toml")),
    (
        "capablanca.toml",
        include_str!("../variants/capablanca.toml"),
    ),
    ("grand.toml", include_str!("../variants/grand.toml")),
    ("courier.toml", include_str!("../variants/courier.toml")),
    (
        "toulousain.toml",
        include_str!("../variants/toulousain.toml"),
    ),
    ("bilateral.toml", include_str!("../variants/bilateral.toml")),
    (
        "ecumenical-northern.toml",
        include_str!("../variants/ecumenical-northern.toml"),
    ),
    (
        "ecumenical-wraparound.toml",
        include_str!("../variants/ecumenical-wraparound.toml"),
    ),
    (
        "ecumenical-besiege.toml",
        include_str!("../variants/ecumenical-besiege.toml"),
    ),
    (
        "ecumenical-double-besiege.toml",
        include_str!("../variants/ecumenical-double-besiege.toml"),
    ),
    (
        "ecumenical-moebius.toml",
        include_str!("../variants/ecumenical-moebius.toml"),
    ),
    (
        "ecumenical-quadruple.toml",
        include_str!("../variants/ecumenical-quadruple.toml"),
    ),
    (
        "dcb-balanced.toml",
        include_str!("../variants/dcb-balanced.toml"),
    ),
    (
        "dcb-balanced-circular.toml",
        include_str!("../variants/dcb-balanced-circular.toml"),
    ),
    (
        "dcb-balanced-moebius.toml",
        include_str!("../variants/dcb-balanced-moebius.toml"),
    ),
    (
        "dcb-unbalanced.toml",
        include_str!("../variants/dcb-unbalanced.toml"),
    ),
    (
        "dcb-unbalanced-circular.toml",
        include_str!("../variants/dcb-unbalanced-circular.toml"),
    ),
    (
        "dcb-unbalanced-moebius.toml",
        include_str!("../variants/dcb-unbalanced-moebius.toml"),
    ),
    ("dcb-kamil.toml", include_str!("../variants/dcb-kamil.toml")),
    (
        "dcb-kamil-circular.toml",
        include_str!("../variants/dcb-kamil-circular.toml"),
    ),
    (
        "dcb-kamil-moebius.toml",
        include_str!("../variants/dcb-kamil-moebius.toml"),
    ),
    (
        "dcb-wildebeest.toml",
        include_str!("../variants/dcb-wildebeest.toml"),
    ),
    (
        "dcb-wildebeest-circular.toml",
        include_str!("../variants/dcb-wildebeest-circular.toml"),
    ),
    (
        "dcb-wildebeest-moebius.toml",
        include_str!("../variants/dcb-wildebeest-moebius.toml"),
    ),
    (
        "dcb-knighted.toml",
        include_str!("../variants/dcb-knighted.toml"),
    ),
    (
        "dcb-knighted-circular.toml",
        include_str!("../variants/dcb-knighted-circular.toml"),
    ),
    (
        "dcb-knighted-moebius.toml",
        include_str!("../variants/dcb-knighted-moebius.toml"),
    ),
    (
        "dcb-coblache.toml",
        include_str!("../variants/dcb-coblache.toml"),
    ),
    (
        "dcb-coblache-circular.toml",
        include_str!("../variants/dcb-coblache-circular.toml"),
    ),
    (
        "dcb-coblache-moebius.toml",
        include_str!("../variants/dcb-coblache-moebius.toml"),
    ),
    (
        "dcb-balanced-4p.toml",
        include_str!("../variants/dcb-balanced-4p.toml"),
    ),
    (
        "dcb-balanced-4p-quadruple.toml",
        include_str!("../variants/dcb-balanced-4p-quadruple.toml"),
    ),
    (
        "dcb-unbalanced-4p.toml",
        include_str!("../variants/dcb-unbalanced-4p.toml"),
    ),
    (
        "dcb-unbalanced-4p-quadruple.toml",
        include_str!("../variants/dcb-unbalanced-4p-quadruple.toml"),
    ),
    (
        "dcb-kamil-4p.toml",
        include_str!("../variants/dcb-kamil-4p.toml"),
    ),
    (
        "dcb-kamil-4p-quadruple.toml",
        include_str!("../variants/dcb-kamil-4p-quadruple.toml"),
    ),
    (
        "dcb-wildebeest-4p.toml",
        include_str!("../variants/dcb-wildebeest-4p.toml"),
    ),
    (
        "dcb-wildebeest-4p-quadruple.toml",
        include_str!("../variants/dcb-wildebeest-4p-quadruple.toml"),
    ),
    (
        "dcb-knighted-4p.toml",
        include_str!("../variants/dcb-knighted-4p.toml"),
    ),
    (
        "dcb-knighted-4p-quadruple.toml",
        include_str!("../variants/dcb-knighted-4p-quadruple.toml"),
    ),
];

/// A set of variant files by name, and the variants resolved from them so far.
///
/// Files are kept as parsed TOML and resolved only when asked for, because a file may
/// `extends` another that is added later, and most games use a handful of the variants.
/// Resolved variants are cached behind an `Arc`, so every position of a variant shares one
/// set of tables.
///
/// # Examples
///
/// ```
/// use rules::Catalog;
///
/// let mut catalog = Catalog::builtin();
/// assert!(catalog.names().contains(&"chess".to_string()));
///
/// // A user's own file may extend a built-in one and override a few keys.
/// let name = catalog.add(
///     "patient.toml",
///     "name = \"patient\"\nextends = \"chess\"\n[draws]\nfifty_moves = false\n",
/// )?;
/// let v = catalog.get(&name)?;
/// assert!(!v.draws.fifty_moves);
/// assert_eq!(v.pieces.len(), catalog.get("chess")?.pieces.len());
/// # Ok::<_, rules::SpecError>(())
/// ```
#[derive(Debug, Default)]
pub struct Catalog {
    files: BTreeMap<String, (String, toml::Table)>,
    resolved: Mutex<BTreeMap<String, Arc<Variant>>>,
}

impl Catalog {
    /// The built-in variants (embedded in the binary, so the bot needs no files at run time).
    ///
    /// # Examples
    ///
    /// ```
    /// let catalog = rules::Catalog::builtin();
    /// let chess = catalog.get("chess").unwrap();
    /// assert_eq!(chess.display_name, "Chess");
    /// ```
    ///
    /// # Panics
    /// Never: the built-in files are checked by the tests.
    pub fn builtin() -> Catalog {
        let mut c = Catalog::default();
        for (file, text) in BUILTIN {
            c.add(file, text).expect("built-in variant files are valid");
        }
        c
    }

    /// Adds a variant file (a user's own, or a built-in). Returns the variant's name.
    ///
    /// Only the file itself is checked here (syntax, keys, types); whether the merged
    /// variant is playable is found by [`Catalog::get`], since the parent may come later.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut catalog = rules::Catalog::builtin();
    /// let e = catalog.add("x.toml", "name = \"x\"\ncolour = 3\n").unwrap_err();
    /// assert!(e.key.contains("colour"));
    /// ```
    ///
    /// # Errors
    /// When the file is not valid TOML, has unknown keys or wrong types, or has no name.
    pub fn add(&mut self, file: &str, text: &str) -> Result<String, SpecError> {
        let table = spec::parse_file(file, text)?;
        let name = table
            .get("name")
            .and_then(|v| v.as_str())
            .ok_or_else(|| {
                SpecError::new(file, "name", "missing; every variant file needs a name")
            })?
            .to_string();
        self.files.insert(name.clone(), (file.to_string(), table));
        self.resolved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&name);
        Ok(name)
    }

    /// The names of all variants, sorted.
    pub fn names(&self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }

    /// Makes a variant defined elsewhere (a player's own, which the bot stores by the hash of
    /// its definition) found by [`Catalog::get`] under `name`, so that whoever shares this
    /// catalog (the board pictures of every platform) draws its games. It stays out of
    /// [`Catalog::names`]. Returns `false`, changing nothing, when `name` is a built-in's:
    /// a definition from outside never stands in for one.
    ///
    /// # Examples
    ///
    /// ```
    /// let catalog = rules::Catalog::builtin();
    /// let mine = catalog.get("chess")?;
    /// assert!(catalog.register("custom:abc", mine.clone()));
    /// assert_eq!(catalog.get("custom:abc")?.name, mine.name);
    /// assert!(!catalog.register("chess", mine));
    /// assert!(!catalog.names().contains(&"custom:abc".to_string()));
    /// # Ok::<_, rules::SpecError>(())
    /// ```
    pub fn register(&self, name: &str, variant: Arc<Variant>) -> bool {
        if self.files.contains_key(name) {
            return false;
        }
        let mut resolved = self.resolved.lock().unwrap_or_else(|e| e.into_inner());
        // Called on every replay of such a game: no allocation once it is known.
        if !resolved.contains_key(name) {
            resolved.insert(name.to_owned(), variant);
        }
        true
    }

    /// A variant's display name without building the variant (its tables take a while on a
    /// large board): listing every variant stays cheap. Inherited through `extends` as in
    /// [`Catalog::get`]; the name itself when the file has none.
    ///
    /// # Errors
    /// When the name is unknown or the `extends` chain is broken or cyclic.
    pub fn display_name(&self, name: &str) -> Result<String, SpecError> {
        if let Some(v) = self
            .resolved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
        {
            return Ok(v.display_name.clone());
        }
        let table = self.merged(name, &mut Vec::new())?;
        Ok(table
            .get("display_name")
            .and_then(|v| v.as_str())
            .unwrap_or(name)
            .to_string())
    }

    /// Resolves a variant by name, merging its `extends` chain and building its tables the
    /// first time, then handing out the cached `Arc`.
    ///
    /// # Examples
    ///
    /// ```
    /// let catalog = rules::Catalog::builtin();
    /// let grand = catalog.get("grand")?;
    /// assert_eq!(grand.geometry.len(), 100);
    /// assert!(catalog.get("no-such-variant").is_err());
    /// # Ok::<_, rules::SpecError>(())
    /// ```
    ///
    /// # Errors
    /// When the name is unknown, the `extends` chain is broken or cyclic, or the merged
    /// variant is invalid.
    pub fn get(&self, name: &str) -> Result<Arc<Variant>, SpecError> {
        if let Some(v) = self
            .resolved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
        {
            return Ok(v.clone());
        }
        let (file, _) = self.files.get(name).ok_or_else(|| {
            SpecError::new(
                name,
                "(variant)",
                format!(
                    "unknown variant; known ones are {}",
                    self.names().join(", ")
                ),
            )
        })?;
        let table = self.merged(name, &mut Vec::new())?;
        let spec = spec::from_table(file, table)?;
        let v = Arc::new(Variant::from_spec(file, spec)?);
        // The start must be a position one can play from (not only readable): `Position::start`
        // relies on it. Found by the variant-file fuzz target (a King left in check by the side
        // not to move).
        crate::fen::position(&v, &v.start)
            .map_err(|e| SpecError::new(file, "start", format!("not a legal position: {e}")))?;
        self.resolved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string(), v.clone());
        Ok(v)
    }

    /// A variant's table with its `extends` chain merged in (and `extends` removed): the
    /// whole definition in one self-contained table.
    ///
    /// # Errors
    /// When the name is unknown or the chain is broken or cyclic.
    pub fn merged_table(&self, name: &str) -> Result<toml::Table, SpecError> {
        self.merged(name, &mut Vec::new())
    }

    fn merged(&self, name: &str, chain: &mut Vec<String>) -> Result<toml::Table, SpecError> {
        let (file, table) = self.files.get(name).ok_or_else(|| {
            SpecError::new(
                chain.last().map(String::as_str).unwrap_or(name),
                "extends",
                format!("{name:?} is not a known variant"),
            )
        })?;
        if chain.iter().any(|c| c == name) {
            return Err(SpecError::new(
                file,
                "extends",
                format!("cycle: {} -> {name}", chain.join(" -> ")),
            ));
        }
        chain.push(name.to_string());
        let mut base = match table.get("extends").and_then(|v| v.as_str()) {
            Some(parent) => self.merged(parent, chain)?,
            None => toml::Table::new(),
        };
        let mut own = table.clone();
        own.remove("extends");
        spec::merge(&mut base, own);
        Ok(base)
    }

    /// Checks a file on its own (with the built-ins available as parents) and returns the
    /// resolved variant, for `perft check` and for users' own files.
    ///
    /// # Examples
    ///
    /// ```
    /// let text = "name = \"mini\"\nextends = \"chess\"\n[promotion]\nchoices = [\"Q\"]\n";
    /// let v = rules::Catalog::check_file("mini.toml", text)?;
    /// assert_eq!(v.promotion.choices.len(), 1);
    /// # Ok::<_, rules::SpecError>(())
    /// ```
    ///
    /// # Errors
    /// The first problem found, naming the file and key.
    pub fn check_file(file: &str, text: &str) -> Result<Arc<Variant>, SpecError> {
        let mut c = Catalog::builtin();
        let name = c.add(file, text)?;
        c.get(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_resolves() {
        let c = Catalog::builtin();
        for name in c.names() {
            let v = c.get(&name).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                !v.source.is_empty(),
                "{name} must say where its rules come from"
            );
        }
        assert!(c.get("toulousain").unwrap().reconstructed.is_some());
    }

    #[test]
    fn rating_families_group_forms_of_one_game_and_nothing_else() {
        let c = Catalog::builtin();
        let family = |n: &str| c.get(n).unwrap().rating_family.clone();
        for form in [
            "ecumenical-northern",
            "ecumenical-besiege",
            "ecumenical-double-besiege",
            "ecumenical-moebius",
            "ecumenical-quadruple",
            "ecumenical-wraparound",
        ] {
            assert_eq!(family(form), "ecumenical");
        }
        for form in ["dcb-kamil", "dcb-kamil-circular", "dcb-kamil-moebius"] {
            assert_eq!(family(form), "dcb-kamil");
        }
        assert_ne!(family("dcb-kamil"), family("dcb-balanced"));
        for alone in ["chess", "chess960", "capablanca", "toulousain", "bilateral"] {
            assert_eq!(family(alone), alone, "{alone} is rated on its own");
        }
    }

    #[test]
    fn display_names_without_building_match_the_built_variants() {
        let c = Catalog::builtin();
        for name in c.names() {
            let cheap = c.display_name(&name).unwrap();
            assert_eq!(cheap, c.get(&name).unwrap().display_name, "{name}");
            // And again once built (from the resolved variant).
            assert_eq!(c.display_name(&name).unwrap(), cheap);
        }
        assert!(c.display_name("chesss").is_err());
    }

    #[test]
    fn unknown_variant_lists_the_known_ones() {
        let e = Catalog::builtin().get("chesss").unwrap_err();
        assert!(e.problem.contains("chess960"), "{e}");
    }

    #[test]
    fn a_user_file_extends_a_builtin() {
        let v = Catalog::check_file(
            "mine.toml",
            "name = \"knightless\"\nextends = \"chess\"\nstart = \"r1bqkb1r/pppppppp/8/8/8/8/PPPPPPPP/R1BQKB1R w KQkq - 0 1\"\n",
        )
        .unwrap();
        assert_eq!(v.geometry.len(), 64);
        assert_eq!(crate::Position::start(&v).legal_moves().len(), 16 + 2);
    }

    #[test]
    fn errors_name_file_and_key() {
        let e = Catalog::check_file(
            "mine.toml",
            "name = \"x\"\nextends = \"chess\"\n[pieces.N]\nname = \"Knight\"\nmoves = \"Nx\"\n",
        )
        .unwrap_err();
        assert_eq!(e.file, "mine.toml");
        assert_eq!(e.key, "pieces.N.moves");
        let e =
            Catalog::check_file("mine.toml", "name = \"x\"\nextends = \"nothing\"\n").unwrap_err();
        assert_eq!(e.key, "extends");
        let e = Catalog::check_file(
            "mine.toml",
            "name = \"x\"\nextends = \"chess\"\n[promotion]\nchoices = [\"K\"]\n",
        )
        .unwrap_err();
        assert!(e.problem.contains("royal"), "{e}");
        let e = Catalog::check_file(
            "mine.toml",
            "name = \"x\"\nextends = \"chess\"\nstart = \"8/8 w\"\n",
        )
        .unwrap_err();
        assert_eq!(e.key, "start");
    }

    #[test]
    fn extends_cycles_are_reported() {
        let mut c = Catalog::default();
        c.add("a.toml", "name = \"a\"\nextends = \"b\"\n").unwrap();
        c.add("b.toml", "name = \"b\"\nextends = \"a\"\n").unwrap();
        let e = c.get("a").unwrap_err();
        assert!(e.problem.contains("cycle"), "{e}");
    }
}
