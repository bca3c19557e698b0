//! The line of a helm template that built a line of the built stream: the template's
//! document, the one line that reads the same (indentation aside), and the item of a `range`
//! that rendered it.

use crate::source::{Source, Span};
use crate::yaml;

/// The span of the `nth` document of `template` whose `kind:` line names `kind`, when there
/// are that many; else the whole template.
pub(super) fn template_document(template: &str, kind: &str, nth: usize) -> Span {
    let whole = Span::new(0, template.len());
    let documents = yaml::split_documents(template, 0);
    let of_kind: Vec<Span> = documents
        .iter()
        .map(|c| c.span)
        .filter(|span| {
            template[span.start..span.end].lines().any(|line| {
                line.strip_prefix("kind:")
                    .is_some_and(|k| k.trim().trim_matches(['"', '\'']) == kind)
            })
        })
        .collect();
    of_kind.get(nth).copied().unwrap_or(whole)
}

/// The one line of `template` within `region` that reads as the built line `span` starts on
/// (indentation aside), with `span` moved there.
pub(super) fn same_line(template: &str, region: Span, stream: &Source, span: Span) -> Option<Span> {
    let line_index = stream.line_index(span.start);
    let line_start = stream.line_start(line_index);
    let built = stream.line_text(line_index).into_owned();
    let text = built.trim();
    if text.is_empty() {
        return None;
    }
    let mut found = line_spans(template)
        .filter(|(at, _)| region.start <= *at && *at < region.end)
        .filter(|(_, line)| line.trim() == text);
    let (at, line) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    on_template_line(at, line, &built, span.start - line_start, span.len())
}

/// The span on template line `line` (at offset `at`) of what is `column` bytes into the
/// built line `built`, `len` bytes long (to the line's end when it runs past the built line).
pub(super) fn on_template_line(
    at: usize,
    line: &str,
    built: &str,
    column: usize,
    len: usize,
) -> Option<Span> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let start = at + indent(line) + column.checked_sub(indent(built))?;
    let end = if column + len <= built.len() {
        start + len
    } else {
        at + line.len()
    };
    Some(Span::new(start, end.min(at + line.len()).max(start)))
}

/// [`same_line`] for a built line that the template's document writes more than once, one of
/// them inside a `range` (a list's entries written before the range, and one in it): the
/// lines outside ranges render once each, in order, and the one inside renders the rest, so
/// the times the line was built before the label tell which template line built it.
pub(super) fn counted_line(
    template: &str,
    region: Span,
    stream: &Source,
    document: Span,
    span: Span,
) -> Option<Span> {
    let line_index = stream.line_index(span.start);
    let line_start = stream.line_start(line_index);
    let built = stream.line_text(line_index).into_owned();
    let text = built.trim();
    if text.is_empty() {
        return None;
    }
    let written: Vec<(usize, &str, bool)> = line_spans(template)
        .filter(|(at, _)| region.start <= *at && *at < region.end)
        .filter(|(_, line)| line.trim() == text)
        .map(|(at, line)| {
            let in_range = enclosing_range(template, at)
                .is_some_and(|(opener, _)| region.start <= opener.start);
            (at, line, in_range)
        })
        .collect();
    if written.len() < 2 || written.iter().filter(|(_, _, r)| *r).count() != 1 {
        return None;
    }
    let document_text = stream
        .text
        .str(document.start..document.end)
        .map(|t| t.into_owned())
        .unwrap_or_default();
    let before_label = line_start.saturating_sub(document.start);
    let same = |t: &str| t.lines().filter(|l| l.trim() == text).count();
    let mut before = same(document_text.get(..before_label).unwrap_or(""));
    let rendered = same(&document_text);
    let in_range = rendered.checked_sub(written.len() - 1)?;
    for (at, line, ranged) in written {
        let times = if ranged { in_range } else { 1 };
        if before < times {
            return on_template_line(at, line, &built, span.start - line_start, span.len());
        }
        before -= times;
    }
    None
}

/// What a helm build made from one template, for [`range_item`].
pub(super) struct RangeBuilt<'a> {
    pub(super) stream: &'a Source,
    /// From the start of the template's first document to the label.
    pub(super) before: Span,
    /// Every document the template made.
    pub(super) all: Vec<Span>,
    /// The built object's name, and that of the innermost list entry the label is in that
    /// has one (see [`item_name`]).
    pub(super) names: (Option<String>, Option<String>),
}

/// Which item of a `range` a place in a template was rendered by.
#[derive(Debug, PartialEq)]
pub(super) struct RangeItem {
    /// The 1-based line of the `range` action.
    pub(super) line: usize,
    /// 1-based.
    pub(super) ordinal: usize,
    pub(super) name: Option<String>,
}

impl RangeItem {
    /// "the 2nd item of the range at templates/cm.yaml:4, name: b".
    pub(super) fn describe(&self, template: &str) -> String {
        let n = self.ordinal;
        let suffix = match (n % 10, n % 100) {
            (_, 11..=13) => "th",
            (1, _) => "st",
            (2, _) => "nd",
            (3, _) => "rd",
            _ => "th",
        };
        let mut out = format!(
            "the {n}{suffix} item of the range at {template}:{}",
            self.line
        );
        if let Some(name) = &self.name {
            out.push_str(&format!(", name: {name}"));
        }
        out
    }
}

/// When `place` in `template` is inside a `range` that rendered more than one item, which
/// item rendered the built place: each item renders the range's body once, so the items before
/// it are counted by a line of the body that reads the same in each (one with no action, once
/// in the body), in what the template made up to the label, less the times the template writes
/// that line before the range.
pub(super) fn range_item(template: &str, place: Span, built: &RangeBuilt) -> Option<RangeItem> {
    let (opener, body) = enclosing_range(template, place.start)?;
    let literal = |line: &str| {
        let line = line.trim();
        !line.is_empty() && !line.starts_with('#') && !line.contains("{{")
    };
    let body_lines: Vec<(usize, &str)> = line_spans(template)
        .filter(|(at, line)| body.start <= *at && at + line.len() <= body.end)
        .collect();
    let once = |marker: &str| {
        body_lines
            .iter()
            .filter(|(_, line)| line.trim() == marker)
            .count()
            == 1
    };
    let (marker_at, marker) = body_lines
        .iter()
        .map(|(at, line)| (*at, line.trim()))
        .find(|(_, line)| literal(line) && once(line))?;
    let count = |text: &str| text.lines().filter(|line| line.trim() == marker).count();
    let written_before = count(&template[..opener.start]);
    let written_after = count(&template[body.end.min(template.len())..]);
    let stream_text = |span: Span| {
        built
            .stream
            .text
            .str(span.start..span.end)
            .map(|t| t.into_owned())
            .unwrap_or_default()
    };
    // The built line of the label counts when the marker is on or before its line.
    let line_end = |span: Span| {
        let index = built.stream.line_index(span.end);
        built.stream.line_start(index) + built.stream.line_text(index).len()
    };
    let marked = match marker_at <= place.start {
        true => count(&stream_text(Span::new(
            built.before.start,
            line_end(built.before),
        ))),
        false => count(&stream_text(built.before)) + 1,
    };
    let rendered: usize = built
        .all
        .iter()
        .map(|span| count(&stream_text(*span)))
        .sum();
    let items = rendered.checked_sub(written_before + written_after)?;
    let ordinal = marked.checked_sub(written_before)?;
    // A range that repeats whole objects is told by their names; one inside an object by the
    // entry's.
    let whole_objects = body_lines.iter().any(|(_, line)| line.starts_with("kind:"));
    let name = match whole_objects {
        true => built.names.0.clone(),
        false => built.names.1.clone(),
    };
    (items > 1 && (1..=items).contains(&ordinal)).then(|| RangeItem {
        line: template[..opener.start].matches('\n').count() + 1,
        ordinal,
        name: name.filter(|n| n.chars().count() <= 40),
    })
}

/// The innermost `{{ range }}` of `template` that holds offset `at`: its action and its body
/// (up to its `{{ end }}`).
pub(super) fn enclosing_range(template: &str, at: usize) -> Option<(Span, Span)> {
    // Each open block (`range`, `if`, `with`, `define`, `block`) and where it is.
    let mut open: Vec<(bool, Span)> = Vec::new();
    let mut innermost: Option<(usize, Span)> = None;
    let mut from = 0;
    while let Some(start) = template[from..].find("{{").map(|i| from + i) {
        let Some(end) = template[start..].find("}}").map(|i| start + i + 2) else {
            break;
        };
        if start >= at && innermost.is_none() {
            innermost = open
                .iter()
                .enumerate()
                .rev()
                .find(|(_, (range, _))| *range)
                .map(|(depth, (_, span))| (depth, *span));
            innermost?;
        }
        let action = template[start + 2..end - 2]
            .trim_start_matches('-')
            .trim_start();
        let word = action.split_whitespace().next().unwrap_or("");
        match word {
            "range" | "if" | "with" | "define" | "block" => {
                open.push((word == "range", Span::new(start, end)));
            }
            "end" => {
                let closed = open.pop();
                if let (Some((depth, opener)), Some(_)) = (innermost, closed)
                    && open.len() == depth
                {
                    return Some((opener, Span::new(opener.end, start)));
                }
            }
            _ => {}
        }
        from = end;
    }
    None
}

/// Each line of `text` with the offset it starts at, without its line end.
pub(super) fn line_spans(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line.trim_end_matches(['\n', '\r']))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_range_around_a_place_is_found_with_its_body() {
        let template = "a: 1\n{{- range .Values.x }}\n- b: {{ . }}\n  {{- if .c }}\n  c: 1\n  {{- end }}\n{{- end }}\nd: 2\n";
        let at = |text: &str| template.find(text).expect("in the template");
        let (opener, body) = enclosing_range(template, at("  c: 1")).expect("in the range");
        assert_eq!(
            &template[opener.start..opener.end],
            "{{- range .Values.x }}"
        );
        assert!(template[body.start..body.end].ends_with("{{- end }}\n"));
        assert!(template[body.start..body.end].contains("- b:"));
        assert_eq!(enclosing_range(template, at("a: 1")), None);
        assert_eq!(enclosing_range(template, at("d: 2")), None);
    }

    #[test]
    fn items_are_counted_in_ordinals() {
        let item = |ordinal| RangeItem {
            line: 4,
            ordinal,
            name: None,
        };
        let said: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101]
            .into_iter()
            .map(|n| item(n).describe("t.yaml"))
            .map(|d| d.split(' ').nth(1).unwrap_or_default().to_string())
            .collect();
        assert_eq!(
            said,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"
            ]
        );
    }
}
