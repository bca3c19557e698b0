//! `link-outside-repository`: a file a Helm chart or a Kustomize overlay would have read, or a
//! file or folder a walk of a folder met, is a symbolic link that leads outside the repository
//! (to `/proc/self/environ`, to a file in the home folder, to a folder elsewhere on the
//! machine). Builds are made from a copy of the repository's files (`crate::build`), and the
//! link was left out of it; a walk does not follow it (`crate::discover`): what it names never
//! reaches the output. The finding is at the link, whose target is not read.

use super::Context;
use crate::finding::{Finding, Label};
use crate::load::Why;
use crate::source::Span;

super::declare_rule! {
    id: "link-outside-repository",
    severity: Warning,
    summary: "A chart, an overlay or a folder walked holds a symbolic link that leads outside the repository; it was not read",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for unread in cx.unread {
        let Why::OutsideRepository { message } = &unread.why else {
            continue;
        };
        let mut finding = Finding::new(
            &META,
            Label::new(unread.source, Span::new(0, 0), "leads outside the repository"),
            message.clone(),
        )
        .help("put the file it should hold in the repository (or link to one inside it), or name the file on the command line; a build or a walk of a folder never reads a file outside the repository");
        finding.origin = unread.origin.clone();
        out.push(finding);
    }
}
