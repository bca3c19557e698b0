//! `owner-kind-unknown`: the owner's kind is neither built in nor declared by a CRD in the
//! input or `--crds`, so its scope is unknown and scope checks cannot be made. Reported only
//! when the reference does not resolve, where the scope would matter.

use super::{Context, Site};
use crate::catalog::ApiStatus;
use crate::finding::Finding;
use crate::resolve::Resolution;

super::declare_rule! {
    id: "owner-kind-unknown",
    severity: Info,
    summary: "The owner kind is neither built in nor declared by a CRD in the input, --crds or config, so its scope is unknown",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, reference, resolution, .. } in cx.references() {
        if resolution.api != ApiStatus::UnknownKind
            || matches!(resolution.resolution, Resolution::Found { .. })
        {
            continue;
        }
        let kind = reference.kind_str().unwrap_or("?");
        let span = reference.kind.as_ref().map_or(reference.span, |k| k.span);
        out.push(
            cx.finding(
                &META,
                id,
                span,
                "kind of unknown scope",
                format!(
                    "{}: {kind} ({}) is not a built-in kind and no CustomResourceDefinition for it was found, so ownerlint cannot tell whether it is namespaced and skips the scope checks for this reference",
                    cx.arrow(id, reference, resolution),
                    reference.api_version_str().unwrap_or("?")
                ),
            )
            .help("pass its CustomResourceDefinition with `--crds DIR` (or include it in the input)"),
        );
    }
}
