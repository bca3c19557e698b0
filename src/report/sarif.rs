//! `sarif`: SARIF 2.1.0 for GitHub code scanning and other viewers. One run; `tool.driver`
//! lists every rule with its document; each result has an exact region (columns count Unicode
//! code points, as stated in `columnKind`), an artifact URI relative to the repository root
//! (`%SRCROOT%`), and a partial fingerprint that does not depend on line numbers, so a finding
//! keeps its identity when lines move. A finding of a build taken back only to the nearest
//! place its source writes says so in its message and in the property `approximatePosition`
//! (of the result, and of each location that is only near its field).

use std::io::{self, Write};

use serde_json::{Value, json};

use super::{EmitOptions, repo_relative};
use crate::analysis::Outcome;
use crate::finding::{Applicability, Finding, Label, Severity};
use crate::rules::RULES;
use crate::source::{LineCol, SourceId};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key of our fingerprint in `partialFingerprints`; bump the version when its inputs change.
const FINGERPRINT_KEY: &str = "ownerlint/v1";

pub fn emit(
    outcome: &Outcome,
    findings: &[&Finding],
    options: &EmitOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let root = options.root.as_deref();
    let mut base_ids = serde_json::Map::new();
    if let Some(root) = root {
        let mut uri = format!(
            "file://{}",
            percent_encode(&root.to_string_lossy().replace('\\', "/"))
        );
        if !uri.ends_with('/') {
            uri.push('/');
        }
        if !uri.starts_with("file:///") {
            // A Windows path (`C:/…`) needs the third slash.
            uri = uri.replacen("file://", "file:///", 1);
        }
        base_ids.insert("%SRCROOT%".into(), json!({ "uri": uri }));
    }
    let results: Vec<Value> = findings
        .iter()
        .map(|f| result(outcome, f, options))
        .collect();
    let notifications: Vec<Value> = outcome
        .errors
        .iter()
        .map(|e| {
            json!({
                "level": "error",
                "message": { "text": format!("{}: {}", e.path, e.message) },
                "locations": [{ "physicalLocation": { "artifactLocation": artifact(&e.path, root) } }],
            })
        })
        .collect();
    let mut run = json!({
        "tool": { "driver": driver() },
        "invocations": [{
            "executionSuccessful": outcome.errors.is_empty(),
            "toolExecutionNotifications": notifications,
        }],
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if !base_ids.is_empty()
        && let Value::Object(map) = &mut run
    {
        map.insert("originalUriBaseIds".into(), Value::Object(base_ids));
    }
    // `ownerlint cluster`: which cluster the logical locations are in.
    if let (Some(cluster), Value::Object(map)) = (&outcome.stats.cluster, &mut run) {
        map.insert(
            "properties".into(),
            json!({ "kubeconfigContext": cluster.context, "server": cluster.server }),
        );
    }
    let document = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [run],
    });
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn driver() -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            let meta = rule.meta;
            json!({
                "id": meta.id,
                "name": camel_case(meta.id),
                "shortDescription": { "text": meta.summary },
                "fullDescription": { "text": what_it_does(meta.doc) },
                "help": { "text": meta.doc, "markdown": meta.doc },
                "defaultConfiguration": { "level": level(meta.default_severity) },
                "properties": { "tags": ["kubernetes", "ownership"] },
            })
        })
        .collect();
    json!({
        "name": "ownerlint",
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    })
}

/// The "What it does" section of a rule document, as one paragraph of text.
fn what_it_does(body: &str) -> String {
    let section = body
        .split("## What it does")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or(body);
    let paragraph = section.trim().split("\n\n").next().unwrap_or("");
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `owner-not-found` → `OwnerNotFound`, the form SARIF viewers show as a rule name.
fn camel_case(id: &str) -> String {
    id.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

fn result(outcome: &Outcome, finding: &Finding, options: &EmitOptions) -> Value {
    let root = options.root.as_deref();
    let rule_index = RULES.iter().position(|r| r.meta.id == finding.rule.id);
    let mut message = super::one_line_message(finding);
    if let Some(line) = super::place(outcome, finding).rendered_line {
        message.push_str(&format!(" (line {line} of the rendered stream)"));
    }
    if let Some(help) = &finding.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<Value> = finding
        .related
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let mut location = location(outcome, label, root);
            if let Value::Object(map) = &mut location {
                map.insert("id".into(), json!(i + 1));
                map.insert("message".into(), json!({ "text": label.message }));
            }
            location
        })
        .collect();
    // An object in a cluster is in no file: its location is logical only (the object and its
    // field), and a fix, which edits no file, is shown as text, not proposed.
    if let Some(location) = super::live_location(outcome, finding) {
        let mut value = json!({
            "ruleId": finding.rule,
            "level": level(finding.severity),
            "message": { "text": message },
            "locations": [{ "logicalLocations": [{
                "name": finding.field.as_deref().unwrap_or(&location),
                "fullyQualifiedName": location,
                "kind": if finding.field.is_some() { "property" } else { "object" },
            }] }],
            "partialFingerprints": { FINGERPRINT_KEY: super::finding_key(outcome, finding, root).fingerprint() },
        });
        if let (Some(index), Value::Object(map)) = (rule_index, &mut value) {
            map.insert("ruleIndex".into(), json!(index));
        }
        return value;
    }
    let mut value = json!({
        "ruleId": finding.rule,
        "level": level(finding.severity),
        "message": { "text": message },
        "locations": [primary_location(outcome, finding, root)],
        "partialFingerprints": { FINGERPRINT_KEY: super::finding_key(outcome, finding, root).fingerprint() },
    });
    if let Value::Object(map) = &mut value {
        if let Some(index) = rule_index {
            map.insert("ruleIndex".into(), json!(index));
        }
        if !related.is_empty() {
            map.insert("relatedLocations".into(), Value::Array(related));
        }
        if finding.primary.approximate {
            map.insert("properties".into(), approximate());
        }
        if let Some(fix) = fix(outcome, finding, root) {
            map.insert("fixes".into(), json!([fix]));
        }
    }
    value
}

/// A finding's fix as SARIF proposes one, for code review to offer: safe and unsafe fixes
/// (said in the description), not display-only ones, and not edits of standard input, which
/// has no file to change.
fn fix(outcome: &Outcome, finding: &Finding, root: Option<&std::path::Path>) -> Option<Value> {
    let fix = finding.fix.as_ref()?;
    if fix.applicability == Applicability::DisplayOnly {
        return None;
    }
    let mut changes: Vec<(SourceId, Vec<Value>)> = Vec::new();
    for edit in &fix.edits {
        let source = outcome.source(edit.source);
        if source.name == crate::read::STDIN_NAME {
            return None;
        }
        let start = source.line_col(edit.span.start);
        let end = source.line_col(edit.span.end);
        let replacement = json!({
            "deletedRegion": {
                "startLine": start.line,
                "startColumn": start.column,
                "endLine": end.line,
                "endColumn": end.column,
            },
            "insertedContent": { "text": edit.replacement },
        });
        match changes.iter_mut().find(|(id, _)| *id == edit.source) {
            Some((_, replacements)) => replacements.push(replacement),
            None => changes.push((edit.source, vec![replacement])),
        }
    }
    Some(json!({
        "description": { "text": format!("{} ({} fix)", fix.message, fix.applicability.as_str()) },
        "artifactChanges": changes.into_iter().map(|(id, replacements)| json!({
            "artifactLocation": artifact(&outcome.source(id).name, root),
            "replacements": replacements,
        })).collect::<Vec<_>>(),
    }))
}

fn artifact(name: &str, root: Option<&std::path::Path>) -> Value {
    let path = repo_relative(name, root);
    if root.is_some() && !std::path::Path::new(&path).is_absolute() {
        json!({ "uri": percent_encode(&path), "uriBaseId": "%SRCROOT%" })
    } else {
        json!({ "uri": percent_encode(&path) })
    }
}

/// The finding's own location: for a `helm template` stream on standard input, in the
/// template it was rendered from, so that code review annotates the chart's file.
fn primary_location(outcome: &Outcome, finding: &Finding, root: Option<&std::path::Path>) -> Value {
    let place = super::place(outcome, finding);
    let mut location = located(
        outcome,
        &finding.primary,
        &place.path,
        place.start,
        place.end,
        root,
    );
    // The object and its field: a place that holds without the file.
    if let (Some(object), Some(field), Value::Object(map)) =
        (&finding.object, &finding.field, &mut location)
    {
        map.insert(
            "logicalLocations".into(),
            json!([{
                "name": field,
                "fullyQualifiedName": format!("{} {field}", object.display()),
                "kind": "property",
            }]),
        );
    }
    location
}

fn location(outcome: &Outcome, label: &Label, root: Option<&std::path::Path>) -> Value {
    let source = outcome.source(label.source);
    let start = source.line_col(label.span.start);
    let end = source.line_col(label.span.end.max(label.span.start));
    located(outcome, label, &source.name, start, end, root)
}

/// A SARIF location of `path` from `start` to `end`, with the text `label` points at.
fn located(
    outcome: &Outcome,
    label: &Label,
    path: &str,
    start: LineCol,
    end: LineCol,
    root: Option<&std::path::Path>,
) -> Value {
    let source = outcome.source(label.source);
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": artifact(path, root),
            "region": {
                "startLine": start.line,
                "startColumn": start.column,
                "endLine": end.line,
                "endColumn": end.column.max(if end.line == start.line { start.column + 1 } else { 1 }),
                "snippet": { "text": source.text.str(label.span.start..label.span.end).unwrap_or_default() },
            }
        }
    });
    if label.approximate
        && let Value::Object(map) = &mut location
    {
        map.insert("properties".into(), approximate());
    }
    location
}

/// The property bag of a result or a location whose place is only near its field: a finding
/// of a build taken back to the nearest place its source writes.
fn approximate() -> Value {
    json!({ "approximatePosition": true })
}

/// Percent-encode a path for a URI reference: everything but RFC 3986 unreserved characters
/// and `/`.
fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris() {
        assert_eq!(camel_case("owner-not-found"), "OwnerNotFound");
        assert_eq!(percent_encode("a b/c%d.yaml"), "a%20b/c%25d.yaml");
        assert_eq!(percent_encode("<stdin>"), "%3Cstdin%3E");
    }
}
