//! Every output into a pipe whose reader is gone (`ownerlint rules | head -1`) ends quietly:
//! no panic message, and an ordinary exit code rather than the 101 of a panic.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Output, Stdio};

/// Runs of each command: whether the reader is gone before the first write is a race.
const RUNS: usize = 20;

/// How the reader goes away.
#[derive(Clone, Copy, Debug)]
enum Reader {
    /// Standard output is closed before the program starts.
    Gone,
    /// One line is read, then standard output is closed (`| head -1`).
    OneLine,
    /// Standard output and standard error are both closed (`2>&1 | head -0`).
    BothGone,
}

fn run<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S], reader: Reader) {
    for _ in 0..RUNS {
        let out = spawn(args, reader);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("panicked"),
            "{args:?} ({reader:?}): {stderr}"
        );
        // `None` would be a death by signal; 101 is a panic.
        let code = out.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "{args:?} ({reader:?}): exit {code:?}, {stderr}"
        );
    }
}

fn spawn<S: AsRef<std::ffi::OsStr>>(args: &[S], reader: Reader) -> Output {
    let mut command = common::ownerlint().args(args).command();
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    // A pipe whose read end is closed before the program starts: its first write fails.
    let closed = || {
        let (read, write) = std::io::pipe().expect("a pipe");
        drop(read);
        write
    };
    match reader {
        Reader::Gone => {
            command.stdout(closed());
        }
        Reader::BothGone => {
            command.stdout(closed()).stderr(closed());
        }
        Reader::OneLine => {}
    }
    let mut child = command.spawn().expect("the binary runs");
    if let Some(stdout) = child.stdout.take() {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
    }
    child.wait_with_output().expect("the binary finishes")
}

/// Every subcommand, and a lint in the default format and in each `--format`.
fn commands() -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = [
        &["rules"][..],
        &["explain", "owner-not-found"],
        &["completions", "bash"],
        &["man"],
        &["config", "--no-config"],
        &["tree", "--no-config", "examples"],
        &["tree", "--no-config", "--format", "json", "examples"],
        &[
            "delete-preview",
            "--no-config",
            "-n",
            "shop",
            "Deployment/api",
            "examples",
        ],
        &["--no-config", "examples"],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect();
    for (_, name) in common::formats() {
        commands.push(
            ["--no-config", "--format", &name, "examples"]
                .map(String::from)
                .to_vec(),
        );
    }
    commands
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    for args in commands() {
        run(&args, Reader::Gone);
    }
}

#[test]
fn a_reader_that_stops_after_one_line() {
    for args in commands() {
        run(&args, Reader::OneLine);
    }
}

#[test]
fn closed_standard_error_too() {
    // The lint's summary line and its unreadable-input messages go to standard error.
    for args in commands() {
        run(&args, Reader::BothGone);
    }
    run(&["--no-config", "does-not-exist.yaml"], Reader::BothGone);
}

#[test]
fn a_closed_pipe_exits_0() {
    // As ripgrep and ruff do: the reader had seen enough, nothing failed. A lint with
    // findings (exit 1 otherwise) ends with 0 once its reader is gone.
    let out = spawn(
        &["--no-config", "--format", "short", "examples"],
        Reader::Gone,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The summary still reaches standard error, which is open.
    assert!(
        stderr.contains("ownerlint: 9 objects in 2 files"),
        "{stderr}"
    );
}
