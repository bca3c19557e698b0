//! `tracking-label-required`: a policy says cluster-scoped objects of some kinds, created for a
//! namespaced owner that cannot own them (`cluster-scoped-dependent`), must carry a label naming
//! that owner, so a controller can delete them by label; and the owner it names must exist.

use super::Context;
use crate::catalog::Scope;
use crate::policy::TrackingLabel;
use crate::finding::Finding;

super::declare_rule! {
    id: "tracking-label-required",
    severity: Error,
    summary: "A policy requires cluster-scoped objects of some kinds to carry a label naming their namespaced owner (off until declared)",
    reads: [LABELS],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    let policies = &cx.options.policies.tracking_label_required;
    if policies.is_empty() {
        return;
    }
    for (id, object) in cx.linted() {
        if cx.index.facts(id).scope != Some(Scope::Cluster) {
            continue;
        }
        for policy in policies
            .iter()
            .filter(|p| p.kinds.iter().any(|k| k == object.kind_str()))
        {
            check_object(cx, out, id, policy);
        }
    }
}

fn check_object(
    cx: &Context,
    out: &mut Vec<Finding>,
    id: crate::index::ObjId,
    policy: &TrackingLabel,
) {
    let object = cx.object(id);
    let labels = object.labels.as_ref();
    let owner_kind = policy.owner.as_ref().map_or("owner", |o| o.kind.as_str());
    let Some(value) = labels.and_then(|l| l.get(&policy.label)) else {
        let span = object.labels_span();
        out.push(
            cx.finding(
                &META,
                id,
                span,
                format!("no `{}` label", policy.label),
                format!(
                    "{} has no `{}` label naming its {owner_kind}, which the policy ({}) requires: a cluster-scoped object cannot have a namespaced owner, so nothing would delete it",
                    cx.display_name(id),
                    policy.label,
                    policy.origin
                ),
            )
            .help(format!(
                "label it `{}: <name of its {owner_kind}>` where it is created, and have the {owner_kind}'s controller delete objects with that label when the {owner_kind} goes",
                policy.label
            )),
        );
        return;
    };
    // The owner the label names must exist, when the policy says which kind it is.
    let Some(owner) = &policy.owner else { return };
    let namespace = match &policy.namespace_label {
        Some(key) => labels.and_then(|l| l.get(key)),
        None => None,
    };
    let group = owner.group.as_deref().unwrap_or("");
    let found = match namespace {
        Some(ns) => !cx
            .index
            .lookup(cx.objects, id, group, &owner.kind, Some(ns), value)
            .is_empty(),
        None => !cx
            .index
            .lookup_any_namespace(cx.objects, id, group, &owner.kind, value)
            .is_empty(),
    };
    if found {
        return;
    }
    let named = match namespace {
        Some(ns) => format!("{} {ns}/{value}", owner.kind),
        None => format!("{} {value}", owner.kind),
    };
    let span = labels.map_or(object.name_span(), |l| l.span);
    out.push(
        cx.finding(
            &META,
            id,
            span,
            format!("names {named}"),
            format!(
                "{}: its `{}` label names {named}, which is not in the input (policy {}): a cleanup by label would never run for it",
                cx.display_name(id),
                policy.label,
                policy.origin
            ),
        )
        .help(format!("correct the label to the name of an existing {}, or delete the object if its owner is gone", owner.kind)),
    );
}
