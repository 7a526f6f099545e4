//! Stopping without dropping answers: the interactions being handled are counted, and at
//! shutdown new ones are refused while the counted ones finish.
//!
//! serenity hands every gateway event to the framework in a task of its own, and poise awaits
//! the whole command (or button handler) inside that dispatch, so "an interaction in flight" is
//! exactly "a dispatch that has not returned". [`Tracked`] wraps the poise framework to count
//! them; [`serve`] waits for the count to reach zero before it closes the gateway.

use std::{
    future::Future,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use poise::serenity_prelude as serenity;
use tokio::sync::watch;

use crate::DiscordError;

/// How long [`serve`] waits for the interactions in flight at a stop (a move with a board
/// picture takes well under a second; Discord's own limit for a deferred answer is 15 minutes,
/// but a supervisor's stop time-out is usually 10 to 30 seconds).
pub const GRACE: Duration = Duration::from_secs(10);

/// The interactions in flight, and whether new ones are still taken. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Drain(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    stopping: AtomicBool,
    in_flight: watch::Sender<usize>,
}

impl Default for Drain {
    fn default() -> Self {
        Drain(Arc::new(Inner {
            stopping: AtomicBool::new(false),
            in_flight: watch::Sender::new(0),
        }))
    }
}

/// Counts one dispatch while it lives (also if it panics).
struct Guard(Drain);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.0.in_flight.send_modify(|n| *n -= 1);
    }
}

impl Drain {
    fn enter(&self) -> Guard {
        self.0.in_flight.send_modify(|n| *n += 1);
        Guard(self.clone())
    }

    /// How many interactions are being handled.
    pub fn in_flight(&self) -> usize {
        *self.0.in_flight.borrow()
    }

    /// Takes no new interactions from now on.
    pub fn stop_taking(&self) {
        self.0.stopping.store(true, Ordering::SeqCst);
    }

    fn stopping(&self) -> bool {
        self.0.stopping.load(Ordering::SeqCst)
    }

    /// Waits until nothing is in flight, at most `grace`; returns whether it got there.
    pub async fn idle(&self, grace: Duration) -> bool {
        let mut rx = self.0.in_flight.subscribe();
        tokio::time::timeout(grace, rx.wait_for(|n| *n == 0))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

/// The poise framework, counted by a [`Drain`].
pub(crate) struct Tracked<F> {
    inner: F,
    drain: Drain,
}

impl<F> Tracked<F> {
    pub(crate) fn new(inner: F, drain: Drain) -> Self {
        Tracked { inner, drain }
    }
}

/// What a user who acts during the stop is told.
const STOPPING: &str = "fairybot is restarting: try again in a minute (nothing was done).";

impl<F: serenity::Framework> serenity::Framework for Tracked<F> {
    fn init<'a, 'b, 'c>(
        &'a mut self,
        client: &'b serenity::Client,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'c>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        self.inner.init(client)
    }

    fn dispatch<'a, 'b>(
        &'a self,
        ctx: serenity::Context,
        event: serenity::FullEvent,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'b>>
    where
        'a: 'b,
        Self: 'b,
    {
        Box::pin(async move {
            if self.drain.stopping()
                && let serenity::FullEvent::InteractionCreate { interaction } = &event
            {
                refuse(&ctx, interaction).await;
                return;
            }
            let _counted = self.drain.enter();
            self.inner.dispatch(ctx, event).await;
        })
    }
}

/// Tells the user of a command or button that arrives during the stop that nothing was done
/// (autocomplete gets no answer: Discord shows no suggestions).
async fn refuse(ctx: &serenity::Context, interaction: &serenity::Interaction) {
    let response = serenity::CreateInteractionResponse::Message(
        serenity::CreateInteractionResponseMessage::new()
            .content(STOPPING)
            .ephemeral(true),
    );
    let sent = match interaction {
        serenity::Interaction::Command(c) => c.create_response(ctx, response).await,
        serenity::Interaction::Component(c) => c.create_response(ctx, response).await,
        _ => Ok(()),
    };
    if let Err(e) = sent {
        tracing::warn!("could not tell a user that the bot is stopping: {e}");
    }
}

/// Runs `client` until `stop` completes (or the connection ends for good). On `stop`: new
/// interactions are refused, those in flight are awaited (at most `grace`), then the gateway
/// is closed and this returns.
///
/// # Errors
/// When the client cannot start or stops with an error.
pub async fn serve(
    mut client: serenity::Client,
    drain: Drain,
    stop: impl Future<Output = ()>,
    grace: Duration,
) -> Result<(), DiscordError> {
    let shards = client.shard_manager.clone();
    let start = client.start();
    tokio::pin!(start, stop);
    tokio::select! {
        r = &mut start => return r.map_err(DiscordError::from),
        () = &mut stop => {}
    }
    drain.stop_taking();
    let waiting = drain.in_flight();
    tracing::info!("stopping: {waiting} interaction(s) in flight");
    if !drain.idle(grace).await {
        tracing::warn!(
            "stopping with {} interaction(s) unanswered after {grace:?}",
            drain.in_flight()
        );
    }
    shards.shutdown_all().await;
    // The client returns once its shards are down.
    let _ = tokio::time::timeout(Duration::from_secs(5), start).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn idle_waits_for_the_work_in_flight_and_no_longer_than_the_grace() {
        let d = Drain::default();
        assert!(d.idle(Duration::from_millis(10)).await);
        let g = d.enter();
        let g2 = d.enter();
        assert_eq!(d.in_flight(), 2);
        assert!(!d.idle(Duration::from_millis(30)).await, "two in flight");
        let finishing = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            drop(g);
            drop(g2);
        });
        assert!(d.idle(Duration::from_secs(5)).await);
        finishing.await.unwrap();
        assert!(!d.stopping());
        d.stop_taking();
        assert!(d.stopping());
    }
}
