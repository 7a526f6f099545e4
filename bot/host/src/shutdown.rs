//! Shutting down on SIGTERM (systemd, containers, `kill`) and SIGINT (Ctrl-C) alike: stop
//! taking new work, finish and answer what is in flight, then exit 0.
//!
//! The signal handlers are installed first thing in `main`, so a signal that arrives while the
//! store is being opened is not lost either: the frontends see the request as soon as they
//! start and take no work at all.

use tokio::{
    signal::unix::{SignalKind, signal},
    sync::watch,
};

/// A request to stop, shared by every frontend. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Shutdown(watch::Receiver<Option<&'static str>>);

impl Shutdown {
    /// Installs the SIGTERM and SIGINT handlers (from now on neither kills the process) and
    /// returns the request they raise.
    ///
    /// # Errors
    /// When the handlers cannot be installed.
    pub fn on_signals() -> std::io::Result<Shutdown> {
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let (tx, rx) = watch::channel(None);
        tokio::spawn(async move {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            tracing::info!("{name}: finishing what is in flight, then stopping");
            let _ = tx.send(Some(name));
            // A second signal means "now": the work in flight is abandoned (every
            // acknowledged move is durable already).
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            tracing::warn!("second signal: stopping at once");
            std::process::exit(130);
        });
        Ok(Shutdown(rx))
    }

    /// Completes when a stop was requested (at once if it already was).
    pub async fn requested(&self) {
        let mut rx = self.0.clone();
        let _ = rx.wait_for(Option::is_some).await;
    }

    /// [`Shutdown::requested`] as a future of its own, for a task or an adapter that runs
    /// until the stop (boxed: see the crate's note on where code is compiled).
    pub fn stopping(&self) -> bot_core::service::BoxFuture<'static, ()> {
        let stop = self.clone();
        Box::pin(async move { stop.requested().await })
    }
}
