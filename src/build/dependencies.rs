//! A chart's dependencies. A dependency is rendered from the chart's `charts/` folder, where
//! `helm dependency build` puts it: an archive fetched from a chart repository, or, for a
//! `repository: file://../common`, the chart folder it names, packed. A chart whose `file://`
//! dependencies are in the repository but not in its `charts/` (the usual layout: `charts/`
//! is not committed) is built as `helm dependency build` would leave it, which needs no
//! network: helm itself checks each against the version its entry asks for
//! (`pkg/downloader/manager.go`, `tarFromLocalDir`), in a private scratch chart, and the
//! dependency's folder is then linked into the copy's `charts/` (helm loads a folder there
//! exactly as it loads the archive `helm dependency build` would pack from it, `.helmignore`
//! included), so that what it renders goes back to the dependency's own files. A dependency
//! from a chart repository or a registry is never fetched: when it is not in `charts/`, the
//! chart is not built, and the failure says where it comes from.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::environment::ToolHome;
use super::{lexical, run_tool, tool_message};
use crate::read::Files;
use crate::yaml::Node;

/// One entry of a chart's `dependencies:` (in `Chart.yaml`, or for a chart of `apiVersion:
/// v1`, `requirements.yaml`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Dependency {
    pub name: String,
    pub alias: Option<String>,
    /// The version constraint, as written.
    pub version: Option<String>,
    /// As written: `https://…`, `oci://…`, `@stable`, `file://../common`; empty when none.
    pub repository: String,
    /// The values that turn it on or off (`redis.enabled`, several separated by commas).
    pub condition: Option<String>,
}

/// A `file://` dependency to build: its entry, and the chart folder it names (as the chart's
/// folder was named, lexical).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct FileDependency {
    pub entry: Dependency,
    pub dir: PathBuf,
}

/// The entries of the `dependencies:` of the chart in `dir`.
pub(super) fn dependencies(dir: &Path, files: &Files) -> Vec<Dependency> {
    let text = |name: &str| -> Option<Vec<Dependency>> {
        let text = files.read(&dir.join(name))?;
        let root = crate::yaml::roots(&text).into_iter().next()?;
        let list = root.get("dependencies")?.as_seq()?;
        Some(list.iter().filter_map(entry).collect())
    };
    text("Chart.yaml")
        .filter(|list| !list.is_empty())
        .or_else(|| text("requirements.yaml"))
        .unwrap_or_default()
}

fn entry(node: &Node) -> Option<Dependency> {
    let field = |key: &str| {
        let value = node.get(key)?.as_scalar()?.text.trim().to_string();
        (!value.is_empty()).then_some(value)
    };
    Some(Dependency {
        name: field("name")?,
        alias: field("alias"),
        version: field("version"),
        repository: field("repository").unwrap_or_default(),
        condition: field("condition"),
    })
}

/// The `file://` dependencies of the chart in `dir` that are not in its `charts/` and name a
/// chart folder (one that names none is left to helm, which says it is missing).
pub(super) fn missing_file_dependencies(dir: &Path, files: &Files) -> Vec<FileDependency> {
    let mut missing: Vec<FileDependency> = Vec::new();
    for entry in dependencies(dir, files) {
        let Some(path) = entry.repository.strip_prefix("file://") else {
            continue;
        };
        if in_charts_folder(dir, &entry.name, files) {
            continue;
        }
        let named = lexical(&dir.join(path));
        if !files.is_file(&named.join("Chart.yaml")) || named == lexical(dir) {
            continue;
        }
        // One folder named by two entries (under two aliases) is packed once by helm.
        if missing.iter().any(|m| m.entry.name == entry.name) {
            continue;
        }
        missing.push(FileDependency { entry, dir: named });
    }
    missing
}

/// Whether the chart in `dir` has a chart named `name` in its `charts/`: a folder with a
/// `Chart.yaml` of that name, or an archive packed as helm names them (`NAME-VERSION.tgz`).
fn in_charts_folder(dir: &Path, name: &str, files: &Files) -> bool {
    files.entries(&dir.join("charts")).iter().any(|(path, _)| {
        if path.is_dir() {
            return super::helm::chart_field(path, "name", files).as_deref() == Some(name);
        }
        let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
            return false;
        };
        file.strip_suffix(".tgz")
            .and_then(|stem| stem.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|version| {
                let version = version.strip_prefix('v').unwrap_or(version);
                version.starts_with(|c: char| c.is_ascii_digit())
            })
    })
}

/// The dependencies helm's `found in Chart.yaml, but missing in charts/ directory: redis, pg`
/// names: `None` when the message is another.
pub(super) fn missing_names(message: &str) -> Option<Vec<&str>> {
    const MISSING: &str = "missing in charts/ directory: ";
    let names = &message[message.find(MISSING)? + MISSING.len()..];
    let names = (names.lines().next()?.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty());
    Some(names.collect())
}

/// helm's `found in Chart.yaml, but missing in charts/ directory: redis, pg`, said with where
/// each missing dependency comes from and what to do: `None` when the message is another.
pub(super) fn explain_missing(message: &str, dir: &Path, files: &Files) -> Option<String> {
    let names = missing_names(message)?;
    let entries = dependencies(dir, files);
    let values = files
        .read(&dir.join("values.yaml"))
        .and_then(|text| crate::yaml::roots(&text).into_iter().next());
    let said: Vec<String> = names
        .iter()
        .map(|name| {
            let entry = entries.iter().find(|e| e.name == *name);
            let repository = entry.map_or("", |e| e.repository.as_str());
            let mut said = match repository {
                "" => format!("{name} (it names no repository"),
                r if r.starts_with("file://") => {
                    format!("{name} ({r} names no chart folder in the repository")
                }
                r => format!("{name} (from {r}, which ownerlint does not download"),
            };
            // helm wants it even when its values turn it off.
            if let Some(condition) = entry.and_then(|e| e.condition.as_deref())
                && let Some(off) = values.as_ref().and_then(|v| turned_off(v, condition))
            {
                said.push_str(&format!(
                    "; {off} is false in values.yaml, but helm needs it to build the chart"
                ));
            }
            said + ")"
        })
        .collect();
    let one = match said.len() {
        1 => "dependency",
        _ => "dependencies",
    };
    Some(format!(
        "helm template failed: {one} not in charts/: {}",
        said.join(", ")
    ))
}

/// The path of `condition` that decides it, when that is `false` in `values`: helm takes the
/// first of its comma-separated paths that the values give (`chartutil`,
/// `processDependencyConditions`).
fn turned_off(values: &Node, condition: &str) -> Option<String> {
    for path in condition.split(',').map(str::trim) {
        let mut node = values;
        let found = path.split('.').all(|key| match node.get(key) {
            Some(next) => {
                node = next;
                true
            }
            None => false,
        });
        if !found {
            continue;
        }
        let scalar = node.as_scalar()?;
        return (scalar.plain && scalar.text == "false").then(|| path.to_string());
    }
    None
}

/// Build the `file://` dependencies `missing` of the chart copied to `chart` as `helm
/// dependency build` would, each from its copy (`(dependency, copy of its folder)`): helm
/// checks them in a scratch chart of its own, then each folder is linked into the chart's
/// `charts/`. The error is helm's, with each dependency's repository as written.
pub(super) fn build_file_dependencies(
    chart: &Path,
    missing: &[(&FileDependency, PathBuf)],
    timeout: std::time::Duration,
    stop: Option<&AtomicBool>,
) -> Result<(), String> {
    let Some(helm) = super::helm_program() else {
        return Err(
            "helm is not on PATH, so this chart was not rendered and its objects were not checked"
                .into(),
        );
    };
    let home = ToolHome::new().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let scratch = home.file("dependencies");
    let listed: Vec<serde_json::Value> = missing
        .iter()
        .map(|(dependency, copy)| {
            let mut entry = serde_json::json!({
                "name": dependency.entry.name,
                "repository": format!("file://{}", copy.display()),
            });
            if let Some(version) = &dependency.entry.version {
                entry["version"] = serde_json::Value::String(version.clone());
            }
            entry
        })
        .collect();
    let chart_yaml = serde_json::json!({
        "apiVersion": "v2",
        "name": "dependencies",
        "version": "0.0.0",
        "dependencies": listed,
    });
    std::fs::create_dir_all(&scratch)
        .and_then(|()| std::fs::write(scratch.join("Chart.yaml"), chart_yaml.to_string()))
        .map_err(|e| format!("cannot write a chart to build its dependencies in: {e}"))?;
    let mut command = std::process::Command::new(helm);
    command
        .args(["dependency", "build", "--skip-refresh", "--"])
        .arg(&scratch);
    home.helm(&mut command);
    let output = run_tool(&mut command, timeout, stop)
        .map_err(|e| format!("helm dependency build could not be run: {e}"))?;
    if !output.status.success() {
        let mut message = tool_message(&output.stderr);
        for (dependency, copy) in missing {
            message = message.replace(
                &format!("file://{}", copy.display()),
                &dependency.entry.repository,
            );
        }
        let message = message.strip_prefix("Error: ").unwrap_or(&message);
        return Err(format!("helm dependency build failed: {message}"));
    }
    let charts = chart.join("charts");
    std::fs::create_dir_all(&charts)
        .map_err(|e| format!("cannot make charts/ to build its dependencies into: {e}"))?;
    for (dependency, copy) in missing {
        let mut link = charts.join(&dependency.entry.name);
        let mut n = 1;
        while link.symlink_metadata().is_ok() {
            n += 1;
            link = charts.join(format!("{}-{n}", dependency.entry.name));
        }
        link_folder(copy, &link)
            .map_err(|e| format!("cannot put {} into charts/: {e}", dependency.entry.name))?;
    }
    Ok(())
}

#[cfg(unix)]
fn link_folder(to: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(to, link)
}

#[cfg(windows)]
fn link_folder(to: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(to, link)
}

/// The 1-based line and column of the entry named `name` in the `dependencies:` list of a
/// chart's `text`: its dash, or its `name:` key when that is not on the dash's line.
pub(super) fn dependency_entry(text: &str, name: &str) -> Option<(usize, usize)> {
    let mut in_dependencies = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if !line.starts_with([' ', '\t', '-']) && !trimmed.is_empty() && !trimmed.starts_with('#') {
            in_dependencies = trimmed.trim_end() == "dependencies:";
            continue;
        }
        if !in_dependencies {
            continue;
        }
        let key = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
        let Some(value) = key.strip_prefix("name:") else {
            continue;
        };
        let value = value.split(" #").next().unwrap_or("").trim();
        if value.trim_matches(|c| c == '"' || c == '\'') != name {
            continue;
        }
        let indent = line.len() - trimmed.len();
        let column = match trimmed.starts_with("- ") {
            true => indent,
            false => line.len() - key.len(),
        };
        return Some((i + 1, line[..column].chars().count() + 1));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_dependency_is_found_at_its_entry() {
        let chart = "apiVersion: v2\nname: x\ndependencies:\n- name: redis\n  version: 1.0.0\n- version: 2.0.0\n  name: \"pg\" # the database\nversion: 0.1.0\n";
        assert_eq!(dependency_entry(chart, "redis"), Some((4, 1)));
        assert_eq!(dependency_entry(chart, "pg"), Some((7, 3)));
        assert_eq!(dependency_entry(chart, "x"), None);
        let indented = "dependencies:\n  - name: é\n";
        assert_eq!(dependency_entry(indented, "é"), Some((2, 3)));
    }

    #[test]
    fn a_missing_dependency_says_where_it_comes_from() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let chart = "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: redis\n  repository: https://charts.example.com\n  condition: cache.on,redis.enabled\n- name: lib\n  repository: file://../nosuch\n- name: local\n";
        std::fs::write(dir.path().join("Chart.yaml"), chart).unwrap_or_else(|e| panic!("{e}"));
        let values = "redis:\n  enabled: false\n";
        std::fs::write(dir.path().join("values.yaml"), values).unwrap_or_else(|e| panic!("{e}"));
        let files = Files::default();
        let said = |names: &str| {
            explain_missing(
                &format!("Error: … found in Chart.yaml, but missing in charts/ directory: {names}"),
                dir.path(),
                &files,
            )
        };
        assert_eq!(
            said("redis").as_deref(),
            Some(
                "helm template failed: dependency not in charts/: redis (from https://charts.example.com, which ownerlint does not download; redis.enabled is false in values.yaml, but helm needs it to build the chart)"
            )
        );
        assert_eq!(
            said("lib, local").as_deref(),
            Some(
                "helm template failed: dependencies not in charts/: lib (file://../nosuch names no chart folder in the repository), local (it names no repository)"
            )
        );
        assert_eq!(explain_missing("Error: other", dir.path(), &files), None);
    }
}
