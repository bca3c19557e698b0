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
    /// UTF-8, when they are not text. The check runs a slice at a time, in parallel, and lets
    /// each slice's pages go behind it, like every later pass over a mapped text: memory then
    /// never holds the whole file, only the slices being read and the objects made so far.
    pub fn map(map: memmap2::Mmap) -> Result<Text, (memmap2::Mmap, usize)> {
        use rayon::prelude::*;
        let bytes = &map[..];
        // Each later slice is moved to start at a character, so that valid slices make valid
        // text. (A character has at most three bytes after its first; the bytes passed over
        // end the slice before, and the text's first byte is never passed over.)
        let char_start = |at: usize| {
            let end = if at == 0 {
                0
            } else {
                (at + 3).min(bytes.len())
            };
            (at..end)
                .find(|&i| !is_continuation(bytes[i]))
                .unwrap_or(end)
        };
        let valid = slices(bytes.len()).into_par_iter().all(|range| {
            let (from, to) = (char_start(range.start), char_start(range.end));
            let valid = std::str::from_utf8(&bytes[from..to]).is_ok();
            release_range(&map, range.start, range.end);
            valid
        });
        // Again for the pages read back where a slice's check ran into the next slice.
        release_range(&map, 0, map.len());
        if valid {
            return Ok(Text::Mapped(map));
        }
        // Rare: the offset of the first bad byte, for the finding.
        match std::str::from_utf8(&map) {
            Ok(_) => Ok(Text::Mapped(map)),
            Err(e) => Err((map, e.valid_up_to())),
        }
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

    /// How many bytes of a mapped text are in this process's memory now (its `Rss` in
    /// `/proc/self/smaps`).
    #[cfg(all(test, target_os = "linux"))]
    pub(crate) fn resident(&self) -> usize {
        let Text::Mapped(map) = self else {
            return self.len();
        };
        let at = map.as_ptr() as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut lines = smaps.lines();
        while let Some(line) = lines.next() {
            let range = line.split(' ').next().unwrap_or("");
            let Some((from, to)) = range.split_once('-') else {
                continue;
            };
            let (Ok(from), Ok(to)) = (
                usize::from_str_radix(from, 16),
                usize::from_str_radix(to, 16),
            ) else {
                continue;
            };
            if (from..to).contains(&at) {
                let rss = lines
                    .find_map(|l| l.strip_prefix("Rss:"))
                    .expect("Rss line");
                let kb: usize = rss
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .expect("kB");
                return kb << 10;
            }
        }
        panic!("the map is not in /proc/self/smaps")
    }
}

/// A mapped text of `bytes`, from a file of its own that is gone once mapped; the offset of
/// the first byte that is not UTF-8 when they are not text.
#[cfg(test)]
pub(crate) fn mapped_for_test(bytes: &[u8]) -> Result<Text, usize> {
    static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("ownerlint-text-{}-{n}", std::process::id()));
    std::fs::write(&path, bytes).expect("write");
    let file = std::fs::File::open(&path).expect("open");
    // SAFETY: the file is this test's own, and nothing changes it.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("map");
    let _ = std::fs::remove_file(&path);
    Text::map(map).map_err(|(_, at)| at)
}

/// How much of a mapped text a pass reads before letting its pages go; passes over a big
/// text also take it this much at a time in parallel.
pub const RELEASE_SLICE: usize = 4 << 20;

/// `0..len` in consecutive ranges of [`RELEASE_SLICE`] bytes (the last one shorter).
pub fn slices(len: usize) -> Vec<std::ops::Range<usize>> {
    (0..len)
        .step_by(RELEASE_SLICE)
        .map(|from| from..(from + RELEASE_SLICE).min(len))
        .collect()
}

/// What `find` returns for each of [`slices`]`(len)`, in order: found in parallel when there
/// are several slices. `done` is called with each slice when `find` is done with it, and with
/// `0..len` at the end: a pass over a mapped text lets the pages go there (`Text::release`),
/// the last time for those read back where a search reached past its slice's end.
pub fn find_in_slices<T: Send>(
    len: usize,
    find: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync,
    done: impl Fn(std::ops::Range<usize>) + Sync,
) -> Vec<T> {
    use rayon::prelude::*;
    if len <= RELEASE_SLICE {
        let found = find(0..len);
        done(0..len);
        return found;
    }
    let parts: Vec<Vec<T>> = slices(len)
        .into_par_iter()
        .map(|range| {
            let found = find(range.clone());
            done(range);
            found
        })
        .collect();
    done(0..len);
    parts.into_iter().flatten().collect()
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The system maps the pages around the one a read faults in, within a block of this many
/// bytes (Linux's `fault_around_bytes`), so a release takes whole blocks: a range's neighbours
/// would otherwise keep in the pages that reading it brought in around its ends. (A page cache
/// of large folios maps a whole folio at once, which can be more: passes also release all they
/// read once they are done.)
const FAULT_AROUND: usize = 64 << 10;

fn release_range(map: &memmap2::Mmap, from: usize, to: usize) {
    if to <= from {
        return;
    }
    let from = from / FAULT_AROUND * FAULT_AROUND;
    let to = to
        .div_ceil(FAULT_AROUND)
        .saturating_mul(FAULT_AROUND)
        .min(map.len());
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

    /// Build the line index now, in parallel, rather than when the first finding needs it.
    pub fn index_lines(&self) {
        self.lines.get_or_init(|| LineIndex::new(&self.text));
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
        let offset = offset.min(self.text.len());
        let (from, line) = self.lines().before_offset(offset);
        line + memchr::memchr_iter(b'\n', &self.text.as_bytes()[from..offset]).count()
    }

    /// Byte offset where 0-based line `index` starts (the text's length past the last line).
    pub fn line_start(&self, index: usize) -> usize {
        let lines = self.lines();
        if index >= lines.count {
            return self.text.len();
        }
        let (from, line) = lines.before_line(index);
        match index - line {
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
    /// counts are then made absolute. Each slice of a mapped text lets its pages go behind it.
    fn new(text: &Text) -> LineIndex {
        use rayon::prelude::*;
        let bytes = text.as_bytes();
        let parts: Vec<(Vec<(usize, usize)>, usize)> = slices(bytes.len())
            .into_par_iter()
            .map(|range| {
                let mut checkpoints = Vec::new();
                let mut newlines = 0;
                let mut next = range.start;
                for at in memchr::memchr_iter(b'\n', &bytes[range.clone()]) {
                    let line_start = range.start + at + 1;
                    newlines += 1;
                    if line_start >= next {
                        checkpoints.push((line_start, newlines));
                        next = (line_start / CHECKPOINT_EVERY + 1) * CHECKPOINT_EVERY;
                    }
                }
                text.release(range);
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

    use super::mapped_for_test as mapped;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_first_passes_over_a_mapped_text_let_its_pages_go() {
        let document = "---\nkind: ConfigMap\nmetadata:\n  name: x # a comment\n";
        let count = 3 * RELEASE_SLICE / document.len();
        let text = mapped(document.repeat(count).as_bytes()).expect("UTF-8");
        // Pages a pass let go may be read back around a slice's ends, never the whole file.
        let little = RELEASE_SLICE / 4;
        assert!(text.resident() < little, "after the UTF-8 check");
        let source = Source::with_text("big", text);
        source.index_lines();
        assert!(source.text.resident() < little, "after the line index");
        assert_eq!(source.line_count(), 4 * count + 1);
        let (suppressions, malformed) = crate::suppress::from_comments(SourceId(0), &source);
        assert!(suppressions.is_empty() && malformed.is_empty());
        assert!(
            source.text.resident() < little,
            "after looking for suppressions"
        );
        let chunks = crate::load::yaml::split_documents_then(&source.text, 0, |range| {
            source.text.release(range)
        });
        assert_eq!(chunks.len(), count);
        assert!(
            source.text.resident() < little,
            "after splitting: {}",
            source.text.resident()
        );
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

    #[test]
    fn lines_across_parallel_slices() {
        // Lines of varied lengths over three slices, one longer than a checkpoint's stretch
        // and one across a slice boundary, every position checked against a plain count.
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 2 * RELEASE_SLICE + 100_000 {
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
        assert_eq!(mapped(b"\x89PNG\r\n").err(), Some(0));
        let mut bytes = vec![0x80];
        bytes.extend(std::iter::repeat_n(b'a', 2 * RELEASE_SLICE));
        assert_eq!(mapped(&bytes).err(), Some(0));
    }

    #[test]
    fn a_bad_byte_in_a_later_slice_is_found_exactly() {
        // Three-byte characters, so that slices end inside characters.
        let mut bytes = "€".repeat(RELEASE_SLICE).into_bytes();
        assert!(mapped(&bytes).is_ok());
        bytes[2 * RELEASE_SLICE + 11] = 0xFF;
        let expected = std::str::from_utf8(&bytes).unwrap_err().valid_up_to();
        assert_eq!(mapped(&bytes).err(), Some(expected));
    }
}
