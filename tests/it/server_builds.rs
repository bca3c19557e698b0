//! The language server's builds, with a stand-in for helm first on `PATH` that notes each run
//! and, for a chart marked so, never ends: what a slow build holds back (only the files it
//! reads), what stops it (an edit to a file it reads), what starts one (not a file helm does
//! not read), how long the editor lets it run, and what is left when the server ends (no
//! process, no temporary copy).

use crate::common;
use crate::server::{DANGLING, WAIT, codes, pull_client, push_client, uri};
use crate::server_process::Process;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// helm as the tests stand it in: it notes the chart's name, its process id and the mode of
/// the temporary copy it builds (`none` for a chart built where it is) in `$LOG/runs`; then
/// never ends when `$LOG/hang-NAME` exists, else (after 4 seconds when `$LOG/slow-NAME`
/// exists) prints the chart's CRDs and templates as `helm template` would. helm gets none of
/// the server's environment: `$LOG` is written into the script.
const FAKE_HELM: &str = r#"#!/bin/sh
LOG='@LOG@'
for arg in "$@"; do chart="$arg"; done
name=$(sed -n 's/^name: //p' "$chart/Chart.yaml")
copy=none
dir="$chart"
while [ "$dir" != / ] && [ "$dir" != . ]; do
  case "$(basename "$dir")" in ownerlint-build-*) copy=$(stat -c %a "$dir") ;; esac
  dir=$(dirname "$dir")
done
echo "$name $$ $copy" >> "$LOG/runs"
if [ -e "$LOG/hang-$name" ]; then exec sleep 600; fi
if [ -e "$LOG/slow-$name" ]; then sleep 4; fi
for file in "$chart"/crds/*.yaml "$chart"/templates/*.yaml; do
  [ -e "$file" ] || continue
  printf -- '---\n# Source: %s/%s\n' "$name" "${file#"$chart"/}"
  cat "$file"
done
"#;

/// A workspace with charts and plain files, the stand-in helm, and a private temporary folder
/// for the server.
struct Workspace {
    _dirs: Vec<tempfile::TempDir>,
    root: PathBuf,
    log: PathBuf,
    tmp: PathBuf,
    bin: PathBuf,
}

impl Workspace {
    fn new(name: &str, files: &[(&str, &str)]) -> Workspace {
        let make = |what: &str| {
            let dir = common::temp_dir(&format!("{name}-{what}"));
            let path = dir.path().canonicalize().expect("canonical");
            (dir, path)
        };
        let (root_dir, root) = make("root");
        let (log_dir, log) = make("log");
        let (tmp_dir, tmp) = make("tmp");
        common::write_files(&root, files);
        let bin = log.join("bin");
        std::fs::create_dir(&bin).expect("bin");
        let helm = bin.join("helm");
        std::fs::write(&helm, FAKE_HELM.replace("@LOG@", &log.to_string_lossy()))
            .expect("write helm");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&helm, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Workspace {
            _dirs: vec![root_dir, log_dir, tmp_dir],
            root,
            log,
            tmp,
            bin,
        }
    }

    /// Builds of the chart named `name` never end.
    fn hang(&self, name: &str) {
        std::fs::write(self.log.join(format!("hang-{name}")), "").expect("mark");
    }

    /// Builds of the chart named `name` take 4 seconds.
    fn slow(&self, name: &str) {
        std::fs::write(self.log.join(format!("slow-{name}")), "").expect("mark");
    }

    /// The server, with the stand-in helm first on `PATH` and its temporary folder private,
    /// initialized, for a client that is pushed diagnostics.
    fn server(&self, initialization_options: Value) -> Process {
        self.server_for(push_client(), initialization_options)
    }

    /// [`Workspace::server`], for a client of these capabilities.
    fn server_for(&self, capabilities: Value, initialization_options: Value) -> Process {
        let path = std::env::join_paths(std::iter::once(self.bin.clone()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("PATH");
        let mut server = Process::start_with(
            &self.root,
            capabilities,
            initialization_options,
            |command| command.env("PATH", &path).env("TMPDIR", &self.tmp),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        server
    }

    /// The runs of helm so far: (chart name, process id, mode of the copy built).
    fn runs(&self) -> Vec<(String, u32, String)> {
        std::fs::read_to_string(self.log.join("runs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let mut words = line.split(' ');
                let name = words.next()?.to_string();
                let pid = words.next()?.parse().ok()?;
                let mode = words.next()?.to_string();
                Some((name, pid, mode))
            })
            .collect()
    }

    /// The runs, once there are `count` of them.
    fn wait_for_runs(&self, count: usize) -> Vec<(String, u32, String)> {
        let start = Instant::now();
        loop {
            let runs = self.runs();
            if runs.len() >= count {
                return runs;
            }
            assert!(
                start.elapsed() < WAIT,
                "{count} runs of helm expected, seen {runs:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the server left in its temporary folder made by ownerlint.
    fn temporary_copies(&self) -> Vec<String> {
        std::fs::read_dir(&self.tmp)
            .expect("tmp")
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("ownerlint-"))
            .collect()
    }
}

/// Whether process `pid` runs (a process that ended and is not yet reaped has ended).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command's name, in parentheses.
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// Whether process `pid` ends within `within`.
fn ends_within(pid: u32, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !alive(pid)
}

/// The next diagnostics pushed for `file`, within `within`.
fn published(server: &mut Process, file: &Path, within: Duration) -> Vec<Value> {
    let wanted = uri(file);
    let start = Instant::now();
    loop {
        let left = within.saturating_sub(start.elapsed());
        let message = match server.messages.recv_timeout(left) {
            Ok(message) => message,
            Err(e) => panic!("no diagnostics for {wanted} within {within:?}: {e}"),
        };
        if message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["uri"] == wanted
        {
            return message["params"]["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default();
        }
    }
}

fn open(server: &mut Process, file: &Path, version: i32, text: &str) {
    server.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri(file), "languageId": "yaml", "version": version, "text": text}}}));
}

fn change(server: &mut Process, file: &Path, version: i32, text: &str) {
    server.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri(file), "version": version},
        "contentChanges": [{"text": text}]}}),
    );
}

const CHART: &str = "apiVersion: v2\nname: shop\nversion: 0.1.0\n";
const TEMPLATE: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n";

/// A chart whose build never ends beside a plain file with a finding.
fn hanging_chart(name: &str) -> Workspace {
    let workspace = Workspace::new(
        name,
        &[
            ("chart/Chart.yaml", CHART),
            ("chart/templates/cm.yaml", TEMPLATE),
            ("plain.yaml", DANGLING),
        ],
    );
    workspace.hang("shop");
    workspace
}

/// The server is started on a chart whose build never ends, with its template edited in the
/// editor (so that it is built from a temporary copy): the plain file's diagnostics come at
/// once, and helm runs on a private copy. Gives the server, and the process id of the helm
/// that builds the edited text.
fn start_a_build_that_never_ends(workspace: &Workspace) -> (Process, u32) {
    let start = Instant::now();
    let mut server = workspace.server(Value::Null);
    let template = workspace.root.join("chart/templates/cm.yaml");
    open(
        &mut server,
        &template,
        1,
        &TEMPLATE.replace("settings", "edited"),
    );
    let diagnostics = published(&mut server, &workspace.root.join("plain.yaml"), WAIT);
    assert_eq!(codes(&diagnostics), ["owner-not-found"]);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "the plain file waited {:?} for the chart's build",
        start.elapsed()
    );
    // The first analysis may have begun before the template was opened: its build (of the
    // files on disk) is stopped when the edited text is built.
    let start = Instant::now();
    let runs = loop {
        let runs = workspace.runs();
        if runs.iter().any(|(_, _, mode)| mode != "none") {
            break runs;
        }
        assert!(
            start.elapsed() < WAIT,
            "no build of the edited text: {runs:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let (name, pid, mode) = runs.last().expect("a run");
    assert_eq!(name, "shop");
    // The copy with the editor's text is readable by its user only.
    assert_eq!(mode, "700", "{runs:?}");
    assert!(alive(*pid), "helm {pid} still builds");
    for (_, earlier, _) in &runs[..runs.len() - 1] {
        assert!(ends_within(*earlier, Duration::from_secs(2)), "{runs:?}");
    }
    // The copy of the chart, and the tool's own home: both ownerlint's, both removed at the end.
    let folders = workspace.temporary_copies();
    assert_eq!(
        folders
            .iter()
            .filter(|name| name.starts_with("ownerlint-build-"))
            .count(),
        1,
        "{folders:?}"
    );
    (server, *pid)
}

#[test]
fn a_build_that_never_ends_holds_back_no_other_file_and_ends_at_exit() {
    let workspace = hanging_chart("server-builds-exit");
    let (mut server, helm) = start_a_build_that_never_ends(&workspace);
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
    server.answer(1);
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(0));
    assert!(
        ends_within(helm, Duration::from_secs(2)),
        "helm {helm} outlived the server"
    );
    assert_eq!(workspace.temporary_copies(), Vec::<String>::new());
}

#[test]
fn a_build_that_never_ends_ends_when_the_editor_closes_the_input() {
    let workspace = hanging_chart("server-builds-eof");
    let (mut server, helm) = start_a_build_that_never_ends(&workspace);
    // No shutdown, no exit: the input ends.
    assert_eq!(server.status(WAIT), Some(1));
    assert!(
        ends_within(helm, Duration::from_secs(2)),
        "helm {helm} outlived the server"
    );
    assert_eq!(workspace.temporary_copies(), Vec::<String>::new());
}

#[test]
fn an_edit_to_a_file_a_build_reads_stops_it_and_starts_another_and_other_edits_do_not() {
    let workspace = hanging_chart("server-builds-edit");
    let (mut server, first) = start_a_build_that_never_ends(&workspace);
    let runs = workspace.runs().len();
    // A plain file edited: shown at once, and the chart's build runs on.
    let plain = workspace.root.join("plain.yaml");
    open(
        &mut server,
        &plain,
        1,
        &DANGLING.replace("name: gone", "name: elsewhere"),
    );
    let diagnostics = published(&mut server, &plain, Duration::from_secs(10));
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("elsewhere")),
        "{diagnostics:?}"
    );
    assert_eq!(workspace.runs().len(), runs);
    assert!(
        alive(first),
        "helm {first} was stopped by an edit it does not read"
    );
    // The template edited again: its build is stopped, and a new one started.
    let template = workspace.root.join("chart/templates/cm.yaml");
    change(
        &mut server,
        &template,
        2,
        &TEMPLATE.replace("settings", "again"),
    );
    let second = workspace.wait_for_runs(runs + 1)[runs].1;
    assert_ne!(second, first);
    assert!(
        ends_within(first, Duration::from_secs(2)),
        "helm {first} still runs after its template changed"
    );
    assert!(alive(second), "helm {second} builds the new text");
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(1));
    assert!(ends_within(second, Duration::from_secs(2)));
}

#[test]
fn a_file_helm_does_not_read_builds_nothing_and_a_file_a_template_reads_builds_again() {
    let workspace = Workspace::new(
        "server-builds-reads",
        &[
            ("shop/Chart.yaml", CHART),
            ("shop/templates/cm.yaml", TEMPLATE),
            // Beside the chart, read by no template: linted on its own.
            ("shop/plain.yaml", DANGLING),
            ("files/Chart.yaml", &CHART.replace("shop", "files")),
            (
                "files/templates/cm.yaml",
                &format!("{TEMPLATE}# {{{{ .Files.Get \"plain.txt\" }}}}\n"),
            ),
            ("files/plain.txt", "one\n"),
            // A subchart's definition that reads the including chart's files.
            ("library/Chart.yaml", &CHART.replace("shop", "library")),
            ("library/templates/cm.yaml", TEMPLATE),
            (
                "library/charts/common/Chart.yaml",
                "apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n",
            ),
            (
                "library/charts/common/templates/_helpers.tpl",
                "{{- define \"common.text\" -}}{{ $.Files.Get \"plain.txt\" }}{{- end -}}\n",
            ),
            ("library/plain.txt", "one\n"),
        ],
    );
    let mut server = workspace.server(Value::Null);
    let plain = workspace.root.join("shop/plain.yaml");
    assert_eq!(
        codes(&published(&mut server, &plain, WAIT)),
        ["owner-not-found"]
    );
    let mut names: Vec<String> = workspace
        .wait_for_runs(3)
        .into_iter()
        .map(|r| r.0)
        .collect();
    names.sort();
    assert_eq!(names, ["files", "library", "shop"]);
    // The plain file edited: linted again, and neither chart built again.
    open(
        &mut server,
        &plain,
        1,
        &DANGLING.replace("name: gone", "name: elsewhere"),
    );
    let diagnostics = published(&mut server, &plain, WAIT);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("elsewhere")),
        "{diagnostics:?}"
    );
    assert_eq!(workspace.runs().len(), 3, "{:?}", workspace.runs());
    // The file a template reads through `.Files` edited: that chart is built again.
    let text = workspace.root.join("files/plain.txt");
    open(&mut server, &text, 1, "two\n");
    let runs = workspace.wait_for_runs(4);
    assert_eq!(runs[3].0, "files", "{runs:?}");
    // The file a subchart's definition may read edited: that chart is built again.
    let text = workspace.root.join("library/plain.txt");
    open(&mut server, &text, 1, "two\n");
    let runs = workspace.wait_for_runs(5);
    assert_eq!(runs[4].0, "library", "{runs:?}");
    assert_eq!(runs.len(), 5, "{runs:?}");
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(1));
}

#[test]
fn the_editors_build_timeout_is_its_render_timeout_option() {
    let workspace = hanging_chart("server-builds-timeout");
    let mut server = workspace.server(json!({"renderTimeout": 2}));
    let start = Instant::now();
    let diagnostics = published(&mut server, &workspace.root.join("chart/Chart.yaml"), WAIT);
    assert_eq!(codes(&diagnostics), ["render-failed"], "{diagnostics:?}");
    let message = diagnostics[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("after 2 seconds"), "{message}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    let helm = workspace.runs()[0].1;
    assert!(!alive(helm), "helm {helm} runs on after its timeout");
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(1));
}

#[test]
fn a_client_that_pulls_gets_what_no_slow_build_reads_at_once() {
    let workspace = hanging_chart("server-builds-pull");
    let start = Instant::now();
    let mut server = workspace.server_for(pull_client(), Value::Null);
    server.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "workspace/diagnostic",
        "params": {"previousResultIds": []}}),
    );
    let (answer, _) = server.answer(1);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "the pull waited {:?} for the chart's build",
        start.elapsed()
    );
    let items = answer["result"]["items"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let plain = uri(&workspace.root.join("plain.yaml"));
    let found: Vec<(String, Vec<String>)> = items
        .iter()
        .map(|item| {
            let diagnostics = item["items"].as_array().cloned().unwrap_or_default();
            (
                item["uri"].as_str().unwrap_or("?").to_string(),
                codes(&diagnostics),
            )
        })
        .filter(|(_, codes)| !codes.is_empty())
        .collect();
    assert_eq!(
        found,
        [(plain, vec!["owner-not-found".to_string()])],
        "{answer}"
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(1));
}

#[test]
fn a_file_a_template_reads_is_in_the_copy_an_edited_chart_is_built_from() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("server-builds-files-get");
    let root = dir.path().canonicalize().expect("root");
    common::write_files(
        &root,
        &[
            ("chart/Chart.yaml", CHART),
            ("chart/owner.txt", "first\n"),
            (
                "chart/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: {{ .Files.Get \"owner.txt\" | trim }}\n    uid: 0a1b2c3d-0000-4000-8000-000000000001\n",
            ),
        ],
    );
    let options = ownerlint::Options {
        paths: vec![root.clone()],
        build: Some(Default::default()),
        ..Default::default()
    };
    let mut cache = ownerlint::pipeline::LoadCache::default();
    let mut analyze = |open: &[(&str, &str)]| {
        let inputs = ownerlint::pipeline::Inputs {
            texts: open
                .iter()
                .map(|(path, text)| (root.join(path), text.to_string()))
                .collect(),
            stdin: &mut std::io::empty(),
            cache: Some(&mut cache),
        };
        let analysis = ownerlint::pipeline::analyze_inputs(&options, inputs);
        let messages: Vec<String> = (analysis.outcome.findings.iter())
            .map(|f| format!("{}: {}", f.rule.id, f.message))
            .collect();
        (cache.built_last(), messages)
    };
    let (built, messages) = analyze(&[]);
    assert_eq!(built, 1);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("Deployment") && m.contains("first")),
        "{messages:?}"
    );
    // The file the template reads, edited in the editor: built again, from a copy that holds it.
    let (built, messages) = analyze(&[("chart/owner.txt", "second\n")]);
    assert_eq!(built, 1);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("Deployment") && m.contains("second")),
        "{messages:?}"
    );
    // Any other file below the chart edited: built again too (`.Files` may read any).
    let (built, _) = analyze(&[
        ("chart/owner.txt", "second\n"),
        ("chart/notes.yaml", "a: 1\n"),
    ]);
    assert_eq!(
        built, 1,
        "a template names .Files: every file below the chart is read"
    );
}

const WIDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object}}\n";

/// A ConfigMap whose owner, a Widget (a kind the chart's CRD defines), is in no input.
const WIDGET_DEPENDENT: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: default\n  ownerReferences:\n  - apiVersion: example.com/v1\n    kind: Widget\n    name: gizmo\n    uid: 0a1b2c3d-0000-4000-8000-000000000007\n";

#[test]
fn a_slow_build_that_defines_kinds_holds_every_file_until_it_ends() {
    let workspace = Workspace::new(
        "server-builds-crds",
        &[
            ("chart/Chart.yaml", CHART),
            ("chart/crds/widget.yaml", WIDGET_CRD),
            ("chart/templates/cm.yaml", TEMPLATE),
            ("plain.yaml", WIDGET_DEPENDENT),
        ],
    );
    workspace.slow("shop");
    let mut server = workspace.server(Value::Null);
    // Shown once the chart is built, with the kind its CRD defines known: never first
    // without it (`owner-kind-unknown`).
    let diagnostics = published(&mut server, &workspace.root.join("plain.yaml"), WAIT);
    assert_eq!(codes(&diagnostics), ["owner-not-found"], "{diagnostics:?}");
    assert_eq!(workspace.runs().len(), 1);
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(1));
}
