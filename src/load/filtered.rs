//! Documents and List items parsed through the fast path's filter, with every span mapped back
//! to the source.

use super::{block, fast};
use crate::fields::Kept;
use crate::source::Span;
use crate::yaml::{self, Limits};

/// An item of a List through the fast path's filter, spans mapped back.
pub(super) fn parse_filtered_item(
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
pub(crate) fn parse_filtered(
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
