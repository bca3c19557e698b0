//! The GitHub Action (`action.yml`) run here as GitHub runs it: each `run:` step in bash, with
//! the inputs, `env:` and `if:` expressions and the variables a runner sets (`GITHUB_ACTIONS`,
//! `GITHUB_WORKSPACE`, `GITHUB_STEP_SUMMARY`, a `GITHUB_OUTPUT` file for each step), and the
//! action's `outputs:` read from its steps' outputs, on a fixture repository. The first run
//! takes the inputs of the README's workflow; later runs, as on a cache hit, give paths with
//! spaces, one per line. The install step really runs `cargo install` of this checkout: a
//! release build, minutes long unless `cargo test --release` built it already (it builds in the
//! tests' target folder), so the test is ignored in a plain `cargo test` and `.ci/run` runs it.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ownerlint::yaml::{self, Limits, Node};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parse_yaml(text: &str, what: &str) -> Node {
    let chunk = yaml::split_documents(text, 0).remove(0);
    yaml::parse_document(text, chunk, Limits::default())
        .unwrap_or_else(|e| panic!("{what} parses: {e:?}"))
        .root
        .unwrap_or_else(|| panic!("{what} has content"))
}

fn text_of(node: Option<&Node>) -> String {
    node.and_then(Node::as_scalar)
        .map_or(String::new(), |s| s.text.clone())
}

/// The string entries of a YAML mapping.
fn entries(node: Option<&Node>) -> Vec<(String, String)> {
    node.and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (text_of(Some(k)), text_of(Some(v))))
        .collect()
}

/// The README's workflow: the YAML block that starts `# .github/workflows/ownerlint.yml`.
fn readme_workflow() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let start = readme
        .find("```yaml\n# .github/workflows/ownerlint.yml\n")
        .expect("README shows the workflow")
        + "```yaml\n".len();
    let end = readme[start..].find("\n```").expect("closed block") + start;
    readme[start..end + 1].to_string()
}

/// The values of `${{ … }}` expressions this action uses.
struct Expressions {
    inputs: HashMap<String, String>,
    tool_cache: PathBuf,
    /// Each step's outputs, by the step's id.
    steps: HashMap<String, HashMap<String, String>>,
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
        if let Some(rest) = expression.strip_prefix("steps.") {
            let (id, name) = rest
                .split_once(".outputs.")
                .expect("steps.<id>.outputs.<name>");
            // A step that did not run, or did not set the output, gives the empty string.
            return self
                .steps
                .get(id)
                .and_then(|outputs| outputs.get(name))
                .cloned()
                .unwrap_or_default();
        }
        match expression {
            "github.action_path" => root().display().to_string(),
            "runner.tool_cache" => self.tool_cache.display().to_string(),
            other => panic!("the test does not know the expression {other}"),
        }
    }

    /// A step's `if:`, of the one form this action uses: `<value> != '<text>'`.
    fn condition(&self, condition: &str) -> bool {
        let (left, right) = condition
            .split_once("!=")
            .unwrap_or_else(|| panic!("the test does not know the condition {condition}"));
        let literal = right.trim().trim_matches('\'');
        self.value(left.trim()) != literal
    }
}

/// A `GITHUB_OUTPUT` file as the runner reads it: `name=value` lines, and
/// `name<<DELIMITER` … `DELIMITER` for a value of any text.
fn parse_outputs(text: &str) -> HashMap<String, String> {
    let mut outputs = HashMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let mut value = Vec::new();
            for line in lines.by_ref() {
                if line == delimiter {
                    break;
                }
                value.push(line);
            }
            outputs.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            outputs.insert(name.to_string(), value.to_string());
        } else {
            panic!("not an output line: {line:?}");
        }
    }
    outputs
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// One run of the action: the `run:` steps that ran, by name, and the action's outputs.
struct Run {
    steps: Vec<(String, Output)>,
    outputs: HashMap<String, String>,
}

impl Run {
    fn step(&self, name: &str) -> &Output {
        &self
            .steps
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("step {name} did not run"))
            .1
    }

    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.step("Run ownerlint").stdout).into_owned()
    }

    fn report(&self) -> String {
        let run = self.step("Run ownerlint");
        format!(
            "{}\n{}\n{:?}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr),
            self.outputs
        )
    }

    fn output(&self, name: &str) -> &str {
        self.outputs
            .get(name)
            .unwrap_or_else(|| panic!("no output {name}"))
    }
}

struct Action {
    node: Node,
    work: PathBuf,
    workspace: PathBuf,
    summary: PathBuf,
}

impl Action {
    /// The action's steps with `with` over the inputs' defaults; `cache_hit` is what
    /// `actions/cache` (a `uses:` step, GitHub's) says.
    fn run(&self, with: &[(&str, &str)], cache_hit: bool) -> Run {
        let mut inputs: HashMap<String, String> = self
            .node
            .get("inputs")
            .and_then(Node::as_map)
            .expect("inputs")
            .iter()
            .map(|(k, v)| (text_of(Some(k)), text_of(v.get("default"))))
            .collect();
        for (name, value) in with {
            assert!(inputs.contains_key(*name), "no input {name}");
            inputs.insert(name.to_string(), value.to_string());
        }
        let mut expressions = Expressions {
            inputs,
            tool_cache: self.work.join("tool-cache"),
            steps: HashMap::new(),
        };
        let steps = self
            .node
            .get("runs")
            .and_then(|r| r.get("steps"))
            .and_then(Node::as_seq)
            .expect("steps");
        let mut ran = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            let id = text_of(step.get("id"));
            let Some(script) = step.get("run").and_then(Node::as_scalar) else {
                assert!(step.get("uses").is_some(), "a step runs or uses");
                if id == "cache" {
                    let hit = if cache_hit { "true" } else { "false" };
                    expressions.steps.insert(
                        id,
                        HashMap::from([("cache-hit".to_string(), hit.to_string())]),
                    );
                }
                continue;
            };
            let condition = text_of(step.get("if"));
            if !condition.is_empty() && !expressions.condition(&condition) {
                continue;
            }
            let output_file = self.work.join(format!("github-output-{i}"));
            write(&output_file, "");
            let mut command = Command::new("bash");
            command
                .arg("-c")
                .arg(&script.text)
                .current_dir(&self.workspace)
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_WORKSPACE", &self.workspace)
                .env("GITHUB_STEP_SUMMARY", &self.summary)
                .env("GITHUB_OUTPUT", &output_file)
                // The install step builds this checkout in the tests' target folder: after
                // `cargo test --release` it reuses the release build, as a cache would.
                .env("CARGO_TARGET_DIR", common::target_dir());
            for (key, value) in entries(step.get("env")) {
                command.env(key, expressions.eval(&value));
            }
            let output = command.output().expect("bash runs");
            let outputs =
                parse_outputs(&std::fs::read_to_string(&output_file).expect("GITHUB_OUTPUT"));
            if !id.is_empty() {
                expressions.steps.insert(id, outputs);
            }
            ran.push((text_of(step.get("name")), output));
        }
        let outputs = self
            .node
            .get("outputs")
            .and_then(Node::as_map)
            .expect("the action declares outputs")
            .iter()
            .map(|(k, v)| {
                let value = text_of(v.get("value"));
                (text_of(Some(k)), expressions.eval(&value))
            })
            .collect();
        Run {
            steps: ran,
            outputs,
        }
    }
}

/// One error: a cluster-scoped ClusterRole owned by a namespaced Deployment.
const APP: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  selector: {matchLabels: {app: api}}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: api-reader\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b\n";

#[test]
#[ignore = "heavy: the install step is a release build of this checkout (cargo install); .ci/run runs it"]
fn the_action_annotates_summarises_writes_sarif_and_sets_outputs() {
    let tmp = common::temp_dir("action");
    let work = tmp.path();
    let workspace = work.join("workspace");
    // The examples' cluster dump: 2 errors, 1 warning and 4 info.
    let dump = std::fs::read_to_string(root().join("examples/cluster-dump/pods.yaml"))
        .expect("the examples' dump");
    write(&workspace.join("deploy/app.yaml"), APP);
    write(
        &workspace.join("deploy/config.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n",
    );
    write(&workspace.join("charts/rendered/pods.yaml"), &dump);
    write(&workspace.join("cluster dump/pods.yaml"), &dump);
    write(&workspace.join("not linted.yaml"), APP);
    let summary = work.join("step-summary.md");
    write(&summary, "");
    let action = Action {
        node: parse_yaml(
            &std::fs::read_to_string(root().join("action.yml")).expect("action.yml"),
            "action.yml",
        ),
        work: work.to_path_buf(),
        workspace: workspace.clone(),
        summary: summary.clone(),
    };

    // The README's workflow: its inputs, and the outputs it reads.
    let workflow = parse_yaml(&readme_workflow(), "the README's workflow");
    let readme_steps = workflow
        .get("jobs")
        .and_then(|j| j.get("ownerlint"))
        .and_then(|j| j.get("steps"))
        .and_then(Node::as_seq)
        .expect("the workflow's steps");
    let ours = readme_steps
        .iter()
        .find(|s| text_of(s.get("uses")).starts_with("OWNER/ownerlint@"))
        .expect("the workflow uses the action");
    let id = text_of(ours.get("id"));
    let with = entries(ours.get("with"));
    assert_eq!(
        with.iter()
            .find(|(k, _)| k == "paths")
            .map(|(_, v)| v.as_str()),
        Some("deploy/\ncharts/rendered/\n"),
        "the fixture has the README's paths"
    );
    let declared: Vec<String> = entries(action.node.get("outputs"))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let workflow_text = readme_workflow();
    let prefix = format!("steps.{id}.outputs.");
    let read: Vec<&str> = workflow_text
        .match_indices(&prefix)
        .map(|(at, _)| {
            let name = &workflow_text[at + prefix.len()..];
            &name[..name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(name.len())]
        })
        .collect();
    assert!(!read.is_empty(), "the README's workflow reads no output");
    for name in read {
        assert!(declared.iter().any(|d| d == name), "no output {name}");
    }

    let with: Vec<(&str, &str)> = with.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let first = action.run(&with, false);
    let names: Vec<&str> = first.steps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Install ownerlint", "Run ownerlint"]);
    let install = first.step("Install ownerlint");
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    // An error finding fails the step, after every report is written.
    assert_eq!(
        first.step("Run ownerlint").status.code(),
        Some(1),
        "{}",
        first.report()
    );
    let stdout = first.stdout();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 8, "{stdout}");
    assert!(
        lines.iter().any(|l| l.starts_with("::error file=deploy/app.yaml,line=14,col=3,endLine=14,endColumn=24,title=ownerlint cluster-scoped-dependent::ClusterRole api-reader → Deployment api: ClusterRole api-reader is cluster-scoped")
            && l.contains("%0Ahelp: give it a cluster-scoped owner")),
        "{stdout}"
    );
    // Info findings are annotated as notices.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("::notice file=charts/rendered/pods.yaml,"))
            .count(),
        4,
        "{stdout}"
    );
    let summary_text = std::fs::read_to_string(&summary).expect("summary");
    assert!(
        summary_text.starts_with(
            "## ownerlint\n\n**3 errors, 1 warning, 4 info** in 9 objects from 3 files, with 7 owner references and 0 finalizers checked."
        ),
        "{summary_text}"
    );
    assert!(
        summary_text.contains(
            "| error | [deploy/app.yaml:14:3](deploy/app.yaml#L14) | `cluster-scoped-dependent` |"
        ),
        "{summary_text}"
    );
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace.join("ownerlint.sarif")).expect("SARIF written"),
    )
    .expect("SARIF is JSON");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 8);
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "cluster-scoped-dependent"
                && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    == "deploy/app.yaml")
    );
    let expected = [
        ("errors", "3"),
        ("warnings", "1"),
        ("infos", "4"),
        ("findings", "8"),
        // No chart or overlay in this repository: none built, none left unbuilt.
        ("built", "0"),
        ("not-built", "0"),
        // What was checked: the objects, and in them the owner references and finalizers.
        ("objects", "9"),
        ("owner-references", "7"),
        ("finalizers", "0"),
        ("sarif", "ownerlint.sarif"),
        ("exit-code", "1"),
    ];
    let expected: HashMap<String, String> = expected
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(first.outputs, expected);

    // On a cache hit the install step is skipped. One path per line, with spaces in a path
    // and in the SARIF file's name, blank lines and surrounding whitespace.
    let second = action.run(
        &[
            ("paths", "  deploy/app.yaml  \n\ncluster dump/\n"),
            ("sarif", "ownerlint results.sarif"),
            ("summary", "false"),
            ("fail-on", "warning"),
        ],
        true,
    );
    let names: Vec<&str> = second.steps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Run ownerlint"]);
    assert_eq!(second.output("exit-code"), "1", "{}", second.report());
    assert_eq!(second.output("errors"), "3", "{}", second.report());
    assert_eq!(second.output("warnings"), "1");
    assert_eq!(second.output("infos"), "4");
    assert_eq!(second.output("findings"), "8");
    assert_eq!(second.output("sarif"), "ownerlint results.sarif");
    assert!(workspace.join("ownerlint results.sarif").is_file());
    let stdout = second.stdout();
    assert_eq!(stdout.lines().count(), 8, "{stdout}");
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.contains(" file=cluster dump/pods.yaml,"))
            .count(),
        7,
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(&summary).expect("summary"),
        summary_text,
        "summary: false writes no summary"
    );

    // Paths on one line separated by spaces are one path, which does not exist: the step
    // says so and fails, and lints nothing else.
    let third = action.run(&[("paths", "deploy/app.yaml deploy/config.yaml")], true);
    assert_eq!(third.output("exit-code"), "2", "{}", third.report());
    assert!(
        third.stdout().starts_with(
            "::error file=deploy/app.yaml deploy/config.yaml,title=ownerlint%3A unreadable input::"
        ),
        "{}",
        third.report()
    );
    assert_eq!(third.output("findings"), "0");
    assert_eq!(third.output("sarif"), "");

    // A run that stops before linting (an unknown option) sets no counts, and leaves no
    // stale SARIF file behind for an upload step.
    let fourth = action.run(
        &[("sarif", "ownerlint.sarif"), ("args", "--no-such-option")],
        true,
    );
    assert_eq!(fourth.output("exit-code"), "2", "{}", fourth.report());
    for name in [
        "errors",
        "warnings",
        "infos",
        "findings",
        "built",
        "not-built",
        "objects",
        "owner-references",
        "finalizers",
        "sarif",
    ] {
        assert_eq!(fourth.output(name), "", "{name}: {}", fourth.report());
    }
    assert!(!workspace.join("ownerlint.sarif").exists());
}

/// The `format` and `fail-on` inputs list, in parentheses at the end of their descriptions,
/// the values the command line takes: a format or a severity added to ownerlint is added to
/// the action's documentation too.
#[test]
fn the_inputs_list_every_format_and_severity() {
    use clap::ValueEnum;
    let action = parse_yaml(
        &std::fs::read_to_string(root().join("action.yml")).expect("action.yml"),
        "action.yml",
    );
    let listed = |input: &str| {
        let description = text_of(
            action
                .get("inputs")
                .and_then(|i| i.get(input))
                .and_then(|i| i.get("description")),
        );
        let list = description
            .strip_suffix(')')
            .and_then(|d| d.rsplit_once('('))
            .unwrap_or_else(|| panic!("the {input} input lists its values: {description:?}"))
            .1
            .to_string();
        let mut names: Vec<String> = list.split(", ").map(str::to_string).collect();
        names.sort();
        names
    };
    fn names<T: ValueEnum>(values: &[T]) -> Vec<String> {
        let mut names: Vec<String> = values
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        names.sort();
        names
    }
    assert_eq!(
        listed("format"),
        names(ownerlint::report::Format::value_variants())
    );
    assert_eq!(
        listed("fail-on"),
        names(ownerlint::run::FailOn::value_variants())
    );
}
