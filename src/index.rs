//! The index of every object: by identity (group, kind, namespace, name), by uid, and by
//! (group, kind, name) across namespaces. Namespaces are defaulted as `kubectl -n` does, and
//! dropped for cluster-scoped kinds as the API server drops them.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};

use crate::catalog::{Catalog, Scope, canonical_group};
use crate::model::{Object, parse_api_version};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjId(pub u32);

impl ObjId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What the index worked out about one object.
#[derive(Clone, Debug, Default)]
pub struct ObjectFacts {
    /// The group as the catalogue knows it (`extensions` ReplicaSets are `apps`).
    pub group: Option<String>,
    pub version: Option<String>,
    pub scope: Option<Scope>,
    /// The namespace the object lives in: defaulted for namespaced kinds, `None` for
    /// cluster-scoped ones; as written when the scope is unknown.
    pub namespace: Option<String>,
}

/// Objects by the hash of a key; a lookup checks each candidate's key itself, so two keys
/// with one hash never mix.
type Buckets = HashMap<u64, Vec<ObjId>, BuildHasherDefault<HashIsKey>>;

#[derive(Debug, Default)]
pub struct Index {
    pub facts: Vec<ObjectFacts>,
    /// Each object's kind and name, which the keys below are made of.
    names: Vec<Option<(String, String)>>,
    by_identity: Buckets,
    by_name: Buckets,
    by_uid: HashMap<String, Vec<ObjId>>,
}

impl Index {
    pub fn build(objects: &[Object], catalog: &Catalog, default_namespace: &str) -> Index {
        use rayon::prelude::*;
        // Facts and key hashes are worked out in parallel; filling the maps is then cheap.
        let facts: Vec<ObjectFacts> = objects
            .par_iter()
            .map(|o| facts_of(o, catalog, default_namespace))
            .collect();
        let names: Vec<Option<(String, String)>> = objects
            .iter()
            .zip(&facts)
            .map(
                |(object, facts)| match (&facts.group, &object.kind, &object.name) {
                    (Some(_), Some(kind), Some(name)) => {
                        Some((kind.value.clone(), name.value.clone()))
                    }
                    _ => None,
                },
            )
            .collect();
        let hashes: Vec<Option<(u64, u64)>> = facts
            .par_iter()
            .zip(&names)
            .map(|(facts, names)| {
                let (kind, name) = names.as_ref()?;
                let group = facts.group.as_deref()?;
                Some((
                    identity_hash(group, kind, facts.namespace.as_deref(), name),
                    name_hash(group, kind, name),
                ))
            })
            .collect();
        let mut index = Index {
            facts,
            names,
            ..Index::default()
        };
        index.by_identity.reserve(objects.len());
        index.by_name.reserve(objects.len());
        for (i, (object, hashes)) in objects.iter().zip(hashes).enumerate() {
            let id = ObjId(i as u32);
            if let Some((identity, name)) = hashes {
                index.by_identity.entry(identity).or_default().push(id);
                index.by_name.entry(name).or_default().push(id);
            }
            if let Some(uid) = &object.uid {
                index.by_uid.entry(uid.value.clone()).or_default().push(id);
            }
        }
        index
    }

    pub fn facts(&self, id: ObjId) -> &ObjectFacts {
        &self.facts[id.index()]
    }

    fn is(&self, id: ObjId, group: &str, kind: &str, name: &str) -> bool {
        let facts = self.facts(id);
        facts.group.as_deref() == Some(group)
            && self.names[id.index()]
                .as_ref()
                .is_some_and(|(k, n)| k == kind && n == name)
    }

    /// Objects with exactly this identity.
    pub fn lookup(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Vec<ObjId> {
        let hash = identity_hash(group, kind, namespace, name);
        self.by_identity
            .get(&hash)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|&id| {
                self.is(id, group, kind, name) && self.facts(id).namespace.as_deref() == namespace
            })
            .collect()
    }

    /// Objects of this group, kind and name in any namespace (or none).
    pub fn lookup_any_namespace(&self, group: &str, kind: &str, name: &str) -> Vec<ObjId> {
        self.by_name
            .get(&name_hash(group, kind, name))
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|&id| self.is(id, group, kind, name))
            .collect()
    }

    /// Objects whose `metadata.uid` is `uid`.
    pub fn by_uid(&self, uid: &str) -> &[ObjId] {
        self.by_uid.get(uid).map_or(&[], Vec::as_slice)
    }

    /// Every identity held by more than one object, in input order.
    pub fn duplicate_identities(&self) -> Vec<Vec<ObjId>> {
        let mut groups: Vec<Vec<ObjId>> = Vec::new();
        for bucket in self.by_identity.values().filter(|ids| ids.len() > 1) {
            // Split the bucket by exact identity (hashes of different keys may meet).
            let mut rest: Vec<ObjId> = bucket.clone();
            while let Some(&first) = rest.first() {
                let key = |id: ObjId| {
                    (
                        &self.facts(id).group,
                        &self.facts(id).namespace,
                        &self.names[id.index()],
                    )
                };
                let (same, other): (Vec<ObjId>, Vec<ObjId>) =
                    rest.iter().partition(|&&id| key(id) == key(first));
                if same.len() > 1 {
                    groups.push(same);
                }
                rest = other;
            }
        }
        groups.sort();
        groups
    }
}

fn identity_hash(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    (group, kind, namespace, name).hash(&mut hasher);
    hasher.finish()
}

fn name_hash(group: &str, kind: &str, name: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    (group, kind, name).hash(&mut hasher);
    hasher.finish()
}

/// The keys of [`Buckets`] are hashes already: use them as they are.
#[derive(Default)]
struct HashIsKey(u64);

impl Hasher for HashIsKey {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; fold anything else in all the same.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn facts_of(object: &Object, catalog: &Catalog, default_namespace: &str) -> ObjectFacts {
    let parsed = object
        .api_version
        .as_ref()
        .and_then(|a| parse_api_version(&a.value));
    let kind = object.kind.as_ref().map(|k| k.value.as_str());
    let (Some((group, version)), Some(kind)) = (parsed, kind) else {
        return ObjectFacts::default();
    };
    let scope = catalog.scope(group, kind);
    let written = object.namespace.as_ref().map(|n| n.value.clone());
    let namespace = match scope {
        Some(Scope::Cluster) => None,
        Some(Scope::Namespaced) => Some(written.unwrap_or_else(|| default_namespace.to_string())),
        None => written,
    };
    ObjectFacts {
        group: Some(canonical_group(group, kind).to_string()),
        version: Some(version.to_string()),
        scope,
        namespace,
    }
}
