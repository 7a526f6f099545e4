//! What players type: the command grammar ([`command`]) and the move suggestions offered
//! while they type ([`suggest`]).

pub mod command;
pub mod suggest;
