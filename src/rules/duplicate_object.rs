//! `duplicate-object`: two documents of one file or stream define the same
//! group/kind/namespace/name. A file (or a stream on standard input, such as `helm template`
//! or `kustomize build` output) is what a person applies at once; a repository's other files
//! are often alternatives (`install.yaml` and `ha/install.yaml`), overlays or test fixtures,
//! never applied together with it.

use super::Context;
use crate::finding::{Finding, Severity};
use crate::index::ObjId;
use crate::model::Mode;

super::declare_rule! {
    id: "duplicate-object",
    severity: Warning,
    severity_varies: "info for a dump that holds one name with two uids",
    summary: "Two documents of one file or stream define the same group/kind/namespace/name (info for a dump that holds one name with two uids)",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for ids in cx.index.duplicate_identities(cx.objects) {
        let mut linted: Vec<_> = ids
            .iter()
            .copied()
            .filter(|id| !cx.object(*id).from_existing)
            .collect();
        // Input order within each file.
        linted.sort_by_key(|id| (cx.object(*id).source.0, id.index()));
        for same_file in linted.chunk_by(|a, b| cx.object(*a).source == cx.object(*b).source) {
            report(cx, same_file, out);
        }
    }
}

/// The definitions after the first of one identity in one file.
fn report(cx: &Context, ids: &[ObjId], out: &mut Vec<Finding>) {
    let Some((first, rest)) = ids.split_first() else {
        return;
    };
    let uid = |id: ObjId| cx.object(id).uid.as_ref().map(|u| u.value.as_str());
    for (i, id) in rest.iter().enumerate() {
        // The same object captured twice (one uid): a dump, not two definitions.
        if uid(*id).is_some() && ids[..=i].iter().any(|earlier| uid(*earlier) == uid(*id)) {
            continue;
        }
        let object = cx.object(*id);
        let span = object.name_span();
        let captured = |id: ObjId| cx.object(id).mode == Mode::Snapshot && uid(id).is_some();
        let finding = if captured(*id) && captured(*first) {
            // Two uids for one name: a cluster holds one at a time, so the dump joins
            // captures of different moments (the object was deleted and created again).
            let mut finding = cx
                .finding(
                    &META,
                    *id,
                    span,
                    "captured again, another uid",
                    format!(
                        "{} is in this dump twice, with two uids (first at {}): a cluster holds one object of a name at a time, so the dump joins captures of different moments; references to either uid describe only one of them",
                        cx.display_name(*id),
                        cx.location(*first)
                    ),
                )
                .help("take the dump again in one go (`kubectl get … -o yaml`) to see the cluster as it is");
            finding.severity = Severity::Info;
            finding
        } else {
            let source = &cx.sources[object.source.0 as usize];
            let built = source.built_by.is_some();
            let consequence = "applied together, the second definition overwrites the first (or `kubectl create` fails on it), and owner references to it are ambiguous";
            let finding = cx.finding(
                &META,
                *id,
                span,
                "defined again here",
                format!(
                    "{} is defined again in this {} (first at {}): {consequence}",
                    cx.display_name(*id),
                    match source.name.as_str() {
                        "<stdin>" => "stream",
                        _ => "file",
                    },
                    cx.location(*first)
                ),
            );
            let finding = if built {
                // Two files of one chart or overlay: the build is named, and the first
                // definition's place is its file's, when the finding is taken back to them.
                finding.naming_build(
                    format!("{} is defined twice in ", cx.display_name(*id)),
                    format!(": first in {}: {consequence}", cx.location(*first)),
                )
            } else {
                finding
            };
            finding.help(if built {
                "keep one definition among the files it builds; if the two are meant for different clusters or environments, build them from separate overlays or charts"
            } else {
                "keep one definition; if the two are meant for different clusters or environments, put them in separate files"
            })
        };
        out.push(finding.related(cx.name_label(*first, "first defined here")));
    }
}
