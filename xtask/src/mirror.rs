//! The pre-commit mirror: a hook repository of its own whose hook installs ownerlint's prebuilt
//! wheel from PyPI, as ruff's `ruff-pre-commit` installs ruff's, so that pre-commit installs the
//! hook in seconds, with no Rust toolchain and no build.
//!
//! pre-commit installs a `language: python` hook with `pip install .` in the hook repository.
//! Here that is a package of nothing but metadata, `ownerlint-pre-commit`, whose one dependency
//! is `ownerlint==VERSION`: pip installs the wheel for the user's platform, whose `ownerlint`
//! executable is the hook's entry. Its build backend (`build_backend.py`) is in the repository
//! and uses the Python standard library alone: a backend from PyPI (setuptools, hatchling) would
//! be one more download for every user, and the only one a machine without an index could not
//! make. With `PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR` and the wheel in `DIR`, the hook installs
//! offline.
//!
//! The maintainers publish the folder as a repository of its own, `REPOSITORY-pre-commit`
//! (`package.repository` in Cargo.toml), tagged `vVERSION` at each release, once the wheel is
//! on PyPI.

use std::path::{Path, PathBuf};

/// The licence files the mirror carries, copied from the root.
const LICENCES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// Write the mirror for ownerlint `version` (Cargo's form, `0.1.0`) into
/// `out/pre-commit-mirror/`, replacing what was there, and return that folder. Its hook is the
/// one of `.pre-commit-hooks.yaml` at `root` (the same id, entry, types and `always_run`).
pub fn write_pre_commit_mirror(root: &Path, version: &str, out: &Path) -> Result<PathBuf, String> {
    let python_version = python_version(version)?;
    let repository = package_field(root, "repository")?;
    if !repository.starts_with("https://") || repository.contains(char::is_whitespace) {
        return Err(format!(
            "Cargo.toml: package.repository `{repository}` is not an https:// address; set it to where ownerlint is published"
        ));
    }
    let hooks = mirror_hooks(&read(&root.join(".pre-commit-hooks.yaml"))?)?;
    let licences = LICENCES
        .iter()
        .map(|name| Ok((*name, read(&root.join(name))?)))
        .collect::<Result<Vec<_>, String>>()?;

    let mirror = out.join("pre-commit-mirror");
    if mirror.exists() {
        std::fs::remove_dir_all(&mirror)
            .map_err(|e| format!("{}: cannot remove the old mirror: {e}", mirror.display()))?;
    }
    std::fs::create_dir_all(&mirror)
        .map_err(|e| format!("{}: cannot create the folder: {e}", mirror.display()))?;
    let fill = |template: &str| {
        template
            .replace("@VERSION@", version)
            .replace("@PYTHON_VERSION@", &python_version)
            .replace("@REPOSITORY@", &repository)
    };
    let mut files = vec![
        (".pre-commit-hooks.yaml", hooks),
        ("pyproject.toml", fill(PYPROJECT)),
        ("build_backend.py", fill(BUILD_BACKEND)),
        ("README.md", fill(README)),
    ];
    files.extend(licences);
    for (name, text) in files {
        let path = mirror.join(name);
        std::fs::write(&path, text)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(mirror)
}

/// A string value of `[package]` in `root`'s Cargo.toml (`version = "0.1.0"`).
pub fn package_field(root: &Path, key: &str) -> Result<String, String> {
    let manifest = root.join("Cargo.toml");
    let text = read(&manifest)?;
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        if in_package && name.trim() == key {
            let value = value.trim();
            if let Some(value) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                return Ok(value.to_string());
            }
        }
    }
    Err(format!(
        "{}: no `{key} = \"…\"` in [package]; add it",
        manifest.display()
    ))
}

/// The version as Python packaging writes it (PEP 440), as maturin names the wheel: `0.1.0`
/// stays, `0.2.0-rc.1` is `0.2.0rc1`. Other forms are refused rather than guessed at.
fn python_version(version: &str) -> Result<String, String> {
    let refuse = || {
        format!(
            "version `{version}`: the pre-commit mirror takes MAJOR.MINOR.PATCH, optionally with -alpha.N, -beta.N or -rc.N; change package.version in Cargo.toml"
        )
    };
    let numbers = |text: &str, count: usize| {
        let parts: Vec<&str> = text.split('.').collect();
        parts.len() == count
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let (release, pre) = match version.split_once('-') {
        Some((release, pre)) => (release, Some(pre)),
        None => (version, None),
    };
    if !numbers(release, 3) {
        return Err(refuse());
    }
    let Some(pre) = pre else {
        return Ok(release.to_string());
    };
    let (label, number) = pre.split_once('.').ok_or_else(refuse)?;
    let short = match label {
        "alpha" => "a",
        "beta" => "b",
        "rc" => "rc",
        _ => return Err(refuse()),
    };
    if !numbers(number, 1) {
        return Err(refuse());
    }
    Ok(format!("{release}{short}{number}"))
}

/// The mirror's `.pre-commit-hooks.yaml`: the hooks of the root's, whose leading comment (how
/// the checkout builds) gives way to the mirror's. Both are `language: python`: what differs is
/// what `pip install .` installs.
fn mirror_hooks(root_hooks: &str) -> Result<String, String> {
    let hooks: Vec<&str> = root_hooks
        .lines()
        .skip_while(|line| line.starts_with('#'))
        .collect();
    if !hooks.iter().any(|line| line.trim() == "language: python") {
        return Err(
            ".pre-commit-hooks.yaml: the mirror installs the hook with pip, and the hook is not `language: python`"
                .to_string(),
        );
    }
    Ok(format!("{HOOKS_COMMENT}{}\n", hooks.join("\n")))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

const HOOKS_COMMENT: &str = "\
# `language: python`: pip installs this repository, a package whose one dependency is ownerlint's
# prebuilt wheel from PyPI (pyproject.toml): no Rust toolchain, no build.
# `always_run`: pre-commit passes no file for a commit that only deletes files, and deleting an
# owner's manifest breaks its dependents: `--git-deletions` reads what the commit deletes from
# git; with no file to lint and nothing deleted, the hook does nothing.
";

const PYPROJECT: &str = r#"# The package pre-commit installs for the ownerlint hook (`pip install .`): nothing of its own,
# only its dependency, ownerlint's prebuilt wheel from PyPI, which carries the binary.
# build_backend.py builds it with the Python standard library alone, so installing the hook
# downloads the wheel and nothing else.
[build-system]
requires = []
build-backend = "build_backend"
backend-path = ["."]

[project]
name = "ownerlint-pre-commit"
version = "@PYTHON_VERSION@"
description = "The pre-commit hook of ownerlint, installed from its prebuilt wheel"
license = "MIT OR Apache-2.0"
requires-python = ">=3.9"
dependencies = ["ownerlint==@PYTHON_VERSION@"]
"#;

const BUILD_BACKEND: &str = r#""""Builds the ownerlint hook's package (PEP 517) with the Python standard library alone.

The wheel holds metadata only: its one dependency, ownerlint's own wheel, carries the binary.
pyproject.toml says the same for those who read it; pip reads what is here.
"""

import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME = "ownerlint_pre_commit"
VERSION = "@PYTHON_VERSION@"
METADATA = """\
Metadata-Version: 2.1
Name: ownerlint-pre-commit
Version: @PYTHON_VERSION@
Summary: The pre-commit hook of ownerlint, installed from its prebuilt wheel
Home-page: @REPOSITORY@
License: MIT OR Apache-2.0
Requires-Python: >=3.9
Requires-Dist: ownerlint==@PYTHON_VERSION@
"""
WHEEL = """\
Wheel-Version: 1.0
Generator: ownerlint-pre-commit
Root-Is-Purelib: true
Tag: py3-none-any
"""
LICENCES = ("LICENSE-MIT", "LICENSE-APACHE")
HERE = os.path.dirname(os.path.abspath(__file__))
# Fixed times: the same sources give the same archives.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _read(name):
    with open(os.path.join(HERE, name), "rb") as file:
        return file.read()


def _digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist_info = f"{NAME}-{VERSION}.dist-info"
    files = [
        (f"{dist_info}/METADATA", METADATA.encode()),
        (f"{dist_info}/WHEEL", WHEEL.encode()),
    ]
    files += [(f"{dist_info}/{name}", _read(name)) for name in LICENCES]
    record = "".join(f"{path},sha256={_digest(data)},{len(data)}\n" for path, data in files)
    files.append((f"{dist_info}/RECORD", (record + f"{dist_info}/RECORD,,\n").encode()))
    wheel_name = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w") as wheel:
        for path, data in files:
            wheel.writestr(zipfile.ZipInfo(path, ZIP_TIME), data, zipfile.ZIP_DEFLATED)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{VERSION}"
    sdist_name = f"{base}.tar.gz"
    sources = ["pyproject.toml", "build_backend.py", "README.md", ".pre-commit-hooks.yaml"]
    with tarfile.open(os.path.join(sdist_directory, sdist_name), "w:gz") as sdist:
        for name, data in [(name, _read(name)) for name in sources + list(LICENCES)] + [
            ("PKG-INFO", METADATA.encode())
        ]:
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size = len(data)
            info.mode = 0o644
            sdist.addfile(info, io.BytesIO(data))
    return sdist_name
"#;

const README: &str = r#"# ownerlint-pre-commit

The [pre-commit](https://pre-commit.com/) hook of [ownerlint](@REPOSITORY@), which finds
broken Kubernetes ownership (`metadata.ownerReferences`) in manifests. pre-commit installs it
from ownerlint's prebuilt wheel on PyPI (`ownerlint==@PYTHON_VERSION@`), in seconds: no Rust
toolchain, no build.

```yaml
# .pre-commit-config.yaml
repos:
  - repo: @REPOSITORY@-pre-commit
    rev: v@VERSION@
    hooks:
      - id: ownerlint
```

The hook lints the changed YAML and JSON files against the whole repository
(`ownerlint --format short --project . --git-deletions`), and runs on every commit, also one
that only deletes files. To have it apply ownerlint's safe fixes, give it `args: [--fix]`:

```yaml
# .pre-commit-config.yaml
repos:
  - repo: @REPOSITORY@-pre-commit
    rev: v@VERSION@
    hooks:
      - id: ownerlint
        args: [--fix]
```

A run that fixes a file fails, as pre-commit fails every hook that changes files: look at the
fixes (`git diff`), stage them, and commit again.

This repository is written by `cargo xtask dist` in ownerlint's repository, one tag
(`v@VERSION@`) a release of ownerlint: change the hook there, not here.

## Licence

MIT OR Apache-2.0, at your option: [LICENSE-MIT](LICENSE-MIT), [LICENSE-APACHE](LICENSE-APACHE).
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_written_as_python_packaging_writes_them() {
        assert_eq!(python_version("0.1.0").as_deref(), Ok("0.1.0"));
        assert_eq!(python_version("1.20.3-alpha.2").as_deref(), Ok("1.20.3a2"));
        assert_eq!(python_version("1.0.0-beta.1").as_deref(), Ok("1.0.0b1"));
        assert_eq!(python_version("0.2.0-rc.10").as_deref(), Ok("0.2.0rc10"));
        for refused in [
            "0.1",
            "0.1.0.1",
            "0.1.0-dev",
            "0.1.0-rc",
            "0.1.0-rc.x",
            "0.1.0+build",
            "0.1.0\"]",
        ] {
            assert!(python_version(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn the_mirror_keeps_the_hooks_and_replaces_the_leading_comment() {
        let root = "# Built from source.\n- id: ownerlint\n  language: python\n";
        let mirror = mirror_hooks(root).unwrap();
        assert!(mirror.starts_with(HOOKS_COMMENT));
        assert!(mirror.ends_with("\n- id: ownerlint\n  language: python\n"));
        assert!(!mirror.contains("Built from source"));
        assert!(mirror_hooks("- id: ownerlint\n  language: system\n").is_err());
    }
}
