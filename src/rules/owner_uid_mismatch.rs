//! `owner-uid-mismatch`: the owner exists by kind, scope and name, but with another uid. The
//! garbage collector compares uids, so it treats the owner as gone.

use super::{Context, Site};
use crate::finding::Finding;
use crate::resolve::{Resolution, UidCheck};

super::declare_rule! {
    id: "owner-uid-mismatch",
    severity: Error,
    summary: "The owner exists by kind, scope and name, but its metadata.uid differs; it counts as absent",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, index, reference, resolution, .. } in cx.references() {
        let Resolution::Found {
            owner,
            uid: UidCheck::Mismatch,
        } = resolution.resolution
        else {
            continue;
        };
        let owner_uid = cx
            .object(owner)
            .uid
            .as_ref()
            .map_or("?", |u| u.value.as_str());
        let span = reference.uid.as_ref().map_or(reference.span, |u| u.span);
        out.push(
            cx.finding(
                &META,
                id,
                span,
                "uid differs from the owner's",
                format!(
                    "{}: the reference's uid `{}` is not the owner's uid `{owner_uid}`, and owners are matched by uid, so the owner counts as gone and {}",
                    cx.arrow(id, reference, resolution),
                    reference.uid_str().unwrap_or("?"),
                    cx.dangling_consequence(id, index)
                ),
            )
            .related(cx.uid_label(owner, format!("{}'s uid", cx.display_name(owner))))
            .help(format!("set the reference's uid to {owner_uid}, or take both objects from one capture of one cluster")),
        );
    }
}
