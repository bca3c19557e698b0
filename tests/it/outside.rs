//! What a repository holds never makes a run read a file outside it: a chart or an overlay is
//! built from a private copy of its files, in which a symbolic link that leads outside the
//! repository is left out (and reported as `link-outside-repository`); a message taken from a
//! tool is bounded; and a path in `.ownerlint.yaml` that leads outside is a configuration
//! error. Each hostile case plants a real secret (in ownerlint's environment, or in a file
//! beside the repository) and looks for it in every output format.

use crate::common;

use std::path::Path;

/// `ownerlint --format FORMAT .` in `dir`, for every format, with `secret` in its
/// environment: what each printed (standard output and standard error), by format name.
fn every_format(dir: &Path, secret: &str) -> Vec<(String, common::Run)> {
    common::formats()
        .into_iter()
        .map(|(_, name)| {
            let run = common::ownerlint()
                .current_dir(dir)
                .args(["--format", &name, "."])
                .env("NO_COLOR", "1")
                .env("OWNERLINT_PROBE", secret)
                .run();
            (name, run)
        })
        .collect()
}

/// A secret no output holds by chance.
fn unique_secret(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{what}-{}-{nanos}", std::process::id())
}

/// Every format's output holds none of `secrets`, and names each of `links`, reported as
/// `link-outside-repository`.
fn assert_left_out(runs: &[(String, common::Run)], secrets: &[&str], links: &[&str]) {
    for (format, run) in runs {
        let printed = format!("{}{}", run.stdout, run.stderr);
        for secret in secrets {
            assert!(
                !printed.contains(secret),
                "--format {format} shows what a link outside the repository names:\n{printed}"
            );
        }
        assert!(
            run.stdout.contains("link-outside-repository"),
            "--format {format} does not report the link:\n{printed}"
        );
        for link in links {
            assert!(
                run.stdout.contains(link),
                "--format {format} does not name {link}:\n{printed}"
            );
        }
    }
}

#[test]
#[cfg(unix)]
fn a_chart_never_reads_the_process_environment_or_a_file_outside_the_repository() {
    if common::helm().is_none() {
        return;
    }
    let outside = common::temp_dir("outside-file");
    let file_secret = unique_secret("file-secret");
    std::fs::write(outside.path().join("secret.txt"), &file_secret).expect("write");
    let repo = common::temp_dir("outside-chart");
    common::write_files(
        repo.path(),
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
            ),
            (
                "chart/templates/x.yaml",
                "{{ fail (print (.Files.Get \"files/e\") (.Files.Get \"files/s\")) }}\n",
            ),
        ],
    );
    std::fs::create_dir_all(repo.path().join("chart/files")).expect("mkdir");
    std::os::unix::fs::symlink("/proc/self/environ", repo.path().join("chart/files/e"))
        .expect("symlink");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        repo.path().join("chart/files/s"),
    )
    .expect("symlink");
    let secret = unique_secret("environment-secret");
    let runs = every_format(repo.path(), &secret);
    assert_left_out(
        &runs,
        &[&secret, &file_secret],
        &["chart/files/e", "chart/files/s"],
    );
    let short = &runs
        .iter()
        .find(|(format, _)| format == "short")
        .expect("the short format")
        .1;
    assert!(
        short.stdout.contains(
            "chart/files/e:1:1: warning[link-outside-repository]: chart/files/e is a symbolic link to /proc/self/environ, outside the repository: it was left out of the build (from helm template chart)"
        ),
        "{}",
        short.stdout
    );
}

#[test]
#[cfg(unix)]
fn a_chart_linted_from_its_own_folder_never_reads_a_file_outside_it() {
    if common::helm().is_none() {
        return;
    }
    // `ownerlint .` in the chart's folder, outside a git work tree: the repository is that
    // folder, and a link in it to a file beside it leads outside.
    let repo = common::temp_dir("outside-dot-chart");
    let file_secret = unique_secret("file-secret");
    std::fs::write(repo.path().join("secret.txt"), &file_secret).expect("write");
    common::write_files(
        repo.path(),
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
            ),
            (
                "chart/templates/x.yaml",
                "{{ fail (.Files.Get \"files/s\") }}\n",
            ),
        ],
    );
    std::fs::create_dir_all(repo.path().join("chart/files")).expect("mkdir");
    std::os::unix::fs::symlink("../../secret.txt", repo.path().join("chart/files/s"))
        .expect("symlink");
    let runs = every_format(&repo.path().join("chart"), &unique_secret("unused"));
    assert_left_out(&runs, &[&file_secret], &["files/s"]);
}

#[test]
#[cfg(unix)]
fn an_overlay_never_reads_a_file_or_a_base_outside_the_repository() {
    if common::kubectl().is_none() {
        return;
    }
    let secret = unique_secret("base-secret");
    let file_secret = unique_secret("env-secret");
    let outside = common::temp_dir("outside-base");
    common::write_files(
        outside.path(),
        &[
            ("settings.env", &format!("TOKEN={file_secret}\n")),
            ("base/kustomization.yaml", "resources:\n- cm.yaml\n"),
            (
                "base/cm.yaml",
                // An owner reference that is not found: its finding would show the name.
                &format!(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: {secret}\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b\n"
                ),
            ),
        ],
    );
    let repo = common::temp_dir("outside-overlay");
    common::write_files(
        repo.path(),
        &[
            (
                "generated/kustomization.yaml",
                "configMapGenerator:\n- name: settings\n  files:\n  - settings.env\n  envs:\n  - more.env\n",
            ),
            ("based/kustomization.yaml", "resources:\n- base\n"),
        ],
    );
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, repo.path().join(name)).expect("symlink")
    };
    link(
        &outside.path().join("settings.env"),
        "generated/settings.env",
    );
    link(&outside.path().join("settings.env"), "generated/more.env");
    link(&outside.path().join("base"), "based/base");
    let runs = every_format(repo.path(), "unused");
    assert_left_out(
        &runs,
        &[&secret, &file_secret],
        &["generated/settings.env", "generated/more.env", "based/base"],
    );
}

#[test]
#[cfg(unix)]
fn a_link_inside_the_repository_is_built_with_what_it_names() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let repo = common::temp_dir("inside-links");
    common::write_files(
        repo.path(),
        &[
            ("shared/owner.txt", "owner-from-a-linked-file"),
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
            ),
            (
                "chart/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: {{ .Files.Get \"files/owner.txt\" }}\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b\n",
            ),
            (
                "base/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-a-linked-base\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: owner-of-the-linked-base\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8c\n",
            ),
            ("base/kustomization.yaml", "resources:\n- cm.yaml\n"),
            ("overlay/kustomization.yaml", "resources:\n- linked-base\n"),
        ],
    );
    std::fs::create_dir_all(repo.path().join("chart/files")).expect("mkdir");
    std::os::unix::fs::symlink(
        "../../shared/owner.txt",
        repo.path().join("chart/files/owner.txt"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink("../base", repo.path().join("overlay/linked-base"))
        .expect("symlink");
    let run = common::ownerlint()
        .current_dir(repo.path())
        .args(["--format", "short", "chart", "overlay"])
        .run();
    assert!(
        run.stdout.contains("owner-from-a-linked-file"),
        "the chart's build saw the linked file:\n{}{}",
        run.stdout,
        run.stderr
    );
    assert!(
        run.stdout.contains("owner-of-the-linked-base"),
        "the overlay's build saw the linked base:\n{}{}",
        run.stdout,
        run.stderr
    );
    assert!(
        !run.stdout.contains("link-outside-repository") && !run.stdout.contains("render-failed"),
        "{}",
        run.stdout
    );
}

/// A base the overlay reaches through folders alone, with no symbolic link on the way, is the
/// overlay's own layout: built, from inside the overlay outside a git work tree (where the
/// repository is the folder the run was started in), and from a git work tree whose overlay
/// builds on a folder beside it.
#[test]
fn a_base_reached_through_folders_alone_is_built_wherever_it_is() {
    if common::kubectl().is_none() {
        return;
    }
    let base = (
        "platform/base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-the-base\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: owner-of-the-base\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8d\n",
    );
    let base_kustomization = (
        "platform/base/kustomization.yaml",
        "resources:\n- cm.yaml\n",
    );
    // No git work tree: the run starts inside the overlay.
    let dir = common::temp_dir("base-by-folders");
    common::write_files(
        dir.path(),
        &[
            base,
            base_kustomization,
            (
                "overlays/prod/kustomization.yaml",
                "resources:\n- ../../platform/base\n",
            ),
        ],
    );
    let run = common::ownerlint()
        .current_dir(dir.path().join("overlays/prod"))
        .args(["--format", "short", "."])
        .run();
    assert!(
        run.stdout.contains("owner-of-the-base")
            && !run.stdout.contains("render-failed")
            && !run.stdout.contains("link-outside-repository"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    // A git work tree whose overlay builds on a folder beside it.
    let dir = common::temp_dir("base-beside-the-repository");
    common::write_files(
        dir.path(),
        &[
            base,
            base_kustomization,
            (
                "repo/overlays/prod/kustomization.yaml",
                "resources:\n- ../../../platform/base\n",
            ),
        ],
    );
    std::fs::create_dir(dir.path().join("repo/.git")).expect("a git work tree");
    let run = common::ownerlint()
        .current_dir(dir.path().join("repo"))
        .args(["--format", "short", "overlays/prod"])
        .run();
    assert!(
        run.stdout.contains("owner-of-the-base")
            && !run.stdout.contains("render-failed")
            && !run.stdout.contains("link-outside-repository"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

#[test]
fn a_long_message_from_a_tool_is_cut() {
    if common::helm().is_none() {
        return;
    }
    let repo = common::temp_dir("long-message");
    common::write_files(
        repo.path(),
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
            ),
            (
                "chart/templates/x.yaml",
                "{{ fail (printf \"start %s end\" (repeat 100000 \"x\")) }}\n",
            ),
        ],
    );
    for format in ["short", "github", "json"] {
        let run = common::ownerlint()
            .current_dir(repo.path())
            .args(["--format", format, "."])
            .run();
        assert!(
            run.stdout
                .contains("error at (chart/templates/x.yaml:1:4): start xxxx")
                && run.stdout.contains(" more characters)"),
            "--format {format}:\n{}",
            run.stdout.chars().take(2000).collect::<String>()
        );
        assert!(!run.stdout.contains("x end"), "--format {format}");
        assert!(
            run.stdout.len() < 5_000,
            "--format {format}: {} bytes",
            run.stdout.len()
        );
    }
}

/// `ownerlint .` in `dir` with `config` as its `.ownerlint.yaml`.
fn with_config(dir: &Path, config: &str, args: &[&str]) -> common::Run {
    std::fs::write(dir.join(".ownerlint.yaml"), config).expect("write");
    common::ownerlint()
        .current_dir(dir)
        .args(["--format", "pretty"])
        .args(args)
        .arg("app.yaml")
        .env("NO_COLOR", "1")
        .run()
}

#[test]
#[cfg(unix)]
fn a_path_in_the_configuration_file_stays_inside_the_repository() {
    let root = common::temp_dir("config-outside");
    let repo = root.path().join("repo");
    let secret = unique_secret("config-secret");
    common::write_files(
        root.path(),
        &[
            (
                "outside/crd.yaml",
                &format!("# {secret}\napiVersion: v1\nkind: List\nitems: []\n"),
            ),
            (
                "repo/app.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
            ),
        ],
    );
    std::os::unix::fs::symlink("/etc", repo.join("crds")).expect("symlink");
    for (config, key, shown) in [
        (
            "crds: [\"/proc/self/environ\"]\n",
            "crds",
            "\"/proc/self/environ\"",
        ),
        ("existing: [\"../outside\"]\n", "existing", "\"../outside\""),
        ("crds: [crds/passwd]\n", "crds", "\"crds/passwd\""),
        (
            "crds: ../outside/crd.yaml\n",
            "crds",
            "\"../outside/crd.yaml\"",
        ),
    ] {
        let run = with_config(&repo, config, &[]);
        assert_eq!(run.code(), Some(2), "{config}{}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains(".ownerlint.yaml:1:")
                && run
                    .stderr
                    .contains(&format!(": {key}: {shown} is outside the repository ("))
                && run.stderr.contains(&format!(
                    "name such a path on the command line (--{key}) instead"
                )),
            "{config}{}",
            run.stderr
        );
        assert!(!run.stderr.contains(&secret) && !run.stdout.contains(&secret));
        assert!(!run.stdout.contains("root:"), "{}", run.stdout);
    }
    // A path inside the repository is read.
    common::write_files(
        &repo,
        &[("kinds/crd.yaml", "apiVersion: v1\nkind: List\nitems: []\n")],
    );
    let run = with_config(&repo, "crds: [kinds/crd.yaml]\n", &[]);
    assert_eq!(run.code(), Some(0), "{}{}", run.stdout, run.stderr);
    // The command line is the user's own: a path anywhere is read.
    let crd = root.path().join("outside/crd.yaml");
    let run = with_config(
        &repo,
        "namespace: default\n",
        &["--crds", &crd.to_string_lossy()],
    );
    assert_eq!(run.code(), Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        !run.stderr.contains("outside the repository"),
        "{}",
        run.stderr
    );
}

/// A folder to lint, with a manifest whose owner is not found (so that it is seen linted) and
/// symbolic links met by a walk that lead outside it: to the process's environment, to a
/// file and to a folder elsewhere, each holding a secret. The secrets, and what is outside.
#[cfg(unix)]
fn repository_with_links_outside(
    repo: &Path,
    outside: &Path,
) -> (String, String, &'static [&'static str]) {
    let file_secret = unique_secret("kubeconfig-secret");
    let folder_secret = unique_secret("vendored-secret");
    std::fs::write(
        outside.join("config.yaml"),
        format!("token: {file_secret}\n"),
    )
    .expect("write");
    common::write_files(
        outside,
        &[(
            "vendor/cm.yaml",
            &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {folder_secret}\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: {folder_secret}\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8d\n"
            ),
        )],
    );
    common::write_files(
        repo,
        &[(
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ordinary\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner-of-the-ordinary-manifest\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8e\n",
        )],
    );
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, repo.join(name)).expect("symlink")
    };
    link(Path::new("/proc/self/environ"), "env.yaml");
    link(&outside.join("config.yaml"), "kube.yaml");
    link(&outside.join("vendor"), "linked");
    (
        file_secret,
        folder_secret,
        &["env.yaml", "kube.yaml", "linked"],
    )
}

#[test]
#[cfg(unix)]
fn a_walk_never_reads_a_link_outside_the_repository_in_a_git_work_tree_or_not() {
    let git = common::require_tool("git", "install git");
    for in_git in [false, true] {
        if in_git && git.is_none() {
            continue;
        }
        let outside = common::temp_dir("walk-outside");
        let repo = common::temp_dir("walk-repository");
        let (file_secret, folder_secret, links) =
            repository_with_links_outside(repo.path(), outside.path());
        if let (true, Some(git)) = (in_git, &git) {
            common::git(git, repo.path(), &["init", "-q"]);
        }
        let secret = unique_secret("environment-secret");
        let runs = every_format(repo.path(), &secret);
        assert_left_out(&runs, &[&secret, &file_secret, &folder_secret], links);
        for (format, run) in &runs {
            assert!(
                run.stdout.contains("owner-of-the-ordinary-manifest"),
                "git: {in_git}: --format {format} does not lint the ordinary manifest:\n{}{}",
                run.stdout,
                run.stderr
            );
        }
        let short = &runs
            .iter()
            .find(|(format, _)| format == "short")
            .expect("the short format")
            .1;
        let mut reported: Vec<&str> = short
            .stdout
            .lines()
            .filter(|line| line.contains("link-outside-repository"))
            .collect();
        reported.sort();
        let expected = [
            "env.yaml:1:1: warning[link-outside-repository]: env.yaml is a symbolic link to /proc/self/environ, outside the repository: it was not read".to_string(),
            format!("kube.yaml:1:1: warning[link-outside-repository]: kube.yaml is a symbolic link to {}, outside the repository: it was not read", outside.path().join("config.yaml").display()),
            format!("linked:1:1: warning[link-outside-repository]: linked is a symbolic link to {}, outside the repository: it was not read", outside.path().join("vendor").display()),
        ];
        assert_eq!(reported, expected, "git: {in_git}");
        assert!(
            !short.stdout.contains("invalid-yaml"),
            "git: {in_git}: {}",
            short.stdout
        );
    }
}

#[test]
#[cfg(unix)]
fn a_walk_reads_a_link_inside_the_repository() {
    let repo = common::temp_dir("walk-inside");
    common::write_files(
        repo.path(),
        &[
            // Hidden folders are not walked: what is in them is read only through the links.
            (
                ".shared/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linked-file\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner-of-the-linked-file\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8f\n",
            ),
            (
                ".folder/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linked-folder\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner-in-the-linked-folder\n    uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a80\n",
            ),
        ],
    );
    std::os::unix::fs::symlink(".shared/cm.yaml", repo.path().join("cm.yaml")).expect("symlink");
    std::os::unix::fs::symlink(".folder", repo.path().join("folder")).expect("symlink");
    let run = common::ownerlint()
        .current_dir(repo.path())
        .args(["--format", "short", "."])
        .run();
    assert!(
        run.stdout.contains("cm.yaml:")
            && run.stdout.contains("owner-of-the-linked-file")
            && run.stdout.contains("folder/cm.yaml:")
            && run.stdout.contains("owner-in-the-linked-folder"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(
        !run.stdout.contains("link-outside-repository"),
        "{}",
        run.stdout
    );
}

#[test]
#[cfg(unix)]
fn a_link_named_on_the_command_line_is_read_as_named() {
    let outside = common::temp_dir("named-outside");
    let repo = common::temp_dir("named-repository");
    repository_with_links_outside(repo.path(), outside.path());
    let run = common::ownerlint()
        .current_dir(repo.path())
        .args(["--format", "short", "env.yaml", "kube.yaml", "linked"])
        .run();
    // The user chose these paths: each is read, as any file or folder named.
    assert!(
        run.stdout.contains("env.yaml:1:")
            && run.stdout.contains("invalid-yaml")
            && run.stdout.contains("linked/cm.yaml:"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(
        !run.stdout.contains("link-outside-repository"),
        "{}",
        run.stdout
    );
}

#[test]
#[cfg(unix)]
fn the_language_server_publishes_the_link_never_what_it_names() {
    use crate::server::{WAIT, codes, push_client, uri};
    use crate::server_process::Process;
    use serde_json::{Value, json};
    let outside = common::temp_dir("server-outside");
    let workspace = common::temp_dir("server-workspace");
    let root = workspace.path().canonicalize().expect("root");
    let (file_secret, folder_secret, _) = repository_with_links_outside(&root, outside.path());
    let secret = unique_secret("server-environment-secret");
    let mut server = Process::start_with(&root, push_client(), Value::Null, |command| {
        command.env("OWNERLINT_PROBE", &secret)
    });
    server.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let wanted = uri(&root.join("env.yaml"));
    let mut seen = Vec::new();
    let published = loop {
        let message = server
            .messages
            .recv_timeout(WAIT)
            .unwrap_or_else(|e| panic!("no diagnostics for env.yaml ({e}); seen {seen:?}"));
        seen.push(message.to_string());
        if message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["uri"] == wanted
        {
            break message;
        }
    };
    let diagnostics = published["params"]["diagnostics"]
        .as_array()
        .expect("a list");
    assert_eq!(
        codes(diagnostics),
        ["link-outside-repository"],
        "{published}"
    );
    assert!(
        diagnostics[0]["message"].as_str().is_some_and(|m| m
            .contains("env.yaml is a symbolic link to /proc/self/environ, outside the repository: it was not read")),
        "{published}"
    );
    // What came with it, and what is published in the time it takes to analyze again.
    std::thread::sleep(std::time::Duration::from_millis(500));
    seen.extend(server.messages.try_iter().map(|m| m.to_string()));
    for message in &seen {
        for secret in [&secret, &file_secret, &folder_secret] {
            assert!(
                !message.contains(secret.as_str()),
                "the server published what a link outside names: {message}"
            );
        }
    }
}
