//! The scheduler: a task that asks the service, at a fixed interval, to fire every deadline
//! and reminder that has come ([`GameService::fire_due`]).
//!
//! The application starts one per process, whatever the platforms. Several processes over one
//! PostgreSQL database may each run one: the store's versioned writes let exactly one of them
//! act on each game (see [`GameService::fire_due`]), so no leader election is needed, and a
//! process that dies leaves nothing half-claimed.

use std::{future::Future, sync::Arc, time::Duration};

use crate::{Clock, GameService, store::GameStore};

/// The interval when the configuration names none: a real-time flag falls at most this late.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Runs passes of [`GameService::fire_due_now`] every `every` until `stop` completes. A pass
/// that fails (the store is unreachable) is logged and the next one tries again; a pass that
/// takes longer than `every` delays the next rather than queueing several.
pub async fn run<S, C>(
    service: Arc<GameService<S, C>>,
    every: Duration,
    stop: impl Future<Output = ()>,
) where
    S: GameStore + 'static,
    C: Clock + 'static,
{
    let mut tick = tokio::time::interval(every.max(Duration::from_millis(10)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            _ = tick.tick() => match service.fire_due_now().await {
                Ok(report) if report != Default::default() => {
                    tracing::info!(?report, "scheduler pass");
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %crate::service::error_chain(&e), "scheduler pass failed; retrying at the next tick"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::MemoryStore;
    use crate::{
        model::{NewGame, Place, Platform, PlayerId},
        time_control::TimeControl,
    };

    /// A clock standing still far in the future: every deadline has passed.
    struct Late;

    impl Clock for Late {
        fn now_ms(&self) -> i64 {
            i64::MAX / 2
        }
    }

    /// The runner's first pass comes at once and fires what is due; it stops when asked.
    /// Nothing sleeps: the stop condition is the fired deadline itself.
    #[tokio::test]
    async fn the_runner_fires_due_deadlines_and_stops_when_asked() {
        let store = MemoryStore::new();
        let control = TimeControl::parse("1+0").unwrap();
        let game = store
            .create_game(NewGame {
                variant: "chess".into(),
                options: format!("colour=first clock={control}"),
                start_state: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
                seats: vec![
                    PlayerId::new(Platform::Console, "a"),
                    PlayerId::new(Platform::Console, "b"),
                ],
                place: Place::room(Platform::Console, "here"),
                rating_family: None,
                clock: control.start(2, 0),
                created_at: 0,
            })
            .await
            .unwrap();
        let service = Arc::new(GameService::new(
            store.clone(),
            Late,
            Arc::new(rules::Catalog::builtin()),
        ));
        let finished = async {
            while store.get_game(game.id).await.unwrap().status.is_active() {
                tokio::task::yield_now().await;
            }
        };
        run(service, Duration::from_secs(3600), finished).await;
        assert!(!store.get_game(game.id).await.unwrap().status.is_active());
    }
}
