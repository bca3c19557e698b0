//! The span tree of the fast path's kept text, built straight from its lines where they are
//! in the document, so its spans need no mapping back.
//!
//! What the fast path keeps is small and plain: keys, one-line scalars, `{}` and `[]`, nested
//! by indentation. For that shape this builder gives the very tree (spans, texts, comments) the
//! YAML parser gives, at a fraction of the cost; for anything else — multi-line, block or
//! escaped scalars, trailing spaces, a marker line with content — it returns `None` and the
//! parser reads the kept text. It only ever sees lines of a document the line scanner accepted:
//! whole entries of it, with the scanner's reading of each line.

use super::scan::{Line, find_colon_space, find_space_hash};
use crate::source::Span;
use crate::yaml::{Comment, Document, Node, Scalar, Value};

/// The tree of `text`, when it has only the shapes this builder knows.
#[cfg(test)]
pub fn parse(text: &str, max_depth: usize) -> Option<Document> {
    super::scan::with_lines(text, max_depth, |lines| parse_lines(text, lines))
}

/// The tree of the document made of `lines` of `text`, spans in `text`'s offsets: lines the
/// scanner accepted, or the lines of whole entries the fast path kept of them.
pub fn parse_lines(text: &str, lines: &[Line]) -> Option<Document> {
    let mut builder = Builder {
        text,
        lines,
        comments: Vec::new(),
    };
    let root = builder.document()?;
    Some(Document {
        aliased: Vec::new(),
        root,
        comments: builder.comments,
    })
}

struct Builder<'t, 'l> {
    text: &'t str,
    lines: &'l [Line],
    comments: Vec<Comment>,
}

impl<'t> Builder<'t, '_> {
    fn document(&mut self) -> Option<Option<Node>> {
        let mut i = 0;
        while i < self.lines.len() {
            let line = self.content(i);
            if line.is_empty() || line.starts_with('#') {
                self.comment_line(i)?;
                i += 1;
            } else if line == "---" {
                i += 1;
            } else {
                break;
            }
        }
        if i == self.lines.len() {
            return Some(None);
        }
        let (root, next) = self.node(i)?;
        self.trailing(next)?;
        Some(Some(root))
    }

    /// Line `i` without its newline.
    fn content(&self, i: usize) -> &'t str {
        let l = self.lines[i];
        let text: &'t str = self.text;
        text[l.start..l.end].trim_end_matches('\n')
    }

    /// Trailing spaces move the parser's spans in ways this builder does not model.
    fn has_trailing_space(&self, i: usize) -> bool {
        self.content(i).ends_with(' ')
    }

    fn comment_line(&mut self, i: usize) -> Option<()> {
        if self.has_trailing_space(i) {
            return None;
        }
        let line = self.lines[i];
        let content = self.content(i);
        let indent = content.len() - content.trim_start().len();
        if content.trim_start().starts_with('#') {
            let start = line.start + indent;
            self.comments.push(Comment {
                span: Span::new(start, line.start + content.len()),
                text: content[indent + 1..].to_string(),
            });
        }
        Some(())
    }

    /// After the root: only blank and comment lines.
    fn trailing(&mut self, mut i: usize) -> Option<()> {
        while i < self.lines.len() {
            if !self.lines[i].blank {
                return None;
            }
            self.comment_line(i)?;
            i += 1;
        }
        Some(())
    }

    /// The next line from `i` that is not blank, recording the comments on the way.
    fn next_content(&mut self, mut i: usize) -> Option<usize> {
        while i < self.lines.len() && self.lines[i].blank {
            self.comment_line(i)?;
            i += 1;
        }
        Some(i)
    }

    fn is_item(&self, i: usize) -> bool {
        let l = self.lines[i];
        let rest = &self.content(i)[l.indent..];
        rest == "-" || rest.starts_with("- ")
    }

    /// The block node whose first line is `i`; with the line after it.
    fn node(&mut self, i: usize) -> Option<(Node, usize)> {
        let indent = self.lines[i].indent;
        if self.is_item(i) {
            self.seq(i, indent, false)
        } else {
            self.map(i, indent, indent)
        }
    }

    /// A block mapping whose keys are at `column`; its first key is on line `i` at `first`
    /// (after a `- ` when the mapping is a sequence item).
    fn map(&mut self, mut i: usize, column: usize, first: usize) -> Option<(Node, usize)> {
        let mut entries = Vec::new();
        let mut at = first;
        loop {
            if self.has_trailing_space(i) {
                return None;
            }
            let line = self.lines[i];
            let content = &self.content(i)[at..];
            // A key ends at `: `, or at a `:` that ends the line (then a byte before it is a
            // whole character: `:` is one byte).
            let colon = match find_colon_space(content) {
                Some(colon) => colon,
                None if content.ends_with(':') => content.len() - 1,
                None => return None,
            };
            let key_text = &content[..colon];
            if key_text.is_empty() || key_text.ends_with(' ') {
                return None;
            }
            let key_start = line.start + at;
            let key = match key_text.as_bytes()[0] {
                // A quoted key, when its text needs no unescaping.
                q @ (b'"' | b'\'') => {
                    let inner = key_text
                        .strip_prefix(q as char)
                        .and_then(|k| k.strip_suffix(q as char))
                        .filter(|k| !k.contains(['"', '\'', '\\']))?;
                    scalar(key_start, key_text, inner, false)
                }
                _ => scalar(key_start, key_text, key_text, true),
            };
            let colon_at = key_start + colon;
            let rest = &content[colon + 1..];
            let value_text = rest.trim_start();
            let (value, next) = if value_text.is_empty() || value_text.starts_with('#') {
                self.trailing_comment(colon_at + 1 + (rest.len() - value_text.len()), value_text);
                let j = self.next_content(i + 1)?;
                if j < self.lines.len() && self.lines[j].indent > column {
                    self.node(j)?
                } else if j < self.lines.len() && self.lines[j].indent == column && self.is_item(j)
                {
                    self.seq(j, column, true)?
                } else {
                    (scalar(colon_at, "", "~", true), j)
                }
            } else {
                let start = colon_at + 1 + (rest.len() - value_text.len());
                let value = self.inline_value(start, value_text)?;
                (value, self.next_content(i + 1)?)
            };
            entries.push((key, value));
            let continues =
                next < self.lines.len() && self.lines[next].indent == column && !self.is_item(next);
            if !continues {
                let start = entries
                    .first()
                    .map_or(0, |(k, _): &(Node, Node)| k.span.start);
                let end = entries.last().map_or(start, |(_, v)| v.span.end);
                let node = Node {
                    span: Span::new(start, end),
                    value: Value::Map(entries),
                };
                return Some((node, next));
            }
            i = next;
            at = column;
        }
    }

    /// A block sequence whose `-` are at `column`, from line `i`; `indentless` when it is the
    /// value of a key at the same indentation.
    fn seq(&mut self, mut i: usize, column: usize, indentless: bool) -> Option<(Node, usize)> {
        let first = i;
        let mut items = Vec::new();
        while i < self.lines.len() && self.lines[i].indent == column && self.is_item(i) {
            if self.has_trailing_space(i) {
                return None;
            }
            let dash = self.lines[i].start + column;
            let after = &self.content(i)[column + 1..];
            let content = after.trim_start();
            let at = column + 1 + (after.len() - content.len());
            if content.starts_with('#') {
                // The parser's item span then starts after the comment.
                return None;
            }
            let (mut item, next) = if content.is_empty() {
                let j = self.next_content(i + 1)?;
                // A comment between the `-` and the item moves where the parser starts them.
                if (i + 1..j).any(|k| self.content(k).trim_start().starts_with('#')) {
                    return None;
                }
                if j < self.lines.len() && self.lines[j].indent > column {
                    self.node(j)?
                } else {
                    (scalar(dash + 1, "", "~", true), j)
                }
            } else if is_key_line(content) {
                self.map(i, at, at)?
            } else {
                let value = self.inline_value(self.lines[i].start + at, content)?;
                (value, self.next_content(i + 1)?)
            };
            // Like the parser's tree: an item that is a collection, or empty, starts at its `-`.
            let is_scalar = matches!(item.value, Value::Scalar(_));
            if !is_scalar || item.span.is_empty() {
                item.span.start = dash;
            }
            items.push(item);
            i = next;
        }
        // The parser starts a sequence at its first `-`, but one at its key's indentation at
        // its first item (which starts at the `-` unless it is a scalar).
        let start = if indentless {
            items.first()?.span.start
        } else {
            self.lines.get(first)?.start + column
        };
        let end = items.last()?.span.end;
        Some((
            Node {
                span: Span::new(start, end),
                value: Value::Seq(items),
            },
            i,
        ))
    }

    /// A value that ends on its line, starting at `start` (`text` runs to the line's end).
    fn inline_value(&mut self, start: usize, text: &str) -> Option<Node> {
        let (node, len) = match text.as_bytes()[0] {
            b'{' | b'[' => {
                if !(text.starts_with("{}") || text.starts_with("[]")) {
                    return None;
                }
                let value = if text.starts_with('{') {
                    Value::Map(Vec::new())
                } else {
                    Value::Seq(Vec::new())
                };
                let node = Node {
                    span: Span::new(start, start + 2),
                    value,
                };
                (node, 2)
            }
            b'"' => {
                let close = text[1..].find('"')? + 1;
                let inner = &text[1..close];
                if inner.contains('\\') {
                    return None;
                }
                (scalar(start, &text[..=close], inner, false), close + 1)
            }
            b'\'' => {
                let mut close = 1;
                loop {
                    close += text[close..].find('\'')?;
                    if text.as_bytes().get(close + 1) == Some(&b'\'') {
                        close += 2;
                    } else {
                        break;
                    }
                }
                let inner = text[1..close].replace("''", "'");
                (scalar(start, &text[..=close], &inner, false), close + 1)
            }
            b'|' | b'>' => return None,
            _ => {
                let end = find_space_hash(text).unwrap_or(text.len());
                let value = text[..end].trim_end();
                (scalar(start, value, value, true), value.len())
            }
        };
        let rest = &text[len..];
        let comment = rest.trim_start();
        self.trailing_comment(start + len + (rest.len() - comment.len()), comment);
        Some(node)
    }

    /// A comment after a value (`comment` is the rest of the line from its `#`, or empty).
    fn trailing_comment(&mut self, at: usize, comment: &str) {
        if let Some(text) = comment.strip_prefix('#') {
            self.comments.push(Comment {
                span: Span::new(at, at + comment.len()),
                text: text.to_string(),
            });
        }
    }
}

/// Whether the content after a `- ` is a `key: …` line.
fn is_key_line(content: &str) -> bool {
    !matches!(content.as_bytes()[0], b'"' | b'\'' | b'{' | b'[')
        && (find_colon_space(content).is_some() || content.ends_with(':'))
        && find_space_hash(content).is_none_or(|c| {
            find_colon_space(&content[..c]).is_some() || content[..c].ends_with(':')
        })
}

fn scalar(start: usize, written: &str, text: &str, plain: bool) -> Node {
    Node {
        span: Span::new(start, start + written.len()),
        value: Value::Scalar(Scalar {
            text: text.to_string(),
            plain,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::source::Span;
    use crate::yaml::{self, Chunk, Limits};

    /// The builder's tree, where it gives one, is the parser's.
    pub(super) fn same_as_parser(text: &str) -> bool {
        let Some(ours) = parse(text, 200) else {
            return false;
        };
        let theirs = yaml::parse_document(
            text,
            Chunk {
                span: Span::new(0, text.len()),
            },
            Limits::default(),
        )
        .expect("the scanner accepted it, so it parses");
        assert_eq!(ours.root, theirs.root, "{text}");
        let spans = |d: &yaml::Document| {
            d.comments
                .iter()
                .map(|c| (c.span, c.text.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(spans(&ours), spans(&theirs), "{text}");
        true
    }

    #[test]
    fn builds_the_parsers_tree() {
        for text in [
            "# Source: a.yaml\n---\napiVersion: v1 # x\nkind: Pod\nmetadata:\n  labels: {}\n  name: \"a b\"\n  e:\n  f: []\n  refs:\n  - apiVersion: x\n    k: y\n  -\n  - z\n  - \"q\"\n  - []\n  l:\n  - a: 1\n  - b\n  n: null\n  s: 'it''s'\n  # inside\n  last:\n# after\n",
            "a:\n- b: 1\n  c:\n  - d\n- e\nf: g\n",
            "a:\n  b:\n    c: 1 # one\n  d: 2\n",
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n",
        ] {
            assert!(same_as_parser(text), "declined: {text}");
        }
    }

    #[test]
    fn leaves_other_shapes_to_the_parser() {
        for text in [
            "a: |\n  x\n",
            "a: \"x\\ty\"\n",
            "a: b \n",
            "a: long\n  line\n",
            "a: {b: c}\n",
            "a: [b]\n",
            // A comment between an item's `-` and its content.
            "a:\n  b:\n  -\n# c\n    d: x\n",
            "a:\n  b:\n    -\n  # c\n      d: x\n  e: z\n",
        ] {
            assert!(parse(text, 200).is_none(), "{text}");
        }
    }
}
