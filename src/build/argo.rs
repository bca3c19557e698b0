//! A chart or an overlay built as an Argo CD Application says (see `crate::gitops::argo`).

use std::sync::atomic::AtomicBool;

use super::{BuildResult, BuildSettings, Failure, Target, Tool, helm, kustomize, running};
use crate::gitops::ArgoBuild;

/// Build `target` as the Argo CD Application `argo` says: a chart with its value files, its
/// values (through a file in a private temporary folder), parameters, release name and
/// destination namespace; an overlay as it is (its `kustomize` settings are written into the
/// copy's kustomization, see `super::build_copy`).
pub(super) fn build(
    target: &Target,
    argo: &ArgoBuild,
    options: &BuildSettings,
    stop: Option<&AtomicBool>,
) -> BuildResult {
    let fail = |message: String| {
        Box::new(Failure {
            target: target.clone(),
            file: argo.file.clone(),
            at: Some((argo.line + 1, 1)),
            message,
            missing_tool: false,
        })
    };
    if let Some(error) = &argo.error {
        return Err(fail(format!(
            "Argo CD {} cannot be built: {error}",
            argo.name
        )));
    }
    match target.tool {
        Tool::Kustomize => kustomize::build(target, options.options, stop),
        Tool::Helm => {
            let folder = running::private_folder("ownerlint-values-").map_err(|e| {
                fail(format!(
                    "cannot make a temporary folder to build it in: {e}"
                ))
            })?;
            let mut build_options = options.options.clone();
            build_options.release = argo.release.clone();
            build_options.values = argo.value_files.clone();
            if let Some(values) = &argo.values {
                let file = folder.path().join("values.yaml");
                std::fs::write(&file, values)
                    .map_err(|e| fail(format!("cannot write its values to build it: {e}")))?;
                build_options.values.push(file);
            }
            build_options.set.clear();
            build_options.set_string.clear();
            for (parameter, force_string) in &argo.parameters {
                match force_string {
                    true => build_options.set_string.push(parameter.clone()),
                    false => build_options.set.push(parameter.clone()),
                }
            }
            let namespace = argo.namespace.as_deref().unwrap_or(options.namespace);
            helm::build(
                target,
                &build_options,
                namespace,
                options.kube_version.clone(),
                stop,
            )
        }
    }
}
