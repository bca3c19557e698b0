//! What the server knows after an analysis: each workspace folder's analysis (and that of the
//! open files in no folder), read-only, shared with the requests that read it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::analysis::{Analysis, Options, Spot};
use crate::config::ConfigError;
use crate::index::ObjId;
use crate::model::Object;
use crate::pipeline::LoadCache;
use crate::resolve::{Ownership, RefResolution};
use crate::source::{Source, SourceId, Span};

/// One analysis: a workspace folder, or the open files that are in none.
pub(super) struct Part {
    pub analysis: Analysis,
    pub ownership: Ownership,
    /// Linted sources by path.
    by_path: HashMap<PathBuf, SourceId>,
    /// The files built objects came from, by path: their index in the analysis's places.
    built_files: HashMap<PathBuf, usize>,
    /// The places of each built object (indices into the analysis's spots), by object.
    spots_of: HashMap<ObjId, Vec<usize>>,
}

impl Part {
    pub(super) fn new(analysis: Analysis) -> Part {
        let ownership = Ownership::new(&analysis.resolutions);
        let by_path = analysis
            .outcome
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| (PathBuf::from(&s.name), SourceId(i as u32)))
            .collect();
        let places = &analysis.places;
        let built_files = places
            .files
            .iter()
            .enumerate()
            .map(|(i, s)| (PathBuf::from(&s.name), i))
            .collect();
        let mut spots_of: HashMap<ObjId, Vec<usize>> = HashMap::new();
        for (i, spot) in places.spots.iter().enumerate() {
            spots_of.entry(spot.object).or_default().push(i);
        }
        Part {
            analysis,
            ownership,
            by_path,
            built_files,
            spots_of,
        }
    }

    /// The file at `path` that built objects came from, if any.
    pub(super) fn built_file(&self, path: &Path) -> Option<&Source> {
        let &i = self.built_files.get(path)?;
        self.analysis.places.files.get(i)
    }

    /// The built object whose place in the file at `path` holds `offset` (the innermost), and
    /// its owner reference there, if the offset is in one.
    pub(super) fn built_at(&self, path: &Path, offset: usize) -> Option<(ObjId, Option<usize>)> {
        let &file = self.built_files.get(path)?;
        let holding: Vec<&Spot> = self
            .analysis
            .places
            .spots
            .iter()
            .filter(|s| s.file == file && contains(s.span, offset))
            .collect();
        let innermost = holding.iter().min_by_key(|s| s.span.len())?;
        let reference = holding
            .iter()
            .filter(|s| s.object == innermost.object && s.exact)
            .find_map(|s| s.reference);
        Some((innermost.object, reference))
    }

    /// Where object `id` is written, in the file people edit: its name's span (for a built
    /// object, the place its name was taken back to).
    pub(super) fn name_place(&self, id: ObjId) -> (&Source, Span) {
        match self.spot(id, |s| s.name) {
            Some((source, span)) => (source, span),
            None => {
                let object = self.object(id);
                (self.source(object.source), object.name_span())
            }
        }
    }

    /// Where owner reference `index` of object `id` is written, in the file people edit.
    pub(super) fn reference_place(&self, id: ObjId, index: usize) -> Option<(&Source, Span)> {
        if let Some(place) = self.spot(id, |s| s.reference == Some(index)) {
            return Some(place);
        }
        let object = self.object(id);
        let span = object.owner_refs().get(index)?.span;
        Some((self.source(object.source), span))
    }

    fn spot(&self, id: ObjId, which: impl Fn(&Spot) -> bool) -> Option<(&Source, Span)> {
        let places = &self.analysis.places;
        self.spots_of
            .get(&id)?
            .iter()
            .map(|&i| &places.spots[i])
            .find(|s| which(s))
            .and_then(|s| Some((places.files.get(s.file)?, s.span)))
    }

    pub(super) fn source(&self, id: SourceId) -> &Source {
        self.analysis.outcome.source(id)
    }

    pub(super) fn object(&self, id: ObjId) -> &Object {
        &self.analysis.objects[id.index()]
    }

    /// The object of `source` whose text holds `offset` (the innermost, for a List).
    pub(super) fn object_at(&self, source: SourceId, offset: usize) -> Option<ObjId> {
        self.analysis
            .objects
            .iter()
            .enumerate()
            .filter(|(_, o)| o.source == source && contains(o.extent, offset))
            .min_by_key(|(_, o)| o.extent.len())
            .map(|(i, _)| ObjId(i as u32))
    }

    /// The owner reference of object `id` whose entry holds `offset`, with its index.
    pub(super) fn reference_at(&self, id: ObjId, offset: usize) -> Option<usize> {
        self.object(id)
            .owner_refs()
            .iter()
            .position(|r| contains(r.span, offset))
    }

    pub(super) fn resolution(&self, id: ObjId, reference: usize) -> Option<&RefResolution> {
        self.analysis.resolutions.get(id.index())?.get(reference)
    }
}

fn contains(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

/// Every analysis of one moment, and the texts it was made from.
pub(super) struct Snapshot {
    pub parts: Vec<Part>,
    /// The open files' texts as analysed, by path.
    pub texts: HashMap<PathBuf, String>,
    /// The open files' versions as analysed, by path.
    pub versions: HashMap<PathBuf, i32>,
    /// Each configuration file with mistakes (as read), and its mistakes.
    pub configs: Vec<(Source, Vec<ConfigError>)>,
    /// The files read by builds still under way (lexical): what was shown for them stands
    /// until those builds end.
    pub held: HashSet<PathBuf>,
    /// A build still under way may define kinds, which every file is checked against: what
    /// was shown for every file stands until it ends.
    pub holds_all: bool,
}

impl Snapshot {
    pub(super) fn empty() -> Snapshot {
        Snapshot {
            parts: Vec::new(),
            texts: HashMap::new(),
            versions: HashMap::new(),
            configs: Vec::new(),
            held: HashSet::new(),
            holds_all: false,
        }
    }

    /// Builds were still under way: what it holds of the files they may change is not to be
    /// shown.
    pub(super) fn building(&self) -> bool {
        self.holds_all || !self.held.is_empty()
    }

    /// The analysis that lints `path`, and its source there.
    pub(super) fn find(&self, path: &Path) -> Option<(&Part, SourceId)> {
        self.parts
            .iter()
            .find_map(|part| part.by_path.get(path).map(|&id| (part, id)))
    }
}

/// What to analyse: each folder with its options, and the open files.
pub(super) struct Job {
    pub folders: Vec<Options>,
    /// Open files in no folder, with the options of the configuration found beside them.
    pub loose: Option<Options>,
    pub open: HashMap<PathBuf, String>,
    pub versions: HashMap<PathBuf, i32>,
    /// The mistakes of the configuration files read (their options are the defaults).
    pub config_errors: Vec<ConfigError>,
}

/// What was loaded of each folder's files, for the next analysis: only files whose bytes
/// changed are loaded again.
pub(super) type Caches = HashMap<Vec<PathBuf>, LoadCache>;

impl Job {
    /// Analyse each folder, with the builds of `caches` run in the background: a build that
    /// takes long is left running (`ended` is told when it ends), and the files it reads are
    /// held.
    pub(super) fn run(
        &self,
        caches: &mut Caches,
        ended: &crossbeam_channel::Sender<()>,
    ) -> Snapshot {
        let mut used = Caches::new();
        let mut parts = Vec::new();
        let mut held = HashSet::new();
        let mut holds_all = false;
        for options in self.folders.iter().chain(&self.loose) {
            let mut cache = caches.remove(&options.paths).unwrap_or_else(|| {
                let mut cache = LoadCache::default();
                cache.build_in_background(ended.clone());
                cache
            });
            let inputs = crate::pipeline::Inputs {
                texts: self.open.clone(),
                stdin: &mut std::io::empty(),
                cache: Some(&mut cache),
            };
            let analysis = crate::pipeline::analyze_inputs(options, inputs);
            for pending in cache.pending_builds() {
                held.extend(pending.files.iter().cloned());
                holds_all |= pending.may_define_kinds;
            }
            parts.push(Part::new(analysis));
            used.insert(options.paths.clone(), cache);
        }
        // Folders no longer open are forgotten.
        *caches = used;
        // Each file once, though several folders read it.
        let mut configs: Vec<(Source, Vec<ConfigError>)> = Vec::new();
        for error in self.config_errors.iter().cloned() {
            match configs.iter_mut().find(|(s, _)| s.name == error.path) {
                Some((_, errors)) => {
                    if !errors.contains(&error) {
                        errors.push(error);
                    }
                }
                None => {
                    let path = PathBuf::from(&error.path);
                    let text = match self.open.get(&path) {
                        Some(text) => text.clone(),
                        None => crate::read::small_file(&path).unwrap_or_default(),
                    };
                    configs.push((Source::new(error.path.clone(), text), vec![error]));
                }
            }
        }
        Snapshot {
            parts,
            texts: self.open.clone(),
            versions: self.versions.clone(),
            configs,
            held,
            holds_all,
        }
    }
}
