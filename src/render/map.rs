//! Findings in a built chart or overlay, taken back to the files people edit. A finding's
//! labels point into the built stream; each is moved to the file its object came from (the
//! template named by `# Source:`, or the file in kustomize's `config.kubernetes.io/origin`),
//! at the same field where that file writes it:
//!
//! - the object is found again in its file by kind and name (kustomize's `namePrefix` and
//!   `nameSuffix` make the built name longer: the file's name is the longest one inside it),
//!   and the field by its path from the document's root (`metadata.ownerReferences[0].uid`);
//! - a field that the file does not write was set by a patch: the overlay's patches are
//!   searched for the object and the field;
//! - a template line that reads as the built line, indentation aside, is that line;
//! - failing those, the nearest enclosing field the file writes, then the object, then the
//!   file's first line.
//!
//! The finding keeps the build in its origin (`kustomize build overlays/prod`), and loses its
//! fix: an edit to the built stream would change nothing on disk.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Origins, Rendered, Renders, Tool};
use crate::analysis::Outcome;
use crate::finding::Label;
use crate::source::{Source, SourceId, Span};
use crate::yaml::{self, Node, Value};

/// One step from a document's root to a field.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Where a label is in its document: the steps to it, and whether it is the key of the last.
struct FieldPath {
    steps: Vec<Step>,
    on_key: bool,
}

/// Move the labels of findings in built streams to the files their objects came from; then
/// suppression comments in those files apply to them. Returns how many such comments
/// suppressed a finding.
pub fn map_findings(outcome: &mut Outcome, renders: &Renders, suppress: bool) -> usize {
    if renders.built.is_empty() {
        return 0;
    }
    let built: HashMap<SourceId, &Rendered> = outcome
        .sources
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((SourceId(i as u32), renders.built.get(&s.name)?)))
        .collect();
    if built.is_empty() {
        return 0;
    }
    let mut mapper = Mapper {
        first_new: outcome.sources.len(),
        new_sources: Vec::new(),
        files: HashMap::new(),
        documents: HashMap::new(),
    };
    for finding in &mut outcome.findings {
        let mut build = None;
        for label in std::iter::once(&mut finding.primary).chain(finding.related.iter_mut()) {
            if let Some(rendered) = built.get(&label.source) {
                let source = &outcome.sources[label.source.0 as usize];
                mapper.map(label, source, rendered);
                build = Some(rendered.target.describe());
            }
        }
        if let Some(build) = build {
            finding.fix = None;
            finding.origin = Some(build);
        }
    }
    let new: Vec<SourceId> = (0..mapper.new_sources.len())
        .map(|i| SourceId((mapper.first_new + i) as u32))
        .collect();
    outcome.sources.extend(mapper.new_sources);
    if !suppress {
        return 0;
    }
    // Comments in a template or a base file suppress the findings taken back to them.
    let mut comments = Vec::new();
    for id in new {
        comments.extend(crate::suppress::from_comments(id, &outcome.sources[id.0 as usize]).0);
    }
    if comments.is_empty() {
        return 0;
    }
    crate::suppress::apply(
        &mut outcome.findings,
        &outcome.sources,
        comments,
        Vec::new(),
    )
    .suppressed
    .len()
}

struct Mapper {
    first_new: usize,
    new_sources: Vec<Source>,
    /// Each file read, by path, as the source it became (`None`: unreadable).
    files: HashMap<PathBuf, Option<SourceId>>,
    /// The documents of each source parsed so far, by where they start.
    documents: HashMap<SourceId, Vec<(Span, Option<Node>)>>,
}

impl Mapper {
    fn map(&mut self, label: &mut Label, stream: &Source, rendered: &Rendered) {
        let Some((document, comments)) = document_at(stream, label.span.start) else {
            return;
        };
        let path = field_path(&document, label.span);
        let kind = document.get("kind").and_then(Node::as_str).unwrap_or("");
        let name = document
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .unwrap_or("");
        let place = match rendered.target.tool {
            Tool::Helm => {
                let Some(origin) = comments.iter().find_map(|c| {
                    c.trim()
                        .strip_prefix("Source:")
                        .map(|s| s.trim().to_string())
                }) else {
                    return;
                };
                let file = rendered.origin_file(&origin);
                let Some(id) = self.file(&file) else {
                    return;
                };
                self.in_template(id, stream, label.span, kind, name, &path)
                    .map(|span| (id, span))
            }
            Tool::Kustomize => self.in_kustomize_origin(&document, rendered, kind, name, &path),
        };
        if let Some((source, span)) = place {
            label.source = source;
            label.span = span;
        }
    }

    /// The source for `file`, read the first time it is asked for.
    fn file(&mut self, file: &Path) -> Option<SourceId> {
        if let Some(id) = self.files.get(file) {
            return *id;
        }
        let id = std::fs::read_to_string(file).ok().map(|text| {
            let id = SourceId((self.first_new + self.new_sources.len()) as u32);
            self.new_sources
                .push(Source::new(crate::discover::display_path(file), text));
            id
        });
        self.files.insert(file.to_path_buf(), id);
        id
    }

    fn source(&self, id: SourceId) -> &Source {
        &self.new_sources[id.0 as usize - self.first_new]
    }

    /// The documents of `id` that parse, with their spans.
    fn documents(&mut self, id: SourceId) -> &[(Span, Option<Node>)] {
        if !self.documents.contains_key(&id) {
            let text = self.source(id).text.str(0..self.source(id).text.len());
            let parsed = match text {
                Ok(text) => yaml::split_documents(&text, 0)
                    .into_iter()
                    .map(|chunk| {
                        let root = yaml::parse_document(&text, chunk, yaml::Limits::default())
                            .ok()
                            .and_then(|d| d.root);
                        (chunk.span, root)
                    })
                    .collect(),
                Err(_) => Vec::new(),
            };
            self.documents.insert(id, parsed);
        }
        self.documents.get(&id).map_or(&[], Vec::as_slice)
    }

    /// In the file of an object kustomize built: by its origin annotation.
    fn in_kustomize_origin(
        &mut self,
        document: &Node,
        rendered: &Rendered,
        kind: &str,
        name: &str,
        path: &FieldPath,
    ) -> Option<(SourceId, Span)> {
        let origin = document
            .get("metadata")?
            .get("annotations")?
            .get("config.kubernetes.io/origin")?
            .as_str()?;
        let origin = parse_one(origin)?;
        if let Some(file) = origin.get("path").and_then(Node::as_str) {
            let id = self.file(&rendered.origin_file(file))?;
            let found = self.field_in(id, kind, name, path);
            if let Some((span, true)) = found {
                return Some((id, span));
            }
            // A field the file does not write came from a patch of the overlay.
            if let Some(found) = self.in_patches(rendered, kind, name, path) {
                return Some(found);
            }
            return Some((
                id,
                found.map_or_else(|| first_line(self.source(id)), |f| f.0),
            ));
        }
        // A generated object: the generator's entry in its kustomization.
        let file = origin.get("configuredIn")?.as_str()?;
        let id = self.file(&rendered.origin_file(file))?;
        let span = self.generator_entry(id, name);
        Some((id, span.unwrap_or_else(|| first_line(self.source(id)))))
    }

    /// The field at `path` of the object of `kind` whose name the built `name` holds, in
    /// `id`: its span and whether the whole path was found (else the nearest enclosing field
    /// the file writes, or the object's kind).
    fn field_in(
        &mut self,
        id: SourceId,
        kind: &str,
        name: &str,
        path: &FieldPath,
    ) -> Option<(Span, bool)> {
        let documents = self.documents(id);
        let object = documents
            .iter()
            .filter_map(|(_, root)| root.as_ref())
            .filter(|root| root.get("kind").and_then(Node::as_str) == Some(kind))
            .filter_map(|root| {
                let own = root.get("metadata")?.get("name")?.as_str()?;
                name.contains(own).then_some((own.len(), root))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, root)| root)?;
        Some(follow(object, path))
    }

    /// The field in one of the patches of the overlay that names the object.
    fn in_patches(
        &mut self,
        rendered: &Rendered,
        kind: &str,
        name: &str,
        path: &FieldPath,
    ) -> Option<(SourceId, Span)> {
        let Origins::Kustomize { .. } = rendered.origins else {
            return None;
        };
        let kustomization = self.file(&rendered.target.file)?;
        let dir = rendered.target.dir.clone();
        let patches: Vec<PathBuf> = self
            .documents(kustomization)
            .iter()
            .filter_map(|(_, root)| root.as_ref())
            .flat_map(|root| {
                let list = |key: &str| root.get(key).and_then(Node::as_seq).unwrap_or_default();
                let named = list("patchesStrategicMerge")
                    .iter()
                    .filter_map(Node::as_str)
                    .filter(|p| !p.contains('\n'))
                    .map(str::to_string)
                    .collect::<Vec<_>>();
                let with_path = list("patches")
                    .iter()
                    .chain(list("patchesJson6902"))
                    .filter_map(|p| p.get("path")?.as_str())
                    .map(str::to_string)
                    .collect::<Vec<_>>();
                named.into_iter().chain(with_path)
            })
            .map(|p| super::lexical(&dir.join(p)))
            .collect();
        for patch in patches {
            let Some(id) = self.file(&patch) else {
                continue;
            };
            if let Some((span, true)) = self.field_in(id, kind, name, path) {
                return Some((id, span));
            }
        }
        None
    }

    /// The `name` of the generator entry (`configMapGenerator`, `secretGenerator`) whose
    /// name the built name starts with after any prefix.
    fn generator_entry(&mut self, id: SourceId, name: &str) -> Option<Span> {
        self.documents(id)
            .iter()
            .filter_map(|(_, root)| root.as_ref())
            .flat_map(|root| {
                ["configMapGenerator", "secretGenerator"]
                    .into_iter()
                    .filter_map(|key| root.get(key)?.as_seq())
                    .flatten()
            })
            .filter_map(|entry| {
                let node = entry.get("name")?;
                let own = node.as_str()?;
                name.contains(own).then_some((own.len(), node.span))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, span)| span)
    }

    /// In a template: the one line that reads as the built line, indentation aside; else the
    /// field by its path, when the template parses as YAML; else the template's one line that
    /// writes the field's key; else its first line.
    fn in_template(
        &mut self,
        id: SourceId,
        stream: &Source,
        span: Span,
        kind: &str,
        name: &str,
        path: &FieldPath,
    ) -> Option<Span> {
        let template = self.source(id);
        let text = template.text.str(0..template.text.len()).ok()?.into_owned();
        if let Some(found) = same_line(&text, stream, span) {
            return Some(found);
        }
        if let Some((found, true)) = self.field_in(id, kind, name, path) {
            return Some(found);
        }
        let key = path.steps.iter().rev().find_map(|s| match s {
            Step::Key(k) => Some(k.as_str()),
            Step::Index(_) => None,
        });
        if let Some(key) = key {
            let prefix = format!("{key}:");
            let mut lines = line_spans(&text).filter(|(_, line)| {
                let t = line.trim_start().trim_start_matches("- ");
                t.starts_with(&prefix)
            });
            if let (Some((at, line)), None) = (lines.next(), lines.next()) {
                let indent = line.len() - line.trim_start().trim_start_matches("- ").len();
                return Some(Span::new(at + indent, at + line.len()));
            }
        }
        Some(first_line(self.source(id)))
    }
}

/// The document of `stream` that holds `at`: its root, and its comments' texts.
fn document_at(stream: &Source, at: usize) -> Option<(Node, Vec<String>)> {
    let text = stream.text.str(0..stream.text.len()).ok()?;
    let chunk = yaml::split_documents(&text, 0)
        .into_iter()
        .find(|c| c.span.start <= at && at < c.span.end.max(c.span.start + 1))?;
    let document = yaml::parse_document(&text, chunk, yaml::Limits::default()).ok()?;
    let comments = document.comments.iter().map(|c| c.text.clone()).collect();
    Some((document.root?, comments))
}

/// The steps from `root` to the innermost node that holds `span`.
fn field_path(root: &Node, span: Span) -> FieldPath {
    let holds = |node: &Node| node.span.start <= span.start && span.end <= node.span.end;
    let mut steps = Vec::new();
    let mut node = root;
    loop {
        match &node.value {
            Value::Map(entries) => {
                let Some((key, value)) = entries.iter().find(|(k, v)| holds(k) || holds(v)) else {
                    break;
                };
                steps.push(Step::Key(key.as_str().unwrap_or_default().to_string()));
                if holds(key) {
                    return FieldPath {
                        steps,
                        on_key: true,
                    };
                }
                node = value;
            }
            Value::Seq(items) => {
                let Some((i, item)) = items.iter().enumerate().find(|(_, item)| holds(item)) else {
                    break;
                };
                steps.push(Step::Index(i));
                node = item;
            }
            Value::Scalar(_) => break,
        }
    }
    FieldPath {
        steps,
        on_key: false,
    }
}

/// The node at `path` below `object` (its key, if the path ends on one), and whether the
/// whole path was there; else the deepest field on the way, or the object's kind.
fn follow(object: &Node, path: &FieldPath) -> (Span, bool) {
    let fallback = object
        .entry("kind")
        .map_or(object.span, |(key, _)| key.span);
    let mut node = object;
    let mut best = fallback;
    for (i, step) in path.steps.iter().enumerate() {
        let last = i + 1 == path.steps.len();
        match step {
            Step::Key(key) => {
                let Some((k, v)) = node.entry(key) else {
                    return (best, false);
                };
                if last && path.on_key {
                    return (k.span, true);
                }
                best = k.span;
                node = v;
            }
            Step::Index(index) => {
                let Some(item) = node.as_seq().and_then(|items| items.get(*index)) else {
                    return (best, false);
                };
                node = item;
                best = item.span;
            }
        }
    }
    (node.span, true)
}

/// The one line of `template` that reads as the built line `span` starts on (indentation
/// aside), with `span` moved there.
fn same_line(template: &str, stream: &Source, span: Span) -> Option<Span> {
    let line_index = stream.line_index(span.start);
    let line_start = stream.line_start(line_index);
    let rendered = stream.line_text(line_index).into_owned();
    let text = rendered.trim();
    if text.is_empty() {
        return None;
    }
    let mut found = line_spans(template).filter(|(_, line)| line.trim() == text);
    let (at, line) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let indent = |l: &str| l.len() - l.trim_start().len();
    let start = at + indent(line) + (span.start - line_start).checked_sub(indent(&rendered))?;
    let end = if span.end <= line_start + rendered.len() {
        start + span.len()
    } else {
        at + line.len()
    };
    Some(Span::new(start, end.min(at + line.len()).max(start)))
}

/// Each line of `text` with the offset it starts at, without its line end.
fn line_spans(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line.trim_end_matches(['\n', '\r']))
    })
}

/// The span of the first line of a file.
fn first_line(source: &Source) -> Span {
    let len = source
        .text
        .str(0..source.text.len().min(4096))
        .map_or(0, |t| t.find('\n').unwrap_or(t.len()));
    Span::new(0, len)
}

/// The one document of `text` (an annotation's YAML).
fn parse_one(text: &str) -> Option<Node> {
    let chunk = *yaml::split_documents(text, 0).first()?;
    yaml::parse_document(text, chunk, yaml::Limits::default())
        .ok()?
        .root
}
