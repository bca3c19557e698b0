//! `render-failed`: a Helm chart or a Kustomize overlay among the inputs could not be built, so
//! nothing in it was checked. The tool's own message is the finding's, at the place it names
//! (a template's line and column for helm), else at the chart's `Chart.yaml` or the
//! kustomization file. A tool that is not installed is an error too: nothing is wrong with
//! the chart or overlay, but it was not checked, and a run that checked less than it was given
//! must not pass (the level is configurable like any rule's).

use super::Context;
use crate::finding::{Finding, Label};
use crate::load::Why;

super::declare_rule! {
    id: "render-failed",
    severity: Error,
    summary: "A Helm chart or Kustomize overlay could not be built, so its objects were not checked",
}

pub fn check(cx: &Context, out: &mut Vec<Finding>) {
    for unread in cx.unread {
        let Why::RenderFailed {
            at,
            message,
            missing_tool,
        } = &unread.why
        else {
            continue;
        };
        let build = unread.origin.clone().unwrap_or_default();

        let mut finding = if *missing_tool {
            let install = if build.starts_with("helm") {
                "helm"
            } else {
                "kubectl or kustomize"
            };
            Finding::new(&META, Label::new(unread.source, *at, "not built"), message.clone())
                .help(format!("install {install}; or pass --no-render to lint the files as they are; or, to let the run pass without them, set `render-failed: warning` under `rules:` in .ownerlint.yaml"))
        } else {
            let remote = crate::source::ALLOW_REMOTE_FLAG;
            let help = if message.contains(&format!("fetched only with {remote}")) {
                // Building it to see the error would fetch it.
                format!("copy what it names into the repository, or pass {remote} if you trust where it comes from")
            } else if message.contains(&format!("even with {remote}")) {
                "take the reference out: git would run with what it says as an option".to_string()
            } else if message.contains("or leads outside the repository") {
                "fix the path (a base is a folder with a kustomization in the repository), or take the entry out".to_string()
            } else if message.contains("which ownerlint does not download") {
                let dir = build.strip_prefix("helm template ").unwrap_or(&build);
                format!("vendor the dependencies: run `helm dependency build {dir}` and commit its charts/ folder; or leave the chart out with `exclude:` in .ownerlint.yaml")
            } else if message.contains("names no chart folder in the repository") {
                "a `file://` repository is a path from the chart's folder to a chart folder in the repository: fix the path".to_string()
            } else if message.starts_with("helm dependency build failed") {
                "fix the dependency's entry in Chart.yaml: its version must match the chart it names".to_string()
            } else if message.contains("don't meet the specifications of the schema") {
                "the chart needs values it does not set itself: give them with --values or --set, or for this chart alone with a `builds` item in .ownerlint.yaml (a chart's ci/*-values.yaml files are examples)".to_string()
            } else if build.starts_with("helm") {
                format!("run `{build}` to see the error, and fix the chart")
            } else {
                format!("run `{build}` to see the error, and fix the overlay")
            };
            Finding::new(
                &META,
                Label::new(unread.source, *at, "the build stops here"),
                format!("{message}; nothing it builds was checked"),
            )
            .help(help)
        };
        finding.origin = unread.origin.clone();
        out.push(finding);
    }
}
