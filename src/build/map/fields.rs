//! Where a label is in its document, as the steps from the root to it, and how the same
//! field is found again in the file an object came from.

use crate::source::Span;
use crate::yaml::{Node, Value};

/// One step from a document's root to a field.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step {
    Key(String),
    Index(usize),
}

/// Where a label is in its document: the steps to it, whether it is the key of the last, and
/// the scalar written there (when it is one).
pub(super) struct FieldPath {
    pub(super) steps: Vec<Step>,
    pub(super) on_key: bool,
    pub(super) value: Option<String>,
    /// For a mapping (an owner reference), its scalar fields, sorted.
    pub(super) fields: Vec<(String, String)>,
    /// For a scalar in a mapping, the scalar fields of that mapping, sorted.
    pub(super) siblings: Vec<(String, String)>,
}

impl FieldPath {
    /// The last key on the path.
    pub(super) fn last_key(&self) -> Option<&str> {
        self.steps.iter().rev().find_map(|s| match s {
            Step::Key(k) => Some(k.as_str()),
            Step::Index(_) => None,
        })
    }
}

/// The steps from `root` to the innermost node that holds `span`, and the scalar there.
pub(super) fn field_path(root: &Node, span: Span) -> FieldPath {
    let holds = |node: &Node| node.span.start <= span.start && span.end <= node.span.end;
    let mut steps = Vec::new();
    let mut node = root;
    let mut parent = root;
    loop {
        match &node.value {
            Value::Map(entries) => {
                let Some((key, value)) = entries.iter().find(|(k, v)| holds(k) || holds(v)) else {
                    break;
                };
                steps.push(Step::Key(key.as_str().unwrap_or_default().to_string()));
                if holds(key) {
                    return FieldPath {
                        steps,
                        on_key: true,
                        value: None,
                        fields: Vec::new(),
                        siblings: Vec::new(),
                    };
                }
                parent = node;
                node = value;
            }
            Value::Seq(items) => {
                let Some((i, item)) = items.iter().enumerate().find(|(_, item)| holds(item)) else {
                    break;
                };
                steps.push(Step::Index(i));
                parent = node;
                node = item;
            }
            Value::Scalar(_) => break,
        }
    }
    let value = node.as_scalar().map(|s| s.text.clone());
    FieldPath {
        steps,
        on_key: false,
        siblings: match value {
            Some(_) => scalar_fields(parent),
            None => Vec::new(),
        },
        value,
        fields: scalar_fields(node),
    }
}

/// The scalar fields of a mapping, sorted (none for any other node).
pub(super) fn scalar_fields(node: &Node) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = node
        .as_map()
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_scalar()?.text.clone())))
        .collect();
    fields.sort();
    fields
}

/// Each mapping below `node` (itself included) whose scalar fields are `fields`.
pub(super) fn mappings_like(node: &Node, fields: &[(String, String)], found: &mut dyn FnMut(Span)) {
    match &node.value {
        Value::Map(entries) => {
            if scalar_fields(node) == fields {
                found(node.span);
            }
            for (_, v) in entries {
                mappings_like(v, fields, found);
            }
        }
        Value::Seq(items) => {
            for item in items {
                mappings_like(item, fields, found);
            }
        }
        Value::Scalar(_) => {}
    }
}

/// The node at `path` below `object` (its key, if the path ends on one), and whether it is
/// there with the value built; else the deepest field on the way, or the object's kind.
pub(super) fn follow(object: &Node, path: &FieldPath) -> (Span, bool) {
    let fallback = object
        .entry("kind")
        .map_or(object.span, |(key, _)| key.span);
    let mut node = object;
    let mut best = fallback;
    for (i, step) in path.steps.iter().enumerate() {
        let last = i + 1 == path.steps.len();
        match step {
            Step::Key(key) => {
                let Some((k, v)) = node.entry(key) else {
                    return (best, false);
                };
                if last && path.on_key {
                    return (k.span, true);
                }
                best = k.span;
                node = v;
            }
            Step::Index(index) => {
                let Some(item) = node.as_seq().and_then(|items| items.get(*index)) else {
                    return (best, false);
                };
                node = item;
                best = item.span;
            }
        }
    }
    // A value that writes `${var}` is the one built when Flux substituted it (postBuild).
    match (&path.value, node.as_scalar()) {
        (Some(built), Some(written)) if *built != written.text && !written.text.contains("${") => {
            (best, false)
        }
        _ => (node.span, true),
    }
}

/// Each scalar below `node` written under `key` with the text `value`, in a mapping whose
/// scalar fields are `siblings` (when known: a patch writes the entry as it was built).
pub(super) fn scalars_keyed(
    node: &Node,
    key: &str,
    value: &str,
    siblings: &[(String, String)],
    found: &mut dyn FnMut(Span),
) {
    match &node.value {
        Value::Map(entries) => {
            let alike = siblings.is_empty() || scalar_fields(node) == siblings;
            for (k, v) in entries {
                if alike
                    && k.as_str() == Some(key)
                    && v.as_scalar().is_some_and(|s| s.text == value)
                {
                    found(v.span);
                }
                scalars_keyed(v, key, value, siblings, found);
            }
        }
        Value::Seq(items) => {
            for item in items {
                scalars_keyed(item, key, value, siblings, found);
            }
        }
        Value::Scalar(_) => {}
    }
}

/// The built object's name (`metadata.name`), and that of the innermost list entry on the
/// path to the label that has one (an owner reference, a container).
pub(super) fn item_names(root: &Node, path: &FieldPath) -> (Option<String>, Option<String>) {
    let own = root
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .map(str::to_string);
    let mut entry = None;
    let mut node = root;
    for step in &path.steps {
        let next = match (step, &node.value) {
            (Step::Key(key), _) => node.get(key),
            (Step::Index(i), Value::Seq(items)) => items.get(*i),
            _ => None,
        };
        let Some(next) = next else { break };
        if let (Step::Index(_), Some(name)) = (step, next.get("name").and_then(Node::as_str)) {
            entry = Some(name.to_string());
        }
        node = next;
    }
    (own, entry)
}
