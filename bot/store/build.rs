//! `sqlx::migrate!` embeds the migration folders at compile time, but cargo does not know that
//! a *new* file in them should trigger a rebuild; this tells it.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
