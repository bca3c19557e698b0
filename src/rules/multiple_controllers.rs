//! `multiple-controllers`: more than one owner reference with `controller: true`.

use super::Context;
use crate::finding::{Finding, Label};

super::declare_rule! {
    id: "multiple-controllers",
    severity: Error,
    summary: "More than one owner reference with controller true",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let controllers: Vec<_> = object
            .owner_refs()
            .iter()
            .filter(|r| r.is_controller())
            .collect();
        let Some((first, rest)) = controllers.split_first() else {
            continue;
        };
        for extra in rest {
            let span = extra.controller.as_ref().map_or(extra.span, |c| c.span);
            let first_span = first.controller.as_ref().map_or(first.span, |c| c.span);
            out.push(
                cx.finding(
                    &META,
                    id,
                    span,
                    format!("{} is a second controller", extra.display()),
                    format!(
                        "{} has two controller owners, {} and {}: the API server rejects it (`Only one reference can have Controller set to true. Found \"true\" in references for {} and {}`)",
                        cx.display_name(id),
                        first.display(),
                        extra.display(),
                        first.display(),
                        extra.display()
                    ),
                )
                .related(Label::new(object.source, first_span, format!("{} is the controller", first.display())))
                .help("keep `controller: true` only on the owner that manages this object; the others can stay as plain owners (`controller: false`)"),
            );
        }
    }
}
