//! `owner-uid-conflict`: the reference's uid belongs to an object in the input that is not the
//! one the reference names. The garbage collector keys owners by uid, finds that object, sees
//! that its identity differs, and treats the owner as absent.

use super::{Context, Site};
use crate::finding::Finding;
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
        out.push(
            cx.finding(
                &META,
                id,
                span,
                format!("this is {}'s uid", cx.display_name(holder)),
                format!(
                    "{}: uid `{uid}` belongs to {}, not to the {} the reference names; the garbage collector finds that object by uid, sees that its kind, name or namespace differ, and treats the owner as absent, so {}",
                    cx.arrow(id, reference, resolution),
                    cx.display_name(holder),
                    reference.display(),
                    cx.dangling_consequence(id, index)
                ),
            )
            .related(cx.uid_label(holder, format!("{} has this uid", cx.display_name(holder))))
            .help(format!("if {} is the owner, write its apiVersion, kind and name in the reference; otherwise use the real owner's uid", cx.display_name(holder))),
        );
    }
}
