//! A real Kubernetes 1.36 cluster dumped the ways users dump it (`../shared/k8s/cluster-dump`):
//! one `kubectl get -A -o yaml` List of every listable resource, and a support-bundle folder with
//! one `kubectl get -o json` file per namespace. A consistent workload ran there beside
//! deliberately broken ownership experiments; each finding below was checked against the live
//! cluster when the dump was taken. Both forms, in every mode, must give exactly these findings:
//! anything more is a false positive, anything less a miss. Skipped, with the reason printed,
//! where the dump is not present (under `CI=true`, that fails).

use crate::common;

use ownerlint::Options;
use ownerlint::load::ModeChoice;

/// Severity, rule and object of every finding that is true of the dumped cluster.
pub(crate) const TRUE_OF_THE_CLUSTER: &[&str] = &[
    // Created Terminating by server-side apply: one held by its finalizer, one held by nothing.
    "info deletion-timestamp-in-manifest ConfigMap dts-ssa-fin/settings",
    "info deletion-timestamp-in-manifest ConfigMap dts-ssa/settings",
    // Two entries with one uid that differ in `controller`, stored as sent.
    "warning duplicate-owner-ref ConfigMap dup/cache-apply-2",
    "warning duplicate-owner-ref ConfigMap dup/cache-create-2",
    // Never collected: the collector cannot map the reference.
    "error owner-api-unserved ConfigMap fxu-stale/dep-extensions",
    "error owner-api-unserved ConfigMap kcase/dep-configmap-configmap-llllllull",
    "error owner-api-unserved ConfigMap kcase/dep-configmap-configmap-ullllllll",
    "error owner-api-unserved ConfigMap kcase/dep-deployment-deployment-uuuuuuuuuu",
    "error owner-api-unserved ConfigMap kcase/dep-replicaset-replicaset-lllllllull",
    "error owner-api-unserved ConfigMap kcase/dep-replicaset-replicaset-ulllllllll",
    "error owner-api-unserved ConfigMap kcase/dep-replicaset-replicaset-uuuuuuuuuu",
    "error owner-api-unserved Pod fxu-before/web-5d8f7-x2k9p",
    // `kind: replicaset`: collected with its ReplicaSet, but not counted by it (it ran a
    // second Pod beside this one).
    "error owner-kind-lowercase Pod lkc-lower/web-5d8f7-x2k9p",
];

fn findings(
    path: std::path::PathBuf,
    mode: ModeChoice,
    complete: bool,
    existing: Vec<std::path::PathBuf>,
) -> Vec<String> {
    let options = Options {
        paths: vec![path.clone()],
        mode,
        complete,
        existing,
        ..Options::default()
    };
    let outcome = ownerlint::lint(&options, &mut std::io::empty());
    assert_eq!(outcome.stats.objects, 670, "{}", path.display());
    findings_of(&outcome, &path.display().to_string())
}

/// Severity, rule and object of each finding, sorted; the run must have read every input.
pub(crate) fn findings_of(outcome: &ownerlint::analysis::Outcome, what: &str) -> Vec<String> {
    assert!(outcome.errors.is_empty(), "{what}: {:?}", outcome.errors);
    let mut found: Vec<String> = outcome
        .findings
        .iter()
        .map(|f| {
            let object = f.object.as_ref();
            let field = |get: fn(&ownerlint::finding::ObjectIdentity) -> &Option<String>| {
                object.and_then(|o| get(o).clone()).unwrap_or_default()
            };
            format!(
                "{} {} {} {}/{}",
                f.severity,
                f.rule.id,
                field(|o| &o.kind),
                field(|o| &o.namespace),
                field(|o| &o.name)
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn a_real_cluster_gets_exactly_the_findings_true_of_it() {
    let Some(dir) = common::cluster_dump_dir() else {
        return;
    };
    let mut expected: Vec<String> = TRUE_OF_THE_CLUSTER.iter().map(|s| s.to_string()).collect();
    expected.sort();
    // The same cluster's API discovery (testdata/discovery, recorded from it) decides what
    // the tables guessed: the findings stay exactly those true of it.
    let discovery = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/discovery");
    for form in ["all.yaml", "bundle"] {
        for (mode, complete, how) in [
            (ModeChoice::Auto, false, "default"),
            (ModeChoice::Snapshot, false, "--mode snapshot"),
            (ModeChoice::Auto, true, "--complete"),
        ] {
            for existing in [vec![], vec![discovery.clone()]] {
                let with = if existing.is_empty() {
                    ""
                } else {
                    ", with its discovery"
                };
                let found = findings(dir.join(form), mode, complete, existing);
                assert_eq!(
                    found.join("\n"),
                    expected.join("\n"),
                    "{form}, {how}{with}: the findings are not those true of the cluster"
                );
            }
        }
    }
}
