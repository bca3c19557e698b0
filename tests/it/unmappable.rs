//! Owners the garbage collector cannot map (a group the cluster does not serve, a kind a served
//! custom group does not have, a version a CustomResourceDefinition does not serve, a removed
//! version): on a Kubernetes 1.36.2 control plane the collector logged `unable to get REST
//! mapping for …`, kept the dependent for ever and, where it blocked owner deletion, left a
//! foreground delete of the object holding its uid Terminating. Known from a cluster's API
//! discovery (in a file, or read with `--cluster`) and from CustomResourceDefinitions; without
//! them a custom group stays unknown.

use crate::common;

/// A dump of one namespace: `owner`, and three ConfigMaps whose owners the 1.36 collector could
/// not map — `wrong.example.com/v1 ConfigMap` with owner's real uid (blocking owner deletion),
/// `nosuch.example.org/v1 Thing`, and `example.com/v1 Sprocket` (the cluster of
/// `testdata/discovery` serves example.com with Widget only).
const DUMP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata: {name: owner, namespace: shop, uid: 11111111-0000-4000-8000-000000000001}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: by-wrong-group
  namespace: shop
  uid: 11111111-0000-4000-8000-000000000002
  ownerReferences:
  - {apiVersion: wrong.example.com/v1, kind: ConfigMap, name: owner, uid: 11111111-0000-4000-8000-000000000001, blockOwnerDeletion: true}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: by-nosuch
  namespace: shop
  uid: 11111111-0000-4000-8000-000000000003
  ownerReferences:
  - {apiVersion: nosuch.example.org/v1, kind: Thing, name: thing, uid: 11111111-0000-4000-8000-000000000009}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: by-sprocket
  namespace: shop
  uid: 11111111-0000-4000-8000-000000000004
  ownerReferences:
  - {apiVersion: example.com/v1, kind: Sprocket, name: s, uid: 11111111-0000-4000-8000-000000000008}
";

fn discovery_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/discovery")
}

/// Each finding of a short report as `rule:line`.
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

fn dump_dir(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = common::temp_dir(name);
    common::write_files(dir.path(), &[("dump.yaml", DUMP)]);
    let dump = dir.path().join("dump.yaml");
    (dir, dump)
}

#[test]
fn discovery_makes_an_unserved_group_or_kind_an_owner_the_collector_cannot_map() {
    let (_dir, dump) = dump_dir("unmappable");
    // Without discovery, a custom group is unknown: said, not guessed.
    let without = common::ownerlint()
        .args(["--no-config", "--format", "short"])
        .arg(&dump)
        .run();
    assert!(
        !without.stdout.contains("owner-api-unserved"),
        "{}",
        without.stdout
    );
    // Nor is the collector said to delete them outright: whether it can map the reference
    // decides, and the uid's holder is said to differ in its group only.
    for expected in [
        "uid `11111111-0000-4000-8000-000000000001` belongs to ConfigMap shop/owner, not to the \
         wrong.example.com/v1 ConfigMap/owner the reference names; the garbage collector finds \
         that object by uid, sees that its group differs, and treats the owner as absent, so the \
         garbage collector deletes ConfigMap shop/by-wrong-group (no other owner keeps it); if \
         the cluster does not serve ConfigMap in wrong.example.com/v1, the collector cannot map \
         this reference and keeps the dependent for ever\n",
        "the garbage collector deletes ConfigMap shop/by-nosuch (no other owner keeps it); if the \
         cluster does not serve Thing in nosuch.example.org/v1, the collector cannot map this \
         reference and keeps the dependent for ever\n",
    ] {
        assert!(
            without.stdout.contains(expected),
            "{expected}\n{}",
            without.stdout
        );
    }
    let with = common::ownerlint()
        .args(["--no-config", "--format", "short"])
        .arg(discovery_dir())
        .arg(&dump)
        .run();
    assert_eq!(with.code(), Some(1), "{}", with.printed());
    assert_eq!(
        rules_and_lines(&with.stdout),
        [
            "owner-api-unserved:12",
            "owner-api-unserved:21",
            "owner-api-unserved:30"
        ],
        "{}",
        with.stdout
    );
    for expected in [
        "ConfigMap shop/by-wrong-group → ConfigMap shop/owner: the cluster does not serve group \
         wrong.example.com at all (its API discovery lists no such group): the garbage collector \
         cannot map the reference, retries it forever, and never collects ConfigMap \
         shop/by-wrong-group even when all its owners are gone; and since it blocks owner \
         deletion, a foreground delete of ConfigMap shop/owner, which holds its uid, waits for it \
         for ever",
        "ConfigMap shop/by-nosuch → Thing shop/thing: the cluster does not serve group \
         nosuch.example.org at all (its API discovery lists no such group): the garbage \
         collector cannot map the reference, retries it forever, and never collects ConfigMap \
         shop/by-nosuch even when all its owners are gone\n",
        "ConfigMap shop/by-sprocket → Sprocket shop/s: the cluster serves group example.com \
         without a kind Sprocket (its API discovery lists Widget): the garbage collector cannot \
         map the reference",
    ] {
        assert!(
            with.stdout.contains(expected),
            "{expected}\n{}",
            with.stdout
        );
    }
    // Nothing says the collector deletes them.
    assert!(!with.stdout.contains("deletes"), "{}", with.stdout);
    let json = common::ownerlint()
        .args(["--no-config", "--format", "json"])
        .arg(discovery_dir())
        .arg(&dump)
        .run();
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let helps: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["help"].as_str())
        .collect();
    assert_eq!(helps[0], "did you mean v1 ConfigMap?", "{helps:?}");
}

#[test]
fn delete_preview_and_tree_never_collect_a_dependent_the_collector_cannot_map() {
    let (_dir, dump) = dump_dir("unmappable-preview");
    let preview = |cascade: &str, complete: bool| {
        let run = common::ownerlint()
            .args(["delete-preview", "--no-config", "-n", "shop", "cm/owner"])
            .args(["--cascade", cascade])
            .args(complete.then_some("--complete"))
            .arg(discovery_dir())
            .arg(&dump)
            .run();
        assert_eq!(run.code(), Some(0), "{}", run.printed());
        run.stdout
    };
    let never = "Never collected, because the garbage collector cannot resolve a reference of \
                 theirs (unable to get REST mapping, or a namespaced owner of a cluster-scoped \
                 object) and retries it for ever:\n  - ConfigMap shop/by-wrong-group\n";
    assert_eq!(
        preview("background", false),
        format!(
            "Deleting ConfigMap shop/owner (cascade: background)\n\nDeleted (1):\n  - ConfigMap \
             shop/owner\n\n{never}"
        )
    );
    // The collector links the dependent to `owner` by uid and waits for it, in vain.
    assert_eq!(
        preview("foreground", false),
        format!(
            "Deleting ConfigMap shop/owner (cascade: foreground)\n\nDeleted (0):\n\n\
             Stay Terminating, not deleted (1):\n  - ConfigMap shop/owner: held by \
             foregroundDeletion for as long as ConfigMap shop/by-wrong-group \
             (blockOwnerDeletion: true) stays\n\n{never}"
        )
    );
    // Orphaning removes the reference by uid, whatever its apiVersion.
    assert!(
        preview("orphan", false).contains(
            "Survive, losing a reference:\n  - ConfigMap shop/by-wrong-group (no longer owned by \
             ConfigMap shop/owner)\n"
        ),
        "{}",
        preview("orphan", false)
    );
    // With the dump complete, a missing owner is gone; an unmappable one still keeps its
    // dependents: nothing is deleted on apply.
    assert!(
        !preview("background", true).contains("as soon as this input is applied"),
        "{}",
        preview("background", true)
    );
    let tree = common::ownerlint()
        .args(["tree", "--no-config"])
        .arg(discovery_dir())
        .arg(&dump)
        .run();
    assert_eq!(
        tree.stdout,
        "ConfigMap shop/owner\n\
         └── ConfigMap shop/by-wrong-group  [blocks owner deletion]  ✗ unmappable \
         apiVersion/kind: never collected\n\
         ✗ Thing shop/thing (unmappable apiVersion/kind: never collected)\n\
         └── ConfigMap shop/by-nosuch\n\
         ✗ Sprocket shop/s (unmappable apiVersion/kind: never collected)\n\
         └── ConfigMap shop/by-sprocket\n",
        "{}",
        tree.stderr
    );
}

/// A removed version (`extensions/v1beta1 ReplicaSet`) is the same case: the 1.36 collector
/// could not map it either (OBSERVED B, E).
#[test]
fn a_removed_version_is_never_collected_and_hangs_a_foreground_delete() {
    let dir = common::temp_dir("unmappable-removed");
    common::write_files(
        dir.path(),
        &[(
            "dump.yaml",
            "\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f7, namespace: shop, uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-5d8f7-x2k9p
  namespace: shop
  uid: 5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d
  ownerReferences:
  - {apiVersion: extensions/v1beta1, kind: ReplicaSet, name: web-5d8f7, uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b, controller: true, blockOwnerDeletion: true}
",
        )],
    );
    let dump = dir.path().join("dump.yaml");
    let lint = common::ownerlint()
        .args(["--no-config", "--format", "short"])
        .arg(&dump)
        .run();
    assert!(
        lint.stdout.contains(
            "extensions/v1beta1 ReplicaSet is not served since Kubernetes 1.16 (checked against \
             Kubernetes 1.36): the garbage collector cannot map the reference, retries it \
             forever, and never collects Pod shop/web-5d8f7-x2k9p even when all its owners are \
             gone; and since it blocks owner deletion, a foreground delete of ReplicaSet \
             shop/web-5d8f7, which holds its uid, waits for it for ever"
        ),
        "{}",
        lint.stdout
    );
    let run = common::ownerlint()
        .args([
            "delete-preview",
            "--no-config",
            "-n",
            "shop",
            "rs/web-5d8f7",
        ])
        .args(["--cascade", "foreground", "--format", "json"])
        .arg(&dump)
        .run();
    let preview: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(preview["deleted"], serde_json::json!([]), "{}", run.stdout);
    assert_eq!(preview["terminating"][0]["name"], "web-5d8f7");
    assert_eq!(
        preview["terminating"][0]["heldBy"],
        serde_json::json!(["foregroundDeletion"])
    );
    assert_eq!(
        preview["terminating"][0]["blockedBy"][0]["name"],
        "web-5d8f7-x2k9p"
    );
    assert_eq!(preview["neverCollected"][0]["name"], "web-5d8f7-x2k9p");
}

/// A version a CustomResourceDefinition declares with `served: false`, or does not declare,
/// is unmappable too; a group's kinds are not taken from the CustomResourceDefinitions of the
/// input (Argo CD's repository declares three kinds of `argoproj.io`, and objects there are
/// owned by Argo Rollouts' `Rollout`, another project's kind of the same group).
#[test]
fn a_version_a_definition_does_not_serve_is_unmappable_but_not_a_kind_it_does_not_declare() {
    let dir = common::temp_dir("unmappable-crd");
    common::write_files(
        dir.path(),
        &[(
            "all.yaml",
            "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - {name: v1, served: true, storage: true}
  - {name: v1beta1, served: false, storage: false}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: by-unserved-version
  namespace: shop
  ownerReferences:
  - {apiVersion: example.com/v1beta1, kind: Widget, name: w, uid: 22222222-0000-4000-8000-000000000001}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: by-undeclared-version
  namespace: shop
  ownerReferences:
  - {apiVersion: example.com/v2, kind: Widget, name: w, uid: 22222222-0000-4000-8000-000000000001}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: by-other-kind
  namespace: shop
  ownerReferences:
  - {apiVersion: example.com/v1, kind: Sprocket, name: s, uid: 22222222-0000-4000-8000-000000000002}
",
        )],
    );
    let run = common::ownerlint()
        .args(["--no-config", "--format", "short"])
        .arg(dir.path().join("all.yaml"))
        .run();
    assert_eq!(
        rules_and_lines(&run.stdout),
        [
            "owner-api-unserved:18",
            "owner-api-unserved:26",
            "owner-not-found:34",
            "owner-kind-unknown:34",
        ],
        "{}",
        run.stdout
    );
    for expected in [
        "ConfigMap shop/by-unserved-version → Widget shop/w: Widget is not served at \
         example.com/v1beta1 (its CustomResourceDefinition serves v1): the garbage collector \
         cannot map the reference, retries it forever, and never collects",
        "ConfigMap shop/by-undeclared-version → Widget shop/w: Widget is not served at \
         example.com/v2 (its CustomResourceDefinition serves v1): the garbage collector cannot \
         map the reference",
    ] {
        assert!(run.stdout.contains(expected), "{expected}\n{}", run.stdout);
    }
}

/// The collector fails on a reference it cannot map before it looks at the others
/// (`classifyReferences`): a dependent with one is kept whatever its other owners, and a dangling
/// reference beside it is not removed.
#[test]
fn an_unmappable_reference_keeps_the_dependent_whatever_its_other_owners() {
    let dir = common::temp_dir("unmappable-mixed");
    common::write_files(
        dir.path(),
        &[(
            "mixed.yaml",
            "\
apiVersion: v1
kind: ConfigMap
metadata: {name: owner, namespace: shop, uid: 11111111-0000-4000-8000-000000000001}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: mixed
  namespace: shop
  uid: 11111111-0000-4000-8000-000000000005
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: 11111111-0000-4000-8000-000000000001}
  - {apiVersion: nosuch.example.org/v1, kind: Thing, name: thing, uid: 11111111-0000-4000-8000-000000000009}
  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: 11111111-0000-4000-8000-0000000000ff}
",
        )],
    );
    let mixed = dir.path().join("mixed.yaml");
    let lint = common::ownerlint()
        .args(["--no-config", "--format", "short"])
        .arg(discovery_dir())
        .arg(&mixed)
        .run();
    assert!(
        lint.stdout.contains(
            "so the owner counts as gone and the garbage collector keeps ConfigMap shop/mixed, \
             because it cannot resolve its reference to Thing shop/thing and retries it (this \
             reference stays)"
        ),
        "{}",
        lint.stdout
    );
    let preview = common::ownerlint()
        .args(["delete-preview", "--no-config", "-n", "shop", "cm/owner"])
        .arg(discovery_dir())
        .arg(&mixed)
        .run();
    assert!(
        preview
            .stdout
            .ends_with("retries it for ever:\n  - ConfigMap shop/mixed\n")
            && !preview.stdout.contains("Survive"),
        "{}",
        preview.stdout
    );
}
