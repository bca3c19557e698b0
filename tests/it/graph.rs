//! `ownerlint tree` and `ownerlint delete-preview` on the fixtures in `testdata/graph/` (a
//! Deployment chain, a Namespace owning objects in other namespaces, several owners, a cycle,
//! a dangling chain) and on a real `kubectl get` dump from `../shared/corpus`.

use crate::common;

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run ownerlint from the repository root; stdout, with the exit code checked.
fn run(args: &[&str], code: i32) -> String {
    let out = common::ownerlint().args(args).run();
    assert_eq!(out.code(), Some(code), "{args:?}: {}", out.stderr);
    out.stdout
}

#[test]
fn a_deployment_chain_in_every_format() {
    let file = "testdata/graph/chain.yaml";
    insta::assert_snapshot!("chain-text", run(&["tree", file], 0));
    insta::assert_snapshot!("chain-json", run(&["tree", "--format", "json", file], 0));
    insta::assert_snapshot!("chain-dot", run(&["tree", "--format", "dot", file], 0));
    insta::assert_snapshot!(
        "chain-mermaid",
        run(&["tree", "--format", "mermaid", file], 0)
    );
    for cascade in ["background", "foreground", "orphan"] {
        insta::assert_snapshot!(
            format!("chain-delete-{cascade}"),
            run(
                &[
                    "delete-preview",
                    "deployment/web",
                    "-n",
                    "shop",
                    "--cascade",
                    cascade,
                    file
                ],
                0
            )
        );
    }
    insta::assert_snapshot!(
        "chain-delete-json",
        run(
            &[
                "delete-preview",
                "replicaset/web-7d9f",
                "-n",
                "shop",
                "--format",
                "json",
                file
            ],
            0
        )
    );
}

#[test]
fn a_namespace_owning_objects_in_other_namespaces_and_several_owners() {
    let file = "testdata/graph/namespace-owner.yaml";
    let tree = run(&["tree", file], 0);
    insta::assert_snapshot!("namespace-owner-text", tree);
    // The ConfigMap with three owners is drawn once in full and referred back to twice.
    assert_eq!(tree.matches("ConfigMap platform/shared").count(), 3);
    assert_eq!(
        tree.matches("ConfigMap platform/shared  ↑ shown above")
            .count(),
        2
    );
    insta::assert_snapshot!(
        "namespace-owner-delete",
        run(&["delete-preview", "namespace/tenant-a", file], 0)
    );
    // Filters: one namespace keeps its owners for context; --root starts at one object.
    insta::assert_snapshot!(
        "namespace-owner-filter-ns",
        run(&["tree", "-n", "tenant-a", file], 0)
    );
    insta::assert_snapshot!(
        "namespace-owner-filter-kind",
        run(&["tree", "--kind", "secret", file], 0)
    );
    insta::assert_snapshot!(
        "namespace-owner-root",
        run(
            &["tree", "--root", "configmap/audit", "-n", "platform", file],
            0
        )
    );
}

#[test]
fn a_cycle_is_shown_not_followed() {
    let file = "testdata/graph/cycle.yaml";
    let tree = run(&["tree", file], 0);
    insta::assert_snapshot!("cycle-text", tree);
    assert!(tree.contains("↻"));
    insta::assert_snapshot!(
        "cycle-delete",
        run(&["delete-preview", "configmap/a", "-n", "shop", file], 0)
    );
}

#[test]
fn a_dangling_chain_is_deleted_on_apply() {
    let file = "testdata/graph/dangling.yaml";
    insta::assert_snapshot!("dangling-text", run(&["tree", file], 0));
    let preview = run(&["delete-preview", "deployment/api", "-n", "shop", file], 0);
    insta::assert_snapshot!("dangling-delete", preview);
    assert!(
        preview.contains("  - ConfigMap shop/api-cache\n  - Secret shop/api-cache-key\n"),
        "{preview}"
    );
}

/// ownerlint's stderr and exit code for `args`, run from the repository root.
fn fails(args: &[&str]) -> (Option<i32>, String) {
    let out = common::ownerlint().args(args).run();
    (out.code(), out.stderr)
}

#[test]
fn an_unknown_target_is_a_clear_error() {
    let chain = "testdata/graph/chain.yaml";
    assert_eq!(
        fails(&["delete-preview", "deployment/nope", "-n", "shop", chain]),
        (
            Some(2),
            "ownerlint: no Deployment named nope in namespace shop in the input\n".into()
        )
    );
    // The object is in another namespace: say which.
    assert_eq!(
        fails(&["delete-preview", "deploy/web", chain]),
        (
            Some(2),
            "ownerlint: no Deployment named web in namespace default in the input; there is \
             Deployment shop/web (add `-n shop`)\n"
                .into()
        )
    );
    // The type is blamed, not the object, when no kind goes by that name.
    assert_eq!(
        fails(&["tree", "--root", "deplyo/web", "-n", "shop", chain]),
        (
            Some(2),
            "ownerlint: no resource type `deplyo` (did you mean `deploy`?): use a kind, \
             resource or short name, as kubectl takes them (`deploy`, `deployments`, \
             `Deployment.apps`)\n"
                .into()
        )
    );
    let (code, message) = fails(&["delete-preview", "web", chain]);
    assert_eq!(code, Some(2));
    assert!(message.contains("expected TYPE/NAME"), "{message}");
}

#[test]
fn targets_are_named_as_kubectl_names_them() {
    let chain = "testdata/graph/chain.yaml";
    let by_kind = run(
        &["delete-preview", "replicaset/web-7d9f", "-n", "shop", chain],
        0,
    );
    assert!(
        by_kind.starts_with("Deleting ReplicaSet shop/web-7d9f"),
        "{by_kind}"
    );
    for target in [
        "rs/web-7d9f",
        "replicasets/web-7d9f",
        "ReplicaSet/web-7d9f",
        "rs.apps/web-7d9f",
        "replicasets.v1.apps/web-7d9f",
    ] {
        assert_eq!(
            run(&["delete-preview", target, "-n", "shop", chain], 0),
            by_kind,
            "{target}"
        );
    }
    let (code, message) = fails(&["delete-preview", "rs.batch/web-7d9f", "-n", "shop", chain]);
    assert_eq!(code, Some(2), "a group that is not the object's");
    assert!(
        message.contains("no ReplicaSet named web-7d9f"),
        "{message}"
    );
    let tree = run(&["tree", "--root", "deploy/web", "-n", "shop", chain], 0);
    assert!(tree.starts_with("Deployment shop/web"), "{tree}");
    assert_eq!(
        run(
            &[
                "tree",
                "--root",
                "deployments.apps/web",
                "-n",
                "shop",
                chain
            ],
            0
        ),
        tree
    );
    let pod = run(&["delete-preview", "po/web-7d9f-a", "-n", "shop", chain], 0);
    assert!(pod.starts_with("Deleting Pod shop/web-7d9f-a"), "{pod}");
}

#[test]
fn custom_kinds_take_the_names_their_definition_declares() {
    let file = "testdata/graph/custom-kind.yaml";
    let by_kind = run(&["delete-preview", "widget/dial", "-n", "shop", file], 0);
    assert!(
        by_kind.contains("ConfigMap shop/dial-settings"),
        "{by_kind}"
    );
    for target in [
        "wg/dial",
        "widgets/dial",
        "Widget/dial",
        "wg.example.com/dial",
    ] {
        assert_eq!(
            run(&["delete-preview", target, "-n", "shop", file], 0),
            by_kind,
            "{target}"
        );
    }
    // Two kinds go by `events`: the group tells them apart.
    let (code, message) = fails(&["delete-preview", "ev/dial.1", "-n", "shop", file]);
    assert_eq!(code, Some(2));
    assert!(
        message.contains("ev/dial.1 names 2 objects") && message.contains("ev.GROUP/dial.1"),
        "{message}"
    );
    let other = run(
        &[
            "delete-preview",
            "ev.events.k8s.io/dial.1",
            "-n",
            "shop",
            file,
        ],
        0,
    );
    assert!(other.starts_with("Deleting Event shop/dial.1"), "{other}");
}

#[test]
fn a_real_cluster_dump() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let dump = corpus.join("vmware-tanzu__sonobuoy/healthsummary/resources");
    let path = dump.to_string_lossy().into_owned();
    insta::assert_snapshot!("sonobuoy-tree", run(&["tree", &path], 0));
    insta::assert_snapshot!(
        "sonobuoy-delete-node",
        run(&["delete-preview", "node/kind-control-plane", &path], 0)
    );
}

#[test]
fn the_readme_and_the_docs_show_the_tools_own_output() {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).expect(path);
    let (readme, page) = (read("README.md"), read("docs/src/graph.md"));
    let mermaid = run(&["tree", "--format", "mermaid", "examples/cluster-dump"], 0);
    assert!(
        page.contains(&format!("```mermaid\n{mermaid}```")),
        "the graph page's mermaid block is stale:\n{mermaid}"
    );
    let tree = run(&["tree", "examples/cluster-dump"], 0);
    let command = "delete-preview rs/billing-7c9f8d6b5 -n payments examples/cluster-dump";
    let preview = run(&command.split(' ').collect::<Vec<_>>(), 0);
    for (name, text) in [("README.md", &readme), ("docs/src/graph.md", &page)] {
        assert!(
            text.contains(&format!(
                "$ ownerlint tree examples/cluster-dump\n{tree}```"
            )),
            "{name}: the tree is stale:\n{tree}"
        );
        assert!(
            text.contains(&format!("$ ownerlint {command}\n{preview}```")),
            "{name}: the preview is stale:\n{preview}"
        );
    }
}

#[test]
fn kind_name_is_looked_up_in_the_configured_namespace() {
    let tmp = common::temp_dir("graph-config");
    let dir = tmp.path();
    std::fs::write(dir.join(".ownerlint.yaml"), "namespace: shop\n").expect("write");
    std::fs::copy(
        root().join("testdata/graph/chain.yaml"),
        dir.join("chain.yaml"),
    )
    .expect("copy");
    let run_in = |args: &[&str]| {
        let out = common::ownerlint().args(args).current_dir(dir).run();
        (out.code(), out.stdout)
    };
    // No -n: the configuration's namespace, as `kubectl` takes its context's.
    let (code, preview) = run_in(&["delete-preview", "deployment/web", "chain.yaml"]);
    assert_eq!(code, Some(0), "{preview}");
    assert!(
        preview.starts_with("Deleting Deployment shop/web"),
        "{preview}"
    );
    let (code, tree) = run_in(&["tree", "--root", "deployment/web", "chain.yaml"]);
    assert_eq!(code, Some(0), "{tree}");
    assert!(tree.starts_with("Deployment shop/web"), "{tree}");
}

#[test]
fn a_consequence_counts_an_owner_missing_from_a_snapshot_as_delete_preview_does() {
    // Pod …-q8kzn names a ReplicaSet whose uid is not the one in the dump, and a ReplicaSet the
    // dump does not hold: the collector deletes the Pod only if that one is gone too.
    let dump = "examples/cluster-dump";
    let lint = run(&[dump], 1);
    let mismatch = lint
        .lines()
        .find(|l| l.contains("error[owner-uid-mismatch]"))
        .unwrap_or_default();
    assert!(
        mismatch.ends_with(
            "the garbage collector deletes Pod payments/billing-7c9f8d6b5-q8kzn unless ReplicaSet payments/billing-6b5a4c3d2, which is not in this snapshot, still exists in the cluster; if it does, the collector removes just this reference"
        ),
        "{lint}"
    );
    assert!(!mismatch.contains("no other owner keeps it"), "{mismatch}");
    // The missing owner's own finding supposes it gone, and the other owner counts as gone.
    let not_found = lint
        .lines()
        .find(|l| l.contains("→ ReplicaSet payments/billing-6b5a4c3d2"))
        .unwrap_or_default();
    assert!(
        not_found.ends_with("if it is gone from the cluster too, the garbage collector deletes Pod payments/billing-7c9f8d6b5-q8kzn (no other owner keeps it)"),
        "{lint}"
    );
    // delete-preview agrees: the Pod is neither deleted with the ReplicaSet it names nor on apply.
    let preview = run(
        &[
            "delete-preview",
            "replicaset/billing-7c9f8d6b5",
            "-n",
            "payments",
            dump,
        ],
        0,
    );
    assert!(!preview.contains("q8kzn"), "{preview}");
    assert!(
        preview.contains("Pod payments/billing-7c9f8d6b5-tx2lp"),
        "{preview}"
    );
}

#[test]
fn an_owner_named_with_a_uid_that_cannot_match_is_drawn_once() {
    let dir = common::temp_dir("tree-fresh");
    let file = dir.path().join("fresh.yaml");
    std::fs::write(
        &file,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n",
    )
    .expect("write");
    let path = file.to_str().unwrap_or_default();
    assert_eq!(
        run(&["tree", path], 0),
        "Deployment shop/api\n└── ConfigMap shop/cache  ✗ created with a fresh uid: counts as gone\n"
    );
    assert_eq!(
        run(&["tree", "--format", "mermaid", path], 0),
        "flowchart LR\n  n0[\"Deployment shop/api\"]\n  n1[\"ConfigMap shop/cache\"]\n  n0 -. created with a fresh uid .-> n1\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&run(&["tree", "--format", "json", path], 0)).unwrap_or_default();
    assert_eq!(json["roots"], serde_json::json!(["n0"]), "{json}");
    assert_eq!(json["nodes"].as_array().map(Vec::len), Some(2), "{json}");
    assert_eq!(json["edges"][0]["owner"], "n0", "{json}");
    assert_eq!(json["edges"][0]["unresolved"], "fresh-uid", "{json}");
    // Kept for context when only the dependent's kind is asked for.
    assert_eq!(
        run(&["tree", "--kind", "ConfigMap", path], 0),
        "Deployment shop/api\n└── ConfigMap shop/cache  ✗ created with a fresh uid: counts as gone\n"
    );
}

#[test]
fn a_uid_mismatched_reference_is_drawn_under_the_object_it_names() {
    let tree = run(&["tree", "examples/cluster-dump"], 0);
    assert!(
        tree.contains("    ├── Pod payments/billing-7c9f8d6b5-q8kzn  [controller, blocks owner deletion]  ✗ uid mismatch: counts as gone\n"),
        "{tree}"
    );
    assert!(!tree.contains("(uid mismatch)"), "{tree}");
    assert_eq!(
        tree.matches("ReplicaSet payments/billing-7c9f8d6b5")
            .count(),
        1,
        "{tree}"
    );
}

#[test]
fn names_that_hold_controls_are_drawn_escaped_in_every_format() {
    let dir = tempfile::Builder::new()
        .prefix("ownerlint-tree-controls-")
        .tempdir()
        .expect("a temporary folder");
    let file = dir.path().join("chain.yaml");
    std::fs::write(
        &file,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: \"w\\e]0;owned\\a\", namespace: shop, uid: d-1}\n---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: \"rs\\u202E\\n2\"\n  namespace: shop\n  uid: r-1\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: \"w\\e]0;owned\\a\", uid: d-1, controller: true}]\n",
    )
    .expect("write");
    let file = file.display().to_string();
    let acted_on = |text: &str| -> Vec<char> {
        text.chars()
            .filter(|&c| (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}'))
            .collect()
    };
    let text = run(&["tree", "--color", "never", &file], 0);
    assert_eq!(acted_on(&text), Vec::<char>::new(), "{text:?}");
    assert_eq!(
        text,
        "Deployment shop/w\\x1b]0;owned\\x07\n└── ReplicaSet shop/rs\\u{202e}\\n2  [controller]\n"
    );
    let dot = run(&["tree", "--format", "dot", &file], 0);
    assert_eq!(acted_on(&dot), Vec::<char>::new(), "{dot:?}");
    assert!(
        dot.contains(r#"[label="Deployment shop/w\\x1b]0;owned\\x07"]"#),
        "{dot}"
    );
    let mermaid = run(&["tree", "--format", "mermaid", &file], 0);
    assert_eq!(acted_on(&mermaid), Vec::<char>::new(), "{mermaid:?}");
    assert!(
        mermaid.contains(r#"["ReplicaSet shop/rs\u{202e}\n2"]"#),
        "{mermaid}"
    );
    let preview = run(
        &[
            "delete-preview",
            "deployment/w\u{1b}]0;owned\u{7}",
            "-n",
            "shop",
            &file,
        ],
        0,
    );
    assert_eq!(acted_on(&preview), Vec::<char>::new(), "{preview:?}");
    assert!(
        preview.contains(r"  - ReplicaSet shop/rs\u{202e}\n2"),
        "{preview}"
    );
    // JSON carries the names as data, escaped as JSON escapes them.
    let json = run(&["tree", "--format", "json", &file], 0);
    assert!(
        json.contains(r#""name": "w\u001b]0;owned\u0007""#),
        "{json}"
    );
}

#[test]
fn trees_root_is_the_first_argument_as_kubectl_tree_takes_it() {
    let chain = "testdata/graph/chain.yaml";
    let with_flag = run(&["tree", "--root", "deploy/web", "-n", "shop", chain], 0);
    assert!(with_flag.starts_with("Deployment shop/web"), "{with_flag}");
    // `tree deploy/web PATHS`, as `tree --cluster deploy/web` takes it.
    assert_eq!(
        run(&["tree", "deploy/web", "-n", "shop", chain], 0),
        with_flag
    );
    assert_eq!(
        run(&["tree", "-n", "shop", "deployments.apps/web", chain], 0),
        with_flag
    );
    // No such object: said as for --root, not as a missing file.
    let out = common::ownerlint()
        .args(["tree", "deplyo/web", "-n", "shop", chain])
        .run();
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("deplyo") && !out.stderr.contains("No such file"),
        "{}",
        out.stderr
    );
    // A folder of that name that is there is read as one.
    let tmp = common::temp_dir("tree-root-path");
    std::fs::create_dir_all(tmp.path().join("deploy/web")).expect("mkdir");
    std::fs::copy(root().join(chain), tmp.path().join("deploy/web/chain.yaml")).expect("copy");
    std::fs::write(
        tmp.path().join("deploy/web/extra.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: shop\n",
    )
    .expect("write");
    let out = common::ownerlint()
        .args(["tree", "-n", "shop", "deploy/web"])
        .current_dir(tmp.path())
        .run();
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert!(
        out.stdout.starts_with(&with_flag) && out.stdout.contains("ConfigMap shop/extra"),
        "{}",
        out.stdout
    );
}

/// `delete-preview --format dot|mermaid` draws every object the delete reaches with its fate
/// (deleted, in order in foreground; blocking; staying Terminating and why; kept, losing its
/// reference) and a legend of the fates it shows.
#[test]
fn a_delete_preview_is_drawn_with_each_objects_fate_and_a_legend() {
    let file = "testdata/graph/finalizer-held.yaml";
    let args = |format| {
        [
            "delete-preview",
            "deploy/web",
            "-n",
            "shop",
            "--cascade",
            "foreground",
            "--format",
            format,
            file,
        ]
    };
    let dot = run(&args("dot"), 0);
    insta::assert_snapshot!("finalizer-held-delete-dot", dot);
    let mermaid = run(&args("mermaid"), 0);
    insta::assert_snapshot!("finalizer-held-delete-mermaid", mermaid);
    for (fate, class) in [
        (
            "ConfigMap shop/cm-fin\\nstays Terminating until example.com/hold is removed",
            "terminating",
        ),
        (
            "ReplicaSet shop/web-7d9f\\ndeleted 7: blocks owner deletion",
            "blocking",
        ),
        ("ConfigMap shop/cm-grand\\ndeleted 1", "deleted"),
        (
            "Secret shop/sec-keep\\nkept, no longer owned by Deployment shop/web",
            "orphaned",
        ),
    ] {
        assert!(dot.contains(&format!("label=\"{fate}\"")), "{fate}:\n{dot}");
        let box_ = mermaid
            .lines()
            .find(|line| line.contains(&fate.replace("\\n", "<br>")))
            .unwrap_or_else(|| panic!("{fate}:\n{mermaid}"));
        let id = box_.trim().split('[').next().unwrap_or("");
        assert!(
            mermaid.lines().any(|line| line.starts_with("  class ")
                && line.ends_with(&format!(" {class}"))
                && line.contains(id)),
            "{id} is not of class {class}:\n{mermaid}"
        );
    }
    // The object deleted stands out, and the legend names each fate shown.
    assert!(dot.contains(r##"n0 [label="Deployment shop/web\n(the object deleted)\nstays Terminating while ConfigMap shop/cm-fin stays", style=filled, fillcolor="#ffe2a0", color="#a86a00", penwidth=3];"##), "{dot}");
    assert!(dot.contains("subgraph cluster_legend"), "{dot}");
    assert!(mermaid.contains("subgraph legend [Legend]"), "{mermaid}");
    for legend in [
        "deleted",
        "blocks its owner",
        "stays Terminating",
        "kept: orphaned",
    ] {
        assert!(
            dot.lines()
                .any(|l| l.contains("legend_") && l.contains(legend)),
            "{legend}:\n{dot}"
        );
        assert!(
            mermaid
                .lines()
                .any(|l| l.contains("legend_") && l.contains(legend)),
            "{legend}:\n{mermaid}"
        );
    }
    // No fate the delete does not reach is in the legend.
    assert!(!dot.contains("never collected"), "{dot}");
    // A removed reference and a blocking one are drawn as such.
    assert!(
        dot.contains("label=\"reference removed\", style=dashed"),
        "{dot}"
    );
    assert!(
        mermaid.contains("== blocks owner deletion ==>"),
        "{mermaid}"
    );
}
