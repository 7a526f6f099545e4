//! What the bot says: replies with their audiences ([`reply`]), board pictures ([`picture`]),
//! text renderings ([`text`], [`quote`]), exports ([`export`]), what a bystander may see of a
//! game ([`watch`]) and the generated book pages ([`book`]). Nothing here decides anything:
//! it shows what the service decided.

pub mod book;
pub mod export;
pub mod picture;
pub mod quote;
pub mod reply;
pub mod text;
pub mod watch;
