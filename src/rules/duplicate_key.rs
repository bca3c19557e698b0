//! `duplicate-key`: an ownership field written twice in one mapping (in `metadata`, or in an
//! owner reference). kubectl refuses the document; a reader that keeps the last value (as
//! ownerlint does, to go on checking) sees something the author may not have meant.

use super::Context;
use crate::finding::{Finding, Label};
use crate::model::DuplicateKey;

super::declare_rule! {
    id: "duplicate-key",
    severity: Error,
    summary: "An ownership field written twice in one mapping, which kubectl refuses",
    reads: [LABELS, FINALIZERS],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let in_refs = object.owner_refs().iter().flat_map(|r| {
            r.duplicate_keys()
                .iter()
                .map(move |d| (d, "an ownerReferences entry"))
        });
        let in_metadata = object.duplicate_keys.iter().map(|d| (d, "metadata"));
        for (duplicate, place) in in_metadata.chain(in_refs) {
            push(cx, out, id, duplicate, place);
        }
    }
}

fn push(
    cx: &Context,
    out: &mut Vec<Finding>,
    id: crate::index::ObjId,
    d: &DuplicateKey,
    place: &str,
) {
    let object = cx.object(id);
    let line = cx.sources[object.source.0 as usize]
        .line_col(d.again.start)
        .line;
    out.push(
        cx.finding(
            &META,
            id,
            d.again,
            format!("`{}` again", d.key),
            format!(
                "`{}` is written twice in {place} of {}: kubectl refuses the document (`line {line}: key \"{}\" already set in map`); ownerlint read the second value",
                d.key,
                cx.describe(id),
                d.key
            ),
        )
        .related(Label::new(object.source, d.first, "first written here"))
        .help("keep one of the two, the one you mean"),
    );
}
