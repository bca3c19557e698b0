//! `owner-api-unserved`: the reference's apiVersion/kind does not map to a served resource.
//! The garbage collector cannot map it, retries forever, and never collects the dependent.

use super::{Context, Site};
use crate::catalog::ApiStatus;
use crate::finding::{Applicability, Finding, Severity};
use crate::model::parse_api_version;
use crate::resolve::Resolution;

super::declare_rule! {
    id: "owner-api-unserved",
    severity: Error,
    severity_varies: "warning for a version that is off by default",
    fix: Unsafe,
    summary: "The reference's apiVersion/kind is not served (removed version, kind not in that group, wrong case other than all lower case); the dependent is never collected",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    let release = cx.catalog.kube_version;
    for Site { id, reference, resolution, .. } in cx.references() {
        let status = match &resolution.resolution {
            Resolution::Unserved(status) => status,
            _ if resolution.api == ApiStatus::OffByDefault => &resolution.api,
            _ => continue,
        };
        let api_version = reference.api_version_str().unwrap_or("?");
        let kind = reference.kind_str().unwrap_or("?");
        let group = if resolution.group.is_empty() {
            "the core group".to_string()
        } else {
            format!("group {}", resolution.group)
        };
        // What a cluster's discovery lists is that cluster's, not a release's.
        let discovered = (matches!(status, ApiStatus::UnknownVersion { .. })
            && cx.catalog.is_discovered(
                &resolution.group,
                resolution.lower_case_of.as_deref().unwrap_or(kind),
            ))
            || matches!(
                status,
                ApiStatus::GroupNotServed { .. } | ApiStatus::NotInCustomGroup { .. }
            );
        // A custom kind's versions are its CustomResourceDefinition's, not a release's.
        let declared = matches!(status, ApiStatus::UnknownVersion { .. })
            && !discovered
            && !cx.catalog.is_builtin(
                &resolution.group,
                resolution.lower_case_of.as_deref().unwrap_or(kind),
            );
        let checked = if discovered || declared {
            String::new()
        } else {
            format!(" (checked against Kubernetes {release})")
        };
        let (what, help) = match status {
            ApiStatus::Removed {
                removed_in,
                replacement,
            } => (
                format!("{api_version} {kind} is not served since Kubernetes {removed_in}"),
                format!("change apiVersion to the owner's current version ({replacement})"),
            ),
            ApiStatus::UnknownVersion { served } if served.is_empty() => (
                format!("{kind} was never served at {api_version}"),
                "use the apiVersion the owner is served at".to_string(),
            ),
            ApiStatus::UnknownVersion { served } => (
                if discovered {
                    format!(
                        "the cluster does not serve {kind} at {api_version} (its API discovery lists {})",
                        served.join(", ")
                    )
                } else if declared {
                    format!(
                        "{kind} is not served at {api_version} (its CustomResourceDefinition serves {})",
                        served.join(", ")
                    )
                } else {
                    format!(
                        "{kind} is not served at {api_version} (served: {})",
                        served.join(", ")
                    )
                },
                format!(
                    "change apiVersion to {}",
                    with_version(&resolution.group, &served[0])
                ),
            ),
            ApiStatus::MisCased { kind: right } => (
                format!(
                    "{group} has no kind `{kind}`; kinds are case-sensitive and it is `{right}`"
                ),
                format!("write `kind: {right}`"),
            ),
            ApiStatus::NotInGroup { elsewhere } if !elsewhere.is_empty() => (
                format!("{group} has no kind {kind}"),
                format!("did you mean {}?", elsewhere.join(" or ")),
            ),
            ApiStatus::NotInGroup { .. } => (
                format!("{group} has no kind {kind}"),
                "use the owner's apiVersion and kind as written in its manifest".to_string(),
            ),
            ApiStatus::GroupNotServed { elsewhere } => (
                format!(
                    "the cluster does not serve {group} at all (its API discovery lists no such group)"
                ),
                did_you_mean(elsewhere).unwrap_or_else(|| {
                    "use the owner's apiVersion as written in its manifest, or install the API that serves the group".to_string()
                }),
            ),
            ApiStatus::NotInCustomGroup { kinds, elsewhere } => (
                format!(
                    "the cluster serves {group} without a kind {kind} (its API discovery lists {})",
                    kinds.join(", ")
                ),
                did_you_mean(elsewhere).unwrap_or_else(|| {
                    "use the owner's kind as its CustomResourceDefinition names it, or install the CustomResourceDefinition that declares it".to_string()
                }),
            ),
            ApiStatus::OffByDefault => (
                format!(
                    "{api_version} is an alpha or beta version that Kubernetes {release} does not serve unless it is enabled with --runtime-config"
                ),
                "reference the owner's GA version if it has one".to_string(),
            ),
            ApiStatus::Served | ApiStatus::UnknownKind => continue,
        };
        let span = reference
            .api_version
            .as_ref()
            .map_or(reference.span, |a| a.span);
        let mut finding = cx
            .finding(
                &META,
                id,
                span,
                "not served",
                format!(
                    "{}: {what}{checked}: the garbage collector cannot map the reference, retries it forever, and never collects {} even when all its owners are gone{}",
                    cx.arrow(id, reference, resolution),
                    cx.display_name(id),
                    foreground_hang(cx, id, reference)
                ),
            )
            .help(help);
        if *status == ApiStatus::OffByDefault {
            finding.severity = Severity::Warning;
        }
        // A removed version whose one replacement for the same kind is served: the garbage
        // collector can then map the reference, and starts collecting the dependent (at once,
        // if the owner is gone), which it never did before.
        if let ApiStatus::Removed { replacement, .. } = status
            && let Some(field) = &reference.api_version
            && let Some(to) = replacement_api_version(
                cx,
                replacement,
                resolution.lower_case_of.as_deref().unwrap_or(kind),
            )
            && let Some(fix) = cx.fixes(id).replace(
                field.span,
                to,
                Applicability::Unsafe,
                format!("write `{to}`"),
            )
        {
            finding = finding.fix(fix);
        }
        out.push(finding);
    }
}

fn did_you_mean(elsewhere: &[String]) -> Option<String> {
    (!elsewhere.is_empty()).then(|| format!("did you mean {}?", elsewhere.join(" or ")))
}

/// With `blockOwnerDeletion: true`, what becomes of a foreground delete of the object that
/// holds the reference's uid: the collector's graph links the dependent to it by uid, so the
/// delete waits for a dependent the collector cannot map, and never ends (seen on 1.36).
fn foreground_hang(cx: &Context, id: crate::index::ObjId, reference: &crate::model::OwnerRef) -> String {
    let blocks = reference
        .block_owner_deletion
        .as_ref()
        .is_some_and(|f| f.value == crate::model::FieldValue::Bool(true));
    let namespace = &cx.index.facts(id).namespace;
    let owner = reference.uid_str().filter(|_| blocks).and_then(|uid| {
        cx.index.by_uid(cx.objects, id, uid).find(|&o| {
            let facts = cx.index.facts(o);
            o != id && (facts.namespace.is_none() || facts.namespace == *namespace)
        })
    });
    match owner {
        Some(owner) => format!(
            "; and since it blocks owner deletion, a foreground delete of {}, which holds its uid, waits for it for ever",
            cx.display_name(owner)
        ),
        None => String::new(),
    }
}

fn with_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// The apiVersion that replaced a removed one, from the catalogue's replacement (`apps/v1
/// ReplicaSet`, `batch/v1`), when it names one apiVersion for the same kind, with no remark
/// (`(none)`, `(off by default)`, `(1.34)`: served only from a later release), and the release
/// checked against serves it and no alpha or beta version of the kind in that group besides.
/// The catalogue's served versions are a recent release's and do not say when each came: on
/// Kubernetes 1.22, which still serves `flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema`, the
/// replacement `flowcontrol.apiserver.k8s.io/v1` was not served yet.
fn replacement_api_version<'r>(cx: &Context, replacement: &'r str, kind: &str) -> Option<&'r str> {
    let mut words = replacement.split_whitespace();
    let api_version = words.next()?;
    match (words.next(), words.next()) {
        (None, _) => {}
        (Some(same), None) if same == kind => {}
        _ => return None,
    }
    let (group, version) = parse_api_version(api_version)?;
    let plain = api_version
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-'));
    let served = |version: &str| cx.catalog.api_status(group, version, kind) == ApiStatus::Served;
    let prerelease_served = (1..=2).any(|major| {
        ["alpha", "beta"]
            .iter()
            .any(|stage| (1..=3).any(|n| served(&format!("v{major}{stage}{n}"))))
    });
    (plain && served(version) && !prerelease_served).then_some(api_version)
}
