//! A test that cannot run its subject (its tool not on `PATH`) passes and is counted, with its
//! reason, in the summary the `skipped` target prints at the end of `cargo test`; with
//! `CI=true` it fails. Checked by running this test binary again, on two tests that build with
//! helm and kubectl, with a `PATH` that has neither.

#![cfg(unix)]

use crate::skips;

use std::process::{Command, Output};

const CHART_TEST: &str =
    "outside::a_chart_never_reads_the_process_environment_or_a_file_outside_the_repository";
const OVERLAY_TEST: &str =
    "outside::an_overlay_never_reads_a_file_or_a_base_outside_the_repository";

/// This test binary run on `tests` (exact names), with an empty folder as `PATH` and `CI` as
/// given. Its record is this process's: the run it belongs to is told by its parent.
fn run_without_tools(tests: &[&str], ci: Option<&str>) -> Output {
    let empty = crate::common::temp_dir("skip-count-path");
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args(tests)
        .args(["--exact", "--test-threads", "2"])
        .env("PATH", empty.path())
        .env_remove("CI")
        .env_remove("OWNERLINT_SHARED");
    if let Some(ci) = ci {
        command.env("CI", ci);
    }
    command.output().expect("the test binary runs")
}

fn this_record() -> std::path::PathBuf {
    skips::records().join(std::process::id().to_string())
}

// One test, in order: both runs are told by this process, and write to one record.
#[test]
fn tests_without_their_tools_pass_and_are_counted_by_reason_and_fail_with_ci() {
    let record = this_record();
    let _ = std::fs::remove_file(&record);

    let run = run_without_tools(&[CHART_TEST], Some("true"));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("1 failed"), "{stdout}");
    assert!(
        format!("{stdout}{stderr}").contains("cannot run its subject: helm is not on PATH"),
        "{stdout}{stderr}"
    );
    assert!(!record.exists(), "a failed test was counted as skipped");

    let run = run_without_tools(&[CHART_TEST, OVERLAY_TEST], None);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("2 passed"), "{stdout}");
    assert!(
        stderr.contains(&format!("skipped: {CHART_TEST} ")),
        "{stderr}"
    );
    let summary = skips::take_summary(&record).expect("the run's record");
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(
        lines[0],
        "skipped: 2 tests passed without running what they test (each said why above; with CI=true they fail):",
        "{summary}"
    );
    assert_eq!(lines.len(), 3, "{summary}");
    for tool in ["helm", "kubectl"] {
        let reason = format!("     1  {tool} is not on PATH (install {tool}");
        assert!(
            lines[1..].iter().any(|l| l.starts_with(&reason)),
            "{summary}"
        );
    }
    // Read once: the run's end takes the record away.
    assert!(!record.exists());
}

#[test]
fn the_summary_counts_each_reason_most_first() {
    let record = "b is missing\tt1\na is not on PATH\tt2\nb is missing\tt3\n";
    assert_eq!(
        skips::summary(record).as_deref(),
        Some(
            "skipped: 3 tests passed without running what they test (each said why above; with CI=true they fail):\n     2  b is missing\n     1  a is not on PATH"
        )
    );
    assert_eq!(skips::summary(""), None);
}
