//! `cargo xtask dist`: ownerlint's release artifacts, built into `target/dist/`.
//!
//! For each target: the Python wheel (maturin) and the binary it carries (`cargo zigbuild` for
//! the static Linux ones, `cargo build` elsewhere), that binary also packed as
//! `ownerlint-VERSION-TARGET.tar.gz` (`.zip` for Windows) with a `.sha256` beside it. Then the krew plugin manifest `ownerlint.yaml`, from every archive's checksum
//! found in `target/dist/`, and the VS Code extension's `.vsix`.
//!
//! The release workflow runs it once per runner (`--target` the runner's own); CI runs it for
//! the x86_64 Linux target only.
//!
//! `cargo xtask docs` builds the documentation site into `target/docs/` (see `docs.rs`);
//! `cargo xtask coordinates` writes Cargo.toml's repository and version into the pages and the
//! VS Code extension that repeat them (see `coordinates.rs`).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use sha2::{Digest, Sha256};

mod coordinates;
mod docs;
mod fences;
mod mirror;
mod snippets;

/// The workspace's root folder, for the tests that read its files.
#[cfg(test)]
fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is in the workspace")
        .to_path_buf()
}

const USAGE: &str =
    "usage: cargo xtask dist [--target TARGET]... [--profile release-lto|release] [--skip-vsix]
                        [--skip-wheel] [--manifest-only]
       cargo xtask pre-commit-mirror [--out DIR]
       cargo xtask docs
       cargo xtask coordinates";

/// Every target a release is built for, with krew's names for its system and architecture.
const TARGETS: [Target; 5] = [
    Target {
        triple: "x86_64-unknown-linux-musl",
        os: "linux",
        arch: "amd64",
    },
    Target {
        triple: "aarch64-unknown-linux-musl",
        os: "linux",
        arch: "arm64",
    },
    Target {
        triple: "x86_64-apple-darwin",
        os: "darwin",
        arch: "amd64",
    },
    Target {
        triple: "aarch64-apple-darwin",
        os: "darwin",
        arch: "arm64",
    },
    Target {
        triple: "x86_64-pc-windows-msvc",
        os: "windows",
        arch: "amd64",
    },
];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Target {
    triple: &'static str,
    os: &'static str,
    arch: &'static str,
}

impl Target {
    fn windows(self) -> bool {
        self.os == "windows"
    }

    /// The static Linux binaries are cross-compiled with zig as the C compiler and linker
    /// (ring and jemalloc have C parts), from any Linux host.
    fn zig(self) -> bool {
        self.os == "linux"
    }

    fn exe(self) -> &'static str {
        if self.windows() {
            "ownerlint.exe"
        } else {
            "ownerlint"
        }
    }
}

struct Options {
    targets: Vec<Target>,
    vsix: bool,
    wheel: bool,
    /// Only the krew manifest (from the `.sha256` files in `target/dist/`, gathered from
    /// every runner) and the pre-commit mirror: the release workflow's last job.
    manifest_only: bool,
    /// Cargo's profile for the binaries: `release-lto` for a release (the default), or
    /// `release`, which CI uses: the same code, optimised the same, without fat LTO's
    /// minutes (Cargo.toml's profiles).
    profile: &'static str,
}

/// What the release is: from Cargo.toml, through `cargo metadata`.
struct Package {
    version: String,
    repository: String,
    description: String,
    root: PathBuf,
    target_dir: PathBuf,
}

impl Package {
    fn dist(&self) -> PathBuf {
        self.target_dir.join("dist")
    }

    fn base(&self, target: Target) -> String {
        format!("ownerlint-{}-{}", self.version, target.triple)
    }

    fn archive(&self, target: Target) -> String {
        let extension = if target.windows() { "zip" } else { "tar.gz" };
        format!("{}.{extension}", self.base(target))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("pre-commit-mirror") {
        return match pre_commit_mirror(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("cargo xtask pre-commit-mirror: {why}");
                ExitCode::FAILURE
            }
        };
    }
    if args.first().map(String::as_str) == Some("coordinates") {
        return match package().and_then(|package| coordinates::write(&package.root)) {
            Ok(changed) => {
                for file in changed {
                    eprintln!("wrote {}", file.display());
                }
                ExitCode::SUCCESS
            }
            Err(why) => {
                eprintln!("cargo xtask coordinates: {why}");
                ExitCode::FAILURE
            }
        };
    }
    if args.first().map(String::as_str) == Some("docs") {
        return match build_docs(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("cargo xtask docs: {why}");
                ExitCode::FAILURE
            }
        };
    }
    let options = match parse(&args) {
        Ok(options) => options,
        Err(why) => {
            eprintln!("cargo xtask: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match dist(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("cargo xtask dist: {why}");
            ExitCode::FAILURE
        }
    }
}

fn parse(args: &[String]) -> Result<Options, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("no command given".into());
    };
    if command != "dist" {
        return Err(format!("unknown command `{command}`"));
    }
    let mut options = Options {
        targets: Vec::new(),
        vsix: true,
        wheel: true,
        manifest_only: false,
        profile: PROFILE,
    };
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--skip-vsix" => options.vsix = false,
            "--skip-wheel" => options.wheel = false,
            "--manifest-only" => options.manifest_only = true,
            "--profile" => {
                let Some(name) = rest.next() else {
                    return Err("`--profile` needs a profile: release-lto or release".into());
                };
                options.profile = known_profile(name)?;
            }
            "--target" => {
                let Some(name) = rest.next() else {
                    return Err(
                        "`--target` needs a target, e.g. `--target x86_64-unknown-linux-musl`"
                            .into(),
                    );
                };
                options.targets.push(known_target(name)?);
            }
            other => {
                if let Some(name) = other.strip_prefix("--target=") {
                    options.targets.push(known_target(name)?);
                } else if let Some(name) = other.strip_prefix("--profile=") {
                    options.profile = known_profile(name)?;
                } else {
                    return Err(format!("unknown argument `{other}`"));
                }
            }
        }
    }
    if options.targets.is_empty() {
        options.targets = host_targets()?;
    }
    let unique: BTreeSet<Target> = options.targets.iter().copied().collect();
    options.targets = unique.into_iter().collect();
    Ok(options)
}

/// The profiles whose binaries may be shipped: both optimise as `cargo install` does.
fn known_profile(name: &str) -> Result<&'static str, String> {
    [PROFILE, "release"]
        .into_iter()
        .find(|profile| *profile == name)
        .ok_or_else(|| format!("`--profile {name}`: the binaries are built with release-lto (a release's) or release"))
}

fn known_target(name: &str) -> Result<Target, String> {
    TARGETS
        .iter()
        .copied()
        .find(|target| target.triple == name)
        .ok_or_else(|| {
            let names: Vec<&str> = TARGETS.iter().map(|target| target.triple).collect();
            format!(
                "`--target {name}` is not a release target; one of: {}",
                names.join(", ")
            )
        })
}

/// Both Linux targets on Linux (zig cross-compiles); the host's own elsewhere.
fn host_targets() -> Result<Vec<Target>, String> {
    let own = |os: &str| {
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            other => other,
        };
        TARGETS
            .iter()
            .copied()
            .find(|target| target.os == os && target.arch == arch)
    };
    match std::env::consts::OS {
        "linux" => Ok(TARGETS
            .iter()
            .copied()
            .filter(|target| target.os == "linux")
            .collect()),
        "macos" => own("darwin").into_iter().map(Ok).collect(),
        "windows" => own("windows").into_iter().map(Ok).collect(),
        other => Err(format!(
            "no release target is built on {other}; name one with `--target`"
        )),
    }
    .and_then(|targets: Vec<Target>| {
        if targets.is_empty() {
            Err(format!(
                "no release target for this {} machine; name one with `--target`",
                std::env::consts::ARCH
            ))
        } else {
            Ok(targets)
        }
    })
}

/// `cargo xtask pre-commit-mirror [--out DIR]`: the hook repository alone.
fn pre_commit_mirror(args: &[String]) -> Result<(), String> {
    let package = package()?;
    let out = match args {
        [] => package.dist(),
        [flag, out] if flag == "--out" => PathBuf::from(out),
        _ => return Err(format!("unknown arguments {args:?}\n{USAGE}")),
    };
    let written = mirror::write_pre_commit_mirror(&package.root, &package.version, &out)?;
    note(&format!(
        "wrote the pre-commit mirror for v{} to {}",
        package.version,
        written.display()
    ));
    Ok(())
}

/// `cargo xtask docs`: the documentation site, into `target/docs/`.
fn build_docs(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err(format!("unknown arguments {args:?}\n{USAGE}"));
    }
    // The pictures of a terminal wrap at 80 columns, the width of a page, whatever terminal
    // this runs in.
    // SAFETY: no other thread runs yet to read the environment at the same time.
    unsafe { std::env::set_var("COLUMNS", "80") };
    let package = package()?;
    let out = package.target_dir.join("docs");
    let started = Instant::now();
    let pages = docs::build(
        &package.root,
        &package.target_dir.join("docs-src"),
        &out,
        &package.repository,
    )?;
    eprintln!(
        "docs: built {pages} pages into {}, every internal link checked, in {:.1}s",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn dist(options: &Options) -> Result<(), String> {
    let package = package()?;
    let dist = package.dist();
    fs::create_dir_all(&dist).map_err(|e| format!("cannot create {}: {e}", dist.display()))?;
    if options.manifest_only {
        write_krew_manifest(&package)?;
        mirror::write_pre_commit_mirror(&package.root, &package.version, &dist)?;
        snippets::write_snippets(&package.repository, &package.version, &dist)?;
        note(&format!("done: {}", dist.display()));
        return Ok(());
    }
    check_tools(options)?;
    for &target in &options.targets {
        // maturin runs the same build as `cargo zigbuild` (target, profile, features, target
        // folder), but through its own copy of cargo-zigbuild, whose linker wrapper has another
        // path: Cargo would build everything twice. So with a wheel, the archive takes the
        // binary maturin built, the very one in the wheel.
        if options.wheel {
            build_wheel(&package, target, options.profile)?;
        } else {
            build_binary(&package, target, options.profile)?;
        }
        pack(
            &package,
            target,
            &built_binary(&package, target, options.profile)?,
        )?;
    }
    write_krew_manifest(&package)?;
    // The hook repository that installs the wheel, published as a repository of its own.
    mirror::write_pre_commit_mirror(&package.root, &package.version, &dist)?;
    // What users paste, with the release's coordinates.
    snippets::write_snippets(&package.repository, &package.version, &dist)?;
    if options.vsix {
        build_vsix(&package)?;
    } else {
        note("the .vsix is not built (--skip-vsix)");
    }
    note(&format!("done: {}", dist.display()));
    Ok(())
}

fn note(text: &str) {
    eprintln!("dist: {text}");
}

fn package() -> Result<Package, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(&cargo)
        .args(["metadata", "--locked", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cannot run `{cargo} metadata`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo metadata` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("`cargo metadata` printed no JSON: {e}"))?;
    let text = |value: &serde_json::Value, what: &str| {
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("Cargo.toml has no {what}"))
    };
    let ownerlint = metadata["packages"]
        .as_array()
        .and_then(|packages| packages.iter().find(|p| p["name"] == "ownerlint"))
        .ok_or("`cargo metadata` lists no package `ownerlint`")?;
    Ok(Package {
        version: text(&ownerlint["version"], "package.version")?,
        repository: text(&ownerlint["repository"], "package.repository")?
            .trim_end_matches('/')
            .to_owned(),
        description: text(&ownerlint["description"], "package.description")?,
        root: PathBuf::from(text(&metadata["workspace_root"], "workspace root")?),
        target_dir: PathBuf::from(text(&metadata["target_directory"], "target directory")?),
    })
}

/// Everything the build needs, checked before anything is built, each with how to get it.
fn check_tools(options: &Options) -> Result<(), String> {
    let mut missing = Vec::new();
    let zig = options.targets.iter().any(|target| target.zig());
    if zig && !runs("cargo-zigbuild", &["--version"]) {
        missing.push("cargo-zigbuild is not on PATH: `pip install cargo-zigbuild`".to_owned());
    }
    if zig && !runs("zig", &["version"]) && !runs("python3", &["-m", "ziglang", "version"]) {
        missing.push(
            "zig is neither on PATH nor importable by python3 (`python3 -m ziglang`): \
             `pip install ziglang`"
                .to_owned(),
        );
    }
    if options.wheel && !runs("maturin", &["--version"]) {
        missing.push(
            "maturin is not on PATH: `pip install maturin` (or pass --skip-wheel)".to_owned(),
        );
    }
    if let Some(installed) = installed_targets() {
        for target in &options.targets {
            if !installed.contains(target.triple) {
                missing.push(format!(
                    "the Rust target {0} is not installed: `rustup target add {0}`",
                    target.triple
                ));
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        // One line for each thing missing, each saying how to get it.
        Err(missing.join("\ncargo xtask dist: "))
    }
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The targets rustup has installed, or `None` without rustup (a toolchain installed
/// otherwise says itself what it lacks).
fn installed_targets() -> Option<BTreeSet<String>> {
    let output = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|line| line.trim().to_owned())
            .collect(),
    )
}

/// Runs a build step, saying how long it took.
fn run(what: &str, command: &mut Command) -> Result<(), String> {
    note(&format!("{what}: {command:?}"));
    let started = Instant::now();
    let status = command
        .status()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    if !status.success() {
        return Err(format!("{what} failed ({status})"));
    }
    note(&format!("{what}: {:.0} s", started.elapsed().as_secs_f64()));
    Ok(())
}

/// The profile the shipped binaries are built with unless `--profile` says otherwise
/// (Cargo.toml's `[profile.release-lto]`: the release profile with fat LTO and one codegen
/// unit).
const PROFILE: &str = "release-lto";

/// The release binary, with the default features only: what `cargo install ownerlint` gives,
/// built with the `release-lto` profile (or `--profile`'s).
fn build_binary(package: &Package, target: Target, profile: &str) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(&package.root)
        .args([if target.zig() { "zigbuild" } else { "build" }])
        .args([
            "--profile",
            profile,
            "--locked",
            "--package",
            "ownerlint",
            "--bin",
            "ownerlint",
        ])
        .args(["--target", target.triple]);
    run(&format!("the binary for {}", target.triple), &mut command)
}

fn built_binary(package: &Package, target: Target, profile: &str) -> Result<PathBuf, String> {
    let binary = package
        .target_dir
        .join(target.triple)
        .join(profile)
        .join(target.exe());
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "the build succeeded but left no {}",
            binary.display()
        ))
    }
}

/// `ownerlint-VERSION-TARGET/` holding the binary, the licences and the README, packed, with
/// its checksum in sha256sum's format beside it.
fn pack(package: &Package, target: Target, binary: &Path) -> Result<(), String> {
    let base = package.base(target);
    let name = package.archive(target);
    let path = package.dist().join(&name);
    // COPYING says which licences apply; krew's index wants a file of that kind of name
    // (LICENSE, COPYING…) in what it installs (kubernetes-sigs/krew,
    // cmd/validate-krew-manifest: `validateLicenseFileExists`).
    let documents = ["COPYING", "LICENSE-MIT", "LICENSE-APACHE", "README.md"];
    let written = if target.windows() {
        write_zip(
            &path,
            &base,
            binary,
            target.exe(),
            &package.root,
            &documents,
        )
    } else {
        write_tar_gz(
            &path,
            &base,
            binary,
            target.exe(),
            &package.root,
            &documents,
        )
    };
    written.map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let digest = sha256(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let checksum = package.dist().join(format!("{name}.sha256"));
    fs::write(&checksum, format!("{digest}  {name}\n"))
        .map_err(|e| format!("cannot write {}: {e}", checksum.display()))?;
    note(&format!("{name}: sha256 {digest}"));
    Ok(())
}

fn write_tar_gz(
    path: &Path,
    base: &str,
    binary: &Path,
    exe: &str,
    root: &Path,
    documents: &[&str],
) -> io::Result<()> {
    let gzip = flate2::write::GzEncoder::new(File::create(path)?, flate2::Compression::best());
    let mut tar = tar::Builder::new(gzip);
    tar.mode(tar::HeaderMode::Deterministic);
    let mut add = |source: &Path, name: &str, mode: u32| -> io::Result<()> {
        let data = fs::read(source)?;
        let mut header = tar::Header::new_gnu();
        // A regular file's type written out ('0'), not the old '\0' some readers guess at.
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(data.len() as u64);
        header.set_mode(mode);
        header.set_cksum();
        tar.append_data(&mut header, format!("{base}/{name}"), data.as_slice())
    };
    add(binary, exe, 0o755)?;
    for document in documents {
        add(&root.join(document), document, 0o644)?;
    }
    tar.into_inner()?.finish()?.sync_all()
}

fn write_zip(
    path: &Path,
    base: &str,
    binary: &Path,
    exe: &str,
    root: &Path,
    documents: &[&str],
) -> io::Result<()> {
    let mut zip = zip::ZipWriter::new(File::create(path)?);
    // The folder's own entry first: some unzippers (krew's among its versions) create only
    // the folders an archive lists.
    zip.add_directory(
        format!("{base}/"),
        zip::write::SimpleFileOptions::default().unix_permissions(0o755),
    )
    .map_err(io::Error::other)?;
    let mut add = |source: &Path, name: &str, mode: u32| -> io::Result<()> {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode);
        zip.start_file(format!("{base}/{name}"), options)
            .map_err(io::Error::other)?;
        zip.write_all(&fs::read(source)?)
    };
    add(binary, exe, 0o755)?;
    for document in documents {
        add(&root.join(document), document, 0o644)?;
    }
    zip.finish().map_err(io::Error::other)?.sync_all()
}

fn sha256(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        }))
}

/// The wheel (`bindings = "bin"` in pyproject.toml) that carries the release binary, built
/// by maturin with the default features only (`cargo zigbuild` for the Linux targets). A
/// static musl binary runs on every Linux, so its wheel is tagged for both glibc (manylinux)
/// and musl (musllinux) systems: pip on either takes it.
fn build_wheel(package: &Package, target: Target, profile: &str) -> Result<(), String> {
    let mut command = Command::new("maturin");
    command
        .current_dir(&package.root)
        .args(["build", "--profile", profile, "--locked"])
        .args(["--target", target.triple])
        .arg("--out")
        .arg(package.dist());
    if target.zig() {
        command.args([
            "--zig",
            "--compatibility",
            "manylinux_2_17",
            "musllinux_1_1",
        ]);
    }
    run(&format!("the wheel for {}", target.triple), &mut command)
}

/// krew's manifest: one platform for each archive whose checksum is in `target/dist/` (built
/// here, or copied there from the other runners' builds); the others are left out, said so.
fn write_krew_manifest(package: &Package) -> Result<(), String> {
    let dist = package.dist();
    let mut platforms = String::new();
    let mut left_out = Vec::new();
    for target in TARGETS {
        let name = package.archive(target);
        let checksum = dist.join(format!("{name}.sha256"));
        let digest = match fs::read_to_string(&checksum) {
            Ok(text) => parse_checksum(&text, &name).ok_or_else(|| {
                format!(
                    "{} is not one line `SHA256  {name}`; rebuild it with `cargo xtask dist --target {}`",
                    checksum.display(),
                    target.triple
                )
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                left_out.push(target.triple);
                continue;
            }
            Err(e) => return Err(format!("cannot read {}: {e}", checksum.display())),
        };
        let base = package.base(target);
        let _ = write!(
            platforms,
            "  - selector:\n      matchLabels:\n        os: {os}\n        arch: {arch}\n    \
             uri: {uri}\n    sha256: {digest}\n    files:\n    \
             - from: {base}/{exe}\n      to: .\n    \
             - from: {base}/COPYING\n      to: .\n    \
             - from: {base}/LICENSE-*\n      to: .\n    bin: {exe}\n",
            os = target.os,
            arch = target.arch,
            uri = format_args!(
                "{}/releases/download/v{}/{name}",
                package.repository, package.version
            ),
            exe = target.exe(),
        );
    }
    if platforms.is_empty() {
        return Err(format!(
            "no archive's .sha256 is in {}: nothing for the krew manifest",
            dist.display()
        ));
    }
    if !left_out.is_empty() {
        note(&format!(
            "ownerlint.yaml leaves out {} (no .sha256 in {}: build them there, or copy their .sha256 files in)",
            left_out.join(", "),
            dist.display()
        ));
    }
    // krew's plugin-manifest guide: a description of what the plugin does, in lines a
    // terminal shows whole (`kubectl krew info`), not a list of its commands.
    let description = wrap(
        &format!(
            "{}. As a kubectl plugin it can also check the current context's cluster, and \
             draw the ownership tree with what a delete would take with it.",
            package.description.replace('\n', " ").trim_end_matches('.')
        ),
        76,
    )
    .iter()
    .fold(String::new(), |mut text, line| {
        let _ = writeln!(text, "    {line}");
        text
    });
    let manifest = format!(
        "apiVersion: krew.googlecontainertools.github.com/v1alpha2\n\
         kind: Plugin\n\
         metadata:\n  name: ownerlint\n\
         spec:\n  version: v{version}\n  homepage: {homepage}\n  \
         shortDescription: Find broken ownerReferences in manifests and clusters\n  \
         description: |\n{description}  \
         platforms:\n{platforms}",
        version = package.version,
        homepage = package.repository,
    );
    let path = dist.join("ownerlint.yaml");
    fs::write(&path, manifest).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    note(&format!("{}: written", path.display()));
    Ok(())
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word stands alone).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The digest in sha256sum's line `HEX  NAME` for `name`.
fn parse_checksum(text: &str, name: &str) -> Option<String> {
    let (digest, file) = text.trim_end().split_once("  ")?;
    let valid = digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit());
    (valid && file == name && !text.trim_end().contains('\n')).then(|| digest.to_ascii_lowercase())
}

/// The VS Code extension, packaged by its own `package` script (`@vscode/vsce`).
fn build_vsix(package: &Package) -> Result<(), String> {
    let folder = package.root.join("editors/vscode");
    let manifest = folder.join("package.json");
    let text = fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not JSON: {e}", manifest.display()))?;
    if json["scripts"]["package"].as_str().is_none() {
        note("editors/vscode has no package script: the .vsix is not built");
        return Ok(());
    }
    let out = package
        .dist()
        .join(format!("ownerlint-{}.vsix", package.version));
    run("npm ci", Command::new("npm").current_dir(&folder).arg("ci"))?;
    run(
        "the .vsix",
        Command::new("npm")
            .current_dir(&folder)
            .args(["run", "package", "--", "--out"])
            .arg(&out),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width_and_keeps_every_word() {
        let text = "Find broken Kubernetes ownership (metadata.ownerReferences) in manifests, \
                    Helm charts, Kustomize overlays and live clusters.";
        let lines = wrap(text, 30);
        assert!(
            lines.iter().all(|line| line.chars().count() <= 30),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), text);
        assert_eq!(
            wrap("a (metadata.ownerReferences) b", 10),
            ["a", "(metadata.ownerReferences)", "b"]
        );
        assert!(wrap("", 10).is_empty());
    }

    #[test]
    fn a_release_is_built_with_fat_lto_unless_another_profile_is_named() {
        let parsed = |line: &str| parse(&args(line)).map(|options| options.profile);
        assert_eq!(
            parsed("dist --target x86_64-unknown-linux-musl"),
            Ok("release-lto")
        );
        assert_eq!(
            parsed("dist --target x86_64-unknown-linux-musl --profile release"),
            Ok("release")
        );
        assert_eq!(
            parsed("dist --profile=release --target x86_64-unknown-linux-musl"),
            Ok("release")
        );
        let unknown = parsed("dist --profile dev --target x86_64-unknown-linux-musl");
        assert!(
            unknown
                .as_ref()
                .is_err_and(|why| why.contains("release-lto") && why.contains("`--profile dev`")),
            "{unknown:?}"
        );
        assert!(parsed("dist --profile").is_err());
    }

    /// xtask/Cargo.toml lists ownerlint's dev-dependencies as its own dependencies, the same
    /// versions with the same features: so every crate the two share is built as the tests
    /// build it, and `cargo test --release --package xtask` after `cargo test --release` builds
    /// nothing again.
    #[test]
    fn xtask_depends_on_ownerlints_dev_dependencies_as_they_are_declared() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(cargo)
            .args(["metadata", "--locked", "--no-deps", "--format-version", "1"])
            .output()
            .expect("cargo metadata runs");
        assert!(output.status.success(), "{output:?}");
        let metadata: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
        let dependencies = |package: &str, kind: serde_json::Value| {
            let package = metadata["packages"]
                .as_array()
                .and_then(|packages| packages.iter().find(|p| p["name"] == package))
                .unwrap_or_else(|| panic!("no package {package}"));
            let mut found: Vec<String> = package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|dependency| dependency["kind"] == kind)
                .map(|dependency| {
                    let mut features: Vec<&str> = dependency["features"]
                        .as_array()
                        .expect("features")
                        .iter()
                        .filter_map(serde_json::Value::as_str)
                        .collect();
                    features.sort_unstable();
                    format!(
                        "{} {} default-features={} features={features:?}",
                        dependency["name"].as_str().expect("name"),
                        dependency["req"].as_str().expect("req"),
                        dependency["uses_default_features"],
                    )
                })
                .collect();
            found.sort();
            found
        };
        let tests = dependencies("ownerlint", "dev".into());
        let xtask = dependencies("xtask", serde_json::Value::Null);
        let missing: Vec<&String> = tests.iter().filter(|d| !xtask.contains(d)).collect();
        assert!(
            !tests.is_empty() && missing.is_empty(),
            "xtask/Cargo.toml must list these as in Cargo.toml's [dev-dependencies]: {missing:#?}"
        );
    }
}
