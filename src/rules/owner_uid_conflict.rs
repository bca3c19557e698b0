//! `owner-uid-conflict`: the reference's uid belongs to an object in the input that is not the
//! one the reference names. The garbage collector keys owners by uid, finds that object, sees
//! that its identity differs, and treats the owner as absent.

use super::{Context, Site};
use crate::finding::Finding;
use crate::model::{Object, OwnerRef};
use crate::resolve::Unresolved;

super::declare_rule! {
    id: "owner-uid-conflict",
    severity: Warning,
    summary: "The reference's uid belongs to an object in the input with a different kind or name",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, index, reference, resolution, .. } in cx.references() {
        // Only where nothing of that name is found: otherwise owner-uid-mismatch or
        // cross-namespace-owner already explains the reference.
        if resolution.unresolved() != Some(Unresolved::NotFound) {
            continue;
        }
        let Some(uid) = reference.uid_str() else {
            continue;
        };
        let Some(holder) = cx.index.by_uid(cx.objects, id, uid).next() else {
            continue;
        };
        let span = reference.uid.as_ref().map_or(reference.span, |u| u.span);
        let namespaces = (
            cx.index.facts(holder).namespace.as_deref(),
            cx.index.facts(id).namespace.as_deref(),
        );
        let (named, differ) = what_differs(cx.object(holder), reference, namespaces);
        out.push(
            cx.finding(
                &META,
                id,
                span,
                format!("this is {}'s uid", cx.display_name(holder)),
                format!(
                    "{}: uid `{uid}` belongs to {}, not to the {named} the reference names; the garbage collector finds that object by uid, sees that its {differ}, and treats the owner as absent, so {}",
                    cx.arrow(id, reference, resolution),
                    cx.display_name(holder),
                    cx.dangling_consequence(id, index)
                ),
            )
            .related(cx.uid_label(holder, format!("{} has this uid", cx.display_name(holder))))
            .help(format!("if {} is the owner, write its apiVersion, kind and name in the reference; otherwise use the real owner's uid", cx.display_name(holder))),
        );
    }
}

/// The owner as the reference names it (with its apiVersion when the group is what differs),
/// and which of group, kind, name and namespace differ from the object holding the uid.
fn what_differs(
    holder: &Object,
    reference: &OwnerRef,
    (holder_namespace, dependent_namespace): (Option<&str>, Option<&str>),
) -> (String, String) {
    fn group(api_version: Option<&str>) -> Option<&str> {
        api_version.map(|v| crate::model::parse_api_version(v).map_or(v, |(group, _)| group))
    }
    let holder_api = holder.api_version.as_ref().map(|v| v.value.as_str());
    let mut differ = Vec::new();
    let other_group = group(holder_api) != group(reference.api_version_str());
    if other_group {
        differ.push("group");
    }
    if Some(holder.kind_str()) != reference.kind_str() {
        differ.push("kind");
    }
    if holder.name.as_ref().map(|n| n.value.as_str()) != reference.name_str() {
        differ.push("name");
    }
    // A namespaced owner is looked for in the dependent's namespace.
    if holder_namespace.is_some() && holder_namespace != dependent_namespace {
        differ.push("namespace");
    }
    let named = match other_group {
        true => format!(
            "{} {}",
            reference.api_version_str().unwrap_or("?"),
            reference.display()
        ),
        false => reference.display(),
    };
    let differ = match differ.as_slice() {
        [] => "identity differs".to_string(),
        [one] => format!("{one} differs"),
        [rest @ .., last] => format!("{} and {last} differ", rest.join(", ")),
    };
    (named, differ)
}
