//! Render: the Helm charts and Kustomize overlays among the inputs are built with the tools
//! people deploy them with (`helm template`, `kustomize build` or `kubectl kustomize`), so that
//! what is linted is what a cluster would get. Each build is a stream of its own; [`map`] takes
//! each finding in it back to the file, and where it can the line, that the object came from.

mod consumed;
mod helm;
mod kustomize;
pub mod map;

pub use consumed::Consumed;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::discover::display_path;

/// The tool that builds a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    Helm,
    Kustomize,
}

/// A chart or an overlay to build.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub tool: Tool,
    /// The directory, as given or found by the walk.
    pub dir: PathBuf,
    /// The file that makes it one: `Chart.yaml`, or the kustomization file.
    pub file: PathBuf,
}

/// The names kustomize reads a kustomization from, in the order it looks for them.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

impl Target {
    /// The chart or overlay that `dir` is, if it is one.
    pub fn of_dir(dir: &Path) -> Option<Target> {
        let chart = dir.join("Chart.yaml");
        if chart.is_file() {
            return Some(Target {
                tool: Tool::Helm,
                dir: dir.to_path_buf(),
                file: chart,
            });
        }
        KUSTOMIZATION_FILES
            .iter()
            .map(|name| dir.join(name))
            .find(|file| file.is_file())
            .map(|file| Target {
                tool: Tool::Kustomize,
                dir: dir.to_path_buf(),
                file,
            })
    }

    /// Whether this is a kustomize `Component`, which is built only as part of the overlays
    /// that use it.
    pub fn is_component(&self) -> bool {
        self.tool == Tool::Kustomize && kustomize::is_component(&self.file)
    }

    /// The chart this chart is a subchart of (`PARENT/charts/THIS`), if it is one: a subchart
    /// takes its parent's values and helpers, and is built only through it.
    pub fn parent_chart(&self) -> Option<Target> {
        if self.tool != Tool::Helm {
            return None;
        }
        let real = std::fs::canonicalize(&self.dir).ok()?;
        if real.parent()?.file_name()? != "charts" {
            return None;
        }
        let parent = match lexical(&self.dir.join("../..")) {
            dir if dir.as_os_str().is_empty() => PathBuf::from("."),
            dir => dir,
        };
        let parent = Target::of_dir(&parent)?;
        (parent.tool == Tool::Helm).then_some(parent)
    }

    /// The folder as shown: as named, without `./` or a trailing `/` (`.` for the working
    /// directory).
    pub fn shown_dir(&self) -> String {
        match display_path(&self.dir) {
            dir if dir.is_empty() => ".".to_string(),
            dir => dir.trim_end_matches('/').to_string(),
        }
    }

    /// How the build is shown: `helm template charts/shop`, `kustomize build overlays/prod`.
    pub fn describe(&self) -> String {
        let dir = self.shown_dir();
        match self.tool {
            Tool::Helm => format!("helm template {dir}"),
            Tool::Kustomize => format!("kustomize build {dir}"),
        }
    }

    /// The name the built stream is reported under where a finding cannot be taken back to a
    /// file.
    pub fn stream_name(&self) -> String {
        format!("{} (rendered)", self.shown_dir())
    }
}

/// How charts are rendered: what `helm template` is given besides the chart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// The release name (`helm template NAME`).
    pub release: String,
    /// Values files (`--values`), in order.
    pub values: Vec<PathBuf>,
    /// Values set on the command line (`--set key=value`), in order.
    pub set: Vec<String>,
    /// How long one build (`helm template`, `kustomize build`) may take before it is stopped.
    pub timeout: std::time::Duration,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release: "release-name".to_string(),
            values: Vec::new(),
            set: Vec::new(),
            timeout: DEFAULT_BUILD_TIMEOUT,
        }
    }
}

/// A built chart or overlay.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub target: Target,
    /// What the tool printed (taken by the reading stage, which lints it as an input).
    pub text: String,
    pub origins: Origins,
}

/// What turns a document's origin into the file it came from.
#[derive(Clone, Debug)]
pub enum Origins {
    /// `# Source: shop/charts/sub/templates/x.yaml` names charts by their `Chart.yaml` name:
    /// each chart's name path, with its directory.
    Helm { charts: HashMap<String, PathBuf> },
    /// `config.kubernetes.io/origin` paths are relative to the wrapper kustomization the
    /// overlay was built through (`wrapper`, canonical), and `dir` is the overlay's canonical
    /// directory.
    Kustomize { wrapper: PathBuf, dir: PathBuf },
}

impl Rendered {
    /// The file an origin path names, as the user would write it (relative to where the
    /// overlay was named from).
    pub fn origin_file(&self, origin: &str) -> PathBuf {
        match &self.origins {
            Origins::Helm { charts } => helm::template_file(charts, &self.target.dir, origin),
            Origins::Kustomize { wrapper, dir } => {
                let file = lexical(&wrapper.join(origin));
                self.shown(dir, &file)
            }
        }
    }

    /// A file (absolute, real) as the user would name it: below the folder built, by the path
    /// the folder was named with; elsewhere, relative to the working directory (a folder named
    /// through a symbolic link is not where the files beside its target are).
    fn shown(&self, real_dir: &Path, file: &Path) -> PathBuf {
        if let Ok(inside) = file.strip_prefix(real_dir) {
            return self.target.dir.join(inside);
        }
        match std::env::current_dir().and_then(std::fs::canonicalize) {
            Ok(cwd) => relative(&cwd, file),
            Err(_) => file.to_path_buf(),
        }
    }
}

/// Why a chart or overlay was not linted.
#[derive(Clone, Debug)]
pub struct Failure {
    pub target: Target,
    /// The file to report it at: the tool's own error position when it names one, else the
    /// chart's `Chart.yaml` or the kustomization file.
    pub file: PathBuf,
    /// 1-based line and column in `file`, when the tool said.
    pub at: Option<(usize, usize)>,
    pub message: String,
    /// The tool is not installed: nothing is wrong with the chart or overlay.
    pub missing_tool: bool,
}

/// Build `target` with the options of the run.
pub fn render(
    target: &Target,
    options: &RenderOptions,
    namespace: &str,
    kube_version: Option<String>,
) -> Result<Rendered, Box<Failure>> {
    match target.tool {
        Tool::Helm => helm::render(target, options, namespace, kube_version),
        Tool::Kustomize => kustomize::render(target, options.timeout),
    }
}

/// The built streams of a run, by the name they are read under, and what could not be built.
#[derive(Debug, Default)]
pub struct Renders {
    pub built: HashMap<String, Rendered>,
    pub failures: Vec<Failure>,
    /// Met, and not built on their own.
    pub skipped: Vec<crate::discover::Skipped>,
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

/// The patch files a kustomization names (`patches[].path`, `patchesStrategicMerge`,
/// `patchesJson6902[].path`), as written: relative to its folder.
pub fn kustomization_patches(root: &crate::yaml::Node) -> Vec<&str> {
    let list = |key: &str| root.get(key).and_then(|l| l.as_seq()).unwrap_or_default();
    // A strategic merge patch is a file name, or the patch itself (several lines).
    let named = list("patchesStrategicMerge")
        .iter()
        .filter_map(|p| p.as_str())
        .filter(|p| !p.contains('\n'));
    let with_path = list("patches")
        .iter()
        .chain(list("patchesJson6902"))
        .filter_map(|p| p.get("path")?.as_str());
    named.chain(with_path).collect()
}

/// What a kustomization builds on, as written (relative to its folder): its `resources`,
/// `bases` and `components`.
pub fn kustomization_builds_on(root: &crate::yaml::Node) -> Vec<&str> {
    ["resources", "bases", "components"]
        .into_iter()
        .filter_map(|key| root.get(key)?.as_seq())
        .flatten()
        .filter_map(|entry| entry.as_str())
        .collect()
}

/// How long a build may take before it is stopped, unless `--render-timeout` says otherwise:
/// a chart or overlay that fetches remote resources may wait on a network that never answers.
pub const DEFAULT_BUILD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Run a build to its end, or stop it after `timeout` (an error of kind `TimedOut`).
/// Its output is read as it comes, so that a full pipe never stops it; a process it started
/// that keeps the output open after it ends is not waited for past the timeout either. On
/// Unix the tool runs in a process group of its own, and a stop ends the whole group: the
/// processes the tool started too, not only the tool.
fn run_tool(
    command: &mut std::process::Command,
    timeout: std::time::Duration,
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
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // The group's id is the tool's process id (`process_group(0)`).
    let stop_group = |id: u32| {
        #[cfg(unix)]
        if let Some(group) = i32::try_from(id)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        #[cfg(not(unix))]
        let _ = id;
    };
    let id = child.id();
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
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            stop_group(id);
            let _ = child.kill();
            let _ = child.wait();
            return Err(timed_out("it had not finished"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let left = || deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1);
    let collect = |pipe: std::sync::mpsc::Receiver<Vec<u8>>| {
        pipe.recv_timeout(left()).map_err(|_| {
            // What still holds the output open is a process the tool started, in its group.
            stop_group(id);
            timed_out("its output was still open")
        })
    };
    Ok(std::process::Output {
        status,
        stdout: collect(stdout)?,
        stderr: collect(stderr)?,
    })
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

/// `path` with `.` and `..` resolved by its text alone.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if out
                    .components()
                    .next_back()
                    .is_some_and(|c| matches!(c, Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The path from directory `from` to `to`, both absolute and lexical.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for component in &to[common..] {
        out.push(component);
    }
    out
}

/// A tool's standard error as one message: its lines without klog's prefixes, trimmed.
fn tool_message(stderr: &[u8]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_and_descend() {
        assert_eq!(
            relative(Path::new("/a/b/c"), Path::new("/a/d/e.yaml")),
            PathBuf::from("../../d/e.yaml")
        );
        assert_eq!(
            lexical(Path::new("x/overlays/prod/../../base/e.yaml")),
            PathBuf::from("x/base/e.yaml")
        );
        assert_eq!(lexical(Path::new("../a/./b")), PathBuf::from("../a/b"));
    }
}
