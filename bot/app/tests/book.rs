//! The book under `docs/` and the README cannot rot: every page of `docs/src` is listed in
//! `SUMMARY.md`, every page the summary lists exists, and every relative link and picture of
//! the book and of the README points at a file that exists and, when it names a heading
//! (`page.md#heading`), at a heading that exists. (mdBook builds a page it cannot find as an
//! empty one and keeps a broken link as it is, so a build alone proves neither.)

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every Markdown file under `dir`.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The targets of the inline links and pictures of `text` (`[..](target)`, `![..](target)`),
/// outside code blocks and code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        // Code spans hide what looks like a link.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// GitHub's and mdBook's anchor of a heading: lower case, spaces to hyphens, punctuation
/// other than hyphens and underscores dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut in_block = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
        } else if !in_block && line.starts_with('#') {
            found.insert(slug(line.trim_start_matches('#')));
        }
    }
    found
}

/// `path` with `.` and `..` resolved without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The broken links of one file, as readable lines.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    let mut broken = Vec::new();
    for target in link_targets(&text) {
        if target.contains("://") || target.starts_with("mailto:") || target.starts_with('<') {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let linked = if path.is_empty() {
            file.to_path_buf()
        } else {
            normalise(&dir.join(path))
        };
        if !linked.exists() {
            broken.push(format!("{}: {target}: no such file", file.display()));
            continue;
        }
        if let Some(anchor) = anchor
            && linked.extension().is_some_and(|e| e == "md")
        {
            let there = std::fs::read_to_string(&linked).unwrap();
            if !anchors(&there).contains(anchor) {
                broken.push(format!("{}: {target}: no such heading", file.display()));
            }
        }
    }
    broken
}

#[test]
fn every_page_is_in_the_summary_and_every_summary_entry_exists() {
    let src = normalise(&root().join("docs/src"));
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = link_targets(&summary)
        .into_iter()
        .map(|t| normalise(&src.join(t)))
        .collect();
    for page in &listed {
        assert!(
            page.exists(),
            "SUMMARY.md lists {}, which is missing",
            page.display()
        );
    }
    let unlisted: Vec<_> = markdown_files(&src)
        .into_iter()
        .map(|p| normalise(&p))
        .filter(|p| !p.ends_with("SUMMARY.md") && !listed.contains(p))
        .collect();
    assert!(
        unlisted.is_empty(),
        "pages missing from docs/src/SUMMARY.md: {unlisted:#?}"
    );
}

#[test]
fn every_link_of_the_book_and_the_readme_resolves() {
    let root = normalise(&root());
    let mut files = markdown_files(&root.join("docs/src"));
    files.push(root.join("README.md"));
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_stays_a_front_door() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 300,
        "README.md has {lines} lines: move details into the book under docs/src"
    );
}

#[test]
fn the_checker_finds_what_it_should() {
    let text = "see [a](x.md#two-words) and `[b](not-a-link.md)`\n```\n[c](nor-this.md)\n```\n\
                ![pic](img/a.png) <https://example.org>";
    assert_eq!(link_targets(text), ["x.md#two-words", "img/a.png"]);
    assert_eq!(slug(" Two Words, again!"), "two-words-again");
    assert!(anchors("# Two words\n```\n# not a heading\n```\n").contains("two-words"));
    assert_eq!(normalise(Path::new("a/b/../c/./d")), PathBuf::from("a/c/d"));
}
