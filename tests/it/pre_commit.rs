//! The pre-commit hook, run by the real pre-commit from PyPI on fixture repositories. pre-commit
//! passes only the changed file; the owner it names lives in an unchanged file, and resolves
//! because the hook indexes the whole repository (`--project .`). A commit that only deletes
//! files, for which pre-commit passes no file, still runs the hook, which reads the deletions
//! from git.
//!
//! Three ways users get the hook with no Rust toolchain, each run with a `PATH` that has no
//! cargo, rustc or rustup on it:
//! - the pre-commit mirror (`cargo xtask dist` writes it to `target/dist/pre-commit-mirror/`),
//!   a hook repository whose package depends on ownerlint's wheel: pip installs the wheel
//!   offline, from a folder that holds only the wheel (`PIP_NO_INDEX`, `PIP_FIND_LINKS`);
//! - the same, with `args: [--fix]`: the hook fixes the file and fails, and the next run passes;
//! - `repo: local` with `language: system`, for a binary installed otherwise (an archive, krew,
//!   pip).
//!
//! The mirror's tests take the wheel and the mirror from `OWNERLINT_DIST` (`.ci/run` sets it to
//! `target/dist` after `cargo xtask dist`); without them the tests say so and are skipped, and
//! under `CI=true` they fail.
//!
//! The checkout's own `.pre-commit-hooks.yaml` builds ownerlint from source: pip installs the
//! checkout, and maturin (pyproject.toml, through hook/build_backend.py) builds it with `cargo
//! build --locked`. Its test holds the build to Cargo.lock: the same hook from a copy of this
//! checkout whose Cargo.lock lacks a package fails to install rather than resolving anew. That
//! build takes minutes (in `.ci/run`, with the feature `shared-test-build`, it reuses the tests'
//! release build and builds only ownerlint itself), and is not what users install, who take the
//! mirror's wheel; it is in the heavy tier, which `.ci/run` runs.
//!
//! pre-commit must be on `PATH` (`.ci/run` installs it from PyPI); without it the tests say so
//! and are skipped, and under `CI=true` they fail. They are heavy: a plain `cargo test` ignores
//! them, and `.ci/run` runs them.

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
/// tests' target folder, in a user's environment: after `cargo test --release` only what
/// differs is built.
fn pre_commit_in(pre_commit: &Path, work: &Path, repo: &Path, args: &[&str]) -> Output {
    run(
        common::without_cargos_test_variables(&mut Command::new(pre_commit))
            .args(args)
            .current_dir(repo)
            .env("PRE_COMMIT_HOME", work.join("pre-commit-home"))
            .env("CARGO_TARGET_DIR", common::target_dir())
            .env_remove("GITHUB_ACTIONS"),
    )
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
fn the_checkout_hook_builds_from_source_with_cargo_lock_passes_a_clean_commit_and_fails_a_broken_owner_reference()
 {
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

/// This version, as the mirror is tagged (`vVERSION`) and the wheel named.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The ReplicaSet's uid, as the Pod names it, and a stale one.
const OWNER_UID: &str = "0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b";
const STALE_UID: &str = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a";

/// The `repo:` of the mirror's snippets, as users paste it.
fn mirror_address() -> String {
    format!("{}-pre-commit", env!("CARGO_PKG_REPOSITORY"))
}

/// What `cargo xtask dist` wrote to `OWNERLINT_DIST`: the pre-commit mirror's folder and this
/// version's wheels. Without them the test is skipped through [`common::skip`] (a failure under
/// `CI=true`).
#[track_caller]
fn dist() -> Option<(PathBuf, Vec<PathBuf>)> {
    let how = "run `cargo xtask dist` and set OWNERLINT_DIST=target/dist";
    let Some(dist) = std::env::var_os("OWNERLINT_DIST").map(|dist| root().join(dist)) else {
        common::skip(&format!("OWNERLINT_DIST is not set ({how})"));
        return None;
    };
    let prefix = format!("ownerlint-{VERSION}-");
    let wheels: Vec<PathBuf> = std::fs::read_dir(&dist)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(&prefix) && name.ends_with(".whl"))
        })
        .collect();
    let mirror = dist.join("pre-commit-mirror");
    if wheels.is_empty() || !mirror.join(".pre-commit-hooks.yaml").is_file() {
        common::skip(&format!(
            "{} holds no {prefix}*.whl, or no pre-commit-mirror/ ({how})",
            dist.display()
        ));
        return None;
    }
    Some((mirror, wheels))
}

/// A folder to be the whole of `PATH`: links to `programs`, then to every other program on the
/// tests' `PATH` (the first of each name) but Rust's and ownerlint: no cargo, rustc or rustup is
/// within reach, and the shell tools git's own scripts run are.
#[cfg(unix)]
fn path_without_rust(work: &Path, programs: &[&Path]) -> PathBuf {
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let link = |program: &Path, name: &std::ffi::OsStr| {
        let to = bin.join(name);
        if to.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(program, to).expect("a link");
        }
    };
    for program in programs {
        link(program, program.file_name().expect("a program's name"));
    }
    let rust = |name: &str| {
        ["cargo", "rust", "clippy"]
            .iter()
            .any(|tool| name.starts_with(tool))
            || name == "ownerlint"
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if !name.to_str().is_some_and(rust) && entry.path().is_file() {
                link(&entry.path(), &name);
            }
        }
    }
    for compiler in ["cargo", "rustc", "rustup"] {
        assert!(
            bin.join(compiler).symlink_metadata().is_err(),
            "{compiler} is on PATH"
        );
    }
    bin
}

/// `pre-commit ARGS` in `repo` with nothing of the tests' environment: `PATH` is `bin` alone
/// (see [`path_without_rust`]), no `CARGO` or `RUSTUP_*` variable tells where a toolchain is, and
/// pip has no index: it installs from `find_links`, a folder that holds the wheel.
fn offline_pre_commit(
    work: &Path,
    bin: &Path,
    find_links: &Path,
    repo: &Path,
    args: &[&str],
) -> Output {
    std::fs::create_dir_all(work.join("home")).expect("mkdir");
    run(Command::new(bin.join("pre-commit"))
        .args(args)
        .current_dir(repo)
        .env_clear()
        .env("PATH", bin)
        .env("HOME", work.join("home"))
        .env("PRE_COMMIT_HOME", work.join("pre-commit-home"))
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", find_links)
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("VIRTUALENV_NO_PERIODIC_UPDATE", "1"))
}

/// The first `yaml` block of `markdown` that holds `needle`.
fn yaml_block<'a>(markdown: &'a str, needle: &str) -> &'a str {
    markdown
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("```").map(|(block, _)| block))
        .find(|block| block.contains(needle))
        .unwrap_or_else(|| panic!("a yaml block with {needle:?} in:\n{markdown}"))
}

/// A copy of the mirror in `to`, as its own repository tagged `vVERSION`, as the maintainers
/// publish it.
fn publish_mirror(git: &Path, mirror: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(mirror).expect("the mirror's folder") {
        let from = entry.expect("an entry").path();
        std::fs::copy(&from, to.join(from.file_name().expect("a name"))).expect("copy");
    }
    common::git(git, to, &["init", "--quiet"]);
    common::git(git, to, &["add", "."]);
    common::git(
        git,
        to,
        &["commit", "--quiet", "-m", "ownerlint-pre-commit"],
    );
    common::git(git, to, &["tag", &format!("v{VERSION}")]);
}

/// A fixture repository at `repo` with `config` as its `.pre-commit-config.yaml`, and a Pod
/// whose owner, a ReplicaSet, is in another file, committed.
fn fixture_repository(git: &Path, repo: &Path, config: &str) {
    std::fs::create_dir_all(repo.join("deploy")).expect("fixture repository");
    common::git(git, repo, &["init", "--quiet"]);
    std::fs::write(repo.join(".pre-commit-config.yaml"), config).expect("write");
    std::fs::write(repo.join("deploy/replicaset.yaml"), REPLICASET).expect("write");
    std::fs::write(repo.join("deploy/pod.yaml"), pod(OWNER_UID)).expect("write");
    common::git(git, repo, &["add", "."]);
    common::git(git, repo, &["commit", "--quiet", "-m", "web"]);
}

/// The wheels, alone in a folder of their own for pip's `--find-links`.
fn find_links(work: &Path, wheels: &[PathBuf]) -> PathBuf {
    let folder = work.join("wheels");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for wheel in wheels {
        std::fs::copy(wheel, folder.join(wheel.file_name().expect("a name"))).expect("copy");
    }
    folder
}

#[cfg(unix)]
#[test]
#[ignore = "heavy: pre-commit (from PyPI) installs the wheel `cargo xtask dist` built; .ci/run runs it"]
fn the_mirror_installs_the_wheel_offline_with_no_rust_on_path_and_reports_a_broken_owner_reference()
{
    let Some((mirror, wheels)) = dist() else {
        return;
    };
    let Some(pre_commit) = common::require_tool("pre-commit", "pip install pre-commit") else {
        return;
    };
    let Some(git) = common::require_tool("git", "Debian's git") else {
        return;
    };
    let tmp = common::temp_dir("pre-commit-mirror");
    let work = tmp.path();

    // The mirror's hook is the checkout's: the same id, entry, types, `always_run`.
    let hooks = |text: &str| serde_yaml::from_str::<serde_yaml::Value>(text).expect("YAML");
    let read = |path: &Path| std::fs::read_to_string(path).expect("read");
    assert_eq!(
        hooks(&read(&mirror.join(".pre-commit-hooks.yaml"))),
        hooks(&read(&root().join(".pre-commit-hooks.yaml")))
    );
    // Its package has no build backend to download, and no Rust to build.
    let pyproject = read(&mirror.join("pyproject.toml"));
    assert!(pyproject.contains("requires = []"), "{pyproject}");
    assert!(
        pyproject.contains(&format!("dependencies = [\"ownerlint=={VERSION}\"]")),
        "{pyproject}"
    );
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert_eq!(read(&mirror.join(licence)), read(&root().join(licence)));
    }

    let published = work.join("ownerlint-pre-commit");
    publish_mirror(&git, &mirror, &published);
    // The README's snippet, as written, with the published repository's address.
    let readme = read(&mirror.join("README.md"));
    let snippet = yaml_block(&readme, "- id: ownerlint\n");
    assert!(
        snippet.contains(&format!("repo: {}\n", mirror_address())),
        "{snippet}"
    );
    assert!(snippet.contains(&format!("rev: v{VERSION}\n")), "{snippet}");
    assert!(!snippet.contains("args:"), "{snippet}");
    let config = snippet.replace(&mirror_address(), &published.to_string_lossy());
    let repo = work.join("repository");
    fixture_repository(&git, &repo, &config);
    let bin = path_without_rust(work, &[&pre_commit, &git]);
    let find_links = find_links(work, &wheels);
    let hook = |args: &[&str]| {
        let output = offline_pre_commit(work, &bin, &find_links, &repo, args);
        (output.status.code(), text(&output))
    };

    // Only the Pod changed; its owner, in the unchanged file, resolves with the right uid. The
    // first run installs the hook: the wheel, from the folder, with no index and no compiler.
    let (code, output) = hook(&["run", "ownerlint", "--files", "deploy/pod.yaml"]);
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("Installing environment"), "{output}");
    assert!(
        output.contains("ownerlint") && output.contains("Passed"),
        "{output}"
    );
    let installed: Vec<String> = std::fs::read_dir(work.join("pre-commit-home"))
        .expect("pre-commit's store")
        .flatten()
        .filter_map(|repo| std::fs::read_dir(repo.path()).ok())
        .flatten()
        .flatten()
        .filter(|env| env.file_name().to_string_lossy().starts_with("py_env-"))
        .filter_map(|env| std::fs::read_dir(env.path().join("lib")).ok())
        .flatten()
        .flatten()
        .filter_map(|python| std::fs::read_dir(python.path().join("site-packages")).ok())
        .flatten()
        .flatten()
        .map(|package| package.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        installed.contains(&format!("ownerlint-{VERSION}.dist-info")),
        "{installed:?}"
    );
    assert!(
        installed.contains(&format!("ownerlint_pre_commit-{VERSION}.dist-info")),
        "{installed:?}"
    );

    // A stale uid: the owner is found in the unchanged file, and the uid differs.
    std::fs::write(repo.join("deploy/pod.yaml"), pod(STALE_UID)).expect("write");
    common::git(&git, &repo, &["add", "."]);
    let (code, output) = hook(&["run", "ownerlint"]);
    assert_eq!(code, Some(1), "{output}");
    assert!(output.contains("Failed"), "{output}");
    assert!(
        output.contains(
            "deploy/pod.yaml:12:10: error[owner-uid-mismatch]: Pod shop/web-1 → ReplicaSet shop/web"
        ),
        "{output}"
    );

    // A commit that only deletes the ReplicaSet: pre-commit passes no file, and git (on `PATH`)
    // tells the hook what the commit deletes.
    common::git(&git, &repo, &["reset", "--quiet", "--hard"]);
    common::git(&git, &repo, &["rm", "--quiet", "deploy/replicaset.yaml"]);
    let (code, output) = hook(&["run", "ownerlint"]);
    assert_eq!(code, Some(1), "{output}");
    assert!(
        output.contains("deploy/pod.yaml:9:3: error[owner-not-found]: Pod shop/web-1 → ReplicaSet shop/web: this change deletes ReplicaSet shop/web"),
        "{output}"
    );
}

/// A Pod that names its ReplicaSet twice, the same entry: `duplicate-owner-ref` (and, as both
/// are controllers, `multiple-controllers`), which `--fix` removes.
fn pod_with_a_repeated_owner() -> String {
    let entry = format!(
        "  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: {OWNER_UID}\n    controller: true\n"
    );
    format!("{}{entry}", pod(OWNER_UID))
}

#[cfg(unix)]
#[test]
#[ignore = "heavy: pre-commit (from PyPI) installs the wheel `cargo xtask dist` built; .ci/run runs it"]
fn the_fixing_hook_fixes_the_file_fails_that_run_and_passes_the_next() {
    let Some((mirror, wheels)) = dist() else {
        return;
    };
    let Some(pre_commit) = common::require_tool("pre-commit", "pip install pre-commit") else {
        return;
    };
    let Some(git) = common::require_tool("git", "Debian's git") else {
        return;
    };
    let tmp = common::temp_dir("pre-commit-fix");
    let work = tmp.path();
    let published = work.join("ownerlint-pre-commit");
    publish_mirror(&git, &mirror, &published);
    let readme = std::fs::read_to_string(mirror.join("README.md")).expect("README.md");
    let snippet = yaml_block(&readme, "args: [--fix]");
    assert!(
        snippet.contains(&format!("repo: {}\n", mirror_address())),
        "{snippet}"
    );
    let config = snippet.replace(&mirror_address(), &published.to_string_lossy());
    let repo = work.join("repository");
    fixture_repository(&git, &repo, &config);
    let bin = path_without_rust(work, &[&pre_commit, &git]);
    let find_links = find_links(work, &wheels);
    let hook = || {
        let output = offline_pre_commit(work, &bin, &find_links, &repo, &["run", "ownerlint"]);
        (output.status.code(), text(&output))
    };

    // The commit stages the Pod with its owner named twice: the hook removes the repeated
    // entry, and fails, as pre-commit fails a hook that changes files.
    std::fs::write(repo.join("deploy/pod.yaml"), pod_with_a_repeated_owner()).expect("write");
    common::git(&git, &repo, &["add", "."]);
    let (code, output) = hook();
    assert_eq!(code, Some(1), "{output}");
    assert!(output.contains("Failed"), "{output}");
    assert!(
        output.contains("files were modified by this hook"),
        "{output}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("deploy/pod.yaml")).expect("read"),
        pod(OWNER_UID)
    );

    // The fix staged, the next run passes.
    common::git(&git, &repo, &["add", "."]);
    let (code, output) = hook();
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("Passed"), "{output}");
}

/// The `repo: local` hook for a binary installed otherwise (an archive, krew, pip), as the
/// README and the pre-commit page give it.
const SYSTEM_HOOK: &str = "\
# .pre-commit-config.yaml
repos:
  - repo: local
    hooks:
      - id: ownerlint
        name: ownerlint
        entry: ownerlint --format short --project . --git-deletions
        language: system
        types_or: [yaml, json]
        always_run: true
        require_serial: true
";

/// The README and the pre-commit page give the system hook that is run below, as it is run.
#[test]
fn the_readme_and_the_pre_commit_page_give_the_system_hook_that_is_tested() {
    for page in ["README.md", "docs/src/integrations/pre-commit.md"] {
        let text = std::fs::read_to_string(root().join(page)).expect("the page is read");
        assert!(
            text.contains(&format!("```yaml\n{SYSTEM_HOOK}```\n")),
            "{page} lacks the system hook:\n{SYSTEM_HOOK}"
        );
    }
}

#[cfg(unix)]
#[test]
#[ignore = "heavy: pre-commit (from PyPI) runs the hook; .ci/run runs it"]
fn the_system_hook_runs_the_binary_on_path_with_no_rust_on_path() {
    let Some(pre_commit) = common::require_tool("pre-commit", "pip install pre-commit") else {
        return;
    };
    let Some(git) = common::require_tool("git", "Debian's git") else {
        return;
    };
    let tmp = common::temp_dir("pre-commit-system");
    let work = tmp.path();
    let repo = work.join("repository");
    fixture_repository(&git, &repo, SYSTEM_HOOK);
    let no_wheels = work.join("no-wheels");
    std::fs::create_dir_all(&no_wheels).expect("mkdir");

    // Without ownerlint on `PATH`, pre-commit says the hook's program is missing: what runs is
    // the binary on `PATH`, nothing pre-commit installs.
    let bare = path_without_rust(&work.join("bare"), &[&pre_commit, &git]);
    let output = offline_pre_commit(work, &bare, &no_wheels, &repo, &["run", "ownerlint"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("Executable `ownerlint` not found"),
        "{}",
        text(&output)
    );

    let bin = path_without_rust(
        work,
        &[
            &pre_commit,
            &git,
            Path::new(env!("CARGO_BIN_EXE_ownerlint")),
        ],
    );
    let hook = |args: &[&str]| {
        let output = offline_pre_commit(work, &bin, &no_wheels, &repo, args);
        (output.status.code(), text(&output))
    };
    let (code, output) = hook(&["run", "ownerlint", "--files", "deploy/pod.yaml"]);
    assert_eq!(code, Some(0), "{output}");
    assert!(output.contains("Passed"), "{output}");

    std::fs::write(repo.join("deploy/pod.yaml"), pod(STALE_UID)).expect("write");
    common::git(&git, &repo, &["add", "."]);
    let (code, output) = hook(&["run", "ownerlint"]);
    assert_eq!(code, Some(1), "{output}");
    assert!(
        output.contains(
            "deploy/pod.yaml:12:10: error[owner-uid-mismatch]: Pod shop/web-1 → ReplicaSet shop/web"
        ),
        "{output}"
    );

    common::git(&git, &repo, &["reset", "--quiet", "--hard"]);
    common::git(&git, &repo, &["rm", "--quiet", "deploy/replicaset.yaml"]);
    let (code, output) = hook(&["run", "ownerlint"]);
    assert_eq!(code, Some(1), "{output}");
    assert!(
        output.contains("deploy/pod.yaml:9:3: error[owner-not-found]: Pod shop/web-1 → ReplicaSet shop/web: this change deletes ReplicaSet shop/web"),
        "{output}"
    );
}
