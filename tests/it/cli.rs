//! The command line as users run it: exit codes, standard input, formats, colour, and that one
//! broken file never hides the findings of the others. What a run prints is snapshotted whole
//! (`tests/it/snapshots/it__cli__*.snap`), with temporary folders and times as placeholders.

use crate::common::{self, ownerlint};

const DANGLING: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n";

#[test]
fn examples_report_findings_and_exit_1() {
    let out = ownerlint().arg("examples").run();
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    insta::assert_snapshot!("examples", out.printed());
}

#[test]
fn fail_on_decides_the_exit_code() {
    // A warning only: 0 by default, 1 with --fail-on warning.
    let code = |args: &[&str]| ownerlint().args(args).arg("-").stdin(DANGLING).run().code();
    assert_eq!(code(&[]), Some(0));
    assert_eq!(code(&["--fail-on", "warning"]), Some(1));
    assert_eq!(code(&["--complete"]), Some(1));
}

#[test]
fn helm_stream_on_stdin_names_the_template() {
    let stream = format!("---\n# Source: shop/templates/cache.yaml\n{DANGLING}");
    let out = ownerlint()
        .args(["--format", "short", "-"])
        .stdin(stream)
        .run();
    insta::assert_snapshot!("helm-stream-on-stdin", out.printed());
}

#[test]
fn a_broken_file_does_not_hide_the_others() {
    let tmp = common::temp_dir("cli-broken");
    let dir = tmp.path();
    std::fs::write(dir.join("a-broken.yaml"), "kind: [\n").unwrap();
    std::fs::write(dir.join("b-not-utf8.yaml"), b"kind: \xff\xfe\n").unwrap();
    std::fs::write(dir.join("c-dangling.yaml"), DANGLING).unwrap();
    let out = ownerlint().args(["--format", "short"]).arg(dir).run();
    assert_eq!(out.code(), Some(1), "{}", out.stdout);
    insta::assert_snapshot!("a-broken-file", out.printed());
}

#[test]
fn an_unreadable_path_exits_2_after_linting_the_rest() {
    let tmp = common::temp_dir("cli-missing");
    let dir = tmp.path();
    std::fs::write(dir.join("dangling.yaml"), DANGLING).unwrap();
    let out = ownerlint()
        .args(["--format", "short"])
        .arg(dir)
        .arg("no/such/file.yaml")
        .run();
    assert_eq!(out.code(), Some(2));
    insta::assert_snapshot!("an-unreadable-path", out.printed());
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
    let out = ownerlint()
        .current_dir(dir)
        .args([
            "--format",
            "short",
            "README.md",
            "Cargo.toml",
            "manifest.txt",
        ])
        .run();
    // What holds an object is linted whatever its name; the others are skipped, and said so.
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    insta::assert_snapshot!("not-a-manifest", out.printed());
}

#[test]
fn input_given_on_standard_input_without_a_dash_is_not_ignored_silently() {
    let tmp = common::temp_dir("cli-stdin-no-dash");
    let dir = tmp.path();
    let piped = dir.join("piped.txt");
    std::fs::write(&piped, DANGLING).unwrap();
    let run = |args: &[&str], stdin: std::process::Stdio| {
        ownerlint()
            .args(args)
            .current_dir(dir)
            .stdin_from(stdin)
            .run()
            .printed()
    };
    let from_file = || std::fs::File::open(&piped).unwrap();
    insta::assert_snapshot!("stdin-without-dash", run(&[], from_file().into()));
    // With `-`, it is read; with nothing on standard input, nothing is said of it.
    insta::assert_snapshot!("stdin-with-dash", run(&["-"], from_file().into()));
    insta::assert_snapshot!(
        "stdin-empty-without-dash",
        run(&[], std::process::Stdio::null())
    );
}

#[test]
fn empty_standard_input_is_said_and_fails_the_run() {
    // `kubectl get … | ownerlint -` where kubectl failed: nothing came through the pipe, and
    // a run that checked nothing does not pass. A file redirected in is the same.
    let tmp = common::temp_dir("cli-stdin-empty");
    let empty = tmp.path().join("empty.yaml");
    std::fs::write(&empty, "").expect("write");
    let pipes = [
        ("nothing", ownerlint().arg("-").stdin("")),
        ("white space", ownerlint().arg("-").stdin("\n  \n")),
        (
            "an empty file",
            ownerlint()
                .arg("-")
                .stdin_from(std::fs::File::open(&empty).expect("open")),
        ),
    ];
    for (what, run) in pipes {
        let out = run.args(["--format", "short"]).run();
        assert_eq!(out.code(), Some(2), "{what}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{what}");
        assert!(
            out.stderr.starts_with(
                "ownerlint: <stdin>: empty, so nothing was checked (did the command before `|` fail?)\n"
            ),
            "{what}: {}",
            out.stderr
        );
    }
    insta::assert_snapshot!(
        "stdin-empty-with-dash",
        ownerlint().arg("-").stdin("").run().printed()
    );
    // Beside a file, the file is still checked, and the run still fails: what was piped in
    // was meant to be checked too.
    let out = ownerlint()
        .args(["--format", "json", "-", "examples"])
        .stdin("")
        .run();
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(json["errors"][0]["path"], "<stdin>", "{json}");
    assert!(json["summary"]["objects"].as_u64() > Some(0), "{json}");
    // A List of nothing is an answer (`kubectl get` of a kind there is none of): not an error.
    let out = ownerlint()
        .arg("-")
        .stdin("apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n")
        .run();
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
}

#[test]
#[cfg(unix)]
fn a_symbolic_link_loop_below_an_input_is_reported_once_and_does_not_fail_the_run() {
    let tmp = common::temp_dir("cli-loop");
    let dir = tmp.path();
    std::fs::create_dir(dir.join("examples")).unwrap();
    std::fs::write(dir.join("examples/dangling.yaml"), DANGLING).unwrap();
    std::os::unix::fs::symlink("..", dir.join("examples/loop")).unwrap();
    let out = ownerlint()
        .current_dir(dir)
        .args(["--format", "short", "."])
        .run();
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    insta::assert_snapshot!("a-symbolic-link-loop", out.printed());
    // In JSON too, apart from the errors that fail a run.
    let out = ownerlint()
        .current_dir(dir)
        .args(["--format", "json", "."])
        .run();
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["errors"], serde_json::json!([]));
    assert_eq!(
        json["skipped_paths"][0]["path"],
        serde_json::json!("examples/loop")
    );
}

#[test]
fn json_output_is_versioned_and_exact() {
    let out = ownerlint()
        .args(["--format", "json", "-"])
        .stdin(DANGLING)
        .run();
    let value: serde_json::Value = serde_json::from_str(&out.stdout).expect("valid JSON");
    assert_eq!(value["version"], 1);
    insta::assert_snapshot!("json", out.printed());
}

#[test]
fn pretty_output_has_no_colour_unless_asked() {
    let pretty = |extra: &[&str], env: &[(&str, &str)]| {
        let mut run = ownerlint()
            .args(["--format", "pretty"])
            .args(extra)
            .arg("-")
            .stdin(DANGLING);
        for (name, value) in env {
            run = run.env(name, value);
        }
        run.run().stdout
    };
    let text = pretty(&[], &[]);
    assert!(!text.contains('\u{1b}'), "escape codes without a terminal");
    insta::assert_snapshot!("pretty", text);
    assert!(pretty(&["--color", "always"], &[]).contains('\u{1b}'));
    assert!(!pretty(&[], &[("NO_COLOR", "1")]).contains('\u{1b}'));
}

#[test]
fn quiet_hides_info() {
    let with_uid = DANGLING.replace(
        "  namespace: shop\n",
        "  namespace: shop\n  uid: 3c2f7e1a-1b2c-4d3e-8f9a-0b1c2d3e4f5a\n",
    );
    let short = |extra: &[&str]| {
        ownerlint()
            .args(["--format", "short"])
            .args(extra)
            .arg("-")
            .stdin(with_uid.as_str())
            .run()
    };
    insta::assert_snapshot!("info", short(&[]).printed());
    assert_eq!(short(&["-q"]).stdout, "");
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
    let config = dir.join(".ownerlint.yaml");
    // What `ownerlint --format short ARGS` prints in the folder `sub` of `dir`, after the command.
    let lint_in = |sub: &str, args: &[&str]| {
        let out = ownerlint()
            .current_dir(dir.join(sub))
            .args(["--format", "short"])
            .args(args)
            .run();
        let args = args.join(" ");
        format!("{sub}$ ownerlint --format short {args}\n{}", out.stdout)
    };
    let lint = |args: &[&str]| lint_in("", args);
    let mut runs = vec![lint(&["deploy"])];
    // A glob with a `/` is relative to where the command is typed, whichever folder is named.
    for named in ["deploy", ".", "deploy/templates"] {
        runs.push(lint(&["--include", "deploy/**/*.yaml", named]));
    }
    runs.push(lint(&["--exclude", "deploy/templates/**", "deploy"]));
    // A glob without one matches file names anywhere.
    runs.push(lint(&["--include", "*.yaml", "deploy"]));
    // Globs in a configuration file are relative to its folder, wherever ownerlint runs.
    std::fs::write(&config, "exclude: [\"deploy/templates/**\"]\n").unwrap();
    let config = config.to_str().unwrap();
    runs.push(lint_in("deploy", &["--config", config, "."]));
    insta::assert_snapshot!("include-and-exclude", common::stable(&runs.join("\n")));
}

#[test]
fn rules_and_explain() {
    let out = ownerlint().arg("rules").run();
    assert_eq!(out.code(), Some(0));
    insta::assert_snapshot!("rules", out.printed());
    let out = ownerlint().args(["explain", "multiple-controllers"]).run();
    let doc = ownerlint::rules::find("multiple-controllers")
        .expect("the rule")
        .meta
        .doc;
    assert_eq!(out.stdout.trim_end(), doc.trim_end());
    let out = ownerlint().args(["explain", "owner-not-fund"]).run();
    assert_eq!(out.code(), Some(2));
    insta::assert_snapshot!("explain-a-mistyped-rule", out.printed());
}

#[test]
fn options_may_come_before_the_subcommand() {
    // The repository has a `rules/` folder: the word is still the subcommand.
    let out = ownerlint()
        .args(["-n", "payments", "tree", "examples"])
        .run();
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    insta::assert_snapshot!("tree-payments", out.printed());
    assert_eq!(
        out.stdout,
        ownerlint()
            .args(["tree", "-n", "payments", "examples"])
            .run()
            .stdout
    );
    let out = ownerlint().args(["--no-config", "rules"]).run();
    assert_eq!(out.code(), Some(2), "{}", out.stdout);
    // Nothing is linted.
    insta::assert_snapshot!("a-lint-option-before-rules", out.printed());
    // `--config rules` names a file: `rules` is its value, not a subcommand.
    let out = ownerlint().args(["--config", "tree", "examples"]).run();
    assert_eq!(out.code(), Some(2));
    insta::assert_snapshot!("config-named-tree", out.printed());
}

#[test]
fn a_mistyped_subcommand_gets_a_suggestion() {
    for (typed, meant) in [
        ("explian", "explain"),
        ("tre", "tree"),
        ("delete-preveiw", "delete-preview"),
    ] {
        let out = ownerlint().args(["-q", typed, "examples"]).run();
        assert_eq!(out.code(), Some(2), "{typed}");
        assert_eq!(
            out.stderr,
            format!(
                "ownerlint: `{typed}` is neither a subcommand nor a file or directory (did you \
                 mean `{meant}`?)\n"
            )
        );
    }
    // A missing path that is no near miss is reported as a missing path.
    let out = ownerlint().arg("manifests").run();
    assert_eq!(out.code(), Some(2));
    insta::assert_snapshot!("a-missing-path", out.printed());
}

#[test]
fn a_path_with_nothing_to_lint_says_so() {
    let out = ownerlint().arg("src").run();
    assert_eq!(out.code(), Some(0));
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "ownerlint: nothing to lint: src holds no .yaml, .yml or .json file (hidden and \
         git-ignored files are skipped)\n"
    );
    let out = ownerlint()
        .args(["--exclude", "*.yaml", "examples/manifests"])
        .run();
    insta::assert_snapshot!("nothing-left-by-the-globs", out.printed());
}

#[test]
fn linting_never_writes_to_its_inputs() {
    let tmp = common::temp_dir("cli-readonly");
    let dir = tmp.path();
    let file = dir.join("cm.yaml");
    std::fs::write(&file, DANGLING).unwrap();
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    ownerlint().args(["--format", "json"]).arg(&file).run();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), DANGLING);
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn under_github_actions_annotations_are_the_default() {
    let on_github = |args: &[&str]| {
        ownerlint()
            .args(args)
            .arg("-")
            .stdin(DANGLING)
            .env("GITHUB_ACTIONS", "true")
            .run()
            .printed()
    };
    insta::assert_snapshot!("github-actions", on_github(&[]));
    // An explicit format wins.
    insta::assert_snapshot!(
        "github-actions-format-short",
        on_github(&["--format", "short"])
    );
}

#[test]
fn completions_and_man_page_come_from_the_command_line_definition() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = ownerlint().args(["completions", shell]).run();
        assert_eq!(out.code(), Some(0), "{shell}");
        insta::assert_snapshot!(format!("completions-{shell}"), out.printed());
    }
    let out = ownerlint().arg("man").run();
    assert_eq!(out.code(), Some(0));
    let page = out.stdout;
    insta::assert_snapshot!("man", common::stable(&page));
    // As `man` shows it, with groff's warnings on.
    let Some(man) = common::require_tool("man", "Debian's man-db") else {
        return;
    };
    let dir = common::temp_dir("man");
    let file = dir.path().join("ownerlint.1");
    std::fs::write(&file, &page).expect("write the page");
    let shown = common::Run::from(
        std::process::Command::new(man)
            .args(["--warnings", "-l"])
            .arg(&file)
            .env("MANWIDTH", "80")
            .env("MAN_KEEP_FORMATTING", "0")
            .output()
            .expect("man runs"),
    );
    assert!(shown.status.success());
    assert_eq!(shown.stderr, "", "groff warns");
    // Without the overstrikes that draw bold and underline on a terminal. (How groff lays out
    // the page differs between its versions: this checks a few lines, not the whole page.)
    let mut text = String::new();
    for c in shown.stdout.chars() {
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
    let out = ownerlint()
        .args(["--format", "short", "--report"])
        .arg(format!("sarif={}", sarif.display()))
        .arg("--report")
        .arg(format!("markdown={}", summary.display()))
        .arg("-")
        .stdin(DANGLING)
        .run();
    insta::assert_snapshot!("reports", out.printed());
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif written"))
            .expect("JSON");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "owner-not-found");
    let summary = std::fs::read_to_string(&summary).expect("summary written");
    insta::assert_snapshot!("reports-markdown", common::stable(&summary));

    let out = ownerlint()
        .args(["--report", "yaml=x", "-"])
        .stdin(DANGLING)
        .run();
    assert_eq!(out.code(), Some(2));
    let names: Vec<String> = common::formats().into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        out.stderr,
        format!(
            "error: invalid value 'yaml=x' for '--report <FORMAT=PATH>': unknown format \"yaml\" \
             (one of {})\n\nFor more information, try '--help'.\n",
            names.join(", ")
        )
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
        ownerlint()
            .current_dir(dir)
            .args(["--format", "short"])
            .args(args)
            .run()
    };
    // Alone, the Pod's owner is not in the input.
    let out = run(&["deploy/pod.yaml"]);
    assert_eq!(out.code(), Some(0));
    insta::assert_snapshot!("project-none", out.printed());
    // With the project indexed, the owner is found and its uid differs; the project file,
    // named again by `--project .`, is read once and its own finding stays unreported.
    let out = run(&["--project", ".", "deploy/pod.yaml"]);
    assert_eq!(out.code(), Some(1), "{}", out.stdout);
    insta::assert_snapshot!("project-dependent-changed", out.printed());
    // A change to the owner alone (the hook names only the changed file) is reported where it
    // breaks the unchanged dependent: the finding involves the changed file.
    let out = run(&["--project", ".", "deploy/owner.yaml"]);
    assert_eq!(out.code(), Some(1), "{}", out.stdout);
    insta::assert_snapshot!("project-owner-changed", out.printed());
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
    let run = |args: &[&str]| {
        ownerlint()
            .current_dir(dir)
            .args(["--no-config", "--format", "short"])
            .args(args)
            .run()
            .stdout
    };
    let together = run(&["a.yaml", "b.yaml"]);
    insta::assert_snapshot!("project-fresh-uid", together);
    assert_eq!(run(&["a.yaml", "--project", "b.yaml"]), together);
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
        ownerlint()
            .current_dir(dir)
            .args(["--no-config", "--format", format, "-"])
            .stdin(stream.as_str())
            .run()
            .stdout
    };
    // The template's own line, where its text is the rendered line's; a templated line cannot
    // be found by its text: the file, and the stream's line said.
    insta::assert_snapshot!("helm-stream-annotations", run("github"));
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).expect("JSON");
    let uris: Vec<&serde_json::Value> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|result| &result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        .collect();
    assert!(!uris.is_empty());
    assert!(
        uris.iter()
            .all(|uri| *uri == "charts/shop/templates/pod.yaml"),
        "{uris:?}"
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
    let out = ownerlint().args(["completions", "bash"]).run();
    assert_eq!(out.code(), Some(0));
    let script = dir.path().join("ownerlint.bash");
    std::fs::write(&script, &out.stdout).expect("write");
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
    let out = ownerlint().args(["explain", "owner-not-fond"]).run();
    assert_eq!(out.code(), Some(2));
    insta::assert_snapshot!("explain-a-mistyped-rule-completed", out.printed());
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
    let run_in =
        |dir: &std::path::Path, args: &[&str]| ownerlint().current_dir(dir).args(args).run();

    // Nothing changed: nothing to lint, and no walk of the repository instead.
    let out = run_in(repo, &hook);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    insta::assert_snapshot!("git-deletions-nothing-changed", out.printed());

    // A deletion that no reference names breaks nothing.
    common::git(&git, repo, &["rm", "--quiet", "notes.yaml"]);
    let out = run_in(repo, &hook);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    insta::assert_snapshot!("git-deletions-unnamed-file", out.printed());

    // The owner's manifest deleted (staged): the Pod it leaves is reported, in the project,
    // as an error that names the deleted file.
    common::git(&git, repo, &["rm", "--quiet", "deploy/replicaset.yaml"]);
    let out = run_in(repo, &hook);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    insta::assert_snapshot!("git-deletions-owner", out.printed());
    // From a folder below the top, paths are the working directory's.
    let out = run_in(&deploy, &hook);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    insta::assert_snapshot!("git-deletions-owner-from-below", out.printed());
    // The finding points at the deleted owner where it was.
    let out = run_in(
        repo,
        &["--project", ".", "--git-deletions", "--format", "json"],
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let related = &json["findings"][0]["related"][0];
    assert_eq!(related["path"], "deploy/replicaset.yaml", "{json}");
    assert_eq!(related["start"]["line"], 4, "{json}");

    // The dependent deleted in the same commit: nothing is left broken.
    common::git(&git, repo, &["rm", "--quiet", "deploy/pod.yaml"]);
    let out = run_in(repo, &hook);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);

    // Between two commits, as `pre-commit run --from-ref A --to-ref B` runs hooks in CI.
    common::git(&git, repo, &["reset", "--quiet", "--hard"]);
    common::git(&git, repo, &["rm", "--quiet", "deploy/replicaset.yaml"]);
    common::git(&git, repo, &["commit", "--quiet", "-m", "no replicaset"]);
    let out = run_in(repo, &hook);
    assert_eq!(out.code(), Some(0), "nothing staged: {}", out.stderr);
    let out = ownerlint()
        .current_dir(repo)
        .args(hook)
        .env("PRE_COMMIT_FROM_REF", "HEAD~1")
        .env("PRE_COMMIT_TO_REF", "HEAD")
        .run();
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    insta::assert_snapshot!("git-deletions-between-commits", out.printed());

    // Outside a repository, the option is an unreadable input, named.
    let elsewhere = common::temp_dir("git-deletions-none");
    let out = ownerlint()
        .current_dir(elsewhere.path())
        .args(hook)
        .env("GIT_CEILING_DIRECTORIES", "/")
        .run();
    assert_eq!(out.code(), Some(2), "{}", out.stderr);
    insta::assert_snapshot!("git-deletions-outside-a-repository", out.printed());
}

#[test]
fn the_summary_counts_the_owner_references_and_finalizers_checked() {
    // Two owner references and a finalizer linted; the context of --existing is not counted.
    let tmp = common::temp_dir("cli-checked");
    let dir = tmp.path();
    common::write_files(
        dir,
        &[
            (
                "app.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n  uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  finalizers:\n  - example.com/hold\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n  namespace: shop\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: cache\n    uid: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d\n",
            ),
            (
                "cluster.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  uid: 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d\n  finalizers: [example.com/a, example.com/b]\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: api\n    uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n",
            ),
            (
                "plain.yaml",
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n",
            ),
        ],
    );
    let markdown = dir.join("summary.md");
    let out = ownerlint()
        .current_dir(dir)
        .args(["--format", "json", "--existing", "cluster.yaml", "app.yaml"])
        .arg("--report")
        .arg(format!("markdown={}", markdown.display()))
        .run();
    assert!(
        out.stderr.starts_with(
            "ownerlint: 3 objects in 1 file; 2 owner references and 1 finalizer checked:"
        ),
        "{}",
        out.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(json["summary"]["owner_references"], 2, "{json}");
    assert_eq!(json["summary"]["finalizers"], 1, "{json}");
    let markdown = std::fs::read_to_string(&markdown).expect("the markdown report");
    assert!(
        markdown.contains(
            " in 3 objects from 1 file, with 2 owner references and 1 finalizer checked."
        ),
        "{markdown}"
    );
    // Nothing to check says so: objects, but not one reference.
    let out = ownerlint().current_dir(dir).arg("plain.yaml").run();
    assert!(
        out.stderr.starts_with(
            "ownerlint: 1 object in 1 file; 0 owner references and 0 finalizers checked: 0 errors,"
        ),
        "{}",
        out.stderr
    );
}
