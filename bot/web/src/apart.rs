//! The web server on threads of its own, at a lower priority than the commands.
//!
//! Watchers must never slow the players (issue 29: the command path's p99 unchanged within
//! 10 % while 1,000 pages follow a game). On the commands' own runtime they would: a move
//! fanned out to 1,000 event streams is 1,000 tasks writing tens of kilobytes each, queued on
//! the same worker threads as the next command. Here the server gets a runtime of its own
//! whose threads run at a nice value ([`Priority`]), so the kernel hands a core to a woken
//! command thread first and the pages take what is left, as the bot's searches already do
//! ([`bot_core::opponent::DEFAULT_SEARCH_NICE`]).
//!
//! The store is the commands' too: the server makes its store calls on the runtime that
//! started it ([`Web::serve_apart`] notes it), so that every store connection is opened and
//! driven by the commands' threads, at their priority (`Web::at_home`).

use std::sync::Arc;

use bot_core::store::GameStore;

use crate::Web;

/// How the web server's threads run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priority {
    /// Worker threads (at least one).
    pub threads: usize,
    /// Their nice value, 0 (the commands' priority) to 19.
    pub nice: i32,
}

/// The web server's nice value unless configured: below the commands, above the bot's
/// searches (19), since a watcher is a person waiting for a move to show (the fan-out's
/// target is 50 ms) and a search can always stop at its time limit.
pub const DEFAULT_NICE: i32 = 10;

impl Default for Priority {
    fn default() -> Self {
        Priority {
            threads: 2,
            nice: DEFAULT_NICE,
        }
    }
}

/// The web server running apart ([`Web::serve_apart`]) until [`Apart::stop`] or until it is
/// dropped, which stops it the same way (a runtime dropped in async code would panic).
#[derive(Debug)]
pub struct Apart {
    /// `None` once stopped.
    runtime: Option<tokio::runtime::Runtime>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Apart {
    /// Whether the server has stopped by itself (its listener broke, or `stop` came and the
    /// open connections ended).
    pub fn is_finished(&self) -> bool {
        self.served.is_finished()
    }

    /// Stops the server and its runtime: every connection is dropped, nothing is waited
    /// for (the threads end in the background). Callable from async code.
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for Apart {
    fn drop(&mut self) {
        self.served.abort();
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl<S: GameStore + Clone + Send + Sync + 'static> Web<S> {
    /// Serves on `listener` (a standard listener, made non-blocking here) on a runtime of
    /// its own with `priority`, until `stop` completes and its connections end, or until
    /// [`Apart::stop`]. Called on the commands' runtime, which then makes the server's
    /// store calls. See the module's note.
    ///
    /// # Errors
    /// When the runtime's threads cannot start or the listener cannot be used.
    pub fn serve_apart(
        self: Arc<Self>,
        listener: std::net::TcpListener,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
        priority: Priority,
    ) -> std::io::Result<Apart> {
        listener.set_nonblocking(true)?;
        // Store calls go back to the caller's runtime, the commands' (see `Web::at_home`).
        if let Ok(home) = tokio::runtime::Handle::try_current() {
            let _ = self.home.set(home);
        }
        let nice = priority.nice;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(priority.threads.max(1))
            .thread_name("web")
            .on_thread_start(move || bot_core::opponent::yield_to_commands(nice))
            .enable_all()
            .build()?;
        let served = runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            self.serve(listener, stop).await
        });
        Ok(Apart {
            runtime: Some(runtime),
            served,
        })
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use bot_core::{
        metrics::Metrics,
        store::{
            memory::MemoryStore,
            watched::{GameChanges, Watched},
        },
    };
    use rules::Catalog;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::{Health, WebConfig};
    use bot_core::store::StoreError;

    /// The nice value in a thread's `stat` file.
    fn nice_in(stat: &std::path::Path) -> i32 {
        let stat = std::fs::read_to_string(stat).unwrap();
        // After the command's closing parenthesis: state is field 3, nice field 19.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        rest.split(' ').nth(16).unwrap().parse().unwrap()
    }

    /// The nice values of this process's threads named `name`.
    fn nice_of(name: &str) -> Vec<i32> {
        let mut found = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").unwrap() {
            let dir = task.unwrap().path();
            let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
            if comm.trim() == name {
                found.push(nice_in(&dir.join("stat")));
            }
        }
        found
    }

    fn memory_web() -> std::sync::Arc<Web<Watched<MemoryStore>>> {
        let changes = GameChanges::new();
        Web::new(
            Watched::new(MemoryStore::new(), changes.clone()),
            std::sync::Arc::new(Catalog::builtin()),
            std::sync::Arc::new(Metrics::new()),
            Health::new(),
            changes,
            WebConfig::new("127.0.0.1:0".parse().unwrap()),
        )
    }

    #[test]
    fn store_calls_are_made_on_the_runtime_that_started_the_server() {
        let home = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("home")
            .enable_all()
            .build()
            .unwrap();
        let web = memory_web();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        // The same nice value as the other test's, which counts the threads named "web".
        let priority = Priority {
            threads: 1,
            nice: 7,
        };
        let apart = home
            .block_on(async {
                web.clone()
                    .serve_apart(listener, std::future::pending(), priority)
            })
            .unwrap();
        // Asked from elsewhere (as a page's thread asks), made at home.
        let elsewhere = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let made_on = elsewhere.block_on(web.at_home(async {
            Ok::<_, StoreError>(std::thread::current().name().map(str::to_owned))
        }));
        assert_eq!(made_on.unwrap().as_deref(), Some("home"));
        apart.stop();
        // Once the commands' runtime is gone, a store call says the store is unavailable.
        drop(home);
        let after = elsewhere.block_on(web.at_home(async { Ok::<_, StoreError>(()) }));
        assert!(
            matches!(after, Err(StoreError::Unavailable(_))),
            "{after:?}"
        );
    }

    #[tokio::test]
    async fn the_server_answers_from_threads_of_its_own_below_the_commands_and_stops() {
        let web = memory_web();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let priority = Priority {
            threads: 1,
            nice: 7,
        };
        let apart = web
            .serve_apart(listener, std::future::pending(), priority)
            .unwrap();
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET /game/1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
        assert!(answer.contains("There is no game 1"), "{answer}");
        // Its worker (and no thread of the caller's) runs at the lower priority.
        let web_threads = nice_of("web");
        assert!(
            !web_threads.is_empty() && web_threads.iter().all(|n| *n == 7),
            "{web_threads:?}"
        );
        assert_eq!(nice_in(std::path::Path::new("/proc/thread-self/stat")), 0);
        assert!(!apart.is_finished());
        apart.stop();
        // Dropped without `stop` in async code (a start-up error's path): no panic.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let again = memory_web()
            .serve_apart(listener, std::future::pending(), priority)
            .unwrap();
        drop(again);
        let refused = async {
            loop {
                if tokio::net::TcpStream::connect(addr).await.is_err() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(5), refused)
            .await
            .expect("the listener closes with the server");
    }
}
