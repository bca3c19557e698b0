//! Helm charts and Kustomize overlays, built with the real tools and linted as built, with
//! each finding at the line of the file people edit (`testdata/render/`: a chart with a
//! subchart, and an overlay over a base). helm and kubectl (or kustomize) must be on `PATH`;
//! without them these tests are skipped, and under `CI=true` they fail (`.ci/run` installs
//! helm).

use crate::common;

use std::path::{Path, PathBuf};

/// `ownerlint ARGS` from the repository's root, with `path` as `PATH` when given.
fn ownerlint(args: &[&str], path: Option<&Path>) -> common::Run {
    ownerlint_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, path)
}

fn ownerlint_in(dir: &Path, args: &[&str], path: Option<&Path>) -> common::Run {
    let run = common::ownerlint()
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1");
    match path {
        Some(path) => run.env("PATH", path),
        None => run,
    }
    .run()
}

/// The lines of `short` output, each cut after its rule id and message start.
fn lines(stdout: &str) -> Vec<&str> {
    stdout.lines().collect()
}

#[test]
fn overlays_are_built_and_their_findings_land_in_the_base_the_patches_and_the_component() {
    if common::kubectl().is_none() {
        return;
    }
    let run = ownerlint(&["--format", "short", "testdata/render/shop"], None);
    let found = lines(&run.stdout);
    let expected = [
        // prod: the base's reference, which namePrefix did not rename, at the base's line.
        "testdata/render/shop/base/configmap.yaml:7:3: warning[owner-not-found]: ConfigMap shop/prod-web-settings → Deployment shop/web: kustomize renamed the owner to `prod-web` (namePrefix, nameSuffix) but not this reference",
        // staging, of the same base without a prefix: the owner is in its own build. (Its
        // Deployment shop/web is not prod's owner: each build is applied on its own.)
        "testdata/render/shop/base/configmap.yaml:10:10: error[owner-created-with-fresh-uid]: ConfigMap shop/web-settings → Deployment shop/web:",
        // staging's component adds a finalizer: in the component's patch.
        "testdata/render/shop/components/keep-on-delete/foreground.yaml:6:5: warning[deletion-finalizer-in-manifest]: ConfigMap shop/web-settings carries the `foregroundDeletion` finalizer",
        // prod's JSON 6902 patch adds an owner reference: in that patch.
        "testdata/render/shop/overlays/prod/add-owner.yaml:4:5: warning[owner-not-found]: ConfigMap shop/prod-web-settings → StatefulSet shop/cache:",
        // prod's strategic merge patch adds a finalizer: in that patch.
        "testdata/render/shop/overlays/prod/finalizers.yaml:6:5: warning[deletion-finalizer-in-manifest]: Deployment shop/prod-web carries the `orphan` finalizer",
    ];
    assert_eq!(found.len(), expected.len(), "{}", run.stdout);
    for (line, start) in found.iter().zip(expected) {
        assert!(
            line.starts_with(start),
            "{line}\nexpected it to start with\n{start}"
        );
    }
    let from = |overlay: &str| {
        format!(
            "(from {} testdata/render/shop/overlays/{overlay})",
            common::kustomize_command()
        )
    };
    assert!(found[0].ends_with(&from("prod")), "{}", found[0]);
    assert!(found[1].ends_with(&from("staging")), "{}", found[1]);
    // The base and the component are built as part of the overlays that use them, not alone.
    assert!(
        run.stderr
            .contains("4 objects in 2 overlays; 3 owner references and 2 finalizers checked; 2 bases and components built through other overlays:"),
        "{}",
        run.stderr
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
}

#[test]
#[cfg(unix)]
fn an_overlay_named_through_a_symbolic_link_maps_to_the_files_beside_its_target() {
    if common::kubectl().is_none() {
        return;
    }
    let dir = copy_fixtures();
    std::os::unix::fs::symlink(
        dir.path().join("shop/overlays/prod"),
        dir.path().join("prod-link"),
    )
    .expect("symlink");
    let run = ownerlint_in(dir.path(), &["--format", "short", "prod-link"], None);
    assert!(
        run.stdout
            .contains("\nshop/base/configmap.yaml:7:3: warning[owner-not-found]"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("prod-link/finalizers.yaml:6:5: warning[deletion-finalizer-in-manifest]"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("(rendered)"), "{}", run.stdout);
}

#[test]
fn a_component_alone_builds_nothing() {
    let run = ownerlint(
        &[
            "--format",
            "short",
            "testdata/render/shop/components/keep-on-delete",
        ],
        None,
    );
    assert_eq!(run.stdout, "");
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
}

#[test]
fn a_chart_is_rendered_and_its_findings_land_on_template_lines() {
    if common::helm().is_none() {
        return;
    }
    let run = ownerlint(
        &[
            "--format",
            "short",
            "--release-name",
            "shop",
            "-n",
            "payments",
            "testdata/render/chart",
        ],
        None,
    );
    let found = lines(&run.stdout);
    assert_eq!(found.len(), 5, "{}", run.stdout);
    // The subchart, whose directory (cache-dir) is not its name (cache).
    assert!(
        found[0].starts_with(
            "testdata/render/chart/charts/cache-dir/templates/cache.yaml:6:17: error[owner-api-unserved]: ConfigMap payments/shop-cache → ReplicaSet payments/shop-web-5d9c:"
        ),
        "{}",
        found[0]
    );
    assert!(
        found[1].starts_with(
            "testdata/render/chart/templates/configmap.yaml:9:10: error[owner-created-with-fresh-uid]: ConfigMap payments/shop-settings → Deployment payments/shop-web:"
        ),
        "{}",
        found[1]
    );
    assert!(
        found[2].starts_with(
            "testdata/render/chart/templates/configmap.yaml:10:5: warning[owner-ref-unknown-field]: `blockOwnerDeletoin`"
        ),
        "{}",
        found[2]
    );
    assert!(
        found
            .iter()
            .all(|l| l.ends_with("(from helm template testdata/render/chart)")),
        "{}",
        run.stdout
    );
    // The subchart is built as part of its parent, not alone.
    assert!(
        run.stderr
            .contains("5 objects in 1 chart; 4 owner references and 0 finalizers checked; 1 subchart built through its parent chart:"),
        "{}",
        run.stderr
    );
    assert_eq!(run.code(), Some(1));
}

#[test]
fn values_files_and_set_reach_helm() {
    if common::helm().is_none() {
        return;
    }
    let extra = |args: &[&str]| {
        let mut all = vec!["--format", "short"];
        all.extend_from_slice(args);
        all.push("testdata/render/chart");
        let run = ownerlint(&all, None);
        run.stdout
            .lines()
            .filter(|l| l.contains("templates/extra.yaml"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(extra(&[]), Vec::<String>::new());
    let from_values = extra(&["--values", "testdata/render/extra-values.yaml"]);
    assert_eq!(from_values.len(), 1);
    assert!(
        from_values[0].starts_with(
            "testdata/render/chart/templates/extra.yaml:7:5: warning[deletion-finalizer-in-manifest]: ConfigMap default/from-values"
        ),
        "{}",
        from_values[0]
    );
    let from_set = extra(&[
        "--values",
        "testdata/render/extra-values.yaml",
        "--set",
        "extra=from-set",
    ]);
    assert!(
        from_set[0].contains("ConfigMap default/from-set"),
        "{}",
        from_set[0]
    );
}

#[test]
fn a_values_file_that_does_not_exist_and_a_set_without_a_key_are_usage_errors() {
    // Found before anything is built: with or without helm on PATH.
    let empty = common::temp_dir("no-tools");
    for path in [None, Some(empty.path())] {
        for (args, error) in [
            (
                &["--values", "testdata/render/missing-values.yaml"][..],
                "error: invalid value 'testdata/render/missing-values.yaml' for '--values <FILE>': no such file\n",
            ),
            (
                &["--values", "testdata/render/chart"][..],
                "error: invalid value 'testdata/render/chart' for '--values <FILE>': a directory, not a values file\n",
            ),
            (
                &["--set", "replicas"][..],
                "error: invalid value 'replicas' for '--set <KEY=VALUE>': expected KEY=VALUE, e.g. image.tag=1.2\n",
            ),
        ] {
            let mut all = vec!["--format", "short"];
            all.extend_from_slice(args);
            all.push("testdata/render/chart");
            let run = ownerlint(&all, path);
            assert_eq!(run.code(), Some(2), "{}", run.stderr);
            assert_eq!(run.stdout, "");
            assert!(run.stderr.starts_with(error), "{}", run.stderr);
            assert!(!run.stderr.contains("render-failed"), "{}", run.stderr);
        }
    }
}

#[test]
fn values_and_set_that_no_chart_takes_are_said_to_be_unused() {
    let warning = |stderr: &str| {
        stderr
            .lines()
            .filter(|l| l.starts_with("ownerlint: warning:"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let values = ["--values", "testdata/render/extra-values.yaml"];
    // Overlays only: kustomize takes no values.
    let mut args = vec!["--format", "short"];
    args.extend_from_slice(&values);
    args.extend_from_slice(&["--set", "extra=x", "testdata/render/shop"]);
    let run = ownerlint(&args, None);
    assert_eq!(
        warning(&run.stderr),
        [
            "ownerlint: warning: --values and --set were not used: they apply to Helm charts only, and the input holds no chart"
        ],
        "{}",
        run.stderr
    );
    // A warning, not an error: the exit status is the findings' (as without the flags).
    let without = ownerlint(&["--format", "short", "testdata/render/shop"], None);
    assert_eq!(run.code(), without.code());
    assert_eq!(run.stdout, without.stdout);
    // With --no-render, no chart is built.
    let mut args = vec!["--format", "short", "--no-render"];
    args.extend_from_slice(&values);
    args.push("testdata/render/chart");
    let run = ownerlint(&args, None);
    assert_eq!(
        warning(&run.stderr),
        [
            "ownerlint: warning: --values was not used: it applies to Helm charts only, which --no-render does not build"
        ],
        "{}",
        run.stderr
    );
    // A chart among the inputs takes them: no warning (built or not).
    let mut args = vec!["--format", "short"];
    args.extend_from_slice(&values);
    args.push("testdata/render");
    let run = ownerlint(&args, None);
    assert_eq!(warning(&run.stderr), Vec::<String>::new(), "{}", run.stderr);
}

#[test]
fn an_object_defined_twice_in_one_build_is_told_in_the_builds_terms() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    // kustomize builds both (its identity of an object includes the version); the cluster
    // keeps one HorizontalPodAutoscaler shop/web.
    let hpa = |version: &str, replicas: u32| {
        format!(
            "apiVersion: autoscaling/{version}\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n  maxReplicas: {replicas}\n"
        )
    };
    let (v1, v2) = (hpa("v1", 3), hpa("v2", 5));
    let dir = common::temp_dir("duplicate-in-build");
    common::write_files(
        dir.path(),
        &[
            ("base/hpa-v1.yaml", &v1),
            ("base/hpa-v2.yaml", &v2),
            (
                "base/kustomization.yaml",
                "resources:\n- hpa-v1.yaml\n- hpa-v2.yaml\n",
            ),
            (
                "overlays/prod/kustomization.yaml",
                "resources:\n- ../../base\nnamespace: shop\n",
            ),
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
            ),
            (
                "chart/templates/a.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n",
            ),
            (
                "chart/templates/b.yaml",
                "# the same again\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  b: \"2\"\n",
            ),
        ],
    );
    let consequence = "applied together, the second definition overwrites the first (or `kubectl create` fails on it), and owner references to it are ambiguous";
    let run = ownerlint_in(
        dir.path(),
        &["--format", "short", "overlays/prod", "chart"],
        None,
    );
    assert_eq!(
        lines(&run.stdout),
        [
            format!(
                "base/hpa-v2.yaml:4:9: warning[duplicate-object]: HorizontalPodAutoscaler shop/web is defined twice in `{kustomize} overlays/prod`: first in base/hpa-v1.yaml:4: {consequence} (from {kustomize} overlays/prod)",
                kustomize = common::kustomize_command()
            ),
            format!(
                "chart/templates/b.yaml:5:9: warning[duplicate-object]: ConfigMap default/settings is defined twice in `helm template chart`: first in chart/templates/a.yaml:4: {consequence} (from helm template chart)"
            ),
        ],
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("(rendered)"), "{}", run.stdout);
    // Both labels are on the files.
    let json: serde_json::Value = serde_json::from_str(
        &ownerlint_in(dir.path(), &["--format", "json", "overlays/prod"], None).stdout,
    )
    .expect("JSON");
    let finding = &json["findings"][0];
    assert_eq!(finding["path"], "base/hpa-v2.yaml");
    assert_eq!(finding["label"], "defined again here");
    assert_eq!(finding["related"][0]["path"], "base/hpa-v1.yaml");
    assert_eq!(finding["related"][0]["start"]["line"], 4);
    assert_eq!(finding["related"][0]["message"], "first defined here");
    assert!(
        finding["help"]
            .as_str()
            .is_some_and(|h| h.contains("build them from separate overlays or charts")),
        "{finding:#}"
    );
}

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
    assert!(
        found[1].starts_with(&format!(
            "overlay/kustomization.yaml:1:1: error[render-failed]: {} failed: ",
            common::kustomize_command()
        )) && found[1].contains("missing.yaml: no such file or directory"),
        "{}",
        found[1]
    );
    assert_eq!(run.code(), Some(1));
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
fn no_render_reads_the_files_as_they_are() {
    let run = ownerlint(
        &["--format", "short", "--no-render", "testdata/render/chart"],
        None,
    );
    // One line for the chart (its subchart's templates included), not one a template: at
    // its own first template, with how many went unchecked and the flag to drop.
    assert_eq!(
        run.stdout,
        "testdata/render/chart/templates/configmap.yaml:4:9: warning[unrendered-template]: chart testdata/render/chart was not rendered (--no-render), so the objects of its 5 templates were not checked\n"
    );
    let json = ownerlint(
        &["--format", "json", "--no-render", "testdata/render/chart"],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(
        json["findings"][0]["help"],
        "drop --no-render to build it with helm, or lint what it renders: `helm template <release> testdata/render/chart | ownerlint -`"
    );
    // A template named alone is the one template of its chart checked.
    let run = ownerlint(
        &[
            "--format",
            "short",
            "--no-render",
            "testdata/render/chart/templates/pair.yaml",
        ],
        None,
    );
    assert_eq!(
        run.stdout,
        "testdata/render/chart/templates/pair.yaml:4:9: warning[unrendered-template]: chart testdata/render/chart was not rendered (--no-render), so this template's objects were not checked\n"
    );
    // Beside an overlay (whose files are read as they are), the chart is still one line.
    let run = ownerlint(
        &["--format", "short", "--no-render", "testdata/render"],
        None,
    );
    let unrendered: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("unrendered-template"))
        .collect();
    assert_eq!(unrendered.len(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("render-failed"), "{}", run.stdout);
}

#[test]
fn no_render_does_not_count_kustomization_files_as_objects() {
    // A kustomization is kustomize's configuration, never applied: not an object to lint
    // or count, but said to be skipped.
    let json = ownerlint(
        &["--format", "json", "--no-render", "testdata/render/shop"],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let kustomizations = walk_names(std::path::Path::new("testdata/render/shop"))
        .into_iter()
        .filter(|p| p.ends_with("kustomization.yaml"))
        .count();
    assert!(kustomizations > 0);
    assert_eq!(
        json["summary"]["skipped_documents"],
        serde_json::json!(kustomizations),
        "{json}"
    );
    let run = ownerlint(&["--no-render", "testdata/render/shop"], None);
    assert!(
        run.stderr.contains(&format!(
            "skipped {kustomizations} kustomizations (--no-render)"
        )),
        "{}",
        run.stderr
    );
    // Named alone, it is said to be skipped, not taken for no file.
    let run = ownerlint(
        &[
            "--no-render",
            "testdata/render/shop/base/kustomization.yaml",
        ],
        None,
    );
    // The summary ends with the run's time, which varies: compare up to it.
    let summary = run.stderr.rsplit_once(" (").map(|(line, _)| line);
    assert_eq!(
        summary,
        Some(
            "ownerlint: 0 objects in 0 files; 0 owner references and 0 finalizers checked; skipped 1 kustomization (--no-render): 0 errors, 0 warnings, 0 info"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.ends_with("s)\n"), "{}", run.stderr);
}

/// Every file below `dir`.
fn walk_names(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("the folder is read")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk_names(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn github_and_sarif_annotate_the_source_files() {
    if common::helm().is_none() {
        return;
    }
    let run = ownerlint(&["--format", "github", "testdata/render/chart"], None);
    assert!(
        run.stdout.contains(
            "::error file=testdata/render/chart/templates/configmap.yaml,line=9,col=10,endLine=9,endColumn=46,title=ownerlint owner-created-with-fresh-uid::"
        ),
        "{}",
        run.stdout
    );
    let run = ownerlint(&["--format", "sarif", "testdata/render/chart"], None);
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    assert_eq!(common::sarif_schema_errors(&sarif), Vec::<String>::new());
    let locations: Vec<(String, u64)> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let physical = &r["locations"][0]["physicalLocation"];
            (
                physical["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                physical["region"]["startLine"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(
        locations.contains(&(
            "testdata/render/chart/templates/configmap.yaml".to_string(),
            9
        )),
        "{locations:?}"
    );
    assert!(
        locations.iter().all(|(uri, _)| !uri.contains("(rendered)")),
        "{locations:?}"
    );
}

#[test]
fn an_approximate_position_says_so_in_every_format() {
    if common::helm().is_none() {
        return;
    }
    // The owner reference comes from a helper: the template writes no line of it, so the
    // finding goes to the nearest key the template writes (`metadata:`). The reference that
    // `exact.yaml` writes itself is found exactly.
    let dir = common::temp_dir("approximate");
    common::write_files(
        dir.path(),
        &[
            (
                "web/Chart.yaml",
                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            ),
            (
                "web/templates/_helpers.tpl",
                "{{- define \"web.owner\" -}}\nownerReferences:\n- apiVersion: apps/v1\n  kind: Deployment\n  name: gone\n  uid: 0c5e1f3a-8d2b-4e6f-9a7c-1b3d5f7e9a2c\n{{- end }}\n",
            ),
            (
                "web/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  {{- include \"web.owner\" . | nindent 2 }}\ndata:\n  mode: fast\n",
            ),
            (
                "web/templates/exact.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: exact\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: lost\n    uid: 5b2f8c1d-3e4a-4b6c-8d9e-0f1a2b3c4d5e\n",
            ),
        ],
    );
    let run = |format: &str| ownerlint_in(dir.path(), &["--format", format, "web"], None).stdout;
    let said = "(the position is approximate: the nearest place its source writes)";

    let short = run("short");
    let found = lines(&short);
    assert_eq!(found.len(), 2, "{short}");
    assert!(
        found[0].starts_with("web/templates/cm.yaml:3:1: warning[owner-not-found]: ConfigMap default/settings → Deployment default/gone:")
            && found[0].ends_with(&format!("(from helm template web) {said}")),
        "{short}"
    );
    assert!(
        found[1].starts_with("web/templates/exact.yaml:6:3: warning[owner-not-found]: ConfigMap default/exact → Deployment default/lost:")
            && found[1].ends_with("(from helm template web)"),
        "{short}"
    );

    let github = run("github");
    let annotations: Vec<&str> = github.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 2, "{github}");
    assert!(
        annotations[0].starts_with("::warning file=web/templates/cm.yaml,line=3,col=1,")
            && annotations[0].contains(&format!("(from helm template web) {said}%0Ahelp: ")),
        "{github}"
    );
    assert!(!annotations[1].contains("approximate"), "{github}");

    let markdown = run("markdown");
    assert!(
        markdown.contains(&format!("(from helm template web) {said} |")),
        "{markdown}"
    );

    // SARIF: in the message, and as a property of the result and of its location.
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).expect("SARIF is JSON");
    assert_eq!(common::sarif_schema_errors(&sarif), Vec::<String>::new());
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{results:#?}");
    let (approximate, exact) = (&results[0], &results[1]);
    assert!(
        approximate["message"]["text"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("(from helm template web) {said}\nhelp: "))),
        "{approximate:#}"
    );
    assert_eq!(approximate["properties"]["approximatePosition"], true);
    assert_eq!(
        approximate["locations"][0]["properties"]["approximatePosition"],
        true
    );
    assert_eq!(
        approximate["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert!(
        exact["message"]["text"]
            .as_str()
            .is_some_and(|m| !m.contains("approximate")),
        "{exact:#}"
    );
    assert_eq!(exact["properties"], serde_json::Value::Null, "{exact:#}");
    assert_eq!(exact["locations"][0]["properties"], serde_json::Value::Null);

    // pretty and JSON say it in the label.
    let label =
        "Deployment default/gone not found (in the build: the nearest place its source writes)";
    let pretty = run("pretty");
    assert!(pretty.contains(label), "{pretty}");
    let json: serde_json::Value = serde_json::from_str(&run("json")).expect("JSON");
    assert_eq!(json["findings"][0]["label"], label);
    assert_eq!(
        json["findings"][1]["label"],
        "Deployment default/lost not found"
    );
}

#[test]
fn a_file_named_in_a_chart_lints_the_chart_as_rendered() {
    // pre-commit names the changed files: a changed template is checked as its chart renders.
    if common::helm().is_none() {
        return;
    }
    let run = ownerlint(
        &[
            "--format",
            "short",
            "testdata/render/chart/templates/configmap.yaml",
        ],
        None,
    );
    assert!(
        run.stdout
            .contains("testdata/render/chart/templates/configmap.yaml:9:10: error[owner-created-with-fresh-uid]"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("unrendered-template"),
        "{}",
        run.stdout
    );
}

/// A copy of `testdata/render/` in a temporary folder, to change.
fn copy_fixtures() -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/render");
    common::copy_tree(&from, "render-copy")
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
fn fixes_never_touch_what_a_chart_or_overlay_builds() {
    let (Some(_), Some(_)) = (common::helm(), common::kubectl()) else {
        return;
    };
    let dir = copy_fixtures();
    let before = std::fs::read_to_string(
        dir.path()
            .join("chart/charts/cache-dir/templates/cache.yaml"),
    )
    .expect("read");
    let run = ownerlint_in(
        dir.path(),
        &[
            "--format",
            "short",
            "--fix",
            "--unsafe-fixes",
            "chart",
            "shop",
        ],
        None,
    );
    let after = std::fs::read_to_string(
        dir.path()
            .join("chart/charts/cache-dir/templates/cache.yaml"),
    )
    .expect("read");
    assert_eq!(before, after);
    assert!(
        run.stdout.contains("error[owner-api-unserved]"),
        "{}",
        run.stdout
    );
    assert!(!run.stderr.contains("fixed"), "{}", run.stderr);
}

#[test]
fn a_library_chart_renders_nothing_and_its_templates_are_not_read() {
    let dir = common::temp_dir("library-chart");
    common::write_files(
        dir.path(),
        &[
            (
                "common/Chart.yaml",
                "apiVersion: v2\nname: common\ntype: library\nversion: 0.1.0\n",
            ),
            (
                "common/templates/_configmap.yaml",
                "{{- define \"common.configmap\" -}}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .name }}\n{{- end }}\n",
            ),
        ],
    );
    // Whether or not helm is installed: a library chart is not something to install.
    let empty = common::temp_dir("no-tools");
    for path in [None, Some(empty.path())] {
        let run = ownerlint_in(dir.path(), &["--format", "short", "."], path);
        assert_eq!(run.stdout, "", "{}", run.stderr);
        assert_eq!(run.code(), Some(0), "{}", run.stderr);
    }
}

#[test]
#[cfg(unix)]
fn helm_gets_the_options_and_none_of_the_shells_helm_settings() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in helm that records how it was called and renders 200,000 lines (more than a
    // pipe holds, so its output must be read while it runs).
    let tools = common::temp_dir("fake-helm");
    let record = tools.path().join("called");
    let helm = tools.path().join("helm");
    std::fs::write(
        &helm,
        format!(
            "#!/bin/sh\necho \"$@\" > '{record}'\necho \"HELM_NAMESPACE=$HELM_NAMESPACE KUBECONFIG=$KUBECONFIG\" >> '{record}'\necho '---'\necho '# Source: shop/templates/cm.yaml'\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: big\\ndata:\\n'\ni=0\nwhile [ $i -lt 200000 ]; do echo \"  k$i: v\"; i=$((i+1)); done\n",
            record = record.display()
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
    // A values file must exist: it is given to helm as it was written.
    let values = tools.path().join("a.yaml");
    std::fs::write(&values, "x: 0\n").expect("write");
    let values = values.display().to_string();
    let output = common::ownerlint()
        .args([
            "--format",
            "short",
            "--release-name",
            "shop",
            "-n",
            "payments",
            "--kube-version",
            "1.30",
            "--values",
            &values,
            "--set",
            "x=1",
            "testdata/render/chart",
        ])
        .env("PATH", path)
        .env("HELM_NAMESPACE", "from-the-shell")
        .env("KUBECONFIG", "/somewhere/else")
        .run();
    let stderr = &output.stderr;
    assert_eq!(output.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("1 object in 1 chart; 0 owner references and 0 finalizers checked; 1 subchart built through its parent chart:"),
        "{stderr}"
    );
    let called = std::fs::read_to_string(&record).expect("the stand-in ran");
    assert_eq!(
        called,
        format!(
            "template --include-crds --namespace payments --kube-version v1.30.0 --values {values} --set x=1 -- shop testdata/render/chart\nHELM_NAMESPACE= KUBECONFIG=/dev/null\n"
        )
    );
}

#[test]
fn every_input_is_accounted_for_in_testdata_and_the_examples() {
    if common::helm().is_none() || common::kubectl().is_none() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["testdata", "examples"] {
        assert_eq!(
            common::unaccounted_inputs(&root.join(dir)),
            Vec::<String>::new(),
            "{dir}"
        );
    }
}

const STRAY_CONFIGMAP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: example
  namespace: shop
  ownerReferences:
  - apiVersion: apps/v1
    kind: Deployment
    name: gone
    uid: 0b9c1c4e-2d3f-4a5b-8c6d-7e8f9a0b1c2d
";

#[test]
fn nested_overlays_and_manifests_beside_a_kustomization_are_checked_too() {
    if common::kubectl().is_none() {
        return;
    }
    let dir = common::temp_dir("accounted");
    let pod = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: shop\n")
    };
    common::write_files(
        dir.path(),
        &[
            ("app/kustomization.yaml", "resources:\n- settings.yaml\n"),
            ("app/settings.yaml", &pod("settings")),
            // Beside the kustomization, and not among its resources.
            ("app/example.yaml", STRAY_CONFIGMAP),
            // Overlays below it: a base, a variant that builds on it, and one of its own.
            ("app/base/kustomization.yaml", "resources:\n- web.yaml\n"),
            ("app/base/web.yaml", &pod("web")),
            (
                "app/variants/prod/kustomization.yaml",
                "resources:\n- ../../base\nnamePrefix: prod-\n",
            ),
            (
                "app/tests/smoke/kustomization.yaml",
                "resources:\n- job.yaml\n",
            ),
            ("app/tests/smoke/job.yaml", &pod("smoke")),
        ],
    );
    let run = ownerlint_in(
        dir.path(),
        &["--format", "short", "--show-inputs", "app"],
        None,
    );
    assert_eq!(
        lines(&run.stdout),
        [
            "app/example.yaml:7:3: warning[owner-not-found]: ConfigMap shop/example → Deployment shop/gone: Deployment shop/gone is not in the input; unless it already exists in the cluster with uid `0b9c1c4e-2d3f-4a5b-8c6d-7e8f9a0b1c2d`, the garbage collector deletes ConfigMap shop/example (no other owner keeps it)"
        ],
        "{}",
        run.stderr
    );
    let shown: Vec<&str> = run.stderr.lines().collect();
    // Each build named by the command that ran.
    let kustomize = common::kustomize_command();
    assert_eq!(
        shown[..6],
        [
            format!("{kustomize} app: built, 1 object"),
            format!("{kustomize} app/base: skipped: part of `{kustomize} app/variants/prod`"),
            format!("{kustomize} app/tests/smoke: built, 1 object"),
            format!("{kustomize} app/variants/prod: built, 1 object"),
            "app/example.yaml: linted on its own".to_string(),
            "ownerlint: 7 files read by the builds above, not linted on their own".to_string(),
        ],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("ownerlint: 4 objects in 1 file and 3 overlays; 1 owner reference and 0 finalizers checked; 1 base or component built through another overlay:"),
        "{}",
        run.stderr
    );
    assert_eq!(
        common::unaccounted_inputs(&dir.path().join("app")),
        Vec::<String>::new()
    );
    // A file named inside an overlay that does not build it is linted on its own.
    let run = ownerlint_in(
        &dir.path().join("app"),
        &["--format", "short", "example.yaml"],
        None,
    );
    assert!(
        run.stdout
            .starts_with("example.yaml:7:3: warning[owner-not-found]"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(
        run.stderr.contains("1 object in 1 file; "),
        "{}",
        run.stderr
    );
}

#[test]
fn a_file_of_a_subchart_builds_the_chart_that_holds_it() {
    if common::helm().is_none() {
        return;
    }
    let run = ownerlint(
        &[
            "--format",
            "short",
            "testdata/render/chart/charts/cache-dir/templates/cache.yaml",
        ],
        None,
    );
    assert!(
        run.stdout.starts_with(
            "testdata/render/chart/charts/cache-dir/templates/cache.yaml:6:17: error[owner-api-unserved]"
        ) && run.stdout.trim_end().ends_with("(from helm template testdata/render/chart)"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!run.stdout.contains("render-failed"), "{}", run.stdout);
}

#[test]
fn a_charts_crds_are_part_of_its_build() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("chart-crds");
    common::write_files(
        dir.path(),
        &[
            (
                "widgets/Chart.yaml",
                "apiVersion: v2\nname: widgets\nversion: 0.1.0\n",
            ),
            (
                "widgets/crds/widget.yaml",
                "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
",
            ),
            (
                "widgets/templates/settings.yaml",
                "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  ownerReferences:
  - apiVersion: example.com/v1
    kind: Widget
    name: main
    uid: 0b9c1c4e-2d3f-4a5b-8c6d-7e8f9a0b1c2d
",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "widgets"], None);
    // The chart's own CRD says Widget is cluster-scoped: the scope checks run, and the kind
    // is not "unknown".
    assert!(!run.stdout.contains("owner-kind-unknown"), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "widgets/templates/settings.yaml:6:3: warning[owner-not-found]: ConfigMap default/settings → Widget main:"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("2 objects in 1 chart; "),
        "{}",
        run.stderr
    );
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

/// An overlay that renames its base's Deployment (`namePrefix: prod-`), whose ConfigMap's
/// reference still names `web`; and an unrelated app with a `Deployment web` of its own, in
/// another namespace.
const RENAMED_OWNER_AND_AN_UNRELATED_APP: &[(&str, &str)] = &[
    (
        "app/base/kustomization.yaml",
        "resources:\n- deploy.yaml\n- cm.yaml\n",
    ),
    (
        "app/base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
    ),
    (
        "app/base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: 11111111-2222-3333-4444-555555555555\n",
    ),
    (
        "app/prod/kustomization.yaml",
        "namespace: prod\nnamePrefix: prod-\nresources:\n- ../base\n",
    ),
    (
        "app/staging/kustomization.yaml",
        "namespace: staging\nresources:\n- ../base\n",
    ),
    (
        "other/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
    ),
    (
        "other-app/kustomization.yaml",
        "namespace: other\nresources:\n- deploy.yaml\n",
    ),
    (
        "other-app/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
    ),
];

#[test]
fn an_overlays_reference_is_resolved_in_its_own_build_whatever_else_is_linted() {
    if common::kubectl().is_none() {
        return;
    }
    let dir = common::temp_dir("own-build-first");
    common::write_files(dir.path(), RENAMED_OWNER_AND_AN_UNRELATED_APP);
    let renamed = format!(
        "app/base/cm.yaml:6:3: warning[owner-not-found]: ConfigMap prod/prod-web-config → Deployment prod/web: kustomize renamed the owner to `prod-web` (namePrefix, nameSuffix) but not this reference, which still names Deployment prod/web; unless that exists in the cluster with uid `11111111-2222-3333-4444-555555555555`, the garbage collector deletes ConfigMap prod/prod-web-config (no other owner keeps it) (from {} app/prod)",
        common::kustomize_command()
    );
    // Alone, beside an unrelated file, and beside an unrelated overlay: the same warning,
    // never the unrelated Deployment in namespace "other".
    for unrelated in [
        None,
        Some("other/deploy.yaml"),
        Some("other"),
        Some("other-app"),
    ] {
        let mut args = vec!["--format", "short", "app/prod"];
        args.extend(unrelated);
        let run = ownerlint_in(dir.path(), &args, None);
        assert_eq!(
            lines(&run.stdout),
            [renamed.as_str()],
            "{unrelated:?}: {}",
            run.stderr
        );
        assert_eq!(run.code(), Some(0), "{unrelated:?}: {}", run.stderr);
    }
    // An overlay that holds the owner itself, under its own name: another file's object in
    // another namespace that is applied with the reference's uid (`--mode apply`) gives it no
    // uid, so it is not the owner either.
    let with_uid = RENAMED_OWNER_AND_AN_UNRELATED_APP[5].1.replace(
        "  namespace: other\n",
        "  namespace: other\n  uid: 11111111-2222-3333-4444-555555555555\n",
    );
    common::write_files(dir.path(), &[("other/deploy.yaml", &with_uid)]);
    let run = |args: &[&str]| {
        let run = ownerlint_in(dir.path(), &[&["--format", "short"], args].concat(), None);
        lines(&run.stdout)
            .into_iter()
            .filter(|line| line.starts_with("app/"))
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    let fresh = "app/base/cm.yaml:9:10: error[owner-created-with-fresh-uid]: ConfigMap staging/web-config → Deployment staging/web:";
    let alone = run(&["--mode", "apply", "app/staging"]);
    assert!(alone.len() == 1 && alone[0].starts_with(fresh), "{alone:?}");
    let together = run(&["--mode", "apply", "app/staging", "other/deploy.yaml"]);
    assert_eq!(together, alone);
    // Read as a copy of the cluster's object (as it is without --mode: it has a uid), it is
    // evidence that the cluster holds that uid in another namespace, as the garbage collector
    // finds it.
    let snapshot = run(&["app/staging", "other/deploy.yaml"]);
    assert!(
        snapshot.len() == 1 && snapshot[0].contains("error[cross-namespace-owner]"),
        "{snapshot:?}"
    );
}

#[test]
fn a_build_is_named_by_the_command_that_ran() {
    if common::kubectl().is_none() {
        return;
    }
    let dir = common::temp_dir("build-command");
    common::write_files(dir.path(), RENAMED_OWNER_AND_AN_UNRELATED_APP);
    let kustomize = common::kustomize_command();
    let run = ownerlint_in(
        dir.path(),
        &["--format", "json", "--show-inputs", "app/prod"],
        None,
    );
    assert!(
        run.stderr
            .starts_with(&format!("{kustomize} app/prod: built, 2 objects\n")),
        "{}",
        run.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        json["builds"][0]["command"],
        format!("{kustomize} app/prod"),
        "{}",
        run.stdout
    );
    // Where only kubectl builds overlays, that is what ran and what is said.
    let only_kubectl = common::temp_dir("only-kubectl");
    let kubectl = common::kubectl().expect("found above");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&kubectl, only_kubectl.path().join("kubectl")).expect("link");
    #[cfg(not(unix))]
    std::fs::copy(&kubectl, only_kubectl.path().join("kubectl")).expect("copy");
    let run = ownerlint_in(
        dir.path(),
        &["--format", "short", "--show-inputs", "app/prod"],
        Some(only_kubectl.path()),
    );
    assert!(
        run.stderr
            .starts_with("kubectl kustomize app/prod: built, 2 objects\n")
            && run.stdout.ends_with("(from kubectl kustomize app/prod)\n"),
        "{}{}",
        run.stdout,
        run.stderr
    );
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
fn a_finding_in_a_ranges_line_names_the_item_that_rendered_it() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("helm-range");
    common::write_files(
        dir.path(),
        &[
            (
                "shop/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
            ),
            (
                "shop/values.yaml",
                "owners:\n- name: a\n- name: b\nsettings: [p, q]\n",
            ),
            // One entry written as it is, the others by a range: each built entry reads
            // `- apiVersion: apps/v1`, as two lines of the template do.
            (
                "shop/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: first\n    uid: 0b9c1c4e-2d3f-4a5b-8c6d-000000000001\n  {{- range .Values.owners }}\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: {{ .name }}\n    uid: 0b9c1c4e-2d3f-4a5b-8c6d-000000000002\n  {{- end }}\n",
            ),
            // Whole objects, alike but for their names.
            (
                "shop/templates/settings.yaml",
                "{{- range .Values.settings }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{{ . }}\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: gone\n    uid: 0b9c1c4e-2d3f-4a5b-8c6d-000000000003\n{{- end }}\n",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "shop"], None);
    let found: Vec<&str> = lines(&run.stdout)
        .into_iter()
        .filter(|line| line.contains("warning[owner-not-found]"))
        .collect();
    let at = |line: &str| line.split(": ").next().unwrap_or("").to_string();
    let item = |line: &str| {
        line.rsplit_once(" (the ")
            .and_then(|(_, item)| item.strip_suffix(") (from helm template shop)"))
            .map(|item| format!("the {item}"))
            .unwrap_or_default()
    };
    let seen: Vec<(String, String)> = found.iter().map(|l| (at(l), item(l))).collect();
    assert_eq!(
        seen,
        [
            // The entry written as it is, at its own line.
            ("shop/templates/cm.yaml:7:3".to_string(), String::new()),
            // The range's entries, at the range's line, each named.
            (
                "shop/templates/cm.yaml:12:3".to_string(),
                "the 1st item of the range at shop/templates/cm.yaml:11, name: a".to_string()
            ),
            (
                "shop/templates/cm.yaml:12:3".to_string(),
                "the 2nd item of the range at shop/templates/cm.yaml:11, name: b".to_string()
            ),
            (
                "shop/templates/settings.yaml:9:3".to_string(),
                "the 1st item of the range at shop/templates/settings.yaml:1, name: settings-p"
                    .to_string()
            ),
            (
                "shop/templates/settings.yaml:9:3".to_string(),
                "the 2nd item of the range at shop/templates/settings.yaml:1, name: settings-q"
                    .to_string()
            ),
        ],
        "{}",
        run.stdout
    );
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
