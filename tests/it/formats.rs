//! Every output format over one shared set of findings (the bundled examples), snapshotted with
//! the version and the checkout's path redacted; the SARIF output validated against the
//! official SARIF 2.1.0 schema (`tests/schemas/sarif-schema-2.1.0.json`, from the OASIS
//! sarif-spec repository).

use crate::common;

use std::path::PathBuf;

use ownerlint::Options;
use ownerlint::report::{self, EmitOptions, Format};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled examples, linted as `ownerlint examples/` from the repository root.
fn examples() -> ownerlint::Outcome {
    let options = Options {
        paths: vec![root().join("examples")],
        ..Options::default()
    };
    ownerlint::lint(&options, &mut std::io::empty())
}

fn rendered(format: Format, link_base: Option<&str>) -> String {
    redact(&raw(format, link_base))
}

fn redact(text: &str) -> String {
    text.replace(&root().display().to_string(), "[root]")
        .replace(env!("CARGO_PKG_VERSION"), "[version]")
}

fn raw(format: Format, link_base: Option<&str>) -> String {
    let outcome = examples();
    let options = EmitOptions {
        root: Some(root()),
        link_base: link_base.map(str::to_string),
        ..EmitOptions::default()
    };
    let mut out = Vec::new();
    report::emit(format, &outcome, options, &mut out).expect("rendering to memory");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let text = raw(Format::Sarif, None);
    let sarif: serde_json::Value = serde_json::from_str(&text).expect("SARIF is JSON");
    let errors = common::sarif_schema_errors(&sarif);
    assert!(errors.is_empty(), "{errors:#?}");

    // What GitHub code scanning reads: rules with help, results with regions and fingerprints.
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), ownerlint::rules::RULES.len());
    assert!(rules.iter().all(|r| {
        r["help"]["markdown"]
            .as_str()
            .is_some_and(|h| h.contains("## Failing example"))
    }));
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), examples().findings.len());
    for result in results {
        let location = &result["locations"][0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(uri.starts_with("examples/"), "{uri}");
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(location["region"]["startLine"].as_u64().is_some());
        assert!(
            result["partialFingerprints"]["ownerlint/v1"]
                .as_str()
                .is_some()
        );
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
}

#[test]
fn sarif_fingerprints_do_not_move_with_lines() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\n  finalizers: [cleanup]\n";
    let shifted = format!("# a comment added above\n\n{text}");
    let fingerprint = |t: &str| {
        let outcome = common::lint("a.yaml", t, &Options::default());
        let mut out = Vec::new();
        report::emit(Format::Sarif, &outcome, EmitOptions::default(), &mut out).expect("render");
        let sarif: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
        let result = &sarif["runs"][0]["results"][0];
        (
            result["partialFingerprints"]["ownerlint/v1"].clone(),
            result["locations"][0]["physicalLocation"]["region"]["startLine"].clone(),
        )
    };
    let (before, line_before) = fingerprint(text);
    let (after, line_after) = fingerprint(&shifted);
    assert_ne!(line_before, line_after);
    assert_eq!(before, after);
}

#[test]
fn every_format_over_the_examples() {
    for (format, name) in common::formats() {
        if format == Format::Sarif {
            let sarif: serde_json::Value =
                serde_json::from_str(&rendered(format, None)).expect("SARIF is JSON");
            // The rule documents are long and have their own tests: keep the results.
            insta::assert_json_snapshot!("sarif-results", sarif["runs"][0]["results"]);
        } else {
            insta::assert_snapshot!(name, rendered(format, None));
        }
    }
    insta::assert_snapshot!(
        "markdown-on-github",
        rendered(
            Format::Markdown,
            Some("https://github.com/example/manifests/blob/0123abc")
        )
    );
}

/// A folder of inputs whose file names and values hold what a terminal acts on: an OSC title
/// sequence and a bell, a right-to-left override, a C1 control, and a newline and a colon in
/// file names, one of them shaped as a `short` line of its own.
fn hostile_inputs() -> tempfile::TempDir {
    let dir = common::temp_dir("hostile-names");
    // A cluster-scoped object with a namespaced owner: one error each, whose message names the
    // object and its owner as written.
    let object = |name: &str, owner: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name}\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: Deployment, name: {owner}, uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b}}\n"
        )
    };
    let files = [
        (
            "title\u{1b}]0;owned\u{7}.yaml",
            object("\"r\\e[2J\\u202Eb\"", "\"a\\nb.yaml:1:1: error[x]: y\""),
        ),
        (
            "a.yaml:1:1: error[x]: f.yaml",
            object("plain", "\"c1\\x9b31m\""),
        ),
        ("line\nbreak.yaml", object("\"tab\\tcr\\r\"", "api")),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

/// What `ownerlint --format FORMAT .` prints in `dir`, standard output and standard error.
fn in_dir(dir: &std::path::Path, format: &str) -> (String, String) {
    let out = common::ownerlint()
        .args(["--no-config", "--format", format, "."])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .run();
    assert_eq!(out.code(), Some(1), "{out:?}");
    (
        String::from_utf8(out.stdout_bytes).expect("UTF-8"),
        String::from_utf8(out.stderr_bytes).expect("UTF-8"),
    )
}

/// The characters of `text` that a terminal would act on, line breaks aside.
fn acted_on(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[test]
fn short_escapes_controls_and_quotes_names_a_problem_matcher_would_misread() {
    let dir = hostile_inputs();
    let (stdout, stderr) = in_dir(dir.path(), "short");
    assert_eq!(acted_on(&stdout), Vec::<char>::new(), "{stdout:?}");
    assert_eq!(acted_on(&stderr), Vec::<char>::new(), "{stderr:?}");
    // One line per finding, each read by the shipped problem matcher's pattern as the file it
    // is about: none makes a line of its own, nor ends its path early.
    let matcher: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(".github/ownerlint-matcher.json")).expect("read"),
    )
    .expect("JSON");
    let pattern = matcher["problemMatcher"][0]["pattern"][0]["regexp"]
        .as_str()
        .expect("a pattern");
    let pattern = regex::Regex::new(pattern).expect("regex");
    let files: Vec<&str> = stdout
        .lines()
        .map(|line| {
            let found = pattern.captures(line).expect("a finding");
            found.get(1).expect("file").as_str()
        })
        .collect();
    assert_eq!(
        files,
        [
            r#""a.yaml\x3a1\x3a1\x3a error[x]\x3a f.yaml""#,
            r#""line\nbreak.yaml""#,
            r#""title\x1b]0;owned\x07.yaml""#,
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains(r"ClusterRole r\x1b[2J\u{202e}b → Deployment a\nb.yaml:1:1: error[x]: y:"),
        "{stdout}"
    );
    assert!(stdout.contains(r"Deployment c1\u{9b}31m:"), "{stdout}");
    assert!(
        stdout.contains(r"ClusterRole tab\tcr\r → Deployment api:"),
        "{stdout}"
    );
}

#[test]
fn github_escapes_controls_before_the_workflow_commands_own_escapes() {
    let dir = hostile_inputs();
    let (stdout, _) = in_dir(dir.path(), "github");
    assert_eq!(acted_on(&stdout), Vec::<char>::new(), "{stdout:?}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines.iter().all(|l| l.starts_with("::error file=")),
        "{stdout}"
    );
    // `:` and `,` in a property and `%` are the runner's own escapes; a control is written as
    // an escape first, so the runner reads no line break into it.
    assert!(
        lines[0].starts_with(r"::error file=a.yaml%3A1%3A1%3A error[x]%3A f.yaml,line=6,col=3,"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with(r"::error file=line\nbreak.yaml,line=6,"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with(r"::error file=title\x1b]0;owned\x07.yaml,line=6,"),
        "{stdout}"
    );
    assert!(
        lines[2]
            .contains(r"::ClusterRole r\x1b[2J\u{202e}b → Deployment a\nb.yaml:1:1: error[x]: y:"),
        "{stdout}"
    );
    assert!(lines[2].contains("%0Ahelp: "), "{stdout}");
}

#[test]
fn markdown_escapes_controls_in_paths_and_messages() {
    let dir = hostile_inputs();
    let (stdout, _) = in_dir(dir.path(), "markdown");
    assert_eq!(acted_on(&stdout), Vec::<char>::new(), "{stdout:?}");
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("| error |"))
        .collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(
        rows[2].starts_with(
            r#"| error | ["title\x1b]0;owned\x07.yaml":6:3](title\x1b]0;owned\x07.yaml#L6) |"#
        ),
        "{stdout}"
    );
    assert!(
        rows[2].contains(r"Deployment a\nb.yaml:1:1: error[x]: y:"),
        "{stdout}"
    );
}

#[test]
fn pretty_escapes_controls_in_paths_messages_labels_and_snippets() {
    let dir = common::temp_dir("hostile-pretty");
    // A right-to-left override and a C1 control written raw in the file (YAML allows both),
    // before the span the finding labels: the label still points at its field.
    std::fs::write(
        dir.path().join("bidi\u{202e}.yaml"),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: \"r\u{202e}\u{85}b\"\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: \"x\u{202e}\", uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b}]\n",
    )
    .expect("write");
    let (stdout, stderr) = in_dir(dir.path(), "pretty");
    assert_eq!(acted_on(&stdout), Vec::<char>::new(), "{stdout:?}");
    assert_eq!(acted_on(&stderr), Vec::<char>::new(), "{stderr:?}");
    assert!(
        stdout.contains(
            r#"error[cluster-scoped-dependent]: ClusterRole r\u{202e}\u{85}b → Deployment"#
        ),
        "{stdout}"
    );
    assert!(stdout.contains(r#"["bidi\u{202e}.yaml":5:21]"#), "{stdout}");
    // The snippet's line, escaped, and the label's underline starting under the field.
    let lines: Vec<&str> = stdout.lines().collect();
    let line = lines
        .iter()
        .position(|l| l.starts_with(" 5 │"))
        .expect("the finding's line");
    let field = lines[line].find("{apiVersion").expect("the field");
    assert!(lines[line].contains(r#"name: "x\u{202e}""#), "{stdout}");
    let underline = lines[line + 1];
    let start = underline
        .char_indices()
        .find(|&(_, c)| c == '─' || c == '┬')
        .map(|(i, _)| underline[..i].chars().count())
        .expect("an underline");
    assert_eq!(start, lines[line][..field].chars().count(), "{stdout}");
}
