//! `pretty`: miette's graphical reports, with the offending span labelled and the other side of
//! the reference labelled too (in its own file when it lives elsewhere).
//!
//! The text is wrapped here rather than by miette, to the width asked for: lines break at
//! spaces only, never inside a word (a uid, a name, a path, a hyphenated word), and a word
//! longer than the line overflows it rather than being cut, so that each stays whole for
//! copying. A `backtick span` (a command, a field, a quoted message) is kept on one line when it
//! fits on one. A label is wrapped to the room left of where miette places it.
//!
//! miette's own `SourceCode` for strings rescans the text from the start for every span; ours
//! uses the source's line index, so a finding near the end of a large dump costs the same as
//! one at the top.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};
use std::ops::Range;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};
use textwrap::core::{Word, display_width};

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
    // The probe renders with each label replaced by a marker, to find where miette puts labels.
    let probe = handler(GraphicalTheme::unicode_nocolor(), options.width);
    let handler = handler(theme, options.width);
    let limit = options.width.saturating_sub(MARGIN);
    for finding in findings {
        let mut report = Report::new(outcome, finding, limit);
        report.fit_labels(&probe, limit)?;
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

/// The width `pretty` wraps to: `COLUMNS` when it is set to a number of columns (as a user
/// or a script sets it to ask for a width), else the width of the terminal on standard output
/// or, when that is not a terminal (`ownerlint … | less`), on standard error; when neither is a
/// terminal, [`DEFAULT_WIDTH`]. Shells do not export `COLUMNS`: without it, the terminal's own
/// size is what is read.
pub fn terminal_width() -> usize {
    let columns = std::env::var("COLUMNS").ok();
    columns
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or_else(|| {
            let size = terminal_size::terminal_size_of(std::io::stdout())
                .or_else(|| terminal_size::terminal_size_of(std::io::stderr()));
            size.map(|(terminal_size::Width(columns), _)| usize::from(columns))
        })
        .unwrap_or(DEFAULT_WIDTH)
}

/// The width without `COLUMNS` or a terminal.
pub const DEFAULT_WIDTH: usize = 100;

fn handler(theme: GraphicalTheme, width: usize) -> GraphicalReportHandler {
    GraphicalReportHandler::new_themed(theme)
        .with_context_lines(CONTEXT)
        .with_width(width)
        .with_links(false)
        .with_wrap_lines(false)
}

/// Columns left free at the right of the width, as miette leaves them.
const MARGIN: usize = 2;

/// What miette writes before the message (`  × `), and before the help (`  help: `).
const MESSAGE_INDENT: usize = 4;
const HELP_INDENT: usize = 8;

/// The fewest columns a label is wrapped to: a label that starts further right than that
/// overflows the line rather than stand as a column of single words.
const LABEL_MIN_WIDTH: usize = 20;

/// `text` wrapped to lines of at most `width` columns, each of its lines on its own.
///
/// Lines break only at spaces outside the backtick spans that fit in `width` (with the
/// punctuation stuck to them); a word wider than `width` stands alone on a line, whole. A
/// backtick span wider than `width` cannot be kept on one line anyway: it breaks at its spaces
/// like the text around it, rather than overflow and be wrapped by the terminal at any
/// character and without the report's margin.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let words = words(line, width);
        let rows = textwrap::wrap_algorithms::wrap_first_fit(&words, &[width as f64]);
        for (j, row) in rows.iter().enumerate() {
            if j > 0 {
                out.push('\n');
            }
            for (k, word) in row.iter().enumerate() {
                out.push_str(word.word);
                if k + 1 < row.len() {
                    out.push_str(word.whitespace);
                }
            }
        }
    }
    out
}

/// The words of one line: runs of text up to and including the spaces that end them, where
/// the spaces inside a backtick span that fits in `width` do not end a word.
fn words(line: &str, width: usize) -> Vec<Word<'_>> {
    let bytes = line.as_bytes();
    let ticks: Vec<usize> = memchr::memchr_iter(b'`', bytes).collect();
    let whole: Vec<Range<usize>> = ticks
        .chunks_exact(2)
        .map(|pair| {
            // The span with what is stuck to it, as `(`this`),`.
            let start = line[..pair[0]].rfind(' ').map_or(0, |i| i + 1);
            let end = line[pair[1]..]
                .find(' ')
                .map_or(line.len(), |i| pair[1] + i);
            start..end
        })
        .filter(|span| display_width(&line[span.clone()]) <= width)
        .collect();
    let mut words = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] == b' ' && !whole.iter().any(|span| span.contains(&i)) {
            let end = i + bytes[i..].iter().take_while(|&&b| b == b' ').count();
            words.push(Word::from(&line[start..end]));
            (start, i) = (end, end);
        } else {
            i += 1;
        }
    }
    if start < line.len() {
        words.push(Word::from(&line[start..]));
    }
    words
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
    /// The report of `finding`, its text wrapped to lines of `limit` columns.
    fn new(outcome: &'a Outcome, finding: &Finding, limit: usize) -> Report<'a> {
        let source = outcome.source(finding.primary.source);
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(finding.primary.message.clone()),
            to_miette(finding.primary.span),
        )];
        let message_width = limit.saturating_sub(MESSAGE_INDENT);
        let mut related = Vec::new();
        for label in &finding.related {
            if label.source == finding.primary.source {
                labels.push(LabeledSpan::new_with_span(
                    Some(label.message.clone()),
                    to_miette(label.span),
                ));
            } else {
                related.push(Report {
                    message: wrap(&label.message, message_width),
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
            let help = format!(
                "{note}{h}\n(`ownerlint explain {}` tells more)",
                finding.rule
            );
            wrap(&help, limit.saturating_sub(HELP_INDENT))
        });
        Report {
            message: wrap(&super::message_with_origin(finding), message_width),
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

    /// Wraps each label to the columns left of where miette writes it, up to `limit`. Where a
    /// label starts does not depend on its text: a render with each label replaced by a
    /// marker shows where.
    fn fit_labels(&mut self, probe: &GraphicalReportHandler, limit: usize) -> io::Result<()> {
        let texts: Vec<Option<String>> = self
            .labels
            .iter()
            .map(|l| l.label().map(str::to_string))
            .collect();
        if texts.iter().flatten().all(|t| t.is_empty()) {
            return Ok(());
        }
        let marker = |i: usize| format!("{LABEL_MARKER}{i}{LABEL_MARKER}");
        self.relabel(|i, text| text.map(|_| marker(i)));
        let mut probed = String::new();
        let columns: Vec<Option<usize>> = match probe.render_report(&mut probed, self) {
            Ok(()) => (0..texts.len())
                .map(|i| {
                    let marker = marker(i);
                    probed.lines().find_map(|line| {
                        let before = line.strip_suffix(marker.as_str())?;
                        Some(display_width(before))
                    })
                })
                .collect(),
            Err(_) => vec![None; texts.len()],
        };
        self.relabel(|i, _| {
            let text = texts[i].as_deref()?;
            Some(match columns[i] {
                Some(column) => wrap(text, limit.saturating_sub(column).max(LABEL_MIN_WIDTH)),
                None => text.to_string(),
            })
        });
        for related in &mut self.related {
            related.fit_labels(probe, limit)?;
        }
        Ok(())
    }

    /// Gives each label the text `text(index, its text)`.
    fn relabel(&mut self, text: impl Fn(usize, Option<&str>) -> Option<String>) {
        for (i, label) in self.labels.iter_mut().enumerate() {
            let span = *label.inner();
            let new = text(i, label.label());
            *label = match label.primary() {
                true => LabeledSpan::new_primary_with_span(new, span),
                false => LabeledSpan::new_with_span(new, span),
            };
        }
    }
}

/// Marks where a label starts in a probing render: a character of Unicode's private use area,
/// looked for at the end of a line, where miette writes labels.
const LABEL_MARKER: char = '\u{f8ff}';

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
