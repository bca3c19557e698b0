//! Each rule's failing example in the four shapes users feed ownerlint — a plain YAML stream, a
//! `kubectl get -o yaml` List, `kubectl get -o json`, and a `helm template` stream — rendered in
//! the `short` and `pretty` formats. The snapshots show that every finding lands on the same
//! field, at an exact line and column, in each shape.

use crate::common;

use ownerlint::report::Format;
use ownerlint::rules::Rule;

test_each_rule!(every_rule_in_every_shape: every_shape_snapshot);

/// The rule's failing example in each shape, in the `short` and `pretty` formats.
fn every_shape_snapshot(rule: &'static Rule) {
    let id = rule.meta.id;
    let Some(plain) = common::example(rule.meta.doc, "## Failing example") else {
        panic!("{id}: no failing example");
    };
    // A kustomization is built (tests/it/render.rs), not read in the shapes of a manifest.
    if plain.contains("kind: Kustomization") {
        return;
    }
    let mut shapes = vec![
        ("plain", format!("{id}.yaml"), plain.clone()),
        ("list", format!("{id}-list.yaml"), common::to_list(&plain)),
        ("helm", "<stdin>".to_string(), common::to_helm(&plain)),
    ];
    if let Some(json) = common::to_json(&plain) {
        shapes.insert(2, ("json", format!("{id}.json"), json));
    }
    let mut snapshot = String::new();
    for (shape, name, text) in shapes {
        let outcome = common::lint(&name, &text, &common::doc_options(rule.meta.doc));
        snapshot.push_str(&format!("===== {shape}: short =====\n"));
        snapshot.push_str(&common::render(&outcome, Format::Short));
        snapshot.push_str(&format!("===== {shape}: pretty =====\n"));
        snapshot.push_str(&common::render(&outcome, Format::Pretty));
    }
    insta::assert_snapshot!(id, snapshot);
}

/// `--max-document-size` applies to each item of a List, YAML or JSON: an item over it is
/// reported and not read, and the other items are still checked.
#[test]
fn list_items_are_held_to_the_size_limit_one_by_one() {
    let big = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: {}\n",
        "x".repeat(800)
    );
    let owned = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b\n";
    let stream = format!("{big}---\n{owned}");
    let mut options = ownerlint::Options::default();
    options.limits.max_document_size = 450;
    for (name, text) in [
        ("list.yaml", common::to_list(&stream)),
        ("list.json", common::to_json(&stream).expect("JSON")),
    ] {
        let short = common::render(&common::lint(name, &text, &options), Format::Short);
        assert!(
            short.contains("error[invalid-yaml]: this item of a List is")
                && short.contains("more than the 450 bytes limit of --max-document-size"),
            "{name}: the big item is reported\n{short}"
        );
        assert!(
            short.contains("error[cluster-scoped-dependent]"),
            "{name}: the other item is still checked\n{short}"
        );
    }
}
