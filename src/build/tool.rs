//! The tools builds run: `helm` and `kustomize` (or `kubectl kustomize`) found on `PATH`, each
//! run in a process group of its own that ends with it, and what it printed on standard error
//! as one message.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::running;

/// The program charts are built with: `helm` on `PATH`.
pub fn helm_program() -> Option<PathBuf> {
    on_path(&["helm"])
}

/// The program overlays are built with: `kustomize` on `PATH` (`kustomize build`), else
/// `kubectl` (`kubectl kustomize`).
pub fn kustomize_program() -> Option<PathBuf> {
    on_path(&["kustomize", "kubectl"])
}

/// How an overlay's build is shown, as the program [`kustomize_program`] finds runs it:
/// `kubectl kustomize` when kubectl builds overlays, else `kustomize build` (also when neither
/// is on `PATH`: the build then fails and says so). Looked up once a run: every finding of a
/// build names it.
pub(super) fn kustomize_command() -> &'static str {
    static COMMAND: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    COMMAND.get_or_init(|| match kustomize_program() {
        Some(program) if program.file_stem().is_some_and(|stem| stem == "kubectl") => {
            "kubectl kustomize"
        }
        _ => "kustomize build",
    })
}

/// The first of `names` found on `PATH`.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
    })
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Run a build to its end, or stop it after `timeout` (an error of kind `TimedOut`).
/// Its output is read as it comes, so that a full pipe never stops it; a process it started
/// that keeps the output open after it ends is not waited for past the timeout either. On
/// Unix the tool runs in a process group of its own, which is ended with the tool, however it
/// ends (it finished, failed, timed out, or was stopped): no process it started (`git`, and
/// `git`'s helpers) outlives its build. A build is also stopped as soon as `stop` is set (the
/// editor's text it was built from changed).
pub(super) fn run_tool(
    command: &mut std::process::Command,
    timeout: std::time::Duration,
    stop: Option<&AtomicBool>,
) -> std::io::Result<std::process::Output> {
    use std::io::Read;
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let timed_out = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "{what} after {}, and was stopped",
                describe_duration(timeout)
            ),
        )
    };
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut tool = ToolProcess::spawn(command)?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = send.send(bytes);
        });
        receive
    };
    let stdout = reader(
        tool.child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = reader(
        tool.child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    loop {
        if tool.has_ended()? {
            break;
        }
        if Instant::now() > deadline {
            let _ = tool.end();
            return Err(timed_out("it had not finished"));
        }
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            let _ = tool.end();
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "it was stopped: its files changed meanwhile",
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // The processes the tool left behind end with it (its output is complete).
    let status = tool.end()?;
    let left = || deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1);
    let collect = |pipe: std::sync::mpsc::Receiver<Vec<u8>>| {
        // What still holds the output open left the tool's group.
        pipe.recv_timeout(left())
            .map_err(|_| timed_out("its output was still open"))
    };
    Ok(std::process::Output {
        status,
        stdout: collect(stdout)?,
        stderr: collect(stderr)?,
    })
}

/// A tool's process, in a process group of its own (on Unix), ended with every process of its
/// group when it is dropped: however `run_tool` returns, nothing it started goes on running.
struct ToolProcess {
    child: std::process::Child,
    /// Its process group, while it may hold processes.
    group: Option<running::Group>,
}

impl ToolProcess {
    fn spawn(command: &mut std::process::Command) -> std::io::Result<ToolProcess> {
        if running::is_ending() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "ownerlint was ending",
            ));
        }
        let child = command.spawn()?;
        // The group's id is the tool's process id (`process_group(0)`); registered, it is
        // ended with ownerlint (at once, if ownerlint began to end since the check above).
        let group = cfg!(unix).then(|| running::register_group(child.id()));
        Ok(ToolProcess { child, group })
    }

    /// Whether the tool has exited. On Linux and the BSDs it is left unreaped, so that its
    /// process id, which is its group's, is not another process's when the group is ended.
    fn has_ended(&mut self) -> std::io::Result<bool> {
        #[cfg(any(
            target_os = "linux",
            target_os = "android",
            target_os = "macos",
            target_os = "freebsd",
            target_os = "netbsd"
        ))]
        if let Some(pid) = i32::try_from(self.child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            use rustix::process::{WaitId, WaitIdOptions};
            let exited = rustix::process::waitid(
                WaitId::Pid(pid),
                WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
            )?;
            return Ok(exited.is_some());
        }
        Ok(self.child.try_wait()?.is_some())
    }

    /// End the tool's group and the tool, and reap it: how it ended.
    fn end(&mut self) -> std::io::Result<std::process::ExitStatus> {
        if let Some(group) = self.group.take() {
            running::kill_group(group.id());
        }
        // A tool that has exited is not changed by this (nor, on Unix, is its exit status).
        let _ = self.child.kill();
        self.child.wait()
    }
}

impl Drop for ToolProcess {
    fn drop(&mut self) {
        let _ = self.end();
    }
}

/// "5 minutes", "90 seconds", "1 second".
fn describe_duration(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs();
    let (count, unit) = if seconds >= 60 && seconds.is_multiple_of(60) {
        (seconds / 60, "minute")
    } else {
        (seconds, "second")
    };
    format!("{count} {unit}{}", if count == 1 { "" } else { "s" })
}

/// A tool's standard error as one message: its lines without klog's prefixes, trimmed.
pub(super) fn tool_message(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty())
        // Deprecation notes that a successful build prints too.
        .filter(|line| !line.starts_with("# Warning:") && !line.starts_with("Warning:"))
        .filter(|line| !line.starts_with("Use --debug flag"))
        // helm 4 logs the error once more as `level=ERROR msg=…`.
        .filter(|line| !line.starts_with("level="))
        .collect();
    lines.join("\n")
}

/// The longest a message taken from a tool is, in characters: a template can fail with a
/// message of any length, and a finding is one line of a report or one annotation.
const TOOL_MESSAGE_AT_MOST: usize = 1000;

/// A tool's message on one line (a finding is one line in `short` and `github`, and one entry
/// of `--show-inputs`), cut to [`TOOL_MESSAGE_AT_MOST`] characters.
pub(super) fn one_bounded_line(message: &str) -> String {
    let line = message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let length = line.chars().count();
    if length <= TOOL_MESSAGE_AT_MOST {
        return line;
    }
    let kept: String = line.chars().take(TOOL_MESSAGE_AT_MOST).collect();
    format!(
        "{kept}… ({} more characters)",
        length - TOOL_MESSAGE_AT_MOST
    )
}
