//! Discover: the paths on the command line into the list of inputs, in a deterministic order.
//! Directories are walked recursively (hidden folders and .gitignore'd files skipped, symlink
//! loops detected); files given by name are always read.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::render::lexical;

/// How standard input is named in reports.
pub const STDIN_NAME: &str = "<stdin>";

/// One input to read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_string(),
            Input::File(p) => display_path(p),
        }
    }
}

/// A path shown without a leading `./`.
pub fn display_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    text.strip_prefix("./").unwrap_or(&text).to_string()
}

/// A path that could not be read or walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub path: String,
    pub message: String,
}

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
    /// Helm charts and Kustomize overlays to build and lint as built (when rendering is on).
    pub renders: Vec<crate::render::Target>,
}

/// File-name patterns that select files inside walked directories.
pub struct Filter {
    include: Option<GlobSet>,
    exclude: GlobSet,
}

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

impl Filter {
    /// Globs without a `/` match a file name anywhere; globs with one match the path below the
    /// walked directory.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Filter, globset::Error> {
        Ok(Filter {
            include: if include.is_empty() {
                None
            } else {
                Some(build(include)?)
            },
            exclude: build(exclude)?,
        })
    }

    /// Whether a file at `relative` (to the folder walked) is linted: a YAML or JSON file the
    /// include globs take (if any) and the exclude globs do not.
    pub fn accepts(&self, relative: &Path) -> bool {
        let has_extension = relative
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
        let matches = |set: &GlobSet| {
            set.is_match(relative)
                || relative
                    .file_name()
                    .is_some_and(|n| set.is_match(Path::new(n)))
        };
        has_extension && self.include.as_ref().is_none_or(&matches) && !matches(&self.exclude)
    }
}

fn build(globs: &[String]) -> Result<GlobSet, globset::Error> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(Glob::new(glob)?);
    }
    builder.build()
}

/// The inputs that `paths` name. With `render`, a chart or an overlay (a directory named, met
/// by a walk, or holding a file named) is to be built instead of read file by file.
pub fn discover(paths: &[PathBuf], filter: &Filter, render: bool) -> Discovered {
    use crate::render::Target;
    let mut found = Discovered::default();
    let mut tests = TestAssertions::default();
    for path in paths {
        if path.as_os_str() == "-" {
            found.inputs.push(Input::Stdin);
        } else if let Some(target) = render.then(|| Target::of_dir(path)).flatten() {
            found.renders.push(target);
        } else if path.is_dir() {
            walk(path, filter, &mut tests, &mut found, render);
        } else if path.exists() {
            if let Some(target) = render.then(|| Target::holding(path)).flatten() {
                found.renders.push(target);
            } else if tests.is_assertion(path) {
                found.assertions.push(path.clone());
            } else {
                found.inputs.push(Input::File(path.clone()));
            }
        } else {
            found.errors.push(InputError {
                path: display_path(path),
                message: "no such file or directory".to_string(),
            });
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.inputs.retain(|i| seen.insert(i.clone()));
    // One chart or overlay named twice (`./x` and `/abs/x`, or through a link) is built once.
    let mut seen = std::collections::HashSet::new();
    found
        .renders
        .retain(|t| seen.insert(std::fs::canonicalize(&t.dir).unwrap_or_else(|_| lexical(&t.dir))));
    let bases = kustomize_bases(&found.renders);
    found.renders.retain(|t| !bases.contains(&lexical(&t.dir)));
    let patches = kustomize_patches(&found.inputs);
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
    found
}

/// The patch files that the kustomizations among `inputs` name (`patches[].path`,
/// `patchesStrategicMerge`, `patchesJson6902[].path`), as lexical paths.
fn kustomize_patches(inputs: &[Input]) -> std::collections::HashSet<PathBuf> {
    use crate::yaml;
    let mut patches = std::collections::HashSet::new();
    let kustomizations = inputs.iter().filter_map(|input| match input {
        Input::File(path)
            if path.file_name().is_some_and(|n| {
                n == "kustomization.yaml" || n == "kustomization.yml" || n == "Kustomization"
            }) =>
        {
            Some(path)
        }
        _ => None,
    });
    for path in kustomizations {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        for root in yaml::roots(&text) {
            for file in crate::render::kustomization_patches(&root) {
                patches.insert(lexical(&dir.join(file)));
            }
        }
    }
    patches
}

/// The overlays that another overlay among `targets` builds on (`resources`, `bases`,
/// `components`): they are linted as part of it, not again alone.
fn kustomize_bases(targets: &[crate::render::Target]) -> std::collections::HashSet<PathBuf> {
    use crate::yaml;
    let mut bases = std::collections::HashSet::new();
    for target in targets {
        if target.tool != crate::render::Tool::Kustomize {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&target.file) else {
            continue;
        };
        for root in yaml::roots(&text) {
            for entry in crate::render::kustomization_builds_on(&root) {
                bases.insert(lexical(&target.dir.join(entry)));
            }
        }
    }
    bases
}

fn walk(
    root: &Path,
    filter: &Filter,
    tests: &mut TestAssertions,
    found: &mut Discovered,
    render: bool,
) {
    use std::sync::{Arc, Mutex};
    // A chart or an overlay met on the way is built, and its files are not walked.
    let targets = Arc::new(Mutex::new(Vec::new()));
    let met = Arc::clone(&targets);
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(true)
        // Entries of one directory differ only in their names: comparing those bytes gives the
        // order comparing whole paths does, without splitting each path into components.
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            if !render || !entry.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            match crate::render::Target::of_dir(entry.path()) {
                Some(target) => {
                    if let Ok(mut met) = met.lock() {
                        met.push(target);
                    }
                    false
                }
                None => true,
            }
        })
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let path = entry.path();
                let relative = path.strip_prefix(root).unwrap_or(path);
                if !filter.accepts(relative) {
                    continue;
                }
                if tests.is_assertion(path) {
                    found.assertions.push(path.to_path_buf());
                } else {
                    found.inputs.push(Input::File(path.to_path_buf()));
                }
            }
            Err(err) => found.errors.push(InputError {
                path: display_path(root),
                message: err.to_string(),
            }),
        }
    }
    if let Ok(mut met) = targets.lock() {
        found.renders.append(&mut met);
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
        .find_map(|name| std::fs::read_to_string(dir.join(name)).ok())?;
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
