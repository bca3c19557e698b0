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

/// A source's text: read into memory, or, for a big file, mapped from it, so that the
/// operating system pages it in as it is read and the pages a pass is done with can be let go
/// (`release`). Either way it reads as one `str`.
pub enum Text {
    Owned(String),
    /// Checked to be UTF-8 when it was made (`Text::map`).
    Mapped(memmap2::Mmap),
}

impl Text {
    /// Map a file's bytes as text; the map back, with the offset of the first byte that is not
    /// UTF-8, when they are not text. The check runs a slice at a time and lets each slice's
    /// pages go, so it never holds the whole file.
    pub fn map(map: memmap2::Mmap) -> Result<Text, (memmap2::Mmap, usize)> {
        let mut from = 0;
        while from < map.len() {
            let to = (from + RELEASE_SLICE).min(map.len());
            let checked = match std::str::from_utf8(&map[from..to]) {
                Ok(_) => to,
                // A character cut by the slice's end is checked with the next slice.
                Err(e) if e.error_len().is_none() && to < map.len() => from + e.valid_up_to(),
                Err(e) => return Err((map, from + e.valid_up_to())),
            };
            release_range(&map, from, checked);
            from = checked;
        }
        Ok(Text::Mapped(map))
    }

    /// Let the pages of `range` go, if the text is mapped: they are read back from the file
    /// when the text there is read again. A pass over a big file calls this behind itself, so
    /// memory holds the objects read, not the file.
    pub fn release(&self, range: std::ops::Range<usize>) {
        if let Text::Mapped(map) = self {
            release_range(map, range.start.min(map.len()), range.end.min(map.len()));
        }
    }

    /// Let the whole text's pages go (see `release`).
    pub fn release_all(&self) {
        self.release(0..self.len());
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self, Text::Mapped(_))
    }
}

/// How much of a mapped text a pass reads before letting its pages go.
const RELEASE_SLICE: usize = 4 << 20;

fn release_range(map: &memmap2::Mmap, from: usize, to: usize) {
    if to <= from {
        return;
    }
    #[cfg(unix)]
    // SAFETY: the map is private and never written, so dropping its pages only means they are
    // read from the file again on the next access, with the same bytes; slices into the map
    // stay valid. (The bytes would change only if the file were changed during the run, which
    // any memory map of it is exposed to: `--no-mmap` reads files instead.)
    unsafe {
        // Advice is only advice: if it fails, the pages stay, and nothing else changes.
        let _ = map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from);
    }
    #[cfg(not(unix))]
    let _ = (map, from, to);
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Owned(text) => text,
            // SAFETY: `Text::map` made sure the bytes are UTF-8, and they do not change (see
            // `release_range`).
            Text::Mapped(map) => unsafe { std::str::from_utf8_unchecked(map) },
        }
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Text::Owned(_) => write!(f, "Text::Owned({} bytes)", self.len()),
            Text::Mapped(_) => write!(f, "Text::Mapped({} bytes)", self.len()),
        }
    }
}

/// One input: a file, standard input or a context file.
#[derive(Debug)]
pub struct Source {
    /// What the user sees: the path as given or found, or `<stdin>`.
    pub name: String,
    pub text: Text,
    /// Where lines start, built the first time a position is asked for: a big input without
    /// findings never needs it.
    lines: std::sync::OnceLock<LineIndex>,
    /// Position lookups since a mapped text last let its pages go (see `lines`).
    lookups: std::sync::atomic::AtomicUsize,
}

/// A mapped text lets its pages go after this many position lookups: each lookup reads the
/// lines before the position, and the system maps pages around each page read, so thousands
/// of findings in a big dump would otherwise bring much of the file back.
const LOOKUPS_PER_RELEASE: usize = 32;

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source::with_text(name, Text::Owned(text.into()))
    }

    pub fn with_text(name: impl Into<String>, text: Text) -> Self {
        Source {
            name: name.into(),
            text,
            lines: std::sync::OnceLock::new(),
            lookups: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The line index, for a lookup that is about to read the text.
    fn lines(&self) -> &LineIndex {
        if self.text.is_mapped() {
            let n = self
                .lookups
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if n % LOOKUPS_PER_RELEASE == LOOKUPS_PER_RELEASE - 1 {
                self.text.release_all();
            }
        }
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
    fn new(text: &Text) -> LineIndex {
        let mut checkpoints = vec![0];
        let mut count = 1;
        // A slice at a time, letting each go behind (a big file's findings need this index,
        // and building it must not bring the whole file back into memory).
        for from in (0..text.len()).step_by(RELEASE_SLICE) {
            let to = (from + RELEASE_SLICE).min(text.len());
            for newline in memchr::memchr_iter(b'\n', &text.as_bytes()[from..to]) {
                if count % CHECKPOINT_EVERY == 0 {
                    checkpoints.push(from + newline + 1);
                }
                count += 1;
            }
            text.release(from..to);
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

    fn mapped(bytes: &[u8]) -> Result<Text, usize> {
        let path = std::env::temp_dir().join(format!(
            "ownerlint-text-{}-{}",
            std::process::id(),
            bytes.len()
        ));
        std::fs::write(&path, bytes).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        // SAFETY: the file is this test's own, and nothing changes it.
        let map = unsafe { memmap2::Mmap::map(&file) }.expect("map");
        let _ = std::fs::remove_file(&path);
        Text::map(map).map_err(|(_, at)| at)
    }

    #[test]
    fn mapped_text_is_checked_across_slices_and_reads_the_same_after_release() {
        // A two-byte character across the end of the first slice.
        let mut bytes = vec![b'a'; RELEASE_SLICE - 1];
        bytes.extend_from_slice("é: x\n".as_bytes());
        let text = mapped(&bytes).expect("UTF-8");
        assert!(text.is_mapped());
        text.release_all();
        assert_eq!(text.as_bytes(), &bytes[..]);
        let source = Source::with_text("big", text);
        assert_eq!(source.line_text(0).len(), RELEASE_SLICE - 1 + "é: x".len());
        assert_eq!(
            source.line_col(RELEASE_SLICE + 1),
            LineCol {
                line: 1,
                column: RELEASE_SLICE + 1
            }
        );

        // A bad byte after the first slice, and a character cut off by the end of the file.
        let mut bad = vec![b'a'; RELEASE_SLICE + 5];
        bad.push(0xff);
        assert_eq!(mapped(&bad).err(), Some(RELEASE_SLICE + 5));
        let mut cut = vec![b'a'; 10];
        cut.push(0xc3);
        assert_eq!(mapped(&cut).err(), Some(10));
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
