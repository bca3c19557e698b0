//! Helm templates: the template a document names (`# Source:`), and template text that was
//! never rendered, where a document does not parse or where YAML read it as structure or as an
//! identity field.

use super::{Unread, Why};
use crate::model::Object;
use crate::source::{Part, SourceId, Span, Text};
use crate::yaml::{Node, Value};

/// The template named by the `# Source:` comment at the top of a document that could not be
/// parsed (or of a List, read once for all its items).
pub(super) fn raw_origin(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "---")
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.trim_start_matches('#').trim().strip_prefix("Source:"))
        .map(str::trim)
}

pub(super) fn unrendered_template(id: SourceId, text: &Text, at: usize) -> Unread {
    // Through the template's `}}`, within its line (a search never runs past the line).
    let line_end = text.find(at, b"\n").unwrap_or(text.len());
    let line = text.bytes(at..line_end).unwrap_or_default();
    let end = match memchr::memmem::find(&line, b"}}") {
        Some(i) => at + i + 2,
        // Unclosed on its line: the rest of the line.
        None => line_end,
    };
    Unread {
        source: id,
        origin: None,
        why: Why::Template {
            at: Span::new(at, end.max(at + 2)),
        },
    }
}

/// Where a document that failed to parse holds template text (`{{`), if it does.
pub(super) fn template_start(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split(" #").next().unwrap_or(line);
        if !line.trim_start().starts_with('#')
            && let Some(i) = code.find("{{")
            && code[i..].contains("}}")
        {
            return Some(offset + i);
        }
        offset += line.len();
    }
    None
}

/// Template text that YAML read as structure: `key: {{ .Values.x }}` parses as a flow mapping
/// keyed by a flow mapping, which no Kubernetes object contains.
pub(super) fn structural_template(node: &Node, text: Part<'_>) -> Option<usize> {
    match &node.value {
        Value::Scalar(_) => None,
        Value::Seq(items) => items.iter().find_map(|n| structural_template(n, text)),
        Value::Map(entries) => {
            if text
                .from(node.span.start)
                .is_some_and(|t| t.starts_with("{{"))
            {
                return Some(node.span.start);
            }
            entries.iter().find_map(|(k, v)| {
                structural_template(k, text).or_else(|| structural_template(v, text))
            })
        }
    }
}

/// Template text in a field that identifies an object or its owners.
pub(super) fn identity_template(object: &Object) -> Option<usize> {
    let spanned = [
        &object.api_version,
        &object.kind,
        &object.name,
        &object.namespace,
        &object.uid,
    ];
    let own = spanned
        .into_iter()
        .flatten()
        .find(|s| opens_template(&s.value))
        .map(|s| s.span.start);
    own.or_else(|| {
        object.owner_refs().iter().find_map(|r| {
            [&r.api_version, &r.kind, &r.name, &r.uid]
                .into_iter()
                .flatten()
                .find(|f| f.str().is_some_and(opens_template))
                .map(|f| f.span.start)
        })
    })
}

/// Whether `text` holds a template's `{{` (asked of every identity field of every object:
/// one byte search, without setting up a general substring search each time).
fn opens_template(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'{', bytes).any(|i| bytes.get(i + 1) == Some(&b'{'))
}
