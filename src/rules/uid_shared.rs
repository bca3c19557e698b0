//! `uid-shared`: two different objects (another kind, namespace or name) carry one
//! `metadata.uid`. A cluster gives every object a uid of its own, so the input joins captures
//! of different clusters, or was edited by hand; every reference to that uid is ambiguous.
//! That is context for reading the other findings, not a defect of a cluster: info.

use super::Context;
use crate::finding::Finding;
use crate::model::Mode;

super::declare_rule! {
    id: "uid-shared",
    severity: Info,
    summary: "Two different objects of a snapshot carry one metadata.uid, which no cluster does: the input is not one capture",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for ids in cx.index.shared_uids(cx.objects) {
        let Some((&first, rest)) = ids.split_first() else {
            continue;
        };
        let identity = |id| {
            let object = cx.object(id);
            let facts = cx.index.facts(id);
            (
                facts.group.clone(),
                object.kind_str().to_string(),
                facts.namespace.clone(),
                object.name.as_ref().map(|n| n.value.clone()),
            )
        };
        for &id in rest {
            let object = cx.object(id);
            // One object captured twice is `duplicate-object`'s to tell apart, and an object
            // added with --existing is not linted.
            if identity(id) == identity(first) || object.from_existing || object.mode != Mode::Snapshot {
                continue;
            }
            let Some(uid) = &object.uid else {
                continue;
            };
            out.push(
                cx.finding(
                    &META,
                    id,
                    uid.span,
                    "uid of another object",
                    format!(
                        "{} has the uid `{}` of {} (at {}): a cluster gives every object a uid of its own, so this input joins captures of different clusters or was edited by hand, and every owner reference to that uid is ambiguous",
                        cx.display_name(id),
                        uid.value,
                        cx.display_name(first),
                        cx.location(first)
                    ),
                )
                .related(cx.uid_label(first, format!("{}'s uid", cx.display_name(first))))
                .help("take the objects from one capture of one cluster, or give each object the uid the cluster assigned it"),
            );
        }
    }
}
