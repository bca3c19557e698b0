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

mod filtered;
mod json_start;
mod list;
mod template;
mod units;

use crate::model::{Mode, Object};
use crate::source::{Part, Source, SourceId, Span};
use crate::yaml::{self, Limits, Node};
pub(crate) use filtered::parse_filtered;
use filtered::parse_filtered_item;
use list::{ListItem, collect_objects, is_object};
use template::{
    identity_template, raw_origin, structural_template, template_start, unrendered_template,
};
use units::{load_batch, units_of};

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
    /// Objects from `--existing`: they exist in the cluster, and are not linted.
    pub from_existing: bool,
    /// The fields to keep of each object before parsing (the fast path), or `None` to parse
    /// whole documents; the findings are the same.
    pub fast_path: Option<&'static crate::fields::Kept>,
    /// The fields each object holds as written for the rules that declare them
    /// (`fields::Kept::held`), with or without the fast path.
    pub held: &'static [crate::fields::Field],
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
    /// A file a chart or an overlay would have read that leads outside the repository (a
    /// symbolic link), left out of its build: the text is the link's name, not what it names.
    OutsideRepository { message: String },
    /// A Flux object whose source (a chart, a path) is not in the repository: not checked.
    /// `values`: an entry of one whose values are not in the repository, built without them.
    SourceNotInRepository {
        at: Span,
        message: String,
        values: bool,
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
        object.set_origin(origin.clone());
        object.extent = extent;
        finish(&mut object, options);
        loaded.objects.push(object);
    }
}

/// Give an object whose origin and extent are set its mode.
fn finish(object: &mut Object, options: LoadOptions) {
    object.from_existing = options.from_existing;
    object.mode = match options.mode {
        _ if options.from_existing => Mode::Snapshot,
        ModeChoice::Apply => Mode::Apply,
        ModeChoice::Snapshot => Mode::Snapshot,
        ModeChoice::Auto if object.origin().is_some() => Mode::Apply,
        ModeChoice::Auto if object.uid.is_some() || object.captured => Mode::Snapshot,
        ModeChoice::Auto => Mode::Apply,
    };
}

/// The objects of a text whose documents were written with their span trees (a cluster's
/// objects, written as YAML with what the fast path reads of each: `cluster::render`), read
/// from those trees: [`load_written`] gives what [`load`] gives of the text, without reading
/// it again. A document written without a tree is read from the text.
#[derive(Debug, Default)]
pub struct Written {
    objects: Vec<Object>,
    documents: usize,
    skipped: usize,
    /// The documents to read from the text: each one's span, and how many objects come
    /// before its own.
    unbuilt: Vec<(usize, Span)>,
}

impl Written {
    /// Room for `documents` documents of an object each.
    pub fn with_capacity(documents: usize) -> Written {
        Written {
            objects: Vec::with_capacity(documents),
            ..Written::default()
        }
    }

    /// Take the document at `span` of `text` (from its `---` line), whose tree is `root`:
    /// what the fast path reads of it, spans in `text`. `held`: the fields objects hold as
    /// written ([`LoadOptions::held`]). Its text holds no template text (`{{`): the writer
    /// builds no tree of one.
    pub fn built(&mut self, text: &str, span: Span, root: &Node, held: &[crate::fields::Field]) {
        self.documents += 1;
        let part = Part {
            text: &text[span.start..span.end],
            base: span.start,
        };
        let first = self.objects.len();
        let id = SourceId(0);
        collect_objects(root, part, id, held, &mut self.objects, &mut self.skipped);
        for object in &mut self.objects[first..] {
            object.extent = span;
        }
    }

    /// The document at `span` has no tree: it is read from the text.
    pub fn unbuilt(&mut self, span: Span) {
        self.unbuilt.push((self.objects.len(), span));
    }
}

/// Load what `written` took of the text of `source` (see [`Written`]).
pub fn load_written(
    id: SourceId,
    source: &Source,
    written: Written,
    options: LoadOptions,
) -> Loaded {
    let mut loaded = Loaded {
        documents: written.documents,
        skipped: written.skipped,
        ..Loaded::default()
    };
    loaded.objects.reserve(written.objects.len());
    let mut objects = written.objects.into_iter();
    let mut taken = 0;
    let mut take = |loaded: &mut Loaded, count: usize| {
        for mut object in objects.by_ref().take(count) {
            object.source = id;
            finish(&mut object, options);
            loaded.objects.push(object);
        }
    };
    for (before, span) in written.unbuilt {
        take(&mut loaded, before - taken);
        taken = before;
        load_document(id, source, yaml::Chunk { span }, options, &mut loaded);
    }
    take(&mut loaded, usize::MAX);
    loaded
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
