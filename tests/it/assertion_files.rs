//! Test assertion files (kuttl's and chainsaw's) hold partial objects that a test matches
//! against a cluster; they are never applied, so they are not linted, and are counted.

use crate::common;

use ownerlint::Options;
use ownerlint::report::{self, Format};

const DEPLOYMENT: &str =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n";

/// A partial object as assertions write them: the owner without its uid.
const PARTIAL_POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    controller: true\n";

/// Lint the folder `dir` as a walk does.
fn lint_dir(dir: &std::path::Path) -> ownerlint::Outcome {
    ownerlint::lint(
        &Options {
            paths: vec![dir.to_path_buf()],
            ..Options::default()
        },
        &mut std::io::empty(),
    )
}

#[test]
fn assertion_files_are_not_linted_and_are_counted() {
    let tmp = common::temp_dir("assertions");
    let dir = tmp.path();
    let kuttl = dir.join("kuttl/scale");
    let chainsaw = dir.join("chainsaw/scale");
    for d in [&kuttl, &chainsaw] {
        std::fs::create_dir_all(d).expect("create the test folders");
    }
    let write = |path: std::path::PathBuf, text: &str| std::fs::write(path, text).expect("write");
    write(kuttl.join("00-install.yaml"), DEPLOYMENT);
    write(kuttl.join("00-assert.yaml"), PARTIAL_POD);
    write(kuttl.join("01-errors.yaml"), PARTIAL_POD);
    write(chainsaw.join("deployment.yaml"), DEPLOYMENT);
    write(chainsaw.join("pods-ready.yaml"), PARTIAL_POD);
    write(
        chainsaw.join("chainsaw-test.yaml"),
        "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: scale\nspec:\n  steps:\n  - try:\n    - apply:\n        file: deployment.yaml\n    - assert:\n        file: pods-ready.yaml\n",
    );
    let outcome = lint_dir(dir);
    assert_eq!(common::render(&outcome, Format::Short), "");
    assert_eq!(outcome.stats.assertion_files, 3);
    // The applied files and the chainsaw test itself are read.
    assert_eq!(outcome.stats.files, 3);
    assert!(
        report::summary_line(&outcome).contains("; skipped 3 files of test assertions:"),
        "{}",
        report::summary_line(&outcome)
    );
}

#[test]
fn only_conventional_names_are_assertions() {
    let tmp = common::temp_dir("not-assertions");
    let dir = tmp.path();
    // Not a step number, or not an assertion: linted as manifests.
    for name in ["assert.yaml", "00-asserted.yaml", "x1-assert.yaml"] {
        std::fs::write(dir.join(name), PARTIAL_POD).expect("write");
    }
    let outcome = lint_dir(dir);
    assert_eq!(outcome.stats.assertion_files, 0);
    assert_eq!(outcome.stats.files, 3);
}

#[test]
fn kustomize_patch_files_are_not_linted_and_are_counted() {
    let tmp = common::temp_dir("patches");
    let dir = tmp.path();
    let base = dir.join("base");
    let overlay = dir.join("overlays/prod");
    for d in [&base, &overlay] {
        std::fs::create_dir_all(d).expect("create the folders");
    }
    let write = |path: std::path::PathBuf, text: &str| std::fs::write(path, text).expect("write");
    write(base.join("deployment.yaml"), DEPLOYMENT);
    write(
        base.join("kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [deployment.yaml]\n",
    );
    // The overlay patches the Deployment: the same identity, a partial object.
    write(
        overlay.join("replicas.yaml"),
        &format!("{DEPLOYMENT}spec:\n  replicas: 3\n"),
    );
    write(overlay.join("owner.yaml"), PARTIAL_POD);
    write(
        overlay.join("kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../../base]\npatches:\n- path: replicas.yaml\npatchesStrategicMerge:\n- ./owner.yaml\n",
    );
    let outcome = lint_dir(dir);
    assert_eq!(common::render(&outcome, Format::Short), "");
    assert_eq!(outcome.stats.patch_files, 2);
    assert!(
        report::summary_line(&outcome).contains("2 kustomize patch files"),
        "{}",
        report::summary_line(&outcome)
    );
}

#[test]
fn a_document_with_a_patch_directive_is_not_an_object() {
    let text = format!("{DEPLOYMENT}$patch: delete\n");
    let outcome = common::lint("patch.yaml", &text, &Options::default());
    assert_eq!(outcome.stats.objects, 0);
    assert_eq!(outcome.stats.skipped_documents, 1);
    assert!(
        report::summary_line(&outcome)
            .contains("; skipped 1 document that is not a Kubernetes object:"),
        "{}",
        report::summary_line(&outcome)
    );
}
