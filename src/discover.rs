//! Discover: the paths on the command line into the list of inputs, in a deterministic order.
//! Directories are walked recursively (hidden folders and .gitignore'd files skipped, symlink
//! loops detected); files given by name are always read.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// How standard input is named in reports.
pub const STDIN_NAME: &str = "<stdin>";

/// One input to read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_string(),
            Input::File(p) => display_path(p),
        }
    }
}

/// A path shown without a leading `./`.
pub fn display_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    text.strip_prefix("./").unwrap_or(&text).to_string()
}

/// A path that could not be read or walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub path: String,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct Discovered {
    pub inputs: Vec<Input>,
    pub errors: Vec<InputError>,
}

/// File-name patterns that select files inside walked directories.
pub struct Filter {
    include: Option<GlobSet>,
    exclude: GlobSet,
}

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

impl Filter {
    /// Globs without a `/` match a file name anywhere; globs with one match the path below the
    /// walked directory.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Filter, globset::Error> {
        Ok(Filter {
            include: if include.is_empty() {
                None
            } else {
                Some(build(include)?)
            },
            exclude: build(exclude)?,
        })
    }

    fn accepts(&self, relative: &Path) -> bool {
        let has_extension = relative
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
        let matches = |set: &GlobSet| {
            set.is_match(relative)
                || relative
                    .file_name()
                    .is_some_and(|n| set.is_match(Path::new(n)))
        };
        has_extension && self.include.as_ref().is_none_or(&matches) && !matches(&self.exclude)
    }
}

fn build(globs: &[String]) -> Result<GlobSet, globset::Error> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(Glob::new(glob)?);
    }
    builder.build()
}

pub fn discover(paths: &[PathBuf], filter: &Filter) -> Discovered {
    let mut found = Discovered::default();
    for path in paths {
        if path.as_os_str() == "-" {
            found.inputs.push(Input::Stdin);
        } else if path.is_dir() {
            walk(path, filter, &mut found);
        } else if path.exists() {
            found.inputs.push(Input::File(path.clone()));
        } else {
            found.errors.push(InputError {
                path: display_path(path),
                message: "no such file or directory".to_string(),
            });
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.inputs.retain(|i| seen.insert(i.clone()));
    found
}

fn walk(root: &Path, filter: &Filter, found: &mut Discovered) {
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(true)
        // Entries of one directory differ only in their names: comparing those bytes gives the
        // order comparing whole paths does, without splitting each path into components.
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let path = entry.path();
                let relative = path.strip_prefix(root).unwrap_or(path);
                if filter.accepts(relative) {
                    found.inputs.push(Input::File(path.to_path_buf()));
                }
            }
            Err(err) => found.errors.push(InputError {
                path: display_path(root),
                message: err.to_string(),
            }),
        }
    }
}
