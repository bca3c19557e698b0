//! ownerlint finds broken Kubernetes ownership (`metadata.ownerReferences`) in manifests and
//! cluster dumps before it reaches a cluster.
//!
//! The pipeline has one module per stage:
//! [`discover`] → [`load`] → [`index`] (with [`catalog`] and [`resolve`]) → [`rules`] → [`report`].

// `print!` and `eprintln!` panic when the other end of the pipe is gone (`| head`); output goes
// through writers whose errors are handled.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod baseline;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod controllers;
pub mod discover;
pub mod fields;
pub mod finding;
pub mod graph;
pub mod index;
pub mod load;
pub mod model;
pub mod policy;
pub mod preview;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod selector;
pub mod source;
pub mod suppress;
pub mod tree;
pub mod yaml;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use catalog::{Catalog, KubeVersion};
use discover::{Filter, Input, InputError};
use finding::{Finding, Severity};
use load::{LoadOptions, ModeChoice};
use model::Object;
use rayon::prelude::*;
use source::{Source, SourceId};

/// Everything that decides what a run checks and concludes.
#[derive(Clone, Debug)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// The namespace of namespaced objects that name none (`kubectl -n`).
    pub namespace: String,
    pub mode: ModeChoice,
    pub complete: bool,
    pub kube_version: Option<KubeVersion>,
    pub crds: Vec<PathBuf>,
    pub context: Vec<PathBuf>,
    /// The rest of the project: indexed, so owners defined there resolve, but not reported on
    /// (pre-commit passes only the changed files).
    pub project: Vec<PathBuf>,
    pub limits: yaml::Limits,
    /// Rule levels from the configuration: `off`, or a severity that replaces the rule's own.
    pub levels: Vec<(String, config::Level)>,
    /// Kinds and scopes that no CRD in the input declares.
    pub kinds: Vec<config::ExtraKind>,
    /// Ownership policies, from the configuration and the packs it selects.
    pub policies: policy::Policies,
    /// Ignore suppression comments and annotations: show every finding.
    pub no_suppress: bool,
    /// Parse every document whole, without the fast path's filter (the findings are the same;
    /// this is for comparing the two).
    pub full_parse: bool,
    /// Files at least this big are read a slice at a time, as each pass needs them, instead of
    /// into memory whole (`None`: never).
    pub big_file_at_least: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            paths: vec![PathBuf::from(".")],
            include: Vec::new(),
            exclude: Vec::new(),
            namespace: "default".to_string(),
            mode: ModeChoice::Auto,
            complete: false,
            kube_version: None,
            crds: Vec::new(),
            context: Vec::new(),
            project: Vec::new(),
            limits: yaml::Limits::default(),
            levels: Vec::new(),
            kinds: Vec::new(),
            policies: policy::Policies::default(),
            no_suppress: false,
            full_parse: false,
            big_file_at_least: Some(BIG_FILE),
        }
    }
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    pub skipped_documents: usize,
    /// Test assertion files found and not linted (kuttl, chainsaw).
    pub assertion_files: usize,
    /// Kustomize patch files found and not linted.
    pub patch_files: usize,
    /// Findings hidden because a baseline records them.
    pub baselined: usize,
    #[serde(skip)]
    pub elapsed: Duration,
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct Outcome {
    pub sources: Vec<Source>,
    /// Sorted by path, line and column.
    pub findings: Vec<Finding>,
    /// Inputs that could not be read: the run exits with 2.
    pub errors: Vec<InputError>,
    pub stats: Stats,
}

impl Outcome {
    pub fn source(&self, id: SourceId) -> &Source {
        &self.sources[id.0 as usize]
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// The role an input plays in a run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Lint,
    Crds,
    Context,
    /// Manifests of the project beside the linted files: objects as in a lint, not reported.
    Project,
}

/// Everything a run learned: the findings, and the objects with their index and resolved
/// references (for `tree` and `delete-preview`).
pub struct Analysis {
    pub outcome: Outcome,
    pub objects: Vec<Object>,
    pub index: index::Index,
    pub catalog: Catalog,
    /// `resolutions[object][reference]`
    pub resolutions: Vec<Vec<resolve::RefResolution>>,
    /// The input is the whole cluster or release (`--complete`).
    pub complete: bool,
}

impl Analysis {
    /// "Deployment shop/api": an object as messages and drawings name it.
    pub fn describe(&self, id: index::ObjId) -> String {
        self.objects[id.index()].describe(self.index.facts(id).namespace.as_deref())
    }
}

/// Lint the paths in `options`; `stdin` is read when a path is `-`.
pub fn lint(options: &Options, stdin: &mut dyn std::io::Read) -> Outcome {
    analyze(options, stdin).outcome
}

/// Read, index, resolve and check the paths in `options`.
pub fn analyze(options: &Options, stdin: &mut dyn std::io::Read) -> Analysis {
    let started = Instant::now();
    let mut errors = Vec::new();
    let filter = match Filter::new(&options.include, &options.exclude) {
        Ok(filter) => filter,
        Err(err) => {
            errors.push(InputError {
                path: "--include/--exclude".into(),
                message: err.to_string(),
            });
            return Analysis {
                outcome: Outcome {
                    errors,
                    ..Outcome::default()
                },
                objects: Vec::new(),
                index: index::Index::default(),
                catalog: Catalog::builtin(),
                resolutions: Vec::new(),
                complete: options.complete,
            };
        }
    };
    let mut inputs: Vec<(Input, Role)> = Vec::new();
    let mut assertion_files = 0;
    let mut patch_files = 0;
    for (paths, role) in [
        (&options.paths, Role::Lint),
        (&options.crds, Role::Crds),
        (&options.context, Role::Context),
        (&options.project, Role::Project),
    ] {
        let found = discover::discover(paths, &filter);
        if role == Role::Lint {
            assertion_files += found.assertions.len();
            patch_files += found.patches.len();
        }
        errors.extend(found.errors);
        inputs.extend(found.inputs.into_iter().map(|i| (i, role)));
    }
    // Each file is asked for its metadata once, in parallel (a monorepo has thousands): it
    // tells the names of one file apart, and how to read it.
    let metadata: Vec<Option<Metadata>> = inputs
        .par_iter()
        .map(|(input, _)| match input {
            Input::File(path) => Some(std::fs::metadata(path)),
            Input::Stdin => None,
        })
        .collect();
    // A file named twice (or named and also found by a walk, or through a link) is read once,
    // in its first role: linted files are not read again as part of the project.
    let mut seen = std::collections::HashSet::new();
    let inputs: Vec<((Input, Role), Option<Metadata>)> = inputs
        .into_iter()
        .zip(metadata)
        .filter(|((input, _), metadata)| match (input, metadata) {
            (Input::File(path), Some(Ok(metadata))) => {
                file_id(path, metadata).is_none_or(|id| seen.insert(id))
            }
            _ => true,
        })
        .collect();
    // Files are read in parallel; standard input on this thread.
    let read_all: Vec<Result<Content, String>> = inputs
        .par_iter()
        .map(|((input, _), metadata)| match (input, metadata) {
            (Input::File(path), Some(metadata)) => {
                read_file(path, metadata, options.big_file_at_least)
            }
            _ => Ok(Content::Bytes(Vec::new())),
        })
        .collect();
    let mut texts = Vec::new();
    for (((input, role), _), result) in inputs.into_iter().zip(read_all) {
        let result = match input {
            Input::Stdin => read_stdin(stdin),
            Input::File(_) => result,
        };
        match result {
            Ok(content) => texts.push((input.display_name(), content, role)),
            Err(message) => errors.push(InputError {
                path: input.display_name(),
                message,
            }),
        }
    }
    let mut analysis = check(texts, options);
    analysis.outcome.errors.extend(errors);
    analysis.outcome.stats.assertion_files = assertion_files;
    analysis.outcome.stats.patch_files = patch_files;
    analysis.outcome.stats.elapsed = started.elapsed();
    analysis
}

/// Lint in-memory inputs, named as they should be reported (used by tests and tools).
pub fn lint_texts(inputs: Vec<(String, String)>, options: &Options) -> Outcome {
    analyze_texts(inputs, options).outcome
}

/// Analyze in-memory inputs, named as they should be reported.
pub fn analyze_texts(inputs: Vec<(String, String)>, options: &Options) -> Analysis {
    check(
        inputs
            .into_iter()
            .map(|(name, text)| (name, Content::Bytes(text.into_bytes()), Role::Lint))
            .collect(),
        options,
    )
}

/// What `std::fs::metadata` said of a file.
type Metadata = std::io::Result<std::fs::Metadata>;

/// What one file is, whatever name reaches it (another path, a symbolic or a hard link): its
/// device and inode where there are inodes, its canonical path elsewhere.
#[derive(PartialEq, Eq, Hash)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

#[cfg(unix)]
fn file_id(_path: &std::path::Path, metadata: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId::Inode(metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &std::path::Path, _metadata: &std::fs::Metadata) -> Option<FileId> {
    std::fs::canonicalize(path).ok().map(FileId::Path)
}

/// What a file holds, as read: its bytes, or, for a big file, the open file and its length
/// (read a slice at a time later; see `source::Text`).
enum Content {
    Bytes(Vec<u8>),
    File(std::fs::File, usize),
}

/// Files at least this big are read a slice at a time by default; smaller ones are cheaper
/// to read whole.
pub const BIG_FILE: u64 = 16 << 20;

/// Read a file, given what `std::fs::metadata` said of it: a regular file of at least
/// `big_file_at_least` bytes is opened to be read later, any other regular file read.
fn read_file(
    path: &std::path::Path,
    metadata: &Metadata,
    big_file_at_least: Option<u64>,
) -> Result<Content, String> {
    let metadata = metadata.as_ref().map_err(|e| e.to_string())?;
    // A FIFO or a device would block or never end: only regular files are read. (This is
    // asked before opening: opening a named pipe would wait for a writer.)
    if !metadata.is_file() {
        return Err(format!(
            "not a regular file ({}), so it was not read",
            describe_file_type(metadata.file_type())
        ));
    }
    if big_file_at_least.is_some_and(|at_least| metadata.len() >= at_least) {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        // The length of the file opened, which is what is read (the path may have been
        // replaced since it was asked about).
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        if let Ok(len) = usize::try_from(len) {
            return Ok(Content::File(file, len));
        }
    }
    std::fs::read(path)
        .map(Content::Bytes)
        .map_err(|e| e.to_string())
}

fn read_stdin(stdin: &mut dyn std::io::Read) -> Result<Content, String> {
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .map(|_| Content::Bytes(bytes))
        .map_err(|e| e.to_string())
}

fn describe_file_type(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

fn check(texts: Vec<(String, Content, Role)>, options: &Options) -> Analysis {
    let mut outcome = Outcome::default();
    let mut objects: Vec<Object> = Vec::new();
    let mut crd_objects: Vec<Object> = Vec::new();
    let mut suppressions = Vec::new();
    let mut malformed = Vec::new();
    let mut unread = Vec::new();
    let mut project_sources = std::collections::HashSet::new();
    let mut lint_sources = std::collections::HashSet::new();
    // Each file decodes and loads on its own, in parallel; the results are then taken in
    // input order, so the output does not depend on scheduling.
    let prepared: Vec<Prepared> = texts
        .into_par_iter()
        .enumerate()
        .map(|(i, (name, bytes, role))| {
            let id = SourceId(i as u32);
            let (source, invalid_at) = match decode(name, bytes) {
                Ok(decoded) => decoded,
                Err((source, message)) => {
                    let error = InputError {
                        path: source.name.clone(),
                        message,
                    };
                    return Prepared::failed(source, role, error);
                }
            };
            let comments = (matches!(role, Role::Lint | Role::Project)
                && !options.no_suppress
                && invalid_at.is_none())
            .then(|| suppress::from_comments(id, &source));
            let loaded = invalid_at.is_none().then(|| {
                let load_options = LoadOptions {
                    limits: options.limits,
                    mode: options.mode,
                    context: role == Role::Context,
                    fast_path: (!options.full_parse).then(rules::kept),
                };
                load::load(id, &source, load_options)
            });
            // What was read of a file that changed meanwhile is not to be trusted.
            if source.text.changed() {
                let error = changed(&source);
                return Prepared::failed(source, role, error);
            }
            Prepared {
                source,
                role,
                invalid_at,
                loaded,
                comments,
                error: None,
            }
        })
        .collect();
    for prepared in prepared {
        let Prepared {
            source,
            role,
            invalid_at,
            loaded,
            comments,
            error,
        } = prepared;
        // The source stays, so that the ids of the others do not move.
        outcome.errors.extend(error);
        let id = SourceId(outcome.sources.len() as u32);
        if role == Role::Lint {
            outcome.stats.files += 1;
        }
        if let Some(at) = invalid_at {
            unread.push(load::Unread {
                source: id,
                origin: None,
                why: load::Why::NotUtf8 {
                    at: source.text.char_span(at),
                },
            });
            outcome.sources.push(source);
            continue;
        }
        let Some(loaded) = loaded else {
            outcome.sources.push(source);
            continue;
        };
        if role == Role::Lint {
            lint_sources.insert(id);
        }
        if role == Role::Project {
            // Read and checked as manifests like the linted files, so that owners resolve as
            // they would; only findings that involve a linted file are reported (below).
            project_sources.insert(id);
        } else {
            unread.extend(loaded.unread);
        }
        if let Some((found, bad)) = comments {
            suppressions.extend(found);
            malformed.extend(bad);
        }
        match role {
            Role::Crds => append(&mut crd_objects, loaded.objects),
            Role::Lint | Role::Context | Role::Project => {
                if role == Role::Lint {
                    outcome.stats.documents += loaded.documents;
                    outcome.stats.skipped_documents += loaded.skipped;
                    outcome.stats.objects += loaded.objects.len();
                }
                append(&mut objects, loaded.objects);
            }
        }
        outcome.sources.push(source);
    }
    let mut catalog = Catalog::builtin();
    if let Some(version) = options.kube_version {
        catalog.kube_version = version;
    }
    for crd in objects
        .iter()
        .chain(&crd_objects)
        .filter_map(|o| o.crd.as_ref())
    {
        catalog.add_crd(crd);
    }
    for kind in &options.kinds {
        catalog.add_crd(&catalog::CrdInfo {
            group: kind.group.clone(),
            kind: kind.kind.clone(),
            scope: Some(match kind.scope {
                catalog::Scope::Namespaced => "Namespaced".into(),
                catalog::Scope::Cluster => "Cluster".into(),
            }),
            served_versions: kind.version.iter().cloned().collect(),
        });
    }
    for object in objects.iter().filter(|o| o.mode == model::Mode::Snapshot) {
        if let (Some(api_version), Some(kind)) = (&object.api_version, &object.kind) {
            catalog.add_captured(&api_version.value, &kind.value);
        }
    }
    let index = index::Index::build(&objects, &catalog, &options.namespace);
    let resolutions = resolve::resolve_all(&objects, &index, &catalog);
    let check_options = rules::CheckOptions {
        complete: options.complete,
        policies: options.policies.clone(),
    };
    let cx = rules::Context {
        sources: &outcome.sources,
        objects: &objects,
        index: &index,
        catalog: &catalog,
        resolutions: &resolutions,
        unread: &unread,
        options: &check_options,
    };
    // Rules read the sources through `cx`, so they report into lists of their own; they run
    // in parallel, and their findings are taken in rule order.
    let findings: Vec<Finding> = rules::RULES
        .par_iter()
        .map(|rule| {
            let mut found = Vec::new();
            if let rules::Check::Input(check) = rule.check {
                check(&cx, &mut found);
            }
            found
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    outcome.findings.extend(findings);
    if !options.no_suppress {
        suppressions.extend(suppress::from_annotations(&objects));
        let unused = suppress::apply(
            &mut outcome.findings,
            &outcome.sources,
            suppressions,
            malformed,
        );
        for rule in rules::RULES {
            if let rules::Check::Suppressions(check) = rule.check {
                check(&unused, &mut outcome.findings);
            }
        }
    }
    // Of the project's files, report what a change to the linted files breaks there: a finding
    // on either side of a reference that involves a linted file.
    if !project_sources.is_empty() {
        outcome.findings.retain(|f| {
            std::iter::once(&f.primary)
                .chain(&f.related)
                .any(|label| lint_sources.contains(&label.source))
        });
    }
    apply_levels(&mut outcome.findings, &options.levels);
    // Rules read positions from the files too.
    let changed_errors = changed_inputs(&outcome.sources, &outcome.errors);
    outcome.errors.extend(changed_errors);
    let sources = &outcome.sources;
    outcome.findings.sort_by(|a, b| {
        let key = |f: &Finding| {
            (
                sources[f.primary.source.0 as usize].name.as_str(),
                f.primary.span.start,
                f.rule.id,
            )
        };
        key(a).cmp(&key(b)).then_with(|| a.message.cmp(&b.message))
    });
    Analysis {
        outcome,
        objects,
        index,
        catalog,
        resolutions,
        complete: options.complete,
    }
}

/// Add `more` to `objects`, without copying when `objects` is still empty (a single big dump).
fn append(objects: &mut Vec<Object>, more: Vec<Object>) {
    if objects.is_empty() {
        *objects = more;
    } else {
        objects.extend(more);
    }
}

/// One input, decoded and loaded.
struct Prepared {
    source: Source,
    role: Role,
    invalid_at: Option<usize>,
    loaded: Option<load::Loaded>,
    comments: Option<(Vec<suppress::Suppression>, Vec<suppress::Malformed>)>,
    /// Why the input was not checked, when it could not be read after all.
    error: Option<InputError>,
}

impl Prepared {
    fn failed(source: Source, role: Role, error: InputError) -> Prepared {
        Prepared {
            source,
            role,
            invalid_at: None,
            loaded: None,
            comments: None,
            error: Some(error),
        }
    }
}

/// Configured rule levels: drop the findings of rules that are off, and give the others the
/// configured severity.
fn apply_levels(findings: &mut Vec<Finding>, levels: &[(String, config::Level)]) {
    if levels.is_empty() {
        return;
    }
    findings.retain_mut(|finding| {
        match levels
            .iter()
            .rev()
            .find(|(rule, _)| rule == finding.rule.id)
        {
            Some((_, config::Level::Off)) => false,
            Some((_, config::Level::On(severity))) => {
                finding.severity = *severity;
                true
            }
            None => true,
        }
    });
}

/// Text from bytes; for bytes that are not UTF-8, also the offset of the first bad byte.
fn decode(name: String, content: Content) -> Result<(Source, Option<usize>), (Source, String)> {
    let bytes = match content {
        Content::Bytes(bytes) => bytes,
        Content::File(file, len) => match source::Text::open(file, len) {
            Ok(text) => return Ok((Source::with_text(name, text), None)),
            // Rare: read it whole, to find where it is not text and show it.
            Err(file) => {
                let mut bytes = Vec::new();
                if let Err(e) = std::io::Read::read_to_end(&mut &file, &mut bytes) {
                    return Err((Source::new(name, ""), e.to_string()));
                }
                bytes
            }
        },
    };
    Ok(match String::from_utf8(bytes) {
        Ok(text) => (Source::new(name, text), None),
        Err(err) => {
            let at = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            (Source::new(name, text), Some(at))
        }
    })
}

/// The error for a file that changed while it was read.
fn changed(source: &Source) -> InputError {
    InputError {
        path: source.name.clone(),
        message: "the file changed while it was read, so it was not checked; run again once nothing writes to it".into(),
    }
}

/// Errors for the inputs that a read found changed, and that `errors` does not name yet (a
/// read for a position or a snippet can find it late, while findings are reported).
pub fn changed_inputs(sources: &[Source], errors: &[InputError]) -> Vec<InputError> {
    sources
        .iter()
        .filter(|s| s.text.changed() && !errors.iter().any(|e| e.path == s.name))
        .map(changed)
        .collect()
}
