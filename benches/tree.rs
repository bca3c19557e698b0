//! `ownerlint tree` must stay linear in the number of objects. This benchmark builds
//! Deployment → ReplicaSet → Pods forests of 10,000 and 100,000 objects (with some objects that
//! have two owners and some dangling references), draws them as text, and prints the time per
//! object for each size and their ratio, all from one run. Run with `cargo bench --bench tree`.

use std::fmt::Write;
use std::time::Instant;

use ownerlint::Options;
use ownerlint::graph::Graph;
use ownerlint::tree::{Forest, TreeFilter, text};

/// A snapshot of `objects` objects in families of one Deployment, one ReplicaSet and eight Pods.
fn dump(objects: usize) -> String {
    let mut out = String::new();
    let families = objects / 10;
    for f in 0..families {
        let _ = write!(
            out,
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{f}, namespace: ns{}, uid: d-{f}}}\n",
            f % 50
        );
        let _ = write!(
            out,
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs{f}\n  namespace: ns{}\n  uid: rs-{f}\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: Deployment, name: d{f}, uid: d-{f}, controller: true}}\n",
            f % 50
        );
        for p in 0..8 {
            // Every tenth family has a Pod with a second owner, and one with a stale uid.
            let extra = match (f % 10, p) {
                (0, 0) => format!(
                    "  - {{apiVersion: apps/v1, kind: Deployment, name: d{f}, uid: d-{f}}}\n"
                ),
                (0, 1) => {
                    "  - {apiVersion: v1, kind: ConfigMap, name: gone, uid: cm-gone}\n".to_string()
                }
                _ => String::new(),
            };
            let _ = write!(
                out,
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: rs{f}-p{p}\n  namespace: ns{}\n  uid: p-{f}-{p}\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: ReplicaSet, name: rs{f}, uid: rs-{f}, controller: true}}\n{extra}",
                f % 50
            );
        }
    }
    out
}

fn main() {
    let mut per_object = Vec::new();
    for objects in [10_000, 100_000] {
        let input = dump(objects);
        let analysis =
            ownerlint::analyze_texts(vec![("dump.yaml".into(), input)], &Options::default());
        let started = Instant::now();
        let graph = Graph::build(&analysis, false);
        let forest = Forest::new(&analysis, &graph, &TreeFilter::default());
        let drawn = text(&forest, false);
        let elapsed = started.elapsed();
        let ns = elapsed.as_nanos() as f64 / objects as f64;
        per_object.push(ns);
        println!(
            "{objects:>7} objects: graph + tree in {:>8.2} ms, {ns:>7.0} ns per object, {} lines",
            elapsed.as_secs_f64() * 1000.0,
            drawn.lines().count()
        );
    }
    println!(
        "time per object, 100,000 vs 10,000: {:.2}× (1.00 is linear)",
        per_object[1] / per_object[0]
    );
}
