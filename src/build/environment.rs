//! The environment the tools run in: none of the user's but `PATH`, only what each needs. A
//! chart or an overlay is not to read the user's tokens, keys or settings through its tool,
//! nor have the tool run other programs (`git` for a remote base, helm's plugins), nor reach
//! the network; and what is built does not depend on the shell ownerlint runs in. Each build
//! gets a private temporary folder (mode 0700), removed with it, as its home, its temporary
//! folder and helm's folders. `PATH` stays the user's, so that a `kubectl` or `helm` that is a
//! version manager's shim (a script that runs the real one) still runs; what the tools could
//! start from it is shut instead: helm has no plugin, and git, the one program kustomize runs,
//! may use no transport at all (`GIT_ALLOW_PROTOCOL` empty) unless remote bases are allowed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A closed local address: a proxy that no request gets through, so that a download no check
/// foresaw cannot leave the machine (Go's HTTP client, which helm and kustomize use, sends
/// every request to `HTTPS_PROXY` or `HTTP_PROXY`, and resolves no name itself).
const NO_NETWORK: &str = "http://127.0.0.1:9";

/// The proxy variables, as Go's HTTP client and git read them.
const PROXY_VARIABLES: [&str; 6] = [
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// What a build's tool may have of the user's environment when remote bases are allowed: where
/// `git` and `ssh` are and their settings (the user's home, `~/.gitconfig`, `~/.ssh`), the SSH
/// agent, the proxies and the certificates the network is reached through.
const FETCH_VARIABLES: [&str; 6] = [
    "HOME",
    "SSH_AUTH_SOCK",
    "XDG_CONFIG_HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "GIT_SSH_COMMAND",
];

/// A build's private folder: its home, temporary folder and helm's folders.
pub(super) struct ToolHome {
    dir: super::running::Folder,
}

impl ToolHome {
    pub(super) fn new() -> std::io::Result<ToolHome> {
        let dir = super::running::private_folder("ownerlint-tool-")?;
        for sub in [
            "home",
            "tmp",
            "helm/plugins",
            "helm/cache",
            "helm/config",
            "helm/data",
        ] {
            std::fs::create_dir_all(dir.path().join(sub))?;
        }
        Ok(ToolHome { dir })
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// A file of the build's own (its values), in the folder no one else reads.
    pub(super) fn file(&self, name: &str) -> PathBuf {
        self.path("tmp").join(name)
    }

    /// The environment of `helm template`: helm's folders are private and empty (no plugin,
    /// no repository, no registry login), and it has no kubeconfig and no network.
    pub(super) fn helm(&self, command: &mut Command) {
        self.common(command);
        command
            .env("HELM_PLUGINS", self.path("helm/plugins"))
            .env("HELM_CACHE_HOME", self.path("helm/cache"))
            .env("HELM_CONFIG_HOME", self.path("helm/config"))
            .env("HELM_DATA_HOME", self.path("helm/data"));
        no_network(command);
    }

    /// The environment of `kustomize build` (or `kubectl kustomize`): with no kubeconfig, and,
    /// unless remote bases are allowed, a `git` that may fetch nothing and no network. When
    /// they are, `git`
    /// runs as the user runs it (their `PATH`, home, SSH agent and proxies), over HTTPS and SSH
    /// only, and never asks for a password.
    pub(super) fn kustomize(&self, command: &mut Command, allow_remote: bool) {
        self.common(command);
        if !allow_remote {
            // An empty list of protocols allows none: not `file` either, whose
            // `--upload-pack` would run a program.
            command.env("GIT_ALLOW_PROTOCOL", "");
            no_network(command);
            return;
        }
        for name in FETCH_VARIABLES.iter().chain(&PROXY_VARIABLES) {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        command
            .env("GIT_ALLOW_PROTOCOL", "https:ssh")
            .env("GIT_TERMINAL_PROMPT", "0");
        // ssh asks on the terminal for a password or to trust a new host: the build runs in a
        // process group of its own, which a terminal stops when it reads.
        if std::env::var_os("GIT_SSH_COMMAND").is_none() {
            command.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
        }
    }

    /// What every tool gets: nothing of the user's environment but `PATH`; a private home and
    /// temporary folder, and no kubeconfig.
    fn common(&self, command: &mut Command) {
        command.env_clear();
        // Windows' programs need the system's folder to start.
        #[cfg(windows)]
        for name in ["SystemRoot", "SystemDrive", "windir"] {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        let home = self.path("home");
        let tmp = self.path("tmp");
        command
            .env("HOME", &home)
            .env("USERPROFILE", &home)
            .env("TMPDIR", &tmp)
            .env("TEMP", &tmp)
            .env("TMP", &tmp)
            .env("KUBECONFIG", null_device());
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
    }
}

/// Every proxy variable set to the closed address, and no host excepted.
fn no_network(command: &mut Command) {
    for name in &PROXY_VARIABLES[..4] {
        command.env(name, NO_NETWORK);
    }
}

/// The empty file of this system, as a kubeconfig that names no cluster.
fn null_device() -> &'static Path {
    Path::new(if cfg!(windows) { "NUL" } else { "/dev/null" })
}
