//! The fast path against the full parse on generated objects (proptest): any object built from
//! the fields real objects have — every field of `metadata`, the `spec` and `status` fields of
//! workload controllers, Pods, ReplicationControllers and CRDs, and fields no rule reads — in
//! block or flow style, as YAML or JSON, alone or as the items of a List, gives the same
//! findings both ways. A field that a rule reads but does not declare (`src/fields.rs`) is
//! dropped by the fast path, and this test finds it.

use crate::common;

use ownerlint::Options;
use ownerlint::report::Format;
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// A value to write as YAML or JSON.
#[derive(Clone, Debug)]
enum V {
    /// A scalar as YAML writes it plain (`null`, `true`, `3`, `a`) or quoted.
    Plain(&'static str),
    Quoted(String),
    Map(Vec<(String, V)>),
    Seq(Vec<V>),
}

fn s(text: &str) -> V {
    V::Quoted(text.to_string())
}

fn map(entries: Vec<(&str, V)>) -> V {
    V::Map(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "ReplicationController"),
    ("v1", "ConfigMap"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("extensions/v1beta1", "ReplicaSet"),
    ("batch/v1", "Job"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
    ("example.com/v1", "Widget"),
];

const NAMES: &[&str] = &["a", "b", "web", "web-1"];
const UIDS: &[&str] = &["u-1", "u-2", "u-3"];

fn scalar() -> impl Strategy<Value = V> {
    prop_oneof![
        prop::sample::select(&["null", "true", "3", "a", "~", "\"\""][..]).prop_map(V::Plain),
        prop::sample::select(NAMES).prop_map(s),
    ]
}

/// Labels or a selector's map: drawn from few keys and values, so that selectors match.
fn labels() -> impl Strategy<Value = V> {
    prop::collection::vec(
        (
            prop::sample::select(&["app", "tier", "ownerlint.dev/x"][..]),
            prop::sample::select(&["a", "b"][..]),
        ),
        0..3,
    )
    .prop_map(|pairs| map(pairs.into_iter().map(|(k, v)| (k, s(v))).collect()))
}

fn owner_reference() -> impl Strategy<Value = V> {
    (
        prop::sample::select(KINDS),
        prop::sample::select(NAMES),
        prop::sample::select(UIDS),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        any::<bool>(),
    )
        .prop_map(
            |((api_version, kind), name, uid, controller, block, extra)| {
                let mut entries = vec![
                    ("apiVersion", s(api_version)),
                    ("kind", s(kind)),
                    ("name", s(name)),
                    ("uid", s(uid)),
                ];
                let flag = |b: bool| V::Plain(if b { "true" } else { "false" });
                if let Some(c) = controller {
                    entries.push(("controller", flag(c)));
                }
                if let Some(b) = block {
                    entries.push(("blockOwnerDeletion", flag(b)));
                }
                if extra {
                    entries.push(("namespace", s("other")));
                }
                map(entries)
            },
        )
}

/// Fields of `metadata`: each one of a real ObjectMeta, present or not.
fn metadata() -> impl Strategy<Value = V> {
    (
        prop::option::of(prop::sample::select(NAMES)),
        prop::option::of(prop::sample::select(&["default", "shop", "other"][..])),
        prop::option::of(prop::sample::select(UIDS)),
        prop::option::of(labels()),
        prop::option::of(prop::collection::vec(owner_reference(), 0..3)),
        prop::option::of(prop::collection::vec(
            prop::sample::select(
                &[
                    "kubernetes",
                    "orphan",
                    "foregroundDeletion",
                    "example.com/x",
                    "x",
                    "A_b",
                ][..],
            ),
            0..3,
        )),
        (
            prop::option::of(prop::sample::select(&["1", "\"\""][..])),
            prop::option::of(prop::sample::select(
                &["null", "\"2024-01-01T00:00:00Z\""][..],
            )),
            prop::option::of(scalar()),
            prop::option::of(prop::sample::select(
                &[
                    "owner-not-found",
                    "owner-not-found,duplicate-object",
                    "nope",
                ][..],
            )),
            any::<bool>(),
        ),
    )
        .prop_map(|(name, namespace, uid, labels, refs, finalizers, rest)| {
            let (resource_version, creation, deletion, ignore, noise) = rest;
            let mut entries = Vec::new();
            if noise {
                entries.push((
                    "managedFields",
                    V::Seq(vec![map(vec![
                        ("manager", s("kubectl")),
                        ("fieldsV1", map(vec![("f:metadata", map(vec![]))])),
                    ])]),
                ));
                entries.push(("generation", V::Plain("3")));
                entries.push(("generateName", s("web-")));
            }
            if let Some(n) = name {
                entries.push(("name", s(n)));
            }
            if let Some(n) = namespace {
                entries.push(("namespace", s(n)));
            }
            if let Some(u) = uid {
                entries.push(("uid", s(u)));
            }
            if let Some(r) = resource_version {
                entries.push(("resourceVersion", V::Plain(r)));
            }
            if let Some(c) = creation {
                entries.push(("creationTimestamp", V::Plain(c)));
            }
            if let Some(d) = deletion {
                entries.push(("deletionTimestamp", d));
            }
            if let Some(l) = labels {
                entries.push(("labels", l));
            }
            let mut annotations = vec![("kubectl.kubernetes.io/last-applied", s("{}"))];
            if let Some(i) = ignore {
                annotations.push(("ownerlint.dev/ignore", s(i)));
            }
            entries.push(("annotations", map(annotations)));
            if let Some(refs) = refs {
                entries.push(("ownerReferences", V::Seq(refs)));
            }
            if let Some(f) = finalizers {
                entries.push(("finalizers", V::Seq(f.into_iter().map(s).collect())));
            }
            map(entries)
        })
}

/// `spec` and `status` as the kinds have them, plus fields no rule reads.
fn spec_and_status() -> impl Strategy<Value = (V, V)> {
    (
        prop::option::of(labels()),
        prop::option::of(labels()),
        any::<bool>(),
        prop::sample::select(&["Running", "Succeeded", "Failed", "Pending"][..]),
        prop::sample::select(&["Namespaced", "Cluster"][..]),
    )
        .prop_map(|(selector, template_labels, match_labels, phase, scope)| {
            let mut spec = vec![("replicas", V::Plain("2"))];
            if let Some(selector) = selector {
                let selector = if match_labels {
                    map(vec![("matchLabels", selector)])
                } else {
                    selector
                };
                spec.push(("selector", selector));
            }
            let mut template = vec![(
                "spec",
                map(vec![(
                    "containers",
                    V::Seq(vec![map(vec![("name", s("c")), ("image", s("x"))])]),
                )]),
            )];
            if let Some(labels) = template_labels {
                template.insert(0, ("metadata", map(vec![("labels", labels)])));
            }
            spec.push(("template", map(template)));
            spec.push(("group", s("example.com")));
            spec.push(("scope", s(scope)));
            spec.push(("names", map(vec![("kind", s("Widget"))])));
            spec.push((
                "versions",
                V::Seq(vec![map(vec![
                    ("name", s("v1")),
                    ("served", V::Plain("true")),
                ])]),
            ));
            let status = map(vec![
                ("phase", s(phase)),
                ("hostIP", s("10.0.0.1")),
                ("conditions", V::Seq(vec![map(vec![("type", s("Ready"))])])),
            ]);
            (map(spec), status)
        })
}

fn object() -> impl Strategy<Value = V> {
    (
        prop::sample::select(KINDS),
        metadata(),
        spec_and_status(),
        any::<bool>(),
        0usize..6,
    )
        .prop_map(
            |((api_version, kind), metadata, (spec, status), data, turn)| {
                let mut entries = vec![
                    ("apiVersion", s(api_version)),
                    ("kind", s(kind)),
                    ("metadata", metadata),
                    ("spec", spec),
                    ("status", status),
                ];
                if data {
                    entries.push(("data", map(vec![("key", s("value"))])));
                }
                // Keys in any order: an object (or List item) may start with one nothing reads.
                let turn = turn % entries.len();
                entries.rotate_left(turn);
                map(entries)
            },
        )
}

/// YAML in block style; maps below `flow_from` levels in flow style.
fn yaml(v: &V, indent: usize, flow_from: usize, out: &mut String) {
    match v {
        V::Map(entries) if indent / 2 >= flow_from || entries.is_empty() => {
            out.push(' ');
            flow(v, out);
            out.push('\n');
        }
        V::Seq(items) if items.is_empty() => out.push_str(" []\n"),
        V::Map(entries) => {
            out.push('\n');
            for (k, v) in entries {
                out.push_str(&" ".repeat(indent));
                out.push_str(&format!("{}:", json_string(k)));
                yaml(v, indent + 2, flow_from, out);
            }
        }
        V::Seq(items) => {
            out.push('\n');
            for item in items {
                out.push_str(&" ".repeat(indent));
                out.push('-');
                yaml(item, indent + 2, flow_from, out);
            }
        }
        V::Plain(_) | V::Quoted(_) => {
            out.push(' ');
            flow(v, out);
            out.push('\n');
        }
    }
}

/// Flow style, which for these values is also JSON.
fn flow(v: &V, out: &mut String) {
    match v {
        V::Plain(text) if text.starts_with('"') => out.push_str(text),
        V::Plain(text) => out.push_str(match *text {
            "~" | "null" => "null",
            "a" => "\"a\"",
            t => t,
        }),
        V::Quoted(text) => out.push_str(&json_string(text)),
        V::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&json_string(k));
                out.push_str(": ");
                flow(v, out);
            }
            out.push('}');
        }
        V::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow(item, out);
            }
            out.push(']');
        }
    }
}

/// A key or string as YAML and JSON both read it: plain where that is safe, else quoted.
fn json_string(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '/' | '_'))
        && text.starts_with(|c: char| c.is_ascii_alphabetic());
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_default()
    }
}

/// The document's text: YAML (block, with flow below some depth) or JSON; alone or in a List;
/// with `empty_list`, an empty typed List (`"items": null`, as `kubectl cluster-info dump`
/// writes a kind it found none of) after them.
fn render(
    objects: &[V],
    as_list: bool,
    as_json: bool,
    flow_from: usize,
    empty_list: bool,
) -> String {
    let mut root = if as_list {
        vec![map(vec![
            ("apiVersion", s("v1")),
            ("kind", s("List")),
            ("items", V::Seq(objects.to_vec())),
        ])]
    } else {
        objects.to_vec()
    };
    if empty_list {
        root.push(map(vec![
            ("kind", s("DaemonSetList")),
            ("apiVersion", s("apps/v1")),
            (
                "metadata",
                map(vec![("resourceVersion", V::Quoted("900".into()))]),
            ),
            ("items", V::Plain("null")),
        ]));
    }
    let mut out = String::new();
    for document in &root {
        if as_json {
            flow(document, &mut out);
            out.push('\n');
        } else {
            out.push_str("---");
            yaml(document, 0, flow_from, &mut out);
        }
    }
    // Plain keys in flow style must be JSON's quoted ones.
    if as_json {
        out = quote_flow_keys(&out);
    }
    out
}

/// JSON wants every key and string quoted.
fn quote_flow_keys(text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let mut in_string = false;
    let mut escaped = false;
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let bare =
                matches!(word.as_str(), "true" | "false" | "null") || word.parse::<f64>().is_ok();
            if bare {
                out.push_str(word);
            } else {
                out.push_str(&serde_json::to_string(word.as_str()).unwrap_or_default());
            }
            word.clear();
        }
    };
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                flush(&mut word, &mut out);
                in_string = true;
                out.push(c);
            }
            '{' | '}' | '[' | ']' | ',' | ':' | ' ' | '\n' => {
                flush(&mut word, &mut out);
                out.push(c);
            }
            _ => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The findings, and every object as the model read it: each field, with its place. (Only
/// the object's own span may differ: the fast path parses less of it.)
fn read(text: &str, full_parse: bool, json: bool) -> (String, String) {
    let name = if json { "input.json" } else { "input.yaml" };
    let options = Options {
        full_parse,
        ..Options::default()
    };
    let analysis = ownerlint::analyze_texts(vec![(name.to_string(), text.to_string())], &options);
    let objects = analysis
        .objects
        .iter()
        .map(|object| {
            let mut object = object.clone();
            // Where the object's mapping ends, and whether a List is read item by item (the
            // fast path splits a JSON List), are the fast path's own business.
            object.span = Default::default();
            object.extent = Default::default();
            format!("{object:?}\n")
        })
        .collect();
    (common::render(&analysis.outcome, Format::Json), objects)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("OWNERLINT_PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(96)
    ))]

    #[test]
    fn fast_path_equals_full_parse(
        objects in prop::collection::vec(object(), 1..4),
        as_list in any::<bool>(),
        as_json in any::<bool>(),
        flow_from in 1usize..6,
        empty_list in any::<bool>(),
    ) {
        let text = render(&objects, as_list, as_json, flow_from, empty_list);
        let (fast, fast_objects) = read(&text, false, as_json);
        let (full, full_objects) = read(&text, true, as_json);
        prop_assert_eq!(fast_objects, full_objects, "input:\n{}", text);
        prop_assert_eq!(fast, full, "input:\n{}", text);
    }
}

#[test]
fn generated_documents_are_read_as_objects() {
    // The generator writes what ownerlint reads as objects (not syntax errors), in each shape.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let objects = prop::collection::vec(object(), 2..3)
        .new_tree(&mut runner)
        .expect("a value")
        .current();
    for (as_list, as_json) in [(false, false), (true, false), (false, true), (true, true)] {
        let text = render(&objects, as_list, as_json, 3, true);
        let name = if as_json { "input.json" } else { "input.yaml" };
        let outcome =
            ownerlint::lint_texts(vec![(name.to_string(), text.clone())], &Options::default());
        assert_eq!(outcome.stats.objects, 2, "{text}");
        assert!(
            outcome.findings.iter().all(|f| f.rule.id != "invalid-yaml"),
            "{text}"
        );
    }
}
