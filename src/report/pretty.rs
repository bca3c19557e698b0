//! `pretty`: miette's graphical reports, led by the finding's own place with the offending span
//! labelled, then the other side of the reference labelled too, in whichever file it lives.
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
    MietteSpanContents, SourceCode, SourceSpan, SpanContents, ThemeStyles,
};
use textwrap::core::{Word, display_width};

use super::EmitOptions;
use crate::analysis::Outcome;
use crate::finding::{Finding, Label, Severity};
use crate::source::{Source, SourceId, Span};

pub fn emit(
    outcome: &Outcome,
    findings: &[&Finding],
    options: &EmitOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let theme = if options.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    // The probe renders with each label replaced by a marker, to find where miette puts labels.
    let probe = handler(GraphicalTheme::unicode_nocolor(), options.width);
    let limit = options.width.saturating_sub(MARGIN);
    let styles = options.color.then(|| theme.styles.clone());
    let handler = handler(theme, options.width);
    for finding in findings {
        let mut report = Report::new(outcome, finding, limit, styles.as_ref());
        report.fit_labels(&probe, limit)?;
        let mut text = String::new();
        handler
            .render_report(&mut text, &report)
            .map_err(|e| io::Error::other(e.to_string()))?;
        writeln!(out, "{}", text.trim_end())?;
        // An object read from a cluster: where it is there, on a line that copies whole.
        if let Some(location) = super::live_location(outcome, finding) {
            writeln!(out, "  in the cluster: {}", super::escape::text(&location))?;
        }
        // An object captured from a cluster is fixed there: the command, on a line of its own
        // and never wrapped, so that it copies whole.
        if let Some(command) = cluster_patch(outcome, finding) {
            writeln!(out, "  fix in the cluster ({}):", finding_fix_kind(finding))?;
            writeln!(out, "    {}", super::escape::text(&command))?;
        }
        writeln!(out)?;
    }
    for error in &outcome.errors {
        writeln!(
            out,
            "  × {}: {}",
            super::escape::path(&error.path),
            super::escape::text(&error.message)
        )?;
    }
    Ok(())
}

/// The `kubectl patch` that makes a finding's fix in the cluster its object was captured from.
fn cluster_patch(outcome: &Outcome, finding: &Finding) -> Option<String> {
    let patch = finding.fix.as_ref()?.patch.as_ref()?;
    crate::finding::kubectl_patch(
        finding.object.as_ref()?,
        patch,
        super::live_context(outcome),
    )
}

/// How safe the fix is, in the words of `--fix`.
fn finding_fix_kind(finding: &Finding) -> &'static str {
    use crate::finding::Applicability;
    match finding.fix.as_ref().map(|fix| fix.applicability) {
        Some(Applicability::Safe) => "safe",
        Some(Applicability::Unsafe) => "unsafe",
        _ => "for review",
    }
}

/// The width `pretty` wraps to: `COLUMNS` when it is set to a number of columns (as a user
/// or a script sets it to ask for a width), else the width of the terminal on standard output
/// or, when that is not a terminal (`ownerlint … | less`), on standard error; when neither is a
/// terminal, [`DEFAULT_WIDTH`]. Shells do not export `COLUMNS`: without it, the terminal's own
/// size is what is read.
pub fn terminal_width() -> usize {
    columns_variable()
        .or_else(|| {
            let size = terminal_size::terminal_size_of(std::io::stdout())
                .or_else(|| terminal_size::terminal_size_of(std::io::stderr()));
            size.map(|(terminal_size::Width(columns), _)| usize::from(columns))
        })
        .unwrap_or(DEFAULT_WIDTH)
}

/// The width of a report written to a file (`--report pretty=FILE`): `COLUMNS`, else
/// [`DEFAULT_WIDTH`]; whatever terminal the run was started in is not where the file is read.
pub fn file_width() -> usize {
    columns_variable().unwrap_or(DEFAULT_WIDTH)
}

fn columns_variable() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|&c| c > 0)
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

/// The fewest columns a label is wrapped to. A label that starts further right, after a long
/// source line, runs past the line whole: it cannot fit anyway, and cut into short pieces it
/// would only take more lines, each as wide.
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

/// A summary for a terminal of `width` columns: each of its lines wrapped as the report above
/// it is, the rows after a line's first indented under it.
pub fn wrap_summary(text: &str, width: usize) -> String {
    const INDENT: &str = "  ";
    let width = width.saturating_sub(INDENT.len()).max(LABEL_MIN_WIDTH);
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for (j, row) in wrap(line, width).split('\n').enumerate() {
            if j > 0 {
                out.push('\n');
                out.push_str(INDENT);
            }
            out.push_str(row);
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

/// The sources of a report as miette reads them. miette shows a report's snippets in the order
/// of their spans' offsets: here each source is a part of one row of offsets, in the order the
/// report shows them, so that the finding's own place comes first, then the places it names
/// (the owner's definition, another controller, …), in its file or in others.
struct Snippets<'a> {
    parts: Vec<Part<'a>>,
}

/// A source as miette reads it: the lines around some labels, read once (a big file's text is
/// read from the file where it is shown, not held), with the characters a terminal would act
/// on escaped (`super::escape`). Offsets among the report's are those of the escaped text: an
/// offset `o` into the source is `base + shown(o)`.
struct Part<'a> {
    source: &'a Source,
    /// Where the part starts among the report's offsets.
    base: usize,
    /// Where the lines start in the source, and their text as shown.
    lines: (usize, Cow<'a, str>),
    /// After each escaped character (its end in the source), how much longer the text shown
    /// is than the source's up to there.
    grown: Vec<(usize, usize)>,
}

impl<'a> Part<'a> {
    fn new(source: &'a Source, base: usize, spans: impl IntoIterator<Item = Span>) -> Part<'a> {
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
        let (from, text) = lines;
        // Line ends stay line ends (a `\r` before one too), and tabs tabs; any other character
        // a terminal would act on is escaped.
        let mut grown = Vec::new();
        let mut shown = String::new();
        let mut total = 0;
        for line in text.split_inclusive('\n') {
            let at = from + shown.len() - total;
            let (body, end) = match line.strip_suffix("\r\n") {
                Some(body) => (body, "\r\n"),
                None => line
                    .strip_suffix('\n')
                    .map_or((line, ""), |body| (body, "\n")),
            };
            for (after, more) in super::escape::growth(body) {
                total += more;
                grown.push((at + after, total));
            }
            shown.push_str(&super::escape::source_line(body));
            shown.push_str(end);
        }
        let lines = match grown.is_empty() {
            true => (from, text),
            false => (from, Cow::Owned(shown)),
        };
        Part {
            source,
            base,
            lines,
            grown,
        }
    }

    /// Where source offset `offset` is in the text shown, as an offset of the source's.
    fn shown(&self, offset: usize) -> usize {
        let i = self.grown.partition_point(|&(after, _)| after <= offset);
        offset + i.checked_sub(1).map_or(0, |i| self.grown[i].1)
    }

    /// The source offset shown at `shown` (one that [`Part::shown`] gave).
    fn in_source(&self, shown: usize) -> usize {
        let i = self
            .grown
            .partition_point(|&(after, total)| after + total <= shown);
        shown - i.checked_sub(1).map_or(0, |i| self.grown[i].1)
    }

    /// Where the next part can start: past every offset of this one, an empty span at the end
    /// of its text included.
    fn end(&self) -> usize {
        self.base + self.source.text.len() + self.grown.last().map_or(0, |g| g.1) + 1
    }
}

impl SourceCode for Snippets<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let part = self
            .parts
            .iter()
            .rev()
            .find(|part| part.base <= span.offset())
            .ok_or(MietteError::OutOfBounds)?;
        let source = part.source;
        let start = part.in_source(span.offset() - part.base);
        let end = part.in_source(span.offset() - part.base + span.len());
        // (A span across two parts, as miette asks for when it tries to join snippets, is
        // refused: they stay apart.)
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
        let (at, lines) = (part.shown(part.lines.0), part.lines.1.as_bytes());
        let (from, to) = (part.shown(from), part.shown(to));
        let data = from
            .checked_sub(at)
            .and_then(|from| lines.get(from..to - at))
            .ok_or(MietteError::OutOfBounds)?;
        Ok(Box::new(MietteSpanContents::new_named(
            super::escape::path(&source.name).into_owned(),
            data,
            SourceSpan::new((part.base + from).into(), to - from),
            first,
            column,
            last - first + 1,
        )))
    }
}

/// The places a report shows, in order, each a source with its labels. First the finding's own
/// source, with the finding's label, the labels after it and those just above it (which miette
/// shows in one snippet with it, headed by the finding's place); then the source's other labels,
/// and the labels of each other source, in the order the finding names them.
fn places<'f>(outcome: &Outcome, finding: &'f Finding) -> Vec<(SourceId, Vec<&'f Label>)> {
    let own = &finding.primary;
    let source = outcome.source(own.source);
    let mut first = vec![own];
    let mut above: Vec<&Label> = (finding.related.iter())
        .filter(|l| l.source == own.source && l.span.start < own.span.start)
        .collect();
    above.sort_by_key(|l| std::cmp::Reverse(l.span.start));
    let mut top = source.line_index(own.span.start);
    for label in above {
        // miette joins two snippets when their lines, with the context around them, touch.
        let last = source.line_index(label.span.end.saturating_sub(1).max(label.span.start));
        if last + 2 * CONTEXT + 1 >= top {
            top = top.min(source.line_index(label.span.start));
            first.push(label);
        }
    }
    first.extend(
        (finding.related.iter())
            .filter(|l| l.source == own.source && l.span.start >= own.span.start),
    );
    let mut rest: Vec<(SourceId, Vec<&Label>)> = Vec::new();
    for label in &finding.related {
        if first.iter().any(|l| std::ptr::eq(*l, label)) {
            continue;
        }
        match rest.iter_mut().find(|(source, _)| *source == label.source) {
            Some((_, labels)) => labels.push(label),
            None => rest.push((label.source, vec![label])),
        }
    }
    std::iter::once((own.source, first)).chain(rest).collect()
}

struct Report<'a> {
    /// `error[rule-id]: message`, as `short` and compilers start a finding, after miette's
    /// glyph.
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: Snippets<'a>,
    labels: Vec<LabeledSpan>,
}

impl<'a> Report<'a> {
    /// The report of `finding`, its text wrapped to lines of `limit` columns; its severity and
    /// rule in the colour of the severity with `styles`.
    fn new(
        outcome: &'a Outcome,
        finding: &Finding,
        limit: usize,
        styles: Option<&ThemeStyles>,
    ) -> Report<'a> {
        let mut parts = Vec::new();
        let mut labels = Vec::new();
        for (source, group) in places(outcome, finding) {
            let base = parts.last().map_or(0, Part::end);
            let part = Part::new(outcome.source(source), base, group.iter().map(|l| l.span));
            for label in group {
                let (start, end) = (part.shown(label.span.start), part.shown(label.span.end));
                let span = SourceSpan::new((base + start).into(), end - start);
                let text = Some(super::escape::text(&label.message).into_owned());
                labels.push(match std::ptr::eq(label, &finding.primary) {
                    true => LabeledSpan::new_primary_with_span(text, span),
                    false => LabeledSpan::new_with_span(text, span),
                });
            }
            parts.push(part);
        }
        // The note (facts side by side) comes first, then the fix.
        let help = finding.help.as_ref().map(|h| {
            let note = finding
                .note
                .as_ref()
                .map_or(String::new(), |n| format!("{n}\n"));
            let help = format!(
                "{}{}\n(`ownerlint explain {}` tells more)",
                super::escape::lines(&note),
                super::escape::text(h),
                finding.rule
            );
            wrap(&help, limit.saturating_sub(HELP_INDENT))
        });
        let severity = match finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        };
        // The first word, never broken: it starts the first line.
        let head = format!("{}[{}]", finding.severity, finding.rule);
        let message = format!(
            "{head}: {}",
            super::escape::text(&super::message_with_origin(finding))
        );
        let mut message = wrap(&message, limit.saturating_sub(MESSAGE_INDENT));
        if let Some(styles) = styles {
            let style = match severity {
                miette::Severity::Error => styles.error,
                miette::Severity::Warning => styles.warning,
                miette::Severity::Advice => styles.advice,
            };
            message.replace_range(..head.len(), &style.bold().style(&head).to_string());
        }
        Report {
            message,
            severity,
            help,
            source: Snippets { parts },
            labels,
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
            let room = columns[i].map(|column| limit.saturating_sub(column));
            Some(match room {
                Some(room) if room >= LABEL_MIN_WIDTH => wrap(text, room),
                _ => text.to_string(),
            })
        });
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
}
