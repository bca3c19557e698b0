//! What a build reads: the files a chart or an overlay makes its output from, so that every
//! other file among the inputs is linted on its own and none is linted twice. Read from the
//! chart's layout and the kustomization's fields, without running the tool, so that a build
//! that fails still accounts for its files (they are reported as not checked, not linted as
//! they are).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{KUSTOMIZATION_FILES, Target, Tool, lexical};
use crate::read::Files;
use crate::source::Span;
use crate::yaml::Node;

/// The files of a build, as lexical paths: whole folders (a chart's `templates/`) and single
/// files (an overlay's resources and patches).
#[derive(Clone, Debug, Default)]
pub struct Consumed {
    folders: Vec<PathBuf>,
    files: HashSet<PathBuf>,
    /// The overlays and components a kustomization builds on, by their folders.
    pub builds_on: Vec<PathBuf>,
}

impl Consumed {
    /// Whether the build reads `path` (written as the build's folder was).
    pub fn contains(&self, path: &Path) -> bool {
        self.contains_lexical(&lexical(path))
    }

    /// [`Consumed::contains`] of a path already made lexical (one path tested against many
    /// builds is made lexical once).
    pub fn contains_lexical(&self, path: &Path) -> bool {
        self.files.contains(path) || self.folders.iter().any(|dir| path.starts_with(dir))
    }

    /// The single files it reads (not those of its folders).
    pub fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.files.iter()
    }
}

/// The files below a chart's folder that `helm template` reads: its templates, CRDs and
/// subcharts, and the files that configure it (values, the schema, the lock file, and the
/// `ci/` values files of chart-testing).
const CHART_FOLDERS: [&str; 4] = ["templates", "crds", "charts", "ci"];
const CHART_FILES: [&str; 4] = [
    "Chart.yaml",
    "Chart.lock",
    "values.schema.json",
    ".helmignore",
];

impl Target {
    /// The files this chart or overlay is built from, as `files` has them.
    pub fn consumed(&self, files: &Files) -> Consumed {
        let mut consumed = Consumed::default();
        match self.tool {
            Tool::Helm => {
                chart(&lexical(&self.dir), files, &mut consumed);
                // The `file://` dependencies it is built with (see `super::dependencies`).
                for dependency in super::dependencies::missing_file_dependencies(&self.dir, files) {
                    chart(&dependency.dir, files, &mut consumed);
                }
            }
            Tool::Kustomize => {
                let mut visited = HashSet::new();
                // A Flux Kustomization's folder without a kustomization file: the one Flux
                // writes there.
                let generated = self.flux.as_ref().and_then(|f| f.generated.as_deref());
                kustomization(
                    &lexical(&self.dir),
                    files,
                    &mut consumed,
                    &mut visited,
                    Some(generated),
                );
                // The components a Flux Kustomization adds to the overlay's own.
                for component in self.flux.iter().flat_map(|flux| &flux.components) {
                    let dir = lexical(&self.dir.join(component));
                    kustomization(&dir, files, &mut consumed, &mut visited, None);
                }
            }
        }
        consumed
    }
}

/// Add what the chart in `dir` (lexical) is made of to `consumed`.
fn chart(dir: &Path, files: &Files, consumed: &mut Consumed) {
    consumed
        .folders
        .extend(CHART_FOLDERS.iter().map(|sub| dir.join(sub)));
    consumed
        .files
        .extend(CHART_FILES.iter().map(|name| dir.join(name)));
    // `values.yaml`, and the values files kept beside it (`values-prod.yaml`).
    for (path, _) in files.entries(dir) {
        let Some(name) = path.file_name() else {
            continue;
        };
        let name = name.to_string_lossy();
        if name.starts_with("values") && is_yaml_name(&name) {
            consumed.files.insert(dir.join(&*name));
        }
    }
}

fn is_yaml_name(name: &str) -> bool {
    [".yaml", ".yml", ".json"]
        .iter()
        .any(|ext| name.to_ascii_lowercase().ends_with(ext))
}

/// Add what the kustomization in `dir` reads to `consumed`, and what the kustomizations it
/// builds on read (each folder once, so that a loop ends). `top`: the overlay built (with the
/// text of the kustomization written for it, when it has none of its own), not a folder it
/// builds on.
fn kustomization(
    dir: &Path,
    files: &Files,
    consumed: &mut Consumed,
    visited: &mut HashSet<PathBuf>,
    top: Option<Option<&str>>,
) {
    if !visited.insert(dir.to_path_buf()) {
        return;
    }
    let text = match top.flatten() {
        Some(generated) => generated.to_string(),
        None => {
            let Some(file) = KUSTOMIZATION_FILES
                .iter()
                .map(|name| dir.join(name))
                .find(|file| files.is_file(file))
            else {
                return;
            };
            if top.is_none() {
                consumed.builds_on.push(dir.to_path_buf());
            }
            consumed.files.insert(file.clone());
            let Some(text) = files.read(&file) else {
                return;
            };
            text
        }
    };
    for root in crate::yaml::roots(&text) {
        for Named { text: entry, .. } in kustomization_named(&root) {
            // A remote resource (`https://…`, `github.com/…?ref=…`) is no file of the inputs.
            if entry.contains("://") || entry.contains('?') {
                continue;
            }
            let path = lexical(&dir.join(entry));
            if path.is_dir() {
                kustomization(&path, files, consumed, visited, None);
            } else {
                consumed.files.insert(path);
            }
        }
    }
}

/// A path a kustomization names, with the field it is in and where it is written.
pub(super) struct Named<'a> {
    /// The field, as a message names it: `resources`, `patches path`, `secretGenerator files`.
    pub field: &'static str,
    /// As written (a generator's `key=path` without its key).
    pub text: &'a str,
    /// Where it is written in the kustomization's text.
    pub span: Span,
    /// What kustomize builds on (`resources`, `bases`, `components` and the plugin
    /// configurations of `generators`, `transformers` and `validators`): a file, a folder, or a
    /// repository it clones. The other paths are files it reads, or downloads.
    pub builds_on: bool,
}

/// The fields of a kustomization whose entries kustomize builds on.
const BUILDS_ON: [&str; 6] = [
    "resources",
    "bases",
    "components",
    "generators",
    "transformers",
    "validators",
];

/// Every path a kustomization names, as written: what it builds on (`resources`, `bases`,
/// `components`, and the plugin configurations of `generators`, `transformers` and
/// `validators`), its patches, its CRDs and configurations, its replacements, its OpenAPI
/// schema, and the files its ConfigMap and Secret generators read. An entry of several lines
/// is a plugin's configuration or a patch written in place: no path.
pub(super) fn kustomization_named<'n>(root: &'n Node) -> Vec<Named<'n>> {
    let mut named = Vec::new();
    let mut add = |field: &'static str, node: &'n Node, builds_on: bool| {
        if let Some(text) = node.as_str().filter(|text| !text.contains('\n')) {
            named.push(Named {
                field,
                text,
                span: node.span,
                builds_on,
            });
        }
    };
    for field in BUILDS_ON {
        for entry in seq_of(root.get(field)) {
            add(field, entry, true);
        }
    }
    for field in ["crds", "configurations"] {
        for entry in seq_of(root.get(field)) {
            add(field, entry, false);
        }
    }
    for entry in seq_of(root.get("patchesStrategicMerge")) {
        add("patchesStrategicMerge", entry, false);
    }
    for (field, key) in [
        ("patches path", "patches"),
        ("patchesJson6902 path", "patchesJson6902"),
        ("replacements path", "replacements"),
    ] {
        for entry in seq_of(root.get(key)) {
            if let Some(path) = entry.get("path") {
                add(field, path, false);
            }
        }
    }
    if let Some(path) = root.get("openapi").and_then(|o| o.get("path")) {
        add("openapi path", path, false);
    }
    for (generator, files, envs, env) in [
        (
            "configMapGenerator",
            "configMapGenerator files",
            "configMapGenerator envs",
            "configMapGenerator env",
        ),
        (
            "secretGenerator",
            "secretGenerator files",
            "secretGenerator envs",
            "secretGenerator env",
        ),
    ] {
        for entry in seq_of(root.get(generator)) {
            for (field, key) in [(files, "files"), (envs, "envs")] {
                for file in seq_of(entry.get(key)) {
                    add(field, file, false);
                }
            }
            if let Some(file) = entry.get("env") {
                add(env, file, false);
            }
        }
    }
    // `files` entries may be `key=path`.
    for entry in &mut named {
        if entry.field.ends_with(" files") {
            entry.text = entry
                .text
                .split_once('=')
                .map_or(entry.text, |(_, path)| path);
        }
    }
    named
}

/// The items of a sequence (none when `node` is missing or no sequence).
pub(super) fn seq_of(node: Option<&Node>) -> &[Node] {
    node.and_then(Node::as_seq).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overlay_reads_its_resources_patches_and_bases() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/render/shop");
        let Some(target) = Target::of_dir(&root.join("overlays/prod")) else {
            panic!("testdata/render/shop/overlays/prod is an overlay");
        };
        let consumed = target.consumed(&Files::default());
        assert!(consumed.contains(&root.join("overlays/prod/kustomization.yaml")));
        assert!(consumed.contains(&root.join("overlays/prod/add-owner.yaml")));
        assert!(consumed.contains(&root.join("overlays/prod/../../base/deployment.yaml")));
        assert!(consumed.builds_on.contains(&lexical(&root.join("base"))));
        let Some(staging) = Target::of_dir(&root.join("overlays/staging")) else {
            panic!("testdata/render/shop/overlays/staging is an overlay");
        };
        let component = root.join("components/keep-on-delete/foreground.yaml");
        assert!(staging.consumed(&Files::default()).contains(&component));
        assert!(!consumed.contains(&component));
    }

    #[test]
    fn a_chart_reads_its_templates_and_values_but_not_other_folders() {
        let dir = Path::new("charts/shop");
        let target = Target {
            tool: Tool::Helm,
            dir: dir.to_path_buf(),
            file: dir.join("Chart.yaml"),
            flux: None,
            argo: None,
            configured: None,
        };
        let consumed = target.consumed(&Files::default());
        assert!(consumed.contains(Path::new("charts/shop/templates/a/b.yaml")));
        assert!(consumed.contains(Path::new("./charts/shop/crds/x.yaml")));
        assert!(consumed.contains(Path::new("charts/shop/charts/sub/templates/c.yaml")));
        assert!(!consumed.contains(Path::new("charts/shop/examples/pod.yaml")));
        assert!(!consumed.contains(Path::new("charts/shopping/templates/a.yaml")));
    }
}
