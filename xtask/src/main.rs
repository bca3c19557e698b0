//! The project's build tasks, run with `cargo xtask TASK` (an alias in .cargo/config.toml).
//!
//! - `pre-commit-mirror [--out DIR]`: the pre-commit hook repository that installs ownerlint's
//!   wheel, written to `DIR/pre-commit-mirror/` (`DIR` is `target/dist` unless given).

mod mirror;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask pre-commit-mirror [--out DIR]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let root = workspace_root();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["pre-commit-mirror"] => pre_commit_mirror(&root, &root.join("target/dist")),
        ["pre-commit-mirror", "--out", out] => pre_commit_mirror(&root, Path::new(out)),
        _ => Err(format!("unknown arguments {args:?}; {USAGE}")),
    }
}

fn pre_commit_mirror(root: &Path, out: &Path) -> Result<(), String> {
    let version = mirror::package_field(root, "version")?;
    let written = mirror::write_pre_commit_mirror(root, &version, out)?;
    println!(
        "xtask: wrote the pre-commit mirror for v{version} to {}",
        written.display()
    );
    Ok(())
}

/// The workspace's root: xtask/ is one of its members.
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}
