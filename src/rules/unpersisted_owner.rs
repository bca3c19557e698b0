//! `unpersisted-owner`: the owner kind is never stored (create-only or computed kinds such as
//! Binding, TokenReview or ComponentStatus), so no owner with that uid can ever exist.

use super::{Context, Site};
use crate::finding::Finding;
use crate::resolve::Resolution;

super::declare_rule! {
    id: "unpersisted-owner",
    severity: Error,
    summary: "The owner kind is never stored (Binding, TokenReview, ComponentStatus, ...), so the reference is always dangling",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, index, reference, resolution, .. } in cx.references() {
        if resolution.resolution != Resolution::Unpersisted {
            continue;
        }
        let kind = reference.kind_str().unwrap_or("?");
        out.push(
            cx.finding(
                &META,
                id,
                reference.head,
                format!("{kind} is never stored"),
                format!(
                    "{}: the API server never stores {kind} objects (they are create-only or computed on read), so this owner can never exist: {}",
                    cx.arrow(id, reference, resolution),
                    cx.dangling_consequence(id, index)
                ),
            )
            .help("own the object by a kind that is stored, such as the object the request was about"),
        );
    }
}
