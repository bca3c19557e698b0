//! Fixes on generated documents: owner references drawn from a small pool (so entries repeat,
//! exactly or with the same uid and other fields) with kinds in canonical or all-lower case,
//! written in block style with comments, in flow style, and as JSON. After `--fix` (its safe
//! fixes, in rounds), each document still parses, holds what it held except the fixed fields
//! (repeated entries gone, kinds spelled canonically), and a second run has nothing to fix.

use proptest::prelude::*;

use ownerlint::finding::Applicability;

/// An owner reference: (kind as written, name, uid, controller).
type Entry = (&'static str, &'static str, &'static str, bool);

const POOL: [Entry; 6] = [
    ("Deployment", "api", "u-1", false),
    ("deployment", "api", "u-1", false),
    ("ReplicaSet", "api-7d9f", "u-2", true),
    ("replicaset", "api-7d9f", "u-2", true),
    // The uid of the first, with another name: a repeat that differs, never removed.
    ("Deployment", "web", "u-1", false),
    ("StatefulSet", "db", "u-3", false),
];

fn canonical_kind(kind: &str) -> &str {
    match kind {
        "deployment" => "Deployment",
        "replicaset" => "ReplicaSet",
        other => other,
    }
}

#[derive(Clone, Copy, Debug)]
enum Style {
    Block,
    Flow,
    Json,
}

fn document(entries: &[Entry], style: Style, comments: bool, labels: bool) -> String {
    match style {
        Style::Json => {
            let refs: Vec<String> = entries
                .iter()
                .map(|(kind, name, uid, controller)| {
                    format!(
                        r#"{{"apiVersion": "apps/v1", "kind": "{kind}", "name": "{name}", "uid": "{uid}", "controller": {controller}}}"#
                    )
                })
                .collect();
            let labels = if labels {
                r#""labels": {"app": "api", "tier": "cache"}, "#
            } else {
                ""
            };
            format!(
                "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {{\"name\": \"cache\", \"namespace\": \"shop\", {labels}\n  \"ownerReferences\": [\n   {}\n  ]}},\n \"data\": {{\"size\": \"1Gi\"}}}}\n",
                refs.join(",\n   ")
            )
        }
        Style::Flow => {
            let refs: Vec<String> = entries
                .iter()
                .map(|(kind, name, uid, controller)| {
                    format!("{{apiVersion: apps/v1, kind: {kind}, name: {name}, uid: {uid}, controller: {controller}}}")
                })
                .collect();
            let labels = if labels {
                "  labels: {app: api, tier: cache}\n"
            } else {
                ""
            };
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n{labels}  ownerReferences: [{}]\ndata:\n  size: 1Gi\n",
                refs.join(", ")
            )
        }
        Style::Block => {
            let mut text = String::from(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n",
            );
            if labels {
                text.push_str("  labels:\n    app: api  # the app\n    tier: cache\n");
            }
            text.push_str("  ownerReferences:\n");
            for (i, (kind, name, uid, controller)) in entries.iter().enumerate() {
                if comments {
                    text.push_str(&format!("  # entry {i}\n"));
                }
                text.push_str(&format!(
                    "  - apiVersion: apps/v1\n    kind: {kind}\n    name: {name}\n    uid: {uid}\n    controller: {controller}{}\n",
                    if comments { "  # as written" } else { "" }
                ));
            }
            text.push_str("data:\n  size: 1Gi\n");
            text
        }
    }
}

/// What the document should hold after the safe fixes: kinds canonical, and each entry that
/// exactly repeats the first earlier entry with its uid removed.
fn expected(entries: &[Entry]) -> Vec<Entry> {
    let canonical: Vec<Entry> = entries
        .iter()
        .map(|&(kind, name, uid, controller)| (canonical_kind(kind), name, uid, controller))
        .collect();
    canonical
        .iter()
        .enumerate()
        .filter(|&(i, entry)| {
            canonical[..i]
                .iter()
                .find(|earlier| earlier.2 == entry.2)
                .is_none_or(|first| first != entry)
        })
        .map(|(_, entry)| *entry)
        .collect()
}

fn parse(text: &str) -> serde_yaml::Value {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{e}:\n{text}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("OWNERLINT_PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64)
    ))]

    #[test]
    fn fixed_documents_parse_and_keep_everything_else(
        picks in proptest::collection::vec(0..POOL.len(), 1..6),
        style in prop_oneof![Just(Style::Block), Just(Style::Flow), Just(Style::Json)],
        comments in any::<bool>(),
        labels in any::<bool>(),
    ) {
        let entries: Vec<Entry> = picks.iter().map(|&i| POOL[i]).collect();
        let name = match style { Style::Json => "cache.json", _ => "cache.yaml" };
        let text = document(&entries, style, comments, labels);
        let options = ownerlint::Options::default();
        let inputs = vec![(name.to_string(), text.clone())];
        let run = ownerlint::fix::run_texts(&inputs, &options, Applicability::Safe);
        let fixed = run
            .changed
            .iter()
            .find(|c| c.name == name)
            .map_or(text.clone(), |c| c.after.clone());
        // It parses, for ownerlint and for another YAML reader.
        prop_assert!(
            run.analysis.outcome.findings.iter().all(|f| f.rule.id != "invalid-yaml"),
            "{fixed}"
        );
        // Everything but the fixed fields is as it was.
        let want = document(&expected(&entries), style, false, labels);
        prop_assert_eq!(parse(&fixed), parse(&want), "{}\n->\n{}", text, fixed);
        // Nothing is left to fix.
        let again = ownerlint::fix::run_texts(&[(name.to_string(), fixed.clone())], &options, Applicability::Safe);
        prop_assert!(again.changed.is_empty(), "{fixed}");
    }
}
