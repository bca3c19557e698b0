//! Where things are, as the editor and ownerlint each say it: file URIs and paths, and LSP
//! positions (a line and a character offset in UTF-8, UTF-16 or UTF-32 code units) and byte
//! offsets into a source.

use std::path::{Path, PathBuf};

use lsp_types::{Position, PositionEncodingKind, Range, Uri};

use crate::source::{Source, Span};

/// The path of a `file:` URI; `None` for any other scheme (an unsaved buffer, a remote file).
pub(super) fn path_of(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file:///path` or `file://localhost/path`.
    let path = match rest.strip_prefix("localhost") {
        Some(path) if path.starts_with('/') => path,
        _ if rest.starts_with('/') => rest,
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let decoded = percent_decode(path)?;
    // `file:///C:/dir` on Windows.
    #[cfg(windows)]
    let decoded = match decoded.strip_prefix('/') {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest.to_string(),
        _ => decoded,
    };
    Some(PathBuf::from(decoded))
}

/// The `file:` URI of an absolute path.
pub(super) fn uri_of(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let text = text.replace('\\', "/");
    let mut uri = String::from("file://");
    if !text.starts_with('/') {
        uri.push('/');
    }
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri.parse().ok()
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The unit positions count characters in, as agreed with the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The first of the client's encodings that ownerlint speaks (UTF-8 first, as ownerlint
    /// counts bytes); UTF-16 when the client names none, as the protocol says.
    pub(super) fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        let offered = offered.unwrap_or_default();
        for (kind, encoding) in [
            (PositionEncodingKind::UTF8, Encoding::Utf8),
            (PositionEncodingKind::UTF32, Encoding::Utf32),
        ] {
            if offered.contains(&kind) {
                return encoding;
            }
        }
        Encoding::Utf16
    }

    pub(super) fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        }
    }
}

/// The position of byte `offset` of `source`.
pub(super) fn position(source: &Source, offset: usize, encoding: Encoding) -> Position {
    let line = source.line_index(offset);
    let start = source.line_start(line);
    let text = source
        .text
        .str(start..offset.max(start))
        .unwrap_or_default();
    let character: usize = text.chars().map(|c| encoding.units(c)).sum();
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        character: u32::try_from(character).unwrap_or(u32::MAX),
    }
}

pub(super) fn range(source: &Source, span: Span, encoding: Encoding) -> Range {
    Range {
        start: position(source, span.start, encoding),
        end: position(source, span.end, encoding),
    }
}

/// The byte offset of `position` in `source`: a position past the end of its line is the
/// line's end, and one past the last line the text's end.
pub(super) fn offset(source: &Source, position: Position, encoding: Encoding) -> usize {
    let line = position.line as usize;
    if line >= source.line_count() {
        return source.text.len();
    }
    let start = source.line_start(line);
    let text = source.line_text(line);
    let mut units = 0;
    for (at, c) in text.char_indices() {
        if units >= position.character as usize {
            return start + at;
        }
        units += encoding.units(c);
    }
    start + text.len()
}

/// The byte offset of `position` in `text` (a document the editor holds).
pub(super) fn offset_in(text: &str, position: Position, encoding: Encoding) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[line_start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let mut units = 0;
    for (at, c) in line.char_indices() {
        if units >= position.character as usize {
            return line_start + at;
        }
        units += encoding.units(c);
    }
    line_start + line.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_and_paths_go_both_ways() {
        let path = Path::new("/work/team a/Zürich#1.yaml");
        let uri = uri_of(path).expect("uri");
        assert_eq!(uri.as_str(), "file:///work/team%20a/Z%C3%BCrich%231.yaml");
        assert_eq!(path_of(&uri).as_deref(), Some(path));
        let localhost: Uri = "file://localhost/x/y.yaml".parse().expect("uri");
        assert_eq!(path_of(&localhost), Some(PathBuf::from("/x/y.yaml")));
        let untitled: Uri = "untitled:Untitled-1".parse().expect("uri");
        assert_eq!(path_of(&untitled), None);
    }

    #[test]
    fn positions_count_the_units_agreed_on() {
        let source = Source::new("a.yaml", "name: Zürich 😀 x\nnext: 1\n");
        let x = source.text.len() - "x\nnext: 1\n".len();
        for (encoding, character) in [
            (Encoding::Utf8, 19),
            (Encoding::Utf16, 16),
            (Encoding::Utf32, 15),
        ] {
            let at = position(&source, x, encoding);
            assert_eq!((at.line, at.character), (0, character), "{encoding:?}");
            assert_eq!(offset(&source, at, encoding), x);
        }
        let past = Position {
            line: 1,
            character: 99,
        };
        assert_eq!(
            offset(&source, past, Encoding::Utf16),
            source.text.len() - 1
        );
        let beyond = Position {
            line: 9,
            character: 0,
        };
        assert_eq!(offset(&source, beyond, Encoding::Utf16), source.text.len());
    }
}
