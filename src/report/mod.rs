//! Report: findings in the format the user asked for. One module per format.

pub mod escape;
pub mod github;
pub mod json;
pub mod markdown;
pub mod pretty;
pub mod sarif;
pub mod short;

use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use crate::analysis::Outcome;
use crate::finding::{Finding, Severity, TemplatePlace};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Source snippets with labels and help (the default on a terminal)
    Pretty,
    /// `path:line:col: severity[rule-id]: message`, one per line (the default otherwise)
    Short,
    /// A versioned JSON document
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers
    Sarif,
    /// GitHub Actions workflow commands: annotations on the pull request (the default when
    /// GITHUB_ACTIONS=true)
    Github,
    /// A Markdown summary: counts by rule and a table of findings (for $GITHUB_STEP_SUMMARY)
    Markdown,
}

#[derive(Clone, Debug)]
pub struct EmitOptions {
    pub color: bool,
    /// Terminal width for `pretty`.
    pub width: usize,
    /// Leave out info findings.
    pub quiet: bool,
    /// The repository root: `sarif`, `github` and `markdown` name files relative to it.
    pub root: Option<PathBuf>,
    /// Where `markdown` links point: `<base>/<path>#L<line>` (a GitHub blob URL); relative
    /// links when unset.
    pub link_base: Option<String>,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            color: false,
            width: pretty::DEFAULT_WIDTH,
            quiet: false,
            root: None,
            link_base: None,
        }
    }
}

pub fn emit(
    format: Format,
    outcome: &Outcome,
    options: EmitOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let shown: Vec<&Finding> = outcome
        .findings
        .iter()
        .filter(|f| !(options.quiet && f.severity == Severity::Info))
        .collect();
    match format {
        Format::Pretty => pretty::emit(outcome, &shown, &options, out),
        Format::Short => short::emit(outcome, &shown, out),
        Format::Json => json::emit(outcome, &shown, out),
        Format::Sarif => sarif::emit(outcome, &shown, &options, out),
        Format::Github => github::emit(outcome, &shown, &options, out),
        Format::Markdown => markdown::emit(outcome, &shown, &options, out),
    }
}

pub use crate::read::repository_root;

/// The key of a finding (`FindingKey`), with its path relative to `root`.
pub fn finding_key(
    outcome: &crate::analysis::Outcome,
    finding: &crate::finding::Finding,
    root: Option<&Path>,
) -> crate::finding::FindingKey {
    let source = outcome.source(finding.primary.source);
    crate::finding::FindingKey {
        rule: finding.rule.id.to_string(),
        path: repo_relative(&source.name, root),
        object: finding.object.clone(),
        label: finding.primary.message.clone(),
        field: source
            .text
            .str(finding.primary.span.start..finding.primary.span.end)
            .unwrap_or_default()
            .into_owned(),
    }
}

/// A source's path relative to `root`, with `/` separators, for formats that CI systems
/// resolve against the repository. Paths outside the root, and `<stdin>`, stay as they are.
pub fn repo_relative(name: &str, root: Option<&Path>) -> String {
    if name == crate::read::STDIN_NAME {
        return name.to_string();
    }
    let path = Path::new(name);
    let relative = root.and_then(|root| {
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(path)
        };
        normalize(&absolute)
            .strip_prefix(normalize(root))
            .ok()
            .map(Path::to_path_buf)
    });
    match relative {
        Some(relative) => relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        None => name.strip_prefix("./").unwrap_or(name).to_string(),
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system (the path may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Where a finding is shown in formats that annotate files: its primary label's place, or,
/// for a `helm template` stream on standard input, its place in the template.
pub fn place(outcome: &Outcome, finding: &Finding) -> TemplatePlace {
    if let Some(place) = &finding.in_template {
        return place.clone();
    }
    let source = outcome.source(finding.primary.source);
    let span = finding.primary.span;
    TemplatePlace {
        path: source.name.clone(),
        start: source.line_col(span.start),
        end: source.line_col(span.end.max(span.start)),
        rendered_line: None,
    }
}

/// Where a finding of `ownerlint cluster` is: the object's API path and the field, as
/// `/apis/apps/v1/namespaces/shop/replicasets/web-7d9#metadata.ownerReferences[1].uid`
/// (`kubectl get --raw` takes the path; the summary names the kubeconfig context). `None` for
/// a finding in a file: it has a line and a column instead.
pub fn live_location(outcome: &Outcome, finding: &Finding) -> Option<String> {
    let path = live_path(outcome, finding)?;
    Some(match &finding.field {
        Some(field) => format!("{path}#{field}"),
        None => path,
    })
}

/// The API path of the object a finding of `ownerlint cluster` is about (else the name of the
/// input it is in); `None` for a finding in a file.
pub fn live_path(outcome: &Outcome, finding: &Finding) -> Option<String> {
    let cluster = outcome.stats.cluster.as_ref()?;
    Some(
        finding
            .object
            .as_ref()
            .and_then(|object| cluster.object_path(object))
            .unwrap_or_else(|| outcome.source(finding.primary.source).name.clone()),
    )
}

/// The kubeconfig context `ownerlint cluster` read, for the commands a report prints.
pub fn live_context(outcome: &Outcome) -> Option<&str> {
    outcome.stats.cluster.as_ref()?.context.as_deref()
}

/// The message as printed, with the template it was rendered from.
pub fn message_with_origin(finding: &Finding) -> String {
    match &finding.origin {
        Some(origin) if origin.starts_with("Flux ") || origin.starts_with("Argo CD ") => {
            format!("{} (built by {origin})", finding.message)
        }
        Some(origin) => format!("{} (from {origin})", finding.message),
        None => finding.message.clone(),
    }
}

/// What a one-line message adds when the finding's position is only near its field (the
/// labels that `pretty` and JSON show say so themselves).
pub const APPROXIMATE: &str = "the position is approximate: the nearest place its source writes";

/// The message of formats that show no labels (`short`, `github`, SARIF, `markdown`): with the
/// build it came from, and whether its position is approximate.
pub fn one_line_message(finding: &Finding) -> String {
    let mut message = message_with_origin(finding);
    if finding.primary.approximate {
        message.push_str(&format!(" ({APPROXIMATE})"));
    }
    message
}

/// "1 error", "2 errors".
pub fn plural(n: usize, word: &str) -> String {
    let ending = match (n, word.ends_with(['s', 'x'])) {
        (1, _) => "",
        (_, true) => "es",
        (_, false) => "s",
    };
    format!("{n} {word}{ending}")
}

/// What `--fix` could fix of the findings shown, for a line after the summary (as ruff's
/// `[*] 1 fixable with the --fix option`), each count with the command that fixes it and the
/// one that previews it. After `--fix` (`fixed_with`: whether it took the unsafe fixes too),
/// only the unsafe fixes it was not asked for: the rest were not applied for a reason said
/// above.
pub fn fixable_line(outcome: &Outcome, fixed_with: Option<bool>) -> Option<String> {
    let fixable = |a: crate::finding::Applicability| {
        outcome
            .findings
            .iter()
            .filter(|f| f.fix.as_ref().is_some_and(|fix| fix.applicability == a))
            .count()
    };
    let (safe, unsafe_) = (
        fixable(crate::finding::Applicability::Safe),
        fixable(crate::finding::Applicability::Unsafe),
    );
    Some(match (fixed_with, safe, unsafe_) {
        (Some(true), _, _) | (_, 0, 0) | (Some(false), _, 0) => return None,
        (Some(false), _, unsafe_) => format!("ownerlint: {}", more_unsafe(unsafe_)),
        (None, safe, 0) => format!("ownerlint: {safe} {SAFE_FIXES}"),
        (None, 0, unsafe_) => format!("ownerlint: {unsafe_} {UNSAFE_FIXES}"),
        (None, safe, unsafe_) => {
            format!("ownerlint: {safe} {SAFE_FIXES}, {}", more_unsafe(unsafe_))
        }
    })
}

/// What `ownerlint cluster` could fix: the findings whose fix is a `kubectl patch` the
/// `pretty` and `json` formats show (ownerlint itself writes nothing to a cluster).
pub fn patchable_line(outcome: &Outcome) -> Option<String> {
    let patchable = outcome
        .findings
        .iter()
        .filter(|f| f.fix.as_ref().is_some_and(|fix| fix.patch.is_some()))
        .count();
    (patchable > 0).then(|| {
        format!(
            "ownerlint: {patchable} fixable in the cluster with the `kubectl patch` that --format pretty (or json) shows"
        )
    })
}

/// How fixes that `--fix` applies are applied and previewed.
pub const SAFE_FIXES: &str = "fixable with --fix (--diff previews)";
/// How unsafe fixes are applied and previewed.
pub const UNSAFE_FIXES: &str = "fixable with --fix --unsafe-fixes (--diff --unsafe-fixes previews)";

/// "1 more fixable with --fix --unsafe-fixes (--diff --unsafe-fixes previews)".
pub fn more_unsafe(count: usize) -> String {
    format!("{count} more {UNSAFE_FIXES}")
}

/// What `--show-inputs` prints: each chart and overlay met and what became of it, then each
/// file linted on its own.
pub fn inputs_lines(outcome: &Outcome) -> Vec<String> {
    use crate::analysis::BuildStatus;
    let mut lines = Vec::new();
    for build in &outcome.builds {
        let what = match (build.status, &build.reason) {
            (BuildStatus::Built, _) => format!("built, {}", plural(build.objects, "object")),
            (BuildStatus::Failed, Some(reason)) => format!("not built: {reason}"),
            (BuildStatus::Skipped, Some(reason)) => format!("skipped: {reason}"),
            (status, None) => format!("{status:?}").to_lowercase(),
        };
        lines.push(format!("{}: {what}", build.command));
    }
    for file in &outcome.linted_alone {
        lines.push(format!("{file}: linted on its own"));
    }
    if outcome.stats.build_files > 0 {
        lines.push(format!(
            "ownerlint: {} read by the builds above, not linted on {}",
            plural(outcome.stats.build_files, "file"),
            if outcome.stats.build_files == 1 {
                "its own"
            } else {
                "their own"
            }
        ));
    }
    lines
}

/// The one-line summary printed on stderr.
/// What `ownerlint cluster` read: `ownerlint: 621 objects of 60 resources read from context
/// kind (https://…) in 65 requests`, with what could not be read and how many objects were
/// read again to confirm dangling references. `None` for files.
pub fn read_line(outcome: &Outcome) -> Option<String> {
    let cluster = outcome.stats.cluster.as_ref()?;
    let from = match &cluster.context {
        Some(context) => format!("context {context} ({})", cluster.server),
        None => cluster.server.clone(),
    };
    let namespace = cluster.namespace.as_ref();
    let mut line = if outcome.stats.objects == 0 {
        // Every list was read, and empty (else the run ends, exit 2): said as what it is.
        format!(
            "ownerlint: 0 objects: {} holds none of the {} read from {from} in {}",
            namespace.map_or("the cluster".to_string(), |ns| format!("namespace {ns}")),
            plural(cluster.resources, "resource"),
            plural(cluster.requests, "request")
        )
    } else {
        format!(
            "ownerlint: {} of {} read from {from}{} in {}",
            plural(outcome.stats.objects, "object"),
            plural(cluster.resources, "resource"),
            namespace.map_or(String::new(), |ns| format!(", namespace {ns}")),
            plural(cluster.requests, "request")
        )
    };
    // The warnings above name them all; a long list is counted.
    match cluster.not_read.len() {
        0 => {}
        n @ 1..=3 => {
            let named: Vec<&str> = cluster
                .not_read
                .iter()
                .take(n)
                .map(|(what, _)| what.as_str())
                .collect();
            line.push_str(&format!("; not read: {}", named.join(", ")));
        }
        n => line.push_str(&format!("; not read: {n} resources")),
    }
    if cluster.confirmed > 0 {
        line.push_str(&format!(
            "; {} read again to confirm",
            plural(cluster.confirmed, "object")
        ));
        if cluster.rounds > 1 {
            line.push_str(&format!(" (in {} rounds)", cluster.rounds));
        }
    }
    Some(line)
}

pub fn summary_line(outcome: &Outcome) -> String {
    let s = &outcome.stats;
    let mut read = Vec::new();
    if s.files > 0 || s.charts + s.overlays == 0 {
        read.push(plural(s.files, "file"));
    }
    if s.charts > 0 {
        read.push(plural(s.charts, "chart"));
    }
    if s.overlays > 0 {
        read.push(plural(s.overlays, "overlay"));
    }
    let read = match read.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let mut line = format!("ownerlint: {} in {read}", plural(s.objects, "object"));
    if let Some(read) = read_line(outcome) {
        line = read;
    } else if s.discovered_groups > 0 {
        line.push_str(&format!(
            ", with a cluster's API discovery of {}",
            plural(s.discovered_groups, "group")
        ));
    }
    if s.deleted_files > 0 {
        line.push_str(&format!(
            ", and {} the git change deletes",
            plural(s.deleted_files, "file")
        ));
    }
    // Then what was checked, and what was built or left alone besides, each a clause of its
    // own, so that a run with nothing to check does not read like one that found all well.
    let mut clauses = vec![format!(
        "{} and {} checked",
        plural(s.owner_references, "owner reference"),
        plural(s.finalizers, "finalizer")
    )];
    if s.not_built > 0 {
        // What was not checked is named, so that nobody reads a passing run as a full one.
        let failed: Vec<&str> = outcome
            .builds
            .iter()
            .filter(|b| b.status == crate::analysis::BuildStatus::Failed)
            .map(|b| b.command.as_str())
            .collect();
        let mut named = failed
            .iter()
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if failed.len() > 3 {
            named.push_str(&format!(" and {} more", failed.len() - 3));
        }
        clauses.push(format!("{} not built ({named})", s.not_built));
    }
    if s.not_in_repository > 0 {
        clauses.push(format!(
            "{} whose source is not in this repository, not checked",
            plural(s.not_in_repository, "Flux or Argo CD object")
        ));
    }
    if s.values_not_in_repository > 0 {
        clauses.push(match s.values_not_in_repository {
            1 => "1 valuesFrom or substituteFrom entry whose values are not in this repository, built without them".to_string(),
            n => format!("{n} valuesFrom or substituteFrom entries whose values are not in this repository, built without them"),
        });
    }
    let bases = s.part_builds.saturating_sub(s.part_charts);
    match s.part_charts {
        0 => {}
        1 => clauses.push("1 subchart built through its parent chart".to_string()),
        n => clauses.push(format!("{n} subcharts built through their parent charts")),
    }
    match bases {
        0 => {}
        1 => clauses.push("1 base or component built through another overlay".to_string()),
        n => clauses.push(format!(
            "{n} bases and components built through other overlays"
        )),
    }
    match s.part_not_checked {
        0 => {}
        1 => clauses
            .push("1 subchart or base not checked (nothing that builds it was built)".to_string()),
        n => clauses.push(format!(
            "{n} subcharts and bases not checked (nothing that builds them was built)"
        )),
    }
    match s.skipped_builds {
        0 => {}
        1 => clauses.push(
            "1 kustomize Component that no overlay here uses, not built (--show-inputs names it)"
                .to_string(),
        ),
        n => clauses.push(format!(
            "{n} kustomize Components that no overlay here uses, not built (--show-inputs names them)"
        )),
    }
    let mut skipped = Vec::new();
    match s.skipped_documents - s.unbuilt_kustomizations {
        0 => {}
        1 => skipped.push("1 document that is not a Kubernetes object".to_string()),
        n => skipped.push(format!("{n} documents that are not Kubernetes objects")),
    }
    match s.unbuilt_kustomizations {
        0 => {}
        1 => skipped.push("1 kustomization (--no-render)".to_string()),
        n => skipped.push(format!("{n} kustomizations (--no-render)")),
    }
    if s.patch_files > 0 {
        skipped.push(plural(s.patch_files, "kustomize patch file"));
    }
    if s.assertion_files > 0 {
        skipped.push(format!(
            "{} of test assertions",
            plural(s.assertion_files, "file")
        ));
    }
    if let Some((last, rest)) = skipped.split_last() {
        let skipped = match rest {
            [] => last.clone(),
            rest => format!("{} and {last}", rest.join(", ")),
        };
        clauses.push(format!("skipped {skipped}"));
    }
    for clause in clauses {
        line.push_str("; ");
        line.push_str(&clause);
    }
    line.push_str(&format!(
        ": {}, {}, {} info",
        plural(outcome.count(Severity::Error), "error"),
        plural(outcome.count(Severity::Warning), "warning"),
        outcome.count(Severity::Info)
    ));
    if !outcome.errors.is_empty() {
        line.push_str(&format!(
            ", {}",
            plural(outcome.errors.len(), "unreadable input")
        ));
    }
    if s.fixed > 0 {
        line.push_str(&format!(", {} fixed", s.fixed));
    }
    if s.suppressed > 0 {
        line.push_str(&format!(", {} suppressed", s.suppressed));
    }
    if s.baselined > 0 {
        line.push_str(&format!(", {} in the baseline not shown", s.baselined));
    }
    line.push_str(&format!(" ({:.2}s)", s.elapsed.as_secs_f64()));
    match &s.not_read_when_saved[..] {
        [] => {}
        [(what, why)] => line.push_str(&format!(
            "\nownerlint: warning: the saved snapshot records that {what} was not read when it was saved ({why}); references to its objects are not checked"
        )),
        many => line.push_str(&format!(
            "\nownerlint: warning: the saved snapshot records that {} resources were not read when it was saved ({}); references to their objects are not checked",
            many.len(),
            many.iter()
                .map(|(what, why)| format!("{what}: {why}"))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
    if s.partial_dump {
        line.push_str("\nownerlint: --complete: this is a `kubectl cluster-info dump`, which holds only Pods, ReplicaSets, Deployments, DaemonSets, ReplicationControllers, Services, Events and Nodes; an owner of another kind that is not in it is only not in this dump");
    }
    line
}
