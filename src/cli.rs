//! The command-line interface, defined with clap. `main.rs` only runs it.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::catalog::KubeVersion;
use crate::config::{self, ConfigError, Flags};
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
        #[arg(value_parser = RuleId, hide_possible_values = true)]
        rule: String,
    },
    /// Print a shell completion script (e.g. `ownerlint completions bash > /etc/bash_completion.d/ownerlint`)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `ownerlint man > ownerlint.1`
    Man,
    /// Draw the ownership graph: roots are objects without owners and owners that do not resolve
    Tree(Box<TreeArgs>),
    /// Show what deleting an object would delete with it, as the garbage collector would
    DeletePreview(Box<PreviewArgs>),
    /// Print the effective configuration (file and flags) and where each value came from
    Config {
        #[command(flatten)]
        input: Box<InputArgs>,
    },
    /// Serve the Language Server Protocol on standard input and output, for editors: every
    /// workspace folder linted as you type, with hover, go to definition, find references and
    /// quick fixes
    Server,
}

#[derive(Args, Debug)]
pub struct TreeArgs {
    /// Start at this object (`TYPE/NAME` as kubectl takes it, e.g. `deploy/api`, in the namespace of -n)
    #[arg(long, value_name = "TYPE/NAME")]
    pub root: Option<String>,
    /// Only trees that hold objects of this kind
    #[arg(long)]
    pub kind: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::tree::TreeFormat,
    /// When to use colour
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Args, Debug)]
pub struct PreviewArgs {
    /// The object to delete, as `kubectl delete` takes it: `TYPE/NAME`, e.g. `rs/web` or `replicasets.apps/web` (in the namespace of -n)
    pub target: String,
    /// How the delete propagates, as `kubectl delete --cascade`
    #[arg(long, value_enum, default_value = "background")]
    pub cascade: crate::preview::Cascade,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub format: PreviewFormat,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PreviewFormat {
    Text,
    Json,
}

/// What to read, and how: shared by linting, `tree`, `delete-preview` and `config`.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// Files and directories to read [default: .]; `-` reads standard input
    #[arg(value_hint = clap::ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
    /// Configuration file [default: the nearest .ownerlint.yaml upwards, up to the repository root]
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub config: Option<PathBuf>,
    /// Do not read a configuration file
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
    /// Namespace of namespaced objects that name none, as with `kubectl -n` [default: default]
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// Manifests to apply (fresh uids), a cluster snapshot (real uids), or decide per document [default: auto]
    #[arg(long, value_enum)]
    pub mode: Option<ModeChoice>,
    /// The input is the whole cluster or release: an owner that is not found does not exist
    #[arg(long)]
    pub complete: bool,
    /// Kubernetes release to check API versions against [default: newest known]
    #[arg(long, value_parser = parse_kube_version)]
    pub kube_version: Option<KubeVersion>,
    /// Directory or file of CustomResourceDefinitions that declare custom kinds (repeatable)
    #[arg(long, value_name = "PATH", value_hint = clap::ValueHint::AnyPath)]
    pub crds: Vec<PathBuf>,
    /// Objects that exist (e.g. a dump of the target cluster): owners may resolve to them, and they are not linted (repeatable)
    #[arg(long, value_name = "PATH", value_hint = clap::ValueHint::AnyPath)]
    pub context: Vec<PathBuf>,
    /// The rest of the project: read so that owners defined there resolve, without reporting on
    /// it; findings are reported only for PATHS (for pre-commit, which passes changed files)
    #[arg(long, value_name = "PATH", value_hint = clap::ValueHint::AnyPath)]
    pub project: Vec<PathBuf>,
    /// Also check what the git change deletes: the YAML and JSON files deleted in the index
    /// (or between PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF), read as they were; a reference
    /// in the --project to an object only they defined is an error. With no PATHS, nothing else
    /// is linted (for pre-commit, whose commit may only delete files)
    #[arg(long)]
    pub git_deletions: bool,
    /// Only read files in walked directories that match this glob (repeatable)
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip files in walked directories that match this glob (repeatable)
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Largest document (or List item) to parse, e.g. 512MiB; larger ones are reported, not read
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "512MiB")]
    pub max_document_size: usize,
    /// Most nodes that YAML aliases may copy into one document
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub max_alias_nodes: usize,
    /// Deepest nesting of mappings and lists in a document
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_depth: usize,
    /// Accepted for scripts written for earlier versions, which mapped big files; no file is
    /// mapped now, so it changes nothing
    #[arg(long, hide = true)]
    pub no_mmap: bool,
    /// Read Helm charts and Kustomize overlays file by file instead of building them with
    /// `helm template` and `kustomize build`
    #[arg(long)]
    pub no_render: bool,
    /// Release name for `helm template` [default: release-name]
    #[arg(long, value_name = "NAME")]
    pub release_name: Option<String>,
    /// Values file for `helm template`, applied to every chart built (repeatable, as helm's
    /// --values)
    #[arg(long = "values", value_name = "FILE", value_parser = values_file())]
    pub values: Vec<PathBuf>,
    /// A value for `helm template`, e.g. `--set image.tag=1.2`, applied to every chart built
    /// (repeatable, as helm's --set)
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_set)]
    pub set: Vec<String>,
    /// Seconds a chart's or overlay's build may take before it is stopped, with every process
    /// it started, and reported as not built [default: 300]
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub render_timeout: Option<u64>,
}

/// `config` does the layering and knows nothing of clap: it gets the layered flags as plain data.
impl From<&InputArgs> for Flags {
    fn from(args: &InputArgs) -> Self {
        // Destructured so that a new flag is either passed on or named here as unused.
        let InputArgs {
            paths,
            config,
            no_config,
            namespace,
            mode,
            complete,
            kube_version,
            crds,
            context,
            project,
            git_deletions,
            include,
            exclude,
            max_document_size,
            max_alias_nodes,
            max_depth,
            no_mmap: _,
            no_render,
            release_name,
            values,
            set,
            render_timeout,
        } = args;
        Flags {
            paths: paths.clone(),
            project: project.clone(),
            git_deletions: *git_deletions,
            limits: crate::yaml::Limits {
                max_depth: *max_depth,
                max_alias_nodes: *max_alias_nodes,
                max_document_size: *max_document_size,
            },
            config: config.clone(),
            no_config: *no_config,
            namespace: namespace.clone(),
            mode: *mode,
            complete: *complete,
            kube_version: *kube_version,
            crds: crds.clone(),
            context: context.clone(),
            include: include.clone(),
            exclude: exclude.clone(),
            no_render: *no_render,
            release_name: release_name.clone(),
            values: values.clone(),
            set: set.clone(),
            render_timeout: render_timeout.map(std::time::Duration::from_secs),
        }
    }
}

/// `1048576`, `512KiB`, `64MiB`, `1GiB` (also `K`, `M`, `G`, `KB`, `MB`, `GB`, as powers of 1024).
fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: usize = number
        .parse()
        .map_err(|_| format!("expected a size like 512MiB, got \"{text}\""))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "unknown unit \"{unit}\" in \"{text}\" (use KiB, MiB or GiB)"
            ));
        }
    };
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("\"{text}\" is too large"))
}

#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format [default: github when GITHUB_ACTIONS=true, else pretty on a terminal, short otherwise]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Exit with 1 when a finding has at least this severity
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Show every finding: ignore `# ownerlint: ignore[…]` comments and `ownerlint.dev/ignore` annotations
    #[arg(long)]
    pub no_suppress: bool,
    /// Report only findings that are not in this baseline (written by --write-baseline)
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Record today's findings in FILE, to be hidden later with --baseline, and exit 0
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
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
    /// Apply the safe fixes, then report what is left (standard input: print the fixed text)
    #[arg(long, help_heading = "Fixes", conflicts_with = "write_baseline")]
    pub fix: bool,
    /// With --fix or --diff, apply the unsafe fixes too
    #[arg(long, help_heading = "Fixes")]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff and write nothing
    #[arg(long, help_heading = "Fixes", conflicts_with_all = ["fix", "write_baseline"])]
    pub diff: bool,
    /// With --fix, list each fix applied
    #[arg(long, help_heading = "Fixes", requires = "fix")]
    pub show_fixes: bool,
    /// List what was checked: each chart and overlay met (built, failed or skipped, and why)
    /// and each file linted on its own (on standard error)
    #[arg(long)]
    pub show_inputs: bool,
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

/// `--values FILE`: a file that exists (a URL is helm's to fetch). A missing file is a usage
/// error, found before anything is built.
fn values_file() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(|text| {
        let path = PathBuf::from(text);
        if path.to_string_lossy().contains("://") {
            return Ok(path);
        }
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => Err("a directory, not a values file".to_string()),
            Ok(_) => Ok(path),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                Err("no such file".to_string())
            }
            Err(err) => Err(format!("cannot be read: {err}")),
        }
    })
}

/// `--set KEY=VALUE` (helm's syntax: `a.b=1,c=2`): a value without a key is a usage error.
fn parse_set(text: &str) -> Result<String, String> {
    match text.split_once('=') {
        Some((key, _)) if !key.trim().is_empty() => Ok(text.to_string()),
        _ => Err("expected KEY=VALUE, e.g. image.tag=1.2".to_string()),
    }
}

fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    let version = KubeVersion::parse(text)
        .ok_or_else(|| format!("expected a release like 1.34, got \"{text}\""))?;
    match version.unknown_because() {
        Some(why) => Err(why),
        None => Ok(version),
    }
}

/// `eprintln!` without its panic: standard error may be a closed pipe too (`2>&1 | head`),
/// and a message nobody can read is no reason to crash.
/// A line (or lines) on standard error, with what the inputs put in it (paths, messages)
/// escaped as every human format escapes it (`report::escape`).
macro_rules! note {
    ($($arg:tt)*) => {{
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", crate::report::escape::lines(&line));
    }};
}

/// Parse this process's command line, or print why it does not parse and exit, as clap does.
/// A subcommand written after options is read as the subcommand (see `argv`).
pub fn parse() -> Cli {
    let mut command = Cli::command();
    let (args, moved) = match crate::argv::arrange(&mut command, crate::argv::of_process()) {
        crate::argv::Arranged::Args { args, moved } => (args, moved),
        crate::argv::Arranged::Mistyped { word, suggestion } => {
            note!(
                "ownerlint: `{word}` is neither a subcommand nor a file or directory \
                 (did you mean `{suggestion}`?)"
            );
            std::process::exit(2);
        }
    };
    match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            if moved && err.kind() == clap::error::ErrorKind::UnknownArgument {
                let subcommand = args[1].to_string_lossy();
                note!(
                    "note: `{subcommand}` was read as the subcommand; to lint a path of that \
                     name, write `./{subcommand}`"
                );
            }
            std::process::exit(err.exit_code());
        }
    }
}

/// Run the command line; returns the exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Some(Command::Rules) => print_out(rules_list(), 0),
        Some(Command::Explain { rule }) => explain(&rule),
        Some(Command::Tree(args)) => tree(*args),
        Some(Command::DeletePreview(args)) => delete_preview(*args),
        Some(Command::Config { input }) => match config::effective(&Flags::from(&*input)) {
            Ok(effective) => print_out(effective.describe(), 0),
            Err(errors) => config_errors(&errors),
        },
        Some(Command::Completions { shell }) => {
            print_out(crate::completions::script(Cli::command(), shell), 0)
        }
        Some(Command::Server) => match crate::server::run() {
            Ok(ending) => ending.status(),
            Err(message) => {
                note!("ownerlint server: {message}");
                2
            }
        },
        Some(Command::Man) => match crate::manpage::render(
            Cli::command(),
            InputArgs::augment_args(clap::Command::new("input")),
        ) {
            Ok(page) => print_out(page, 0),
            Err(err) => {
                note!("ownerlint: cannot write the man page: {err}");
                2
            }
        },
        None => lint(cli.lint),
    }
}

fn rules_list() -> String {
    rules::RULES
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
        .collect()
}

/// A rule id, as `explain` takes it: any word (an unknown one is told with a suggestion), with
/// the ids as possible values for shell completion.
#[derive(Clone)]
struct RuleId;

impl clap::builder::TypedValueParser for RuleId {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            rules::RULES
                .iter()
                .map(|r| clap::builder::PossibleValue::new(r.meta.id)),
        ))
    }
}

fn explain(id: &str) -> i32 {
    match rules::find(id) {
        Some(rule) => print_out(format!("{}\n", rule.meta.doc.trim_end()), 0),
        None => {
            let ids: Vec<&str> = rules::RULES.iter().map(|r| r.meta.id).collect();
            let hint = rules::did_you_mean(id, &ids)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            note!("ownerlint: no rule `{id}`{hint}; `ownerlint rules` lists them");
            2
        }
    }
}

fn config_errors(errors: &[ConfigError]) -> i32 {
    for error in errors {
        note!("ownerlint: {error}");
    }
    2
}

/// The options of a run over `input`, or the configuration's errors.
fn options(input: InputArgs) -> Result<crate::analysis::Options, Vec<ConfigError>> {
    let cwd = std::env::current_dir().ok();
    let unsaved = std::collections::HashMap::new();
    config::options(&Flags::from(&input), cwd.as_deref(), &unsaved)
}

/// The chart options given (`--values`, `--set`), and whether charts are built at all, for
/// [`ChartFlags::unused`] to tell after the run whether they were used.
struct ChartFlags {
    given: Vec<&'static str>,
    no_render: bool,
}

impl ChartFlags {
    fn of(input: &InputArgs) -> Self {
        let given = [
            ("--values", !input.values.is_empty()),
            ("--set", !input.set.is_empty()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect();
        ChartFlags {
            given,
            no_render: input.no_render,
        }
    }

    /// The warning for chart options that no chart took: they are not an error, since one
    /// command line (a hook's, a CI job's) meets inputs with and without charts.
    fn unused(&self, stats: &crate::analysis::Stats) -> Option<String> {
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

/// Read and resolve the input of a graph command; report unreadable inputs on stderr. Also
/// the namespace `KIND/NAME` is looked up in: `-n`, else the configuration's, else `default`.
fn analyze(input: InputArgs) -> Result<(crate::analysis::Analysis, String), i32> {
    let chart_flags = ChartFlags::of(&input);
    let options = options(input).map_err(|errors| config_errors(&errors))?;
    let analysis = crate::pipeline::analyze(&options, &mut std::io::stdin().lock());
    if let Some(warning) = chart_flags.unused(&analysis.outcome.stats) {
        note!("{warning}");
    }
    for error in &analysis.outcome.errors {
        note!("ownerlint: {}: {}", error.path, error.message);
    }
    Ok((analysis, options.namespace))
}

fn tree(args: TreeArgs) -> i32 {
    let namespace = args.input.namespace.clone();
    let (analysis, lookup_namespace) = match analyze(args.input) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let graph = crate::graph::Graph::build(&analysis, analysis.complete);
    let root = match &args.root {
        Some(spec) => match crate::target::find(&analysis, spec, &lookup_namespace) {
            Ok(id) => Some(id),
            Err(message) => {
                note!("ownerlint: {message}");
                return 2;
            }
        },
        None => None,
    };
    let filter = crate::tree::TreeFilter {
        root,
        namespace: if root.is_some() { None } else { namespace },
        kind: args.kind,
    };
    let forest = crate::tree::Forest::new(&analysis, &graph, &filter);
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let text = match args.format {
        crate::tree::TreeFormat::Text => crate::tree::text(&forest, color),
        crate::tree::TreeFormat::Json => crate::tree::json(&forest),
        crate::tree::TreeFormat::Dot => crate::tree::dot(&forest),
        crate::tree::TreeFormat::Mermaid => crate::tree::mermaid(&forest),
    };
    let code = if analysis.outcome.errors.is_empty() {
        0
    } else {
        2
    };
    print_out(text, code)
}

fn delete_preview(args: PreviewArgs) -> i32 {
    let (analysis, namespace) = match analyze(args.input) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let target = match crate::target::find(&analysis, &args.target, &namespace) {
        Ok(id) => id,
        Err(message) => {
            note!("ownerlint: {message}");
            return 2;
        }
    };
    let graph = crate::graph::Graph::build(&analysis, analysis.complete);
    let preview = crate::preview::preview(&graph, target, args.cascade);
    let text = match args.format {
        PreviewFormat::Text => crate::preview::text(&analysis, &preview),
        PreviewFormat::Json => crate::preview::json(&analysis, &preview),
    };
    let code = if analysis.outcome.errors.is_empty() {
        0
    } else {
        2
    };
    print_out(text, code)
}

/// Print to stdout and return `code`, or what a failed write means instead.
fn print_out(text: impl AsRef<[u8]>, code: i32) -> i32 {
    let mut stdout = std::io::stdout().lock();
    let result = stdout.write_all(text.as_ref());
    written(result.and_then(|()| stdout.flush()), code)
}

/// The exit code after writing the output. A closed pipe (`| head`) is the reader saying it
/// has seen enough, not a failure: end quietly with 0, as ripgrep and ruff do.
fn written(result: std::io::Result<()>, code: i32) -> i32 {
    match result {
        Ok(()) => code,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(err) => {
            note!("ownerlint: cannot write the output: {err}");
            2
        }
    }
}

fn lint(args: LintArgs) -> i32 {
    // `cat x.yaml | ownerlint` lints `.`, as ruff and yamllint do; the piped text is not taken
    // for a file silently, and the user is told how to lint it.
    if args.input.paths.is_empty() && stdin_has_data() {
        note!(
            "ownerlint: standard input was not read: with no path, ownerlint lints the current folder; name standard input `-` to lint what is piped in (`… | ownerlint -`)"
        );
    }
    let chart_flags = ChartFlags::of(&args.input);
    let options = match options(args.input) {
        Ok(options) => crate::analysis::Options {
            no_suppress: args.no_suppress,
            ..options
        },
        Err(errors) => return config_errors(&errors),
    };
    // Read before anything is fixed: a broken baseline ends the run with nothing written.
    let baseline = match &args.baseline {
        Some(path) => match crate::baseline::read(path) {
            Ok(entries) => Some(entries),
            Err(message) => {
                note!("ownerlint: {message}");
                return 2;
            }
        },
        None => None,
    };
    if args.unsafe_fixes && !(args.fix || args.diff) {
        note!("ownerlint: --unsafe-fixes goes with --fix or --diff");
        return 2;
    }
    let (analysis, fixed) = if args.fix || args.diff {
        match fix(args.unsafe_fixes, args.diff, &options) {
            Ok(done) => done,
            Err(code) => return code,
        }
    } else {
        (
            crate::pipeline::analyze(&options, &mut std::io::stdin().lock()),
            Fixed::default(),
        )
    };
    let crate::analysis::Analysis {
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
        note!("{warning}");
    }
    let root = std::env::current_dir()
        .ok()
        .and_then(|cwd| report::repository_root(&cwd).or(Some(cwd)));
    if let Some(path) = &args.write_baseline {
        return match crate::baseline::write(path, &outcome, root.as_deref()) {
            Ok(count) => {
                note!(
                    "ownerlint: recorded {} in {}",
                    report::plural(count, "finding"),
                    path.display()
                );
                if outcome.errors.is_empty() { 0 } else { 2 }
            }
            Err(message) => {
                note!("ownerlint: {message}");
                2
            }
        };
    }
    if let Some(entries) = &baseline {
        outcome.stats.baselined = crate::baseline::apply(&mut outcome, entries, root.as_deref());
    }
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
    let render = RenderOptions {
        color,
        width: report::pretty::terminal_width(),
        quiet: args.quiet,
        root,
        link_base: github_blob_url(),
    };
    outcome.stats.fixed = fixed.applied.len();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    // A failed standard output still leaves the --report files and the summary to write.
    let shown = match &fixed.stdin {
        // Standard input fixed: its text is the output, and the report goes to standard error.
        Some(text) => {
            let _ = report::render(format, &outcome, render.clone(), &mut std::io::stderr());
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
        }
        None => report::render(format, &outcome, render.clone(), &mut stdout)
            .and_then(|()| stdout.flush()),
    };
    drop(stdout);
    // A file is read later, elsewhere: no colour, and not the width of this terminal.
    let file_render = RenderOptions {
        color: false,
        width: report::pretty::file_width(),
        ..render.clone()
    };
    for (report_format, path) in &args.report {
        let written = std::fs::File::create(path).and_then(|file| {
            let mut file = std::io::BufWriter::new(file);
            report::render(*report_format, &outcome, file_render.clone(), &mut file)?;
            file.flush()
        });
        if let Err(err) = written {
            note!(
                "ownerlint: cannot write the report {}: {err}",
                path.display()
            );
            return 2;
        }
    }
    if !matches!(format, Format::Pretty | Format::Github) {
        for error in &outcome.errors {
            note!("ownerlint: {}: {}", error.path, error.message);
        }
    }
    // Showing the findings reads their lines: a file can be found changed only now.
    let late = crate::read::changed_inputs(&outcome.sources, &outcome.errors);
    for error in &late {
        note!("ownerlint: {}: {}", error.path, error.message);
    }
    outcome.errors.extend(late);
    if args.show_fixes {
        for applied in &fixed.applied {
            note!(
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
        note!("ownerlint: {error}");
    }
    for skipped in &outcome.skipped_paths {
        note!("ownerlint: warning: {}: {}", skipped.path, skipped.message);
    }
    if args.show_inputs {
        for line in report::inputs_lines(&outcome) {
            note!("{line}");
        }
    }
    let stats = &outcome.stats;
    let read_nothing = stats.files + stats.charts + stats.overlays == 0;
    // (A chart or an overlay that could not be built is a finding.)
    if read_nothing && outcome.errors.is_empty() && outcome.findings.is_empty() {
        note!("ownerlint: {}", nothing_to_lint(&options));
    } else {
        note!("{}", report::summary_line(&outcome));
        if let Some(line) = report::fixable_line(&outcome, args.fix.then_some(args.unsafe_fixes)) {
            note!("{line}");
        }
    }
    let threshold = match args.fail_on {
        FailOn::Info => Severity::Info,
        FailOn::Warning => Severity::Warning,
        FailOn::Error => Severity::Error,
    };
    let status = if !outcome.errors.is_empty() || !fixed.errors.is_empty() {
        2
    } else if outcome.findings.iter().any(|f| f.severity >= threshold) {
        1
    } else {
        0
    };
    std::mem::forget(outcome);
    written(shown, status)
}

/// What `--fix` did, for the rest of the run to report.
#[derive(Default)]
struct Fixed {
    applied: Vec<crate::fix::Applied>,
    /// Files that could not be written.
    errors: Vec<String>,
    /// Standard input, fixed: printed instead of the report, which goes to standard error.
    stdin: Option<String>,
}

/// `--fix` and `--diff`: fix in memory; `--diff` prints the diff and ends the run (its exit
/// code is the error), `--fix` writes the files and goes on to report what is left.
fn fix(
    unsafe_fixes: bool,
    diff: bool,
    options: &crate::analysis::Options,
) -> Result<(crate::analysis::Analysis, Fixed), i32> {
    use crate::finding::Applicability;
    let dash = |paths: &[PathBuf]| paths.iter().any(|p| p.as_os_str() == "-");
    // Standard input is read once, for whichever input it is (`--context -` too); its fixed
    // text is printed only when it is linted.
    let lints_stdin = dash(&options.paths);
    let reads_stdin =
        lints_stdin || dash(&options.context) || dash(&options.crds) || dash(&options.project);
    let mut stdin = Vec::new();
    if reads_stdin
        && let Err(err) = std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut stdin)
    {
        note!("ownerlint: cannot read standard input: {err}");
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
    let options = &crate::analysis::Options {
        big_file_at_least: None,
        ..options.clone()
    };
    let run = crate::fix::run(options, &stdin, at_least);
    for name in &run.refused {
        note!(
            "ownerlint: {name}: a fix would have left a document unreadable, so it was not applied; fix the rest by hand"
        );
    }
    if diff {
        for error in &run.analysis.outcome.errors {
            note!("ownerlint: {}: {}", error.path, error.message);
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
        note!("ownerlint: {done}{more}");
        let code = if !run.analysis.outcome.errors.is_empty() {
            2
        } else if files > 0 {
            1
        } else {
            0
        };
        return Err(print_out(crate::fix::diff(&run.changed), code));
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

/// Why a run read no file: the paths given hold no manifest it reads.
fn nothing_to_lint(options: &crate::analysis::Options) -> String {
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
