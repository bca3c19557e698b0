//! The fields of an object that ownerlint reads, declared once, each with the kinds of object
//! it is read on; a field's declaration is also how it is read (`Field::entry`). Each rule
//! declares the fields it reads (`declare_rule!`'s `reads`): those here, which `model.rs` reads
//! into `model::Object`, or its own (`Field::on`), which each object holds as written for it
//! (`model::Object::field`). The stages all rules stand on declare theirs here (`PIPELINE`).
//! The fast path keeps exactly the declared fields of each document and drops the rest
//! unparsed (most of a dump is `managedFields`, `spec` and `status`), so a field is never read
//! without being kept. Tests hold the fast path to the full parse on every rule's failing
//! example and on generated documents.

use crate::catalog::canonical_group;
use crate::controllers::{WORKLOAD_CONTROLLERS, workload_controller};
use crate::yaml::Node;

/// The kinds of object a field is read on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kinds {
    /// Every object.
    Any,
    /// ReplicaSet, Deployment, StatefulSet, DaemonSet, Job, ReplicationController
    /// (`controllers::WORKLOAD_CONTROLLERS`).
    WorkloadControllers,
    /// These kinds, each by its group (as the catalogue names it: `apps`, not `extensions`;
    /// `""` for the core group) and kind.
    Only(&'static [(&'static str, &'static str)]),
}

impl Kinds {
    pub const PODS: Kinds = Kinds::Only(&[("", "Pod")]);
    pub const REPLICATION_CONTROLLERS: Kinds = Kinds::Only(&[("", "ReplicationController")]);
    pub const CUSTOM_RESOURCE_DEFINITIONS: Kinds =
        Kinds::Only(&[("apiextensions.k8s.io", "CustomResourceDefinition")]);
    /// The items of an `APIGroupDiscoveryList`: one API group of a cluster's discovery each.
    pub const API_GROUP_DISCOVERIES: Kinds =
        Kinds::Only(&[("apidiscovery.k8s.io", "APIGroupDiscovery")]);
    /// What a saved cluster snapshot could not read (`not-read.json`, which ownerlint
    /// writes beside the snapshot's objects): not an object of the cluster.
    pub const NOT_READ_RECORDS: Kinds = Kinds::Only(&[(NOT_READ_GROUP, NOT_READ_KIND)]);

    /// Whether an object of kind `of` is one of these.
    pub fn include(self, of: ObjectKind<'_>) -> bool {
        match self {
            Kinds::Any => true,
            Kinds::WorkloadControllers => of
                .group
                .is_some_and(|group| workload_controller(group, of.kind).is_some()),
            Kinds::Only(kinds) => of
                .group
                .is_some_and(|group| kinds.iter().any(|&(g, k)| k == of.kind && g == group)),
        }
    }

    /// Each kind named (none for `Any`), as (group, kind).
    fn named(self) -> Vec<(&'static str, &'static str)> {
        match self {
            Kinds::Any => Vec::new(),
            Kinds::WorkloadControllers => WORKLOAD_CONTROLLERS
                .iter()
                .map(|c| (c.group, c.kind))
                .collect(),
            Kinds::Only(kinds) => kinds.to_vec(),
        }
    }
}

/// What an object is, for the fields read on it: its group, as the catalogue names it (`None`
/// when its apiVersion does not parse), and its kind. Every reader classifies objects by this
/// alone (`model::kind_of`): the model, both fast paths, and through the model the catalogue
/// (which objects are CRDs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectKind<'a> {
    pub group: Option<&'a str>,
    pub kind: &'a str,
}

impl<'a> ObjectKind<'a> {
    /// The kind of an object of `group` (as written in its apiVersion) and `kind`.
    pub fn of(group: Option<&'a str>, kind: &'a str) -> ObjectKind<'a> {
        ObjectKind {
            group: group.map(|g| canonical_group(g, kind)),
            kind,
        }
    }
}

/// An object's mapping, as fields are read from it: each field only on the kinds it is
/// declared for, which are the objects the fast path keeps it of.
#[derive(Clone, Copy, Debug)]
pub struct ObjectNode<'n> {
    pub node: &'n Node,
    pub kind: ObjectKind<'n>,
    /// The object's `metadata`, looked up once: most fields are under it.
    pub metadata: Option<&'n Node>,
}

impl<'n> ObjectNode<'n> {
    /// The object's mapping, as fields of objects of `kind` are read from it.
    pub fn new(node: &'n Node, kind: ObjectKind<'n>) -> ObjectNode<'n> {
        ObjectNode {
            node,
            kind,
            metadata: node.get("metadata"),
        }
    }
}

/// A field: its path from the object's root (a map key at each step; a list's items are read
/// whole), the kinds it is read on, and whether `model.rs` reads it into a member of
/// `model::Object` or each object holds it as written, for the rule that declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub path: &'static [&'static str],
    pub kinds: Kinds,
    pub held: bool,
}

impl Field {
    /// A field a rule declares and reads itself (`model::Object::field`), on objects of `kinds`.
    pub const fn on(kinds: Kinds, path: &'static [&'static str]) -> Field {
        Field {
            path,
            kinds,
            held: true,
        }
    }

    /// The last key of the path: the field's own key in the mapping that holds it.
    pub const fn key(self) -> &'static str {
        match self.path.split_last() {
            Some((key, _)) => key,
            None => "",
        }
    }

    /// The path as messages write it: `metadata.name`.
    pub fn dotted(self) -> String {
        self.path.join(".")
    }

    /// The mapping that holds the field (`metadata` for `metadata.name`), on an object of the
    /// field's kinds.
    pub fn parent<'n>(self, object: ObjectNode<'n>) -> Option<&'n Node> {
        if !self.kinds.include(object.kind) {
            return None;
        }
        let (_, parents) = self.path.split_last()?;
        match parents.split_first() {
            Some((&"metadata", below)) => below
                .iter()
                .try_fold(object.metadata?, |node, key| node.get(key)),
            _ => parents
                .iter()
                .try_fold(object.node, |node, key| node.get(key)),
        }
    }

    /// The field's key and value in `object` (the last one written, as Kubernetes applies
    /// it); `None` when it is not there or not read on the object's kind.
    pub fn entry<'n>(self, object: ObjectNode<'n>) -> Option<(&'n Node, &'n Node)> {
        self.parent(object)?.entry(self.key())
    }

    /// The field's value in `object` (see [`Field::entry`]).
    pub fn get<'n>(self, object: ObjectNode<'n>) -> Option<&'n Node> {
        self.entry(object).map(|(_, value)| value)
    }
}

/// A field `model.rs` reads into `model::Object`.
const fn typed(kinds: Kinds, path: &'static [&'static str]) -> Field {
    Field {
        path,
        kinds,
        held: false,
    }
}

const fn any(path: &'static [&'static str]) -> Field {
    typed(Kinds::Any, path)
}

pub const API_VERSION: Field = any(&["apiVersion"]);
pub const KIND: Field = any(&["kind"]);
pub const NAME: Field = any(&["metadata", "name"]);
/// With a `generateName`, the API server makes the name up: no `name` is needed.
pub const GENERATE_NAME: Field = any(&["metadata", "generateName"]);
pub const NAMESPACE: Field = any(&["metadata", "namespace"]);
pub const UID: Field = any(&["metadata", "uid"]);
pub const OWNER_REFERENCES: Field = any(&["metadata", "ownerReferences"]);
/// Only a cluster writes these: an object that has them was captured from one.
pub const RESOURCE_VERSION: Field = any(&["metadata", "resourceVersion"]);
pub const CREATION_TIMESTAMP: Field = any(&["metadata", "creationTimestamp"]);
/// The suppression annotation's key.
pub const ANNOTATION: &str = "ownerlint.dev/ignore";
/// `ownerlint.dev/ignore`, the suppression annotation.
pub const IGNORE_ANNOTATION: Field = any(&["metadata", "annotations", ANNOTATION]);
/// A strategic merge patch directive (`$patch: delete`): the document is a patch.
pub const PATCH_DIRECTIVE: Field = any(&["$patch"]);
pub const LABELS: Field = any(&["metadata", "labels"]);
pub const FINALIZERS: Field = any(&["metadata", "finalizers"]);
pub const DELETION_TIMESTAMP: Field = any(&["metadata", "deletionTimestamp"]);
/// The selector a workload controller claims objects with.
pub const SELECTOR: Field = typed(Kinds::WorkloadControllers, &["spec", "selector"]);
/// A ReplicationController without a selector selects its template's labels.
pub const TEMPLATE_LABELS: Field = typed(
    Kinds::REPLICATION_CONTROLLERS,
    &["spec", "template", "metadata", "labels"],
);
/// Controllers skip Pods that finished.
pub const POD_PHASE: Field = typed(Kinds::PODS, &["status", "phase"]);
/// A CRD declares a kind's group, scope and served versions.
pub const CRD_SPEC: Field = typed(Kinds::CUSTOM_RESOURCE_DEFINITIONS, &["spec"]);
/// A cluster's discovery lists each version of a group with its resources.
pub const DISCOVERY_VERSIONS: Field = typed(Kinds::API_GROUP_DISCOVERIES, &["versions"]);

/// The group and kind of the record of what a saved snapshot could not read.
pub const NOT_READ_GROUP: &str = "ownerlint.dev";
pub const NOT_READ_KIND: &str = "NotRead";
/// What a saved snapshot could not read: each resource (or group), and why.
pub const NOT_READ_RESOURCES: Field = Field::on(Kinds::NOT_READ_RECORDS, &["resources"]);

/// What the stages every rule relies on read: loading (what is an object, which mode it is
/// read in), the catalog (CRDs), the index and resolution (identity, owner references), and
/// suppression (the annotation).
pub const PIPELINE: &[Field] = &[
    API_VERSION,
    KIND,
    PATCH_DIRECTIVE,
    NAME,
    NAMESPACE,
    UID,
    OWNER_REFERENCES,
    RESOURCE_VERSION,
    CREATION_TIMESTAMP,
    IGNORE_ANNOTATION,
    CRD_SPEC,
    DISCOVERY_VERSIONS,
    NOT_READ_RESOURCES,
];

/// What to keep of a mapping: everything, or some keys, each with what to keep beneath it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keep {
    pub all: bool,
    pub keys: Vec<(&'static str, Keep)>,
}

impl Keep {
    /// What to keep beneath `key`, if anything.
    pub fn get(&self, key: &str) -> Option<&Keep> {
        self.keys
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, keep)| keep)
    }

    fn add(&mut self, path: &[&'static str]) {
        if self.all {
            return;
        }
        let Some((first, rest)) = path.split_first() else {
            *self = Keep {
                all: true,
                keys: Vec::new(),
            };
            return;
        };
        let at = match self.keys.iter().position(|(k, _)| k == first) {
            Some(at) => at,
            None => {
                self.keys.push((first, Keep::default()));
                self.keys.len() - 1
            }
        };
        self.keys[at].1.add(rest);
    }
}

/// What to keep of an object, by its kind: one tree for each kind some field is read on, and
/// one for every other kind. There are as many as the declared fields name kinds.
#[derive(Debug)]
pub struct Kept {
    /// Each kind some field is read on, as (group, kind), with what to keep of an object of it.
    kinds: Vec<((&'static str, &'static str), Keep)>,
    /// What to keep of an object of any other kind: the fields read on every kind.
    other: Keep,
    /// The declared fields that each object holds as written (`Field::held`).
    held: Vec<Field>,
}

impl Kept {
    pub fn new<'f>(fields: impl IntoIterator<Item = &'f Field>) -> Kept {
        let mut declared: Vec<Field> = Vec::new();
        for field in fields {
            if !declared.contains(field) {
                declared.push(*field);
            }
        }
        let keep = |of: ObjectKind| {
            let mut keep = Keep::default();
            for field in declared.iter().filter(|f| f.kinds.include(of)) {
                keep.add(field.path);
            }
            keep
        };
        let mut kinds: Vec<((&'static str, &'static str), Keep)> = Vec::new();
        for (group, kind) in declared.iter().flat_map(|f| f.kinds.named()) {
            if !kinds.iter().any(|(named, _)| *named == (group, kind)) {
                let of = ObjectKind {
                    group: Some(group),
                    kind,
                };
                kinds.push(((group, kind), keep(of)));
            }
        }
        Kept {
            kinds,
            other: keep(ObjectKind::default()),
            held: declared.iter().filter(|f| f.held).copied().collect(),
        }
    }

    /// What to keep of an object of kind `of`.
    pub fn object(&self, of: ObjectKind<'_>) -> &Keep {
        let Some(group) = of.group else {
            return &self.other;
        };
        self.kinds
            .iter()
            .find(|((g, k), _)| *k == of.kind && *g == group)
            .map_or(&self.other, |(_, keep)| keep)
    }

    /// Whether a stage or a rule reads anything of an object of kind `of` beyond its
    /// apiVersion, kind and metadata: all that a cluster's metadata-only list holds.
    pub fn reads_beyond_metadata(&self, of: ObjectKind<'_>) -> bool {
        let keep = self.object(of);
        keep.all
            || keep
                .keys
                .iter()
                .any(|(key, _)| !matches!(*key, "apiVersion" | "kind" | "metadata" | "$patch"))
    }

    /// Whether all that a stage or a rule reads of an object of kind `of` beyond its
    /// apiVersion, kind and metadata is its `status.phase` (a Pod's, today): a cluster's Pods
    /// are then listed as metadata only, and their phases read with a field selector.
    pub fn reads_only_phase_beyond_metadata(&self, of: ObjectKind<'_>) -> bool {
        let keep = self.object(of);
        let phase = Keep {
            all: false,
            keys: vec![(
                "phase",
                Keep {
                    all: true,
                    keys: Vec::new(),
                },
            )],
        };
        !keep.all
            && keep.get("status") == Some(&phase)
            && keep.keys.iter().all(|(key, _)| {
                matches!(
                    *key,
                    "apiVersion" | "kind" | "metadata" | "$patch" | "status"
                )
            })
    }

    /// The fields each object holds as written, for the rules that declare them.
    pub fn held(&self) -> &[Field] {
        &self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_field_keeps_what_is_beneath_it_and_kinds_add_their_fields() {
        let kept = Kept::new(&[NAME, LABELS, SELECTOR, CRD_SPEC, any(&["metadata"])]);
        let plain = kept.object(ObjectKind::of(Some(""), "ConfigMap"));
        assert!(plain.get("metadata").is_some_and(|m| m.all));
        assert!(plain.get("spec").is_none());
        let workload = kept.object(ObjectKind::of(Some("extensions"), "ReplicaSet"));
        let spec = workload.get("spec").expect("a workload's spec");
        assert!(!spec.all && spec.get("selector").is_some_and(|s| s.all));
        let crd = kept.object(ObjectKind::of(
            Some("apiextensions.k8s.io"),
            "CustomResourceDefinition",
        ));
        assert!(crd.get("spec").is_some_and(|s| s.all));
        assert!(
            kept.object(ObjectKind::of(None, "ReplicaSet"))
                .get("spec")
                .is_none()
        );
        assert!(kept.held().is_empty());
    }

    #[test]
    fn a_pod_whose_only_field_beyond_metadata_read_is_its_phase_says_so() {
        let pod = ObjectKind::of(Some(""), "Pod");
        let kept = Kept::new(PIPELINE.iter().chain(&[LABELS, POD_PHASE]));
        assert!(kept.reads_beyond_metadata(pod));
        assert!(kept.reads_only_phase_beyond_metadata(pod));
        // Another field of its status, or of its spec, and it is read whole.
        for more in [
            Field::on(Kinds::PODS, &["status", "podIP"]),
            Field::on(Kinds::PODS, &["spec", "nodeName"]),
        ] {
            let kept = Kept::new(PIPELINE.iter().chain(&[POD_PHASE, more]));
            assert!(!kept.reads_only_phase_beyond_metadata(pod), "{more:?}");
        }
        let kept = Kept::new(PIPELINE);
        assert!(!kept.reads_only_phase_beyond_metadata(pod));
        // The rules as they are: a Pod's phase and nothing else of it beyond metadata.
        assert!(crate::rules::kept().reads_only_phase_beyond_metadata(pod));
    }

    #[test]
    fn a_field_is_read_where_it_is_kept() {
        let kept = Kept::new(&[
            POD_PHASE,
            Field::on(Kinds::Only(&[("", "Secret")]), &["type"]),
        ]);
        let secret = ObjectKind::of(Some(""), "Secret");
        assert!(kept.object(secret).get("type").is_some());
        assert!(
            kept.object(ObjectKind::of(Some(""), "Pod"))
                .get("type")
                .is_none()
        );
        assert_eq!(kept.held().len(), 1);
        assert_eq!(POD_PHASE.key(), "phase");
        assert_eq!(POD_PHASE.dotted(), "status.phase");
    }
}
