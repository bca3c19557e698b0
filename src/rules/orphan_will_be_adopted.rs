//! `orphan-will-be-adopted`: an object without a controller reference that a workload
//! controller's selector matches. The controller adopts it: it becomes the object's controller
//! owner (`ClaimObject` in
//! `k8s.io/kubernetes/pkg/controller/controller_ref_manager.go`).

use std::collections::HashMap;

use super::Context;
use crate::controllers::{Verdict, is_claimable, workload_controller};
use crate::finding::{Finding, Label};
use crate::index::ObjId;
use crate::selector::display_labels;

super::declare_rule! {
    id: "orphan-will-be-adopted",
    severity: Info,
    summary: "An object without a controller matches a workload controller's selector and will be adopted",
    reads: [LABELS, SELECTOR, TEMPLATE_LABELS, POD_PHASE, DELETION_TIMESTAMP],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    // Controllers that can adopt, by namespace: they have a usable selector and are not being
    // deleted (a controller being deleted adopts nothing).
    let mut controllers: HashMap<&str, Vec<ObjId>> = HashMap::new();
    for (i, object) in cx.objects.iter().enumerate() {
        let id = ObjId(i as u32);
        let facts = cx.index.facts(id);
        if object.selector.is_none() || object.is_being_deleted() {
            continue;
        }
        if let (Some(group), Some(namespace)) = (&facts.group, &facts.namespace)
            && workload_controller(group, object.kind_str()).is_some()
        {
            controllers.entry(namespace).or_default().push(id);
        }
    }
    if controllers.is_empty() {
        return;
    }
    for (id, dependent) in cx.linted() {
        let facts = cx.index.facts(id);
        let (Some(group), Some(namespace)) = (&facts.group, &facts.namespace) else {
            continue;
        };
        if !is_claimable(group, dependent.kind_str())
            || dependent.is_being_deleted()
            || dependent.owner_refs().iter().any(|r| r.is_controller())
        {
            continue;
        }
        let Some(candidates) = controllers.get(namespace.as_str()) else {
            continue;
        };
        let adopters: Vec<ObjId> = candidates
            .iter()
            .copied()
            .filter(|&c| c != id)
            .filter(|&c| {
                let controller = cx.object(c);
                let Some(claim) = cx.index.facts(c).group.as_deref().and_then(|g| {
                    workload_controller(g, controller.kind_str())?
                        .claim(group, dependent.kind_str())
                }) else {
                    return false;
                };
                let Some(selector) = &controller.selector else {
                    return false;
                };
                claim.considers(dependent)
                    && claim.evaluate(controller, selector, dependent) == Verdict::Matches
            })
            .collect();
        if adopters.is_empty() {
            continue;
        }
        let dependent_text = cx.describe(id);
        let names: Vec<String> = adopters.iter().map(|&c| cx.describe(c)).collect();
        let message = match names.as_slice() {
            [one] => {
                let kind = cx.object(adopters[0]).kind_str();
                let replicas = if matches!(kind, "ReplicaSet" | "ReplicationController") {
                    format!(
                        ", and it counts toward the {kind}'s replicas: if that makes more Pods than the {kind} wants, it deletes the surplus, often this Pod"
                    )
                } else {
                    String::new()
                };
                format!(
                    "{dependent_text} has no controller, and its labels match the selector of {one}: the {kind} controller adopts it, making itself its controller owner (`controller: true`, `blockOwnerDeletion: true`), so {dependent_text} will be deleted with {one}{replicas}"
                )
            }
            [init @ .., last] => format!(
                "{dependent_text} has no controller, and its labels match the selectors of {} and {last}: whichever controller syncs first adopts it (a race), and {dependent_text} will be deleted with that one",
                init.join(", ")
            ),
            [] => continue,
        };
        let span = dependent.labels_span();
        let label = format!("labels {}", display_labels(dependent.labels.as_ref()));
        let mut finding = cx.finding(&META, id, span, label, message).help(format!(
            "to keep {dependent_text} on its own, give it labels no controller selects; to have it managed, write the controller's ownerReference so the ownership is explicit"
        ));
        for &c in &adopters {
            if let Some(selector) = &cx.object(c).selector {
                finding = finding.related(Label::new(
                    cx.object(c).source,
                    selector.span,
                    format!("{} selects {selector}", cx.describe(c)),
                ));
            }
        }
        out.push(finding);
    }
}
