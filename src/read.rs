//! Read: the inputs that discovery found, as bytes (in parallel, each file once whatever name
//! reaches it; a big file is opened to be read a slice at a time), then as text. Every file a
//! run reads goes through here ([`Files`]), so that a text that stands in for a file (an
//! editor's unsaved buffer) is what every stage sees, the builds too. Folders are walked here
//! as discovery walks them ([`walk_entries`]: hidden and ignored files left out).

pub mod repository;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::{InputError, Options};
use crate::source::{self, Source};
use repository::{Outside, Repository};

/// How standard input is named in reports.
pub const STDIN_NAME: &str = "<stdin>";

/// One input to read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => STDIN_NAME.to_string(),
            Input::File(p) => display_path(p),
        }
    }
}

/// A path shown without a leading `./`.
pub fn display_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    text.strip_prefix("./").unwrap_or(&text).to_string()
}

/// The repository that holds `start`: the nearest folder upwards with a `.git` (a folder, or a
/// file in a worktree or submodule).
pub fn repository_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
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

/// The files as a run sees them: as on disk, except those with a text that stands in for them
/// (an editor's buffers, saved or not; the texts `--fix` has edited and not yet written).
/// Every file a run reads, the builds' too, is read through it.
#[derive(Clone, Debug, Default)]
pub struct Files {
    /// By lexical path.
    texts: Arc<HashMap<PathBuf, String>>,
}

impl Files {
    pub fn new(texts: impl IntoIterator<Item = (PathBuf, String)>) -> Files {
        Files {
            texts: Arc::new(
                texts
                    .into_iter()
                    .map(|(path, text)| (lexical(&path), text))
                    .collect(),
            ),
        }
    }

    /// The text that stands in for the file at `path`, if one does.
    pub fn text(&self, path: &Path) -> Option<&str> {
        if self.texts.is_empty() {
            return None;
        }
        self.texts.get(&lexical(path)).map(String::as_str)
    }

    /// The paths that texts stand in for, lexical.
    pub fn edited(&self) -> impl Iterator<Item = &PathBuf> {
        self.texts.keys()
    }

    /// Whether any text stands in for a file.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// A file that ownerlint reads for itself (a kustomization, a `Chart.yaml`), as text: the
    /// text that stands in for it, else [`small_file`].
    pub fn read(&self, path: &Path) -> Option<String> {
        match self.text(path) {
            Some(text) => Some(text.to_string()),
            None => small_file(path).ok(),
        }
    }

    /// The bytes of a regular file, or of the text that stands in for it.
    pub fn bytes(&self, path: &Path) -> Option<Vec<u8>> {
        match self.text(path) {
            Some(text) => Some(text.as_bytes().to_vec()),
            // Only regular files are read: a named pipe would block.
            None => std::fs::metadata(path)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .and_then(|_| std::fs::read(path).ok()),
        }
    }

    /// Whether `path` is a file: on disk, or one a text stands in for.
    pub fn is_file(&self, path: &Path) -> bool {
        self.text(path).is_some() || path.is_file()
    }

    /// What the folder `dir` holds, by path (as `dir` is written), each with whether it is a
    /// folder: its entries on disk (not following symbolic links to folders), and the files
    /// that texts stand in for there or below, sorted.
    pub fn entries(&self, dir: &Path) -> Vec<(PathBuf, bool)> {
        // A lexical path is empty for the working directory: its entries are named without
        // `./`, as lexical paths are.
        let on_disk = match dir.as_os_str().is_empty() {
            true => Path::new("."),
            false => dir,
        };
        let mut entries: Vec<(PathBuf, bool)> = std::fs::read_dir(on_disk)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| {
                        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
                        (dir.join(entry.file_name()), is_dir)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let lexical_dir = lexical(dir);
        for edited in self.texts.keys() {
            let Ok(inside) = edited.strip_prefix(&lexical_dir) else {
                continue;
            };
            let mut components = inside.components();
            let Some(first) = components.next() else {
                continue;
            };
            let is_dir = components.next().is_some();
            let path = dir.join(first);
            if !entries.iter().any(|(p, _)| *p == path) {
                entries.push((path, is_dir));
            }
        }
        entries.sort();
        entries
    }
}

/// Which kinds of ignore file a walk leaves unread.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Unread {
    /// `.ignore`
    ignore: bool,
    /// `.gitignore`
    gitignore: bool,
    /// `.git/info/exclude`, and a `.git` file that names where the repository is
    exclude: bool,
}

/// The ignore files the `ignore` crate would read in `dir` (of the kinds `unread` does not
/// leave out) that are not small regular files: a link to `/dev/zero` would be read without
/// end, a named pipe would block. Each with its kind and why it is not read.
fn unreadable_ignore_files(dir: &Path, unread: Unread) -> Vec<(PathBuf, Unread, String)> {
    let mut found = Vec::new();
    let mut check = |name: &str, kind: Unread, skip: bool| {
        if skip {
            return;
        }
        let path = dir.join(name);
        let Ok(metadata) = std::fs::metadata(&path) else {
            return;
        };
        // `.git` is a repository's folder (or, in a worktree, a small file naming it).
        if name == ".git" && metadata.is_dir() {
            return;
        }
        if let Some(problem) = not_small_file(&metadata) {
            let rules = match name {
                ".ignore" => ".ignore",
                ".gitignore" => ".gitignore",
                _ => "the repository's exclude",
            };
            found.push((
                path,
                kind,
                format!("{problem}; the walk below it goes on without {rules} rules"),
            ));
        }
    };
    let exclude = Unread {
        exclude: true,
        ..Unread::default()
    };
    check(
        ".ignore",
        Unread {
            ignore: true,
            ..Unread::default()
        },
        unread.ignore,
    );
    check(
        ".gitignore",
        Unread {
            gitignore: true,
            ..Unread::default()
        },
        unread.gitignore,
    );
    check(".git", exclude, unread.exclude);
    check(".git/info/exclude", exclude, unread.exclude);
    found
}

/// A folder to walk apart: the kinds of ignore file left unread there, and the files not read
/// with why.
type WalkApart = (PathBuf, Unread, Vec<(PathBuf, String)>);

/// Walk `root` as `ignore::Walk` walks it (hidden files and ignored files left out, each
/// folder's entries in name order), giving each entry or error to `on_entry`. The `ignore`
/// crate opens the ignore files itself, so each folder's are looked at before it is entered:
/// a folder with one that is not a small regular file is walked apart, with that kind of
/// ignore file unread there and below, and the file is added to `unread` (once) with why.
/// With `within`, a symbolic link below `root` that leads outside that repository is neither
/// entered nor given to `on_entry`: it goes to the list beside it (a repository's link to
/// `/proc/self/environ` or `/etc` is not read). True when some folder was walked apart (its
/// entries come after the others).
pub fn walk_entries(
    root: &Path,
    follow_links: bool,
    mut within: Option<(&Repository, &mut Vec<Outside>)>,
    on_entry: &mut dyn FnMut(Result<ignore::DirEntry, ignore::Error>),
    unread: &mut Vec<InputError>,
) -> bool {
    use std::sync::Mutex;
    let mut pending = vec![(root.to_path_buf(), Unread::default())];
    let mut walked = std::collections::HashSet::new();
    let mut reported = std::collections::HashSet::new();
    let mut in_parts = false;
    while let Some((dir, mut skip)) = pending.pop() {
        // A folder reached again through a symbolic link is not walked apart twice.
        if !walked.insert((
            std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone()),
            skip.ignore,
            skip.gitignore,
            skip.exclude,
        )) {
            continue;
        }
        let mut report = |path: PathBuf, problem: String| {
            if reported.insert(path.clone()) {
                unread.push(InputError {
                    path: display_path(&path),
                    message: problem,
                });
            }
        };
        // The folder itself, and the folders above it whose ignore files apply too.
        let absolute = std::path::absolute(&dir).unwrap_or_else(|_| dir.clone());
        for folder in absolute.ancestors() {
            for (path, kind, problem) in unreadable_ignore_files(folder, skip) {
                let shown = if folder == absolute {
                    dir.join(path.strip_prefix(folder).unwrap_or(&path))
                } else {
                    path
                };
                report(shown, problem);
                skip.ignore |= kind.ignore;
                skip.gitignore |= kind.gitignore;
                skip.exclude |= kind.exclude;
            }
        }
        let apart: Arc<Mutex<Vec<WalkApart>>> = Arc::default();
        let to_walk_apart = Arc::clone(&apart);
        let left_out: Arc<Mutex<Vec<Outside>>> = Arc::default();
        let to_leave_out = Arc::clone(&left_out);
        let repository = within.as_ref().map(|(repository, _)| (*repository).clone());
        let walker = ignore::WalkBuilder::new(&dir)
            .follow_links(follow_links)
            .ignore(!skip.ignore)
            .git_ignore(!skip.gitignore)
            .git_exclude(!skip.exclude)
            // Entries of one directory differ only in their names: comparing those bytes gives
            // the order comparing whole paths does, without splitting each path into components.
            .sort_by_file_name(|a, b| a.cmp(b))
            // Called before the walk enters a folder and reads its ignore files.
            .filter_entry(move |entry| {
                if entry.depth() > 0
                    && entry.path_is_symlink()
                    && let Some(repository) = &repository
                    && let Err(Some(outside)) = repository.admit(entry.path())
                {
                    if let Ok(mut left_out) = to_leave_out.lock() {
                        left_out.push(outside);
                    }
                    return false;
                }
                if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_dir()) {
                    return true;
                }
                let found = unreadable_ignore_files(entry.path(), skip);
                if found.is_empty() {
                    return true;
                }
                let mut unread = skip;
                for (_, kind, _) in &found {
                    unread.ignore |= kind.ignore;
                    unread.gitignore |= kind.gitignore;
                    unread.exclude |= kind.exclude;
                }
                let problems = found.into_iter().map(|(p, _, m)| (p, m)).collect();
                if let Ok(mut apart) = to_walk_apart.lock() {
                    apart.push((entry.path().to_path_buf(), unread, problems));
                }
                false
            })
            .build();
        for entry in walker {
            on_entry(entry);
        }
        let apart = std::mem::take(&mut *apart.lock().unwrap_or_else(|e| e.into_inner()));
        if let Some((_, outside)) = within.as_mut() {
            outside.append(&mut left_out.lock().unwrap_or_else(|e| e.into_inner()));
        }
        let mut folders = Vec::new();
        for (folder, kinds, problems) in apart {
            in_parts = true;
            for (path, problem) in problems {
                report(path, problem);
            }
            folders.push((folder, kinds));
        }
        pending.extend(folders.into_iter().rev());
    }
    in_parts
}

/// The role an input plays in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    Lint,
    Crds,
    /// Objects that already exist (`--existing`): owners may resolve to them; not linted.
    Existing,
    /// Manifests of the project beside the linted files: objects as in a lint, not reported.
    Project,
    /// Manifests the git change deletes, as they were (`--git-deletions`): their objects are
    /// gone, and references to them are checked.
    Deleted,
}

/// What reading the inputs gave: each input's name, content and role, in input order, and
/// what could not be read.
pub(crate) struct Read {
    pub inputs: Vec<(String, Content, Role)>,
    pub errors: Vec<InputError>,
}

/// Read `inputs` (files in parallel, `stdin` for standard input), each file as the text that
/// stands in for it in `files` if one does, and the files the git change deletes when
/// `--git-deletions` asks for them. A file that `stamps` knows unchanged since it was read is
/// not read again ([`Content::Unchanged`]); `stamps` then knows the files read this time.
pub(crate) fn read(
    inputs: Vec<(Input, Role)>,
    options: &Options,
    files: &Files,
    stdin: &mut dyn std::io::Read,
    stamps: Option<&mut Stamps>,
) -> Read {
    let mut errors = Vec::new();
    // Each file is asked for its metadata once, in parallel (a monorepo has thousands): it
    // tells the names of one file apart, and how to read it.
    let metadata: Vec<Option<Metadata>> = inputs
        .par_iter()
        .map(|(input, _)| match input {
            Input::File(path) => Some(std::fs::metadata(path)),
            Input::Stdin => None,
        })
        .collect();
    // A file named twice (or named and also found by a walk, or through a link) is read once,
    // in its first role: linted files are not read again as part of the project.
    let mut seen = std::collections::HashSet::new();
    let inputs: Vec<((Input, Role), Option<Metadata>)> = inputs
        .into_iter()
        .zip(metadata)
        .filter(|((input, _), metadata)| match (input, metadata) {
            (Input::File(path), Some(Ok(metadata))) => {
                file_id(path, metadata).is_none_or(|id| seen.insert(id))
            }
            _ => true,
        })
        .collect();
    // Files are read in parallel; standard input on this thread.
    let known = stamps.as_ref().map(|stamps| &stamps.files);
    // Before any file is read: a file changed after its read has a later time than this.
    let reading_at = std::time::SystemTime::now();
    let read_all: Vec<(Result<Content, String>, Option<Stamp>)> = inputs
        .par_iter()
        .map(|((input, _), metadata)| match (input, metadata) {
            (Input::File(path), _) if files.text(path).is_some() => {
                let text = files.text(path).unwrap_or_default();
                (Ok(Content::Bytes(text.as_bytes().to_vec())), None)
            }
            (Input::File(path), Some(metadata)) => {
                let stamp_now = metadata.as_ref().ok().and_then(StampKey::of);
                let was = known.and_then(|known| known.get(path));
                if let (Some(now), Some(was), Ok(metadata)) = (&stamp_now, was, metadata)
                    && was.unchanged(now)
                {
                    let content = Content::Unchanged {
                        hash: was.hash,
                        path: path.clone(),
                        metadata: metadata.clone(),
                    };
                    return (Ok(content), Some(was.clone()));
                }
                let content = read_file(path, metadata, options.big_file_at_least);
                let stamp = match (&content, stamp_now, known) {
                    (Ok(Content::Bytes(bytes)), Some(key), Some(_)) => Some(Stamp {
                        key,
                        hash: content_hash(bytes),
                        read_at: reading_at,
                    }),
                    _ => None,
                };
                (content, stamp)
            }
            _ => (Ok(Content::Bytes(Vec::new())), None),
        })
        .collect();
    let mut read = Vec::new();
    let mut stamped = HashMap::new();
    for (((input, role), _), (result, stamp)) in inputs.into_iter().zip(read_all) {
        if let (Input::File(path), Some(stamp)) = (&input, stamp) {
            stamped.insert(path.clone(), stamp);
        }
        let result = match input {
            Input::Stdin => read_stdin(stdin),
            Input::File(_) => result,
        };
        match result {
            Ok(content) => read.push((input.display_name(), content, role)),
            Err(message) => errors.push(InputError {
                path: input.display_name(),
                message,
            }),
        }
    }
    if options.git_deletions {
        match crate::git::deletions() {
            Ok(deleted) => read.extend(
                deleted
                    .into_iter()
                    .map(|d| (d.path, Content::Bytes(d.content), Role::Deleted)),
            ),
            Err(message) => errors.push(InputError {
                path: "--git-deletions".to_string(),
                message,
            }),
        }
    }
    if let Some(stamps) = stamps {
        stamps.files = stamped;
    }
    Read {
        inputs: read,
        errors,
    }
}

/// What `std::fs::metadata` said of a file.
type Metadata = std::io::Result<std::fs::Metadata>;

/// What one file is, whatever name reaches it (another path, a symbolic or a hard link): its
/// device and inode where there are inodes, its canonical path elsewhere.
#[derive(PartialEq, Eq, Hash)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

#[cfg(unix)]
fn file_id(_path: &Path, metadata: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId::Inode(metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &Path, _metadata: &std::fs::Metadata) -> Option<FileId> {
    std::fs::canonicalize(path).ok().map(FileId::Path)
}

/// What a file holds, as read: its bytes, or, for a big file, the open file and its length
/// (read a slice at a time later; see `source::Text`).
pub(crate) enum Content {
    Bytes(Vec<u8>),
    File(std::fs::File, usize),
    /// A file not read again: it is as it was when its bytes, of this hash, were read last
    /// ([`Stamps`]). Read when its bytes are needed after all ([`Content::read_again`]).
    Unchanged {
        hash: u64,
        path: std::path::PathBuf,
        metadata: std::fs::Metadata,
    },
}

impl Content {
    /// The hash of the bytes, when they are known.
    pub(crate) fn hash(&self) -> Option<u64> {
        match self {
            Content::Bytes(bytes) => Some(content_hash(bytes)),
            Content::File(..) => None,
            Content::Unchanged { hash, .. } => Some(*hash),
        }
    }

    /// The content, with a file not read again read now.
    pub(crate) fn read_again(self) -> Result<Content, String> {
        match self {
            Content::Unchanged { path, metadata, .. } => read_file(&path, &Ok(metadata), None),
            content => Ok(content),
        }
    }
}

/// The hash of a file's bytes, by which an analysis knows them unchanged.
pub(crate) fn content_hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::default().hash_one(bytes)
}

/// What the last read of each file saw (the language server reads its folders again at every
/// edit): a file whose metadata is as it was is not read again, unless it was changed so
/// shortly before it was read that a change after the read could have left its modification
/// time as it was (as git tells racily clean files).
#[derive(Default)]
pub(crate) struct Stamps {
    files: std::collections::HashMap<std::path::PathBuf, Stamp>,
}

#[derive(Clone)]
struct Stamp {
    key: StampKey,
    hash: u64,
    /// When the read that gave these bytes began.
    read_at: std::time::SystemTime,
}

/// What tells a file changed: its device and inode, length, and modification and change
/// times (a change time cannot be set back).
#[derive(Clone, PartialEq, Eq)]
struct StampKey {
    device: u64,
    inode: u64,
    len: u64,
    modified: std::time::SystemTime,
    changed: (i64, i64),
}

/// The coarsest clock of a file system that ownerlint trusts a modification time from.
const TIME_GRAIN: std::time::Duration = std::time::Duration::from_secs(2);

impl StampKey {
    #[cfg(unix)]
    fn of(metadata: &std::fs::Metadata) -> Option<StampKey> {
        use std::os::unix::fs::MetadataExt;
        if !metadata.is_file() {
            return None;
        }
        Some(StampKey {
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            modified: metadata.modified().ok()?,
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }

    /// Elsewhere, every file is read each time.
    #[cfg(not(unix))]
    fn of(_metadata: &std::fs::Metadata) -> Option<StampKey> {
        None
    }
}

impl Stamp {
    /// Whether a file with the metadata `now` holds the bytes this stamp was taken from.
    fn unchanged(&self, now: &StampKey) -> bool {
        self.key == *now
            && self
                .key
                .modified
                .checked_add(TIME_GRAIN)
                .is_some_and(|settled| settled < self.read_at)
    }
}

/// Read a file, given what `std::fs::metadata` said of it: a regular file of at least
/// `big_file_at_least` bytes is opened to be read later, any other regular file read.
fn read_file(
    path: &std::path::Path,
    metadata: &Metadata,
    big_file_at_least: Option<u64>,
) -> Result<Content, String> {
    let metadata = metadata.as_ref().map_err(|e| e.to_string())?;
    // A FIFO or a device would block or never end: only regular files are read. (This is
    // asked before opening: opening a named pipe would wait for a writer.)
    if !metadata.is_file() {
        return Err(format!(
            "not a regular file ({}), so it was not read",
            describe_file_type(metadata.file_type())
        ));
    }
    if big_file_at_least.is_some_and(|at_least| metadata.len() >= at_least) {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        // The length of the file opened, which is what is read (the path may have been
        // replaced since it was asked about).
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        if let Ok(len) = usize::try_from(len) {
            return Ok(Content::File(file, len));
        }
    }
    std::fs::read(path)
        .map(Content::Bytes)
        .map_err(|e| e.to_string())
}

fn read_stdin(stdin: &mut dyn std::io::Read) -> Result<Content, String> {
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .map(|_| Content::Bytes(bytes))
        .map_err(|e| e.to_string())
}

fn describe_file_type(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// An input that could not be read as text: its source (empty) and why.
pub(crate) type Undecoded = Box<(Source, String)>;

/// Text from bytes; for bytes that are not UTF-8, also the offset of the first bad byte.
pub(crate) fn decode(name: String, content: Content) -> Result<(Source, Option<usize>), Undecoded> {
    let content = match content.read_again() {
        Ok(content) => content,
        Err(message) => return Err(Box::new((Source::new(name, ""), message))),
    };
    let bytes = match content {
        Content::Bytes(bytes) => bytes,
        // Read again above.
        Content::Unchanged { .. } => Vec::new(),
        Content::File(file, len) => match source::Text::open(file, len) {
            Ok(text) => return Ok((Source::with_text(name, text), None)),
            // Rare: read it whole, to find where it is not text and show it.
            Err(file) => {
                let mut bytes = Vec::new();
                if let Err(e) = std::io::Read::read_to_end(&mut &file, &mut bytes) {
                    return Err(Box::new((Source::new(name, ""), e.to_string())));
                }
                bytes
            }
        },
    };
    Ok(match String::from_utf8(bytes) {
        Ok(text) => (Source::new(name, text), None),
        Err(err) => {
            let at = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            (Source::new(name, text), Some(at))
        }
    })
}

/// The error for a file that changed while it was read.
pub(crate) fn changed(source: &Source) -> InputError {
    InputError {
        path: source.name.clone(),
        message: "the file changed while it was read, so it was not checked; run again once nothing writes to it".into(),
    }
}

/// Errors for the inputs that a read found changed, and that `errors` does not name yet (a
/// read for a position or a snippet can find it late, while findings are reported).
pub fn changed_inputs(sources: &[Source], errors: &[InputError]) -> Vec<InputError> {
    sources
        .iter()
        .filter(|s| s.text.changed() && !errors.iter().any(|e| e.path == s.name))
        .map(changed)
        .collect()
}

/// The most that ownerlint reads of a file it reads for itself (a kustomization, a
/// `Chart.yaml`, an ignore file): far more than any real one holds.
pub(crate) const SMALL_FILE_LIMIT: u64 = 16 << 20;

/// Why a file of this kind and size is not one that ownerlint reads for itself: it is not a
/// regular file, or it is larger than [`SMALL_FILE_LIMIT`].
pub(crate) fn not_small_file(metadata: &std::fs::Metadata) -> Option<String> {
    if !metadata.is_file() {
        return Some(format!(
            "not a regular file ({}), so it was not read",
            describe_file_type(metadata.file_type())
        ));
    }
    (metadata.len() > SMALL_FILE_LIMIT).then(|| {
        format!(
            "larger than {} MiB, so it was not read",
            SMALL_FILE_LIMIT >> 20
        )
    })
}

/// A file that ownerlint reads for itself and that may be large (a baseline), as text: only a
/// regular file (a named pipe would block, a device never end), read to the length it had.
pub(crate) fn regular_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err(format!(
            "not a regular file ({}), so it was not read",
            describe_file_type(metadata.file_type())
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(metadata.len())
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

/// A file that ownerlint reads for itself, as text: only a regular file (a named pipe would
/// block, a device never end), and at most [`SMALL_FILE_LIMIT`] bytes of it.
pub(crate) fn small_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if let Some(problem) = not_small_file(&metadata) {
        return Err(problem);
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(SMALL_FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > SMALL_FILE_LIMIT {
        return Err(format!(
            "larger than {} MiB, so it was not read",
            SMALL_FILE_LIMIT >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}
