//! `kustomize build` (or `kubectl kustomize`, which embeds it): an overlay built as `kubectl
//! apply -k` would build it. The overlay is built through a wrapper kustomization in a
//! temporary directory, so that the user's files are not touched, whose `buildMetadata:
//! [originAnnotations]` makes kustomize write on each object the file it came from
//! (`config.kubernetes.io/origin`). Only the root kustomization's `buildMetadata` counts, so an
//! overlay's own setting does not get in the way. kustomize takes no absolute path among
//! `resources` ("new root cannot be absolute"): the wrapper names the overlay by a relative
//! path, and origin paths are relative to the wrapper.

use std::process::Command;

use std::path::{Path, PathBuf};

use super::environment::ToolHome;
use super::{BuildOptions, Built, Failure, Origins, Target, relative, run_tool, tool_message};

pub(super) fn build(
    target: &Target,
    options: &BuildOptions,
    stop: Option<&std::sync::atomic::AtomicBool>,
) -> Result<Built, Box<Failure>> {
    // A component is built only as part of the overlays that use it (`components:`), never
    // alone: there is nothing to build.
    if is_component(&target.file, &crate::read::Files::default()) {
        return Ok(Built {
            target: target.clone(),
            text: String::new(),
            origins: Origins::Kustomize {
                wrapper: PathBuf::new(),
                dir: PathBuf::new(),
                moved: None,
            },
        });
    }
    let fail = |message: String, missing_tool| {
        Box::new(Failure {
            target: target.clone(),
            file: target.file.clone(),
            at: None,
            message,
            missing_tool,
        })
    };
    // What the overlay would fetch, or have `git` clone, is found before kustomize runs.
    if let Some(refusal) = super::remote::refused(&target.dir, options.allow_remote_bases) {
        return Err(Box::new(Failure {
            target: target.clone(),
            file: refusal.file,
            at: refusal.at,
            message: refusal.message,
            missing_tool: false,
        }));
    }
    let mut command = if let Some(program) = super::kustomize_program() {
        let kubectl = program.file_stem().is_some_and(|stem| stem == "kubectl");
        let mut command = Command::new(program);
        command.arg(if kubectl { "kustomize" } else { "build" });
        command
    } else {
        return Err(fail(
            "neither kustomize nor kubectl is on PATH, so this kustomization was not built and its objects were not checked".into(),
            true,
        ));
    };
    let io = |what: &str, e: std::io::Error| fail(format!("{what}: {e}"), false);
    let dir = std::fs::canonicalize(&target.dir).map_err(|e| io("cannot read the folder", e))?;
    let wrapper = super::running::private_folder("ownerlint-kustomize-")
        .map_err(|e| io("cannot make a temporary folder to build it from", e))?;
    // kustomize resolves the wrapper's symbolic links (a temporary folder may be behind one).
    let wrapper_dir = std::fs::canonicalize(wrapper.path())
        .map_err(|e| io("cannot make a temporary folder to build it from", e))?;
    let overlay = relative(&wrapper_dir, &dir);
    let overlay_text = overlay.to_string_lossy().replace('\\', "/");
    let kustomization = format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\nbuildMetadata: [originAnnotations]\n",
        serde_json::Value::String(overlay_text.clone())
    );
    std::fs::write(wrapper_dir.join("kustomization.yaml"), kustomization)
        .map_err(|e| io("cannot make a temporary folder to build it from", e))?;
    command.arg(&wrapper_dir);
    let home =
        ToolHome::new().map_err(|e| io("cannot make a temporary folder to build it in", e))?;
    home.kustomize(&mut command, options.allow_remote_bases);
    let output = run_tool(&mut command, options.timeout, stop).map_err(|e| {
        let missing = e.kind() != std::io::ErrorKind::TimedOut;
        fail(format!("the build could not be run: {e}"), missing)
    })?;
    if !output.status.success() {
        let said = clean_error(&tool_message(&output.stderr));
        let message = said.replace(&overlay_text, &crate::read::display_path(&target.dir));
        // At the entry that names the file kustomize could not use, when it names one (by the
        // path kustomize wrote, or as the message shows it).
        let (file, at) = super::kustomize_error::entry_named_in(
            &target.dir,
            Some(&wrapper_dir),
            &[&said, &message],
        )
        .map_or((target.file.clone(), None), |(file, at)| (file, Some(at)));
        return Err(Box::new(Failure {
            target: target.clone(),
            file,
            at,
            message: format!("{} failed: {message}", super::tool::kustomize_command()),
            missing_tool: false,
        }));
    }
    Ok(Built {
        target: target.clone(),
        text: String::from_utf8_lossy(&output.stdout).into_owned(),
        origins: Origins::Kustomize {
            wrapper: wrapper_dir,
            dir,
            moved: None,
        },
    })
}

/// Whether the kustomization file is a `kind: Component`.
pub(super) fn is_component(file: &Path, files: &crate::read::Files) -> bool {
    use crate::yaml;
    let Some(text) = files.read(file) else {
        return false;
    };
    yaml::roots(&text)
        .iter()
        .any(|root| root.get("kind").and_then(|k| k.as_str()) == Some("Component"))
}

/// kustomize's error without klog's dressing: `E1126 06:39:56.48 7549 run.go:72] "command
/// failed" err="…"` is `…`, and `err=<` starts a message on the lines that follow.
fn clean_error(message: &str) -> String {
    let Some(at) = message.find("err=") else {
        return message.to_string();
    };
    let err = &message[at + "err=".len()..];
    if let Some(quoted) = err.strip_prefix('"') {
        let quoted = quoted.trim_end().strip_suffix('"').unwrap_or(quoted);
        return quoted.replace("\\\"", "\"").replace("\\n", "\n");
    }
    if let Some(block) = err.strip_prefix('<') {
        let lines: Vec<&str> = block
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && *line != ">")
            .collect();
        return lines.join(" ");
    }
    err.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn klog_dressing_is_taken_off() {
        assert_eq!(
            clean_error(
                r#"E1126 06:39:56.482188 7549 run.go:72] "command failed" err="no resource matches \"Deployment.v1.apps/x\"""#
            ),
            r#"no resource matches "Deployment.v1.apps/x""#
        );
        assert_eq!(
            clean_error(
                "E1126 1 2 run.go:72] \"command failed\" err=<\n\ttrouble configuring\n\tpath: x.yaml\n >"
            ),
            "trouble configuring path: x.yaml"
        );
    }
}
