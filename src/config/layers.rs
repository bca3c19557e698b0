//! Layering: defaults, then the configuration file, then the command line, keeping where each
//! value came from (for `ownerlint config`). The command line arrives as plain [`Flags`], so
//! this module knows nothing of clap. [`options`] makes a run's whole [`Options`] from them:
//! the command line and the language server both take theirs from it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{ConfigError, ExtraKind, FileConfig, Level, Origin, Setting};
use crate::analysis::Options;
use crate::catalog::KubeVersion;
use crate::load::ModeChoice;
use crate::policy::Policies;

/// What the command line set: `None` or empty where a flag was not given. The defaults are a
/// run with no flag, as the language server runs.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// What to read (`.` when none is named, unless `git_deletions`).
    pub paths: Vec<PathBuf>,
    pub project: Vec<PathBuf>,
    pub git_deletions: bool,
    pub limits: crate::yaml::Limits,
    pub config: Option<PathBuf>,
    pub no_config: bool,
    pub namespace: Option<String>,
    pub mode: Option<ModeChoice>,
    pub complete: bool,
    pub kube_version: Option<KubeVersion>,
    pub crds: Vec<PathBuf>,
    pub existing: Vec<PathBuf>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// Read charts and overlays file by file rather than build them.
    pub no_render: bool,
    pub release_name: Option<String>,
    pub values: Vec<PathBuf>,
    pub set: Vec<String>,
    pub render_timeout: Option<Duration>,
    /// Let kustomize fetch remote bases: a flag only, which no configuration file sets.
    pub allow_remote_bases: bool,
}

/// The options of a run: flags over the configuration file over defaults, each with its origin.
pub struct Effective {
    pub file: Option<PathBuf>,
    pub namespace: Setting<String>,
    pub mode: Setting<ModeChoice>,
    pub complete: Setting<bool>,
    pub kube_version: Setting<Option<KubeVersion>>,
    pub include: Setting<Vec<String>>,
    pub exclude: Setting<Vec<String>>,
    pub crds: Setting<Vec<PathBuf>>,
    pub existing: Setting<Vec<PathBuf>>,
    pub levels: Vec<(String, Level, Origin)>,
    pub kinds: Vec<(ExtraKind, Origin)>,
    pub packs: Vec<(String, Origin)>,
    pub policies: Policies,
    /// Rule levels for some files only, from the configuration file.
    pub overrides: Vec<(crate::config::Override, Origin)>,
    /// Charts and overlays built with settings of their own, from the configuration file.
    pub builds: Vec<crate::config::BuildConfig>,
    /// Whether charts and overlays are built (else read file by file), and how.
    pub render: Setting<bool>,
    pub release_name: Setting<String>,
    pub values: Setting<Vec<PathBuf>>,
    pub set: Setting<Vec<String>>,
    pub render_timeout: Setting<Duration>,
    pub allow_remote_bases: Setting<bool>,
}

/// A setting only the command line sets: the flag's value, or the default.
fn flag_or_default<T>(flag: Option<T>, flag_name: &'static str, default: T) -> Setting<T> {
    match flag {
        Some(value) => Setting {
            value,
            origin: Origin::Flag(flag_name),
        },
        None => Setting::default(default),
    }
}

/// The options of a run: `flags` over the configuration found for `dir` (or given with
/// `--config`) over the defaults. An editor's unsaved text of the configuration file, in
/// `unsaved` by path, is read in place of the file.
pub fn options(
    flags: &Flags,
    dir: Option<&Path>,
    unsaved: &HashMap<PathBuf, String>,
) -> Result<Options, Vec<ConfigError>> {
    Ok(effective_with(flags, dir, unsaved)?.into_options(flags))
}

fn pick<T>(
    flag: Option<T>,
    flag_name: &'static str,
    file: Option<(T, usize)>,
    path: &str,
    default: T,
) -> Setting<T> {
    match (flag, file) {
        (Some(value), _) => Setting {
            value,
            origin: Origin::Flag(flag_name),
        },
        (None, Some((value, line))) => Setting {
            value,
            origin: Origin::File(path.to_string(), line),
        },
        (None, None) => Setting::default(default),
    }
}

fn non_empty<T>(values: &[T]) -> Option<Vec<T>>
where
    T: Clone,
{
    (!values.is_empty()).then(|| values.to_vec())
}

/// Read the configuration file (given or discovered from the working directory) and lay the
/// flags over it.
pub fn effective(args: &Flags) -> Result<Effective, Vec<ConfigError>> {
    let cwd = std::env::current_dir().ok();
    effective_in(args, cwd.as_deref())
}

/// [`effective`], with the configuration file discovered from `dir` (a folder an editor has
/// open) rather than from the working directory.
pub fn effective_in(args: &Flags, dir: Option<&Path>) -> Result<Effective, Vec<ConfigError>> {
    effective_with(args, dir, &HashMap::new())
}

/// [`effective_in`], with the texts of `unsaved` in place of the files at their paths.
fn effective_with(
    args: &Flags,
    dir: Option<&Path>,
    unsaved: &HashMap<PathBuf, String>,
) -> Result<Effective, Vec<ConfigError>> {
    let path = if args.no_config {
        None
    } else {
        match &args.config {
            Some(path) => Some(path.clone()),
            None => dir.and_then(|dir| super::discover_with(dir, unsaved)),
        }
    };
    let file = match &path {
        Some(path) => match unsaved.get(path) {
            Some(text) => super::parse_file(path, text)?,
            None => super::read(path)?,
        },
        None => FileConfig::default(),
    };
    let name = path
        .as_deref()
        .map(crate::discover::display_path)
        .unwrap_or_default();
    let mut policies = file.policies.clone();
    let mut errors = Vec::new();
    for (pack, _) in &file.packs {
        match super::pack_policies(pack) {
            Ok(p) => {
                policies.required_owner.extend(p.required_owner);
                policies
                    .tracking_label_required
                    .extend(p.tracking_label_required);
            }
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let at = |line: usize| Origin::File(name.clone(), line);
    Ok(Effective {
        namespace: pick(
            args.namespace.clone(),
            "--namespace",
            file.namespace,
            &name,
            "default".to_string(),
        ),
        mode: pick(args.mode, "--mode", file.mode, &name, ModeChoice::Auto),
        complete: pick(
            args.complete.then_some(true),
            "--complete",
            file.complete,
            &name,
            false,
        ),
        kube_version: pick(
            args.kube_version.map(Some),
            "--kube-version",
            file.kube_version.map(|(v, l)| (Some(v), l)),
            &name,
            None,
        ),
        include: pick(
            non_empty(&args.include),
            "--include",
            file.include,
            &name,
            Vec::new(),
        ),
        exclude: pick(
            non_empty(&args.exclude),
            "--exclude",
            file.exclude,
            &name,
            Vec::new(),
        ),
        crds: pick(
            non_empty(&args.crds),
            "--crds",
            file.crds,
            &name,
            Vec::new(),
        ),
        existing: pick(
            non_empty(&args.existing),
            "--existing",
            file.existing,
            &name,
            Vec::new(),
        ),
        levels: file
            .rules
            .iter()
            .map(|(r, l, line)| (r.clone(), *l, at(*line)))
            .collect(),
        kinds: file
            .kinds
            .iter()
            .map(|(k, line)| (k.clone(), at(*line)))
            .collect(),
        packs: file
            .packs
            .iter()
            .map(|(p, line)| (p.clone(), at(*line)))
            .collect(),
        policies,
        overrides: file
            .overrides
            .iter()
            .map(|o| (o.clone(), at(o.line)))
            .collect(),
        builds: file.builds.clone(),
        file: path,
        render: Setting {
            value: !args.no_render,
            origin: match args.no_render {
                true => Origin::Flag("--no-render"),
                false => Origin::Default,
            },
        },
        release_name: flag_or_default(
            args.release_name.clone(),
            "--release-name",
            crate::build::BuildOptions::default().release,
        ),
        values: flag_or_default(non_empty(&args.values), "--values", Vec::new()),
        set: flag_or_default(non_empty(&args.set), "--set", Vec::new()),
        render_timeout: flag_or_default(
            args.render_timeout,
            "--render-timeout",
            crate::analysis::DEFAULT_BUILD_TIMEOUT,
        ),
        allow_remote_bases: flag_or_default(
            args.allow_remote_bases.then_some(true),
            crate::build::ALLOW_REMOTE_FLAG,
            false,
        ),
    })
}

/// A rule's severity when the configuration sets none, and how it came about: the default, the
/// default under `--complete`, or the default with the findings that take another.
fn default_level(rule: &crate::finding::RuleMeta, complete: bool) -> (String, String) {
    match (rule.complete_severity, rule.severity_varies) {
        (Some(severity), _) if complete => {
            (severity.to_string(), "default for a complete input".into())
        }
        (complete_severity, varies) => {
            let mut notes: Vec<String> = varies.into_iter().map(str::to_string).collect();
            notes.extend(complete_severity.map(|s| format!("{s} for a complete input")));
            let origin = if notes.is_empty() {
                "default".to_string()
            } else {
                format!("default; {}", notes.join("; "))
            };
            (rule.default_severity.to_string(), origin)
        }
    }
}

impl Effective {
    /// The options of a run with `flags`, as configured.
    fn into_options(self, flags: &Flags) -> Options {
        // With --git-deletions and no path, the change deletes files only: nothing else is
        // linted.
        let paths = match flags.paths.is_empty() && !flags.git_deletions {
            true => vec![PathBuf::from(".")],
            false => flags.paths.clone(),
        };
        let build = self.render.value.then_some(crate::build::BuildOptions {
            release: self.release_name.value,
            values: self.values.value,
            set: self.set.value,
            set_string: Vec::new(),
            timeout: self.render_timeout.value,
            allow_remote_bases: self.allow_remote_bases.value,
        });
        // Globs from the configuration file are relative to its folder, wherever ownerlint runs.
        let config_dir = self.file.as_deref().map(|file| match file.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        });
        let base = |origin: &Origin| match origin {
            Origin::File(..) => config_dir.clone(),
            _ => None,
        };
        Options {
            paths,
            include_base: base(&self.include.origin),
            exclude_base: base(&self.exclude.origin),
            include: self.include.value,
            exclude: self.exclude.value,
            namespace: self.namespace.value,
            mode: self.mode.value,
            complete: self.complete.value,
            kube_version: self.kube_version.value,
            crds: self.crds.value,
            existing: self.existing.value,
            project: flags.project.clone(),
            limits: flags.limits,
            levels: self.levels.into_iter().map(|(r, l, _)| (r, l)).collect(),
            builds: self.builds.clone(),
            overrides: self
                .overrides
                .iter()
                .map(|(o, _)| crate::analysis::PathLevels {
                    files: o.files.clone(),
                    base: config_dir.clone().unwrap_or_else(|| PathBuf::from(".")),
                    levels: o.rules.iter().map(|(r, l, _)| (r.clone(), *l)).collect(),
                })
                .collect(),
            kinds: self.kinds.iter().map(|(k, _)| k.crd_info()).collect(),
            policies: self.policies,
            no_suppress: false,
            full_parse: false,
            big_file_at_least: Some(crate::analysis::BIG_FILE),
            build,
            git_deletions: flags.git_deletions,
            not_read: Vec::new(),
        }
    }
}

impl Effective {
    /// The effective configuration as `ownerlint config` prints it.
    pub fn commented_yaml(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let file = self
            .file
            .as_deref()
            .map_or("none".to_string(), crate::discover::display_path);
        let _ = writeln!(out, "# configuration file: {file}");
        // Each line with the comment that says where its value came from; the comments are
        // aligned once every line is known.
        let mut lines: Vec<(String, Option<String>)> = Vec::new();
        let mut line = |key: &str, value: String, origin: &Origin| {
            lines.push((format!("{key}: {value}"), Some(origin.to_string())));
        };
        let list = |v: &[String]| {
            let items: Vec<String> = v.iter().map(|s| yaml_scalar(s)).collect();
            format!("[{}]", items.join(", "))
        };
        let paths = |v: &[PathBuf]| {
            list(
                &v.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>(),
            )
        };
        line(
            "namespace",
            yaml_scalar(&self.namespace.value),
            &self.namespace.origin,
        );
        line(
            "mode",
            self.mode.value.as_str().to_string(),
            &self.mode.origin,
        );
        line(
            "complete",
            self.complete.value.to_string(),
            &self.complete.origin,
        );
        let kube = self.kube_version.value.map_or_else(
            || format!("\"{}\"", crate::catalog::Catalog::builtin().kube_version),
            |v| format!("\"{v}\""),
        );
        line("kube-version", kube, &self.kube_version.origin);
        line("include", list(&self.include.value), &self.include.origin);
        line("exclude", list(&self.exclude.value), &self.exclude.origin);
        line("crds", paths(&self.crds.value), &self.crds.origin);
        line(
            "existing",
            paths(&self.existing.value),
            &self.existing.origin,
        );
        // The builds are set on the command line only: shown as comments, so that the output
        // still reads as a configuration file.
        lines.push((
            "# charts and overlays (command-line flags, not settings of this file):".to_string(),
            None,
        ));
        let mut build = |key: &str, value: String, origin: String| {
            lines.push((format!("#   {key}: {value}"), Some(origin)));
        };
        build(
            "render",
            self.render.value.to_string(),
            self.render.origin.to_string(),
        );
        let program = |found: Option<PathBuf>, then: &str| match found {
            Some(path) => (format!("{}{then}", path.display()), "found on PATH".into()),
            None => ("none".to_string(), "not on PATH".to_string()),
        };
        let (helm, origin) = program(crate::build::helm_program(), "");
        build("helm", helm, origin);
        let kustomize = crate::build::kustomize_program();
        let then = match kustomize.as_deref().and_then(Path::file_stem) {
            Some(stem) if stem == "kubectl" => " kustomize",
            _ => " build",
        };
        let (kustomize, origin) = program(kustomize, then);
        build("kustomize", kustomize, origin);
        build(
            "release-name",
            yaml_scalar(&self.release_name.value),
            self.release_name.origin.to_string(),
        );
        build(
            "values",
            paths(&self.values.value),
            self.values.origin.to_string(),
        );
        build("set", list(&self.set.value), self.set.origin.to_string());
        build(
            "render-timeout",
            format!("{}s", self.render_timeout.value.as_secs()),
            self.render_timeout.origin.to_string(),
        );
        build(
            "allow-remote-bases",
            self.allow_remote_bases.value.to_string(),
            self.allow_remote_bases.origin.to_string(),
        );
        lines.push(("rules:".to_string(), None));
        for rule in crate::rules::RULES {
            let id = rule.meta.id;
            let (level, origin) = match self.levels.iter().rev().find(|(r, _, _)| r == id) {
                Some((_, level, origin)) => (level.to_string(), origin.to_string()),
                None => default_level(rule.meta, self.complete.value),
            };
            lines.push((format!("  {id}: {level}"), Some(origin)));
        }
        if !self.builds.is_empty() {
            lines.push(("builds:".to_string(), None));
            for build in &self.builds {
                let origin = format!("{}:{}", crate::read::display_path(&build.file), build.line);
                // Relative to the file's folder, as the file says them.
                let folder = build.file.parent().unwrap_or(Path::new(""));
                let written = |path: &Path| {
                    crate::read::display_path(path.strip_prefix(folder).unwrap_or(path))
                };
                lines.push((
                    format!("  - path: {}", yaml_scalar(&written(&build.path))),
                    Some(origin),
                ));
                let list = |items: Vec<String>| {
                    let items: Vec<String> = items.iter().map(|i| yaml_scalar(i)).collect();
                    format!("[{}]", items.join(", "))
                };
                if !build.values.is_empty() {
                    let values = build.values.iter().map(|v| written(v));
                    lines.push((format!("    values: {}", list(values.collect())), None));
                }
                if !build.set.is_empty() {
                    lines.push((format!("    set: {}", list(build.set.clone())), None));
                }
                for (what, value) in [
                    ("release-name", &build.release_name),
                    ("namespace", &build.namespace),
                ] {
                    if let Some(value) = value {
                        lines.push((format!("    {what}: {}", yaml_scalar(value)), None));
                    }
                }
                if let Some(version) = &build.kube_version {
                    // Shown as the file takes it: "1.33" for helm's v1.33.0.
                    let release = crate::config::kube_release(version);
                    lines.push((format!("    kube-version: \"{release}\""), None));
                }
            }
        }
        if !self.overrides.is_empty() {
            lines.push(("overrides:".to_string(), None));
            for (o, origin) in &self.overrides {
                let files: Vec<String> = o.files.iter().map(|f| yaml_scalar(f)).collect();
                lines.push((
                    format!("  - files: [{}]", files.join(", ")),
                    Some(origin.to_string()),
                ));
                lines.push(("    rules:".to_string(), None));
                for (id, level, _) in &o.rules {
                    lines.push((format!("      {id}: {level}"), None));
                }
            }
        }
        if !self.kinds.is_empty() {
            lines.push(("kinds:".to_string(), None));
            for (kind, origin) in &self.kinds {
                let scope = kind.scope.as_str();
                lines.push((
                    format!(
                        "  - {{group: {}, kind: {}, scope: {scope}}}",
                        yaml_scalar(&kind.group),
                        yaml_scalar(&kind.kind)
                    ),
                    Some(origin.to_string()),
                ));
            }
        }
        if !self.packs.is_empty() {
            lines.push(("packs:".to_string(), None));
            for (pack, origin) in &self.packs {
                lines.push((
                    format!("  - {}", yaml_scalar(&pack.to_string())),
                    Some(origin.to_string()),
                ));
            }
        }
        let required = &self.policies.required_owner;
        let tracking = &self.policies.tracking_label_required;
        if !required.is_empty() || !tracking.is_empty() {
            lines.push(("policies:".to_string(), None));
            if !required.is_empty() {
                lines.push(("  required-owner:".to_string(), None));
                for p in required {
                    let owners: Vec<String> = p.owners.iter().map(owner_kind).collect();
                    let mut fields = group_and_kind(p.group.as_deref(), &p.kind);
                    fields.push(format!("owners: [{}]", owners.join(", ")));
                    fields.extend(p.controller.map(|c| format!("controller: {c}")));
                    lines.push((
                        format!("    - {{{}}}", fields.join(", ")),
                        Some(p.origin.clone()),
                    ));
                }
            }
            if !tracking.is_empty() {
                lines.push(("  tracking-label-required:".to_string(), None));
                for p in tracking {
                    let kinds: Vec<String> = p.kinds.iter().map(|k| yaml_scalar(k)).collect();
                    let mut fields = vec![
                        format!("kinds: [{}]", kinds.join(", ")),
                        format!("label: {}", yaml_scalar(&p.label)),
                    ];
                    fields.extend(
                        p.owner
                            .as_ref()
                            .map(|o| format!("owner: {}", owner_kind(o))),
                    );
                    fields.extend(
                        p.namespace_label
                            .as_ref()
                            .map(|l| format!("namespace-label: {}", yaml_scalar(l))),
                    );
                    lines.push((
                        format!("    - {{{}}}", fields.join(", ")),
                        Some(p.origin.clone()),
                    ));
                }
            }
        }
        // Comments start in one column, after the longest line; a line too long for it (a
        // policy in flow style) has its comment one space after it. The commented lines of
        // the builds (paths of this machine's programs) do not move the column.
        let width = lines
            .iter()
            .filter(|(text, origin)| origin.is_some() && !text.starts_with('#'))
            .map(|(text, _)| text.chars().count())
            .filter(|&n| n <= COMMENT_COLUMN_AT_MOST)
            .max()
            .unwrap_or(0)
            .max(39)
            + 1;
        for (text, origin) in lines {
            match origin {
                Some(origin) if text.chars().count() < width => {
                    let _ = writeln!(out, "{text:<width$}# {origin}");
                }
                Some(origin) => {
                    let _ = writeln!(out, "{text} # {origin}");
                }
                None => {
                    let _ = writeln!(out, "{text}");
                }
            }
        }
        out
    }
}

/// The furthest column the comments of `ownerlint config` are aligned at.
const COMMENT_COLUMN_AT_MOST: usize = 60;

/// `{group: g, kind: K}` fields, the group only when there is one.
fn group_and_kind(group: Option<&str>, kind: &str) -> Vec<String> {
    let mut fields: Vec<String> = group
        .map(|g| format!("group: {}", yaml_scalar(g)))
        .into_iter()
        .collect();
    fields.push(format!("kind: {}", yaml_scalar(kind)));
    fields
}

/// An owner of a policy as the configuration file writes it.
fn owner_kind(owner: &crate::policy::OwnerKind) -> String {
    let mut fields = group_and_kind(owner.group.as_deref(), &owner.kind);
    fields.extend(owner.controller.map(|c| format!("controller: {c}")));
    format!("{{{}}}", fields.join(", "))
}

/// `text` as a YAML scalar that reads back as the same string: plain when it is made of
/// letters, digits and `._/-` and reads as no other type, else double-quoted (JSON's quoting,
/// which YAML reads).
pub(super) fn yaml_scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '/')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-'))
        && !text.starts_with(|c: char| c.is_ascii_digit())
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | ".inf" | ".nan"
        );
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
    }
}
