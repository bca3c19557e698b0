//! `ownerlint cluster` against an API server that answers to do harm (`api_server.rs`, with
//! hostile answers): whole Secrets where metadata was asked, a page without end, continue
//! tokens that go round, discovery names that are no names; and `--save` into what is not a
//! new or empty folder of its own.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};

use crate::api_server::{ApiServer, Asked, Reply};
use crate::cluster_live::{cluster, findings, recorded_page, token_user};
use crate::cluster_snapshot::true_of_the_recorded_cluster;
use crate::common::{self, Run};

/// A value no test writes twice: what must not be saved.
fn unique_secret(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{what}-{}-{nanos}", std::process::id())
}

/// Every file under `dir`, with its path.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .expect("it exists")
        .permissions()
        .mode()
        & 0o777
}

/// A server that answers the list of Secrets' metadata with whole Secrets (`data`,
/// `stringData`, and the last applied configuration that repeats them), and ConfigMaps' with
/// their data: `--save` writes none of it, and the findings are those of the cluster.
#[test]
fn whole_secrets_answered_for_metadata_are_never_saved_and_the_files_are_private() {
    let secret = unique_secret("hunter2");
    let config_value = unique_secret("config-value");
    let (in_secret, in_config) = (secret.clone(), config_value.clone());
    let server = ApiServer::start(Box::new(move |asked: &Asked, _| {
        match asked.resource_path() {
            "/api/v1/secrets" => {
                let applied = json!({"apiVersion": "v1", "kind": "Secret",
                    "metadata": {"name": "db", "namespace": "default"},
                    "stringData": {"password": in_secret}});
                Some(Reply::json(
                    200,
                    &json!({"kind": "SecretList", "apiVersion": "v1",
                        "metadata": {"resourceVersion": "1"},
                        "items": [{
                            "metadata": {"name": "db", "namespace": "default",
                                "uid": "00000000-0000-4000-8000-0000000000aa",
                                "resourceVersion": "1", "creationTimestamp": "2026-01-01T00:00:00Z",
                                "annotations": {
                                    "kubectl.kubernetes.io/last-applied-configuration": applied.to_string()}},
                            "type": "Opaque",
                            "data": {"password": in_secret},
                            "stringData": {"password": in_secret}}]}),
                ))
            }
            "/api/v1/configmaps" if asked.query("continue").is_none() => {
                let mut page = recorded_page("/api/v1/configmaps?limit=100");
                page["items"][0]["data"] = json!({"key": in_config});
                Some(Reply::json(200, &page))
            }
            _ => None,
        }
    }));
    let dir = common::temp_dir("cluster-whole-secrets");
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
    let asked = server.asked();
    let secrets = asked
        .iter()
        .find(|a| a.resource_path() == "/api/v1/secrets")
        .expect("Secrets were listed");
    assert!(
        secrets
            .accept
            .starts_with("application/json;as=PartialObjectMetadataList"),
        "{secrets:?}"
    );
    let files = files_under(&saved);
    assert!(files.len() > 2, "{files:?}");
    let mut secret_saved = false;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a saved file");
        assert!(!text.contains(&secret), "{}: {text}", file.display());
        assert!(!text.contains(&config_value), "{}", file.display());
        secret_saved |= text.contains("00000000-0000-4000-8000-0000000000aa");
    }
    assert!(secret_saved, "the Secret's metadata is saved");
    assert!(!run.stdout.contains(&secret) && !run.stderr.contains(&secret));
    #[cfg(unix)]
    {
        assert_eq!(mode(&saved), 0o700);
        assert_eq!(mode(&saved.join("namespaces")), 0o700);
        for file in &files {
            assert_eq!(mode(file), 0o600, "{}", file.display());
        }
    }
}

/// `--save` names a new or empty folder of its own: a file, a folder that holds anything (a
/// link planted in it too), a symbolic link to a folder and a dangling one are refused in one
/// line (exit 2) before anything is asked of the server, and nothing is written where a link
/// points. A link among the folders above it is the user's choice, and is followed.
#[cfg(unix)]
#[test]
fn save_refuses_a_file_a_used_folder_and_links_before_anything_is_asked() {
    let server = ApiServer::start(Box::new(|_, _| None));
    let dir = common::temp_dir("cluster-save-refused");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let target = dir.path().join("elsewhere");
    std::fs::create_dir(&target).expect("mkdir");

    let file = dir.path().join("a-file");
    std::fs::write(&file, "mine\n").expect("write");
    let planted = dir.path().join("planted");
    std::fs::create_dir(&planted).expect("mkdir");
    std::os::unix::fs::symlink(&target, planted.join("namespaces")).expect("a link");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).expect("a link");
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).expect("a link");

    for (save, said) in [
        (&file, "is not a folder"),
        (&planted, "the folder is not empty"),
        (&link, "is a symbolic link"),
        (&dangling, "is a symbolic link"),
    ] {
        let run = cluster(&kubeconfig, &["--save", save.to_str().expect("UTF-8")]);
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert!(
            run.stderr
                .starts_with(&format!("ownerlint: --save {}: {said}", save.display())),
            "{}",
            run.stderr
        );
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(server.asked().is_empty(), "nothing was asked: {save:?}");
    }
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "mine\n");
    assert!(files_under(&target).is_empty());
    assert!(!dir.path().join("nowhere").exists());

    // The folders above the one named may be links (`/tmp` is one on macOS).
    let above = dir.path().join("above");
    std::os::unix::fs::symlink(&target, &above).expect("a link");
    let run = cluster(
        &kubeconfig,
        &[
            "--format",
            "json",
            "--save",
            above.join("snapshot").to_str().expect("UTF-8"),
        ],
    );
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    assert!(target.join("snapshot/discovery.json").is_file());
}

/// Run ownerlint to its end, with its peak resident memory in bytes (VmHWM of
/// `/proc/PID/status`, read while it runs: it only grows).
#[cfg(target_os = "linux")]
fn run_with_peak_memory(mut command: std::process::Command) -> (Run, u64) {
    use std::io::Read;
    use std::process::Stdio;
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("the binary runs");
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut bytes).expect("read its output");
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        if let Ok(status) = std::fs::read_to_string(&status_file)
            && let Some(kib) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().expect("it runs") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = std::process::Output {
        status,
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    };
    (Run::from(output), peak_kib * 1024)
}

/// A server that answers the first page of ConfigMaps with a list that goes on for `length`
/// bytes (`u64::MAX`: without end), streamed: its list is not read (a warning names it, and
/// references to ConfigMaps are "could not be checked"), and ownerlint's memory stays under
/// 1 GB, whatever the server sends.
#[cfg(target_os = "linux")]
fn a_page_of(length: u64) {
    let item = r#"{"metadata":{"name":"filler","namespace":"default","uid":"u"}},"#;
    let chunk = Bytes::from(item.repeat((1 << 20) / item.len()));
    let server = ApiServer::start(Box::new(move |asked: &Asked, _| {
        (asked.resource_path() == "/api/v1/configmaps").then(|| Reply::Stream {
            head: r#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":["#.into(),
            chunk: chunk.clone(),
            length,
        })
    }));
    let dir = common::temp_dir("cluster-big-page");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let started = Instant::now();
    let (run, peak) = run_with_peak_memory(
        common::ownerlint()
            .arg("cluster")
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["--no-config", "--format", "json"])
            .command(),
    );
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "ownerlint: warning: configmaps/v1 was not read: a page of its list was larger than 512 MiB"
        ),
        "{}",
        run.stderr
    );
    assert!(peak < 1 << 30, "peak resident memory {} MiB", peak >> 20);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        report["summary"]["cluster"]["not_read"][0][0],
        "configmaps/v1"
    );
    eprintln!(
        "a page of {length} bytes: not read in {:?}, peak memory {} MiB",
        started.elapsed(),
        peak >> 20
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_page_without_end_ends_its_list_with_a_warning_in_bounded_memory() {
    a_page_of(u64::MAX);
}

/// The same with a page of 2 GiB that ends (a few seconds more of the server's streaming).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "heavy: streams 2 GiB"]
fn a_page_of_2_gib_ends_its_list_with_a_warning_in_bounded_memory() {
    a_page_of(2 << 30);
}

/// Continue tokens that go round (A, B, A, B …) end the list at once, with a warning; the
/// other lists are read.
#[test]
fn continue_tokens_that_go_round_end_the_list_with_a_warning() {
    let server = ApiServer::start(Box::new(|asked: &Asked, _| {
        if asked.resource_path() != "/api/v1/configmaps" {
            return None;
        }
        let next = match asked.query("continue").as_deref() {
            Some("A") => "B",
            _ => "A",
        };
        Some(Reply::json(
            200,
            &json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                    "metadata": {"continue": next}, "items": []}),
        ))
    }));
    let dir = common::temp_dir("cluster-token-circle");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let started = Instant::now();
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("ownerlint: warning: configmaps/v1 was not read: the server answered a continue token it had answered before"),
        "{}",
        run.stderr
    );
    let pages = server
        .asked()
        .iter()
        .filter(|a| a.resource_path() == "/api/v1/configmaps")
        .count();
    assert_eq!(pages, 3, "A, B, then A again");
}

/// A resource name in discovery that is not one part of a path (a query, a line break) is
/// never requested: a warning names it escaped, and the findings are those of the cluster,
/// whose Pods are listed by their own name.
#[test]
fn discovery_names_that_are_no_names_are_never_requested() {
    let mut api = recorded_page("/api");
    let resources = api["items"][0]["versions"][0]["resources"]
        .as_array_mut()
        .expect("resources");
    for name in ["pods?watch=true&x=", "pods\r\nX-Injected: yes"] {
        resources.push(json!({"resource": name, "responseKind": {"group": "", "version": "", "kind": "Pod"},
                              "scope": "Namespaced", "singularResource": "pod", "verbs": ["get", "list", "watch"]}));
    }
    let server = ApiServer::start(Box::new(move |asked: &Asked, _| {
        (asked.path == "/api").then(|| Reply::json(200, &api))
    }));
    let dir = common::temp_dir("cluster-discovery-names");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    assert_eq!(
        findings(&run),
        true_of_the_recorded_cluster(),
        "{}",
        run.stderr
    );
    for asked in server.asked() {
        assert!(
            !asked.path.contains("watch") && !asked.path.contains("Injected"),
            "{asked:?}"
        );
    }
    assert!(
        run.stderr
            .contains(r#""pods?watch=true&x=" (v1), "pods\r\nX-Injected: yes" (v1)"#),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('\r') && !run.stdout.contains('\r'));
}

/// The same in legacy discovery: a group or a version of `/apis` that is not one part of a
/// path is never asked for, and is named escaped.
#[test]
fn legacy_discovery_names_that_are_no_names_are_never_requested() {
    let read = |name: &str| -> Value {
        let path = format!(
            "{}/testdata/live/discovery/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("recorded")).expect("JSON")
    };
    let (api, core, apps) = (
        read("legacy-api.json"),
        read("legacy-api-v1.json"),
        read("legacy-apis-apps-v1.json"),
    );
    let apis = json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"},
                                      {"groupVersion": "apps/v1\r\nX", "version": "v1\r\nX-Injected: yes"}]},
        {"name": "evil?watch=true", "versions": [{"groupVersion": "evil?watch=true/v1", "version": "v1"}]}]});
    let server = ApiServer::start(Box::new(move |asked: &Asked, _| {
        match asked.path.as_str() {
            "/api" => Some(Reply::json(200, &api)),
            "/apis" => Some(Reply::json(200, &apis)),
            "/api/v1" => Some(Reply::json(200, &core)),
            "/apis/apps/v1" => Some(Reply::json(200, &apps)),
            _ => None,
        }
    }));
    let dir = common::temp_dir("cluster-legacy-names");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    let asked = server.asked();
    assert!(
        asked
            .iter()
            .any(|a| a.resource_path() == "/apis/apps/v1/replicasets"),
        "{}",
        run.stderr
    );
    for asked in &asked {
        assert!(
            !asked.path.contains("watch") && !asked.path.contains("Injected"),
            "{asked:?}"
        );
    }
    assert!(
        run.stderr.contains(
            r#"the group version "apps/v1\r\nX-Injected: yes", the group version "evil?watch=true/v1""#
        ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('\r') && !run.stdout.contains('\r'));
}

/// A link planted in the folder while the cluster is read (`DIR/namespaces`, pointing
/// elsewhere) is not followed: the snapshot's files are written inside the folder checked, each
/// made new, and the run ends saying it could not write there.
#[cfg(unix)]
#[test]
fn a_link_planted_in_the_folder_while_the_cluster_is_read_is_not_followed() {
    let dir = common::temp_dir("cluster-save-planted-meanwhile");
    let saved = dir.path().join("snapshot");
    let target = dir.path().join("elsewhere");
    std::fs::create_dir(&target).expect("mkdir");
    let (link, to) = (saved.join("namespaces"), target.clone());
    let server = ApiServer::start(Box::new(move |asked: &Asked, _| {
        // The folder was made before the first list was asked for.
        if asked.resource_path() == "/api/v1/configmaps" && !link.exists() {
            std::os::unix::fs::symlink(&to, &link).expect("a link");
        }
        None
    }));
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--save", saved.to_str().expect("UTF-8")]);
    assert!(
        std::fs::symlink_metadata(saved.join("namespaces"))
            .expect("planted")
            .file_type()
            .is_symlink()
    );
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "ownerlint: cannot write {}/namespaces/",
            saved.display()
        )) && run
            .stderr
            .contains("something else is there already (a link is not followed"),
        "{}",
        run.stderr
    );
    assert!(
        files_under(&target).is_empty(),
        "nothing written through the link"
    );
    assert!(saved.join("discovery.json").is_file());
}
