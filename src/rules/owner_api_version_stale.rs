//! `owner-api-version-stale`: the reference and the owner name different versions that are
//! both served today; when the reference's version is removed, the reference stops resolving.

use super::Context;
use crate::catalog::ApiStatus;
use crate::finding::{Applicability, Finding, Label};
use crate::model::parse_api_version;

super::declare_rule! {
    id: "owner-api-version-stale",
    severity: Warning,
    fix: Safe,
    summary: "Owner object and reference name different versions that are both served; keep references on the owner's version",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, _, _, reference, resolution) in cx.references() {
        let Some(owner_id) = resolution.owner() else {
            continue;
        };
        let owner = cx.object(owner_id);
        let Some(owner_api) = &owner.api_version else {
            continue;
        };
        let Some((owner_group, owner_version)) = parse_api_version(&owner_api.value) else {
            continue;
        };
        if owner_version == resolution.version
            || resolution.api != ApiStatus::Served
            || cx
                .catalog
                .api_status(owner_group, owner_version, owner.kind_str())
                != ApiStatus::Served
        {
            continue;
        }
        let span = reference
            .api_version
            .as_ref()
            .map_or(reference.span, |a| a.span);
        let mut finding = cx
            .finding(
                &META,
                id,
                span,
                "older version than the owner's",
                format!(
                    "{}: the reference names {} but the owner is written as {}; both are served today, but once {} is removed the garbage collector can no longer map the reference and never collects {}",
                    cx.arrow(id, reference, resolution),
                    reference.api_version_str().unwrap_or("?"),
                    owner_api.value,
                    reference.api_version_str().unwrap_or("?"),
                    cx.describe(id)
                ),
            )
            .related(Label::new(owner.source, owner_api.span, "the owner's apiVersion"))
            .help(format!("change the reference's apiVersion to {}", owner_api.value));
        // Both versions are served and name one resource: the garbage collector maps either to
        // it, finds the same object by name and compares the same uid, so the fix changes
        // nothing it does today.
        if let Some(api_version) = &reference.api_version
            && let Some(fix) = cx.replace_fix(
                id,
                api_version.span,
                &owner_api.value,
                Applicability::Safe,
                format!("write `{}`", owner_api.value),
            )
        {
            finding = finding.fix(fix);
        }
        out.push(finding);
    }
}
