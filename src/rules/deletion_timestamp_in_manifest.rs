//! `deletion-timestamp-in-manifest`: `metadata.deletionTimestamp` is set, so the object was
//! captured while being deleted; the API server clears it on create (`WipeObjectMetaSystemFields`
//! in `k8s.io/apiserver/pkg/registry/rest/meta.go`).

use super::Context;
use crate::finding::{Applicability, Finding, Severity};
use crate::model::{Mode, Object};

super::declare_rule! {
    id: "deletion-timestamp-in-manifest",
    severity: Warning,
    severity_varies: "info in a snapshot",
    fix: Safe,
    summary: "metadata.deletionTimestamp is set, so the object was exported while being deleted (info in a snapshot)",
    reads: [DELETION_TIMESTAMP, FINALIZERS],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let Some(field) = object.deletion_timestamp() else {
            continue;
        };
        let when = field
            .field
            .str()
            .map_or(String::new(), |t| format!(" ({t})"));
        let (message, help) = match object.mode {
            Mode::Apply => (
                format!(
                    "{} carries metadata.deletionTimestamp{when}: it was exported while being deleted. Created from this manifest with `kubectl create` or `kubectl apply`, the object is live (the API server drops the field); with server-side apply (`kubectl apply --server-side`, Flux, Argo CD with server-side apply) the field is kept and the object is created already being deleted; applied over a live object that is not being deleted, the update is rejected (`field is immutable`)",
                    cx.display_name(id)
                ),
                "remove deletionTimestamp and deletionGracePeriodSeconds from the manifest, with the other system fields (uid, resourceVersion, creationTimestamp, status)".to_string(),
            ),
            Mode::Snapshot => (
                format!(
                    "{} was captured while being deleted{when}: {}; its owner references may no longer describe the cluster",
                    cx.display_name(id),
                    what_it_waits_for(object)
                ),
                format!(
                    "if it stays Terminating, see which finalizer holds it: `kubectl get {} {}{} -o jsonpath='{{.metadata.finalizers}}'`",
                    object.kind_str().to_lowercase(),
                    object.name.as_ref().map_or("NAME", |n| n.value.as_str()),
                    cx.index
                        .facts(id)
                        .namespace
                        .as_ref()
                        .map_or(String::new(), |ns| format!(" -n {ns}"))
                ),
            ),
        };
        let mut finding = cx
            .finding(&META, id, field.key_span, "being deleted", message)
            .help(help);
        // In a snapshot it tells what the cluster was doing: nothing in the input to fix.
        if object.mode == Mode::Snapshot {
            finding.severity = Severity::Info;
        } else {
            // With deletionGracePeriodSeconds, which goes with it; read again for its place (the
            // fast path does not keep it, and this finding is rare).
            const KEYS: [&str; 2] = ["deletionTimestamp", "deletionGracePeriodSeconds"];
            let runs = cx
                .fixes(id)
                .whole_object(|node| {
                    let metadata = node.get("metadata")?;
                    let runs = crate::edit::fixes::entry_runs(metadata, &KEYS);
                    Some(runs.into_iter().map(|run| run.into_iter().map(|(_, k, v)| (k, v)).collect()).collect())
                })
                .flatten()
                .unwrap_or_else(|| vec![vec![(field.key_span, field.field.span)]]);
            let message = match runs.iter().map(Vec::len).sum::<usize>() {
                1 => "remove metadata.deletionTimestamp",
                _ => "remove metadata.deletionTimestamp and deletionGracePeriodSeconds",
            };
            let fix = cx.fixes(id).remove_entries(&runs, Applicability::Safe, message);
            finding = finding.fix_if(fix);
        }
        out.push(finding);
    }
}

/// What keeps an object that is being deleted from being gone: its finalizers, which the API
/// server waits for (`k8s.io/apiserver/pkg/registry/generic/registry/store.go`), and with
/// `foregroundDeletion` the dependents the garbage collector deletes first.
fn what_it_waits_for(object: &Object) -> String {
    let finalizers: Vec<&str> = object.finalizers.names().map(|(_, n, _)| n).collect();
    if finalizers.contains(&"foregroundDeletion") {
        return "the garbage collector deletes its dependents with `blockOwnerDeletion: true` first (foreground deletion)".into();
    }
    if finalizers.contains(&"orphan") {
        return "the garbage collector first removes it from its dependents' owner references (orphan deletion)".into();
    }
    match finalizers.as_slice() {
        [] if object.kind_str() == "Pod" => {
            "the kubelet removes it once its containers have stopped, within its grace period"
                .into()
        }
        [] => "no finalizer holds it, so a delete through the API would have removed it at once; still there, its deletionTimestamp was set another way (server-side apply keeps one written in a manifest), and nothing acts on it: it stays Terminating until it is deleted by hand".into(),
        names => format!(
            "it stays until the controllers behind its finalizers ({}) remove them; a finalizer that no controller removes keeps it Terminating for ever",
            names.join(", ")
        ),
    }
}
