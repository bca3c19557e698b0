//! The fast path for JSON documents (`kubectl get -o json`): `serde_json` checks the whole
//! document at its own speed, and nodes are built only for what the rules read — the same
//! fields the YAML filter keeps — with the spans the YAML parser would give them.
//!
//! A document that `serde_json` accepts is one the YAML parser accepts with the same meaning,
//! except for what `guard` looks for first: characters YAML does not allow, UTF-16
//! surrogate escapes, keys longer than YAML's 1024-character limit on implicit keys, nesting
//! near `--max-depth` and template text. Anything else that goes wrong returns `None`, and the
//! document is parsed whole, which reports any error at its place.

use std::borrow::Cow;

use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

use super::fast::identity_written_twice;
use super::structure::structural;
use crate::fields::{API_VERSION, KIND, Keep, Kept};
use crate::model::kind_of;
use crate::source::Span;
use crate::yaml::{Document, Node, Scalar, SyntaxError, Value};

/// The kept tree of the JSON document `text` (spans offset by `base`), or `None` to parse it
/// whole.
pub fn parse(text: &str, base: usize, max_depth: usize, fields: &Kept) -> Option<Document> {
    let tree = Tree { text, base };
    let json = text.trim();
    if !json.starts_with('{') {
        return None;
    }
    // The guard and the reading are separate passes over the text: run them side by side.
    let (guarded, root) = rayon::join(
        || guard(text, max_depth),
        || tree.object(json, true, fields),
    );
    guarded?;
    let root = root?;
    Some(Document {
        aliased: Vec::new(),
        root: Some(root),
        comments: Vec::new(),
    })
}

/// A JSON stream: objects one after another, each a document of its own.
#[derive(Debug)]
pub struct Stream {
    pub values: Vec<Span>,
    /// The syntax error that ends the stream early, and the text from where the value it is in
    /// starts.
    pub error: Option<(SyntaxError, Span)>,
    /// After one object, the rest of the text (from the second, broken one) to read as YAML.
    pub rest: Option<Span>,
}

/// `text` (which starts at `base`) as kubectl reads a stream that starts with `{`
/// (apimachinery's `YAMLOrJSONDecoder`): one JSON value after another, `{…}{…}` or a value a
/// line. After two or more, a syntax error ends the stream there; the values before it are
/// kept, and the error is reported where it is. After one, kubectl reads the rest as YAML, and
/// so does [`Stream::rest`]. `None` unless a second `{` follows the first object: a single
/// document (a YAML comment may follow it) is read as it always was.
pub fn stream(text: &str, base: usize) -> Option<Stream> {
    let bytes = text.as_bytes();
    let object_follows = |at: usize| bytes.get(skip_space(bytes, at)) == Some(&b'{');
    // A second object can only start after a `}`: one search rules out almost every single
    // document before anything is parsed.
    if !memchr::memchr_iter(b'}', bytes).any(|i| object_follows(i + 1)) {
        return None;
    }
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<&RawValue>();
    let first = values.next()?.ok()?;
    if !object_follows(values.byte_offset()) {
        return None;
    }
    let tree = Tree { text, base };
    let span = |raw: &RawValue| {
        let start = tree.offset(raw.get());
        Span::new(start, start + raw.get().len())
    };
    let mut stream = Stream {
        values: vec![span(first)],
        error: None,
        rest: None,
    };
    loop {
        let from = skip_space(bytes, values.byte_offset());
        let rest = Span::new(base + from, base + text.len());
        match values.next() {
            None => return Some(stream),
            Some(Ok(raw)) => stream.values.push(span(raw)),
            Some(Err(_)) if stream.values.len() == 1 => {
                stream.rest = Some(rest);
                return Some(stream);
            }
            Some(Err(err)) => {
                let message = err.to_string();
                let message = message.split(" at line ").next().unwrap_or(&message);
                let error = SyntaxError {
                    offset: base + error_offset(text, &err),
                    message: message.to_string(),
                    hint: Some(
                        "fix the syntax; the objects before it in the stream and the other documents of this file are still checked",
                    ),
                };
                stream.error = Some((error, rest));
                return Some(stream);
            }
        }
    }
}

/// The byte offset in `text` of an error `serde_json` places by line and column (counted in
/// bytes, from 1): the byte it stopped at.
fn error_offset(text: &str, err: &serde_json::Error) -> usize {
    let line_start = match err.line() {
        0 | 1 => 0,
        line => memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(line - 2)
            .map_or(text.len(), |i| i + 1),
    };
    (line_start + err.column().saturating_sub(1)).min(text.len())
}

/// The items of a JSON `kind: List` document, as `kubectl get -o json` writes it, each with
/// its range in the source (`text` starts at `base`), so that they load one by one like the
/// items of a YAML List: in parallel, and without holding every item's tree at once. `None`
/// for anything else (which loads as one document), and for a document that is not valid
/// JSON or that `guard` declines: the parser then reads it whole.
pub fn list_items(text: &str, base: usize, max_depth: usize) -> Option<Vec<Span>> {
    let json = text.trim();
    if !json.starts_with('{') || memchr::memmem::find(json.as_bytes(), b"\"List\"").is_none() {
        return None;
    }
    let (guarded, entries) = rayon::join(|| guard(text, max_depth), || map_entries(json, true));
    guarded?;
    let mut kind = None;
    let mut items = None;
    for (key, value) in entries? {
        match (key.as_ref(), value) {
            ("kind", Entry::Raw(v)) if kind.is_none() => {
                kind = Some(serde_json::from_str::<Cow<str>>(v).ok()?)
            }
            ("items", Entry::Items(list)) if items.is_none() => items = Some(list),
            ("apiVersion" | "metadata", _) => {}
            // Anything else, or a key written twice: read the document whole.
            _ => return None,
        }
    }
    let items = items.filter(|items| kind.as_deref() == Some("List") && !items.is_empty())?;
    let tree = Tree { text, base };
    Some(
        items
            .iter()
            .map(|item| {
                let start = tree.offset(item.get());
                Span::new(start, start + item.get().len())
            })
            .collect(),
    )
}

/// One item of a List that [`list_items`] found (`text` starts at `base`), kept as the fast
/// path keeps an object; `None` to parse it whole.
pub fn parse_item(text: &str, base: usize, fields: &Kept) -> Option<Document> {
    let tree = Tree { text, base };
    // The item was checked with its List: it is only split here.
    let root = match text.as_bytes().first()? {
        b'{' => tree.object(text, false, fields)?,
        _ => tree.node(text)?,
    };
    Some(Document {
        aliased: Vec::new(),
        root: Some(root),
        comments: Vec::new(),
    })
}

/// The whole tree of `text`, unfiltered (to compare with the YAML parser's).
pub fn parse_all(text: &str, max_depth: usize) -> Option<Document> {
    guard(text, max_depth)?;
    let raw: &RawValue = serde_json::from_str(text).ok()?;
    let root = Tree { text, base: 0 }.node(raw.get())?;
    Some(Document {
        aliased: Vec::new(),
        root: Some(root),
        comments: Vec::new(),
    })
}

struct Tree<'t> {
    text: &'t str,
    base: usize,
}

impl<'t> Tree<'t> {
    /// Where `raw` starts in the source.
    fn offset(&self, raw: &str) -> usize {
        raw.as_ptr() as usize - self.text.as_ptr() as usize + self.base
    }

    /// Any JSON value, whole.
    fn node(&self, json: &str) -> Option<Node> {
        let start = self.offset(json);
        let span = Span::new(start, start + json.len());
        let value = match json.as_bytes()[0] {
            b'{' => {
                let mut entries = Vec::new();
                // Every value reaching here is in text `serde_json` has checked.
                for (key, value) in split_entries(json)? {
                    entries.push((self.key(&key, value)?, self.node(value)?));
                }
                return Some(collection(span, Value::Map(entries)));
            }
            b'[' => {
                let items: Vec<&RawValue> = serde_json::from_str(json).ok()?;
                let items = items
                    .into_iter()
                    .map(|i| self.node(i.get()))
                    .collect::<Option<Vec<_>>>()?;
                return Some(collection(span, Value::Seq(items)));
            }
            b'"' => Value::Scalar(Scalar {
                text: serde_json::from_str::<Cow<str>>(json).ok()?.into_owned(),
                plain: false,
            }),
            _ => Value::Scalar(Scalar {
                text: json.to_string(),
                plain: true,
            }),
        };
        Some(Node { span, value })
    }

    /// The key node of the entry whose value is the text `value`: the string before its `:`.
    fn key(&self, key: &str, value: &str) -> Option<Node> {
        let before = &self.text[..self.offset(value) - self.base];
        let colon = before.trim_end().strip_suffix(':')?;
        let quoted = colon.trim_end();
        let close = quoted.len().checked_sub(1)?;
        let bytes = quoted.as_bytes();
        // The opening quote: the nearest `"` before the closing one that no backslash escapes.
        let mut open = close;
        loop {
            open = quoted[..open].rfind('"')?;
            let backslashes = bytes[..open]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 0 {
                break;
            }
        }
        let start = open + self.base;
        Some(Node {
            span: Span::new(start, close + 1 + self.base),
            value: Value::Scalar(Scalar {
                text: key.to_string(),
                plain: false,
            }),
        })
    }

    /// An object as the YAML filter keeps it (`fast::object_at`); `json` is its text. The
    /// items of a List (`root`) are read in the same pass and kept in parallel.
    fn object(&self, json: &str, root: bool, fields: &Kept) -> Option<Node> {
        // The root is checked by `serde_json` here; an item was checked with it, so it is only
        // split.
        let entries = if root {
            map_entries(json, true)?
        } else {
            split_entries(json)?
                .into_iter()
                .map(|(k, v)| (k, Entry::Raw(v)))
                .collect()
        };
        // Like the YAML filter, an object without a `kind` key is parsed whole (a kind-less
        // list of items is read differently).
        if !entries.iter().any(|(k, _)| k == KIND.key()) {
            return None;
        }
        if identity_written_twice(entries.iter().map(|(k, _)| k.as_ref())) {
            return None;
        }
        let text_of = |name: &str| match entries.iter().rev().find(|(k, _)| k == name) {
            Some((_, Entry::Raw(v))) => serde_json::from_str::<Cow<str>>(v).ok(),
            _ => None,
        };
        let kind = text_of(KIND.key());
        let kind = kind.as_deref().unwrap_or("");
        let api_version = text_of(API_VERSION.key());
        let keep_of = fields.object(kind_of(api_version.as_deref(), kind));
        let is_list = kind.ends_with("List");
        let mut kept = Vec::new();
        for (key, value) in entries.iter() {
            let (at, node) = match (key.as_ref(), &value) {
                ("items", Entry::Items(items)) if is_list => self.items(items, fields)?,
                // Items split from an object that is not a List: not worth a second way.
                (_, Entry::Items(_)) => return None,
                (key, Entry::Raw(value)) => match keep_of.get(key) {
                    Some(rule) => (*value, self.keep(value, rule)?),
                    None => continue,
                },
            };
            kept.push((self.key(key, at)?, node));
        }
        let start = self.offset(json);
        Some(collection(
            Span::new(start, start + json.trim_end().len()),
            Value::Map(kept),
        ))
    }

    /// The items of a List, each kept as an object, in parallel; with the text the list
    /// starts at (its `[`).
    fn items(&self, items: &[&'t RawValue], fields: &Kept) -> Option<(&'t str, Node)> {
        use rayon::prelude::*;
        // The `[` before the first item; an empty List is left to the parser.
        let first = items.first()?.get();
        let local = self.offset(first) - self.base;
        let open = self.text[..local].trim_end();
        if !open.ends_with('[') {
            return None;
        }
        let at = &self.text[open.len() - 1..];
        let nodes = items
            .par_iter()
            .map(|item| match item.get().as_bytes()[0] {
                b'{' => self.object(item.get(), false, fields),
                _ => self.node(item.get()),
            })
            .collect::<Option<Vec<_>>>()?;
        let start = self.offset(at);
        Some((at, collection(Span::new(start, start), Value::Seq(nodes))))
    }

    /// A value kept by `rule`: whole, or an object with only some of its keys.
    fn keep(&self, json: &str, rule: &Keep) -> Option<Node> {
        if rule.all || !json.starts_with('{') {
            return self.node(json);
        }
        let mut kept = Vec::new();
        for (key, value) in split_entries(json)? {
            if let Some(rule) = rule.get(&key) {
                kept.push((self.key(&key, value)?, self.keep(value, rule)?));
            }
        }
        let start = self.offset(json);
        Some(collection(
            Span::new(start, start + json.len()),
            Value::Map(kept),
        ))
    }
}

/// A mapping or sequence node as the YAML parser spans it: from its opening bracket to the
/// end of its last entry, or to its closing bracket when it is empty.
fn collection(whole: Span, value: Value) -> Node {
    let last_end = match &value {
        Value::Map(entries) => entries.last().map(|(_, v)| v.span.end),
        Value::Seq(items) => items.last().map(|i| i.span.end),
        Value::Scalar(_) => None,
    };
    Node {
        span: Span::new(whole.start, last_end.unwrap_or(whole.end)),
        value,
    }
}

/// The value of one entry of an object.
enum Entry<'t> {
    Raw(&'t str),
    /// The `items` of a top-level object, split into items in the same pass.
    Items(Vec<&'t RawValue>),
}

/// The entries of the JSON object `json`, in order, duplicates included; with `split_items`,
/// the array under `items` comes as its items.
fn map_entries(json: &str, split_items: bool) -> Option<Vec<(Cow<'_, str>, Entry<'_>)>> {
    struct Entries {
        split_items: bool,
    }
    impl<'de> Visitor<'de> for Entries {
        type Value = Vec<(Cow<'de, str>, Entry<'de>)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                let value = if self.split_items && key == "items" {
                    Entry::Items(map.next_value::<Vec<&'de RawValue>>()?)
                } else {
                    Entry::Raw(map.next_value::<&'de RawValue>()?.get())
                };
                out.push((key, value));
            }
            Ok(out)
        }
    }
    impl<'de> serde::de::DeserializeSeed<'de> for Entries {
        type Value = Vec<(Cow<'de, str>, Entry<'de>)>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let seed = Entries { split_items };
    let entries = serde::de::DeserializeSeed::deserialize(seed, &mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(entries)
}

/// The entries of an object in text `serde_json` has already checked, split by hand without
/// checking again: the keys (unescaped) and the text of each value.
fn split_entries(json: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    let b = json.as_bytes();
    let mut i = skip_space(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_space(b, i + 1);
    let mut out = Vec::new();
    if b.get(i) == Some(&b'}') {
        return Some(out);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(b, i)?;
        let raw_key = &json[i..key_end];
        let key = match raw_key.contains('\\') {
            true => Cow::Owned(serde_json::from_str::<String>(raw_key).ok()?),
            false => Cow::Borrowed(&raw_key[1..raw_key.len() - 1]),
        };
        i = skip_space(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_space(b, i + 1);
        let value_end = value_end(b, i)?;
        out.push((key, &json[i..value_end]));
        i = skip_space(b, value_end);
        match b.get(i) {
            Some(b',') => i = skip_space(b, i + 1),
            Some(b'}') => return Some(out),
            _ => return None,
        }
    }
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// After the string whose opening quote is at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut escaped_until = 0;
    for at in structural(b, i + 1) {
        match b[at] {
            _ if at < escaped_until => {}
            b'\\' => escaped_until = at + 2,
            b'"' => return Some(at + 1),
            _ => {}
        }
    }
    None
}

/// After the value that starts at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut in_string = false;
            // A byte after a backslash in a string is escaped.
            let mut escaped_until = 0;
            for at in structural(b, i) {
                match (in_string, b[at]) {
                    _ if at < escaped_until => {}
                    (true, b'\\') => escaped_until = at + 2,
                    (_, b'"') => in_string = !in_string,
                    (true, _) => {}
                    (false, b'{' | b'[') => depth += 1,
                    (false, b'}' | b']') => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    // A backslash outside a string: not in text `serde_json` has checked.
                    (false, _) => return None,
                }
            }
            None
        }
        _ => Some(
            i + b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace())
                .unwrap_or(b.len() - i),
        ),
    }
}

/// Whether `serde_json` and the YAML parser read `text` alike (see the module comment):
/// one pass over its bytes.
fn guard(text: &str, max_depth: usize) -> Option<()> {
    let bytes = text.as_bytes();
    if !super::scan::printable(bytes) || memchr::memmem::find(bytes, b"{{").is_some() {
        return None;
    }
    let mut depth = 0usize;
    // Inside a string: where its text starts.
    let mut string: Option<usize> = None;
    // A byte after a backslash in a string is escaped.
    let mut escaped_until = 0;
    for at in structural(bytes, 0) {
        match (string, bytes[at]) {
            _ if at < escaped_until => {}
            (Some(_), b'\\') => {
                // A UTF-16 surrogate escape: YAML reads `\u` as one code point.
                if bytes.get(at + 1) == Some(&b'u')
                    && matches!(bytes.get(at + 2), Some(b'd' | b'D'))
                    && matches!(
                        bytes.get(at + 3),
                        Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
                    )
                {
                    return None;
                }
                escaped_until = at + 2;
            }
            (Some(start), b'"') => {
                string = None;
                if at - start > 1000 {
                    // A long string used as a key.
                    let next = bytes[at + 1..].iter().find(|b| !b.is_ascii_whitespace());
                    if next == Some(&b':') {
                        return None;
                    }
                }
            }
            (Some(_), _) => {}
            (None, b'"') => string = Some(at + 1),
            (None, b'{' | b'[') => {
                depth += 1;
                if depth + 3 >= max_depth {
                    return None;
                }
            }
            (None, b'}' | b']') => depth = depth.saturating_sub(1),
            // A backslash outside a string: `serde_json` declines the document.
            (None, _) => {}
        }
    }
    // A string that never ends: the same.
    string.is_none().then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Chunk, Limits, parse_document};

    /// [`value_end`] of a `{` or `[`, the slow way: byte by byte.
    fn naive_close(bytes: &[u8], open: usize) -> Option<usize> {
        let (mut depth, mut i) = (0usize, open);
        while i < bytes.len() {
            match bytes[i] {
                b'"' => i = naive_string_end(bytes, i)?,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Where the `{` and `[` outside strings are.
    fn opening_brackets(bytes: &[u8]) -> Vec<usize> {
        let (mut found, mut i) = (Vec::new(), 0);
        while i < bytes.len() {
            match bytes[i] {
                b'"' => i = naive_string_end(bytes, i).unwrap_or(bytes.len()),
                b'{' | b'[' => found.push(i),
                _ => {}
            }
            i += 1;
        }
        found
    }

    /// The closing quote of the string whose opening one is at `open`.
    fn naive_string_end(bytes: &[u8], open: usize) -> Option<usize> {
        let mut i = open + 1;
        while *bytes.get(i)? != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        Some(i)
    }

    #[test]
    fn finds_where_a_collection_ends_across_strings_and_escapes() {
        let long = "x".repeat(70);
        let texts = [
            r#"{}"#.to_string(),
            r#"{"a": [1, {"b\"}": "\\"}], "d": {}} tail"#.to_string(),
            format!(r#"{{"{long}": "{long}\\", "k": ["]", "\""], "z": {{}}}}, 1]"#),
            format!(r#"[{{"{}\"}}": 1}}]"#, "\\".repeat(40)),
            format!("{}{}", "[".repeat(100), "]".repeat(100)),
            "{\"unclosed\": [1, 2}".to_string(),
        ];
        for text in &texts {
            let bytes = text.as_bytes();
            for open in opening_brackets(bytes) {
                assert_eq!(
                    value_end(bytes, open),
                    naive_close(bytes, open),
                    "{text} at {open}"
                );
            }
        }
        assert_eq!(value_end(texts[1].as_bytes(), 0), Some(texts[1].len() - 5));
    }

    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("1".to_string()),
            "[a-z\"\\\\{}\\[\\] ]{0,80}"
                .prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8)
                    .prop_map(|v| format!("[{}]", v.join(", "))),
                proptest::collection::vec(("[a-z\"\\\\{]{0,70}", inner), 0..8).prop_map(|v| {
                    let entries: Vec<String> = v
                        .iter()
                        .map(|(k, v)| {
                            format!("{}: {v}", serde_json::to_string(k).unwrap_or_default())
                        })
                        .collect();
                    format!("{{{}}}", entries.join(",\n    "))
                }),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Every bracket of generated JSON, with strings full of quotes, backslashes and
        /// brackets, and long enough to cross several words.
        #[test]
        fn matches_brackets_as_a_byte_by_byte_reader_does(text in json_text(), tail in "[\\]} ,]{0,3}") {
            let text = format!("{text}{tail}");
            let bytes = text.as_bytes();
            for open in opening_brackets(bytes) {
                proptest::prop_assert_eq!(value_end(bytes, open), naive_close(bytes, open));
            }
        }
    }

    fn same_as_parser(text: &str) {
        let ours = parse_all(text, 200).expect("accepted");
        let theirs = parse_document(
            text,
            Chunk {
                span: Span::new(0, text.len()),
            },
            Limits::default(),
        )
        .expect("parses");
        assert_eq!(ours.root, theirs.root, "{text}");
    }

    #[test]
    fn builds_the_parsers_tree() {
        same_as_parser("{\"a\": 1, \"b\": [true, null, \"x\\\"y\", {}], \"c\": {\"d\\\\\": []}}");
        same_as_parser(
            "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"kind\": \"Pod\"\n        }\n    ]\n}\n",
        );
        same_as_parser("  {\"k\":\"\\u00e9\",\"n\":-1.5e3}");
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            "[a-z\"\\\\/{}\\[\\],: \\u{1}é]{0,10}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec(("[a-z\"\\\\{}: ]{0,6}", inner), 0..5)
                    .prop_map(|e| Value::Object(e.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Splitting checked text by hand finds the entries `serde_json` finds.
        #[test]
        fn split_entries_finds_what_serde_json_finds(
            entries in proptest::collection::vec(("[a-z\"\\\\{}: ]{0,6}", json_value()), 0..6),
            pretty in proptest::bool::ANY,
        ) {
            let object = serde_json::Value::Object(entries.into_iter().collect());
            let text = if pretty {
                serde_json::to_string_pretty(&object)
            } else {
                serde_json::to_string(&object)
            }
            .expect("JSON");
            let ours = split_entries(&text).expect("split");
            let theirs: Vec<(Cow<str>, &str)> = map_entries(&text, false)
                .expect("parsed")
                .into_iter()
                .map(|(k, v)| match v {
                    Entry::Raw(v) => (k, v),
                    Entry::Items(_) => unreachable!("not split"),
                })
                .collect();
            proptest::prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn leaves_what_it_cannot_vouch_for_to_the_parser() {
        for text in [
            "{\"a\": \"\\ud83d\\ude00\"}",
            "{\"a\": {{ .Values.x }}}",
            "{\"a\": 1,}",
            "{\"a\": 1} {}",
            "{\"a\": \"x\u{7f}\"}",
        ] {
            assert!(parse_all(text, 200).is_none(), "{text}");
        }
        let long = format!("{{\"{}\": 1}}", "k".repeat(1200));
        assert!(parse_all(&long, 200).is_none());
        let deep = format!("{}{}", "[".repeat(50), "]".repeat(50));
        assert!(parse_all(&deep, 40).is_none());
    }
}
