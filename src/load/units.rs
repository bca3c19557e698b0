//! The units a source loads in, each on its own: its documents, the items of a List, the
//! values of a JSON stream; and a batch of units loaded.

use super::json;
use super::json_start::{opens_json, starts_json};
use super::list::{ListItem, push_list};
use super::{DOCUMENTS, LoadOptions, Loaded, load_document, load_list_item, not_parsed};
use crate::source::{Part, SLICE, Source, SourceId, Span, Text};
use crate::yaml;

/// The units of some documents: each document, or a List's header and its items. Documents
/// are looked at in parallel (each is read to tell whether it is a List).
pub(super) fn units_of(text: &Text, documents: &[yaml::Chunk], options: LoadOptions) -> Vec<Unit> {
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
        let sniffed = text.with_bytes(read, |bytes| {
            let json = small && opens_json(bytes);
            let plain = memchr::memmem::find(bytes, b"List").is_none() && !json;
            let after_end = yaml::content_after_document_end(text, span, bytes).is_some();
            (small && plain, after_end, json)
        });
        let json = match sniffed {
            // Of a big document only the first bytes were read: its start is read on.
            Ok((false, false, json)) => json || (!small && starts_json(text, span)),
            // A document after `...` is refused as it loads; nothing else is asked of it.
            _ => {
                units.push(Unit::Document(*chunk));
                continue;
            }
        };
        let whole = small.then(|| text.str(span.start..span.end).unwrap_or_default());
        // A List found here is one value, checked whole: not a stream.
        if push_list(text, *chunk, whole.as_deref(), json, options, &mut units) {
            continue;
        }
        // Objects one after another, as kubectl reads them: each is a document of its own.
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
            let json = match value {
                Some(value) => opens_json(value.as_bytes()),
                None => starts_json(text, span),
            };
            if !push_list(text, yaml::Chunk { span }, value, json, options, &mut units) {
                units.push(Unit::Document(yaml::Chunk { span }));
            }
        }
        if let Some((error, rest)) = stream.error {
            units.push(Unit::Invalid(error, rest));
        }
    }
    units
}

pub(super) fn load_batch(
    id: SourceId,
    source: &Source,
    batch: &[Unit],
    options: LoadOptions,
) -> Loaded {
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

/// A piece of a file that loads on its own.
pub(super) enum Unit {
    Document(yaml::Chunk),
    /// A `kind: List` document itself (counted once).
    ListHeader,
    ListItem(ListItem),
    /// Where a JSON stream stops being JSON, and the text from there.
    Invalid(yaml::SyntaxError, Span),
}
