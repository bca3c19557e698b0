//! ownerlint as a kubectl plugin: the binary, on `PATH` as `kubectl-ownerlint` (as krew installs
//! it), run by the real kubectl as `kubectl ownerlint`. kubectl must be on `PATH`; without it
//! the tests are skipped, and under `CI=true` they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{self, Run};

/// A folder holding only `kubectl-ownerlint`, a link to the binary under test.
struct Plugin {
    dir: tempfile::TempDir,
    kubectl: PathBuf,
}

fn plugin() -> Option<Plugin> {
    let kubectl = common::kubectl()?;
    let dir = common::temp_dir("kubectl-plugin");
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_ownerlint"),
        dir.path().join("kubectl-ownerlint"),
    )
    .expect("link kubectl-ownerlint to the binary");
    Some(Plugin { dir, kubectl })
}

impl Plugin {
    /// `kubectl ARGS`, with `PATH` the plugin's folder and kubectl's, and no kubeconfig from
    /// the environment.
    fn kubectl(&self, args: &[&str], kubeconfig: Option<&Path>) -> Run {
        let kubectl_dir = self.kubectl.parent().expect("kubectl is in a folder");
        let path = std::env::join_paths([self.dir.path(), kubectl_dir]).expect("a PATH");
        let mut command = Command::new(&self.kubectl);
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("PATH", path)
            .env("HOME", self.dir.path())
            .env_remove("KUBECONFIG")
            .env_remove("NO_COLOR")
            .env_remove("COLUMNS")
            .stdin(std::process::Stdio::null());
        if let Some(kubeconfig) = kubeconfig {
            command.env("KUBECONFIG", kubeconfig);
        }
        let out = command.output().expect("kubectl runs");
        Run {
            status: out.status,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout_bytes: out.stdout,
            stderr_bytes: out.stderr,
        }
    }
}

/// `kubectl ownerlint rules` is `ownerlint rules`, and `kubectl plugin list` finds the plugin.
#[test]
fn kubectl_runs_the_plugin_and_lists_it() {
    let Some(plugin) = plugin() else { return };
    let run = plugin.kubectl(&["ownerlint", "rules"], None);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    let direct = common::ownerlint().arg("rules").run();
    assert_eq!(run.stdout, direct.stdout);
    assert!(run.stdout.contains("banned-owner"), "{}", run.stdout);

    let listed = plugin.kubectl(&["plugin", "list"], None);
    assert_eq!(listed.status.code(), Some(0), "{}", listed.stderr);
    let link = plugin.dir.path().join("kubectl-ownerlint");
    assert!(
        listed
            .stdout
            .lines()
            .any(|line| line.trim() == link.to_string_lossy()),
        "{}{}",
        listed.stdout,
        listed.stderr
    );
}

/// Run by kubectl, usage, help and errors name the command as the user typed it, `kubectl
/// ownerlint`, not the plugin's file name.
#[test]
fn usage_help_and_errors_say_kubectl_ownerlint() {
    let Some(plugin) = plugin() else { return };
    let help = plugin.kubectl(&["ownerlint", "tree", "--help"], None);
    assert_eq!(help.status.code(), Some(0), "{}", help.stderr);
    assert!(
        help.stdout
            .contains("Usage: kubectl ownerlint tree [OPTIONS]"),
        "{}",
        help.stdout
    );
    let wrong = plugin.kubectl(&["ownerlint", "--no-such-flag"], None);
    assert_eq!(wrong.status.code(), Some(2), "{}", wrong.stderr);
    assert!(
        wrong.stderr.contains("Usage: kubectl ownerlint "),
        "{}",
        wrong.stderr
    );
    let mistyped = plugin.kubectl(&["ownerlint", "clustr"], None);
    assert_eq!(mistyped.status.code(), Some(2), "{}", mistyped.stderr);
    assert!(
        mistyped
            .stderr
            .starts_with("kubectl ownerlint: `clustr` is neither"),
        "{}",
        mistyped.stderr
    );
    for run in [&help, &wrong, &mistyped] {
        assert!(
            !format!("{}{}", run.stdout, run.stderr).contains("kubectl-ownerlint"),
            "{}{}",
            run.stdout,
            run.stderr
        );
    }
    // Run directly, ownerlint is `ownerlint` as before.
    let direct = common::ownerlint().arg("--no-such-flag").run();
    assert!(
        direct.stderr.contains("Usage: ownerlint "),
        "{}",
        direct.stderr
    );
}

/// `kubectl ownerlint tree --cluster deploy/api` reads the cluster of the kubeconfig kubectl
/// was given (`KUBECONFIG`), as `ownerlint tree --cluster` does.
#[cfg(feature = "cluster")]
#[test]
fn kubectl_ownerlint_reads_the_cluster_of_the_kubeconfig() {
    use crate::api_server::{ApiServer, TOKEN};
    let Some(plugin) = plugin() else { return };
    let server = ApiServer::start(Box::new(|_, _| None));
    let kubeconfig = server.kubeconfig(plugin.dir.path(), serde_json::json!({ "token": TOKEN }));
    let run = plugin.kubectl(
        &[
            "ownerlint",
            "tree",
            "--cluster",
            "deploy/api",
            "--no-config",
            "-n",
            "fp-shop",
        ],
        Some(&kubeconfig),
    );
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Deployment fp-shop/api\n\
         └── ReplicaSet fp-shop/api-58c789b784  [controller, blocks owner deletion]\n    \
         └── Pod fp-shop/api-58c789b784-xmnlp  [controller, blocks owner deletion]\n"
    );
    assert!(!server.asked().is_empty());
}
