//! The command line as users run it: exit codes, standard input, formats, colour, and that one
//! broken file never hides the findings of the others.

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn ownerlint(args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    ownerlint_in(env!("CARGO_MANIFEST_DIR").as_ref(), args, stdin, env)
}

/// The binary run in `dir`, with `stdin` written to it.
fn ownerlint_in(
    dir: &std::path::Path,
    args: &[&str],
    stdin: Option<&str>,
    env: &[(&str, &str)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ownerlint"));
    command.args(args).current_dir(dir);
    command.env_remove("NO_COLOR").env_remove("GITHUB_ACTIONS");
    for (k, v) in env {
        command.env(k, v);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the binary runs");
    if let Some(mut pipe) = child.stdin.take() {
        // A usage error exits before reading standard input.
        if let Err(err) = pipe.write_all(stdin.unwrap_or("").as_bytes()) {
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err}");
        }
    }
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const DANGLING: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n";

#[test]
fn examples_report_findings_and_exit_1() {
    let out = ownerlint(&["examples"], None, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("examples/manifests/shop.yaml:42:3: error[cluster-scoped-dependent]"),
        "{text}"
    );
    assert!(text.contains("error[owner-uid-mismatch]"), "{text}");
    assert!(
        text.contains("warning[controller-selector-mismatch]"),
        "{text}"
    );
    assert!(text.contains("error[finalizer-unqualified]"), "{text}");
    assert!(
        stderr(&out).starts_with("ownerlint: 9 objects in 2 files: 5 errors, 1 warning, 4 info"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fail_on_decides_the_exit_code() {
    // A warning only: 0 by default, 1 with --fail-on warning.
    assert_eq!(
        ownerlint(&["-"], Some(DANGLING), &[]).status.code(),
        Some(0)
    );
    assert_eq!(
        ownerlint(&["--fail-on", "warning", "-"], Some(DANGLING), &[])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        ownerlint(&["--complete", "-"], Some(DANGLING), &[])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn helm_stream_on_stdin_names_the_template() {
    let stream = format!("---\n# Source: shop/templates/cache.yaml\n{DANGLING}");
    let out = ownerlint(&["--format", "short", "-"], Some(&stream), &[]);
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "<stdin>:9:3: warning[owner-not-found]: ConfigMap shop/cache → Deployment shop/api"
        ),
        "{text}"
    );
    assert!(
        text.trim_end()
            .ends_with("(from shop/templates/cache.yaml)"),
        "{text}"
    );
}

#[test]
fn a_broken_file_does_not_hide_the_others() {
    let tmp = common::temp_dir("cli-broken");
    let dir = tmp.path();
    std::fs::write(dir.join("a-broken.yaml"), "kind: [\n").unwrap();
    std::fs::write(dir.join("b-not-utf8.yaml"), b"kind: \xff\xfe\n").unwrap();
    std::fs::write(dir.join("c-dangling.yaml"), DANGLING).unwrap();
    let out = ownerlint(&["--format", "short", dir.to_str().unwrap()], None, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("a-broken.yaml:1:7: error[invalid-yaml]: this document is not valid YAML: unclosed bracket '['"), "{text}");
    assert!(
        text.contains("b-not-utf8.yaml:1:7: error[invalid-yaml]: this file is not valid UTF-8"),
        "{text}"
    );
    assert!(
        text.contains("c-dangling.yaml:7:3: warning[owner-not-found]"),
        "{text}"
    );
}

#[test]
fn an_unreadable_path_exits_2_after_linting_the_rest() {
    let tmp = common::temp_dir("cli-missing");
    let dir = tmp.path();
    std::fs::write(dir.join("dangling.yaml"), DANGLING).unwrap();
    let out = ownerlint(
        &[
            "--format",
            "short",
            dir.to_str().unwrap(),
            "no/such/file.yaml",
        ],
        None,
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).contains("warning[owner-not-found]"));
    assert!(
        stderr(&out).contains("no/such/file.yaml: no such file or directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_named_file_that_is_not_a_manifest_is_said_to_be_skipped() {
    let tmp = common::temp_dir("cli-not-manifest");
    let dir = tmp.path();
    std::fs::write(
        dir.join("README.md"),
        "# Deploy\n\n```yaml\nname: {{ .Values.name }}  # ownerlint: ignore[owner-not-found]\n```\n",
    )
    .unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    std::fs::write(dir.join("manifest.txt"), DANGLING).unwrap();
    let out = ownerlint_in(
        dir,
        &[
            "--format",
            "short",
            "README.md",
            "Cargo.toml",
            "manifest.txt",
        ],
        None,
        &[],
    );
    // What holds an object is linted whatever its name; the others are skipped, and said so.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let found = stdout(&out);
    assert_eq!(found.lines().count(), 1, "{found}");
    assert!(
        found.starts_with("manifest.txt:7:3: warning[owner-not-found]"),
        "{found}"
    );
    for name in ["README.md", "Cargo.toml"] {
        assert!(
            stderr(&out).contains(&format!(
                "ownerlint: warning: {name}: not a manifest (no .yaml, .yml or .json name, and no Kubernetes object in it), so it was not linted"
            )),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn input_given_on_standard_input_without_a_dash_is_not_ignored_silently() {
    let tmp = common::temp_dir("cli-stdin-no-dash");
    let dir = tmp.path();
    let piped = dir.join("piped.txt");
    std::fs::write(&piped, DANGLING).unwrap();
    let run = |args: &[&str], stdin: Stdio| {
        Command::new(env!("CARGO_BIN_EXE_ownerlint"))
            .args(args)
            .current_dir(dir)
            .stdin(stdin)
            .output()
            .expect("the binary runs")
    };
    let note = "ownerlint: standard input was not read: with no path, ownerlint lints the current folder; name standard input `-` to lint what is piped in (`… | ownerlint -`)";
    let out = run(&[], Stdio::from(std::fs::File::open(&piped).unwrap()));
    assert!(stderr(&out).contains(note), "{}", stderr(&out));
    // With `-`, it is read; with nothing on standard input, nothing is said of it.
    let out = run(&["-"], Stdio::from(std::fs::File::open(&piped).unwrap()));
    assert!(!stderr(&out).contains(note), "{}", stderr(&out));
    assert!(stdout(&out).contains("owner-not-found"), "{}", stdout(&out));
    let out = run(&[], Stdio::null());
    assert!(!stderr(&out).contains(note), "{}", stderr(&out));
}

#[test]
#[cfg(unix)]
fn a_symbolic_link_loop_below_an_input_is_reported_once_and_does_not_fail_the_run() {
    let tmp = common::temp_dir("cli-loop");
    let dir = tmp.path();
    std::fs::create_dir(dir.join("examples")).unwrap();
    std::fs::write(dir.join("examples/dangling.yaml"), DANGLING).unwrap();
    std::os::unix::fs::symlink("..", dir.join("examples/loop")).unwrap();
    let out = ownerlint_in(dir, &["--format", "short", "."], None, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("warning[owner-not-found]"));
    let warnings: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| l.starts_with("ownerlint: warning:"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        warnings,
        [
            "ownerlint: warning: examples/loop: a symbolic link back to ., which is already walked: not followed"
        ],
        "{}",
        stderr(&out)
    );
    // In JSON too, apart from the errors that fail a run.
    let out = ownerlint_in(dir, &["--format", "json", "."], None, &[]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["errors"], serde_json::json!([]));
    assert_eq!(
        json["skipped_paths"][0]["path"],
        serde_json::json!("examples/loop")
    );
}

#[test]
fn json_output_is_versioned_and_exact() {
    let out = ownerlint(&["--format", "json", "-"], Some(DANGLING), &[]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(value["version"], 1);
    let finding = &value["findings"][0];
    assert_eq!(finding["rule"], "owner-not-found");
    assert_eq!(finding["severity"], "warning");
    assert_eq!(finding["path"], "<stdin>");
    assert_eq!(
        finding["start"],
        serde_json::json!({"line": 7, "column": 3})
    );
    assert_eq!(finding["object"]["name"], "cache");
    assert_eq!(value["summary"]["warnings"], 1);
}

#[test]
fn pretty_output_has_no_colour_unless_asked() {
    let out = ownerlint(&["--format", "pretty", "-"], Some(DANGLING), &[]);
    let text = stdout(&out);
    assert!(
        text.contains("owner-not-found") && text.contains("╭─[<stdin>:7:3]"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "escape codes without a terminal");
    let forced = ownerlint(
        &["--format", "pretty", "--color", "always", "-"],
        Some(DANGLING),
        &[],
    );
    assert!(stdout(&forced).contains('\u{1b}'));
    let no_color = ownerlint(
        &["--format", "pretty", "-"],
        Some(DANGLING),
        &[("NO_COLOR", "1")],
    );
    assert!(!stdout(&no_color).contains('\u{1b}'));
}

#[test]
fn quiet_hides_info() {
    let snapshot = DANGLING.replace(
        "  namespace: shop\n",
        "  namespace: shop\n  uid: 3c2f7e1a-1b2c-4d3e-8f9a-0b1c2d3e4f5a\n",
    );
    assert!(
        stdout(&ownerlint(
            &["--format", "short", "-"],
            Some(&snapshot),
            &[]
        ))
        .contains("info[owner-not-found]")
    );
    assert_eq!(
        stdout(&ownerlint(
            &["--format", "short", "-q", "-"],
            Some(&snapshot),
            &[]
        )),
        ""
    );
}

#[test]
fn include_and_exclude_select_walked_files() {
    let tmp = common::temp_dir("cli-globs");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("deploy/templates")).unwrap();
    std::fs::write(
        dir.join("deploy/templates/cm.yaml"),
        DANGLING.replace("name: cache", "name: one"),
    )
    .unwrap();
    std::fs::write(
        dir.join("deploy/cm.yml"),
        DANGLING.replace("name: cache", "name: two"),
    )
    .unwrap();
    std::fs::write(
        dir.join("deploy/notes.txt"),
        DANGLING.replace("name: cache", "name: three"),
    )
    .unwrap();
    let lint = |args: &[&str]| stdout(&ownerlint_in(dir, args, None, &[]));
    let all = lint(&["--format", "short", "deploy"]);
    assert_eq!(all.lines().count(), 2, "{all}");
    // A glob with a `/` is relative to where the command is typed, whichever folder is named.
    for named in ["deploy", ".", "deploy/templates"] {
        let included = lint(&["--format", "short", "--include", "deploy/**/*.yaml", named]);
        assert_eq!(included.lines().count(), 1, "{named}: {included}");
        assert!(included.contains("deploy/templates/cm.yaml"), "{included}");
    }
    let excluded = lint(&[
        "--format",
        "short",
        "--exclude",
        "deploy/templates/**",
        "deploy",
    ]);
    assert_eq!(excluded.lines().count(), 1, "{excluded}");
    assert!(excluded.contains("deploy/cm.yml"), "{excluded}");
    // A glob without one matches file names anywhere.
    let included = lint(&["--format", "short", "--include", "*.yaml", "deploy"]);
    assert!(
        included.contains("deploy/templates/cm.yaml") && !included.contains("cm.yml:"),
        "{included}"
    );
    // Globs in a configuration file are relative to its folder, wherever ownerlint runs.
    std::fs::write(
        dir.join(".ownerlint.yaml"),
        "exclude: [\"deploy/templates/**\"]\n",
    )
    .unwrap();
    let config = dir.join(".ownerlint.yaml");
    let config = config.to_str().unwrap();
    let from_inside = stdout(&ownerlint_in(
        &dir.join("deploy"),
        &["--format", "short", "--config", config, "."],
        None,
        &[],
    ));
    assert_eq!(from_inside.lines().count(), 1, "{from_inside}");
    assert!(from_inside.starts_with("cm.yml:"), "{from_inside}");
}

#[test]
fn rules_and_explain() {
    let out = ownerlint(&["rules"], None, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l.starts_with("owner-not-found") && l.contains("warning"))
    );
    let out = ownerlint(&["explain", "multiple-controllers"], None, &[]);
    assert!(stdout(&out).starts_with("# multiple-controllers"));
    let out = ownerlint(&["explain", "owner-not-fund"], None, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `owner-not-found`?"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn options_may_come_before_the_subcommand() {
    // The repository has a `rules/` folder: the word is still the subcommand.
    let out = ownerlint(&["-n", "payments", "tree", "examples"], None, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("ReplicaSet payments/billing-7c9f8d6b5"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        stdout(&out),
        stdout(&ownerlint(
            &["tree", "-n", "payments", "examples"],
            None,
            &[]
        ))
    );
    let out = ownerlint(&["--no-config", "rules"], None, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stdout(&out).is_empty(),
        "nothing is linted: {}",
        stdout(&out)
    );
    let message = stderr(&out);
    assert!(
        message.contains("unexpected argument '--no-config'")
            && message.contains("to lint a path of that name, write `./rules`"),
        "{message}"
    );
    // `--config rules` names a file: `rules` is its value, not a subcommand.
    let out = ownerlint(&["--config", "tree", "examples"], None, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("tree"), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("unexpected argument"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_mistyped_subcommand_gets_a_suggestion() {
    for (typed, meant) in [
        ("explian", "explain"),
        ("tre", "tree"),
        ("delete-preveiw", "delete-preview"),
    ] {
        let out = ownerlint(&["-q", typed, "examples"], None, &[]);
        assert_eq!(out.status.code(), Some(2), "{typed}");
        assert_eq!(
            stderr(&out),
            format!(
                "ownerlint: `{typed}` is neither a subcommand nor a file or directory (did you \
                 mean `{meant}`?)\n"
            )
        );
    }
    // A missing path that is no near miss is reported as a missing path.
    let out = ownerlint(&["manifests"], None, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("manifests: no such file or directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_path_with_nothing_to_lint_says_so() {
    let out = ownerlint(&["src"], None, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "ownerlint: nothing to lint: src holds no .yaml, .yml or .json file (hidden and \
         git-ignored files are skipped)\n"
    );
    let out = ownerlint(&["--exclude", "*.yaml", "examples/manifests"], None, &[]);
    assert!(
        stderr(&out).contains("examples/manifests holds no .yaml, .yml or .json file that the include and exclude globs keep"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn linting_never_writes_to_its_inputs() {
    let tmp = common::temp_dir("cli-readonly");
    let dir = tmp.path();
    let file = dir.join("cm.yaml");
    std::fs::write(&file, DANGLING).unwrap();
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    ownerlint(&["--format", "json", file.to_str().unwrap()], None, &[]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), DANGLING);
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn under_github_actions_annotations_are_the_default() {
    let out = ownerlint(&["-"], Some(DANGLING), &[("GITHUB_ACTIONS", "true")]);
    let text = stdout(&out);
    assert!(
        text.starts_with("::warning file=<stdin>,line=7,col=3,endLine=7,endColumn=24,title=ownerlint owner-not-found::ConfigMap shop/cache → Deployment shop/api"),
        "{text}"
    );
    // An explicit format wins.
    let out = ownerlint(
        &["--format", "short", "-"],
        Some(DANGLING),
        &[("GITHUB_ACTIONS", "true")],
    );
    assert!(stdout(&out).starts_with("<stdin>:7:3: warning[owner-not-found]"));
}

#[test]
fn completions_and_man_page_come_from_the_command_line_definition() {
    for (shell, marker) in [
        ("bash", "complete -F _ownerlint"),
        ("zsh", "#compdef ownerlint"),
        ("fish", "complete -c ownerlint"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[ownerlint]"),
    ] {
        let out = ownerlint(&["completions", shell], None, &[]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = stdout(&out);
        assert!(text.contains(marker), "{shell}: {text}");
        assert!(
            text.contains("fail-on") && text.contains("explain"),
            "{shell}"
        );
    }
    let out = ownerlint(&["man"], None, &[]);
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(page.contains(".TH ownerlint 1"), "{page}");
    assert!(page.contains("\\-\\-kube\\-version"), "{page}");
    // One page: each subcommand is described in it, none is sent to a page of its own.
    assert!(!page.contains("(1)"), "{page}");
    for name in [
        "rules",
        "explain",
        "tree",
        "delete-preview",
        "config",
        "man",
    ] {
        assert!(
            page.contains(&format!(".SS \"ownerlint {name}\"")),
            "{name}: {page}"
        );
    }
    // As `man` shows it, with groff's warnings on.
    let Some(man) = common::require_tool("man", "Debian's man-db") else {
        return;
    };
    let dir = common::temp_dir("man");
    let file = dir.path().join("ownerlint.1");
    std::fs::write(&file, &page).expect("write the page");
    let shown = Command::new(man)
        .args(["--warnings", "-l"])
        .arg(&file)
        .env("MANWIDTH", "80")
        .env("MAN_KEEP_FORMATTING", "0")
        .output()
        .expect("man runs");
    assert!(shown.status.success());
    assert_eq!(stderr(&shown), "", "groff warns");
    // Without the overstrikes that draw bold and underline on a terminal.
    let mut text = String::new();
    for c in stdout(&shown).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    for expected in [
        "SUBCOMMANDS",
        "ownerlint delete-preview [--cascade]",
        "--root <TYPE/NAME>",
        "It also takes the paths and input options of a run",
        "EXIT STATUS",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
}

#[test]
fn reports_in_other_formats_are_written_in_the_same_run() {
    let tmp = common::temp_dir("report");
    let dir = tmp.path();
    let sarif = dir.join("out.sarif");
    let summary = dir.join("summary.md");
    let out = ownerlint(
        &[
            "--format",
            "short",
            "--report",
            &format!("sarif={}", sarif.display()),
            "--report",
            &format!("markdown={}", summary.display()),
            "-",
        ],
        Some(DANGLING),
        &[],
    );
    assert!(stdout(&out).starts_with("<stdin>:7:3: warning[owner-not-found]"));
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif written"))
            .expect("JSON");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "owner-not-found");
    let summary = std::fs::read_to_string(&summary).expect("summary written");
    assert!(
        summary.contains("`owner-not-found` | 0 | 1 | 0 |"),
        "{summary}"
    );

    let out = ownerlint(&["--report", "yaml=x", "-"], Some(DANGLING), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "unknown format \"yaml\" (one of pretty, short, json, sarif, github, markdown)"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn project_files_resolve_owners_but_are_not_reported() {
    let tmp = common::temp_dir("project");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("deploy")).expect("temp dir");
    // The unchanged file has a finding of its own, which must not be reported.
    std::fs::write(
        dir.join("deploy/owner.yaml"),
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web\n  namespace: shop\n  uid: rs-1\n  finalizers: [cleanup]\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("deploy/pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  uid: pod-1\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs-0}\n",
    )
    .expect("write");
    let run = |args: &[&str]| {
        let out = ownerlint_in(dir, args, None, &[]);
        (out.status.code(), stdout(&out))
    };
    // Alone, the Pod's owner is not in the input.
    let (code, text) = run(&["--format", "short", "deploy/pod.yaml"]);
    assert_eq!(code, Some(0));
    assert!(text.contains("info[owner-not-found]"), "{text}");
    // With the project indexed, the owner is found and its uid differs; the project file,
    // named again by `--project .`, is read once and its own finding stays unreported.
    let (code, text) = run(&["--format", "short", "--project", ".", "deploy/pod.yaml"]);
    assert_eq!(code, Some(1), "{text}");
    let rules: Vec<&str> = text
        .lines()
        .map(|l| l.split(['[', ']']).nth(1).unwrap_or(""))
        .collect();
    assert_eq!(rules, ["owner-uid-mismatch"], "{text}");
    assert!(text.starts_with("deploy/pod.yaml:8:"), "{text}");
    // A change to the owner alone (the hook names only the changed file) is reported where it
    // breaks the unchanged dependent: the finding involves the changed file.
    let (code, text) = run(&["--format", "short", "--project", ".", "deploy/owner.yaml"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("deploy/pod.yaml:8:") && text.contains("error[owner-uid-mismatch]"),
        "{text}"
    );
    assert!(text.contains("finalizer-unqualified"), "{text}");
}

#[test]
fn project_files_are_read_as_manifests_like_the_input() {
    let tmp = common::temp_dir("project-fresh");
    let dir = tmp.path();
    // Manifests: the Deployment is created by this input, so the ConfigMap's uid cannot match.
    std::fs::write(
        dir.join("a.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: 8d0e6a34-5b1c-4f0e-9b2a-3c4d5e6f7a8b}\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("b.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  selector: {matchLabels: {app: api}}\n",
    )
    .expect("write");
    let run = |args: &[&str]| stdout(&ownerlint_in(dir, args, None, &[]));
    let together = run(&["--no-config", "--format", "short", "a.yaml", "b.yaml"]);
    let with_project = run(&[
        "--no-config",
        "--format",
        "short",
        "a.yaml",
        "--project",
        "b.yaml",
    ]);
    assert!(
        together.contains("error[owner-created-with-fresh-uid]"),
        "{together}"
    );
    assert_eq!(with_project, together);
}

#[test]
fn a_helm_stream_on_stdin_is_annotated_on_its_templates() {
    let tmp = common::temp_dir("helm-annotations");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("charts/shop/templates")).expect("temp dir");
    std::fs::write(
        dir.join("charts/shop/templates/pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-web\n  namespace: {{ .Release.Namespace }}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: \"\"\n",
    )
    .expect("write");
    let rendered = "---\n# Source: shop/templates/pod.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: rel-web\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: \"\"\n";
    let stream = format!("{rendered}{rendered}");
    let run = |format: &str| {
        let args = ["--no-config", "--format", format, "-"];
        stdout(&ownerlint_in(dir, &args, Some(&stream), &[]))
    };
    let github = run("github");
    // The template's own line, where its text is the rendered line's.
    assert!(
        github.contains("::error file=charts/shop/templates/pod.yaml,line=10,col=10,endLine=10,endColumn=12,title=ownerlint owner-ref-invalid::"),
        "{github}"
    );
    // A templated line cannot be found by its text: the file, and the stream's line said.
    assert!(
        github.contains("::warning file=charts/shop/templates/pod.yaml,line=1,col=1,")
            && github.contains("(line 18 of the rendered stream)"),
        "{github}"
    );
    assert!(!github.contains("file=<stdin>"), "{github}");
    let sarif = run("sarif");
    assert!(
        sarif.contains("\"uri\": \"charts/shop/templates/pod.yaml\""),
        "{sarif}"
    );
}

/// What bash's completion offers for `words` (the last one being completed), in `dir`, with the
/// script `ownerlint completions bash` prints; `None` without bash.
fn bash_completes(
    script: &std::path::Path,
    dir: &std::path::Path,
    words: &[&str],
) -> Option<Vec<String>> {
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(
            r#"source "$0" || exit 3
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
_ownerlint_paths ownerlint "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}""#,
        )
        .arg(script)
        .args(words)
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{words:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut offered: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    offered.sort();
    Some(offered)
}

#[test]
fn bash_completes_subcommands_paths_and_rule_ids() {
    let dir = common::temp_dir("completions");
    std::fs::create_dir(dir.path().join("deploy")).expect("mkdir");
    std::fs::write(dir.path().join("deploy/app.yaml"), "").expect("write");
    let out = ownerlint(&["completions", "bash"], None, &[]);
    assert_eq!(out.status.code(), Some(0));
    let script = dir.path().join("ownerlint.bash");
    std::fs::write(&script, stdout(&out)).expect("write");
    let Some(offered) = bash_completes(&script, dir.path(), &["ownerlint", "de"]) else {
        return common::skip("bash is not installed");
    };
    let complete = |words: &[&str]| bash_completes(&script, dir.path(), words).unwrap_or_default();
    // A subcommand, and the folder: a first word may be either.
    assert_eq!(offered, ["delete-preview", "deploy"]);
    assert_eq!(complete(&["ownerlint", "tree", "de"]), ["deploy"]);
    assert_eq!(
        complete(&["ownerlint", "deploy/", "de"]),
        ["delete-preview", "deploy"]
    );
    assert_eq!(
        complete(&["ownerlint", "-n", "shop", "tree", "deploy/a"]),
        ["deploy/app.yaml"]
    );
    // delete-preview's first word is the object, then paths.
    assert!(complete(&["ownerlint", "delete-preview", "de"]).is_empty());
    assert_eq!(
        complete(&["ownerlint", "delete-preview", "rs/web", "de"]),
        ["deploy"]
    );
    // Rule ids, and no paths, for explain.
    assert_eq!(
        complete(&["ownerlint", "explain", "owner-n"]),
        ["owner-not-found"]
    );
    assert_eq!(
        complete(&["ownerlint", "explain", "de"]),
        [
            "deletion-finalizer-in-manifest",
            "deletion-timestamp-in-manifest"
        ]
    );
    // An option's values, and options, as clap's script completes them.
    assert_eq!(complete(&["ownerlint", "--format", "j"]), ["json"]);
    assert_eq!(complete(&["ownerlint", "--fail"]), ["--fail-on"]);
    // An unknown id is still told with a suggestion, not refused by the parser.
    let out = ownerlint(&["explain", "owner-not-fond"], None, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `owner-not-found`?"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_commit_that_deletes_an_owner_reports_the_dependents_it_breaks() {
    let Some(git) = common::require_tool("git", "Debian's git") else {
        return;
    };
    let tmp = common::temp_dir("git-deletions");
    let repo = tmp.path();
    let deploy = repo.join("deploy");
    std::fs::create_dir_all(&deploy).expect("mkdir");
    std::fs::write(
        deploy.join("replicaset.yaml"),
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  selector: {matchLabels: {app: web}}\n",
    )
    .expect("write");
    std::fs::write(
        deploy.join("pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  labels: {app: web}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web\n    uid: 0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b\n    controller: true\n",
    )
    .expect("write");
    std::fs::write(repo.join("notes.yaml"), "just: data\n").expect("write");
    common::git(&git, repo, &["init", "--quiet"]);
    common::git(&git, repo, &["add", "."]);
    common::git(&git, repo, &["commit", "--quiet", "-m", "web"]);
    let hook = ["--format", "short", "--project", ".", "--git-deletions"];

    // Nothing changed: nothing to lint, and no walk of the repository instead.
    let out = ownerlint_in(repo, &hook, None, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out)
            .contains("nothing to lint: no file given, and the git change deletes no manifest"),
        "{}",
        stderr(&out)
    );

    // A deletion that no reference names breaks nothing.
    common::git(&git, repo, &["rm", "--quiet", "notes.yaml"]);
    let out = ownerlint_in(repo, &hook, None, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");

    // The owner's manifest deleted (staged): the Pod it leaves is reported, in the project,
    // as an error that names the deleted file.
    common::git(&git, repo, &["rm", "--quiet", "deploy/replicaset.yaml"]);
    let out = ownerlint_in(repo, &hook, None, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "deploy/pod.yaml:8:3: error[owner-not-found]: Pod shop/web-1 → ReplicaSet shop/web: this change deletes ReplicaSet shop/web (deploy/replicaset.yaml); once it is gone from the cluster, the garbage collector deletes Pod shop/web-1 (no other owner keeps it)\n"
    );
    assert!(
        stderr(&out).contains(
            "ownerlint: 0 objects in 0 files, and 2 files the git change deletes: 1 error"
        ),
        "{}",
        stderr(&out)
    );
    // From a folder below the top, paths are the working directory's.
    let out = ownerlint_in(
        &deploy,
        &["--format", "short", "--project", ".", "--git-deletions"],
        None,
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("pod.yaml:8:3: error[owner-not-found]")
            && stdout(&out).contains("(replicaset.yaml)"),
        "{}",
        stdout(&out)
    );
    // The finding points at the deleted owner where it was.
    let out = ownerlint_in(
        repo,
        &["--project", ".", "--git-deletions", "--format", "json"],
        None,
        &[],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let related = &json["findings"][0]["related"][0];
    assert_eq!(related["path"], "deploy/replicaset.yaml", "{json}");
    assert_eq!(related["start"]["line"], 4, "{json}");

    // The dependent deleted in the same commit: nothing is left broken.
    common::git(&git, repo, &["rm", "--quiet", "deploy/pod.yaml"]);
    let out = ownerlint_in(repo, &hook, None, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Between two commits, as `pre-commit run --from-ref A --to-ref B` runs hooks in CI.
    common::git(&git, repo, &["reset", "--quiet", "--hard"]);
    common::git(&git, repo, &["rm", "--quiet", "deploy/replicaset.yaml"]);
    common::git(&git, repo, &["commit", "--quiet", "-m", "no replicaset"]);
    let out = ownerlint_in(repo, &hook, None, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "nothing staged: {}",
        stderr(&out)
    );
    let out = ownerlint_in(
        repo,
        &hook,
        None,
        &[
            ("PRE_COMMIT_FROM_REF", "HEAD~1"),
            ("PRE_COMMIT_TO_REF", "HEAD"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("this change deletes ReplicaSet shop/web (deploy/replicaset.yaml)"),
        "{}",
        stdout(&out)
    );

    // Outside a repository, the option is an unreadable input, named.
    let elsewhere = common::temp_dir("git-deletions-none");
    let out = ownerlint_in(
        elsewhere.path(),
        &hook,
        None,
        &[("GIT_CEILING_DIRECTORIES", "/")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--git-deletions: git failed: fatal: not a git repository"),
        "{}",
        stderr(&out)
    );
}
