//! Edits that change one node of a YAML or JSON text and leave every other byte as it was:
//! comments, quoting, key order, flow or block style, line ends. Each returns `None` where it
//! cannot be sure of a clean edit; the fix is then not offered.

use crate::source::Span;

/// The bytes of a text around the nodes to edit, and the offset of its first byte in the text.
/// A window starts at the start of its document (so that brackets still open before a node
/// tell whether it is in a flow collection) and ends at the end of a line (or of the text).
#[derive(Clone, Copy)]
pub(crate) struct Window<'a> {
    pub bytes: &'a [u8],
    pub base: usize,
}

impl<'a> Window<'a> {
    fn get(&self, span: Span) -> Option<&'a [u8]> {
        self.bytes
            .get(span.start.checked_sub(self.base)?..span.end.checked_sub(self.base)?)
    }

    /// The bytes before `at`, and after it.
    fn split(&self, at: usize) -> Option<(&'a [u8], &'a [u8])> {
        let at = at.checked_sub(self.base)?;
        (at <= self.bytes.len()).then(|| self.bytes.split_at(at))
    }
}

/// The scalar at `span` replaced with `value`, keeping its quotes: `"replicaset"` becomes
/// `"ReplicaSet"`. Only values that need no quoting or escaping in any style are written
/// (kinds, apiVersions, keys).
pub(crate) fn replace_scalar(window: Window, span: Span, value: &str) -> Option<(Span, String)> {
    let written = window.get(span)?;
    let quoted = |q: u8| written.len() >= 2 && written[0] == q && written[written.len() - 1] == q;
    let inner = if quoted(b'"') || quoted(b'\'') {
        Span::new(span.start + 1, span.end - 1)
    } else if written.first().is_some_and(|b| b"\"'|>&!*".contains(b)) {
        // A scalar with an anchor, a tag or a block style: left alone.
        return None;
    } else {
        span
    };
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-' | '_'));
    plain.then(|| (inner, value.to_string()))
}

const BLANK: &[u8] = b" \t\r\n";

fn trim_end(bytes: &[u8]) -> &[u8] {
    let kept = bytes
        .iter()
        .rposition(|b| !BLANK.contains(b))
        .map_or(0, |i| i + 1);
    &bytes[..kept]
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let skipped = bytes
        .iter()
        .position(|b| !BLANK.contains(b))
        .unwrap_or(bytes.len());
    &bytes[skipped..]
}

/// The bytes to delete to remove the node at `span` (a sequence item from its `-`, or a
/// mapping entry from its key): whole lines in block style, the node and one comma in flow
/// style (`[a, b]` → `[a]`).
pub(crate) fn remove_node(window: Window, span: Span) -> Option<Span> {
    if span.start >= span.end {
        return None;
    }
    let span = with_closing_bracket(window, span)?;
    let (before, _) = window.split(span.start)?;
    let (_, after) = window.split(span.end)?;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let flow = open_brackets(before) > 0;
    if !flow {
        // A `-` alone on the line above (perhaps with a comment) is this item's indicator:
        // removing only the node would leave an empty item.
        let above = before[..line_start.saturating_sub(1)]
            .rsplit(|&b| b == b'\n')
            .next()
            .unwrap_or_default();
        let above = trim_start(above);
        if above.first() == Some(&b'-')
            && (above.len() == 1 || trim_start(&above[1..]).first().is_none_or(|&b| b == b'#'))
        {
            return None;
        }
        // Block style, alone on its lines: the rest of its last line may hold only a comment.
        if before[line_start..].iter().any(|&b| b != b' ') {
            return None;
        }
        let line_end = after
            .iter()
            .position(|&b| b == b'\n')
            .map_or(after.len(), |i| i + 1);
        let rest = trim_start(&after[..line_end]);
        if !(rest.is_empty() || rest[0] == b'#') {
            return None;
        }
        return Some(Span::new(window.base + line_start, span.end + line_end));
    }
    // Flow style: the comma before it (and the blanks between), else the comma after it and
    // the blanks up to the next node.
    let previous = trim_end(before);
    if previous.last() == Some(&b',') {
        return Some(Span::new(window.base + previous.len() - 1, span.end));
    }
    let next = trim_start(after);
    if let Some(rest) = next.strip_prefix(b",") {
        let rest = trim_start(rest);
        return Some(Span::new(span.start, span.end + (after.len() - rest.len())));
    }
    // The only node of its collection: `[a]` → `[]`.
    Some(span)
}

/// The bytes to delete to remove the sequence item whose value is at `span`: in block style,
/// from its `-` (`- orphan` goes whole, with its line); in flow style, as [`remove_node`].
pub(crate) fn remove_item(window: Window, span: Span) -> Option<Span> {
    let (before, _) = window.split(span.start)?;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let on_line = &before[line_start..];
    let indent = on_line.iter().take_while(|&&b| b == b' ').count();
    let rest = &on_line[indent..];
    let dash =
        rest.first() == Some(&b'-') && rest[1..].iter().all(|&b| b == b' ') && rest.len() > 1;
    if dash {
        let start = window.base + line_start + indent;
        return remove_node(window, Span::new(start, span.end));
    }
    remove_node(window, span)
}

/// The bytes to delete to remove a block mapping entry (its key and its value, as
/// [`remove_node`] does) with the comment lines that follow it indented deeper than its key,
/// which belong to it. In flow style, as [`remove_node`].
pub(crate) fn remove_entry(window: Window, key: Span, value: Span) -> Option<Span> {
    let removed = remove_node(window, entry(window, key, value)?)?;
    let (before, after) = window.split(removed.end)?;
    let (key_before, _) = window.split(key.start)?;
    let key_column = key_before.len()
        - key_before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
    // Only when the removal ends at the start of a line (block style).
    if !(before.is_empty() || before.last() == Some(&b'\n')) {
        return Some(removed);
    }
    let mut end = removed.end;
    for line in after.split_inclusive(|&b| b == b'\n') {
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        if indent > key_column && line.get(indent) == Some(&b'#') && line.ends_with(b"\n") {
            end += line.len();
        } else {
            break;
        }
    }
    Some(Span::new(removed.start, end))
}

/// The span of a mapping entry, from its key to the end of its value: a flow collection's
/// closing bracket included, which the parser's span of the value may end before. An empty value
/// (`uid:`) ends with its key.
pub(crate) fn entry(window: Window, key: Span, value: Span) -> Option<Span> {
    if value.is_empty() {
        return Some(key);
    }
    let value = with_closing_bracket(window, value)?;
    Some(Span::new(key.start, value.end.max(key.end)))
}

/// The span of a flow collection with its closing brackets, which the parser's span of the
/// node may end before (`[{a: 1}` for `[{a: 1}\n]`); other nodes as they are. `None` when the
/// brackets do not balance.
fn with_closing_bracket(window: Window, span: Span) -> Option<Span> {
    let node = window.get(span)?;
    // A block sequence item (`- {…}`) starts at its dash.
    let node = match node.first() {
        Some(b'-') => trim_start(&node[1..]),
        _ => node,
    };
    if !matches!(node.first(), Some(b'{' | b'[')) {
        return Some(span);
    }
    let brackets = Brackets::scan(node);
    if brackets.stray {
        return None;
    }
    // Each bracket still open, innermost first, after blanks.
    let (_, after) = window.split(span.end)?;
    let mut at = 0;
    for &open in brackets.open.iter().rev() {
        let rest = &after[at..];
        at += rest.len() - trim_start(rest).len();
        let close = if open == b'[' { b']' } else { b'}' };
        if after.get(at) != Some(&close) {
            return None;
        }
        at += 1;
    }
    Some(Span::new(span.start, span.end + at))
}

/// The brackets (`[`, `{`) of a text, outside quotes and comments.
struct Brackets {
    /// Those still open at its end, outermost first.
    open: Vec<u8>,
    /// Whether a bracket closes one that is not open.
    stray: bool,
}

impl Brackets {
    fn scan(bytes: &[u8]) -> Brackets {
        let mut open = Vec::new();
        let mut stray = false;
        let mut quote = None;
        let mut escaped = false;
        let mut comment = false;
        let mut previous = b'\n';
        for &b in bytes {
            if comment {
                comment = b != b'\n';
            } else if let Some(q) = quote {
                if escaped {
                    escaped = false;
                } else if q == b'"' && b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            } else {
                match b {
                    b'#' if previous.is_ascii_whitespace() => comment = true,
                    // A quote opens a string only where a scalar starts.
                    b'"' | b'\'' if b" \t\n[{,:".contains(&previous) => quote = Some(b),
                    b'[' | b'{' => open.push(b),
                    b']' | b'}' => {
                        let opener = if b == b']' { b'[' } else { b'{' };
                        match open.last() {
                            Some(&last) if last == opener => {
                                open.pop();
                            }
                            _ => stray = true,
                        }
                    }
                    _ => {}
                }
            }
            previous = b;
        }
        Brackets { open, stray }
    }
}

/// How many brackets (`[`, `{`) are still open at the end of `bytes`, outside quotes and
/// comments: more than none puts what follows in a flow collection.
fn open_brackets(bytes: &[u8]) -> usize {
    Brackets::scan(bytes).open.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_of(text: &str, needle: &str) -> Span {
        let start = text.find(needle).expect("needle");
        Span::new(start, start + needle.len())
    }

    fn window(text: &str) -> Window<'_> {
        Window {
            bytes: text.as_bytes(),
            base: 0,
        }
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
                replace_scalar(window(text), span_of(text, kind), "ReplicaSet").expect("an edit");
            assert_eq!(apply(text, span, &value), expected);
        }
        let tagged = "kind: !!str replicaset\n";
        assert_eq!(
            replace_scalar(window(tagged), span_of(tagged, "!!str replicaset"), "A"),
            None
        );
    }

    #[test]
    fn block_nodes_go_with_their_lines() {
        let text = "refs:\n- a: 1\n  b: 2  # same\n- a: 1\n  b: 2\nnext: x\n";
        let start = text.rfind("- a: 1").expect("the second entry");
        let span = Span::new(start, start + "- a: 1\n  b: 2".len());
        let removed = remove_node(window(text), span).expect("an edit");
        assert_eq!(
            apply(text, removed, ""),
            "refs:\n- a: 1\n  b: 2  # same\nnext: x\n"
        );
        let crlf = "metadata:\r\n  deletionTimestamp: x\r\n  name: y\r\n";
        let key = span_of(crlf, "deletionTimestamp: x");
        let removed = remove_node(window(crlf), key).expect("an edit");
        assert_eq!(apply(crlf, removed, ""), "metadata:\r\n  name: y\r\n");
        // Not alone on its line: no edit.
        let inline = "- deletionTimestamp: x\n  name: y\n";
        assert_eq!(
            remove_node(window(inline), span_of(inline, "deletionTimestamp: x")),
            None
        );
    }

    #[test]
    fn a_comma_ending_a_block_scalar_is_no_flow_separator() {
        let text = "metadata:\n  annotations:\n    description: >-\n      Serves a, b,\n  deletionTimestamp: x\n  name: y\n";
        let removed =
            remove_node(window(text), span_of(text, "deletionTimestamp: x")).expect("an edit");
        assert_eq!(
            apply(text, removed, ""),
            "metadata:\n  annotations:\n    description: >-\n      Serves a, b,\n  name: y\n"
        );
    }

    #[test]
    fn an_item_whose_dash_is_alone_on_the_line_above_is_left_alone() {
        let text = "refs:\n- # copy\n  apiVersion: v1\n  uid: u\n";
        assert_eq!(
            remove_node(window(text), span_of(text, "apiVersion: v1\n  uid: u")),
            None
        );
    }

    #[test]
    fn block_items_in_flow_style_go_whole() {
        let text = "refs:\n- {a: 1}\n- {a: 1}  # again\nnext: x\n";
        let start = text.rfind("- {a: 1}").expect("second");
        // The parser's span of the item ends before its closing bracket.
        let span = Span::new(start, start + "- {a: 1".len());
        let removed = remove_node(window(text), span).expect("an edit");
        assert_eq!(apply(text, removed, ""), "refs:\n- {a: 1}\nnext: x\n");
    }

    #[test]
    fn sequence_items_go_from_their_dash() {
        let text = "  finalizers:\n  - example.com/a\n  - orphan  # why\n  name: x\n";
        let removed = remove_item(window(text), span_of(text, "orphan")).expect("an edit");
        assert_eq!(
            apply(text, removed, ""),
            "  finalizers:\n  - example.com/a\n  name: x\n"
        );
        let flow = "finalizers: [orphan, example.com/a]\n";
        let removed = remove_item(window(flow), span_of(flow, "orphan")).expect("an edit");
        assert_eq!(apply(flow, removed, ""), "finalizers: [example.com/a]\n");
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
            let removed = remove_node(window(text), span).expect("an edit");
            assert_eq!(apply(text, removed, ""), expected, "{text}");
        }
    }
}
