//! fairybot's rules engine (work in progress).
