//! `field-type-invalid`: an identity field (`apiVersion`, `kind`, `metadata.name`, `namespace`,
//! `uid`) or a label value that YAML reads as a number, a boolean, a mapping or a list, or a
//! null `metadata.name`. kubectl decodes the object into its API type, where these are strings,
//! and refuses it; the API server refuses an object without a name.

use super::Context;
use crate::finding::Finding;

super::declare_rule! {
    id: "field-type-invalid",
    severity: Error,
    summary: "An identity field or label value that is not a string, which kubectl cannot decode",
    reads: [LABELS, GENERATE_NAME],
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        for field in object.mistyped() {
            let object = cx.display_name(id);
            if field.found == "null" {
                out.push(
                    cx.finding(
                        &META,
                        id,
                        field.span,
                        "no name",
                        format!(
                            "{} is null: the API server refuses {object} (`metadata.name: Required value: name or generateName is required`; `kubectl apply` says `resource name may not be empty`)",
                            field.path
                        ),
                    )
                    .help("write the object's name (or a `generateName` prefix, for `kubectl create`)"),
                );
                continue;
            }
            let scalar = !matches!(field.found.as_str(), "a mapping" | "a list");
            let consequence = match field.path.as_str() {
                // kubectl checks these two before it decodes anything.
                "apiVersion" | "kind" => format!(
                    "kubectl refuses {object} (`error validating data: {} isn't string type`) and applies none of it",
                    field.path
                ),
                _ => format!("kubectl cannot decode {object} and applies none of it"),
            };
            out.push(
                cx.finding(
                    &META,
                    id,
                    field.span,
                    "not a string",
                    format!(
                        "{} must be a string, found {}: {consequence}",
                        field.path, field.found
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
