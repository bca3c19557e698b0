//! `banned-owner`: core `v1 Event` as an owner, the one kind in the API server's BannedOwners.

use super::{Context, Site};
use crate::finding::Finding;
use crate::resolve::Resolution;

super::declare_rule! {
    id: "banned-owner",
    severity: Error,
    summary: "Core v1 Event as an owner, which the API server refuses",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, reference, resolution, .. } in cx.references() {
        if resolution.resolution != Resolution::Banned {
            continue;
        }
        let span = reference.kind.as_ref().map_or(reference.span, |k| k.span);
        out.push(
            cx.finding(
                &META,
                id,
                span,
                "v1 Event cannot be an owner",
                format!(
                    "{}: the API server rejects {} (`/v1, Kind=Event is disallowed from being an owner`)",
                    cx.arrow(id, reference, resolution),
                    cx.display_name(id)
                ),
            )
            .help("own the object by what the event is about (its involvedObject), not by the Event"),
        );
    }
}
