//! What a run is asked (`Options`) and what it learns (`Outcome`, and with the objects and
//! their resolved references, `Analysis`): the types the command line, the reports, `tree`,
//! `delete-preview` and editors work with.

use std::path::PathBuf;
use std::time::Duration;

use crate::catalog::{Catalog, CrdInfo, KubeVersion};
use crate::finding::{Finding, Level, Severity};
use crate::load::ModeChoice;
use crate::model::Object;
use crate::source::{Source, SourceId, Span};
use crate::{index, policy, resolve, yaml};

/// Files at least this big are read a slice at a time by default; smaller ones are cheaper
/// to read whole.
pub const BIG_FILE: u64 = 16 << 20;

/// Everything that decides what a run checks and concludes.
#[derive(Clone, Debug)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// The folder `include` globs are relative to: the configuration file's, when they come
    /// from it; else (`None`) the working directory, where the command line was typed.
    pub include_base: Option<PathBuf>,
    /// The same for `exclude`.
    pub exclude_base: Option<PathBuf>,
    /// The namespace of namespaced objects that name none (`kubectl -n`).
    pub namespace: String,
    pub mode: ModeChoice,
    pub complete: bool,
    pub kube_version: Option<KubeVersion>,
    pub crds: Vec<PathBuf>,
    pub existing: Vec<PathBuf>,
    /// The rest of the project: indexed, so owners defined there resolve, but not reported on
    /// (pre-commit passes only the changed files).
    pub project: Vec<PathBuf>,
    pub limits: yaml::Limits,
    /// Rule levels from the configuration: `off`, or a severity that replaces the rule's own.
    pub levels: Vec<(String, Level)>,
    /// Rule levels for the findings reported in some files (the configuration's `overrides`),
    /// over `levels`, the later over the earlier.
    pub overrides: Vec<PathLevels>,
    /// Charts and overlays built with settings of their own (the configuration's `builds`).
    pub builds: Vec<BuildConfig>,
    /// Kinds and scopes that no CRD in the input declares.
    pub kinds: Vec<CrdInfo>,
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
    /// Build the Helm charts and Kustomize overlays among the paths and lint what they build
    /// (`None`: read their files as they are).
    pub build: Option<BuildOptions>,
    /// Also read the manifests the git change deletes, and check the references to what they
    /// defined (`--git-deletions`).
    pub git_deletions: bool,
    /// With `complete`, the kinds that could not be read (`ownerlint cluster`'s failed lists).
    pub not_read: Vec<crate::rules::NotRead>,
}

/// A chart or an overlay built with settings of its own (an item of `builds`), for a
/// repository whose deployments no Flux or Argo CD object describes. Two items of one path
/// are two builds of it (a chart deployed with two sets of values).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BuildConfig {
    /// The chart's or overlay's folder (relative paths are joined to the file's folder).
    pub path: PathBuf,
    /// Values files, in order (`helm template --values`).
    pub values: Vec<PathBuf>,
    /// `--set` expressions, in order.
    pub set: Vec<String>,
    pub release_name: Option<String>,
    /// The namespace of namespaced objects that name none (`helm template --namespace`; for
    /// an overlay, as `-n`).
    pub namespace: Option<String>,
    /// As helm takes it (`v1.33.0`).
    pub kube_version: Option<String>,
    /// The configuration file, and the line of the item.
    pub file: PathBuf,
    pub line: usize,
}

/// "1.33" of helm's "v1.33.0".
pub fn kube_release(version: &str) -> &str {
    version.trim_start_matches('v').trim_end_matches(".0")
}

/// Rule levels for the findings reported in the files some globs match (an item of the
/// configuration's `overrides`).
#[derive(Clone, Debug)]
pub struct PathLevels {
    pub files: Vec<String>,
    /// The folder the globs are relative to: the configuration file's.
    pub base: PathBuf,
    pub levels: Vec<(String, Level)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            paths: vec![PathBuf::from(".")],
            include: Vec::new(),
            exclude: Vec::new(),
            include_base: None,
            exclude_base: None,
            namespace: "default".to_string(),
            mode: ModeChoice::Auto,
            complete: false,
            kube_version: None,
            crds: Vec::new(),
            existing: Vec::new(),
            project: Vec::new(),
            limits: yaml::Limits::default(),
            levels: Vec::new(),
            overrides: Vec::new(),
            builds: Vec::new(),
            kinds: Vec::new(),
            policies: policy::Policies::default(),
            no_suppress: false,
            full_parse: false,
            big_file_at_least: Some(BIG_FILE),
            build: None,
            git_deletions: false,
            not_read: Vec::new(),
        }
    }
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    /// Owner references of the objects linted: each one checked.
    pub owner_references: usize,
    /// Finalizers of the objects linted: each one checked.
    pub finalizers: usize,
    /// API groups read from a cluster's discovery document (not objects).
    pub discovered_groups: usize,
    pub skipped_documents: usize,
    /// Test assertion files found and not linted (kuttl, chainsaw).
    pub assertion_files: usize,
    /// Kustomize patch files found and not linted.
    pub patch_files: usize,
    /// Kustomization files met and not built (`--no-render`): of `skipped_documents`, named
    /// apart in the summary.
    pub unbuilt_kustomizations: usize,
    /// Helm charts built and linted as built.
    pub charts: usize,
    /// Kustomize overlays built and linted as built.
    pub overlays: usize,
    /// Charts and overlays that could not be built (each a `render-failed` finding).
    pub not_built: usize,
    /// Flux objects whose source (a chart, a path) is not in the repository: not checked
    /// (each a `source-not-in-repository` finding).
    pub not_in_repository: usize,
    /// Flux `valuesFrom` and `substituteFrom` entries whose ConfigMap or Secret is not in the
    /// repository: built without them (each a `source-not-in-repository` finding).
    pub values_not_in_repository: usize,
    /// Charts and overlays met and built only as part of another (subcharts, bases).
    pub part_builds: usize,
    /// Of those, the subcharts (the rest are kustomize bases and components).
    pub part_charts: usize,
    /// Subcharts, bases and components not checked: every build they are part of failed.
    pub part_not_checked: usize,
    /// Charts and overlays met and not built at all (a component no overlay here uses).
    pub skipped_builds: usize,
    /// Files that the builds read (templates, resources, patches, values): not linted alone.
    pub build_files: usize,
    /// Findings hidden because a baseline records them.
    pub baselined: usize,
    /// Findings hidden by suppression comments and annotations.
    pub suppressed: usize,
    /// Files the git change deletes, read from git (`--git-deletions`).
    pub deleted_files: usize,
    /// Findings `--fix` fixed.
    pub fixed: usize,
    /// `--complete` was given, but the input is a `kubectl cluster-info dump`, which holds only
    /// some kinds: only owners of those are known not to exist.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial_dump: bool,
    /// What a saved cluster snapshot among the inputs records it could not read when it was
    /// saved (`not-read.json`): (resource or group, why). References to those kinds are not
    /// checked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_read_when_saved: Vec<(String, String)>,
    /// What `ownerlint cluster` read, and from where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterStats>,
    #[serde(skip)]
    pub elapsed: Duration,
}

/// What `ownerlint cluster` read: the cluster, how much, and what it could not.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ClusterStats {
    /// The kubeconfig context (`None`: the in-cluster service account).
    pub context: Option<String>,
    pub server: String,
    /// `-n`: the one namespace read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The kubeconfig context's namespace, where `tree --cluster` looks up what it is named.
    #[serde(skip)]
    pub default_namespace: String,
    /// Resources whose lists were read to their end.
    pub resources: usize,
    /// Requests sent, every one a GET.
    pub requests: usize,
    /// Objects read again, one GET each, to confirm what the lists showed of the references
    /// found dangling: the dependents and their owners (the garbage collector looks again too
    /// before it deletes).
    pub confirmed: usize,
    /// Rounds of those GETs: a dependent re-pointed since its list has its new owner read in
    /// the next, and so on until a round changes nothing.
    pub rounds: usize,
    /// What could not be read: (resource or group, why).
    pub not_read: Vec<(String, String)>,
    /// The resources read, by (group, kind): to name an object by its API path.
    #[serde(skip)]
    pub served: std::collections::HashMap<(String, String), crate::cluster::snapshot::Resource>,
}

impl ClusterStats {
    /// The API path of an object read from the cluster:
    /// `/apis/apps/v1/namespaces/shop/replicasets/web-7d9`, what `kubectl get --raw` takes.
    pub fn object_path(&self, object: &crate::finding::ObjectIdentity) -> Option<String> {
        let group = object
            .api_version
            .as_deref()?
            .rsplit_once('/')
            .map_or("", |(group, _)| group);
        let resource = self
            .served
            .get(&(group.to_string(), object.kind.clone()?))?;
        Some(resource.object_path(object.namespace.as_deref(), object.name.as_deref()?))
    }
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct Outcome {
    pub sources: Vec<Source>,
    /// Sorted by path, line and column.
    pub findings: Vec<Finding>,
    /// Inputs that could not be read: the run exits with 2.
    pub errors: Vec<InputError>,
    /// Folders below the inputs that a walk could not enter: reported, not failing the run.
    pub skipped_paths: Vec<InputError>,
    /// Every chart and overlay met, and what became of it.
    pub builds: Vec<Build>,
    /// The inputs linted on their own (not through a build), by name, in input order.
    pub linted_alone: Vec<String>,
    /// The files the builds read (templates, resources, patches, values), by name: not
    /// linted on their own.
    pub build_files: Vec<String>,
    pub stats: Stats,
}

/// A chart or an overlay met among the inputs, and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Build {
    /// `helm` or `kustomize`.
    pub tool: &'static str,
    /// Its folder, as named or found.
    pub path: String,
    /// The build as a command: `helm template charts/shop`.
    pub command: String,
    pub status: BuildStatus,
    /// Objects it built (0 unless built).
    pub objects: usize,
    /// Why it was not built, or what failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BuildStatus {
    Built,
    Failed,
    Skipped,
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
    /// Where the built objects are in the files people edit (an editor's analysis only).
    pub places: Places,
}

impl Analysis {
    /// "Deployment shop/api": an object as messages and drawings name it.
    pub fn display_name(&self, id: index::ObjId) -> String {
        self.objects[id.index()].display_name(self.index.facts(id).namespace.as_deref())
    }
}

/// A path that could not be read or walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub path: String,
    pub message: String,
}

/// How charts and overlays are built: what `helm template` is given besides the chart, and how
/// long a build may take.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BuildOptions {
    /// The release name (`helm template NAME`).
    pub release: String,
    /// Values files (`--values`), in order.
    pub values: Vec<PathBuf>,
    /// Values set on the command line (`--set key=value`), in order.
    pub set: Vec<String>,
    /// Values set as strings (`--set-string key=value`), in order.
    pub set_string: Vec<String>,
    /// How long one build (`helm template`, `kustomize build`) may take before it is stopped.
    pub timeout: std::time::Duration,
    /// Let kustomize fetch the remote bases, resources, components and files that overlays
    /// name (`--allow-remote-bases`, a command-line flag only): else an overlay that names one
    /// is not built.
    pub allow_remote_bases: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            release: "release-name".to_string(),
            values: Vec::new(),
            set: Vec::new(),
            set_string: Vec::new(),
            timeout: DEFAULT_BUILD_TIMEOUT,
            allow_remote_bases: false,
        }
    }
}

/// How long a build may take before it is stopped, unless `--render-timeout` says otherwise:
/// a chart or overlay that fetches remote resources may wait on a network that never answers.
pub const DEFAULT_BUILD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Where the objects of built streams are in the files people edit: each object's name, each
/// of its owner references and the object itself, taken back as findings are.
#[derive(Debug, Default)]
pub struct Places {
    /// The files the places are in, as the builds read them.
    pub files: Vec<Source>,
    pub spots: Vec<Spot>,
}

/// One place of a built object in a file.
#[derive(Clone, Copy, Debug)]
pub struct Spot {
    /// The index of its file in [`Places::files`].
    pub file: usize,
    pub span: Span,
    pub object: index::ObjId,
    /// The owner reference it is (by index); `None` for the object's name or the object.
    pub reference: Option<usize>,
    /// The object's name (rather than the object, or a reference).
    pub name: bool,
    /// The span is the field itself, not only near it.
    pub exact: bool,
}
