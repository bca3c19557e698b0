//! The language server with charts and overlays as an editor edits them: unsaved
//! kustomizations, diagnostics while edits keep coming, builds run again only when what they
//! read changes, the same findings as the command line once saved, and chart templates opened
//! as `helm`. The client and helpers are `server`'s.

use crate::common;
use crate::server::*;
use crate::server_process::Process;

use std::path::Path;
use std::time::Duration;

use lsp_server::Message;
use serde_json::{Value, json};

/// A ConfigMap owned by Deployment `api` with no namespace: the overlay's `namespace: shop`
/// puts it beside its owner; read on its own, it is in `default`, where no `api` is.
const OWNED_BY_API: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 0a1b2c3d-0000-4000-8000-000000000001\n";

#[test]
fn an_unsaved_kustomization_builds_the_files_it_adds_saved_or_not() {
    if common::kubectl().is_none() {
        return;
    }
    let dir = common::temp_dir("server-kustomization-adds");
    let root = dir.path().canonicalize().expect("root");
    let deployment = CHART_DEPLOYMENT.replace("{{ .Values.owner }}", "api");
    let saved_text = OWNED_BY_API.replace("NAME", "saved");
    common::write_files(
        &root,
        &[
            (
                "ov/kustomization.yaml",
                "namespace: shop\nresources:\n- deployment.yaml\n",
            ),
            ("ov/deployment.yaml", &deployment),
            ("ov/saved.yaml", &saved_text),
        ],
    );
    let saved = root.join("ov/saved.yaml");
    let unsaved = root.join("ov/unsaved.yaml");
    let kustomization = root.join("ov/kustomization.yaml");
    let mut client = Client::start(&root, push_client());
    // Not in the overlay yet: each read on its own, in `default`, where its owner is not.
    let diagnostics = client.published(&saved);
    assert_eq!(codes(&diagnostics), ["owner-not-found"], "{diagnostics:?}");
    client.open(&unsaved, &OWNED_BY_API.replace("NAME", "unsaved"));
    let diagnostics = client.published(&unsaved);
    assert_eq!(codes(&diagnostics), ["owner-not-found"], "{diagnostics:?}");
    // The unsaved kustomization adds both: built in `shop`, beside their owner, whose uid
    // the build cannot know (each finding once, at the uid's line, in the file it is in).
    client.open(
        &kustomization,
        "namespace: shop\nresources:\n- deployment.yaml\n- saved.yaml\n- unsaved.yaml\n",
    );
    for file in [&saved, &unsaved] {
        let diagnostics = client.published(file);
        assert_eq!(
            places(&diagnostics),
            [("owner-created-with-fresh-uid".to_string(), 8, 9)],
            "{}: {diagnostics:?}",
            file.display()
        );
    }
    // The command line finds the same once both are saved.
    std::fs::write(&unsaved, OWNED_BY_API.replace("NAME", "unsaved")).expect("write");
    std::fs::write(
        &kustomization,
        "namespace: shop\nresources:\n- deployment.yaml\n- saved.yaml\n- unsaved.yaml\n",
    )
    .expect("write");
    assert_eq!(
        cli_findings(&root, &["ov/"]),
        [
            (
                "ov/saved.yaml".to_string(),
                "owner-created-with-fresh-uid".to_string(),
                9,
                10
            ),
            (
                "ov/unsaved.yaml".to_string(),
                "owner-created-with-fresh-uid".to_string(),
                9,
                10
            ),
        ]
    );
    client.stop();
}

#[test]
fn diagnostics_are_published_while_edits_keep_coming() {
    let (_dir, owner, dependent) = workspace("server-fast-edits");
    let root = owner.parent().expect("root").to_path_buf();
    // Enough objects that an analysis outlasts the time between two edits.
    for i in 0..100 {
        let mut text = String::new();
        for j in 0..20 {
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{i}-{j}\n  namespace: shop\n  uid: 0a1b2c3d-1111-4000-8000-{:012}\n",
                i * 100 + j
            ));
        }
        std::fs::write(root.join(format!("settings-{i}.yaml")), text).expect("write");
    }
    let mut server = Process::start(&root, push_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let wanted = uri(&dependent);
    let missing = DEPENDENT.replace("name: api", "name: api-1");
    server.send(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": wanted, "languageId": "yaml", "version": 1, "text": missing}}}),
    );
    // The first analysis is shown before the edits begin.
    loop {
        let message = server.messages.recv_timeout(WAIT).expect("diagnostics");
        if message["method"] == "textDocument/publishDiagnostics" {
            break;
        }
    }
    while server.messages.try_recv().is_ok() {}
    // Edits at 100 a second, each naming another owner that is in no input.
    let mut published_during = Vec::new();
    for version in 2..300 {
        let text = DEPENDENT.replace("name: api", &format!("name: api-{version}"));
        server.send(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": wanted, "version": version},
            "contentChanges": [{"text": text}]}}),
        );
        std::thread::sleep(Duration::from_millis(10));
        published_during.extend(server.messages.try_iter().filter(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == wanted
        }));
    }
    // Shown while the edits came, each with the version it was made from.
    assert!(
        !published_during.is_empty(),
        "nothing published while editing"
    );
    for message in &published_during {
        let version = message["params"]["version"].as_i64().unwrap_or(0);
        assert!((2..300).contains(&version), "{message}");
        let diagnostics = message["params"]["diagnostics"].as_array().expect("list");
        assert!(
            diagnostics.iter().any(|d| d["message"]
                .as_str()
                .is_some_and(|m| m.contains(&format!("Deployment shop/api-{version}:")))),
            "{message}"
        );
    }
}

#[test]
fn a_build_runs_again_only_when_a_file_it_reads_changes() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("server-build-cache");
    let root = dir.path().canonicalize().expect("root");
    common::write_files(
        &root,
        &[
            ("chart/Chart.yaml", CHART),
            ("chart/values.yaml", "owner: api\n"),
            ("chart/templates/deployment.yaml", CHART_DEPLOYMENT),
            ("chart/templates/cache.yaml", CHART_CACHE),
            (
                "plain.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n",
            ),
        ],
    );
    let options = ownerlint::Options {
        paths: vec![root.clone()],
        build: Some(Default::default()),
        ..Default::default()
    };
    let mut cache = ownerlint::pipeline::LoadCache::default();
    let mut open = std::collections::HashMap::new();
    let rule_ids = |a: &ownerlint::Analysis| -> Vec<&str> {
        a.outcome.findings.iter().map(|f| f.rule.id).collect()
    };
    let first = analyze_workspace(&options, &open, &mut cache);
    assert_eq!(cache.built_last(), 1);
    assert_eq!(rule_ids(&first), ["owner-not-found"]);
    // A file no build reads, edited: the chart's build is taken from the cache.
    open.insert(
        root.join("plain.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n".to_string(),
    );
    let second = analyze_workspace(&options, &open, &mut cache);
    assert_eq!(cache.built_last(), 0);
    assert_eq!(rule_ids(&second), ["owner-not-found"]);
    // The template edited: built again, from the edited text.
    open.insert(
        root.join("chart/templates/cache.yaml"),
        CHART_CACHE.replace("-missing", ""),
    );
    let third = analyze_workspace(&options, &open, &mut cache);
    assert_eq!(cache.built_last(), 1);
    assert_eq!(rule_ids(&third), ["owner-created-with-fresh-uid"]);
}

#[test]
fn the_server_reports_what_the_command_line_reports_once_the_editors_texts_are_saved() {
    if common::helm().is_none() || common::kubectl().is_none() {
        return;
    }
    // A chart, overlays of one base, and plain files.
    let dir = common::temp_dir("server-as-cli");
    let root = dir.path().canonicalize().expect("root");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/render");
    let mut stack = vec![fixtures.clone()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("read the fixtures") {
            let path = entry.expect("an entry").path();
            let to = root.join(path.strip_prefix(&fixtures).expect("below"));
            if path.is_dir() {
                std::fs::create_dir_all(&to).expect("mkdir");
                stack.push(path);
            } else {
                std::fs::copy(&path, &to).expect("copy");
            }
        }
    }
    common::write_files(
        &root,
        &[
            ("plain/owner.yaml", OWNER),
            ("plain/dependent.yaml", DEPENDENT),
        ],
    );
    // The editor's texts, not saved: a template, a base file and a plain file changed, and a
    // plain file that is not on disk yet.
    let edited = |file: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(root.join(file)).expect("read");
        assert!(text.contains(from), "{file} holds {from}");
        (root.join(file), text.replace(from, to))
    };
    let open: std::collections::HashMap<std::path::PathBuf, String> = [
        edited(
            "chart/templates/configmap.yaml",
            "blockOwnerDeletoin",
            "blockOwnerDeletion",
        ),
        edited("shop/base/configmap.yaml", "name: web\n", "name: web-old\n"),
        edited("plain/dependent.yaml", "000000000001", "00000000ffff"),
        (
            root.join("plain/new.yaml"),
            DEPENDENT.replace("name: cache", "name: other"),
        ),
    ]
    .into_iter()
    .collect();
    let options = ownerlint::Options {
        paths: vec![root.clone()],
        build: Some(Default::default()),
        ..Default::default()
    };
    let served = analyze_workspace(&options, &open, &mut Default::default());
    for (path, text) in &open {
        std::fs::write(path, text).expect("save");
    }
    let saved = common::ownerlint()
        .current_dir(&root)
        .arg(&root)
        .args(["--format", "json"])
        .run();
    let cli: Value = serde_json::from_str(&saved.stdout).expect("JSON");
    let server: Value = serde_json::from_str(&common::render(
        &served.outcome,
        ownerlint::report::Format::Json,
    ))
    .expect("JSON");
    assert_eq!(server, cli);
    // What the edits changed is in it: the edited base and template are built, the unsaved
    // file is linted (its uid is the dependent's), and the build files are counted, not linted
    // alone.
    let summary = &server["summary"];
    assert_eq!(
        (summary["charts"].as_u64(), summary["overlays"].as_u64()),
        (Some(1), Some(2)),
        "{summary}"
    );
    assert!(summary["build_files"].as_u64() > Some(5), "{summary}");
    let found: Vec<(&str, &str)> = server["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap_or("?");
            (
                path.strip_prefix(&*root.to_string_lossy()).unwrap_or(path),
                f["rule"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    for expected in [
        ("/plain/dependent.yaml", "owner-uid-mismatch"),
        ("/plain/new.yaml", "uid-shared"),
        ("/shop/base/configmap.yaml", "owner-not-found"),
    ] {
        assert!(found.contains(&expected), "{found:?}");
    }
    assert!(
        !found
            .iter()
            .any(|(_, rule)| *rule == "owner-ref-unknown-field"),
        "the edited template is built: {found:?}"
    );
}

/// A chart whose owner's name comes from a named template in `_helpers.tpl`.
const HELPERS: &str = "{{- define \"shop.owner\" -}}\n{{ .Values.owner }}\n{{- end -}}\n";
const CACHE_BY_HELPER: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cache\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: {{ include \"shop.owner\" . }}-missing\n    uid: 0a1b2c3d-0000-4000-8000-000000000001\n";

/// With the Kubernetes extension, VS Code (and Helix) give a chart's templates the language
/// `helm`, `_helpers.tpl` included: the server takes a document by its path, so a template is
/// built with its chart as a `yaml` one is, and an unsaved helper is part of the build.
#[test]
fn chart_templates_opened_as_helm_are_built_with_their_chart() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("server-helm-language");
    let root = dir.path().canonicalize().expect("root");
    common::write_files(
        &root,
        &[
            ("chart/Chart.yaml", CHART),
            ("chart/values.yaml", "owner: api\n"),
            ("chart/templates/_helpers.tpl", HELPERS),
            ("chart/templates/deployment.yaml", CHART_DEPLOYMENT),
            ("chart/templates/cache.yaml", CACHE_BY_HELPER),
        ],
    );
    let cache = root.join("chart/templates/cache.yaml");
    let helpers = root.join("chart/templates/_helpers.tpl");
    let mut client = Client::start(&root, push_client());
    client.open_as(&cache, "helm", CACHE_BY_HELPER);
    let diagnostics = client.published(&cache);
    // As the command line finds it in the built chart, on the template's line.
    assert_eq!(
        places(&diagnostics),
        [("owner-not-found".to_string(), 5, 2)],
        "{diagnostics:?}"
    );
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Deployment default/api-missing")),
        "{diagnostics:?}"
    );
    // The helper, open as `helm` and edited without saving, names another owner: the chart
    // is built with the editor's text of it.
    client.open_as(&helpers, "helm", HELPERS);
    let renamed = HELPERS.replace("{{ .Values.owner }}", "web");
    client.change(&helpers, 2, json!([{"text": renamed}]));
    let diagnostics = loop {
        let diagnostics = client.published(&cache);
        let message = diagnostics
            .first()
            .and_then(|d| d["message"].as_str())
            .unwrap_or_default()
            .to_string();
        if !message.contains("api-missing") {
            break diagnostics;
        }
    };
    assert_eq!(
        places(&diagnostics),
        [("owner-not-found".to_string(), 5, 2)],
        "{diagnostics:?}"
    );
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Deployment default/web-missing")),
        "{diagnostics:?}"
    );
    // The helper is no manifest: nothing is reported on it.
    let on_helpers: Vec<Value> = client
        .seen
        .iter()
        .filter_map(|m| match m {
            Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics"
                    && n.params["uri"] == uri(&helpers) =>
            {
                n.params["diagnostics"].as_array().cloned()
            }
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(on_helpers, Vec::<Value>::new());
    client.stop();
}
