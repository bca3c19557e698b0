//! End-to-end throughput on generated cluster dumps, all measured in one run: for each input
//! (a `---` stream, the same objects as one `kind: List`, and as `kubectl get -o json`), the
//! time to merely read the file, `ownerlint --format short` on it (wall time and peak RSS, from
//! GNU time when it is installed), and a full parse with serde_yaml into `serde_yaml::Value` (the
//! naive design), with the ratios between them. Each time is the fastest of three rounds (seven
//! under 100 MB), in which every measure runs once. Last, for each shape, how far its
//! throughput varies with the input's size.
//!
//! Then, for the largest size, the stream's first 100,000 documents as 100,000 files in 100
//! directories (a GitOps monorepo shape), against the stream's throughput in the same run.
//!
//! A second table puts the lint time beside what reading alone costs, in the same rounds: the
//! in-process read above; a new process that reads the whole file into memory and exits (as
//! ownerlint is a new process, timed the same way); and, on one core, the least any checking
//! reader does: finding every line and its indentation (YAML), or `serde_json` checking the
//! text without building anything (JSON).
//!
//! Last, the shapes whose cost once grew with the square of their size, each at `n` and `4n`
//! objects (`n` from `OWNERLINT_BENCH_SCALE`, default 10,000) beside a shape known to be
//! linear, in the same rounds: how much the time per object grows from `n` to `4n`, and that
//! growth over the linear shape's (1.0: as linear as it). Thousands of ReplicaSets in one
//! namespace; as many Pods owned by them; as many Pods without an owner that share an `app`
//! label with every ReplicaSet (each one tested for adoption); all beside ConfigMaps owned by
//! ConfigMaps. And a `kind: List` of objects with broken owners as JSON on one line (`jq -c`),
//! beside the same List with one item per line.
//!
//! `cargo bench --bench throughput`; sizes in MB from `OWNERLINT_BENCH_MB` (default `30,300`;
//! `0` measures only the shapes above).
//! Inputs are generated into `target/bench-data/` (seeded, so every run measures the same bytes)
//! and are not committed.

#[path = "support/generate.rs"]
mod generate;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn data_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("target/bench-data");
    dir
}

/// The three shapes of one dump of `mb` megabytes, generated once.
fn inputs(mb: usize) -> Vec<(&'static str, PathBuf)> {
    let dir = data_dir();
    let stream = dir.join(format!("dump-{mb}mb.yaml"));
    let list = dir.join(format!("dump-{mb}mb-list.yaml"));
    let json = dir.join(format!("dump-{mb}mb-list.json"));
    if !stream.exists() {
        std::fs::write(&stream, generate::dump(7, mb << 20, false)).expect("write");
    }
    if !list.exists() {
        std::fs::write(&list, generate::dump(7, mb << 20, true)).expect("write");
    }
    if !json.exists() {
        let text = std::fs::read_to_string(&list).expect("list");
        let value: serde_json::Value =
            serde_yaml::from_str(&text).expect("the generated list is YAML");
        std::fs::write(&json, serde_json::to_string_pretty(&value).expect("JSON")).expect("write");
    }
    vec![("stream", stream), ("list", list), ("json", json)]
}

/// The first `count` documents of the stream `path` as one file each, in directories of 1,000.
fn many_files(path: &Path, count: usize) -> PathBuf {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("dump");
    let dir = data_dir().join(format!("{stem}-files-{count}"));
    if dir.join("done").exists() {
        return dir;
    }
    let text = std::fs::read_to_string(path).expect("stream");
    let mut written = 0;
    for document in text.split("\n---\n").take(count) {
        let sub = dir.join(format!("d{:03}", written / 1000));
        if written % 1000 == 0 {
            std::fs::create_dir_all(&sub).expect("directory");
        }
        let body = document.trim_start_matches("---\n");
        std::fs::write(
            sub.join(format!("o{written}.yaml")),
            format!("---\n{body}\n"),
        )
        .expect("write");
        written += 1;
    }
    std::fs::write(dir.join("done"), written.to_string()).expect("write");
    dir
}

/// Total size of the YAML files under `dir`, and the time to read them all.
fn read_tree(dir: &Path) -> (f64, f64) {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    let mut size = 0;
    let time = seconds(|| {
        for file in &files {
            size += std::fs::read(file).expect("read").len();
        }
    });
    (size as f64, time)
}

fn seconds(f: impl FnOnce()) -> f64 {
    let started = Instant::now();
    f();
    started.elapsed().as_secs_f64()
}

/// Rounds of measurement for an input of `mb` megabytes. In each round every measure runs
/// once, one after the other, so the slow and fast spells of this kind of machine (runs vary by
/// up to 40%) fall on all of them alike; each time is the fastest of its rounds, and peak
/// memory the highest. A small input's run is short enough for one slow spell to cover all of
/// a few rounds, so it gets more.
fn rounds(mb: usize) -> usize {
    if mb < 100 { 7 } else { 3 }
}

/// The fastest time and highest peak memory of several measurements.
#[derive(Clone, Copy)]
struct Best {
    time: f64,
    rss: Option<u64>,
}

impl Best {
    fn new() -> Best {
        Best {
            time: f64::INFINITY,
            rss: None,
        }
    }

    fn add(&mut self, time: f64, rss: Option<u64>) {
        self.time = self.time.min(time);
        self.rss = self.rss.max(rss);
    }
}

/// Wall time, peak RSS (KB) and object count of one run of ownerlint on `path`.
fn ownerlint(path: &Path) -> (f64, Option<u64>, usize) {
    let binary = env!("CARGO_BIN_EXE_ownerlint");
    let timed = Path::new("/usr/bin/time").exists();
    let mut command = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M", binary]);
        c
    } else {
        Command::new(binary)
    };
    command.args(["--format", "short", "--no-config"]).arg(path);
    let started = Instant::now();
    let out = command.output().expect("ownerlint runs");
    let elapsed = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // "ownerlint: 1234 objects in 1 file: …"
    let objects = stderr
        .lines()
        .find_map(|l| l.strip_prefix("ownerlint: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let rss = timed
        .then(|| {
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .and_then(|l| l.trim().parse().ok())
        })
        .flatten();
    (elapsed, rss, objects)
}

/// Print one row of the table: `size` in bytes, times in seconds, the lint run's wall time,
/// peak RSS (KB) and object count, and how many times slower serde_yaml was. Returns the MiB.
fn row(
    shape: &str,
    size: f64,
    read: f64,
    (lint, rss, objects): (f64, Option<u64>, usize),
    yaml_ratio: Option<f64>,
) -> f64 {
    let mib = size / (1 << 20) as f64;
    let rss_mb = rss.map(|kb| kb as f64 / 1024.0);
    println!(
        "{shape:<8} {mib:>8.1} {:>9.0} {:>10.1} {:>10.0} {:>12} {:>10} {:>10.2} {:>12}",
        mib / read,
        mib / lint,
        objects as f64 / lint,
        rss_mb.map_or("n/a".into(), |r| format!("{r:.0}")),
        rss_mb.map_or("n/a".into(), |r| format!("{:.2}", r / mib)),
        lint / read,
        yaml_ratio.map_or("n/a".into(), |r| format!("{r:.1}")),
    );
    mib
}

fn serde_yaml_parse(text: &str) -> usize {
    use serde::Deserialize;
    let mut documents = 0;
    for document in serde_yaml::Deserializer::from_str(text) {
        if serde_yaml::Value::deserialize(document).is_ok() {
            documents += 1;
        }
    }
    documents
}

/// Set to a path, this bench binary only reads that file into memory and exits: the read of
/// a new process.
const READ_ONLY: &str = "OWNERLINT_BENCH_READ_ONLY";

/// Wall time of a new process that reads the whole file at `path` into memory.
fn read_in_new_process(path: &Path) -> f64 {
    let this = std::env::current_exe().expect("the bench binary");
    let mut command = Command::new(this);
    command.env(READ_ONLY, path);
    let started = Instant::now();
    let status = command.status().expect("the bench binary runs");
    let elapsed = started.elapsed().as_secs_f64();
    assert!(status.success(), "reading {} failed", path.display());
    elapsed
}

/// Find every line of `text` and its indentation: the least a reader that checks each line
/// does. Returns the number of lines.
fn walk_lines(text: &[u8]) -> usize {
    let (mut lines, mut indents, mut start) = (0, 0, 0);
    while start < text.len() {
        let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i + 1);
        indents += text[start..end].iter().take_while(|&&b| b == b' ').count();
        lines += 1;
        start = end;
    }
    std::hint::black_box(indents);
    lines
}

/// `serde_json` checking `text` without building anything: the least a reader that checks
/// JSON with it does.
fn check_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// One row of the second table: the times, in seconds, of what reading alone costs and of
/// ownerlint on one input.
struct Floors {
    shape: &'static str,
    mib: f64,
    read: f64,
    read_new_process: f64,
    least_check: f64,
    lint: f64,
}

fn print_floors(rows: &[Floors]) {
    println!();
    println!(
        "{:<8} {:>8} {:>9} {:>12} {:>12} {:>9} {:>10} {:>13} {:>12}",
        "input",
        "MB",
        "read s",
        "new proc. s",
        "least chk s",
        "lint s",
        "lint/read",
        "lint/new proc",
        "least/new p."
    );
    for f in rows {
        println!(
            "{:<8} {:>8.1} {:>9.3} {:>12.3} {:>12.3} {:>9.3} {:>10.2} {:>13.2} {:>12.2}",
            f.shape,
            f.mib,
            f.read,
            f.read_new_process,
            f.least_check,
            f.lint,
            f.lint / f.read,
            f.lint / f.read_new_process,
            f.least_check / f.read_new_process,
        );
    }
    println!(
        "least chk: one core, every line and its indentation found (YAML) or serde_json's \
         check (JSON)"
    );
}

fn main() {
    if let Some(path) = std::env::var_os(READ_ONLY) {
        let bytes = std::fs::read(path).expect("read");
        std::hint::black_box(&bytes);
        return;
    }
    let sizes: Vec<usize> = std::env::var("OWNERLINT_BENCH_MB")
        .unwrap_or_else(|_| "30,300".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .filter(|&mb| mb > 0)
        .collect();
    if sizes.is_empty() {
        scaling();
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("cores: {cores}");
    println!(
        "{:<8} {:>8} {:>9} {:>10} {:>10} {:>12} {:>10} {:>10} {:>12}",
        "input",
        "MB",
        "read MB/s",
        "lint MB/s",
        "objects/s",
        "peak RSS MB",
        "RSS/size",
        "lint/read",
        "yaml/lint"
    );
    let largest = sizes.iter().copied().max();
    // Lint MB/s of each shape at each size, for how linear the cost is.
    let mut throughputs: Vec<(&str, usize, f64)> = Vec::new();
    let mut floors = Vec::new();
    for &mb in &sizes {
        let mut stream_lint_mbs = None;
        let mut files = None;
        for (shape, path) in inputs(mb) {
            let size = std::fs::metadata(&path).expect("input").len() as f64;
            // Warm the page cache; then, in each round, a plain read, ownerlint, and serde_yaml
            // (which reads JSON too: JSON is YAML).
            let _ = std::fs::read(&path);
            let (mut read, mut lint, mut yaml) = (Best::new(), Best::new(), Best::new());
            let (mut read_new_process, mut least_check) = (Best::new(), Best::new());
            let mut objects = 0;
            for _ in 0..rounds(mb) {
                let mut text = Vec::new();
                // After the first round this reads into memory that the last round's
                // serde_yaml parse freed and this process kept, which is faster than reading
                // into new memory: the read of a new process is measured beside it.
                read.add(seconds(|| text = std::fs::read(&path).expect("read")), None);
                read_new_process.add(read_in_new_process(&path), None);
                let (time, rss, count) = ownerlint(&path);
                lint.add(time, rss);
                objects = count;
                let text = String::from_utf8(text).expect("UTF-8");
                let least = match shape {
                    "json" => seconds(|| assert!(check_json(&text), "the JSON is valid")),
                    _ => seconds(|| assert!(walk_lines(text.as_bytes()) > 0)),
                };
                least_check.add(least, None);
                yaml.add(
                    seconds(|| {
                        serde_yaml_parse(&text);
                    }),
                    None,
                );
            }
            let (read, lint, rss, yaml) = (read.time, lint.time, lint.rss, yaml.time);
            let mib = row(shape, size, read, (lint, rss, objects), Some(yaml / lint));
            throughputs.push((shape, mb, mib / lint));
            floors.push(Floors {
                shape,
                mib,
                read,
                read_new_process: read_new_process.time,
                least_check: least_check.time,
                lint,
            });
            if shape == "stream" {
                stream_lint_mbs = Some(mib / lint);
                if Some(mb) == largest {
                    files = Some(many_files(&path, 100_000));
                }
            }
        }
        // The monorepo shape: many small files, against the single stream.
        let Some(dir) = files.take() else {
            continue;
        };
        let _ = read_tree(&dir);
        let (mut read, mut lint) = (Best::new(), Best::new());
        let (mut size, mut objects) = (0.0, 0);
        for _ in 0..rounds(mb) {
            let (bytes, time) = read_tree(&dir);
            size = bytes;
            read.add(time, None);
            let (time, rss, count) = ownerlint(&dir);
            lint.add(time, rss);
            objects = count;
        }
        let (read, lint, rss) = (read.time, lint.time, lint.rss);
        let mib = row("files", size, read, (lint, rss, objects), None);
        if let Some(stream) = stream_lint_mbs {
            println!(
                "one file per document: {:.2}× the single stream's lint throughput",
                (mib / lint) / stream
            );
        }
    }
    print_floors(&floors);
    if sizes.len() > 1 {
        for shape in ["stream", "list", "json"] {
            let of_shape: Vec<(usize, f64)> = throughputs
                .iter()
                .filter(|(s, _, _)| *s == shape)
                .map(|&(_, mb, mbs)| (mb, mbs))
                .collect();
            let slowest = of_shape.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let fastest = of_shape.iter().map(|p| p.1).fold(0.0, f64::max);
            let each: Vec<String> = of_shape
                .iter()
                .map(|(mb, mbs)| format!("{mbs:.1} at {mb} MB"))
                .collect();
            println!(
                "{shape}: {}; the slowest is {:.0}% of the fastest",
                each.join(", "),
                100.0 * slowest / fastest
            );
        }
    }
    scaling();
}

/// One object in namespace `shop`: `kind` named `name` with `labels` (`key: value` lines),
/// `extra` lines after its metadata, and `owner` (kind, name, uid) as its controller.
fn object(
    kind: &str,
    api: &str,
    name: &str,
    labels: &[(&str, String)],
    extra: &str,
    owner: Option<(&str, &str, String)>,
) -> String {
    let mut text = format!(
        "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: shop\n  uid: uid-{name}\n  labels:\n"
    );
    for (key, value) in labels {
        text.push_str(&format!("    {key}: {value}\n"));
    }
    if let Some((kind, owner, uid)) = owner {
        let api = if kind == "ConfigMap" { "v1" } else { "apps/v1" };
        text.push_str(&format!("  ownerReferences:\n  - apiVersion: {api}\n    kind: {kind}\n    name: {owner}\n    uid: {uid}\n    controller: true\n"));
    }
    text.push_str(extra);
    text
}

/// A ReplicaSet selecting `app: web` and its own `pod-template-hash`, as a Deployment makes it.
fn replica_set(i: usize) -> String {
    let labels = [
        ("app", "web".to_string()),
        ("pod-template-hash", format!("h{i}")),
    ];
    let extra = format!(
        "spec:\n  selector:\n    matchLabels:\n      app: web\n      pod-template-hash: h{i}\n  template:\n    metadata:\n      labels:\n        app: web\n        pod-template-hash: h{i}\n"
    );
    object(
        "ReplicaSet",
        "apps/v1",
        &format!("web-{i}"),
        &labels,
        &extra,
        None,
    )
}

fn pod(i: usize, owned: bool) -> String {
    let labels = [
        ("app", "web".to_string()),
        ("pod-template-hash", format!("h{i}")),
    ];
    let owner = owned.then(|| ("ReplicaSet", format!("web-{i}"), format!("uid-web-{i}")));
    let owner = owner.as_ref().map(|(k, n, u)| (*k, n.as_str(), u.clone()));
    object("Pod", "v1", &format!("web-{i}-x"), &labels, "", owner)
}

fn config_map(i: usize, owned: bool) -> String {
    let labels = [("app", "web".to_string()), ("part", format!("p{i}"))];
    let (name, owner) = match owned {
        true => (
            format!("cm-{i}-x"),
            Some(("ConfigMap", format!("cm-{i}"), format!("uid-cm-{i}"))),
        ),
        false => (format!("cm-{i}"), None),
    };
    let owner = owner.as_ref().map(|(k, n, u)| (*k, n.as_str(), u.clone()));
    object(
        "ConfigMap",
        "v1",
        &name,
        &labels,
        "data:\n  key: value\n",
        owner,
    )
}

/// `pairs` pairs of objects of one shape, as a `---` stream.
fn stream_of(shape: &str, pairs: usize) -> String {
    let mut docs = Vec::with_capacity(2 * pairs);
    for i in 0..pairs {
        match shape {
            "configmaps" => {
                docs.push(config_map(i, false));
                docs.push(config_map(i, true));
            }
            "replicasets" => {
                docs.push(replica_set(2 * i));
                docs.push(replica_set(2 * i + 1));
            }
            "pods+replicasets" => {
                docs.push(replica_set(i));
                docs.push(pod(i, true));
            }
            _ => {
                docs.push(replica_set(i));
                docs.push(pod(i, false));
            }
        }
    }
    docs.join("---\n")
}

/// `count` ConfigMaps whose owners are missing or name another uid, as one `kind: List` in
/// JSON: on one line, or one item per line.
fn broken_owners_list(count: usize, one_line: bool) -> String {
    let items: Vec<String> = (0..count)
        .map(|i| {
            let owner = if i % 2 == 0 { format!("gone-{i}") } else { format!("cm-{}", i - 1) };
            format!(
                r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{i}","namespace":"shop","uid":"uid-cm-{i}","ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"{owner}","uid":"not-the-uid-{i}","controller":true}}]}},"data":{{"key":"value"}}}}"#
            )
        })
        .collect();
    let separator = if one_line { "," } else { ",\n" };
    let open = if one_line { "" } else { "\n" };
    format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{open}{}{open}]}}"#,
        items.join(separator)
    ) + "\n"
}

/// The shapes whose cost once grew with the square of their size, at `n` and `4n` objects,
/// each beside a linear shape; see the module's documentation.
fn scaling() {
    let n: usize = std::env::var("OWNERLINT_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let dir = data_dir();
    // (shape, the linear shape it is measured against)
    let shapes = [
        ("configmaps", "configmaps"),
        ("replicasets", "configmaps"),
        ("pods+replicasets", "configmaps"),
        ("orphan pods+replicasets", "configmaps"),
        ("list, one item per line", "list, one item per line"),
        ("list on one line", "list, one item per line"),
    ];
    let file = |shape: &str, objects: usize| {
        let slug: String = shape
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let json = shape.starts_with("list");
        let path = dir.join(format!(
            "scaling-{slug}-{objects}.{}",
            if json { "json" } else { "yaml" }
        ));
        if !path.exists() {
            let text = match shape {
                "list on one line" => broken_owners_list(objects, true),
                "list, one item per line" => broken_owners_list(objects, false),
                _ => stream_of(shape, objects / 2),
            };
            std::fs::write(&path, text).expect("write");
        }
        path
    };
    let sizes = [n, 4 * n];
    // Seconds per object of each shape at each size, the fastest of three rounds.
    let mut best = vec![[f64::INFINITY; 2]; shapes.len()];
    for _ in 0..3 {
        for (i, (shape, _)) in shapes.iter().enumerate() {
            for (j, &objects) in sizes.iter().enumerate() {
                let (time, _, counted) = ownerlint(&file(shape, objects));
                assert_eq!(counted, objects, "{shape}: every object is read");
                best[i][j] = best[i][j].min(time / objects as f64);
            }
        }
    }
    println!(
        "\nshape                      objects   µs/object  objects   µs/object  growth  growth / linear shape's"
    );
    let growth = |i: usize| best[i][1] / best[i][0];
    for (i, (shape, linear)) in shapes.iter().enumerate() {
        let base = shapes.iter().position(|(s, _)| s == linear).unwrap_or(i);
        println!(
            "{shape:<26} {:>7} {:>10.2} {:>8} {:>10.2} {:>7.2} {:>8.2} ({linear})",
            sizes[0],
            best[i][0] * 1e6,
            sizes[1],
            best[i][1] * 1e6,
            growth(i),
            growth(i) / growth(base),
        );
    }
}
