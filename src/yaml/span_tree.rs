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
