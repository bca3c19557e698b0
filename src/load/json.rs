//! The fast path for JSON documents (`kubectl get -o json`): `serde_json` checks the whole
//! document at its own speed, and nodes are built only for what the rules read — the same
//! fields the YAML filter keeps — with the spans the YAML parser would give them.
//!
//! A document that `serde_json` accepts is one the YAML parser accepts with the same meaning,
//! except for what [`guard`] looks for first: characters YAML does not allow, UTF-16
//! surrogate escapes, keys longer than YAML's 1024-character limit on implicit keys, nesting
//! near `--max-depth` and template text. Anything else that goes wrong returns `None`, and the
//! document is parsed whole, which reports any error at its place.

use std::borrow::Cow;

use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;

use super::fast::{Keep, METADATA, PHASE_ONLY, SELECTOR_ONLY};
use super::yaml::{Document, Node, Scalar, Value};
use crate::controllers::workload_controller;
use crate::source::Span;

/// The kept tree of the JSON document `text` (spans offset by `base`), or `None` to parse it
/// whole.
pub fn parse(text: &str, base: usize, max_depth: usize) -> Option<Document> {
    let tree = Tree { text, base };
    let json = text.trim();
    if !json.starts_with('{') {
        return None;
    }
    // The guard and the reading are separate passes over the text: run them side by side.
    let (guarded, root) = rayon::join(|| guard(text, max_depth), || tree.object(json, true));
    guarded?;
    let root = root?;
    Some(Document {
        root: Some(root),
        comments: Vec::new(),
    })
}

/// The whole tree of `text`, unfiltered (to compare with the YAML parser's).
pub fn parse_all(text: &str, max_depth: usize) -> Option<Document> {
    guard(text, max_depth)?;
    let raw: &RawValue = serde_json::from_str(text).ok()?;
    let root = Tree { text, base: 0 }.node(raw)?;
    Some(Document {
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
    fn node(&self, raw: &RawValue) -> Option<Node> {
        let json = raw.get();
        let start = self.offset(json);
        let span = Span::new(start, start + json.len());
        let value = match json.as_bytes()[0] {
            b'{' => {
                let mut entries = Vec::new();
                for (key, value) in map_entries(json, false)? {
                    let Entry::Raw(value) = value else {
                        return None;
                    };
                    entries.push((self.key(&key, value.get())?, self.node(value)?));
                }
                return Some(collection(span, Value::Map(entries)));
            }
            b'[' => {
                let items: Vec<&RawValue> = serde_json::from_str(json).ok()?;
                let items = items
                    .into_iter()
                    .map(|i| self.node(i))
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
    fn object(&self, json: &str, root: bool) -> Option<Node> {
        let entries = map_entries(json, root)?;
        // Like the YAML filter, an object without a `kind` key is parsed whole (a kind-less
        // list of items is read differently).
        if !entries.iter().any(|(k, _)| k == "kind") {
            return None;
        }
        let text_of = |name: &str| match entries.iter().rev().find(|(k, _)| k == name) {
            Some((_, Entry::Raw(v))) => serde_json::from_str::<Cow<str>>(v.get()).ok(),
            _ => None,
        };
        let kind = text_of("kind");
        let kind = kind.as_deref().unwrap_or("");
        let api_version = text_of("apiVersion");
        let group = api_version
            .as_deref()
            .map(|a| a.split_once('/').map_or("", |(g, _)| g))
            .map(|g| crate::catalog::canonical_group(g, kind));
        // Kinds whose whole spec matters are parsed whole.
        if matches!(kind, "CustomResourceDefinition" | "ReplicationController") {
            return None;
        }
        let workload = group.is_some_and(|g| workload_controller(g, kind).is_some());
        let pod = group == Some("") && kind == "Pod";
        let is_list = kind.ends_with("List");
        let mut kept = Vec::new();
        for (key, value) in &entries {
            let (at, node) = match (key.as_ref(), value) {
                ("items", Entry::Items(items)) if is_list => self.items(items)?,
                // Items split from an object that is not a List: not worth a second way.
                (_, Entry::Items(_)) => return None,
                (key, Entry::Raw(value)) => {
                    let node = match key {
                        "apiVersion" | "kind" => self.node(value)?,
                        "metadata" => self.keep(value, METADATA)?,
                        "spec" if workload => self.keep(value, SELECTOR_ONLY)?,
                        "status" if pod => self.keep(value, PHASE_ONLY)?,
                        _ => continue,
                    };
                    (value.get(), node)
                }
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
    fn items(&self, items: &[&'t RawValue]) -> Option<(&'t str, Node)> {
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
                b'{' => self.object(item.get(), false),
                _ => self.node(item),
            })
            .collect::<Option<Vec<_>>>()?;
        let start = self.offset(at);
        Some((at, collection(Span::new(start, start), Value::Seq(nodes))))
    }

    /// A value kept by `rule`: whole, or an object with only some of its keys.
    fn keep(&self, raw: &RawValue, rule: Keep) -> Option<Node> {
        let json = raw.get();
        let Keep::Only(keys) = rule else {
            return self.node(raw);
        };
        if !json.starts_with('{') {
            return self.node(raw);
        }
        let mut kept = Vec::new();
        for (key, value) in map_entries(json, false)? {
            let Entry::Raw(value) = value else {
                return None;
            };
            if let Some(&(_, rule)) = keys.iter().find(|(k, _)| *k == key) {
                kept.push((self.key(&key, value.get())?, self.keep(value, rule)?));
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
    Raw(&'t RawValue),
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
                    Entry::Raw(map.next_value::<&'de RawValue>()?)
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

/// Whether `serde_json` and the YAML parser read `text` alike (see the module comment):
/// one pass over its bytes.
fn guard(text: &str, max_depth: usize) -> Option<()> {
    let bytes = text.as_bytes();
    if !super::scan::printable(bytes) || memchr::memmem::find(bytes, b"{{").is_some() {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                loop {
                    let at = j + memchr::memchr2(b'"', b'\\', &bytes[j..])?;
                    if bytes[at] == b'"' {
                        j = at;
                        break;
                    }
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
                    j = at + 2;
                }
                let len = j - start;
                i = j + 1;
                if len > 1000 {
                    // A long string used as a key.
                    let next = bytes[i..].iter().find(|b| !b.is_ascii_whitespace());
                    if next == Some(&b':') {
                        return None;
                    }
                }
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                if depth + 3 >= max_depth {
                    return None;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::yaml::{Chunk, Limits, parse_document};

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
