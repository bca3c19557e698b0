//! The pre-commit hook (`.pre-commit-hooks.yaml`), run by the real pre-commit from PyPI with
//! `pre-commit try-repo` against this checkout, on a fixture repository. pre-commit passes only
//! the changed file; the owner it names lives in an unchanged file, and resolves because the
//! hook indexes the whole repository (`--project .`).
//!
//! The hook is `language: python`: pip installs this checkout, and maturin (pyproject.toml)
//! builds it with `cargo build --locked`. The test holds the build to Cargo.lock: every crate
//! the build compiled is a version Cargo.lock names, and the same hook from a copy of this
//! checkout whose Cargo.lock lacks a package fails to install rather than resolving anew.
//!
//! pre-commit must be on `PATH` (`.ci/run` installs it from PyPI); without it the test says so
//! and is skipped, and under `CI=true` it fails. pip fetches maturin from PyPI, and the build is
//! a fat-LTO release build, minutes long: the test is ignored in a plain `cargo test`, and
//! `.ci/run` runs it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(command: &mut Command) -> Output {
    command.output().expect("the command runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn run_git(git: &Path, repo: &Path, args: &[&str]) {
    let out = run(Command::new(git)
        .args([
            "-c",
            "user.name=ownerlint test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(args)
        .current_dir(repo));
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
}

const REPLICASET: &str = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web\n  namespace: shop\n  uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b\nspec:\n  selector: {matchLabels: {app: web}}\n";

fn pod(owner_uid: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: 5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d\n  labels: {{app: web}}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: {owner_uid}\n    controller: true\n"
    )
}

/// `pre-commit try-repo <hook_repo> ownerlint --files <file>` in `repo`, with pre-commit's
/// store and the hook's build in `work`.
fn try_repo(pre_commit: &Path, hook_repo: &Path, work: &Path, repo: &Path, file: &str) -> Output {
    run(Command::new(pre_commit)
        .arg("try-repo")
        .arg(hook_repo)
        .args(["ownerlint", "--files", file])
        .current_dir(repo)
        .env("PRE_COMMIT_HOME", work.join("pre-commit-home"))
        .env("CARGO_TARGET_DIR", work.join("hook-target"))
        .env_remove("GITHUB_ACTIONS"))
}

/// The packages of a Cargo.lock, as `name-version`: the name of each one's source folder in
/// Cargo's registry.
fn locked_packages(lock: &str) -> Vec<String> {
    let mut packages = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"').to_string());
        } else if let Some(value) = line.strip_prefix("version = ")
            && let Some(name) = name.take()
        {
            packages.push(format!("{name}-{}", value.trim_matches('"')));
        }
    }
    packages
}

/// The registry crates (`name-version`) a build compiled, from the dep-info files (`*.d`) in
/// its target folder: each lists the source files of its crate, under
/// `registry/src/<index>/<name>-<version>/`.
fn compiled_crates(target: &Path) -> Vec<String> {
    fn walk(dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "d") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for (at, _) in text.match_indices("/registry/src/") {
                    let rest = &text[at + "/registry/src/".len()..];
                    let mut parts = rest.split('/');
                    let (Some(_index), Some(krate)) = (parts.next(), parts.next()) else {
                        continue;
                    };
                    if !found.iter().any(|f| f == krate) {
                        found.push(krate.to_string());
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(target, &mut found);
    found.sort();
    found
}

/// A copy of this checkout's files (tracked and new, as they are in the work tree) in a new
/// repository at `to`, committed.
fn copy_checkout(git: &Path, to: &Path) {
    let listed = run(Command::new(git)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root()));
    assert!(listed.status.success(), "{}", text(&listed));
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).expect("UTF-8 file name");
        let from = root().join(name);
        if !from.is_file() {
            continue; // deleted in the work tree
        }
        let dest = to.join(name);
        std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&from, &dest).expect("copy");
    }
    run_git(git, to, &["init", "--quiet"]);
    run_git(git, to, &["add", "."]);
    run_git(git, to, &["commit", "--quiet", "-m", "copy"]);
}

#[test]
#[ignore = "heavy: pre-commit (from PyPI) builds the hook, a fat-LTO release build; .ci/run runs it"]
fn the_hook_builds_from_cargo_lock_passes_a_clean_commit_and_fails_a_broken_owner_reference() {
    let Some(pre_commit) = common::require_tool("pre-commit", "pip install pre-commit") else {
        return;
    };
    let Some(git_program) = common::require_tool("git", "Debian's git") else {
        return;
    };
    let git = |repo: &Path, args: &[&str]| run_git(&git_program, repo, args);
    let tmp = common::temp_dir("pre-commit");
    let work = tmp.path();
    let repo = work.join("repository");
    std::fs::create_dir_all(repo.join("deploy")).expect("fixture repository");
    git(&repo, &["init", "--quiet"]);
    std::fs::write(repo.join("deploy/replicaset.yaml"), REPLICASET).expect("write");
    std::fs::write(
        repo.join("deploy/pod.yaml"),
        pod("0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b"),
    )
    .expect("write");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "web"]);

    // Only the Pod changed; its owner, in the unchanged file, resolves with the right uid.
    let clean = try_repo(&pre_commit, &root(), work, &repo, "deploy/pod.yaml");
    assert!(clean.status.success(), "{}", text(&clean));
    assert!(
        text(&clean).contains("ownerlint") && text(&clean).contains("Passed"),
        "{}",
        text(&clean)
    );

    // A stale uid: the owner is found in the unchanged file, and the uid differs.
    std::fs::write(
        repo.join("deploy/pod.yaml"),
        pod("9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"),
    )
    .expect("write");
    git(&repo, &["add", "."]);
    let broken = try_repo(&pre_commit, &root(), work, &repo, "deploy/pod.yaml");
    let output = text(&broken);
    assert_eq!(broken.status.code(), Some(1), "{output}");
    assert!(output.contains("Failed"), "{output}");
    assert!(
        output.contains(
            "deploy/pod.yaml:12:10: error[owner-uid-mismatch]: Pod shop/web-1 → ReplicaSet shop/web"
        ),
        "{output}"
    );
    // A changed template is checked as its chart renders, at the template's own line.
    if common::require_tool("helm", "install helm").is_some() {
        let chart = repo.join("charts/shop");
        std::fs::create_dir_all(chart.join("templates")).expect("mkdir");
        for (file, text) in [
            (
                "Chart.yaml",
                include_str!("../testdata/render/chart/Chart.yaml"),
            ),
            (
                "values.yaml",
                include_str!("../testdata/render/chart/values.yaml"),
            ),
            (
                "templates/deployment.yaml",
                include_str!("../testdata/render/chart/templates/deployment.yaml"),
            ),
            (
                "templates/configmap.yaml",
                include_str!("../testdata/render/chart/templates/configmap.yaml"),
            ),
        ] {
            std::fs::write(chart.join(file), text).expect("write the chart");
        }
        std::fs::write(
            repo.join("deploy/pod.yaml"),
            pod("0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b"),
        )
        .expect("write");
        git(&repo, &["add", "."]);
        let templated = try_repo(
            &pre_commit,
            &root(),
            work,
            &repo,
            "charts/shop/templates/configmap.yaml",
        );
        let output = text(&templated);
        assert_eq!(templated.status.code(), Some(1), "{output}");
        assert!(
            output.contains(
                "charts/shop/templates/configmap.yaml:9:10: error[owner-created-with-fresh-uid]"
            ),
            "{output}"
        );
        assert!(!output.contains("unrendered-template"), "{output}");
    }
    // The hook's build compiled the versions Cargo.lock names, and no other: without
    // `--locked` Cargo resolves anew, to the newest versions.
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock");
    let locked = locked_packages(&lock);
    let compiled = compiled_crates(&work.join("hook-target"));
    for krate in [
        "granit-parser",
        "clap_builder",
        "globset",
        "ignore",
        "serde_json",
    ] {
        assert!(
            compiled.iter().any(|c| c.starts_with(&format!("{krate}-"))),
            "the hook's build did not compile {krate}: {compiled:?}"
        );
    }
    let unlocked: Vec<&String> = compiled.iter().filter(|c| !locked.contains(c)).collect();
    assert!(
        unlocked.is_empty(),
        "the hook compiled versions Cargo.lock does not name: {unlocked:?}"
    );

    // The same hook from a copy of this checkout whose Cargo.lock lacks a package: the build
    // refuses to update the lock, and the hook does not install.
    let stale = work.join("stale-lock");
    std::fs::create_dir_all(&stale).expect("mkdir");
    let entry = "[[package]]\nname = \"strsim\"\n";
    let start = lock.find(entry).expect("Cargo.lock has strsim");
    let end = lock[start + entry.len()..]
        .find("\n[[package]]")
        .map_or(lock.len(), |at| start + entry.len() + at + 1);
    copy_checkout(&git_program, &stale);
    std::fs::write(
        stale.join("Cargo.lock"),
        format!("{}{}", &lock[..start], &lock[end..]),
    )
    .expect("write");
    git(
        &stale,
        &["commit", "--quiet", "-am", "Cargo.lock without strsim"],
    );
    let refused = try_repo(&pre_commit, &stale, work, &repo, "deploy/pod.yaml");
    let output = text(&refused);
    assert!(!refused.status.success(), "{output}");
    assert!(output.contains("--locked was passed"), "{output}");
    assert!(
        !output.contains("Passed") && !output.contains("Failed"),
        "{output}"
    );
}
