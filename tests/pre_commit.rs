//! The pre-commit hook (`.pre-commit-hooks.yaml`), run by the real pre-commit from PyPI with
//! `pre-commit try-repo` against this checkout, on a fixture repository. pre-commit passes only
//! the changed file; the owner it names lives in an unchanged file, and resolves because the
//! hook indexes the whole repository (`--project .`).
//!
//! pre-commit must be on `PATH` (`.ci/run` installs it from PyPI); without it the test says so
//! and is skipped, and under `CI=true` it fails. pre-commit builds the hook with `cargo install`,
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

/// `pre-commit try-repo <this checkout> ownerlint --files <file>` in `repo`, with pre-commit's
/// store and the hook's build in `work`.
fn try_repo(pre_commit: &Path, work: &Path, repo: &Path, file: &str) -> Output {
    run(Command::new(pre_commit)
        .arg("try-repo")
        .arg(root())
        .args(["ownerlint", "--files", file])
        .current_dir(repo)
        .env("PRE_COMMIT_HOME", work.join("pre-commit-home"))
        .env("CARGO_TARGET_DIR", work.join("hook-target"))
        .env_remove("GITHUB_ACTIONS"))
}

#[test]
#[ignore = "heavy: pre-commit (from PyPI) builds the hook with a fat-LTO cargo install; .ci/run runs it"]
fn the_hook_passes_a_clean_commit_and_fails_a_broken_owner_reference() {
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
    let clean = try_repo(&pre_commit, work, &repo, "deploy/pod.yaml");
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
    let broken = try_repo(&pre_commit, work, &repo, "deploy/pod.yaml");
    let output = text(&broken);
    assert_eq!(broken.status.code(), Some(1), "{output}");
    assert!(output.contains("Failed"), "{output}");
    assert!(
        output.contains(
            "deploy/pod.yaml:12:10: error[owner-uid-mismatch]: Pod shop/web-1 → ReplicaSet shop/web"
        ),
        "{output}"
    );
}
