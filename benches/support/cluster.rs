//! A generated cluster for the benchmarks of `ownerlint cluster`, served by the tests' HTTPS API
//! server (`tests/it/api_server.rs`, which the crate that includes this has as `api_server`), and
//! the API server's floor: every list page of metadata only, read once, one after the other.
//!
//! Each namespace holds a Namespace, a Deployment, its ReplicaSet, 8 Pods, 20 ConfigMaps (2
//! owned by the Deployment, each with 1.5 KB of data), 11 Secrets (1 KB of data), 4 Services
//! and 4 ServiceAccounts: 50 objects. Every 100th namespace has a ConfigMap whose owner's uid is
//! stale (an `owner-uid-mismatch` finding, confirmed by GETs).

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api_server::{Answers, objects_of, selected};

/// Items per page, as ownerlint asks.
const PAGE: usize = 500;
/// What a list of metadata only is asked with (as ownerlint asks it).
const METADATA_LIST: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

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
fn generate(namespaces: usize) -> Vec<(String, String, String, Vec<Value>)> {
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
    for i in 0..namespaces {
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

/// A generated cluster as the server serves it.
pub(crate) struct Served {
    pub(crate) answers: Answers,
    /// Every list served (`/api/v1/pods`): those generated, and the empty ones.
    pub(crate) lists: Vec<String>,
    /// Bytes of the generated lists' pages, whole and as metadata only.
    pub(crate) whole_bytes: usize,
    pub(crate) metadata_bytes: usize,
    /// The objects each answer holds, by the key the answers have it under: what a real API
    /// server's cost is modelled by (`ServerCost`).
    pub(crate) objects: HashMap<(String, String), usize>,
    /// The objects of the metadata-only pages, which the floor reads.
    pub(crate) listed: usize,
}

/// What a real Kubernetes 1.36 API server spends on its side for each object it serves: its
/// floor for 30,480 objects (every metadata-only list page, one after the other) took 1.12 s,
/// 36.7 µs an object; this benchmark's in-process server spends next to nothing. A model, not
/// the real server: the same for an object answered whole or as metadata, for a page or for a
/// GET, and for any number of requests at once.
pub(crate) const REAL_SERVER_PER_OBJECT: Duration = Duration::from_nanos(1_120_000_000 / 30_480);

/// The answers for a cluster of `namespaces` namespaces of 50 objects each: the recorded
/// server's `/version` and discovery, an empty list for every listable resource it names, and
/// the generated lists in pages, whole and as metadata only; each generated object alone too.
pub(crate) fn serve(namespaces: usize) -> Served {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/live/cluster-exchanges.json"
    );
    let exchanges: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the recording")).expect("JSON");
    let mut answers = Answers::new();
    let mut objects = HashMap::new();
    let mut listed = 0;
    let mut lists = Vec::new();
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
            lists.push(list_path.to_string());
        }
    }
    let (mut whole_bytes, mut metadata_bytes) = (0, 0);
    for (list_path, kind, api_version, items) in generate(namespaces) {
        if !lists.contains(&list_path) {
            lists.push(list_path.clone());
        }
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
            for (object_path, object) in objects_of(&list_path, &whole) {
                objects.insert((object_path.clone(), String::new()), 1);
                answers.insert((object_path, String::new()), (200, object.to_string()));
            }
            objects.insert((list_path.clone(), token.clone()), page.len());
            objects.insert((format!("{list_path}#metadata"), token.clone()), page.len());
            listed += page.len();
            let (whole, metadata) = (whole.to_string(), metadata.to_string());
            whole_bytes += whole.len();
            metadata_bytes += metadata.len();
            answers.insert((list_path.clone(), token.clone()), (200, whole));
            answers.insert((format!("{list_path}#metadata"), token), (200, metadata));
        }
    }
    // The lists of finished Pods (a field selector on the phase), as metadata, made beforehand:
    // a real server filters its Pods for them, which its cost per object served models
    // (`ServerCost`), not the test server's parsing of the whole lists.
    for phase in ["Succeeded", "Failed"] {
        let selector = format!("status.phase={phase}");
        let answer = selected(&answers, "/api/v1/pods", &selector, true);
        let key = (
            format!("/api/v1/pods?fieldSelector={selector}#metadata"),
            String::new(),
        );
        // The server reads every Pod to select these: modelled as serving them all.
        objects.insert(key.clone(), namespaces * 8);
        answers.insert(key, answer);
    }
    Served {
        answers,
        lists,
        whole_bytes,
        metadata_bytes,
        objects,
        listed,
    }
}

/// The API server's floor: every list of `lists` read as metadata only, each page once, one
/// after the other, through the same client ownerlint reads with (kube-rs, TLS, kept-alive
/// connections). Returns the time and the pages read.
pub(crate) fn floor(kubeconfig: &Path, lists: &[String]) -> (Duration, usize) {
    use ownerlint::cluster::Connection;
    use ownerlint::cluster::connect::connect;
    use ownerlint::cluster::read::Reader;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let connection = Connection {
            kubeconfig: Some(kubeconfig.to_path_buf()),
            ..Connection::default()
        };
        let connected = connect(&connection).await.expect("connected");
        let reader = Reader::new(&connected);
        let started = Instant::now();
        let mut pages = 0;
        for list in lists {
            let mut token: Option<String> = None;
            loop {
                let path = match &token {
                    None => format!("{list}?limit={PAGE}"),
                    Some(token) => format!("{list}?limit={PAGE}&continue={token}"),
                };
                let answered = reader.get(&path, METADATA_LIST).await.expect("a page");
                assert!(answered.status.is_success(), "{path}: {}", answered.status);
                pages += 1;
                let page: Page = serde_json::from_str(&answered.body).expect("a list");
                match page.metadata.and_then(|m| m.next).filter(|t| !t.is_empty()) {
                    Some(next) => token = Some(next),
                    None => break,
                }
            }
        }
        (started.elapsed(), pages)
    })
}

/// What the floor reads of a page: its continue token (its items are read and skipped).
#[derive(serde::Deserialize)]
struct Page {
    metadata: Option<PageMetadata>,
}

#[derive(serde::Deserialize)]
struct PageMetadata {
    #[serde(rename = "continue")]
    next: Option<String>,
}
