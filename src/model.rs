//! Typed views of the Kubernetes objects found in the input: only the fields the rules read,
//! each with the span it came from.

use crate::catalog::{CrdInfo, DiscoveredGroup, DiscoveredResource, DiscoveredVersion};
use crate::controllers::workload_controller;
use crate::fields::{self, ObjectKind, ObjectNode};
use crate::finding::ObjectIdentity;
use crate::selector::{Labels, Selector, SelectorOrigin};
use crate::source::{Part, SourceId, Span};
use crate::yaml::{Node, ScalarType, Value};

/// How an object's owner references are to be read (DESIGN §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Manifests to be created: the API server gives each object a fresh uid.
    Apply,
    /// Objects captured from a cluster, with their real uids.
    Snapshot,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// The value of one field, typed the way Kubernetes' YAML reader types it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldValue {
    Str(String),
    Bool(bool),
    Null,
    /// Anything else (a number, a mapping, a list), described for messages.
    Other(String),
}

/// A field as written: where its value is, and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub span: Span,
    pub value: FieldValue,
}

/// A field whose findings point at its key (`deletionTimestamp:`), not at its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyedField {
    pub key_span: Span,
    pub field: Field,
}

/// A value written where a list belongs: where it is, and what it is.
#[derive(Clone, Debug)]
pub struct NotAList {
    pub span: Span,
    pub found: String,
}

impl FieldValue {
    fn of(node: &Node) -> FieldValue {
        match &node.value {
            Value::Scalar(s) => match s.resolve() {
                ScalarType::String => FieldValue::Str(s.text.clone()),
                ScalarType::Bool(b) => FieldValue::Bool(b),
                ScalarType::Null => FieldValue::Null,
                ScalarType::Number => FieldValue::Other(node.describe()),
            },
            _ => FieldValue::Other(node.describe()),
        }
    }
}

impl Field {
    fn from_entry(key: &Node, value: &Node) -> Field {
        let typed = FieldValue::of(value);
        Field {
            // An empty value (`uid:`) has an empty span; point at its key instead.
            span: if value.span.is_empty() {
                key.span
            } else {
                value.span
            },
            value: typed,
        }
    }

    /// The string value, if the field holds a non-empty string.
    pub fn str(&self) -> Option<&str> {
        match &self.value {
            FieldValue::Str(s) if !s.is_empty() => Some(s),
            _ => None,
        }
    }
}

fn field(map: &Node, key: &str) -> Option<Field> {
    map.entry(key).map(|(k, v)| Field::from_entry(k, v))
}

/// A field whose findings point at its key.
fn keyed_field((key, value): (&Node, &Node)) -> KeyedField {
    KeyedField {
        key_span: key.span,
        field: Field::from_entry(key, value),
    }
}

/// The string a field holds (not null), where it is.
fn string_field((key, value): (&Node, &Node)) -> Option<Spanned<String>> {
    let text = value.as_scalar().filter(|_| !value.is_null())?.text.clone();
    Some(Spanned {
        value: text,
        span: if value.span.is_empty() {
            key.span
        } else {
            value.span
        },
    })
}

/// A field that Kubernetes decodes as a string but that holds another type (`name: 123`, a label
/// value `1.0`): kubectl cannot decode the object into its API type.
#[derive(Clone, Debug)]
pub struct MistypedField {
    /// Where it is in the object: `metadata.name`, `metadata.labels.version`.
    pub path: String,
    pub span: Span,
    /// What it holds, for messages ("the number 123").
    pub found: String,
}

/// Add `value` to `out` when it is not a string (or null, which Go decodes as "").
fn check_string_type(value: &Node, path: impl FnOnce() -> String, out: &mut Vec<MistypedField>) {
    let wrong = match &value.value {
        Value::Scalar(s) => matches!(s.resolve(), ScalarType::Number | ScalarType::Bool(_)),
        Value::Map(_) | Value::Seq(_) => true,
    };
    if wrong {
        out.push(MistypedField {
            path: path(),
            span: value.span,
            found: value.describe(),
        });
    }
}

/// The identity fields of an object (and its label values) that are not strings.
fn mistyped_fields(object: ObjectNode<'_>) -> Box<[MistypedField]> {
    let mut out = Vec::new();
    for field in [
        fields::API_VERSION,
        fields::KIND,
        fields::NAME,
        fields::NAMESPACE,
        fields::UID,
    ] {
        if let Some(value) = field.get(object) {
            check_string_type(value, || field.dotted(), &mut out);
        }
    }
    // A null name is no name: unless `generateName` makes one up, the object is refused.
    if let Some((key, value)) = fields::NAME.entry(object)
        && value.is_null()
        && fields::GENERATE_NAME
            .get(object)
            .is_none_or(|g| g.is_null() || g.as_str() == Some(""))
    {
        out.push(MistypedField {
            path: fields::NAME.dotted(),
            span: if value.span.is_empty() {
                key.span
            } else {
                value.span
            },
            found: "null".to_string(),
        });
    }
    for (key, value) in fields::LABELS
        .get(object)
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        let label = key.as_scalar().map_or("?", |s| s.text.as_str());
        check_string_type(
            value,
            || format!("{}.{label}", fields::LABELS.dotted()),
            &mut out,
        );
    }
    out.into_boxed_slice()
}

/// A key written twice in one mapping: kubectl applies the last value without a word, and so
/// does ownerlint.
#[derive(Clone, Debug)]
pub struct DuplicateKey {
    pub key: String,
    pub first: Span,
    pub again: Span,
    /// How many times the key is written in the mapping.
    pub times: usize,
    /// The last value written, when it is a scalar: the one applied.
    pub applied: Option<String>,
}

/// Keys of `map` (among `keys`, or all when `keys` is empty) that appear more than once.
fn duplicate_keys(map: &Node, keys: &[&str]) -> Vec<DuplicateKey> {
    let entries = map.as_map().unwrap_or_default();
    let mut out = Vec::new();
    for (i, (key, _)) in entries.iter().enumerate() {
        let Some(name) = key.as_scalar().map(|s| s.text.as_str()) else {
            continue;
        };
        if !keys.is_empty() && !keys.contains(&name) {
            continue;
        }
        let same = |(k, _): &&(Node, Node)| k.as_scalar().is_some_and(|s| s.text == name);
        if let Some((first, _)) = entries[..i].iter().find(same) {
            let applied = entries
                .iter()
                .rfind(same)
                .and_then(|(_, v)| v.as_scalar().map(|s| s.text.clone()));
            out.push(DuplicateKey {
                key: name.to_string(),
                first: first.span,
                again: key.span,
                times: entries.iter().filter(same).count(),
                applied,
            });
        }
    }
    out
}

/// One entry of `metadata.ownerReferences`.
#[derive(Clone, Debug)]
pub struct OwnerRef {
    /// The whole entry, from its `-` indicator.
    pub span: Span,
    /// The entry's first line (`- apiVersion: apps/v1`): where findings about the whole entry
    /// point.
    pub head: Span,
    pub api_version: Option<Field>,
    pub kind: Option<Field>,
    pub name: Option<Field>,
    pub uid: Option<Field>,
    pub controller: Option<Field>,
    pub block_owner_deletion: Option<Field>,
    /// What few entries have, kept out of line: a dump holds hundreds of thousands of entries.
    rare: Option<Box<RareRefParts>>,
}

/// The parts of an owner reference that most entries do not have.
#[derive(Clone, Debug, Default)]
struct RareRefParts {
    not_a_mapping: Option<String>,
    unknown_keys: Vec<Spanned<String>>,
    canonical: String,
    duplicate_keys: Vec<DuplicateKey>,
}

pub const OWNER_REF_FIELDS: [&str; 6] = [
    "apiVersion",
    "kind",
    "name",
    "uid",
    "controller",
    "blockOwnerDeletion",
];

impl OwnerRef {
    fn from_node(node: &Node, text: Part<'_>, compared: bool) -> OwnerRef {
        let head_end = text
            .get(node.span)
            .and_then(|t| t.find(['\n', '\r']))
            .map_or(node.span.end, |i| node.span.start + i);
        let mut r = OwnerRef {
            span: node.span,
            head: Span::new(node.span.start, head_end),
            api_version: None,
            kind: None,
            name: None,
            uid: None,
            controller: None,
            block_owner_deletion: None,
            rare: None,
        };
        let mut rare = RareRefParts {
            duplicate_keys: duplicate_keys(node, &[]),
            ..RareRefParts::default()
        };
        let Some(entries) = node.as_map() else {
            rare.not_a_mapping = Some(node.describe());
            r.rare = Some(Box::new(rare));
            return r;
        };
        r.api_version = field(node, "apiVersion");
        r.kind = field(node, "kind");
        r.name = field(node, "name");
        r.uid = field(node, "uid");
        r.controller = field(node, "controller");
        r.block_owner_deletion = field(node, "blockOwnerDeletion");
        let mut canonical = Vec::with_capacity(if compared { entries.len() } else { 0 });
        for (k, v) in entries {
            let key = k
                .as_scalar()
                .map_or_else(|| k.describe(), |s| s.text.clone());
            if !OWNER_REF_FIELDS.contains(&key.as_str()) {
                rare.unknown_keys.push(Spanned {
                    value: key.clone(),
                    span: k.span,
                });
            }
            if compared {
                canonical.push((key, canonical_text(v)));
            }
        }
        canonical.sort();
        canonical.dedup_by(|a, b| a.0 == b.0);
        // Each part with its length first, so that different entries never join alike.
        for (key, value) in canonical {
            use std::fmt::Write;
            let _ = write!(rare.canonical, "{}:{key}{}:{value}", key.len(), value.len());
        }
        let has_rare = rare.not_a_mapping.is_some()
            || !rare.unknown_keys.is_empty()
            || !rare.canonical.is_empty()
            || !rare.duplicate_keys.is_empty();
        r.rare = has_rare.then(|| Box::new(rare));
        r
    }

    /// Set when the entry is not a mapping (what it is); then no field is set.
    pub fn not_a_mapping(&self) -> Option<&str> {
        self.rare.as_ref()?.not_a_mapping.as_deref()
    }

    /// Keys an OwnerReference does not have, with their spans.
    pub fn unknown_keys(&self) -> &[Spanned<String>] {
        self.rare.as_ref().map_or(&[], |r| &r.unknown_keys)
    }

    /// Every key and value as written (sorted by key, the last of a repeated key), in one
    /// string, for comparing entries; empty when the object has no other entry to compare
    /// with (most have one, and a dump has many).
    pub fn canonical(&self) -> &str {
        self.rare.as_ref().map_or("", |r| &r.canonical)
    }

    /// Keys written twice in this entry.
    pub fn duplicate_keys(&self) -> &[DuplicateKey] {
        self.rare.as_ref().map_or(&[], |r| &r.duplicate_keys)
    }

    /// `controller: true`, as Kubernetes reads it.
    pub fn is_controller(&self) -> bool {
        self.controller
            .as_ref()
            .is_some_and(|f| f.value == FieldValue::Bool(true))
    }

    pub fn kind_str(&self) -> Option<&str> {
        self.kind.as_ref().and_then(Field::str)
    }
    pub fn name_str(&self) -> Option<&str> {
        self.name.as_ref().and_then(Field::str)
    }
    pub fn uid_str(&self) -> Option<&str> {
        self.uid.as_ref().and_then(Field::str)
    }
    pub fn api_version_str(&self) -> Option<&str> {
        self.api_version.as_ref().and_then(Field::str)
    }

    /// `Kind/name` as Kubernetes names an owner in its messages.
    pub fn display(&self) -> String {
        format!(
            "{}/{}",
            self.kind_str().unwrap_or("?"),
            self.name_str().unwrap_or("?")
        )
    }
}

fn canonical_text(node: &Node) -> String {
    match &node.value {
        Value::Scalar(s) => match s.resolve() {
            ScalarType::Bool(b) => b.to_string(),
            ScalarType::Null => "null".into(),
            _ => s.text.clone(),
        },
        Value::Seq(items) => format!(
            "[{}]",
            items
                .iter()
                .map(canonical_text)
                .collect::<Vec<_>>()
                .join(",")
        ),
        Value::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{}:{}", canonical_text(k), canonical_text(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

#[derive(Clone, Debug)]
pub enum OwnerRefs {
    None,
    /// `ownerReferences` is present but not a list.
    NotAList(Box<NotAList>),
    /// The entries, and where the `ownerReferences` key and its value are (for a fix that
    /// removes the last entry with its key).
    List {
        refs: Vec<OwnerRef>,
        key: Span,
        value: Span,
    },
}

/// `metadata.finalizers`.
#[derive(Clone, Debug, Default)]
pub enum Finalizers {
    #[default]
    None,
    /// Present but not a list.
    NotAList(Box<NotAList>),
    /// Each entry with its span.
    List(Vec<Spanned<FieldValue>>),
}

impl Finalizers {
    fn from_node(node: Option<&Node>) -> Finalizers {
        let Some(node) = node.filter(|n| !n.is_null()) else {
            return Finalizers::None;
        };
        match node.as_seq() {
            Some(items) => Finalizers::List(
                items
                    .iter()
                    .map(|item| Spanned {
                        value: FieldValue::of(item),
                        span: item.span,
                    })
                    .collect(),
            ),
            None => Finalizers::NotAList(Box::new(NotAList {
                span: node.span,
                found: node.describe(),
            })),
        }
    }

    /// The entries that are strings, with their index in the list and their spans.
    pub fn names(&self) -> impl Iterator<Item = (usize, &str, Span)> {
        let items = match self {
            Finalizers::List(items) => items.as_slice(),
            _ => &[],
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match &item.value {
                FieldValue::Str(s) => Some((i, s.as_str(), item.span)),
                _ => None,
            })
    }

    /// The entry `name`, if present, with its span.
    pub fn find(&self, name: &str) -> Option<Span> {
        self.names().find(|(_, n, _)| *n == name).map(|(_, _, s)| s)
    }
}

/// A Kubernetes object from the input.
#[derive(Clone, Debug)]
pub struct Object {
    pub source: SourceId,
    /// The object's mapping in the source (with the fast path, as far as the kept fields go).
    pub span: Span,
    /// The text that holds the whole object: its document, or its item of a List. Parsed again
    /// when a rule needs a field the fast path did not keep.
    pub extent: Span,
    pub mode: Mode,
    /// Added with `--existing`: it exists, and is not linted itself.
    pub from_existing: bool,
    /// It carries what only a cluster writes (`resourceVersion`, a `creationTimestamp`): it was
    /// captured from one, even when its uid was left out.
    pub captured: bool,
    pub api_version: Option<Spanned<String>>,
    pub kind: Option<Spanned<String>>,
    pub name: Option<Spanned<String>>,
    pub namespace: Option<Spanned<String>>,
    pub uid: Option<Spanned<String>>,
    pub owner_refs: OwnerRefs,
    pub labels: Option<Labels>,
    pub finalizers: Finalizers,
    /// For a workload controller (ReplicaSet, Deployment, …): the selector it claims objects
    /// with, when it has a usable one.
    pub selector: Option<Box<Selector>>,
    /// A Pod's `status.phase`.
    pub pod_phase: Option<String>,
    /// What most objects do not have, out of line: a dump holds hundreds of thousands of
    /// objects, and each holds one pointer for all of it.
    rare: Option<Box<RareObjectParts>>,
}

/// The parts of an object that most objects do not have.
#[derive(Clone, Debug, Default)]
struct RareObjectParts {
    /// The template it was rendered from, for `helm template` output.
    origin: Option<String>,
    /// For a CustomResourceDefinition.
    crd: Option<CrdInfo>,
    /// For an `APIGroupDiscovery` (an item of a cluster's discovery document): what the
    /// cluster serves of that group. Not an object of the cluster: the catalogue takes it.
    discovery: Option<DiscoveredGroup>,
    /// `metadata.deletionTimestamp`, when set (not null).
    deletion_timestamp: Option<KeyedField>,
    /// The `ownerlint.dev/ignore` annotation: rule ids whose findings on this object are
    /// suppressed.
    ignore_annotation: Option<Spanned<String>>,
    /// Ownership fields of `metadata` written twice.
    duplicate_keys: Vec<DuplicateKey>,
    /// Identity fields and label values that are not strings.
    mistyped: Box<[MistypedField]>,
    /// The fields rules declare for themselves that the object has (`Object::field`).
    held: Box<[Held]>,
}

impl RareObjectParts {
    fn is_empty(&self) -> bool {
        self.origin.is_none()
            && self.crd.is_none()
            && self.discovery.is_none()
            && self.deletion_timestamp.is_none()
            && self.ignore_annotation.is_none()
            && self.duplicate_keys.is_empty()
            && self.mistyped.is_empty()
            && self.held.is_empty()
    }
}

/// A field a rule declares for itself (`fields::Field::on`), as the object writes it.
#[derive(Clone, Debug)]
pub struct Held {
    pub field: fields::Field,
    pub key: Node,
    pub value: Node,
}

/// The keys of `metadata` that own or identify an object: one written twice is reported.
const OWNERSHIP_KEYS: [&str; 6] = [
    fields::NAME.key(),
    fields::NAMESPACE.key(),
    fields::UID.key(),
    fields::OWNER_REFERENCES.key(),
    fields::FINALIZERS.key(),
    fields::LABELS.key(),
];

impl Object {
    /// Read an object from its mapping; `defaults` supplies apiVersion and kind for items of a
    /// typed list (`PodList` items often carry neither); the object holds the fields in `held`
    /// that are read on its kind, as written (`fields::Kept::held`).
    pub fn from_node(
        node: &Node,
        text: Part<'_>,
        source: SourceId,
        defaults: (Option<&Spanned<String>>, Option<&Spanned<String>>),
        held: &[fields::Field],
    ) -> Object {
        // apiVersion and kind say which kind the object is: they are read on every kind.
        let mut object = ObjectNode::new(node, ObjectKind::default());
        let api_version = fields::API_VERSION
            .entry(object)
            .and_then(string_field)
            .or_else(|| defaults.0.cloned());
        let kind = fields::KIND
            .entry(object)
            .and_then(string_field)
            .or_else(|| defaults.1.cloned());
        object.kind = kind_of(
            api_version.as_ref().map(|a| a.value.as_str()),
            kind.as_ref().map_or("", |k| k.value.as_str()),
        );
        let owner_refs = match fields::OWNER_REFERENCES.entry(object) {
            None => OwnerRefs::None,
            Some((_, refs)) if refs.is_null() => OwnerRefs::None,
            Some((key, refs)) => match refs.as_seq() {
                Some(items) => OwnerRefs::List {
                    refs: items
                        .iter()
                        .map(|n| OwnerRef::from_node(n, text, items.len() > 1))
                        .collect(),
                    key: key.span,
                    value: refs.span,
                },
                None => OwnerRefs::NotAList(Box::new(NotAList {
                    span: refs.span,
                    found: refs.describe(),
                })),
            },
        };
        let crd = fields::CRD_SPEC.get(object).and_then(crd_info);
        let discovery = fields::DISCOVERY_VERSIONS
            .get(object)
            .map(|versions| discovered_group(fields::NAME.get(object), versions));
        let selector = object
            .kind
            .group
            .and_then(|g| workload_controller(g, object.kind.kind))
            .and_then(|c| workload_selector(object, c.map_selector))
            .map(Box::new);
        let pod_phase = fields::POD_PHASE
            .get(object)
            .and_then(Node::as_str)
            .map(str::to_string);
        let read = |field: fields::Field| field.entry(object).and_then(string_field);
        let name = read(fields::NAME);
        let namespace = read(fields::NAMESPACE);
        let uid = read(fields::UID);
        let labels = fields::LABELS
            .entry(object)
            .map(|(k, v)| Labels::from_entry(k, v));
        let finalizers = Finalizers::from_node(fields::FINALIZERS.get(object));
        let deletion_timestamp = fields::DELETION_TIMESTAMP
            .entry(object)
            .map(keyed_field)
            .filter(|f| f.field.value != FieldValue::Null);
        let ignore_annotation = read(fields::IGNORE_ANNOTATION);
        let duplicate_keys = fields::NAME
            .parent(object)
            .map_or_else(Vec::new, |metadata| {
                duplicate_keys(metadata, &OWNERSHIP_KEYS)
            });
        let mistyped = mistyped_fields(object);
        let captured = [fields::RESOURCE_VERSION, fields::CREATION_TIMESTAMP]
            .iter()
            .any(|field| {
                field
                    .get(object)
                    .is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
            });
        let held = held
            .iter()
            .filter_map(|&field| {
                let (key, value) = field.entry(object)?;
                Some(Held {
                    field,
                    key: key.clone(),
                    value: value.clone(),
                })
            })
            .collect();
        let rare = RareObjectParts {
            origin: None,
            crd,
            discovery,
            deletion_timestamp,
            ignore_annotation,
            duplicate_keys,
            mistyped,
            held,
        };
        Object {
            source,
            span: node.span,
            extent: node.span,
            mode: Mode::Apply,
            from_existing: false,
            captured,
            api_version,
            kind,
            name,
            namespace,
            uid,
            owner_refs,
            labels,
            finalizers,
            selector,
            pod_phase,
            rare: (!rare.is_empty()).then(|| Box::new(rare)),
        }
    }

    /// The template it was rendered from, for `helm template` output.
    pub fn origin(&self) -> Option<&str> {
        self.rare.as_ref()?.origin.as_deref()
    }

    /// Set the template the object was rendered from.
    pub fn set_origin(&mut self, origin: Option<String>) {
        match (&mut self.rare, origin) {
            (Some(rare), origin) => {
                rare.origin = origin;
                if rare.is_empty() {
                    self.rare = None;
                }
            }
            (None, None) => {}
            (None, origin) => {
                self.rare = Some(Box::new(RareObjectParts {
                    origin,
                    ..RareObjectParts::default()
                }))
            }
        }
    }

    /// For a CustomResourceDefinition: what the kind catalogue needs of it.
    pub fn crd(&self) -> Option<&CrdInfo> {
        self.rare.as_ref()?.crd.as_ref()
    }

    /// For an `APIGroupDiscovery` (an item of a cluster's discovery document): what the
    /// cluster serves of that group. Not an object of the cluster: the catalogue takes it.
    pub fn discovery(&self) -> Option<&DiscoveredGroup> {
        self.rare.as_ref()?.discovery.as_ref()
    }

    /// [`Object::discovery`], taken out of the object.
    pub fn into_discovery(self) -> Option<DiscoveredGroup> {
        self.rare?.discovery
    }

    /// `metadata.deletionTimestamp`, when set (not null).
    pub fn deletion_timestamp(&self) -> Option<&KeyedField> {
        self.rare.as_ref()?.deletion_timestamp.as_ref()
    }

    /// The `ownerlint.dev/ignore` annotation: rule ids whose findings on this object are
    /// suppressed.
    pub fn ignore_annotation(&self) -> Option<&Spanned<String>> {
        self.rare.as_ref()?.ignore_annotation.as_ref()
    }

    /// Ownership fields of `metadata` written twice.
    pub fn duplicate_keys(&self) -> &[DuplicateKey] {
        self.rare.as_ref().map_or(&[], |r| &r.duplicate_keys)
    }

    /// Identity fields and label values that are not strings.
    pub fn mistyped(&self) -> &[MistypedField] {
        self.rare.as_ref().map_or(&[], |r| &r.mistyped)
    }

    /// A field the object holds as written for the rule that declares it (`fields::Field::on`):
    /// its key and value, when the object has it.
    pub fn field(&self, field: fields::Field) -> Option<&Held> {
        self.rare
            .as_ref()?
            .held
            .iter()
            .find(|held| held.field == field)
    }

    /// Where findings about the object's labels point: its `labels`, or its name when it has
    /// none.
    pub fn labels_span(&self) -> Span {
        match &self.labels {
            Some(labels) => labels.span,
            None => self.name_span(),
        }
    }

    /// Where messages point at the object: its name, or for an unnamed one its kind (a span
    /// of a field, which reads the same however much of the object was parsed).
    pub fn name_span(&self) -> Span {
        self.name
            .as_ref()
            .or(self
                .kind
                .as_ref()
                .filter(|k| self.span.start <= k.span.start))
            .map_or(self.span, |n| n.span)
    }

    /// Whether the object was captured while being deleted.
    pub fn is_being_deleted(&self) -> bool {
        self.deletion_timestamp().is_some()
    }

    pub fn owner_refs(&self) -> &[OwnerRef] {
        match &self.owner_refs {
            OwnerRefs::List { refs, .. } => refs,
            _ => &[],
        }
    }

    /// "Deployment shop/api", "ClusterRole reader": how messages name an object, given the
    /// namespace it lives in.
    pub fn display_name(&self, namespace: Option<&str>) -> String {
        let name = self.name.as_ref().map_or("(unnamed)", |n| n.value.as_str());
        match namespace {
            Some(ns) => format!("{} {ns}/{name}", self.kind_str()),
            None => format!("{} {name}", self.kind_str()),
        }
    }

    pub fn kind_str(&self) -> &str {
        self.kind.as_ref().map_or("?", |k| k.value.as_str())
    }

    pub fn identity(&self) -> ObjectIdentity {
        ObjectIdentity {
            api_version: self.api_version.as_ref().map(|s| s.value.clone()),
            kind: self.kind.as_ref().map(|s| s.value.clone()),
            namespace: self.namespace.as_ref().map(|s| s.value.clone()),
            name: self.name.as_ref().map(|s| s.value.clone()),
        }
    }
}

impl crate::controllers::Claimable for Object {
    fn name(&self) -> &str {
        self.name.as_ref().map_or("", |n| n.value.as_str())
    }

    fn labels(&self) -> Option<&Labels> {
        self.labels.as_ref()
    }

    fn is_being_deleted(&self) -> bool {
        Object::is_being_deleted(self)
    }

    fn pod_phase(&self) -> Option<&str> {
        self.pod_phase.as_deref()
    }
}

/// A workload controller's selector: `spec.selector`, or for a ReplicationController without
/// one, its template's labels (the API server defaults the selector to them).
fn workload_selector(object: ObjectNode<'_>, map_selector: bool) -> Option<Selector> {
    let written = fields::SELECTOR.entry(object).filter(|(_, s)| !s.is_null());
    if !map_selector {
        let (key, value) = written?;
        return Selector::from_label_selector(key, value);
    }
    match written.and_then(|(k, v)| Selector::from_map(k, v, SelectorOrigin::Spec)) {
        Some(selector) => Some(selector),
        None => {
            let (key, value) = fields::TEMPLATE_LABELS.entry(object)?;
            Selector::from_map(key, value, SelectorOrigin::TemplateLabels)
        }
    }
}

/// What an `APIGroupDiscovery` lists: its group (`metadata.name`, none for the core group)
/// and, for each version, the resources served (their `responseKind`'s kind).
fn discovered_group(name: Option<&Node>, versions: &Node) -> DiscoveredGroup {
    let text = |node: Option<&Node>| node.and_then(Node::as_str).map(str::to_string);
    let strings = |node: Option<&Node>| -> Vec<String> {
        node.and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let versions = versions
        .as_seq()
        .unwrap_or_default()
        .iter()
        .filter_map(|version| {
            let resources = version
                .get("resources")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|r| {
                    Some(DiscoveredResource {
                        resource: text(r.get("resource"))?,
                        kind: text(r.get("responseKind").and_then(|k| k.get("kind")))?,
                        scope: r
                            .get("scope")
                            .and_then(Node::as_str)
                            .and_then(crate::catalog::Scope::parse),
                        singular: text(r.get("singularResource")),
                        short_names: strings(r.get("shortNames")),
                    })
                })
                .collect();
            Some(DiscoveredVersion {
                version: text(version.get("version"))?,
                stale: version.get("freshness").and_then(Node::as_str) == Some("Stale"),
                resources,
            })
        })
        .collect();
    DiscoveredGroup {
        group: text(name).unwrap_or_default(),
        versions,
    }
}

/// What a CustomResourceDefinition's `spec` declares.
fn crd_info(spec: &Node) -> Option<CrdInfo> {
    let group = spec.get("group")?.as_str()?.to_string();
    let kind = spec.get("names")?.get("kind")?.as_str()?.to_string();
    let scope = spec
        .get("scope")
        .and_then(Node::as_str)
        .and_then(crate::catalog::Scope::parse);
    let mut served_versions: Vec<String> = spec
        .get("versions")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter(|v| {
            v.get("served")
                .and_then(Node::as_scalar)
                .is_none_or(|s| s.resolve() == ScalarType::Bool(true))
        })
        .filter_map(|v| v.get("name").and_then(Node::as_str).map(str::to_string))
        .collect();
    // apiextensions.k8s.io/v1beta1 CRDs may name a single `version`.
    if let Some(v) = spec.get("version").and_then(Node::as_str)
        && !served_versions.iter().any(|s| s == v)
    {
        served_versions.push(v.to_string());
    }
    let names = spec.get("names");
    let name = |key: &str| {
        names
            .and_then(|n| n.get(key))
            .and_then(Node::as_str)
            .map(str::to_string)
    };
    let short_names = names
        .and_then(|n| n.get("shortNames"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect();
    Some(CrdInfo {
        group,
        kind,
        scope,
        served_versions,
        names: crate::catalog::ResourceNames {
            plural: name("plural"),
            singular: name("singular"),
            short_names,
        },
    })
}

/// The kind of an object of this apiVersion and kind, which decides the fields read on it:
/// the model and the fast paths (which read the same two fields as written) classify by it.
pub fn kind_of<'a>(api_version: Option<&'a str>, kind: &'a str) -> ObjectKind<'a> {
    let group = api_version
        .and_then(parse_api_version)
        .map(|(group, _)| group);
    ObjectKind::of(group, kind)
}

/// Parse an apiVersion the way `schema.ParseGroupVersion` does: no `/` is a core-group version,
/// one `/` splits group and version, more is an error. `None` when the version is empty or the
/// string does not parse (the API server rejects both).
pub fn parse_api_version(api_version: &str) -> Option<(&str, &str)> {
    let (group, version) = match api_version.split_once('/') {
        None => ("", api_version),
        Some((g, v)) => {
            if v.contains('/') {
                return None;
            }
            (g, v)
        }
    };
    (!version.is_empty()).then_some((group, version))
}

#[cfg(test)]
mod tests {
    use super::parse_api_version;

    #[test]
    fn api_versions_parse_like_kubernetes() {
        assert_eq!(parse_api_version("v1"), Some(("", "v1")));
        assert_eq!(parse_api_version("apps/v1"), Some(("apps", "v1")));
        assert_eq!(parse_api_version("apps"), Some(("", "apps")));
        assert_eq!(parse_api_version("/v1"), Some(("", "v1")));
        assert_eq!(parse_api_version("apps/"), None);
        assert_eq!(parse_api_version(""), None);
        assert_eq!(parse_api_version("/"), None);
        assert_eq!(parse_api_version("a/b/c"), None);
    }
}
