//! The Flux objects among the inputs, and what they build.
//!
//! A Kustomization's source is this repository when its `sourceRef` is a `GitRepository`
//! that is not defined among the inputs with a URL of its own, or is `flux-system` (the one
//! `flux bootstrap` writes for the repository it bootstraps).
//! `spec.path` is relative to the repository's root (Flux's API: "Path to the directory
//! containing the kustomization.yaml file … relative to the root path of the SourceRef").
//! Any other source (another `GitRepository`, an `OCIRepository`, a `Bucket`, a chart from
//! a `HelmRepository`) is not in the repository, and said so once per object.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::read::Files;
use crate::yaml::Node;

/// How a Flux Kustomization builds the folder of its `spec.path`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FluxBuild {
    /// `namespace/name` of the Kustomization (`name` when its file names no namespace).
    pub name: String,
    /// The file that defines it.
    pub file: PathBuf,
    pub target_namespace: Option<String>,
    pub name_prefix: Option<String>,
    pub name_suffix: Option<String>,
    /// `spec.patches` and `spec.images`, each entry as JSON.
    pub patches: Vec<String>,
    pub images: Vec<String>,
    pub components: Vec<String>,
    /// The `postBuild` variables (from `substituteFrom`, then `substitute`), when it has any.
    pub substitute: Option<BTreeMap<String, String>>,
    /// The apply unit: Kustomizations of one cluster see one another's objects.
    pub cluster: String,
    /// For a HelmRelease: how helm renders its chart.
    pub helm: Option<FluxHelm>,
    /// Where the Kustomization writes its `spec.path` in its file (1-based line and column).
    pub path_at: Option<(usize, usize)>,
    /// The kustomization Flux writes into a path that has none (its manifests, and the folders
    /// below with a kustomization of their own), as text ([`super::kustomization::generate`]).
    pub generated: Option<String>,
    /// The `valuesFrom` or `substituteFrom` entries (not optional) whose ConfigMap or Secret,
    /// or its key, is not in this repository: built without them, and said once each.
    pub left_out: Vec<NotChecked>,
    /// Another Flux object of its kind has its name (the same Kustomization in two clusters):
    /// it is named with its file too.
    pub name_shared: bool,
}

/// How a Flux HelmRelease renders a chart of this repository.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FluxHelm {
    /// `spec.releaseName`, or Flux's default.
    pub release: String,
    /// The release's namespace: `spec.targetNamespace`, else the HelmRelease's (empty when
    /// neither is known).
    pub namespace: String,
    /// The values, in the order helm is to merge them (each a YAML document): the
    /// `valuesFrom` entries, then `spec.values`.
    pub values: Vec<String>,
    /// `ConfigMap/NAME`, `Secret/NAME` for each `valuesFrom` entry read.
    pub values_from: Vec<String>,
    /// `spec.install.crds` is not `Skip`: the chart's `crds/` are installed.
    pub include_crds: bool,
}

impl FluxBuild {
    /// `Kustomization` or `HelmRelease`: the kind of the Flux object that builds it.
    pub fn kind(&self) -> &'static str {
        match self.helm {
            Some(_) => "HelmRelease",
            None => "Kustomization",
        }
    }

    /// "Flux Kustomization flux-system/apps: targetNamespace shop, namePrefix a-".
    pub fn describe(&self) -> String {
        if let Some(helm) = &self.helm {
            let mut settings = vec![format!("releaseName {}", helm.release)];
            if !helm.namespace.is_empty() {
                settings.push(format!("namespace {}", helm.namespace));
            }
            if !helm.values_from.is_empty() {
                settings.push(format!("valuesFrom {}", helm.values_from.join(", ")));
            }
            if helm.values.len() > helm.values_from.len() {
                settings.push("values".to_string());
            }
            return format!("Flux HelmRelease {}: {}", self.named(), settings.join(", "));
        }
        let mut settings = Vec::new();
        let mut say = |what: &str, value: &Option<String>| {
            if let Some(value) = value {
                settings.push(format!("{what} {value}"));
            }
        };
        say("targetNamespace", &self.target_namespace);
        say("namePrefix", &self.name_prefix);
        say("nameSuffix", &self.name_suffix);
        if let Some(vars) = &self.substitute {
            let names: Vec<&str> = vars.keys().map(String::as_str).collect();
            settings.push(format!("postBuild {}", names.join(", ")));
        }
        for (count, what) in [
            (self.patches.len(), "patches"),
            (self.images.len(), "images"),
            (self.components.len(), "components"),
        ] {
            if count > 0 {
                settings.push(format!("{count} {what}"));
            }
        }
        match settings.is_empty() {
            true => format!("Flux Kustomization {}", self.named()),
            false => format!(
                "Flux Kustomization {}: {}",
                self.named(),
                settings.join(", ")
            ),
        }
    }

    /// Its name, with its file when another of its kind has the same name.
    fn named(&self) -> String {
        match self.name_shared {
            true => format!("{} of {}", self.name, crate::read::display_path(&self.file)),
            false => self.name.clone(),
        }
    }
}

/// A Flux object whose source is not in the repository: said once, as not checked. Or an
/// entry of one whose values are not in the repository (`values` is set): built without them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NotChecked {
    pub file: PathBuf,
    /// The object's first line, 0-based.
    pub line: usize,
    /// Where in the file's text the field that names the source begins (`sourceRef`, `path`,
    /// `chartRef`), when the object has one: the finding is there.
    pub at: Option<usize>,
    pub message: String,
    /// A `valuesFrom` or `substituteFrom` entry whose values are not here: the build was made
    /// without them (not an object left unchecked).
    pub values: bool,
}

/// What the Flux objects among the inputs build, and what they leave unchecked.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Each folder a Kustomization of this repository builds (canonical), with how.
    pub builds: Vec<(PathBuf, FluxBuild)>,
    pub not_checked: Vec<NotChecked>,
}

/// One object read from an input.
struct Object {
    file: PathBuf,
    line: usize,
    kind: String,
    api_version: String,
    namespace: String,
    name: String,
    root: Node,
}

/// A Kustomization of this repository, while the plan is made.
struct Local {
    object: usize,
    dir: PathBuf,
    build: FluxBuild,
    kube_config: Option<String>,
}

/// Read the Flux objects of `inputs` (as `files` has them) and plan what they build below
/// `root`, the repository's root (canonical). `reads(dir, file)`: whether the build of the
/// folder `dir` (canonical) reads `file`, for the apply units.
pub fn plan(
    inputs: &[PathBuf],
    root: &Path,
    files: &Files,
    reads: &dyn Fn(&Path, &Path) -> bool,
) -> Plan {
    let mut objects = read_objects(inputs, files, "fluxcd.io");
    // The ConfigMaps and Secrets `substituteFrom` and `valuesFrom` name, read only when one
    // does.
    if objects.iter().any(|o| {
        let spec = o.root.get("spec");
        spec.and_then(|s| s.get("postBuild"))
            .and_then(|p| p.get("substituteFrom"))
            .or_else(|| spec.and_then(|s| s.get("valuesFrom")))
            .is_some()
    }) {
        objects.extend(
            read_objects(inputs, files, "data")
                .into_iter()
                .filter(|o| o.kind == "ConfigMap" || o.kind == "Secret"),
        );
    }
    let mut plan = Plan::default();
    if !objects
        .iter()
        .any(|o| o.api_version.contains("toolkit.fluxcd.io/"))
    {
        return plan;
    }
    let find = |kind: &str, namespace: &str, name: &str| {
        objects
            .iter()
            .position(|o| o.kind == kind && o.namespace == namespace && o.name == name)
    };
    let mut locals: Vec<Local> = Vec::new();
    // The HelmReleases whose chart is in this repository: the object, the chart's folder
    // (canonical), and how.
    let mut releases: Vec<(usize, PathBuf, FluxBuild)> = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        let group = object.api_version.split('/').next().unwrap_or_default();
        let spec = object.root.get("spec");
        // At the field that names what is not here: the first of `keys` in the map at `path`.
        let field = |path: &[&str], keys: &[&str]| {
            let mut node = Some(&object.root);
            for step in path {
                node = node.and_then(|n| n.get(step));
            }
            let entries = node.and_then(Node::as_map)?;
            keys.iter().find_map(|key| {
                entries
                    .iter()
                    .find(|(k, _)| k.as_str() == Some(*key))
                    .map(|(k, _)| k.span.start)
            })
        };
        let say = |at: Option<usize>, message: String| NotChecked {
            file: object.file.clone(),
            line: object.line,
            at,
            message,
            values: false,
        };
        let text = |node: Option<&Node>, key: &str| {
            node.and_then(|n| n.get(key))
                .and_then(Node::as_str)
                .map(str::to_string)
        };
        match (group, object.kind.as_str()) {
            ("kustomize.toolkit.fluxcd.io", "Kustomization") => {
                let source = spec.and_then(|s| s.get("sourceRef"));
                let kind = text(source, "kind").unwrap_or_default();
                let name = text(source, "name").unwrap_or_default();
                let namespace = text(source, "namespace").unwrap_or(object.namespace.clone());
                let path = text(spec, "path").unwrap_or_default();
                // A partial object (a kustomize patch of one) names no source: not one to read.
                if kind.is_empty() {
                    continue;
                }
                let found = find(&kind, &namespace, &name);
                let url = found.and_then(|s| text(objects[s].root.get("spec"), "url"));
                let local = kind == "GitRepository" && (url.is_none() || name == "flux-system");
                if !local {
                    let reference = found.and_then(|s| source_ref(&objects[s].root));
                    let what = source_named(&kind, &namespace, &name, url.as_deref(), reference);
                    let at = field(&["spec"], &["sourceRef"]);
                    plan.not_checked.push(say(at, match path.is_empty() {
                        true => format!("not checked: it deploys {what}, not in this repository"),
                        false => format!(
                            "not checked: its path {path:?} is in {what}, not in this repository"
                        ),
                    }));
                    continue;
                }
                let dir = root.join(crate::read::lexical(Path::new(
                    path.trim_start_matches('/'),
                )));
                let at = field(&["spec"], &["path"]);
                let Ok(dir) = std::fs::canonicalize(&dir) else {
                    plan.not_checked.push(say(
                        at,
                        format!("not checked: its path {path:?} is not in this repository"),
                    ));
                    continue;
                };
                if !dir.starts_with(root) {
                    plan.not_checked.push(say(
                        at,
                        format!("not checked: its path {path:?} is not in this repository"),
                    ));
                    continue;
                }
                // Where its `path` is written (1-based line and column): what cannot be built
                // of a path without a kustomization file is said there.
                let path_at = at.and_then(|at| {
                    let text = files.read(&object.file)?;
                    let before = text.get(..at)?;
                    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
                    Some((
                        before.matches('\n').count() + 1,
                        before[line_start..].chars().count() + 1,
                    ))
                });
                locals.push(Local {
                    object: i,
                    dir,
                    build: FluxBuild {
                        path_at,
                        ..flux_build(object, &objects)
                    },
                    kube_config: spec
                        .and_then(|s| s.get("kubeConfig"))
                        .and_then(|k| text(k.get("secretRef"), "name"))
                        .map(|secret| format!("{}/{secret}", object.namespace)),
                });
            }
            ("helm.toolkit.fluxcd.io", "HelmRelease") => {
                let chart = spec
                    .and_then(|s| s.get("chart"))
                    .and_then(|c| c.get("spec"));
                let reference = spec.and_then(|s| s.get("chartRef"));
                // The chart and its source: `spec.chart.spec` names both; `spec.chartRef` names
                // a HelmChart (whose spec names them, its source in its own namespace) or an
                // OCIRepository.
                let (source, chart_name, source_namespace) = match (chart, reference) {
                    (Some(chart), _) => (
                        chart.get("sourceRef"),
                        text(Some(chart), "chart"),
                        object.namespace.clone(),
                    ),
                    (None, Some(reference)) => {
                        let namespace =
                            text(Some(reference), "namespace").unwrap_or(object.namespace.clone());
                        let name = text(Some(reference), "name").unwrap_or_default();
                        let helm_chart = (text(Some(reference), "kind").as_deref()
                            == Some("HelmChart"))
                        .then(|| find("HelmChart", &namespace, &name))
                        .flatten();
                        match helm_chart {
                            Some(h) => {
                                let spec = objects[h].root.get("spec");
                                (
                                    spec.and_then(|s| s.get("sourceRef")),
                                    text(spec, "chart"),
                                    namespace,
                                )
                            }
                            None => (Some(reference), None, object.namespace.clone()),
                        }
                    }
                    (None, None) => continue,
                };
                let kind = text(source, "kind").unwrap_or_default();
                let name = text(source, "name").unwrap_or_default();
                let namespace = text(source, "namespace").unwrap_or(source_namespace);
                if kind.is_empty() {
                    continue;
                }
                let found = find(&kind, &namespace, &name);
                let url = found.and_then(|s| text(objects[s].root.get("spec"), "url"));
                let local = kind == "GitRepository" && (url.is_none() || name == "flux-system");
                if !local {
                    let chart = chart_name.map_or_else(String::new, |c| format!(" {c:?}"));
                    let reference = found.and_then(|s| source_ref(&objects[s].root));
                    let what = source_named(&kind, &namespace, &name, url.as_deref(), reference);
                    let at = field(&["spec", "chart", "spec"], &["sourceRef"])
                        .or_else(|| field(&["spec"], &["chartRef"]));
                    plan.not_checked.push(say(
                        at,
                        format!(
                            "not checked: its chart{chart} is in {what}, not in this repository"
                        ),
                    ));
                    continue;
                }
                // A chart of this repository: its path is relative to the repository's root,
                // as a Kustomization's.
                let path = chart_name.unwrap_or_default();
                let dir = root.join(crate::read::lexical(Path::new(
                    path.trim_start_matches('/'),
                )));
                match std::fs::canonicalize(&dir) {
                    Ok(dir) if dir.starts_with(root) => {
                        releases.push((i, dir, helm_build(object, &objects)));
                    }
                    _ => plan.not_checked.push(say(
                        field(&["spec", "chart", "spec"], &["chart"])
                            .or_else(|| field(&["spec"], &["chartRef"])),
                        format!("not checked: its chart path {path:?} is not in this repository"),
                    )),
                }
            }
            _ => {}
        }
    }
    let clusters = clusters(&locals, &objects, reads);
    // A HelmRelease is applied by the Kustomization whose build holds its file (in that one's
    // cluster, and in its targetNamespace when its file names none), or with the objects of its
    // folder.
    for (object, dir, mut build) in releases {
        let file = &objects[object].file;
        let canonical = std::fs::canonicalize(file).unwrap_or_default();
        let holder = (0..locals.len())
            .find(|&j| canonical.starts_with(&locals[j].dir) || reads(&locals[j].dir, file));
        build.cluster = match holder {
            Some(j) => match &locals[j].kube_config {
                Some(secret) => format!("kubeConfig {secret}"),
                None => clusters[j].clone(),
            },
            None => format!(
                "folder {}",
                canonical.parent().unwrap_or(Path::new("")).display()
            ),
        };
        // Flux's kustomize puts the HelmRelease into the Kustomization's targetNamespace.
        if let (Some(helm), Some(j)) = (build.helm.as_mut(), holder)
            && let Some(namespace) = &locals[j].build.target_namespace
        {
            let spec = objects[object].root.get("spec");
            let targeted = spec
                .and_then(|s| s.get("targetNamespace"))
                .and_then(Node::as_str)
                .is_some_and(|t| !t.is_empty());
            if !targeted {
                helm.namespace = namespace.clone();
            }
            build.name = format!("{namespace}/{}", objects[object].name);
        }
        plan.builds.push((dir, build));
    }
    for (local, cluster) in locals.into_iter().zip(clusters) {
        let mut build = local.build;
        build.cluster = match local.kube_config {
            Some(secret) => format!("kubeConfig {secret}"),
            None => cluster,
        };
        plan.builds.push((local.dir, build));
    }
    plan
}

/// "GitRepository flux-system/podinfo (https://…)": a source as a message names it (its
/// namespace when the file writes one).
fn source_named(
    kind: &str,
    namespace: &str,
    name: &str,
    url: Option<&str>,
    reference: Option<String>,
) -> String {
    let named = match namespace.is_empty() {
        true => format!("{kind} {name}"),
        false => format!("{kind} {namespace}/{name}"),
    };
    // The branch or tag it follows: a repository's own URL on another branch is not this
    // checkout either.
    match (url, reference) {
        (Some(url), Some(reference)) => format!("{named} ({url}, {reference})"),
        (Some(url), None) => format!("{named} ({url})"),
        (None, _) => named,
    }
}

/// What a source's `spec.ref` follows (`branch dev-team`, `tag v1.2.0`), as
/// source-controller reads it: the first of commit, name, semver, tag, digest and branch set.
fn source_ref(source: &Node) -> Option<String> {
    let reference = source.get("spec")?.get("ref")?;
    ["commit", "name", "semver", "tag", "digest", "branch"]
        .into_iter()
        .find_map(|key| {
            let value = reference.get(key)?.as_str()?;
            (!value.is_empty()).then(|| format!("{key} {value}"))
        })
}

/// The apply unit of each of `locals`: the folder of the file of the outermost Kustomization
/// whose build holds the file that defines it (following that one's file in turn), or, for
/// one no other holds, the folder of its own file.
fn clusters(
    locals: &[Local],
    objects: &[Object],
    reads: &dyn Fn(&Path, &Path) -> bool,
) -> Vec<String> {
    let canonical: Vec<PathBuf> = locals
        .iter()
        .map(|l| std::fs::canonicalize(&objects[l.object].file).unwrap_or_default())
        .collect();
    let holder = |i: usize| {
        let file = &objects[locals[i].object].file;
        (0..locals.len()).find(|&j| {
            j != i && (canonical[i].starts_with(&locals[j].dir) || reads(&locals[j].dir, file))
        })
    };
    (0..locals.len())
        .map(|i| {
            let mut at = i;
            let mut seen = vec![i];
            while let Some(next) = holder(at) {
                if seen.contains(&next) {
                    break;
                }
                seen.push(next);
                at = next;
            }
            // The outermost one's folder: the Kustomizations it holds, and those beside it
            // (a cluster's folder), are one unit.
            format!(
                "folder {}",
                canonical[at].parent().unwrap_or(Path::new("")).display()
            )
        })
        .collect()
}

/// The settings of a Kustomization, with its `postBuild` variables.
fn flux_build(object: &Object, objects: &[Object]) -> FluxBuild {
    let spec = object.root.get("spec");
    let text = |key: &str| {
        spec.and_then(|s| s.get(key))
            .and_then(Node::as_str)
            .map(str::to_string)
    };
    let json_list = |key: &str| -> Vec<String> {
        spec.and_then(|s| s.get(key))
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .map(|entry| super::kustomization::to_json(entry).to_string())
            .collect()
    };
    let post_build = spec.and_then(|s| s.get("postBuild"));
    let mut substitute: Option<BTreeMap<String, String>> = None;
    let mut left_out = Vec::new();
    if let Some(post_build) = post_build {
        let mut vars = BTreeMap::new();
        // substituteFrom first, each in order; substitute overrides them (varsub.go:
        // "load in-line vars (overrides the ones from resources)").
        for reference in post_build
            .get("substituteFrom")
            .and_then(Node::as_seq)
            .unwrap_or_default()
        {
            let entry = Entry::of(reference, object);
            match entry.find(objects) {
                Found::Here(from) => vars.extend(data_of(from)),
                // fluxcd/pkg `kustomize/kustomize_varsub.go`, `loadVars`: an optional one that
                // is not found is skipped; any other fails the build. Here it may be in the
                // cluster only (made by another tool): built without it, and said.
                Found::Elsewhere(why) if !entry.optional => left_out.push(entry.left_out(
                    object,
                    format!(
                        "variables from {} {} {why}: the path was built without them",
                        entry.kind,
                        entry.named()
                    ),
                )),
                Found::Elsewhere(_) => {}
            }
        }
        for (key, value) in post_build
            .get("substitute")
            .and_then(Node::as_map)
            .unwrap_or_default()
        {
            if let (Some(key), Some(value)) = (key.as_str(), value.as_scalar()) {
                vars.insert(key.to_string(), value.text.replace('\n', ""));
            }
        }
        if !vars.is_empty() {
            substitute = Some(vars);
        }
    }
    FluxBuild {
        name: match object.namespace.is_empty() {
            true => object.name.clone(),
            false => format!("{}/{}", object.namespace, object.name),
        },
        file: object.file.clone(),
        target_namespace: text("targetNamespace"),
        name_prefix: text("namePrefix"),
        name_suffix: text("nameSuffix"),
        patches: json_list("patches"),
        images: json_list("images"),
        components: spec
            .and_then(|s| s.get("components"))
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect(),
        substitute,
        cluster: String::new(),
        helm: None,
        path_at: None,
        generated: None,
        left_out,
        name_shared: false,
    }
}

/// How a HelmRelease renders its chart: its release name and namespace, values and CRD
/// policy, as fluxcd/helm-controller reads them (`api/v2/helmrelease_types.go`,
/// `GetReleaseName`, `GetReleaseNamespace`; `internal/chartutil/values.go`,
/// `ChartValuesFromReferences`: the `valuesFrom` entries merged in order, then `values`).
fn helm_build(object: &Object, objects: &[Object]) -> FluxBuild {
    let spec = object.root.get("spec");
    let text = |node: Option<&Node>, key: &str| {
        node.and_then(|n| n.get(key))
            .and_then(Node::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    };
    let target_namespace = text(spec, "targetNamespace");
    // `GetReleaseName`: `spec.releaseName`, or `[targetNamespace-]name`.
    let release = text(spec, "releaseName").unwrap_or_else(|| match &target_namespace {
        Some(namespace) => format!("{namespace}-{}", object.name),
        None => object.name.clone(),
    });
    let mut values = Vec::new();
    let mut values_from = Vec::new();
    let mut left_out = Vec::new();
    for reference in spec
        .and_then(|s| s.get("valuesFrom"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let entry = Entry::of(reference, object);
        // `ValuesReference.GetValuesKey`: `values.yaml` unless said.
        let key = text(Some(reference), "valuesKey").unwrap_or_else(|| "values.yaml".into());
        // `ChartValuesFromReferences`: an optional entry whose object or key is not found is
        // skipped; any other fails the release. One not in the repository may be in the
        // cluster only (a decrypted Secret, one another tool makes): rendered without it, and
        // said.
        let data = match entry.find(objects) {
            Found::Here(from) => raw_data(from)
                .remove(&key)
                .ok_or_else(|| format!("in this repository have no key {key:?}")),
            Found::Elsewhere(why) => Err(why),
        };
        let data = match data {
            Ok(data) => data,
            Err(why) => {
                if !entry.optional {
                    left_out.push(entry.left_out(
                        object,
                        format!(
                            "values from {} {} {why}: the chart was rendered without them",
                            entry.kind,
                            entry.named()
                        ),
                    ));
                }
                continue;
            }
        };
        values.push(match text(Some(reference), "targetPath") {
            Some(path) => path_value(&path, &data),
            None => data,
        });
        values_from.push(format!("{}/{}", entry.kind, entry.name));
    }
    if let Some(inline) = spec.and_then(|s| s.get("values")) {
        values.push(super::kustomization::to_json(inline).to_string());
    }
    let crds = spec
        .and_then(|s| s.get("install"))
        .and_then(|i| text(Some(i), "crds"));
    FluxBuild {
        name: match object.namespace.is_empty() {
            true => object.name.clone(),
            false => format!("{}/{}", object.namespace, object.name),
        },
        file: object.file.clone(),
        helm: Some(FluxHelm {
            release: shorten_name(&release),
            // `GetReleaseNamespace`: `spec.targetNamespace`, else the HelmRelease's.
            namespace: target_namespace.unwrap_or(object.namespace.clone()),
            values,
            values_from,
            // `install.crds`: `Create` (the default) and `CreateReplace` install them, `Skip`
            // does not.
            include_crds: crds.as_deref() != Some("Skip"),
        }),
        left_out,
        ..FluxBuild::default()
    }
}

/// A `valuesFrom` or `substituteFrom` entry: the ConfigMap or Secret it names, in the
/// namespace of the object that names it.
struct Entry {
    kind: String,
    name: String,
    namespace: String,
    optional: bool,
    /// Where the entry begins in its file's text (its first key).
    at: usize,
}

/// Where an entry's ConfigMap or Secret is.
enum Found<'a> {
    /// In this repository, readable.
    Here(&'a Object),
    /// Not here, or here but not readable: why, as the message goes on ("are not in this
    /// repository").
    Elsewhere(String),
}

impl Entry {
    fn of(reference: &Node, object: &Object) -> Entry {
        let get = |key: &str| {
            reference
                .get(key)
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let at = (reference.as_map())
            .and_then(|entries| entries.first())
            .map_or(reference.span.start, |(key, _)| key.span.start);
        Entry {
            kind: get("kind"),
            name: get("name"),
            namespace: object.namespace.clone(),
            optional: reference
                .get("optional")
                .and_then(Node::as_scalar)
                .is_some_and(|s| s.text == "true"),
            at,
        }
    }

    /// `namespace/name`, or `name` when the object that names it names no namespace.
    fn named(&self) -> String {
        match self.namespace.is_empty() {
            true => self.name.clone(),
            false => format!("{}/{}", self.namespace, self.name),
        }
    }

    fn find<'a>(&self, objects: &'a [Object]) -> Found<'a> {
        let found = objects
            .iter()
            .find(|o| o.kind == self.kind && o.name == self.name && o.namespace == self.namespace);
        match found {
            // A Secret that SOPS encrypts is decrypted by Flux in the cluster; its values here
            // are ciphertext.
            Some(from) if from.kind == "Secret" && from.root.get("sops").is_some() => {
                Found::Elsewhere("are encrypted with SOPS in this repository".to_string())
            }
            Some(from) => Found::Here(from),
            None => Found::Elsewhere("are not in this repository".to_string()),
        }
    }

    /// Said at the entry: the build was made without its values.
    fn left_out(&self, object: &Object, message: String) -> NotChecked {
        NotChecked {
            file: object.file.clone(),
            line: object.line,
            at: Some(self.at),
            message,
            values: true,
        }
    }
}

/// A release name past 53 characters shortened as helm-controller does
/// (`internal/release/name.go`, `ShortenName`): its first 40 characters, `-`, and the first
/// 12 hexadecimal digits of its SHA-256.
fn shorten_name(name: &str) -> String {
    use sha2::Digest;
    const MAX: usize = 53;
    const HASH: usize = 12;
    if name.len() <= MAX {
        return name.to_string();
    }
    let sum: String = sha2::Sha256::digest(name.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut cut = MAX - (HASH + 1);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{}", &name[..cut], &sum[..HASH])
}

/// A `valuesFrom` value put at its `targetPath`, as a YAML document: helm's `--set` parser
/// types it (`true`, `false`, `null`, an integer), unless it is quoted, which makes it a string
/// (`ReplacePathValue`). The path is read as dotted keys.
fn path_value(path: &str, value: &str) -> String {
    use serde_json::Value;
    let quoted = value.len() >= 2
        && ((value.starts_with('"') && value.ends_with('"'))
            || (value.starts_with('\'') && value.ends_with('\'')));
    let mut out = match (quoted, value) {
        (true, _) => Value::String(value.trim_matches(['"', '\'']).to_string()),
        (false, "true") => Value::Bool(true),
        (false, "false") => Value::Bool(false),
        (false, "null") => Value::Null,
        (false, _) => match value.parse::<i64>() {
            Ok(n) if value == "0" || !value.starts_with('0') => Value::from(n),
            _ => Value::String(value.to_string()),
        },
    };
    for key in path.split('.').rev() {
        let mut map = serde_json::Map::new();
        map.insert(key.to_string(), out);
        out = Value::Object(map);
    }
    out.to_string()
}

/// The variables a ConfigMap's `data`, or a Secret's `stringData` and `data`, give, without
/// newlines in their values (varsub.go, `loadVars`).
fn data_of(object: &Object) -> HashMap<String, String> {
    raw_data(object)
        .into_iter()
        .map(|(k, v)| (k, v.replace('\n', "")))
        .collect()
}

/// A ConfigMap's `data`, or a Secret's `data` (decoded) and `stringData`, by key.
fn raw_data(object: &Object) -> HashMap<String, String> {
    let mut vars = HashMap::new();
    let entries = |key: &str| {
        object
            .root
            .get(key)
            .and_then(Node::as_map)
            .unwrap_or_default()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_scalar()?.text.clone())))
            .collect::<Vec<_>>()
    };
    match object.kind.as_str() {
        "ConfigMap" => vars.extend(entries("data")),
        "Secret" => {
            for (key, value) in entries("data") {
                if let Some(decoded) = base64(&value) {
                    vars.insert(key, decoded);
                }
            }
            vars.extend(entries("stringData"));
        }
        _ => {}
    }
    vars
}

/// Standard base64, as a Secret's `data` holds it; `None` for anything else or non-UTF-8.
fn base64(text: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
    {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | value as u32;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The objects of `inputs` that Flux objects name (Flux's own, ConfigMaps and Secrets), in
/// the files that hold `needle`. A big file (a dump, a generated bundle) is not read for them:
/// it would hold up every run, and the language server's.
fn read_objects(inputs: &[PathBuf], files: &Files, needle: &str) -> Vec<Object> {
    let mut objects = Vec::new();
    for file in inputs {
        let big = files.text(file).is_none()
            && std::fs::metadata(file).is_ok_and(|m| m.len() >= crate::analysis::BIG_FILE);
        if big {
            continue;
        }
        let Some(text) = files.read(file) else {
            continue;
        };
        if !text.contains(needle) {
            continue;
        }
        for root in crate::yaml::roots(&text) {
            let get = |key: &str| {
                root.get(key)
                    .and_then(Node::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let metadata = |key: &str| {
                root.get("metadata")
                    .and_then(|m| m.get(key))
                    .and_then(Node::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let (kind, api_version) = (get("kind"), get("apiVersion"));
            let wanted = api_version.contains("toolkit.fluxcd.io/")
                || (api_version == "v1" && (kind == "ConfigMap" || kind == "Secret"));
            if !wanted {
                continue;
            }
            let line = text
                .get(..root.span.start)
                .map_or(0, |before| before.matches('\n').count());
            // No namespace: the one the overlay that holds it gives, unknown here; objects that
            // name none find one another.
            let namespace = metadata("namespace");
            objects.push(Object {
                file: file.clone(),
                line,
                kind,
                api_version,
                namespace,
                name: metadata("name"),
                root,
            });
        }
    }
    objects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_release_name_is_shortened_with_its_hash() {
        assert_eq!(shorten_name("shop-web"), "shop-web");
        let long = "some-front-appended-namespace-release-with-a-very-long-name";
        assert_eq!(
            shorten_name(long),
            "some-front-appended-namespace-release-wi-b9152014cc9c"
        );
        assert_eq!(shorten_name(long).len(), 53);
    }

    #[test]
    fn a_value_at_a_target_path_is_typed_as_helm_types_it() {
        assert_eq!(path_value("a.b", "3"), r#"{"a":{"b":3}}"#);
        assert_eq!(path_value("a", "true"), r#"{"a":true}"#);
        assert_eq!(path_value("a", "'3'"), r#"{"a":"3"}"#);
        assert_eq!(path_value("a", "007"), r#"{"a":"007"}"#);
        assert_eq!(path_value("a", "x: y"), r#"{"a":"x: y"}"#);
    }

    #[test]
    fn a_secrets_data_is_decoded() {
        assert_eq!(base64("c2hvcA==").as_deref(), Some("shop"));
        assert_eq!(base64("!"), None);
    }
}
