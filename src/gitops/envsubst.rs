//! Flux's `postBuild` variable substitution, as the kustomize-controller runs it on each object
//! it built (fluxcd/pkg `kustomize/kustomize_varsub.go`, `SubstituteVariables`):
//!
//! - an object labelled or annotated `kustomize.toolkit.fluxcd.io/substitute: disabled` is left
//!   as it is;
//! - a value's newlines are taken out (`strings.ReplaceAll(v, "\n", "")`);
//! - only `${var}` is a variable (fluxcd/pkg `envsubst/parse/scan.go`: `$` starts one only
//!   when `{` follows), `$$` is one `$` (so `$${var}` is written as it is), and a variable that
//!   is not set is the empty string (the controller's default, not strict, mode);
//! - `${var:=default}` and `${var:-default}` take the default when the variable is unset or
//!   empty, `${var=default}` and `${var-default}` when it is unset (fluxcd/pkg
//!   `envsubst/README.md`). The string functions (`${var^^}`, `${var/a/b}`, …) are left
//!   written as they are.

use std::collections::BTreeMap;

/// The annotation (or label) that turns substitution off for one object.
pub const DISABLED_KEY: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// `text` with its `${var}` expressions replaced from `vars`.
pub fn substitute(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(more) = after.strip_prefix('$') {
            out.push('$');
            rest = more;
        } else if let Some(inner) = after.strip_prefix('{')
            && let Some(end) = inner.find('}')
        {
            let expression = &inner[..end];
            match evaluate(expression, vars) {
                Some(value) => out.push_str(&value),
                None => {
                    out.push_str("${");
                    out.push_str(expression);
                    out.push('}');
                }
            }
            rest = &inner[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The value of one `${…}` expression; `None` for one not read here (left as written).
fn evaluate(expression: &str, vars: &BTreeMap<String, String>) -> Option<String> {
    let name_len = expression
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(expression.len());
    let (name, operator) = expression.split_at(name_len);
    if name.is_empty() {
        return None;
    }
    let value = vars.get(name);
    let unset_or_empty = value.is_none_or(|v| v.is_empty());
    let pick = |use_default: bool, default: &str| match use_default {
        true => default.to_string(),
        false => value.cloned().unwrap_or_default(),
    };
    if operator.is_empty() {
        return Some(value.cloned().unwrap_or_default());
    }
    for (prefix, when_empty) in [(":=", true), (":-", true), ("=", false), ("-", false)] {
        if let Some(default) = operator.strip_prefix(prefix) {
            let use_default = match when_empty {
                true => unset_or_empty,
                false => value.is_none(),
            };
            return Some(pick(use_default, default));
        }
    }
    None
}

/// A built stream with the variables substituted in each of its documents, but for those
/// labelled or annotated [`DISABLED_KEY`]`: disabled`.
pub fn substitute_stream(stream: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(stream.len());
    let mut at = 0;
    for chunk in crate::yaml::split_documents(stream, 0) {
        let (start, end) = (chunk.span.start.max(at), chunk.span.end.min(stream.len()));
        if start > end || !stream.is_char_boundary(start) || !stream.is_char_boundary(end) {
            continue;
        }
        out.push_str(&stream[at..start]);
        let document = &stream[start..end];
        match disabled(document) {
            true => out.push_str(document),
            false => out.push_str(&substitute(document, vars)),
        }
        at = end;
    }
    out.push_str(stream.get(at..).unwrap_or_default());
    out
}

/// Whether a document's object turns substitution off.
fn disabled(document: &str) -> bool {
    if !document.contains(DISABLED_KEY) {
        return false;
    }
    crate::yaml::roots(document).iter().any(|root| {
        ["labels", "annotations"].into_iter().any(|key| {
            root.get("metadata")
                .and_then(|m| m.get(key))
                .and_then(|m| m.get(DISABLED_KEY))
                .and_then(|v| v.as_str())
                == Some("disabled")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn variables_and_defaults_are_read_as_flux_reads_them() {
        let v = vars(&[("A", "x"), ("E", "")]);
        assert_eq!(substitute("a: ${A}", &v), "a: x");
        assert_eq!(substitute("a: ${B}", &v), "a: ");
        assert_eq!(substitute("a: ${B:=d}/${E:=d}/${E=d}", &v), "a: d/d/");
        assert_eq!(substitute("a: ${A:-d} ${B-d}", &v), "a: x d");
        assert_eq!(substitute("a: $A $$ $${A}", &v), "a: $A $ ${A}");
        assert_eq!(substitute("a: ${A^^} ${", &v), "a: ${A^^} ${");
    }

    #[test]
    fn an_object_can_turn_substitution_off() {
        let stream = "a: ${A}\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${A}\n";
        let out = substitute_stream(stream, &vars(&[("A", "x")]));
        assert!(out.starts_with("a: x\n---\n"), "{out}");
        assert!(out.ends_with("b: ${A}\n"), "{out}");
    }
}
