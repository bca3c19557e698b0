//! A chart's dependencies, as `helm dependency build` would put them into `charts/`: a
//! `file://` dependency in the repository is built (checked by helm against its version
//! constraint) and what it renders lands in its own templates; an archive already in
//! `charts/` is rendered as it is; a dependency from a chart repository is never fetched, and
//! the failure names where it comes from.

use crate::common;

use std::path::Path;

fn ownerlint_in(dir: &Path, args: &[&str]) -> common::Run {
    common::ownerlint()
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .run()
}

/// A chart `charts/app` whose dependency `common` (under the alias `lib`, with the version
/// constraint `version`) is the chart folder `charts/common`, not in `charts/app/charts/`;
/// `common` renders a ConfigMap with two controller references, named after the release.
fn umbrella(dir: &Path, version: &str) {
    common::write_files(
        dir,
        &[
            (
                "charts/app/Chart.yaml",
                &format!(
                    "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: \"{version}\"\n    repository: file://../common\n    alias: lib\n"
                ),
            ),
            (
                "charts/app/templates/deployment.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n          image: nginx\n",
            ),
            (
                "charts/common/Chart.yaml",
                "apiVersion: v2\nname: common\nversion: 0.2.3\n",
            ),
            (
                "charts/common/templates/settings.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\n  ownerReferences:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: {{ .Release.Name }}-web\n      uid: 6d1c52b4-9d3e-4c43-9a55-1d2b7f3e8a10\n      controller: true\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: other\n      uid: 6d1c52b4-9d3e-4c43-9a55-1d2b7f3e8a11\n      controller: true\n",
            ),
        ],
    );
}

#[test]
fn a_file_dependency_is_built_into_its_chart_and_its_findings_land_in_its_templates() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("file-dependency");
    umbrella(dir.path(), "0.2.x");
    let run = ownerlint_in(dir.path(), &["--format", "short", "charts"]);
    // Rendered through app (its release name), under the alias, and placed in common's own
    // template.
    assert!(
        run.stdout.contains(
            "charts/common/templates/settings.yaml:5:3: error[multiple-controllers]: ConfigMap default/release-name-settings has two controller owners, Deployment/release-name-web and Deployment/other"
        ) && run.stdout.contains("(from helm template charts/app)"),
        "{}",
        run.stdout
    );
    // common is built through app only, not also alone.
    assert!(
        !run.stdout.contains("(from helm template charts/common)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(
            "ownerlint: 2 objects in 1 chart; 2 owner references and 0 finalizers checked; 1 subchart built through its parent chart:"
        ),
        "{}",
        run.stderr
    );
    // Nothing is written into the repository: no charts/ folder, no Chart.lock.
    assert!(!dir.path().join("charts/app/charts").exists());
    assert!(!dir.path().join("charts/app/Chart.lock").exists());
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
}

#[test]
fn a_file_dependency_that_fails_its_version_constraint_is_helms_error_at_its_entry() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("file-dependency-version");
    umbrella(dir.path(), "0.3.x");
    let run = ownerlint_in(dir.path(), &["--format", "short", "charts"]);
    assert!(
        run.stdout.starts_with(
            "charts/app/Chart.yaml:5:3: error[render-failed]: helm dependency build failed: can't get a valid version for 1 subchart(s): \"common\" (repository \"file://../common\", version \"0.3.x\")"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
}

#[test]
fn a_file_dependency_outside_the_repository_is_not_read() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("file-dependency-outside");
    umbrella(dir.path(), "0.2.x");
    // Linted from app's folder, outside a git work tree: the repository is that folder.
    let run = ownerlint_in(&dir.path().join("charts/app"), &["--format", "short", "."]);
    let found: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        found,
        [
            "../common:1:1: warning[link-outside-repository]: ../common is outside the repository (it is "
                .to_string()
                + &std::fs::canonicalize(dir.path().join("charts/common"))
                    .expect("canonical")
                    .display()
                    .to_string()
                + "): it was left out of the build (from helm template .)",
            "Chart.yaml:5:3: error[render-failed]: helm template failed: dependency not in charts/: common (file://../common names no chart folder in the repository); nothing it builds was checked (from helm template .)".to_string(),
        ],
        "{}",
        run.stdout
    );
}

#[test]
fn a_vendored_archive_is_rendered_and_a_remote_dependency_is_named_with_its_repository() {
    let Some(helm) = common::helm() else {
        return;
    };
    let dir = common::temp_dir("vendored-dependency");
    common::write_files(
        dir.path(),
        &[
            (
                "shop/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n  - name: cache\n    version: 1.0.0\n    repository: https://charts.example.com\n  - name: db\n    version: 2.0.0\n    repository: oci://registry.example.com/charts\n",
            ),
            (
                "shop/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\n",
            ),
            (
                "src/cache/Chart.yaml",
                "apiVersion: v2\nname: cache\nversion: 1.0.0\n",
            ),
            (
                "src/cache/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  ownerReferences:\n    - apiVersion: v1\n      kind: ConfigMap\n      name: shop\n",
            ),
        ],
    );
    // cache is vendored as helm dependency build leaves it; db is not.
    let packed = std::process::Command::new(&helm)
        .args(["package", "src/cache", "--destination", "shop/charts"])
        .current_dir(dir.path())
        .output()
        .expect("helm package");
    assert!(packed.status.success(), "{packed:?}");
    std::fs::remove_dir_all(dir.path().join("src")).expect("remove");
    let run = ownerlint_in(dir.path(), &["--format", "short", "shop"]);
    assert_eq!(
        run.stdout.trim_end(),
        "shop/Chart.yaml:8:3: error[render-failed]: helm template failed: dependency not in charts/: db (from oci://registry.example.com/charts, which ownerlint does not download); nothing it builds was checked (from helm template shop)",
    );
    // With db vendored too (an empty chart), the archive of cache renders.
    common::write_files(
        dir.path(),
        &[(
            "src/db/Chart.yaml",
            "apiVersion: v2\nname: db\nversion: 2.0.0\n",
        )],
    );
    let packed = std::process::Command::new(&helm)
        .args(["package", "src/db", "--destination", "shop/charts"])
        .current_dir(dir.path())
        .output()
        .expect("helm package");
    assert!(packed.status.success(), "{packed:?}");
    let run = ownerlint_in(dir.path(), &["--format", "short", "shop"]);
    assert!(
        run.stdout.contains("error[owner-ref-invalid]")
            && run
                .stdout
                .contains("the API server rejects ConfigMap default/cache"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_subchart_of_a_chart_that_fails_is_said_not_checked_and_a_turned_off_dependency_says_so() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("failed-parent");
    common::write_files(
        dir.path(),
        &[
            (
                "shop/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n  - name: cache\n    version: 1.0.0\n    repository: https://charts.example.com\n    condition: cache.enabled\n  - name: web\n    version: 0.1.0\n",
            ),
            ("shop/values.yaml", "cache:\n  enabled: false\n"),
            (
                "shop/charts/web/Chart.yaml",
                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            ),
            (
                "shop/charts/web/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "shop"]);
    assert!(
        run.stdout.starts_with(
            "shop/Chart.yaml:5:3: error[render-failed]: helm template failed: dependency not in charts/: cache (from https://charts.example.com, which ownerlint does not download; cache.enabled is false in values.yaml, but helm needs it to build the chart); nothing it builds was checked"
        ),
        "{}",
        run.stdout
    );
    // web was not checked: it is not "built through its parent chart".
    assert!(
        run.stderr.contains(
            "1 not built (helm template shop); 1 subchart or base not checked (nothing that builds it was built): 1 error"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn values_that_fail_the_charts_schema_are_reported_at_their_key() {
    if common::helm().is_none() {
        return;
    }
    let dir = common::temp_dir("schema");
    common::write_files(
        dir.path(),
        &[
            (
                "dns/Chart.yaml",
                "apiVersion: v2\nname: dns\nversion: 0.1.0\n",
            ),
            (
                "dns/values.yaml",
                "image: nginx\nsettings:\n  policy:  # one of sync, upsert-only\n",
            ),
            (
                "dns/values.schema.json",
                r#"{"type": "object", "properties": {"settings": {"type": "object", "properties": {"policy": {"type": "string"}}}}}"#,
            ),
            (
                "dns/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dns\n",
            ),
        ],
    );
    let run = ownerlint_in(dir.path(), &["--format", "short", "dns"]);
    assert!(
        run.stdout.starts_with(
            "dns/values.yaml:3:3: error[render-failed]: helm template failed: values don't meet the specifications of the schema(s) in the following chart(s): dns: - at '/settings/policy': got null, want string"
        ),
        "{}",
        run.stdout
    );
    let pretty = ownerlint_in(dir.path(), &["--format", "pretty", "dns"]);
    assert!(
        (pretty
            .stdout
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "))
        .contains(
            "help: the chart needs values it does not set itself: give them with --values or --set"
        ),
        "{}",
        pretty.stdout
    );
    let set = ownerlint_in(dir.path(), &["--set", "settings.policy=sync", "dns"]);
    assert_eq!(set.code(), Some(0), "{}{}", set.stdout, set.stderr);
}
