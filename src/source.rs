//! Source files: their text, a display name, and the line index that turns byte offsets into
//! line and column numbers without rescanning the text.

use std::borrow::Cow;

/// Index of a source in the run's sources (`Outcome::sources`).
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

/// A source's text: read into memory, or, for a big file, read from the file a range at a
/// time when a pass asks for it, so that memory never holds the whole file (only the ranges
/// being read and the objects made so far). A file is never mapped: another program may change
/// it while it is read, and a map would then change text already handed out. Every range read
/// from a file is checked again (its length, and that it is UTF-8 where it is read as text); a
/// read that fails marks the text `changed`, and the run reports the file.
pub enum Text {
    /// Shared by the copies of a source (an unchanged file is not copied at every analysis).
    Owned(std::sync::Arc<String>),
    File(FileText),
}

/// A big file, read when asked (see [`Text`]).
#[derive(Debug)]
pub struct FileText {
    file: std::fs::File,
    /// The length when it was opened: nothing past it is read.
    len: usize,
    /// Set by the first read that did not find what the file held when it was opened.
    changed: std::sync::atomic::AtomicBool,
}

/// A read of a file's text failed: the file changed (or went) while it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed;

/// How much of a file a scan reads at a time when it may stop early (a line, a position).
const BLOCK: usize = 64 << 10;

impl Text {
    /// The text of a big file, if it is UTF-8; the file back when it is not (it is then read
    /// whole, to find and show where). The check runs a slice at a time, in parallel, each slice
    /// read into a buffer of its own and let go.
    pub fn open(file: std::fs::File, len: usize) -> Result<Text, std::fs::File> {
        use rayon::prelude::*;
        let text = FileText {
            file,
            len,
            changed: std::sync::atomic::AtomicBool::new(false),
        };
        let valid = slices(len).into_par_iter().all(|range| {
            // Each slice but the first starts at a character, and ends where the next one
            // starts, so that valid slices make valid text. (A character has at most three
            // bytes after its first.)
            let read = range.start..(range.end + 3).min(len);
            let valid = |bytes: &[u8]| {
                let char_start = |at: usize| {
                    let end = (at + 3).min(bytes.len());
                    (at..end)
                        .find(|&i| !is_continuation(bytes[i]))
                        .unwrap_or(end)
                };
                let from = if range.start == 0 { 0 } else { char_start(0) };
                let to = char_start(range.len());
                std::str::from_utf8(&bytes[from..to]).is_ok()
            };
            text.with_bytes(read, valid).unwrap_or(false)
        });
        match valid {
            true => Ok(Text::File(text)),
            false => Err(text.file),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Text::Owned(text) => text.len(),
            Text::File(file) => file.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text is read from its file when asked (a big file).
    pub fn is_file(&self) -> bool {
        matches!(self, Text::File(_))
    }

    /// Whether a read found the file changed since it was opened.
    pub fn changed(&self) -> bool {
        match self {
            Text::Owned(_) => false,
            Text::File(file) => file.changed.load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The bytes of `range` (not checked to be UTF-8: for searches). `Err` when the range is
    /// not in the text, or the file no longer holds it.
    pub fn bytes(&self, range: std::ops::Range<usize>) -> Result<Cow<'_, [u8]>, Changed> {
        match self {
            Text::Owned(text) => text.as_bytes().get(range).map(Cow::Borrowed).ok_or(Changed),
            Text::File(file) => file.read(range).map(Cow::Owned),
        }
    }

    /// What `f` makes of the bytes of `range` (not checked to be UTF-8: for the passes that
    /// search a big file a slice at a time). A file's slice is read into a buffer the thread
    /// keeps for its next slice: new memory for each would cost a page fault for every page.
    pub fn with_bytes<R>(
        &self,
        range: std::ops::Range<usize>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Changed> {
        match self {
            Text::Owned(text) => text.as_bytes().get(range).map(f).ok_or(Changed),
            Text::File(file) => file.with_bytes(range, f),
        }
    }

    /// The text of `range`. `Err` when it is not text from a character to a character (which a
    /// file checked whole can only be if it changed since).
    pub fn str(&self, range: std::ops::Range<usize>) -> Result<Cow<'_, str>, Changed> {
        match self {
            Text::Owned(text) => text.get(range).map(Cow::Borrowed).ok_or(Changed),
            Text::File(file) => {
                let bytes = file.read(range)?;
                String::from_utf8(bytes)
                    .map(Cow::Owned)
                    .map_err(|_| file.fail())
            }
        }
    }

    /// Call `each` with the bytes of `range` and their offset, in order, a block at a time for
    /// a file, until it returns `false`. `Err` if a read fails.
    pub fn scan(
        &self,
        range: std::ops::Range<usize>,
        mut each: impl FnMut(usize, &[u8]) -> bool,
    ) -> Result<(), Changed> {
        let Text::File(_) = self else {
            each(range.start, &self.bytes(range)?);
            return Ok(());
        };
        let mut at = range.start;
        // Most scans stop within a few lines (a line number for a report): blocks start small
        // and grow to `BLOCK`.
        let mut block = 4 << 10;
        while at < range.end {
            let to = (at + block).min(range.end);
            block = (block * 2).min(BLOCK);
            // Into the thread's buffer: a new one for each block would be new memory, faulted
            // in page by page, for every line number a report asks for.
            if !self.with_bytes(at..to, |bytes| each(at, bytes))? {
                break;
            }
            at = to;
        }
        Ok(())
    }

    /// Where `pattern` first occurs at or after `from` (searched to the end of the text).
    pub fn find(&self, from: usize, pattern: &[u8]) -> Option<usize> {
        let mut found = None;
        let mut at = from;
        // Blocks overlap by the pattern's length, less one, to find it across their ends.
        let reach = pattern.len().saturating_sub(1);
        while found.is_none() && at < self.len() {
            let to = (at + BLOCK).min(self.len());
            found = self
                .with_bytes(at..(to + reach).min(self.len()), |bytes| {
                    memchr::memmem::find(bytes, pattern).map(|i| at + i)
                })
                .ok()?;
            at = to;
        }
        found
    }

    /// Whether `offset` is at a character (or at the end); a bad read is not.
    pub fn is_char_boundary(&self, offset: usize) -> bool {
        match self.bytes(offset..(offset + 1).min(self.len())) {
            Ok(byte) => byte.first().is_none_or(|&b| !is_continuation(b)),
            Err(Changed) => false,
        }
    }

    /// A span covering the character at `offset` (or an empty span at the end of the text).
    pub fn char_span(&self, offset: usize) -> Span {
        let offset = offset.min(self.len());
        // The character's first byte is at most three bytes back.
        let from = offset.saturating_sub(3);
        let bytes = self
            .bytes(from..(offset + 4).min(self.len()))
            .unwrap_or_default();
        let mut at = offset - from;
        while at > 0 && bytes.get(at).is_some_and(|&b| is_continuation(b)) {
            at -= 1;
        }
        let len = match bytes.get(at) {
            None => 0,
            Some(&b) if b < 0x80 => 1,
            Some(&b) if b >= 0xF0 => 4,
            Some(&b) if b >= 0xE0 => 3,
            Some(_) => 2,
        };
        let start = from + at;
        Span::new(start, (start + len).min(self.len()))
    }
}

impl FileText {
    /// The bytes of `range`, read from the file.
    fn read(&self, range: std::ops::Range<usize>) -> Result<Vec<u8>, Changed> {
        let mut bytes = Vec::new();
        self.read_into(range, &mut bytes)?;
        Ok(bytes)
    }

    /// See [`Text::with_bytes`].
    fn with_bytes<R>(
        &self,
        range: std::ops::Range<usize>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, Changed> {
        thread_local! {
            static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
        }
        // Taken while in use, so that `f` may read too (into a buffer of its own).
        let mut buffer = BUFFER.take();
        let result = self.read_into(range, &mut buffer).map(|()| f(&buffer));
        BUFFER.set(buffer);
        result
    }

    /// Read the bytes of `range` into `bytes`, in place of what it held.
    fn read_into(&self, range: std::ops::Range<usize>, bytes: &mut Vec<u8>) -> Result<(), Changed> {
        if range.start > range.end || range.end > self.len {
            return Err(Changed);
        }
        // Only new room is zeroed: a buffer used before is overwritten as it is.
        bytes.resize(range.len(), 0);
        let mut done = 0;
        while done < bytes.len() {
            match read_at(&self.file, &mut bytes[done..], (range.start + done) as u64) {
                // The file is shorter than when it was opened.
                Ok(0) => return Err(self.fail()),
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(self.fail()),
            }
        }
        Ok(())
    }

    fn fail(&self) -> Changed {
        self.changed
            .store(true, std::sync::atomic::Ordering::Relaxed);
        Changed
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, bytes: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, bytes, at)
}

#[cfg(windows)]
fn read_at(file: &std::fs::File, bytes: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, bytes, at)
}

#[cfg(not(any(unix, windows)))]
fn read_at(_: &std::fs::File, _: &mut [u8], _: u64) -> std::io::Result<usize> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// The text of `bytes` as a big file's is read, from a file of its own (removed at once: it
/// stays readable while it is open); the offset of the first byte that is not UTF-8 when they
/// are not text.
#[cfg(test)]
pub(crate) fn file_for_test(bytes: &[u8]) -> Result<Text, usize> {
    let (path, file) = test_file(bytes);
    let _ = std::fs::remove_file(&path);
    Text::open(file, bytes.len())
        .map_err(|_| std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |_| usize::MAX))
}

/// A new file holding `bytes`, and its path.
#[cfg(test)]
pub(crate) fn test_file(bytes: &[u8]) -> (std::path::PathBuf, std::fs::File) {
    static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("ownerlint-text-{}-{n}", std::process::id()));
    std::fs::write(&path, bytes).expect("write");
    let file = std::fs::File::open(&path).expect("open");
    (path, file)
}

/// How much of a big file a pass reads at a time; passes over a big text also take it this
/// much at a time in parallel.
pub const SLICE: usize = 1 << 20;

/// `0..len` in consecutive ranges of [`SLICE`] bytes (the last one shorter).
pub fn slices(len: usize) -> Vec<std::ops::Range<usize>> {
    (0..len)
        .step_by(SLICE)
        .map(|from| from..(from + SLICE).min(len))
        .collect()
}

/// What `find` returns for each of [`slices`]`(len)`, in order: found in parallel when there
/// are several slices.
pub fn find_in_slices<T: Send>(
    len: usize,
    find: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    if len <= SLICE {
        return find(0..len);
    }
    let parts: Vec<Vec<T>> = slices(len).into_par_iter().map(&find).collect();
    parts.into_iter().flatten().collect()
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Text::Owned(_) => write!(f, "Text::Owned({} bytes)", self.len()),
            Text::File(_) => write!(f, "Text::File({} bytes)", self.len()),
        }
    }
}

/// Part of a source's text, read on its own (a document, a List item), and where it starts in
/// the source: the spans of what is parsed from it stay offsets in the source.
#[derive(Clone, Copy, Debug)]
pub struct Part<'a> {
    pub text: &'a str,
    pub base: usize,
}

impl<'a> Part<'a> {
    /// The text of `span` (offsets in the source), if it is in this part.
    pub fn get(&self, span: Span) -> Option<&'a str> {
        let start = span.start.checked_sub(self.base)?;
        let end = span.end.checked_sub(self.base)?;
        self.text.get(start..end)
    }

    /// The text from offset `at` of the source to the end of the part.
    pub fn from(&self, at: usize) -> Option<&'a str> {
        self.text.get(at.checked_sub(self.base)?..)
    }
}

/// The flag that lets kustomize fetch the remote references an overlay names (the build
/// refuses them without it, and the rules' help names it).
pub const ALLOW_REMOTE_FLAG: &str = "--allow-remote-bases";

/// The tool that builds a chart's or an overlay's folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    Helm,
    Kustomize,
}

/// One input: a file, standard input or a context file.
#[derive(Debug)]
pub struct Source {
    /// What the user sees: the path as given or found, or `<stdin>`.
    pub name: String,
    pub text: Text,
    /// The tool that built it, for what a chart or an overlay builds.
    pub built_by: Option<Tool>,
    /// Where lines start, built the first time a position is asked for: a big input without
    /// findings never needs it.
    /// (Shared by the copies of a source, as its text is.)
    lines: std::sync::Arc<std::sync::OnceLock<LineIndex>>,
    /// Marks every [`CHARS_EVERY`] bytes, built the first time a position is asked for far
    /// into a long line (a List written on one line): its line and column are then counted
    /// from the nearest mark, not from the line's start.
    marks: std::sync::Arc<std::sync::OnceLock<Box<Marks>>>,
}

/// The characters and the newlines before each [`CHARS_EVERY`] bytes of a text.
#[derive(Debug)]
struct Marks {
    chars: Vec<usize>,
    newlines: Vec<usize>,
}

impl Source {
    /// A copy of a source held in memory; `None` for a big file read from disk when asked.
    pub fn try_clone(&self) -> Option<Source> {
        match &self.text {
            Text::Owned(text) => Some(Source {
                name: self.name.clone(),
                text: Text::Owned(std::sync::Arc::clone(text)),
                built_by: self.built_by,
                lines: std::sync::Arc::clone(&self.lines),
                marks: std::sync::Arc::clone(&self.marks),
            }),
            Text::File(_) => None,
        }
    }

    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source::with_text(name, Text::Owned(std::sync::Arc::new(text.into())))
    }

    pub fn with_text(name: impl Into<String>, text: Text) -> Self {
        Source {
            name: name.into(),
            text,
            built_by: None,
            lines: Default::default(),
            marks: Default::default(),
        }
    }

    /// Build the line index now, in parallel, rather than when the first finding needs it.
    pub fn index_lines(&self) {
        self.lines();
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_index = self.line_index(offset);
        let line_start = self.line_start(line_index);
        // Characters are counted by their first bytes (the text is UTF-8); an offset inside a
        // character counts bytes.
        let column = match self.text.is_char_boundary(offset) {
            true if offset - line_start > CHARS_EVERY => self
                .chars_before(offset)
                .saturating_sub(self.chars_before(line_start)),
            true => self.count_chars(line_start..offset),
            // (Saturating: positions read from a file that changed meanwhile need not agree.)
            false => offset.saturating_sub(line_start),
        } + 1;
        LineCol {
            line: line_index + 1,
            column,
        }
    }

    /// Characters (first bytes of UTF-8 sequences) in `range`.
    fn count_chars(&self, range: std::ops::Range<usize>) -> usize {
        let mut chars = 0;
        let _ = self.text.scan(range, |_, bytes| {
            chars += bytes.iter().filter(|&&b| !is_continuation(b)).count();
            true
        });
        chars
    }

    /// The marks, counted the first time they are needed.
    fn marks(&self) -> &Marks {
        self.marks.get_or_init(|| {
            let mut marks = Marks {
                chars: vec![0],
                newlines: vec![0],
            };
            let mut at = 0;
            while at + CHARS_EVERY <= self.text.len() {
                let range = at..at + CHARS_EVERY;
                let chars = marks.chars.last().copied().unwrap_or(0);
                marks.chars.push(chars + self.count_chars(range.clone()));
                let newlines = marks.newlines.last().copied().unwrap_or(0);
                marks.newlines.push(newlines + self.count_newlines(range));
                at += CHARS_EVERY;
            }
            Box::new(marks)
        })
    }

    /// Characters before `offset`, counted from the nearest mark below it.
    fn chars_before(&self, offset: usize) -> usize {
        let marks = &self.marks().chars;
        let mark = (offset / CHARS_EVERY).min(marks.len() - 1);
        marks[mark] + self.count_chars(mark * CHARS_EVERY..offset)
    }

    /// 0-based index of the line holding `offset`.
    pub fn line_index(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        let (from, line) = self.lines().before_offset(offset);
        if offset - from <= CHARS_EVERY {
            return line + self.count_newlines(from..offset);
        }
        // Far into a long line: from the nearest mark, not from the line's start.
        let marks = &self.marks().newlines;
        let mark = (offset / CHARS_EVERY).min(marks.len() - 1);
        marks[mark] + self.count_newlines(mark * CHARS_EVERY..offset)
    }

    /// Line breaks in `range`.
    fn count_newlines(&self, range: std::ops::Range<usize>) -> usize {
        let mut newlines = 0;
        let _ = self.text.scan(range, |_, bytes| {
            newlines += memchr::memchr_iter(b'\n', bytes).count();
            true
        });
        newlines
    }

    /// Byte offset where 0-based line `index` starts (the text's length past the last line).
    pub fn line_start(&self, index: usize) -> usize {
        let lines = self.lines();
        if index >= lines.count {
            return self.text.len();
        }
        let (from, line) = lines.before_line(index);
        let Some(mut more) = (index - line).checked_sub(1) else {
            return from;
        };
        let mut start = self.text.len();
        let _ = self.text.scan(from..self.text.len(), |at, bytes| {
            for i in memchr::memchr_iter(b'\n', bytes) {
                if more == 0 {
                    start = at + i + 1;
                    return false;
                }
                more -= 1;
            }
            true
        });
        start
    }

    pub fn line_count(&self) -> usize {
        self.lines().count
    }

    /// The text of 0-based line `index`, without its line break (empty if it cannot be read).
    pub fn line_text(&self, index: usize) -> Cow<'_, str> {
        let start = self.line_start(index);
        let end = self.line_start(index + 1).min(self.text.len());
        match self.text.str(start..end).unwrap_or_default() {
            Cow::Borrowed(line) => Cow::Borrowed(line.trim_end_matches(['\n', '\r'])),
            Cow::Owned(line) => Cow::Owned(line.trim_end_matches(['\n', '\r']).to_string()),
        }
    }
}

/// Columns far into a line are counted from marks this many bytes apart.
const CHARS_EVERY: usize = 16 << 10;

/// Lines are counted from the nearest checkpoint before them; there is one in every this many
/// bytes of text, so the index stays small for a file of millions of lines.
const CHECKPOINT_EVERY: usize = 8 << 10;

#[derive(Debug)]
struct LineIndex {
    /// Line starts (offset, 0-based line), in order: the first line, and the first line that
    /// starts in each later [`CHECKPOINT_EVERY`] bytes.
    checkpoints: Vec<(usize, usize)>,
    count: usize,
}

impl LineIndex {
    /// The index of `text`, read in slices in parallel, each counting its lines from 0; the
    /// counts are then made absolute. (A slice that cannot be read counts no lines: the text
    /// is then marked changed, and the run reports it.)
    fn new(text: &Text) -> LineIndex {
        use rayon::prelude::*;
        let parts: Vec<(Vec<(usize, usize)>, usize)> = slices(text.len())
            .into_par_iter()
            .map(|range| {
                let mut checkpoints = Vec::new();
                let mut newlines = 0;
                let mut next = range.start;
                let _ = text.with_bytes(range.clone(), |bytes| {
                    for at in memchr::memchr_iter(b'\n', bytes) {
                        let line_start = range.start + at + 1;
                        newlines += 1;
                        if line_start >= next {
                            checkpoints.push((line_start, newlines));
                            next = (line_start / CHECKPOINT_EVERY + 1) * CHECKPOINT_EVERY;
                        }
                    }
                });
                (checkpoints, newlines)
            })
            .collect();
        let mut checkpoints = vec![(0, 0)];
        let mut lines_before = 0;
        for (part, newlines) in parts {
            checkpoints.extend(part.into_iter().map(|(at, n)| (at, lines_before + n)));
            lines_before += newlines;
        }
        LineIndex {
            checkpoints,
            count: lines_before + 1,
        }
    }

    /// The last checkpoint at or before byte `offset`.
    fn before_offset(&self, offset: usize) -> (usize, usize) {
        self.checkpoints[self.checkpoints.partition_point(|&(at, _)| at <= offset) - 1]
    }

    /// The last checkpoint at or before 0-based line `line`.
    fn before_line(&self, line: usize) -> (usize, usize) {
        self.checkpoints[self.checkpoints.partition_point(|&(_, n)| n <= line) - 1]
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
    fn positions_far_into_a_long_line_are_those_counted_from_its_start() {
        // A List written on one line (`jq -c`), with characters of several bytes, then a
        // second line: each position is counted from the marks, and must be exact.
        let mut text = String::new();
        for i in 0..6000 {
            text.push_str(&format!("{{\"name\":\"ç-{i}\",\"v\":\"é\"}},"));
        }
        text.push_str("\nsecond: line");
        let source = Source::new("t", text.clone());
        for offset in (0..text.len()).step_by(7919).chain([text.len() - 3]) {
            if !text.is_char_boundary(offset) {
                continue;
            }
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |at| at + 1);
            let column = text[line_start..offset].chars().count() + 1;
            assert_eq!(
                source.line_col(offset),
                LineCol { line, column },
                "{offset}"
            );
        }
    }

    use super::file_for_test as file;

    #[test]
    fn the_first_passes_over_a_file_read_it_as_the_text_in_memory() {
        let document = "---\nkind: ConfigMap\nmetadata:\n  name: x # ownerlint: ignore[a]\n";
        let count = 3 * SLICE / document.len();
        let whole = document.repeat(count);
        let read = Source::with_text("big", file(whole.as_bytes()).expect("UTF-8"));
        let held = Source::new("big", whole.clone());
        assert!(read.text.is_file());
        assert_eq!(read.line_count(), 4 * count + 1);
        for offset in (0..whole.len()).step_by(SLICE / 3 + 7) {
            assert_eq!(read.line_col(offset), held.line_col(offset), "{offset}");
        }
        let (suppressions, malformed) = crate::suppress::from_comments(SourceId(0), &read);
        let (expected, _) = crate::suppress::from_comments(SourceId(0), &held);
        assert_eq!(suppressions.len(), count);
        assert_eq!(format!("{suppressions:?}"), format!("{expected:?}"));
        assert!(malformed.is_empty());
        let chunks = crate::yaml::split_text(&read.text, 0);
        assert_eq!(chunks, crate::yaml::split_documents(&whole, 0));
        assert_eq!(chunks.len(), count);
        assert!(!read.text.changed());
    }

    #[test]
    fn a_file_is_checked_across_slices_and_read_as_text() {
        // A two-byte character across the end of the first slice.
        let mut bytes = vec![b'a'; SLICE - 1];
        bytes.extend_from_slice("é: x\n".as_bytes());
        let text = file(&bytes).expect("UTF-8");
        assert!(text.is_file());
        assert_eq!(text.bytes(0..bytes.len()).as_deref(), Ok(&bytes[..]));
        assert_eq!(text.str(SLICE - 1..SLICE + 1).as_deref(), Ok("é"));
        let source = Source::with_text("big", text);
        assert_eq!(source.line_text(0).len(), SLICE - 1 + "é: x".len());
        assert_eq!(
            source.line_col(SLICE + 1),
            LineCol {
                line: 1,
                column: SLICE + 1
            }
        );
        // Inside the character: counted in bytes, as for a text in memory.
        assert_eq!(source.line_col(SLICE).column, SLICE + 1);
        assert_eq!(
            source.text.char_span(SLICE),
            Span::new(SLICE - 1, SLICE + 1)
        );
        assert!(!source.text.changed());

        // A bad byte after the first slice, and a character cut off by the end of the file.
        let mut bad = vec![b'a'; SLICE + 5];
        bad.push(0xff);
        assert_eq!(file(&bad).err(), Some(SLICE + 5));
        let mut cut = vec![b'a'; 10];
        cut.push(0xc3);
        assert_eq!(file(&cut).err(), Some(10));
    }

    #[test]
    fn a_file_that_changes_while_it_is_read_is_an_error_not_a_panic() {
        let document = "---\nkind: ConfigMap\nmetadata:\n  name: é\n";
        let whole = document.repeat(2 * SLICE / document.len());
        let (path, opened) = test_file(whole.as_bytes());
        let text = Text::open(opened, whole.len()).expect("UTF-8");
        // Rewritten in place, with the same length: a character cut in two.
        let at = whole.find('é').expect("é");
        let mut rewritten = whole.clone().into_bytes();
        rewritten[at] = b'x';
        std::fs::write(&path, &rewritten).expect("rewrite");
        assert_eq!(text.str(at..at + 2), Err(Changed));
        assert!(text.changed());
        let _ = std::fs::remove_file(&path);
        // Cut short.
        let (path, opened) = test_file(whole.as_bytes());
        let source = Source::with_text("big", Text::open(opened, whole.len()).expect("UTF-8"));
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(SLICE as u64))
            .expect("truncate");
        assert_eq!(source.text.str(0..document.len()).as_deref(), Ok(document));
        assert_eq!(source.text.bytes(SLICE - 1..SLICE + 1), Err(Changed));
        assert!(source.text.changed());
        // Every reader copes: positions, lines, loading.
        let _ = source.line_col(whole.len() - 1);
        let _ = source.line_text(source.line_count() - 2);
        let _ = crate::load::load(SourceId(0), &source, crate::load::LoadOptions::default());
        let _ = crate::suppress::from_comments(SourceId(0), &source);
        let _ = std::fs::remove_file(&path);
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

    #[test]
    fn lines_across_parallel_slices() {
        // Lines of varied lengths over three slices, one longer than a checkpoint's stretch
        // and one across a slice boundary, every position checked against a plain count.
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 2 * SLICE + 100_000 {
            let width = match i % 7 {
                0 => 0,
                3 => 20_000,
                _ => i % 90,
            };
            text.push_str(&"x".repeat(width));
            text.push('\n');
            i += 1;
        }
        text.push_str("last");
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        let s = Source::new("t", text.clone());
        assert_eq!(s.line_count(), starts.len());
        for (line, &start) in starts.iter().enumerate().step_by(997) {
            assert_eq!(s.line_start(line), start, "line {line}");
            assert_eq!(s.line_index(start), line);
        }
        for offset in (0..text.len()).step_by(40_009) {
            let line = starts.partition_point(|&at| at <= offset) - 1;
            assert_eq!(s.line_index(offset), line, "offset {offset}");
        }
        assert_eq!(s.line_text(starts.len() - 1), "last");
    }

    #[test]
    fn a_text_that_starts_inside_a_character_is_not_text() {
        assert_eq!(file(b"\x89PNG\r\n").err(), Some(0));
        let mut bytes = vec![0x80];
        bytes.extend(std::iter::repeat_n(b'a', 2 * SLICE));
        assert_eq!(file(&bytes).err(), Some(0));
    }

    #[test]
    fn a_bad_byte_in_a_later_slice_is_found_exactly() {
        // Three-byte characters, so that slices end inside characters.
        let mut bytes = "€".repeat(SLICE).into_bytes();
        assert!(file(&bytes).is_ok());
        bytes[2 * SLICE + 11] = 0xFF;
        let expected = std::str::from_utf8(&bytes).unwrap_err().valid_up_to();
        assert_eq!(file(&bytes).err(), Some(expected));
    }
}
