//! Pods read from a cluster as metadata only: a rule reads nothing of a Pod beyond its
//! metadata but whether it finished (`status.phase` `Succeeded` or `Failed`: controllers do not
//! adopt finished Pods), which two more lists of metadata, with a field selector on the phase,
//! tell. A server that refuses the field selector has the Pods listed whole again.

use serde_json::{Value, json};

use crate::api_server::{Answers, ApiServer, Asked, Reply, selected};
use crate::cluster_live::{cluster, findings, recorded_page, token_user};
use crate::common;

/// The recorded cluster with one more Pod in namespace `sel`: `rs-a-done`, labelled as
/// ReplicaSet `rs-a` selects, owned by nothing, in `phase`. The server answers lists of a
/// field selector on it as a real one (`selected`), or 400 to each when `refuse`.
fn with_orphan_pod(phase: &'static str, refuse: bool) -> ApiServer {
    let pod = json!({"metadata": {"name": "rs-a-done", "namespace": "sel",
                                  "uid": "0f0f0f0f-0000-4000-8000-00000000d0e0",
                                  "labels": {"app": "a"}},
                     "spec": {"containers": [{"name": "a", "image": "busybox"}]},
                     "status": {"phase": phase}});
    let mut page = recorded_page("/api/v1/pods?limit=100");
    page["items"]
        .as_array_mut()
        .expect("items")
        .push(pod.clone());
    let mut answers = Answers::new();
    answers.insert(
        ("/api/v1/pods".into(), String::new()),
        (200, page.to_string()),
    );
    ApiServer::start(Box::new(move |asked: &Asked, _| {
        if asked.path == "/api/v1/namespaces/sel/pods/rs-a-done" {
            let mut alone = pod.clone();
            alone["apiVersion"] = json!("v1");
            alone["kind"] = json!("Pod");
            return Some(Reply::json(200, &alone));
        }
        if asked.resource_path() != "/api/v1/pods" {
            return None;
        }
        let Some(selector) = asked.query("fieldSelector") else {
            // The server answers whole Pods, which a list of metadata keeps the metadata of.
            return Some(Reply::json(200, &page));
        };
        if refuse {
            return Some(Reply::status(
                400,
                "BadRequest",
                &format!(
                    "field label not supported: {}",
                    selector.split('=').next().unwrap_or("")
                ),
            ));
        }
        let metadata = asked
            .accept
            .starts_with("application/json;as=PartialObjectMetadata");
        let (status, body) = selected(&answers, "/api/v1/pods", &selector, metadata);
        let body: Value = serde_json::from_str(&body).expect("JSON");
        Some(Reply::json(status, &body))
    }))
}

fn of_the_pod(found: &[String]) -> Vec<&String> {
    found
        .iter()
        .filter(|f| f.contains("sel/rs-a-done"))
        .collect()
}

#[test]
fn a_finished_pod_is_still_not_adopted_and_a_running_one_is() {
    let dir = common::temp_dir("cluster-pods");
    let running = with_orphan_pod("Running", false);
    let run = cluster(
        &running.kubeconfig(dir.path(), token_user()),
        &["--format", "json"],
    );
    assert_eq!(
        of_the_pod(&findings(&run)),
        ["info orphan-will-be-adopted Pod sel/rs-a-done"],
        "{}",
        run.stderr
    );
    for phase in ["Succeeded", "Failed"] {
        let server = with_orphan_pod(phase, false);
        let run = cluster(
            &server.kubeconfig(dir.path(), token_user()),
            &["--format", "json"],
        );
        assert_eq!(
            of_the_pod(&findings(&run)),
            Vec::<&String>::new(),
            "{phase}: {}",
            run.stderr
        );
        // The Pods were listed as metadata only, the finished ones once more each phase.
        let pods: Vec<Asked> = server
            .asked()
            .into_iter()
            .filter(|a| a.resource_path() == "/api/v1/pods")
            .collect();
        assert_eq!(pods.len(), 3, "{pods:?}");
        assert!(
            pods.iter().all(|a| a
                .accept
                .starts_with("application/json;as=PartialObjectMetadataList")),
            "{pods:?}"
        );
        assert!(!run.stderr.contains("listed again whole"), "{}", run.stderr);
        // Its phase is what the saved snapshot shows of it, and nothing else of its status.
        let saved = dir.path().join(format!("saved-{phase}"));
        let run = cluster(
            &server.kubeconfig(dir.path(), token_user()),
            &["--format", "json", "--save", saved.to_str().expect("UTF-8")],
        );
        let text = std::fs::read_to_string(saved.join("namespaces/sel.json")).expect("saved");
        let list: Value = serde_json::from_str(&text).expect("JSON");
        let saved_pod = list["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|i| i["metadata"]["name"] == "rs-a-done")
            .unwrap_or_else(|| panic!("{}", run.stderr));
        assert_eq!(saved_pod["status"], json!({"phase": phase}));
        assert_eq!(saved_pod.get("spec"), None);
    }
}

#[test]
fn a_server_that_refuses_the_field_selector_has_the_pods_listed_whole() {
    let dir = common::temp_dir("cluster-pods-refused");
    let server = with_orphan_pod("Succeeded", true);
    let run = cluster(
        &server.kubeconfig(dir.path(), token_user()),
        &["--format", "json"],
    );
    assert_eq!(
        of_the_pod(&findings(&run)),
        Vec::<&String>::new(),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "ownerlint: pods/v1 were listed again whole, for their phase: the server did not answer their list with the field selector status.phase=Succeeded (400 Bad Request: field label not supported: status.phase)"
        ),
        "{}",
        run.stderr
    );
    let accepts: Vec<String> = server
        .asked()
        .into_iter()
        .filter(|a| a.resource_path() == "/api/v1/pods" && a.query("fieldSelector").is_none())
        .map(|a| a.accept)
        .collect();
    assert_eq!(accepts.len(), 2, "{accepts:?}");
    assert!(
        accepts.contains(&"application/json".to_string()),
        "{accepts:?}"
    );
    // The same findings as a server that answers the selector.
    let answering = with_orphan_pod("Succeeded", false);
    let same = cluster(
        &answering.kubeconfig(dir.path(), token_user()),
        &["--format", "json"],
    );
    assert_eq!(findings(&run), findings(&same));
}
