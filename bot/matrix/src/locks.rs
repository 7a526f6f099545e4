//! One async lock per key, so that waiting for one player's slot never makes another player
//! wait.

use std::{
    collections::HashMap,
    hash::Hash,
    sync::{Arc, Mutex, PoisonError},
};

/// A value per key, each behind its own async mutex. The map itself is locked only to find
/// or add a key's slot (no `.await` under it); a slot's lock may be held across requests to
/// other servers without holding up the other keys.
#[derive(Debug)]
pub(crate) struct KeyedLocks<K, V> {
    slots: Mutex<HashMap<K, Arc<tokio::sync::Mutex<V>>>>,
}

impl<K, V> Default for KeyedLocks<K, V> {
    fn default() -> Self {
        KeyedLocks {
            slots: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash + Clone, V: Default> KeyedLocks<K, V> {
    /// Locks `key`'s slot (made empty on first use), waiting only for the holders of that key.
    pub(crate) async fn lock(&self, key: &K) -> tokio::sync::OwnedMutexGuard<V> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.entry(key.clone()).or_default())
        };
        slot.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn one_key_held_does_not_hold_up_another() {
        let locks: KeyedLocks<&str, Option<u32>> = KeyedLocks::default();
        let mut alice = locks.lock(&"alice").await;
        *alice = Some(1);
        // Bob's slot is free while Alice's is held (as across a slow room creation).
        let bob = tokio::time::timeout(Duration::from_secs(1), locks.lock(&"bob"))
            .await
            .expect("bob does not wait for alice");
        assert_eq!(*bob, None);
        drop(bob);
        // A second holder of Alice's slot waits for the first, then sees its value.
        assert!(
            tokio::time::timeout(Duration::from_millis(50), locks.lock(&"alice"))
                .await
                .is_err(),
            "alice's slot is taken"
        );
        drop(alice);
        assert_eq!(*locks.lock(&"alice").await, Some(1));
    }
}
