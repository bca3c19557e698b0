//! `ownerlint cluster` against an HTTPS API server that answers as the recorded Kubernetes
//! 1.36.2 server did (`api_server.rs`): the findings true of that cluster, by every way of
//! authenticating; only GET requests; and each way a real server fails.

use std::path::Path;

use serde_json::{Value, json};

use crate::api_server::{ApiServer, Asked, OIDC_ID_TOKEN, Override, Reply, TOKEN, tls_file};
use crate::cluster_snapshot::true_of_the_recorded_cluster;
use crate::common::{self, Run};

/// The body of the recorded answer to `path`.
pub(crate) fn recorded_page(path: &str) -> Value {
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/live/cluster-exchanges.json"
    );
    let exchanges: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(recording).expect("recorded")).expect("JSON");
    exchanges
        .into_iter()
        .find(|e| e["request"]["path"] == path)
        .unwrap_or_else(|| panic!("{path} is recorded"))["response"]["body"]
        .clone()
}

/// The recorded cluster with one more ConfigMap, `object` (its metadata): in the first page of
/// ConfigMaps, and answered by a GET of it.
pub(crate) fn with_configmap(
    object: Value,
) -> impl Fn(&Asked) -> Option<Reply> + Clone + Send + Sync + 'static {
    move |asked: &Asked| {
        let name = object["metadata"]["name"].as_str().unwrap_or("");
        let namespace = object["metadata"]["namespace"].as_str().unwrap_or("");
        if asked.path == format!("/api/v1/namespaces/{namespace}/configmaps/{name}") {
            let mut alone = object.clone();
            alone["apiVersion"] = json!("meta.k8s.io/v1");
            alone["kind"] = json!("PartialObjectMetadata");
            return Some(Reply::json(200, &alone));
        }
        if asked.resource_path() != "/api/v1/configmaps" || asked.query("continue").is_some() {
            return None;
        }
        let mut page = recorded_page("/api/v1/configmaps?limit=100");
        page["items"]
            .as_array_mut()
            .expect("items")
            .push(object.clone());
        Some(Reply::json(200, &page))
    }
}

pub(crate) fn token_user() -> Value {
    json!({ "token": TOKEN })
}

pub(crate) fn recorded() -> Override {
    Box::new(|_, _| None)
}

/// `ownerlint cluster` with this kubeconfig and these flags.
pub(crate) fn cluster(kubeconfig: &Path, args: &[&str]) -> Run {
    common::ownerlint()
        .arg("cluster")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--no-config")
        .args(args)
        .run()
}

/// Severity, rule and object of each finding of a JSON report, sorted.
pub(crate) fn findings(run: &Run) -> Vec<String> {
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    let mut found: Vec<String> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let o = &f["object"];
            format!(
                "{} {} {} {}/{}",
                f["severity"].as_str().unwrap_or(""),
                f["rule"].as_str().unwrap_or(""),
                o["kind"].as_str().unwrap_or(""),
                o["namespace"].as_str().unwrap_or(""),
                o["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    found.sort();
    found
}

pub(crate) fn assert_only_gets(asked: &[Asked]) {
    assert!(!asked.is_empty());
    for request in asked {
        assert_eq!(request.method, "GET", "{request:?}");
    }
}

#[test]
fn the_recorded_cluster_gets_exactly_the_findings_true_of_it_with_a_token() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-token");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    let asked = server.asked();
    assert_only_gets(&asked);
    assert!(asked.iter().all(|a| a.auth == "token"), "{asked:?}");
    // Lists ask for metadata only but where a rule reads more of the kind.
    let accept_of = |path: &str| {
        asked
            .iter()
            .find(|a| a.resource_path() == path)
            .map(|a| a.accept.clone())
            .unwrap_or_else(|| panic!("{path} was not asked"))
    };
    assert!(
        accept_of("/api/v1/configmaps")
            .starts_with("application/json;as=PartialObjectMetadataList")
    );
    assert_eq!(accept_of("/apis/apps/v1/replicasets"), "application/json");
    // Pods too, their phase read with two more lists of metadata, of the finished ones.
    assert!(accept_of("/api/v1/pods").starts_with("application/json;as=PartialObjectMetadataList"));
    let mut pods: Vec<&str> = asked
        .iter()
        .filter(|a| a.resource_path() == "/api/v1/pods")
        .map(|a| a.path.as_str())
        .collect();
    pods.sort_unstable();
    assert_eq!(
        pods,
        [
            "/api/v1/pods?limit=500",
            "/api/v1/pods?limit=500&fieldSelector=status.phase=Failed",
            "/api/v1/pods?limit=500&fieldSelector=status.phase=Succeeded",
        ]
    );
    assert!(accept_of("/apis").contains("as=APIGroupDiscoveryList"));
    // The summary names the cluster and what was read.
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let summary = &report["summary"]["cluster"];
    assert_eq!(summary["context"], "test");
    assert_eq!(summary["resources"], 60, "{summary}");
    assert_eq!(summary["not_read"], json!([]));
    assert!(
        run.stderr
            .contains("ownerlint: 621 objects of 60 resources read from context test"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_client_certificate_an_exec_plugin_and_oidc_authenticate_too() {
    let dir = common::temp_dir("cluster-auth");
    let server = ApiServer::start(recorded());
    let certificate = server.kubeconfig(
        dir.path(),
        json!({
            "client-certificate": tls_file("client.crt"),
            "client-key": tls_file("client.key"),
        }),
    );
    let run = cluster(&certificate, &["--format", "json"]);
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    assert!(
        server
            .asked()
            .iter()
            .all(|a| a.auth == "client-certificate")
    );

    // An exec credential plugin (as the EKS, GKE and AKS helpers are): a script that prints
    // an ExecCredential with the token.
    let server = ApiServer::start(recorded());
    let plugin = dir.path().join("credential-plugin");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{TOKEN}\"}}}}'\n"
        ),
    )
    .expect("write the plugin");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let exec = server.kubeconfig(
        dir.path(),
        json!({"exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": plugin,
            "interactiveMode": "Never",
        }}),
    );
    let run = cluster(&exec, &["--format", "json"]);
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    assert!(server.asked().iter().all(|a| a.auth == "token"));

    // OIDC: the kubeconfig's `auth-provider` ID token, which has not expired, as the bearer
    // token (an expired one would be refreshed from the issuer first).
    let server = ApiServer::start(recorded());
    let oidc = server.kubeconfig(
        dir.path(),
        json!({"auth-provider": {"name": "oidc", "config": {
            "id-token": OIDC_ID_TOKEN,
            "idp-issuer-url": "https://127.0.0.1:9/issuer",
            "client-id": "kubernetes",
        }}}),
    );
    let run = cluster(&oidc, &["--format", "json"]);
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    assert!(server.asked().iter().all(|a| a.auth == "oidc"));
}

#[test]
fn what_is_saved_reads_back_with_the_same_findings_at_file_lines() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-save");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let saved = dir.path().join("snapshot");
    let run = cluster(
        &kubeconfig,
        &["--format", "json", "--save", saved.to_str().expect("UTF-8")],
    );
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    let again = common::ownerlint()
        .arg(&saved)
        .args(["--no-config", "--complete", "--format", "json"])
        .run();
    assert_eq!(
        findings(&again),
        true_of_the_recorded_cluster(),
        "{}",
        again.stderr
    );
    let report: Value = serde_json::from_str(&again.stdout).expect("JSON");
    let file = report["findings"][0]["path"].as_str().expect("a file");
    assert!(file.ends_with(".json"), "{file}");
}

#[test]
fn a_finding_in_a_cluster_names_the_object_its_field_and_shows_it_as_yaml() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-where");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let object = "/api/v1/namespaces/lkc-lower/pods/web-5d8f7-x2k9p";
    let location = format!("{object}#metadata.ownerReferences[0].kind");
    // short: the object's API path and the field, where a file has line and column.
    let run = cluster(&kubeconfig, &["--format", "short"]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("owner-kind-lowercase"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        line.starts_with(&format!("{location}: error[owner-kind-lowercase]: Pod lkc-lower/web-5d8f7-x2k9p → replicaset lkc-lower/web-5d8f7:")),
        "{line}"
    );
    // pretty: the object as `kubectl get -o yaml` writes it, among its namespace's, with the
    // span; where it is in the cluster; and the fix as the `kubectl patch` that makes it, in
    // this context.
    let run = cluster(&kubeconfig, &["--format", "pretty", "--color", "never"]);
    assert!(
        run.stdout.contains("╭─[namespace lkc-lower:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("\n  in the cluster: {location}\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("    kind: replicaset\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(r#"    kubectl patch pod web-5d8f7-x2k9p -n fxu-before --type=json -p '[{"op":"test","path":"/metadata/ownerReferences/0/apiVersion","value":"extensions/v1beta1"},{"op":"replace","path":"/metadata/ownerReferences/0/apiVersion","value":"apps/v1"}]' --context=test"#),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("ownerlint: 3 fixable in the cluster with the `kubectl patch` that --format pretty (or json) shows"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("--fix"), "{}", run.stderr);
    // json: the path and the field apart, and the cluster in the summary.
    let run = cluster(&kubeconfig, &["--format", "json"]);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let lowercase = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "owner-kind-lowercase")
        .expect("the lower-case kind");
    assert_eq!(lowercase["field"], "metadata.ownerReferences[0].kind");
    assert_eq!(lowercase["path"], object);
    assert_eq!(report["summary"]["cluster"]["context"], "test");
    // SARIF: logical locations only (no file to point at), valid SARIF, the context in the
    // run's properties.
    let run = cluster(&kubeconfig, &["--format", "sarif"]);
    let sarif: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(common::sarif_schema_errors(&sarif), Vec::<String>::new());
    let result = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "owner-kind-lowercase")
        .expect("the lower-case kind");
    assert_eq!(
        result["locations"],
        json!([{"logicalLocations": [{"name": "metadata.ownerReferences[0].kind", "fullyQualifiedName": location, "kind": "property"}]}])
    );
    assert_eq!(sarif["runs"][0]["properties"]["kubeconfigContext"], "test");
    // github: an annotation of the run, not of a file.
    let run = cluster(&kubeconfig, &["--format", "github"]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("owner-kind-lowercase"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        line.starts_with(&format!(
            "::error title=ownerlint owner-kind-lowercase::{location}: Pod lkc-lower/"
        )),
        "{line}"
    );
    // markdown: the location in the table, the context in the heading line.
    let run = cluster(&kubeconfig, &["--format", "markdown"]);
    assert!(
        run.stdout.contains(&format!(
            "| error | `{location}` | `owner-kind-lowercase` |"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!("**9 errors, 2 warnings, 1 info** in 621 objects read from context `test` (https://127.0.0.1:{}), with 84 owner references and 6 finalizers checked.", server.port)),
        "{}",
        run.stdout
    );
}

/// A list the server refuses (403) is one warning naming it, and references to its kind are
/// "could not be checked", never "not found".
#[test]
fn a_forbidden_resource_is_named_and_references_to_it_are_not_checked() {
    let server = ApiServer::start(Box::new(|asked, _| {
        (asked.resource_path() == "/apis/apps/v1/replicasets").then(|| {
            Reply::status(
                403,
                "Forbidden",
                "replicasets.apps is forbidden: User \"u\" cannot list resource \"replicasets\" in API group \"apps\" at the cluster scope",
            )
        })
    }));
    let dir = common::temp_dir("cluster-403");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert!(
        run.stderr.contains("ownerlint: warning: replicasets.apps/v1 was not read: 403 Forbidden: replicasets.apps is forbidden"),
        "{}",
        run.stderr
    );
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let not_found: Vec<&Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "owner-not-found")
        .collect();
    assert!(!not_found.is_empty(), "{}\n{}", run.stdout, run.stderr);
    for finding in not_found {
        assert_eq!(finding["severity"], "info", "{finding}");
        let message = finding["message"].as_str().unwrap_or("");
        assert!(
            message
                .contains("could not be checked: replicasets.apps/v1 was not read: 403 Forbidden"),
            "{message}"
        );
    }
    assert_eq!(
        report["summary"]["cluster"]["not_read"][0][0],
        "replicasets.apps/v1"
    );
}

/// 410 Expired in the middle of a list starts it again; 429 with Retry-After is waited for;
/// the findings are the same.
#[test]
fn an_expired_continue_token_and_too_many_requests_are_recovered_from() {
    let server = ApiServer::start(Box::new(|asked, _| {
        static EXPIRED: std::sync::Once = std::sync::Once::new();
        static THROTTLED: std::sync::Once = std::sync::Once::new();
        let mut reply = None;
        if asked.resource_path() == "/api/v1/configmaps" && asked.query("continue").is_some() {
            EXPIRED.call_once(|| {
                reply = Some(Reply::status(410, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."));
            });
        }
        if asked.resource_path() == "/api/v1/pods" && asked.query("fieldSelector").is_none() {
            THROTTLED.call_once(|| {
                reply = Some(Reply::Answer {
                    status: 429,
                    body: json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "TooManyRequests", "message": "Too many requests, please try again later.", "code": 429}).to_string(),
                    headers: vec![("Retry-After".into(), "1".into())],
                });
            });
        }
        reply
    }));
    let dir = common::temp_dir("cluster-retry");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    let asked = server.asked();
    let first_pages = |path: &str| {
        asked
            .iter()
            .filter(|a| a.resource_path() == path && a.query("continue").is_none())
            .filter(|a| a.query("fieldSelector").is_none())
            .count()
    };
    assert_eq!(
        first_pages("/api/v1/configmaps"),
        2,
        "the list started again"
    );
    assert_eq!(first_pages("/api/v1/pods"), 2, "the request was sent again");
    assert!(!run.stderr.contains("not read"), "{}", run.stderr);
}

/// A group whose discovery failed (an aggregated API whose server is down) is named, and its
/// kinds are not checked.
#[test]
fn a_group_whose_discovery_failed_is_named() {
    let server = ApiServer::start(Box::new(|asked, _| {
        if asked.path != "/apis" {
            return None;
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/discovery/apis.json");
        let mut apis: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("recorded")).expect("JSON");
        apis["items"].as_array_mut().expect("items").push(json!({
            "metadata": {"name": "metrics.k8s.io"},
            "versions": [{"version": "v1beta1", "freshness": "Stale"}]
        }));
        Some(Reply::json(200, &apis))
    }));
    let dir = common::temp_dir("cluster-stale");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert!(
        run.stderr.contains(
            "ownerlint: warning: metrics.k8s.io/v1beta1 was not read: its discovery failed"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(findings(&run), true_of_the_recorded_cluster());
}

/// A dependent listed with an owner the list does not hold is checked again with GETs before
/// it is reported, as the garbage collector checks before it deletes.
#[test]
fn a_dangling_reference_is_confirmed_by_a_get_before_it_is_reported() {
    let orphan = json!({
        "metadata": {
            "name": "orphan", "namespace": "default", "uid": "00000000-0000-4000-8000-00000000000a",
            "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "late",
                                 "uid": "00000000-0000-4000-8000-00000000000b"}]
        }
    });
    let late = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "late", "namespace": "default", "uid": "00000000-0000-4000-8000-00000000000b",
                     "resourceVersion": "2", "creationTimestamp": "2026-01-01T00:00:01Z"},
        "spec": {"selector": {"matchLabels": {"app": "late"}},
                 "template": {"metadata": {"labels": {"app": "late"}}}}
    });
    // The first page of ConfigMaps holds the orphan too, and a GET of it answers it.
    let with_orphan = with_configmap(orphan);
    let dir = common::temp_dir("cluster-confirm");
    let not_found = |run: &Run| -> Vec<String> {
        findings(run)
            .into_iter()
            .filter(|f| f.contains("ConfigMap default/orphan"))
            .collect()
    };

    // The owner is gone: confirmed, and an error (the cluster was read whole).
    let server = ApiServer::start(Box::new({
        let with_orphan = with_orphan.clone();
        move |asked, _| with_orphan(asked)
    }));
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(
        not_found(&run),
        ["error owner-not-found ConfigMap default/orphan"],
        "{}",
        run.stderr
    );
    // Sent at once, in any order.
    let mut gets: Vec<String> = server
        .asked()
        .iter()
        .filter(|a| !a.path.contains('?') && a.path.contains("/namespaces/default/"))
        .map(|a| a.path.clone())
        .collect();
    gets.sort();
    assert_eq!(
        gets,
        [
            "/api/v1/namespaces/default/configmaps/orphan",
            "/apis/apps/v1/namespaces/default/deployments/late"
        ]
    );

    // The owner was created after its list: no finding.
    let server = ApiServer::start(Box::new({
        let (with_orphan, late) = (with_orphan.clone(), late.clone());
        move |asked, _| {
            if asked.path == "/apis/apps/v1/namespaces/default/deployments/late" {
                return Some(Reply::json(200, &late));
            }
            with_orphan(asked)
        }
    }));
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(not_found(&run), Vec::<String>::new(), "{}", run.stderr);

    // The dependent was deleted after its list: no finding.
    let server = ApiServer::start(Box::new(move |asked, _| {
        if asked.path == "/api/v1/namespaces/default/configmaps/orphan" {
            return Some(Reply::status(
                404,
                "NotFound",
                "configmaps \"orphan\" not found",
            ));
        }
        with_orphan(asked)
    }));
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(not_found(&run), Vec::<String>::new(), "{}", run.stderr);
    assert_eq!(findings(&run), true_of_the_recorded_cluster());
}

#[test]
fn a_server_that_stops_answering_ends_the_run_with_exit_2() {
    let server = ApiServer::start(Box::new(|asked, _| {
        (asked.resource_path() == "/api/v1/pods").then_some(Reply::Hang)
    }));
    let dir = common::temp_dir("cluster-hang");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--request-timeout", "1s"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "ownerlint: the API server at https://127.0.0.1:{} stopped answering: no answer to GET /api/v1/pods?limit=500 within 1 s (--request-timeout)",
            server.port
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn no_server_wrong_credentials_and_a_missing_context_end_the_run_with_one_line() {
    let dir = common::temp_dir("cluster-fail");
    // Credentials the server does not accept.
    let server = ApiServer::start(recorded());
    let kubeconfig = server.kubeconfig(dir.path(), json!({"token": "expired"}));
    let run = cluster(&kubeconfig, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: the API server at https://127.0.0.1:{} did not accept the credentials (401 Unauthorized: Unauthorized): log in again or refresh the kubeconfig's token\n",
            server.port
        )
    );
    // A context the kubeconfig does not have.
    let run = cluster(&kubeconfig, &["--context", "prod"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        run.stderr.starts_with(&format!(
            "ownerlint: {} has no context `prod` (it has test)",
            kubeconfig.display()
        )),
        "{}",
        run.stderr
    );
    // No server.
    let port = server.port;
    drop(server);
    let run = cluster(&kubeconfig, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        run.stderr.starts_with(&format!(
            "ownerlint: cannot connect to https://127.0.0.1:{port} (context test): connection refused"
        )),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

/// `--request-timeout 0` is no limit, as kubectl's; `-n` naming no namespace, and `--save`
/// into a folder that holds files, end the run before anything is listed.
#[test]
fn no_limit_a_namespace_that_is_not_there_and_a_used_folder() {
    let server = ApiServer::start(recorded());
    let dir = common::temp_dir("cluster-flags");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json", "--request-timeout", "0"]);
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );

    let run = cluster(&kubeconfig, &["-n", "shpo"]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: the API server at https://127.0.0.1:{} has no namespace `shpo` (-n): `kubectl get namespaces` lists them\n",
            server.port
        )
    );

    let used = dir.path().join("used");
    std::fs::create_dir_all(&used).expect("mkdir");
    std::fs::write(used.join("cluster-scoped.json"), "{}").expect("write");
    let before = server.asked().len();
    let run = cluster(&kubeconfig, &["--save", used.to_str().expect("UTF-8")]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        run.stderr.contains("the folder is not empty"),
        "{}",
        run.stderr
    );
    assert_eq!(server.asked().len(), before, "nothing was asked");
}

/// An owner reference may name anything: its name is one escaped part of the confirming GET's
/// path, never a path of its own, and the reference is reported.
#[test]
fn an_owner_name_that_is_no_name_is_escaped_in_the_confirming_get() {
    let orphan = json!({
        "metadata": {
            "name": "odd", "namespace": "default", "uid": "00000000-0000-4000-8000-00000000000c",
            "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "../../secrets/x y",
                                 "uid": "00000000-0000-4000-8000-00000000000d"}]
        }
    });
    let with_odd = with_configmap(orphan);
    let server = ApiServer::start(Box::new(move |asked, _| with_odd(asked)));
    let dir = common::temp_dir("cluster-odd-name");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        findings(&run).contains(&"error owner-not-found ConfigMap default/odd".to_string()),
        "{}",
        run.stderr
    );
    // Sent at once, in any order.
    let mut gets: Vec<String> = server
        .asked()
        .iter()
        .filter(|a| a.path.starts_with("/api/v1/namespaces/default/configmaps/"))
        .map(|a| a.path.clone())
        .collect();
    gets.sort();
    // The test server decodes only queries: the path is as sent.
    assert_eq!(
        gets,
        [
            "/api/v1/namespaces/default/configmaps/..%2F..%2Fsecrets%2Fx%20y",
            "/api/v1/namespaces/default/configmaps/odd"
        ]
    );
}
