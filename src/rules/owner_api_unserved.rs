//! `owner-api-unserved`: the reference's apiVersion/kind does not map to a served resource.
//! The garbage collector cannot map it, retries forever, and never collects the dependent.

use super::Context;
use crate::catalog::ApiStatus;
use crate::finding::{Finding, Severity};
use crate::resolve::Resolution;

super::declare_rule! {
    id: "owner-api-unserved",
    severity: Error,
    severity_varies: "warning for a version that is off by default",
    summary: "The reference's apiVersion/kind is not served (removed version, kind not in that group, wrong case other than all lower case); the dependent is never collected",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    let release = cx.catalog.kube_version;
    for (id, _, _, reference, resolution) in cx.references() {
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
                format!(
                    "{kind} is not served at {api_version} (served: {})",
                    served.join(", ")
                ),
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
                    "{}: {what} (checked against Kubernetes {release}): the garbage collector cannot map the reference, retries it forever, and never collects {} even when all its owners are gone",
                    cx.arrow(id, reference, resolution),
                    cx.describe(id)
                ),
            )
            .help(help);
        if *status == ApiStatus::OffByDefault {
            finding.severity = Severity::Warning;
        }
        out.push(finding);
    }
}

fn with_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}
