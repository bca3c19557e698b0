//! Configured rule levels: `rules` for every finding, and `overrides` for the findings reported
//! in some files, over them.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::analysis::PathLevels;
use crate::finding::{Finding, Level};
use crate::read::lexical;
use crate::source::Source;

pub(super) struct Levels<'a> {
    levels: &'a [(String, Level)],
    overrides: Vec<Override<'a>>,
    cwd: PathBuf,
}

/// An override with its globs compiled, and the folder they are relative to.
struct Override<'a> {
    globs: GlobSet,
    base: PathBuf,
    levels: &'a [(String, Level)],
}

impl<'a> Levels<'a> {
    pub(super) fn new(levels: &'a [(String, Level)], overrides: &'a [PathLevels]) -> Levels<'a> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let overrides = overrides
            .iter()
            .map(|o| {
                let mut builder = GlobSetBuilder::new();
                // The configuration reader reported globs that do not parse: none is left here.
                for glob in o.files.iter().filter_map(|g| Glob::new(g).ok()) {
                    builder.add(glob);
                }
                Override {
                    globs: builder.build().unwrap_or_else(|_| GlobSet::empty()),
                    base: lexical(&cwd.join(&o.base)),
                    levels: &o.levels,
                }
            })
            .collect();
        Levels {
            levels,
            overrides,
            cwd,
        }
    }

    /// Drop the findings of rules that are off, and give the others the configured severity:
    /// the last override whose files hold the finding's file and that names its rule, else
    /// `rules`.
    pub(super) fn apply(&self, findings: &mut Vec<Finding>, sources: &[Source]) {
        if self.levels.is_empty() && self.overrides.is_empty() {
            return;
        }
        findings.retain_mut(|finding| {
            let id = finding.rule.id;
            let named = |levels: &'a [(String, Level)]| {
                levels
                    .iter()
                    .rev()
                    .find(|(rule, _)| rule == id)
                    .map(|(_, l)| *l)
            };
            let file = sources
                .get(finding.primary.source.0 as usize)
                .filter(|source| source.built_by.is_none())
                .map(|source| source.name.as_str())
                .filter(|name| *name != crate::read::STDIN_NAME);
            let overridden = file.and_then(|file| {
                self.overrides
                    .iter()
                    .rev()
                    .filter(|o| o.holds(&self.cwd, Path::new(file)))
                    .find_map(|o| named(o.levels))
            });
            match overridden.or_else(|| named(self.levels)) {
                Some(Level::Off) => false,
                Some(Level::On(severity)) => {
                    finding.severity = severity;
                    true
                }
                None => true,
            }
        });
    }
}

impl Override<'_> {
    /// Whether the globs match `file` (as it is named, relative to the working directory):
    /// its path below the configuration's folder, or its name alone.
    fn holds(&self, cwd: &Path, file: &Path) -> bool {
        let absolute = lexical(&cwd.join(file));
        let relative = absolute.strip_prefix(&self.base).unwrap_or(&absolute);
        self.globs.is_match(relative)
            || file
                .file_name()
                .is_some_and(|name| self.globs.is_match(Path::new(name)))
    }
}
