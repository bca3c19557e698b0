//! `ownerlint cluster` with a hostile kubeconfig, exec plugin and API server: no credential
//! appears in anything it prints, in any format; an exec plugin runs under
//! `--request-timeout`; the files a kubeconfig names are regular files; a token no HTTP header
//! can carry is refused in words.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api_server::{ApiServer, Reply, TOKEN, tls_file};
use crate::common::{self, Run};

const FORMATS: &[&str] = &["short", "json", "github", "sarif", "pretty", "markdown"];

/// `ownerlint cluster` with this kubeconfig and these flags.
fn cluster(kubeconfig: &Path, args: &[&str]) -> Run {
    common::ownerlint()
        .arg("cluster")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--no-config")
        .args(args)
        .run()
}

/// A kubeconfig whose one context reaches `server` as `user`, written as JSON into `dir`.
fn kubeconfig(dir: &Path, name: &str, server: &str, user: Value) -> PathBuf {
    let config = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "test", "cluster": {
            "server": server,
            "certificate-authority": tls_file("ca.crt"),
        }}],
        "users": [{"name": "test", "user": user}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}],
        "current-context": "test",
    });
    let path = dir.join(name);
    std::fs::write(&path, config.to_string()).expect("write the kubeconfig");
    path
}

/// An executable shell script.
fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn exec_user(plugin: &Path, args: &[&str], env: &[(&str, &str)]) -> Value {
    json!({"exec": {
        "apiVersion": "client.authentication.k8s.io/v1",
        "command": plugin,
        "args": args,
        "env": env.iter().map(|(name, value)| json!({"name": name, "value": value})).collect::<Vec<_>>(),
        "interactiveMode": "Never",
    }})
}

/// Neither output of `run` holds any of `secrets`.
fn assert_secret_free(run: &Run, secrets: &[&str], what: &str) {
    for secret in secrets {
        assert!(
            !run.stdout.contains(secret) && !run.stderr.contains(secret),
            "{what}: `{secret}` was printed\nstdout: {}\nstderr: {}",
            run.stdout,
            run.stderr
        );
    }
}

/// A secret planted in each place a credential can be — a malformed kubeconfig's token, an
/// exec plugin's arguments, environment, standard output and standard error, a plugin that
/// prints a bare token, the user and password of the server's URL, and an API server's
/// answers that echo the `Authorization` header — is printed by no format, and each message
/// still names the file, line or plugin.
#[test]
fn no_planted_credential_is_printed_in_any_format() {
    let dir = common::temp_dir("cluster-secrets");
    let dir = dir.path();
    let kubeconfig_token = "kc-token-Planted-1";
    let kubeconfig_token_2 = "kc-token-Planted-2";
    let arg_secret = "arg-Planted-3";
    let env_secret = "env-Planted-4";
    let stdout_secret = "stdout-Planted-5";
    // What a plugin says on standard error is shown (its first line), less what looks like a
    // credential: a key naming a secret, and a long random run.
    let stderr_secret = "stderrPlanted6";
    let stderr_random = "hvs.CAESIJlWh0OxN3BZ5XhEcZQxYmV9fA2sQ7Planted";
    let raw_token = "raw-token-Planted-7";
    let url_password = "url-Planted-8";
    let unauthorized_echo = "bearer-Planted-9";
    let forbidden_echo = "bearer-Planted-10";
    let secrets = [
        kubeconfig_token,
        kubeconfig_token_2,
        arg_secret,
        env_secret,
        stdout_secret,
        stderr_secret,
        "CAESIJlWh0OxN3BZ5XhEcZQxYmV9fA2sQ7Planted",
        raw_token,
        url_password,
        unauthorized_echo,
        forbidden_echo,
    ];

    // A kubeconfig that is not YAML, on its token's line and after it.
    let broken_on_token = dir.join("broken-on-token");
    std::fs::write(
        &broken_on_token,
        format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: test\n  user:\n    token: [{kubeconfig_token}\n"
        ),
    )
    .expect("write");
    let broken_after = dir.join("broken-after");
    std::fs::write(
        &broken_after,
        format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: test\n  user:\n    token: {kubeconfig_token_2}\nclusters: \"{kubeconfig_token_2}\"\n"
        ),
    )
    .expect("write");

    // An exec plugin that fails, printing the secrets it was given.
    let failing = script(
        dir,
        "vault-helper",
        &format!(
            "#!/bin/sh\necho \"{stdout_secret} $1 $VAULT_TOKEN\"\necho \"login failed: token={stderr_secret} VAULT_TOKEN=$VAULT_TOKEN {stderr_random}\" >&2\nexit 3\n"
        ),
    );
    let failing = kubeconfig(
        dir,
        "failing-plugin",
        "https://127.0.0.1:1",
        exec_user(&failing, &[arg_secret], &[("VAULT_TOKEN", env_secret)]),
    );
    // One that prints a bare token, not an ExecCredential.
    let bare = script(
        dir,
        "bare-token-helper",
        &format!("#!/bin/sh\necho {raw_token}\n"),
    );
    let bare = kubeconfig(
        dir,
        "bare-plugin",
        "https://127.0.0.1:1",
        exec_user(&bare, &[], &[]),
    );

    // A server that refuses the token, echoing it.
    let refusing = ApiServer::start(Box::new(move |_, _| {
        Some(Reply::status(
            401,
            "Unauthorized",
            &format!("token rejected; request had Authorization: Bearer {unauthorized_echo}"),
        ))
    }));
    let refused = kubeconfig(
        dir,
        "refused",
        &format!("https://admin:{url_password}@127.0.0.1:{}", refusing.port),
        json!({"token": TOKEN}),
    );
    // A server that reads, but forbids one resource, echoing the header in its message; its
    // URL holds a user and password.
    let forbidding = ApiServer::start(Box::new(move |asked, _| {
        (asked.resource_path() == "/apis/apps/v1/replicasets").then(|| {
            Reply::status(
                403,
                "Forbidden",
                &format!("RBAC: access denied (headers: Authorization: Bearer {forbidden_echo})"),
            )
        })
    }));
    let read = kubeconfig(
        dir,
        "read",
        &format!("https://admin:{url_password}@127.0.0.1:{}", forbidding.port),
        json!({"token": TOKEN}),
    );

    for format in FORMATS {
        let flags = ["--format", format];
        let run = cluster(&broken_on_token, &flags);
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert_secret_free(&run, &secrets, "a kubeconfig broken on its token's line");
        assert!(
            run.stderr.contains(&format!(
                "the kubeconfig {} is not a valid kubeconfig: line 6 column",
                broken_on_token.display()
            )),
            "{}",
            run.stderr
        );

        let run = cluster(&broken_after, &flags);
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert_secret_free(&run, &secrets, "a kubeconfig broken after its token");
        assert!(run.stderr.contains("line 7 column"), "{}", run.stderr);

        let run = cluster(&failing, &flags);
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert_secret_free(&run, &secrets, "a failing exec plugin");
        assert!(
            run.stderr.contains(&format!(
                "exec plugin `{}` of user `test` failed (exit status 3): login failed: token=[redacted] VAULT_TOKEN=[redacted] [redacted]",
                dir.join("vault-helper").display()
            )),
            "{}",
            run.stderr
        );

        let run = cluster(&bare, &flags);
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert_secret_free(&run, &secrets, "a plugin that prints a bare token");
        assert!(
            run.stderr.contains(
                "bare-token-helper` of user `test` printed what is not an ExecCredential"
            ),
            "{}",
            run.stderr
        );

        let run = cluster(&refused, &flags);
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert_secret_free(&run, &secrets, "a 401 that echoes the token");
        assert!(
            run.stderr.contains(&format!(
                "the API server at https://127.0.0.1:{} did not accept the credentials (401 Unauthorized: token rejected; request had Authorization: [redacted])",
                refusing.port
            )),
            "{}",
            run.stderr
        );

        let run = cluster(&read, &flags);
        assert_eq!(run.status.code(), Some(1), "{format}: {}", run.stderr);
        assert_secret_free(
            &run,
            &secrets,
            "a read with a password in the URL and a 403",
        );
        assert!(
            run.stderr
                .contains("replicasets.apps/v1 was not read: 403 Forbidden: RBAC: access denied (headers: Authorization: [redacted]"),
            "{}",
            run.stderr
        );
        // The server is still named, without its user and password.
        let server = format!("https://127.0.0.1:{}", forbidding.port);
        assert!(
            run.stdout.contains(&server) || run.stderr.contains(&server),
            "{format}: {}\n{}",
            run.stdout,
            run.stderr
        );
        assert!(!run.stdout.contains("admin@") && !run.stderr.contains("admin@"));
    }
}

/// A `token: |` block keeps the line's end in the token, which no HTTP header can carry: the
/// run ends in words (exit 2), not with a panic (101).
#[test]
fn a_token_with_a_line_break_is_refused_naming_its_field() {
    let dir = common::temp_dir("cluster-newline");
    let path = dir.path().join("kubeconfig");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: c\n  context: {cluster: c, user: ci}\ncurrent-context: c\nusers:\n- name: ci\n  user:\n    token: |\n      abc.Secret-newline-1\n",
    )
    .expect("write");
    let run = cluster(&path, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(!run.stderr.contains("Secret-newline-1"), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: {}: users[ci].user.token contains a line break, which no HTTP header can carry: write the token on one line (a `|` block keeps the line's end: use `token: VALUE`)\n",
            path.display()
        )
    );
    // A control character, the same.
    let server = ApiServer::start(Box::new(|_, _| None));
    let path = kubeconfig(
        dir.path(),
        "control",
        &format!("https://127.0.0.1:{}", server.port),
        json!({"token": "abc\u{7}def"}),
    );
    let run = cluster(&path, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("users[test].user.token contains a control character"),
        "{}",
        run.stderr
    );
    // A token file ends with a line end when written with `echo`: as kubectl (client-go)
    // does, its spaces and line ends are trimmed.
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).expect("write");
    let path = kubeconfig(
        dir.path(),
        "token-file",
        &format!("https://127.0.0.1:{}", server.port),
        json!({"tokenFile": token_file}),
    );
    let run = cluster(&path, &["--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(server.asked().iter().all(|a| a.auth == "token"));
}

/// An exec plugin that never ends (`sleep 600`, in a child of the plugin's shell) ends the run
/// at `--request-timeout` with exit 2, naming the plugin; the plugin and what it started are
/// stopped.
#[test]
#[cfg(target_os = "linux")]
fn an_exec_plugin_that_never_ends_is_stopped_at_the_request_timeout() {
    let dir = common::temp_dir("cluster-exec-hang");
    let pids = dir.path().join("pids");
    let plugin = script(
        dir.path(),
        "slow-helper",
        &format!(
            "#!/bin/sh\necho $$ > {pids}\nsleep 600 &\necho $! >> {pids}\nwait\n",
            pids = pids.display()
        ),
    );
    let path = kubeconfig(
        dir.path(),
        "kubeconfig",
        "https://127.0.0.1:1",
        exec_user(&plugin, &[], &[]),
    );
    let started = Instant::now();
    let run = cluster(&path, &["--request-timeout", "3s"]);
    let took = started.elapsed();
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert!(took >= Duration::from_secs(3), "took {took:?}");
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: exec plugin `{}` of user `test` had not finished after 3 s (--request-timeout), and was stopped: a plugin that waits for a login or for input cannot get one here; log in with kubectl first, or raise --request-timeout\n",
            plugin.display()
        )
    );
    let pids = std::fs::read_to_string(&pids).expect("the plugin ran");
    let alive = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    while pids.lines().any(alive) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in pids.lines() {
        assert!(!alive(pid), "process {pid} of the plugin is still running");
    }
}

/// A kubeconfig or a file it names that is a named pipe, a device or a folder is not read:
/// exit 2 at once, naming the file (and the field).
#[test]
#[cfg(unix)]
fn a_kubeconfig_or_token_file_that_is_no_regular_file_ends_the_run_at_once() {
    let dir = common::temp_dir("cluster-files");
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let quickly = |run: &dyn Fn() -> Run| {
        let started = Instant::now();
        let done = run();
        assert!(started.elapsed() < Duration::from_secs(5));
        done
    };
    for (path, kind) in [
        (fifo.clone(), "a named pipe"),
        (PathBuf::from("/dev/zero"), "a device"),
        (dir.path().to_path_buf(), "a directory"),
    ] {
        let run = quickly(&|| cluster(&path, &[]));
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "ownerlint: cannot read the kubeconfig {}: not a regular file ({kind}), so it was not read\n",
                path.display()
            )
        );
        // The same file as KUBECONFIG.
        let run = quickly(&|| {
            common::ownerlint()
                .args(["cluster", "--no-config"])
                .env("KUBECONFIG", &path)
                .run()
        });
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    }
    for (token_file, kind) in [
        (PathBuf::from("/dev/zero"), "a device"),
        (fifo, "a named pipe"),
    ] {
        let path = kubeconfig(
            dir.path(),
            "kubeconfig",
            "https://127.0.0.1:1",
            json!({"tokenFile": token_file}),
        );
        let run = quickly(&|| cluster(&path, &[]));
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "ownerlint: {}: cannot use {}, the users[test].user.tokenFile: not a regular file ({kind}), so it was not read\n",
                path.display(),
                token_file.display()
            )
        );
    }
    // A regular file larger than any kubeconfig (sparse: made at once).
    let large = dir.path().join("large");
    std::fs::File::create(&large)
        .and_then(|file| file.set_len(17 << 20))
        .expect("make a large file");
    let run = quickly(&|| cluster(&large, &[]));
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "ownerlint: cannot read the kubeconfig {}: larger than 16 MiB, so it was not read\n",
            large.display()
        )
    );
    // A CA file, the same.
    let path = dir.path().join("ca-kubeconfig");
    std::fs::write(
        &path,
        json!({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1", "certificate-authority": "/dev/zero"}}],
            "users": [{"name": "u", "user": {"token": "t"}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
            "current-context": "c",
        })
        .to_string(),
    )
    .expect("write");
    let run = quickly(&|| cluster(&path, &[]));
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("cannot read /dev/zero, the clusters[c].cluster.certificate-authority: not a regular file (a device)"),
        "{}",
        run.stderr
    );
}

/// An exec plugin's token that expires is had again from the plugin when less than a minute
/// of it is left, as kubectl does (so that a long read outlasts it); one that does not expire
/// soon is had once.
#[test]
fn an_exec_plugins_expiring_token_is_had_again() {
    let dir = common::temp_dir("cluster-exec-refresh");
    for (expires, many) in [
        ("2000-01-01T00:00:00Z", true),
        ("2100-01-01T00:00:00Z", false),
    ] {
        let server = ApiServer::start(Box::new(|_, _| None));
        let runs = dir.path().join(format!("runs-{many}"));
        let plugin = script(
            dir.path(),
            &format!("expiring-helper-{many}"),
            &format!(
                "#!/bin/sh\necho run >> {runs}\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{TOKEN}\",\"expirationTimestamp\":\"{expires}\"}}}}'\n",
                runs = runs.display()
            ),
        );
        let path = kubeconfig(
            dir.path(),
            &format!("kubeconfig-{many}"),
            &format!("https://127.0.0.1:{}", server.port),
            exec_user(&plugin, &[], &[]),
        );
        let run = cluster(&path, &["--format", "json"]);
        assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
        let asked = server.asked();
        assert!(asked.iter().all(|a| a.auth == "token"), "{asked:?}");
        let ran = std::fs::read_to_string(&runs)
            .expect("the plugin ran")
            .lines()
            .count();
        match many {
            // Once to connect, then before each request.
            true => assert_eq!(ran, asked.len() + 1),
            false => assert_eq!(ran, 1),
        }
    }
}
