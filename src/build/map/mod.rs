//! Findings in a built chart or overlay, taken back to the files people edit. A finding's
//! labels point into the built stream; each is moved to the file its object came from (the
//! template named by `# Source:`, or the file in kustomize's `config.kubernetes.io/origin`),
//! at the same field where that file writes it:
//!
//! - **kustomize**: the object is found again in its file by kind and name (`namePrefix` and
//!   `nameSuffix` make the built name longer: the file's name is the longest one inside it),
//!   and the field by its path from the document's root (`metadata.ownerReferences[0].uid`),
//!   when the file writes the value that was built. A field the file does not write, or writes
//!   with another value, was set by a patch: the patches of the overlay, of the overlays it
//!   builds on and of its components are searched for it. A generated object points at its
//!   generator's entry.
//! - **helm**: in the template's document that made the object (the n-th of its kind), the one
//!   line that reads as the built line, indentation aside; else the one line that writes the
//!   field's key, or the nearest enclosing key.
//! - Failing those, the nearest place known: the enclosing field, the object, the template's
//!   document, the file; the label then says that the line is approximate.
//!
//! This runs before suppression: the comments of the files findings are taken back to (and of
//! every file a build made its objects from) are read there, once; the built streams' own
//! copies of helm's template comments are not read. The finding remembers where it was in the
//! built stream, where the object's `ownerlint.dev/ignore` annotation is.
//!
//! The finding keeps the build in its origin (`kustomize build overlays/prod`), and loses its
//! fix: an edit to the built stream would change nothing on disk. Its message speaks of the
//! build and the files: a place it names in the built stream (`overlays/prod (rendered):7`,
//! where one of its labels was) is named where that label went (`base/hpa-v1.yaml:4`), and a
//! message a rule wrote to name the build ([`crate::finding::Finding::in_build`]) names it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::{Builds, Built, Origins, Tool};
use crate::analysis::{Places, Spot};
use crate::finding::{Finding, Label, TemplatePlace};
use crate::source::{Source, SourceId, Span};
use crate::yaml::{self, Node};

mod fields;
mod template_lines;

use fields::{FieldPath, Step, field_path, follow, item_names, mappings_like, scalars_keyed};
use template_lines::{
    RangeBuilt, counted_line, line_spans, range_item, same_line, template_document,
};

/// A place in a source file, and whether it is the field itself or only near it.
struct Place {
    source: SourceId,
    span: Span,
    exact: bool,
}

/// Findings of built streams being taken back to the files their objects came from, and the
/// files read for that (templates, resources, patches), as sources numbered after the run's.
pub struct Mapping<'r> {
    built: HashMap<SourceId, &'r Built>,
    mapper: Mapper<'r>,
    /// What each build that failed reads: nothing there was checked.
    failed: Vec<super::Consumed>,
}

impl<'r> Mapping<'r> {
    /// The mapping of the built streams among `sources`.
    pub fn new(sources: &[Source], builds: &'r Builds) -> Self {
        let built = match builds.built.is_empty() {
            true => HashMap::new(),
            false => built_streams(sources, builds),
        };
        Mapping {
            built,
            mapper: Mapper::new(builds, sources.len()),
            failed: builds
                .failures
                .iter()
                .map(|f| f.target.consumed(&builds.files))
                .collect(),
        }
    }

    /// Move the labels of `findings` that are in built streams to the files their objects
    /// came from. A finding so moved names its build, loses its fix (an edit to the built
    /// stream would change nothing on disk), and keeps where it was built.
    pub fn findings(&mut self, findings: &mut [Finding], sources: &[Source]) {
        if self.built.is_empty() {
            return;
        }
        for finding in findings {
            // The finding is of the build its own label is in (a related label may be in
            // another).
            let build = std::iter::once(&finding.primary)
                .chain(&finding.related)
                .find_map(|label| self.built.get(&label.source))
                .map(|built| built.target.command());
            if self.built.contains_key(&finding.primary.source) {
                finding.built_at = Some((finding.primary.source, finding.primary.span.start));
            }
            // Each place in a built stream that a label moved from, and where it went.
            let mut moved = Vec::new();
            let mut range_item = None;
            for (i, label) in std::iter::once(&mut finding.primary)
                .chain(finding.related.iter_mut())
                .enumerate()
            {
                if let Some(built) = self.built.get(&label.source) {
                    let stream = &sources[label.source.0 as usize];
                    let line = stream.line_col(label.span.start).line;
                    let from = format!("{}:{line}", stream.name);
                    let before = label.source;
                    self.mapper.map(label, stream, built);
                    if i == 0 {
                        range_item = self.mapper.range_item.take();
                    }
                    if label.source != before {
                        let file = self.mapper.source(label.source);
                        let line = file.line_col(label.span.start).line;
                        moved.push((from, format!("{}:{line}", file.name)));
                    }
                }
            }
            if let Some(build) = build {
                if let Some((before, after)) = finding.in_build.take() {
                    finding.message = format!("{before}`{build}`{after}");
                }
                finding.message = at_the_files(&finding.message, &moved);
                // One line of a `range` renders each item: which one this is.
                if let Some(item) = range_item {
                    finding.message = format!("{} ({item})", finding.message);
                }
                finding.fix = None;
                finding.origin = Some(build);
            }
        }
    }

    /// Read the files each build made its objects from (a chart's templates named by
    /// `# Source:`, an overlay's resources, generators and patches), so that their suppression
    /// comments are seen where nothing was found too.
    pub fn read_files_built_from(&mut self, sources: &[Source]) {
        let mut ids: Vec<SourceId> = self.built.keys().copied().collect();
        ids.sort();
        for id in ids {
            let built = self.built[&id];
            let documents = self
                .mapper
                .streams
                .entry(id)
                .or_insert_with(|| stream_documents(&sources[id.0 as usize]));
            let mut files: Vec<PathBuf> = documents
                .iter()
                .filter_map(|document| match built.target.tool {
                    Tool::Helm => Some(built.origin_file(document.template.as_deref()?)),
                    Tool::Kustomize => {
                        let origin = kustomize_origin(document.root.as_ref()?)?;
                        let file = ["path", "configuredIn"]
                            .into_iter()
                            .find_map(|key| origin.get(key)?.as_str().map(str::to_string))?;
                        Some(built.origin_file(&file))
                    }
                })
                .collect();
            if built.target.tool == Tool::Kustomize {
                files.extend(self.mapper.patch_files(&built.target.dir));
            }
            for file in files {
                self.mapper.file(&file);
            }
        }
    }

    /// The files read, with their ids.
    pub fn files(&self) -> impl Iterator<Item = (SourceId, &Source)> {
        let first = self.mapper.first_new;
        (self.mapper.new_sources.iter().enumerate())
            .map(move |(i, s)| (SourceId((first + i) as u32), s))
    }

    /// Whether `id` is a file read here that a build which failed reads too: nothing in it
    /// was checked through that build.
    pub fn read_by_a_failed_build(&self, id: SourceId) -> bool {
        let Some(i) = (id.0 as usize).checked_sub(self.mapper.first_new) else {
            return false;
        };
        let Some(file) = self.mapper.new_sources.get(i) else {
            return false;
        };
        let path = super::lexical(Path::new(&file.name));
        self.failed.iter().any(|c| c.contains_lexical(&path))
    }

    /// The files read, to be added to the run's sources.
    pub fn into_files(self) -> Vec<Source> {
        self.mapper.new_sources
    }
}

/// The built streams among `sources`, by id.
fn built_streams<'r>(sources: &[Source], builds: &'r Builds) -> HashMap<SourceId, &'r Built> {
    sources
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((SourceId(i as u32), builds.built.get(&s.name)?)))
        .collect()
}

/// The `config.kubernetes.io/origin` annotation of a built object, read as YAML.
fn kustomize_origin(root: &Node) -> Option<Node> {
    let origin = root
        .get("metadata")?
        .get("annotations")?
        .get("config.kubernetes.io/origin")?
        .as_str()?;
    yaml::roots(origin).into_iter().next()
}

/// Give each finding of a `helm template` stream read from standard input its place in the
/// template it was rendered from: the stream's `# Source:` comment names the template
/// relative to the chart's parent (`shop/templates/deployment.yaml`), the file is looked for
/// below the repository root (or the working directory), the shortest path when several end
/// so, and the finding's line is looked for in it by its text. The finding stays in the
/// stream: its comments and annotations suppress it there.
pub fn place_in_templates(findings: &mut [Finding], sources: &[Source]) {
    let mut templates: HashMap<String, Option<Source>> = HashMap::new();
    let mut root = None;
    for finding in findings {
        // A finding taken back from a build is in a file of its own already.
        let Some(stream) = sources.get(finding.primary.source.0 as usize) else {
            continue;
        };
        let (Some(origin), true) = (&finding.origin, stream.name == crate::read::STDIN_NAME) else {
            continue;
        };
        let root = root.get_or_insert_with(|| {
            let cwd = std::env::current_dir().ok();
            cwd.as_deref()
                .and_then(crate::read::repository_root)
                .or(cwd)
                .unwrap_or_else(|| PathBuf::from("."))
        });
        let template = templates
            .entry(origin.clone())
            .or_insert_with(|| read_template(origin, root));
        let span = finding.primary.span;
        let line = stream.line_col(span.start).line;
        let first = crate::source::LineCol { line: 1, column: 1 };
        let Some(template) = template else {
            finding.in_template = Some(TemplatePlace {
                path: origin.clone(),
                start: first,
                end: first,
                rendered_line: Some(line),
            });
            continue;
        };
        let text = template
            .text
            .str(0..template.text.len())
            .map(|t| t.into_owned())
            .unwrap_or_default();
        let whole = Span::new(0, text.len());
        finding.in_template = Some(match same_line(&text, whole, stream, span) {
            Some(found) => TemplatePlace {
                path: template.name.clone(),
                start: template.line_col(found.start),
                end: template.line_col(found.end),
                rendered_line: None,
            },
            None => TemplatePlace {
                path: template.name.clone(),
                start: first,
                end: first,
                rendered_line: Some(line),
            },
        });
    }
}

/// The file below `root` whose path ends with `origin` (the shortest when several do), read.
fn read_template(origin: &str, root: &Path) -> Option<Source> {
    let wanted = Path::new(origin);
    let mut files = Vec::new();
    // An ignore file that is not a small regular file is left unread, as in the walk of the
    // inputs (which said so already).
    crate::read::walk_entries(
        root,
        false,
        None,
        &mut |entry| {
            if let Ok(entry) = entry
                && entry.file_type().is_some_and(|t| t.is_file())
                && entry.path().ends_with(wanted)
            {
                files.push(entry.into_path());
            }
        },
        &mut Vec::new(),
    );
    let file = files
        .into_iter()
        .min_by_key(|path| path.components().count())?;
    let text = crate::read::small_file(&file).ok()?;
    Some(Source::new(file.to_string_lossy().into_owned(), text))
}

/// The [`Places`] of the objects of the built streams among `sources`.
pub fn place_objects(
    sources: &[Source],
    builds: &Builds,
    objects: &[crate::model::Object],
) -> Places {
    let built = built_streams(sources, builds);
    if built.is_empty() {
        return Places::default();
    }
    let mut mapper = Mapper::new(builds, sources.len());
    let mut spots = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        let Some(built) = built.get(&object.source) else {
            continue;
        };
        let stream = &sources[object.source.0 as usize];
        let id = crate::index::ObjId(i as u32);
        let asked = [
            (object.extent, None, false),
            (object.name_span(), None, true),
        ]
        .into_iter()
        .chain(
            object
                .owner_refs()
                .iter()
                .enumerate()
                .map(|(r, owner_ref)| (owner_ref.span, Some(r), false)),
        );
        for (span, reference, name) in asked {
            let mut label = Label::new(object.source, span, "");
            mapper.map(&mut label, stream, built);
            if label.source == object.source {
                continue;
            }
            let file = label.source.0 as usize - mapper.first_new;
            let source = &mapper.new_sources[file];
            let span = match (reference, name) {
                // The object: its whole document in the file.
                (None, false) => document_around(source, label.span),
                // A reference: its whole entry in the list (taken back to its first line).
                (Some(_), _) if !label.approximate => entry_around(source, label.span),
                _ => label.span,
            };
            spots.push(Spot {
                file,
                span,
                object: id,
                reference,
                name,
                exact: !label.approximate,
            });
        }
    }
    Places {
        files: mapper.new_sources,
        spots,
    }
}

/// The document of `source` that holds `span`'s start.
fn document_around(source: &Source, span: Span) -> Span {
    let Ok(text) = source.text.str(0..source.text.len()) else {
        return span;
    };
    yaml::split_documents(&text, 0)
        .into_iter()
        .map(|chunk| chunk.span)
        .find(|d| d.start <= span.start && span.start < d.end.max(d.start + 1))
        .unwrap_or(span)
}

/// The list entry (`- …` and the lines indented below its dash) whose first line holds
/// `span`'s start; `span` when that line is no list entry.
fn entry_around(source: &Source, span: Span) -> Span {
    let first = source.line_index(span.start);
    let line = source.line_text(first);
    let Some(dash) = line.find("- ") else {
        return span;
    };
    if !line[..dash].chars().all(|c| c == ' ') {
        return span;
    }
    let mut end = source.line_start(first) + line.trim_end().len();
    for next in first + 1..source.line_count() {
        let text = source.line_text(next);
        let indent = text.len() - text.trim_start_matches(' ').len();
        if text.trim().is_empty() {
            continue;
        }
        if indent <= dash {
            break;
        }
        end = source.line_start(next) + text.trim_end().len();
    }
    Span::new(source.line_start(first) + dash, end.max(span.end))
}

/// `message` of a finding in a build, with each place of the built stream it names
/// (`path:line`, as `moved` has it) at the file and line its label went to.
fn at_the_files(message: &str, moved: &[(String, String)]) -> String {
    let mut message = message.to_string();
    for (from, to) in moved {
        let mut out = String::with_capacity(message.len());
        let mut rest = message.as_str();
        while let Some(at) = rest.find(from.as_str()) {
            let end = at + from.len();
            // `stream:7` is not the start of `stream:70`.
            let whole = !rest[end..].starts_with(|c: char| c.is_ascii_digit());
            out.push_str(&rest[..at]);
            out.push_str(if whole { to } else { from });
            rest = &rest[end..];
        }
        out.push_str(rest);
        message = out;
    }
    message
}

struct Mapper<'r> {
    /// What the builds read files as.
    texts: &'r Builds,
    first_new: usize,
    new_sources: Vec<Source>,
    /// Each file read, by path, as the source it became (`None`: unreadable).
    files: HashMap<PathBuf, Option<SourceId>>,
    /// The documents of each source read so far: their spans and roots (`None`: not YAML).
    documents: HashMap<SourceId, Vec<(Span, Option<Node>)>>,
    /// The documents of each built stream, read once whatever number of labels it has.
    streams: HashMap<SourceId, Vec<StreamDocument>>,
    /// Which item of a template's `range` rendered the place the last label was taken to,
    /// in words, when it is in one that rendered several.
    range_item: Option<String>,
}

/// A document of a built stream.
struct StreamDocument {
    span: Span,
    root: Option<Node>,
    /// The template it came from (`# Source:`, helm only).
    template: Option<String>,
}

impl StreamDocument {
    fn kind(&self) -> Option<&str> {
        self.root.as_ref()?.get("kind")?.as_str()
    }
}

/// The documents of a built stream.
fn stream_documents(stream: &Source) -> Vec<StreamDocument> {
    let Ok(text) = stream.text.str(0..stream.text.len()) else {
        return Vec::new();
    };
    yaml::split_documents(&text, 0)
        .into_iter()
        .map(|chunk| {
            let document = yaml::parse_document(&text, chunk, yaml::Limits::default()).ok();
            let template = document.as_ref().and_then(|d| {
                d.comments.iter().find_map(|c| {
                    let origin = c.text.trim().strip_prefix("Source:")?;
                    Some(origin.trim().to_string())
                })
            });
            StreamDocument {
                span: chunk.span,
                root: document.and_then(|d| d.root),
                template,
            }
        })
        .collect()
}

impl<'r> Mapper<'r> {
    fn new(texts: &'r Builds, first_new: usize) -> Self {
        Mapper {
            texts,
            first_new,
            new_sources: Vec::new(),
            files: HashMap::new(),
            documents: HashMap::new(),
            streams: HashMap::new(),
            range_item: None,
        }
    }

    fn map(&mut self, label: &mut Label, stream: &Source, built: &Built) {
        self.range_item = None;
        let place = self
            .place(label.source, label.span, stream, built)
            .or_else(|| {
                // Nothing better: the chart's `Chart.yaml` or the kustomization file.
                let id = self.file(&built.target.file)?;
                Some(Place {
                    source: id,
                    span: first_line(self.source(id)),
                    exact: false,
                })
            });
        let Some(place) = place else {
            return;
        };
        label.source = place.source;
        label.span = place.span;
        if !place.exact {
            label.approximate = true;
            label.message = format!(
                "{} (in the build: the nearest place its source writes)",
                label.message
            );
        }
    }

    fn place(&mut self, id: SourceId, span: Span, stream: &Source, built: &Built) -> Option<Place> {
        let documents = self
            .streams
            .entry(id)
            .or_insert_with(|| stream_documents(stream));
        let index = documents.iter().position(|d| {
            d.span.start <= span.start && span.start < d.span.end.max(d.span.start + 1)
        })?;
        let document = &documents[index];
        let root = document.root.clone()?;
        let template = document.template.clone();
        // The how-manieth object of its kind from its template it is (helm).
        let nth = documents[..index]
            .iter()
            .filter(|d| d.template == template && d.kind() == document.kind())
            .count();
        // The documents its template made (helm), and where the first starts.
        let made: Vec<Span> = documents
            .iter()
            .filter(|d| d.template == template)
            .map(|d| d.span)
            .collect();
        let from = made.first().map_or(document.span.start, |d| d.start);
        let document_span = document.span;
        let path = field_path(&root, span);
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        let name = root
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .unwrap_or("");
        match built.target.tool {
            Tool::Helm => {
                let file = self.file(&built.origin_file(&template?))?;
                let place =
                    self.in_template(file, stream, (document_span, span), kind, nth, &path)?;
                let built = RangeBuilt {
                    stream,
                    before: Span::new(from, span.start),
                    all: made,
                    names: item_names(&root, &path),
                };
                self.range_item = range_item(&self.text(file), place.span, &built)
                    .map(|item| item.describe(&self.source(file).name));
                Some(place)
            }
            Tool::Kustomize => self.in_kustomize_origin(&root, built, kind, name, &path),
        }
    }

    /// The source for `file`, read the first time it is asked for.
    fn file(&mut self, file: &Path) -> Option<SourceId> {
        if let Some(id) = self.files.get(file) {
            return *id;
        }
        let id = self.texts.read(file).map(|text| {
            let id = SourceId((self.first_new + self.new_sources.len()) as u32);
            self.new_sources
                .push(Source::new(crate::read::display_path(file), text));
            id
        });
        self.files.insert(file.to_path_buf(), id);
        id
    }

    fn source(&self, id: SourceId) -> &Source {
        &self.new_sources[id.0 as usize - self.first_new]
    }

    /// The text of source `id`.
    fn text(&self, id: SourceId) -> String {
        let source = self.source(id);
        source
            .text
            .str(0..source.text.len())
            .map(|t| t.into_owned())
            .unwrap_or_default()
    }

    /// The documents of `id`, with their spans and roots where they parse.
    fn documents(&mut self, id: SourceId) -> &[(Span, Option<Node>)] {
        if !self.documents.contains_key(&id) {
            let text = self.text(id);
            let parsed = yaml::split_documents(&text, 0)
                .into_iter()
                .map(|chunk| {
                    let root = yaml::parse_document(&text, chunk, yaml::Limits::default())
                        .ok()
                        .and_then(|d| d.root);
                    (chunk.span, root)
                })
                .collect();
            self.documents.insert(id, parsed);
        }
        self.documents.get(&id).map_or(&[], Vec::as_slice)
    }

    /// In the file of an object kustomize built: by its origin annotation.
    fn in_kustomize_origin(
        &mut self,
        root: &Node,
        built: &Built,
        kind: &str,
        name: &str,
        path: &FieldPath,
    ) -> Option<Place> {
        let origin = kustomize_origin(root)?;
        if let Some(file) = origin.get("path").and_then(Node::as_str) {
            let id = self.file(&built.origin_file(file))?;
            let found = self.field_in(id, kind, name, path);
            if let Some((span, true)) = found {
                return Some(Place {
                    source: id,
                    span,
                    exact: true,
                });
            }
            // A field the file does not write, or writes otherwise, came from a patch.
            if let Some(place) = self.in_patches(built, kind, name, path) {
                return Some(place);
            }
            let span = found.map_or_else(|| first_line(self.source(id)), |(span, _)| span);
            return Some(Place {
                source: id,
                span,
                exact: false,
            });
        }
        // A generated object: the generator's entry in its kustomization.
        let file = origin.get("configuredIn")?.as_str()?;
        let id = self.file(&built.origin_file(file))?;
        let span = self.generator_entry(id, name);
        Some(Place {
            source: id,
            exact: span.is_some(),
            span: span.unwrap_or_else(|| first_line(self.source(id))),
        })
    }

    /// The field at `path` of the object of `kind` whose name the built `name` holds, in
    /// `id`: its span, and whether it is the field as built (the whole path there, with the
    /// value built); else the nearest enclosing field the file writes, or the object's kind.
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
                (!own.is_empty() && name.contains(own)).then_some((own.len(), root))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, root)| root)?;
        Some(follow(object, path))
    }

    /// The field in a patch of the overlay, of an overlay it builds on, or of a component:
    /// where the patch names the object and writes the field with its built value; else the
    /// one place in a patch that writes the field's key with that value (JSON 6902 patches,
    /// which name objects by target, not in their text).
    fn in_patches(
        &mut self,
        built: &Built,
        kind: &str,
        name: &str,
        path: &FieldPath,
    ) -> Option<Place> {
        let Origins::Kustomize { .. } = built.origins else {
            return None;
        };
        let patches = self.patch_files(&built.target.dir);
        let mut loose = Vec::new();
        for patch in patches {
            let Some(id) = self.file(&patch) else {
                continue;
            };
            if let Some((span, true)) = self.field_in(id, kind, name, path) {
                return Some(Place {
                    source: id,
                    span,
                    exact: true,
                });
            }
            for (_, root) in self.documents(id) {
                let Some(root) = root else { continue };
                match (path.last_key(), &path.value) {
                    (Some(key), Some(value)) => {
                        scalars_keyed(root, key, value, &path.siblings, &mut |span| {
                            loose.push((id, span))
                        });
                    }
                    // An entry a patch adds whole (`op: add`, `value: {…}`).
                    _ if !path.fields.is_empty() => {
                        mappings_like(root, &path.fields, &mut |span| loose.push((id, span)));
                    }
                    _ => {}
                }
            }
        }
        match loose.as_slice() {
            [(id, span)] => Some(Place {
                source: *id,
                span: *span,
                exact: true,
            }),
            _ => None,
        }
    }

    /// The patch files of the kustomization in `dir` and of those it builds on (`resources`,
    /// `bases`, `components` that are folders), each once.
    fn patch_files(&mut self, dir: &Path) -> Vec<PathBuf> {
        let mut patches = Vec::new();
        let mut queue = vec![dir.to_path_buf()];
        let mut seen = HashSet::new();
        while let Some(dir) = queue.pop() {
            if !seen.insert(std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone())) {
                continue;
            }
            let Some(file) = super::KUSTOMIZATION_FILES
                .iter()
                .map(|name| dir.join(name))
                .find(|file| file.is_file())
            else {
                continue;
            };
            let Some(id) = self.file(&file) else {
                continue;
            };
            for (_, root) in self.documents(id) {
                let Some(root) = root else { continue };
                for patch in super::kustomization_patches(root) {
                    patches.push(super::lexical(&dir.join(patch)));
                }
                for entry in super::kustomization_builds_on(root) {
                    let base = dir.join(entry);
                    if base.is_dir() {
                        queue.push(base);
                    }
                }
            }
        }
        patches
    }

    /// The `name` of the generator entry (`configMapGenerator`, `secretGenerator`) whose
    /// name the built name holds.
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
                (!own.is_empty() && name.contains(own)).then_some((own.len(), node.span))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, span)| span)
    }

    /// In a template, within the document that made the object (the `nth` of its `kind`,
    /// when the template's documents can be told apart by their `kind:` lines): the one line
    /// that reads as the built line, indentation aside; else the field by its path, when the
    /// template parses as YAML; else the one line that writes the field's key, or the nearest
    /// enclosing key; else the document's first line.
    fn in_template(
        &mut self,
        id: SourceId,
        stream: &Source,
        (document, span): (Span, Span),
        kind: &str,
        nth: usize,
        path: &FieldPath,
    ) -> Option<Place> {
        let text = self.text(id);
        let region = template_document(&text, kind, nth);
        let exact = |span| Place {
            source: id,
            span,
            exact: true,
        };
        if let Some(found) = same_line(&text, region, stream, span)
            .or_else(|| counted_line(&text, region, stream, document, span))
        {
            return Some(exact(found));
        }
        if let Some((found, true)) = self.field_in_region(id, region, kind, path) {
            return Some(exact(found));
        }
        let keys: Vec<&str> = path
            .steps
            .iter()
            .rev()
            .filter_map(|s| match s {
                Step::Key(k) => Some(k.as_str()),
                Step::Index(_) => None,
            })
            .collect();
        for (i, key) in keys.iter().enumerate() {
            let prefix = format!("{key}:");
            let mut lines = line_spans(&text)
                .filter(|(at, _)| region.start <= *at && *at < region.end)
                .filter(|(_, line)| {
                    line.trim_start()
                        .trim_start_matches("- ")
                        .starts_with(&prefix)
                });
            if let (Some((at, line)), None) = (lines.next(), lines.next()) {
                let indent = line.len() - line.trim_start().trim_start_matches("- ").len();
                return Some(Place {
                    source: id,
                    span: Span::new(at + indent, at + line.len()),
                    exact: i == 0,
                });
            }
        }
        let first = line_spans(&text)
            .find(|(at, line)| {
                *at >= region.start && !line.trim().is_empty() && !line.starts_with("---")
            })
            .map_or(Span::new(region.start, region.start), |(at, line)| {
                Span::new(at, at + line.len())
            });
        Some(Place {
            source: id,
            span: first,
            exact: false,
        })
    }

    /// [`Mapper::field_in`] for a template: the object of `kind` in the template's document
    /// that `region` spans, when it parses as YAML.
    fn field_in_region(
        &mut self,
        id: SourceId,
        region: Span,
        kind: &str,
        path: &FieldPath,
    ) -> Option<(Span, bool)> {
        self.documents(id)
            .iter()
            .filter(|(span, _)| {
                span.start < region.end && region.start < span.end.max(span.start + 1)
            })
            .filter_map(|(_, root)| root.as_ref())
            .find(|root| root.get("kind").and_then(Node::as_str) == Some(kind))
            .map(|root| follow(root, path))
    }
}

/// The span of the first line of a file.
fn first_line(source: &Source) -> Span {
    let len = source
        .text
        .str(0..source.text.len().min(4096))
        .map_or(0, |t| t.find('\n').unwrap_or(t.len()));
    Span::new(0, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_names_the_files_its_labels_went_to() {
        let moved = [(
            "overlays/prod (built):7".to_string(),
            "base/hpa-v1.yaml:4".to_string(),
        )];
        assert_eq!(
            at_the_files("first in overlays/prod (built):7: …", &moved),
            "first in base/hpa-v1.yaml:4: …"
        );
        // Line 7 is not line 70; a message without either is left as it is.
        assert_eq!(
            at_the_files("at overlays/prod (built):70", &moved),
            "at overlays/prod (built):70"
        );
        assert_eq!(at_the_files("plain", &moved), "plain");
    }
}
