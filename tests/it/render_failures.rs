//! Charts and overlays that fail to build (each one `render-failed` finding with the tool's own
//! message, at the place it names), and suppression comments in what they build. The helpers
//! are those of `render`.

use crate::common;
use crate::render::{copy_fixtures, lines, ownerlint, ownerlint_in};

use std::path::{Path, PathBuf};

#[test]
fn a_build_that_fails_is_one_finding_with_the_tools_own_message() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let dir = common::temp_dir("render-failed");
    common::write_files(
        dir.path(),
        &[
            (
                "db/Chart.yaml",
                "apiVersion: v2\nname: db\nversion: 0.1.0\n",
            ),
            (
                "db/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\ndata:\n  host: {{ required \"dbHost is required\" .Values.dbHost }}\n",
            ),
            // (A missing resource is ownerlint's own finding, before kustomize runs.)
            (
                "overlay/kustomization.yaml",
                "resources: []\npatches:\n- path: missing.yaml\n",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "."], None);
    let found = lines(&run.stdout);
    assert_eq!(found.len(), 2, "{}", run.stdout);
    // helm's position, in the template.
    assert_eq!(
        found[0],
        "db/templates/cm.yaml:6:12: error[render-failed]: helm template failed: execution error at (db/templates/cm.yaml:6:12): dbHost is required; nothing it builds was checked (from helm template db)"
    );
    // kustomize names the file it could not read; the finding is at the entry that names it.
    assert!(
        found[1].starts_with(&format!(
            "overlay/kustomization.yaml:3:9: error[render-failed]: {} failed: ",
            common::kustomize_command()
        )) && found[1].contains("missing.yaml: no such file or directory"),
        "{}",
        found[1]
    );
    assert_eq!(run.code(), Some(1));
}

/// kustomize's error names a file, not the line that names it: the finding is at the entry
/// (here a base's `configurations`, kustomize's example of custom image fields with the file
/// left out) of the kustomization that names it; an error that names no entry stays at the
/// overlay's kustomization file.
#[test]
fn a_kustomize_error_is_reported_at_the_entry_that_names_the_file() {
    let Some(_) = common::kubectl() else { return };
    let dir = common::temp_dir("render-failed-entry");
    common::write_files(
        dir.path(),
        &[
            ("app/overlay/kustomization.yaml", "resources:\n- ../base\n"),
            (
                "app/base/kustomization.yaml",
                "resources:\n- cm.yaml\n\nconfigurations:\n- kustomizeconfig/mykind.yaml\n",
            ),
            (
                "app/base/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
            ),
            (
                "other/kustomization.yaml",
                "resources:\n- cm.yaml\nnamePrefix: [not, a, string]\n",
            ),
            (
                "other/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "."], None);
    let found = lines(&run.stdout);
    let at = |prefix: &str| {
        found
            .iter()
            .filter(|line| line.contains("error[render-failed]"))
            .filter(|line| line.starts_with(prefix))
            .count()
    };
    assert_eq!(
        at("app/base/kustomization.yaml:5:3: error[render-failed]: "),
        1,
        "{}",
        run.stdout
    );
    assert_eq!(
        at("other/kustomization.yaml:1:1: error[render-failed]: "),
        1,
        "{}",
        run.stdout
    );
    assert_eq!(run.code(), Some(1));

    // Linted from inside the folder, as `.`.
    let run = ownerlint_in(
        &dir.path().join("app/base"),
        &["--format", "short", "."],
        None,
    );
    let found = lines(&run.stdout);
    assert!(
        found.len() == 1 && found[0].starts_with("kustomization.yaml:5:3: error[render-failed]: "),
        "{}",
        run.stdout
    );
}

#[test]
fn without_the_tools_each_chart_and_overlay_is_one_error_and_the_run_fails() {
    // A PATH with neither helm nor kubectl nor kustomize.
    let empty = common::temp_dir("no-tools");
    let run = ownerlint(
        &["--format", "short", "testdata/render"],
        Some(empty.path()),
    );
    assert_eq!(
        lines(&run.stdout),
        [
            "testdata/render/chart/Chart.yaml:1:1: error[render-failed]: helm is not on PATH, so this chart was not rendered and its objects were not checked (from helm template testdata/render/chart)",
            "testdata/render/shop/overlays/prod/kustomization.yaml:1:1: error[render-failed]: neither kustomize nor kubectl is on PATH, so this kustomization was not built and its objects were not checked (from kustomize build testdata/render/shop/overlays/prod)",
            "testdata/render/shop/overlays/staging/kustomization.yaml:1:1: error[render-failed]: neither kustomize nor kubectl is on PATH, so this kustomization was not built and its objects were not checked (from kustomize build testdata/render/shop/overlays/staging)",
        ]
    );
    // Nothing was checked of them: the run fails, and the summary names what went unbuilt.
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "; 3 not built (helm template testdata/render/chart, kustomize build testdata/render/shop/overlays/prod, kustomize build testdata/render/shop/overlays/staging);"
        ),
        "{}",
        run.stderr
    );
    // Where the tools are missing on purpose, the level is the user's to lower.
    let config = common::temp_dir("no-tools-config");
    std::fs::write(
        config.path().join(".ownerlint.yaml"),
        "rules:\n  render-failed: warning\n",
    )
    .expect("write the configuration");
    let config_file = config.path().join(".ownerlint.yaml");
    let run = ownerlint(
        &[
            "--format",
            "short",
            "--config",
            &config_file.to_string_lossy(),
            "testdata/render",
        ],
        Some(empty.path()),
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("warning[render-failed]"),
        "{}",
        run.stdout
    );
}

#[test]
fn suppression_comments_in_templates_and_bases_apply_to_what_they_build() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let dir = copy_fixtures();
    let edit = |file: &str, from: &str, to: &str| {
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.contains(from), "{file} holds {from}");
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
    };
    edit(
        "chart/templates/configmap.yaml",
        "    blockOwnerDeletoin: true\n",
        "    # ownerlint: ignore[owner-ref-unknown-field] kept to show the typo\n    blockOwnerDeletoin: true\n",
    );
    edit(
        "shop/base/configmap.yaml",
        "  ownerReferences:\n",
        "  ownerReferences:\n  # ownerlint: ignore[owner-not-found] the owner is created elsewhere\n",
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "chart", "shop"], None);
    assert!(
        !run.stdout.contains("owner-ref-unknown-field"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout
            .contains("shop/base/configmap.yaml:8:3: warning[owner-not-found]"),
        "{}",
        run.stdout
    );
    // The reference a patch adds is another place, not suppressed there.
    assert!(
        run.stdout
            .contains("shop/overlays/prod/add-owner.yaml:4:5: warning[owner-not-found]"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("2 suppressed"), "{}", run.stderr);
}

#[test]
fn a_build_that_fails_in_a_helper_template_is_reported_there() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("helper-fails");
    common::write_files(
        dir.path(),
        &[
            (
                "db/Chart.yaml",
                "apiVersion: v2\nname: db\nversion: 0.1.0\n",
            ),
            (
                "db/templates/_helpers.tpl",
                "{{- define \"db.host\" -}}\n{{ .Values.dbHost\n{{- end -}}\n",
            ),
            (
                "db/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\ndata:\n  host: {{ include \"db.host\" . }}\n",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "db"], None);
    // The place helm names is a `.tpl` file, which is no manifest: the finding stays there.
    assert!(
        run.stdout
            .starts_with("db/templates/_helpers.tpl:3:1: error[render-failed]")
            && run.stdout.contains("error[render-failed]")
            && run.stdout.contains("parse error"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
}

#[test]
fn a_build_past_its_timeout_is_stopped_with_every_process_it_started() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in helm that starts a child of its own and then never finishes (`sleep` by its
    // full path: the tools run with no program on `PATH`).
    let tools = common::temp_dir("hanging-helm");
    let pid_file = tools.path().join("child");
    let helm = tools.path().join("helm");
    std::fs::write(
        &helm,
        format!(
            "#!/bin/sh\n/bin/sleep 420 &\necho $! > '{}'\n/bin/sleep 420\n",
            pid_file.display()
        ),
    )
    .expect("write");
    std::fs::set_permissions(&helm, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::join_paths([
        tools.path().to_path_buf(),
        PathBuf::from("/bin"),
        PathBuf::from("/usr/bin"),
    ])
    .expect("PATH");
    let run = ownerlint(
        &[
            "--format",
            "short",
            "--render-timeout",
            "1",
            "testdata/render/chart",
        ],
        Some(Path::new(&path)),
    );
    assert_eq!(run.code(), Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "error[render-failed]: helm template could not be run: it had not finished after 1 second, and was stopped"
        ),
        "{}",
        run.stdout
    );
    let child = std::fs::read_to_string(&pid_file).expect("the stand-in started its child");
    let child = child.trim();
    // The child is gone: ended, and reaped by whoever adopted it (a zombie has ended too).
    let running = || {
        std::fs::read_to_string(format!("/proc/{child}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(") ")
                .is_some_and(|(_, s)| s.starts_with('Z'))
        })
    };
    let mut waited = 0;
    while running() && waited < 100 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    }
    assert!(!running(), "the helm's child {child} is still running");
}

#[test]
fn a_stale_suppression_in_a_template_or_a_base_is_reported_at_its_line() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let dir = common::temp_dir("render-unused-suppression");
    // A reference to an owner that is nowhere: owner-not-found, suppressed where it is written;
    // the other comment names a rule that finds nothing there.
    let pod = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: shop\n  # ownerlint: ignore[owner-ref-unknown-field] stale\n  labels:\n    app: web\n  ownerReferences:\n  # ownerlint: ignore[owner-not-found] made elsewhere\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: gone\n    uid: 6f1c1d0e-1b2a-4c3d-8e9f-0a1b2c3d4e5f\n"
        )
    };
    common::write_files(
        dir.path(),
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
            ),
            ("chart/templates/pod.yaml", &pod("{{ .Release.Name }}-web")),
            ("base/kustomization.yaml", "resources:\n- pod.yaml\n"),
            ("base/pod.yaml", &pod("web")),
            (
                "overlay/kustomization.yaml",
                "resources:\n- ../base\nnamePrefix: prod-\n",
            ),
        ],
    );
    let run = ownerlint_in(
        dir.path(),
        &["--no-config", "--format", "short", "chart", "overlay"],
        None,
    );
    assert_eq!(
        lines(&run.stdout),
        [
            "base/pod.yaml:6:23: warning[unused-suppression]: this suppression of `owner-ref-unknown-field` suppresses nothing: no owner-ref-unknown-field finding on this line or the next",
            "chart/templates/pod.yaml:6:23: warning[unused-suppression]: this suppression of `owner-ref-unknown-field` suppresses nothing: no owner-ref-unknown-field finding on this line or the next",
        ],
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("2 suppressed"), "{}", run.stderr);
    // Without suppression, both findings are there, and no comment is said to be unused.
    let run = ownerlint_in(
        dir.path(),
        &[
            "--no-config",
            "--format",
            "short",
            "--no-suppress",
            "chart",
            "overlay",
        ],
        None,
    );
    let found = lines(&run.stdout);
    assert_eq!(found.len(), 2, "{}", run.stdout);
    assert!(
        found.iter().all(|l| l.contains("warning[owner-not-found]")),
        "{}",
        run.stdout
    );
}

#[test]
fn a_base_built_by_two_overlays_has_a_suppression_unused_only_if_neither_uses_it() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let dir = common::temp_dir("render-two-overlays");
    common::write_files(
        dir.path(),
        &[
            ("base/kustomization.yaml", "resources:\n- pod.yaml\n"),
            (
                "base/pod.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: shop\n  ownerReferences:\n  # ownerlint: ignore[owner-not-found] made elsewhere\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: gone\n    uid: 6f1c1d0e-1b2a-4c3d-8e9f-0a1b2c3d4e5f\n",
            ),
            ("dev/kustomization.yaml", "resources:\n- ../base\n"),
            // This overlay drops the reference: only the other one uses the comment.
            (
                "prod/kustomization.yaml",
                "resources:\n- ../base\npatches:\n- path: no-owner.yaml\n",
            ),
            (
                "prod/no-owner.yaml",
                "- op: remove\n  path: /metadata/ownerReferences\n",
            ),
        ],
    );
    // A JSON 6902 patch names its target in the kustomization.
    common::write_files(
        dir.path(),
        &[(
            "prod/kustomization.yaml",
            "resources:\n- ../base\npatches:\n- path: no-owner.yaml\n  target:\n    kind: Pod\n    name: web\n",
        )],
    );
    let run = ownerlint_in(
        dir.path(),
        &["--no-config", "--format", "short", "dev", "prod"],
        None,
    );
    assert_eq!(run.stdout, "", "{}", run.stderr);
    assert!(run.stderr.contains("1 suppressed"), "{}", run.stderr);
    // Built by the overlay that drops the reference alone, the comment is unused.
    let run = ownerlint_in(
        dir.path(),
        &["--no-config", "--format", "short", "prod"],
        None,
    );
    assert!(
        run.stdout.starts_with(
            "base/pod.yaml:7:23: warning[unused-suppression]: this suppression of `owner-not-found` suppresses nothing"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn the_suppressions_of_a_chart_that_fails_to_build_are_not_called_unused() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let dir = common::temp_dir("render-failed-suppression");
    common::write_files(
        dir.path(),
        &[
            (
                "db/Chart.yaml",
                "apiVersion: v2\nname: db\nversion: 0.1.0\n",
            ),
            (
                "db/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n  # ownerlint: ignore[owner-not-found] made elsewhere\ndata:\n  host: {{ required \"dbHost is required\" .Values.dbHost }}\n",
            ),
        ],
    );
    let run = ownerlint_in(
        dir.path(),
        &["--no-config", "--format", "short", "db"],
        None,
    );
    let found = lines(&run.stdout);
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert!(found[0].contains("error[render-failed]"), "{}", run.stdout);
    // A base that an overlay which fails builds on: its comment may be for that overlay, which
    // was not checked, even where another overlay of the base has no use for it.
    common::write_files(
        dir.path(),
        &[
            ("base/kustomization.yaml", "resources:\n- pod.yaml\n"),
            (
                "base/pod.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: shop\n  # ownerlint: ignore[owner-not-found] made elsewhere\n  labels:\n    app: web\n",
            ),
            ("good/kustomization.yaml", "resources:\n- ../base\n"),
            (
                "bad/kustomization.yaml",
                "resources:\n- ../base\n- missing.yaml\n",
            ),
        ],
    );
    let run = ownerlint_in(
        dir.path(),
        &["--no-config", "--format", "short", "good", "bad"],
        None,
    );
    let found = lines(&run.stdout);
    assert_eq!(found.len(), 1, "{}", run.stdout);
    assert!(
        found[0].starts_with("bad/kustomization.yaml:3:3: error[render-failed]"),
        "{}",
        run.stdout
    );
    // Built alone by the overlay that builds, the comment is unused.
    let run = ownerlint_in(
        dir.path(),
        &["--no-config", "--format", "short", "good"],
        None,
    );
    assert!(
        run.stdout
            .starts_with("base/pod.yaml:6:23: warning[unused-suppression]"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_annotation_of_an_object_as_built_suppresses_and_is_reported_in_its_file() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let dir = common::temp_dir("render-annotation");
    common::write_files(
        dir.path(),
        &[
            ("base/kustomization.yaml", "resources:\n- pod.yaml\n"),
            (
                "base/pod.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    ownerlint.dev/ignore: \"owner-not-found,owner-kind-unknown\"\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: gone\n    uid: 6f1c1d0e-1b2a-4c3d-8e9f-0a1b2c3d4e5f\n",
            ),
            ("dev/kustomization.yaml", "resources:\n- ../base\n"),
            (
                "prod/kustomization.yaml",
                "resources:\n- ../base\nnamePrefix: prod-\n",
            ),
        ],
    );
    let run = ownerlint_in(
        dir.path(),
        &["--no-config", "--format", "short", "dev", "prod"],
        None,
    );
    // Each build's finding is suppressed; the rule that found nothing is said once, where the
    // annotation names it.
    assert_eq!(
        lines(&run.stdout),
        [format!(
            "base/pod.yaml:7:27: warning[unused-suppression]: this suppression of `owner-kind-unknown` suppresses nothing: no owner-kind-unknown finding in this object (from {} dev)",
            common::kustomize_command()
        )],
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("2 suppressed"), "{}", run.stderr);
}

#[test]
fn helms_template_error_lands_on_the_character_it_names() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("helm-columns");
    common::write_files(
        dir.path(),
        &[
            (
                "db/Chart.yaml",
                "apiVersion: v2\nname: db\nversion: 0.1.0\n",
            ),
            // helm counts a column in bytes, from 0: it puts `.a` at 18, after 18 bytes that
            // are 16 characters (each `é` takes two bytes), so it is the 17th character, and
            // its message says so too.
            (
                "db/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  éé: {{ .Values.a.b.c }}\n",
            ),
            (
                "fails/Chart.yaml",
                "apiVersion: v2\nname: fails\nversion: 0.1.0\n",
            ),
            ("fails/templates/cm.yaml", "a: b\n{{ fail \"boom\" }}\n"),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "db", "fails"], None);
    let found = lines(&run.stdout);
    assert_eq!(found.len(), 2, "{}", run.stdout);
    // On `.a` of `.Values.a.b.c` (the nil value's field), and on `fail`.
    assert!(
        found[0].starts_with("db/templates/cm.yaml:4:17: error[render-failed]: helm template failed: db/templates/cm.yaml:4:17 executing"),
        "{}",
        found[0]
    );
    assert!(
        "  éé: {{ .Values.a.b.c }}"
            .chars()
            .skip(16)
            .collect::<String>()
            .starts_with(".a")
    );
    assert!(
        found[1].starts_with("fails/templates/cm.yaml:2:4: error[render-failed]: helm template failed: execution error at (fails/templates/cm.yaml:2:4): boom"),
        "{}",
        found[1]
    );
}

#[test]
fn a_missing_chart_dependency_is_reported_at_its_entry() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("helm-dependency");
    common::write_files(
        dir.path(),
        &[
            (
                "shop/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 1.0.0\n    repository: https://charts.example.com\n  - name: pg\n    version: 1.0.0\n",
            ),
            (
                "shop/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\n",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "shop"], None);
    assert!(
        run.stdout
            .starts_with("shop/Chart.yaml:5:3: error[render-failed]: helm template failed: dependencies not in charts/: redis (from https://charts.example.com, which ownerlint does not download), pg (it names no repository); nothing it builds was checked"),
        "{}",
        run.stdout
    );
    assert_eq!(run.code(), Some(1));
}

#[test]
#[cfg(unix)]
fn the_pre_commit_hook_keeps_render_failed_for_a_chart_it_could_not_build() {
    // The hook's own command line (`.pre-commit-hooks.yaml`), given the changed template, in a
    // git work tree: each chart it could not build fails the commit exactly as a plain run of
    // the same file does, whether the template is wrong or helm is not installed.
    let (Some(git), Some(_)) = (common::require_tool("git", "Debian's git"), common::helm()) else {
        return;
    };
    let tmp = common::temp_dir("hook-render-failed");
    let repo = tmp.path();
    common::write_files(
        repo,
        &[
            (
                "db/Chart.yaml",
                "apiVersion: v2\nname: db\nversion: 0.1.0\n",
            ),
            (
                "db/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\ndata:\n  host: {{ required \"dbHost is required\" .Values.dbHost }}\n",
            ),
            (
                "web/Chart.yaml",
                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            ),
            (
                "web/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-web\n",
            ),
            (
                "deploy/owner.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owner\n  namespace: shop\n",
            ),
        ],
    );
    common::git(&git, repo, &["init", "--quiet"]);
    common::git(&git, repo, &["add", "."]);
    common::git(&git, repo, &["commit", "--quiet", "-m", "charts"]);
    let hook = ["--format", "short", "--project", ".", "--git-deletions"];
    // A PATH with git and nothing else: no helm, no kubectl.
    let git_only = common::temp_dir("hook-git-only");
    std::os::unix::fs::symlink(&git, git_only.path().join("git")).expect("link git");
    for (file, path, expected) in [
        (
            "db/templates/cm.yaml",
            None,
            "db/templates/cm.yaml:6:12: error[render-failed]: helm template failed: execution error at (db/templates/cm.yaml:6:12): dbHost is required; nothing it builds was checked (from helm template db)\n",
        ),
        (
            "web/templates/cm.yaml",
            Some(git_only.path()),
            "web/Chart.yaml:1:1: error[render-failed]: helm is not on PATH, so this chart was not rendered and its objects were not checked (from helm template web)\n",
        ),
    ] {
        let plain = ownerlint_in(repo, &["--format", "short", file], path);
        let hooked = ownerlint_in(repo, &[&hook[..], &[file]].concat(), path);
        for (how, run) in [("plain", &plain), ("the hook's way", &hooked)] {
            assert_eq!(run.stdout, expected, "{file}, {how}: {}", run.stderr);
            assert_eq!(run.code(), Some(1), "{file}, {how}: {}", run.stderr);
            assert!(
                run.stderr.contains("1 not built (helm template "),
                "{file}, {how}: {}",
                run.stderr
            );
        }
    }
}
