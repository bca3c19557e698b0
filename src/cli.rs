//! The command-line interface: its clap definitions, and each command passed to `run`, which
//! does it, with its flags as plain data. `main.rs` only runs it.

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::catalog::KubeVersion;
use crate::config::Flags;
use crate::load::ModeChoice;
use crate::report::Format;
use crate::rules;
use crate::run::{ColorChoice, DeletePreview, FailOn, Lint, PreviewFormat, Streams, Tree, note};

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
    /// Read the cluster of a kubeconfig context (GET requests only: nothing is ever written to
    /// it) and lint it as a complete snapshot, with exact scopes and versions from its discovery
    #[cfg(feature = "cluster")]
    Cluster(Box<ClusterArgs>),
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
    /// Start at this object (`TYPE/NAME` as kubectl takes it, e.g. `deploy/api`, in the namespace of -n); a first argument `TYPE/NAME` that is no file or folder is taken for it, as kubectl-tree does
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
    pub live: LiveArgs,
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
    pub live: LiveArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Which cluster to read, with kubectl's flags and meanings.
#[derive(Args, Debug)]
pub struct ConnectionArgs {
    /// Path to the kubeconfig file [default: KUBECONFIG, else ~/.kube/config, else the Pod's service account]
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, help_heading = "Cluster")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use [default: its current context]
    #[arg(long, value_name = "NAME", help_heading = "Cluster")]
    pub context: Option<String>,
    /// Read only this namespace (and no cluster-scoped object: references to one are not checked)
    #[arg(short = 'n', long, value_name = "NAMESPACE", help_heading = "Cluster")]
    pub namespace: Option<String>,
    /// Read every namespace (the default)
    #[arg(
        short = 'A',
        long,
        conflicts_with = "namespace",
        help_heading = "Cluster"
    )]
    pub all_namespaces: bool,
    /// How long one request may take before the server is taken to have stopped answering,
    /// as kubectl's: `30s`, `2m`, `1h`, a number of seconds, or 0 for no limit [default: 60s]
    #[arg(long, value_name = "DURATION", value_parser = parse_request_timeout, help_heading = "Cluster")]
    pub request_timeout: Option<std::time::Duration>,
}

/// `tree` and `delete-preview` against a live cluster instead of files; the context is
/// `--context` and the namespace of `TYPE/NAME` is `-n`, as for files.
#[derive(Args, Debug)]
pub struct LiveArgs {
    /// Read the live cluster of the kubeconfig context (--context NAME; GET requests only), as `ownerlint cluster` does, instead of files
    #[arg(long, help_heading = "Cluster")]
    pub cluster: bool,
    /// With --cluster: the kubeconfig file [default: KUBECONFIG, else ~/.kube/config, else the Pod's service account]
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, requires = "cluster", help_heading = "Cluster")]
    pub kubeconfig: Option<PathBuf>,
    /// With --cluster: how long one request may take (`30s`, `2m`, 0 for no limit) [default: 60s]
    #[arg(long, value_name = "DURATION", value_parser = parse_request_timeout, requires = "cluster", help_heading = "Cluster")]
    pub request_timeout: Option<std::time::Duration>,
}

impl LiveArgs {
    /// The connection to read, when `--cluster` is given.
    fn connection(&self, input: &InputArgs) -> Option<crate::cluster::Connection> {
        self.cluster.then(|| crate::cluster::Connection {
            kubeconfig: self.kubeconfig.clone(),
            context: input.context.clone(),
            request_timeout: self.request_timeout,
        })
    }
}

/// `ownerlint cluster`'s flags: the connection, where to save, and the lint's own.
#[cfg(feature = "cluster")]
#[derive(Args, Debug)]
pub struct ClusterArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// Also write what was read into DIR, a new or empty folder (discovery.json,
    /// cluster-scoped.json, namespaces/NAMESPACE.json, and not-read.json naming what could not
    /// be read), which `ownerlint --complete DIR` reads later with the same findings
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub save: Option<PathBuf>,
    /// Configuration file [default: the nearest .ownerlint.yaml upwards, up to the repository root]
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub config: Option<PathBuf>,
    /// Do not read a configuration file
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// How findings are reported: shared by linting files and `ownerlint cluster`.
#[derive(Args, Debug)]
pub struct OutputArgs {
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
}

/// kubectl's `--request-timeout`: a number of seconds, or a Go duration (`1m30s`); 0 (no
/// limit) is `Duration::ZERO`.
fn parse_request_timeout(text: &str) -> Result<std::time::Duration, String> {
    let bad = || format!("expected a duration like 30s, 2m or 1h, got \"{text}\"");
    if let Ok(seconds) = text.parse::<u64>() {
        // 0, no limit, is `Duration::ZERO`.
        return Ok(std::time::Duration::from_secs(seconds));
    }
    let mut total = 0f64;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let number: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        total += number * scale;
        rest = &rest[unit_len..];
    }
    std::time::Duration::try_from_secs_f64(total).map_err(|_| bad())
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
    /// Objects that already exist (e.g. a dump of the target cluster): owners may resolve to them, and they are not linted (repeatable)
    #[arg(long, value_name = "PATH", value_hint = clap::ValueHint::AnyPath)]
    pub existing: Vec<PathBuf>,
    /// kubectl's flag for a kubeconfig context: with `--cluster` (tree, delete-preview), the
    /// context to read; refused otherwise (it was the earlier name of --existing)
    #[arg(long, value_name = "NAME", hide = true)]
    pub context: Option<String>,
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
    /// Let kustomize fetch the remote bases, resources, components and files that overlays name
    /// (git over HTTPS or SSH, with your PATH, home, SSH agent and proxies; never a reference
    /// with a part that starts with `-`). Without it an overlay that names one is not built and
    /// is reported; a configuration file cannot turn this on
    #[arg(long)]
    pub allow_remote_bases: bool,
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
            existing,
            project,
            git_deletions,
            include,
            exclude,
            max_document_size,
            max_alias_nodes,
            max_depth,
            no_mmap: _,
            context: _,
            no_render,
            release_name,
            values,
            set,
            render_timeout,
            allow_remote_bases,
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
            existing: existing.clone(),
            include: include.clone(),
            exclude: exclude.clone(),
            no_render: *no_render,
            release_name: release_name.clone(),
            values: values.clone(),
            set: set.clone(),
            render_timeout: render_timeout.map(std::time::Duration::from_secs),
            allow_remote_bases: *allow_remote_bases,
        }
    }
}

/// The lint run gets the flags as plain data, as `config` does.
impl From<LintArgs> for Lint {
    fn from(args: LintArgs) -> Self {
        let LintArgs {
            input,
            output,
            fix,
            unsafe_fixes,
            diff,
            show_fixes,
            show_inputs,
        } = args;
        Lint {
            fix,
            unsafe_fixes,
            diff,
            show_fixes,
            show_inputs,
            ..output.lint(Flags::from(&input))
        }
    }
}

impl OutputArgs {
    /// A lint run of `input` reported as these flags say, fixing nothing.
    fn lint(self, input: Flags) -> Lint {
        let OutputArgs {
            format,
            fail_on,
            no_suppress,
            baseline,
            write_baseline,
            quiet,
            color,
            report,
        } = self;
        Lint {
            input,
            format,
            fail_on,
            no_suppress,
            baseline,
            write_baseline,
            quiet,
            color,
            report,
            fix: false,
            unsafe_fixes: false,
            diff: false,
            show_fixes: false,
            show_inputs: false,
            given: None,
        }
    }
}

#[cfg(feature = "cluster")]
impl From<ClusterArgs> for crate::run::ClusterLint {
    fn from(args: ClusterArgs) -> Self {
        let ClusterArgs {
            connection:
                ConnectionArgs {
                    kubeconfig,
                    context,
                    namespace,
                    all_namespaces: _,
                    request_timeout,
                },
            save,
            config,
            no_config,
            output,
        } = args;
        use std::io::IsTerminal;
        crate::run::ClusterLint {
            lint: output.lint(Flags {
                config,
                no_config,
                ..Flags::default()
            }),
            connection: crate::cluster::Connection {
                kubeconfig,
                context,
                request_timeout,
            },
            scope: crate::cluster::read::Scope { namespace },
            save,
            progress: std::io::stderr().is_terminal(),
        }
    }
}

impl From<TreeArgs> for Tree {
    fn from(args: TreeArgs) -> Self {
        let TreeArgs {
            root,
            kind,
            format,
            color,
            live,
            input,
        } = args;
        Tree {
            live: live.connection(&input),
            input: Flags::from(&input),
            root,
            kind,
            format,
            color,
        }
    }
}

impl From<PreviewArgs> for DeletePreview {
    fn from(args: PreviewArgs) -> Self {
        let PreviewArgs {
            target,
            cascade,
            format,
            live,
            input,
        } = args;
        DeletePreview {
            live: live.connection(&input),
            input: Flags::from(&input),
            target,
            cascade,
            format,
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
    #[command(flatten)]
    pub output: OutputArgs,
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

/// `--context` where no cluster is read (it was the earlier spelling of `--existing`):
/// refused, with the new name and what `--context` means.
fn refuse_context(input: &InputArgs, reads_a_cluster: bool) -> Option<i32> {
    if input.context.is_none() || reads_a_cluster {
        return None;
    }
    note!(
        std::io::stderr(),
        "ownerlint: `--context` is kubectl's flag for a kubeconfig context, which `ownerlint \
         cluster` (and `tree` and `delete-preview` with --cluster) read; objects that already \
         exist (a dump of the target cluster) are passed with `--existing PATH`"
    );
    Some(2)
}

fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    let version = KubeVersion::parse(text)
        .ok_or_else(|| format!("expected a release like 1.34, got \"{text}\""))?;
    match version.unknown_because() {
        Some(why) => Err(why),
        None => Ok(version),
    }
}

/// Parse this process's command line, or print why it does not parse and exit, as clap does.
/// A subcommand written after options is read as the subcommand (see `argv`). Run as the
/// kubectl plugin `kubectl-ownerlint`, usage, help and errors name it `kubectl ownerlint`, as
/// the user typed it.
pub fn parse() -> Cli {
    let args = crate::argv::of_process();
    let program = program_name(args.first().map(std::ffi::OsString::as_os_str));
    let mut command = Cli::command();
    if program != "ownerlint" {
        command = command.bin_name(program);
    }
    let (args, moved) = match crate::argv::arrange(&mut command, args) {
        crate::argv::Arranged::Args { args, moved } => (args, moved),
        crate::argv::Arranged::Mistyped { word, suggestion } => {
            note!(
                std::io::stderr(),
                "{program}: `{word}` is neither a subcommand nor a file or directory \
                 (did you mean `{suggestion}`?)"
            );
            std::process::exit(2);
        }
    };
    let parsed = command.try_get_matches_from_mut(&args).and_then(|matches| {
        Cli::from_arg_matches(&matches).map_err(|err| err.format(&mut command))
    });
    match parsed {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            if moved && err.kind() == clap::error::ErrorKind::UnknownArgument {
                let subcommand = args[1].to_string_lossy();
                note!(
                    std::io::stderr(),
                    "note: `{subcommand}` was read as the subcommand; to lint a path of that \
                     name, write `./{subcommand}`"
                );
            }
            std::process::exit(err.exit_code());
        }
    }
}

/// How the user ran ownerlint: `kubectl ownerlint` when the program file is the kubectl plugin
/// `kubectl-ownerlint` (kubectl runs a plugin with its path as the program name), else
/// `ownerlint`, whatever the file is called.
pub(crate) fn program_name(argv0: Option<&std::ffi::OsStr>) -> &'static str {
    let file = argv0.and_then(|path| std::path::Path::new(path).file_name());
    let stem = file.map(|name| {
        let name = name.to_string_lossy();
        match name.strip_suffix(".exe") {
            Some(stem) => stem.to_owned(),
            None => name.into_owned(),
        }
    });
    match stem.as_deref() {
        Some("kubectl-ownerlint") => "kubectl ownerlint",
        _ => "ownerlint",
    }
}

/// Run the command line; returns the exit code. No build's tool outlives it (the language
/// server's `exit` may come while one runs).
pub fn run(cli: Cli) -> i32 {
    let code = run_command(cli);
    crate::build::end_every_build();
    code
}

fn run_command(cli: Cli) -> i32 {
    match cli.command {
        Some(Command::Rules) => crate::run::list_rules(&mut Streams::process()),
        Some(Command::Explain { rule }) => crate::run::explain(&rule, &mut Streams::process()),
        #[cfg(feature = "cluster")]
        Some(Command::Cluster(args)) => {
            crate::run::cluster((*args).into(), &mut Streams::process())
        }
        Some(Command::Tree(args)) => match refuse_context(&args.input, args.live.cluster) {
            Some(code) => code,
            None => crate::run::tree((*args).into(), &mut Streams::process()),
        },
        Some(Command::DeletePreview(args)) => {
            match refuse_context(&args.input, args.live.cluster) {
                Some(code) => code,
                None => crate::run::delete_preview((*args).into(), &mut Streams::process()),
            }
        }
        Some(Command::Config { input }) => match refuse_context(&input, false) {
            Some(code) => code,
            None => crate::run::show_config(&Flags::from(&*input), &mut Streams::process()),
        },
        Some(Command::Completions { shell }) => crate::run::print_out(
            &mut Streams::process(),
            crate::completions::script(Cli::command(), shell),
            0,
        ),
        Some(Command::Server) => match crate::server::run() {
            Ok(ending) => ending.status(),
            Err(message) => {
                note!(std::io::stderr(), "ownerlint server: {message}");
                2
            }
        },
        Some(Command::Man) => match crate::manpage::page(
            Cli::command(),
            InputArgs::augment_args(clap::Command::new("input")),
        ) {
            Ok(page) => crate::run::print_out(&mut Streams::process(), page, 0),
            Err(err) => {
                note!(
                    std::io::stderr(),
                    "ownerlint: cannot write the man page: {err}"
                );
                2
            }
        },
        None => match refuse_context(&cli.lint.input, false) {
            Some(code) => code,
            None => crate::run::lint(cli.lint.into(), &mut Streams::process()),
        },
    }
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
