//! `ownerlint cluster` against a cluster that changes between its lists and the GETs that
//! confirm what they showed dangling: the recorded 1.36.2 server (`api_server.rs`) with objects
//! of namespace `churn` added to its lists of ConfigMaps and Deployments, and GETs of them
//! answered as the cluster is after the lists. Each dependent found dangling is read again,
//! with every owner it names now and, when an owner changed, its other dependents, round after
//! round until nothing changes.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api_server::{ApiServer, Asked, Reply};
use crate::cluster_live::{cluster, findings, recorded_page, token_user};
use crate::common;

const NAMESPACE: &str = "churn";

fn uid(n: u32) -> String {
    format!("00000000-0000-4000-8000-0000000c{n:04x}")
}

/// A ConfigMap of `namespace` owned by Deployment `owner` of uid `owner_uid`, as a list of
/// metadata holds it.
fn configmap(
    namespace: &str,
    name: &str,
    n: u32,
    version: u32,
    owner: &str,
    owner_uid: &str,
) -> Value {
    json!({"metadata": {
        "name": name, "namespace": namespace, "uid": uid(n),
        "resourceVersion": version.to_string(), "creationTimestamp": "2026-11-01T00:00:00Z",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": owner,
                             "uid": owner_uid, "controller": true, "blockOwnerDeletion": true}]
    }})
}

/// A Deployment of namespace `churn`, whole.
fn deployment(name: &str, deployment_uid: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE, "uid": deployment_uid,
                     "resourceVersion": "5", "creationTimestamp": "2026-11-01T00:00:00Z"},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "web", "image": "web:1"}]}}}
    })
}

/// The cluster as the lists show it (`listed`: ConfigMaps and Deployments of `churn`) and as
/// the GETs after them answer (`now`: each object of `churn` that exists then; any other is
/// 404).
struct Churn {
    listed: Vec<Value>,
    now: Vec<Value>,
}

impl Churn {
    fn serve(self) -> ApiServer {
        let is_deployment = |o: &Value| o["kind"] == "Deployment";
        let mut configmaps = recorded_page("/api/v1/configmaps?limit=100");
        let mut deployments = recorded_page("/apis/apps/v1/deployments?limit=100");
        for object in &self.listed {
            let list = if is_deployment(object) {
                &mut deployments
            } else {
                &mut configmaps
            };
            list["items"]
                .as_array_mut()
                .expect("items")
                .push(object.clone());
        }
        let mut now: HashMap<String, Value> = HashMap::new();
        for object in self.now {
            let name = object["metadata"]["name"]
                .as_str()
                .unwrap_or("")
                .to_string();
            let path = if is_deployment(&object) {
                format!("/apis/apps/v1/namespaces/{NAMESPACE}/deployments/{name}")
            } else {
                let mut object = object.clone();
                object["apiVersion"] = json!("meta.k8s.io/v1");
                object["kind"] = json!("PartialObjectMetadata");
                now.insert(
                    format!("/api/v1/namespaces/{NAMESPACE}/configmaps/{name}"),
                    object,
                );
                continue;
            };
            now.insert(path, object);
        }
        ApiServer::start(Box::new(move |asked: &Asked, _| {
            let path = asked.resource_path();
            if asked.query("continue").is_none() {
                match path {
                    "/api/v1/configmaps" => return Some(Reply::json(200, &configmaps)),
                    "/apis/apps/v1/deployments" => return Some(Reply::json(200, &deployments)),
                    _ => {}
                }
            }
            if !path.contains(&format!("/namespaces/{NAMESPACE}/")) {
                return None;
            }
            Some(match now.get(path) {
                Some(object) => Reply::json(200, object),
                None => Reply::status(404, "NotFound", "not found"),
            })
        }))
    }
}

/// The findings of `churn` of a JSON report; the rounds of confirming GETs; the GETs of
/// `churn`'s objects.
fn run(server: &ApiServer) -> (Vec<String>, u64, Vec<String>, common::Run) {
    let dir = common::temp_dir("cluster-churn");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let run = cluster(&kubeconfig, &["--format", "json"]);
    let found: Vec<String> = findings(&run)
        .into_iter()
        .filter(|f| f.contains(&format!(" {NAMESPACE}/")))
        .collect();
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let rounds = report["summary"]["cluster"]["rounds"]
        .as_u64()
        .unwrap_or_else(|| panic!("rounds: {}", run.stdout));
    let gets: Vec<String> = server
        .asked()
        .iter()
        .filter(|a| a.path.contains(&format!("/namespaces/{NAMESPACE}/")))
        .map(|a| a.path.clone())
        .collect();
    (found, rounds, gets, run)
}

/// The GETs in rounds of these sizes, each round's sorted (the GETs of one round are sent at
/// once, in any order); what is left over is a round of its own.
fn by_round(gets: &[String], sizes: &[usize]) -> Vec<Vec<String>> {
    let mut rounds = Vec::new();
    let mut rest = gets;
    for size in sizes {
        let (round, after) = rest.split_at((*size).min(rest.len()));
        let mut round = round.to_vec();
        round.sort();
        rounds.push(round);
        rest = after;
    }
    if !rest.is_empty() {
        rounds.push(rest.to_vec());
    }
    rounds
}

/// A dependent dangling at list time and re-pointed before the GETs names a new owner, which
/// is read in a second round: it exists, and nothing is reported.
#[test]
fn a_dependent_repointed_since_its_list_has_its_new_owner_read() {
    let (old, new) = (uid(0xa0), uid(0xa1));
    let server = Churn {
        listed: vec![configmap(NAMESPACE, "d1", 1, 1, "a-old", &old)],
        now: vec![
            configmap(NAMESPACE, "d1", 1, 2, "a-new", &new),
            deployment("a-new", &new),
        ],
    }
    .serve();
    let (found, rounds, gets, run) = run(&server);
    assert_eq!(found, Vec::<String>::new(), "{}", run.stderr);
    assert_eq!(rounds, 2, "{}", run.stdout);
    assert_eq!(
        by_round(&gets, &[2, 1]),
        [
            vec![
                "/api/v1/namespaces/churn/configmaps/d1",
                "/apis/apps/v1/namespaces/churn/deployments/a-old",
            ],
            vec!["/apis/apps/v1/namespaces/churn/deployments/a-new"],
        ]
    );

    // As text, the summary says it took two rounds.
    let dir = common::temp_dir("cluster-churn");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let text = cluster(&kubeconfig, &[]);
    assert!(
        text.stderr.contains("read again to confirm (in 2 rounds)"),
        "{}",
        text.stderr
    );
}

/// An owner re-created under a new uid between the list of its kind and the list of its
/// dependent's: the dependent already names the new uid, which the owner's GET shows.
#[test]
fn an_owner_recreated_between_two_lists_is_no_uid_mismatch() {
    let (old, new) = (uid(0xb0), uid(0xb1));
    let server = Churn {
        listed: vec![
            deployment("web-b", &old),
            configmap(NAMESPACE, "b1", 2, 1, "web-b", &new),
        ],
        now: vec![
            deployment("web-b", &new),
            configmap(NAMESPACE, "b1", 2, 1, "web-b", &new),
        ],
    }
    .serve();
    let (found, rounds, _, run) = run(&server);
    assert_eq!(found, Vec::<String>::new(), "{}", run.stderr);
    assert_eq!(rounds, 1, "{}", run.stdout);
}

/// When a GET shows an owner changed (re-created under a new uid), its other dependents are
/// decided with it as it now is, each read with its own GET first: one re-adopted, one deleted
/// by the garbage collector meanwhile, and one still naming the old uid, which is reported.
#[test]
fn the_other_dependents_of_an_owner_that_changed_are_read_again() {
    let (old, new) = (uid(0xc0), uid(0xc1));
    let server = Churn {
        listed: vec![
            deployment("web-c", &old),
            configmap(NAMESPACE, "c-new", 3, 1, "web-c", &new),
            configmap(NAMESPACE, "c-adopted", 4, 1, "web-c", &old),
            configmap(NAMESPACE, "c-collected", 5, 1, "web-c", &old),
            configmap(NAMESPACE, "c-stale", 6, 1, "web-c", &old),
        ],
        now: vec![
            deployment("web-c", &new),
            configmap(NAMESPACE, "c-new", 3, 1, "web-c", &new),
            configmap(NAMESPACE, "c-adopted", 4, 2, "web-c", &new),
            configmap(NAMESPACE, "c-stale", 6, 1, "web-c", &old),
        ],
    }
    .serve();
    let (found, rounds, gets, run) = run(&server);
    assert_eq!(
        found,
        ["error owner-uid-mismatch ConfigMap churn/c-stale"],
        "{}",
        run.stderr
    );
    assert_eq!(rounds, 2, "{}", run.stdout);
    assert_eq!(
        by_round(&gets, &[2, 3]),
        [
            vec![
                "/api/v1/namespaces/churn/configmaps/c-new",
                "/apis/apps/v1/namespaces/churn/deployments/web-c",
            ],
            vec![
                "/api/v1/namespaces/churn/configmaps/c-adopted",
                "/api/v1/namespaces/churn/configmaps/c-collected",
                "/api/v1/namespaces/churn/configmaps/c-stale",
            ],
        ]
    );
}

/// A reference that dangles at list time and still does at its GETs is reported, after one
/// round: the dependent and its owner are each read once.
#[test]
fn a_reference_that_truly_dangles_stays_reported() {
    let gone = uid(0xd0);
    let lost = configmap(NAMESPACE, "lost", 7, 1, "never", &gone);
    let server = Churn {
        listed: vec![lost.clone()],
        now: vec![lost],
    }
    .serve();
    let (found, rounds, gets, run) = run(&server);
    assert_eq!(
        found,
        ["error owner-not-found ConfigMap churn/lost"],
        "{}",
        run.stderr
    );
    assert_eq!(rounds, 1, "{}", run.stdout);
    assert_eq!(
        by_round(&gets, &[2]),
        [vec![
            "/api/v1/namespaces/churn/configmaps/lost",
            "/apis/apps/v1/namespaces/churn/deployments/never",
        ]]
    );
}

/// 5,000 dangling references, one in each of 5,000 namespaces: 10,000 confirming GETs, sent
/// several at once (the server answers the first ones slowly, and sees them overlap).
#[test]
fn five_thousand_dangling_references_are_confirmed_with_gets_at_once() {
    const DANGLING: u32 = 5_000;
    let namespace = |n: u32| format!("churn-{n:04}");
    let gone = uid(0xe000);
    let mut page = recorded_page("/api/v1/configmaps?limit=100");
    let items = page["items"].as_array_mut().expect("items");
    for n in 0..DANGLING {
        items.push(configmap(
            &namespace(n),
            "orphan",
            0x1000 + n,
            1,
            "gone",
            &gone,
        ));
    }
    let page = page.to_string();
    let slow = std::sync::atomic::AtomicUsize::new(0);
    let server = ApiServer::start(Box::new(move |asked: &Asked, _| {
        let path = asked.resource_path();
        if path == "/api/v1/configmaps" && asked.query("continue").is_none() {
            return Some(Reply::Answer {
                status: 200,
                body: page.clone(),
                headers: Vec::new(),
            });
        }
        let rest = path
            .strip_prefix("/api/v1/namespaces/churn-")
            .or_else(|| path.strip_prefix("/apis/apps/v1/namespaces/churn-"))?;
        let (number, object) = rest.split_once('/')?;
        let reply = match object {
            "configmaps/orphan" => {
                let n: u32 = number.parse().ok()?;
                let mut object = configmap(&namespace(n), "orphan", 0x1000 + n, 1, "gone", &gone);
                object["apiVersion"] = json!("meta.k8s.io/v1");
                object["kind"] = json!("PartialObjectMetadata");
                Reply::json(200, &object)
            }
            _ => Reply::status(404, "NotFound", "not found"),
        };
        // The first GETs are answered slowly: sent one at a time, no two would overlap.
        if slow.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < 40 {
            return Some(Reply::Delayed {
                wait: Duration::from_millis(100),
                reply: Box::new(reply),
            });
        }
        Some(reply)
    }));
    let dir = common::temp_dir("cluster-churn-many");
    let kubeconfig = server.kubeconfig(dir.path(), token_user());
    let started = Instant::now();
    let run = cluster(&kubeconfig, &["--format", "json"]);
    let took = started.elapsed();
    let orphans = findings(&run)
        .into_iter()
        .filter(|f| f.contains(" churn-"))
        .collect::<Vec<_>>();
    assert_eq!(orphans.len(), DANGLING as usize, "{}", run.stderr);
    assert!(
        orphans
            .iter()
            .all(|f| f.starts_with("error owner-not-found ConfigMap churn-")),
        "{orphans:?}"
    );
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let cluster_stats = &report["summary"]["cluster"];
    assert!(
        cluster_stats["confirmed"].as_u64() >= Some(2 * u64::from(DANGLING)),
        "{cluster_stats}"
    );
    assert_eq!(cluster_stats["rounds"], 1, "{cluster_stats}");
    let at_once = server.most_delayed_at_once();
    assert!(at_once >= 2, "the confirming GETs went one at a time");
    eprintln!(
        "{DANGLING} dangling references confirmed in {:.1} s, up to {at_once} GETs at once",
        took.as_secs_f64()
    );
}
