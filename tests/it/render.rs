//! Helm charts and Kustomize overlays, built with the real tools and linted as built, with
//! each finding at the line of the file people edit (`testdata/render/`: a chart with a
//! subchart, and an overlay over a base). helm and kubectl (or kustomize) must be on `PATH`;
//! without them these tests are skipped, and under `CI=true` they fail (`.ci/run` installs
//! helm).

use crate::common;

use std::path::{Path, PathBuf};

/// `ownerlint ARGS` from the repository's root, with `path` as `PATH` when given.
pub(crate) fn ownerlint(args: &[&str], path: Option<&Path>) -> common::Run {
    ownerlint_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, path)
}

pub(crate) fn ownerlint_in(dir: &Path, args: &[&str], path: Option<&Path>) -> common::Run {
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
pub(crate) fn lines(stdout: &str) -> Vec<&str> {
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

/// A copy of `testdata/render/` in a temporary folder, to change.
pub(crate) fn copy_fixtures() -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/render");
    common::copy_tree(&from, "render-copy")
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
