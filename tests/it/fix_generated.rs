//! Fixes on generated documents: owner references drawn from a small pool (so entries repeat,
//! exactly or with the same uid and other fields) with kinds in canonical or all-lower case,
//! written in block style with comments, in flow style, and as JSON, with or without a
//! `deletionTimestamp`, finalizers and the fields only the API server sets (`uid`,
//! `resourceVersion`, `managedFields`, `status`, as in a dump). The documents are read as
//! manifests to apply (`--mode apply`). After `--fix` (with or without `--unsafe-fixes`, in
//! rounds), each document still parses, holds what it held except the fixed fields (repeated
//! entries gone, kinds spelled canonically, `deletionTimestamp` gone, and with unsafe fixes the
//! `orphan` finalizer and the server's fields), and a second run has nothing to fix.

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

/// What else the document's metadata holds: `deletionTimestamp` (removed by a safe fix) and
/// finalizers, `orphan` among them (removed by an unsafe fix).
#[derive(Clone, Copy, Debug)]
struct Extras {
    deletion_timestamp: bool,
    keep_finalizer: bool,
    orphan: bool,
    /// `uid`, `resourceVersion`, `creationTimestamp`, `managedFields` and `status`.
    system_fields: bool,
}

#[derive(Clone, Copy, Debug)]
enum Style {
    Block,
    Flow,
    Json,
}

fn document(
    entries: &[Entry],
    style: Style,
    comments: bool,
    labels: bool,
    extras: Extras,
) -> String {
    let finalizers: Vec<&str> = [
        extras.keep_finalizer.then_some("example.com/keep"),
        extras.orphan.then_some("orphan"),
    ]
    .into_iter()
    .flatten()
    .collect();
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
            let mut extra = String::new();
            if extras.system_fields {
                extra.push_str("\n  \"uid\": \"u-self\", \"resourceVersion\": \"42\", \"creationTimestamp\": \"2024-05-02T10:11:12Z\",\n  \"managedFields\": [{\"manager\": \"kubectl\", \"operation\": \"Update\"}],");
            }
            if extras.deletion_timestamp {
                extra.push_str("\n  \"deletionTimestamp\": \"2024-05-02T10:11:12Z\",");
            }
            if !finalizers.is_empty() {
                let names: Vec<String> = finalizers.iter().map(|f| format!("\"{f}\"")).collect();
                extra.push_str(&format!("\n  \"finalizers\": [{}],", names.join(", ")));
            }
            let status = if extras.system_fields {
                ",\n \"status\": {\"phase\": \"Bound\"}"
            } else {
                ""
            };
            format!(
                "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {{\"name\": \"cache\", \"namespace\": \"shop\", {labels}{extra}\n  \"ownerReferences\": [\n   {}\n  ]}},\n \"data\": {{\"size\": \"1Gi\"}}{status}}}\n",
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
            let mut extra = String::new();
            if extras.system_fields {
                extra.push_str("  uid: u-self\n  resourceVersion: \"42\"\n  managedFields: [{manager: kubectl, operation: Update}]\n");
            }
            if extras.deletion_timestamp {
                extra.push_str("  deletionTimestamp: \"2024-05-02T10:11:12Z\"\n");
            }
            if !finalizers.is_empty() {
                extra.push_str(&format!("  finalizers: [{}]\n", finalizers.join(", ")));
            }
            let status = if extras.system_fields {
                "status: {phase: Bound}\n"
            } else {
                ""
            };
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n{labels}{extra}  ownerReferences: [{}]\ndata:\n  size: 1Gi\n{status}",
                refs.join(", ")
            )
        }
        Style::Block => {
            let mut text = String::from(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n",
            );
            if extras.system_fields {
                text.push_str("  creationTimestamp: \"2024-05-02T10:11:12Z\"\n");
            }
            if labels {
                text.push_str("  labels:\n    app: api  # the app\n    tier: cache\n");
            }
            if extras.system_fields {
                text.push_str("  managedFields:\n  - manager: kubectl\n    operation: Update\n  resourceVersion: \"42\"  # live\n  uid: u-self\n");
            }
            if extras.deletion_timestamp {
                text.push_str("  deletionTimestamp: \"2024-05-02T10:11:12Z\"  # exported\n");
            }
            if !finalizers.is_empty() {
                text.push_str("  finalizers:\n");
                for f in &finalizers {
                    text.push_str(&format!("  - {f}\n"));
                }
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
            if extras.system_fields {
                text.push_str("status:\n  phase: Bound\n");
            }
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

/// The document as Kubernetes reads it: a metadata list that is empty or null is no list
/// (removing the last finalizer of a block list leaves `finalizers:` with no value).
fn parse(text: &str) -> serde_yaml::Value {
    let mut value: serde_yaml::Value =
        serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    if let Some(metadata) = value.get_mut("metadata").and_then(|m| m.as_mapping_mut()) {
        metadata.retain(|_, v| !(v.is_null() || v.as_sequence().is_some_and(|s| s.is_empty())));
    }
    value
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
        deletion_timestamp in any::<bool>(),
        keep_finalizer in any::<bool>(),
        orphan in any::<bool>(),
        system_fields in any::<bool>(),
        unsafe_fixes in any::<bool>(),
    ) {
        let extras = Extras { deletion_timestamp, keep_finalizer, orphan, system_fields };
        let applicability = if unsafe_fixes { Applicability::Unsafe } else { Applicability::Safe };
        let entries: Vec<Entry> = picks.iter().map(|&i| POOL[i]).collect();
        let name = match style { Style::Json => "cache.json", _ => "cache.yaml" };
        let text = document(&entries, style, comments, labels, extras);
        let options = ownerlint::Options {
            mode: ownerlint::load::ModeChoice::Apply,
            ..ownerlint::Options::default()
        };
        let inputs = vec![(name.to_string(), text.clone())];
        let run = ownerlint::fix::run_texts(&inputs, &options, applicability);
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
        let left = Extras {
            deletion_timestamp: false,
            keep_finalizer,
            orphan: orphan && !unsafe_fixes,
            system_fields: system_fields && !unsafe_fixes,
        };
        let want = document(&expected(&entries), style, false, labels, left);
        prop_assert_eq!(parse(&fixed), parse(&want), "{}\n->\n{}", text, fixed);
        // Nothing is left to fix.
        let again = ownerlint::fix::run_texts(&[(name.to_string(), fixed.clone())], &options, applicability);
        prop_assert!(again.changed.is_empty(), "{fixed}");
    }
}
