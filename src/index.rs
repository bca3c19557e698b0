//! The index of every object: by identity (group, kind, namespace, name), by uid, and by
//! (group, kind, name) across namespaces. Namespaces are defaulted as `kubectl -n` does, and
//! dropped for cluster-scoped kinds as the API server drops them.

use std::collections::HashMap;

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

type IdentityKey = (String, String, Option<String>, String);
type NameKey = (String, String, String);

#[derive(Debug, Default)]
pub struct Index {
    pub facts: Vec<ObjectFacts>,
    by_identity: HashMap<IdentityKey, Vec<ObjId>>,
    by_name: HashMap<NameKey, Vec<ObjId>>,
    by_uid: HashMap<String, Vec<ObjId>>,
}

impl Index {
    pub fn build(objects: &[Object], catalog: &Catalog, default_namespace: &str) -> Index {
        let mut index = Index::default();
        for (i, object) in objects.iter().enumerate() {
            let id = ObjId(i as u32);
            let facts = facts_of(object, catalog, default_namespace);
            if let (Some(group), Some(kind), Some(name)) =
                (&facts.group, &object.kind, &object.name)
            {
                index
                    .by_identity
                    .entry((
                        group.clone(),
                        kind.value.clone(),
                        facts.namespace.clone(),
                        name.value.clone(),
                    ))
                    .or_default()
                    .push(id);
                index
                    .by_name
                    .entry((group.clone(), kind.value.clone(), name.value.clone()))
                    .or_default()
                    .push(id);
            }
            if let Some(uid) = &object.uid {
                index.by_uid.entry(uid.value.clone()).or_default().push(id);
            }
            index.facts.push(facts);
        }
        index
    }

    pub fn facts(&self, id: ObjId) -> &ObjectFacts {
        &self.facts[id.index()]
    }

    /// Objects with exactly this identity.
    pub fn lookup(&self, group: &str, kind: &str, namespace: Option<&str>, name: &str) -> &[ObjId] {
        self.by_identity
            .get(&(
                group.to_string(),
                kind.to_string(),
                namespace.map(str::to_string),
                name.to_string(),
            ))
            .map_or(&[], Vec::as_slice)
    }

    /// Objects of this group, kind and name in any namespace (or none).
    pub fn lookup_any_namespace(&self, group: &str, kind: &str, name: &str) -> &[ObjId] {
        self.by_name
            .get(&(group.to_string(), kind.to_string(), name.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Objects whose `metadata.uid` is `uid`.
    pub fn by_uid(&self, uid: &str) -> &[ObjId] {
        self.by_uid.get(uid).map_or(&[], Vec::as_slice)
    }

    /// Every identity held by more than one object, in input order.
    pub fn duplicate_identities(&self) -> Vec<&[ObjId]> {
        let mut groups: Vec<&[ObjId]> = self
            .by_identity
            .values()
            .filter(|ids| ids.len() > 1)
            .map(Vec::as_slice)
            .collect();
        groups.sort();
        groups
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
