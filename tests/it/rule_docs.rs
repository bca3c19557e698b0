//! Every rule's document: it belongs to a registered rule, and its examples do what
//! the document says — the failing example reports exactly that rule, the passing one nothing.

use crate::common;

use ownerlint::rules::{RULES, Rule};

/// Rules whose failing example, by its nature, also reports another rule.
const ALSO_REPORTS: &[(&str, &[&str])] = &[
    ("owner-kind-unknown", &["owner-not-found"]),
    // The overlay cannot be built without the file left out.
    ("link-outside-repository", &["render-failed"]),
];

#[test]
fn every_rule_has_its_file_its_document_and_a_summary() {
    for rule in RULES {
        let meta = rule.meta;
        assert!(
            meta.doc.starts_with(&format!("# {}\n", meta.id)),
            "rules/{}.md must start with its title, `# {}`",
            meta.id,
            meta.id
        );
        assert!(meta.summary.len() > 20, "{} needs a summary", meta.id);
        for heading in [
            "## What it does",
            "## Why it matters",
            "## Failing example",
            "## Passing example",
            "## How to fix",
        ] {
            assert!(meta.doc.contains(heading), "{} lacks {heading}", meta.id);
        }
    }
    // A rule file left out of the registry, or a document without a rule, is a mistake.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ids: Vec<&str> = RULES.iter().map(|r| r.meta.id).collect();
    for (folder, ext, to_id) in [
        (
            "rules",
            "md",
            (|s: &str| s.to_string()) as fn(&str) -> String,
        ),
        ("src/rules", "rs", |s: &str| s.replace('_', "-")),
    ] {
        for entry in std::fs::read_dir(root.join(folder)).expect("the folder exists") {
            let path = entry.expect("a folder entry").path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            // `mod.rs` lists the rules, `registry.rs` and `context.rs` serve them.
            let serves_the_rules = ["mod", "registry", "context"].contains(&stem);
            if path.extension().and_then(|e| e.to_str()) != Some(ext) || serves_the_rules {
                continue;
            }
            assert!(
                ids.contains(&to_id(stem).as_str()),
                "{} is not a registered rule: add it to `rules!` in src/rules/mod.rs",
                path.display()
            );
        }
    }
}

test_each_rule!(failing_example_reports_exactly_its_rule: failing_example);
test_each_rule!(passing_example_reports_nothing: passing_example);

/// The rule's failing example reports the rule, and no other but its companions.
fn failing_example(rule: &'static Rule) {
    let id = rule.meta.id;
    let text = common::example(rule.meta.doc, "## Failing example")
        .unwrap_or_else(|| panic!("{id}: no failing example"));
    let Some(outcome) = lint_example(id, &text, rule.meta.doc) else {
        return;
    };
    assert!(
        !outcome.findings.is_empty(),
        "{id}: failing example reports nothing"
    );
    assert!(
        outcome.findings.iter().any(|f| f.rule.id == id),
        "{id}: failing example does not report {id}"
    );
    let companions: &[&str] = ALSO_REPORTS
        .iter()
        .find(|(rule, _)| *rule == id)
        .map_or(&[], |(_, also)| also);
    for finding in &outcome.findings {
        assert!(
            finding.rule.id == id || companions.contains(&finding.rule.id),
            "{id}: failing example also reports {}: {}",
            finding.rule,
            finding.message
        );
    }
}

/// The rule's passing example reports nothing at all.
fn passing_example(rule: &'static Rule) {
    let id = rule.meta.id;
    let text = common::example(rule.meta.doc, "## Passing example")
        .unwrap_or_else(|| panic!("{id}: no passing example"));
    let Some(outcome) = lint_example(id, &text, rule.meta.doc) else {
        return;
    };
    let found: Vec<String> = outcome
        .findings
        .iter()
        .map(|f| format!("{}: {}", f.rule, f.message))
        .collect();
    assert!(found.is_empty(), "{id}: passing example reports {found:#?}");
}

/// Lint a document's example: a manifest as a file of its own; a kustomization as the
/// overlay of a folder, built with kubectl (`None` when kubectl is missing: skipped, or a
/// failure under `CI=true`).
fn lint_example(id: &str, text: &str, doc: &str) -> Option<ownerlint::analysis::Outcome> {
    // A Flux object is read as a GitOps repository is: a folder, linted with builds on.
    let flux = text.contains("toolkit.fluxcd.io");
    if !flux && !text.contains("kind: Kustomization") {
        return Some(common::lint(
            &format!("{id}.yaml"),
            text,
            &common::doc_options(doc),
        ));
    }
    common::require_tool(
        "kubectl",
        "install kubectl, whose `kubectl kustomize` builds overlays",
    )?;
    let dir = common::temp_dir(id);
    let name = if flux {
        "flux.yaml"
    } else {
        "kustomization.yaml"
    };
    std::fs::write(dir.path().join(name), text).expect("write the example");
    // `# ln -s TARGET NAME`: the example's folder holds that symbolic link.
    for line in text.lines() {
        if let Some(link) = line.strip_prefix("# ln -s ") {
            let (target, name) = link.split_once(' ').expect("`# ln -s TARGET NAME`");
            #[cfg(unix)]
            std::os::unix::fs::symlink(target, dir.path().join(name)).expect("make the link");
            #[cfg(not(unix))]
            return None;
        }
    }
    let options = ownerlint::analysis::Options {
        paths: vec![dir.path().to_path_buf()],
        build: Some(ownerlint::build::BuildOptions::default()),
        ..common::doc_options(doc)
    };
    Some(ownerlint::pipeline::lint(&options, &mut std::io::empty()))
}

/// The files under `dir`, recursively.
fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the folder exists") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn documents_and_sources_cite_only_what_a_clone_holds() {
    // Notes kept beside the project, which a user's clone does not have, are not cited: a
    // document cites the Kubernetes source, a document of the project, or what a cluster did.
    let unshipped = ["OBSERVED", "SEMANTICS"];
    for rule in RULES {
        for name in unshipped {
            assert!(
                !rule.meta.doc.contains(name),
                "`ownerlint explain {}` cites {name}",
                rule.meta.id
            );
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    for folder in ["rules", "src", "editors", "testdata/valid", "docs"] {
        files_under(&root.join(folder), &mut files);
    }
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for name in unshipped {
                assert!(
                    !line.contains(name),
                    "{}:{}: cites {name}: {line}",
                    path.display(),
                    n + 1
                );
            }
        }
    }
}
