//! Baselines: record today's findings, then see only new ones, even after edits move lines.

use crate::common;

use std::path::Path;

fn ownerlint(dir: &Path, args: &[&str]) -> common::Run {
    common::ownerlint().current_dir(dir).args(args).run()
}

const MANIFEST: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
";

#[test]
fn a_baseline_hides_recorded_findings_after_lines_move_and_shows_new_ones() {
    let tmp = common::temp_dir("baseline");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join(".git")).expect("temp repository");
    std::fs::write(dir.join("app.yaml"), MANIFEST).expect("write");

    let out = ownerlint(dir, &["--write-baseline", "baseline.json", "app.yaml"]);
    assert_eq!(out.code(), Some(0));
    assert_eq!(
        out.stderr,
        "ownerlint: recorded 1 finding in baseline.json\n"
    );
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("baseline.json")).expect("written"))
            .expect("JSON");
    assert_eq!(recorded["findings"][0]["rule"], "cluster-scoped-dependent");
    assert_eq!(recorded["findings"][0]["path"], "app.yaml");

    // An unrelated edit above moves every line down; the recorded finding stays hidden.
    let edited = format!("# Reader role for the api.\n# Owned by the platform team.\n{MANIFEST}");
    std::fs::write(dir.join("app.yaml"), &edited).expect("write");
    let out = ownerlint(
        dir,
        &[
            "--format",
            "short",
            "--baseline",
            "baseline.json",
            "app.yaml",
        ],
    );
    assert_eq!(out.code(), Some(0), "{}", out.stdout);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains(", 1 in the baseline not shown"));

    // A new problem of the same rule in another object is reported.
    let grown = format!(
        "{edited}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: reader\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: Deployment, name: api, uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b}}\n"
    );
    std::fs::write(dir.join("app.yaml"), grown).expect("write");
    let out = ownerlint(
        dir,
        &[
            "--format",
            "short",
            "--baseline",
            "baseline.json",
            "app.yaml",
        ],
    );
    let stdout = &out.stdout;
    assert_eq!(out.code(), Some(1));
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.starts_with(
            "app.yaml:21:3: error[cluster-scoped-dependent]: ClusterRoleBinding reader"
        ),
        "{stdout}"
    );

    // A file that is not a baseline is an error.
    std::fs::write(dir.join("bad.json"), "{\"version\": 1}").expect("write");
    let out = ownerlint(dir, &["--baseline", "bad.json", "app.yaml"]);
    assert_eq!(out.code(), Some(2));
    assert!(
        out.stderr
            .contains("bad.json:1:14: not a baseline written by `--write-baseline`"),
        "{}",
        out.stderr
    );
    // Broken files are reported where they break, at a column that exists (counted from 1).
    for (text, expected) in [
        (
            "",
            "bad.json:1:1: the baseline is empty; write it again with --write-baseline",
        ),
        (
            "{\"version\": 1,\n",
            "bad.json:2:1: the baseline ends too early (is it cut short?); write it again with --write-baseline",
        ),
        (
            "{\"version\": 1, \"findings\": [}\n",
            "bad.json:1:29: the baseline is not valid JSON: expected value; write it again with --write-baseline",
        ),
    ] {
        std::fs::write(dir.join("bad.json"), text).expect("write");
        let out = ownerlint(dir, &["--baseline", "bad.json", "app.yaml"]);
        assert_eq!(out.code(), Some(2));
        assert_eq!(out.stderr, format!("ownerlint: {expected}\n"), "{text:?}");
    }
}
