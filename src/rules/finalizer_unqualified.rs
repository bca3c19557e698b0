//! `finalizer-unqualified`: a finalizer without a `/` that is not one of the standard names.
//! Built-in kinds reject it (`k8s.io/kubernetes/pkg/apis/core/helper/helpers.go`); custom resources
//! accept it with a warning (`apiextensions-apiserver/pkg/registry/customresource/validator.go`).

use super::Context;
use super::finalizer_invalid::qualified_name_problem;
use crate::catalog::KubeVersion;
use crate::finding::{Applicability, Finding, Severity};
use crate::model::Mode;

super::declare_rule! {
    id: "finalizer-unqualified",
    severity: Error,
    severity_varies: "warning on custom resources",
    fix: DisplayOnly,
    summary: "A finalizer without a domain that is not a standard name (error on built-in kinds, warning on custom resources)",
    reads: [FINALIZERS],
}

/// `IsStandardFinalizerName`.
const STANDARD: [&str; 3] = ["kubernetes", "orphan", "foregroundDeletion"];

/// Custom resources get a warning since 1.29, with a second wording for names with a `.`
/// since 1.32.
const WARNS_SINCE: KubeVersion = KubeVersion {
    major: 1,
    minor: 29,
};
const PATH_WORDING_SINCE: KubeVersion = KubeVersion {
    major: 1,
    minor: 32,
};

/// How the API server validates an object's finalizers.
enum Validation {
    /// Core `ValidateObjectMeta`: unqualified non-standard names are rejected.
    Core,
    /// Custom resources: accepted, with a warning.
    CustomResource,
    /// Only the generic qualified-name check (CustomResourceDefinition, APIService, admission
    /// registration kinds).
    GenericOnly,
}

fn validation(cx: &Context, group: &str, kind: &str) -> Validation {
    match (group, kind) {
        ("apiextensions.k8s.io", "CustomResourceDefinition")
        | ("apiregistration.k8s.io", "APIService")
        | ("admissionregistration.k8s.io", _) => Validation::GenericOnly,
        _ if cx.catalog.is_builtin(group, kind) => Validation::Core,
        _ => Validation::CustomResource,
    }
}

/// A qualified form of `name` to suggest.
fn suggestion(name: &str) -> String {
    if name.contains('.') {
        format!("{name}/finalizer")
    } else {
        format!("example.com/{name}")
    }
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let (Some(group), Some(kind)) = (&cx.index.facts(id).group, &object.kind) else {
            continue;
        };
        for (i, name, span) in object.finalizers.names() {
            if name.contains('/')
                || STANDARD.contains(&name)
                || qualified_name_problem(name).is_some()
            {
                continue;
            }
            let finding = match validation(cx, group, &kind.value) {
                Validation::GenericOnly => continue,
                Validation::Core => cx.finding(
                    &META,
                    id,
                    span,
                    "not domain-qualified",
                    format!(
                        "finalizer \"{name}\" of {} is neither a standard finalizer name nor domain-qualified: the API server rejects the object (`metadata.finalizers[{i}]: Invalid value: \"{name}\": name is neither a standard finalizer name nor is it fully qualified`)",
                        cx.display_name(id)
                    ),
                ),
                Validation::CustomResource => {
                    // A captured custom resource was accepted, and its finalizer is its
                    // controller's to name, not the reader's to fix.
                    if cx.catalog.kube_version < WARNS_SINCE || object.mode == Mode::Snapshot {
                        continue;
                    }
                    let advice = if name.contains('.') && cx.catalog.kube_version >= PATH_WORDING_SINCE {
                        "prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"
                    } else {
                        "prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"
                    };
                    let mut finding = cx.finding(
                        &META,
                        id,
                        span,
                        "not domain-qualified",
                        format!(
                            "finalizer \"{name}\" of {} is not domain-qualified: the API server accepts the custom resource with a warning (`metadata.finalizers: \"{name}\": {advice}`); another controller using the same name could remove it and let the object go before its cleanup ran",
                            cx.display_name(id)
                        ),
                    );
                    finding.severity = Severity::Warning;
                    finding
                }
            };
            let suggested = suggestion(name);
            let mut finding = finding.help(format!(
                "qualify it with a domain you own, as `{suggested}`, in the manifest and in the controller that removes it"
            ));
            // Display-only: the domain is the team's to choose, and the controller that
            // removes the finalizer must be changed with it, or the object never goes.
            if let Some(fix) = cx.fixes(id).replace(
                span,
                &suggested,
                Applicability::DisplayOnly,
                format!("name it `{suggested}` (with a domain you own), here and in its controller"),
            ) {
                finding = finding.fix(fix);
            }
            out.push(finding);
        }
    }
}
