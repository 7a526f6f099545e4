//! What a game is, with no I/O: the records the store keeps ([`model`]), which rules engine
//! plays a variant ([`rules_engine`]), time controls and clocks as arithmetic
//! ([`time_control`]), ratings ([`rating`]), seats ([`seating`]), a challenge's options
//! ([`options`]), chance ([`chance`]) and the players' own variants ([`custom`]).

pub mod chance;
pub mod custom;
pub mod model;
pub mod options;
pub mod rating;
pub mod rules_engine;
pub mod seating;
pub mod time_control;
