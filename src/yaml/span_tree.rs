//! The span tree: the nodes of a document, each with its byte span in the source, and for
//! scalars their text and whether they were quoted; and a document's comments.

use super::ScalarType;
use crate::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Map(Vec<(Node, Node)>),
    /// Mapping and sequence items of a block sequence, and empty ones, have spans that start
    /// at their `-` indicator.
    Seq(Vec<Node>),
    Scalar(Scalar),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub text: String,
    /// Plain scalars are typed by their text (`true`, `12`, `null`); quoted and block scalars
    /// are always strings.
    pub plain: bool,
}

/// One step down a tree: a mapping's key or a sequence's index.
enum Step {
    Key(String),
    Index(usize),
}

impl Node {
    /// The value under `key` in a mapping; the last one when a key repeats, as Kubernetes'
    /// YAML reader keeps it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The key and value under `key` in a mapping.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k.as_scalar().is_some_and(|s| s.text == key))
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The text of a scalar that is a string (or any non-null scalar in YAML, where Kubernetes
    /// reads it as text when it is not of another type).
    pub fn as_str(&self) -> Option<&str> {
        match self.as_scalar()?.resolve() {
            ScalarType::String => self.as_scalar().map(|s| s.text.as_str()),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        self.as_scalar()
            .is_some_and(|s| s.resolve() == ScalarType::Null)
    }

    /// The path from this node to the field that `span` falls in, as messages and kubectl
    /// write one: `metadata.ownerReferences[1].uid` (a key that is not a plain word is quoted:
    /// `metadata.annotations["ownerlint.dev/ignore"]`). The span of a key names its field.
    /// `None` when the span is not inside this node, or is this node itself.
    pub fn field_path(&self, span: Span) -> Option<String> {
        Some(path_of(self.steps_to(span)?.0))
    }

    /// [`Node::field_path`] in a tree that holds only some fields of its document (the fast
    /// path's), for what it is in the whole tree: `None` unless the walk ends where it would
    /// in the whole tree (at a scalar, a key or the node that is the span), never at a mapping
    /// or a list that may hold the span in a field left out.
    pub fn field_path_in_part(&self, span: Span) -> Option<String> {
        if span == self.span {
            return None;
        }
        match self.steps_to(span)? {
            (steps, true) => Some(path_of(steps)),
            (_, false) => None,
        }
    }

    /// The same place as a JSON pointer (RFC 6901), as JSON patches name it:
    /// `/metadata/ownerReferences/1/uid`.
    pub fn json_pointer(&self, span: Span) -> Option<String> {
        let mut pointer = String::new();
        for step in self.steps_to(span)?.0 {
            pointer.push('/');
            match step {
                Step::Key(key) => pointer.push_str(&key.replace('~', "~0").replace('/', "~1")),
                Step::Index(i) => pointer.push_str(&i.to_string()),
            }
        }
        Some(pointer)
    }

    /// The value node (not a key) below this one whose span is exactly `span`.
    pub fn value_at(&self, span: Span) -> Option<&Node> {
        if self.span == span {
            return Some(self);
        }
        let inside = |node: &&Node| node.span.start <= span.start && span.end <= node.span.end;
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .map(|(_, value)| value)
                .find(inside)?
                .value_at(span),
            Value::Seq(items) => items.iter().find(inside)?.value_at(span),
            Value::Scalar(_) => None,
        }
    }

    /// The keys and indexes from this node down to the field `span` falls in; none (`None`)
    /// when it is outside this node or is the node itself. With them, whether the walk ended
    /// at a scalar, a key or a node that is the span (rather than at a mapping or a list none of
    /// whose fields holds the span).
    fn steps_to(&self, span: Span) -> Option<(Vec<Step>, bool)> {
        let inside = |node: &Node| node.span.start <= span.start && span.end <= node.span.end;
        if span == self.span {
            return None;
        }
        let mut steps = Vec::new();
        let mut node = self;
        let ended_at_field = loop {
            let next = match &node.value {
                Value::Map(entries) => entries.iter().find_map(|(key, value)| {
                    let name = key.as_scalar()?.text.clone();
                    let entry = key.span.start <= span.start && span.end <= value.span.end;
                    if inside(value) {
                        Some((Step::Key(name), Some(value)))
                    } else if inside(key) || entry {
                        // The key, or the whole entry: the field itself.
                        Some((Step::Key(name), None))
                    } else {
                        None
                    }
                }),
                Value::Seq(items) => items
                    .iter()
                    .enumerate()
                    .find(|(_, item)| inside(item))
                    .map(|(i, item)| (Step::Index(i), Some(item))),
                Value::Scalar(_) => None,
            };
            let Some((step, child)) = next else {
                break matches!(node.value, Value::Scalar(_));
            };
            steps.push(step);
            match child {
                Some(child) if child.span != span => node = child,
                _ => break true,
            }
        };
        (!steps.is_empty()).then_some((steps, ended_at_field))
    }

    /// A short description of what the node is, for messages ("a mapping", "the number 12").
    pub fn describe(&self) -> String {
        match &self.value {
            Value::Map(_) => "a mapping".to_string(),
            Value::Seq(_) => "a list".to_string(),
            Value::Scalar(s) => match s.resolve() {
                ScalarType::Null => "null".to_string(),
                ScalarType::Bool(b) => format!("the boolean {b}"),
                ScalarType::Number => format!("the number {}", s.text),
                ScalarType::String => format!("the string \"{}\"", s.text),
            },
        }
    }

    pub(super) fn count(&self) -> usize {
        match &self.value {
            Value::Scalar(_) => 1,
            Value::Seq(items) => 1 + items.iter().map(Node::count).sum::<usize>(),
            Value::Map(entries) => {
                1 + entries
                    .iter()
                    .map(|(k, v)| k.count() + v.count())
                    .sum::<usize>()
            }
        }
    }
}

/// A YAML comment: its span (from `#` to the end of the line) and its text after `#`.
#[derive(Clone, Debug)]
pub struct Comment {
    pub span: Span,
    pub text: String,
}

/// A parsed document: its root node, if it has content, and its comments.
#[derive(Debug, Default)]
pub struct Document {
    pub root: Option<Node>,
    pub comments: Vec<Comment>,
    /// The anchored nodes that an alias repeats (`&refs` … `*refs`): an edit inside one
    /// changes every place that repeats it.
    pub aliased: Vec<Span>,
}

impl Document {
    /// Move every span (of nodes and comments) by `map`: for a document parsed from part of
    /// a text, to that text's offsets.
    pub fn map_spans(&mut self, map: impl Fn(Span) -> Span) {
        fn node(n: &mut Node, map: &dyn Fn(Span) -> Span) {
            n.span = map(n.span);
            match &mut n.value {
                Value::Map(entries) => {
                    for (k, v) in entries {
                        node(k, map);
                        node(v, map);
                    }
                }
                Value::Seq(items) => items.iter_mut().for_each(|i| node(i, map)),
                Value::Scalar(_) => {}
            }
        }
        if let Some(root) = &mut self.root {
            node(root, &map);
        }
        for span in &mut self.aliased {
            *span = map(*span);
        }
        for comment in &mut self.comments {
            comment.span = map(comment.span);
        }
    }
}

/// A field's path from its steps, as messages and kubectl write one.
fn path_of(steps: Vec<Step>) -> String {
    let mut path = String::new();
    for step in steps {
        match step {
            Step::Key(key)
                if !key.is_empty()
                    && key
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
            {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key);
            }
            Step::Key(key) => path.push_str(&format!("[{}]", serde_json::Value::from(key))),
            Step::Index(i) => path.push_str(&format!("[{i}]")),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_of_some_fields_names_a_span_only_where_the_whole_tree_would() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: a\n    uid: u-1\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: b\n    uid: u-2\nspec:\n  containers:\n  - name: c\n    image: i\n";
        let whole = crate::yaml::parse_at(text, 0, crate::yaml::Limits::default()).expect("parses");
        let whole = whole.root.as_ref().expect("a root");
        let part = crate::load::parse_filtered(
            text,
            0,
            crate::yaml::Limits::default(),
            crate::rules::kept(),
        )
        .expect("the fast path reads it");
        let part = part.root.as_ref().expect("a root");
        let at = |needle: &str| {
            let start = text.find(needle).expect("in the text");
            Span::new(start, start + needle.len())
        };
        // The fast path keeps the owner references, not the containers.
        assert!(!text[part.span.start..part.span.end].contains("containers"));
        for kept in ["u-2", "uid: u-1", "name: b", "kind", "name: p"] {
            let span = at(kept);
            assert_eq!(
                part.field_path_in_part(span),
                whole.field_path(span),
                "{kept}"
            );
            assert!(part.field_path_in_part(span).is_some(), "{kept}");
        }
        assert_eq!(
            part.field_path_in_part(at("u-2")).as_deref(),
            Some("metadata.ownerReferences[1].uid")
        );
        // A span in a field left out is not named from the part: the whole tree names it.
        let image = at("image: i");
        assert_eq!(part.field_path_in_part(image), None);
        assert_eq!(
            whole.field_path(image).as_deref(),
            Some("spec.containers[0].image")
        );
        assert_eq!(part.field_path_in_part(part.span), None);
    }

    #[test]
    fn a_span_is_named_by_its_path_from_the_root() {
        let text = "metadata:\n  annotations:\n    ownerlint.dev/ignore: owner-not-found\n  ownerReferences:\n  - name: a\n  - name: b\n    uid: u-2\n";
        let document =
            crate::yaml::parse_at(text, 0, crate::yaml::Limits::default()).expect("parses");
        let root = document.root.as_ref().expect("a root");
        let at = |needle: &str| {
            let start = text.find(needle).expect("in the text");
            Span::new(start, start + needle.len())
        };
        assert_eq!(
            root.field_path(at("u-2")).as_deref(),
            Some("metadata.ownerReferences[1].uid")
        );
        // A key names its field; a whole item, its index.
        assert_eq!(
            root.field_path(at("ownerReferences")).as_deref(),
            Some("metadata.ownerReferences")
        );
        assert_eq!(
            root.field_path(at("name: b\n    uid: u-2")).as_deref(),
            Some("metadata.ownerReferences[1]")
        );
        // A key that is not a plain word is quoted.
        assert_eq!(
            root.field_path(at("owner-not-found")).as_deref(),
            Some(r#"metadata.annotations["ownerlint.dev/ignore"]"#)
        );
        assert_eq!(
            root.json_pointer(at("owner-not-found")).as_deref(),
            Some("/metadata/annotations/ownerlint.dev~1ignore")
        );
        assert_eq!(
            root.json_pointer(at("u-2")).as_deref(),
            Some("/metadata/ownerReferences/1/uid")
        );
        assert_eq!(root.field_path(root.span), None);
        assert_eq!(
            root.field_path(Span::new(text.len() + 5, text.len() + 6)),
            None
        );
    }
}
