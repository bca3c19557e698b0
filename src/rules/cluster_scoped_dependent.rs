//! `cluster-scoped-dependent`: a cluster-scoped object names a namespaced owner kind. The
//! garbage collector refuses such references and never collects the dependent.

use super::{Context, Site};
use crate::finding::Finding;
use crate::resolve::Resolution;

super::declare_rule! {
    id: "cluster-scoped-dependent",
    severity: Error,
    summary: "A cluster-scoped object names a namespaced owner kind; it is never collected",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, reference, resolution, .. } in cx.references() {
        if resolution.resolution != Resolution::ClusterScopedDependent {
            continue;
        }
        let kind = reference.kind_str().unwrap_or("?");
        out.push(
            cx.finding(
                &META,
                id,
                reference.head,
                format!("{kind} is namespaced"),
                format!(
                    "{} → {kind} {}: {} is cluster-scoped and {kind} is namespaced; the garbage collector refuses this reference (it logs `item is cluster-scoped, but refers to a namespaced owner`) and never collects {}",
                    cx.display_name(id),
                    reference.name_str().unwrap_or("?"),
                    cx.display_name(id),
                    cx.display_name(id)
                ),
            )
            .help("give it a cluster-scoped owner (e.g. the Namespace, or a cluster-scoped custom resource), or drop the reference and label the object with its owner (e.g. `example.com/owner: <namespace>.<name>`) so the owner's controller or finalizer deletes it by label"),
        );
    }
}
