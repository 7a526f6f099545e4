//! The platform-neutral bot core (work in progress).

pub mod model;
pub mod store;
