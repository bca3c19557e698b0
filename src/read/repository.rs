//! The repository: the folder a lint reads from. A repository is not always the user's own (a
//! pull request, a chart downloaded to review), and a symbolic link in it can name any file of
//! the machine (`/proc/self/environ`, `~/.kube/config`, `/etc`). A build reads only the
//! repository (`crate::build`), and so does a walk of a folder (`crate::discover`): what leads
//! outside is left unread and reported (`link-outside-repository`). A path the user names on
//! the command line is read as named.
//!
//! The repository is the git work tree that holds the chart, overlay or folder walked (the
//! nearest folder above it with `.git`); outside a git work tree, the outermost of the working
//! directory and the paths named on the command line that holds it (the working directory
//! counts unless it is `/` or the home folder). The system's own folders (`/proc`, `/sys`, `/dev`) are never
//! inside it.

use std::path::{Path, PathBuf};

use super::lexical;

/// What is never part of a repository, wherever it is said to be: the process's own files and
/// the machine's devices.
const SYSTEM_FOLDERS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// Whether the real (canonical) path `real` is one of the system's own files, never read.
pub fn is_system(real: &Path) -> bool {
    SYSTEM_FOLDERS.iter().any(|system| real.starts_with(system))
}

/// The folder a build or a walk may read from, canonical.
#[derive(Clone, Debug)]
pub struct Repository {
    root: PathBuf,
}

impl Repository {
    /// The repository of the folder `dir` (a chart's, an overlay's, one walked) in a run
    /// started for `roots` (the paths it was given).
    pub fn of(dir: &Path, roots: &[PathBuf]) -> Repository {
        let cwd = std::env::current_dir().unwrap_or_default();
        let absolute = |path: &Path| lexical(&cwd.join(path));
        let dir = absolute(dir);
        // A run started in `/` or the home folder is not started for a project there (an
        // editor may start the language server in either).
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let started_in =
            Some(cwd.clone()).filter(|cwd| cwd.parent().is_some() && Some(cwd) != home.as_ref());
        let chosen = super::repository_root(&dir).unwrap_or_else(|| {
            started_in
                .into_iter()
                .chain(roots.iter().map(|root| {
                    let root = absolute(root);
                    match root.is_file() {
                        true => root.parent().map(Path::to_path_buf).unwrap_or(root),
                        false => root,
                    }
                }))
                .filter(|root| dir.starts_with(root))
                .min_by_key(|root| root.components().count())
                .unwrap_or_else(|| dir.clone())
        });
        Repository {
            root: std::fs::canonicalize(&chosen).unwrap_or(chosen),
        }
    }

    /// The repository's folder, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the real (canonical) path `real` is inside the repository.
    pub fn holds(&self, real: &Path) -> bool {
        real.starts_with(&self.root) && !is_system(real)
    }

    /// Where `path` really is, when that is inside the repository; else what leads outside.
    pub fn admit(&self, path: &Path) -> Result<PathBuf, Option<Outside>> {
        // A lexical path is empty for the working directory (`.`).
        let path = match path.as_os_str().is_empty() {
            true => Path::new("."),
            false => path,
        };
        let real = std::fs::canonicalize(path).map_err(|_| None)?;
        if self.holds(&real) {
            return Ok(real);
        }
        Err(Some(self.leading_outside(path, &real)))
    }

    /// The symbolic link on the way to `path` that leads out of the repository: the first one
    /// whose own folder is inside it. A path that climbs out with `..`, with no link, is
    /// itself what leads outside.
    fn leading_outside(&self, path: &Path, real: &Path) -> Outside {
        let mut on_the_way: Vec<&Path> = path.ancestors().collect();
        on_the_way.reverse();
        for step in on_the_way {
            let is_link = std::fs::symlink_metadata(step).is_ok_and(|m| m.is_symlink());
            if !is_link {
                continue;
            }
            let folder_inside = step
                .parent()
                .map(|parent| match parent.as_os_str().is_empty() {
                    true => Path::new("."),
                    false => parent,
                })
                .and_then(|parent| std::fs::canonicalize(parent).ok())
                .is_some_and(|parent| self.holds(&parent));
            let leads_out = std::fs::canonicalize(step).map_or(true, |to| !self.holds(&to));
            if folder_inside && leads_out {
                let written = std::fs::read_link(step).unwrap_or_else(|_| real.to_path_buf());
                return Outside {
                    path: step.to_path_buf(),
                    leads_to: written,
                    is_link: true,
                };
            }
        }
        Outside {
            path: path.to_path_buf(),
            leads_to: real.to_path_buf(),
            is_link: false,
        }
    }
}

/// A path a build or a walk would have read that leads outside the repository.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outside {
    /// The symbolic link (or the path that climbs out), as the build's or the walk's folder
    /// was named.
    pub path: PathBuf,
    /// Where it leads: the link's target as written, or the real path.
    pub leads_to: PathBuf,
    pub is_link: bool,
}

impl Outside {
    /// What the finding says of it, for a build.
    pub fn message(&self) -> String {
        self.said("it was left out of the build")
    }

    /// What the finding says of it, for a walk of a folder.
    pub fn unread_message(&self) -> String {
        self.said("it was not read")
    }

    fn said(&self, consequence: &str) -> String {
        let path = shown(&self.path);
        let to = shown(&self.leads_to);
        match self.is_link {
            true => {
                format!("{path} is a symbolic link to {to}, outside the repository: {consequence}")
            }
            false => format!("{path} is outside the repository (it is {to}): {consequence}"),
        }
    }
}

/// A path as a message shows it, on one line: control characters (a newline in a link's
/// target) as `?`.
fn shown(path: &Path) -> String {
    super::display_path(path)
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_systems_folders_are_never_inside() {
        let everything = Repository {
            root: PathBuf::from("/"),
        };
        assert!(everything.holds(Path::new("/srv/repo/chart/Chart.yaml")));
        assert!(!everything.holds(Path::new("/proc/1/environ")));
        assert!(!everything.holds(Path::new("/dev/zero")));
        let repo = Repository {
            root: PathBuf::from("/srv/repo"),
        };
        assert!(!repo.holds(Path::new("/srv/repository/x")));
        assert!(!repo.holds(Path::new("/etc/passwd")));
    }
}
