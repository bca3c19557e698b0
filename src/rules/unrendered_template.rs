//! `unrendered-template`: a document that still holds template text (`{{ … }}`). The loader
//! records it once per document (`load::Why::Template`) instead of a cascade of syntax errors.

use super::Context;
use crate::finding::{Finding, Label};
use crate::load::Why;

super::declare_rule! {
    id: "unrendered-template",
    severity: Warning,
    summary: "A document holds template text ({{ ... }}); render it first",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for unread in cx.unread {
        if let Why::Template { at } = unread.why {
            let mut finding = Finding::new(
                &META,
                Label::new(unread.source, at, "template text"),
                "this document is an unrendered template, so its objects were not checked",
            )
            .help("render it first and lint the output: `helm template <release> <chart> | ownerlint -` or `kustomize build <dir> | ownerlint -`");
            finding.origin = unread.origin.clone();
            out.push(finding);
        }
    }
}
