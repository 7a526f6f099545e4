//! The engine at work for the bot: the bot as a player and the pool its searches run on
//! ([`opponent`]), and post-game analysis ([`analysis`]). The searching itself is the `engine`
//! crate's.

pub mod analysis;
pub mod opponent;
