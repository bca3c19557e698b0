//! `ownerlint cluster` views of the recorded cluster beyond the lint: `tree` and
//! `delete-preview` read live, one namespace with `-n`, the progress line, suppression and
//! baselines, and legacy discovery. The helpers are `cluster_live`'s.

use serde_json::{Value, json};

use crate::api_server::{ApiServer, Reply};
use crate::cluster_live::{
    assert_only_gets, cluster, findings, recorded, recorded_page, token_user,
};
use crate::cluster_snapshot::true_of_the_recorded_cluster;
use crate::common;

/// `tree` and `delete-preview` with `--cluster` draw what is running, read as `ownerlint
/// cluster` reads it (GET requests only), before anything is deleted.
#[test]
fn tree_and_delete_preview_read_the_live_cluster() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-tree");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let live = |args: &[&str]| {
        common::ownerlint()
            .args(args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["--no-config", "-n", "fp-shop"])
            .run()
    };
    let run = live(&["tree", "--cluster", "deploy/api"]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Deployment fp-shop/api\n\
         └── ReplicaSet fp-shop/api-58c789b784  [controller, blocks owner deletion]\n    \
         └── Pod fp-shop/api-58c789b784-xmnlp  [controller, blocks owner deletion]\n"
    );
    assert!(
        run.stderr
            .starts_with("ownerlint: 621 objects of 60 resources read from context test"),
        "{}",
        run.stderr
    );
    // `TYPE NAME`, as kubectl-tree takes it too.
    let kind_name = live(&["tree", "--cluster", "deploy", "api"]);
    assert_eq!(kind_name.status.code(), Some(0), "{}", kind_name.stderr);
    assert_eq!(kind_name.stdout, run.stdout);
    let run = live(&[
        "delete-preview",
        "--cluster",
        "deploy/api",
        "--cascade",
        "orphan",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Deleting Deployment fp-shop/api (cascade: orphan)\n\nDeleted (1):\n  - Deployment fp-shop/api\n\n\
         Survive, losing a reference:\n  - ReplicaSet fp-shop/api-58c789b784 (no longer owned by Deployment fp-shop/api)\n"
    );
    assert_only_gets(&server.asked());
    // `--context` names a kubeconfig context only where a cluster is read.
    let run = common::ownerlint()
        .args(["tree", "--context", "test", "examples/"])
        .run();
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stderr.contains("objects that already exist (a dump of the target cluster) are passed with `--existing PATH`"), "{}", run.stderr);
}

/// On a terminal, standard error shows how far the read is, on one line that is cleared before
/// the summary; nothing of it when standard error is not a terminal.
#[test]
fn a_progress_line_is_shown_on_a_terminal_only() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-progress");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "short"]);
    assert!(!run.stderr.contains("reading"), "{}", run.stderr);
    let Some(script) = common::require_tool("script", "util-linux: apt-get install bsdutils")
    else {
        return;
    };
    let binary = env!("CARGO_BIN_EXE_ownerlint");
    let path = kubeconfig.to_str().expect("UTF-8");
    assert!(!binary.contains('\'') && !path.contains('\''));
    let command = format!(
        "'{binary}' cluster --kubeconfig '{path}' --no-config --format short 2>&1 >/dev/null"
    );
    let out = std::process::Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .env_remove("KUBECONFIG")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script runs");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("\rownerlint: reading test: 60/60 resources, 621 objects\r\u{1b}[2Kownerlint: 621 objects of 60 resources read from context test"),
        "{shown:?}"
    );
}

/// `-n` reads one namespace: its findings, and one warning for the cluster-scoped resources it
/// leaves out.
#[test]
fn one_namespace_is_read_with_n() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-namespace");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json", "-n", "lkc-lower"]);
    assert_eq!(
        findings(&run),
        ["error owner-kind-lowercase Pod lkc-lower/web-5d8f7-x2k9p"],
        "{}",
        run.stderr
    );
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("ownerlint: warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(
        warnings[0].starts_with("ownerlint: warning: 29 resources were not read: cluster-scoped, and -n lkc-lower reads one namespace (componentstatuses/v1, namespaces/v1, nodes/v1,"),
        "{}",
        warnings[0]
    );
    assert!(
        run.stderr.contains(", namespace lkc-lower in "),
        "{}",
        run.stderr
    );
    // Every list asked is that namespace's.
    for asked in server.asked() {
        let path = asked.resource_path();
        assert!(
            !path.ends_with("/pods") || path.contains("/namespaces/lkc-lower/"),
            "{path}"
        );
    }
}

/// What files get, a cluster gets: an `ownerlint.dev/ignore` annotation on the object
/// suppresses its finding, and a baseline hides what it recorded.
#[test]
fn annotations_suppress_and_a_baseline_hides_as_for_files() {
    // The Pod with the lower-case kind, annotated to ignore that rule.
    let server = ApiServer::start(Box::new(|asked, _| {
        if asked.resource_path() != "/api/v1/pods" {
            return None;
        }
        let mut page = recorded_page("/api/v1/pods?limit=100");
        for pod in page["items"].as_array_mut().expect("items") {
            if pod["metadata"]["namespace"] == "lkc-lower"
                && pod["metadata"]["name"] == "web-5d8f7-x2k9p"
            {
                pod["metadata"]["annotations"] =
                    json!({"ownerlint.dev/ignore": "owner-kind-lowercase"});
            }
        }
        Some(Reply::json(200, &page))
    }));
    let dir = common::temp_dir("cluster-suppress");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    let expected: Vec<String> = true_of_the_recorded_cluster()
        .into_iter()
        .filter(|f| !f.contains("owner-kind-lowercase"))
        .collect();
    assert_eq!(findings(&run), expected, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(report["summary"]["suppressed"], 1);

    // A baseline written from the cluster hides its findings the next time.
    let server = ApiServer::start(recorded());
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let baseline = dir.path().join("baseline.json");
    let baseline = baseline.to_str().expect("UTF-8");
    let run = cluster(&kubeconfig, &["--write-baseline", baseline]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    let run = cluster(&kubeconfig, &["--format", "json", "--baseline", baseline]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(findings(&run), Vec::<String>::new(), "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(report["summary"]["baselined"], 12);
}

/// A server without aggregated discovery (before Kubernetes 1.26, or with it turned off) is
/// discovered from the legacy documents, one group version at a time; a group version whose
/// document does not come (its aggregated API is down) is named, and its kinds are not checked.
#[test]
fn legacy_discovery_is_read_where_aggregated_discovery_is_not_served() {
    let read = |path: &str| -> Value {
        let path = format!("{}/testdata/{path}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).expect("recorded")).expect("JSON")
    };
    let (api, apis) = (
        read("live/discovery/legacy-api.json"),
        read("live/discovery/legacy-apis.json"),
    );
    let mut documents: std::collections::HashMap<String, Value> = [
        (
            "/api/v1".to_string(),
            read("live/discovery/legacy-api-v1.json"),
        ),
        (
            "/apis/apps/v1".to_string(),
            read("live/discovery/legacy-apis-apps-v1.json"),
        ),
    ]
    .into();
    // The other groups' `APIResourceList`s, as the same server's aggregated discovery lists
    // their resources.
    for group in read("discovery/apis.json")["items"]
        .as_array()
        .expect("items")
    {
        let name = group["metadata"]["name"].as_str().expect("a name");
        for version in group["versions"].as_array().expect("versions") {
            let group_version =
                format!("{name}/{}", version["version"].as_str().expect("a version"));
            let resources: Vec<Value> = version["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    json!({"name": r["resource"], "singularName": r["singularResource"],
                           "namespaced": r["scope"] == "Namespaced", "kind": r["responseKind"]["kind"],
                           "verbs": r["verbs"]})
                })
                .collect();
            documents
                .entry(format!("/apis/{group_version}"))
                .or_insert_with(|| {
                    json!({"kind": "APIResourceList", "apiVersion": "v1",
                       "groupVersion": group_version, "resources": resources})
                });
        }
    }
    let server = ApiServer::start(Box::new(move |asked, _| match asked.path.as_str() {
        "/api" => Some(Reply::json(200, &api)),
        "/apis" => Some(Reply::json(200, &apis)),
        // The aggregated API behind this group is down.
        "/apis/storage.k8s.io/v1" => Some(Reply::status(
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request",
        )),
        path => documents
            .get(path)
            .map(|document| Reply::json(200, document)),
    }));
    let dir = common::temp_dir("cluster-legacy");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    let asked = server.asked();
    assert!(
        asked.iter().any(|a| a.path == "/apis/apps/v1"),
        "{}",
        run.stderr
    );
    assert!(
        asked
            .iter()
            .any(|a| a.resource_path() == "/apis/apps/v1/replicasets"),
        "{}\n{:?}",
        run.stderr,
        asked.iter().map(|a| &a.path).collect::<Vec<_>>()
    );
    assert!(
        run.stderr
            .contains("ownerlint: warning: storage.k8s.io/v1 was not read: its discovery failed"),
        "{}",
        run.stderr
    );
    // Nothing of the cluster's findings is in storage.k8s.io: they are all found.
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    assert_only_gets(&asked);
}

/// `tree --cluster TYPE/NAME` looks the object up as kubectl does: in `-n`, else in the
/// kubeconfig context's namespace.
#[test]
fn tree_cluster_looks_in_the_contexts_namespace() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-context-namespace");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&kubeconfig).expect("read")).expect("JSON");
    config["contexts"][0]["context"]["namespace"] = json!("fp-shop");
    std::fs::write(&kubeconfig, config.to_string()).expect("write");
    let run = common::ownerlint()
        .args([
            "tree",
            "--cluster",
            "deploy/api",
            "--no-config",
            "--kubeconfig",
        ])
        .arg(&kubeconfig)
        .run();
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stdout.starts_with("Deployment fp-shop/api\n"),
        "{}",
        run.stdout
    );
}
