//! Hostile and broken input: each case ends in a clear answer (its exit code and messages are
//! snapshotted), and a healthy file linted in the same run still has all its findings. Small
//! cases live in `testdata/hostile/`; large ones are generated into a temporary folder.
//!
//! The largest inputs (10 million documents, a 1 GiB file, 100,000 files) are ignored tests,
//! which `.ci/run` runs in release mode; smaller versions of the same inputs run every time.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run `command`, killing it if it is not done within `limit` (a hang must fail the test, not
/// stall it).
fn run_bounded(command: &mut Command, limit: Duration) -> Option<std::process::Output> {
    use std::io::Read;
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ownerlint runs");
    // Read both pipes while waiting, so a full pipe cannot block the child.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Some(std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// A healthy file with one known finding, linted beside every hostile input.
const HEALTHY: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b}\n";
const HEALTHY_FINDING: &str = "healthy.yaml:6:3: error[cluster-scoped-dependent]";

/// A temporary folder (removed when dropped) holding the healthy file.
fn temp(name: &str) -> tempfile::TempDir {
    let dir = common::temp_dir(&format!("hostile-{name}"));
    std::fs::write(dir.path().join("healthy.yaml"), HEALTHY).expect("write");
    dir
}

/// Lint `inputs` (relative to `dir`) with the healthy file; returns the exit code and what was
/// printed, after checking that the healthy finding is there and the run was quick.
fn lint(dir: &Path, inputs: &[&str]) -> (i32, String) {
    lint_within(dir, inputs, Duration::from_secs(120))
}

/// `lint`, for inputs that take long in a debug build (still bounded: a hang fails).
fn lint_within(dir: &Path, inputs: &[&str], limit: Duration) -> (i32, String) {
    lint_through(common::ownerlint().command(), dir, inputs, limit)
}

/// `lint`, with `program` (the binary, or a program and the arguments that make it run the
/// binary) in place of the binary.
fn lint_through(
    mut program: Command,
    dir: &Path,
    inputs: &[&str],
    limit: Duration,
) -> (i32, String) {
    let out = run_bounded(
        program
            .args(["--format", "short", "--no-config", "healthy.yaml"])
            .args(inputs)
            .current_dir(dir)
            .env_remove("GITHUB_ACTIONS"),
        limit,
    )
    .unwrap_or_else(|| panic!("{inputs:?} did not finish within {limit:?}: it hangs"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stdout.contains(HEALTHY_FINDING),
        "{inputs:?} hid the healthy file's finding:\n{stdout}{stderr}"
    );
    // The summary line ends with the time it took.
    let stderr: Vec<&str> = stderr
        .lines()
        .map(|l| match l.rsplit_once(" (") {
            Some((rest, time)) if time.ends_with("s)") => rest,
            _ => l,
        })
        .collect();
    (
        out.status.code().unwrap_or(-1),
        format!("{stdout}{}\n", stderr.join("\n")),
    )
}

fn committed(name: &str) -> String {
    let tmp = temp(name);
    let dir = tmp.path();
    std::fs::copy(root().join("testdata/hostile").join(name), dir.join(name)).expect("copy");
    let (code, text) = lint(dir, &[name]);
    format!("exit {code}\n{text}")
}

#[test]
fn small_hostile_files() {
    for name in [
        "alias-bomb.yaml",
        "truncated.yaml",
        "tabs.yaml",
        "nul-byte.yaml",
        "image.yaml",
        "latin1.yaml",
        "wrong-types.yaml",
        "merge-keys.yaml",
        "duplicate-keys.yaml",
    ] {
        insta::assert_snapshot!(name, committed(name));
    }
}

#[test]
fn deep_nesting_in_flow_and_block_style() {
    let tmp = temp("deep");
    let dir = tmp.path();
    let flow = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flow\n  labels: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let mut block =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: block\n  labels:\n");
    for depth in 0..10_000 {
        block.push_str(&" ".repeat(4 + depth));
        block.push_str("a:\n");
    }
    std::fs::write(dir.join("flow.yaml"), flow).expect("write");
    std::fs::write(dir.join("block.yaml"), block).expect("write");
    let (code, text) = lint(dir, &["flow.yaml", "block.yaml"]);
    insta::assert_snapshot!(format!("exit {code}\n{text}"));
}

/// A ConfigMap whose one value is `mib` MiB of `x`, as `huge.yaml` in `dir`.
fn write_huge_scalar(dir: &Path, mib: usize) {
    use std::io::Write;
    let file = std::fs::File::create(dir.join("huge.yaml")).expect("create");
    let mut file = std::io::BufWriter::new(file);
    file.write_all(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  blob: ")
        .expect("write");
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..mib {
        file.write_all(&chunk).expect("write");
    }
    file.write_all(b"\n").expect("write");
}

#[test]
#[ignore = "heavy: writes a 1 GiB file and lints it; .ci/run runs it in release"]
fn a_one_gigabyte_scalar() {
    let tmp = temp("huge");
    let dir = tmp.path();
    write_huge_scalar(dir, 1024);
    let (code, text) = lint(dir, &["huge.yaml"]);
    insta::assert_snapshot!(format!("exit {code}\n{text}"));
}

/// The same as `a_one_gigabyte_scalar`, smaller: a 32 MiB file (read as a big file, a part at
/// a time) over a 16 MiB document limit.
#[test]
fn a_scalar_over_the_document_size_limit() {
    let tmp = temp("huge-small");
    let dir = tmp.path();
    write_huge_scalar(dir, 32);
    let (code, text) = lint(dir, &["--max-document-size", "16MiB", "huge.yaml"]);
    assert_eq!(code, 1, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with(HEALTHY_FINDING), "{text}");
    assert_eq!(
        lines[1],
        "huge.yaml:1:1: error[invalid-yaml]: this document is 32.0 MiB, more than the 16.0 MiB limit of --max-document-size, so it was not checked"
    );
    assert_eq!(
        lines[2],
        "ownerlint: 1 object in 2 files; 1 owner reference and 0 finalizers checked: 2 errors, 0 warnings, 0 info"
    );
}

/// `count` tiny documents that are not Kubernetes objects, in one file: each is counted.
fn tiny_documents(name: &str, count: usize, limit: Duration) {
    let tmp = temp(name);
    let dir = tmp.path();
    std::fs::write(dir.join("tiny.yaml"), "---\na: 1\n".repeat(count)).expect("write");
    let (code, text) = lint_within(dir, &["tiny.yaml"], limit);
    assert_eq!(code, 1);
    assert!(
        text.contains(&format!("ownerlint: 1 object in 2 files; 1 owner reference and 0 finalizers checked; skipped {count} documents that are not Kubernetes objects: 1 error")),
        "{}",
        text.lines().last().unwrap_or("")
    );
}

#[test]
#[ignore = "heavy: 10 million documents, minutes in a debug build; .ci/run runs it in release"]
fn ten_million_tiny_documents() {
    // About 15 s in a release build.
    tiny_documents("ten-million", 10_000_000, Duration::from_secs(900));
}

#[test]
fn a_hundred_thousand_tiny_documents() {
    tiny_documents("hundred-thousand", 100_000, Duration::from_secs(120));
}

/// A tree of `folders` folders of `files` ConfigMaps each: every file is read once.
fn a_tree_of_files(name: &str, folders: usize, files: usize) {
    let tmp = temp(name);
    let dir = tmp.path();
    for d in 0..folders {
        let sub = dir.join(format!("team-{d}"));
        std::fs::create_dir_all(&sub).expect("mkdir");
        for f in 0..files {
            std::fs::write(
                sub.join(format!("cm-{f}.yaml")),
                format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{f}, namespace: team-{d}}}\n"),
            )
            .expect("write");
        }
    }
    let (code, text) = lint(dir, &["."]);
    assert_eq!(code, 1);
    // healthy.yaml is named and found again by the walk: it is read once.
    let read = folders * files + 1;
    assert!(
        text.contains(&format!(
            "ownerlint: {read} objects in {read} files; 1 owner reference and 0 finalizers checked: 1 error, 0 warnings"
        )),
        "{}",
        text.lines().last().unwrap_or("")
    );
}

#[test]
#[ignore = "heavy: writes and walks 100,000 files; .ci/run runs it in release"]
fn a_tree_of_100_000_files() {
    a_tree_of_files("many-files", 100, 1000);
}

#[test]
fn a_tree_of_2_000_files() {
    a_tree_of_files("some-files", 20, 100);
}

#[cfg(unix)]
#[test]
fn a_file_reached_by_several_names_is_read_once() {
    let tmp = temp("names");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("links")).expect("mkdir");
    std::os::unix::fs::symlink("../healthy.yaml", dir.join("links/symbolic.yaml"))
        .expect("symlink");
    std::fs::hard_link(dir.join("healthy.yaml"), dir.join("links/hard.yaml")).expect("link");
    // Named, found by the walk of `.`, and reached through both links: one file, one finding.
    let (code, text) = lint(dir, &[".", "links/symbolic.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        text.matches("error[cluster-scoped-dependent]").count(),
        1,
        "{text}"
    );
    assert!(text.contains(HEALTHY_FINDING), "{text}");
    assert!(
        text.contains(
            "ownerlint: 1 object in 1 file; 1 owner reference and 0 finalizers checked: 1 error"
        ),
        "{}",
        text.lines().last().unwrap_or("")
    );
}

/// `count` copies of one tiny object in one file: all found, one duplicate-object warning each
/// after the first.
fn tiny_objects(name: &str, count: usize) {
    let tmp = temp(name);
    let dir = tmp.path();
    let document = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
    std::fs::write(dir.join("tiny.yaml"), document.repeat(count)).expect("write");
    let (code, text) = lint(dir, &["tiny.yaml"]);
    assert!(
        text.contains(&format!(
            "ownerlint: {} objects in 2 files; 1 owner reference and 0 finalizers checked: 1 error, {} warnings",
            count + 1,
            count - 1
        )),
        "{}",
        text.lines().last().unwrap_or("")
    );
    assert_eq!(code, 1);
}

#[test]
#[ignore = "heavy: 200,000 objects, 20 s in a debug build; .ci/run runs it in release"]
fn many_tiny_documents() {
    tiny_objects("tiny", 200_000);
}

#[test]
fn some_tiny_documents() {
    tiny_objects("some-tiny", 20_000);
}

#[test]
fn paths_that_are_not_files() {
    let tmp = temp("paths");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("loop")).expect("mkdir");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("..", dir.join("loop/back")).expect("symlink");
        let status = Command::new("mkfifo").arg(dir.join("pipe.yaml")).status();
        assert!(status.is_ok_and(|s| s.success()), "mkfifo");
    }
    let (code, text) = lint(dir, &["missing.yaml", "loop", "pipe.yaml"]);
    insta::assert_snapshot!(format!("exit {code}\n{text}"));
}

#[cfg(unix)]
#[test]
fn an_unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = temp("unreadable");
    let dir = tmp.path();
    let path = dir.join("secret.yaml");
    std::fs::write(&path, HEALTHY).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let mut program = common::ownerlint().command();
    if std::fs::read(&path).is_ok() {
        // This user reads any file (root does): ownerlint runs as the unprivileged user
        // `nobody` instead, from a copy of the binary in the folder, which that user can reach.
        let Some(setpriv) = common::require_tool("setpriv", "Debian's util-linux") else {
            return;
        };
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::copy(env!("CARGO_BIN_EXE_ownerlint"), dir.join("ownerlint"))
            .expect("copy the binary");
        program = Command::new(setpriv);
        program
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(dir.join("ownerlint"));
    }
    let (code, text) = lint_through(program, dir, &["secret.yaml"], Duration::from_secs(120));
    assert_eq!(code, 2);
    assert!(
        text.contains("ownerlint: secret.yaml: Permission denied"),
        "{text}"
    );
}

#[test]
fn linting_never_writes_to_its_inputs() {
    let tmp = temp("readonly");
    let dir = tmp.path();
    let path = dir.join("healthy.yaml");
    let before = std::fs::metadata(&path)
        .expect("metadata")
        .modified()
        .expect("mtime");
    let bytes = std::fs::read(&path).expect("read");
    std::thread::sleep(Duration::from_millis(20));
    for (_, format) in common::formats() {
        let out = common::ownerlint()
            .args(["--format", &format, "--no-config", "."])
            .current_dir(dir)
            .run();
        assert_eq!(out.code(), Some(1));
    }
    assert_eq!(std::fs::read(&path).expect("read"), bytes);
    assert_eq!(
        std::fs::metadata(&path)
            .expect("metadata")
            .modified()
            .expect("mtime"),
        before
    );
}

#[cfg(unix)]
#[test]
fn ignore_files_that_are_not_small_regular_files_are_reported_and_not_read() {
    let tmp = temp("ignore-files");
    let dir = tmp.path();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    let owned = |name: &str| HEALTHY.replace("reader", name);
    write("tree/a.yaml", &owned("a"));
    write("tree/sub/b.yaml", &owned("b"));
    write("tree/sub/deeper/c.yaml", &owned("c"));
    write("tree/z/d.yaml", &owned("d"));
    // Readable ignore files apply, beside and above the unreadable ones.
    write("tree/.ignore", "ignored.yaml\n");
    write("tree/ignored.yaml", &owned("ignored"));
    write("tree/sub/.ignore", "left-out.yaml\n");
    write("tree/sub/left-out.yaml", &owned("left-out"));
    // Read without end, and blocking for ever, if they were read.
    std::os::unix::fs::symlink("/dev/zero", dir.join("tree/sub/.gitignore")).expect("symlink");
    let status = Command::new("mkfifo")
        .arg(dir.join("tree/z/.ignore"))
        .status();
    assert!(status.is_ok_and(|s| s.success()), "mkfifo");
    let (code, text) = lint(dir, &["tree"]);
    insta::assert_snapshot!(format!("exit {code}\n{text}"));
}

#[cfg(unix)]
#[test]
fn a_configuration_or_baseline_that_is_not_a_regular_file_is_an_error_naming_it() {
    let tmp = temp("named-files");
    let dir = tmp.path();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).expect("symlink");
    let status = Command::new("mkfifo").arg(dir.join("pipe.json")).status();
    assert!(status.is_ok_and(|s| s.success()), "mkfifo");
    for (args, expected) in [
        (
            ["--config", "zero.yaml"],
            "ownerlint: zero.yaml: cannot read the configuration: not a regular file (a device), so it was not read",
        ),
        (
            ["--baseline", "pipe.json"],
            "cannot read the baseline pipe.json: not a regular file (a named pipe), so it was not read",
        ),
    ] {
        let limit = Duration::from_secs(120);
        let out = run_bounded(
            common::ownerlint()
                .args(args)
                .command()
                .arg("healthy.yaml")
                .current_dir(dir),
            limit,
        )
        .unwrap_or_else(|| panic!("{args:?} did not finish within {limit:?}: it hangs"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
