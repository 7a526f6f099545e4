//! The gateway side: a websocket server speaking Discord's gateway protocol (plain JSON text
//! frames, no zlib): Hello, Identify → READY (+ GUILD_CREATE), Resume → replay + RESUMED,
//! heartbeat ACKs, and dispatches pushed by the test.

use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::Inner;
use crate::fixtures;
use crate::state::Out;

pub(crate) async fn serve(listener: TcpListener, inner: Arc<Inner>) {
    // Connection tasks live in this set: aborting `serve` drops it, which aborts them.
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((tcp, _)) = accepted else { continue };
                if inner.lock().gateway_down {
                    drop(tcp);
                    continue;
                }
                let conn = {
                    let mut st = inner.lock();
                    st.session.next_conn += 1;
                    st.gateway.connections += 1;
                    st.session.next_conn
                };
                inner.changed.notify_waiters();
                conns.spawn(connection(tcp, conn, Arc::clone(&inner)));
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

async fn connection(tcp: TcpStream, conn: u64, inner: Arc<Inner>) {
    let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else {
        return;
    };
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Out>();
    let hello = fixtures::hello(inner.config.heartbeat_interval_ms).to_string();
    if sink.send(Message::Text(hello)).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
                    Some(Ok(Message::Ping(p))) => {
                        let _ = sink.send(Message::Pong(p)).await;
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                let Ok(v) = serde_json::from_str::<Value>(&text) else { continue };
                match v["op"].as_u64() {
                    Some(1) => {
                        inner.lock().gateway.heartbeats += 1;
                        let ack = fixtures::heartbeat_ack().to_string();
                        if sink.send(Message::Text(ack)).await.is_err() {
                            break;
                        }
                    }
                    Some(2) => {
                        let guilds = inner.guilds();
                        inner.lock().start_session(conn, tx.clone(), v["d"].clone(), &guilds);
                    }
                    Some(6) => inner.lock().resume_session(conn, tx.clone(), v["d"].clone()),
                    _ => inner.lock().gateway.other_ops.push(v),
                }
                inner.changed.notify_waiters();
            }
            Some(out) = rx.recv() => match out {
                Out::Text(t) => {
                    if sink.send(Message::Text(t)).await.is_err() {
                        break;
                    }
                }
                Out::Close(code) => {
                    let frame = CloseFrame { code: CloseCode::from(code), reason: "".into() };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    break;
                }
                Out::Abort => break,
            },
        }
    }
    inner.lock().connection_closed(conn);
    inner.changed.notify_waiters();
}
