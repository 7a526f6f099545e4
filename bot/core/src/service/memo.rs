//! What the service remembers between commands to spare the store round trips and the rules
//! engine replays on the move path. Both memories only ever skip work whose result they hold
//! exactly; the store stays the truth.
//!
//! - **Engines** (a board's position, a Looking-Glass referee) are keyed by game and version.
//!   Every change to a game bumps its version, so an engine remembered at the version the
//!   store returns is the engine of that record;
//!   any other version (another process moved, a takeback) simply misses and is replayed.
//! - **Names** are the display names this service last wrote or read for a player. A
//!   matching name lets a command skip the upsert; a name changed on the platform differs
//!   and is written. With several bot processes on one database, a board may show a name
//!   another process has since updated until that player speaks here again: names are only
//!   labels.

use std::{
    collections::HashMap,
    sync::{Mutex, PoisonError},
};

use crate::{
    model::{GameId, PlayerId},
    rules_engine::GameEngine,
};

/// How many entries each memory keeps before it starts afresh (bounded memory without an LRU:
/// the hot games and players come back within a few commands).
const CAPACITY: usize = 4096;

/// Engines and names remembered by one service.
#[derive(Default)]
pub(crate) struct Memo {
    engines: Mutex<HashMap<GameId, (i64, GameEngine)>>,
    names: Mutex<HashMap<PlayerId, String>>,
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("engines", &len_of(&self.engines))
            .field("names", &len_of(&self.names))
            .finish()
    }
}

fn len_of<K, V>(m: &Mutex<HashMap<K, V>>) -> usize {
    m.lock().unwrap_or_else(PoisonError::into_inner).len()
}

fn insert_bounded<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, V>, key: K, value: V) {
    if map.len() >= CAPACITY && !map.contains_key(&key) {
        map.clear();
    }
    map.insert(key, value);
}

impl Memo {
    /// The engine of `game` at `version`, if remembered.
    pub(crate) fn engine(&self, game: GameId, version: i64) -> Option<GameEngine> {
        let map = self.engines.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(&game)
            .filter(|(v, _)| *v == version)
            .map(|(_, p)| p.clone())
    }

    /// Remembers the engine of `game` at `version`.
    pub(crate) fn keep_engine(&self, game: GameId, version: i64, engine: GameEngine) {
        let mut map = self.engines.lock().unwrap_or_else(PoisonError::into_inner);
        insert_bounded(&mut map, game, (version, engine));
    }

    /// The name last seen for `player`.
    pub(crate) fn name(&self, player: &PlayerId) -> Option<String> {
        let map = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(player).cloned()
    }

    /// Whether `name` is what the store already holds for `player`, as far as we know.
    pub(crate) fn knows_name(&self, player: &PlayerId, name: &str) -> bool {
        let map = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(player).is_some_and(|n| n == name)
    }

    /// Remembers the stored name of `player`.
    pub(crate) fn keep_name(&self, player: &PlayerId, name: &str) {
        let mut map = self.names.lock().unwrap_or_else(PoisonError::into_inner);
        insert_bounded(&mut map, player.clone(), name.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Platform;

    #[test]
    fn an_engine_is_found_only_at_its_version() {
        let catalog = rules::Catalog::builtin();
        let pos = rules::Position::start(&catalog.get("chess").unwrap());
        let memo = Memo::default();
        memo.keep_engine(GameId(7), 3, GameEngine::Board(pos));
        assert!(memo.engine(GameId(7), 3).is_some());
        assert!(
            memo.engine(GameId(7), 4).is_none(),
            "a newer version misses"
        );
        assert!(memo.engine(GameId(8), 3).is_none());
    }

    #[test]
    fn names_match_exactly_and_memory_stays_bounded() {
        let memo = Memo::default();
        let p = |n: usize| PlayerId::new(Platform::Console, format!("p{n}"));
        memo.keep_name(&p(0), "Ann");
        assert!(memo.knows_name(&p(0), "Ann"));
        assert!(!memo.knows_name(&p(0), "Anne"));
        for n in 1..=CAPACITY {
            memo.keep_name(&p(n), "x");
        }
        assert!(memo.names.lock().unwrap().len() <= CAPACITY);
        assert_eq!(memo.name(&p(CAPACITY)).as_deref(), Some("x"));
    }
}
