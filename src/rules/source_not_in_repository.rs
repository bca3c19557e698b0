//! `source-not-in-repository`: a Flux Kustomization or HelmRelease, or an Argo CD Application
//! or ApplicationSet, among the inputs builds a path or a chart that is not in the repository
//! (another Git repository, an OCI artifact, a Helm repository's chart), or makes Applications
//! ownerlint does not read. ownerlint fetches nothing it is not allowed to, so what that
//! object deploys is not checked; it says so once per object, at the field that names the source, rather than say
//! nothing (`crate::gitops`). A Flux `valuesFrom` or `postBuild.substituteFrom` entry (not
//! optional) whose ConfigMap or Secret is not in the repository is said too, at the entry: the
//! chart or path was built without its values.

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
        let Why::SourceNotInRepository {
            at,
            message,
            values,
        } = &unread.why
        else {
            continue;
        };
        let finding = match values {
            true => Finding::new(
                &META,
                Label::new(unread.source, *at, "built without these values"),
                message.clone(),
            )
            .help("nothing needs fixing if the cluster has it; to have the build made with its values, define the ConfigMap or Secret among this repository's manifests"),
            false => Finding::new(&META, Label::new(unread.source, *at, "not checked"), message.clone())
                .help("lint that repository or chart where it is, or vendor it into this repository to have it checked as deployed"),
        };
        out.push(finding);
    }
}
