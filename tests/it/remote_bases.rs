//! What an overlay names elsewhere is not fetched: kustomize clones a remote base with `git`,
//! whose arguments the reference chooses (`?ref=--upload-pack=CMD` runs CMD), and downloads any
//! file named by an `http(s)://` URL. Every kustomization a build reads is looked at first; an
//! overlay that names a remote reference, or a base that is no file or folder here, is reported
//! as not built, unless `--allow-remote-bases` lets kustomize fetch it (and never a reference
//! with a part that starts with `-`). The tools get none of the user's environment, and no
//! process they start outlives their build.
//!
//! The probes run the real `kubectl kustomize` (and `git`, `ssh`): without them they are
//! skipped, and under `CI=true` they fail. The other tests put a stand-in `kustomize` (found
//! before `kubectl`) and `helm` first on `PATH`, which record whether and how they ran.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A reference that makes `git fetch` run `touch MARKER` (kustomize 5 hands `ref` to `git
/// fetch` as an argument).
fn upload_pack_probe(marker: &Path) -> String {
    format!(
        "file:///nonexistent/repo?ref=--upload-pack=touch%20{}",
        marker.display()
    )
}

fn run_in(dir: &Path, args: &[&str], path: Option<&std::ffi::OsStr>) -> common::Run {
    let run = common::ownerlint()
        .current_dir(dir)
        .args(["--format", "short"])
        .args(args);
    match path {
        Some(path) => run.env("PATH", path),
        None => run,
    }
    .run()
}

#[test]
fn the_upload_pack_probe_runs_nothing_from_the_command_line_the_hook_or_with_the_flag() {
    let (Some(_), Some(git)) = (
        common::kubectl(),
        common::require_tool("git", "install git, which kustomize runs for remote bases"),
    ) else {
        return;
    };
    let dir = common::temp_dir("remote-probe");
    let marker = dir.path().join("PWNED");
    let reference = upload_pack_probe(&marker);
    common::write_files(
        dir.path(),
        &[(
            "kustomization.yaml",
            &format!("resources:\n- \"{reference}\"\n"),
        )],
    );
    common::git(&git, dir.path(), &["init", "-q"]);
    common::git(&git, dir.path(), &["add", "."]);
    common::git(&git, dir.path(), &["commit", "-q", "-m", "overlay"]);
    let refused = format!(
        "kustomization.yaml:2:3: error[render-failed]: resources entry \"{reference}\" \
         (kustomization.yaml:2) is remote and was not fetched: remote bases, resources and files \
         are fetched only with --allow-remote-bases; nothing it builds was checked (from \
         {} .)",
        common::kustomize_command()
    );
    // `ownerlint DIR`, and the pre-commit hook's way (`.pre-commit-hooks.yaml`: the changed
    // file, with the repository as the project).
    for args in [
        &["."][..],
        &["--project", ".", "--git-deletions", "kustomization.yaml"],
    ] {
        let run = run_in(dir.path(), args, None);
        assert_eq!(
            run.code(),
            Some(1),
            "{args:?}: {}{}",
            run.stdout,
            run.stderr
        );
        assert_eq!(run.stdout.trim_end(), refused, "{args:?}");
        assert!(
            !marker.exists(),
            "{args:?}: git ran the reference's command"
        );
    }
    // Allowed, a reference with a part that git would take for an option is still refused.
    let run = run_in(dir.path(), &["--allow-remote-bases", "."], None);
    assert_eq!(run.code(), Some(1), "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout.trim_end(),
        format!(
            "kustomization.yaml:2:3: error[render-failed]: resources entry \"{reference}\" \
             (kustomization.yaml:2) was not fetched: its part \"--upload-pack=touch {}\" starts \
             with \"-\", which git would take for an option, so it is not fetched even with \
             --allow-remote-bases; nothing it builds was checked (from {} .)",
            marker.display(),
            common::kustomize_command()
        )
    );
    assert!(!marker.exists(), "git ran the reference's command");
}

#[test]
fn allowed_remote_bases_reach_git_over_https_and_ssh_only() {
    let (Some(_), Some(git)) = (
        common::kubectl(),
        common::require_tool("git", "install git, which kustomize runs for remote bases"),
    ) else {
        return;
    };
    // A real repository on this machine, named by a `file://` URL: kustomize would clone it,
    // and git refuses the protocol.
    let dir = common::temp_dir("remote-file-protocol");
    let repo = dir.path().join("repo");
    common::write_files(
        &repo,
        &[
            ("base/kustomization.yaml", "resources:\n- cm.yaml\n"),
            (
                "base/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
            ),
        ],
    );
    common::git(&git, &repo, &["init", "-q"]);
    common::git(&git, &repo, &["add", "."]);
    common::git(&git, &repo, &["commit", "-q", "-m", "base"]);
    let overlay = dir.path().join("overlay");
    common::write_files(
        &overlay,
        &[(
            "kustomization.yaml",
            &format!("resources:\n- file://{}//base\n", repo.display()),
        )],
    );
    let run = run_in(&overlay, &["--allow-remote-bases", "."], None);
    assert_eq!(run.code(), Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "error[render-failed]: {} failed:",
            common::kustomize_command()
        )) && run.stdout.contains("transport 'file' not allowed"),
        "{}",
        run.stdout
    );
}

/// A folder holding a stand-in `kustomize` that records that it ran, and `PATH` with it first.
fn stand_in_kustomize() -> (tempfile::TempDir, PathBuf, std::ffi::OsString) {
    use std::os::unix::fs::PermissionsExt;
    let tools = common::temp_dir("remote-stand-in");
    let ran = tools.path().join("ran");
    let kustomize = tools.path().join("kustomize");
    std::fs::write(
        &kustomize,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\n", ran.display()),
    )
    .expect("write");
    std::fs::set_permissions(&kustomize, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::join_paths([
        tools.path().to_path_buf(),
        PathBuf::from("/bin"),
        PathBuf::from("/usr/bin"),
    ])
    .expect("PATH");
    (tools, ran, path)
}

/// Files to write, by path below a folder.
type Files<'a> = &'a [(&'a str, &'a str)];

#[test]
#[cfg(unix)]
fn remote_references_of_every_kind_and_missing_bases_are_refused_before_kustomize_runs() {
    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n";
    let flag = "is remote and was not fetched: remote bases, resources and files are fetched only \
                with --allow-remote-bases";
    // Each overlay, and the line the refusal names (its file, line and column).
    let cases: [(&str, Files, String); 9] = [
        (
            "an https resource",
            &[(
                "kustomization.yaml",
                "resources:\n- https://example.com/deploy.yaml\n",
            )],
            format!(
                "kustomization.yaml:2:3: error[render-failed]: resources entry \
                 \"https://example.com/deploy.yaml\" (kustomization.yaml:2) {flag}"
            ),
        ),
        (
            "a GitHub base",
            &[(
                "kustomization.yaml",
                "bases:\n- github.com/org/repo//x?ref=v1\n",
            )],
            format!(
                "kustomization.yaml:2:3: error[render-failed]: bases entry \
                 \"github.com/org/repo//x?ref=v1\" (kustomization.yaml:2) {flag}"
            ),
        ),
        (
            "an scp-like base",
            &[(
                "kustomization.yaml",
                "resources:\n- cm.yaml\n- git@github.com:org/repo.git\n",
            )],
            format!(
                "kustomization.yaml:3:3: error[render-failed]: resources entry \
                 \"git@github.com:org/repo.git\" (kustomization.yaml:3) {flag}"
            ),
        ),
        (
            "a remote component",
            &[(
                "kustomization.yaml",
                "resources:\n- cm.yaml\ncomponents:\n- https://github.com/org/repo//components/x?ref=v1\n",
            )],
            format!(
                "kustomization.yaml:4:3: error[render-failed]: components entry \
                 \"https://github.com/org/repo//components/x?ref=v1\" (kustomization.yaml:4) \
                 {flag}"
            ),
        ),
        (
            "a remote patch",
            &[(
                "kustomization.yaml",
                "resources:\n- cm.yaml\npatches:\n- path: https://example.com/patch.yaml\n",
            )],
            format!(
                "kustomization.yaml:4:9: error[render-failed]: patches path entry \
                 \"https://example.com/patch.yaml\" (kustomization.yaml:4) {flag}"
            ),
        ),
        (
            "a generator's remote file",
            &[(
                "kustomization.yaml",
                "configMapGenerator:\n- name: settings\n  files:\n  - app.conf=https://example.com/app.conf\n",
            )],
            format!(
                "kustomization.yaml:4:5: error[render-failed]: configMapGenerator files entry \
                 \"https://example.com/app.conf\" (kustomization.yaml:4) {flag}"
            ),
        ),
        (
            "a transformer configuration's remote patch, in its own file",
            &[
                (
                    "kustomization.yaml",
                    "resources:\n- cm.yaml\ntransformers:\n- patch.yaml\n",
                ),
                (
                    "patch.yaml",
                    "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: https://example.com/patch.yaml\n",
                ),
            ],
            format!(
                "patch.yaml:5:7: error[render-failed]: path entry \
                 \"https://example.com/patch.yaml\" (patch.yaml:5) {flag}"
            ),
        ),
        (
            "a local base's remote resource",
            &[
                ("kustomization.yaml", "resources:\n- base\n"),
                (
                    "base/kustomization.yaml",
                    "resources:\n- cm.yaml\n- https://example.com/more.yaml\n",
                ),
                ("base/cm.yaml", CM),
            ],
            format!(
                "base/kustomization.yaml:3:3: error[render-failed]: resources entry \
                 \"https://example.com/more.yaml\" (base/kustomization.yaml:3) {flag}"
            ),
        ),
        (
            "a missing local base",
            &[(
                "kustomization.yaml",
                "resources:\n- cm.yaml\n- ../missing\n",
            )],
            "kustomization.yaml:3:3: error[render-failed]: resources entry \"../missing\" \
             (kustomization.yaml:3) is not a file or folder here, or leads outside the repository, \
             so kustomize was not run (it would take it for a repository to clone): fix the path, \
             or take it out of resources"
                .to_string(),
        ),
    ];
    let (_tools, ran, path) = stand_in_kustomize();
    for (what, files, expected) in cases {
        let dir = common::temp_dir("remote-refused");
        common::write_files(dir.path(), &[("cm.yaml", CM)]);
        common::write_files(dir.path(), files);
        for args in [&["."][..], &["--allow-remote-bases", "."]] {
            let run = run_in(dir.path(), args, Some(&path));
            let allowed = args.len() == 2;
            if allowed && !expected.contains("is not a file or folder") {
                // Allowed, the stand-in builds it (nothing).
                assert_eq!(run.code(), Some(0), "{what}: {}{}", run.stdout, run.stderr);
                assert!(ran.exists(), "{what}: kustomize did not run");
                continue;
            }
            assert_eq!(run.code(), Some(1), "{what}: {}{}", run.stdout, run.stderr);
            assert_eq!(
                run.stdout.trim_end(),
                format!("{expected}; nothing it builds was checked (from kustomize build .)"),
                "{what}"
            );
            assert!(!ran.exists(), "{what}: kustomize ran");
        }
        let _ = std::fs::remove_file(&ran);
    }
}

#[test]
#[cfg(unix)]
fn the_tools_get_none_of_the_users_environment() {
    use std::os::unix::fs::PermissionsExt;
    // Stand-ins that write down their environment.
    let tools = common::temp_dir("remote-environment");
    let dump = |tool: &str| tools.path().join(format!("{tool}.env"));
    for tool in ["helm", "kustomize"] {
        let script = tools.path().join(tool);
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\n/usr/bin/env > '{}'\nexit 0\n",
                dump(tool).display()
            ),
        )
        .expect("write");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let user_path = std::env::join_paths([
        tools.path().to_path_buf(),
        PathBuf::from("/bin"),
        PathBuf::from("/usr/bin"),
    ])
    .expect("PATH");
    let secret = format!(
        "s3cr3t-{}",
        tools
            .path()
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
    );
    let dir = common::temp_dir("remote-environment-inputs");
    common::write_files(
        dir.path(),
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
            ),
            (
                "chart/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
            ),
            ("overlay/kustomization.yaml", "resources:\n- cm.yaml\n"),
            (
                "overlay/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
            ),
        ],
    );
    let home = dir.path().join("home");
    let run = |args: &[&str]| {
        let mut ownerlint = common::ownerlint();
        // Only what the test sets of what a fetch may be given.
        for name in [
            "XDG_CONFIG_HOME",
            "SSL_CERT_FILE",
            "SSL_CERT_DIR",
            "GIT_SSH_COMMAND",
            "HTTP_PROXY",
            "http_proxy",
            "https_proxy",
            "NO_PROXY",
            "no_proxy",
        ] {
            ownerlint = ownerlint.env_remove(name);
        }
        ownerlint
            .current_dir(dir.path())
            .args(args)
            .args(["chart", "overlay"])
            .env("PATH", &user_path)
            .env("HOME", &home)
            .env("OWNERLINT_PROBE_SECRET", &secret)
            .env("SSH_AUTH_SOCK", "/run/agent.sock")
            .env("HTTPS_PROXY", "http://proxy.example:3128")
            .env("KUBECONFIG", "/somewhere/config")
            .env("HELM_NAMESPACE", "from-the-shell")
            .env("HELM_PLUGINS", "/somewhere/plugins")
            .env("GIT_CONFIG_GLOBAL", "/somewhere/gitconfig")
            .run()
    };
    let environment = |tool: &str| -> Vec<(String, String)> {
        let text = std::fs::read_to_string(dump(tool)).expect("the stand-in ran");
        assert!(!text.contains(&secret), "{tool} saw the secret:\n{text}");
        text.lines()
            .filter_map(|line| line.split_once('='))
            // What the shell running the stand-in sets for itself.
            .filter(|(name, _)| !["PWD", "OLDPWD", "SHLVL", "_"].contains(name))
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    };
    let names = |environment: &[(String, String)]| -> Vec<String> {
        let mut names: Vec<String> = environment.iter().map(|(n, _)| n.clone()).collect();
        names.sort_unstable();
        names
    };
    let value = |environment: &[(String, String)], name: &str| {
        environment
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let output = run(&[]);
    assert_eq!(output.code(), Some(0), "{}{}", output.stdout, output.stderr);
    let private = ["HOME", "TMPDIR", "TEMP", "TMP", "USERPROFILE"];
    let closed = ["HTTPS_PROXY", "HTTP_PROXY", "http_proxy", "https_proxy"];
    for tool in ["helm", "kustomize"] {
        let env = environment(tool);
        let mut expected: Vec<&str> = private
            .iter()
            .chain(&closed)
            .chain(&["KUBECONFIG", "PATH"])
            .copied()
            .collect();
        if tool == "kustomize" {
            // git, the one program kustomize runs, may use no transport.
            expected.push("GIT_ALLOW_PROTOCOL");
        }
        if tool == "helm" {
            expected.extend([
                "HELM_CACHE_HOME",
                "HELM_CONFIG_HOME",
                "HELM_DATA_HOME",
                "HELM_PLUGINS",
            ]);
        }
        expected.sort_unstable();
        assert_eq!(names(&env), expected, "{tool}: {env:?}");
        for name in private {
            assert!(
                value(&env, name).contains("ownerlint-tool-"),
                "{tool}: {name} is not its own: {env:?}"
            );
        }
        for name in closed {
            assert_eq!(value(&env, name), "http://127.0.0.1:9", "{tool}");
        }
        assert_eq!(value(&env, "KUBECONFIG"), "/dev/null", "{tool}");
        // The user's programs, so that a version manager's shim still runs the real tool.
        assert_eq!(value(&env, "PATH"), user_path.to_string_lossy(), "{tool}");
        if tool == "kustomize" {
            assert_eq!(value(&env, "GIT_ALLOW_PROTOCOL"), "", "{env:?}");
        }
    }
    // Allowed, kustomize runs git as the user runs it, over HTTPS and SSH only; still with
    // no secret, no kubeconfig and nothing of git's that the user did not choose for fetching.
    let output = run(&["--allow-remote-bases"]);
    assert_eq!(output.code(), Some(0), "{}{}", output.stdout, output.stderr);
    let env = environment("kustomize");
    assert_eq!(
        names(&env),
        [
            "GIT_ALLOW_PROTOCOL",
            "GIT_SSH_COMMAND",
            "GIT_TERMINAL_PROMPT",
            "HOME",
            "HTTPS_PROXY",
            "KUBECONFIG",
            "PATH",
            "SSH_AUTH_SOCK",
            "TEMP",
            "TMP",
            "TMPDIR",
            "USERPROFILE",
        ],
        "{env:?}"
    );
    assert_eq!(value(&env, "GIT_ALLOW_PROTOCOL"), "https:ssh");
    assert_eq!(value(&env, "GIT_TERMINAL_PROMPT"), "0");
    assert_eq!(value(&env, "GIT_SSH_COMMAND"), "ssh -o BatchMode=yes");
    assert_eq!(value(&env, "HOME"), home.display().to_string());
    assert_eq!(value(&env, "PATH"), user_path.to_string_lossy());
    assert_eq!(value(&env, "SSH_AUTH_SOCK"), "/run/agent.sock");
    assert_eq!(value(&env, "HTTPS_PROXY"), "http://proxy.example:3128");
    assert_eq!(value(&env, "KUBECONFIG"), "/dev/null");
}

/// A TCP server on this machine that takes every connection and never says a word, and counts
/// them.
fn silent_server() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = std::sync::Arc::clone(&accepted);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            held.push(stream);
        }
    });
    (port, accepted)
}

/// The processes still running whose command line holds `marker`.
#[cfg(target_os = "linux")]
fn running_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let dir = entry.path();
        let Ok(command) = std::fs::read(dir.join("cmdline")) else {
            continue;
        };
        let command = String::from_utf8_lossy(&command).replace('\0', " ");
        // A zombie has ended too: it waits for whoever adopted it.
        let zombie = std::fs::read_to_string(dir.join("stat")).is_ok_and(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, s)| s.starts_with('Z'))
        });
        if command.contains(marker) && !zombie {
            found.push(command);
        }
    }
    found
}

#[test]
#[cfg(target_os = "linux")]
fn a_remote_base_that_never_answers_leaves_no_process_behind() {
    let (Some(_), Some(_), Some(_)) = (
        common::kubectl(),
        common::require_tool("git", "install git, which kustomize runs for remote bases"),
        common::require_tool(
            "ssh",
            "install an ssh client, which git runs for ssh:// bases",
        ),
    ) else {
        return;
    };
    let (port, accepted) = silent_server();
    let dir = common::temp_dir("remote-silent");
    let marker = format!(
        "ownerlint-silent-{}",
        dir.path().file_name().unwrap_or_default().to_string_lossy()
    );
    // kustomize runs `git fetch`, which runs ssh, which connects and waits for the server's
    // greeting: stopped by ownerlint's timeout, then by kustomize's own (`?timeout=1`), after
    // which kustomize exits and leaves them to ownerlint.
    let failed = format!("{} failed", common::kustomize_command());
    for (query, render_timeout, stopped) in [
        (
            "",
            "3",
            "it had not finished after 3 seconds, and was stopped",
        ),
        ("?timeout=1", "60", failed.as_str()),
    ] {
        let before = accepted.load(std::sync::atomic::Ordering::SeqCst);
        common::write_files(
            dir.path(),
            &[(
                "kustomization.yaml",
                &format!(
                    "resources:\n- ssh://git@127.0.0.1:{port}/{marker}/repo.git//base{query}\n"
                ),
            )],
        );
        let start = Instant::now();
        let run = run_in(
            dir.path(),
            &[
                "--allow-remote-bases",
                "--render-timeout",
                render_timeout,
                ".",
            ],
            None,
        );
        let took = start.elapsed();
        assert_eq!(run.code(), Some(1), "{}{}", run.stdout, run.stderr);
        assert!(run.stdout.contains(stopped), "{}", run.stdout);
        assert!(took < Duration::from_secs(30), "ownerlint took {took:?}");
        assert!(
            accepted.load(std::sync::atomic::Ordering::SeqCst) > before,
            "git never connected: {}",
            run.stdout
        );
        let mut left = running_with(&marker);
        let waited = Instant::now();
        while !left.is_empty() && waited.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(100));
            left = running_with(&marker);
        }
        assert!(
            left.is_empty(),
            "still running after ownerlint ended: {left:?}"
        );
    }
}

#[test]
#[cfg(unix)]
fn an_overlay_that_inflates_a_helm_chart_is_refused_and_helm_never_runs() {
    use std::os::unix::fs::PermissionsExt;
    if common::kubectl().is_none() {
        return;
    }
    let dir = common::temp_dir("helm-charts");
    let tools = common::temp_dir("helm-charts-stand-in");
    let marker = tools.path().join("helm-ran");
    let helm = tools.path().join("helm");
    std::fs::write(&helm, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).expect("write");
    std::fs::set_permissions(&helm, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::join_paths(std::iter::once(tools.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    common::write_files(
        dir.path(),
        &[(
            "kustomization.yaml",
            "helmCharts:\n- name: minecraft\n  repo: https://itzg.github.io/minecraft-server-charts\n  version: 3.1.3\n  releaseName: moria\n",
        )],
    );
    let run = run_in(dir.path(), &["."], Some(&path));
    assert_eq!(run.code(), Some(1), "{}{}", run.stdout, run.stderr);
    // kustomize inflates a chart with helm only when told `--enable-helm`, which ownerlint
    // never passes: the overlay is not built.
    assert!(
        run.stdout
            .starts_with("kustomization.yaml:1:1: error[render-failed]: ")
            && run.stdout.contains("HelmChartInflationGenerator")
            && run.stdout.contains("must specify --enable-helm"),
        "{}",
        run.stdout
    );
    assert!(!marker.exists(), "helm ran for the overlay's helmCharts");
}

/// The help of a refusal never says to build the overlay to see the error (that would fetch
/// what was refused): it says how to do without the remote reference, or the flag.
#[test]
fn a_refusal_helps_without_fetching() {
    let dir = common::temp_dir("remote-help");
    let cases = [
        (
            "resources:\n- https://example.com/base.yaml\n",
            vec![],
            "copy what it names into the repository, or pass --allow-remote-bases if you trust \
             where it comes from",
        ),
        (
            "resources:\n- https://example.com/org/repo//base?ref=-x\n",
            vec!["--allow-remote-bases"],
            "take the reference out: git would run with what it says as an option",
        ),
        (
            "resources:\n- ../missing\n",
            vec![],
            "fix the path (a base is a folder with a kustomization in the repository), or take \
             the entry out",
        ),
    ];
    for (kustomization, flags, help) in cases {
        common::write_files(dir.path(), &[("kustomization.yaml", kustomization)]);
        let run = common::ownerlint()
            .current_dir(dir.path())
            .args(["--format", "json"])
            .args(&flags)
            .arg(".")
            .run();
        let report: serde_json::Value =
            serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
        let helps: Vec<&str> = report["findings"]
            .as_array()
            .map(|findings| findings.iter().filter_map(|f| f["help"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(helps, [help], "{kustomization}");
    }
}
