//! The fast path: most of a cluster dump is `managedFields`, `spec` and `status` that no rule
//! reads. Before parsing, a line-level filter keeps only the declared fields of each object
//! (`crate::fields`: those every stage reads and those the rules declare, by the object's kind),
//! and the items of a List filtered the same way, and remembers where each kept line came from,
//! so every span still points into the original file.
//!
//! It declines (and the document is parsed whole) whenever it cannot be sure to keep the same
//! meaning: whatever the line scanner (`scan.rs`) does not vouch for, flow style or a quoted key
//! with escapes where it decides, and any kept text that does not parse.

use super::scan::{Line, find_space_hash, with_lines};
use crate::fields::{API_VERSION, KIND, Keep, Kept};
use crate::model::kind_of;
use crate::source::Span;

/// A document reduced to the lines the rules read: the scanner's lines for them, in the
/// document's own offsets.
pub struct Filtered {
    pub lines: Vec<Line>,
}

impl Filtered {
    /// The kept lines as one text, for the YAML parser, with the way back to the document.
    pub fn joined(&self, text: &str) -> Joined {
        let mut joined = String::with_capacity(self.lines.iter().map(|l| l.end - l.start).sum());
        let mut segments: Vec<(usize, usize)> = Vec::new();
        let mut run_end = None;
        for line in &self.lines {
            // A new segment where a line does not follow the one before it.
            if run_end != Some(line.start) {
                segments.push((joined.len(), line.start));
            }
            joined.push_str(&text[line.start..line.end]);
            run_end = Some(line.end);
        }
        Joined {
            text: joined,
            segments,
        }
    }
}

/// The kept lines of a document as one text.
pub struct Joined {
    pub text: String,
    /// `(offset in text, offset in the original)` at the start of each kept run of lines.
    segments: Vec<(usize, usize)>,
}

impl Joined {
    /// The original offset of an offset in the joined text.
    pub fn map(&self, offset: usize) -> usize {
        let i = self.segments.partition_point(|&(f, _)| f <= offset);
        match i.checked_sub(1) {
            Some(i) => {
                let (f, o) = self.segments[i];
                o + (offset - f)
            }
            None => offset,
        }
    }

    pub fn map_span(&self, span: Span) -> Span {
        if span.is_empty() {
            let at = self.map(span.start);
            return Span::new(at, at);
        }
        // The end is exclusive: map its last byte, so an end at a gap stays before it.
        Span::new(self.map(span.start), self.map(span.end - 1) + 1)
    }
}

/// Whether an object's keys write `kind` or `apiVersion` twice: the parser reads the last, and
/// the filter, which decides by them, leaves such an object to it.
pub(crate) fn identity_written_twice<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> bool {
    let count = |key: &str| keys.clone().filter(|k| *k == key).count();
    count(KIND.key()) > 1 || count(API_VERSION.key()) > 1
}

/// Filter the document `text` (one chunk of a stream). `None`: parse it whole.
pub fn filter(text: &str, max_depth: usize, kept: &Kept) -> Option<Filtered> {
    with_lines(text, max_depth, |lines| filter_lines(text, lines, kept))
}

fn filter_lines(text: &str, lines: &[Line], fields: &Kept) -> Option<Filtered> {
    let mut kept: Vec<(usize, usize)> = Vec::new();
    // Leading comments (`# Source:`), directives markers and blank lines stay as they are.
    let first = lines.iter().position(|l| !l.blank && !is_marker(text, l))?;
    for line in &lines[..first] {
        if text[line.start..line.end].starts_with('%') {
            return None;
        }
        kept.push((line.start, line.end));
    }
    if lines[first].indent != 0 {
        return None;
    }
    let body = &lines[first..];
    let end = body
        .iter()
        .position(|l| is_document_end(text, l))
        .unwrap_or(body.len());
    object_at(text, &body[..end], 0, false, fields, &mut kept)?;
    finish(lines, kept)
}

/// The lines of the kept ranges, in order.
fn finish(lines: &[Line], kept: Vec<(usize, usize)>) -> Option<Filtered> {
    let mut kept_lines = Vec::new();
    for (start, end) in merge(kept) {
        let first = lines.partition_point(|l| l.start < start);
        let run = lines[first..].iter().take_while(|l| l.end <= end);
        kept_lines.extend(run);
    }
    Some(Filtered { lines: kept_lines })
}

/// Filter one item of a `kind: List` (`- apiVersion: …` and its more indented lines).
pub fn filter_item(text: &str, max_depth: usize, fields: &Kept) -> Option<Filtered> {
    with_lines(text, max_depth, |lines| {
        let mut kept = Vec::new();
        items(text, lines, fields, &mut kept)?;
        finish(lines, kept)
    })
}

fn is_marker(text: &str, line: &Line) -> bool {
    let t = &text[line.start..line.end];
    t.starts_with("---") || t.starts_with('%')
}

fn is_document_end(text: &str, line: &Line) -> bool {
    line.indent == 0 && text[line.start..line.end].trim_end() == "..."
}

/// Adjacent kept ranges as one.
fn merge(mut ranges: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    ranges.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if last.1 == s => last.1 = e,
            _ => out.push((s, e)),
        }
    }
    out
}

/// The key of an entry line at `indent` (after a `- ` when `item` is set), if it is a plain key
/// followed by `:`; `Err` when it is something the filter must not guess about.
fn key_of<'t>(text: &'t str, line: &Line, at: usize) -> Result<&'t str, ()> {
    let content = &text[line.start + at..line.end];
    let first = content.bytes().next().ok_or(())?;
    if let b'"' | b'\'' = first {
        // A quoted key without escapes (`"helm.sh/hook": …`) reads as its text.
        let close = content[1..].find(first as char).ok_or(())? + 1;
        let key = &content[1..close];
        let plain_text = !key.contains(['\\', '"', '\'']) && !key.is_empty();
        return match &content.as_bytes()[close + 1..] {
            [b':'] | [b':', b' ' | b'\n', ..] if plain_text => Ok(key),
            _ => Err(()),
        };
    }
    if matches!(first, b'{' | b'[' | b'?' | b'&' | b'*' | b'!' | b'|' | b'>') {
        return Err(());
    }
    let colon = first_colon(content).ok_or(())?;
    let after = content.as_bytes().get(colon + 1);
    if !matches!(after, None | Some(b' ' | b'\n' | b'\r')) {
        return Err(());
    }
    let key = &content[..colon];
    // `<<` merges another mapping's keys in: only the parser applies it.
    // `$patch` makes the document a strategic merge patch: only the parser reads it.
    if key.is_empty() || key.contains(['#', ' ', ',']) || key == "<<" || key.starts_with('$') {
        return Err(());
    }
    Ok(key)
}

/// Where the first `:` of a line is: keys are short, and a plain loop finds it sooner than a
/// vectorised search gets started.
fn first_colon(line: &str) -> Option<usize> {
    line.bytes().position(|b| b == b':')
}

/// The plain scalar after `key:` on the same line, unquoted.
fn inline_value<'t>(text: &'t str, line: &Line, at: usize) -> Option<&'t str> {
    let content = &text[line.start + at..line.end];
    let value = content[first_colon(content)? + 1..].trim();
    let value = value[..find_space_hash(value).unwrap_or(value.len())].trim();
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value);
    (!value.is_empty()).then_some(value)
}

/// The entries of a block mapping whose keys are at `indent`: for each, its key, and the range of
/// `lines` it spans (its key line, then every line more indented, or a `- ` item at the same
/// indent, or blank). In a sequence item the first key follows the `- ` on the first line.
fn entries<'t>(
    text: &'t str,
    lines: &[Line],
    indent: usize,
    in_item: bool,
) -> Option<Vec<(&'t str, usize, usize)>> {
    let mut out: Vec<(&str, usize, usize)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        if line.blank {
            i += 1;
            continue;
        }
        let first_of_item = i == 0 && in_item;
        if line.indent != indent && !first_of_item {
            return None;
        }
        let at = indent;
        let key = key_of(text, line, at).ok()?;
        let mut j = i + 1;
        while j < lines.len() {
            let next = &lines[j];
            let continues = next.blank
                || next.indent > indent
                || (next.indent == indent && text[next.start + indent..next.end].starts_with("- "));
            if !continues {
                break;
            }
            j += 1;
        }
        out.push((key, i, j));
        i = j;
    }
    Some(out)
}

/// Keep the declared fields of one object (a mapping with keys at `indent`; in a sequence
/// item, the first key follows the `- `).
fn object_at(
    text: &str,
    lines: &[Line],
    indent: usize,
    in_item: bool,
    fields: &Kept,
    kept: &mut Vec<(usize, usize)>,
) -> Option<()> {
    let entries = entries(text, lines, indent, in_item)?;
    if identity_written_twice(entries.iter().map(|&(k, _, _)| k)) {
        return None;
    }
    let kind = entries
        .iter()
        .find(|(k, _, _)| *k == KIND.key())
        .map(|&(_, i, _)| inline_value(text, &lines[i], indent))?;
    let api_version = entries
        .iter()
        .find(|(k, _, _)| *k == API_VERSION.key())
        .and_then(|&(_, i, _)| inline_value(text, &lines[i], indent));
    let is_list = kind.is_some_and(|k| k.ends_with("List"));
    let keep_of = fields.object(kind_of(api_version, kind.unwrap_or("")));
    // An item's first line holds its `- `: dropping it would join the item to the one before.
    if in_item
        && entries
            .first()
            .is_some_and(|&(key, _, _)| keep_of.get(key).is_none())
    {
        return None;
    }
    for &(key, from, to) in &entries {
        if key == "items" && is_list {
            // The key line, then each item filtered as an object.
            kept.push((lines[from].start, lines[from].end));
            items(text, &lines[from + 1..to], fields, kept)?;
        } else if let Some(rule) = keep_of.get(key) {
            keep(text, &lines[from..to], indent, rule, kept)?;
        }
    }
    Some(())
}

/// The items of a block sequence of objects.
fn items(text: &str, lines: &[Line], fields: &Kept, kept: &mut Vec<(usize, usize)>) -> Option<()> {
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        if line.blank {
            kept.push((line.start, line.end));
            i += 1;
            continue;
        }
        if !text[line.start + line.indent..line.end].starts_with("- ") {
            return None;
        }
        let dash = line.indent;
        let mut j = i + 1;
        while j < lines.len() && (lines[j].blank || lines[j].indent > dash) {
            j += 1;
        }
        object_at(text, &lines[i..j], dash + 2, true, fields, kept)?;
        i = j;
    }
    Some(())
}

/// Keep one entry (its `lines`, the key at `indent`) by `rule`.
fn keep(
    text: &str,
    lines: &[Line],
    indent: usize,
    rule: &Keep,
    kept: &mut Vec<(usize, usize)>,
) -> Option<()> {
    if rule.all {
        kept.push((lines[0].start, lines[lines.len() - 1].end));
        return Some(());
    }
    // The key line must open a block mapping: nothing after the colon.
    let head = &lines[0];
    if inline_value(text, head, indent).is_some() {
        // `metadata: {…}` and the like: keep as written, the parser decides.
        kept.push((head.start, lines[lines.len() - 1].end));
        return Some(());
    }
    kept.push((head.start, head.end));
    let body = &lines[1..];
    let Some(child) = body.iter().find(|l| !l.blank).map(|l| l.indent) else {
        return Some(());
    };
    for (key, from, to) in entries(text, body, child, false)? {
        if let Some(r) = rule.get(key) {
            keep(text, &body[from..to], child, r, kept)?;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept lines, which the tree builder reads, as one text: the joined text's lines.
    fn lines_of(filtered: &Filtered, text: &str) -> String {
        filtered
            .lines
            .iter()
            .map(|l| &text[l.start..l.end])
            .collect()
    }

    #[test]
    fn keeps_what_rules_read_and_maps_back() {
        let text = "# Source: chart/templates/a.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  managedFields:\n  - manager: x\n    fieldsV1: {}\n  annotations:\n    a: b\n    ownerlint.dev/ignore: x\n  name: a\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\nspec:\n  containers: []\nstatus:\n  hostIP: 1.2.3.4\n  phase: Running\n";
        let filtered = filter(text, 200, crate::rules::kept()).expect("a plain dump document");
        let f = filtered.joined(text);
        assert_eq!(lines_of(&filtered, text), f.text);
        assert_eq!(
            f.text,
            "# Source: chart/templates/a.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    ownerlint.dev/ignore: x\n  name: a\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\nstatus:\n  phase: Running\n"
        );
        let name = f.text.find("name: a").expect("kept");
        assert_eq!(&text[f.map(name)..f.map(name) + 7], "name: a");
        let phase = f.text.find("phase").expect("kept");
        assert_eq!(&text[f.map(phase)..f.map(phase) + 5], "phase");
    }

    #[test]
    fn declines_what_it_cannot_be_sure_of() {
        let twice = "apiVersion: v1\nkind: ConfigMap\nkind: List\nitems: []\n";
        let unkept_first = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n- data: {}\n  kind: ConfigMap\n";
        assert!(filter(unkept_first, 200, crate::rules::kept()).is_none());
        assert!(filter(twice, 200, crate::rules::kept()).is_none());
        assert!(filter("{apiVersion: v1, kind: Pod}\n", 200, crate::rules::kept()).is_none());
        assert!(
            filter(
                "apiVersion: v1\nkind: Pod\nmetadata: &m\n  name: a\n",
                200,
                crate::rules::kept()
            )
            .is_none()
        );
        assert!(
            filter(
                "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: a\n",
                200,
                crate::rules::kept()
            )
            .is_none()
        );
        assert!(
            filter(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .x }}\n",
                200,
                crate::rules::kept()
            )
            .is_none()
        );
        assert!(
            filter(
                "\"api\\u0056ersion\": v1\nkind: Pod\n",
                200,
                crate::rules::kept()
            )
            .is_none()
        );
    }

    #[test]
    fn keeps_the_fields_declared_for_the_kind() {
        let kept = |text: &str| {
            let filtered = filter(text, 200, crate::rules::kept()).expect("a plain document");
            lines_of(&filtered, text)
        };
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: a.io\n  scope: Cluster\nstatus: {}\n";
        assert_eq!(kept(crd), crd.replace("status: {}\n", ""));
        let rc = "apiVersion: v1\nkind: ReplicationController\nspec:\n  replicas: 1\n  template:\n    metadata:\n      labels: {app: a}\n    spec: {}\n";
        assert_eq!(
            kept(rc),
            "apiVersion: v1\nkind: ReplicationController\nspec:\n  template:\n    metadata:\n      labels: {app: a}\n"
        );
        let pod = "apiVersion: v1\nkind: Pod\nspec:\n  selector: {}\n";
        assert_eq!(kept(pod), "apiVersion: v1\nkind: Pod\n");
    }

    #[test]
    fn filters_list_items_one_by_one() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: b\n  metadata:\n    name: x\n- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata:\n    name: y\n  spec:\n    replicas: 1\n    selector:\n      matchLabels: {app: y}\nmetadata:\n  resourceVersion: \"\"\n";
        let filtered = filter(text, 200, crate::rules::kept()).expect("a list");
        let f = filtered.joined(text);
        assert_eq!(lines_of(&filtered, text), f.text);
        assert_eq!(
            f.text,
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata:\n    name: y\n  spec:\n    selector:\n      matchLabels: {app: y}\nmetadata:\n  resourceVersion: \"\"\n"
        );
    }
}
