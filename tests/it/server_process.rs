//! The language server as an editor starts it, a process with frames on its standard input
//! and output: malformed frames, file watchers, shutdown and exit (during an analysis, during a
//! build), and what it runs when a workspace opens.

use crate::common;
use crate::server::{WAIT, codes, pull_client, push_client, uri, workspace};

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

/// `ownerlint server` as an editor starts it: the binary, frames written raw to its standard
/// input, messages read from its standard output.
pub(crate) struct Process {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    pub(crate) messages: std::sync::mpsc::Receiver<Value>,
}

impl Process {
    pub(crate) fn start(root: &Path, capabilities: Value) -> Process {
        Process::start_with(root, capabilities, Value::Null, |command| command)
    }

    /// [`Process::start`], with the client's `initializationOptions`, and the command set up
    /// by `setup` (its environment).
    pub(crate) fn start_with(
        root: &Path,
        capabilities: Value,
        initialization_options: Value,
        setup: impl FnOnce(common::Ownerlint) -> common::Ownerlint,
    ) -> Process {
        let mut child = setup(common::ownerlint().arg("server").current_dir(root))
            .command()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("ownerlint server starts");
        let stdin = child.stdin.take();
        let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let (sender, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            while let Some(message) = read_frame(&mut stdout) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        let mut this = Process {
            child,
            stdin,
            messages,
        };
        let root_uri = uri(root);
        this.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "processId": null,
                "rootUri": root_uri,
                "workspaceFolders": [{"uri": root_uri, "name": "root"}],
                "capabilities": capabilities,
                "initializationOptions": initialization_options,
            }}),
        );
        let (answer, _) = this.answer(0);
        assert!(answer["result"]["capabilities"].is_object(), "{answer}");
        this
    }

    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    pub(crate) fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// The answer to request `id`, and the messages that came before it.
    pub(crate) fn answer(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            match self.messages.recv_timeout(WAIT) {
                Ok(message) if message["id"] == id && message.get("method").is_none() => {
                    return (message, before);
                }
                Ok(message) => before.push(message),
                Err(e) => panic!("no answer to {id}: {e}; seen {before:?}"),
            }
        }
    }

    /// The exit status, once the server has ended (within `within`).
    pub(crate) fn status(&mut self, within: Duration) -> Option<i32> {
        self.stdin.take();
        let start = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            if start.elapsed() > within {
                let _ = self.child.kill();
                panic!("the server did not end within {within:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_frame(input: &mut impl std::io::BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    std::io::Read::read_exact(input, &mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

#[test]
fn malformed_frames_are_answered_and_skipped_and_the_server_reads_on() {
    let (_dir, owner, _) = workspace("server-malformed");
    let root = owner.parent().expect("root").to_path_buf();
    let mut server = Process::start(&root, push_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let parse_error = json!(-32700);
    let invalid = json!(-32600);
    let shapes: Vec<(&str, Vec<u8>, Value, Value)> = vec![
        (
            "invalid UTF-8",
            frame(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}"),
            parse_error.clone(),
            Value::Null,
        ),
        ("not JSON", frame(b"hello there"), parse_error.clone(), Value::Null),
        (
            "a batch",
            frame(br#"[{"jsonrpc":"2.0","id":90,"method":"shutdown"}]"#),
            invalid.clone(),
            Value::Null,
        ),
        (
            "no method",
            frame(br#"{"jsonrpc":"2.0","id":91}"#),
            invalid.clone(),
            json!(91),
        ),
        (
            "an id that is not an integer",
            frame(br#"{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover"}"#),
            invalid.clone(),
            json!(1.5),
        ),
        (
            "no Content-Length",
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}".to_vec(),
            parse_error.clone(),
            Value::Null,
        ),
        (
            "a Content-Length that is not a number",
            b"Content-Length: twelve\r\n\r\n{\"jsonrpc\":\"2.0\"}".to_vec(),
            parse_error.clone(),
            Value::Null,
        ),
        (
            "truncated JSON",
            frame(br#"{"jsonrpc":"2.0","id":92,"method":"textDoc"#),
            parse_error.clone(),
            Value::Null,
        ),
        ("NUL bytes", frame(b"\0\0\0\0"), parse_error.clone(), Value::Null),
        (
            "nesting 100,000 deep",
            frame(deep.as_bytes()),
            parse_error.clone(),
            Value::Null,
        ),
        (
            "a petabyte announced",
            b"Content-Length: 1000000000000000\r\n\r\n{\"jsonrpc\":\"2.0\"}".to_vec(),
            parse_error.clone(),
            Value::Null,
        ),
        (
            "a header line of 1 MiB",
            format!("Content-Length: 2\r\nX-Padding: {}\r\n\r\n{{}}", "x".repeat(1 << 20))
                .into_bytes(),
            parse_error.clone(),
            Value::Null,
        ),
    ];
    for (i, (shape, bytes, code, id)) in shapes.into_iter().enumerate() {
        server.raw(&bytes);
        // A request after it: answered, after the bad frame's error.
        let ping = 100 + i as i64;
        server.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ownerlint/unknown"}));
        let (answer, before) = server.answer(ping);
        assert_eq!(answer["error"]["code"], json!(-32601), "{shape}: {answer}");
        let errors: Vec<&Value> = before.iter().filter(|m| m.get("error").is_some()).collect();
        assert_eq!(errors.len(), 1, "{shape}: {before:?}");
        assert_eq!(errors[0]["error"]["code"], code, "{shape}: {before:?}");
        assert_eq!(errors[0]["id"], id, "{shape}: {before:?}");
    }
    // A header ended by LF alone is read.
    let body = r#"{"jsonrpc":"2.0","id":200,"method":"ownerlint/x"}"#;
    server.raw(format!("Content-Length: {}\n\n{body}", body.len()).as_bytes());
    let (answer, _) = server.answer(200);
    assert_eq!(answer["error"]["code"], json!(-32601), "{answer}");
    // A GiB announced is refused before any of it is read, and the next frame is answered.
    server.raw(b"Content-Length: 1073741824\r\n\r\n");
    server.send(&json!({"jsonrpc": "2.0", "id": 201, "method": "ownerlint/x"}));
    let (_, before) = server.answer(201);
    assert!(
        before.iter().any(|m| m["error"]["code"] == parse_error),
        "{before:?}"
    );
    server.send(&json!({"jsonrpc": "2.0", "id": 202, "method": "shutdown"}));
    let (answer, _) = server.answer(202);
    assert_eq!(answer["result"], Value::Null, "{answer}");
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(0));
}

#[test]
fn file_watchers_are_registered_after_initialized() {
    let (_dir, owner, _) = workspace("server-watchers");
    let root = owner.parent().expect("root").to_path_buf();
    let mut server = Process::start(&root, pull_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
    let (_, before) = server.answer(1);
    let registration = before
        .iter()
        .find(|m| m["method"] == "client/registerCapability")
        .unwrap_or_else(|| panic!("no registration: {before:?}"));
    let registered = &registration["params"]["registrations"][0];
    assert_eq!(registered["method"], "workspace/didChangeWatchedFiles");
    let globs: Vec<&Value> = registered["registerOptions"]["watchers"]
        .as_array()
        .expect("watchers")
        .iter()
        .map(|w| &w["globPattern"])
        .collect();
    assert!(globs.contains(&&json!("**/*.yaml")), "{globs:?}");
    // A client that cannot register them is not asked to.
    let mut server = Process::start(&root, push_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
    let (_, before) = server.answer(1);
    assert!(
        !before
            .iter()
            .any(|m| m["method"] == "client/registerCapability"),
        "{before:?}"
    );
}

#[test]
fn shutdown_then_exit_and_exit_without_shutdown() {
    let (_dir, owner, dependent) = workspace("server-exit");
    let root = owner.parent().expect("root").to_path_buf();
    // A request between shutdown and exit is refused as invalid; exit then ends with 0.
    let mut server = Process::start(&root, push_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
    let (answer, _) = server.answer(1);
    assert_eq!(answer["result"], Value::Null, "{answer}");
    server.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params":
        {"textDocument": {"uri": uri(&dependent)}, "position": {"line": 0, "character": 0}}}),
    );
    let (answer, _) = server.answer(2);
    assert_eq!(answer["error"]["code"], json!(-32600), "{answer}");
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(0));
    // exit without shutdown: 1.
    let mut server = Process::start(&root, push_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(1));
}

#[test]
fn exit_during_an_analysis_ends_the_server_before_the_analysis() {
    let (_dir, owner, _) = workspace("server-exit-busy");
    let root = owner.parent().expect("root").to_path_buf();
    // A dump whose analysis takes seconds, and ends with a finding in its last object.
    let mut text = String::new();
    for i in 0..50_000 {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{i}\n  namespace: shop\n  uid: 0a1b2c3d-1111-4000-8000-{i:012}\n"
        ));
    }
    text.push_str("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: orphaned\n  namespace: shop\n  uid: 0a1b2c3d-2222-4000-8000-000000000001\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: gone\n    uid: 0a1b2c3d-2222-4000-8000-000000000002\n");
    let dump = root.join("dump.yaml");
    std::fs::write(&dump, text).expect("write");
    // Analysed to the end, the workspace publishes the dump's finding.
    let mut server = Process::start(&root, push_client());
    let start = std::time::Instant::now();
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let wanted = uri(&dump);
    loop {
        let message = server.messages.recv_timeout(WAIT * 2).expect("diagnostics");
        if message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["uri"] == wanted
        {
            break;
        }
    }
    let analysis = start.elapsed();
    drop(server);
    // exit as soon as that analysis has begun: the server ends well before it would end, and
    // publishes nothing.
    let mut server = Process::start(&root, push_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let start = std::time::Instant::now();
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT * 6), Some(1));
    let exit = start.elapsed();
    assert!(
        exit < analysis / 2,
        "exit took {exit:?}, an analysis {analysis:?}"
    );
    let published: Vec<Value> = server
        .messages
        .try_iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert!(published.is_empty(), "{published:?}");
}

#[test]
fn an_overlay_with_a_remote_reference_runs_nothing_when_the_workspace_opens() {
    let (Some(_), Some(_)) = (
        common::kubectl(),
        common::require_tool("git", "install git, which kustomize runs for remote bases"),
    ) else {
        return;
    };
    let dir = common::temp_dir("server-remote");
    let root = dir.path().canonicalize().expect("root");
    // kustomize would run `git fetch --upload-pack=touch MARKER`.
    let marker = root.join("PWNED");
    let reference = format!(
        "file:///nonexistent/repo?ref=--upload-pack=touch%20{}",
        marker.display()
    );
    let kustomization = root.join("kustomization.yaml");
    std::fs::write(&kustomization, format!("resources:\n- \"{reference}\"\n")).expect("write");
    // Nothing opened: the workspace is analysed when the server starts.
    let mut server = Process::start(&root, push_client());
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let wanted = uri(&kustomization);
    let diagnostics = loop {
        let message = server.messages.recv_timeout(WAIT).expect("diagnostics");
        if message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["uri"] == wanted
        {
            break message["params"]["diagnostics"].clone();
        }
    };
    let diagnostics = diagnostics.as_array().cloned().unwrap_or_default();
    assert_eq!(codes(&diagnostics), ["render-failed"], "{diagnostics:?}");
    let message = diagnostics[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("resources entry \"{reference}\""))
            && message.contains("is remote and was not fetched")
            && message.contains("--allow-remote-bases"),
        "{message}"
    );
    assert_eq!(
        diagnostics[0]["range"]["start"]["line"], 1,
        "{diagnostics:?}"
    );
    assert!(!marker.exists(), "git ran the reference's command");
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
    let _ = server.answer(1);
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(0));
}

#[test]
#[cfg(target_os = "linux")]
fn exit_during_a_build_ends_the_builds_tool_and_what_it_started() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in kustomize (found before kubectl) that starts a child of its own and never
    // finishes.
    let tools = common::temp_dir("server-exit-build-tools");
    let started = tools.path().join("started");
    let kustomize = tools.path().join("kustomize");
    std::fs::write(
        &kustomize,
        format!(
            "#!/bin/sh\n/bin/sleep 417 &\necho $! > '{}'\n/bin/sleep 417\n",
            started.display()
        ),
    )
    .expect("write");
    std::fs::set_permissions(&kustomize, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::join_paths([
        tools.path().to_path_buf(),
        std::path::PathBuf::from("/bin"),
        std::path::PathBuf::from("/usr/bin"),
    ])
    .expect("PATH");
    let dir = common::temp_dir("server-exit-build");
    let root = dir.path().canonicalize().expect("root");
    common::write_files(
        &root,
        &[
            ("kustomization.yaml", "resources:\n- cm.yaml\n"),
            (
                "cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
            ),
        ],
    );
    let mut server = Process::start_with(&root, push_client(), Value::Null, |command| {
        command.env("PATH", &path)
    });
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let waited = std::time::Instant::now();
    let child = loop {
        match std::fs::read_to_string(&started) {
            Ok(pid) if !pid.trim().is_empty() => break pid.trim().to_string(),
            _ if waited.elapsed() > WAIT => panic!("the build never started"),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    server.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.status(WAIT), Some(1));
    // The build's child is gone: ended, and reaped by whoever adopted it (a zombie has ended).
    let running = || {
        std::fs::read_to_string(format!("/proc/{child}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(") ")
                .is_some_and(|(_, s)| s.starts_with('Z'))
        })
    };
    let waited = std::time::Instant::now();
    while running() && waited.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!running(), "the build's child {child} outlived the server");
}
