//! How long a player's variant takes to be checked (`rules::validate::validate`), for good
//! definitions and for hostile ones, which must be refused within 100 ms (the check's own
//! deadline is 80 ms). Run: `cargo bench -p rules --bench validate`; the numbers quoted in the docs are
//! the medians of one run.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rules::validate::{Format, Limits, validate};

fn cases() -> Vec<(&'static str, String, Format)> {
    let ini = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ini/variants.ini"
    ))
    .unwrap();
    let section = |name: &str| {
        let s = rules::ini::sections(&ini).unwrap();
        let s = s.iter().find(|s| s.name == name).unwrap();
        let mut out = format!("[{}:{}]\n", s.name, s.parent.as_deref().unwrap_or("fairy"));
        for e in &s.entries {
            out.push_str(&format!("{} = {}\n", e.key, e.value));
        }
        out
    };
    let back = "qqqqqqqkqqqqqqqq";
    let cylinder = format!(
        "name = \"cylinder\"\nstart = \"{back}/wwwwwwwwwwwwwwww/16/16/16/16/16/16/16/16/WWWWWWWWWWWWWWWW/{} w - - 0 1\"\n[board]\nfiles = 16\nranks = 12\nwrap_files = {{}}\n[pieces.K]\nname = \"King\"\nmoves = \"K\"\nroyal = true\n[pieces.W]\nname = \"Wazir\"\nmoves = \"W\"\n[pieces.Q]\nname = \"Rider\"\nmoves = \"QNN\"\n",
        back.to_uppercase()
    );
    let mut many = String::from("name = \"many\"\nextends = \"chess\"\n");
    for i in 0..3000 {
        many.push_str(&format!("[pieces.P{i}]\nname = \"x\"\nmoves = \"W\"\n"));
    }
    vec![
        ("ok-centaurking", section("centaurking"), Format::Ini),
        ("ok-indiangreat", section("indiangreat"), Format::Ini),
        (
            "hostile-huge-board",
            "[huge:chess]\nmaxFile = 26\nmaxRank = 26\n".into(),
            Format::Ini,
        ),
        ("hostile-3000-pieces", many, Format::Toml),
        ("hostile-cylinder-riders", cylinder, Format::Toml),
        (
            "hostile-no-king",
            "[kingless:chess]\nstartFen = 8/pppppppp/8/8/8/8/PPPPPPPP/8 w - - 0 1\n".into(),
            Format::Ini,
        ),
        (
            "hostile-markup",
            "name = \"mine\"\nextends = \"chess\"\ndisplay_name = \"<@everyone>\"\n".into(),
            Format::Toml,
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let limits = Limits::default();
    let mut group = c.benchmark_group("validate");
    for (id, text, format) in cases() {
        group.bench_with_input(BenchmarkId::from_parameter(id), &text, |b, t| {
            b.iter(|| validate(t, format, &limits, &[]).is_ok())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
