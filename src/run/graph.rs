//! `tree` and `delete-preview`: the ownership graph of the input, drawn or walked from the
//! object to delete.

use clap::ValueEnum;

use super::{ChartFlags, ColorChoice, Streams, config_errors, options, print_out};
use crate::analysis::Analysis;
use crate::config::Flags;
use crate::graph::Graph;
use crate::preview::Cascade;
use crate::tree::TreeFormat;

/// What `tree` is asked.
pub struct Tree {
    pub input: Flags,
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
    /// The object to delete (`TYPE/NAME`).
    pub target: String,
    pub cascade: Cascade,
    pub format: PreviewFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PreviewFormat {
    Text,
    Json,
}

/// Read and resolve the input of a graph command; report unreadable inputs on stderr. Also
/// the namespace `KIND/NAME` is looked up in: `-n`, else the configuration's, else `default`.
fn analyze(input: &Flags, streams: &mut Streams) -> Result<(Analysis, String), i32> {
    let chart_flags = ChartFlags::of(input);
    let options = options(input).map_err(|errors| config_errors(streams, &errors))?;
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

/// `ownerlint tree`: the ownership forest, or the trees asked for.
pub fn tree(args: Tree, streams: &mut Streams) -> i32 {
    let (analysis, lookup_namespace) = match analyze(&args.input, streams) {
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

/// `ownerlint delete-preview`: what deleting the target would delete with it.
pub fn delete_preview(args: DeletePreview, streams: &mut Streams) -> i32 {
    let (analysis, namespace) = match analyze(&args.input, streams) {
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
    print_out(streams, text, code)
}
