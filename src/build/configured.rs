//! A chart or an overlay built as an item of the configuration's `builds` says.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::{BuildResult, BuildSettings, Target, helm};
use crate::analysis::BuildConfig;

/// Build the chart `target` with the item's values files, `set`, release name, namespace and
/// Kubernetes version, in place of the command line's. (An overlay is built as it is: its
/// namespace is given to the objects it builds that name none, see the pipeline.)
pub(super) fn build(
    target: &Target,
    configured: &BuildConfig,
    options: &BuildSettings,
    stop: Option<&AtomicBool>,
) -> BuildResult {
    // The item's settings, in place of the command line's, for this chart.
    let mut build_options = options.options.clone();
    build_options.values = configured.values.clone();
    build_options.set = configured.set.clone();
    build_options.set_string.clear();
    if let Some(release) = &configured.release_name {
        build_options.release = release.clone();
    }
    helm::build(
        target,
        &build_options,
        configured.namespace.as_deref().unwrap_or(options.namespace),
        configured
            .kube_version
            .clone()
            .or_else(|| options.kube_version.clone()),
        stop,
    )
}

/// How an item of the configuration's `builds` builds: "build of .ownerlint.yaml:2: values
/// values-prod.yaml, release-name web, namespace shop".
pub(super) fn describe(item: &BuildConfig) -> String {
    // Paths as the user names them: from the working folder.
    let cwd = std::env::current_dir().unwrap_or_default();
    let shown = |path: &Path| crate::read::display_path(path.strip_prefix(&cwd).unwrap_or(path));
    let mut settings = Vec::new();
    if !item.values.is_empty() {
        let files: Vec<String> = item.values.iter().map(|f| shown(f)).collect();
        settings.push(format!("values {}", files.join(", ")));
    }
    if !item.set.is_empty() {
        settings.push(format!("set {}", item.set.join(", ")));
    }
    for (what, value) in [
        ("release-name", &item.release_name),
        ("namespace", &item.namespace),
    ] {
        if let Some(value) = value {
            settings.push(format!("{what} {value}"));
        }
    }
    if let Some(version) = &item.kube_version {
        settings.push(format!(
            "kube-version {}",
            crate::analysis::kube_release(version)
        ));
    }
    let at = format!("{}:{}", shown(&item.file), item.line);
    match settings.is_empty() {
        true => format!("build of {at}"),
        false => format!("build of {at}: {}", settings.join(", ")),
    }
}
