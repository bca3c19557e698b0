//! Fixes: each rule that declares one fixes its failing example (nothing left for that rule,
//! only the edited bytes changed, a second pass changes nothing), and `--fix`, `--diff` and
//! standard input do what the README says: atomic writes, nothing written when a file changed
//! or lies outside the tree, comments, CRLF and the BOM kept.

use crate::common;

use std::path::Path;
use std::process::Command;

use ownerlint::finding::{Applicability, Edit};
use ownerlint::rules::{RULES, Rule};

/// `ownerlint --no-config ARGS` in `dir`, with `stdin` piped in when given.
fn ownerlint(dir: &Path, args: &[&str], stdin: Option<&str>) -> common::Run {
    let run = common::ownerlint()
        .current_dir(dir)
        .arg("--no-config")
        .args(args);
    match stdin {
        Some(text) => run.stdin(text),
        None => run,
    }
    .run()
}

test_each_rule!(fix_repairs_the_failing_example: fix_repairs_failing_example);

#[test]
fn some_rules_declare_a_fix() {
    assert!(RULES.iter().any(|rule| rule.meta.fix.is_some()));
}

/// A rule that declares a fix fixes its failing example: only the edited bytes change, nothing
/// is left for the rule, and a second pass has nothing to do.
fn fix_repairs_failing_example(rule: &'static Rule) {
    let Some(applicability) = rule.meta.fix else {
        return;
    };
    let id = rule.meta.id;
    let doc = rule.meta.doc;
    let example = common::example(doc, "## Failing example").expect("a failing example");
    let options = common::doc_options(doc);
    let outcome = common::lint("example.yaml", &example, &options);
    let fixes: Vec<_> = outcome
        .findings
        .iter()
        .filter(|f| f.rule.id == id)
        .filter_map(|f| f.fix.as_ref())
        .collect();
    assert!(!fixes.is_empty(), "{id}: the failing example has no fix");
    for fix in &fixes {
        assert_eq!(fix.applicability, applicability, "{id}: {}", fix.message);
    }
    if applicability == Applicability::DisplayOnly {
        return;
    }
    let edits: Vec<&Edit> = fixes.iter().flat_map(|fix| &fix.edits).collect();
    let fixed = ownerlint::fix::apply(&example, &edits);
    // Only the edited bytes changed: outside every edit, the text is the same.
    let mut sorted = edits.clone();
    sorted.sort_by_key(|e| e.span.start);
    let (mut from, mut to) = (0, 0);
    for edit in &sorted {
        assert_eq!(
            example[from..edit.span.start],
            fixed[to..to + edit.span.start - from],
            "{id}"
        );
        to += edit.span.start - from + edit.replacement.len();
        from = edit.span.end;
    }
    assert_eq!(example[from..], fixed[to..], "{id}");
    // Nothing left for the rule, nothing broken, and a second pass has nothing to do.
    let after = common::lint("example.yaml", &fixed, &options);
    let left: Vec<_> = after
        .findings
        .iter()
        .filter(|f| f.rule.id == id || f.rule.id == "invalid-yaml")
        .map(|f| &f.message)
        .collect();
    assert!(left.is_empty(), "{id}: after the fix:\n{fixed}\n{left:#?}");
    assert!(
        after.findings.iter().all(|f| f
            .fix
            .as_ref()
            .is_none_or(|x| x.applicability == Applicability::DisplayOnly || f.rule.id != id)),
        "{id}"
    );
}

/// The failing example of `owner-kind-lowercase` as a reference that is not the Pod's controller
/// reference: no workload controller reads it, so its fix is safe.
fn lowercase_example() -> String {
    let rule = RULES
        .iter()
        .find(|r| r.meta.id == "owner-kind-lowercase")
        .expect("the rule");
    let example = common::example(rule.meta.doc, "## Failing example").expect("its example");
    assert!(example.contains("    controller: true\n"), "{example}");
    example.replace("    controller: true\n", "")
}

#[test]
fn fix_writes_the_file_and_reports_what_is_left() {
    let dir = common::temp_dir("fix");
    let file = dir.path().join("pod.yaml");
    let example = lowercase_example();
    std::fs::write(&file, &example).expect("write");
    // --diff prints and writes nothing.
    let out = ownerlint(dir.path(), &["--diff", "pod.yaml"], None);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    assert!(
        out.stdout.starts_with("--- a/pod.yaml\n+++ b/pod.yaml\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("-    kind: replicaset\n+    kind: ReplicaSet\n")
    );
    assert!(out.stderr.contains("1 fix in 1 file (apply with --fix)"));
    assert_eq!(std::fs::read_to_string(&file).expect("read"), example);
    // --fix writes it, says what it did, and exits as the findings left say.
    let out = ownerlint(dir.path(), &["--fix", "--show-fixes", "pod.yaml"], None);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    let stderr = &out.stderr;
    assert!(
        stderr.contains("pod.yaml:8:11: fixed[owner-kind-lowercase]: write `ReplicaSet`"),
        "{stderr}"
    );
    assert!(stderr.contains(", 1 fixed ("), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        example.replace("kind: replicaset", "kind: ReplicaSet")
    );
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["pod.yaml"]);
    // Again: nothing to do.
    let out = ownerlint(dir.path(), &["--diff", "pod.yaml"], None);
    assert_eq!(out.code(), Some(0));
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "ownerlint: nothing to fix\n");
}

#[test]
fn diff_says_what_unsafe_fixes_would_add() {
    let dir = common::temp_dir("fix-unsafe");
    let shop = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/manifests/shop.yaml"),
    )
    .expect("example");
    std::fs::write(dir.path().join("shop.yaml"), &shop).expect("write");
    // Each hint names the command that fixes, and the one that previews.
    let hint = "1 fixable with --fix --unsafe-fixes (--diff --unsafe-fixes previews)";
    let out = ownerlint(dir.path(), &["shop.yaml"], None);
    assert!(
        out.stderr.ends_with(&format!("ownerlint: {hint}\n")),
        "{}",
        out.stderr
    );
    let out = ownerlint(dir.path(), &["--diff", "shop.yaml"], None);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        format!("ownerlint: nothing to fix with --fix; {hint}\n")
    );
    // The command it names previews the fix.
    let out = ownerlint(dir.path(), &["--diff", "--unsafe-fixes", "shop.yaml"], None);
    assert_eq!(out.code(), Some(1));
    assert!(out.stdout.starts_with("--- a/shop.yaml\n"));
    assert_eq!(
        out.stderr,
        "ownerlint: 1 fix in 1 file (apply with --fix --unsafe-fixes)\n"
    );
    // --fix alone fixes nothing here, and says what is left and how.
    let out = ownerlint(dir.path(), &["--fix", "shop.yaml"], None);
    assert!(
        out.stderr.ends_with(
            "ownerlint: 1 more fixable with --fix --unsafe-fixes (--diff --unsafe-fixes previews)\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shop.yaml")).expect("read"),
        shop
    );
    // With both, nothing is left to hint at.
    let out = ownerlint(dir.path(), &["--fix", "--unsafe-fixes", "shop.yaml"], None);
    assert!(!out.stderr.contains("fixable"), "{}", out.stderr);
}

#[test]
fn a_fix_for_a_finding_another_fix_brings_up_is_counted_apart() {
    // The lint reports two fixable findings; fixing them makes the two references repeats,
    // and a third fix removes one.
    let dir = common::temp_dir("fix-brought-up");
    std::fs::write(
        dir.path().join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n  deletionTimestamp: \"2024-05-02T10:11:12Z\"\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: u-1}\n  - {apiVersion: apps/v1, kind: deployment, name: api, uid: u-1}\n",
    )
    .expect("write");
    let out = ownerlint(dir.path(), &["cm.yaml"], None);
    assert!(
        out.stderr
            .ends_with("ownerlint: 2 fixable with --fix (--diff previews)\n"),
        "{}",
        out.stderr
    );
    let out = ownerlint(dir.path(), &["--diff", "cm.yaml"], None);
    assert_eq!(
        out.stderr,
        "ownerlint: 3 fixes in 1 file, 1 of them for a finding that another fix brings up (apply with --fix)\n"
    );
}

#[test]
fn comments_crlf_and_the_bom_are_kept() {
    let dir = common::temp_dir("fix-bytes");
    let example = format!(
        "\u{feff}# the shop's pods\n{}",
        lowercase_example().replace("kind: replicaset", "kind: \"replicaset\"  # as written")
    )
    .replace('\n', "\r\n");
    std::fs::write(dir.path().join("pod.yaml"), &example).expect("write");
    let out = ownerlint(dir.path(), &["--fix", "pod.yaml"], None);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pod.yaml")).expect("read"),
        example.replace("\"replicaset\"", "\"ReplicaSet\"")
    );
}

#[test]
fn standard_input_gets_its_fixed_text_on_standard_output() {
    let dir = common::temp_dir("fix-stdin");
    let example = lowercase_example();
    let out = ownerlint(dir.path(), &["--fix", "-"], Some(&example));
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        example.replace("kind: replicaset", "kind: ReplicaSet")
    );
    let out = ownerlint(dir.path(), &["--diff", "-"], Some(&example));
    assert_eq!(out.code(), Some(1));
    assert!(out.stdout.starts_with("--- a/<stdin>\n+++ b/<stdin>\n"));
}

#[test]
fn a_file_changed_since_it_was_read_is_not_written() {
    let dir = common::temp_dir("fix-changed");
    let file = dir.path().join("pod.yaml");
    std::fs::write(&file, "kind: Pod\n").expect("write");
    let options = ownerlint::Options {
        paths: vec![file.clone()],
        ..Default::default()
    };
    let changed = ownerlint::fix::Changed {
        name: file.to_string_lossy().into_owned(),
        before: "kind: pod\n".into(),
        after: "kind: Pod\nfixed: true\n".into(),
    };
    let errors = ownerlint::fix::write(&[changed], &options);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].why, "it changed since it was read", "{errors:?}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "kind: Pod\n");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_tree_is_not_followed() {
    let dir = common::temp_dir("fix-link");
    let tree = dir.path().join("tree");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&tree).expect("tree");
    std::fs::create_dir_all(&outside).expect("outside");
    let example = lowercase_example();
    std::fs::write(outside.join("pod.yaml"), &example).expect("write");
    std::os::unix::fs::symlink(outside.join("pod.yaml"), tree.join("pod.yaml")).expect("link");
    let out = ownerlint(&tree, &["--fix", "pod.yaml"], None);
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("pod.yaml: not fixed: it is a symbolic link to"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("pod.yaml")).expect("read"),
        example
    );
    // What is reported is what the file holds: the finding, not a fix.
    assert!(
        out.stdout.contains("[owner-kind-lowercase]"),
        "{}",
        out.stdout
    );
    assert!(!out.stderr.contains(", 1 fixed"), "{}", out.stderr);
}

#[test]
fn brackets_in_comments_and_closing_brackets_on_their_own_lines_are_read_as_yaml_reads_them() {
    // The comment holds a `}`, and the parser's span of the second entry ends before its
    // closing bracket: the fix removes the entry whole, with its comma.
    let text_in = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n  ownerReferences: [\n    {apiVersion: v1, kind: ConfigMap, name: a, uid: \"1\"},\n    {apiVersion: v1, kind: ConfigMap, name: a, # }\n     uid: \"1\"\n    }\n  ]\n";
    let dir = common::temp_dir("fix-brackets");
    std::fs::write(dir.path().join("cm.yaml"), text_in).expect("write");
    let out = ownerlint(dir.path(), &["--fix", "cm.yaml"], None);
    assert!(out.stderr.contains("1 fixed"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cm.yaml")).expect("read"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n  ownerReferences: [\n    {apiVersion: v1, kind: ConfigMap, name: a, uid: \"1\"}\n  ]\n"
    );
}

#[test]
fn standard_input_as_existing_objects_is_read_when_fixing() {
    // The owner lives in the cluster (standard input, as `--existing -`): the reference to it
    // is sound, and nothing is fixed or removed.
    let dir = common::temp_dir("fix-existing");
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d}\n";
    let live = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n  uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n  resourceVersion: \"1\"\n";
    std::fs::write(dir.path().join("cm.yaml"), manifest).expect("write");
    let out = ownerlint(
        dir.path(),
        &["--fix", "--unsafe-fixes", "--existing", "-", "cm.yaml"],
        Some(live),
    );
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cm.yaml")).expect("read"),
        manifest
    );
}

#[test]
fn sarif_and_json_carry_the_fixes() {
    let dir = common::temp_dir("fix-formats");
    std::fs::write(dir.path().join("pod.yaml"), lowercase_example()).expect("write");
    let out = ownerlint(dir.path(), &["--format", "json", "pod.yaml"], None);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let fix = &json["findings"][0]["fix"];
    assert_eq!(fix["applicability"], "safe");
    assert_eq!(fix["edits"][0]["content"], "ReplicaSet");
    assert_eq!(fix["edits"][0]["start"]["line"], 8);
    let out = ownerlint(dir.path(), &["--format", "sarif", "pod.yaml"], None);
    let sarif: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF");
    let errors = common::sarif_schema_errors(&sarif);
    assert!(errors.is_empty(), "{errors:#?}");
    let fixes = &sarif["runs"][0]["results"][0]["fixes"];
    assert_eq!(
        fixes[0]["description"]["text"],
        "write `ReplicaSet` (safe fix)"
    );
    let replacement = &fixes[0]["artifactChanges"][0]["replacements"][0];
    assert_eq!(replacement["insertedContent"]["text"], "ReplicaSet");
    assert_eq!(replacement["deletedRegion"]["startColumn"], 11);
}

#[test]
fn a_dump_to_apply_again_loses_what_the_api_server_set_and_its_stale_owner_references() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/dump");
    let read = |name: &str| std::fs::read_to_string(data.join(name)).expect("testdata");
    let want = read("replicaset-and-pod.fixed.yaml");
    for name in ["replicaset-and-pod.yaml", "replicaset-and-pod.json"] {
        let dir = common::temp_dir("fix-dump");
        std::fs::write(dir.path().join(name), read(name)).expect("write");
        // Read as what it is, a record of a cluster, it has nothing to fix.
        let snapshot = ownerlint(dir.path(), &["--fail-on", "info", name], None);
        assert_eq!(snapshot.stdout, "");
        let out = ownerlint(
            dir.path(),
            &["--mode", "apply", "--fix", "--unsafe-fixes", name],
            None,
        );
        assert!(out.stderr.contains("3 fixed"), "{}", out.stderr);
        let fixed = std::fs::read_to_string(dir.path().join(name)).expect("read");
        if name.ends_with(".yaml") {
            // Only the server's fields and the reference to the recreated owner are gone: the
            // comments, the order of keys and the List stay.
            assert_eq!(fixed, want);
        } else {
            let fixed: serde_yaml::Value = serde_yaml::from_str(&fixed).expect("JSON");
            let want: serde_yaml::Value = serde_yaml::from_str(&want).expect("YAML");
            assert_eq!(fixed, want);
        }
        // Applied again, the Pod is one the ReplicaSet adopts: nothing else is left to report.
        let again = ownerlint(
            dir.path(),
            &["--mode", "apply", "--fail-on", "info", name],
            None,
        );
        let report = &again.stdout;
        assert_eq!(report.lines().count(), 1, "{report}");
        assert!(report.contains("info[orphan-will-be-adopted]"), "{report}");
    }
}

#[test]
fn fields_that_do_nothing_when_applied_are_not_reported_alone() {
    // Generated manifests often carry `creationTimestamp: null` and a CRD's empty status.
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n  creationTimestamp: null\n  resourceVersion: \"\"\n  uid: \"\"\nstatus: {}\n";
    let dir = common::temp_dir("fix-quiet");
    std::fs::write(dir.path().join("cm.yaml"), manifest).expect("write");
    let out = ownerlint(
        dir.path(),
        &["--mode", "apply", "--fail-on", "info", "cm.yaml"],
        None,
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
}

#[test]
fn fixes_are_listed_where_their_findings_were_in_the_file_as_read() {
    // Round one removes deletionTimestamp and spells the kind; round two removes the entry
    // that has become a repeat, on what was line 9 (line 8 of the text round two reads).
    let text_in = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n  deletionTimestamp: \"2024-05-02T10:11:12Z\"\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: u-1}\n  - {apiVersion: apps/v1, kind: deployment, name: api, uid: u-1}\n";
    let dir = common::temp_dir("fix-show");
    std::fs::write(dir.path().join("cm.yaml"), text_in).expect("write");
    let out = ownerlint(dir.path(), &["--fix", "--show-fixes", "cm.yaml"], None);
    let report = format!("{}{}", out.stdout, out.stderr);
    let listed: Vec<&str> = report
        .lines()
        .filter_map(|l| l.split_once(": fixed[").map(|(at, _)| at))
        .collect();
    assert_eq!(listed, ["cm.yaml:6:3", "cm.yaml:9:3", "cm.yaml:9:33"]);
}

#[cfg(unix)]
#[test]
fn a_file_with_other_hard_links_is_not_replaced() {
    let dir = common::temp_dir("fix-hard-link");
    let example = lowercase_example();
    std::fs::write(dir.path().join("pod.yaml"), &example).expect("write");
    std::fs::hard_link(dir.path().join("pod.yaml"), dir.path().join("copy.yaml")).expect("link");
    let out = ownerlint(dir.path(), &["--fix", "pod.yaml"], None);
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("pod.yaml: not fixed: it has other hard links"),
        "{}",
        out.stderr
    );
    for name in ["pod.yaml", "copy.yaml"] {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).expect("read"),
            example
        );
    }
}

#[test]
fn a_node_that_an_alias_repeats_is_not_fixed() {
    // Both ConfigMaps read the one list: fixing it for one would change the other.
    let text_in = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    namespace: shop\n    ownerReferences: &refs\n    - {apiVersion: apps/v1, kind: deployment, name: api, uid: u-1}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n    namespace: shop\n    ownerReferences: *refs\n";
    let dir = common::temp_dir("fix-alias");
    std::fs::write(dir.path().join("list.yaml"), text_in).expect("write");
    let out = ownerlint(dir.path(), &["--fix", "--unsafe-fixes", "list.yaml"], None);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("list.yaml")).expect("read"),
        text_in
    );
    assert_eq!(
        out.stdout.matches("[owner-kind-lowercase]").count(),
        2,
        "{}",
        out.stdout
    );
}

#[test]
#[ignore = "heavy: a 17 MB file linted twice, 20 s in a debug build; .ci/run runs it in release"]
fn a_big_file_is_fixed_on_the_text_that_was_linted() {
    // Over the size read a part at a time when linting (16 MiB): fixing reads it whole.
    let dir = common::temp_dir("fix-big");
    let file = dir.path().join("dump.yaml");
    let filler = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: filler\n  namespace: other\ndata:\n  key: value\n";
    let mut content = String::with_capacity(17 << 20);
    let mut i = 0;
    while content.len() < 17 << 20 {
        content.push_str(&filler.replace("name: filler", &format!("name: filler-{i}")));
        i += 1;
    }
    content.push_str("---\n");
    content.push_str(&lowercase_example());
    std::fs::write(&file, &content).expect("write");
    let out = ownerlint(dir.path(), &["--fix", "dump.yaml"], None);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert!(out.stderr.contains(", 1 fixed ("), "{}", out.stderr);
    let fixed = std::fs::read_to_string(&file).expect("read");
    assert_eq!(fixed.len(), content.len());
    assert_eq!(
        fixed,
        content.replace("kind: replicaset", "kind: ReplicaSet")
    );
}

#[test]
fn a_list_whose_every_reference_goes_goes_with_its_key_and_comments() {
    let dir = common::temp_dir("fix-whole-list");
    let owners = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n---\n";
    let reference = |name: &str, uid: &str, note: &str| {
        format!(
            "  - apiVersion: apps/v1\n    kind: Deployment\n    name: {name}\n    uid: {uid}\n    # {note}\n"
        )
    };
    let config_map = |refs: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  # written by hand\n{refs}  labels:\n    app: api\n"
        )
    };
    let kept = format!(
        "{owners}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  labels:\n    app: api\n"
    );
    let api = reference("api", "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "the api one");
    let web = reference("web", "8a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "the web one");
    // Two references removed in one round, and a single one: no key, no comment is left.
    for refs in [format!("{api}{web}"), api.clone()] {
        let written = format!("{owners}{}", config_map(&refs));
        std::fs::write(dir.path().join("cache.yaml"), &written).expect("write");
        let out = ownerlint(dir.path(), &["--fix", "--unsafe-fixes", "cache.yaml"], None);
        assert_eq!(out.code(), Some(0), "{}", out.stderr);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("cache.yaml")).expect("read"),
            kept,
            "{written}"
        );
    }
    // One of two (the other names an owner not in the input): the other stays, with the key
    // and the comments.
    let db = reference("db", "7a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "the db one");
    std::fs::write(
        dir.path().join("cache.yaml"),
        format!("{owners}{}", config_map(&format!("{api}{db}"))),
    )
    .expect("write");
    let out = ownerlint(dir.path(), &["--fix", "--unsafe-fixes", "cache.yaml"], None);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cache.yaml")).expect("read"),
        format!(
            "{owners}{}",
            config_map(&format!("    # the api one\n{db}"))
        )
    );
}

#[test]
fn a_file_keeps_its_final_line_end_or_its_lack_of_one() {
    let dir = common::temp_dir("fix-final-line");
    let text_in = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n  uid: 0a1b2c3d-0000-4000-8000-000000000002\n  resourceVersion: \"12345\"";
    let want = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop";
    for (name, before, after) in [
        ("bare.yaml", text_in.to_string(), want.to_string()),
        ("ended.yaml", format!("{text_in}\n"), format!("{want}\n")),
        (
            "crlf.yaml",
            text_in.replace('\n', "\r\n"),
            want.replace('\n', "\r\n"),
        ),
    ] {
        std::fs::write(dir.path().join(name), &before).expect("write");
        // The fix deletes the file's last lines.
        let out = ownerlint(
            dir.path(),
            &["--mode", "apply", "--fix", "--unsafe-fixes", name],
            None,
        );
        assert_eq!(out.code(), Some(0), "{}", out.stderr);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).expect("read"),
            after,
            "{name}"
        );
    }
}

/// `ownerlint` as the unprivileged user `nobody`, from a copy of the binary in `dir`.
#[cfg(unix)]
fn as_nobody(dir: &Path, args: &[&str]) -> Option<common::Run> {
    let setpriv = common::require_tool("setpriv", "Debian's util-linux")?;
    let binary = dir.join("ownerlint");
    if !binary.exists() {
        std::fs::copy(env!("CARGO_BIN_EXE_ownerlint"), &binary).expect("copy the binary");
    }
    Some(
        Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&binary)
            .arg("--no-config")
            .args(args)
            .current_dir(dir)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .expect("the binary runs")
            .into(),
    )
}

#[cfg(unix)]
#[test]
fn read_only_files_and_files_of_other_users_are_not_fixed_and_a_fixed_file_keeps_its_mode() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = common::temp_dir("fix-permissions");
    let example = lowercase_example();
    let fixed = example.replace("kind: replicaset", "kind: ReplicaSet");
    let path = dir.path().join("pod.yaml");
    // Read-only: refused, by whoever runs the fix (root too).
    std::fs::write(&path, &example).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let out = ownerlint(dir.path(), &["--fix", "pod.yaml"], None);
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("pod.yaml: not fixed: it is read-only"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), example);
    // Writable: fixed, and its mode kept.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let out = ownerlint(dir.path(), &["--fix", "pod.yaml"], None);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), fixed);
    let metadata = std::fs::metadata(&path).expect("metadata");
    assert_eq!(metadata.mode() & 0o7777, 0o640);
    if metadata.uid() != 0 {
        common::skip("a file of another user needs root to make");
        return;
    }
    // Root fixes a file of another user: it keeps its owner and group.
    std::fs::write(&path, &example).expect("write");
    std::os::unix::fs::chown(&path, Some(1234), Some(2345)).expect("chown");
    let out = ownerlint(dir.path(), &["--fix", "pod.yaml"], None);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), fixed);
    let metadata = std::fs::metadata(&path).expect("metadata");
    assert_eq!(
        (metadata.uid(), metadata.gid(), metadata.mode() & 0o7777),
        (1234, 2345, 0o640)
    );
    // nobody, in a folder of its own, with write access to root's file: refused, the file
    // still root's and as it was.
    std::fs::write(&path, &example).expect("write");
    std::os::unix::fs::chown(&path, Some(0), Some(0)).expect("chown");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    std::os::unix::fs::chown(dir.path(), Some(65534), Some(65534)).expect("chown");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let Some(out) = as_nobody(dir.path(), &["--fix", "pod.yaml"]) else {
        return;
    };
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("pod.yaml: not fixed: it belongs to another user"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), example);
    assert_eq!(std::fs::metadata(&path).expect("metadata").uid(), 0);
    // nobody's own file: fixed.
    let own = dir.path().join("own.yaml");
    std::fs::write(&own, &example).expect("write");
    std::os::unix::fs::chown(&own, Some(65534), Some(65534)).expect("chown");
    let out = as_nobody(dir.path(), &["--fix", "own.yaml"]).expect("setpriv");
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&own).expect("read"), fixed);
}

#[cfg(unix)]
#[test]
fn temporary_files_a_killed_fix_left_are_removed_by_the_next_fix() {
    let dir = common::temp_dir("fix-leftovers");
    let example = lowercase_example();
    std::fs::write(dir.path().join("pod.yaml"), &example).expect("write");
    // A process that has ended, and one that runs (this test).
    let mut ended = Command::new("true").spawn().expect("true runs");
    ended.wait().expect("true ends");
    let dead = ended.id();
    let alive = std::process::id();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let leftover = |name: String, old: bool| {
        let path = dir.path().join(name);
        let file = std::fs::File::create(&path).expect("create");
        if old {
            file.set_modified(hour_ago).expect("mtime");
        }
        path
    };
    let stale = leftover(format!(".ownerlint-fix-{dead}-aB3dE9"), true);
    let running = leftover(format!(".ownerlint-fix-{alive}-xY7zQ1"), true);
    let recent = leftover(format!(".ownerlint-fix-{dead}-mN4pR2"), false);
    let other = leftover(".ownerlint-fix-notmine".into(), true);
    let out = ownerlint(dir.path(), &["--fix", "pod.yaml"], None);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert!(!stale.exists(), "a killed run's old leftover stays");
    for kept in [&running, &recent, &other] {
        assert!(kept.exists(), "{} was removed", kept.display());
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pod.yaml")).expect("read"),
        example.replace("kind: replicaset", "kind: ReplicaSet")
    );
}

/// Apply a JSON patch of `test`, `replace` and `remove` operations, as the API server does;
/// `None` when a test fails or a path is missing.
fn apply_json_patch(
    mut object: serde_json::Value,
    patch: &serde_json::Value,
) -> Option<serde_json::Value> {
    for op in patch.as_array()? {
        let path = op["path"].as_str()?;
        match op["op"].as_str()? {
            "test" => (object.pointer(path)? == &op["value"]).then_some(())?,
            "replace" => *object.pointer_mut(path)? = op["value"].clone(),
            "remove" => {
                let (parent, last) = path.rsplit_once('/')?;
                match object.pointer_mut(parent)? {
                    serde_json::Value::Array(items) => {
                        let i: usize = last.parse().ok()?;
                        (i < items.len()).then(|| items.remove(i))?;
                    }
                    serde_json::Value::Object(map) => {
                        map.remove(&last.replace("~1", "/").replace("~0", "~"))?;
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(object)
}

/// The objects of a YAML stream, as JSON, by name.
fn objects_by_name(text: &str) -> std::collections::BTreeMap<String, serde_json::Value> {
    use serde::Deserialize;
    serde_yaml::Deserializer::from_str(text)
        .map(|doc| serde_json::Value::deserialize(doc).expect("YAML"))
        .map(|o| {
            (
                o["metadata"]["name"].as_str().expect("a name").to_string(),
                o,
            )
        })
        .collect()
}

#[test]
fn a_captured_objects_fix_is_the_kubectl_patch_that_makes_the_same_change() {
    // Objects captured from a cluster (uids, resourceVersions) are fixed in the cluster: each
    // fix also carries a JSON patch, guarded by `test`s, and the `kubectl patch` command.
    const DUMP: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  uid: 11111111-1111-4111-8111-111111111111
  resourceVersion: \"10\"
  ownerReferences:
  - {apiVersion: extensions/v1beta1, kind: ReplicaSet, name: web, uid: 22222222-2222-4222-8222-222222222222, controller: true}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cache
  namespace: shop
  uid: 33333333-3333-4333-8333-333333333333
  resourceVersion: \"11\"
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: settings, uid: 44444444-4444-4444-8444-444444444444}
  - {apiVersion: v1, kind: ConfigMap, name: settings, uid: 44444444-4444-4444-8444-444444444444}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop, uid: 44444444-4444-4444-8444-444444444444, resourceVersion: \"12\"}
";
    let dir = common::temp_dir("fix-patch");
    std::fs::write(dir.path().join("dump.yaml"), DUMP).expect("write");
    let out = ownerlint(dir.path(), &["--format", "json", "dump.yaml"], None);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let mut patched = objects_by_name(DUMP);
    let mut commands = Vec::new();
    for finding in report["findings"].as_array().expect("findings") {
        let fix = &finding["fix"];
        let name = finding["object"]["name"]
            .as_str()
            .expect("a name")
            .to_string();
        let object = patched.remove(&name).expect("the object");
        let after = apply_json_patch(object, &fix["patch"])
            .unwrap_or_else(|| panic!("{name}: the patch does not apply: {}", fix["patch"]));
        patched.insert(name, after);
        commands.push(fix["kubectl"].as_str().expect("a command").to_string());
    }
    assert_eq!(
        commands,
        [
            r#"kubectl patch pod web-1 -n shop --type=json -p '[{"op":"test","path":"/metadata/ownerReferences/0/apiVersion","value":"extensions/v1beta1"},{"op":"replace","path":"/metadata/ownerReferences/0/apiVersion","value":"apps/v1"}]'"#,
            r#"kubectl patch configmap cache -n shop --type=json -p '[{"op":"test","path":"/metadata/ownerReferences/1/uid","value":"44444444-4444-4444-8444-444444444444"},{"op":"remove","path":"/metadata/ownerReferences/1"}]'"#,
        ]
    );
    // `pretty` shows each command on a line of its own, never wrapped.
    let pretty = ownerlint(dir.path(), &["--format", "pretty", "dump.yaml"], None);
    for (command, kind) in commands.iter().zip(["unsafe", "safe"]) {
        assert!(
            pretty
                .stdout
                .contains(&format!("  fix in the cluster ({kind}):\n    {command}\n")),
            "{}",
            pretty.stdout
        );
    }
    // The same change as --fix makes in the file.
    let fixed = ownerlint(dir.path(), &["--fix", "--unsafe-fixes", "dump.yaml"], None);
    assert!(fixed.stderr.contains("2 fixed"), "{}", fixed.stderr);
    let text = std::fs::read_to_string(dir.path().join("dump.yaml")).expect("read");
    assert_eq!(objects_by_name(&text), patched);
    // A manifest to apply is fixed in its file only.
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: settings, uid: 44444444-4444-4444-8444-444444444444}\n  - {apiVersion: v1, kind: ConfigMap, name: settings, uid: 44444444-4444-4444-8444-444444444444}\n";
    std::fs::write(dir.path().join("cm.yaml"), manifest).expect("write");
    let out = ownerlint(dir.path(), &["--format", "json", "cm.yaml"], None);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let fixes: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| &f["fix"])
        .filter(|fix| !fix.is_null())
        .collect();
    assert!(!fixes.is_empty(), "{}", out.stdout);
    for fix in fixes {
        assert!(fix["patch"].is_null() && fix["kubectl"].is_null(), "{fix}");
    }
}
