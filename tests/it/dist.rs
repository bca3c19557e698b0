//! The release artifacts that `cargo xtask dist --target x86_64-unknown-linux-musl` writes, as
//! a user gets them: the archive and its checksum, the static binary in it, the wheel and the
//! krew manifest. They are found in the folder `OWNERLINT_DIST` names (`.ci/run` builds them
//! into `target/dist` first); without it the tests are skipped, and under `CI=true` they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

const TARGET: &str = "x86_64-unknown-linux-musl";

fn dist_dir() -> Option<PathBuf> {
    match std::env::var_os("OWNERLINT_DIST") {
        Some(dir) => Some(std::path::absolute(dir).expect("an absolute path")),
        None => {
            common::skip(
                "OWNERLINT_DIST does not name cargo xtask dist's folder (run `cargo xtask dist \
                 --target x86_64-unknown-linux-musl --skip-vsix`, then OWNERLINT_DIST=target/dist)",
            );
            None
        }
    }
}

fn archive_name() -> String {
    format!("ownerlint-{}-{TARGET}.tar.gz", env!("CARGO_PKG_VERSION"))
}

fn run(command: &mut Command) -> std::process::Output {
    let out = command.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{command:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn sha256_of(path: &Path) -> String {
    let out = run(Command::new("sha256sum").arg(path));
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().next().expect("a digest").to_owned()
}

/// The ELF program header types of `binary`, and its machine (62 is x86-64).
fn elf_program_headers(binary: &[u8]) -> (u16, Vec<u32>) {
    assert_eq!(&binary[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(binary[4], 2, "not a 64-bit ELF file");
    let u16_at = |at: usize| u16::from_le_bytes([binary[at], binary[at + 1]]);
    let u64_at = |at: usize| u64::from_le_bytes(binary[at..at + 8].try_into().expect("8 bytes"));
    let machine = u16_at(0x12);
    let (offset, size, count) = (u64_at(0x20) as usize, u16_at(0x36) as usize, u16_at(0x38));
    let types = (0..usize::from(count))
        .map(|i| {
            let at = offset + i * size;
            u32::from_le_bytes(binary[at..at + 4].try_into().expect("4 bytes"))
        })
        .collect();
    (machine, types)
}

/// The archive's checksum verifies with `sha256sum -c` (and a changed byte does not); it holds
/// `ownerlint-VERSION-TARGET/` with the binary, the licences and the README; the binary is
/// statically linked (no ELF interpreter) and lists the rules with an empty environment, from
/// an empty folder.
/// The release workflow builds what CI tested: every job that runs cargo first installs the
/// toolchain Cargo.toml's rust-version names (the one `.ci/run` insists on), and it installs
/// the packaging tools at the versions `.ci/run` pins.
#[test]
fn the_release_workflow_builds_with_the_toolchain_and_tools_ci_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workflow =
        std::fs::read_to_string(root.join(".github/workflows/release.yml")).expect("release.yml");
    let ci = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
    let step = "rustup toolchain install \"$version\"";
    assert!(
        workflow.contains("version=$(sed -n 's/^rust-version = \"\\(.*\\)\"$/\\1/p' Cargo.toml)"),
        "release.yml does not read rust-version from Cargo.toml"
    );
    assert!(
        ci.contains("rust_version=$(sed -n 's/^rust-version = \"\\(.*\\)\"$/\\1/p' Cargo.toml)")
    );
    let jobs = workflow
        .split_once("\njobs:\n")
        .expect("release.yml has jobs")
        .1;
    // Each job: its name (a line `  NAME:`) and its text.
    let mut each: Vec<(String, String)> = Vec::new();
    for line in jobs.lines() {
        match line.strip_prefix("  ") {
            Some(name) if !name.starts_with(' ') && name.ends_with(':') => {
                each.push((name.trim_end_matches(':').to_string(), String::new()));
            }
            _ => {
                if let Some((_, text)) = each.last_mut() {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    let mut names = Vec::new();
    for (name, job) in each {
        if let Some(cargo) = job.find("cargo ") {
            let installed = job.find(step);
            assert!(
                installed.is_some_and(|at| at < cargo),
                "the job {name} runs cargo without installing Cargo.toml's rust-version first"
            );
            names.push(name);
        }
    }
    assert!(names.len() >= 4, "{names:?}");
    for tool in ["maturin", "ziglang", "cargo-zigbuild"] {
        let pin = ci
            .split(['\'', ' ', '\n'])
            .find(|word| word.starts_with(&format!("{tool}==")))
            .unwrap_or_else(|| panic!(".ci/run does not pin {tool}"));
        assert!(
            workflow.contains(pin),
            "release.yml does not install {pin}, as .ci/run pins it"
        );
    }
}

#[test]
#[ignore = "needs cargo xtask dist's artifacts (OWNERLINT_DIST); .ci/run builds them"]
fn the_archive_verifies_and_its_static_binary_runs_in_an_empty_environment() {
    let Some(dist) = dist_dir() else { return };
    let name = archive_name();
    run(Command::new("sha256sum")
        .args(["-c", &format!("{name}.sha256")])
        .current_dir(&dist));

    let tmp = common::temp_dir("dist-archive");
    let tampered = tmp.path().join("tampered");
    std::fs::create_dir(&tampered).expect("mkdir");
    let mut bytes = std::fs::read(dist.join(&name)).expect("the archive");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(tampered.join(&name), bytes).expect("write");
    std::fs::copy(
        dist.join(format!("{name}.sha256")),
        tampered.join(format!("{name}.sha256")),
    )
    .expect("copy");
    let refused = Command::new("sha256sum")
        .args(["-c", &format!("{name}.sha256")])
        .current_dir(&tampered)
        .output()
        .expect("sha256sum runs");
    assert!(!refused.status.success(), "a changed archive verified");

    let unpacked = tmp.path().join("unpacked");
    std::fs::create_dir(&unpacked).expect("mkdir");
    run(Command::new("tar")
        .arg("-xzf")
        .arg(dist.join(&name))
        .current_dir(&unpacked));
    let folder = format!("ownerlint-{}-{TARGET}", env!("CARGO_PKG_VERSION"));
    let mut entries: Vec<String> = std::fs::read_dir(unpacked.join(&folder))
        .expect("the archive's folder")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    entries.sort();
    assert_eq!(
        entries,
        [
            "COPYING",
            "LICENSE-APACHE",
            "LICENSE-MIT",
            "README.md",
            "ownerlint"
        ]
    );

    let binary = unpacked.join(&folder).join("ownerlint");
    let (machine, headers) = elf_program_headers(&std::fs::read(&binary).expect("the binary"));
    assert_eq!(machine, 62, "not an x86-64 binary");
    const PT_INTERP: u32 = 3;
    assert!(
        !headers.contains(&PT_INTERP),
        "the binary names a dynamic loader: it is not statically linked"
    );

    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).expect("mkdir");
    let rules = run(Command::new(&binary)
        .arg("rules")
        .env_clear()
        .current_dir(&empty));
    let expected = common::ownerlint().arg("rules").run();
    assert_eq!(String::from_utf8_lossy(&rules.stdout), expected.stdout);
}

/// The wheel installs with no index (offline) into a new virtual environment, carries the
/// licences (COPYING and both texts), and its `ownerlint` runs with no cargo or rustc on `PATH`.
#[test]
#[ignore = "needs cargo xtask dist's artifacts (OWNERLINT_DIST); .ci/run builds them"]
fn the_wheel_installs_offline_and_runs_without_rust() {
    let Some(dist) = dist_dir() else { return };
    let Some(python) = common::require_tool("python3", "install Python 3") else {
        return;
    };
    let wheels: Vec<PathBuf> = std::fs::read_dir(&dist)
        .expect("the dist folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            name.ends_with(".whl") && name.contains("musllinux_1_1_x86_64")
        })
        .collect();
    assert_eq!(
        wheels.len(),
        1,
        "one x86_64 wheel in {}: {wheels:?}",
        dist.display()
    );
    let wheel = &wheels[0];
    let name = wheel.file_name().unwrap_or_default().to_string_lossy();
    assert!(
        name.contains("manylinux_2_17_x86_64"),
        "{name} is not for glibc systems"
    );

    let listing = run(Command::new(&python)
        .args(["-m", "zipfile", "-l"])
        .arg(wheel));
    let listing = String::from_utf8_lossy(&listing.stdout);
    for licence in ["COPYING", "LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(
            listing.contains(&format!("dist-info/licenses/{licence}")),
            "{listing}"
        );
    }

    let tmp = common::temp_dir("dist-wheel");
    let venv = tmp.path().join("venv");
    run(Command::new(&python).args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--no-index",
            "--disable-pip-version-check",
        ])
        .arg(wheel)
        .env("PIP_NO_CACHE_DIR", "1"));
    let path =
        std::env::join_paths([venv.join("bin"), "/usr/bin".into(), "/bin".into()]).expect("a PATH");
    for rust in ["cargo", "rustc"] {
        let found = std::env::split_paths(&path).any(|dir| dir.join(rust).exists());
        assert!(
            !found,
            "{rust} is on the PATH the wheel's ownerlint runs with"
        );
    }
    let version = run(Command::new("ownerlint")
        .arg("--version")
        .env_clear()
        .env("PATH", &path)
        .current_dir(tmp.path()));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout),
        format!("ownerlint {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// The krew manifest's platform for linux/amd64 downloads the archive from the repository's
/// release, with the archive's own sha256, and installs the binary as the plugin.
#[test]
#[ignore = "needs cargo xtask dist's artifacts (OWNERLINT_DIST); .ci/run builds them"]
fn the_krew_manifest_names_the_archive_and_its_checksum() {
    let Some(dist) = dist_dir() else { return };
    let text = std::fs::read_to_string(dist.join("ownerlint.yaml")).expect("ownerlint.yaml");
    let manifest: serde_yaml::Value = serde_yaml::from_str(&text).expect("YAML");
    assert_eq!(
        manifest["apiVersion"].as_str(),
        Some("krew.googlecontainertools.github.com/v1alpha2")
    );
    assert_eq!(manifest["kind"].as_str(), Some("Plugin"));
    assert_eq!(manifest["metadata"]["name"].as_str(), Some("ownerlint"));
    let spec = &manifest["spec"];
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        spec["version"].as_str(),
        Some(format!("v{version}").as_str())
    );
    assert!(
        spec["shortDescription"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    let platforms = spec["platforms"].as_sequence().expect("platforms");
    let linux = platforms
        .iter()
        .find(|p| {
            let labels = &p["selector"]["matchLabels"];
            labels["os"].as_str() == Some("linux") && labels["arch"].as_str() == Some("amd64")
        })
        .expect("a linux/amd64 platform");
    let name = archive_name();
    assert_eq!(
        linux["uri"].as_str(),
        Some(
            format!(
                "{}/releases/download/v{version}/{name}",
                env!("CARGO_PKG_REPOSITORY")
            )
            .as_str()
        )
    );
    assert_eq!(
        linux["sha256"].as_str(),
        Some(sha256_of(&dist.join(&name)).as_str())
    );
    assert_eq!(linux["bin"].as_str(), Some("ownerlint"));
    let from = format!("ownerlint-{version}-{TARGET}/ownerlint");
    assert!(
        linux["files"]
            .as_sequence()
            .expect("files")
            .iter()
            .any(|f| f["from"].as_str() == Some(from.as_str())),
        "{text}"
    );
}

/// krew installs the linux/amd64 platform as krew's own code does it (kubernetes-sigs/krew,
/// `internal/installation`: `install`, `move.go`), and the real kubectl runs the result: the
/// archive is checked against the manifest's sha256 and unpacked; each `files` entry's `from`
/// (a path, or a glob of one folder, which must match something) is moved to `to` in the
/// plugin's folder; `bin` must be a file there, linked as `kubectl-ownerlint`. krew's index
/// also wants a licence-named file among what is installed (cmd/validate-krew-manifest:
/// `validateLicenseFileExists`), and `kubectl krew info` shows the description's lines whole.
#[test]
#[ignore = "needs cargo xtask dist's artifacts (OWNERLINT_DIST); .ci/run builds them"]
fn krew_installs_the_plugin_and_kubectl_runs_it() {
    let Some(dist) = dist_dir() else { return };
    let Some(kubectl) = common::kubectl() else {
        return;
    };
    let text = std::fs::read_to_string(dist.join("ownerlint.yaml")).expect("ownerlint.yaml");
    let manifest: serde_yaml::Value = serde_yaml::from_str(&text).expect("YAML");
    let description = manifest["spec"]["description"]
        .as_str()
        .expect("description");
    assert!(
        description.lines().all(|line| line.chars().count() <= 80),
        "{description}"
    );
    let platform = manifest["spec"]["platforms"]
        .as_sequence()
        .expect("platforms")
        .iter()
        .find(|p| {
            let labels = &p["selector"]["matchLabels"];
            labels["os"].as_str() == Some("linux") && labels["arch"].as_str() == Some("amd64")
        })
        .expect("a linux/amd64 platform");
    let uri = platform["uri"].as_str().expect("uri");
    let archive = dist.join(uri.rsplit('/').next().expect("a file name"));
    assert_eq!(
        platform["sha256"].as_str(),
        Some(sha256_of(&archive).as_str())
    );

    let tmp = common::temp_dir("dist-krew");
    let staging = tmp.path().join("staging");
    let installed = tmp
        .path()
        .join(format!("store/ownerlint/v{}", env!("CARGO_PKG_VERSION")));
    for dir in [&staging, &installed] {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .current_dir(&staging));
    for entry in platform["files"].as_sequence().expect("files") {
        let from = entry["from"].as_str().expect("from");
        let to = installed.join(entry["to"].as_str().expect("to"));
        let (folder, name) = from.rsplit_once('/').unwrap_or(("", from));
        let pattern = globset::Glob::new(name).expect("a glob").compile_matcher();
        let matched: Vec<PathBuf> = std::fs::read_dir(staging.join(folder))
            .expect("from's folder")
            .map(|e| e.expect("an entry").path())
            .filter(|path| pattern.is_match(path.file_name().expect("a name")))
            .collect();
        assert!(
            !matched.is_empty(),
            "krew refuses: no files in the plugin archive matched {from}"
        );
        for path in matched {
            std::fs::rename(&path, to.join(path.file_name().expect("a name"))).expect("move");
        }
    }
    let licence_names = [
        "license",
        "license.txt",
        "license.md",
        "licenses",
        "licenses.txt",
        "licenses.md",
        "copying",
        "copying.txt",
    ];
    let names: Vec<String> = std::fs::read_dir(&installed)
        .expect("the plugin's folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(
        names
            .iter()
            .any(|name| licence_names.contains(&name.to_lowercase().as_str())),
        "no licence file krew's index accepts among {names:?}"
    );
    let bin = installed.join(platform["bin"].as_str().expect("bin"));
    assert!(bin.is_file(), "bin {} is not installed", bin.display());
    let links = tmp.path().join("bin");
    std::fs::create_dir(&links).expect("mkdir");
    std::os::unix::fs::symlink(&bin, links.join("kubectl-ownerlint")).expect("link");

    let path = std::env::join_paths([&links, kubectl.parent().expect("kubectl's folder")])
        .expect("a PATH");
    let rules = run(Command::new(&kubectl)
        .args(["ownerlint", "rules"])
        .env("PATH", path)
        .env("HOME", tmp.path())
        .env_remove("KUBECONFIG")
        .current_dir(tmp.path()));
    let expected = common::ownerlint().arg("rules").run();
    assert_eq!(String::from_utf8_lossy(&rules.stdout), expected.stdout);
}
