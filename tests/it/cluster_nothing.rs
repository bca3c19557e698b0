//! `ownerlint cluster` that reads nothing is no pass: every list refused (403, for a user who
//! may read one namespace and did not say `-n`), answered with a login page, or a server that
//! cannot be reached; an honestly empty namespace is said as such. What a saved snapshot could
//! not read stays not read when it is linted again; and each failure in the user's words.

use serde_json::{Value, json};

use crate::api_server::{ApiServer, Asked, Reply, tls_file};
use crate::cluster_live::{cluster, findings, token_user, with_configmap};
use crate::common::{self, Run};

/// A list request: a path with `?limit=`.
fn is_list(asked: &Asked) -> bool {
    asked.query("limit").is_some()
}

/// What a user bound to `view` in one namespace gets for a list across the cluster.
fn forbidden(asked: &Asked) -> Reply {
    let resource = asked
        .resource_path()
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_string();
    Reply::status(
        403,
        "Forbidden",
        &format!(
            "{resource} is forbidden: User \"viewer\" cannot list resource \"{resource}\" at the cluster scope"
        ),
    )
}

/// The login page of an authenticating proxy in front of the API server, answered with 200.
fn login_page() -> Reply {
    Reply::Answer {
        status: 200,
        body: "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form action=\"/oauth2/start\"><button>Sign in with SSO</button></form></body></html>\n".to_string(),
        headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
    }
}

fn assert_one_line_and_no_debug_text(run: &Run) {
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    for debug in ["ServiceError", "client error (", "'\"", "os error"] {
        assert!(!run.stderr.contains(debug), "{debug}: {}", run.stderr);
    }
}

#[test]
fn every_list_forbidden_across_the_cluster_is_exit_2_with_the_n_hint() {
    let server = ApiServer::start(Box::new(|asked, _| {
        is_list(asked).then(|| forbidden(asked))
    }));
    let dir = common::temp_dir("cluster-nothing-403");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert_eq!(run.stdout, "", "no report of a run that checked nothing");
    let said = format!(
        "ownerlint: nothing was checked: no object was read from context test (https://127.0.0.1:{}): none of its 60 lists could be read: ",
        server.port
    );
    assert!(run.stderr.starts_with(&said), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("and 59 more alike (403 Forbidden): a user who may read one namespace only passes -n NAMESPACE"),
        "{}",
        run.stderr
    );
    assert_one_line_and_no_debug_text(&run);
    // `tree` and `delete-preview` read the cluster the same way.
    let run = common::ownerlint()
        .args(["tree", "--cluster", "deploy/api", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg("--no-config")
        .run();
    assert_eq!(run.status.code(), Some(2), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("nothing was checked"), "{}", run.stderr);
}

#[test]
fn lists_answered_with_a_login_page_are_not_read() {
    // Every list.
    let server = ApiServer::start(Box::new(|asked, _| is_list(asked).then(login_page)));
    let dir = common::temp_dir("cluster-nothing-html");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "none of its 60 lists could be read: pods/v1: answered with an HTML page, not a Kubernetes list (a login page, or a proxy in front of the API server?), and 59 more alike"
        ) || run.stderr.contains(
            ": answered with an HTML page, not a Kubernetes list (a login page, or a proxy in front of the API server?), and 59 more alike"
        ),
        "{}",
        run.stderr
    );
    assert_one_line_and_no_debug_text(&run);

    // Discovery too.
    let server = ApiServer::start(Box::new(|asked, _| (asked.path == "/api").then(login_page)));
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "ownerlint: the API server at https://127.0.0.1:{} answered GET /api with an HTML page, not Kubernetes API discovery (a login page, or a proxy in front of the API server?)",
            server.port
        )),
        "{}",
        run.stderr
    );
    assert_one_line_and_no_debug_text(&run);

    // One list: a warning, and references to its kind are not checked, as after a 403.
    let server = ApiServer::start(Box::new(|asked, _| {
        (asked.resource_path() == "/apis/apps/v1/replicasets").then(login_page)
    }));
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "ownerlint: warning: replicasets.apps/v1 was not read: answered with an HTML page, not a Kubernetes list (a login page, or a proxy in front of the API server?); references to its objects are not checked"
        ),
        "{}",
        run.stderr
    );
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let unchecked = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "owner-not-found")
        .inspect(|f| assert_eq!(f["severity"], "info", "{f}"))
        .count();
    assert!(unchecked > 0, "{}", run.stdout);
}

/// A namespace that exists and holds nothing is no error: said as such. A namespace of which
/// some lists were refused and the rest were empty checked nothing: exit 2.
#[test]
fn an_empty_namespace_is_said_and_is_no_error() {
    let namespace = |asked: &Asked| {
        (asked.path == "/api/v1/namespaces/empty-ns").then(|| {
            Reply::json(
                200,
                &json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
                        "metadata": {"name": "empty-ns", "uid": "00000000-0000-4000-8000-0000000000e5",
                                     "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z"}}),
            )
        })
    };
    let server = ApiServer::start(Box::new(move |asked, _| namespace(asked)));
    let dir = common::temp_dir("cluster-nothing-empty");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["-n", "empty-ns"]);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    let lists = server
        .asked()
        .iter()
        .filter(|a| a.path.contains("/namespaces/empty-ns/") && is_list(a))
        .filter(|a| a.query("fieldSelector").is_none())
        .count();
    assert!(lists > 20, "{lists}");
    assert!(
        run.stderr.contains(&format!(
            "ownerlint: 0 objects: namespace empty-ns holds none of the {lists} resources read from context test (https://127.0.0.1:{})",
            server.port
        )),
        "{}",
        run.stderr
    );

    // One list refused, the rest empty: what was refused may hold objects.
    let server = ApiServer::start(Box::new(move |asked, _| {
        if asked.resource_path() == "/api/v1/namespaces/empty-ns/secrets" {
            return Some(forbidden(asked));
        }
        namespace(asked)
    }));
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["-n", "empty-ns"]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "ownerlint: nothing was checked: no object was read from context test (https://127.0.0.1:{}), namespace empty-ns: the {} lists it read were empty, and 1 could not be read: secrets/v1: 403 Forbidden: secrets is forbidden",
            server.port,
            lists - 1
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("`kubectl auth can-i --list -n empty-ns` shows what the kubeconfig's user may read there"),
        "{}",
        run.stderr
    );
    assert_one_line_and_no_debug_text(&run);
}

/// `--save` keeps what could not be read beside the objects; `--complete` on the saved folder
/// does not check references to it, as the run that saved it did not.
#[test]
fn a_snapshot_saved_with_a_forbidden_kind_keeps_it_not_read() {
    let server = ApiServer::start(Box::new(|asked, _| {
        (asked.resource_path() == "/apis/apps/v1/replicasets").then(|| forbidden(asked))
    }));
    let dir = common::temp_dir("cluster-nothing-save");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let saved = dir.path().join("snapshot");
    let run = cluster(
        &kubeconfig,
        &["--format", "json", "--save", saved.to_str().expect("UTF-8")],
    );
    let live = findings(&run);
    assert!(
        live.iter().any(|f| f.starts_with("info owner-not-found ")),
        "{live:?}"
    );
    let record: Value = serde_json::from_str(
        &std::fs::read_to_string(saved.join("not-read.json")).expect("not-read.json is saved"),
    )
    .expect("JSON");
    assert_eq!(record["apiVersion"], "ownerlint.dev/v1");
    assert_eq!(record["kind"], "NotRead");
    assert_eq!(
        record["resources"],
        json!([{"resource": "replicasets.apps/v1", "group": "apps", "kind": "ReplicaSet",
                "why": "403 Forbidden: replicasets is forbidden: User \"viewer\" cannot list resource \"replicasets\" at the cluster scope"}])
    );
    let lint_saved = || {
        common::ownerlint()
            .arg(&saved)
            .args(["--no-config", "--complete", "--format", "json"])
            .run()
    };
    let again = lint_saved();
    assert_eq!(findings(&again), live, "{}", again.stderr);
    // Said once, on standard error, as the live run said it.
    assert!(
        again.stderr.contains(
            "ownerlint: warning: the saved snapshot records that replicasets.apps/v1 was not read when it was saved (403 Forbidden: "
        ),
        "{}",
        again.stderr
    );
    let report: Value = serde_json::from_str(&again.stdout).expect("JSON");
    let message = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "owner-not-found")
        .and_then(|f| f["message"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(
        message.contains("could not be checked: replicasets.apps/v1 was not read: 403 Forbidden"),
        "{message}"
    );
    // The record is what makes it so: without it, the folder reads as a complete cluster.
    std::fs::remove_file(saved.join("not-read.json")).expect("remove");
    let without = lint_saved();
    assert!(
        !without.stderr.contains("the saved snapshot records"),
        "{}",
        without.stderr
    );
    assert!(
        findings(&without)
            .iter()
            .any(|f| f.starts_with("error owner-not-found ")),
        "{}",
        without.stdout
    );
}

/// An owner of an API whose discovery failed (an aggregated API whose server is down) is said
/// to be so, never "no CustomResourceDefinition for it was found".
#[test]
fn an_owner_of_an_api_whose_discovery_failed_is_said_so() {
    let owned = with_configmap(json!({
        "metadata": {
            "name": "usage", "namespace": "default", "uid": "00000000-0000-4000-8000-0000000000a1",
            "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
                                 "name": "web", "uid": "00000000-0000-4000-8000-0000000000a2"}]
        }
    }));
    let server = ApiServer::start(Box::new(move |asked, _| {
        if asked.path != "/apis" {
            return owned(asked);
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
    let dir = common::temp_dir("cluster-nothing-stale");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let saved = dir.path().join("snapshot");
    let run = cluster(
        &kubeconfig,
        &["--format", "json", "--save", saved.to_str().expect("UTF-8")],
    );
    let again = common::ownerlint()
        .arg(&saved)
        .args(["--no-config", "--complete", "--format", "json"])
        .run();
    for run in [&run, &again] {
        let report: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
        let of_usage: Vec<(String, String)> = report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["object"]["name"] == "usage")
            .map(|f| {
                (
                    format!(
                        "{} {}",
                        f["severity"].as_str().unwrap_or(""),
                        f["rule"].as_str().unwrap_or("")
                    ),
                    f["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        let unknown = of_usage
            .iter()
            .find(|(rule, _)| rule == "info owner-kind-unknown")
            .unwrap_or_else(|| panic!("{of_usage:?}"));
        assert!(
            unknown.1.contains(
                "PodMetrics (metrics.k8s.io/v1beta1) could not be looked up: metrics.k8s.io/v1beta1 was not read: its discovery failed (its API server did not say what it serves)"
            ),
            "{}",
            unknown.1
        );
        assert!(
            !unknown.1.contains("CustomResourceDefinition"),
            "{}",
            unknown.1
        );
        assert!(
            of_usage.iter().all(|(rule, _)| !rule.starts_with("error")),
            "{of_usage:?}"
        );
    }
}

/// A kubeconfig for the API server at `port`, trusting `ca`.
fn kubeconfig_for(dir: &std::path::Path, port: u16, ca: &std::path::Path) -> std::path::PathBuf {
    let config = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "test", "cluster": {
            "server": format!("https://127.0.0.1:{port}"),
            "certificate-authority": ca,
        }}],
        "users": [{"name": "test", "user": token_user()}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}],
        "current-context": "test",
    });
    let path = dir.join(format!("kubeconfig-{port}"));
    std::fs::write(&path, config.to_string()).expect("write the kubeconfig");
    path
}

#[test]
fn each_failure_to_connect_is_said_in_words() {
    let dir = common::temp_dir("cluster-nothing-connect");

    // A closed port: nothing listens there.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.local_addr().expect("an address").port()
    };
    let run = cluster(&kubeconfig_for(dir.path(), port, &tls_file("ca.crt")), &[]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: cannot connect to https://127.0.0.1:{port} (context test): connection refused: is the cluster running, and the kubeconfig's server address right?\n"
        )
    );

    // A server that speaks plain HTTP where https is named.
    let plain = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let plain_port = plain.local_addr().expect("an address").port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut stream in plain.incoming().flatten() {
            let mut hello = [0u8; 512];
            let _ = stream.read(&mut hello);
            let _ = stream.write_all(
                b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    let run = cluster(
        &kubeconfig_for(dir.path(), plain_port, &tls_file("ca.crt")),
        &[],
    );
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: cannot connect to https://127.0.0.1:{plain_port} (context test): what answers there does not speak HTTPS: is the kubeconfig's server address an API server's (https, its port)?\n"
        )
    );

    // A server whose certificate the kubeconfig's CA did not sign (it trusts another
    // certificate than the CA that signed the server's).
    let server = ApiServer::start(Box::new(|_, _| None));
    let run = cluster(
        &kubeconfig_for(dir.path(), server.port, &tls_file("client.crt")),
        &[],
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(
        run.stderr.starts_with(&format!(
            "ownerlint: cannot connect to https://127.0.0.1:{} (context test): the server's TLS certificate is not signed by the certificate authority the kubeconfig trusts",
            server.port
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("certificate-authority"),
        "{}",
        run.stderr
    );
    assert_one_line_and_no_debug_text(&run);
    assert!(server.asked().is_empty(), "{:?}", server.asked());

    // A kubeconfig that is not there.
    let missing = dir.path().join("no-such-kubeconfig");
    let run = cluster(&missing, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: cannot read the kubeconfig {}: it does not exist\n",
            missing.display()
        )
    );

    // A kubeconfig that is not YAML: its place, never its text.
    let broken = dir.path().join("broken-kubeconfig");
    std::fs::write(&broken, "clusters: [\n  token: s3cret-value\n").expect("write");
    let run = cluster(&broken, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        run.stderr.starts_with(&format!(
            "ownerlint: the kubeconfig {} is not a valid kubeconfig: line ",
            broken.display()
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("s3cret-value"), "{}", run.stderr);
    assert_one_line_and_no_debug_text(&run);
}
