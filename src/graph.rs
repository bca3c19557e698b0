//! The ownership graph: every object, with an edge to each owner its references resolve to,
//! resolved exactly as the rules resolve them (kind, scope, name and uid). A reference that does
//! not resolve points at a placeholder that says why. `tree` draws this graph and
//! `delete-preview` simulates the garbage collector on it.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::catalog::Scope;
use crate::index::ObjId;
use crate::resolve::Unresolved;

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
    /// Edge indices of unmappable references, by the object that holds their uid.
    unmapped_dependents_of: Vec<Vec<usize>>,
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
            unmapped_dependents_of: vec![Vec::new(); objects.len()],
        };
        let mut placeholder_ids: HashMap<Placeholder, usize> = HashMap::new();
        // Whether an owner missing from the input is gone, as the rules tell it.
        let completeness = crate::rules::CheckOptions {
            complete,
            partial_dump: analysis
                .outcome
                .stats
                .partial_dump
                .then_some(crate::rules::CLUSTER_INFO_DUMP),
            ..Default::default()
        };
        for (i, object) in objects.iter().enumerate() {
            let dependent = ObjId(i as u32);
            let namespace = analysis.index.facts(dependent).namespace.clone();
            for (j, reference) in object.owner_refs().iter().enumerate() {
                let resolution = &analysis.resolutions[i][j];
                let Some(reason) = resolution.unresolved() else {
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
                    object: resolution
                        .owner()
                        .or_else(|| unmapped_owner(analysis, dependent, reference, reason)),
                };
                let next = placeholder_ids.len();
                let id = *placeholder_ids.entry(placeholder.clone()).or_insert(next);
                if id == next {
                    graph.placeholders.push(placeholder);
                    graph.placeholder_dependents.push(Vec::new());
                }
                let complete_here = completeness.complete_for(
                    &resolution.group,
                    resolution.kind(reference.kind_str().unwrap_or("")),
                );
                graph.add(Edge {
                    dependent,
                    owner: Node::Placeholder(id),
                    reference: j,
                    controller: reference.is_controller(),
                    block_owner_deletion: is_true(reference),
                    dangling: resolution.is_dangling(object.mode, complete_here),
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
            Node::Placeholder(p) => {
                self.placeholder_dependents[p].push(index);
                let placeholder = &self.placeholders[p];
                if let Some(owner) = placeholder.object
                    && placeholder.reason == Unresolved::UnservedApi
                {
                    self.unmapped_dependents_of[owner.index()].push(index);
                }
            }
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

    /// The edges to `owner` as the garbage collector's graph links them, by uid: its
    /// dependents', and those of references that name it by uid through an apiVersion or kind
    /// the collector cannot map.
    pub fn collector_dependents(&self, owner: ObjId) -> impl Iterator<Item = &Edge> {
        let unmapped = self
            .unmapped_dependents_of
            .get(owner.index())
            .map_or(&[][..], Vec::as_slice);
        self.dependents(Node::Object(owner))
            .chain(unmapped.iter().map(|&e| &self.edges[e]))
    }

    /// The `at`th of [`Graph::collector_dependents`], without walking those before it.
    pub fn collector_dependent_at(&self, owner: ObjId, at: usize) -> Option<&Edge> {
        let direct = self.dependents_of.get(owner.index())?;
        let edge = match direct.get(at) {
            Some(&edge) => edge,
            None => *self
                .unmapped_dependents_of
                .get(owner.index())?
                .get(at - direct.len())?,
        };
        self.edges.get(edge)
    }

    /// The objects `dependent`'s references link it to in the garbage collector's graph.
    pub fn collector_owners(&self, dependent: ObjId) -> impl Iterator<Item = ObjId> + '_ {
        self.owners(dependent).filter_map(|e| match e.owner {
            Node::Object(owner) => Some(owner),
            Node::Placeholder(p) => {
                let placeholder = &self.placeholders[p];
                placeholder
                    .object
                    .filter(|_| placeholder.reason == Unresolved::UnservedApi)
            }
        })
    }

    pub fn object_count(&self) -> usize {
        self.owners_of.len()
    }
}

/// The object an unmappable reference names by uid, in the dependent's namespace or cluster
/// scoped. The garbage collector's graph links a dependent to its owner by uid alone
/// (`uidToNode` in `graph_builder.go`), whatever the apiVersion says: a foreground delete of that
/// object waits for the dependent, which the collector then cannot map, and never ends.
fn unmapped_owner(
    analysis: &Analysis,
    dependent: ObjId,
    reference: &crate::model::OwnerRef,
    reason: Unresolved,
) -> Option<ObjId> {
    if reason != Unresolved::UnservedApi {
        return None;
    }
    let uid = reference.uid_str()?;
    let namespace = &analysis.index.facts(dependent).namespace;
    analysis
        .index
        .by_uid(&analysis.objects, dependent, uid)
        .find(|&id| {
            let facts = analysis.index.facts(id);
            id != dependent && (facts.namespace.is_none() || facts.namespace == *namespace)
        })
}

fn is_true(reference: &crate::model::OwnerRef) -> bool {
    reference
        .block_owner_deletion
        .as_ref()
        .is_some_and(|f| f.value == crate::model::FieldValue::Bool(true))
}
