//! The ownership graph: every object, with an edge to each owner its references resolve to,
//! resolved exactly as the rules resolve them (kind, scope, name and uid). A reference that does
//! not resolve points at a placeholder that says why. `tree` draws this graph and
//! `delete-preview` simulates the garbage collector on it.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::catalog::Scope;
use crate::index::ObjId;
use crate::resolve::{Resolution, UidCheck};

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
    pub fn describe(self) -> &'static str {
        match self {
            Unresolved::NotFound => "not found",
            Unresolved::OtherNamespace => "only in another namespace",
            Unresolved::UidMismatch => "uid mismatch",
            Unresolved::FreshUid => "created with a fresh uid",
            Unresolved::UnservedApi => "unserved API",
            Unresolved::ClusterScopedDependent => "namespaced owner of a cluster-scoped object",
            Unresolved::NeverAnOwner => "never an owner",
            Unresolved::Invalid => "invalid reference",
        }
    }

    /// Whether the garbage collector treats the owner as gone (and may delete the dependent);
    /// the other cases keep the dependent for ever, or keep it from being created.
    pub fn is_dangling(self) -> bool {
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

/// An owner that a reference names but that is not a live object of the input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Placeholder {
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
    pub reason: Unresolved,
    /// The object of the input the reference names by name, when it is there but does not
    /// count as the owner (its uid is another, or will be at creation): drawings show the
    /// reference at that object, marked with the reason.
    pub object: Option<ObjId>,
}

/// A node of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Object(ObjId),
    Placeholder(usize),
}

/// An edge from a dependent to an owner, with the reference's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub dependent: ObjId,
    pub owner: Node,
    /// The index of the reference in the dependent's list.
    pub reference: usize,
    pub controller: bool,
    pub block_owner_deletion: bool,
    /// The garbage collector treats this owner as gone. An owner missing from a snapshot
    /// counts only with `--complete`: it may exist in the part of the cluster not captured.
    pub dangling: bool,
}

pub struct Graph {
    pub placeholders: Vec<Placeholder>,
    pub edges: Vec<Edge>,
    /// Edge indices by dependent.
    owners_of: Vec<Vec<usize>>,
    /// Edge indices by owner object.
    dependents_of: Vec<Vec<usize>>,
    /// Edge indices by placeholder.
    placeholder_dependents: Vec<Vec<usize>>,
}

impl Graph {
    pub fn build(analysis: &Analysis, complete: bool) -> Graph {
        let objects = &analysis.objects;
        let mut graph = Graph {
            placeholders: Vec::new(),
            edges: Vec::new(),
            owners_of: vec![Vec::new(); objects.len()],
            dependents_of: vec![Vec::new(); objects.len()],
            placeholder_dependents: Vec::new(),
        };
        let mut placeholder_ids: HashMap<Placeholder, usize> = HashMap::new();
        for (i, object) in objects.iter().enumerate() {
            let dependent = ObjId(i as u32);
            let namespace = analysis.index.facts(dependent).namespace.clone();
            for (j, reference) in object.owner_refs().iter().enumerate() {
                let resolution = &analysis.resolutions[i][j];
                let Some(reason) = unresolved(&resolution.resolution) else {
                    if let Some(owner) = resolution.owner() {
                        graph.add(Edge {
                            dependent,
                            owner: Node::Object(owner),
                            reference: j,
                            controller: reference.is_controller(),
                            block_owner_deletion: is_true(reference),
                            dangling: false,
                        });
                    }
                    continue;
                };
                let placeholder = Placeholder {
                    kind: reference.kind_str().unwrap_or("?").to_string(),
                    name: reference.name_str().unwrap_or("?").to_string(),
                    namespace: match resolution.owner_scope {
                        Some(Scope::Cluster) => None,
                        _ => namespace.clone(),
                    },
                    reason,
                    object: resolution.owner(),
                };
                let next = placeholder_ids.len();
                let id = *placeholder_ids.entry(placeholder.clone()).or_insert(next);
                if id == next {
                    graph.placeholders.push(placeholder);
                    graph.placeholder_dependents.push(Vec::new());
                }
                let complete_here = complete && {
                    // A `kubectl cluster-info dump` is complete only for the kinds it holds.
                    !analysis.outcome.stats.partial_dump
                        || crate::rules::CLUSTER_INFO_DUMP
                            .iter()
                            .any(|&(g, k)| g == resolution.group && Some(k) == reference.kind_str())
                };
                graph.add(Edge {
                    dependent,
                    owner: Node::Placeholder(id),
                    reference: j,
                    controller: reference.is_controller(),
                    block_owner_deletion: is_true(reference),
                    dangling: is_dangling(reason, object.mode, complete_here),
                });
            }
        }
        graph
    }

    fn add(&mut self, edge: Edge) {
        let index = self.edges.len();
        self.owners_of[edge.dependent.index()].push(index);
        match edge.owner {
            Node::Object(owner) => self.dependents_of[owner.index()].push(index),
            Node::Placeholder(p) => self.placeholder_dependents[p].push(index),
        }
        self.edges.push(edge);
    }

    /// The edges from `dependent` to its owners, in reference order.
    pub fn owners(&self, dependent: ObjId) -> impl Iterator<Item = &Edge> {
        self.owners_of[dependent.index()]
            .iter()
            .map(|&e| &self.edges[e])
    }

    /// The edges to `owner` from its dependents, in input order.
    pub fn dependents(&self, owner: Node) -> impl Iterator<Item = &Edge> {
        let list = match owner {
            Node::Object(o) => &self.dependents_of[o.index()],
            Node::Placeholder(p) => &self.placeholder_dependents[p],
        };
        list.iter().map(|&e| &self.edges[e])
    }

    pub fn object_count(&self) -> usize {
        self.owners_of.len()
    }
}

/// Why a reference reaches no live owner, or `None` when it does: the owner exists with the
/// referenced uid (or one that cannot be compared).
pub fn unresolved(resolution: &Resolution) -> Option<Unresolved> {
    Some(match resolution {
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

/// Whether the garbage collector treats an owner that is not live in the input as gone. An owner
/// missing from a snapshot counts as gone only when the input is complete for its kind
/// (`complete_here`): it may exist in the part of the cluster that was not captured.
pub fn is_dangling(reason: Unresolved, mode: crate::model::Mode, complete_here: bool) -> bool {
    let uncertain =
        reason == Unresolved::NotFound && mode == crate::model::Mode::Snapshot && !complete_here;
    reason.is_dangling() && !uncertain
}

fn is_true(reference: &crate::model::OwnerRef) -> bool {
    reference
        .block_owner_deletion
        .as_ref()
        .is_some_and(|f| f.value == crate::model::FieldValue::Bool(true))
}
