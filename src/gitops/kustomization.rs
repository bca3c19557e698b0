//! What a Flux Kustomization writes into the kustomization of the folder it builds, before
//! kustomize runs (fluxcd/pkg `kustomize/kustomize_generator.go`, `Generator.WriteFile`):
//! `namespace` is set to `spec.targetNamespace`, `namePrefix` and `nameSuffix` to the spec's
//! (replacing the kustomization's own), `spec.patches` are added after the kustomization's own
//! patches, each of `spec.images` replaces the kustomization's image of that name or is added,
//! and `spec.components` are added to its components. The kustomization is written back as
//! JSON, which kustomize reads as the YAML it is.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json};

use super::FluxBuild;
use crate::yaml::{Node, ScalarType, Value};

/// The text of the kustomization `text` as `flux` has it built; `None` when it is not a
/// mapping (kustomize then says what is wrong with it).
pub fn rewrite(text: &str, flux: &FluxBuild) -> Option<String> {
    let root = crate::yaml::roots(text).into_iter().next()?;
    let Json::Object(mut kustomization) = to_json(&root) else {
        return None;
    };
    let mut set = |key: &str, value: &Option<String>| {
        if let Some(value) = value {
            kustomization.insert(key.to_string(), Json::String(value.clone()));
        }
    };
    set("namespace", &flux.target_namespace);
    set("namePrefix", &flux.name_prefix);
    set("nameSuffix", &flux.name_suffix);
    append(&mut kustomization, "patches", &flux.patches, |_, _| false);
    append(&mut kustomization, "images", &flux.images, |old, new| {
        old.get("name").is_some() && old.get("name") == new.get("name")
    });
    let components: Vec<String> = flux
        .components
        .iter()
        .map(|c| Json::String(c.clone()).to_string())
        .collect();
    append(&mut kustomization, "components", &components, |_, _| false);
    serde_json::to_string_pretty(&Json::Object(kustomization)).ok()
}

/// Add each of `entries` (JSON texts) to the list under `key`, in place of the first entry
/// `same` says it replaces.
fn append(
    kustomization: &mut Map<String, Json>,
    key: &str,
    entries: &[String],
    same: impl Fn(&Json, &Json) -> bool,
) {
    if entries.is_empty() {
        return;
    }
    let list = kustomization
        .entry(key.to_string())
        .or_insert_with(|| Json::Array(Vec::new()));
    if !list.is_array() {
        *list = Json::Array(Vec::new());
    }
    let Json::Array(list) = list else {
        return;
    };
    for entry in entries {
        let Ok(new) = serde_json::from_str::<Json>(entry) else {
            continue;
        };
        match list.iter_mut().find(|old| same(old, &new)) {
            Some(old) => *old = new,
            None => list.push(new),
        }
    }
}

/// How many entries the folder of a Kustomization without a kustomization file may hold, and
/// how deep, for the one Flux would write to be made.
const MOST_ENTRIES: usize = 20_000;
const DEEPEST: usize = 32;

/// The kustomization Flux writes into the folder `dir` of a Kustomization's path when it has
/// none (fluxcd/pkg `kustomize/kustomize_generator.go`, `generateKustomization`): every
/// `.yaml` and `.yml` file below it, in the order of a walk of sorted names, and each folder
/// below it that has a kustomization file of its own (not walked into). `None` when `dir` has
/// a kustomization file, is not a folder, or is too big to walk. Symbolic links are not
/// followed, and the repository's `.git` is not walked.
pub fn generate(dir: &Path) -> Option<String> {
    // kustomize's `konfig.RecognizedKustomizationFileNames`.
    let has_kustomization = |dir: &Path| {
        ["kustomization.yaml", "kustomization.yml", "Kustomization"]
            .iter()
            .any(|name| dir.join(name).is_file())
    };
    if !dir.is_dir() || has_kustomization(dir) {
        return None;
    }
    let mut resources = Vec::new();
    let mut seen = 0;
    let mut stack = vec![(dir.to_path_buf(), 0)];
    // A depth-first walk in sorted order, as Go's `filepath.Walk` goes.
    let mut order: Vec<PathBuf> = Vec::new();
    while let Some((at, depth)) = stack.pop() {
        if at != dir {
            order.push(at.clone());
            if at.is_dir() && has_kustomization(&at) {
                continue;
            }
        }
        if !at.is_dir() || depth > DEEPEST {
            continue;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&at)
            .ok()?
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_symlink()))
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n != ".git"))
            .collect();
        seen += entries.len();
        if seen > MOST_ENTRIES {
            return None;
        }
        entries.sort();
        stack.extend(entries.into_iter().rev().map(|p| (p, depth + 1)));
    }
    for path in order {
        let Ok(inside) = path.strip_prefix(dir) else {
            continue;
        };
        let name = inside.to_string_lossy().replace('\\', "/");
        let yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
        if path.is_dir() && has_kustomization(&path) || path.is_file() && yaml {
            resources.push(Json::String(format!("./{name}")));
        }
    }
    let mut kustomization = Map::new();
    kustomization.insert(
        "apiVersion".into(),
        Json::String("kustomize.config.k8s.io/v1beta1".into()),
    );
    kustomization.insert("kind".into(), Json::String("Kustomization".into()));
    kustomization.insert("resources".into(), Json::Array(resources));
    serde_json::to_string_pretty(&Json::Object(kustomization)).ok()
}

/// A node as JSON, its plain scalars typed as Kubernetes' YAML reader types them.
pub fn to_json(node: &Node) -> Json {
    match &node.value {
        Value::Map(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_scalar().map_or_else(String::new, |s| s.text.clone()),
                        to_json(v),
                    )
                })
                .collect(),
        ),
        Value::Seq(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Scalar(scalar) => match scalar.resolve() {
            ScalarType::Null => Json::Null,
            ScalarType::Bool(b) => Json::Bool(b),
            ScalarType::Number => serde_json::from_str(&scalar.text)
                .unwrap_or_else(|_| Json::String(scalar.text.clone())),
            ScalarType::String => Json::String(scalar.text.clone()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_a_kustomization_gets_its_yaml_files_and_overlays_below() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temporary folder: {e}"));
        let root = dir.path();
        for (path, text) in [
            ("b.yaml", "kind: A"),
            ("a.yml", "kind: A"),
            ("notes.md", "text"),
            ("sub/deeper/c.yaml", "kind: A"),
            ("overlay/kustomization.yaml", "resources: [x.yaml]"),
            ("overlay/x.yaml", "kind: A"),
            (".git/config.yaml", "x"),
        ] {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap_or(root))
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(&file, text).unwrap_or_else(|e| panic!("{e}"));
        }
        let text = generate(root).unwrap_or_default();
        let json: Json = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(
            json["resources"],
            serde_json::json!(["./a.yml", "./b.yaml", "./overlay", "./sub/deeper/c.yaml"])
        );
        // A folder with a kustomization of its own gets none.
        assert_eq!(generate(&root.join("overlay")), None);
    }

    #[test]
    fn the_spec_is_written_into_the_kustomization_as_flux_writes_it() {
        let flux = FluxBuild {
            target_namespace: Some("shop".into()),
            name_prefix: Some("p-".into()),
            images: vec![r#"{"name":"app","newTag":"2"}"#.into()],
            patches: vec![r#"{"patch":"x"}"#.into()],
            ..FluxBuild::default()
        };
        let text = "namespace: old\nnamePrefix: q-\nresources: [a.yaml]\nimages:\n- name: app\n  newTag: \"1\"\n- name: db\n";
        let out = rewrite(text, &flux).unwrap_or_default();
        let json: Json = serde_json::from_str(&out).unwrap_or_default();
        assert_eq!(json["namespace"], "shop");
        assert_eq!(json["namePrefix"], "p-");
        assert_eq!(json["resources"][0], "a.yaml");
        assert_eq!(json["images"][0]["newTag"], "2");
        assert_eq!(json["images"][1]["name"], "db");
        assert_eq!(json["patches"][0]["patch"], "x");
    }
}
