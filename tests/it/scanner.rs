//! The fast path's line scanner and tree builder against the YAML parser, on generated
//! documents built from tricky lines (proptest): whatever the scanner vouches for, the parser
//! accepts; whatever the filter keeps, the parser accepts; and the tree built from kept lines is
//! the parser's tree, spans and comments included. The JSON fast path's tree, on generated JSON,
//! is the parser's too.

use ownerlint::load::{block, fast, json, scan};
use ownerlint::source::Span;
use ownerlint::yaml;
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "apiVersion: v1",
    "kind: Pod",
    "kind: List",
    "metadata:",
    "name: a",
    "namespace: b",
    "labels:",
    "ownerReferences:",
    "items:",
    "spec:",
    "selector:",
    "status:",
    "phase: Running",
    "- a",
    "-",
    "- k: v",
    "- name: x",
    "- - a",
    "k: v",
    "k:",
    "k: |",
    "k: >-",
    "k: |+ # c",
    "k: |2",
    "text line",
    "more: text",
    "\"quoted",
    "end\"",
    "end\" # c",
    "end\" tail",
    "'single",
    "it''s'",
    "k: \"a\\tb\"",
    "k: \"bad\\q\"",
    "k: \"\\u00e9\"",
    "k: \"\\ud800\"",
    "k: [a, b]",
    "k: [a, \"b\", 'c']",
    "k: {a: b}",
    "k: {a: [b, c], \"d\":e}",
    "k: [a,]",
    "k: [a",
    "k: {a}",
    "k: [a: b]",
    "# comment",
    "",
    "   ",
    "k: a # c",
    "k: a#c",
    "k: a: b",
    "k: a:",
    "k: &x v",
    "k: *x",
    "k: !t v",
    "? k",
    ": v",
    "k: `x`",
    "`x`",
    "{x}",
    "[x]",
    "{}",
    "[]",
    "k:v",
    "\"k\": v",
    "'k': v",
    "\"k\" : v",
    "k: @x",
    "k: %x",
    "%YAML 1.2",
    "---",
    "--- x",
    "...",
    "k: -",
    "k: - a",
    "k: -1",
    "k: ? a",
    "k: :a",
    "- \"q\"",
    "- 'q'",
    "- []",
    "- {}",
    "- |",
    "- # c",
    "k: a\tb",
    "\tk: v",
    "k:  spaced  ",
    "k: \"a",
    "k: 'a",
    "b' c",
    "k: x\u{85}y",
    "k: ~",
    "k: null",
    "-\tk",
    "k: a b c",
    "k: \"a b\" # c",
    "- k: |",
    "  - a",
    "k: 'x''",
];

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(vec![0usize, 0, 0, 1, 2, 2, 2, 3, 4, 4, 6, 8]),
            prop::sample::select(FRAGMENTS),
        ),
        1..14,
    )
    .prop_map(|lines| {
        let mut text = String::new();
        for (indent, fragment) in lines {
            text.push_str(&" ".repeat(indent));
            text.push_str(fragment);
            text.push('\n');
        }
        text
    })
}

const SKELETON: &[&str] = &[
    "apiVersion: apps/v1",
    "kind: ReplicaSet",
    "metadata:",
    "  name: a",
    "  labels:",
    "    app: x",
    "  annotations:",
    "    ownerlint.dev/ignore: owner-not-found",
    "  ownerReferences:",
    "  - apiVersion: apps/v1",
    "    kind: Deployment",
    "    name: y",
    "  finalizers:",
    "  - example.com/f",
    "spec:",
    "  selector:",
    "    matchLabels:",
    "      app: x",
    "  template: z",
    "status:",
    "  phase: Running",
];

/// A plausible object with tricky lines put in at indentations near their neighbours'.
fn object() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            0..SKELETON.len(),
            prop::sample::select(vec![-2i32, 0, 0, 2, 2, 4]),
            prop::sample::select(FRAGMENTS),
        ),
        1..4,
    )
    .prop_map(|inserts| {
        let mut lines: Vec<String> = SKELETON.iter().map(|l| l.to_string()).collect();
        for (at, shift, fragment) in inserts {
            let before = &lines[at.min(lines.len() - 1)];
            let indent = before.len() - before.trim_start().len();
            let indent = (indent as i32 + shift).max(0) as usize;
            lines.insert(at + 1, format!("{}{fragment}", " ".repeat(indent)));
        }
        lines.join("\n") + "\n"
    })
}

fn parse(text: &str) -> Result<yaml::Document, yaml::SyntaxError> {
    let span = Span::new(0, text.len());
    yaml::parse_document(text, yaml::Chunk { span }, yaml::Limits::default())
}

fn comments(d: &yaml::Document) -> Vec<(Span, String)> {
    d.comments
        .iter()
        .map(|c| (c.span, c.text.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20000))]

    #[test]
    fn scanner_vouches_only_for_what_parses(text in prop_oneof![document(), object()]) {
        if scan::scan(&text, 200).is_some() {
            prop_assert!(parse(&text).is_ok(), "accepted, but the parser says {:?}", parse(&text).err());
        }
        if let Some(filtered) = fast::filter(&text, 200, ownerlint::rules::kept()) {
            let joined = filtered.joined(&text);
            let theirs = parse(&joined.text);
            prop_assert!(theirs.is_ok(), "kept text does not parse:\n{}", joined.text);
            // The tree built from the kept lines, in the document's offsets, against the
            // parser's tree of the kept text, mapped back.
            if let (Some(ours), Ok(mut theirs)) = (block::parse_lines(&text, &filtered.lines), theirs) {
                theirs.map_spans(|span| joined.map_span(span));
                prop_assert_eq!(&ours.root, &theirs.root, "kept text:\n{}", joined.text);
                prop_assert_eq!(comments(&ours), comments(&theirs));
            }
        }
    }
}

/// JSON values with the strings, numbers and nesting that make spans tricky.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z\"\\\\/é\\u{1F600}\\u{1}\\u{7f} \\t\\n:#{}\\[\\],-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
            prop::collection::vec(("[a-z\"\\\\: ]{0,6}", inner), 0..5)
                .prop_map(|entries| serde_json::Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The JSON fast path's tree is the YAML parser's tree of the same text, compact or pretty.
    #[test]
    fn json_trees_match_the_parser(value in json_value(), pretty in any::<bool>()) {
        let object = serde_json::json!({ "apiVersion": "v1", "kind": "ConfigMap", "data": value });
        let text = if pretty {
            serde_json::to_string_pretty(&object)
        } else {
            serde_json::to_string(&object)
        }
        .expect("JSON");
        if let Some(ours) = json::parse_all(&text, 200) {
            let theirs = parse(&text);
            prop_assert!(theirs.is_ok(), "accepted, but the parser says {:?}", theirs.err());
            prop_assert_eq!(ours.root, theirs.expect("checked").root, "{}", text);
        }
    }
}
