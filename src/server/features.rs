//! What the server answers, from a snapshot: diagnostics of a file, hover, go to definition,
//! find references and code actions.

use std::collections::HashMap;
use std::path::Path;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, Hover, HoverContents, Location, MarkupContent, MarkupKind, NumberOrString,
    Range, TextEdit, Uri, WorkspaceEdit,
};

use super::position::{Encoding, offset, path_of, range, uri_of};
use super::snapshot::{Part, Snapshot};
use crate::config::ConfigError;
use crate::finding::{Applicability, Finding, Severity};
use crate::index::ObjId;
use crate::resolve::Unresolved;
use crate::source::{Source, Span};

/// What the client can take.
#[derive(Clone, Copy, Debug)]
pub(super) struct Client {
    pub encoding: Encoding,
    pub related_information: bool,
    pub markdown: bool,
}

/// The diagnostics of every linted file of the snapshot, by URI, in order (files without
/// findings too, so that their earlier diagnostics can be cleared).
pub(super) fn all_diagnostics(snapshot: &Snapshot, client: Client) -> Vec<(Uri, Vec<Diagnostic>)> {
    // By the URI's text: `Uri` keeps a parse cache, which makes it a poor key.
    let mut out: std::collections::BTreeMap<String, (Uri, Vec<Diagnostic>)> = Default::default();
    for part in &snapshot.parts {
        for source in &part.analysis.outcome.sources {
            if let Some(uri) = uri_of(Path::new(&source.name)) {
                out.entry(uri.as_str().to_string())
                    .or_insert_with(|| (uri, Vec::new()));
            }
        }
        for finding in &part.analysis.outcome.findings {
            let source = part.source(finding.primary.source);
            if let Some(uri) = uri_of(Path::new(&source.name)) {
                out.entry(uri.as_str().to_string())
                    .or_insert_with(|| (uri, Vec::new()))
                    .1
                    .push(diagnostic(part, finding, client));
            }
        }
    }
    for (source, errors) in &snapshot.configs {
        if let Some(uri) = uri_of(Path::new(&source.name)) {
            out.entry(uri.as_str().to_string())
                .or_insert_with(|| (uri, Vec::new()))
                .1
                .extend(config_diagnostics(source, errors, client));
        }
    }
    out.into_values().collect()
}

/// The mistakes of a configuration file, each at its line and column (the whole line from
/// there), as the command line names them.
fn config_diagnostics<'a>(
    source: &'a Source,
    errors: &'a [ConfigError],
    client: Client,
) -> impl Iterator<Item = Diagnostic> + 'a {
    errors.iter().map(move |error| {
        let span = if error.line >= 1 && error.line <= source.line_count() {
            let start = source.line_start(error.line - 1);
            let line = source.line_text(error.line - 1);
            let end = start + line.trim_end().len();
            let at = line
                .char_indices()
                .nth(error.column.saturating_sub(1))
                .map_or(line.len(), |(at, _)| at);
            Span::new((start + at).min(end), end)
        } else {
            Span::new(0, source.line_text(0).trim_end().len())
        };
        Diagnostic {
            range: range(source, span, client.encoding),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String("config".into())),
            code_description: None,
            source: Some("ownerlint".into()),
            message: format!(
                "{}\n\nhelp: until this is fixed, ownerlint checks with the default configuration",
                error.message
            ),
            related_information: None,
            tags: None,
            data: None,
        }
    })
}

/// The diagnostics of the file at `uri`: empty when no analysis lints it.
pub(super) fn diagnostics(snapshot: &Snapshot, uri: &Uri, client: Client) -> Vec<Diagnostic> {
    let Some(path) = path_of(uri) else {
        return Vec::new();
    };
    let mut out: Vec<Diagnostic> = snapshot
        .configs
        .iter()
        .filter(|(source, _)| Path::new(&source.name) == path)
        .flat_map(|(source, errors)| config_diagnostics(source, errors, client))
        .collect();
    if let Some((part, id)) = snapshot.find(&path) {
        out.extend(
            part.analysis
                .outcome
                .findings
                .iter()
                .filter(|f| f.primary.source == id)
                .map(|f| diagnostic(part, f, client)),
        );
    }
    out
}

fn diagnostic(part: &Part, finding: &Finding, client: Client) -> Diagnostic {
    let source = part.source(finding.primary.source);
    let mut message = finding.message.clone();
    if let Some(help) = &finding.help {
        message.push_str("\n\nhelp: ");
        message.push_str(help);
    }
    let related = client.related_information.then(|| {
        finding
            .related
            .iter()
            .filter_map(|label| {
                let source = part.source(label.source);
                Some(DiagnosticRelatedInformation {
                    location: Location {
                        uri: uri_of(Path::new(&source.name))?,
                        range: range(source, label.span, client.encoding),
                    },
                    message: label.message.clone(),
                })
            })
            .collect()
    });
    Diagnostic {
        range: range(source, finding.primary.span, client.encoding),
        severity: Some(match finding.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(finding.rule.id.to_string())),
        code_description: None,
        source: Some("ownerlint".into()),
        message,
        related_information: related,
        tags: None,
        data: None,
    }
}

/// The object and the owner reference at `position` of the file at `uri`.
struct At<'s> {
    part: &'s Part,
    object: ObjId,
    reference: Option<usize>,
}

fn at<'s>(
    snapshot: &'s Snapshot,
    uri: &Uri,
    position: lsp_types::Position,
    client: Client,
) -> Option<At<'s>> {
    let path = path_of(uri)?;
    if let Some((part, id)) = snapshot.find(&path) {
        let at = offset(part.source(id), position, client.encoding);
        if let Some(object) = part.object_at(id, at) {
            return Some(At {
                part,
                object,
                reference: part.reference_at(object, at),
            });
        }
    }
    // A template, a base file or a patch: the built object that came from there.
    snapshot.parts.iter().find_map(|part| {
        let source = part.built_file(&path)?;
        let at = offset(source, position, client.encoding);
        let (object, reference) = part.built_at(&path, at)?;
        Some(At {
            part,
            object,
            reference,
        })
    })
}

fn location(part: &Part, id: ObjId, client: Client) -> Option<Location> {
    let (source, span) = part.name_place(id);
    Some(Location {
        uri: uri_of(Path::new(&source.name))?,
        range: range(source, span, client.encoding),
    })
}

/// `path:line` of an object, for hover text.
fn place(part: &Part, id: ObjId) -> String {
    let (source, span) = part.name_place(id);
    let at = source.line_col(span.start);
    format!("{}:{}", source.name, at.line)
}

/// On an owner reference, the owner it resolves to (or why it resolves to none); elsewhere in
/// an object, its owners and dependents.
pub(super) fn hover(
    snapshot: &Snapshot,
    uri: &Uri,
    position: lsp_types::Position,
    client: Client,
) -> Option<Hover> {
    let At {
        part,
        object,
        reference,
    } = at(snapshot, uri, position, client)?;
    let analysis = &part.analysis;
    let mut text = String::new();
    let range;
    match reference {
        Some(index) => {
            let owner_ref = part.object(object).owner_refs().get(index)?;
            let (source, span) = part.reference_place(object, index)?;
            range = Some(super::position::range(source, span, client.encoding));
            let resolution = part.resolution(object, index)?;
            // What the findings on this reference say.
            let findings: Vec<&Finding> = analysis
                .outcome
                .findings
                .iter()
                .filter(|f| {
                    // In the file the reference is written in (a template, for a built one).
                    part.source(f.primary.source).name == source.name
                        && span.start <= f.primary.span.start
                        && f.primary.span.end <= span.end
                })
                .collect();
            match (resolution.owner(), resolution.unresolved()) {
                (Some(owner), None) => {
                    text.push_str(&format!("**Owner:** {}\n\n", analysis.display_name(owner)));
                    match &part.object(owner).uid {
                        Some(u) => text.push_str(&format!("uid `{}`\n\n", u.value)),
                        // A live owner without a uid was captured without one.
                        None => text.push_str("captured without a uid: not compared\n\n"),
                    }
                    text.push_str(&format!("defined at `{}`\n\n", place(part, owner)));
                }
                (Some(owner), Some(reason)) => {
                    // Named by kind and name, but the uid does not match: the garbage
                    // collector counts the owner as gone.
                    text.push_str(&format!(
                        "**Named, but not the owner:** {}\n\n",
                        analysis.display_name(owner)
                    ));
                    let named = owner_ref.uid_str().unwrap_or("?");
                    match (reason, &part.object(owner).uid) {
                        (Unresolved::FreshUid, _) => text.push_str(&format!(
                            "created by this input, so it gets a fresh uid, never `{named}`: the garbage collector counts the owner as gone\n\n"
                        )),
                        (_, Some(u)) => text.push_str(&format!(
                            "its uid `{}` is not the reference's `{named}`: owners are matched by uid, so the garbage collector counts the owner as gone\n\n",
                            u.value
                        )),
                        (_, None) => {}
                    }
                    text.push_str(&format!("defined at `{}`\n\n", place(part, owner)));
                }
                (None, _) => {
                    text.push_str(&format!(
                        "**Unresolved owner:** {}\n\n",
                        owner_ref.display()
                    ));
                    if findings.is_empty() {
                        text.push_str(resolution.resolution.why_no_object().unwrap_or(""));
                    }
                }
            }
            for finding in findings {
                text.push_str(&format!("- `{}`: {}\n", finding.rule.id, finding.message));
            }
        }
        None => {
            let (source, span) = part.name_place(object);
            range = Some(super::position::range(source, span, client.encoding));
            text.push_str(&format!("**{}**\n\n", analysis.display_name(object)));
            let (owners, named) = owners_of(part, object);
            // Dependents whose reference to this object matches its uid, and those whose
            // reference names it with another uid.
            let (dependents, naming): (Vec<ObjId>, Vec<ObjId>) = part
                .ownership
                .dependents(object)
                .iter()
                .partition(|&&d| owners_of(part, d).0.contains(&object));
            let list = |text: &mut String, ids: &[ObjId]| {
                for &id in ids {
                    text.push_str(&format!(
                        "- {} (`{}`)\n",
                        analysis.display_name(id),
                        place(part, id)
                    ));
                }
            };
            if owners.is_empty() {
                text.push_str("No owner in the input.\n");
            } else {
                text.push_str("Owners:\n");
                list(&mut text, &owners);
            }
            if !named.is_empty() {
                text.push_str("\nNamed by its references, but not owners (the uid does not match, so the garbage collector counts them as gone):\n");
                list(&mut text, &named);
            }
            if dependents.is_empty() {
                text.push_str("\nNo dependents in the input.\n");
            } else {
                text.push_str("\nDependents (deleted with it by the garbage collector unless another owner keeps them):\n");
                list(&mut text, &dependents);
            }
            if !naming.is_empty() {
                text.push_str("\nNaming it with another uid, so not its dependents (the garbage collector counts their owner as gone):\n");
                list(&mut text, &naming);
            }
        }
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: match client.markdown {
                true => MarkupKind::Markdown,
                false => MarkupKind::PlainText,
            },
            value: text.trim_end().to_string(),
        }),
        range,
    })
}

/// The owners object `id`'s references resolve to, each once: those whose uid matches (the
/// garbage collector's owners), and those named with another uid.
fn owners_of(part: &Part, id: ObjId) -> (Vec<ObjId>, Vec<ObjId>) {
    let (mut owners, mut named) = (Vec::new(), Vec::new());
    for r in part
        .analysis
        .resolutions
        .get(id.index())
        .into_iter()
        .flatten()
    {
        let Some(owner) = r.owner() else { continue };
        let list: &mut Vec<ObjId> = if r.is_solid() {
            &mut owners
        } else {
            &mut named
        };
        if !list.contains(&owner) {
            list.push(owner);
        }
    }
    (owners, named)
}

/// From an owner reference, the owner object.
pub(super) fn definition(
    snapshot: &Snapshot,
    uri: &Uri,
    position: lsp_types::Position,
    client: Client,
) -> Option<Location> {
    let at = at(snapshot, uri, position, client)?;
    let owner = at.part.resolution(at.object, at.reference?)?.owner()?;
    location(at.part, owner, client)
}

/// From an object, the owner references that name it (and its own name, when asked).
pub(super) fn references(
    snapshot: &Snapshot,
    uri: &Uri,
    position: lsp_types::Position,
    include_declaration: bool,
    client: Client,
) -> Vec<Location> {
    let Some(at) = at(snapshot, uri, position, client) else {
        return Vec::new();
    };
    let part = at.part;
    // On a reference: the references to its owner.
    let target = match at.reference {
        Some(index) => match part.resolution(at.object, index).and_then(|r| r.owner()) {
            Some(owner) => owner,
            None => return Vec::new(),
        },
        None => at.object,
    };
    let mut out = Vec::new();
    if include_declaration {
        out.extend(location(part, target, client));
    }
    for &dependent in part.ownership.dependents(target) {
        let object = part.object(dependent);
        for i in 0..object.owner_refs().len() {
            if part.resolution(dependent, i).and_then(|r| r.owner()) == Some(target)
                && let Some((source, span)) = part.reference_place(dependent, i)
                && let Some(uri) = uri_of(Path::new(&source.name))
            {
                out.push(Location {
                    uri,
                    range: range(source, span, client.encoding),
                });
            }
        }
    }
    out
}

/// The fixes of the findings in `range` of the file at `uri`, as quick fixes; only when the
/// analysis read the text the editor holds now (`current`), so that no edit lands on moved text.
pub(super) fn code_actions(
    snapshot: &Snapshot,
    uri: &Uri,
    wanted: Range,
    current: Option<&str>,
    client: Client,
) -> Vec<CodeActionOrCommand> {
    let Some(path) = path_of(uri) else {
        return Vec::new();
    };
    let Some((part, id)) = snapshot.find(&path) else {
        return Vec::new();
    };
    if let Some(current) = current
        && snapshot.texts.get(&path).map(String::as_str) != Some(current)
    {
        return Vec::new();
    }
    let source = part.source(id);
    let from = offset(source, wanted.start, client.encoding);
    let to = offset(source, wanted.end, client.encoding);
    let mut actions = Vec::new();
    for finding in &part.analysis.outcome.findings {
        let span = finding.primary.span;
        if finding.primary.source != id || span.end < from || to < span.start {
            continue;
        }
        let Some(fix) = &finding.fix else { continue };
        if fix.applicability == Applicability::DisplayOnly {
            continue;
        }
        let Some(edit) = workspace_edit(part, &fix.edits, client) else {
            continue;
        };
        let title = match fix.applicability {
            Applicability::Safe => format!("Fix: {}", fix.message),
            _ => format!("Fix (unsafe): {}", fix.message),
        };
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostic(part, finding, client)]),
            edit: Some(edit),
            command: None,
            is_preferred: Some(fix.applicability == Applicability::Safe),
            disabled: None,
            data: None,
        }));
    }
    actions
}

// `WorkspaceEdit::changes` is keyed by `Uri`, whose parse cache clippy takes for mutable state.
#[allow(clippy::mutable_key_type)]
fn workspace_edit(
    part: &Part,
    edits: &[crate::finding::Edit],
    client: Client,
) -> Option<WorkspaceEdit> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for edit in edits {
        let source = part.source(edit.source);
        changes
            .entry(uri_of(Path::new(&source.name))?)
            .or_default()
            .push(TextEdit {
                range: range(source, edit.span, client.encoding),
                new_text: edit.replacement.clone(),
            });
    }
    Some(WorkspaceEdit {
        changes: Some(changes),
        document_changes: None,
        change_annotations: None,
    })
}
