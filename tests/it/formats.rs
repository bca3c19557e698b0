//! Every output format over one shared set of findings (the bundled examples), snapshotted with
//! the version and the checkout's path redacted; the SARIF output validated against the
//! official SARIF 2.1.0 schema (`tests/schemas/sarif-schema-2.1.0.json`, from the OASIS
//! sarif-spec repository).

use crate::common;

use std::path::PathBuf;

use ownerlint::Options;
use ownerlint::report::{self, Format, RenderOptions};

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
    let options = RenderOptions {
        root: Some(root()),
        link_base: link_base.map(str::to_string),
        ..RenderOptions::default()
    };
    let mut out = Vec::new();
    report::render(format, &outcome, options, &mut out).expect("rendering to memory");
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
        report::render(Format::Sarif, &outcome, RenderOptions::default(), &mut out)
            .expect("render");
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
    for (name, format) in [
        ("pretty", Format::Pretty),
        ("short", Format::Short),
        ("json", Format::Json),
        ("github", Format::Github),
        ("markdown", Format::Markdown),
    ] {
        insta::assert_snapshot!(name, rendered(format, None));
    }
    insta::assert_snapshot!(
        "markdown-on-github",
        rendered(
            Format::Markdown,
            Some("https://github.com/example/manifests/blob/0123abc")
        )
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&rendered(Format::Sarif, None)).expect("SARIF is JSON");
    // The rule documents are long and have their own tests: keep the results.
    insta::assert_json_snapshot!("sarif-results", sarif["runs"][0]["results"]);
}
