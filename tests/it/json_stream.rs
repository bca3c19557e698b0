//! JSON objects one after another (`{…}{…}`, or an object a line, as `jq` writes them), read as
//! kubectl reads them: each object a document of its own, with its exact positions, in a file
//! and on standard input; a syntax error stops the stream where it is, and the objects before
//! it are kept.

use crate::common;

use ownerlint::Options;
use ownerlint::report::Format;

fn ownerlint(args: &[&str], stdin: &str) -> common::Run {
    common::ownerlint()
        .args(["--no-config", "--format", "short"])
        .args(args)
        .stdin(stdin)
        .run()
}

/// `path:line:col: severity[rule]` of each finding, and the summary line.
fn findings(out: &common::Run) -> (Vec<String>, String) {
    let stdout = &out.stdout;
    let found = stdout
        .lines()
        .filter_map(|l| l.split_once("]: ").map(|(at, _)| format!("{at}]")))
        .collect();
    let stderr = &out.stderr;
    let summary = stderr
        .lines()
        .find(|l| l.contains(" objects in ") || l.contains(" object in "))
        .unwrap_or("")
        .to_string();
    (found, summary)
}

fn fixture(name: &str) -> String {
    let path = format!("{}/testdata/json-stream/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("fixture")
}

#[test]
fn two_objects_in_a_file_and_on_standard_input() {
    let file = "testdata/json-stream/objects.json";
    let on_stdin = ownerlint(&["-"], &fixture("objects.json"));
    for (out, name) in [(ownerlint(&[file], ""), file), (on_stdin, "<stdin>")] {
        let (found, summary) = findings(&out);
        assert_eq!(
            found,
            [
                format!("{name}:8:7: warning[owner-not-found]"),
                format!("{name}:26:7: error[cluster-scoped-dependent]"),
            ],
            "{summary}"
        );
        assert!(
            summary.starts_with(
                "ownerlint: 2 objects in 1 file; 2 owner references and 0 finalizers checked: 1 error, 1 warning"
            ),
            "{summary}"
        );
        assert_eq!(out.code(), Some(1));
    }
}

#[test]
fn objects_on_one_line_and_a_list_among_them() {
    // An object, then a `kind: List` and an object with nothing between them: the List's items
    // are expanded, and each finding is at its column of the long second line.
    let out = ownerlint(&["testdata/json-stream/compact.json"], "");
    let (found, summary) = findings(&out);
    let at = |rest: &str| format!("testdata/json-stream/compact.json:{rest}");
    assert_eq!(
        found,
        [
            at("2:211: error[owner-created-with-fresh-uid]"),
            at("2:380: error[banned-owner]"),
            at("2:552: error[cross-namespace-owner]"),
            at("2:678: warning[owner-not-found]"),
            at("2:793: error[multiple-controllers]"),
        ],
        "{summary}"
    );
    assert!(
        summary.starts_with("ownerlint: 4 objects in 1 file"),
        "{summary}"
    );
}

#[test]
fn a_syntax_error_stops_the_stream_and_keeps_what_came_before() {
    let out = ownerlint(&["-"], &fixture("broken.json"));
    let (found, summary) = findings(&out);
    assert_eq!(
        found,
        [
            "<stdin>:1:115: warning[owner-not-found]",
            "<stdin>:2:116: warning[owner-not-found]",
            // The missing comma after `"third"`; the object after it is never read.
            "<stdin>:3:72: error[invalid-yaml]",
        ],
        "{summary}"
    );
    assert!(
        summary.starts_with("ownerlint: 2 objects in 1 file"),
        "{summary}"
    );
    let stdout = &out.stdout;
    assert!(
        stdout.contains("not valid JSON: expected `,` or `}`"),
        "{stdout}"
    );
}

const A: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"s","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"x","uid":"1"}]}}"#;
const B: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"s","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"y","uid":"2"}]}}"#;

/// `(line:col rule)` of each finding of `text`, after checking that a full parse finds the
/// same.
fn lint(text: &str) -> (Vec<String>, usize) {
    let fast = common::lint("s.json", text, &Options::default());
    let full = common::lint(
        "s.json",
        text,
        &Options {
            full_parse: true,
            ..Options::default()
        },
    );
    let shown = common::render(&fast, Format::Short);
    assert_eq!(shown, common::render(&full, Format::Short), "{text}");
    let found = shown
        .lines()
        .filter_map(|l| {
            l.strip_prefix("s.json:")?
                .split_once(": ")
                .map(|(at, rest)| {
                    let rule = rest.split(['[', ']']).nth(1).unwrap_or("");
                    format!("{at} {rule}")
                })
        })
        .collect();
    (found, fast.stats.objects)
}

#[test]
fn streams_read_alike_with_and_without_the_fast_path() {
    let two = |a: &str, b: &str| (vec![a.to_string(), b.to_string()], 2);
    // Back to back, a line apart, after blank lines.
    assert_eq!(
        lint(&format!("{A}{B}")),
        two("1:97 owner-not-found", "1:261 owner-not-found")
    );
    assert_eq!(
        lint(&format!("{A}\n{B}\n")),
        two("1:97 owner-not-found", "2:97 owner-not-found")
    );
    assert_eq!(
        lint(&format!("\n  \n{A}\r\n\r\n  {B}  \n")),
        two("3:97 owner-not-found", "5:99 owner-not-found")
    );
    // Two objects and then anything that is not JSON: kubectl stops there with an error.
    assert_eq!(
        lint(&format!("{A}\n{B}\n# a comment\n")),
        (
            vec![
                "1:97 owner-not-found".to_string(),
                "2:97 owner-not-found".to_string(),
                "3:1 invalid-yaml".to_string(),
            ],
            2
        )
    );
    // Template text in a later object is reported as such.
    let (found, objects) = lint(&format!("{A}\n{B}\n{{\"a\": {{{{ .Values.x }}}}}}\n"));
    assert_eq!(
        found.last().map(String::as_str),
        Some("3:7 unrendered-template")
    );
    assert_eq!(objects, 2);
    // After one object, kubectl reads the rest as YAML.
    let (found, objects) = lint(&format!("{A}{{\"apiVersion\": \"v1\""));
    assert_eq!(found, ["1:97 owner-not-found", "1:165 invalid-yaml"]);
    assert_eq!(objects, 1);
    assert_eq!(
        lint(&format!(
            "{A}\n{{apiVersion: v1, kind: Secret, metadata: {{name: c}}}}\n"
        ))
        .1,
        2
    );
}

#[test]
fn a_single_document_reads_as_before() {
    // A YAML comment after one JSON object: still one valid document.
    assert_eq!(
        lint(&format!("{A}\n# a comment\n")),
        (vec!["1:97 owner-not-found".to_string()], 1)
    );
    // Anything else after it is a syntax error of that document, where YAML finds it.
    assert_eq!(
        lint(&format!("{A} trailing")),
        (vec!["1:166 invalid-yaml".to_string()], 0)
    );
    // A flow mapping that is not JSON is YAML, as before.
    assert_eq!(
        lint("{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n").1,
        1
    );
}
