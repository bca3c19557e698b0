//! A validating line scanner for block-style YAML as `kubectl`, `helm template` and most people
//! write it: plain and quoted keys, `- ` items, plain, quoted and block scalars, and flow
//! collections that close on their line.
//!
//! The fast path drops the lines no rule reads, so a syntax error there would go unreported
//! unless something checks it. This scanner reads every line once and returns the lines with
//! their indentation only when a full YAML parse would accept the document and read the same
//! structure from its indentation. Whatever it is not sure of — flow collections over several
//! lines or with unusual scalars, anchors, aliases, tags, tabs outside block scalar text, CR
//! line ends, control characters, directives, explicit keys, long keys, nesting near the limit,
//! template text — returns `None`, and the document is parsed whole.

use memchr::{memchr, memchr2_iter, memchr3_iter, memmem};

/// One line of a document: its byte range (with its newline) and indentation.
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub start: usize,
    pub end: usize,
    pub indent: usize,
    /// Blank, or only a comment: it belongs to whatever entry surrounds it.
    pub blank: bool,
}

/// The lines of `text`, if it is block YAML this scanner can vouch for.
pub fn scan(text: &str, max_depth: usize) -> Option<Vec<Line>> {
    let mut lines = Vec::new();
    scan_into(text, max_depth, &mut lines)?;
    Some(lines)
}

/// [`scan`] into a list kept by this thread: documents are scanned one after another, and one
/// list saves sizing and allocating a new one for each.
pub fn with_lines<R>(
    text: &str,
    max_depth: usize,
    read: impl FnOnce(&[Line]) -> Option<R>,
) -> Option<R> {
    thread_local! {
        static LINES: std::cell::RefCell<Vec<Line>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    LINES.with(|cell| match cell.try_borrow_mut() {
        Ok(mut lines) => {
            scan_into(text, max_depth, &mut lines)?;
            read(&lines)
        }
        // Called while a scan on this thread is being read: a list of its own.
        Err(_) => read(&scan(text, max_depth)?),
    })
}

fn scan_into(text: &str, max_depth: usize, lines: &mut Vec<Line>) -> Option<()> {
    lines.clear();
    let bytes = text.as_bytes();
    if !printable(bytes) || memmem::find(bytes, b"{{").is_some() {
        return None;
    }
    let mut scanner = Scanner {
        stack: Vec::new(),
        pending: Pending::Start,
        max_depth,
        comment_run: 0,
        tabs: memchr(b'\t', bytes).is_some(),
    };
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1);
        let line = bytes[start..end]
            .strip_suffix(b"\n")
            .unwrap_or(&bytes[start..end]);
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        let blank = scanner.line(line, indent)?;
        lines.push(Line {
            start,
            end,
            indent,
            blank,
        });
        start = end;
    }
    scanner.finish()
}

/// No byte a YAML parser could treat differently from plain text: controls other than the
/// newline and tab (this includes CR), DEL, C1 controls, NEL and the Unicode line separators
/// (line breaks in YAML 1.1), the non-characters U+FFFE/U+FFFF and byte order marks.
pub(crate) fn printable(bytes: &[u8]) -> bool {
    !bytes.chunks(256).any(has_controls) && printable_unicode(bytes)
}

/// Controls other than the newline and tab, and DEL: with no early exit, so it is vectorised.
fn has_controls(chunk: &[u8]) -> bool {
    chunk.iter().fold(false, |bad, &b| {
        bad | ((b < 0x20 && b != b'\n' && b != b'\t') | (b == 0x7f))
    })
}

/// The multi-byte characters of [`printable`]'s list.
fn printable_unicode(bytes: &[u8]) -> bool {
    memchr3_iter(0xc2, 0xe2, 0xef, bytes).all(|i| {
        let next = (bytes.get(i + 1).copied(), bytes.get(i + 2).copied());
        match bytes[i] {
            0xc2 => !matches!(next.0, Some(0x80..=0x9f)),
            0xe2 => !matches!(next, (Some(0x80), Some(0xa8 | 0xa9))),
            _ => !matches!(
                next,
                (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))
            ),
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Map,
    Seq,
    /// A sequence at the same indentation as the key it is the value of.
    IndentlessSeq,
}

/// What the previous lines leave open.
#[derive(Clone, Copy)]
enum Pending {
    /// Nothing read yet.
    Start,
    /// The last value is complete.
    Done,
    /// `key:` or `-` with nothing after it: a nested block may follow, more indented than
    /// `parent` (or at the same indentation, for a `- ` sequence that is a key's value).
    Nested { parent: usize, after_key: bool },
    /// A plain scalar that may go on over lines more indented than `parent`.
    Plain { parent: usize },
    /// A `|` or `>` scalar: lines more indented than `parent` are its text; `content` is the
    /// indentation of its first line, `leading` the longest blank line before it.
    Literal {
        parent: usize,
        content: Option<usize>,
        leading: usize,
    },
    /// A quoted scalar that goes on to the next line.
    Quoted { parent: usize, double: bool },
}

struct Scanner {
    stack: Vec<(usize, Block)>,
    pending: Pending,
    max_depth: usize,
    /// Consecutive comment lines: the parser buffers them in some places, up to a limit.
    comment_run: usize,
    /// Whether the document has tabs: they are accepted only inside the text of `|` and `>`
    /// scalars, after a line's first character.
    tabs: bool,
}

/// The longest plain key accepted; YAML limits implicit keys to 1024 characters.
const MAX_KEY: usize = 1000;
/// Consecutive comment lines accepted; the parser's buffer holds 96 in some positions.
const MAX_COMMENT_RUN: usize = 64;

impl Scanner {
    /// Read one line (without its newline); `Some(blank)` when it fits.
    fn line(&mut self, line: &[u8], indent: usize) -> Option<bool> {
        if indent >= self.max_depth {
            return None;
        }
        let rest = trim_end(&line[indent..]);
        if let Pending::Literal {
            parent,
            content,
            leading,
        } = &mut self.pending
        {
            if rest.is_empty() {
                if content.is_none() {
                    *leading = (*leading).max(line.len());
                }
                return Some(true);
            }
            let text_line = match *content {
                None if indent > *parent => {
                    if *leading > indent {
                        return None;
                    }
                    *content = Some(indent);
                    true
                }
                Some(c) => indent >= c,
                None => false,
            };
            if text_line {
                return (rest[0] != b'\t').then_some(false);
            }
            if indent > *parent {
                return None;
            }
            self.pending = Pending::Done;
        }
        if self.tabs && memchr(b'\t', line).is_some() {
            return None;
        }
        if let Pending::Quoted { parent, double } = self.pending {
            if rest.is_empty() {
                return Some(true);
            }
            if indent <= parent {
                return None;
            }
            if let Some(after) = close_quote(rest, double)? {
                tail(after)?;
                self.pending = Pending::Done;
            }
            return Some(false);
        }
        if rest.is_empty() {
            return Some(true);
        }
        if rest[0] == b'#' {
            if let Pending::Plain { .. } = self.pending {
                self.pending = Pending::Done;
            }
            self.comment_run += 1;
            return (self.comment_run <= MAX_COMMENT_RUN).then_some(true);
        }
        self.comment_run = 0;
        if let Pending::Plain { parent } = self.pending {
            if indent > parent {
                // Text, unless it could read as an item, an explicit key or a value.
                if matches!(rest, [b'-' | b'?' | b':'] | [b'-' | b'?' | b':', b' ', ..]) {
                    return None;
                }
                if plain(rest)? {
                    self.pending = Pending::Done;
                }
                return Some(false);
            }
            self.pending = Pending::Done;
        }
        if matches!(self.pending, Pending::Start) && (rest.starts_with(b"---") || rest[0] == b'%') {
            // The document's `---` (documents are split there); directives are not read here.
            return (indent == 0 && rest.starts_with(b"---") && tail(&rest[3..]).is_some())
                .then_some(false);
        }
        self.node(indent, rest)?;
        Some(false)
    }

    /// A line that starts a key or an item.
    fn node(&mut self, indent: usize, rest: &[u8]) -> Option<()> {
        let item = rest[0] == b'-' && rest.get(1).is_none_or(|&b| b == b' ');
        let block = if item { Block::Seq } else { Block::Map };
        if let Pending::Nested { parent, .. } = self.pending
            && indent > parent
            && !item
            && key_end(rest).is_none()
        {
            // A scalar on the lines after its key or `-`.
            self.pending = Pending::Done;
            return self.value(parent, rest);
        }
        match self.pending {
            Pending::Start if indent == 0 => self.open(indent, block)?,
            Pending::Start => return None,
            Pending::Nested { parent, .. } if indent > parent => self.open(indent, block)?,
            Pending::Nested {
                parent,
                after_key: true,
            } if indent == parent && item => self.open(indent, Block::IndentlessSeq)?,
            _ => {
                // A sibling, or an entry of an enclosing block.
                while let Some(&(at, kind)) = self.stack.last() {
                    if at > indent || (at == indent && kind == Block::IndentlessSeq && !item) {
                        self.stack.pop();
                    } else {
                        break;
                    }
                }
                let &(at, kind) = self.stack.last()?;
                if at != indent || item == (kind == Block::Map) {
                    return None;
                }
            }
        }
        self.pending = Pending::Done;
        if item {
            self.item(indent, rest)
        } else {
            self.entry(indent, rest)
        }
    }

    fn open(&mut self, indent: usize, block: Block) -> Option<()> {
        // Room below the parser's nesting limit for what a value line may add.
        if self.stack.len() + 3 >= self.max_depth {
            return None;
        }
        self.stack.push((indent, block));
        Some(())
    }

    /// `- …` at `dash`.
    fn item(&mut self, dash: usize, rest: &[u8]) -> Option<()> {
        let after = &rest[1..];
        let spaces = after.iter().take_while(|&&b| b == b' ').count();
        let content = &after[spaces..];
        if content.is_empty() || content[0] == b'#' {
            self.pending = Pending::Nested {
                parent: dash,
                after_key: false,
            };
            return Some(());
        }
        if content[0] == b'-' && content.get(1).is_none_or(|&b| b == b' ') {
            return None;
        }
        let column = dash + 1 + spaces;
        match key_end(content) {
            Some(colon) => {
                self.open(column, Block::Map)?;
                self.entry_at(column, content, colon)
            }
            None => self.value(dash, content),
        }
    }

    /// `key: …` at `indent`.
    fn entry(&mut self, indent: usize, rest: &[u8]) -> Option<()> {
        let colon = key_end(rest)?;
        self.entry_at(indent, rest, colon)
    }

    fn entry_at(&mut self, indent: usize, content: &[u8], colon: usize) -> Option<()> {
        if colon > MAX_KEY {
            return None;
        }
        let value = trim_start(&content[colon + 1..]);
        if value.is_empty() || value[0] == b'#' {
            self.pending = Pending::Nested {
                parent: indent,
                after_key: true,
            };
            return Some(());
        }
        self.value(indent, value)
    }

    /// A value after `key: ` or `- `; lines that continue it are more indented than `parent`.
    fn value(&mut self, parent: usize, v: &[u8]) -> Option<()> {
        match v[0] {
            b'"' | b'\'' => {
                let double = v[0] == b'"';
                match close_quote(&v[1..], double)? {
                    Some(after) => tail(after)?,
                    None => self.pending = Pending::Quoted { parent, double },
                }
            }
            b'|' | b'>' => {
                let header = match &v[1..] {
                    [b'-' | b'+', rest @ ..] => rest,
                    rest => rest,
                };
                tail(header)?;
                self.pending = Pending::Literal {
                    parent,
                    content: None,
                    leading: 0,
                };
            }
            b'{' | b'[' => {
                let room = self.max_depth.checked_sub(self.stack.len() + 3)?;
                tail(flow(v, room)?)?;
            }
            b'-' if v.get(1).is_some_and(|&b| b != b' ') => self.plain_value(parent, v)?,
            b if is_indicator(b) => return None,
            _ => self.plain_value(parent, v)?,
        }
        Some(())
    }

    fn plain_value(&mut self, parent: usize, v: &[u8]) -> Option<()> {
        self.pending = if plain(v)? {
            Pending::Done
        } else {
            Pending::Plain { parent }
        };
        Some(())
    }

    fn finish(&self) -> Option<()> {
        (!matches!(self.pending, Pending::Quoted { .. })).then_some(())
    }
}

/// Characters that cannot start a plain scalar, or start one only in some contexts.
fn is_indicator(b: u8) -> bool {
    matches!(
        b,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// Where the key at the start of `content` ends (its `:`), if the line is a key line: a plain
/// key, or a quoted one on one line.
fn key_end(content: &[u8]) -> Option<usize> {
    if let b'"' | b'\'' = content[0] {
        let after = close_quote(&content[1..], content[0] == b'"')??;
        let colon = content.len() - after.len();
        return match after {
            [b':'] | [b':', b' ', ..] => Some(colon),
            _ => None,
        };
    }
    if is_indicator(content[0]) {
        return None;
    }
    for i in colons_and_hashes(content) {
        if content[i] == b':' {
            if content.get(i + 1).is_none_or(|&b| b == b' ') {
                return Some(i);
            }
        } else if content[i - 1] == b' ' {
            // A comment before any `: `: a scalar, not a key.
            return None;
        }
    }
    None
}

/// Where `:` and `#` are in one line: lines are short, and a plain loop finds them there
/// sooner than a vectorised search gets started.
fn colons_and_hashes(text: &[u8]) -> impl Iterator<Item = usize> + '_ {
    text.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b':' || b == b'#')
        .map(|(i, _)| i)
}

/// A flow collection that closes on its line (`[a, "b"]`, `{app: web}`), nesting at most
/// `room` deep: what follows it. Plain scalars in it are held to a safe alphabet, and empty
/// or trailing entries are declined.
fn flow(text: &[u8], room: usize) -> Option<&[u8]> {
    let map = text[0] == b'{';
    let close = if map { b'}' } else { b']' };
    let mut rest = trim_start(&text[1..]);
    if rest.first() == Some(&close) {
        return Some(&rest[1..]);
    }
    loop {
        if map {
            rest = flow_key(rest)?;
        }
        rest = trim_start(flow_node(rest, room)?);
        match rest.first()? {
            b',' => rest = trim_start(&rest[1..]),
            &c if c == close => return Some(&rest[1..]),
            _ => return None,
        }
        if matches!(rest.first(), None | Some(b',' | b']' | b'}')) {
            return None;
        }
    }
}

fn flow_node(text: &[u8], room: usize) -> Option<&[u8]> {
    match *text.first()? {
        b'[' | b'{' => flow(text, room.checked_sub(1)?),
        b'"' | b'\'' => close_quote(&text[1..], text[0] == b'"')?,
        _ => flow_plain(text),
    }
}

/// A key and its `:` in a flow mapping; what follows.
fn flow_key(text: &[u8]) -> Option<&[u8]> {
    match *text.first()? {
        // A quoted key may be followed by `:` directly, as in JSON.
        b'"' | b'\'' => {
            let after = trim_start(close_quote(&text[1..], text[0] == b'"')??);
            Some(trim_start(after.strip_prefix(b":")?))
        }
        _ => {
            let after = flow_plain(text)?;
            Some(trim_start(after.strip_prefix(b": ")?))
        }
    }
}

/// A plain scalar in a flow collection, from a safe alphabet; what follows it.
fn flow_plain(text: &[u8]) -> Option<&[u8]> {
    let first = *text.first()?;
    if !(first.is_ascii_alphanumeric() || matches!(first, b'_' | b'.' | b'/' | b'$' | b'~')) {
        return None;
    }
    let len = text
        .iter()
        .take_while(|&&b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b' ' | b'-' | b'_' | b'.' | b'/' | b'=' | b'+' | b'~' | b'$' | b'(' | b')'
                )
        })
        .count();
    let value = trim_end(&text[..len]);
    Some(&text[value.len()..])
}

/// One line of plain scalar text: `None` if YAML would read a mapping in it (`: `, or `:` at
/// the end); `Some(true)` if a comment ends it.
fn plain(text: &[u8]) -> Option<bool> {
    for i in colons_and_hashes(text) {
        if text[i] == b':' {
            if text.get(i + 1).is_none_or(|&b| b == b' ') {
                return None;
            }
        } else if i > 0 && text[i - 1] == b' ' {
            return Some(true);
        }
    }
    Some(false)
}

/// After an opening quote: `Some(Some(rest))` with what follows the closing quote,
/// `Some(None)` when the scalar goes on to the next line, `None` on an invalid escape.
fn close_quote(text: &[u8], double: bool) -> Option<Option<&[u8]>> {
    if !double {
        let mut i = 0;
        while let Some(at) = memchr(b'\'', &text[i..]) {
            let at = i + at;
            if text.get(at + 1) == Some(&b'\'') {
                i = at + 2;
            } else {
                return Some(Some(&text[at + 1..]));
            }
        }
        return Some(None);
    }
    let mut i = 0;
    while i < text.len() {
        let Some(at) = memchr2_iter(b'"', b'\\', &text[i..]).next() else {
            return Some(None);
        };
        let at = i + at;
        if text[at] == b'"' {
            return Some(Some(&text[at + 1..]));
        }
        i = at + 1 + escape(&text[at + 1..])?;
    }
    Some(None)
}

/// The length of a valid escape sequence after a `\` (0 at the end of a line, where it escapes
/// the line break).
fn escape(after: &[u8]) -> Option<usize> {
    let Some(&c) = after.first() else {
        return Some(0);
    };
    let digits = match c {
        b'0' | b'a' | b'b' | b't' | b'n' | b'v' | b'f' | b'r' | b'e' | b' ' | b'"' | b'/'
        | b'\\' | b'N' | b'_' | b'L' | b'P' => return Some(1),
        b'x' => 2,
        b'u' => 4,
        b'U' => 8,
        _ => return None,
    };
    let hex = std::str::from_utf8(after.get(1..1 + digits)?).ok()?;
    let code = u32::from_str_radix(hex, 16).ok()?;
    char::from_u32(code)?;
    Some(1 + digits)
}

/// What may follow a complete value on its line: nothing, or a comment after a space.
fn tail(after: &[u8]) -> Option<()> {
    let rest = trim_start(after);
    (rest.is_empty() || (rest[0] == b'#' && rest.len() < after.len())).then_some(())
}

fn trim_start(text: &[u8]) -> &[u8] {
    let n = text.iter().take_while(|&&b| b == b' ').count();
    &text[n..]
}

fn trim_end(text: &[u8]) -> &[u8] {
    let n = text.iter().rev().take_while(|&&b| b == b' ').count();
    &text[..text.len() - n]
}

/// Where `": "` first occurs in `text`. These two searches run on every kept line; a search
/// for the one byte, then a look at its neighbour, is several times faster there than a
/// general substring search.
pub fn find_colon_space(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b':', bytes).find(|&i| bytes.get(i + 1) == Some(&b' '))
}

/// Where `" #"` (a comment after a value) first occurs in `text`.
pub fn find_space_hash(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'#', bytes)
        .find(|&i| i > 0 && bytes[i - 1] == b' ')
        .map(|i| i - 1)
}

#[cfg(test)]
mod tests {
    use super::{find_colon_space, find_space_hash, scan};

    #[test]
    fn pair_searches_find_what_a_substring_search_finds() {
        for text in [
            "",
            ":",
            ": ",
            "a: b",
            "a:b: c",
            "a::  b",
            "x #",
            "#",
            " #",
            "a#b # c",
            "a: '#' # c",
        ] {
            assert_eq!(find_colon_space(text), text.find(": "), "{text:?}");
            assert_eq!(find_space_hash(text), text.find(" #"), "{text:?}");
        }
    }

    fn accepts(text: &str) -> bool {
        scan(text, 200).is_some()
    }

    #[test]
    fn template_text_and_controls_are_seen_wherever_they_fall() {
        // The check for controls reads in chunks of 256 bytes: put what the first checks must
        // find at, and across, the edges of the first chunks.
        for k in (248..=256).chain(504..=512) {
            let comment = "#".repeat(k);
            for text in [
                format!("{comment}\nb: x{{{{ y }}}}\n"),
                format!("{comment}\nb: x\u{1}\n"),
                format!("{comment}\nb:\tx\n"),
            ] {
                assert!(!accepts(&text), "{text:?}");
            }
            assert!(accepts(&format!("{comment}\nb: {{}}\nc: x{{y\n")));
        }
    }

    #[test]
    fn accepts_what_kubectl_writes() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    note: |\n      line one\n\n      # not a comment\n    other: >-\n      folded\n  labels: {}\n  managedFields:\n  - fieldsV1:\n      f:metadata:\n        k:{\"type\":\"Ready\"}:\n          .: {}\n    manager: kubectl\n  name: a\n  ownerReferences:\n  - apiVersion: apps/v1\n    uid: \"12\\u00e9\"\nspec:\n  args:\n  - --flag=x\n  - -1\n  rules:\n  - apiGroups: [\"\", apps]\n    match: {\"a\":\"b\", c: [d, e]}\n  \"quoted key\": x\n  description:\n    on the next line\n  message: a long\n    folded line\nstatus:\n  message: \"a quoted\n    folded line\"\n  reason: 'it''s'\n";
        assert!(accepts(text));
    }

    #[test]
    fn declines_what_a_parser_would_reject_or_read_differently() {
        for text in [
            "a: b: c\n",
            "a: 1\n  b: 2\n",
            "a:\n  b: 1\n c: 2\n",
            "a: 1\n- b\n",
            "a: \"open\n",
            "a: \"bad \\q escape\"\n",
            "a: 'x' y\n",
            "a: [1, 2\n",
            "a: [1, , 2]\n",
            "a: {b: [c}\n",
            "a: &x 1\nb: *x\n",
            "a: !tag 1\n",
            "a:\tb\n",
            "a: b\r\n",
            "a: |\n    x\n  y\nb: 1\n",
            "a: |\n      \n    x\n",
            "? a\n: b\n",
            "\"a\" : b\n",
            "a: x\n  - y\n",
            "a: {{ .Values.x }}\n",
            "a: @x\n",
            "- - a\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: x\u{85}y\n",
        ] {
            assert!(!accepts(text), "{text:?}");
        }
    }
}
