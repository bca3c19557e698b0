//! Load: one source into the Kubernetes objects it holds. Documents are split and parsed one at
//! a time; `kind: List` and `*List` wrappers are expanded; `# Source:` comments from `helm
//! template` give each document its template; syntax errors and unrendered templates are kept
//! as what could not be read (`Unread`, which rules report), and every other document is still
//! read.

pub mod block;
pub mod fast;
pub mod json;
pub mod scan;
pub mod structure;

use crate::fields::{Field, Kept};
use crate::model::{Mode, Object, Spanned};
use crate::source::{Part, SLICE, Source, SourceId, Span, Text};
use crate::yaml::{self, Limits, Node, Value};

/// How to decide each document's mode (DESIGN §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModeChoice {
    /// Rendered templates are applied; otherwise objects with a `metadata.uid` are a snapshot.
    #[default]
    Auto,
    Apply,
    Snapshot,
}

impl ModeChoice {
    pub const NAMES: [&str; 3] = ["auto", "apply", "snapshot"];

    /// As `--mode` and the configuration spell it.
    pub fn as_str(self) -> &'static str {
        ModeChoice::NAMES[self as usize]
    }

    pub fn parse(text: &str) -> Option<ModeChoice> {
        [ModeChoice::Auto, ModeChoice::Apply, ModeChoice::Snapshot]
            .into_iter()
            .find(|m| m.as_str() == text)
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    pub limits: Limits,
    pub mode: ModeChoice,
    /// Objects from `--context`: they exist in the cluster, and are not linted.
    pub context: bool,
    /// The fields to keep of each object before parsing (the fast path), or `None` to parse
    /// whole documents; the findings are the same.
    pub fast_path: Option<&'static crate::fields::Kept>,
    /// The fields each object holds as written for the rules that declare them
    /// (`fields::Kept::held`), with or without the fast path.
    pub held: &'static [Field],
}

#[derive(Clone, Debug, Default)]
pub struct Loaded {
    pub objects: Vec<Object>,
    /// What could not be read as objects.
    pub unread: Vec<Unread>,
    /// Documents with content (empty and comment-only documents are not counted).
    pub documents: usize,
    /// Documents that are not Kubernetes objects (values files, CI configs, …).
    pub skipped: usize,
}

/// Text the loader could not read as objects, and why; the rules `invalid-yaml` and
/// `unrendered-template` report it.
#[derive(Clone, Debug)]
pub struct Unread {
    pub source: SourceId,
    /// The template the text was rendered from (`# Source:`), when it says.
    pub origin: Option<String>,
    pub why: Why,
}

#[derive(Clone, Debug)]
pub enum Why {
    /// A syntax error. `what` names the text ("document is not valid YAML"), `others` what is
    /// read all the same ("documents of this file").
    Syntax {
        at: Span,
        message: String,
        hint: Option<&'static str>,
        what: &'static str,
        others: &'static str,
    },
    /// Text larger than `--max-document-size` (`what`: "document"), not parsed.
    TooLarge {
        at: Span,
        size: usize,
        limit: usize,
        what: &'static str,
    },
    /// Bytes that are not UTF-8, from the first bad one: the file is not read.
    NotUtf8 { at: Span },
    /// Template text (`{{ … }}`) that was never rendered.
    Template { at: Span },
    /// A chart or an overlay that could not be built (`at`: where the tool said, or its
    /// `Chart.yaml` or kustomization file), or whose tool is not installed.
    RenderFailed {
        at: Span,
        message: String,
        missing_tool: bool,
    },
}

pub fn load(id: SourceId, source: &Source, options: LoadOptions) -> Loaded {
    use rayon::prelude::*;
    let text = &source.text;
    let bom = text.bytes(0..text.len().min(3));
    let start = if bom.is_ok_and(|b| *b == *"\u{feff}".as_bytes()) {
        3
    } else {
        0
    };
    // Units of work: documents, and the items of a `kind: List` one by one (so a syntax error
    // in one item loses only that item, and a big List loads in parallel like a stream). They
    // are made a window at a time, so a file of millions of tiny documents stays small.
    let mut loaded = Loaded::default();
    // Each unit is read (from a big file, into a buffer of its own) when it is loaded, and let
    // go once its objects are made, so that memory holds the objects rather than the file.
    let chunks = yaml::split_text(text, start);
    // Room for an object a document (or List item) at once: growing the list as it fills would
    // copy it, and hold it twice while copying. Room not filled is never touched, so it costs no
    // memory; it is bounded by the text's size against documents of a few bytes each.
    let room = |units: usize| units.min(text.len() / 512);
    loaded.objects.reserve(room(chunks.len()));
    for window in chunks.chunks(WINDOW) {
        let units = units_of(text, window, options);
        loaded
            .objects
            .reserve(room(units.len().saturating_sub(window.len())));
        // Units are independent: load them in parallel, in batches big enough to be worth a
        // thread, and keep the results in input order. They are taken a window at a time (a
        // List is one document of many units), so the objects are never held twice over: the
        // one list grows in place (a big allocation is remapped, not copied, as it grows).
        for units in units.chunks(WINDOW) {
            let parts: Vec<Loaded> = units
                .par_chunks(64)
                .map(|batch| load_batch(id, source, batch, options))
                .collect();
            for part in parts {
                loaded.objects.extend(part.objects);
                loaded.unread.extend(part.unread);
                loaded.documents += part.documents;
                loaded.skipped += part.skipped;
            }
        }
    }
    loaded
}

/// Documents, or units, taken at a time.
const WINDOW: usize = 4096;

/// The units of some documents: each document, or a List's header and its items. Documents
/// are looked at in parallel (each is read to tell whether it is a List).
fn units_of(text: &Text, documents: &[yaml::Chunk], options: LoadOptions) -> Vec<Unit> {
    use rayon::prelude::*;
    let units: Vec<Vec<Unit>> = documents
        .par_chunks(64)
        .map(|documents| document_units(text, documents, options))
        .collect();
    units.into_iter().flatten().collect()
}

fn document_units(text: &Text, documents: &[yaml::Chunk], options: LoadOptions) -> Vec<Unit> {
    let mut units = Vec::with_capacity(documents.len());
    for chunk in documents {
        let span = chunk.span;
        // Most documents are neither a List nor JSON, nor after a `...` line, which their bytes
        // tell (read into the thread's buffer); the others are read as text once for all that
        // tells them apart, but a big one (a List, most likely) only as far as that needs.
        let small = span.len() <= SLICE;
        let read = match small {
            true => span.start..span.end,
            false => span.start..span.start + 4,
        };
        let plain = text.with_bytes(read, |bytes| {
            let plain = memchr::memmem::find(bytes, b"List").is_none() && !opens_json(bytes);
            let after_end = yaml::content_after_document_end(text, span, bytes).is_some();
            (small && plain, after_end)
        });
        match plain {
            Ok((false, false)) => {}
            // A document after `...` is refused as it loads; nothing else is asked of it.
            _ => {
                units.push(Unit::Document(*chunk));
                continue;
            }
        }
        let whole = small.then(|| text.str(span.start..span.end).unwrap_or_default());
        // A List found here is one value, checked whole: not a stream.
        if push_list(text, *chunk, whole.as_deref(), options, &mut units) {
            continue;
        }
        // Objects one after another, as kubectl reads them: each is a document of its own.
        let json = match &whole {
            Some(chunk_text) => chunk_text.trim_start().starts_with('{'),
            None => starts_json(text, span),
        };
        let chunk_text = match whole {
            Some(chunk_text) => Some(chunk_text),
            // JSON is read whole: `serde_json` checks a whole value before it is split.
            None if json => text.str(span.start..span.end).ok(),
            None => None,
        };
        let stream = chunk_text
            .as_deref()
            .filter(|_| json)
            .and_then(|chunk_text| json::stream(chunk_text, span.start));
        let (Some(stream), Some(chunk_text)) = (stream, chunk_text) else {
            units.push(Unit::Document(*chunk));
            continue;
        };
        let part = Part {
            text: &chunk_text,
            base: span.start,
        };
        for span in stream.values.into_iter().chain(stream.rest) {
            let value = part.get(span);
            if !push_list(text, yaml::Chunk { span }, value, options, &mut units) {
                units.push(Unit::Document(yaml::Chunk { span }));
            }
        }
        if let Some((error, rest)) = stream.error {
            units.push(Unit::Invalid(error, rest));
        }
    }
    units
}

/// Whether `bytes` start with `{` after white space (as `str::trim_start` reads it).
fn opens_json(bytes: &[u8]) -> bool {
    match bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace() && **b != b'\x0b')
    {
        Some(b'{') => true,
        Some(b) if b.is_ascii() => false,
        // Rare: other white space, or another character.
        _ => std::str::from_utf8(bytes).is_ok_and(|t| t.trim_start().starts_with('{')),
    }
}

/// Whether the text of `span` starts with `{` after white space, read a block at a time.
fn starts_json(text: &Text, span: Span) -> bool {
    let mut at = span.start;
    while at < span.end {
        let Ok(bytes) = text.bytes(at..(at + (4 << 10)).min(span.end)) else {
            return false;
        };
        // Up to a character that the block cuts off, if it does.
        let valid = match std::str::from_utf8(&bytes) {
            Ok(valid) => valid,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
        };
        let content = valid.trim_start();
        if !content.is_empty() || valid.is_empty() {
            return content.starts_with('{');
        }
        at += valid.len();
    }
    false
}

/// A List's header and its items, if the document is a List that loads item by item.
/// `chunk_text` is the document's text, if it is read already.
fn push_list(
    text: &Text,
    chunk: yaml::Chunk,
    chunk_text: Option<&str>,
    options: LoadOptions,
    units: &mut Vec<Unit>,
) -> bool {
    let span = chunk.span;
    // A document that does not say `List` anywhere is not one (and most are small).
    let yaml_items = match chunk_text {
        Some(chunk_text) if !chunk_text.contains("List") => None,
        _ => list_items(text, span),
    };
    let items = yaml_items.map(|items| (items, false)).or_else(|| {
        // A JSON List is split by `serde_json`, a part of the fast path: `--full-parse`
        // reads it whole.
        options.fast_path?;
        let read;
        let chunk_text = match chunk_text {
            Some(chunk_text) => chunk_text,
            None if starts_json(text, span) => {
                read = text.str(span.start..span.end).ok()?;
                &read
            }
            None => return None,
        };
        if !chunk_text.trim_start().starts_with('{') {
            return None;
        }
        let items = json::list_items(chunk_text, span.start, options.limits.max_depth);
        items.map(|items| (items, true))
    });
    let Some((items, json)) = items else {
        return false;
    };
    // JSON has no comments, so no `# Source:`. The comment is above the first item.
    let header = items
        .first()
        .filter(|_| !json)
        .and_then(|first| text.str(span.start..first.start).ok());
    let origin = header.as_deref().and_then(|header| {
        let name = raw_origin(header)?;
        let start = span.start + (name.as_ptr() as usize - header.as_ptr() as usize);
        Some(Span::new(start, start + name.len()))
    });
    units.push(Unit::ListHeader);
    units.extend(
        items
            .into_iter()
            .map(|item| Unit::ListItem(ListItem { item, origin, json })),
    );
    true
}

fn load_batch(id: SourceId, source: &Source, batch: &[Unit], options: LoadOptions) -> Loaded {
    let mut loaded = Loaded::default();
    for unit in batch {
        match unit {
            Unit::Document(chunk) => load_document(id, source, *chunk, options, &mut loaded),
            Unit::ListHeader => loaded.documents += 1,
            Unit::ListItem(item) => load_list_item(id, source, *item, options, &mut loaded),
            Unit::Invalid(error, rest) => {
                loaded.documents += 1;
                let what = ("part of a JSON stream is not valid JSON", DOCUMENTS);
                // A text that cannot be read now changed: the run reports the file.
                if let Ok(rest_text) = source.text.str(rest.start..rest.end) {
                    let rest = Part {
                        text: &rest_text,
                        base: rest.start,
                    };
                    loaded
                        .unread
                        .push(not_parsed(id, source, error, rest, what));
                }
            }
        }
    }
    loaded
}

fn load_document(
    id: SourceId,
    source: &Source,
    chunk: yaml::Chunk,
    options: LoadOptions,
    loaded: &mut Loaded,
) {
    let text = &source.text;
    if let Some(unread) = too_large(id, source, chunk.span, options.limits, "document") {
        loaded.documents += 1;
        loaded.unread.push(unread);
        return;
    }
    // A text that cannot be read now changed: the run reports the file.
    let Ok(chunk_text) = text.str(chunk.span.start..chunk.span.end) else {
        return;
    };
    let part = Part {
        text: &chunk_text,
        base: chunk.span.start,
    };
    if let Some(at) = yaml::content_after_document_end(text, chunk.span, chunk_text.as_bytes()) {
        loaded.documents += 1;
        let error = yaml::SyntaxError {
            offset: at,
            message: "did not find expected <document start>".into(),
            hint: Some(
                "start this document with a `---` line: after `...`, kubectl reads no further and drops it",
            ),
        };
        let what = ("document is not valid YAML", DOCUMENTS);
        loaded
            .unread
            .push(not_parsed(id, source, &error, part, what));
        return;
    }
    let fast = options.fast_path.and_then(|fields| {
        if chunk_text.trim_start().starts_with('{') {
            json::parse(
                &chunk_text,
                chunk.span.start,
                options.limits.max_depth,
                fields,
            )
        } else {
            parse_filtered(&chunk_text, chunk.span.start, options.limits, fields)
        }
    });
    let parsed = match fast {
        Some(document) => Ok(document),
        None => yaml::parse_at(&chunk_text, chunk.span.start, options.limits),
    };
    let document = match parsed {
        Ok(document) => document,
        Err(error) => {
            loaded.documents += 1;
            let what = ("document is not valid YAML", DOCUMENTS);
            loaded
                .unread
                .push(not_parsed(id, source, &error, part, what));
            return;
        }
    };
    let Some(root) = document.root else {
        return;
    };
    loaded.documents += 1;
    let origin = document
        .comments
        .iter()
        .filter(|c| c.span.start <= root.span.start)
        .find_map(|c| c.text.trim().strip_prefix("Source:"))
        .map(|s| s.trim().to_string());
    if let Some(at) = structural_template(&root, part) {
        loaded.unread.push(unrendered_template(id, text, at));
        return;
    }
    let mut objects = Vec::new();
    collect_objects(
        &root,
        part,
        id,
        options.held,
        &mut objects,
        &mut loaded.skipped,
    );
    finish_objects(objects, origin, chunk.span, id, source, options, loaded);
}

/// What is wrong with the text `part` that does not parse: template text, or `error` (in
/// `this {what}`, with the other `others` still read).
fn not_parsed(
    id: SourceId,
    source: &Source,
    error: &yaml::SyntaxError,
    part: Part<'_>,
    (what, others): (&'static str, &'static str),
) -> Unread {
    let text = &source.text;
    let mut unread = match template_start(part.text) {
        Some(at) => unrendered_template(id, text, part.base + at),
        None => Unread {
            source: id,
            origin: None,
            why: Why::Syntax {
                at: text.char_span(error.offset),
                message: error.message.clone(),
                hint: error.hint,
                what,
                others,
            },
        },
    };
    unread.origin = raw_origin(part.text).map(str::to_string);
    unread
}

/// Give each object its origin and mode, or report it when template text stands in an identity
/// field.
fn finish_objects(
    objects: Vec<Object>,
    origin: Option<String>,
    extent: Span,
    id: SourceId,
    source: &Source,
    options: LoadOptions,
    loaded: &mut Loaded,
) {
    for mut object in objects {
        if let Some(at) = identity_template(&object) {
            let mut unread = unrendered_template(id, &source.text, at);
            unread.origin = origin.clone();
            loaded.unread.push(unread);
            continue;
        }
        object.origin = origin.clone();
        object.extent = extent;
        object.context = options.context;
        object.mode = match options.mode {
            _ if options.context => Mode::Snapshot,
            ModeChoice::Apply => Mode::Apply,
            ModeChoice::Snapshot => Mode::Snapshot,
            ModeChoice::Auto if object.origin.is_some() => Mode::Apply,
            ModeChoice::Auto if object.uid.is_some() || object.captured => Mode::Snapshot,
            ModeChoice::Auto => Mode::Apply,
        };
        loaded.objects.push(object);
    }
}

/// A piece of a file that loads on its own.
enum Unit {
    Document(yaml::Chunk),
    /// A `kind: List` document itself (counted once).
    ListHeader,
    ListItem(ListItem),
    /// Where a JSON stream stops being JSON, and the text from there.
    Invalid(yaml::SyntaxError, Span),
}

/// One item of a List: its range (in YAML, from its `- `), where the List's `# Source:`
/// comment names its template (if it has one), and whether the List is JSON.
#[derive(Clone, Copy)]
struct ListItem {
    item: Span,
    origin: Option<Span>,
    json: bool,
}

/// The items of a `kind: List` document as `kubectl get -o yaml` writes it: top-level keys at
/// column 0, `items:` followed by block sequence items whose `- ` is at column 0. `None` for
/// anything else (typed lists, flow style, template text), which loads as one document.
fn list_items(text: &Text, chunk: Span) -> Option<Vec<Span>> {
    let len = chunk.len();
    // Only lines at column 0 decide; the indented, blank and comment lines after an item
    // belong to it, so an item ends where the next deciding line starts. A big List is read in
    // parallel, a slice at a time (each into a buffer of its own), in the same pass that looks
    // for a template's `{{`; each line is told apart while its slice is read.
    let found = crate::source::find_in_slices(len, |range| {
        // Reaching into the next slice far enough to see a pattern that starts in this one.
        let read = chunk.start + range.start..chunk.start + (range.end + 3).min(len);
        // A slice that cannot be read (the file changed) leaves the document whole.
        let found = text.with_bytes(read, |window| slice_lines(text, chunk, range, window));
        found.unwrap_or_else(|_| vec![Line::Whole])
    });
    let mut items: Vec<Span> = Vec::new();
    let mut is_list = false;
    let mut in_items = false;
    for line in found {
        let Line::Deciding(start, line) = line else {
            return None;
        };
        if let Some(last) = items.last_mut().filter(|_| in_items) {
            last.end = chunk.start + start;
        }
        if let TopLine::Item { empty } = line {
            if !in_items || empty {
                return None;
            }
            items.push(Span::new(chunk.start + start, chunk.end));
            continue;
        }
        in_items = false;
        match line {
            TopLine::Kind { list } => is_list = list,
            TopLine::Items => in_items = true,
            TopLine::Header => {}
            TopLine::Item { .. } | TopLine::Other => return None,
        }
    }
    (is_list && !items.is_empty()).then_some(items)
}

/// What [`list_items`] finds in the slice `range` of the document `chunk`: `window` holds the
/// slice's bytes and a few after it.
fn slice_lines(
    text: &Text,
    chunk: Span,
    range: std::ops::Range<usize>,
    window: &[u8],
) -> Vec<Line> {
    let len = chunk.len();
    let reach = (range.end + 1).min(len);
    let whole = (memchr::memmem::find(&window[..reach - range.start], b"{{").is_some()
        || has_alias(window))
    .then_some(Line::Whole);
    let after_newlines = memchr::memchr_iter(b'\n', &window[..range.len()])
        .map(|i| range.start + i + 1)
        .filter(|&i| i < len && window[i - range.start] != b' ');
    let first = (range.start == 0 && window.first().is_some_and(|&b| b != b' ')).then_some(0);
    // A deciding line, from the window, or read on its own where it runs past it.
    let line = |start: usize| -> Option<TopLine> {
        let rest = &window[start - range.start..];
        match memchr::memchr(b'\n', rest) {
            Some(i) => TopLine::of(&rest[..=i]),
            None if range.start + window.len() == len => TopLine::of(rest),
            None => {
                let from = chunk.start + start;
                let end = text
                    .find(from, b"\n")
                    .map_or(chunk.end, |i| (i + 1).min(chunk.end));
                TopLine::of(&text.bytes(from..end).ok()?)
            }
        }
    };
    let deciding = first
        .into_iter()
        .chain(after_newlines)
        .filter_map(|start| Some(Line::Deciding(start, line(start)?)));
    whole.into_iter().chain(deciding).collect()
}

/// Whether `bytes` hold what reads as an alias (`: *name`, `- *name`, `<<: *name`, `[*name`,
/// `, *name`).
fn has_alias(bytes: &[u8]) -> bool {
    let named = |at: usize| bytes.get(at).is_some_and(|b| !b" \t\r\n".contains(b));
    [&b": *"[..], b"- *", b", *"]
        .into_iter()
        .any(|pattern| memchr::memmem::find_iter(bytes, pattern).any(|at| named(at + 3)))
        || memchr::memmem::find_iter(bytes, b"[*").any(|at| named(at + 2))
}

/// What [`list_items`] finds in a slice of a document.
enum Line {
    /// A line at column 0 that is not blank, a comment or a document marker, from its start.
    Deciding(usize, TopLine),
    /// A template's `{{`, or an alias (`*name`), which may name an anchor of another item: the
    /// document is read whole.
    Whole,
}

/// A line at column 0 of a document, as [`list_items`] tells them apart.
#[derive(Clone, Copy)]
enum TopLine {
    /// `- …`, a sequence item (`empty` when nothing follows the `- `).
    Item { empty: bool },
    /// `kind: …`, and whether it says `List`.
    Kind { list: bool },
    /// `items:` with nothing after it.
    Items,
    /// `apiVersion: …` or `metadata: …`.
    Header,
    /// Anything else: the document is not a List as `kubectl get` writes one.
    Other,
}

impl TopLine {
    /// What `line` (with its line break) is; `None` for a blank, comment or marker line, which
    /// decides nothing.
    fn of(line: &[u8]) -> Option<TopLine> {
        // A line that is not text any more (the file changed) is not a List's.
        let Ok(line) = std::str::from_utf8(line) else {
            return Some(TopLine::Other);
        };
        let trimmed = line.trim_end();
        let blank = trimmed.trim_start().is_empty() || trimmed.trim_start().starts_with('#');
        if blank || trimmed == "---" || trimmed == "..." {
            return None;
        }
        if let Some(rest) = line.strip_prefix("- ") {
            return Some(TopLine::Item {
                empty: rest.trim().is_empty(),
            });
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Some(TopLine::Other);
        };
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        Some(match key {
            "kind" => TopLine::Kind {
                list: value == "List",
            },
            "items" if value.is_empty() => TopLine::Items,
            "apiVersion" | "metadata" => TopLine::Header,
            _ => TopLine::Other,
        })
    }
}

/// A document (or List item) larger than `--max-document-size`; it is not parsed.
fn too_large(
    id: SourceId,
    source: &Source,
    span: Span,
    limits: Limits,
    what: &'static str,
) -> Option<Unread> {
    (span.len() > limits.max_document_size).then(|| Unread {
        source: id,
        origin: None,
        why: Why::TooLarge {
            at: source.text.char_span(span.start),
            size: span.len(),
            limit: limits.max_document_size,
            what,
        },
    })
}

/// What the help of a document's syntax error says is still checked.
const DOCUMENTS: &str = "documents of this file";

/// One item of a List, loaded like a document of its own.
fn load_list_item(
    id: SourceId,
    source: &Source,
    ListItem { item, origin, json }: ListItem,
    options: LoadOptions,
    loaded: &mut Loaded,
) {
    let text = &source.text;
    if let Some(unread) = too_large(id, source, item, options.limits, "item of a List") {
        loaded.unread.push(unread);
        return;
    }
    // A text that cannot be read now changed: the run reports the file.
    let Ok(item_text) = text.str(item.start..item.end) else {
        return;
    };
    let part = Part {
        text: &item_text,
        base: item.start,
    };
    let fast = options.fast_path.and_then(|fields| match json {
        true => json::parse_item(&item_text, item.start, fields),
        false => parse_filtered_item(&item_text, item.start, options.limits, fields),
    });
    let parsed = match fast {
        Some(document) => Ok(document),
        None => yaml::parse_at(&item_text, item.start, options.limits),
    };
    let document = match parsed {
        Ok(document) => document,
        Err(error) => {
            let what = ("item of a List is not valid YAML", "items of the List");
            loaded
                .unread
                .push(not_parsed(id, source, &error, part, what));
            return;
        }
    };
    // A YAML item is parsed with its `- `, as a list of one; a JSON item is the value itself.
    let node = match json {
        true => document.root.as_ref(),
        false => document
            .root
            .as_ref()
            .and_then(Node::as_seq)
            .and_then(<[Node]>::first),
    };
    let objects = match node {
        Some(node) if node.as_map().is_some() && is_object(node) => {
            vec![Object::from_node(
                node,
                part,
                id,
                (None, None),
                options.held,
            )]
        }
        _ => {
            loaded.skipped += 1;
            Vec::new()
        }
    };
    let origin = origin.and_then(|at| Some(text.str(at.start..at.end).ok()?.into_owned()));
    finish_objects(objects, origin, item, id, source, options, loaded);
}

/// An item of a List through the fast path's filter, spans mapped back.
fn parse_filtered_item(
    item_text: &str,
    base: usize,
    limits: Limits,
    fields: &Kept,
) -> Option<yaml::Document> {
    let filtered = fast::filter_item(item_text, limits.max_depth, fields)?;
    parse_kept(item_text, filtered, base, limits)
}

/// A document parsed through the fast path's filter, with every span mapped back to the
/// source; `None` when the filter declines or the kept text does not parse (the caller then
/// parses the whole document, and reports any error at its true place).
fn parse_filtered(
    chunk_text: &str,
    base: usize,
    limits: Limits,
    fields: &Kept,
) -> Option<yaml::Document> {
    parse_kept(
        chunk_text,
        fast::filter(chunk_text, limits.max_depth, fields)?,
        base,
        limits,
    )
}

/// Parse what the filter kept of `text`, spans in the source (`base` is where `text` starts
/// there). The kept lines go to the span tree builder as they are, in the document's offsets;
/// only shapes it does not know are joined into one text for the YAML parser, and mapped back.
fn parse_kept(
    text: &str,
    filtered: fast::Filtered,
    base: usize,
    limits: Limits,
) -> Option<yaml::Document> {
    let shift = |s: Span| Span::new(s.start + base, s.end + base);
    if let Some(mut document) = block::parse_lines(text, &filtered.lines) {
        if base != 0 {
            document.map_spans(shift);
        }
        return Some(document);
    }
    let joined = filtered.joined(text);
    let whole = yaml::Chunk {
        span: Span::new(0, joined.text.len()),
    };
    let mut document = yaml::parse_document(&joined.text, whole, limits).ok()?;
    document.map_spans(|span| shift(joined.map_span(span)));
    Some(document)
}

/// The objects a document holds: itself, the items of a list, or the items of a top-level
/// sequence. Documents that are not Kubernetes objects are counted in `skipped`.
fn collect_objects(
    root: &Node,
    text: Part<'_>,
    id: SourceId,
    held: &[Field],
    out: &mut Vec<Object>,
    skipped: &mut usize,
) {
    match &root.value {
        Value::Map(_) => {
            let kind = root.get("kind").and_then(Node::as_str);
            let items = root.get("items").and_then(Node::as_seq);
            match (kind, items) {
                (Some(kind), Some(items)) if kind.ends_with("List") => {
                    expand_list(root, text, kind, items, (id, held), out, skipped)
                }
                (None, Some(items)) if root.get("apiVersion").is_none() => {
                    expand_list(root, text, "", items, (id, held), out, skipped)
                }
                _ if is_object(root) => {
                    out.push(Object::from_node(root, text, id, (None, None), held))
                }
                _ => *skipped += 1,
            }
        }
        Value::Seq(items) if items.iter().any(is_object) => {
            for item in items {
                if is_object(item) {
                    out.push(Object::from_node(item, text, id, (None, None), held));
                } else {
                    *skipped += 1;
                }
            }
        }
        _ => *skipped += 1,
    }
}

fn expand_list(
    root: &Node,
    text: Part<'_>,
    list_kind: &str,
    items: &[Node],
    (id, held): (SourceId, &[Field]),
    out: &mut Vec<Object>,
    skipped: &mut usize,
) {
    // A typed list (`PodList`) names its items' kind; `List` does not.
    let item_kind = list_kind
        .strip_suffix("List")
        .filter(|k| !k.is_empty())
        .and_then(|k| {
            let (key, _) = root.entry("kind")?;
            Some(Spanned {
                value: k.to_string(),
                span: key.span,
            })
        });
    let item_api_version = item_kind.as_ref().and_then(|_| {
        let (key, value) = root.entry("apiVersion")?;
        Some(Spanned {
            value: value.as_str()?.to_string(),
            span: key.span,
        })
    });
    for item in items {
        let has_kind = has_value(item, "kind") || item_kind.is_some();
        let has_api = has_value(item, "apiVersion") || item_api_version.is_some();
        if item.as_map().is_some() && has_kind && has_api {
            out.push(Object::from_node(
                item,
                text,
                id,
                (item_api_version.as_ref(), item_kind.as_ref()),
                held,
            ));
        } else {
            *skipped += 1;
        }
    }
}

/// A Kubernetes object: a mapping with apiVersion and kind, that is not a strategic merge
/// patch (`$patch: delete` and the like, in a kustomize patch file). Whatever their values
/// (`apiVersion: 1` is an object kubectl refuses, which `field-type-invalid` reports), as long
/// as they are set.
fn is_object(node: &Node) -> bool {
    has_value(node, "apiVersion") && has_value(node, "kind") && node.get("$patch").is_none()
}

/// Whether `key` is set in `node` to something other than null.
fn has_value(node: &Node, key: &str) -> bool {
    node.get(key).is_some_and(|v| !v.is_null())
}

fn unrendered_template(id: SourceId, text: &Text, at: usize) -> Unread {
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

/// The template named by the `# Source:` comment at the top of a document that could not be
/// parsed (or of a List, read once for all its items).
fn raw_origin(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "---")
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.trim_start_matches('#').trim().strip_prefix("Source:"))
        .map(str::trim)
}

/// Where a document that failed to parse holds template text (`{{`), if it does.
fn template_start(text: &str) -> Option<usize> {
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
fn structural_template(node: &Node, text: Part<'_>) -> Option<usize> {
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
fn identity_template(object: &Object) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_names_are_those_of_the_flag() {
        for mode in <ModeChoice as clap::ValueEnum>::value_variants() {
            let value = clap::ValueEnum::to_possible_value(mode).expect("every mode is a value");
            assert_eq!(value.get_name(), mode.as_str());
            assert_eq!(ModeChoice::parse(mode.as_str()), Some(*mode));
        }
    }

    #[test]
    fn the_items_of_a_list_from_a_template_carry_its_name() {
        let text = "# Source: shop/templates/list.yaml\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n";
        let loaded = load(
            SourceId(0),
            &Source::new("list.yaml", text),
            LoadOptions::default(),
        );
        let names: Vec<_> = loaded
            .objects
            .iter()
            .map(|o| {
                (
                    o.name.as_ref().map(|n| n.value.as_str()),
                    o.origin.as_deref(),
                    o.mode,
                )
            })
            .collect();
        let origin = Some("shop/templates/list.yaml");
        assert_eq!(
            names,
            [
                (Some("a"), origin, Mode::Apply),
                (Some("b"), origin, Mode::Apply)
            ]
        );
    }

    #[test]
    fn a_file_read_a_unit_at_a_time_loads_as_the_text_in_memory() {
        use crate::source::{SLICE, file_for_test};

        let pod = |i: usize| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: ns\n  uid: u{i}\nspec:\n  containers:\n  - name: main\n    image: example/app:1\n"
            )
        };
        let count = 3 * SLICE / pod(0).len();
        let stream: String = (0..count).map(|i| format!("---\n{}", pod(i))).collect();
        let list: String = "# Source: x/list.yaml\napiVersion: v1\nkind: List\nitems:\n"
            .to_string()
            + &(0..count)
                .map(|i| {
                    let item = pod(i).replace('\n', "\n  ");
                    format!("- {}\n", item.trim_end())
                })
                .collect::<String>();
        for (shape, text) in [("stream", stream), ("List", list)] {
            let read = Source::with_text(shape, file_for_test(text.as_bytes()).expect("UTF-8"));
            let loaded = load(SourceId(0), &read, LoadOptions::default());
            assert_eq!(loaded.objects.len(), count, "{shape}");
            assert!(loaded.unread.is_empty(), "{shape}: {:?}", loaded.unread);
            let held = load(
                SourceId(0),
                &Source::new(shape, text),
                LoadOptions::default(),
            );
            assert_eq!(
                format!("{:?}", loaded.objects),
                format!("{:?}", held.objects),
                "{shape}"
            );
            assert!(!read.text.changed());
        }
    }
}
