//! Discover: the paths on the command line into the list of inputs, in a deterministic order.
//! Directories are walked recursively (hidden folders and .gitignore'd files skipped, symlink
//! loops detected, symbolic links that lead outside the repository not followed); files given
//! by name are always read.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::analysis::InputError;
use crate::build::{Consumed, Skipped, Target};
use crate::read::repository::{Outside, Repository};
use crate::read::{Files, Input, lexical};
// How reports and the configuration name inputs, and how they walk folders as discovery does.
pub use crate::read::{STDIN_NAME, display_path, walk_entries};

#[derive(Debug, Default)]
pub struct Discovered {
    pub inputs: Vec<Input>,
    pub errors: Vec<InputError>,
    /// Test assertion files (kuttl, chainsaw): partial objects that a test matches against
    /// the cluster, never applied, so not linted.
    pub assertions: Vec<PathBuf>,
    /// Patch files of a kustomization found among the inputs: partial objects that kustomize
    /// merges into others, never applied as they are, so not linted.
    pub patches: Vec<PathBuf>,
    /// Kustomization files met when not building (`--no-render`, or context for `--project`):
    /// kustomize's own configuration, never applied, so not linted as objects.
    pub kustomizations: Vec<PathBuf>,
    /// Helm charts and Kustomize overlays to build and lint as built (unless --no-render).
    pub targets: Vec<Target>,
    /// Charts and overlays met and not built on their own, and why.
    pub skipped: Vec<Skipped>,
    /// Files a build reads (templates, resources, patches, values): counted, not linted alone.
    pub build_files: Vec<PathBuf>,
    /// Folders a walk could not enter (a symbolic-link loop, no permission): reported, but not
    /// an error of the run, since the user did not name them.
    pub skipped_paths: Vec<InputError>,
    /// Files and folders a walk met that are symbolic links leading outside the repository:
    /// not read, and reported (`link-outside-repository`).
    pub outside: Vec<Outside>,
    /// Flux and Argo CD objects whose source is not in the repository.
    pub not_checked: Vec<crate::gitops::NotChecked>,
    /// Folders of plain manifests an Argo CD Application deploys (canonical), with how.
    pub argo_directories: Vec<(PathBuf, std::sync::Arc<crate::gitops::ArgoBuild>)>,
}

/// File-name patterns that select files inside walked directories.
pub struct Filter {
    include: Option<Globs>,
    exclude: Option<Globs>,
    /// The working directory, which relative paths are in.
    cwd: PathBuf,
}

/// Globs and the folder they are relative to.
struct Globs {
    set: GlobSet,
    base: PathBuf,
}

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Whether `path` is named as a manifest is: `.yaml`, `.yml` or `.json`, in any case.
pub fn has_manifest_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

impl Filter {
    /// Globs without a `/` match a file name anywhere; globs with one match the path below
    /// their base: the folder of the configuration file they come from, or the working
    /// directory for those of the command line (`None`). So a glob means the same whichever
    /// folder is named to walk.
    pub fn new(
        include: &[String],
        exclude: &[String],
        include_base: Option<&Path>,
        exclude_base: Option<&Path>,
    ) -> Result<Filter, globset::Error> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let globs =
            |globs: &[String], base: Option<&Path>| -> Result<Option<Globs>, globset::Error> {
                if globs.is_empty() {
                    return Ok(None);
                }
                let base = lexical(&cwd.join(base.unwrap_or(Path::new(""))));
                Ok(Some(Globs {
                    set: build(globs)?,
                    base,
                }))
            };
        Ok(Filter {
            include: globs(include, include_base)?,
            exclude: globs(exclude, exclude_base)?,
            cwd: cwd.clone(),
        })
    }

    /// Whether the file at `path` (as a walk found it) is linted: a YAML or JSON file the
    /// include globs take (if any) and the exclude globs do not.
    pub fn accepts(&self, path: &Path) -> bool {
        if !has_manifest_extension(path) {
            return false;
        }
        let absolute = lexical(&self.cwd.join(path));
        let matches = |globs: &Globs| {
            let relative = absolute.strip_prefix(&globs.base).unwrap_or(&absolute);
            globs.set.is_match(relative)
                || path
                    .file_name()
                    .is_some_and(|n| globs.set.is_match(Path::new(n)))
        };
        self.include.as_ref().is_none_or(matches) && !self.exclude.as_ref().is_some_and(matches)
    }
}

fn build(globs: &[String]) -> Result<GlobSet, globset::Error> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(Glob::new(glob)?);
    }
    builder.build()
}

/// The inputs that `paths` name. With `build`, every chart and overlay met (a directory
/// named, or one a walk passes through, however deep) is to be built, except one that another
/// build reads (a subchart, an overlay's base); every file that no build reads is linted on
/// its own, and a file named on the command line is always linted: through the build that
/// reads it, or alone. Files are as `files` has them: a file named that only a text stands in
/// for (an editor's, not yet saved) is found. A walk stays in the repository of the folder
/// walked, in a run started for `roots` (see [`Repository::of`]).
pub fn discover(
    paths: &[PathBuf],
    roots: &[PathBuf],
    filter: &Filter,
    build: bool,
    configured: &[crate::analysis::BuildConfig],
    files: &Files,
) -> Discovered {
    let mut found = Discovered::default();
    let mut tests = TestAssertions::default();
    // Files in the order met, walked or named: the first name of a file is the one shown.
    let mut met = Vec::new();
    let mut named = Vec::new();
    let mut targets = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            met.push(None);
        } else if path.is_dir() {
            let mut walked = Vec::new();
            let repository = Repository::of(path, roots);
            walk(
                path,
                filter,
                &repository,
                &mut walked,
                &mut targets,
                &mut found,
                build,
            );
            met.extend(walked.into_iter().map(Some));
        } else if path.exists() || files.text(path).is_some() {
            named.push(path.clone());
            met.push(Some(path.clone()));
        } else {
            found.errors.push(InputError {
                path: display_path(path),
                message: "no such file or directory".to_string(),
            });
        }
    }
    let builds = if build {
        plan_builds(targets, &named, &mut found, files)
    } else {
        Vec::new()
    };
    let met_files: Vec<PathBuf> = met.iter().flatten().cloned().collect();
    let read_by_build = |path: &Path| {
        let path = lexical(path);
        builds
            .iter()
            .any(|(_, consumed)| consumed.contains_lexical(&path))
    };
    for path in met {
        let Some(path) = path else {
            found.inputs.push(Input::Stdin);
            continue;
        };
        if read_by_build(&path) {
            found.build_files.push(path);
        } else if tests.is_assertion(&path) {
            found.assertions.push(path);
        } else {
            found.inputs.push(Input::File(path));
        }
    }
    found.targets = builds.into_iter().map(|(target, _)| target).collect();
    if build && let Some(first) = paths.iter().find(|p| p.as_os_str() != "-") {
        let dir = match first.is_dir() {
            true => first.clone(),
            false => first.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        // Flux's paths are relative to the root of the Git repository it syncs: the Git
        // repository holding the folder, or, outside Git, the folder given (not the working
        // folder, which may be any parent of it). Both within the folder builds may read.
        let repository = Repository::of(&dir, roots);
        let cwd = std::env::current_dir().unwrap_or_default();
        let given = std::fs::canonicalize(cwd.join(&dir)).unwrap_or_else(|_| lexical(&dir));
        let flux_root = crate::read::repository_root(&given)
            .and_then(|root| std::fs::canonicalize(root).ok())
            .filter(|root| repository.holds(root))
            .unwrap_or(given);
        built_as_configured(configured, &mut found);
        built_by_flux(&met_files, &flux_root, &mut found, files);
        built_by_argo(&met_files, &flux_root, &mut found, files);
    }
    let mut seen = std::collections::HashSet::new();
    found.inputs.retain(|i| seen.insert(i.clone()));
    let patches = kustomize_patches(&found.inputs, files);
    if !patches.is_empty() {
        let (patch_files, inputs) = std::mem::take(&mut found.inputs)
            .into_iter()
            .partition(|input| matches!(input, Input::File(p) if patches.contains(&lexical(p))));
        found.inputs = inputs;
        found.patches = patch_files
            .into_iter()
            .filter_map(|input| match input {
                Input::File(path) => Some(path),
                Input::Stdin => None,
            })
            .collect();
    }
    if !build {
        let (kustomizations, inputs) = std::mem::take(&mut found.inputs)
            .into_iter()
            .partition(|input| matches!(input, Input::File(p) if is_kustomization_file(p)));
        found.inputs = inputs;
        found.kustomizations = kustomizations
            .into_iter()
            .filter_map(|input| match input {
                Input::File(path) => Some(path),
                Input::Stdin => None,
            })
            .collect();
    }
    found
}

/// The overlays that Flux Kustomizations among `met` build, each built as its Kustomization
/// says (one build for each Kustomization, in place of the build of the overlay alone), and
/// the charts that HelmReleases build, with their values (in place of the chart's build with
/// its default values); and
/// the Flux objects whose source is not in the repository. A path with no kustomization file
/// is built with the one Flux writes there.
fn built_by_flux(met: &[PathBuf], root: &Path, found: &mut Discovered, files: &Files) {
    use std::collections::{HashMap, HashSet};
    let known = known_targets(found);
    let consumed: HashMap<PathBuf, Consumed> = (known.iter())
        .filter(|(_, target)| target.tool == crate::build::Tool::Kustomize)
        .map(|(dir, target)| (dir.clone(), target.consumed(files)))
        .collect();
    let reads = |dir: &Path, file: &Path| consumed.get(dir).is_some_and(|c| c.contains(file));
    let mut plan = crate::gitops::plan(met, root, files, &reads);
    found.not_checked = plan.not_checked;
    // One name in two clusters: each is named with its file too.
    let mut names: HashMap<(&str, String), usize> = HashMap::new();
    for (_, flux) in &plan.builds {
        *names.entry((flux.kind(), flux.name.clone())).or_default() += 1;
    }
    let shared: HashSet<(&str, String)> = (names.into_iter())
        .filter(|(_, count)| *count > 1)
        .map(|(key, _)| key)
        .collect();
    for (_, flux) in &mut plan.builds {
        flux.name_shared = shared.contains(&(flux.kind(), flux.name.clone()));
    }
    let mut replaced = HashSet::new();
    let mut by_flux: Vec<Target> = Vec::new();
    let mut generated = Vec::new();
    for (dir, flux) in plan.builds {
        // A Kustomization builds an overlay, a HelmRelease a chart.
        let tool = match flux.helm {
            Some(_) => crate::build::Tool::Helm,
            None => crate::build::Tool::Kustomize,
        };
        let Some((_, target)) = known.iter().find(|(d, t)| *d == dir && t.tool == tool) else {
            if tool == crate::build::Tool::Kustomize {
                generated.push((dir, flux));
            }
            continue;
        };
        replaced.insert(dir);
        // Its `valuesFrom` and `substituteFrom` entries whose values are not here: said once
        // each, for the build made without them.
        found.not_checked.extend(flux.left_out.iter().cloned());
        let built = Target {
            flux: Some(std::sync::Arc::new(flux)),
            configured: None,
            ..target.clone()
        };
        // What was part of the overlay is part of what the Kustomization builds.
        let (plain, flux) = (
            format!("`{}`", target.command()),
            format!("`{}`", built.command()),
        );
        for skipped in &mut found.skipped {
            if skipped.reason.contains(&plain) && !by_flux.iter().any(|t| t.dir == target.dir) {
                skipped.reason = skipped.reason.replace(&plain, &flux);
            }
        }
        by_flux.push(built);
    }
    replace_targets(found, &replaced, by_flux);
    for (dir, flux) in generated {
        built_with_generated_kustomization(met, &dir, flux, found, files);
    }
}

/// A Flux Kustomization whose path (`dir`, canonical) has no kustomization file: built with
/// the one Flux writes there ([`crate::gitops::kustomization::generate`]). The files it reads
/// are no longer linted alone, and the overlays below it that it builds on are built as part
/// of it.
fn built_with_generated_kustomization(
    met: &[PathBuf],
    dir: &Path,
    mut flux: crate::gitops::FluxBuild,
    found: &mut Discovered,
    files: &Files,
) {
    // The folder as the files met below it name it.
    let named = met.iter().find_map(|file| {
        let real = std::fs::canonicalize(file).ok()?;
        let depth = real.strip_prefix(dir).ok()?.components().count();
        file.ancestors().nth(depth).map(Path::to_path_buf)
    });
    let (Some(named), Some(generated)) = (named, crate::gitops::kustomization::generate(dir))
    else {
        return;
    };
    flux.generated = Some(generated);
    found.not_checked.extend(flux.left_out.iter().cloned());
    let target = Target {
        tool: crate::build::Tool::Kustomize,
        file: named.join("kustomization.yaml"),
        dir: named,
        flux: Some(std::sync::Arc::new(flux)),
        argo: None,
        configured: None,
    };
    let consumed = target.consumed(files);
    let (read, inputs): (Vec<Input>, Vec<Input>) =
        std::mem::take(&mut found.inputs).into_iter().partition(
            |input| matches!(input, Input::File(p) if consumed.contains_lexical(&lexical(p))),
        );
    found.inputs = inputs;
    found
        .build_files
        .extend(read.into_iter().filter_map(|input| match input {
            Input::File(path) => Some(path),
            Input::Stdin => None,
        }));
    // An overlay it builds on, built alone until now, is part of it (unless a Flux object
    // builds that one too).
    let command = format!("`{}`", target.command());
    let (part, alone): (Vec<Target>, Vec<Target>) = std::mem::take(&mut found.targets)
        .into_iter()
        .partition(|t| {
            t.flux.is_none() && t.argo.is_none() && consumed.contains_lexical(&lexical(&t.file))
        });
    found.targets = alone;
    let through = vec![canonical(&target.dir)];
    found.skipped.extend(part.into_iter().map(|t| Skipped {
        target: t,
        reason: format!("part of {command}"),
        part_of_another: true,
        through: through.clone(),
    }));
    found.targets.push(target);
}

/// A folder's path as the plans name it: canonical where it exists.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| lexical(path))
}

/// The charts and overlays found (to build, or built through another), by canonical folder.
fn known_targets(found: &Discovered) -> Vec<(PathBuf, Target)> {
    (found.targets.iter())
        .chain(found.skipped.iter().map(|s| &s.target))
        .map(|t| (canonical(&t.dir), t.clone()))
        .collect()
}

/// `by`, in place of the builds of the folders in `replaced`.
fn replace_targets(
    found: &mut Discovered,
    replaced: &std::collections::HashSet<PathBuf>,
    by: Vec<Target>,
) {
    found
        .targets
        .retain(|t| !replaced.contains(&canonical(&t.dir)));
    found
        .skipped
        .retain(|s| !replaced.contains(&canonical(&s.target.dir)));
    found.targets.extend(by);
}

/// The charts and overlays the configuration's `builds` name, each built with its item's
/// settings (one build for each item, in place of the folder's own build). A Flux or Argo CD
/// object that builds the same folder builds it as it says instead.
fn built_as_configured(configured: &[crate::analysis::BuildConfig], found: &mut Discovered) {
    use std::collections::HashSet;
    if configured.is_empty() {
        return;
    }
    let known = known_targets(found);
    let mut replaced = HashSet::new();
    let mut by_configuration = Vec::new();
    for item in configured {
        let dir = canonical(&item.path);
        // Only a folder the run meets: a build named for another folder is not this run's.
        let Some((_, target)) = known.iter().find(|(d, _)| *d == dir) else {
            continue;
        };
        replaced.insert(dir);
        by_configuration.push(Target {
            configured: Some(std::sync::Arc::new(item.clone())),
            ..target.clone()
        });
    }
    replace_targets(found, &replaced, by_configuration);
}

/// The charts and overlays that Argo CD Applications among `met` build, each built as its
/// Application says (one build for each, in place of the build of the folder alone), the
/// folders of plain manifests they deploy, and the Argo CD objects whose source is not in the
/// repository.
fn built_by_argo(met: &[PathBuf], root: &Path, found: &mut Discovered, files: &Files) {
    use std::collections::HashSet;
    use std::sync::Arc;
    let plan = crate::gitops::argo::plan(met, root, files);
    found.not_checked.extend(plan.not_checked);
    if plan.builds.is_empty() {
        return;
    }
    let known = known_targets(found);
    let mut replaced = HashSet::new();
    let mut seen = HashSet::new();
    let mut by_argo: Vec<Target> = Vec::new();
    for (dir, argo) in plan.builds {
        if !seen.insert((dir.clone(), argo.clone())) {
            continue;
        }
        // argo-cd `util/app/discovery/discovery.go`: a kustomization file wins over a
        // `Chart.yaml`; with neither, the folder is plain manifests. An explicit type wins.
        let found_here = known
            .iter()
            .filter(|(d, _)| *d == dir)
            .map(|(_, t)| t.clone())
            .max_by_key(|t| t.tool == crate::build::Tool::Kustomize)
            .or_else(|| Target::of_dir(&dir));
        let target = match (argo.explicit.as_deref(), found_here) {
            (Some("directory"), _) | (_, None) => {
                found.argo_directories.push((dir, Arc::new(argo)));
                continue;
            }
            (_, Some(target)) => target,
        };
        replaced.insert(dir);
        by_argo.push(Target {
            argo: Some(Arc::new(argo)),
            flux: None,
            configured: None,
            ..target
        });
    }
    replace_targets(found, &replaced, by_argo);
}

/// Whether kustomize reads `path` as a kustomization (by its name, as kustomize finds one).
fn is_kustomization_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| crate::build::KUSTOMIZATION_FILES.iter().any(|k| n == *k))
}

/// Which of the charts and overlays met are built, each with the files it reads: all but
/// those another one reads (a subchart is built by its parent, a base by the overlays among
/// the inputs that build on it; two that read each other are both built, and the tool says
/// what is wrong). A file named on the command line that no build reads but a chart or overlay
/// above it does is built through the outermost such one. What is not built is recorded in
/// `found.skipped`, with the reason.
fn plan_builds(
    mut targets: Vec<Target>,
    named: &[PathBuf],
    found: &mut Discovered,
    files: &Files,
) -> Vec<(Target, Consumed)> {
    for file in named {
        if let Some(target) = building(file, files) {
            targets.push(target);
        }
    }
    // One chart or overlay named twice (`./x` and `/abs/x`, or through a link) is built once.
    let mut seen = std::collections::HashSet::new();
    targets
        .retain(|t| seen.insert(std::fs::canonicalize(&t.dir).unwrap_or_else(|_| lexical(&t.dir))));
    let consumed: Vec<Consumed> = targets.iter().map(|t| t.consumed(files)).collect();
    let mut builds = Vec::new();
    for (i, target) in targets.iter().enumerate() {
        let readers: Vec<usize> = (0..targets.len())
            .filter(|&j| {
                j != i
                    && consumed[j].contains(&target.file)
                    && !consumed[i].contains(&targets[j].file)
            })
            .collect();
        match readers.first() {
            Some(&j) => found.skipped.push(Skipped {
                target: target.clone(),
                reason: format!("part of `{}`", targets[j].command()),
                part_of_another: true,
                through: readers.iter().map(|&j| canonical(&targets[j].dir)).collect(),
            }),
            None if target.is_component(files) => found.skipped.push(Skipped {
                target: target.clone(),
                reason: "a kustomize Component, built only through the overlays that use it, and none among the inputs does"
                    .to_string(),
                part_of_another: false,
                through: Vec::new(),
            }),
            None => builds.push((target.clone(), consumed[i].clone())),
        }
    }
    builds
}

/// The chart or overlay that builds `file`: the nearest folder above it (within the path as
/// written, and the working directory) that is a chart or an overlay reading it, then the
/// outermost one above that reads that one in turn (the parent of a subchart).
fn building(file: &Path, files: &Files) -> Option<Target> {
    let above = |path: &Path| -> Vec<Target> {
        path.ancestors()
            .skip(1)
            .filter_map(|dir| {
                Target::of_dir(if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                })
            })
            .collect()
    };
    let mut target = above(file)
        .into_iter()
        .find(|target| target.consumed(files).contains(file))?;
    loop {
        let outer = above(&target.dir)
            .into_iter()
            .find(|outer| outer.consumed(files).contains(&target.file))
            .or_else(|| target.parent_chart());
        match outer {
            Some(outer) if lexical(&outer.dir) != lexical(&target.dir) => target = outer,
            _ => return Some(target),
        }
    }
}

/// The patch files that the kustomizations among `inputs` name (`patches[].path`,
/// `patchesStrategicMerge`, `patchesJson6902[].path`), as lexical paths.
fn kustomize_patches(inputs: &[Input], files: &Files) -> std::collections::HashSet<PathBuf> {
    use crate::yaml;
    let mut patches = std::collections::HashSet::new();
    let kustomizations = inputs.iter().filter_map(|input| match input {
        Input::File(path) if is_kustomization_file(path) => Some(path),
        _ => None,
    });
    for path in kustomizations {
        let Some(text) = files.read(path) else {
            continue;
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        for root in yaml::roots(&text) {
            for file in crate::build::kustomization_patches(&root) {
                patches.insert(lexical(&dir.join(file)));
            }
        }
    }
    patches
}

/// Walk `root`: the files the filter takes go to `files`, the charts and overlays met (the
/// root included) to `targets` when building. A folder the walk cannot enter (a symbolic
/// link that loops back, a folder it may not read) is reported once as skipped, which does
/// not by itself fail the run: the user named `root`, not it. So is an ignore file that is not
/// a small regular file (see [`walk_entries`]). A symbolic link below `root` that leads
/// outside the repository is not followed: a folder, or a file the filter takes, goes to
/// `found.outside`.
fn walk(
    root: &Path,
    filter: &Filter,
    repository: &Repository,
    files: &mut Vec<PathBuf>,
    targets: &mut Vec<Target>,
    found: &mut Discovered,
    build: bool,
) {
    let (first_file, first_target) = (files.len(), targets.len());
    let mut on_entry = |entry: Result<ignore::DirEntry, ignore::Error>| match entry {
        Ok(entry) => {
            let path = entry.path();
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                if let Some(target) = build.then(|| Target::of_dir(path)).flatten() {
                    targets.push(target);
                }
                return;
            }
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return;
            }
            if filter.accepts(path) {
                files.push(path.to_path_buf());
            }
        }
        Err(err) => found.skipped_paths.push(InputError {
            path: walk_error_path(&err).unwrap_or_else(|| display_path(root)),
            message: walk_error_message(&err),
        }),
    };
    let mut unread = Vec::new();
    let mut outside = Vec::new();
    let in_parts = walk_entries(
        root,
        true,
        Some((repository, &mut outside)),
        &mut on_entry,
        &mut unread,
    );
    found.skipped_paths.extend(unread);
    // What a link names is asked only whether it is a folder: a link to a file the walk
    // would not have linted anyway (`notes.txt`) is not worth a finding.
    found.outside.extend(
        outside
            .into_iter()
            .filter(|outside| outside.path.is_dir() || filter.accepts(&outside.path)),
    );
    if in_parts {
        // Folders walked apart come after the rest: back in the order of one walk.
        files[first_file..].sort_by(|a, b| a.components().cmp(b.components()));
        targets[first_target..].sort_by(|a, b| a.dir.components().cmp(b.dir.components()));
    }
}

/// The path a walk error is about.
fn walk_error_path(err: &ignore::Error) -> Option<String> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(display_path(path)),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(display_path(child)),
        _ => None,
    }
}

/// A walk error said plainly, without the path it is reported at.
fn walk_error_message(err: &ignore::Error) -> String {
    match err {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => walk_error_message(err),
        ignore::Error::Loop { ancestor, .. } => format!(
            "a symbolic link back to {}, which is already walked: not followed",
            display_path(ancestor)
        ),
        other => format!("{other}: skipped"),
    }
}

/// Tells test assertion files apart: kuttl's and chainsaw's conventional names
/// (`00-assert.yaml`, `01-errors.yaml`, `02-assert-pods.yaml`), and the files a chainsaw test
/// (`chainsaw-test.yaml` beside them) names in an `assert` or `error` operation. Each folder's
/// chainsaw test is read once.
#[derive(Default)]
struct TestAssertions {
    chainsaw: std::collections::HashMap<PathBuf, Option<GlobSet>>,
}

impl TestAssertions {
    fn is_assertion(&mut self, path: &Path) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        if is_conventional_assertion(name) {
            return true;
        }
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        self.chainsaw
            .entry(dir)
            .or_insert_with_key(|dir| chainsaw_assertions(dir))
            .as_ref()
            .is_some_and(|files| files.is_match(name))
    }
}

/// `<step>-assert….yaml` and `<step>-errors….yaml`, the names kuttl (and chainsaw without a
/// test file) give the files a step matches against the cluster.
fn is_conventional_assertion(name: &str) -> bool {
    let Some((step, rest)) = name.split_once('-') else {
        return false;
    };
    let stem = rest
        .strip_suffix(".yaml")
        .or_else(|| rest.strip_suffix(".yml"))
        .unwrap_or("");
    !step.is_empty()
        && step.bytes().all(|b| b.is_ascii_digit())
        && ["assert", "errors"].into_iter().any(|kind| {
            stem.strip_prefix(kind)
                .is_some_and(|after| after.is_empty() || after.starts_with('-'))
        })
}

/// The files (or globs) that the `assert` and `error` operations of the chainsaw test in
/// `dir` name, if it has one.
fn chainsaw_assertions(dir: &Path) -> Option<GlobSet> {
    use crate::yaml;
    let text = ["chainsaw-test.yaml", "chainsaw-test.yml"]
        .iter()
        .find_map(|name| crate::read::small_file(&dir.join(name)).ok())?;
    let mut builder = GlobSetBuilder::new();
    for root in yaml::roots(&text) {
        let steps = root.get("spec").and_then(|s| s.get("steps")?.as_seq());
        for step in steps.unwrap_or_default() {
            for block in ["try", "catch", "finally"] {
                for operation in step.get(block).and_then(|b| b.as_seq()).unwrap_or_default() {
                    for kind in ["assert", "error"] {
                        let file = operation
                            .get(kind)
                            .and_then(|o| o.get("file"))
                            .and_then(|f| f.as_str());
                        if let Some(glob) =
                            file.and_then(|f| Glob::new(f.trim_start_matches("./")).ok())
                        {
                            builder.add(glob);
                        }
                    }
                }
            }
        }
    }
    builder.build().ok()
}
