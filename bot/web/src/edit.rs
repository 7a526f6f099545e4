//! The edit that turns one text of a live page into the next, so that a watcher is sent
//! what changed rather than the whole board again.
//!
//! A move changes a few elements of a board's SVG (a piece or two, the last-move marks) and
//! one line of the move list, but the whole is 10-30 KB: sent to a thousand watchers after
//! every move, that is tens of megabytes per move. The edit of a move is a few hundred bytes.
//!
//! Texts are compared as **tokens**: a text is cut before every `<`, so a token is a tag
//! with the text after it. The page's script cuts the same way (`text.split(/(?=<)/)`, which
//! makes no empty first token), so both ends agree on what token *n* is.
//!
//! An edit is a list of [`Op`]s read from the start of the old text: keep *n* tokens, drop
//! *n* tokens, or insert a text. Whatever follows the last op is kept. As JSON an op is a
//! positive number (keep), a negative number (drop) or a string (insert).
//!
//! The diff is Myers' O(ND) algorithm with a bound on D: two texts that differ in more tokens
//! than that are not worth an edit, and the caller sends the new text whole.

use serde_json::Value;

/// One step of an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Keep the next *n* tokens of the old text.
    Keep(usize),
    /// Drop the next *n* tokens of the old text.
    Drop(usize),
    /// Insert this text.
    Insert(String),
}

/// `text` cut before every `<` (but never into an empty first token).
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0;
    for (i, _) in text.match_indices('<') {
        if i > start {
            out.push(&text[start..i]);
            start = i;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The edit from `old` to `new`, or `None` when they differ in more than `max_changes`
/// tokens dropped and inserted (send `new` whole then).
pub fn diff(old: &str, new: &str, max_changes: usize) -> Option<Vec<Op>> {
    let (a, b) = (tokens(old), tokens(new));
    let script = myers(&a, &b, max_changes)?;
    Some(compress(&script, &b))
}

/// One token's fate, in order: the shortest edit script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Keep,
    Drop,
    /// Insert `b[j]`.
    Insert(usize),
}

/// Myers' greedy forward search for the shortest edit script, keeping each round's
/// frontier to walk back through. Memory and time are O((N + M) · D) with D at most `max_d`.
fn myers(a: &[&str], b: &[&str], max_d: usize) -> Option<Vec<Step>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max_d = max_d.min(a.len() + b.len());
    let off = max_d as isize + 1;
    // v[k + off]: the furthest x reached on diagonal k = x - y.
    let mut v = vec![0isize; 2 * max_d + 3];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max_d as isize {
        trace.push(v.clone());
        let mut k = -d;
        while k <= d {
            let i = (k + off) as usize;
            let mut x = if k == -d || (k != d && v[i - 1] < v[i + 1]) {
                v[i + 1]
            } else {
                v[i - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[i] = x;
            if x >= n && y >= m {
                return Some(walk_back(&trace, d, n, m, off));
            }
            k += 2;
        }
    }
    None
}

/// The script found at round `d`, from the frontiers before each round.
fn walk_back(trace: &[Vec<isize>], d: isize, n: isize, m: isize, off: isize) -> Vec<Step> {
    let mut steps = Vec::with_capacity((n + m) as usize);
    let (mut x, mut y) = (n, m);
    for d in (1..=d).rev() {
        let v = &trace[d as usize];
        let k = x - y;
        let i = (k + off) as usize;
        let down = k == -d || (k != d && v[i - 1] < v[i + 1]);
        let prev_k = if down { k + 1 } else { k - 1 };
        let prev_x = v[(prev_k + off) as usize];
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            steps.push(Step::Keep);
            x -= 1;
            y -= 1;
        }
        steps.push(if down {
            Step::Insert(prev_y as usize)
        } else {
            Step::Drop
        });
        (x, y) = (prev_x, prev_y);
    }
    for _ in 0..x {
        steps.push(Step::Keep);
    }
    steps.reverse();
    steps
}

/// Runs of steps as ops, the trailing keep left out.
fn compress(script: &[Step], b: &[&str]) -> Vec<Op> {
    let mut ops: Vec<Op> = Vec::new();
    for s in script {
        match (s, ops.last_mut()) {
            (Step::Keep, Some(Op::Keep(n))) | (Step::Drop, Some(Op::Drop(n))) => *n += 1,
            (Step::Insert(j), Some(Op::Insert(t))) => t.push_str(b[*j]),
            (Step::Keep, _) => ops.push(Op::Keep(1)),
            (Step::Drop, _) => ops.push(Op::Drop(1)),
            (Step::Insert(j), _) => ops.push(Op::Insert(b[*j].to_string())),
        }
    }
    if matches!(ops.last(), Some(Op::Keep(_))) {
        ops.pop();
    }
    ops
}

/// The ops as JSON: keep `n`, drop `-n`, insert `"text"`.
pub fn to_json(ops: &[Op]) -> Value {
    Value::Array(
        ops.iter()
            .map(|op| match op {
                Op::Keep(n) => Value::from(*n),
                Op::Drop(n) => Value::from(-(*n as i64)),
                Op::Insert(t) => Value::from(t.as_str()),
            })
            .collect(),
    )
}

/// `old` with the edit `ops` (as JSON) made: what the page's script does, for tests and for
/// anyone writing another client. `None` when the ops are not an edit of `old`.
pub fn apply(old: &str, ops: &[Value]) -> Option<String> {
    let t = tokens(old);
    let mut at = 0usize;
    let mut out = String::with_capacity(old.len());
    for op in ops {
        match op {
            Value::String(s) => out.push_str(s),
            Value::Number(n) => {
                let n = n.as_i64()?;
                let len = n.unsigned_abs() as usize;
                let end = at.checked_add(len).filter(|&e| e <= t.len())?;
                if n > 0 {
                    out.extend(t[at..end].iter().copied());
                }
                at = end;
            }
            _ => return None,
        }
    }
    out.extend(t[at..].iter().copied());
    Some(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn roundtrip(old: &str, new: &str) -> Vec<Op> {
        let ops = diff(old, new, 1000).expect("within the bound");
        let json = to_json(&ops);
        assert_eq!(
            apply(old, json.as_array().unwrap()).as_deref(),
            Some(new),
            "{ops:?}"
        );
        ops
    }

    #[test]
    fn tokens_are_cut_before_each_tag_as_the_page_script_cuts_them() {
        assert_eq!(tokens("<a>x<b/>y"), vec!["<a>x", "<b/>y"]);
        assert_eq!(tokens("lead<a>"), vec!["lead", "<a>"]);
        assert_eq!(tokens("no tags"), vec!["no tags"]);
        assert_eq!(tokens("<<"), vec!["<", "<"]);
        assert!(tokens("").is_empty());
    }

    #[test]
    fn a_moved_piece_is_a_short_edit() {
        let old = "<svg><rect/><use a1/><use e2/><use h8/></svg>";
        let new = "<svg><rect/><use a1/><use h8/><use e4/></svg>";
        let ops = roundtrip(old, new);
        assert_eq!(
            ops,
            vec![
                Op::Keep(3),
                Op::Drop(1),
                Op::Keep(1),
                Op::Insert("<use e4/>".into())
            ]
        );
        assert!(roundtrip("same<x>", "same<x>").is_empty());
        roundtrip("", "<a>");
        roundtrip("<a>", "");
    }

    #[test]
    fn texts_too_different_are_not_diffed() {
        let old: String = (0..50).map(|i| format!("<a{i}>")).collect();
        let new: String = (0..50).map(|i| format!("<b{i}>")).collect();
        assert!(diff(&old, &new, 20).is_none());
        assert!(diff(&old, &new, 100).is_some());
    }

    #[test]
    fn ops_that_run_past_the_text_are_refused() {
        let ops: Vec<Value> = serde_json::from_str("[2, -5]").unwrap();
        assert_eq!(apply("<a><b><c>", &ops), None);
        let ops: Vec<Value> = serde_json::from_str("[1, true]").unwrap();
        assert_eq!(apply("<a><b>", &ops), None);
    }

    proptest! {
        /// Any two texts made of a few tags: the edit rebuilds the new one.
        #[test]
        fn an_edit_always_rebuilds_the_new_text(
            old in proptest::collection::vec(0u8..6, 0..40),
            new in proptest::collection::vec(0u8..6, 0..40),
            lead in "[a-z]{0,2}",
        ) {
            let text = |v: &[u8]| -> String {
                lead.clone() + &v.iter().map(|t| format!("<t{t}>x")).collect::<String>()
            };
            roundtrip(&text(&old), &text(&new));
        }
    }
}
