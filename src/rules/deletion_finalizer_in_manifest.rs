//! `deletion-finalizer-in-manifest`: `orphan` or `foregroundDeletion` written into an object
//! that is not being deleted. The API server adds these on a delete request; written ahead of
//! time they choose how a later delete treats the object's dependents (`shouldDeleteDependents` and
//! `shouldOrphanDependents` in `k8s.io/apiserver/pkg/registry/generic/registry/store.go`).

use super::Context;
use crate::finding::{Applicability, Finding};

super::declare_rule! {
    id: "deletion-finalizer-in-manifest",
    severity: Warning,
    fix: Unsafe,
    summary: "The orphan or foregroundDeletion finalizer written into a manifest changes how the object is later deleted",
    reads: [FINALIZERS, DELETION_TIMESTAMP],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        // While the object is being deleted these finalizers are the API server's own
        // bookkeeping; `deletion-timestamp-in-manifest` speaks about that object.
        if object.is_being_deleted() {
            continue;
        }
        for (_, name, span) in object.finalizers.names() {
            let (effect, cascade, without) = match name {
                "orphan" => (
                    "an orphaning delete, so its dependents lose this owner and stay instead of being deleted with it",
                    "orphan",
                    "deletes that name no propagation policy then delete its dependents",
                ),
                "foregroundDeletion" => (
                    "a foreground delete, so the object stays Terminating until every dependent with `blockOwnerDeletion: true` is deleted",
                    "foreground",
                    "deletes that name no propagation policy then no longer wait for its blocking dependents",
                ),
                _ => continue,
            };
            let dependents = cx.dependents(id);
            let named = match dependents {
                [] => String::new(),
                [one] => format!(" (in this input: {})", cx.display_name(*one)),
                [one, rest @ ..] => format!(
                    " (in this input: {} and {} more)",
                    cx.display_name(*one),
                    rest.len()
                ),
            };
            let mut finding = cx
                .finding(
                    &META,
                    id,
                    span,
                    format!("`{name}` is set by the API server on delete"),
                    format!(
                        "{} carries the `{name}` finalizer, which the API server adds on a delete request: in a manifest it makes every later delete that names no propagationPolicy (API clients, controllers, the garbage collector) {effect}{named}; `kubectl delete` names one on every delete (`Background` unless `--cascade` says otherwise), which replaces the finalizer",
                        cx.display_name(id)
                    ),
                )
                .help(format!(
                    "remove `{name}` from metadata.finalizers and choose the policy when deleting (`kubectl delete --cascade={cascade}`)"
                ));
            // Unsafe: later deletes then propagate as they ask, which is what a manifest
            // should say, but the finalizer may have been put there to keep dependents.
            if let Some(fix) = cx.fixes(id).remove_finalizer(
                span,
                Applicability::Unsafe,
                format!("remove the `{name}` finalizer ({without})"),
            ) {
                finding = finding.fix(fix);
            }
            out.push(finding);
        }
    }
}
