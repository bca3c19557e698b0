//! Documents that Kubernetes' own reader (go-yaml, a port of libyaml) reads are read, with the
//! values it gives them: quoted scalars continued at their key's indentation, any number of
//! comments, `<<` merge keys, YAML 1.1 booleans. What it cannot decode is an error at its place.
//! Each case runs through the fast path and the full parse, which must agree.

use crate::common;

/// The `short` lines of a lint of `text`, the same with and without the fast path.
fn lint(text: &str) -> String {
    common::lint_short_both_ways("doc.yaml", text)
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n";

#[test]
fn a_quoted_scalar_continued_at_its_keys_indentation_is_read() {
    let text = format!(
        "{POD}spec:\n  description: 'Widget is the Schema for the widgets API, described at\n  length on a second line.'\n  containers: []\n"
    );
    assert_eq!(lint(&text), "");
}

#[test]
fn any_number_of_comments_between_a_key_and_its_value_is_read() {
    let comments: String = (0..300).map(|i| format!("  # note {i}\n")).collect();
    let text = format!("{POD}data:\n  key:\n{comments}    value\n");
    assert_eq!(lint(&text), "");
}

#[test]
fn owner_references_brought_in_by_a_merge_key_are_checked() {
    let text = "apiVersion: v1\nkind: Pod\nx-owner: &owner\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: \"\"\nmetadata:\n  <<: *owner\n  name: web-1\n  namespace: shop\n";
    let short = lint(text);
    // At the anchored mapping the reference came from.
    assert!(
        short.starts_with("doc.yaml:8:10: error[owner-ref-invalid]: uid is empty"),
        "{short}"
    );
}

#[test]
fn a_merge_key_on_something_else_than_mappings_is_refused() {
    let text = format!("{POD}  <<: [just text]\n");
    let short = lint(&text);
    assert!(
        short.starts_with("doc.yaml:6:7: error[invalid-yaml]: this document is not valid YAML: a `<<` merge key takes a mapping or a list of mappings"),
        "{short}"
    );
}

#[test]
fn a_number_where_kubernetes_decodes_a_string_is_an_error_at_its_place() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 123\n  namespace: shop\n  labels:\n    enabled: yes\n    app: \"7\"\n";
    let short = lint(text);
    let lines: Vec<&str> = short.lines().collect();
    assert_eq!(lines.len(), 2, "{short}");
    assert!(lines[0].starts_with("doc.yaml:4:9: error[field-type-invalid]: metadata.name must be a string, found the number 123"), "{short}");
    // `yes` is a YAML 1.1 boolean, as go-yaml reads it.
    assert!(lines[1].starts_with("doc.yaml:7:14: error[field-type-invalid]: metadata.labels.enabled must be a string, found the boolean true"), "{short}");
}

#[test]
fn explicit_tags_type_values_as_go_yaml_does() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: !!str 0123\n  namespace: shop\n  labels:\n    enabled: !!str yes\n";
    assert_eq!(lint(text), "");
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    enabled: !!bool maybe\n";
    let short = lint(text);
    assert!(
        short.starts_with("doc.yaml:6:21: error[invalid-yaml]: this document is not valid YAML: cannot decode `maybe` as a !!bool"),
        "{short}"
    );
}

#[test]
fn a_tab_where_libyaml_expects_an_indentation_space_is_refused() {
    // A line of only a tab after a plain value, before its continuation indentation.
    let text = format!("{POD}\t\nspec: {{}}\n");
    let short = lint(&text);
    assert!(
        short.starts_with("doc.yaml:6:1: error[invalid-yaml]: this document is not valid YAML: found a tab character that violates indentation"),
        "{short}"
    );
    // Inside quotes, or past the indentation, it is a blank line.
    assert_eq!(lint(&format!("{POD}  uid: 'a\n\t\n  b'\n")), "");
    assert_eq!(lint(&format!("{POD}   \t\nspec: {{}}\n")), "");
}

#[test]
fn a_document_after_an_end_marker_needs_its_own_start() {
    let text = format!("{POD}...\n# a comment is fine\n{POD}");
    let short = lint(&text);
    assert!(
        short.starts_with("doc.yaml:8:1: error[invalid-yaml]: this document is not valid YAML: did not find expected <document start>"),
        "{short}"
    );
    assert_eq!(
        lint(&format!("{POD}...\n---\n{}", POD.replace("web-1", "web-2"))),
        ""
    );
}

#[test]
fn a_list_whose_items_share_an_anchor_is_read_whole() {
    let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: &meta\n    namespace: shop\n    name: a\n    ownerReferences:\n    - {apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: \"\"}\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    <<: *meta\n    name: b\n";
    let short = lint(text);
    let lines: Vec<&str> = short.lines().collect();
    // The empty uid, once for each Pod: the second has it through the merge.
    assert_eq!(lines.len(), 2, "{short}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("error[owner-ref-invalid]: uid is empty")),
        "{short}"
    );
}
