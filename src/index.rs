//! The index of every object: by identity (group, kind, namespace, name), by uid, and by
//! (group, kind, name) across namespaces. Namespaces are defaulted as `kubectl -n` does, and
//! dropped for cluster-scoped kinds as the API server drops them.

use std::borrow::Cow;
use std::hash::BuildHasher;

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
    pub group: Option<Cow<'static, str>>,
    pub version: Option<Cow<'static, str>>,
    pub scope: Option<Scope>,
    /// The namespace the object lives in: defaulted for namespaced kinds, `None` for
    /// cluster-scoped ones; as written when the scope is unknown.
    pub namespace: Option<String>,
    /// What the object is applied with: 0 for files, context and project; each chart or
    /// overlay built, a number of its own. Objects of two builds never meet: each build is
    /// applied on its own, and two overlays of one base hold the same objects.
    pub world: u32,
}

/// Objects by the hash of a key, sorted by hash: a lookup finds the run of its hash and checks
/// each candidate's key against the object itself, so two keys with one hash never mix. (A
/// sorted list takes 16 bytes an object, a fraction of a map of lists.)
#[derive(Debug, Default)]
struct ByHash(Vec<(u64, ObjId)>);

impl ByHash {
    fn new(mut entries: Vec<(u64, ObjId)>) -> ByHash {
        use rayon::slice::ParallelSliceMut;
        // By hash, then by id: objects with one hash stay in input order.
        entries.par_sort_unstable();
        ByHash(entries)
    }

    /// The objects whose key has this hash, in input order.
    fn get(&self, hash: u64) -> impl Iterator<Item = ObjId> + '_ {
        let from = self.0.partition_point(|&(h, _)| h < hash);
        self.0[from..]
            .iter()
            .take_while(move |&&(h, _)| h == hash)
            .map(|&(_, id)| id)
    }

    /// Runs of more than one object with the same hash.
    fn shared(&self) -> impl Iterator<Item = &[(u64, ObjId)]> {
        self.0
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|run| run.len() > 1)
    }
}

#[derive(Debug, Default)]
pub struct Index {
    pub facts: Vec<ObjectFacts>,
    by_identity: ByHash,
    by_name: ByHash,
    by_uid: ByHash,
}

impl Index {
    pub fn build(objects: &[Object], catalog: &Catalog, default_namespace: &str) -> Index {
        Index::build_in_worlds(objects, catalog, default_namespace, &[], &[])
    }

    /// [`Index::build`], with the world of each source (by `SourceId`; a source not in
    /// `worlds` is of world 0), and the namespace its objects that name none are in, where it
    /// is not `default_namespace` (an Argo CD Application's destination, a Flux HelmRelease's
    /// release namespace).
    pub fn build_in_worlds(
        objects: &[Object],
        catalog: &Catalog,
        default_namespace: &str,
        worlds: &[u32],
        namespaces: &[Option<&str>],
    ) -> Index {
        use rayon::prelude::*;
        let facts: Vec<ObjectFacts> = objects
            .par_iter()
            .map(|o| {
                let source = o.source.0 as usize;
                let namespace = namespaces.get(source).copied().flatten();
                ObjectFacts {
                    world: worlds.get(source).copied().unwrap_or(0),
                    ..facts_of(o, catalog, namespace.unwrap_or(default_namespace))
                }
            })
            .collect();
        let keyed = |key: &(dyn Fn(&Object, &ObjectFacts) -> Option<u64> + Sync)| {
            objects
                .par_iter()
                .zip(&facts)
                .enumerate()
                .filter_map(|(i, (object, facts))| Some((key(object, facts)?, ObjId(i as u32))))
                .collect::<Vec<_>>()
        };
        let by_identity = ByHash::new(keyed(&|object, facts| {
            let (group, kind, name) = key_of(object, facts)?;
            Some(identity_hash(group, kind, facts.namespace.as_deref(), name) ^ facts.world as u64)
        }));
        let by_name = ByHash::new(keyed(&|object, facts| {
            let (group, kind, name) = key_of(object, facts)?;
            Some(name_hash(group, kind, name) ^ facts.world as u64)
        }));
        let by_uid = ByHash::new(keyed(&|object, facts| {
            Some(uid_hash(&object.uid.as_ref()?.value) ^ facts.world as u64)
        }));
        Index {
            facts,
            by_identity,
            by_name,
            by_uid,
        }
    }

    pub fn facts(&self, id: ObjId) -> &ObjectFacts {
        &self.facts[id.index()]
    }

    /// Whether object `id` has this group, kind and name.
    fn is(&self, objects: &[Object], id: ObjId, group: &str, kind: &str, name: &str) -> bool {
        key_of(&objects[id.index()], self.facts(id)) == Some((group, kind, name))
    }

    /// The worlds an object of `from` sees: its own, and the files' (world 0), in that order.
    fn worlds_seen(&self, from: ObjId) -> impl Iterator<Item = u32> + use<> {
        let own = self.facts(from).world;
        std::iter::once(own).chain((own != 0).then_some(0))
    }

    /// Objects with exactly this identity that `from` sees (`objects` are those the index was
    /// built from).
    pub fn lookup(
        &self,
        objects: &[Object],
        from: ObjId,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Vec<ObjId> {
        let hash = identity_hash(group, kind, namespace, name);
        self.worlds_seen(from)
            .flat_map(|world| self.by_identity.get(hash ^ world as u64))
            .filter(|&id| {
                self.sees(from, id)
                    && self.is(objects, id, group, kind, name)
                    && self.facts(id).namespace.as_deref() == namespace
            })
            .collect()
    }

    /// Objects of this group, kind and name in any namespace (or none) that `from` sees.
    pub fn lookup_any_namespace(
        &self,
        objects: &[Object],
        from: ObjId,
        group: &str,
        kind: &str,
        name: &str,
    ) -> Vec<ObjId> {
        let hash = name_hash(group, kind, name);
        self.worlds_seen(from)
            .flat_map(|world| self.by_name.get(hash ^ world as u64))
            .filter(|&id| self.sees(from, id) && self.is(objects, id, group, kind, name))
            .collect()
    }

    /// Objects whose `metadata.uid` is `uid` that `from` sees: those of its own world first,
    /// each world in input order.
    pub fn by_uid<'a>(
        &'a self,
        objects: &'a [Object],
        from: ObjId,
        uid: &'a str,
    ) -> impl Iterator<Item = ObjId> + 'a {
        let hash = uid_hash(uid);
        self.worlds_seen(from)
            .flat_map(move |world| self.by_uid.get(hash ^ world as u64))
            .filter(move |&id| {
                self.sees(from, id)
                    && objects[id.index()]
                        .uid
                        .as_ref()
                        .is_some_and(|u| u.value == uid)
            })
    }

    /// Whether an object of `from`'s world sees object `id`: one of its own world, or of the
    /// files'.
    pub fn sees(&self, from: ObjId, id: ObjId) -> bool {
        let world = self.facts(id).world;
        world == 0 || world == self.facts(from).world
    }

    /// Whether objects `a` and `b` are of one chart or overlay built (not of the files).
    pub fn same_build(&self, a: ObjId, b: ObjId) -> bool {
        let world = self.facts(a).world;
        world != 0 && world == self.facts(b).world
    }

    /// The objects of the chart or overlay `of` is an object of (none for a file's object).
    pub fn in_build_of(&self, of: ObjId) -> impl Iterator<Item = ObjId> + '_ {
        let world = self.facts(of).world;
        self.facts
            .iter()
            .enumerate()
            .filter(move |(_, facts)| world != 0 && facts.world == world)
            .map(|(i, _)| ObjId(i as u32))
    }

    /// Every uid held by more than one object, each group in input order.
    pub fn shared_uids(&self, objects: &[Object]) -> Vec<Vec<ObjId>> {
        let mut groups: Vec<Vec<ObjId>> = Vec::new();
        for run in self.by_uid.shared() {
            // Split the run by exact uid (hashes of different uids may meet).
            let mut rest: Vec<ObjId> = run.iter().map(|&(_, id)| id).collect();
            while let Some(&first) = rest.first() {
                let uid = |id: ObjId| {
                    let uid = objects[id.index()].uid.as_ref().map(|u| &u.value);
                    (uid, self.facts(id).world)
                };
                let (same, other): (Vec<ObjId>, Vec<ObjId>) =
                    rest.iter().partition(|&&id| uid(id) == uid(first));
                if same.len() > 1 {
                    groups.push(same);
                }
                rest = other;
            }
        }
        groups.iter_mut().for_each(|g| g.sort());
        groups.sort();
        groups
    }

    /// Every identity held by more than one object, in input order.
    pub fn duplicate_identities(&self, objects: &[Object]) -> Vec<Vec<ObjId>> {
        let mut groups: Vec<Vec<ObjId>> = Vec::new();
        for run in self.by_identity.shared() {
            // Split the run by exact identity (hashes of different keys may meet).
            let mut rest: Vec<ObjId> = run.iter().map(|&(_, id)| id).collect();
            while let Some(&first) = rest.first() {
                let key = |id: ObjId| {
                    (
                        key_of(&objects[id.index()], self.facts(id)),
                        &self.facts(id).namespace,
                        self.facts(id).world,
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

/// The group, kind and name an object is indexed by, when it has all three.
fn key_of<'a>(object: &'a Object, facts: &'a ObjectFacts) -> Option<(&'a str, &'a str, &'a str)> {
    Some((
        facts.group.as_deref()?,
        &object.kind.as_ref()?.value,
        &object.name.as_ref()?.value,
    ))
}

/// The index's hash: fast (every object is hashed three times, every reference looked up),
/// and the same in every run.
const HASH: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0x6f776e65726c696e);

fn identity_hash(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> u64 {
    HASH.hash_one((group, kind, namespace, name))
}

fn name_hash(group: &str, kind: &str, name: &str) -> u64 {
    HASH.hash_one((group, kind, name))
}

fn uid_hash(uid: &str) -> u64 {
    HASH.hash_one(uid)
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
        group: Some(catalog.shared(canonical_group(group, kind))),
        version: Some(catalog.shared(version)),
        scope,
        namespace,
        world: 0,
    }
}
