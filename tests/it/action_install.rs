//! The Action's install step against a stand-in release host: a re-published archive, a wrong
//! checksum, a missing release, a plain-http address, the release read from the action's path,
//! and an unreleased ref built from source. The harness is `action`'s.

use crate::action::*;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a test's hostile archive would leave its mark if it ran: a unique path.
fn mark(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!(
        "ownerlint-action-{name}-{}-{nanos}",
        std::process::id()
    ))
}

/// A program for an archive: a shell script.
fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    write(&path, text);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    path
}

/// The cache is keyed by the archive's checksum, not by the tag alone: a release whose archive
/// is published again (rebuilt, say) misses the cache, and the new archive is installed.
#[test]
fn a_republished_archive_misses_the_cache_and_is_installed() {
    let tmp = common::temp_dir("action-republished");
    let host = ReleaseHost::start();
    let first_archive = pack(
        &tmp.path().join("first-archive"),
        &script(
            tmp.path(),
            "first",
            "#!/bin/sh\necho 'ownerlint first build'\n",
        ),
        "first\n",
    );
    host.publish_release(VERSION, &archive_name(), &first_archive);
    let action = Action::new(&tmp.path().join("work"))
        .with_env("OWNERLINT_RELEASES_URL", &host.releases_url());
    let with = [("version", VERSION), ("paths", "no such folder")];
    let first = action.run_with_cache(&with, &|_| false);
    assert!(
        first.step("Install ownerlint").status.success(),
        "{}",
        first.report()
    );
    let saved = first.cache_key.clone();
    assert!(saved.ends_with(&sha256(&first_archive)), "{saved}");

    // The same version and tag: the cache still hits.
    let again = action.run_with_cache(&with, &|key| key == saved);
    assert_eq!(again.cache_key, saved);
    assert_eq!(
        again.names(),
        ["Find the ownerlint release", "Run ownerlint"]
    );

    let second_archive = pack(
        &tmp.path().join("second-archive"),
        &script(
            tmp.path(),
            "second",
            "#!/bin/sh\necho 'ownerlint second build'\n",
        ),
        "second\n",
    );
    host.publish_release(VERSION, &archive_name(), &second_archive);
    let second = action.run_with_cache(&with, &|key| key == saved);
    assert_eq!(
        second.cache_key,
        format!(
            "ownerlint-{VERSION}-{}-{}",
            runner_target(),
            sha256(&second_archive)
        )
    );
    assert!(
        second.step("Install ownerlint").status.success(),
        "{}",
        second.report()
    );
    let installed = Command::new(action.installed()).output().expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&installed.stdout),
        "ownerlint second build\n"
    );
}

/// An archive that is not the one the release's checksum file names (altered on the way, or on
/// the host) fails the install step with both digests and the URL, and nothing of it is
/// installed or run: its `ownerlint` would touch a file.
#[test]
fn an_archive_that_fails_its_checksum_fails_the_step_and_installs_nothing() {
    let tmp = common::temp_dir("action-tampered");
    let host = ReleaseHost::start();
    let touched = mark("tampered");
    let tampered = pack(
        &tmp.path().join("tampered-archive"),
        &script(
            tmp.path(),
            "tampered",
            &format!("#!/bin/sh\ntouch '{}'\n", touched.display()),
        ),
        "ownerlint\n",
    );
    let genuine = sha256(genuine_archive());
    host.publish(VERSION, &archive_name(), tampered.clone());
    host.publish(
        VERSION,
        &format!("{}.sha256", archive_name()),
        format!("{genuine}  {}\n", archive_name()).into_bytes(),
    );
    let action = Action::new(&tmp.path().join("work"))
        .at_ref(&format!("v{VERSION}"))
        .with_env("OWNERLINT_RELEASES_URL", &host.releases_url());
    let run = action.run(&[], false);
    assert_eq!(
        run.names(),
        ["Find the ownerlint release", "Install ownerlint"],
        "{}",
        run.report()
    );
    assert!(!run.step("Install ownerlint").status.success());
    let url = format!("{}/v{VERSION}/{}", host.releases_url(), archive_name());
    let log = run.log("Install ownerlint");
    assert!(
        log.contains(&format!(
            "::error title=ownerlint install::{url} has sha256 {}, but {url}.sha256 says {genuine}: the download is corrupt or was altered, so nothing was installed",
            sha256(&tampered)
        )),
        "{log}"
    );
    assert!(!action.work.join("tool-cache/ownerlint").exists());
    assert!(!touched.exists(), "the tampered binary ran");
}

/// A release that does not exist, or lacks this runner's archive, or whose checksum file is
/// not one, fails with a message naming what was asked for; so does a runner no release is
/// built for. Nothing is installed.
#[test]
fn a_missing_release_or_archive_fails_with_a_clear_message() {
    let tmp = common::temp_dir("action-missing");
    let host = ReleaseHost::start();
    let action = Action::new(&tmp.path().join("work"))
        .with_env("OWNERLINT_RELEASES_URL", &host.releases_url());
    let releases = host.releases_url();
    let target = runner_target();

    let run = action.run(&[("version", "v9.9.9")], false);
    assert_eq!(
        run.names(),
        ["Find the ownerlint release"],
        "{}",
        run.report()
    );
    let log = run.log("Find the ownerlint release");
    assert!(
        log.contains(&format!("::error title=ownerlint install::{releases}/v9.9.9/ownerlint-9.9.9-{target}.tar.gz.sha256 was not found (HTTP 404): there is no such release or no archive for this runner; check the version input and the release's assets")),
        "{log}"
    );

    // The checksum file is there, the archive is not.
    host.publish(
        VERSION,
        &format!("{}.sha256", archive_name()),
        format!("{}  {}\n", sha256(b"gone"), archive_name()).into_bytes(),
    );
    let run = action.run(&[("version", VERSION)], false);
    assert_eq!(
        run.names(),
        ["Find the ownerlint release", "Install ownerlint"],
        "{}",
        run.report()
    );
    let log = run.log("Install ownerlint");
    assert!(
        log.contains(&format!(
            "::error title=ownerlint install::{releases}/v{VERSION}/{} was not found (HTTP 404)",
            archive_name()
        )),
        "{log}"
    );

    // A page where the checksum file should be.
    host.publish(
        VERSION,
        &format!("{}.sha256", archive_name()),
        b"<html>Moved</html>\n".to_vec(),
    );
    let run = action.run(&[("version", VERSION)], false);
    let log = run.log("Find the ownerlint release");
    assert!(
        log.contains(&format!(
            "{releases}/v{VERSION}/{}.sha256 is not a checksum of {}",
            archive_name(),
            archive_name()
        )),
        "{log}"
    );
    assert_eq!(run.names(), ["Find the ownerlint release"]);

    let run = action.run(&[("version", "latest")], false);
    assert!(
        run.log("Find the ownerlint release").contains(
            "the version input 'latest' is not a release version: give one such as 0.1.0"
        ),
        "{}",
        run.report()
    );

    let mut windows = Action::new(&tmp.path().join("windows"))
        .with_env("OWNERLINT_RELEASES_URL", &host.releases_url());
    windows.context.insert("runner.os".into(), "Windows".into());
    windows.context.insert("runner.arch".into(), "ARM64".into());
    let run = windows.run(&[("version", VERSION)], false);
    assert!(
        run.log("Find the ownerlint release").contains(
            "ownerlint releases have no build for Windows on ARM64 (runner.os, runner.arch)"
        ),
        "{}",
        run.report()
    );
    assert!(!action.work.join("tool-cache/ownerlint").exists());
    assert!(!windows.work.join("tool-cache/ownerlint").exists());
}

/// The releases' address is https, or plain http on this machine only: a mirror given as plain
/// http elsewhere, or dressed up as localhost with a user name, is refused before anything is
/// downloaded.
#[test]
fn a_releases_url_in_plain_http_off_this_machine_is_refused() {
    let tmp = common::temp_dir("action-http");
    for url in [
        "http://example.invalid/releases",
        "http://localhost:80@example.invalid/releases",
        "http://127.0.0.1.example.invalid/releases",
        "ftp://example.invalid/releases",
    ] {
        let action = Action::new(&tmp.path().join("work")).with_env("OWNERLINT_RELEASES_URL", url);
        let run = action.run(&[("version", VERSION)], false);
        assert_eq!(run.names(), ["Find the ownerlint release"], "{url}");
        let log = run.log("Find the ownerlint release");
        assert!(
            log.contains(&format!("::error title=ownerlint install::OWNERLINT_RELEASES_URL '{url}' is not an https:// URL (plain http is taken only from 127.0.0.1 or localhost)")),
            "{log}"
        );
        // curl was not run: it would have said it could not resolve the host.
        assert!(!log.contains("curl"), "{log}");
    }
}

/// Installed as GitHub unpacks a remote action, at `_actions/OWNER/REPO/REF`, the action knows
/// its release from that path even where `github.action_ref` is empty (as it can be in a
/// composite action).
#[test]
#[cfg(unix)]
fn the_release_is_read_from_the_actions_path_when_the_ref_is_empty() {
    let tmp = common::temp_dir("action-path");
    let host = ReleaseHost::start();
    host.publish_release(VERSION, &archive_name(), genuine_archive());
    let unpacked = tmp
        .path()
        .join(format!("_actions/acme/ownerlint/v{VERSION}"));
    std::fs::create_dir_all(unpacked.parent().expect("parent")).expect("mkdir");
    std::os::unix::fs::symlink(root(), &unpacked).expect("symlink");
    let mut action = Action::new(&tmp.path().join("work"))
        .with_env("OWNERLINT_RELEASES_URL", &host.releases_url());
    action
        .context
        .insert("github.action_path".into(), unpacked.display().to_string());
    let run = action.run(&[("paths", "no such folder")], false);
    assert!(
        run.step("Install ownerlint").status.success(),
        "{}",
        run.report()
    );
    assert!(
        run.log("Find the ownerlint release").contains(&format!(
            "ownerlint {VERSION} for {}: {}/v{VERSION}/{}",
            runner_target(),
            host.releases_url(),
            archive_name()
        )),
        "{}",
        run.report()
    );
}

/// A ref that is not a version tag (a branch, a major-version tag, `uses: ./`) is built from
/// source with `cargo install --locked`, and the log says so: here a `cargo` first on PATH
/// records what it was asked to do. Nothing is downloaded, and the cache key is the source's.
#[test]
fn an_unreleased_ref_is_built_from_source_and_the_log_says_so() {
    let tmp = common::temp_dir("action-source");
    let host = ReleaseHost::start();
    let bin = tmp.path().join("bin");
    let record = tmp.path().join("cargo-arguments");
    script(
        &bin,
        "cargo",
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n",
            record.display()
        ),
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (action_ref, said) in [
        ("main", "ref main"),
        ("v1", "ref v1"),
        ("", "the action's own checkout (uses: ./)"),
    ] {
        let _ = std::fs::remove_file(&record);
        let work = tmp.path().join(format!("work-{action_ref}"));
        let action = Action::new(&work)
            .at_ref(action_ref)
            .with_env("OWNERLINT_RELEASES_URL", &host.releases_url())
            .with_env("PATH", &path);
        let run = action.run(&[], false);
        let log = run.log("Install ownerlint");
        assert!(
            log.contains(&format!(
                "{said} is not a release: building ownerlint from source (about 5 minutes)"
            )),
            "{}",
            run.report()
        );
        let arguments = std::fs::read_to_string(&record).expect("cargo was run");
        let root_dir = work.join("tool-cache/ownerlint");
        assert_eq!(
            arguments,
            format!(
                "install\n--locked\n--path\n{}\n--root\n{}\n",
                root().display(),
                root_dir.display()
            )
        );
        let key = &run.cache_key;
        let prefix = format!("ownerlint-source-Linux-{}-", runner_arch());
        assert!(
            key.strip_prefix(&prefix).is_some_and(
                |digest| digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit())
            ),
            "{key}"
        );

        // On a cache hit nothing is built.
        let _ = std::fs::remove_file(&record);
        let hit = action.run(&[], true);
        assert_eq!(
            hit.names()[..2],
            ["Find the ownerlint release", "Run ownerlint"]
        );
        assert!(!record.exists());
    }
    assert_eq!(host.requests(), Vec::<String>::new());
}

/// The build from source, for real: `uses: ./` runs `cargo install --locked` of this checkout
/// (in the tests' target folder, so after `cargo test --release` it reuses that build), and the
/// installed ownerlint lints.
///
/// The `cargo` it finds first on PATH runs the real one with the feature `shared-test-build`
/// added to `install`, the tests' own feature set (Cargo.toml): after `cargo test --release`,
/// `cargo install` finds ownerlint and its dependencies built. Without it, every crate whose
/// features differ in a user's build is built once more, ownerlint too (two to three minutes
/// on 2 cores), though CI's release artifacts (`cargo xtask dist`) already compile that
/// user's build.
#[test]
#[ignore = "heavy: a release build of this checkout (cargo install); .ci/run runs it"]
fn an_unreleased_ref_is_built_with_cargo_install_and_lints() {
    let tmp = common::temp_dir("action-cargo-install");
    let bin = tmp.path().join("bin");
    // The Cargo that runs the tests (the one that built them, if it is not said): not a `cargo`
    // found on PATH, which would be this one.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").into());
    script(
        &bin,
        "cargo",
        &format!(
            "#!/bin/sh\nif [ \"$1\" = install ]; then\n  shift\n  \
             exec '{cargo}' install --features shared-test-build \"$@\"\nfi\n\
             exec '{cargo}' \"$@\"\n"
        ),
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let action = Action::new(tmp.path()).with_env("PATH", &path);
    write(&action.workspace.join("deploy/app.yaml"), APP);
    let run = action.run(&[("paths", "deploy/")], false);
    assert_eq!(
        run.names(),
        [
            "Find the ownerlint release",
            "Install ownerlint",
            "Run ownerlint"
        ],
        "{}",
        run.report()
    );
    assert!(
        run.log("Install ownerlint").contains(
            "the action's own checkout (uses: ./) is not a release: building ownerlint from source"
        ),
        "{}",
        run.report()
    );
    assert_eq!(run.output("exit-code"), "1", "{}", run.report());
    assert_eq!(run.output("errors"), "1", "{}", run.report());
}
