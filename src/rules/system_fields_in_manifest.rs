//! `system-fields-in-manifest`: a manifest to apply carries the fields only the API server
//! sets (`uid`, `resourceVersion`, `managedFields`, …): it is a copy of a live object, and
//! applying it does not do what it seems to.

use super::Context;
use crate::finding::{Applicability, Finding};
use crate::index::ObjId;
use crate::model::Mode;
use crate::source::Span;
use crate::yaml::Node;

super::declare_rule! {
    id: "system-fields-in-manifest",
    severity: Warning,
    fix: Unsafe,
    summary: "A manifest to apply carries uid, resourceVersion or managedFields, which only the API server sets: it is a copy of a live object",
}

/// The fields of `metadata` that the API server sets, in the order they are reported.
const METADATA_FIELDS: [&str; 7] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
    "managedFields",
];

/// What applying a manifest that carries a field does, for the fields where something happens,
/// in the order they are told.
const CONSEQUENCES: [(&str, &str); 3] = [
    (
        "uid",
        "server-side apply (`kubectl apply --server-side`, Flux, Argo CD) refuses it unless the object it was copied from still exists (`409 … uid mismatch`), and `kubectl create` or `kubectl apply` gives it a new uid",
    ),
    (
        "managedFields",
        "server-side apply refuses its managedFields (`metadata.managedFields must be nil`)",
    ),
    (
        "resourceVersion",
        "the API refuses to create an object with a resourceVersion (`resourceVersion should not be set on objects to be created`), which kubectl drops first, and over the live object every apply (server-side too) or replace fails (`409 … the object has been modified`) once the object has changed since it was copied",
    ),
];

fn consequence(key: &str) -> Option<&'static str> {
    CONSEQUENCES.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
}

/// A system field of the object: its name and its entry, from key to value.
struct Entry {
    key: &'static str,
    key_span: Span,
    value_span: Span,
}

/// The system fields an object carries (`status` last), grouped in runs of entries that follow
/// one another in one mapping.
fn system_entries(object: &Node) -> Vec<Vec<Entry>> {
    let runs_of = |map: &Node, keys: &[&'static str]| {
        crate::edit::fixes::entry_runs(map, keys)
            .into_iter()
            .map(|run| {
                run.into_iter()
                    .map(|(i, key_span, value_span)| Entry {
                        key: keys[i],
                        key_span,
                        value_span,
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let mut runs = object
        .get("metadata")
        .map_or_else(Vec::new, |m| runs_of(m, &METADATA_FIELDS));
    runs.extend(runs_of(object, &["status"]));
    runs
}

/// Whether a field holds something the API server acts on: not null, not an empty string.
fn is_set(object: &Node, key: &str) -> bool {
    let value = match key {
        "status" => object.get(key),
        _ => object.get("metadata").and_then(|m| m.get(key)),
    };
    value.is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    use rayon::prelude::*;
    // Each object that carries these fields is read again, whole: in parallel, for a dump
    // being turned into manifests holds hundreds of thousands.
    let found: Vec<Finding> = cx
        .objects
        .par_iter()
        .enumerate()
        .filter_map(|(i, object)| {
            // Only a manifest to apply, and only one that carries what the fast path keeps of
            // these fields (`uid`, `resourceVersion`, `creationTimestamp`).
            let carries =
                object.uid.as_ref().is_some_and(|u| !u.value.is_empty()) || object.captured;
            if object.from_existing || object.mode != Mode::Apply || !carries {
                return None;
            }
            finding(cx, ObjId(i as u32))
        })
        .collect();
    out.extend(found);
}

fn finding(cx: &Context, id: ObjId) -> Option<Finding> {
    let (runs, set) = cx.fixes(id).whole_object(|node| {
        let runs = system_entries(node);
        let set: Vec<bool> = runs.iter().flatten().map(|e| is_set(node, e.key)).collect();
        (runs, set)
    })?;
    let entries: Vec<(&Entry, bool)> = runs.iter().flatten().zip(set).collect();
    let acted_on: Vec<&Entry> = entries
        .iter()
        .filter(|(e, set)| *set && consequence(e.key).is_some())
        .map(|(e, _)| *e)
        .collect();
    let first = acted_on.iter().min_by_key(|e| e.key_span.start)?;
    let names: Vec<String> = entries
        .iter()
        .filter(|(_, set)| *set)
        .map(|(e, _)| format!("`{}`", e.key))
        .collect();
    let consequences: Vec<&str> = CONSEQUENCES
        .iter()
        .filter(|(key, _)| acted_on.iter().any(|e| e.key == *key))
        .map(|(_, c)| *c)
        .collect();
    let message = format!(
        "{} is read as a manifest to apply, but it carries fields that only the API server sets ({}): it is a copy of a live object. Applied as it is, {}",
        cx.display_name(id),
        in_words(&names),
        consequences.join("; ")
    );
    let spans: Vec<Vec<(Span, Span)>> = runs
        .iter()
        .map(|run| run.iter().map(|e| (e.key_span, e.value_span)).collect())
        .collect();
    Some(
        cx.finding(&META, id, first.key_span, "set by the API server", message)
            .help("remove them before applying (`--fix --unsafe-fixes` does, and removes the other fields the API server sets); if the file is a record of a cluster rather than a manifest, lint it as a snapshot (`--mode snapshot`)")
            .fix_if(cx.fixes(id).remove_entries(
                &spans,
                Applicability::Unsafe,
                "remove the fields the API server sets (uid, resourceVersion, creationTimestamp, managedFields, status, …)",
            )),
    )
}

/// `a`, `a and b`, `a, b and c`.
fn in_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
