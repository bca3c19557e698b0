//! Loading every input: each is decoded and read into objects (in parallel, or taken from the
//! editor's cache when its bytes are unchanged), with what a saved cluster snapshot says it
//! could not read, and the charts and overlays that could not be built as text to report on.

use super::*;

/// What loading every input gave.
pub(super) struct LoadedAll {
    /// The sources, input errors and counts so far.
    pub(super) outcome: Outcome,
    /// Objects to lint, and those of `--existing` and `--project`.
    pub(super) objects: Vec<Object>,
    /// Objects of `--crds`: only their CRDs are read.
    pub(super) crd_objects: Vec<Object>,
    /// The API groups a cluster's discovery document among the inputs lists: for the
    /// catalogue, not objects.
    pub(super) discovered: Vec<crate::catalog::DiscoveredGroup>,
    /// What a saved cluster snapshot among the inputs says it could not read.
    pub(super) not_read: Vec<rules::NotRead>,
    pub(super) unread: Vec<Unread>,
    pub(super) suppressions: Vec<suppress::Suppression>,
    pub(super) malformed: Vec<suppress::Malformed>,
    /// Looked up for every object: hashed with foldhash, not SipHash.
    pub(super) lint_sources: foldhash::HashSet<SourceId>,
    pub(super) has_project: bool,
    /// Objects of the files the git change deletes: gone, not indexed.
    pub(super) deleted: Vec<Object>,
}

/// Decode and load each input (in parallel, then taken in input order, so the output does not
/// depend on scheduling).
pub(super) fn load_all(
    texts: Vec<(String, Content, Role)>,
    options: &Options,
    cache: Option<&mut LoadCache>,
    builds: &Builds,
    kept: &'static Kept,
    written: Vec<Option<load::Written>>,
) -> LoadedAll {
    let prepared: Vec<Prepared> = match cache {
        None => {
            let mut written = written.into_iter();
            texts
                .into_iter()
                .map(|input| (input, written.next().flatten()))
                .collect::<Vec<_>>()
                .into_par_iter()
                .enumerate()
                .map(|(i, ((name, content, role), written))| {
                    let built_by = builds.built.get(&name).map(|r| r.target.tool);
                    let id = SourceId(i as u32);
                    let input = (name, content, role, written);
                    prepare(id, input, options, built_by, kept)
                })
                .collect()
        }
        Some(cache) => prepare_cached(texts, options, cache, builds, kept),
    };
    let mut all = LoadedAll {
        outcome: Outcome::default(),
        objects: Vec::new(),
        crd_objects: Vec::new(),
        discovered: Vec::new(),
        not_read: Vec::new(),
        unread: Vec::new(),
        suppressions: Vec::new(),
        malformed: Vec::new(),
        lint_sources: Default::default(),
        has_project: false,
        deleted: Vec::new(),
    };
    // Room for the objects of every input at once, when there are several (one input's list
    // is taken as it is): growing the list input by input would copy it again and again.
    let counts = prepared
        .iter()
        .filter(|p| matches!(p.role, Role::Lint | Role::Existing | Role::Project))
        .filter_map(|p| p.loaded.as_ref().map(|loaded| loaded.objects.len()))
        .filter(|&count| count > 0);
    if counts.clone().count() > 1 {
        all.objects.reserve(counts.sum());
    }
    for prepared in prepared {
        let Prepared {
            source,
            role,
            invalid_at,
            loaded,
            comments,
            error,
        } = prepared;
        // The source stays, so that the ids of the others do not move.
        all.outcome.errors.extend(error);
        let id = SourceId(all.outcome.sources.len() as u32);
        // What a chart or an overlay built is counted as the chart or overlay, not a file.
        if role == Role::Lint && source.built_by.is_none() {
            all.outcome.stats.files += 1;
        }
        if let Some(at) = invalid_at {
            all.unread.push(Unread {
                source: id,
                origin: None,
                why: load::Why::NotUtf8 {
                    at: source.text.char_span(at),
                },
            });
            all.outcome.sources.push(source);
            continue;
        }
        let Some(mut loaded) = loaded else {
            all.outcome.sources.push(source);
            continue;
        };
        // A finding on a reference to what the change deletes is reported, like one in a
        // linted file.
        if matches!(role, Role::Lint | Role::Deleted) {
            all.lint_sources.insert(id);
        }
        if role == Role::Deleted {
            // Gone: its objects are not indexed, and what it could not read is not reported.
            all.deleted.extend(loaded.objects);
            all.outcome.stats.deleted_files += 1;
            all.outcome.sources.push(source);
            continue;
        }
        if role == Role::Project {
            // Read and checked as manifests like the linted files, so that owners resolve as
            // they would; only findings that involve a linted file are reported.
            all.has_project = true;
        } else {
            all.unread.extend(loaded.unread);
        }
        if let Some((found, bad)) = comments {
            all.suppressions.extend(found);
            all.malformed.extend(bad);
        }
        // A cluster's discovery document, as an input or with --existing, is for the catalogue.
        all.discovered.extend(
            loaded
                .objects
                .extract_if(.., |o| o.discovery().is_some())
                .filter_map(Object::into_discovery),
        );
        // So is what a saved snapshot could not read: its kinds are not checked, as in the
        // run that saved it.
        all.not_read.extend(
            loaded
                .objects
                .extract_if(.., |o| is_not_read_record(o))
                .flat_map(|o| not_read_of(&o)),
        );
        match role {
            Role::Crds => append(&mut all.crd_objects, loaded.objects),
            Role::Deleted => {}
            Role::Lint | Role::Existing | Role::Project => {
                if role == Role::Lint {
                    let stats = &mut all.outcome.stats;
                    stats.documents += loaded.documents;
                    stats.skipped_documents += loaded.skipped;
                    stats.objects += loaded.objects.len();
                }
                append(&mut all.objects, loaded.objects);
            }
        }
        all.outcome.sources.push(source);
    }
    all.outcome.stats.discovered_groups = all.discovered.len();
    all
}

/// Whether an object is the record of what a saved cluster snapshot could not read
/// (`not-read.json`), not an object of the cluster.
fn is_not_read_record(object: &Object) -> bool {
    object.kind_str() == crate::fields::NOT_READ_KIND
        && object.api_version.as_ref().is_some_and(|v| {
            v.value
                .split_once('/')
                .is_some_and(|(group, _)| group == crate::fields::NOT_READ_GROUP)
        })
}

/// What such a record says was not read: each resource (or group, without a kind) and why.
fn not_read_of(record: &Object) -> Vec<rules::NotRead> {
    let Some(held) = record.field(crate::fields::NOT_READ_RESOURCES) else {
        return Vec::new();
    };
    let entries = held.value.as_seq().unwrap_or_default();
    entries
        .iter()
        .filter_map(|entry| {
            let text = |key: &str| {
                entry
                    .get(key)
                    .and_then(crate::yaml::Node::as_str)
                    .map(str::to_string)
            };
            Some(rules::NotRead {
                group: text("group").unwrap_or_default(),
                kind: text("kind"),
                what: text("resource")?,
                why: text("why").unwrap_or_default(),
            })
        })
        .collect()
}

/// The charts and overlays that could not be built, as text the rules report on: the file
/// each failure names, read to show it; and what the builds left out because it leads outside
/// the repository, at the link (which is not read).
pub(super) fn add_build_failures(loaded: &mut LoadedAll, builds: &Builds) {
    let left_out: HashSet<std::path::PathBuf> = builds
        .left_out
        .iter()
        .map(|left| read::lexical(&left.outside.path))
        .collect();
    for left in &builds.left_out {
        let source = Source::new(read::display_path(&left.outside.path), String::new());
        let id = SourceId(loaded.outcome.sources.len() as u32);
        loaded.outcome.sources.push(source);
        loaded.unread.push(Unread {
            source: id,
            origin: left.target.as_ref().map(|target| target.command()),
            why: load::Why::OutsideRepository {
                message: match &left.target {
                    Some(_) => left.outside.message(),
                    None => left.outside.unread_message(),
                },
            },
        });
    }
    for not_checked in &builds.not_checked {
        let name = read::display_path(&not_checked.file);
        let id = match loaded.outcome.sources.iter().position(|s| s.name == name) {
            Some(i) => SourceId(i as u32),
            None => {
                let text = builds.read(&not_checked.file).unwrap_or_default();
                loaded.outcome.sources.push(Source::new(name, text));
                SourceId(loaded.outcome.sources.len() as u32 - 1)
            }
        };
        let source = &loaded.outcome.sources[id.0 as usize];
        // The field that names the source, to the end of its line; else the object's first
        // line.
        let field = not_checked
            .at
            .filter(|&at| at < source.text.len() && source.text.is_char_boundary(at))
            .map(|at| (source.line_index(at), at));
        let line = field.map_or(not_checked.line, |(line, _)| line);
        let at = match line < source.line_count() {
            true => {
                let line_start = source.line_start(line);
                let end = line_start + source.line_text(line).trim_end().len();
                let start = field.map_or(line_start, |(_, at)| at).min(end);
                crate::source::Span::new(start, end)
            }
            false => crate::source::Span::new(0, 0),
        };
        loaded.lint_sources.insert(id);
        loaded.unread.push(Unread {
            source: id,
            origin: None,
            why: load::Why::SourceNotInRepository {
                at,
                message: not_checked.message.clone(),
                values: not_checked.values,
            },
        });
    }
    for failure in &builds.failures {
        // A file that leads outside the repository is not shown.
        let text = match left_out.contains(&read::lexical(&failure.file)) {
            true => String::new(),
            false => builds.read(&failure.file).unwrap_or_default(),
        };
        let source = Source::new(read::display_path(&failure.file), text);
        let at = match failure.at {
            Some((line, column)) if line <= source.line_count() => {
                let start = source.line_start(line - 1);
                let line_text = source.line_text(line - 1);
                let offset = line_text
                    .char_indices()
                    .nth(column - 1)
                    .map_or(0, |(at, _)| at);
                let end = start + line_text.trim_end().len();
                crate::source::Span::new((start + offset).min(end), end)
            }
            _ => {
                let first = source.line_text(0).trim_end().len();
                crate::source::Span::new(0, first)
            }
        };
        let id = SourceId(loaded.outcome.sources.len() as u32);
        loaded.outcome.sources.push(source);
        // Only the paths linted are built: with --project (the pre-commit hook), a chart or
        // overlay of the changed files that was not built is still reported.
        loaded.lint_sources.insert(id);
        loaded.unread.push(Unread {
            source: id,
            origin: Some(failure.target.command()),
            why: load::Why::RenderFailed {
                at,
                message: failure.message.clone(),
                missing_tool: failure.missing_tool,
            },
        });
    }
}

/// Decode one input, read its suppression comments, and load its objects (from what was
/// written of them with the text, when it was: see [`load::Written`]).
pub(super) fn prepare(
    id: SourceId,
    (name, content, role, written): (String, Content, Role, Option<load::Written>),
    options: &Options,
    built_by: Option<crate::build::Tool>,
    kept: &'static Kept,
) -> Prepared {
    let (mut source, invalid_at) = match read::decode(name, content) {
        Ok(decoded) => decoded,
        Err(failed) => {
            let (source, message) = *failed;
            let error = InputError {
                path: source.name.clone(),
                message,
            };
            return Prepared::failed(source, role, error);
        }
    };
    source.built_by = built_by;
    // The comments of what a chart or an overlay built are read in the files it was built
    // from, where findings are taken back to.
    let comments = (matches!(role, Role::Lint | Role::Project)
        && built_by.is_none()
        && !options.no_suppress
        && invalid_at.is_none())
    .then(|| suppress::from_comments(id, &source));
    let loaded = invalid_at.is_none().then(|| {
        let load_options = LoadOptions {
            limits: options.limits,
            // What a chart or an overlay builds is applied, whatever it carries.
            mode: match options.mode {
                load::ModeChoice::Auto if built_by.is_some() => load::ModeChoice::Apply,
                mode => mode,
            },
            from_existing: role == Role::Existing,
            fast_path: (!options.full_parse).then_some(kept),
            held: kept.held(),
        };
        match written {
            Some(written) => load::load_written(id, &source, written, load_options),
            None => load::load(id, &source, load_options),
        }
    });
    // What was read of a file that changed meanwhile is not to be trusted.
    if source.text.changed() {
        let error = read::changed(&source);
        return Prepared::failed(source, role, error);
    }
    Prepared {
        source,
        role,
        invalid_at,
        loaded,
        comments,
        error: None,
    }
}

/// Add `more` to `objects`, without copying when `objects` is still empty and has no room for
/// them (a single big dump).
pub(super) fn append(objects: &mut Vec<Object>, more: Vec<Object>) {
    if objects.is_empty() && objects.capacity() < more.len() {
        *objects = more;
    } else {
        objects.extend(more);
    }
}

/// [`prepare`] each input, or take it from `cache` when its bytes are those loaded last time;
/// the cache then holds what this run loaded, and nothing else.
pub(super) fn prepare_cached(
    texts: Vec<(String, Content, Role)>,
    options: &Options,
    cache: &mut LoadCache,
    builds: &Builds,
    fields: &'static Kept,
) -> Vec<Prepared> {
    let fingerprint = format!(
        "{:?} {:?} {} {} {:p}",
        options.limits, options.mode, options.no_suppress, options.full_parse, fields
    );
    if cache.options != fingerprint {
        cache.entries.clear();
        cache.options = fingerprint;
    }
    let mut old = std::mem::take(&mut cache.entries);
    let work: Vec<_> = texts
        .into_iter()
        .enumerate()
        .map(|(i, (name, content, role))| {
            let key = (name.clone(), role, i as u32);
            let hash = content.hash();
            let kept = match (hash, old.remove(&key)) {
                (Some(hash), Some(entry)) if entry.hash == hash => Some(entry),
                _ => None,
            };
            (key, hash, kept, name, content, role)
        })
        .collect();
    cache.loaded = work.iter().filter(|w| w.2.is_none()).count();
    // Each input, and what the cache keeps of it: an input taken from the cache gives its
    // spare copy if it has one, else the cache keeps a copy (made in parallel too).
    let prepared: Vec<(Option<(CacheKey, Entry)>, Prepared)> = work
        .into_par_iter()
        .map(|(key, hash, kept, name, content, role)| match kept {
            Some(Entry {
                hash,
                prepared,
                spare: Some(spare),
            }) => {
                let entry = Entry {
                    hash,
                    prepared,
                    spare: None,
                };
                (Some((key, entry)), spare)
            }
            kept => {
                let prepared = match kept {
                    Some(entry) => entry.prepared,
                    None => {
                        let built_by = builds.built.get(&name).map(|r| r.target.tool);
                        let id = SourceId(key.2);
                        prepare(id, (name, content, role, None), options, built_by, fields)
                    }
                };
                let entry = hash.and_then(|hash| {
                    let copy = prepared.try_clone()?;
                    Some((
                        key,
                        Entry {
                            hash,
                            prepared: copy,
                            spare: None,
                        },
                    ))
                });
                (entry, prepared)
            }
        })
        .collect();
    drop(old);
    prepared
        .into_iter()
        .map(|(entry, prepared)| {
            if let Some((key, entry)) = entry {
                cache.entries.insert(key, entry);
            }
            prepared
        })
        .collect()
}

/// One input, decoded and loaded.
pub(super) struct Prepared {
    pub(super) source: Source,
    pub(super) role: Role,
    pub(super) invalid_at: Option<usize>,
    pub(super) loaded: Option<load::Loaded>,
    pub(super) comments: Option<(Vec<suppress::Suppression>, Vec<suppress::Malformed>)>,
    /// Why the input was not checked, when it could not be read after all.
    pub(super) error: Option<InputError>,
}

impl Prepared {
    /// A copy, for a cache; `None` for a big file, or an input that could not be read.
    pub(super) fn try_clone(&self) -> Option<Prepared> {
        if self.error.is_some() {
            return None;
        }
        Some(Prepared {
            source: self.source.try_clone()?,
            role: self.role,
            invalid_at: self.invalid_at,
            loaded: self.loaded.clone(),
            comments: self.comments.clone(),
            error: None,
        })
    }

    fn failed(source: Source, role: Role, error: InputError) -> Prepared {
        Prepared {
            source,
            role,
            invalid_at: None,
            loaded: None,
            comments: None,
            error: Some(error),
        }
    }
}
