//! `owner-ref-invalid`: an owner reference the API server rejects (`validateOwnerReference` in
//! `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`): a missing or
//! empty `apiVersion` version, `kind`, `name` or `uid`, an apiVersion that does not parse,
//! `controller`/`blockOwnerDeletion` that are not booleans, or entries that are not mappings.

use super::Context;
use crate::finding::Finding;
use crate::model::{Field, FieldValue, NotAList, OwnerRefs, parse_api_version};
use crate::source::Span;

super::declare_rule! {
    id: "owner-ref-invalid",
    severity: Error,
    summary: "An owner reference the API server rejects (empty apiVersion version, kind, name or uid; non-boolean flags; not a list of mappings)",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        // Written only for a finding: most objects have none.
        let reject = || format!("the API server rejects {}", cx.display_name(id));
        if let OwnerRefs::NotAList(not_a_list) = &object.owner_refs {
            let NotAList { span, found } = &**not_a_list;
            out.push(
                cx.finding(
                    &META,
                    id,
                    *span,
                    "not a list",
                    format!(
                        "metadata.ownerReferences must be a list of references, found {found}: {}",
                        reject()
                    ),
                )
                .help("write each owner as a list item: `ownerReferences:` then `- apiVersion: …`"),
            );
            continue;
        }
        for reference in object.owner_refs() {
            if let Some(found) = reference.not_a_mapping() {
                out.push(
                    cx.finding(&META, id, reference.head, "not a mapping", format!("an ownerReferences entry must be a mapping with apiVersion, kind, name and uid, found {found}: {}", reject()))
                        .help("write the entry as `- apiVersion: …` with `kind`, `name` and `uid` under it"),
                );
                continue;
            }
            let mut problem = |span: Span, label: &str, what: String, help: &str| {
                out.push(
                    cx.finding(&META, id, span, label, format!("{what}: {}", reject()))
                        .help(help.to_string()),
                );
            };
            for (key, field) in [
                ("kind", &reference.kind),
                ("name", &reference.name),
                ("uid", &reference.uid),
            ] {
                match field {
                    None => problem(
                        reference.head,
                        &format!("no {key}"),
                        format!(
                            "this ownerReferences entry has no {key} (`metadata.ownerReferences.{key}: Invalid value: \"\": must not be empty`)"
                        ),
                        required_help(key),
                    ),
                    Some(f) => check_string(f, key, &mut problem),
                }
            }
            match &reference.api_version {
                None => problem(
                    reference.head,
                    "no apiVersion",
                    "this ownerReferences entry has no apiVersion (`metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not be empty`)"
                        .into(),
                    required_help("apiVersion"),
                ),
                Some(f) => match &f.value {
                    FieldValue::Str(s) if parse_api_version(s).is_none() => problem(
                        f.span,
                        "not group/version",
                        format!(
                            "apiVersion \"{s}\" is not `<group>/<version>` or `<version>` (`metadata.ownerReferences.apiVersion: Invalid value: \"{s}\": version must not be empty`)"
                        ),
                        "use the owner's apiVersion as written in its manifest, e.g. `apps/v1` or `v1`",
                    ),
                    _ => check_string(f, "apiVersion", &mut problem),
                },
            }
            for (key, field) in [
                ("controller", &reference.controller),
                ("blockOwnerDeletion", &reference.block_owner_deletion),
            ] {
                if let Some(f) = field
                    && let FieldValue::Str(_) | FieldValue::Other(_) = &f.value
                {
                    problem(
                        f.span,
                        "not a boolean",
                        format!("{key} must be true or false, found {}", describe(&f.value)),
                        "write `true` or `false` without quotes",
                    );
                }
            }
        }
    }
}

fn check_string(field: &Field, key: &str, problem: &mut impl FnMut(Span, &str, String, &str)) {
    match &field.value {
        FieldValue::Str(s) if !s.is_empty() => {}
        FieldValue::Str(_) | FieldValue::Null => problem(
            field.span,
            "empty",
            format!(
                "{key} is empty (`metadata.ownerReferences.{key}: Invalid value: \"\": {}must not be empty`)",
                if key == "apiVersion" { "version " } else { "" }
            ),
            required_help(key),
        ),
        other => problem(
            field.span,
            "not a string",
            format!("{key} must be a string, found {}", describe(other)),
            "quote the value so that it is read as a string",
        ),
    }
}

fn describe(value: &FieldValue) -> String {
    match value {
        FieldValue::Str(s) => format!("the string \"{s}\""),
        FieldValue::Bool(b) => format!("the boolean {b}"),
        FieldValue::Null => "null".into(),
        FieldValue::Other(d) => d.clone(),
    }
}

fn required_help(key: &str) -> &'static str {
    match key {
        "uid" => {
            "set uid to the owner's metadata.uid as the cluster assigned it (read it with `kubectl get <kind> <name> -o jsonpath='{.metadata.uid}'`), or let the owner's controller set the reference"
        }
        "apiVersion" => "set apiVersion to the owner's apiVersion, e.g. `apps/v1`",
        "kind" => "set kind to the owner's kind, e.g. `ReplicaSet`",
        _ => "set name to the owner's metadata.name",
    }
}
