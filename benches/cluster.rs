//! `ownerlint cluster` on a generated cluster of 100,000 objects in 2,000 namespaces, served by
//! the tests' HTTPS API server (`tests/it/api_server.rs`) as the recorded 1.36 server answers:
//! its discovery, every listable resource (empty where nothing is generated), pages of 500
//! through continue tokens, metadata only when asked for it, and each object by a GET. Beside it,
//! the same cluster read as users dump it, `kubectl get … -A -o yaml | ownerlint -` (kubectl
//! from PATH, against the same server), and the dump alone.
//!
//! Each namespace holds a Namespace, a Deployment, its ReplicaSet, 8 Pods, 20 ConfigMaps (2
//! owned by the Deployment, each with 1.5 KB of data), 11 Secrets (1 KB of data), 4 Services
//! and 4 ServiceAccounts: 50 objects. Every 100th namespace has a ConfigMap whose owner's uid is
//! stale (20 `owner-uid-mismatch` findings, each confirmed by GETs).
//!
//! For each way: wall time, requests sent, peak RSS (GNU time's `%M`, when `/usr/bin/time` is
//! installed) and the findings; the fastest of `OWNERLINT_BENCH_ROUNDS` rounds (default 3), in
//! which each way runs once. `cargo bench --bench cluster`; with `OWNERLINT_BENCH_SERVE=1` it
//! only serves the cluster, for ten minutes, and prints the kubeconfig that reads it.

#[allow(dead_code)]
#[path = "../tests/it/api_server.rs"]
mod api_server;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

use api_server::{Answers, ApiServer, TOKEN};

const NAMESPACES: usize = 2_000;
const PAGE: usize = 500;

fn uid(n: usize) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

fn meta(name: &str, namespace: Option<&str>, n: usize, owners: Value) -> Value {
    let mut metadata = json!({
        "name": name,
        "uid": uid(n),
        "resourceVersion": n.to_string(),
        "creationTimestamp": "2026-11-01T00:00:00Z",
        "labels": {"app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop"},
        "annotations": {"example.com/owner-team": "payments"},
    });
    if let Some(namespace) = namespace {
        metadata["namespace"] = json!(namespace);
    }
    if owners.as_array().is_some_and(|o| !o.is_empty()) {
        metadata["ownerReferences"] = owners;
    }
    metadata
}

fn owner(kind: &str, api_version: &str, name: &str, uid: &str, controller: bool) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
           "controller": controller, "blockOwnerDeletion": controller})
}

/// The generated objects, by list path (`/api/v1/pods`), with their list's kind and apiVersion.
fn generate() -> Vec<(String, String, String, Vec<Value>)> {
    let mut by_list: HashMap<&str, Vec<Value>> = HashMap::new();
    let mut n = 0;
    let mut next = || {
        n += 1;
        n
    };
    let blob = |size: usize| "x".repeat(size);
    let template = json!({
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "registry.example.com/shop/web:1.2.3",
                 "ports": [{"containerPort": 8080}], "resources": {"requests": {"cpu": "100m"}}}]}
    });
    for i in 0..NAMESPACES {
        let ns = format!("team-{i:04}");
        let ns = ns.as_str();
        by_list.entry("/api/v1/namespaces").or_default().push(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": meta(ns, None, next(), json!([])),
                   "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}),
        );
        let deployment_uid = uid(next());
        let mut deployment_meta = meta("web", Some(ns), 0, json!([]));
        deployment_meta["uid"] = json!(deployment_uid);
        by_list.entry("/apis/apps/v1/deployments").or_default().push(json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": deployment_meta,
            "spec": {"replicas": 8, "selector": {"matchLabels": {"app": "web"}}, "template": template},
            "status": {"replicas": 8, "readyReplicas": 8}
        }));
        let rs_name = "web-5d8f7c9b4";
        let rs_uid = uid(next());
        let mut rs_meta = meta(
            rs_name,
            Some(ns),
            0,
            json!([owner("Deployment", "apps/v1", "web", &deployment_uid, true)]),
        );
        rs_meta["uid"] = json!(rs_uid);
        rs_meta["labels"] = json!({"app": "web", "pod-template-hash": "5d8f7c9b4"});
        by_list.entry("/apis/apps/v1/replicasets").or_default().push(json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": rs_meta,
            "spec": {"replicas": 8, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "5d8f7c9b4"}},
                     "template": template},
            "status": {"replicas": 8}
        }));
        for p in 0..8 {
            let mut pod_meta = meta(
                &format!("{rs_name}-p{p:03}"),
                Some(ns),
                next(),
                json!([owner("ReplicaSet", "apps/v1", rs_name, &rs_uid, true)]),
            );
            pod_meta["labels"] = json!({"app": "web", "pod-template-hash": "5d8f7c9b4"});
            by_list.entry("/api/v1/pods").or_default().push(json!({
                "apiVersion": "v1", "kind": "Pod", "metadata": pod_meta,
                "spec": template["spec"], "status": {"phase": "Running", "podIP": "10.0.0.1"}
            }));
        }
        for c in 0..20 {
            let owners = match c {
                0 | 1 => json!([owner(
                    "Deployment",
                    "apps/v1",
                    "web",
                    &deployment_uid,
                    false
                )]),
                // A stale uid: the Deployment was recreated.
                2 if i % 100 == 0 => json!([owner("Deployment", "apps/v1", "web", &uid(0), false)]),
                _ => json!([]),
            };
            by_list
                .entry("/api/v1/configmaps")
                .or_default()
                .push(json!({
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": meta(&format!("settings-{c:02}"), Some(ns), next(), owners),
                    "data": {"application.properties": blob(1_500)}
                }));
        }
        for s in 0..11 {
            by_list.entry("/api/v1/secrets").or_default().push(json!({
                "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                "metadata": meta(&format!("credentials-{s:02}"), Some(ns), next(), json!([])),
                "data": {"token": blob(1_000)}
            }));
        }
        for v in 0..4 {
            by_list.entry("/api/v1/services").or_default().push(json!({
                "apiVersion": "v1", "kind": "Service",
                "metadata": meta(&format!("web-{v}"), Some(ns), next(), json!([])),
                "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}
            }));
            by_list
                .entry("/api/v1/serviceaccounts")
                .or_default()
                .push(json!({
                    "apiVersion": "v1", "kind": "ServiceAccount",
                    "metadata": meta(&format!("runner-{v}"), Some(ns), next(), json!([]))
                }));
        }
    }
    let mut lists: Vec<(String, String, String, Vec<Value>)> = by_list
        .into_iter()
        .map(|(path, items)| {
            let kind = items[0]["kind"].as_str().unwrap_or("").to_string();
            let api_version = items[0]["apiVersion"].as_str().unwrap_or("").to_string();
            (path.to_string(), format!("{kind}List"), api_version, items)
        })
        .collect();
    lists.sort_by(|a, b| a.0.cmp(&b.0));
    lists
}

/// The answers: the recorded server's `/version` and discovery, an empty list for every
/// listable resource it names, and the generated lists in pages, whole and as metadata only;
/// each generated object alone too.
fn answers() -> (Answers, usize, usize) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/live/cluster-exchanges.json"
    );
    let exchanges: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the recording")).expect("JSON");
    let mut answers = Answers::new();
    for exchange in &exchanges {
        let asked = exchange["request"]["path"].as_str().unwrap_or("");
        let body = &exchange["response"]["body"];
        if matches!(asked, "/version" | "/api" | "/apis") {
            answers.insert((asked.to_string(), String::new()), (200, body.to_string()));
        }
        // Every other list answers empty: the generated cluster holds only what is generated.
        if let Some(list_path) = asked.strip_suffix("?limit=100") {
            let empty = json!({"kind": body["kind"], "apiVersion": body["apiVersion"],
                               "metadata": {"resourceVersion": "1"}, "items": []});
            answers.insert(
                (list_path.to_string(), String::new()),
                (200, empty.to_string()),
            );
        }
    }
    let (mut whole_bytes, mut metadata_bytes) = (0, 0);
    for (list_path, kind, api_version, items) in generate() {
        let pages: Vec<&[Value]> = items.chunks(PAGE).collect();
        for (at, page) in pages.iter().enumerate() {
            let token = if at == 0 {
                String::new()
            } else {
                format!("page-{at}")
            };
            let next = if at + 1 < pages.len() {
                format!("page-{}", at + 1)
            } else {
                String::new()
            };
            let whole = json!({"kind": kind, "apiVersion": api_version,
                               "metadata": {"resourceVersion": "1", "continue": next}, "items": page});
            let metadata: Vec<Value> = page
                .iter()
                .map(|item| {
                    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                   "metadata": item["metadata"]})
                })
                .collect();
            let metadata = json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                                  "metadata": {"resourceVersion": "1", "continue": next}, "items": metadata});
            for (object_path, object) in api_server::objects_of(&list_path, &whole) {
                answers.insert((object_path, String::new()), (200, object.to_string()));
            }
            let (whole, metadata) = (whole.to_string(), metadata.to_string());
            whole_bytes += whole.len();
            metadata_bytes += metadata.len();
            answers.insert((list_path.clone(), token.clone()), (200, whole));
            answers.insert((format!("{list_path}#metadata"), token), (200, metadata));
        }
    }
    (answers, whole_bytes, metadata_bytes)
}

/// One run: wall time, peak RSS in KiB (GNU time), and what it printed on standard error.
struct Measured {
    seconds: f64,
    rss_kib: Option<u64>,
    stderr: String,
}

fn timed(mut command: Command) -> Measured {
    let started = Instant::now();
    let out = command.output().expect("it runs");
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let rss_kib = stderr
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .next_back();
    Measured {
        seconds,
        rss_kib,
        stderr,
    }
}

fn with_time(program: &str) -> Command {
    if Path::new("/usr/bin/time").exists() {
        let mut command = Command::new("/usr/bin/time");
        command.args(["-f", "%M", program]);
        command
    } else {
        Command::new(program)
    }
}

fn main() {
    let rounds: usize = std::env::var("OWNERLINT_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let (answers, whole_bytes, metadata_bytes) = answers();
    let server = ApiServer::serving(answers, Box::new(|_, _| None));
    let dir = std::env::temp_dir().join(format!("ownerlint-bench-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let kubeconfig = server.kubeconfig(&dir, json!({ "token": TOKEN }));
    // To read the generated cluster by hand (profiling, a look at the output): serve it for
    // ten minutes.
    if std::env::var_os("OWNERLINT_BENCH_SERVE").is_some() {
        println!(
            "serving for 10 minutes: KUBECONFIG={}",
            kubeconfig.display()
        );
        std::thread::sleep(std::time::Duration::from_secs(600));
        return;
    }
    let binary = env!("CARGO_BIN_EXE_ownerlint");
    let kubectl = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("kubectl"))
            .find(|p| p.is_file())
    });
    let dump = dir.join("dump.yaml");
    let resources =
        "namespaces,deployments,replicasets,pods,configmaps,secrets,services,serviceaccounts";
    let mut best: HashMap<&str, (Measured, usize)> = HashMap::new();
    let mut keep = |name: &'static str, measured: Measured, requests: usize| {
        let better = best
            .get(name)
            .is_none_or(|(b, _)| measured.seconds < b.seconds);
        let rss = measured
            .rss_kib
            .max(best.get(name).and_then(|(b, _)| b.rss_kib));
        if better {
            best.insert(
                name,
                (
                    Measured {
                        rss_kib: rss,
                        ..measured
                    },
                    requests,
                ),
            );
        } else if let Some((b, _)) = best.get_mut(name) {
            b.rss_kib = rss;
        }
    };
    for _ in 0..rounds {
        let before = server.asked().len();
        let mut command = with_time(binary);
        command
            .args([
                "cluster",
                "--no-config",
                "--format",
                "short",
                "--kubeconfig",
            ])
            .arg(&kubeconfig)
            .stdout(std::fs::File::create(dir.join("findings.txt")).expect("a file"));
        let measured = timed(command);
        assert!(
            measured.stderr.contains("100,000 objects")
                || measured.stderr.contains("100000 objects"),
            "{}",
            measured.stderr
        );
        keep("ownerlint cluster", measured, server.asked().len() - before);
        let Some(kubectl) = &kubectl else { continue };
        let before = server.asked().len();
        let mut command = with_time(kubectl.to_str().expect("UTF-8"));
        command
            .args(["get", resources, "-A", "-o", "yaml", "--kubeconfig"])
            .arg(&kubeconfig)
            .arg("--cache-dir")
            .arg(dir.join("kubectl-cache"))
            .stdout(std::fs::File::create(&dump).expect("the dump"));
        let measured = timed(command);
        assert!(
            std::fs::metadata(&dump).is_ok_and(|m| m.len() > 0),
            "kubectl read nothing: {}",
            measured.stderr
        );
        keep(
            "kubectl get -A -o yaml",
            measured,
            server.asked().len() - before,
        );
        let mut command = with_time(binary);
        command
            .args(["--no-config", "--format", "short", "--complete", "-"])
            .stdin(std::fs::File::open(&dump).expect("the dump"))
            .stdout(Stdio::null());
        keep("ownerlint - (of that dump)", timed(command), 0);
    }
    let findings = |stderr: &str| {
        stderr
            .lines()
            .find(|l| l.starts_with("ownerlint: ") && l.contains(" objects "))
            .unwrap_or("")
            .to_string()
    };
    println!(
        "Served: {:.1} MB of whole lists, {:.1} MB of the same as metadata only.\n",
        whole_bytes as f64 / 1e6,
        metadata_bytes as f64 / 1e6
    );
    println!("| way | wall s | requests | peak RSS MB | summary |");
    println!("|---|---:|---:|---:|---|");
    for name in [
        "ownerlint cluster",
        "kubectl get -A -o yaml",
        "ownerlint - (of that dump)",
    ] {
        let Some((m, requests)) = best.get(name) else {
            continue;
        };
        println!(
            "| {name} | {:.2} | {} | {} | {} |",
            m.seconds,
            if *requests > 0 {
                requests.to_string()
            } else {
                "—".into()
            },
            m.rss_kib
                .map_or("—".into(), |k| format!("{:.0}", k as f64 / 1024.0)),
            findings(&m.stderr)
        );
    }
    match std::fs::metadata(&dump) {
        Ok(meta) => println!(
            "\nThe dump kubectl wrote: {:.1} MB of YAML.",
            meta.len() as f64 / 1e6
        ),
        Err(_) => println!("\n(kubectl is not on PATH: the dump was not measured)"),
    }
    if std::env::var_os("OWNERLINT_BENCH_KEEP").is_some() {
        println!("\nkept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
