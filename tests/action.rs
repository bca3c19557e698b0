//! The GitHub Action (`action.yml`) run here as GitHub runs it: each `run:` step in bash, with
//! the inputs, `env:` expressions and variables a runner sets (`GITHUB_ACTIONS`,
//! `GITHUB_WORKSPACE`, `GITHUB_STEP_SUMMARY`), on a fixture repository with one broken owner
//! reference. The install step really runs `cargo install` of this checkout: a release build
//! with the release profile's fat LTO, minutes long, so the test is ignored in a plain
//! `cargo test` and `.ci/run` runs it.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use ownerlint::yaml::{self, Limits, Node};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parse_action() -> Node {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    let chunk = yaml::split_documents(&text, 0).remove(0);
    yaml::parse_document(&text, chunk, Limits::default())
        .expect("action.yml parses")
        .root
        .expect("action.yml has content")
}

/// The values of `${{ … }}` expressions this action uses.
struct Expressions {
    inputs: HashMap<String, String>,
    tool_cache: PathBuf,
}

impl Expressions {
    fn eval(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("closed expression") + start;
            let expression = rest[start + 3..end].trim();
            out.push_str(&self.value(expression));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    fn value(&self, expression: &str) -> String {
        if let Some(name) = expression.strip_prefix("inputs.") {
            return self
                .inputs
                .get(name)
                .unwrap_or_else(|| panic!("no input {name}"))
                .clone();
        }
        match expression {
            "github.action_path" => root().display().to_string(),
            "runner.tool_cache" => self.tool_cache.display().to_string(),
            other => panic!("the test does not know the expression {other}"),
        }
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
#[ignore = "heavy: the install step is a fat-LTO release build of this checkout (cargo install); .ci/run runs it"]
fn the_action_annotates_summarises_and_writes_sarif() {
    let action = parse_action();
    let tmp = common::temp_dir("action");
    let work = tmp.path();
    let workspace = work.join("workspace");
    write(
        &workspace.join("deploy/app.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  selector: {matchLabels: {app: api}}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: api-reader\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b\n",
    );
    write(
        &workspace.join("deploy/config.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n",
    );
    let summary = work.join("step-summary.md");
    write(&summary, "");

    // Inputs: the defaults from action.yml, and a SARIF file as a workflow would ask.
    let mut inputs: HashMap<String, String> = action
        .get("inputs")
        .and_then(Node::as_map)
        .expect("inputs")
        .iter()
        .map(|(k, v)| {
            let default = v
                .get("default")
                .and_then(|d| d.as_scalar())
                .map_or(String::new(), |s| s.text.clone());
            (k.as_scalar().expect("name").text.clone(), default)
        })
        .collect();
    inputs.insert("sarif".into(), "ownerlint.sarif".into());
    let expressions = Expressions {
        inputs,
        tool_cache: work.join("tool-cache"),
    };

    let steps = action
        .get("runs")
        .and_then(|r| r.get("steps"))
        .and_then(Node::as_seq)
        .expect("steps");
    let mut outputs = Vec::new();
    for step in steps {
        let Some(script) = step.get("run").and_then(|r| r.as_scalar()) else {
            // `uses:` steps (the cache) belong to GitHub; a cache miss is what the test sees.
            continue;
        };
        let mut command = Command::new("bash");
        command
            .arg("-c")
            .arg(&script.text)
            .current_dir(&workspace)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_WORKSPACE", &workspace)
            .env("GITHUB_STEP_SUMMARY", &summary)
            // The install step builds this checkout; its build is kept apart from the test's
            // own, and removed with the temporary folder.
            .env("CARGO_TARGET_DIR", work.join("install-target"));
        for (key, value) in step.get("env").and_then(Node::as_map).unwrap_or_default() {
            let value = value.as_scalar().map_or(String::new(), |s| s.text.clone());
            command.env(
                &key.as_scalar().expect("env name").text,
                expressions.eval(&value),
            );
        }
        let output = command.output().expect("bash runs");
        let name = step
            .get("name")
            .and_then(|n| n.as_scalar())
            .map_or(String::new(), |s| s.text.clone());
        outputs.push((name, output));
    }

    let names: Vec<&str> = outputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Install ownerlint", "Run ownerlint"]);
    let install = &outputs[0].1;
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let run = &outputs[1].1;
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // An error finding fails the step, after every report is written.
    assert_eq!(run.status.code(), Some(1), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].starts_with("::error file=deploy/app.yaml,line=14,col=3,endLine=14,endColumn=24,title=ownerlint cluster-scoped-dependent::ClusterRole api-reader → Deployment api: ClusterRole api-reader is cluster-scoped"),
        "{stdout}"
    );
    assert!(
        lines[0].contains("%0Ahelp: give it a cluster-scoped owner"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(&summary).expect("summary");
    assert!(
        summary.starts_with(
            "## ownerlint\n\n**1 error, 0 warnings, 0 info** in 3 objects from 2 files."
        ),
        "{summary}"
    );
    assert!(
        summary.contains(
            "| error | [deploy/app.yaml:14:3](deploy/app.yaml#L14) | `cluster-scoped-dependent` |"
        ),
        "{summary}"
    );
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace.join("ownerlint.sarif")).expect("SARIF written"),
    )
    .expect("SARIF is JSON");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "cluster-scoped-dependent");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "deploy/app.yaml"
    );
}
