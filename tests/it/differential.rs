//! Differential test of YAML reading against libyaml. Kubernetes reads YAML through
//! sigs.k8s.io/yaml and go-yaml, a port of libyaml; PyYAML's `CSafeLoader` is that same C
//! library, so `tests/differential/libyaml_reads.py` tells which files are valid YAML and what
//! their ownership fields hold. Every file of `../shared/corpus`, and the documents below, must
//! be read or refused alike by ownerlint, with the same ownership fields where both read them.
//!
//! JSON streams (`{...}{...}`) are not YAML, and libyaml refuses them; kubectl reads them as JSON
//! values one after another, so ownerlint is held to that instead (the script's `--json-stream`).
//!
//! The generated documents run in every `cargo test`; the corpus takes longer and is an ignored
//! test, which `.ci/run` runs in release mode.
//!
//! Skipped, with the reason printed, without python3 and PyYAML built with libyaml or without the
//! corpus; under `CI=true` that fails instead.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use ownerlint::Options;
use ownerlint::discover::{self, Filter};
use ownerlint::model::{FieldValue, Object, OwnerRefs, Spanned};
use ownerlint::read::{Files, Input};
use ownerlint::yaml::{Scalar, ScalarType};
use serde_json::{Value, json};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/differential/libyaml_reads.py"
);

#[test]
fn ownerlint_reads_what_libyaml_reads() {
    if let Err(reason) = libyaml_available() {
        return common::skip(&reason);
    }
    differential(None);
}

#[test]
#[ignore = "heavy: every corpus file through libyaml (python3 with PyYAML), 10 s in a debug build; .ci/run runs it in release"]
fn ownerlint_reads_the_corpus_as_libyaml_reads_it() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    if let Err(reason) = libyaml_available() {
        return common::skip(&reason);
    }
    differential(Some(&corpus));
}

/// Every YAML and JSON file of `corpus`, or, without one, the generated documents and JSON
/// streams, read by ownerlint and by libyaml (or kubectl), which must agree.
fn differential(corpus: Option<&Path>) {
    let tmp = common::temp_dir("differential");
    let dir = tmp.path();
    let write = |cases: Vec<(&str, Vec<u8>)>| -> Vec<PathBuf> {
        let paths = cases.iter().map(|(name, _)| dir.join(name)).collect();
        for (name, text) in cases {
            std::fs::write(dir.join(name), text).expect("write a generated case");
        }
        paths
    };
    let (files, streams) = match corpus {
        Some(corpus) => {
            // The files ownerlint finds in the corpus (its YAML and JSON files).
            let filter = Filter::new(&[], &[], None, None).expect("no patterns");
            let roots = [corpus.to_path_buf()];
            let found = discover::discover(&roots, &roots, &filter, false, &[], &Files::default());
            let files: Vec<PathBuf> = found
                .inputs
                .into_iter()
                .filter_map(|input| match input {
                    Input::File(path) => Some(path),
                    Input::Stdin => None,
                })
                .collect();
            (files, Vec::new())
        }
        None => (write(generated()), write(json_streams())),
    };
    let from_corpus = if corpus.is_some() { files.len() } else { 0 };

    // One run of the script: every file as YAML, then the JSON streams as kubectl reads them.
    let mut args: Vec<PathBuf> = files.iter().chain(&streams).cloned().collect();
    args.push("--json-stream".into());
    args.extend(streams.iter().cloned());
    let readings = libyaml_reads(&args);
    assert_eq!(readings.len(), args.len() - 1, "one reading a file");
    let (as_yaml, as_json) = readings.split_at(files.len() + streams.len());
    let expected = as_yaml[..files.len()].iter().chain(as_json);

    let name = |path: &Path| match (corpus.map(|c| path.strip_prefix(c)), path.strip_prefix(dir)) {
        (Some(Ok(p)), _) => format!("corpus/{}", p.display()),
        (_, Ok(p)) => format!("generated/{}", p.display()),
        _ => path.display().to_string(),
    };
    let mut templates = Vec::new();
    let mut agreements = 0;
    let mut objects = 0;
    let mut disagreements = Vec::new();
    let references = files.iter().map(|path| (path, "libyaml"));
    let references = references.chain(streams.iter().map(|path| (path, "kubectl")));
    for ((path, reference), theirs) in references.zip(expected) {
        let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let kubectl = KUBECTL_REFUSES
            .iter()
            .find(|(name, _)| path.starts_with(dir) && *name == file)
            .map(|(_, why)| Reading {
                reads: false,
                error: Some(why.to_string()),
                line: None,
                objects: Vec::new(),
            });
        let (reference, theirs) = match &kubectl {
            Some(reading) => ("kubectl", reading),
            None => (reference, theirs),
        };
        let ours = ownerlint_reads(path, &theirs.objects, false);
        // The fast path must read every file exactly as the full parse does.
        let full = ownerlint_reads(path, &theirs.objects, true);
        if (&full.refused, &full.objects, full.template)
            != (&ours.refused, &ours.objects, ours.template)
        {
            disagreements.push(format!(
                "{}\n  the fast path and the full parse differ:\n    fast: {:?} {:?}\n    full: {:?} {:?}",
                name(path),
                ours.refused,
                ours.objects,
                full.refused,
                full.objects
            ));
            continue;
        }
        if ours.template {
            templates.push(name(path));
        } else if let Some(difference) = compare(reference, theirs, &ours) {
            disagreements.push(format!("{}\n{difference}", name(path)));
        } else {
            agreements += 1;
            objects += theirs.objects.len();
        }
    }
    println!(
        "files: {from_corpus} from the corpus, {} generated, {} JSON streams",
        files.len() - from_corpus,
        streams.len()
    );
    println!("JSON streams (libyaml refuses them; compared with kubectl's JSON reading):");
    for (path, reading) in streams.iter().zip(&as_yaml[files.len()..]) {
        println!("  {}: libyaml {}", name(path), reading.describe());
    }
    println!("excluded as unrendered templates: {}", templates.len());
    for template in &templates {
        println!("  {template}");
    }
    let summary = format!(
        "files compared: {}, agreements: {agreements} (with {objects} objects), disagreements: {}",
        agreements + disagreements.len(),
        disagreements.len()
    );
    println!("{summary}");
    let report = format!("{summary}\n\n{}", disagreements.join("\n\n"));
    assert!(disagreements.is_empty(), "{report}");
}

/// Generated cases that libyaml reads whole but kubectl refuses, and why: ownerlint is held to
/// kubectl there.
const KUBECTL_REFUSES: &[(&str, &str)] = &[
    ("directives.yaml", DIRECTIVES),
    ("directive-yaml-1.2.yaml", DIRECTIVES),
];

const DIRECTIVES: &str = "kubectl splits a stream at its `---` lines before it parses (apimachinery's YAMLReader), so the directives stand alone, and go-yaml refuses directives with no document after them";

fn libyaml_available() -> Result<(), String> {
    let probe = "import sys, yaml; sys.exit(0 if yaml.__with_libyaml__ else 3)";
    match Command::new("python3").args(["-c", probe]).output() {
        Err(err) => Err(format!("python3 cannot be run: {err}")),
        Ok(out) if out.status.code() == Some(3) => {
            Err("PyYAML is installed without libyaml".into())
        }
        Ok(out) if !out.status.success() => Err(format!(
            "PyYAML is not installed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Ok(_) => Ok(()),
    }
}

/// What libyaml (or, for JSON streams, kubectl) reads from a file.
#[derive(serde::Deserialize)]
struct Reading {
    reads: bool,
    error: Option<String>,
    line: Option<usize>,
    objects: Vec<Value>,
}

impl Reading {
    fn describe(&self) -> String {
        match self.reads {
            true => format!("reads it, objects: {}", self.objects.len()),
            false => format!(
                "refuses it at line {}: {}",
                self.line.map_or("?".into(), |l| l.to_string()),
                self.error.as_deref().unwrap_or("")
            ),
        }
    }
}

fn libyaml_reads(args: &[PathBuf]) -> Vec<Reading> {
    let out = Command::new("python3")
        .arg(SCRIPT)
        .args(args)
        .output()
        .expect("run the libyaml script");
    assert!(
        out.status.success(),
        "the libyaml script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the script prints JSON")
}

/// What ownerlint reads from a file: its objects as the script prints them, or where it refuses
/// the file.
struct Ours {
    template: bool,
    refused: Option<(usize, String)>,
    objects: Vec<Value>,
}

/// `hints` are libyaml's objects, which say which text fields were read as numbers or booleans
/// (ownerlint keeps the text of an object's own fields, not their type).
fn ownerlint_reads(path: &Path, hints: &[Value], full_parse: bool) -> Ours {
    let options = Options {
        paths: vec![path.to_path_buf()],
        no_suppress: true,
        full_parse,
        ..Options::default()
    };
    let analysis = ownerlint::analyze(&options, &mut std::io::empty());
    let outcome = &analysis.outcome;
    assert!(
        outcome.errors.is_empty(),
        "{}: {:?}",
        path.display(),
        outcome.errors
    );
    let refused = outcome
        .findings
        .iter()
        .find(|f| f.rule.id == "invalid-yaml")
        .map(|f| {
            let at = outcome
                .source(f.primary.source)
                .line_col(f.primary.span.start);
            (at.line, f.message.clone())
        });
    Ours {
        template: outcome
            .findings
            .iter()
            .any(|f| f.rule.id == "unrendered-template"),
        refused,
        objects: analysis
            .objects
            .iter()
            .enumerate()
            .map(|(i, object)| object_json(object, hints.get(i)))
            .collect(),
    }
}

/// The differences between the reference's reading (`libyaml`, or `kubectl` for a JSON stream)
/// and ownerlint's, if any.
fn compare(reference: &str, theirs: &Reading, ours: &Ours) -> Option<String> {
    let ownerlint = match &ours.refused {
        Some((line, message)) => format!("refuses it at line {line}: {message}"),
        None => format!("reads it, objects: {}", ours.objects.len()),
    };
    let mut out = format!(
        "  {reference}:   {}\n  ownerlint: {ownerlint}",
        theirs.describe()
    );
    if theirs.reads != ours.refused.is_none() {
        return Some(out);
    }
    if !theirs.reads || theirs.objects == ours.objects {
        return None;
    }
    let count = theirs.objects.len().max(ours.objects.len());
    for i in (0..count).filter(|&i| theirs.objects.get(i) != ours.objects.get(i)) {
        let show = |o: Option<&Value>| o.map_or("(none)".into(), Value::to_string);
        out.push_str(&format!(
            "\n  object {i}:\n    {reference}:   {}\n    ownerlint: {}",
            show(theirs.objects.get(i)),
            show(ours.objects.get(i))
        ));
    }
    Some(out)
}

/// An object as the script prints it.
fn object_json(object: &Object, hint: Option<&Value>) -> Value {
    let own = |key: &str, field: &Option<Spanned<String>>| {
        let hint = hint.and_then(|h| h.get(key));
        match field {
            None => Value::Null,
            // Read as a number or a boolean where libyaml did, as text elsewhere.
            Some(f) if hint.is_some_and(|h| !h.is_string() && !h.is_null()) => plain(&f.value),
            Some(f) => Value::String(f.value.clone()),
        }
    };
    let refs = match &object.owner_refs {
        OwnerRefs::None => Value::Null,
        OwnerRefs::NotAList(n) => json!({ "notAList": described(&n.found) }),
        OwnerRefs::List { refs, .. } => refs
            .iter()
            .map(|r| match r.not_a_mapping() {
                Some(found) => json!({ "notAMapping": described(found) }),
                None => {
                    let fields = [
                        ("apiVersion", &r.api_version),
                        ("kind", &r.kind),
                        ("name", &r.name),
                        ("uid", &r.uid),
                        ("controller", &r.controller),
                        ("blockOwnerDeletion", &r.block_owner_deletion),
                    ];
                    let entries = fields.into_iter().filter_map(|(key, field)| {
                        Some((key.to_string(), field_json(&field.as_ref()?.value)))
                    });
                    Value::Object(entries.collect())
                }
            })
            .collect(),
    };
    json!({
        "apiVersion": own("apiVersion", &object.api_version),
        "kind": own("kind", &object.kind),
        "name": own("name", &object.name),
        "namespace": own("namespace", &object.namespace),
        "uid": own("uid", &object.uid),
        "ownerReferences": refs,
    })
}

fn field_json(value: &FieldValue) -> Value {
    match value {
        FieldValue::Str(s) => Value::String(s.clone()),
        FieldValue::Bool(b) => Value::Bool(*b),
        FieldValue::Null => Value::Null,
        FieldValue::Other(found) => described(found),
    }
}

/// A value from how ownerlint describes it in messages ("the number 12", "a mapping").
fn described(found: &str) -> Value {
    if let Some(text) = found.strip_prefix("the number ") {
        return number(text);
    }
    if let Some(text) = found.strip_prefix("the boolean ") {
        return Value::Bool(text == "true");
    }
    if let Some(text) = found.strip_prefix("the string \"") {
        return Value::String(text.strip_suffix('"').unwrap_or(text).into());
    }
    match found {
        "null" => Value::Null,
        "a mapping" => json!({ "type": "mapping" }),
        "a list" => json!({ "type": "list" }),
        _ => json!({ "type": found }),
    }
}

/// The text of a plain scalar, typed as ownerlint types it.
fn plain(text: &str) -> Value {
    let scalar = Scalar {
        text: text.to_string(),
        plain: true,
    };
    match scalar.resolve() {
        ScalarType::Null => Value::Null,
        ScalarType::Bool(b) => Value::Bool(b),
        ScalarType::Number => number(text),
        ScalarType::String => Value::String(text.to_string()),
    }
}

/// A YAML 1.1 number's value as the script prints it: `{"number": float}`, or its Python name
/// when not finite.
fn number(text: &str) -> Value {
    let digits = text.replace('_', "");
    let (negative, digits) = match digits.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, digits.trim_start_matches('+').to_string()),
    };
    let radix = |prefix: &str, radix| {
        let rest = digits.strip_prefix(prefix)?;
        i64::from_str_radix(rest, radix).ok().map(|n| n as f64)
    };
    let value = radix("0x", 16)
        .or_else(|| radix("0o", 8))
        .or_else(|| radix("0b", 2))
        .or_else(|| (digits.len() > 1).then(|| radix("0", 8)).flatten())
        .or_else(|| match digits.to_ascii_lowercase().as_str() {
            ".inf" => Some(f64::INFINITY),
            ".nan" => Some(f64::NAN),
            other => other.parse().ok(),
        });
    match value.map(|v| if negative { -v } else { v }) {
        Some(v) if v.is_finite() => json!({ "number": v }),
        Some(v) if v.is_nan() => json!({ "number": "nan" }),
        Some(v) => json!({ "number": if v > 0.0 { "inf" } else { "-inf" } }),
        None => json!({ "number": text }),
    }
}

/// An object with an owner, the base of most generated cases.
const OWNED: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: shop
  uid: 6b9f3c1e-0000-4000-8000-000000000001
  ownerReferences:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
    uid: 6b9f3c1e-0000-4000-8000-000000000002
    controller: true
    blockOwnerDeletion: true
";

/// Documents that are valid YAML in ways that trip parsers, and documents that are not.
fn generated() -> Vec<(&'static str, Vec<u8>)> {
    let comments = "# a comment line\n".repeat(150);
    let indented_comments = "    # a comment line\n".repeat(150);
    let cases: Vec<(&str, String)> = vec![
        ("plain.yaml", OWNED.into()),
        ("empty.yaml", String::new()),
        ("comments-only.yaml", "# nothing here\n---\n# nor here\n".into()),
        (
            "quoting.yaml",
            r#"apiVersion: "v1"
kind: 'ConfigMap'
metadata:
  name: "c\x6d"
  namespace: 'it''s'
  uid: "123"
  ownerReferences:
  - apiVersion: 'apps/v1'
    kind: "Deployment"
    name: "web\tserver\u00e9"
    uid: '456'
    controller: "true"
    blockOwnerDeletion: 'false'
"#
            .into(),
        ),
        (
            // Continuation lines at, and below, the key's indentation; libyaml reads them.
            "quoted-continued.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"web\n  server\"\n  namespace: 'shop\n front'\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: \"web\n  app\"\n    uid: 'abc\ndef'\n".into(),
        ),
        (
            "quoted-continued-tab.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"web\n\tserver\"\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: 'web\n\t  app'\n".into(),
        ),
        (
            "folding.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n    server\n  namespace: >-\n    shop\n    front\n  uid: |\n    line1\n    line2\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: >\n      web\n\n      app\n    uid: |-\n      u-1\n".into(),
        ),
        (
            "block-scalar-at-end-without-newline.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: |\n      u-2".into(),
        ),
        (
            "block-scalar-keep-at-end.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: |+\n      u-3\n\n".into(),
        ),
        (
            "indentation.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: cm\n    ownerReferences:\n    -   apiVersion: apps/v1\n        kind: Deployment\n        name: web\n---\napiVersion: v1\nkind: Secret\nmetadata:\n      name: s\n      ownerReferences:\n          - {apiVersion: apps/v1, kind: Deployment, name: web, controller: yes}\n".into(),
        ),
        (
            "comments-between-key-and-value.yaml",
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name:\n{comments}    cm\n  ownerReferences:\n{comments}  - apiVersion: apps/v1\n    kind: Deployment\n    name:\n{indented_comments}      web\n"),
        ),
        (
            "anchors.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &name web\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: *name\n    uid: &uid u-4\n  uid: *uid\n".into(),
        ),
        (
            // An alias in one item of a List to an anchor in another.
            "anchors-across-list-items.yaml",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    ownerReferences: &owners\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n    ownerReferences: *owners\n".into(),
        ),
        (
            "merge-key.yaml",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  owner: &owner\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: u-5\nmetadata:\n  name: cm\n  ownerReferences:\n  - <<: *owner\n    controller: true\n".into(),
        ),
        (
            "merge-key-list.yaml",
            "apiVersion: example.com/v1\nkind: Widget\nspec:\n  named: &named {name: w, namespace: shop}\n  owned: &owned\n    name: ignored\n    ownerReferences:\n    - {apiVersion: apps/v1, kind: Deployment, name: web}\nmetadata:\n  <<: [*named, *owned]\n".into(),
        ),
        (
            "merge-key-in-list-items.yaml",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: &meta\n    name: a\n    ownerReferences:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    <<: *meta\n    name: b\n".into(),
        ),
        (
            // A key written after a merge wins over the merged one. (Before it, go-yaml, which
            // kubectl reads with, sets the merged key over it, while PyYAML keeps the written
            // one: the unit tests of `yaml` hold ownerlint to go-yaml there.)
            "merge-key-precedence.yaml",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  owner: &owner {apiVersion: apps/v1, kind: Deployment, name: web, uid: u-6}\nmetadata:\n  name: cm\n  ownerReferences:\n  - <<: *owner\n    name: first\n  - <<: *owner\n    uid: last\n".into(),
        ),
        (
            "tags.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: !!str cm\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: !!str 0123\n    uid: !!str true\n    controller: !!bool \"true\"\n".into(),
        ),
        (
            "duplicate-keys.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  name: last\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: first\n    name: last\n".into(),
        ),
        (
            "explicit-keys.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  ? name\n  : cm\n  ? ownerReferences\n  : - ? apiVersion\n      : apps/v1\n      kind: Deployment\n      ? name\n      : web\n".into(),
        ),
        (
            // Excluded from the comparison, and counted.
            "helm-template.yaml",
            OWNED.replace("name: cm", "name: {{ .Values.name }}"),
        ),
        (
            "tabs.yaml",
            "apiVersion:\tv1\nkind: ConfigMap\t# a comment after a tab\nmetadata:\n  name: \"c\tm\"\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\tserver\n    controller: [true,\tfalse]\n".into(),
        ),
        (
            "document-markers.yaml",
            "--- # the first\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n...\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n...\n# after the end\n--- !!map\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n".into(),
        ),
        (
            "directives.yaml",
            format!("%YAML 1.1\n%TAG !k! tag:yaml.org,2002:\n---\n{}", OWNED.replace("name: web", "name: !k!str 0123").replace("uid: 6b9f3c1e-0000-4000-8000-000000000002", "uid: !!str 42")),
        ),
        ("directive-yaml-1.2.yaml", format!("%YAML 1.2\n---\n{OWNED}")),
        ("bom.yaml", format!("\u{feff}{OWNED}")),
        ("bom-second-document.yaml", format!("{OWNED}---\n\u{feff}{OWNED}")),
        ("crlf.yaml", OWNED.replace("name: cm", "name: \"c\n  m\"").replace('\n', "\r\n")),
        (
            "types.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 12345\n  namespace: ~\n  uid: yes\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: null\n    uid: 0x1F\n    controller: yes\n    blockOwnerDeletion: Off\n  - apiVersion: apps/v1\n    kind:\n    name: 1.5\n    uid: 017\n    controller: True\n    blockOwnerDeletion: {}\n  - just text\n".into(),
        ),
        (
            "list.yaml",
            common::to_list(&format!("{OWNED}---\n{}", OWNED.replace("name: cm", "name: cm2"))),
        ),
        (
            "typed-list.yaml",
            "apiVersion: v1\nkind: PodList\nitems:\n- metadata:\n    name: p\n    ownerReferences:\n    - {apiVersion: apps/v1, kind: ReplicaSet, name: rs}\n- kind: Other\n  metadata: {name: q}\n".into(),
        ),
        (
            "sequence-document.yaml",
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- not an object\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: b\n    ownerReferences: not a list\n".into(),
        ),
        (
            // Flow collections indented with tabs inside block ones: libyaml reads a tab as a
            // space there (JSON pasted into YAML, flow YAML written with tabs).
            "flow-tabs.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {\n\tname: cm,\n\tnamespace: shop,\n\n\t\n\townerReferences: [\n\t\t{apiVersion: apps/v1, kind: Deployment,\t# the owner\n\t\t\tname: web, uid: u-7},\n\t\t{\n\t\t\t\"apiVersion\": \"apps/v1\",\n\t\t\t\"kind\": \"StatefulSet\",\n\t\t\t\"name\": \"db\"\n\t\t}\n\t]\n}\n".into(),
        ),
        (
            "flow-tabs-in-block-sequence.yaml",
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n    ownerReferences:\n    - {\n\tapiVersion: apps/v1,\n\tkind: Deployment,\n\tname: \"web\"\n\t}\n    - [\n\tnot, an, owner]\n".into(),
        ),
        (
            "json-tabs-in-yaml.yaml",
            format!("# a JSON document in a YAML file\n---\t\n{}", json_of(OWNED, true).replace("  ", "\t")),
        ),
        (
            // A tab right of the collection's column continues a plain scalar.
            "plain-continued-after-tab.yaml",
            OWNED.replace("    name: web\n", "    name: web\n      \tserver\n"),
        ),
        (
            "block-scalar-tab-in-text.yaml",
            OWNED.replace("    name: web\n", "    name: |\n      web\n      \tserver\n"),
        ),
        ("object.json", json_of(OWNED, true)),
        ("compact.json", json_of(OWNED, false)),
        ("tabs.json", json_of(OWNED, true).replace("  ", "\t")),
        (
            "list.json",
            serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": [yaml_value(OWNED), yaml_value(OWNED)]})).expect("JSON"),
        ),
        // Refused by libyaml.
        ("unclosed-quote.yaml", OWNED.replace("name: web", "name: \"web")),
        ("unclosed-flow.yaml", OWNED.replace("name: cm", "name: [cm")),
        ("mapping-in-plain-value.yaml", OWNED.replace("name: web", "name: web: app")),
        ("bad-indentation.yaml", OWNED.replace("  namespace: shop", "   namespace: shop")),
        ("item-after-mapping.yaml", OWNED.replace("  namespace: shop", "- namespace: shop")),
        ("undefined-alias.yaml", OWNED.replace("name: web", "name: *web")),
        ("unknown-escape.yaml", OWNED.replace("name: web", "name: \"we\\qb\"")),
        ("reserved-indicator.yaml", OWNED.replace("name: web", "name: @web")),
        ("control-character.yaml", OWNED.replace("name: web", "name: w\u{1}eb")),
        ("nul.yaml", OWNED.replace("name: web", "name: w\0eb")),
        ("long-implicit-key.yaml", OWNED.replace("name: web", &format!("{}: web", "n".repeat(1100)))),
        ("tab-indentation.yaml", OWNED.replace("  namespace: shop", "\tnamespace: shop")),
        ("tab-after-indentation.yaml", OWNED.replace("  namespace: shop", "  \tnamespace: shop")),
        ("tab-after-dash.yaml", OWNED.replace("  - apiVersion: apps/v1", "  -\tapiVersion: apps/v1")),
        ("tab-after-dash-space.yaml", OWNED.replace("  - apiVersion: apps/v1", "  - \tapiVersion: apps/v1")),
        ("tab-after-explicit-key.yaml", OWNED.replace("  namespace: shop", "  ?\tnamespace\n  : shop")),
        // A block scalar finding its indentation refuses a tab among the blanks.
        ("block-scalar-tab-before-text.yaml", OWNED.replace("    name: web\n", "    name: |\n      \tweb\n")),
        ("tab-before-comment-line.yaml", OWNED.replace("  namespace: shop\n", "  namespace: shop\n\t# a comment\n")),
        ("tab-continuing-plain-scalar.yaml", OWNED.replace("    name: web\n", "    name: web\n\tserver\n")),
        // A plain scalar that ends a line reads the next line's blanks, in a flow collection too.
        ("flow-tab-after-plain-scalar.yaml", OWNED.replace("  namespace: shop\n", "  labels: {app: web\n\t}\n")),
        ("flow-tab-left-of-plain-continuation.yaml", OWNED.replace("  namespace: shop\n", "  labels: {app: web\n\tserver}\n")),
        ("tab-only-line.yaml", OWNED.replace("  namespace: shop\n", "  namespace: shop\n\t\n")),
        ("document-after-end-without-start.yaml", format!("{OWNED}...\n{OWNED}")),
        ("document-marker-in-quoted.yaml", OWNED.replace("name: web", "name: \"web\n---\n\"")),
        ("directive-without-start.yaml", format!("%YAML 1.1\n{OWNED}")),
        ("bom-inside-document.yaml", OWNED.replace("kind: ConfigMap\n", "kind: ConfigMap\n\u{feff}")),
        ("truncated.json", json_of(OWNED, true).trim_end().trim_end_matches('}').into()),
    ];
    let mut bytes: Vec<(&str, Vec<u8>)> = cases
        .into_iter()
        .map(|(name, text)| (name, text.into_bytes()))
        .collect();
    let mut not_utf8 = OWNED.as_bytes().to_vec();
    not_utf8.extend(b"data:\n  x: \xff\xfe\n");
    bytes.push(("not-utf8.yaml", not_utf8));
    bytes
}

/// Several JSON objects one after another, as `kubectl` reads them (and YAML does not).
fn json_streams() -> Vec<(&'static str, Vec<u8>)> {
    let other = OWNED.replace("name: cm", "name: cm2");
    vec![
        (
            "stream-adjacent.json",
            format!("{}{}", json_of(OWNED, false), json_of(&other, false)).into_bytes(),
        ),
        (
            "stream-lines.json",
            format!("{}\n{}\n", json_of(OWNED, false), json_of(&other, true)).into_bytes(),
        ),
    ]
}

fn yaml_value(text: &str) -> serde_json::Value {
    serde_yaml::from_str(text).expect("the base case is YAML")
}

fn json_of(text: &str, pretty: bool) -> String {
    let value = yaml_value(text);
    match pretty {
        true => serde_json::to_string_pretty(&value),
        false => serde_json::to_string(&value),
    }
    .expect("JSON")
}
