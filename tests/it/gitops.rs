//! GitOps repositories linted as Flux deploys them (`testdata/gitops/`): the overlays Flux
//! Kustomizations build, with their target namespaces and `postBuild` variables, resolved
//! across the Kustomizations of one cluster; and the Flux objects whose source is elsewhere,
//! said once as not checked. kubectl (or kustomize) must be on `PATH`; without it the build
//! tests are skipped, and under `CI=true` they fail.

use crate::common;

use std::path::Path;

/// A copy of `testdata/gitops/NAME`, as a repository of its own (its root is the folder the
/// run starts in, as for a clone that is not a git work tree).
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

fn kubectl() -> bool {
    common::require_tool(
        "kubectl",
        "install kubectl, whose `kubectl kustomize` builds overlays",
    )
    .is_some()
}

#[test]
fn an_owner_and_its_dependent_put_in_two_namespaces_by_two_kustomizations_cross_them() {
    if !kubectl() {
        return;
    }
    let repo = fixture("two-namespaces");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}\n{}", run.stdout, run.stderr);
    // At the dependent's reference in its own file, naming the Kustomization that put it there.
    assert!(
        lines[0].starts_with(
            "shop/cache.yaml:7:3: error[cross-namespace-owner]: ConfigMap shop/cache → Deployment"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with("(built by Flux Kustomization flux-system/shop: targetNamespace shop)"),
        "{}",
        lines[0]
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);

    // Built as plain overlays, each is applied on its own: the owner is not seen at all.
    let plain = lint(repo.path(), &["--exclude", "clusters/**"]);
    assert!(
        !plain.stdout.contains("cross-namespace-owner"),
        "{}",
        plain.stdout
    );
}

#[test]
fn post_build_variables_make_the_value_a_finding_is_about_at_the_line_that_names_them() {
    if !kubectl() {
        return;
    }
    let repo = fixture("substitute");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    // `kind: ${OWNER_KIND}` is `deployment` (postBuild.substitute), and `name: ${OWNER_NAME}`
    // is `web` (substituteFrom the ConfigMap cluster-vars): the reference names the Deployment
    // in a kind's lower case, at the line that writes the variable. The object annotated
    // `kustomize.toolkit.fluxcd.io/substitute: disabled` keeps its `${HOME}`.
    assert_eq!(lines.len(), 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        lines[0].starts_with("apps/settings.yaml:8:11: warning[owner-kind-lowercase]: "),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("shop/settings"), "{}", lines[0]);
    assert!(
        lines[0].ends_with(
            "(built by Flux Kustomization flux-system/apps: targetNamespace shop, postBuild OWNER_KIND, OWNER_NAME)"
        ),
        "{}",
        lines[0]
    );
}

#[test]
fn a_source_outside_the_repository_is_said_once_per_object_as_not_checked() {
    // At the field that names the source: the chart's `sourceRef`, the Kustomization's.
    let repo = fixture("remote");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "clusters/prod/podinfo.yaml:20:7: info[source-not-in-repository]: not checked: its chart \"podinfo\" is in HelmRepository flux-system/podinfo (https://stefanprodan.github.io/podinfo), not in this repository",
            "clusters/prod/podinfo.yaml:44:3: info[source-not-in-repository]: not checked: its path \"./deploy\" is in GitRepository flux-system/tenant (https://github.com/example/tenant, branch main), not in this repository",
        ],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "2 Flux or Argo CD objects whose source is not in this repository, not checked"
        ),
        "{}",
        run.stderr
    );
    // Information: the run passes.
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
}

/// Outside Git, Flux's paths are relative to the folder given, not to the folder the run
/// starts in: the repository named from its parent gives the same finding, at its path.
#[test]
fn a_repository_outside_git_named_from_its_parent_resolves_flux_paths_from_the_folder_given() {
    if !kubectl() {
        return;
    }
    let repo = fixture("two-namespaces");
    let parent = repo
        .path()
        .parent()
        .expect("a temporary folder has a parent");
    let name = repo
        .path()
        .file_name()
        .expect("a temporary folder has a name")
        .to_string_lossy()
        .into_owned();
    let run = common::ownerlint()
        .current_dir(parent)
        .args(["--format", "short", "--config"])
        .arg(repo.path().join(".ownerlint.yaml"))
        .arg(&name)
        .env("NO_COLOR", "1")
        .run();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        lines[0].starts_with(&format!(
            "{name}/shop/cache.yaml:7:3: error[cross-namespace-owner]: ConfigMap shop/cache"
        )),
        "{}",
        lines[0]
    );
    assert!(
        !run.stdout.contains("source-not-in-repository"),
        "{}",
        run.stdout
    );
}

fn helm_and_kubectl() -> bool {
    common::helm().is_some() && kubectl()
}

/// A HelmRelease renders a chart of the repository with its values (inline, and from a
/// ConfigMap of the repository), its default release name (`[targetNamespace-]name`) and its
/// targetNamespace: the chart's own values render nothing, the release's render two
/// controller references and a reference to a Deployment that a Kustomization puts into
/// another namespace. The chart is not built again with its own values, and a HelmRelease
/// whose chart is in a Helm repository is said once as not checked.
#[test]
fn a_helm_release_renders_its_chart_with_its_values_release_name_and_namespace() {
    if !helm_and_kubectl() {
        return;
    }
    let repo = fixture("helm-release");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        lines[0],
        "apps/web.yaml:43:7: info[source-not-in-repository]: not checked: its chart \"podinfo\" is in HelmRepository shop/podinfo (https://stefanprodan.github.io/podinfo), not in this repository"
    );
    let built_by = "(built by Flux HelmRelease shop/web: releaseName shop-web, namespace shop, valuesFrom ConfigMap/web-values, values)";
    // The values from the ConfigMap: the owner is in `infra`, where the Kustomization `infra`
    // puts it; the dependent in the release's namespace, named after the release.
    assert!(
        lines[1].starts_with(
            "charts/web/templates/cache.yaml:7:3: error[cross-namespace-owner]: ConfigMap shop/shop-web-cache → Deployment shop/api: Deployment api exists only in namespace \"infra\""
        ),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with(built_by), "{}", lines[1]);
    // The inline values: two controllers, at the template line that writes the second.
    assert!(
        lines[2].starts_with(
            "charts/web/templates/claimed.yaml:12:17: error[multiple-controllers]: ConfigMap shop/shop-web-claimed has two controller owners, Deployment/web-a and Deployment/web-b"
        ),
        "{}",
        lines[2]
    );
    assert!(lines[2].ends_with(built_by), "{}", lines[2]);
    // `clusters/prod`, which has no kustomization file, is the third overlay: the one Flux
    // writes there.
    assert!(
        run.stderr.contains("1 chart and 3 overlays"),
        "{}",
        run.stderr
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);

    // The chart alone, with its own values, renders nothing.
    let plain = lint(
        repo.path(),
        &["--exclude", "clusters/**", "--exclude", "apps/**"],
    );
    assert_eq!(plain.stdout, "", "{}", plain.stderr);
    assert_eq!(plain.code(), Some(0), "{}", plain.stderr);
}

/// A `valuesFrom` or `substituteFrom` entry whose ConfigMap or Secret is not in the repository
/// (or is, without the key, or encrypted with SOPS) is said once, at the entry: the chart or
/// path was built without its values, which Flux would refuse unless the cluster has them. An
/// optional entry is not said (Flux goes on without it), and the values that are here are used.
#[test]
fn values_from_and_substitute_from_entries_not_in_the_repository_are_said_at_the_entry() {
    if !helm_and_kubectl() {
        return;
    }
    let repo = fixture("values-from");
    let run = lint(repo.path(), &[]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(
        lines[..3],
        [
            "apps/web.yaml:18:5: info[source-not-in-repository]: values from Secret shop/db-values are not in this repository: the chart was rendered without them",
            "apps/web.yaml:23:5: info[source-not-in-repository]: values from ConfigMap shop/web-values in this repository have no key \"extra.yaml\": the chart was rendered without them",
            "apps/web.yaml:26:5: info[source-not-in-repository]: values from Secret shop/web-token are encrypted with SOPS in this repository: the chart was rendered without them",
        ]
    );
    // The values of the ConfigMap that is here make the chart render two controllers.
    assert!(
        lines[3].starts_with(
            "charts/web/templates/claimed.yaml:12:17: error[multiple-controllers]: ConfigMap shop/web-claimed has two controller owners"
        ),
        "{}",
        lines[3]
    );
    assert!(
        lines[3].ends_with(
            "(built by Flux HelmRelease shop/web: releaseName web, namespace shop, valuesFrom ConfigMap/web-values)"
        ),
        "{}",
        lines[3]
    );
    assert_eq!(
        lines[4],
        "clusters/prod/apps.yaml:17:7: info[source-not-in-repository]: variables from ConfigMap flux-system/cluster-vars are not in this repository: the path was built without them"
    );
    // Neither optional entry (`tuning`, `cluster-secrets`) is said.
    assert!(!run.stdout.contains("tuning"), "{}", run.stdout);
    assert!(!run.stdout.contains("cluster-secrets"), "{}", run.stdout);
    // Counted in the summary apart from the objects that were not checked at all.
    assert!(
        run.stderr.contains(
            "4 valuesFrom or substituteFrom entries whose values are not in this repository, built without them"
        ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("not checked"), "{}", run.stderr);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
}

/// A Kustomization whose path has no kustomization file is built with the one Flux writes
/// there: every YAML file below the path (`shop/cache/cache.yaml`, a folder down) and each
/// folder below with a kustomization of its own (`shop/web`, built as part of it), other files
/// (a README) left out. Its objects land in its targetNamespace, and resolve across the
/// Kustomizations of the cluster, as for any Kustomization.
#[test]
fn a_path_without_a_kustomization_file_is_built_as_flux_generates_it() {
    if !kubectl() {
        return;
    }
    let repo = fixture("generated");
    let run = lint(repo.path(), &["--show-inputs"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        lines[0].starts_with(
            "shop/cache/cache.yaml:7:3: error[cross-namespace-owner]: ConfigMap shop/cache → Deployment shop/api: Deployment api exists only in namespace \"infra\""
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with("(built by Flux Kustomization flux-system/shop: targetNamespace shop)"),
        "{}",
        lines[0]
    );
    for built in [
        "Flux Kustomization flux-system/flux-system: built, 4 objects",
        "Flux Kustomization flux-system/infra: targetNamespace infra: built, 1 object",
        "Flux Kustomization flux-system/shop: targetNamespace shop: built, 2 objects",
        " shop/web: skipped: part of `Flux Kustomization flux-system/shop: targetNamespace shop`",
    ] {
        assert!(run.stderr.contains(built), "{built}\n{}", run.stderr);
    }
    assert_eq!(run.code(), Some(1), "{}", run.stderr);

    // Without the Kustomizations, the files are linted on their own, all in one namespace.
    let plain = lint(repo.path(), &["--exclude", "clusters/**"]);
    assert!(
        !plain.stdout.contains("cross-namespace-owner"),
        "{}",
        plain.stdout
    );

    // A YAML file that is no manifest fails the build, as it fails Flux's: said at the
    // Kustomization's path, since the kustomization is in no file.
    std::fs::write(repo.path().join("shop/settings.yaml"), "size: 64Mi\n")
        .expect("the copy is writable");
    let failed = lint(repo.path(), &[]);
    let lines: Vec<&str> = failed.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}\n{}", failed.stdout, failed.stderr);
    assert!(
        lines[0].starts_with("clusters/prod/apps.yaml:24:3: error[render-failed]: "),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("settings.yaml"), "{}", lines[0]);
}

/// The same Kustomizations in two clusters (one name each, one file each): each build is
/// named with its file, so that a finding or a build says which cluster's it is.
#[test]
fn kustomizations_of_one_name_in_two_clusters_are_named_with_their_files() {
    if !kubectl() {
        return;
    }
    let repo = fixture("two-namespaces");
    let (prod, staging) = (
        repo.path().join("clusters/prod"),
        repo.path().join("clusters/staging"),
    );
    std::fs::create_dir_all(staging.join("flux-system")).expect("mkdir");
    for file in ["apps.yaml", "flux-system/gotk-sync.yaml"] {
        let text = std::fs::read_to_string(prod.join(file)).expect("read");
        std::fs::write(
            staging.join(file),
            text.replace("clusters/prod", "clusters/staging"),
        )
        .expect("write");
    }
    let run = lint(repo.path(), &["--show-inputs"]);
    for built in [
        "Flux Kustomization flux-system/shop of clusters/prod/apps.yaml: targetNamespace shop: built",
        "Flux Kustomization flux-system/shop of clusters/staging/apps.yaml: targetNamespace shop: built",
        "Flux Kustomization flux-system/flux-system of clusters/staging/flux-system/gotk-sync.yaml: built",
    ] {
        assert!(run.stderr.contains(built), "{built}\n{}", run.stderr);
    }
    // Each cluster's cross-namespace reference, named with its cluster's Kustomization.
    for cluster in ["prod", "staging"] {
        let by = format!(
            "(built by Flux Kustomization flux-system/shop of clusters/{cluster}/apps.yaml: targetNamespace shop)"
        );
        assert!(run.stdout.contains(&by), "{by}\n{}", run.stdout);
    }
}

/// An overlay a Flux Kustomization builds is built from a kustomization written with its
/// settings (JSON, another layout): when kustomize fails on a file an entry names, the place
/// of that entry in the written kustomization is not given as a place in the user's; the
/// finding is at the entry in the user's kustomization.
#[test]
fn a_failed_flux_build_is_placed_at_the_entry_in_the_users_kustomization() {
    if !kubectl() {
        return;
    }
    let repo = fixture("two-namespaces");
    let file = repo.path().join("shop/kustomization.yaml");
    let text = std::fs::read_to_string(&file).expect("shop/kustomization.yaml");
    std::fs::write(
        &file,
        format!("{text}configurations:\n- missing/kind.yaml\n"),
    )
    .expect("write");
    let run = lint(repo.path(), &[]);
    let failed: Vec<&str> = run
        .stdout
        .lines()
        .filter(|line| line.contains("error[render-failed]"))
        .collect();
    assert_eq!(failed.len(), 1, "{}", run.stdout);
    assert!(
        failed[0].starts_with("shop/kustomization.yaml:6:3: error[render-failed]: ")
            && failed[0].contains("missing/kind.yaml"),
        "{}",
        failed[0]
    );
}
