//! What the tests skipped, counted where a `cargo test` run ends. A test that cannot run its
//! subject here (a tool not on `PATH`, data not beside the checkout) passes, and its line on
//! standard error is lost among the hundreds of passing tests; so it also writes its reason
//! into a record of the run, and the `skipped` test target (`tests/skipped.rs`), which cargo
//! runs after this one, prints the count of each reason as the run's last lines.
//!
//! A run is told apart by the process that starts the test binaries (cargo): both this one and
//! `skipped` are its children, and another run has another. Where the parent's id is not known
//! (outside Unix) nothing is recorded, and each skipped test's own line still says why.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder of the records, one file a run, named by the run's process id.
pub(crate) fn records() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped")
}

/// The record of the run this process is part of.
pub(crate) fn this_run() -> Option<PathBuf> {
    Some(records().join(run_id()?.to_string()))
}

#[cfg(unix)]
fn run_id() -> Option<u32> {
    Some(std::os::unix::process::parent_id())
}

#[cfg(not(unix))]
fn run_id() -> Option<u32> {
    None
}

/// Add `test`, skipped for `reason`, to the record of this run: a line of the reason, a tab
/// and the test.
pub(crate) fn record(test: &str, reason: &str) {
    // The tests run on many threads: one line is written at a time.
    static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let Some(path) = this_run() else {
        return;
    };
    let line = format!("{}\t{}\n", one_line(reason), one_line(test));
    let _writing = WRITING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let written = std::fs::create_dir_all(records()).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?
            .write_all(line.as_bytes())
    });
    if let Err(e) = written {
        let _ = writeln!(
            std::io::stderr().lock(),
            "could not count the skipped {test} in {}: {e}",
            path.display()
        );
    }
}

fn one_line(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

/// The summary of the record at `path`, which is removed (it is read once, by the run's
/// end); `None` when no test was skipped.
pub(crate) fn take_summary(path: &Path) -> Option<String> {
    let record = std::fs::read_to_string(path).ok()?;
    let _ = std::fs::remove_file(path);
    summary(&record)
}

/// A line with the number of tests skipped, then one a reason with how many it skipped, most
/// first.
pub(crate) fn summary(record: &str) -> Option<String> {
    let mut by_reason: BTreeMap<&str, usize> = BTreeMap::new();
    for line in record.lines() {
        let reason = line.split_once('\t').map_or(line, |(reason, _)| reason);
        *by_reason.entry(reason).or_default() += 1;
    }
    let total: usize = by_reason.values().sum();
    if total == 0 {
        return None;
    }
    let mut reasons: Vec<(&str, usize)> = by_reason.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let tests = if total == 1 { "test" } else { "tests" };
    let mut text = format!(
        "skipped: {total} {tests} passed without running what they test \
         (each said why above; with CI=true they fail):"
    );
    for (reason, count) in reasons {
        text.push_str(&format!("\n  {count:>4}  {reason}"));
    }
    Some(text)
}
