//! Every rule's document: its front matter agrees with the registry, and its examples do what
//! the document says — the failing example reports exactly that rule, the passing one nothing.

mod common;

use ownerlint::rules::RULES;

#[test]
fn front_matter_agrees_with_the_registry() {
    for rule in RULES {
        let meta = rule.meta;
        assert_eq!(meta.front_matter("id"), Some(meta.id), "{}", meta.id);
        assert_eq!(
            meta.front_matter("severity"),
            Some(meta.default_severity.as_str()),
            "{}",
            meta.id
        );
        assert!(meta.summary().len() > 20, "{} needs a summary", meta.id);
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
}

#[test]
fn failing_examples_report_exactly_their_rule() {
    for rule in RULES {
        let id = rule.meta.id;
        let text = common::example(rule.meta.doc, "## Failing example")
            .unwrap_or_else(|| panic!("{id}: no failing example"));
        let outcome = common::lint(
            &format!("{id}.yaml"),
            &text,
            &common::doc_options(rule.meta.doc),
        );
        assert!(
            !outcome.findings.is_empty(),
            "{id}: failing example reports nothing"
        );
        assert!(
            outcome.findings.iter().any(|f| f.rule == id),
            "{id}: failing example does not report {id}"
        );
        // A rule that by its nature accompanies another names it in `also-reports:`.
        let companions: Vec<&str> = rule
            .meta
            .front_matter("also-reports")
            .map_or(Vec::new(), |c| c.split(',').map(str::trim).collect());
        for finding in &outcome.findings {
            assert!(
                finding.rule == id || companions.contains(&finding.rule),
                "{id}: failing example also reports {}: {}",
                finding.rule,
                finding.message
            );
        }
    }
}

#[test]
fn passing_examples_report_nothing() {
    for rule in RULES {
        let id = rule.meta.id;
        let text = common::example(rule.meta.doc, "## Passing example")
            .unwrap_or_else(|| panic!("{id}: no passing example"));
        let outcome = common::lint(
            &format!("{id}.yaml"),
            &text,
            &common::doc_options(rule.meta.doc),
        );
        let found: Vec<String> = outcome
            .findings
            .iter()
            .map(|f| format!("{}: {}", f.rule, f.message))
            .collect();
        assert!(found.is_empty(), "{id}: passing example reports {found:#?}");
    }
}

#[test]
fn explain_prints_every_document_without_front_matter() {
    for rule in RULES {
        let body = rule.meta.body();
        assert!(
            body.starts_with(&format!("# {}", rule.meta.id)),
            "{}",
            rule.meta.id
        );
    }
}
