//! `tree` and `delete-preview`: the ownership graph of the input, drawn or walked from the
//! object to delete.

use clap::ValueEnum;

use super::{ChartFlags, ColorChoice, Streams, config_errors, options, print_out};
use crate::analysis::Analysis;
use crate::cluster::Connection;
use crate::config::Flags;
use crate::graph::Graph;
use crate::preview::Cascade;
use crate::tree::TreeFormat;

/// What `tree` is asked.
pub struct Tree {
    pub input: Flags,
    /// The live cluster to read instead of the files of `input`.
    pub live: Option<Connection>,
    /// The object to start at (`TYPE/NAME`).
    pub root: Option<String>,
    /// Only trees that hold objects of this kind.
    pub kind: Option<String>,
    pub format: TreeFormat,
    pub color: ColorChoice,
}

/// What `delete-preview` is asked.
pub struct DeletePreview {
    pub input: Flags,
    /// The live cluster to read instead of the files of `input`.
    pub live: Option<Connection>,
    /// The object to delete (`TYPE/NAME`).
    pub target: String,
    pub cascade: Cascade,
    pub format: PreviewFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PreviewFormat {
    /// What goes, what stays Terminating, what survives, in sections
    Text,
    /// The same, for tools
    Json,
    /// Graphviz (`dot -Tsvg`): each object coloured by its fate, with a legend
    Dot,
    /// A Mermaid flowchart (renders in GitHub Markdown), coloured by fate, with a legend
    Mermaid,
}

/// Read and resolve the input of a graph command; report unreadable inputs on stderr. Also
/// the namespace `KIND/NAME` is looked up in: `-n`, else the configuration's, else `default`.
fn analyze(
    input: &Flags,
    live: Option<&Connection>,
    streams: &mut Streams,
) -> Result<(Analysis, String), i32> {
    let chart_flags = ChartFlags::of(input);
    let options = options(input).map_err(|errors| config_errors(streams, &errors))?;
    if let Some(live) = live {
        if !input.paths.is_empty() {
            let paths: Vec<String> = input
                .paths
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            note!(
                streams.stderr,
                "ownerlint: --cluster reads the cluster, not files: leave out the paths ({})",
                paths.join(", ")
            );
            return Err(2);
        }
        let analysis = read_cluster(&options, live, streams)?;
        // `TYPE/NAME` is looked up as kubectl looks it up: in `-n`, else the context's namespace.
        let namespace = match (&input.namespace, &analysis.outcome.stats.cluster) {
            (None, Some(cluster)) => cluster.default_namespace.clone(),
            _ => options.namespace.clone(),
        };
        return Ok((analysis, namespace));
    }
    let analysis = crate::pipeline::analyze(&options, &mut streams.stdin);
    if let Some(warning) = chart_flags.unused(&analysis.outcome.stats) {
        note!(streams.stderr, "{warning}");
    }
    for error in &analysis.outcome.errors {
        note!(
            streams.stderr,
            "ownerlint: {}: {}",
            error.path,
            error.message
        );
    }
    Ok((analysis, options.namespace))
}

/// The whole cluster, read as `ownerlint cluster` reads it (a tree or a delete's reach may
/// cross namespaces through cluster-scoped owners), with a progress line on a terminal and
/// what was read said on standard error.
#[cfg(feature = "cluster")]
fn read_cluster(
    options: &crate::analysis::Options,
    live: &Connection,
    streams: &mut Streams,
) -> Result<Analysis, i32> {
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let analysis = super::cluster::read_live(
        options,
        live,
        &crate::cluster::read::Scope::default(),
        None,
        progress,
        streams,
    )?;
    if let Some(line) = crate::report::read_line(&analysis.outcome) {
        note!(streams.stderr, "{line}");
    }
    Ok(analysis)
}

#[cfg(not(feature = "cluster"))]
fn read_cluster(
    _: &crate::analysis::Options,
    _: &Connection,
    streams: &mut Streams,
) -> Result<Analysis, i32> {
    note!(
        streams.stderr,
        "ownerlint: this build of ownerlint has no cluster reader (the feature `cluster`)"
    );
    Err(2)
}

/// `ownerlint tree`: the ownership forest, or the trees asked for.
pub fn tree(mut args: Tree, streams: &mut Streams) -> i32 {
    if args.root.is_none() {
        args.root = positional_root(&mut args.input.paths, args.live.is_some());
    }
    let (analysis, lookup_namespace) = match analyze(&args.input, args.live.as_ref(), streams) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let graph = Graph::build(&analysis, analysis.complete);
    let root = match &args.root {
        Some(spec) => match crate::target::find(&analysis, spec, &lookup_namespace) {
            Ok(id) => Some(id),
            Err(message) => {
                note!(streams.stderr, "ownerlint: {message}");
                return 2;
            }
        },
        None => None,
    };
    let filter = crate::tree::TreeFilter {
        root,
        namespace: if root.is_some() {
            None
        } else {
            args.input.namespace
        },
        kind: args.kind,
    };
    let forest = crate::tree::Forest::new(&analysis, &graph, &filter);
    let color = args.color.colors(streams.stdout_is_terminal);
    let text = match args.format {
        TreeFormat::Text => crate::tree::text(&forest, color),
        TreeFormat::Json => crate::tree::json(&forest),
        TreeFormat::Dot => crate::tree::dot(&forest),
        TreeFormat::Mermaid => crate::tree::mermaid(&forest),
    };
    let code = if analysis.outcome.errors.is_empty() {
        0
    } else {
        2
    };
    print_out(streams, text, code)
}

/// The root `tree` is given before its paths, as kubectl-tree takes it (`tree deploy/web
/// PATHS`), taken out of `paths`: a first argument `TYPE/NAME` that is no file or folder. With
/// --cluster, which reads no paths, also `TYPE NAME` (`tree --cluster deploy web`). A file or
/// folder that is there is read as one, whatever its name (`--root` names the root then).
fn positional_root(paths: &mut Vec<std::path::PathBuf>, live: bool) -> Option<String> {
    let text = |i: usize| paths.get(i).and_then(|p| p.to_str()).map(str::to_string);
    let first = text(0)?;
    if live {
        let root = match (paths.len(), text(1)) {
            (1, _) => first,
            (2, Some(name))
                if !first.contains('/')
                    && !name.contains('/')
                    && std::fs::symlink_metadata(&paths[0]).is_err() =>
            {
                format!("{first}/{name}")
            }
            _ => return None,
        };
        paths.clear();
        return Some(root);
    }
    let (kind, name) = first.split_once('/')?;
    let is_type = kind.starts_with(|c: char| c.is_ascii_alphabetic())
        && kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    let is_name = !name.is_empty() && !name.contains('/');
    if !is_type || !is_name || std::fs::symlink_metadata(&paths[0]).is_ok() {
        return None;
    }
    paths.remove(0);
    Some(first)
}

/// `ownerlint delete-preview`: what deleting the target would delete with it.
pub fn delete_preview(args: DeletePreview, streams: &mut Streams) -> i32 {
    let (analysis, namespace) = match analyze(&args.input, args.live.as_ref(), streams) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let target = match crate::target::find(&analysis, &args.target, &namespace) {
        Ok(id) => id,
        Err(message) => {
            note!(streams.stderr, "ownerlint: {message}");
            return 2;
        }
    };
    let graph = Graph::build(&analysis, analysis.complete);
    let preview = crate::preview::preview(&analysis, &graph, target, args.cascade);
    let text = match args.format {
        PreviewFormat::Text => crate::preview::text(&analysis, &preview),
        PreviewFormat::Json => crate::preview::json(&analysis, &preview),
        PreviewFormat::Dot => crate::preview::dot(&analysis, &graph, &preview),
        PreviewFormat::Mermaid => crate::preview::mermaid(&analysis, &graph, &preview),
    };
    let code = if analysis.outcome.errors.is_empty() {
        0
    } else {
        2
    };
    print_out(streams, text, code)
}
