//! Source files: their text, a display name, and the line index that turns byte offsets into
//! line and column numbers without rescanning the text.

/// Index of a source in [`crate::Workspace::sources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub u32);

/// A byte range in one source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    pub fn len(self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(self) -> bool {
        self.end == self.start
    }
}

/// A 1-based line and column; the column counts Unicode scalar values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// One input: a file, standard input or a context file.
#[derive(Debug)]
pub struct Source {
    /// What the user sees: the path as given or found, or `<stdin>`.
    pub name: String,
    pub text: String,
    /// Where each line starts, built the first time a position is asked for: a big input
    /// without findings never needs it.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
            line_starts: std::sync::OnceLock::new(),
        }
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(memchr_newlines(self.text.as_bytes()));
            starts
        })
    }

    /// Line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_index = self.line_index(offset);
        let line_start = self.line_starts()[line_index];
        let column = self
            .text
            .get(line_start..offset)
            .map_or(offset - line_start, |s| s.chars().count())
            + 1;
        LineCol {
            line: line_index + 1,
            column,
        }
    }

    /// 0-based index of the line holding `offset`.
    pub fn line_index(&self, offset: usize) -> usize {
        match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte offset where 0-based line `index` starts.
    pub fn line_start(&self, index: usize) -> usize {
        self.line_starts()
            .get(index)
            .copied()
            .unwrap_or(self.text.len())
    }

    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// The text of 0-based line `index`, without its line break.
    pub fn line_text(&self, index: usize) -> &str {
        let start = self.line_start(index);
        let end = self.line_start(index + 1).min(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let s = Source::new("t", "ab\nçé: x\r\nlast");
        assert_eq!(s.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(s.line_col(3), LineCol { line: 2, column: 1 });
        // "çé" is four bytes but two characters.
        assert_eq!(s.line_col(7), LineCol { line: 2, column: 3 });
        assert_eq!(s.line_col(12), LineCol { line: 3, column: 1 });
        assert_eq!(s.line_text(1), "çé: x");
        assert_eq!(s.line_col(999), LineCol { line: 3, column: 5 });
    }
}
