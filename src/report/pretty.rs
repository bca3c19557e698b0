//! `pretty`: miette's graphical reports, with the offending span labelled and the other side of
//! the reference labelled too (in its own file when it lives elsewhere).
//!
//! miette's own `SourceCode` for strings rescans the text from the start for every span; ours
//! uses the source's line index, so a finding near the end of a large dump costs the same as
//! one at the top.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::RenderOptions;
use crate::analysis::Outcome;
use crate::finding::{Finding, Severity};
use crate::source::{Source, Span};

pub fn render(
    outcome: &Outcome,
    findings: &[&Finding],
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let theme = if options.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_context_lines(CONTEXT)
        .with_width(options.width)
        .with_links(false);
    for finding in findings {
        let report = Report::new(outcome, finding);
        let mut text = String::new();
        handler
            .render_report(&mut text, &report)
            .map_err(|e| io::Error::other(e.to_string()))?;
        writeln!(out, "{}", text.trim_end())?;
        writeln!(out)?;
    }
    for error in &outcome.errors {
        writeln!(out, "  × {}: {}", error.path, error.message)?;
    }
    Ok(())
}

/// Lines shown around a label.
const CONTEXT: usize = 1;

/// A source as miette reads it: the lines around some labels, read once (a big file's text is
/// read from the file where it is shown, not held).
struct Snippets<'a> {
    source: &'a Source,
    /// Where the lines start, and their text.
    lines: (usize, Cow<'a, str>),
}

impl<'a> Snippets<'a> {
    fn new(source: &'a Source, spans: impl IntoIterator<Item = Span>) -> Snippets<'a> {
        let (start, end) = spans
            .into_iter()
            .fold((usize::MAX, 0), |(start, end), span| {
                (start.min(span.start), end.max(span.end))
            });
        let lines = if start <= end {
            let first = source.line_index(start).saturating_sub(CONTEXT);
            let last = source.line_index(end.saturating_sub(1).max(start)) + CONTEXT;
            let from = source.line_start(first);
            let to = source.line_start(last + 1).min(source.text.len());
            (from, source.text.str(from..to).unwrap_or_default())
        } else {
            (0, Cow::Borrowed(""))
        };
        Snippets { source, lines }
    }
}

impl SourceCode for Snippets<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let source = self.source;
        let start = span.offset();
        let end = start + span.len();
        if end > source.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let first = source.line_index(start).saturating_sub(before);
        let last_of_span = source.line_index(end.saturating_sub(1).max(start));
        let last = (last_of_span + after).min(source.line_count() - 1);
        // With no line before, the contents start at the span itself, as miette's own sources
        // do: miette's header (`file:line:column`) is where they start. The column counts
        // characters, as every other format's does.
        let (from, column) = if before == 0 {
            (start, source.line_col(start).column - 1)
        } else {
            (source.line_start(first), 0)
        };
        let to = source.line_start(last + 1).min(source.text.len());
        let (at, lines) = (self.lines.0, self.lines.1.as_bytes());
        let data = from
            .checked_sub(at)
            .and_then(|from| lines.get(from..to - at))
            .ok_or(MietteError::OutOfBounds)?;
        Ok(Box::new(MietteSpanContents::new_named(
            source.name.clone(),
            data,
            SourceSpan::new(from.into(), to - from),
            first,
            column,
            last - first + 1,
        )))
    }
}

struct Report<'a> {
    message: String,
    code: &'static str,
    severity: miette::Severity,
    help: Option<String>,
    source: Snippets<'a>,
    labels: Vec<LabeledSpan>,
    /// Labels in other sources, each shown as its own note.
    related: Vec<Report<'a>>,
}

impl<'a> Report<'a> {
    fn new(outcome: &'a Outcome, finding: &Finding) -> Report<'a> {
        let source = outcome.source(finding.primary.source);
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(finding.primary.message.clone()),
            to_miette(finding.primary.span),
        )];
        let mut related = Vec::new();
        for label in &finding.related {
            if label.source == finding.primary.source {
                labels.push(LabeledSpan::new_with_span(
                    Some(label.message.clone()),
                    to_miette(label.span),
                ));
            } else {
                related.push(Report {
                    message: label.message.clone(),
                    code: "",
                    severity: miette::Severity::Advice,
                    help: None,
                    source: Snippets::new(outcome.source(label.source), [label.span]),
                    labels: vec![LabeledSpan::new_primary_with_span(
                        None,
                        to_miette(label.span),
                    )],
                    related: Vec::new(),
                });
            }
        }
        // The note (facts side by side) comes first, then the fix.
        let help = finding.help.as_ref().map(|h| {
            let note = finding
                .note
                .as_ref()
                .map_or(String::new(), |n| format!("{n}\n"));
            format!(
                "{note}{h}\n(`ownerlint explain {}` tells more)",
                finding.rule
            )
        });
        Report {
            message: super::message_with_origin(finding),
            code: finding.rule.id,
            severity: match finding.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Info => miette::Severity::Advice,
            },
            help,
            source: Snippets::new(
                source,
                std::iter::once(finding.primary.span).chain(
                    finding
                        .related
                        .iter()
                        .filter(|l| l.source == finding.primary.source)
                        .map(|l| l.span),
                ),
            ),
            labels,
            related,
        }
    }
}

fn to_miette(span: crate::source::Span) -> SourceSpan {
    SourceSpan::new(span.start.into(), span.len())
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        (!self.code.is_empty()).then(|| Box::new(self.code) as Box<dyn fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|r| r as &dyn Diagnostic)))
    }
}
