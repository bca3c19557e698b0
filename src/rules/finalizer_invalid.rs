//! `finalizer-invalid`: a finalizer the API server rejects for every kind — not a qualified
//! name, not a string, or `orphan` together with `foregroundDeletion` (`ValidateFinalizers` in
//! `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`).

use super::Context;
use crate::finding::{Finding, Label};
use crate::model::{FieldValue, Finalizers, NotAList};

super::declare_rule! {
    id: "finalizer-invalid",
    severity: Error,
    summary: "A finalizer the API server rejects on every kind, or orphan together with foregroundDeletion",
    reads: [FINALIZERS],
}

const NAME_MAX: usize = 63;
const PREFIX_MAX: usize = 253;

/// Why `value` is not a qualified name (`IsQualifiedName`), or `None` when it is one: an
/// optional DNS-1123 subdomain prefix and `/`, then a name part of at most 63 characters
/// matching `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub fn qualified_name_problem(value: &str) -> Option<String> {
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => name,
        [prefix, name] => {
            if prefix.is_empty() {
                return Some("the prefix before `/` is empty".into());
            }
            if prefix.len() > PREFIX_MAX {
                return Some(format!(
                    "the prefix before `/` is {} characters long; at most {PREFIX_MAX} are allowed",
                    prefix.len()
                ));
            }
            if !is_dns1123_subdomain(prefix) {
                return Some(format!(
                    "the prefix `{prefix}` is not a lowercase DNS subdomain"
                ));
            }
            name
        }
        _ => {
            return Some(format!(
                "it has {} `/`; a qualified name has at most one",
                parts.len() - 1
            ));
        }
    };
    if name.is_empty() {
        return Some("the name part is empty".into());
    }
    if name.len() > NAME_MAX {
        return Some(format!(
            "the name part is {} characters long; at most {NAME_MAX} are allowed",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!(
            "the name part contains {c:?}; only letters, digits, `-`, `_` and `.` are allowed"
        ));
    }
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if !alnum(name.chars().next()) || !alnum(name.chars().last()) {
        return Some("the name part must start and end with a letter or digit".into());
    }
    None
}

/// `IsDNS1123Subdomain`: dot-separated labels of lowercase letters, digits and `-`, each
/// starting and ending with a letter or digit.
fn is_dns1123_subdomain(value: &str) -> bool {
    value.split('.').all(|label| {
        let bytes = label.as_bytes();
        let edge = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        edge(bytes.first())
            && edge(bytes.last())
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
    })
}

const HELP_NAME: &str = "use a domain-qualified name such as `example.com/cleanup`: a domain you own in lowercase (letters, digits, `-` and `.`), one `/`, and a name of at most 63 letters, digits, `-`, `_` or `.` that starts and ends with a letter or digit";

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, object) in cx.linted() {
        let items = match &object.finalizers {
            Finalizers::None => continue,
            Finalizers::NotAList(not_a_list) => {
                let NotAList { span, found } = &**not_a_list;
                out.push(
                    cx.finding(
                        &META,
                        id,
                        *span,
                        "not a list",
                        format!(
                            "metadata.finalizers of {} is {found}, not a list of strings: the API server cannot decode the object and rejects it",
                            cx.display_name(id)
                        ),
                    )
                    .help("write finalizers as a list: `finalizers: [example.com/cleanup]`"),
                );
                continue;
            }
            Finalizers::List(items) => items,
        };
        for item in items {
            let (text, problem) = match &item.value {
                FieldValue::Str(s) => (s.as_str(), qualified_name_problem(s)),
                // Go decodes a JSON null into an empty string.
                FieldValue::Null => ("", qualified_name_problem("")),
                FieldValue::Bool(b) => {
                    push_not_a_string(cx, out, id, item.span, &format!("the boolean {b}"));
                    continue;
                }
                FieldValue::Other(what) => {
                    push_not_a_string(cx, out, id, item.span, what);
                    continue;
                }
            };
            let Some(problem) = problem else { continue };
            let message = if text.is_empty() {
                format!(
                    "a finalizer of {} is empty: the API server rejects the object (`metadata.finalizers: Invalid value: \"\"`)",
                    cx.display_name(id)
                )
            } else {
                format!(
                    "finalizer \"{text}\" of {} is not a qualified name ({problem}): the API server rejects the object (`metadata.finalizers: Invalid value: \"{text}\"`)",
                    cx.display_name(id)
                )
            };
            out.push(
                cx.finding(&META, id, item.span, "not a qualified name", message)
                    .help(HELP_NAME),
            );
        }
        let orphan = object.finalizers.find("orphan").map(|s| ("orphan", s));
        let foreground = object
            .finalizers
            .find("foregroundDeletion")
            .map(|s| ("foregroundDeletion", s));
        if let (Some(orphan), Some(foreground)) = (orphan, foreground) {
            let (first, second) = if orphan.1.start < foreground.1.start {
                (orphan, foreground)
            } else {
                (foreground, orphan)
            };
            out.push(
                cx.finding(
                    &META,
                    id,
                    second.1,
                    format!("`{}` conflicts with `{}`", second.0, first.0),
                    format!(
                        "{} has both the `orphan` and the `foregroundDeletion` finalizer: the API server rejects it (`finalizer orphan and foregroundDeletion cannot be both set`), since its dependents cannot be both kept and deleted",
                        cx.display_name(id)
                    ),
                )
                .related(Label::new(object.source, first.1, format!("`{}` is set here", first.0)))
                .help("remove both, and choose the propagation policy when deleting (`kubectl delete --cascade=orphan` or `--cascade=foreground`)"),
            );
        }
    }
}

fn push_not_a_string(
    cx: &Context,
    out: &mut Vec<Finding>,
    id: crate::index::ObjId,
    span: crate::source::Span,
    what: &str,
) {
    out.push(
        cx.finding(
            &META,
            id,
            span,
            "not a string",
            format!(
                "a finalizer of {} is {what}, not a string: the API server cannot decode the object and rejects it",
                cx.display_name(id)
            ),
        )
        .help(format!("write the finalizer as a string; {HELP_NAME}")),
    );
}

#[cfg(test)]
mod tests {
    use super::qualified_name_problem as problem;

    #[test]
    fn qualified_names_follow_is_qualified_name() {
        for ok in [
            "kubernetes",
            "orphan",
            "foregroundDeletion",
            "example.com/cleanup",
            "kubernetes.io/pvc-protection",
            "a",
            "My_Name.v2",
            "x.y/Z",
        ] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        let long_name = "a".repeat(64);
        let long_prefix = format!("{}/x", "a".repeat(254));
        for bad in [
            "",
            "/x",
            "example.com/",
            "a/b/c",
            "Example.com/x",
            "-x",
            "x-",
            "has space",
            "ex_ample.com/x",
            "example.com/a:b",
            long_name.as_str(),
            long_prefix.as_str(),
        ] {
            assert!(problem(bad).is_some(), "{bad}");
        }
        assert_eq!(
            problem("a/b/c").as_deref(),
            Some("it has 2 `/`; a qualified name has at most one")
        );
    }
}
