//! The GitHub Action (`action.yml`) run here as GitHub runs it: each `run:` step in bash, with
//! the inputs, `env:` and `if:` expressions and the variables a runner sets (`GITHUB_ACTIONS`,
//! `GITHUB_WORKSPACE`, `GITHUB_STEP_SUMMARY`, a `GITHUB_OUTPUT` file for each step, `RUNNER_OS`,
//! `RUNNER_ARCH`), stopping at the first step that fails, and the action's `outputs:` read from
//! its steps' outputs, on a fixture repository. `actions/cache` is GitHub's: the test says whether
//! it hit, and reads the key the action gives it.
//!
//! A release is installed from a stand-in for the release host, an HTTP server on 127.0.0.1
//! serving an archive packed as `cargo xtask dist` packs one, from the binary these tests run,
//! with its `.sha256` beside it. An unreleased ref takes `cargo install`: in the fast tier a
//! `cargo` that only records its arguments stands in for it; the heavy tier runs the real one
//! (a release build of this checkout, in the tests' target folder, so that after `cargo test
//! --release` nothing is compiled again).

use crate::common;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use ownerlint::yaml::{self, Limits, Node};

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn parse_yaml(text: &str, what: &str) -> Node {
    let chunk = yaml::split_documents(text, 0).remove(0);
    yaml::parse_document(text, chunk, Limits::default())
        .unwrap_or_else(|e| panic!("{what} parses: {e:?}"))
        .root
        .unwrap_or_else(|| panic!("{what} has content"))
}

pub(crate) fn text_of(node: Option<&Node>) -> String {
    node.and_then(Node::as_scalar)
        .map_or(String::new(), |s| s.text.clone())
}

/// The string entries of a YAML mapping.
pub(crate) fn entries(node: Option<&Node>) -> Vec<(String, String)> {
    node.and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (text_of(Some(k)), text_of(Some(v))))
        .collect()
}

/// The README's workflow: the YAML block that starts `# .github/workflows/ownerlint.yml`.
pub(crate) fn readme_workflow() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let start = readme
        .find("```yaml\n# .github/workflows/ownerlint.yml\n")
        .expect("README shows the workflow")
        + "```yaml\n".len();
    let end = readme[start..].find("\n```").expect("closed block") + start;
    readme[start..end + 1].to_string()
}

/// The values of `${{ … }}` expressions this action uses.
pub(crate) struct Expressions {
    pub(crate) inputs: HashMap<String, String>,
    /// The `github` and `runner` contexts' values the action reads, by their names.
    pub(crate) context: HashMap<String, String>,
    /// Each step's outputs, by the step's id.
    pub(crate) steps: HashMap<String, HashMap<String, String>>,
}

impl Expressions {
    pub(crate) fn eval(&self, text: &str) -> String {
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

    pub(crate) fn value(&self, expression: &str) -> String {
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
        self.context
            .get(expression)
            .unwrap_or_else(|| panic!("the test does not know the expression {expression}"))
            .clone()
    }

    /// A step's `if:`, of the one form this action uses: `<value> != '<text>'`.
    pub(crate) fn condition(&self, condition: &str) -> bool {
        let (left, right) = condition
            .split_once("!=")
            .unwrap_or_else(|| panic!("the test does not know the condition {condition}"));
        let literal = right.trim().trim_matches('\'');
        self.value(left.trim()) != literal
    }
}

/// A `GITHUB_OUTPUT` file as the runner reads it: `name=value` lines, and
/// `name<<DELIMITER` … `DELIMITER` for a value of any text.
pub(crate) fn parse_outputs(text: &str) -> HashMap<String, String> {
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

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// One run of the action: the `run:` steps that ran, by name, the key it gave `actions/cache`,
/// and the action's outputs.
pub(crate) struct Run {
    pub(crate) steps: Vec<(String, Output)>,
    pub(crate) cache_key: String,
    pub(crate) outputs: HashMap<String, String>,
}

impl Run {
    pub(crate) fn step(&self, name: &str) -> &Output {
        &self
            .steps
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("step {name} did not run"))
            .1
    }

    pub(crate) fn names(&self) -> Vec<&str> {
        self.steps.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// A step's standard output and error, as its log shows them.
    pub(crate) fn log(&self, name: &str) -> String {
        let step = self.step(name);
        format!(
            "{}{}",
            String::from_utf8_lossy(&step.stdout),
            String::from_utf8_lossy(&step.stderr)
        )
    }

    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.step("Run ownerlint").stdout).into_owned()
    }

    pub(crate) fn report(&self) -> String {
        let logs: Vec<String> = self
            .steps
            .iter()
            .map(|(name, _)| format!("{name}:\n{}", self.log(name)))
            .collect();
        format!("{}\n{:?}", logs.join("\n"), self.outputs)
    }

    pub(crate) fn output(&self, name: &str) -> &str {
        self.outputs
            .get(name)
            .unwrap_or_else(|| panic!("no output {name}"))
    }
}

/// `runner.arch` for this machine, as GitHub names it.
pub(crate) fn runner_arch() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "ARM64",
        _ => "X64",
    }
}

/// The release target the action installs on this machine's runner.
pub(crate) fn runner_target() -> &'static str {
    match runner_arch() {
        "ARM64" => "aarch64-unknown-linux-musl",
        _ => "x86_64-unknown-linux-musl",
    }
}

pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

pub(crate) struct Action {
    pub(crate) node: Node,
    pub(crate) work: PathBuf,
    pub(crate) workspace: PathBuf,
    pub(crate) summary: PathBuf,
    /// The `github` and `runner` contexts' values the action reads.
    pub(crate) context: HashMap<String, String>,
    /// The job's environment, which every step inherits.
    pub(crate) env: Vec<(String, String)>,
}

impl Action {
    /// The action at this checkout, used at no ref (`uses: ./`) on a Linux runner of this
    /// machine's architecture, with its workspace, step summary and tool cache under `work`.
    pub(crate) fn new(work: &Path) -> Action {
        let workspace = work.join("workspace");
        std::fs::create_dir_all(&workspace).expect("mkdir");
        let summary = work.join("step-summary.md");
        write(&summary, "");
        let context = [
            ("github.action_path", root().display().to_string()),
            ("github.action_ref", String::new()),
            ("github.action_repository", String::new()),
            ("github.repository", "acme/deploy-configs".to_string()),
            ("runner.os", "Linux".to_string()),
            ("runner.arch", runner_arch().to_string()),
            (
                "runner.tool_cache",
                work.join("tool-cache").display().to_string(),
            ),
        ];
        Action {
            node: parse_yaml(
                &std::fs::read_to_string(root().join("action.yml")).expect("action.yml"),
                "action.yml",
            ),
            work: work.to_path_buf(),
            workspace,
            summary,
            context: context
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            env: Vec::new(),
        }
    }

    /// Used as `uses: acme/ownerlint@REF`, from the repository `acme/ownerlint`.
    pub(crate) fn at_ref(mut self, action_ref: &str) -> Action {
        self.context
            .insert("github.action_ref".into(), action_ref.into());
        self.context
            .insert("github.action_repository".into(), "acme/ownerlint".into());
        self
    }

    pub(crate) fn with_env(mut self, key: &str, value: &str) -> Action {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// The installed binary, where the run step runs it from.
    pub(crate) fn installed(&self) -> PathBuf {
        self.work.join("tool-cache/ownerlint/bin/ownerlint")
    }

    /// The action's steps with `with` over the inputs' defaults; `cache_hit` is what
    /// `actions/cache` (a `uses:` step, GitHub's) says. As on GitHub, a step that fails ends
    /// the run: the steps after it do not run.
    pub(crate) fn run(&self, with: &[(&str, &str)], cache_hit: bool) -> Run {
        self.run_with_cache(with, &|_| cache_hit)
    }

    /// As [`Action::run`], with `actions/cache` hitting when `saved` holds the key the action
    /// gives it.
    pub(crate) fn run_with_cache(
        &self,
        with: &[(&str, &str)],
        saved: &dyn Fn(&str) -> bool,
    ) -> Run {
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
            context: self.context.clone(),
            steps: HashMap::new(),
        };
        let steps = self
            .node
            .get("runs")
            .and_then(|r| r.get("steps"))
            .and_then(Node::as_seq)
            .expect("steps");
        let mut ran = Vec::new();
        let mut cache_key = String::new();
        for (i, step) in steps.iter().enumerate() {
            let id = text_of(step.get("id"));
            let Some(script) = step.get("run").and_then(Node::as_scalar) else {
                assert!(step.get("uses").is_some(), "a step runs or uses");
                if id == "cache" {
                    cache_key =
                        expressions.eval(&text_of(step.get("with").and_then(|w| w.get("key"))));
                    let hit = if saved(&cache_key) { "true" } else { "false" };
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
            // A runner's environment, not a test's: a build from source starts Cargo.
            common::without_cargos_test_variables(&mut command)
                .arg("-c")
                .arg(&script.text)
                .current_dir(&self.workspace)
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_WORKSPACE", &self.workspace)
                .env("GITHUB_STEP_SUMMARY", &self.summary)
                .env("GITHUB_OUTPUT", &output_file)
                .env("RUNNER_OS", &self.context["runner.os"])
                .env("RUNNER_ARCH", &self.context["runner.arch"])
                .env_remove("OWNERLINT_RELEASES_URL")
                // A build from source builds this checkout in the tests' target folder: after
                // `cargo test --release` it reuses the release build, as a cache would.
                .env("CARGO_TARGET_DIR", common::target_dir());
            for (key, value) in &self.env {
                command.env(key, value);
            }
            for (key, value) in entries(step.get("env")) {
                command.env(key, expressions.eval(&value));
            }
            let output = command.output().expect("bash runs");
            let outputs =
                parse_outputs(&std::fs::read_to_string(&output_file).expect("GITHUB_OUTPUT"));
            if !id.is_empty() {
                expressions.steps.insert(id, outputs);
            }
            let failed = !output.status.success();
            ran.push((text_of(step.get("name")), output));
            if failed {
                break;
            }
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
            cache_key,
            outputs,
        }
    }
}

/// A stand-in for the release host: an HTTP server on 127.0.0.1 that serves the files published
/// on it, answers 404 for any other path, and records every path asked for.
pub(crate) struct ReleaseHost {
    pub(crate) address: String,
    pub(crate) files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    pub(crate) requests: Arc<Mutex<Vec<String>>>,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) thread: Option<std::thread::JoinHandle<()>>,
}

impl ReleaseHost {
    pub(crate) fn start() -> ReleaseHost {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        // Polled, so that dropping the host ends its thread.
        listener.set_nonblocking(true).expect("nonblocking");
        let address = format!(
            "http://{}",
            listener.local_addr().expect("the server's address")
        );
        let files: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (files, requests, stop) = (files.clone(), requests.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, _)) => serve(stream, &files, &requests),
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(_) => break,
                    }
                }
            })
        };
        ReleaseHost {
            address,
            files,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// The releases' address, for `OWNERLINT_RELEASES_URL`.
    pub(crate) fn releases_url(&self) -> String {
        format!("{}/releases", self.address)
    }

    /// Publish `bytes` as `NAME` of release `vVERSION`.
    pub(crate) fn publish(&self, version: &str, name: &str, bytes: Vec<u8>) {
        self.files
            .lock()
            .expect("files")
            .insert(format!("/releases/v{version}/{name}"), bytes);
    }

    /// Publish `archive` with its checksum file, as a release has them.
    pub(crate) fn publish_release(&self, version: &str, name: &str, archive: &[u8]) {
        self.publish(version, name, archive.to_vec());
        self.publish(
            version,
            &format!("{name}.sha256"),
            format!("{}  {name}\n", sha256(archive)).into_bytes(),
        );
    }

    pub(crate) fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("requests").clone()
    }
}

impl Drop for ReleaseHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

pub(crate) fn serve(
    mut stream: TcpStream,
    files: &Mutex<HashMap<String, Vec<u8>>>,
    requests: &Mutex<Vec<String>>,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buffer[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split(' ').nth(1).unwrap_or("").to_string();
    requests.lock().expect("requests").push(path.clone());
    let body = files.lock().expect("files").get(&path).cloned();
    let (status, body) = match body {
        Some(body) => ("200 OK", body),
        None => ("404 Not Found", b"Not Found\n".to_vec()),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&body);
}

pub(crate) fn sha256(bytes: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let bytes = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let output = child.wait_with_output().expect("sha256sum");
    writer.join().expect("writer").expect("write to sha256sum");
    String::from_utf8_lossy(&output.stdout)
        .split(' ')
        .next()
        .expect("a digest")
        .to_string()
}

/// The archive's name for this runner: `ownerlint-VERSION-TARGET.tar.gz`.
pub(crate) fn archive_name() -> String {
    format!("ownerlint-{VERSION}-{}.tar.gz", runner_target())
}

/// A release archive as `cargo xtask dist` packs it: one folder `ownerlint-VERSION-TARGET/`
/// with `binary` as `ownerlint`, the licences and the README; `readme` tells two packings apart.
pub(crate) fn pack(dir: &Path, binary: &Path, readme: &str) -> Vec<u8> {
    let folder = format!("ownerlint-{VERSION}-{}", runner_target());
    let inside = dir.join(&folder);
    std::fs::create_dir_all(&inside).expect("mkdir");
    std::fs::copy(binary, inside.join("ownerlint")).expect("copy the binary");
    write(&inside.join("LICENSE-MIT"), "MIT License\n");
    write(&inside.join("LICENSE-APACHE"), "Apache License 2.0\n");
    write(&inside.join("README.md"), readme);
    let archive = dir.join("archive.tar.gz");
    // The fastest compression: the debug binary is large, and only the format matters here.
    let status = Command::new("sh")
        .arg("-c")
        .arg("tar -cf - -C \"$1\" \"$2\" | gzip -1 > \"$3\"")
        .arg("sh")
        .arg(dir)
        .arg(&folder)
        .arg(&archive)
        .status()
        .expect("tar runs");
    assert!(status.success(), "tar and gzip pack the archive");
    std::fs::read(&archive).expect("the archive")
}

/// The release archive of the ownerlint these tests run, packed once.
pub(crate) fn genuine_archive() -> &'static [u8] {
    static ARCHIVE: OnceLock<Vec<u8>> = OnceLock::new();
    ARCHIVE.get_or_init(|| {
        let tmp = common::temp_dir("action-archive");
        pack(
            tmp.path(),
            Path::new(env!("CARGO_BIN_EXE_ownerlint")),
            "ownerlint\n",
        )
    })
}

/// One error: a cluster-scoped ClusterRole owned by a namespaced Deployment.
pub(crate) const APP: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  selector: {matchLabels: {app: api}}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: api-reader\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b\n";

/// The README's workflow with the action at a release tag: the release is downloaded from the
/// stand-in release host, checked, installed and cached; then the run annotates, summarises,
/// writes SARIF and sets every output.
#[test]
fn the_action_installs_its_release_then_annotates_summarises_writes_sarif_and_sets_outputs() {
    let tmp = common::temp_dir("action");
    let work = tmp.path();
    let host = ReleaseHost::start();
    host.publish_release(VERSION, &archive_name(), genuine_archive());
    let action = Action::new(work)
        .at_ref(&format!("v{VERSION}"))
        .with_env("OWNERLINT_RELEASES_URL", &host.releases_url());
    let workspace = action.workspace.clone();
    let summary = action.summary.clone();
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
    assert_eq!(
        first.names(),
        [
            "Find the ownerlint release",
            "Install ownerlint",
            "Run ownerlint"
        ],
        "{}",
        first.report()
    );
    // The checksum file, then the archive: nothing else is fetched.
    let asked: Vec<String> = [format!("{}.sha256", archive_name()), archive_name()]
        .iter()
        .map(|name| format!("/releases/v{VERSION}/{name}"))
        .collect();
    assert_eq!(host.requests(), asked);
    // Cached by version, target and the archive's checksum.
    assert_eq!(
        first.cache_key,
        format!(
            "ownerlint-{VERSION}-{}-{}",
            runner_target(),
            sha256(genuine_archive())
        )
    );
    let installed = Command::new(action.installed())
        .arg("--version")
        .output()
        .expect("the installed ownerlint runs");
    assert_eq!(
        String::from_utf8_lossy(&installed.stdout),
        format!("ownerlint {VERSION}\n")
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
    assert_eq!(
        second.names(),
        ["Find the ownerlint release", "Run ownerlint"]
    );
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
    pub(crate) fn names<T: ValueEnum>(values: &[T]) -> Vec<String> {
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
