//! The VS Code extension in `editors/vscode`: what it declares (languages, licence, settings,
//! coordinates), what it starts (`ownerlint server` for YAML, JSON and Helm templates, run
//! under Node.js with VS Code and the language client stood in for), and, in the heavy tier,
//! the `.vsix` that `npm ci` and `npm run package` make from its lock file (npm fetches the
//! packages).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn source() -> PathBuf {
    root().join("editors/vscode")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("read");
    serde_json::from_str(&text).expect("JSON")
}

/// The languages the extension starts the server for.
const LANGUAGES: [&str; 3] = ["yaml", "json", "helm"];

/// `package.json`'s `repository` in Cargo.toml's `[package]`, where the coordinates are set.
fn cargo_repository() -> Option<String> {
    cargo_field("repository")
}

/// A string field of Cargo.toml's `[package]`.
fn cargo_field(key: &str) -> Option<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let package = manifest
        .split("\n[")
        .find(|t| t.trim_start_matches('[').starts_with("package]"))?;
    let line = package
        .lines()
        .find(|l| l.split('=').next().is_some_and(|k| k.trim() == key))?;
    Some(line.split('"').nth(1)?.to_string())
}

#[test]
fn the_manifest_activates_on_yaml_json_and_helm_with_its_licence_and_settings() {
    let manifest = read_json(&source().join("package.json"));
    let events: Vec<&str> = manifest["activationEvents"]
        .as_array()
        .expect("activationEvents")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for language in LANGUAGES {
        assert!(
            events.contains(&format!("onLanguage:{language}").as_str()),
            "{events:?}"
        );
    }
    assert_eq!(manifest["license"], "MIT OR Apache-2.0");
    let settings = &manifest["contributes"]["configuration"]["properties"];
    for setting in [
        "ownerlint.path",
        "ownerlint.server.args",
        "ownerlint.trace.server",
        "ownerlint.renderTimeout",
    ] {
        assert!(settings.get(setting).is_some(), "{setting} is not declared");
    }
    assert_eq!(
        settings["ownerlint.server.args"]["default"],
        json!(["server"])
    );
    assert_eq!(
        settings["ownerlint.trace.server"]["enum"],
        json!(["off", "messages", "verbose"])
    );
    // The coordinates are Cargo.toml's: the publisher is the repository's owner.
    let repository = manifest["repository"]["url"].as_str().expect("repository");
    let expected = cargo_repository().expect("Cargo.toml's package.repository");
    assert_eq!(repository, expected);
    let owner = repository
        .strip_prefix("https://github.com/")
        .and_then(|path| path.split('/').next())
        .expect("a GitHub repository");
    assert_eq!(manifest["publisher"], owner);
    assert_eq!(
        manifest["version"].as_str(),
        cargo_field("version").as_deref(),
        "`cargo xtask coordinates` writes Cargo.toml's version into package.json"
    );
    // vsce packages what the lock file pins, and nothing floats.
    let lock = read_json(&source().join("package-lock.json"));
    for kind in ["dependencies", "devDependencies"] {
        for (name, version) in manifest[kind].as_object().expect(kind) {
            let version = version.as_str().expect("a version");
            assert!(
                version.chars().all(|c| c.is_ascii_digit() || c == '.'),
                "{name} {version} is not pinned"
            );
            assert_eq!(
                lock["packages"][format!("node_modules/{name}")]["version"],
                version,
                "{name} in package-lock.json"
            );
        }
    }
    assert!(
        manifest["scripts"]["package"]
            .as_str()
            .is_some_and(|s| s.starts_with("vsce package")),
        "{}",
        manifest["scripts"]
    );
    assert_eq!(manifest["main"], "./dist/extension.js");
}

/// A stand-in for VS Code's API: settings from `OWNERLINT_SETTINGS` (JSON).
const VSCODE_STUB: &str = "const settings = JSON.parse(process.env.OWNERLINT_SETTINGS);
module.exports = {
  workspace: {
    getConfiguration: (section) => ({ get: (key) => settings[`${section}.${key}`] }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
};
";

/// A stand-in for the language client: prints what it is made with.
const CLIENT_STUB: &str = "exports.LanguageClient = class {
  constructor(id, name, server, client) {
    console.log(JSON.stringify({ id, server, client }));
  }
  start() { return Promise.resolve(); }
  stop() { return Promise.resolve(); }
};
";

/// What `extension.js` starts the language client with, under `settings`.
fn client_started_with(node: &Path, settings: &Value) -> Value {
    let dir = common::temp_dir("vscode-activate");
    common::write_files(
        dir.path(),
        &[
            ("node_modules/vscode/index.js", VSCODE_STUB),
            ("node_modules/vscode-languageclient/node.js", CLIENT_STUB),
        ],
    );
    std::fs::copy(
        source().join("extension.js"),
        dir.path().join("extension.js"),
    )
    .expect("copy");
    let out = Command::new(node)
        .args([
            "-e",
            "require('./extension.js').activate({ subscriptions: [] })",
        ])
        .current_dir(dir.path())
        .env("OWNERLINT_SETTINGS", settings.to_string())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).expect("the client's arguments")
}

#[test]
fn the_extension_starts_the_server_for_yaml_json_and_helm_documents() {
    let Some(node) = common::require_tool("node", "install Node.js") else {
        return;
    };
    let started = client_started_with(&node, &json!({}));
    assert_eq!(started["id"], "ownerlint");
    assert_eq!(
        started["server"],
        json!({"command": "ownerlint", "args": ["server"]})
    );
    let selector: Vec<&str> = started["client"]["documentSelector"]
        .as_array()
        .expect("documentSelector")
        .iter()
        .filter_map(|s| s["language"].as_str())
        .collect();
    assert_eq!(selector, LANGUAGES);
    // The settings: the program, its arguments (through a wrapper), the build timeout.
    let started = client_started_with(
        &node,
        &json!({
            "ownerlint.path": "mise",
            "ownerlint.server.args": ["exec", "ownerlint", "server"],
            "ownerlint.renderTimeout": 90,
        }),
    );
    assert_eq!(
        started["server"],
        json!({"command": "mise", "args": ["exec", "ownerlint", "server"]})
    );
    assert_eq!(
        started["client"]["initializationOptions"],
        json!({"renderTimeout": 90})
    );
    // Arguments that are not a list of strings (settings.json is edited by hand) start the
    // server as by default.
    for args in [json!("server --verbose"), json!([1, 2]), json!([])] {
        let started = client_started_with(&node, &json!({ "ownerlint.server.args": args }));
        assert_eq!(started["server"]["args"], json!(["server"]), "{args}");
    }
}

/// The file names a zip archive lists, and the text of `read` among them, through Python's
/// zipfile.
fn zip_contents(python: &Path, archive: &Path, read: &[&str]) -> (Vec<String>, Vec<String>) {
    let script = "import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps([z.namelist(), [z.read(n).decode() for n in sys.argv[2:]]]))";
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(archive)
        .args(read)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("names and texts")
}

#[test]
#[ignore = "heavy: npm fetches the extension's packages"]
fn the_vscode_extension_packages_bundled_with_its_licence_and_nothing_else() {
    let Some(npm) = common::require_tool("npm", "Node.js and npm") else {
        return;
    };
    let Some(python) = common::require_tool("python3", "install Python 3") else {
        return;
    };
    // The repository's layout: the licence files are copied from its root.
    let dir = common::temp_dir("vscode");
    let checkout = dir.path().join("checkout");
    let extension = checkout.join("editors/vscode");
    std::fs::create_dir_all(&extension).expect("mkdir");
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        std::fs::copy(root().join(licence), checkout.join(licence)).expect("copy");
    }
    for file in [
        "package.json",
        "package-lock.json",
        "extension.js",
        "build.js",
        ".vscodeignore",
        ".gitignore",
    ] {
        std::fs::copy(source().join(file), extension.join(file)).expect("copy");
    }
    // What an extension's folder gathers as it is worked on, none of which is packaged.
    common::write_files(
        &extension,
        &[
            ("test/extension.test.js", "throw new Error('a test');\n"),
            (".vscode-test.mjs", "export default {};\n"),
            (".vscode/launch.json", "{}\n"),
            ("tsconfig.json", "{}\n"),
            ("notes.md", "# notes\n"),
        ],
    );
    let run = |args: &[&str]| -> String {
        let out = Command::new(&npm)
            .args(args)
            .current_dir(&extension)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("npm runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "npm {args:?}: {text}");
        text
    };
    run(&["ci", "--no-audit", "--no-fund"]);
    let vsix = dir.path().join("ownerlint-0.1.0.vsix");
    let log = run(&["run", "package", "--", "--out", &vsix.to_string_lossy()]);
    // vsce warns of a missing licence or repository, of an extension not bundled (too many
    // files), of no .vscodeignore; esbuild of what it could not bundle.
    assert!(!log.contains("WARNING"), "{log}");
    let (names, texts) = zip_contents(
        &python,
        &vsix,
        &[
            "extension/package.json",
            "extension/dist/extension.js",
            "extension/LICENSE-MIT",
        ],
    );
    let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "[Content_Types].xml",
            "extension.vsixmanifest",
            "extension/LICENSE-APACHE",
            "extension/LICENSE-MIT",
            "extension/LICENSE.txt",
            "extension/dist/extension.js",
            "extension/package.json",
        ]
    );
    let manifest: Value = serde_json::from_str(&texts[0]).expect("package.json");
    assert!(
        manifest["activationEvents"]
            .as_array()
            .is_some_and(|events| events.contains(&json!("onLanguage:helm"))),
        "{manifest}"
    );
    // One file: the language client is in it, and `helm` among the languages it serves.
    let bundle = &texts[1];
    assert!(
        !bundle.contains("require(\"vscode-languageclient"),
        "not bundled"
    );
    assert!(bundle.contains("\"helm\""), "no helm in the bundle");
    assert!(bundle.contains("ownerlint"), "{}", &bundle[..200]);
    assert_eq!(
        texts[2],
        std::fs::read_to_string(root().join("LICENSE-MIT")).expect("LICENSE-MIT")
    );
}
