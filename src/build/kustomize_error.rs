//! Where a failed overlay build's error belongs: kustomize names the file it could not read
//! (`evalsymlink failure on 'overlay/config/mykind.yaml'`, `lstat overlay/patch.yaml: no such
//! file or directory`), not the line that names it. The entry of the overlay's kustomization,
//! or of a base's or component's it builds on, whose path the message names is where the
//! finding goes; without one, the overlay's kustomization file, as before.

use std::path::{Path, PathBuf};

use super::consumed::kustomization_named;
use super::walk::{each_kustomization, folder_built_on, line_and_column};
use crate::read::{display_path, lexical};

/// The kustomization file (as the overlay's folder `dir` was named) and the 1-based line and
/// column of the entry whose path one of `messages` names, the longest such path if several
/// do. A path may be written as the overlay's folder was named, whole, or from `wrapper`, the
/// folder kustomize was run on (when the message is kustomize's own).
pub(super) fn entry_named_in(
    dir: &Path,
    wrapper: Option<&Path>,
    messages: &[&str],
) -> Option<(PathBuf, (usize, usize))> {
    let mut best: Option<(usize, PathBuf, (usize, usize))> = None;
    each_kustomization(dir, |met| {
        let mut children = Vec::new();
        for root in crate::yaml::roots(met.text) {
            for entry in kustomization_named(&root) {
                let real = lexical(&met.real_dir.join(entry.text));
                let named = [
                    Some(display_path(&lexical(&met.shown_dir.join(entry.text)))),
                    Some(real.to_string_lossy().into_owned()),
                    wrapper.map(|wrapper| {
                        super::relative(wrapper, &real)
                            .to_string_lossy()
                            .into_owned()
                    }),
                ]
                .into_iter()
                .flatten()
                .filter(|path| messages.iter().any(|message| names_path(message, path)))
                .map(|path| path.len())
                .max();
                if let Some(length) = named
                    && best.as_ref().is_none_or(|(longest, ..)| length > *longest)
                {
                    let at = line_and_column(met.text, entry.span);
                    best = Some((length, met.file.clone(), at));
                }
                children.extend(folder_built_on(met, &entry));
            }
        }
        children
    });
    best.map(|(_, file, at)| (file, at))
}

/// Whether `message` holds `path` whole: not as the start of a longer path or name.
fn names_path(message: &str, path: &str) -> bool {
    let is_part = |c: char| c.is_alphanumeric() || matches!(c, '/' | '\\' | '.' | '-' | '_');
    !path.is_empty()
        && message.match_indices(path).any(|(at, _)| {
            let before = message[..at].chars().next_back();
            let after = message[at + path.len()..].chars().next();
            !before.is_some_and(is_part) && !after.is_some_and(is_part)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_named_only_whole() {
        let message =
            "evalsymlink failure on 'app/config/kind.yaml' : lstat app/config: no such file";
        assert!(names_path(message, "app/config/kind.yaml"));
        assert!(names_path(message, "app/config"));
        assert!(!names_path(message, "app/config/kind"));
        assert!(!names_path(message, "config/kind.yaml"));
        assert!(!names_path(message, "pp/config"));
        assert!(!names_path(message, ""));
    }
}
