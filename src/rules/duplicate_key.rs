//! `duplicate-key`: an ownership field written twice in one mapping (in `metadata`, or in an
//! owner reference). kubectl applies the last value without a word (and ownerlint reads it the
//! same way); a reader of the file may well mean the first.

use super::Context;
use crate::finding::{Finding, Label};
use crate::model::DuplicateKey;

super::declare_rule! {
    id: "duplicate-key",
    severity: Warning,
    summary: "An ownership field written twice in one mapping, of which kubectl silently applies the last",
    reads: [LABELS, FINALIZERS],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let in_refs = object.owner_refs().iter().flat_map(|r| {
            r.duplicate_keys()
                .iter()
                .map(move |d| (d, "an ownerReferences entry"))
        });
        let in_metadata = object.duplicate_keys().iter().map(|d| (d, "metadata"));
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
    let (times, ignored) = match d.times {
        2 => ("twice".to_string(), "the first"),
        n => (format!("{n} times"), "the others"),
    };
    let applied = match &d.applied {
        Some(value) => format!("the last value, `{value}`"),
        None => "the last value".to_string(),
    };
    out.push(
        cx.finding(
            &META,
            id,
            d.again,
            format!("`{}` again", d.key),
            format!(
                "`{}` is written {times} in {place} of {}: kubectl applies {applied}, without a word, and ignores {ignored} (ownerlint reads it the same way)",
                d.key,
                cx.display_name(id),
            ),
        )
        .related(Label::new(object.source, d.first, "first written here"))
        .help("keep one, the value you mean"),
    );
}
