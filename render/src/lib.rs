//! Board pictures (work in progress).
