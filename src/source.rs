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
    /// Where lines start, built the first time a position is asked for: a big input without
    /// findings never needs it.
    lines: std::sync::OnceLock<LineIndex>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
            lines: std::sync::OnceLock::new(),
        }
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_index = self.line_index(offset);
        let line_start = self.line_start(line_index);
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
        let lines = self.lines();
        let offset = offset.min(self.text.len());
        let block = lines.checkpoints.partition_point(|&s| s <= offset) - 1;
        let from = lines.checkpoints[block];
        block * CHECKPOINT_EVERY
            + memchr::memchr_iter(b'\n', &self.text.as_bytes()[from..offset]).count()
    }

    /// Byte offset where 0-based line `index` starts (the text's length past the last line).
    pub fn line_start(&self, index: usize) -> usize {
        let lines = self.lines();
        if index >= lines.count {
            return self.text.len();
        }
        let from = lines.checkpoints[index / CHECKPOINT_EVERY];
        match index % CHECKPOINT_EVERY {
            0 => from,
            n => memchr::memchr_iter(b'\n', &self.text.as_bytes()[from..])
                .nth(n - 1)
                .map_or(self.text.len(), |i| from + i + 1),
        }
    }

    pub fn line_count(&self) -> usize {
        self.lines().count
    }

    /// The text of 0-based line `index`, without its line break.
    pub fn line_text(&self, index: usize) -> &str {
        let start = self.line_start(index);
        let end = self.line_start(index + 1).min(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// Lines are found from a checkpoint every this many lines, so the index stays small for a
/// file of millions of lines.
const CHECKPOINT_EVERY: usize = 128;

#[derive(Debug)]
struct LineIndex {
    /// Where lines 0, 128, 256, … start.
    checkpoints: Vec<usize>,
    count: usize,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut checkpoints = vec![0];
        let mut count = 1;
        for newline in memchr::memchr_iter(b'\n', text.as_bytes()) {
            if count % CHECKPOINT_EVERY == 0 {
                checkpoints.push(newline + 1);
            }
            count += 1;
        }
        LineIndex { checkpoints, count }
    }
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

    #[test]
    fn lines_past_checkpoints() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let s = Source::new("t", text.clone());
        assert_eq!(s.line_count(), 1001);
        for i in [0, 1, 127, 128, 129, 255, 256, 999] {
            let start = s.line_start(i);
            assert_eq!(s.line_text(i), format!("line {i}"));
            assert_eq!(s.line_index(start), i);
            assert_eq!(s.line_index(start + 3), i);
        }
        assert_eq!(s.line_start(1000), text.len());
        assert_eq!(s.line_start(5000), text.len());
    }
}
