//! `--git-deletions`: the manifests a git change deletes, as they were before it, read from
//! git. A commit that only deletes files gives pre-commit no file to pass, yet deleting an
//! owner's manifest deletes the owner from a cluster synced from the repository, and the
//! garbage collector then deletes its dependents: their references are checked against what
//! the change deletes.

use std::path::Path;
use std::process::Command;

/// A file the change deletes, with its content before the change.
pub(crate) struct Deleted {
    /// Its path from the working directory.
    pub path: String,
    pub content: Vec<u8>,
}

/// The change checked: between `PRE_COMMIT_FROM_REF` and `PRE_COMMIT_TO_REF` when pre-commit
/// sets them (`pre-commit run --from-ref … --to-ref …`, as in CI), else what the index stages
/// against `HEAD` (a commit being made).
fn change() -> (String, Option<String>) {
    match (
        std::env::var("PRE_COMMIT_FROM_REF"),
        std::env::var("PRE_COMMIT_TO_REF"),
    ) {
        (Ok(from), Ok(to)) if !from.is_empty() && !to.is_empty() => (from, Some(to)),
        _ => ("HEAD".to_string(), None),
    }
}

/// The YAML and JSON files the change deletes in the repository, with what they held;
/// `Err` with git's message when there is no repository or git fails.
pub(crate) fn deletions() -> Result<Vec<Deleted>, String> {
    let (from, to) = change();
    // git names files from the repository's top; they are shown from the working directory.
    let here = run(Command::new("git").args(["rev-parse", "--show-cdup", "--show-prefix"]))?;
    let here = String::from_utf8_lossy(&here);
    let mut lines = here.lines();
    let (up, prefix) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
    let mut diff = Command::new("git");
    diff.args(["diff", "--name-only", "-z", "--no-renames"])
        .arg("--diff-filter=D");
    match &to {
        Some(to) => diff.arg(&from).arg(to),
        None => diff.arg("--cached").arg(&from),
    };
    let listed = run(&mut diff)?;
    let mut deleted = Vec::new();
    for path in listed.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8_lossy(path).into_owned();
        let manifest = Path::new(&path)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"));
        if !manifest {
            continue;
        }
        let content = run(Command::new("git")
            .args(["cat-file", "blob"])
            .arg(format!("{from}:{path}")))?;
        let path = match path.strip_prefix(prefix) {
            Some(below) if !prefix.is_empty() => below.to_string(),
            _ => format!("{up}{path}"),
        };
        deleted.push(Deleted { path, content });
    }
    Ok(deleted)
}

fn run(command: &mut Command) -> Result<Vec<u8>, String> {
    let out = command
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let message = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "git failed: {}",
            message.lines().next().unwrap_or("no message").trim()
        ))
    }
}
