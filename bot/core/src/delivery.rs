//! Getting what was said to the players: the durable outbox and its senders ([`outbox`]), the
//! clock scheduler that speaks unasked ([`scheduler`]), and the counters for `/metrics`
//! ([`metrics`]).

pub mod metrics;
pub mod outbox;
pub mod scheduler;
