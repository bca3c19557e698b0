//! The Argo CD objects among the inputs (`argoproj.io` Applications and ApplicationSets), and
//! what they build.
//!
//! Which source is this repository: Argo CD names a source by the URL of its repository, which
//! says nothing about the folder being linted. A source is taken to be this repository when it
//! is a Git source (Argo CD's `ApplicationSource.IsHelm` is `Chart != ""`: a source with a
//! `chart` is a Helm repository's chart, whatever its URL) whose `path` is a folder of the
//! repository being linted. Any other source (a Helm or OCI chart, a path that is not here) is
//! not in the repository, and said so once per object. A `$ref/…` value file is read from
//! this repository when the file is there.
//!
//! How a path is built (argo-cd `reposerver/repository/repository.go`, `GetAppSourceType`):
//! the type the source sets explicitly (`helm`, `kustomize` or `directory`, `ExplicitType`),
//! else what `util/app/discovery/discovery.go` (`Discover`, `AppType`) finds in the folder: a
//! kustomization file makes it kustomize (it is looked at after `Chart.yaml` and wins), a
//! `Chart.yaml` helm, and anything else is a directory of plain manifests.

mod application_set;

use std::path::{Path, PathBuf};

use application_set::{MOST_APPLICATIONS, application_set, repository_folders};

use serde_json::Value as Json;

use super::{FluxBuild, NotChecked};
use crate::read::Files;
use crate::yaml::Node;

/// How an Argo CD Application builds one of its sources.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArgoBuild {
    /// "Application argocd/guestbook" (or "ApplicationSet argocd/apps").
    pub name: String,
    /// The file that defines it, and its first line (0-based).
    pub file: PathBuf,
    pub line: usize,
    /// `destination.namespace`: where the objects that name no namespace land.
    pub namespace: Option<String>,
    /// The apply unit: the destination cluster.
    pub cluster: String,
    /// The type the source sets explicitly: "helm", "kustomize" or "directory".
    pub explicit: Option<String>,
    /// `helm.releaseName`, or the Application's name.
    pub release: String,
    /// `helm.valueFiles`, as real paths, in order.
    pub value_files: Vec<PathBuf>,
    /// `helm.values` or `helm.valuesObject`, as YAML (JSON) text.
    pub values: Option<String>,
    /// `helm.parameters`: `name=value`, and whether `forceString` is set.
    pub parameters: Vec<(String, bool)>,
    /// `kustomize.namePrefix`, `nameSuffix`, `images` and `namespace`, as Flux's equivalents.
    pub kustomize: Option<FluxBuild>,
    /// `directory.recurse`.
    pub recurse: bool,
    /// Why it cannot be built (a value file that is not there).
    pub error: Option<String>,
}

impl ArgoBuild {
    /// "Argo CD Application argocd/guestbook: destination namespace shop, 1 valueFiles".
    pub fn describe(&self) -> String {
        let mut settings = Vec::new();
        if let Some(namespace) = &self.namespace {
            settings.push(format!("destination namespace {namespace}"));
        }
        if !self.value_files.is_empty() {
            settings.push(format!("{} valueFiles", self.value_files.len()));
        }
        if self.values.is_some() {
            settings.push("values".to_string());
        }
        if !self.parameters.is_empty() {
            settings.push(format!("{} parameters", self.parameters.len()));
        }
        if let Some(kustomize) = &self.kustomize {
            let flux = kustomize.describe();
            if let Some((_, said)) = flux.split_once(": ") {
                settings.push(said.replace("targetNamespace", "kustomize namespace"));
            }
        }
        match settings.is_empty() {
            true => format!("Argo CD {}", self.name),
            false => format!("Argo CD {}: {}", self.name, settings.join(", ")),
        }
    }
}

/// What the Argo CD objects among the inputs build, and what they leave unchecked.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Each folder an Application of this repository builds (canonical), with how.
    pub builds: Vec<(PathBuf, ArgoBuild)>,
    pub not_checked: Vec<NotChecked>,
}

/// The Application that deploys the file `name` (as a source names it) as one of the plain
/// manifests of its folder (`directory.recurse`: of its folder or one below it).
pub fn deploying<'a>(
    directories: &'a [(PathBuf, std::sync::Arc<ArgoBuild>)],
    name: &str,
) -> Option<&'a ArgoBuild> {
    if directories.is_empty() {
        return None;
    }
    let file = std::fs::canonicalize(name).ok()?;
    let parent = file.parent()?;
    directories
        .iter()
        .find(|(dir, argo)| parent == dir || (argo.recurse && parent.starts_with(dir)))
        .map(|(_, argo)| argo.as_ref())
}

/// One Argo CD object read from an input.
struct Object {
    file: PathBuf,
    line: usize,
    kind: String,
    root: Json,
    /// As read, with where each field is in the file's text.
    node: Node,
}

/// What an Application deploys from elsewhere, said once: the message, and the field that
/// names the source it is about (its index in `sources`, 0 for `source`; `chart` or
/// `repoURL`).
struct Elsewhere {
    message: String,
    source: usize,
    key: &'static str,
}

/// Where the field `key` of the source `index` of the Application spec at `spec` begins.
fn source_field(object: &Node, spec: &[&str], index: usize, key: &str) -> Option<usize> {
    let mut node = object;
    for step in spec {
        node = node.get(step)?;
    }
    let source = match node.get("sources").and_then(Node::as_seq) {
        Some(list) if !list.is_empty() => list.get(index)?,
        _ => node.get("source")?,
    };
    source.entry(key).map(|(k, _)| k.span.start)
}

/// Where the generator `index` of an ApplicationSet begins (its first key).
fn generator_at(object: &Node, index: usize) -> Option<usize> {
    let generator = (object.get("spec")?.get("generators")?.as_seq()?).get(index)?;
    let first = generator.as_map()?.first()?;
    Some(first.0.span.start)
}

/// Read the Argo CD objects of `inputs` and plan what they build below `root`, the
/// repository's root (canonical).
pub fn plan(inputs: &[PathBuf], root: &Path, files: &Files) -> Plan {
    let mut plan = Plan::default();
    let mut folders: Option<Vec<String>> = None;
    for object in read_objects(inputs, files) {
        // At the field that names what is not here, else at the object.
        let say = |at: Option<usize>, message: String| NotChecked {
            file: object.file.clone(),
            line: object.line,
            at,
            message,
            values: false,
        };
        match object.kind.as_str() {
            "Application" => {
                let (builds, elsewhere) = application(&object.root, &object, root);
                plan.builds.extend(builds);
                if let Some(elsewhere) = elsewhere {
                    let at = source_field(&object.node, &["spec"], elsewhere.source, elsewhere.key);
                    plan.not_checked.push(say(at, elsewhere.message));
                }
            }
            "ApplicationSet" => {
                let folders = folders.get_or_insert_with(|| repository_folders(root));
                let (apps, unread) = application_set(&object.root, folders);
                if let Some((message, generator)) = unread {
                    plan.not_checked
                        .push(say(generator_at(&object.node, generator), message));
                }
                let mut elsewhere = None;
                let set_namespace = text(&object.root, &["metadata", "namespace"]);
                let set_name = text(&object.root, &["metadata", "name"]).unwrap_or_default();
                let set_named = match &set_namespace {
                    Some(namespace) => format!("{namespace}/{set_name}"),
                    None => set_name,
                };
                for mut app in apps.into_iter().take(MOST_APPLICATIONS) {
                    // Its Applications are made in its namespace.
                    if let (Some(namespace), Some(metadata)) = (
                        &set_namespace,
                        app.get_mut("metadata").and_then(Json::as_object_mut),
                    ) {
                        metadata.insert("namespace".into(), Json::String(namespace.clone()));
                    }
                    let (builds, remote) = application(&app, &object, root);
                    let builds = builds.into_iter().map(|(dir, mut build)| {
                        build.name = format!("{} of ApplicationSet {set_named}", build.name);
                        (dir, build)
                    });
                    plan.builds.extend(builds);
                    elsewhere = elsewhere.or(remote);
                }
                if let Some(elsewhere) = elsewhere {
                    let at = source_field(
                        &object.node,
                        &["spec", "template", "spec"],
                        elsewhere.source,
                        elsewhere.key,
                    );
                    plan.not_checked.push(say(at, elsewhere.message));
                }
            }
            _ => {}
        }
    }
    plan
}

/// `key.key2` of a JSON object, as text.
fn text(node: &Json, path: &[&str]) -> Option<String> {
    let mut at = node;
    for key in path {
        at = at.get(key)?;
    }
    match at {
        Json::String(s) if !s.is_empty() => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        Json::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The builds of one Application (`app`, as JSON), and what it deploys from elsewhere, said
/// once.
fn application(
    app: &Json,
    object: &Object,
    root: &Path,
) -> (Vec<(PathBuf, ArgoBuild)>, Option<Elsewhere>) {
    let spec = app.get("spec").unwrap_or(&Json::Null);
    let app_name = text(app, &["metadata", "name"]).unwrap_or_default();
    let named = match text(app, &["metadata", "namespace"]) {
        Some(namespace) => format!("{namespace}/{app_name}"),
        None => app_name.clone(),
    };
    let sources: Vec<&Json> = match spec.get("sources").and_then(Json::as_array) {
        Some(list) if !list.is_empty() => list.iter().collect(),
        _ => spec.get("source").into_iter().collect(),
    };
    let destination = spec.get("destination").unwrap_or(&Json::Null);
    let cluster = text(destination, &["server"])
        .or_else(|| text(destination, &["name"]).map(|n| format!("cluster {n}")))
        .unwrap_or_else(|| "https://kubernetes.default.svc".to_string());
    // `$ref` value files: the repository's root when the `ref` source's files are here.
    let refs: Vec<String> = sources.iter().filter_map(|s| text(s, &["ref"])).collect();
    let mut builds = Vec::new();
    // What is elsewhere, and the field of which source names it.
    let mut elsewhere: Vec<(String, usize, &'static str)> = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        let url = text(source, &["repoURL"]).unwrap_or_default();
        if let Some(chart) = text(source, &["chart"]) {
            elsewhere.push((format!("its chart {chart:?} is in {url}"), index, "chart"));
            continue;
        }
        let Some(path) = text(source, &["path"]) else {
            // A `ref` source only lends its files to the others' value files.
            if text(source, &["ref"]).is_none() {
                elsewhere.push((format!("it deploys {url}"), index, "repoURL"));
            }
            continue;
        };
        let dir = root.join(crate::read::lexical(Path::new(
            path.trim_start_matches('/'),
        )));
        let Some(dir) = std::fs::canonicalize(&dir)
            .ok()
            .filter(|d| d.starts_with(root) && d.is_dir())
        else {
            elsewhere.push((format!("its path {path:?} is in {url}"), index, "repoURL"));
            continue;
        };
        let helm = source.get("helm").filter(|h| !h.is_null());
        let kustomize = source.get("kustomize").filter(|k| !k.is_null());
        let directory = source.get("directory").filter(|d| !d.is_null());
        let explicit = match (helm, kustomize, directory) {
            (Some(_), None, None) => Some("helm"),
            (None, Some(_), None) => Some("kustomize"),
            (None, None, Some(_)) => Some("directory"),
            _ => None,
        };
        let mut build = ArgoBuild {
            name: format!("Application {named}"),
            file: object.file.clone(),
            line: object.line,
            namespace: text(destination, &["namespace"]),
            cluster: cluster.clone(),
            explicit: explicit.map(str::to_string),
            release: app_name.clone(),
            recurse: directory.is_some_and(|d| d.get("recurse") == Some(&Json::Bool(true))),
            ..ArgoBuild::default()
        };
        if let Some(helm) = helm {
            helm_settings(helm, &dir, root, &refs, &mut build);
        }
        if let Some(kustomize) = kustomize {
            build.kustomize = kustomize_settings(kustomize);
        }
        builds.push((dir, build));
    }
    let count = elsewhere.len();
    let said = elsewhere
        .into_iter()
        .next()
        .map(|(first, source, key)| Elsewhere {
            message: match count {
                1 => format!("not checked: {first}, not in this repository"),
                n => format!(
                    "not checked: {first} (and {} more sources), not in this repository",
                    n - 1
                ),
            },
            source,
            key,
        });
    (builds, said)
}

/// A source's `helm` settings (argo-cd `reposerver/repository/repository.go`,
/// `helmTemplate`): value files relative to the source's path (`$ref/…` relative to the
/// `ref` source's repository), then `values` (or `valuesObject`, which wins), then the
/// parameters as `--set` (`--set-string` with `forceString`).
fn helm_settings(helm: &Json, dir: &Path, root: &Path, refs: &[String], build: &mut ArgoBuild) {
    if let Some(release) = text(helm, &["releaseName"]) {
        build.release = release;
    }
    let ignore_missing = helm.get("ignoreMissingValueFiles") == Some(&Json::Bool(true));
    for file in helm
        .get("valueFiles")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
    {
        let referenced = refs.iter().find_map(|r| {
            file.strip_prefix(&format!("${r}/"))
                .map(|rest| root.join(crate::read::lexical(Path::new(rest))))
        });
        let path = match referenced {
            Some(path) => path,
            None if file.contains("://") => {
                build.error.get_or_insert(format!(
                    "its value file {file:?} is fetched from the network, which ownerlint does not do"
                ));
                continue;
            }
            None => crate::read::lexical(&dir.join(file)),
        };
        match std::fs::canonicalize(&path) {
            Ok(real) if real.starts_with(root) && real.is_file() => build.value_files.push(real),
            Ok(_) => {
                build
                    .error
                    .get_or_insert(format!("its value file {file:?} is outside the repository"));
            }
            Err(_) if ignore_missing => {}
            Err(_) => {
                build.error.get_or_insert(format!(
                    "its value file {file:?} is not in the repository (set ignoreMissingValueFiles to go on without it)"
                ));
            }
        }
    }
    build.values = match (helm.get("valuesObject"), helm.get("values")) {
        (Some(object), _) if object.is_object() => Some(object.to_string()),
        (_, Some(Json::String(values))) if !values.trim().is_empty() => Some(values.clone()),
        (_, Some(object)) if object.is_object() => Some(object.to_string()),
        _ => None,
    };
    for parameter in helm
        .get("parameters")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = text(parameter, &["name"]) else {
            continue;
        };
        let value = text(parameter, &["value"]).unwrap_or_default();
        let force = parameter.get("forceString") == Some(&Json::Bool(true));
        build.parameters.push((format!("{name}={value}"), force));
    }
}

/// A source's `kustomize` settings, as the Flux settings that write the same into the
/// kustomization (Argo CD runs `kustomize edit set nameprefix|namesuffix|image|namespace`).
fn kustomize_settings(kustomize: &Json) -> Option<FluxBuild> {
    let images: Vec<String> = kustomize
        .get("images")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .filter_map(image)
        .collect();
    let settings = FluxBuild {
        target_namespace: text(kustomize, &["namespace"]),
        name_prefix: text(kustomize, &["namePrefix"]),
        name_suffix: text(kustomize, &["nameSuffix"]),
        images,
        ..FluxBuild::default()
    };
    (settings != FluxBuild::default()).then_some(settings)
}

/// An Argo CD kustomize image (`name=new:tag`, `new:tag`, `new@sha256:…`) as a kustomization's
/// `images` entry (JSON).
fn image(spec: &str) -> Option<String> {
    let (name, new) = match spec.split_once('=') {
        Some((name, new)) => (name.to_string(), new),
        None => (String::new(), spec),
    };
    let mut entry = serde_json::Map::new();
    let (image, digest) = match new.split_once('@') {
        Some((image, digest)) => (image, Some(digest)),
        None => (new, None),
    };
    // A tag follows the last `:` after the last `/` (a registry's port is not a tag).
    let slash = image.rfind('/').map_or(0, |i| i + 1);
    let (image, tag) = match image[slash..].rfind(':') {
        Some(colon) => (&image[..slash + colon], Some(&image[slash + colon + 1..])),
        None => (image, None),
    };
    let name = match name.is_empty() {
        true => image.to_string(),
        false => {
            entry.insert("newName".into(), Json::String(image.to_string()));
            name
        }
    };
    if name.is_empty() {
        return None;
    }
    entry.insert("name".into(), Json::String(name));
    if let Some(tag) = tag {
        entry.insert("newTag".into(), Json::String(tag.to_string()));
    }
    if let Some(digest) = digest {
        entry.insert("digest".into(), Json::String(digest.to_string()));
    }
    Some(Json::Object(entry).to_string())
}

/// The Applications and ApplicationSets of `inputs`, as JSON.
fn read_objects(inputs: &[PathBuf], files: &Files) -> Vec<Object> {
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
        if !text.contains("argoproj.io/") {
            continue;
        }
        for root in crate::yaml::roots(&text) {
            let api_version = root
                .get("apiVersion")
                .and_then(crate::yaml::Node::as_str)
                .unwrap_or_default();
            let kind = root
                .get("kind")
                .and_then(crate::yaml::Node::as_str)
                .unwrap_or_default()
                .to_string();
            if !api_version.starts_with("argoproj.io/")
                || !(kind == "Application" || kind == "ApplicationSet")
            {
                continue;
            }
            let line = text
                .get(..root.span.start)
                .map_or(0, |before| before.matches('\n').count());
            objects.push(Object {
                file: file.clone(),
                line,
                kind,
                root: super::kustomization::to_json(&root),
                node: root,
            });
        }
    }
    objects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_read_as_argo_cd_writes_them() {
        assert_eq!(
            image("nginx:1.2").as_deref(),
            Some(r#"{"name":"nginx","newTag":"1.2"}"#)
        );
        assert_eq!(
            image("app=reg.io:5000/team/app:v2").as_deref(),
            Some(r#"{"name":"app","newName":"reg.io:5000/team/app","newTag":"v2"}"#)
        );
        assert_eq!(
            image("reg.io:5000/app@sha256:ab").as_deref(),
            Some(r#"{"digest":"sha256:ab","name":"reg.io:5000/app"}"#)
        );
    }
}
