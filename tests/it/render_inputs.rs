//! What a run reads when it builds charts and overlays, and when it does not (`--no-render`);
//! which build a file named alone belongs to; and how the place of a finding in a built file
//! is shown in each format. The helpers are those of `render`.

use crate::common;
use crate::render::{lines, ownerlint, ownerlint_in};

use std::path::Path;

#[test]
fn no_render_reads_the_files_as_they_are() {
    let run = ownerlint(
        &["--format", "short", "--no-render", "testdata/render/chart"],
        None,
    );
    // One line for the chart (its subchart's templates included), not one a template: at
    // its own first template, with how many went unchecked and the flag to drop.
    assert_eq!(
        run.stdout,
        "testdata/render/chart/templates/configmap.yaml:4:9: warning[unrendered-template]: chart testdata/render/chart was not rendered (--no-render), so the objects of its 5 templates were not checked\n"
    );
    let json = ownerlint(
        &["--format", "json", "--no-render", "testdata/render/chart"],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(
        json["findings"][0]["help"],
        "drop --no-render to build it with helm, or lint what it renders: `helm template <release> testdata/render/chart | ownerlint -`"
    );
    // A template named alone is the one template of its chart checked.
    let run = ownerlint(
        &[
            "--format",
            "short",
            "--no-render",
            "testdata/render/chart/templates/pair.yaml",
        ],
        None,
    );
    assert_eq!(
        run.stdout,
        "testdata/render/chart/templates/pair.yaml:4:9: warning[unrendered-template]: chart testdata/render/chart was not rendered (--no-render), so this template's objects were not checked\n"
    );
    // Beside an overlay (whose files are read as they are), the chart is still one line.
    let run = ownerlint(
        &["--format", "short", "--no-render", "testdata/render"],
        None,
    );
    let unrendered: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("unrendered-template"))
        .collect();
    assert_eq!(unrendered.len(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("render-failed"), "{}", run.stdout);
}

#[test]
fn no_render_does_not_count_kustomization_files_as_objects() {
    // A kustomization is kustomize's configuration, never applied: not an object to lint
    // or count, but said to be skipped.
    let json = ownerlint(
        &["--format", "json", "--no-render", "testdata/render/shop"],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let kustomizations = walk_names(std::path::Path::new("testdata/render/shop"))
        .into_iter()
        .filter(|p| p.ends_with("kustomization.yaml"))
        .count();
    assert!(kustomizations > 0);
    assert_eq!(
        json["summary"]["skipped_documents"],
        serde_json::json!(kustomizations),
        "{json}"
    );
    let run = ownerlint(&["--no-render", "testdata/render/shop"], None);
    assert!(
        run.stderr.contains(&format!(
            "skipped {kustomizations} kustomizations (--no-render)"
        )),
        "{}",
        run.stderr
    );
    // Named alone, it is said to be skipped, not taken for no file.
    let run = ownerlint(
        &[
            "--no-render",
            "testdata/render/shop/base/kustomization.yaml",
        ],
        None,
    );
    // The summary ends with the run's time, which varies: compare up to it.
    let summary = run.stderr.rsplit_once(" (").map(|(line, _)| line);
    assert_eq!(
        summary,
        Some(
            "ownerlint: 0 objects in 0 files; 0 owner references and 0 finalizers checked; skipped 1 kustomization (--no-render): 0 errors, 0 warnings, 0 info"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.ends_with("s)\n"), "{}", run.stderr);
}

/// Every file below `dir`.
fn walk_names(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("the folder is read")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk_names(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn github_and_sarif_annotate_the_source_files() {
    if common::helm().is_none() {
        return;
    }
    let run = ownerlint(&["--format", "github", "testdata/render/chart"], None);
    assert!(
        run.stdout.contains(
            "::error file=testdata/render/chart/templates/configmap.yaml,line=9,col=10,endLine=9,endColumn=46,title=ownerlint owner-created-with-fresh-uid::"
        ),
        "{}",
        run.stdout
    );
    let run = ownerlint(&["--format", "sarif", "testdata/render/chart"], None);
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    assert_eq!(common::sarif_schema_errors(&sarif), Vec::<String>::new());
    let locations: Vec<(String, u64)> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let physical = &r["locations"][0]["physicalLocation"];
            (
                physical["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                physical["region"]["startLine"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(
        locations.contains(&(
            "testdata/render/chart/templates/configmap.yaml".to_string(),
            9
        )),
        "{locations:?}"
    );
    assert!(
        locations.iter().all(|(uri, _)| !uri.contains("(rendered)")),
        "{locations:?}"
    );
}

#[test]
fn an_approximate_position_says_so_in_every_format() {
    if common::helm().is_none() {
        return;
    }
    // The owner reference comes from a helper: the template writes no line of it, so the
    // finding goes to the nearest key the template writes (`metadata:`). The reference that
    // `exact.yaml` writes itself is found exactly.
    let dir = common::temp_dir("approximate");
    common::write_files(
        dir.path(),
        &[
            (
                "web/Chart.yaml",
                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            ),
            (
                "web/templates/_helpers.tpl",
                "{{- define \"web.owner\" -}}\nownerReferences:\n- apiVersion: apps/v1\n  kind: Deployment\n  name: gone\n  uid: 0c5e1f3a-8d2b-4e6f-9a7c-1b3d5f7e9a2c\n{{- end }}\n",
            ),
            (
                "web/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  {{- include \"web.owner\" . | nindent 2 }}\ndata:\n  mode: fast\n",
            ),
            (
                "web/templates/exact.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: exact\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: lost\n    uid: 5b2f8c1d-3e4a-4b6c-8d9e-0f1a2b3c4d5e\n",
            ),
        ],
    );
    let run = |format: &str| ownerlint_in(dir.path(), &["--format", format, "web"], None).stdout;
    let said = "(the position is approximate: the nearest place its source writes)";

    let short = run("short");
    let found = lines(&short);
    assert_eq!(found.len(), 2, "{short}");
    assert!(
        found[0].starts_with("web/templates/cm.yaml:3:1: warning[owner-not-found]: ConfigMap default/settings → Deployment default/gone:")
            && found[0].ends_with(&format!("(from helm template web) {said}")),
        "{short}"
    );
    assert!(
        found[1].starts_with("web/templates/exact.yaml:6:3: warning[owner-not-found]: ConfigMap default/exact → Deployment default/lost:")
            && found[1].ends_with("(from helm template web)"),
        "{short}"
    );

    let github = run("github");
    let annotations: Vec<&str> = github.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 2, "{github}");
    assert!(
        annotations[0].starts_with("::warning file=web/templates/cm.yaml,line=3,col=1,")
            && annotations[0].contains(&format!("(from helm template web) {said}%0Ahelp: ")),
        "{github}"
    );
    assert!(!annotations[1].contains("approximate"), "{github}");

    let markdown = run("markdown");
    assert!(
        markdown.contains(&format!("(from helm template web) {said} |")),
        "{markdown}"
    );

    // SARIF: in the message, and as a property of the result and of its location.
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).expect("SARIF is JSON");
    assert_eq!(common::sarif_schema_errors(&sarif), Vec::<String>::new());
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{results:#?}");
    let (approximate, exact) = (&results[0], &results[1]);
    assert!(
        approximate["message"]["text"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("(from helm template web) {said}\nhelp: "))),
        "{approximate:#}"
    );
    assert_eq!(approximate["properties"]["approximatePosition"], true);
    assert_eq!(
        approximate["locations"][0]["properties"]["approximatePosition"],
        true
    );
    assert_eq!(
        approximate["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert!(
        exact["message"]["text"]
            .as_str()
            .is_some_and(|m| !m.contains("approximate")),
        "{exact:#}"
    );
    assert_eq!(exact["properties"], serde_json::Value::Null, "{exact:#}");
    assert_eq!(exact["locations"][0]["properties"], serde_json::Value::Null);

    // pretty and JSON say it in the label.
    let label =
        "Deployment default/gone not found (in the build: the nearest place its source writes)";
    let pretty = run("pretty");
    assert!(pretty.contains(label), "{pretty}");
    let json: serde_json::Value = serde_json::from_str(&run("json")).expect("JSON");
    assert_eq!(json["findings"][0]["label"], label);
    assert_eq!(
        json["findings"][1]["label"],
        "Deployment default/lost not found"
    );
}

#[test]
fn a_file_named_in_a_chart_lints_the_chart_as_rendered() {
    // pre-commit names the changed files: a changed template is checked as its chart renders.
    if common::helm().is_none() {
        return;
    }
    let run = ownerlint(
        &[
            "--format",
            "short",
            "testdata/render/chart/templates/configmap.yaml",
        ],
        None,
    );
    assert!(
        run.stdout
            .contains("testdata/render/chart/templates/configmap.yaml:9:10: error[owner-created-with-fresh-uid]"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("unrendered-template"),
        "{}",
        run.stdout
    );
}

#[test]
fn every_input_is_accounted_for_in_testdata_and_the_examples() {
    if common::helm().is_none() || common::kubectl().is_none() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["testdata", "examples"] {
        assert_eq!(
            common::unaccounted_inputs(&root.join(dir)),
            Vec::<String>::new(),
            "{dir}"
        );
    }
}

#[test]
fn a_file_of_a_subchart_builds_the_chart_that_holds_it() {
    if common::helm().is_none() {
        return;
    }
    let run = ownerlint(
        &[
            "--format",
            "short",
            "testdata/render/chart/charts/cache-dir/templates/cache.yaml",
        ],
        None,
    );
    assert!(
        run.stdout.starts_with(
            "testdata/render/chart/charts/cache-dir/templates/cache.yaml:6:17: error[owner-api-unserved]"
        ) && run.stdout.trim_end().ends_with("(from helm template testdata/render/chart)"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!run.stdout.contains("render-failed"), "{}", run.stdout);
}
