//! What a rule reads: the [`Context`] of a run (the objects, their resolved references, what
//! could not be read, the options), each reference as a [`Site`], and the wording rules share.

use crate::catalog::{Catalog, Scope};
use crate::edit::fixes::ObjectFixes;
use crate::finding::{Finding, Label, RuleMeta};
use crate::index::{Index, ObjId};
use crate::model::{Object, OwnerRef};
use crate::resolve::RefResolution;
use crate::source::Span;

/// Options that change what the rules conclude.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The input is the whole cluster (or release): an owner that is not found does not exist.
    pub complete: bool,
    /// With `complete`, the input is a `kubectl cluster-info dump`, which holds only these
    /// kinds (group, kind): only an owner of one of them is known not to exist.
    pub partial_dump: Option<&'static [(&'static str, &'static str)]>,
    /// Ownership policies (`required-owner`, `tracking-label-required`).
    pub policies: crate::policy::Policies,
    /// With `complete`, the kinds that could not be read (a live cluster's resources whose
    /// list failed): an owner of one of them that is not found may exist.
    pub not_read: Vec<NotRead>,
}

/// Kinds whose objects could not be read (a live cluster's resource whose list failed), and
/// why.
#[derive(Clone, Debug, Default)]
pub struct NotRead {
    pub group: String,
    /// `None`: every kind of the group (its discovery failed).
    pub kind: Option<String>,
    /// `replicasets.apps/v1`, or `metrics.k8s.io/v1beta1` for a group.
    pub what: String,
    /// In words that follow "… was not read: ": `403 Forbidden: …`.
    pub why: String,
}

impl NotRead {
    /// Whether objects of this group and kind are among those not read.
    pub fn covers(&self, group: &str, kind: &str) -> bool {
        self.group == group && self.kind.as_deref().is_none_or(|k| k == kind)
    }
}

/// Everything a rule can read.
pub struct Context<'a> {
    pub sources: &'a [crate::source::Source],
    pub objects: &'a [Object],
    pub index: &'a Index,
    pub catalog: &'a Catalog,
    /// `resolutions[object][reference]`
    pub resolutions: &'a [Vec<RefResolution>],
    /// Who owns whom, from the resolutions.
    pub ownership: &'a crate::resolve::Ownership,
    /// What the loader could not read as objects.
    pub unread: &'a [crate::load::Unread],
    pub options: &'a CheckOptions,
    /// What the git change deletes (`--git-deletions`): gone, so not in the index, and named
    /// when a reference finds no owner.
    pub deleted: &'a Deleted,
}

/// One owner reference of a linted object, with what it resolves to.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    /// The object that holds the reference: the dependent.
    pub id: ObjId,
    pub object: &'a Object,
    /// Where the reference is in the object's `ownerReferences`.
    pub index: usize,
    pub reference: &'a OwnerRef,
    pub resolution: &'a RefResolution,
}

/// The objects of the files the git change deletes, and what an index of their own worked out
/// of each (group and namespace as for every other object).
#[derive(Default)]
pub struct Deleted {
    pub objects: Vec<Object>,
    pub index: Index,
}

impl Deleted {
    /// The deleted object of this identity, if the change deletes one.
    pub fn find(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Object> {
        self.objects.iter().enumerate().find_map(|(i, object)| {
            let facts = self.index.facts(crate::index::ObjId(i as u32));
            let found = facts.group.as_deref() == Some(group)
                && object.kind_str() == kind
                && object.name.as_ref().is_some_and(|n| n.value == name)
                && facts.namespace.as_deref() == namespace;
            found.then_some(object)
        })
    }
}

impl CheckOptions {
    /// Whether an owner of this group and kind that is not in the input does not exist.
    pub fn complete_for(&self, group: &str, kind: &str) -> bool {
        self.complete
            && self
                .partial_dump
                .is_none_or(|kinds| kinds.iter().any(|&(g, k)| g == group && k == kind))
            && self.not_read(group, kind).is_none()
    }

    /// Why the objects of this group and kind could not be read, if they could not.
    pub fn not_read(&self, group: &str, kind: &str) -> Option<&NotRead> {
        self.not_read.iter().find(|n| n.covers(group, kind))
    }
}

/// What `kubectl cluster-info dump` writes, by group and kind: Nodes, and of each namespace
/// its Events, ReplicationControllers, Services, DaemonSets, Deployments, ReplicaSets and Pods
/// (`dumpClusterInfo` in `k8s.io/kubectl/pkg/cmd/clusterinfo/clusterinfo_dump.go`), and nothing
/// else: no StatefulSets, Jobs, CronJobs, ConfigMaps, Secrets or ControllerRevisions.
pub const CLUSTER_INFO_DUMP: &[(&str, &str)] = &[
    ("", "Node"),
    ("", "Event"),
    ("", "ReplicationController"),
    ("", "Service"),
    ("apps", "DaemonSet"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("", "Pod"),
];

/// Whether `objects` can only be a `kubectl cluster-info dump`: captured from a cluster, and
/// holding no kind that dump leaves out. A cluster always has more (a ServiceAccount and the
/// `kube-root-ca.crt` ConfigMap in every namespace), so such an input is never complete.
pub fn is_cluster_info_dump(objects: &[Object], index: &Index) -> bool {
    !objects.is_empty()
        && objects.iter().enumerate().all(|(i, object)| {
            let group = index.facts(ObjId(i as u32)).group.as_deref();
            object.mode == crate::model::Mode::Snapshot
                && CLUSTER_INFO_DUMP
                    .iter()
                    .any(|&(g, k)| Some(g) == group && k == object.kind_str())
        })
}

impl<'a> Context<'a> {
    pub fn object(&self, id: ObjId) -> &'a Object {
        &self.objects[id.index()]
    }

    /// The objects to lint (context objects only help resolve references).
    pub fn linted(&self) -> impl Iterator<Item = (ObjId, &'a Object)> + 'a {
        self.objects
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.from_existing)
            .map(|(i, o)| (ObjId(i as u32), o))
    }

    /// Each owner reference of each linted object, with its resolution.
    pub fn references(&self) -> impl Iterator<Item = Site<'a>> + 'a {
        let resolutions = self.resolutions;
        self.linted().flat_map(move |(id, object)| {
            object
                .owner_refs()
                .iter()
                .enumerate()
                .map(move |(index, reference)| Site {
                    id,
                    object,
                    index,
                    reference,
                    resolution: &resolutions[id.index()][index],
                })
        })
    }

    /// "Deployment shop/api", "ClusterRole reader".
    pub fn display_name(&self, id: ObjId) -> String {
        self.object(id)
            .display_name(self.index.facts(id).namespace.as_deref())
    }

    /// "deploy/app.yaml:12", where an object's name (or the object) is.
    pub fn location(&self, id: ObjId) -> String {
        let object = self.object(id);
        let source = &self.sources[object.source.0 as usize];
        let span = object.name_span();
        format!("{}:{}", source.name, source.line_col(span.start).line)
    }

    /// The owner a reference names, in the namespace the garbage collector looks in.
    pub fn owner_display_name(
        &self,
        dependent: ObjId,
        reference: &OwnerRef,
        resolution: &RefResolution,
    ) -> String {
        let kind = reference.kind_str().unwrap_or("?");
        let name = reference.name_str().unwrap_or("?");
        let namespace = match resolution.owner_scope {
            Some(Scope::Cluster) => None,
            _ => self.index.facts(dependent).namespace.clone(),
        };
        match namespace {
            Some(ns) => format!("{kind} {ns}/{name}"),
            None => format!("{kind} {name}"),
        }
    }

    /// "Pod shop/web-1 → ReplicaSet shop/web", the two sides of a reference.
    pub fn arrow(
        &self,
        dependent: ObjId,
        reference: &OwnerRef,
        resolution: &RefResolution,
    ) -> String {
        format!(
            "{} → {}",
            self.display_name(dependent),
            self.owner_display_name(dependent, reference, resolution)
        )
    }

    /// A finding about object `id`, at `span` in its source.
    pub fn finding(
        &self,
        meta: &'static RuleMeta,
        id: ObjId,
        span: Span,
        label: impl Into<String>,
        message: impl Into<String>,
    ) -> Finding {
        let object = self.object(id);
        let mut finding = Finding::new(meta, Label::new(object.source, span, label), message);
        finding.object = Some(object.identity());
        finding.origin = object.origin().map(str::to_string);
        finding.field = self.fixes(id).field_path(span, super::kept());
        finding
    }

    /// The fixes that edit `id` in its source.
    pub fn fixes(&self, id: ObjId) -> ObjectFixes<'a> {
        let object = self.object(id);
        ObjectFixes {
            source: &self.sources[object.source.0 as usize],
            object,
        }
    }

    /// A label on an object's `metadata.uid` (or where it is named: `Object::name_span`).
    pub fn uid_label(&self, id: ObjId, message: impl Into<String>) -> Label {
        let object = self.object(id);
        let span = object.uid.as_ref().map_or(object.name_span(), |s| s.span);
        Label::new(object.source, span, message)
    }

    /// A label on an object's `metadata.name` (or its kind: `Object::name_span`).
    pub fn name_label(&self, id: ObjId, message: impl Into<String>) -> Label {
        let object = self.object(id);
        let span = object.name_span();
        Label::new(object.source, span, message)
    }

    /// The objects whose owner references resolve to `owner`, in input order.
    pub fn dependents(&self, owner: ObjId) -> &'a [ObjId] {
        self.ownership.dependents(owner)
    }

    /// What the garbage collector does with a dependent whose reference is dangling, as a
    /// sentence, counting the dependent's other references as `delete-preview` does: it keeps
    /// the dependent, this reference and all, while another reference can never be resolved
    /// (the collector retries it), removes just this reference when another owner is alive,
    /// and deletes the dependent when every other owner is gone. An owner that may exist beyond the input (missing from
    /// a snapshot) is said to decide which.
    pub fn dangling_consequence(&self, dependent: ObjId, reference_index: usize) -> String {
        use crate::resolve::Unresolved;
        let object = self.object(dependent);
        let (mut alive, mut unknown, mut unresolvable) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (reference, resolution)) in object
            .owner_refs()
            .iter()
            .zip(&self.resolutions[dependent.index()])
            .enumerate()
        {
            if i == reference_index {
                continue;
            }
            let Some(reason) = resolution.unresolved() else {
                if let Some(owner) = resolution.owner() {
                    alive.push(self.display_name(owner));
                }
                continue;
            };
            let complete_here = self.options.complete_for(
                &resolution.group,
                resolution.kind(reference.kind_str().unwrap_or("")),
            );
            let owner = self.owner_display_name(dependent, reference, resolution);
            if resolution.is_dangling(object.mode, complete_here) {
                continue;
            } else if reason == Unresolved::NotFound {
                unknown.push(owner);
            } else if reason != Unresolved::Invalid {
                unresolvable.push(owner);
            }
        }
        let described = self.display_name(dependent);
        let sentence = self.consequence_given(&described, &alive, &unknown, &unresolvable);
        // An owner kind that is neither built in nor declared by a CRD here, and not in the
        // input: whether the collector can map it at all decides. A kind it cannot map (no CRD
        // installed, a group not served) keeps the dependent for ever (`unable to get REST
        // mapping`), as 1.36 did.
        let own = object
            .owner_refs()
            .get(reference_index)
            .zip(self.resolutions[dependent.index()].get(reference_index));
        match own {
            Some((reference, resolution))
                if unresolvable.is_empty()
                    && resolution.api == crate::catalog::ApiStatus::UnknownKind
                    && resolution.unresolved() == Some(Unresolved::NotFound) =>
            {
                format!(
                    "{sentence}; if the cluster does not serve {} in {}, the collector cannot map this reference and keeps the dependent for ever",
                    reference.kind_str().unwrap_or("?"),
                    reference.api_version_str().unwrap_or("?"),
                )
            }
            // A dependent of a kind whose scope is not known here (no CRD in the input) with a
            // namespaced owner: were it cluster-scoped, the collector would refuse the
            // reference and never collect it (cluster-scoped-dependent). Said where it may well
            // be: it names no namespace, or its kind is named as cluster-wide kinds are
            // (`ClusterRole`, `ClusterIssuer`).
            Some((_, resolution))
                if self.index.facts(dependent).scope.is_none()
                    && resolution.owner_scope == Some(crate::catalog::Scope::Namespaced)
                    && (object.namespace.is_none() || object.kind_str().starts_with("Cluster")) =>
            {
                format!(
                    "{sentence}; if {} is cluster-scoped, the collector refuses this reference and never collects it",
                    object.kind_str()
                )
            }
            _ => sentence,
        }
    }

    /// The collector's verdict on a dependent whose reference dangles, from its other
    /// owners: alive, unknown beyond this snapshot, or unresolvable.
    fn consequence_given(
        &self,
        described: &str,
        alive: &[String],
        unknown: &[String],
        unresolvable: &[String],
    ) -> String {
        // The collector fails on a reference it cannot resolve before it looks at the others
        // (`classifyReferences`), so it neither deletes the dependent nor removes this one.
        if !unresolvable.is_empty() {
            format!(
                "the garbage collector keeps {described}, because it cannot resolve its reference to {} and retries it (this reference stays)",
                unresolvable.join(", ")
            )
        } else if !alive.is_empty() {
            format!(
                "the garbage collector removes this reference from {described} ({} still owns it)",
                alive.join(", ")
            )
        } else if !unknown.is_empty() {
            let (these, exist) = if unknown.len() == 1 {
                ("it", "exists")
            } else {
                ("one of them", "exist")
            };
            format!(
                "the garbage collector deletes {described} unless {}, which {} not in this snapshot, still {exist} in the cluster; if {these} does, the collector removes just this reference",
                unknown.join(" or "),
                if unknown.len() == 1 { "is" } else { "are" },
            )
        } else {
            format!("the garbage collector deletes {described} (no other owner keeps it)")
        }
    }
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub fn did_you_mean<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates
        .iter()
        .map(|c| {
            (
                strsim::jaro_winkler(&word.to_ascii_lowercase(), &c.to_ascii_lowercase()),
                *c,
            )
        })
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}
