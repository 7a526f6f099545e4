//! The fairybot binary (work in progress).
fn main() {
    println!("fairybot: nothing to run yet");
}
