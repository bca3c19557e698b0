//! `ownership-cycle`: an object owns itself, directly or through a chain of owners. Every member
//! of a cycle always has a live owner, so the garbage collector never collects any of them. Only
//! references that resolve by uid count: one whose uid is not its owner's is dangling.

use super::Context;
use crate::finding::Finding;
use crate::index::ObjId;
use crate::resolve::RefResolution;

super::declare_rule! {
    id: "ownership-cycle",
    severity: Warning,
    summary: "An object owns itself, directly or through a chain of owners",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    // Edges run from a dependent to each owner its references resolve to by kind, scope, name
    // and uid. A reference whose uid is not its owner's is dangling to the garbage collector,
    // which deletes that member (or removes the entry, beside a solid owner): no cycle holds
    // through it.
    let edges = Edges::solid(cx.resolutions);
    let edges = &edges;
    for component in strongly_connected(edges) {
        if component.iter().all(|id| cx.object(*id).from_existing) {
            continue;
        }
        // Report once, at the reference into the cycle of the member that sorts first by kind,
        // namespace and name: the same finding whatever the order of the input.
        let Some(start) = component
            .iter()
            .copied()
            .filter(|id| !cx.object(*id).from_existing)
            .min_by_key(|id| (cx.display_name(*id), *id))
        else {
            continue;
        };
        let path = cycle_path(start, &component, edges);
        let next = path.get(1).copied().unwrap_or(start);
        let object = cx.object(start);
        let Some((_, reference)) = object
            .owner_refs()
            .iter()
            .enumerate()
            .find(|(i, _)| {
                let resolution = &cx.resolutions[start.index()][*i];
                resolution.is_solid() && resolution.owner() == Some(next)
            })
        else {
            continue;
        };
        let chain: Vec<String> = path
            .iter()
            .chain(std::iter::once(&start))
            .map(|id| cx.display_name(*id))
            .collect();
        let message = if path.len() == 1 {
            format!(
                "{} owns itself: the reference always finds a live owner, so the garbage collector never collects it on its own, and a foreground deletion with blockOwnerDeletion on this entry can wait for itself",
                cx.display_name(start)
            )
        } else {
            format!(
                "ownership cycle {}: each member always has a live owner, so the garbage collector never collects any of them on its own",
                chain.join(" → ")
            )
        };
        out.push(
            cx.finding(&META, start, reference.head, "closes the cycle", message)
                .help("ownership must form a tree: remove the reference that points back up the chain"),
        );
    }
}

/// Each object's owners, in one list for all objects: a dump's hundreds of thousands of objects
/// hold one allocation here, not one each.
struct Edges {
    /// Where each object's owners start in `owners` (one more entry than objects).
    starts: Vec<u32>,
    owners: Vec<ObjId>,
}

impl Edges {
    /// From each dependent to each owner its references resolve to by kind, scope, name and
    /// uid, each once.
    fn solid(resolutions: &[Vec<RefResolution>]) -> Edges {
        let mut starts = Vec::with_capacity(resolutions.len() + 1);
        let mut owners = Vec::new();
        starts.push(0);
        for refs in resolutions {
            let first = owners.len();
            for owner in refs
                .iter()
                .filter(|r| r.is_solid())
                .filter_map(RefResolution::owner)
            {
                if owners.len() == first || owners.last() != Some(&owner) {
                    owners.push(owner);
                }
            }
            starts.push(owners.len() as u32);
        }
        Edges { starts, owners }
    }

    fn len(&self) -> usize {
        self.starts.len() - 1
    }

    fn of(&self, id: usize) -> &[ObjId] {
        &self.owners[self.starts[id] as usize..self.starts[id + 1] as usize]
    }
}

/// Tarjan's algorithm, iterative so that long chains cannot overflow the stack. Only the
/// components that are cycles are kept (a dump's every object is a component of its own), with
/// their members sorted.
fn strongly_connected(edges: &Edges) -> Vec<Vec<ObjId>> {
    let n = edges.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut next_index = 0;
    for root in 0..n {
        if index[root] != u32::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == u32::MAX {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(w) = edges.of(v).get(*edge).map(|w| w.index()) {
                *edge += 1;
                if index[w] == u32::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(ObjId(w as u32));
                    if w == v {
                        break;
                    }
                }
                let own = component.len() == 1 && edges.of(v).contains(&ObjId(v as u32));
                if component.len() > 1 || own {
                    component.sort();
                    components.push(component);
                }
            }
        }
    }
    components.sort();
    components
}

/// A path from `start` around the cycle back to (but not including) `start` again.
fn cycle_path(start: ObjId, component: &[ObjId], edges: &Edges) -> Vec<ObjId> {
    // Breadth-first search inside the component for the shortest way back to `start`.
    let mut previous: std::collections::HashMap<ObjId, ObjId> = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in edges.of(v.index()) {
            if !component.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while at != start {
                    let Some(&before) = previous.get(&at) else {
                        break;
                    };
                    at = before;
                    path.push(at);
                }
                path.reverse();
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = previous.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}
