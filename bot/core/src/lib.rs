//! The platform-neutral bot core (work in progress).
