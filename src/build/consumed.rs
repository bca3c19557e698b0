//! What a build reads: the files a chart or an overlay makes its output from, so that every
//! other file among the inputs is linted on its own and none is linted twice. Read from the
//! chart's layout and the kustomization's fields, without running the tool, so that a build
//! that fails still accounts for its files (they are reported as not checked, not linted as
//! they are).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{KUSTOMIZATION_FILES, Target, Tool, lexical};
use crate::read::Files;

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
                let dir = lexical(&self.dir);
                consumed
                    .folders
                    .extend(CHART_FOLDERS.iter().map(|sub| dir.join(sub)));
                consumed
                    .files
                    .extend(CHART_FILES.iter().map(|name| dir.join(name)));
                // `values.yaml`, and the values files kept beside it (`values-prod.yaml`).
                for (path, _) in files.entries(&self.dir) {
                    let Some(name) = path.file_name() else {
                        continue;
                    };
                    let name = name.to_string_lossy();
                    if name.starts_with("values") && is_yaml_name(&name) {
                        consumed.files.insert(dir.join(&*name));
                    }
                }
            }
            Tool::Kustomize => {
                let mut visited = HashSet::new();
                kustomization(
                    &lexical(&self.dir),
                    files,
                    &mut consumed,
                    &mut visited,
                    true,
                );
            }
        }
        consumed
    }
}

fn is_yaml_name(name: &str) -> bool {
    [".yaml", ".yml", ".json"]
        .iter()
        .any(|ext| name.to_ascii_lowercase().ends_with(ext))
}

/// Add what the kustomization in `dir` reads to `consumed`, and what the kustomizations it
/// builds on read (each folder once, so that a loop ends).
fn kustomization(
    dir: &Path,
    files: &Files,
    consumed: &mut Consumed,
    visited: &mut HashSet<PathBuf>,
    top: bool,
) {
    if !visited.insert(dir.to_path_buf()) {
        return;
    }
    let Some(file) = KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|file| files.is_file(file))
    else {
        return;
    };
    if !top {
        consumed.builds_on.push(dir.to_path_buf());
    }
    consumed.files.insert(file.clone());
    let Some(text) = files.read(&file) else {
        return;
    };
    for root in crate::yaml::roots(&text) {
        for entry in kustomization_paths(&root) {
            // A remote resource (`https://…`, `github.com/…?ref=…`) is no file of the inputs.
            if entry.contains("://") || entry.contains('?') {
                continue;
            }
            let path = lexical(&dir.join(entry));
            if path.is_dir() {
                kustomization(&path, files, consumed, visited, false);
            } else {
                consumed.files.insert(path);
            }
        }
    }
}

/// Every path a kustomization names, as written: what it builds on (`resources`, `bases`,
/// `components`, and the plugin configurations of `generators`, `transformers` and
/// `validators`), its patches, its CRDs and configurations, its replacements, its OpenAPI
/// schema, and the files its ConfigMap and Secret generators read.
fn kustomization_paths(root: &crate::yaml::Node) -> Vec<&str> {
    let strings = |key: &str| {
        root.get(key)
            .and_then(|l| l.as_seq())
            .unwrap_or_default()
            .iter()
            .filter_map(|entry| entry.as_str())
            .collect::<Vec<_>>()
    };
    let mut paths: Vec<&str> = [
        "resources",
        "bases",
        "components",
        "generators",
        "transformers",
        "validators",
        "crds",
        "configurations",
    ]
    .into_iter()
    .flat_map(strings)
    .filter(|entry| !entry.contains('\n'))
    .collect();
    paths.extend(super::kustomization_patches(root));
    for entry in root
        .get("replacements")
        .and_then(|l| l.as_seq())
        .unwrap_or_default()
    {
        paths.extend(entry.get("path").and_then(|p| p.as_str()));
    }
    paths.extend(
        root.get("openapi")
            .and_then(|o| o.get("path"))
            .and_then(|p| p.as_str()),
    );
    for generator in ["configMapGenerator", "secretGenerator"] {
        for entry in root
            .get(generator)
            .and_then(|l| l.as_seq())
            .unwrap_or_default()
        {
            let lists = ["files", "envs"]
                .into_iter()
                .filter_map(|key| entry.get(key)?.as_seq())
                .flatten()
                .filter_map(|f| f.as_str());
            // `files` entries may be `key=path`.
            paths.extend(lists.map(|f| f.split_once('=').map_or(f, |(_, path)| path)));
            paths.extend(entry.get("env").and_then(|e| e.as_str()));
        }
    }
    paths
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
        };
        let consumed = target.consumed(&Files::default());
        assert!(consumed.contains(Path::new("charts/shop/templates/a/b.yaml")));
        assert!(consumed.contains(Path::new("./charts/shop/crds/x.yaml")));
        assert!(consumed.contains(Path::new("charts/shop/charts/sub/templates/c.yaml")));
        assert!(!consumed.contains(Path::new("charts/shop/examples/pod.yaml")));
        assert!(!consumed.contains(Path::new("charts/shopping/templates/a.yaml")));
    }
}
