//! A cluster's API discovery among the inputs: the aggregated discovery document
//! (`APIGroupDiscoveryList`) of a real Kubernetes 1.36 cluster (`testdata/discovery`, the
//! cluster of the dump in `cluster_dump.rs`) decides which versions serve a kind and a custom
//! kind's scope, for that cluster; its groups are not objects.

use crate::common;

/// A snapshot with a custom kind the discovery lists (`example.com/v1 Widget`, namespaced) and
/// no CRD for it: one reference at the served version, one at a version the cluster does not
/// serve, and a cluster-scoped object owned by a Widget.
const DUMP: &str = "\
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: shop, uid: 3f1c2b4a-1111-4a3b-9c2d-1e0f9a8b7c6d, resourceVersion: \"10\"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: w1-cache
  namespace: shop
  uid: 3f1c2b4a-2222-4a3b-9c2d-1e0f9a8b7c6d
  resourceVersion: \"11\"
  ownerReferences:
  - {apiVersion: example.com/v1, kind: Widget, name: w1, uid: 3f1c2b4a-1111-4a3b-9c2d-1e0f9a8b7c6d}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: w1-old
  namespace: shop
  uid: 3f1c2b4a-3333-4a3b-9c2d-1e0f9a8b7c6d
  resourceVersion: \"12\"
  ownerReferences:
  - {apiVersion: example.com/v2, kind: Widget, name: w1, uid: 3f1c2b4a-1111-4a3b-9c2d-1e0f9a8b7c6d}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widget-reader
  uid: 3f1c2b4a-4444-4a3b-9c2d-1e0f9a8b7c6d
  resourceVersion: \"13\"
  ownerReferences:
  - {apiVersion: example.com/v1, kind: Widget, name: w9, uid: 3f1c2b4a-5555-4a3b-9c2d-1e0f9a8b7c6d}
";

fn discovery_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/discovery")
}

/// Each finding's rule and line.
fn rules_and_lines(short: &str) -> Vec<String> {
    short
        .lines()
        .filter_map(|line| {
            let (place, rest) = line.split_once(": ")?;
            let line_number = place.split(':').nth(1)?;
            let rule = rest.split_once('[')?.1.split_once(']')?.0;
            Some(format!("{rule}:{line_number}"))
        })
        .collect()
}

#[test]
fn a_clusters_discovery_decides_served_versions_and_scopes() {
    let dir = common::temp_dir("discovery");
    common::write_files(dir.path(), &[("dump.yaml", DUMP)]);
    let dump = dir.path().join("dump.yaml");
    // Without it, the custom kind's scope and versions are unknown: said, not guessed.
    let without = common::ownerlint().arg("--no-config").arg(&dump).run();
    assert_eq!(
        rules_and_lines(&without.stdout),
        ["owner-not-found:32", "owner-kind-unknown:32"],
        "{}",
        without.stdout
    );
    // With it, as an input or with --existing: the same findings, exact for that cluster.
    let as_input = common::ownerlint()
        .arg("--no-config")
        .arg(discovery_dir())
        .arg(&dump)
        .run();
    let as_existing = common::ownerlint()
        .args(["--no-config", "--existing"])
        .arg(discovery_dir())
        .arg(&dump)
        .run();
    for run in [&as_input, &as_existing] {
        assert_eq!(run.code(), Some(1), "{}", run.printed());
        assert_eq!(
            rules_and_lines(&run.stdout),
            ["owner-api-unserved:23", "cluster-scoped-dependent:32"],
            "{}",
            run.stdout
        );
        assert!(
            run.stdout.contains(
                "ConfigMap shop/w1-old → Widget shop/w1: the cluster does not serve Widget at \
                 example.com/v2 (its API discovery lists v1): the garbage collector cannot map \
                 the reference"
            ),
            "{}",
            run.stdout
        );
        assert!(
            run.stdout
                .contains("ClusterRole widget-reader is cluster-scoped and Widget is namespaced"),
            "{}",
            run.stdout
        );
        // The 22 groups (the core group and 21 others) are not objects.
        assert!(
            run.stderr.contains("ownerlint: 4 objects in ")
                && run
                    .stderr
                    .contains(", with a cluster's API discovery of 22 groups; 3 owner references and 0 finalizers checked: 2 errors"),
            "{}",
            run.stderr
        );
    }
    // Nor are they drawn as objects.
    let tree = common::ownerlint()
        .args(["tree", "--no-config"])
        .arg(discovery_dir())
        .arg(&dump)
        .run();
    assert_eq!(tree.code(), Some(0), "{}", tree.printed());
    assert!(
        !tree.stdout.contains("APIGroupDiscovery"),
        "{}",
        tree.stdout
    );
    assert!(tree.stdout.contains("Widget shop/w1"), "{}", tree.stdout);
}

#[test]
fn a_stale_group_is_known_only_in_part() {
    // Its aggregated API did not answer: v2 may be served, and is not called unserved; v1's
    // scope is still taken.
    const STALE: &str = "\
apiVersion: apidiscovery.k8s.io/v2
kind: APIGroupDiscoveryList
metadata: {}
items:
- metadata: {name: example.com}
  versions:
  - version: v2
    freshness: Stale
    resources: []
  - version: v1
    resources:
    - {resource: widgets, responseKind: {group: '', version: '', kind: Widget}, scope: Namespaced, verbs: [get, list]}
";
    let dir = common::temp_dir("discovery-stale");
    common::write_files(
        dir.path(),
        &[("dump.yaml", DUMP), ("discovery.yaml", STALE)],
    );
    let run = common::ownerlint().arg("--no-config").arg(dir.path()).run();
    assert_eq!(
        rules_and_lines(&run.stdout),
        ["cluster-scoped-dependent:32"],
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .contains("with a cluster's API discovery of 1 group; "),
        "{}",
        run.stderr
    );
}
