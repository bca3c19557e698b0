//! `owner-created-with-fresh-uid`: the owner is created by the same input, so the API server
//! gives it a new uid, which can never equal the uid written in the reference.

use super::{Context, Site};
use crate::finding::{Applicability, Finding};
use crate::resolve::{Resolution, UidCheck};

super::declare_rule! {
    id: "owner-created-with-fresh-uid",
    severity: Error,
    fix: Unsafe,
    summary: "The owner is created by the same input, so its uid is assigned at creation and cannot equal the hard-coded one",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for Site { id, index, reference, resolution, .. } in cx.references() {
        let Resolution::Found {
            owner,
            uid: UidCheck::Fresh,
        } = resolution.resolution
        else {
            continue;
        };
        let span = reference.uid.as_ref().map_or(reference.span, |u| u.span);
        // A uid written into the owner's manifest is not kept either (as a 1.36 control plane showed).
        let written = match cx.object(owner).uid {
            Some(_) => {
                "; the uid its manifest carries is dropped on create, and server-side apply refuses such a manifest (`409 … uid mismatch`)"
            }
            None => "",
        };
        out.push(
            cx.finding(
                &META,
                id,
                span,
                "can never match a freshly created owner",
                format!(
                    "{}: {} is created by this input, and the API server gives every new object a fresh uid, never `{}`{written}: soon after both are created, {}",
                    cx.arrow(id, reference, resolution),
                    cx.display_name(owner),
                    reference.uid_str().unwrap_or("?"),
                    cx.dangling_consequence(id, index)
                ),
            )
            .related(cx.name_label(owner, "created here, with a uid assigned at creation"))
            .help("do not write ownerReferences into manifests: let the owner's controller set them, or add the reference after the owner exists, with its live uid (`kubectl get <kind> <name> -o jsonpath='{.metadata.uid}'`)")
            .fix_if(cx.fixes(id).remove_owner_ref(
                reference.span,
                Applicability::Unsafe,
                "remove the reference, which can never match the owner created with it",
            )),
        );
    }
}
