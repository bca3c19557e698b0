//! `required-owner`: a policy (from `.ownerlint.yaml` or a bundled pack) says objects of a kind
//! must have an owner reference to one of given kinds, as controller or not.

use super::Context;
use crate::policy::RequiredOwner;
use crate::finding::Finding;
use crate::model::{Object, OwnerRef, parse_api_version};

super::declare_rule! {
    id: "required-owner",
    severity: Error,
    summary: "A policy requires objects of a kind to have an owner of given kinds (off until a policy or pack declares one)",
}

fn group_matches(wanted: Option<&str>, group: &str) -> bool {
    wanted.is_none_or(|w| w == group)
}

fn reference_group(reference: &OwnerRef) -> Option<&str> {
    reference
        .api_version_str()
        .and_then(parse_api_version)
        .map(|(group, _)| group)
}

fn owner_list(policy: &RequiredOwner) -> String {
    let names: Vec<&str> = policy.owners.iter().map(|o| o.kind.as_str()).collect();
    match names.as_slice() {
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
        [] => String::new(),
    }
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    let policies = &cx.options.policies.required_owner;
    if policies.is_empty() {
        return;
    }
    for (id, object) in cx.linted() {
        let Some(group) = cx.index.facts(id).group.as_deref() else {
            continue;
        };
        for policy in policies
            .iter()
            .filter(|p| p.kind == object.kind_str() && group_matches(p.group.as_deref(), group))
        {
            check_object(cx, out, id, object, policy);
        }
    }
}

fn check_object(
    cx: &Context,
    out: &mut Vec<Finding>,
    id: crate::index::ObjId,
    object: &Object,
    policy: &RequiredOwner,
) {
    // References to an accepted owner kind, with the controller flag that owner requires.
    let accepted: Vec<(&OwnerRef, Option<bool>)> = object
        .owner_refs()
        .iter()
        .filter_map(|r| {
            let owner = policy.owners.iter().find(|o| {
                Some(o.kind.as_str()) == r.kind_str()
                    && reference_group(r).is_some_and(|g| group_matches(o.group.as_deref(), g))
            })?;
            Some((r, owner.controller.or(policy.controller)))
        })
        .collect();
    let owners = owner_list(policy);
    if accepted.is_empty() {
        let span = object.name_span();
        out.push(
            cx.finding(
                &META,
                id,
                span,
                format!("no owner reference to {owners}"),
                format!(
                    "{} has no owner reference to {owners}, which the policy ({}) requires: nothing deletes it with the object that should own it",
                    cx.display_name(id),
                    policy.origin
                ),
            )
            .help(format!(
                "add an ownerReference to its {owners} (normally the owning controller sets it; a missing one was lost, e.g. by a backup and restore)"
            )),
        );
        return;
    }
    // One accepted reference with the right controller flag satisfies the policy.
    let satisfied = accepted
        .iter()
        .any(|(r, wanted)| wanted.is_none_or(|w| r.is_controller() == w));
    if satisfied {
        return;
    }
    let (reference, wanted) = accepted[0];
    let wanted = wanted.unwrap_or(true);
    let span = reference
        .controller
        .as_ref()
        .map_or(reference.head, |c| c.span);
    let (label, rule) = if wanted {
        ("must be the controller", "`controller: true`")
    } else {
        ("must not be the controller", "no `controller: true`")
    };
    out.push(
        cx.finding(
            &META,
            id,
            span,
            label,
            format!(
                "{} → {}: the policy ({}) requires {rule} on this reference",
                cx.display_name(id),
                reference.display(),
                policy.origin
            ),
        )
        .help(if wanted {
            "set `controller: true` (and `blockOwnerDeletion: true`) on this reference"
        } else {
            "remove `controller: true` from this reference: this owner does not manage the object"
        }),
    );
}
