//! Resolution of every owner reference, once, in the order the garbage collector works
//! (`attemptToDeleteItem` and `isDangling` in `pkg/controller/garbagecollector/garbagecollector.go`
//! of `k8s.io/kubernetes`): the reference must be valid, its apiVersion/kind must map to a served
//! resource, a cluster-scoped dependent cannot have a namespaced owner, and then the owner is
//! looked up by name in the dependent's namespace (or cluster-wide) and compared by uid.
//! Rules read the outcome; none of them repeats the lookup.

use std::borrow::Cow;

use crate::catalog::{ApiStatus, Catalog, Scope, canonical_group};
use crate::index::{Index, ObjId};
use crate::model::{Mode, Object, OwnerRef, parse_api_version};

/// How the owner's uid compares with the reference's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UidCheck {
    Match,
    Mismatch,
    /// The owner is created by this input, so its uid cannot be known yet.
    Fresh,
    /// The owner was captured without a uid; nothing to compare.
    OwnerHasNoUid,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// A required field is missing or malformed; `owner-ref-invalid` reports it.
    Invalid,
    /// Core `v1 Event`, which the API server refuses as an owner.
    Banned,
    /// The apiVersion/kind does not map to a served resource: the GC can never resolve it.
    Unserved(ApiStatus),
    /// A kind that is never stored (Binding, TokenReview, …).
    Unpersisted,
    /// A cluster-scoped dependent naming a namespaced owner kind.
    ClusterScopedDependent,
    /// No object of that group, kind and name (and uid) where the GC looks. `elsewhere` lists
    /// the object in another namespace that holds the reference's uid, or else objects of that
    /// name in other namespaces; `shadow` is an object of that name in the dependent's
    /// namespace with another uid, when the uid is held elsewhere.
    NotFound {
        elsewhere: Vec<ObjId>,
        shadow: Option<ObjId>,
    },
    Found {
        owner: ObjId,
        uid: UidCheck,
    },
}

impl Resolution {
    /// Why the reference reaches no live owner, or `None` when it does: the owner exists with
    /// the referenced uid (or one that cannot be compared).
    pub fn unresolved(&self) -> Option<Unresolved> {
        Some(match self {
            Resolution::Found { uid, .. } => match uid {
                UidCheck::Match | UidCheck::OwnerHasNoUid => return None,
                UidCheck::Mismatch => Unresolved::UidMismatch,
                UidCheck::Fresh => Unresolved::FreshUid,
            },
            Resolution::NotFound { elsewhere, .. } if !elsewhere.is_empty() => {
                Unresolved::OtherNamespace
            }
            Resolution::NotFound { .. } => Unresolved::NotFound,
            Resolution::Unserved(_) => Unresolved::UnservedApi,
            Resolution::ClusterScopedDependent => Unresolved::ClusterScopedDependent,
            Resolution::Unpersisted | Resolution::Banned => Unresolved::NeverAnOwner,
            Resolution::Invalid => Unresolved::Invalid,
        })
    }

    /// Why the garbage collector finds no object that the reference names, as a sentence;
    /// `None` when it finds one (whose uid may still be another: [`Resolution::unresolved`]).
    pub fn why_no_object(&self) -> Option<&'static str> {
        Some(match self {
            Resolution::Invalid => "The reference lacks a required field, or one is malformed.",
            Resolution::Banned => "Core v1 Events cannot be owners.",
            Resolution::Unserved(_) => "No served API maps this apiVersion and kind.",
            Resolution::Unpersisted => "Objects of this kind are never stored.",
            Resolution::ClusterScopedDependent => {
                "A cluster-scoped object cannot have a namespaced owner."
            }
            Resolution::NotFound { .. } => {
                "No object of that kind and name where the garbage collector looks."
            }
            Resolution::Found { .. } => return None,
        })
    }
}

/// The outcome for one reference, with what was learned on the way.
#[derive(Clone, Debug)]
pub struct RefResolution {
    pub resolution: Resolution,
    pub group: Cow<'static, str>,
    pub version: Cow<'static, str>,
    /// Served status of the reference's apiVersion/kind (`Served` when it was not reached).
    pub api: ApiStatus,
    /// The owner kind's scope, when the catalogue knows it.
    pub owner_scope: Option<Scope>,
    /// The kind as Kubernetes spells it, when the reference writes it in all lower case
    /// (`replicaset`): the REST mapper registers every kind in lower case too, so the reference
    /// resolves like the canonical kind.
    pub lower_case_of: Option<String>,
}

impl RefResolution {
    /// The owner's kind as the REST mapper resolves `written`: the canonical spelling of a
    /// kind written in lower case.
    pub fn kind<'a>(&'a self, written: &'a str) -> &'a str {
        self.lower_case_of.as_deref().unwrap_or(written)
    }

    pub fn owner(&self) -> Option<ObjId> {
        match self.resolution {
            Resolution::Found { owner, .. } => Some(owner),
            _ => None,
        }
    }

    /// The owner exists with the referenced uid (or could not be compared): the GC sees a
    /// live owner.
    pub fn is_solid(&self) -> bool {
        self.unresolved().is_none()
    }

    /// Why the reference reaches no live owner, or `None` when it does.
    pub fn unresolved(&self) -> Option<Unresolved> {
        self.resolution.unresolved()
    }

    /// Whether the garbage collector treats the owner as gone (and may delete the dependent,
    /// written in `dependent_mode`). An owner missing from a snapshot counts as gone only when
    /// the input is complete for its kind (`complete_here`): it may exist in the part of the
    /// cluster that was not captured.
    pub fn is_dangling(&self, dependent_mode: Mode, complete_here: bool) -> bool {
        self.unresolved().is_some_and(|reason| {
            let uncertain = reason == Unresolved::NotFound
                && dependent_mode == Mode::Snapshot
                && !complete_here;
            reason.is_dangling() && !uncertain
        })
    }
}

/// The resolutions of every reference of every object: `resolutions[object][reference]`.
pub fn resolve_all(
    objects: &[Object],
    index: &Index,
    catalog: &Catalog,
) -> Vec<Vec<RefResolution>> {
    use rayon::prelude::*;
    // Each reference resolves on its own; the results keep the objects' order.
    objects
        .par_iter()
        .enumerate()
        .map(|(i, object)| {
            object
                .owner_refs()
                .iter()
                .map(|r| resolve(ObjId(i as u32), r, objects, index, catalog))
                .collect()
        })
        .collect()
}

/// Who owns whom as the references resolve by group, kind, scope and name (whatever their
/// uid says): built once, for the rules that walk ownership. Every object's dependents are in
/// one list: a dump's hundreds of thousands of objects hold two allocations here, not one each.
#[derive(Debug, Default)]
pub struct Ownership {
    /// Where each object's dependents start in `dependents` (one more entry than objects).
    starts: Vec<u32>,
    /// For each object in turn, the objects with a reference to it, each once, in input order.
    dependents: Vec<ObjId>,
}

impl Ownership {
    pub fn new(resolutions: &[Vec<RefResolution>]) -> Ownership {
        // Each (owner, dependent) once, sorted by owner and then dependent: the dependents of
        // each owner in input order.
        let mut edges: Vec<(ObjId, ObjId)> = Vec::new();
        for (i, refs) in resolutions.iter().enumerate() {
            let dependent = ObjId(i as u32);
            edges.extend(
                refs.iter()
                    .filter_map(RefResolution::owner)
                    .map(|owner| (owner, dependent)),
            );
        }
        edges.sort_unstable();
        edges.dedup();
        let mut starts = Vec::with_capacity(resolutions.len() + 1);
        let mut at = 0;
        for owner in 0..resolutions.len() {
            starts.push(at as u32);
            while at < edges.len() && edges[at].0.index() == owner {
                at += 1;
            }
        }
        starts.push(at as u32);
        let dependents = edges.into_iter().map(|(_, dependent)| dependent).collect();
        Ownership { starts, dependents }
    }

    pub fn dependents(&self, owner: ObjId) -> &[ObjId] {
        match (
            self.starts.get(owner.index()),
            self.starts.get(owner.index() + 1),
        ) {
            (Some(&from), Some(&to)) => &self.dependents[from as usize..to as usize],
            _ => &[],
        }
    }
}

fn resolve(
    dependent_id: ObjId,
    reference: &OwnerRef,
    objects: &[Object],
    index: &Index,
    catalog: &Catalog,
) -> RefResolution {
    let mut out = RefResolution {
        resolution: Resolution::Invalid,
        group: Cow::Borrowed(""),
        version: Cow::Borrowed(""),
        api: ApiStatus::Served,
        owner_scope: None,
        lower_case_of: None,
    };
    let (Some(api_version), Some(kind), Some(name), Some(uid)) = (
        reference.api_version_str(),
        reference.kind_str(),
        reference.name_str(),
        reference.uid_str(),
    ) else {
        return out;
    };
    let Some((group, version)) = parse_api_version(api_version) else {
        return out;
    };
    if reference.not_a_mapping().is_some()
        || !valid_flag(&reference.controller)
        || !valid_flag(&reference.block_owner_deletion)
    {
        return out;
    }
    out.group = catalog.shared(group);
    out.version = catalog.shared(version);
    if group.is_empty() && version == "v1" && kind == "Event" {
        out.resolution = Resolution::Banned;
        return out;
    }
    out.api = catalog.api_status(group, version, kind);
    if let ApiStatus::MisCased { kind: right } = &out.api
        && !kind.bytes().any(|b| b.is_ascii_uppercase())
    {
        out.lower_case_of = Some(right.clone());
        out.api = catalog.api_status(group, version, right);
    }
    let lower_case_of = out.lower_case_of.clone();
    let kind = lower_case_of.as_deref().unwrap_or(kind);
    // A snapshot is evidence about its cluster: objects it holds at this apiVersion and kind
    // prove the cluster served them, so its references there can be mapped.
    // (An unknown kind stays unknown: being served tells nothing of its scope.)
    if !matches!(out.api, ApiStatus::Served | ApiStatus::UnknownKind)
        && objects[dependent_id.index()].mode == Mode::Snapshot
        && catalog.was_captured(api_version, kind)
    {
        out.api = ApiStatus::Served;
    }
    match &out.api {
        ApiStatus::Served | ApiStatus::OffByDefault | ApiStatus::UnknownKind => {}
        other => {
            out.resolution = Resolution::Unserved(other.clone());
            return out;
        }
    }
    if !catalog.is_persisted(group, kind) {
        out.resolution = Resolution::Unpersisted;
        return out;
    }
    let group = canonical_group(group, kind);
    out.owner_scope = catalog.scope(group, kind);
    let dependent_facts = index.facts(dependent_id);
    if dependent_facts.scope == Some(Scope::Cluster) && out.owner_scope == Some(Scope::Namespaced) {
        out.resolution = Resolution::ClusterScopedDependent;
        return out;
    }
    let dependent_namespace = dependent_facts.namespace.as_deref();
    // An object in another namespace that holds the reference's uid: the garbage collector
    // knows the owner by uid, finds it in the wrong namespace, and records
    // `OwnerRefInvalidNamespace`, whatever else holds the name here.
    let uid_elsewhere: Vec<ObjId> = match dependent_namespace {
        Some(ns) if out.owner_scope != Some(Scope::Cluster) => index
            .by_uid(objects, dependent_id, uid)
            .filter(|id| {
                let facts = index.facts(*id);
                facts.scope != Some(Scope::Cluster)
                    && facts.namespace.as_deref().is_some_and(|other| other != ns)
            })
            .collect(),
        _ => Vec::new(),
    };
    let candidates: Vec<ObjId> = match out.owner_scope {
        Some(Scope::Cluster) => index.lookup(objects, dependent_id, group, kind, None, name),
        Some(Scope::Namespaced) => index.lookup(
            objects,
            dependent_id,
            group,
            kind,
            dependent_namespace,
            name,
        ),
        // Unknown scope: the owner may be cluster-scoped or in the dependent's namespace.
        None => index
            .lookup_any_namespace(objects, dependent_id, group, kind, name)
            .into_iter()
            .filter(|id| {
                let ns = index.facts(*id).namespace.as_deref();
                ns.is_none() || ns == dependent_namespace
            })
            .collect(),
    };
    // A built object is resolved within its own build first: the build is applied on its own,
    // so when it holds the owner (in any namespace), or renamed it, an object of another input
    // in another namespace is not the one its reference means. (An object read from the
    // cluster that holds the reference's uid still is: the garbage collector finds it by uid.)
    let mut uid_elsewhere = uid_elsewhere;
    let own_first = |elsewhere: &mut Vec<ObjId>, unrelated: &dyn Fn(ObjId) -> bool| {
        if elsewhere.iter().any(|id| unrelated(*id))
            && own_build_holds(index, objects, dependent_id, group, kind, name, &candidates)
        {
            elsewhere.retain(|id| !unrelated(*id));
        }
    };
    let applied_elsewhere = |id: ObjId| {
        let object = &objects[id.index()];
        !index.same_build(dependent_id, id) && object.mode == Mode::Apply && !object.from_existing
    };
    own_first(&mut uid_elsewhere, &applied_elsewhere);
    let check = |id: &ObjId| uid_check(&objects[id.index()], uid);
    if !uid_elsewhere.is_empty() && !candidates.iter().any(|id| check(id) == UidCheck::Match) {
        out.resolution = Resolution::NotFound {
            elsewhere: uid_elsewhere,
            shadow: candidates.first().copied(),
        };
        return out;
    }
    if candidates.is_empty() {
        // Only a kind known to be namespaced can be "in another namespace".
        let mut elsewhere = if out.owner_scope != Some(Scope::Namespaced) {
            Vec::new()
        } else {
            index
                .lookup_any_namespace(objects, dependent_id, group, kind, name)
                .into_iter()
                .filter(|id| index.facts(*id).namespace.as_deref() != dependent_namespace)
                .collect()
        };
        own_first(&mut elsewhere, &|id| !index.same_build(dependent_id, id));
        out.resolution = Resolution::NotFound {
            elsewhere,
            shadow: None,
        };
        return out;
    }
    let owner = candidates
        .iter()
        .find(|id| check(id) == UidCheck::Match)
        .or_else(|| candidates.first())
        .copied()
        .unwrap_or(dependent_id);
    out.resolution = Resolution::Found {
        owner,
        uid: check(&owner),
    };
    out
}

/// Whether the build `dependent` is an object of holds the owner it names: an object of that
/// group, kind and name in any namespace (`candidates` are those in the dependent's), or one
/// its build renamed, of that group and kind in the dependent's namespace whose name holds the
/// referenced one (`namePrefix: prod-` makes `web` `prod-web`; kustomize renames no owner
/// reference). An object of a file (or the context) belongs to no build.
fn own_build_holds(
    index: &Index,
    objects: &[Object],
    dependent: ObjId,
    group: &str,
    kind: &str,
    name: &str,
    candidates: &[ObjId],
) -> bool {
    if index.facts(dependent).world == 0 {
        return false;
    }
    let own = |id: &ObjId| index.same_build(dependent, *id);
    if candidates.iter().any(own)
        || index
            .lookup_any_namespace(objects, dependent, group, kind, name)
            .iter()
            .any(own)
    {
        return true;
    }
    let namespace = index.facts(dependent).namespace.as_deref();
    index.in_build_of(dependent).any(|id| {
        let facts = index.facts(id);
        let object = &objects[id.index()];
        facts.group.as_deref() == Some(group)
            && facts.namespace.as_deref() == namespace
            && object.kind_str() == kind
            && object
                .name
                .as_ref()
                .is_some_and(|n| n.value != name && n.value.contains(name))
    })
}

fn valid_flag(field: &Option<crate::model::Field>) -> bool {
    use crate::model::FieldValue;
    field
        .as_ref()
        .is_none_or(|f| matches!(f.value, FieldValue::Bool(_) | FieldValue::Null))
}

fn uid_check(owner: &Object, uid: &str) -> UidCheck {
    if owner.mode == Mode::Apply && !owner.from_existing {
        return UidCheck::Fresh;
    }
    match &owner.uid {
        None => UidCheck::OwnerHasNoUid,
        Some(u) if u.value == uid => UidCheck::Match,
        Some(_) => UidCheck::Mismatch,
    }
}

/// Why a reference does not reach a live owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unresolved {
    NotFound,
    OtherNamespace,
    UidMismatch,
    /// The owner is created by the same input, with a uid that cannot match.
    FreshUid,
    /// The apiVersion/kind is not served: the garbage collector can never resolve it.
    UnservedApi,
    /// A cluster-scoped dependent naming a namespaced owner: refused, never collected.
    ClusterScopedDependent,
    /// Never stored (Binding, …) or banned (`v1 Event`).
    NeverAnOwner,
    /// The reference is malformed; the API server rejects the dependent.
    Invalid,
}

impl Unresolved {
    /// The reason in a few words, as `tree` marks an edge with it ("uid mismatch").
    pub fn phrase(self) -> &'static str {
        match self {
            Unresolved::NotFound => "not found",
            Unresolved::OtherNamespace => "only in another namespace",
            Unresolved::UidMismatch => "uid mismatch",
            Unresolved::FreshUid => "created with a fresh uid",
            Unresolved::UnservedApi => "unmappable apiVersion/kind",
            Unresolved::ClusterScopedDependent => "namespaced owner of a cluster-scoped object",
            Unresolved::NeverAnOwner => "never an owner",
            Unresolved::Invalid => "invalid reference",
        }
    }

    /// What the garbage collector does with the dependent, in a few words, as `tree` marks an
    /// edge ("counts as gone").
    pub fn consequence(self) -> &'static str {
        if self.keeps_dependents() {
            "never collected"
        } else {
            "counts as gone"
        }
    }

    /// Whether the garbage collector cannot process the dependent at all: it fails on the
    /// reference (`unable to get REST mapping`, or a namespaced owner of a cluster-scoped
    /// object) before it looks at any other, so the dependent is never collected, whatever
    /// becomes of its other owners.
    pub fn keeps_dependents(self) -> bool {
        matches!(
            self,
            Unresolved::UnservedApi | Unresolved::ClusterScopedDependent
        )
    }

    /// Whether the garbage collector treats the owner as gone (and may delete the dependent);
    /// the other cases keep the dependent for ever, or keep it from being created.
    fn is_dangling(self) -> bool {
        matches!(
            self,
            Unresolved::NotFound
                | Unresolved::OtherNamespace
                | Unresolved::UidMismatch
                | Unresolved::FreshUid
                | Unresolved::NeverAnOwner
        )
    }
}
