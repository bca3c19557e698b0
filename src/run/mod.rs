//! What each command does, once its command line is parsed: the lint run ([`lint()`]:
//! baseline, fixes, reports, exit status), `tree` and `delete-preview` ([`tree()`],
//! [`delete_preview()`]), and the commands that print what ownerlint knows ([`list_rules()`],
//! [`explain()`], [`show_config()`]). Each takes its settings as plain data and the streams it
//! reads and writes, and returns the exit status; `cli` only parses the command line and
//! calls them.

use std::io::{IsTerminal, Read, Write};

use clap::ValueEnum;

use crate::analysis::{Options, Stats};
use crate::config::{self, ConfigError, Flags};
use crate::rules;

/// A line (or lines) on standard error, with what the inputs put in it (paths, messages)
/// escaped as every human format escapes it (`report::escape`). A failed write is ignored:
/// standard error may be a closed pipe too (`2>&1 | head`), and a message nobody can read is
/// no reason to stop.
macro_rules! note {
    ($stderr:expr, $($arg:tt)*) => {{
        let line = format!($($arg)*);
        let _ = std::io::Write::write_fmt(
            &mut $stderr,
            format_args!("{}\n", $crate::report::escape::lines(&line)),
        );
    }};
}
pub(crate) use note;

#[cfg(feature = "cluster")]
mod cluster;
#[cfg(feature = "cluster")]
mod confirm;
mod fixes;
mod graph;
mod lint;

#[cfg(feature = "cluster")]
pub use cluster::{ClusterLint, cluster};
pub use graph::{DeletePreview, PreviewFormat, Tree, delete_preview, tree};

pub use lint::{FailOn, Given, Lint, lint};

/// The streams a command reads and writes, and what it needs to know of the terminal.
pub struct Streams<'a> {
    pub stdin: Box<dyn Read + 'a>,
    pub stdout: Box<dyn Write + 'a>,
    pub stderr: Box<dyn Write + 'a>,
    /// Standard output is a terminal: colour and the default format follow it.
    pub stdout_is_terminal: bool,
    /// Standard input is a pipe or a file with data to read: a lint of no path tells the user
    /// it was not read.
    pub stdin_has_data: bool,
}

impl Streams<'static> {
    /// This process's standard input, output and error.
    pub fn process() -> Self {
        Streams {
            stdin: Box::new(std::io::stdin()),
            stdout: Box::new(std::io::stdout()),
            stderr: Box::new(std::io::stderr()),
            stdout_is_terminal: std::io::stdout().is_terminal(),
            stdin_has_data: stdin_has_data(),
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour the output: `auto` colours a terminal unless `NO_COLOR` is set.
    fn colors(self, stdout_is_terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                stdout_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// `ownerlint rules`: every rule, its default severity and summary.
pub fn list_rules(streams: &mut Streams) -> i32 {
    let list: String = rules::RULES
        .iter()
        .map(|rule| {
            let fix = rule
                .meta
                .fix
                .map_or(String::new(), |fix| format!(" [fix: {}]", fix.as_str()));
            format!(
                "{:<30} {:<8} {}{fix}\n",
                rule.meta.id, rule.meta.default_severity, rule.meta.summary
            )
        })
        .collect();
    print_out(streams, list, 0)
}

/// `ownerlint explain ID`: the rule's document, or the nearest id.
pub fn explain(id: &str, streams: &mut Streams) -> i32 {
    match rules::find(id) {
        Some(rule) => print_out(streams, format!("{}\n", rule.meta.doc.trim_end()), 0),
        None => {
            let ids: Vec<&str> = rules::RULES.iter().map(|r| r.meta.id).collect();
            let hint = rules::did_you_mean(id, &ids)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            note!(
                streams.stderr,
                "ownerlint: no rule `{id}`{hint}; `ownerlint rules` lists them"
            );
            2
        }
    }
}

/// `ownerlint config`: the effective configuration and where each value came from.
pub fn show_config(flags: &Flags, streams: &mut Streams) -> i32 {
    match config::effective(flags) {
        Ok(effective) => print_out(streams, effective.commented_yaml(), 0),
        Err(errors) => config_errors(streams, &errors),
    }
}

fn config_errors(streams: &mut Streams, errors: &[ConfigError]) -> i32 {
    for error in errors {
        note!(streams.stderr, "ownerlint: {error}");
    }
    2
}

/// The options of a run over `flags`, or the configuration's errors.
fn options(flags: &Flags) -> Result<Options, Vec<ConfigError>> {
    let cwd = std::env::current_dir().ok();
    let unsaved = std::collections::HashMap::new();
    config::options(flags, cwd.as_deref(), &unsaved)
}

/// The chart options given (`--values`, `--set`), and whether charts are built at all, for
/// [`ChartFlags::unused`] to tell after the run whether they were used.
struct ChartFlags {
    given: Vec<&'static str>,
    no_render: bool,
}

impl ChartFlags {
    fn of(flags: &Flags) -> Self {
        let given = [
            ("--values", !flags.values.is_empty()),
            ("--set", !flags.set.is_empty()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect();
        ChartFlags {
            given,
            no_render: flags.no_render,
        }
    }

    /// The warning for chart options that no chart took: they are not an error, since one
    /// command line (a hook's, a CI job's) meets inputs with and without charts.
    fn unused(&self, stats: &Stats) -> Option<String> {
        if self.given.is_empty() || (stats.charts > 0 && !self.no_render) {
            return None;
        }
        let why = if self.no_render {
            "which --no-render does not build"
        } else {
            "and the input holds no chart"
        };
        Some(format!(
            "ownerlint: warning: {} {} not used: {} to Helm charts only, {why}",
            self.given.join(" and "),
            if self.given.len() == 1 { "was" } else { "were" },
            if self.given.len() == 1 {
                "it applies"
            } else {
                "they apply"
            },
        ))
    }
}

/// Write `text` to standard output and return `status`, or what a failed write makes of it.
pub fn print_out(streams: &mut Streams, text: impl AsRef<[u8]>, status: i32) -> i32 {
    let result = streams
        .stdout
        .write_all(text.as_ref())
        .and_then(|()| streams.stdout.flush());
    written(streams, result, status)
}

/// The exit status after writing the output. A closed pipe (`| head`) is the reader saying it
/// has seen enough, not a failure: end quietly with 0, as ripgrep and ruff do.
fn written(streams: &mut Streams, result: std::io::Result<()>, status: i32) -> i32 {
    match result {
        Ok(()) => status,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(err) => {
            note!(streams.stderr, "ownerlint: cannot write the output: {err}");
            2
        }
    }
}

/// Whether standard input is a pipe or a file with data ready to read now (not a terminal, not
/// `/dev/null`, not a pipe nobody writes to).
fn stdin_has_data() -> bool {
    #[cfg(unix)]
    {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let stdin = std::io::stdin();
        let Ok(metadata) = std::fs::metadata("/dev/stdin") else {
            return false;
        };
        let kind = metadata.file_type();
        if kind.is_file() {
            return metadata.len() > 0;
        }
        // A terminal, `/dev/null` and other devices are not input someone meant to give.
        if !(kind.is_fifo() || kind.is_socket()) || stdin.is_terminal() {
            return false;
        }
        let fd = stdin.as_fd();
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        poll(&mut fds, Some(&now)).is_ok_and(|ready| ready > 0)
            && fds[0].revents().contains(PollFlags::IN)
    }
    #[cfg(not(unix))]
    {
        false
    }
}
