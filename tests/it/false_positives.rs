//! Valid ownership must never be reported at warning or error: each file under
//! `testdata/valid/` holds a shape Kubernetes accepts and collects correctly.

use crate::common;

use ownerlint::Options;
use ownerlint::finding::Severity;

fn lint_file(name: &str, options: &Options) -> ownerlint::Outcome {
    let path = format!("{}/testdata/valid/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    common::lint(name, &text, options)
}

fn assert_nothing_at_warning(name: &str, options: &Options) -> ownerlint::Outcome {
    let outcome = lint_file(name, options);
    let loud: Vec<String> = outcome
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning)
        .map(|f| format!("{}: {}", f.rule, f.message))
        .collect();
    assert!(loud.is_empty(), "{name}: {loud:#?}");
    outcome
}

#[test]
fn cluster_scoped_owner_of_a_namespaced_dependent() {
    let outcome = assert_nothing_at_warning("cluster-scoped-owner.yaml", &Options::default());
    assert!(outcome.findings.is_empty());
}

#[test]
fn several_owners_with_at_most_one_controller() {
    let outcome = assert_nothing_at_warning("several-owners.yaml", &Options::default());
    assert!(outcome.findings.is_empty());
}

#[test]
fn mirror_pod_owned_by_its_node() {
    let outcome = assert_nothing_at_warning("mirror-pod.yaml", &Options::default());
    assert!(outcome.findings.is_empty());
}

#[test]
fn owner_outside_a_snapshot_is_information_until_the_input_is_complete() {
    let outcome = assert_nothing_at_warning("snapshot-owner-outside.yaml", &Options::default());
    let rules: Vec<_> = outcome
        .findings
        .iter()
        .map(|f| (f.rule.id, f.severity))
        .collect();
    assert_eq!(rules, vec![("owner-not-found", Severity::Info)]);
    let complete = Options {
        complete: true,
        ..Options::default()
    };
    let outcome = lint_file("snapshot-owner-outside.yaml", &complete);
    let rules: Vec<_> = outcome
        .findings
        .iter()
        .map(|f| (f.rule.id, f.severity))
        .collect();
    assert_eq!(rules, vec![("owner-not-found", Severity::Error)]);
}

#[test]
fn owner_captured_under_a_legacy_group_resolves() {
    let outcome = assert_nothing_at_warning("legacy-group.yaml", &Options::default());
    assert!(outcome.findings.is_empty());
}

#[test]
fn documents_that_are_not_kubernetes_objects_are_skipped_and_counted() {
    let outcome = assert_nothing_at_warning("not-kubernetes.yaml", &Options::default());
    assert!(outcome.findings.is_empty());
    assert_eq!(outcome.stats.skipped_documents, 2);
    assert_eq!(outcome.stats.objects, 0);
}

#[test]
fn existing_objects_resolve_owners_and_are_not_linted() {
    let dir = format!("{}/testdata/valid", env!("CARGO_MANIFEST_DIR"));
    let manifests = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  namespace: jobs\n  ownerReferences:\n  - apiVersion: v1\n    kind: Namespace\n    name: jobs\n    uid: 7d2b0f0e-6f55-4c43-9a0b-2b1d3c4e5f60\n";
    let tmp = common::temp_dir("existing");
    let path = tmp.path().join("manifests.yaml");
    std::fs::write(&path, manifests).expect("temp dir is writable");
    let options = Options {
        paths: vec![path.clone()],
        existing: vec![format!("{dir}/cluster-scoped-owner.yaml").into()],
        ..Options::default()
    };
    let outcome = ownerlint::lint(&options, &mut std::io::empty());
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert!(
        outcome.findings.is_empty(),
        "{:#?}",
        outcome
            .findings
            .iter()
            .map(|f| &f.message)
            .collect::<Vec<_>>()
    );
    assert_eq!(outcome.stats.files, 1);
}

#[test]
fn standard_protection_and_domain_qualified_finalizers() {
    let outcome = assert_nothing_at_warning("finalizers.yaml", &Options::default());
    assert!(outcome.findings.is_empty());
}

#[test]
fn controllers_whose_selectors_match_their_objects() {
    let outcome = assert_nothing_at_warning("controllers.yaml", &Options::default());
    assert!(outcome.findings.is_empty());
}
