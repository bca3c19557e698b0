//! `delete-preview` with finalizers and deletion state, checked against what a Kubernetes 1.36.2
//! control plane did with the same objects (`kubectl delete deploy/web --wait=false` in each
//! cascade): an object held by a finalizer stays Terminating instead of going, a foreground
//! owner it blocks stays Terminating with it, orphaning is unchanged; and an object a dump
//! caught while it was being deleted is shown as such.

use crate::common;

const SCENARIO: &str = "testdata/graph/finalizer-held.yaml";

fn preview(args: &[&str]) -> String {
    let run = common::ownerlint()
        .args(["delete-preview", "--no-config", "-n", "shop"])
        .args(args)
        .run();
    assert_eq!(run.code(), Some(0), "{}", run.printed());
    run.stdout
}

#[test]
fn background_deletes_all_but_the_dependent_a_finalizer_holds() {
    // Seen: web, the ReplicaSet, the Pods, cm-a, cm-b, cm-grand and sec-shared deleted; cm-fin
    // Terminating (finalizer kept, still owned by web); sec-keep stays, owned by keeper alone.
    assert_eq!(
        preview(&["deploy/web", "--cascade", "background", SCENARIO]),
        "Deleting Deployment shop/web (cascade: background)\n\n\
         Deleted (8):\n  - Deployment shop/web\n  - ReplicaSet shop/web-7d9f\n  \
         - ConfigMap shop/cm-a\n  - ConfigMap shop/cm-b\n  - Secret shop/sec-shared\n  \
         - Pod shop/web-7d9f-a\n  - Pod shop/web-7d9f-b\n  - ConfigMap shop/cm-grand\n\n\
         Stay Terminating, not deleted (1):\n  - ConfigMap shop/cm-fin: until example.com/hold \
         is removed\n\n\
         Survive, losing a reference:\n  - Secret shop/sec-keep (no longer owned by Deployment \
         shop/web)\n"
    );
}

#[test]
fn foreground_leaves_the_owner_terminating_while_a_held_dependent_blocks_it() {
    // Seen: every dependent went but cm-fin (Terminating), and web stayed Terminating with
    // finalizer foregroundDeletion for as long as cm-fin's finalizer stayed.
    assert_eq!(
        preview(&["deploy/web", "--cascade", "foreground", SCENARIO]),
        "Deleting Deployment shop/web (cascade: foreground)\n\n\
         Deleted (7):\n   1. ConfigMap shop/cm-grand\n   2. Pod shop/web-7d9f-b\n   \
         3. Pod shop/web-7d9f-a\n   4. Secret shop/sec-shared\n   5. ConfigMap shop/cm-b\n   \
         6. ConfigMap shop/cm-a\n   7. ReplicaSet shop/web-7d9f\n\n\
         Stay Terminating, not deleted (2):\n  - Deployment shop/web: held by foregroundDeletion \
         for as long as ConfigMap shop/cm-fin (blockOwnerDeletion: true) stays\n  \
         - ConfigMap shop/cm-fin: until example.com/hold is removed\n\n\
         Deployment shop/web waits for these to go first (blockOwnerDeletion: true):\n  \
         - ReplicaSet shop/web-7d9f\n  - ConfigMap shop/cm-a\n\n\
         Survive, losing a reference:\n  - Secret shop/sec-keep (no longer owned by Deployment \
         shop/web)\n"
    );
    let json = preview(&[
        "deploy/web",
        "--cascade",
        "foreground",
        "--format",
        "json",
        SCENARIO,
    ]);
    let document: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let terminating = document["terminating"].as_array().expect("a list");
    assert_eq!(terminating.len(), 2, "{json}");
    assert_eq!(terminating[0]["name"], "web");
    assert_eq!(terminating[0]["outcome"], "terminating");
    assert_eq!(
        terminating[0]["heldBy"],
        serde_json::json!(["foregroundDeletion"])
    );
    assert_eq!(terminating[0]["blockedBy"][0]["name"], "cm-fin");
    assert_eq!(terminating[1]["name"], "cm-fin");
    assert_eq!(
        terminating[1]["heldBy"],
        serde_json::json!(["example.com/hold"])
    );
    assert_eq!(terminating[1]["blockedBy"], serde_json::json!([]));
    let deleted: Vec<&str> = document["deleted"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert!(
        !deleted.contains(&"web") && !deleted.contains(&"cm-fin") && deleted.len() == 7,
        "{json}"
    );
}

#[test]
fn orphan_deletes_the_owner_alone_and_every_dependent_loses_its_reference() {
    // Seen: only web went; every dependent stayed without its reference to web (the Pods kept
    // their ReplicaSet, cm-grand kept cm-b, sec-shared kept cm-a).
    assert_eq!(
        preview(&["deploy/web", "--cascade", "orphan", SCENARIO]),
        "Deleting Deployment shop/web (cascade: orphan)\n\n\
         Deleted (1):\n  - Deployment shop/web\n\n\
         Survive, losing a reference:\n  \
         - ReplicaSet shop/web-7d9f (no longer owned by Deployment shop/web)\n  \
         - ConfigMap shop/cm-a (no longer owned by Deployment shop/web)\n  \
         - ConfigMap shop/cm-b (no longer owned by Deployment shop/web)\n  \
         - Secret shop/sec-shared (no longer owned by Deployment shop/web)\n  \
         - Secret shop/sec-keep (no longer owned by Deployment shop/web)\n  \
         - ConfigMap shop/cm-fin (no longer owned by Deployment shop/web)\n"
    );
}

/// A dump of a cluster caught mid-delete: a Terminating owner held by a finalizer, and an
/// object whose every owner is gone that a finalizer holds once the collector deletes it.
#[test]
fn a_terminating_object_of_a_dump_is_shown_as_such() {
    let dir = common::temp_dir("preview-terminating");
    common::write_files(
        dir.path(),
        &[(
            "dump.yaml",
            "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: parent
  namespace: shop
  uid: 33333333-0000-4000-8000-000000000001
  deletionTimestamp: \"2026-12-06T09:00:00Z\"
  finalizers: [example.com/cleanup]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: child
  namespace: shop
  uid: 33333333-0000-4000-8000-000000000002
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: parent, uid: 33333333-0000-4000-8000-000000000001}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: orphaned
  namespace: shop
  uid: 33333333-0000-4000-8000-000000000003
  finalizers: [kubernetes]
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: gone, uid: 33333333-0000-4000-8000-000000000009}
",
        )],
    );
    let dump = dir.path().join("dump.yaml");
    let dump = dump.to_str().expect("UTF-8");
    assert_eq!(
        preview(&["cm/parent", "--complete", dump]),
        "Deleting ConfigMap shop/parent (already Terminating since 2026-12-06T09:00:00Z) \
         (cascade: background)\n\n\
         Deleted (0):\n\n\
         Stay Terminating, not deleted (1):\n  - ConfigMap shop/parent (already Terminating since \
         2026-12-06T09:00:00Z): until example.com/cleanup is removed\n\n\
         Deleted as soon as this input is applied, but held by a finalizer: they stay \
         Terminating\n  - ConfigMap shop/orphaned: until kubernetes is removed\n"
    );
    let json = preview(&["cm/parent", "--complete", "--format", "json", dump]);
    let document: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(
        document["target"]["terminatingSince"], "2026-12-06T09:00:00Z",
        "{json}"
    );
    assert_eq!(document["terminatingOnApply"][0]["name"], "orphaned");
    assert_eq!(
        document["terminatingOnApply"][0]["heldBy"],
        serde_json::json!(["kubernetes"])
    );
    assert_eq!(document["deletedOnApply"], serde_json::json!([]));
}

/// The same with `--cluster`: a ConfigMap held by a finalizer that blocks its Deployment's
/// deletion, and one owned through a group the cluster does not serve, added to the recorded
/// 1.36 cluster.
#[cfg(feature = "cluster")]
#[test]
fn a_live_cluster_read_previews_finalizers_and_unmappable_owners() {
    use crate::api_server::{ApiServer, Asked, Reply};
    use serde_json::json;
    let injected = vec![
        json!({"metadata": {
            "name": "cm-fin", "namespace": "fp-shop",
            "uid": "44444444-0000-4000-8000-000000000001", "resourceVersion": "9001",
            "finalizers": ["example.com/hold"],
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "api",
                "uid": "2560dbcc-2507-408a-850d-caa861679116", "blockOwnerDeletion": true}]}}),
        json!({"metadata": {
            "name": "by-wrong-group", "namespace": "fp-shop",
            "uid": "44444444-0000-4000-8000-000000000002", "resourceVersion": "9002",
            "ownerReferences": [{"apiVersion": "wrong.example.com/v1", "kind": "ConfigMap",
                "name": "web-config", "uid": "2efebeae-6d63-4f9a-b760-891cf0849e40",
                "blockOwnerDeletion": true}]}}),
    ];
    let answer = move |asked: &Asked, _: usize| -> Option<Reply> {
        for object in &injected {
            let name = object["metadata"]["name"].as_str().unwrap_or("");
            if asked.path == format!("/api/v1/namespaces/fp-shop/configmaps/{name}") {
                let mut alone = object.clone();
                alone["apiVersion"] = json!("meta.k8s.io/v1");
                alone["kind"] = json!("PartialObjectMetadata");
                return Some(Reply::json(200, &alone));
            }
        }
        if asked.resource_path() != "/api/v1/configmaps" || asked.query("continue").is_some() {
            return None;
        }
        let mut page = crate::cluster_live::recorded_page("/api/v1/configmaps?limit=100");
        page["items"]
            .as_array_mut()
            .expect("items")
            .extend(injected.iter().cloned());
        Some(Reply::json(200, &page))
    };
    let server = ApiServer::start(Box::new(answer));
    let dir = common::temp_dir("preview-live");
    let kubeconfig = server.kubeconfig(dir.path(), crate::cluster_live::token_user());
    let live = |args: &[&str]| {
        let run = common::ownerlint()
            .args(args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["--no-config", "-n", "fp-shop"])
            .run();
        assert_eq!(run.code(), Some(0), "{}", run.printed());
        run.stdout
    };
    assert_eq!(
        live(&[
            "delete-preview",
            "--cluster",
            "deploy/api",
            "--cascade",
            "foreground"
        ]),
        "Deleting Deployment fp-shop/api (cascade: foreground)\n\n\
         Deleted (2):\n   1. Pod fp-shop/api-58c789b784-xmnlp\n   2. ReplicaSet fp-shop/api-58c789b784\n\n\
         Stay Terminating, not deleted (2):\n  - Deployment fp-shop/api: held by \
         foregroundDeletion for as long as ConfigMap fp-shop/cm-fin (blockOwnerDeletion: true) \
         stays\n  - ConfigMap fp-shop/cm-fin: until example.com/hold is removed\n\n\
         Deployment fp-shop/api waits for these to go first (blockOwnerDeletion: true):\n  \
         - ReplicaSet fp-shop/api-58c789b784\n"
    );
    let web_config = live(&[
        "delete-preview",
        "--cluster",
        "cm/web-config",
        "--cascade",
        "foreground",
    ]);
    assert!(
        web_config.contains(
            "Stay Terminating, not deleted (1):\n  - ConfigMap fp-shop/web-config: held by \
             foregroundDeletion for as long as ConfigMap fp-shop/by-wrong-group \
             (blockOwnerDeletion: true) stays\n"
        ) && web_config.contains("  - ConfigMap fp-shop/by-wrong-group\n"),
        "{web_config}"
    );
    let run = crate::cluster_live::cluster(&kubeconfig, &["--format", "json"]);
    let found = crate::cluster_live::findings(&run);
    let mine: Vec<&String> = found
        .iter()
        .filter(|f| f.contains("by-wrong-group") || f.contains("cm-fin"))
        .collect();
    assert_eq!(
        mine,
        ["error owner-api-unserved ConfigMap fp-shop/by-wrong-group"],
        "{}",
        run.stdout
    );
}
