//! `ownerlint server`: from an edit to the diagnostics it changes. The workspace holds 5,000
//! objects in 500 files (`OWNERLINT_BENCH_FILES`, ten objects each); each file's ConfigMaps are
//! owned by the Deployments of the file before it. The benchmark starts the release binary as
//! an editor does (stdio, a client that takes pushed diagnostics), opens one file of owners,
//! and edits an owner's uid back and forth: each edit changes the diagnostics of the next file.
//! It prints the time from each edit to those diagnostics (p50, p95, max), and the server's
//! resident memory after the first and the last tenth of the edits, all from one run. Run with
//! `cargo bench --bench server` (`OWNERLINT_BENCH_EDITS`, default 200). Then a chart's template
//! is edited, unsaved, in a workspace of its own ([`chart_edits`]): each edit is a helm build.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

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
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(60))
                .expect("an answer");
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
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(60))
                .expect("diagnostics");
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
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/server-workspace");
    let _ = std::fs::remove_dir_all(&root);
    for file in 0..files {
        let dir = root.join(format!("team{}", file / 50));
        std::fs::create_dir_all(&dir).expect("workspace");
        std::fs::write(dir.join(format!("f{file:04}.yaml")), file_text(file, files))
            .expect("write");
    }
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
    let mut server = Server::start(&binary);
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
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("cores: {cores}");
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
    chart_edits(&binary);
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
