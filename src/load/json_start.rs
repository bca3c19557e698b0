//! Whether a document is JSON, told by how it starts: with `{` after white space.

use crate::source::{Span, Text};

/// Whether `bytes` start with `{` after white space (as `str::trim_start` reads it).
pub(super) fn opens_json(bytes: &[u8]) -> bool {
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
pub(super) fn starts_json(text: &Text, span: Span) -> bool {
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
