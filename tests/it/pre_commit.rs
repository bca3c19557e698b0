//! The pre-commit hook (`.pre-commit-hooks.yaml`), run by the real pre-commit from PyPI with
//! `pre-commit try-repo` against this checkout, on a fixture repository. pre-commit passes only
//! the changed file; the owner it names lives in an unchanged file, and resolves because the
//! hook indexes the whole repository (`--project .`). A commit that only deletes files, for
//! which pre-commit passes no file, still runs the hook, which reads the deletions from git.
//!
//! The hook is `language: python`: pip installs this checkout, and maturin (pyproject.toml,
//! through hook/build_backend.py) builds it with `cargo build --locked`. The test holds the
//! build to Cargo.lock: the same hook from a copy of this checkout whose Cargo.lock lacks a
//! package fails to install rather than resolving anew.
//!
//! pre-commit must be on `PATH` (`.ci/run` installs it from PyPI); without it the test says so
//! and is skipped, and under `CI=true` it fails. pip fetches maturin from PyPI, and the build is
//! a release build, minutes long unless `cargo test --release` made most of it: the test is
//! ignored in a plain `cargo test`, and `.ci/run` runs it.

use crate::common;

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

const REPLICASET: &str = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web\n  namespace: shop\n  uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b\nspec:\n  selector: {matchLabels: {app: web}}\n";

fn pod(owner_uid: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: 5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d\n  labels: {{app: web}}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: {owner_uid}\n    controller: true\n"
    )
}

/// `pre-commit <args>` in `repo`, with pre-commit's store in `work`. The hook builds in the
/// tests' target folder: after `cargo test --release` only what differs is built.
fn pre_commit_in(pre_commit: &Path, work: &Path, repo: &Path, args: &[&str]) -> Output {
    run(Command::new(pre_commit)
        .args(args)
        .current_dir(repo)
        .env("PRE_COMMIT_HOME", work.join("pre-commit-home"))
        .env("CARGO_TARGET_DIR", common::target_dir())
        .env_remove("GITHUB_ACTIONS"))
}

/// The hook as a commit runs it (`pre-commit run ownerlint`: on what the index stages), or on
/// one file (`--files`), as the fixture repository's `.pre-commit-config.yaml` names it.
fn hook(pre_commit: &Path, work: &Path, repo: &Path, file: Option<&str>) -> Output {
    let mut args = vec!["run", "ownerlint"];
    if let Some(file) = file {
        args.extend(["--files", file]);
    }
    pre_commit_in(pre_commit, work, repo, &args)
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
    common::git(git, to, &["init", "--quiet"]);
    common::git(git, to, &["add", "."]);
    common::git(git, to, &["commit", "--quiet", "-m", "copy"]);
}

#[test]
#[ignore = "heavy: pre-commit (from PyPI) builds the hook, a release build; .ci/run runs it"]
fn the_hook_builds_from_cargo_lock_passes_a_clean_commit_and_fails_a_broken_owner_reference() {
    let Some(pre_commit) = common::require_tool("pre-commit", "pip install pre-commit") else {
        return;
    };
    let Some(git_program) = common::require_tool("git", "Debian's git") else {
        return;
    };
    let git = |repo: &Path, args: &[&str]| common::git(&git_program, repo, args);
    let tmp = common::temp_dir("pre-commit");
    let work = tmp.path();
    // This checkout as a repository of its own, named by the fixture's configuration as a
    // user names the hook's repository: pre-commit installs the hook once, and every run
    // below uses it.
    let hook_repo = work.join("hook-repository");
    copy_checkout(&git_program, &hook_repo);
    let rev = run(Command::new(&git_program)
        .args(["rev-parse", "HEAD"])
        .current_dir(&hook_repo));
    let rev = String::from_utf8_lossy(&rev.stdout).trim().to_string();
    let repo = work.join("repository");
    std::fs::create_dir_all(repo.join("deploy")).expect("fixture repository");
    git(&repo, &["init", "--quiet"]);
    std::fs::write(
        repo.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: ownerlint\n",
            hook_repo.display()
        ),
    )
    .expect("write");
    std::fs::write(repo.join("deploy/replicaset.yaml"), REPLICASET).expect("write");
    std::fs::write(
        repo.join("deploy/pod.yaml"),
        pod("0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b"),
    )
    .expect("write");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "web"]);

    // Only the Pod changed; its owner, in the unchanged file, resolves with the right uid.
    let clean = hook(&pre_commit, work, &repo, Some("deploy/pod.yaml"));
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
    let broken = hook(&pre_commit, work, &repo, Some("deploy/pod.yaml"));
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
                include_str!("../../testdata/render/chart/Chart.yaml"),
            ),
            (
                "values.yaml",
                include_str!("../../testdata/render/chart/values.yaml"),
            ),
            (
                "templates/deployment.yaml",
                include_str!("../../testdata/render/chart/templates/deployment.yaml"),
            ),
            (
                "templates/configmap.yaml",
                include_str!("../../testdata/render/chart/templates/configmap.yaml"),
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
        let templated = hook(
            &pre_commit,
            work,
            &repo,
            Some("charts/shop/templates/configmap.yaml"),
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

    // A commit of no manifest: the hook runs (it always does) and passes.
    git(&repo, &["reset", "--quiet", "--hard"]);
    std::fs::write(repo.join("README.md"), "# shop\n").expect("write");
    git(&repo, &["add", "README.md"]);
    let unrelated = hook(&pre_commit, work, &repo, None);
    assert!(unrelated.status.success(), "{}", text(&unrelated));
    assert!(text(&unrelated).contains("Passed"), "{}", text(&unrelated));
    git(&repo, &["commit", "--quiet", "-m", "readme"]);

    // A commit that only deletes the ReplicaSet: pre-commit passes no file, and the hook
    // reports the Pod the deletion leaves to the collector.
    git(&repo, &["rm", "--quiet", "deploy/replicaset.yaml"]);
    let deleted = hook(&pre_commit, work, &repo, None);
    let output = text(&deleted);
    assert_eq!(deleted.status.code(), Some(1), "{output}");
    assert!(output.contains("Failed"), "{output}");
    assert!(
        output.contains(
            "deploy/pod.yaml:9:3: error[owner-not-found]: Pod shop/web-1 → ReplicaSet shop/web: this change deletes ReplicaSet shop/web (deploy/replicaset.yaml); once it is gone from the cluster, the garbage collector deletes Pod shop/web-1"
        ),
        "{output}"
    );
    // Deleting the Pod too leaves nothing broken.
    git(&repo, &["rm", "--quiet", "deploy/pod.yaml"]);
    let both = hook(&pre_commit, work, &repo, None);
    assert!(both.status.success(), "{}", text(&both));
    git(&repo, &["reset", "--quiet", "--hard"]);

    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock");
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
    let stale_path = stale.to_string_lossy();
    let refused = pre_commit_in(
        &pre_commit,
        work,
        &repo,
        &[
            "try-repo",
            &stale_path,
            "ownerlint",
            "--files",
            "deploy/pod.yaml",
        ],
    );
    let output = text(&refused);
    assert!(!refused.status.success(), "{output}");
    assert!(output.contains("--locked was passed"), "{output}");
    assert!(
        !output.contains("Passed") && !output.contains("Failed"),
        "{output}"
    );
}

/// The hook's build backend (hook/build_backend.py) around a stand-in for maturin that
/// records the target folder each build is given: a temporary one, there during the build
/// and gone after it, unless `CARGO_TARGET_DIR` names one already.
#[test]
fn the_hook_builds_in_a_temporary_target_folder_that_is_removed() {
    let Some(python) = common::require_tool("python3", "Python 3") else {
        return;
    };
    let tmp = common::temp_dir("build-backend");
    let stub = tmp.path().join("maturin");
    std::fs::create_dir_all(&stub).expect("mkdir");
    std::fs::write(
        stub.join("__init__.py"),
        r#"import os
seen = []
def _build(wheel_directory, config_settings=None, metadata_directory=None):
    target = os.environ.get("CARGO_TARGET_DIR")
    seen.append((target, os.path.isdir(target)))
    open(os.path.join(target, "artifact"), "w").write("built")
    return "ownerlint.whl"
build_wheel = build_editable = _build
def build_sdist(*args): return "sdist"
def get_requires_for_build_wheel(*args): return []
get_requires_for_build_editable = get_requires_for_build_sdist = get_requires_for_build_wheel
def prepare_metadata_for_build_wheel(*args): return "dist-info"
"#,
    )
    .expect("write");
    let kept = tmp.path().join("kept-target");
    std::fs::create_dir_all(&kept).expect("mkdir");
    let script = r#"import os, sys, maturin, build_backend
assert build_backend.build_wheel("wheels") == "ownerlint.whl"
target, existed = maturin.seen[-1]
assert existed, "the target folder is there during the build"
assert os.path.basename(target).startswith("ownerlint-build-"), target
assert not os.path.exists(target), "the target folder is removed after the build"
assert "CARGO_TARGET_DIR" not in os.environ
build_backend.build_editable("wheels")
assert not os.path.exists(maturin.seen[-1][0])
os.environ["CARGO_TARGET_DIR"] = sys.argv[1]
build_backend.build_wheel("wheels")
assert maturin.seen[-1] == (sys.argv[1], True), maturin.seen
assert os.path.exists(os.path.join(sys.argv[1], "artifact")), "a given target folder is kept"
print("ok")
"#;
    let out = run(Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(&kept)
        .env(
            "PYTHONPATH",
            std::env::join_paths([tmp.path().to_path_buf(), root().join("hook")])
                .expect("a path list"),
        )
        .env_remove("CARGO_TARGET_DIR"));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");
}
