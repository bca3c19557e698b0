//! `ownerlint tree`: the ownership graph as a forest. Roots are objects without owners and
//! placeholders for owners that do not resolve (marked with the reason); a reference that names
//! an object of the input whose uid does not count (another uid, or one given at creation) is
//! drawn at that object, marked with the reason; an object with several
//! owners is drawn in full once and referred back to elsewhere; a cycle is shown where it closes,
//! not followed. Formats: text (box drawing), json (nodes and edges), dot and mermaid.

use std::fmt::Write;

use serde_json::json;

use crate::analysis::Analysis;
use crate::drawing::{Arrow, Class, Drawing, Line, Shape};
use crate::graph::{Edge, Graph, Node};
use crate::index::ObjId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TreeFormat {
    /// An indented tree with box-drawing lines
    Text,
    /// Nodes, edges and roots, for tools
    Json,
    /// Graphviz (`dot -Tsvg`)
    Dot,
    /// A Mermaid flowchart (renders in GitHub Markdown)
    Mermaid,
}

/// Which part of the forest to show.
#[derive(Clone, Debug, Default)]
pub struct TreeFilter {
    /// Start at this object only.
    pub root: Option<ObjId>,
    /// Only objects in this namespace, with what they own and, for context, their owners.
    pub namespace: Option<String>,
    /// Only objects of this kind, with what they own and, for context, their owners.
    pub kind: Option<String>,
}

/// The nodes and order a drawing walks.
pub struct Forest<'a> {
    analysis: &'a Analysis,
    graph: &'a Graph,
    /// Nodes to show (owners of a match are kept for context).
    keep_objects: Vec<bool>,
    keep_placeholders: Vec<bool>,
    roots: Vec<Node>,
    /// For each object, the placeholders that stand for it (`Placeholder::object`).
    stands_for: Vec<Vec<usize>>,
}

impl<'a> Forest<'a> {
    pub fn new(analysis: &'a Analysis, graph: &'a Graph, filter: &TreeFilter) -> Forest<'a> {
        let n = graph.object_count();
        let object_matches = |id: ObjId| {
            let object = &analysis.objects[id.index()];
            filter
                .kind
                .as_ref()
                .is_none_or(|k| object.kind_str().eq_ignore_ascii_case(k))
                && filter.namespace.as_ref().is_none_or(|ns| {
                    analysis.index.facts(id).namespace.as_deref() == Some(ns.as_str())
                })
        };
        let mut stands_for = vec![Vec::new(); n];
        for (p, placeholder) in graph.placeholders.iter().enumerate() {
            if let Some(o) = placeholder.object {
                stands_for[o.index()].push(p);
            }
        }
        // The dependents of an object, with those whose reference stands for it.
        let dependents = |id: ObjId| {
            graph.dependents(Node::Object(id)).chain(
                stands_for[id.index()]
                    .iter()
                    .flat_map(|&p| graph.dependents(Node::Placeholder(p))),
            )
        };
        let mut keep_objects = vec![false; n];
        let mut keep_placeholders = vec![false; graph.placeholders.len()];
        let matches: Vec<ObjId> = match filter.root {
            Some(root) => vec![root],
            None => (0..n as u32)
                .map(ObjId)
                .filter(|&id| object_matches(id))
                .collect(),
        };
        // A match keeps everything it owns, down to the leaves...
        let mut stack = matches.clone();
        while let Some(id) = stack.pop() {
            if keep_objects[id.index()] {
                continue;
            }
            keep_objects[id.index()] = true;
            stack.extend(dependents(id).map(|e| e.dependent));
        }
        // ...and, unless it was chosen as the root, its owners up to the roots, for context.
        if filter.root.is_none() {
            let mut reached = vec![false; n];
            let mut stack = matches;
            while let Some(id) = stack.pop() {
                if reached[id.index()] {
                    continue;
                }
                reached[id.index()] = true;
                keep_objects[id.index()] = true;
                for edge in graph.owners(id) {
                    match edge.owner {
                        Node::Object(owner) => stack.push(owner),
                        Node::Placeholder(p) => {
                            keep_placeholders[p] = true;
                            if let Some(owner) = graph.placeholders[p].object {
                                stack.push(owner);
                            }
                        }
                    }
                }
            }
        }
        let roots = match filter.root {
            Some(root) => vec![Node::Object(root)],
            None => {
                // Objects without owners, and placeholders, in the order they first appear.
                let mut roots: Vec<(usize, Node)> = (0..n as u32)
                    .map(ObjId)
                    .filter(|&id| graph.owners(id).next().is_none() && keep_objects[id.index()])
                    .map(|id| (id.index(), Node::Object(id)))
                    .collect();
                for (p, _) in keep_placeholders
                    .iter()
                    .enumerate()
                    .filter(|&(p, kept)| *kept && graph.placeholders[p].object.is_none())
                {
                    if let Some(first) = graph.dependents(Node::Placeholder(p)).next() {
                        roots.push((first.dependent.index(), Node::Placeholder(p)));
                    }
                }
                roots.sort();
                roots.into_iter().map(|(_, node)| node).collect()
            }
        };
        Forest {
            analysis,
            graph,
            keep_objects,
            keep_placeholders,
            roots,
            stands_for,
        }
    }

    /// The node a drawing shows for `node`: the object a placeholder stands for, if any.
    fn drawn(&self, node: Node) -> Node {
        match node {
            Node::Placeholder(p) => self.graph.placeholders[p].object.map_or(node, Node::Object),
            Node::Object(_) => node,
        }
    }

    /// Why an edge drawn at an object does not count for the garbage collector, when its
    /// reference names that object but not its uid.
    fn marked(&self, edge: &Edge) -> Option<crate::resolve::Unresolved> {
        match edge.owner {
            Node::Placeholder(p) if self.graph.placeholders[p].object.is_some() => {
                Some(self.graph.placeholders[p].reason)
            }
            _ => None,
        }
    }

    fn kept(&self, node: Node) -> bool {
        match node {
            Node::Object(o) => self.keep_objects[o.index()],
            Node::Placeholder(p) => self.keep_placeholders[p],
        }
    }

    /// "Deployment shop/api", or for a placeholder "Deployment shop/api (not found)".
    pub fn label(&self, node: Node) -> String {
        match node {
            Node::Object(id) => {
                let object = &self.analysis.objects[id.index()];
                let name = object
                    .name
                    .as_ref()
                    .map_or("(unnamed)", |n| n.value.as_str());
                match &self.analysis.index.facts(id).namespace {
                    Some(ns) => format!("{} {ns}/{name}", object.kind_str()),
                    None => format!("{} {name}", object.kind_str()),
                }
            }
            Node::Placeholder(p) => {
                let placeholder = &self.graph.placeholders[p];
                let name = match &placeholder.namespace {
                    Some(ns) => format!("{ns}/{}", placeholder.name),
                    None => placeholder.name.clone(),
                };
                let reason = placeholder.reason;
                match reason.keeps_dependents() {
                    true => format!(
                        "{} {name} ({}: {})",
                        placeholder.kind,
                        reason.phrase(),
                        reason.consequence()
                    ),
                    false => format!("{} {name} ({})", placeholder.kind, reason.phrase()),
                }
            }
        }
    }

    /// Walk the forest depth first: each visit says how the node appears there.
    fn walk(&self, mut visit: impl FnMut(Visit)) {
        let n = self.graph.object_count();
        let mut shown = vec![false; n];
        let mut shown_placeholders = vec![false; self.graph.placeholders.len()];
        let mut on_path = vec![false; n];
        let mut roots = self.roots.clone();
        let mut extra = 0;
        let mut next_root = 0;
        loop {
            let root = if next_root < roots.len() {
                roots[next_root]
            } else {
                // Objects not reached from any root are in ownership cycles: start from the
                // first of them.
                let Some(i) = (extra..n).find(|&i| self.keep_objects[i] && !shown[i]) else {
                    break;
                };
                extra = i + 1;
                roots.push(Node::Object(ObjId(i as u32)));
                roots[next_root]
            };
            next_root += 1;
            let last_root = next_root == roots.len();
            let in_cycle = next_root > self.roots.len();
            enum Step {
                Enter(Node, Option<Edge>, usize, bool),
                Exit(ObjId),
            }
            let mut stack = vec![Step::Enter(root, None, 0, last_root)];
            while let Some(step) = stack.pop() {
                let (node, edge, depth, last) = match step {
                    Step::Exit(id) => {
                        on_path[id.index()] = false;
                        continue;
                    }
                    Step::Enter(node, edge, depth, last) => (node, edge, depth, last),
                };
                let how = match node {
                    Node::Object(id) if on_path[id.index()] => How::Cycle,
                    Node::Object(id) if shown[id.index()] => How::Again,
                    Node::Placeholder(p) if shown_placeholders[p] => How::Again,
                    _ if depth == 0 && in_cycle => How::CycleRoot,
                    _ => How::Full,
                };
                visit(Visit {
                    node,
                    edge,
                    depth,
                    last,
                    how,
                });
                if how != How::Full && how != How::CycleRoot {
                    continue;
                }
                let standing_in: &[usize] = match node {
                    Node::Object(id) => &self.stands_for[id.index()],
                    Node::Placeholder(_) => &[],
                };
                let mut children: Vec<Edge> = self
                    .graph
                    .dependents(node)
                    .chain(
                        standing_in
                            .iter()
                            .flat_map(|&p| self.graph.dependents(Node::Placeholder(p))),
                    )
                    .filter(|e| self.keep_objects[e.dependent.index()])
                    .copied()
                    .collect();
                // In input order, as the dependents of one node are.
                children.sort_by_key(|e| (e.dependent, e.reference));
                match node {
                    Node::Object(id) => {
                        shown[id.index()] = true;
                        on_path[id.index()] = true;
                        stack.push(Step::Exit(id));
                    }
                    Node::Placeholder(p) => shown_placeholders[p] = true,
                }
                let count = children.len();
                for (i, child) in children.into_iter().enumerate().rev() {
                    stack.push(Step::Enter(
                        Node::Object(child.dependent),
                        Some(child),
                        depth + 1,
                        i + 1 == count,
                    ));
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    Full,
    /// Drawn in full elsewhere.
    Again,
    /// An owner of itself, through the current path.
    Cycle,
    /// The first object of a cycle that no root reaches.
    CycleRoot,
}

/// A node as the walk reaches it: through which edge, how deep, whether it is the last child
/// of its parent, and how it is drawn there.
struct Visit {
    node: Node,
    edge: Option<Edge>,
    depth: usize,
    last: bool,
    how: How,
}

/// The forest as an indented tree.
pub fn text(forest: &Forest, color: bool) -> String {
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    // For each open level, whether its last child has been drawn (no more `│`).
    let mut rails: Vec<bool> = Vec::new();
    forest.walk(|visit| {
        let Visit {
            node,
            edge,
            depth,
            last,
            how,
        } = visit;
        rails.truncate(depth.saturating_sub(1));
        let mut line = String::new();
        if depth > 0 {
            for &done in &rails {
                line.push_str(if done { "    " } else { "│   " });
            }
            line.push_str(if last { "└── " } else { "├── " });
            rails.push(last);
        }
        let label = crate::report::escape::text(&forest.label(node)).into_owned();
        match node {
            Node::Placeholder(_) => line.push_str(&paint("31", &format!("✗ {label}"))),
            Node::Object(_) => line.push_str(&label),
        }
        if let Some(edge) = edge {
            let mut flags = Vec::new();
            if edge.controller {
                flags.push("controller");
            }
            if edge.block_owner_deletion {
                flags.push("blocks owner deletion");
            }
            if !flags.is_empty() {
                line.push_str(&paint("2", &format!("  [{}]", flags.join(", "))));
            }
            if let Some(reason) = forest.marked(&edge) {
                line.push_str(&paint(
                    "31",
                    &format!("  ✗ {}: {}", reason.phrase(), reason.consequence()),
                ));
            }
        }
        match how {
            How::Again => line.push_str(&paint("2", "  ↑ shown above")),
            How::Cycle => line.push_str(&paint("33", "  ↻ cycle: owns itself through this path")),
            How::CycleRoot => line.push_str(&paint("33", "  ↻ in an ownership cycle")),
            How::Full => {}
        }
        let _ = writeln!(out, "{line}");
    });
    out
}

/// Node ids for json, dot and mermaid: `n<index>` for objects, `p<index>` for placeholders.
fn id(node: Node) -> String {
    match node {
        Node::Object(o) => format!("n{}", o.0),
        Node::Placeholder(p) => format!("p{p}"),
    }
}

/// The kept nodes and the edges between them.
fn parts(forest: &Forest) -> (Vec<Node>, Vec<Edge>) {
    let mut nodes: Vec<Node> = (0..forest.graph.object_count() as u32)
        .map(|i| Node::Object(ObjId(i)))
        .filter(|&n| forest.kept(n))
        .collect();
    nodes.extend(
        (0..forest.graph.placeholders.len())
            .filter(|&p| forest.graph.placeholders[p].object.is_none())
            .map(Node::Placeholder)
            .filter(|&n| forest.kept(n)),
    );
    let edges = forest
        .graph
        .edges
        .iter()
        .filter(|e| forest.kept(Node::Object(e.dependent)) && forest.kept(forest.drawn(e.owner)))
        .copied()
        .collect();
    (nodes, edges)
}

pub fn json(forest: &Forest) -> String {
    let (nodes, edges) = parts(forest);
    let nodes: Vec<serde_json::Value> = nodes
        .iter()
        .map(|&node| match node {
            Node::Object(o) => {
                let object = &forest.analysis.objects[o.index()];
                let source = forest.analysis.outcome.source(object.source);
                json!({
                    "id": id(node),
                    "apiVersion": object.api_version.as_ref().map(|a| &a.value),
                    "kind": object.kind.as_ref().map(|k| &k.value),
                    "namespace": forest.analysis.index.facts(o).namespace,
                    "name": object.name.as_ref().map(|n| &n.value),
                    "uid": object.uid.as_ref().map(|u| &u.value),
                    "path": source.name,
                    "line": source.line_col(object.span.start).line,
                })
            }
            Node::Placeholder(p) => {
                let placeholder = &forest.graph.placeholders[p];
                json!({
                    "id": id(node),
                    "kind": placeholder.kind,
                    "namespace": placeholder.namespace,
                    "name": placeholder.name,
                    "unresolved": placeholder.reason,
                })
            }
        })
        .collect();
    let edges: Vec<serde_json::Value> = edges
        .iter()
        .map(|e| {
            let mut edge = json!({
                "dependent": id(Node::Object(e.dependent)),
                "owner": id(forest.drawn(e.owner)),
                "controller": e.controller,
                "blockOwnerDeletion": e.block_owner_deletion,
            });
            // A reference that names the owner but not its uid: why it does not count.
            if let (Some(reason), Some(fields)) = (forest.marked(e), edge.as_object_mut()) {
                fields.insert("unresolved".to_string(), json!(reason));
            }
            edge
        })
        .collect();
    let roots: Vec<String> = forest.roots.iter().map(|&r| id(r)).collect();
    let document = json!({ "version": 1, "roots": roots, "nodes": nodes, "edges": edges });
    serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"
}

/// How a placeholder for an owner that does not resolve is drawn.
static UNRESOLVED: Class = Class {
    name: "unresolved",
    dot: "style=dashed, color=red, fontcolor=red",
    mermaid: "stroke:#d33,stroke-dasharray:4,color:#d33",
    legend: None,
};

fn drawing(forest: &Forest) -> Drawing {
    let (nodes, edges) = parts(forest);
    let shapes = nodes
        .into_iter()
        .map(|node| Shape {
            id: id(node),
            lines: vec![crate::report::escape::text(&forest.label(node)).into_owned()],
            class: matches!(node, Node::Placeholder(_)).then_some(&UNRESOLVED),
            emphasis: false,
        })
        .collect();
    let arrows = edges
        .iter()
        .map(|edge| {
            let mut label: Vec<&str> = Vec::new();
            if edge.controller {
                label.push("controller");
            }
            let marked = forest.marked(edge);
            if let Some(reason) = marked {
                label.push(reason.phrase());
            }
            Arrow {
                from: id(forest.drawn(edge.owner)),
                to: id(Node::Object(edge.dependent)),
                label: (!label.is_empty()).then(|| label.join(", ")),
                line: if marked.is_some() {
                    Line::Broken
                } else {
                    Line::Solid
                },
            }
        })
        .collect();
    Drawing {
        name: "ownership",
        shapes,
        arrows,
        classes: vec![&UNRESOLVED],
    }
}

pub fn dot(forest: &Forest) -> String {
    crate::drawing::dot(&drawing(forest))
}

pub fn mermaid(forest: &Forest) -> String {
    crate::drawing::mermaid(&drawing(forest))
}
