//! YAML (and JSON, which YAML 1.2 contains) into our own span tree.
//!
//! Documents are split at column-0 `---` and `...` lines first (such a line cannot be content
//! in YAML 1.2), so a syntax error in one document never hides the others, and each document is
//! then parsed on its own with granit-parser. The tree keeps what a rule can point at: every
//! node's byte span in the source, and for scalars their text and whether they were quoted.

use std::collections::HashMap;

use granit_parser::{Event, Options, Parser, ScalarStyle};

use crate::source::{Span, Text};

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

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Map(Vec<(Node, Node)>),
    /// Mapping and sequence items of a block sequence, and empty ones, have spans that start
    /// at their `-` indicator.
    Seq(Vec<Node>),
    Scalar(Scalar),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub text: String,
    /// Plain scalars are typed by their text (`true`, `12`, `null`); quoted and block scalars
    /// are always strings.
    pub plain: bool,
}

/// The type a YAML scalar resolves to when Kubernetes tooling (sigs.k8s.io/yaml, which follows
/// YAML 1.1 through go-yaml v2) reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarType {
    Null,
    Bool(bool),
    Number,
    String,
}

impl Scalar {
    pub fn resolve(&self) -> ScalarType {
        if !self.plain {
            return ScalarType::String;
        }
        resolve_plain(&self.text)
    }
}

fn resolve_plain(text: &str) -> ScalarType {
    // Most plain scalars are names: longer than any keyword and not starting like a number.
    if text.len() > 5
        && text.as_bytes()[0].is_ascii_alphabetic()
        && !matches!(text.as_bytes()[0], b'e' | b'E')
    {
        return ScalarType::String;
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => ScalarType::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            ScalarType::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            ScalarType::Bool(false)
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => ScalarType::Number,
        _ if looks_numeric(text) => ScalarType::Number,
        _ => ScalarType::String,
    }
}

fn looks_numeric(text: &str) -> bool {
    let t = text.strip_prefix(['+', '-']).unwrap_or(text);
    if let Some(hex) = t.strip_prefix("0x") {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
    }
    if let Some(oct) = t.strip_prefix("0o") {
        return !oct.is_empty() && oct.chars().all(|c| ('0'..='7').contains(&c) || c == '_');
    }
    // Decimal integers and floats, with optional exponent: 12, 1_000, 3.5, .5, 1e3, 6.02e+23.
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    // Underscores separate digits and count as nothing.
    let (whole, frac) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    let has_digits = |s: &str| s.bytes().any(|b| b.is_ascii_digit());
    let whole_ok = digits(whole);
    let frac_ok = frac.is_none_or(digits);
    let has_digit = has_digits(whole) || frac.is_some_and(has_digits);
    let exp_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
    });
    whole_ok
        && frac_ok
        && has_digit
        && exp_ok
        && (exponent.is_none() || frac.is_some() || has_digits(whole))
}

impl Node {
    /// The value under `key` in a mapping; the last one when a key repeats, as Kubernetes'
    /// YAML reader keeps it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The key and value under `key` in a mapping.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k.as_scalar().is_some_and(|s| s.text == key))
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The text of a scalar that is a string (or any non-null scalar in YAML, where Kubernetes
    /// reads it as text when it is not of another type).
    pub fn as_str(&self) -> Option<&str> {
        match self.as_scalar()?.resolve() {
            ScalarType::String => self.as_scalar().map(|s| s.text.as_str()),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        self.as_scalar()
            .is_some_and(|s| s.resolve() == ScalarType::Null)
    }

    /// A short description of what the node is, for messages ("a mapping", "the number 12").
    pub fn describe(&self) -> String {
        match &self.value {
            Value::Map(_) => "a mapping".to_string(),
            Value::Seq(_) => "a list".to_string(),
            Value::Scalar(s) => match s.resolve() {
                ScalarType::Null => "null".to_string(),
                ScalarType::Bool(b) => format!("the boolean {b}"),
                ScalarType::Number => format!("the number {}", s.text),
                ScalarType::String => format!("the string \"{}\"", s.text),
            },
        }
    }

    fn count(&self) -> usize {
        match &self.value {
            Value::Scalar(_) => 1,
            Value::Seq(items) => 1 + items.iter().map(Node::count).sum::<usize>(),
            Value::Map(entries) => {
                1 + entries
                    .iter()
                    .map(|(k, v)| k.count() + v.count())
                    .sum::<usize>()
            }
        }
    }
}

/// One `---`-separated document of a YAML stream, as a byte range of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub span: Span,
}

/// Split a YAML stream at column-0 `---` (document start) and `...` (document end) lines.
/// Each chunk starts at its `---` line, so the marker and anything after it on the line stay
/// with their document.
pub fn split_documents(text: &str, start: usize) -> Vec<Chunk> {
    split_text(&Text::Owned(std::sync::Arc::new(text.to_string())), start)
}

/// [`split_documents`] of a source's text, which a big file's passes read a slice at a time.
/// (A slice that cannot be read finds nothing; the text is then marked changed.)
pub fn split_text(text: &Text, start: usize) -> Vec<Chunk> {
    let len = text.len();
    let read = |range: std::ops::Range<usize>| text.bytes(range).unwrap_or_default();
    // Marker lines start the text or follow a newline; searching for the newline and marker
    // together skips the content in between at memory speed, a big text's slices in parallel.
    // Each line found is told apart while its slice is read.
    let marker_lines = |range: std::ops::Range<usize>| {
        // The search reaches into the next slice by a marker's length, less one; the bytes
        // read, one further, to tell the marker that starts at the slice's end.
        let found = text.with_bytes(range.start..(range.end + 4).min(len), |bytes| {
            let window = &bytes[..bytes.len().min(range.len() + 3)];
            let mut found: Vec<(usize, Marker)> = memchr::memmem::find_iter(window, b"\n---")
                .chain(memchr::memmem::find_iter(window, b"\n..."))
                .map(|i| range.start + i + 1)
                .filter(|&line| line > start && line <= range.end)
                .filter_map(|line| Some((line, Marker::of(&bytes[line - range.start..])?)))
                .collect();
            found.sort_unstable_by_key(|&(line, _)| line);
            found
        });
        found.unwrap_or_default()
    };
    let first = Marker::of(&read(start..(start + 4).min(len))).map(|m| (start, m));
    let lines = crate::source::find_in_slices(len, marker_lines);
    // The end of the line at `at` (past its newline), read a block at a time.
    let next_line = |mut at: usize| {
        while at < len {
            let to = (at + (64 << 10)).min(len);
            if let Some(i) = memchr::memchr(b'\n', &read(at..to)) {
                return at + i + 1;
            }
            at = to;
        }
        len
    };
    let mut chunks = Vec::new();
    let mut chunk_start = start;
    for (offset, marker) in first.into_iter().chain(lines) {
        match marker {
            Marker::Start => {
                if offset > chunk_start {
                    chunks.push(Chunk {
                        span: Span::new(chunk_start, offset),
                    });
                }
                chunk_start = offset;
            }
            Marker::End if offset >= chunk_start => {
                chunks.push(Chunk {
                    span: Span::new(chunk_start, offset),
                });
                chunk_start = next_line(offset);
            }
            Marker::End => {}
        }
    }
    if len > chunk_start {
        chunks.push(Chunk {
            span: Span::new(chunk_start, len),
        });
    }
    chunks
}

/// Where the content of a document that follows a `...` line without a `---` of its own starts,
/// if it has any. libyaml refuses it (after `...` a document starts with `---`); kubectl, which
/// splits streams at `---` lines only, reads the document before the `...` and drops this one.
/// `chunk_text` is the chunk's text, or as much of its start as is read (four bytes tell).
pub fn content_after_document_end(text: &Text, chunk: Span, chunk_text: &[u8]) -> Option<usize> {
    if chunk.start == 0 || Marker::of(chunk_text) == Some(Marker::Start) {
        return None;
    }
    // The line before, which ends at the newline before the chunk, read back a block at a time
    // to its start.
    let newline = chunk.start - 1;
    if *text.bytes(newline..chunk.start).ok()? != *b"\n" {
        return None;
    }
    let mut line_start = 0;
    let mut to = newline;
    while to > 0 {
        let from = to.saturating_sub(4 << 10);
        if let Some(i) = memchr::memrchr(b'\n', &text.bytes(from..to).ok()?) {
            line_start = from + i + 1;
            break;
        }
        to = from;
    }
    let line = text
        .bytes(line_start..(line_start + 4).min(text.len()))
        .ok()?;
    if Marker::of(&line) != Some(Marker::End) {
        return None;
    }
    // Rare (a `...` line, then no `---`): the document is read whole.
    let chunk_text = text.str(chunk.start..chunk.end).ok()?;
    let mut offset = chunk.start;
    for line in chunk_text.split_inclusive('\n') {
        let content = line.trim_start();
        if !content.trim_end().is_empty() && !content.starts_with('#') {
            return Some(offset + line.len() - content.len());
        }
        offset += line.len();
    }
    None
}

/// A column-0 `---` (a document starts) or `...` (a document ends) line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Start,
    End,
}

impl Marker {
    /// The marker `line` starts with, if any.
    fn of(line: &[u8]) -> Option<Marker> {
        if is_marker(line, b"---") {
            Some(Marker::Start)
        } else if is_marker(line, b"...") {
            Some(Marker::End)
        } else {
            None
        }
    }
}

fn is_marker(line: &[u8], marker: &[u8]) -> bool {
    line.starts_with(marker)
        && line
            .get(3)
            .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

/// A YAML comment: its span (from `#` to the end of the line) and its text after `#`.
#[derive(Clone, Debug)]
pub struct Comment {
    pub span: Span,
    pub text: String,
}

/// A parsed document: its root node, if it has content, and its comments.
#[derive(Debug, Default)]
pub struct Document {
    pub root: Option<Node>,
    pub comments: Vec<Comment>,
    /// The anchored nodes that an alias repeats (`&refs` … `*refs`): an edit inside one
    /// changes every place that repeats it.
    pub aliased: Vec<Span>,
}

impl Document {
    /// Move every span (of nodes and comments) by `map`: for a document parsed from part of
    /// a text, to that text's offsets.
    pub fn map_spans(&mut self, map: impl Fn(Span) -> Span) {
        fn node(n: &mut Node, map: &dyn Fn(Span) -> Span) {
            n.span = map(n.span);
            match &mut n.value {
                Value::Map(entries) => {
                    for (k, v) in entries {
                        node(k, map);
                        node(v, map);
                    }
                }
                Value::Seq(items) => items.iter_mut().for_each(|i| node(i, map)),
                Value::Scalar(_) => {}
            }
        }
        if let Some(root) = &mut self.root {
            node(root, &map);
        }
        for span in &mut self.aliased {
            *span = map(*span);
        }
        for comment in &mut self.comments {
            comment.span = map(comment.span);
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

/// libyaml reads a tab as a space in the blanks that start a line inside a flow collection
/// (`{…}`, `[…]`: JSON or flow YAML indented with tabs), which the parser, following YAML 1.2,
/// takes for indentation of the block collection around it. It does not when the line goes on
/// from a plain scalar that ends the line before (`{name: a⏎⇥b}`): that scalar reads the blanks
/// as its own and refuses a tab left of the block's indentation, as the parser does. `slice`
/// with the tabs that libyaml reads as spaces made spaces (one byte for one: every offset
/// stays), or `None` when there are none or the text does not parse even so.
fn flow_tabs_as_spaces(slice: &str, limits: Limits) -> Option<String> {
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

/// libyaml refuses a tab where an indentation space is expected: among the blanks that start
/// a line (one of only blanks too) in a block collection, before a block scalar's indentation or
/// before a plain scalar's continuation indentation (the collection's column, plus one); and
/// in the blanks after a block indicator that starts a line's content (`-`, `?`, and the `:` of
/// an explicit key), where a simple key may start. It reads such a tab inside quotes or a flow
/// collection (`flows`), and a tab that separates a key's `:` from its value. The parser reads
/// these tabs as blanks (YAML 1.2), so they are checked here, against the tree's spans.
fn check_tab_lines(
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

/// The parser reads what libyaml reads, the library Kubernetes' own reader (go-yaml) is a port
/// of, rather than the strictest reading of the YAML 1.2 specification.
fn libyaml_options(limits: Limits) -> Options {
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

/// Whether a scalar with an explicit tag is typed by its text (`Scalar::plain`), as go-yaml v2
/// resolves tags: `!!bool`, `!!int`, `!!float` and `!!null` keep the type the text has, quoted
/// or not, and refuse text of another type; `!!str`, `!!timestamp` (a string once converted to
/// JSON) and tags outside YAML's core schema make a string.
fn typed_by_text(tag: &granit_parser::Tag, text: &str) -> Result<bool, String> {
    if tag.handle() != "tag:yaml.org,2002:" {
        return Ok(false);
    }
    let found = resolve_plain(text);
    let fits = match tag.suffix() {
        "bool" => matches!(found, ScalarType::Bool(_)),
        "int" | "float" => found == ScalarType::Number,
        "null" => found == ScalarType::Null,
        _ => return Ok(false),
    };
    if fits {
        Ok(true)
    } else {
        Err(format!(
            "cannot decode `{text}` as a !!{}: the tag does not fit the value",
            tag.suffix()
        ))
    }
}

/// A `<<` key: plain, as go-yaml and libyaml-based loaders take it (a quoted `"<<"` is a key).
fn is_merge_key(key: &Node) -> bool {
    key.as_scalar().is_some_and(|s| s.plain && s.text == "<<")
}

/// A mapping's entries with its `<<` merge keys applied as go-yaml v2 applies them, which is
/// what Kubernetes' YAML reader (sigs.k8s.io/yaml) decodes with: entries are set in order, so a
/// merged key replaces an explicit one written before the `<<` and an explicit one written after
/// replaces a merged one; of a list of mappings, the first takes precedence. Merged entries keep
/// their spans at the anchored mapping they came from.
fn apply_merges(entries: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, SyntaxError> {
    // Each entry with whether it came from a merge. Keys written twice in the mapping itself
    // stay twice (`duplicate-key` reports them); a merged key only ever replaces.
    let mut out: Vec<(Node, Node, bool)> = Vec::with_capacity(entries.len());
    let key_text = |key: &Node| key.as_scalar().map(|s| s.text.clone());
    for (key, value) in entries {
        if !is_merge_key(&key) {
            let text = key_text(&key);
            out.retain(|(k, _, merged)| !(*merged && text.is_some() && key_text(k) == text));
            out.push((key, value, false));
            continue;
        }
        let not_a_map = || SyntaxError {
            offset: value.span.start,
            message: "a `<<` merge key takes a mapping or a list of mappings".to_string(),
            hint: Some(
                "merge an anchored mapping (`<<: *base`) or a list of them (`<<: [*a, *b]`)",
            ),
        };
        let sources: Vec<&[(Node, Node)]> = match &value.value {
            Value::Map(map) => vec![map],
            // go-yaml sets the last mapping's keys first, so the first one's win.
            Value::Seq(items) => items
                .iter()
                .rev()
                .map(|item| item.as_map().ok_or_else(not_a_map))
                .collect::<Result<_, _>>()?,
            Value::Scalar(_) => return Err(not_a_map()),
        };
        for (k, v) in sources.into_iter().flatten() {
            let text = key_text(k);
            out.retain(|(old, _, _)| text.is_none() || key_text(old) != text);
            out.push((k.clone(), v.clone(), true));
        }
    }
    Ok(out.into_iter().map(|(k, v, _)| (k, v)).collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Result<Document, SyntaxError>> {
        split_documents(text, 0)
            .into_iter()
            .map(|c| parse_document(text, c, Limits::default()))
            .collect()
    }

    #[test]
    fn tabs_are_read_where_libyaml_reads_them() {
        // Inside a flow collection, at the start of a line: a space, spans as written.
        let text = "metadata: {\n\tname: web,\n\n\t\n\tlabels: [\n\t\t\"a\"\n\t]\n}\n";
        let docs = parse(text);
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
        assert!(parse("a:\tb\t# c\nc: [1,\t2]\n")[0].is_ok());
        // A block scalar's text keeps its tabs.
        let docs = parse("a: |\n  x\n  \ty\n");
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
            parse(text)
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

    #[test]
    fn splits_at_column_zero_markers_only() {
        let text = "a: 1\n---\nb: |\n  ---x\n--- # c\nc: 3\n...\n";
        let chunks = split_documents(text, 0);
        let pieces: Vec<&str> = chunks
            .iter()
            .map(|c| &text[c.span.start..c.span.end])
            .collect();
        assert_eq!(
            pieces,
            vec!["a: 1\n", "---\nb: |\n  ---x\n", "--- # c\nc: 3\n"]
        );
    }

    #[test]
    fn spans_point_at_source_bytes() {
        let text = "x: 1\n---\nmeta:\n  refs:\n  - name: a\n    uid: \"u\"\n";
        let docs = parse(text);
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
        let docs = parse("a: [\n---\nb: 2\n");
        assert!(docs[0].is_err());
        assert_eq!(docs[0].as_ref().unwrap_err().offset, 3);
        assert!(docs[1].as_ref().unwrap().root.is_some());
    }

    #[test]
    fn plain_scalars_resolve_like_kubernetes_yaml() {
        for (text, want) in [
            ("yes", ScalarType::Bool(true)),
            ("False", ScalarType::Bool(false)),
            ("~", ScalarType::Null),
            ("123", ScalarType::Number),
            ("1.5e3", ScalarType::Number),
            ("0x1F", ScalarType::Number),
            ("1.2.3", ScalarType::String),
            ("e3", ScalarType::String),
            ("abc", ScalarType::String),
            ("-", ScalarType::String),
        ] {
            let s = Scalar {
                text: text.into(),
                plain: true,
            };
            assert_eq!(s.resolve(), want, "{text}");
        }
        let quoted = Scalar {
            text: "yes".into(),
            plain: false,
        };
        assert_eq!(quoted.resolve(), ScalarType::String);
    }

    fn merged_name(metadata: &str) -> String {
        let text = format!(
            "a: &a {{name: from-a, uid: a}}\nb: &b {{name: from-b, uid: b, namespace: b}}\nmetadata:\n{metadata}"
        );
        let root = parse(&text).remove(0).unwrap().root.unwrap();
        let metadata = root.get("metadata").unwrap();
        ["name", "uid", "namespace"]
            .map(|k| metadata.get(k).and_then(Node::as_str).unwrap_or("-"))
            .join(" ")
    }

    #[test]
    fn merge_keys_are_applied_as_go_yaml_applies_them() {
        // Keys are set in order: an explicit key after the merge replaces the merged one, and a
        // merged key replaces an explicit one before it.
        assert_eq!(merged_name("  <<: *a\n  name: mine\n"), "mine a -");
        assert_eq!(merged_name("  name: mine\n  <<: *a\n"), "from-a a -");
        // Of a list, the first mapping takes precedence.
        assert_eq!(merged_name("  <<: [*a, *b]\n"), "from-a a b");
        assert_eq!(merged_name("  <<: [*b, *a]\n"), "from-b b b");
        // A quoted `<<` is an ordinary key.
        assert_eq!(merged_name("  \"<<\": *a\n  name: mine\n"), "mine - -");
        // A merged key is not a duplicate of the key it replaces.
        let text = "a: &a {name: x}\nm:\n  <<: *a\n  name: y\n";
        let root = parse(text).remove(0).unwrap().root.unwrap();
        assert_eq!(root.get("m").unwrap().as_map().unwrap().len(), 1);
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
        let err = parse(&text).remove(0).unwrap_err();
        assert!(err.message.contains("aliases expand"), "{}", err.message);
    }
}
