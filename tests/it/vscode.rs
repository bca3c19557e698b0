//! The VS Code extension in `editors/vscode` installs from its lock file and packages into a
//! `.vsix` that holds the extension and the language client it starts `ownerlint server`
//! with. (Heavy: npm fetches the packages.)

use crate::common;

use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "heavy: npm fetches the extension's packages"]
fn the_vscode_extension_packages() {
    let Some(npm) = common::require_tool("npm", "Node.js and npm") else {
        return;
    };
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    let dir = common::temp_dir("vscode");
    for file in ["package.json", "package-lock.json", "extension.js"] {
        std::fs::copy(source.join(file), dir.path().join(file)).expect("copy");
    }
    let run = |args: &[&str]| {
        let out = Command::new(&npm)
            .args(args)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("npm runs");
        assert!(
            out.status.success(),
            "npm {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["ci", "--no-audit", "--no-fund"]);
    run(&["run", "package"]);
    let vsix = dir.path().join("ownerlint-0.1.0.vsix");
    let bytes = std::fs::read(&vsix).expect("the .vsix was written");
    // A zip archive: its central directory names every file.
    for name in [
        "extension/extension.js",
        "extension/package.json",
        "extension/node_modules/vscode-languageclient/package.json",
    ] {
        assert!(
            bytes.windows(name.len()).any(|w| w == name.as_bytes()),
            "{name} is not in the .vsix"
        );
    }
    let script = std::fs::read_to_string(source.join("extension.js")).expect("extension.js");
    assert!(script.contains("args: ['server']"), "{script}");
}
