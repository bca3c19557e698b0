//! `ownerlint server`: from an edit to the diagnostics it changes, in three workspaces. The
//! benchmark starts the release binary as an editor does (stdio), and prints the time from
//! each edit to its diagnostics (p50, p95, max) and the server's resident memory. Run with
//! `cargo bench --bench server` (`OWNERLINT_BENCH_EDITS`, default 200, edits of each kind;
//! `OWNERLINT_BENCH_FILES`, default 500, files of ten objects; `OWNERLINT_BENCH_ONLY`, one of
//! `small`, `user` or `chart`).
//!
//! - `small` ([`small_objects`]): 5,000 small objects in 500 files; each file's ConfigMaps are
//!   owned by the Deployments of the file before it. One file of owners is open, and an owner's
//!   uid is edited back and forth, each edit as soon as the last one's diagnostics came: each
//!   changes the diagnostics of the next file.
//! - `user` ([`user_workspace`]): the workspace a user has, 500 files of one application each
//!   as a cluster dump holds it (a Deployment with its selector and pod template, its
//!   ReplicaSet and Pods, a Service, ConfigMaps, a ServiceAccount, a Secret: 5,000 objects in
//!   tens of lines each, 4 MB), with ten files open and one edited, an edit every
//!   100 ms as a user types. Measured for a client that takes pushed diagnostics (an edit of
//!   a Deployment's uid, which changes the findings of its file) and for one that pulls them
//!   as VS Code does (`textDocument/diagnostic` after each edit: the image of the pod
//!   template edited, which changes no finding, and the uid edit).
//! - `chart` ([`chart_edits`]): a chart's template edited, unsaved, in a workspace of its own:
//!   each edit is a helm build.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long an answer may take (a slow build, or a server under a profiler).
const WAIT: Duration = Duration::from_secs(600);

/// How many files of the user's workspace are open.
const OPEN_FILES: usize = 10;

/// The time between two edits in the user's workspace: a user typing, each edit a lone one.
const PAUSE: Duration = Duration::from_millis(100);

fn uid(file: usize, i: usize) -> String {
    format!("0a1b2c3d-0000-4000-8000-{file:06}{i:06}")
}

/// File `file`: five Deployments, and five ConfigMaps owned by the Deployments of the file
/// before it (the first file's, by its own).
fn file_text(file: usize, files: usize) -> String {
    let owner_file = if file == 0 { 0 } else { file - 1 };
    let _ = files;
    let mut out = String::new();
    for i in 0..5 {
        out.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{file}-{i}\n  namespace: ns\n  uid: {}\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: app-{file}-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{file}-{i}\n    spec:\n      containers:\n      - name: main\n        image: example/app:1\n",
            uid(file, i)
        ));
        out.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-{file}-{i}\n  namespace: ns\n  uid: {}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: app-{owner_file}-{i}\n    uid: {}\ndata:\n  key: value\n",
            uid(file, 100 + i),
            uid(owner_file, i)
        ));
    }
    out
}

/// Write a file of the workspace, last changed an hour ago, as the files of a user's
/// repository were (not in the seconds before the server reads them).
fn write_old(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write");
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open");
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    file.set_modified(an_hour_ago)
        .expect("set the modification time");
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start(binary: &Path) -> Server {
        let mut child = Command::new(binary)
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ownerlint server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let Ok(message) = serde_json::from_slice::<Value>(&body) else {
                    return;
                };
                if send.send(message).is_err() {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            messages,
            next_id: 0,
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.messages.recv_timeout(WAIT).expect("an answer");
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next diagnostics pushed for `file` that `want` accepts.
    fn diagnostics(&self, file: &str, want: impl Fn(&[Value]) -> bool) {
        loop {
            let message = self.messages.recv_timeout(WAIT).expect("diagnostics");
            if message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"] == file
                && want(
                    message["params"]["diagnostics"]
                        .as_array()
                        .map_or(&[], Vec::as_slice),
                )
            {
                return;
            }
        }
    }

    fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let files: usize = std::env::var("OWNERLINT_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let edits: usize = std::env::var("OWNERLINT_BENCH_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    // `OWNERLINT_BENCH_BINARY`: another build of ownerlint (`target/ci/ownerlint`).
    let binary = std::env::var_os("OWNERLINT_BENCH_BINARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/ownerlint")
        });
    assert!(
        binary.exists(),
        "build the release binary first: cargo build --release"
    );
    // `OWNERLINT_BENCH_ONLY`: one workload (`small`, `user` or `chart`).
    let only = std::env::var("OWNERLINT_BENCH_ONLY").ok();
    let run = |name: &str| only.as_deref().is_none_or(|only| only == name);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("cores: {cores}");
    if run("small") {
        small_objects(&binary, files, edits);
    }
    if run("user") {
        user_workspace(&binary, files, edits);
    }
    if run("chart") {
        chart_edits(&binary);
    }
}

/// 5,000 small objects in 500 files: Deployments and the ConfigMaps they own.
fn small_objects(binary: &Path, files: usize, edits: usize) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/server-workspace");
    let _ = std::fs::remove_dir_all(&root);
    for file in 0..files {
        let dir = root.join(format!("team{}", file / 50));
        std::fs::create_dir_all(&dir).expect("workspace");
        write_old(
            &dir.join(format!("f{file:04}.yaml")),
            &file_text(file, files),
        );
    }
    let mut server = Server::start(binary);
    let root_uri = uri(&root);
    server.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "workspaceFolders": [{"uri": root_uri, "name": "bench"}], "capabilities": {}}),
    );
    server.notify("initialized", json!({}));
    // The owners of file 1's ConfigMaps are in file 0; editing the first one's uid makes file
    // 1's first ConfigMap's reference stale, and undoing it clears that.
    let owners = root.join("team0/f0000.yaml");
    let dependent = uri(&root.join("team0/f0001.yaml"));
    let text = file_text(0, files);
    let owners_uri = uri(&owners);
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": owners_uri, "languageId": "yaml", "version": 1, "text": text}}),
    );
    let uid_line = text
        .lines()
        .position(|l| l.contains(&uid(0, 0)))
        .expect("uid line") as u32;
    let column = 7;
    let started = Instant::now();
    let mut latencies = Vec::with_capacity(edits);
    let mut rss_early = None;
    for edit in 0..edits {
        let stale = edit % 2 == 0;
        let new_uid = if stale {
            "0a1b2c3d-0000-4000-8000-ffffffffffff".to_string()
        } else {
            uid(0, 0)
        };
        let sent = Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": owners_uri, "version": edit + 2}, "contentChanges": [{"range": {"start": {"line": uid_line, "character": column}, "end": {"line": uid_line, "character": column + 36}}, "text": new_uid}]}),
        );
        server.diagnostics(&dependent, |d| {
            let mismatch = d.iter().any(|d| d["code"] == "owner-uid-mismatch");
            mismatch == stale
        });
        latencies.push(sent.elapsed());
        if edit + 1 == (edits / 10).max(1) {
            rss_early = server.rss_kib();
        }
    }
    let rss_late = server.rss_kib();
    let total = started.elapsed();
    server.request("shutdown", Value::Null);
    server.notify("exit", Value::Null);
    let _ = server.child.wait();
    latencies.sort();
    println!(
        "workspace: {files} files, {} objects; {edits} edits in {:.1} s",
        files * 10,
        total.as_secs_f64()
    );
    println!(
        "edit to diagnostics: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.95).as_secs_f64() * 1e3,
        latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1e3)
    );
    if let (Some(early), Some(late)) = (rss_early, rss_late) {
        println!(
            "resident memory: {:.1} MiB after {} edits, {:.1} MiB after {edits} ({:.2}×)",
            early as f64 / 1024.0,
            (edits / 10).max(1),
            late as f64 / 1024.0,
            late as f64 / early as f64
        );
    }
}

/// The uid of object `i` of file `file` of the user's workspace.
fn app_uid(file: usize, i: usize) -> String {
    format!("5e1f0c2a-0000-4000-8000-{file:06}{i:06}")
}

/// The image the Deployment of each file of the user's workspace runs; edited to `IMAGE_EDITED`
/// and back, which changes no finding.
const IMAGE: &str = "registry.example/shop:1.4.2";
const IMAGE_EDITED: &str = "registry.example/shop:1.4.3";

/// A container as a dump writes it, indented by `indent`.
fn container(app: &str, indent: &str) -> String {
    let lines = [
        "- env:".to_string(),
        "  - name: LOG_LEVEL".to_string(),
        "    valueFrom:".to_string(),
        "      configMapKeyRef:".to_string(),
        "        key: LOG_LEVEL".to_string(),
        format!("        name: {app}-settings"),
        format!("  image: {IMAGE}"),
        "  imagePullPolicy: IfNotPresent".to_string(),
        "  name: main".to_string(),
        "  ports:".to_string(),
        "  - containerPort: 8080".to_string(),
        "    protocol: TCP".to_string(),
        "  readinessProbe:".to_string(),
        "    httpGet:".to_string(),
        "      path: /healthz".to_string(),
        "      port: 8080".to_string(),
        "  resources:".to_string(),
        "    limits:".to_string(),
        "      cpu: 500m".to_string(),
        "      memory: 256Mi".to_string(),
        "    requests:".to_string(),
        "      cpu: 100m".to_string(),
        "      memory: 128Mi".to_string(),
    ];
    lines.iter().map(|l| format!("{indent}{l}\n")).collect()
}

/// File `file` of the user's workspace: one application as a cluster dump holds it, ten
/// objects in tens of lines each: a ServiceAccount, a ConfigMap, a Service, a Deployment with
/// its selector and pod template, the ReplicaSet it owns, three Pods the ReplicaSet owns, a
/// ConfigMap owned by the Deployment of the file before it (in the same namespace), and a
/// Secret. Fifty files share a namespace. Nothing in it is a finding.
fn app_text(file: usize) -> String {
    let ns = format!("team-{}", file / 50);
    let app = format!("shop-{file}");
    let hash = format!("5f{file:08x}");
    let owner_file = if file.is_multiple_of(50) {
        file
    } else {
        file - 1
    };
    let uid = |i| app_uid(file, i);
    let meta = |kind_labels: &str, name: &str, i: usize| {
        format!(
            "metadata:\n  creationTimestamp: \"2024-05-01T09:00:00Z\"\n  labels:\n{kind_labels}  name: {name}\n  namespace: {ns}\n  resourceVersion: \"{}\"\n  uid: {}\n",
            1000 + file * 10 + i,
            uid(i)
        )
    };
    let app_labels = format!("    app: {app}\n    team: {ns}\n");
    let pod_labels = format!("    app: {app}\n    pod-template-hash: \"{hash}\"\n    team: {ns}\n");
    let owned = |kind: &str, name: &str, uid: &str, controller: bool| {
        format!(
            "  ownerReferences:\n  - apiVersion: apps/v1\n    blockOwnerDeletion: true\n{}    kind: {kind}\n    name: {name}\n    uid: {uid}\n",
            if controller {
                "    controller: true\n"
            } else {
                ""
            }
        )
    };
    let mut out = String::new();
    out.push_str(&format!(
        "---\napiVersion: v1\nkind: ServiceAccount\n{}",
        meta(&app_labels, &app, 0)
    ));
    out.push_str(&format!(
        "---\napiVersion: v1\nkind: ConfigMap\n{}data:\n  LOG_LEVEL: info\n  FEATURES: search,checkout\n  settings.yaml: |\n    server:\n      port: 8080\n      timeout: 30s\n    cache:\n      size: 128Mi\n",
        meta(&app_labels, &format!("{app}-settings"), 1)
    ));
    out.push_str(&format!(
        "---\napiVersion: v1\nkind: Service\n{}spec:\n  clusterIP: 10.96.{}.{}\n  ports:\n  - name: http\n    port: 80\n    protocol: TCP\n    targetPort: 8080\n  selector:\n    app: {app}\n  sessionAffinity: None\n  type: ClusterIP\nstatus:\n  loadBalancer: {{}}\n",
        meta(&app_labels, &app, 2),
        file / 250,
        file % 250
    ));
    out.push_str(&format!(
        "---\napiVersion: apps/v1\nkind: Deployment\n{}spec:\n  progressDeadlineSeconds: 600\n  replicas: 3\n  revisionHistoryLimit: 10\n  selector:\n    matchLabels:\n      app: {app}\n  strategy:\n    rollingUpdate:\n      maxSurge: 25%\n      maxUnavailable: 25%\n    type: RollingUpdate\n  template:\n    metadata:\n      labels:\n        app: {app}\n        team: {ns}\n    spec:\n      containers:\n{}      restartPolicy: Always\n      serviceAccountName: {app}\n      terminationGracePeriodSeconds: 30\nstatus:\n  availableReplicas: 3\n  observedGeneration: 1\n  readyReplicas: 3\n  replicas: 3\n",
        meta(&app_labels, &app, 3),
        container(&app, "      ")
    ));
    let rs = format!("{app}-{hash}");
    out.push_str(&format!(
        "---\napiVersion: apps/v1\nkind: ReplicaSet\n{}{}spec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: {app}\n      pod-template-hash: \"{hash}\"\n  template:\n    metadata:\n      labels:\n        app: {app}\n        pod-template-hash: \"{hash}\"\n        team: {ns}\n    spec:\n      containers:\n{}      serviceAccountName: {app}\nstatus:\n  fullyLabeledReplicas: 3\n  readyReplicas: 3\n  replicas: 3\n",
        meta(&pod_labels, &rs, 4),
        owned("Deployment", &app, &uid(3), true),
        container(&app, "      ")
    ));
    for p in 0..3 {
        out.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\n{}{}spec:\n  containers:\n{}  nodeName: worker-{}\n  restartPolicy: Always\n  serviceAccountName: {app}\nstatus:\n  hostIP: 10.0.0.{}\n  phase: Running\n  podIP: 10.244.{}.{}\n  qosClass: Burstable\n  startTime: \"2024-05-01T09:00:01Z\"\n",
            meta(&pod_labels, &format!("{rs}-x{p}{file:04x}"), 5 + p),
            owned("ReplicaSet", &rs, &uid(4), true),
            container(&app, "  "),
            p + 1,
            p + 1,
            file % 250,
            p + 10
        ));
    }
    out.push_str(&format!(
        "---\napiVersion: v1\nkind: ConfigMap\n{}{}data:\n  warmed: \"true\"\n",
        meta(&app_labels, &format!("{app}-cache"), 8),
        owned(
            "Deployment",
            &format!("shop-{owner_file}"),
            &app_uid(owner_file, 3),
            false
        )
    ));
    out.push_str(&format!(
        "---\napiVersion: v1\nkind: Secret\n{}type: Opaque\ndata:\n  token: c2VjcmV0\n",
        meta(&app_labels, &format!("{app}-token"), 9)
    ));
    out
}

/// `(line, column)` of the first `needle` in `text`, in bytes (the text is ASCII).
fn place(text: &str, needle: &str) -> (u32, u32) {
    let line = text
        .lines()
        .position(|l| l.contains(needle))
        .expect("the text holds it");
    let column = text
        .lines()
        .nth(line)
        .and_then(|l| l.find(needle))
        .unwrap_or(0);
    (line as u32, column as u32)
}

fn replace(start: (u32, u32), len: usize, text: &str) -> Value {
    let end = start.1 + len as u32;
    json!([{"range": {"start": {"line": start.0, "character": start.1}, "end": {"line": start.0, "character": end}}, "text": text}])
}

fn summary(latencies: &mut [Duration]) -> String {
    latencies.sort();
    format!(
        "p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        percentile(latencies, 0.5).as_secs_f64() * 1e3,
        percentile(latencies, 0.95).as_secs_f64() * 1e3,
        latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1e3)
    )
}

/// The workspace a user has ([`app_text`]: `files` files of ten objects in tens of lines),
/// with [`OPEN_FILES`] files open and one of them edited, from a client that takes pushed
/// diagnostics and from one that pulls them as VS Code does.
fn user_workspace(binary: &Path, files: usize, edits: usize) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/server-apps");
    let _ = std::fs::remove_dir_all(&root);
    let mut bytes = 0;
    for file in 0..files {
        let dir = root.join(format!("team-{}", file / 50));
        std::fs::create_dir_all(&dir).expect("workspace");
        let text = app_text(file);
        bytes += text.len();
        write_old(&dir.join(format!("shop-{file:04}.yaml")), &text);
    }
    let path_of = |file: usize| root.join(format!("team-{}/shop-{file:04}.yaml", file / 50));
    // The file edited: its Deployment owns its ReplicaSet, and the next file's cache.
    let edited = 1.min(files - 1);
    let text = app_text(edited);
    let edited_uri = uri(&path_of(edited));
    let deployment_uid = app_uid(edited, 3);
    let stale_uid = "5e1f0c2a-0000-4000-8000-ffffffffffff";
    let uid_at = place(&text, &format!("uid: {deployment_uid}"));
    let uid_at = (uid_at.0, uid_at.1 + 5);
    let image_at = place(&text, IMAGE);
    let uid_edit = |stale: bool| {
        replace(
            uid_at,
            36,
            if stale {
                stale_uid
            } else {
                deployment_uid.as_str()
            },
        )
    };
    let image_edit = |changed: bool| {
        replace(
            image_at,
            IMAGE.len(),
            if changed { IMAGE_EDITED } else { IMAGE },
        )
    };
    let mismatch = |d: &[Value]| d.iter().any(|d| d["code"] == "owner-uid-mismatch");
    println!(
        "user workspace: {files} files, {} objects, {:.1} MB; {} files open, one edited",
        files * 10,
        bytes as f64 / 1e6,
        OPEN_FILES.min(files)
    );
    for pull in [false, true] {
        let mut server = Server::start(binary);
        let root_uri = uri(&root);
        let capabilities = if pull {
            json!({"textDocument": {"diagnostic": {"dynamicRegistration": false}}, "workspace": {"diagnostics": {"refreshSupport": true}}})
        } else {
            json!({"textDocument": {"publishDiagnostics": {"relatedInformation": true}}})
        };
        server.request(
            "initialize",
            json!({"processId": null, "rootUri": root_uri, "workspaceFolders": [{"uri": root_uri, "name": "bench"}], "capabilities": capabilities}),
        );
        server.notify("initialized", json!({}));
        for file in (0..OPEN_FILES.min(files)).rev() {
            server.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri(&path_of(file)), "languageId": "yaml", "version": 1, "text": app_text(file)}}),
            );
        }
        let mut version = 1;
        let mut change = |server: &mut Server, changes: Value| {
            version += 1;
            server.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": edited_uri, "version": version}, "contentChanges": changes}),
            );
        };
        let pull_file = |server: &mut Server| -> Vec<Value> {
            let report = server.request(
                "textDocument/diagnostic",
                json!({"textDocument": {"uri": edited_uri}}),
            );
            report["result"]["items"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        };
        if pull {
            let report = server.request("workspace/diagnostic", json!({"previousResultIds": []}));
            let findings: usize = report["result"]["items"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r["items"].as_array().map_or(0, Vec::len))
                .sum();
            let mut codes: Vec<String> = report["result"]["items"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|r| r["items"].as_array().cloned().unwrap_or_default())
                .map(|d| d["code"].as_str().unwrap_or("?").to_string())
                .collect();
            codes.sort();
            codes.dedup();
            println!("  findings in the workspace: {findings} {codes:?}");
            let before = pull_file(&mut server).len();
            let mut quiet = Vec::with_capacity(edits);
            let mut changing = Vec::with_capacity(edits);
            for edit in 0..edits + 2 {
                let changed = edit % 2 == 0;
                std::thread::sleep(PAUSE);
                let sent = Instant::now();
                change(&mut server, image_edit(changed));
                let items = pull_file(&mut server);
                assert_eq!(items.len(), before, "no finding changes: {items:?}");
                if edit >= 2 {
                    quiet.push(sent.elapsed());
                }
            }
            for edit in 0..edits + 2 {
                let stale = edit % 2 == 0;
                std::thread::sleep(PAUSE);
                let sent = Instant::now();
                change(&mut server, uid_edit(stale));
                let items = pull_file(&mut server);
                assert_eq!(mismatch(&items), stale, "{items:?}");
                if edit >= 2 {
                    changing.push(sent.elapsed());
                }
            }
            println!(
                "  pull, an edit that changes no finding ({edits}): {}",
                summary(&mut quiet)
            );
            println!(
                "  pull, an edit that changes a finding ({edits}): {}",
                summary(&mut changing)
            );
        } else {
            let mut changing = Vec::with_capacity(edits);
            let mut rss_early = None;
            for edit in 0..edits + 2 {
                let stale = edit % 2 == 0;
                std::thread::sleep(PAUSE);
                let sent = Instant::now();
                change(&mut server, uid_edit(stale));
                server.diagnostics(&edited_uri, |d| mismatch(d) == stale);
                if edit >= 2 {
                    changing.push(sent.elapsed());
                }
                if edit == 2 + edits / 10 {
                    rss_early = server.rss_kib();
                }
            }
            let rss_late = server.rss_kib();
            println!(
                "  push, an edit that changes a finding ({edits}): {}",
                summary(&mut changing)
            );
            if let (Some(early), Some(late)) = (rss_early, rss_late) {
                println!(
                    "  resident memory: {:.1} MiB after a tenth of the edits, {:.1} MiB after all",
                    early as f64 / 1024.0,
                    late as f64 / 1024.0,
                );
            }
        }
        server.request("shutdown", Value::Null);
        server.notify("exit", Value::Null);
        let _ = server.child.wait();
    }
}

const CHART_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.owner }}\nspec:\n  selector:\n    matchLabels:\n      app: api\n  template:\n    metadata:\n      labels:\n        app: api\n    spec:\n      containers:\n      - name: api\n        image: api:1\n";

/// A ConfigMap template owned by the chart's Deployment (`{{ .Values.owner }}`), or by one
/// that is in no input (`-missing`).
fn chart_cache(missing: bool) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{{{ .Release.Name }}}}-cache\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: {{{{ .Values.owner }}}}{}\n    uid: 0a1b2c3d-0000-4000-8000-000000000001\n",
        if missing { "-missing" } else { "" }
    )
}

/// A chart's template edited in the editor (`OWNERLINT_BENCH_CHART_EDITS`, default 40), not
/// saved: each edit is built with `helm template` from a copy of the chart holding the editor's
/// text, and its findings taken back to the template. The owner the template names is in turn
/// missing (`owner-not-found`) and the chart's own Deployment (`owner-created-with-fresh-uid`).
/// Without helm on `PATH`, this part is skipped.
fn chart_edits(binary: &Path) {
    let edits: usize = std::env::var("OWNERLINT_BENCH_CHART_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let helm = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("helm").is_file()));
    if !helm {
        println!("chart edits: skipped, helm is not on PATH");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/server-chart");
    let _ = std::fs::remove_dir_all(&root);
    let chart = root.join("chart");
    std::fs::create_dir_all(chart.join("templates")).expect("chart");
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    )
    .expect("write");
    std::fs::write(chart.join("values.yaml"), "owner: api\n").expect("write");
    std::fs::write(chart.join("templates/deployment.yaml"), CHART_DEPLOYMENT).expect("write");
    let template = chart.join("templates/cache.yaml");
    std::fs::write(&template, chart_cache(true)).expect("write");
    let mut server = Server::start(binary);
    let root_uri = uri(&root);
    server.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "workspaceFolders": [{"uri": root_uri, "name": "bench"}], "capabilities": {}}),
    );
    server.notify("initialized", json!({}));
    let template_uri = uri(&template);
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": template_uri, "languageId": "yaml", "version": 1, "text": chart_cache(true)}}),
    );
    server.diagnostics(&template_uri, |d| {
        d.iter().any(|d| d["code"] == "owner-not-found")
    });
    let started = Instant::now();
    let mut latencies = Vec::with_capacity(edits);
    for edit in 0..edits {
        let missing = edit % 2 == 1;
        let sent = Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": template_uri, "version": edit + 2}, "contentChanges": [{"text": chart_cache(missing)}]}),
        );
        let wanted = if missing {
            "owner-not-found"
        } else {
            "owner-created-with-fresh-uid"
        };
        server.diagnostics(&template_uri, |d| d.iter().any(|d| d["code"] == wanted));
        latencies.push(sent.elapsed());
    }
    let total = started.elapsed();
    server.request("shutdown", Value::Null);
    server.notify("exit", Value::Null);
    let _ = server.child.wait();
    latencies.sort();
    println!(
        "chart template edits: {edits} in {:.1} s; edit to diagnostics: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        total.as_secs_f64(),
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.95).as_secs_f64() * 1e3,
        latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1e3)
    );
}
