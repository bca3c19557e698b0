//! The command-line interface, defined with clap. `main.rs` only runs it.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::catalog::KubeVersion;
use crate::finding::Severity;
use crate::load::ModeChoice;
use crate::report::{self, Format, RenderOptions};
use crate::rules;

#[derive(Parser, Debug)]
#[command(
    name = "ownerlint",
    version,
    about = "Find broken Kubernetes ownership (metadata.ownerReferences) before it reaches a cluster",
    args_conflicts_with_subcommands = true,
    after_help = "Exit status: 0 no finding at or above --fail-on, 1 findings, 2 usage or unreadable input."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub lint: LintArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List every rule: id, default severity and summary
    Rules,
    /// Print a rule's document
    Explain {
        /// The rule id, e.g. owner-not-found
        rule: String,
    },
    /// Print a shell completion script (e.g. `ownerlint completions bash > /etc/bash_completion.d/ownerlint`)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `ownerlint man > ownerlint.1`
    Man,
}

#[derive(Args, Debug)]
pub struct LintArgs {
    /// Files and directories to lint; `-` reads standard input
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Output format [default: github when GITHUB_ACTIONS=true, else pretty on a terminal, short otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Exit with 1 when a finding has at least this severity
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Namespace of namespaced objects that name none, as with `kubectl -n`
    #[arg(short = 'n', long, default_value = "default")]
    pub namespace: String,
    /// Manifests to apply (fresh uids), a cluster snapshot (real uids), or decide per document
    #[arg(long, value_enum, default_value = "auto")]
    pub mode: ModeChoice,
    /// The input is the whole cluster or release: an owner that is not found does not exist
    #[arg(long)]
    pub complete: bool,
    /// Kubernetes release to check API versions against [default: newest known]
    #[arg(long, value_parser = parse_kube_version)]
    pub kube_version: Option<KubeVersion>,
    /// Directory or file of CustomResourceDefinitions that declare custom kinds (repeatable)
    #[arg(long, value_name = "PATH")]
    pub crds: Vec<PathBuf>,
    /// Objects that exist (e.g. a dump of the target cluster): owners may resolve to them, and they are not linted (repeatable)
    #[arg(long, value_name = "PATH")]
    pub context: Vec<PathBuf>,
    /// The rest of the project: read so that owners defined there resolve, without reporting on
    /// it; findings are reported only for PATHS (for pre-commit, which passes changed files)
    #[arg(long, value_name = "PATH")]
    pub project: Vec<PathBuf>,
    /// Only lint files in walked directories that match this glob (repeatable)
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip files in walked directories that match this glob (repeatable)
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Do not print info findings
    #[arg(short, long)]
    pub quiet: bool,
    /// When to use colour
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Also write the findings in another format to a file, e.g. `--report sarif=ownerlint.sarif`
    /// (repeatable; the file is replaced)
    #[arg(long, value_name = "FORMAT=PATH", value_parser = parse_report)]
    pub report: Vec<(Format, PathBuf)>,
}

fn parse_report(text: &str) -> Result<(Format, PathBuf), String> {
    let (format, path) = text.split_once('=').ok_or_else(|| {
        format!("expected FORMAT=PATH, e.g. sarif=ownerlint.sarif, got \"{text}\"")
    })?;
    let format = Format::from_str(format, true).map_err(|_| {
        let names: Vec<String> = Format::value_variants()
            .iter()
            .filter_map(|f| f.to_possible_value().map(|v| v.get_name().to_string()))
            .collect();
        format!("unknown format \"{format}\" (one of {})", names.join(", "))
    })?;
    if path.is_empty() {
        return Err("the report needs a file path after `=`".into());
    }
    Ok((format, PathBuf::from(path)))
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FailOn {
    Info,
    Warning,
    Error,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    KubeVersion::parse(text).ok_or_else(|| format!("expected a release like 1.34, got \"{text}\""))
}

/// Run the command line; returns the exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Some(Command::Rules) => {
            print_rules();
            0
        }
        Some(Command::Explain { rule }) => explain(&rule),
        Some(Command::Completions { shell }) => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "ownerlint", &mut std::io::stdout());
            0
        }
        Some(Command::Man) => {
            let page = clap_mangen::Man::new(Cli::command());
            match page.render(&mut std::io::stdout()) {
                Ok(()) => 0,
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => 0,
                Err(err) => {
                    eprintln!("ownerlint: cannot write the man page: {err}");
                    2
                }
            }
        }
        None => lint(cli.lint),
    }
}

fn print_rules() {
    for rule in rules::RULES {
        println!(
            "{:<30} {:<8} {}",
            rule.meta.id,
            rule.meta.default_severity,
            rule.meta.summary()
        );
    }
}

fn explain(id: &str) -> i32 {
    match rules::find(id) {
        Some(rule) => {
            println!("{}", rule.meta.body().trim_end());
            0
        }
        None => {
            let ids: Vec<&str> = rules::RULES.iter().map(|r| r.meta.id).collect();
            let hint = rules::did_you_mean(id, &ids)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            eprintln!("ownerlint: no rule `{id}`{hint}; `ownerlint rules` lists them");
            2
        }
    }
}

fn lint(args: LintArgs) -> i32 {
    let options = crate::Options {
        paths: args.paths,
        include: args.include,
        exclude: args.exclude,
        namespace: args.namespace,
        mode: args.mode,
        complete: args.complete,
        kube_version: args.kube_version,
        crds: args.crds,
        context: args.context,
        project: args.project,
        limits: Default::default(),
    };
    let outcome = crate::lint(&options, &mut std::io::stdin().lock());
    let stdout_tty = std::io::stdout().is_terminal();
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => stdout_tty && !no_color,
    };
    let on_github = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    let format = args.format.unwrap_or(if on_github {
        Format::Github
    } else if stdout_tty {
        Format::Pretty
    } else {
        Format::Short
    });
    let width = terminal_width().unwrap_or(100);
    let render = RenderOptions {
        color,
        width,
        quiet: args.quiet,
        root: std::env::current_dir()
            .ok()
            .and_then(|cwd| report::repository_root(&cwd).or(Some(cwd))),
        link_base: github_blob_url(),
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(err) = report::render(format, &outcome, render.clone(), &mut stdout) {
        if err.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("ownerlint: cannot write the report: {err}");
        }
        return 2;
    }
    for (report_format, path) in &args.report {
        let written = std::fs::File::create(path).and_then(|file| {
            let mut file = std::io::BufWriter::new(file);
            report::render(*report_format, &outcome, render.clone(), &mut file)?;
            file.flush()
        });
        if let Err(err) = written {
            eprintln!(
                "ownerlint: cannot write the report {}: {err}",
                path.display()
            );
            return 2;
        }
    }
    if !matches!(format, Format::Pretty | Format::Github) {
        for error in &outcome.errors {
            eprintln!("ownerlint: {}: {}", error.path, error.message);
        }
    }
    eprintln!("{}", report::summary_line(&outcome));
    let threshold = match args.fail_on {
        FailOn::Info => Severity::Info,
        FailOn::Warning => Severity::Warning,
        FailOn::Error => Severity::Error,
    };
    if !outcome.errors.is_empty() {
        2
    } else if outcome.findings.iter().any(|f| f.severity >= threshold) {
        1
    } else {
        0
    }
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

fn terminal_width() -> Option<usize> {
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok())
}
