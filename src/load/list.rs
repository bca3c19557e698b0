//! Lists: a `kind: List` document split into its items, each loaded on its own, before it is
//! parsed; and the objects of a document that is parsed whole, a List's items among them.

use super::LoadOptions;
use super::json;
use super::template::raw_origin;
use super::units::Unit;
use crate::fields::Field;
use crate::model::{Object, Spanned};
use crate::source::{Part, SourceId, Span, Text};
use crate::yaml::{self, Node, Value};

/// One item of a List: its range (in YAML, from its `- `), where the List's `# Source:`
/// comment names its template (if it has one), and whether the List is JSON.
#[derive(Clone, Copy)]
pub(super) struct ListItem {
    pub(super) item: Span,
    pub(super) origin: Option<Span>,
    pub(super) json: bool,
}

/// A List's header and its items, if the document is a List that loads item by item.
/// `chunk_text` is the document's text, if it is read already; `is_json` whether it is JSON.
pub(super) fn push_list(
    text: &Text,
    chunk: yaml::Chunk,
    chunk_text: Option<&str>,
    is_json: bool,
    options: LoadOptions,
    units: &mut Vec<Unit>,
) -> bool {
    let span = chunk.span;
    // A document that does not say `List` anywhere is not one (and most are small).
    let yaml_items = match chunk_text {
        Some(chunk_text) if !chunk_text.contains("List") => None,
        _ => list_items(text, span),
    };
    let items = yaml_items.map(|items| (items, false)).or_else(|| {
        // A JSON List is split by `serde_json`, a part of the fast path: `--full-parse`
        // reads it whole.
        options.fast_path?;
        if !is_json {
            return None;
        }
        let read;
        let chunk_text = match chunk_text {
            Some(chunk_text) => chunk_text,
            None => {
                read = text.str(span.start..span.end).ok()?;
                &read
            }
        };
        let items = json::list_items(chunk_text, span.start, options.limits.max_depth);
        items.map(|items| (items, true))
    });
    let Some((items, json)) = items else {
        return false;
    };
    // JSON has no comments, so no `# Source:`. The comment is above the first item.
    let header = items
        .first()
        .filter(|_| !json)
        .and_then(|first| text.str(span.start..first.start).ok());
    let origin = header.as_deref().and_then(|header| {
        let name = raw_origin(header)?;
        let start = span.start + (name.as_ptr() as usize - header.as_ptr() as usize);
        Some(Span::new(start, start + name.len()))
    });
    units.push(Unit::ListHeader);
    units.extend(
        items
            .into_iter()
            .map(|item| Unit::ListItem(ListItem { item, origin, json })),
    );
    true
}

/// The items of a `kind: List` document as `kubectl get -o yaml` writes it: top-level keys at
/// column 0, `items:` followed by block sequence items whose `- ` is at column 0. `None` for
/// anything else (typed lists, flow style, template text), which loads as one document.
fn list_items(text: &Text, chunk: Span) -> Option<Vec<Span>> {
    let len = chunk.len();
    // Only lines at column 0 decide; the indented, blank and comment lines after an item
    // belong to it, so an item ends where the next deciding line starts. A big List is read in
    // parallel, a slice at a time (each into a buffer of its own), in the same pass that looks
    // for a template's `{{`; each line is told apart while its slice is read.
    let found = crate::source::find_in_slices(len, |range| {
        // Reaching into the next slice far enough to see a pattern that starts in this one.
        let read = chunk.start + range.start..chunk.start + (range.end + 3).min(len);
        // A slice that cannot be read (the file changed) leaves the document whole.
        let found = text.with_bytes(read, |window| slice_lines(text, chunk, range, window));
        found.unwrap_or_else(|_| vec![Line::Whole])
    });
    let mut items: Vec<Span> = Vec::new();
    let mut is_list = false;
    let mut in_items = false;
    for line in found {
        let Line::Deciding(start, line) = line else {
            return None;
        };
        if let Some(last) = items.last_mut().filter(|_| in_items) {
            last.end = chunk.start + start;
        }
        if let TopLine::Item { empty } = line {
            if !in_items || empty {
                return None;
            }
            items.push(Span::new(chunk.start + start, chunk.end));
            continue;
        }
        in_items = false;
        match line {
            TopLine::Kind { list } => is_list = list,
            TopLine::Items => in_items = true,
            TopLine::Header => {}
            TopLine::Item { .. } | TopLine::Other => return None,
        }
    }
    (is_list && !items.is_empty()).then_some(items)
}

/// What [`list_items`] finds in the slice `range` of the document `chunk`: `window` holds the
/// slice's bytes and a few after it.
fn slice_lines(
    text: &Text,
    chunk: Span,
    range: std::ops::Range<usize>,
    window: &[u8],
) -> Vec<Line> {
    let len = chunk.len();
    let reach = (range.end + 1).min(len);
    let whole = (memchr::memmem::find(&window[..reach - range.start], b"{{").is_some()
        || has_alias(window))
    .then_some(Line::Whole);
    let after_newlines = memchr::memchr_iter(b'\n', &window[..range.len()])
        .map(|i| range.start + i + 1)
        .filter(|&i| i < len && window[i - range.start] != b' ');
    let first = (range.start == 0 && window.first().is_some_and(|&b| b != b' ')).then_some(0);
    // A deciding line, from the window, or read on its own where it runs past it.
    let line = |start: usize| -> Option<TopLine> {
        let rest = &window[start - range.start..];
        match memchr::memchr(b'\n', rest) {
            Some(i) => TopLine::of(&rest[..=i]),
            None if range.start + window.len() == len => TopLine::of(rest),
            None => {
                let from = chunk.start + start;
                let end = text
                    .find(from, b"\n")
                    .map_or(chunk.end, |i| (i + 1).min(chunk.end));
                TopLine::of(&text.bytes(from..end).ok()?)
            }
        }
    };
    let deciding = first
        .into_iter()
        .chain(after_newlines)
        .filter_map(|start| Some(Line::Deciding(start, line(start)?)));
    whole.into_iter().chain(deciding).collect()
}

/// Whether `bytes` hold what reads as an alias (`: *name`, `- *name`, `<<: *name`, `[*name`,
/// `, *name`).
fn has_alias(bytes: &[u8]) -> bool {
    let named = |at: usize| bytes.get(at).is_some_and(|b| !b" \t\r\n".contains(b));
    [&b": *"[..], b"- *", b", *"]
        .into_iter()
        .any(|pattern| memchr::memmem::find_iter(bytes, pattern).any(|at| named(at + 3)))
        || memchr::memmem::find_iter(bytes, b"[*").any(|at| named(at + 2))
}

/// What [`list_items`] finds in a slice of a document.
enum Line {
    /// A line at column 0 that is not blank, a comment or a document marker, from its start.
    Deciding(usize, TopLine),
    /// A template's `{{`, or an alias (`*name`), which may name an anchor of another item: the
    /// document is read whole.
    Whole,
}

/// A line at column 0 of a document, as [`list_items`] tells them apart.
#[derive(Clone, Copy)]
enum TopLine {
    /// `- …`, a sequence item (`empty` when nothing follows the `- `).
    Item { empty: bool },
    /// `kind: …`, and whether it says `List`.
    Kind { list: bool },
    /// `items:` with nothing after it.
    Items,
    /// `apiVersion: …` or `metadata: …`.
    Header,
    /// Anything else: the document is not a List as `kubectl get` writes one.
    Other,
}

impl TopLine {
    /// What `line` (with its line break) is; `None` for a blank, comment or marker line, which
    /// decides nothing.
    fn of(line: &[u8]) -> Option<TopLine> {
        // A line that is not text any more (the file changed) is not a List's.
        let Ok(line) = std::str::from_utf8(line) else {
            return Some(TopLine::Other);
        };
        let trimmed = line.trim_end();
        let blank = trimmed.trim_start().is_empty() || trimmed.trim_start().starts_with('#');
        if blank || trimmed == "---" || trimmed == "..." {
            return None;
        }
        if let Some(rest) = line.strip_prefix("- ") {
            return Some(TopLine::Item {
                empty: rest.trim().is_empty(),
            });
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Some(TopLine::Other);
        };
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        Some(match key {
            "kind" => TopLine::Kind {
                list: value == "List",
            },
            "items" if value.is_empty() => TopLine::Items,
            "apiVersion" | "metadata" => TopLine::Header,
            _ => TopLine::Other,
        })
    }
}

/// The objects a document holds: itself, the items of a list, or the items of a top-level
/// sequence. Documents that are not Kubernetes objects are counted in `skipped`.
pub(super) fn collect_objects(
    root: &Node,
    text: Part<'_>,
    id: SourceId,
    held: &[Field],
    out: &mut Vec<Object>,
    skipped: &mut usize,
) {
    match &root.value {
        Value::Map(_) => {
            let kind = root.get("kind").and_then(Node::as_str);
            let items = root.get("items");
            // A typed List whose `items` are null is empty: `kubectl cluster-info dump` writes
            // an empty kind so (`"items": null`), and `kubectl get -f` reads it as no objects.
            let empty_list =
                kind.is_some_and(|kind| kind.ends_with("List")) && items.is_some_and(Node::is_null);
            let items = match empty_list {
                true => Some(&[][..]),
                false => items.and_then(Node::as_seq),
            };
            match (kind, items) {
                (Some(kind), Some(items)) if kind.ends_with("List") => {
                    expand_list(root, text, kind, items, (id, held), out, skipped)
                }
                (None, Some(items)) if root.get("apiVersion").is_none() => {
                    expand_list(root, text, "", items, (id, held), out, skipped)
                }
                _ if is_object(root) => {
                    out.push(Object::from_node(root, text, id, (None, None), held))
                }
                _ => *skipped += 1,
            }
        }
        Value::Seq(items) if items.iter().any(is_object) => {
            for item in items {
                if is_object(item) {
                    out.push(Object::from_node(item, text, id, (None, None), held));
                } else {
                    *skipped += 1;
                }
            }
        }
        _ => *skipped += 1,
    }
}

fn expand_list(
    root: &Node,
    text: Part<'_>,
    list_kind: &str,
    items: &[Node],
    (id, held): (SourceId, &[Field]),
    out: &mut Vec<Object>,
    skipped: &mut usize,
) {
    // A typed list (`PodList`) names its items' kind; `List` does not.
    let item_kind = list_kind
        .strip_suffix("List")
        .filter(|k| !k.is_empty())
        .and_then(|k| {
            let (key, _) = root.entry("kind")?;
            Some(Spanned {
                value: k.to_string(),
                span: key.span,
            })
        });
    let item_api_version = item_kind.as_ref().and_then(|_| {
        let (key, value) = root.entry("apiVersion")?;
        Some(Spanned {
            value: value.as_str()?.to_string(),
            span: key.span,
        })
    });
    for item in items {
        let has_kind = has_value(item, "kind") || item_kind.is_some();
        let has_api = has_value(item, "apiVersion") || item_api_version.is_some();
        if item.as_map().is_some() && has_kind && has_api {
            out.push(Object::from_node(
                item,
                text,
                id,
                (item_api_version.as_ref(), item_kind.as_ref()),
                held,
            ));
        } else {
            *skipped += 1;
        }
    }
}

/// A Kubernetes object: a mapping with apiVersion and kind, that is not a strategic merge
/// patch (`$patch: delete` and the like, in a kustomize patch file). Whatever their values
/// (`apiVersion: 1` is an object kubectl refuses, which `field-type-invalid` reports), as long
/// as they are set.
pub(super) fn is_object(node: &Node) -> bool {
    has_value(node, "apiVersion") && has_value(node, "kind") && node.get("$patch").is_none()
}

/// Whether `key` is set in `node` to something other than null.
fn has_value(node: &Node, key: &str) -> bool {
    node.get(key).is_some_and(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load;
    use crate::model::Mode;
    use crate::source::Source;

    #[test]
    fn the_items_of_a_list_from_a_template_carry_its_name() {
        let text = "# Source: shop/templates/list.yaml\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n";
        let loaded = load(
            SourceId(0),
            &Source::new("list.yaml", text),
            LoadOptions::default(),
        );
        let names: Vec<_> = loaded
            .objects
            .iter()
            .map(|o| {
                (
                    o.name.as_ref().map(|n| n.value.as_str()),
                    o.origin(),
                    o.mode,
                )
            })
            .collect();
        let origin = Some("shop/templates/list.yaml");
        assert_eq!(
            names,
            [
                (Some("a"), origin, Mode::Apply),
                (Some("b"), origin, Mode::Apply)
            ]
        );
    }
}
