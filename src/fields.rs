//! The fields of an object that ownerlint reads, declared once. Each rule declares the fields it
//! reads (`declare_rule!`'s `reads`), and the stages all rules stand on declare theirs here
//! (`PIPELINE`). The fast path keeps exactly the declared fields of each document and drops the
//! rest unparsed (most of a dump is `managedFields`, `spec` and `status`), so a field is never
//! read without being kept. Tests hold the fast path to the full parse on every rule's failing
//! example and on generated documents.

/// The kinds of object a field is read on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kinds {
    Any,
    /// ReplicaSet, Deployment, StatefulSet, DaemonSet, Job, ReplicationController
    /// (`controllers::WORKLOAD_CONTROLLERS`).
    WorkloadControllers,
    /// Core Pods.
    Pods,
    /// Core ReplicationControllers.
    ReplicationControllers,
    /// apiextensions.k8s.io CustomResourceDefinitions.
    CustomResourceDefinitions,
}

impl Kinds {
    /// The bit of a kind class in a `KindSet`; `Any` is in every set.
    const fn bit(self) -> u8 {
        match self {
            Kinds::Any => 0,
            Kinds::WorkloadControllers => 1,
            Kinds::Pods => 2,
            Kinds::ReplicationControllers => 4,
            Kinds::CustomResourceDefinitions => 8,
        }
    }
}

/// The kind classes one object belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindSet(u8);

impl KindSet {
    pub fn with(self, kinds: Kinds, member: bool) -> KindSet {
        if member {
            KindSet(self.0 | kinds.bit())
        } else {
            self
        }
    }

    fn contains(self, kinds: Kinds) -> bool {
        self.0 & kinds.bit() == kinds.bit()
    }
}

/// A field: its path from the object's root (a map key at each step; a list's items are read
/// whole), and the kinds it is read on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub path: &'static [&'static str],
    pub kinds: Kinds,
}

const fn any(path: &'static [&'static str]) -> Field {
    Field {
        path,
        kinds: Kinds::Any,
    }
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
pub const SELECTOR: Field = Field {
    path: &["spec", "selector"],
    kinds: Kinds::WorkloadControllers,
};
/// A ReplicationController without a selector selects its template's labels.
pub const TEMPLATE_LABELS: Field = Field {
    path: &["spec", "template", "metadata", "labels"],
    kinds: Kinds::ReplicationControllers,
};
/// Controllers skip Pods that finished.
pub const POD_PHASE: Field = Field {
    path: &["status", "phase"],
    kinds: Kinds::Pods,
};
/// A CRD declares a kind's group, scope and served versions.
pub const CRD_SPEC: Field = Field {
    path: &["spec"],
    kinds: Kinds::CustomResourceDefinitions,
};

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

/// What to keep of an object, for each combination of kind classes.
#[derive(Debug)]
pub struct Kept {
    trees: Vec<Keep>,
}

impl Kept {
    pub fn new<'f>(fields: impl IntoIterator<Item = &'f Field>) -> Kept {
        let fields: Vec<&Field> = fields.into_iter().collect();
        let trees = (0..16u8)
            .map(|set| {
                let mut keep = Keep::default();
                for field in fields.iter().filter(|f| KindSet(set).contains(f.kinds)) {
                    keep.add(field.path);
                }
                keep
            })
            .collect();
        Kept { trees }
    }

    /// What to keep of an object of these kind classes.
    pub fn object(&self, kinds: KindSet) -> &Keep {
        &self.trees[usize::from(kinds.0 & 15)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_field_keeps_what_is_beneath_it_and_kinds_add_their_fields() {
        let kept = Kept::new(&[NAME, LABELS, SELECTOR, CRD_SPEC, any(&["metadata"])]);
        let plain = kept.object(KindSet::default());
        assert!(plain.get("metadata").is_some_and(|m| m.all));
        assert!(plain.get("spec").is_none());
        let workload = kept.object(KindSet::default().with(Kinds::WorkloadControllers, true));
        let spec = workload.get("spec").expect("a workload's spec");
        assert!(!spec.all && spec.get("selector").is_some_and(|s| s.all));
        let crd = kept.object(KindSet::default().with(Kinds::CustomResourceDefinitions, true));
        assert!(crd.get("spec").is_some_and(|s| s.all));
    }
}
