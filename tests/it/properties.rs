//! Properties over generated object graphs (proptest): the findings do not depend on the order
//! of files or documents; every `owner-not-found` names an owner that really is not in the
//! input; every reference that gets no finding really resolves (same kind, name, namespace and
//! uid).

use std::collections::BTreeSet;

use ownerlint::Options;
use proptest::prelude::*;

/// A generated object: kind index, namespace index, and its references.
#[derive(Clone, Debug)]
struct Obj {
    kind: usize,
    namespace: usize,
    refs: Vec<Ref>,
}

/// A reference to object `target`, possibly broken: another uid, another name.
#[derive(Clone, Debug)]
struct Ref {
    target: usize,
    stale_uid: bool,
    wrong_name: bool,
}

const KINDS: [(&str, &str); 3] = [
    ("v1", "ConfigMap"),
    ("apps/v1", "Deployment"),
    ("v1", "Namespace"),
];
const NAMESPACES: [&str; 2] = ["a", "b"];

fn graph() -> impl Strategy<Value = Vec<Obj>> {
    (2usize..12).prop_flat_map(|n| {
        prop::collection::vec(
            (
                0usize..KINDS.len(),
                0usize..NAMESPACES.len(),
                prop::collection::vec(
                    (0..n, prop::bool::weighted(0.2), prop::bool::weighted(0.1)),
                    0..3,
                ),
            )
                .prop_map(|(kind, namespace, refs)| Obj {
                    kind,
                    namespace,
                    refs: refs
                        .into_iter()
                        .map(|(target, stale_uid, wrong_name)| Ref {
                            target,
                            stale_uid,
                            wrong_name,
                        })
                        .collect(),
                }),
            n,
        )
    })
}

fn name(i: usize) -> String {
    format!("o{i}")
}

fn uid(i: usize) -> String {
    format!("00000000-0000-4000-8000-{i:012}")
}

/// The namespace an object lives in (`None` for cluster-scoped Namespaces).
fn namespace_of(o: &Obj) -> Option<&'static str> {
    (KINDS[o.kind].1 != "Namespace").then(|| NAMESPACES[o.namespace])
}

fn document(objects: &[Obj], i: usize) -> String {
    let o = &objects[i];
    let (api, kind) = KINDS[o.kind];
    let mut text = format!(
        "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {}\n  uid: {}\n",
        name(i),
        uid(i)
    );
    if let Some(ns) = namespace_of(o) {
        text.push_str(&format!("  namespace: {ns}\n"));
    }
    if !o.refs.is_empty() {
        text.push_str("  ownerReferences:\n");
        for r in &o.refs {
            let (api, kind) = KINDS[objects[r.target].kind];
            let target_name = if r.wrong_name {
                format!("missing-{}", r.target)
            } else {
                name(r.target)
            };
            let target_uid = if r.stale_uid {
                uid(r.target + 1000)
            } else {
                uid(r.target)
            };
            text.push_str(&format!(
                "  - {{apiVersion: {api}, kind: {kind}, name: {target_name}, uid: {target_uid}}}\n"
            ));
        }
    }
    text
}

/// Each finding as (rule, object name, message without locations).
fn findings(files: Vec<(String, String)>) -> BTreeSet<(String, String, String)> {
    let outcome = ownerlint::lint_texts(files, &Options::default());
    outcome
        .findings
        .iter()
        .map(|f| {
            let object = f
                .object
                .as_ref()
                .and_then(|o| o.name.clone())
                .unwrap_or_default();
            (f.rule.to_string(), object, f.message.clone())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn findings_do_not_depend_on_order(objects in graph(), seed in any::<u64>()) {
        let docs: Vec<String> = (0..objects.len()).map(|i| document(&objects, i)).collect();
        let one_file = vec![("all.yaml".to_string(), docs.join("---\n"))];
        // The same documents reversed, rotated and spread over several files.
        let mut order: Vec<usize> = (0..docs.len()).rev().collect();
        order.rotate_left((seed as usize) % docs.len());
        let files: Vec<(String, String)> = order
            .chunks(3)
            .enumerate()
            .map(|(f, chunk)| (format!("part-{f}.yaml"), chunk.iter().map(|&i| docs[i].clone()).collect::<Vec<_>>().join("---\n")))
            .collect();
        prop_assert_eq!(findings(one_file), findings(files));
    }

    #[test]
    fn not_found_is_true_and_silence_means_resolved(objects in graph()) {
        let docs: Vec<String> = (0..objects.len()).map(|i| document(&objects, i)).collect();
        let text = docs.join("---\n");
        let outcome = ownerlint::lint_texts(vec![("all.yaml".into(), text.clone())], &Options::default());
        let source = &outcome.sources[0];
        let mut doc_start = 0;
        for (i, o) in objects.iter().enumerate() {
            // Each reference is one `  - {…}` line of its document.
            let ref_lines: Vec<usize> = docs[i]
                .match_indices("\n  - {")
                .map(|(at, _)| source.line_index(doc_start + at + 1))
                .collect();
            doc_start += docs[i].len() + "---\n".len();
            for (r, &line) in o.refs.iter().zip(&ref_lines) {
                let target = &objects[r.target];
                let about: Vec<&ownerlint::finding::Finding> = outcome
                    .findings
                    .iter()
                    .filter(|f| source.line_index(f.primary.span.start) == line)
                    .collect();
                let same_scope = match (namespace_of(o), namespace_of(target)) {
                    (_, None) => true,
                    (Some(a), Some(b)) => a == b,
                    (None, Some(_)) => false,
                };
                let resolves = !r.wrong_name && !r.stale_uid && same_scope;
                for f in &about {
                    if f.rule.id == "owner-not-found" {
                        prop_assert!(r.wrong_name || !same_scope, "owner-not-found for a present owner: {}", f.message);
                    }
                }
                if about.is_empty() {
                    prop_assert!(resolves, "no finding for a broken reference {:?} from o{} to o{}", r, i, r.target);
                }
            }
        }
    }
}
