//! One document parsed with granit-parser, set to read what libyaml reads, into the span tree;
//! the limits on what a document may cost, and syntax errors as they are reported.

use std::collections::HashMap;

use granit_parser::{Event, Options, Parser, ScalarStyle};

use super::merge_keys::{apply_merges, is_merge_key};
use super::scalar_type::typed_by_text;
use super::tabs::{check_tab_lines, flow_tabs_as_spaces};
use super::{Chunk, Comment, Document, Node, Scalar, Value, split_documents};
use crate::source::Span;

/// Limits on what one document may cost; real manifests never come near them.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of mappings and sequences.
    pub max_depth: usize,
    /// Most nodes that aliases may copy into one document.
    pub max_alias_nodes: usize,
    /// Largest document (or item of a `kind: List`) that is parsed, in bytes.
    pub max_document_size: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 200,
            max_alias_nodes: 100_000,
            max_document_size: 512 << 20,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset in the source.
    pub offset: usize,
    pub message: String,
    /// How to fix it, when the kind of error says more than "fix the syntax".
    pub hint: Option<&'static str>,
}

/// The root of each document of `text` that parses and has content (a small configuration
/// file: a kustomization, a `Chart.yaml`, an annotation's YAML), in order.
pub fn roots(text: &str) -> Vec<Node> {
    split_documents(text, 0)
        .into_iter()
        .filter_map(|chunk| parse_document(text, chunk, Limits::default()).ok()?.root)
        .collect()
}

/// Parse one chunk of `text` into a span tree. Offsets in the result are offsets in `text`.
pub fn parse_document(text: &str, chunk: Chunk, limits: Limits) -> Result<Document, SyntaxError> {
    parse_at(
        &text[chunk.span.start..chunk.span.end],
        chunk.span.start,
        limits,
    )
}

/// Parse `slice`, which starts at `base` in its source, into a span tree. Offsets in the result
/// are offsets in the source.
pub fn parse_at(slice: &str, base: usize, limits: Limits) -> Result<Document, SyntaxError> {
    match parse_text(slice, base, limits) {
        // A tab the parser took for indentation may be one that libyaml reads as a space.
        Err(Failure {
            error,
            tab_as_indentation: true,
        }) => match flow_tabs_as_spaces(slice, limits) {
            Some(spaced) => parse_text(&spaced, base, limits).map_err(|f| f.error),
            None => Err(error),
        },
        read => read.map_err(|f| f.error),
    }
}

/// Why [`parse_text`] refused a text.
struct Failure {
    error: SyntaxError,
    /// The parser refused a tab where it expected an indentation space.
    tab_as_indentation: bool,
}

impl From<SyntaxError> for Failure {
    fn from(error: SyntaxError) -> Self {
        Failure {
            error,
            tab_as_indentation: false,
        }
    }
}

/// Parse `slice` (see [`parse_at`]), telling a tab taken for indentation from other errors.
fn parse_text(slice: &str, base: usize, limits: Limits) -> Result<Document, Failure> {
    let parser = Parser::new_from_str_with_options(slice, libyaml_options(limits));
    let mut builder = Builder::new(base, slice, limits);
    for event in parser {
        match event {
            Ok((event, span)) => {
                let range = span.byte_range().unwrap_or(0..0);
                builder.event(event, Span::new(range.start + base, range.end + base))?;
                if builder.done {
                    break;
                }
            }
            Err(err) => {
                let mut offset = base + err.marker().byte_offset().unwrap_or(err.marker().index());
                let tab_as_indentation =
                    matches!(err.kind(), granit_parser::ErrorKind::TabInBlockIndentation);
                if tab_as_indentation {
                    // The parser stops past the blanks: the finding points at the tab.
                    let local = (offset - base).min(slice.len());
                    let line = slice[..local].rfind('\n').map_or(0, |i| i + 1);
                    if let Some(tab) = slice[line..local].find('\t') {
                        offset = base + line + tab;
                    }
                }
                let error = match err.kind() {
                    granit_parser::ErrorKind::RecursionLimitExceeded => SyntaxError {
                        offset,
                        message: format!(
                            "mappings and lists nest deeper than {} levels (the --max-depth limit)",
                            limits.max_depth
                        ),
                        hint: Some(
                            "real manifests stay far below this limit; raise it with --max-depth if this one is meant to",
                        ),
                    },
                    kind => SyntaxError {
                        offset,
                        message: err.info(),
                        hint: if matches!(kind, granit_parser::ErrorKind::UnknownAnchor) {
                            Some(
                                "a plain value that starts with `*` is an alias to an anchor; quote it (`\"*value\"`) if it is text",
                            )
                        } else if slice.lines().any(|line| line.starts_with('%')) {
                            Some(
                                "kubectl splits a stream at its `---` lines before it parses, so a `%YAML` or `%TAG` directive is cut off from the document after it and refused: remove the directive",
                            )
                        } else {
                            None
                        },
                    },
                };
                return Err(Failure {
                    error,
                    tab_as_indentation,
                });
            }
        }
    }
    let (flows, blocks) = (
        std::mem::take(&mut builder.flows),
        std::mem::take(&mut builder.blocks),
    );
    let document = builder.finish();
    if let Some(root) = &document.root
        && memchr::memchr(b'\t', slice.as_bytes()).is_some()
    {
        check_tab_lines(slice, base, root, &flows, &blocks)?;
    }
    Ok(document)
}

/// The parser reads what libyaml reads, the library Kubernetes' own reader (go-yaml) is a port
/// of, rather than the strictest reading of the YAML 1.2 specification.
pub(super) fn libyaml_options(limits: Limits) -> Options {
    granit_parser::options! {
        // Quoted scalars continued at or below their key's indentation, and tabs before such a
        // continuation (older controller-gen writes CRD descriptions this way).
        strict_indentation: false,
        // libyaml adds no line feed to a block scalar that ends the input without one. (A BOM
        // inside a document stays an error: libyaml skips it but counts its column, so the
        // lines after it are indented wrongly.)
        block_scalar_eof_without_line_feed: true,
        // libyaml has no limit on comments between a key and its value; the document's size
        // limit bounds them.
        max_buffered_comment_events: usize::MAX,
        block_nesting_limit: limits.max_depth,
        flow_nesting_limit: limits.max_depth,
    }
}

enum Open {
    Map {
        start: usize,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        anchor: usize,
        /// Whether a `<<` merge key was seen: the entries are merged when the mapping ends.
        merges: bool,
    },
    Seq {
        start: usize,
        items: Vec<Node>,
        block: bool,
        anchor: usize,
    },
}

struct Builder<'a> {
    base: usize,
    slice: &'a str,
    limits: Limits,
    stack: Vec<Open>,
    root: Option<Node>,
    comments: Vec<Comment>,
    anchors: HashMap<usize, Node>,
    aliased: Vec<Span>,
    alias_nodes: usize,
    seen_document: bool,
    done: bool,
    /// For each open collection, where it starts when it is a flow collection.
    open_flows: Vec<Option<usize>>,
    /// Each flow collection, from its `{` or `[` to its closing bracket.
    flows: Vec<Span>,
    /// Where each block scalar starts (at its text), in order.
    blocks: Vec<usize>,
}

impl<'a> Builder<'a> {
    fn new(base: usize, slice: &'a str, limits: Limits) -> Self {
        Builder {
            base,
            slice,
            limits,
            stack: Vec::new(),
            root: None,
            comments: Vec::new(),
            anchors: HashMap::new(),
            aliased: Vec::new(),
            alias_nodes: 0,
            seen_document: false,
            done: false,
            open_flows: Vec::new(),
            flows: Vec::new(),
            blocks: Vec::new(),
        }
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), SyntaxError> {
        match &event {
            Event::MappingStart(style, ..) | Event::SequenceStart(style, ..) => self
                .open_flows
                .push((*style == granit_parser::StructureStyle::Flow).then_some(span.start)),
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Some(start)) = self.open_flows.pop() {
                    self.flows.push(Span::new(start, span.end.max(start)));
                }
            }
            Event::Scalar(_, ScalarStyle::Literal | ScalarStyle::Folded, ..) => {
                self.blocks.push(span.start);
            }
            _ => {}
        }
        match event {
            Event::DocumentStart(..) => {
                // A chunk holds one document; a second start means the chunk was cut wrongly
                // (it cannot be, but never read two documents as one).
                if self.seen_document {
                    self.done = true;
                }
                self.seen_document = true;
            }
            Event::Comment(text, _) => self.comments.push(Comment {
                span,
                text: text.into_owned(),
            }),
            Event::Scalar(text, style, anchor, tag) => {
                let plain = match tag {
                    None => style == ScalarStyle::Plain,
                    Some(tag) => typed_by_text(&tag, &text).map_err(|message| SyntaxError {
                        offset: span.start,
                        message,
                        hint: Some(
                            "remove the tag, or write a value of its type; `!!str` makes any value a string",
                        ),
                    })?,
                };
                let node = Node {
                    span,
                    value: Value::Scalar(Scalar {
                        text: text.into_owned(),
                        plain,
                    }),
                };
                self.remember(anchor, &node);
                self.push(node);
            }
            Event::MappingStart(_, anchor, _) => self.stack.push(Open::Map {
                start: span.start,
                entries: Vec::new(),
                key: None,
                anchor,
                merges: false,
            }),
            Event::SequenceStart(style, anchor, _) => self.stack.push(Open::Seq {
                start: span.start,
                items: Vec::new(),
                block: style == granit_parser::StructureStyle::Block,
                anchor,
            }),
            Event::MappingEnd | Event::SequenceEnd => {
                let Some(open) = self.stack.pop() else {
                    return Ok(());
                };
                let node = match open {
                    Open::Map {
                        start,
                        entries,
                        anchor,
                        merges,
                        ..
                    } => {
                        let end = entries
                            .last()
                            .map_or(span.end, |(_, v)| v.span.end)
                            .max(start);
                        let entries = if merges {
                            apply_merges(entries)?
                        } else {
                            entries
                        };
                        let node = Node {
                            span: Span::new(start, end),
                            value: Value::Map(entries),
                        };
                        self.remember(anchor, &node);
                        node
                    }
                    Open::Seq {
                        start,
                        items,
                        anchor,
                        ..
                    } => {
                        let end = items.last().map_or(span.end, |n| n.span.end).max(start);
                        let start = items.first().map_or(start, |n| n.span.start.min(start));
                        let node = Node {
                            span: Span::new(start, end),
                            value: Value::Seq(items),
                        };
                        self.remember(anchor, &node);
                        node
                    }
                };
                self.push(node);
            }
            Event::Alias(id) => {
                let Some(target) = self.anchors.get(&id) else {
                    return Ok(());
                };
                self.alias_nodes += target.count();
                if self.alias_nodes > self.limits.max_alias_nodes {
                    return Err(SyntaxError {
                        offset: span.start,
                        message: format!(
                            "aliases expand to more than {} nodes in one document (the --max-alias-nodes limit)",
                            self.limits.max_alias_nodes
                        ),
                        hint: Some(
                            "many nested aliases (a \"billion laughs\") multiply a small file into a huge one; raise the limit with --max-alias-nodes only for a file you trust",
                        ),
                    });
                }
                self.aliased.push(target.span);
                let mut copy = target.clone();
                copy.span = span;
                self.push(copy);
            }
            Event::UnresolvedAlias(name) => {
                return Err(SyntaxError {
                    offset: span.start,
                    message: format!("unknown anchor '{name}'"),
                    hint: None,
                });
            }
            // Document ends, stream markers and anchor metadata carry nothing we keep.
            _ => {}
        }
        Ok(())
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
    }

    fn push(&mut self, mut node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Open::Map {
                entries,
                key,
                merges,
                ..
            }) => match key.take() {
                None => *key = Some(node),
                Some(k) => {
                    *merges |= is_merge_key(&k);
                    entries.push((k, node));
                }
            },
            Some(Open::Seq { items, block, .. }) => {
                // A collection item is the whole entry from its `-`; a scalar item is its
                // value, unless it is empty (`-` alone).
                let is_scalar = matches!(node.value, Value::Scalar(_));
                if *block && (!is_scalar || node.span.is_empty()) {
                    node.span.start = dash_before(self.slice, self.base, node.span.start);
                }
                items.push(node);
            }
        }
    }

    fn finish(self) -> Document {
        Document {
            root: self.root,
            comments: self.comments,
            aliased: self.aliased,
        }
    }
}

/// The offset of the `-` indicator of a block sequence item whose content starts at `start`.
fn dash_before(slice: &str, base: usize, start: usize) -> usize {
    let local = start.saturating_sub(base).min(slice.len());
    let before = &slice.as_bytes()[..local];
    let mut i = local;
    while i > 0 && matches!(before[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
        i -= 1;
    }
    if i > 0 && before[i - 1] == b'-' {
        base + i - 1
    } else {
        start
    }
}

/// Every document of `text`, each parsed on its own.
#[cfg(test)]
pub(super) fn parse_stream(text: &str) -> Vec<Result<Document, SyntaxError>> {
    split_documents(text, 0)
        .into_iter()
        .map(|c| parse_document(text, c, Limits::default()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_source_bytes() {
        let text = "x: 1\n---\nmeta:\n  refs:\n  - name: a\n    uid: \"u\"\n";
        let docs = parse_stream(text);
        let root = docs[1].as_ref().unwrap().root.as_ref().unwrap();
        let item = &root
            .get("meta")
            .unwrap()
            .get("refs")
            .unwrap()
            .as_seq()
            .unwrap()[0];
        assert_eq!(&text[item.span.start..item.span.start + 3], "- n");
        let uid = item.get("uid").unwrap();
        assert_eq!(&text[uid.span.start..uid.span.end], "\"u\"");
        assert_eq!(uid.as_str(), Some("u"));
    }

    #[test]
    fn a_syntax_error_stays_in_its_document() {
        let docs = parse_stream("a: [\n---\nb: 2\n");
        assert!(docs[0].is_err());
        assert_eq!(docs[0].as_ref().unwrap_err().offset, 3);
        assert!(docs[1].as_ref().unwrap().root.is_some());
    }

    #[test]
    fn alias_expansion_is_bounded() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for name in ['b', 'c', 'd', 'e', 'f', 'g'] {
            text.push_str(&format!(
                "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
            prev = name;
        }
        let err = parse_stream(&text).remove(0).unwrap_err();
        assert!(err.message.contains("aliases expand"), "{}", err.message);
    }
}
