//! Tabs where libyaml reads them otherwise than YAML 1.2: read as spaces at the start of a line
//! inside a flow collection, and refused where an indentation space is expected.

use granit_parser::{Event, Parser, ScalarStyle};

use super::parser::libyaml_options;
use super::{Limits, Node, SyntaxError, Value};
use crate::source::Span;

/// libyaml reads a tab as a space in the blanks that start a line inside a flow collection
/// (`{…}`, `[…]`: JSON or flow YAML indented with tabs), which the parser, following YAML 1.2,
/// takes for indentation of the block collection around it. It does not when the line goes on
/// from a plain scalar that ends the line before (`{name: a⏎⇥b}`): that scalar reads the blanks
/// as its own and refuses a tab left of the block's indentation, as the parser does. `slice`
/// with the tabs that libyaml reads as spaces made spaces (one byte for one: every offset
/// stays), or `None` when there are none or the text does not parse even so.
pub(super) fn flow_tabs_as_spaces(slice: &str, limits: Limits) -> Option<String> {
    // Where the flow collections and the scalars are, read with every tab that starts a line
    // made a space.
    let relaxed = leading_tabs_as_spaces(slice, |_| true);
    let mut flows = Vec::new();
    let mut quoted = Vec::new();
    let mut plain = Vec::new();
    let mut open: Vec<Option<usize>> = Vec::new();
    for event in Parser::new_from_str_with_options(&relaxed, libyaml_options(limits)) {
        let (event, span) = event.ok()?;
        let range = span.byte_range().unwrap_or(0..0);
        match event {
            Event::MappingStart(style, ..) | Event::SequenceStart(style, ..) => {
                open.push((style == granit_parser::StructureStyle::Flow).then_some(range.start))
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Some(start)) = open.pop() {
                    flows.push(start..range.end.max(start));
                }
            }
            Event::Scalar(_, style, ..) if !range.is_empty() => match style {
                ScalarStyle::Plain => plain.push(range),
                ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => quoted.push(range),
                _ => {}
            },
            _ => {}
        }
    }
    // Lines are asked for in order: each kind of range is swept once.
    let sweep = |mut ranges: Vec<std::ops::Range<usize>>| {
        ranges.sort_by_key(|r| r.start);
        let (mut next, mut open) = (0, Vec::new());
        move |at: usize| {
            while let Some(range) = ranges.get(next).filter(|r| r.start < at) {
                open.push(range.end);
                next += 1;
            }
            open.retain(|&end| at < end);
            !open.is_empty()
        }
    };
    let (mut in_flow, mut in_quotes) = (sweep(flows), sweep(quoted));
    let plain_ends: std::collections::HashSet<usize> = plain.iter().map(|r| r.end).collect();
    let bytes = slice.as_bytes();
    let spaced = leading_tabs_as_spaces(slice, |line_start| {
        let (flow, quoted) = (in_flow(line_start), in_quotes(line_start));
        if !flow || quoted {
            return false;
        }
        // The blanks before this line, back to the last text: a plain scalar that ends there
        // reads them (and this line's) as its own.
        let text_end = bytes[..line_start]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        !plain_ends.contains(&text_end)
    });
    (spaced != slice).then_some(spaced)
}

/// `text` with each tab among the blanks that start a line made a space, on the lines whose
/// start offset `take` accepts (asked, in order, of the lines that hold such a tab).
fn leading_tabs_as_spaces(text: &str, mut take: impl FnMut(usize) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let blanks = line.len() - line.trim_start_matches([' ', '\t']).len();
        if line[..blanks].contains('\t') && take(line_start) {
            out.push_str(&line[..blanks].replace('\t', " "));
            out.push_str(&line[blanks..]);
        } else {
            out.push_str(line);
        }
        line_start += line.len();
    }
    out
}

/// libyaml refuses a tab where an indentation space is expected: among the blanks that start
/// a line (one of only blanks too) in a block collection, before a block scalar's indentation or
/// before a plain scalar's continuation indentation (the collection's column, plus one); and
/// in the blanks after a block indicator that starts a line's content (`-`, `?`, and the `:` of
/// an explicit key), where a simple key may start. It reads such a tab inside quotes or a flow
/// collection (`flows`), and a tab that separates a key's `:` from its value. The parser reads
/// these tabs as blanks (YAML 1.2), so they are checked here, against the tree's spans.
pub(super) fn check_tab_lines(
    slice: &str,
    base: usize,
    root: &Node,
    flows: &[Span],
    blocks: &[usize],
) -> Result<(), SyntaxError> {
    let mut places = Places {
        scalars: Vec::new(),
        blocks,
    };
    places.collect(slice, base, root, 0, false);
    let mut scalars = places.scalars;
    // Merged and aliased nodes keep the spans of what they copy.
    scalars.sort_by_key(|s| s.span.start);
    // The flow collections by where they start, and those open at the line being read (each
    // line is looked at once, in order, whatever the number of collections).
    let mut flows = flows.to_vec();
    flows.sort_by_key(|f| f.start);
    let mut next_flow = 0;
    let mut open_flows: Vec<Span> = Vec::new();
    let mut line_start = 0;
    // Where the text before the line ends (past its last character that is not a blank).
    let mut text_end = 0;
    for line in slice.split_inclusive('\n') {
        let start = line_start;
        line_start += line.len();
        let text_before = text_end;
        if !line.trim().is_empty() {
            text_end = start + line.trim_end().len();
        }
        let text = line.trim_end_matches(['\n', '\r']);
        if !text.contains('\t') {
            continue;
        }
        let lead = text.len() - text.trim_start_matches([' ', '\t']).len();
        let blank = lead == text.len();
        // A tab among the blanks that start the line, else one after a block indicator.
        let (tab, after_indicator) = match text[..lead].find('\t') {
            Some(tab) => (tab, false),
            None => match indicator_tab(text, lead) {
                Some(tab) => (tab, true),
                None => continue,
            },
        };
        let at = base + start;
        // Where the line's text starts (a line of only blanks: where it starts).
        let text_at = if blank { at } else { at + lead };
        let inside = |span: Span| span.start < text_at && text_at < span.end;
        while let Some(&flow) = flows.get(next_flow).filter(|f| f.start < text_at) {
            open_flows.push(flow);
            next_flow += 1;
        }
        open_flows.retain(|flow| text_at < flow.end);
        if !open_flows.is_empty() {
            continue;
        }
        // The scalar the line's text is in (or starts), or else the last one before it.
        let holds = |span: Span| span.start <= text_at && text_at < span.end;
        let before = scalars.partition_point(|s| {
            if blank {
                s.span.start < at
            } else {
                s.span.start <= text_at
            }
        });
        let around = before
            .checked_sub(1)
            .and_then(|i| scalars.get(i))
            .filter(|s| holds(s.span) || s.span.end <= text_at);
        let (indent, message) = match around {
            Some(s) if s.style == TabContext::Quoted && inside(s.span) => continue,
            // What a line inside a scalar holds after its indentation is text.
            Some(s) if after_indicator && s.style != TabContext::Other && holds(s.span) => {
                continue;
            }
            // A block scalar reads the lines in and after it as its own: what those indented
            // as its first holds after the indentation is text.
            Some(s) if s.style == TabContext::Block => {
                let indent = column(slice, s.span.start - base);
                if after_indicator && lead >= indent {
                    continue;
                }
                // Until its first line of text, a block scalar without an indentation
                // indicator is finding its indentation, and refuses any tab among the blanks.
                let finding =
                    s.span.start >= at && !explicit_indentation(slice, s.span.start - base);
                (
                    if finding { usize::MAX } else { indent },
                    "found a tab character where an indentation space is expected",
                )
            }
            // A plain scalar that goes on, or ends the text before the line, reads its blanks.
            Some(s)
                if s.style == TabContext::Plain
                    && !after_indicator
                    && (holds(s.span) || s.span.end == base + text_before) =>
            {
                (s.indent, "found a tab character that violates indentation")
            }
            _ => (usize::MAX, "found character that cannot start any token"),
        };
        if tab >= indent {
            continue;
        }
        return Err(SyntaxError {
            offset: at + tab,
            message: message.to_string(),
            hint: Some(if blank {
                "a line of only blanks holds a tab where Kubernetes' YAML reader expects spaces: remove the tab"
            } else {
                "Kubernetes' YAML reader takes a tab for a space only inside flow collections (`{…}`, `[…]`), quotes and text, and between a key's `:` and its value; indent block collections, and separate `-`, `?` and `:` from what follows, with spaces"
            }),
        });
    }
    Ok(())
}

/// Where the blanks after the block indicators that start the content of `text` (at `lead`)
/// hold a tab: `-` or `?` (`- - ⇥x`), or the `:` of an explicit key, each followed by blanks.
fn indicator_tab(text: &str, lead: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = lead;
    while let Some(&indicator) = bytes.get(at) {
        let is_indicator =
            indicator == b'-' || indicator == b'?' || (indicator == b':' && at == lead);
        if !is_indicator || !matches!(bytes.get(at + 1), Some(b' ' | b'\t')) {
            return None;
        }
        let blanks = &text[at + 1..];
        let width = blanks.len() - blanks.trim_start_matches([' ', '\t']).len();
        if let Some(tab) = blanks[..width].find('\t') {
            return Some(at + 1 + tab);
        }
        at += 1 + width;
    }
    None
}

/// How a scalar reads the blank lines in and after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TabContext {
    Quoted,
    Block,
    /// A plain value, whose continuation lines are read up to the next key.
    Plain,
    /// A key, or an empty value: the next line starts a token.
    Other,
}

struct ScalarPlace {
    span: Span,
    style: TabContext,
    /// For a plain value: the column its continuation lines must reach.
    indent: usize,
}

/// What lines with tabs are checked against (with the flow collections, in which a tab is read
/// as a space).
struct Places<'a> {
    scalars: Vec<ScalarPlace>,
    /// Where each block scalar (`|`, `>`) starts: at its text, in order.
    blocks: &'a [usize],
}

impl Places<'_> {
    /// Every scalar under `node` in document order, with how it reads blank lines (`parent` is
    /// the column of the block collection it is in).
    fn collect(&mut self, slice: &str, base: usize, node: &Node, parent: usize, key: bool) {
        let local = node.span.start.saturating_sub(base).min(slice.len());
        let column = column(slice, local);
        let first = slice.as_bytes().get(local);
        match &node.value {
            Value::Scalar(_) => {
                let style = match first {
                    _ if node.span.is_empty() || key => TabContext::Other,
                    _ if self.blocks.binary_search(&node.span.start).is_ok() => TabContext::Block,
                    Some(b'"' | b'\'') => TabContext::Quoted,
                    _ => TabContext::Plain,
                };
                self.scalars.push(ScalarPlace {
                    span: node.span,
                    style,
                    indent: parent + 1,
                });
            }
            Value::Map(entries) => {
                for (k, v) in entries {
                    self.collect(slice, base, k, column, true);
                    self.collect(slice, base, v, column, false);
                }
            }
            Value::Seq(items) => {
                for item in items {
                    self.collect(slice, base, item, column, false);
                }
            }
        }
    }
}

/// Whether the header of the block scalar whose text starts at `local` of `slice` (`|2`, `>-4`)
/// gives its indentation: the last line before the text that is not blank holds the header.
fn explicit_indentation(slice: &str, local: usize) -> bool {
    let before = &slice[..local.min(slice.len())];
    let header = before
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    header
        .find(['|', '>'])
        .is_some_and(|at| header[at + 1..].chars().take(2).any(|c| c.is_ascii_digit()))
}

/// The column of offset `local` of `slice` (in bytes: what precedes it on its line is blanks
/// wherever a column is asked for).
fn column(slice: &str, local: usize) -> usize {
    let local = local.min(slice.len());
    local - slice[..local].rfind('\n').map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse_stream;
    use super::*;

    #[test]
    fn tabs_are_read_where_libyaml_reads_them() {
        // Inside a flow collection, at the start of a line: a space, spans as written.
        let text = "metadata: {\n\tname: web,\n\n\t\n\tlabels: [\n\t\t\"a\"\n\t]\n}\n";
        let docs = parse_stream(text);
        let root = docs[0]
            .as_ref()
            .expect("read")
            .root
            .as_ref()
            .expect("a root");
        let name = root
            .get("metadata")
            .and_then(|m| m.get("name"))
            .expect("name");
        assert_eq!(name.as_str(), Some("web"));
        assert_eq!(&text[name.span.start..name.span.end], "web");
        let label = &root
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(Node::as_seq)
            .expect("labels")[0];
        assert_eq!(&text[label.span.start..label.span.end], "\"a\"");
        // Between a key's `:` and its value, and before a comment.
        assert!(parse_stream("a:\tb\t# c\nc: [1,\t2]\n")[0].is_ok());
        // A block scalar's text keeps its tabs.
        let docs = parse_stream("a: |\n  x\n  \ty\n");
        let root = docs[0]
            .as_ref()
            .expect("read")
            .root
            .as_ref()
            .expect("a root");
        assert_eq!(root.get("a").and_then(Node::as_str), Some("x\n\ty\n"));
    }

    #[test]
    fn tabs_are_refused_where_libyaml_refuses_them() {
        let refused = |text: &str| {
            parse_stream(text)
                .into_iter()
                .find_map(Result::err)
                .map(|e| (e.offset, e.message))
        };
        let cannot_start = "found character that cannot start any token".to_string();
        // Block indentation, after the spaces of indentation, after `-`, `?` and an explicit
        // key's `:`, and before a comment line.
        assert!(refused("a:\n\tb: c\n").is_some());
        assert_eq!(refused("a:\n  \tb: c\n"), Some((5, cannot_start.clone())));
        assert_eq!(refused("- a\n-\tb\n"), Some((5, cannot_start.clone())));
        assert_eq!(refused("- a\n- \tb\n"), Some((6, cannot_start.clone())));
        assert_eq!(refused("? a\n:\tb\n"), Some((5, cannot_start.clone())));
        assert_eq!(refused("?\ta\n: b\n"), Some((1, cannot_start.clone())));
        assert_eq!(refused("a: [1]\n\t# c\n"), Some((7, cannot_start)));
        // A plain scalar that ends its line reads the blanks of the next, in a flow
        // collection too, and refuses a tab left of the block's indentation plus one.
        assert!(refused("a: {b: c\n\t}\n").is_some());
        assert!(refused("a: {b: c\n\td}\n").is_some());
        assert!(refused("a: {b: c,\n\td: e}\n").is_none());
        assert!(refused("a: {b: \"c\"\n\t}\n").is_none());
        // A block scalar finding its indentation refuses a tab among the blanks.
        assert_eq!(
            refused("a: |\n  \tx\n"),
            Some((
                7,
                "found a tab character where an indentation space is expected".into()
            ))
        );
    }
}
