//! `owner-ref-unknown-field`: a key that OwnerReference does not have. The API server drops it
//! (or, under kubectl's default strict field validation, rejects the object).

use super::{Context, did_you_mean};
use crate::finding::Finding;
use crate::model::OWNER_REF_FIELDS;

super::declare_rule! {
    id: "owner-ref-unknown-field",
    severity: Warning,
    summary: "A key OwnerReference does not have (e.g. namespace, a misspelled blockOwnerDeletion); dropped by the API server",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        for reference in object.owner_refs() {
            for key in reference.unknown_keys() {
                let suggestion = did_you_mean(&key.value, &OWNER_REF_FIELDS);
                let why = if key.value == "namespace" {
                    "an owner is always looked up in the dependent's own namespace (or cluster-wide for cluster-scoped kinds), so an owner reference has no namespace"
                        .to_string()
                } else {
                    format!("OwnerReference has only {}", OWNER_REF_FIELDS.join(", "))
                };
                let help = match suggestion {
                    Some(s) if key.value != "namespace" => format!("did you mean `{s}`? (field names are case-sensitive)"),
                    _ if key.value == "namespace" => "remove it; to own objects in several namespaces use a cluster-scoped owner, or one owner per namespace".to_string(),
                    _ => "remove it".to_string(),
                };
                out.push(
                    cx.finding(
                        &META,
                        id,
                        key.span,
                        "unknown field",
                        format!(
                            "`{}` is not a field of an owner reference of {}: the API server drops it (kubectl's default strict validation rejects the object); {why}",
                            key.value,
                            cx.describe(id)
                        ),
                    )
                    .help(help),
                );
            }
        }
    }
}
