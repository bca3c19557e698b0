//! Edits that change one node of a YAML or JSON text and leave every other byte as it was:
//! comments, quoting, key order, flow or block style, line ends. Each returns `None` where it
//! cannot be sure of a clean edit; the fix is then not offered.

use crate::source::Span;

/// The text of a scalar at `span`, replaced with `value`, keeping its quotes: `"replicaset"`
/// becomes `"ReplicaSet"`. `value` must need no quoting or escaping in either style (kinds and
/// apiVersions do not).
pub fn replace_scalar(text: &str, span: Span, value: &str) -> Option<(Span, String)> {
    let written = text.get(span.start..span.end)?;
    let quoted = |q: char| written.len() >= 2 && written.starts_with(q) && written.ends_with(q);
    let inner = if quoted('"') || quoted('\'') {
        Span::new(span.start + 1, span.end - 1)
    } else if written.starts_with(['"', '\'', '|', '>', '&', '!', '*']) {
        // A scalar with an anchor, a tag or a block style: left alone.
        return None;
    } else {
        span
    };
    let plain = value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-' | '_'));
    plain.then(|| (inner, value.to_string()))
}

/// The bytes to delete to remove the node at `span` (a sequence item from its `-`, or a
/// mapping entry from its key): whole lines in block style, the node and one comma in flow
/// style (`[a, b]` → `[a]`).
pub fn remove_node(text: &str, span: Span) -> Option<Span> {
    let bytes = text.as_bytes();
    if span.end > bytes.len() || span.start >= span.end {
        return None;
    }
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..span.start];
    if before.bytes().all(|b| b == b' ') {
        // Block style, alone on its lines: the rest of its last line may hold only a comment.
        let line_end = text[span.end..]
            .find('\n')
            .map_or(text.len(), |i| span.end + i + 1);
        let rest = text[span.end..line_end].trim();
        let rest_ok = rest.is_empty() || rest.starts_with('#');
        if rest_ok && !is_flow(text, span.start) {
            return Some(Span::new(line_start, line_end));
        }
    }
    if !is_flow(text, span.start) {
        return None;
    }
    // Flow style: the comma before it (and the spaces between), else the comma after it and
    // the spaces up to the next node.
    let previous = text[..span.start].trim_end_matches([' ', '\t', '\r', '\n']);
    if previous.ends_with(',') {
        return Some(Span::new(previous.len() - 1, span.end));
    }
    let after = &text[span.end..];
    let after_trimmed = after.trim_start_matches([' ', '\t', '\r', '\n']);
    if let Some(next) = after_trimmed.strip_prefix(',') {
        let next = next.trim_start_matches([' ', '\t', '\r', '\n']);
        return Some(Span::new(span.start, text.len() - next.len()));
    }
    // The only node of its collection: `[a]` → `[]`.
    Some(span)
}

/// Whether the node at `at` is inside a flow collection (`[…]` or `{…}`), judged by the last
/// bracket or separator before it.
fn is_flow(text: &str, at: usize) -> bool {
    let previous = text[..at].trim_end_matches([' ', '\t', '\r', '\n']);
    previous.ends_with(['[', '{', ','])
}

/// The key at `span` renamed to `name`, keeping its quotes.
pub fn rename_key(text: &str, span: Span, name: &str) -> Option<(Span, String)> {
    replace_scalar(text, span, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_of(text: &str, needle: &str) -> Span {
        let start = text.find(needle).expect("needle");
        Span::new(start, start + needle.len())
    }

    fn apply(text: &str, span: Span, with: &str) -> String {
        format!("{}{with}{}", &text[..span.start], &text[span.end..])
    }

    #[test]
    fn scalars_keep_their_quotes() {
        for (text, kind, expected) in [
            ("kind: replicaset\n", "replicaset", "kind: ReplicaSet\n"),
            (
                "kind: \"replicaset\"\n",
                "\"replicaset\"",
                "kind: \"ReplicaSet\"\n",
            ),
            (
                "{kind: 'replicaset'}",
                "'replicaset'",
                "{kind: 'ReplicaSet'}",
            ),
        ] {
            let (span, value) =
                replace_scalar(text, span_of(text, kind), "ReplicaSet").expect("an edit");
            assert_eq!(apply(text, span, &value), expected);
        }
        let tagged = "kind: !!str replicaset\n";
        assert_eq!(
            replace_scalar(tagged, span_of(tagged, "!!str replicaset"), "A"),
            None
        );
    }

    #[test]
    fn block_nodes_go_with_their_lines() {
        let text = "refs:\n- a: 1\n  b: 2  # same\n- a: 1\n  b: 2\nnext: x\n";
        let start = text.rfind("- a: 1").expect("the second entry");
        let span = Span::new(start, start + "- a: 1\n  b: 2".len());
        let removed = remove_node(text, span).expect("an edit");
        assert_eq!(
            apply(text, removed, ""),
            "refs:\n- a: 1\n  b: 2  # same\nnext: x\n"
        );
        let crlf = "metadata:\r\n  deletionTimestamp: x\r\n  name: y\r\n";
        let key = span_of(crlf, "deletionTimestamp: x");
        let removed = remove_node(crlf, key).expect("an edit");
        assert_eq!(apply(crlf, removed, ""), "metadata:\r\n  name: y\r\n");
        // Not alone on its line: no edit.
        let inline = "- deletionTimestamp: x\n  name: y\n";
        assert_eq!(
            remove_node(inline, span_of(inline, "deletionTimestamp: x")),
            None
        );
    }

    #[test]
    fn flow_nodes_go_with_one_comma() {
        for (text, node, expected) in [
            ("[{a: 1}, {a: 1}]", "{a: 1}]", "[{a: 1}]"),
            ("[{a: 1}, {b: 2}]", "{a: 1}", "[{b: 2}]"),
            ("[ {a: 1} ]", "{a: 1}", "[  ]"),
            (
                "{\"x\": 1,\n \"deletionTimestamp\": \"t\",\n \"y\": 2}",
                "\"deletionTimestamp\": \"t\"",
                "{\"x\": 1,\n \"y\": 2}",
            ),
        ] {
            let span = span_of(text, node.trim_end_matches(']'));
            let span = if node.ends_with(']') {
                let start = text.rfind(node.trim_end_matches(']')).expect("last");
                Span::new(start, start + node.len() - 1)
            } else {
                span
            };
            let removed = remove_node(text, span).expect("an edit");
            assert_eq!(apply(text, removed, ""), expected, "{text}");
        }
    }
}
