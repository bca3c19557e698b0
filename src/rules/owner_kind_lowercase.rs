//! `owner-kind-lowercase`: an owner reference writes its kind in all lower case (`replicaset`).
//! Kubernetes maps it like the canonical kind (the discovery REST mapper registers every kind
//! in lower case too), so the reference works; tools that compare kinds exactly do not. For
//! core `event`, the lower case also slips past the ban on core Events as owners.

use super::Context;
use crate::finding::{Applicability, Finding};

super::declare_rule! {
    id: "owner-kind-lowercase",
    severity: Warning,
    fix: Safe,
    summary: "An owner kind written in all lower case, which Kubernetes maps but tools comparing kinds do not",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, _, _, reference, resolution) in cx.references() {
        let Some(right) = &resolution.lower_case_of else {
            continue;
        };
        let Some(kind) = &reference.kind else {
            continue;
        };
        let written = kind.str().unwrap_or("?");
        let event = resolution.group.is_empty() && right == "Event";
        let consequence = if event {
            ": the API server's ban on core Events as owners compares the kind exactly, so this reference passes it, yet it points at a core Event; the garbage collector deletes the dependent when that Event is deleted, and Events are deleted when they expire"
        } else {
            ", but tools that compare kinds exactly (kubectl plugins that draw ownership, admission policies, scripts) do not see this owner"
        };
        let mut finding = cx
            .finding(
                &META,
                id,
                kind.span,
                format!("`{right}` in lower case"),
                format!(
                    "{}: kind `{written}` is `{right}` in lower case; Kubernetes maps it like `{right}`{consequence}",
                    cx.arrow(id, reference, resolution)
                ),
            )
            .help(if event {
                "an Event is a poor owner: it expires; make the dependent's real owner its owner".to_string()
            } else {
                format!("write `kind: {right}`")
            });
        // The garbage collector maps both spellings to one kind: the fix changes nothing it
        // does. (Not for `event`, where the spelling hides a ban: the owner must change.)
        if !event
            && let Some(fix) = cx.replace_fix(
                id,
                kind.span,
                right,
                Applicability::Safe,
                format!("write `{right}`"),
            )
        {
            finding = finding.fix(fix);
        }
        out.push(finding);
    }
}
