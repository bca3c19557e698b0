//! Configuration: `.ownerlint.yaml`, found by walking up from the working directory to the
//! repository root, or given with `--config`. Read with the same span-tree YAML reader as the
//! manifests, so every mistake is reported at its line and column, with the nearest valid name.
//! `layers` lays the command line over it.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::catalog::{KubeVersion, Scope};
pub use crate::finding::Level;
use crate::load::ModeChoice;
use crate::policy::{OwnerKind, Policies, RequiredOwner, TrackingLabel};
use crate::rules::did_you_mean;
use crate::source::Source;
use crate::yaml::{self, Limits, Node, ScalarType, Value};

mod layers;
pub mod schema;
pub use layers::{Effective, Flags, effective, effective_in, options};

pub const FILE_NAME: &str = ".ownerlint.yaml";

/// Where a configured value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Default,
    /// `file:line`
    File(String, usize),
    /// A command-line flag.
    Flag(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(path, line) => write!(f, "{path}:{line}"),
            Origin::Flag(flag) => f.write_str(flag),
        }
    }
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Setting<T> {
    pub fn default(value: T) -> Self {
        Setting {
            value,
            origin: Origin::Default,
        }
    }
}

/// A kind that no CRD in the input declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtraKind {
    pub group: String,
    pub version: Option<String>,
    pub kind: String,
    pub scope: Scope,
}

impl ExtraKind {
    /// The kind as the catalog takes it, like a CRD's declaration.
    pub fn crd_info(&self) -> crate::catalog::CrdInfo {
        crate::catalog::CrdInfo {
            group: self.group.clone(),
            kind: self.kind.clone(),
            scope: Some(self.scope),
            served_versions: self.version.iter().cloned().collect(),
            names: crate::catalog::ResourceNames::default(),
        }
    }
}

/// A configuration file as written: each key is optional, with the line it was set on.
#[derive(Clone, Debug, Default)]
pub struct FileConfig {
    pub path: PathBuf,
    pub rules: Vec<(String, Level, usize)>,
    pub include: Option<(Vec<String>, usize)>,
    pub exclude: Option<(Vec<String>, usize)>,
    pub namespace: Option<(String, usize)>,
    pub mode: Option<(ModeChoice, usize)>,
    pub complete: Option<(bool, usize)>,
    pub kube_version: Option<(KubeVersion, usize)>,
    pub kinds: Vec<(ExtraKind, usize)>,
    pub crds: Option<(Vec<PathBuf>, usize)>,
    pub existing: Option<(Vec<PathBuf>, usize)>,
    pub packs: Vec<(String, usize)>,
    pub policies: Policies,
    pub overrides: Vec<Override>,
    pub builds: Vec<BuildConfig>,
}

pub use crate::analysis::{BuildConfig, kube_release};

/// Rule levels for some files only (`overrides`), as ruff's `per-file-ignores` and ESLint's
/// `overrides`: each glob is relative to the configuration file's folder, or, without a `/`,
/// matches a file name anywhere (as `include` and `exclude`).
#[derive(Clone, Debug, Default)]
pub struct Override {
    pub files: Vec<String>,
    pub rules: Vec<(String, Level, usize)>,
    /// The line of the item.
    pub line: usize,
}

/// A mistake in a configuration file, at its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path, self.line, self.column, self.message
            )
        }
    }
}

/// The configuration file that applies in `start`: the nearest `.ownerlint.yaml` upwards, not
/// above the repository root (the first folder with `.git`).
pub fn discover(start: &Path) -> Option<PathBuf> {
    discover_with(start, &std::collections::HashMap::new())
}

/// [`discover`], where a file open in an editor and not yet saved (in `unsaved`) is found too.
fn discover_with(
    start: &Path,
    unsaved: &std::collections::HashMap<PathBuf, String>,
) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if unsaved.contains_key(&candidate) || candidate.is_file() {
            return Some(candidate);
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Read a configuration file.
pub fn read(path: &Path) -> Result<FileConfig, Vec<ConfigError>> {
    let name = crate::discover::display_path(path);
    let text = crate::read::small_file(path).map_err(|e| {
        vec![ConfigError {
            path: name.clone(),
            line: 0,
            column: 0,
            message: format!("cannot read the configuration: {e}"),
        }]
    })?;
    parse_file(path, &text)
}

/// Parse the text of the configuration file at `path` (as read, or as an editor holds it).
fn parse_file(path: &Path, text: &str) -> Result<FileConfig, Vec<ConfigError>> {
    let name = crate::discover::display_path(path);
    parse(&name, text, path.parent().unwrap_or(Path::new(".")))
}

/// Parse configuration text; relative paths in it are relative to `dir`.
pub fn parse(name: &str, text: &str, dir: &Path) -> Result<FileConfig, Vec<ConfigError>> {
    let source = Source::new(name, text);
    let mut reader = Reader {
        source: &source,
        errors: Vec::new(),
    };
    let mut config = FileConfig {
        path: PathBuf::from(name),
        ..FileConfig::default()
    };
    let chunks = yaml::split_documents(text, 0);
    let mut roots = Vec::new();
    for chunk in chunks {
        match yaml::parse_document(text, chunk, Limits::default()) {
            Ok(document) => roots.extend(document.root),
            Err(err) => {
                reader.error_at(err.offset, format!("not valid YAML: {}", err.message));
            }
        }
    }
    if roots.len() > 1 {
        reader.error(
            &roots[1],
            "the configuration is one YAML document; remove the second",
        );
    }
    if let Some(root) = roots.first() {
        reader.top_level(root, dir, &mut config);
    }
    reader.errors.sort_by_key(|e| (e.line, e.column));
    if reader.errors.is_empty() {
        Ok(config)
    } else {
        Err(reader.errors)
    }
}

/// The repository a configuration file belongs to: the git work tree that holds it, else its
/// own folder (canonical).
struct Repository {
    /// As found (absolute, lexical), and canonical.
    lexical: PathBuf,
    root: PathBuf,
}

impl Repository {
    /// The repository of a configuration file in the folder `dir`.
    fn of(dir: &Path) -> Repository {
        let cwd = std::env::current_dir().unwrap_or_default();
        let dir = crate::read::lexical(&cwd.join(dir));
        let lexical = crate::read::repository_root(&dir).unwrap_or(dir);
        Repository {
            root: std::fs::canonicalize(&lexical).unwrap_or_else(|_| lexical.clone()),
            lexical,
        }
    }

    /// Whether `path`, written in the configuration file in `dir`, stays inside: it is
    /// relative, does not climb out with `..`, and does not lead out through a symbolic link
    /// (a path that does not exist reads nothing).
    fn holds(&self, path: &Path, dir: &Path) -> bool {
        if path.is_absolute() || path.has_root() {
            return false;
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        let joined = crate::read::lexical(&cwd.join(dir).join(path));
        if !joined.starts_with(&self.lexical) {
            return false;
        }
        match std::fs::canonicalize(&joined) {
            Ok(real) => {
                real.starts_with(&self.root)
                    && !["/proc", "/sys", "/dev"]
                        .iter()
                        .any(|system| real.starts_with(system))
            }
            // Not there: nothing is read. A link whose target is missing is still a link out
            // when it is written to lead out.
            Err(_) => !std::fs::symlink_metadata(&joined).is_ok_and(|m| m.is_symlink()),
        }
    }
}

/// " (did you mean `x`?)", or the valid names when none is close.
fn hint(name: &str, valid: &[&str]) -> String {
    did_you_mean(name, valid)
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_else(|| format!(" (expected one of: {})", valid.join(", ")))
}

struct Reader<'a> {
    source: &'a Source,
    errors: Vec<ConfigError>,
}

impl Reader<'_> {
    fn error_at(&mut self, offset: usize, message: impl Into<String>) {
        let at = self.source.line_col(offset);
        self.errors.push(ConfigError {
            path: self.source.name.clone(),
            line: at.line,
            column: at.column,
            message: message.into(),
        });
    }

    fn error(&mut self, node: &Node, message: impl Into<String>) {
        self.error_at(node.span.start, message);
    }

    fn line(&self, node: &Node) -> usize {
        self.source.line_col(node.span.start).line
    }

    /// The entries of a mapping, or an error.
    fn map<'n>(&mut self, node: &'n Node, what: &str) -> &'n [(Node, Node)] {
        match &node.value {
            Value::Map(entries) => entries,
            _ if node.is_null() => &[],
            _ => {
                self.error(
                    node,
                    format!("{what} must be a mapping, not {}", node.describe()),
                );
                &[]
            }
        }
    }

    fn key<'n>(&mut self, key: &'n Node) -> Option<&'n str> {
        match key.as_scalar() {
            Some(s) => Some(s.text.as_str()),
            None => {
                self.error(key, "keys must be plain names");
                None
            }
        }
    }

    /// An unknown name, with the nearest valid one.
    fn unknown(&mut self, node: &Node, name: &str, valid: &[&str], what: &str) {
        self.error(
            node,
            format!("unknown {what} `{name}`{}", hint(name, valid)),
        );
    }

    /// An unknown key inside `place` ("a kind", "an owner").
    fn unknown_key(&mut self, key: &Node, name: &str, valid: &[&str], place: &str) {
        self.error(
            key,
            format!("unknown key `{name}` in {place}{}", hint(name, valid)),
        );
    }

    fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        match node.as_scalar() {
            Some(s) if s.resolve() == ScalarType::String || s.resolve() == ScalarType::Number => {
                Some(s.text.clone())
            }
            _ => {
                self.error(
                    node,
                    format!("{what} must be a string, not {}", node.describe()),
                );
                None
            }
        }
    }

    fn bool(&mut self, node: &Node, what: &str) -> Option<bool> {
        match node.as_scalar().map(|s| s.resolve()) {
            Some(ScalarType::Bool(b)) => Some(b),
            _ => {
                self.error(
                    node,
                    format!("{what} must be true or false, not {}", node.describe()),
                );
                None
            }
        }
    }

    fn strings(&mut self, node: &Node, what: &str) -> Option<Vec<String>> {
        match &node.value {
            Value::Seq(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.string(item, &format!("each entry of {what}"))?);
                }
                Some(out)
            }
            // A single string is a list of one.
            Value::Scalar(_) if !node.is_null() => self.string(node, what).map(|s| vec![s]),
            _ => {
                self.error(
                    node,
                    format!("{what} must be a list of strings, not {}", node.describe()),
                );
                None
            }
        }
    }

    /// A list of paths, relative to `dir` (the configuration file's folder), each of which
    /// must stay inside the repository that holds the file: a repository's configuration names
    /// its own files, and a path that leads elsewhere (`/proc/self/environ`, `../../..`, a
    /// symbolic link out) would have its contents read and shown.
    fn paths(&mut self, node: &Node, what: &str, dir: &Path) -> Option<Vec<PathBuf>> {
        let list = self.strings(node, what)?;
        let items: Vec<&Node> = match &node.value {
            Value::Seq(items) => items.iter().collect(),
            _ => vec![node],
        };
        let repository = Repository::of(dir);
        let mut paths = Vec::new();
        for (written, item) in list.into_iter().zip(items) {
            let path = PathBuf::from(&written);
            if !repository.holds(&path, dir) {
                let quoted = serde_json::to_string(&written).unwrap_or(written);
                self.error(
                    item,
                    format!(
                        "{what}: {quoted} is outside the repository ({}); paths in the configuration file must stay inside it — name such a path on the command line (--{what}) instead",
                        repository.root.display()
                    ),
                );
                continue;
            }
            paths.push(match dir.as_os_str().is_empty() {
                true => path,
                false => dir.join(path),
            });
        }
        Some(paths)
    }

    fn top_level(&mut self, root: &Node, dir: &Path, config: &mut FileConfig) {
        for (key, value) in self.map(root, "the configuration") {
            let Some(name) = self.key(key) else { continue };
            let line = self.line(key);
            match name {
                "rules" => self.rules(value, config),
                "include" => config.include = self.strings(value, "include").map(|v| (v, line)),
                "exclude" => config.exclude = self.strings(value, "exclude").map(|v| (v, line)),
                "namespace" => {
                    config.namespace = self.string(value, "namespace").map(|v| (v, line));
                }
                "mode" => {
                    if let Some(text) = self.string(value, "mode") {
                        match ModeChoice::parse(&text) {
                            Some(mode) => config.mode = Some((mode, line)),
                            None => self.unknown(value, &text, &ModeChoice::NAMES, "mode"),
                        }
                    }
                }
                "complete" => config.complete = self.bool(value, "complete").map(|v| (v, line)),
                "kube-version" => {
                    if let Some(text) = self.string(value, "kube-version") {
                        match KubeVersion::parse(&text) {
                            Some(v) if v.unknown_because().is_some() => self.error(
                                value,
                                format!("kube-version {}", v.unknown_because().unwrap_or_default()),
                            ),
                            Some(v) => config.kube_version = Some((v, line)),
                            None => self.error(
                                value,
                                format!(
                                    "kube-version must be a release like \"1.34\", not \"{text}\""
                                ),
                            ),
                        }
                    }
                }
                "kinds" => self.kinds(value, config),
                "crds" => config.crds = self.paths(value, "crds", dir).map(|v| (v, line)),
                "existing" => {
                    config.existing = self.paths(value, "existing", dir).map(|v| (v, line))
                }
                "context" => self.error(
                    key,
                    "`context` is now `existing`: the objects that already exist, \
                     e.g. a dump of the target cluster"
                        .to_string(),
                ),
                "packs" => self.packs(value, config),
                "overrides" => self.overrides(value, config),
                "builds" => self.builds(value, dir, config),
                "policies" => {
                    let origin_file = self.source.name.clone();
                    let policies = self.policies(value, &|line| format!("{origin_file}:{line}"));
                    config
                        .policies
                        .required_owner
                        .extend(policies.required_owner);
                    config
                        .policies
                        .tracking_label_required
                        .extend(policies.tracking_label_required);
                }
                "$schema" => {}
                "allow-remote-bases" | "allowRemoteBases" | "allow_remote_bases" => self.error(
                    key,
                    format!(
                        "`{name}` is not a setting of the configuration file: remote bases are \
                         fetched only when the command line says so ({}), never because a \
                         repository asks",
                        crate::build::ALLOW_REMOTE_FLAG
                    ),
                ),
                other => {
                    let names: Vec<&str> = schema::names(schema::SCHEMA)
                        .into_iter()
                        .filter(|name| *name != "$schema")
                        .collect();
                    self.unknown(key, other, &names, "key")
                }
            }
        }
    }

    fn packs(&mut self, node: &Node, config: &mut FileConfig) {
        let names = crate::policy::pack_names();
        let items = match &node.value {
            Value::Seq(items) => items.as_slice(),
            _ => {
                self.error(
                    node,
                    format!(
                        "packs must be a list of pack names, not {}",
                        node.describe()
                    ),
                );
                return;
            }
        };
        for item in items {
            let Some(pack) = self.string(item, "each pack") else {
                continue;
            };
            if names.contains(&pack.as_str()) {
                let line = self.line(item);
                config.packs.push((pack, line));
            } else {
                self.unknown(item, &pack, &names, "pack");
            }
        }
    }

    fn overrides(&mut self, node: &Node, config: &mut FileConfig) {
        let Value::Seq(items) = &node.value else {
            if !node.is_null() {
                self.error(
                    node,
                    format!(
                        "overrides must be a list of {{files, rules}}, not {}",
                        node.describe()
                    ),
                );
            }
            return;
        };
        for item in items {
            let mut files = None;
            let mut rules = None;
            for (key, value) in self.map(item, "each override") {
                let Some(name) = self.key(key) else { continue };
                match name {
                    "files" => {
                        files = self.strings(value, "files");
                        if let Some(globs) = &files {
                            for glob in globs {
                                if let Err(e) = globset::Glob::new(glob) {
                                    self.error(
                                        value,
                                        format!("files: `{glob}` is not a glob: {}", e.kind()),
                                    );
                                }
                            }
                        }
                    }
                    "rules" => rules = Some(self.rule_levels(value)),
                    other => {
                        let valid = schema::names(schema::OVERRIDE);
                        self.unknown_key(key, other, &valid, "an override");
                    }
                }
            }
            match (files, rules) {
                (Some(files), Some(rules)) if !files.is_empty() => {
                    config.overrides.push(Override {
                        files,
                        rules,
                        line: self.line(item),
                    })
                }
                (Some(_), Some(_)) => {
                    self.error(item, "an override needs at least one glob in `files`")
                }
                (None, _) => self.error(item, "an override needs `files`: the globs it applies to"),
                (_, None) => self.error(item, "an override needs `rules`: the levels it sets"),
            }
        }
    }

    fn builds(&mut self, node: &Node, dir: &Path, config: &mut FileConfig) {
        let Value::Seq(items) = &node.value else {
            if !node.is_null() {
                self.error(
                    node,
                    format!("builds must be a list of builds, not {}", node.describe()),
                );
            }
            return;
        };
        for item in items {
            let errors_before = self.errors.len();
            let mut build = BuildConfig {
                file: PathBuf::from(&self.source.name),
                line: self.line(item),
                ..BuildConfig::default()
            };
            let mut path = None;
            for (key, value) in self.map(item, "each build") {
                let Some(name) = self.key(key) else { continue };
                match name {
                    "path" => path = self.build_path(value, dir),
                    "values" => build.values = self.paths(value, "values", dir).unwrap_or_default(),
                    "set" => build.set = self.strings(value, "set").unwrap_or_default(),
                    "release-name" => build.release_name = self.string(value, "release-name"),
                    "namespace" => build.namespace = self.string(value, "namespace"),
                    "kube-version" => {
                        let text = self.string(value, "kube-version").unwrap_or_default();
                        match KubeVersion::parse(&text) {
                            Some(v) if v.unknown_because().is_none() => {
                                build.kube_version = Some(format!("v{}.{}.0", v.major, v.minor));
                            }
                            _ => self.error(
                                value,
                                format!(
                                    "kube-version must be a release like \"1.34\", not \"{text}\""
                                ),
                            ),
                        }
                    }
                    other => {
                        let valid = schema::names(schema::BUILD);
                        self.unknown_key(key, other, &valid, "a build");
                    }
                }
            }
            match path {
                Some(path) if self.errors.len() == errors_before => {
                    build.path = path;
                    config.builds.push(build);
                }
                Some(_) => {}
                None if self.errors.len() == errors_before => {
                    self.error(
                        item,
                        "a build needs `path`: the chart's or overlay's folder",
                    );
                }
                None => {}
            }
        }
    }

    /// The folder of a build: inside the repository, and a chart or an overlay.
    fn build_path(&mut self, node: &Node, dir: &Path) -> Option<PathBuf> {
        let written = self.string(node, "path")?;
        let path = PathBuf::from(&written);
        let repository = Repository::of(dir);
        if !repository.holds(&path, dir) {
            self.error(
                node,
                format!(
                    "path: {written:?} is outside the repository ({}); a build's folder must be inside it",
                    repository.root.display()
                ),
            );
            return None;
        }
        let path = match dir.as_os_str().is_empty() {
            true => path,
            false => dir.join(path),
        };
        let is_build = [
            "Chart.yaml",
            "kustomization.yaml",
            "kustomization.yml",
            "Kustomization",
        ]
        .iter()
        .any(|file| path.join(file).is_file());
        if !is_build {
            self.error(
                node,
                format!(
                    "path: {written:?} is not a chart or an overlay (no Chart.yaml or kustomization.yaml in it)"
                ),
            );
            return None;
        }
        Some(path)
    }

    fn rules(&mut self, node: &Node, config: &mut FileConfig) {
        let levels = self.rule_levels(node);
        config.rules.extend(levels);
    }

    /// A mapping of rule id to level, each with its line.
    fn rule_levels(&mut self, node: &Node) -> Vec<(String, Level, usize)> {
        let mut levels = Vec::new();
        let ids: Vec<&str> = crate::rules::all_ids();
        for (key, value) in self.map(node, "rules") {
            let Some(id) = self.key(key) else { continue };
            if !ids.contains(&id) {
                self.unknown(key, id, &ids, "rule");
                continue;
            }
            // `off` unquoted is the boolean false in YAML 1.1, as Kubernetes' reader types it.
            let level = if value.as_scalar().map(|s| s.resolve()) == Some(ScalarType::Bool(false)) {
                "off".to_string()
            } else {
                let Some(level) = self.string(value, "a rule's level") else {
                    continue;
                };
                level
            };
            let level = match Level::parse(&level) {
                Some(level) => level,
                None => {
                    let names = ["off", "info", "warning", "error"];
                    self.unknown(value, &level, &names, "level");
                    continue;
                }
            };
            let line = self.line(key);
            levels.push((id.to_string(), level, line));
        }
        levels
    }

    fn kinds(&mut self, node: &Node, config: &mut FileConfig) {
        let Value::Seq(items) = &node.value else {
            self.error(
                node,
                format!("kinds must be a list, not {}", node.describe()),
            );
            return;
        };
        for item in items {
            let errors_before = self.errors.len();
            let mut group = None;
            let mut version = None;
            let mut kind = None;
            let mut scope = None;
            for (key, value) in self.map(item, "each kind") {
                let Some(name) = self.key(key) else { continue };
                match name {
                    "group" => group = self.string(value, "group"),
                    "version" => version = self.string(value, "version"),
                    "kind" => kind = self.string(value, "kind"),
                    "scope" => {
                        if let Some(text) = self.string(value, "scope") {
                            match Scope::parse(&text) {
                                Some(s) => scope = Some(s),
                                None => self.unknown(value, &text, &Scope::NAMES, "scope"),
                            }
                        }
                    }
                    other => self.unknown_key(key, other, &schema::names(schema::KIND), "a kind"),
                }
            }
            match (kind, scope) {
                (Some(kind), Some(scope)) => config.kinds.push((
                    ExtraKind {
                        group: group.unwrap_or_default(),
                        version,
                        kind,
                        scope,
                    },
                    self.line(item),
                )),
                // A mistake already reported explains the missing field.
                _ if self.errors.len() > errors_before => {}
                _ => self.error(item, "each kind needs `kind` and `scope` (and `group` unless it is in the core group)"),
            }
        }
    }

    fn owner_kind(&mut self, node: &Node) -> Option<OwnerKind> {
        let errors_before = self.errors.len();
        let mut group = None;
        let mut kind = None;
        let mut controller = None;
        for (key, value) in self.map(node, "an owner") {
            let Some(name) = self.key(key) else { continue };
            match name {
                "group" => group = self.string(value, "group"),
                "kind" => kind = self.string(value, "kind"),
                "controller" => controller = self.bool(value, "controller"),
                other => self.unknown_key(key, other, &schema::names(schema::OWNER), "an owner"),
            }
        }
        match kind {
            Some(kind) => Some(OwnerKind {
                group,
                kind,
                controller,
            }),
            None if self.errors.len() > errors_before => None,
            None => {
                self.error(node, "an owner needs `kind`");
                None
            }
        }
    }

    /// The `policies` mapping; `origin` names where a policy on a given line was declared.
    fn policies(&mut self, node: &Node, origin: &dyn Fn(usize) -> String) -> Policies {
        let mut policies = Policies::default();
        for (key, value) in self.map(node, "policies") {
            let Some(name) = self.key(key) else { continue };
            let Value::Seq(items) = &value.value else {
                self.error(
                    value,
                    format!(
                        "{name} must be a list of policies, not {}",
                        value.describe()
                    ),
                );
                continue;
            };
            match name {
                "required-owner" => {
                    for item in items {
                        if let Some(p) = self.required_owner(item, origin) {
                            policies.required_owner.push(p);
                        }
                    }
                }
                "tracking-label-required" => {
                    for item in items {
                        if let Some(p) = self.tracking_label(item, origin) {
                            policies.tracking_label_required.push(p);
                        }
                    }
                }
                other => self.unknown(key, other, &schema::names(schema::POLICIES), "policy"),
            }
        }
        policies
    }

    fn required_owner(
        &mut self,
        node: &Node,
        origin: &dyn Fn(usize) -> String,
    ) -> Option<RequiredOwner> {
        let errors_before = self.errors.len();
        let mut group = None;
        let mut kind = None;
        let mut owners = Vec::new();
        let mut controller = None;
        for (key, value) in self.map(node, "a required-owner policy") {
            let Some(name) = self.key(key) else { continue };
            match name {
                "group" => group = self.string(value, "group"),
                "kind" => kind = self.string(value, "kind"),
                "owners" => match &value.value {
                    Value::Seq(items) => {
                        for item in items {
                            owners.extend(self.owner_kind(item));
                        }
                    }
                    _ => self.error(
                        value,
                        format!("owners must be a list, not {}", value.describe()),
                    ),
                },
                "controller" => controller = self.bool(value, "controller"),
                other => self.unknown_key(
                    key,
                    other,
                    &schema::names(schema::REQUIRED_OWNER),
                    "a required-owner policy",
                ),
            }
        }
        match kind {
            Some(kind) if !owners.is_empty() => Some(RequiredOwner {
                group,
                kind,
                owners,
                controller,
                origin: origin(self.line(node)),
            }),
            _ if self.errors.len() > errors_before => None,
            _ => {
                self.error(
                    node,
                    "a required-owner policy needs `kind` and a non-empty `owners` list",
                );
                None
            }
        }
    }

    fn tracking_label(
        &mut self,
        node: &Node,
        origin: &dyn Fn(usize) -> String,
    ) -> Option<TrackingLabel> {
        let errors_before = self.errors.len();
        let mut kinds = None;
        let mut label = None;
        let mut owner = None;
        let mut namespace_label = None;
        for (key, value) in self.map(node, "a tracking-label-required policy") {
            let Some(name) = self.key(key) else { continue };
            match name {
                "kinds" => kinds = self.strings(value, "kinds"),
                "label" => label = self.string(value, "label"),
                "owner" => owner = self.owner_kind(value),
                "namespace-label" => namespace_label = self.string(value, "namespace-label"),
                other => self.unknown_key(
                    key,
                    other,
                    &schema::names(schema::TRACKING_LABEL),
                    "a tracking-label-required policy",
                ),
            }
        }
        match (kinds, label) {
            (Some(kinds), Some(label)) if !kinds.is_empty() => Some(TrackingLabel {
                kinds,
                label,
                owner,
                namespace_label,
                origin: origin(self.line(node)),
            }),
            _ if self.errors.len() > errors_before => None,
            _ => {
                self.error(
                    node,
                    "a tracking-label-required policy needs `kinds` and `label`",
                );
                None
            }
        }
    }
}

/// Parse a pack's text: a document with a `policies` mapping (and an optional `description`).
pub fn parse_pack(name: &str, text: &str) -> Result<Policies, Vec<ConfigError>> {
    let source = Source::new(format!("pack {name}"), text);
    let mut reader = Reader {
        source: &source,
        errors: Vec::new(),
    };
    let mut policies = Policies::default();
    for chunk in yaml::split_documents(text, 0) {
        match yaml::parse_document(text, chunk, Limits::default()) {
            Ok(document) => {
                let Some(root) = document.root else { continue };
                for (key, value) in reader.map(&root, "a pack") {
                    match key.as_scalar().map(|s| s.text.as_str()) {
                        Some("policies") => {
                            let origin = |_line: usize| format!("pack {name}");
                            let p = reader.policies(value, &origin);
                            policies.required_owner.extend(p.required_owner);
                            policies
                                .tracking_label_required
                                .extend(p.tracking_label_required);
                        }
                        Some("description") => {}
                        Some(other) => {
                            reader.unknown_key(key, other, &["description", "policies"], "a pack")
                        }
                        None => reader.error(key, "keys must be plain names"),
                    }
                }
            }
            Err(err) => reader.error_at(err.offset, format!("not valid YAML: {}", err.message)),
        }
    }
    if reader.errors.is_empty() {
        Ok(policies)
    } else {
        Err(reader.errors)
    }
}

/// The policies of a bundled pack.
pub fn pack_policies(name: &str) -> Result<Policies, Vec<ConfigError>> {
    let text = crate::policy::pack(name).ok_or_else(|| {
        vec![ConfigError {
            path: format!("pack {name}"),
            line: 0,
            column: 0,
            message: format!(
                "no pack `{name}` (bundled: {})",
                crate::policy::pack_names().join(", ")
            ),
        }]
    })?;
    parse_pack(name, text)
}
