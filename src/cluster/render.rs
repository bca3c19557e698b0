//! An object read from a cluster, written as YAML the way `kubectl get -o yaml` writes it, so
//! that a finding in a cluster is shown as one in a file is: the object's text, the line and
//! the span. Block mappings and sequences (sequence items at their key's indentation, as
//! kubectl writes them); a string is written plain only where no YAML reader could take it for
//! anything else, otherwise double-quoted, with every character YAML would not read as itself
//! escaped. Keys come sorted, as kubectl writes them.

use serde_json::Value;

use crate::fields::{Keep, Kept};
use crate::source::Span;
use crate::yaml::{self, Node, Scalar};

/// `value` as a YAML document (a mapping for an object).
pub fn yaml(value: &Value) -> String {
    let mut out = String::new();
    let mut writer = Writer {
        out: &mut out,
        sure: true,
        deepest: usize::MAX,
    };
    writer.document(value, None);
    // A cluster's objects are all held at once, as texts: without what growing left spare.
    out.shrink_to_fit();
    out
}

/// `value` (an object) written at the end of `out` as [`yaml`] writes it, with the span tree
/// that the loader's fast path reads of that text: the fields `kept` keeps of its kind, spans
/// in `out`. `None` when the fast path would not read the text so (a key it does not read as
/// itself, template text, nesting near `max_depth`, a kind that is a list): the loader then
/// reads the text itself. The text is written either way.
pub fn yaml_with_tree(
    out: &mut String,
    value: &Value,
    kept: &Kept,
    max_depth: usize,
) -> Option<Node> {
    let keep = match value {
        Value::Object(map) => {
            let text = |key: &str| map.get(key).and_then(Value::as_str);
            match (text("apiVersion"), text("kind")) {
                // The fast path tells an object's kind from its lines: written plain, it reads
                // them as the parser does.
                (Some(api_version), Some(kind))
                    if is_plain(api_version) && is_plain(kind) && !kind.ends_with("List") =>
                {
                    Some(kept.object(crate::model::kind_of(Some(api_version), kind)))
                }
                _ => None,
            }
        }
        _ => None,
    };
    let mut writer = Writer {
        out,
        sure: keep.is_some(),
        // Room below the scanner's and the parser's nesting limit: a level of nesting is at
        // most two columns of indentation and one block.
        deepest: max_depth.saturating_sub(8) / 2,
    };
    let root = writer.document(value, keep.map(Build::of));
    root.filter(|_| writer.sure)
}

/// What is built of a value: nothing, all of it, or the fields a [`Keep`] keeps (the fast
/// path reads the keys of such a mapping line by line).
#[derive(Clone, Copy)]
enum Build<'k> {
    Nothing,
    All,
    Some(&'k Keep),
}

impl<'k> Build<'k> {
    fn of(keep: &'k Keep) -> Build<'k> {
        if keep.all {
            Build::All
        } else {
            Build::Some(keep)
        }
    }

    fn builds(self) -> bool {
        !matches!(self, Build::Nothing)
    }

    /// What is built of the value under `key` of a mapping built so.
    fn under(self, key: &str) -> Build<'k> {
        match self {
            Build::Nothing => Build::Nothing,
            Build::All => Build::All,
            Build::Some(keep) => keep.get(key).map_or(Build::Nothing, Build::of),
        }
    }
}

struct Writer<'o> {
    out: &'o mut String,
    /// The fast path reads what is written as the tree built says.
    sure: bool,
    /// The deepest nesting the fast path is sure to read.
    deepest: usize,
}

/// The longest key (as written) the fast path reads: its scanner takes up to 1,000 bytes.
const LONGEST_KEY: usize = 990;

impl Writer<'_> {
    fn document(&mut self, value: &Value, build: Option<Build>) -> Option<Node> {
        match value {
            Value::Object(map) if !map.is_empty() => {
                self.map(map, 0, 0, build.unwrap_or(Build::Nothing))
            }
            other => {
                self.sure = false;
                self.scalar(other, false);
                self.out.push('\n');
                None
            }
        }
    }

    fn map(
        &mut self,
        map: &serde_json::Map<String, Value>,
        indent: usize,
        depth: usize,
        build: Build,
    ) -> Option<Node> {
        if depth > self.deepest {
            self.sure = false;
        }
        let mut entries = Vec::new();
        let mut first = true;
        for (key, value) in map {
            // The first key of a sequence item goes on the item's line (`- key: value`).
            if !(first && self.out.ends_with("- ")) {
                push_indent(self.out, indent);
            }
            first = false;
            let start = self.out.len();
            let plain = self.string(key);
            let written = self.out.len() - start;
            if written > LONGEST_KEY {
                self.sure = false;
            }
            // The fast path reads each key of a mapping it keeps some fields of, and only
            // keys written plain or quoted without escapes or a `'`.
            if let Build::Some(_) = build
                && !plain
                && (key.is_empty() || self.out[start..].contains(['\\', '\'']))
            {
                self.sure = false;
            }
            let under = build.under(key);
            let key_node = under
                .builds()
                .then(|| scalar(Span::new(start, start + written), key, plain));
            self.out.push(':');
            let value_node = self.nested(value, indent, indent + 2, depth + 1, under);
            if let (Some(key), Some(value)) = (key_node, value_node) {
                entries.push((key, value));
            }
        }
        let start = entries.first().map(|(k, _)| k.span.start)?;
        let end = entries.last().map_or(start, |(_, v)| v.span.end);
        build.builds().then(|| Node {
            span: Span::new(start, end),
            value: yaml::Value::Map(entries),
        })
    }

    /// What follows `key:` or `- `: a scalar or an empty collection on the same line, else the
    /// collection on the lines below (a sequence at `sequence_indent`, a mapping at
    /// `map_indent`).
    fn nested(
        &mut self,
        value: &Value,
        sequence_indent: usize,
        map_indent: usize,
        depth: usize,
        build: Build,
    ) -> Option<Node> {
        // Where the `:` or `-` before it is.
        let before = self.out.len() - 1;
        match value {
            Value::Object(map) if !map.is_empty() => {
                self.out.push('\n');
                let node = self.map(map, map_indent, depth, build);
                match build {
                    // A mapping none of whose keys is kept is its key alone: null.
                    Build::Some(_) if node.is_none() => {
                        Some(scalar(Span::new(before, before), "~", true))
                    }
                    _ => node,
                }
            }
            Value::Array(items) if !items.is_empty() => {
                // The fast path keeps some fields of mappings only: it reads no such sequence.
                if let Build::Some(_) = build {
                    self.sure = false;
                }
                self.out.push('\n');
                // At its key's indentation (a mapping's value), else one step in.
                let indentless = self.out.as_bytes()[before] == b':';
                self.sequence(items, sequence_indent, depth, build, indentless)
            }
            other => {
                self.out.push(' ');
                let start = self.out.len();
                let node = self.scalar(other, build.builds());
                self.out.push('\n');
                node.map(|mut node| {
                    node.span = Span::new(start, start + node.span.end);
                    node
                })
            }
        }
    }

    fn sequence(
        &mut self,
        items: &[Value],
        indent: usize,
        depth: usize,
        build: Build,
        indentless: bool,
    ) -> Option<Node> {
        if depth > self.deepest {
            self.sure = false;
        }
        let build = match build {
            Build::Nothing => Build::Nothing,
            _ => Build::All,
        };
        let mut built = Vec::new();
        let mut first_dash = None;
        for item in items {
            push_indent(self.out, indent);
            let dash = self.out.len();
            first_dash.get_or_insert(dash);
            self.out.push('-');
            let node = match item {
                Value::Object(map) if !map.is_empty() => {
                    self.out.push(' ');
                    self.map(map, indent + 2, depth + 1, build)
                }
                // A sequence in a sequence: below, one step in.
                other => self.nested(other, indent + 2, indent + 2, depth + 1, build),
            };
            if let Some(mut node) = node {
                // An item that is a collection starts at its `-`.
                if !matches!(node.value, yaml::Value::Scalar(_)) || node.span.is_empty() {
                    node.span.start = dash;
                }
                built.push(node);
            }
        }
        if !build.builds() {
            return None;
        }
        // A sequence starts at its first `-`; one at its key's indentation at its first item.
        let start = match indentless {
            true => built.first()?.span.start,
            false => first_dash?,
        };
        let end = built.last()?.span.end;
        Some(Node {
            span: Span::new(start, end),
            value: yaml::Value::Seq(built),
        })
    }

    /// A scalar or an empty collection, written on the current line; with its node when
    /// `build` (its span from 0: the caller places it).
    fn scalar(&mut self, value: &Value, build: bool) -> Option<Node> {
        let start = self.out.len();
        let (text, plain) = match value {
            Value::String(text) => {
                let plain = self.string(text);
                (build.then(|| text.clone()), plain)
            }
            other => {
                write_scalar(self.out, other);
                (None, true)
            }
        };
        if !build {
            return None;
        }
        let written = self.out.len() - start;
        let span = Span::new(0, written);
        let value = match value {
            Value::Object(_) => yaml::Value::Map(Vec::new()),
            Value::Array(_) => yaml::Value::Seq(Vec::new()),
            _ => yaml::Value::Scalar(Scalar {
                text: text.unwrap_or_else(|| self.out[start..].to_string()),
                plain,
            }),
        };
        Some(Node { span, value })
    }

    /// A string, plain or quoted; whether plain. Template text (`{{`) the fast path leaves to
    /// the parser.
    fn string(&mut self, text: &str) -> bool {
        if text.contains("{{") {
            self.sure = false;
        }
        write_string(self.out, text)
    }
}

fn scalar(span: Span, text: &str, plain: bool) -> Node {
    Node {
        span,
        value: yaml::Value::Scalar(Scalar {
            text: text.to_string(),
            plain,
        }),
    }
}

fn write_scalar(out: &mut String, value: &Value) {
    match value {
        Value::String(text) => {
            write_string(out, text);
        }
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        // null, booleans and numbers are written as JSON writes them, which YAML reads alike.
        other => out.push_str(&other.to_string()),
    }
}

/// Write `text`, plain where it reads back as itself, else double-quoted; whether plain.
fn write_string(out: &mut String, text: &str) -> bool {
    if is_plain(text) {
        out.push_str(text);
        return true;
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
    false
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

    /// Objects of every shape a cluster answers, and shapes the fast path declines.
    fn objects() -> Vec<Value> {
        let owner = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1",
                           "uid": "0b0e6a47-0000-4000-8000-000000000001", "controller": true,
                           "blockOwnerDeletion": true});
        let meta = |name: &str| {
            json!({"name": name, "namespace": "shop", "uid": format!("u-{name}"),
                   "resourceVersion": "12", "creationTimestamp": "2026-11-01T00:00:00Z",
                   "labels": {"app": "web", "tier": "1", "on": "yes", "empty": ""},
                   "annotations": {"example.com/team": "payments"},
                   "ownerReferences": [owner.clone()]})
        };
        let mut deep = json!("bottom");
        for _ in 0..120 {
            deep = json!({ "a": [deep] });
        }
        let mut objects = vec![
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta("p"),
                   "spec": {"containers": [{"name": "web", "image": "r/web:1", "ports": [{"containerPort": 8080}]}]},
                   "status": {"phase": "Succeeded", "podIP": "10.0.0.1"}}),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta("rs"),
                   "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"},
                            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["1", "2"]}]},
                            "template": {"metadata": {"labels": {"app": "web"}}}}}),
            json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": meta("rc"),
                   "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {}}}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                      "name": "c", "namespace": "shop", "generateName": "c-",
                      "annotations": {"ownerlint.dev/ignore": "owner-not-found", "x": "{\"a\": 1}"},
                      "finalizers": ["example.com/keep", "no"], "deletionTimestamp": null,
                      "ownerReferences": [owner.clone(), {"apiVersion": "v1", "kind": "Secret",
                          "name": "s", "uid": "u-s", "extra": [[1, 2], [], {}], "x": null}]}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "labels": {},
                      "annotations": {}, "finalizers": [], "deletionTimestamp": "2026-11-02T00:00:00Z",
                      "ownerReferences": {"kind": "NotAList"}}, "type": "Opaque"}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop",
                      "labels": {"kubernetes.io/metadata.name": "shop", "n": 1, "b": true, "f": 1.5, "z": null}},
                   "spec": {"finalizers": ["kubernetes"]}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "uid": "u-d"},
                   "spec": {"selector": null, "replicas": 0}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d2"}, "spec": {}}),
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "st"},
                   "spec": {"selector": {"matchLabels": {}}, "template": {"metadata": {}}}}),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                   "metadata": {"name": "widgets.example.com"},
                   "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"},
                            "scope": "Namespaced", "versions": [{"name": "v1", "served": true, "storage": true,
                            "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}),
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w",
                      "labels": {"é": "ü", "a b": "c: d", "q\"uote": "#x", "tab\t": "line\nbreak"}},
                   "spec": {"deep": deep}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "templated",
                      "annotations": {"helm": "{{ .Values.x }}"}}, "status": {"phase": "Failed"}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "{{ name }}"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "long",
                      "annotations": {("k".repeat(1200)): "v"}}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "keys",
                      "annotations": {"it's": "x"}}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "keys",
                      "annotations": {"back\\slash": "x"}}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "keys", "": "x",
                      "$patch": "delete"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "quoted key",
                      "annotations": {"a:b": "x", "1": "2", "true": "false", "~": "null"}}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "seq"},
                   "spec": [{"selector": {}}]}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "scalar"},
                   "spec": "x", "status": []}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": null}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": "text"}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": {}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": {"phase": ""}}),
            json!({"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": [{"metadata": {"name": "x"}}]}),
            json!({"apiVersion": "v1", "kind": "true", "metadata": {"name": "x"}}),
            json!({"apiVersion": "v1", "kind": "", "metadata": {"name": "x"}}),
            json!({"apiVersion": "a/b/c", "kind": "Thing", "metadata": {"name": "x"}}),
            json!({"apiVersion": 1, "kind": "Thing", "metadata": {"name": "x"}}),
            json!({"kind": "Thing", "metadata": {"name": "x"}}),
            json!({"apiVersion": "v1", "kind": "Pod", "Zeta": 1, "metadata": {"name": "x",
                      "ownerReferences": [], "labels": {"a": [1, {"b": [[]]}]}}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x",
                      "ownerReferences": [null, "text", 3, [], {}]}}),
        ];
        objects.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "last"}}));
        objects
    }

    #[test]
    fn what_is_written_with_its_tree_loads_as_its_text_loads() {
        use crate::load::{self, LoadOptions, Written};
        use crate::source::{Source, SourceId};
        let kept = crate::rules::kept();
        let options = LoadOptions {
            fast_path: Some(kept),
            held: kept.held(),
            ..LoadOptions::default()
        };
        let objects = objects();
        let mut text = String::new();
        let mut written = Written::default();
        let mut built = 0;
        for object in &objects {
            let start = text.len();
            text.push_str("---\n");
            let root = yaml_with_tree(&mut text, object, kept, options.limits.max_depth);
            assert_eq!(&text[start + 4..], yaml(object), "{object}");
            let span = Span::new(start, text.len());
            match root {
                Some(root) => {
                    built += 1;
                    written.built(&text, span, &root, kept.held());
                }
                None => written.unbuilt(span),
            }
        }
        // The objects of a cluster are written with their trees; what the fast path would not
        // read as the tree says is read from the text.
        assert!(built > objects.len() / 2, "{built} of {}", objects.len());
        let source = Source::new("namespace shop", text.clone());
        let from_text = load::load(SourceId(3), &source, options);
        let from_trees = load::load_written(SourceId(3), &source, written, options);
        assert_eq!(from_trees.objects.len(), from_text.objects.len());
        for (tree, text) in from_trees.objects.iter().zip(&from_text.objects) {
            assert_eq!(format!("{tree:#?}"), format!("{text:#?}"));
        }
        assert_eq!(format!("{from_trees:?}"), format!("{from_text:?}"));
        // Each object alone too, so that a difference is told by its object.
        for object in &objects {
            let mut text = "---\n".to_string();
            let root = yaml_with_tree(&mut text, object, kept, options.limits.max_depth);
            let source = Source::new("one", text.clone());
            let mut written = Written::default();
            let span = Span::new(0, text.len());
            match root {
                Some(root) => written.built(&text, span, &root, kept.held()),
                None => written.unbuilt(span),
            }
            let from_text = load::load(SourceId(0), &source, options);
            let from_tree = load::load_written(SourceId(0), &source, written, options);
            assert_eq!(
                format!("{from_tree:#?}"),
                format!("{from_text:#?}"),
                "{text}"
            );
        }
    }
}
