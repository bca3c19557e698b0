//! Empty typed Lists: `kubectl cluster-info dump --output-directory` writes a kind a namespace
//! has none of as `{"kind": "DaemonSetList", …, "items": null}`, and `kubectl get -f` reads it
//! as no objects. So does every reader here (YAML, JSON, the fast path, a big file read in
//! slices): such a List is empty, never one unnamed object.

use crate::common;

use ownerlint::Options;
use ownerlint::report::Format;

/// A typed List with no items, indented as kubectl's JSON printer writes it.
fn null_list(kind: &str, api_version: &str) -> String {
    format!(
        "{{\n    \"kind\": \"{kind}\",\n    \"apiVersion\": \"{api_version}\",\n    \"metadata\": {{\n        \"resourceVersion\": \"900\"\n    }},\n    \"items\": null\n}}\n"
    )
}

/// An object of a typed List, in kubectl's JSON layout: its metadata, with one owner.
fn item(name: &str, uid: &str, owner: Option<(&str, &str, &str)>) -> String {
    let owner = owner.map_or(String::new(), |(kind, name, uid)| {
        format!(
            ",\n                \"ownerReferences\": [\n                    {{\n                        \"apiVersion\": \"apps/v1\",\n                        \"kind\": \"{kind}\",\n                        \"name\": \"{name}\",\n                        \"uid\": \"{uid}\",\n                        \"controller\": true,\n                        \"blockOwnerDeletion\": true\n                    }}\n                ]"
        )
    });
    format!(
        "        {{\n            \"metadata\": {{\n                \"name\": \"{name}\",\n                \"namespace\": \"shop\",\n                \"uid\": \"{uid}\",\n                \"resourceVersion\": \"801\"{owner}\n            }}\n        }}"
    )
}

fn list(kind: &str, api_version: &str, items: &[String]) -> String {
    format!(
        "{{\n    \"kind\": \"{kind}\",\n    \"apiVersion\": \"{api_version}\",\n    \"metadata\": {{\n        \"resourceVersion\": \"900\"\n    }},\n    \"items\": [\n{}\n    ]\n}}\n",
        items.join(",\n")
    )
}

const UID_DB: &str = "7a1b2c3d-0000-4000-8000-000000000003";
const UID_RS: &str = "7a1b2c3d-0000-4000-8000-000000000005";
const UID_WEB: &str = "7a1b2c3d-0000-4000-8000-000000000006";

/// A `kubectl cluster-info dump --output-directory` of a cluster with two namespaces, in the
/// layout kubectl writes: `nodes.json`, then per namespace one file a kind (empty kinds with
/// `"items": null`) and a folder a Pod with its logs. `shop` runs a Deployment and a
/// StatefulSet's Pod; `kube-system` has nothing of any kind.
fn cluster_info_dump(dir: &std::path::Path) {
    let mut files: Vec<(String, String)> = vec![
        (
            "nodes.json".into(),
            list(
                "NodeList",
                "v1",
                &[item("node-1", "7a1b2c3d-0000-4000-8000-000000000001", None)
                    .replace("\"namespace\": \"shop\",\n                ", "")],
            ),
        ),
        (
            "shop/pods.json".into(),
            list(
                "PodList",
                "v1",
                &[
                    item(
                        "db-0",
                        "7a1b2c3d-0000-4000-8000-000000000002",
                        Some(("StatefulSet", "db", UID_DB)),
                    ),
                    item(
                        "web-5d8f7-x2k9p",
                        "7a1b2c3d-0000-4000-8000-000000000004",
                        Some(("ReplicaSet", "web-5d8f7", UID_RS)),
                    ),
                ],
            ),
        ),
        (
            "shop/replicasets.json".into(),
            list(
                "ReplicaSetList",
                "apps/v1",
                &[item(
                    "web-5d8f7",
                    UID_RS,
                    Some(("Deployment", "web", UID_WEB)),
                )],
            ),
        ),
        (
            "shop/deployments.json".into(),
            list("DeploymentList", "apps/v1", &[item("web", UID_WEB, None)]),
        ),
        ("shop/web-5d8f7-x2k9p/logs.txt".into(), "started\n".into()),
        ("shop/db-0/logs.txt".into(), "ready\n".into()),
    ];
    let empty = [
        ("events.json", "EventList", "v1"),
        (
            "replication-controllers.json",
            "ReplicationControllerList",
            "v1",
        ),
        ("services.json", "ServiceList", "v1"),
        ("daemonsets.json", "DaemonSetList", "apps/v1"),
    ];
    for (file, kind, api_version) in empty {
        files.push((format!("shop/{file}"), null_list(kind, api_version)));
    }
    let more = [
        ("deployments.json", "DeploymentList", "apps/v1"),
        ("replicasets.json", "ReplicaSetList", "apps/v1"),
        ("pods.json", "PodList", "v1"),
    ];
    for (file, kind, api_version) in empty.into_iter().chain(more) {
        files.push((format!("kube-system/{file}"), null_list(kind, api_version)));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    common::write_files(dir, &files);
}

#[test]
fn a_cluster_info_dump_with_empty_kinds_is_recognised_as_one() {
    let dir = common::temp_dir("cluster-info-dump");
    cluster_info_dump(dir.path());
    let run = common::ownerlint()
        .args(["--complete", "--format", "short"])
        .arg(dir.path())
        .run();
    // The StatefulSet is only not in this dump (which holds no StatefulSets): not an error.
    // Read as objects, the 11 empty Lists made the input more than such a dump, and the
    // StatefulSet gone for certain.
    assert_eq!(run.code(), Some(0), "{}", run.printed());
    assert_eq!(
        common::stable(&run.stdout),
        "[TMP]/shop/pods.json:15:21: info[owner-not-found]: Pod shop/db-0 → StatefulSet shop/db: StatefulSet shop/db is not in this `kubectl cluster-info dump`, which holds no StatefulSets; if it is gone from the cluster too, the garbage collector deletes Pod shop/db-0 (no other owner keeps it)\n"
    );
    assert!(
        run.stderr.contains("5 objects in 15 files")
            && run
                .stderr
                .contains("--complete: this is a `kubectl cluster-info dump`"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("(unnamed)"), "{}", run.stderr);
    // The full parse reads it the same.
    for full_parse in [false, true] {
        let options = Options {
            paths: vec![dir.path().to_path_buf()],
            complete: true,
            full_parse,
            ..Options::default()
        };
        let outcome = ownerlint::lint(&options, &mut std::io::empty());
        assert_eq!(outcome.stats.objects, 5, "full parse: {full_parse}");
        assert!(outcome.stats.partial_dump, "full parse: {full_parse}");
        assert_eq!(outcome.findings.len(), 1, "full parse: {full_parse}");
    }
}

/// Each way an empty typed List is written, as YAML and JSON.
const EMPTY_LISTS: &[(&str, &str)] = &[
    (
        "items-null.yaml",
        "apiVersion: apps/v1\nkind: DaemonSetList\nmetadata:\n  resourceVersion: \"900\"\nitems: null\n",
    ),
    (
        "items-tilde.yaml",
        "apiVersion: apps/v1\nkind: DaemonSetList\nmetadata:\n  resourceVersion: \"900\"\nitems: ~\n",
    ),
    (
        "items-nothing.yaml",
        "apiVersion: v1\nkind: PodList\nmetadata: {}\nitems:\n",
    ),
    (
        "items-first.yaml",
        "items: null\nkind: ServiceList\napiVersion: v1\n",
    ),
    (
        "untyped.yaml",
        "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems: null\n",
    ),
    (
        "compact.json",
        "{\"kind\":\"DaemonSetList\",\"apiVersion\":\"apps/v1\",\"metadata\":{\"resourceVersion\":\"900\"},\"items\":null}\n",
    ),
    (
        "untyped.json",
        "{\n    \"apiVersion\": \"v1\",\n    \"items\": null,\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n",
    ),
];

#[test]
fn an_empty_typed_list_holds_no_objects_in_every_reader() {
    for (name, text) in EMPTY_LISTS {
        for full_parse in [false, true] {
            let options = Options {
                full_parse,
                ..Options::default()
            };
            let outcome = common::lint(name, text, &options);
            assert_eq!(
                (outcome.stats.objects, outcome.findings.len()),
                (0, 0),
                "{name}, full parse: {full_parse}: {}",
                common::render(&outcome, Format::Short)
            );
            assert!(outcome.errors.is_empty(), "{name}: {:?}", outcome.errors);
        }
    }
    // kubectl's own layout, as above.
    let text = null_list("DaemonSetList", "apps/v1");
    assert_eq!(common::lint_short_both_ways("daemonsets.json", &text), "");
    assert_eq!(
        common::lint("daemonsets.json", &text, &Options::default())
            .stats
            .objects,
        0
    );
    // A typed List's `items` that hold a string are not a List's: left as they were.
    let text = "apiVersion: v1\nkind: PodList\nitems: \"null\"\n";
    assert_eq!(
        common::lint("quoted.yaml", text, &Options::default())
            .stats
            .objects,
        1
    );
}

#[test]
fn empty_lists_in_a_big_stream_read_in_slices_hold_no_objects() {
    // More than a few MiB, so that the stream is split and read in parallel slices: YAML
    // documents, and JSON ones one after the other (`kubectl get -o json` for each kind).
    let config_map = |i: usize| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{i}\n  namespace: shop\ndata:\n  value: \"{}\"\n",
            "x".repeat(200)
        )
    };
    let mut yaml = String::new();
    let mut json = String::new();
    let count = 12_000;
    for i in 0..count {
        yaml.push_str("---\n");
        yaml.push_str(&config_map(i));
        json.push_str(&format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"settings-{i}\", \"namespace\": \"shop\"}}, \"data\": {{\"value\": \"{}\"}}}}\n",
            "x".repeat(200)
        ));
        if i % 1000 == 0 {
            yaml.push_str("---\n");
            yaml.push_str(EMPTY_LISTS[i / 1000 % 5].1);
            json.push_str(&null_list("DaemonSetList", "apps/v1"));
        }
    }
    assert!(yaml.len() > 3 * ownerlint::source::SLICE);
    for (name, text) in [("all.yaml", &yaml), ("all.json", &json)] {
        for full_parse in [false, true] {
            let options = Options {
                full_parse,
                ..Options::default()
            };
            let outcome = common::lint(name, text, &options);
            assert_eq!(
                outcome.stats.objects, count,
                "{name}, full parse: {full_parse}"
            );
            assert!(outcome.findings.is_empty(), "{name}");
        }
    }
}
