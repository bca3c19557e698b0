//! Suppression: each form, where it applies and where it does not, unused and misspelt
//! suppressions, and `--no-suppress`.

use crate::common;

use ownerlint::Options;

/// `(line, rule)` of each finding.
fn found(text: &str, options: &Options) -> Vec<(usize, &'static str)> {
    let outcome = common::lint("input.yaml", text, options);
    outcome
        .findings
        .iter()
        .map(|f| {
            (
                outcome.sources[0].line_col(f.primary.span.start).line,
                f.rule.id,
            )
        })
        .collect()
}

const TWO_DANGLING: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: shop
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: shop
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d}
";

#[test]
fn without_suppressions_both_are_reported() {
    assert_eq!(
        found(TWO_DANGLING, &Options::default()),
        [(7, "owner-not-found"), (15, "owner-not-found")]
    );
}

#[test]
fn a_comment_on_the_line_or_the_line_above_suppresses_that_line() {
    let above = TWO_DANGLING.replacen(
        "  ownerReferences:\n",
        "  ownerReferences:\n  # ownerlint: ignore[owner-not-found] created by the operator\n",
        1,
    );
    assert_eq!(
        found(&above, &Options::default()),
        [(16, "owner-not-found")]
    );
    let trailing = TWO_DANGLING.replacen(
        "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d}\n",
        "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d}  # ownerlint: ignore[owner-not-found]\n",
        1,
    );
    assert_eq!(
        found(&trailing, &Options::default()),
        [(15, "owner-not-found")]
    );
    // Two lines above is too far, and the line is reported as unused.
    let far = TWO_DANGLING.replacen(
        "  namespace: shop\n",
        "  namespace: shop  # ownerlint: ignore[owner-not-found]\n",
        1,
    );
    assert_eq!(
        found(&far, &Options::default()),
        [
            (5, "unused-suppression"),
            (7, "owner-not-found"),
            (15, "owner-not-found")
        ]
    );
}

#[test]
fn a_document_comment_covers_its_document_only() {
    let text = TWO_DANGLING.replacen(
        "kind: ConfigMap\n",
        "kind: ConfigMap\n# ownerlint: ignore-document[owner-not-found, owner-kind-unknown]\n",
        1,
    );
    // owner-kind-unknown suppressed nothing in that document.
    assert_eq!(
        found(&text, &Options::default()),
        [(3, "unused-suppression"), (16, "owner-not-found")]
    );
    let outcome = common::lint("input.yaml", &text, &Options::default());
    assert_eq!(
        outcome.findings[0].message,
        "this suppression of `owner-kind-unknown` suppresses nothing: no owner-kind-unknown finding in this document"
    );
}

#[test]
fn the_annotation_covers_its_object_and_survives_json_and_lists() {
    let text = TWO_DANGLING.replacen(
        "  name: b\n",
        "  name: b\n  annotations:\n    ownerlint.dev/ignore: \"owner-not-found\"\n",
        1,
    );
    assert_eq!(found(&text, &Options::default()), [(7, "owner-not-found")]);
    let json = common::to_json(&text).expect("JSON shape");
    let outcome = common::lint("input.json", &json, &Options::default());
    assert_eq!(outcome.findings.len(), 1, "{:#?}", outcome.findings);
    let list = common::to_list(&text);
    assert_eq!(
        common::lint("list.yaml", &list, &Options::default())
            .findings
            .len(),
        1
    );
}

#[test]
fn misspelt_rules_and_unreadable_comments_are_reported() {
    let text = TWO_DANGLING
        .replacen(
            "  ownerReferences:\n",
            "  ownerReferences:\n  # ownerlint: ignore[owner-not-fund]\n",
            1,
        )
        .replacen(
            "  name: b\n",
            "  name: b\n  # ownerlint: ignor[owner-not-found]\n",
            1,
        );
    let outcome = common::lint("input.yaml", &text, &Options::default());
    let messages: Vec<(&str, &str)> = outcome
        .findings
        .iter()
        .map(|f| (f.rule.id, f.message.as_str()))
        .collect();
    assert_eq!(
        messages[0],
        (
            "unused-suppression",
            "this suppression names `owner-not-fund`, which is not a rule (did you mean `owner-not-found`?)"
        )
    );
    assert!(
        messages
            .iter()
            .any(|(rule, m)| *rule == "unused-suppression" && m.contains("is not understood")),
        "{messages:#?}"
    );
    assert_eq!(
        messages
            .iter()
            .filter(|(r, _)| *r == "owner-not-found")
            .count(),
        2
    );
}

#[test]
fn no_suppress_shows_everything_and_reports_no_unused() {
    let text = TWO_DANGLING
        .replacen(
            "  ownerReferences:\n",
            "  ownerReferences:\n  # ownerlint: ignore[owner-not-found]\n",
            1,
        )
        .replacen(
            "  name: b\n",
            "  name: b\n  # ownerlint: ignore[cross-namespace-owner]\n",
            1,
        );
    let options = Options {
        no_suppress: true,
        ..Options::default()
    };
    assert_eq!(
        found(&text, &options),
        [(8, "owner-not-found"), (17, "owner-not-found")]
    );
}
