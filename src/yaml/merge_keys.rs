//! `<<` merge keys, applied to a mapping as go-yaml v2 applies them.

use super::{Node, SyntaxError, Value};

/// A `<<` key: plain, as go-yaml and libyaml-based loaders take it (a quoted `"<<"` is a key).
pub(super) fn is_merge_key(key: &Node) -> bool {
    key.as_scalar().is_some_and(|s| s.plain && s.text == "<<")
}

/// A mapping's entries with its `<<` merge keys applied as go-yaml v2 applies them, which is
/// what Kubernetes' YAML reader (sigs.k8s.io/yaml) decodes with: entries are set in order, so a
/// merged key replaces an explicit one written before the `<<` and an explicit one written after
/// replaces a merged one; of a list of mappings, the first takes precedence. Merged entries keep
/// their spans at the anchored mapping they came from.
pub(super) fn apply_merges(entries: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, SyntaxError> {
    // Each entry with whether it came from a merge. Keys written twice in the mapping itself
    // stay twice (`duplicate-key` reports them); a merged key only ever replaces.
    let mut out: Vec<(Node, Node, bool)> = Vec::with_capacity(entries.len());
    let key_text = |key: &Node| key.as_scalar().map(|s| s.text.clone());
    for (key, value) in entries {
        if !is_merge_key(&key) {
            let text = key_text(&key);
            out.retain(|(k, _, merged)| !(*merged && text.is_some() && key_text(k) == text));
            out.push((key, value, false));
            continue;
        }
        let not_a_map = || SyntaxError {
            offset: value.span.start,
            message: "a `<<` merge key takes a mapping or a list of mappings".to_string(),
            hint: Some(
                "merge an anchored mapping (`<<: *base`) or a list of them (`<<: [*a, *b]`)",
            ),
        };
        let sources: Vec<&[(Node, Node)]> = match &value.value {
            Value::Map(map) => vec![map],
            // go-yaml sets the last mapping's keys first, so the first one's win.
            Value::Seq(items) => items
                .iter()
                .rev()
                .map(|item| item.as_map().ok_or_else(not_a_map))
                .collect::<Result<_, _>>()?,
            Value::Scalar(_) => return Err(not_a_map()),
        };
        for (k, v) in sources.into_iter().flatten() {
            let text = key_text(k);
            out.retain(|(old, _, _)| text.is_none() || key_text(old) != text);
            out.push((k.clone(), v.clone(), true));
        }
    }
    Ok(out.into_iter().map(|(k, v, _)| (k, v)).collect())
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse_stream;
    use super::*;

    fn merged_name(metadata: &str) -> String {
        let text = format!(
            "a: &a {{name: from-a, uid: a}}\nb: &b {{name: from-b, uid: b, namespace: b}}\nmetadata:\n{metadata}"
        );
        let root = parse_stream(&text).remove(0).unwrap().root.unwrap();
        let metadata = root.get("metadata").unwrap();
        ["name", "uid", "namespace"]
            .map(|k| metadata.get(k).and_then(Node::as_str).unwrap_or("-"))
            .join(" ")
    }

    #[test]
    fn merge_keys_are_applied_as_go_yaml_applies_them() {
        // Keys are set in order: an explicit key after the merge replaces the merged one, and a
        // merged key replaces an explicit one before it.
        assert_eq!(merged_name("  <<: *a\n  name: mine\n"), "mine a -");
        assert_eq!(merged_name("  name: mine\n  <<: *a\n"), "from-a a -");
        // Of a list, the first mapping takes precedence.
        assert_eq!(merged_name("  <<: [*a, *b]\n"), "from-a a b");
        assert_eq!(merged_name("  <<: [*b, *a]\n"), "from-b b b");
        // A quoted `<<` is an ordinary key.
        assert_eq!(merged_name("  \"<<\": *a\n  name: mine\n"), "mine - -");
        // A merged key is not a duplicate of the key it replaces.
        let text = "a: &a {name: x}\nm:\n  <<: *a\n  name: y\n";
        let root = parse_stream(text).remove(0).unwrap().root.unwrap();
        assert_eq!(root.get("m").unwrap().as_map().unwrap().len(), 1);
    }
}
