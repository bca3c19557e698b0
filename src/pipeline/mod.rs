//! The run: discover the inputs, read them, build the charts and overlays, load them, build
//! the catalog, index and resolve, run the rules, suppress, map findings in builds back to
//! their files, and order the findings. Each stage is a module; this wires them in order.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

use crate::analysis::InputError;
use crate::analysis::{Analysis, Options, Outcome};
use crate::build::Builds;
use crate::catalog::Catalog;
use crate::discover::{self, Filter};
use crate::fields::Kept;
use crate::finding::Finding;
use crate::load::{self, LoadOptions, Unread};
use crate::model::{self, Object};
use crate::read::{self, Content, Files, Input, Role, STDIN_NAME, changed_inputs};
use crate::source::{Source, SourceId};
use crate::{index, resolve, rules, suppress};

mod levels;
mod loading;
use loading::{LoadedAll, Prepared, add_build_failures, load_all};

/// Lint the paths in `options`; `stdin` is read when a path is `-`.
pub fn lint(options: &Options, stdin: &mut dyn std::io::Read) -> Outcome {
    analyze(options, stdin).outcome
}

/// Read, index, resolve and check the paths in `options`.
pub fn analyze(options: &Options, stdin: &mut dyn std::io::Read) -> Analysis {
    analyze_inputs(
        options,
        Inputs {
            texts: HashMap::new(),
            stdin,
            cache: None,
        },
    )
}

/// [`analyze`], with the inputs named in `texts` read as the text given there instead of from
/// their files, standard input too (the texts `--fix` has edited but not yet written).
pub fn analyze_with(
    options: &Options,
    stdin: &mut dyn std::io::Read,
    texts: &HashMap<String, String>,
) -> Analysis {
    let mut fixed_stdin = texts.get(STDIN_NAME).map(|text| text.as_bytes());
    let stdin: &mut dyn std::io::Read = match &mut fixed_stdin {
        Some(text) => text,
        None => stdin,
    };
    let texts = texts
        .iter()
        .filter(|(name, _)| name.as_str() != STDIN_NAME)
        .map(|(name, text)| (PathBuf::from(name), text.clone()))
        .collect();
    analyze_inputs(
        options,
        Inputs {
            texts,
            stdin,
            cache: None,
        },
    )
}

/// What a run reads besides the files of its paths, and what it keeps for the next run.
pub struct Inputs<'a> {
    /// Texts that stand in for files, by path: an editor's buffers (a file not yet saved is
    /// linted where it would be), or the texts `--fix` has edited and not yet written.
    pub texts: HashMap<PathBuf, String>,
    /// Read when a path is `-`.
    pub stdin: &'a mut dyn std::io::Read,
    /// What the last analysis of the same paths loaded and built (the language server's):
    /// what did not change is taken from there, and the analysis gives the places of built
    /// objects in the files people edit ([`Analysis::places`]).
    pub cache: Option<&'a mut LoadCache>,
}

/// The run: discover the inputs, read them, build the charts and overlays, then load, catalog,
/// index, resolve, run the rules, map findings back to the files builds read, suppress, and
/// order the findings.
pub fn analyze_inputs(options: &Options, inputs: Inputs) -> Analysis {
    let started = Instant::now();
    let Inputs {
        texts,
        stdin,
        mut cache,
    } = inputs;
    let filter = match Filter::new(
        &options.include,
        &options.exclude,
        options.include_base.as_deref(),
        options.exclude_base.as_deref(),
    ) {
        Ok(filter) => filter,
        Err(err) => {
            let mut analysis = check(Vec::new(), options, rules::kept());
            analysis.outcome.errors.push(InputError {
                path: "--include/--exclude".into(),
                message: err.to_string(),
            });
            return analysis;
        }
    };
    let files = Files::new(texts);
    let mut found = discover_all(options, &filter, &files);
    let read::Read {
        inputs: mut contents,
        mut errors,
    } = read::read(
        std::mem::take(&mut found.inputs),
        options,
        &files,
        stdin,
        cache.as_mut().map(|cache| &mut cache.stamps),
    );
    // Nothing piped in is no input to check: most often the command before `|` failed, and a
    // run that checked nothing must not pass.
    if let Some(at) = contents.iter().position(|(name, content, _)| {
        name == STDIN_NAME
            && matches!(content, Content::Bytes(bytes) if bytes.iter().all(u8::is_ascii_whitespace))
    }) {
        contents.remove(at);
        errors.push(InputError {
            path: STDIN_NAME.to_string(),
            message: "empty, so nothing was checked (did the command before `|` fail?)".to_string(),
        });
    }
    let mut builds = run_builds(
        options,
        std::mem::take(&mut found.targets),
        std::mem::take(&mut found.skipped),
        &files,
        cache.as_deref_mut(),
        &mut contents,
    );
    builds.not_checked = std::mem::take(&mut found.not_checked);
    builds.argo_directories = std::mem::take(&mut found.argo_directories);
    // What the walks left unread is reported as what the builds left out is, at the link:
    // once, by the build when one would have read it.
    let left_by_builds: HashSet<PathBuf> = builds
        .left_out
        .iter()
        .map(|left| read::lexical(&left.outside.path))
        .collect();
    builds.left_out.extend(
        found
            .outside
            .drain(..)
            .filter(|outside| !left_by_builds.contains(&read::lexical(&outside.path)))
            .map(|outside| crate::build::LeftOut {
                target: None,
                outside,
            }),
    );
    let linted_alone: Vec<String> = contents
        .iter()
        .filter(|(name, _, role)| *role == Role::Lint && !builds.built.contains_key(name))
        .map(|(name, _, _)| name.clone())
        .collect();
    let with_places = cache.is_some();
    let mut analysis = check_cached(contents, options, cache, &builds, rules::kept(), Vec::new());
    if with_places {
        analysis.places =
            crate::build::map::place_objects(&analysis.outcome.sources, &builds, &analysis.objects);
    }
    skip_named_files_that_are_not_manifests(&mut analysis, &linted_alone);
    let outcome = &mut analysis.outcome;
    outcome.linted_alone = linted_alone;
    outcome.errors.extend(found.errors);
    outcome.errors.extend(errors);
    outcome.stats.assertion_files = found.assertion_files;
    outcome.stats.patch_files = found.patch_files;
    outcome.stats.skipped_documents += found.kustomization_files;
    outcome.stats.unbuilt_kustomizations = found.kustomization_files;
    outcome.stats.build_files = found.build_files.len();
    outcome.build_files = found.build_files;
    let found_in_check = std::mem::take(&mut outcome.skipped_paths);
    outcome.skipped_paths = found.skipped_paths;
    outcome.skipped_paths.extend(found_in_check);
    outcome.stats.elapsed = started.elapsed();
    analysis
}

/// The paths a run is started for, that say where the repository is (see
/// [`crate::read::repository::Repository::of`]): those to lint and the project's.
fn build_roots(options: &Options) -> Vec<PathBuf> {
    options
        .paths
        .iter()
        .chain(&options.project)
        .cloned()
        .collect()
}

/// What discovery found of every path of `options`, to read and to build.
#[derive(Default)]
struct Found {
    /// The inputs to read, each with its role, in input order.
    inputs: Vec<(Input, Role)>,
    errors: Vec<InputError>,
    assertion_files: usize,
    patch_files: usize,
    /// Kustomization files not built (`--no-render`): documents that are not objects.
    kustomization_files: usize,
    /// Files the builds read, not linted alone.
    build_files: Vec<String>,
    /// Folders a walk could not enter.
    skipped_paths: Vec<InputError>,
    /// Symbolic links a walk met that lead outside the repository: not read.
    outside: Vec<crate::build::Outside>,
    /// The charts and overlays to build.
    targets: Vec<crate::build::Target>,
    /// The charts and overlays met and not built on their own.
    skipped: Vec<crate::build::Skipped>,
    /// Flux objects whose source is not in the repository.
    not_checked: Vec<crate::gitops::NotChecked>,
    /// Folders of plain manifests Argo CD Applications deploy.
    argo_directories: Vec<(PathBuf, std::sync::Arc<crate::gitops::ArgoBuild>)>,
}

/// The discover stage, for the paths to lint, `--crds`, `--existing` and `--project`; and a
/// file that only a text in `files` stands in for (an editor's, not yet saved) where a walk
/// would have found it.
fn discover_all(options: &Options, filter: &Filter, files: &Files) -> Found {
    let mut all = Found::default();
    let roots = build_roots(options);
    for (paths, role) in [
        (&options.paths, Role::Lint),
        (&options.crds, Role::Crds),
        (&options.existing, Role::Existing),
        (&options.project, Role::Project),
    ] {
        let build = role == Role::Lint && options.build.is_some();
        let mut found = discover::discover(paths, &roots, filter, build, &options.builds, files);
        if role == Role::Lint {
            all.assertion_files += found.assertions.len();
            all.patch_files += found.patches.len();
            all.kustomization_files += found.kustomizations.len();
            all.build_files
                .extend(found.build_files.iter().map(|p| read::display_path(p)));
            all.targets.append(&mut found.targets);
            all.skipped.append(&mut found.skipped);
            all.not_checked.append(&mut found.not_checked);
            all.argo_directories.append(&mut found.argo_directories);
        }
        all.skipped_paths.append(&mut found.skipped_paths);
        all.outside.append(&mut found.outside);
        all.errors.extend(found.errors);
        all.inputs
            .extend(found.inputs.into_iter().map(|input| (input, role)));
    }
    all.inputs.extend(
        unsaved_files(options, filter, files, &all)
            .into_iter()
            .map(|path| (Input::File(path), Role::Lint)),
    );
    all
}

/// The files that only a text in `files` stands in for, not found by the walks: each linted
/// where the walk would have found it (below a folder to lint, taken by the filter, in no
/// hidden folder), unless a chart or an overlay reads it (it is linted through that build).
fn unsaved_files(options: &Options, filter: &Filter, files: &Files, found: &Found) -> Vec<PathBuf> {
    if files.is_empty() {
        return Vec::new();
    }
    let known: HashSet<PathBuf> = found
        .inputs
        .iter()
        .filter_map(|(input, _)| match input {
            Input::File(path) => Some(read::lexical(path)),
            Input::Stdin => None,
        })
        .collect();
    let consumed: Vec<crate::build::Consumed> =
        found.targets.iter().map(|t| t.consumed(files)).collect();
    let mut unsaved: Vec<PathBuf> = files
        .edited()
        .filter(|path| !known.contains(*path) && !path.exists())
        .filter(|path| !consumed.iter().any(|c| c.contains_lexical(path)))
        .filter(|path| {
            options.paths.iter().any(|root| {
                read::lexical(path)
                    .strip_prefix(read::lexical(root))
                    .is_ok_and(|relative| {
                        filter.accepts(path)
                            && !relative
                                .components()
                                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
                    })
            })
        })
        .cloned()
        .collect();
    unsaved.sort();
    unsaved
}

/// The build stage: build `targets` (with the texts of `files` where they stand in for files,
/// and the builds of `cache` where nothing they read changed), and add what each built to
/// `inputs`, under its stream's name.
fn run_builds(
    options: &Options,
    targets: Vec<crate::build::Target>,
    skipped: Vec<crate::build::Skipped>,
    files: &Files,
    cache: Option<&mut LoadCache>,
    inputs: &mut Vec<(String, Content, Role)>,
) -> Builds {
    let Some(build_options) = &options.build else {
        return Builds {
            skipped,
            files: files.clone(),
            ..Builds::default()
        };
    };
    let roots = build_roots(options);
    let settings = crate::build::BuildSettings {
        options: build_options,
        namespace: &options.namespace,
        kube_version: options
            .kube_version
            .map(|v| format!("v{}.{}.0", v.major, v.minor)),
        roots: &roots,
    };
    let cached = cache.map(|cache| &mut cache.builds);
    let (builds, streams) =
        crate::build::build_all(&targets, &settings, files, cached, None, skipped);
    inputs.extend(
        streams
            .into_iter()
            .map(|(name, text)| (name, Content::Bytes(text.into_bytes()), Role::Lint)),
    );
    builds
}

/// An input's name, role and place in the input order.
type CacheKey = (String, Role, u32);

/// What an input of this name, role and place loaded to, from bytes of this hash; and a copy
/// of it for the next analysis to take, when one was made.
struct Entry {
    hash: u64,
    prepared: Prepared,
    spare: Option<Prepared>,
}

/// What was loaded of each input in the last analysis of a folder, for the next one (the
/// language server analyses its folders again at every edit): an input with the same name,
/// role, place in the input order and bytes is not decoded and loaded again. Big files, read
/// from disk when asked, are not kept.
#[derive(Default)]
pub struct LoadCache {
    /// The options loading depends on, as last used: others empty the cache.
    options: String,
    entries: std::collections::HashMap<CacheKey, Entry>,
    /// How many inputs the last analysis loaded (rather than took from the cache).
    loaded: usize,
    /// The charts and overlays built last, by what they read.
    builds: crate::build::BuildCache,
    /// What the last read of each file saw: unchanged files are not read again.
    stamps: read::Stamps,
}

impl LoadCache {
    /// How many inputs the last analysis loaded rather than took from the cache.
    pub fn loaded_last(&self) -> usize {
        self.loaded
    }

    /// How many inputs it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many charts and overlays the last analysis built (rather than took from the cache).
    pub fn built_last(&self) -> usize {
        self.builds.ran_last()
    }

    /// The builds the last analysis left running (see [`LoadCache::build_in_background`]):
    /// what is in the files they read is not known yet.
    pub fn pending_builds(&self) -> &[crate::build::Pending] {
        self.builds.pending()
    }

    /// Make, for each input it holds, the copy that the next analysis takes (so that it does
    /// not copy what did not change): between analyses, while nothing waits for one.
    pub fn make_spares(&mut self) {
        self.entries
            .par_iter_mut()
            .filter(|(_, entry)| entry.spare.is_none())
            .for_each(|(_, entry)| entry.spare = entry.prepared.try_clone());
    }

    /// Build charts and overlays in the background: an analysis does not wait for a build
    /// that takes long, and leaves it running for the next analysis to take; `ended` is told
    /// when one ends. A build whose files changed is stopped when the next analysis begins.
    pub fn build_in_background(&mut self, ended: crossbeam_channel::Sender<()>) {
        self.builds.build_in_background(ended);
    }
}

/// Lint in-memory inputs, named as they should be reported (used by tests and tools).
pub fn lint_texts(inputs: Vec<(String, String)>, options: &Options) -> Outcome {
    analyze_texts(inputs, options).outcome
}

/// Analyze in-memory inputs, named as they should be reported.
pub fn analyze_texts(inputs: Vec<(String, String)>, options: &Options) -> Analysis {
    check(as_inputs(inputs), options, rules::kept())
}

/// [`analyze_texts`], with what was written of some inputs with their texts ([`load::Written`]):
/// their objects are taken from there, not read from the text again. Each is what the fast path
/// of [`rules::kept`] reads of its text; with `--full-parse`, give none.
pub fn analyze_written(
    inputs: Vec<(String, String, Option<load::Written>)>,
    options: &Options,
) -> Analysis {
    let (texts, written): (Vec<_>, Vec<_>) = inputs
        .into_iter()
        .map(|(name, text, written)| ((name, text), written))
        .unzip();
    let texts = as_inputs(texts);
    check_cached(
        texts,
        options,
        None,
        &Builds::default(),
        rules::kept(),
        written,
    )
}

/// [`lint_texts`], with the fast path keeping only the fields in `kept` (not those of every
/// rule): for the test that each rule declares the fields it reads.
#[doc(hidden)]
pub fn lint_texts_keeping(
    inputs: Vec<(String, String)>,
    options: &Options,
    kept: &'static Kept,
) -> Outcome {
    check(as_inputs(inputs), options, kept).outcome
}

fn as_inputs(inputs: Vec<(String, String)>) -> Vec<(String, Content, Role)> {
    inputs
        .into_iter()
        .map(|(name, text)| (name, Content::Bytes(text.into_bytes()), Role::Lint))
        .collect()
}

/// The pipeline after reading: load each input, build the catalog, index and resolve, run the
/// rules, suppress, and order the findings; the fast path keeps the fields in `kept`.
fn check(texts: Vec<(String, Content, Role)>, options: &Options, kept: &'static Kept) -> Analysis {
    check_cached(texts, options, None, &Builds::default(), kept, Vec::new())
}

/// The findings in the plain manifests of a folder that an Argo CD Application deploys (a
/// directory source) name the Application, as those in the charts and overlays it builds do
/// (and not the build of a related label: the finding is about the object of the folder).
fn name_argo_directories(findings: &mut [Finding], sources: &[Source], builds: &Builds) {
    if builds.argo_directories.is_empty() {
        return;
    }
    let mut deployed: HashMap<SourceId, Option<String>> = HashMap::new();
    // Not one whose object a build made (from a file that the folder holds too).
    for finding in findings.iter_mut().filter(|f| f.built_at.is_none()) {
        let id = finding.primary.source;
        let by = deployed.entry(id).or_insert_with(|| {
            let source = sources.get(id.0 as usize)?;
            if source.built_by.is_some() {
                return None;
            }
            crate::gitops::argo::deploying(&builds.argo_directories, &source.name)
                .map(|argo| argo.describe())
        });
        if let Some(by) = by {
            finding.origin = Some(by.clone());
        }
    }
}

/// [`check`], taking the inputs that did not change from `cache`, and leaving there what it
/// loaded.
fn check_cached(
    texts: Vec<(String, Content, Role)>,
    options: &Options,
    cache: Option<&mut LoadCache>,
    builds: &Builds,
    kept: &'static Kept,
    written: Vec<Option<load::Written>>,
) -> Analysis {
    let mut loaded = load_all(texts, options, cache, builds, kept, written);
    add_build_failures(&mut loaded, builds);
    let catalog = build_catalog(&loaded, options);
    // Each chart or overlay built is a world of its own: applied on its own, it neither sees
    // nor is seen by another build (two overlays of one base hold the same objects). The
    // overlays that the Flux Kustomizations of one cluster build are applied together: one
    // world.
    // The Applications of one Argo CD destination cluster too, with the plain manifests they
    // deploy; and each of their objects that names no namespace is in its Application's
    // destination namespace.
    let mut worlds = vec![0; loaded.outcome.sources.len()];
    let mut namespaces: Vec<Option<&str>> = vec![None; loaded.outcome.sources.len()];
    let mut next = 0;
    let mut clusters: HashMap<&str, u32> = HashMap::new();
    for ((world, namespace), source) in (worlds.iter_mut())
        .zip(namespaces.iter_mut())
        .zip(&loaded.outcome.sources)
    {
        let argo = match source.built_by {
            Some(_) => (builds.built.get(&source.name)).and_then(|b| b.target.argo.as_deref()),
            None => crate::gitops::argo::deploying(&builds.argo_directories, &source.name),
        };
        if let Some(argo) = argo {
            *namespace = argo.namespace.as_deref();
        }
        // What an item of the configuration's `builds` builds is in its namespace.
        if let Some(configured) = (source.built_by.is_some())
            .then(|| builds.built.get(&source.name))
            .flatten()
            .and_then(|built| built.target.configured.as_ref())
            && let Some(configured_namespace) = &configured.namespace
        {
            *namespace = Some(configured_namespace);
        }
        // A chart a Flux HelmRelease renders is installed in the release's namespace.
        let flux = (source.built_by.is_some())
            .then(|| builds.built.get(&source.name))
            .flatten()
            .and_then(|built| built.target.flux.as_ref());
        if let Some(helm) = flux.and_then(|f| f.helm.as_ref())
            && !helm.namespace.is_empty()
        {
            *namespace = Some(&helm.namespace);
        }
        if source.built_by.is_some() || argo.is_some() {
            let cluster = (builds.built.get(&source.name))
                .and_then(|built| built.target.flux.as_ref())
                .map(|flux| flux.cluster.as_str())
                .or(argo.map(|argo| argo.cluster.as_str()));
            *world = match cluster.and_then(|c| clusters.get(c)) {
                Some(shared) => *shared,
                None => {
                    next += 1;
                    if let Some(cluster) = cluster {
                        clusters.insert(cluster, next);
                    }
                    next
                }
            };
        }
    }
    let index = index::Index::build_in_worlds(
        &loaded.objects,
        &catalog,
        &options.namespace,
        &worlds,
        &namespaces,
    );
    let resolutions = resolve::resolve_all(&loaded.objects, &index, &catalog);
    let ownership = resolve::Ownership::new(&resolutions);
    let mut outcome = loaded.outcome;
    outcome.stats.not_read_when_saved = loaded
        .not_read
        .iter()
        .map(|n| (n.what.clone(), n.why.clone()))
        .collect();
    // What the rules check, counted, so that a run with nothing to check does not read as a
    // run that found everything in order.
    let linted = loaded
        .objects
        .iter()
        .filter(|o| !o.from_existing && loaded.lint_sources.contains(&o.source));
    for object in linted {
        outcome.stats.owner_references += object.owner_refs().len();
        if let model::Finalizers::List(entries) = &object.finalizers {
            outcome.stats.finalizers += entries.len();
        }
    }
    let partial_dump = (options.complete && rules::is_cluster_info_dump(&loaded.objects, &index))
        .then_some(rules::CLUSTER_INFO_DUMP);
    outcome.stats.partial_dump = partial_dump.is_some();
    let check_options = rules::CheckOptions {
        complete: options.complete,
        partial_dump,
        not_read: options
            .not_read
            .iter()
            .chain(&loaded.not_read)
            .cloned()
            .collect(),
        policies: options.policies.clone(),
    };
    let deleted = rules::Deleted {
        index: index::Index::build(&loaded.deleted, &catalog, &options.namespace),
        objects: std::mem::take(&mut loaded.deleted),
    };
    let cx = rules::Context {
        sources: &outcome.sources,
        objects: &loaded.objects,
        index: &index,
        catalog: &catalog,
        resolutions: &resolutions,
        ownership: &ownership,
        unread: &loaded.unread,
        options: &check_options,
        deleted: &deleted,
    };
    outcome.findings = run_rules(&cx);
    // Findings in what a chart or an overlay built go back to the files they came from, before
    // suppression: comments there (a template, a base, a patch) then apply to them.
    let mut mapping = crate::build::map::Mapping::new(&outcome.sources, builds);
    mapping.findings(&mut outcome.findings, &outcome.sources);
    crate::build::map::place_in_templates(&mut outcome.findings, &outcome.sources);
    name_argo_directories(&mut outcome.findings, &outcome.sources, builds);
    let mut suppressed = Vec::new();
    if !options.no_suppress {
        mapping.read_files_built_from(&outcome.sources);
        loaded
            .suppressions
            .extend(suppress::from_annotations(&loaded.objects));
        for (id, file) in mapping.files() {
            let (found, bad) = suppress::from_comments(id, file);
            loaded.suppressions.extend(found);
            loaded.malformed.extend(bad);
        }
        let sources: Vec<&Source> = (outcome.sources.iter())
            .chain(mapping.files().map(|(_, file)| file))
            .collect();
        let mut applied = suppress::apply(
            &mut outcome.findings,
            &sources,
            loaded.suppressions,
            loaded.malformed,
        );
        // Nothing of what a build that failed reads was checked: none of its suppressions is
        // known to be unused.
        applied
            .unused
            .retain(|u| !mapping.read_by_a_failed_build(u.source));
        let first_unused = outcome.findings.len();
        for rule in rules::RULES {
            if let rules::Check::Suppressions(check) = rule.check {
                check(&applied.unused, &mut outcome.findings);
            }
        }
        // An annotation of an object as built that suppressed nothing is reported in its file.
        mapping.findings(&mut outcome.findings[first_unused..], &outcome.sources);
        // One object of a base that two overlays build is one annotation in its file.
        let mut seen = HashSet::new();
        let mut at = 0;
        outcome.findings.retain(|f| {
            at += 1;
            at <= first_unused || seen.insert((f.primary.source, f.primary.span, f.message.clone()))
        });
        suppressed = applied.suppressed;
    }
    // The files findings were taken back to are linted, as the builds are.
    let first_file = outcome.sources.len();
    outcome.sources.extend(mapping.into_files());
    loaded
        .lint_sources
        .extend((first_file..outcome.sources.len()).map(|i| SourceId(i as u32)));
    // Counted as they would have been shown: in the linted files, at a level that is on.
    if loaded.has_project {
        suppressed.retain(|f| loaded.lint_sources.contains(&f.primary.source));
    }
    let levels = levels::Levels::new(&options.levels, &options.overrides);
    levels.apply(&mut suppressed, &outcome.sources);
    outcome.stats.suppressed = suppressed.len();
    // Of the project's files, report what a change to the linted files breaks there: a finding
    // on either side of a reference that involves a linted file.
    if loaded.has_project {
        outcome.findings.retain(|f| {
            std::iter::once(&f.primary)
                .chain(&f.related)
                .any(|label| loaded.lint_sources.contains(&label.source))
        });
    }
    levels.apply(&mut outcome.findings, &outcome.sources);
    // Only the files linted are fixed: not those read for context, CRDs or the project.
    for finding in &mut outcome.findings {
        let outside = finding.fix.as_ref().is_some_and(|fix| {
            fix.edits
                .iter()
                .any(|edit| !loaded.lint_sources.contains(&edit.source))
        });
        if outside {
            finding.fix = None;
        }
    }
    let tried = |tool| {
        let built = builds.built.values().filter(|r| r.target.tool == tool);
        let failed = builds.failures.iter().filter(|f| f.target.tool == tool);
        built.count() + failed.count()
    };
    outcome.stats.charts = tried(crate::build::Tool::Helm);
    outcome.stats.overlays = tried(crate::build::Tool::Kustomize);
    outcome.stats.not_built = builds.failures.len();
    let values = builds.not_checked.iter().filter(|n| n.values).count();
    outcome.stats.not_in_repository = builds.not_checked.len() - values;
    outcome.stats.values_not_in_repository = values;
    // A subchart or base is checked when one of the builds it is part of was built, or is
    // itself part of one that was (a base of a base).
    let mut built: std::collections::HashSet<std::path::PathBuf> = (builds.built.values())
        .filter_map(|b| std::fs::canonicalize(&b.target.dir).ok())
        .collect();
    let parts = || builds.skipped.iter().filter(|s| s.part_of_another);
    loop {
        let reached: Vec<std::path::PathBuf> = parts()
            .filter(|s| s.through.iter().any(|dir| built.contains(dir)))
            .filter_map(|s| std::fs::canonicalize(&s.target.dir).ok())
            .filter(|dir| !built.contains(dir))
            .collect();
        if reached.is_empty() {
            break;
        }
        built.extend(reached);
    }
    let checked = |s: &&crate::build::Skipped| s.through.iter().any(|dir| built.contains(dir));
    outcome.stats.part_builds = parts().filter(checked).count();
    outcome.stats.part_charts = (parts().filter(checked))
        .filter(|s| s.target.tool == crate::build::Tool::Helm)
        .count();
    outcome.stats.part_not_checked = parts().count() - outcome.stats.part_builds;
    outcome.stats.skipped_builds = builds.skipped.len() - parts().count();
    outcome.builds = build_reports(builds, &loaded.objects, &outcome.sources);
    // Rules read positions from the files too.
    let changed_errors = changed_inputs(&outcome.sources, &outcome.errors);
    outcome.errors.extend(changed_errors);
    if options.build.is_none() {
        one_unrendered_template_a_chart(&mut outcome.findings, &outcome.sources);
    }
    sort_findings(&mut outcome.findings, &outcome.sources);
    Analysis {
        outcome,
        objects: loaded.objects,
        index,
        catalog,
        resolutions,
        complete: options.complete,
        places: Default::default(),
    }
}

/// With `--no-render`, each template of a chart is a document of template text, an
/// `unrendered-template` finding of its own (dozens for one chart): they are one a chart (the
/// outermost, which renders its subcharts), at its first template, saying how many templates
/// went unchecked and how to build it.
fn one_unrendered_template_a_chart(findings: &mut Vec<Finding>, sources: &[Source]) {
    // Each finding's chart, and of each chart the finding that stays and its templates.
    let mut chart_of = HashMap::new();
    let mut charts: HashMap<PathBuf, (usize, HashSet<SourceId>)> = HashMap::new();
    for (at, finding) in findings.iter().enumerate() {
        let source = finding.primary.source;
        if finding.rule.id != "unrendered-template" {
            continue;
        }
        let name = sources.get(source.0 as usize).map(|s| s.name.as_str());
        let Some(chart) = name.and_then(chart_of_file) else {
            continue;
        };
        // The chart's own templates before its subcharts', then in file order.
        let place = |at: usize| {
            let label = &findings[at].primary;
            let name = sources
                .get(label.source.0 as usize)
                .map(|s| s.name.as_str());
            let depth = name.map(|name| std::path::Path::new(name).components().count());
            (depth, name, label.span.start)
        };
        let (first, templates) = charts.entry(chart.clone()).or_insert((at, HashSet::new()));
        if place(at) < place(*first) {
            *first = at;
        }
        templates.insert(source);
        chart_of.insert(at, chart);
    }
    for (chart, (first, templates)) in &charts {
        let shown = match read::display_path(chart) {
            dir if dir.is_empty() => ".".to_string(),
            dir => dir,
        };
        let finding = &mut findings[*first];
        let objects = match templates.len() {
            1 => "this template's objects were".to_string(),
            n => format!("the objects of its {n} templates were"),
        };
        finding.message =
            format!("chart {shown} was not rendered (--no-render), so {objects} not checked");
        finding.help = Some(format!(
            "drop --no-render to build it with helm, or lint what it renders: `helm template <release> {shown} | ownerlint -`"
        ));
    }
    let mut at = 0;
    findings.retain(|_| {
        at += 1;
        chart_of
            .get(&(at - 1))
            .is_none_or(|chart| charts[chart].0 == at - 1)
    });
}

/// The outermost chart a file belongs to (a subchart renders through its parent), if any.
fn chart_of_file(name: &str) -> Option<PathBuf> {
    let path = std::path::Path::new(name);
    let chart = path.ancestors().skip(1).find_map(|dir| {
        let dir = if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        };
        crate::build::Target::of_dir(dir).filter(|t| t.tool == crate::build::Tool::Helm)
    })?;
    let mut outermost = chart;
    while let Some(parent) = outermost.parent_chart() {
        outermost = parent;
    }
    Some(outermost.dir)
}

/// A file named on the command line without a `.yaml`, `.yml` or `.json` name (a README, a
/// `Cargo.toml`) is linted only when it holds a Kubernetes object: otherwise it is no
/// manifest, and what reading it as YAML found (a syntax error, a template, a comment that
/// looks like a suppression) is said as one line that it was skipped, not as findings.
fn skip_named_files_that_are_not_manifests(analysis: &mut Analysis, linted_alone: &[String]) {
    let outcome = &mut analysis.outcome;
    let with_objects: HashSet<SourceId> = analysis.objects.iter().map(|o| o.source).collect();
    // Only the inputs linted on their own: not a build, nor a file a failed build names.
    let candidates: HashSet<&str> = linted_alone
        .iter()
        .map(String::as_str)
        .filter(|name| {
            *name != STDIN_NAME
                && !crate::discover::has_manifest_extension(std::path::Path::new(name))
        })
        .collect();
    if candidates.is_empty() {
        return;
    }
    let not_manifests: HashSet<SourceId> = outcome
        .sources
        .iter()
        .enumerate()
        .map(|(i, source)| (SourceId(i as u32), source))
        .filter(|(id, source)| {
            candidates.contains(source.name.as_str()) && !with_objects.contains(id)
        })
        .map(|(id, _)| id)
        .collect();
    if not_manifests.is_empty() {
        return;
    }
    outcome
        .findings
        .retain(|f| !not_manifests.contains(&f.primary.source));
    let mut skipped: Vec<SourceId> = not_manifests.into_iter().collect();
    skipped.sort();
    for id in skipped {
        outcome.skipped_paths.push(InputError {
            path: outcome.sources[id.0 as usize].name.clone(),
            message: "not a manifest (no .yaml, .yml or .json name, and no Kubernetes object in it), so it was not linted".into(),
        });
    }
}

/// Every chart and overlay met, in the order of their folders: built (with how many objects),
/// failed (with the tool's message), or skipped (with the reason).
fn build_reports(
    builds: &Builds,
    objects: &[Object],
    sources: &[Source],
) -> Vec<crate::analysis::Build> {
    use crate::analysis::{Build, BuildStatus};
    use crate::build::{Target, Tool};
    let report = |target: &Target, status, objects, reason| Build {
        tool: match target.tool {
            Tool::Helm => "helm",
            Tool::Kustomize => "kustomize",
        },
        path: target.shown_dir(),
        command: target.command(),
        status,
        objects,
        reason,
    };
    let mut per_stream: std::collections::HashMap<&str, usize> = Default::default();
    for object in objects {
        let name = sources[object.source.0 as usize].name.as_str();
        if builds.built.contains_key(name) {
            *per_stream.entry(name).or_default() += 1;
        }
    }
    let mut reports: Vec<Build> = builds
        .built
        .iter()
        .map(|(name, built)| {
            let objects = per_stream.get(name.as_str()).copied().unwrap_or(0);
            report(&built.target, BuildStatus::Built, objects, None)
        })
        .chain(builds.failures.iter().map(|failure| {
            let reason = Some(failure.message.clone());
            report(&failure.target, BuildStatus::Failed, 0, reason)
        }))
        .chain(builds.skipped.iter().map(|skipped| {
            let reason = Some(skipped.reason.clone());
            report(&skipped.target, BuildStatus::Skipped, 0, reason)
        }))
        .collect();
    reports.sort_by(|a, b| {
        (a.path.cmp(&b.path).then(a.tool.cmp(b.tool))).then(a.command.cmp(&b.command))
    });
    reports
}

/// The kinds the run knows: built in, declared by CRDs (in the input or `--crds`) and by the
/// configuration, those a snapshot holds objects of, and what a cluster's discovery lists.
fn build_catalog(loaded: &LoadedAll, options: &Options) -> Catalog {
    let (objects, crd_objects) = (&loaded.objects, &loaded.crd_objects);
    let mut catalog = Catalog::builtin();
    if let Some(version) = options.kube_version {
        catalog.kube_version = version;
    }
    for group in &loaded.discovered {
        catalog.add_discovered(group);
    }
    for crd in objects.iter().chain(crd_objects).filter_map(|o| o.crd()) {
        catalog.add_crd(crd);
    }
    for kind in &options.kinds {
        catalog.add_crd(kind);
    }
    for object in objects.iter().filter(|o| o.mode == model::Mode::Snapshot) {
        if let (Some(api_version), Some(kind)) = (&object.api_version, &object.kind) {
            catalog.add_captured(&api_version.value, &kind.value);
        }
    }
    catalog
}

/// Run every rule over the input. Rules read the sources through `cx`, so they report into
/// lists of their own; they run in parallel, and their findings are taken in rule order.
fn run_rules(cx: &rules::Context) -> Vec<Finding> {
    rules::RULES
        .par_iter()
        .map(|rule| {
            let mut found = Vec::new();
            if let rules::Check::Input(check) = rule.check {
                check(cx, &mut found);
            }
            found
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect()
}

/// By path, position and rule, then message: the same order on every run.
fn sort_findings(findings: &mut [Finding], sources: &[Source]) {
    findings.sort_by(|a, b| {
        let key = |f: &Finding| {
            (
                sources[f.primary.source.0 as usize].name.as_str(),
                f.primary.span.start,
                f.rule.id,
            )
        };
        key(a).cmp(&key(b)).then_with(|| a.message.cmp(&b.message))
    });
}
