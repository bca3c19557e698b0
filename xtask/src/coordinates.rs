//! `cargo xtask coordinates`: where ownerlint is published (`package.repository`) and its
//! version (`package.version`) are set in `Cargo.toml` alone; this writes them into the text that
//! repeats them: README.md, CONTRIBUTING.md and the documentation pages (the install snippets,
//! the Action's `uses:`, the hook's `rev:`, archive names) and the VS Code extension's
//! `package.json` (publisher, repository, version) and the root entries of its lock file. The
//! coordinates the files show now are read from the README's Action step
//! (`uses: OWNER/NAME@vVERSION`). Tests hold the files to `Cargo.toml` (the README's snippets,
//! the pages', the extension's manifest), so a release whose coordinates were set but not
//! written fails CI.

use std::fs;
use std::path::{Path, PathBuf};

use crate::mirror::package_field;

/// A repository on GitHub and a version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coordinates {
    /// `https://github.com/OWNER/NAME`, with no trailing slash.
    pub repository: String,
    pub version: String,
}

impl Coordinates {
    pub fn new(repository: &str, version: &str) -> Coordinates {
        Coordinates {
            repository: repository.trim_end_matches('/').to_string(),
            version: version.to_string(),
        }
    }

    /// `OWNER/NAME`.
    pub fn slug(&self) -> &str {
        self.repository
            .strip_prefix("https://github.com/")
            .unwrap_or(&self.repository)
    }

    /// `OWNER`, the VS Code extension's publisher.
    pub fn owner(&self) -> &str {
        self.slug().split('/').next().unwrap_or("")
    }
}

/// `Cargo.toml`'s coordinates.
pub fn of_cargo_toml(root: &Path) -> Result<Coordinates, String> {
    let repository = package_field(root, "repository")?;
    if !repository.starts_with("https://github.com/") || repository.contains(char::is_whitespace) {
        return Err(format!(
            "Cargo.toml: package.repository `{repository}` is not a https://github.com/OWNER/NAME address"
        ));
    }
    Ok(Coordinates::new(
        &repository,
        &package_field(root, "version")?,
    ))
}

/// The coordinates the README's Action step shows (`- uses: OWNER/NAME@vVERSION`).
pub fn in_readme(readme: &str) -> Option<Coordinates> {
    readme.lines().find_map(|line| {
        let (slug, version) = line.trim().strip_prefix("- uses: ")?.split_once("@v")?;
        (slug.contains('/') && !slug.starts_with("actions/") && !slug.starts_with("github/"))
            .then(|| Coordinates::new(&format!("https://github.com/{slug}"), version))
    })
}

/// `text` with the coordinates `old` replaced with `new`: the repository's address, then its
/// `OWNER/NAME`, then the version wherever it stands as a version of its own (not inside a
/// longer one).
pub fn rewrite(text: &str, old: &Coordinates, new: &Coordinates) -> String {
    let text = text
        .replace(&old.repository, &new.repository)
        .replace(old.slug(), new.slug());
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&old.version) {
        let before = rest[..at]
            .chars()
            .next_back()
            .or_else(|| out.chars().next_back());
        let after = &rest[at + old.version.len()..];
        let part_of_another = before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            || after.starts_with(|c: char| c.is_ascii_digit())
            || (after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit()));
        out.push_str(&rest[..at]);
        out.push_str(if part_of_another {
            &old.version
        } else {
            &new.version
        });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The VS Code extension's `package.json` or `package-lock.json` with the coordinates `new`:
/// the publisher, the repository and the extension's own version (the first `"version"` lines
/// of the lock file are the extension's; the others, its dependencies', are left alone).
fn rewrite_package(text: &str, old: &Coordinates, new: &Coordinates, lock: bool) -> String {
    let own_version = format!("\"version\": \"{}\"", old.version);
    let mut versions_left = if lock { 2 } else { 1 };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if versions_left > 0 && trimmed.starts_with(&own_version) {
            versions_left -= 1;
            out.push_str(&line.replacen(&old.version, &new.version, 1));
        } else if !lock && trimmed.starts_with("\"publisher\": ") {
            out.push_str(&line.replacen(
                &format!("\"{}\"", old.owner()),
                &format!("\"{}\"", new.owner()),
                1,
            ));
        } else if !lock && trimmed.starts_with("\"url\": ") {
            out.push_str(&line.replacen(&old.repository, &new.repository, 1));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The files that repeat the coordinates.
fn files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    files.extend(
        crate::fences::pages(root)?
            .into_iter()
            .filter(|page| page.starts_with(root.join("docs"))),
    );
    Ok(files)
}

/// Write `Cargo.toml`'s coordinates into the files that repeat them; returns those changed.
pub fn write(root: &Path) -> Result<Vec<PathBuf>, String> {
    let new = of_cargo_toml(root)?;
    let read = |path: &Path| {
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let old = in_readme(&read(&root.join("README.md"))?).ok_or(
        "README.md has no `- uses: OWNER/NAME@vVERSION` step to read the coordinates from",
    )?;
    let mut changed = Vec::new();
    let mut write_if_changed = |file: PathBuf, was: String, now: String| {
        if now != was {
            fs::write(&file, now).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            changed.push(file);
        }
        Ok::<(), String>(())
    };
    for file in files(root)? {
        let was = read(&file)?;
        let now = rewrite(&was, &old, &new);
        write_if_changed(file, was, now)?;
    }
    for (name, lock) in [("package.json", false), ("package-lock.json", true)] {
        let file = root.join("editors/vscode").join(name);
        let was = read(&file)?;
        let now = rewrite_package(&was, &old, &new, lock);
        write_if_changed(file, was, now)?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snippets::snippets;

    fn root() -> PathBuf {
        crate::workspace_root()
    }

    fn read(path: &Path) -> String {
        fs::read_to_string(path).expect("the file is read")
    }

    /// The pages that show install snippets, and the titles of those they show.
    const PAGES: &[(&str, &[&str])] = &[
        (
            "README.md",
            &[
                "A release binary (sh)",
                "The GitHub Action step (.github/workflows/*.yml)",
                "The pre-commit hook (.pre-commit-config.yaml)",
                "The kubectl plugin (krew)",
            ],
        ),
        (
            "docs/src/getting-started.md",
            &["A release binary (sh)", "The kubectl plugin (krew)"],
        ),
        (
            "docs/src/integrations/github-action.md",
            &["The GitHub Action step (.github/workflows/*.yml)"],
        ),
        (
            "docs/src/integrations/pre-commit.md",
            &["The pre-commit hook (.pre-commit-config.yaml)"],
        ),
    ];

    /// Each page's snippets, as a release made from `coordinates` writes them; what is missing.
    fn missing(texts: &[(&str, String)], coordinates: &Coordinates) -> Vec<String> {
        let all = snippets(&coordinates.repository, &coordinates.version);
        let mut missing = Vec::new();
        for ((page, titles), (_, text)) in PAGES.iter().zip(texts) {
            for (title, snippet) in &all {
                if titles.contains(title) && !text.contains(snippet.as_str()) {
                    missing.push(format!("{page} lacks `{title}`:\n{snippet}"));
                }
            }
        }
        missing
    }

    /// The README and the documentation pages show the snippets a release makes from
    /// `Cargo.toml`'s coordinates (`cargo xtask coordinates` writes them there).
    #[test]
    fn the_pages_show_the_snippets_of_cargo_tomls_coordinates() {
        let root = root();
        let coordinates = of_cargo_toml(&root).expect("Cargo.toml's coordinates");
        let texts: Vec<(&str, String)> = PAGES
            .iter()
            .map(|(page, _)| (*page, read(&root.join(page))))
            .collect();
        let missing = missing(&texts, &coordinates);
        assert!(
            missing.is_empty(),
            "{}\n(`cargo xtask coordinates` writes Cargo.toml's coordinates into the pages)",
            missing.join("\n")
        );
        assert_eq!(in_readme(&texts[0].1), Some(coordinates));
    }

    /// Whatever the maintainers set, the rewritten pages and the extension's manifest hold
    /// the new coordinates and no trace of the old.
    #[test]
    fn other_coordinates_are_written_everywhere() {
        let root = root();
        let old = of_cargo_toml(&root).expect("Cargo.toml's coordinates");
        let new = Coordinates::new("https://github.com/acme-corp/k8s-ownerlint/", "2.10.3");
        let texts: Vec<(&str, String)> = PAGES
            .iter()
            .map(|(page, _)| (*page, rewrite(&read(&root.join(page)), &old, &new)))
            .collect();
        assert_eq!(missing(&texts, &new), Vec::<String>::new());
        assert_eq!(in_readme(&texts[0].1), Some(new.clone()));
        for (page, text) in &texts {
            assert!(!text.contains(old.slug()), "{page}:\n{text}");
        }
        let package = rewrite_package(
            &read(&root.join("editors/vscode/package.json")),
            &old,
            &new,
            false,
        );
        let json: serde_json::Value = serde_json::from_str(&package).expect("JSON");
        assert_eq!(json["publisher"], "acme-corp");
        assert_eq!(
            json["repository"]["url"],
            "https://github.com/acme-corp/k8s-ownerlint"
        );
        assert_eq!(json["version"], "2.10.3");
        let lock = rewrite_package(
            &read(&root.join("editors/vscode/package-lock.json")),
            &old,
            &new,
            true,
        );
        let json: serde_json::Value = serde_json::from_str(&lock).expect("JSON");
        assert_eq!(json["version"], "2.10.3");
        assert_eq!(json["packages"][""]["version"], "2.10.3");
    }

    #[test]
    fn a_version_inside_another_is_left_alone() {
        let old = Coordinates::new("https://github.com/OWNER/ownerlint", "0.1.0");
        let new = Coordinates::new("https://github.com/acme/ownerlint", "1.0.0");
        assert_eq!(
            rewrite(
                "v0.1.0, 10.1.0, 0.1.0.1, 0.1.0. `OWNER/ownerlint@v0.1.0` ownerlint-0.1.0-x",
                &old,
                &new
            ),
            "v1.0.0, 10.1.0, 0.1.0.1, 1.0.0. `acme/ownerlint@v1.0.0` ownerlint-1.0.0-x"
        );
    }
}
