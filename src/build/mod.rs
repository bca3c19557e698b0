//! Build: the Helm charts and Kustomize overlays among the inputs are built with the tools
//! people deploy them with (`helm template`, `kustomize build` or `kubectl kustomize`), so that
//! what is linted is what a cluster would get. Each is built from a private copy of the files
//! it reads, in which no symbolic link leads outside the repository (`copy`; a chart made only
//! of regular files is built where it is). Each build is a stream of its own; [`map`] takes
//! each finding in it back to the file, and where it can the line, that the object came from.

mod argo;
mod cache;
mod configured;
mod consumed;
mod copy;
mod dependencies;
mod environment;
mod helm;
mod kustomize;
mod kustomize_error;
pub mod map;
mod reads;
mod remote;
mod running;
mod tool;
mod walk;

pub use cache::{BuildCache, Pending};
pub use consumed::Consumed;
pub use copy::Outside;

pub use remote::ALLOW_FLAG as ALLOW_REMOTE_FLAG;
pub use running::end_every_build;
pub use tool::{helm_program, kustomize_program};
use tool::{one_bounded_line, run_tool, tool_message};

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub use crate::analysis::BuildOptions;
use crate::gitops::{ArgoBuild, FluxBuild};
use crate::read::{Files, display_path, lexical};
pub use crate::source::Tool;

/// A chart or an overlay to build.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub tool: Tool,
    /// The directory, as given or found by the walk.
    pub dir: PathBuf,
    /// The file that makes it one: `Chart.yaml`, or the kustomization file.
    pub file: PathBuf,
    /// The Flux Kustomization (of an overlay) or HelmRelease (of a chart) that builds it, and
    /// how.
    pub flux: Option<Arc<FluxBuild>>,
    /// The Argo CD Application that builds it, and how.
    pub argo: Option<Arc<ArgoBuild>>,
    /// The item of the configuration's `builds` that builds it, and how.
    pub configured: Option<Arc<crate::analysis::BuildConfig>>,
}

/// The names kustomize reads a kustomization from, in the order it looks for them.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

impl Target {
    /// The chart or overlay that `dir` is, if it is one.
    pub fn of_dir(dir: &Path) -> Option<Target> {
        let chart = dir.join("Chart.yaml");
        if chart.is_file() {
            return Some(Target {
                tool: Tool::Helm,
                dir: dir.to_path_buf(),
                file: chart,
                flux: None,
                argo: None,
                configured: None,
            });
        }
        KUSTOMIZATION_FILES
            .iter()
            .map(|name| dir.join(name))
            .find(|file| file.is_file())
            .map(|file| Target {
                tool: Tool::Kustomize,
                dir: dir.to_path_buf(),
                file,
                flux: None,
                argo: None,
                configured: None,
            })
    }

    /// Whether this is a kustomize `Component`, which is built only as part of the overlays
    /// that use it.
    pub fn is_component(&self, files: &Files) -> bool {
        self.tool == Tool::Kustomize && kustomize::is_component(&self.file, files)
    }

    /// The chart this chart is a subchart of (`PARENT/charts/THIS`), if it is one: a subchart
    /// takes its parent's values and helpers, and is built only through it.
    pub fn parent_chart(&self) -> Option<Target> {
        if self.tool != Tool::Helm {
            return None;
        }
        let real = std::fs::canonicalize(&self.dir).ok()?;
        if real.parent()?.file_name()? != "charts" {
            return None;
        }
        let parent = match lexical(&self.dir.join("../..")) {
            dir if dir.as_os_str().is_empty() => PathBuf::from("."),
            dir => dir,
        };
        let parent = Target::of_dir(&parent)?;
        (parent.tool == Tool::Helm).then_some(parent)
    }

    /// The folder as shown: as named, without `./` or a trailing `/` (`.` for the working
    /// directory).
    pub fn shown_dir(&self) -> String {
        match display_path(&self.dir) {
            dir if dir.is_empty() => ".".to_string(),
            dir => dir.trim_end_matches('/').to_string(),
        }
    }

    /// How the build is shown, as the command that runs it: `helm template charts/shop`,
    /// `kubectl kustomize overlays/prod` (or `kustomize build overlays/prod`).
    pub fn command(&self) -> String {
        let dir = self.shown_dir();
        if let Some(flux) = &self.flux {
            return flux.describe();
        }
        if let Some(argo) = &self.argo {
            return argo.describe();
        }
        if let Some(configured) = &self.configured {
            return format!(
                "{} {dir} ({})",
                match self.tool {
                    Tool::Helm => "helm template".to_string(),
                    Tool::Kustomize => tool::kustomize_command().to_string(),
                },
                configured::describe(configured)
            );
        }
        match self.tool {
            Tool::Helm => format!("helm template {dir}"),
            Tool::Kustomize => format!("{} {dir}", tool::kustomize_command()),
        }
    }

    /// The name the built stream is reported under where a finding cannot be taken back to a
    /// file.
    pub fn stream_name(&self) -> String {
        if let Some(flux) = &self.flux {
            // One folder may be built by Kustomizations of one name in several clusters.
            return format!(
                "{} (built by Flux {} {} of {})",
                self.shown_dir(),
                flux.kind(),
                flux.name,
                display_path(&flux.file)
            );
        }
        if let Some(argo) = &self.argo {
            return format!(
                "{} (built by Argo CD {} of {})",
                self.shown_dir(),
                argo.name,
                display_path(&argo.file)
            );
        }
        if let Some(configured) = &self.configured {
            return format!(
                "{} ({})",
                self.shown_dir(),
                configured::describe(configured)
            );
        }
        format!("{} (built)", self.shown_dir())
    }
}

/// A built chart or overlay.
#[derive(Clone, Debug)]
pub struct Built {
    pub target: Target,
    /// What the tool printed (taken by the build stage, which gives it to be linted as an input).
    pub text: String,
    pub origins: Origins,
}

/// What turns a document's origin into the file it came from.
#[derive(Clone, Debug)]
pub enum Origins {
    /// `# Source: shop/charts/sub/templates/x.yaml` names charts by their `Chart.yaml` name:
    /// each chart's name path, with its directory.
    Helm { charts: HashMap<String, PathBuf> },
    /// `config.kubernetes.io/origin` paths are relative to the wrapper kustomization the
    /// overlay was built through (`wrapper`, canonical), and `dir` is the overlay's canonical
    /// directory. An overlay built from a copy (with an editor's unsaved texts) has `moved`:
    /// the copy's folder and the real folder it stands for.
    Kustomize {
        wrapper: PathBuf,
        dir: PathBuf,
        moved: Option<(PathBuf, PathBuf)>,
    },
}

impl Built {
    /// The file an origin path names, as the user would write it (relative to where the
    /// overlay was named from).
    pub fn origin_file(&self, origin: &str) -> PathBuf {
        match &self.origins {
            Origins::Helm { charts } => helm::template_file(charts, &self.target.dir, origin),
            Origins::Kustomize {
                wrapper,
                dir,
                moved,
            } => {
                let mut file = lexical(&wrapper.join(origin));
                if let Some((copy, real)) = moved
                    && let Ok(inside) = file.strip_prefix(copy)
                {
                    file = real.join(inside);
                }
                self.shown(dir, &file)
            }
        }
    }

    /// A file (absolute, real) as the user would name it: below the folder built, by the path
    /// the folder was named with; elsewhere, relative to the working directory (a folder named
    /// through a symbolic link is not where the files beside its target are).
    fn shown(&self, real_dir: &Path, file: &Path) -> PathBuf {
        as_named(&self.target, real_dir, file)
    }
}

/// A file (absolute, real) as the user would name it: below `target`'s folder (whose real
/// path is `real_dir`), by the path the folder was named with; elsewhere, relative to the
/// working directory.
fn as_named(target: &Target, real_dir: &Path, file: &Path) -> PathBuf {
    if let Ok(inside) = file.strip_prefix(real_dir) {
        return target.dir.join(inside);
    }
    // A folder named by its absolute path (as an editor names its folders): the file by the
    // path of the nearest folder above the build that holds it.
    if target.dir.is_absolute() {
        for above in target.dir.ancestors().skip(1) {
            if let Ok(real) = std::fs::canonicalize(above)
                && let Ok(inside) = file.strip_prefix(&real)
            {
                return above.join(inside);
            }
        }
        return file.to_path_buf();
    }
    match std::env::current_dir().and_then(std::fs::canonicalize) {
        Ok(cwd) => relative(&cwd, file),
        Err(_) => file.to_path_buf(),
    }
}

/// A chart or an overlay met and not built on its own.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub target: Target,
    pub reason: String,
    /// Built as part of another build (a subchart, a base): what it builds is checked when
    /// one of those builds is.
    pub part_of_another: bool,
    /// The folders (canonical) of the builds it is part of.
    pub through: Vec<PathBuf>,
}

/// Why a chart or overlay was not linted.
#[derive(Clone, Debug)]
pub struct Failure {
    pub target: Target,
    /// The file to report it at: the tool's own error position when it names one, else the
    /// chart's `Chart.yaml` or the kustomization file.
    pub file: PathBuf,
    /// 1-based line and column in `file`, when the tool said.
    pub at: Option<(usize, usize)>,
    pub message: String,
    /// The tool is not installed: nothing is wrong with the chart or overlay.
    pub missing_tool: bool,
}

/// What a build is given besides its chart or overlay.
#[derive(Clone, Debug, Hash)]
pub struct BuildSettings<'a> {
    pub options: &'a BuildOptions,
    /// The namespace of namespaced objects that name none.
    pub namespace: &'a str,
    /// `--kube-version`, as helm takes it (`v1.30.0`).
    pub kube_version: Option<String>,
    /// The paths the run was given: outside a git work tree, the repository a build may read
    /// from is the outermost of them (or the working directory) that holds it.
    pub roots: &'a [PathBuf],
}

/// Build `target` from its files as they are on disk.
fn build_as_it_is(
    target: &Target,
    options: &BuildSettings,
    stop: Option<&AtomicBool>,
) -> BuildResult {
    if let Some(argo) = &target.argo {
        return argo::build(target, argo, options, stop);
    }
    if let Some(configured) = &target.configured
        && target.tool == Tool::Helm
    {
        return configured::build(target, configured, options, stop);
    }
    match target.tool {
        Tool::Helm => helm::build(
            target,
            options.options,
            options.namespace,
            options.kube_version.clone(),
            stop,
        ),
        Tool::Kustomize => kustomize::build(target, options.options, stop),
    }
}

/// What building a chart or an overlay gave.
type BuildResult = Result<Built, Box<Failure>>;

/// A build, and what was left out of it because it leads outside the repository.
#[derive(Clone, Debug)]
struct Build {
    result: BuildResult,
    left_out: Vec<Outside>,
}

/// A path a chart or an overlay would have read that leads outside the repository, and was
/// left out of its build; or one a walk of a folder met, and did not read.
#[derive(Clone, Debug)]
pub struct LeftOut {
    /// The build that would have read it; none for a walk.
    pub target: Option<Target>,
    pub outside: Outside,
}

/// The build stage: build each of `targets` (in parallel: each is a process of its own) from
/// its files as `files` has them, stopping as soon as `stop` is set. With a `cache`, a build
/// whose files and options are those of a build there is taken from it, and the cache then
/// holds these builds and no others; a cache that builds in the background may leave some
/// builds running, which are then neither built nor failed here. Gives the builds, each built
/// stream's text under the name it is read under, and `skipped`.
pub fn build_all(
    targets: &[Target],
    options: &BuildSettings,
    files: &Files,
    cache: Option<&mut BuildCache>,
    stop: Option<&AtomicBool>,
    skipped: Vec<Skipped>,
) -> (Builds, Vec<(String, String)>) {
    use rayon::prelude::*;
    let built: Vec<Build> = match cache {
        None => targets
            .par_iter()
            .map(|target| build(target, options, files, stop))
            .collect(),
        Some(cache) => cache::build_cached(targets, options, files, cache, stop),
    };
    let mut builds = Builds {
        files: files.clone(),
        skipped,
        ..Builds::default()
    };
    let mut streams = Vec::new();
    // A cache that builds in the background gives only the builds that ended: each is paired
    // with its own target.
    for build in built {
        let target = match &build.result {
            Ok(built) => &built.target,
            Err(failure) => &failure.target,
        };
        builds
            .left_out
            .extend(build.left_out.iter().map(|outside| LeftOut {
                target: Some(target.clone()),
                outside: outside.clone(),
            }));
        match build.result {
            Ok(mut built) => {
                let name = built.target.stream_name();
                // The text is read as an input; the build keeps what maps findings back.
                streams.push((name.clone(), std::mem::take(&mut built.text)));
                builds.built.insert(name, built);
            }
            Err(mut failure) => {
                failure.message = one_bounded_line(&failure.message);
                builds.failures.push(*failure);
            }
        }
    }
    (builds, streams)
}

/// Build `target` with the tool from a private copy of the files it reads (with the texts of
/// `files` where they stand in for files), in which no symbolic link leads outside the
/// repository, and take what the build says back to the real files (a chart of regular files
/// only, none edited, is built where it is). Gives the build, and what
/// was left out of the copy because it leads outside. Stopped (the tool's process ended) as
/// soon as `stop` is set.
fn build(
    target: &Target,
    options: &BuildSettings,
    files: &Files,
    stop: Option<&AtomicBool>,
) -> Build {
    let repository = copy::Repository::of(&target.dir, options.roots);
    let plan = copy::Plan::of(target, files, &repository);
    let left_out = plan.left_out.clone();
    // A chart of regular files only, none of them edited, is what helm reads where it is: a
    // big chart is not copied for nothing. An overlay is always built from a copy, which holds
    // only the files it names: kustomize may follow a field ownerlint does not read.
    let as_it_is = plan.only_regular
        && plan.left_out.is_empty()
        && plan.dependencies.is_empty()
        && plan
            .files
            .iter()
            .all(|(named, _)| files.text(named).is_none());
    Build {
        result: match as_it_is {
            true => build_as_it_is(target, options, stop),
            false => build_copy(target, options, files, stop, plan),
        },
        left_out,
    }
}

/// [`build`] from the copy `plan` says.
fn build_copy(
    target: &Target,
    options: &BuildSettings,
    files: &Files,
    stop: Option<&AtomicBool>,
    mut plan: copy::Plan,
) -> BuildResult {
    let fail = |message: String| {
        Box::new(Failure {
            target: target.clone(),
            file: target.file.clone(),
            at: None,
            message,
            missing_tool: false,
        })
    };
    // A chart or an overlay whose own folder leads outside the repository is not built.
    let dir = lexical(&plan.dir);
    if plan.files.is_empty() && !plan.left_out.is_empty() {
        return Ok(Built {
            target: target.clone(),
            text: String::new(),
            origins: match target.tool {
                Tool::Helm => Origins::Helm {
                    charts: HashMap::new(),
                },
                Tool::Kustomize => Origins::Kustomize {
                    wrapper: PathBuf::new(),
                    dir: PathBuf::new(),
                    moved: None,
                },
            },
        });
    }
    // The copy holds the files below the folder that holds them all: a chart's own folder;
    // for an overlay, the folder above it and every base it reaches (as absolute paths, so
    // that one named `../base` stays below it).
    // A chart's `file://` dependencies may be above it (`../common`): then it too is placed
    // by absolute paths.
    let cwd = std::env::current_dir().unwrap_or_default();
    let dependencies = std::mem::take(&mut plan.dependencies);
    let absolute = |path: &Path| match target.tool {
        Tool::Helm if dependencies.is_empty() => lexical(path),
        Tool::Helm | Tool::Kustomize => lexical(&cwd.join(path)),
    };
    let placed: Vec<(PathBuf, PathBuf, PathBuf)> = plan
        .files
        .into_iter()
        .map(|(named, real)| (absolute(&named), named, real))
        .collect();
    let root = copy::common_root(&absolute(&dir), placed.iter().map(|(at, _, _)| at));
    // Private (0700), and removed when ownerlint ends, even in the middle of this build.
    let copy = running::private_folder("ownerlint-build-").map_err(|e| {
        fail(format!(
            "cannot make a temporary folder to build it from: {e}"
        ))
    })?;
    let copy_root = std::fs::canonicalize(copy.path()).unwrap_or_else(|_| copy.path().into());
    for (at, named, real) in &placed {
        let Some(inside) = at.strip_prefix(&root).ok().filter(|p| copy::stays_below(p)) else {
            continue;
        };
        if let Err(e) = copy::copy_file(files, named, real, &copy_root.join(inside)) {
            return Err(fail(format!(
                "cannot copy {} to build it: {e}",
                display_path(named)
            )));
        }
    }
    let moved = |path: &Path| -> PathBuf {
        match path.strip_prefix(&copy_root) {
            Ok(inside) => root.join(inside),
            Err(_) => path.to_path_buf(),
        }
    };
    let in_copy = |path: &Path| {
        path.strip_prefix(&root)
            .ok()
            .filter(|p| copy::stays_below(p))
            .map(|p| match p.as_os_str().is_empty() {
                true => copy_root.clone(),
                false => copy_root.join(p),
            })
    };
    let (Some(copy_dir), Some(copy_file)) =
        (in_copy(&absolute(&dir)), in_copy(&absolute(&plan.file)))
    else {
        return Err(fail(
            "cannot place it in a temporary folder to build it from".to_string(),
        ));
    };
    // The folder the tool needs, even when none of the files it reads is below it.
    if let Err(e) = std::fs::create_dir_all(&copy_dir) {
        return Err(fail(format!(
            "cannot make a temporary folder to build it from: {e}"
        )));
    }
    // A Flux Kustomization writes its settings into the overlay's kustomization, as its
    // controller does (see `crate::gitops::kustomization`).
    let settings = (target.flux.as_deref())
        .or_else(|| target.argo.as_ref().and_then(|a| a.kustomize.as_ref()));
    let mut rewritten = false;
    if let Some(flux) = settings
        && let Some(text) = (files.read(&plan.file)).or_else(|| flux.generated.clone())
        && let Some(kustomization) = crate::gitops::kustomization::rewrite(&text, flux)
    {
        if let Err(e) = std::fs::write(&copy_file, kustomization) {
            return Err(fail(format!(
                "cannot write its kustomization to build it: {e}"
            )));
        }
        rewritten = true;
    }
    let copied = Target {
        tool: target.tool,
        dir: copy_dir.clone(),
        file: copy_file.clone(),
        flux: target.flux.clone(),
        argo: target.argo.clone(),
        configured: target.configured.clone(),
    };
    let built = match build_dependencies(&copied, &dependencies, options, stop, in_copy, absolute) {
        Ok(()) => build_as_it_is(&copied, options, stop),
        Err(failure) => Err(failure),
    };
    match built {
        Ok(mut built) => {
            built.target = target.clone();
            // Flux substitutes its `postBuild` variables in each object built.
            if let Some(vars) = target.flux.as_ref().and_then(|f| f.substitute.as_ref()) {
                built.text = crate::gitops::envsubst::substitute_stream(&built.text, vars);
            }
            built.origins = match built.origins {
                Origins::Helm { charts } => Origins::Helm {
                    charts: (charts.into_iter())
                        .map(|(name, chart)| match dependencies.is_empty() {
                            true => (name, moved(&chart)),
                            // Placed by absolute paths: named as the user names them.
                            false => (name, as_named(target, &absolute(&dir), &moved(&chart))),
                        })
                        .collect(),
                },
                Origins::Kustomize { wrapper, .. } => Origins::Kustomize {
                    wrapper,
                    dir: std::fs::canonicalize(&target.dir).unwrap_or_else(|_| dir.clone()),
                    moved: Some((
                        copy_root.clone(),
                        std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone()),
                    )),
                },
            };
            Ok(built)
        }
        Err(mut failure) => {
            failure.target = target.clone();
            // A place in the kustomization written for the build is not one in the user's.
            if rewritten && failure.file == copy_file {
                failure.at = None;
            }
            // The file as the user names it (below the folder built: by the path it was
            // named with).
            failure.file = match failure.file == copy_file {
                true => target.file.clone(),
                false => as_named(target, &absolute(&dir), &moved(&failure.file)),
            };
            // A kustomization Flux writes is in no file: said at the Kustomization's path.
            let flux = (target.flux.as_deref()).filter(|f| f.generated.is_some());
            if let Some(flux) = flux.filter(|_| failure.file == target.file) {
                failure.file = flux.file.clone();
                failure.at = flux.path_at;
            }
            // The copy's paths in the tool's message are the real ones: the folder built as
            // it was named, anything else below the copy by its real folder.
            let shown_real = match display_path(&root) {
                shown if shown.is_empty() => ".".to_string(),
                shown => shown,
            };
            // A file of an overlay built as `.` is named as the user names it, without `./`.
            let shown_copy_dir = display_path(&copy_dir);
            let mut message = failure.message.clone();
            if target.shown_dir() == "." {
                message = message.replace(&format!("{shown_copy_dir}/"), "");
            }
            failure.message = message
                .replace(&shown_copy_dir, &target.shown_dir())
                .replace(&display_path(&copy_root), &shown_real)
                .replace(&display_path(copy.path()), &shown_real);
            // kustomize's error about a file an entry names: that entry, found again in the
            // user's kustomization (or a base's) by the message as it now reads.
            if rewritten
                && failure.at.is_none()
                && target.tool == Tool::Kustomize
                && let Some((file, at)) =
                    kustomize_error::entry_named_in(&target.dir, None, &[&failure.message])
            {
                failure.file = file;
                failure.at = Some(at);
            }
            Err(failure)
        }
    }
}

/// Build the `file://` dependencies of the chart copied as `copied` into its `charts/` (see
/// [`dependencies`]), each from its copy; a failure is reported at the first one's entry.
fn build_dependencies(
    copied: &Target,
    missing: &[dependencies::FileDependency],
    options: &BuildSettings,
    stop: Option<&AtomicBool>,
    in_copy: impl Fn(&Path) -> Option<PathBuf>,
    absolute: impl Fn(&Path) -> PathBuf,
) -> Result<(), Box<Failure>> {
    if missing.is_empty() {
        return Ok(());
    }
    let copies: Vec<_> = (missing.iter())
        .filter_map(|dependency| Some((dependency, in_copy(&absolute(&dependency.dir))?)))
        .collect();
    let timeout = options.options.timeout;
    dependencies::build_file_dependencies(&copied.dir, &copies, timeout, stop).map_err(|message| {
        let at = std::fs::read_to_string(&copied.file)
            .ok()
            .and_then(|text| dependencies::dependency_entry(&text, &missing.first()?.entry.name));
        Box::new(Failure {
            target: copied.clone(),
            file: copied.file.clone(),
            at,
            missing_tool: message.starts_with("helm is not on PATH"),
            message,
        })
    })
}

/// The built streams of a run, by the name they are read under, and what could not be built.
#[derive(Debug, Default)]
pub struct Builds {
    pub built: HashMap<String, Built>,
    pub failures: Vec<Failure>,
    /// What the builds would have read that leads outside the repository: left out.
    pub left_out: Vec<LeftOut>,
    /// Met, and not built on their own.
    pub skipped: Vec<Skipped>,
    /// Flux and Argo CD objects whose source is not in the repository: not checked.
    pub not_checked: Vec<crate::gitops::NotChecked>,
    /// Folders of plain manifests Argo CD Applications deploy (canonical), with how.
    pub argo_directories: Vec<(PathBuf, Arc<ArgoBuild>)>,
    /// The files as the builds read them: findings are taken back to the texts that stood in
    /// for files (an editor's unsaved buffers), not to the files on disk.
    pub files: Files,
}

impl Builds {
    /// The text of `path` as the builds read it.
    pub fn read(&self, path: &Path) -> Option<String> {
        self.files.read(path)
    }
}

/// The patch files a kustomization names (`patches[].path`, `patchesStrategicMerge`,
/// `patchesJson6902[].path`), as written: relative to its folder.
pub fn kustomization_patches(root: &crate::yaml::Node) -> Vec<&str> {
    let list = |key: &str| root.get(key).and_then(|l| l.as_seq()).unwrap_or_default();
    // A strategic merge patch is a file name, or the patch itself (several lines).
    let named = list("patchesStrategicMerge")
        .iter()
        .filter_map(|p| p.as_str())
        .filter(|p| !p.contains('\n'));
    let with_path = list("patches")
        .iter()
        .chain(list("patchesJson6902"))
        .filter_map(|p| p.get("path")?.as_str());
    named.chain(with_path).collect()
}

/// What a kustomization builds on, as written (relative to its folder): its `resources`,
/// `bases` and `components`.
pub fn kustomization_builds_on(root: &crate::yaml::Node) -> Vec<&str> {
    ["resources", "bases", "components"]
        .into_iter()
        .filter_map(|key| root.get(key)?.as_seq())
        .flatten()
        .filter_map(|entry| entry.as_str())
        .collect()
}

/// The path from directory `from` to `to`, both absolute and lexical.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for component in &to[common..] {
        out.push(component);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_message_is_one_line_cut_at_a_character() {
        assert_eq!(
            one_bounded_line("Error: one\n\n  two  \nthree"),
            "Error: one two three"
        );
        let long = format!("{}é{}", "a".repeat(999), "b".repeat(500));
        let cut = one_bounded_line(&long);
        assert_eq!(cut, format!("{}é… (500 more characters)", "a".repeat(999)));
    }

    #[test]
    fn relative_paths_climb_and_descend() {
        assert_eq!(
            relative(Path::new("/a/b/c"), Path::new("/a/d/e.yaml")),
            PathBuf::from("../../d/e.yaml")
        );
        assert_eq!(
            lexical(Path::new("x/overlays/prod/../../base/e.yaml")),
            PathBuf::from("x/base/e.yaml")
        );
        assert_eq!(lexical(Path::new("../a/./b")), PathBuf::from("../a/b"));
    }
}
