//! Builds kept between runs (the language server's): a build is taken again while what it
//! reads is as it was, and builds may run in the background, past the run that started them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::reads::{fingerprint, may_define_kinds, read_files};
use super::{Build, BuildSettings, Failure, Target, build};
use crate::read::Files;
/// Builds kept for the next run, by target: each with the fingerprint of everything it read
/// (its options and the bytes of its files, edited or not), and what it gave.
#[derive(Default)]
pub struct BuildCache {
    builds: HashMap<Target, (u64, Build)>,
    /// How many builds the last run ran (rather than took from the cache).
    ran: usize,
    /// Builds run on threads of their own, past the run that started them (the language
    /// server's): a run takes the builds that ended and does not wait for the others.
    background: Option<Background>,
    /// The builds the last run left running.
    pending: Vec<Pending>,
}

/// A build left running: what a run found without it is not known in the files it reads,
/// nor, when it may define kinds, anywhere.
#[derive(Clone, Debug)]
pub struct Pending {
    pub target: Target,
    /// The files it reads (lexical).
    pub files: Vec<PathBuf>,
    /// It may define kinds (a CustomResourceDefinition among its files, or a packed subchart
    /// that may hold one): the kinds, scopes and API versions every other file is checked
    /// against may change when it ends.
    pub may_define_kinds: bool,
}

/// The builds under way in the background, by target, and whom to tell when one ends.
struct Background {
    running: HashMap<Target, Running>,
    ended: crossbeam_channel::Sender<()>,
}

/// A build under way: of what fingerprint, how to stop it, and where its result comes.
struct Running {
    fingerprint: u64,
    stop: Arc<AtomicBool>,
    result: crossbeam_channel::Receiver<Build>,
}

/// How long a run waits for the builds it starts before it goes on without them: most builds
/// take less, and are then in its first result.
const BACKGROUND_GRACE: std::time::Duration = std::time::Duration::from_millis(1500);

impl BuildCache {
    /// How many builds the last run ran rather than took from the cache.
    pub fn ran_last(&self) -> usize {
        self.ran
    }

    /// Build in the background from now on: a run starts the builds it needs, takes those that
    /// end within a moment, and leaves the others running (see [`BuildCache::pending`]);
    /// `ended` is told each time one ends, for the next run to take it. A build whose files
    /// change is stopped (its tool's process group ended) when the next run starts its new
    /// build.
    pub fn build_in_background(&mut self, ended: crossbeam_channel::Sender<()>) {
        self.background = Some(Background {
            running: HashMap::new(),
            ended,
        });
    }

    /// The builds the last run left running.
    pub fn pending(&self) -> &[Pending] {
        &self.pending
    }
}

impl Drop for BuildCache {
    /// Builds no run will take are stopped.
    fn drop(&mut self) {
        if let Some(background) = &self.background {
            for running in background.running.values() {
                running.stop.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// [`build`] each of `targets`, or take it from `cache` when what it reads is as it was. A
/// cache that builds in the background gives only the builds that ended.
pub(super) fn build_cached(
    targets: &[Target],
    options: &BuildSettings,
    files: &Files,
    cache: &mut BuildCache,
    stop: Option<&AtomicBool>,
) -> Vec<Build> {
    use rayon::prelude::*;
    let mut old = std::mem::take(&mut cache.builds);
    let fingerprints: Vec<u64> = targets
        .par_iter()
        .map(|target| fingerprint(target, options, files))
        .collect();
    let work: Vec<_> = fingerprints
        .into_iter()
        .zip(targets)
        .map(|(fingerprint, target)| {
            let kept = match old.remove(target) {
                Some((was, built)) if was == fingerprint => Some(built),
                _ => None,
            };
            (fingerprint, kept)
        })
        .collect();
    cache.pending.clear();
    if cache.background.is_some() {
        return build_in_background(targets, options, files, cache, work);
    }
    cache.ran = work.iter().filter(|(_, kept)| kept.is_none()).count();
    let built: Vec<(u64, Build)> = work
        .into_par_iter()
        .zip(targets)
        .map(|((fingerprint, kept), target)| match kept {
            Some(built) => (fingerprint, built),
            None => (fingerprint, build(target, options, files, stop)),
        })
        .collect();
    let stopped = stop.is_some_and(|s| s.load(Ordering::Relaxed));
    built
        .into_iter()
        .zip(targets)
        .map(|((fingerprint, built), target)| {
            // A build stopped half-way is not kept.
            if !stopped {
                cache
                    .builds
                    .insert(target.clone(), (fingerprint, built.clone()));
            }
            built
        })
        .collect()
}

/// [`build_cached`] with the builds on threads of their own: each build whose files changed is
/// started (the one under way for its old files stopped), those that end within
/// [`BACKGROUND_GRACE`] are taken, and the others are left running, listed in
/// `cache.pending`.
fn build_in_background(
    targets: &[Target],
    options: &BuildSettings,
    files: &Files,
    cache: &mut BuildCache,
    work: Vec<(u64, Option<Build>)>,
) -> Vec<Build> {
    let Some(background) = cache.background.as_mut() else {
        return Vec::new();
    };
    // Builds of charts and overlays no longer built, or built from other files now, stop.
    background.running.retain(|target, running| {
        let wanted = targets
            .iter()
            .zip(&work)
            .any(|(t, (fingerprint, _))| t == target && *fingerprint == running.fingerprint);
        if !wanted {
            running.stop.store(true, Ordering::Relaxed);
        }
        wanted
    });
    let mut ran = 0;
    let mut waiting = Vec::new();
    let mut done: Vec<Option<(u64, Build)>> = Vec::new();
    for (i, ((fingerprint, kept), target)) in work.into_iter().zip(targets).enumerate() {
        match kept {
            Some(built) => done.push(Some((fingerprint, built))),
            None => {
                if !background.running.contains_key(target) {
                    ran += 1;
                    let running =
                        start_build(target, options, files, fingerprint, &background.ended);
                    background.running.insert(target.clone(), running);
                    // Only the builds started now are waited for: one that has run for a
                    // while does not hold up every run after it.
                    waiting.push(i);
                }
                done.push(None);
            }
        }
    }
    cache.ran = ran;
    let deadline = std::time::Instant::now() + BACKGROUND_GRACE;
    for (i, target) in targets.iter().enumerate() {
        if done[i].is_some() {
            continue;
        }
        let Some(running) = background.running.get(target) else {
            continue;
        };
        // `Err(true)`: the build's thread ended without a result (it failed).
        let received = if waiting.contains(&i) {
            (running.result.recv_deadline(deadline))
                .map_err(|e| e == crossbeam_channel::RecvTimeoutError::Disconnected)
        } else {
            (running.result.try_recv())
                .map_err(|e| e == crossbeam_channel::TryRecvError::Disconnected)
        };
        let ended = match received {
            Ok(built) => Some(built),
            Err(true) => Some(Build {
                result: Err(Box::new(Failure {
                    target: target.clone(),
                    file: target.file.clone(),
                    at: None,
                    message: "the build stopped unexpectedly".into(),
                    missing_tool: false,
                })),
                left_out: Vec::new(),
            }),
            Err(false) => None,
        };
        if let Some(built) = ended {
            let fingerprint = running.fingerprint;
            background.running.remove(target);
            done[i] = Some((fingerprint, built));
        }
    }
    let mut results = Vec::new();
    for (target, done) in targets.iter().zip(done) {
        match done {
            Some((fingerprint, built)) => {
                cache
                    .builds
                    .insert(target.clone(), (fingerprint, built.clone()));
                results.push(built);
            }
            None => {
                let read = read_files(target, files);
                cache.pending.push(Pending {
                    target: target.clone(),
                    may_define_kinds: may_define_kinds(&read, files),
                    files: read,
                });
            }
        }
    }
    results
}

/// Start building `target` on a thread of its own: its result comes on the receiver, and
/// `ended` is told, unless it was stopped.
fn start_build(
    target: &Target,
    options: &BuildSettings,
    files: &Files,
    fingerprint: u64,
    ended: &crossbeam_channel::Sender<()>,
) -> Running {
    let stop = Arc::new(AtomicBool::new(false));
    let (send, result) = crossbeam_channel::bounded(1);
    let building = target.clone();
    let build_options = options.options.clone();
    let namespace = options.namespace.to_string();
    let kube_version = options.kube_version.clone();
    let roots = options.roots.to_vec();
    let files = files.clone();
    let ended = ended.clone();
    let stopped = Arc::clone(&stop);
    let spawned = std::thread::Builder::new()
        .name("ownerlint-build".into())
        .spawn(move || {
            let settings = BuildSettings {
                options: &build_options,
                namespace: &namespace,
                kube_version,
                roots: &roots,
            };
            let built = build(&building, &settings, &files, Some(&stopped));
            if !stopped.load(Ordering::Relaxed) {
                let _ = send.send(built);
                let _ = ended.send(());
            }
        });
    if let Err(e) = spawned {
        // No thread: the build fails now, with why.
        let (send, failed) = crossbeam_channel::bounded(1);
        let _ = send.send(Build {
            result: Err(Box::new(Failure {
                target: target.clone(),
                file: target.file.clone(),
                at: None,
                message: format!("the build could not be started: {e}"),
                missing_tool: false,
            })),
            left_out: Vec::new(),
        });
        return Running {
            fingerprint,
            stop,
            result: failed,
        };
    }
    Running {
        fingerprint,
        stop,
        result,
    }
}
