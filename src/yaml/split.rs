//! A YAML stream split into its documents at column-0 `---` and `...` lines, which cannot be
//! content in YAML 1.2, before any document is parsed.

use crate::source::{Span, Text};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
