//! Big files are not read into memory whole: each pass reads them a slice at a time, and each
//! document or List item is read when it is loaded (`source::Text`). What a run finds, and how
//! it shows it, must not depend on it.

use crate::common;

use std::path::Path;

use ownerlint::report::Format;
use ownerlint::rules::RULES;
use ownerlint::{Options, analyze};

/// Every rule document's bad example in the three shapes users feed (a stream, a `kind: List`
/// dump, JSON), and the hostile, graph, valid and JSON stream test files, in one directory.
fn inputs(test: &str) -> tempfile::TempDir {
    let tmp = common::temp_dir(test);
    let dir = tmp.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rule in RULES {
        let id = rule.meta.id;
        let bad = common::example(rule.meta.doc, "## Failing example")
            .unwrap_or_else(|| panic!("{id}: no failing example"));
        write(&dir.join(format!("{id}.yaml")), &bad);
        write(&dir.join(format!("{id}-list.yaml")), &common::to_list(&bad));
        if let Some(json) = common::to_json(&bad) {
            write(&dir.join(format!("{id}.json")), &json);
        }
    }
    for sub in ["hostile", "graph", "valid", "json-stream"] {
        for entry in std::fs::read_dir(root.join("testdata").join(sub)).expect("testdata") {
            let path = entry.expect("testdata entry").path();
            let name = format!(
                "{sub}-{}",
                path.file_name().and_then(|s| s.to_str()).expect("name")
            );
            std::fs::copy(&path, dir.join(name)).expect("copy");
        }
    }
    // A multi-byte character at the start of a line, and an empty file.
    write(
        &dir.join("unicode.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: é\n  ownerReferences:\n  - apiVersion: v1\n    kind: Pod\n    name: ünïcode\n    uid: x\n",
    );
    write(&dir.join("empty.yaml"), "");
    tmp
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write a test input");
}

/// What a run over `dir` reports, in the short and the rich format.
fn report(dir: &Path, big_file_at_least: Option<u64>) -> String {
    let options = Options {
        paths: vec![dir.to_path_buf()],
        big_file_at_least,
        ..Options::default()
    };
    let outcome = analyze(&options, &mut std::io::empty()).outcome;
    let errors: Vec<String> = outcome
        .errors
        .iter()
        .map(|e| format!("{}: {}", e.path, e.message))
        .collect();
    format!(
        "{}\n{}\n{}",
        common::render(&outcome, Format::Short),
        common::render(&outcome, Format::Pretty),
        errors.join("\n")
    )
}

#[test]
fn files_read_in_slices_report_what_files_read_whole_report() {
    let tmp = inputs("slices");
    let dir = tmp.path();
    let read = report(dir, None);
    // Every file is read as a big one.
    let sliced = report(dir, Some(0));
    assert!(
        read.contains("error[cluster-scoped-dependent]") && read.contains("ünïcode"),
        "the inputs have findings to compare:\n{read}"
    );
    assert_eq!(sliced, read);
}

#[test]
fn no_mmap_is_still_accepted_and_changes_nothing() {
    let tmp = inputs("no-mmap");
    let dir = tmp.path();
    let run = |extra: &[&str]| {
        let out = common::ownerlint()
            .args(["--format", "short", "--no-config"])
            .args(extra)
            .arg(dir)
            .run();
        (out.code(), out.stdout)
    };
    let (code, found) = run(&[]);
    assert_eq!(code, Some(1), "errors are found");
    assert!(found.contains("error["), "{found}");
    assert_eq!(run(&["--no-mmap"]), (code, found));
}
