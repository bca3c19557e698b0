//! The copy a chart or an overlay is built from. A build sees only the repository: helm reads
//! every file below a chart's folder (`.Files.Get` gives any of them to a template, and a
//! failing template prints what it is given), and kustomize follows a base folder wherever it
//! leads, so a symbolic link in the repository to `/proc/self/environ`, to `~/.ssh`, or to a
//! folder elsewhere on the machine would put what it names into the build's output and its
//! error messages. Each build is therefore made from a private copy of the files it reads, in
//! a temporary folder only this user can read, where a link that stays inside the repository
//! is replaced by what it names and a link that leads outside is left out (and reported). A
//! chart made only of regular files and folders is built where it is: nothing in it leads
//! elsewhere, and a big chart is not copied for nothing.
//!
//! What the repository is, and what leads outside it, is `crate::read::repository`'s to say.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::dependencies::{FileDependency, missing_file_dependencies};
use super::{Target, Tool, lexical};
use crate::read::Files;
pub use crate::read::repository::Outside;
pub(super) use crate::read::repository::Repository;

/// How deep a chart's folders are copied (a chart nests a few levels; a loop of folders made
/// of links would not end).
const DEEPEST: usize = 32;

/// The files a build reads, to copy: each by its path as the build's folder was named
/// (lexical), with where it really is, and what was left out because it leads outside the
/// repository.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// `(path as named, path to read)`: the path to read is the real file, or the named path
    /// for a text that stands in for a file not on disk.
    pub files: Vec<(PathBuf, PathBuf)>,
    pub left_out: Vec<Outside>,
    /// The folder built and its chart or kustomization file, as the files are named: the
    /// target's, or for an overlay named through a symbolic link, the real ones.
    pub dir: PathBuf,
    pub file: PathBuf,
    /// Below a chart's folder, only regular files and folders: no symbolic link, no named
    /// pipe or device, no `.git` (what helm would read is exactly what the walk saw).
    pub only_regular: bool,
    /// A chart's `file://` dependencies that are not in its `charts/`, inside the repository:
    /// their files are copied too, and built into the copy's `charts/`.
    pub dependencies: Vec<FileDependency>,
}

impl Plan {
    /// What `target` reads, in `repository`: every file below a chart's folder (helm reads
    /// them all), through the links that stay inside; the files an overlay names.
    pub(super) fn of(target: &Target, files: &Files, repository: &Repository) -> Plan {
        let mut plan = Plan {
            dir: target.dir.clone(),
            file: target.file.clone(),
            only_regular: target.tool == Tool::Helm,
            ..Plan::default()
        };
        match target.tool {
            Tool::Helm => {
                let dir = lexical(&target.dir);
                match repository.admit(&dir) {
                    Ok(real) => {
                        let mut visited = HashSet::from([real]);
                        plan.below(&dir, files, repository, &mut visited, 0);
                        // A dependency outside the repository is not read: helm then says
                        // it is missing.
                        for dependency in missing_file_dependencies(&dir, files) {
                            match repository.admit(&dependency.dir) {
                                Ok(real) => {
                                    if visited.insert(real) {
                                        plan.below(
                                            &dependency.dir,
                                            files,
                                            repository,
                                            &mut visited,
                                            0,
                                        );
                                    }
                                    plan.dependencies.push(dependency);
                                }
                                Err(outside) => plan.left_out.extend(outside),
                            }
                        }
                    }
                    Err(outside) => plan.left_out.extend(outside),
                }
            }
            Tool::Kustomize => {
                // An overlay named through a symbolic link builds on the folders beside its
                // target (`../base` is where kustomize finds it): its files are read from there.
                let dir = lexical(&target.dir);
                let real = match repository.admit(&dir) {
                    Ok(real) => real,
                    Err(outside) => {
                        plan.left_out.extend(outside);
                        return plan;
                    }
                };
                let cwd = std::env::current_dir().unwrap_or_default();
                let through_link = real != lexical(&cwd.join(&dir));
                let read_from = match (through_link, target.file.file_name()) {
                    (true, Some(name)) => Target {
                        tool: target.tool,
                        file: real.join(name),
                        dir: real,
                        flux: target.flux.clone(),
                        argo: target.argo.clone(),
                        configured: target.configured.clone(),
                    },
                    _ => target.clone(),
                };
                let consumed = read_from.consumed(files);
                let mut named: Vec<&PathBuf> = consumed.files().collect();
                named.sort();
                for path in named {
                    plan.add(path, files, repository);
                }
                if through_link {
                    for outside in &mut plan.left_out {
                        outside.path = super::as_named(target, &read_from.dir, &outside.path);
                    }
                }
                plan.dir = read_from.dir;
                plan.file = read_from.file;
            }
        }
        plan.files.sort();
        plan.files.dedup();
        plan.left_out.sort_by(|a, b| a.path.cmp(&b.path));
        plan.left_out.dedup();
        plan
    }

    /// One file an overlay names: copied when it is inside the repository (or a text stands
    /// in for it and no link on disk leads elsewhere), or when the overlay reaches it by its
    /// folders alone, with no symbolic link on the way (`../../platform/base`, a base beside
    /// the repository): where the folders lead is the overlay's own layout, which kustomize
    /// itself confines (a base is a folder with a kustomization, and a file is read only below
    /// the kustomization that names it).
    fn add(&mut self, path: &Path, files: &Files, repository: &Repository) {
        if let Some(real) = reached_without_links(path).filter(|real| real.is_file()) {
            self.files.push((path.to_path_buf(), real));
            return;
        }
        match repository.admit(path) {
            Ok(real) if real.is_file() => self.files.push((path.to_path_buf(), real)),
            // A folder, a named pipe, a device: not copied (a pipe would block the copy).
            Ok(_) => {}
            Err(Some(outside)) => self.left_out.push(outside),
            // Not on disk: a text that stands in for it is copied.
            Err(None) if files.text(path).is_some() => {
                self.files.push((path.to_path_buf(), path.to_path_buf()))
            }
            Err(None) => {}
        }
    }

    /// Every file below the chart folder `dir`, as helm reads them: through symbolic links,
    /// those that stay inside the repository. A folder reached twice is read once, and the
    /// repository's own `.git` is not part of a chart.
    fn below(
        &mut self,
        dir: &Path,
        files: &Files,
        repository: &Repository,
        visited: &mut HashSet<PathBuf>,
        depth: usize,
    ) {
        if depth > DEEPEST {
            return;
        }
        for (path, is_dir) in files.entries(dir) {
            if path.file_name().is_some_and(|name| name == ".git") {
                self.only_regular = false;
                continue;
            }
            let Ok(metadata) = std::fs::symlink_metadata(&path) else {
                // Only an editor's text: a file, or a folder of them.
                match is_dir {
                    true => self.below(&path, files, repository, visited, depth + 1),
                    false if files.text(&path).is_some() => {
                        self.files.push((path.clone(), path.clone()))
                    }
                    false => {}
                }
                continue;
            };
            if !metadata.is_dir() && !metadata.is_file() {
                self.only_regular = false;
            }
            if metadata.is_symlink() {
                match repository.admit(&path) {
                    Ok(real) if real.is_dir() => {
                        if visited.insert(real) {
                            self.below(&path, files, repository, visited, depth + 1);
                        }
                    }
                    Ok(real) if real.is_file() => self.files.push((path.clone(), real)),
                    Ok(_) | Err(None) => {}
                    Err(Some(outside)) => self.left_out.push(outside),
                }
            } else if metadata.is_dir() {
                self.below(&path, files, repository, visited, depth + 1);
            } else if metadata.is_file() {
                self.files.push((path.clone(), path.clone()));
            }
        }
    }
}

/// The real path of `path` when it is reached through folders alone: no symbolic link on the
/// way (its canonical path is its absolute path), and not one of the system's own files.
fn reached_without_links(path: &Path) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let absolute = lexical(&cwd.join(path));
    let real = std::fs::canonicalize(path).ok()?;
    (real == absolute && !crate::read::repository::is_system(&real)).then_some(real)
}

/// The folder that holds every one of `paths` (lexical paths, as named).
pub(super) fn common_root<'a>(start: &Path, paths: impl Iterator<Item = &'a PathBuf>) -> PathBuf {
    let mut root = start.to_path_buf();
    for path in paths {
        while !path.starts_with(&root) {
            if !root.pop() {
                break;
            }
        }
    }
    root
}

/// Whether `inside` stays inside the folder it is joined to (no `..`, not absolute): a path
/// of the copy is never written outside the copy.
pub(super) fn stays_below(inside: &Path) -> bool {
    inside
        .components()
        .all(|component| matches!(component, Component::Normal(_) | Component::CurDir))
}

/// Write `from` (a text that stands in for it, else the file at `real`) to `to` in the copy,
/// readable by this user only.
pub(super) fn copy_file(
    files: &Files,
    named: &Path,
    real: &Path,
    to: &Path,
) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(parent) = to.parent() {
        create_private_dirs(parent)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(to)?;
    match files.text(named) {
        Some(text) => out.write_all(text.as_bytes()),
        None => {
            let mut from = std::fs::File::open(real)?;
            std::io::copy(&mut from, &mut out).map(|_| ())
        }
    }
}

/// Make `dir` and the folders above it that are missing, readable by this user only.
fn create_private_dirs(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_of_the_copy_stays_below_it() {
        assert!(stays_below(Path::new("overlays/prod/kustomization.yaml")));
        assert!(stays_below(Path::new("")));
        assert!(!stays_below(Path::new("../x")));
        assert!(!stays_below(Path::new("/etc/passwd")));
    }
}
