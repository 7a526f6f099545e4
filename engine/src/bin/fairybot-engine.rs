//! `fairybot-engine`: the engine over UCI on stdin and stdout.
//!
//! A thread reads stdin so that `stop` and `quit` reach a running search (they set its stop
//! flag at once); every other line is handled in order on the main thread.

use std::{
    io::{BufRead, Write},
    sync::{atomic::Ordering, mpsc},
};

use engine::uci::{Flow, Session};

fn main() -> anyhow::Result<()> {
    let mut session = Session::new(Box::new(|path: &str| {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }));
    let stop = session.stop_flag();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            let word = line.split_whitespace().next().unwrap_or("");
            if word == "stop" || word == "quit" {
                stop.store(true, Ordering::Relaxed);
            }
            if tx.send(line).is_err() {
                break;
            }
        }
        let _ = tx.send("quit".into());
    });
    let stdout = std::io::stdout();
    for line in rx {
        let mut lock = stdout.lock();
        let mut out = |s: String| {
            let _ = writeln!(lock, "{s}");
            let _ = lock.flush();
        };
        if session.handle_line(&line, &mut out) == Flow::Quit {
            break;
        }
    }
    Ok(())
}
