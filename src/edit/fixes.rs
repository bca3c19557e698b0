//! The fixes findings carry, built from the byte edits of [`super::bytes`] on the text of the
//! object a finding is about. A fix is offered only when its edits are clean and no alias
//! repeats what they change; each builder returns `None` otherwise.

use super::bytes::{self, Window};
use crate::finding::{Applicability, Edit, Fix};
use crate::model::Object;
use crate::source::{Source, Span};
use serde_json::json;

/// The fixes that edit one object in its source.
#[derive(Clone, Copy)]
pub struct ObjectFixes<'a> {
    pub source: &'a Source,
    pub object: &'a Object,
}

impl ObjectFixes<'_> {
    /// A fix that writes `value` over the scalar at `span` (keeping its quotes); `None` when
    /// the scalar cannot be rewritten cleanly.
    pub fn replace(
        &self,
        span: Span,
        value: &str,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        let fix = self.one_edit(span, applicability, message, |window| {
            bytes::replace_scalar(window, span, value)
        })?;
        Some(self.with_patch(fix, |root| {
            // A string value: a key renamed has no plain JSON patch.
            let old = root.value_at(span)?.as_str()?;
            let path = root.json_pointer(span)?;
            Some(json!([
                {"op": "test", "path": path, "value": old},
                {"op": "replace", "path": path, "value": value},
            ]))
        }))
    }

    /// A fix that removes the node at `span` (a sequence item or a mapping entry), with its
    /// lines in block style and one comma in flow style.
    pub fn remove(
        &self,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        let fix = self.one_edit(span, applicability, message, |window| {
            bytes::remove_node(window, span).map(|removed| (removed, String::new()))
        })?;
        Some(self.with_patch(fix, |root| remove_item(root, span)))
    }

    /// A fix that removes the owner reference at `span`, the whole `ownerReferences` entry
    /// (with the comments under it) when it is the only one, rather than leaving the key
    /// holding nothing. When fixes of one round remove every reference of a list, `--fix`
    /// removes the key instead (`fix::whole_lists`).
    pub fn remove_owner_ref(
        &self,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        match &self.object.owner_refs {
            crate::model::OwnerRefs::List { refs, key, value } if refs.len() == 1 => {
                let (key, value) = (*key, *value);
                let entry = Span::new(key.start, value.end.max(key.end));
                self.one_edit(entry, applicability, message, |window| {
                    bytes::remove_entry(window, key, value).map(|removed| (removed, String::new()))
                })
            }
            _ => self.remove(span, applicability, message),
        }
    }

    /// A fix that removes the finalizer at `span`: in block style from its `-` (`- orphan`
    /// goes whole, with its line), in flow style with one comma; the only one goes with its
    /// `finalizers` key.
    pub fn remove_finalizer(
        &self,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        // Rare: the object is read again for where the key is.
        let only_item = self.whole_object(|node| {
            let (key, value) = node.get("metadata")?.entry("finalizers")?;
            match value.as_seq()? {
                [item] if item.span.start < span.end && span.start < item.span.end => {
                    Some((key.span, value.span))
                }
                _ => None,
            }
        });
        match only_item.flatten() {
            Some(entry) => self.remove_entries(&[vec![entry]], applicability, message),
            None => self.one_edit(span, applicability, message, |window| {
                bytes::remove_item(window, span).map(|removed| (removed, String::new()))
            }),
        }
    }

    /// A fix that removes mapping entries (each given by the spans of its key and its value),
    /// in runs of entries that follow one another in one mapping. Each entry is removed on its
    /// own (its lines in block style); a run whose removals would overlap (flow style, where
    /// neighbours share a comma) is removed as one node. `None` when an entry cannot be removed
    /// cleanly.
    pub fn remove_entries(
        &self,
        runs: &[Vec<(Span, Span)>],
        applicability: Applicability,
        message: impl Into<String>,
    ) -> Option<Fix> {
        use bytes::{entry, remove_node};
        let all = runs.iter().flatten();
        let start = all.clone().map(|(key, _)| key.start).min()?;
        let end = all.map(|(key, value)| value.end.max(key.end)).max()?;
        let removed = self.with_window(Span::new(start, end), |window| {
            let mut removed = Vec::new();
            for run in runs {
                let entries: Vec<Span> = run
                    .iter()
                    .map(|&(key, value)| entry(window, key, value))
                    .collect::<Option<_>>()?;
                let each: Vec<Span> = entries
                    .iter()
                    .map(|&span| remove_node(window, span))
                    .collect::<Option<_>>()?;
                let overlapping = each
                    .windows(2)
                    .any(|pair| pair[0].end > pair[1].start || pair[0].start == pair[1].start);
                match (overlapping, entries.first(), entries.last()) {
                    (true, Some(first), Some(last)) => {
                        removed.push(remove_node(window, Span::new(first.start, last.end))?);
                    }
                    _ => removed.extend(each),
                }
            }
            Some(removed)
        })?;
        if self.repeated_by_alias(&removed) {
            return None;
        }
        let source = self.object.source;
        Some(Fix::new(
            applicability,
            message,
            removed.into_iter().map(|span| Edit {
                source,
                span,
                replacement: String::new(),
            }),
        ))
    }

    /// `f` applied to the whole mapping of the object, parsed again from its text: the fast
    /// path keeps only the fields the rules declare, and a rule that fixes an object may need
    /// the others. `None` when the text no longer reads as it did.
    pub fn whole_object<R>(&self, f: impl FnOnce(&crate::yaml::Node) -> R) -> Option<R> {
        let extent = self.object.extent;
        // A big extent (a List read whole) is not parsed again for every object in it.
        if extent.len() > REPARSE_LIMIT {
            return None;
        }
        let text = self.source.text.str(extent.start..extent.end).ok()?;
        let document =
            crate::yaml::parse_at(&text, extent.start, crate::yaml::Limits::default()).ok()?;
        find_object(document.root.as_ref()?, self.object).map(f)
    }

    /// The field `span` falls in, as a path from the object's root. The fields in `kept` are
    /// read first, as the fast path reads them (a fraction of a whole parse); the whole object
    /// is parsed again only when the span is not in one of them.
    pub fn field_path(&self, span: Span, kept: &crate::fields::Kept) -> Option<String> {
        let extent = self.object.extent;
        if extent.len() <= REPARSE_LIMIT
            && let Ok(text) = self.source.text.str(extent.start..extent.end)
            && let Some(part) = crate::load::parse_filtered(
                &text,
                extent.start,
                crate::yaml::Limits::default(),
                kept,
            )
            && let Some(path) = part
                .root
                .as_ref()
                .and_then(|root| find_object(root, self.object))
                .and_then(|object| object.field_path_in_part(span))
        {
            return Some(path);
        }
        self.whole_object(|node| node.field_path(span)).flatten()
    }

    /// A fix of one edit, made by `edit` from the text around `span`.
    fn one_edit(
        &self,
        span: Span,
        applicability: Applicability,
        message: impl Into<String>,
        edit: impl FnOnce(Window) -> Option<(Span, String)>,
    ) -> Option<Fix> {
        let (span, replacement) = self.with_window(span, edit)?;
        if self.repeated_by_alias(&[span]) {
            return None;
        }
        Some(Fix::new(
            applicability,
            message,
            [Edit {
                source: self.object.source,
                span,
                replacement,
            }],
        ))
    }

    /// `fix` with the JSON patch `patch` makes of the object's tree, for an object captured
    /// from a cluster.
    fn with_patch(
        &self,
        mut fix: Fix,
        patch: impl FnOnce(&crate::yaml::Node) -> Option<serde_json::Value>,
    ) -> Fix {
        // A fix only shown (a choice the author must make) gets no command to run.
        if self.object.mode == crate::model::Mode::Snapshot
            && fix.applicability != crate::finding::Applicability::DisplayOnly
        {
            fix.patch = self.whole_object(patch).flatten();
        }
        fix
    }

    /// What `edit` makes of the text of the object's document, from its first line to a few
    /// lines after `span`.
    fn with_window<R>(&self, span: Span, edit: impl FnOnce(Window) -> Option<R>) -> Option<R> {
        const AFTER: usize = 8;
        let source = self.source;
        let from = source.line_start(source.line_index(self.object.span.start.min(span.start)));
        let last = source.line_index(span.end) + AFTER;
        let to = source.line_start(last + 1).min(source.text.len());
        let bytes = source.text.bytes(from..to).ok()?;
        edit(Window {
            bytes: &bytes,
            base: from,
        })
    }

    /// Whether one of `spans` is in a node that an alias repeats (`&refs` … `*refs`), where an
    /// edit would change every place that repeats it: such a fix is not offered. Only a
    /// document that holds a `&` is read again to tell.
    fn repeated_by_alias(&self, spans: &[Span]) -> bool {
        let text = &self.source.text;
        let extent = self.object.extent;
        // A big extent (a List read whole) is not parsed again for every object in it.
        if extent.len() > REPARSE_LIMIT {
            return true;
        }
        let has_anchor = text.with_bytes(extent.start..extent.end, |bytes| {
            memchr::memchr(b'&', bytes).is_some()
        });
        if has_anchor == Ok(false) {
            return false;
        }
        let Ok(slice) = text.str(extent.start..extent.end) else {
            return true;
        };
        match crate::yaml::parse_at(&slice, extent.start, crate::yaml::Limits::default()) {
            Ok(document) => document.aliased.iter().any(|aliased| {
                spans
                    .iter()
                    .any(|s| s.start < aliased.end && aliased.start < s.end.max(s.start + 1))
            }),
            Err(_) => true,
        }
    }
}

/// The JSON patch that removes the sequence item at `span`, guarded by a test of its uid when
/// it has one (an owner reference does): the index alone may name another item by then.
fn remove_item(root: &crate::yaml::Node, span: Span) -> Option<serde_json::Value> {
    let item = root.value_at(span)?;
    let path = root.json_pointer(span)?;
    if !path.rsplit('/').next()?.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ops = Vec::new();
    if let Some(uid) = item.get("uid").and_then(crate::yaml::Node::as_str) {
        ops.push(json!({"op": "test", "path": format!("{path}/uid"), "value": uid}));
    }
    ops.push(json!({"op": "remove", "path": path}));
    Some(serde_json::Value::Array(ops))
}

/// The entries of the mapping `map` whose keys are among `keys`, in runs of entries that follow
/// one another (for [`ObjectFixes::remove_entries`]): each as the index of its key in `keys`,
/// the span of the key and the span of the value.
pub(crate) fn entry_runs(map: &crate::yaml::Node, keys: &[&str]) -> Vec<Vec<(usize, Span, Span)>> {
    let mut runs = Vec::new();
    let mut run = Vec::new();
    for (k, v) in map.as_map().unwrap_or_default() {
        let key = k.as_scalar().map(|s| s.text.as_str());
        match keys.iter().position(|wanted| Some(*wanted) == key) {
            Some(i) => run.push((i, k.span, v.span)),
            None if !run.is_empty() => runs.push(std::mem::take(&mut run)),
            None => {}
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// The largest text read again for one object: a document or List item of one object stays far
/// below it; a List read whole (one with anchors) would be parsed again for each of its objects.
const REPARSE_LIMIT: usize = 256 << 10;

/// The mapping of `object` in a tree parsed again from its text: the one whose `kind` (or
/// `metadata.name`) is where the object's is.
fn find_object<'n>(node: &'n crate::yaml::Node, object: &Object) -> Option<&'n crate::yaml::Node> {
    use crate::yaml::Value;
    let at = |field: Option<&crate::yaml::Node>, span: Option<Span>| {
        field.is_some_and(|f| Some(f.span) == span)
    };
    match &node.value {
        Value::Map(entries) => {
            let name = node.get("metadata").and_then(|m| m.get("name"));
            if at(node.get("kind"), object.kind.as_ref().map(|k| k.span))
                || at(name, object.name.as_ref().map(|n| n.span))
            {
                return Some(node);
            }
            entries.iter().find_map(|(_, v)| find_object(v, object))
        }
        Value::Seq(items) => items.iter().find_map(|item| find_object(item, object)),
        Value::Scalar(_) => None,
    }
}
