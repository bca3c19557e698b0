//! What a build reads: the files its output depends on, and the fingerprint of them that
//! tells whether a build kept from an earlier run still holds.

use std::path::{Path, PathBuf};

use super::{BuildSettings, Target, Tool, copy};
use crate::read::{Files, lexical};

/// Whether a build that reads `read` may define kinds: one of them holds a
/// `CustomResourceDefinition`, or is a packed chart (whose text is not searched).
pub(super) fn may_define_kinds(read: &[PathBuf], files: &Files) -> bool {
    read.iter().any(|path| {
        path.extension().is_some_and(|ext| ext == "tgz")
            || files.bytes(path).is_some_and(|bytes| {
                let kind = b"CustomResourceDefinition";
                bytes.windows(kind.len()).any(|w| w == kind)
            })
    })
}

/// What a build depends on: its options, the path and bytes of every file its output depends
/// on (the edited text where there is one, see [`read_files`]), and what it leaves out of its
/// copy.
pub(super) fn fingerprint(target: &Target, options: &BuildSettings, files: &Files) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut hasher = foldhash::quality::FixedState::default().build_hasher();
    (target, options).hash(&mut hasher);
    for file in read_files(target, files) {
        file.hash(&mut hasher);
        files.bytes(&file).hash(&mut hasher);
    }
    let repository = copy::Repository::of(&target.dir, options.roots);
    copy::Plan::of(target, files, &repository)
        .left_out
        .hash(&mut hasher);
    hasher.finish()
}

/// The files a build reads, lexical and sorted (with edited files not yet on disk): what a
/// chart is made from (see [`chart_files`]), and the files an overlay names.
pub(super) fn read_files(target: &Target, files: &Files) -> Vec<PathBuf> {
    let mut read = Vec::new();
    match target.tool {
        Tool::Helm => read = chart_files(target, files),
        Tool::Kustomize => read.extend(target.consumed(files).files().cloned()),
    }
    read.sort();
    read.dedup();
    read
}

/// Files a chart's build reads besides those its layout names ([`Target::consumed`]): the
/// dependencies of a chart of `apiVersion: v1`.
const CHART_FILES_OF_V1: [&str; 2] = ["requirements.yaml", "requirements.lock"];

/// The files below a chart's folder that its output depends on: its templates, CRDs,
/// subcharts, values and own files. helm loads every file of the chart, but another file (a
/// README, a plain manifest kept beside the chart) changes the output only through `.Files`
/// in a template: when a template names `Files` (its own, or a subchart's, whose definitions
/// the chart's templates may include), or a packed subchart that cannot be searched is
/// there, every file below the chart is read.
fn chart_files(target: &Target, files: &Files) -> Vec<PathBuf> {
    let dir = lexical(&target.dir);
    let mut below = Vec::new();
    files_below(&dir, files, &mut below, 0);
    // The `file://` dependencies it is built with are part of it.
    for dependency in super::dependencies::missing_file_dependencies(&dir, files) {
        files_below(&dependency.dir, files, &mut below, 0);
    }
    let (templates, subcharts) = (dir.join("templates"), dir.join("charts"));
    let reads_any_file = below.iter().any(|p| {
        if p.starts_with(&subcharts) && p.extension().is_some_and(|ext| ext == "tgz") {
            return true;
        }
        (p.starts_with(&templates) || p.starts_with(&subcharts))
            && files
                .bytes(p)
                .is_some_and(|bytes| bytes.windows(5).any(|w| w == b"Files"))
    });
    if reads_any_file {
        return below;
    }
    let consumed = target.consumed(files);
    let own: Vec<PathBuf> = CHART_FILES_OF_V1
        .iter()
        .map(|name| dir.join(name))
        .collect();
    below
        .into_iter()
        .filter(|path| consumed.contains_lexical(path) || own.contains(path))
        .collect()
}

/// Every file below `dir` (not through symbolic links to folders, and not deeper than a chart
/// goes), as `files` has them.
fn files_below(dir: &Path, files: &Files, found: &mut Vec<PathBuf>, depth: usize) {
    if depth > 32 {
        return;
    }
    for (path, is_dir) in files.entries(dir) {
        if is_dir {
            files_below(&path, files, found, depth + 1);
        } else if files.is_file(&path) {
            found.push(path);
        }
    }
}
