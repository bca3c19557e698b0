//! `helm template`: a chart rendered as `helm install` would render it, without a cluster.
//! Each document of the output names its template in a `# Source:` comment, by chart name
//! (`shop/charts/sub/templates/cm.yaml`: the names in the `Chart.yaml` files, not the
//! directories), which [`template_file`] turns back into a path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::environment::ToolHome;
use super::{BuildOptions, Built, Failure, Origins, Target, run_tool, tool_message};

pub(super) fn build(
    target: &Target,
    options: &BuildOptions,
    namespace: &str,
    kube_version: Option<String>,
    stop: Option<&std::sync::atomic::AtomicBool>,
) -> Result<Built, Box<Failure>> {
    let fail = |file: PathBuf, at, message: String, missing_tool| {
        Box::new(Failure {
            target: target.clone(),
            file,
            at,
            message,
            missing_tool,
        })
    };
    // helm reads the folder it is given as it is on disk: a copy with the texts that stand in
    // for its files, when there are any (see `super::build`).
    let on_disk = crate::read::Files::default();
    let charts = chart_names(&target.dir, &on_disk);
    // A library chart holds only definitions for other charts: nothing to install or render.
    if chart_field(&target.dir, "type", &on_disk).as_deref() == Some("library") {
        return Ok(Built {
            target: target.clone(),
            text: String::new(),
            origins: Origins::Helm { charts },
        });
    }
    let Some(helm) = super::helm_program() else {
        return Err(fail(
            target.file.clone(),
            None,
            "helm is not on PATH, so this chart was not rendered and its objects were not checked"
                .into(),
            true,
        ));
    };
    // The output must not depend on the shell it runs in (helm reads the namespace and the
    // Kubernetes version from its environment and from the kubeconfig's current context), and
    // a chart is not to reach the user's settings, plugins or network through helm.
    let home = match ToolHome::new() {
        Ok(home) => home,
        Err(e) => {
            return Err(fail(
                target.file.clone(),
                None,
                format!("cannot make a temporary folder to build it in: {e}"),
                false,
            ));
        }
    };
    // A Flux HelmRelease gives the release's name, namespace, values and CRD policy in place
    // of the command line's: its values go to helm as the command line's do, through files
    // written in the build's own temporary folder.
    let flux = target.flux.as_ref().and_then(|f| f.helm.as_ref());
    let mut values = options.values.clone();
    let mut set = options.set.as_slice();
    let mut set_string = options.set_string.as_slice();
    let (mut release, mut namespace, mut include_crds) =
        (options.release.as_str(), namespace, true);
    if let Some(flux) = flux {
        values.clear();
        set = &[];
        set_string = &[];
        for (i, text) in flux.values.iter().enumerate() {
            let file = home.file(&format!("values-{i}.yaml"));
            if let Err(e) = std::fs::write(&file, text) {
                return Err(fail(
                    target.file.clone(),
                    None,
                    format!("cannot write its values to build it: {e}"),
                    false,
                ));
            }
            values.push(file);
        }
        release = &flux.release;
        if !flux.namespace.is_empty() {
            namespace = &flux.namespace;
        }
        include_crds = flux.include_crds;
    }
    let mut command = Command::new(helm);
    // A chart's `crds/` are part of what it installs (`helm install` applies them first): its
    // own kinds are known, and the CRDs are checked too (unless a HelmRelease skips them).
    command.arg("template");
    if include_crds {
        command.arg("--include-crds");
    }
    command.arg("--namespace").arg(namespace);
    if let Some(version) = kube_version {
        command.arg("--kube-version").arg(version);
    }
    for values in &values {
        command.arg("--values").arg(values);
    }
    for set in set {
        command.arg("--set").arg(set);
    }
    for set in set_string {
        command.arg("--set-string").arg(set);
    }
    // After `--`, a release name or a folder that starts with `-` is not taken for a flag.
    command.arg("--").arg(release).arg(&target.dir);
    home.helm(&mut command);
    let output = run_tool(&mut command, options.timeout, stop).map_err(|e| {
        let missing = e.kind() != std::io::ErrorKind::TimedOut;
        fail(
            target.file.clone(),
            None,
            format!("helm template could not be run: {e}"),
            missing,
        )
    })?;
    if !output.status.success() {
        let message = tool_message(&output.stderr);
        let position = error_position(&message, &charts, &target.dir);
        // A dependency missing from `charts/`: where it comes from, and what to do.
        if let Some(explained) =
            super::dependencies::explain_missing(&message, &target.dir, &on_disk)
        {
            let (file, at) = position.map_or((target.file.clone(), None), |p| (p.file, Some(p.at)));
            return Err(fail(file, at, explained, false));
        }
        let mut message = message
            .strip_prefix("Error: ")
            .unwrap_or(&message)
            .to_string();
        // helm's own `FILE:LINE:COLUMN` in the message, as the finding's position counts it.
        if let Some(ErrorPosition {
            said: Some((helm, ours)),
            ..
        }) = &position
        {
            message = message.replacen(helm.as_str(), ours, 1);
        }
        let (file, at) = position.map_or((target.file.clone(), None), |p| (p.file, Some(p.at)));
        return Err(fail(
            file,
            at,
            format!("helm template failed: {message}"),
            false,
        ));
    }
    Ok(Built {
        target: target.clone(),
        text: String::from_utf8_lossy(&output.stdout).into_owned(),
        origins: Origins::Helm { charts },
    })
}

/// Each chart of the chart in `dir` (itself and its subcharts in `charts/`, as directories)
/// by its name path as `# Source:` writes it: `shop`, `shop/charts/sub`.
fn chart_names(dir: &Path, files: &crate::read::Files) -> HashMap<String, PathBuf> {
    let mut charts = HashMap::new();
    // Each folder with its parent's name path and the parent's dependency aliases
    // (`(chart name, alias)`).
    let mut stack = vec![(String::new(), dir.to_path_buf(), Vec::new())];
    // A folder reached twice (through a symbolic link) is read once.
    let mut visited = std::collections::HashSet::new();
    while let Some((parent, dir, aliases)) = stack.pop() {
        if !std::fs::canonicalize(&dir).is_ok_and(|real| visited.insert(real)) {
            continue;
        }
        let Some(name) = chart_field(&dir, "name", files) else {
            continue;
        };
        // A subchart linked into a build's copy (a `file://` dependency, see
        // `super::dependencies`) is named by the folder the link leads to.
        let dir = match dir.is_symlink() {
            true => std::fs::canonicalize(&dir).unwrap_or(dir),
            false => dir,
        };
        let mut paths = vec![match parent.is_empty() {
            true => name.clone(),
            false => format!("{parent}/charts/{name}"),
        }];
        // A dependency with an `alias` renders under the alias (helm renames the chart).
        paths.extend(
            (aliases.iter())
                .filter(|(of, _)| *of == name)
                .map(|(_, alias)| format!("{parent}/charts/{alias}")),
        );
        let own_aliases: Vec<(String, String)> = super::dependencies::dependencies(&dir, files)
            .into_iter()
            .filter_map(|d| Some((d.name, d.alias?)))
            .collect();
        let subcharts = files.entries(&dir.join("charts"));
        for path in paths {
            stack.extend(
                (subcharts.iter())
                    .filter(|(sub, is_dir)| *is_dir || sub.is_dir())
                    .map(|(sub, _)| (path.clone(), sub.clone(), own_aliases.clone())),
            );
            charts.insert(path, dir.clone());
        }
    }
    charts
}

/// A field (`name`, `type`) of the `Chart.yaml` in `dir`.
pub(super) fn chart_field(dir: &Path, field: &str, files: &crate::read::Files) -> Option<String> {
    use crate::yaml;
    let text = files.read(&dir.join("Chart.yaml"))?;
    let root = yaml::roots(&text).into_iter().next()?;
    Some(root.get(field)?.as_str()?.to_string())
}

/// The file a `# Source:` path names: the longest chart name path it starts with, then the
/// path inside that chart. A chart packed as an archive has no file: the chart's own
/// directory and the rest of the path stand in for it.
pub(super) fn template_file(
    charts: &HashMap<String, PathBuf>,
    dir: &Path,
    origin: &str,
) -> PathBuf {
    let found = charts
        .iter()
        .filter_map(|(name, chart_dir)| {
            let rest = origin.strip_prefix(name.as_str())?.strip_prefix('/')?;
            Some((name.len(), chart_dir, rest))
        })
        .max_by_key(|(len, _, _)| *len);
    match found {
        Some((_, chart_dir, rest)) => chart_dir.join(rest),
        None => {
            let rest = origin.split_once('/').map_or(origin, |(_, rest)| rest);
            dir.join(rest)
        }
    }
}

/// Where helm's error message says the error is: `(shop/templates/req.yaml:4:11)` or
/// `(shop/templates/bad.yaml:5)`, as a 1-based line and column; or, for a dependency missing
/// from `charts/`, its entry in `Chart.yaml`.
fn error_position(
    message: &str,
    charts: &HashMap<String, PathBuf>,
    dir: &Path,
) -> Option<ErrorPosition> {
    if let Some((file, at)) = missing_dependency(message, dir) {
        return Some(ErrorPosition {
            file,
            at,
            said: None,
        });
    }
    if let Some((file, at)) = schema_failure(message, charts) {
        return Some(ErrorPosition {
            file,
            at,
            said: None,
        });
    }
    // `execution error at (shop/templates/db.yaml:4:11): …`, `parse error at (…:5): …`;
    // helm 4's `Error: shop/templates/db.yaml:6:15` followed by `executing …`, helm 3's
    // `Error: template: shop/templates/db.yaml:6:15: executing …`; and
    // `YAML parse error on shop/templates/db.yaml: …`, whose line is in the rendered text.
    let (place, whole_file) = if let Some(open) = message.find(" at (") {
        let inside = &message[open + " at (".len()..];
        (&inside[..inside.find(')')?], false)
    } else if let Some(at) = message.find("YAML parse error on ") {
        let rest = &message[at + "YAML parse error on ".len()..];
        (&rest[..rest.find(": ")?], true)
    } else {
        let first = message.lines().next()?;
        let first = first.strip_prefix("Error: ").unwrap_or(first);
        let first = first.strip_prefix("template: ").unwrap_or(first);
        (
            first.split_whitespace().next()?.trim_end_matches(':'),
            false,
        )
    };
    // `file:line` or `file:line:column`.
    let mut numbers = Vec::new();
    let mut origin = place;
    while numbers.len() < 2 {
        let Some((head, tail)) = origin.rsplit_once(':') else {
            break;
        };
        let Ok(number) = tail.parse::<usize>() else {
            break;
        };
        numbers.insert(0, number);
        origin = head;
    }
    if numbers.is_empty() && !whole_file {
        return None;
    }
    let line = numbers.first().copied().unwrap_or(1).max(1);
    let file = template_file(charts, dir, origin);
    if !file.is_file() {
        return None;
    }
    let column = match numbers.get(1) {
        Some(&offset) => column_of(&file, line, offset),
        None => 1,
    };
    let said =
        (numbers.len() == 2).then(|| (place.to_string(), format!("{origin}:{line}:{column}")));
    Some(ErrorPosition {
        file,
        at: (line, column),
        said,
    })
}

/// For helm's `values don't meet the specifications of the schema(s) in the following
/// chart(s): shop: - at '/policy': got null, want string`, the key its first error names in
/// that chart's `values.yaml` (as far down the path as the file writes it).
fn schema_failure(
    message: &str,
    charts: &HashMap<String, PathBuf>,
) -> Option<(PathBuf, (usize, usize))> {
    const CHARTS: &str = "in the following chart(s):";
    let rest = message[message.find(CHARTS)? + CHARTS.len()..].trim_start();
    let (chart, rest) = rest.split_once(':')?;
    let pointer = rest.split_once("at '")?.1.split_once('\'')?.0;
    // The chart by its name: the top chart's, else the shortest name path that ends in it.
    let dir = (charts.iter())
        .filter(|(path, _)| *path == chart || path.ends_with(&format!("/charts/{chart}")))
        .min_by_key(|(path, _)| path.len())?
        .1;
    let file = dir.join("values.yaml");
    let text = crate::read::small_file(&file).ok()?;
    let root = crate::yaml::roots(&text).into_iter().next()?;
    let mut node = &root;
    let mut at = root.span.start;
    for key in pointer.split('/').filter(|k| !k.is_empty()) {
        let key = key.replace("~1", "/").replace("~0", "~");
        let Some((key_node, value)) = node.entry(&key) else {
            break;
        };
        at = key_node.span.start;
        node = value;
    }
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Some((file, (line, column)))
}

/// Where a helm error is: the file, its 1-based line and column, and how helm wrote the
/// place in its message with how the user counts it (`cm.yaml:4:18`, `cm.yaml:4:19`).
struct ErrorPosition {
    file: PathBuf,
    at: (usize, usize),
    said: Option<(String, String)>,
}

/// The 1-based column of the character at byte `offset` of `line` (1-based) in `file`: Go's
/// templates (and so helm) give a position's column as the number of bytes before it on its
/// line, counted from 0.
fn column_of(file: &Path, line: usize, offset: usize) -> usize {
    let text = crate::read::small_file(file).unwrap_or_default();
    let Some(line_bytes) = text.as_bytes().split(|&b| b == b'\n').nth(line - 1) else {
        return offset + 1;
    };
    let before = &line_bytes[..offset.min(line_bytes.len())];
    String::from_utf8_lossy(before).chars().count() + 1
}

/// For helm's `found in Chart.yaml, but missing in charts/ directory: redis, pg`, the entry
/// of the first of them under `dependencies:` in the chart's `Chart.yaml` (or, for a chart of
/// `apiVersion: v1`, its `requirements.yaml`): its `- name: redis` line.
fn missing_dependency(message: &str, dir: &Path) -> Option<(PathBuf, (usize, usize))> {
    let names = super::dependencies::missing_names(message)?;
    let first = *names.first()?;
    ["Chart.yaml", "requirements.yaml"]
        .into_iter()
        .map(|name| dir.join(name))
        .find_map(|file| {
            let text = crate::read::small_file(&file).ok()?;
            let at = super::dependencies::dependency_entry(&text, first)?;
            Some((file, at))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_errors_name_their_template() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/render/chart");
        let charts = HashMap::from([("shop".to_string(), dir.clone())]);
        let at = |message: &str| error_position(message, &charts, &dir).map(|p| (p.file, p.at));
        let file = dir.join("templates/configmap.yaml");
        assert_eq!(
            at("Error: execution error at (shop/templates/configmap.yaml:4:11): x is required"),
            Some((file.clone(), (4, 12)))
        );
        assert_eq!(
            at("Error: parse error at (shop/templates/configmap.yaml:5): unclosed action"),
            Some((file.clone(), (5, 1)))
        );
        assert_eq!(
            at(
                "Error: shop/templates/configmap.yaml:6:15\n  executing \"x\" at <.Values.a.b>: nil pointer"
            ),
            Some((file.clone(), (6, 16)))
        );
        // helm 3 words it so.
        assert_eq!(
            at("Error: template: shop/templates/configmap.yaml:6:15: executing \"x\" at <.b>: nil"),
            Some((file.clone(), (6, 16)))
        );
        assert_eq!(
            at(
                "Error: YAML parse error on shop/templates/configmap.yaml: error converting YAML to JSON"
            ),
            Some((file, (1, 1)))
        );
        assert_eq!(
            at("Error: open nosuch.yaml: no such file or directory"),
            None
        );
    }

    #[test]
    fn sources_name_charts_by_their_names() {
        let charts = HashMap::from([
            ("shop".to_string(), PathBuf::from("charts/shop-dir")),
            (
                "shop/charts/sub".to_string(),
                PathBuf::from("charts/shop-dir/charts/sub-dir"),
            ),
        ]);
        let dir = Path::new("charts/shop-dir");
        assert_eq!(
            template_file(&charts, dir, "shop/templates/a.yaml"),
            PathBuf::from("charts/shop-dir/templates/a.yaml")
        );
        assert_eq!(
            template_file(&charts, dir, "shop/charts/sub/templates/b.yaml"),
            PathBuf::from("charts/shop-dir/charts/sub-dir/templates/b.yaml")
        );
        assert_eq!(
            template_file(&charts, dir, "other/templates/c.yaml"),
            PathBuf::from("charts/shop-dir/templates/c.yaml")
        );
    }
}
