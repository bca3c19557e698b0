//! Consequences as a Kubernetes 1.36 control plane showed them: each message that says what
//! the API server or the garbage collector does agrees with what the cluster did.

use crate::common;

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
            "kind `replicaset` is `ReplicaSet` in lower case; the garbage collector maps it like `ReplicaSet` and no workload controller reads this reference, but tools that compare kinds exactly"
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

fn lint_with_fixes(text: &str) -> ownerlint::Outcome {
    common::lint("doc.yaml", text, &Options::default())
}

#[test]
fn an_orphan_finalizer_holds_only_for_deletes_that_name_no_policy() {
    let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n  finalizers:\n  - orphan\n";
    let outcome = lint_with_fixes(text);
    let short = common::render(&outcome, Format::Short);
    assert!(
        short.contains("every later delete that names no propagationPolicy (API clients, controllers, the garbage collector) an orphaning delete"),
        "{short}"
    );
    // `kubectl delete` sends `propagationPolicy: Background`, which replaces the finalizer.
    assert!(
        short.contains("`kubectl delete` names one on every delete (`Background` unless `--cascade` says otherwise), which replaces the finalizer"),
        "{short}"
    );
    let fix = outcome.findings[0].fix.as_ref().expect("a fix");
    assert_eq!(fix.applicability, ownerlint::finding::Applicability::Unsafe);
    assert_eq!(
        fix.message,
        "remove the `orphan` finalizer (deletes that name no propagation policy then delete its dependents)"
    );
}

fn controlled_by(kind_line: &str, dependent: &str, controller: bool) -> String {
    let flag = if controller {
        "    controller: true\n"
    } else {
        ""
    };
    format!(
        "{dependent}\n  ownerReferences:\n  - apiVersion: apps/v1\n    {kind_line}\n    name: web\n    uid: 4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b\n{flag}"
    )
}

const POD_HEAD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

#[test]
fn a_lower_case_controller_reference_is_not_counted_by_its_controller() {
    let text = format!(
        "{REPLICA_SET}---\n{}",
        controlled_by("kind: replicaset", POD_HEAD, true)
    );
    let outcome = lint_with_fixes(&text);
    let short = common::render(&outcome, Format::Short);
    assert_eq!(short.lines().count(), 1, "{short}");
    assert!(
        short.contains("error[owner-kind-lowercase]: Pod shop/web-1 → replicaset shop/web: kind `replicaset` is `ReplicaSet` in lower case; the garbage collector maps it like `ReplicaSet`, but the ReplicaSet controller finds its Pods by the exact kind of their controller reference, so it does not count Pod shop/web-1 as one of its own: it runs its Pods as if this one were not there (another beside it), and never removes it itself (scaling down leaves it running)"),
        "{short}"
    );
    // The right fix, but the controller then counts the Pod: not a no-op.
    let fix = outcome.findings[0].fix.as_ref().expect("a fix");
    assert_eq!(fix.applicability, ownerlint::finding::Applicability::Unsafe);
}

#[test]
fn a_lower_case_kind_no_controller_reads_is_a_spelling() {
    // Not the controller reference: the ReplicaSet controller never looks at it.
    let text = format!(
        "{REPLICA_SET}---\n{}",
        controlled_by("kind: replicaset", POD_HEAD, false)
    );
    let outcome = lint_with_fixes(&text);
    let short = common::render(&outcome, Format::Short);
    assert!(short.contains("warning[owner-kind-lowercase]"), "{short}");
    assert!(
        short
            .contains("the garbage collector maps it like `ReplicaSet` and no workload controller reads this reference, but tools"),
        "{short}"
    );
    let fix = outcome.findings[0].fix.as_ref().expect("a fix");
    assert_eq!(fix.applicability, ownerlint::finding::Applicability::Safe);
    // A controller reference from what the ReplicaSet does not control (a ConfigMap).
    let config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  namespace: shop\n  uid: 5b6a4978-8a9b-4c1d-8e3f-4a5b1f2e3d4c";
    let text = format!(
        "{REPLICA_SET}---\n{}",
        controlled_by("kind: replicaset", config_map, true)
    );
    let short = lint(&text);
    assert!(short.contains("warning[owner-kind-lowercase]"), "{short}");
}

#[test]
fn every_workload_controller_compares_the_kind_of_its_controller_reference() {
    let owner = |api: &str, kind: &str| {
        format!(
            "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: web\n  namespace: shop\n  uid: 4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b\n"
        )
    };
    let replica_set_head = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    let job_head = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    for (api, kind, dependent, says) in [
        (
            "apps/v1",
            "ReplicaSet",
            POD_HEAD,
            "does not count Pod shop/web-1",
        ),
        (
            "v1",
            "ReplicationController",
            POD_HEAD,
            "does not count Pod shop/web-1",
        ),
        ("batch/v1", "Job", POD_HEAD, "does not count Pod shop/web-1"),
        (
            "apps/v1",
            "DaemonSet",
            POD_HEAD,
            "does not count Pod shop/web-1",
        ),
        (
            "apps/v1",
            "StatefulSet",
            POD_HEAD,
            "does not count Pod shop/web-1",
        ),
        (
            "apps/v1",
            "Deployment",
            replica_set_head,
            "does not hear of changes to ReplicaSet shop/web-1",
        ),
        (
            "batch/v1",
            "CronJob",
            job_head,
            "does not hear of changes to Job shop/web-1",
        ),
    ] {
        let reference = controlled_by(&format!("kind: {}", kind.to_lowercase()), dependent, true)
            .replace(
                "apiVersion: apps/v1\n    kind",
                &format!("apiVersion: {api}\n    kind"),
            );
        let text = format!("{}---\n{reference}", owner(api, kind));
        let short = lint(&text);
        assert!(
            short.contains("error[owner-kind-lowercase]") && short.contains(says),
            "{kind}: {short}"
        );
    }
}

#[test]
fn a_cycle_closed_by_a_stale_uid_is_collected_not_a_cycle() {
    let config_map = |uid_of_secret: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: primary\n  namespace: shop\n  uid: 1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e\n  ownerReferences:\n  - apiVersion: v1\n    kind: Secret\n    name: primary-credentials\n    uid: {uid_of_secret}\n"
        )
    };
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: primary-credentials\n  namespace: shop\n  uid: 2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: primary\n    uid: 1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e\n";
    // Resolved by uid both ways: a cycle the collector never collects.
    let short = lint(&format!(
        "{}---\n{secret}",
        config_map("2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f")
    ));
    assert!(short.contains("warning[ownership-cycle]"), "{short}");
    // Closed by a uid that is not the Secret's: the collector deletes the ConfigMap at once,
    // then the Secret; only the mismatch is reported.
    let short = lint(&format!(
        "{}---\n{secret}",
        config_map("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a")
    ));
    assert!(!short.contains("ownership-cycle"), "{short}");
    assert!(short.contains("error[owner-uid-mismatch]"), "{short}");
}

#[test]
fn a_repeated_key_is_applied_with_its_last_value() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  name: second\n  namespace: shop\n";
    let short = common::lint_short_both_ways("doc.yaml", text);
    assert_eq!(
        short,
        "doc.yaml:5:3: warning[duplicate-key]: `name` is written twice in metadata of ConfigMap shop/second: kubectl applies the last value, `second`, without a word, and ignores the first (ownerlint reads it the same way)\n"
    );
}

#[test]
fn quoted_validation_texts_are_those_of_kubernetes_1_36() {
    let pod = |entry: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: worker\n  namespace: jobs\n  ownerReferences:\n  - apiVersion: v1\n{entry}"
        )
    };
    let short = lint(&pod("    kind: Namespace\n    name: jobs\n    uid: \"\"\n"));
    assert!(
        short.contains(
            "uid is empty (`metadata.ownerReferences.uid: Invalid value: \"\": must not be empty`)"
        ),
        "{short}"
    );
    let short = lint(&pod(
        "    kind: Namespace\n    uid: 7d2b0f0e-6f55-4c43-9a0b-2b1d3c4e5f60\n",
    ));
    assert!(
        short.contains(
            "has no name (`metadata.ownerReferences.name: Invalid value: \"\": must not be empty`)"
        ),
        "{short}"
    );
    let short = lint(
        &pod(
            "    kind: Namespace\n    name: jobs\n    uid: 7d2b0f0e-6f55-4c43-9a0b-2b1d3c4e5f60\n",
        )
        .replace("apiVersion: v1\n    kind", "apiVersion: apps/\n    kind"),
    );
    assert!(
        short.contains("(`metadata.ownerReferences.apiVersion: Invalid value: \"apps/\": version must not be empty`)"),
        "{short}"
    );
    // The qualified-name check has no index in its path; the built-in-kind check has one.
    let config_map = |finalizer: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n  finalizers:\n  - kubernetes\n  - {finalizer}\n"
        )
    };
    let short = lint(&config_map("example.com/a/b"));
    assert!(
        short.contains("(`metadata.finalizers: Invalid value: \"example.com/a/b\"`)"),
        "{short}"
    );
    let short = lint(&config_map("my-cleanup"));
    assert!(
        short.contains("(`metadata.finalizers[1]: Invalid value: \"my-cleanup\": name is neither a standard finalizer name nor is it fully qualified`)"),
        "{short}"
    );
}

#[test]
fn an_object_captured_terminating_without_a_finalizer_stays_until_deleted_by_hand() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: dts\n  uid: 6f1c2a9e-2f59-4c2b-9a51-3d8f7c1e0b42\n  resourceVersion: \"4821\"\n  deletionTimestamp: \"2024-05-02T10:11:12Z\"\n";
    let short = lint(text);
    assert!(
        short.contains("info[deletion-timestamp-in-manifest]: ConfigMap dts/settings was captured while being deleted (2024-05-02T10:11:12Z): no finalizer holds it, so a delete through the API would have removed it at once; still there, its deletionTimestamp was set another way (server-side apply keeps one written in a manifest), and nothing acts on it: it stays Terminating until it is deleted by hand"),
        "{short}"
    );
    assert!(
        !short.contains("as soon as the deletion completes"),
        "{short}"
    );
}

#[test]
fn what_kubectl_refuses_before_decoding_is_reported() {
    // A document with apiVersion and kind is an object, whatever their values.
    let short = common::lint_short_both_ways(
        "doc.yaml",
        "apiVersion: 1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n",
    );
    assert_eq!(
        short,
        "doc.yaml:1:13: error[field-type-invalid]: apiVersion must be a string, found the number 1: kubectl refuses ConfigMap shop/settings (`error validating data: apiVersion isn't string type`) and applies none of it\n"
    );
    let short = common::lint_short_both_ways(
        "doc.yaml",
        "apiVersion: v1\nkind: 1\nmetadata:\n  name: settings\n  namespace: shop\n",
    );
    assert!(
        short.starts_with("doc.yaml:2:7: error[field-type-invalid]: kind must be a string, found the number 1: kubectl refuses")
            && short.contains("(`error validating data: kind isn't string type`)"),
        "{short}"
    );
    for name in ["null", "", "~"] {
        let short = common::lint_short_both_ways(
            "doc.yaml",
            &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: shop\n"
            ),
        );
        assert!(
            short.starts_with("doc.yaml:4:")
                && short.contains("error[field-type-invalid]: metadata.name is null: the API server refuses ConfigMap shop/(unnamed) (`metadata.name: Required value: name or generateName is required`; `kubectl apply` says `resource name may not be empty`)"),
            "{name}: {short}"
        );
    }
    // `generateName` makes a name up.
    let short = common::lint_short_both_ways(
        "doc.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: settings-\n  name: null\n  namespace: shop\n",
    );
    assert_eq!(short, "");
    // Without values, apiVersion and kind do not make an object (a values file, a template).
    let outcome = common::lint(
        "doc.yaml",
        "apiVersion:\nkind:\nmetadata:\n  name: 1\n",
        &Options::default(),
    );
    assert!(outcome.findings.is_empty());
    assert_eq!(outcome.stats.skipped_documents, 1);
}

#[test]
fn a_cluster_info_dump_is_never_complete() {
    // `kubectl cluster-info dump --output-directory`: typed Lists, one per kind and namespace.
    let pods = r#"{
    "kind": "PodList",
    "apiVersion": "v1",
    "metadata": {"resourceVersion": "900"},
    "items": [
        {"metadata": {"name": "db-0", "namespace": "shop", "uid": "7a1b2c3d-0000-4000-8000-000000000002", "resourceVersion": "801",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "7a1b2c3d-0000-4000-8000-000000000003", "controller": true}]}},
        {"metadata": {"name": "web-5d8f7-x2k9p", "namespace": "shop", "uid": "7a1b2c3d-0000-4000-8000-000000000004", "resourceVersion": "802",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f7", "uid": "7a1b2c3d-0000-4000-8000-000000000005", "controller": true}]}}
    ]
}
"#;
    let replica_sets = r#"{"kind": "ReplicaSetList", "apiVersion": "apps/v1", "metadata": {"resourceVersion": "900"}, "items": []}
"#;
    let nodes = r#"{"kind": "NodeList", "apiVersion": "v1", "metadata": {"resourceVersion": "900"}, "items": [{"metadata": {"name": "node-1", "uid": "7a1b2c3d-0000-4000-8000-000000000001", "resourceVersion": "880"}}]}
"#;
    let texts = || {
        vec![
            ("nodes.json".to_string(), nodes.to_string()),
            ("shop/pods.json".to_string(), pods.to_string()),
            (
                "shop/replicasets.json".to_string(),
                replica_sets.to_string(),
            ),
        ]
    };
    let complete = Options {
        complete: true,
        ..Options::default()
    };
    let outcome = ownerlint::lint_texts(texts(), &complete);
    let short = common::render(&outcome, Format::Short);
    assert_eq!(
        short,
        "shop/pods.json:7:33: info[owner-not-found]: Pod shop/db-0 → StatefulSet shop/db: StatefulSet shop/db is not in this `kubectl cluster-info dump`, which holds no StatefulSets; if it is gone from the cluster too, the garbage collector deletes Pod shop/db-0 (no other owner keeps it)\n\
         shop/pods.json:9:33: error[owner-not-found]: Pod shop/web-5d8f7-x2k9p → ReplicaSet shop/web-5d8f7: ReplicaSet shop/web-5d8f7 does not exist in this input, which is complete: the garbage collector deletes Pod shop/web-5d8f7-x2k9p (no other owner keeps it)\n"
    );
    let summary = ownerlint::report::summary_line(&outcome);
    assert!(
        summary.contains("--complete: this is a `kubectl cluster-info dump`, which holds only Pods, ReplicaSets, Deployments, DaemonSets, ReplicationControllers, Services, Events and Nodes"),
        "{summary}"
    );
    // `tree` and `delete-preview` count the same owners as gone: the ReplicaSet, not the
    // StatefulSet.
    let analysis = ownerlint::analyze_texts(texts(), &complete);
    let graph = ownerlint::graph::Graph::build(&analysis, true);
    let mut dangling: Vec<(String, bool)> = graph
        .edges
        .iter()
        .map(|e| (analysis.display_name(e.dependent), e.dangling))
        .collect();
    dangling.sort();
    assert_eq!(
        dangling,
        [
            ("Pod shop/db-0".to_string(), false),
            ("Pod shop/web-5d8f7-x2k9p".to_string(), true)
        ]
    );
    // Without --complete nothing changes; with any other kind, the input may be complete.
    let short = common::render(
        &ownerlint::lint_texts(texts(), &Options::default()),
        Format::Short,
    );
    assert_eq!(short.matches("info[owner-not-found]").count(), 2, "{short}");
    let mut with_config_map = texts();
    with_config_map.push((
        "shop/kube-root-ca.yaml".to_string(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-root-ca.crt\n  namespace: shop\n  uid: 7a1b2c3d-0000-4000-8000-000000000006\n".to_string(),
    ));
    let outcome = ownerlint::lint_texts(with_config_map, &complete);
    let short = common::render(&outcome, Format::Short);
    assert_eq!(
        short.matches("error[owner-not-found]").count(),
        2,
        "{short}"
    );
    assert!(!ownerlint::report::summary_line(&outcome).contains("cluster-info"));
}

#[test]
fn a_resource_version_makes_an_apply_over_the_live_object_fail() {
    let options = Options {
        mode: ownerlint::load::ModeChoice::Apply,
        ..Options::default()
    };
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n  resourceVersion: \"48213\"\n";
    let short = common::render(&common::lint("doc.yaml", text, &options), Format::Short);
    assert!(
        short.contains("which kubectl drops first, and over the live object every apply (server-side too) or replace fails (`409 … the object has been modified`) once the object has changed since it was copied"),
        "{short}"
    );
}

#[test]
fn quoted_texts_of_the_rule_documents_examples_are_those_of_kubernetes_1_36() {
    for (id, quoted) in [
        (
            "banned-owner",
            "(`/v1, Kind=Event is disallowed from being an owner`)",
        ),
        (
            "multiple-controllers",
            "(`Only one reference can have Controller set to true. Found \"true\" in references for ReplicaSet/web and StatefulSet/web`)",
        ),
        (
            "duplicate-owner-ref",
            "`duplicate UID(s) observed: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d`",
        ),
        (
            "duplicate-owner-ref",
            "(`duplicate entries for key [uid=…]`)",
        ),
        (
            "finalizer-unqualified",
            "(`metadata.finalizers[0]: Invalid value: \"cleanup\": name is neither a standard finalizer name nor is it fully qualified`)",
        ),
        (
            "owner-ref-invalid",
            "(`metadata.ownerReferences.uid: Invalid value: \"\": must not be empty`)",
        ),
        (
            "finalizer-invalid",
            "(`metadata.finalizers: Invalid value: \"example.com/cleanup/now\"`)",
        ),
        (
            "cluster-scoped-dependent",
            "(it logs `item is cluster-scoped, but refers to a namespaced owner`)",
        ),
        (
            "system-fields-in-manifest",
            "(`resourceVersion should not be set on objects to be created`)",
        ),
        (
            "system-fields-in-manifest",
            "(`metadata.managedFields must be nil`)",
        ),
    ] {
        let doc = ownerlint::rules::RULES
            .iter()
            .find(|r| r.meta.id == id)
            .expect("the rule")
            .meta
            .doc;
        let example = common::example(doc, "## Failing example").expect("its example");
        let outcome = common::lint("doc.yaml", &example, &common::doc_options(doc));
        let short = common::render(&outcome, Format::Short);
        assert!(short.contains(quoted), "{id}: {short}");
    }
}

#[test]
fn a_dependent_with_an_owner_the_collector_cannot_look_up_is_kept_not_deleted() {
    // The second reference names an API version Kubernetes no longer serves: the collector
    // retries the Pod for ever and deletes nothing, as delete-preview shows.
    let text = format!(
        "{}  - apiVersion: extensions/v1beta1\n    kind: Deployment\n    name: web\n    uid: 5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e\n",
        pod_owned_by("ReplicaSet", "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a")
    );
    let short = lint(&format!("{REPLICA_SET}---\n{text}"));
    let mismatch = short
        .lines()
        .find(|l| l.contains("owner-uid-mismatch"))
        .unwrap_or_default();
    assert!(
        mismatch.ends_with("the garbage collector keeps Pod shop/web-1, because it cannot resolve its reference to Deployment shop/web and retries it (this reference stays)"),
        "{short}"
    );
}

#[test]
fn a_dependent_of_unknown_scope_says_a_cluster_scoped_one_is_never_collected() {
    // No CRD says whether a ClusterResourceBinding is namespaced: were it cluster-scoped, its
    // namespaced owner would be refused (OBSERVED B) and it would never be collected.
    let text = "apiVersion: work.karmada.io/v1alpha2\nkind: ClusterResourceBinding\nmetadata:\n  name: web\n  namespace: shop\n  ownerReferences:\n  - apiVersion: v1\n    kind: Service\n    name: web\n    uid: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\n";
    let short = lint(text);
    assert!(
        short.contains(
            "the garbage collector deletes ClusterResourceBinding shop/web (no other owner keeps it); if ClusterResourceBinding is cluster-scoped, the collector refuses this reference and never collects it"
        ),
        "{short}"
    );
    // A built-in kind's scope is known: no such clause.
    let short = lint(&pod_owned_by(
        "ReplicaSet",
        "4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b",
    ));
    assert!(!short.contains("if Pod is cluster-scoped"), "{short}");
}
