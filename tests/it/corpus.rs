//! Real manifests written by others (`../shared/corpus`, with `SOURCES.tsv` saying where each is
//! from). Every file must load on its own without a crash (an ignored test, which `.ci/run`
//! runs), and each project's findings are snapshotted so that any change in what ownerlint says
//! about real input is reviewed. Skipped, with the reason printed, where the corpus is not
//! present (under `CI=true`, that fails).

use crate::common;

use ownerlint::Options;
use ownerlint::report::Format;

#[test]
#[ignore = "heavy: lints each of the corpus's files on its own, 6 s in a debug build; .ci/run runs it in release"]
fn every_corpus_file_loads_on_its_own() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let mut files = Vec::new();
    collect(&corpus, &mut files);
    assert!(
        files.len() > 300,
        "expected the whole corpus, found {} files",
        files.len()
    );
    for file in files {
        let options = Options {
            paths: vec![file.clone()],
            ..Options::default()
        };
        let outcome = ownerlint::lint(&options, &mut std::io::empty());
        assert!(
            outcome.errors.is_empty(),
            "{}: {:?}",
            file.display(),
            outcome.errors
        );
        // A kustomization file is an overlay to build; unbuilt (the library's default), it is
        // counted as a skipped kustomization rather than as a linted file.
        assert_eq!(
            outcome.stats.files + outcome.stats.unbuilt_kustomizations,
            1,
            "{}",
            file.display()
        );
    }
}

/// Each project linted as a user lints it (`ownerlint PROJECT`: charts and overlays built with
/// helm and kubectl), with what became of each chart and overlay. An overlay that names remote
/// resources (kustomize's `examples/loadHttp`) is not built: nothing is fetched without
/// `--allow-remote-bases`.
#[test]
fn findings_per_project() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    if !build_tools() {
        return;
    }
    let real_prefix = std::fs::canonicalize(&corpus)
        .map(|real| format!("{}/", real.display()))
        .unwrap_or_default();
    let mut projects: Vec<_> = std::fs::read_dir(&corpus)
        .expect("corpus is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    let prefix = format!("{}/", corpus.display());
    let mut report = String::new();
    for project in projects {
        let options = Options {
            paths: vec![project.clone()],
            build: Some(ownerlint::build::BuildOptions::default()),
            ..Options::default()
        };
        let outcome = ownerlint::lint(&options, &mut std::io::empty());
        assert!(
            outcome.errors.is_empty(),
            "{}: {:?}",
            project.display(),
            outcome.errors
        );
        report.push_str(&format!(
            "## {} ({} objects in {} files, {} charts and overlays)\n",
            project.file_name().unwrap_or_default().to_string_lossy(),
            outcome.stats.objects,
            outcome.stats.files,
            outcome.builds.len()
        ));
        for build in &outcome.builds {
            let status = serde_json::to_value(build.status).unwrap_or_default();
            report.push_str(&format!(
                "  {} {}: {} objects{}\n",
                build.command,
                status.as_str().unwrap_or_default(),
                build.objects,
                build
                    .reason
                    .as_ref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            ));
        }
        report.push_str(&common::render(&outcome, Format::Short));
    }
    // Overlays are named by the program that built them: as where only kubectl does.
    let report = report
        .replace(&prefix, "")
        .replace(&real_prefix, "")
        .replace(common::kustomize_command(), "kubectl kustomize");
    insta::assert_snapshot!("corpus_findings", report);
}

/// Every file that `--no-render` reads an object from is, as built, linted on its own or read
/// by a chart or overlay that was built or reported as not built.
#[test]
fn every_corpus_input_is_accounted_for() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    if !build_tools() {
        return;
    }
    assert_eq!(common::unaccounted_inputs(&corpus), Vec::<String>::new());
}

/// Whether helm and kubectl, which build the corpus's charts and overlays, are on `PATH`
/// (skipped through `common::skip` where they are not).
fn build_tools() -> bool {
    common::require_tool("helm", "install helm to build the corpus's charts").is_some()
        && common::require_tool("kubectl", "install kubectl to build the corpus's overlays")
            .is_some()
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        {
            out.push(path);
        }
    }
}
