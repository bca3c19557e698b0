//! Suppression next to the manifest: `# ownerlint: ignore[rule, …] reason` on a finding's line
//! or the line above, `# ownerlint: ignore-document[rule, …]` anywhere in a document, and the
//! annotation `ownerlint.dev/ignore: "rule,…"` on an object (it survives `helm template` and
//! `kubectl get`, which drop comments). Runs after every rule; a suppression that suppresses
//! nothing is reported as `unused-suppression`.

use crate::finding::Finding;
use crate::model::Object;
use crate::source::{Source, SourceId, Span};
use crate::yaml;

/// What a suppression covers.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Covers {
    /// Findings that start on this line or the next (0-based line index).
    Lines(usize),
    /// Findings inside this range of the source (a document, or an object).
    Range(Span),
}

#[derive(Clone, Debug)]
pub(crate) struct Suppression {
    source: SourceId,
    /// The directive (comment or annotation value).
    span: Span,
    covers: Covers,
    /// Each rule id, with its span and whether it suppressed something.
    rules: Vec<(String, Span, bool)>,
    form: &'static str,
}

/// A suppression that hid nothing, or could not be read: `unused-suppression` reports it.
#[derive(Clone, Debug)]
pub struct Unused {
    pub source: SourceId,
    pub span: Span,
    pub why: UnusedWhy,
}

#[derive(Clone, Debug)]
pub enum UnusedWhy {
    /// `rule` is named, and nothing it covers was `rule`'s: `place` says where it looked
    /// ("on this line or the next"). Whether `rule` is a rule at all is the rule's to say.
    Nothing { rule: String, place: &'static str },
    /// The suppression names no rule.
    NoRule,
    /// The directive could not be read.
    Malformed(String),
}

/// A directive that could not be read, reported as `unused-suppression`.
#[derive(Clone, Debug)]
pub(crate) struct Malformed {
    source: SourceId,
    span: Span,
    message: String,
}

/// The suppression comments of a source.
pub(crate) fn from_comments(id: SourceId, source: &Source) -> (Vec<Suppression>, Vec<Malformed>) {
    let text = &source.text;
    // Most files have none: one search instead of a walk over every line (a big text's
    // slices in parallel, each reaching into the next by the word's length, less one).
    const WORD: &[u8] = b"ownerlint:";
    let found = crate::source::find_in_slices(text.len(), |range| {
        let reach = (range.end + WORD.len() - 1).min(text.len());
        let found = text.with_bytes(range.start..reach, |bytes| {
            memchr::memmem::find_iter(bytes, WORD)
                .filter(|&at| at < range.len())
                .map(|at| range.start + at)
                .collect()
        });
        found.unwrap_or_default()
    });
    if found.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let documents = yaml::split_text(text, 0);
    let mut suppressions = Vec::new();
    let mut malformed = Vec::new();
    // A directive holds the word: only the lines with it are read (each once).
    let mut lines = Vec::new();
    for at in found {
        let index = source.line_index(at);
        if lines.last() != Some(&index) {
            lines.push(index);
        }
    }
    for index in lines {
        let line_start = source.line_start(index);
        let line_end = text.find(line_start, b"\n").unwrap_or(text.len());
        let Ok(line) = text.str(line_start..line_end) else {
            continue;
        };
        let line: &str = &line;
        let Some(hash) = directive_start(line) else {
            continue;
        };
        let start = line_start + hash;
        let directive = line[hash + 1..].trim_start();
        let body = directive.trim_start_matches("ownerlint:").trim_start();
        let body_at = line_end - body.len();
        let span = Span::new(start, line_end.min(text.len()));
        let (form, rest, rest_at) = if let Some(rest) = body.strip_prefix("ignore-document[") {
            ("ignore-document", rest, body_at + "ignore-document[".len())
        } else if let Some(rest) = body.strip_prefix("ignore[") {
            ("ignore", rest, body_at + "ignore[".len())
        } else {
            malformed.push(Malformed {
                source: id,
                span,
                message: "this `# ownerlint:` comment is not understood; write `# ownerlint: ignore[rule-id] reason` or `# ownerlint: ignore-document[rule-id]`".into(),
            });
            continue;
        };
        let Some(close) = rest.find(']') else {
            malformed.push(Malformed {
                source: id,
                span,
                message: "the rule list of this suppression has no closing `]`".into(),
            });
            continue;
        };
        let rules = rule_list(&rest[..close], rest_at);
        let covers = if form == "ignore" {
            Covers::Lines(index)
        } else {
            let document = documents
                .iter()
                .find(|d| d.span.start <= start && start < d.span.end.max(d.span.start + 1))
                .map_or(Span::new(0, text.len()), |d| d.span);
            Covers::Range(document)
        };
        suppressions.push(Suppression {
            source: id,
            span,
            covers,
            rules,
            form,
        });
    }
    (suppressions, malformed)
}

/// The annotation suppressions of objects.
pub(crate) fn from_annotations(objects: &[Object]) -> Vec<Suppression> {
    objects
        .iter()
        .filter(|o| !o.from_existing)
        .filter_map(|o| {
            let value = o.ignore_annotation()?;
            // The span of a quoted value starts at its quote.
            let quoted = usize::from(value.span.len() > value.value.len());
            Some(Suppression {
                source: o.source,
                span: value.span,
                covers: Covers::Range(o.span),
                rules: rule_list(&value.value, value.span.start + quoted),
                form: "the ownerlint.dev/ignore annotation",
            })
        })
        .collect()
}

/// `a, b` at offset `at` → each id with its span.
fn rule_list(list: &str, at: usize) -> Vec<(String, Span, bool)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for part in list.split(',') {
        let trimmed = part.trim();
        if !trimmed.is_empty() {
            let start = at + offset + (part.len() - part.trim_start().len());
            out.push((
                trimmed.to_string(),
                Span::new(start, start + trimmed.len()),
                false,
            ));
        }
        offset += part.len() + 1;
    }
    out
}

/// Where a `# ownerlint:` comment starts in a line: a `#` at the start of the line or after
/// whitespace (a `#` inside a word is not a comment in YAML).
fn directive_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    line.match_indices('#').map(|(i, _)| i).find(|&i| {
        (i == 0 || matches!(bytes[i - 1], b' ' | b'\t'))
            && line[i + 1..].trim_start().starts_with("ownerlint:")
    })
}

/// What suppression did.
pub(crate) struct Applied {
    /// The suppressions (and rule ids in them) that suppressed nothing, and the directives that
    /// could not be read.
    pub unused: Vec<Unused>,
    /// The findings taken out.
    pub suppressed: Vec<Finding>,
}

/// Take the suppressed findings out of `findings`. `sources` are those the findings and the
/// suppressions are in, by id. A finding taken back from a build to the file its object came
/// from is suppressed by comments there, and by the annotation of the object as built.
pub(crate) fn apply(
    findings: &mut Vec<Finding>,
    sources: &[&Source],
    mut suppressions: Vec<Suppression>,
    malformed: Vec<Malformed>,
) -> Applied {
    let suppressed: Vec<Finding> = findings
        .extract_if(.., |finding| {
            let places = std::iter::once((finding.primary.source, finding.primary.span.start))
                .chain(finding.built_at);
            let mut suppressed = false;
            for (id, start) in places {
                let source = sources[id.0 as usize];
                // The line is only needed for a comment's suppression.
                let line = std::cell::OnceCell::new();
                for suppression in suppressions.iter_mut().filter(|s| s.source == id) {
                    let covered = match suppression.covers {
                        Covers::Lines(l) => {
                            let line = *line.get_or_init(|| source.line_index(start));
                            line == l || line == l + 1
                        }
                        Covers::Range(span) => span.start <= start && start < span.end,
                    };
                    if !covered {
                        continue;
                    }
                    for (rule, _, used) in &mut suppression.rules {
                        if rule == finding.rule.id {
                            *used = true;
                            suppressed = true;
                        }
                    }
                }
            }
            suppressed
        })
        .collect();
    let mut unused = Vec::new();
    for suppression in &suppressions {
        let place = match (&suppression.covers, suppression.form) {
            (Covers::Lines(_), _) => "on this line or the next",
            (Covers::Range(_), "ignore-document") => "in this document",
            _ => "in this object",
        };
        for (rule, span, used) in &suppression.rules {
            if !*used {
                unused.push(Unused {
                    source: suppression.source,
                    span: *span,
                    why: UnusedWhy::Nothing {
                        rule: rule.clone(),
                        place,
                    },
                });
            }
        }
        if suppression.rules.is_empty() {
            unused.push(Unused {
                source: suppression.source,
                span: suppression.span,
                why: UnusedWhy::NoRule,
            });
        }
    }
    for m in malformed {
        unused.push(Unused {
            source: m.source,
            span: m.span,
            why: UnusedWhy::Malformed(m.message),
        });
    }
    Applied { unused, suppressed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_are_comments_not_words() {
        assert_eq!(directive_start("# ownerlint: ignore[x]"), Some(0));
        assert_eq!(
            directive_start("  name: a  # ownerlint: ignore[x]"),
            Some(11)
        );
        assert_eq!(directive_start("url: a#ownerlint: x"), None);
        assert_eq!(directive_start("# just a comment"), None);
    }

    #[test]
    fn rule_lists_keep_their_positions() {
        let list = rule_list(" a-b , c", 10);
        assert_eq!(list[0].0, "a-b");
        assert_eq!(list[0].1, Span::new(11, 14));
        assert_eq!(list[1].0, "c");
        assert_eq!(list[1].1, Span::new(17, 18));
    }
}
