//! `owner-ref-unknown-field`: a key that OwnerReference does not have. The API server drops it
//! (or, under kubectl's default strict field validation, rejects the object).

use super::{Context, did_you_mean};
use crate::finding::{Applicability, Finding};
use crate::model::{OWNER_REF_FIELDS, Object, OwnerRef, Spanned};
use crate::source::Span;
use crate::yaml::{Scalar, ScalarType};

super::declare_rule! {
    id: "owner-ref-unknown-field",
    severity: Warning,
    fix: Unsafe,
    summary: "A key OwnerReference does not have (e.g. namespace, a misspelled blockOwnerDeletion); dropped by the API server",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let refs = object.owner_refs();
        if refs.iter().all(|r| r.unknown_keys().is_empty()) {
            continue;
        }
        let renames: Vec<Vec<Option<Rename>>> = refs
            .iter()
            .map(|reference| renames(cx, object, reference))
            .collect();
        // Renamed keys must not make two `controller: true` entries, which the API server
        // rejects.
        let controllers = refs.iter().filter(|r| r.is_controller()).count()
            + renames
                .iter()
                .flatten()
                .flatten()
                .filter(|rename| rename.controller)
                .count();
        for (reference, renames) in refs.iter().zip(&renames) {
            for (key, rename) in reference.unknown_keys().iter().zip(renames) {
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
                let mut finding = cx
                    .finding(
                        &META,
                        id,
                        key.span,
                        "unknown field",
                        format!(
                            "`{}` is not a field of an owner reference of {}: the API server drops it (kubectl's default strict validation rejects the object); {why}",
                            key.value,
                            cx.display_name(id)
                        ),
                    )
                    .help(help);
                // The renamed field takes effect, where it was dropped before.
                if let Some(Rename { to, controller }) = *rename
                    && !(controller && controllers > 1)
                    && let Some(fix) = cx.fixes(id).replace(
                        key.span,
                        to,
                        Applicability::Unsafe,
                        format!("rename `{}` to `{to}`", key.value),
                    )
                {
                    finding = finding.fix(fix);
                }
                out.push(finding);
            }
        }
    }
}

/// A misspelled key to rename.
#[derive(Clone, Copy)]
struct Rename {
    /// The field it becomes.
    to: &'static str,
    /// It becomes `controller: true`.
    controller: bool,
}

/// For each unknown key of `reference`, the field to rename it to: the one field it is a
/// misspelling of, which the entry does not have yet and no other of its keys would become,
/// when its value is written on the key's line and is one that field takes (a boolean for
/// `controller` and `blockOwnerDeletion`, a string for the others).
fn renames(cx: &Context, object: &Object, reference: &OwnerRef) -> Vec<Option<Rename>> {
    let keys = reference.unknown_keys();
    let targets: Vec<Option<&str>> = keys.iter().map(misspelling_of).collect();
    keys.iter()
        .zip(&targets)
        .map(|(key, &target)| {
            let to = target?;
            let present = match to {
                "apiVersion" => reference.api_version.is_some(),
                "kind" => reference.kind.is_some(),
                "name" => reference.name.is_some(),
                "uid" => reference.uid.is_some(),
                "controller" => reference.controller.is_some(),
                _ => reference.block_owner_deletion.is_some(),
            };
            let twice = targets.iter().filter(|t| **t == Some(to)).count() > 1;
            if present || twice || !written_as(cx, object, key) {
                return None;
            }
            let value = written_value(cx, object, reference, key.span)?;
            let fits = match to {
                "controller" | "blockOwnerDeletion" => matches!(value, ScalarType::Bool(_)),
                _ => value == ScalarType::String,
            };
            fits.then_some(Rename {
                to,
                controller: to == "controller" && value == ScalarType::Bool(true),
            })
        })
        .collect()
}

/// The field `key` misspells: the one the help suggests, when it is within two edits of it
/// (letter case aside) and every other field is further (`kid` is as close to `kind` as to
/// `uid`). Not `namespace`, which is no misspelling of `name`.
fn misspelling_of(key: &Spanned<String>) -> Option<&'static str> {
    if key.value == "namespace" {
        return None;
    }
    let lower = key.value.to_ascii_lowercase();
    let distance = |field: &str| strsim::damerau_levenshtein(&lower, &field.to_ascii_lowercase());
    let field = did_you_mean(&key.value, &OWNER_REF_FIELDS)?;
    let nearest = distance(field);
    let alone = OWNER_REF_FIELDS
        .iter()
        .all(|other| *other == field || distance(other) > nearest);
    (nearest <= 2 && alone).then_some(field)
}

/// Whether the key is written at its span as its text (plain or quoted), not through an alias
/// or as a collection.
fn written_as(cx: &Context, object: &Object, key: &Spanned<String>) -> bool {
    let source = &cx.sources[object.source.0 as usize];
    let Ok(written) = source.text.str(key.span.start..key.span.end) else {
        return false;
    };
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| written.strip_prefix(*q)?.strip_suffix(*q))
        .unwrap_or(&written);
    unquoted == key.value
}

/// The type of the value after the key at `key`, when it is a scalar written on the key's line
/// and nothing but a comment (or, in a flow mapping, the next entry) follows it.
fn written_value(
    cx: &Context,
    object: &Object,
    reference: &OwnerRef,
    key: Span,
) -> Option<ScalarType> {
    let source = &cx.sources[object.source.0 as usize];
    let flow = source
        .text
        .str(reference.span.start..key.start)
        .ok()?
        .trim_start_matches(['-', ' ', '\t', '\r', '\n'])
        .starts_with('{');
    let line_end = source
        .line_start(source.line_index(key.end) + 1)
        .min(source.text.len());
    let line = source.text.str(key.end..line_end).ok()?;
    let rest = line.trim_start_matches([' ', '\t']).strip_prefix(':')?;
    let rest = rest.trim_start_matches([' ', '\t']);
    match rest.chars().next()? {
        '"' | '\'' => return Some(ScalarType::String),
        '#' | '\r' | '\n' | '&' | '*' | '!' | '|' | '>' | '{' | '[' | '?' | '-' | '%' | '@'
        | '`' => return None,
        _ => {}
    }
    let ends: &[char] = if flow {
        &[',', '}', ']', '\r', '\n']
    } else {
        &['\r', '\n']
    };
    let end = rest.find(ends).unwrap_or(rest.len());
    let mut text = &rest[..end];
    // A comment starts at ` #`.
    if let Some(at) = text.find(" #").or_else(|| text.find("\t#")) {
        text = &text[..at];
    }
    let text = text.trim_end_matches([' ', '\t']);
    if text.contains('#') || text.contains(": ") {
        return None;
    }
    Some(
        Scalar {
            text: text.to_string(),
            plain: true,
        }
        .resolve(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(value: &str) -> Spanned<String> {
        Spanned {
            value: value.to_string(),
            span: Span::new(0, value.len()),
        }
    }

    #[test]
    fn only_clear_misspellings_are_renamed() {
        for (written, field) in [
            ("blockOwnerdeletion", "blockOwnerDeletion"),
            ("blockOwnerDeletoin", "blockOwnerDeletion"),
            ("controler", "controller"),
            ("UID", "uid"),
            ("nmae", "name"),
            ("APIVersion", "apiVersion"),
        ] {
            assert_eq!(misspelling_of(&key(written)), Some(field), "{written}");
        }
        // As close to `kind` as to `uid`; too far from any field; not a misspelling.
        for written in ["kid", "controllerRef", "apiGroup", "namespace", "owner"] {
            assert_eq!(misspelling_of(&key(written)), None, "{written}");
        }
    }
}
