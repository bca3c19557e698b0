//! `cross-namespace-owner`: a namespaced owner that exists only in another namespace. The
//! garbage collector looks owners up in the dependent's namespace, so the reference dangles.

use super::Context;
use crate::finding::Finding;
use crate::resolve::Resolution;

super::declare_rule!("cross-namespace-owner", Error);

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for (id, _, index, reference, resolution) in cx.references() {
        let Resolution::NotFound { elsewhere } = &resolution.resolution else {
            continue;
        };
        let Some(first) = elsewhere.first() else {
            continue;
        };
        let namespaces: Vec<String> = elsewhere
            .iter()
            .filter_map(|o| cx.index.facts(*o).namespace.clone())
            .map(|ns| format!("\"{ns}\""))
            .collect();
        let dependent_ns = cx.index.facts(id).namespace.clone().unwrap_or_default();
        out.push(
            cx.finding(
                &META,
                id,
                reference.head,
                format!("owner looked up in namespace \"{dependent_ns}\""),
                format!(
                    "{}: {} {} exists only in namespace {}, and owners are looked up in the dependent's namespace, so the reference is dangling: {}",
                    cx.arrow(id, reference, resolution),
                    reference.kind_str().unwrap_or("?"),
                    reference.name_str().unwrap_or("?"),
                    namespaces.join(", "),
                    cx.dangling_consequence(id, index)
                ),
            )
            .related(cx.name_label(*first, format!("{} is here", cx.describe(*first))))
            .help("a namespaced owner must be in the dependent's namespace: move one of them, use a cluster-scoped owner, or clean up with a label instead of an owner reference"),
        );
    }
}
