//! Fairy-Stockfish's `variants.ini` format, imported onto fairybot's variant schema.
//!
//! The variant community's common language is Fairy-Stockfish's `variants.ini`: one section
//! per variant (`[name]` or `[name:parent]`), `key = value` lines. This module reads one section
//! (with its parents: earlier sections of the same text, or the few Fairy-Stockfish built-ins
//! described in [`parents`]) and writes the same variant in our TOML schema, which the ordinary
//! resolve step then checks and builds. Only keys that map onto our rule primitives are read;
//! every other key is refused by name and line, never silently ignored, because a rule that is
//! dropped changes the game without anyone noticing. [`SUPPORTED_KEYS`] lists what is read.
//!
//! ```
//! let ini = "[knightmare:chess]\nknight = -\ncustomPiece1 = n:NN\n";
//! let imported = rules::ini::import(ini, None)?;
//! assert_eq!(imported.name, "knightmare");
//! let v = rules::Catalog::check_file("knightmare.toml", &imported.toml).unwrap();
//! assert_eq!(v.piece(v.kind_by_letter('N').unwrap()).moves, "NN");
//! # Ok::<_, rules::ini::IniError>(())
//! ```

pub mod betza;
mod convert;
pub mod parents;

use std::fmt;

pub use convert::SUPPORTED_KEYS;

/// The most sections one text may hold (Fairy-Stockfish's own file has about 150).
pub const MAX_SECTIONS: usize = 200;
/// The longest `extends` chain followed.
pub const MAX_DEPTH: usize = 8;
/// The longest line read, in bytes.
pub const MAX_LINE: usize = 2000;

/// A problem in a `variants.ini` text: the line (when the key is written in the text), the key,
/// and what is wrong with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IniError {
    /// The 1-based line, or `None` for a key inherited from a Fairy-Stockfish built-in parent.
    pub line: Option<usize>,
    /// The key (`customPiece1`), or `(section)` / `(file)`.
    pub key: String,
    /// What is wrong and what would be valid.
    pub problem: String,
}

impl IniError {
    pub(crate) fn new(line: Option<usize>, key: &str, problem: impl Into<String>) -> IniError {
        IniError {
            line,
            key: crate::quote::visible(key, 60),
            problem: crate::quote::visible(&problem.into(), 600),
        }
    }
}

impl fmt::Display for IniError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: `{}`: {}", self.key, self.problem),
            None => write!(f, "`{}`: {}", self.key, self.problem),
        }
    }
}

impl std::error::Error for IniError {}

/// One `key = value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line number (0 for a built-in parent's keys).
    pub line: usize,
    /// The key as written.
    pub key: String,
    /// The value, trimmed.
    pub value: String,
}

/// One `[name]` or `[name:parent]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The variant's name as written.
    pub name: String,
    /// The parent after the colon.
    pub parent: Option<String>,
    /// The header's line.
    pub line: usize,
    /// Its keys in order.
    pub entries: Vec<Entry>,
}

/// Splits a text into sections. Comments (`#`, `;`) and blank lines are skipped.
///
/// # Errors
/// A key before any section, a line that is neither a header nor `key = value`, an over-long
/// text or line, too many sections.
pub fn sections(text: &str) -> Result<Vec<Section>, IniError> {
    if text.len() > crate::spec::MAX_FILE_BYTES {
        return Err(IniError::new(
            None,
            "(file)",
            format!(
                "{} bytes; a variants.ini text is at most {} bytes here (one variant takes about 1 KB)",
                text.len(),
                crate::spec::MAX_FILE_BYTES
            ),
        ));
    }
    let mut out: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        if raw.len() > MAX_LINE {
            return Err(IniError::new(
                Some(n),
                "(line)",
                format!("{} bytes; a line is at most {MAX_LINE}", raw.len()),
            ));
        }
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[') {
            let inner = inner.strip_suffix(']').ok_or_else(|| {
                IniError::new(
                    Some(n),
                    "(section)",
                    "a section header is `[name]` or `[name:parent]`, closed by `]`",
                )
            })?;
            let (name, parent) = match inner.split_once(':') {
                Some((a, b)) => (a.trim(), Some(b.trim().to_string())),
                None => (inner.trim(), None),
            };
            if name.is_empty() || parent.as_deref() == Some("") {
                return Err(IniError::new(
                    Some(n),
                    "(section)",
                    "the section needs a name (and, after a colon, a parent)",
                ));
            }
            if out.len() >= MAX_SECTIONS {
                return Err(IniError::new(
                    Some(n),
                    "(section)",
                    format!(
                        "more than {MAX_SECTIONS} sections; upload the variant you want on its own"
                    ),
                ));
            }
            out.push(Section {
                name: name.to_string(),
                parent,
                line: n,
                entries: Vec::new(),
            });
            continue;
        }
        let (key, value) = line.split_once('=').ok_or_else(|| {
            IniError::new(
                Some(n),
                "(line)",
                format!(
                    "{}: expected `key = value` or a `[section]` header",
                    crate::quote::quote(line)
                ),
            )
        })?;
        let key = key.trim();
        // A comment after the value (`maxFile = 10 # ten files`) is not part of it.
        let value = value.split(['#', ';']).next().unwrap_or("").trim();
        let section = out.last_mut().ok_or_else(|| {
            IniError::new(Some(n), key, "a key before any `[section]` header; start the variant with `[name]` or `[name:chess]`")
        })?;
        section.entries.push(Entry {
            line: n,
            key: key.to_string(),
            value: value.to_string(),
        });
    }
    Ok(out)
}

/// A section imported onto our schema.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The variant's short name (the section's name, lowercase).
    pub name: String,
    /// The variant in our TOML schema, ready for [`crate::Catalog::add`].
    pub toml: String,
    /// Where each imported key was written, for pointing our resolve step's errors back at
    /// the ini text: (our key's first part, line).
    pub lines: Vec<(String, usize)>,
}

impl Imported {
    /// The ini line that produced our key (`start`, `pieces.N.moves`, `promotion.choices`).
    pub fn line_of(&self, our_key: &str) -> Option<usize> {
        self.lines
            .iter()
            .filter(|(k, _)| our_key.starts_with(k.as_str()))
            .max_by_key(|(k, _)| k.len())
            .map(|(_, l)| *l)
    }
}

/// Imports the section named `section` (or the text's last section) onto our schema.
///
/// # Errors
/// The first problem found, with its line and key: syntax, an unknown parent, a key fairybot
/// has no rule for, a value that is not valid, a Betza string that cannot be translated.
pub fn import(text: &str, section: Option<&str>) -> Result<Imported, IniError> {
    let all = sections(text)?;
    let target = match section {
        Some(name) => all
            .iter()
            .rposition(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).take(20).collect();
                IniError::new(
                    None,
                    "(section)",
                    format!(
                        "no section [{}] in the text; it has {}",
                        crate::quote::visible(name, 40),
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                )
            })?,
        None => all.len().checked_sub(1).ok_or_else(|| {
            IniError::new(
                None,
                "(file)",
                "no `[section]` in the text: a variant starts with `[name]` or `[name:chess]`",
            )
        })?,
    };
    // The chain from the template down to the target, each level's entries in order.
    let mut chain: Vec<&Section> = Vec::new();
    let mut builtin: Option<&'static str> = None;
    let mut at = target;
    loop {
        let s = &all[at];
        if chain.len() >= MAX_DEPTH {
            return Err(IniError::new(
                Some(s.line),
                "(section)",
                format!("the inheritance chain is longer than {MAX_DEPTH} sections (or loops)"),
            ));
        }
        chain.push(s);
        let Some(parent) = &s.parent else { break };
        // An earlier section of the same text first, as Fairy-Stockfish reads the file top down.
        if let Some(p) = all[..at].iter().rposition(|x| &x.name == parent) {
            at = p;
            continue;
        }
        builtin = Some(parents::find(parent).ok_or_else(|| {
            IniError::new(
                Some(s.line),
                "(section)",
                format!(
                    "parent `{}` is neither an earlier section of this text nor a Fairy-Stockfish built-in fairybot knows ({})",
                    crate::quote::visible(parent, 40),
                    parents::NAMES.join(", ")
                ),
            )
        })?);
        break;
    }
    let mut entries: Vec<Entry> = Vec::new();
    if let Some(b) = builtin {
        let base = sections(b).map_err(|e| IniError::new(None, "(built-in)", e.to_string()))?;
        for s in base {
            entries.extend(s.entries.into_iter().map(|e| Entry { line: 0, ..e }));
        }
    }
    for s in chain.iter().rev() {
        entries.extend(s.entries.iter().cloned());
    }
    let name = all[target].name.to_ascii_lowercase().replace('_', "-");
    convert::convert(&name, &entries).map(|(toml, lines)| Imported { name, toml, lines })
}

/// Imports a section and resolves it into a playable variant, pointing any problem of our
/// resolve step (an impossible start, a promotion choice that is royal) back at the ini line.
///
/// # Errors
/// As [`import`], plus what [`crate::Catalog::check_file`] finds, with the ini key and line.
pub fn check(
    text: &str,
    section: Option<&str>,
) -> Result<(Imported, std::sync::Arc<crate::Variant>), IniError> {
    let imported = import(text, section)?;
    let file = format!("{}.ini", imported.name);
    match crate::Catalog::check_file(&file, &imported.toml) {
        Ok(v) => Ok((imported, v)),
        Err(e) => {
            let line = imported.line_of(&e.key);
            let key = convert::ini_key_for(&e.key);
            Err(IniError::new(line, &key, e.problem))
        }
    }
}

/// Edit distance, for "did you mean" suggestions.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_ascii_lowercase().chars().collect();
    let b: Vec<char> = b.to_ascii_lowercase().chars().collect();
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
}

/// The closest of `options` to `word`, when close enough to be a likely misspelling.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    options: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    options
        .into_iter()
        .map(|o| (distance(word, o), o))
        .filter(|(d, o)| *d <= (o.len() / 3).clamp(1, 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_lines() {
        let s = sections("# c\n[a]\nmaxFile = 10 # ten\n\n[b:a]\nmaxRank=6\n").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].entries[0].value, "10");
        assert_eq!(s[1].parent.as_deref(), Some("a"));
        assert_eq!(s[1].entries[0].line, 6);
        let e = sections("maxFile = 8\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = sections("[a]\nnonsense\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(sections("[a\n").is_err());
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            did_you_mean("startfen", ["startFen", "maxRank"]),
            Some("startFen")
        );
        assert_eq!(did_you_mean("zzzzzz", ["startFen"]), None);
    }
}
