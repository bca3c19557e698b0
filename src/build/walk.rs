//! The kustomizations an overlay's build reads: its own, then those of the bases and
//! components it builds on, each once, found as kustomize finds them (a folder's
//! `kustomization.yaml`, `.yml` or `Kustomization`; symbolic links resolved). What an overlay
//! would fetch (`remote`) and where a failed build's error belongs (`kustomize_error`) are
//! both read from this walk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::KUSTOMIZATION_FILES;
use super::consumed::Named;
use crate::read::{Files, lexical};
use crate::source::Span;

/// A kustomization the walk meets.
pub(super) struct Met<'t> {
    /// Its folder as shown: the overlay's as it was named, a base's below it.
    pub shown_dir: &'t Path,
    /// Its real folder, which its entries are relative to (kustomize resolves symbolic links).
    pub real_dir: &'t Path,
    /// Its file, as shown.
    pub file: PathBuf,
    pub text: &'t str,
}

/// More kustomizations than any overlay reads: a walk that meets more stops there.
const MOST_KUSTOMIZATIONS: usize = 10_000;

/// Each kustomization the overlay in `dir` reads, once by its real folder: the overlay's, then
/// those of the folders `visit` returns for each one it is given (as shown, and real: see
/// [`folder_built_on`]), the last returned first.
pub(super) fn each_kustomization(
    dir: &Path,
    mut visit: impl FnMut(&Met) -> Vec<(PathBuf, PathBuf)>,
) {
    let files = Files::default();
    let mut visited = HashSet::new();
    let Ok(real) = std::fs::canonicalize(dir) else {
        return;
    };
    let mut stack = vec![(dir.to_path_buf(), real)];
    while let Some((shown_dir, real_dir)) = stack.pop() {
        if visited.len() >= MOST_KUSTOMIZATIONS || !visited.insert(real_dir.clone()) {
            continue;
        }
        let Some(name) = KUSTOMIZATION_FILES
            .iter()
            .find(|name| real_dir.join(name).is_file())
        else {
            continue;
        };
        let Some(text) = files.read(&real_dir.join(name)) else {
            continue;
        };
        stack.extend(visit(&Met {
            shown_dir: &shown_dir,
            real_dir: &real_dir,
            file: shown_dir.join(name),
            text: &text,
        }));
    }
}

/// The folder `entry` of `met` names, when kustomize builds on it (`resources`, `bases`,
/// `components`) and it is a folder here: as shown, and real.
pub(super) fn folder_built_on(met: &Met, entry: &Named) -> Option<(PathBuf, PathBuf)> {
    if !entry.builds_on {
        return None;
    }
    let path = met.real_dir.join(entry.text);
    if !path.is_dir() {
        return None;
    }
    let real = std::fs::canonicalize(&path).ok()?;
    Some((lexical(&met.shown_dir.join(entry.text)), real))
}

/// The 1-based line and column (in characters) of `span`'s start in `text`.
pub(super) fn line_and_column(text: &str, span: Span) -> (usize, usize) {
    let start = span.start.min(text.len());
    let before = text.get(..start).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_from_one() {
        let text = "a: 1\nresources:\n- héllo\n";
        assert_eq!(line_and_column(text, Span::new(0, 1)), (1, 1));
        let at = text.find("héllo").unwrap_or_default();
        assert_eq!(line_and_column(text, Span::new(at, at + 1)), (3, 3));
    }
}
