//! Opening books end to end: `engine-book` writes one for a variant file nobody wrote a book
//! for, `engine-match --book` plays from it, and a wrong book or a book where none can be used
//! is refused with what is wrong.

use std::{path::PathBuf, process::Command};

use engine::book::Book;
use rules::Catalog;

const BOOK: &str = env!("CARGO_BIN_EXE_engine-book");
const MATCH: &str = env!("CARGO_BIN_EXE_engine-match");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-book-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run(bin: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(bin).args(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_book_written_for_a_variant_file_is_played_from() {
    let variant_file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tuning-trial.toml");
    let book = scratch("trial.txt");
    let book_arg = book.to_str().unwrap();
    let (ok, said) = run(
        BOOK,
        &[
            variant_file,
            "--count",
            "3",
            "--plies",
            "4",
            "--check-nodes",
            "500",
            "--max-score",
            "300",
            "--out",
            book_arg,
        ],
    );
    assert!(ok, "{said}");
    let text = std::fs::read_to_string(&book).unwrap();
    let variant =
        Catalog::check_file("trial", &std::fs::read_to_string(variant_file).unwrap()).unwrap();
    let parsed = Book::parse(&variant, &text).unwrap();
    assert_eq!(parsed.len(), 3, "{text}");
    let (ok, said) = run(
        MATCH,
        &[
            "--variant-file",
            variant_file,
            "--games",
            "2",
            "--nodes",
            "200",
            "--a",
            "level:3",
            "--b",
            "level:3",
            "--book",
            book_arg,
            "--max-plies",
            "40",
        ],
    );
    assert!(ok, "{said}");
    assert!(
        said.contains(&format!("3 openings from {book_arg}")),
        "{said}"
    );
}

#[test]
fn a_wrong_book_is_refused_with_its_line() {
    let book = scratch("wrong.txt");
    std::fs::write(&book, "variant chess\ne2e4 e7e5\ng1f3 e2e4\n").unwrap();
    let (ok, said) = run(
        MATCH,
        &[
            "--variant",
            "chess",
            "--games",
            "2",
            "--nodes",
            "100",
            "--book",
            book.to_str().unwrap(),
        ],
    );
    assert!(!ok, "{said}");
    assert!(said.contains("line 3, move 2 (e2e4)"), "{said}");

    std::fs::write(&book, "variant grand\ne2e4\n").unwrap();
    let (ok, said) = run(
        MATCH,
        &["--variant", "chess", "--book", book.to_str().unwrap()],
    );
    assert!(!ok, "{said}");
    assert!(said.contains("the book is for grand, not chess"), "{said}");

    let (ok, said) = run(
        MATCH,
        &["--variant", "chess", "--book", "/nonexistent/book.txt"],
    );
    assert!(!ok, "{said}");
    assert!(
        said.contains("reading the book /nonexistent/book.txt"),
        "{said}"
    );
}

#[test]
fn a_book_nothing_can_fill_is_not_written() {
    let out = scratch("none.txt");
    let (ok, said) = run(
        BOOK,
        &[
            "chess",
            "--count",
            "1",
            "--plies",
            "1",
            "--pick-depth",
            "1",
            "--check-nodes",
            "100",
            "--max-score",
            "-1",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(!ok, "{said}");
    assert!(
        said.contains(
            "none of 20 tries was kept (20 scored beyond -1 centipawns, 0 lopsided in play): raise --max-score"
        ),
        "{said}"
    );
    assert!(!out.exists());
}

#[test]
fn bad_margins_and_judging_say_what_to_give() {
    for (args, want) in [
        (
            &["--margins", "fifty"][..],
            "give centipawns, as 50 or 50,400",
        ),
        (
            &["--margins", "50,-5"][..],
            "a margin is how far below the best, 0 or more",
        ),
        (
            &["--judge-games", "2", "--judge-nodes", "0"][..],
            "a judging game needs at least one node a move",
        ),
    ] {
        let out = scratch("bad.txt");
        let mut all = vec!["chess", "--count", "1", "--out", out.to_str().unwrap()];
        all.extend_from_slice(args);
        let (ok, said) = run(BOOK, &all);
        assert!(!ok, "{args:?}: {said}");
        assert!(said.contains(want), "{args:?}: {said}");
        assert!(!out.exists());
    }
}

#[test]
fn four_sides_have_no_book() {
    let (ok, said) = run(
        MATCH,
        &[
            "--variant",
            "dcb-balanced-4p",
            "--book",
            "random",
            "--games",
            "1",
        ],
    );
    assert!(!ok, "{said}");
    assert!(said.contains("books are for two sides"), "{said}");
    let (ok, said) = run(BOOK, &["dcb-balanced-4p", "--count", "1"]);
    assert!(!ok, "{said}");
    assert!(said.contains("books are for two-sided matches"), "{said}");
}
