//! `controller-selector-mismatch`: a dependent whose controller is a workload controller in the
//! input, and whose labels do not match that controller's selector. The controller releases it
//! (`ClaimObject` in `k8s.io/kubernetes/pkg/controller/controller_ref_manager.go`).

use super::Context;
use crate::controllers::{Verdict, workload_controller};
use crate::finding::{Finding, Label};
use crate::selector::{SelectorOrigin, display_labels};

super::declare_rule! {
    id: "controller-selector-mismatch",
    severity: Warning,
    summary: "The dependent's labels do not match the selector of its controller, which will release it",
    reads: [LABELS, SELECTOR, TEMPLATE_LABELS, POD_PHASE, DELETION_TIMESTAMP],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, dependent) in cx.linted() {
        // The controllerRef is the first entry with `controller: true` (`GetControllerOf`).
        let Some((index, reference)) = dependent
            .owner_refs()
            .iter()
            .enumerate()
            .find(|(_, r)| r.is_controller())
        else {
            continue;
        };
        let resolution = &cx.resolutions[id.index()][index];
        // A controllerRef naming another uid is ignored by the controller; other rules say why.
        let (Some(owner_id), true) = (resolution.owner(), resolution.is_solid()) else {
            continue;
        };
        let owner = cx.object(owner_id);
        let (Some(owner_group), Some(group)) =
            (&cx.index.facts(owner_id).group, &cx.index.facts(id).group)
        else {
            continue;
        };
        let Some(controller) = workload_controller(owner_group, owner.kind_str()) else {
            continue;
        };
        let Some(claim) = controller.claim(group, dependent.kind_str()) else {
            continue;
        };
        // A controller that is being deleted releases nothing.
        let Some(selector) = &owner.selector else {
            continue;
        };
        if !claim.releases || owner.is_being_deleted() || !claim.considers(dependent) {
            continue;
        }
        let verdict = claim.evaluate(owner, selector, dependent);
        let why = match verdict {
            Verdict::Matches => continue,
            Verdict::Unmet(requirement) => format!(
                "the {}'s labels do not match the {}'s selector (`{requirement}` is required; {})",
                dependent.kind_str(),
                owner.kind_str(),
                requirement.why_unmet(dependent.labels.as_ref())
            ),
            Verdict::NotAMember => format!(
                "the Pod's name is not {}-<ordinal>, and a StatefulSet claims only Pods named so",
                owner.name.as_ref().map_or("?", |n| n.value.as_str())
            ),
        };
        let labels = display_labels(dependent.labels.as_ref());
        // A StatefulSet releases a Pod for its name, whatever its labels: point at the name.
        let (span, label) = match (&verdict, &dependent.name) {
            (Verdict::NotAMember, Some(name)) => (name.span, "not <set>-<ordinal>".to_string()),
            _ => (dependent.labels_span(), format!("labels {labels}")),
        };
        let selector_label = match selector.origin {
            SelectorOrigin::Spec => format!("selector {selector}"),
            SelectorOrigin::TemplateLabels => {
                format!("no selector, so the template's labels select: {selector}")
            }
        };
        let owner_text = cx.display_name(owner_id);
        let dependent_text = cx.display_name(id);
        let width = owner_text
            .chars()
            .count()
            .max(dependent_text.chars().count());
        let note = format!(
            "{owner_text:<width$}  selector {selector}\n{dependent_text:<width$}  labels   {labels}"
        );
        out.push(
            cx.finding(
                &META,
                id,
                span,
                label,
                format!(
                    "{}: {why}, so the {owner_kind} controller releases the {}: it removes this ownerReference, and the {} is no longer deleted with the {owner_kind}",
                    cx.arrow(id, reference, resolution),
                    dependent.kind_str(),
                    dependent.kind_str(),
                    owner_kind = owner.kind_str(),
                ),
            )
            .related(Label::new(owner.source, selector.span, selector_label))
            .note(note)
            .help(format!(
                "give {dependent_text} labels that match the selector of {owner_text}, or remove the ownerReference if it should not be managed by it"
            )),
        );
    }
}
