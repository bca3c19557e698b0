//! A live cluster's answers kept as a snapshot (`ownerlint::cluster::snapshot`), on what a
//! real Kubernetes 1.36 API server answered a reader of the whole cluster
//! (`testdata/live/cluster-exchanges.json`: aggregated discovery, then every listable resource
//! in pages of 100, metadata only except for some kinds). It is the cluster of
//! `cluster_dump.rs`: its snapshot must give exactly the findings true of that cluster.

use std::collections::HashMap;

use ownerlint::Options;
use ownerlint::cluster::snapshot::{Resource, Snapshot};
use ownerlint::load::ModeChoice;

use crate::cluster_dump::{TRUE_OF_THE_CLUSTER, findings_of};
use crate::common;

/// The recorded answers, by request path (with its query).
/// The ConfigMap deleted before the recording, and its finding in the dump.
const GONE: &str = "info deletion-timestamp-in-manifest ConfigMap dts-ssa/settings";

/// The findings true of the cluster when it was recorded: the dump's, less [`GONE`]'s.
pub(crate) fn true_of_the_recorded_cluster() -> Vec<String> {
    let mut expected: Vec<String> = TRUE_OF_THE_CLUSTER
        .iter()
        .filter(|s| **s != GONE)
        .map(|s| s.to_string())
        .collect();
    expected.sort();
    expected
}

fn recorded() -> HashMap<String, String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/live/cluster-exchanges.json"
    );
    let text = std::fs::read_to_string(path).expect("the recording is in testdata");
    let exchanges: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    exchanges
        .iter()
        .map(|e| {
            let path = e["request"]["path"].as_str().expect("a path").to_string();
            assert_eq!(e["response"]["status"], 200, "{path}");
            (path, e["response"]["body"].to_string())
        })
        .collect()
}

/// Read the recorded cluster as a reader would: discovery, then each resource it names, page
/// by page. Returns the snapshot and the resources listed.
fn read_recorded_cluster() -> (Snapshot, Vec<Resource>) {
    let answers = recorded();
    let mut snapshot = Snapshot::default();
    for path in ["/api", "/apis"] {
        snapshot
            .add_discovery(&answers[path])
            .unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    let resources = snapshot.resources(ownerlint::rules::kept());
    for resource in &resources {
        let mut path = format!("{}?limit=100", resource.list_path());
        loop {
            let body = answers
                .get(&path)
                .unwrap_or_else(|| panic!("{} was not recorded: {path}", resource.display()));
            match snapshot.add_page(resource, body) {
                Ok(Some(token)) => {
                    path = format!("{}?limit=100&continue={token}", resource.list_path())
                }
                Ok(None) => break,
                Err(e) => panic!("{path}: {e}"),
            }
        }
    }
    (snapshot, resources)
}

#[test]
fn discovery_names_each_listable_resource_once_and_the_kinds_read_whole() {
    let (_, resources) = read_recorded_cluster();
    let listed: Vec<String> = resources.iter().map(Resource::display).collect();
    // Every resource the recording lists, at the version it lists, but Events once: the
    // events.k8s.io Events are the core group's, with the same uids.
    let recorded: Vec<String> = recorded()
        .keys()
        .filter(|p| p.ends_with("?limit=100"))
        .filter(|p| !p.starts_with("/apis/events.k8s.io/"))
        .map(|p| {
            let parts: Vec<&str> = p.trim_end_matches("?limit=100").split('/').collect();
            match parts[..] {
                ["", "api", version, resource] => format!("{resource}/{version}"),
                ["", "apis", group, version, resource] => format!("{resource}.{group}/{version}"),
                _ => panic!("{p}"),
            }
        })
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    let mut expected = recorded.clone();
    expected.sort();
    assert_eq!(sorted, expected);
    // The preferred version of a group with two: autoscaling/v2.
    assert!(listed.contains(&"horizontalpodautoscalers.autoscaling/v2".to_string()));
    // Whole objects where a rule reads more than metadata: workload selectors and templates,
    // a CRD's spec; metadata only for the rest, Pods too, whose phase alone is read beyond it
    // (with lists of a field selector on it).
    let whole: Vec<&str> = resources
        .iter()
        .filter(|r| r.whole)
        .map(|r| r.kind.as_str())
        .collect();
    let phase: Vec<&str> = resources
        .iter()
        .filter(|r| r.phase)
        .map(|r| r.kind.as_str())
        .collect();
    assert_eq!(phase, ["Pod"]);
    assert!(!whole.contains(&"Pod"), "{whole:?}");
    for kind in [
        "ReplicationController",
        "ReplicaSet",
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "Job",
        "CustomResourceDefinition",
    ] {
        assert!(whole.contains(&kind), "{kind} is not read whole: {whole:?}");
    }
    for kind in ["ConfigMap", "Secret", "Namespace", "Event", "Widget"] {
        assert!(!whole.contains(&kind), "{kind} is read whole");
    }
}

#[test]
fn the_snapshot_of_a_real_cluster_gets_exactly_the_findings_true_of_it() {
    let (snapshot, _) = read_recorded_cluster();
    // 673 items listed: the 52 Events twice, once each here.
    assert_eq!(snapshot.object_count(), 621);
    let dir = common::temp_dir("cluster-snapshot");
    for (path, text) in snapshot.files() {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("in the folder")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    let files: Vec<String> = snapshot.files().into_iter().map(|(p, _)| p).collect();
    assert_eq!(files[..2], ["discovery.json", "cluster-scoped.json"]);
    assert!(
        files.contains(&"namespaces/kcase.json".to_string()),
        "{files:?}"
    );
    // The cluster was read after ConfigMap dts-ssa/settings, Terminating without a finalizer,
    // had been deleted by hand (the recording holds no such object): what is true of it then
    // is the dump's findings without that one.
    let configmaps = &recorded()["/api/v1/configmaps?limit=100"];
    assert!(configmaps.contains("\"namespace\":\"dts-ssa-fin\""));
    let listed = recorded()
        .into_iter()
        .filter(|(path, _)| path.starts_with("/api/v1/configmaps?"))
        .flat_map(|(_, body)| {
            let list: serde_json::Value = serde_json::from_str(&body).expect("JSON");
            list["items"].as_array().cloned().unwrap_or_default()
        })
        .filter(|item| item["metadata"]["namespace"] == "dts-ssa")
        .map(|item| item["metadata"]["name"].to_string())
        .collect::<Vec<_>>();
    assert!(!listed.contains(&"\"settings\"".to_string()), "{listed:?}");
    let expected = true_of_the_recorded_cluster();
    for (mode, complete, how) in [
        (ModeChoice::Auto, false, "default"),
        (ModeChoice::Snapshot, false, "--mode snapshot"),
        (ModeChoice::Auto, true, "--complete"),
    ] {
        let options = Options {
            paths: vec![dir.path().to_path_buf()],
            mode,
            complete,
            ..Options::default()
        };
        let outcome = ownerlint::lint(&options, &mut std::io::empty());
        assert_eq!(outcome.stats.objects, 621, "{how}");
        assert_eq!(outcome.stats.discovered_groups, 22, "{how}");
        assert_eq!(
            findings_of(&outcome, how).join("\n"),
            expected.join("\n"),
            "{how}: the findings are not those true of the cluster"
        );
    }
}
