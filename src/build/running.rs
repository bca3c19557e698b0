//! What the builds leave running while they run: the tools' process groups and the private
//! temporary folders they build from. Each is registered while it lives, so that a process
//! that ends before its builds do (the language server, told to exit or finding its input
//! closed) ends the tools and removes the folders rather than leaving them behind.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The process groups of the tools running now, by their leader's process id.
static GROUPS: Mutex<Option<HashSet<u32>>> = Mutex::new(None);
/// The temporary folders that builds are made from now.
static FOLDERS: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
/// Set once the process ends its builds: no tool starts and no folder is made after it.
static ENDING: AtomicBool = AtomicBool::new(false);

/// A running tool's process group, registered until this is dropped.
pub(super) struct Group(u32);

/// Register the process group whose leader is `id` (a tool started with `process_group(0)`).
/// When the process is already ending its builds, the group is ended at once.
pub(super) fn register_group(id: u32) -> Group {
    with(&GROUPS, |groups| groups.insert(id));
    if ENDING.load(Ordering::SeqCst) {
        kill_group(id);
    }
    Group(id)
}

impl Group {
    /// The id of the group's leader, which is the group's id.
    pub(super) fn id(&self) -> u32 {
        self.0
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        with(&GROUPS, |groups| groups.remove(&self.0));
    }
}

/// A private temporary folder to build from: readable by this user only (mode 0700 on Unix),
/// registered while it lives, and removed when dropped.
pub(super) struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    pub(super) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Make a private temporary folder whose name starts with `prefix`. tempfile makes folders
/// with the default permissions (0755 with the usual umask), which would let every user of
/// the machine read the editor's unsaved texts copied into it.
pub(super) fn private_folder(prefix: &str) -> std::io::Result<Folder> {
    if ENDING.load(Ordering::SeqCst) {
        return Err(std::io::Error::other("ownerlint is ending"));
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    let dir = builder.tempdir()?;
    with(&FOLDERS, |folders| folders.insert(dir.path().to_path_buf()));
    Ok(Folder { dir })
}

impl Drop for Folder {
    fn drop(&mut self) {
        with(&FOLDERS, |folders| folders.remove(self.dir.path()));
    }
}

/// Whether ownerlint is ending its builds: no tool may start.
pub(super) fn is_ending() -> bool {
    ENDING.load(Ordering::SeqCst)
}

/// End every tool that builds run now (their whole process groups) and remove every temporary
/// folder they build from; from now on no tool starts and no folder is made. For a process
/// about to end: `std::process::exit` runs no destructor, and a tool that outlives ownerlint
/// would run on, unseen.
pub fn end_every_build() {
    ENDING.store(true, Ordering::SeqCst);
    let groups: Vec<u32> = with(&GROUPS, |groups| groups.iter().copied().collect());
    for id in groups {
        kill_group(id);
    }
    let folders: Vec<PathBuf> = with(&FOLDERS, |folders| folders.drain().collect());
    for folder in folders {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// End the process group whose leader is `id`, with every process in it.
pub(super) fn kill_group(id: u32) {
    #[cfg(unix)]
    if let Some(group) = i32::try_from(id)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = id;
}

/// Run `f` on the set in `registry` (made when first used; a registry poisoned by a panic is
/// still used: a set of ids stays whole).
fn with<T, R>(registry: &Mutex<Option<HashSet<T>>>, f: impl FnOnce(&mut HashSet<T>) -> R) -> R {
    let mut guard = registry
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(guard.get_or_insert_with(HashSet::new))
}
