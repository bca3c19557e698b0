//! `duplicate-owner-ref`: two owner references with the same uid. Identical entries are
//! deduplicated by the API server with a warning; entries that differ are both kept.

use super::Context;
use crate::finding::{Applicability, Finding, Label};

super::declare_rule! {
    id: "duplicate-owner-ref",
    severity: Warning,
    fix: Safe,
    summary: "Two owner references with the same uid (identical ones are deduplicated with a warning; differing ones are both kept)",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let refs = object.owner_refs();
        for (later_index, later) in refs.iter().enumerate() {
            let Some(uid) = later.uid_str() else { continue };
            let Some((first_index, first)) = refs[..later_index]
                .iter()
                .enumerate()
                .find(|(_, r)| r.uid_str() == Some(uid))
            else {
                continue;
            };
            let identical = first.canonical() == later.canonical();
            let (message, help) = if identical {
                (
                    format!(
                        "entry {} repeats entry {} of {}'s ownerReferences exactly: created or applied client-side, the API server drops it with a warning (`duplicate UID(s) observed: {uid}`); server-side apply (`kubectl apply --server-side`, Flux, Argo CD with server-side apply) refuses the object (`duplicate entries for key [uid=…]`)",
                        later_index + 1,
                        first_index + 1,
                        cx.display_name(id)
                    ),
                    "remove the repeated entry",
                )
            } else {
                (
                    format!(
                        "entries {} and {} of {}'s ownerReferences have the same uid `{uid}` but differ: created or applied client-side, the API server keeps both, and strategic-merge patches key entries by uid, so a patch to one may land on the other; server-side apply refuses the object (`duplicate entries for key [uid=…]`)",
                        first_index + 1,
                        later_index + 1,
                        cx.display_name(id)
                    ),
                    "merge the two entries into one, with the fields the owner really needs",
                )
            };
            let mut finding = cx
                .finding(
                    &META,
                    id,
                    later.head,
                    "duplicate of an earlier entry",
                    message,
                )
                .related(Label::new(
                    object.source,
                    first.head,
                    "first entry with this uid",
                ))
                .help(help);
            // A repeated entry says nothing the first does not: POST stores one of them, and
            // server-side apply refuses the pair. Entries that differ need a choice.
            if identical
                && let Some(fix) = cx.fixes(id).remove(
                    later.span,
                    Applicability::Safe,
                    format!("remove entry {}, a repeat of entry {}", later_index + 1, first_index + 1),
                )
            {
                finding = finding.fix(fix);
            }
            out.push(finding);
        }
    }
}
