//! An object read from a cluster, written as YAML the way `kubectl get -o yaml` writes it, so
//! that a finding in a cluster is shown as one in a file is: the object's text, the line and
//! the span. Block mappings and sequences (sequence items at their key's indentation, as
//! kubectl writes them); a string is written plain only where no YAML reader could take it for
//! anything else, otherwise double-quoted, with every character YAML would not read as itself
//! escaped. Keys come sorted, as kubectl writes them.

use serde_json::Value;

/// `value` as a YAML document (a mapping for an object).
pub fn yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => write_map(&mut out, map, 0),
        other => {
            write_scalar(&mut out, other);
            out.push('\n');
        }
    }
    // A cluster's objects are all held at once, as texts: without what growing left spare.
    out.shrink_to_fit();
    out
}

fn write_map(out: &mut String, map: &serde_json::Map<String, Value>, indent: usize) {
    let mut first = true;
    for (key, value) in map {
        // The first key of a sequence item goes on the item's line (`- key: value`).
        if !(first && out.ends_with("- ")) {
            push_indent(out, indent);
        }
        first = false;
        write_string(out, key);
        out.push(':');
        write_nested(out, value, indent, indent + 2);
    }
}

/// What follows `key:` or `- `: a scalar or an empty collection on the same line, else the
/// collection on the lines below (a sequence at `sequence_indent`, a mapping at `map_indent`).
fn write_nested(out: &mut String, value: &Value, sequence_indent: usize, map_indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(out, map, map_indent);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_sequence(out, items, sequence_indent);
        }
        other => {
            out.push(' ');
            write_scalar(out, other);
            out.push('\n');
        }
    }
}

fn write_sequence(out: &mut String, items: &[Value], indent: usize) {
    for item in items {
        push_indent(out, indent);
        out.push('-');
        match item {
            Value::Object(map) if !map.is_empty() => {
                out.push(' ');
                write_map(out, map, indent + 2);
            }
            // A sequence in a sequence: below, one step in.
            other => write_nested(out, other, indent + 2, indent + 2),
        }
    }
}

fn write_scalar(out: &mut String, value: &Value) {
    match value {
        Value::String(text) => write_string(out, text),
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        // null, booleans and numbers are written as JSON writes them, which YAML reads alike.
        other => out.push_str(&other.to_string()),
    }
}

fn write_string(out: &mut String, text: &str) {
    if is_plain(text) {
        out.push_str(text);
        return;
    }
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            // What YAML does not take as printable, or reads as a line break (NEL and the
            // Unicode line and paragraph separators) or a byte order mark: escaped.
            c if !is_printable(c)
                || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// YAML 1.2's printable characters (§5.1), less tab and line breaks.
fn is_printable(c: char) -> bool {
    matches!(c as u32, 0x20..=0x7e | 0xa0..=0xd7ff | 0xe000..=0xfffd | 0x1_0000..)
}

/// Whether `text` reads back as this string when written plain: a letter, then letters,
/// digits, `.`, `_`, `/` and `-` only (so never a number, a date, an indicator or a comment),
/// and not one of the words YAML 1.1 (go-yaml's reading) takes for a boolean or null.
fn is_plain(text: &str) -> bool {
    let mut bytes = text.bytes();
    let starts_with_letter = bytes.next().is_some_and(|b| b.is_ascii_alphabetic());
    starts_with_letter
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null"
        )
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_are_written_as_kubectl_writes_them() {
        let object = json!({
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": "web-7d9",
                "namespace": "shop",
                "labels": {"app.kubernetes.io/name": "web", "tier": "1"},
                "annotations": {},
                "ownerReferences": [{
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": "web",
                    "uid": "0b0e6a47-0000-4000-8000-000000000001",
                    "controller": true
                }],
                "finalizers": ["example.com/keep", "no", "a b"],
            },
            "spec": {"replicas": 3, "list": [[1, 2], []], "empty": null}
        });
        // Keys in the order kubectl writes them: sorted, as Go's JSON-to-YAML conversion sorts.
        let expected = r#"apiVersion: apps/v1
kind: ReplicaSet
metadata:
  annotations: {}
  finalizers:
  - example.com/keep
  - "no"
  - "a b"
  labels:
    app.kubernetes.io/name: web
    tier: "1"
  name: web-7d9
  namespace: shop
  ownerReferences:
  - apiVersion: apps/v1
    controller: true
    kind: Deployment
    name: web
    uid: "0b0e6a47-0000-4000-8000-000000000001"
spec:
  empty: null
  list:
  -
    - 1
    - 2
  - []
  replicas: 3
"#;
        assert_eq!(yaml(&object), expected);
    }

    #[test]
    fn every_string_reads_back_as_itself() {
        for text in [
            "",
            "true",
            "Yes",
            "~",
            "null",
            "1",
            "1e3",
            "0x1f",
            ".5",
            "-",
            "- a",
            "a: b",
            "#c",
            "'",
            "\"",
            "\\",
            "line\nbreak",
            "tab\t",
            "2024-01-01",
            "é",
            "a\u{85}b",
            "{x}",
            "[x]",
            "&a",
            "*a",
            "!t",
            "%x",
            "@x",
            "`x",
            "|",
            ">",
            "?",
            "x ",
            " x",
            "\u{7}",
            "\u{9f}",
            "a\u{2028}b",
            "\u{feff}x",
            "\r\n",
            "😀",
        ] {
            let document = yaml(&json!({ "key": text, text: "value" }));
            let read: serde_yaml::Value = serde_yaml::from_str(&document)
                .unwrap_or_else(|e| panic!("{text:?}: {e}\n{document}"));
            assert_eq!(read["key"].as_str(), Some(text), "{document}");
            assert_eq!(read[text].as_str(), Some("value"), "{document}");
        }
    }
}
