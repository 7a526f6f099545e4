//! The sqlx store (work in progress).
