//! A seeded, deterministic generator of `kubectl get -o yaml`-shaped cluster dumps:
//! Namespaces; Deployments → ReplicaSets → Pods; Services → EndpointSlices; ClusterRoles owned by
//! a cluster-scoped CRD-less owner; a few broken references (stale uids, owners in other
//! namespaces); each object with labels, annotations, managedFields and status like a real dump.

use std::fmt::Write;

/// xorshift64*: small, fast, and the same on every platform.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn uid(rng: &mut Rng) -> String {
    let a = rng.next();
    let b = rng.next();
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        (b >> 48) & 0xfff,
        b & 0xffff_ffff_ffff
    )
}

/// One object as an item of a `kind: List` (indented by two, first line `- `), or as a document
/// of a stream.
struct Object {
    api_version: &'static str,
    kind: &'static str,
    name: String,
    namespace: Option<String>,
    uid: String,
    labels: Vec<(String, String)>,
    owners: Vec<(&'static str, &'static str, String, String, bool)>,
    spec: String,
    status: String,
}

fn managed_fields(rng: &mut Rng, manager: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "  managedFields:\n  - apiVersion: v1\n    fieldsType: FieldsV1\n    fieldsV1:\n      f:metadata:\n        f:labels:\n          .: {{}}\n          f:app: {{}}\n        f:ownerReferences:\n          .: {{}}\n          k:{{\"uid\":\"{}\"}}: {{}}\n      f:spec:\n        f:containers:\n          k:{{\"name\":\"main\"}}:\n            .: {{}}\n            f:image: {{}}\n            f:imagePullPolicy: {{}}\n            f:name: {{}}\n            f:resources: {{}}\n            f:terminationMessagePath: {{}}\n            f:terminationMessagePolicy: {{}}\n        f:dnsPolicy: {{}}\n        f:enableServiceLinks: {{}}\n        f:restartPolicy: {{}}\n        f:schedulerName: {{}}\n        f:securityContext: {{}}\n        f:terminationGracePeriodSeconds: {{}}\n    manager: {manager}\n    operation: Update\n    time: \"2024-05-0{}T10:11:12Z\"\n",
        uid(rng),
        rng.below(9) + 1
    );
    out
}

fn render(o: &Object, rng: &mut Rng, list_item: bool, out: &mut String) {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "apiVersion: {}\nkind: {}\nmetadata:",
        o.api_version, o.kind
    );
    let _ = writeln!(
        text,
        "  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{{\"apiVersion\":\"{}\",\"kind\":\"{}\"}}'",
        o.api_version, o.kind
    );
    let _ = writeln!(text, "  creationTimestamp: \"2024-05-01T09:00:00Z\"");
    if !o.labels.is_empty() {
        text.push_str("  labels:\n");
        for (k, v) in &o.labels {
            let _ = writeln!(text, "    {k}: {}", string_value(v));
        }
    }
    text.push_str(&managed_fields(rng, "kube-controller-manager"));
    let _ = writeln!(text, "  name: {}", o.name);
    if let Some(ns) = &o.namespace {
        let _ = writeln!(text, "  namespace: {ns}");
    }
    if !o.owners.is_empty() {
        text.push_str("  ownerReferences:\n");
        for (api, kind, name, uid, controller) in &o.owners {
            let _ = writeln!(
                text,
                "  - apiVersion: {api}\n    blockOwnerDeletion: true\n    controller: {controller}\n    kind: {kind}\n    name: {name}\n    uid: {uid}"
            );
        }
    }
    let _ = writeln!(
        text,
        "  resourceVersion: \"{}\"\n  uid: {}",
        rng.below(10_000_000),
        o.uid
    );
    text.push_str(&o.spec);
    text.push_str(&o.status);
    if list_item {
        for (i, line) in text.lines().enumerate() {
            out.push_str(if i == 0 { "- " } else { "  " });
            out.push_str(line);
            out.push('\n');
        }
    } else {
        out.push_str("---\n");
        out.push_str(&text);
    }
}

const POD_SPEC: &str = "spec:\n  containers:\n  - image: registry.example/app:1.4.2\n    imagePullPolicy: IfNotPresent\n    name: main\n    resources:\n      limits:\n        cpu: 500m\n        memory: 256Mi\n      requests:\n        cpu: 100m\n        memory: 128Mi\n    terminationMessagePath: /dev/termination-log\n    terminationMessagePolicy: File\n  dnsPolicy: ClusterFirst\n  enableServiceLinks: true\n  nodeName: worker-3\n  restartPolicy: Always\n  schedulerName: default-scheduler\n  securityContext: {}\n  terminationGracePeriodSeconds: 30\n";
const POD_STATUS: &str = "status:\n  conditions:\n  - lastProbeTime: null\n    lastTransitionTime: \"2024-05-01T09:00:05Z\"\n    status: \"True\"\n    type: Ready\n  containerStatuses:\n  - containerID: containerd://0123456789abcdef\n    image: registry.example/app:1.4.2\n    imageID: registry.example/app@sha256:0123456789abcdef0123456789abcdef\n    lastState: {}\n    name: main\n    ready: true\n    restartCount: 0\n    started: true\n    state:\n      running:\n        startedAt: \"2024-05-01T09:00:04Z\"\n  hostIP: 10.0.0.3\n  phase: Running\n  podIP: 10.244.3.17\n  qosClass: Burstable\n  startTime: \"2024-05-01T09:00:01Z\"\n";

/// Objects for about `bytes` bytes of dump; `list` wraps them in one `kind: List`.
pub(crate) fn dump(seed: u64, bytes: usize, list: bool) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::with_capacity(bytes + 64 * 1024);
    if list {
        out.push_str("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n");
    }
    let mut family = 0u64;
    while out.len() < bytes {
        let ns = format!("team-{}", family % 40);
        let app = format!("app-{family}");
        let labels = vec![("app".to_string(), app.clone())];
        let d_uid = uid(&mut rng);
        let deployment = Object {
            api_version: "apps/v1",
            kind: "Deployment",
            name: app.clone(),
            namespace: Some(ns.clone()),
            uid: d_uid.clone(),
            labels: labels.clone(),
            owners: vec![],
            spec: format!(
                "spec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: {app}\n  template:\n    metadata:\n      labels:\n        app: {app}\n"
            ),
            status: "status:\n  availableReplicas: 3\n  readyReplicas: 3\n  replicas: 3\n".into(),
        };
        render(&deployment, &mut rng, list, &mut out);
        let rs_uid = uid(&mut rng);
        let hash = format!("{:x}", rng.below(0xffff_ffff));
        let rs_name = format!("{app}-{hash}");
        let rs_labels = vec![
            ("app".to_string(), app.clone()),
            ("pod-template-hash".to_string(), hash.clone()),
        ];
        render(
            &Object {
                api_version: "apps/v1",
                kind: "ReplicaSet",
                name: rs_name.clone(),
                namespace: Some(ns.clone()),
                uid: rs_uid.clone(),
                labels: rs_labels.clone(),
                owners: vec![("apps/v1", "Deployment", app.clone(), d_uid.clone(), true)],
                spec: format!(
                    "spec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: {app}\n      pod-template-hash: {}\n",
                    string_value(&hash)
                ),
                status: "status:\n  replicas: 3\n".into(),
            },
            &mut rng,
            list,
            &mut out,
        );
        for p in 0..3 {
            // Now and then a stale uid, as after a restore into another cluster.
            let owner_uid = if rng.below(50) == 0 {
                uid(&mut rng)
            } else {
                rs_uid.clone()
            };
            render(
                &Object {
                    api_version: "v1",
                    kind: "Pod",
                    name: format!("{rs_name}-{p}x{:04x}", rng.below(0xffff)),
                    namespace: Some(ns.clone()),
                    uid: uid(&mut rng),
                    labels: rs_labels.clone(),
                    owners: vec![("apps/v1", "ReplicaSet", rs_name.clone(), owner_uid, true)],
                    spec: POD_SPEC.into(),
                    status: POD_STATUS.into(),
                },
                &mut rng,
                list,
                &mut out,
            );
        }
        let svc_uid = uid(&mut rng);
        render(
            &Object {
                api_version: "v1",
                kind: "Service",
                name: app.clone(),
                namespace: Some(ns.clone()),
                uid: svc_uid.clone(),
                labels: labels.clone(),
                owners: vec![],
                spec: format!(
                    "spec:\n  clusterIP: 10.96.{}.{}\n  ports:\n  - port: 80\n    protocol: TCP\n    targetPort: 8080\n  selector:\n    app: {app}\n  type: ClusterIP\n",
                    family % 250,
                    family % 200
                ),
                status: "status:\n  loadBalancer: {}\n".into(),
            },
            &mut rng,
            list,
            &mut out,
        );
        // An EndpointSlice whose owner sometimes lives in another namespace.
        let slice_ns = if rng.below(100) == 0 {
            format!("team-{}", (family + 1) % 40)
        } else {
            ns.clone()
        };
        render(
            &Object {
                api_version: "discovery.k8s.io/v1",
                kind: "EndpointSlice",
                name: format!("{app}-{:05x}", rng.below(0xfffff)),
                namespace: Some(slice_ns),
                uid: uid(&mut rng),
                labels: vec![("kubernetes.io/service-name".to_string(), app.clone())],
                owners: vec![("v1", "Service", app.clone(), svc_uid, true)],
                spec: String::new(),
                status: String::new(),
            },
            &mut rng,
            list,
            &mut out,
        );
        if family < 40 {
            // Each namespace once, cluster-scoped.
            render(
                &Object {
                    api_version: "v1",
                    kind: "Namespace",
                    name: ns.clone(),
                    namespace: None,
                    uid: uid(&mut rng),
                    labels: vec![],
                    owners: vec![],
                    spec: "spec:\n  finalizers:\n  - kubernetes\n".into(),
                    status: "status:\n  phase: Active\n".into(),
                },
                &mut rng,
                list,
                &mut out,
            );
        }
        family += 1;
    }
    out
}

/// A string value as kubectl writes it: quoted where YAML would read it as another type (a
/// `pod-template-hash` of digits only).
fn string_value(value: &str) -> String {
    use ownerlint::yaml::{Scalar, ScalarType};
    let plain = Scalar {
        text: value.to_string(),
        plain: true,
    };
    match plain.resolve() {
        ScalarType::String => value.to_string(),
        _ => format!("\"{value}\""),
    }
}
