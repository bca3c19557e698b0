//! `owner-not-found`: no object of the referenced group, kind and name where the garbage
//! collector looks for it. Its severity follows the input: a warning for manifests (the owner
//! may exist in the cluster), info for a snapshot, an error with `--complete`.

use super::{Context, Site};
use crate::finding::{Finding, Severity};
use crate::model::Mode;
use crate::resolve::Unresolved;

super::declare_rule! {
    id: "owner-not-found",
    severity: Warning,
    complete_severity: Error,
    severity_varies: "info in a snapshot",
    summary: "No object of the referenced group, kind and name where the garbage collector looks (warning for manifests, info for a snapshot, error with --complete)",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, object, index, reference, resolution } in cx.references() {
        // One found in another namespace is not `NotFound`: cross-namespace-owner tells it.
        if resolution.unresolved() != Some(Unresolved::NotFound) {
            continue;
        }
        // owner-uid-conflict explains this reference better.
        let uid_held = reference
            .uid_str()
            .is_some_and(|u| cx.index.by_uid(cx.objects, id, u).next().is_some());
        if uid_held {
            continue;
        }
        let owner = cx.owner_display_name(id, reference, resolution);
        let consequence = cx.dangling_consequence(id, index);
        let renamed = renamed_by_kustomize(cx, object, reference);
        let complete = cx
            .options
            .complete_for(&resolution.group, resolution.kind(reference.kind_str().unwrap_or("")));
        if let Some(deleted) = deleted_owner(cx, id, reference, resolution) {
            let path = &cx.sources[deleted.source.0 as usize].name;
            let mut finding = cx.finding(
                &META,
                id,
                reference.head,
                format!("{owner} is deleted by this change"),
                format!(
                    "{}: this change deletes {owner} ({path}); once it is gone from the cluster, {consequence}",
                    cx.arrow(id, reference, resolution)
                ),
            );
            finding = finding
                .related(crate::finding::Label::new(
                    deleted.source,
                    deleted.name_span(),
                    "the owner, in a file this change deletes",
                ))
                .help("keep the owner's manifest, delete this dependent in the same change, or remove this reference");
            finding.severity = Severity::Error;
            out.push(finding);
            continue;
        }
        let (severity, message) = if let (Some(renamed), false) = (renamed, complete) {
            (
                Severity::Warning,
                format!(
                    "{}: kustomize renamed the owner to `{renamed}` (namePrefix, nameSuffix) but not this reference, which still names {owner}; unless that exists in the cluster with uid `{}`, {consequence}",
                    cx.arrow(id, reference, resolution),
                    reference.uid_str().unwrap_or("?")
                ),
            )
        } else if complete {
            (
                META.complete_severity.unwrap_or(Severity::Error),
                format!(
                    "{}: {owner} does not exist in this input, which is complete: {consequence}",
                    cx.arrow(id, reference, resolution)
                ),
            )
        } else if let Some(not_read) = cx
            .options
            .not_read(&resolution.group, resolution.kind(reference.kind_str().unwrap_or("")))
            .filter(|_| cx.options.complete)
        {
            (
                Severity::Info,
                format!(
                    "{}: {owner} could not be checked: {} was not read: {}; if it is gone, {consequence}",
                    cx.arrow(id, reference, resolution),
                    not_read.what,
                    not_read.why
                ),
            )
        } else if cx.options.complete {
            (
                Severity::Info,
                format!(
                    "{}: {owner} is not in this `kubectl cluster-info dump`, which holds no {}; if it is gone from the cluster too, {consequence}",
                    cx.arrow(id, reference, resolution),
                    plural_kind(reference.kind_str().unwrap_or("?"))
                ),
            )
        } else if object.mode == Mode::Snapshot {
            (
                Severity::Info,
                format!(
                    "{}: {owner} is not in this snapshot; if it is gone from the cluster too, {consequence}",
                    cx.arrow(id, reference, resolution)
                ),
            )
        } else {
            (
                Severity::Warning,
                format!(
                    "{}: {owner} is not in the input; unless it already exists in the cluster with uid `{}`, {consequence}",
                    cx.arrow(id, reference, resolution),
                    reference.uid_str().unwrap_or("?")
                ),
            )
        };
        let mut finding = cx.finding(&META, id, reference.head, format!("{owner} not found"), message);
        finding = match renamed {
            Some(renamed) => finding.help(format!(
                "kustomize's namePrefix or nameSuffix renamed the owner to `{renamed}` but not this reference (kustomize rewrites no ownerReferences[].name): name the owner `{renamed}` here, or leave the reference to the owner's controller"
            )),
            None => finding.help("add the owner's manifest to the input, pass a dump of the target cluster with `--existing`, or remove this reference"),
        };
        finding.severity = severity;
        out.push(finding);
    }
}

/// The owner this reference names among the objects the git change deletes
/// (`--git-deletions`), looked up where the garbage collector looks: in the dependent's
/// namespace, or cluster-wide for a cluster-scoped kind.
fn deleted_owner<'a>(
    cx: &Context<'a>,
    id: crate::index::ObjId,
    reference: &crate::model::OwnerRef,
    resolution: &crate::resolve::RefResolution,
) -> Option<&'a crate::model::Object> {
    let namespace = match resolution.owner_scope {
        Some(crate::catalog::Scope::Cluster) => None,
        _ => cx.index.facts(id).namespace.as_deref(),
    };
    cx.deleted.find(
        &resolution.group,
        reference.kind_str()?,
        namespace,
        reference.name_str()?,
    )
}

/// In what kustomize built, the name of an object of the referenced kind in the dependent's
/// namespace whose name holds the referenced one (`prod-web` for `web`): kustomize renames
/// objects (`namePrefix`, `nameSuffix`) and never the owner references that name them.
fn renamed_by_kustomize<'a>(
    cx: &Context<'a>,
    object: &crate::model::Object,
    reference: &crate::model::OwnerRef,
) -> Option<&'a str> {
    let source = &cx.sources[object.source.0 as usize];
    if source.built_by != Some(crate::source::Tool::Kustomize) {
        return None;
    }
    let kind = reference.kind.as_ref()?.str()?;
    let name = reference.name.as_ref()?.str()?;
    let namespace = object.namespace.as_ref().map(|n| n.value.as_str());
    cx.objects
        .iter()
        .filter(|o| o.source == object.source)
        .filter(|o| o.kind_str() == kind)
        .filter(|o| o.namespace.as_ref().map(|n| n.value.as_str()) == namespace)
        .filter_map(|o| o.name.as_ref().map(|n| n.value.as_str()))
        .find(|candidate| *candidate != name && candidate.contains(name))
}

/// "StatefulSets", "Ingresses", "NetworkPolicies": a kind as a sentence counts it.
fn plural_kind(kind: &str) -> String {
    if let Some(stem) = kind.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else if kind.ends_with('s') || kind.ends_with('x') || kind.ends_with("ch") {
        format!("{kind}es")
    } else {
        format!("{kind}s")
    }
}
