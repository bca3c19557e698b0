//! `field-type-invalid`: an identity field (`apiVersion`, `kind`, `metadata.name`, `namespace`,
//! `uid`) or a label value that YAML reads as a number, a boolean, a mapping or a list. kubectl
//! decodes the object into its API type, where these are strings, and refuses it.

use super::Context;
use crate::finding::Finding;

super::declare_rule! {
    id: "field-type-invalid",
    severity: Error,
    summary: "An identity field or label value that is not a string, which kubectl cannot decode",
    reads: [LABELS],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        for field in &object.mistyped {
            let scalar = !matches!(field.found.as_str(), "a mapping" | "a list");
            out.push(
                cx.finding(
                    &META,
                    id,
                    field.span,
                    "not a string",
                    format!(
                        "{} must be a string, found {}: kubectl cannot decode {} and applies none of it",
                        field.path,
                        field.found,
                        cx.describe(id)
                    ),
                )
                .help(if scalar {
                    "quote the value so that YAML reads it as a string"
                } else {
                    "write a single string value here"
                }),
            );
        }
    }
}
