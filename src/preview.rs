//! `ownerlint delete-preview`: the garbage collector simulated on the ownership graph
//! (`attemptToDeleteItem` in `k8s.io/kubernetes/pkg/controller/garbagecollector/garbagecollector.go`,
//! and the policies of `kubectl delete --cascade`). Deleting an object deletes every dependent whose owners are then all
//! gone, recursively (background and foreground); a dependent that keeps another owner survives
//! and loses one reference; with `orphan`, dependents survive and lose the reference. The
//! preview also lists what the collector would delete as soon as the input is applied: objects
//! all of whose owners are dangling.

use std::collections::VecDeque;
use std::fmt::Write;

use serde_json::json;

use crate::analysis::Analysis;
use crate::graph::{Graph, Node};
use crate::index::ObjId;

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

/// What a delete would do.
pub struct Preview {
    pub target: ObjId,
    pub cascade: Cascade,
    /// Deleted objects, in the order they go (for foreground: dependents before owners).
    pub deleted: Vec<ObjId>,
    /// Survivors that lose references: (dependent, owners whose references are removed).
    pub lose_references: Vec<(ObjId, Vec<ObjId>)>,
    /// Foreground: the dependents the target waits for (`blockOwnerDeletion: true`).
    pub blocking: Vec<ObjId>,
    /// Deleted by the collector as soon as the input is applied: every owner is dangling.
    pub dangling: Vec<ObjId>,
}

/// Objects whose owner references all dangle, and what goes with them.
fn doomed_at_apply(graph: &Graph) -> Vec<ObjId> {
    let n = graph.object_count();
    let mut gone = vec![false; n];
    let mut order = Vec::new();
    let mut queue: VecDeque<ObjId> = (0..n as u32)
        .map(ObjId)
        .filter(|&id| {
            let mut owners = graph.owners(id).peekable();
            owners.peek().is_some() && owners.all(|e| e.dangling)
        })
        .collect();
    for id in &queue {
        gone[id.index()] = true;
    }
    while let Some(id) = queue.pop_front() {
        order.push(id);
        for edge in graph.dependents(Node::Object(id)) {
            let d = edge.dependent;
            if !gone[d.index()] && all_owners_gone(graph, d, &gone) {
                gone[d.index()] = true;
                queue.push_back(d);
            }
        }
    }
    order
}

/// Whether every owner of `id` is deleted or dangling, and it has at least one: then the
/// collector deletes it. References it can never resolve (an unserved API, a namespaced owner
/// of a cluster-scoped object) keep it for ever.
fn all_owners_gone(graph: &Graph, id: ObjId, gone: &[bool]) -> bool {
    graph.owners(id).all(|e| match e.owner {
        Node::Object(o) => gone[o.index()],
        Node::Placeholder(_) => e.dangling,
    })
}

pub fn preview(graph: &Graph, target: ObjId, cascade: Cascade) -> Preview {
    let n = graph.object_count();
    let mut gone = vec![false; n];
    gone[target.index()] = true;
    let mut deleted = vec![target];
    if cascade != Cascade::Orphan {
        let mut queue = VecDeque::from([target]);
        while let Some(id) = queue.pop_front() {
            for edge in graph.dependents(Node::Object(id)) {
                let d = edge.dependent;
                if !gone[d.index()] && all_owners_gone(graph, d, &gone) {
                    gone[d.index()] = true;
                    deleted.push(d);
                    queue.push_back(d);
                }
            }
        }
    }
    // Survivors: dependents of deleted objects that keep another owner (or, orphaning, all of
    // the target's dependents).
    let mut lose_references: Vec<(ObjId, Vec<ObjId>)> = Vec::new();
    for &owner in &deleted {
        for edge in graph.dependents(Node::Object(owner)) {
            let d = edge.dependent;
            if gone[d.index()] {
                continue;
            }
            match lose_references.iter_mut().find(|(x, _)| *x == d) {
                Some((_, owners)) => owners.push(owner),
                None => lose_references.push((d, vec![owner])),
            }
        }
    }
    let blocking = if cascade == Cascade::Foreground {
        graph
            .dependents(Node::Object(target))
            .filter(|e| e.block_owner_deletion && gone[e.dependent.index()])
            .map(|e| e.dependent)
            .collect()
    } else {
        Vec::new()
    };
    if cascade == Cascade::Foreground {
        // Dependents go first, the target last: reverse breadth-first order.
        deleted.reverse();
    }
    Preview {
        target,
        cascade,
        deleted,
        lose_references,
        blocking,
        dangling: doomed_at_apply(graph),
    }
}

pub fn text(analysis: &Analysis, preview: &Preview) -> String {
    let d = |id: ObjId| crate::report::escape::text(&analysis.display_name(id)).into_owned();
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
    if !preview.blocking.is_empty() {
        let _ = writeln!(
            out,
            "\n{} stays Terminating until these are gone (blockOwnerDeletion: true):",
            d(preview.target)
        );
        for &id in &preview.blocking {
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
    out
}

pub fn json(analysis: &Analysis, preview: &Preview) -> String {
    let object = |id: ObjId| {
        let o = &analysis.objects[id.index()];
        json!({
            "apiVersion": o.api_version.as_ref().map(|a| &a.value),
            "kind": o.kind.as_ref().map(|k| &k.value),
            "namespace": analysis.index.facts(id).namespace,
            "name": o.name.as_ref().map(|n| &n.value),
        })
    };
    let document = json!({
        "version": 1,
        "target": object(preview.target),
        "cascade": preview.cascade,
        "deleted": preview.deleted.iter().map(|&id| object(id)).collect::<Vec<_>>(),
        "blocking": preview.blocking.iter().map(|&id| object(id)).collect::<Vec<_>>(),
        "loseReferences": preview.lose_references.iter().map(|(id, owners)| json!({
            "object": object(*id),
            "owners": owners.iter().map(|&o| object(o)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "deletedOnApply": preview.dangling.iter().map(|&id| object(id)).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"
}
