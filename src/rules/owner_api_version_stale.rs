//! `owner-api-version-stale`: the reference and the owner name different versions that are
//! both served today; when the reference's version is removed, the reference stops resolving.

use super::{Context, Site};
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
    for Site { id, reference, resolution, .. } in cx.references() {
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
        // Only a reference behind its owner: when the owner's manifest is the older one, it is
        // the manifest to update, and the reference already names what will last.
        if owner_version == resolution.version
            || !older(&resolution.version, owner_version)
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
                    cx.display_name(id)
                ),
            )
            .related(Label::new(owner.source, owner_api.span, "the owner's apiVersion"))
            .help(format!("change the reference's apiVersion to {}", owner_api.value));
        // Both versions are served and name one resource: the garbage collector maps either to
        // it, finds the same object by name and compares the same uid, so the fix changes
        // nothing it does today.
        if let Some(api_version) = &reference.api_version
            && let Some(fix) = cx.fixes(id).replace(
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

/// Whether API version `a` comes before `b` in Kubernetes' order of versions (`v1alpha1` <
/// `v1beta1` < `v1` < `v2alpha1` … < `v2`), as apimachinery's `CompareKubeAwareVersionStrings`
/// sorts them; `false` when either is not such a version.
fn older(a: &str, b: &str) -> bool {
    match (kube_version(a), kube_version(b)) {
        (Some(a), Some(b)) => a < b,
        _ => false,
    }
}

/// `v2beta1` as `(2, 1, 1)`: major, stability (alpha 0, beta 1, GA 2), minor; ordered as
/// Kubernetes orders versions.
fn kube_version(version: &str) -> Option<(u64, u8, u64)> {
    let rest = version.strip_prefix('v')?;
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let major = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    if rest.is_empty() {
        return Some((major, 2, 0));
    }
    let (stability, minor) = match (rest.strip_prefix("alpha"), rest.strip_prefix("beta")) {
        (Some(minor), _) => (0, minor),
        (_, Some(minor)) => (1, minor),
        _ => return None,
    };
    let minor = match minor {
        "" => 0,
        digits if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse().ok()?,
        _ => return None,
    };
    Some((major, stability, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_ordered_as_kubernetes_orders_them() {
        let order = ["v1alpha1", "v1beta1", "v1beta2", "v1", "v2alpha1", "v2beta1", "v2"];
        for (i, a) in order.iter().enumerate() {
            for b in &order[i + 1..] {
                assert!(older(a, b), "{a} < {b}");
                assert!(!older(b, a), "{b} > {a}");
            }
        }
        assert!(!older("foo", "v1") && !older("v1", "v1x"));
    }
}
