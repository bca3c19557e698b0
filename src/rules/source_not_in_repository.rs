//! `source-not-in-repository`: a Flux Kustomization or HelmRelease, or an Argo CD Application
//! or ApplicationSet, among the inputs builds a path or a chart that is not in the repository
//! (another Git repository, an OCI artifact, a Helm repository's chart), or makes Applications
//! ownerlint does not read. ownerlint fetches nothing it is not allowed to, so what that
//! object deploys is not checked; it says so once per object, at the object, rather than say
//! nothing (`crate::gitops`).

use super::Context;
use crate::finding::{Finding, Label};
use crate::load::Why;

super::declare_rule! {
    id: "source-not-in-repository",
    severity: Info,
    summary: "A Flux or Argo CD object deploys a path or a chart that is not in the repository, so what it deploys was not checked",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for unread in cx.unread {
        let Why::SourceNotInRepository { at, message } = &unread.why else {
            continue;
        };
        out.push(
            Finding::new(&META, Label::new(unread.source, *at, "not checked"), message.clone())
                .help("lint that repository or chart where it is, or vendor it into this repository to have it checked as deployed"),
        );
    }
}
