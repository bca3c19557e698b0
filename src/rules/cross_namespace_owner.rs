//! `cross-namespace-owner`: a namespaced owner that exists only in another namespace. The
//! garbage collector looks owners up in the dependent's namespace, so the reference dangles.

use super::{Context, Site};
use crate::finding::Finding;
use crate::resolve::Resolution;

super::declare_rule! {
    id: "cross-namespace-owner",
    severity: Error,
    summary: "A namespaced owner found only in another namespace; the reference is dangling",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, index, reference, resolution, .. } in cx.references() {
        let Resolution::NotFound { elsewhere, shadow } = &resolution.resolution else {
            continue;
        };
        let Some(first) = elsewhere.first() else {
            continue;
        };
        let namespaces: Vec<String> = elsewhere
            .iter()
            .filter_map(|o| cx.index.facts(*o).namespace.clone())
            .map(|ns| format!("\"{ns}\""))
            .collect();
        let dependent_ns = cx.index.facts(id).namespace.clone().unwrap_or_default();
        let kind = reference.kind_str().unwrap_or("?");
        let name = reference.name_str().unwrap_or("?");
        let uid = reference.uid_str().unwrap_or("?");
        let holds_uid = cx.object(*first).uid.as_ref().map(|u| u.value.as_str()) == Some(uid);
        let whereabouts = match shadow {
            // The reference's uid is another namespace's object; the name here is another one.
            Some(shadow) => format!(
                "the reference's uid `{uid}` belongs to {} in another namespace, not to {} here; owners are matched by uid, so the garbage collector records `OwnerRefInvalidNamespace` on the dependent and treats the owner as gone",
                cx.display_name(*first),
                cx.display_name(*shadow),
            ),
            // The uid is another object's altogether.
            None if holds_uid
                && (cx.object(*first).kind_str() != kind
                    || cx.object(*first).name.as_ref().map(|n| n.value.as_str()) != Some(name)) =>
            {
                format!(
                    "the reference's uid `{uid}` belongs to {} in another namespace; owners are matched by uid and looked up in the dependent's namespace, so the garbage collector records `OwnerRefInvalidNamespace` on the dependent and treats the owner as gone",
                    cx.display_name(*first),
                )
            }
            None => format!(
                "{kind} {name} exists only in namespace {}, and owners are looked up in the dependent's namespace{}, so the reference is dangling",
                namespaces.join(", "),
                if holds_uid {
                    " (the garbage collector records `OwnerRefInvalidNamespace`)"
                } else {
                    ""
                },
            ),
        };
        out.push(
            cx.finding(
                &META,
                id,
                reference.head,
                format!("owner looked up in namespace \"{dependent_ns}\""),
                format!(
                    "{}: {whereabouts}: {}",
                    cx.arrow(id, reference, resolution),
                    cx.dangling_consequence(id, index)
                ),
            )
            .related(cx.name_label(*first, format!("{} is here", cx.display_name(*first))))
            .help("a namespaced owner must be in the dependent's namespace: move one of them, use a cluster-scoped owner, or clean up with a label instead of an owner reference"),
        );
    }
}
