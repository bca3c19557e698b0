//! `ownerlint cluster`: read the cluster of a kubeconfig context (GET requests only), lint what
//! it holds as a complete snapshot, confirm each dangling reference with GETs before reporting
//! it (`confirm`), and report as a lint of files does. `--save DIR` keeps what was read.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::Streams;
use super::confirm::confirm;
use super::lint::{Lint, lint};
use crate::analysis::{Analysis, ClusterStats, Options};
use crate::catalog::KubeVersion;
use crate::cluster::connect::{Connection, connect};
use crate::cluster::read::{ClusterRead, Fatal, Progress, Reader, Scope, read};
use crate::cluster::render;
use crate::cluster::snapshot::{Snapshot, Stored};
use crate::load::Written;
use crate::rules::NotRead;
use crate::source::Span;

/// What `ownerlint cluster` is asked.
pub struct ClusterLint {
    /// The lint's own flags (format, baseline, …); its `given` is set here.
    pub lint: Lint,
    pub connection: Connection,
    pub scope: Scope,
    /// Write what was read here, as files.
    pub save: Option<PathBuf>,
    /// Show a progress line on standard error (it is a terminal).
    pub progress: bool,
}

/// Run `ownerlint cluster`; returns the exit status, as a lint does (2 when the cluster cannot
/// be read).
pub fn cluster(args: ClusterLint, streams: &mut Streams) -> i32 {
    let ClusterLint {
        lint: mut lint_args,
        connection,
        scope,
        save,
        progress,
    } = args;
    lint_args.given = Some(Box::new(move |options: &Options, streams: &mut Streams| {
        read_live(options, &connection, &scope, save, progress, streams)
    }));
    lint(lint_args, streams)
}

/// Read the cluster and analyse it, on a runtime of its own that ends with the read: the
/// rest of ownerlint is synchronous. `Err` is the exit status of a failure it has reported.
pub(super) fn read_live(
    options: &Options,
    connection: &Connection,
    scope: &Scope,
    save: Option<PathBuf>,
    progress: bool,
    streams: &mut Streams,
) -> Result<Analysis, i32> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            note!(
                streams.stderr,
                "ownerlint: cannot start the cluster reader: {e}"
            );
            2
        })?;
    runtime.block_on(read_and_check(
        options, connection, scope, save, progress, streams,
    ))
}

async fn read_and_check(
    options: &Options,
    connection: &Connection,
    scope: &Scope,
    save: Option<PathBuf>,
    progress: bool,
    streams: &mut Streams<'_>,
) -> Result<Analysis, i32> {
    let fail = |streams: &mut Streams, message: &str| {
        note!(streams.stderr, "ownerlint: {message}");
        2
    };
    let started = std::time::Instant::now();
    // Said before the cluster is read: a snapshot goes into a folder of its own, so that no
    // file of an earlier one (a namespace since deleted) is read back with it.
    let save = match &save {
        Some(dir) => Some(SaveFolder::prepare(dir).map_err(|m| fail(streams, &m))?),
        None => None,
    };
    let connected = connect(connection).await.map_err(|m| fail(streams, &m))?;
    let reader = Reader::new(&connected);
    let mut shown = false;
    let cluster_read = {
        let stderr = &mut streams.stderr;
        let mut show = |p: Progress| {
            if progress {
                shown = true;
                let _ = write!(
                    stderr,
                    "\rownerlint: reading {}: {}/{} resources, {} objects",
                    connected.context.as_deref().unwrap_or(&connected.server),
                    p.resources_done,
                    p.resources,
                    p.objects
                );
                let _ = stderr.flush();
            }
        };
        read(&reader, scope, crate::rules::kept(), &mut show).await
    };
    if shown {
        // Clear the progress line.
        let _ = write!(streams.stderr, "\r\x1b[2K");
    }
    let cluster_read = cluster_read.map_err(|Fatal(m)| fail(streams, &m))?;
    // A run that read no object checked nothing: it is no pass (exit 2), unless every list it
    // tried was read and was empty, which the summary says.
    if let Some(why) = cluster_read.nothing_read(scope) {
        let from = match &connected.context {
            Some(context) => format!("context {context} ({})", connected.server),
            None => connected.server.clone(),
        };
        let namespace = scope
            .namespace
            .as_ref()
            .map_or(String::new(), |ns| format!(", namespace {ns}"));
        return Err(fail(
            streams,
            &format!("nothing was checked: no object was read from {from}{namespace}: {why}"),
        ));
    }
    let ClusterRead {
        mut snapshot,
        version,
        resources_read,
        not_read,
        notes,
        ..
    } = cluster_read;
    for said in &notes {
        note!(streams.stderr, "ownerlint: {said}");
    }
    let mut options = options.clone();
    options.complete = true;
    // Removed APIs are those of the cluster's release (its discovery decides what it serves);
    // a release newer than ownerlint knows is checked against the newest it knows.
    // A server that does not say leaves the release asked for (`.ownerlint.yaml`) or the newest.
    if let Some(version) = version {
        options.kube_version = Some(version.min(KubeVersion::newest_known()));
    }
    options.not_read = not_read.clone();
    // One warning for each reason: `-n` leaves out every cluster-scoped resource at once.
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for n in &not_read {
        match reasons.iter_mut().find(|(why, _)| *why == n.why) {
            Some((_, what)) => what.push(&n.what),
            None => reasons.push((&n.why, vec![&n.what])),
        }
    }
    for (why, what) in reasons {
        match what[..] {
            [one] => note!(
                streams.stderr,
                "ownerlint: warning: {one} was not read: {why}; references to its objects are not checked"
            ),
            _ => note!(
                streams.stderr,
                "ownerlint: warning: {} resources were not read: {why} ({}); references to their objects are not checked",
                what.len(),
                what.join(", ")
            ),
        }
    }
    let listed = snapshot.resources(crate::rules::kept());
    let mut analysis = analyze(&snapshot, &options);
    // Confirm what the lists showed gone, as the garbage collector does before it deletes; the
    // snapshot is analysed again only if a GET changed it.
    let confirmation = confirm(&reader, &mut snapshot, &listed, &options, &analysis)
        .await
        .map_err(|Fatal(m)| fail(streams, &m))?;
    for warning in &confirmation.warnings {
        note!(streams.stderr, "ownerlint: warning: {warning}");
    }
    if confirmation.changed {
        // The memory of this analysis is the next one's.
        drop(analysis);
        analysis = analyze(&snapshot, &options);
    }
    if let Some(folder) = &save {
        folder
            .save(&snapshot, &not_read)
            .map_err(|m| fail(streams, &m))?;
    }
    // The whole run's time: the reading and the analysis.
    analysis.outcome.stats.elapsed = started.elapsed();
    analysis.outcome.stats.cluster = Some(ClusterStats {
        context: connected.context.clone(),
        server: connected.server.clone(),
        namespace: scope.namespace.clone(),
        default_namespace: connected.default_namespace.clone(),
        resources: resources_read,
        requests: reader.requests(),
        confirmed: confirmation.objects,
        rounds: confirmation.rounds,
        not_read: not_read
            .iter()
            .map(|n| (n.what.clone(), n.why.clone()))
            .collect(),
        served: listed
            .iter()
            .map(|r| ((r.group.clone(), r.kind.clone()), r.clone()))
            .collect(),
    });
    Ok(analysis)
}

/// Lint the snapshot: each namespace's objects (and the cluster-scoped ones) one input, written
/// as YAML as `kubectl get -o yaml` writes them, so that a finding shows its object as in a
/// file (the reports name the object by its API path); with the cluster's discovery. One input
/// a namespace, not one an object: a hundred thousand inputs would cost twice the memory.
/// Each object's text is written with what the loader reads of it, which is not read again.
fn analyze(snapshot: &Snapshot, options: &Options) -> Analysis {
    use rayon::prelude::*;
    let mut by_namespace: BTreeMap<&str, Vec<&Stored>> = BTreeMap::new();
    for (_, stored) in snapshot.objects() {
        by_namespace
            .entry(&stored.namespace)
            .or_default()
            .push(stored);
    }
    // `--full-parse` reads every text whole, as it would a file.
    let kept = (!options.full_parse).then(crate::rules::kept);
    // Written on every core: the lists are read, and nothing else runs.
    let texts: Vec<(&str, String, Option<Written>)> = by_namespace
        .into_par_iter()
        .map(|(namespace, objects)| {
            // Room for the YAML at once (growing the text would copy it again and again): it
            // takes less than twice the compact JSON. Room not written is never touched, and
            // what is left is given back at the end.
            let json: usize = objects.iter().map(|stored| stored.text().len()).sum();
            let mut text = String::with_capacity(2 * json + 64 * objects.len());
            let mut written = kept.map(|_| Written::with_capacity(objects.len()));
            for stored in objects {
                let start = text.len();
                text.push_str("---\n");
                let value = stored.value();
                match (kept, &mut written) {
                    (Some(kept), Some(written)) => {
                        let max_depth = options.limits.max_depth;
                        let root = render::yaml_with_tree(&mut text, &value, kept, max_depth);
                        let span = Span::new(start, text.len());
                        // A document over the size limit is reported from its text.
                        match root {
                            Some(root) if span.len() <= options.limits.max_document_size => {
                                written.built(&text, span, &root, kept.held())
                            }
                            _ => written.unbuilt(span),
                        }
                    }
                    _ => text.push_str(&render::yaml(&value)),
                }
            }
            text.shrink_to_fit();
            (namespace, text, written)
        })
        .collect();
    let mut inputs = Vec::with_capacity(texts.len() + 1);
    if let Some(discovery) = snapshot.discovery_file() {
        inputs.push((DISCOVERY_NAME.to_string(), discovery, None));
    }
    for (namespace, text, written) in texts {
        let name = match namespace {
            "" => "cluster-scoped objects".to_string(),
            namespace => format!("namespace {namespace}"),
        };
        inputs.push((name, text, written));
    }
    crate::pipeline::analyze_written(inputs, options)
}

/// How the cluster's discovery is named among the inputs.
const DISCOVERY_NAME: &str = "/api+/apis (discovery)";

/// The folder `--save` writes a snapshot into, checked (and made) before the cluster is read:
/// a new or empty folder, named as itself (a symbolic link there is refused; the folders above
/// it are the user's to choose, links or not: `/tmp` is one on macOS). Its files are private
/// (0600, in folders of 0700), each made new, inside the folder as it was checked: a link
/// planted meanwhile is never followed.
struct SaveFolder {
    path: PathBuf,
    #[cfg(unix)]
    dir: std::os::fd::OwnedFd,
}

impl SaveFolder {
    fn prepare(path: &Path) -> Result<SaveFolder, String> {
        let named = |what: String| format!("--save {}: {what}", path.display());
        let not_empty = || {
            named("the folder is not empty; a snapshot is saved into a new or empty folder, so that no file of an earlier one is read back with it".to_string())
        };
        let link = || {
            named(
                "is a symbolic link; name a new or empty folder itself, not a link to one"
                    .to_string(),
            )
        };
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(link()),
            Ok(meta) if !meta.is_dir() => {
                return Err(named(
                    "is not a folder; a snapshot is saved into a new or empty folder".to_string(),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut builder = std::fs::DirBuilder::new();
                builder.recursive(true);
                #[cfg(unix)]
                std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
                builder
                    .create(path)
                    .map_err(|e| named(format!("cannot make the folder: {e}")))?;
            }
            Err(e) => return Err(named(format!("cannot read it: {e}"))),
        }
        #[cfg(unix)]
        {
            use rustix::fs::{Dir, Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let dir = match rustix::fs::open(path, flags, Mode::empty()) {
                Ok(dir) => dir,
                Err(rustix::io::Errno::LOOP) => return Err(link()),
                Err(e) => return Err(named(format!("cannot open the folder: {e}"))),
            };
            let entries =
                Dir::read_from(&dir).map_err(|e| named(format!("cannot read the folder: {e}")))?;
            for entry in entries {
                let entry = entry.map_err(|e| named(format!("cannot read the folder: {e}")))?;
                if !matches!(entry.file_name().to_bytes(), b"." | b"..") {
                    return Err(not_empty());
                }
            }
            Ok(SaveFolder {
                path: path.to_path_buf(),
                dir,
            })
        }
        #[cfg(not(unix))]
        {
            let mut entries = std::fs::read_dir(path)
                .map_err(|e| named(format!("cannot read the folder: {e}")))?;
            if entries.next().is_some() {
                return Err(not_empty());
            }
            Ok(SaveFolder {
                path: path.to_path_buf(),
            })
        }
    }

    /// Write the snapshot's files, and what was not read beside them: read back with
    /// `--complete`, references to those kinds are not checked, as in the run that saved them.
    fn save(&self, snapshot: &Snapshot, not_read: &[NotRead]) -> Result<(), String> {
        let not_read = crate::cluster::snapshot::not_read_file(not_read)
            .map(|text| (crate::cluster::snapshot::NOT_READ_FILE.to_string(), text));
        for (relative, text) in snapshot.files().into_iter().chain(not_read) {
            self.write(&relative, text.as_bytes()).map_err(|e| {
                format!("cannot write {}: {e}", self.path.join(&relative).display())
            })?;
        }
        Ok(())
    }

    /// Write one new file at `relative` (`namespaces/shop.json`), making its folders.
    #[cfg(unix)]
    fn write(&self, relative: &str, text: &[u8]) -> std::io::Result<()> {
        use rustix::fs::{Mode, OFlags, mkdirat, openat};
        use rustix::io::Errno;
        use std::os::fd::AsFd;
        // What was put where a folder or a file is made (a link planted while the cluster was
        // read) is neither followed nor written over.
        let planted = |e: Errno| match e {
            Errno::LOOP | Errno::EXIST | Errno::NOTDIR => std::io::Error::other(
                "something else is there already (a link is not followed, nor a file written over); save into a folder no one else writes in",
            ),
            e => e.into(),
        };
        let mut parts: Vec<&str> = relative.split('/').collect();
        let name = parts.pop().unwrap_or_default();
        let mut inner: Option<std::os::fd::OwnedFd> = None;
        for part in parts {
            let at = inner.as_ref().map_or(self.dir.as_fd(), |d| d.as_fd());
            match mkdirat(at, part, Mode::RWXU) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            inner = Some(openat(at, part, flags, Mode::empty()).map_err(planted)?);
        }
        let at = inner.as_ref().map_or(self.dir.as_fd(), |d| d.as_fd());
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = openat(at, name, flags, Mode::RUSR | Mode::WUSR).map_err(planted)?;
        std::fs::File::from(file).write_all(text)
    }

    #[cfg(not(unix))]
    fn write(&self, relative: &str, text: &[u8]) -> std::io::Result<()> {
        let path = self.path.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?
            .write_all(text)
    }
}
