//! The fast path (a line-level filter before parsing YAML, `serde_json` for JSON) must not change
//! a single finding: every fixture, every rule document's examples in every shape, the examples
//! and the whole `../shared/corpus` give byte-identical `json` output with and without it. The
//! corpus takes longer: its tests are ignored in a plain `cargo test`, and `.ci/run` runs them.

use crate::common;

use std::path::PathBuf;

use ownerlint::Options;
use ownerlint::fields;
use ownerlint::load::{block, fast, json, scan};
use ownerlint::report::Format;
use ownerlint::rules::Rule;
use ownerlint::yaml;

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

test_each_rule!(each_rule_declares_the_fields_it_reads: fields_kept_give_the_full_findings);

/// Each rule declares the fields it reads: with the fast path keeping only the pipeline's
/// fields and the rule's own, its failing example (in every shape) gives that rule the same
/// findings as a full parse.
fn fields_kept_give_the_full_findings(rule: &'static Rule) {
    let Some(plain) = common::example(rule.meta.doc, "## Failing example") else {
        return;
    };
    let own: &'static fields::Kept = Box::leak(Box::new(fields::Kept::new(
        fields::PIPELINE.iter().chain(rule.meta.reads),
    )));
    let mut shapes = vec![common::to_list(&plain), plain.clone()];
    shapes.extend(common::to_json(&plain));
    for text in shapes {
        let options = common::doc_options(rule.meta.doc);
        let of_rule = |outcome: ownerlint::Outcome| {
            let mut findings: Vec<String> = outcome
                .findings
                .iter()
                .filter(|f| f.rule.id == rule.meta.id)
                .map(|f| format!("{:?} {}", f.primary.span, f.message))
                .collect();
            findings.sort();
            findings
        };
        let inputs = vec![("doc.yaml".to_string(), text.clone())];
        let kept = of_rule(ownerlint::pipeline::lint_texts_keeping(
            inputs, &options, own,
        ));
        let full = of_rule(common::lint(
            "doc.yaml",
            &text,
            &Options {
                full_parse: true,
                ..options
            },
        ));
        assert_eq!(
            kept, full,
            "{}: the rule reads a field it does not declare (`reads` in declare_rule!)",
            rule.meta.id
        );
    }
}

test_each_rule!(rule_documents_in_every_shape: fast_path_changes_no_finding);

/// The rule's failing example in every shape gives the same report with and without the fast
/// path.
fn fast_path_changes_no_finding(rule: &'static Rule) {
    let Some(plain) = common::example(rule.meta.doc, "## Failing example") else {
        return;
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

#[test]
#[ignore = "heavy: every corpus file twice, 6 s in a debug build; .ci/run runs it in release"]
fn the_whole_corpus() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    compare(vec![corpus]);
}

/// Every document of the YAML and JSON files under `dirs`, as text.
fn documents(dirs: &[PathBuf]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in dirs {
        for entry in ignore::WalkBuilder::new(dir).build().flatten() {
            let path = entry.path();
            let yaml = path
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json");
            let Ok(text) = std::fs::read_to_string(path)
                .map_err(|_| ())
                .and_then(|t| if yaml { Ok(t) } else { Err(()) })
            else {
                continue;
            };
            for chunk in yaml::split_documents(&text, 0) {
                out.push((
                    format!("{}@{}", path.display(), chunk.span.start),
                    text[chunk.span.start..chunk.span.end].to_string(),
                ));
            }
        }
    }
    out
}

fn whole(text: &str) -> Result<yaml::Document, yaml::SyntaxError> {
    let span = ownerlint::source::Span::new(0, text.len());
    yaml::parse_document(text, yaml::Chunk { span }, yaml::Limits::default())
}

/// The line scanner vouches only for documents the parser accepts, and the tree built from the
/// kept lines is the parser's tree of the same text.
fn check_documents(dirs: &[PathBuf]) {
    let (mut scanned, mut built, mut total, mut json_built) = (0, 0, 0, 0);
    for (name, text) in documents(dirs) {
        total += 1;
        if let Some(ours) = json::parse_all(&text, 200) {
            json_built += 1;
            let theirs = whole(&text).expect("serde_json accepted it, so it parses");
            assert_eq!(ours.root, theirs.root, "{name}: JSON tree differs");
        }
        if scan::scan(&text, 200).is_some() {
            scanned += 1;
            assert!(
                whole(&text).is_ok(),
                "{name}: the scanner accepted what the parser rejects:\n{text}"
            );
        }
        let Some(filtered) = fast::filter(&text, 200, ownerlint::rules::kept()) else {
            continue;
        };
        // What loading does: the tree built from the kept lines, in the document's offsets,
        // against the parser's tree of the kept text, mapped back.
        let joined = filtered.joined(&text);
        if let Some(ours) = block::parse_lines(&text, &filtered.lines) {
            built += 1;
            let mut theirs = whole(&joined.text).expect("kept text parses");
            theirs.map_spans(|span| joined.map_span(span));
            assert_eq!(ours.root, theirs.root, "{name}:\n{}", joined.text);
            let comments = |d: &yaml::Document| {
                d.comments
                    .iter()
                    .map(|c| (c.span, c.text.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(comments(&ours), comments(&theirs), "{name}");
        }
    }
    eprintln!(
        "{total} documents: {scanned} vouched for by the scanner, {built} trees built, {json_built} JSON trees built"
    );
}

#[test]
fn scanner_and_tree_builder_agree_with_the_parser() {
    check_documents(&[root().join("testdata"), root().join("examples")]);
}

#[test]
#[ignore = "heavy: every corpus document, 8 s in a debug build; .ci/run runs it in release"]
fn scanner_and_tree_builder_agree_with_the_parser_on_the_corpus() {
    if let Some(corpus) = common::corpus_dir() {
        check_documents(&[corpus]);
    }
}

/// The fast path drops `data`, `spec` and `status` unparsed; a syntax error there must still be
/// reported, at the same place as a full parse reports it.
#[test]
fn syntax_errors_in_dropped_fields_are_still_reported() {
    for (body, line) in [
        ("data:\n  a: b: c\n", 7),
        ("spec:\n  replicas: 1\n   bad: indent\n", 8),
        // At the quote that is never closed (libyaml's context mark), not at the end of the text.
        ("status:\n  message: \"never closed\n", 7),
        ("data:\n  script: |\n    ok\n  bad\n", 9),
    ] {
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: b\n{body}"
        );
        let fast = common::lint("doc.yaml", &text, &Options::default());
        let full = common::lint(
            "doc.yaml",
            &text,
            &Options {
                full_parse: true,
                ..Options::default()
            },
        );
        let (a, b) = (
            common::render(&fast, Format::Json),
            common::render(&full, Format::Json),
        );
        assert_eq!(a, b, "{body}");
        let short = common::render(&fast, Format::Short);
        assert!(
            short.contains("error[invalid-yaml]") && short.contains(&format!("doc.yaml:{line}:")),
            "{body}\n{short}"
        );
    }
}
