//! The language server, driven as an editor drives it, over a connection in memory: the
//! handshake, diagnostics pushed or pulled, hover, definition, references, quick fixes, and
//! what it does with bad requests and files that change on disk.

use crate::common;

use std::path::Path;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

/// A client on one end of a connection in memory, the server on the other.
pub(crate) struct Client {
    pub(crate) connection: Connection,
    pub(crate) server: Option<std::thread::JoinHandle<Result<ownerlint::server::Ending, String>>>,
    pub(crate) next_id: i32,
    /// Notifications and server requests seen while waiting for something else.
    pub(crate) seen: Vec<Message>,
}

/// How long a test waits for a message before it fails: long enough for a debug build to
/// analyse the 100,000 objects of one test on a loaded machine; it only bounds a hang.
pub(crate) const WAIT: Duration = Duration::from_secs(120);

impl Client {
    pub(crate) fn start(root: &Path, capabilities: Value) -> Client {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || ownerlint::server::serve(&server));
        let mut this = Client {
            connection: client,
            server: Some(handle),
            next_id: 0,
            seen: Vec::new(),
        };
        let root_uri = uri(root);
        let result = this.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "workspaceFolders": [{"uri": root_uri, "name": "root"}],
                "capabilities": capabilities,
            }),
        );
        assert!(result.get("capabilities").is_some(), "{result}");
        this.notify("initialized", json!({}));
        this
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        match self.request_raw(method, params).response_result {
            Ok(result) => result,
            Err(error) => panic!("{method}: {error:?}"),
        }
    }

    pub(crate) fn request_raw(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.connection
            .sender
            .send(Request::new(id.clone(), method.into(), params).into())
            .expect("send");
        loop {
            match self.connection.receiver.recv_timeout(WAIT) {
                Ok(Message::Response(response)) if response.id == id => return response,
                Ok(other) => self.seen.push(other),
                Err(e) => panic!("no answer to {method}: {e}"),
            }
        }
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.connection
            .sender
            .send(Notification::new(method.into(), params).into())
            .expect("send");
    }

    /// The next message that `pick` takes (those before it are kept in `seen`).
    pub(crate) fn wait_for<T>(
        &mut self,
        what: &str,
        mut pick: impl FnMut(&Message) -> Option<T>,
    ) -> T {
        if let Some(i) = self.seen.iter().position(|m| pick(m).is_some()) {
            let message = self.seen.remove(i);
            return pick(&message).expect("picked");
        }
        loop {
            match self.connection.receiver.recv_timeout(WAIT) {
                Ok(message) => match pick(&message) {
                    Some(found) => return found,
                    None => self.seen.push(message),
                },
                Err(e) => panic!("waited for {what}: {e}; seen {:?}", self.seen),
            }
        }
    }

    /// The next diagnostics pushed for `file`.
    pub(crate) fn published(&mut self, file: &Path) -> Vec<Value> {
        let wanted = uri(file);
        self.wait_for("diagnostics", |m| match m {
            Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == wanted =>
            {
                n.params["diagnostics"].as_array().cloned()
            }
            _ => None,
        })
    }

    pub(crate) fn open(&self, file: &Path, text: &str) {
        self.open_as(file, "yaml", text);
    }

    /// Open `file` as a document of `language`, the id the editor gives it.
    pub(crate) fn open_as(&self, file: &Path, language: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(file), "languageId": language, "version": 1, "text": text}}),
        );
    }

    pub(crate) fn change(&self, file: &Path, version: i32, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(file), "version": version}, "contentChanges": changes}),
        );
    }

    pub(crate) fn stop(mut self) {
        let response = self.request_raw("shutdown", Value::Null);
        assert!(response.response_result.is_ok(), "{response:?}");
        self.notify("exit", Value::Null);
        let outcome = self
            .server
            .take()
            .expect("server")
            .join()
            .expect("the server thread ends");
        assert_eq!(outcome, Ok(ownerlint::server::Ending::Shutdown));
    }
}

pub(crate) fn uri(path: &Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

/// Only the rule ids of diagnostics, in order.
pub(crate) fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("?").to_string())
        .collect()
}

pub(crate) const OWNER: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n  uid: 0a1b2c3d-0000-4000-8000-000000000001\n";

/// A ConfigMap whose owner is in no input.
pub(crate) const DANGLING: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: gone\n    uid: 0a1b2c3d-0000-4000-8000-000000000009\n";

pub(crate) const DEPENDENT: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  uid: 0a1b2c3d-0000-4000-8000-000000000002\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 0a1b2c3d-0000-4000-8000-000000000001\n";

/// A workspace of two files: a Deployment and a ConfigMap it owns, as a snapshot (with uids).
pub(crate) fn workspace(name: &str) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = common::temp_dir(name);
    let root = dir.path().canonicalize().expect("root");
    let owner = root.join("owner.yaml");
    let dependent = root.join("dependent.yaml");
    std::fs::write(&owner, OWNER).expect("write");
    std::fs::write(&dependent, DEPENDENT).expect("write");
    (dir, owner, dependent)
}

pub(crate) fn push_client() -> Value {
    json!({"textDocument": {"publishDiagnostics": {"relatedInformation": true}}})
}

pub(crate) fn pull_client() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-8", "utf-16"]},
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}, "didChangeWatchedFiles": {"dynamicRegistration": true}},
    })
}

#[test]
fn an_edit_in_one_file_changes_the_diagnostics_of_another() {
    let (_dir, owner, dependent) = workspace("server-push");
    let root = owner.parent().expect("root").to_path_buf();
    let mut client = Client::start(&root, push_client());
    client.open(&owner, OWNER);
    // The owner's uid edited (not saved): the dependent's reference no longer matches.
    let uid_line = 5;
    client.change(
        &owner,
        2,
        json!([{"range": {"start": {"line": uid_line, "character": 7}, "end": {"line": uid_line, "character": 43}}, "text": "0a1b2c3d-0000-4000-8000-00000000ffff"}]),
    );
    let diagnostics = client.published(&dependent);
    assert_eq!(
        codes(&diagnostics),
        ["owner-uid-mismatch"],
        "{diagnostics:?}"
    );
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic["source"], "ownerlint");
    assert_eq!(diagnostic["severity"], 1);
    assert_eq!(diagnostic["range"]["start"]["line"], 10);
    // The owner's side is named with its place.
    let related = diagnostic["relatedInformation"][0]["location"]["uri"].clone();
    assert_eq!(related, uri(&owner));
    // Undone: the dependent's diagnostics are cleared.
    client.change(&owner, 3, json!([{"text": OWNER}]));
    assert_eq!(client.published(&dependent), Vec::<Value>::new());
    // Never pulled: a push client is not sent refresh requests.
    assert!(
        !client
            .seen
            .iter()
            .any(|m| matches!(m, Message::Request(r) if r.method.contains("diagnostic")))
    );
    client.stop();
}

#[test]
fn a_client_that_pulls_is_asked_to_pull_again_and_is_never_pushed_to() {
    let (_dir, owner, dependent) = workspace("server-pull");
    let root = owner.parent().expect("root").to_path_buf();
    let mut client = Client::start(&root, pull_client());
    client.open(&dependent, DEPENDENT);
    client.open(&owner, OWNER);
    let report = client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri(&dependent)}}),
    );
    assert_eq!(report["kind"], "full");
    assert_eq!(report["items"], json!([]));
    // The owner's kind edited: the uid the reference names now belongs to another kind.
    client.change(
        &owner,
        2,
        json!([{"range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 16}}, "text": "StatefulSet"}]),
    );
    client.wait_for("a refresh request", |m| match m {
        Message::Request(r) if r.method == "workspace/diagnostic/refresh" => Some(()),
        _ => None,
    });
    let report = client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri(&dependent)}}),
    );
    let items = report["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(codes(&items), ["owner-uid-conflict"], "{report}");
    let workspace = client.request("workspace/diagnostic", json!({"previousResultIds": []}));
    let files: Vec<&str> = workspace["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| !r["items"].as_array().is_none_or(Vec::is_empty))
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert_eq!(files, [uri(&dependent)]);
    assert!(
        !client.seen.iter().any(
            |m| matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics")
        ),
        "a pull client got pushed diagnostics"
    );
    client.stop();
}

#[test]
fn hover_definition_and_references_follow_ownership() {
    let (_dir, owner, dependent) = workspace("server-navigate");
    let root = owner.parent().expect("root").to_path_buf();
    let mut client = Client::start(&root, pull_client());
    client.open(&dependent, DEPENDENT);
    // Wait for the analysis (a pull answers once it is done).
    client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri(&dependent)}}),
    );
    let on_reference =
        json!({"textDocument": {"uri": uri(&dependent)}, "position": {"line": 9, "character": 10}});
    let hover = client.request("textDocument/hover", on_reference.clone());
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("**Owner:** Deployment shop/api"), "{text}");
    assert!(
        text.contains("0a1b2c3d-0000-4000-8000-000000000001"),
        "{text}"
    );
    assert!(text.contains(&format!("{}:4", owner.display())), "{text}");
    let definition = client.request("textDocument/definition", on_reference);
    assert_eq!(definition["uri"], uri(&owner));
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 3, "character": 8})
    );
    // From the owner: the reference to it, and its own name when asked.
    let on_owner = json!({"textDocument": {"uri": uri(&owner)}, "position": {"line": 3, "character": 9}, "context": {"includeDeclaration": true}});
    let references = client.request("textDocument/references", on_owner);
    let places: Vec<(String, u64)> = references
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| {
            (
                l["uri"].as_str().unwrap_or_default().to_string(),
                l["range"]["start"]["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(places, [(uri(&owner), 3), (uri(&dependent), 7)]);
    // On the owner's name: its dependents.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&owner)}, "position": {"line": 3, "character": 9}}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("Dependents"), "{text}");
    assert!(text.contains("ConfigMap shop/cache"), "{text}");
    client.stop();
}

#[test]
fn a_reference_with_another_uid_is_not_called_the_owner() {
    let (_dir, owner, dependent) = workspace("server-uid-mismatch");
    let stale = DEPENDENT.replace(
        "    uid: 0a1b2c3d-0000-4000-8000-000000000001",
        "    uid: 0a1b2c3d-0000-4000-8000-000000000009",
    );
    std::fs::write(&dependent, &stale).expect("write");
    let root = owner.parent().expect("root").to_path_buf();
    let mut client = Client::start(&root, pull_client());
    client.open(&dependent, &stale);
    client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri(&dependent)}}),
    );
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&dependent)}, "position": {"line": 9, "character": 10}}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(!text.contains("**Owner:**"), "{text}");
    assert!(
        text.contains("**Named, but not the owner:** Deployment shop/api"),
        "{text}"
    );
    assert!(
        text.contains("its uid `0a1b2c3d-0000-4000-8000-000000000001` is not the reference's `0a1b2c3d-0000-4000-8000-000000000009`"),
        "{text}"
    );
    // On the dependent: no owner; on the owner: no dependent, one naming it.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&dependent)}, "position": {"line": 3, "character": 9}}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("No owner in the input."), "{text}");
    assert!(text.contains("but not owners"), "{text}");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&owner)}, "position": {"line": 3, "character": 9}}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("No dependents in the input."), "{text}");
    assert!(
        text.contains("Naming it with another uid, so not its dependents")
            && text.contains("ConfigMap shop/cache"),
        "{text}"
    );
    client.stop();
}

#[test]
fn quick_fixes_are_the_findings_fixes() {
    let dir = common::temp_dir("server-fix");
    let root = dir.path().canonicalize().expect("root");
    let file = root.join("pod.yaml");
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: replicaset\n    name: web\n    uid: 0a1b2c3d-0000-4000-8000-000000000009\n";
    std::fs::write(&file, text).expect("write");
    let mut client = Client::start(&root, pull_client());
    client.open(&file, text);
    let report = client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri(&file)}}),
    );
    assert!(
        codes(report["items"].as_array().map_or(&[][..], Vec::as_slice))
            .contains(&"owner-kind-lowercase".to_string()),
        "{report}"
    );
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&file)}, "range": {"start": {"line": 7, "character": 10}, "end": {"line": 7, "character": 10}}, "context": {"diagnostics": []}}),
    );
    let action = actions
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| {
            a["title"]
                .as_str()
                .is_some_and(|t| t.contains("ReplicaSet"))
        })
        .unwrap_or_else(|| panic!("no fix for the kind: {actions}"));
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["isPreferred"], true);
    let edits = &action["edit"]["changes"][uri(&file)];
    assert_eq!(
        edits,
        &json!([{"range": {"start": {"line": 7, "character": 10}, "end": {"line": 7, "character": 20}}, "newText": "ReplicaSet"}])
    );
    // Once the text moves on, a fix computed for the old text is not offered.
    client.change(&file, 2, json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# edited\n"}]));
    let stale = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&file)}, "range": {"start": {"line": 7, "character": 10}, "end": {"line": 7, "character": 10}}, "context": {"diagnostics": []}}),
    );
    // Either the new analysis answered (the fix, a line lower) or none was offered.
    for action in stale.as_array().into_iter().flatten() {
        let line = &action["edit"]["changes"][uri(&file)][0]["range"]["start"]["line"];
        assert_eq!(line, 8, "{action}");
    }
    client.stop();
}

#[test]
fn bad_requests_broken_files_and_files_deleted_on_disk() {
    let (_dir, owner, dependent) = workspace("server-robust");
    let root = owner.parent().expect("root").to_path_buf();
    let mut client = Client::start(&root, push_client());
    // A request the server does not know, and one with parameters of the wrong shape.
    let unknown = client.request_raw("textDocument/rename", json!({}));
    assert_eq!(unknown.response_result.err().map(|e| e.code), Some(-32601));
    let bad = client.request_raw("textDocument/hover", json!({"textDocument": 42}));
    assert_eq!(bad.response_result.err().map(|e| e.code), Some(-32602));
    // A notification of the wrong shape is logged, not fatal.
    client.notify("textDocument/didOpen", json!({"nonsense": true}));
    // A document that is not YAML at all.
    let broken = root.join("broken.yaml");
    client.open(&broken, "key: [unclosed\n\u{0}\u{1}{{{\n");
    let diagnostics = client.published(&broken);
    assert_eq!(codes(&diagnostics), ["invalid-yaml"], "{diagnostics:?}");
    // The owner deleted on disk: the dependent's reference dangles once the client says so.
    std::fs::remove_file(&owner).expect("remove");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&owner), "type": 3}]}),
    );
    let diagnostics = client.published(&dependent);
    assert_eq!(codes(&diagnostics), ["owner-not-found"], "{diagnostics:?}");
    // Closing the broken buffer, which was never saved, clears its diagnostics.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&broken)}}),
    );
    assert_eq!(client.published(&broken), Vec::<Value>::new());
    // Still answering.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&dependent)}, "position": {"line": 0, "character": 0}}),
    );
    assert!(hover.is_object(), "{hover}");
    client.stop();
}

/// The analysis the server makes of a folder: with the editor's texts and the folder's cache.
pub(crate) fn analyze_workspace(
    options: &ownerlint::Options,
    open: &std::collections::HashMap<std::path::PathBuf, String>,
    cache: &mut ownerlint::pipeline::LoadCache,
) -> ownerlint::Analysis {
    let inputs = ownerlint::pipeline::Inputs {
        texts: open.clone(),
        stdin: &mut std::io::empty(),
        cache: Some(cache),
    };
    ownerlint::pipeline::analyze_inputs(options, inputs)
}

#[test]
fn an_analysis_after_an_edit_loads_only_the_file_edited_and_finds_what_a_fresh_one_finds() {
    let (_dir, owner, dependent) = workspace("server-cache");
    let root = owner.parent().expect("root").to_path_buf();
    let options = ownerlint::Options {
        paths: vec![root.clone()],
        ..ownerlint::Options::default()
    };
    let mut cache = ownerlint::pipeline::LoadCache::default();
    let mut open = std::collections::HashMap::new();
    let first = analyze_workspace(&options, &open, &mut cache);
    assert_eq!((cache.loaded_last(), cache.len()), (2, 2));
    assert!(first.outcome.findings.is_empty());
    // The owner edited in the editor: only it is loaded again, and the finding it causes in
    // the other file is the one a run without the cache finds.
    open.insert(owner.clone(), OWNER.replace("000000000001", "00000000ffff"));
    let second = analyze_workspace(&options, &open, &mut cache);
    assert_eq!(cache.loaded_last(), 1);
    let fresh = analyze_workspace(&options, &open, &mut Default::default());
    let render =
        |a: &ownerlint::Analysis| common::render(&a.outcome, ownerlint::report::Format::Short);
    assert_eq!(render(&second), render(&fresh));
    assert!(
        render(&second).contains("[owner-uid-mismatch]"),
        "{}",
        render(&second)
    );
    assert!(render(&second).contains(&*dependent.to_string_lossy()));
    // Nothing changed: nothing is loaded.
    analyze_workspace(&options, &open, &mut cache);
    assert_eq!(cache.loaded_last(), 0);
}

#[test]
fn a_file_changed_on_disk_is_read_again_whatever_its_modification_time_says() {
    let (_dir, owner, _dependent) = workspace("server-stamps");
    let root = owner.parent().expect("root").to_path_buf();
    let options = ownerlint::Options {
        paths: vec![root.clone()],
        ..ownerlint::Options::default()
    };
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let last_changed_an_hour_ago = |path: &Path| {
        std::fs::File::options()
            .write(true)
            .open(path)
            .expect("open")
            .set_modified(an_hour_ago)
            .expect("set the modification time");
    };
    for file in ["owner.yaml", "dependent.yaml"] {
        last_changed_an_hour_ago(&root.join(file));
    }
    let mut cache = ownerlint::pipeline::LoadCache::default();
    let open = std::collections::HashMap::new();
    let mut analyze = || {
        let analysis = analyze_workspace(&options, &open, &mut cache);
        let rules: Vec<&str> = analysis
            .outcome
            .findings
            .iter()
            .map(|f| f.rule.id)
            .collect();
        (cache.loaded_last(), rules.join(","))
    };
    assert_eq!(analyze(), (2, String::new()));
    assert_eq!(analyze(), (0, String::new()));
    // The owner's uid changed (the same length), and its modification time set back to what
    // it was: the file is read again all the same.
    std::thread::sleep(Duration::from_millis(50));
    std::fs::write(&owner, OWNER.replace("000000000001", "00000000ffff")).expect("write");
    last_changed_an_hour_ago(&owner);
    assert_eq!(analyze(), (1, "owner-uid-mismatch".to_string()));
    // Changed back and again within a second of the reads: each change is read.
    std::fs::write(&owner, OWNER).expect("write");
    assert_eq!(analyze(), (1, String::new()));
    std::fs::write(&owner, OWNER.replace("000000000001", "00000000ffff")).expect("write");
    assert_eq!(analyze(), (1, "owner-uid-mismatch".to_string()));
}

#[test]
fn files_created_on_disk_are_taken_in_and_a_huge_one_does_not_hold_up_requests() {
    let (_dir, owner, dependent) = workspace("server-created");
    let root = owner.parent().expect("root").to_path_buf();
    std::fs::remove_file(&owner).expect("remove");
    let mut client = Client::start(&root, push_client());
    client.open(&dependent, DEPENDENT);
    assert_eq!(codes(&client.published(&dependent)), ["owner-not-found"]);
    // The owner's file appears on disk (a checkout, a generator): the reference resolves.
    std::fs::write(&owner, OWNER).expect("write");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&owner), "type": 1}]}),
    );
    assert_eq!(codes(&client.published(&dependent)), Vec::<String>::new());
    // A dump of 100,000 objects (about 20 MB) appears: it is analysed on the worker, and a
    // request sent meanwhile is answered from what is known, before that analysis ends.
    let huge = root.join("dump.yaml");
    let mut text = String::new();
    for i in 0..100_000 {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{i}\n  namespace: shop\n  uid: 0a1b2c3d-1111-4000-8000-{i:012}\ndata:\n  key: value\n"
        ));
    }
    // Its last object names an owner that is in no file: a finding that shows it was read.
    text.push_str("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: orphaned\n  namespace: shop\n  uid: 0a1b2c3d-2222-4000-8000-000000000001\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: gone\n    uid: 0a1b2c3d-2222-4000-8000-000000000002\n");
    std::fs::write(&huge, text).expect("write");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&huge), "type": 1}]}),
    );
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&dependent)}, "position": {"line": 8, "character": 10}}),
    );
    assert!(hover.to_string().contains("Deployment shop/api"), "{hover}");
    let published_before_the_answer = client.seen.iter().any(
        |m| matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics"),
    );
    assert!(
        !published_before_the_answer,
        "the hover waited for the analysis of the dump: {:?}",
        client.seen
    );
    // The analysis ends with the dump's own finding.
    assert_eq!(codes(&client.published(&huge)), ["owner-not-found"]);
    client.stop();
}

/// `ownerlint ARGS --format json` in `dir`: its findings as (path, rule, line, column), lines
/// and columns 1-based.
pub(crate) fn cli_findings(dir: &Path, args: &[&str]) -> Vec<(String, String, u64, u64)> {
    let output = common::ownerlint()
        .current_dir(dir)
        .args(args)
        .args(["--format", "json"])
        .run();
    let report: Value = serde_json::from_str(&output.stdout).expect("JSON");
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or("?").to_string(),
                f["rule"].as_str().unwrap_or("?").to_string(),
                f["start"]["line"].as_u64().unwrap_or(0),
                f["start"]["column"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// Diagnostics as (rule, line, character), 0-based as LSP has them.
pub(crate) fn places(diagnostics: &[Value]) -> Vec<(String, u64, u64)> {
    diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("?").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(0),
                d["range"]["start"]["character"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

pub(crate) const CHART: &str = "apiVersion: v2\nname: shop\nversion: 0.1.0\n";
pub(crate) const CHART_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.owner }}\nspec:\n  selector:\n    matchLabels:\n      app: api\n  template:\n    metadata:\n      labels:\n        app: api\n    spec:\n      containers:\n      - name: api\n        image: api:1\n";
/// A ConfigMap whose owner (templated) is in no input.
pub(crate) const CHART_CACHE: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cache\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: {{ .Values.owner }}-missing\n    uid: 0a1b2c3d-0000-4000-8000-000000000001\n";

#[test]
fn a_chart_template_shows_what_the_built_chart_finds_and_unsaved_edits_are_built() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("server-chart");
    let root = dir.path().canonicalize().expect("root");
    common::write_files(
        &root,
        &[
            ("chart/Chart.yaml", CHART),
            ("chart/values.yaml", "owner: api\n"),
            ("chart/templates/deployment.yaml", CHART_DEPLOYMENT),
            ("chart/templates/cache.yaml", CHART_CACHE),
        ],
    );
    let cache = root.join("chart/templates/cache.yaml");
    // What the command line finds in the chart, on the template's line.
    let cli = cli_findings(&root, &["chart/"]);
    assert_eq!(
        cli,
        [(
            "chart/templates/cache.yaml".to_string(),
            "owner-not-found".to_string(),
            6,
            3
        )]
    );
    let mut client = Client::start(&root, push_client());
    client.open(&cache, CHART_CACHE);
    let diagnostics = client.published(&cache);
    // The same finding at the same place (LSP counts from 0), not `unrendered-template`.
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
    // Hover on the template's reference: the reference of the built object, unresolved.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&cache)}, "position": {"line": 7, "character": 6}}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("**Unresolved owner:**"), "{hover}");
    assert!(text.contains("`owner-not-found`"), "{hover}");
    assert_eq!(hover["range"]["start"]["line"], 5, "{hover}");
    // The owner named (unsaved): go to definition lands on the Deployment's template.
    let named = CHART_CACHE.replace("-missing", "");
    client.change(&cache, 2, json!([{"text": named}]));
    assert_eq!(
        codes(&client.published(&cache)),
        ["owner-created-with-fresh-uid"]
    );
    let definition = client.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri(&cache)}, "position": {"line": 7, "character": 6}}),
    );
    assert_eq!(
        definition["uri"],
        uri(&root.join("chart/templates/deployment.yaml")),
        "{definition}"
    );
    assert_eq!(definition["range"]["start"]["line"], 3, "{definition}");
    // An unsaved edit of the template that drops the reference: built from the editor's
    // text, the finding is gone.
    let fixed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cache\n";
    client.change(&cache, 3, json!([{"text": fixed}]));
    assert_eq!(client.published(&cache), Vec::<Value>::new());
    // The file on disk is untouched.
    assert_eq!(std::fs::read_to_string(&cache).expect("read"), CHART_CACHE);
    // An unsaved values file renames the owner the reference names: the build reads it.
    let values = root.join("chart/values.yaml");
    client.change(&cache, 4, json!([{"text": CHART_CACHE}]));
    assert_eq!(
        places(&client.published(&cache)),
        [("owner-not-found".to_string(), 5, 2)]
    );
    client.open(&values, "owner: web\n");
    let diagnostics = client.published(&cache);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Deployment default/web-missing")),
        "{diagnostics:?}"
    );
    // A template that helm cannot render: `render-failed` on the template's line, as the
    // command line reports it, with no temporary folder in its message.
    let broken = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }-cache\n";
    client.change(&cache, 5, json!([{"text": broken}]));
    let diagnostics = client.published(&cache);
    assert_eq!(codes(&diagnostics), ["render-failed"], "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["range"]["start"]["line"], 3,
        "{diagnostics:?}"
    );
    let message = diagnostics[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("shop/templates/cache.yaml:4"), "{message}");
    assert!(
        message.contains(&format!("helm template {}", root.join("chart").display())),
        "{message}"
    );
    assert!(!message.contains("ownerlint-build-"), "{message}");
    // The same text saved: the command line says the same.
    std::fs::write(&cache, broken).expect("write");
    let cli = cli_findings(&root, &["chart/"]);
    assert_eq!(
        cli,
        [(
            "chart/templates/cache.yaml".to_string(),
            "render-failed".to_string(),
            4,
            diagnostics[0]["range"]["start"]["character"]
                .as_u64()
                .unwrap_or(0)
                + 1
        )]
    );
    client.stop();
}

#[test]
fn an_overlay_patch_shows_what_the_built_overlay_finds_and_unsaved_edits_are_built() {
    if common::kubectl().is_none() {
        return;
    }
    let dir = common::temp_dir("server-overlay");
    let root = dir.path().canonicalize().expect("root");
    let deployment = CHART_DEPLOYMENT.replace("{{ .Values.owner }}", "api");
    let patch = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api-missing\n    uid: 0a1b2c3d-0000-4000-8000-000000000001\n";
    common::write_files(
        &root,
        &[
            (
                "ov/base/kustomization.yaml",
                "resources:\n- deployment.yaml\n- cache.yaml\n",
            ),
            ("ov/base/deployment.yaml", &deployment),
            (
                "ov/base/cache.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n",
            ),
            (
                "ov/prod/kustomization.yaml",
                "resources:\n- ../base\npatches:\n- path: owner.yaml\n",
            ),
            ("ov/prod/owner.yaml", patch),
        ],
    );
    let owner = root.join("ov/prod/owner.yaml");
    let cli = cli_findings(&root, &["ov/"]);
    assert_eq!(
        cli,
        [(
            "ov/prod/owner.yaml".to_string(),
            "owner-not-found".to_string(),
            6,
            3
        )]
    );
    let mut client = Client::start(&root, push_client());
    client.open(&owner, patch);
    let diagnostics = client.published(&owner);
    assert_eq!(
        places(&diagnostics),
        [("owner-not-found".to_string(), 5, 2)],
        "{diagnostics:?}"
    );
    // The unsaved patch names the base's Deployment, created by the overlay: its uid is not
    // the one written (the kind of finding changes, at the uid's line).
    let named = patch.replace("api-missing", "api");
    client.change(&owner, 2, json!([{"text": named}]));
    let diagnostics = client.published(&owner);
    assert_eq!(
        places(&diagnostics),
        [("owner-created-with-fresh-uid".to_string(), 8, 9)],
        "{diagnostics:?}"
    );
    // An unsaved base file that renames the Deployment: the owner is missing again.
    let base = root.join("ov/base/deployment.yaml");
    client.open(&base, &deployment.replace("  name: api\n", "  name: web\n"));
    let diagnostics = client.published(&owner);
    assert_eq!(codes(&diagnostics), ["owner-not-found"], "{diagnostics:?}");
    client.stop();
}

#[test]
fn a_configuration_with_a_mistake_is_a_diagnostic_on_that_file() {
    let (_dir, owner, _) = workspace("server-config");
    let root = owner.parent().expect("root").to_path_buf();
    let config = root.join(".ownerlint.yaml");
    std::fs::write(&config, "namespace: shop\nrulez:\n  owner-not-found: off\n").expect("write");
    // The command line names the mistake at its line and column.
    let output = common::ownerlint().current_dir(&root).arg(".").run();
    assert_eq!(output.code(), Some(2));
    let stderr = &output.stderr;
    assert!(stderr.contains(".ownerlint.yaml:2:1: "), "{stderr}");
    let mut client = Client::start(&root, push_client());
    let diagnostics = client.published(&config);
    assert_eq!(codes(&diagnostics), ["config"], "{diagnostics:?}");
    assert_eq!(diagnostics[0]["range"]["start"]["line"], 1);
    assert_eq!(diagnostics[0]["range"]["start"]["character"], 0);
    let message = diagnostics[0]["message"].as_str().unwrap_or_default();
    let cli_message = stderr
        .lines()
        .find_map(|l| l.split_once(".ownerlint.yaml:2:1: ").map(|(_, m)| m))
        .unwrap_or_default();
    assert!(
        message.starts_with(cli_message),
        "{message} / {cli_message}"
    );
    // Fixed on disk: the diagnostic is cleared.
    std::fs::write(&config, "namespace: shop\n").expect("write");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&config), "type": 2}]}),
    );
    assert_eq!(client.published(&config), Vec::<Value>::new());
    client.stop();
}

#[test]
fn an_unsaved_configuration_applies_and_its_mistakes_are_a_diagnostic_on_it() {
    let dir = common::temp_dir("server-unsaved-config");
    let root = dir.path().canonicalize().expect("root");
    let cache = root.join("cache.yaml");
    std::fs::write(&cache, DANGLING).expect("write");
    let config = root.join(".ownerlint.yaml");
    let mut client = Client::start(&root, push_client());
    assert_eq!(codes(&client.published(&cache)), ["owner-not-found"]);
    // A configuration not yet saved (no such file on disk) turns the rule off.
    client.open(&config, "rules:\n  owner-not-found: off\n");
    assert_eq!(client.published(&cache), Vec::<Value>::new());
    // An unsaved mistake: a diagnostic on the configuration, at its place, and the default
    // configuration meanwhile.
    client.change(
        &config,
        2,
        json!([{"text": "rules:\n  owner-not-found: of\n"}]),
    );
    let diagnostics = client.published(&config);
    assert_eq!(codes(&diagnostics), ["config"], "{diagnostics:?}");
    assert_eq!(diagnostics[0]["range"]["start"]["line"], 1);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown level `of`")),
        "{diagnostics:?}"
    );
    assert_eq!(codes(&client.published(&cache)), ["owner-not-found"]);
    // The edit over a configuration saved on disk wins over the file.
    std::fs::write(&config, "rules:\n  owner-not-found: off\n").expect("write");
    client.change(
        &config,
        3,
        json!([{"text": "rules:\n  owner-not-found: error\n"}]),
    );
    assert_eq!(client.published(&config), Vec::<Value>::new());
    let diagnostics = client.published(&cache);
    assert_eq!(codes(&diagnostics), ["owner-not-found"], "{diagnostics:?}");
    assert_eq!(diagnostics[0]["severity"], 1, "{diagnostics:?}");
    client.stop();
}
