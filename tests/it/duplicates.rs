//! `duplicate-object` compares what a person applies at once: the documents of one file or
//! stream. Alternatives in other files, and the same object captured twice, are not duplicates.

use crate::common;

use ownerlint::Options;
use ownerlint::report::Format;

const SETTINGS: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n";

fn lint(files: &[(&str, String)]) -> String {
    let outcome = ownerlint::lint_texts(
        files
            .iter()
            .map(|(name, text)| (name.to_string(), text.clone()))
            .collect(),
        &Options::default(),
    );
    common::render(&outcome, Format::Short)
}

#[test]
fn two_definitions_in_one_file_are_reported() {
    let short = lint(&[("install.yaml", format!("{SETTINGS}---\n{SETTINGS}"))]);
    assert!(
        short.starts_with("install.yaml:10:9: warning[duplicate-object]: ConfigMap shop/settings is defined again in this file (first at install.yaml:4)"),
        "{short}"
    );
}

#[test]
fn alternatives_in_separate_files_are_not() {
    let short = lint(&[
        ("install.yaml", SETTINGS.to_string()),
        ("ha/install.yaml", SETTINGS.to_string()),
    ]);
    assert_eq!(short, "");
}

#[test]
fn the_same_object_captured_twice_is_not() {
    let captured = format!("{SETTINGS}  uid: 4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b\n");
    assert_eq!(
        lint(&[("dump.yaml", format!("{captured}---\n{captured}"))]),
        ""
    );
}

#[test]
fn one_name_with_two_uids_in_a_dump_is_told_as_captures_of_different_moments() {
    let with_uid = |uid: &str| format!("{SETTINGS}  uid: {uid}\n");
    let dump = format!(
        "{}---\n{}---\n{}",
        with_uid("4e3d2c1b-0a9f-4e8d-b7c6-5a4f3e2d1c0b"),
        with_uid("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"),
        with_uid("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"),
    );
    let short = lint(&[("dump.yaml", dump)]);
    let lines: Vec<&str> = short.lines().collect();
    // The third is the second captured again: one finding.
    assert_eq!(lines.len(), 1, "{short}");
    assert!(
        lines[0].starts_with("dump.yaml:11:9: info[duplicate-object]: ConfigMap shop/settings is in this dump twice, with two uids"),
        "{short}"
    );
}

#[test]
fn two_objects_with_one_uid_are_told_apart_from_one_object_captured_twice() {
    let pod = |ns: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: {ns}\n  uid: e00af024-67ca-440d-9714-999cf8617d58\n"
        )
    };
    let short = lint(&[("a.yaml", pod("shop")), ("b.yaml", pod("staging"))]);
    assert!(
        short.starts_with("b.yaml:6:8: info[uid-shared]: Pod staging/web-1 has the uid `e00af024-67ca-440d-9714-999cf8617d58` of Pod shop/web-1 (at a.yaml:4)"),
        "{short}"
    );
    // One object captured twice is one object.
    assert_eq!(
        lint(&[("a.yaml", pod("shop")), ("b.yaml", pod("shop"))]),
        ""
    );
}
