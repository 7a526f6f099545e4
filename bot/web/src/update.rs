//! What a live page is sent: the parts of the page that change, whole or as edits.
//!
//! An update is one JSON object: `last` (the number of the last position), `live` (still
//! being played) and, for each part of the page ([`PARTS`]), either its new HTML (a string),
//! an edit of the part's HTML in the update before ([`crate::edit`], an array), or nothing
//! when the part did not change. The first update a stream sends is whole; the stream sends an
//! edit only when the watcher holds the very text it edits (see [`crate::live`]).

use serde_json::{Map, Value};

use crate::edit;

/// The parts of a game page that a live update carries, by their element ids.
pub const PARTS: [&str; 5] = ["status", "clocks", "board", "moves", "controls"];

/// An edit may change at most this many tokens of a part (dropped and inserted): a move
/// changes a handful; a takeback to the start or a reveal changes most, and goes whole.
const MAX_CHANGES: usize = 200;

/// A live page's state: what the page shows at its last position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Live {
    /// The last position's number.
    pub last: usize,
    /// Still being played.
    pub live: bool,
    /// The HTML of each of [`PARTS`], in order.
    pub parts: [String; 5],
}

impl Live {
    /// The whole state as an update's JSON.
    pub fn whole(&self) -> String {
        let mut o = self.head();
        for (name, html) in PARTS.iter().zip(&self.parts) {
            o.insert((*name).into(), Value::from(html.as_str()));
        }
        Value::Object(o).to_string()
    }

    /// The update from `before` to `self`, with each changed part as an edit where that is
    /// shorter; `None` when the whole state would be as short.
    pub fn edit_from(&self, before: &Live) -> Option<String> {
        let mut o = self.head();
        for ((name, html), old) in PARTS.iter().zip(&self.parts).zip(&before.parts) {
            if html == old {
                continue;
            }
            let part = match edit::diff(old, html, MAX_CHANGES) {
                Some(ops) if !old.is_empty() => {
                    let ops = edit::to_json(&ops);
                    if ops.to_string().len() < html.len() {
                        ops
                    } else {
                        Value::from(html.as_str())
                    }
                }
                _ => Value::from(html.as_str()),
            };
            o.insert((*name).into(), part);
        }
        let json = Value::Object(o).to_string();
        (json.len() < self.whole().len()).then_some(json)
    }

    fn head(&self) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("last".into(), Value::from(self.last));
        o.insert("live".into(), Value::from(self.live));
        o
    }
}

/// A watcher's copy of the page's state, rebuilt from the updates it reads: what the page's
/// script keeps, in Rust, for tests and for other clients.
#[derive(Debug, Clone, Default)]
pub struct Watcher {
    state: Map<String, Value>,
}

impl Watcher {
    /// Reads one update's JSON; returns the whole state after it, as JSON.
    ///
    /// # Errors
    /// When the update is not JSON, or edits a part this watcher does not hold as it was.
    pub fn read(&mut self, update: &str) -> Result<String, String> {
        let u: Map<String, Value> =
            serde_json::from_str(update).map_err(|e| format!("not JSON: {e}: {update}"))?;
        for (k, v) in u {
            let v = match v {
                Value::Array(ops) => {
                    let old = self
                        .state
                        .get(&k)
                        .and_then(Value::as_str)
                        .ok_or_else(|| format!("an edit of {k}, which this watcher has not"))?;
                    Value::from(
                        edit::apply(old, &ops)
                            .ok_or_else(|| format!("the edit of {k} does not fit its text"))?,
                    )
                }
                v => v,
            };
            self.state.insert(k, v);
        }
        Ok(Value::Object(self.state.clone()).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(last: usize, board: &str, moves: &str) -> Live {
        Live {
            last,
            live: true,
            parts: [
                "in play".into(),
                String::new(),
                board.into(),
                moves.into(),
                format!("<a id=\"last\" data-ply=\"{last}\">Last</a>"),
            ],
        }
    }

    #[test]
    fn an_edit_carries_only_the_changed_parts_and_rebuilds_the_state() {
        let board = |p: &str| {
            let mut s = String::from("<svg>");
            for i in 0..64 {
                s.push_str(&format!("<rect x=\"{i}\"/>"));
            }
            s.push_str(p);
            s + "</svg>"
        };
        let a = state(0, &board("<use e2/>"), "");
        let b = state(1, &board("<use e4/>"), "<li>e4</li>");
        let mut w = Watcher::default();
        w.read(&a.whole()).unwrap();
        let edit = b.edit_from(&a).expect("shorter than whole");
        assert!(edit.len() * 4 < b.whole().len(), "{edit}");
        assert!(
            !edit.contains("status"),
            "an unchanged part is left out: {edit}"
        );
        let after = w.read(&edit).unwrap();
        let mut fresh = Watcher::default();
        assert_eq!(after, fresh.read(&b.whole()).unwrap());
    }

    #[test]
    fn an_edit_of_a_part_the_watcher_has_not_is_refused() {
        let board = |p: &str| format!("<svg>{}{p}</svg>", "<rect/>".repeat(64));
        let a = state(0, &board("<b>"), "");
        let b = state(1, &board("<c>"), "");
        let edit = b.edit_from(&a).expect("shorter than whole");
        let err = Watcher::default().read(&edit).unwrap_err();
        assert!(err.contains("which this watcher has not"), "{err}");
    }
}
