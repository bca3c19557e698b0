//! The fast path (a line-level filter before parsing) must not change a single finding: every
//! fixture, every rule document's examples in every shape, the examples and the whole
//! `../shared/corpus` give byte-identical `json` output with and without it.

mod common;

use std::path::PathBuf;

use ownerlint::Options;
use ownerlint::report::Format;
use ownerlint::rules::RULES;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn both(options: Options, check: impl Fn(&str, &str)) {
    let fast = ownerlint::lint(&options, &mut std::io::empty());
    let full = ownerlint::lint(
        &Options {
            full_parse: true,
            ..options
        },
        &mut std::io::empty(),
    );
    check(
        &common::render(&fast, Format::Json),
        &common::render(&full, Format::Json),
    );
}

fn compare(paths: Vec<PathBuf>) {
    let options = Options {
        paths,
        ..Options::default()
    };
    both(options, |fast, full| {
        // Strip the timing line that differs between runs.
        assert!(
            fast == full,
            "fast path changed the findings:\n{}",
            first_difference(fast, full)
        );
    });
}

fn first_difference(a: &str, b: &str) -> String {
    let line = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(0);
    format!(
        "fast: {}\nfull: {}",
        a.lines().nth(line).unwrap_or(""),
        b.lines().nth(line).unwrap_or("")
    )
}

#[test]
fn fixtures_and_examples() {
    compare(vec![root().join("testdata"), root().join("examples")]);
}

#[test]
fn rule_documents_in_every_shape() {
    for rule in RULES {
        let Some(plain) = common::example(rule.meta.doc, "## Failing example") else {
            continue;
        };
        let mut shapes = vec![
            common::to_list(&plain),
            common::to_helm(&plain),
            plain.clone(),
        ];
        shapes.extend(common::to_json(&plain));
        for text in shapes {
            let options = common::doc_options(rule.meta.doc);
            let fast = common::lint("doc.yaml", &text, &options);
            let full = common::lint(
                "doc.yaml",
                &text,
                &Options {
                    full_parse: true,
                    ..options
                },
            );
            let (a, b) = (
                common::render(&fast, Format::Json),
                common::render(&full, Format::Json),
            );
            assert!(a == b, "{}: {}", rule.meta.id, first_difference(&a, &b));
        }
    }
}

#[test]
fn the_whole_corpus() {
    let corpus = root().join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!(
            "skipped: {} is not here (the shared corpus is beside the checkout in CI)",
            corpus.display()
        );
        return;
    }
    compare(vec![corpus]);
}
