//! The lint run: the inputs analysed (and fixed, with `--fix`), held to the baseline or
//! recorded in it, reported in the format asked for (or the one that suits where the output
//! goes), and the exit status the findings and errors make.

use std::io::Write;
use std::path::PathBuf;

use clap::ValueEnum;

use super::fixes::{Fixed, fix};
use super::{ChartFlags, ColorChoice, Streams, config_errors, options, written};
use crate::analysis::{Analysis, Options};
use crate::config::Flags;
use crate::finding::Severity;
use crate::report::{self, EmitOptions, Format};

/// What a lint run is asked: what to read, and the lint's own flags.
pub struct Lint {
    pub input: Flags,
    /// `None`: `github` on GitHub Actions, else `pretty` on a terminal, `short` otherwise.
    pub format: Option<Format>,
    pub fail_on: FailOn,
    pub no_suppress: bool,
    /// Report only findings that are not in this baseline.
    pub baseline: Option<PathBuf>,
    /// Record the findings in this baseline instead of reporting them.
    pub write_baseline: Option<PathBuf>,
    /// Leave out info findings.
    pub quiet: bool,
    pub color: ColorChoice,
    /// Further reports, each in its format to its file.
    pub report: Vec<(Format, PathBuf)>,
    pub fix: bool,
    pub unsafe_fixes: bool,
    pub diff: bool,
    pub show_fixes: bool,
    pub show_inputs: bool,
    /// What to lint instead of the files of `input` (`ownerlint cluster`'s read): it returns
    /// the analysis, or the exit status of a failure it has reported.
    pub given: Option<Given>,
}

/// An analysis made otherwise than from files, with the run's options.
pub type Given = Box<dyn FnOnce(&Options, &mut Streams) -> Result<Analysis, i32>>;

/// The least severity that makes the exit status 1.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FailOn {
    Info,
    Warning,
    Error,
}

impl FailOn {
    fn threshold(self) -> Severity {
        match self {
            FailOn::Info => Severity::Info,
            FailOn::Warning => Severity::Warning,
            FailOn::Error => Severity::Error,
        }
    }
}

/// Lint as `args` asks; returns the exit status: 0 no finding at or above `fail_on`, 1 such
/// findings, 2 a usage or configuration error or an unreadable input.
pub fn lint(mut args: Lint, streams: &mut Streams) -> i32 {
    let given = args.given.take();
    // `cat x.yaml | ownerlint` lints `.`, as ruff and yamllint do; the piped text is not taken
    // for a file silently, and the user is told how to lint it.
    if given.is_none() && args.input.paths.is_empty() && streams.stdin_has_data {
        note!(
            streams.stderr,
            "ownerlint: standard input was not read: with no path, ownerlint lints the current folder; name standard input `-` to lint what is piped in (`… | ownerlint -`)"
        );
    }
    let chart_flags = ChartFlags::of(&args.input);
    let options = match options(&args.input) {
        Ok(options) => Options {
            no_suppress: args.no_suppress,
            ..options
        },
        Err(errors) => return config_errors(streams, &errors),
    };
    // Read before anything is fixed: a broken baseline ends the run with nothing written.
    let baseline = match &args.baseline {
        Some(path) => match crate::baseline::read(path) {
            Ok(entries) => Some(entries),
            Err(message) => {
                note!(streams.stderr, "ownerlint: {message}");
                return 2;
            }
        },
        None => None,
    };
    if args.unsafe_fixes && !(args.fix || args.diff) {
        note!(
            streams.stderr,
            "ownerlint: --unsafe-fixes goes with --fix or --diff"
        );
        return 2;
    }
    let (analysis, fixed) = if let Some(given) = given {
        match given(&options, streams) {
            Ok(analysis) => (analysis, Fixed::default()),
            Err(code) => return code,
        }
    } else if args.fix || args.diff {
        match fix(args.unsafe_fixes, args.diff, &options, streams) {
            Ok(done) => done,
            Err(code) => return code,
        }
    } else {
        (
            crate::pipeline::analyze(&options, &mut streams.stdin),
            Fixed::default(),
        )
    };
    let Analysis {
        mut outcome,
        objects,
        index,
        resolutions,
        ..
    } = analysis;
    // The process ends after the report: freeing a big dump's objects one by one would only
    // delay the exit.
    std::mem::forget((objects, index, resolutions));
    if let Some(warning) = chart_flags.unused(&outcome.stats) {
        note!(streams.stderr, "{warning}");
    }
    let root = std::env::current_dir()
        .ok()
        .and_then(|cwd| report::repository_root(&cwd).or(Some(cwd)));
    if let Some(path) = &args.write_baseline {
        return match crate::baseline::write(path, &outcome, root.as_deref()) {
            Ok(count) => {
                note!(
                    streams.stderr,
                    "ownerlint: recorded {} in {}",
                    report::plural(count, "finding"),
                    path.display()
                );
                if outcome.errors.is_empty() { 0 } else { 2 }
            }
            Err(message) => {
                note!(streams.stderr, "ownerlint: {message}");
                2
            }
        };
    }
    if let Some(entries) = &baseline {
        outcome.stats.baselined = crate::baseline::apply(&mut outcome, entries, root.as_deref());
    }
    let color = args.color.colors(streams.stdout_is_terminal);
    let on_github = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    let format = args.format.unwrap_or(if on_github {
        Format::Github
    } else if streams.stdout_is_terminal {
        Format::Pretty
    } else {
        Format::Short
    });
    let emit_options = EmitOptions {
        color,
        width: report::pretty::terminal_width(),
        quiet: args.quiet,
        root,
        link_base: github_blob_url(),
    };
    outcome.stats.fixed = fixed.applied.len();
    let mut stdout = std::io::BufWriter::new(&mut streams.stdout);
    // A failed standard output still leaves the --report files and the summary to write.
    let shown = match &fixed.stdin {
        // Standard input fixed: its text is the output, and the report goes to standard error.
        Some(text) => {
            let _ = report::emit(format, &outcome, emit_options.clone(), &mut streams.stderr);
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
        }
        None => report::emit(format, &outcome, emit_options.clone(), &mut stdout)
            .and_then(|()| stdout.flush()),
    };
    drop(stdout);
    // A file is read later, elsewhere: no colour, and not the width of this terminal.
    let file_emit_options = EmitOptions {
        color: false,
        width: report::pretty::file_width(),
        ..emit_options.clone()
    };
    for (report_format, path) in &args.report {
        let written = std::fs::File::create(path).and_then(|file| {
            let mut file = std::io::BufWriter::new(file);
            report::emit(
                *report_format,
                &outcome,
                file_emit_options.clone(),
                &mut file,
            )?;
            file.flush()
        });
        if let Err(err) = written {
            note!(
                streams.stderr,
                "ownerlint: cannot write the report {}: {err}",
                path.display()
            );
            return 2;
        }
    }
    if !matches!(format, Format::Pretty | Format::Github) {
        for error in &outcome.errors {
            note!(
                streams.stderr,
                "ownerlint: {}: {}",
                error.path,
                error.message
            );
        }
    }
    // Showing the findings reads their lines: a file can be found changed only now.
    let late = crate::read::changed_inputs(&outcome.sources, &outcome.errors);
    for error in &late {
        note!(
            streams.stderr,
            "ownerlint: {}: {}",
            error.path,
            error.message
        );
    }
    outcome.errors.extend(late);
    if args.show_fixes {
        for applied in &fixed.applied {
            note!(
                streams.stderr,
                "{}:{}:{}: fixed[{}]: {}",
                applied.path,
                applied.line,
                applied.column,
                applied.rule,
                applied.message
            );
        }
    }
    for error in &fixed.errors {
        note!(streams.stderr, "ownerlint: {error}");
    }
    for skipped in &outcome.skipped_paths {
        note!(
            streams.stderr,
            "ownerlint: warning: {}: {}",
            skipped.path,
            skipped.message
        );
    }
    if args.show_inputs {
        for line in report::inputs_lines(&outcome) {
            note!(streams.stderr, "{line}");
        }
    }
    let stats = &outcome.stats;
    // A file skipped on purpose (a kustomize patch, a kustomization with --no-render) is
    // said in the summary, not taken for no file at all.
    let skipped = stats.skipped_documents + stats.patch_files + stats.assertion_files;
    let read_nothing =
        stats.cluster.is_none() && stats.files + stats.charts + stats.overlays + skipped == 0;
    // (A chart or an overlay that could not be built is a finding.)
    if read_nothing && outcome.errors.is_empty() && outcome.findings.is_empty() {
        note!(streams.stderr, "ownerlint: {}", nothing_to_lint(&options));
    } else {
        let summary = report::summary_line(&outcome);
        // On a terminal it is wrapped to its width, as the report above it is.
        let summary = match streams.stdout_is_terminal {
            true => report::pretty::wrap_summary(&summary, report::pretty::terminal_width()),
            false => summary,
        };
        note!(streams.stderr, "{summary}");
        if stats.cluster.is_some() {
            // `--fix` edits files: a cluster's objects are fixed there, by the commands shown.
            if let Some(line) = report::patchable_line(&outcome) {
                note!(streams.stderr, "{line}");
            }
        } else if let Some(line) =
            report::fixable_line(&outcome, args.fix.then_some(args.unsafe_fixes))
        {
            note!(streams.stderr, "{line}");
        }
    }
    let threshold = args.fail_on.threshold();
    let status = if !outcome.errors.is_empty() || !fixed.errors.is_empty() {
        2
    } else if outcome.findings.iter().any(|f| f.severity >= threshold) {
        1
    } else {
        0
    };
    std::mem::forget(outcome);
    written(streams, shown, status)
}

/// Why a run read no file: the paths given hold no manifest it reads.
fn nothing_to_lint(options: &Options) -> String {
    if options.paths.is_empty() && options.git_deletions {
        return "nothing to lint: no file given, and the git change deletes no manifest that a reference names".to_string();
    }
    let paths: Vec<String> = options
        .paths
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let filters = if options.include.is_empty() && options.exclude.is_empty() {
        ""
    } else {
        " that the include and exclude globs keep"
    };
    format!(
        "nothing to lint: {} {} no .yaml, .yml or .json file{filters} (hidden and git-ignored files are skipped)",
        paths.join(", "),
        if paths.len() == 1 { "holds" } else { "hold" }
    )
}

/// `https://github.com/owner/repo/blob/<sha>` inside a GitHub Actions job, for links in the
/// `markdown` summary.
fn github_blob_url() -> Option<String> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    Some(format!(
        "{}/{}/blob/{}",
        var("GITHUB_SERVER_URL")?,
        var("GITHUB_REPOSITORY")?,
        var("GITHUB_SHA")?
    ))
}
