//! Workload controller rules beyond their documented examples: each controller's selector
//! form and filters, the cases where a controller neither releases nor adopts, and adoption
//! races.

use crate::common;

use ownerlint::Options;

fn findings(text: &str) -> Vec<(&'static str, String)> {
    common::lint("input.yaml", text, &Options::default())
        .findings
        .into_iter()
        .map(|f| (f.rule.id, f.message))
        .collect()
}

/// A Pod in namespace `shop` with these labels and, when `owner` is given as `Kind/name/uid`,
/// a controller reference to it.
fn pod(name: &str, labels: &str, owner: Option<(&str, &str, &str, &str)>) -> String {
    let owner = owner.map_or(String::new(), |(api, kind, owner, uid)| {
        format!(
            "  ownerReferences:\n  - {{apiVersion: {api}, kind: {kind}, name: {owner}, uid: {uid}, controller: true}}\n"
        )
    });
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: shop\n  uid: uid-{name}\n  labels: {labels}\n{owner}"
    )
}

#[test]
fn a_replication_controller_without_selector_selects_its_template_labels() {
    let text = format!(
        "apiVersion: v1\nkind: ReplicationController\nmetadata: {{name: web, namespace: shop, uid: rc-1}}\nspec:\n  template:\n    metadata:\n      labels: {{app: web}}\n---\n{}",
        pod(
            "web-a",
            "{app: api}",
            Some(("v1", "ReplicationController", "web", "rc-1"))
        )
    );
    let found = findings(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "controller-selector-mismatch");
    assert!(
        found[0]
            .1
            .contains("(`app=web` is required; app is \"api\")"),
        "{}",
        found[0].1
    );

    // A map selector, written out.
    let text = format!(
        "apiVersion: v1\nkind: ReplicationController\nmetadata: {{name: web, namespace: shop, uid: rc-1}}\nspec:\n  selector: {{app: web, tier: front}}\n---\n{}",
        pod(
            "web-a",
            "{app: web}",
            Some(("v1", "ReplicationController", "web", "rc-1"))
        )
    );
    let found = findings(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0]
            .1
            .contains("(`tier=front` is required; tier is missing)")
    );
}

#[test]
fn a_statefulset_releases_a_pod_not_named_after_it() {
    let set = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: shop, uid: ss-1}\nspec:\n  selector: {matchLabels: {app: db}}\n";
    let owner = Some(("apps/v1", "StatefulSet", "db", "ss-1"));
    let text = format!(
        "{set}---\n{}---\n{}",
        pod("db-0", "{app: db}", owner),
        pod("db-extra", "{app: db}", owner)
    );
    let found = findings(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].1.starts_with(
        "Pod shop/db-extra → StatefulSet shop/db: the Pod's name is not db-<ordinal>"
    ));
    // Released for its name, not its labels: the finding points at `metadata.name`.
    let outcome = common::lint("input.yaml", &text, &Options::default());
    let finding = &outcome.findings[0];
    let source = outcome.source(finding.primary.source);
    let span = finding.primary.span;
    assert_eq!(
        source.text.str(span.start..span.end).as_deref(),
        Ok("db-extra")
    );
    assert_eq!(finding.primary.message, "not <set>-<ordinal>");
}

#[test]
fn controllers_that_do_not_release() {
    // A ReplicaSet ignores finished Pods; a controller being deleted releases nothing; a
    // StatefulSet never releases a ControllerRevision; a controller reference with another uid
    // is not this controller's (owner-uid-mismatch says so).
    let text = format!(
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: web, namespace: shop, uid: rs-1}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n---\n\
{}status: {{phase: Failed}}\n---\n\
apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent, namespace: shop, uid: ds-1, deletionTimestamp: \"2024-01-01T00:00:00Z\"}}\nspec:\n  selector: {{matchLabels: {{app: agent}}}}\n---\n\
{}---\n\
apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db, namespace: shop, uid: ss-1}}\nspec:\n  selector: {{matchLabels: {{app: db}}}}\n---\n\
apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: db-5d8f\n  namespace: shop\n  uid: cr-1\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: ss-1, controller: true}}\n---\n\
{}",
        pod(
            "web-done",
            "{app: other}",
            Some(("apps/v1", "ReplicaSet", "web", "rs-1"))
        ),
        pod(
            "agent-x",
            "{app: other}",
            Some(("apps/v1", "DaemonSet", "agent", "ds-1"))
        ),
        pod(
            "web-stale",
            "{app: other}",
            Some(("apps/v1", "ReplicaSet", "web", "rs-0"))
        ),
    );
    let rules: Vec<&str> = findings(&text).iter().map(|f| f.0).collect();
    assert!(
        !rules.contains(&"controller-selector-mismatch"),
        "{rules:?}"
    );
    assert!(rules.contains(&"owner-uid-mismatch"), "{rules:?}");
}

#[test]
fn a_daemonset_releases_a_controller_revision_and_a_deployment_a_replicaset() {
    let text = "\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: shop, uid: ds-1}
spec:
  selector: {matchExpressions: [{key: app, operator: Exists}]}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: agent-5d8f
  namespace: shop
  uid: cr-1
  ownerReferences:
  - {apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-1, controller: true}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop, uid: d-1}
spec:
  selector: {matchLabels: {app: api}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: api-7d9f
  namespace: shop
  uid: rs-1
  labels: {app: api-old}
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: d-1, controller: true}
spec:
  selector: {matchLabels: {app: api}}
";
    let found = findings(text);
    let summary: Vec<(&str, &str)> = found
        .iter()
        .map(|(rule, m)| (*rule, m.split(':').next().unwrap_or("")))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "controller-selector-mismatch",
                "ControllerRevision shop/agent-5d8f → DaemonSet shop/agent"
            ),
            (
                "controller-selector-mismatch",
                "ReplicaSet shop/api-7d9f → Deployment shop/api"
            )
        ],
        "{found:#?}"
    );
    assert!(found[0].1.contains("(`app` is required; app is missing)"));
}

#[test]
fn the_diagnostic_shows_selector_and_labels_side_by_side() {
    let text = format!(
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: web, namespace: shop, uid: rs-1}}\nspec:\n  selector:\n    matchExpressions:\n    - {{key: tier, operator: NotIn, values: [canary]}}\n---\n{}",
        pod(
            "web-a",
            "{tier: canary}",
            Some(("apps/v1", "ReplicaSet", "web", "rs-1"))
        )
    );
    let outcome = common::lint("input.yaml", &text, &Options::default());
    let pretty = common::render(&outcome, ownerlint::report::Format::Pretty);
    assert!(
        pretty.contains("ReplicaSet shop/web  selector tier notin (canary)\n"),
        "{pretty}"
    );
    assert!(
        pretty.contains("Pod shop/web-a       labels   tier=canary\n"),
        "{pretty}"
    );
    assert!(pretty.contains("selector tier notin (canary)"), "{pretty}");
}

#[test]
fn an_orphan_matched_by_several_controllers_names_them_all() {
    let text = "\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: shop}
spec:
  selector: {matchExpressions: [{key: app, operator: In, values: [web, agent]}]}
---
# An owner that is not a controller does not keep the Pod from being adopted.
apiVersion: v1
kind: Pod
metadata:
  name: stray
  namespace: shop
  labels: {app: web}
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: settings, uid: cm-1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop, uid: cm-1}
";
    let found = findings(text);
    let adopted: Vec<&String> = found
        .iter()
        .filter(|(rule, _)| *rule == "orphan-will-be-adopted")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(adopted.len(), 1, "{found:#?}");
    assert!(adopted[0].contains(
        "match the selectors of ReplicaSet shop/web and DaemonSet shop/agent: whichever controller syncs first adopts it (a race)"
    ));
}

#[test]
fn every_orphan_is_tested_against_every_controller_whose_selector_it_can_meet() {
    // Most Pods carry `app: web`, so the controllers are found by their rarer requirements
    // (`hash=h1`, `tier in (x,y)`), or by none that names a value (`debug` exists).
    let mut text = "\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: a, namespace: shop}
spec:
  selector: {matchLabels: {app: web, hash: h1}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: b, namespace: shop}
spec:
  selector:
    matchExpressions:
    - {key: tier, operator: In, values: [x, y]}
    - {key: app, operator: In, values: [web]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: c, namespace: shop}
spec:
  selector: {matchExpressions: [{key: debug, operator: Exists}]}
"
    .to_string();
    for (name, labels) in [
        ("p1", "{app: web, hash: h1}"),
        ("p2", "{app: web, tier: y}"),
        ("p3", "{app: web, hash: h1, tier: x}"),
        ("p4", "{app: web}"),
        ("p5", "{debug: '1'}"),
        ("p6", "{app: web, tier: z, hash: h2}"),
        ("p7", "{app: api, hash: h1, tier: x}"),
    ] {
        text.push_str("---\n");
        text.push_str(&pod(name, labels, None));
    }
    let mut adopted: Vec<String> = findings(&text)
        .into_iter()
        .filter(|(rule, _)| *rule == "orphan-will-be-adopted")
        .map(|(_, m)| {
            let (pod, rest) = m.split_once(" has no controller").expect("a pod");
            let selectors = rest
                .split_once("selector of ")
                .or_else(|| rest.split_once("selectors of "))
                .expect("selectors")
                .1;
            let selectors = selectors.split_once(':').expect("named").0;
            format!("{pod}: {selectors}")
        })
        .collect();
    adopted.sort();
    assert_eq!(
        adopted,
        [
            "Pod shop/p1: ReplicaSet shop/a",
            "Pod shop/p2: DaemonSet shop/b",
            "Pod shop/p3: ReplicaSet shop/a and DaemonSet shop/b",
            "Pod shop/p5: ReplicaSet shop/c",
        ]
    );
}
