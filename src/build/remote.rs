//! What an overlay's build would fetch. kustomize clones a git repository for a remote base
//! (`https://github.com/org/repo//base?ref=v1`, `github.com/org/repo`, `git@host:org/repo`,
//! `file:///path/repo`) by running `git` with parts of the reference as arguments, and
//! downloads any file named by an `http(s)://` URL. A repository's kustomization is not to make
//! the machine that lints it fetch anything, nor run `git` with arguments it chose: every
//! kustomization the build reads is looked at before kustomize runs, and an overlay that names
//! a remote reference is not built unless the command line allows it (`--allow-remote-bases`).
//! Even then, a reference with a part that starts with `-` (which `git` would take for an
//! option: `?ref=--upload-pack=…`) is not handed to kustomize.

use std::path::{Path, PathBuf};

use super::consumed::{Named, kustomization_named, seq_of};
use super::walk::{each_kustomization, folder_built_on, line_and_column};
use crate::read::{Files, display_path, lexical};
use crate::yaml::Node;

/// The flag that lets kustomize fetch remote references.
pub use crate::source::ALLOW_REMOTE_FLAG as ALLOW_FLAG;

/// Why an overlay is not handed to kustomize: a reference, where it is written.
#[derive(Debug)]
pub(super) struct Refusal {
    /// The kustomization that names it, as the overlay's folder was named.
    pub file: PathBuf,
    /// 1-based line and column of the reference in `file`.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

/// The first reference among the kustomizations the overlay in `dir` reads (its own, and those
/// of the bases, components and plugin configurations it reaches) that kustomize is not to be
/// given: a remote one (unless `allow_remote`), one whose parts `git` would take for options,
/// or a base that is neither a file nor a folder here (which kustomize would try to clone).
pub(super) fn refused(dir: &Path, allow_remote: bool) -> Option<Refusal> {
    let files = Files::default();
    let mut refusal: Option<Refusal> = None;
    let mut more = 0;
    each_kustomization(dir, |met| {
        let (file, text) = (&met.file, met.text);
        let mut children = Vec::new();
        // The first refusal is told; the others are counted.
        let mut refuse = |file: &Path, at: (usize, usize), named: &Named, why: String| {
            if refusal.is_some() {
                more += 1;
                return;
            }
            refusal = Some(Refusal {
                message: format!(
                    "{} entry \"{}\" ({}:{}) {why}",
                    named.field,
                    named.text,
                    display_path(file),
                    at.0
                ),
                file: file.to_path_buf(),
                at: Some(at),
            });
        };
        for root in crate::yaml::roots(text) {
            for entry in kustomization_named(&root) {
                let at = line_and_column(text, entry.span);
                if is_remote(&entry, met.real_dir) {
                    if let Some(why) = remote(&entry, met.real_dir, allow_remote) {
                        refuse(file, at, &entry, why);
                    }
                    continue;
                }
                if !entry.builds_on {
                    continue;
                }
                let path = met.real_dir.join(entry.text);
                let shown = lexical(&met.shown_dir.join(entry.text));
                if path.is_dir() {
                    children.extend(folder_built_on(met, &entry));
                } else if !path.is_file() {
                    refuse(
                        file,
                        at,
                        &entry,
                        format!(
                            "is not a file or folder here, or leads outside the repository, so \
                             kustomize was not run (it would take it for a repository to clone): \
                             fix the path, or take it out of {}",
                            entry.field
                        ),
                    );
                } else if !["resources", "bases", "components"].contains(&entry.field) {
                    // A generator's, transformer's or validator's configuration names files
                    // too, at its own lines.
                    let config = files.read(&path).unwrap_or_default();
                    for plugin in crate::yaml::roots(&config) {
                        for named in plugin_named(&plugin) {
                            if let Some(why) = remote(&named, met.real_dir, allow_remote) {
                                refuse(&shown, line_and_column(&config, named.span), &named, why);
                            }
                        }
                    }
                }
            }
            // A plugin's configuration written in place (`transformers: [|-\n  apiVersion: …]`)
            // names files as a configuration file does: told at the entry's line.
            for field in ["generators", "transformers", "validators"] {
                for entry in seq_of(root.get(field)) {
                    let Some(inline) = entry.as_str().filter(|text| text.contains('\n')) else {
                        continue;
                    };
                    for plugin in crate::yaml::roots(inline) {
                        for named in plugin_named(&plugin) {
                            if let Some(why) = remote(&named, met.real_dir, allow_remote) {
                                refuse(file, line_and_column(text, entry.span), &named, why);
                            }
                        }
                    }
                }
            }
        }
        children
    });
    refusal.map(|mut refusal| {
        if more > 0 {
            refusal.message.push_str(&format!(
                " ({more} more such {})",
                if more == 1 { "entry" } else { "entries" }
            ));
        }
        refusal
    })
}

/// The files a plugin's configuration names (kustomize's built-in generators and transformers:
/// a patch's `path` or `paths`, a generator's `files`, `envs` and `env`, a replacement's `path`,
/// a chart's `valuesFile`).
fn plugin_named<'n>(config: &'n Node) -> Vec<Named<'n>> {
    let mut named = Vec::new();
    let mut add = |field: &'static str, node: &'n Node| {
        if let Some(text) = node.as_str() {
            let text = match field {
                "files" => text.split_once('=').map_or(text, |(_, path)| path),
                _ => text,
            };
            named.push(Named {
                field,
                text,
                span: node.span,
                builds_on: false,
            });
        }
    };
    for field in ["path", "env", "valuesFile"] {
        if let Some(node) = config.get(field) {
            add(field, node);
        }
    }
    for field in ["paths", "files", "envs", "additionalValuesFiles"] {
        for node in seq_of(config.get(field)) {
            add(field, node);
        }
    }
    for replacement in seq_of(config.get("replacements")) {
        if let Some(node) = replacement.get("path") {
            add("replacements path", node);
        }
    }
    named
}

/// Why `entry` is not handed to kustomize, if it is a remote reference (see [`is_remote`]):
/// always, unless `allow_remote`; and even then when a part of it starts with `-`.
fn remote(entry: &Named, dir: &Path, allow_remote: bool) -> Option<String> {
    if !is_remote(entry, dir) {
        return None;
    }
    if !allow_remote {
        return Some(format!(
            "is remote and was not fetched: remote bases, resources and files are fetched only \
             with {ALLOW_FLAG}"
        ));
    }
    option_like_part(entry.text).map(|part| {
        format!(
            "was not fetched: its part \"{part}\" starts with \"-\", which git would take for an \
             option, so it is not fetched even with {ALLOW_FLAG}"
        )
    })
}

/// Whether kustomize would fetch `entry` of a kustomization in `dir` rather than read it here:
/// a URL (`https://`, `file://`, any scheme: kustomize downloads `http(s)://` files and clones
/// `https://`, `ssh://` and `file://` repositories) always; and what it builds on (not a file
/// it reads) when it is a repository's address, an scp-like one (`git@github.com:org/repo`)
/// or a GitHub shorthand (`github.com/org/repo`, `gh:org/repo`), unless it is a file here,
/// which kustomize reads first (a component, always a folder, is not).
fn is_remote(entry: &Named, dir: &Path) -> bool {
    let (url, repository) = address_kind(entry.text);
    url || (entry.builds_on
        && repository
        && (entry.field == "components" || !dir.join(entry.text).is_file()))
}

/// Whether `entry` is a URL, and whether it is a repository's address without a scheme.
fn address_kind(entry: &str) -> (bool, bool) {
    let entry = entry.trim().to_ascii_lowercase();
    let entry = entry.strip_prefix("git::").unwrap_or(&entry);
    let url = entry.find("://").is_some_and(|end| {
        let scheme = &entry[..end];
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    // kustomize's user name before `@`: a letter, then letters, digits and `-`.
    let user = entry.split_once('@').is_some_and(|(user, _)| {
        user.starts_with(|c: char| c.is_ascii_alphabetic())
            && user.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    let github = ["github.com/", "github.com:", "gh:"]
        .iter()
        .any(|prefix| entry.starts_with(prefix));
    (url, user || github)
}

/// The first part of a remote reference that starts with `-` once decoded: a segment of its
/// address or path, or a query value (`ref`, `version`, `submodules`, `timeout`…), which
/// kustomize hands to `git` as arguments.
fn option_like_part(entry: &str) -> Option<String> {
    let entry = entry.trim();
    let (address, query) = entry.split_once('?').unwrap_or((entry, ""));
    let address = address
        .get(..5)
        .filter(|start| start.eq_ignore_ascii_case("git::"))
        .map_or(address, |_| &address[5..]);
    let after_scheme = address.split_once("://").map_or(address, |(_, rest)| rest);
    let segments = after_scheme
        .split(['/', ':', '@'])
        .map(|segment| percent_decoded(segment, false));
    let values = query
        .split(['&', ';'])
        .filter_map(|pair| pair.split_once('=').map(|(_, value)| value))
        .map(|value| percent_decoded(value, true));
    std::iter::once(percent_decoded(address, false))
        .chain(segments)
        .chain(values)
        .find(|part| part.starts_with('-'))
}

/// `text` with `%XX` decoded (and `+` as a space in a query), as Go's URL parser decodes it.
fn percent_decoded(text: &str, query: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .filter(|hex| hex.iter().all(u8::is_ascii_hexdigit))
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok());
                match hex {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' if query => out.push(b' '),
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    #[test]
    fn remote_references_are_those_kustomize_fetches() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/render/shop/base");
        let named = |field: &'static str, text: &'static str, builds_on| Named {
            field,
            text,
            span: Span::new(0, 0),
            builds_on,
        };
        let resource = |text| is_remote(&named("resources", text, true), &dir);
        for remote in [
            "https://github.com/org/repo//base?ref=v1",
            "HTTP://example.com/x.yaml",
            "file:///nonexistent/repo?ref=--upload-pack=touch%20/tmp/x",
            "ssh://git@example.com/org/repo.git",
            "git::https://example.com/org/repo",
            "git@github.com:org/repo.git",
            "deploy-bot@example.com:org/repo",
            "github.com/org/repo//x?ref=v1",
            "GitHub.com/org/repo",
            "gh:org/repo",
            "s3://bucket/key",
        ] {
            assert!(resource(remote), "{remote}");
        }
        for local in [
            "../base",
            "deployment.yaml",
            "config.d/base",
            "./weird://name",
            "1user@host:x",
            "/abs/path",
            "base?ref=v1",
        ] {
            assert!(!resource(local), "{local}");
        }
        // A file it reads is downloaded only from a URL; a file here is read before kustomize
        // takes a resource's name for a repository (a component's, always a folder, is not).
        let patch = |text| is_remote(&named("patches path", text, false), &dir);
        assert!(patch("https://example.com/patch.yaml"));
        assert!(!patch("git@github.com:org/patch.yaml"));
        let copy = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::write(copy.path().join("deploy@v2.yaml"), "");
        assert!(!is_remote(
            &named("resources", "deploy@v2.yaml", true),
            copy.path()
        ));
        assert!(is_remote(
            &named("components", "deploy@v2.yaml", true),
            copy.path()
        ));
        assert!(is_remote(
            &named("resources", "deploy@v3.yaml", true),
            copy.path()
        ));
    }

    #[test]
    fn a_part_that_git_would_take_for_an_option_is_found_decoded() {
        let part = |entry: &str| option_like_part(entry);
        assert_eq!(
            part("file:///nonexistent/repo?ref=--upload-pack=touch%20/tmp/x").as_deref(),
            Some("--upload-pack=touch /tmp/x")
        );
        assert_eq!(
            part("https://example.com/org/repo?version=%2D%2Dupload-pack=x").as_deref(),
            Some("--upload-pack=x")
        );
        assert_eq!(
            part("https://example.com/org/repo?timeout=1;ref=-x").as_deref(),
            Some("-x")
        );
        assert_eq!(
            part("ssh://-oProxyCommand=x/org/repo").as_deref(),
            Some("-oProxyCommand=x")
        );
        assert_eq!(part("git@example.com:-x/repo").as_deref(), Some("-x"));
        assert_eq!(
            part("https://github.com/org/repo//-base").as_deref(),
            Some("-base")
        );
        assert_eq!(
            part("https://github.com/org/my-repo//base?ref=v1-rc&submodules=false"),
            None
        );
        assert_eq!(part("https://example.com/x%2"), None);
    }
}
