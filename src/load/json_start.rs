//! Whether a document is JSON, told by how it starts: with `{` after white space (as
//! `str::trim_start` reads it).

use crate::source::{Span, Text};

/// Whether `bytes`, a whole text, start with `{` after white space.
pub(super) fn opens_json(bytes: &[u8]) -> bool {
    matches!(opening(bytes), Opening::Json)
}

/// Whether the text of `span` starts with `{` after white space, read a block at a time.
pub(super) fn starts_json(text: &Text, span: Span) -> bool {
    let mut at = span.start;
    while at < span.end {
        let Ok(bytes) = text.bytes(at..(at + (4 << 10)).min(span.end)) else {
            return false;
        };
        match opening(&bytes) {
            Opening::Json => return true,
            Opening::Other | Opening::Blank(0) => return false,
            Opening::Blank(blank) => at += blank,
        }
    }
    false
}

/// What comes first in some bytes after white space.
enum Opening {
    Json,
    /// Another character, or bytes that are not text.
    Other,
    /// Only white space (this many bytes of it), to the end or to a character the bytes cut off.
    Blank(usize),
}

fn opening(bytes: &[u8]) -> Opening {
    match bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != b'\x0b')
    {
        Some(i) if bytes[i] == b'{' => Opening::Json,
        Some(i) if bytes[i].is_ascii() => Opening::Other,
        None => Opening::Blank(bytes.len()),
        // Rare: other white space, or another character; read up to a character that the bytes
        // cut off, if they do.
        Some(_) => {
            let valid = match std::str::from_utf8(bytes) {
                Ok(valid) => valid,
                Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
            };
            match valid.trim_start().chars().next() {
                Some('{') => Opening::Json,
                Some(_) => Opening::Other,
                None => Opening::Blank(valid.len()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_told_by_its_first_character_after_white_space() {
        for (text, json) in [
            ("{\"kind\": \"Pod\"}", true),
            (" \n\t{}", true),
            ("\u{b}\u{a0}\u{2003}{}", true),
            ("kind: Pod", false),
            ("\u{a0}kind: {}", false),
            ("# {}\n{}", false),
            ("", false),
            (" \n ", false),
        ] {
            assert_eq!(opens_json(text.as_bytes()), json, "{text:?}");
            let owned = Text::Owned(std::sync::Arc::new(text.to_string()));
            assert_eq!(
                starts_json(&owned, Span::new(0, text.len())),
                json,
                "{text:?}"
            );
        }
        // Read a block at a time: white space that runs past a block, and a character a block
        // cuts off.
        let long = " ".repeat((4 << 10) - 1) + "\u{a0}{}";
        let owned = Text::Owned(std::sync::Arc::new(long.clone()));
        assert!(starts_json(&owned, Span::new(0, long.len())));
        assert!(opens_json(long.as_bytes()));
    }
}
