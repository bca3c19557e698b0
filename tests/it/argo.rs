//! GitOps repositories linted as Argo CD deploys them (`testdata/gitops/argo-*`): the charts and
//! overlays that Applications (and the Applications of ApplicationSets) build, with their helm
//! values, kustomize settings and destination namespaces, resolved across the Applications of
//! one destination cluster; and the sources that are elsewhere, said once as not checked.
//! helm and kubectl (or kustomize) must be on `PATH`; without them the build tests are
//! skipped, and under `CI=true` they fail.

use crate::common;

use std::path::Path;

/// A copy of `testdata/gitops/NAME`, as a repository of its own.
fn fixture(name: &str) -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/gitops")
        .join(name);
    common::copy_tree(&from, &format!("gitops-{name}"))
}

/// `ownerlint --format short ARGS .` in `dir`.
fn lint(dir: &Path, args: &[&str]) -> common::Run {
    common::ownerlint()
        .current_dir(dir)
        .args(["--format", "short"])
        .args(args)
        .arg(".")
        .env("NO_COLOR", "1")
        .run()
}

fn helm() -> bool {
    common::require_tool("helm", "install helm, whose `helm template` renders charts").is_some()
}

fn kubectl() -> bool {
    common::require_tool(
        "kubectl",
        "install kubectl, whose `kubectl kustomize` builds overlays",
    )
    .is_some()
}

#[test]
fn an_applications_value_files_make_a_chart_render_two_controllers_at_the_template_line() {
    if !helm() {
        return;
    }
    let repo = fixture("argo-values");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    // argocd/shop: `values-prod.yaml` names two owners, each a controller. argocd/shop-staging:
    // its `valuesObject` names one (a parameter renames it): nothing to say. argocd/shop-dev:
    // its value file is not there, which Argo CD refuses too.
    assert_eq!(lines.len(), 2, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        lines[0],
        "apps/shop.yaml:43:1: error[render-failed]: Argo CD Application argocd/shop-dev cannot be built: its value file \"values-dev.yaml\" is not in the repository (set ignoreMissingValueFiles to go on without it); nothing it builds was checked (built by Argo CD Application argocd/shop-dev: destination namespace dev)"
    );
    assert!(
        lines[1].starts_with(
            "charts/shop/templates/settings.yaml:12:17: error[multiple-controllers]: ConfigMap shop/shop-prod-settings has two controller owners"
        ),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with(
            "(built by Argo CD Application argocd/shop: destination namespace shop, 1 valueFiles)"
        ),
        "{}",
        lines[1]
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);

    // The chart with its own values renders nothing to check.
    let plain = lint(repo.path(), &["--exclude", "apps/**"]);
    assert_eq!(plain.stdout, "", "{}", plain.stderr);
    assert!(
        plain.stderr.contains("0 owner references"),
        "{}",
        plain.stderr
    );
}

#[test]
fn destination_namespaces_put_an_owner_and_its_dependents_in_two_namespaces() {
    if !kubectl() {
        return;
    }
    let repo = fixture("argo-namespaces");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}\n{}", run.stdout, run.stderr);
    // A plain manifest of a directory source lands in its Application's namespace too, and
    // its finding names the Application.
    assert!(
        lines[0].starts_with(
            "jobs/report.yaml:6:3: error[cross-namespace-owner]: ConfigMap jobs/report → Deployment jobs/api: Deployment api exists only in namespace \"infra\""
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[0]
            .ends_with("(built by Argo CD Application argocd/jobs: destination namespace jobs)"),
        "{}",
        lines[0]
    );
    // kustomize's namePrefix from the Application.
    assert!(
        lines[1].starts_with(
            "shop/cache.yaml:7:3: error[cross-namespace-owner]: ConfigMap shop/prod-cache → Deployment shop/api"
        ),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with(
            "(built by Argo CD Application argocd/shop: destination namespace shop, namePrefix prod-)"
        ),
        "{}",
        lines[1]
    );

    // Built as plain overlays, each is applied on its own, all in the default namespace, and
    // no finding names an Application.
    let plain = lint(repo.path(), &["--exclude", "apps/**"]);
    assert!(
        !plain.stdout.contains("cross-namespace-owner"),
        "{}",
        plain.stdout
    );
    assert!(!plain.stdout.contains("Argo CD"), "{}", plain.stdout);
}

#[test]
fn an_application_sets_git_directories_and_list_make_the_applications_that_build() {
    if !kubectl() {
        return;
    }
    let repo = fixture("argo-appset");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}\n{}", run.stdout, run.stderr);
    // `apps/legacy` is excluded: linted as it is, in the default namespace.
    assert!(
        lines[0].starts_with(
            "apps/legacy/old.yaml:7:3: warning[owner-not-found]: ConfigMap default/old"
        ),
        "{}",
        lines[0]
    );
    // `{{.path.basename}}` names the Application and its namespace.
    assert!(
        lines[1].starts_with(
            "apps/shop/cache.yaml:7:3: error[cross-namespace-owner]: ConfigMap shop/cache → Deployment shop/api"
        ),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with(
            "(built by Argo CD Application argocd/shop of ApplicationSet argocd/apps: destination namespace shop)"
        ),
        "{}",
        lines[1]
    );
    // The list element's `{{env}}`, in another cluster: the owner is not there.
    assert!(
        lines[2].starts_with(
            "apps/shop/cache.yaml:7:3: warning[owner-not-found]: ConfigMap shop-staging/cache"
        ),
        "{}",
        lines[2]
    );
    assert!(
        lines[2].ends_with(
            "(built by Argo CD Application argocd/shop-staging of ApplicationSet argocd/clusters: destination namespace shop-staging)"
        ),
        "{}",
        lines[2]
    );
    // A generator that is not read is said, once, at the generator.
    assert_eq!(
        lines[3],
        "argocd/apps.yaml:36:5: info[source-not-in-repository]: not checked: the Applications of its clusters generator are not built (ownerlint reads only list and git directories generators)"
    );
}

/// At the field that names the source: a Helm repository's `chart`, a Git source's `repoURL`
/// (of the first source that is elsewhere), the `chart` of an ApplicationSet's template.
#[test]
fn a_source_outside_the_repository_is_said_once_per_application() {
    let repo = fixture("argo-remote");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "apps/remote.yaml:10:5: info[source-not-in-repository]: not checked: its chart \"podinfo\" is in https://stefanprodan.github.io/podinfo, not in this repository",
            "apps/remote.yaml:24:5: info[source-not-in-repository]: not checked: its path \"helm-guestbook\" is in https://github.com/argoproj/argocd-example-apps.git (and 1 more sources), not in this repository",
            "apps/remote.yaml:54:9: info[source-not-in-repository]: not checked: its chart \"redis\" is in oci://registry.example.com/charts, not in this repository",
        ],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "3 Flux or Argo CD objects whose source is not in this repository, not checked"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
}
