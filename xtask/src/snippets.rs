//! The install snippets a release's users paste: the binary download, the GitHub Action step,
//! the pre-commit hook and the krew install, filled in from `Cargo.toml`'s `repository` and
//! `version` (the one place they are set), written to `target/dist/snippets.md`. The README
//! and the documentation pages show the same snippets (`cargo xtask coordinates` writes the
//! coordinates there); tests keep them equal.

use std::path::{Path, PathBuf};

/// Each snippet, with a title, as the release's coordinates make it.
pub fn snippets(repository: &str, version: &str) -> Vec<(&'static str, String)> {
    let repository = repository.trim_end_matches('/');
    let slug = repository
        .strip_prefix("https://github.com/")
        .unwrap_or(repository);
    let releases = format!("{repository}/releases/download/v{version}");
    vec![
        (
            "A release binary (sh)",
            format!(
                "VERSION={version}
TARGET=x86_64-unknown-linux-musl      # or aarch64-unknown-linux-musl
BASE={repository}/releases/download/v$VERSION
curl -fsSLO \"$BASE/ownerlint-$VERSION-$TARGET.tar.gz\"
curl -fsSLO \"$BASE/ownerlint-$VERSION-$TARGET.tar.gz.sha256\"
sha256sum -c \"ownerlint-$VERSION-$TARGET.tar.gz.sha256\"
tar -xzf \"ownerlint-$VERSION-$TARGET.tar.gz\"
install \"ownerlint-$VERSION-$TARGET/ownerlint\" ~/.local/bin/   # any folder on PATH
"
            ),
        ),
        (
            "The GitHub Action step (.github/workflows/*.yml)",
            format!("      - uses: {slug}@v{version}\n"),
        ),
        (
            "The pre-commit hook (.pre-commit-config.yaml)",
            format!(
                "repos:
  - repo: {repository}-pre-commit
    rev: v{version}
    hooks:
      - id: ownerlint
"
            ),
        ),
        (
            "The kubectl plugin (krew)",
            format!("kubectl krew install --manifest-url={releases}/ownerlint.yaml\n"),
        ),
    ]
}

/// `out/snippets.md`: every snippet under its title.
pub fn write_snippets(repository: &str, version: &str, out: &Path) -> Result<PathBuf, String> {
    let mut text = format!("# Installing ownerlint {version}\n");
    for (title, snippet) in snippets(repository, version) {
        text.push_str(&format!("\n## {title}\n\n```\n{snippet}```\n"));
    }
    let path = out.join("snippets.md");
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README shows each snippet as the release makes it from Cargo.toml's coordinates
    /// (whatever they are: `cargo xtask coordinates` writes them), so that what it says and
    /// what a release gives never drift apart.
    #[test]
    fn the_readme_shows_every_snippet_the_release_makes() {
        let root = &crate::workspace_root();
        let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md is read");
        let cargo = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml is read");
        let field = |key: &str| {
            cargo
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
                .and_then(|v| v.strip_suffix('"'))
                .expect("the field is set")
                .to_owned()
        };
        for (title, snippet) in snippets(&field("repository"), &field("version")) {
            assert!(
                readme.contains(&snippet),
                "README.md lacks the snippet `{title}`:\n{snippet}"
            );
        }
    }

    #[test]
    fn the_coordinates_fill_every_snippet() {
        let all: String = snippets("https://github.com/acme/ownerlint/", "1.2.3")
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert!(all.contains("uses: acme/ownerlint@v1.2.3"));
        assert!(
            all.contains("repo: https://github.com/acme/ownerlint-pre-commit\n    rev: v1.2.3")
        );
        assert!(all.contains(
            "--manifest-url=https://github.com/acme/ownerlint/releases/download/v1.2.3/ownerlint.yaml"
        ));
        assert!(all.contains("VERSION=1.2.3"));
        assert!(!all.contains("OWNER"));
    }
}
