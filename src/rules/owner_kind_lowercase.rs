//! `owner-kind-lowercase`: an owner reference writes its kind in all lower case (`replicaset`).
//! The garbage collector maps it like the canonical kind (the discovery REST mapper registers
//! every kind in lower case too), but the workload controllers compare the kind of a controller
//! reference exactly: a Pod controlled through `kind: replicaset` is not counted by its
//! ReplicaSet. For core `event`, the lower case also slips past the ban on core Events as
//! owners.

use super::{Context, Site};
use crate::finding::{Applicability, Finding, Severity};

super::declare_rule! {
    id: "owner-kind-lowercase",
    severity: Error,
    severity_varies: "warning where no workload controller reads the reference",
    fix: Unsafe,
    summary: "An owner kind written in all lower case: the garbage collector maps it, but workload controllers and tools that compare kinds do not",
}

/// The workload controllers that find what they control through the exact kind of its
/// controller reference (`FilterPodsByOwner`, `resolveControllerRef`): the controller's group and
/// kind, the group and kind of what it controls, and what a lower-case kind does to it.
const CONTROLLERS: &[(&str, &str, &str, &str, Effect)] = &[
    ("apps", "ReplicaSet", "", "Pod", Effect::Uncounted),
    ("", "ReplicationController", "", "Pod", Effect::Uncounted),
    ("batch", "Job", "", "Pod", Effect::Uncounted),
    ("apps", "DaemonSet", "", "Pod", Effect::Uncounted),
    ("apps", "StatefulSet", "", "Pod", Effect::Uncounted),
    ("apps", "Deployment", "apps", "ReplicaSet", Effect::Unheard),
    ("batch", "CronJob", "batch", "Job", Effect::Unheard),
];

#[derive(Clone, Copy)]
enum Effect {
    /// The controller lists its Pods through an index keyed by the controller reference's
    /// namespace, kind, name and uid: the Pod is not one of its own.
    Uncounted,
    /// The controller resolves the controller reference of a changed object only when the
    /// kind is exactly its own: it does not hear of the object's changes.
    Unheard,
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, object, reference, resolution, .. } in cx.references() {
        let Some(right) = &resolution.lower_case_of else {
            continue;
        };
        let Some(kind) = &reference.kind else {
            continue;
        };
        let written = kind.str().unwrap_or("?");
        let event = resolution.group.is_empty() && right == "Event";
        let dependent_group = cx.index.facts(id).group.as_deref();
        let controlled = reference
            .is_controller()
            .then(|| {
                CONTROLLERS.iter().find(|(group, owner, dep_group, dep_kind, _)| {
                    *group == resolution.group
                        && owner == right
                        && Some(*dep_group) == dependent_group
                        && *dep_kind == object.kind_str()
                })
            })
            .flatten();
        let consequence = if event {
            "the garbage collector maps it like `Event`, and the API server's ban on core Events as owners compares the kind exactly, so this reference passes it, yet it points at a core Event; the garbage collector deletes the dependent when that Event is deleted, and Events are deleted when they expire".to_string()
        } else if let Some((_, owner, _, dep_kind, effect)) = controlled {
            let dependent = cx.display_name(id);
            match effect {
                Effect::Uncounted => format!(
                    "the garbage collector maps it like `{owner}`, but the {owner} controller finds its {dep_kind}s by the exact kind of their controller reference, so it does not count {dependent} as one of its own: it runs its {dep_kind}s as if this one were not there (another beside it), and never removes it itself (scaling down leaves it running)"
                ),
                Effect::Unheard => format!(
                    "the garbage collector maps it like `{owner}`, but the {owner} controller resolves a controller reference only when its kind is exactly `{owner}`, so it does not hear of changes to {dependent}"
                ),
            }
        } else {
            format!(
                "the garbage collector maps it like `{right}` and no workload controller reads this reference, but tools that compare kinds exactly (kubectl plugins that draw ownership, admission policies, scripts) do not see this owner"
            )
        };
        let mut finding = cx
            .finding(
                &META,
                id,
                kind.span,
                format!("`{right}` in lower case"),
                format!(
                    "{}: kind `{written}` is `{right}` in lower case; {consequence}",
                    cx.arrow(id, reference, resolution)
                ),
            )
            .help(if event {
                "an Event is a poor owner: it expires; make the dependent's real owner its owner".to_string()
            } else {
                format!("write `kind: {right}`")
            });
        if controlled.is_none() {
            finding.severity = Severity::Warning;
        }
        // Where no controller reads the reference, the garbage collector maps both spellings to
        // one kind: the fix changes nothing the cluster does. Where a controller reads it, the
        // fix is right but the controller starts counting the object (and may remove a surplus
        // one). Not for `event`, where the spelling hides a ban: the owner must change.
        let applicability = if controlled.is_some() {
            Applicability::Unsafe
        } else {
            Applicability::Safe
        };
        if !event
            && let Some(fix) = cx.fixes(id).replace(
                kind.span,
                right,
                applicability,
                format!("write `{right}`"),
            )
        {
            finding = finding.fix(fix);
        }
        out.push(finding);
    }
}
