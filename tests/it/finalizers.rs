//! Finalizer and deletion-state rules beyond their documented examples: which kinds reject an
//! unqualified finalizer and which only warn, the wording per Kubernetes release, malformed
//! entries, and objects captured mid-deletion.

use crate::common;

use ownerlint::Options;
use ownerlint::catalog::KubeVersion;
use ownerlint::finding::Severity;

fn findings(text: &str, options: &Options) -> Vec<(&'static str, Severity, String)> {
    common::lint("input.yaml", text, options)
        .findings
        .into_iter()
        .map(|f| (f.rule.id, f.severity, f.message))
        .collect()
}

fn release(version: &str) -> Options {
    Options {
        kube_version: KubeVersion::parse(version),
        ..Options::default()
    }
}

const WIDGET: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions: [{name: v1, served: true, storage: true}]
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: gadget
  namespace: shop
  finalizers: [cleanup, cleanup.example.com]
";

#[test]
fn custom_resources_get_a_warning_worded_as_the_release_words_it() {
    let found = findings(WIDGET, &Options::default());
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found.iter().all(|(rule, severity, _)| {
        *rule == "finalizer-unqualified" && *severity == Severity::Warning
    }));
    assert!(
        found[0]
            .2
            .contains("prefer a domain-qualified finalizer name to avoid")
    );
    assert!(
        found[1].2.contains("including a path (/)"),
        "{}",
        found[1].2
    );

    // Before 1.32 both names get the first wording; before 1.29 there is no warning at all.
    let found = findings(WIDGET, &release("1.31"));
    assert_eq!(found.len(), 2);
    assert!(
        found
            .iter()
            .all(|(_, _, m)| !m.contains("including a path"))
    );
    assert!(findings(WIDGET, &release("1.28")).is_empty());
}

#[test]
fn built_in_kinds_reject_and_generic_kinds_accept_an_unqualified_finalizer() {
    let text = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop, finalizers: [cleanup]}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.metrics.example.com, finalizers: [cleanup]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: inject, finalizers: [cleanup]}
";
    let found = findings(text, &Options::default());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "finalizer-unqualified");
    assert_eq!(found[0].1, Severity::Error);
    assert!(
        found[0]
            .2
            .starts_with("finalizer \"cleanup\" of Deployment shop/api")
    );
}

#[test]
fn malformed_finalizers_are_reported_where_they_are() {
    let text = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  finalizers:
  - 12
  - true
  -
  - example.com//x
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  finalizers: example.com/cleanup
";
    let outcome = common::lint("input.yaml", text, &Options::default());
    let short = common::render(&outcome, ownerlint::report::Format::Short);
    let lines: Vec<&str> = short.lines().collect();
    assert_eq!(lines.len(), 5, "{short}");
    assert!(lines[0].starts_with("input.yaml:6:5: error[finalizer-invalid]: a finalizer of ConfigMap default/a is the number 12, not a string"));
    assert!(lines[1].starts_with("input.yaml:7:5: error[finalizer-invalid]: a finalizer of ConfigMap default/a is the boolean true"));
    assert!(
        lines[2].starts_with(
            "input.yaml:8:3: error[finalizer-invalid]: a finalizer of ConfigMap default/a is empty"
        ),
        "{}",
        lines[2]
    );
    assert!(lines[3].starts_with("input.yaml:9:5:") && lines[3].contains("it has 2 `/`"));
    assert!(lines[4].starts_with("input.yaml:15:15: error[finalizer-invalid]: metadata.finalizers of ConfigMap default/b is the string \"example.com/cleanup\", not a list"));
}

#[test]
fn orphan_with_foreground_deletion_is_rejected_and_each_changes_deletion() {
    let text = "\
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: shop
  finalizers: [foregroundDeletion, orphan]
";
    let found = findings(text, &Options::default());
    let rules: Vec<_> = found.iter().map(|f| f.0).collect();
    assert_eq!(
        rules,
        vec![
            "deletion-finalizer-in-manifest",
            "deletion-finalizer-in-manifest",
            "finalizer-invalid"
        ],
        "{found:#?}"
    );
    assert!(found[0].2.contains("a foreground delete"));
    assert!(found[1].2.contains("an orphaning delete"));
    assert!(found[2].2.contains("cannot be both set"));
}

#[test]
fn deletion_finalizer_names_the_dependents_in_the_input() {
    let text = "\
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web
  namespace: shop
  uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b
  finalizers: [orphan]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  uid: 5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b}
";
    let found = findings(text, &Options::default());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0]
            .2
            .contains("stay instead of being deleted with it (in this input: Pod shop/web-1);"),
        "{}",
        found[0].2
    );
}

#[test]
fn an_object_captured_mid_deletion_says_what_it_waits_for() {
    let snapshot = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
  uid: 6b5a4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d
  deletionTimestamp: \"2024-05-02T10:11:12Z\"
  finalizers: [foregroundDeletion]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: shop
  uid: 1b0a9f8e-7d6c-4b5a-9f8e-7d6c5b4a3f2e
  deletionTimestamp: \"2024-05-02T10:11:12Z\"
  finalizers: [kubernetes.io/pvc-protection]
";
    let found = findings(snapshot, &Options::default());
    // The foregroundDeletion finalizer is the API server's own while deleting: only the
    // deletion state is reported.
    let rules: Vec<_> = found.iter().map(|f| f.0).collect();
    assert_eq!(
        rules,
        vec![
            "deletion-timestamp-in-manifest",
            "deletion-timestamp-in-manifest"
        ]
    );
    assert!(found[0].2.contains("was captured while being deleted (2024-05-02T10:11:12Z): the garbage collector deletes its dependents"));
    assert!(
        found[1]
            .2
            .contains("(kubernetes.io/pvc-protection) remove them")
    );

    let manifest = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  deletionTimestamp: null
";
    assert!(findings(manifest, &Options::default()).is_empty());
}
