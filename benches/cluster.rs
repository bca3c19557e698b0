//! `ownerlint cluster` on a generated cluster of 100,000 objects in 2,000 namespaces
//! (`OWNERLINT_BENCH_NAMESPACES`, of 50 objects each: `support/cluster.rs`), served by the
//! tests' HTTPS API server (`tests/it/api_server.rs`) as the recorded 1.36 server answers: its
//! discovery, every listable resource (empty where nothing is generated), pages of 500 through
//! continue tokens, metadata only when asked for it, and each object by a GET. Beside it, the
//! API server's floor (every list page of metadata only, read once, one after the other, by the
//! same client), the same cluster read as users dump it, `kubectl get … -A -o yaml | ownerlint
//! -` (kubectl from PATH, against the same server), and the dump alone. Every 100th namespace
//! has a ConfigMap whose owner's uid is stale (20 `owner-uid-mismatch` findings, each confirmed
//! by GETs).
//!
//! The floor and `ownerlint cluster` are measured twice a round: against that server, which
//! answers in a fraction of a millisecond, and against a second one that sends the same bytes
//! after the time a real 1.36 API server spends on its side, as a model: 36.7 µs for each object
//! an answer holds (`support/cluster.rs`, `REAL_SERVER_PER_OBJECT`: a real server's floor of
//! 30,480 objects took 1.12 s), waited, not worked, so that it takes none of this machine's
//! cores. The findings from both are the same, byte for byte.
//!
//! For each way: wall time, requests sent, peak RSS (GNU time's `%M`, when `/usr/bin/time` is
//! installed) and the findings; the fastest of `OWNERLINT_BENCH_ROUNDS` rounds (default 3), in
//! which each way runs once. `cargo bench --bench cluster`; with `OWNERLINT_BENCH_SERVE=1` it
//! only serves the cluster, for ten minutes, and prints the kubeconfig that reads it.

#[allow(dead_code)]
#[path = "../tests/it/api_server.rs"]
mod api_server;
#[path = "support/cluster.rs"]
mod generated;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::json;

use api_server::{ApiServer, ServerCost, TOKEN};

/// One run: wall time, peak RSS in KiB (GNU time), and what it printed on standard error.
struct Measured {
    seconds: f64,
    rss_kib: Option<u64>,
    stderr: String,
}

fn timed(mut command: Command) -> Measured {
    let started = Instant::now();
    let out = command.output().expect("it runs");
    let seconds = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let rss_kib = stderr
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .next_back();
    Measured {
        seconds,
        rss_kib,
        stderr,
    }
}

fn with_time(program: &str) -> Command {
    if Path::new("/usr/bin/time").exists() {
        let mut command = Command::new("/usr/bin/time");
        command.args(["-f", "%M", program]);
        command
    } else {
        Command::new(program)
    }
}

fn main() {
    let rounds: usize = std::env::var("OWNERLINT_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let namespaces: usize = std::env::var("OWNERLINT_BENCH_NAMESPACES")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2_000);
    let generated::Served {
        answers,
        lists,
        whole_bytes,
        metadata_bytes,
        objects: counts,
        listed,
    } = generated::serve(namespaces);
    // The same answers twice: at no cost, and after the time a real 1.36 server spends on
    // each (`generated::REAL_SERVER_PER_OBJECT`, a model).
    let modelled = ApiServer::serving_at_cost(
        answers.clone(),
        Box::new(|_, _| None),
        Some(ServerCost {
            per_object: generated::REAL_SERVER_PER_OBJECT,
            objects: counts,
        }),
    );
    let server = ApiServer::serving(answers, Box::new(|_, _| None));
    let dir = std::env::temp_dir().join(format!("ownerlint-bench-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let kubeconfig = server.kubeconfig(&dir, json!({ "token": TOKEN }));
    let modelled_dir = dir.join("modelled");
    std::fs::create_dir_all(&modelled_dir).expect("a folder");
    let modelled_kubeconfig = modelled.kubeconfig(&modelled_dir, json!({ "token": TOKEN }));
    // To read the generated cluster by hand (profiling, a look at the output): serve it for
    // ten minutes.
    if std::env::var_os("OWNERLINT_BENCH_SERVE").is_some() {
        println!(
            "serving for 10 minutes: KUBECONFIG={}",
            kubeconfig.display()
        );
        std::thread::sleep(std::time::Duration::from_secs(600));
        return;
    }
    let binary = env!("CARGO_BIN_EXE_ownerlint");
    let kubectl = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("kubectl"))
            .find(|p| p.is_file())
    });
    let dump = dir.join("dump.yaml");
    let resources =
        "namespaces,deployments,replicasets,pods,configmaps,secrets,services,serviceaccounts";
    let mut best: HashMap<&str, (Measured, usize)> = HashMap::new();
    let mut keep = |name: &'static str, measured: Measured, requests: usize| {
        let better = best
            .get(name)
            .is_none_or(|(b, _)| measured.seconds < b.seconds);
        let rss = measured
            .rss_kib
            .max(best.get(name).and_then(|(b, _)| b.rss_kib));
        if better {
            best.insert(
                name,
                (
                    Measured {
                        rss_kib: rss,
                        ..measured
                    },
                    requests,
                ),
            );
        } else if let Some((b, _)) = best.get_mut(name) {
            b.rss_kib = rss;
        }
    };
    let objects = namespaces * 50;
    let mut floor: Option<(f64, usize)> = None;
    let mut modelled_floor: Option<(f64, usize)> = None;
    let lint_cluster = |kubeconfig: &Path, findings: &Path| {
        let mut command = with_time(binary);
        command
            .args([
                "cluster",
                "--no-config",
                "--format",
                "short",
                "--kubeconfig",
            ])
            .arg(kubeconfig)
            .stdout(std::fs::File::create(findings).expect("a file"));
        let measured = timed(command);
        let counted = [
            format!("{objects} objects"),
            format!("{} objects", thousands(objects)),
        ];
        assert!(
            counted.iter().any(|c| measured.stderr.contains(c.as_str())),
            "{}",
            measured.stderr
        );
        measured
    };
    for _ in 0..rounds {
        let (took, pages) = generated::floor(&kubeconfig, &lists);
        if floor.is_none_or(|(best, _)| took.as_secs_f64() < best) {
            floor = Some((took.as_secs_f64(), pages));
        }
        let before = server.asked().len();
        let measured = lint_cluster(&kubeconfig, &dir.join("findings.txt"));
        keep("ownerlint cluster", measured, server.asked().len() - before);
        // Against the modelled server, in the same round.
        let (took, pages) = generated::floor(&modelled_kubeconfig, &lists);
        if modelled_floor.is_none_or(|(best, _)| took.as_secs_f64() < best) {
            modelled_floor = Some((took.as_secs_f64(), pages));
        }
        let before = modelled.asked().len();
        let measured = lint_cluster(&modelled_kubeconfig, &dir.join("findings-modelled.txt"));
        keep(
            "ownerlint cluster (modelled server)",
            measured,
            modelled.asked().len() - before,
        );
        assert_eq!(
            std::fs::read(dir.join("findings.txt")).expect("findings"),
            std::fs::read(dir.join("findings-modelled.txt")).expect("findings"),
            "the same findings from both servers"
        );
        let Some(kubectl) = &kubectl else { continue };
        let before = server.asked().len();
        let mut command = with_time(kubectl.to_str().expect("UTF-8"));
        command
            .args(["get", resources, "-A", "-o", "yaml", "--kubeconfig"])
            .arg(&kubeconfig)
            .arg("--cache-dir")
            .arg(dir.join("kubectl-cache"))
            .stdout(std::fs::File::create(&dump).expect("the dump"));
        let measured = timed(command);
        assert!(
            std::fs::metadata(&dump).is_ok_and(|m| m.len() > 0),
            "kubectl read nothing: {}",
            measured.stderr
        );
        keep(
            "kubectl get -A -o yaml",
            measured,
            server.asked().len() - before,
        );
        let mut command = with_time(binary);
        command
            .args(["--no-config", "--format", "short", "--complete", "-"])
            .stdin(std::fs::File::open(&dump).expect("the dump"))
            .stdout(Stdio::null());
        keep("ownerlint - (of that dump)", timed(command), 0);
    }
    let findings = |stderr: &str| {
        stderr
            .lines()
            .find(|l| l.starts_with("ownerlint: ") && l.contains(" objects "))
            .unwrap_or("")
            .to_string()
    };
    println!(
        "Served: {:.1} MB of whole lists, {:.1} MB of the same as metadata only ({listed} objects listed).\n",
        whole_bytes as f64 / 1e6,
        metadata_bytes as f64 / 1e6
    );
    println!("The in-process server, at no cost:\n");
    println!("| way | wall s | requests | peak RSS MB | summary |");
    println!("|---|---:|---:|---:|---|");
    if let Some((seconds, pages)) = floor {
        println!(
            "| the API server's floor (each page of metadata, one after the other) | {seconds:.2} | {pages} | — | — |"
        );
    }
    for name in [
        "ownerlint cluster",
        "kubectl get -A -o yaml",
        "ownerlint - (of that dump)",
    ] {
        let Some((m, requests)) = best.get(name) else {
            continue;
        };
        println!(
            "| {name} | {:.2} | {} | {} | {} |",
            m.seconds,
            if *requests > 0 {
                requests.to_string()
            } else {
                "—".into()
            },
            m.rss_kib
                .map_or("—".into(), |k| format!("{:.0}", k as f64 / 1024.0)),
            findings(&m.stderr)
        );
    }
    if let (Some((floor, _)), Some((m, _))) = (floor, best.get("ownerlint cluster")) {
        println!(
            "\n`ownerlint cluster` took {:.2}× the API server's floor.",
            m.seconds / floor
        );
    }
    println!(
        "\nThe same answers after the time a real 1.36 server spends on each ({:.1} µs an object served, a model):\n",
        generated::REAL_SERVER_PER_OBJECT.as_nanos() as f64 / 1e3
    );
    println!("| way | wall s | requests | peak RSS MB | summary |");
    println!("|---|---:|---:|---:|---|");
    if let Some((seconds, pages)) = modelled_floor {
        println!(
            "| the API server's floor (each page of metadata, one after the other) | {seconds:.2} | {pages} | — | — |"
        );
    }
    if let Some((m, requests)) = best.get("ownerlint cluster (modelled server)") {
        println!(
            "| ownerlint cluster | {:.2} | {requests} | {} | {} |",
            m.seconds,
            m.rss_kib
                .map_or("—".into(), |k| format!("{:.0}", k as f64 / 1024.0)),
            findings(&m.stderr)
        );
        if let Some((floor, _)) = modelled_floor {
            println!(
                "\n`ownerlint cluster` took {:.2}× the modelled server's floor.",
                m.seconds / floor
            );
        }
    }
    match std::fs::metadata(&dump) {
        Ok(meta) => println!(
            "\nThe dump kubectl wrote: {:.1} MB of YAML.",
            meta.len() as f64 / 1e6
        ),
        Err(_) => println!("\n(kubectl is not on PATH: the dump was not measured)"),
    }
    if std::env::var_os("OWNERLINT_BENCH_KEEP").is_some() {
        println!("\nkept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// 100000 as `100,000`, as the summary line writes it.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}
