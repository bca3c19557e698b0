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
        let api_version = reference.api_version_str().unwrap_or("?");
        // A group whose discovery failed (an aggregated API whose server did not answer):
        // what it serves is unknown, whatever CRDs there are.
        let discovery_failed = cx.options.not_read.iter().find(|n| {
            n.group == resolution.group && n.kind.as_deref().is_none_or(str::is_empty)
        });
        let (message, help) = match discovery_failed {
            Some(not_read) => (
                format!(
                    "{}: {kind} ({api_version}) could not be looked up: {} was not read: {}, so ownerlint cannot tell whether it is namespaced and skips the scope checks for this reference",
                    cx.arrow(id, reference, resolution),
                    not_read.what,
                    not_read.why
                ),
                "run again when the API's server answers (`kubectl get apiservices` shows which is not Available)",
            ),
            None => (
                format!(
                    "{}: {kind} ({api_version}) is not a built-in kind and no CustomResourceDefinition for it was found, so ownerlint cannot tell whether it is namespaced and skips the scope checks for this reference",
                    cx.arrow(id, reference, resolution),
                ),
                "pass its CustomResourceDefinition with `--crds DIR` (or include it in the input)",
            ),
        };
        out.push(
            cx.finding(&META, id, span, "kind of unknown scope", message)
                .help(help),
        );
    }
}
