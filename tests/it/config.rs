//! Configuration: discovery from nested folders, flags over the file, `ownerlint config`, every
//! error message for a bad file (snapshotted), and the bundled `cluster-api` pack on Cluster API
//! object sets built from its ownership table.

use crate::common;

use std::path::{Path, PathBuf};

use ownerlint::Options;

fn ownerlint(dir: &Path, args: &[&str]) -> common::Run {
    common::ownerlint().current_dir(dir).args(args).run()
}

/// A temporary repository: `files` written under it, and a `.git` folder at its root.
fn repository(name: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = common::temp_dir(&format!("config-{name}"));
    std::fs::create_dir_all(dir.path().join(".git")).expect("temp repository");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

const DANGLING: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\n  namespace: shop\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d}\n";

#[test]
fn the_nearest_configuration_upwards_applies_and_flags_override_it() {
    let repo = repository(
        "discovery",
        &[
            (
                ".ownerlint.yaml",
                "rules:\n  owner-not-found: error\nnamespace: shop\n",
            ),
            ("deploy/apps/cache.yaml", DANGLING),
        ],
    );
    let nested = repo.path().join("deploy/apps");
    // Found from a nested folder: the warning becomes an error.
    let out = ownerlint(&nested, &["--format", "short", "cache.yaml"]);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("cache.yaml:7:3: error[owner-not-found]"),
        "{}",
        out.stdout
    );

    // `ownerlint config` names the file and the origin of every value; a flag wins over it.
    let out = ownerlint(&nested, &["config", "--namespace", "staging"]);
    let text = &out.stdout;
    assert!(text.starts_with("# configuration file: "), "{text}");
    assert!(text.contains(".ownerlint.yaml\n"), "{text}");
    assert!(text.contains("namespace: staging"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("namespace: staging") && l.ends_with("# --namespace")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("  owner-not-found: error") && l.ends_with(".ownerlint.yaml:2")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("mode: auto") && l.ends_with("# default")),
        "{text}"
    );

    // --no-config ignores it; --config chooses another.
    let out = ownerlint(&nested, &["--format", "short", "--no-config", "cache.yaml"]);
    assert_eq!(out.code(), Some(0));
    assert!(out.stdout.contains("warning[owner-not-found]"));
    std::fs::write(
        repo.path().join("quiet.yaml"),
        "rules:\n  owner-not-found: off\n",
    )
    .expect("write");
    let out = ownerlint(
        &nested,
        &[
            "--format",
            "short",
            "--config",
            "../../quiet.yaml",
            "cache.yaml",
        ],
    );
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "");

    // Above the repository root nothing is looked for.
    let outside = repository(
        "outside",
        &[("inner/.git/HEAD", ""), ("inner/cache.yaml", DANGLING)],
    );
    std::fs::write(
        outside.path().join(".ownerlint.yaml"),
        "rules:\n  owner-not-found: off\n",
    )
    .expect("write");
    let out = ownerlint(
        &outside.path().join("inner"),
        &["--format", "short", "cache.yaml"],
    );
    assert!(
        out.stdout.contains("warning[owner-not-found]"),
        "{}",
        out.stdout
    );
}

#[test]
fn config_shows_the_severity_a_run_gives() {
    let repo = repository("severity", &[("cache.yaml", DANGLING)]);
    let line = |args: &[&str]| {
        let text = ownerlint(repo.path(), args).stdout;
        text.lines()
            .find(|l| l.starts_with("  owner-not-found:"))
            .unwrap_or_else(|| panic!("{text}"))
            .to_string()
    };
    assert_eq!(
        line(&["config"]),
        "  owner-not-found: warning                # default; info in a snapshot; error for a complete input"
    );
    assert_eq!(
        line(&["config", "--complete"]),
        "  owner-not-found: error                  # default for a complete input"
    );
    // The run agrees with what `config` said, either way.
    for (args, shown) in [
        (vec!["--format", "short", "cache.yaml"], "warning"),
        (
            vec!["--format", "short", "--complete", "cache.yaml"],
            "error",
        ),
    ] {
        let text = ownerlint(repo.path(), &args).stdout;
        assert!(
            text.contains(&format!(": {shown}[owner-not-found]")),
            "{text}"
        );
    }
}

#[test]
fn every_mistake_in_a_configuration_is_named_at_its_place() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut all = String::new();
    for file in [
        "bad.yaml",
        "bad-shapes.yaml",
        "not-a-mapping.yaml",
        "invalid-yaml.yaml",
        "missing.yaml",
    ] {
        let path = format!("testdata/config/{file}");
        let out = ownerlint(&dir, &["--config", &path, "examples"]);
        assert_eq!(out.code(), Some(2), "{file}");
        assert_eq!(out.stdout, "", "{file}");
        all.push_str(&out.stderr);
    }
    insta::assert_snapshot!(all);
}

/// Cluster API objects as its documentation's ownership table describes them.
fn cluster_api(machine_owner: &str) -> String {
    let object = |kind: &str, group: &str, name: &str, uid: &str, owner: &str| {
        format!(
            "apiVersion: {group}/v1beta1\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: fleet\n  uid: {uid}\n{owner}---\n"
        )
    };
    let owner = |kind: &str, group: &str, name: &str, uid: &str, controller: bool| {
        format!(
            "  ownerReferences:\n  - {{apiVersion: {group}/v1beta1, kind: {kind}, name: {name}, uid: {uid}, controller: {controller}}}\n"
        )
    };
    let core = "cluster.x-k8s.io";
    [
        object("Cluster", core, "fleet-1", "u-cluster", ""),
        object(
            "KubeadmControlPlane",
            "controlplane.cluster.x-k8s.io",
            "cp",
            "u-kcp",
            &owner("Cluster", core, "fleet-1", "u-cluster", true),
        ),
        object(
            "MachineDeployment",
            core,
            "md-0",
            "u-md",
            &owner("Cluster", core, "fleet-1", "u-cluster", false),
        ),
        object(
            "MachineSet",
            core,
            "md-0-x",
            "u-ms",
            &owner("MachineDeployment", core, "md-0", "u-md", true),
        ),
        object("Machine", core, "md-0-x-1", "u-m1", machine_owner),
        object(
            "Machine",
            core,
            "cp-1",
            "u-m2",
            &owner(
                "KubeadmControlPlane",
                "controlplane.cluster.x-k8s.io",
                "cp",
                "u-kcp",
                true,
            ),
        ),
        object(
            "KubeadmConfig",
            "bootstrap.cluster.x-k8s.io",
            "md-0-x-1",
            "u-kc",
            &owner("Machine", core, "md-0-x-1", "u-m1", true),
        ),
        object(
            "MachineHealthCheck",
            core,
            "md-0-mhc",
            "u-mhc",
            &owner("Cluster", core, "fleet-1", "u-cluster", false),
        ),
    ]
    .concat()
}

fn with_pack() -> Options {
    let config = ownerlint::config::parse("config", "packs: [cluster-api]\n", Path::new(""))
        .expect("config");
    let mut options = Options::default();
    for (pack, _) in config.packs {
        let policies = ownerlint::config::pack_policies(&pack).expect("bundled pack");
        options
            .policies
            .required_owner
            .extend(policies.required_owner);
    }
    options
}

#[test]
fn the_cluster_api_pack_checks_the_ownership_table() {
    let good_owner = "  ownerReferences:\n  - {apiVersion: cluster.x-k8s.io/v1beta1, kind: MachineSet, name: md-0-x, uid: u-ms, controller: true}\n";
    let outcome = common::lint("capi.yaml", &cluster_api(good_owner), &with_pack());
    assert!(outcome.findings.is_empty(), "{:#?}", outcome.findings);

    // A Machine that lost its MachineSet owner.
    let outcome = common::lint("capi.yaml", &cluster_api(""), &with_pack());
    let found: Vec<(&str, &str)> = outcome
        .findings
        .iter()
        .map(|f| (f.rule.id, f.message.as_str()))
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "required-owner");
    assert!(found[0].1.starts_with("Machine fleet/md-0-x-1 has no owner reference to MachineSet or KubeadmControlPlane, which the policy (pack cluster-api) requires"), "{}", found[0].1);

    // The MachineSet owner without the controller flag.
    let plain = good_owner.replace("controller: true", "controller: false");
    let outcome = common::lint("capi.yaml", &cluster_api(&plain), &with_pack());
    let found: Vec<(&str, &str)> = outcome
        .findings
        .iter()
        .map(|f| (f.rule.id, f.message.as_str()))
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        found[0].1,
        "Machine fleet/md-0-x-1 → MachineSet/md-0-x: the policy (pack cluster-api) requires `controller: true` on this reference"
    );
}

/// The block of the documentation's page `page` (under `docs/src/`) that starts with
/// `first_line`.
fn page_block(page: &str, first_line: &str) -> String {
    let readme = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("docs/src")
            .join(page),
    )
    .expect("the page");
    let start = readme.find(first_line).expect("the example");
    let end = readme[start..].find("```").expect("its end") + start;
    readme[start..end].to_string()
}

#[test]
fn the_documented_configuration_example_runs_as_written() {
    let config = page_block("configuration.md", "# .ownerlint.yaml\n");
    let parsed = ownerlint::config::parse(".ownerlint.yaml", &config, Path::new(""))
        .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(parsed.rules.len(), 2);
    assert_eq!(parsed.packs.len(), 1);
    assert_eq!(parsed.policies.required_owner.len(), 1);
    assert_eq!(parsed.policies.tracking_label_required.len(), 1);
    // Copied into a repository of manifests, as a user would, it runs: findings, no errors.
    let shop = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/manifests/shop.yaml"),
    )
    .expect("example");
    let repo = repository(
        "readme-config",
        &[(".ownerlint.yaml", &config), ("deploy/shop.yaml", &shop)],
    );
    let out = ownerlint(repo.path(), &["--format", "short"]);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    // The summary, and what --fix could fix: no error.
    let messages: Vec<String> = out.stderr.lines().map(str::to_string).collect();
    assert!(
        messages.len() <= 2
            && messages
                .iter()
                .skip(1)
                .all(|l| l.contains("fixable with --fix")),
        "{messages:#?}"
    );
    let text = &out.stdout;
    // `include` reads deploy/, `policies` and `rules` apply.
    assert!(text.starts_with("deploy/shop.yaml:"), "{text}");
    assert!(text.contains("error[tracking-label-required]"), "{text}");
    assert!(!text.contains("[owner-kind-unknown]"), "{text}");
}

#[test]
fn the_documented_suppression_example_suppresses_what_it_says() {
    let manifests = page_block(
        "suppressing.md",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-settings",
    );
    let repo = repository("readme-suppress", &[("shop.yaml", &manifests)]);
    let out = ownerlint(repo.path(), &["--format", "short", "shop.yaml"]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("2 suppressed"), "{}", out.stderr);
    let summary = ownerlint(repo.path(), &["--format", "markdown", "shop.yaml"]).stdout;
    assert!(summary.contains("Not shown: 2 suppressed."), "{summary}");
    let out = ownerlint(
        repo.path(),
        &["--format", "short", "--no-suppress", "shop.yaml"],
    );
    let text = &out.stdout;
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("warning[owner-not-found]"))
            .count(),
        2,
        "{text}"
    );
    assert_eq!(text.lines().count(), 2, "{text}");
}

#[test]
fn a_tracking_label_must_name_an_owner_that_exists() {
    let config = "policies:\n  tracking-label-required:\n    - kinds: [ClusterRole]\n      label: example.com/agentrun\n      owner: {group: example.com, kind: AgentRun}\n      namespace-label: example.com/agentrun-namespace\n";
    let parsed = ownerlint::config::parse("c.yaml", config, Path::new("")).expect("config");
    let options = Options {
        policies: parsed.policies,
        ..Options::default()
    };
    let role = |name: &str, ns: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r-{name}-{ns}\n  labels: {{example.com/agentrun: {name}, example.com/agentrun-namespace: {ns}}}\n---\n"
        )
    };
    let run =
        "apiVersion: example.com/v1\nkind: AgentRun\nmetadata: {name: my-run, namespace: agents}\n";
    let text = format!(
        "{}{}{}{run}",
        role("my-run", "agents"),
        role("gone", "agents"),
        role("my-run", "other")
    );
    let outcome = common::lint("roles.yaml", &text, &options);
    let messages: Vec<&str> = outcome
        .findings
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "ClusterRole r-gone-agents: its `example.com/agentrun` label names AgentRun agents/gone, which is not in the input (policy c.yaml:3): a cleanup by label would never run for it",
            "ClusterRole r-my-run-other: its `example.com/agentrun` label names AgentRun other/my-run, which is not in the input (policy c.yaml:3): a cleanup by label would never run for it",
        ]
    );
}

#[test]
fn config_prints_a_configuration_that_reads_back_as_itself() {
    let file = "namespace: shop\ninclude: [\"deploy/**/*.yaml\"]\nexclude:\n  - \"**/charts/**\"\n  - 'odd #name'\nkinds:\n  - {group: example.com, kind: Widget, scope: Namespaced}\npolicies:\n  required-owner:\n    - group: cluster.x-k8s.io\n      kind: Machine\n      owners: [{kind: MachineSet}, {kind: KubeadmControlPlane, controller: false}]\n      controller: true\n  tracking-label-required:\n    - kinds: [ClusterRole]\n      label: example.com/agentrun\n      owner: {group: example.com, kind: AgentRun}\n      namespace-label: example.com/agentrun-namespace\n";
    let dir = repository("round-trip", &[(".ownerlint.yaml", file)]);
    let out = ownerlint(dir.path(), &["config"]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    let printed = out.stdout.clone();
    // Every value reads back as written, and every comment starts in one column (or, after
    // a line too long for it, one space after it).
    let read = |text: &str| serde_yaml::from_str::<serde_yaml::Value>(text).expect("YAML");
    let (first, again) = (read(file), read(&printed));
    for key in ["namespace", "include", "exclude", "kinds", "policies"] {
        assert_eq!(first[key], again[key], "{key}: {printed}");
    }
    assert!(
        printed.contains("exclude: [\"**/charts/**\", \"odd #name\"]"),
        "{printed}"
    );
    let columns: std::collections::BTreeSet<usize> = printed
        .lines()
        .skip(1)
        .filter_map(|l| l.find(" # ").map(|at| at + 1))
        .filter(|&at| at <= 61)
        .collect();
    assert_eq!(columns.len(), 1, "{printed}");
    assert!(
        printed.contains("  deletion-finalizer-in-manifest: warning "),
        "{printed}"
    );
    // Printed back as the configuration file, it is the same configuration.
    std::fs::write(dir.path().join(".ownerlint.yaml"), &printed).expect("write");
    let out = ownerlint(dir.path(), &["config"]);
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
    let reread = read(&out.stdout);
    for key in [
        "namespace",
        "mode",
        "complete",
        "kube-version",
        "include",
        "exclude",
        "rules",
        "kinds",
        "policies",
    ] {
        assert_eq!(again[key], reread[key], "{key}: {}", out.stdout);
    }
}

#[test]
fn a_release_newer_than_the_newest_known_is_refused_naming_the_newest() {
    let newest = ownerlint::catalog::KubeVersion::newest_known();
    let dir = repository("kube-version", &[("deploy/cm.yaml", DANGLING)]);
    let out = ownerlint(dir.path(), &["--kube-version", "1.99", "deploy"]);
    assert_eq!(out.code(), Some(2));
    assert!(
        out.stderr.contains(&format!(
            "1.99 is newer than the newest Kubernetes release ownerlint knows, {newest}"
        )),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    std::fs::write(
        dir.path().join(".ownerlint.yaml"),
        "kube-version: \"1.99\"\n",
    )
    .expect("write");
    let out = ownerlint(dir.path(), &["deploy"]);
    assert_eq!(out.code(), Some(2));
    assert!(
        out.stderr.contains(".ownerlint.yaml:1:15: kube-version 1.99 is newer than the newest Kubernetes release ownerlint knows"),
        "{}",
        out.stderr
    );
    // The newest itself is accepted.
    std::fs::remove_file(dir.path().join(".ownerlint.yaml")).expect("remove");
    let out = ownerlint(
        dir.path(),
        &["--kube-version", &newest.to_string(), "deploy"],
    );
    assert_eq!(out.code(), Some(0), "{}", out.stderr);
}

#[test]
fn config_shows_how_charts_and_overlays_are_built_and_why() {
    let dir = repository("builds", &[("values-prod.yaml", "replicas: 2\n")]);
    // The programs found on PATH: helm, and kubectl for want of kustomize.
    let bin = common::temp_dir("config-builds-bin");
    for program in ["helm", "kubectl"] {
        let path = bin.path().join(program);
        std::fs::write(&path, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    let config = |args: &[&str], path: &Path| -> Vec<String> {
        let out = common::ownerlint()
            .arg("config")
            .args(args)
            .current_dir(dir.path())
            .env("PATH", path)
            .run();
        assert_eq!(out.code(), Some(0), "{}", out.stderr);
        let text = &out.stdout;
        let at = text
            .find("# charts and overlays")
            .unwrap_or_else(|| panic!("{text}"));
        text[at..]
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let helm = bin.path().join("helm");
    let kubectl = bin.path().join("kubectl");
    assert_eq!(
        config(&[], bin.path()),
        [
            "# charts and overlays (command-line flags, not settings of this file):".to_string(),
            "# render: true # default".into(),
            format!("# helm: {} # found on PATH", helm.display()),
            format!(
                "# kustomize: {} kustomize # found on PATH",
                kubectl.display()
            ),
            "# release-name: release-name # default".into(),
            "# values: [] # default".into(),
            "# set: [] # default".into(),
            "# render-timeout: 300s # default".into(),
            "# allow-remote-bases: false # default".into(),
        ]
    );
    let empty = common::temp_dir("config-builds-nothing");
    assert_eq!(
        config(
            &[
                "--no-render",
                "--release-name",
                "shop",
                "--values",
                "values-prod.yaml",
                "--set",
                "image.tag=1.2",
                "--render-timeout",
                "30",
                "--allow-remote-bases",
            ],
            empty.path(),
        ),
        [
            "# charts and overlays (command-line flags, not settings of this file):",
            "# render: false # --no-render",
            "# helm: none # not on PATH",
            "# kustomize: none # not on PATH",
            "# release-name: shop # --release-name",
            "# values: [values-prod.yaml] # --values",
            "# set: [\"image.tag=1.2\"] # --set",
            "# render-timeout: 30s # --render-timeout",
            "# allow-remote-bases: true # --allow-remote-bases",
        ]
    );
}

#[test]
fn the_earlier_context_flag_and_key_are_refused_with_their_new_name() {
    const OWNER: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\n  uid: 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n";
    let dir = repository(
        "existing",
        &[("deploy/cm.yaml", DANGLING), ("dump/api.yaml", OWNER)],
    );
    // `--existing` resolves the owner, and the dump itself is not linted.
    let out = ownerlint(dir.path(), &["--existing", "dump", "deploy"]);
    assert_eq!(out.code(), Some(0), "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("owner-not-found"), "{}", out.stdout);
    // `--context` is kubectl's kubeconfig context: never read as objects.
    let out = ownerlint(dir.path(), &["--context", "dump", "deploy"]);
    assert_eq!(out.code(), Some(2));
    assert!(
        out.stderr.contains(
            "ownerlint: `--context` is kubectl's flag for a kubeconfig context, which `ownerlint \
             cluster` (and `tree` and `delete-preview` with --cluster) read; objects that already \
             exist (a dump of the target cluster) are passed with `--existing PATH`"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    // The same in a configuration file, at its line.
    std::fs::write(dir.path().join(".ownerlint.yaml"), "context: [dump]\n").expect("write");
    let out = ownerlint(dir.path(), &["deploy"]);
    assert_eq!(out.code(), Some(2));
    assert!(
        out.stderr
            .contains(".ownerlint.yaml:1:1: `context` is now `existing`"),
        "{}",
        out.stderr
    );
    std::fs::write(dir.path().join(".ownerlint.yaml"), "existing: [dump]\n").expect("write");
    let out = ownerlint(dir.path(), &["deploy"]);
    assert_eq!(out.code(), Some(0), "{}{}", out.stdout, out.stderr);
}

#[test]
fn a_repository_cannot_allow_remote_bases_for_itself() {
    // A pull request from a fork would otherwise have the CI that lints it fetch what it names.
    let dir = repository(
        "allow-remote",
        &[
            ("deploy/cm.yaml", DANGLING),
            (
                ".ownerlint.yaml",
                "namespace: shop\nallow-remote-bases: true\n",
            ),
        ],
    );
    let out = ownerlint(dir.path(), &["deploy"]);
    assert_eq!(out.code(), Some(2), "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains(
            ".ownerlint.yaml:2:1: `allow-remote-bases` is not a setting of the configuration \
             file: remote bases are fetched only when the command line says so \
             (--allow-remote-bases), never because a repository asks"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
}

#[test]
fn overrides_set_rule_levels_for_the_files_their_globs_match() {
    let renamed = DANGLING.replace("name: cache", "name: old-cache");
    let generated = DANGLING.replace("name: cache", "name: made-cache");
    let repo = repository(
        "overrides",
        &[
            (
                ".ownerlint.yaml",
                "rules:\n  owner-not-found: error\noverrides:\n\
                 - files: [\"legacy/**\"]\n  rules: {owner-not-found: off}\n\
                 - files: [\"*.generated.yaml\"]\n  rules: {owner-not-found: info}\n",
            ),
            ("deploy/cache.yaml", DANGLING),
            ("legacy/cache.yaml", &renamed),
            ("deploy/cache.generated.yaml", &generated),
        ],
    );
    let expected = "deploy/cache.generated.yaml:7:3: info[owner-not-found]\n\
                    deploy/cache.yaml:7:3: error[owner-not-found]\n";
    let rule_of = |stdout: &str| -> String {
        stdout
            .lines()
            .map(|l| {
                format!(
                    "{}\n",
                    l.split_once("]:").map_or(l, |(head, _)| head).to_owned() + "]"
                )
            })
            .collect()
    };
    let out = ownerlint(repo.path(), &["--format", "short"]);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    assert_eq!(rule_of(&out.stdout), expected, "{}", out.stdout);
    // The globs are relative to the configuration's folder, wherever the run starts.
    let out = ownerlint(&repo.path().join("legacy"), &["--format", "short", ".."]);
    assert_eq!(
        rule_of(&out.stdout),
        expected.replace("deploy/", "../deploy/"),
        "{}",
        out.stdout
    );
    // `ownerlint config` shows them with their lines.
    let out = ownerlint(repo.path(), &["config"]);
    assert!(
        out.stdout
            .contains("overrides:\n  - files: [\"legacy/**\"]")
            && out.stdout.contains(".ownerlint.yaml:4\n")
            && out.stdout.contains("      owner-not-found: off\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn overrides_apply_where_a_built_overlays_finding_is_reported() {
    if common::kubectl().is_none() {
        return;
    }
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/render/shop");
    let repo = common::copy_tree(&from, "config-overrides-built");
    std::fs::create_dir_all(repo.path().join(".git")).expect("a repository");
    let findings = |out: &common::Run| -> Vec<String> {
        out.stdout
            .lines()
            .filter_map(|l| l.split_once(": ").map(|(at, _)| at.to_owned()))
            .collect()
    };
    let before = ownerlint(repo.path(), &["--format", "short"]);
    assert!(
        findings(&before)
            .iter()
            .any(|at| at.starts_with("overlays/prod/add-owner.yaml:")),
        "{}",
        before.stdout
    );
    std::fs::write(
        repo.path().join(".ownerlint.yaml"),
        "overrides:\n- files: [overlays/prod/add-owner.yaml]\n  rules: {owner-not-found: off}\n",
    )
    .expect("write the configuration");
    let after = ownerlint(repo.path(), &["--format", "short"]);
    let expected: Vec<String> = findings(&before)
        .into_iter()
        .filter(|at| !at.starts_with("overlays/prod/add-owner.yaml:"))
        .collect();
    assert_eq!(findings(&after), expected, "{}", after.stdout);
}

#[test]
fn a_configured_build_renders_its_chart_with_its_values_release_and_namespace() {
    if common::helm().is_none() {
        return;
    }
    let template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\n  \
        {{- with .Values.owners }}\n  ownerReferences:\n  {{- range . }}\n  - apiVersion: apps/v1\n    \
        kind: Deployment\n    name: {{ .name }}\n    uid: {{ .uid }}\n    controller: true\n  \
        {{- end }}\n  {{- end }}\n";
    let prod = "owners:\n- {name: a, uid: 0d9b4f7e-1a2b-4c3d-8e9f-000000000001}\n\
        - {name: b, uid: 0d9b4f7e-1a2b-4c3d-8e9f-000000000002}\n";
    let repo = repository(
        "builds",
        &[
            (
                "charts/web/Chart.yaml",
                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            ),
            ("charts/web/values.yaml", "owners: []\n"),
            ("charts/web/values-prod.yaml", prod),
            ("charts/web/templates/cm.yaml", template),
        ],
    );
    // With the chart's own values it renders no reference.
    let out = ownerlint(repo.path(), &["--format", "short"]);
    assert_eq!(out.code(), Some(0), "{}{}", out.stdout, out.stderr);
    assert_eq!(out.stdout, "");
    std::fs::write(
        repo.path().join(".ownerlint.yaml"),
        "builds:\n- path: charts/web\n  values: [charts/web/values-prod.yaml]\n  \
         release-name: web\n  namespace: shop\n",
    )
    .expect("write the configuration");
    let out = ownerlint(repo.path(), &["--format", "short"]);
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    let controllers: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.contains("[multiple-controllers]"))
        .collect();
    assert_eq!(controllers.len(), 1, "{}", out.stdout);
    // At the template's line, with the release's name and namespace, naming the build.
    assert!(
        controllers[0].starts_with("charts/web/templates/cm.yaml:12:17: error[multiple-controllers]: ConfigMap shop/web-settings")
            && controllers[0].contains("(build of .ownerlint.yaml:2: values charts/web/values-prod.yaml, release-name web, namespace shop)"),
        "{}",
        controllers[0]
    );
    // Built once, as configured: not also with the chart's own values.
    assert!(out.stderr.contains("1 object in 1 chart"), "{}", out.stderr);
    // `ownerlint config` shows it as the file says it.
    let out = ownerlint(repo.path(), &["config"]);
    assert!(
        out.stdout.contains(
            "builds:\n  - path: charts/web"
        ) && out.stdout.contains("    values: [charts/web/values-prod.yaml]\n    release-name: web\n    namespace: shop\n"),
        "{}",
        out.stdout
    );
}
