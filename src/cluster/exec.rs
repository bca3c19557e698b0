//! A kubeconfig's exec credential plugin (`users[].user.exec`, as the EKS, GKE and AKS helpers
//! are), run by ownerlint itself rather than by kube: under `--request-timeout`, stopped with
//! the processes it started when it outlasts it, without a terminal, and with what it prints
//! kept out of every message. A message names the plugin by its command only: its arguments
//! and environment may hold secrets, and so may its output.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use kube::config::ExecConfig;
use serde_json::{Value, json};

use super::redact::redact;

/// The most of a plugin's standard output that is read: an ExecCredential, with a client
/// certificate and key, is a few kilobytes.
const STDOUT_LIMIT: usize = 1 << 20;
/// The most of its standard error that is kept (its first line is shown).
const STDERR_LIMIT: usize = 64 << 10;
/// The longest line of its standard error that is shown.
const SHOWN_LINE: usize = 200;

/// What a plugin gave.
pub enum Credential {
    /// A token, and when it expires (`None`: it does not say).
    Token {
        token: String,
        expires: Option<SystemTime>,
    },
    /// PEM, as the plugin printed them.
    Certificate { certificate: String, key: String },
}

/// How a plugin is named in a message: its command, as the kubeconfig writes it.
pub fn name(exec: &ExecConfig) -> String {
    exec.command.clone().unwrap_or_default()
}

/// Run the plugin of the kubeconfig user `user` once, and read the credential it prints.
/// `cluster`: what `provideClusterInfo` gives it. `timeout`: `None` for no limit.
pub fn run(
    exec: &ExecConfig,
    user: &str,
    cluster: Option<Value>,
    timeout: Option<Duration>,
) -> Result<Credential, String> {
    let Some(command) = exec.command.as_deref().filter(|c| !c.is_empty()) else {
        return Err(format!(
            "the kubeconfig's users[{user}].user.exec names no command: set its `command`"
        ));
    };
    let plugin = format!("exec plugin `{command}` of user `{user}`");
    let mut spec = json!({ "interactive": false });
    if let Some(cluster) = cluster {
        spec["cluster"] = cluster;
    }
    let info = json!({
        "apiVersion": exec.api_version.as_deref().unwrap_or("client.authentication.k8s.io/v1"),
        "kind": "ExecCredential",
        "spec": spec,
    });
    let mut process = Command::new(command);
    process.args(exec.args.iter().flatten());
    for pair in exec.env.iter().flatten() {
        if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
            process.env(name, value);
        }
    }
    process.env("KUBERNETES_EXEC_INFO", info.to_string());
    for name in exec.drop_env.iter().flatten() {
        process.env_remove(name);
    }
    let output = run_bounded(&mut process, timeout).map_err(|failure| match failure {
        Failure::Start(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let hint = exec
                .install_hint
                .as_deref()
                .and_then(|hint| hint.lines().find(|l| !l.trim().is_empty()))
                .map(|hint| format!(" ({})", shown(hint)))
                .unwrap_or_default();
            format!(
                "{plugin} was not found: install it, or correct users[{user}].user.exec.command{hint}"
            )
        }
        Failure::Start(err) => format!("{plugin} cannot be run: {err}"),
        Failure::TimedOut(limit) => format!(
            "{plugin} had not finished after {} s (--request-timeout), and was stopped: a plugin that waits for a login or for input cannot get one here; log in with kubectl first, or raise --request-timeout",
            limit.as_secs_f64()
        ),
    })?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        let first = said.lines().map(str::trim).find(|l| !l.is_empty());
        let status = match output.status.code() {
            Some(code) => format!("exit status {code}"),
            None => "stopped by a signal".to_string(),
        };
        return Err(match first {
            Some(line) => format!("{plugin} failed ({status}): {}", shown(line)),
            None => format!("{plugin} failed ({status}), and said nothing on standard error"),
        });
    }
    if output.stdout_cut {
        return Err(format!(
            "{plugin} printed more than {} MiB, which is no ExecCredential",
            STDOUT_LIMIT >> 20
        ));
    }
    // Its output is never quoted: a plugin that prints a bare token would see it shown.
    let credential: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "{plugin} printed what is not an ExecCredential in JSON (line {} column {}); what it printed is not shown, since it may be a credential",
            e.line(),
            e.column()
        )
    })?;
    if credential.get("kind").and_then(Value::as_str) != Some("ExecCredential") {
        return Err(format!(
            "{plugin} printed JSON that is not an ExecCredential (its `kind` is not `ExecCredential`)"
        ));
    }
    let status = &credential["status"];
    let text = |key: &str| status.get(key).and_then(Value::as_str).map(str::to_string);
    match (
        text("token"),
        text("clientCertificateData"),
        text("clientKeyData"),
    ) {
        (_, Some(certificate), Some(key)) => Ok(Credential::Certificate { certificate, key }),
        (Some(token), _, _) => {
            let expires = match text("expirationTimestamp") {
                None => None,
                Some(at) => Some(rfc3339(&at).ok_or_else(|| {
                    format!(
                        "{plugin} printed an ExecCredential whose `status.expirationTimestamp` is not an RFC 3339 time"
                    )
                })?),
            };
            Ok(Credential::Token { token, expires })
        }
        _ => Err(format!(
            "{plugin} printed an ExecCredential with neither `status.token` nor `status.clientCertificateData` and `status.clientKeyData`"
        )),
    }
}

/// An RFC 3339 time (`2026-01-02T03:04:05Z`, `…05.123+01:00`), as an ExecCredential's
/// `expirationTimestamp` is written.
fn rfc3339(text: &str) -> Option<SystemTime> {
    let number = |part: &str| -> Option<i64> {
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (date, time) = text.split_once(['T', 't'])?;
    let mut date = date.splitn(3, '-');
    let (year, month, day) = (
        number(date.next()?)?,
        number(date.next()?)?,
        number(date.next()?)?,
    );
    let (clock, offset) = match time.strip_suffix(['Z', 'z']) {
        Some(clock) => (clock, 0),
        None => {
            let at = time.rfind(['+', '-'])?;
            let (hours, minutes) = time[at + 1..].split_once(':')?;
            let offset = number(hours)? * 3600 + number(minutes)? * 60;
            (
                &time[..at],
                if &time[at..=at] == "-" {
                    -offset
                } else {
                    offset
                },
            )
        }
    };
    let clock = clock.split('.').next()?;
    let mut clock = clock.splitn(3, ':');
    let (hour, minute, second) = (
        number(clock.next()?)?,
        number(clock.next()?)?,
        number(clock.next()?)?,
    );
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    // Days since 1970-01-01 of a date of the proleptic Gregorian calendar.
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * m + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
    let seconds = u64::try_from(seconds).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(seconds))
}

/// A line a plugin said, fit for a message: without credentials, and short.
fn shown(line: &str) -> String {
    let line = redact(line.trim());
    match line.char_indices().nth(SHOWN_LINE) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

enum Failure {
    Start(std::io::Error),
    TimedOut(Duration),
}

struct Output {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stdout_cut: bool,
    stderr: Vec<u8>,
}

/// Run `command` without standard input to its end, or stop it after `timeout`. Its output is
/// read as it comes (so that a full pipe never stops it), and at most the limits above are
/// kept. On Unix it runs in a process group of its own, and a stop ends the whole group: the
/// processes the plugin started too, which would otherwise keep its output open.
fn run_bounded(command: &mut Command, timeout: Option<Duration>) -> Result<Output, Failure> {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Failure::Start)?;
    let id = child.id();
    // The group's id is the plugin's process id (`process_group(0)`).
    let stop_group = || {
        #[cfg(unix)]
        if let Some(group) = i32::try_from(id)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
    };
    let reader = |pipe: Option<Box<dyn Read + Send>>, limit: usize| {
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(pipe.map(|pipe| drain(pipe, limit)).unwrap_or_default());
        });
        receive
    };
    let stdout = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        STDOUT_LIMIT,
    );
    let stderr = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        STDERR_LIMIT,
    );
    let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
    let timed_out = |child: &mut std::process::Child| {
        stop_group();
        let _ = child.kill();
        let _ = child.wait();
        Failure::TimedOut(timeout.unwrap_or_default())
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(err) => {
                stop_group();
                let _ = child.kill();
                let _ = child.wait();
                return Err(Failure::Start(err));
            }
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            return Err(timed_out(&mut child));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // What still holds the output open once the plugin ended is a process it started, in its
    // group: not waited for past the timeout.
    let collect = |pipe: mpsc::Receiver<(Vec<u8>, bool)>| match deadline {
        Some(deadline) => pipe
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .map_err(|_| {
                stop_group();
                Failure::TimedOut(timeout.unwrap_or_default())
            }),
        None => Ok(pipe.recv().unwrap_or_default()),
    };
    let (stdout, stdout_cut) = collect(stdout)?;
    let (stderr, _) = collect(stderr)?;
    Ok(Output {
        status,
        stdout,
        stdout_cut,
        stderr,
    })
}

/// Everything `pipe` gives, of which the first `limit` bytes are kept; and whether there was
/// more.
fn drain(mut pipe: Box<dyn Read + Send>, limit: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut cut = false;
    let mut buffer = [0u8; 8192];
    loop {
        match pipe.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => {
                let room = limit.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..read.min(room)]);
                cut |= read > room;
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    (kept, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_are_read() {
        let at = |text: &str| {
            rfc3339(text).map(|t| {
                t.duration_since(SystemTime::UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_secs()
            })
        };
        assert_eq!(at("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(at("2000-03-01T00:00:00Z"), Some(951_868_800));
        assert_eq!(at("2026-12-06T07:00:00.123456Z"), Some(1_796_540_400));
        assert_eq!(at("2026-12-06T08:30:00+01:30"), Some(1_796_540_400));
        assert_eq!(at("2026-12-06T05:00:00-02:00"), Some(1_796_540_400));
        assert_eq!(at("2026-13-06T07:00:00Z"), None);
        assert_eq!(at("tomorrow"), None);
    }
}
