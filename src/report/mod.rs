//! Report: findings in the format the user asked for. One module per format.

pub mod json;
pub mod pretty;
pub mod short;

use std::io::{self, Write};

use crate::Outcome;
use crate::finding::{Finding, Severity};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Source snippets with labels and help (the default on a terminal)
    Pretty,
    /// `path:line:col: severity[rule-id]: message`, one per line (the default otherwise)
    Short,
    /// A versioned JSON document
    Json,
}

#[derive(Clone, Copy, Debug)]
pub struct RenderOptions {
    pub color: bool,
    /// Terminal width for `pretty`.
    pub width: usize,
    /// Leave out info findings.
    pub quiet: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            color: false,
            width: 100,
            quiet: false,
        }
    }
}

pub fn render(
    format: Format,
    outcome: &Outcome,
    options: RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let shown: Vec<&Finding> = outcome
        .findings
        .iter()
        .filter(|f| !(options.quiet && f.severity == Severity::Info))
        .collect();
    match format {
        Format::Pretty => pretty::render(outcome, &shown, options, out),
        Format::Short => short::render(outcome, &shown, out),
        Format::Json => json::render(outcome, &shown, out),
    }
}

/// The message as printed, with the template it was rendered from.
pub fn message_with_origin(finding: &Finding) -> String {
    match &finding.origin {
        Some(origin) => format!("{} (from {origin})", finding.message),
        None => finding.message.clone(),
    }
}

/// The one-line summary printed on stderr.
pub fn summary_line(outcome: &Outcome) -> String {
    let s = &outcome.stats;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "ownerlint: {} in {}",
        plural(s.objects, "object"),
        plural(s.files, "file")
    );
    if s.skipped_documents > 0 {
        line.push_str(&format!(
            " ({} not Kubernetes objects, skipped)",
            plural(s.skipped_documents, "document")
        ));
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
    line.push_str(&format!(" ({:.2}s)", s.elapsed.as_secs_f64()));
    line
}
