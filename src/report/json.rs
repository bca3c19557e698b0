//! `json`: a versioned document for tools. Schema version 1:
//!
//! ```text
//! { "version": 1,
//!   "findings": [ { "rule", "severity", "message", "help", "note", "path", "origin",
//!                   "start": {"line","column"}, "end": {"line","column"},
//!                   "object": {"apiVersion","kind","namespace","name"}, "field",
//!                   "fix": { "message", "applicability", "edits", "patch", "kubectl" },
//!                   "related": [ { "message", "path", "start", "end" } ] } ],
//!   "errors": [ { "path", "message" } ],
//!   "skipped_paths": [ { "path", "message" } ],
//!   "builds": [ { "tool", "path", "command", "status": "built"|"failed"|"skipped",
//!                 "objects", "reason" } ],
//!   "summary": { "files", "documents", "objects", "owner_references", "finalizers",
//!                "discovered_groups", "skipped_documents",
//!                "assertion_files",
//!                "patch_files", "charts", "overlays", "built", "not_built", "part_builds",
//!                "part_not_checked", "skipped_builds",
//!                "build_files", "errors", "warnings", "infos", "suppressed", "baselined",
//!                "cluster": { "context", "server", "namespace", "resources", "requests",
//!                             "confirmed", "rounds", "not_read": [[what, why]] } } }
//! (`cluster` only from `ownerlint cluster`, whose findings' `path` is the object's API path.)
//! ```
//! Lines and columns start at 1; columns count Unicode scalar values; `end` is exclusive.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::analysis::Outcome;
use crate::finding::{Finding, Label, Severity};

pub const SCHEMA_VERSION: u32 = 1;

pub fn emit(outcome: &Outcome, findings: &[&Finding], out: &mut dyn Write) -> io::Result<()> {
    let mut document = json!({
        "version": SCHEMA_VERSION,
        "findings": findings.iter().map(|f| finding(outcome, f)).collect::<Vec<_>>(),
        "errors": outcome.errors.iter().map(|e| json!({"path": e.path, "message": e.message})).collect::<Vec<_>>(),
        "skipped_paths": outcome.skipped_paths.iter().map(|e| json!({"path": e.path, "message": e.message})).collect::<Vec<_>>(),
        "builds": outcome.builds,
        "summary": {
            "files": outcome.stats.files,
            "documents": outcome.stats.documents,
            "objects": outcome.stats.objects,
            "owner_references": outcome.stats.owner_references,
            "finalizers": outcome.stats.finalizers,
            "discovered_groups": outcome.stats.discovered_groups,
            "skipped_documents": outcome.stats.skipped_documents,
            "assertion_files": outcome.stats.assertion_files,
            "patch_files": outcome.stats.patch_files,
            "charts": outcome.stats.charts,
            "overlays": outcome.stats.overlays,
            "built": (outcome.stats.charts + outcome.stats.overlays).saturating_sub(outcome.stats.not_built),
            "not_built": outcome.stats.not_built,
            "part_builds": outcome.stats.part_builds,
            "part_not_checked": outcome.stats.part_not_checked,
            "skipped_builds": outcome.stats.skipped_builds,
            "build_files": outcome.stats.build_files,
            "errors": outcome.count(Severity::Error),
            "warnings": outcome.count(Severity::Warning),
            "infos": outcome.count(Severity::Info),
            "suppressed": outcome.stats.suppressed,
            "baselined": outcome.stats.baselined,
        },
    });
    // `ownerlint cluster`: the cluster read, how much, and what could not be.
    if let Some(cluster) = &outcome.stats.cluster {
        document["summary"]["cluster"] = json!(cluster);
    }
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

fn finding(outcome: &Outcome, f: &Finding) -> Value {
    let mut value = location(outcome, &f.primary);
    let fields = json!({
        "rule": f.rule,
        "severity": f.severity,
        "message": f.message,
        "help": f.help,
        "note": f.note,
        "origin": f.origin,
        "object": f.object,
        "field": f.field,
        "related": f.related.iter().map(|l| location(outcome, l)).collect::<Vec<_>>(),
        "fix": f.fix.as_ref().map(|fix| json!({
            "message": fix.message,
            "applicability": fix.applicability,
            "edits": fix.edits.iter().map(|edit| {
                let source = outcome.source(edit.source);
                json!({
                    "path": source.name,
                    "start": source.line_col(edit.span.start),
                    "end": source.line_col(edit.span.end),
                    "content": edit.replacement,
                })
            }).collect::<Vec<_>>(),
            "patch": fix.patch,
            "kubectl": fix.patch.as_ref().zip(f.object.as_ref())
                .and_then(|(patch, object)| crate::finding::kubectl_patch(object, patch, super::live_context(outcome))),
        })),
    });
    // An object read from a cluster is named by its API path.
    if let (Some(path), Value::Object(map)) = (super::live_path(outcome, f), &mut value) {
        map.insert("path".into(), Value::String(path));
    }
    if let (Value::Object(map), Value::Object(extra)) = (&mut value, fields) {
        map.remove("message");
        map.extend(extra);
        map.insert("label".into(), Value::String(f.primary.message.clone()));
    }
    value
}

fn location(outcome: &Outcome, label: &Label) -> Value {
    let source = outcome.source(label.source);
    json!({
        "path": source.name,
        "start": source.line_col(label.span.start),
        "end": source.line_col(label.span.end),
        "message": label.message,
    })
}
