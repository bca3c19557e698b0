//! `ownerlint delete-preview`: the garbage collector simulated on the ownership graph
//! (`attemptToDeleteItem` and `processDeletingDependentsItem` in
//! `k8s.io/kubernetes/pkg/controller/garbagecollector/garbagecollector.go`, and the policies of
//! `kubectl delete --cascade`), as a Kubernetes 1.36 control plane was seen to do it.
//!
//! Deleting an object deletes every dependent whose owners are then all gone, recursively; a
//! dependent that keeps another owner survives and loses one reference; with `orphan`,
//! dependents survive and lose the reference. An object that holds a finalizer other than
//! `orphan` and `foregroundDeletion` is not removed by a delete: it stays Terminating until that
//! finalizer is removed, and stays an owner meanwhile. In foreground, an owner waits for each
//! dependent that blocks owner deletion, so one held by a finalizer keeps it Terminating too. A
//! dependent with a reference the collector cannot map (an unserved apiVersion or kind, a
//! namespaced owner of a cluster-scoped object) is never collected, and a foreground delete of
//! the owner it blocks by uid never ends. The preview also lists what the collector would
//! delete as soon as the input is applied: objects all of whose owners are dangling.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write;

use serde_json::json;

use crate::analysis::Analysis;
use crate::drawing::{Arrow, Class, Drawing, Line, Shape};
use crate::graph::{Edge, Graph, Node};
use crate::index::ObjId;
use crate::model::{FieldValue, Mode};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cascade {
    /// Delete the object at once; the collector then deletes dependents left without owners
    Background,
    /// Delete dependents first; the object waits for those that block owner deletion
    Foreground,
    /// Delete only the object; dependents lose the reference and stay
    Orphan,
}

/// The finalizers the garbage collector itself handles; any other holds a deleted object until
/// whoever set it removes it.
const COLLECTOR_FINALIZERS: [&str; 2] = ["orphan", "foregroundDeletion"];

/// An object a delete leaves Terminating, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Terminating {
    pub object: ObjId,
    /// The finalizers that keep it (`foregroundDeletion` for an owner blocked by a dependent).
    pub held_by: Vec<String>,
    /// In foreground: the dependents that block its deletion and do not go.
    pub blocked_by: Vec<ObjId>,
}

/// What a delete would do.
pub struct Preview {
    pub target: ObjId,
    pub cascade: Cascade,
    /// Deleted objects, in the order they go (for foreground: dependents before owners).
    pub deleted: Vec<ObjId>,
    /// Deleted but held: they stay Terminating, and stay owners meanwhile.
    pub terminating: Vec<Terminating>,
    /// Dependents of what goes that the collector cannot process (a reference it cannot map,
    /// a namespaced owner of a cluster-scoped object): kept for ever, references and all.
    pub never_collected: Vec<ObjId>,
    /// Survivors that lose references: (dependent, owners whose references are removed).
    pub lose_references: Vec<(ObjId, Vec<ObjId>)>,
    /// Foreground: the dependents the target waits for (`blockOwnerDeletion: true`).
    pub blocking: Vec<ObjId>,
    /// Deleted by the collector as soon as the input is applied: every owner is dangling.
    pub dangling: Vec<ObjId>,
    /// Those of them held by a finalizer: they stay Terminating instead.
    pub dangling_terminating: Vec<Terminating>,
}

/// Where an object stands in the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Alive,
    /// Deleted (it has a deletionTimestamp): `foreground` while its dependents go first,
    /// `orphan` once its dependents lose their references to it.
    Deleting {
        foreground: bool,
    },
    Removed,
}

/// The garbage collector at work on the graph, from the deletes it is given.
struct Simulation<'a> {
    graph: &'a Graph,
    analysis: &'a Analysis,
    state: Vec<State>,
    /// References the collector removed, as (dependent, index in its list).
    removed_references: HashSet<(ObjId, usize)>,
    /// Objects deleted, in the order their deletes were issued.
    issued: Vec<ObjId>,
    /// Survivors' references to owners that went, in the order they were removed.
    lose_references: Vec<(ObjId, Vec<ObjId>)>,
    /// Where each of them is in `lose_references`.
    losing_at: HashMap<ObjId, usize>,
    /// Objects the collector cannot process that depend on what was deleted.
    never_collected: Vec<ObjId>,
    /// For each object, how many of its dependents (in `Graph::collector_dependent_at` order)
    /// are known not to block its deletion any more: what goes never comes back, so the
    /// dependents of an owner of thousands are looked at once each, not once per removal.
    unblocked: Vec<usize>,
    /// Whether each object is in `never_collected`.
    kept: Vec<bool>,
    queue: VecDeque<Work>,
}

/// What the collector has yet to look at.
#[derive(Clone, Copy, Debug)]
enum Work {
    /// A dependent, whose owners changed (`attemptToDeleteItem`).
    Attempt(ObjId),
    /// A deleting object, which may now go (`processDeletingDependentsItem`).
    Settle(ObjId),
}

impl<'a> Simulation<'a> {
    fn new(graph: &'a Graph, analysis: &'a Analysis) -> Simulation<'a> {
        Simulation {
            graph,
            analysis,
            state: vec![State::Alive; graph.object_count()],
            removed_references: HashSet::new(),
            issued: Vec::new(),
            lose_references: Vec::new(),
            losing_at: HashMap::new(),
            never_collected: Vec::new(),
            unblocked: vec![0; graph.object_count()],
            kept: vec![false; graph.object_count()],
            queue: VecDeque::new(),
        }
    }

    /// The finalizers that hold `id` once deleted: all but the collector's own.
    fn holding_finalizers(&self, id: ObjId) -> Vec<String> {
        held_by(&self.analysis.objects[id.index()])
    }

    fn has_finalizer(&self, id: ObjId, name: &str) -> bool {
        self.analysis.objects[id.index()]
            .finalizers
            .names()
            .any(|(_, f, _)| f == name)
    }

    /// The references to `owner` that the collector follows: by uid (`uidToNode`), so also
    /// those it cannot map; minus those it removed.
    fn dependents(&self, owner: ObjId) -> Vec<Edge> {
        self.graph
            .collector_dependents(owner)
            .filter(|e| {
                !self
                    .removed_references
                    .contains(&(e.dependent, e.reference))
            })
            .copied()
            .collect()
    }

    /// Issue a delete of `id`: with `orphan`, its dependents lose their references to it;
    /// then it goes unless something holds it.
    fn delete(&mut self, id: ObjId, foreground: bool, orphan: bool) {
        if self.state[id.index()] != State::Alive {
            return;
        }
        self.state[id.index()] = State::Deleting { foreground };
        self.issued.push(id);
        if orphan {
            for edge in self.dependents(id) {
                self.remove_reference(edge.dependent, edge.reference, id);
            }
        }
        self.settle(id);
        self.attempt_dependents(id);
    }

    fn attempt_dependents(&mut self, id: ObjId) {
        let dependents = self.dependents(id);
        self.queue
            .extend(dependents.iter().map(|e| Work::Attempt(e.dependent)));
    }

    /// Remove a deleting object once nothing holds it: no finalizer but the collector's and,
    /// in foreground, no dependent left that blocks owner deletion.
    fn settle(&mut self, id: ObjId) {
        let State::Deleting { foreground } = self.state[id.index()] else {
            return;
        };
        if !self.holding_finalizers(id).is_empty() || (foreground && self.is_blocked(id)) {
            return;
        }
        self.state[id.index()] = State::Removed;
        self.attempt_dependents(id);
        // An owner in foreground may have been waiting for it.
        let owners: Vec<ObjId> = self.graph.collector_owners(id).collect();
        self.queue.extend(owners.into_iter().map(Work::Settle));
    }

    /// Whether a dependent still blocks `id`'s deletion (`blockOwnerDeletion: true`).
    fn is_blocked(&mut self, id: ObjId) -> bool {
        let mut at = self.unblocked[id.index()];
        while let Some(edge) = self.graph.collector_dependent_at(id, at) {
            if edge.block_owner_deletion
                && self.state[edge.dependent.index()] != State::Removed
                && !self
                    .removed_references
                    .contains(&(edge.dependent, edge.reference))
            {
                break;
            }
            at += 1;
        }
        self.unblocked[id.index()] = at;
        self.graph.collector_dependent_at(id, at).is_some()
    }

    /// The dependents that still block `id`'s deletion (`blockOwnerDeletion: true`).
    fn blocked_by(&self, id: ObjId) -> Vec<ObjId> {
        let mut blocking: Vec<ObjId> = Vec::new();
        for edge in self.dependents(id) {
            if edge.block_owner_deletion
                && self.state[edge.dependent.index()] != State::Removed
                && !blocking.contains(&edge.dependent)
            {
                blocking.push(edge.dependent);
            }
        }
        blocking
    }

    fn remove_reference(&mut self, dependent: ObjId, reference: usize, owner: ObjId) {
        if !self.removed_references.insert((dependent, reference)) {
            return;
        }
        match self.losing_at.get(&dependent) {
            Some(&at) => {
                let owners = &mut self.lose_references[at].1;
                if !owners.contains(&owner) {
                    owners.push(owner);
                }
            }
            None => {
                self.losing_at.insert(dependent, self.lose_references.len());
                self.lose_references.push((dependent, vec![owner]));
            }
        }
        // An owner in foreground may have been waiting for it.
        self.queue.push_back(Work::Settle(owner));
    }

    /// What the collector does with `id` (`attemptToDeleteItem`): nothing while one of its
    /// references cannot be resolved at all; deletes it when no owner is solid; removes the
    /// references to owners that are gone or deleting in foreground when another is solid.
    fn attempt(&mut self, id: ObjId) {
        if self.state[id.index()] != State::Alive {
            return;
        }
        let references: Vec<Edge> = self
            .graph
            .owners(id)
            .filter(|e| {
                !self
                    .removed_references
                    .contains(&(e.dependent, e.reference))
            })
            .copied()
            .collect();
        if references.is_empty() {
            return;
        }
        if references.iter().any(|e| self.keeps(e)) {
            if references.iter().any(|e| self.owner_changed(e)) && !self.kept[id.index()] {
                self.kept[id.index()] = true;
                self.never_collected.push(id);
            }
            return;
        }
        let (mut solid, mut gone, mut waiting) = (false, Vec::new(), Vec::new());
        for edge in &references {
            match edge.owner {
                Node::Object(owner) => match self.state[owner.index()] {
                    State::Removed => gone.push(*edge),
                    State::Deleting { foreground: true } => waiting.push(*edge),
                    _ => solid = true,
                },
                Node::Placeholder(_) if edge.dangling => gone.push(*edge),
                Node::Placeholder(_) => solid = true,
            }
        }
        if gone.is_empty() && waiting.is_empty() {
            return;
        }
        if solid {
            for edge in gone.iter().chain(&waiting) {
                if let Node::Object(owner) = edge.owner {
                    self.remove_reference(id, edge.reference, owner);
                }
            }
            return;
        }
        let has_dependents = self.graph.collector_dependents(id).next().is_some();
        let foreground =
            (!waiting.is_empty() && has_dependents) || self.has_finalizer(id, "foregroundDeletion");
        let orphan = !foreground && self.has_finalizer(id, "orphan");
        self.delete(id, foreground, orphan);
    }

    /// The reference cannot be resolved at all: the collector fails on it before looking at
    /// the others.
    fn keeps(&self, edge: &Edge) -> bool {
        match edge.owner {
            Node::Placeholder(p) => self.graph.placeholders[p].reason.keeps_dependents(),
            Node::Object(_) => false,
        }
    }

    /// The reference's owner (by uid) is deleted: the dependent would go with it but for a
    /// reference the collector cannot resolve.
    fn owner_changed(&self, edge: &Edge) -> bool {
        let owner = match edge.owner {
            Node::Object(owner) => Some(owner),
            Node::Placeholder(p) => self.graph.placeholders[p].object,
        };
        owner.is_some_and(|o| self.state[o.index()] != State::Alive)
    }

    fn run(&mut self) {
        while let Some(work) = self.queue.pop_front() {
            match work {
                Work::Attempt(id) => self.attempt(id),
                Work::Settle(id) => self.settle(id),
            }
        }
    }

    /// The deleted objects that stay Terminating, in the order they were deleted.
    fn terminating(&self) -> Vec<Terminating> {
        self.issued
            .iter()
            .filter(|id| self.state[id.index()] != State::Removed)
            .map(|&id| {
                let mut held_by = self.holding_finalizers(id);
                let blocked_by = match self.state[id.index()] {
                    State::Deleting { foreground: true } => self.blocked_by(id),
                    _ => Vec::new(),
                };
                if !blocked_by.is_empty() {
                    held_by.insert(0, "foregroundDeletion".to_string());
                }
                Terminating {
                    object: id,
                    held_by,
                    blocked_by,
                }
            })
            .collect()
    }

    fn removed(&self) -> Vec<ObjId> {
        self.issued
            .iter()
            .copied()
            .filter(|id| self.state[id.index()] == State::Removed)
            .collect()
    }
}

/// The finalizers that hold an object once it is deleted: all but the collector's own.
fn held_by(object: &crate::model::Object) -> Vec<String> {
    let mut names: Vec<String> = object
        .finalizers
        .names()
        .map(|(_, name, _)| name)
        .filter(|name| !COLLECTOR_FINALIZERS.contains(name))
        .map(str::to_string)
        .collect();
    names.dedup();
    names
}

/// Objects whose owner references all dangle, and what goes with them.
fn doomed_at_apply(graph: &Graph, analysis: &Analysis) -> (Vec<ObjId>, Vec<Terminating>) {
    let mut simulation = Simulation::new(graph, analysis);
    simulation
        .queue
        .extend((0..graph.object_count() as u32).map(|i| Work::Attempt(ObjId(i))));
    simulation.run();
    (simulation.removed(), simulation.terminating())
}

pub fn preview(analysis: &Analysis, graph: &Graph, target: ObjId, cascade: Cascade) -> Preview {
    let mut simulation = Simulation::new(graph, analysis);
    simulation.delete(
        target,
        cascade == Cascade::Foreground,
        cascade == Cascade::Orphan,
    );
    simulation.run();
    let mut deleted = simulation.removed();
    // A reference removed from what went after all is not a survivor's.
    simulation
        .lose_references
        .retain(|(id, _)| simulation.state[id.index()] == State::Alive);
    let blocking = if cascade == Cascade::Foreground {
        graph
            .collector_dependents(target)
            .filter(|e| {
                e.block_owner_deletion && simulation.state[e.dependent.index()] == State::Removed
            })
            .map(|e| e.dependent)
            .collect()
    } else {
        Vec::new()
    };
    if cascade == Cascade::Foreground {
        // Dependents go first, the target last: reverse breadth-first order.
        deleted.reverse();
    }
    let (dangling, dangling_terminating) = doomed_at_apply(graph, analysis);
    Preview {
        target,
        cascade,
        deleted,
        terminating: simulation.terminating(),
        never_collected: simulation.never_collected.clone(),
        lose_references: simulation.lose_references.clone(),
        blocking,
        dangling,
        dangling_terminating,
    }
}

/// When a snapshot captured the object while it was being deleted: its `deletionTimestamp`.
fn terminating_since(analysis: &Analysis, id: ObjId) -> Option<&str> {
    let object = &analysis.objects[id.index()];
    if object.mode != Mode::Snapshot {
        return None;
    }
    match &object.deletion_timestamp()?.field.value {
        FieldValue::Str(since) => Some(since.as_str()),
        _ => Some("?"),
    }
}

/// Why each terminating object stays, as a sentence's end: "until example.com/hold is removed".
fn until(analysis: &Analysis, terminating: &Terminating) -> String {
    let d = |id: ObjId| crate::report::escape::text(&analysis.display_name(id)).into_owned();
    let finalizers: Vec<&str> = terminating
        .held_by
        .iter()
        .map(String::as_str)
        .filter(|f| *f != "foregroundDeletion" || terminating.blocked_by.is_empty())
        .collect();
    let mut reasons = Vec::new();
    if !finalizers.is_empty() {
        let names: Vec<String> = finalizers
            .iter()
            .map(|f| crate::report::escape::text(f).into_owned())
            .collect();
        reasons.push(format!(
            "until {} {} removed",
            names.join(", "),
            if names.len() == 1 { "is" } else { "are" }
        ));
    }
    if !terminating.blocked_by.is_empty() {
        let blockers: Vec<String> = terminating.blocked_by.iter().map(|&id| d(id)).collect();
        reasons.push(format!(
            "held by foregroundDeletion for as long as {} (blockOwnerDeletion: true) {}",
            blockers.join(", "),
            if blockers.len() == 1 { "stays" } else { "stay" }
        ));
    }
    reasons.join("; ")
}

pub fn text(analysis: &Analysis, preview: &Preview) -> String {
    let d = |id: ObjId| {
        let name = crate::report::escape::text(&analysis.display_name(id)).into_owned();
        match terminating_since(analysis, id) {
            Some(since) => format!(
                "{name} (already Terminating since {})",
                crate::report::escape::text(since)
            ),
            None => name,
        }
    };
    let mut out = String::new();
    // The name `--cascade` takes.
    let cascade = clap::ValueEnum::to_possible_value(&preview.cascade)
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    let _ = writeln!(out, "Deleting {} (cascade: {cascade})", d(preview.target));
    let _ = writeln!(out, "\nDeleted ({}):", preview.deleted.len());
    for (i, &id) in preview.deleted.iter().enumerate() {
        let note = if preview.cascade == Cascade::Foreground {
            format!("{:>4}. ", i + 1)
        } else {
            "  - ".to_string()
        };
        let _ = writeln!(out, "{note}{}", d(id));
    }
    if !preview.terminating.is_empty() {
        let _ = writeln!(
            out,
            "\nStay Terminating, not deleted ({}):",
            preview.terminating.len()
        );
        for terminating in &preview.terminating {
            let _ = writeln!(
                out,
                "  - {}: {}",
                d(terminating.object),
                until(analysis, terminating)
            );
        }
    }
    if !preview.blocking.is_empty() {
        let stays = preview
            .terminating
            .iter()
            .any(|t| t.object == preview.target);
        let header = if stays {
            "waits for these to go first (blockOwnerDeletion: true)"
        } else {
            "stays Terminating until these are gone (blockOwnerDeletion: true)"
        };
        let _ = writeln!(out, "\n{} {header}:", d(preview.target));
        for &id in &preview.blocking {
            let _ = writeln!(out, "  - {}", d(id));
        }
    }
    if !preview.never_collected.is_empty() {
        let _ = writeln!(
            out,
            "\nNever collected, because the garbage collector cannot resolve a reference of theirs (unable to get REST mapping, or a namespaced owner of a cluster-scoped object) and retries it for ever:"
        );
        for &id in &preview.never_collected {
            let _ = writeln!(out, "  - {}", d(id));
        }
    }
    if !preview.lose_references.is_empty() {
        let _ = writeln!(out, "\nSurvive, losing a reference:");
        for (id, owners) in &preview.lose_references {
            let owners: Vec<String> = owners.iter().map(|&o| d(o)).collect();
            let _ = writeln!(
                out,
                "  - {} (no longer owned by {})",
                d(*id),
                owners.join(", ")
            );
        }
    }
    if !preview.dangling.is_empty() {
        let _ = writeln!(
            out,
            "\nDeleted by the garbage collector as soon as this input is applied, because every owner they name is dangling:"
        );
        for &id in &preview.dangling {
            let _ = writeln!(out, "  - {}", d(id));
        }
    }
    if !preview.dangling_terminating.is_empty() {
        let _ = writeln!(
            out,
            "\nDeleted as soon as this input is applied, but held by a finalizer: they stay Terminating"
        );
        for terminating in &preview.dangling_terminating {
            let _ = writeln!(
                out,
                "  - {}: {}",
                d(terminating.object),
                until(analysis, terminating)
            );
        }
    }
    out
}

pub fn json(analysis: &Analysis, preview: &Preview) -> String {
    let object = |id: ObjId| {
        let o = &analysis.objects[id.index()];
        let mut fields = json!({
            "apiVersion": o.api_version.as_ref().map(|a| &a.value),
            "kind": o.kind.as_ref().map(|k| &k.value),
            "namespace": analysis.index.facts(id).namespace,
            "name": o.name.as_ref().map(|n| &n.value),
        });
        if let (Some(since), Some(map)) = (terminating_since(analysis, id), fields.as_object_mut())
        {
            map.insert("terminatingSince".to_string(), json!(since));
        }
        fields
    };
    let terminating = |t: &Terminating| {
        let mut fields = object(t.object);
        if let Some(map) = fields.as_object_mut() {
            map.insert("outcome".to_string(), json!("terminating"));
            map.insert("heldBy".to_string(), json!(t.held_by));
            map.insert(
                "blockedBy".to_string(),
                json!(
                    t.blocked_by
                        .iter()
                        .map(|&id| object(id))
                        .collect::<Vec<_>>()
                ),
            );
        }
        fields
    };
    let document = json!({
        "version": 1,
        "target": object(preview.target),
        "cascade": preview.cascade,
        "deleted": preview.deleted.iter().map(|&id| object(id)).collect::<Vec<_>>(),
        "terminating": preview.terminating.iter().map(terminating).collect::<Vec<_>>(),
        "neverCollected": preview.never_collected.iter().map(|&id| object(id)).collect::<Vec<_>>(),
        "blocking": preview.blocking.iter().map(|&id| object(id)).collect::<Vec<_>>(),
        "loseReferences": preview.lose_references.iter().map(|(id, owners)| json!({
            "object": object(*id),
            "owners": owners.iter().map(|&o| object(o)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "deletedOnApply": preview.dangling.iter().map(|&id| object(id)).collect::<Vec<_>>(),
        "terminatingOnApply": preview.dangling_terminating.iter().map(terminating).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"
}

/// How each object a delete reaches is drawn, by its fate; the legend lists them in this order.
static TARGET_DELETED: Class = Class {
    name: "deleted",
    dot: "style=filled, fillcolor=\"#f6c9c4\", color=\"#b8322a\"",
    mermaid: "fill:#f6c9c4,stroke:#b8322a,color:#000",
    legend: Some("deleted"),
};
static TERMINATING: Class = Class {
    name: "terminating",
    dot: "style=filled, fillcolor=\"#ffe2a0\", color=\"#a86a00\"",
    mermaid: "fill:#ffe2a0,stroke:#a86a00,color:#000",
    legend: Some("stays Terminating (a finalizer, or a blocking dependent)"),
};
static BLOCKING: Class = Class {
    name: "blocking",
    dot: "style=\"filled,bold\", fillcolor=\"#f6c9c4\", color=\"#7a1f1a\"",
    mermaid: "fill:#f6c9c4,stroke:#7a1f1a,stroke-width:3px,color:#000",
    legend: Some("deleted first: blocks its owner's foreground delete"),
};
static NEVER_COLLECTED: Class = Class {
    name: "never",
    dot: "style=filled, fillcolor=\"#dddddd\", color=\"#555555\"",
    mermaid: "fill:#dddddd,stroke:#555555,color:#000",
    legend: Some("never collected (a reference the collector cannot map)"),
};
static ORPHANED: Class = Class {
    name: "orphaned",
    dot: "style=filled, fillcolor=\"#cfeccf\", color=\"#2d7a2d\"",
    mermaid: "fill:#cfeccf,stroke:#2d7a2d,color:#000",
    legend: Some("kept: orphaned, loses its reference"),
};
static ON_APPLY: Class = Class {
    name: "onapply",
    dot: "style=\"filled,dashed\", fillcolor=\"#f6c9c4\", color=\"#b8322a\"",
    mermaid: "fill:#f6c9c4,stroke:#b8322a,stroke-dasharray:4,color:#000",
    legend: Some("deleted on apply: every owner it names dangles"),
};

/// The objects a delete reaches, each marked with its fate, and the references between them:
/// the shapes `--format dot` and `--format mermaid` draw.
fn drawing(analysis: &Analysis, graph: &Graph, preview: &Preview) -> Drawing {
    let name = |id: ObjId| crate::report::escape::text(&analysis.display_name(id)).into_owned();
    let node_id = |id: ObjId| format!("n{}", id.0);
    // Each object once, with the first fate found for it, in the order the text lists them.
    let mut fates: Vec<(ObjId, &'static Class, String)> = Vec::new();
    let add = |fates: &mut Vec<(ObjId, &'static Class, String)>,
               id: ObjId,
               class: &'static Class,
               fate: String| {
        if !fates.iter().any(|(seen, ..)| *seen == id) {
            fates.push((id, class, fate));
        }
    };
    for terminating in preview
        .terminating
        .iter()
        .chain(&preview.dangling_terminating)
    {
        // Held only by a blocking dependent: which one, in short.
        let own = terminating
            .held_by
            .iter()
            .any(|f| f != "foregroundDeletion");
        let why = if terminating.blocked_by.is_empty() || own {
            until(analysis, terminating)
        } else {
            let blockers: Vec<String> = terminating.blocked_by.iter().map(|&b| name(b)).collect();
            let verb = if blockers.len() == 1 { "stays" } else { "stay" };
            format!("while {} {verb}", blockers.join(", "))
        };
        add(
            &mut fates,
            terminating.object,
            &TERMINATING,
            format!("stays Terminating {why}"),
        );
    }
    let foreground = preview.cascade == Cascade::Foreground;
    for (step, &id) in preview.deleted.iter().enumerate() {
        let blocks = preview.blocking.contains(&id);
        let (class, fate) = match (foreground, blocks) {
            (true, true) => (
                &BLOCKING,
                format!("deleted {}: blocks owner deletion", step + 1),
            ),
            (true, false) => (&TARGET_DELETED, format!("deleted {}", step + 1)),
            (false, _) => (&TARGET_DELETED, "deleted".to_string()),
        };
        add(&mut fates, id, class, fate);
    }
    for &id in &preview.never_collected {
        add(
            &mut fates,
            id,
            &NEVER_COLLECTED,
            "never collected".to_string(),
        );
    }
    for (id, owners) in &preview.lose_references {
        let owners: Vec<String> = owners.iter().map(|&o| name(o)).collect();
        add(
            &mut fates,
            *id,
            &ORPHANED,
            format!("kept, no longer owned by {}", owners.join(", ")),
        );
    }
    for &id in &preview.dangling {
        add(&mut fates, id, &ON_APPLY, "deleted on apply".to_string());
    }
    let drawn: HashSet<ObjId> = fates.iter().map(|(id, ..)| *id).collect();
    let shapes = fates
        .iter()
        .map(|(id, class, fate)| Shape {
            id: node_id(*id),
            lines: if *id == preview.target {
                vec![name(*id), "(the object deleted)".to_string(), fate.clone()]
            } else {
                vec![name(*id), fate.clone()]
            },
            class: Some(*class),
            emphasis: *id == preview.target,
        })
        .collect();
    // The references between drawn objects, once per owner and dependent.
    let mut arrows: Vec<Arrow> = Vec::new();
    let mut seen = HashSet::new();
    for edge in &graph.edges {
        let Node::Object(owner) = edge.owner else {
            continue;
        };
        if !drawn.contains(&owner)
            || !drawn.contains(&edge.dependent)
            || !seen.insert((owner, edge.dependent))
        {
            continue;
        }
        let removed = preview
            .lose_references
            .iter()
            .any(|(id, owners)| *id == edge.dependent && owners.contains(&owner));
        let blocks =
            (foreground && owner == preview.target && preview.blocking.contains(&edge.dependent))
                || preview
                    .terminating
                    .iter()
                    .any(|t| t.object == owner && t.blocked_by.contains(&edge.dependent));
        let (label, line) = if removed {
            (Some("reference removed".to_string()), Line::Removed)
        } else if blocks {
            (Some("blocks owner deletion".to_string()), Line::Thick)
        } else {
            (
                edge.controller.then(|| "controller".to_string()),
                Line::Solid,
            )
        };
        arrows.push(Arrow {
            from: node_id(owner),
            to: node_id(edge.dependent),
            label,
            line,
        });
    }
    Drawing {
        name: "delete_preview",
        shapes,
        arrows,
        classes: vec![
            &TARGET_DELETED,
            &BLOCKING,
            &TERMINATING,
            &NEVER_COLLECTED,
            &ORPHANED,
            &ON_APPLY,
        ],
    }
}

/// The delete as a Graphviz graph: each object with its fate, and a legend.
pub fn dot(analysis: &Analysis, graph: &Graph, preview: &Preview) -> String {
    crate::drawing::dot(&drawing(analysis, graph, preview))
}

/// The delete as a Mermaid flowchart: each object with its fate, and a legend.
pub fn mermaid(analysis: &Analysis, graph: &Graph, preview: &Preview) -> String {
    crate::drawing::mermaid(&drawing(analysis, graph, preview))
}
