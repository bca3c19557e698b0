//! Hostile and broken input: each case ends in a clear answer (its exit code and messages are
//! snapshotted), and a healthy file linted in the same run still has all its findings. Small
//! cases live in `testdata/hostile/`; large ones are generated into a temporary folder.

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

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ownerlint-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("healthy.yaml"), HEALTHY).expect("write");
    dir
}

/// Lint `inputs` (relative to `dir`) with the healthy file; returns the exit code and what was
/// printed, after checking that the healthy finding is there and the run was quick.
fn lint(dir: &Path, inputs: &[&str]) -> (i32, String) {
    lint_within(dir, inputs, Duration::from_secs(120))
}

/// `lint`, for inputs that take long in a debug build (still bounded: a hang fails).
fn lint_within(dir: &Path, inputs: &[&str], limit: Duration) -> (i32, String) {
    let out = run_bounded(
        Command::new(env!("CARGO_BIN_EXE_ownerlint"))
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
    let dir = temp(name);
    std::fs::copy(root().join("testdata/hostile").join(name), dir.join(name)).expect("copy");
    let (code, text) = lint(&dir, &[name]);
    let _ = std::fs::remove_dir_all(&dir);
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
    let dir = temp("deep");
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
    let (code, text) = lint(&dir, &["flow.yaml", "block.yaml"]);
    insta::assert_snapshot!(format!("exit {code}\n{text}"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_one_gigabyte_scalar() {
    let dir = temp("huge");
    {
        use std::io::Write;
        let file = std::fs::File::create(dir.join("huge.yaml")).expect("create");
        let mut file = std::io::BufWriter::new(file);
        file.write_all(
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  blob: ",
        )
        .expect("write");
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..1024 {
            file.write_all(&chunk).expect("write");
        }
        file.write_all(b"\n").expect("write");
    }
    let (code, text) = lint(&dir, &["huge.yaml"]);
    insta::assert_snapshot!(format!("exit {code}\n{text}"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ten_million_tiny_documents() {
    let dir = temp("ten-million");
    std::fs::write(dir.join("tiny.yaml"), "---\na: 1\n".repeat(10_000_000)).expect("write");
    // About 15 s in a release build; a debug build under a full test run takes minutes.
    let (code, text) = lint_within(&dir, &["tiny.yaml"], Duration::from_secs(900));
    assert_eq!(code, 1);
    assert!(
        text.contains("ownerlint: 1 object in 2 files (10000000 documents not Kubernetes objects, skipped): 1 error"),
        "{}",
        text.lines().last().unwrap_or("")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tree_of_100_000_files() {
    let dir = temp("many-files");
    for d in 0..100 {
        let sub = dir.join(format!("team-{d}"));
        std::fs::create_dir_all(&sub).expect("mkdir");
        for f in 0..1000 {
            std::fs::write(
                sub.join(format!("cm-{f}.yaml")),
                format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{f}, namespace: team-{d}}}\n"),
            )
            .expect("write");
        }
    }
    let (code, text) = lint(&dir, &["."]);
    assert_eq!(code, 1);
    // healthy.yaml is named and found again by the walk: it is read once.
    assert!(
        text.contains("ownerlint: 100001 objects in 100001 files: 1 error, 0 warnings"),
        "{}",
        text.lines().last().unwrap_or("")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_file_reached_by_several_names_is_read_once() {
    let dir = temp("names");
    std::fs::create_dir_all(dir.join("links")).expect("mkdir");
    std::os::unix::fs::symlink("../healthy.yaml", dir.join("links/symbolic.yaml"))
        .expect("symlink");
    std::fs::hard_link(dir.join("healthy.yaml"), dir.join("links/hard.yaml")).expect("link");
    // Named, found by the walk of `.`, and reached through both links: one file, one finding.
    let (code, text) = lint(&dir, &[".", "links/symbolic.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        text.matches("error[cluster-scoped-dependent]").count(),
        1,
        "{text}"
    );
    assert!(text.contains(HEALTHY_FINDING), "{text}");
    assert!(
        text.contains("ownerlint: 1 object in 1 file: 1 error"),
        "{}",
        text.lines().last().unwrap_or("")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn many_tiny_documents() {
    let dir = temp("tiny");
    let document = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
    std::fs::write(dir.join("tiny.yaml"), document.repeat(200_000)).expect("write");
    let (code, text) = lint(&dir, &["tiny.yaml"]);
    // 200,000 copies of one object: all found, one duplicate-object warning each after the first.
    assert!(
        text.contains("ownerlint: 200001 objects in 2 files: 1 error, 199999 warnings"),
        "{}",
        text.lines().last().unwrap_or("")
    );
    assert_eq!(code, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn paths_that_are_not_files() {
    let dir = temp("paths");
    std::fs::create_dir_all(dir.join("loop")).expect("mkdir");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("..", dir.join("loop/back")).expect("symlink");
        let status = Command::new("mkfifo").arg(dir.join("pipe.yaml")).status();
        assert!(status.is_ok_and(|s| s.success()), "mkfifo");
    }
    let (code, text) = lint(&dir, &["missing.yaml", "loop", "pipe.yaml"]);
    insta::assert_snapshot!(format!("exit {code}\n{text}"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unreadable_file() {
    let dir = temp("unreadable");
    let path = dir.join("secret.yaml");
    std::fs::write(&path, HEALTHY).expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    }
    if std::fs::read(&path).is_ok() {
        eprintln!("skipped: this user (root?) can read a file without permissions");
        return;
    }
    let (code, text) = lint(&dir, &["secret.yaml"]);
    assert_eq!(code, 2);
    assert!(
        text.contains("ownerlint: secret.yaml: Permission denied"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn linting_never_writes_to_its_inputs() {
    let dir = temp("readonly");
    let path = dir.join("healthy.yaml");
    let before = std::fs::metadata(&path)
        .expect("metadata")
        .modified()
        .expect("mtime");
    let bytes = std::fs::read(&path).expect("read");
    std::thread::sleep(Duration::from_millis(20));
    for format in ["short", "json", "sarif", "pretty"] {
        let out = Command::new(env!("CARGO_BIN_EXE_ownerlint"))
            .args(["--format", format, "--no-config", "."])
            .current_dir(&dir)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
    }
    assert_eq!(std::fs::read(&path).expect("read"), bytes);
    assert_eq!(
        std::fs::metadata(&path)
            .expect("metadata")
            .modified()
            .expect("mtime"),
        before
    );
    let _ = std::fs::remove_dir_all(&dir);
}
