//! Each rule's failing example in the four shapes users feed ownerlint — a plain YAML stream, a
//! `kubectl get -o yaml` List, `kubectl get -o json`, and a `helm template` stream — rendered in
//! the `short` and `pretty` formats. The snapshots show that every finding lands on the same
//! field, at an exact line and column, in each shape.

mod common;

use ownerlint::report::Format;
use ownerlint::rules::RULES;

#[test]
fn every_rule_in_every_shape() {
    for rule in RULES {
        let id = rule.meta.id;
        let Some(plain) = common::example(rule.meta.doc, "## Failing example") else {
            panic!("{id}: no failing example");
        };
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
}
