//! `--fix` and `--diff` in a lint run: the fixes made, written or shown as a diff.

use std::io::Read;
use std::path::PathBuf;

use super::{Streams, print_out};
use crate::analysis::{Analysis, Options};
use crate::finding::Applicability;
use crate::report;

/// What `--fix` did, for the rest of the run to report.
#[derive(Default)]
pub(super) struct Fixed {
    pub applied: Vec<crate::fix::Applied>,
    /// Files that could not be written.
    pub errors: Vec<String>,
    /// Standard input, fixed: printed instead of the report, which goes to standard error.
    pub stdin: Option<String>,
}

/// `--fix` and `--diff`: fix in memory; `--diff` prints the diff and ends the run (its exit
/// code is the error), `--fix` writes the files and goes on to report what is left.
pub(super) fn fix(
    unsafe_fixes: bool,
    diff: bool,
    options: &Options,
    streams: &mut Streams,
) -> Result<(Analysis, Fixed), i32> {
    let dash = |paths: &[PathBuf]| paths.iter().any(|p| p.as_os_str() == "-");
    // Standard input is read once, for whichever input it is (`--existing -` too); its fixed
    // text is printed only when it is linted.
    let lints_stdin = dash(&options.paths);
    let reads_stdin =
        lints_stdin || dash(&options.existing) || dash(&options.crds) || dash(&options.project);
    let mut stdin = Vec::new();
    if reads_stdin && let Err(err) = streams.stdin.read_to_end(&mut stdin) {
        note!(
            streams.stderr,
            "ownerlint: cannot read standard input: {err}"
        );
        return Err(2);
    }
    let at_least = if unsafe_fixes {
        Applicability::Unsafe
    } else {
        Applicability::Safe
    };
    // Fixes are made on the text that was linted: each file is read whole, once, and written
    // only if it still holds those bytes (a big file read a part at a time could change
    // between its parts and the text the fixes are applied to).
    let options = &Options {
        big_file_at_least: None,
        ..options.clone()
    };
    let run = crate::fix::run(options, &stdin, at_least);
    for name in &run.refused {
        note!(
            streams.stderr,
            "ownerlint: {name}: a fix would have left a document unreadable, so it was not applied; fix the rest by hand"
        );
    }
    if diff {
        for error in &run.analysis.outcome.errors {
            note!(
                streams.stderr,
                "ownerlint: {}: {}",
                error.path,
                error.message
            );
        }
        let files = run.changed.len();
        let more_unsafe = run
            .analysis
            .outcome
            .findings
            .iter()
            .filter(|f| {
                f.fix
                    .as_ref()
                    .is_some_and(|fix| fix.applicability == Applicability::Unsafe)
            })
            .count();
        // Fixes of later rounds are for findings that earlier fixes brought up: the lint
        // before fixing counted none of them.
        let brought_up = run.applied.iter().filter(|a| a.round > 1).count();
        let brought_up = match brought_up {
            0 => String::new(),
            1 => ", 1 of them for a finding that another fix brings up".to_string(),
            n => format!(", {n} of them for findings that other fixes bring up"),
        };
        let apply = if unsafe_fixes {
            "--fix --unsafe-fixes"
        } else {
            "--fix"
        };
        let done = match files {
            0 if more_unsafe > 0 => "nothing to fix with --fix".to_string(),
            0 => "nothing to fix".to_string(),
            _ => format!(
                "{} in {}{brought_up} (apply with {apply})",
                report::plural(run.applied.len(), "fix"),
                report::plural(files, "file")
            ),
        };
        let more = match (more_unsafe, files) {
            (0, _) => String::new(),
            (n, 0) => format!("; {n} {}", report::UNSAFE_FIXES),
            (n, _) => format!("; {}", report::more_unsafe(n)),
        };
        note!(streams.stderr, "ownerlint: {done}{more}");
        let code = if !run.analysis.outcome.errors.is_empty() {
            2
        } else if files > 0 {
            1
        } else {
            0
        };
        return Err(print_out(streams, crate::fix::diff(&run.changed), code));
    }
    let not_written = crate::fix::write(&run.changed, options);
    let mut run = run;
    if !not_written.is_empty() {
        // What is reported is what the files hold: those left as they were are linted again
        // as they are, and their fixes are not counted.
        let left = |name: &str| not_written.iter().any(|n| n.name == name);
        let texts: std::collections::HashMap<String, String> = run
            .changed
            .iter()
            .filter(|c| !left(&c.name))
            .map(|c| (c.name.clone(), c.after.clone()))
            .collect();
        run.analysis = crate::pipeline::analyze_with(options, &mut &stdin[..], &texts);
        run.applied.retain(|a| !left(&a.path));
    }
    let errors: Vec<String> = not_written
        .iter()
        .map(|n| format!("{}: not fixed: {}", n.name, n.why))
        .collect();
    let stdin = lints_stdin.then(|| {
        let outcome = &run.analysis.outcome;
        outcome
            .sources
            .iter()
            .find(|s| s.name == crate::discover::STDIN_NAME)
            .and_then(|s| s.text.str(0..s.text.len()).ok())
            .map(|text| text.into_owned())
            .unwrap_or_else(|| String::from_utf8_lossy(&stdin).into_owned())
    });
    Ok((
        run.analysis,
        Fixed {
            applied: run.applied,
            errors,
            stdin,
        },
    ))
}
