//! `duplicate-object`: two documents define the same group/kind/namespace/name.

use super::Context;
use crate::finding::Finding;

super::declare_rule!("duplicate-object", Warning);

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for ids in cx.index.duplicate_identities(cx.objects) {
        let linted: Vec<_> = ids
            .iter()
            .copied()
            .filter(|id| !cx.object(*id).context)
            .collect();
        let Some((first, rest)) = linted.split_first() else {
            continue;
        };
        for id in rest {
            let object = cx.object(*id);
            let span = object.name.as_ref().map_or(object.span, |n| n.span);
            out.push(
                cx.finding(
                    &META,
                    *id,
                    span,
                    "defined again here",
                    format!(
                        "{} is defined again (first at {}): one definition overwrites the other on apply, and owner references to it are ambiguous",
                        cx.describe(*id),
                        cx.location(*first)
                    ),
                )
                .related(cx.name_label(*first, "first defined here"))
                .help("keep one definition; if the files are for different clusters or environments, lint them separately"),
            );
        }
    }
}
