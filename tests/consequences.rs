//! Consequences as a Kubernetes 1.36 control plane showed them: each message that says what
//! the API server or the garbage collector does agrees with what the cluster did.

mod common;

use ownerlint::Options;
use ownerlint::report::Format;

fn lint(text: &str) -> String {
    common::render(
        &common::lint("doc.yaml", text, &Options::default()),
        Format::Short,
    )
}

const REPLICA_SET: &str = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web\n  namespace: shop\n  uid: 4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b\n";

fn pod_owned_by(kind: &str, uid: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: {kind}\n    name: web\n    uid: {uid}\n"
    )
}

#[test]
fn an_all_lower_case_kind_resolves_like_the_canonical_one() {
    // Resolved: the owner is found, so a stale uid is a mismatch, not an unmappable reference.
    let text = format!(
        "{REPLICA_SET}---\n{}",
        pod_owned_by("replicaset", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")
    );
    let short = lint(&text);
    assert!(short.contains("error[owner-uid-mismatch]"), "{short}");
    assert!(short.contains("warning[owner-kind-lowercase]"), "{short}");
    assert!(!short.contains("owner-api-unserved"), "{short}");
    // With the right uid, only the spelling is left.
    let text = format!(
        "{REPLICA_SET}---\n{}",
        pod_owned_by("replicaset", "4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b")
    );
    let short = lint(&text);
    assert_eq!(short.lines().count(), 1, "{short}");
    assert!(
        short.contains(
            "kind `replicaset` is `ReplicaSet` in lower case; Kubernetes maps it like `ReplicaSet`"
        ),
        "{short}"
    );
}

#[test]
fn other_mis_casings_are_never_collected() {
    let text = format!(
        "{REPLICA_SET}---\n{}",
        pod_owned_by("replicaSet", "4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b")
    );
    let short = lint(&text);
    assert!(short.contains("error[owner-api-unserved]"), "{short}");
    assert!(short.contains("never collects Pod shop/web-1"), "{short}");
}

#[test]
fn a_lower_case_core_event_passes_the_ban_but_points_at_an_event() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  namespace: ops\n  ownerReferences:\n  - apiVersion: v1\n    kind: event\n    name: web.17a2b3c4d5e6f708\n    uid: 1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b\n";
    let short = lint(text);
    assert!(!short.contains("banned-owner"), "{short}");
    assert!(
        short.contains("warning[owner-kind-lowercase]") && short.contains("points at a core Event"),
        "{short}"
    );
}

const CONFIG_B: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: b\n  uid: 11111111-1111-4111-8111-111111111111\n";

fn secret_in_a_owned_by(name: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: a\n  uid: 33333333-3333-4333-8333-333333333333\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: {name}\n    uid: 11111111-1111-4111-8111-111111111111\n"
    )
}

#[test]
fn a_uid_held_in_another_namespace_is_cross_namespace_even_with_a_same_name_object_here() {
    let here = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: a\n  uid: 22222222-2222-4222-8222-222222222222\n";
    let text = format!("{CONFIG_B}---\n{here}---\n{}", secret_in_a_owned_by("cfg"));
    let short = lint(&text);
    assert_eq!(short.lines().count(), 1, "{short}");
    assert!(
        short.contains("error[cross-namespace-owner]: Secret a/s → ConfigMap a/cfg: the reference's uid `11111111-1111-4111-8111-111111111111` belongs to ConfigMap b/cfg in another namespace, not to ConfigMap a/cfg here"),
        "{short}"
    );
    assert!(short.contains("`OwnerRefInvalidNamespace`"), "{short}");
}

#[test]
fn a_uid_held_in_another_namespace_by_another_object_is_cross_namespace() {
    let text = format!("{CONFIG_B}---\n{}", secret_in_a_owned_by("other"));
    let short = lint(&text);
    assert!(
        short.contains("error[cross-namespace-owner]: Secret a/s → ConfigMap a/other: the reference's uid `11111111-1111-4111-8111-111111111111` belongs to ConfigMap b/cfg in another namespace"),
        "{short}"
    );
    assert!(!short.contains("owner-uid-mismatch"), "{short}");
}

#[test]
fn a_snapshot_proves_its_cluster_served_what_it_holds() {
    let replica_set = "apiVersion: extensions/v1beta1\nkind: ReplicaSet\nmetadata:\n  name: web\n  namespace: shop\n  uid: 4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b\n";
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\n  ownerReferences:\n  - apiVersion: extensions/v1beta1\n    kind: ReplicaSet\n    name: web\n    uid: 4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b\n    controller: true\n";
    // The dump holds the ReplicaSet at extensions/v1beta1: its cluster served it.
    assert_eq!(lint(&format!("{replica_set}---\n{pod}")), "");
    // Without that evidence, the release checked against decides.
    let short = lint(pod);
    assert!(short.contains("error[owner-api-unserved]"), "{short}");
}

#[test]
fn an_owner_manifest_that_carries_a_uid_is_told_what_server_side_apply_does() {
    let options = Options {
        mode: ownerlint::load::ModeChoice::Apply,
        ..Options::default()
    };
    let text = format!(
        "{REPLICA_SET}---\n{}",
        pod_owned_by("ReplicaSet", "4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b")
    );
    let short = common::render(&common::lint("doc.yaml", &text, &options), Format::Short);
    assert!(
        short.contains("error[owner-created-with-fresh-uid]"),
        "{short}"
    );
    assert!(
        short.contains("the uid its manifest carries is dropped on create, and server-side apply refuses such a manifest (`409 … uid mismatch`)"),
        "{short}"
    );
}

#[test]
fn a_capture_whose_uid_was_left_out_is_still_a_snapshot() {
    let pod = |meta: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n{meta}  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: 4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b\n"
        )
    };
    // What only a cluster writes: the owner's absence says the capture is partial.
    for meta in [
        "  resourceVersion: \"187177\"\n",
        "  creationTimestamp: \"2024-05-01T09:00:00Z\"\n",
    ] {
        let short = common::lint_short_both_ways("doc.yaml", &pod(meta));
        assert!(
            short.starts_with("doc.yaml:8:3: info[owner-not-found]"),
            "{short}"
        );
    }
    // `kubectl create --dry-run -o yaml` writes `creationTimestamp: null` into manifests.
    let short = common::lint_short_both_ways("doc.yaml", &pod("  creationTimestamp: null\n"));
    assert!(
        short.starts_with("doc.yaml:8:3: warning[owner-not-found]"),
        "{short}"
    );
}
